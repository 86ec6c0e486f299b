"""MuCR lmms-eval hooks: documents, visuals, prompts, and the task specs process_results and the
aggregations derive from (:mod:`abductive_tasks.scoring.taskspec`).

Each pair becomes one document per task: C2E and E2C (image level), Cue (phrase level), Exp
(sentence level); see the paper's "Evaluation Metrics". lmms-eval hands ``process_docs`` a one-row
placeholder dataset (see ``yaml_tasks/mucr/_default_template_yaml``); the documents are built from
the pairs ``ABDUCTIVE_DATA`` selects instead (``*_docs_from`` build them from given loaded pairs). Every document
and record carries the loader's figures (``data.load_counts``: ``no_link_id``) into ``<level>_counts``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loguru import logger

from abductive_tasks.inputs.images import compose_labelled, load_image
from abductive_tasks.inputs.loading import documents
from abductive_tasks.inputs.stages import (
    Slot,
    StageError,
    StageOutput,
    content_digest,
    counting_every_item,
    outside_limit,
    this_run,
    validated,
    without_upstream,
)
from abductive_tasks.mucr import prompts
from abductive_tasks.mucr.data import LOAD_COUNTS, N_CANDIDATES, load_counts, load_selected
from abductive_tasks.mucr.metrics import (
    OFFLINE_METRICS,
    PICK_COUNTS,
    choice_outcome,
    exp_outcome,
    exp_own_outcome,
    split_explanation,
)
from abductive_tasks.mucr.picks import PICKS_VARIABLE, own_picks
from abductive_tasks.scoring import judge
from abductive_tasks.scoring.reading import Choice, parse_judge_score
from abductive_tasks.scoring.taskspec import REQUEST_FAILED, UPSTREAM_MISSING, Metric, Reading, TaskSpec
from abductive_tasks.scoring.taskspec import counting_every_item as every_item

if TYPE_CHECKING:
    import datasets

    from abductive_tasks.inputs.loading import Loaded

# ---------------------------------------------------------------- documents (process_docs)


def _shuffled(values: Sequence, seed: str) -> list:
    shown = list(values)
    random.Random(seed).shuffle(shown)
    return shown


QUERY_PANEL = {"c2e": "Cause image", "e2c": "Effect image"}
OPTION_PANELS = [f"Option {number}" for number in range(1, N_CANDIDATES + 1)]
PAIR_PANELS = ["Cause image", "Effect image"]


def composite_panels(task: str, images: int) -> list[str]:
    """The captions :func:`doc_to_visual_composite` draws over the ``images`` panels of a document of ``task`` (the
    document's ``panel_labels``): what a report needs to draw a logged document's composite again."""
    if images == 1 + N_CANDIDATES:
        return [QUERY_PANEL["e2c" if "e2c" in task.split("_") else "c2e"], *OPTION_PANELS]
    return list(PAIR_PANELS)


def _image_choice_doc(item: dict, by_id: dict[str, dict], direction: str, counts: dict[str, int]) -> dict:
    """C2E: the cause image and four candidate effect images; E2C the reverse (Eq. 1-2)."""
    query, answer = ("cause_image", "effect_image") if direction == "c2e" else ("effect_image", "cause_image")
    order = _shuffled([item["item_id"], *item["distractors"]], f"mucr:{direction}:{item['item_id']}")
    candidates = [by_id[pair_id][answer] for pair_id in order]
    return {
        "item_id": item["item_id"],
        "label": item["label"],
        "style": item["style"],
        "candidate_rule": item["candidate_rule"],
        "candidate_ids": order,
        "gold_position": order.index(item["item_id"]) + 1,
        "image_paths": [item[query], *candidates],
        "panel_labels": [QUERY_PANEL[direction], *OPTION_PANELS],
        # What the baseline models need to answer (abductive_tasks.models.baselines).
        "answer_kind": "choice",
        "choices": [str(number) for number in range(1, N_CANDIDATES + 1)],
        "candidate_images": candidates,
        **counts,
    }


def _cue_doc(item: dict, counts: dict[str, int]) -> dict:
    """Cue: cause and effect images and the four cue phrases, shuffled per pair (Eq. 3-4)."""
    options = _shuffled([item["cue"], *item["false_cues"]], f"mucr:cue:{item['item_id']}")
    return {
        "item_id": item["item_id"],
        "label": item["label"],
        "style": item["style"],
        "options": options,
        "gold_position": options.index(item["cue"]) + 1,
        "image_paths": [item["cause_image"], item["effect_image"]],
        "panel_labels": PAIR_PANELS,
        # Baselines answer with one of the phrases (text), read like a model quoting an option.
        "answer_kind": "text",
        "choices": options,
        "candidate_images": [item["cause_image"], item["effect_image"]],
        **counts,
    }


def _exp_doc(item: dict, by_id: dict[str, dict], counts: dict[str, int]) -> dict:
    """Exp: cause and effect images and the correct cue phrase (Eq. 5); the annotations are the references."""
    return {
        "item_id": item["item_id"],
        "label": item["label"],
        "style": item["style"],
        "cue": item["cue"],
        "references": item["references"],
        "reference_text": item["references"][0],
        "image_paths": [item["cause_image"], item["effect_image"]],
        "panel_labels": PAIR_PANELS,
        # Baselines retrieve another pair's annotation: the first one of each distractor pair.
        "answer_kind": "text",
        "choices": [by_id[pair_id]["references"][0] for pair_id in item["distractors"]],
        "candidate_images": [item["cause_image"], item["effect_image"]],
        **counts,
    }


def c2e_docs_from(loaded: Loaded) -> datasets.Dataset:
    by_id, counts = {item["item_id"]: item for item in loaded.items}, load_counts(loaded)
    return documents([_image_choice_doc(item, by_id, "c2e", counts) for item in by_id.values()])


def e2c_docs_from(loaded: Loaded) -> datasets.Dataset:
    by_id, counts = {item["item_id"]: item for item in loaded.items}, load_counts(loaded)
    return documents([_image_choice_doc(item, by_id, "e2c", counts) for item in by_id.values()])


def cue_docs_from(loaded: Loaded) -> datasets.Dataset:
    counts = load_counts(loaded)
    return documents([_cue_doc(item, counts) for item in loaded.items])


def exp_docs_from(loaded: Loaded) -> datasets.Dataset:
    by_id, counts = {item["item_id"]: item for item in loaded.items}, load_counts(loaded)
    return documents([_exp_doc(item, by_id, counts) for item in by_id.values()])


def c2e_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_c2e and mucr_c2e_split."""
    return c2e_docs_from(load_selected())


def e2c_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_e2c and mucr_e2c_split."""
    return e2c_docs_from(load_selected())


def cue_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_cue and mucr_cue_split."""
    return cue_docs_from(load_selected())


def exp_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_exp_gold and mucr_exp_gold_split (the gold effect image and cue: an upper bound)."""
    return exp_docs_from(load_selected())


# ---------------------------------------------------------------- Exp on the model's own picks (Eq. 5)


def choice_digest(doc: dict) -> str:
    """What a C2E/E2C/Cue document shows, by content: its images by their bytes, its options as shown and where the
    gold answer is (not the prompt, which a strategy changes): a pick is read back only for the document it answered."""
    return content_digest([str(doc["gold_position"]), *doc.get("options", ())], doc["image_paths"])


def _pick(picks: StageOutput, item_id: str, level: str, counts: dict[str, int]) -> int | None:
    """The option ``picks`` holds for the item; None (counted) when it is missing, failed or unreadable."""
    entry = picks.items.get(item_id)
    if entry is None:
        counts[f"{level}_picks_missing"] += 1
        return None
    if entry.value is None:
        counts[f"{level}_picks_{'failed' if entry.status == REQUEST_FAILED else 'unreadable'}"] += 1
        return None
    if isinstance(entry.value, bool) or not isinstance(entry.value, int) or not 1 <= entry.value <= N_CANDIDATES:
        raise StageError(f"{picks.origin}: item {item_id!r} picked option {entry.value!r}, expected 1-{N_CANDIDATES}")
    return entry.value


def _exp_stand_in(item: dict, by_id: dict[str, dict], counts: dict[str, int]) -> dict:
    """What an item without a readable pick counts as: the Exp record of an unanswered question (0 on every part)."""
    return {**_exp_doc(item, by_id, counts), "gold_cue": item["cue"], "effect_pick": "", "effect_pick_correct": None,
            "cue_pick_correct": None}  # fmt: skip


def exp_own_docs_from(loaded: Loaded, c2e: StageOutput, cue: StageOutput, task: str = "mucr_exp") -> datasets.Dataset:
    """Exp documents on the model's own picks (Eq. 5): the cause image, the effect image the model picked in C2E
    and the cue phrase it picked in Cue (same data, same form); the references stay the true pair's annotations
    (Eq. 6-8). The picks must answer the documents built from the data loaded now (item ids, contents). An item
    whose effect or cue pick is missing, failed or unreadable is never asked (never with the gold answer): it counts
    as an unanswered question, 0 on every part, over all items (``PICK_COUNTS`` say why)."""
    by_id, load = {item["item_id"]: item for item in loaded.items}, load_counts(loaded)
    effect_docs = {item_id: _image_choice_doc(item, by_id, "c2e", load) for item_id, item in by_id.items()}
    cue_docs = {item_id: _cue_doc(item, load) for item_id, item in by_id.items()}
    validated(task, c2e, {item_id: choice_digest(doc) for item_id, doc in effect_docs.items()})
    validated(task, cue, {item_id: choice_digest(doc) for item_id, doc in cue_docs.items()})
    counts, plain = dict.fromkeys(PICK_COUNTS, 0), not this_run()
    slots = []
    for item_id, item in by_id.items():
        if outside_limit(c2e, item_id) or outside_limit(cue, item_id):
            # beyond the --limit of the picks' run: not one of this (equally limited) run's items under abductive-eval,
            # which refuses any other --limit; plain lmms-eval says none, so they are counted as left out
            counts["items_without_picks"] += plain
            continue
        effect_pick, cue_pick = _pick(c2e, item_id, "c2e", counts), _pick(cue, item_id, "cue", counts)
        stand_in = _exp_stand_in(item, by_id, load)
        if effect_pick is None or cue_pick is None:
            slots.append(Slot(item_id, [], [stand_in]))
            continue
        picked_pair = effect_docs[item_id]["candidate_ids"][effect_pick - 1]
        shown = [item["cause_image"], by_id[picked_pair]["effect_image"]]
        doc = {
            **_exp_doc(item, by_id, load),
            "cue": cue_docs[item_id]["options"][cue_pick - 1],
            "gold_cue": item["cue"],
            "effect_pick": picked_pair,
            "effect_pick_correct": picked_pair == item_id,
            "cue_pick_correct": cue_pick == cue_docs[item_id]["gold_position"],
            "image_paths": shown,
            "candidate_images": shown,
        }
        slots.append(Slot(item_id, [doc], [stand_in]))
    if left_out := counts["items_without_picks"]:
        limits = sorted({str(output.binding.get("limit")) for output in (c2e, cue) if output.binding.get("limit")})
        logger.warning(
            f"{task}: {left_out} of {len(by_id)} items lie beyond the --limit {' and '.join(limits)} of the run whose "
            "picks are read: left out, not scored (items_without_picks: the run is partial, as one with that --limit "
            "is); give the picks of a run without --limit to score every item"
        )
    for slot in slots:
        slot.docs = [doc | counts for doc in slot.docs]
        slot.stand_ins = [doc | counts for doc in slot.stand_ins]
    return counting_every_item(slots, task, f"picks of {c2e.task} from {c2e.origin}, of {cue.task} from {cue.origin}")


def exp_without_picks(loaded: Loaded, task: str) -> datasets.Dataset:
    """``task`` given no picks (plain lmms-eval without ``ABDUCTIVE_MUCR_PICKS``): not computed, never the gold bound
    under Exp's name (:func:`~abductive_tasks.inputs.stages.without_upstream`)."""
    by_id = {item["item_id"]: item for item in loaded.items}
    stand_in = _exp_stand_in(loaded.items[0], by_id, load_counts(loaded)) | dict.fromkeys(PICK_COUNTS, 0)
    how = (
        f"abductive-eval runs the same model's C2E and Cue first ({task} explains the model's own picks, Eq. 5), or "
        f"set {PICKS_VARIABLE}=<folder of their samples>; mucr_exp_gold is the gold-conditioned upper bound"
    )
    return without_upstream(task, stand_in, how)


def exp_own_docs_of(task: str) -> datasets.Dataset:
    """The documents of the Exp task ``task`` (any form or strategy): the picks of the C2E and Cue tasks it reads
    (:func:`picks.pick_tasks`), from the run's stage inputs or ``ABDUCTIVE_MUCR_PICKS``."""
    loaded = load_selected()
    picks = own_picks(task)
    return exp_without_picks(loaded, task) if picks is None else exp_own_docs_from(loaded, *picks, task=task)


def exp_own_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_exp: the picks of the same model's mucr_c2e and mucr_cue (Form-1)."""
    return exp_own_docs_of("mucr_exp")


def exp_own_docs_split(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_exp_split: the picks of the same model's mucr_c2e_split and mucr_cue_split (Form-3)."""
    return exp_own_docs_of("mucr_exp_split")


# ---------------------------------------------------------------- visuals and prompts


def doc_to_visual_composite(doc: dict) -> list:
    """Form-1: one composite image, panels left to right in prompt order, each labelled."""
    return [compose_labelled(tuple(doc["image_paths"]), tuple(doc["panel_labels"]))]


def doc_to_visual_split(doc: dict) -> list:
    """Form-3: the images separately, in prompt order."""
    return [load_image(path) for path in doc["image_paths"]]


def doc_to_text_c2e_composite(doc: dict) -> str:
    return prompts.PROMPTS[("c2e", "composite")]


def doc_to_text_c2e_split(doc: dict) -> str:
    return prompts.PROMPTS[("c2e", "split")]


def doc_to_text_e2c_composite(doc: dict) -> str:
    return prompts.PROMPTS[("e2c", "composite")]


def doc_to_text_e2c_split(doc: dict) -> str:
    return prompts.PROMPTS[("e2c", "split")]


def doc_to_text_cue_composite(doc: dict) -> str:
    return prompts.cue_prompt(doc["options"], "composite")


def doc_to_text_cue_split(doc: dict) -> str:
    return prompts.cue_prompt(doc["options"], "split")


def doc_to_text_exp_composite(doc: dict) -> str:
    return prompts.exp_prompt(doc["cue"], "composite")


def doc_to_text_exp_split(doc: dict) -> str:
    return prompts.exp_prompt(doc["cue"], "split")


# ---------------------------------------------------------------- answers


# A reply counting images counts the cause/effect image first, so "the third image" is option 2
# (tests/shared/answer_corpus.yaml checks these kinds against realistic answers).
FOUR_OPTIONS = Choice(N_CANDIDATES, context_images=1, image_numbers=False)  # options named "Option k"


def cue_answer(doc: dict) -> Choice:
    """The option number, or else the one phrase the answer quotes."""
    return Choice(N_CANDIDATES, option_texts=tuple(doc["options"]), image_numbers=False)


@dataclass(frozen=True)
class Explanation:
    """What Exp asks for (Eq. 5): an explanation in three parts, read as ``(parts, labelled)``
    (see ``split_explanation``)."""

    def read(self, text: str) -> tuple[tuple[str, str, str], bool]:
        return split_explanation(text)

    def describe(self) -> str:
        return "an explanation of the cause image, the effect image and the causal link"


def _judge_parts(parts: Sequence[str], references: Sequence[Sequence[str]]) -> list[tuple[float | None, str]]:
    """The f_sim scores S1-S3 (Eq. 6-8) of one answer, asked at once; an empty model part scores 0 without asking
    (there is nothing to compare)."""
    asked = [k for k, candidate in enumerate(parts) if candidate]
    questions = [
        judge.Question(prompts.judge_prompt(k, parts[k], references[k]), parse_judge_score, prompts.JUDGE_SYSTEM, 32)
        for k in asked
    ]
    verdicts = dict(zip(asked, judge.ask_judge_all(questions), strict=True))
    scores: list[tuple[float | None, str]] = [(0.0, judge.OK)] * len(parts)
    for k, verdict in verdicts.items():
        scores[k] = (float(verdict.value) if verdict.status == judge.OK else None), verdict.status  # type: ignore[arg-type]
    return scores


def _offline_part(candidate: str, references: Sequence[str]) -> float | None:
    """The offline similarity; an empty part scores 0 where the similarity model is there (None where it is not)."""
    if not candidate:
        return 0.0 if judge.similarity_unavailable_reason() is None else None
    return judge.offline_similarity(candidate, references, OFFLINE_METRICS)


# ---------------------------------------------------------------- task specs


def _choice_record(doc: dict, reading: Reading) -> dict:
    return {
        "item_id": doc["item_id"],
        "doc_digest": choice_digest(doc),  # what the pick answered, for the Exp task that explains it (Eq. 5)
        "label": doc["label"],
        "style": doc["style"],
        "candidate_rule": doc.get("candidate_rule", ""),
        "gold_position": doc["gold_position"],
        "prediction": reading.value,
        "correct": reading.value == doc["gold_position"],
        "images": list(doc["image_paths"]),  # every image, in prompt order (the samples' input_media keeps 4)
        **{name: doc[name] for name in LOAD_COUNTS},
    }


def _exp_record(doc: dict, reading: Reading) -> dict:
    """Score the answer's three parts against the matching parts of every annotation (Eq. 6-8).

    With a judge: one 0-10 judge score per part (one annotation in the v2 schema). Without: the
    offline similarity per part. A failed request is no answer: every part scores 0, and no
    judge question is asked; so does an item never asked for want of its upstream output (Eq. 5's picks).
    """
    failed = reading.status in (REQUEST_FAILED, UPSTREAM_MISSING)
    parts, labelled = (("", "", ""), None) if failed else reading.value
    references = [split_explanation(reference)[0] for reference in doc["references"]]
    part_references = [[reference[k] for reference in references] for k in range(len(parts))]
    judged = judge.judge_configured()
    record: dict = {
        "item_id": doc["item_id"],
        "judge_configured": judged,
        "labelled": labelled,
        **{name: doc[name] for name in LOAD_COUNTS},
    }
    scores: list[tuple[float | None, str]]
    if not judged:
        scores = [(None, judge.NOT_CONFIGURED)] * len(parts)
    elif failed:
        scores = [(0.0, reading.status)] * len(parts)
    else:
        scores = _judge_parts(parts, part_references)
    for k, (score, status) in enumerate(scores):
        record[f"s{k + 1}"], record[f"s{k + 1}_status"] = score, status
        record[f"o{k + 1}"] = None if judged else _offline_part(parts[k], part_references[k])
    return record


def _choice_spec(level: str) -> TaskSpec:
    return TaskSpec(
        name=f"mucr_{level}",
        diagnostics_prefix=level,
        metrics=(
            Metric(f"{level}_accuracy"),  # Eq. (2) / (4); Table 1
            Metric(f"{level}_acc_by_label", breakdown=True),  # Figure 9, category
            Metric(f"{level}_acc_by_style", breakdown=True),  # Figure 9, style
        ),
        record=_choice_record,
        compute=choice_outcome(level),
    )


C2E, E2C, CUE = (_choice_spec(level) for level in ("c2e", "e2c", "cue"))
EXP = TaskSpec(  # gold effect image and cue: the upper bound mucr_exp_gold reports
    name="mucr_exp_gold",
    seed_name="mucr_exp",  # its values and intervals are those of the former gold-conditioned mucr_exp
    diagnostics_prefix="exp",
    metrics=(
        Metric("exp_s1", scale="raw"),  # Eq. (6): cause image, 0-10
        Metric("exp_s2", scale="raw"),  # Eq. (7): effect image
        Metric("exp_s3", scale="raw"),  # Eq. (8): causal link
        Metric("exp_score", scale="raw"),  # Eq. (9): 0.25 S1 + 0.25 S2 + 0.5 S3 (Table 1 "Exp")
        Metric("exp_offline_s1", scale="raw"),  # ours: cosine similarity, only without a judge
        Metric("exp_offline_s2", scale="raw"),
        Metric("exp_offline_s3", scale="raw"),
        Metric("exp_offline_score", scale="raw"),
        Metric("exp_unlabelled_rate", higher_is_better=False),  # ours: answers without the three labelled parts
    ),
    record=_exp_record,
    compute=exp_outcome,
    judged=True,
)


def _exp_own_record(doc: dict, reading: Reading) -> dict:
    """The Exp record (scored against the true pair's annotations) with whether each pick was right and the
    pick counts of the documents' build."""
    picks = {name: doc[name] for name in ("effect_pick_correct", "cue_pick_correct", *PICK_COUNTS)}
    return _exp_record(doc, reading) | picks


EXP_OWN = TaskSpec(
    name="mucr_exp",
    diagnostics_prefix="exp",
    metrics=EXP.metrics,
    record=_exp_own_record,
    compute=every_item(exp_own_outcome),
    judged=True,
)
SPECS = (C2E, E2C, CUE, EXP, EXP_OWN)

process_results_c2e = C2E.results_reader(lambda doc: FOUR_OPTIONS, doc_to_text_c2e_composite)
process_results_c2e_split = C2E.results_reader(lambda doc: FOUR_OPTIONS, doc_to_text_c2e_split)
process_results_e2c = E2C.results_reader(lambda doc: FOUR_OPTIONS, doc_to_text_e2c_composite)
process_results_e2c_split = E2C.results_reader(lambda doc: FOUR_OPTIONS, doc_to_text_e2c_split)
process_results_cue = CUE.results_reader(cue_answer, doc_to_text_cue_composite)
process_results_cue_split = CUE.results_reader(cue_answer, doc_to_text_cue_split)
process_results_exp = EXP.results_reader(lambda doc: Explanation())  # the text is the answer: nothing to extract
process_results_exp_own = EXP_OWN.results_reader(lambda doc: Explanation())
aggregate_c2e = C2E.aggregate
aggregate_e2c = E2C.aggregate
aggregate_cue = CUE.aggregate
aggregate_exp = EXP.aggregate
aggregate_exp_own = EXP_OWN.aggregate
