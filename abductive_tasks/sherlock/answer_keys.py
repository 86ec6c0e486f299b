"""Sherlock's answer-key files (the official leaderboard's ``*_answer_key.json``), read without trusting them: each
task's key by ``test_id``, every id of the instances covered, a malformed entry named by file, id and field."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import TypeGuard

from abductive_tasks.inputs.files import read_regular
from abductive_tasks.inputs.loading import DataError, reading
from abductive_tasks.sherlock import factored_retrieval


def read_json(path: Path) -> object:
    """A JSON file (orjson, or the json module for what orjson refuses: its values and errors); unreadable,
    non-UTF-8 or broken files raise one DataError naming the file."""
    with reading(path):
        return factored_retrieval.loads_json(read_regular(path))


def integer_value(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def finite_number(value: object) -> TypeGuard[int | float]:
    """A finite JSON number (``NaN`` and ``Infinity``, which Python's json accepts, are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


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
        raise DataError(
            f"{path}: the (image, text) instance pairs do not form a full n x n grid ({len(images)} images, "
            f"{len(texts)} texts, {len(key)} pairs)"
        )
    return key


def localization_key(path: Path, test_ids: Iterable[str]) -> dict[str, dict]:
    """``test_id -> {type, image, inst_id, bbox_idx, correct | IoU, order}``
    (``order``: position in the key, for first-on-ties)."""
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
        entry = {
            "type": answer["type"],
            "image": str(answer["image"]),
            "inst_id": str(answer["inst_id"]),
            "order": order,
        }
        if answer["type"] == "gt":
            if (
                not integer_value(answer.get("bbox_idx"))
                or answer["bbox_idx"] < 0
                or not isinstance(answer.get("correct"), bool)
            ):
                raise _key_fail(path, test_id, "a 'gt' answer needs an integer 'bbox_idx' >= 0 and a boolean 'correct'")
            entry |= {"bbox_idx": answer["bbox_idx"], "correct": answer["correct"], "iou": math.nan}
        else:
            iou = answer.get("IoU")
            if not finite_number(iou) or not 0 <= iou <= 1:
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
        if (
            n * n != len(answers)
            or len(correct) != n
            or len(cells) != n * n
            or boxes != set(range(n))
            or set(correct.values()) != boxes
        ):
            raise DataError(
                f"{path}: the gt answers of image '{image}' are not a full box x inference grid with one correct "
                "box per inference"
            )


def _test_ids_by_pair(path: Path, test_id_map: dict) -> dict[tuple[str, str], str]:
    """``(Input_iid, candidate) -> test_id`` from a comparison key's ``test_id_map``: one test id a pair."""
    by_pair: dict[tuple[str, str], str] = {}
    for test_id, entry in test_id_map.items():
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(f), str | int) for f in ("Input_iid", "candidate")
        ):
            raise _key_fail(path, test_id, f"test_id_map entry needs 'Input_iid' and 'candidate', got {entry!r}")
        pair = (str(entry["Input_iid"]), str(entry["candidate"]))
        if pair in by_pair:
            raise _key_fail(
                path,
                test_id,
                f"test_id_map maps (Input_iid '{pair[0]}', candidate '{pair[1]}') already to test_id '{by_pair[pair]}'",
            )
        by_pair[pair] = test_id
    return by_pair


def comparison_key(path: Path, test_ids: Iterable[str]) -> dict[str, dict]:
    """``test_id -> {input_iid, candidate, position, annot1, annot2, group_size}`` from ``test_id_map`` and
    ``annotations``.

    Ratings must be finite JSON numbers: a ``NaN`` (which Python's json reads), an infinity or a
    string would make every pairwise comparison with it silently false.
    """
    raw = read_json(path)
    if (
        not isinstance(raw, dict)
        or not isinstance(raw.get("test_id_map"), dict)
        or not isinstance(raw.get("annotations"), list)
    ):
        raise DataError(f"{path}: expected an object with 'test_id_map' and 'annotations'")
    by_pair = _test_ids_by_pair(path, raw["test_id_map"])
    key: dict[str, dict] = {}
    annotated: dict[str, int] = {}  # Input_iid -> its annotation's index
    for number, annotation in enumerate(raw["annotations"]):
        where = f"{path}, annotations[{number}]"
        if (
            not isinstance(annotation, dict)
            or not isinstance(annotation.get("candidates"), list)
            or "Input_iid" not in annotation
        ):
            raise DataError(f"{where}: expected an object with 'Input_iid' and a 'candidates' list")
        input_iid = str(annotation["Input_iid"])
        if input_iid in annotated:
            raise DataError(
                f"{where}, field 'Input_iid': '{input_iid}' repeats annotations[{annotated[input_iid]}] (one "
                "annotation an input: its candidates are ranked together)"
            )
        annotated[input_iid] = number
        candidates = annotation["candidates"]
        positions: dict[str, int] = {}  # source_iid -> its first position among the candidates
        for position, candidate in enumerate(candidates):
            if not isinstance(candidate, dict) or "source_iid" not in candidate:
                raise DataError(
                    f"{where}, candidates[{position}]: needs 'source_iid', numeric 'annot1' and 'annot2', got "
                    f"{candidate!r}"
                )
            for field in ("annot1", "annot2"):
                if not finite_number(candidate.get(field)):
                    raise DataError(
                        f"{where}, candidates[{position}], field '{field}': expected a finite number, got "
                        f"{candidate.get(field)!r}"
                    )
            source = str(candidate["source_iid"])
            test_id = by_pair.get((input_iid, source))
            if test_id is None:
                raise DataError(
                    f"{where}, candidates[{position}]: no test_id maps to (Input_iid '{input_iid}', candidate "
                    f"'{source}')"
                )
            if source in positions:
                raise DataError(
                    f"{where}, candidates[{position}], field 'source_iid': candidate '{source}' repeats "
                    f"candidates[{positions[source]}]"
                )
            positions[source] = position
            key[test_id] = {
                "input_iid": input_iid,
                "candidate": source,
                "position": position,
                "annot1": float(candidate["annot1"]),
                "annot2": float(candidate["annot2"]),
                "group_size": len(candidates),
            }
    _check_coverage(path, set(key), test_ids)
    return key
