"""Leaderboard submission from a run's logged scores (``--log_samples``).

The Sherlock leaderboard (allenai/sherlock ``leaderboard_eval``) takes one float32 ``.npy`` per
task file, scores in sorted ``test_id`` order: ``comparison.npy``, ``localization.npy`` and
``retrieval_<i>.npy`` for the 23 chunks, zipped as ``test_set_predictions.zip`` holding the folder
``test_set_predictions/`` (the names its ``validate_submission.py`` checks; its README also says
``test_set_submission``, which the validator rejects). Val runs export the same files under
``validation_set_predictions/``, which the official scorers read with the val ``*_instance_ids.json``.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import numpy as np

from abductive_tasks.data import DataError
from abductive_tasks.sherlock import metrics, scale

FOLDERS = {"test": "test_set_predictions", "val": "validation_set_predictions"}
_SAMPLES = re.compile(r".*_samples_(sherlock_[a-z0-9_]+)\.jsonl")


def logged_records(run_dir: Path, split: str = "test", tasks: set[str] | None = None) -> dict[str, list[dict]]:
    """Each Sherlock task's ``process_results`` records on ``split``, read from the samples files under ``run_dir``."""
    by_task: dict[str, list[dict]] = {}
    for path in sorted(run_dir.rglob("*_samples_sherlock_*.jsonl")):
        match = _SAMPLES.fullmatch(path.name)
        if not match or (tasks and match.group(1) not in tasks):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            sample = json.loads(line)
            record = next((value for value in sample.values() if isinstance(value, dict) and ("test_id" in value or "payload" in value)), None)
            if record is None:
                raise DataError(f"{path}, line {number}: no Sherlock record (was the run made with this package's Sherlock tasks?)")
            if record["split"] == split:
                by_task.setdefault(match.group(1), []).append(record)
    if not by_task:
        raise DataError(f"{run_dir}: no Sherlock {split}-split samples (*_samples_sherlock_*.jsonl); run abductive-eval with --log_samples")
    return by_task


def submission_arrays(by_task: dict[str, list[dict]]) -> dict[str, np.ndarray]:
    """``{file name: float32 scores in sorted test_id order}``; every task file must be complete."""
    arrays: dict[str, np.ndarray] = {}
    origin: dict[str, str] = {}
    for task, records in sorted(by_task.items()):
        if "payload" in records[0]:  # the embedding route of sherlock_retrieval (abductive_tasks.sherlock.scale)
            files = {f"retrieval_{chunk}": scale.submission_scores_from_samples(records, chunk) for chunk in sorted({r["chunk"] for r in records})}
        else:
            files = _per_pair_arrays(task, records)
        for name, array in files.items():
            if name in arrays:
                raise DataError(f"both {origin[name]} and {task} score {name}: export one of them (--tasks)")
            arrays[name], origin[name] = array, task
    return arrays


def _per_pair_arrays(task: str, records: list[dict]) -> dict[str, np.ndarray]:
    files: dict[str, list[dict]] = {}
    for record in records:
        name = record["sherlock_task"] if record["sherlock_task"] != "retrieval" else f"retrieval_{record['chunk']}"
        files.setdefault(name, []).append(record)
    arrays = {}
    for name, group in files.items():
        if len({r["test_id"] for r in group}) != group[0]["file_size"]:
            raise DataError(f"{task}: {len(group)} of the {group[0]['file_size']} instances of {name} were logged (a --limit run cannot be submitted)")
        ordered = sorted(group, key=lambda r: r["test_id"])
        scores = np.array([np.nan if r["plausibility"] is None else r["plausibility"] for r in ordered], dtype=np.float64)
        arrays[name] = metrics.as_submitted(scores).astype(np.float32)  # unparsable -> below every other score
    return arrays


def write_submission(run_dir: Path, out_dir: Path, split: str = "test", tasks: set[str] | None = None) -> Path:
    """Write ``<folder>/<file>.npy`` and ``<folder>.zip`` under ``out_dir`` from ``split``'s scores in the run under ``run_dir``; return the zip."""
    arrays = submission_arrays(logged_records(run_dir, split, tasks))
    folder = out_dir / FOLDERS[split]
    folder.mkdir(parents=True, exist_ok=True)
    archive = out_dir / f"{FOLDERS[split]}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, array in sorted(arrays.items()):
            np.save(folder / f"{name}.npy", array)
            bundle.write(folder / f"{name}.npy", f"{FOLDERS[split]}/{name}.npy")
    return archive
