"""The identity records the batch runner keeps beside results, as files: the :class:`IdentityRecord` of each run
(``<model>/runs/<run>/run_identity.json``: its identity, limit and tasks, written before it starts, its exit status
and the seal of its outputs (:func:`sealed_outputs`) once it ended) and of the spec per model
(``<model>/spec_identity.json``: what the leaderboard shows).

The one place such a file is written and read: :mod:`~abductive_tasks.runs.run` and :mod:`~abductive_tasks.runs.batch`
write them through :meth:`IdentityRecord.write`; :mod:`~abductive_tasks.runs.history` (what earlier runs left) and the
leaderboard read them through :meth:`IdentityRecord.read`. (Not the per-document record a task spec keeps, which
lmms-eval writes into the samples JSONL.) A record read back is checked; one that cannot be trusted is a
:class:`DamagedFile`, named by path and set aside (:func:`quarantine`), never believed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from abductive_tasks.inputs.files import NotRegular, file_sha256, open_regular, write_atomic
from abductive_tasks.lmms_source import RESULTS_SUFFIX, SAMPLES_MARK
from abductive_tasks.runs.identity import task_key

RUNS_DIR = "runs"
RUN_RECORD = "run_identity.json"
SPEC_RECORD = "spec_identity.json"
QUARANTINED = ".damaged"  # suffix of a damaged file or run folder set aside by the batch runner
SEALED = (f"*{RESULTS_SUFFIX}", f"*{SAMPLES_MARK}*.jsonl")  # what lmms-eval leaves in a run folder that readers trust


class DamagedFile(ValueError):
    """A results, identity or cache file that cannot be trusted; the message names it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path


def write_json_atomic(path: Path, value: object) -> None:
    """Write ``value`` as JSON through a temporary file and a rename, so a kill never leaves half a file."""
    write_atomic(path, json.dumps(value, indent=2, sort_keys=True) + "\n")


def read_json_object(path: Path) -> dict:
    """A JSON object from ``path``, or :class:`DamagedFile` saying what is wrong with it (a FIFO or device in a run
    folder is never opened: reading one would wait forever)."""
    try:
        with open_regular(path) as handle:
            text = handle.read().decode("utf-8")
    except NotRegular as refused:
        raise DamagedFile(path, refused.reason) from None
    except (OSError, UnicodeDecodeError) as error:
        raise DamagedFile(path, f"unreadable ({error})") from error
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise DamagedFile(path, f"not valid JSON, truncated? ({error})") from error
    if not isinstance(value, dict):
        raise DamagedFile(path, f"not a JSON object (a {type(value).__name__})")
    return value


@dataclass(frozen=True)
class IdentityRecord:
    """What the batch runner writes beside results: a run's (or the spec's) identity, limit and tasks."""

    identity: dict
    limit: int | float | None
    tasks: tuple[str, ...]
    model: str
    spec: str  # the spec file the batch ran
    exit_status: int | None = (
        None  # run records: the evaluation's exit status once it ended, -1 when it could not start
    )
    weights: dict | None = None  # which weights the model ran (identity.model_weights): spec records, ended run records
    outputs: dict[str, str] | None = None  # run records, once ended: sealed_outputs (None: ended before 2026-12-01)
    asked: tuple[str, ...] | None = None  # spec records: of ``tasks``, those the spec names (the rest run only as
    # upstream stages of those); None: every task asked (written before 0.1.12, or a run record)

    @classmethod
    def read(cls, path: Path) -> IdentityRecord:
        raw = read_json_object(path)
        if not isinstance(raw.get("tasks"), list) or not isinstance(raw.get("identity"), dict):
            raise DamagedFile(path, "not a run identity record (no `identity` object or `tasks` list)")
        try:
            record = cls(
                identity=raw["identity"],
                limit=raw["limit"],
                tasks=tuple(raw["tasks"]),
                model=raw["model"],
                spec=raw["spec"],
                exit_status=raw.get("exit_status"),
                weights=raw.get("weights") if isinstance(raw.get("weights"), dict) else None,
                outputs=raw.get("outputs"),
                asked=tuple(raw["asked"]) if isinstance(raw.get("asked"), list) else None,
            )
            for task in record.tasks:
                task_key(record.identity, task)
        except (KeyError, TypeError, AttributeError) as error:
            raise DamagedFile(path, f"not a run identity record ({type(error).__name__}: {error})") from error
        if not (record.limit is None or isinstance(record.limit, int | float)) or not all(
            isinstance(task, str) for task in (*record.tasks, *(record.asked or ()))
        ):
            raise DamagedFile(path, "not a run identity record (limit or tasks of the wrong type)")
        if record.outputs is not None and not (
            isinstance(record.outputs, dict)
            and all(isinstance(name, str) and isinstance(digest, str) for name, digest in record.outputs.items())
        ):
            raise DamagedFile(path, "not a run identity record (`outputs` is not an object of digests)")
        return record

    def write(self, path: Path) -> None:
        fields = {**asdict(self), "tasks": list(self.tasks), "asked": list(self.asked or ())}
        write_json_atomic(path, fields if self.asked is not None else {k: v for k, v in fields.items() if k != "asked"})


def sealed_outputs(run: Path) -> dict[str, str]:
    """The seal of what a run left for its readers: the SHA-256 of each results and samples file under ``run``, by path
    relative to it. Written into the run's record when it ends; a file edited, deleted or added since then is found
    by :func:`~abductive_tasks.runs.history.scan_runs`, and the run's task runs again."""
    found = {path for pattern in SEALED for path in run.rglob(pattern) if path.is_file()}
    return {path.relative_to(run).as_posix(): file_sha256(path) for path in sorted(found)}


def quarantine(path: Path) -> Path:
    """Set a damaged file or run folder aside (``<name>[.N].damaged``), out of every later reader's way."""
    target = path.with_name(path.name + QUARANTINED)
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}.{number}{QUARANTINED}")
    path.rename(target)
    return target
