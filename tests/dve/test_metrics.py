"""DVE generation metrics: hand-computed ROUGE-L and BLEU-4, per-goal aggregation, the evaluator's
success rule, and model-based metrics reported as not computed when their weights are missing."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from abductive_tasks import dve
from abductive_tasks.data import SAMPLE_ROOT
from abductive_tasks.dve import evaluator, metrics

from helpers.dve_tiny_models import tiny_metric_env


@pytest.fixture(autouse=True)
def fresh_caches():
    """Model loaders and per-family values are cached per run; each test starts clean."""
    caches = (dve._family_values, evaluator.configured_scorer, metrics._bertscorer, metrics._clip)
    for cached in caches:
        cached.cache_clear()
    yield
    for cached in caches:
        cached.cache_clear()


@pytest.fixture(scope="module")
def tiny_env(tmp_path_factory) -> dict[str, str]:
    return tiny_metric_env(tmp_path_factory.mktemp("dve-tiny"))


def test_rouge_l_by_hand():
    # pred: the dog is a hunting dog (6 tokens); ref 1: a dog is hunting (4): LCS "dog is hunting" = 3,
    # P = 3/6, R = 3/4, F = 0.6; ref 2: the cat: LCS 1, P = 1/6, R = 1/2, F = 0.25. Best: 0.6.
    scores = metrics.rouge_l(["The dog is a hunting dog.", "", "A man is at work."], [["a dog is hunting", "the cat"], ["a man"], ["A man is at work"]])
    assert scores == pytest.approx([0.6, 0.0, 1.0])


def test_bleu4_by_hand():
    # pred/ref: "the dog runs in the park" / "the dog runs in a park": clipped n-gram precisions
    # 5/6, 3/5, 2/4, 1/3 and equal lengths: BLEU = (5/6 * 3/5 * 2/4 * 1/3) ** 0.25.
    assert metrics.bleu4(["the dog runs in the park"], [["the dog runs in a park"]]) == pytest.approx((5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25)
    # A variable number of references per prediction; each prediction matches one exactly.
    assert metrics.bleu4(["the dog runs in the park", "a man is at work today"], [["x y z w", "the dog runs in the park"], ["a man is at work today"]]) == pytest.approx(
        1.0
    )
    assert metrics.bleu4([], []) is None


def _records(predictions: list[str]) -> list[dict]:
    docs = dve.gen_docs_from(dve.load_split(SAMPLE_ROOT / "dve", "test"))
    return [dve.process_results_gen(doc, [prediction])["dve_rouge_l_all"] for doc, prediction in zip(docs, predictions, strict=False)]


def test_per_goal_lexical_metrics_without_any_model(monkeypatch):
    for variable in (metrics.BERTSCORE_ENV, metrics.CLIP_ENV, evaluator.WEIGHTS_ENV):
        monkeypatch.setenv(variable, "off")
    # Documents 0-3: pair 1 strengthener/weakener, pair 2 strengthener/weakener.
    records = _records(["The player is in his thirties.", "cats sleep", "  ", "The ball bounces once."])
    assert [r["goal"] for r in records] == ["strengthener", "weakener", "strengthener", "weakener"]
    # Exact references score 1, "cats sleep" shares no token with its references, the blank answer scores 0.
    assert dve.dve_rouge_l_strengthener(records) == pytest.approx(0.5)
    assert dve.dve_rouge_l_weakener(records) == pytest.approx(0.5)
    assert dve.dve_rouge_l_all(records) == pytest.approx(0.5)
    assert dve.dve_bleu4_strengthener(records) == pytest.approx(
        metrics.bleu4(["The player is in his thirties.", ""], [records[0]["references"], records[2]["references"]])
    )
    assert dve.dve_gen_empty_answers(records) == 1
    assert dve.dve_gen_scored(records) == 4
    assert dve.impossible_excluded(records) == 4
    assert dve.dve_gen_goals_skipped(records) == 1
    for name in ("dve_bertscore_all", "dve_clipscore_weakener", "dve_evaluator_strengthener", "dve_evaluator_weakener", "dve_success_all"):
        assert getattr(dve, name)(records) is None
    assert dve.dve_gen_not_computed(records) == "bertscore, clipscore, evaluator"


def test_missing_weights_are_reported_with_the_reason(monkeypatch, tmp_path):
    monkeypatch.setenv(metrics.BERTSCORE_ENV, str(tmp_path / "no-such-model"))
    with pytest.raises(metrics.MetricUnavailable, match=r"BERTScore model '.*no-such-model' unavailable: .*Set ABDUCTIVE_BERTSCORE_MODEL"):
        metrics.bertscore_f1(["a"], [["b"]])
    monkeypatch.setenv(evaluator.WEIGHTS_ENV, str(tmp_path / "weights.pth"))
    with pytest.raises(evaluator.EvaluatorUnavailable, match=r"cannot load the evaluator \(weights '.*weights.pth'"):
        evaluator.configured_scorer()


class FixedScorer:
    """Stands in for the evaluator: a fixed strength score per text."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores

    def predict(self, images, hypotheses, texts):
        return np.array([self.scores[text] for text in texts]), np.full(len(texts), 0.5)


def test_evaluator_means_and_success_against_the_caption(monkeypatch):
    monkeypatch.setenv(metrics.BERTSCORE_ENV, "off")
    monkeypatch.setenv(metrics.CLIP_ENV, "off")
    records = _records(["s1", "w1", "s2", "w2"])
    captions = {r["premise"]: 1.0 for r in records}
    # Pair 1 caption scores 1.0, pair 2 caption 1.0: s1 above (success), w1 tie (fails),
    # s2 below (fails), w2 below (success).
    scorer = FixedScorer({**captions, "s1": 3.0, "w1": 1.0, "s2": 0.0, "w2": -2.0})
    monkeypatch.setattr(evaluator, "configured_scorer", lambda: scorer)
    assert dve.dve_evaluator_strengthener(records) == pytest.approx(1.5)
    assert dve.dve_evaluator_weakener(records) == pytest.approx(-0.5)
    assert dve.dve_success_strengthener(records) == pytest.approx(0.5)
    assert dve.dve_success_weakener(records) == pytest.approx(0.5)
    assert dve.dve_success_all(records) == pytest.approx(0.5)
    assert dve.dve_gen_not_computed(records) == "bertscore, clipscore"


def test_model_metrics_with_tiny_local_models(monkeypatch, tiny_env):
    for key, value in tiny_env.items():
        monkeypatch.setenv(key, value)
    bert = metrics.bertscore_f1(["the dog chases a rabbit", "", "the man"], [["the dog is a hunting dog", "a ball"], ["the man"], ["the man"]])
    assert bert[1] == 0.0  # empty candidate, as bert-score defines it
    assert bert[2] == pytest.approx(1.0, abs=1e-5)  # identical to its reference
    assert 0.0 < bert[0] <= 1.0
    image = Image.new("RGB", (40, 30), (200, 30, 30))
    clip = metrics.clip_scores([image, image, image], ["the dog chases", "the dog chases", "a man at work"])
    assert clip.shape == (3,) and clip[0] == clip[1] and np.all((clip >= 0) & (clip <= 1))
    records = _records(["The player is in his thirties.", "cats sleep", "The dog is a hunting dog.", "The ball bounces once."])
    assert dve.dve_gen_not_computed(records) == "none"
    assert dve.dve_bertscore_strengthener(records) == pytest.approx(1.0, abs=1e-5)  # both strengtheners are references
    assert dve.dve_clipscore_all(records) is not None
    assert dve.dve_success_all(records) in {0.0, 0.25, 0.5, 0.75, 1.0}
