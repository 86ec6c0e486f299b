"""Sherlock metrics (paper §4, Table 2), equal to the official leaderboard scorers
(allenai/sherlock ``leaderboard_eval/score_{retrieval,localization,comparison}.py``) on the same scores.

Scores are plausibilities (higher = more plausible). The kernels take plain arrays; the
``*_outcome`` functions group the per-document records into the protocol's units and are the
``compute`` of the task specs (:mod:`abductive_tasks.sherlock.hooks`). Every metric stays on the
paper's 0-100 scale (mean ranks: raw); its bootstrap resamples the unit the protocol averages
over: the retrieval chunk, the localization image, the comparison input.

Records (per document): ``group`` (chunk, image and box type, input) and ``group_size`` (a group
is scored only when all its documents are present: ``--limit`` can cut one apart), ``has_key``
(false on the test split: nothing is scored), ``plausibility`` (None for an unreadable result
or a failed request), ``sherlock_task`` and ``chunk`` (the leaderboard file), and the task's
answer fields.

One missing-score policy for the metrics and the export: :func:`submitted_scores` turns a task's records into the
float32 values the leaderboard file holds, a missing score (unreadable or a failed request)
becoming :func:`missing_score` of its file, strictly below every real score of the file. The
export (:mod:`abductive_tasks.sherlock.export`) writes exactly these values, and the metrics are
the official algorithms on exactly these values, so the official scorers on the export give
what the run prints.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Mapping, Sequence

import lapjv
import numpy as np
import pandas as pd
from loguru import logger
from scipy.stats import rankdata

from abductive_tasks.scoring.stats import Estimate
from abductive_tasks.scoring.taskspec import Outcome
from abductive_tasks.sherlock.factored_retrieval import chunk_scores

IOU_THRESHOLD = 0.5  # §4.2: a proposal is correct when its IoU with a true box is > 0.5
TIE_BREAK_SEED = 1  # score_comparison.pairwise_acc: np.random.seed(1); np.random.random(size=10) / 1e9
TIE_BREAK_SCALE = 1e-9


def missing_score(real: np.ndarray) -> np.float32:
    """The value of a missing score in a leaderboard file whose real scores (float32) are ``real``: the lowest
    minus 1, or the next float32 below the lowest where ``lowest - 1`` rounds back to it (from 2**24 on);
    0 when the file holds no real score."""
    if not real.size:
        return np.float32(0.0)
    lowest = np.float32(real.min())
    below = np.float32(lowest - np.float32(1.0))
    return below if below < lowest else np.nextafter(lowest, np.float32(-np.inf))


def as_submitted(scores: np.ndarray) -> np.ndarray:
    """One leaderboard file's scores as submitted (float32): a missing score (NaN, or not finite) becomes
    :func:`missing_score` of the file's real scores."""
    values = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(values)
    real = values.astype(np.float32)
    return np.where(finite, real, missing_score(real[finite]))


def submission_file(record: dict) -> str:
    """The leaderboard file a per-pair record's score goes to: ``comparison``, ``localization``, ``retrieval_<i>``."""
    task = record["sherlock_task"]
    return f"retrieval_{record['chunk']}" if task == "retrieval" else task


def column(records: Sequence[dict], name: str, dtype: type | np.dtype) -> np.ndarray:
    """The field ``name`` of every record as one array (a C-level pass: no per-record Python code)."""
    return np.fromiter(map(operator.itemgetter(name), records), dtype=dtype, count=len(records))


def _file_codes(records: Sequence[dict]) -> np.ndarray:
    """A number per record naming its leaderboard file (:func:`submission_file`): equal numbers, same file."""
    tasks, names = pd.factorize(column(records, "sherlock_task", object))
    retrieval = np.flatnonzero(names == "retrieval")
    if not len(retrieval):
        return tasks
    chunks = np.where(tasks == retrieval[0], column(records, "chunk", np.int64), -1)  # -1: not a retrieval file
    return tasks * (chunks.max() + 2) + chunks + 1


def submitted_scores(records: Sequence[dict]) -> np.ndarray:
    """The float32 score each record has in its leaderboard file (:func:`as_submitted` per file), aligned with
    ``records``: what the export writes and what every metric reads."""
    raw = column(records, "plausibility", np.float64)  # None (missing) becomes NaN
    finite = np.isfinite(raw)
    values = raw.astype(np.float32)
    if finite.all():
        return values
    files = _file_codes(records)
    for file in np.unique(files[~finite]):  # only the files that miss a score
        chosen = files == file
        values[chosen] = as_submitted(raw[chosen])
    return values


# ---------------------------------------------------------------- retrieval (§4.1)


def retrieval_metrics(sim: np.ndarray) -> dict[str, float | int]:
    """Mean rank of the true item im->txt (along rows) and txt->im (along columns), and P@1 (percent of rows ranked 1).

    ``sim`` is square: image-region rows, inference columns, the true pairs on the diagonal; tied
    scores share their average rank (``scipy.stats.rankdata``), as in the official scorer.
    """
    sim = np.asarray(sim, dtype=np.float64)
    im2txt = np.diagonal(rankdata(-sim, axis=1))
    txt2im = np.diagonal(rankdata(-sim, axis=0))
    return {
        "im2txt_rank": float(im2txt.mean()),
        "txt2im_rank": float(txt2im.mean()),
        "p_at_1": float(100 * np.mean(im2txt == 1.0)),
        "n": int(len(sim)),
    }


# ---------------------------------------------------------------- localization (§4.2)


def localization_gt_accuracy(sim: np.ndarray) -> float:
    """Share of inferences given their own box by the maximum-score one-to-one assignment.

    ``sim[box, inference]``, the true box of inference ``j`` being box ``j`` (the diagonal). As the
    official ``get_region_sol``: ``lapjv.lapjv`` (src-d) on ``-sim``, which solves in float32 (score
    differences below float32 resolution are ties) and breaks exact ties by its own deterministic
    order (a constant matrix of size n >= 2 gets no box right).
    """
    box_to_inference, _inference_to_box, _duals = lapjv.lapjv(-np.asarray(sim, dtype=np.float64))
    return float(np.mean(box_to_inference == np.arange(len(box_to_inference))))


# ---------------------------------------------------------------- comparison (§4.3)


def tie_break_noise(n: int) -> np.ndarray:
    """The official fixed noise added by candidate position: ``np.random.seed(1); np.random.random(10) / 1e9``.

    The official scorer draws exactly 10 values (every input has at most 10 candidates);
    longer inputs continue the same stream.
    """
    return np.random.RandomState(TIE_BREAK_SEED).random_sample(max(10, n))[:n] * TIE_BREAK_SCALE


@functools.cache
def _pairs_of(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tie-break noise of ``n`` candidates and their pairs (first, second), made once per size (read-only): a
    RandomState per call was most of the comparison aggregation's time."""
    arrays = (tie_break_noise(n), *np.triu_indices(n, k=1))
    for array in arrays:
        array.flags.writeable = False
    return arrays


def pairwise_accuracy(prediction: np.ndarray, label: np.ndarray) -> float:
    """(correct / total - 0.5) * 2 over the candidate pairs whose labels differ (0 when none differ).

    A pair is correct when the tie-broken prediction orders it as the label does (official ``pairwise_acc``).
    """
    label = np.asarray(label, dtype=np.float64)
    noise, first, second = _pairs_of(len(label))
    tie_broken = np.asarray(prediction, dtype=np.float64) + noise
    differ = label[first] != label[second]
    total = int(differ.sum())
    if total == 0:
        return 0.0
    agree = (label[first] < label[second]) == (tie_broken[first] < tie_broken[second])
    return (int((agree & differ).sum()) / total - 0.5) * 2


def comparison_input_scores(model: np.ndarray, annot1: np.ndarray, annot2: np.ndarray) -> dict[str, float]:
    """One input's model, human-agreement and oracle scores, each annotator serving in turn as the label."""
    roles = ((annot1, annot2), (annot2, annot1))  # (the other annotator's ratings, label)
    oracle = (np.asarray(annot1, dtype=np.float64) + annot2) / 2
    return {
        "model": float(np.mean([pairwise_accuracy(model, label) for _, label in roles])),
        "human": float(np.mean([pairwise_accuracy(other, label) for other, label in roles])),
        "oracle": float(np.mean([pairwise_accuracy(oracle, label) for _, label in roles])),
    }


# ---------------------------------------------------------------- outcomes (the task specs' computations)

Records = Sequence[dict]
EXPORT_HINT = "export the scores with `abductive-eval export-sherlock`"


def _groups(records: Records) -> tuple[dict[str, list[tuple[dict, float]]], int]:
    """Complete groups of labelled records with their submitted scores (:func:`submitted_scores`), and the
    number of incomplete groups."""
    scores = submitted_scores(records)
    groups: dict[str, list[tuple[dict, float]]] = {}
    for record, score in zip(records, scores, strict=True):
        if record["has_key"]:
            groups.setdefault(record["group"], []).append((record, float(score)))
    complete = {group: members for group, members in groups.items() if len(members) == members[0][0]["group_size"]}
    if records and not groups:
        logger.info(f"Sherlock {records[0]['split']} split: no answer key, metrics not computed; {EXPORT_HINT}")
    return complete, len(groups) - len(complete)


def _retrieval(per_chunk: dict[int, dict], prefix: str, counts: dict) -> Outcome:
    """Mean over chunks (§4.1, footnote 12), the chunk being the bootstrap unit; ``<prefix>_per_chunk`` keeps
    each chunk's values. Chance: a random scorer ranks the true item (n + 1) / 2 on average,
    first with probability 1 / n."""
    per_chunk = dict(sorted(per_chunk.items()))
    units, values = [str(chunk) for chunk in per_chunk], list(per_chunk.values())
    sizes = np.array([chunk["n"] for chunk in values], dtype=float)
    names = ("p_at_1", "im2txt_rank", "txt2im_rank")
    chance = {}
    if values:
        middle = float(np.mean((sizes + 1) / 2))
        chance = {
            f"{prefix}_p_at_1": float(np.mean(100 / sizes)),
            f"{prefix}_im2txt_rank": middle,
            f"{prefix}_txt2im_rank": middle,
        }
    return Outcome(
        estimates={f"{prefix}_{name}": Estimate.mean(units, [chunk[name] for chunk in values]) for name in names},
        values={f"{prefix}_per_chunk": per_chunk},
        counts=counts,
        chance=chance,
    )


def retrieval_outcome(records: Records, prefix: str) -> Outcome:
    """Per complete chunk the n x n grid (image instances x text instances, true pairs on the diagonal), §4.1;
    ``prefix``: ``retrieval`` (every pair) or ``mini`` (the seeded sub-grid)."""
    groups, incomplete = _groups(records)
    per_chunk = {}
    for members in groups.values():
        rows, row_of = np.unique([r["image_instance"] for r, _ in members], return_inverse=True)
        _, col_of = np.unique([r["text_instance"] for r, _ in members], return_inverse=True)
        sim = np.zeros((len(rows), len(rows)))
        sim[row_of, col_of] = [score for _, score in members]
        per_chunk[int(members[0][0]["chunk"])] = retrieval_metrics(sim)
    return _retrieval(per_chunk, prefix, {"chunks_scored": len(per_chunk), "chunks_incomplete": incomplete})


def embedding_retrieval_outcome(records: Records) -> Outcome:
    """§4.1 through the factored route: per complete chunk the official grid from one matrix product of the
    documents' embeddings, then the same kernel on the submitted (float32) scores."""
    per_chunk, incomplete = {}, 0
    for scored in chunk_scores(records):
        incomplete += scored.missing > 0  # a chunk cut by --limit; unreadable results are counted as unparsable
        if scored.grid is not None:
            per_chunk[scored.chunk] = retrieval_metrics(scored.grid)  # float32, the values the export writes
    unreadable = sum(record["payload"] is None for record in records)
    if unreadable:
        logger.warning(
            f"sherlock_retrieval: {unreadable} results are not embeddings: it needs an embedding scorer (else "
            "use sherlock_retrieval_mini)"
        )
    if records and not any(record["gold_row"] >= 0 for record in records):
        logger.info(f"Sherlock {records[0]['split']} split: no answer key, metrics not computed; {EXPORT_HINT}")
    return _retrieval(per_chunk, "retrieval", {"chunks_scored": len(per_chunk), "chunks_incomplete": incomplete})


# The answer fields of a localization record (per-pair route) or instance (factored route), with their dtypes.
LOCALIZATION_COLUMNS = {
    "group": object,
    "group_size": np.int64,
    "box_type": object,
    "inst_id": object,
    "bbox_idx": np.int64,
    "correct": bool,
    "iou": np.float64,
    "key_order": np.int64,
}


def _complete_columns(records: Records, names: Mapping[str, type]) -> tuple[dict[str, np.ndarray], int]:
    """As :func:`_groups`, on columns: ``names`` (with their dtypes) of the labelled records of complete groups, in
    record order, with ``score`` (:func:`submitted_scores`) and ``unit`` (the group's number in first-seen order);
    and the number of incomplete groups."""
    has_key = column(records, "has_key", bool)
    if records and not has_key.any():
        logger.info(f"Sherlock {records[0]['split']} split: no answer key, metrics not computed; {EXPORT_HINT}")
    scores = submitted_scores(records)
    if not has_key.all():
        records, scores = list(itertools.compress(records, has_key)), scores[has_key]
    columns = {name: column(records, name, dtype) for name, dtype in names.items()}
    units, groups = pd.factorize(columns["group"], sort=False)
    first = np.unique(units, return_index=True)[1]
    complete = np.bincount(units, minlength=len(groups)) == columns["group_size"][first]
    columns |= {"score": scores, "unit": units}
    if not complete.all():
        keep = complete[units]
        columns = {name: values[keep] for name, values in columns.items()}
    return columns, int((~complete).sum())


def _segments(keys: np.ndarray) -> np.ndarray:
    """Start of each run of equal values in sorted ``keys``."""
    return np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])


def _inference_keys(columns: dict[str, np.ndarray]) -> np.ndarray:
    """A number per (image, inference) in first-seen order."""
    inferences, _ = pd.factorize(columns["inst_id"], sort=False)
    return pd.factorize(columns["unit"].astype(np.int64) * (inferences.max() + 1) + inferences, sort=False)[0]


def _gt_images(columns: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """Per complete gt image: the assignment accuracy and its chance level 1 / boxes."""
    if not len(columns["unit"]):
        return {}
    inference = _inference_keys(columns)
    correct = columns["correct"].astype(bool)
    box_of = np.full(inference.max() + 1, -1, dtype=np.int64)
    box_of[inference[correct]] = columns["bbox_idx"][correct]  # the last correct box of an inference, as a dict
    cells = box_of[inference]
    if (cells < 0).any():
        raise KeyError("a gt inference without its correct box")
    unit_of_inference = np.zeros(len(box_of), dtype=np.int64)
    unit_of_inference[inference] = columns["unit"]
    boxes = np.bincount(unit_of_inference[np.unique(inference[correct])], minlength=columns["unit"].max() + 1)
    order = np.argsort(columns["unit"], kind="stable")
    units, rows, cells = columns["unit"][order], columns["bbox_idx"][order], cells[order]
    scores, groups = columns["score"][order], columns["group"][order]
    images = {}
    starts = _segments(units)
    for start, end in zip(starts, [*starts[1:], len(units)], strict=True):
        n = boxes[units[start]]
        sim = np.zeros((n, n))
        sim[rows[start:end], cells[start:end]] = scores[start:end]
        images[str(groups[start])] = (localization_gt_accuracy(sim), 1 / n)
    return images


def _auto_images(columns: dict[str, np.ndarray]) -> dict[str, tuple[float, float, float]]:
    """Per complete auto-box image: accuracy, oracle and chance, each a mean over its inferences (first-seen order)
    of whether the best proposal (first in answer-key order on ties) has IoU > 0.5."""
    if not len(columns["unit"]):
        return {}
    inference = _inference_keys(columns)
    scores, ious = columns["score"], columns["iou"].astype(np.float64)
    # inferences of an image together, in first-seen order; proposals in answer-key order (key_order is unique)
    order = np.lexsort((columns["key_order"], columns["unit"] * (inference.max() + 1) + inference))
    inference, scores, ious, groups = inference[order], scores[order], ious[order], columns["group"]
    groups = groups[order]
    starts = _segments(inference)
    segment = np.cumsum(np.r_[False, inference[1:] != inference[:-1]])
    best_score = np.maximum.reduceat(scores, starts)
    best = np.minimum.reduceat(np.where(scores == best_score[segment], np.arange(len(scores)), len(scores)), starts)
    correct = ious[best] > IOU_THRESHOLD
    oracle = np.maximum.reduceat(ious, starts) > IOU_THRESHOLD
    chance = np.add.reduceat((ious > IOU_THRESHOLD).astype(np.float64), starts) / np.diff(np.r_[starts, len(ious)])
    image_starts = _segments(columns["unit"][order][starts])
    inferences = np.diff(np.r_[image_starts, len(starts)])
    means = [
        np.add.reduceat(np.asarray(shares, dtype=np.float64), image_starts) / inferences
        for shares in (correct, oracle, chance)
    ]
    names = groups[starts[image_starts]]
    return {str(name): tuple(values) for name, *values in zip(names, *(m.tolist() for m in means), strict=True)}


def localization_outcome(records: Records) -> Outcome:
    """§4.2, each a mean over images (the bootstrap unit), percent. GT boxes: the share of inferences the
    one-to-one assignment gives their own box (chance 1 / boxes: a random assignment fixes one box on
    average). Auto boxes: the share of inferences whose best proposal has IoU > 0.5 (chance: the share of
    such proposals); the oracle takes the IoU as score. Computed on columns (millions of records at full size)."""
    return localization_columns_outcome(*_complete_columns(records, LOCALIZATION_COLUMNS))


def localization_columns_outcome(columns: dict[str, np.ndarray], incomplete: int) -> Outcome:
    """:func:`localization_outcome` on the columns of the labelled instances of complete images (as
    :func:`_complete_columns` gives them, in the per-pair route's document order) and the number of incomplete
    ones; the factored route (:mod:`abductive_tasks.sherlock.localization`) builds them from its score matrices."""
    columns["inst_id"] = pd.factorize(columns["inst_id"], sort=False)[0]  # numbered once for both box types
    is_gt = columns["box_type"] == "gt"
    gt_images = _gt_images({name: values[is_gt] for name, values in columns.items()})
    auto = _auto_images({name: values[~is_gt] for name, values in columns.items()})
    first_seen = columns["group"][np.unique(columns["unit"], return_index=True)[1]]  # images in first-seen order
    gt = {group: gt_images[group][0] for group in first_seen if group in gt_images}
    gt_chance = [gt_images[group][1] for group in gt]
    auto = {group: auto[group] for group in first_seen if group in auto}
    auto_ids = list(auto)
    chance = {"localization_gt_acc": 100 * float(np.mean(gt_chance))} if gt else {}
    if auto:
        chance["localization_auto_acc"] = 100 * float(np.mean([auto[image][2] for image in auto_ids]))
    return Outcome(
        estimates={
            "localization_gt_acc": Estimate.mean(list(gt), list(gt.values()), scale=100),
            "localization_auto_acc": Estimate.mean(auto_ids, [auto[image][0] for image in auto_ids], scale=100),
            "localization_auto_oracle_acc": Estimate.mean(auto_ids, [auto[image][1] for image in auto_ids], scale=100),
        },
        counts={"gt_images": len(gt), "auto_images": len(auto), "images_incomplete": incomplete},
        chance=chance,
    )


def comparison_outcome(records: Records) -> Outcome:
    """§4.3: pairwise accuracy with the official tie-break, each annotator in turn as the label; mean over
    inputs (the bootstrap unit) x 100. Chance 0: random scores order a differing pair right half the time."""
    groups, incomplete = _groups(records)
    inputs, per_input = [], []
    for group, members in groups.items():
        ordered = sorted(members, key=lambda member: member[0]["position"])
        annot1 = np.array([r["annot1"] for r, _ in ordered])
        annot2 = np.array([r["annot2"] for r, _ in ordered])
        inputs.append(group)
        per_input.append(comparison_input_scores(np.array([score for _, score in ordered]), annot1, annot2))
    return Outcome(
        estimates={
            f"comparison_{name}acc": Estimate.mean(inputs, [scores[role] for scores in per_input], scale=100)
            for name, role in (("", "model"), ("human_", "human"), ("oracle_", "oracle"))
        },
        counts={"inputs_scored": len(inputs), "inputs_incomplete": incomplete},
        chance={"comparison_acc": 0.0} if inputs else {},
    )
