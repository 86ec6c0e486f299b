"""MuCR C2E and Cue samples written as ``--log_samples`` writes them: the picks an Exp task on the model's own
picks reads (``ABDUCTIVE_MUCR_PICKS``)."""

from __future__ import annotations

import json
from pathlib import Path

from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.mucr import data, hooks

LOADED = data.load(SAMPLE_ROOT / "mucr")
ITEMS = LOADED.items
C2E_DOCS = {doc["item_id"]: doc for doc in hooks.c2e_docs_from(LOADED)}
CUE_DOCS = {doc["item_id"]: doc for doc in hooks.cue_docs_from(LOADED)}


def write_samples(folder: Path, task: str, replies: dict[str, str], name: str = "20261127_120000") -> Path:
    """A samples JSONL of ``task`` (``mucr_c2e`` or ``mucr_cue``, with any form or strategy suffix) on the sample:
    one line per replied item with the values the level's own process_results returned (the record under every
    metric; a strategy variant records what its base does)."""
    level = task.removeprefix("mucr_").partition("_")[0]
    docs = C2E_DOCS if level == "c2e" else CUE_DOCS
    reader = getattr(hooks, f"process_results_{level}" + ("_split" if task.endswith("_split") else ""))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}_samples_{task}.jsonl"
    lines = [{"doc_id": n, **reader(docs[item], [reply])} for n, (item, reply) in enumerate(replies.items())]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
