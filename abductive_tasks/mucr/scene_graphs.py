"""MuCR CCoT: the scene graphs a ``mucr_<level>_ccot_graph`` run draws for ``mucr_<level>_ccot``, in the stage store.

Each graph is in the stage-1 run's records (``graph``), so ``abductive-eval`` and the batch runner read it from that
run's samples as a stage output (:mod:`abductive_tasks.inputs.stages`). With ``ABDUCTIVE_MUCR_SCENE_GRAPHS=<name>``
(plain lmms-eval) stage 1 also stores each graph under that name (:data:`STORE`,
``<ABDUCTIVE_CACHE>/stages/named/graphs/<name>/<key>.json``) and stage 2 reads them back by it. ``key``: the stage-1
prompt and the bytes of the images shown (:func:`key`), so a graph is read back only for the very question and
images it answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from abductive_tasks.inputs.stages import NamedStore, content_digest

VARIABLE = "ABDUCTIVE_MUCR_SCENE_GRAPHS"
STORE = NamedStore("graphs", VARIABLE)


def key(prompt: str, image_paths: Sequence[str]) -> str:
    """The key of a stage-1 question: its prompt and its images, by content, in order."""
    return content_digest([prompt], image_paths)


def folder(name: str) -> Path:
    """The folder of the graphs stored under ``name``."""
    return STORE.folder(name)


def lookup(name: str, graph_key: str) -> str | None:
    """The graph stored under ``name`` for ``graph_key``; None when there is none."""
    found = STORE.lookup(name, graph_key)
    return None if found is None else found[0].value
