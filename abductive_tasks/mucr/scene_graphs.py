"""MuCR CCoT: the store of scene graphs written by a ``mucr_<level>_ccot_graph`` run for ``mucr_<level>_ccot``.

Layout: ``<ABDUCTIVE_CACHE>/mucr/scene_graphs/<name>/<key>.json`` holding ``{"name", "key", "graph"}``;
``name`` is what ``ABDUCTIVE_MUCR_SCENE_GRAPHS`` gives (the model's, say), ``key`` a BLAKE2b digest of the
stage-1 prompt and of the bytes of the images shown (:func:`key`), so a graph is read back only for the very
question and images it answered. A name with characters unsafe in a folder name is written with them replaced
and a short digest of the exact name appended (two names never share a folder).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

from loguru import logger

from abductive_tasks import settings
from abductive_tasks.inputs.files import redacted, write_atomic

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


@functools.cache
def _file_digest(path: str) -> str:
    return hashlib.blake2b(Path(path).read_bytes(), digest_size=16).hexdigest()


def key(prompt: str, image_paths: Sequence[str]) -> str:
    """The key of a stage-1 question: its prompt and its images, by content, in order."""
    content = "\0".join([prompt, *(_file_digest(str(path)) for path in image_paths)])
    return hashlib.blake2b(content.encode(), digest_size=16).hexdigest()


def folder(name: str) -> Path:
    """The folder of the graphs stored under ``name`` (made safe for a folder name)."""
    safe = _UNSAFE.sub("_", name)
    if safe != name or safe in {".", ".."}:
        safe = f"{safe}-{hashlib.blake2b(name.encode(), digest_size=4).hexdigest()}"
    return settings.cache_root() / "mucr" / "scene_graphs" / safe


def save(name: str, graph_key: str, graph: str) -> Path:
    """Store ``graph`` under ``name`` and ``graph_key`` (atomically; replaces an older one)."""
    target_folder = folder(name)
    target_folder.mkdir(parents=True, exist_ok=True)
    target = target_folder / f"{graph_key}.json"
    record = {"name": name, "key": graph_key, "graph": redacted(graph)}  # no secret a reply echoes, in clear
    write_atomic(target, json.dumps(record, ensure_ascii=False, indent=1))
    return target


def lookup(name: str, graph_key: str) -> str | None:
    """The graph stored under ``name`` for ``graph_key``; None when there is none or the file is not one we wrote."""
    path = folder(name) / f"{graph_key}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        logger.warning(f"mucr CCoT: unreadable scene graph file {path} ({error}); counted as missing")
        return None
    valid = isinstance(record, dict) and record.get("name") == name and record.get("key") == graph_key
    graph = record.get("graph") if valid else None
    if not (isinstance(graph, str) and graph.strip()):
        logger.warning(f"mucr CCoT: {path} does not hold a scene graph stored under '{name}'; counted as missing")
        return None
    return graph
