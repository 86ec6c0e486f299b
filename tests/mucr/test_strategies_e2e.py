"""End-to-end lmms-eval runs of the MuCR Table 2 strategy variants on the embedded sample."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from abductive_tasks.cli import main
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.mucr import data, hooks, scene_graphs, strategies

from helpers.runs import count, metric, read_results, read_samples
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e

LOADED = data.load(SAMPLE_ROOT / "mucr")
ITEMS = list(LOADED.items)
LEVELS = ("c2e", "e2c", "cue", "exp")
CHOICE_LEVELS = ("c2e", "e2c", "cue")
HEADLINE = {"c2e": "c2e_accuracy", "e2c": "e2c_accuracy", "cue": "cue_accuracy"}


def run(tmp_path: Path, monkeypatch, name: str, *args: str) -> tuple[dict, Path]:
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / name
    assert main([*args, "--log_samples", "--output_path", str(output)]) == 0
    return read_results(output), output


def test_cot_icl_mmicl_run_and_score_as_their_base_tasks(tmp_path, monkeypatch):
    groups = "mucr_cot,mucr_icl,mucr_mmicl,mucr_c2e,mucr_e2c,mucr_cue"
    results, output = run(tmp_path, monkeypatch, "out", "--model", "dumb_pixel", "--tasks", groups)
    # Second stage: each strategy's Exp explains the picks of the same strategy's C2E and Cue runs.
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(output))
    exp_tasks = "mucr_exp_cot,mucr_exp_icl,mucr_exp_mmicl"
    explained, _ = run(tmp_path, monkeypatch, "explain", "--model", "dumb_pixel", "--tasks", exp_tasks)
    for strategy in ("cot", "icl", "mmicl"):
        for level in LEVELS:
            task, base = f"mucr_{level}_{strategy}", f"mucr_{level}"
            if level == "exp":  # another pair's annotation, no judge: only the offline counts
                assert count(explained, task, "documents") == 12 and count(explained, task, "unparsable") == 0
                assert count(explained, task, "items_scored") == 12 and metric(explained, task, "exp_score") is None
                assert count(explained, task, "items_missing_upstream") == 0
                for pick, picked in (("effect", "c2e"), ("cue", "cue")):
                    accuracy = metric(results, f"mucr_{picked}_{strategy}", f"{picked}_accuracy")
                    assert count(explained, task, f"items_{pick}_pick_wrong") == pytest.approx(12 - 12 * accuracy)
            else:  # dumb_pixel answers from the document, so the strategy changes the prompt and nothing else
                assert count(results, task, "documents") == 12 and count(results, task, "unparsable") == 0
                assert metric(results, task, HEADLINE[level]) == metric(results, base, HEADLINE[level])
    assert metric(results, "mucr_c2e_cot", "c2e_accuracy") == 0.25
    assert metric(results, "mucr_cue_mmicl", "cue_accuracy") == pytest.approx(2 / 12)
    assert count(explained, "mucr_exp_mmicl", "items_cue_pick_wrong") == 10
    prompts = {sample["doc_id"]: sample["input"] for sample in read_samples(output, "mucr_cue_cot")}
    assert len(prompts) == 12 and all(text.endswith("\nLet's think step by step.") for text in prompts.values())
    icl = read_samples(output, "mucr_e2c_icl")
    assert all(sample["input"].count("Answer: Option ") == 2 for sample in icl)


def test_ccot_two_runs_store_then_use_the_scene_graphs(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ABDUCTIVE_MUCR_SCENE_GRAPHS", "random-0")
    stage1, _ = run(tmp_path, monkeypatch, "graphs", "--model", "random_baseline", "--tasks", "mucr_ccot_graph")
    for level in CHOICE_LEVELS:
        assert metric(stage1, f"mucr_{level}_ccot_graph", "scene_graph_rate") == 1.0
        assert count(stage1, f"mucr_{level}_ccot_graph", "stored") == 12
    assert set(stage1) == {"mucr_ccot_graph", *(f"mucr_{level}_ccot_graph" for level in CHOICE_LEVELS)}
    assert len(list(scene_graphs.folder("random-0").glob("*.json"))) == 36
    # Pair 0's cue graph goes missing: the second stage does not ask that pair and counts it as wrong.
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    cue_docs = hooks.cue_docs_from(LOADED)
    graph_key = strategies.scene_graph_key("cue", cue_docs[0])
    (scene_graphs.folder("random-0") / f"{graph_key}.json").unlink()
    stage2, output = run(tmp_path, monkeypatch, "answers", "--model", "random_baseline", "--tasks", "mucr_ccot")
    assert count(stage2, "mucr_cue_ccot", "documents") == 11
    assert count(stage2, "mucr_cue_ccot", "items_missing_upstream") == 1
    assert count(stage2, "mucr_cue_ccot", "items_scored") == 12  # the pair without a graph counts, as wrong
    for level in ("c2e", "e2c"):
        assert count(stage2, f"mucr_{level}_ccot", "documents") == 12
        assert count(stage2, f"mucr_{level}_ccot", "items_missing_upstream") == 0
    # random_baseline picks from the document, seeded by task and document: the C2E accuracy by hand.
    c2e_docs = hooks.c2e_docs_from(LOADED)
    picks = [random.Random(f"0:mucr_c2e_ccot:{doc_id}").choice(doc["choices"]) for doc_id, doc in enumerate(c2e_docs)]
    right = sum(int(pick) == doc["gold_position"] for pick, doc in zip(picks, c2e_docs, strict=True))
    assert metric(stage2, "mucr_c2e_ccot", "c2e_accuracy") == pytest.approx(right / 12)
    # The prompt carries the stage-1 reply random_baseline gave the same pair: "<option>. Chosen at random."
    stage1_pick = random.Random("0:mucr_c2e_ccot_graph:0").choice(c2e_docs[0]["choices"])
    (first,) = [sample for sample in read_samples(output, "mucr_c2e_ccot") if sample["doc_id"] == 0]
    assert first["input"].startswith(
        f"Scene Graph: {stage1_pick}. Chosen at random.\n\n"
        "Use the image and scene graph as context and answer the following question: The image shows five pictures"
    )
    # Exp's two stages explain stage 2's picks: pair 0 has no cue pick (no cue graph), so it is not asked, and counts.
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(output))
    stage3, _ = run(tmp_path, monkeypatch, "exp-graphs", "--model", "random_baseline", "--tasks", "mucr_exp_ccot_graph")
    assert metric(stage3, "mucr_exp_ccot_graph", "scene_graph_rate") == pytest.approx(11 / 12)
    assert count(stage3, "mucr_exp_ccot_graph", "stored") == 11
    stage4, _ = run(tmp_path, monkeypatch, "exp", "--model", "random_baseline", "--tasks", "mucr_exp_ccot")
    counts = metric(stage4, "mucr_exp_ccot", "exp_counts")
    assert (counts["documents"], counts["items_scored"], counts["items_missing_upstream"]) == (11, 12, 1)
    assert (counts["cue_picks_missing"], counts["c2e_picks_missing"]) == (1, 0)
    assert counts["c2e_picks_unreadable"] == counts["cue_picks_unreadable"] == 0
    wrong = sum(int(pick) != doc["gold_position"] for pick, doc in list(zip(picks, c2e_docs, strict=True))[1:])
    assert counts["items_effect_pick_wrong"] == wrong  # the effect images mucr_c2e_ccot picked for pairs 1-11


def test_mmicl_requests_carry_the_shot_images(tmp_path, monkeypatch, llava_images_per_call):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    args = ["--model", "llava_hf", "--model_args", f"pretrained={model_dir},device_map=cpu,device=cpu"]
    args += ["--gen_kwargs", "max_new_tokens=4", "--tasks", "mucr_c2e_mmicl,mucr_cue_icl"]
    results, _ = run(tmp_path, monkeypatch, "out", *args)
    # MMICL: two shot composites and the question's composite per prompt; ICL: the question's composite only.
    assert Counter(llava_images_per_call) == {3: 12, 1: 12}
    for task in ("mucr_c2e_mmicl", "mucr_cue_icl"):
        assert count(results, task, "documents") == 12 and count(results, task, "request_failed") == 0
