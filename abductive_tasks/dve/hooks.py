"""DVE lmms-eval hooks: documents, visual, prompts, and the task specs process_results and the
aggregations derive from (:mod:`abductive_tasks.scoring.taskspec`).

* ``dve_cls`` (Classification Task, Eq. 1): one document per usable update; the model says
  whether it strengthens or weakens the hypothesis (prompt: Figure 5).
* ``dve_gen`` (Generation Task, Eq. 2): one document per premise-hypothesis pair and goal; the
  model writes an update (prompt: Figure 6), scored against the human updates of that goal for
  that pair (Table 3) and by the inference-aware evaluator.
* ``dve_human``: one document per human update of the test split, scored by the evaluator as the
  paper scores "human performance" (5.0998 / -4.5412); the model's reply is not read.

``dve_cls`` / ``dve_gen`` read the test split, ``dve_cls_dev`` / ``dve_gen_dev`` the dev split.
lmms-eval hands ``process_docs`` a one-row placeholder dataset (see
``yaml_tasks/dve/_default_template_yaml``); the documents are built from the split
``ABDUCTIVE_DATA`` selects instead (``*_from`` build them from given items).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from abductive_tasks.dve import prompts
from abductive_tasks.dve.data import LOAD_COUNTS, UPDATE_TYPES, load_counts, load_selected
from abductive_tasks.dve.metrics import cls_outcome, gen_outcome, human_outcome
from abductive_tasks.inputs.images import load_image
from abductive_tasks.inputs.loading import Loaded, documents
from abductive_tasks.scoring.reading import Label
from abductive_tasks.scoring.taskspec import Metric, Reading, TaskSpec

if TYPE_CHECKING:
    import datasets

# "the update weakens the hypothesis" (tests/shared/answer_corpus.yaml checks this kind against realistic answers)
LABEL = Label(
    UPDATE_TYPES,
    aliases={
        verb: label
        for label, stems in (("strengthener", ("strengthen", "support")), ("weakener", ("weaken", "undermine")))
        for stem in stems
        for verb in (stem, f"{stem}s", f"{stem.removesuffix('e')}ed")
    },
)


@dataclass(frozen=True)
class Update:
    """What ``dve_gen`` asks for: an update sentence, read as written (surrounding whitespace stripped)."""

    def read(self, text: str) -> str | None:
        return text.strip() or None

    def describe(self) -> str:
        return "an update sentence"


# ---------------------------------------------------------------- documents (process_docs)


def cls_docs_from(loaded: Loaded) -> datasets.Dataset:
    """One document per usable update (Classification Task)."""
    return documents(
        [
            {
                "item_id": f"line {row['line']}",
                "pair_id": row["pair_id"],
                "image_path": row["image_path"],
                "hypothesis": row["hypothesis"],
                "update": row["update"],
                "update_type": row["update_type"],
                **load_counts(loaded),
                # Baselines: one option per label; the same image twice, so dumb_pixel ties and answers the first.
                "answer_kind": "choice",
                "choices": list(UPDATE_TYPES),
                "candidate_images": [row["image_path"]] * len(UPDATE_TYPES),
            }
            for row in loaded.items
        ]
    )


def gen_docs_from(loaded: Loaded) -> datasets.Dataset:
    """One document per premise-hypothesis pair and goal with at least one human update (Generation Task)."""
    pairs: dict[str, list[dict]] = {}
    for row in loaded.items:
        pairs.setdefault(row["pair_id"], []).append(row)
    goals = [
        (pair_id, goal, [row["update"] for row in rows if row["update_type"] == goal])
        for pair_id, rows in pairs.items()
        for goal in UPDATE_TYPES
    ]
    skipped = sum(1 for _, _, references in goals if not references)
    # Retrieval baseline candidates: the first human update of the same goal from every other pair.
    first_update = {(pair_id, goal): references[0] for pair_id, goal, references in goals if references}
    docs = []
    for pair_id, goal, references in goals:
        if not references:
            continue
        row = pairs[pair_id][0]
        candidates = [
            text for (other, other_goal), text in first_update.items() if other != pair_id and other_goal == goal
        ]
        docs.append(
            {
                "item_id": f"{pair_id}|{goal}",
                "pair_id": pair_id,
                "goal": goal,
                "image_path": row["image_path"],
                "premise": row["premise"],
                "hypothesis": row["hypothesis"],
                "references": references,
                **load_counts(loaded),
                "goals_skipped": skipped,
                "answer_kind": "text",
                "choices": candidates or [row["premise"]],  # a lone pair falls back to its caption
                "candidate_images": [row["image_path"]],
            }
        )
    return documents(docs)


def human_docs_from(loaded: Loaded) -> datasets.Dataset:
    """One document per usable human update, for ``dve_human`` (the paper's human row on the evaluator)."""
    return documents(
        [
            {
                "item_id": f"line {row['line']}",
                "pair_id": row["pair_id"],
                "image_path": row["image_path"],
                "premise": row["premise"],
                "hypothesis": row["hypothesis"],
                "update": row["update"],
                "update_type": row["update_type"],
                **load_counts(loaded),
                # The reply is not read; baselines answer with a fixed placeholder.
                "answer_kind": "text",
                "choices": ["An update."],
                "candidate_images": [row["image_path"]],
            }
            for row in loaded.items
        ]
    )


def cls_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of dve_cls (test split)."""
    return cls_docs_from(load_selected("test"))


def gen_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of dve_gen (test split)."""
    return gen_docs_from(load_selected("test"))


def human_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of dve_human (test split)."""
    return human_docs_from(load_selected("test"))


def cls_docs_dev(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of dve_cls_dev (dev split)."""
    return cls_docs_from(load_selected("dev"))


def gen_docs_dev(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of dve_gen_dev (dev split)."""
    return gen_docs_from(load_selected("dev"))


# ---------------------------------------------------------------- visual and prompts


def doc_to_visual(doc: dict) -> list:
    """The image premise."""
    return [load_image(doc["image_path"])]


def doc_to_text_cls(doc: dict) -> str:
    return prompts.classification_prompt(doc["hypothesis"], doc["update"])


def doc_to_text_gen(doc: dict) -> str:
    return prompts.generation_prompt(doc["hypothesis"], doc["goal"])


def doc_to_text_human(doc: dict) -> str:
    """The request the human update answers: Figure 6 with the update's type as the goal (the reply is not read)."""
    return prompts.generation_prompt(doc["hypothesis"], doc["update_type"])


# ---------------------------------------------------------------- task specs


def _cls_record(doc: dict, reading: Reading) -> dict:
    return {
        "item_id": doc["item_id"],
        "pair_id": doc["pair_id"],
        "update_type": doc["update_type"],
        "prediction": reading.value,
        "correct": reading.value == doc["update_type"],
        **{name: doc[name] for name in LOAD_COUNTS},
    }


def _gen_record(doc: dict, reading: Reading) -> dict:
    return {
        "item_id": doc["item_id"],
        "pair_id": doc["pair_id"],
        "goal": doc["goal"],
        "prediction": reading.value,
        "references": list(doc["references"]),
        "image_path": doc["image_path"],
        "premise": doc["premise"],
        "hypothesis": doc["hypothesis"],
        **{name: doc[name] for name in LOAD_COUNTS},
        "goals_skipped": doc["goals_skipped"],
        "optimization": reading.meta,  # the dve_optimized model's trace of the item (None for any other model)
    }


CLS = TaskSpec(
    name="dve_cls",
    diagnostics_prefix="dve_cls",
    metrics=(
        Metric("dve_accuracy"),  # Classification Task "Evaluation Metric"; Table 4
        Metric("dve_by_update_type", breakdown=True),
    ),
    record=_cls_record,
    compute=cls_outcome,
)


def _parts(family: str) -> tuple[Metric, ...]:
    return tuple(Metric(f"dve_{family}_{part}") for part in ("all", *UPDATE_TYPES))


GEN = TaskSpec(
    name="dve_gen",
    diagnostics_prefix="dve_gen",
    metrics=(
        *_parts("rouge_l"),  # Table 3 ROUGE-L
        *_parts("bleu4"),  # Table 3 BLEU (BLEU-4, corpus)
        *_parts("bertscore"),  # Table 3 BERTScore (F1)
        *_parts("clipscore"),  # Table 3 CLIPScore
        Metric("dve_evaluator_strengthener", scale="raw"),  # Table 3 "Ours": mean strength score, higher is better
        Metric("dve_evaluator_weakener", higher_is_better=False, scale="raw"),  # Table 3 "Ours": lower is better
        *_parts("success"),  # ours, not in Table 3: evaluator score beyond the premise caption's (ties fail)
        # Reward-driven update optimization (dve_optimized model only; None otherwise)
        Metric("dve_opt_rounds_mean", higher_is_better=None, scale="raw"),  # generations per item, 1 to 1 + M
        Metric("dve_opt_refined_share", higher_is_better=None),  # items refined at least once
        Metric("dve_opt_before_strengthener", scale="raw"),  # evaluator score of the initial update
        Metric("dve_opt_after_strengthener", scale="raw"),  # evaluator score of the final update
        Metric("dve_opt_before_weakener", higher_is_better=False, scale="raw"),
        Metric("dve_opt_after_weakener", higher_is_better=False, scale="raw"),
    ),
    record=_gen_record,
    compute=gen_outcome,
)
HUMAN = TaskSpec(
    name="dve_human",
    diagnostics_prefix="dve_human",
    metrics=(
        # "We also assessed human performance based on our evaluator": 5.0998 (strengtheners), -4.5412 (weakeners)
        Metric("dve_human_evaluator_strengthener", scale="raw"),
        Metric("dve_human_evaluator_weakener", higher_is_better=False, scale="raw"),
        *(Metric(f"dve_human_success_{part}") for part in ("all", *UPDATE_TYPES)),  # as dve_success_*
    ),
    record=lambda doc, reading: {
        "item_id": doc["item_id"],
        "pair_id": doc["pair_id"],
        "update_type": doc["update_type"],
        "update": doc["update"],
        "image_path": doc["image_path"],
        "premise": doc["premise"],
        "hypothesis": doc["hypothesis"],
        **{name: doc[name] for name in LOAD_COUNTS},
    },
    compute=human_outcome,
)
SPECS = (CLS, GEN, HUMAN)

process_results_cls = CLS.results_reader(lambda doc: LABEL, doc_to_text_cls)
process_results_gen = GEN.results_reader(lambda doc: Update())  # free text: nothing to extract with a judge
process_results_human = HUMAN.results_reader(lambda doc: Update())  # the reply is not scored: the human update is
aggregate_cls = CLS.aggregate
aggregate_gen = GEN.aggregate
aggregate_human = HUMAN.aggregate
