"""MuCR documents, prompts, visuals, per-document results and the task YAML against the task specs."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

from abductive_tasks.compat import tasks_path
from abductive_tasks.inputs import images
from abductive_tasks.inputs.images import compose_labelled, load_image
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.mucr import data, hooks, prompts
from abductive_tasks.scoring import judge
from abductive_tasks.scoring.judge import JudgeResult

from helpers.specs import evaluate, records, script_judge

LOADED = data.load(SAMPLE_ROOT / "mucr")
ITEMS = LOADED.items
BY_ID = {item["item_id"]: item for item in ITEMS}
YAML_ROOT = tasks_path() / "mucr"  # the installed task folder (the wheel ships yaml_tasks/ as abductive_tasks.tasks)
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"


# ---------------------------------------------------------------- documents and visuals


def test_image_documents_hold_the_gold_among_four_shuffled_candidates():
    for builder, answer in ((hooks.c2e_docs_from, "effect_image"), (hooks.e2c_docs_from, "cause_image")):
        docs = builder(LOADED)
        positions = [doc["gold_position"] for doc in docs]
        assert len(set(positions)) > 1  # the gold is not always in the same place
        for doc in docs:
            assert sorted(doc["candidate_ids"]) == sorted([doc["item_id"], *BY_ID[doc["item_id"]]["distractors"]])
            assert doc["candidate_images"] == [BY_ID[pair][answer] for pair in doc["candidate_ids"]]
            assert doc["candidate_ids"][doc["gold_position"] - 1] == doc["item_id"]
            assert doc["image_paths"][1:] == doc["candidate_images"] and len(doc["panel_labels"]) == 5
        assert builder(LOADED)[:] == docs[:]  # deterministic


def test_cue_options_are_shuffled_per_item():
    docs = hooks.cue_docs_from(LOADED)
    for doc, item in zip(docs, ITEMS, strict=True):
        assert sorted(doc["options"]) == sorted([item["cue"], *item["false_cues"]])
        assert doc["options"][doc["gold_position"] - 1] == item["cue"]
    assert len({doc["gold_position"] for doc in docs}) > 1
    prompt = hooks.doc_to_text_cue_split(docs[0])
    assert "\n1. " + docs[0]["options"][0] in prompt and "\n4. " + docs[0]["options"][3] in prompt


def test_exp_documents_offer_other_pairs_annotations_to_baselines():
    docs = hooks.exp_docs_from(LOADED)
    assert docs[0]["choices"] == [BY_ID[pair]["references"][0] for pair in BY_ID["0"]["distractors"]]
    assert BY_ID["0"]["references"][0] not in docs[0]["choices"]
    assert '"speeding"' in hooks.doc_to_text_exp_composite(docs[0])


def test_prompts_as_the_readme_prints_them():
    doc = hooks.c2e_docs_from(LOADED)[0]
    assert hooks.doc_to_text_c2e_split(doc) == (
        "The first image shows a cause. "
        "The next four images are candidate effect images, Option 1 to Option 4 in order. "
        "Which option shows the effect of the first image? "
        "Answer with the option number (1, 2, 3 or 4) first, then explain."
    )
    assert hooks.doc_to_text_e2c_composite(doc).startswith(
        'The image shows five pictures side by side. The first, labelled "Effect image"'
    )
    exp = hooks.exp_docs_from(LOADED)[0]
    assert hooks.doc_to_text_exp_split(exp).startswith(
        "The first image shows a cause and the second image shows its effect. "
        'The cue phrase linking them is "speeding".'
    )
    assert hooks.doc_to_text_exp_split(exp).endswith(
        "Answer in three lines:\nCause image: <description>\nEffect image: <description>\nCausal link: <explanation>"
    )


def test_composite_has_labelled_panels_and_split_keeps_images_apart():
    doc = hooks.c2e_docs_from(LOADED)[0]
    (composite,) = hooks.doc_to_visual_composite(doc)
    panels = [load_image(path) for path in doc["image_paths"]]
    height = max(panel.height for panel in panels)
    assert composite.height > height  # the caption strip
    assert composite.width == sum(round(p.width * height / p.height) for p in panels) + 8 * 4
    assert compose_labelled(tuple(doc["image_paths"]), tuple(doc["panel_labels"])) is composite  # cached
    strip = composite.crop((0, 0, composite.width, composite.height - height)).convert("L")
    assert strip.getextrema()[0] < 100  # dark caption text on white
    assert hooks.doc_to_visual_split(doc) == panels
    with pytest.raises(ValueError, match="5 images but 2 labels"):
        compose_labelled(tuple(doc["image_paths"]), ("a", "b"))


def test_each_image_is_decoded_once_on_first_use_not_at_loading(monkeypatch, tmp_path, decoded_files):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    images.clear_cache()
    data.clear_cache()
    loaded = data.load(SAMPLE_ROOT / "mucr")  # loading checks every image (and rejects bad ones)
    assert decoded_files == []
    for docs in (hooks.c2e_docs_from(loaded), hooks.e2c_docs_from(loaded), hooks.cue_docs_from(loaded)):
        for doc in docs:
            hooks.doc_to_visual_split(doc)
            hooks.doc_to_visual_composite(doc)
    assert len(decoded_files) == len(set(decoded_files)) == 2 * len(loaded.items)
    data.clear_cache()


# ---------------------------------------------------------------- choice answers


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("3. The fin is visible.", 3),
        ("Answer: 2", 2),
        ("speeding", 2),
        ("The cue is police officer.", 4),
        ("car and road", None),
        ("no idea", None),
    ],
)
def test_cue_answers_by_number_or_phrase(answer, expected):
    assert hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]}).read(answer) == expected


def test_option_phrase_inside_a_longer_option_is_not_a_second_match():
    assert hooks.cue_answer({"options": ["cold", "catch cold", "wet", "rain"]}).read("I think catch cold.") == 2


def test_choice_results_hand_computed():
    docs = hooks.c2e_docs_from(LOADED).select(range(4))
    golds = [doc["gold_position"] for doc in docs]
    answers = [f"{golds[0]}.", "no idea", f"Option {golds[2] % 4 + 1}", f"Answer: {golds[3]}"]
    kept = records(hooks.process_results_c2e, docs, answers)
    assert [r["correct"] for r in kept] == [True, False, False, True]
    assert [r["answer_status"] for r in kept] == ["parsed", "unparsable", "parsed", "parsed"]
    values = evaluate(hooks.C2E, hooks.process_results_c2e, docs, answers)
    assert values["c2e_accuracy"] == 0.5
    assert values["c2e_counts"] == {
        "documents": 4,
        "items_scored": 4,
        "no_link_id": 1,  # the sample's pair 10 (the loaded data's count, whichever documents are scored)
        "candidates_link_id": 4,
        "candidates_seeded": 0,
        "unparsable": 1,
        "request_failed": 0,
        "judge_extracted": 0,
    }
    # Pairs 0, 1 photograph; 2, 3 comic; all human.
    by_style = {label: (cell["acc"], cell["n"]) for label, cell in values["c2e_acc_by_style"].items()}
    assert by_style == {"comic": (0.5, 2), "photograph": (0.5, 2)}
    assert values["c2e_acc_by_label"]["human"]["acc"] == 0.5 and values["c2e_acc_by_label"]["human"]["n"] == 4
    assert values["c2e_acc_by_label"]["human"]["lower"] <= 0.5 <= values["c2e_acc_by_label"]["human"]["upper"]
    assert values["c2e_ci95"]["c2e_accuracy"]["units"] == 4 and values["c2e_ci95"]["c2e_accuracy"]["chance"] == 0.25
    everything = evaluate(hooks.C2E, hooks.process_results_c2e_split, hooks.c2e_docs_from(LOADED), ["1"] * 12)
    assert everything["c2e_counts"]["candidates_link_id"] == 9 and everything["c2e_counts"]["candidates_seeded"] == 3


@pytest.mark.parametrize(
    "reply", [FAILED, "[LMMS_EVAL_REQUEST_FAILED after 5 retries] Error code: 400 - Invalid image 2", " ", "", None]
)
def test_a_failed_request_is_never_a_choice(reply):
    for spec, process, docs in (
        (hooks.C2E, hooks.process_results_c2e, hooks.c2e_docs_from(LOADED)),
        (hooks.E2C, hooks.process_results_e2c_split, hooks.e2c_docs_from(LOADED)),
        (hooks.CUE, hooks.process_results_cue, hooks.cue_docs_from(LOADED)),
    ):
        values = evaluate(spec, process, docs, [reply] * len(docs))
        assert values[spec.metrics[0].name] == 0.0  # <level>_accuracy
        assert values[spec.counts_metric]["request_failed"] == 12 and values[spec.counts_metric]["unparsable"] == 0


# ---------------------------------------------------------------- Exp


LABELLED = "Cause image: a man drives fast. Effect image: he gets a ticket. Causal link: speeding caused the ticket."
PART_SCORES = {
    "cause image (the first": "Score: 6",
    "effect image (the second": "7/10",
    "causal link between": "Score: 9",
}
EXP_DOCS = hooks.exp_docs_from(LOADED)


def _scripted_judge(prompts_seen: list[str], fail_when: str | None = None):
    def ask(prompt, parse, *, system=None, max_tokens=256):
        prompts_seen.append(prompt)
        if fail_when and fail_when in prompt and "causal link between" in prompt:
            return JudgeResult(judge.JUDGE_FAILED, None, None)
        reply = (
            "Score: 10"
            if "speed" in prompt and "cause image (the first" in prompt
            else next(v for k, v in PART_SCORES.items() if k in prompt)
        )
        value = parse(reply)
        return JudgeResult(judge.OK if value is not None else judge.UNPARSABLE, value, reply)

    return ask


def test_exp_scores_from_a_scripted_judge(monkeypatch):
    prompts_seen: list[str] = []
    monkeypatch.setattr(judge, "judge_configured", lambda: True)
    script_judge(monkeypatch, _scripted_judge(prompts_seen, fail_when="fox"))
    values = evaluate(hooks.EXP, hooks.process_results_exp, EXP_DOCS, [LABELLED] * 12)
    assert len(prompts_seen) == 36
    cause_prompt = prompts_seen[0]
    assert cause_prompt == prompts.judge_prompt(
        0, "a man drives fast.", [ref.split(". In the second")[0] + "." for ref in BY_ID["0"]["references"]]
    )
    assert (
        "a man drives fast." in cause_prompt
        and "1. In the first image, the man drove his car at an excessive speed." in cause_prompt
    )
    assert (
        "3. In the first image" in cause_prompt
        and "second image" not in cause_prompt.split("Human references:")[1].split("Model")[0]
    )
    # Pairs 0-3 (speeding) score 10 on the cause part, the others 6; the fox pair (11) fails on the link.
    counts = values["exp_counts"]
    assert counts["items_judged"] == 11 and counts["items_judge_failed"] == 1 and counts["items_judge_unparsable"] == 0
    assert values["exp_s1"] == pytest.approx((4 * 10 + 7 * 6) / 11)
    assert values["exp_s2"] == pytest.approx(7.0) and values["exp_s3"] == pytest.approx(9.0)
    assert values["exp_score"] == pytest.approx(0.25 * (82 / 11) + 0.25 * 7 + 0.5 * 9)
    assert values["exp_score"] == pytest.approx(
        0.25 * values["exp_s1"] + 0.25 * values["exp_s2"] + 0.5 * values["exp_s3"], abs=1e-12
    )
    assert (
        values["exp_ci95"]["exp_score"]["units"] == 11
        and values["exp_ci95"]["exp_score"]["lower"] <= values["exp_score"] <= values["exp_ci95"]["exp_score"]["upper"]
    )
    assert values["exp_offline_score"] is None and counts["items_offline_scored"] == 0
    assert values["exp_unlabelled_rate"] == 0.0 and counts["items_scored"] == 12


def test_exp_unparsable_judge_reply_and_empty_part(monkeypatch):
    monkeypatch.setattr(judge, "judge_configured", lambda: True)
    replies = iter(["no score here", "Score: 1", "Score: 2", "Score: 5", "Score: 8"])

    def ask(prompt, parse, **kwargs):
        reply = next(replies)
        return JudgeResult(judge.OK if parse(reply) is not None else judge.UNPARSABLE, parse(reply), reply)

    script_judge(monkeypatch, ask)
    doc = EXP_DOCS[0]
    answers = [LABELLED, "Cause image: Effect image: a ticket. Causal link: speeding."]
    unreadable, empty_cause = records(hooks.process_results_exp, [doc, doc], answers)
    assert unreadable["s1_status"] == judge.UNPARSABLE and empty_cause["s1"] == 0.0  # no judge call for an empty part
    values = hooks.EXP.evaluate([unreadable, empty_cause])
    assert values["exp_counts"]["items_judge_unparsable"] == 1 and values["exp_counts"]["items_judged"] == 1
    assert values["exp_score"] == pytest.approx(0.25 * 0 + 0.25 * 5 + 0.5 * 8)


def test_a_failed_exp_request_scores_zero_without_asking_the_judge(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(judge, "judge_configured", lambda: True)
    script_judge(monkeypatch, _scripted_judge(asked))
    replies = [FAILED] * 6 + [LABELLED] * 6  # pairs 0-5 fail, 6-11 answer
    values = evaluate(hooks.EXP, hooks.process_results_exp, EXP_DOCS, replies)
    assert len(asked) == 18  # only the six answers' three parts
    failed = records(hooks.process_results_exp, EXP_DOCS.select([0]), [FAILED])[0]
    assert (failed["s1"], failed["s1_status"], failed["labelled"], failed["answer_status"]) == (
        0.0,
        "request_failed",
        None,
        "request_failed",
    )
    counts = values["exp_counts"]
    assert counts["request_failed"] == 6 and counts["items_judged"] == 12 and counts["unparsable"] == 0
    # Answered pairs 6-11 (no speeding pair): S1 6, S2 7, S3 9; the failed six count 0.
    assert values["exp_s1"] == pytest.approx(6 * 6 / 12) and values["exp_s3"] == pytest.approx(6 * 9 / 12)
    assert values["exp_score"] == pytest.approx((0.25 * 6 + 0.25 * 7 + 0.5 * 9) / 2)
    assert values["exp_unlabelled_rate"] == 0.0  # over the six answers


def test_exp_without_judge_reports_offline_similarity(monkeypatch):
    seen = []

    def similarity(candidate, references, what):
        seen.append(references)
        return {"a man drives fast.": 0.2, "he gets a ticket.": 0.4, "speeding caused the ticket.": 0.8}[candidate]

    monkeypatch.setattr(judge, "offline_similarity", similarity)
    values = evaluate(hooks.EXP, hooks.process_results_exp, EXP_DOCS, [LABELLED] * 12)
    assert seen[1] == [
        ref.split(". ")[1] + "." for ref in BY_ID["0"]["references"]
    ]  # the effect parts of the annotations
    assert values["exp_s1"] is None and values["exp_score"] is None and values["exp_counts"]["items_judged"] == 0
    assert values["exp_offline_s1"] == pytest.approx(0.2) and values["exp_offline_s3"] == pytest.approx(0.8)
    assert values["exp_offline_score"] == pytest.approx(0.25 * 0.2 + 0.25 * 0.4 + 0.5 * 0.8)
    assert values["exp_counts"]["items_offline_scored"] == 12 and "exp_s1" not in values["exp_ci95"]


@pytest.mark.parametrize(("unavailable", "scored"), [(None, 12), ("no sentence-embedding model", 6)])
def test_a_failed_exp_request_without_judge_scores_zero_only_where_the_similarity_model_is(
    monkeypatch, unavailable, scored
):
    # Answered parts score 0.5 in both cases (stubbed);
    # a failed request's empty parts score 0 only when the model is there.
    monkeypatch.setattr(judge, "offline_similarity", lambda candidate, references, what: 0.5)
    monkeypatch.setattr(judge, "similarity_unavailable_reason", lambda: unavailable)
    values = evaluate(hooks.EXP, hooks.process_results_exp, EXP_DOCS, [FAILED] * 6 + [LABELLED] * 6)
    assert values["exp_counts"]["items_offline_scored"] == scored and values["exp_counts"]["request_failed"] == 6
    assert values["exp_offline_score"] == pytest.approx(0.5 * 6 / scored)


def test_offline_similarity_with_a_real_embedder(monkeypatch, tmp_path):
    pytest.importorskip("sentence_transformers")
    from helpers.tiny_embedder import build_tiny_embedder

    monkeypatch.setenv("ABDUCTIVE_SIMILARITY_MODEL", str(build_tiny_embedder(tmp_path / "embedder")))
    doc = EXP_DOCS[0]
    values = evaluate(
        hooks.EXP, hooks.process_results_exp, [doc], [doc["references"][1]]
    )  # an annotation scores itself 1
    assert values["exp_offline_score"] == pytest.approx(1.0, abs=1e-5)


# ---------------------------------------------------------------- the YAML names what the specs define


class _TaskLoader(yaml.SafeLoader):
    pass


_TaskLoader.add_constructor("!function", lambda loader, node: ("!function", loader.construct_scalar(node)))


def _task_config(path: Path) -> dict:
    config = yaml.load(path.read_text(), Loader=_TaskLoader)
    if "include" in config:
        config = _task_config(path.parent / config.pop("include")) | config
    return config


TASKS = {
    f"mucr_{level}{form}": (spec, aggregation)
    for level, spec, aggregation in (
        ("c2e", hooks.C2E, "aggregate_c2e"),
        ("e2c", hooks.E2C, "aggregate_e2c"),
        ("cue", hooks.CUE, "aggregate_cue"),
        ("exp", hooks.EXP_OWN, "aggregate_exp_own"),  # Eq. 5: the model's own picks, every pair counted
        ("exp_gold", hooks.EXP, "aggregate_exp"),  # the gold-conditioned upper bound
    )
    for form in ("", "_split")
}


@pytest.mark.parametrize("task", sorted(TASKS))
def test_yaml_metric_list_is_the_spec(task):
    """Versions agree with the README changelog in tests/test_snapshots.py."""
    (spec, aggregation), config = TASKS[task], _task_config(YAML_ROOT / f"{task}.yaml")
    assert config["task"] == task
    assert [entry["metric"] for entry in config["metric_list"]] == list(spec.metric_names)
    for entry in config["metric_list"]:
        assert entry["aggregation"] == ("!function", f"abductive_tasks.mucr.{aggregation}")
        assert entry["higher_is_better"] is spec.higher_is_better(entry["metric"])
    functions = [value[1] for value in config.values() if isinstance(value, tuple)] + [
        entry["aggregation"][1] for entry in config["metric_list"]
    ]
    for name in functions:
        module, _, attribute = name.rpartition(".")
        assert callable(getattr(importlib.import_module(module), attribute)), name
    reader = config["process_results"][1].rpartition(".")[2]
    assert getattr(hooks, reader).__qualname__ == f"{spec.name}.process_results"
    names = spec.metric_names
    assert not [(a, b) for a in names for b in names if a != b and a in b]  # lmms-eval matches metrics by substring
