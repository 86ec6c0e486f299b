"""Where a leaderboard's numbers come from, said on every artifact: a short header block and a footnote.

Read from each row's batch spec record (:mod:`abductive_tasks.runs.identity_record`), whose identity every shown
cell's run matches: per benchmark each data version (its source as ``ABDUCTIVE_DATA`` selected it and its
fingerprint: the first 12 hex digits of the hash of its annotation and image files, :func:`.cells.data_key`; the
whole hashes in ``leaderboard.json``) with the rows on it when there are several; the abductive-tasks and
lmms-eval versions; each task's ``metadata: version``; per model the weights it ran (a local folder's content
digest, a hub model's revision) and the judge; the dates of the runs behind the cells and of the report.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from abductive_tasks.lmms_source import own_model_versions
from abductive_tasks.reports.leaderboard.cells import Leaderboard, data_key, protocol_settings, settings_key
from abductive_tasks.runs.catalog import heading
from abductive_tasks.runs.chain import PENDING
from abductive_tasks.runs.history import HIDDEN
from abductive_tasks.runs.identity import BACKEND
from abductive_tasks.runs.identity_record import RUN_RECORD, DamagedFile, IdentityRecord

SHORT = 12  # hex digits of a digest shown in the tables
DIGEST = re.compile(r"[0-9a-f]{12,}")  # a stage output's or a variable's digest as recorded (hex, 12 digits or more)


@dataclass
class DataVersion:
    """One version of a benchmark's data: what ``ABDUCTIVE_DATA`` selected, its fingerprint and the rows on it."""

    label: str  # "data A" (the most rows), "data B", ...; "" when the benchmark's rows all ran on it
    source: str  # "sample", "hub", or the folder given
    fingerprint: str
    files: str  # "1 annotation file, 36 images"
    models: list[str]
    hashes: dict[str, str] = field(default_factory=dict)  # annotations_sha256, images_sha256 in full


@dataclass
class SettingsVersion:
    """One set of score settings the rows ran with (:func:`~.cells.settings_key`): the score-changing variables set
    (:func:`~.cells.protocol_settings`), the judge, and the rows."""

    label: str  # "settings A" (the most rows), "settings B", ...; "" when every row ran with it
    settings: dict[str, str]
    judge: str
    models: list[str]

    def text(self) -> str:
        """``ABDUCTIVE_BOOTSTRAP=20, judge none``; ``defaults`` for no variable set."""
        chosen = ", ".join(f"{name}={value}" for name, value in self.settings.items()) or "defaults"
        return f"{chosen}, judge {self.judge}"


@dataclass
class Provenance:
    """What a leaderboard is a leaderboard of."""

    built: str  # when the report was made (UTC)
    runs: tuple[str, str] | None  # the dates of the oldest and the newest run behind a cell
    versions: dict[str, dict[str, list[str]]]  # package -> version -> models
    tasks: dict[str, dict[str, list[str]]]  # task -> version -> models
    data: dict[str, list[DataVersion]]  # benchmark -> its data versions
    models: dict[str, dict[str, str]]  # model -> backend, weights, judge
    settings: dict[str, list[SettingsVersion]] = field(
        default_factory=dict
    )  # benchmark -> the score settings (those that can change its scores) and judges its rows ran with


def _by_value(pairs: Iterable[tuple[str, str, str]]) -> dict[str, dict[str, list[str]]]:
    """(key, value, model) triples as key -> value -> models."""
    found: dict[str, dict[str, list[str]]] = {}
    for key, value, model in pairs:
        found.setdefault(key, {}).setdefault(value, []).append(model)
    return found


def _source(fingerprint: dict) -> str:
    source = str(fingerprint.get("source") or "?")
    return "embedded sample" if source == "sample" else "official source (hub)" if source == "hub" else source


IMAGES_INSIDE = frozenset({"mucr"})  # benchmarks whose annotation files hold their images (MuCR's parquet files)


def _files(fingerprint: dict, benchmark: str) -> str:
    if "error" in fingerprint:
        return f"unusable: {fingerprint['error']}"
    annotations, images = fingerprint.get("annotation_files", 0), fingerprint.get("image_files", 0)
    files = f"{annotations} annotation file{'s' * (annotations != 1)}"
    if not images and annotations and benchmark in IMAGES_INSIDE:  # another's 0 images: missing ones, said so
        return f"{files}, images inside {'it' if annotations == 1 else 'them'}"
    return f"{files}, {images} image{'s' * (images != 1)}"


def weights_text(weights: dict | None) -> str:
    """A model's weights as the tables say them: a content digest, a hub revision, none, or not recorded."""
    if weights is None:
        return "weights not recorded"
    if not weights:
        return "no weights"
    if "sha256" in weights:
        return f"weights {weights['name']} sha256:{weights['sha256'][:SHORT]}"
    return f"weights {weights['name']}@{str(weights.get('revision', '?'))[:SHORT]}"


def _object_at(record: dict, key: str) -> dict:
    """``record[key]`` when it is an object (a dict), else an empty one."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def judge_text(judge: object) -> str:
    if not isinstance(judge, dict) or not judge:
        return "none"
    served = _object_at(judge, "vllm")
    return str(judge.get("model_version") or served.get("model") or judge.get("url") or "configured")


def _run_date(stamp: str) -> str:
    """``2026-11-29`` from a results file named ``20261129_124057_results.json``; '' when it is not so named."""
    try:
        return datetime.datetime.strptime(stamp[:8], "%Y%m%d").date().isoformat()
    except ValueError:
        return ""


def run_time(stamp: str, timezone: str | None) -> str:
    """``2026-12-04 20:28 UTC`` from lmms-eval's ``20261205_042800`` written in ``timezone`` (its ``--timezone``, which
    lmms-eval 0.7.3 records; plain lmms-eval's default is UTC+8, abductive-eval's UTC): a date read as written was a
    day off; '' when the stamp cannot be read or no time zone is recorded (the date is then shown as written)."""
    import zoneinfo

    if not timezone:
        return ""
    try:
        written = datetime.datetime.strptime(stamp[:15], "%Y%m%d_%H%M%S")
        zone = zoneinfo.ZoneInfo(timezone)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return ""
    return written.replace(tzinfo=zone).astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def versions_with_backend(identity: dict) -> dict[str, object]:
    """An identity's package versions with the backend its model ran, every one: a backend of ours as its identity
    records it (``backend <name>``: its version, :func:`~abductive_tasks.runs.identity.backend_versions`), lmms-eval's
    own (``dummy``, ``llava_hf``: versioned with lmms-eval, so none recorded) as ``of lmms-eval <version>``."""
    versions = dict(identity.get("versions") or {})
    backend = str(_object_at(identity, "model").get("backend") or "")
    if backend and BACKEND.format(backend) not in versions:
        ours = backend in own_model_versions()  # one of ours recorded without a version: run before they had one
        versions[BACKEND.format(backend)] = "unversioned" if ours else f"of lmms-eval {versions.get('lmms-eval', '?')}"
    return versions


def provenance(board: Leaderboard, now: datetime.datetime | None = None) -> Provenance:
    """The provenance of ``board``'s rows (see the module docstring)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    records = {model: board.records[model] for model in board.rows if model in board.records}
    versions = _by_value(
        (package, str(version), model)
        for model, record in records.items()
        for package, version in versions_with_backend(record.identity).items()
    )
    tasks = _by_value(
        (task, str(entry.get("version")), model)
        for model, record in records.items()
        for task, entry in (record.identity.get("tasks") or {}).items()
        if task in board.tasks and isinstance(entry, dict)
    )
    data: dict[str, list[DataVersion]] = {}
    for benchmark in dict.fromkeys(board.benchmarks[task] for task in board.tasks if task in board.benchmarks):
        labels = board.data_versions(benchmark)
        seen: dict[str, DataVersion] = {}
        for model, record in records.items():
            fingerprint = (record.identity.get("data") or {}).get(benchmark)
            if not isinstance(fingerprint, dict):
                continue
            key = data_key(fingerprint)
            if key not in seen:
                hashes = {
                    name: str(fingerprint[name])
                    for name in ("annotations_sha256", "images_sha256")
                    if name in fingerprint
                }
                files = _files(fingerprint, benchmark)
                seen[key] = DataVersion(labels.get(key, ""), _source(fingerprint), key, files, [], hashes)
            seen[key].models.append(model)
        data[benchmark] = sorted(seen.values(), key=lambda version: version.label)
    dates = sorted(
        date for model in board.rows for path in board.sources.get(model, {}).values() if (date := _run_date(path.name))
    )
    models = {
        model: {
            "backend": str((record.identity.get("model") or {}).get("backend") or ""),
            "weights": weights_text(record.weights),
            "judge": judge_text(record.identity.get("judge")),
        }
        for model, record in records.items()
    }
    return Provenance(
        built=now.strftime("%Y-%m-%d %H:%M UTC"),
        runs=(dates[0], dates[-1]) if dates else None,
        versions=versions,
        tasks=tasks,
        data=data,
        models=models,
        settings=settings_versions(board, records),
    )


def settings_versions(board: Leaderboard, records: dict[str, IdentityRecord]) -> dict[str, list[SettingsVersion]]:
    """Per benchmark, the score settings (those that can change its scores) and judges its rows ran with, each once
    with its rows, labelled as the cells are (:meth:`~.cells.Leaderboard.settings_versions`)."""
    found = {}
    for benchmark in dict.fromkeys(board.benchmarks[task] for task in board.tasks if task in board.benchmarks):
        labels = board.settings_versions(benchmark)
        seen: dict[str, SettingsVersion] = {}
        for model, record in records.items():
            if benchmark not in board.settings.get(model, {}):
                continue
            key = settings_key(record.identity, benchmark)
            if key not in seen:
                judge = judge_text(record.identity.get("judge"))
                chosen = protocol_settings(record.identity, benchmark)
                seen[key] = SettingsVersion(labels.get(key, ""), chosen, judge, [])
            seen[key].models.append(model)
        found[benchmark] = sorted(seen.values(), key=lambda version: version.label)
    return found


def _versions_text(by_version: dict[str, list[str]], everyone: int) -> str:
    """``0.7.3``, or ``0.7.3 (a, b), 0.7.2 (c)`` when rows differ."""
    if len(by_version) == 1 and len(next(iter(by_version.values()))) == everyone:
        return next(iter(by_version))
    return ", ".join(f"{version} ({', '.join(models)})" for version, models in by_version.items())


def header_lines(found: Provenance, rows: int) -> list[str]:
    """The block above the table: the report's and the runs' dates, the package versions, each benchmark's data."""
    runs = (
        ""
        if found.runs is None
        else f"; runs {found.runs[0]}" + (f" to {found.runs[1]}" if found.runs[1] != found.runs[0] else "")
    )
    packages = ", ".join(f"{package} {_versions_text(by, rows)}" for package, by in found.versions.items())
    lines = [f"Built {found.built}{runs}; {packages}." if packages else f"Built {found.built}{runs}."]
    for benchmark, versions in found.data.items():
        described = [
            (f"{version.label}: " if version.label else "")
            + f"{version.source}, fingerprint {version.fingerprint} ({version.files})"
            + (f" — {', '.join(version.models)}" if version.label else "")
            for version in versions
        ]
        lines.append(f"Data, {heading(benchmark)}: " + "; ".join(described) + ".")
    for benchmark, sets in found.settings.items():
        if any(each.label for each in sets):
            listed = [f"{each.label}: {each.text()} — {', '.join(each.models)}" for each in sets]
            lines.append(f"Score settings, {heading(benchmark)}: " + "; ".join(listed) + ".")
    return lines


def footnote_lines(found: Provenance) -> list[str]:
    """Below the table: the task versions, and per model its weights and judge."""
    tasks = ", ".join(f"{task} {_versions_text(by, len(by_models(by)))}" for task, by in found.tasks.items())
    models = "; ".join(
        f"{model} ({facts['backend']}: {facts['weights']}; judge: {facts['judge']})"
        for model, facts in found.models.items()
    )
    lines = [f"Task versions: {tasks}." if tasks else "", f"Models: {models}." if models else ""]
    if any(version.label for versions in found.data.values() for version in versions):
        lines.append(
            "A cell marked (data B) or later ran on another data version than (data A), as the header says: it is "
            "ranked and compared only with the rows on its own data."
        )
    if any(version.label for versions in found.settings.values() for version in versions):
        lines.append(
            "A cell marked (settings B) or later ran with other score settings (those that can change its benchmark's "
            "scores) or another judge than (settings A), as the header says: it is ranked and compared only with the "
            "rows of its own settings, and its row is not ranked."
        )
    return [line for line in lines if line]


def by_models(by_version: dict[str, list[str]]) -> list[str]:
    return [model for models in by_version.values() for model in models]


def as_json(found: Provenance) -> dict:
    """``leaderboard.json``'s ``provenance``: every fact in full (whole hashes)."""
    return asdict(found)


def _data_lines(fingerprints: dict) -> list[str]:
    return [
        f"Data, {heading(benchmark)}: {_source(print_)}, fingerprint {data_key(print_)} ({_files(print_, benchmark)})"
        for benchmark, print_ in fingerprints.items()
        if isinstance(print_, dict)
    ]


def _record_near(results_path, name: str, levels: int) -> IdentityRecord | None:
    """A batch record named ``name`` in the results file's folder or up to ``levels`` above it (None: not a batch
    run, or a damaged record)."""
    for folder in list(results_path.parents)[:levels]:
        if (folder / name).is_file():
            try:
                return IdentityRecord.read(folder / name)
            except DamagedFile:
                return None
    return None


def run_data(run: dict, results_path: Path) -> dict:
    """Per benchmark the data fingerprint a run recorded (with its ``source``, as ``ABDUCTIVE_DATA`` selected it):
    from the batch's run record where the run is a batch's, else from what ``abductive-eval`` added to the results
    JSON; {} when neither recorded it (a run of plain lmms-eval)."""
    batch = _record_near(results_path, RUN_RECORD, 2)
    data = (batch.identity if batch else {}).get("data") or _object_at(run, "abductive_tasks").get("data")
    return dict(data) if isinstance(data, dict) else {}


def run_settings(run: dict, results_path: Path) -> dict[str, str]:
    """The score-changing ``ABDUCTIVE_*`` settings (``ABDUCTIVE_DATA`` aside: :func:`run_data`) a run recorded: a
    batch's in its identity, else what ``abductive-eval`` added to the results JSON (0.1.30 on); a local file's path
    without its content digest; {} when neither recorded any. A value held as a secret's hash is left out: no command
    can set it."""
    batch = _record_near(results_path, RUN_RECORD, 2)
    recorded = (batch.identity if batch else {}).get("settings") or _object_at(run, "abductive_tasks").get("settings")
    if not isinstance(recorded, dict):
        return {}
    return {
        str(name): str(value).partition("@sha256:")[0]
        for name, value in sorted(recorded.items())
        if str(name).startswith("ABDUCTIVE_") and value is not None and not HIDDEN.search(str(value))
    }


def _run_weights(record: IdentityRecord) -> dict | None:
    """The weights a batch's run ran: as its record says at its end, else as its identity names them (by content,
    a hub model's revision as asked); None for a run recorded before either (never the spec's weights of today)."""
    if record.weights is not None:
        return record.weights
    named = _object_at(record.identity, "model").get("weights")
    return named if isinstance(named, dict) else None


def run_lines(run: dict, results_path) -> list[str]:
    """What one run is a run of, for ``abductive-eval show``: its date and the package versions, the data of each
    benchmark (source and fingerprint), the model's weights and the judge, the task versions, the score-changing
    settings and what chained tasks read. From the batch's run
    record where the run is a batch's, else from what ``abductive-eval`` added to the results JSON; lmms-eval's own
    record (date, its version, task versions, model arguments) for the rest."""
    stamp = str(run.get("date") or results_path.name)
    ours = _object_at(run, "abductive_tasks")
    batch = _record_near(results_path, RUN_RECORD, 2)
    identity = batch.identity if batch else {}
    versions = dict(identity.get("versions") or ours.get("versions") or {})
    versions.setdefault("abductive-tasks", "not recorded")
    lmms = str(run.get("lmms_eval_version") or "")
    versions.setdefault("lmms-eval", lmms if lmms and not lmms.startswith("unknown") else "not recorded")
    config = _object_at(run, "config")
    model = f"{config.get('model') or '?'}" + (f" ({config['model_args']})" if config.get("model_args") else "")
    data = run_data(run, results_path)
    tasks = ", ".join(f"{task} {version}" for task, version in sorted((run.get("versions") or {}).items()))
    judge = identity.get("judge") if batch else ours.get("judge")
    timezone = _object_at(config, "resolved_cli_args").get("timezone")
    lines = [
        f"Run {run_time(stamp, str(timezone) if timezone else None) or _run_date(stamp) or stamp}; "
        + ", ".join(f"{package} {version}" for package, version in versions.items()),
        *(_data_lines(data) or ["Data: not recorded (runs of abductive-eval record it)"]),
        f"Model: {model}; {weights_text(_run_weights(batch) if batch else ours.get('weights'))}; judge: "
        + (judge_text(judge) if batch or "judge" in ours else "not recorded"),
    ]
    tasks_read = _object_at(identity, "tasks") if batch else {}
    inputs = {
        task: entry["inputs"] for task, entry in tasks_read.items() if isinstance(entry, dict) and entry.get("inputs")
    }
    chosen = run_settings(run, results_path)
    return (
        lines
        + ([f"Task versions: {tasks}"] if tasks else [])
        + ([f"Settings: {', '.join(f'{name}={value}' for name, value in chosen.items())}"] if chosen else [])
        + input_lines(inputs or _object_at(ours, "inputs"))
    )


def input_lines(inputs: dict) -> list[str]:
    """What each chained task of a run read from other runs, by content (a run record's ``tasks.<task>.inputs``, or
    what ``abductive-eval`` added to the results JSON): ``Reads, mucr_exp: picks of mucr_c2e <digest>``, the model
    named on purpose (a describer) or the variable named, why nothing was read, or what of the record is malformed."""
    lines = []
    for task, reads in sorted(inputs.items()):
        if not isinstance(reads, dict) or not reads:
            lines.append(f"Reads, {task}: malformed record ({_shown(reads)}; expected upstream task -> what it read)")
        else:
            lines.append(
                f"Reads, {task}: " + "; ".join(_read(upstream, entry) for upstream, entry in sorted(reads.items()))
            )
    return lines


def _read(upstream: str, entry: object) -> str:
    """What a chained task read from ``upstream`` (:func:`~abductive_tasks.runs.chain.task_inputs`' ``entry``)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str) or not entry["kind"]:
        return f"{upstream}: malformed entry ({_shown(entry)}; expected its kind and digest)"
    what = f"{entry['kind']} of {upstream}"
    if entry.get("error"):
        return f"{what}: unusable ({entry['error']})"
    if entry.get("files") == 0:  # a store a variable names, holding nothing: its digest is that of no bytes
        return f"{what}: none stored under {entry.get('name')!r} (from {entry.get('from')})"
    digest = entry.get("digest", entry.get("sha256"))
    if digest == PENDING:
        return f"{what}: none given"
    if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
        return f"{what}: malformed entry (digest {_shown(digest)}; expected hex digits)"
    source = entry.get("model") or ("" if entry.get("from") == "run" else entry.get("from"))
    return f"{what} {digest[:SHORT]}" + (f" (from {source})" if source else "")


def _shown(value: object) -> str:
    """A malformed value as a message shows it: its type and up to 60 characters."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"
