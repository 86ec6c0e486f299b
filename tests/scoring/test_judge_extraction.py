"""Answer extraction by the LLM judge (ABDUCTIVE_JUDGE_EXTRACT) against the scripted OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest

from abductive_tasks.nleye.prompts import PROMPT_TRIPLET_SEPARATE
from abductive_tasks.scoring.judge import (
    CONFIG_VARIABLES,
    JudgeResult,
    extract_answer,
    extraction_enabled,
    extraction_verdict,
)
from abductive_tasks.scoring.reading import Choice, Label, Score

from helpers.openai_stub import Fault, OpenAIStub, message_text

JUDGE_VARIABLES = (*CONFIG_VARIABLES, "ABDUCTIVE_JUDGE_EXTRACT")
# A reply the rules leave unread: it describes both images and picks one only in other words.
UNREAD = (
    "The first shows a dry street, the other a flooded one; "
    "after that storm, I find the flooded street far more believable."
)


@pytest.fixture
def judge_at(monkeypatch, tmp_path):
    """Configure the judge to answer from a scripted server, with extraction on; returns the stub."""
    stubs = []

    def configure(script, extract: str | None = "1") -> OpenAIStub:
        stub = OpenAIStub(script).__enter__()
        stubs.append(stub)
        for name in JUDGE_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OPENAI_API_URL", stub.url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("MODEL_VERSION", "stub-judge")
        monkeypatch.setenv("ABDUCTIVE_JUDGE_CACHE", str(Path(tmp_path) / "cache"))
        monkeypatch.setenv("ABDUCTIVE_JUDGE_RETRIES", "1")
        monkeypatch.setenv("ABDUCTIVE_JUDGE_BACKOFF", "0.01")
        monkeypatch.setenv("ABDUCTIVE_JUDGE_TIMEOUT", "5")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
        if extract is not None:
            monkeypatch.setenv("ABDUCTIVE_JUDGE_EXTRACT", extract)
        return stub

    yield configure
    for stub in stubs:
        stub.__exit__(None, None, None)


def test_the_rules_leave_the_reply_unread():
    assert Choice(2).read(UNREAD) is None


def test_extraction_returns_the_option_the_judge_names(judge_at):
    stub = judge_at(["2"])
    assert extraction_enabled()
    assert extraction_verdict(Choice(2), PROMPT_TRIPLET_SEPARATE, UNREAD) == JudgeResult("ok", 2, "2")
    (request,) = stub.requests
    prompt = message_text(request)
    assert (
        f"Question: {PROMPT_TRIPLET_SEPARATE}\nValid answers: the number of one option: 1 or 2\n"
        f"Reply: {UNREAD}\nYour output:"
    ) in prompt
    assert "output none" in prompt and request["max_tokens"] == 32 and request["temperature"] == 0.0
    assert extract_answer(Choice(2), PROMPT_TRIPLET_SEPARATE, UNREAD) == 2  # cached: no second request
    assert len(stub.requests) == 1


def test_extraction_reads_the_judge_with_the_kind(judge_at):
    judge_at(["Weakener", "Seven, so 7."])
    assert (
        extract_answer(
            Label(("strengthener", "weakener")), "Does the update strengthen or weaken?", "It sort of undermines it."
        )
        == "weakener"
    )
    assert extraction_verdict(Score(), "Rate 1-10.", "Quite believable, I would say.") == JudgeResult(
        "ok", 7.0, "Seven, so 7."
    )


@pytest.mark.parametrize("reply", ["none", "Z", "1 or 2"])
def test_a_judge_that_finds_no_answer_leaves_it_unparsable(judge_at, reply):
    judge_at([reply])
    assert extraction_verdict(Choice(2), PROMPT_TRIPLET_SEPARATE, UNREAD) == JudgeResult("unparsable", None, reply)
    assert extract_answer(Choice(2), PROMPT_TRIPLET_SEPARATE, UNREAD) is None


def test_a_failing_judge_leaves_it_unparsable(judge_at):
    stub = judge_at([Fault(500)])
    assert extraction_verdict(Choice(2), PROMPT_TRIPLET_SEPARATE, UNREAD) == JudgeResult("judge_failed", None, None)
    assert len(stub.requests) == 2  # first attempt + one retry


@pytest.mark.parametrize("extract", [None, "", "0", "off"])
def test_nothing_is_asked_when_extraction_is_off(judge_at, extract):
    stub = judge_at(["2"], extract=extract)
    assert not extraction_enabled()
    assert extraction_verdict(Choice(2), PROMPT_TRIPLET_SEPARATE, UNREAD) == JudgeResult("not_configured", None, None)
    assert extract_answer(Choice(2), PROMPT_TRIPLET_SEPARATE, UNREAD) is None
    assert stub.requests == []


def test_nothing_is_asked_without_a_judge_or_for_a_failed_request(judge_at, monkeypatch):
    stub = judge_at(["2"])
    assert extraction_verdict(
        Choice(2), PROMPT_TRIPLET_SEPARATE, "[LMMS_EVAL_REQUEST_FAILED after 3 retries] Invalid image 2"
    ) == JudgeResult("unparsable", None, None)
    monkeypatch.setenv("ABDUCTIVE_JUDGE", "off")
    assert not extraction_enabled()
    assert extraction_verdict(Choice(2), PROMPT_TRIPLET_SEPARATE, UNREAD).status == "not_configured"
    assert stub.requests == []
