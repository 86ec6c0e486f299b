"""Where benchmark data comes from, and the checks every benchmark's loader (``<benchmark>/data.py``) shares.

``ABDUCTIVE_DATA`` selects the source for every benchmark:

* unset or empty: the official source (a Hugging Face dataset snapshot, cached by ``huggingface_hub``);
* ``sample``: the small sample shipped inside this package (``abductive_tasks/sample_data/<benchmark>``);
* a path: local copies in the official layouts, one folder per benchmark (``<path>/nleye`` ...).
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from abductive_tasks import settings
from abductive_tasks.compat import PermanentLoadError, tasks_path
from abductive_tasks.inputs.files import NotRegular, open_regular

if TYPE_CHECKING:
    import datasets

ENV_VAR = "ABDUCTIVE_DATA"
SAMPLE_ROOT = Path(__file__).resolve().parents[1] / "sample_data"


def escaped(text: str) -> str:
    """``text`` safe for a terminal, on one line: each character that is not printable (control characters such as
    ESC or a line break, bidirectional overrides, lone surrogates) written as its Python escape (``\\x1b``, ``\\n``,
    ``\\u202e``)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


class DataError(PermanentLoadError):
    """Bad or missing benchmark data; the message names the file, row and field. Data values reach the message as
    they are written, so it is kept printable (:func:`escaped`) whoever formats it."""

    def __init__(self, message: str) -> None:
        super().__init__(escaped(message))


class DataUnreachable(DataError):
    """The official data could not be downloaded (offline, hub unreachable); the message says what was tried."""


@dataclass(frozen=True)
class Loaded:
    """What every benchmark's ``data.load`` returns: the validated items, the file(s) they came
    from, how many rows were left out and why (e.g. ``{"impossible": 4}``), and how many kept rows
    carry a quirk of the release worth reporting (e.g. ``{"duplicate_updates": 4}``)."""

    source: str
    items: datasets.Dataset
    excluded: Mapping[str, int] = field(default_factory=dict)
    quirks: Mapping[str, int] = field(default_factory=dict)


def documents(rows: list[dict]) -> datasets.Dataset:
    """``datasets.Dataset.from_list(rows)`` whose row reads cost what a list's do
    (:class:`abductive_tasks.inputs.documents.HeldRows`); a dataset with features that decode on read (images,
    audio) stays an ordinary one. ``datasets`` is imported here, on first use, so that reading task specs (the
    reports) does not import it."""
    from abductive_tasks.inputs.documents import held_rows

    return held_rows(rows)


def benchmark_root(benchmark: str, hub_repo: str | None, how_to_get: str = "") -> Path:
    """Return the folder holding ``benchmark``'s files in its official layout.

    ``hub_repo`` None: the official release is not on the hub, so with ``ABDUCTIVE_DATA`` unset
    nothing is downloaded and the error says ``how_to_get`` the data.
    """
    choice = settings.data_source()
    if choice == "sample":
        return SAMPLE_ROOT / benchmark
    if choice:
        root = Path(choice).expanduser() / benchmark
        if not root.is_dir():
            raise DataError(f"{ENV_VAR}={choice}: no folder {root} for benchmark '{benchmark}'")
        return root
    if hub_repo is None:
        raise DataError(
            f"'{benchmark}' has no hub copy and nothing is downloaded at evaluation time. {how_to_get} "
            f"Then set {ENV_VAR}=<root> (data under <root>/{benchmark}/), or use the embedded sample with "
            f"{ENV_VAR}=sample."
        )
    return _hub_snapshot(benchmark, hub_repo)


def data_folder_problem(choice: str, benchmarks: Iterable[str]) -> str | None:
    """What makes ``ABDUCTIVE_DATA=choice`` unusable for ``benchmarks`` as :func:`benchmark_root` resolves it (a
    path that is no folder, or one without a benchmark's folder), in one line with the fix; None when usable, the
    sample, or unset (the hub's copy)."""
    if choice in ("", "sample"):
        return None
    root = Path(choice).expanduser()
    if not root.is_dir():
        return (
            f"{ENV_VAR}={choice}: no such folder. Set it to the folder holding <benchmark>/ (e.g. nleye/, mucr/), "
            f"or {ENV_VAR}=sample for the embedded sample."
        )
    for benchmark in sorted(set(benchmarks)):
        if not (root / benchmark).is_dir():
            return (
                f"{ENV_VAR}={choice}: no folder {root / benchmark} for benchmark '{benchmark}' (layout: section Data "
                f"of {tasks_path() / benchmark / 'README.md'}), or {ENV_VAR}=sample for the embedded sample."
            )
    return None


def _hub_snapshot(benchmark: str, hub_repo: str) -> Path:
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo_id=hub_repo, repo_type="dataset"))
    except Exception as error:  # network, auth and cache misses all end here
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0].removeprefix("Got: ")
        raise DataUnreachable(
            f"cannot download the official '{benchmark}' data (hub dataset {hub_repo}: {reason}). Offline? "
            f"{ENV_VAR}=<folder holding {benchmark}/>, or {ENV_VAR}=sample for the embedded sample."
        ) from error


def resolve_inside(root: Path, relative: str, where: str) -> Path:
    """Join ``relative`` to ``root``; refuse paths that leave ``root`` (``where`` names the row)."""
    candidate = (root / relative).resolve()
    if not candidate.is_relative_to(root.resolve()):
        raise DataError(f"{where}: path '{relative}' escapes the data root {root}")
    return candidate


def files_under(root: Path, suffix: str) -> list[Path]:
    """Every file under ``root`` whose name ends in ``suffix``, sorted, linked folders followed (a folder the user
    linked in is part of the layout; each real folder is walked once, so a link loop ends)."""
    found, walked = [], set()
    for folder, folders, names in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in walked:
            folders.clear()
            continue
        walked.add(real)
        found += [Path(folder) / name for name in names if name.endswith(suffix)]
    return sorted(found)


class PathsInside:
    """:func:`resolve_inside` for many paths under one root, the same answers at a fraction of the cost: the root is
    resolved once, and each directory the paths pass through once (one ``lstat`` per new component, where
    ``Path.resolve`` walks every component of every path from ``/``). A symlink, or a path that is not plain names
    joined by ``/``, is resolved in full."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._real_root = root.resolve()
        self._directories: dict[str, Path] = {"": self._real_root}  # relative directory -> where it really is

    def __call__(self, relative: str, where: str) -> Path:
        parts = relative.split("/")
        if any(part in ("", ".", "..") for part in parts) or "\0" in relative:
            return resolve_inside(self.root, relative, where)
        candidate = self._real(self._directory("/".join(parts[:-1])), parts[-1])
        if not candidate.is_relative_to(self._real_root):
            raise DataError(f"{where}: path '{relative}' escapes the data root {self.root}")
        return candidate

    def _directory(self, relative: str) -> Path:
        known = self._directories.get(relative)
        if known is None:
            parent, _, name = relative.rpartition("/")
            known = self._directories[relative] = self._real(self._directory(parent), name)
        return known

    @staticmethod
    def _real(directory: Path, name: str) -> Path:
        """``directory / name`` where it really is (``directory`` already real)."""
        path = directory / name
        try:
            link = stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:  # missing (resolved as is, like Path.resolve), or unreadable: resolve decides
            link = True
        return path.resolve() if link else path


@contextmanager
def reading(path: Path) -> Iterator[None]:
    """Any failure while reading ``path`` becomes one :class:`DataError` naming the file
    (a DataError passes unchanged)."""
    try:
        yield
    except DataError:
        raise
    except NotRegular as error:  # names the file and what it is
        raise DataError(str(error)) from None
    except UnicodeDecodeError as error:
        raise DataError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from error
    except RecursionError as error:
        raise DataError(f"{path}: nested too deeply to read") from error
    except Exception as error:  # a broken parquet, JSON or CSV file, whatever the library raises
        raise DataError(f"{path}: cannot be read: {type(error).__name__}: {error}") from error


_DECODER = msgspec.json.Decoder()


def json_value(text: str | bytes) -> object:
    """One JSON value as Python's json module reads it: msgspec (several times faster; integers of any size stay
    integers), or the json module where msgspec refuses (``NaN`` and ``Infinity``, as lmms-eval writes a metric that
    is not a number, and floats beyond the double range)."""
    try:
        return _DECODER.decode(text)
    except msgspec.MsgspecError:
        return json.loads(text)


MAX_NESTING = 100  # how deep a value we read may nest lists and objects: what we and lmms-eval write nests a few


def nested_too_deeply(value: object, limit: int = MAX_NESTING) -> bool:
    """Whether a decoded JSON value nests lists and objects more than ``limit`` deep, found without recursion: a
    value nested hundreds deep decodes, then breaks every recursive walk over it (secrets, redaction, rendering)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def json_lines(
    path: Path, error: type[Exception] = DataError, encoding: str = "utf-8-sig"
) -> Iterator[tuple[int, dict]]:
    """The ``(line number, object)`` pairs of a JSON-lines file, blank lines skipped; a line that is not a JSON
    object raises ``error`` naming the file and line."""
    for number, text in json_texts(path, encoding, error):
        yield number, json_object(text, path, number, error)


def json_texts(
    path: Path, encoding: str = "utf-8-sig", error: type[Exception] = DataError
) -> Iterator[tuple[int, str]]:
    """The ``(line number, text)`` pairs of a JSON-lines file's lines that are not blank, as :func:`json_lines`
    reads them. A FIFO or device named like one raises ``error``: reading it would wait forever."""
    try:
        opened = open_regular(path)
    except NotRegular as refused:
        raise error(str(refused)) from None
    with io.TextIOWrapper(opened, encoding=encoding) as handle:
        for number, text in enumerate(handle, start=1):
            if text.strip():
                yield number, text


def json_object(text: str, path: Path, number: int, error: type[Exception] = DataError) -> dict:
    """Line ``number`` of the JSON-lines file ``path`` as a JSON object (:func:`json_value`); anything else raises
    ``error`` naming the file and line."""
    try:
        record = json_value(text)
    except json.JSONDecodeError as problem:
        raise error(f"{path}, line {number}: not valid JSON ({problem.msg})") from None
    if not isinstance(record, dict):
        raise error(f"{path}, line {number}: not a JSON object (a {type(record).__name__})")
    return record


def resolve_columns(
    header: Sequence[str], mapping: Mapping[str, Sequence[str]], required: set[str], source: Path, hint: str = ""
) -> dict[str, str]:
    """Map canonical field names to the columns present in ``header``.

    ``mapping`` lists, per canonical field, the column names accepted for it, in order of
    preference. A missing required field is an error listing the columns actually present
    (and ``hint``: how to name another column).
    """
    present = set(header)
    resolved = {field: next((c for c in candidates if c in present), None) for field, candidates in mapping.items()}
    missing = sorted(field for field in required if resolved[field] is None)
    if missing:
        wanted = "; ".join(f"{field}: one of {list(mapping[field])}" for field in missing)
        raise DataError(
            f"{source}: missing column(s) for {wanted}. Columns present: {list(header)}" + (f"; {hint}" if hint else "")
        )
    return {field: column for field, column in resolved.items() if column is not None}


def read_csv(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Return the header and ``(line number, row)`` pairs of a CSV file; malformed rows are errors, and so is what
    the csv module cannot read (a field over its size limit, a NUL byte), naming the line it stopped on."""
    if not path.is_file():
        raise DataError(f"data file not found: {path}")
    with reading(path), path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle, restkey="\0extra", restval="\0missing")
        rows = []
        try:
            header = list(reader.fieldnames or [])
            if not header:
                raise DataError(f"{path}: empty file, expected a header row")
            for row in reader:
                if "\0extra" in row or "\0missing" in row.values():
                    raise DataError(
                        f"{path}, line {reader.line_num}: expected {len(header)} fields, found a different number "
                        "(unquoted comma or truncated row?)"
                    )
                rows.append((reader.line_num, row))
        except csv.Error as error:
            # DictReader's own line_num stops at the last row it returned; its csv reader's counts the failing line
            raise DataError(f"{path}, line {reader.reader.line_num}: cannot be read: {error}") from error
    return header, rows


def data_content(fingerprint: object) -> object:
    """What a data fingerprint says the data is, wherever it lives: its ``source`` (and a ``root``, which older
    identities recorded) left out, so a copy of the data in another folder or install mode keys the same."""
    if not isinstance(fingerprint, Mapping):
        return fingerprint
    return {key: value for key, value in fingerprint.items() if key not in ("root", "source")}
