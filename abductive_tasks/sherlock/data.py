"""Sherlock leaderboard-format data (Hessel et al., ECCV 2022; allenai/sherlock ``leaderboard_eval``).

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
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from abductive_tasks.data import DataError, benchmark_root, resolve_inside
from abductive_tasks.images import check_image

BENCHMARK = "sherlock"
TASKS = ("retrieval", "localization", "comparison")
SPLITS = ("val", "test")
BOX_FIELDS = ("left", "top", "width", "height")


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
    boxes: tuple[tuple[int, int, int, int], ...]
    inference: str

    @property
    def region_key(self) -> str:
        """Identifies the drawn image: the image and its highlighted boxes."""
        return region_key(self.image_key, self.boxes)


@functools.lru_cache(maxsize=2**16)  # documents repeat regions: a retrieval row n times, a proposal once per inference
def region_key(key: str, boxes: tuple[tuple[int, int, int, int], ...]) -> str:
    """``<image key>|<JSON list of [left, top, width, height]>``, the cache key of a region-drawn image."""
    return f"{key}|{json.dumps([list(box) for box in boxes])}"


LEADERBOARD_DATA = "https://storage.googleapis.com/ai2-mosaic-public/projects/sherlock/leaderboard_data/"


def sherlock_root() -> Path:
    """The folder ``ABDUCTIVE_DATA`` selects for Sherlock; the official data are zips, not a hub copy."""
    return benchmark_root(
        BENCHMARK,
        hub_repo=None,
        how_to_get=f"Unpack the official leaderboard zips ({LEADERBOARD_DATA}val_retrieval.zip, val_localization.zip, val_comparison.zip, "
        f"test_*_public.zip) and the Visual Genome / VCR images into <root>/sherlock/ (layout: yaml_tasks/sherlock/README.md).",
    )


def image_key(url: str) -> str:
    """Local image name of an official URL: its last two path components (``VG_100K/2371713.jpg``, ``<movie>/<frame>.jpg``)."""
    parts = [part for part in url.split("?")[0].split("/") if part]
    if len(parts) < 2:
        raise ValueError(f"image url '{url}' has fewer than two path components")
    return "/".join(parts[-2:])


def task_files(root: Path, task: str, split: str) -> list[TaskFile]:
    """The instance (and answer-key) files of ``task`` on ``split``, retrieval chunks in index order."""
    folder_name = f"{split}_{task}" if split == "val" else f"test_{task}_public"
    folder = root / folder_name
    if not folder.is_dir():
        raise DataError(f"Sherlock {split} {task}: folder {folder} not found (unpack the official {folder_name}.zip there; see yaml_tasks/sherlock/README.md)")
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
            raise DataError(f"Sherlock val {task}: answer key {key} not found (it ships in the official val_{task}.zip)")
        files.append(TaskFile(chunk, instances, key))
    return files


def read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise DataError(f"{path}: cannot read JSON: {error}") from error


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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
            raise DataError(f"{path}, instance {index}, field 'test_id': duplicate test_id '{test_id}' (first at instance {seen[test_id]})")
        seen[test_id] = index
    return raw, list(seen)


def validate_instances(raw: list, path: Path, root: Path, task: str, indices: Iterable[int] | None = None) -> list[Instance]:
    """Validate the instances at ``indices`` (default: all) of a raw list; errors name the file, the list index and the field."""
    checked_images: dict[str, str] = {}
    instances = []
    for index in range(len(raw)) if indices is None else indices:
        item = raw[index]

        def fail(field: str, problem: str, index: int = index) -> DataError:
            return DataError(f"{path}, instance {index}, field '{field}': {problem}")

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
            if not isinstance(box, dict) or not all(_integer(box.get(name)) for name in BOX_FIELDS):
                raise fail(f"region[{number}]", f"expected integer pixel fields {list(BOX_FIELDS)}, got {box!r}")
            boxes.append(tuple(box[name] for name in BOX_FIELDS))
        inference = item.get("inference")
        if not isinstance(inference, str) or not inference.strip():
            raise fail("inference", "missing or empty")
        key = image_key(url)
        if key not in checked_images:
            where = f"{path}, instance {index}, field 'image.url'"
            checked_images[key] = check_image(resolve_inside(root / "images", key, where), where)
        instances.append(Instance(item["test_id"], url, key, checked_images[key], tuple(boxes), inference))
    return instances


def read_instances(path: Path, root: Path, task: str) -> list[Instance]:
    """Every instance of ``path``, validated."""
    raw, _ids = read_instance_list(path)
    return validate_instances(raw, path, root, task)


# ---------------------------------------------------------------- answer keys (val only)


def _key_fail(path: Path, test_id: str, problem: str) -> DataError:
    return DataError(f"{path}, test_id '{test_id}': {problem}")


def _check_coverage(path: Path, keyed: set[str], test_ids: Iterable[str]) -> None:
    ids = set(test_ids)
    if missing := sorted(ids - keyed):
        raise DataError(f"{path}: no answer for {len(missing)} test_id(s) of the instances file, e.g. '{missing[0]}'")
    if extra := sorted(keyed - ids):
        raise DataError(f"{path}: {len(extra)} test_id(s) not in the instances file, e.g. '{extra[0]}'")


def retrieval_key(path: Path, test_ids: Iterable[str]) -> dict[str, tuple[str, str]]:
    """``test_id -> (image_instance_id, text_instance_id)``; the pairs must form the full n x n grid."""
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise DataError(f"{path}: expected a JSON object test_id -> [image_instance_id, text_instance_id]")
    key = {}
    for test_id, pair in raw.items():
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) and x for x in pair)):
            raise _key_fail(path, test_id, f"expected [image_instance_id, text_instance_id], got {pair!r}")
        key[test_id] = (pair[0], pair[1])
    _check_coverage(path, set(key), test_ids)
    images, texts = {pair[0] for pair in key.values()}, {pair[1] for pair in key.values()}
    if images != texts or len(set(key.values())) != len(images) ** 2 or len(key) != len(images) ** 2:
        raise DataError(f"{path}: the (image, text) instance pairs do not form a full n x n grid ({len(images)} images, {len(texts)} texts, {len(key)} pairs)")
    return key


def localization_key(path: Path, test_ids: Iterable[str]) -> dict[str, dict]:
    """``test_id -> {type, image, inst_id, bbox_idx, correct | IoU, order}`` (``order``: position in the key, for first-on-ties)."""
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise DataError(f"{path}: expected a JSON object test_id -> answer")
    key = {}
    for order, (test_id, answer) in enumerate(raw.items()):
        if not isinstance(answer, dict) or answer.get("type") not in ("gt", "auto"):
            raise _key_fail(path, test_id, f"expected an object with type 'gt' or 'auto', got {answer!r}")
        for field in ("image", "inst_id"):
            if not isinstance(answer.get(field), str | int) or isinstance(answer.get(field), bool):
                raise _key_fail(path, test_id, f"field '{field}' missing or not a string")
        entry = {"type": answer["type"], "image": str(answer["image"]), "inst_id": str(answer["inst_id"]), "order": order}
        if answer["type"] == "gt":
            if not _integer(answer.get("bbox_idx")) or answer["bbox_idx"] < 0 or not isinstance(answer.get("correct"), bool):
                raise _key_fail(path, test_id, "a 'gt' answer needs an integer 'bbox_idx' >= 0 and a boolean 'correct'")
            entry |= {"bbox_idx": answer["bbox_idx"], "correct": answer["correct"], "iou": math.nan}
        else:
            iou = answer.get("IoU")
            if not isinstance(iou, int | float) or isinstance(iou, bool) or not 0 <= iou <= 1:
                raise _key_fail(path, test_id, f"an 'auto' answer needs a numeric 'IoU' in [0, 1], got {iou!r}")
            entry |= {"bbox_idx": -1, "correct": False, "iou": float(iou)}
        key[test_id] = entry
    _check_coverage(path, set(key), test_ids)
    _check_gt_grids(path, key)
    return key


def _check_gt_grids(path: Path, key: dict[str, dict]) -> None:
    """Each image's gt answers must be the full boxes x inferences grid, one correct box per inference."""
    per_image: dict[str, list[dict]] = {}
    for answer in key.values():
        if answer["type"] == "gt":
            per_image.setdefault(answer["image"], []).append(answer)
    for image, answers in per_image.items():
        n = math.isqrt(len(answers))
        correct = {a["inst_id"]: a["bbox_idx"] for a in answers if a["correct"]}
        cells = {(a["bbox_idx"], a["inst_id"]) for a in answers}
        boxes = {a["bbox_idx"] for a in answers}
        if n * n != len(answers) or len(correct) != n or len(cells) != n * n or boxes != set(range(n)) or set(correct.values()) != boxes:
            raise DataError(f"{path}: the gt answers of image '{image}' are not a full box x inference grid with one correct box per inference")


def comparison_key(path: Path, test_ids: Iterable[str]) -> dict[str, dict]:
    """``test_id -> {input_iid, candidate, position, annot1, annot2, group_size}`` from ``test_id_map`` and ``annotations``."""
    raw = read_json(path)
    if not isinstance(raw, dict) or not isinstance(raw.get("test_id_map"), dict) or not isinstance(raw.get("annotations"), list):
        raise DataError(f"{path}: expected an object with 'test_id_map' and 'annotations'")
    by_pair = {}
    for test_id, entry in raw["test_id_map"].items():
        if not isinstance(entry, dict) or not all(isinstance(entry.get(f), str | int) for f in ("Input_iid", "candidate")):
            raise _key_fail(path, test_id, f"test_id_map entry needs 'Input_iid' and 'candidate', got {entry!r}")
        by_pair[(str(entry["Input_iid"]), str(entry["candidate"]))] = test_id
    key: dict[str, dict] = {}
    for number, annotation in enumerate(raw["annotations"]):
        where = f"{path}, annotations[{number}]"
        if not isinstance(annotation, dict) or not isinstance(annotation.get("candidates"), list) or "Input_iid" not in annotation:
            raise DataError(f"{where}: expected an object with 'Input_iid' and a 'candidates' list")
        input_iid = str(annotation["Input_iid"])
        candidates = annotation["candidates"]
        for position, candidate in enumerate(candidates):
            try:
                source, ratings = str(candidate["source_iid"]), (float(candidate["annot1"]), float(candidate["annot2"]))
            except (KeyError, TypeError, ValueError) as error:
                raise DataError(f"{where}, candidates[{position}]: needs 'source_iid', numeric 'annot1' and 'annot2' ({error})") from error
            test_id = by_pair.get((input_iid, source))
            if test_id is None:
                raise DataError(f"{where}, candidates[{position}]: no test_id maps to (Input_iid '{input_iid}', candidate '{source}')")
            key[test_id] = {"input_iid": input_iid, "candidate": source, "position": position, "annot1": ratings[0], "annot2": ratings[1], "group_size": len(candidates)}
    _check_coverage(path, set(key), test_ids)
    return key
