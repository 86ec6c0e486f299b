"""Collecting the leaderboard's cells: one row per batch model folder, each cell from the runs matching its spec
identity, checked against its samples and for staleness, or marked with why it is not a score."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.inputs.loading import ENV_VAR, DataError
from abductive_tasks.inputs.stages import stored_bindings
from abductive_tasks.lmms_source import RESULTS_SUFFIX, samples_path
from abductive_tasks.mucr import scene_graphs
from abductive_tasks.nleye import descriptions
from abductive_tasks.reports.compare import CompareError, Inconsistent, estimate_from_run
from abductive_tasks.reports.plots import PERCENT_FACTOR
from abductive_tasks.runs import chain, stage_limits
from abductive_tasks.runs.catalog import COVERAGE_KINDS
from abductive_tasks.runs.history import Outcome, Scan, failures_text, scan_runs
from abductive_tasks.runs.identity import (
    SCHEMA,
    backend_versions,
    bound_to_model,
    data_content,
    data_fingerprint,
    of_this_schema,
    package_versions,
)
from abductive_tasks.runs.identity_record import SPEC_RECORD, DamagedFile, IdentityRecord
from abductive_tasks.runs.task_index import UPPER_BOUND_LABEL, TaskFacts, TaskIndex, TaskIndexError
from abductive_tasks.scoring.coverage import dropped_units
from abductive_tasks.scoring.scales import declared_scale as metric_scale
from abductive_tasks.scoring.stats import Estimate


def _stage_limit(identity: dict, upstream: str, limit: int | float | None, environment: dict) -> int | float | None:
    """The ``--limit`` the batch gave a run of ``upstream`` whose readers ran with ``limit``
    (:meth:`~abductive_tasks.runs.model_plan.ModelPlan.run_limit`), on the data its spec record's identity names;
    ``limit`` when that data cannot be read now."""
    benchmark = (identity.get("tasks", {}).get(upstream) or {}).get("benchmark")
    data = (identity.get("data") or {}).get(benchmark)
    source = data.get("source") if isinstance(data, dict) else None
    if isinstance(source, str):
        environment = {**environment, ENV_VAR: "" if source == "hub" else source}
    try:
        return stage_limits.stage_limits([upstream], limit, environment).get(upstream, limit)
    except DataError:
        return limit


@dataclass
class Leaderboard:
    """Our runs: ``rows[model][task]`` is that task's results dict (``"<metric>,none"`` keys), for scores only."""

    rows: dict[str, dict[str, dict]]
    tasks: list[str]  # leaderboard columns, in the `abductive` suite's order
    headline: dict[str, str]  # task -> headline metric
    higher_is_better: dict[str, bool]  # task -> direction of its headline metric
    marks: dict[str, dict[str, str]] = field(default_factory=dict)  # model -> task -> why the cell is not a score
    upper_bounds: set[str] = field(default_factory=set)  # tasks that bound the paper's number: labelled, never averaged
    stages: set[str] = field(default_factory=set)  # stage tasks whose headline is coverage: labelled, never averaged
    upstream_only: set[str] = field(default_factory=set)  # run only as another's upstream, asked by no row's spec:
    # shown, labelled, never averaged or ranked by
    notes: list[str] = field(default_factory=list)  # what was not read, by path, and the command that fixes it
    sources: dict[str, dict[str, Path]] = field(default_factory=dict)  # model -> task -> the results file of the cell
    data: dict[str, dict[str, str]] = field(default_factory=dict)  # model -> task -> data_key of the row's data
    estimates: dict[tuple[str, str], Estimate] = field(default_factory=dict)  # cells recomputed from their samples
    records: dict[str, IdentityRecord] = field(
        default_factory=dict
    )  # model -> its batch spec record (identity, weights)
    benchmarks: dict[str, str] = field(default_factory=dict)  # task -> the benchmark whose data it reads
    reads: dict[str, dict[str, dict[str, str]]] = field(
        default_factory=dict
    )  # model -> task -> kind -> whose outputs the cell read, where not the row's own (:func:`_read_from`)
    settings: dict[str, dict[str, str]] = field(
        default_factory=dict
    )  # model -> benchmark -> settings_key of the score settings and judge its cells of that benchmark ran with

    def data_versions(self, benchmark: str) -> dict[str, str]:
        """The data versions a benchmark's rows ran on: data key -> label ("data A": the most rows first); {} when
        every row ran on the same data."""
        keys = [
            next(
                (key for task, key in self.data.get(model, {}).items() if self.benchmarks.get(task) == benchmark), None
            )
            for model in self.rows
        ]
        return lettered(keys, "data")

    def settings_versions(self, benchmark: str) -> dict[str, str]:
        """The score settings a benchmark's rows ran with (:func:`settings_key`: those that can change its scores):
        key -> label ("settings A": the most rows first); {} when every row ran with the same."""
        return lettered([self.settings.get(model, {}).get(benchmark) for model in self.rows], "settings")

    def settings_of(self, model: str, task: str) -> str | None:
        """The :func:`settings_key` of the row's cells of ``task``'s benchmark (None: the row ran none)."""
        return self.settings.get(model, {}).get(self.benchmarks.get(task, task))

    def settings_group(self, model: str, task: str) -> str | None:
        """The cell's settings label when ``task``'s benchmark's rows ran with different score settings or judges,
        else None. Cells of different groups are never ranked or compared together."""
        return self.settings_versions(self.benchmarks.get(task, task)).get(self.settings_of(model, task) or "")

    def data_groups(self, task: str) -> dict[str, str]:
        """The data versions of ``task``'s rows when its benchmark's rows ran on more than one (labels as
        :meth:`data_versions`, so a cell's label is the one the report's header names); {} otherwise. Rows of
        different groups are never ranked or compared together."""
        present = {self.data.get(model, {}).get(task) for model in self.rows}
        return {
            key: label for key, label in self.data_versions(self.benchmarks.get(task, task)).items() if key in present
        }

    def data_group(self, model: str, task: str) -> str | None:
        """The row's data label for ``task`` when the task's rows ran on different data, else None."""
        return self.data_groups(task).get(self.data.get(model, {}).get(task))

    def read_from(self, model: str, task: str) -> dict[str, str]:
        """Whose outputs the cell read, per kind (``{"descriptions": "dd"}``), where they are not the row's own; {}
        for a cell on its own outputs or a task that reads none."""
        return self.reads.get(model, {}).get(task, {})

    def labels(self, model: str, task: str) -> list[str]:
        """What sets the cell apart from the task's other cells: its data version ("data B") when the task's rows ran
        on more than one, its score settings ("settings B") when the benchmark's rows ran with more than one, and whose
        outputs it read where another's ("descriptions: dd")."""
        group, setup = self.data_group(model, task), self.settings_group(model, task)
        return [label for label in (group, setup, read_text(self.read_from(model, task))) if label]

    def protocol(self, model: str, task: str) -> tuple:
        """Cells of ``task`` with the same key are one protocol, ranked and compared together: the same data, the
        same score settings and judge, and the same outputs read (each its own, or the same other model's)."""
        read = tuple(sorted(self.read_from(model, task).items()))
        return self.data.get(model, {}).get(task), self.settings_of(model, task), read

    def main_protocol(self, model: str, task: str) -> bool:
        """Whether the cell is on the protocol the rows are ranked by: the data and the score settings most rows ran
        with, its own outputs read."""
        setup = self.settings_group(model, task)
        first = self.data_group(model, task) in (None, "data A") and setup in (None, "settings A")
        return first and not self.read_from(model, task)

    def upper_bound(self, task: str) -> bool:
        """Whether the task bounds the paper's number (its YAML's ``metadata: upper_bound``, as ``mucr_exp_gold``):
        what every table, export and plot says of its column."""
        return task in self.upper_bounds

    def caveat(self, task: str) -> str:
        """What the task's column is, where not a score of the benchmark's protocol (never averaged): '' otherwise."""
        if self.upper_bound(task):
            return UPPER_BOUND
        if task in self.stages:
            return STAGE_COVERAGE
        return UPSTREAM_ONLY if task in self.upstream_only else ""

    def bold_best(self, task: str) -> bool:
        """Whether the task's best value and those tied with it are shown bold: not for an upper bound nor a stage's
        coverage, which are no scores of the protocol (a best there is no best model)."""
        return self.caveat(task) not in (UPPER_BOUND, STAGE_COVERAGE)

    def value(self, model: str, task: str, metric: str | None = None) -> float | None:
        return self.rows[model].get(task, {}).get(f"{metric or self.headline[task]},none")

    def interval(self, model: str, task: str, metric: str | None = None) -> dict:
        """The cell's ``<prefix>_ci95`` entry (lower, upper, stderr, units, resamples, chance); {} when none."""
        metric = metric or self.headline[task]
        for key, value in self.rows[model].get(task, {}).items():
            if key.endswith("_ci95,none") and isinstance(value, dict) and isinstance(value.get(metric), dict):
                return value[metric]
        return {}

    def chance(self, task: str, metric: str | None = None) -> float | None:
        """The task's random-answer level of ``metric`` (the headline by default), as its results report it."""
        return next(
            (
                entry["chance"]
                for model in self.rows
                if (entry := self.interval(model, task, metric)).get("chance") is not None
            ),
            None,
        )

    def factor(self, task: str) -> float:
        """What turns the task's headline into the table's scale: percent (as the run summary prints), raw for
        ranks, correlations and other metrics that are not proportions."""
        return PERCENT_FACTOR.get(metric_scale(self.headline[task], "raw"), 1.0)

    def percent(self, task: str) -> bool:
        return metric_scale(self.headline[task], "raw") in PERCENT_FACTOR

    def shown(self, model: str, task: str) -> tuple[float | None, float | None, float | None]:
        """The cell's value and interval bounds on the table's scale (None where absent)."""
        factor, entry = self.factor(task), self.interval(model, task)
        value = self.value(model, task)
        return tuple(
            None if number is None or not is_number(number) else number * factor
            for number in (value, entry.get("lower"), entry.get("upper"))
        )  # type: ignore[return-value]

    def cell(self, model: str, task: str) -> str:
        """The table cell: the headline score (percent, or raw where labelled) and its interval at a precision
        the interval supports, or what stands in its place."""
        mark = self.marks.get(model, {}).get(task)
        if mark:
            return mark
        value, lower, upper = self.shown(model, task)
        digits = precision(lower, upper, self.percent(task))
        bounds = f" [{number_text(lower, digits)}, {number_text(upper, digits)}]" if lower is not None else ""
        labels = self.labels(model, task)
        return number_text(value, digits) + bounds + (f" ({'; '.join(labels)})" if labels else "")

    def breakdowns(self) -> dict[tuple[str, str], dict[str, dict[str, dict]]]:
        """``{(task, metric): {model: {label: {"acc", "n", ...}}}}`` for every dict-valued metric."""
        found: dict[tuple[str, str], dict[str, dict]] = {}
        for model, tasks in self.rows.items():
            for task in self.tasks:
                for key, value in tasks.get(task, {}).items():
                    name, _, filter_ = key.partition(",")
                    if filter_ and is_breakdown(value):
                        found.setdefault((task, name), {})[model] = value
        return found


# The caveat of a column no row's spec asked for: the batch ran it only because an asked task reads its outputs
# (mucr_cue for mucr_exp). Real runs of the model, shown; not averaged, as the spec did not ask for them.
UPSTREAM_ONLY = "upstream only, not asked by the spec"
# The caveat of a task that bounds the paper's number (Leaderboard.upper_bound): mucr_exp_gold, on the gold effect and
# cue where the paper's Exp explains the model's own picks (mucr_exp).
UPPER_BOUND = UPPER_BOUND_LABEL
# The caveat of a stage whose headline is its coverage (nleye_describe's described_rate, the CCoT graph stages'
# scene_graph_rate): the share of documents the stage answered, not right answers.
STAGE_COVERAGE = "stage coverage, not a score"
STORES = {"descriptions": descriptions.STORE, "graphs": scene_graphs.STORE}  # the named stores a variable can name
STAGE_VARIABLES = frozenset(name for names in chain.VARIABLES.values() for name in names)  # naming what is read


def is_breakdown(value: object) -> bool:
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(cell, dict) and "acc" in cell for cell in value.values())
    )


def _mark(outcome: Outcome) -> str | None:
    """Why an outcome is not a score (None: it is one)."""
    reasons = [f"limited (limit={outcome.limit})"] if outcome.limit is not None else []
    dropped = dropped_units(outcome.results or {})
    reasons += [f"partial ({', '.join(f'{count} {label}' for label, count in dropped.items())})"] if dropped else []
    reasons += ["counts disagree"] if outcome.disagreement else []
    reasons += ["changed since its run"] if outcome.changed else []
    reasons += [failures_text(outcome.results or {})] if outcome.failed_requests and outcome.results else []
    return "; ".join(reasons) or None


def _read_from(model: str, identity: dict, entry: dict, writers: Callable[[dict], list[dict]]) -> dict[str, str]:
    """Whose outputs a chained task read, per kind, where they are not ``model``'s own (its identity entry's
    ``inputs``, :func:`~abductive_tasks.runs.chain.task_inputs`): the model a spec names as their source (a
    ``describer``), or what a variable names (a folder of picks, or a store: the row's own only when every entry
    ``writers(read)`` finds in it is bound to the model of the row's ``identity``, whatever the store's name and the
    lmms-eval arguments its writer ran with: :func:`~abductive_tasks.runs.identity.bound_to_model`)."""
    found = {}
    for read in (entry.get("inputs") or {}).values():
        if read.get("from") == "run":
            source = read.get("model") or model
        elif read.get("name"):
            bound = writers(read)
            own = bool(bound) and all(bound_to_model(binding, identity) for binding in bound)
            source = model if own else _store_text(read, bound)
        else:
            source = str(read.get("from"))
        if source != model:
            found[str(read.get("kind"))] = source
    return found


def _store_text(read: dict, bound: list[dict]) -> str:
    """A store another model wrote, as a cell names it: ``dp (ABDUCTIVE_NLEYE_DESCRIPTIONS, by random_baseline)``, the
    models its entries are bound to (none named: stored by runs that recorded none)."""
    models = sorted({str(binding["model"]) for binding in bound if binding.get("model")})
    return f"{read['name']} ({read.get('from')}" + (f", by {', '.join(models)}" if models else "") + ")"


def store_writers(kind: str, name: str, root: Path) -> list[dict]:
    """The bindings of the runs whose entries are stored under ``name`` in the ``kind`` store of the cache at ``root``
    (:func:`~abductive_tasks.inputs.stages.stored_bindings`)."""
    return stored_bindings(STORES[kind], name, root)


def protocol_settings(identity: dict, benchmark: str) -> dict[str, str]:
    """The score settings a row's cells of ``benchmark`` ran with: its identity's score-changing variables
    (:func:`~abductive_tasks.runs.identity.score_settings`) that can change that benchmark's scores (each variable's
    ``benchmarks``, :data:`abductive_tasks.settings.VARIABLES`; one not declared there counts for every benchmark) but
    those naming what a reader reads (:func:`_read_from` says that)."""
    return {
        name: value
        for name, value in (identity.get("settings") or {}).items()
        if name not in STAGE_VARIABLES and benchmark in (_applies(name) or (benchmark,))
    }


def _applies(name: str) -> tuple[str, ...]:
    """The benchmarks variable ``name`` can change the scores of (): every benchmark, or a variable not declared."""
    declared = settings.VARIABLES.get(name)
    return declared.benchmarks if declared is not None else ()


def settings_key(identity: dict, benchmark: str) -> str:
    """A short name for a row's :func:`protocol_settings` of ``benchmark`` and its judge (which can read any task's
    answers, ABDUCTIVE_JUDGE_EXTRACT, and its task facts do not say which tasks it judges): cells with different ones
    are other protocols."""
    payload = {"settings": protocol_settings(identity, benchmark), "judge": identity.get("judge")}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:12]


def lettered(keys: list[str | None], word: str) -> dict[str, str]:
    """``keys`` (one a row; None: none) as labels ``"<word> A"`` (the most rows), ``"<word> B"``, ... (ties: the
    first row first); {} when there are fewer than two."""
    counts = {key: keys.count(key) for key in keys if key is not None}
    if len(counts) < 2:
        return {}
    ordered = sorted(counts, key=lambda key: (-counts[key], keys.index(key)))
    return {key: f"{word} {chr(ord('A') + index)}" for index, key in enumerate(ordered)}


def _fix(record: IdentityRecord, results_dir: Path | None = None) -> str:
    """The command that recomputes a model's results; where the spec writes to another folder than ``results_dir``
    (the folder shown is a copy), the spec's ``output_dir`` to set: the spec as it is reruns the original."""
    if not Path(record.spec).is_file():
        return f"rerun the `abductive-eval serve` command that wrote {record.model}"
    command = f"abductive-eval batch {record.spec} --model {record.model}"
    writes_to = _spec_output(record.spec)
    if results_dir is None or writes_to is None or writes_to == results_dir.resolve():
        return command
    return f"{command}, its `output_dir` set to {results_dir} (it writes to {writes_to}: this folder is a copy)"


@functools.cache
def _spec_output(spec: str) -> Path | None:
    """The folder a batch spec writes to (its ``output_dir``, resolved); None when the spec cannot be read now."""
    from abductive_tasks.runs.spec import SpecError, load_spec

    try:
        return load_spec(spec).output_dir.resolve()
    except (SpecError, OSError):
        return None


def data_key(fingerprint: object) -> str:
    """A short name for what a data fingerprint says the data is, wherever it lives (:func:`data_content`)."""
    return hashlib.sha256(json.dumps(data_content(fingerprint), sort_keys=True, default=str).encode()).hexdigest()[:12]


class _Staleness:
    """Whether a spec identity still describes what a batch would run now: the data behind each recorded
    source, what a chained task read (an upstream stage's output, or what a variable named, and whether that upstream
    is stale itself), each task's version, the package versions and a backend of ours' version (as the batch's plan
    checks them); memoised."""

    def __init__(self, task_index: TaskIndex, results_dir: Path | None = None) -> None:
        self.task_index = task_index
        self.results_dir = results_dir
        self.fingerprints: dict[tuple[str, str], dict] = {}
        self.outputs: dict[tuple[str, str, str], tuple[str | None, float]] = {}
        self.records: dict[str, IdentityRecord | None] = {}
        self.stores: dict[tuple[str, str, Path], list[dict]] = {}

    def record(self, model: str) -> IdentityRecord | None:
        """The batch spec record of the results folder's model ``model`` (None: no such folder, or no readable record
        of this schema)."""
        if model not in self.records:
            found = None
            if self.results_dir is not None and model and Path(model).name == model:
                try:
                    found = IdentityRecord.read(self.results_dir / model / SPEC_RECORD)
                except (DamagedFile, OSError):
                    found = None
            self.records[model] = found if found is not None and of_this_schema(found.identity) else None
        return self.records[model]

    def writers(self, read: dict, identity: dict) -> list[dict]:
        """The bindings of the runs that stored the entries of the store a reader's ``read`` names
        (:func:`store_writers`, in the cache of the row's environment); [] for another kind."""
        root = settings.cache_root({**os.environ, **(identity.get("env") or {})})
        kind, name = str(read.get("kind")), str(read.get("name") or "")
        if kind not in STORES or not name:
            return []
        if (kind, name, root) not in self.stores:
            self.stores[kind, name, root] = store_writers(kind, name, root)
        return self.stores[kind, name, root]

    def _output_now(self, model: str, upstream: str, kind: str, identity: dict) -> tuple[str | None, float]:
        """The digest of ``kind`` that ``model``'s best matching run of ``upstream`` gives now (what its batch would
        hand a reader; None: none), and when that run wrote its results (0: no run)."""
        if (model, upstream, kind) not in self.outputs:
            found, when = None, 0.0
            spec = self.record(model)
            if spec is not None and self.results_dir is not None:
                scan = scan_runs(self.results_dir / model, spec.identity)
                environment = {**os.environ, **(identity.get("env") or {})}
                root = settings.cache_root(environment)
                own = _stage_limit(spec.identity, upstream, spec.limit, environment)
                run = stage_limits.answering(scan, upstream, (spec.limit, own))  # as the batch finds it
                found = chain.current_output(model, spec.identity, run, upstream, kind, root, False, (spec.limit, own))
                when = run.when if run is not None else 0.0
            self.outputs[model, upstream, kind] = found, when
        return self.outputs[model, upstream, kind]

    def _upstream_of(self, model: str, identity: dict, upstream: str, read: dict) -> tuple[str, dict] | None:
        """The row whose run of ``upstream`` gave what a reader of ``model`` read (its name and spec identity): the
        model itself or the describer a spec names, for a read from a run; for a store a variable names, the row named
        like it whose model its entries are bound to. None when no row of the results folder is, or its identity does
        not cover ``upstream``."""
        name = str(read.get("model") or model) if read.get("from") == "run" else str(read.get("name") or "")
        spec = self.record(name)
        if read.get("from") != "run":
            bound = self.writers(read, identity) if spec is not None else []
            if spec is None or not bound or not all(bound_to_model(binding, spec.identity) for binding in bound):
                return None
        found = identity if name == model else spec.identity if spec is not None else None
        return (name, found) if found is not None and upstream in (found.get("tasks") or {}) else None

    def _upstream_stale(self, model: str, identity: dict, entry: dict, since: float, known: list[str]) -> list[str]:
        """Each upstream a chained task read that is stale itself (what the batch would run again, its readers after
        it), with why, but for the reasons ``known`` already gives (the same package versions)."""
        stale = []
        for upstream, read in (entry.get("inputs") or {}).items():
            found = self._upstream_of(model, identity, upstream, read)
            if found is None:
                continue
            reasons = [reason for reason in self.reasons(found[1], upstream, found[0], since) if reason not in known]
            if reasons:
                whose = "" if found[0] == model else f" of {found[0]}"
                stale.append(f"{upstream}{whose}, whose {read.get('kind')} it read, is stale ({', '.join(reasons)})")
        return stale

    def _inputs_changed(self, model: str, identity: dict, entry: dict, since: float) -> list[str]:
        """What a chained task read that is no longer what it would read (an upstream stage run again after the
        reader's run at ``since``, or its samples edited or gone; a store or samples folder a variable names written
        again)."""
        changed = []
        environment = {**os.environ, **(identity.get("env") or {})}
        root = settings.cache_root(environment)
        for upstream, read in (entry.get("inputs") or {}).items():
            if read.get("from") == "run":
                if read.get("digest") in (None, chain.PENDING):
                    continue
                now, when = self._output_now(read.get("model") or model, upstream, read["kind"], identity)
                if now is None:
                    changed.append(
                        f"{upstream} gives no {read['kind']} now (no run, or its samples gone, damaged or changed "
                        "since its run)"
                    )
                elif now != read["digest"]:
                    how = "was run again" if when > since else "had its samples edited"
                    changed.append(f"{upstream} {how} (its {read['kind']} changed)")
            elif {"kind": read["kind"], **chain.variable_input(read["kind"], upstream, environment, root)} != read:
                changed.append(f"the {read['kind']} of {upstream} that {read.get('from')} names changed")
        return changed

    @cached_property
    def versions(self) -> dict[str, str]:
        return package_versions()

    def _fingerprint(self, benchmark: str, source: str) -> dict:
        if (benchmark, source) not in self.fingerprints:
            self.fingerprints[benchmark, source] = data_fingerprint(benchmark, source)
        return self.fingerprints[benchmark, source]

    def why(self, identity: dict, task: str, model: str = "", since: float = 0.0) -> str | None:
        """Why ``task``'s cells of ``model`` under ``identity``, from a run at ``since`` (its results' modification
        time), are stale (None: they are not)."""
        changed = self.reasons(identity, task, model, since)
        return ("stale: " + ", ".join(changed)) if changed else None

    def reasons(self, identity: dict, task: str, model: str, since: float) -> list[str]:
        """What changed since the run of :meth:`why`, each reason in a few words ([]: nothing)."""
        recorded = identity.get("versions") or {}
        versions = {**self.versions, **backend_versions(str((identity.get("model") or {}).get("backend") or ""))}
        names = [*recorded, *(name for name in versions if name not in recorded and name not in self.versions)]
        changed = [
            f"{name} {recorded.get(name, 'unversioned')} → {versions.get(name)}"
            for name in names
            if versions.get(name) != recorded.get(name)
        ]
        entry = identity["tasks"].get(task) or {}
        try:
            version = self.task_index.facts(task).version
        except TaskIndexError:
            version = None
        if version is not None and entry.get("version") is not None and str(entry["version"]) != version:
            changed.append(f"{task} version {entry['version']} → {version}")
        changed += self._inputs_changed(model, identity, entry, since)
        recorded = identity["data"].get(entry.get("benchmark")) or {}
        source = recorded.get("source")
        if source and source != "hub" and "error" not in recorded:  # the hub is never fetched for a report
            now = self._fingerprint(entry["benchmark"], source)
            if data_key(now) != data_key(recorded):
                changed.append(f"the data at {source} changed")
        return changed + self._upstream_stale(model, identity, entry, since, changed)


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _unverified(reason: str) -> str:
    return f"unverified ({reason})"


def _check_value(results: dict, metric: str, source: Path, task: str) -> tuple[str | None, str | None, object]:
    """A scored cell checked against its run's samples: (mark, note, Estimate or None).

    The headline must be a number (or None: not computed), and the run's samples (the batch always logs them) must
    give the same value (:func:`~abductive_tasks.reports.compare.headline_estimate`). A samples file that is
    missing, unreadable (one garbage line is enough) or gives another value makes the cell ``unverified``: never a
    score, never ranked or bold, the reason in the notes.
    """
    value = results.get(f"{metric},none")
    if value is not None and not is_number(value):
        return "not a number", f"{source}: {task} {metric} is {value!r}, not a number", None
    if value is None:
        return None, None, None
    samples = samples_path(source, task)
    if not samples.is_file():
        return (
            _unverified("no samples file"),
            f"{source}: {task} has no samples file ({samples.name}), so its {metric} cannot be checked; the cell is "
            "not shown",
            None,
        )
    try:
        return None, None, estimate_from_run(samples, metric, value)
    except Inconsistent as error:
        return _unverified("inconsistent samples"), f"{error}; the cell is not shown", None
    except CompareError as error:
        return _unverified("unreadable samples"), f"{error}; the cell is not shown", None


class _Collector:
    """What :func:`collect` gathers, model folder by model folder; the task facts and staleness checks memoised."""

    def __init__(self, task_index: TaskIndex, results_dir: Path | None = None) -> None:
        self.task_index = task_index
        self.board = Leaderboard(rows={}, tasks=[], headline={}, higher_is_better={})
        self.columns: list[str] = []
        self.staleness = _Staleness(task_index, results_dir)
        self._facts: dict[str, TaskFacts | None] = {}

    def facts(self, task: str) -> TaskFacts | None:
        """The task's facts; None for a task that is not ours."""
        if task not in self._facts:
            try:
                self._facts[task] = self.task_index.facts(task) if task in self.task_index.task_names else None
            except TaskIndexError:
                self._facts[task] = None
        return self._facts[task]

    def spec_of(self, folder: Path) -> IdentityRecord | None:
        """The model folder's batch spec identity; None (and a note) when it has none or a damaged one."""
        if not (folder / SPEC_RECORD).exists():
            if next(folder.rglob(f"*{RESULTS_SUFFIX}"), None):
                self.board.notes.append(
                    f"{folder}: not shown: no {SPEC_RECORD} says which data and settings its results come from; "
                    "run it through `abductive-eval batch`"
                )
            return None
        try:
            record = IdentityRecord.read(folder / SPEC_RECORD)
        except DamagedFile as error:
            self.board.notes.append(f"{error}: {folder.name} not shown; rerun its batch spec to rewrite it")
            return None
        if not of_this_schema(record.identity):  # what identifies a result changed since: nothing matches it
            self.board.notes.append(
                f"{folder}: not shown: its {SPEC_RECORD} is of an earlier run identity (schema "
                f"{record.identity.get('schema')}, now {SCHEMA}); fix: {_fix(record, folder.parent)}"
            )
            return None
        if record.model != folder.name:  # a batch names a model's folder after it: a copy, or a renamed folder
            self.board.notes.append(
                f"{folder}: not shown: its {SPEC_RECORD} is the record of model {record.model!r} (a copy, or a "
                f"renamed folder); fix: name the folder {record.model!r}, or move it out of the results folder"
            )
            return None
        return record

    def add_model(self, model: str, spec: IdentityRecord, scan: Scan) -> None:
        """The model's row: a cell (or a mark saying why there is none) per task of its spec."""
        board, fix = self.board, _fix(spec, self.staleness.results_dir)
        board.notes += [f"{damaged}: not read; fix: {fix}" for damaged in scan.damaged] + scan.foreign
        board.rows[model], board.marks[model], board.sources[model], board.data[model] = {}, {}, {}, {}
        board.records[model], board.reads[model] = spec, {}
        board.settings[model], identity = {}, spec.identity
        for task in spec.tasks:
            self.columns += [task] if task not in self.columns else []
            entry = spec.identity["tasks"].get(task) or {}
            benchmark = entry.get("benchmark")
            board.reads[model][task] = _read_from(
                model, identity, entry, partial(self.staleness.writers, identity=identity)
            )
            board.benchmarks[task] = str(benchmark or task)
            board.settings[model][board.benchmarks[task]] = settings_key(identity, board.benchmarks[task])
            board.data[model][task] = data_key(spec.identity["data"].get(benchmark))
            best = scan.best(task)
            stale = self.staleness.why(spec.identity, task, model, best.when) if best is not None else None
            # every run changed since it ended is told, also where another (an older limited one) is shown
            changed = [other for other in scan.outcomes.get(task, []) if other.changed and other is not best]
            board.notes += [
                f"{other.run}: {task} {other.changed}; fix: "
                + (f"move {other.run} aside (a later run is shown)" if best and best.when > other.when else fix)
                for other in changed  # a later run shown: the batch ran it again already (its fix held nothing more)
            ]
            if best is None:
                if scan.gone(task):
                    board.marks[model][task] = "changed since its run"
                elif scan.failed_run(task):
                    board.marks[model][task] = "run failed"
                elif task in scan.unread:  # its note names the record: not read
                    board.marks[model][task] = "run record damaged"
            elif stale:
                board.marks[model][task] = "stale"
                board.notes.append(f"{model} {task}: {stale} since its run; fix: {fix}")
            elif _mark(best):
                board.marks[model][task] = _mark(best)
                if best.doubt:
                    board.notes.append(f"{best.results_path}: {task} {best.doubt}; fix: {fix}")
            else:
                self.add_cell(model, task, best, fix)

    def add_cell(self, model: str, task: str, best: Outcome, fix: str) -> None:
        """A scored run's cell, once its samples give its headline value (else the mark and the note why not, with
        ``fix``: a run whose record holds no seal is not run again by the batch until its folder is moved aside)."""
        found = self.facts(task)
        mark, note, estimate = (
            _check_value(best.results, found.headline_metric, best.results_path, task) if found else (None, None, None)
        )
        self.board.notes += [f"{note}; fix: move {best.run} aside, then {fix}"] if note else []
        if mark:
            self.board.marks[model][task] = mark
            return
        self.board.rows[model][task] = best.results
        self.board.sources[model][task] = best.results_path
        if estimate is not None:
            self.board.estimates[(model, task)] = estimate

    def stages(self) -> set[str]:
        """The stage tasks whose headline is coverage: those some task reads a :data:`COVERAGE_KINDS` output of."""
        readers = (self.facts(task) for task in self.task_index.task_names)
        return {up for found in readers if found for up, kind in found.reads.items() if kind in COVERAGE_KINDS}

    def upstream_only(self) -> set[str]:
        """The columns no row's spec asked for: run only because a task asked reads their outputs (a spec record
        without ``asked``, written before it, asked for all its tasks)."""
        records = self.board.records.values()
        asked = {task for record in records for task in (record.tasks if record.asked is None else record.asked)}
        return {task for task in self.columns if task not in asked and any(task in record.tasks for record in records)}

    def finish(self) -> Leaderboard:
        """The board with its columns: our tasks, in the suite's order, then the others by name."""
        board = self.board
        board.stages = self.stages() & set(self.columns)
        board.upstream_only = self.upstream_only()
        for task in self.columns:
            found = self.facts(task)
            if found is not None:
                board.headline[task] = found.headline_metric
                board.higher_is_better[task] = found.higher_is_better[found.headline_metric]
                if found.upper_bound:
                    board.upper_bounds.add(task)
        board.tasks = [task for task in self.task_index.expand(["abductive"]) if task in board.headline]
        board.tasks += sorted(task for task in board.headline if task not in board.tasks)
        board.rows = dict(sorted(board.rows.items()))
        return board


def collect(results_dir: Path, task_index: TaskIndex | None = None) -> Leaderboard:
    """One row per model folder holding a batch spec identity, each cell from the runs matching it
    (see :mod:`abductive_tasks.reports.leaderboard`)."""
    collector = _Collector(task_index or TaskIndex(), Path(results_dir))
    for folder in sorted(path for path in Path(results_dir).iterdir() if path.is_dir()):
        spec = collector.spec_of(folder)
        if spec is not None:
            collector.add_model(folder.name, spec, scan_runs(folder, spec.identity))
    return collector.finish()


def precision(lower: float | None, upper: float | None, percent: bool = True) -> int:
    """Decimals that fit an interval of this width: none from 10 points, one from 1, else two
    (no interval or a point: one decimal for percentages, three for raw values)."""
    width = None if lower is None or upper is None else abs(upper - lower)
    if not width:  # no interval, or one that is a point (every unit alike)
        return 1 if percent else 3
    return 0 if width >= 10 else 1 if width >= 1 else 2


def read_text(read: dict[str, str]) -> str:
    """``{"descriptions": "dd"}`` as "descriptions: dd" ('' for a cell on its own outputs)."""
    return "; ".join(f"{kind}: {source}" for kind, source in sorted(read.items()))


def number_text(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def status(board: Leaderboard, model: str, task: str) -> str:
    """Why a cell holds no score ('' when it does): the collection's mark, "not computed" or "not run"."""
    mark = board.marks.get(model, {}).get(task)
    if mark:
        return mark
    if task not in board.rows[model]:
        return "not run"
    return "" if board.value(model, task) is not None else "not computed"
