"""Image checks, decoding and composition shared by every benchmark.

Loaders call :func:`check_image`, which reads only what is cheap and rejects, naming the file and
row: a missing or unreadable file, one over ``ABDUCTIVE_MAX_IMAGE_PIXELS`` pixels (or a PIL
decompression bomb), a mode with no faithful RGB conversion, and a truncated file (lmms-eval turns
on PIL's ``LOAD_TRUNCATED_IMAGES``, which would silently pad it). Truncation is found by reading the
last bytes: a PNG must end with its ``IEND`` chunk, a JPEG with its end-of-image marker (a walk of
every PNG chunk's CRC, PIL's ``verify``, costs a read of the whole file: 1 s for NL-Eye's 2 GB).
A PNG's size and mode come from its ``IHDR`` chunk read directly (CRC checked, PIL's own mode
table), a JPEG's from its frame header (the marker segments before it walked as PIL walks them), in
one open with the end check: a fifth of PIL's ``Image.open``, which NL-Eye's and DVE's thousands of
files would otherwise pay; any other file, or one whose header is not plainly valid, goes through PIL.
Any other format, or a PNG with bytes after its end, is decoded whole strictly, into the cache below; a JPEG
with bytes after its end is whole when its scan data reaches an end-of-image marker (no decode: a JPEG cell
that failed the last-bytes check cost MuCR a decode and 0.8 MB of held pixels per image).
Damage inside a whole-length file is found when it is decoded (strictly too), at first use.

Images embedded in a data file (MuCR's parquet cells) are written once to ``<ABDUCTIVE_CACHE>/images/<sha256>.<ext>``
(:func:`materialise_image`), and every use checks the bytes against the name (:func:`intact_entry`, and again when
the pixels are decoded): an entry overwritten in place, or replaced by a link, is rewritten with a warning, never used.

Pixels are decoded on first use (:func:`load_image`, the visuals a model asks for), strictly too.
Decoded images and composites live in one process-wide LRU cache bounded by decoded size
(``ABDUCTIVE_IMAGE_CACHE_MB``, default 2048), so an image used by several documents and tasks
(the NL-Eye premise appears in four) is decoded once per run while the images in use fit the
budget; beyond it the least recently used are dropped and decoded again when needed. 16-bit
greyscale is scaled to 8 bits (PIL's own conversion clips it to white); an RGB image is not copied.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import re
import tempfile
import threading
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import numpy as np
from cachetools import LRUCache, cached
from loguru import logger
from PIL import Image, ImageDraw, ImageFile, ImageFont, ImageStat, PngImagePlugin

from abductive_tasks import settings
from abductive_tasks.inputs.files import not_regular, open_nofollow, open_regular, stream_sha256
from abductive_tasks.inputs.loading import DataError

_GAP = 8  # white pixels between composite panels
_WIDE_MODES = {"I;16", "I;16L", "I;16B", "I;16N", "I"}  # 16/32-bit greyscale, scaled to 8 bits
_RGB_MODES = {"1", "L", "LA", "La", "P", "PA", "RGB", "RGBA", "RGBa", "RGBX", "CMYK", "YCbCr"}


def _decoded_bytes(image: Image.Image) -> int:
    return image.width * image.height * len(image.getbands())


_cache: LRUCache = LRUCache(maxsize=settings.image_cache_bytes(), getsizeof=_decoded_bytes)
_lock = threading.RLock()


def to_rgb(image: Image.Image) -> Image.Image:
    """RGB of a decoded image; 16/32-bit greyscale scaled to 8 bits, modes with no faithful conversion refused."""
    if image.mode in _WIDE_MODES:
        wide = np.asarray(image, dtype=np.float64)
        image = Image.fromarray(np.clip(np.rint(wide / 257), 0, 255).astype(np.uint8), "L")
    elif image.mode not in _RGB_MODES:
        raise ValueError(f"unsupported image mode {image.mode}")
    return image if image.mode == "RGB" else image.convert("RGB")


def _check_header(image: Image.Image) -> None:
    """Refuse an image over the pixel limit or in a mode with no faithful RGB conversion (header facts only)."""
    _check_size_and_mode(image.size, image.mode)


def _check_size_and_mode(size: tuple[int, int], mode: str) -> None:
    limit = settings.max_image_pixels()
    if size[0] * size[1] > limit:
        raise ValueError(f"{size[0]}x{size[1]} pixels is over the limit of {limit} (ABDUCTIVE_MAX_IMAGE_PIXELS)")
    if mode not in _WIDE_MODES and mode not in _RGB_MODES:
        raise ValueError(f"unsupported image mode {mode}")


@contextmanager
def _strict() -> Iterator[None]:
    """PIL raises on a truncated file instead of padding it (``LOAD_TRUNCATED_IMAGES`` is a global lmms-eval sets)."""
    with _lock:
        strict, ImageFile.LOAD_TRUNCATED_IMAGES = ImageFile.LOAD_TRUNCATED_IMAGES, False
        try:
            yield
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES = strict


def _decode(path: str) -> Image.Image:
    """Decode the whole file strictly: a truncated file raises instead of being padded. An entry of the image cache is
    decoded from the bytes whose SHA-256 was checked against its name (ValueError when they differ)."""
    source: BinaryIO
    if _is_entry(Path(path)):
        data = _entry_bytes(Path(path))
        if data is None or hashlib.sha256(data).hexdigest() != _entry_digest(Path(path)):
            raise ValueError(
                f"{path}: this extracted image changed since it was written (its SHA-256 is not its name); run again "
                "to write it anew from the data"
            )
        source = io.BytesIO(data)
    else:
        source = open_regular(Path(path))  # a FIFO put in its place since it was checked: refused, not waited on
    with source, _strict(), Image.open(source) as image:
        _check_header(image)
        image.load()
        return to_rgb(image)


def decode_bytes(data: bytes) -> Image.Image:
    """An image's bytes decoded as :func:`load_image` decodes its file (strictly, its header checked, as RGB): what
    a page draws from bytes it read once (:mod:`abductive_tasks.reports.composites`)."""
    with _strict(), Image.open(io.BytesIO(data)) as image:
        _check_header(image)
        image.load()
        return to_rgb(image)


@cached(_cache, key=lambda path: ("file", path), lock=_lock)
def load_image(path: str) -> Image.Image:
    """Decode ``path`` to RGB once per run (callers must not modify the returned image)."""
    return _decode(path)


_ENDS = {"PNG": b"\x00\x00\x00\x00IEND\xaeB`\x82", "JPEG": b"\xff\xd9"}  # the IEND chunk; the EOI marker


def _ends_whole(image: Image.Image, path: str) -> bool:
    """Whether the file ends as a whole PNG or JPEG does (its ``IEND`` chunk, its end-of-image marker), reading
    only its last bytes; a JPEG with bytes after its end (padding, an appended trailer) is whole when its scan data
    reaches an end-of-image marker, found without decoding (in scan data a 0xFF byte is followed only by a stuffed
    zero or a restart marker, so the first ``FF D9`` after the scan starts is the end). False: no cheap answer
    (another format, a PNG with bytes after its end)."""
    end = _ENDS.get(image.format or "")
    if end is None:
        return False
    with open_regular(Path(path)) as handle:
        handle.seek(max(0, os.fstat(handle.fileno()).st_size - len(end)))
        if handle.read() == end:
            return True
        if image.format != "JPEG" or not image.tile:
            return False
        handle.seek(image.tile[0][2])  # where the first scan's data starts
        return end in handle.read()


def image_size(path: str) -> tuple[int, int]:
    """(width, height) of a checked image: from the decoded cache if there, else from the file header."""
    with _lock:
        decoded = _cache.get(("file", path))
    if decoded is not None:
        return decoded.size
    with open_regular(Path(path)) as handle, Image.open(handle) as image:
        return image.size


_PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"  # the signature, then the IHDR chunk's length and type


def _whole_png_header(path: str) -> tuple[tuple[int, int], str] | None:
    """(size, mode) of a PNG that ends with its ``IEND`` chunk, read off its ``IHDR`` chunk as PIL reads it (CRC
    checked, PIL's mode table); None when the file is no such PNG (PIL decides)."""
    with open_regular(Path(path)) as handle:
        head = handle.read(33)
        if len(head) < 33 or not head.startswith(_PNG_HEAD):
            return None
        handle.seek(-len(_ENDS["PNG"]), os.SEEK_END)
        whole = handle.read() == _ENDS["PNG"]
    mode = PngImagePlugin._MODES.get((head[24], head[25]))
    if not whole or mode is None or head[27] or zlib.crc32(head[12:29]) != int.from_bytes(head[29:33], "big"):
        return None  # PIL refuses a filter method it does not know (head[27]) and a bad CRC; let it say so
    size = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    Image._decompression_bomb_check(size)
    return size, mode[0]


_JPEG_FRAMES = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # start-of-frame markers (not DHT, JPG, DAC)
_JPEG_MODES = {1: "L", 3: "RGB", 4: "CMYK"}  # PIL's mode by component count of an 8-bit frame
_JPEG_HEAD = 1 << 16  # the markers before the frame header fit here unless an APP segment is larger


def _whole_jpeg_header(path: str) -> tuple[tuple[int, int], str] | None:
    """(size, mode) of a JPEG that ends with its end-of-image marker, read off its frame header by walking the marker
    segments before it as PIL does; None when the file is no such JPEG, or not plainly one (PIL decides)."""
    with open_regular(Path(path)) as handle:
        head = handle.read(_JPEG_HEAD)
        if not head.startswith(b"\xff\xd8") or len(head) < 4:
            return None
        handle.seek(-len(_ENDS["JPEG"]), os.SEEK_END)
        if handle.read() != _ENDS["JPEG"]:
            return None
    position = 2
    while position + 4 <= len(head) and head[position] == 0xFF:
        marker = head[position + 1]
        if marker == 0xFF:  # a fill byte
            position += 1
            continue
        if marker in _JPEG_FRAMES:
            frame = head[position + 4 : position + 10]
            if len(frame) < 6 or frame[0] != 8 or frame[5] not in _JPEG_MODES:
                return None
            size = int.from_bytes(frame[3:5], "big"), int.from_bytes(frame[1:3], "big")
            if not all(size):
                return None
            Image._decompression_bomb_check(size)
            return size, _JPEG_MODES[frame[5]]
        if marker in (0xD9, 0xDA) or 0xD0 <= marker <= 0xD7:  # end, scan or restart before any frame: PIL decides
            return None
        position += 2 + int.from_bytes(head[position + 2 : position + 4], "big")
    return None


def check_image(path: Path, where: str) -> str:
    """Fail unless ``path`` is a whole image within the pixel limit, in a mode with an RGB conversion.

    Reads the header and, for PNG and JPEG, checks the file is whole without decoding pixels; other
    files are decoded whole now, into the cache (their later use is a cache hit). Returns the path as a string.
    """
    if (why := not_regular(path)) is not None:
        raise DataError(f"{where}: unusable image {path}: {why}")
    if not path.is_file():
        raise DataError(f"{where}: image file not found: {path}")
    try:
        header = _whole_png_header(str(path)) or _whole_jpeg_header(str(path))
        if header is not None:
            _check_size_and_mode(*header)
            return str(path)
        with open_regular(path) as handle, Image.open(handle) as image:
            _check_header(image)
            whole = _ends_whole(image, str(path))
        if not whole:
            load_image(str(path))
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as error:
        raise DataError(f"{where}: unusable image {path}: {error}") from error
    return str(path)


@cached(_cache, key=lambda paths: ("row", tuple(paths)), lock=_lock)
def compose_row(paths: Sequence[str]) -> Image.Image:
    """Place the images side by side, left to right, scaled to a common height.

    The common height is the tallest image's; panels are separated by a white gap.
    """
    return row_of([load_image(path) for path in paths])


def row_of(images: Sequence[Image.Image]) -> Image.Image:
    """:func:`compose_row` of decoded images."""
    height = max(image.height for image in images)
    scaled = [
        image if image.height == height else image.resize((round(image.width * height / image.height), height))
        for image in images
    ]
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

    The caption is black text centred over its panel, sized to a tenth of the row height (at least 12 px), smaller
    where a caption would be wider than its panel (:func:`_caption_size`).
    """
    if len(paths) != len(labels):
        raise ValueError(f"compose_labelled: {len(paths)} images but {len(labels)} labels")
    return _captioned(compose_row(tuple(paths)), [load_image(path) for path in paths], labels)


def labelled_row_of(images: Sequence[Image.Image], labels: Sequence[str]) -> Image.Image:
    """:func:`compose_labelled` of decoded images."""
    if len(images) != len(labels):
        raise ValueError(f"compose_labelled: {len(images)} images but {len(labels)} labels")
    return _captioned(row_of(images), images, labels)


def _captioned(row: Image.Image, images: Sequence[Image.Image], labels: Sequence[str]) -> Image.Image:
    """``row`` (the ``images`` side by side) under a caption strip naming each panel."""
    widths = [round(image.width * row.height / image.height) for image in images]
    nominal = max(12, row.height // 10)
    font = _caption_font(_caption_size(nominal, widths, labels))
    strip = nominal + nominal // 2
    canvas = Image.new("RGB", (row.width, row.height + strip), "white")
    canvas.paste(row, (0, strip))
    draw = ImageDraw.Draw(canvas)
    left = 0
    for width, label in zip(widths, labels, strict=True):
        draw.text((left + width / 2, strip / 2), label, fill="black", font=font, anchor="mm")
        left += width + _GAP
    return canvas


_SMALLEST_CAPTION = 6  # px: below it a caption is unreadable anyway; it may then overlap its neighbours


@functools.cache
def _caption_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _caption_size(nominal: int, widths: Sequence[int], labels: Sequence[str]) -> int:
    """The largest font size up to ``nominal`` at which every caption fits its panel (``widths``), one size for the
    row: on small panels (the shipped sample's) the nominal size drew ``Option 4`` wider than its panel, into the gap
    and the next caption."""
    size = nominal
    while size > _SMALLEST_CAPTION and any(
        _caption_font(size).getlength(label) > width for width, label in zip(widths, labels, strict=True)
    ):
        size -= 1
    return size


# Encoded image formats by their first bytes: the cached file's suffix, so that tools that know an image by its name
# (lmms-eval's logged ``input_media``, the run browser) find it.
_MAGIC_SUFFIXES = ((b"\x89PNG", ".png"), (b"\xff\xd8\xff", ".jpg"), (b"GIF8", ".gif"), (b"BM", ".bmp"))


def _suffix(data: bytes) -> str:
    """The file suffix of encoded image bytes by their signature ("" when unknown)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    return next((suffix for magic, suffix in _MAGIC_SUFFIXES if data.startswith(magic)), "")


def image_cache_dir() -> Path:
    """Where :func:`materialise_image` keeps image bytes by default: ``<cache_root()>/images``, resolved."""
    return (settings.cache_root() / "images").resolve()


_ENTRY_NAME = re.compile(r"([0-9a-f]{64})(\.[a-z]+)?")


def _entry_digest(path: Path) -> str:
    return path.name.partition(".")[0]


def _is_entry(path: Path) -> bool:
    """Whether ``path`` names an entry of the default image cache (``<sha256>[.ext]`` in :func:`image_cache_dir`)."""
    return bool(_ENTRY_NAME.fullmatch(path.name)) and path.parent == image_cache_dir()


def _entry_bytes(path: Path) -> bytes | None:
    """The bytes of a cache entry that is a regular file (a link at its name is not followed); None otherwise."""
    try:
        descriptor = open_nofollow(path, os.O_RDONLY)  # a FIFO is refused, never waited on
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read()


def intact_entry(path: Path) -> bool:
    """Whether the content-addressed image file ``path`` holds the bytes its name says: a regular file (not a link)
    whose SHA-256 is its name (one read and hash of the file, ``utils/bench_image_check.py``)."""
    try:
        descriptor = open_nofollow(path, os.O_RDONLY)  # a FIFO is refused, never waited on
    except OSError:
        return False
    with os.fdopen(descriptor, "rb") as handle:
        return stream_sha256(handle) == _entry_digest(path)


def materialise_image(data: bytes, directory: Path | None = None) -> str:
    """Write encoded image bytes (e.g. a parquet image cell) to a content-addressed file; return its path.

    Files live under ``directory`` (default ``<cache_root()>/images``, see
    :func:`abductive_tasks.settings.cache_root`) and are named by the SHA-256 of the bytes and their format's
    suffix (``<sha256>.png``), so rewriting is idempotent and concurrent writers cannot corrupt each other (atomic
    rename). An existing file is used only when it holds exactly these bytes; one that does not (overwritten in
    place, a link) is rewritten, with a warning naming it.
    """
    folder = directory or image_cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (hashlib.sha256(data).hexdigest() + _suffix(data))
    if target.is_symlink() or target.exists():
        if _entry_bytes(target) == data:
            return str(target)
        logger.warning(
            f"image cache: {target} does not hold the bytes its name says (changed since it was written); "
            "rewritten from the data"
        )
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".", suffix=".tmp", delete=False) as handle:
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
    """The image at ``path`` with each ``(left, top, width, height)`` box highlighted, as RGB
    (cached; do not modify)."""
    overlay = Image.new("RGBA", load_image(path).size, "#00000000")
    draw = ImageDraw.Draw(overlay, "RGBA")
    for left, top, width, height in boxes:
        draw.rectangle(
            [(left, top), (left + width, top + height)],
            fill=REGION_FILL,
            outline=REGION_OUTLINE,
            width=REGION_OUTLINE_WIDTH,
        )
    return Image.alpha_composite(load_image(path).convert("RGBA"), overlay).convert("RGB")


# Sherlock's input ablations (§5.2, Fig. 5) and widescreen alternatives (§5.2 "Model ablations"), drawn as the
# authors' training code draws them (allenai/sherlock training_code/train_retrieval_clip.py: ``hide_region``,
# ``SquarePad``, the test transform's centre crop). Hidden pixels take the release's grey, which §5 calls "a mean
# pixel value" (CLIP's normalisation mean is 123, 117, 104); "position only" boxes are the highlight's purple, opaque.
INPUT_MODES = ("region", "no_region", "no_context", "only_context", "position_only", "crop", "pad")
HIDDEN_FILL = (0x7B, 0x75, 0x75)
POSITION_FILL = (0xFF, 0x05, 0xCD)


def square_pad(image: Image.Image) -> Image.Image:
    """``image`` centred on a black square of its longer side (the extra pixel, if any, right or below)."""
    side = max(image.size)
    padded = Image.new(image.mode, (side, side))
    padded.paste(image, ((side - image.width) // 2, (side - image.height) // 2))
    return padded


def centre_square(image: Image.Image) -> Image.Image:
    """The centred square of ``image``'s shorter side (torchvision's ``CenterCrop`` offsets)."""
    side = min(image.size)
    left, top = round((image.width - side) / 2), round((image.height - side) / 2)
    return image.crop((left, top, left + side, top + side))


def _box_mask(size: tuple[int, int], boxes: Sequence[Sequence[int]]) -> Image.Image:
    """A mask that is 255 on every box (corners included, as PIL draws a rectangle) and 0 elsewhere."""
    mask = Image.new("L", size, 0)
    draw = ImageDraw.Draw(mask)
    for left, top, width, height in boxes:
        draw.rectangle([(left, top), (left + width, top + height)], fill=255)
    return mask


@cached(_cache, key=lambda path, boxes, mode: ("input", mode, path, tuple(map(tuple, boxes))), lock=_lock)
def draw_input(path: str, boxes: Sequence[Sequence[int]], mode: str) -> Image.Image:
    """The image at ``path`` with its region ``boxes`` as input ``mode`` shows them (RGB, cached; do not modify):

    * ``region``: highlighted (:func:`draw_regions`), the paper's input;
    * ``no_region`` (Fig. 5 "No Region"): the image as it is;
    * ``no_context`` ("No Context"): the boxes' pixels only, every other pixel grey;
    * ``only_context`` ("Only Context"): the boxes filled grey, the rest as it is;
    * ``position_only`` ("Position only", Table 2 "Bbox Position/Size"): all grey, the boxes opaque purple;
    * ``crop`` ("Crop no Widescreen") / ``pad`` ("Resize no Widescreen"): the highlighted image's centred square /
      the highlighted image padded to a black square.
    """
    if mode not in INPUT_MODES:
        raise ValueError(f"unknown Sherlock input mode '{mode}', expected one of {INPUT_MODES}")
    if mode == "region":
        return draw_regions(path, boxes)
    if mode in ("crop", "pad"):
        return (centre_square if mode == "crop" else square_pad)(draw_regions(path, boxes))
    image = load_image(path)
    if mode == "no_region":
        return image
    mask = _box_mask(image.size, boxes)
    grey = Image.new("RGB", image.size, HIDDEN_FILL)
    if mode == "no_context":
        return Image.composite(image, grey, mask)
    if mode == "only_context":
        return Image.composite(grey, image, mask)
    return Image.composite(Image.new("RGB", image.size, POSITION_FILL), grey, mask)


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
