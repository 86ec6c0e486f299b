"""Image decoding and composition shared by every benchmark.

Decoded images and composites live in one process-wide LRU cache bounded by decoded size
(``ABDUCTIVE_IMAGE_CACHE_MB``, default 4096), so an image used by several documents and tasks
(the NL-Eye premise appears in four) is decoded once per run. The full NL-Eye set decodes
to about 3.3 GB; lower the budget on small machines at the price of re-decoding.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from cachetools import LRUCache, cached
from PIL import Image, ImageDraw, ImageFont, ImageStat

from abductive_tasks.data import cache_root

_CACHE_BYTES = int(os.environ.get("ABDUCTIVE_IMAGE_CACHE_MB", "4096")) * 2**20
_GAP = 8  # white pixels between composite panels


def _decoded_bytes(image: Image.Image) -> int:
    return image.width * image.height * len(image.getbands())


_cache: LRUCache = LRUCache(maxsize=_CACHE_BYTES, getsizeof=_decoded_bytes)
_lock = threading.RLock()


@cached(_cache, key=lambda path: ("file", path), lock=_lock)
def load_image(path: str) -> Image.Image:
    """Decode ``path`` to RGB once per run (callers must not modify the returned image)."""
    with Image.open(path) as image:
        return image.convert("RGB")


@cached(_cache, key=lambda paths: ("row", tuple(paths)), lock=_lock)
def compose_row(paths: Sequence[str]) -> Image.Image:
    """Place the images side by side, left to right, scaled to a common height.

    The common height is the tallest image's; panels are separated by a white gap.
    """
    images = [load_image(path) for path in paths]
    height = max(image.height for image in images)
    scaled = [image if image.height == height else image.resize((round(image.width * height / image.height), height)) for image in images]
    width = sum(image.width for image in scaled) + _GAP * (len(scaled) - 1)
    canvas = Image.new("RGB", (width, height), "white")
    left = 0
    for image in scaled:
        canvas.paste(image, (left, 0))
        left += image.width + _GAP
    return canvas


@cached(_cache, key=lambda paths, labels: ("labelled", tuple(paths), tuple(labels)), lock=_lock)
def compose_labelled(paths: Sequence[str], labels: Sequence[str]) -> Image.Image:
    """``compose_row`` with a white caption strip above each panel naming it (``labels[i]`` over ``paths[i]``).

    The caption is black text centred over its panel, sized to a tenth of the row height (at least 12 px).
    """
    if len(paths) != len(labels):
        raise ValueError(f"compose_labelled: {len(paths)} images but {len(labels)} labels")
    row = compose_row(tuple(paths))
    widths = [round(image.width * row.height / image.height) for image in (load_image(path) for path in paths)]
    font_size = max(12, row.height // 10)
    font = ImageFont.load_default(size=font_size)
    strip = font_size + font_size // 2
    canvas = Image.new("RGB", (row.width, row.height + strip), "white")
    canvas.paste(row, (0, strip))
    draw = ImageDraw.Draw(canvas)
    left = 0
    for width, label in zip(widths, labels, strict=True):
        draw.text((left + width / 2, strip / 2), label, fill="black", font=font, anchor="mm")
        left += width + _GAP
    return canvas


def materialise_image(data: bytes, directory: Path | None = None) -> str:
    """Write encoded image bytes (e.g. a parquet image cell) to a content-addressed file; return its path.

    Files live under ``directory`` (default ``<cache_root()>/images``, see :func:`abductive_tasks.data.cache_root`) and are
    named by the SHA-256 of the bytes, so rewriting is idempotent and concurrent writers cannot
    corrupt each other (atomic rename).
    """
    folder = directory or cache_root() / "images"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / hashlib.sha256(data).hexdigest()
    if not target.is_file():
        with tempfile.NamedTemporaryFile(dir=folder, delete=False) as handle:
            handle.write(data)
        os.replace(handle.name, target)
    return str(target)


# Sherlock region highlight (paper §4/§5, Fig. 5b), copied from the official leaderboard code
# (allenai/sherlock clip_inference_iterator.hide_region): translucent purple fill, green 3-pixel outline.
REGION_FILL = "#ff05cd3c"
REGION_OUTLINE = "#05ff37ff"
REGION_OUTLINE_WIDTH = 3


@cached(_cache, key=lambda path, boxes: ("regions", path, tuple(map(tuple, boxes))), lock=_lock)
def draw_regions(path: str, boxes: Sequence[Sequence[int]]) -> Image.Image:
    """The image at ``path`` with each ``(left, top, width, height)`` box highlighted, as RGB (cached; do not modify)."""
    overlay = Image.new("RGBA", load_image(path).size, "#00000000")
    draw = ImageDraw.Draw(overlay, "RGBA")
    for left, top, width, height in boxes:
        draw.rectangle([(left, top), (left + width, top + height)], fill=REGION_FILL, outline=REGION_OUTLINE, width=REGION_OUTLINE_WIDTH)
    return Image.alpha_composite(load_image(path).convert("RGBA"), overlay).convert("RGB")


def mean_luminance(image: Image.Image) -> float:
    """Mean luminance (0-255) of an image, PIL's "L" weights (the Sherlock dumb-pixel score)."""
    return ImageStat.Stat(image.convert("L")).mean[0]


def top_left_luminance(path: str) -> float:
    """Luminance (0-255) of the upper-left pixel, the NL-Eye "dumb pixel" (§4.3)."""
    red, green, blue = load_image(path).getpixel((0, 0))
    return (red * 299 + green * 587 + blue * 114) / 1000  # PIL's "L" conversion weights


def clear_cache() -> None:
    """Forget every decoded image (tests use it to count decodes)."""
    with _lock:
        _cache.clear()
