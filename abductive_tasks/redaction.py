"""Secret values in what a run is given: recognised by name and in URLs, hashed for identities, redacted from text.

Secrets are the values of keys ending in ``key``, ``token``, ``secret``, ``password``, ``passwd``, ``passphrase``,
``auth``, ``credential(s)``, ``sig`` or ``signature`` (a superset of what lmms-eval redacts), and the credentials of a
URL (``https://user:pass@host``: ``user:pass`` and ``pass``; ``https://token@host``: ``token``), wherever they appear:
a URL given as the value of a ``key=value`` pair (``base_url=https://h/v1?key=X``, ``pretrained=https://u:p@h/m``) is
read as a bare URL is, its secret-named query parameters and its credentials (:func:`url_secrets`).
They are collected once, by value, and replaced wherever they would be written or printed, under any name; they
enter a run's identity only as a slow salted hash. Values under 4 characters are left alone (replacing ``x`` would
garble every line); so are the inherited environment's secret-named values under 8 (flags such as ``true``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import BinaryIO, TextIO
from urllib.parse import unquote

from abductive_tasks import settings

SECRET_NAME = re.compile(  # matched by their endings: `api_key`, `HF_TOKEN`, `proxy_authorization`, `session_cookie`
    r"(key|token|secret|password|passwd|passphrase|auth|authorization|cookie|credentials?|sig|signature)\Z",
    re.IGNORECASE,
)
MODEL_ARG = re.compile(r"(^|,)(\s*)([^=,\s]+)=([^,]*)")
ASSIGNMENT = re.compile(r"(?:^|[\s,;&?(])([\w.-]+)=([^\s,;&)]+)")  # `api_key=X` anywhere in a text
SEGMENT_END = re.compile(rb"(?<=[\r\n])")  # split after a newline or a carriage return, keeping it
REDACTED = "[REDACTED]"
URL_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#\s]+)@")  # up to the authority's last @, as URL parsers
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")  # a URL and what follows it up to a space: read by text_secrets
HANDOFF = "ABDUCTIVE_SECRETS_FD"  # the pipe a batch hands its child the secrets through (never argv or a file)
HANDOFF_MAX = 1 << 15  # within a pipe's buffer, so writing it before the child starts never blocks
SHORTEST = 4  # shorter values (placeholders such as ``x``) are left alone: replacing them would garble every line
# A secret on a batch child's command line (which `ps` and /proc/PID/cmdline show every user) is written `<secret:N>`:
# N numbers the written forms (written_forms) of the secrets handed over the pipe, which the child's CLI puts back
# before reading its arguments (revealed_args). The word is reserved: an argument already holding one is refused, never
# guessed at, so a placeholder is never taken for real text nor real text for one.
PLACEHOLDER = re.compile(r"<secret:(\d+)>")


@functools.cache
def hash_secret(value: str) -> str:
    """A stable stand-in for a secret: PBKDF2-SHA256 (200,000 rounds, fixed salt),
    so a weak password is slow to guess."""
    digest = hashlib.pbkdf2_hmac("sha256", value.encode(), b"abductive-tasks run identity", 200_000)
    return f"<secret {digest.hex()[:16]}>"


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name.strip()))


def model_args_secrets(model_args: str) -> list[str]:
    """The clear values of secret-named ``key=value`` pairs in a ``--model_args`` string, and the secrets of a URL
    any other pair's value holds (:func:`url_secrets`: ``base_url=https://h/v1?key=X`` -> ``X``)."""
    found: list[str] = []
    for match in MODEL_ARG.finditer(model_args):
        found += ([match[4]] if match[4] else []) if is_secret_name(match[3]) else url_secrets(match[4])
    return found


def url_credentials(text: str) -> list[str]:
    """The credentials of every URL in ``text``: the whole userinfo and its password, as written and
    percent-decoded (``https://user:p%40ss@host`` -> ``user:p%40ss``, ``p%40ss``, ``user:p@ss``, ``p@ss``)."""
    found = []
    for match in URL_USERINFO.finditer(text):
        userinfo = match[1]
        password = userinfo.partition(":")[2]
        found += [part for written in (userinfo, password) for part in (written, unquote(written)) if part]
    return found


def text_secrets(text: str) -> list[str]:
    """The secrets a string holds by itself: secret-named ``key=value`` pairs (``model_args`` or free text, a URL's
    query parameters among them: ``https://h/m?token=X``), URL credentials, and the secrets of a URL another pair's
    value holds (``model=https://h/m?token=X``: :func:`url_secrets`)."""
    return [*model_args_secrets(text), *_assigned_secrets(text), *url_credentials(text)]


def _assigned_secrets(text: str) -> list[str]:
    """The values of secret-named ``name=value`` assignments anywhere in ``text`` (after a space, ``,``, ``;``,
    ``&``, ``?`` or ``(``: a URL's query parameters too), and the secrets of a URL another assignment's value holds."""
    found: list[str] = []
    for match in ASSIGNMENT.finditer(text):
        found += [match[2]] if is_secret_name(match[1]) else url_secrets(match[2])
    return found


def url_secrets(text: str) -> list[str]:
    """The secrets of each URL in ``text`` (from its scheme up to a space), as :func:`text_secrets` finds them in a
    bare URL: its secret-named query parameters (``?key=X``, ``&sig=X``: each value up to the next ``&``) and its
    credentials; [] for a text holding no URL. Through it, what reads a ``key=value`` pair's value finds the secrets of
    a URL nested in ``model_args`` (``base_url=https://h/v1?key=X``)."""
    return [secret for url in URL.findall(text) for secret in (*_assigned_secrets(url), *url_credentials(url))]


def value_secrets(value: object) -> list[str]:
    """Every clear secret in a JSON-like value (a spec as read, a part of it): the value of a secret-named mapping
    entry, secret-named ``key=value`` pairs and URL credentials in any string, and a secret-named flag's value in a
    list of command-line words."""
    if isinstance(value, Mapping):
        return [
            found
            for key, item in value.items()
            for found in (
                [secret for leaf in _leaves(item) for secret in (leaf, *text_secrets(leaf))]
                if is_secret_name(str(key)) and item not in (None, "")
                else [*text_secrets(str(key)), *value_secrets(item)]
            )
        ]
    if isinstance(value, list | tuple):
        words = [str(item) for item in value if isinstance(item, str | int | float)]
        return [*args_secrets(words), *(found for item in value for found in value_secrets(item))]
    return text_secrets(value) if isinstance(value, str) else []


def _leaves(value: object) -> list[str]:
    """The scalar values a secret-named entry holds, each a secret: itself, or every item of a list or mapping under
    it, however deep (``auth: {user: bob, pw: X}``, ``api_key: [X, Y]``: a list's text is written as JSON, not as
    Python shows it)."""
    if isinstance(value, Mapping):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list | tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [] if value in (None, "") else [str(value)]


def hash_url_credentials(text: str) -> str:
    """``text`` with the credentials of each URL replaced by :func:`hash_secret` of them."""
    return URL_USERINFO.sub(lambda match: match[0].replace(match[1], hash_secret(match[1])), text)


def url_secrets_replaced(text: str, stand_in: Callable[[str], str], also: Iterable[str] = ()) -> str:
    """``text`` with the secrets of each URL in it (:func:`url_secrets`) replaced by ``stand_in`` of each: the
    credentials where they stand (the whole userinfo, whatever its length), every other such secret of
    :data:`SHORTEST` characters or more (a secret-named query parameter's value) and each of ``also`` by value. One
    pass over ``text``, as it was given, longest value first: a stand-in is never read again (a hash is no value)."""
    credentials = set(url_credentials(text))
    others = {secret for secret in url_secrets(text) if secret not in credentials and len(secret) >= SHORTEST}
    values = sorted({*others, *(secret for secret in also if secret)}, key=len, reverse=True)
    pattern = re.compile("|".join([URL_USERINFO.pattern, *map(re.escape, values)]))
    return pattern.sub(
        lambda match: stand_in(match[0]) if match[1] is None else match[0].replace(match[1], stand_in(match[1])), text
    )


def hash_url_secrets(text: str) -> str:
    """``text`` with the secrets of each URL in it (its credentials, its secret-named query parameters) replaced by
    :func:`hash_secret` of each (:func:`url_secrets_replaced`)."""
    return url_secrets_replaced(text, hash_secret)


def redact_model_args(model_args: str) -> str:
    """``model_args`` with each secret value replaced by :func:`hash_secret` of it: a secret-named pair's value, and
    the secrets of a URL another pair's value holds (credentials, secret-named query parameters); then the credentials
    of a URL outside any pair."""

    def pair(match: re.Match[str]) -> str:
        value = hash_secret(match[4]) if is_secret_name(match[3]) and match[4] else hash_url_secrets(match[4])
        return f"{match[1]}{match[2]}{match[3]}={value}"

    return hash_url_credentials(MODEL_ARG.sub(pair, model_args))


def hash_values(value: object, secrets: Iterable[str]) -> object:
    """A JSON-like value with every occurrence of each secret, under any name and in any of its written forms
    (:func:`written_forms`), replaced by :func:`hash_secret` of it (in each string, keys included, longest form first):
    what an identity holds of a secret given under a name outside the rule (``hf_auth: X`` beside ``token: X``), or
    escaped inside a nested value's JSON (``extra: {api_key: "pässwörd"}`` as ``p\\u00e4ssw\\u00f6rd``)."""
    return _hashed(value, _hashed_forms(secrets))


def _hashed_forms(secrets: Iterable[str]) -> list[tuple[str, str]]:
    """(written form, the hash of its secret), longest form first."""
    pairs = {form: hash_secret(secret) for secret in set(secrets) for form in written_forms([secret])}
    return sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)


def _hashed(value: object, forms: list[tuple[str, str]]) -> object:
    if not forms:
        return value
    if isinstance(value, str):
        for form, hashed in forms:
            value = value.replace(form, hashed)
        return value
    if isinstance(value, Mapping):
        return {_hashed(key, forms): _hashed(item, forms) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_hashed(item, forms) for item in value]
    return value


def redact_mapping(values: object) -> object:
    """A JSON-like value with every secret-named mapping entry, and each URL's secrets (credentials, secret-named
    query parameters) in any string, hashed (recursively)."""
    if isinstance(values, Mapping):
        return {
            key: hash_secret(str(item)) if is_secret_name(str(key)) and item not in (None, "") else redact_mapping(item)
            for key, item in values.items()
        }
    if isinstance(values, list | tuple):
        return [redact_mapping(item) for item in values]
    return hash_url_secrets(values) if isinstance(values, str) else values


def _flag_name(word: str) -> str | None:
    return word.lstrip("-").split("=", 1)[0] if word.startswith("-") else None


def args_secrets(args: Sequence[str]) -> list[str]:
    """The clear secret values in command-line words: ``key=value`` pairs inside a word
    (``--model_args a=1,api_key=X``) and the value of a secret-named flag (``--api_key X``, ``--api_key=X``)."""
    found = []
    for index, word in enumerate(args):
        name = _flag_name(word)
        if name is not None and is_secret_name(name):
            value = word.split("=", 1)[1] if "=" in word else (args[index + 1] if index + 1 < len(args) else "")
            found += [value] if value else []
        else:  # a word of key=value pairs, or a flag's value written after its '=' (``--gen_kwargs=api_key=X``)
            found += model_args_secrets(word if name is None else word.partition("=")[2])
    return found


def redact_args(args: Sequence[str]) -> list[str]:
    """Command-line words with each secret of :func:`args_secrets` (and each URL's secrets) replaced by
    :func:`hash_secret` of it."""
    secrets = args_secrets(args)
    return [url_secrets_replaced(word, hash_secret, also=secrets) for word in args]


def collect_secrets(
    model_args: str = "",
    args: Sequence[str] = (),
    mappings: Iterable[object] = (),
    environment: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Every clear secret a run is given, from every place a spec can hold one: ``model_args``, command-line
    words (``eval_args``), mappings (``env``, ``vllm_args``, a whole spec as read) and the inherited environment's
    secret-named variables, with the secrets of any URL among them (its credentials, its secret-named query
    parameters; a URL given as a ``key=value`` pair's value too: :func:`url_secrets`). Values under 4 characters
    (placeholders such as ``x``; 8 for the inherited environment's secret-named variables, where flags such as
    ``true`` sit) are left alone: replacing them would garble every line of a log."""
    found = [*text_secrets(model_args), *value_secrets(list(args))]
    found += [secret for mapping in mappings for secret in value_secrets(mapping)]
    environment = environment or {}
    inherited = [str(value) for name, value in environment.items() if is_secret_name(name) and len(value) >= 8]
    inherited += [secret for value in environment.values() for secret in url_secrets(value)]
    return tuple(secret for secret in dict.fromkeys([*found, *inherited]) if len(secret) >= SHORTEST)


@contextmanager
def handed_over(secrets: Sequence[str]) -> Iterator[tuple[dict[str, str], tuple[int, ...]]]:
    """A pipe holding ``secrets`` for a child process: (the variable naming it, the descriptor to pass). The child
    redacts what the batch collected, not only what its own command line and environment show (:func:`handed_secrets`).
    """
    payload = json.dumps(list(secrets)).encode()
    if not secrets:
        yield {}, ()
        return
    if len(payload) > HANDOFF_MAX:  # never started without them: it would write what only the batch knows is secret
        raise RuntimeError(
            f"the {len(secrets)} secrets to hand the evaluation take {len(payload)} bytes, over the {HANDOFF_MAX} a "
            "pipe holds before it starts"
        )
    read, write = os.pipe()
    try:
        os.write(write, payload)
    finally:
        os.close(write)
    try:
        yield {HANDOFF: str(read)}, (read,)
    finally:
        os.close(read)


def handed_secrets() -> tuple[str, ...]:
    """The secrets a batch handed this process (:func:`handed_over`), read once: the variable is removed and the pipe
    closed, so no process this one starts inherits either. () when none were handed, or the pipe is unreadable."""
    named = settings.raw(HANDOFF)
    os.environ.pop(HANDOFF, None)
    if not named.isdigit():
        return ()
    try:
        with os.fdopen(int(named), "rb") as pipe:
            found = json.loads(pipe.read(HANDOFF_MAX + 1))
    except (OSError, ValueError):
        return ()
    return tuple(secret for secret in found if isinstance(secret, str)) if isinstance(found, list) else ()


def reserved_word(args: Sequence[str]) -> str | None:
    """Why ``args`` cannot be handed to a batch's evaluation (one holds a :data:`PLACEHOLDER`); None when they can."""
    for word in args:
        if reserved := PLACEHOLDER.search(word):
            return f"an argument holds {reserved[0]}, a word reserved for the secrets a batch hands its evaluation"
    return None


def overlaps(args: Sequence[str], secrets: Sequence[str]) -> list[str]:
    """The stretches of ``args`` where written forms of two secrets overlap (``zzabcd`` and ``abcdXYZW`` in
    ``k=zzabcdXYZW``), each whole: handed over as secrets of their own, they are concealed whole, where replacing one
    form would leave a piece of the other in sight."""
    forms = written_forms(secrets)
    found = []
    for word in args:
        spans = sorted((match.start(), match.end()) for form in forms for match in re.finditer(re.escape(form), word))
        merged: list[list[int]] = []
        for start, end in spans:
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(end, merged[-1][1])
            else:
                merged.append([start, end])
        found += [word[start:end] for start, end in merged if word[start:end] not in forms]
    return list(dict.fromkeys(found))


def concealed_args(args: Sequence[str], secrets: Sequence[str]) -> list[str]:
    """``args`` with each written form of each secret replaced by its :data:`PLACEHOLDER`, for a child handed
    ``secrets`` (:func:`handed_over`) to reveal (:func:`revealed_args`). Raises RuntimeError for an argument already
    holding a placeholder (:func:`reserved_word`; the plan refuses such a spec before anything starts)."""
    if (reserved := reserved_word(args)) is not None:
        raise RuntimeError(reserved)
    forms = written_forms(secrets)
    if not forms:
        return list(args)
    numbers = {form: number for number, form in enumerate(forms)}
    # one pass, longest form first where several start at one place: a form inside a longer one, or inside a
    # placeholder, is never replaced on its own (two secrets overlapping in one word: their stretch, :func:`overlaps`,
    # is handed as a secret of its own by the batch, so it is the longest form there)
    pattern = re.compile("|".join(map(re.escape, forms)))
    return [pattern.sub(lambda match: f"<secret:{numbers[match[0]]}>", word) for word in args]


def revealed_args(args: Sequence[str], secrets: Sequence[str]) -> list[str]:
    """``args`` with each :data:`PLACEHOLDER` of :func:`concealed_args` replaced by the form of the handed ``secrets``
    it stands for. Raises ValueError, naming the placeholder, for one none stands behind."""
    forms = written_forms(secrets)

    def form(match: re.Match[str]) -> str:
        number = int(match[1])
        if number < len(forms):
            return forms[number]
        handed = f"none of those handed to it is number {number}" if forms else "none was handed to it"
        raise ValueError(
            f"{match[0]} on the command line stands for a secret a batch hands its evaluation through a pipe, and "
            f"{handed}: write the value itself"
        )

    return [PLACEHOLDER.sub(form, word) for word in args]


def copy_redacted(
    source: BinaryIO, log: BinaryIO, secrets: Sequence[str], on_segment: Callable[[str], None] | None = None
) -> None:
    """Copy a child's output into ``log`` with every secret replaced in each of its written forms (lmms-eval prints
    ``model_args`` in clear, vLLM its non-default arguments), segment by segment (a segment ends at a newline or at
    tqdm's carriage return), each also given to ``on_segment`` (e.g. the batch's progress reader)."""
    encoded = [form.encode() for form in written_forms(secrets)]
    read, pending = getattr(source, "read1", source.read), b""
    while chunk := read(1 << 16):
        pending += chunk
        *segments, pending = SEGMENT_END.split(pending)
        for segment in segments:
            for secret in encoded:
                segment = segment.replace(secret, REDACTED.encode())
            log.write(segment)
            if on_segment is not None:
                on_segment(segment.decode(errors="replace"))
        log.flush()
    for secret in encoded:
        pending = pending.replace(secret, REDACTED.encode())
    log.write(pending)
    log.flush()


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret, in each of its written forms (:func:`written_forms`), replaced
    by ``[REDACTED]`` (longest first)."""
    for secret in written_forms(secrets):
        text = text.replace(secret, REDACTED)
    return text


# How a value is escaped where a secret can be written: inside a JSON string (non-ASCII kept, or escaped as \\uXXXX:
# json.dumps's default, which nests a model's settings in model_args), inside a single-quoted shell word (shlex.quote
# in a logged command line) and inside a Python repr (an error message naming a value).
ESCAPES: tuple[Callable[[str], str], ...] = (
    lambda text: json.dumps(text, ensure_ascii=False)[1:-1],
    lambda text: json.dumps(text)[1:-1],
    lambda text: text.replace("'", "'\"'\"'"),
    lambda text: repr(text)[1:-1],
)


def written_forms(secrets: Iterable[str]) -> list[str]:
    """Each secret (and each line of one of several lines) as text and as each of :data:`ESCAPES` writes it, once or
    twice over (a JSON string inside another, a JSON value in a shell word), longest first, then in text order (so two
    processes list the same secrets' forms alike: :func:`concealed_args`); forms under :data:`SHORTEST` characters are
    left out."""
    return list(_written_forms(tuple(secrets)))


# redact_text runs per console line and per string of a value: the forms are made once per set of secrets
@functools.lru_cache(maxsize=64)
def _written_forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    forms = set()
    for whole in secrets:  # a secret of several lines (a PEM key) also line by line: logs are written a line at a time
        for secret in {whole, *(whole.splitlines() if "\n" in whole or "\r" in whole else ())}:
            once = {escape(secret) for escape in ESCAPES}
            forms |= {secret, *once, *(escape(form) for form in once for escape in ESCAPES)}
    return tuple(sorted((form for form in forms if len(form) >= SHORTEST), key=lambda form: (-len(form), form)))


def redact_value(value: object, secrets: Sequence[str]) -> object:
    """A JSON-like value with every secret replaced by ``[REDACTED]`` in each string, keys included (recursively)."""
    if not secrets:
        return value
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, Mapping):
        return {redact_value(key, secrets): redact_value(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(item, secrets) for item in value]
    return value


class RedactingStream:
    """A text stream writing to ``stream`` with every secret replaced, a line (or a tqdm carriage-return segment)
    at a time, so a secret split over two writes is still caught."""

    def __init__(self, stream: TextIO, secrets: Sequence[str]) -> None:
        self.stream, self.secrets, self.pending = stream, tuple(secrets), ""

    def write(self, text: str) -> int:
        self.pending += text
        cut = max(self.pending.rfind("\n"), self.pending.rfind("\r")) + 1
        if cut:
            self.stream.write(redact_text(self.pending[:cut], self.secrets))
            self.pending = self.pending[cut:]
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.stream.write(redact_text(self.pending, self.secrets))
            self.pending = ""
        self.stream.flush()

    def __getattr__(self, name: str) -> object:  # isatty, encoding, fileno ...: the wrapped stream's
        return getattr(self.stream, name)


@contextmanager
def redacted_console(secrets: Sequence[str]) -> Iterator[None]:
    """Within the block, what this process prints (stdout and stderr) has every secret replaced."""
    if not secrets:
        yield
        return
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(sys.stdout, secrets), RedactingStream(sys.stderr, secrets)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = saved
