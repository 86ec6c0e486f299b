"""Sherlock data: the official leaderboard layout (Hessel et al., ECCV 2022; allenai/sherlock ``leaderboard_eval``)
and its loader.

Layout under ``ABDUCTIVE_DATA/sherlock`` (the official zips unpacked side by side, plus the images)::

    val_retrieval/val_retrieval_{i}_instances.json, val_retrieval_{i}_answer_key.json   (i = 0..22)
    val_localization/val_localization_{instances,answer_key}.json
    val_comparison/val_comparison_{instances,answer_key}.json
    test_retrieval_public/test_retrieval_{i}_instances.json                             (no answer keys)
    test_localization_public/test_localization_instances.json
    test_comparison_public/test_comparison_instances.json
    images/VG_100K/2371713.jpg, images/<VCR movie folder>/<file>.jpg, ...

An instance is ``{"image": {"url", "width", "height"}, "region": [{"left", "top", "width",
"height"}, ...], "inference", "test_id", "extra_info": {"task"}}``; boxes are absolute pixels.
Images are found by the last two components of their URL (never fetched).

:func:`load` is the one entry point. Its items are the documents' data: one per leaderboard
``test_id`` (view ``pairs``), the seeded retrieval sub-grid (``mini``), or the factored routes'
items (``factored``): for retrieval one per instance id of each chunk (built by
:mod:`abductive_tasks.sherlock.factored_retrieval`), for localization one per image with its candidate regions,
its inferences and its instances. Each per-pair item carries the answer-key fields (neutral
values on the test split, ``has_key`` false) and the group a metric is computed over (``group``:
retrieval chunk, localization image and box type, comparison input) with its size, so that
groups cut apart by ``--limit`` are counted, not scored.

Clues (§B.1: retrieval and localization "testing on clues instead"): the leaderboard files hold inferences only; the
val corpus (``sherlock_val_with_split_idxs_v1_1.json`` beside the zips) holds each instance's clue. ``texts="clue"``
gives the factored val items with every text the clue of its answer-key instance id (:mod:`.clues`).
"""

from __future__ import annotations

import collections
import functools
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
from datasets.table import InMemoryTable

from abductive_tasks.inputs.images import check_image, image_size
from abductive_tasks.inputs.loading import DataError, Loaded, benchmark_root, reading, resolve_inside
from abductive_tasks.sherlock import clues, factored_retrieval
from abductive_tasks.sherlock.answer_keys import (
    comparison_key,
    integer_value,
    localization_key,
    read_json,
    retrieval_key,
)
from abductive_tasks.sherlock.factored_retrieval import BOX_FIELDS, Box, FactoredChunk, load_factored_chunks

BENCHMARK = "sherlock"
TASKS = ("retrieval", "localization", "comparison")
SPLITS = ("val", "test")
VIEWS = ("pairs", "mini", "factored")
LEADERBOARD_DATA = "https://storage.googleapis.com/ai2-mosaic-public/projects/sherlock/leaderboard_data/"

# sherlock_retrieval_mini (val only): per chunk, a seeded choice of MINI_ROWS image-region rows and
# the same instances' inferences as columns, i.e. a MINI_ROWS x MINI_ROWS sub-grid with the true pairs
# on the diagonal; 23 chunks x 30^2 = 20,700 pairs, 690 queries (size justified in the task README).
MINI_ROWS = 30
MINI_SEED = 0
TEXTS = ("inference", "clue")

# Answer fields per task, with the neutral values test items (no answer key) carry. Only the
# task's own fields become columns: fewer columns make lmms-eval's per-document access cheaper.
NO_KEY = {
    "retrieval": {"image_instance": "", "text_instance": ""},
    "localization": {"box_type": "", "inst_id": "", "bbox_idx": -1, "correct": False, "iou": math.nan, "key_order": -1},
    "comparison": {"input_iid": "", "candidate": "", "position": -1, "annot1": math.nan, "annot2": math.nan},
}


@dataclass(frozen=True)
class TaskFile:
    """One leaderboard instances file (a retrieval chunk, or the whole localization/comparison set)."""

    chunk: int
    instances: Path
    answer_key: Path | None  # None on the test split (labels are private)


@dataclass(frozen=True)
class Instance:
    """One validated (image, region, inference) triple."""

    test_id: str
    url: str
    image_key: str
    image_path: str
    boxes: tuple[Box, ...]
    inference: str

    @property
    def region_key(self) -> str:
        """Identifies the drawn image: the image and its highlighted boxes."""
        return region_key(self.image_key, self.boxes)


@functools.lru_cache(maxsize=2**16)  # items repeat regions: a retrieval row n times, a proposal once per inference
def region_key(key: str, boxes: tuple[Box, ...]) -> str:
    """``<image key>|<JSON list of [left, top, width, height]>``, the cache key of a region-drawn image."""
    return f"{key}|{json.dumps([list(box) for box in boxes])}"


def sherlock_root() -> Path:
    """The folder ``ABDUCTIVE_DATA`` selects for Sherlock; the official data are zips, not a hub copy."""
    return benchmark_root(
        BENCHMARK,
        hub_repo=None,
        how_to_get=(
            f"Unpack the official leaderboard zips ({LEADERBOARD_DATA}val_retrieval.zip, val_localization.zip, "
            "val_comparison.zip, test_*_public.zip) and the Visual Genome / VCR images into <root>/sherlock/ "
            "(layout: yaml_tasks/sherlock/README.md)."
        ),
    )


def image_key(url: str) -> str:
    """Local image name of an official URL: its last two path components
    (``VG_100K/2371713.jpg``, ``<movie>/<frame>.jpg``)."""
    parts = [part for part in url.split("?")[0].split("/") if part]
    if len(parts) < 2:
        raise ValueError(f"image url '{url}' has fewer than two path components")
    return "/".join(parts[-2:])


def task_files(root: Path, task: str, split: str) -> list[TaskFile]:
    """The instance (and answer-key) files of ``task`` on ``split``, retrieval chunks in index order."""
    folder_name = f"{split}_{task}" if split == "val" else f"test_{task}_public"
    folder = root / folder_name
    if not folder.is_dir():
        raise DataError(
            f"Sherlock {split} {task}: folder {folder} not found (unpack the official {folder_name}.zip there; "
            "see yaml_tasks/sherlock/README.md)"
        )
    if task == "retrieval":
        pattern = re.compile(rf"{split}_retrieval_(\d+)_instances\.json")
        chunks = sorted(int(match.group(1)) for path in folder.iterdir() if (match := pattern.fullmatch(path.name)))
        if not chunks:
            raise DataError(f"{folder}: no {split}_retrieval_<i>_instances.json files")
        stems = [(chunk, f"{split}_retrieval_{chunk}") for chunk in chunks]
    else:
        stems = [(0, f"{split}_{task}")]
    files = []
    for chunk, stem in stems:
        instances = folder / f"{stem}_instances.json"
        if not instances.is_file():
            raise DataError(f"Sherlock {split} {task}: {instances} not found")
        key = folder / f"{stem}_answer_key.json" if split == "val" else None
        if key is not None and not key.is_file():
            raise DataError(
                f"Sherlock val {task}: answer key {key} not found (it ships in the official val_{task}.zip)"
            )
        files.append(TaskFile(chunk, instances, key))
    return files


# ---------------------------------------------------------------- instances


def read_instance_list(path: Path) -> tuple[list, list[str]]:
    """The raw instances of ``path`` and their test ids (checked: non-empty strings, unique)."""
    raw = read_json(path)
    if not isinstance(raw, list) or not raw:
        raise DataError(f"{path}: expected a non-empty JSON list of instances")
    seen: dict[str, int] = {}
    for index, item in enumerate(raw):
        test_id = item.get("test_id") if isinstance(item, dict) else None
        if not isinstance(test_id, str) or not test_id:
            raise DataError(f"{path}, instance {index}, field 'test_id': missing or not a non-empty string")
        if test_id in seen:
            raise DataError(
                f"{path}, instance {index}, field 'test_id': duplicate test_id '{test_id}' (first at instance "
                f"{seen[test_id]})"
            )
        seen[test_id] = index
    return raw, list(seen)


def check_boxes(boxes: Iterable[Box], size: tuple[int, int], where: str) -> None:
    """Every box must have a non-negative width and height (PIL cannot draw a negative one) and overlap the
    ``size`` (width, height) image (else nothing is drawn). Coordinates may be negative or pass the border:
    the official drawing (``hide_region``) clips such a box like any other."""
    width, height = size
    for number, (left, top, box_width, box_height) in enumerate(boxes):
        if box_width < 0 or box_height < 0:
            raise DataError(f"{where}, field 'region[{number}]': negative width or height ({box_width} x {box_height})")
        if left > width - 1 or top > height - 1 or left + box_width < 0 or top + box_height < 0:
            raise DataError(
                f"{where}, field 'region[{number}]': box {[left, top, box_width, box_height]} lies outside the "
                f"{width}x{height} image"
            )


def checked_image(root: Path, url: str, where: str) -> tuple[str, tuple[int, int]]:
    """The local path of an image url, checked (:func:`abductive_tasks.inputs.images.check_image`), and its size."""
    path = check_image(resolve_inside(root / "images", image_key(url), where), where)
    return path, image_size(path)


def validate_instances(
    raw: list, path: Path, root: Path, task: str, indices: Iterable[int] | None = None
) -> list[Instance]:
    """Validate the instances at ``indices`` (default: all) of a raw list;
    errors name the file, the list index and the field."""
    images: dict[str, tuple[str, tuple[int, int]]] = {}
    instances = []
    for index in range(len(raw)) if indices is None else indices:
        item = raw[index]
        where = f"{path}, instance {index}"

        def fail(field: str, problem: str, where: str = where) -> DataError:
            return DataError(f"{where}, field '{field}': {problem}")

        declared = (item.get("extra_info") or {}).get("task", task)
        if declared != task:
            raise fail("extra_info.task", f"'{declared}' in a {task} file")
        image = item.get("image")
        url = image.get("url") if isinstance(image, dict) else None
        if not isinstance(url, str) or not url:
            raise fail("image.url", "missing or not a string")
        region = item.get("region")
        if not isinstance(region, list) or not region:
            raise fail("region", "expected a non-empty list of boxes")
        boxes = []
        for number, box in enumerate(region):
            if not isinstance(box, dict) or not all(integer_value(box.get(name)) for name in BOX_FIELDS):
                raise fail(f"region[{number}]", f"expected integer pixel fields {list(BOX_FIELDS)}, got {box!r}")
            boxes.append(tuple(box[name] for name in BOX_FIELDS))
        inference = item.get("inference")
        if not isinstance(inference, str) or not inference.strip():
            raise fail("inference", "missing or empty")
        key = image_key(url)
        if key not in images:
            images[key] = checked_image(root, url, f"{where}, field 'image.url'")
        image_path, size = images[key]
        check_boxes(boxes, size, where)
        instances.append(Instance(item["test_id"], url, key, image_path, tuple(boxes), inference))
    return instances


# ---------------------------------------------------------------- answer keys (val only)


# ---------------------------------------------------------------- items


def mini_rows(key: dict[str, tuple[str, str]], chunk: int, size: int = MINI_ROWS) -> set[str]:
    """The instance ids of chunk ``chunk``'s mini sub-grid: ``size`` of them, chosen with seed ``MINI_SEED + chunk``."""
    ids = sorted({image for image, _ in key.values()})
    chosen = np.random.default_rng(MINI_SEED + chunk).choice(len(ids), size=min(size, len(ids)), replace=False)
    return {ids[i] for i in chosen}


def _retrieval_answers(
    key: dict[str, tuple[str, str]], test_ids: list[str], chunk: int, rows: set[str] | None
) -> list[dict | None]:
    n = len(rows) if rows is not None else math.isqrt(len(key))
    answers = []
    for test_id in test_ids:
        image, text = key[test_id]
        keep = rows is None or (image in rows and text in rows)
        answers.append(
            {"image_instance": image, "text_instance": text, "group": str(chunk), "group_size": n * n} if keep else None
        )
    return answers


def _localization_answers(path: Path, test_ids: list[str]) -> list[dict]:
    key = localization_key(path, test_ids)
    sizes: dict[str, int] = {}
    for answer in key.values():
        group = f"{answer['image']}|{answer['type']}"
        sizes[group] = sizes.get(group, 0) + 1
    answers = []
    for test_id in test_ids:
        answer = key[test_id]
        group = f"{answer['image']}|{answer['type']}"
        answers.append(
            {
                "box_type": answer["type"],
                "inst_id": answer["inst_id"],
                "bbox_idx": answer["bbox_idx"],
                "correct": answer["correct"],
                "iou": answer["iou"],
                "key_order": answer["order"],
                "group": group,
                "group_size": sizes[group],
            }
        )
    return answers


def _comparison_answers(path: Path, test_ids: list[str]) -> list[dict]:
    key = comparison_key(path, test_ids)
    return [
        {
            "input_iid": (answer := key[test_id])["input_iid"],
            "candidate": answer["candidate"],
            "position": answer["position"],
            "annot1": answer["annot1"],
            "annot2": answer["annot2"],
            "group": answer["input_iid"],
            "group_size": answer["group_size"],
        }
        for test_id in test_ids
    ]


def _pair_items(root: Path, task: str, split: str, mini_size: int | None) -> tuple[datasets.Dataset, int]:
    """One item per test_id (``mini_size``: only the retrieval sub-grid's); also the number of instances left out."""
    columns: dict[str, list] = {}  # built column by column: large files make millions of items
    left_out = 0
    for file in task_files(root, task, split):
        raw, test_ids = read_instance_list(file.instances)
        if file.answer_key is None:
            answers: list[dict | None] = [{"group": "", "group_size": 0} for _ in test_ids]
        elif task == "retrieval":
            key = retrieval_key(file.answer_key, test_ids)
            answers = _retrieval_answers(
                key, test_ids, file.chunk, mini_rows(key, file.chunk, mini_size) if mini_size else None
            )
        elif task == "localization":
            answers = _localization_answers(file.answer_key, test_ids)
        else:
            answers = _comparison_answers(file.answer_key, test_ids)
        kept = [index for index, answer in enumerate(answers) if answer is not None]  # mini: validate only the sub-grid
        left_out += len(answers) - len(kept)
        for instance, index in zip(validate_instances(raw, file.instances, root, task, kept), kept, strict=True):
            item = {
                "test_id": instance.test_id,
                "sherlock_task": task,
                "split": split,
                "chunk": file.chunk,
                "file_size": len(
                    test_ids
                ),  # instances in the leaderboard file: the export checks a submission is complete
                "image_path": instance.image_path,
                "boxes": [list(box) for box in instance.boxes],
                "region_key": instance.region_key,
                "inference": instance.inference,
                **NO_KEY[task],
                "has_key": file.answer_key is not None,
                **answers[index],
            }
            for field, value in item.items():
                columns.setdefault(field, []).append(value)
    return datasets.Dataset.from_dict(columns), left_out


@functools.cache
def factored_chunks(root: Path, split: str) -> tuple[FactoredChunk, ...]:
    """Every retrieval chunk of ``split`` under ``root``, factored into its distinct image-regions and inferences
    (once per run)."""
    return load_factored_chunks(
        [(file.instances, file.answer_key, file.chunk) for file in task_files(root, "retrieval", split)]
    )


def _factored_items(root: Path, split: str, texts: str = "inference") -> datasets.Dataset:
    """The factored route's items: per chunk, item ``k`` carries row ``k`` and column ``k`` (wrapping when one
    side has fewer distinct entries) and the k-th answer-key instance id's gold row and column (-1 without a key).
    ``texts="clue"`` (val): the columns are the instances' clues (:func:`clues.clue_chunk`).

    Fields follow the per-pair items (``image_path``, ``boxes``, ``region_key``, ``inference``), so the same
    visual and target hooks serve both routes. Each image file is checked once and every distinct box checked.
    """
    items: list[dict] = []
    chunks = factored_chunks(root, split)
    if texts == "clue":
        keys = {file.chunk: file.answer_key for file in task_files(root, "retrieval", split)}
        chunks = tuple(clues.clue_chunk(root, chunk, keys[chunk.chunk]) for chunk in chunks)
    for chunk in chunks:
        images: dict[str, tuple[str, tuple[int, int]]] = {}
        regions = []
        for url, boxes in chunk.rows:
            where = f"Sherlock {split} retrieval chunk {chunk.chunk}, image url '{url}'"
            if url not in images:
                images[url] = checked_image(root, url, where)
            check_boxes(boxes, images[url][1], where)
            regions.append((images[url][0], [list(box) for box in boxes], region_key(image_key(url), boxes)))
        gold = 0 if chunk.gold_rows is None else len(chunk.gold_rows)
        for k in range(chunk.documents):
            row, col = k % len(chunk.rows), k % len(chunk.texts)
            image_path, boxes, key = regions[row]
            items.append(
                {
                    "chunk": chunk.chunk,
                    "row": row,
                    "col": col,
                    "gold_row": int(chunk.gold_rows[k]) if k < gold else -1,
                    "gold_col": int(chunk.gold_cols[k]) if k < gold else -1,
                    "rows": len(chunk.rows),
                    "cols": len(chunk.texts),
                    "documents": chunk.documents,
                    "image_path": image_path,
                    "boxes": boxes,
                    "region_key": key,
                    "inference": chunk.texts[col],
                    "split": split,
                    "has_key": chunk.gold_rows is not None,
                }
            )
    return datasets.Dataset.from_list(items)


class _Unchecked(Exception):
    """The fast reading of a localization file met something it does not check itself: read it the checked way."""


@dataclass
class _Images:
    """A localization file's instances grouped by image, in first-seen order: per image its distinct regions and
    inferences (first-seen order), per instance its image, region and inference numbers."""

    paths: dict[str, int]  # image path -> image number
    keys: list[str]  # image number -> image key (``VG_100K/1.jpg``)
    regions: list[dict[tuple[Box, ...], int]]
    inferences: list[dict[str, int]]
    test_ids: list[str]
    image_of: list[int]
    row_of: list[int]
    col_of: list[int]

    @classmethod
    def empty(cls) -> _Images:
        return cls({}, [], [], [], [], [], [], [])

    def add(self, path: str, key: str, test_id: str, boxes: tuple[Box, ...], inference: str) -> None:
        image = self.paths.get(path)
        if image is None:
            image = self.paths[path] = len(self.keys)
            self.keys.append(key)
            self.regions.append({})
            self.inferences.append({})
        regions, inferences = self.regions[image], self.inferences[image]
        self.test_ids.append(test_id)
        self.image_of.append(image)
        self.row_of.append(regions.setdefault(boxes, len(regions)))
        self.col_of.append(inferences.setdefault(inference, len(inferences)))


def _checked_images(root: Path, path: Path) -> _Images:
    """Every instance of a localization file, checked as :func:`validate_instances` checks it (test ids, task,
    url, region, inference, image file, boxes inside the image), grouped by image."""
    raw, _test_ids = read_instance_list(path)
    grouped = _Images.empty()
    for instance in validate_instances(raw, path, root, "localization"):
        grouped.add(instance.image_path, instance.image_key, instance.test_id, instance.boxes, instance.inference)
    return grouped


def _fast_images(root: Path, path: Path) -> _Images:
    """:func:`_checked_images` for large files: parsed a block at a time with orjson, fields read with
    comprehensions, each image file, region and inference checked once. Raises :class:`_Unchecked` on anything it
    does not accept (the checked reading then names the instance and field)."""
    grouped, checked_urls = _Images.empty(), {}
    try:
        pieces = map(factored_retrieval.parse_piece, factored_retrieval.instance_pieces(path))
        for piece in pieces:
            tasks = {(item.get("extra_info") or {}).get("task", "localization") for item in piece}
            test_ids = [item["test_id"] for item in piece]
            urls = [item["image"]["url"] for item in piece]
            regions = [tuple(map(factored_retrieval.box_fields, item["region"])) for item in piece]
            inferences = [item["inference"] for item in piece]
            if tasks != {"localization"} or not all(isinstance(t, str) and t for t in test_ids):
                raise _Unchecked
            for url in set(urls) - checked_urls.keys():
                if not isinstance(url, str) or not url:
                    raise _Unchecked
                checked_urls[url] = (image_key(url), *checked_image(root, url, f"{path}, image url '{url}'"))
            for test_id, url, boxes, inference in zip(test_ids, urls, regions, inferences, strict=True):
                key, image_path, _size = checked_urls[url]
                grouped.add(image_path, key, test_id, boxes, inference)
    except (TypeError, KeyError, IndexError, AttributeError, ValueError, DataError, factored_retrieval.UncutPiece):
        raise _Unchecked from None
    if not grouped.test_ids or len(set(grouped.test_ids)) != len(grouped.test_ids):
        raise _Unchecked
    sizes = {image_path: size for _key, image_path, size in checked_urls.values()}
    for image_path, regions, inferences in zip(grouped.paths, grouped.regions, grouped.inferences, strict=True):
        if not all(boxes and all(integer_value(v) for box in boxes for v in box) for boxes in regions):
            raise _Unchecked
        if not all(isinstance(text, str) and text.strip() for text in inferences):
            raise _Unchecked
        try:
            for boxes in regions:
                check_boxes(boxes, sizes[image_path], str(path))
        except DataError:
            raise _Unchecked from None
    return grouped


def _answer_columns(answer_key: Path | None, test_ids: list[str]) -> dict[str, list]:
    """The localization answer fields of ``test_ids`` (checked by :func:`localization_key`) as one list per field,
    the entries released as they are read (the key of 2.36M answers is the largest thing the loading holds)."""
    if answer_key is None:
        neutral = NO_KEY["localization"] | {"group": "", "group_size": 0}
        return {name: [value] * len(test_ids) for name, value in neutral.items()}
    answers = localization_key(answer_key, test_ids)
    entries = list(map(answers.__getitem__, test_ids))
    del answers
    fields = {"box_type": "type", "inst_id": "inst_id", "bbox_idx": "bbox_idx", "correct": "correct", "iou": "iou"}
    columns = {name: [entry[field] for entry in entries] for name, field in fields.items()}
    columns["key_order"] = [entry["order"] for entry in entries]
    names: dict[tuple[str, str], str] = {}  # one string per group
    columns["group"] = [names.setdefault((e["image"], e["type"]), f"{e['image']}|{e['type']}") for e in entries]
    del entries
    sizes = collections.Counter(columns["group"])
    columns["group_size"] = [sizes[group] for group in columns["group"]]
    return columns


def _use_clues(root: Path, grouped: _Images, inst_ids: list[str], source: str) -> None:
    """Replace each instance's inference by the clue of its answer-key ``inst_id`` (§B.1), regrouped per image."""
    inferences = [list(texts) for texts in grouped.inferences]
    shown = (inferences[image][column] for image, column in zip(grouped.image_of, grouped.col_of, strict=True))
    texts = clues.clue_texts(root, inst_ids, shown, source)
    grouped.inferences = [{} for _ in grouped.keys]
    grouped.col_of = [
        grouped.inferences[image].setdefault(clue, len(grouped.inferences[image]))
        for image, clue in zip(grouped.image_of, texts, strict=True)
    ]


def _factored_localization_items(root: Path, split: str, texts: str = "inference") -> datasets.Dataset:
    """The factored localization route's items: one per image (in first-seen order of the instances file, as the
    official ``CLIPDatasetLocalizationLeaderboard`` groups them by URL), with its distinct candidate regions
    (``regions``, ``region_keys``) and distinct inferences (``inferences``), both in first-seen order, and per
    instance of the image (in file order) its ``test_ids``, region and inference (``rows``, ``cols``), its
    position in the file (``positions``: the per-pair route's document order) and its answer fields as lists.

    Instances and answer key are checked as for the per-pair items (a large file is read the fast way first; on
    anything it does not accept, the checked way names the instance and field).
    """
    file = task_files(root, "localization", split)[0]
    with reading(file.instances):
        try:
            grouped = _fast_images(root, file.instances)
        except _Unchecked:
            grouped = _checked_images(root, file.instances)
    answers = _answer_columns(file.answer_key, grouped.test_ids)
    if texts == "clue":
        _use_clues(root, grouped, answers["inst_id"], str(file.answer_key))
    image_of = np.asarray(grouped.image_of, dtype=np.int64)
    order = np.argsort(image_of, kind="stable")  # instances grouped by image, file order within each
    offsets = pa.array(np.searchsorted(image_of[order], np.arange(len(grouped.keys) + 1)), pa.int32())
    del image_of

    def per_image(values: list | np.ndarray, kind: pa.DataType) -> pa.ListArray:
        """One list per image of ``values`` (one per instance, in file order)."""
        if isinstance(values, list):
            values = pa.array(values, kind).take(pa.array(order))
        else:
            values = pa.array(values[order], kind)
        return pa.ListArray.from_arrays(offsets, values)

    images = len(grouped.keys)
    kinds = {"box_type": pa.string(), "inst_id": pa.string(), "bbox_idx": pa.int64(), "correct": pa.bool_()}
    kinds |= {"iou": pa.float64(), "key_order": pa.int64(), "group": pa.string(), "group_size": pa.int64()}
    columns = {
        "sherlock_task": pa.array(["localization"] * images),
        "split": pa.array([split] * images),
        "chunk": pa.array([file.chunk] * images, pa.int64()),
        "file_size": pa.array([len(grouped.test_ids)] * images, pa.int64()),
        "has_key": pa.array([file.answer_key is not None] * images),
        "image_path": pa.array(list(grouped.paths)),
        "regions": pa.array([[list(map(list, boxes)) for boxes in regions] for regions in grouped.regions]),
        "region_keys": pa.array(
            [
                [region_key(key, boxes) for boxes in regions]
                for key, regions in zip(grouped.keys, grouped.regions, strict=True)
            ]
        ),
        "inferences": pa.array([list(inferences) for inferences in grouped.inferences]),
        "test_ids": per_image(grouped.test_ids, pa.string()),
        "rows": per_image(np.asarray(grouped.row_of, dtype=np.int64), pa.int64()),
        "cols": per_image(np.asarray(grouped.col_of, dtype=np.int64), pa.int64()),
        "positions": per_image(np.arange(len(grouped.test_ids), dtype=np.int64), pa.int64()),
    }
    columns |= {name: per_image(answers.pop(name), kind) for name, kind in kinds.items()}
    return datasets.Dataset(InMemoryTable(pa.table(columns)))


def _source(root: Path, task: str, split: str) -> str:
    files = task_files(root, task, split)
    return str(files[0].instances if len(files) == 1 else files[0].instances.parent)


@functools.cache
def load(
    root: Path, task: str, split: str, view: str = "pairs", mini_size: int = MINI_ROWS, texts: str = "inference"
) -> Loaded:
    """Read and validate ``task`` on ``split`` under ``root`` once per run.

    ``view``: ``pairs`` (one item per test_id), ``mini`` (the seeded ``mini_size`` x ``mini_size``
    retrieval sub-grid per chunk, val only; the rest counted in ``excluded``) or ``factored`` (the
    retrieval route through embeddings, one item per instance id of each chunk, see
    :func:`factored_chunks`; the localization route through score matrices, one item per image, see
    :func:`_factored_localization_items`). ``texts="clue"`` (factored val retrieval and localization, §B.1): the
    texts are the instances' clues from the val corpus. Every error names the file, the instance (list index or
    test id) and the field.
    """
    if view not in VIEWS or task not in TASKS or split not in SPLITS or texts not in TEXTS:
        raise ValueError(f"unknown Sherlock task/split/view/texts {task}/{split}/{view}/{texts}")
    if texts == "clue" and (view != "factored" or split != "val"):
        raise DataError("clue texts exist for the factored val retrieval and localization only (§B.1)")
    if view == "mini" and task != "retrieval" or view == "factored" and task == "comparison":
        raise DataError(f"the {view} view does not exist for {task}")
    if view == "mini" and split != "val":
        raise DataError("the mini sub-grid exists for val retrieval only (test answer keys are private)")
    if view == "factored":
        factored = _factored_items if task == "retrieval" else _factored_localization_items
        return Loaded(_source(root, task, split), factored(root, split, texts))
    items, left_out = _pair_items(root, task, split, mini_size if view == "mini" else None)
    return Loaded(_source(root, task, split), items, {"outside_mini_grid": left_out} if view == "mini" else {})


def load_selected(task: str, split: str, view: str = "pairs", texts: str = "inference") -> Loaded:
    """The items of the data source ``ABDUCTIVE_DATA`` selects."""
    return load(sherlock_root(), task, split, view, texts=texts)
