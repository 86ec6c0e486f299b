"""End-to-end lmms-eval runs of the DVE tasks on the embedded sample (ABDUCTIVE_DATA=sample) and on copies of it."""

from __future__ import annotations

import http.server
import os
import random
import threading
from collections import Counter

import numpy as np
import pytest
import sacrebleu

from abductive_tasks.cli import main
from abductive_tasks.dve import data, evaluator, hooks, metrics
from abductive_tasks.inputs.images import load_image, top_left_luminance
from abductive_tasks.inputs.loading import SAMPLE_ROOT

from helpers.dve_tiny_models import tiny_metric_env
from helpers.runs import abductive_eval, count, metric, read_results
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e

LOADED = data.load(SAMPLE_ROOT / "dve", "test")
CLS_DOCS = hooks.cls_docs_from(LOADED)
GEN_DOCS = hooks.gen_docs_from(LOADED)
GOALS = np.array(GEN_DOCS["goal"])
MODELS_OFF = {metrics.BERTSCORE_ENV: "off", metrics.CLIP_ENV: "off", evaluator.WEIGHTS_ENV: "off"}
COMPUTED = ("bertscore_computed", "clipscore_computed", "evaluator_computed")


def run_ok(tmp_path, *args: str, env: dict | None = None, data: str = "sample", status: int = 0) -> tuple[dict, str]:
    """``abductive-eval ARGS`` into ``tmp_path/out``, exiting ``status`` (1: requests failed, no clean score)."""
    completed = abductive_eval(list(args), tmp_path / "out", data=data, env=env)
    assert completed.returncode == status, completed.stdout[-3000:] + completed.stderr[-3000:]
    return read_results(tmp_path / "out"), completed.stdout + completed.stderr


def corpus_bleu4(predictions: list[str], references: list[list[str]]) -> float:
    width = max(len(refs) for refs in references)
    return (
        sacrebleu.corpus_bleu(
            predictions, [[refs[i] if i < len(refs) else None for refs in references] for i in range(width)]
        ).score
        / 100
    )


def assert_lexical_metrics(results: dict, predictions: list[str]) -> None:
    """ROUGE-L and BLEU-4 per goal and overall, from the hand-checked kernels on the same answers."""
    references = list(GEN_DOCS["references"])
    rouge = metrics.rouge_l(predictions, references)
    for part, mask in (
        ("all", np.ones(len(GOALS), bool)),
        ("strengthener", GOALS == "strengthener"),
        ("weakener", GOALS == "weakener"),
    ):
        assert metric(results, "dve_gen", f"dve_rouge_l_{part}") == pytest.approx(rouge[mask].mean())
        chosen = np.flatnonzero(mask)
        assert metric(results, "dve_gen", f"dve_bleu4_{part}") == pytest.approx(
            corpus_bleu4([predictions[i] for i in chosen], [references[i] for i in chosen])
        )
        interval = metric(results, "dve_gen", "dve_gen_ci95")[f"dve_bleu4_{part}"]
        assert interval["units"] == (6 if part == "strengthener" or part == "all" else 5)  # premise-hypothesis pairs
        assert metric(results, "dve_gen", f"dve_bleu4_{part}_stderr") == interval["stderr"]


def assert_counts(results: dict) -> None:
    assert (
        count(results, "dve_cls", "documents"),
        count(results, "dve_cls", "pairs"),
        count(results, "dve_cls", "impossible_excluded"),
    ) == (17, 6, 4)
    assert (
        count(results, "dve_gen", "documents"),
        count(results, "dve_gen", "impossible_excluded"),
        count(results, "dve_gen", "goals_skipped"),
    ) == (11, 4, 1)


def test_dummy_with_every_metric_on_tiny_models(tmp_path, monkeypatch):
    env = tiny_metric_env(tmp_path / "models")
    answer = "Weakener. The ball bounces once."
    results, _log = run_ok(
        tmp_path, "--model", "dummy", "--model_args", f"response={answer}", "--tasks", "dve", env=env
    )
    assert_counts(results)
    # Always "weakener": right on the 8 weakeners of 17 updates.
    assert metric(results, "dve_cls", "dve_accuracy") == pytest.approx(8 / 17)
    by_type = metric(results, "dve_cls", "dve_by_update_type")
    assert {label: (cell["acc"], cell["n"]) for label, cell in by_type.items()} == {
        "strengthener": (0.0, 9),
        "weakener": (1.0, 8),
    }
    assert count(results, "dve_cls", "unparsable") == 0
    predictions = [answer] * len(GEN_DOCS)
    assert_lexical_metrics(results, predictions)
    # The dog pair's weakener: LCS 4 of 5 answer tokens and of all 4 reference tokens: F = 2 * 0.8 * 1 / 1.8.
    assert metrics.rouge_l([answer], [["The ball bounces once."]])[0] == pytest.approx(8 / 9)
    assert all(count(results, "dve_gen", key) is True for key in COMPUTED)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    evaluator.load_scorer.cache_clear()
    try:
        images = [load_image(path) for path in GEN_DOCS["image_path"]]
        scores, _ = evaluator.configured_scorer().predict(
            images * 2, list(GEN_DOCS["hypothesis"]) * 2, predictions + list(GEN_DOCS["premise"])
        )
    finally:
        evaluator.load_scorer.cache_clear()
    update, caption = scores[: len(GEN_DOCS)], scores[len(GEN_DOCS) :]
    success = np.where(GOALS == "strengthener", update > caption, update < caption)
    assert metric(results, "dve_gen", "dve_evaluator_strengthener") == pytest.approx(
        update[GOALS == "strengthener"].mean(), abs=1e-5
    )
    assert metric(results, "dve_gen", "dve_evaluator_weakener") == pytest.approx(
        update[GOALS == "weakener"].mean(), abs=1e-5
    )
    assert metric(results, "dve_gen", "dve_success_all") == pytest.approx(success.mean())
    for name in ("dve_bertscore_all", "dve_bertscore_weakener", "dve_clipscore_all", "dve_clipscore_strengthener"):
        assert 0.0 <= metric(results, "dve_gen", name) <= 1.0


class _Trap(http.server.BaseHTTPRequestHandler):
    """A stand-in Hugging Face endpoint that records every request and serves nothing."""

    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.requests.append(f"{self.command} {self.path}")
        self.send_response(404)
        self.end_headers()

    do_HEAD = do_POST = do_GET

    def log_message(self, *args) -> None:
        pass


def test_random_baseline_with_no_hf_variable_tries_no_download(tmp_path):
    """Offline first: with HF_HUB_OFFLINE unset and no model cached, the model-based families are not
    computed, with one line each, and nothing asks the hub for them (the endpoint is a local trap)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Trap)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {
        "HF_HUB_OFFLINE": "",
        "TRANSFORMERS_OFFLINE": "",
        "HF_DATASETS_OFFLINE": "",
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_ENDPOINT": f"http://127.0.0.1:{server.server_address[1]}",
    }
    env |= {variable: "" for variable in (*MODELS_OFF, evaluator.TEXT_ENV)}
    try:
        results, log = run_ok(
            tmp_path, "--model", "random_baseline", "--model_args", "seed=0", "--tasks", "dve_cls,dve_gen", env=env
        )
    finally:
        server.shutdown()
    model_requests = [
        request for request in _Trap.requests if "/api/agent-harnesses" not in request
    ]  # huggingface_hub's own user-agent lookup
    assert model_requests == []
    assert_counts(results)
    picks = [random.Random(f"0:dve_cls:{i}").choice(doc["choices"]) for i, doc in enumerate(CLS_DOCS)]
    expected = np.mean([pick == doc["update_type"] for pick, doc in zip(picks, CLS_DOCS, strict=True)])
    assert metric(results, "dve_cls", "dve_accuracy") == pytest.approx(expected)
    assert count(results, "dve_cls", "unparsable") == 0
    predictions = [random.Random(f"0:dve_gen:{i}").choice(doc["choices"]) for i, doc in enumerate(GEN_DOCS)]
    assert_lexical_metrics(results, predictions)
    for name in (
        "dve_bertscore_all",
        "dve_clipscore_all",
        "dve_evaluator_strengthener",
        "dve_evaluator_weakener",
        "dve_success_all",
    ):
        assert metric(results, "dve_gen", name) is None
    assert [count(results, "dve_gen", key) for key in COMPUTED] == [False, False, False]
    lines = [line for line in log.splitlines() if "dve_gen: " in line and " not computed: " in line]
    assert len(lines) == 3 and all("not in the local Hugging Face cache" in line for line in lines), lines


def test_dumb_pixel(tmp_path):
    results, _log = run_ok(tmp_path, "--model", "dumb_pixel", "--tasks", "dve", env=MODELS_OFF)
    assert_counts(results)
    # Both options show the same image: a tie, so the first option, strengthener, every time (9 of 17).
    assert metric(results, "dve_cls", "dve_accuracy") == pytest.approx(9 / 17)
    assert metric(results, "dve_cls", "dve_by_update_type")["weakener"] == {
        "acc": 0.0,
        "n": 8,
        "lower": 0.0,
        "upper": 0.0,
    }
    assert metric(results, "dve_cls", "dve_cls_ci95")["dve_accuracy"]["chance"] == 0.5
    brightness = [top_left_luminance(doc["image_path"]) for doc in GEN_DOCS]
    predictions = [
        doc["choices"][min(int(b / 256 * len(doc["choices"])), len(doc["choices"]) - 1)]
        for b, doc in zip(brightness, GEN_DOCS, strict=True)
    ]
    assert len(set(predictions)) > 3  # the sample's corners spread the picks
    assert_lexical_metrics(results, predictions)


def test_failed_requests_on_every_task_and_split(tmp_path, data_copy):
    """The lmms-eval failure marker is never an answer, on the test and dev tasks alike."""
    lines = (data_copy / "dve" / "DVE_test.csv").read_text().splitlines(keepends=True)
    (data_copy / "dve" / "DVE_dev.csv").write_text("".join(lines[:10]))  # pairs 1 and 2, one impossible row
    env = tiny_metric_env(tmp_path / "models")
    reply = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"
    results, _log = run_ok(
        tmp_path,
        "--model",
        "dummy",
        "--model_args",
        f"response={reply}",
        "--tasks",
        "dve,dve_dev",
        env=env,
        data=str(data_copy),
        status=1,  # every request failed: no clean score
    )
    documents = {"dve_cls": 17, "dve_gen": 11, "dve_cls_dev": 8, "dve_gen_dev": 4}
    for task, n in documents.items():
        assert count(results, task, "request_failed") == count(results, task, "documents") == n
        assert count(results, task, "unparsable") == 0
    for task in ("dve_cls", "dve_cls_dev"):
        assert metric(results, task, "dve_accuracy") == 0.0
    assert count(results, "dve_cls_dev", "impossible_excluded") == 1
    for task in ("dve_gen", "dve_gen_dev"):
        assert all(count(results, task, key) is True for key in COMPUTED)
        for name in ("dve_success_all", "dve_rouge_l_all", "dve_bleu4_all", "dve_bertscore_all", "dve_clipscore_all"):
            assert metric(results, task, name) == 0.0, (task, name)
        assert metric(results, task, "dve_evaluator_strengthener") is None  # no update to score


def test_tiny_llava_sees_the_image_premise(tmp_path, monkeypatch, llava_images_per_call):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    for key, value in {"ABDUCTIVE_DATA": "sample", **MODELS_OFF}.items():
        monkeypatch.setenv(key, value)
    output = tmp_path / "out"
    arguments = [
        "--model",
        "llava_hf",
        "--model_args",
        f"pretrained={model_dir},device_map=cpu,device=cpu",
        "--tasks",
        "dve",
        "--gen_kwargs",
        "max_new_tokens=4",
    ]
    assert main([*arguments, "--output_path", str(output)]) == 0
    assert Counter(llava_images_per_call) == {1: 17 + 11}  # one image premise per document
    results = read_results(output)
    assert_counts(results)
    statuses = sum(count(results, "dve_cls", key) for key in ("unparsable", "request_failed"))
    assert 0.0 <= metric(results, "dve_cls", "dve_accuracy") <= 1 - statuses / 17
    assert 0.0 <= metric(results, "dve_gen", "dve_rouge_l_all") <= 1.0
    assert os.environ["ABDUCTIVE_DATA"] == "sample"


def test_bad_data_fails_loudly(tmp_path, data_copy):
    path = data_copy / "dve" / "DVE_test.csv"
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace(",strengthener,", ",neutral,")  # a label that is neither update type
    path.write_text("".join(lines))
    completed = abductive_eval(["--model", "dummy", "--tasks", "dve_cls"], tmp_path / "out", data=str(data_copy))
    assert completed.returncode == 1
    assert "line 3, field 'UpdateType': unknown update type 'neutral'" in completed.stdout + completed.stderr
    assert not list((tmp_path / "out").rglob("*_results.json"))
