"""Pillow drawing shared by the sample-data generators (deterministic for a seeded ``rng``)."""

from __future__ import annotations

import random

from PIL import Image, ImageDraw


def random_shapes_image(
    rng: random.Random, size: tuple[int, int], background: tuple[int, int], shapes: int, min_side: int
) -> Image.Image:
    """A background of random grey-ish colour (channels in ``background``) with ``shapes`` random
    ellipses or rectangles of at least ``min_side`` pixels, in the upper-left quarter's reach."""
    image = Image.new("RGB", size, tuple(rng.randrange(*background) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(shapes):
        x0, y0 = rng.randrange(size[0] // 2), rng.randrange(size[1] // 2)
        box = (x0, y0, x0 + rng.randrange(min_side, size[0] // 2), y0 + rng.randrange(min_side, size[1] // 2))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=tuple(rng.randrange(256) for _ in range(3)))
    return image
