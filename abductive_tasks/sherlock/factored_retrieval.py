"""Full-size Sherlock retrieval through embeddings: a chunk factored into its rows and columns.

An official retrieval chunk file lists about 1,000 x 1,000 = 1M (image, region, inference)
instances, 23 chunks per split. One lmms-eval document per instance cannot fit on one machine
(``utils/bench_sherlock_scale.py`` measures it; figures in ``yaml_tasks/sherlock/README.md``).
For models that embed images and texts independently (``clip_scorer``, like the paper's CLIP
models, §5) the score matrix factors: a chunk reduces to its distinct image-regions (rows) and
distinct inferences (columns), content-keyed exactly like the official
``predict_clip_leaderboard.py``, and the task builds one document per index ``k`` carrying row
``k`` and column ``k`` (:func:`abductive_tasks.sherlock.data.load`, view ``factored``). The
model returns the two embeddings (:mod:`abductive_tasks.sherlock.embeddings`);
:func:`chunk_scores` stacks them per chunk, computes every score with one matrix product and
gives the official n x n grid (image instance x text instance, truth on the diagonal) to the
metric kernel. 23 chunks cost about 23,000 requests instead of 23 million.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import io
import itertools
import json
import multiprocessing
import operator
import re
import sys
import zipfile
from array import array
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import msgspec
import numpy as np
import orjson
from loguru import logger

from abductive_tasks import settings
from abductive_tasks.inputs.files import cache_key, open_regular, read_regular, seal_mac, source_digest, write_atomic
from abductive_tasks.inputs.loading import DataError, reading
from abductive_tasks.sherlock.embeddings import decode_embeddings

Box = tuple[int, int, int, int]  # left, top, width, height (absolute pixels)
BOX_FIELDS = ("left", "top", "width", "height")
box_fields = operator.itemgetter(*BOX_FIELDS)


# The decoded structs hold only strings, ints and tuples of boxes, so they can form no reference cycle: untracked
# by the cyclic GC (gc=False), they are cheaper to create and to free (a chunk decodes about 3M of them).
class _Box(msgspec.Struct, frozen=True, gc=False):
    """A region box; hashable, so that (url, boxes) keys an image-region."""

    left: int
    top: int
    width: int
    height: int


_Text = Annotated[str, msgspec.Meta(min_length=1)]


class _Image(msgspec.Struct, gc=False):
    url: _Text


class _Instance(msgspec.Struct, gc=False):
    """The fields of an official instance the factoring reads (others are skipped unparsed)."""

    test_id: _Text
    inference: _Text
    image: _Image
    region: Annotated[tuple[_Box, ...], msgspec.Meta(min_length=1)]


# A typed decode (msgspec) builds only these fields, checked as the factoring needs them, several times faster
# than building every instance as dicts; what it refuses takes the checked path (json values, precise errors).
_INSTANCES = msgspec.json.Decoder(list[_Instance])


@dataclass(frozen=True)
class FactoredChunk:
    """One retrieval chunk reduced to its distinct image-regions and inferences.

    ``row_of``/``col_of`` give, for each instance in sorted ``test_id`` order (the submission
    order), its row and column. With an answer key, ``gold_rows[i]``/``gold_cols[i]`` are the row
    and column of the i-th instance id (sorted): the official grid is
    ``scores[gold_rows][:, gold_cols]``, true pairs on its diagonal.
    """

    chunk: int
    rows: tuple[tuple[str, tuple[Box, ...]], ...]  # (image url, boxes)
    texts: tuple[str, ...]
    row_of: np.ndarray
    col_of: np.ndarray | None  # None for clue texts (§B.1): clue scores have no leaderboard submission
    gold_rows: np.ndarray | None
    gold_cols: np.ndarray | None

    @property
    def documents(self) -> int:
        """Documents the factored task builds for this chunk: every row, column and instance id once."""
        gold = 0 if self.gold_rows is None else len(self.gold_rows)
        return max(len(self.rows), len(self.texts), gold)


class FactoringError(ValueError):
    """A chunk file that does not describe a retrieval grid (message names the file and instance)."""


@contextmanager
def _without_gc():
    """Python's cyclic GC re-walks every live object while millions of small ones are created
    (a parsed chunk holds ~10M): pausing it makes loading a chunk several times faster."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _first_bad_instance(instances: Sequence[object], source: str, offset: int = 0) -> FactoringError:
    """The error naming the first instance whose fields cannot be read (the slow path of the fast comprehensions);
    ``offset``: the list index of ``instances[0]``."""
    for index, instance in enumerate(instances, start=offset):
        where = f"{source}, instance {index}"
        try:
            fields = {
                "test_id": instance["test_id"],
                "image.url": instance["image"]["url"],
                "inference": instance["inference"],
                "region": instance["region"],
            }
        except (TypeError, KeyError, IndexError) as error:
            return FactoringError(f"{where}: missing or malformed field ({error!r})")
        for name, value in fields.items():
            if name != "region" and not (isinstance(value, str) and value):
                return FactoringError(f"{where}, field '{name}': expected a non-empty string, got {value!r}")
        region = fields["region"]
        if (
            not isinstance(region, list)
            or not region
            or not all(isinstance(box, dict) and all(_integer(box.get(f)) for f in BOX_FIELDS) for box in region)
        ):
            return FactoringError(
                f"{where}, field 'region': expected a non-empty list of boxes with integer {list(BOX_FIELDS)}, "
                f"got {region!r}"
            )
    return FactoringError(f"{source}: malformed instances")


_test_id = operator.attrgetter("test_id")


def _numbers(index: dict, keys: list) -> np.ndarray:
    """The number of each key in ``index`` (int32), keys new to it numbered on in first-seen order."""
    for key in dict.fromkeys(keys):  # the distinct keys, in first-seen order
        index.setdefault(key, len(index))
    return np.fromiter(map(index.__getitem__, keys), dtype=np.int32, count=len(keys))


class _Factoring:
    """A retrieval chunk factored piece by piece (the instance list parsed a block of the file at a time)."""

    def __init__(self, chunk: int, source: str) -> None:
        self.chunk, self.source = chunk, source
        self.test_ids: list[str] = []
        self.row_index: dict[tuple, int] = {}  # (url, boxes) -> row, in first-seen order
        self.text_index: dict[str, int] = {}
        self.rows, self.cols = array("i"), array("i")  # C ints: int32

    def add(self, instances: Sequence[dict]) -> None:
        """Factor the next instances of the list: fields read with comprehensions, checked on the values new here;
        any failure falls back to a per-instance scan naming the first bad instance."""
        offset, rows_before, texts_before = len(self.test_ids), len(self.row_index), len(self.text_index)
        try:
            test_ids = [instance["test_id"] for instance in instances]
            row_keys = [
                (instance["image"]["url"], tuple(_Box(*box_fields(box)) for box in instance["region"]))
                for instance in instances
            ]
            texts = [instance["inference"] for instance in instances]
            rows, cols = _numbers(self.row_index, row_keys), _numbers(self.text_index, texts)
        except (TypeError, KeyError, IndexError):
            raise _first_bad_instance(instances, self.source, offset) from None
        new_rows = itertools.islice(self.row_index, rows_before, None)
        new_texts = itertools.islice(self.text_index, texts_before, None)
        if (
            not all(
                isinstance(url, str)
                and url
                and boxes
                and all(_integer(value) for box in boxes for value in msgspec.structs.astuple(box))
                for url, boxes in new_rows
            )
            or not all(isinstance(text, str) and text for text in new_texts)
            or set(map(type, test_ids)) - {str}
            or not all(test_ids)
        ):
            raise _first_bad_instance(instances, self.source, offset)
        self.test_ids += test_ids
        self.rows.frombytes(rows.tobytes())
        self.cols.frombytes(cols.tobytes())

    def add_decoded(self, instances: Sequence[_Instance]) -> None:
        """Factor the next instances of the list, decoded and checked by :data:`_INSTANCES`; each key is hashed once
        (a row key (url, boxes) does not cache its hash, and a text is a new string object in every instance)."""
        self.test_ids += map(_test_id, instances)
        row_index, text_index = self.row_index, self.text_index
        self.rows.extend([row_index.setdefault((i.image.url, i.region), len(row_index)) for i in instances])
        self.cols.extend([text_index.setdefault(i.inference, len(text_index)) for i in instances])

    def finish(self, answer_key: dict | None) -> FactoredChunk:
        """The factored chunk: instances in sorted ``test_id`` order (the submission order), the gold grid checked."""
        test_ids = self.test_ids
        order, repeated = test_id_order(test_ids)
        if len(repeated):
            raise FactoringError(f"{self.source}: duplicate test_id '{test_ids[order[repeated[0]]]}'")
        row_of = np.frombuffer(self.rows, dtype=np.int32)[order]
        col_of = np.frombuffer(self.cols, dtype=np.int32)[order]
        gold_rows = gold_cols = None
        if answer_key is not None:
            # A key listing the instances in the file's order gives its values as they stand, else looked up one by
            # one (the comparison stops at the first difference).
            pairs = list(answer_key.values()) if list(answer_key) == test_ids else list(map(answer_key.get, test_ids))
            gold_rows, gold_cols = _gold_grid(test_ids, pairs, order, row_of, col_of, answer_key, self.source)
        rows = tuple((url, tuple(map(msgspec.structs.astuple, boxes))) for url, boxes in self.row_index)
        return FactoredChunk(self.chunk, rows, tuple(self.text_index), row_of, col_of, gold_rows, gold_cols)


def test_id_order(test_ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The stable order that sorts ``test_ids`` as Python sorts strings, and the positions ``i`` of the sorted ids
    equal to the next one (duplicates). Sorted by numpy on their bytes when every id is ASCII without NUL (bytes
    then order as code points, and numpy's fixed-width bytes drop only trailing NULs), else by Python."""
    joined = "".join(test_ids)
    if joined.isascii() and "\x00" not in joined:
        lengths = set(map(len, test_ids))
        if len(lengths) == 1 and 0 not in lengths:  # one width: the joined text is already the fixed-width array
            ids = np.frombuffer(joined.encode("ascii"), dtype=f"S{lengths.pop()}")
        else:
            ids = np.array(test_ids, dtype=bytes)
        order = _bytes_order(ids)
        ordered = ids[order]
        return order, np.flatnonzero(ordered[1:] == ordered[:-1])
    order = np.array(sorted(range(len(test_ids)), key=test_ids.__getitem__), dtype=np.intp)
    ordered = _gather(test_ids, order)
    return order, np.flatnonzero(np.fromiter(map(operator.eq, ordered, ordered[1:]), dtype=bool))


def _bytes_order(ids: np.ndarray) -> np.ndarray:
    """``np.argsort(ids, kind="stable")`` for fixed-width bytes, several times faster: sorted by their first 8 bytes
    as one big-endian integer (bytes order), then only the ids that share those 8 bytes by their full bytes."""
    width = ids.dtype.itemsize
    head = np.zeros((len(ids), 8), dtype=np.uint8)  # NUL-padded as numpy pads shorter ids: the order is kept
    head[:, : min(width, 8)] = ids.view(np.uint8).reshape(len(ids), width)[:, :8]
    prefix = head.view(">u8").ravel().astype(np.uint64)
    order = np.argsort(prefix, kind="stable")
    if width <= 8:
        return order
    sorted_prefix = prefix[order]
    tied = sorted_prefix[1:] == sorted_prefix[:-1]
    in_run = np.flatnonzero(np.concatenate(([False], tied)) | np.concatenate((tied, [False])))
    if len(in_run):  # every run of equal prefixes sorted by full bytes (one sort: prefix order is bytes order)
        members = order[in_run]
        order[in_run] = members[np.argsort(ids[members], kind="stable")]
    return order


def _gather(values: Iterable, order: np.ndarray) -> list:
    """``[values[i] for i in order]``, gathered by numpy."""
    return np.fromiter(values, dtype=object, count=len(order))[order].tolist()


def _gold_grid(
    test_ids: list[str],
    pairs: list,
    order: np.ndarray,
    row_of: np.ndarray,
    col_of: np.ndarray,
    answer_key: dict,
    source: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the answer key's instance ids, numbered in first-seen order of the sorted test ids;
    checks the key is a full n x n grid over the instances. ``test_ids``: the instances' ids in file order, ``pairs``:
    the key's value of each (None where it has none; the file order keeps the lookups cache-friendly), ``order``: the
    order that sorts them."""
    if len(answer_key) != len(test_ids) or None in pairs:
        test_ids = _gather(test_ids, order)  # sorted, as the message lists them
        missing = [test_id for test_id in test_ids if test_id not in answer_key][:3] or [
            test_id for test_id in answer_key if test_id not in set(test_ids)
        ][:3]
        raise FactoringError(f"{source}: the answer key and the instances list different test_ids (e.g. {missing})")
    try:
        if set(map(len, pairs)) != {2}:
            raise TypeError
        image_side, text_side = zip(*pairs, strict=True)
        distinct = dict.fromkeys(image_side)  # in first-seen order
        if not all(isinstance(instance_id, str | int) for instance_id in distinct):
            raise TypeError
    except TypeError:
        raise FactoringError(
            f"{source}: every answer-key value must be [image_instance_id, text_instance_id]"
        ) from None
    number = {instance_id: index for index, instance_id in enumerate(distinct)}  # first seen in the file
    image_ids = np.fromiter(map(number.__getitem__, image_side), dtype=np.int64, count=len(pairs))[order]
    try:
        text_ids = np.fromiter(map(number.get, text_side, itertools.repeat(-1)), dtype=np.int64, count=len(pairs))
    except TypeError:  # an unhashable id
        text_ids = np.array([-1])
    size = len(number)
    if (text_ids < 0).any() or not np.bincount(text_ids, minlength=size).all():
        raise FactoringError(f"{source}: image and text instance ids differ; retrieval needs one id set for both")
    first_seen = np.unique(image_ids, return_index=True)[1]  # in the sorted order, per id number
    renumber = np.empty(size, dtype=np.int64)
    renumber[np.argsort(first_seen, kind="stable")] = np.arange(size)
    image_ids, text_ids = renumber[image_ids], renumber[text_ids[order]]
    if len(pairs) != size**2 or not (np.bincount(image_ids * size + text_ids, minlength=size**2) == 1).all():
        raise FactoringError(
            f"{source}: the answer key is not a full {size} x {size} grid of (image, text) instance ids"
        )
    gold_rows = np.full(size, -1, dtype=np.int32)
    gold_cols = np.full(size, -1, dtype=np.int32)
    gold_rows[image_ids] = row_of
    gold_cols[text_ids] = col_of
    if not (np.array_equal(gold_rows[image_ids], row_of) and np.array_equal(gold_cols[text_ids], col_of)):
        raise FactoringError(
            f"{source}: an instance id names different image-regions or inferences in different instances"
        )
    return gold_rows, gold_cols


def loads_json(text: bytes) -> object:
    """Parse JSON with orjson; what orjson refuses (``NaN``, a lone surrogate, a huge integer, a broken file)
    goes through the json module, so values and errors are the json module's."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text.decode("utf-8"))


def _read(path: Path) -> object:
    with reading(path), _without_gc():
        return loads_json(read_regular(path))


class UncutPiece(Exception):
    """The file could not be cut into pieces that each parse alone: parse it whole."""


_BLOCK = 1 << 24  # bytes of a chunk file parsed at a time (a parsed block holds ~150 MB of Python objects)
_FIRST_KEY = re.compile(rb'\s*\[\s*\{\s*("(?:[^"\\]|\\.)*")\s*:')


def instance_pieces(path: Path) -> Iterator[bytearray]:
    """The instance list of a chunk file, a block at a time: cut where one top-level object ends and the next
    begins with the first object's first key (``}, {"image":``), each piece a JSON list on its own.

    A cut inside a string or inside a nested value leaves a piece that is not valid JSON: then :class:`UncutPiece`
    is raised (here or by the piece's parser) and the caller parses the file whole (as it does a file that does
    not start as a list of objects).
    """
    block = _BLOCK
    with open_regular(path) as handle:
        first = handle.read(block)
        first_key = _FIRST_KEY.match(first)
        if first_key is None:
            raise UncutPiece
        key = first_key.group(1)
        piece = bytearray(first)  # "[" + the objects read so far: each block is copied once
        buffer = bytearray(block)  # every block is read into the same memory (no 16 MB of fresh pages per block)
        more = memoryview(buffer)
        while size := handle.readinto(buffer):
            searched = len(piece)
            piece += more[:size]
            cut = _last_cut(piece, key, max(0, searched - 64))
            if cut is not None:
                end, start = cut
                rest = piece[start:]
                piece[end] = ord("]")  # the separator after the last whole object closes the list
                del piece[end + 1 :]
                yield piece
                piece = bytearray(b"[") + rest
        yield piece


_BEFORE_OBJECT = re.compile(rb"\}\s*,\s*\{\s*\Z")


def _last_cut(buffer: bytearray, key: bytes, start: int) -> tuple[int, int] | None:
    """Where to cut ``buffer`` (searching from ``start``): the end of the last object followed by one that begins
    with ``key``, and the start of that next object; None when there is none."""
    position = len(buffer)
    while (position := buffer.rfind(key, start, position)) >= 0:
        before = _BEFORE_OBJECT.search(buffer, max(start, position - 64), position)
        if before:
            return before.start() + 1, buffer.rindex(b"{", before.start(), position)
    return None


def _add_piece(factoring: _Factoring, text: bytearray) -> None:
    """Factor one piece: the typed decode, else (a value it refuses) the checked path on the piece's json values."""
    try:
        instances = _INSTANCES.decode(text)
    except msgspec.ValidationError:
        factoring.add(parse_piece(text))
    except msgspec.DecodeError:
        raise UncutPiece from None
    else:
        factoring.add_decoded(instances)


def parse_piece(text: bytearray) -> list:
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise UncutPiece from None
    if not isinstance(parsed, list):
        raise UncutPiece
    return parsed


def load_factored_chunk(instances_path: Path, answer_key_path: Path | None, chunk: int) -> FactoredChunk:
    """One chunk factored: from the factored-chunk cache when these files' contents were factored before
    (an evaluation and then ``export-sherlock`` read each chunk file once), else read and factored, then cached."""
    with reading(instances_path):
        saved = _cache_file(instances_path, answer_key_path)
    factored = _restore(saved, chunk)
    if factored is None:
        factored = _factor_files(instances_path, answer_key_path, chunk)
        _save(factored, saved)
    return factored


# ---------------------------------------------------------------- the factored-chunk cache


def _factoring_code() -> str:
    """The digest of the code that builds the cached chunks (:func:`source_digest`): this module alone
    (``FactoredChunk``, the factoring, the cache's own format). ``inputs.loading`` gives only ``reading`` and
    ``DataError``, which name a failure and build nothing, so it is left out."""
    return source_digest(sys.modules[__name__])


def _stamp(path: Path) -> str:
    """A source file's identity for the cache: its resolved path, size and modification time (ns)."""
    status = path.stat()
    return f"{path.resolve()}\0{status.st_size}\0{status.st_mtime_ns}"


def _cache_file(instances_path: Path, answer_key_path: Path | None) -> Path:
    """``<ABDUCTIVE_CACHE>/sherlock_chunks/<key>.npz``, the key a SHA-256 of the factoring code
    (:func:`_factoring_code`: an edit to it factors every chunk again) and both files' stamps (:func:`_stamp`): a hit
    reads no source byte. The entry itself is checked by content (its seal, bound to this name) before it is used, as
    the MuCR item cache binds its parquet file by stamp (``docs/integrity.md``)."""
    parts = [_factoring_code(), _stamp(instances_path), _stamp(answer_key_path) if answer_key_path else ""]
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:40]
    return settings.cache_root() / "sherlock_chunks" / f"{key}.npz"


def _array_parts(arrays: dict[str, np.ndarray]) -> list[bytes]:
    """What a chunk's seal covers: every array's name, dtype, shape and bytes, in name order."""
    parts = []
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        parts += [name.encode(), f"{array.dtype.str}{array.shape}".encode(), array.tobytes()]
    return parts


def _save(factored: FactoredChunk, path: Path) -> None:
    """Write the factored chunk (arrays, and its rows and texts as JSON) sealed by a keyed hash over every array,
    bound to the cache file's name (the source files' digests, :func:`~abductive_tasks.inputs.files.seal_mac`);
    a cache that cannot be written (or sealed) is skipped."""
    try:
        header = orjson.dumps({"rows": factored.rows, "texts": factored.texts})
    except TypeError:  # a text orjson cannot write (a lone surrogate): not cached
        return
    arrays = {"header": np.frombuffer(header, dtype=np.uint8), "row_of": factored.row_of, "col_of": factored.col_of}
    if factored.gold_rows is not None:
        arrays |= {"gold_rows": factored.gold_rows, "gold_cols": factored.gold_cols}
    key = cache_key()
    if key is None:
        return
    seal = seal_mac(key, path.name, _array_parts(arrays))
    buffer = io.BytesIO()
    np.savez(buffer, seal=np.frombuffer(seal.encode(), dtype=np.uint8), **arrays)
    try:
        write_atomic(path, buffer.getvalue())
    except OSError as error:
        logger.debug(f"Sherlock factored-chunk cache not written ({path}): {error}")


def _restore(path: Path, chunk: int) -> FactoredChunk | None:
    """The cached factored chunk at ``path``; None when absent, unreadable, or its seal does not match its arrays
    (edited, damaged or copied from another entry: the chunk is factored again)."""
    key = cache_key()
    if key is None:
        return None
    try:
        with open_regular(path) as handle, np.load(handle, allow_pickle=False) as saved:
            arrays = {name: saved[name] for name in saved.files if name != "seal"}
            seal = saved["seal"].tobytes() if "seal" in saved.files else b""
        if not hmac.compare_digest(seal, seal_mac(key, path.name, _array_parts(arrays)).encode()):
            return None
        header = orjson.loads(arrays["header"].tobytes())
        gold = (arrays["gold_rows"], arrays["gold_cols"]) if "gold_rows" in arrays else (None, None)
        return FactoredChunk(
            chunk,
            tuple((url, tuple(map(tuple, boxes))) for url, boxes in header["rows"]),
            tuple(header["texts"]),
            arrays["row_of"],
            arrays["col_of"],
            *gold,
        )
    except (OSError, ValueError, KeyError, TypeError, orjson.JSONDecodeError, zipfile.BadZipFile):
        return None


def _factor_files(instances_path: Path, answer_key_path: Path | None, chunk: int) -> FactoredChunk:
    """Read one chunk's JSON files and factor them, the instance list a block at a time (:func:`instance_pieces`;
    a parsed block is released before the next). Unreadable files and chunks that are not a retrieval grid raise a
    DataError naming the file."""
    source = str(instances_path)
    try:
        with reading(instances_path), _without_gc():  # reading() passes a DataError on unchanged
            try:
                factoring = _Factoring(chunk, source)
                for piece in instance_pieces(instances_path):
                    _add_piece(factoring, piece)
            except UncutPiece:
                instances = loads_json(read_regular(instances_path))
                if not isinstance(instances, list):
                    raise DataError(f"{instances_path}: expected a non-empty JSON list of instances") from None
                factoring = _Factoring(chunk, source)
                factoring.add(instances)
                del instances
            except FactoringError as error:
                raise DataError(str(error)) from None
        if not factoring.test_ids:
            raise DataError(f"{instances_path}: expected a non-empty JSON list of instances")
        answer_key = _read(answer_key_path) if answer_key_path is not None else None
        if answer_key is not None and not isinstance(answer_key, dict):
            raise DataError(
                f"{answer_key_path}: expected a JSON object mapping test_id to [image_instance_id, text_instance_id]"
            )
        with _without_gc():
            return factoring.finish(answer_key)
    except FactoringError as error:
        raise DataError(str(error)) from None


def _load(file: tuple[Path, Path | None, int]) -> FactoredChunk:
    return load_factored_chunk(*file)


def load_factored_chunks(files: Sequence[tuple[Path, Path | None, int]]) -> tuple[FactoredChunk, ...]:
    """Every ``(instances, answer key, chunk)`` file pair factored, in order; chunks load in parallel processes
    (``ABDUCTIVE_WORKERS``, default up to 4, one per core), each holding one parsed block of a chunk file at a time
    (under 1 GB at the official size)."""
    workers = settings.workers(len(files))
    if workers == 1:
        return tuple(map(_load, files))
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return tuple(pool.map(_load, files))


# ---------------------------------------------------------------- scores


@dataclass
class ChunkScores:
    """Scores of one chunk from its documents' embeddings; ``None`` when documents are missing or not embeddings."""

    chunk: int
    scores: np.ndarray | None  # rows x cols cosine similarities
    grid: np.ndarray | None  # official n x n grid (truth on the diagonal); None without an answer key
    unreadable: int  # documents whose result is not an embedding payload
    missing: int  # documents of the chunk absent from the records (--limit)


def chunk_scores(records: Sequence[dict]) -> list[ChunkScores]:
    """Per chunk: stack the embeddings, one matrix product, and the official grid when gold ids are known.

    ``records`` carry ``chunk``, ``row``, ``col``, ``gold_row``, ``gold_col``, ``rows``, ``cols``,
    ``documents`` and ``payload`` (:mod:`abductive_tasks.sherlock.embeddings`; None when the model
    gave none). A chunk missing documents (``--limit``) or holding a result that is not an
    embedding payload gets ``None`` scores.
    """
    by_chunk: dict[int, list[dict]] = {}
    for record in records:
        by_chunk.setdefault(record["chunk"], []).append(record)
    results = []
    for chunk, group in sorted(by_chunk.items()):
        decoded = [decode_embeddings(record["payload"]) for record in group]
        unreadable, missing = sum(embeddings is None for embeddings in decoded), group[0]["documents"] - len(group)
        if unreadable or missing:
            results.append(ChunkScores(chunk, None, None, unreadable, missing))
            continue
        image = np.zeros((group[0]["rows"], decoded[0][0].size), np.float32)
        text = np.zeros((group[0]["cols"], decoded[0][1].size), np.float32)
        for record, (image_embedding, text_embedding) in zip(group, decoded, strict=True):
            image[record["row"]], text[record["col"]] = image_embedding, text_embedding
        scores = image @ text.T
        gold = [(record["gold_row"], record["gold_col"]) for record in group if record["gold_row"] >= 0]
        grid = None
        if gold:  # same order for rows and columns: the true pairs stay on the diagonal
            gold_rows, gold_cols = (np.array(side) for side in zip(*gold, strict=True))
            grid = scores[np.ix_(gold_rows, gold_cols)]
        results.append(ChunkScores(chunk, scores, grid, unreadable, missing))
    return results


def submission_scores(chunk: FactoredChunk, scores: np.ndarray) -> np.ndarray:
    """Leaderboard scores (float32, higher = more plausible) of every instance in sorted test_id order."""
    if chunk.col_of is None:
        raise ValueError(f"chunk {chunk.chunk} scores clues, which have no leaderboard submission")
    return scores[chunk.row_of, chunk.col_of].astype(np.float32)
