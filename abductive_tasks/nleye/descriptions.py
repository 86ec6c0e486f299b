"""NL-Eye image-to-text (t.1): the store of per-image descriptions, keyed by image content and describer.

``nleye_describe`` asks the model "Describe the content of the image in detail." (Table 6) once per
distinct image and stores each reply here under the name ``ABDUCTIVE_NLEYE_DESCRIBER`` gives;
``nleye_triplet_described`` reads back the descriptions of the describer ``ABDUCTIVE_NLEYE_DESCRIPTIONS``
names (by default ``ABDUCTIVE_NLEYE_DESCRIBER``), so descriptions by different models never mix and a
predictor can read another model's descriptions.

Layout: ``<ABDUCTIVE_CACHE>/nleye/descriptions/<describer>/<image digest>.json`` holding
``{"describer", "image_digest", "image", "description"}``; the digest is a BLAKE2b digest of the
image file's bytes, so the same picture under another path or data root shares its description.
A describer name with characters unsafe in a folder name is written with them replaced and a short
digest of the exact name appended (two names never share a folder).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

from loguru import logger

from abductive_tasks import settings
from abductive_tasks.inputs.files import redacted, write_atomic

DESCRIBER_VARIABLE = "ABDUCTIVE_NLEYE_DESCRIBER"  # the name a describe run stores under
READ_VARIABLE = "ABDUCTIVE_NLEYE_DESCRIPTIONS"  # the describer a predict run reads (default: DESCRIBER_VARIABLE)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


@functools.cache
def image_digest(path: str) -> str:
    """Content key of an image file (BLAKE2b, 16 bytes, of its bytes)."""
    return hashlib.blake2b(Path(path).read_bytes(), digest_size=16).hexdigest()


def store_root(cache_root: Path | None = None) -> Path:
    return (cache_root or settings.cache_root()) / "nleye" / "descriptions"


def describer_folder(describer: str, cache_root: Path | None = None) -> Path:
    """The folder of one describer's descriptions (its name, made safe for a folder name)."""
    safe = _UNSAFE.sub("_", describer)
    if safe != describer or safe in {".", ".."}:
        safe = f"{safe}-{hashlib.blake2b(describer.encode(), digest_size=4).hexdigest()}"
    return store_root(cache_root) / safe


READERS = frozenset({"nleye_triplet_described"})  # the tasks whose scores depend on stored descriptions


def fingerprint(describer: str, cache_root: Path) -> dict:
    """What a run reading ``describer``'s descriptions under ``cache_root`` reads, by content: the describer, how many
    description files it has and a SHA-256 over each file's name and bytes (a re-described image changes it, so a
    run's identity changes and the task is run again)."""
    folder = describer_folder(describer, cache_root) if describer else None
    digest, files = hashlib.sha256(), 0
    for path in sorted(folder.glob("*.json")) if folder is not None and folder.is_dir() else ():
        digest.update(f"{path.name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
        files += 1
    return {"describer": describer, "files": files, "sha256": digest.hexdigest()}


def save(describer: str, image_path: str, description: str) -> Path:
    """Store ``description`` of the image at ``image_path`` by ``describer`` (atomically; replaces an older one)."""
    digest = image_digest(image_path)
    folder = describer_folder(describer)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{digest}.json"
    previous = lookup(describer, image_path)
    if previous is not None and previous != description:
        logger.info(f"nleye_describe: replacing the stored description of {image_path} by '{describer}'")
    description = redacted(description)  # a reply that echoes a secret leaves no copy in clear
    record = {"describer": describer, "image_digest": digest, "image": str(image_path), "description": description}
    write_atomic(target, json.dumps(record, ensure_ascii=False, indent=1))
    return target


def lookup(describer: str, image_path: str) -> str | None:
    """The stored description of the image at ``image_path`` by ``describer``; None when there is none."""
    path = describer_folder(describer) / f"{image_digest(image_path)}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        logger.warning(f"nleye_triplet_described: unreadable description file {path} ({error}); counted as missing")
        return None
    description = record.get("description") if isinstance(record, dict) else None
    return description if isinstance(description, str) and description.strip() else None
