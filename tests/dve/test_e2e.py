"""End-to-end lmms-eval runs of dve_cls and dve_gen on the embedded sample (ABDUCTIVE_DATA=sample)."""

from __future__ import annotations

import os
import random
from collections import Counter

import numpy as np
import pytest

from abductive_tasks import dve
from abductive_tasks.cli import main
from abductive_tasks.data import SAMPLE_ROOT
from abductive_tasks.dve import evaluator, metrics
from abductive_tasks.images import load_image, top_left_luminance

from helpers.dve_tiny_models import tiny_metric_env
from helpers.runs import abductive_eval, metric, read_results
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e

SPLIT = dve.load_split(SAMPLE_ROOT / "dve", "test")
CLS_DOCS = dve.cls_docs_from(SPLIT)
GEN_DOCS = dve.gen_docs_from(SPLIT)
GOALS = np.array(GEN_DOCS["goal"])


def run_ok(tmp_path, *args: str, env: dict | None = None) -> dict:
    completed = abductive_eval(list(args), tmp_path / "out", env=env)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    return read_results(tmp_path / "out")


def assert_lexical_metrics(results: dict, predictions: list[str]) -> None:
    """ROUGE-L and BLEU-4 per goal and overall, from the hand-checked kernels on the same answers."""
    references = GEN_DOCS["references"]
    rouge = metrics.rouge_l(predictions, references)
    for part, mask in (("all", np.ones(len(GOALS), bool)), ("strengthener", GOALS == "strengthener"), ("weakener", GOALS == "weakener")):
        assert metric(results, "dve_gen", f"dve_rouge_l_{part}") == pytest.approx(rouge[mask].mean())
        chosen = np.flatnonzero(mask)
        assert metric(results, "dve_gen", f"dve_bleu4_{part}") == pytest.approx(metrics.bleu4([predictions[i] for i in chosen], [references[i] for i in chosen]))


def assert_counts(results: dict) -> None:
    assert metric(results, "dve_cls", "dve_cls_scored") == 17
    assert metric(results, "dve_cls", "dve_cls_impossible_excluded") == 4
    assert metric(results, "dve_gen", "dve_gen_scored") == 11
    assert metric(results, "dve_gen", "dve_gen_impossible_excluded") == 4
    assert metric(results, "dve_gen", "dve_gen_goals_skipped") == 1


def test_dummy_with_every_metric_on_tiny_models(tmp_path, monkeypatch):
    env = tiny_metric_env(tmp_path / "models")
    answer = "Weakener. The ball bounces once."
    results = run_ok(tmp_path, "--model", "dummy", "--model_args", f"response={answer}", "--tasks", "dve", env=env)
    assert_counts(results)
    # Always "weakener": right on the 8 weakeners of 17 updates.
    assert metric(results, "dve_cls", "dve_accuracy") == pytest.approx(8 / 17)
    assert metric(results, "dve_cls", "dve_by_update_type") == {"strengthener": {"acc": 0.0, "n": 9}, "weakener": {"acc": 1.0, "n": 8}}
    assert metric(results, "dve_cls", "parse_failure_rate") == 0.0
    predictions = [answer] * len(GEN_DOCS)
    assert_lexical_metrics(results, predictions)
    # The dog pair's weakener: LCS 4 of 5 answer tokens and of all 4 reference tokens: F = 2 * 0.8 * 1 / 1.8.
    assert metrics.rouge_l([answer], [["The ball bounces once."]])[0] == pytest.approx(8 / 9)
    assert metric(results, "dve_gen", "dve_gen_not_computed") == "none"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    evaluator.configured_scorer.cache_clear()
    try:
        images = [load_image(path) for path in GEN_DOCS["image_path"]]
        update, _ = evaluator.configured_scorer().predict(images, GEN_DOCS["hypothesis"], predictions)
        caption, _ = evaluator.configured_scorer().predict(images, GEN_DOCS["hypothesis"], GEN_DOCS["premise"])
    finally:
        evaluator.configured_scorer.cache_clear()
    success = np.where(GOALS == "strengthener", update > caption, update < caption)
    assert metric(results, "dve_gen", "dve_evaluator_strengthener") == pytest.approx(update[GOALS == "strengthener"].mean(), abs=1e-5)
    assert metric(results, "dve_gen", "dve_evaluator_weakener") == pytest.approx(update[GOALS == "weakener"].mean(), abs=1e-5)
    assert metric(results, "dve_gen", "dve_success_all") == pytest.approx(success.mean())
    for name in ("dve_bertscore_all", "dve_bertscore_weakener", "dve_clipscore_all", "dve_clipscore_strengthener"):
        assert 0.0 <= metric(results, "dve_gen", name) <= 1.0


def test_random_baseline_without_models_reports_them_not_computed(tmp_path):
    results = run_ok(tmp_path, "--model", "random_baseline", "--model_args", "seed=0", "--tasks", "dve_cls,dve_gen")
    assert_counts(results)
    picks = [random.Random(f"0:dve_cls:{i}").choice(doc["choices"]) for i, doc in enumerate(CLS_DOCS)]
    expected = np.mean([pick == doc["update_type"] for pick, doc in zip(picks, CLS_DOCS, strict=True)])
    assert metric(results, "dve_cls", "dve_accuracy") == pytest.approx(expected)
    assert metric(results, "dve_cls", "parse_failure_rate") == 0.0
    predictions = [random.Random(f"0:dve_gen:{i}").choice(doc["choices"]) for i, doc in enumerate(GEN_DOCS)]
    assert_lexical_metrics(results, predictions)
    for name in ("dve_bertscore_all", "dve_clipscore_all", "dve_evaluator_strengthener", "dve_evaluator_weakener", "dve_success_all"):
        assert metric(results, "dve_gen", name) is None
    assert metric(results, "dve_gen", "dve_gen_not_computed") == "bertscore, clipscore, evaluator"


def test_dumb_pixel(tmp_path):
    results = run_ok(tmp_path, "--model", "dumb_pixel", "--tasks", "dve", env={metrics.BERTSCORE_ENV: "off", metrics.CLIP_ENV: "off", evaluator.WEIGHTS_ENV: "off"})
    assert_counts(results)
    # Both options show the same image: a tie, so the first option, strengthener, every time (9 of 17).
    assert metric(results, "dve_cls", "dve_accuracy") == pytest.approx(9 / 17)
    assert metric(results, "dve_cls", "dve_by_update_type")["weakener"] == {"acc": 0.0, "n": 8}
    brightness = [top_left_luminance(doc["image_path"]) for doc in GEN_DOCS]
    predictions = [doc["choices"][min(int(b / 256 * len(doc["choices"])), len(doc["choices"]) - 1)] for b, doc in zip(brightness, GEN_DOCS, strict=True)]
    assert len(set(predictions)) > 3  # the sample's corners spread the picks
    assert_lexical_metrics(results, predictions)


def test_tiny_llava_sees_the_image_premise(tmp_path, monkeypatch, llava_images_per_call):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    for key, value in {"ABDUCTIVE_DATA": "sample", metrics.BERTSCORE_ENV: "off", metrics.CLIP_ENV: "off", evaluator.WEIGHTS_ENV: "off"}.items():
        monkeypatch.setenv(key, value)
    output = tmp_path / "out"
    arguments = ["--model", "llava_hf", "--model_args", f"pretrained={model_dir},device_map=cpu,device=cpu", "--tasks", "dve", "--gen_kwargs", "max_new_tokens=4"]
    assert main([*arguments, "--output_path", str(output)]) == 0
    assert Counter(llava_images_per_call) == {1: 17 + 11}  # one image premise per document
    results = read_results(output)
    assert_counts(results)
    assert metric(results, "dve_cls", "parse_failure_rate") == pytest.approx(metric(results, "dve_cls", "unparsable_count") / 17)
    assert 0.0 <= metric(results, "dve_cls", "dve_accuracy") <= 1.0
    assert 0.0 <= metric(results, "dve_gen", "dve_rouge_l_all") <= 1.0
    assert os.environ["ABDUCTIVE_DATA"] == "sample"
