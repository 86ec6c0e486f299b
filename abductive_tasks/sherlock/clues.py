"""Sherlock's clues (§B.1: retrieval and localization "testing on clues instead" of inferences).

The leaderboard files hold inferences only; the val corpus (``sherlock_val_with_split_idxs_v1_1.json``, the README's
"Sherlock validation corpus", unpacked beside the leaderboard zips) holds each instance's clue under its
``instance_id``. The answer keys name the instance ids of the leaderboard instances, so a clue joins each of them; the
corpus's inference of each joined instance must be the leaderboard file's, or the load stops.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abductive_tasks.inputs.files import read_regular
from abductive_tasks.inputs.loading import DataError, reading
from abductive_tasks.sherlock.factored_retrieval import FactoredChunk, loads_json

# The val corpus (README "Dataset Download": sherlock_val_with_split_idxs_v1_1.json.zip), under any of its spellings.
CORPUS_NAMES = (
    "sherlock_val_with_split_idxs_v1_1.json",
    "sherlock_val_with_split_idxs_v1.1.json",
    "sherlock_val_with_split_idxs_v1.json",
)


@dataclass(frozen=True)
class Observation:
    """An instance of the val corpus: its clue and its inference (the latter checks the join with the keys)."""

    clue: str
    inference: str


@functools.cache
def val_clues(root: Path) -> tuple[Path, dict[str, Observation]]:
    """The val corpus file under ``root`` and its observations by ``instance_id``; errors name file, entry and field."""
    path = next((root / name for name in CORPUS_NAMES if (root / name).is_file()), None)
    if path is None:
        raise DataError(
            f"the clue tasks need the Sherlock val corpus, {root / CORPUS_NAMES[0]} (unzip "
            "https://storage.googleapis.com/ai2-mosaic-public/projects/sherlock/data/"
            "sherlock_val_with_split_idxs_v1_1.json.zip there): the leaderboard files hold no clues"
        )
    raw = _read(path)
    if not isinstance(raw, list) or not raw:
        raise DataError(f"{path}: expected a non-empty JSON list of instances")
    observations: dict[str, Observation] = {}
    for index, entry in enumerate(raw):
        where = f"{path}, entry {index}"
        instance_id = entry.get("instance_id") if isinstance(entry, dict) else None
        if not isinstance(instance_id, str | int) or isinstance(instance_id, bool) or str(instance_id) == "":
            raise DataError(f"{where}, field 'instance_id': missing or not a string")
        clue = (entry.get("inputs") or {}).get("clue") if isinstance(entry.get("inputs"), dict) else None
        inference = (entry.get("targets") or {}).get("inference") if isinstance(entry.get("targets"), dict) else None
        for field, text in (("inputs.clue", clue), ("targets.inference", inference)):
            if not isinstance(text, str) or not text.strip():
                raise DataError(f"{where}, field '{field}': missing or empty")
        assert isinstance(clue, str) and isinstance(inference, str)  # checked above
        if str(instance_id) in observations:
            raise DataError(f"{where}, field 'instance_id': duplicate instance id '{instance_id}'")
        observations[str(instance_id)] = Observation(clue, inference)
    return path, observations


def clue_texts(root: Path, instance_ids: Iterable[str], inferences: Iterable[str], source: str) -> list[str]:
    """The clue of each instance id; each id's inference in the leaderboard file (``inferences``) must be the
    corpus's, so a wrong join or another corpus version stops the run."""
    path, observations = val_clues(root)
    clues = []
    for instance_id, inference in zip(instance_ids, inferences, strict=True):
        observation = observations.get(instance_id)
        if observation is None:
            raise DataError(f"{source}: instance id '{instance_id}' is not in the val corpus {path}")
        if observation.inference != inference:
            raise DataError(
                f"{source}: instance id '{instance_id}' has the inference {inference!r}, the val corpus {path} "
                f"{observation.inference!r} (another corpus version?)"
            )
        clues.append(observation.clue)
    return clues


def key_instance_ids(answer_key: Path) -> list[str]:
    """A retrieval key's instance ids in the factored chunk's numbering (:func:`grid._gold_grid`): by first
    appearance on the image side, test ids sorted."""
    key = _read(answer_key)
    if not isinstance(key, dict):
        raise DataError(f"{answer_key}: expected a JSON object of test ids")
    return list(dict.fromkeys(str(key[test_id][0]) for test_id in sorted(key)))


def clue_chunk(root: Path, chunk: FactoredChunk, answer_key: Path) -> FactoredChunk:
    """``chunk`` with the clue of each instance id as its texts (§B.1): the same rows, one column per distinct clue."""
    ids = key_instance_ids(answer_key)
    if chunk.gold_cols is None:
        raise DataError(f"{answer_key}: chunk {chunk.chunk} was factored without its answer key")
    inferences = [chunk.texts[column] for column in chunk.gold_cols]
    clues = clue_texts(root, ids, inferences, str(answer_key))
    column_of: dict[str, int] = {}
    gold_cols = np.fromiter((column_of.setdefault(clue, len(column_of)) for clue in clues), np.int32, len(clues))
    # No per-test-id columns (col_of None): the leaderboard files score inferences, so clue scores have no submission.
    return FactoredChunk(chunk.chunk, chunk.rows, tuple(column_of), chunk.row_of, None, chunk.gold_rows, gold_cols)


def _read(path: Path) -> object:
    with reading(path):
        return loads_json(read_regular(path))
