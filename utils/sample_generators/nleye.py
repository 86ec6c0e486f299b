"""NL-Eye sample: 12 items covering the six reasoning categories and the three directions.

``make_nleye`` writes the official layout (``test_set.csv`` and
``images/<sample_id>/{premise,hypothesis1,hypothesis2}.png``) with small Pillow drawings; the
output is byte-for-byte reproducible (``python utils/make_sample_data.py nleye``).
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

from PIL import Image, ImageDraw

# (category, domain, direction, duration, gold, premise, plausible, implausible, explanation).
# The first six are the examples of NL-Eye Table 4, one per reasoning category.
ITEMS = [
    (
        "physical",
        "home",
        "forward",
        "short-term",
        "A child sits on the floor, holding a wrapped present in the shape of a rectangular box.",
        "A child sits on the floor, holding an unwrapped rectangular present.",
        "A child sits on the floor, holding an unwrapped ball-shaped present.",
        "Unwrapping a present does not change its shape.",
    ),
    (
        "logical",
        "home",
        "parallel",
        "",
        "Clothesline with large shirts and small children's shirts.",
        "A refrigerator full of homemade food, yogurts, and children's food.",
        "An empty refrigerator with only a few bottles of beer and ketchup.",
        "A household with children usually keeps food for them.",
    ),
    (
        "emotional",
        "family",
        "backward",
        "short-term",
        "A baby stroller with a pacifier lying on the floor next to it.",
        "A crying baby sits in a stroller.",
        "A happy baby sits in a stroller.",
        "A baby who lost the pacifier tends to cry.",
    ),
    (
        "functional",
        "kitchen",
        "backward",
        "short-term",
        "A large thin circle of dough on a kitchen surface.",
        "A lump of dough and a rolling pin on a kitchen surface.",
        "A lump of dough and a pasta maker on a kitchen surface.",
        "A rolling pin flattens dough into a thin circle.",
    ),
    (
        "cultural",
        "leisure",
        "parallel",
        "",
        "A digital clock shows 16:00 pm and an image of Queen Elizabeth is on the wall.",
        "British old ladies sit and drink hot tea cups.",
        "British old ladies play contract bridge game.",
        "Four o'clock is tea time in Britain.",
    ),
    (
        "social",
        "family",
        "backward",
        "short-term",
        "A person with a kiss mark on the cheek sitting at a holiday table with family.",
        "Grandmother arrived as a guest.",
        "Grandfather arrived as a guest.",
        "A lipstick kiss on the cheek is typical of a grandmother's greeting.",
    ),
    (
        "physical",
        "street",
        "forward",
        "long-term",
        "A snowman stands in a sunny garden in early spring.",
        "A puddle with a carrot and a scarf on the grass.",
        "A taller snowman with a new hat in the garden.",
        "Snow melts in the spring sun.",
    ),
    (
        "logical",
        "office",
        "forward",
        "short-term",
        "A man runs to the bus stop as the bus drives away.",
        "The man waits alone at the bus stop.",
        "The man sits on the bus reading a paper.",
        "Someone who missed the bus has to wait for the next one.",
    ),
    (
        "emotional",
        "school",
        "forward",
        "short-term",
        "A student opens an envelope with an acceptance letter.",
        "The student jumps and cheers with the letter.",
        "The student cries alone on a bench.",
        "Good news makes people happy.",
    ),
    (
        "functional",
        "garden",
        "backward",
        "long-term",
        "A tall tomato plant full of red tomatoes.",
        "A gardener plants a small seedling and waters it.",
        "A gardener paints a fence next to bare soil.",
        "A plant grows from a seedling that was planted and watered.",
    ),
    (
        "cultural",
        "holiday",
        "forward",
        "long-term",
        "A family decorates a pine tree with lights in December.",
        "Wrapped presents lie under the decorated tree.",
        "Painted eggs are hidden in the garden.",
        "Christmas trees go with presents, Easter with eggs.",
    ),
    (
        "social",
        "work",
        "forward",
        "short-term",
        "Two colleagues shake hands after signing a contract.",
        "They toast with champagne in the office.",
        "They shout at each other across the table.",
        "A signed deal is usually celebrated.",
    ),
]
GOLD = [1, 2, 1, 2, 1, 2, 2, 1, 2, 1, 1, 2]  # balanced between hypothesis 1 and 2
# Upper-left pixel brightness of (gold, distractor) hypothesis: decides the dumb-pixel baseline.
# Gold is brighter in items 0-6 and darker in 7-11, so dumb_pixel scores 7/12 on the triplet.
CORNERS = [
    (230, 40),
    (220, 30),
    (210, 60),
    (200, 70),
    (190, 50),
    (240, 20),
    (180, 90),
    (20, 240),
    (10, 250),
    (15, 245),
    (25, 235),
    (35, 225),
]


def _scene(rng: random.Random, size: tuple[int, int], corner: int) -> Image.Image:
    """A small picture: random background, a few shapes, and a 4x4 corner patch of grey ``corner``."""
    # Like drawing.random_shapes_image but drawing each fill before the shape choice; kept
    # as is so the committed NL-Eye sample stays byte for byte what this script writes.
    image = Image.new("RGB", size, tuple(rng.randrange(60, 200) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(3):
        x0, y0 = rng.randrange(size[0] // 2), rng.randrange(size[1] // 2)
        box = (x0, y0, x0 + rng.randrange(8, size[0] // 2), y0 + rng.randrange(8, size[1] // 2))
        fill = tuple(rng.randrange(256) for _ in range(3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=fill)
    draw.rectangle((0, 0, 3, 3), fill=(corner, corner, corner))
    return image


def make_nleye(out: Path) -> None:
    """NL-Eye: ``test_set.csv`` and ``images/<sample_id>/{premise,hypothesis1,hypothesis2}.png``."""
    rng = random.Random(0)
    rows = []
    for index, (item, gold, corners) in enumerate(zip(ITEMS, GOLD, CORNERS, strict=True), start=1):
        category, domain, direction, duration, premise, plausible, implausible, explanation = item
        hypotheses = (plausible, implausible) if gold == 1 else (implausible, plausible)
        if gold == 2:
            corners = corners[::-1]
        folder = out / "images" / str(index)
        folder.mkdir(parents=True)
        sizes = [(rng.randrange(48, 96), rng.randrange(40, 80)) for _ in range(3)]
        _scene(rng, sizes[0], rng.randrange(256)).save(folder / "premise.png")
        for number, (size, corner) in enumerate(zip(sizes[1:], corners, strict=True), start=1):
            _scene(rng, size, corner).save(folder / f"hypothesis{number}.png")
        rows.append(
            {
                "sample_id": index,
                "reasoning_category": category.capitalize(),
                "domain": domain,
                "time_direction": direction,
                "time_duration": duration,
                "gold_label": gold,
                "premise_description": premise,
                "hypothesis1_description": hypotheses[0],
                "hypothesis2_description": hypotheses[1],
                "gold_explanation": explanation,
            }
        )
    with (out / "test_set.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
