"""Defeasible Visual Entailment (Zhang et al., AAAI 2025): loader, documents, prompts, hooks and aggregations.

Official data: ``skywalkerzhang/Defeasible_Visual_Entailment`` on GitHub, ``Data/DVE_{train,dev,test}.csv``
(or ``cleaned_<split>.jsonl``), images from Flickr30k. Local layout under ``ABDUCTIVE_DATA``:
``dve/DVE_<split>.csv`` and ``dve/flickr30k-images/<file>``; ``ABDUCTIVE_DVE_SPLIT`` picks the
split (default ``test``). Rows marked ``UpdateTypeImpossible=True`` carry no update; both tasks
leave them out and report how many they left out.

* ``dve_cls`` (Classification Task, Eq. 1): one document per update; the model says whether it
  strengthens or weakens the hypothesis (prompt: Figure 5).
* ``dve_gen`` (Generation Task, Eq. 2): one document per premise-hypothesis pair and goal; the
  model writes an update (prompt: Figure 6), scored against the human updates of that goal for
  that pair (Table 3) and by the inference-aware evaluator (``abductive_tasks.dve.evaluator``).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import datasets
import numpy as np
from loguru import logger

from abductive_tasks.aggregation import ItemAggregations
from abductive_tasks.data import DataError, benchmark_root, read_csv, resolve_columns, resolve_inside
from abductive_tasks.dve import metrics
from abductive_tasks.images import check_image, load_image
from abductive_tasks.metrics import ItemOutcomes, mean_or_none
from abductive_tasks.parsing import parse_label

BENCHMARK = "dve"
OFFICIAL_REPO = "https://github.com/skywalkerzhang/Defeasible_Visual_Entailment"
SPLIT_ENV = "ABDUCTIVE_DVE_SPLIT"
SPLITS = ("test", "dev", "train")
IMAGE_DIR = "flickr30k-images"
# The official header, exactly.
HEADER = tuple("DataSource,AssignmentIdAnon,WorkerIdAnon,Premise,Hypothesis,SNLIPairId,Update,UpdateType,UpdateTypeImpossible,UpdateTypeImpossibleReason".split(","))
REQUIRED = {"Premise", "Hypothesis", "SNLIPairId", "Update", "UpdateType", "UpdateTypeImpossible"}
UPDATE_TYPES = ("strengthener", "weakener")  # Task Definition: s and w
LABEL_ALIASES = {"strengthens": "strengthener", "weakens": "weakener"}  # "the update weakens the hypothesis"
BOOLEANS = {"true": True, "false": False}

# Figure 5 (verbatim); the line breaks before the example fields are ours.
PROMPT_CLS = (
    "You are a helpful assistant that helps to determine if an update strengthens or weakens a hypothesis. "
    "The premise is an image that sets the scenario. The hypothesis is an inference based on this scenario, "
    "and the update provides additional information that could impact the hypothesis. Based on the premise "
    "provided and the given update, please judge whether the update strengthens or weakens the hypothesis. "
    "ONLY output strengthener or weakener in your final answer.\n"
    "Consider this image as a premise.\n"
    "Hypothesis: {hypothesis}\n"
    "Update: {update}"
)
# Figure 6 (verbatim), one line per line of Figure 7's initial request.
PROMPT_GEN = (
    "You are a helpful assistant that generates updates to impact hypotheses based on given premises.\n"
    "Consider this image as a premise.\n"
    "Hypothesis: {hypothesis}\n"
    "Goal: {goal}\n"
    "Based on the goal, generate an update that:\n"
    "- Strengthens the hypothesis if the goal is a strengthener.\n"
    "- Weakens the hypothesis if the goal is a weakener.\n"
    "Ensure the update is logically consistent with the image premise.\n"
    "Please provide only the update. Do not include any other information."
)


# ---------------------------------------------------------------- loading


@dataclass(frozen=True)
class DveSplit:
    """The usable rows of one split, and how many impossible rows were left out."""

    source: str
    rows: tuple[dict, ...]
    impossible_excluded: int


def data_root() -> Path:
    """The ``dve`` folder ``ABDUCTIVE_DATA`` selects; the official release is on GitHub, not on the hub."""
    return benchmark_root(
        BENCHMARK,
        hub_repo=None,
        how_to_get=f"Download Data/DVE_test.csv (and DVE_dev.csv, DVE_train.csv) from {OFFICIAL_REPO} and the Flickr30k images "
        f"(request form: https://forms.illinois.edu/sec/229675), laid out as <root>/dve/DVE_test.csv and <root>/dve/{IMAGE_DIR}/<image>.jpg.",
    )


def selected_split() -> DveSplit:
    """The split ``ABDUCTIVE_DVE_SPLIT`` (default ``test``) of the data ``ABDUCTIVE_DATA`` selects."""
    split = os.environ.get(SPLIT_ENV, "").strip() or "test"
    if split not in SPLITS:
        raise DataError(f"{SPLIT_ENV}={split}: expected one of {list(SPLITS)}")
    return load_split(data_root(), split)


def _read_jsonl(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """``cleaned_<split>.jsonl`` rows as strings (null and NaN become empty, booleans ``True``/``False``)."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as error:
                raise DataError(f"{path}, line {line}: not a JSON object ({error.msg})") from error
            if not isinstance(record, dict):
                raise DataError(f"{path}, line {line}: not a JSON object")
            rows.append((line, {key: "" if value is None or value != value else str(value) for key, value in record.items()}))
    return sorted({key for _, row in rows for key in row}), rows


@functools.cache
def load_split(root: Path, split: str) -> DveSplit:
    """Read and validate ``DVE_<split>.csv`` (or ``cleaned_<split>.jsonl``) and its images (once per run)."""
    path = root / f"DVE_{split}.csv"
    if not path.is_file() and (root / f"cleaned_{split}.jsonl").is_file():
        path = root / f"cleaned_{split}.jsonl"
        header, raw_rows = _read_jsonl(path)
    else:
        header, raw_rows = read_csv(path)
    columns = resolve_columns(header, {name: (name,) for name in HEADER}, REQUIRED, path)
    images_root = root / IMAGE_DIR
    checked: dict[str, str] = {}
    rows, impossible = [], 0
    for line, raw in raw_rows:
        field = {name: (raw.get(column) or "").strip() for name, column in columns.items()}

        def fail(name: str, problem: str, line: int = line) -> DataError:
            return DataError(f"{path}, line {line}, field '{name}': {problem}")

        flag = BOOLEANS.get(field["UpdateTypeImpossible"].lower())
        if flag is None:
            raise fail("UpdateTypeImpossible", f"expected True or False, found '{field['UpdateTypeImpossible']}'")
        update_type = field["UpdateType"].lower()
        if update_type not in UPDATE_TYPES:
            raise fail("UpdateType", f"unknown update type '{field['UpdateType']}', expected one of {list(UPDATE_TYPES)}")
        if flag:
            impossible += 1
            continue
        for name in ("Premise", "Hypothesis", "Update"):
            if not field[name]:
                raise fail(name, "empty" + (" (the row is not marked UpdateTypeImpossible)" if name == "Update" else ""))
        image_file, hash_sign, _caption = field["SNLIPairId"].partition("#")
        if not hash_sign or not image_file:
            raise fail("SNLIPairId", f"expected '<image file>#<caption index><label>', found '{field['SNLIPairId']}'")
        if image_file not in checked:
            where = f"{path}, line {line}, field 'SNLIPairId'"
            checked[image_file] = check_image(resolve_inside(images_root, image_file, where), where)
        rows.append(
            {
                "line": line,
                "pair_key": (field["SNLIPairId"], field["Premise"], field["Hypothesis"]),
                "image_path": checked[image_file],
                "premise": field["Premise"],
                "hypothesis": field["Hypothesis"],
                "update": field["Update"],
                "update_type": update_type,
            }
        )
    if not rows:
        raise DataError(f"{path}: no usable rows ({impossible} marked UpdateTypeImpossible)")
    return DveSplit(str(path), tuple(_with_pair_ids(rows)), impossible)


def _with_pair_ids(rows: list[dict]) -> list[dict]:
    """Name each premise-hypothesis pair by its SNLIPairId (``/2``, ``/3`` ... if the id recurs with other texts)."""
    names: dict[tuple, str] = {}
    per_id: dict[str, int] = {}
    for row in rows:
        key = row.pop("pair_key")
        if key not in names:
            per_id[key[0]] = per_id.get(key[0], 0) + 1
            names[key] = key[0] if per_id[key[0]] == 1 else f"{key[0]}/{per_id[key[0]]}"
        row["pair_id"] = names[key]
    return rows


# ---------------------------------------------------------------- documents (process_docs)
# lmms-eval hands process_docs a one-row placeholder; the documents come from ``selected_split()``.


def cls_docs_from(split: DveSplit) -> datasets.Dataset:
    """One document per usable update (Classification Task)."""
    return datasets.Dataset.from_list(
        [
            {
                "item_id": f"line {row['line']}",
                "pair_id": row["pair_id"],
                "image_path": row["image_path"],
                "hypothesis": row["hypothesis"],
                "update": row["update"],
                "update_type": row["update_type"],
                "impossible_excluded": split.impossible_excluded,
                # Baselines: one option per label; the same image twice, so dumb_pixel ties and answers the first.
                "answer_kind": "choice",
                "choices": list(UPDATE_TYPES),
                "candidate_images": [row["image_path"]] * len(UPDATE_TYPES),
            }
            for row in split.rows
        ]
    )


def gen_docs_from(split: DveSplit) -> datasets.Dataset:
    """One document per premise-hypothesis pair and goal with at least one human update (Generation Task)."""
    pairs: dict[str, list[dict]] = {}
    for row in split.rows:
        pairs.setdefault(row["pair_id"], []).append(row)
    goals = [(pair_id, goal, [row["update"] for row in rows if row["update_type"] == goal]) for pair_id, rows in pairs.items() for goal in UPDATE_TYPES]
    skipped = sum(1 for _, _, references in goals if not references)
    # Retrieval baseline candidates: the first human update of the same goal from every other pair.
    first_update = {(pair_id, goal): references[0] for pair_id, goal, references in goals if references}
    docs = []
    for pair_id, goal, references in goals:
        if not references:
            continue
        row = pairs[pair_id][0]
        candidates = [text for (other, other_goal), text in first_update.items() if other != pair_id and other_goal == goal]
        docs.append(
            {
                "item_id": f"{pair_id}|{goal}",
                "pair_id": pair_id,
                "goal": goal,
                "image_path": row["image_path"],
                "premise": row["premise"],
                "hypothesis": row["hypothesis"],
                "references": references,
                "impossible_excluded": split.impossible_excluded,
                "goals_skipped": skipped,
                "answer_kind": "text",
                "choices": candidates or [row["premise"]],  # a lone pair falls back to its caption
                "candidate_images": [row["image_path"]],
            }
        )
    return datasets.Dataset.from_list(docs)


def cls_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of dve_cls."""
    return cls_docs_from(selected_split())


def gen_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of dve_gen."""
    return gen_docs_from(selected_split())


# ---------------------------------------------------------------- prompts and visuals


def doc_to_visual(doc: dict) -> list:
    """The image premise."""
    return [load_image(doc["image_path"])]


def doc_to_text_cls(doc: dict) -> str:
    return PROMPT_CLS.format(hypothesis=doc["hypothesis"], update=doc["update"])


def doc_to_text_gen(doc: dict) -> str:
    return PROMPT_GEN.format(hypothesis=doc["hypothesis"], goal=doc["goal"])


# ---------------------------------------------------------------- dve_cls results and aggregations

CLS_METRICS = ("dve_accuracy", "dve_by_update_type", "parse_failure_rate", "unparsable_count", "dve_cls_scored", "dve_cls_impossible_excluded")


def process_results_cls(doc: dict, results: Sequence[str]) -> dict:
    prediction = parse_label(results[0], UPDATE_TYPES, LABEL_ALIASES)
    record = {
        "item_id": doc["item_id"],
        "update_type": doc["update_type"],
        "prediction": prediction,
        "correct": prediction == doc["update_type"],
        "impossible_excluded": doc["impossible_excluded"],
    }
    return {metric: record for metric in CLS_METRICS}


def _cls_outcomes(records: list[dict]) -> ItemOutcomes:
    """Each update is its own item."""
    return ItemOutcomes(np.array([r["item_id"] for r in records], dtype=str), np.array([r["correct"] for r in records], dtype=bool), 0)


CLS = ItemAggregations(_cls_outcomes, answer_key="prediction")
dve_accuracy = CLS.accuracy  # Classification Task: accuracy (Table 4)
dve_by_update_type = CLS.breakdown("update_type")
cls_parse_failure_rate = CLS.parse_failure_rate
cls_unparsable_count = CLS.unparsable_count
dve_cls_scored = CLS.items_scored


def impossible_excluded(records: list[dict]) -> int:
    """Rows of the split marked UpdateTypeImpossible (no update), left out of the task."""
    return int(records[0]["impossible_excluded"]) if records else 0


# ---------------------------------------------------------------- dve_gen results and aggregations

GEN_METRICS = (
    *(f"dve_{family}_{part}" for family in ("rouge_l", "bleu4", "bertscore", "clipscore") for part in ("all", *UPDATE_TYPES)),
    "dve_evaluator_strengthener",
    "dve_evaluator_weakener",
    *(f"dve_success_{part}" for part in ("all", *UPDATE_TYPES)),
    "dve_gen_scored",
    "dve_gen_empty_answers",
    "dve_gen_impossible_excluded",
    "dve_gen_goals_skipped",
    "dve_gen_not_computed",
)


def process_results_gen(doc: dict, results: Sequence[str]) -> dict:
    record = {
        "item_id": doc["item_id"],
        "goal": doc["goal"],
        "prediction": results[0].strip(),
        "references": list(doc["references"]),
        "image_path": doc["image_path"],
        "premise": doc["premise"],
        "hypothesis": doc["hypothesis"],
        "impossible_excluded": doc["impossible_excluded"],
        "goals_skipped": doc["goals_skipped"],
    }
    return {metric: record for metric in GEN_METRICS}


@dataclass(frozen=True)
class GenRecords:
    """The hashable content of the dve_gen records one aggregation receives."""

    goals: tuple[str, ...]
    predictions: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    image_paths: tuple[str, ...]
    hypotheses: tuple[str, ...]
    premises: tuple[str, ...]

    @classmethod
    def of(cls, records: list[dict]) -> GenRecords:
        columns = ("goal", "prediction", "references", "image_path", "hypothesis", "premise")
        values = [tuple(tuple(r[c]) if c == "references" else r[c] for r in records) for c in columns]
        return cls(*values)

    def mask(self, goal: str | None) -> np.ndarray:
        return np.array([goal is None or g == goal for g in self.goals], dtype=bool)


def _evaluator_scores(data: GenRecords) -> np.ndarray:
    """Strength scores (Eq. 6) of each generated update and of the premise caption in its place: shape (2, N)."""
    from abductive_tasks.dve.evaluator import configured_scorer  # torchvision: imported only when scoring

    scorer = configured_scorer()
    images = [load_image(path) for path in data.image_paths]
    scores, _probabilities = scorer.predict(images * 2, list(data.hypotheses) * 2, [*data.predictions, *data.premises])
    return scores.reshape(2, len(data.predictions))


# Per-document values of each model-based or per-document metric family.
_FAMILIES: dict[str, Callable[[GenRecords], np.ndarray]] = {
    "rouge_l": lambda d: metrics.rouge_l(d.predictions, d.references),
    "bertscore": lambda d: metrics.bertscore_f1(d.predictions, d.references),
    "clipscore": lambda d: metrics.clip_scores([load_image(p) for p in d.image_paths], d.predictions),
    "evaluator": _evaluator_scores,
}


@functools.lru_cache(maxsize=32)
def _family_values(family: str, data: GenRecords) -> tuple[np.ndarray | None, str | None]:
    """``(values, None)``, or ``(None, reason)`` when the family's model is unavailable (warned once per run)."""
    try:
        return _FAMILIES[family](data), None
    except metrics.MetricUnavailable as error:  # includes EvaluatorUnavailable
        logger.warning(f"dve_gen: {family} not computed: {error}")
        return None, str(error)


def _mean_of(family: str, goal: str | None, pick: Callable[[np.ndarray, GenRecords], np.ndarray] | None = None) -> Callable[[list[dict]], float | None]:
    def aggregate(records: list[dict]) -> float | None:
        data = GenRecords.of(records)
        values, _reason = _family_values(family, data)
        if values is None:
            return None
        values = pick(values, data) if pick else values
        return mean_or_none(values[data.mask(goal)])

    aggregate.__name__ = f"{family}_{goal or 'all'}"
    return aggregate


def _bleu_of(goal: str | None) -> Callable[[list[dict]], float | None]:
    def aggregate(records: list[dict]) -> float | None:
        data = GenRecords.of(records)
        chosen = np.flatnonzero(data.mask(goal))
        return metrics.bleu4([data.predictions[i] for i in chosen], [data.references[i] for i in chosen])

    aggregate.__name__ = f"bleu4_{goal or 'all'}"
    return aggregate


def _update_score(values: np.ndarray, data: GenRecords) -> np.ndarray:
    return values[0]


def _success(values: np.ndarray, data: GenRecords) -> np.ndarray:
    """Above the caption's score for a strengthener, below it for a weakener; ties fail."""
    update, caption = values
    strengthen = np.array([goal == "strengthener" for goal in data.goals], dtype=bool)
    return np.where(strengthen, update > caption, update < caption)


# Table 3, per goal and over both goals. BLEU-4 is corpus-level over the documents counted.
dve_rouge_l_all, dve_rouge_l_strengthener, dve_rouge_l_weakener = (_mean_of("rouge_l", goal) for goal in (None, *UPDATE_TYPES))
dve_bleu4_all, dve_bleu4_strengthener, dve_bleu4_weakener = (_bleu_of(goal) for goal in (None, *UPDATE_TYPES))
dve_bertscore_all, dve_bertscore_strengthener, dve_bertscore_weakener = (_mean_of("bertscore", goal) for goal in (None, *UPDATE_TYPES))
dve_clipscore_all, dve_clipscore_strengthener, dve_clipscore_weakener = (_mean_of("clipscore", goal) for goal in (None, *UPDATE_TYPES))
# Table 3 "Ours": mean strength score, per goal only (higher is better for strengtheners, lower for weakeners).
dve_evaluator_strengthener, dve_evaluator_weakener = (_mean_of("evaluator", goal, _update_score) for goal in UPDATE_TYPES)
# The authors' per-update check against the premise caption, as a rate (direction-aware, higher is better).
dve_success_all, dve_success_strengthener, dve_success_weakener = (_mean_of("evaluator", goal, _success) for goal in (None, *UPDATE_TYPES))


def dve_gen_scored(records: list[dict]) -> int:
    """Documents (pair, goal) scored."""
    return len(records)


def dve_gen_empty_answers(records: list[dict]) -> int:
    """Documents whose generated update is empty (scored as they are)."""
    return sum(1 for r in records if not r["prediction"])


def dve_gen_goals_skipped(records: list[dict]) -> int:
    """(pair, goal) combinations with no usable human update (all impossible): no document."""
    return int(records[0]["goals_skipped"]) if records else 0


def dve_gen_not_computed(records: list[dict]) -> str:
    """The metric families reported as not computed (their metrics are ``None``; the log says why), or ``none``."""
    data = GenRecords.of(records)
    missing = [family for family in _FAMILIES if _family_values(family, data)[1]]
    return ", ".join(missing) if missing else "none"
