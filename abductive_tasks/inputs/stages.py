"""Chained protocols: what a task reads from another task's run, stored once, read back by content, bound to its run.

Some protocols need two runs, because lmms-eval builds every request before it sends any: MuCR's Exp explains the
effect image and cue phrase the model picked in C2E and Cue (Eq. 5), CCoT's second stage answers with the scene graph
its first stage drew (Table 2), NL-Eye's image-to-text predicts from the descriptions a describer wrote (t.1). A
**stage** is one such read, declared once, in the reading task's YAML metadata: ``reads: {mucr_c2e: picks}`` names
the upstream task and the kind of output read (:data:`KINDS`; :func:`declared_reads`).

**Stage outputs.** What one upstream run gave, per item (:class:`Item`): the digest of the document it answered (by
content: texts as shown, images by their bytes; :func:`content_digest`), the value (the option picked, the graph, the
description; for a reasoning the reply itself, :data:`REPLY_KINDS`; None when the request failed or the reply was
unreadable) and how the reply was read. A stage output is
bound to the run that produced it (``binding``: the task, its task key, the model's label, backend, arguments and key,
the ``--limit``) and derived from that run's samples (the upstream records carry the value:
:func:`output_from_samples`), so the samples stay the source of truth. Stored sealed
(:func:`~abductive_tasks.inputs.files.seal`) and named by the SHA-256 of its content under
``<ABDUCTIVE_CACHE>/stages/outputs/<digest>.json`` (:func:`save`); read back only when the seal and the digest check
(:func:`load`). ``abductive-eval`` and the batch runner run the upstream stages and hand a
reading run the digests it reads (``ABDUCTIVE_STAGE_INPUTS``) and what the run is (``ABDUCTIVE_RUN``: model, limit,
and where a stage is read from another model on purpose, that model).

**Named outputs** (:class:`NamedStore`): what the variables of plain lmms-eval name (``ABDUCTIVE_MUCR_SCENE_GRAPHS``,
``ABDUCTIVE_NLEYE_DESCRIBER``): per-item entries the writing stage stores while it runs,
``<ABDUCTIVE_CACHE>/stages/named/<kind>/<name>/<key>.json``, each with its document digest and, when ``abductive-eval``
ran it, its run's binding; sealed as stage outputs are, so an entry edited or written by hand is not read: its item
counts as missing, as does one the storing run asked (inside its ``--limit``) whose entry is gone. A name whose entries
were stored by runs of different models is refused (:meth:`NamedStore.output`).

**Reading** (:func:`checked`): an output is refused in one line when it comes from another model (unless the reading
run names that model as the stage's source), from a run whose model cannot be established while the reading run's can
(``abductive-eval``: picks without the results file beside their samples, graphs stored by plain lmms-eval; unless a
variable names the source on purpose), from a ``--limit`` run that the reading run is not, or from other data (an
item id the data loaded now lacks, or a document that differs from the one built now). An item whose output is missing,
failed or unreadable is never asked: it is scored as the paper counts it (0, or wrong) through a stand-in document
attached to a neighbouring asked one (:func:`counting_every_item`; :mod:`abductive_tasks.scoring.taskspec`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from loguru import logger

from abductive_tasks import settings
from abductive_tasks.inputs.files import cache_key, file_sha256, read_regular, redacted, seal, unseal, write_atomic
from abductive_tasks.inputs.loading import DataError, documents, json_lines

if TYPE_CHECKING:
    import datasets

SCHEMA = 1
# The kinds of output a task can read from another task's run -> the field of the upstream record holding it.
KINDS = {"picks": "prediction", "graphs": "graph", "descriptions": "description", "reasonings": "reply"}
# Kinds whose value is the upstream reply itself, read off the samples line (its response), not a record field.
REPLY_KINDS = {"reasonings"}
INPUTS_VARIABLE = "ABDUCTIVE_STAGE_INPUTS"  # {upstream task: stage output digest}, set by abductive-eval / batch
RUN_VARIABLE = "ABDUCTIVE_RUN"  # what the reading run is: model, limit, the sources named on purpose
MISSING_FIELD = "upstream_missing"  # a document's stand-ins for the items before it whose upstream output is missing
NO_UPSTREAM_FIELD = "no_upstream"  # the one stand-in question of a run given no upstream output at all
_DIGEST = re.compile(r"[0-9a-f]{64}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class StageError(DataError):
    """An upstream output a task refuses (another model, other data, a limited run, damaged); the message is one
    line naming the mismatch."""


# ---------------------------------------------------------------- declarations


class _TagIgnoringLoader(yaml.SafeLoader):
    """Task YAML read for its metadata only: ``!function`` values are not needed."""


_TagIgnoringLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


@functools.cache
def declared_reads(task: str) -> dict[str, str]:
    """What ``task`` reads from other tasks' runs, as its YAML metadata declares (``reads: {upstream task: kind}``);
    {} for a task that reads nothing. Our task YAML files are named after their task."""
    from abductive_tasks.compat import tasks_path

    found = sorted(tasks_path().rglob(f"{task}.yaml"))
    if not found:
        return {}
    metadata = (yaml.load(found[0].read_text(encoding="utf-8"), Loader=_TagIgnoringLoader) or {}).get("metadata")
    reads = (metadata or {}).get("reads") or {}
    unknown = {kind for kind in reads.values() if kind not in KINDS}
    if unknown:
        raise ValueError(f"{found[0]}: metadata.reads names unknown kinds {sorted(unknown)}; known: {sorted(KINDS)}")
    return dict(reads)


# ---------------------------------------------------------------- content


@functools.cache
def file_digest(path: str) -> str:
    """An image (or any file) by content: BLAKE2b, 16 bytes, of its bytes."""
    return hashlib.blake2b(read_regular(Path(path)), digest_size=16).hexdigest()


def content_digest(texts: Sequence[str], images: Sequence[str] = ()) -> str:
    """A document by content: its texts as shown and its images by their bytes, in order (BLAKE2b, 16 bytes)."""
    digest = hashlib.blake2b(digest_size=16)
    for part in [*texts, *(file_digest(str(path)) for path in images)]:
        data = str(part).encode()
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


# ---------------------------------------------------------------- stage outputs


@dataclass(frozen=True)
class Item:
    """One item's upstream output: the document it answered (digest), its value (None: failed or unreadable) and how
    the reply was read."""

    doc: str
    value: Any
    status: str


@dataclass(frozen=True)
class StageOutput:
    """What one upstream run of ``task`` gave, per item id, bound to that run (``binding``; {} when unknown)."""

    kind: str
    task: str
    binding: dict
    items: dict[str, Item]
    origin: str = field(default="", compare=False)  # where it was read from, for messages (not its content)
    name: str = field(default="", compare=False)  # the name it was stored under (a variable's), '' for a run's
    # Items the upstream run asked whose output is not read (a named entry refused for its seal, or absent though
    # inside the run's --limit): missing, never beyond the limit (:func:`outside_limit`).
    unread: frozenset[str] = frozenset()
    # Why ``binding`` is {} (its run's model cannot be established: no results file beside the samples, a named store's
    # entries stored by plain lmms-eval), one clause for messages (:func:`checked`); '' when the binding is known.
    unbound: str = field(default="", compare=False)

    def payload(self) -> bytes:
        content = {
            "schema": SCHEMA,
            "kind": self.kind,
            "task": self.task,
            "binding": self.binding,
            "items": self._items(),
        }
        return json.dumps(content, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode()

    def _items(self) -> dict[str, list]:
        return {item_id: [item.doc, item.value, item.status] for item_id, item in sorted(self.items.items())}

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.payload()).hexdigest()

    @property
    def read_digest(self) -> str:
        """What its readers read, by content: kind, task, ``--limit`` and items, not whose run gave them (the binding's
        model arguments and keys hash secret values: a rotated key changes those, never this)."""
        content = {"kind": self.kind, "task": self.task, "limit": self.binding.get("limit"), "items": self._items()}
        return hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=True).encode()).hexdigest()

    @property
    def failed(self) -> int:
        """Items whose request failed or whose reply gave no value."""
        return sum(item.value is None for item in self.items.values())


def _record_of(line: dict) -> dict | None:
    """The record a samples line carries under its metrics (``[metric, record]``; the first one that is a dict)."""
    for value in line.values():
        if isinstance(value, list) and len(value) == 2 and isinstance(value[1], dict) and "item_id" in value[1]:
            return value[1]
    return None


def _reply_of(line: dict, record: dict) -> str | None:
    """The reply a samples line holds (lmms-eval's ``filtered_resps``, first request); None when its request failed
    (the record's status: :data:`abductive_tasks.scoring.taskspec.REQUEST_FAILED`) or it is empty."""
    if record.get("answer_status") == "request_failed":
        return None
    reply = line.get("filtered_resps") or line.get("resps") or None
    while isinstance(reply, list):
        reply = reply[0] if reply else None
    return reply if isinstance(reply, str) and reply.strip() else None


def output_from_records(
    kind: str, task: str, records: Iterable[tuple[str, dict]], binding: Mapping, origin: str = ""
) -> StageOutput:
    """A stage output from an upstream task's records (``(where, record)`` pairs, e.g. samples lines), each with
    ``item_id``, ``doc_digest``, the kind's value field (:data:`KINDS`) and ``answer_status``."""
    value_field = KINDS[kind]
    items: dict[str, Item] = {}
    for where, record in records:
        item_id, doc = record.get("item_id"), record.get("doc_digest")
        if not isinstance(item_id, str) or not item_id:
            raise StageError(f"{where}: field 'item_id' is {item_id!r}, expected a non-empty string")
        if not isinstance(doc, str) or not doc:
            raise StageError(
                f"{where}: no 'doc_digest' in the {task} record (written by an older abductive-tasks?); rerun {task}"
            )
        if value_field not in record:
            raise StageError(f"{where}: no {value_field!r} in the record; not an output of {task}")
        if item_id in items:
            raise StageError(f"{where}: item {item_id!r} appears twice")
        items[item_id] = Item(doc, record[value_field], str(record.get("answer_status", "")))
    if not items:
        raise StageError(f"{origin or task}: no {kind} of {task} in it")
    return StageOutput(kind, task, dict(binding), items, origin)


def records_digest(lines: Iterable[dict]) -> str | None:
    """What a run's samples give a later reader, by content, in any order: each line's record (item, document digest,
    the values of every kind) with its reply; None when no line carries a stage record (a task nothing reads).
    ``abductive-eval`` records it in the run's results as lmms-eval hands them over (``samples_records``), and a
    reader of the samples a variable names compares (:func:`~abductive_tasks.mucr.picks.samples_sealed`)."""
    entries = []
    for line in lines:
        record = _record_of(line)
        if record is not None and "doc_digest" in record:
            entry = [record, _reply_of(line, record)]
            entries.append(json.dumps(entry, sort_keys=True, ensure_ascii=True, default=str))
    return hashlib.sha256("\n".join(sorted(entries)).encode()).hexdigest() if entries else None


def output_from_samples(
    kind: str, task: str, path: Path, binding: Mapping, lines: Iterable[tuple[int, dict]] | None = None
) -> StageOutput:
    """The stage output of ``task`` that a samples file lmms-eval wrote (``--log_samples``) holds; ``lines``: its
    numbered lines where the caller read them already."""

    def records() -> Iterator[tuple[str, dict]]:
        for number, line in json_lines(path) if lines is None else lines:
            record = _record_of(line)
            if record is None:
                raise StageError(f"{path}, line {number}: no [metric, record] value; not a samples file of {task}")
            if kind in REPLY_KINDS:
                record = record | {KINDS[kind]: _reply_of(line, record)}
            yield f"{path}, line {number}", record

    return output_from_records(kind, task, records(), binding, str(path))


def store_root(root: Path | None = None) -> Path:
    return (root or settings.cache_root()) / "stages"


def _context(digest: str) -> str:
    return f"abductive-stage-output {digest}"


def _no_key(root: Path | None = None) -> str:
    """Why nothing can be sealed or unsealed under the cache at ``root``."""
    return f"no sealing key can be kept under {root or settings.cache_root()}; set ABDUCTIVE_CACHE"


def _sealed(payload: bytes, context: str, root: Path | None = None) -> bytes:
    """``payload`` sealed under the cache's key; a :class:`StageError` when no key can be kept there."""
    sealed = seal(payload, context, root)
    if sealed is None:
        raise StageError(f"cannot store a stage output: {_no_key(root)}")
    return sealed


def save(output: StageOutput, root: Path | None = None) -> str:
    """Store ``output`` sealed, named by its content digest (atomically); its digest."""
    payload, digest = output.payload(), output.digest
    sealed = _sealed(payload, _context(digest), root)
    path = store_root(root) / "outputs" / f"{digest}.json"
    try:
        stored = read_regular(path)
    except OSError:  # none yet, or no regular file in its place: written over
        stored = None
    if stored != sealed:
        if stored is not None or path.is_symlink() or path.exists():  # edited, damaged or replaced since it was stored
            logger.warning(
                f"{path}: damaged or not written by this tool (its seal or digest does not check); not read, written "
                "again from the run's samples"
            )
        write_atomic(path, sealed)
    return digest


def load(digest: str, root: Path | None = None) -> StageOutput:
    """The stage output stored under ``digest``, once its seal and its content digest check."""
    if not _DIGEST.fullmatch(digest or ""):
        raise StageError(f"{INPUTS_VARIABLE}: {digest!r} is not a stage output digest")
    path = store_root(root) / "outputs" / f"{digest}.json"
    try:
        blob = read_regular(path)
    except OSError as error:
        raise StageError(f"no stage output {digest[:12]} in {path.parent} ({error.strerror or error})") from None
    payload = unseal(blob, _context(digest), root)
    if payload is None or hashlib.sha256(payload).hexdigest() != digest:
        raise StageError(f"{path}: damaged or not written by this tool (its seal or digest does not check); not read")
    raw = json.loads(payload)
    items = {item_id: Item(*entry) for item_id, entry in raw["items"].items()}
    return StageOutput(raw["kind"], raw["task"], raw["binding"], items, str(path))


def remember(
    task_key: str, limit: int | float | None, digest: str, root: Path | None = None, samples: Path | None = None
) -> None:
    """Note ``digest`` as the latest output of the upstream run whose task key is ``task_key`` (sealed), and the
    ``samples`` file it was derived from (:func:`noted_samples`)."""
    noted = {"task_key": task_key, "limit": limit, "digest": digest} | ({"samples": str(samples)} if samples else {})
    payload = json.dumps(noted, sort_keys=True).encode()
    sealed = seal(payload, f"abductive-stage-latest {task_key} {limit}", root)
    if sealed is not None:
        write_atomic(store_root(root) / "latest" / f"{task_key}-{limit}.json", sealed)


def _noted(task_key: str, limit: int | float | None, root: Path | None) -> dict:
    """What :func:`remember` noted for ``task_key`` and ``limit``; {} when nothing, or nothing that checks."""
    path = store_root(root) / "latest" / f"{task_key}-{limit}.json"
    try:
        payload = unseal(read_regular(path), f"abductive-stage-latest {task_key} {limit}", root)
    except OSError:
        return {}
    noted = json.loads(payload) if payload else {}
    return noted if isinstance(noted, dict) else {}


def latest(task_key: str, limit: int | float | None, root: Path | None = None) -> str | None:
    """The digest :func:`remember` noted for ``task_key`` and ``limit`` (None: none, or one that does not check)."""
    digest = _noted(task_key, limit, root).get("digest")
    return digest if isinstance(digest, str) and _DIGEST.fullmatch(digest) else None


def noted_samples(task_key: str, limit: int | float | None, root: Path | None = None) -> Path | None:
    """The samples file the latest output of ``task_key`` and ``limit`` was derived from (None: not noted)."""
    samples = _noted(task_key, limit, root).get("samples")
    return Path(samples) if isinstance(samples, str) and samples else None


def differs_from(output: StageOutput, samples: Path) -> bool:
    """Whether ``samples`` (still there) no longer give ``output``'s items: edited, or damaged, after its run."""
    if not samples.is_file():
        return False
    try:
        return output_from_samples(output.kind, output.task, samples, {}).items != output.items
    except (DataError, OSError):
        return True


# ---------------------------------------------------------------- named outputs (the variables of plain lmms-eval)


class NamedStore:
    """Per-item outputs a stage stores under a name while it runs (the name a variable gives), one file per key."""

    def __init__(self, kind: str, variable: str) -> None:
        self.kind, self.variable = kind, variable
        self._warned: set[str] = set()  # names whose unread entries were warned of (a folder holds hundreds)

    def folder(self, name: str, root: Path | None = None) -> Path:
        """The folder of the outputs stored under ``name`` (made safe for a folder name; two names never share one)."""
        safe = _UNSAFE.sub("_", name)
        if safe != name or safe in {".", ".."}:
            safe = f"{safe}-{hashlib.blake2b(name.encode(), digest_size=4).hexdigest()}"
        return store_root(root) / "named" / self.kind / safe

    def save(self, name: str, key: str, doc: str, value: str, status: str) -> Path:
        """Store one item's output under ``name`` and ``key`` (atomically; replaces an older one), with the binding
        of the run storing it when ``abductive-eval`` says what it is."""
        target = self.folder(name) / f"{key}.json"
        run = this_run()
        binding = {key_: run[key_] for key_ in ("model", "backend", "model_args", "key", "limit") if key_ in run}
        record = {"kind": self.kind, "name": name, "key": key, "doc": doc, "value": value, "status": status}
        text = json.dumps(record | {"binding": binding if run else {}}, ensure_ascii=False, indent=1)
        sealed = _sealed(redacted(text).encode(), self._context(name, key))  # no secret a reply or arguments echo
        write_atomic(target, sealed)
        return target

    def _context(self, name: str, key: str) -> str:
        return f"abductive-stage-named {self.kind} {name} {key}"

    def lookup(self, name: str, key: str) -> tuple[Item, dict] | None:
        """The output stored under ``name`` for ``key`` and its binding; None when there is none, or the file is not
        one this store wrote for that name and key (its seal does not check; said once per name, :meth:`_not_read`)."""
        path = self.folder(name) / f"{key}.json"
        try:
            blob = read_regular(path)
        except FileNotFoundError:
            return None
        except OSError as error:
            self._not_read(name, f"{path} is unreadable ({error.strerror or error})")
            return None
        payload = unseal(blob, self._context(name, key))
        if payload is None:
            why = "edited, written by hand, moved, or stored before such entries were sealed on 2026-11-29"
            if cache_key() is None:
                why = _no_key()
            self._not_read(name, f"{path} is not read: its seal does not check ({why})")
            return None
        record = json.loads(payload)  # sealed by save for this kind, name and key: the JSON it wrote
        if not str(record["value"]).strip():
            return None  # stored without a value (an unreadable reply): missing
        binding = record["binding"] if isinstance(record.get("binding"), dict) else {}
        return Item(record["doc"], record["value"], str(record.get("status", ""))), binding

    def _not_read(self, name: str, why: str) -> None:
        """Warn of an entry not read, once per name (the others go to the debug log): each counts as missing."""
        message = f"{self.variable}={name}: {why}; counted as missing"
        if name in self._warned:
            logger.debug(message)
            return
        self._warned.add(name)
        logger.warning(f"{message}, as is every entry like it (run the task storing these {self.kind} again)")

    def output(self, name: str, task: str, keys: Mapping[str, str]) -> StageOutput:
        """The outputs stored under ``name`` for the items ``keys`` gives (item id -> key, in the order of the
        documents of the run storing them, one per document), as one stage output. Entries stored by runs of
        different models are refused in one line naming each run (they are not one model's); runs of one model
        with different ``--limit`` keep every binding (``{"entries": [...]}``), each checked in :func:`checked`.
        An item the storing run asked (the first ones its ``--limit`` keeps) whose entry is not read is
        :attr:`~StageOutput.unread`: missing, not beyond the limit."""
        items, bindings = {}, Counter[str]()
        for item_id, key in keys.items():
            found = self.lookup(name, key)
            if found is not None:
                items[item_id], binding = found
                bindings[json.dumps(binding, sort_keys=True)] += 1
        distinct = [json.loads(text) for text in bindings]
        origin = f"{self.variable}={name} ({self.folder(name)})"
        if any(not _one_model(first, other) for first in distinct[:1] for other in distinct[1:]):
            runs = "; ".join(
                f"{_run_label(json.loads(text))}: {count} {'entry' if count == 1 else 'entries'}"
                for text, count in bindings.items()
            )
            raise StageError(
                f"{origin}: the {self.kind} stored under this name come from runs of different models ({runs}), not "
                f"one model's; store them again under a new name (or remove {self.folder(name)}) and read that"
            )
        binding = distinct[0] if len(distinct) == 1 else {"entries": distinct}
        asked = list(keys)[: _asked(binding.get("limit"), len(keys))]
        unread = frozenset(item_id for item_id in asked if item_id not in items)
        unbound = "" if binding else f"they were stored by {_run_label({})}"
        return StageOutput(self.kind, task, binding, items, origin, name, unread, unbound)

    def fingerprint(self, name: str, root: Path) -> dict:
        """What a run reading ``name``'s outputs under ``root`` reads, by content: the name, how many files and a
        SHA-256 over each file's name and bytes (an output stored again changes it, so the reading task's identity
        changes and a batch runs it again)."""
        folder = self.folder(name, root) if name else None
        digest, files = hashlib.sha256(), 0
        for path in sorted(folder.glob("*.json")) if folder is not None and folder.is_dir() else ():
            try:
                content = file_sha256(path)
            except OSError as error:  # unreadable, or no regular file: its reader says so when it looks it up
                content = type(error).__name__
            digest.update(f"{path.name}\0{content}\n".encode())
            files += 1
        return {"name": name, "files": files, "sha256": digest.hexdigest()}


def stored_bindings(store: NamedStore, name: str, root: Path | None = None) -> list[dict]:
    """The bindings (model, backend, arguments, key, limit) of the runs whose entries ``store`` holds under ``name``
    in the cache at ``root``, each once ({} for entries stored outside ``abductive-eval``); an entry whose seal does not
    check is left out, as :meth:`NamedStore.lookup` leaves it."""
    folder = store.folder(name, root)
    found: list[dict] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            payload = unseal(read_regular(path), store._context(name, path.stem), root)
        except OSError:
            continue
        binding = json.loads(payload).get("binding") if payload is not None else None
        binding = binding if isinstance(binding, dict) else {}
        if payload is not None and binding not in found:
            found.append(binding)
    return found


# ---------------------------------------------------------------- the reading run


def this_run(environment: Mapping[str, str] | None = None) -> dict:
    """What ``ABDUCTIVE_RUN`` says the running evaluation is ({} when unset: plain lmms-eval, nothing checkable)."""
    text = settings.this_run(environment)
    if not text:
        return {}
    try:
        run = json.loads(text)
    except ValueError:
        raise DataError(f"{RUN_VARIABLE} is not JSON (it is set by abductive-eval; unset it)") from None
    if not isinstance(run, dict):
        raise DataError(f"{RUN_VARIABLE} is not a JSON object (it is set by abductive-eval; unset it)")
    return run


def given_inputs() -> dict[str, str]:
    """``ABDUCTIVE_STAGE_INPUTS``: upstream task -> the digest of the stage output this run reads ({} when unset)."""
    text = settings.stage_inputs()
    if not text:
        return {}
    try:
        given = json.loads(text)
    except ValueError:
        given = None
    if not isinstance(given, dict) or not all(isinstance(v, str) for v in given.values()):
        raise DataError(f"{INPUTS_VARIABLE} is not a JSON object of digests (it is set by abductive-eval; unset it)")
    return given


def _model_label(binding: Mapping) -> str:
    args = binding.get("model_args")
    return str(binding.get("model") or binding.get("backend") or "an unnamed model") + (f" ({args})" if args else "")


def _run_label(binding: Mapping) -> str:
    """A storing run as a message names it: its model and ``--limit``; plain lmms-eval's says nothing of either."""
    if not binding:
        return "a run that did not say its model (plain lmms-eval)"
    limit = binding.get("limit")
    return _model_label(binding) + ("" if limit is None else f" --limit {limit}")


def _asked(limit: float | None, total: int) -> int:
    """How many of its ``total`` documents a run with ``--limit`` asks, the first ones (lmms-eval's rule: a fraction
    below 1 of them rounded up, else that many)."""
    if not limit:
        return total
    return math.ceil(total * limit) if 0 < limit < 1 else min(total, int(limit))


_SECRET_ARG = re.compile(r"(key|token|secret|password)$", re.IGNORECASE)


def _args(text: object) -> tuple[str, ...]:
    """``model_args`` as comparable words: sorted ``k=v`` pairs, secret-named ones by name only (one record shows them
    redacted, another hashed)."""
    pairs = [part.strip().partition("=") for part in str(text or "").split(",") if part.strip()]
    return tuple(sorted(key if _SECRET_ARG.search(key) else f"{key}={value}" for key, _, value in pairs))


def _one_model(binding: Mapping, other: Mapping) -> bool:
    """Whether two storing runs' bindings name one model (an unknown one, plain lmms-eval's, only itself)."""
    return (not binding and not other) or (bool(binding) and bool(other) and _same_model(binding, other))


def _same_model(binding: Mapping, expected: Mapping) -> bool:
    if binding.get("key") and expected.get("key"):
        return binding["key"] == expected["key"]
    return (binding.get("backend"), _args(binding.get("model_args"))) == (
        expected.get("backend"),
        _args(expected.get("model_args")),
    )


def checked(reader: str, output: StageOutput, run: Mapping, named_on_purpose: bool = False) -> StageOutput:
    """``output`` once its binding fits the reading ``run`` (:func:`this_run`): the same model (or the model the run
    names as this stage's source; any model when ``named_on_purpose``: a variable names the source) and no ``--limit``
    the run does not share. An output whose model cannot be established (no binding: :attr:`StageOutput.unbound` says
    why) is refused in one line under ``abductive-eval``, as another model's is, unless named on purpose (then read,
    one warning: only its ``--limit`` goes unchecked). Under plain lmms-eval (no ``run``) nothing can be checked: one
    warning saying why."""
    bindings = [binding for binding in output.binding.get("entries", [output.binding]) if binding]
    where = f"the {output.kind} of {output.task} in {output.origin}"
    unbound = output.unbound or "they do not say which run produced them"
    if not run:
        unchecked = "--limit" if named_on_purpose else "model and --limit"
        unknown = f"plain lmms-eval does not say this run's {unchecked}"
        why = f"{unknown} (abductive-eval does, and checks them)"
        if not bindings:
            why = f"{unbound}, and {unknown}" + ("" if named_on_purpose else " (abductive-eval refuses them)")
        logger.warning(f"{reader}: {where} are read without a check of the {unchecked} that produced them: {why}")
        return output
    expected = (run.get("sources") or {}).get(output.task) or run
    if not bindings:
        if not named_on_purpose:
            raise StageError(
                f"{reader}: {where} cannot be checked against this run's model, {_model_label(expected)}: {unbound}; "
                f"run {output.task} for this model through abductive-eval (it runs it itself when no variable names "
                "another run)"
            )
        logger.warning(
            f"{reader}: {where} are read as the variable names them, without a check of the --limit that produced "
            f"them: {unbound} (an item they lack counts as missing)"
        )
        return output
    for binding in bindings:
        if not named_on_purpose and not _same_model(binding, expected):
            raise StageError(
                f"{reader}: {where} come from model "
                f"{_model_label(binding)}, this run's is {_model_label(expected)}; run {output.task} for this model "
                "(abductive-eval does, when no variable names another run)"
            )
        limit = binding.get("limit")
        if limit is not None and limit != run.get("limit"):
            now = "has no --limit" if run.get("limit") is None else f"has --limit {run['limit']}"
            raise StageError(
                f"{reader}: {where} come from a --limit {limit} run, and "
                f"this run {now}; rerun {output.task} without --limit"
            )
    return output


def validated(reader: str, output: StageOutput, docs_now: Mapping[str, str]) -> StageOutput:
    """``output`` once every item id is one of the data loaded now and every item's document digest is the one
    the documents built now give (``docs_now``: item id -> digest); refused in one line otherwise."""
    unknown = sorted(set(output.items) - set(docs_now))
    if unknown:
        raise StageError(
            f"{reader}: {output.origin}: items {unknown[:5]} of {output.task} are not in the data loaded now; "
            f"its {output.kind} come from other data"
        )
    differing = sorted(item_id for item_id, item in output.items.items() if item.doc != docs_now[item_id])
    if differing:
        raise StageError(
            f"{reader}: {output.origin}: the {output.task} documents of items {differing[:5]} differ from those built "
            f"from the data loaded now (another data version, or other upstream outputs); rerun {output.task}"
        )
    return output


def upstream_output(
    reader: str,
    upstream: str,
    kind: str,
    from_variable: Callable[[], StageOutput | None],
    named_on_purpose: bool = False,
) -> StageOutput | None:
    """The ``kind`` output of ``upstream`` that ``reader`` reads: the one ``ABDUCTIVE_STAGE_INPUTS`` gives (run by
    abductive-eval or the batch), else the one a variable names (``from_variable``), else None (none given); checked
    against the reading run (:func:`checked`)."""
    digest = given_inputs().get(upstream)
    if digest:
        given = load(digest)
        if (given.kind, given.task) != (kind, upstream):
            raise StageError(f"{reader}: stage output {digest[:12]} holds {given.kind} of {given.task}, not {kind} "
                             f"of {upstream}")  # fmt: skip
        return checked(reader, given, this_run())
    output = from_variable()
    return None if output is None else checked(reader, output, this_run(), named_on_purpose)


# ---------------------------------------------------------------- documents that count every item


@dataclass
class Slot:
    """One item of a chained task: the documents asked for it ([] when its upstream output is missing) and the
    stand-in documents it counts as then (scored as a failed request is: 0, or wrong)."""

    item_id: str
    docs: list[dict]
    stand_ins: list[dict]


def counting_every_item(
    slots: Sequence[Slot], reader: str, why_none: str, blank: Mapping[str, object] | None = None
) -> datasets.Dataset:
    """The documents of ``slots``: each asked document carries the stand-ins of the items without upstream output
    just before it (the last one also those after it) as JSON in :data:`MISSING_FIELD`, so ``--limit`` keeps the
    stand-ins among the items it keeps and every item is counted. Where no item has its upstream output, one stand-in
    question carries them all, with ``blank``: the fields the reader's prompt takes from the upstream output, empty.
    No item at all is an error."""
    rows: list[dict] = []
    pending: list[dict] = []
    for slot in slots:
        if not slot.docs:
            pending += slot.stand_ins
            continue
        first, *rest = slot.docs
        rows += [first | {MISSING_FIELD: json.dumps(pending)}, *(doc | {MISSING_FIELD: "[]"} for doc in rest)]
        pending = []
    if not rows:  # every item counts as unanswered: one stand-in question carries them all
        stand_ins = [stand_in for slot in slots for stand_in in slot.stand_ins]
        if not stand_ins:
            raise StageError(f"{reader}: no item to count ({why_none})")
        how = f"every item counts as unanswered ({why_none})"
        return without_upstream(reader, stand_ins[0] | dict(blank or {}), how, stand_ins)
    if pending:
        rows[-1][MISSING_FIELD] = json.dumps(json.loads(rows[-1][MISSING_FIELD]) + pending)
    missing = sum(not slot.docs for slot in slots)
    if missing:
        logger.warning(
            f"{reader}: {missing} of {len(slots)} items have no upstream output ({why_none}); they are not asked and "
            "count as the paper counts them (0, or wrong): see items_missing_upstream"
        )
    return documents(rows)


def without_upstream(reader: str, doc: dict, how: str, stand_ins: Sequence[dict] = ()) -> datasets.Dataset:
    """A run of ``reader`` with no item to ask: one stand-in question (``doc``, whose reply is never read; lmms-eval
    needs a document), so the rest of a group runs. Given no upstream output at all (plain lmms-eval without the
    variable), every metric is not computed; given an upstream output without one usable item, the ``stand_ins`` of
    every item are carried and scored as unanswered (0, or wrong)."""
    if stand_ins:
        logger.warning(f"{reader}: no item has its upstream output: {how}")
    else:
        logger.warning(
            f"{reader}: no upstream output given, so it is not computed in this run (its one stand-in question is "
            f"not scored); {how}"
        )
    return documents([doc | {MISSING_FIELD: json.dumps(list(stand_ins)), NO_UPSTREAM_FIELD: True}])


def outside_limit(output: StageOutput, item_id: str) -> bool:
    """Whether ``item_id`` lies outside the ``--limit`` of the run that made ``output`` (absent from a limited run's
    output, which the reading run shares: not counted); an absent item of a full or unbound output, or one the
    limited run asked whose output is not read (:attr:`StageOutput.unread`), is missing."""
    absent = item_id not in output.items and item_id not in output.unread
    return absent and output.binding.get("limit") is not None
