"""MuCR Table 2 strategies as variants of the Form-1 tasks: CoT, CCoT (two stages), ICL and MMICL (2 shots).

Each variant YAML ``include:``s its base task (``mucr_c2e``, ``mucr_e2c``, ``mucr_cue``, ``mucr_exp``) and
replaces only what the strategy changes; the hooks here wrap the base task's own hooks, read from its YAML
(:func:`base_hook`), so a variant follows its base (documents, prompt, answer reading, metrics). One exception:
an Exp variant explains the model's own picks in the same strategy's C2E and Cue runs (``mucr_exp_cot`` those of
``mucr_c2e_cot`` and ``mucr_cue_cot``; :func:`picks.pick_tasks`), not the base's, so it runs as a second stage
(:func:`variant_docs`).

* CoT: the base prompt with the zero-shot trigger (:func:`prompts.cot_prompt`); read and scored as the base.
* CCoT: ``mucr_<level>_ccot_graph`` asks for the scene graph and stores it under the name
  ``ABDUCTIVE_MUCR_SCENE_GRAPHS`` gives (:mod:`abductive_tasks.mucr.scene_graphs`); a later run of
  ``mucr_<level>_ccot`` with the same name puts it before the question. A pair without a stored graph is
  left out and counted (``items_without_scene_graph``); the second stage scores with the level's spec in
  :mod:`hooks` plus that count (:func:`_with_graph_count`).
* ICL / MMICL: two solved examples (question and gold answer) from other pairs (:func:`draw_shots`) before
  the question; MMICL's examples carry their composite images, ICL's are text only.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from loguru import logger

from abductive_tasks import compat, settings
from abductive_tasks.inputs.data import DataError, benchmark_root
from abductive_tasks.mucr import hooks, prompts, scene_graphs
from abductive_tasks.mucr.data import BENCHMARK, HUB_REPO, causal_groups, load
from abductive_tasks.mucr.metrics import split_explanation
from abductive_tasks.scoring.reading import AnswerKind
from abductive_tasks.scoring.stats import Estimate
from abductive_tasks.scoring.taskspec import PARSED, Metric, Outcome, Reading, Records, TaskSpec

if TYPE_CHECKING:
    import datasets

LEVELS = ("c2e", "e2c", "cue", "exp")
N_SHOTS = 2  # Table 2: "ICL (2 shot)", "MMICL (2 shot)"
SHOT_SEED = "mucr-icl"


@functools.cache
def base_hook(level: str, hook: str) -> Callable:
    """The ``hook`` (doc_to_text, doc_to_visual, process_docs, process_results) of the base task of ``level``,
    as its YAML names it."""
    return compat.task_config(compat.tasks_path() / "mucr" / f"mucr_{level}.yaml")[hook]


def variant_docs(level: str, task: str, placeholder: datasets.Dataset) -> datasets.Dataset:
    """The documents of ``task``, a strategy variant of ``level``: the base task's; at Exp, those on the picks of
    the same strategy's C2E and Cue runs (Eq. 5), read from ``ABDUCTIVE_MUCR_PICKS``."""
    if level == "exp":
        return hooks.exp_own_docs_of(task)
    return base_hook(level, "process_docs")(placeholder)


def _exp_docs(task: str) -> Callable[[datasets.Dataset], datasets.Dataset]:
    def process_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
        return hooks.exp_own_docs_of(task)

    return process_docs


# ---------------------------------------------------------------- CoT


def _cot_text(level: str) -> Callable[[dict], str]:
    def doc_to_text(doc: dict) -> str:
        return prompts.cot_prompt(base_hook(level, "doc_to_text")(doc))

    return doc_to_text


# ---------------------------------------------------------------- ICL / MMICL: the shots


def draw_shots(items: Sequence[dict], item_id: str, k: int = N_SHOTS, seed: str = SHOT_SEED) -> list[str]:
    """The ``k`` pairs whose solved examples precede pair ``item_id``: drawn with a generator seeded by
    ``seed`` and the pair id among the pairs outside its causal group (:func:`data.causal_groups`) and
    outside its C2E/E2C candidate set, so no shot shows the pair, a variant of it, or one of its options."""
    group = causal_groups(items)
    query = next(item for item in items if item["item_id"] == item_id)
    excluded = {item_id, *query["distractors"]}
    pool = sorted(other for other in group if other not in excluded and group[other] != group[item_id])
    if len(pool) < k:
        raise DataError(f"MuCR pair {item_id}: {len(pool)} pairs outside its causal group, {k} in-context shots needed")
    return random.Random(f"{seed}:{item_id}").sample(pool, k)


@functools.cache
def _shot_table(root: Path, level: str) -> dict[str, dict]:
    """Per pair of the data under ``root``: its solved example at ``level`` (``question``, ``answer``, the
    Form-1 ``image_paths`` / ``panel_labels``) and the ids of its shots."""
    items = list(load(root).items)
    if level == "exp":  # a solved example: the correct cue and the first annotation, in the three labelled lines
        docs = {
            item["item_id"]: {
                "question": prompts.exp_prompt(item["cue"], "composite"),
                "answer": _labelled(item["references"][0]),
                "image_paths": [item["cause_image"], item["effect_image"]],
                "panel_labels": hooks.PAIR_PANELS,
            }
            for item in items
        }
    else:
        built = {"c2e": hooks.c2e_docs_from, "e2c": hooks.e2c_docs_from, "cue": hooks.cue_docs_from}[level](items)
        text = {
            "c2e": hooks.doc_to_text_c2e_composite,
            "e2c": hooks.doc_to_text_e2c_composite,
            "cue": hooks.doc_to_text_cue_composite,
        }[level]
        docs = {
            doc["item_id"]: {
                "question": text(doc),
                "answer": _choice_answer(doc),
                "image_paths": doc["image_paths"],
                "panel_labels": doc["panel_labels"],
            }
            for doc in built
        }
    for item in items:
        docs[item["item_id"]]["shots"] = draw_shots(items, item["item_id"])
    return docs


def _labelled(reference: str) -> str:
    cause, effect, link = split_explanation(reference)[0]
    return f"Cause image: {cause}\nEffect image: {effect}\nCausal link: {link}"


def _choice_answer(doc: dict) -> str:
    position = doc["gold_position"]
    return f"{position} ({doc['options'][position - 1]})" if "options" in doc else f"Option {position}"


def shots_of(level: str, item_id: str) -> list[dict]:
    """The solved examples shown before pair ``item_id`` at ``level`` (data of ``ABDUCTIVE_DATA``)."""
    table = _shot_table(benchmark_root(BENCHMARK, HUB_REPO), level)
    return [table[shot] for shot in table[item_id]["shots"]]


def _icl_text(level: str) -> Callable[[dict], str]:
    def doc_to_text(doc: dict) -> str:
        shots = [(shot["question"], shot["answer"]) for shot in shots_of(level, doc["item_id"])]
        return prompts.icl_prompt(shots, base_hook(level, "doc_to_text")(doc))

    return doc_to_text


def _mmicl_text(level: str) -> Callable[[dict], str]:
    def doc_to_text(doc: dict) -> str:
        shots = [(shot["question"], shot["answer"]) for shot in shots_of(level, doc["item_id"])]
        return prompts.mmicl_prompt(shots, base_hook(level, "doc_to_text")(doc))

    return doc_to_text


def _mmicl_visual(level: str) -> Callable[[dict], list]:
    def doc_to_visual(doc: dict) -> list:
        shots = [hooks.doc_to_visual_composite(shot)[0] for shot in shots_of(level, doc["item_id"])]
        return [*shots, *base_hook(level, "doc_to_visual")(doc)]

    return doc_to_visual


# ---------------------------------------------------------------- CCoT


def scene_graph_key(level: str, doc: dict) -> str:
    """What a scene graph answers: the stage-1 prompt and the images shown (by content)."""
    return scene_graphs.key(prompts.ccot_graph_prompt(base_hook(level, "doc_to_text")(doc)), doc["image_paths"])


def _store_name(task: str) -> str:
    name = settings.mucr_scene_graphs()
    if not name:
        raise DataError(
            f"{task} needs ABDUCTIVE_MUCR_SCENE_GRAPHS=<name>: the name the scene graphs are stored under and "
            "read back by (e.g. the model's name; the same for the _ccot_graph run and the _ccot run)"
        )
    return name


def _graph_docs(level: str) -> Callable[[datasets.Dataset], datasets.Dataset]:
    def process_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
        task = f"mucr_{level}_ccot_graph"
        name = _store_name(task)
        docs = variant_docs(level, task, placeholder)
        return docs.add_column("ccot_level", [level] * len(docs)).add_column("scene_graphs", [name] * len(docs))

    return process_docs


def _graph_text(level: str) -> Callable[[dict], str]:
    def doc_to_text(doc: dict) -> str:
        return prompts.ccot_graph_prompt(base_hook(level, "doc_to_text")(doc))

    return doc_to_text


def _answer_docs(level: str) -> Callable[[datasets.Dataset], datasets.Dataset]:
    def process_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
        task = f"mucr_{level}_ccot"
        name = _store_name(task)
        docs = variant_docs(level, task, placeholder)
        graphs = [scene_graphs.lookup(name, scene_graph_key(level, doc)) for doc in docs]
        missing = [doc["item_id"] for doc, graph in zip(docs, graphs, strict=True) if graph is None]
        if len(missing) == len(docs):
            raise DataError(
                f"{task}: no scene graph stored under '{name}' in {scene_graphs.folder(name)}; "
                f"run mucr_{level}_ccot_graph with ABDUCTIVE_MUCR_SCENE_GRAPHS={name} first"
            )
        if missing:
            logger.warning(
                f"{task}: {len(missing)} of {len(docs)} pairs have no scene graph under '{name}' and are left out "
                f"(counted as items_without_scene_graph), e.g. pair ids {missing[:5]}"
            )
        kept = [index for index, graph in enumerate(graphs) if graph is not None]
        docs = docs.select(kept)
        return docs.add_column("scene_graph", [graphs[index] for index in kept]).add_column(
            "items_without_scene_graph", [len(missing)] * len(docs)
        )

    return process_docs


def _answer_text(level: str) -> Callable[[dict], str]:
    def doc_to_text(doc: dict) -> str:
        return prompts.ccot_answer_prompt(base_hook(level, "doc_to_text")(doc), doc["scene_graph"])

    return doc_to_text


class SceneGraph:
    """What CCoT's first stage asks for: a scene graph, kept as written (whitespace stripped)."""

    def read(self, text: str) -> str | None:
        return text.strip() or None

    def describe(self) -> str:
        return "a scene graph"


def _graph_record(doc: dict, reading: Reading) -> dict:
    """Store the graph the model gave (the record keeps whether it did, not the graph)."""
    stored = reading.status == PARSED
    if stored:
        scene_graphs.save(doc["scene_graphs"], scene_graph_key(doc["ccot_level"], doc), reading.value)
    return {
        "item_id": doc["item_id"],
        "level": doc["ccot_level"],
        "stored": stored,
        "graph_chars": len(reading.value) if stored else 0,
    }


def graph_outcome(records: Records) -> Outcome:
    """CCoT stage 1: the share of pairs whose scene graph was stored."""
    stored = [record["stored"] for record in records]
    chars = [record["graph_chars"] for record in records if record["stored"]]
    return Outcome(
        estimates={"scene_graph_rate": Estimate.mean([record["item_id"] for record in records], stored)},
        counts={
            "items": len(records),
            "stored": sum(stored),
            "mean_graph_chars": round(sum(chars) / len(chars)) if chars else 0,
        },
    )


SCENE_GRAPH = TaskSpec(
    name="mucr_ccot_graph",
    prefix="scene_graph",
    metrics=(Metric("scene_graph_rate"),),  # share of the pairs whose scene graph was stored
    record=_graph_record,
    compute=graph_outcome,
)


def _with_graph_count(base: TaskSpec) -> TaskSpec:
    """The base level's spec for CCoT's second stage: the same metrics, and the pairs left out for want of a
    scene graph in its counts."""

    def compute(records: Records) -> Outcome:
        outcome = base.compute(records)
        outcome.counts["items_without_scene_graph"] = records[0]["items_without_scene_graph"] if records else 0
        return outcome

    return TaskSpec(
        name=f"{base.name}_ccot",
        prefix=base.prefix,
        metrics=base.metrics,
        record=lambda doc, reading: (
            base.record(doc, reading) | {"items_without_scene_graph": doc["items_without_scene_graph"]}
        ),
        compute=compute,
    )


C2E_CCOT, E2C_CCOT, CUE_CCOT, EXP_CCOT = map(_with_graph_count, (hooks.C2E, hooks.E2C, hooks.CUE, hooks.EXP_OWN))
_ANSWER: dict[str, Callable[[dict], AnswerKind]] = {
    "c2e": lambda doc: hooks.FOUR_OPTIONS,
    "e2c": lambda doc: hooks.FOUR_OPTIONS,
    "cue": hooks.cue_answer,
    "exp": lambda doc: hooks.Explanation(),
}

# ---------------------------------------------------------------- the hooks the variant YAMLs name

exp_cot_docs, exp_icl_docs, exp_mmicl_docs = (_exp_docs(f"mucr_exp_{strategy}") for strategy in ("cot", "icl", "mmicl"))
doc_to_text_c2e_cot, doc_to_text_e2c_cot, doc_to_text_cue_cot, doc_to_text_exp_cot = map(_cot_text, LEVELS)
doc_to_text_c2e_icl, doc_to_text_e2c_icl, doc_to_text_cue_icl, doc_to_text_exp_icl = map(_icl_text, LEVELS)
doc_to_text_c2e_mmicl, doc_to_text_e2c_mmicl, doc_to_text_cue_mmicl, doc_to_text_exp_mmicl = map(_mmicl_text, LEVELS)
doc_to_visual_c2e_mmicl, doc_to_visual_e2c_mmicl, doc_to_visual_cue_mmicl, doc_to_visual_exp_mmicl = map(
    _mmicl_visual, LEVELS
)
c2e_ccot_graph_docs, e2c_ccot_graph_docs, cue_ccot_graph_docs, exp_ccot_graph_docs = map(_graph_docs, LEVELS)
doc_to_text_c2e_ccot_graph, doc_to_text_e2c_ccot_graph, doc_to_text_cue_ccot_graph, doc_to_text_exp_ccot_graph = map(
    _graph_text, LEVELS
)
process_results_ccot_graph = SCENE_GRAPH.results_reader(lambda doc: SceneGraph())  # free text: nothing to extract
aggregate_ccot_graph = SCENE_GRAPH.aggregate
c2e_ccot_docs, e2c_ccot_docs, cue_ccot_docs, exp_ccot_docs = map(_answer_docs, LEVELS)
doc_to_text_c2e_ccot, doc_to_text_e2c_ccot, doc_to_text_cue_ccot, doc_to_text_exp_ccot = map(_answer_text, LEVELS)
process_results_c2e_ccot = C2E_CCOT.results_reader(_ANSWER["c2e"], doc_to_text_c2e_ccot)
process_results_e2c_ccot = E2C_CCOT.results_reader(_ANSWER["e2c"], doc_to_text_e2c_ccot)
process_results_cue_ccot = CUE_CCOT.results_reader(_ANSWER["cue"], doc_to_text_cue_ccot)
process_results_exp_ccot = EXP_CCOT.results_reader(_ANSWER["exp"])  # the text is the answer: nothing to extract
aggregate_c2e_ccot = C2E_CCOT.aggregate
aggregate_e2c_ccot = E2C_CCOT.aggregate
aggregate_cue_ccot = CUE_CCOT.aggregate
aggregate_exp_ccot = EXP_CCOT.aggregate
