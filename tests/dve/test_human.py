"""dve_human: the test split's human-written updates scored by the inference-aware evaluator (the paper's human row,
5.0998 for strengtheners and -4.5412 for weakeners), checked against the evaluator called directly."""

from __future__ import annotations

import numpy as np
import pytest

from abductive_tasks.dve import data, evaluator, hooks, metrics
from abductive_tasks.inputs.images import load_image
from abductive_tasks.inputs.loading import SAMPLE_ROOT

from helpers.dve_tiny_models import tiny_metric_env
from helpers.runs import abductive_eval, count, metric, read_results, read_samples
from helpers.specs import evaluate

LOADED = data.load(SAMPLE_ROOT / "dve", "test")
DOCS = hooks.human_docs_from(LOADED)


def test_one_document_per_usable_human_update():
    assert len(DOCS) == len(LOADED.items) == 17  # 21 rows less 4 impossible
    assert list(DOCS["update"]) == list(LOADED.items["update"])
    assert list(DOCS["update_type"]) == list(LOADED.items["update_type"])
    doc = DOCS[0]
    assert hooks.doc_to_text_human(doc) == (
        "You are a helpful assistant that generates updates to impact hypotheses based on given premises.\n"
        "Consider this image as a premise.\n"
        f"Hypothesis: {doc['hypothesis']}\n"
        f"Goal: {doc['update_type']}\n"
        "Based on the goal, generate an update that:\n"
        "- Strengthens the hypothesis if the goal is a strengthener.\n"
        "- Weakens the hypothesis if the goal is a weakener.\n"
        "Ensure the update is logically consistent with the image premise.\n"
        "Please provide only the update. Do not include any other information."
    )


def test_without_evaluator_weights_the_metrics_are_not_computed(monkeypatch):
    monkeypatch.setenv(evaluator.WEIGHTS_ENV, "off")
    values = evaluate(hooks.HUMAN, hooks.process_results_human, list(DOCS), ["whatever"] * len(DOCS))
    assert values["dve_human_evaluator_strengthener"] is None and values["dve_human_success_all"] is None
    assert values["dve_human_counts"]["evaluator_computed"] is False
    assert values["dve_human_counts"]["updates"] == 17 and values["dve_human_counts"]["pairs"] == 6


@pytest.mark.e2e
def test_the_human_row_is_the_evaluators_mean_of_the_human_updates(tmp_path, monkeypatch):
    """The reply is not read: random_baseline answers, and the figures are the evaluator's scores of the documents'
    own updates (against their pair's caption for the success rate)."""
    env = tiny_metric_env(tmp_path / "models")
    output = tmp_path / "out"
    run = abductive_eval(["--model", "random_baseline", "--tasks", "dve_human", "--log_samples"], output, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    results = read_results(output)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    evaluator.load_scorer.cache_clear()
    try:
        images = [load_image(path) for path in DOCS["image_path"]]
        scores, _ = evaluator.configured_scorer().predict(
            images * 2, list(DOCS["hypothesis"]) * 2, list(DOCS["update"]) + list(DOCS["premise"])
        )
    finally:
        evaluator.load_scorer.cache_clear()
    update, caption = scores[: len(DOCS)], scores[len(DOCS) :]
    types = np.array(DOCS["update_type"])
    assert metric(results, "dve_human", "dve_human_evaluator_strengthener") == pytest.approx(
        update[types == "strengthener"].mean(), abs=1e-5
    )
    assert metric(results, "dve_human", "dve_human_evaluator_weakener") == pytest.approx(
        update[types == "weakener"].mean(), abs=1e-5
    )
    passed = metrics.success(types, update, caption)
    assert metric(results, "dve_human", "dve_human_success_all") == pytest.approx(passed.mean())
    assert metric(results, "dve_human", "dve_human_success_weakener") == pytest.approx(
        passed[types == "weakener"].mean()
    )
    assert count(results, "dve_human", "evaluator_computed") is True
    assert count(results, "dve_human", "impossible_excluded") == 4
    replies = {str(sample["filtered_resps"]) for sample in read_samples(output, "dve_human")}
    assert len(replies) == 1 and "An update." in replies.pop()  # the baseline's placeholder, never scored
