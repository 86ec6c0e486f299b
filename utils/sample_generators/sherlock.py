"""Sherlock sample in the official leaderboard format (allenai/sherlock ``leaderboard_eval``), answer keys included.

Val: two retrieval chunks (4 and 3 instances: full 16- and 9-pair grids), localization on two
images (gt grids of 2x2, 2x2 and 3x3; 4, 3 and 3 auto proposals per inference, one with IoU exactly 0.5),
comparison on three inputs (5, 4 and 3 candidates, ratings with ties; on the last input the first
annotator rates all candidates alike). Test: the same files without answer keys, smaller. The val corpus
(``sherlock_val_with_split_idxs_v1_1.json``) gives every observation its clue (§B.1's clue tasks); two observations
share an inference ("it is winter") but not a clue.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from sample_generators.drawing import random_shapes_image

VG_URL = "https://cs.stanford.edu/people/rak248/{}"
VCR_URL = "http://s3-us-west-2.amazonaws.com/ai2-rowanz/vcr1images/{}"
# image name -> (url template, size)
IMAGES = {
    "VG_100K/101.jpg": (VG_URL, (96, 64)),
    "VG_100K/102.jpg": (VG_URL, (80, 80)),
    "VG_100K_2/103.jpg": (VG_URL, (96, 72)),
    "VG_100K_2/104.jpg": (VG_URL, (72, 96)),
    "lsmdc_0001_American_Beauty/0001_American_Beauty_00.00.51.926-00.00.54.129@0.jpg": (VCR_URL, (128, 64)),
    "movieclips_Lethal_Weapon/xa3kgQ3LxFk@12.jpg": (VCR_URL, (112, 56)),
}
# Observations: (instance id, image, boxes [(left, top, width, height)], inference).
OBSERVATIONS = [
    ("o1", "VG_100K/101.jpg", [(4, 4, 30, 24)], "the street is in a residential area"),
    ("o2", "VG_100K/101.jpg", [(50, 20, 40, 30)], "someone walks their dog here every morning"),
    ("o3", "VG_100K/102.jpg", [(10, 10, 20, 20), (40, 40, 30, 30)], "the owner plays soccer"),
    ("o4", "VG_100K_2/103.jpg", [(20, 8, 50, 40)], "it is winter"),
    (
        "o5",
        "lsmdc_0001_American_Beauty/0001_American_Beauty_00.00.51.926-00.00.54.129@0.jpg",
        [(8, 8, 40, 40)],
        "the man is late for work",
    ),
    (
        "o6",
        "lsmdc_0001_American_Beauty/0001_American_Beauty_00.00.51.926-00.00.54.129@0.jpg",
        [(70, 10, 50, 44)],
        "the woman is upset",
    ),
    ("o7", "movieclips_Lethal_Weapon/xa3kgQ3LxFk@12.jpg", [(30, 6, 60, 40)], "they are police officers"),
    ("o8", "VG_100K_2/104.jpg", [(6, 30, 50, 50)], "it is winter"),  # the same text as o4: tied columns
    ("o9", "VG_100K_2/103.jpg", [(60, 40, 30, 28)], "the photo was taken at night"),
]
# Observation -> clue (the val corpus's ``inputs.clue``): a literal description of the region.
CLUES = {
    "o1": "a 20 mph sign by the road",
    "o2": "a leash hanging on a fence",
    "o3": "two soccer balls on the lawn",
    "o4": "snow on the roof",
    "o5": "a man running with a briefcase",
    "o6": "a woman with red eyes",
    "o7": "badges on their jackets",
    "o8": "icicles on the window",
    "o9": "street lamps are lit",
    "o10": "a plastic truck on the grass",
}
RETRIEVAL_CHUNKS = {"val": [["o1", "o3", "o4", "o8"], ["o2", "o5", "o7"]], "test": [["o6", "o9", "o1"], ["o2", "o3"]]}
# Localization: image -> its observations (gt boxes) and shared proposals.
LOCALIZATION = {
    "val": {
        "VG_100K/101.jpg": (["o1", "o2"], [(4, 4, 30, 24), (4, 4, 30, 12), (50, 20, 40, 30), (0, 40, 20, 20)]),
        "lsmdc_0001_American_Beauty/0001_American_Beauty_00.00.51.926-00.00.54.129@0.jpg": (
            ["o5", "o6"],
            [(8, 8, 40, 20), (70, 10, 50, 44), (0, 0, 128, 64)],
        ),
        "VG_100K_2/103.jpg": (["o4", "o9"], [(20, 8, 50, 40), (60, 40, 30, 28), (0, 0, 10, 10)]),
    },
    "test": {"VG_100K/102.jpg": (["o3"], [(10, 10, 20, 20), (0, 0, 80, 80)])},
}
# The third val localization image gets a third gt observation so its grid is 3x3.
LOCALIZATION_EXTRA = {"VG_100K_2/103.jpg": ("o10", [(2, 50, 20, 20)], "a child left a toy outside")}
COMPARISON_CANDIDATES = [
    "the owner plays soccer",
    "a team practices here on weekends",
    "the ball was just bought",
    "it is summer",
    "the children are at school",
    "the field is public",
]
# input observation -> [(candidate text index, annot1, annot2)]
COMPARISON = {
    "val": {
        "o3": [(0, 3, 3), (1, 2, 3), (2, 1, 1), (3, 2, 1), (4, 1, 2)],
        "o7": [(1, 3, 2), (3, 1, 1), (5, 2, 2), (4, 3, 3)],
        "o4": [(2, 2, 3), (3, 2, 1), (5, 2, 2)],
    },
    "test": {"o1": [(0, 1, 1), (1, 1, 1), (5, 1, 1)]},
}


def _test_id(*parts: str) -> str:
    return hashlib.md5("|".join(parts).encode()).hexdigest()


def _iou(a: tuple, b: tuple) -> float:
    width = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    height = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = width * height
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def _instance(image: str, boxes: list, inference: str, test_id: str, task: str) -> dict:
    url_template, (width, height) = IMAGES[image]
    return {
        "image": {"url": url_template.format(image), "width": width, "height": height},
        "region": [{"height": h, "width": w, "left": left, "top": top} for left, top, w, h in boxes],
        "inference": inference,
        "test_id": test_id,
        "extra_info": {"task": task},
    }


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _folder(out: Path, split: str, task: str) -> tuple[Path, str]:
    return (out / f"val_{task}", f"val_{task}") if split == "val" else (out / f"test_{task}_public", f"test_{task}")


def _draw_images(out: Path) -> None:
    rng = random.Random(0)
    for name, (_url, size) in IMAGES.items():
        image = random_shapes_image(rng, size, background=(40, 220), shapes=4, min_side=8)
        path = out / "images" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path, format="JPEG", quality=90)


def _corpus(observations: dict[str, tuple]) -> list[dict]:
    """The val corpus entries (the official ``sherlock_val_with_split_idxs`` fields) of every observation."""
    entries = []
    for number, (oid, (image, boxes, inference)) in enumerate(observations.items()):
        url_template, (width, height) = IMAGES[image]
        entries.append(
            {
                "inputs": {
                    "image": {"url": url_template.format(image), "width": width, "height": height},
                    "bboxes": [{"height": h, "width": w, "left": left, "top": top} for left, top, w, h in boxes],
                    "clue": CLUES[oid],
                    "obs_idx": 0,
                    "confidence": 2.0,
                },
                "targets": {"inference": inference},
                "instance_id": oid,
                "split_idx": number % 2,
            }
        )
    return entries


def make_sherlock(out: Path) -> None:
    """Write images/, val_{retrieval,localization,comparison}/, test_*_public/ and the val corpus under ``out``."""
    _draw_images(out)
    observations = {oid: (image, boxes, text) for oid, image, boxes, text in OBSERVATIONS}
    observations.update({oid: (image, boxes, text) for image, (oid, boxes, text) in LOCALIZATION_EXTRA.items()})
    _write(out / "sherlock_val_with_split_idxs_v1_1.json", _corpus(observations))
    for split in ("val", "test"):
        folder, stem = _folder(out, split, "retrieval")
        for chunk, ids in enumerate(RETRIEVAL_CHUNKS[split]):
            instances, key = [], {}
            for row in ids:
                for column in ids:
                    test_id = _test_id(split, "retrieval", str(chunk), row, column)
                    instances.append(
                        _instance(
                            observations[row][0], observations[row][1], observations[column][2], test_id, "retrieval"
                        )
                    )
                    key[test_id] = [row, column]
            _write(folder / f"{stem}_{chunk}_instances.json", instances)
            if split == "val":
                _write(folder / f"{stem}_{chunk}_answer_key.json", key)

        folder, stem = _folder(out, split, "localization")
        instances, key = [], {}
        for image, (ids, proposals) in LOCALIZATION[split].items():
            ids = ids + ([LOCALIZATION_EXTRA[image][0]] if split == "val" and image in LOCALIZATION_EXTRA else [])
            for box_index, box_owner in enumerate(ids):
                for oid in ids:
                    test_id = _test_id(split, "localization", "gt", image, str(box_index), oid)
                    instances.append(
                        _instance(image, observations[box_owner][1], observations[oid][2], test_id, "localization")
                    )
                    key[test_id] = {
                        "type": "gt",
                        "image": image,
                        "inst_id": oid,
                        "bbox_idx": box_index,
                        "correct": box_owner == oid,
                    }
            for oid in ids:
                for number, proposal in enumerate(proposals):
                    test_id = _test_id(split, "localization", "auto", image, str(number), oid)
                    instances.append(_instance(image, [proposal], observations[oid][2], test_id, "localization"))
                    key[test_id] = {
                        "type": "auto",
                        "image": image,
                        "inst_id": oid,
                        "IoU": max(_iou(proposal, box) for box in observations[oid][1]),
                    }
        _write(folder / f"{stem}_instances.json", instances)
        if split == "val":
            _write(folder / f"{stem}_answer_key.json", key)

        folder, stem = _folder(out, split, "comparison")
        instances, test_id_map, annotations = [], {}, []
        for oid, candidates in COMPARISON[split].items():
            image, boxes, _text = observations[oid]
            entries = []
            for text_index, annot1, annot2 in candidates:
                source = f"cand{text_index}"
                test_id = _test_id(split, "comparison", oid, source)
                instances.append(_instance(image, boxes, COMPARISON_CANDIDATES[text_index], test_id, "comparison"))
                test_id_map[test_id] = {"Input_iid": oid, "candidate": source}
                entries.append({"source_iid": source, "annot1": annot1, "annot2": annot2})
            annotations.append({"Input_iid": oid, "candidates": entries})
        _write(folder / f"{stem}_instances.json", instances)
        if split == "val":
            _write(folder / f"{stem}_answer_key.json", {"test_id_map": test_id_map, "annotations": annotations})
