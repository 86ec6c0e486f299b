"""MuCR sample: 12 cause-effect pairs in three causal groups of four (the paper's Table 4 groups).

``make_mucr`` writes the v1 record schema as the hub ships it: one parquet file with images
embedded as Hugging Face image cells (``{"bytes", "path"}``). ``make_mucr_v2`` writes the same
pairs in the v2 schema with the images as PNG files next to the parquet (the tests use it).

Designed for hand-checkable baselines: every candidate set is the item's own group (v1 through
``link_id`` or the seeded rule, v2 through the seeded rule's same-label tier), and the effect
and cause images carry distinct upper-left pixels, so ``dumb_pixel`` answers C2E and E2C right
for exactly the one item per group whose effect (cause) is the brightest: 3 of 12.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw

PARQUET = Path("data") / "test-00000-of-00001.parquet"

# (cause, effect, style) per pair; groups of four share the causality (Table 4).
GROUPS = [
    (
        "human",
        "speeding",
        ("car", "road", "police officer"),
        [
            ("The man drove his car at an excessive speed.", "The man got a speeding ticket.", "photograph"),
            (
                "The woman drove her car at an excessive speed.",
                "The woman was pulled over by the policeman.",
                "photograph",
            ),
            (
                "The old man drove his car at an excessive speed.",
                "The old man was pulled over by the policeman.",
                "comic",
            ),
            ("The old woman drove her car at an excessive speed.", "The old woman got a speeding ticket.", "comic"),
        ],
    ),
    (
        "animal",
        "attack",
        ("water", "fin", "teeth"),
        [
            ("The shark is attacking the fish.", "The fish got wounded on its back.", "photograph"),
            ("The shark is attacking the seal.", "The seal got wounded on its back.", "photograph"),
            ("The shark is attacking the manta ray.", "The manta ray got wounded and is bleeding.", "comic"),
            ("The shark is attacking the penguin.", "The penguin got wounded and is bleeding.", "photograph"),
        ],
    ),
    (
        "character",
        "hard work",
        ("money", "desk", "smile"),
        [
            ("The rabbit worked hard.", "The rabbit earned much money.", "comic"),
            ("The monkey worked hard.", "The monkey earned much money.", "comic"),
            ("The bear worked hard.", "The bear earned much money.", "comic"),
            ("The fox worked hard.", "The fox earned much money.", "photograph"),
        ],
    ),
]
# v1 link_id per pair id: groups 0-3 and 4-7 fully linked; group 8-11 exercises the fallback:
# 8 names a missing pair, 10 has none, 11 only two, 9 resolves.
LINK_IDS = [
    "[1, 2, 3]",
    "[0, 2, 3]",
    "[0, 1, 3]",
    "[0, 1, 2]",
    "[5, 6, 7]",
    "[4, 6, 7]",
    "[4, 5, 7]",
    "[4, 5, 6]",
    "[9, 10, 42]",
    "[8, 10, 11]",
    "",
    "[8, 9]",
]
# Upper-left grey level of (cause, effect) per pair; distinct within each group. The brightest
# effect is pair 1, 6 and 8; the brightest cause pair 0, 7 and 10.
CORNERS = [
    (250, 20),
    (60, 240),
    (90, 40),
    (120, 80),
    (30, 70),
    (70, 110),
    (110, 230),
    (240, 150),
    (80, 245),
    (140, 35),
    (235, 120),
    (20, 200),
]
CAUSAL_LINKS = (
    "The causal link is that",
    "The connection between the two images is that",
    "The causal relationship is that",
)


def _picture(rng: random.Random, corner: int, tint: tuple[int, int, int]) -> bytes:
    """A small PNG: a tinted background, a stick figure and a ground line, and a 4x4 corner patch."""
    width, height = rng.randrange(56, 88), rng.randrange(44, 64)
    image = Image.new("RGB", (width, height), tint)
    draw = ImageDraw.Draw(image)
    x, y = rng.randrange(12, width - 12), rng.randrange(10, height // 2)
    colour = tuple(rng.randrange(256) for _ in range(3))
    draw.ellipse((x - 5, y - 5, x + 5, y + 5), fill=colour)
    draw.line((x, y + 5, x, y + 18), fill=colour, width=2)
    draw.line((0, height - 6, width, height - 6), fill=tuple(rng.randrange(256) for _ in range(3)), width=3)
    draw.rectangle((0, 0, 3, 3), fill=(corner, corner, corner))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _pairs() -> list[dict]:
    """The twelve pairs with their annotations and encoded images, in id order."""
    rng = random.Random(0)
    pairs = []
    for label, cue, false_cues, members in GROUPS:
        tint = tuple(rng.randrange(90, 200) for _ in range(3))
        for cause, effect, style in members:
            pair_id = len(pairs)
            subject, happened = cause.rstrip("."), effect[0].lower() + effect[1:].rstrip(".")
            reasons = [
                f"In the first image, {subject[0].lower() + subject[1:]}. In the second image, {happened}. "
                f"{link} {cue} explains why {happened}."
                for link in CAUSAL_LINKS
            ]
            corner_cause, corner_effect = CORNERS[pair_id]
            pairs.append(
                {
                    "id": pair_id,
                    "cause": cause,
                    "effect": effect,
                    "cue": cue,
                    "false_cue": list(false_cues),
                    "style": style,
                    "label": label,
                    "causal_reason": reasons,
                    "image_0": _picture(rng, corner_cause, tint),
                    "image_1": _picture(rng, corner_effect, tint),
                }
            )
    return pairs


_IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])


def _write(table: pa.Table, out: Path, features: dict) -> None:
    path = out / PARQUET
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {b"huggingface": json.dumps({"info": {"features": features}}).encode()}
    pq.write_table(table.replace_schema_metadata(metadata), path)


def _string_features(names: list[str]) -> dict:
    return {name: {"dtype": "string", "_type": "Value"} for name in names}


def make_mucr(out: Path) -> None:
    """v1 schema: ``data/test-00000-of-00001.parquet`` with embedded image cells."""
    pairs = _pairs()
    columns = {
        "id": pa.array([p["id"] for p in pairs], pa.int64()),
        "caption_0": pa.array([p["cause"] for p in pairs]),
        "caption_1": pa.array([p["effect"] for p in pairs]),
        "link_id": pa.array(LINK_IDS),
        "cue": pa.array([p["cue"] for p in pairs]),
        "false_cue": pa.array([p["false_cue"] for p in pairs], pa.list_(pa.string())),
        "style": pa.array([p["style"] for p in pairs]),
        "label": pa.array([p["label"] for p in pairs]),
        "causal_reason": pa.array([p["causal_reason"] for p in pairs], pa.list_(pa.string())),
        "image_0": pa.array([{"bytes": p["image_0"], "path": f"{p['id']}_0.png"} for p in pairs], _IMAGE),
        "image_1": pa.array([{"bytes": p["image_1"], "path": f"{p['id']}_1.png"} for p in pairs], _IMAGE),
    }
    features = {
        "id": {"dtype": "int64", "_type": "Value"},
        **_string_features(["caption_0", "caption_1", "link_id", "cue"]),
        "false_cue": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
        **_string_features(["style", "label"]),
        "causal_reason": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
        "image_0": {"_type": "Image"},
        "image_1": {"_type": "Image"},
    }
    _write(pa.table(columns), out, features)


def make_mucr_v2(out: Path) -> None:
    """v2 schema, images as files: ``data/test-00000-of-00001.parquet`` and ``images/<id>_{0,1}.png``.

    ``causal_reason`` is one string (the first v1 annotation); the false cues are a JSON list string.
    """
    pairs = _pairs()
    (out / "images").mkdir(parents=True, exist_ok=True)
    for pair in pairs:
        for side in (0, 1):
            (out / "images" / f"{pair['id']}_{side}.png").write_bytes(pair[f"image_{side}"])
    columns = {
        "id": pa.array([str(p["id"]) for p in pairs]),
        "style": pa.array([p["style"] for p in pairs]),
        "cause": pa.array([p["cause"] for p in pairs]),
        "effect": pa.array([p["effect"] for p in pairs]),
        "cue": pa.array([p["cue"] for p in pairs]),
        "false_cue": pa.array([json.dumps(p["false_cue"]) for p in pairs]),
        "label": pa.array([p["label"] for p in pairs]),
        "causal_reason": pa.array([p["causal_reason"][0] for p in pairs]),
        "image_0": pa.array([f"images/{p['id']}_0.png" for p in pairs]),
        "image_1": pa.array([f"images/{p['id']}_1.png" for p in pairs]),
    }
    _write(pa.table(columns), out, _string_features(list(columns)))
