"""The picture the model was sent on composite tasks, drawn again from a logged document.

NL-Eye's combined strategy (``nleye_*_combined``) and MuCR's Form-1 tasks (``mucr_c2e``, ``mucr_e2c``, ``mucr_cue``,
``mucr_exp*`` and their prompt strategies) send the model one image made of the document's images; the samples
log the separate images. A task is composite when its YAML's ``doc_to_visual`` is one of :data:`COMPOSITE_HOOKS`
(read from our YAML, nothing imported); the composite is drawn by the function that hook calls
(:func:`~abductive_tasks.inputs.images.compose_row`, or
:func:`~abductive_tasks.inputs.images.compose_labelled` with MuCR's panel captions), so the page shows the model's
own pixels. MuCR's in-context strategy (``*_mmicl``) sends several composites (its shots'), which the samples do
not name: its documents show their own images.

A composite's thumbnail is cached as every thumbnail is (:mod:`abductive_tasks.reports.thumbnails`: sealed, bound
to its name), under a digest of how it is drawn and of its parts' bytes. Drawing one decodes its parts in full:
the pixels of the parts count against a budget as thumbnails' do; past it a document shows its parts.
"""

from __future__ import annotations

import functools
import hashlib
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from abductive_tasks.reports import media, thumbnails
from abductive_tasks.runs import catalog

# doc_to_visual hooks that send one composite of the document's images, and how each draws it.
COMPOSITE_HOOKS = {
    "abductive_tasks.nleye.doc_to_visual_combined": "row",  # NL-Eye v.1, §4.1: side by side, premise on the left
    "abductive_tasks.mucr.doc_to_visual_composite": "labelled",  # MuCR Form-1: panels with captions above
}


@dataclass(frozen=True)
class Composite:
    """One composite image: its parts (image paths, left to right) and the captions drawn above them (none: a row)."""

    parts: tuple[str, ...]
    captions: tuple[str, ...] = ()

    def read(self, allowed: Sequence[Path]) -> tuple[bytes, ...] | None:
        """Its parts' bytes, each read once from the file checked inside the ``allowed`` folders
        (:func:`~abductive_tasks.reports.media.read_drawable`: a part swapped for a link out of them, or for a FIFO,
        is refused, never followed or waited on); None when a part is outside, gone or no regular file."""
        parts = [media.read_drawable(part, allowed) for part in self.parts]
        return None if any(part is None for part in parts) else tuple(part for part in parts if part is not None)

    def draw(self, parts: Sequence[bytes]):
        """The composite as the task's hook draws it (a PIL image), from its parts' bytes (:meth:`read`)."""
        from abductive_tasks.inputs.images import decode_bytes, labelled_row_of, row_of

        images = [decode_bytes(part) for part in parts]
        return labelled_row_of(images, self.captions) if self.captions else row_of(images)

    def digest(self, parts: Sequence[bytes]) -> str:
        """What names its thumbnail: how it is drawn and its parts' bytes (:meth:`read`)."""
        digest = hashlib.sha256(b"composite\0" + "\0".join(self.captions).encode() + b"\0")
        for part in parts:
            digest.update(hashlib.sha256(part).digest())
        return digest.hexdigest()


@functools.cache
def composition(task: str) -> str | None:
    """How ``task`` composes its images ("row", "labelled"), or None when it sends them apart (or is not ours)."""
    entry = catalog.index().get(task)
    if entry is None or entry[0] != "task":
        return None
    path = entry[1]
    return COMPOSITE_HOOKS.get(str(catalog.config(path).get("doc_to_visual") or ""))


def composite_of(task: str, images: Sequence[str]) -> Composite | None:
    """The composite a document of ``task`` with these ``images`` (its logged paths, in prompt order) was sent as;
    None when the task sends its images apart or the document has fewer than two."""
    kind = composition(task)
    if kind is None or len(images) < 2:
        return None
    if kind == "labelled":
        from abductive_tasks.mucr.hooks import composite_panels

        return Composite(tuple(images), tuple(composite_panels(task, len(images))))
    return Composite(tuple(images))


def _parts_pixels(parts: Sequence[bytes]) -> int:
    from PIL import Image

    total = 0
    for part in parts:
        try:
            with Image.open(io.BytesIO(part)) as image:
                width, height = image.size
        except (OSError, ValueError, Image.DecompressionBombError):
            return 0
        total += width * height
    return total


def _thumbnail(composite: Composite, parts: Sequence[bytes], digest: str, size: int) -> bytes | None:
    """Draw the composite and make its thumbnail (at most ``size`` pixels high, each panel about as wide), cached."""
    from PIL import Image

    try:
        small = composite.draw(parts).copy()
    except (OSError, ValueError, Image.DecompressionBombError):  # unreadable (our DataError is a ValueError)
        return None
    small.thumbnail((size * len(composite.parts), size))
    buffer = io.BytesIO()
    small.save(buffer, "JPEG", quality=thumbnails.JPEG_QUALITY)
    made = buffer.getvalue()
    thumbnails.keep(digest, size, made)
    return made


@dataclass
class Pictures:
    """Each composite's thumbnail as a data URI, and what making them cost (as :class:`thumbnails.Thumbnails`)."""

    uris: dict[Composite, str] = field(default_factory=dict)
    decoded: int = 0  # composites drawn
    reused: int = 0  # composites whose cached thumbnail was used
    left: int = 0  # composites past the budget: their documents show the parts


def pictures(
    composites: Iterable[Composite],
    allowed: Sequence[Path],
    size: int = thumbnails.THUMBNAIL_PX,
    budget: int | None = None,
    always: int = 0,
) -> Pictures:
    """The thumbnail of each composite (in page order) whose parts lie inside the ``allowed`` folders
    (:meth:`Composite.read`), cached ones at no decoding cost; new ones while the pixels of their parts stay within
    ``budget`` (None: all), the first ``always`` whatever it costs."""
    found = Pictures()
    spent = 0
    for index, composite in enumerate(dict.fromkeys(composites)):
        parts = composite.read(allowed)
        if parts is None:
            continue
        digest = composite.digest(parts)
        made = thumbnails.cached(digest, size)
        if made is not None:
            found.reused += 1
        else:
            cost = _parts_pixels(parts)
            if budget is not None and index >= always and spent + cost > budget:
                found.left += 1
                continue
            spent += cost
            made = _thumbnail(composite, parts, digest, size)
            found.decoded += made is not None
        if made is not None:
            found.uris[composite] = thumbnails.data_uri(made)
    return found


def sent_picture(task: str, images: Sequence[str], allowed: Sequence[Path]):
    """What the model was sent as one picture (a PIL image): the task's composite, else the images side by side,
    each image read once from the file checked inside the ``allowed`` folders (:meth:`Composite.read`); None when
    the document names no image or one is outside, gone or no regular file."""
    if not images:
        return None
    composite = composite_of(task, images) or Composite(tuple(images))
    parts = composite.read(allowed)
    return None if parts is None else composite.draw(parts)
