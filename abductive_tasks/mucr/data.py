"""MuCR data: the official layout, its columns, the loader and the C2E/E2C candidate sets.

Layout (official, Hugging Face dataset ``Pinkygin/MuCR``): parquet files anywhere under the
root (``data/train-*-of-*.parquet`` on the hub: its only split is named ``train``, although it is the
benchmark's evaluation data), one cause-effect pair per row, in either record schema
the project README documents:

* v1: ``id, caption_0, caption_1, link_id, cue, false_cue, style, label, causal_reason, image_0, image_1``
  (``causal_reason``: three annotations; ``link_id``: the other pairs of the causal group);
* v2: ``id, style, cause, effect, cue, false_cue, label, causal_reason, image_0, image_1``
  (``causal_reason``: one annotation string).

Image cells are Hugging Face image features (``{"bytes", "path"}``: the bytes are written once to
a content-addressed cache file) or paths relative to the root.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import orjson
from loguru import logger

from abductive_tasks import settings
from abductive_tasks.inputs import images as images_module
from abductive_tasks.inputs import loading as loading_module
from abductive_tasks.inputs.files import read_regular, seal, source_digest, unseal, write_atomic
from abductive_tasks.inputs.images import check_image, image_cache_dir, intact_entry, materialise_image
from abductive_tasks.inputs.loading import (
    DataError,
    Loaded,
    PathsInside,
    benchmark_root,
    documents,
    files_under,
    reading,
    resolve_columns,
    resolve_inside,
)

BENCHMARK = "mucr"
HUB_REPO = "Pinkygin/MuCR"

# Canonical field -> accepted columns (the same name in v1 and v2). link_id exists in v1 only.
COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id",),
    "link_id": ("link_id",),
    "cue": ("cue",),
    "false_cue": ("false_cue",),
    "style": ("style",),
    "label": ("label",),
    "causal_reason": ("causal_reason",),
    "image_0": ("image_0",),
    "image_1": ("image_1",),
}
REQUIRED = set(COLUMNS) - {"link_id"}
LABELS = {
    "human": "human",
    "person": "human",
    "animal": "animal",
    "plant": "plant",
    "character": "character",
    "mixture": "mixture",
}  # Figure 5 (b)
STYLES = {
    "photograph": "photograph",
    "photographic": "photograph",
    "photo": "photograph",
    "comic": "comic",
}  # Figure 5 (c)
N_CANDIDATES = 4  # "four potential images" / "four potential cue phrases" (Evaluation Metrics)
LINK_ID, SEEDED = "link_id", "seeded"
CANDIDATE_RULES = (LINK_ID, SEEDED)  # how a pair's C2E/E2C distractors were chosen (candidate_sets)
NO_LINK_ID = "no_link_id"  # the key of Loaded.quirks: pairs without link ids (an empty cell: null, "" or "[]"; v2: all)
PAIR_ID = re.compile(r"[\w.-]+")  # one entry of a link_id list: word characters, "." and "-"
LOAD_COUNTS = (NO_LINK_ID,)  # the loader's figures every document and record carries into <level>_counts (load_counts)


def load_selected() -> Loaded:
    """The pairs of the data source ``ABDUCTIVE_DATA`` selects."""
    return load(benchmark_root(BENCHMARK, HUB_REPO))


def load(root: Path) -> Loaded:
    """Read and validate every parquet file under ``root`` (once per run and image cache: the embedded images are
    written into the cache ``ABDUCTIVE_CACHE`` names, and the items name them there), in sorted path order.

    One item per pair: ``item_id``, ``link_ids``, ``cue``, ``false_cues``, ``label``, ``style``,
    ``references`` (the annotations), ``cause_image`` / ``effect_image`` (paths, checked by ``images.check_image``),
    and the C2E/E2C candidate set: ``distractors`` (three other pair ids) and ``candidate_rule``.
    A file read before and unchanged since is read from its item cache (:func:`_file_items`).
    """
    return _load(root, image_cache_dir())


def clear_cache() -> None:
    """Forget the pairs read so far (the next :func:`load` reads the files again), as ``images.clear_cache``."""
    _load.cache_clear()


@functools.cache
def _load(root: Path, image_cache: Path) -> Loaded:
    """:func:`load` for one image cache."""
    files = files_under(root, ".parquet")
    if not files:
        raise DataError(
            f"{root}: no parquet files (expected the {HUB_REPO} layout, e.g. data/train-00000-of-00003-<hash>.parquet)"
        )
    items: list[dict] = []
    seen: dict[str, str] = {}
    for path in files:
        id_column, file_items = _file_items(path, root)
        for row, item in enumerate(file_items, start=1):
            where = f"{path}, row {row}"
            if item["item_id"] in seen:
                raise DataError(
                    f"{where}, field '{id_column}': duplicate id '{item['item_id']}' (first at {seen[item['item_id']]})"
                )
            seen[item["item_id"]] = where
            items.append(item)
    if len(items) < N_CANDIDATES:
        raise DataError(
            f"{root}: {len(items)} pairs; the {N_CANDIDATES}-way candidate sets need at least {N_CANDIDATES}"
        )
    for item, (distractors, rule) in zip(items, candidate_sets(items), strict=True):
        item["distractors"], item["candidate_rule"] = distractors, rule
    unlinked = sum(not item["link_ids"] for item in items)
    if unlinked:
        logger.info(f"MuCR: {unlinked} of {len(items)} pairs without link ids (the seeded rule draws their candidates)")
    return Loaded(", ".join(str(path) for path in files), documents(items), quirks={NO_LINK_ID: unlinked})


def load_counts(loaded: Loaded) -> dict[str, int]:
    """The loader's figures every document and record carries into ``<level>_counts`` (:data:`LOAD_COUNTS`):
    ``no_link_id``, the pairs without link ids, whose C2E/E2C candidates the seeded rule drew."""
    return {NO_LINK_ID: loaded.quirks[NO_LINK_ID]}


def _read_file(path: Path, root: Path) -> tuple[dict[str, str], list[dict], list[list[str | None]]]:
    """One parquet file's columns, validated items (one per row, in row order) and each item's image sources
    (:func:`_image`); a bad row raises a DataError naming file, row and field."""
    import pyarrow.parquet as pq  # here, not above: readers of the task specs (the reports) never read parquet

    items: list[dict] = []
    sources: list = []
    with reading(path):
        parquet = pq.ParquetFile(path)
        columns = resolve_columns(parquet.schema_arrow.names, COLUMNS, REQUIRED, path)
        for batch in parquet.iter_batches(batch_size=64, columns=list(columns.values())):
            for record in batch.to_pylist():
                item, item_sources = _item(record, columns, root, f"{path}, row {len(items) + 1}")
                items.append(item)
                sources.append(item_sources)
    return columns, items, sources


# ---------------------------------------------------------------- the per-file item cache

_IMAGE_FIELDS = ("cause_image", "effect_image")


def _loader_code() -> str:
    """The digest of the code that builds and checks the cached items (:func:`source_digest`): this
    module (``_read_file``, ``_item``, the cells, the cache's own format), the image checks and writing
    (``check_image``, ``materialise_image``, ``intact_entry``) and the loading helpers (``resolve_columns``,
    ``resolve_inside``). The seal (``inputs.files``) is left out: a changed seal refuses every entry by itself."""
    return source_digest(sys.modules[__name__], images_module, loading_module)


def _cache_key(path: Path, root: Path) -> tuple[Path, list]:
    """The item cache file of one parquet file, ``<ABDUCTIVE_CACHE>/mucr_items/<sha256 of root and path>.json``,
    and the stamp its content must carry: the loader's code (:func:`_loader_code`; an edit to it reads every file
    again) and the parquet file's size and modification time (the rule of a run's file identity; a rewritten or
    touched file is read again and its cache replaced)."""
    resolved = path.resolve()
    status = resolved.stat()
    name = hashlib.sha256(f"{root.resolve()}\0{resolved}".encode()).hexdigest()[:40]
    return settings.cache_root() / "mucr_items" / f"{name}.json", [_loader_code(), status.st_size, status.st_mtime_ns]


def _file_items(path: Path, root: Path) -> tuple[str, list[dict]]:
    """The id column and validated items of one parquet file: from its item cache when the file is unchanged and
    every image still passes ``check_image`` (no parquet read), otherwise read in full (:func:`_read_file`) and
    cached."""
    with reading(path):
        cache_file, stamp = _cache_key(path, root)
    cached = _restore(cache_file, stamp, root)
    if cached is not None:
        return cached
    columns, items, sources = _read_file(path, root)
    _save(cache_file, {"stamp": stamp, "id_column": columns["id"], "items": items, "sources": sources})
    return columns["id"], items


def _save(cache_file: Path, content: dict) -> None:
    """Write the cache content (image paths, never image bytes) sealed (:func:`~abductive_tasks.inputs.files.seal`,
    bound to the cache file's name, which names the parquet file, and to the stamp inside) and atomically; a cache
    that cannot be written is skipped."""
    try:
        sealed = seal(orjson.dumps(content), cache_file.name)
        if sealed is not None:
            write_atomic(cache_file, sealed)
    except (OSError, TypeError) as error:  # TypeError: a text orjson cannot write (a lone surrogate)
        logger.debug(f"MuCR item cache not written ({cache_file}): {error}")


def _restore(cache_file: Path, stamp: list, root: Path) -> tuple[str, list[dict]] | None:
    """The cached id column and items; None (read the file in full) when the cache is absent, unreadable, unsealed
    or sealed otherwise (edited, copied from another entry), stamped otherwise, or an image is no longer one the full
    read accepts: an embedded image not resolving inside the image cache, not holding the bytes its name says
    (:func:`~abductive_tasks.inputs.images.intact_entry`) or failing ``check_image``, a path cell no longer resolving
    inside ``root`` to an image passing it."""
    try:
        payload = unseal(read_regular(cache_file), cache_file.name)
        if payload is None:
            return None
        saved = orjson.loads(payload)
        if saved["stamp"] != stamp or len(saved["items"]) != len(saved["sources"]):
            return None
        images, inside = PathsInside(image_cache_dir()), PathsInside(root)
        for item, sources in zip(saved["items"], saved["sources"], strict=True):
            for field, source in zip(_IMAGE_FIELDS, sources, strict=True):
                if source is None:
                    image = images(Path(item[field]).name, str(cache_file))
                    if str(image) != str(Path(item[field])) or not intact_entry(image):
                        return None  # the full read writes the image again, with a warning
                else:
                    image = inside(source, str(cache_file))
                item[field] = check_image(image, str(cache_file))
        return saved["id_column"], saved["items"]
    except (OSError, ValueError, KeyError, TypeError, DataError):  # orjson.JSONDecodeError is a ValueError
        return None


# ---------------------------------------------------------------- cells


class _BadCell(ValueError):
    """A cell that does not hold what its field needs; the caller names the file, row and field."""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _text(value: object) -> str:
    """A text cell (an int id reads as its digits); bytes must be UTF-8; lists and other values are refused."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _BadCell(f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _BadCell(f"expected text, found {type(value).__name__} {_short(value)}")
    return str(value).strip()


def _literal_list(text: str) -> list:
    """A list written as text: JSON, a Python literal (parsed safely, never ``eval``), or bare ``[a, b, c]`` tokens."""
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError):
            continue
        except (RecursionError, MemoryError):
            raise _BadCell(f"written list nested too deeply: {_short(text)}") from None
        if isinstance(value, list):
            return value
    tokens = [token.strip().strip("'\"") for token in text[1:-1].split(",")]
    if any("[" in token or "]" in token for token in tokens):
        raise _BadCell(f"unreadable written list {_short(text)}")
    return tokens


def _string_list(value: object, split_commas: bool) -> list[str]:
    """A list cell as non-empty strings; a text cell is a written list, a comma list or one string.

    Entries must be text (or int ids): a nested list is refused.
    """
    if value is None:
        return []
    if isinstance(value, str | bytes):
        text = _text(value)
        if text.startswith("[") and text.endswith("]"):
            value = _literal_list(text)
        else:
            value = text.split(",") if split_commas else [text]
    if not isinstance(value, list | tuple):
        value = [value]
    return [entry for entry in map(_text, value) if entry]


def _link_ids(value: object) -> list[str]:
    """A ``link_id`` cell: pair ids as a list, a written list ``[a, b, c]`` or a comma list (empty: no link id).
    An entry that is not a pair id (:data:`PAIR_ID`), e.g. ``__import__('os')`` or ``(1``, makes it unreadable."""
    ids = _string_list(value, split_commas=True)
    if bad := next((entry for entry in ids if not PAIR_ID.fullmatch(entry)), None):
        raise _BadCell(f"unreadable list of pair ids {_short(value)}: {_short(bad)} is not a pair id")
    return ids


def _image(value: object, root: Path, where: str) -> tuple[str, str | None]:
    """The path of an image cell and its source: embedded bytes are written to the image cache (source None), a path
    is resolved inside ``root`` (source: the cell's relative path)."""
    if isinstance(value, dict):
        if value.get("bytes"):
            if not isinstance(value["bytes"], bytes):
                raise DataError(f"{where}: image bytes expected, found {type(value['bytes']).__name__}")
            return check_image(Path(materialise_image(value["bytes"])), where), None
        value = value.get("path")
    if isinstance(value, str) and value.strip():
        return check_image(resolve_inside(root, value.strip(), where), where), value.strip()
    raise DataError(f"{where}: no image (expected an image cell with bytes, or a path relative to {root})")


def _item(record: dict, columns: dict[str, str], root: Path, where: str) -> tuple[dict, list[str | None]]:
    """One row's validated item and its images' sources (:func:`_image`)."""

    def fail(field: str, problem: str) -> DataError:
        return DataError(f"{where}, field '{columns.get(field, field)}': {problem}")

    def cell(field: str, read: Callable[[object], object]):
        try:
            return read(record[columns[field]])
        except _BadCell as error:
            raise fail(field, str(error)) from None

    item_id = cell("id", _text)
    if not item_id:
        raise fail("id", "empty id")
    cue = cell("cue", _text)
    if not cue:
        raise fail("cue", "empty cue phrase")
    false_cues = cell("false_cue", lambda value: _string_list(value, split_commas=True))
    if len(false_cues) != N_CANDIDATES - 1 or len({c.lower() for c in [cue, *false_cues]}) != N_CANDIDATES:
        raise fail(
            "false_cue",
            f"expected {N_CANDIDATES - 1} distinct false cues differing from the cue '{cue}', found {false_cues}",
        )
    label = LABELS.get(cell("label", _text).lower())
    if label is None:
        raise fail("label", f"unknown category '{record[columns['label']]}', expected one of {sorted(LABELS)}")
    style = STYLES.get(cell("style", _text).lower())
    if style is None:
        raise fail("style", f"unknown style '{record[columns['style']]}', expected one of {sorted(STYLES)}")
    references = cell("causal_reason", lambda value: _string_list(value, split_commas=False))
    if not references:
        raise fail("causal_reason", "no explanation annotation")
    images = [
        _image(record[columns[field]], root, f"{where}, field '{columns[field]}'") for field in ("image_0", "image_1")
    ]
    item = {
        "item_id": item_id,
        "link_ids": cell("link_id", _link_ids) if "link_id" in columns else [],
        "cue": cue,
        "false_cues": false_cues,
        "label": label,
        "style": style,
        "references": references,
        "cause_image": images[0][0],
        "effect_image": images[1][0],
    }
    return item, [source for _path, source in images]


# ---------------------------------------------------------------- candidate sets


def causal_groups(items: Sequence[dict]) -> dict[str, int]:
    """Group number per item: connected components of the ``link_id`` references between loaded pairs.

    ``link_id`` names the other pairs of an item's causal group (the paper's groups of four
    captions); unresolvable ids are ignored, and an item nobody links stays alone.
    """
    parent = {item["item_id"]: item["item_id"] for item in items}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for item in items:
        for other in item["link_ids"]:
            if other in parent:
                parent[root(other)] = root(item["item_id"])
    roots = sorted({root(node) for node in parent})
    return {node: roots.index(root(node)) for node in parent}


def _links_resolve(item: dict, known: set[str]) -> bool:
    links = item["link_ids"]
    return (
        len(links) == N_CANDIDATES - 1
        and len(set(links)) == len(links)
        and item["item_id"] not in links
        and set(links) <= known
    )


def candidate_sets(items: Sequence[dict]) -> list[tuple[list[str], str]]:
    """The three distractor pairs of every item and the rule that chose them (the paper does not publish its sets).

    ``link_id``: the item's ``link_id`` when it names exactly three other loaded pairs.
    ``seeded``: otherwise three pairs drawn by a generator seeded with the item id, taking first
    the item's causal group (:func:`causal_groups`), then pairs with the same category label,
    then any other pair; each tier is shuffled.
    """
    known = {item["item_id"] for item in items}
    group = causal_groups(items)
    label = {item["item_id"]: item["label"] for item in items}
    chosen = []
    for item in items:
        item_id = item["item_id"]
        if _links_resolve(item, known):
            chosen.append((list(item["link_ids"]), LINK_ID))
            continue
        rng = random.Random(f"mucr-distractors:{item_id}")
        others = sorted(known - {item_id})
        same_group = [other for other in others if group[other] == group[item_id]]
        same_label = [other for other in others if group[other] != group[item_id] and label[other] == label[item_id]]
        rest = [other for other in others if group[other] != group[item_id] and label[other] != label[item_id]]
        picked = []
        for tier in (same_group, same_label, rest):
            rng.shuffle(tier)
            picked += tier
        chosen.append((picked[: N_CANDIDATES - 1], SEEDED))
    return chosen
