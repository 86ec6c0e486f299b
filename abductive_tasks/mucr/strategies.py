"""MuCR Table 2 strategies as variants of the Form-1 tasks: CoT, CCoT (two stages), ICL and MMICL (2 shots).

Each variant YAML ``include:``s its base task (``mucr_c2e``, ``mucr_e2c``, ``mucr_cue``, ``mucr_exp``) and
replaces only what the strategy changes; the hooks here wrap the base task's own hooks, read from its YAML
(:func:`base_hook`), so a variant follows its base (documents, prompt, answer reading, metrics). One exception:
an Exp variant explains the model's own picks in the same strategy's C2E and Cue runs (``mucr_exp_cot`` those of
``mucr_c2e_cot`` and ``mucr_cue_cot``, as its YAML's ``reads`` declares), not the base's, so it runs as a second
stage (:func:`variant_docs`; :mod:`abductive_tasks.inputs.stages`).

* CoT: the base prompt with the zero-shot trigger (:func:`prompts.cot_prompt`); read and scored as the base.
* CCoT: ``mucr_<level>_ccot_graph`` asks for the scene graph (its record keeps it, and with
  ``ABDUCTIVE_MUCR_SCENE_GRAPHS`` it is also stored under that name: :mod:`abductive_tasks.mucr.scene_graphs`); a
  later run of ``mucr_<level>_ccot`` reads the graphs of that run (a stage) and puts each before the question. A
  pair without a graph is not asked and counts as wrong (0 at Exp), over all pairs (``items_missing_upstream``); the
  second stage scores with the level's spec in :mod:`hooks` counting every item (:func:`_ccot_answer`).
* Two-step CoT (Kojima et al.'s whole procedure): ``mucr_<level>_cot2`` reads the replies of that level's CoT run
  (a stage, kind ``reasonings``) and asks again with the step-1 prompt, the reasoning and "Therefore, the answer
  is" (:func:`prompts.cot_answer_prompt`), a few tokens long; read and scored as the base, over every pair (a pair
  whose reasoning is missing, failed or empty is not asked and counts as wrong: ``items_missing_upstream``).
* ICL / MMICL: two solved examples (question and gold answer) from other pairs (:func:`draw_shots`) before
  the question; MMICL's examples carry their composite images, ICL's are text only.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from abductive_tasks import compat, settings
from abductive_tasks.inputs.images import image_cache_dir
from abductive_tasks.inputs.loading import DataError, benchmark_root, documents
from abductive_tasks.inputs.stages import (
    MISSING_FIELD,
    NO_UPSTREAM_FIELD,
    Slot,
    StageError,
    StageOutput,
    counting_every_item,
    outside_limit,
    upstream_output,
    validated,
    without_upstream,
)
from abductive_tasks.mucr import hooks, prompts, scene_graphs
from abductive_tasks.mucr.data import BENCHMARK, HUB_REPO, LOAD_COUNTS, causal_groups, load
from abductive_tasks.mucr.metrics import load_counts_of, split_explanation
from abductive_tasks.scoring.reading import AnswerKind
from abductive_tasks.scoring.stats import Estimate
from abductive_tasks.scoring.taskspec import PARSED, Metric, Outcome, Reading, Records, TaskSpec
from abductive_tasks.scoring.taskspec import counting_every_item as every_item

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
    the C2E and Cue runs ``task`` reads (Eq. 5; :func:`hooks.exp_own_docs_of`)."""
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
def _shot_table(root: Path, level: str, image_cache: Path) -> dict[str, dict]:
    """Per pair of the data under ``root``: its solved example at ``level`` (``question``, ``answer``, the
    Form-1 ``image_paths`` / ``panel_labels``, in ``image_cache`` where embedded) and the ids of its shots."""
    loaded = load(root)
    items = list(loaded.items)
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
        built = {"c2e": hooks.c2e_docs_from, "e2c": hooks.e2c_docs_from, "cue": hooks.cue_docs_from}[level](loaded)
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
    table = _shot_table(benchmark_root(BENCHMARK, HUB_REPO), level, image_cache_dir())
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


def _with_fields(docs: datasets.Dataset, fields: dict) -> datasets.Dataset:
    """``docs`` with ``fields`` added to every document, and to the stand-ins they carry."""
    rows = []
    for doc in docs:
        if MISSING_FIELD in doc:
            doc[MISSING_FIELD] = json.dumps([stand_in | fields for stand_in in json.loads(doc[MISSING_FIELD])])
        rows.append(doc | fields)
    return documents(rows)


def _slots(docs: datasets.Dataset) -> list[Slot]:
    """The items behind chained documents: each document's stand-ins (items before it without upstream output), then
    the document itself (its own stand-in: what it counts as if it goes unasked)."""
    slots = []
    for doc in docs:
        for stand_in in json.loads(doc.pop(MISSING_FIELD, None) or "[]"):
            slots.append(Slot(stand_in["item_id"], [], [stand_in]))
        slots.append(Slot(doc["item_id"], [doc], [doc]))
    return slots


def _graph_docs(level: str) -> Callable[[datasets.Dataset], datasets.Dataset]:
    def process_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
        docs = variant_docs(level, f"mucr_{level}_ccot_graph", placeholder)
        return _with_fields(docs, {"ccot_level": level, "scene_graphs": settings.mucr_scene_graphs()})

    return process_docs


def _graph_text(level: str) -> Callable[[dict], str]:
    def doc_to_text(doc: dict) -> str:
        return prompts.ccot_graph_prompt(base_hook(level, "doc_to_text")(doc))

    return doc_to_text


def _named_graphs(task: str, upstream: str, keys: dict[str, str]) -> StageOutput | None:
    """The graphs stored under ``ABDUCTIVE_MUCR_SCENE_GRAPHS`` for the questions ``keys`` names (None: unset)."""
    name = settings.mucr_scene_graphs()
    if not name:
        return None
    output = scene_graphs.STORE.output(name, upstream, keys)
    if not output.items:
        raise StageError(
            f"{task}: no scene graph stored under '{name}' in {scene_graphs.folder(name)}; "
            f"run {upstream} with {scene_graphs.VARIABLE}={name} first"
        )
    return output


def _answer_docs(level: str) -> Callable[[datasets.Dataset], datasets.Dataset]:
    def process_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
        task, upstream = f"mucr_{level}_ccot", f"mucr_{level}_ccot_graph"
        docs = variant_docs(level, task, placeholder)
        if docs[0].get(NO_UPSTREAM_FIELD):  # Exp given no picks: not computed either way
            return _with_fields(docs, {"scene_graph": ""})
        slots = _slots(docs)
        keys = {slot.item_id: scene_graph_key(level, slot.docs[0]) for slot in slots if slot.docs}
        graphs = upstream_output(task, upstream, "graphs", lambda: _named_graphs(task, upstream, keys))
        if graphs is None:
            first = next(slot.docs[0] for slot in slots if slot.docs)
            how = f"abductive-eval runs {upstream} first, or set {scene_graphs.VARIABLE}=<name> for both stages"
            return without_upstream(task, first | {"scene_graph": ""}, how)
        validated(task, graphs, keys)
        slots = [slot for slot in slots if not (slot.docs and outside_limit(graphs, slot.item_id))]
        for slot in slots:
            entry = graphs.items.get(slot.item_id) if slot.docs else None
            slot.docs = [] if entry is None or entry.value is None else [slot.docs[0] | {"scene_graph": entry.value}]
        return counting_every_item(slots, task, f"scene graphs of {upstream} from {graphs.origin}", {"scene_graph": ""})

    return process_docs


def _answer_text(level: str) -> Callable[[dict], str]:
    def doc_to_text(doc: dict) -> str:
        return prompts.ccot_answer_prompt(base_hook(level, "doc_to_text")(doc), doc["scene_graph"])

    return doc_to_text


# ---------------------------------------------------------------- Kojima's two-step CoT


def _reasoning_docs(level: str) -> Callable[[datasets.Dataset], datasets.Dataset]:
    """The documents of ``mucr_<level>_cot2``: the base task's, each with the reasoning ``mucr_<level>_cot`` gave it
    (its reply, a stage); a pair whose reasoning is missing, failed or empty is not asked and counts as wrong."""

    def process_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
        task, upstream = f"mucr_{level}_cot2", f"mucr_{level}_cot"
        slots = _slots(variant_docs(level, task, placeholder))
        keys = {slot.item_id: hooks.choice_digest(slot.docs[0]) for slot in slots}
        reasonings = upstream_output(task, upstream, "reasonings", lambda: None)  # no variable names them
        if reasonings is None:
            how = f"abductive-eval runs {upstream} first and hands its replies on"
            return without_upstream(task, slots[0].docs[0] | {"reasoning": ""}, how)
        validated(task, reasonings, keys)
        slots = [slot for slot in slots if not outside_limit(reasonings, slot.item_id)]
        for slot in slots:
            entry = reasonings.items.get(slot.item_id)
            slot.docs = [] if entry is None or entry.value is None else [slot.docs[0] | {"reasoning": entry.value}]
        return counting_every_item(slots, task, f"reasonings of {upstream} from {reasonings.origin}", {"reasoning": ""})

    return process_docs


def _reasoning_text(level: str) -> Callable[[dict], str]:
    def doc_to_text(doc: dict) -> str:
        return prompts.cot_answer_prompt(_cot_text(level)(doc), doc["reasoning"])

    return doc_to_text


def _two_step_answer(base: TaskSpec) -> TaskSpec:
    """The base level's spec for the two-step CoT's answer step: the same records and metrics, over every pair (a
    pair without its reasoning counts as unanswered: wrong)."""
    return TaskSpec(
        name=f"{base.name}_cot2", diagnostics_prefix=base.diagnostics_prefix, metrics=base.metrics, record=base.record,
        compute=every_item(base.compute),
    )  # fmt: skip


C2E_COT2, E2C_COT2, CUE_COT2 = map(_two_step_answer, (hooks.C2E, hooks.E2C, hooks.CUE))


class SceneGraph:
    """What CCoT's first stage asks for: a scene graph, kept as written (whitespace stripped)."""

    def read(self, text: str) -> str | None:
        return text.strip() or None

    def describe(self) -> str:
        return "a scene graph"


def _graph_record(doc: dict, reading: Reading) -> dict:
    """The graph the model gave (None when it gave none) and the question it answered, for the second stage; stored
    under ``ABDUCTIVE_MUCR_SCENE_GRAPHS`` too when that names a store."""
    stored = reading.status == PARSED
    graph_key = scene_graph_key(doc["ccot_level"], doc)
    if stored and doc["scene_graphs"]:
        scene_graphs.STORE.save(doc["scene_graphs"], graph_key, graph_key, reading.value, reading.status)
    return {
        "item_id": doc["item_id"],
        "doc_digest": graph_key,
        "graph": reading.value if stored else None,
        "level": doc["ccot_level"],
        "stored": stored,
        "graph_chars": len(reading.value) if stored else 0,
        **{name: doc[name] for name in LOAD_COUNTS},
    }


def graph_outcome(records: Records) -> Outcome:
    """CCoT stage 1: the share of pairs whose scene graph was drawn (pairs without picks at Exp: none), and the
    loader's counts."""
    stored = [record["stored"] for record in records]
    chars = [record["graph_chars"] for record in records if record["stored"]]
    return Outcome(
        estimates={"scene_graph_rate": Estimate.mean([record["item_id"] for record in records], stored)},
        counts={
            "items": len(records),
            "stored": sum(stored),
            "mean_graph_chars": round(sum(chars) / len(chars)) if chars else 0,
            **load_counts_of(records),
        },
    )


SCENE_GRAPH = TaskSpec(
    name="mucr_ccot_graph",
    diagnostics_prefix="scene_graph",
    metrics=(Metric("scene_graph_rate"),),  # share of the pairs whose scene graph was drawn
    record=_graph_record,
    compute=every_item(graph_outcome),
    record_once=True,  # the record holds the graph: logged once per document, not once per metric
)


def _ccot_answer(base: TaskSpec) -> TaskSpec:
    """The base level's spec for CCoT's second stage: the same records and metrics, over every pair (a pair without
    its scene graph counts as unanswered: wrong, or 0 at Exp)."""
    return TaskSpec(
        name=f"{base.name}_ccot", diagnostics_prefix=base.diagnostics_prefix, metrics=base.metrics, record=base.record,
        compute=every_item(base.compute), judged=base.judged,
    )  # fmt: skip


C2E_CCOT, E2C_CCOT, CUE_CCOT, EXP_CCOT = map(_ccot_answer, (hooks.C2E, hooks.E2C, hooks.CUE, hooks.EXP_OWN))
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
c2e_cot2_docs, e2c_cot2_docs, cue_cot2_docs = map(_reasoning_docs, ("c2e", "e2c", "cue"))
doc_to_text_c2e_cot2, doc_to_text_e2c_cot2, doc_to_text_cue_cot2 = map(_reasoning_text, ("c2e", "e2c", "cue"))
process_results_c2e_cot2 = C2E_COT2.results_reader(_ANSWER["c2e"], doc_to_text_c2e_cot2)
process_results_e2c_cot2 = E2C_COT2.results_reader(_ANSWER["e2c"], doc_to_text_e2c_cot2)
process_results_cue_cot2 = CUE_COT2.results_reader(_ANSWER["cue"], doc_to_text_cue_cot2)
aggregate_c2e_cot2 = C2E_COT2.aggregate
aggregate_e2c_cot2 = E2C_COT2.aggregate
aggregate_cue_cot2 = CUE_COT2.aggregate
