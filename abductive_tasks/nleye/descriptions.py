"""NL-Eye image-to-text (t.1): the per-image descriptions ``nleye_describe`` writes for ``nleye_triplet_described``.

``nleye_describe`` asks "Describe the content of the image in detail." (Table 6) once per distinct image; each reply
is in the run's records (``description``), so ``abductive-eval`` and the batch runner read a describe run's samples as
a stage output (:mod:`abductive_tasks.inputs.stages`), from the same model or from the describer the command or spec
names on purpose. With ``ABDUCTIVE_NLEYE_DESCRIBER=<name>`` (plain lmms-eval) the describe stage also stores each
description under that name (:data:`STORE`, ``<ABDUCTIVE_CACHE>/stages/named/descriptions/<name>/<image digest>.json``)
and ``nleye_triplet_described`` reads back the describer ``ABDUCTIVE_NLEYE_DESCRIPTIONS`` names (default:
``ABDUCTIVE_NLEYE_DESCRIBER``), so a predictor can read another model's descriptions. The image digest is a BLAKE2b
digest of the image file's bytes, so the same picture under another path or data root shares its description.
"""

from __future__ import annotations

from pathlib import Path

from abductive_tasks.inputs.stages import NamedStore, file_digest

DESCRIBER_VARIABLE = "ABDUCTIVE_NLEYE_DESCRIBER"  # the name a describe run stores under
READ_VARIABLE = "ABDUCTIVE_NLEYE_DESCRIPTIONS"  # the describer a predict run reads (default: DESCRIBER_VARIABLE)
STORE = NamedStore("descriptions", READ_VARIABLE)


def image_digest(path: str) -> str:
    """Content key of an image file (BLAKE2b, 16 bytes, of its bytes)."""
    return file_digest(str(path))


def describer_folder(describer: str, cache_root: Path | None = None) -> Path:
    """The folder of one describer's stored descriptions."""
    return STORE.folder(describer, cache_root)


def lookup(describer: str, image_path: str) -> str | None:
    """The stored description of the image at ``image_path`` by ``describer``; None when there is none."""
    found = STORE.lookup(describer, image_digest(image_path))
    return None if found is None else found[0].value
