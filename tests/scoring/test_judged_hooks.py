"""The judged tasks' ``process_results`` give the same records and metrics whatever order the judge's replies come
in: lmms-eval's result threads (``_thread_map_ordered``) with 16 judge requests at once and a random latency per
request, against one thread asking one question at a time (MuCR Exp S1-S3, Eq. 6-8; NL-Eye explanations, §4.2)."""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Callable, Sequence

import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.mucr import data as mucr_data
from abductive_tasks.mucr import hooks as mucr
from abductive_tasks.nleye import data as nleye_data
from abductive_tasks.nleye import hooks as nleye
from abductive_tasks.scoring import judge
from abductive_tasks.scoring.taskspec import TaskSpec, clear_cache

from helpers.openai_stub import Delay, Fault, OpenAIStub, message_text

LABELLED = "Cause image: a man drives fast. Effect image: he gets a ticket. Causal link: speeding caused the ticket."


def _verdict(body: dict) -> str | Fault:
    """A verdict that is a function of the prompt alone: a failure or an unreadable reply where the answer says so,
    else a score (MuCR) or class (NL-Eye) drawn from the prompt's digest."""
    text = message_text(body)
    if "FAIL" in text:
        return Fault(500)
    if "UNREADABLE" in text:
        return "I cannot rate this."
    digest = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    return f"Score: {digest % 11}" if "Rate the semantic similarity" in text else str(digest % 3)


def _judged(
    monkeypatch, stub: OpenAIStub, cache, concurrency: int, process: Callable, docs: Sequence, answers: Sequence
) -> list[dict]:
    """process_results over (doc, answer) through lmms-eval's result threads, as many as the judge concurrency."""
    from lmms_eval.evaluator import _thread_map_ordered

    monkeypatch.setenv("ABDUCTIVE_JUDGE_CACHE", str(cache))
    monkeypatch.setenv("ABDUCTIVE_JUDGE_CONCURRENCY", str(concurrency))
    results = _thread_map_ordered(
        lambda pair: process(pair[0], [pair[1]]), list(zip(docs, answers, strict=True)), max_workers=concurrency
    )
    return [next(iter(result.values())) for result in results]


def _mucr_answers(docs) -> list[str]:
    """Another pair's annotation, the pair's own, a labelled answer, an empty part, parts the judge fails on or
    answers unreadably, an empty reply, a failed request."""
    kinds = [
        lambda doc: doc["choices"][0],
        lambda doc: doc["references"][0],
        lambda doc: LABELLED,
        lambda doc: "Cause image: a man. Effect image: Causal link: speed.",
        lambda doc: "Cause image: FAIL. Effect image: UNREADABLE. Causal link: a cause.",
        lambda doc: "",
        lambda doc: "[LMMS_EVAL_REQUEST_FAILED after 3 retries] timeout",
    ]
    return [kinds[index % len(kinds)](doc) for index, doc in enumerate(docs)]


def _nleye_answers(docs) -> list[str]:
    reasons = ("FAIL", "UNREADABLE", "a reason", "another reason", "a third reason")
    return [f"{1 + index % 2}. Because of {reasons[index % 5]}." for index in range(len(docs))]


CASES = {
    "mucr_exp_gold": (
        mucr.EXP,
        mucr.process_results_exp,
        lambda: mucr.exp_docs_from(mucr_data.load(SAMPLE_ROOT / "mucr")),
        _mucr_answers,
    ),
    "nleye_triplet": (
        nleye.TRIPLET,
        nleye.process_results_triplet,
        lambda: nleye.triplet_docs_from(nleye_data.load(SAMPLE_ROOT / "nleye").items),
        _nleye_answers,
    ),
}


@pytest.mark.parametrize("task", sorted(CASES))
def test_concurrent_judging_equals_sequential_judging(task, monkeypatch, tmp_path):
    spec, process, make_docs, make_answers = CASES[task]
    assert isinstance(spec, TaskSpec) and spec.judged
    docs = list(make_docs())
    answers = make_answers(docs)
    rng, lock = random.Random(5), threading.Lock()

    def reply(body: dict) -> Delay:
        with lock:
            delay = rng.uniform(0.0, 0.06)
        return Delay(delay, _verdict(body))

    for name in judge.CONFIG_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with OpenAIStub(reply) as stub:
        for name, value in {
            "OPENAI_API_URL": stub.url,
            "OPENAI_API_KEY": "test-key",
            "MODEL_VERSION": "stub-judge",
            "ABDUCTIVE_JUDGE": "on",
            "ABDUCTIVE_JUDGE_RETRIES": "0",
            "ABDUCTIVE_JUDGE_BACKOFF": "0",
            "ABDUCTIVE_JUDGE_TIMEOUT": "10",
            "NO_PROXY": "127.0.0.1,localhost",
        }.items():
            monkeypatch.setenv(name, value)
        sequential = _judged(monkeypatch, stub, tmp_path / "one", 1, process, docs, answers)
        asked_one_at_a_time = len(stub.requests)
        concurrent = _judged(monkeypatch, stub, tmp_path / "many", 16, process, docs, answers)
        peak = stub.peak_in_flight
    assert len(stub.requests) == 2 * asked_one_at_a_time  # a fresh cache each: both runs asked every question
    assert peak > 1
    assert [record[1] for record in concurrent] == [record[1] for record in sequential]
    records = [record[1] for record in sequential]
    statuses = {
        value for record in records for key, value in record.items() if key.endswith("_status") or key == "explanation"
    }
    assert {"ok", "judge_failed", "unparsable"} <= statuses  # every kind of verdict took part
    clear_cache()
    first = spec.evaluate(records)
    clear_cache()
    assert spec.evaluate([record[1] for record in concurrent]) == first
