"""DVE documents, prompts, answer reading, per-document records and the task YAML against the specs."""

from __future__ import annotations

from pathlib import Path

import pytest

from abductive_tasks import compat
from abductive_tasks.dve import data, hooks
from abductive_tasks.inputs.loading import SAMPLE_ROOT

from helpers.specs import evaluate, records

YAML = Path(__file__).parents[2] / "yaml_tasks" / "dve"
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"


@pytest.fixture(scope="module")
def loaded():
    return data.load(SAMPLE_ROOT / "dve", "test")


def test_cls_documents(loaded):
    docs = hooks.cls_docs_from(loaded)
    assert len(docs) == 17
    doc = docs[0]
    assert (
        doc["item_id"] == "line 2"
        and doc["pair_id"] == "6556870225.jpg#3r1n"
        and doc["update_type"] == "weakener"
        and doc["impossible_excluded"] == 4
        and doc["duplicate_updates"] == 0
    )
    assert doc["choices"] == ["strengthener", "weakener"] and doc["candidate_images"] == [doc["image_path"]] * 2
    assert hooks.doc_to_text_cls(doc) == (
        "You are a helpful assistant that helps to determine if an update strengthens or weakens a hypothesis. "
        "The premise is an image that sets the scenario. "
        "The hypothesis is an inference based on this scenario, "
        "and the update provides additional information that could impact the hypothesis. "
        "Based on the premise provided and the given update, "
        "please judge whether the update strengthens or weakens the hypothesis. "
        "ONLY output strengthener or weakener in your final answer.\nConsider this image as a premise.\n"
        "Hypothesis: A man moves while playing a game\n"
        "Update: The young male is a child."
    )
    (image,) = hooks.doc_to_visual(doc)
    assert image.mode == "RGB"


def test_gen_documents(loaded):
    docs = hooks.gen_docs_from(loaded)
    # 6 pairs x 2 goals, less the last pair's weakener goal (all its weakeners are impossible).
    assert len(docs) == 11
    assert docs[0]["goals_skipped"] == 1
    by_id = {doc["item_id"]: doc for doc in docs}
    assert "4701338123.jpg#4r1n|weakener" not in by_id
    dog = by_id["1015118661.jpg#0r1n|strengthener"]
    assert dog["pair_id"] == "1015118661.jpg#0r1n"
    assert dog["references"] == ["The dog is a hunting dog.", "A rabbit darts into the bushes, just ahead of the dog."]
    assert dog["answer_kind"] == "text" and dog["candidate_images"] == [dog["image_path"]]
    # Retrieval baseline: the first strengthener of every other pair, never one of this pair's references.
    assert dog["choices"] == [
        "The player is in his thirties.",
        "The woman is holding a chef's knife.",
        "A delivery truck, loaded with pipes, is turning onto the street.",
        "They have been digging since dawn, in the heat.",
        "It is Monday morning, and his badge hangs from his neck.",
    ]
    assert hooks.doc_to_text_gen(dog) == (
        "You are a helpful assistant that generates updates to impact hypotheses based on given premises.\n"
        "Consider this image as a premise.\n"
        "Hypothesis: A dog chases a rabbit.\nGoal: strengthener\nBased on the goal, generate an update that:\n"
        "- Strengthens the hypothesis if the goal is a strengthener.\n"
        "- Weakens the hypothesis if the goal is a weakener.\n"
        "Ensure the update is logically consistent with the image premise.\n"
        "Please provide only the update. Do not include any other information."
    )


def test_dev_tasks_read_the_dev_split(monkeypatch, data_copy):
    (data_copy / "dve" / "DVE_dev.csv").write_text(
        "".join((data_copy / "dve" / "DVE_test.csv").read_text().splitlines(keepends=True)[:10])
    )
    monkeypatch.setenv("ABDUCTIVE_DATA", str(data_copy))
    data.load.cache_clear()
    try:
        assert len(hooks.cls_docs_dev(None)) == 8 and len(hooks.cls_docs(None)) == 17  # lines 2-10: one impossible row
        assert hooks.cls_docs_dev(None)[0]["impossible_excluded"] == 1
        assert [doc["item_id"] for doc in hooks.gen_docs_dev(None)] == [
            f"{pair}|{goal}"
            for pair in ("6556870225.jpg#3r1n", "1015118661.jpg#0r1n")
            for goal in ("strengthener", "weakener")
        ]
        assert len(hooks.gen_docs(None)) == 11
    finally:
        data.load.cache_clear()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("weakener", "weakener"),
        ("Strengthener. Chosen at random.", "strengthener"),
        ("**Weakener**", "weakener"),
        ("The update weakens the hypothesis.", "weakener"),
        ("Final answer: strengthener", "strengthener"),
        ("I think this is a strengthener because the dog hunts.", "strengthener"),
        ("It could be a strengthener or a weakener.", None),
        ("no idea", None),
    ],
)
def test_classification_answers(loaded, answer, expected):
    doc = hooks.cls_docs_from(loaded)[0]  # a weakener
    (record,) = records(hooks.process_results_cls, [doc], [answer])
    assert record["prediction"] == expected and record["correct"] == (expected == "weakener")
    assert record["answer_status"] == ("parsed" if expected else "unparsable")


def test_generated_update_is_kept_as_written(loaded):
    doc = hooks.gen_docs_from(loaded)[0]
    (record,) = records(hooks.process_results_gen, [doc], ["  The player is in his thirties.\n"])
    assert record["prediction"] == "The player is in his thirties." and record["answer_status"] == "parsed"
    assert record["pair_id"] == doc["pair_id"] and record["references"] == doc["references"]


def test_cls_aggregation_by_hand(loaded):
    docs = hooks.cls_docs_from(loaded).select(range(8))  # pair 1 (lines 2-5) and pair 2 (lines 6-9)
    assert docs["update_type"] == [
        "weakener",
        "strengthener",
        "weakener",
        "strengthener",
        "strengthener",
        "weakener",
        "strengthener",
        "weakener",
    ]
    assert docs["pair_id"] == ["6556870225.jpg#3r1n"] * 4 + ["1015118661.jpg#0r1n"] * 4
    # Always "strengthener", but unreadable on line 8 (a strengthener): pair 1 has 2 of 4 right, pair 2 1 of 4.
    replies = ["strengthener"] * 8
    replies[6] = "maybe"
    values = evaluate(hooks.CLS, hooks.process_results_cls, docs, replies)
    assert values["dve_accuracy"] == pytest.approx(3 / 8)
    cells = {label: (cell["acc"], cell["n"]) for label, cell in values["dve_by_update_type"].items()}
    assert cells == {"strengthener": (0.75, 4), "weakener": (0.0, 4)}  # n counts updates, not pairs
    assert values["dve_cls_counts"] == {
        "documents": 8,
        "pairs": 2,
        "impossible_excluded": 4,
        "empty_text_excluded": 0,
        "duplicate_updates": 0,
        "unparsable": 1,
        "request_failed": 0,
        "judge_extracted": 0,
    }
    # Resampled by pair: a replicate is pair 1 twice (2/4), pair 2 twice (1/4) or one of each (3/8).
    interval = values["dve_cls_ci95"]["dve_accuracy"]
    assert (interval["lower"], interval["upper"], interval["units"], interval["chance"]) == (0.25, 0.5, 2, 0.5)


@pytest.mark.parametrize("reply", [FAILED, "", "   ", None])
def test_a_failed_request_is_never_an_answer(loaded, reply, monkeypatch):
    for variable in ("ABDUCTIVE_BERTSCORE_MODEL", "ABDUCTIVE_CLIP_MODEL", "ABDUCTIVE_DVE_EVALUATOR"):
        monkeypatch.setenv(variable, "off")
    cls_docs = hooks.cls_docs_from(loaded)
    values = evaluate(hooks.CLS, hooks.process_results_cls, cls_docs, [reply] * len(cls_docs))
    assert values["dve_accuracy"] == 0.0
    assert values["dve_cls_counts"]["request_failed"] == 17 and values["dve_cls_counts"]["unparsable"] == 0
    gen_docs = hooks.gen_docs_from(loaded)
    gen = evaluate(hooks.GEN, hooks.process_results_gen, gen_docs, [reply] * len(gen_docs))
    assert gen["dve_rouge_l_all"] == 0.0 and gen["dve_bleu4_all"] == 0.0
    assert gen["dve_gen_counts"]["request_failed"] == 11 and gen["dve_gen_counts"]["unparsable"] == 0


@pytest.mark.parametrize(
    ("task", "process_docs"),
    [
        ("dve_cls", "cls_docs"),
        ("dve_cls_dev", "cls_docs_dev"),
        ("dve_gen", "gen_docs"),
        ("dve_gen_dev", "gen_docs_dev"),
    ],
)
def test_each_task_reads_its_split(task, process_docs):
    """The metric lists against the specs are checked for every task by tests/test_task_yaml.py, the versions
    against the README changelog by tests/test_snapshots.py."""
    config = compat.task_config(YAML / f"{task}.yaml")
    assert config["task"] == task
    assert config["process_docs"] is getattr(hooks, process_docs)
    assert config["process_results"].spec is (hooks.CLS if task.startswith("dve_cls") else hooks.GEN)
