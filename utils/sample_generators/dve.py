"""The embedded DVE sample (``abductive_tasks/sample_data/dve``) in the official layout: ``DVE_test.csv``
and ``flickr30k-images/<file>.jpg``; written by ``utils/make_sample_data.py``.

Six premise-hypothesis pairs over five images (two pairs share an image, as in the real
data). The texts of pairs 1-3 come from the paper (a released row, Figure 1, Figure 8);
the rest are written for the sample. Fields contain commas and double quotes, and some rows
are ``UpdateTypeImpossible=True`` with an empty ``Update``; every weakener of the last pair
is impossible, so that pair has no weakener goal in ``dve_gen``.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

from PIL import Image, ImageDraw

from abductive_tasks.dve.data import HEADER

from sample_generators.drawing import random_shapes_image

IMPOSSIBLE = "__impossible__"

# (image file, caption index, premise, hypothesis, [(update type, update or IMPOSSIBLE), ...])
PAIRS = [
    (
        "6556870225.jpg",
        3,
        "A young male is running while playing tennis against another person.",
        "A man moves while playing a game",
        [
            ("weakener", "The young male is a child."),
            ("strengthener", "The player is in his thirties."),
            ("weakener", 'The "man" is actually a 12-year-old boy, and he plays on the school team.'),
            ("strengthener", "He is a grown man, sweating, chasing the ball."),
        ],
    ),
    (
        "1015118661.jpg",
        0,
        "A brown dog runs through a grassy field.",
        "A dog chases a rabbit.",
        [
            ("strengthener", "The dog is a hunting dog."),
            ("weakener", "The ball bounces once."),
            ("strengthener", "A rabbit darts into the bushes, just ahead of the dog."),
            ("weakener", "There is a ball bouncing away from the dog."),
            ("strengthener", IMPOSSIBLE),
        ],
    ),
    (
        "2398605966.jpg",
        1,
        "A young woman stands at the counter of a small kitchen.",
        "The young woman makes a meal.",
        [
            ("strengthener", "The woman is holding a chef's knife."),
            ("weakener", "The woman is washing a dish."),
            ("strengthener", "She is on break and gets a meal a day."),
            ("weakener", "The young woman is merely organizing the kitchen supplies."),
        ],
    ),
    (
        "3637013.jpg",
        0,
        "A crew of workers in orange vests stands on a street corner.",
        "The crew is waiting for supplies.",
        [
            ("strengthener", "A delivery truck, loaded with pipes, is turning onto the street."),
            ("weakener", "The crew is on their lunch break, eating sandwiches."),
            ("weakener", IMPOSSIBLE),
        ],
    ),
    (
        "3637013.jpg",
        2,
        "Road workers lean on their shovels next to an open trench.",
        "The workers are tired.",
        [
            ("strengthener", "They have been digging since dawn, in the heat."),
            ("weakener", "They just arrived and are about to start work."),
        ],
    ),
    (
        "4701338123.jpg",
        4,
        'A man in a suit sits at a desk with a computer and a "Manager" nameplate.',
        "A man is at work.",
        [
            ("strengthener", "It is Monday morning, and his badge hangs from his neck."),
            ("weakener", IMPOSSIBLE),
            ("weakener", IMPOSSIBLE),
        ],
    ),
]
IMPOSSIBLE_REASON = "The image already settles the hypothesis, so no update can {verb} it."
# Upper-left pixel grey level per image (drives the dumb-pixel baseline of dve_gen).
CORNERS = {"6556870225.jpg": 240, "1015118661.jpg": 20, "2398605966.jpg": 130, "3637013.jpg": 200, "4701338123.jpg": 70}


def _photo(rng: random.Random, corner: int) -> Image.Image:
    """A small stand-in photograph: random background and shapes, a 6x6 corner patch of grey ``corner``."""
    size = (rng.randrange(64, 112), rng.randrange(48, 96))
    image = random_shapes_image(rng, size, background=(60, 200), shapes=4, min_side=10)
    ImageDraw.Draw(image).rectangle((0, 0, 5, 5), fill=(corner, corner, corner))
    return image


def make_dve(out: Path) -> None:
    """DVE: ``DVE_test.csv`` (the official header) and ``flickr30k-images/<file>.jpg``."""
    rng = random.Random(5)
    images = out / "flickr30k-images"
    images.mkdir(parents=True)
    for name, corner in CORNERS.items():
        _photo(rng, corner).save(images / name, quality=95, subsampling=0)
    rows = []
    for pair_index, (image, caption, premise, hypothesis, updates) in enumerate(PAIRS):
        for update_index, (update_type, update) in enumerate(updates):
            impossible = update == IMPOSSIBLE
            rows.append(
                [
                    "SNLI",
                    10221 + 17 * pair_index + update_index,
                    111 + 3 * update_index,
                    premise,
                    hypothesis,
                    f"{image}#{caption}r1n",
                    "" if impossible else update,
                    update_type,
                    str(impossible),
                    IMPOSSIBLE_REASON.format(verb=update_type.removesuffix("ener") + "en") if impossible else "{}",
                ]
            )
    with (out / "DVE_test.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")  # as pandas writes it
        writer.writerow(HEADER)
        writer.writerows(rows)
