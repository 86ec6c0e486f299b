"""Which image files a page or the ui may draw: a samples file may name any path (an edited or planted one, a private
picture), so only images inside the folders of the runs shown and the data folders are read, links resolved.
``abductive-eval ui`` (its media route), ``browse`` and ``diff`` apply this one rule."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from abductive_tasks.inputs.files import open_resolved
from abductive_tasks.inputs.images import image_cache_dir
from abductive_tasks.inputs.loading import SAMPLE_ROOT

NOT_DRAWN = "not drawn, outside the runs' and the data folders"  # what a page says in place of such an image


def data_folders() -> list[Path]:
    """Where the images a run read can live: the embedded sample, ``ABDUCTIVE_DATA`` (a path), the extracted-image
    cache and the Hugging Face hub cache (the official sources)."""
    from huggingface_hub import constants

    from abductive_tasks import settings

    choice = settings.data_source()
    local = [Path(choice).expanduser()] if choice not in ("", "sample") else []
    return [SAMPLE_ROOT, *local, image_cache_dir(), Path(constants.HF_HUB_CACHE)]


def allowed_folders(roots: Sequence[Path] = ()) -> list[Path]:
    """``roots`` (the folders of the runs shown) and the data folders, resolved."""
    return [Path(root).expanduser().resolve() for root in (*roots, *data_folders())]


def resolved_inside(path: str | Path, allowed: Sequence[Path]) -> Path | None:
    """The image ``path`` with its links resolved when it lies inside one of the ``allowed`` folders
    (:func:`allowed_folders`); None otherwise."""
    try:
        resolved = Path(path).resolve()
    except (OSError, ValueError):  # a link loop, a NUL in the name
        return None
    return resolved if any(resolved.is_relative_to(folder) for folder in allowed) else None


def drawable(path: str | Path, allowed: Sequence[Path]) -> bool:
    """Whether the image ``path`` lies inside one of the ``allowed`` folders once its links are resolved (what the
    page says of it; what is read is :func:`read_drawable`'s)."""
    return resolved_inside(path, allowed) is not None


def read_drawable(path: str | Path, allowed: Sequence[Path]) -> bytes | None:
    """The bytes of the image ``path`` when it lies inside one of the ``allowed`` folders, read from the file checked:
    its resolved path is opened with no link followed on the way (:func:`~abductive_tasks.inputs.files.open_resolved`),
    so a file or folder swapped for a link out of them after the check is refused, never read; None when it is
    outside, gone or no regular file."""
    resolved = resolved_inside(path, allowed)
    if resolved is None:
        return None
    try:
        with open_resolved(resolved) as handle:
            return handle.read()
    except OSError:
        return None
