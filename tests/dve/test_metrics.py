"""DVE metrics: hand-computed ROUGE-L and BLEU-4, BLEU from per-pair sufficient statistics, per-goal
aggregation, the evaluator's success rule, and the model-based families offline first."""

from __future__ import annotations

import random
import shutil
import socket
import sys
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from loguru import logger
from PIL import Image

from abductive_tasks.dve import data, evaluator, hooks, metrics, weights
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.scoring import judge, taskspec

from helpers.dve_tiny_models import TINY_RESNET, tiny_metric_env
from helpers.specs import evaluate

MODEL_VARIABLES = (
    metrics.BERTSCORE_ENV,
    metrics.CLIP_ENV,
    evaluator.WEIGHTS_ENV,
    evaluator.TEXT_ENV,
    evaluator.RESNET_ENV,
    metrics.BERTSCORE_LAYERS_ENV,
)
NOT_COMPUTED = {"bertscore_computed": False, "clipscore_computed": False, "evaluator_computed": False}


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch):
    """Model loaders, the once-per-run log lines and family results are cached per run; each test starts clean."""
    for variable in MODEL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    caches = (evaluator.load_scorer, metrics._bertscorer, metrics._clip)
    for cached in caches:
        cached.cache_clear()
    judge._warned.clear()
    taskspec.clear_cache()
    yield
    for cached in caches:
        cached.cache_clear()
    judge._warned.clear()
    taskspec.clear_cache()


@pytest.fixture(scope="module")
def tiny_env(tmp_path_factory) -> dict[str, str]:
    return tiny_metric_env(tmp_path_factory.mktemp("dve-tiny"))


@pytest.fixture(scope="module")
def gen_docs():
    return hooks.gen_docs_from(data.load(SAMPLE_ROOT / "dve", "test"))


@pytest.fixture
def warnings_logged():
    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(message.record["message"]), level="WARNING")
    yield messages
    logger.remove(sink)


def corpus_bleu4(predictions: list[str], references: list[list[str]]) -> float:
    """BLEU-4 as dve_gen computed it before per-pair statistics (sacrebleu.corpus_bleu / 100)."""
    width = max(len(refs) for refs in references)
    streams = [[refs[i] if i < len(refs) else None for refs in references] for i in range(width)]
    return sacrebleu.corpus_bleu(predictions, streams).score / 100


# ---------------------------------------------------------------- kernels


def test_rouge_l_by_hand():
    # pred: the dog is a hunting dog (6 tokens); ref 1: a dog is hunting (4): LCS "dog is hunting" = 3,
    # P = 3/6, R = 3/4, F = 0.6; ref 2: the cat: LCS 1, P = 1/6, R = 1/2, F = 0.25. Best: 0.6.
    scores = metrics.rouge_l(
        ["The dog is a hunting dog.", "", "A man is at work."],
        [["a dog is hunting", "the cat"], ["a man"], ["A man is at work"]],
    )
    assert scores == pytest.approx([0.6, 0.0, 1.0])


def test_bleu4_by_hand():
    # pred/ref: "the dog runs in the park" / "the dog runs in a park": clipped n-gram precisions
    # 5/6, 3/5, 2/4, 1/3 and equal lengths: BLEU = (5/6 * 3/5 * 2/4 * 1/3) ** 0.25.
    stats = metrics.bleu_statistics(["the dog runs in the park"], [["the dog runs in a park"]])
    assert stats.tolist() == [[6, 6, 5, 3, 2, 1, 6, 5, 4, 3]]  # hypothesis and reference length, matches, totals
    assert metrics.bleu_score(stats.sum(axis=0)) == pytest.approx((5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25)
    # A variable number of references per prediction; each prediction matches one exactly.
    two = metrics.bleu_statistics(
        ["the dog runs in the park", "a man is at work today"],
        [["x y z w", "the dog runs in the park"], ["a man is at work today"]],
    )
    assert metrics.bleu_score(two.sum(axis=0)) == pytest.approx(1.0)
    assert metrics.bleu_statistics([], []).shape == (0, 10)
    # Replicates: a (2, 10) array of summed statistics gives two scores.
    assert metrics.bleu_score(np.stack([stats[0], two.sum(axis=0)])).tolist() == pytest.approx([(1 / 12) ** 0.25, 1.0])


def _random_corpus(rng: random.Random) -> tuple[list[str], list[list[str]]]:
    words = "the a dog man runs park ball is in at work today rabbit hunting .".split()
    sentence = lambda: " ".join(rng.choice(words) for _ in range(rng.randrange(0, 9)))  # noqa: E731
    size = rng.randrange(1, 12)
    return [sentence() for _ in range(size)], [
        [sentence() or "x" for _ in range(rng.randrange(1, 4))] for _ in range(size)
    ]


def test_bleu_of_summed_statistics_is_sacrebleu_corpus_bleu_exactly(gen_docs):
    rng = random.Random(0)
    corpora = [
        _random_corpus(rng) for _ in range(300)
    ]  # short sentences: zero 3-/4-gram matches, exp smoothing, empty hypotheses
    corpora.append(([doc["choices"][0] for doc in gen_docs], gen_docs["references"]))
    for predictions, references in corpora:
        assert metrics.bleu_score(metrics.bleu_statistics(predictions, references).sum(axis=0)) == corpus_bleu4(
            predictions, references
        )


def test_bleu_estimate_resamples_pairs():
    predictions = ["the dog runs in the park", "a cat", "a man is at work today"]
    references = [["the dog runs in a park"], ["the cat sleeps"], ["a man is at work today"]]
    statistics = metrics.bleu_statistics(predictions, references)
    estimate = metrics.bleu_estimate(np.array(["p1", "p2", "p1"]), statistics)
    assert estimate.units.tolist() == ["p1", "p2"]
    assert estimate.value == corpus_bleu4(predictions, references)
    # A replicate that draws pair p1 twice is corpus BLEU over p1's documents, each twice.
    doubled = float(metrics.bleu_score(2 * estimate.stats[0]))
    assert doubled == corpus_bleu4([predictions[0], predictions[2]] * 2, [references[0], references[2]] * 2)
    only_p2 = float(metrics.bleu_score(2 * estimate.stats[1]))
    assert set(estimate.replicates(200, seed=1).tolist()) == {doubled, only_p2, estimate.value}


# ---------------------------------------------------------------- dve_gen from records


def _gen(docs, predictions) -> dict:
    return evaluate(hooks.GEN, hooks.process_results_gen, docs, predictions)


def test_per_goal_lexical_metrics_without_any_model(monkeypatch, gen_docs):
    for variable in (metrics.BERTSCORE_ENV, metrics.CLIP_ENV, evaluator.WEIGHTS_ENV):
        monkeypatch.setenv(variable, "off")
    docs = gen_docs.select(range(4))  # pair 1 strengthener/weakener, pair 2 strengthener/weakener
    assert docs["goal"] == ["strengthener", "weakener", "strengthener", "weakener"]
    # Exact references score 1, "cats sleep" shares no token with its references, the failed request scores 0.
    predictions = [
        "The player is in his thirties.",
        "cats sleep",
        "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 500",
        "The ball bounces once.",
    ]
    values = _gen(docs, predictions)
    assert values["dve_rouge_l_strengthener"] == pytest.approx(0.5)
    assert values["dve_rouge_l_weakener"] == pytest.approx(0.5)
    assert values["dve_rouge_l_all"] == pytest.approx(0.5)
    answers = [
        "The player is in his thirties.",
        "cats sleep",
        "",
        "The ball bounces once.",
    ]  # a failed request adds no n-gram
    assert values["dve_bleu4_strengthener"] == corpus_bleu4(answers[0::2], docs["references"][0::2])
    assert values["dve_bleu4_all"] == corpus_bleu4(answers, docs["references"])
    for name in (
        "dve_bertscore_all",
        "dve_clipscore_weakener",
        "dve_evaluator_strengthener",
        "dve_evaluator_weakener",
        "dve_success_all",
    ):
        assert values[name] is None
    assert values["dve_gen_counts"] == {
        "documents": 4,
        "pairs": 2,
        "impossible_excluded": 4,
        "empty_text_excluded": 0,
        "duplicate_updates": 0,
        "goals_skipped": 1,
        **NOT_COMPUTED,
        "unparsable": 0,
        "request_failed": 1,
        "judge_extracted": 0,
    }
    assert set(values["dve_gen_ci95"]) == {
        f"dve_{family}_{part}" for family in ("rouge_l", "bleu4") for part in ("all", "strengthener", "weakener")
    }
    assert values["dve_gen_ci95"]["dve_rouge_l_all"]["units"] == 2  # resampled by premise-hypothesis pair


def test_bleu4_weakener_by_hand(monkeypatch, gen_docs):
    # DVE Table 3, "Weaker" rows, BLEU column: corpus BLEU-4 (Papineni et al. 2002) over the weakeners only.
    for variable in (metrics.BERTSCORE_ENV, metrics.CLIP_ENV, evaluator.WEIGHTS_ENV):
        monkeypatch.setenv(variable, "off")
    docs = gen_docs.select(range(6))  # pairs 1-3, strengthener then weakener
    assert docs["goal"] == ["strengthener", "weakener"] * 3
    predictions = [
        "The player is in his thirties.",
        "The young male is a child.",  # pair 1's first reference exactly: 7 tokens, 7/6/5/4 n-grams matched
        "cats sleep",
        "The ball bounces twice.",  # "The ball bounces twice ." vs "The ball bounces once .": 4/5, 2/4, 1/3, 0/2
        "The woman is holding a chef's knife.",
        "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 500",  # no n-gram; its closest reference length (7) still counts
    ]
    values = _gen(docs, predictions)
    # Summed over the weakeners: precisions 11/12, 8/10, 6/8, 4/6; hypothesis length 7 + 5 + 0 = 12, reference length
    # 7 + 5 + 7 = 19 (the closest reference of each): brevity penalty exp(1 - 19/12).
    expected = np.exp(1 - 19 / 12) * (11 / 12 * 8 / 10 * 6 / 8 * 4 / 6) ** 0.25
    assert values["dve_bleu4_weakener"] == pytest.approx(expected) == pytest.approx(0.434240, abs=1e-6)
    # The strengtheners (one exact, one sharing nothing, one exact) score otherwise: a goal mixed up shows.
    assert values["dve_bleu4_strengthener"] == pytest.approx(0.708975, abs=1e-6)
    assert values["dve_bleu4_all"] == corpus_bleu4(
        ["" if "FAILED" in p else p for p in predictions], docs["references"]
    )
    assert values["dve_gen_ci95"]["dve_bleu4_weakener"]["units"] == 3  # resampled by pair
    assert values["dve_gen_counts"]["request_failed"] == 1


class FixedScorer:
    """Stands in for the evaluator: a fixed strength score per text."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores

    def predict(self, images, hypotheses, texts):
        return np.array([self.scores[text] for text in texts]), np.full(len(texts), 0.5)


def test_evaluator_means_and_success_against_the_caption(monkeypatch, gen_docs):
    monkeypatch.setenv(metrics.BERTSCORE_ENV, "off")
    monkeypatch.setenv(metrics.CLIP_ENV, "off")
    docs = gen_docs.select(range(6))  # pairs 1-3, strengthener then weakener
    captions = {premise: 1.0 for premise in docs["premise"]}
    # Every caption scores 1.0: s1 above (success), w1 tie (fails), s2 below (fails), w2 below (success);
    # pair 3's requests failed: no strength score, and no success.
    scorer = FixedScorer({**captions, "s1": 3.0, "w1": 1.0, "s2": 0.0, "w2": -2.0})
    monkeypatch.setattr(evaluator, "configured_scorer", lambda: scorer)
    values = _gen(docs, ["s1", "w1", "s2", "w2", "", "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 500"])
    assert values["dve_evaluator_strengthener"] == pytest.approx(1.5)
    assert values["dve_evaluator_weakener"] == pytest.approx(-0.5)
    assert values["dve_success_strengthener"] == pytest.approx(1 / 3)
    assert values["dve_success_weakener"] == pytest.approx(1 / 3)
    assert values["dve_success_all"] == pytest.approx(2 / 6)
    assert values["dve_gen_counts"]["request_failed"] == 2
    assert (
        values["dve_gen_counts"]["evaluator_computed"] is True
        and values["dve_gen_counts"]["bertscore_computed"] is False
    )
    assert (
        values["dve_gen_ci95"]["dve_evaluator_strengthener"]["units"] == 2
        and values["dve_gen_ci95"]["dve_success_all"]["units"] == 3
    )


def test_human_success_strengthener_by_hand(monkeypatch):
    # DVE "Generation Task": the human row scored by the evaluator (Eq. 6), and, as dve_success_*, each human update
    # checked against its pair's premise caption (the ordering the pairwise contrastive loss, Eq. 7, trains):
    # a strengthener succeeds when it scores strictly above the caption; ties fail.
    monkeypatch.setenv(metrics.BERTSCORE_ENV, "off")
    monkeypatch.setenv(metrics.CLIP_ENV, "off")
    docs = list(hooks.human_docs_from(data.load(SAMPLE_ROOT / "dve", "test")))[:8]  # pairs 1 and 2, 4 updates each
    scores = {doc["premise"]: 0.0 for doc in docs}  # every caption scores 0
    strengtheners = {
        "The player is in his thirties.": 2.0,  # pair 1: above, success
        "He is a grown man, sweating, chasing the ball.": 0.0,  # pair 1: tie, fails
        "The dog is a hunting dog.": -1.0,  # pair 2: below, fails
        "A rabbit darts into the bushes, just ahead of the dog.": 3.0,  # pair 2: above, success
    }
    weakeners = {
        "The young male is a child.": -2.0,  # pair 1: below, success
        'The "man" is actually a 12-year-old boy, and he plays on the school team.': 1.0,  # pair 1: above, fails
        "The ball bounces once.": -1.0,  # pair 2: success
        "There is a ball bouncing away from the dog.": -3.0,  # pair 2: success
    }
    assert {doc["update"]: doc["update_type"] for doc in docs} == dict.fromkeys(strengtheners, "strengthener") | (
        dict.fromkeys(weakeners, "weakener")
    )
    monkeypatch.setattr(evaluator, "configured_scorer", lambda: FixedScorer(scores | strengtheners | weakeners))
    values = evaluate(hooks.HUMAN, hooks.process_results_human, docs, ["not read"] * len(docs))
    # 1 of 2 strengtheners per pair: 2/4, the same in every resample of the two pairs
    assert values["dve_human_success_strengthener"] == 0.5
    interval = values["dve_human_ci95"]["dve_human_success_strengthener"]
    assert (interval["lower"], interval["upper"], interval["units"]) == (0.5, 0.5, 2)
    # The weakeners (3/4) and both goals pooled (5/8) differ: a goal mixed up, or ties counted, shows.
    assert values["dve_human_success_weakener"] == 0.75 and values["dve_human_success_all"] == 0.625
    assert values["dve_human_evaluator_strengthener"] == pytest.approx((2.0 + 0.0 - 1.0 + 3.0) / 4)


def test_model_metrics_with_tiny_local_models(monkeypatch, tiny_env, gen_docs):
    for key, value in tiny_env.items():
        monkeypatch.setenv(key, value)
    bert = metrics.bertscore_f1(
        ["the dog chases a rabbit", "", "the man"], [["the dog is a hunting dog", "a ball"], ["the man"], ["the man"]]
    )
    assert bert[1] == 0.0  # empty candidate, as bert-score defines it
    assert bert[2] == pytest.approx(1.0, abs=1e-5)  # identical to its reference
    assert 0.0 < bert[0] <= 1.0
    image = Image.new("RGB", (40, 30), (200, 30, 30))
    clip = metrics.clip_scores([image, image, image], ["the dog chases", "the dog chases", "a man at work"])
    assert clip.shape == (3,) and clip[0] == clip[1] and np.all((clip >= 0) & (clip <= 1))
    values = _gen(
        gen_docs.select(range(4)),
        ["The player is in his thirties.", "cats sleep", "The dog is a hunting dog.", "The ball bounces once."],
    )
    assert {key: values["dve_gen_counts"][key] for key in NOT_COMPUTED} == dict.fromkeys(NOT_COMPUTED, True)
    assert values["dve_bertscore_strengthener"] == pytest.approx(1.0, abs=1e-5)  # both strengtheners are references
    assert values["dve_clipscore_all"] is not None
    assert values["dve_success_all"] in {0.0, 0.25, 0.5, 0.75, 1.0}


# ---------------------------------------------------------------- offline first: nothing downloads unasked


@pytest.fixture
def hub(monkeypatch, tmp_path) -> tuple[Path, list]:
    """An empty local Hugging Face cache, HF's own offline switches off,
    and every network route refused and recorded."""
    import huggingface_hub.constants
    import huggingface_hub.file_download

    cache = tmp_path / "hub"
    cache.mkdir()
    for variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    attempts: list = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    for name in ("http_get", "get_hf_file_metadata", "_get_metadata_or_catch_error"):
        monkeypatch.setattr(huggingface_hub.file_download, name, refuse)
    return cache, attempts


def cache_as_hub_model(cache: Path, repo_id: str, folder: Path) -> None:
    """Lay out ``folder`` as the huggingface_hub cache holds a downloaded ``repo_id``."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    shutil.copytree(folder, repo / "snapshots" / commit)


def test_defaults_not_in_the_local_cache_are_not_computed_at_once(hub, gen_docs, warnings_logged, monkeypatch):
    _cache, attempts = hub

    def no_loading(*args, **kwargs):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr("transformers.CLIPModel.from_pretrained", no_loading)
    monkeypatch.setattr("transformers.AutoTokenizer.from_pretrained", no_loading)
    answers = [doc["choices"][0] for doc in gen_docs]
    first = _gen(gen_docs, answers)
    second = _gen(gen_docs.select(range(4)), answers[:4])  # e.g. dve_gen_dev in the same run
    for values in (first, second):
        assert {key: values["dve_gen_counts"][key] for key in NOT_COMPUTED} == NOT_COMPUTED
        assert (
            values["dve_success_all"] is None
            and values["dve_bertscore_all"] is None
            and values["dve_clipscore_all"] is None
        )
        assert values["dve_rouge_l_all"] is not None
    assert attempts == []
    dve_lines = [message for message in warnings_logged if message.startswith("dve_gen:")]
    assert len(dve_lines) == 3  # one line per family, however often it is computed
    assert [line.split(":")[1].strip().split()[0] for line in dve_lines] == ["bertscore", "clipscore", "evaluator"]
    for line, variable in zip(dve_lines, (metrics.BERTSCORE_ENV, metrics.CLIP_ENV, evaluator.WEIGHTS_ENV), strict=True):
        assert (
            "not in the local Hugging Face cache" in line
            and f"Set {variable} to a local folder or file" in line
            and "to allow the download" in line
            and f"{variable}=" in line.split("(", 2)[-1]  # the id to name, the default itself (a walkthrough)
        )


def test_defaults_in_the_local_cache_are_used_without_network(hub, tiny_env, gen_docs, monkeypatch):
    cache, attempts = hub
    bert = Path(tiny_env[metrics.BERTSCORE_ENV])
    cache_as_hub_model(cache, "roberta-large", bert)
    cache_as_hub_model(cache, "openai/clip-vit-base-patch32", Path(tiny_env[metrics.CLIP_ENV]))
    cache_as_hub_model(cache, "skywalkerzhang19/DVE_evaluator", Path(tiny_env[evaluator.WEIGHTS_ENV]).parent)
    cache_as_hub_model(cache, "google-bert/bert-large-uncased", bert)
    monkeypatch.setenv(metrics.BERTSCORE_LAYERS_ENV, "2")  # the tiny model stands in for roberta-large (17 layers)
    monkeypatch.setenv(evaluator.RESNET_ENV, TINY_RESNET)
    values = _gen(gen_docs, [doc["choices"][0] for doc in gen_docs])
    assert {key: values["dve_gen_counts"][key] for key in NOT_COMPUTED} == dict.fromkeys(NOT_COMPUTED, True)
    assert 0.0 <= values["dve_success_all"] <= 1.0 and 0.0 <= values["dve_bertscore_all"] <= 1.0
    assert attempts == []


def test_a_named_hub_model_may_download(hub, monkeypatch):
    _cache, attempts = hub
    calls = []

    def record(name, *args, **kwargs):
        calls.append((name, kwargs.get("local_files_only", False)))
        raise OSError("unreachable here")

    monkeypatch.setattr("transformers.CLIPModel.from_pretrained", record)
    monkeypatch.setenv(metrics.CLIP_ENV, "openai/clip-vit-large-patch14")
    with pytest.raises(
        weights.MetricUnavailable, match=r"CLIP model 'openai/clip-vit-large-patch14' unavailable: unreachable here"
    ):
        metrics.clip_scores([], [])
    assert calls == [("openai/clip-vit-large-patch14", False)]  # the hub id itself, downloads allowed
    monkeypatch.setattr("huggingface_hub.hf_hub_download", lambda **kwargs: calls.append(kwargs) or record("weights"))
    monkeypatch.setenv(evaluator.WEIGHTS_ENV, "skywalkerzhang19/DVE_evaluator")
    with pytest.raises(evaluator.EvaluatorUnavailable, match="unreachable here"):
        evaluator.configured_scorer()
    assert calls[1] == {"repo_id": "skywalkerzhang19/DVE_evaluator", "filename": "evaluator_weights.pth"}
    assert attempts == []


def test_missing_optional_packages_mean_not_computed(monkeypatch, gen_docs, warnings_logged):
    import abductive_tasks.dve

    monkeypatch.setitem(sys.modules, "bert_score", None)  # the dve extra: bert-score and torchvision
    monkeypatch.setitem(sys.modules, "torchvision", None)
    monkeypatch.delitem(sys.modules, "abductive_tasks.dve.evaluator")
    monkeypatch.delattr(abductive_tasks.dve, "evaluator")
    monkeypatch.setenv(metrics.BERTSCORE_ENV, str(SAMPLE_ROOT))  # a local folder: no cache lookup before the import
    values = _gen(gen_docs.select(range(2)), ["a", "b"])
    assert (
        values["dve_gen_counts"]["bertscore_computed"] is False
        and values["dve_gen_counts"]["evaluator_computed"] is False
    )
    assert values["dve_rouge_l_all"] is not None
    lines = [line for line in warnings_logged if line.startswith("dve_gen:")]
    assert (
        "dve_gen: bertscore not computed: the bert-score package is not installed (pip install 'abductive-tasks[dve]')"
        in lines
    )
    assert (
        "dve_gen: evaluator not computed: "
        "the evaluator needs the torchvision package (pip install 'abductive-tasks[dve]')"
    ) in lines


def test_an_evaluator_not_computed_for_dve_human_is_said_of_dve_human(monkeypatch, tmp_path, warnings_logged):
    """Running dve_human alone logged "dve_gen: evaluator not computed: ...", naming a task that was not run."""
    monkeypatch.setenv(evaluator.WEIGHTS_ENV, str(tmp_path / "weights.pth"))
    docs = list(hooks.human_docs_from(data.load(SAMPLE_ROOT / "dve", "test")))[:4]
    values = evaluate(hooks.HUMAN, hooks.process_results_human, docs, ["not read"] * len(docs))
    assert values["dve_human_counts"]["evaluator_computed"] is False
    said = [line for line in warnings_logged if "evaluator not computed" in line]
    assert said and all(line.startswith("dve_human: evaluator not computed: ") for line in said)


def test_missing_weights_are_reported_with_the_reason(monkeypatch, tmp_path):
    monkeypatch.setenv(metrics.BERTSCORE_ENV, str(tmp_path / "no-such-model"))
    with pytest.raises(
        weights.MetricUnavailable,
        match=r"no folder or file at '.*no-such-model' \(BERTScore model\)\. Set ABDUCTIVE_BERTSCORE_MODEL",
    ):
        metrics.bertscore_f1(["a"], [["b"]])
    monkeypatch.setenv(evaluator.WEIGHTS_ENV, str(tmp_path / "weights.pth"))
    with pytest.raises(evaluator.EvaluatorUnavailable, match=r"cannot load the evaluator \(weights '.*weights.pth'"):
        evaluator.configured_scorer()
    monkeypatch.setenv(evaluator.WEIGHTS_ENV, "off")
    with pytest.raises(evaluator.EvaluatorUnavailable, match="disabled by ABDUCTIVE_DVE_EVALUATOR=off"):
        evaluator.configured_scorer()


def test_rouge_l_takes_the_best_reference_wherever_it_stands():
    """Table 3 scores each update against its reference updates: the best F over all of them (rouge-score's
    score_multi), so the references' order does not matter. Same case as above, the best reference last:
    "a dog is hunting" F = 0.6, "the cat" F = 0.25."""
    scores = metrics.rouge_l(
        ["The dog is a hunting dog.", "The dog is a hunting dog."],
        [["the cat", "a dog is hunting"], ["a dog is hunting", "the cat"]],
    )
    assert scores == pytest.approx([0.6, 0.6])


def test_rouge_l_does_not_stem():
    """The documented kernel: ROUGE-L without stemming (rouge-score's default), so "dogs"/"dog" and "run"/"runs" do
    not match: pred "the dogs run" vs ref "the dog runs": LCS "the" = 1, P = R = 1/3, F = 1/3 (stemmed: 1.0)."""
    assert metrics.rouge_l(["The dogs run"], [["the dog runs"]]) == pytest.approx([1 / 3])
