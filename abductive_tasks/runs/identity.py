"""What a batch result is a result of: a run's identity and the keys derived from it.

A run's **identity** is everything that decides its numbers: the model (backend, route, vLLM settings,
``model_args`` with secret values hashed, :mod:`abductive_tasks.redaction`), the extra lmms-eval arguments, the
spec's and the model's ``env``, the score-changing ``ABDUCTIVE_*`` variables of the run's whole environment, the
judge, the package and lmms-eval versions, a backend of ours' version (:func:`backend_versions`), each task's
benchmark and ``metadata: version``, and per benchmark a **data fingerprint**: the resolved data root (what
``ABDUCTIVE_DATA`` selects) by content: a hash of every annotation and image file's bytes under its path relative to
the benchmark's root. Neither the root's absolute path nor the ``ABDUCTIVE_DATA`` value enters, so ``pip install .``
vs ``pip install -e .`` or a copy of the data to another folder reuses finished work, while a changed image does
not. File hashes are cached by (absolute path, size, modification time) in ``<ABDUCTIVE_CACHE>/file_hashes.sqlite3``
(each row sealed), so a repeated fingerprint reads no unchanged file again. The ``limit`` is kept beside the
identity, not in it: a full run answers a ``limit: 2`` spec too. A chained task's entry also holds what it reads
from another run, by content (``inputs``: :mod:`abductive_tasks.runs.chain`), and :func:`model_key` names the model
a stage output is bound to (:func:`bound_to_model` tells whether a binding names a run's model).

A task is done, and a leaderboard cell is shown, only when a run's identity gives the same
:func:`task_key` as the spec's (:mod:`abductive_tasks.runs.history`); a run's response cache lives in a
folder named by :func:`cache_key`, which also covers what the run's tasks read (:mod:`abductive_tasks.runs.cache`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import abductive_tasks
from abductive_tasks import settings
from abductive_tasks.inputs.files import cache_key as sealing_key
from abductive_tasks.inputs.files import file_sha256, read_regular, seal_mac
from abductive_tasks.inputs.loading import ENV_VAR, DataError, benchmark_root, data_content
from abductive_tasks.redaction import (
    hash_url_secrets,
    hash_values,
    redact_args,
    redact_mapping,
    redact_model_args,
)

SCHEMA = 2  # 2: the model entry names its weights by content (model_weights)
FILE_HASHES = "file_hashes.sqlite3"  # under the cache root (settings.cache_root)
ANNOTATION_SUFFIXES = frozenset({".csv", ".json", ".jsonl", ".parquet"})
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff"})


def hub_repo(benchmark: str) -> str | None:
    """The hub dataset ``benchmark``'s loader downloads when ``ABDUCTIVE_DATA`` is unset: ``HUB_REPO`` of
    ``abductive_tasks.<benchmark>.data`` (or of ``abductive_tasks.<benchmark>`` for a single-module benchmark)."""
    for name in (f"abductive_tasks.{benchmark}.data", f"abductive_tasks.{benchmark}"):
        try:
            module = import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            continue
        if hasattr(module, "HUB_REPO"):
            return module.HUB_REPO
    return None


@contextmanager
def _data_choice(choice: str) -> Iterator[None]:
    previous = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = choice
    try:
        yield
    finally:
        if previous is None:
            del os.environ[ENV_VAR]
        else:
            os.environ[ENV_VAR] = previous


def _walk_files(root: Path) -> Iterator[Path]:
    """Every file under ``root`` (following folder links, as the loaders do), in a stable order."""
    for folder, folders, files in os.walk(root, followlinks=True):
        folders.sort()
        for name in sorted(files):
            yield Path(folder) / name


class FileHashes:
    """sha256 of files, remembered by (absolute path, size, modification time) in an SQLite table; each row sealed
    with the cache key (:func:`~abductive_tasks.inputs.files.seal_mac`), so an edited row is hashed again. A link at
    the table's file is removed, never followed (SQLite would create and write the file it points to)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings.cache_root() / FILE_HASHES
        self.key = sealing_key(self.path.parent)
        self.known: dict[tuple[str, int, int], str] = {}
        self.new: list[tuple[str, int, int, str, str]] = []
        try:
            with self._connect() as connection:
                rows = connection.execute("SELECT path, size, mtime_ns, sha256, seal FROM sealed_hashes").fetchall()
            self.known = {
                (path, size, mtime): digest
                for path, size, mtime, digest, seal in rows
                if self.key is not None and seal == self._seal(path, size, mtime, digest)
            }
        except (OSError, sqlite3.Error):  # no table yet, or an unreadable file: hash everything again
            pass

    def _connect(self) -> sqlite3.Connection:
        """The table's database; a link at its name is removed first (SQLite itself refuses one at its journal)."""
        if self.path.is_symlink():
            self.path.unlink()
        return sqlite3.connect(self.path)

    def _seal(self, path: str, size: int, mtime: int, digest: str) -> str:
        return seal_mac(self.key, "file_hashes", [f"{path}\0{size}\0{mtime}\0{digest}".encode()])

    def sha256(self, path: Path) -> str:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        digest = self.known.get(key)
        if digest is None:
            digest = file_sha256(path)
            self.known[key] = digest
            if self.key is not None:
                self.new.append((*key, digest, self._seal(*key, digest)))
        return digest

    def save(self) -> None:
        """Remember the hashes computed since loading (best effort: a read-only cache only costs time)."""
        if not self.new:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as connection:
                connection.execute(
                    "CREATE TABLE IF NOT EXISTS sealed_hashes (path TEXT, size INTEGER, mtime_ns INTEGER, "
                    "sha256 TEXT, seal TEXT, PRIMARY KEY (path, size, mtime_ns))"
                )
                connection.executemany("INSERT OR REPLACE INTO sealed_hashes VALUES (?, ?, ?, ?, ?)", self.new)
        except (OSError, sqlite3.Error):
            return
        self.new = []


def data_fingerprint(benchmark: str, choice: str, hashes: FileHashes | None = None) -> dict:
    """The data ``ABDUCTIVE_DATA=choice`` gives ``benchmark``, by content:
    hashes of its annotation files and of its image files (each file under its path relative to the root).

    A source that does not resolve is fingerprinted by its error (the run then fails with it).
    """
    source = choice.strip() or "hub"
    try:
        with _data_choice(choice):
            # Only the hub needs the repository's name, which imports the benchmark's loader (pyarrow, PIL).
            repo = None if settings.data_source() else hub_repo(benchmark)
            root = Path(benchmark_root(benchmark, repo)).resolve()
    except DataError as error:
        return {"source": source, "error": str(error)}
    hashes = hashes or FileHashes()
    annotations, images = hashlib.sha256(), hashlib.sha256()
    counts = {"annotation_files": 0, "image_files": 0}
    for path in _walk_files(root):
        suffix = path.suffix.lower()
        kind = "annotation" if suffix in ANNOTATION_SUFFIXES else "image" if suffix in IMAGE_SUFFIXES else None
        if kind is None:
            continue
        line = f"{path.relative_to(root).as_posix()}\0{hashes.sha256(path)}\n".encode()
        (annotations if kind == "annotation" else images).update(line)
        counts[f"{kind}_files"] += 1
    hashes.save()
    return {
        "source": source,  # where the data was found: kept for a later check, never part of a key (data_content)
        "annotations_sha256": annotations.hexdigest(),
        "images_sha256": images.hexdigest(),
        **counts,
    }


def package_versions() -> dict[str, str]:
    """The versions of the code that runs: ours from the package itself (an editable install's metadata keeps the
    version it was installed at, however the checkout moved since), lmms-eval's from its installed metadata."""
    try:
        harness = version("lmms-eval")
    except PackageNotFoundError:
        harness = "unknown"
    return {"abductive-tasks": abductive_tasks.__version__, "lmms-eval": harness}


BACKEND = "backend {}"  # the name a backend of ours has among an identity's versions


def backend_versions(backend: str) -> dict[str, str]:
    """``{"backend <name>": version}`` for a model backend of this package (versioned as tasks are:
    :data:`abductive_tasks.models.manifests.VERSIONS`); {} for any other (lmms-eval's own backends: their identities
    stay as they were)."""
    from abductive_tasks.lmms_source import own_model_versions

    version = own_model_versions().get(backend)
    return {BACKEND.format(backend): version} if version else {}


# Variables naming a model's weights or files: a local file or folder counts by content, not by path.
MODEL_FILES = frozenset(
    {
        "ABDUCTIVE_DVE_EVALUATOR",
        "ABDUCTIVE_DVE_EVALUATOR_TEXT",
        "ABDUCTIVE_BERTSCORE_MODEL",
        "ABDUCTIVE_CLIP_MODEL",
        "ABDUCTIVE_SIMILARITY_MODEL",
    }
)


def content_digest(path: Path, hashes: FileHashes | None = None) -> str:
    """SHA-256 of a file's bytes, or of a folder's files (each under its relative path)."""
    hashes = hashes or FileHashes()
    if path.is_file():
        digest = hashes.sha256(path)
    else:
        tree = hashlib.sha256()
        for file in _walk_files(path):
            tree.update(f"{file.relative_to(path).as_posix()}\0{hashes.sha256(file)}\n".encode())
        digest = tree.hexdigest()
    hashes.save()
    return digest


def score_settings(environment: Mapping[str, str]) -> dict[str, str]:
    """The ``ABDUCTIVE_*`` variables set in ``environment`` (the run's whole environment) that can change a score;
    one naming local model weights or files (:data:`MODEL_FILES`) with their content digest (``path@sha256:...``), so
    weights replaced at the same path are another identity. ``ABDUCTIVE_DATA`` is left out: the data fingerprint says
    what it selected, by content."""
    found = {
        name: environment.get(name, "").strip()
        for name, variable in settings.VARIABLES.items()
        if variable.changes_scores and name != ENV_VAR
    }
    chosen = {
        name: value for name, value in sorted(found.items()) if value and value != settings.VARIABLES[name].default
    }
    for name in MODEL_FILES & chosen.keys():
        local = Path(chosen[name]).expanduser()
        if local.exists():
            chosen[name] += f"@sha256:{content_digest(local)}"
    return chosen


def build_identity(
    *,
    model: Mapping,
    model_args: str,
    eval_args: Sequence[str],
    env: Mapping[str, str],
    environment: Mapping[str, str],
    judge: Mapping | None,
    tasks: Mapping[str, Mapping],
    data: Mapping[str, Mapping],
    secrets: Sequence[str] = (),
) -> dict:
    """A run identity (JSON-ready, no secret in clear).

    ``env``: the spec's and the model's ``env``; ``environment``: the run's whole environment (its
    score-changing ``ABDUCTIVE_*`` variables count, wherever they were set; ``ABDUCTIVE_DATA`` counts through
    ``data``); ``tasks``: task ->
    {benchmark, version}; ``data``: benchmark -> :func:`data_fingerprint`; ``secrets``: the run's collected secret
    values, hashed wherever they appear, under any name.
    """
    scored = score_settings(environment)
    vllm = model.get("vllm")
    served = str(vllm["model"]) if isinstance(vllm, Mapping) and vllm.get("model") else None
    # the weights by content: weights replaced at the same path (or a pinned revision changed) are another identity
    hashes = FileHashes(settings.cache_root(environment) / FILE_HASHES)  # the table the run's own process keeps
    weights = model_weights(model_args, served, hashes, resolved=False)
    identity = {
        "schema": SCHEMA,
        "model": {**redact_mapping(dict(model)), "model_args": redact_model_args(model_args), "weights": weights},
        "eval_args": redact_args(eval_args),
        "env": redact_mapping({name: value for name, value in sorted(env.items()) if name != ENV_VAR}),
        "settings": scored,
        "judge": redact_mapping(dict(judge)) if judge else None,
        "versions": {**package_versions(), **backend_versions(str(model.get("backend") or ""))},
        "tasks": {task: dict(entry) for task, entry in tasks.items()},
        "data": {benchmark: dict(fingerprint) for benchmark, fingerprint in data.items()},
    }
    return hash_values(identity, secrets)


def _digest(payload: object) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=True, default=str).encode()).hexdigest()[:16]


def _run_settings(identity: Mapping) -> dict:
    return {key: identity[key] for key in ("schema", "model", "eval_args", "env", "settings", "judge", "versions")}


def of_this_schema(identity: Mapping) -> bool:
    """Whether ``identity`` was made under today's :data:`SCHEMA`: only then can its keys be made and compared."""
    return identity.get("schema") == SCHEMA


def task_key(identity: Mapping, task: str) -> str | None:
    """What a result of ``task`` depends on, hashed; None when the identity does not cover ``task``, or is of another
    :data:`SCHEMA` (a record written before what identifies a result changed: another identity, never a damaged one,
    whatever parts it lacks)."""
    entry = identity["tasks"].get(task)
    if entry is None or not of_this_schema(identity):
        return None
    return _digest(
        {
            **_run_settings(identity),
            "task": task,
            "task_entry": entry,
            "data": data_content(identity["data"].get(entry.get("benchmark"))),
        }
    )


def cache_key(identity: Mapping, tasks: Iterable[str]) -> str:
    """What a cached response of a run of ``tasks`` depends on beyond lmms-eval's own key (task config, document
    index, prompt text): model, settings, data, and what the chained tasks among ``tasks`` read (their ``inputs``).

    A chained task's reply can hang on what no prompt text holds (MuCR's Exp is shown the picked effect as an image),
    so a run reading other upstream outputs gets another folder. It covers the run's tasks (lmms-eval reads one cache
    per run), not every task of the identity: a run whose tasks read nothing keeps the key of model, settings and data
    alone, and its answers stay reusable when another task's upstream changes."""
    payload = {
        **_run_settings(identity),
        "data": {name: data_content(print_) for name, print_ in identity["data"].items()},
    }
    entries = identity["tasks"]
    inputs = {task: entries[task]["inputs"] for task in sorted(tasks) if "inputs" in entries.get(task, {})}
    return _digest({**payload, "inputs": inputs} if inputs else payload)


def without_limit(words: Sequence[str]) -> list[str]:
    """lmms-eval arguments without ``--limit N`` / ``--limit=N`` (the limit is kept beside the identity)."""
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--limit":
            skip = True
        elif not word.startswith("--limit="):
            kept.append(word)
    return kept


def model_key(identity: Mapping) -> str:
    """The model a run's answers come from: route, backend, vLLM settings, ``model_args`` (secret values hashed) and
    the lmms-eval arguments but ``--limit``. A stage output is bound to it (:mod:`abductive_tasks.inputs.stages`),
    so a task reading another run's output refuses one of another model."""
    return _digest({"model": identity["model"], "eval_args": without_limit(identity["eval_args"])})


def bound_to_model(binding: Mapping, identity: Mapping) -> bool:
    """Whether a stage output's ``binding`` (:mod:`abductive_tasks.inputs.stages`: model, backend, model_args, key)
    names the model of ``identity``, whatever lmms-eval arguments either run had (``--batch_size``, ``--seed``: they
    enter :func:`model_key`, not the model): its key, or the same backend and ``model_args`` (secret values hashed as
    the identity hashes them; a route's vLLM settings are in them) naming the same weights. Weights a local file or
    folder holds count by content, which a binding does not say: only the key tells those."""
    if binding.get("key") == model_key(identity):
        return True
    model = identity.get("model") or {}
    weights = model.get("weights") or {}
    if "sha256" in weights or binding.get("backend") != model.get("backend"):
        return False
    written = str(binding.get("model_args") or "")
    return written == (model.get("model_args") or "") and model_weights(written, resolved=False) == weights


WEIGHTS_KEYS = ("pretrained", "model")  # --model_args entries naming a model's weights (hub id or local folder)


def model_weights(
    model_args: str,
    served: str | None = None,
    hashes: FileHashes | None = None,
    *,
    resolved: bool = True,
    environment: Mapping[str, str] | None = None,
) -> dict:
    """Which weights a model ran: a local file or folder by its content (``sha256``), a hub model by the revision its
    local cache resolved (``revision``: a commit; the one asked for when the cache has none yet, or when not
    ``resolved``); {} for a backend naming no weights (our baselines). ``served``: the model a vLLM route serves (it
    names the weights). The run identity takes a hub model's revision as asked (``resolved=False``): the cache
    resolves a branch only once lmms-eval has downloaded it, which would make the second batch of the same weights
    another identity; a commit pinned with ``revision=`` is exact, and each run's record says the commit it ran.
    ``environment``: the run's, whose Hugging Face cache resolves the revision (default: this process's)."""
    from abductive_tasks.lmms_source import model_arg_entries

    named = dict(entry.split("=", 1) for entry in model_arg_entries(model_args) if "=" in entry)
    name = served or next((named[key].strip().strip("\"'") for key in WEIGHTS_KEYS if named.get(key)), "")
    if not name:
        return {}
    local = Path(name).expanduser()
    if local.exists():
        return {"name": local.name, "sha256": content_digest(local, hashes)}
    revision = str(named.get("revision") or "main").strip()
    # a URL's secrets (``pretrained=https://user:pass@host/...``, ``...?token=X``) enter the record as their salted hash
    commit = _cached_revision(name, revision, environment) if resolved else None
    return {"name": hash_url_secrets(name), "revision": commit or revision}


def hub_cache(environment: Mapping[str, str] | None = None) -> Path:
    """The Hugging Face hub cache a process with ``environment`` uses (huggingface_hub's own rule: ``HF_HUB_CACHE``,
    ``HUGGINGFACE_HUB_CACHE``, ``HF_HOME/hub``, ``XDG_CACHE_HOME/huggingface/hub``); this process's when None."""
    if environment is None:
        from huggingface_hub import constants

        return Path(constants.HF_HUB_CACHE)
    home = environment.get("HF_HOME") or str(Path(environment.get("XDG_CACHE_HOME") or "~/.cache") / "huggingface")
    found = environment.get("HF_HUB_CACHE") or environment.get("HUGGINGFACE_HUB_CACHE") or str(Path(home) / "hub")
    return Path(found).expanduser()


def _cached_revision(repo: str, revision: str, environment: Mapping[str, str] | None = None) -> str | None:
    """The commit the Hugging Face cache of ``environment`` (:func:`hub_cache`) resolved ``revision`` of model
    ``repo`` to (None: not cached)."""
    if len(revision) == 40 and all(char in "0123456789abcdef" for char in revision):
        return revision
    try:
        ref = hub_cache(environment) / f"models--{repo.replace('/', '--')}" / "refs" / revision
        return read_regular(ref).decode("utf-8").strip() or None
    except (ImportError, OSError, UnicodeDecodeError):
        return None
