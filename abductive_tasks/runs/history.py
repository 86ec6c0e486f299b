"""What earlier runs left behind, read without trusting it: their results and outcomes per task.

Each run folder holds its :class:`~abductive_tasks.runs.identity_record.IdentityRecord`
(``<model>/runs/<run>/run_identity.json``) beside lmms-eval's results. A task is done, and a leaderboard cell is
shown, only when a run's identity gives the same :func:`~abductive_tasks.runs.identity.task_key` as the spec's, and a
results file counts only when its own ``config`` names the model the run's identity records (:func:`other_model`: one
copied in from another model's run is a damaged file). A damaged file is named by path, never believed. A task's
results or samples file edited, deleted or added since its run ended (against the seal in the run's record:
:func:`seal_broken`) is not believed either: the batch runs the task again.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from abductive_tasks.hints import counted
from abductive_tasks.inputs.files import file_sha256, open_regular
from abductive_tasks.lmms_source import RESULTS_SUFFIX, SAMPLES_MARK, limit_value, samples_path
from abductive_tasks.runs.identity import task_key
from abductive_tasks.runs.identity_record import (
    QUARANTINED,
    RUN_RECORD,
    RUNS_DIR,
    DamagedFile,
    IdentityRecord,
    read_json_object,
)


def failed_requests(task_results: Mapping) -> int:
    """Failed requests a task's results report, the model's and the judge's: the sum of ``request_failed`` and of
    every ``*judge_failed`` count over its dict-valued metrics.

    Every task reports a diagnostics dict such as ``"triplet_counts,none": {"documents": 24, "request_failed": 3}``
    (judged tasks add e.g. ``explanations_judge_failed``; None when no judge was asked); a count that is not a whole
    number is an error (the results cannot be trusted).
    """
    return sum(failure_counts(task_results))


def failure_counts(task_results: Mapping) -> tuple[int, int]:
    """The model's failed requests (``request_failed``) and the judge's failures (every ``*judge_failed`` count) a
    task's results report (:func:`failed_requests` adds them up)."""
    model = judge = 0
    for name, value in task_results.items():
        if not isinstance(value, Mapping):
            continue
        for key, count in value.items():
            if key != "request_failed" and not (str(key).endswith("judge_failed") and count is not None):
                continue
            if isinstance(count, bool) or not isinstance(count, int | float) or count < 0 or count != int(count):
                raise ValueError(f"{name}: {key} is {count!r}, not a count")
            if key == "request_failed":
                model += int(count)
            else:
                judge += int(count)
    return model, judge


def failures_text(task_results: Mapping) -> str:
    """A task's failed requests as the summary tells them apart: ``1 failed request`` (the model's: its table's
    column), ``2 judge failures`` (its ``! ... the judge failed on`` line), or both; '' when there is none."""
    model, judge = failure_counts(task_results)
    parts = [counted(model, "failed request")] if model else []
    return ", ".join(parts + ([counted(judge, "judge failure")] if judge else []))


def _checked_results(path: Path, raw: dict) -> dict[str, dict]:
    results = raw.get("results")
    if not isinstance(results, dict):
        raise DamagedFile(path, "no `results` object")
    for task, task_results in results.items():
        if not isinstance(task_results, dict):
            raise DamagedFile(path, f"results of {task!r} are not an object")
        try:
            failed_requests(task_results)
        except ValueError as error:
            raise DamagedFile(path, f"{task}: {error}") from error
    return results


def failures_in(results_path: Path, task: str) -> str:
    """The failed requests, the model's and the judge's, that ``task``'s results in ``results_path`` report, told
    apart as the summary tells them (:func:`failures_text`; '' when there is none, or no results of ``task``);
    :class:`DamagedFile` when it cannot be read."""
    return failures_text(_checked_results(results_path, read_json_object(results_path)).get(task) or {})


# Where a secret stood: an identity holds its salted hash (secrets.hash_secret), a results file ``[REDACTED]``
# (lmms-eval's own redaction and the batch child's, secrets.redact_text): each stands for any text up to the next ``,``.
HIDDEN = re.compile(r"<secret [0-9a-f]{16}>|\[REDACTED\]")


def same_model_args(recorded: str, written: str) -> bool:
    """Whether a results file's ``config.model_args`` (``written``: as lmms-eval wrote it through the batch's child,
    secret values ``[REDACTED]``) can be the ``model_args`` a run record's identity holds (``recorded``: secret values
    as their salted hash): equal once each hidden stretch on either side stands for any text without a ``,`` (one side
    may hide what the other shows: lmms-eval redacts an ``hf_...`` value the identity keeps, the identity hashes a
    secret-named value under 4 characters the child leaves)."""
    if recorded == written:
        return True
    return _compatible(_pattern(recorded), _pattern(written))


def _pattern(text: str) -> tuple[str | None, ...]:
    """``text`` as characters, each :data:`HIDDEN` stretch one ``None``."""
    found: list[str | None] = []
    for number, piece in enumerate(HIDDEN.split(text)):
        found += [None] if number else []
        found += list(piece)
    return tuple(found)


def _compatible(left: tuple[str | None, ...], right: tuple[str | None, ...]) -> bool:
    """Whether some text fits both patterns (``None``: any text without a ``,``), from the ends backwards."""
    # fits[i][j]: some text fits both left[i:] and right[j:]
    fits = [[False] * (len(right) + 1) for _ in range(len(left) + 1)]
    fits[len(left)][len(right)] = True
    for i in range(len(left), -1, -1):
        for j in range(len(right), -1, -1):
            here, there = left[i] if i < len(left) else "", right[j] if j < len(right) else ""
            fits[i][j] = fits[i][j] or (
                (here is None and (fits[i + 1][j] or (j < len(right) and there != "," and fits[i][j + 1])))
                or (there is None and (fits[i][j + 1] or (i < len(left) and here != "," and fits[i + 1][j])))
                or (here is not None and there is not None and here != "" and here == there and fits[i + 1][j + 1])
            )
    return fits[0][0]


def other_model(raw: Mapping, identity: Mapping) -> str | None:
    """Why a results file ``raw`` is not a result of the model a run's ``identity`` records: its ``config`` (lmms-eval
    writes the ``--model`` and ``--model_args`` the batch gave it) names another backend (``model differs``) or other
    arguments (``model_args differ``; never their values, which may hold secrets even redacted); None when it is the
    run's model."""
    config = raw.get("config")
    config = config if isinstance(config, Mapping) else {}
    model = identity.get("model") if isinstance(identity.get("model"), Mapping) else {}
    written = config.get("model_args", "")
    if isinstance(written, Mapping):  # lmms-eval 0.7.3 takes a dict too (its --config file): written k=v as the batch
        written = ",".join(f"{key}={value}" for key, value in written.items())
    differs = []
    # a secret may hide the backend's name in either record ("dummy" as a key's placeholder value): matched as args are
    if "model" not in config or not same_model_args(str(model.get("backend") or ""), str(config["model"] or "")):
        differs.append("model differs")
    if "model_args" not in config or not same_model_args(str(model.get("model_args") or ""), str(written or "")):
        differs.append("model_args differ")
    if not differs:
        return None
    return f"results of another model than its {RUN_RECORD} records ({', '.join(differs)})"


def _documents_counted(task_results: Mapping) -> int | None:
    """The documents a task's own ``<prefix>_counts`` diagnostics say it scored (None when it reports none)."""
    for name, value in task_results.items():
        if name.endswith("_counts,none") and isinstance(value, Mapping) and "documents" in value:
            return value["documents"]
    return None


def _samples_lines(results_path: Path, task: str) -> int | None:
    """Whole lines of the samples JSONL lmms-eval wrote beside ``results_path`` for ``task`` (None: no such file).
    lmms-eval appends one JSON object and a newline per document: a last line without its newline, or no JSON, was
    cut short by a stop and is not counted."""
    count, last = 0, b""
    try:
        with open_regular(samples_path(results_path, task)) as handle:
            for line in handle:
                if line.strip():
                    count, last = count + 1, line
    except OSError:  # none, or no regular file in its place
        return None
    return count - 1 if last and not _whole_json_line(last) else count


def _whole_json_line(line: bytes) -> bool:
    """Whether ``line`` ends with its newline and holds one JSON value."""
    if not line.endswith(b"\n"):
        return False
    try:
        json.loads(line)
    except ValueError:  # UnicodeDecodeError too: a character cut in two
        return False
    return True


def ran(
    raw: Mapping, path: Path, task: str, recorded_limit: int | float | None, ended: bool = True
) -> tuple[int | float | None, str | None]:
    """What lmms-eval actually ran for ``task``, from its results file ``raw`` (at ``path``) and samples:
    the limit it applied, and why its counts cannot be trusted (None when they agree).

    The limit comes from the results' ``config`` (wherever it was set: the spec's ``limit:``, ``eval_args``,
    a model's ``eval_args``); ``n-samples`` must show every document run, and the task's ``<prefix>_counts``
    and samples file must count those documents. A limit in the run's record that the results contradict is
    a disagreement, never believed. lmms-eval writes the samples after the results: a run that did not end with
    status 0 (``ended`` False: stopped, killed, or its end never recorded) and has none was stopped between the two.
    """
    config = raw.get("config") if isinstance(raw.get("config"), Mapping) else {}
    limit = limit_value(config["limit"]) if "limit" in config else recorded_limit
    if limit is not None and not isinstance(limit, int | float):
        return recorded_limit, f"results config has limit {limit!r}, not a number"
    problems = []
    if limit != recorded_limit:
        problems.append(f"{RUN_RECORD} says limit={recorded_limit}, lmms-eval ran limit={limit}")
    counts = (raw.get("n-samples") or {}).get(task) if isinstance(raw.get("n-samples"), Mapping) else None
    if not isinstance(counts, Mapping) or not all(
        isinstance(counts.get(key), int) and not isinstance(counts.get(key), bool) for key in ("original", "effective")
    ):
        problems.append("no document counts (`n-samples`) in the results")
    else:
        original, effective = counts["original"], counts["effective"]
        if effective != original and limit is None:
            problems.append(f"ran {effective} of {original} documents without a limit")
        documents = _documents_counted(raw["results"][task])
        if documents is not None and documents != effective:
            problems.append(f"scored {counted(documents, 'document')}, lmms-eval ran {effective}")
        lines = _samples_lines(path, task)
        if lines is None and not ended:
            problems.append("no samples file: its run was stopped after writing its results")
        elif lines is not None and lines != effective:
            problems.append(f"its samples file holds {lines} whole documents, lmms-eval ran {effective}")
    return limit, ("counts disagree: " + "; ".join(problems)) if problems else None


def seal_broken(
    record: IdentityRecord, run: Path, results_path: Path, task: str, digest: Callable[[Path], str]
) -> str | None:
    """Why ``task``'s results file (``results_path``) or samples file in ``run`` is not what the run left when it
    ended, by the seal in its ``record`` (:func:`~abductive_tasks.runs.identity_record.sealed_outputs`; ``digest``
    hashes a file); None when it is, or when the record holds no seal (a run that ended before seals were written,
    on 2026-12-01, or one still running or killed: its counts are checked as ever)."""
    if record.outputs is None:
        return None
    changed = []
    for kind, path in (("results", results_path), ("samples", samples_path(results_path, task))):
        sealed = record.outputs.get(path.relative_to(run).as_posix())
        if sealed is None and path.is_file():
            changed.append(f"its {kind} file was added")
        elif sealed is not None and not path.is_file():
            changed.append(f"its {kind} file was deleted")
        elif sealed is not None and _digest_or_none(digest, path) != sealed:
            changed.append(f"its {kind} file was edited")
    return ("changed since its run ended: " + ", ".join(changed)) if changed else None


def _digest_or_none(digest: Callable[[Path], str], path: Path) -> str | None:
    """``digest(path)``; None where the file cannot be read (gone, or no regular file in its place since a look)."""
    try:
        return digest(path)
    except OSError:
        return None


def limit_covers(run_limit: int | float | None, wanted: int | float | None) -> bool:
    """Whether a run with ``run_limit`` answers a spec asking for ``wanted`` (None: every document)."""
    if run_limit is None or run_limit == wanted:
        return True
    return wanted is not None and run_limit >= 1 and wanted >= 1 and run_limit >= wanted


@dataclass(frozen=True)
class Outcome:
    """One earlier run's outcome for one task whose identity matches the spec's."""

    run: Path
    limit: int | float | None
    results: dict | None = None  # the task's results; None when the run produced none
    results_path: Path | None = None
    failed_requests: int = 0
    when: float = 0.0  # results file modification time
    disagreement: str | None = None  # why the run's counts contradict its limit or each other (never a score)
    changed: str | None = None  # how its files changed since the run ended (seal_broken; never a score)

    @property
    def doubt(self) -> str | None:
        """Why the outcome cannot be believed (its counts disagree, its files changed); None when it can."""
        return "; ".join(why for why in (self.disagreement, self.changed) if why) or None


@dataclass
class Scan:
    """What the runs under one model folder hold for a spec identity."""

    outcomes: dict[str, list[Outcome]] = field(
        default_factory=dict
    )  # task -> matching outcomes (with results or failed)
    damaged: list[DamagedFile] = field(default_factory=list)  # files that cannot be trusted, by path
    # task -> the run folders whose record is damaged (not read) though their files name the task: not "not run"
    unread: dict[str, list[Path]] = field(default_factory=dict)
    # run folders recorded as another model's (copied in): never read, said (a note each)
    foreign: list[str] = field(default_factory=list)

    def best(self, task: str) -> Outcome | None:
        """The outcome a leaderboard cell shows: a full run before a limited one, one that can be believed before one
        that cannot (:attr:`Outcome.doubt`), no failed requests before some, newest first."""
        found = [outcome for outcome in self.outcomes.get(task, []) if outcome.results is not None]
        return max(
            found,
            key=lambda outcome: (
                outcome.limit is None and not outcome.doubt,
                not outcome.doubt,
                outcome.failed_requests == 0,
                outcome.when,
            ),
            default=None,
        )

    def done(self, task: str, limit: int | float | None) -> bool:
        """Whether an earlier run answered ``task`` for a spec with ``limit``: results, no failed requests."""
        return any(
            outcome.results is not None
            and outcome.failed_requests == 0
            and not outcome.doubt
            and limit_covers(outcome.limit, limit)
            for outcome in self.outcomes.get(task, [])
        )

    def doubted(self, task: str, limit: int | float | None) -> Outcome | None:
        """When no earlier run answered ``task`` for a spec with ``limit`` (:meth:`done`), the newest that would have
        but cannot be believed (:attr:`Outcome.doubt`: why it runs again); None otherwise."""
        if self.done(task, limit):
            return None
        found = [o for o in self.outcomes.get(task, []) if o.doubt and limit_covers(o.limit, limit)]
        return max(found, key=lambda outcome: outcome.when, default=None)

    def answering(
        self, task: str, limit: int | float | None, readable: Callable[[int | float | None], bool] | None = None
    ) -> Outcome | None:
        """The run of ``task`` whose output its readers read for a spec with ``limit``: results without disagreement
        that answer ``limit`` (and, with ``readable``, whose limit it accepts: one its readers do not refuse,
        :func:`~abductive_tasks.runs.stage_limits.answering`), no failed requests before some, newest first (an
        output with failed items is read: they count as missing downstream); None when there is none."""
        usable = [
            outcome
            for outcome in self.outcomes.get(task, [])
            if outcome.results is not None
            and not outcome.doubt
            and limit_covers(outcome.limit, limit)
            and (readable is None or readable(outcome.limit))
        ]
        return max(usable, key=lambda outcome: (outcome.failed_requests == 0, outcome.when), default=None)

    def failed_run(self, task: str) -> bool:
        """Whether a matching run ended without results for ``task``."""
        return any(outcome.results is None for outcome in self.outcomes.get(task, []))

    def gone(self, task: str) -> Outcome | None:
        """A matching run whose results of ``task`` are gone since it ended (:attr:`Outcome.changed` says how: its
        sealed results file deleted); None when there is none."""
        return next((o for o in self.outcomes.get(task, []) if o.results is None and o.changed), None)


def task_state(scan: Scan, task: str, limit: int | float | None) -> str:
    """A pending task's state after its run: done, its failures (:func:`failures_text`), or failed."""
    best = scan.best(task)
    if scan.done(task, limit):
        return "done"
    if best is None or not best.failed_requests:
        return "failed"
    return failures_text(best.results or {}) or "failed"


def task_states(
    model_dir: Path, identity: Mapping, tasks: Iterable[str], limit_of: Callable[[str], int | float | None]
) -> dict[str, tuple[str, Outcome | None]]:
    """Per task of ``tasks``, after a run: its state (:func:`task_state`, for the limit ``limit_of`` it gives the task:
    :meth:`~abductive_tasks.runs.model_plan.ModelPlan.run_limit`) and the outcome a leaderboard cell shows
    (:meth:`Scan.best`), from the runs under ``model_dir`` whose identity matches ``identity``."""
    scan = scan_runs(model_dir, identity)
    best = {task: scan.best(task) for task in tasks}
    return {task: (task_state(scan, task, limit_of(task)), outcome) for task, outcome in best.items()}


def tasks_named(run: Path) -> set[str]:
    """The tasks a run folder's files name (samples files by name, results files by their ``results`` keys), read
    only to say what a run whose record is damaged held, never believed."""
    named = {
        path.name.split(SAMPLES_MARK, 1)[1].removesuffix(".jsonl") for path in run.rglob(f"*{SAMPLES_MARK}*.jsonl")
    }
    for path in run.rglob(f"*{RESULTS_SUFFIX}"):
        try:
            results = read_json_object(path).get("results")
        except DamagedFile:
            continue
        named |= set(results) if isinstance(results, dict) else set()
    return named


def scan_runs(model_dir: Path, identity: Mapping) -> Scan:
    """Read every run under ``model_dir/runs`` whose identity matches ``identity`` for some task;
    never raises for bad files."""
    scan = Scan()
    digest = functools.cache(file_sha256)
    wanted = {task: task_key(identity, task) for task in identity["tasks"]}
    runs_dir = model_dir / RUNS_DIR
    for run in sorted(runs_dir.iterdir()) if runs_dir.is_dir() else ():
        if not run.is_dir() or run.name.endswith(QUARANTINED):
            continue
        try:
            record = IdentityRecord.read(run / RUN_RECORD)
        except DamagedFile as error:
            if (run / RUN_RECORD).exists():
                scan.damaged.append(error)
                for task in tasks_named(run):
                    scan.unread.setdefault(task, []).append(run)
            continue  # no record yet: a run being started
        if record.model != model_dir.name:
            scan.foreign.append(
                f"{run}: a run of model {record.model!r}, not {model_dir.name!r} (copied in?): not read; fix: move it "
                f"out of {runs_dir}"
            )
            continue
        tasks = [  # no key (an identity of an earlier schema) matches nothing, another keyless one neither
            task
            for task in record.tasks
            if wanted.get(task) is not None and task_key(record.identity, task) == wanted[task]
        ]
        if not tasks:
            continue
        found: dict[str, Outcome] = {}
        for path in sorted(run.rglob(f"*{RESULTS_SUFFIX}")):
            try:
                raw = read_json_object(path)
                results = _checked_results(path, raw)
                if (why := other_model(raw, record.identity)) is not None:  # copied in from another model's run
                    raise DamagedFile(path, why)
            except DamagedFile as error:
                scan.damaged.append(error)
                continue
            when = path.stat().st_mtime
            for task in tasks:
                if task in results and (task not in found or found[task].when <= when):
                    limit, disagreement = ran(raw, path, task, record.limit, record.exit_status == 0)
                    changed = seal_broken(record, run, path, task, digest)
                    found[task] = Outcome(
                        run, limit, results[task], path, failed_requests(results[task]), when, disagreement, changed
                    )
        deleted = [
            name for name in record.outputs or {} if name.endswith(RESULTS_SUFFIX) and not (run / name).is_file()
        ]
        for task in tasks:
            if task in found:
                scan.outcomes.setdefault(task, []).append(found[task])
            elif record.exit_status is not None:  # ended without results for the task, or they were deleted since
                gone = "set aside as damaged" if any(_set_aside(run / name) for name in deleted) else "deleted"
                why = f"changed since its run ended: its results file was {gone}" if deleted else None
                scan.outcomes.setdefault(task, []).append(Outcome(run, record.limit, changed=why))
    return scan


def _set_aside(path: Path) -> bool:
    """Whether the batch set the file at ``path`` aside as damaged (``<name>[.N].damaged`` beside it)."""
    return any(other.name.startswith(f"{path.name}.") for other in path.parent.glob(f"*{QUARANTINED}"))
