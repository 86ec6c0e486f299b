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

Decoding has a budget (:data:`DECODE_BUDGET_PX`): the images are taken in the order the page shows them, and new
thumbnails are made while the pixels they decode stay within it (a cached thumbnail costs nothing). Where the
budget ends the walk stops: the images after it are neither read nor hashed, and the page links to their files
instead (:attr:`Thumbnails.linked`). The first ``always`` images (the page's first cards) are made whatever the
budget. Without a budget every thumbnail is made.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

from abductive_tasks import settings
from abductive_tasks.inputs.files import read_regular, seal, unseal, write_atomic
from abductive_tasks.reports import media

THUMBNAIL_PX = 160
JPEG_QUALITY = 70
URI_PREFIX = "data:image/jpeg;base64,"
POOL_FROM = 8  # fewer images to make than this: made in this process (starting workers would cost more)
READERS = 4  # threads reading and hashing images (both release the GIL)
READ_BATCH = 8  # images a thread reads and hashes in one go (one hand-off between threads per batch, not per image)
READ_AHEAD = 32  # images read ahead of the walk: at most this many (and the rest of a batch) past the budget's end
# Pixels a page may decode to make thumbnails not yet cached (a JPEG counted at its draft scale). Making one costs
# about 20 ns of CPU a pixel for PNG and 26 ns for JPEG at draft scale (decoding, resizing, encoding), so this is
# 6-8 s of CPU, 3-4 s on two cores. 3,334 500x375 JPEGs (decoded at 250x188: 157 million pixels) fit in it; 8,400
# 1024x1024 PNGs (8.8 billion pixels, about 180 s of CPU) do not: the first 286 are made, the rest linked.
DECODE_BUDGET_PX = 300_000_000


@dataclass
class Thumbnails:
    """Each path's thumbnail as a data URI (None: not readable), the paths left to the page to link, and what
    making them cost."""

    uris: dict[str, str | None] = field(default_factory=dict)
    linked: list[str] = field(default_factory=list)  # past the budget's end: neither read nor hashed, in page order
    decoded: int = 0  # images decoded (distinct contents not in the cache)
    reused: int = 0  # distinct contents whose cached thumbnail was used
    decoded_px: int = 0  # pixels those decodes cost (JPEG at its draft scale)
    making_s: float = 0.0  # wall seconds spent making the decoded ones


@dataclass(frozen=True)
class _Seen:
    """An image as the walk finds it: its digest (None: not readable), its cached thumbnail, the pixels making one
    would decode."""

    digest: str | None
    thumbnail: bytes | None = None
    cost: int = 0


def workers() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def entry_path(digest: str, size: int) -> Path:
    return settings.cache_root() / "thumbnails" / str(size) / digest[:2] / f"{digest}.jpg"


def _context(digest: str, size: int) -> str:
    return f"thumbnail {size} {digest}"


def _read(path: str, allowed: Sequence[Path] | None) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (a FIFO would block the read) inside one of the ``allowed``
    folders, checked on the file read (:func:`~abductive_tasks.reports.media.read_drawable`; None: anywhere); None
    otherwise."""
    if allowed is not None:
        return media.read_drawable(path, allowed)
    try:
        return read_regular(Path(path))
    except OSError:
        return None


def cached(digest: str, size: int) -> bytes | None:
    """The cached thumbnail of the image with SHA-256 ``digest`` when its seal checks; None otherwise."""
    try:
        blob = read_regular(entry_path(digest, size))
    except OSError:
        return None
    return unseal(blob, _context(digest, size))


def decode_cost(data: bytes, size: int = THUMBNAIL_PX) -> int:
    """The pixels making a thumbnail of ``data`` decodes, from its header (nothing decoded): JPEG at the draft scale
    :func:`make` uses, other formats in full; 0 for what :func:`make` will not decode (unreadable, a bomb)."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > settings.max_image_pixels():
                return 0
            image.draft("RGB", (size, size))  # JPEG: sets the scale (and the size) only
            return image.width * image.height
    except (OSError, ValueError, Image.DecompressionBombError):
        return 0


def _see(path: str, size: int, allowed: Sequence[Path] | None) -> _Seen:
    data = _read(path, allowed)
    if data is None:
        return _Seen(None)
    digest = hashlib.sha256(data).hexdigest()
    thumbnail = cached(digest, size)
    return _Seen(digest, thumbnail, 0 if thumbnail is not None else decode_cost(data, size))


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


def make_and_keep(path: str, size: int, allowed: Sequence[Path] | None) -> tuple[str | None, bytes | None]:
    """Read ``path`` (:func:`_read`), make its thumbnail and cache it under the digest of the bytes read: (digest,
    JPEG)."""
    data = _read(path, allowed)
    if data is None:
        return None, None
    digest = hashlib.sha256(data).hexdigest()
    thumbnail = make(data, size)
    if thumbnail is not None:
        keep(digest, size, thumbnail)
    return digest, thumbnail


def keep(digest: str, size: int, thumbnail: bytes) -> None:
    """Cache ``thumbnail`` under ``digest``, sealed (a torn entry is remade); a read-only or full cache only costs
    time."""
    sealed = seal(thumbnail, _context(digest, size))
    if sealed is not None:
        try:
            write_atomic(entry_path(digest, size), sealed, durable=False)
        except OSError:
            pass


@overload
def data_uri(thumbnail: bytes) -> str: ...
@overload
def data_uri(thumbnail: bytes | None) -> str | None: ...
def data_uri(thumbnail: bytes | None) -> str | None:
    """A thumbnail as a ``data:`` URI (None for none)."""
    return None if thumbnail is None else URI_PREFIX + base64.b64encode(thumbnail).decode()


def _see_all(paths: list[str], size: int, allowed: Sequence[Path] | None) -> list[_Seen]:
    return [_see(path, size, allowed) for path in paths]


def _in_order(paths: list[str], size: int, allowed: Sequence[Path] | None) -> Iterator[tuple[str, _Seen]]:
    """Each path with what :func:`_see` finds, in order, read and hashed on threads in batches of
    :data:`READ_BATCH`, at most :data:`READ_AHEAD` ahead of the caller; what is still queued when the caller stops
    is never read."""
    threads = ThreadPoolExecutor(max_workers=READERS)
    batch = max(1, min(READ_BATCH, READ_AHEAD))
    pending: deque[tuple[list[str], Future[list[_Seen]]]] = deque()
    start = 0
    try:
        while True:
            while start < len(paths) and (len(pending) + 1) * batch <= max(READ_AHEAD, batch):
                chunk = paths[start : start + batch]
                start += batch
                pending.append((chunk, threads.submit(_see_all, chunk, size, allowed)))
            if not pending:
                return
            chunk, seen = pending.popleft()
            yield from zip(chunk, seen.result(), strict=True)
    finally:
        threads.shutdown(wait=True, cancel_futures=True)


def _make_all(sources: list[str], size: int, allowed: Sequence[Path] | None) -> list[tuple[str | None, bytes | None]]:
    """:func:`make_and_keep` of each source, on a process pool when there are enough of them."""
    cores = min(workers(), len(sources))
    if cores > 1 and len(sources) >= POOL_FROM:
        try:
            with ProcessPoolExecutor(max_workers=cores) as pool:
                return list(
                    pool.map(make_and_keep, sources, [size] * len(sources), [allowed] * len(sources), chunksize=16)
                )
        except (OSError, BrokenProcessPool):  # no worker processes to be had (limits, memory): made here
            pass
    return [make_and_keep(source, size, allowed) for source in sources]


def thumbnails(
    paths: Iterable[str],
    size: int = THUMBNAIL_PX,
    budget: int | None = None,
    always: int = 0,
    allowed: Sequence[Path] | None = None,
) -> Thumbnails:
    """The thumbnail of every path in ``paths`` (in the order the page shows them): each distinct content decoded
    at most once, none when cached. With a ``budget`` (pixels), new thumbnails are made while their decoded pixels
    stay within it, the first ``always`` distinct paths whatever it costs; the walk stops at the first path past
    it, and that path and every later one are left in :attr:`Thumbnails.linked` (the later ones never read, even
    where their thumbnail is cached). With ``allowed`` (:func:`~abductive_tasks.reports.media.allowed_folders`), a
    path is read only from a file inside those folders, checked on the file read (:func:`_read`); any other is not
    readable (None)."""
    distinct = list(dict.fromkeys(paths))
    digests: dict[str, str | None] = {}
    made: dict[str, bytes | None] = {}
    to_make: dict[str, str] = {}  # digest -> one path with that content
    result = Thumbnails()
    spent = 0
    with closing(_in_order(distinct, size, allowed)) as walk:  # stopping early stops the reading
        for index, (path, seen) in enumerate(walk):
            digest = seen.digest
            if digest is not None and digest not in made and digest not in to_make:
                if seen.thumbnail is not None:
                    made[digest] = seen.thumbnail
                    result.reused += 1
                elif budget is not None and index >= always and spent + seen.cost > budget:
                    result.linked = distinct[index:]
                    break
                else:
                    spent += seen.cost
                    to_make[digest] = path
            digests[path] = digest
    result.decoded_px = spent
    if to_make:
        start = time.perf_counter()
        outcomes = _make_all(list(to_make.values()), size, allowed)
        result.making_s = time.perf_counter() - start
        for (expected, source), (digest, thumbnail) in zip(to_make.items(), outcomes, strict=True):
            result.decoded += digest is not None
            if digest != expected:  # the file changed since it was hashed: what was read is what is shown
                digests[source] = digest
            if digest is not None:
                made[digest] = thumbnail
    uris = {digest: data_uri(thumbnail) for digest, thumbnail in made.items()}
    result.uris = {path: uris.get(digest) if digest else None for path, digest in digests.items()}
    return result
