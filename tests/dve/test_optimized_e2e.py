"""DVE reward-driven update optimization end to end: ``--model dve_optimized`` around the tiny local LLaVA
(llava_hf) and around the scripted OpenAI-compatible server (lmms-eval's ``openai``), with the tiny
evaluator as critic; and its one-line refusal without evaluator weights."""

from __future__ import annotations

import numpy as np
import pytest

from abductive_tasks.cli import main
from abductive_tasks.dve import data, evaluator, hooks
from abductive_tasks.dve.optimization import high_quality
from abductive_tasks.inputs.images import load_image
from abductive_tasks.inputs.loading import SAMPLE_ROOT

from helpers.dve_tiny_models import tiny_metric_env
from helpers.openai_stub import Fault, OpenAIStub, message_text
from helpers.runs import abductive_eval, metric, read_results, read_samples
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e

GEN_DOCS = hooks.gen_docs_from(data.load(SAMPLE_ROOT / "dve", "test"))
ETA, MAX_ROUNDS = 0.0, 3  # eta 0: the tiny evaluator's scores fall on both sides of the threshold


@pytest.fixture
def critic_env(tmp_path, monkeypatch):
    env = tiny_metric_env(tmp_path / "models") | {"ABDUCTIVE_BERTSCORE_MODEL": "off", "ABDUCTIVE_CLIP_MODEL": "off"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    evaluator.load_scorer.cache_clear()
    yield env
    evaluator.load_scorer.cache_clear()


def traces_of(output) -> list[dict]:
    return [sample["dve_gen_counts"][1]["optimization"] for sample in read_samples(output, "dve_gen")]


def check_stopping_rule(traces: list[dict]) -> None:
    """Every item stopped for the paper's reason: a high-quality update, M refinements, or a failed request."""
    for trace, goal in zip(traces, GEN_DOCS["goal"], strict=True):
        scores = trace["scores"]
        assert all(not high_quality(goal, score, ETA) for score in scores[:-1])  # refined only when low quality
        if trace["request_failed"]:
            assert trace["rounds"] == len(scores) + 1
        else:
            assert trace["rounds"] == len(scores) and 1 <= trace["rounds"] <= 1 + MAX_ROUNDS
            assert high_quality(goal, scores[-1], ETA) or trace["rounds"] == 1 + MAX_ROUNDS


def test_tiny_llava_optimized_reports_rounds_and_scores(tmp_path, critic_env):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    output = tmp_path / "out"
    base_args = f'"pretrained={model_dir},device_map=cpu,device=cpu"'
    model_args = f"base=llava_hf,base_args={base_args},eta={ETA},max_rounds={MAX_ROUNDS}"
    assert main(["--model", "dve_optimized", "--model_args", model_args, "--tasks", "dve_gen", "--gen_kwargs",
                 "max_new_tokens=8", "--log_samples", "--output_path", str(output)]) == 0  # fmt: skip
    results = read_results(output)
    traces = traces_of(output)
    check_stopping_rule(traces)
    rounds = np.array([trace["rounds"] for trace in traces])
    counts = metric(results, "dve_gen", "dve_gen_counts")
    assert counts["optimized"] == 11 and counts["refined"] == int((rounds > 1).sum())
    assert sum(counts.get(f"rounds_{n}", 0) for n in range(1, 5)) == 11
    assert metric(results, "dve_gen", "dve_opt_rounds_mean") == pytest.approx(rounds.mean())
    assert metric(results, "dve_gen", "dve_opt_refined_share") == pytest.approx((rounds > 1).mean())
    # The scores fed back are the evaluator's: rescoring the initial and final updates gives the reported means.
    images = [load_image(path) for path in GEN_DOCS["image_path"]]
    hypotheses = list(GEN_DOCS["hypothesis"])
    goals = np.array(GEN_DOCS["goal"])
    scorer = evaluator.configured_scorer()
    for when, pick in (("before", 0), ("after", -1)):
        scores, _ = scorer.predict(images, hypotheses, [trace["updates"][pick] for trace in traces])
        for goal in ("strengthener", "weakener"):
            assert metric(results, "dve_gen", f"dve_opt_{when}_{goal}") == pytest.approx(
                scores[goals == goal].mean(), abs=1e-5
            )
    # The usual generation metrics score the final updates.
    for goal in ("strengthener", "weakener"):
        assert metric(results, "dve_gen", f"dve_evaluator_{goal}") == pytest.approx(
            metric(results, "dve_gen", f"dve_opt_after_{goal}"), abs=1e-5
        )


def test_served_model_with_a_failed_request_mid_loop(tmp_path, critic_env, monkeypatch):
    """The refinement of the first strengthener fails (HTTP 500): counted, never critiqued nor scored."""
    first = GEN_DOCS[[i for i, goal in enumerate(GEN_DOCS["goal"]) if goal == "strengthener"][0]]

    def refining_first(text: str) -> bool:
        return "Previous Update:" in text and f"Hypothesis: {first['hypothesis']}\nGoal: strengthener" in text

    def script(body: dict):
        text = message_text(body)
        if refining_first(text):
            return Fault(500)
        return f"Round {text.count('Previous Update:')}: the scene changes."

    with OpenAIStub(script) as stub:
        monkeypatch.setenv("OPENAI_API_BASE", stub.url)
        monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
        output = tmp_path / "out"
        model_args = f'base=openai,base_args="model_version=stub,max_retries=1,retry_backoff_s=0",eta={ETA}'
        assert (
            main(
                [
                    "--model",
                    "dve_optimized",
                    "--model_args",
                    model_args,
                    "--tasks",
                    "dve_gen",
                    "--log_samples",
                    "--output_path",
                    str(output),
                ]
            )
            == 1
        )  # fmt: skip  (a failed request: no clean score)
        texts = [message_text(body) for body in stub.requests]
    traces = traces_of(output)
    check_stopping_rule(traces)
    failed = [index for index, trace in enumerate(traces) if trace["request_failed"]]
    assert [GEN_DOCS[i]["item_id"] for i in failed] == [first["item_id"]]
    (trace,) = [traces[i] for i in failed]
    assert (trace["rounds"], trace["updates"], trace["score_after"]) == (2, ["Round 0: the scene changes."], None)
    assert not any("LMMS_EVAL_REQUEST_FAILED" in text for text in texts)  # never fed back
    # One request per answered generation (the failed one is retried by the openai client itself).
    assert len([text for text in texts if not refining_first(text)]) == sum(trace["rounds"] for trace in traces) - 1
    assert all(trace["updates"][0] == "Round 0: the scene changes." for trace in traces)
    results = read_results(output)
    counts = metric(results, "dve_gen", "dve_gen_counts")
    assert (counts["request_failed"], counts["loop_request_failed"], counts["optimized"]) == (1, 1, 11)


def test_without_evaluator_weights_it_refuses_in_one_line(tmp_path):
    completed = abductive_eval(
        ["--model", "dve_optimized", "--model_args", 'base=dummy,base_args="response=A dog."', "--tasks", "dve_gen"],
        tmp_path / "out",
        env={"ABDUCTIVE_DVE_EVALUATOR": "off"},
    )
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines() == [
        "abductive-eval: dve_optimized: the DVE evaluator (its critic) is not available: "
        "disabled by ABDUCTIVE_DVE_EVALUATOR=off"
    ]
    assert not (tmp_path / "out").exists()
