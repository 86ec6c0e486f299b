"""Thumbnails of a run's images, computed once per distinct image content and kept in a sealed cache.

An image is known by the SHA-256 of its bytes. Its thumbnail (a small JPEG) is cached under
``<ABDUCTIVE_CACHE>/thumbnails/<size>/<xx>/<sha256>.jpg``, sealed (:func:`abductive_tasks.inputs.files.seal`)
and bound to its name (the digest and the size): an entry edited, truncated or copied under another name is
refused and made again. Entries are written atomically. A page over the same images (another model's run, a
diff) then decodes nothing.

Making a thumbnail decodes in draft mode where the format allows it (JPEG decodes at 1/2 to 1/8 scale), and the
distinct images a page lacks are made on every core the process may use. Images declaring more pixels than
``ABDUCTIVE_MAX_IMAGE_PIXELS`` (decompression bombs) are never decoded; a path that is no regular file (gone, a
folder, a FIFO) is never opened.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.inputs.files import seal, unseal, write_atomic

THUMBNAIL_PX = 160
JPEG_QUALITY = 70
URI_PREFIX = "data:image/jpeg;base64,"
POOL_FROM = 8  # fewer images to make than this: made in this process (starting workers would cost more)


@dataclass
class Thumbnails:
    """Each path's thumbnail as a data URI (None: not readable), and what making them cost."""

    uris: dict[str, str | None] = field(default_factory=dict)
    decoded: int = 0  # images decoded (distinct contents not in the cache)
    reused: int = 0  # distinct contents whose cached thumbnail was used


def workers() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def entry_path(digest: str, size: int) -> Path:
    return settings.cache_root() / "thumbnails" / str(size) / digest[:2] / f"{digest}.jpg"


def _context(digest: str, size: int) -> str:
    return f"thumbnail {size} {digest}"


def _read(path: str) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (a FIFO would block the read); None otherwise."""
    try:
        if not Path(path).is_file():
            return None
        return Path(path).read_bytes()
    except OSError:
        return None


def _digest(path: str) -> str | None:
    data = _read(path)
    return None if data is None else hashlib.sha256(data).hexdigest()


def cached(digest: str, size: int) -> bytes | None:
    """The cached thumbnail of the image with SHA-256 ``digest`` when its seal checks; None otherwise."""
    try:
        blob = entry_path(digest, size).read_bytes()
    except OSError:
        return None
    return unseal(blob, _context(digest, size))


def make(data: bytes, size: int = THUMBNAIL_PX) -> bytes | None:
    """A JPEG of at most ``size`` x ``size`` pixels of the image in ``data``; None when it cannot be read or
    declares more pixels than allowed (nothing is decoded then)."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > settings.max_image_pixels():  # declared size: nothing decoded yet
                return None
            image.draft("RGB", (size, size))  # JPEG: decode at the smallest scale still >= size; others: no-op
            small = image.convert("RGB")
            small.thumbnail((size, size))
            small.info = {}  # the source's comment and other metadata stay out of the thumbnail
            buffer = io.BytesIO()
            small.save(buffer, "JPEG", quality=JPEG_QUALITY)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return buffer.getvalue()


def make_and_keep(path: str, size: int) -> tuple[str | None, bytes | None]:
    """Read ``path``, make its thumbnail and cache it under the digest of the bytes read: (digest, JPEG)."""
    data = _read(path)
    if data is None:
        return None, None
    digest = hashlib.sha256(data).hexdigest()
    thumbnail = make(data, size)
    if thumbnail is not None:
        sealed = seal(thumbnail, _context(digest, size))
        if sealed is not None:
            try:
                write_atomic(entry_path(digest, size), sealed)
            except OSError:  # a read-only or full cache only costs time
                pass
    return digest, thumbnail


def _uri(thumbnail: bytes | None) -> str | None:
    return None if thumbnail is None else URI_PREFIX + base64.b64encode(thumbnail).decode()


def thumbnails(paths: Iterable[str], size: int = THUMBNAIL_PX) -> Thumbnails:
    """The thumbnail of every path in ``paths``: each distinct content decoded at most once, none when cached."""
    distinct = list(dict.fromkeys(paths))
    with ThreadPoolExecutor(max_workers=8) as threads:  # reading and hashing release the GIL
        digests = dict(zip(distinct, threads.map(_digest, distinct), strict=True))
    made: dict[str, bytes | None] = {}
    to_make: dict[str, str] = {}  # digest -> one path with that content
    result = Thumbnails()
    for path, digest in digests.items():
        if digest is None or digest in made or digest in to_make:
            continue
        thumbnail = cached(digest, size)
        if thumbnail is None:
            to_make[digest] = path
        else:
            made[digest] = thumbnail
            result.reused += 1
    if to_make:
        sources = list(to_make.values())
        cores = min(workers(), len(sources))
        outcomes = None
        if cores > 1 and len(sources) >= POOL_FROM:
            try:
                with ProcessPoolExecutor(max_workers=cores) as pool:
                    outcomes = list(pool.map(make_and_keep, sources, [size] * len(sources), chunksize=16))
            except (OSError, BrokenProcessPool):  # no worker processes to be had (limits, memory): made here
                outcomes = None
        if outcomes is None:
            outcomes = [make_and_keep(source, size) for source in sources]
        for (expected, source), (digest, thumbnail) in zip(to_make.items(), outcomes, strict=True):
            result.decoded += digest is not None
            if digest != expected:  # the file changed since it was hashed: what was read is what is shown
                digests[source] = digest
            if digest is not None:
                made[digest] = thumbnail
    uris = {digest: _uri(thumbnail) for digest, thumbnail in made.items()}
    result.uris = {path: uris.get(digest) if digest else None for path, digest in digests.items()}
    return result
