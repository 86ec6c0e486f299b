"""Synthetic data in the official layouts, at any size, for the benchmark scripts (``bench_overhead.py``,
``bench_mucr_load.py``): NL-Eye triplets, MuCR parquet pairs with distinct JPEG cells, DVE rows, Sherlock files."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from abductive_tasks.dve.data import HEADER

WORDS = (
    "the a person man woman dog cat car street kitchen waiter rain party beach store office child old young "
    "is are was will has runs holds opens sits walks"
).split()


# ---------------------------------------------------------------- synthetic data (official layouts)


def _photo(rng: np.random.Generator, size: tuple[int, int]) -> Image.Image:
    """A photo-like RGB image: smooth colour gradients plus sensor-like noise (compresses like a photo)."""
    width, height = size
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    channels = []
    for _ in range(3):
        a, b, c = rng.uniform(-1, 1, 3)
        wave = 128 + 60 * np.sin(x / width * 6 * a + y / height * 5 * b + c * 3)
        channels.append(wave + rng.normal(0, 6, (height, width)))
    return Image.fromarray(np.clip(np.stack(channels, -1), 0, 255).astype(np.uint8), "RGB")


def _encoded(rng: np.random.Generator, size: tuple[int, int], kind: str, variants: int = 6) -> list[bytes]:
    """A few distinct encoded images; files reuse them (every file is still a separate path, decoded separately)."""
    out = []
    for _ in range(variants):
        buffer = io.BytesIO()
        _photo(rng, size).save(buffer, format=kind, **({"quality": 90} if kind == "JPEG" else {}))
        out.append(buffer.getvalue())
    return out


def _sentence(rng: np.random.Generator, words: int = 10) -> str:
    return " ".join(rng.choice(WORDS, words)).capitalize() + "."


def _pool(rng: np.random.Generator, size: tuple[int, int], kind: str, folder: Path, variants: int = 6) -> list[Path]:
    """A few encoded images written once under ``folder``; the data's image files are hard links to them (every
    file a separate path, checked and decoded separately, without the disk of thousands of copies)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, data in enumerate(_encoded(rng, size, kind, variants)):
        path = folder / f"{number}.{kind.lower()}"
        path.write_bytes(data)
        paths.append(path)
    return paths


def _place(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    os.link(source, target)


def make_nleye(root: Path, rng: np.random.Generator, items: int = 350) -> None:
    """``nleye/test_set.csv`` and ``images/<id>/{premise,hypothesis1,hypothesis2}.png`` (1024x1024)."""
    folder = root / "nleye"
    folder.mkdir(parents=True)
    pngs = _pool(rng, (1024, 1024), "PNG", root / "_pool" / "nleye")
    categories = ("physical", "functional", "logical", "emotional", "cultural", "social")
    with (folder / "test_set.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "sample_id",
                "reasoning_category",
                "domain",
                "time_direction",
                "time_duration",
                "gold_label",
                "premise_description",
                "hypothesis1_description",
                "hypothesis2_description",
                "gold_explanation",
            ]
        )
        for item in range(items):
            direction = ("forward", "backward", "parallel")[item % 3]
            writer.writerow(
                [
                    item + 1,
                    categories[item % 6],
                    "home",
                    direction,
                    "" if direction == "parallel" else "short-term",
                    1 + item % 2,
                    *(_sentence(rng) for _ in range(4)),
                ]
            )
            for number, name in enumerate(("premise.png", "hypothesis1.png", "hypothesis2.png")):
                _place(pngs[(item + number) % len(pngs)], folder / "images" / str(item + 1) / name)


def _distinct_jpegs(rng: np.random.Generator, count: int, size: tuple[int, int] = (512, 512)) -> list[bytes]:
    """``count`` JPEGs (quality 90) with pairwise different bytes, as a real dataset's cells are: a few photo-like
    bases, each copy stamped with its own number in a corner block (content-addressed files stay distinct)."""
    bases = [np.asarray(_photo(rng, size)) for _ in range(6)]
    out = []
    for number in range(count):
        pixels = bases[number % len(bases)].copy()
        bits = np.unpackbits(np.array([number], dtype=">u4").view(np.uint8))
        pixels[:32, :32] = np.repeat(np.repeat(bits.reshape(4, 8) * 255, 8, 0), 4, 1)[..., None]
        buffer = io.BytesIO()
        Image.fromarray(pixels, "RGB").save(buffer, format="JPEG", quality=90)
        out.append(buffer.getvalue())
    return out


def make_mucr(root: Path, rng: np.random.Generator, pairs: int = 400) -> None:
    """``mucr/data/test-00000-of-00001.parquet`` (v1 schema, embedded 512x512 JPEG cells, every cell distinct),
    causal groups of four."""
    jpegs = _distinct_jpegs(rng, 2 * pairs)
    ids = list(range(pairs))
    links = [str([other for other in range(pair - pair % 4, pair - pair % 4 + 4) if other != pair]) for pair in ids]
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    cue_words = [[str(word) for word in rng.choice(WORDS, 5, replace=False)] for _ in ids]  # 3 distinct false cues
    columns = {
        "id": pa.array(ids, pa.int64()),
        "caption_0": pa.array([_sentence(rng) for _ in ids]),
        "caption_1": pa.array([_sentence(rng) for _ in ids]),
        "link_id": pa.array(links),
        "cue": pa.array([" ".join(words[:2]) for words in cue_words]),
        "false_cue": pa.array([list(words[2:]) for words in cue_words], pa.list_(pa.string())),
        "style": pa.array([("photograph", "comic")[pair % 2] for pair in ids]),
        "label": pa.array([("human", "animal", "character")[pair // 4 % 3] for pair in ids]),
        "causal_reason": pa.array([[_sentence(rng, 20) for _ in range(3)] for _ in ids], pa.list_(pa.string())),
        "image_0": pa.array([{"bytes": jpegs[2 * pair], "path": f"{pair}_0.jpg"} for pair in ids], image),
        "image_1": pa.array([{"bytes": jpegs[2 * pair + 1], "path": f"{pair}_1.jpg"} for pair in ids], image),
    }
    path = root / "mucr" / "data" / "test-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.table(columns), path)


def make_dve(root: Path, rng: np.random.Generator, rows: int = 1800) -> None:
    """``dve/DVE_test.csv`` and ``flickr30k-images/<id>.jpg`` (500x375 JPEGs); three updates per premise image."""
    folder = root / "dve"
    images = rows // 3
    jpegs = _pool(rng, (500, 375), "JPEG", root / "_pool" / "dve")
    (folder / "flickr30k-images").mkdir(parents=True)
    for number in range(images):
        _place(jpegs[number % len(jpegs)], folder / "flickr30k-images" / f"{1000000 + number}.jpg")
    with (folder / "DVE_test.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        for row in range(rows):
            image = 1000000 + row % images
            writer.writerow(
                [
                    "SNLI",
                    10000 + row,
                    100 + row % 50,
                    f"Premise of image {image}.",
                    f"Hypothesis of image {image}.",
                    f"{image}.jpg#{row % 5}r1n",
                    _sentence(rng) + f" ({row})",
                    ("weakener", "strengthener")[row % 2],
                    "False",
                    "{}",
                ]
            )


def make_sherlock(root: Path, rng: np.random.Generator, observations: int = 485, candidates: int = 10) -> None:
    """``sherlock/val_comparison/val_comparison_{instances,answer_key}.json`` and ``images/VG_100K/<n>.jpg``
    (800x600 JPEGs)."""
    folder = root / "sherlock"
    jpegs = _encoded(rng, (800, 600), "JPEG")
    (folder / "images" / "VG_100K").mkdir(parents=True)
    instances, test_id_map, annotations = [], {}, []
    for observation in range(observations):
        (folder / "images" / "VG_100K" / f"{observation}.jpg").write_bytes(jpegs[observation % len(jpegs)])
        url = f"https://cs.stanford.edu/people/rak248/VG_100K/{observation}.jpg"
        left, top = int(rng.integers(0, 400)), int(rng.integers(0, 300))
        region = [{"left": left, "top": top, "width": int(rng.integers(20, 380)), "height": int(rng.integers(20, 280))}]
        entries = []
        for candidate in range(candidates):
            test_id = f"{rng.integers(1 << 62):016x}{rng.integers(1 << 62):016x}"
            instances.append(
                {
                    "image": {"url": url, "width": 800, "height": 600},
                    "region": region,
                    "inference": _sentence(rng, 8),
                    "test_id": test_id,
                    "extra_info": {"task": "comparison"},
                }
            )
            test_id_map[test_id] = {"Input_iid": f"o{observation}", "candidate": f"cand{candidate}"}
            entries.append(
                {"source_iid": f"cand{candidate}", "annot1": int(rng.integers(1, 4)), "annot2": int(rng.integers(1, 4))}
            )
        annotations.append({"Input_iid": f"o{observation}", "candidates": entries})
    out = folder / "val_comparison"
    out.mkdir()
    (out / "val_comparison_instances.json").write_text(json.dumps(instances))
    (out / "val_comparison_answer_key.json").write_text(
        json.dumps({"test_id_map": test_id_map, "annotations": annotations})
    )


def _localization_instance(head: str, box: tuple, text: str, test_id: str) -> str:
    region = f'{box[0]}, "top": {box[1]}, "width": {box[2]}, "height": {box[3]}}}]'
    tail = f'"test_id": "{test_id}", "extra_info": {{"task": "localization"}}}}'
    return f'{head}{region}, "inference": "{text}", {tail}'


def make_sherlock_localization(
    root: Path, rng: np.random.Generator, images: int = 6600, inferences: int = 3, proposals: int = 116
) -> int:
    """``sherlock/val_localization/val_localization_{instances,answer_key}.json`` at the paper's size: per image
    (320x240 JPEGs under ``images/VG_LOC/``) ``inferences`` gt boxes x ``inferences`` (the gt grid) and the same
    ``proposals`` detector boxes for each inference, 6,600 x (3 x 3 + 3 x 116) = 2,356,200 instances; returns it."""
    folder = root / "sherlock"
    jpegs = _encoded(rng, (320, 240), "JPEG")
    (folder / "images" / "VG_LOC").mkdir(parents=True, exist_ok=True)
    instances, key = [], []
    ids = iter(f"{a:016x}{b:016x}" for a, b in rng.integers(0, 1 << 62, size=(images * 400, 2)).tolist())

    def boxes(count: int) -> list[tuple[int, int, int, int]]:
        corner = rng.integers(0, 160, size=(count, 2))
        size = rng.integers(8, 80, size=(count, 2))
        return [tuple(map(int, (*c, *s))) for c, s in zip(corner, size, strict=True)]

    for image in range(images):
        (folder / "images" / "VG_LOC" / f"{image}.jpg").write_bytes(jpegs[image % len(jpegs)])
        url = f"https://cs.stanford.edu/people/rak248/VG_LOC/{image}.jpg"
        head = f'{{"image": {{"url": "{url}", "width": 320, "height": 240}}, "region": [{{"left": '
        texts = [f"{_sentence(rng, 9)} ({image}.{k})" for k in range(inferences)]
        gt, detected = boxes(inferences), boxes(proposals)
        ious = rng.random((inferences, proposals)).round(4).tolist()

        for box_index, box in enumerate(gt):
            for k, text in enumerate(texts):
                test_id = next(ids)
                instances.append(_localization_instance(head, box, text, test_id))
                answer = f'"type": "gt", "image": "{image}", "inst_id": "i{image}.{k}", "bbox_idx": {box_index}'
                key.append(f'"{test_id}": {{{answer}, "correct": {"true" if box_index == k else "false"}}}')
        for k, text in enumerate(texts):
            for proposal, box in enumerate(detected):
                test_id = next(ids)
                instances.append(_localization_instance(head, box, text, test_id))
                iou = ious[k][proposal]
                key.append(
                    f'"{test_id}": {{"type": "auto", "image": "{image}", "inst_id": "i{image}.{k}", "IoU": {iou}}}'
                )
    out = folder / "val_localization"
    out.mkdir(parents=True, exist_ok=True)
    (out / "val_localization_instances.json").write_text("[" + ",\n".join(instances) + "]")
    (out / "val_localization_answer_key.json").write_text("{" + ",\n".join(key) + "}")
    return len(instances)
