"""Leaderboard report from a batch results folder: CSV, Markdown, static HTML and PNG plots.

Every model folder the batch runner wrote (``<results_dir>/<model>/spec_identity.json``) gives one
row with each task's headline metric (the task YAML's ``metadata.headline_metric``), read only
from runs whose identity matches the spec's (same model, settings, data and versions; see
:mod:`abductive_tasks.runs.identity`). A cell whose best run was limited (``--limit``, as lmms-eval's own
results record it) or partial (items left out, e.g. without descriptions), had failed requests (the model's or
the judge's), failed, has counts that disagree (:func:`~abductive_tasks.runs.history.ran`), samples that are
missing, unreadable or give another value (``unverified``), or is stale
(data, task or package version changed since: what the batch would rerun) shows that instead of a score; a
full run without failed requests wins over those, then the newest. Rows on different data for a task are
marked by data group and ranked and compared only within it. Damaged files and folders without a batch
identity are listed by path (notes), never read as results. The papers' own numbers are listed apart, marked
"paper-reported", never mixed with our runs.

Statistics (issue 13): every cell carries its 95% bootstrap interval (the task's
``<prefix>_ci95``); where the runs logged their samples (``--log_samples``), the best model of
each task and those statistically tied with it (the paired 95% interval of best - model, over the
items both answered, includes 0; :mod:`abductive_tasks.reports.compare`) are marked, and
``--compare A B`` gives the paired difference of two models on every task. Written:

* ``leaderboard.csv``: one row per model; per task ``<task>__<metric>`` and its ``__lower``,
  ``__upper``, ``__stderr``, ``__tied_with_best`` (true for the best too) and ``<task>__status``
  (why a cell is not a score);
* ``leaderboard_long.csv``: one row per model x task x metric (breakdown cells: one per label);
* ``comparisons.csv``: per task, best - each other model (difference, interval, p-value);
* ``leaderboard.md`` / ``.html``: rows ranked by the average of the percentage headlines, each cell in
  percent (raw where labelled) [interval] at the precision the interval supports, best and tied in bold,
  chance in the header; the HTML page self-contained (plots embedded) with sortable columns;
* ``plots/headline.png`` (percentage metrics, one axis per panel, error bars, chance lines, values),
  ``plots/headline_raw.png`` (the others, when any has a value), ``plots/<task>__<metric>.png``
  (breakdowns); skipped, with one line, without matplotlib;
* ``paper_reported.csv``.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.inputs.files import write_set
from abductive_tasks.nleye import descriptions
from abductive_tasks.reports import plots
from abductive_tasks.reports.compare import CompareError, Inconsistent, Ties, estimate_from_run, paired, ties_with_best
from abductive_tasks.reports.plots import PERCENT_FACTOR
from abductive_tasks.reports.samples import samples_path
from abductive_tasks.runs.history import SPEC_RECORD, DamagedFile, Outcome, Record, scan_runs
from abductive_tasks.runs.identity import data_content, data_fingerprint, package_versions
from abductive_tasks.runs.suite import Suite, SuiteError
from abductive_tasks.scoring.coverage import dropped_units
from abductive_tasks.scoring.stats import Estimate
from abductive_tasks.reports.specs import metric_info, metric_proportion, metric_scale

PAPER_REPORTED = "paper-reported"


@dataclass(frozen=True)
class PaperValue:
    """One number printed in a paper's main table, transcribed as printed."""

    benchmark: str
    table: str
    model: str
    column: str  # the paper's column
    task: str  # our task the column corresponds to
    printed: str  # verbatim
    note: str = ""


# NL-Eye (Ventura et al., ICLR 2025), Table 2, prediction columns. The Humans row is printed above
# the input-strategy blocks; §D (Table 11) compares humans with VLMs on separate images, so it is
# listed against the separate-image tasks. The baselines' row is garbled in the text extraction
# ("Random Dumb Pixel 25% 45% / 50% 50%"): random = 25% / 45% (chance: 1/4 for consistency in both
# orders, P(X>Y)=0.45 for two uniform 1-10 scores), dumb pixel = 50% / 50%.
NLEYE = "NL-Eye"
MUCR = "MuCR"
DVE = "DVE"
SHERLOCK = "Sherlock"
REFERENCE: tuple[PaperValue, ...] = (
    PaperValue(NLEYE, "Table 2", "Humans", "Triplet", "nleye_triplet", "85%", "input strategy not printed"),
    PaperValue(NLEYE, "Table 2", "Humans", "Pairs", "nleye_pairs", "83%", "input strategy not printed"),
    PaperValue(NLEYE, "Table 2", "GPT-4o", "Separate Images / Triplet", "nleye_triplet", "16%"),
    PaperValue(NLEYE, "Table 2", "GPT-4o", "Separate Images / Pairs", "nleye_pairs", "50%"),
    PaperValue(NLEYE, "Table 2", "GPT-4o", "Combined Image / Triplet", "nleye_triplet_combined", "60%"),
    PaperValue(NLEYE, "Table 2", "GPT-4o", "Combined Image / Pairs", "nleye_pairs_combined", "45%"),
    PaperValue(NLEYE, "Table 2", "LLaVA 1.6", "Combined Image / Triplet", "nleye_triplet_combined", "14%"),
    PaperValue(NLEYE, "Table 2", "LLaVA 1.6", "Combined Image / Pairs", "nleye_pairs_combined", "42%"),
    PaperValue(NLEYE, "Table 2", "Random", "Triplet", "nleye_triplet", "25%"),
    PaperValue(NLEYE, "Table 2", "Random", "Pairs", "nleye_pairs", "45%"),
    PaperValue(NLEYE, "Table 2", "Dumb Pixel", "Triplet", "nleye_triplet", "50%"),
    PaperValue(NLEYE, "Table 2", "Dumb Pixel", "Pairs", "nleye_pairs", "50%"),
    # MuCR (Li et al.), Table 1: every model saw one composite image (Form-1, Figure 7a).
    PaperValue(MUCR, "Table 1", "Random", "Image Level / C2E", "mucr_c2e", "25.00"),
    PaperValue(MUCR, "Table 1", "Random", "Image Level / E2C", "mucr_e2c", "25.00"),
    PaperValue(MUCR, "Table 1", "Random", "Phrase Level / Cue", "mucr_cue", "25.00"),
    PaperValue(MUCR, "Table 1", "LLaVA 1.6 13B", "Image Level / C2E", "mucr_c2e", "23.75"),
    PaperValue(MUCR, "Table 1", "LLaVA 1.6 13B", "Image Level / E2C", "mucr_e2c", "21.50"),
    PaperValue(MUCR, "Table 1", "LLaVA 1.6 13B", "Phrase Level / Cue", "mucr_cue", "35.75"),
    PaperValue(MUCR, "Table 1", "LLaVA 1.6 13B", "Sentence Level / Exp", "mucr_exp", "1.88"),
    PaperValue(MUCR, "Table 1", "GPT-4o", "Image Level / C2E", "mucr_c2e", "81.25"),
    PaperValue(MUCR, "Table 1", "GPT-4o", "Image Level / E2C", "mucr_e2c", "77.00"),
    PaperValue(MUCR, "Table 1", "GPT-4o", "Phrase Level / Cue", "mucr_cue", "57.25"),
    PaperValue(MUCR, "Table 1", "GPT-4o", "Sentence Level / Exp", "mucr_exp", "6.75"),
    PaperValue(MUCR, "Table 1", "Human", "Image Level / C2E", "mucr_c2e", "95.60"),
    PaperValue(MUCR, "Table 1", "Human", "Image Level / E2C", "mucr_e2c", "95.50"),
    PaperValue(MUCR, "Table 1", "Human", "Phrase Level / Cue", "mucr_cue", "90.50"),
    PaperValue(MUCR, "Table 1", "Human", "Sentence Level / Exp", "mucr_exp", "9.22"),
    # DVE (Zhang et al.), Table 4 (classification accuracy, %): no human or random row; LLaVA-1.5, not 1.6.
    PaperValue(DVE, "Table 4", "GPT-4o", "Accuracy (%)", "dve_cls", "81.76"),
    PaperValue(
        DVE, "Table 4", "LLaVA-1.5", "Accuracy (%)", "dve_cls", "52.07", "the paper evaluates LLaVA-1.5, not 1.6"
    ),
    # Sherlock (Hessel et al., ECCV 2022), Table 2 (test set; percent, as our Sherlock metrics): no GPT-4o or LLaVA row.
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Random",
        "Retrieval / im→txt mean rank (↓)",
        "sherlock_retrieval",
        "495.4",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Random",
        "Retrieval / P@1 im→txt (↑)",
        "sherlock_retrieval",
        "0.1",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Random",
        "Localization / GT-Box / Auto-Box (↑)",
        "sherlock_localization",
        "30.0/7.9",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Random",
        "Comparison / Val / Test Human Acc (↑)",
        "sherlock_comparison",
        "1.1/-0.6",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Human + (Upper Bound)",
        "Localization / GT-Box / Auto-Box (↑)",
        "sherlock_localization",
        "92.3/(96.2)",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Human + (Upper Bound)",
        "Comparison / Val / Test Human Acc (↑)",
        "sherlock_comparison",
        "42.3/42.3",
        "test split (our val-split tasks are the nearest)",
    ),
)


@dataclass
class Leaderboard:
    """Our runs: ``rows[model][task]`` is that task's results dict (``"<metric>,none"`` keys), for scores only."""

    rows: dict[str, dict[str, dict]]
    tasks: list[str]  # leaderboard columns, suite order
    headline: dict[str, str]  # task -> headline metric
    higher_is_better: dict[str, bool]  # task -> direction of its headline metric
    marks: dict[str, dict[str, str]] = field(default_factory=dict)  # model -> task -> why the cell is not a score
    notes: list[str] = field(default_factory=list)  # what was not read, by path, and the command that fixes it
    sources: dict[str, dict[str, Path]] = field(default_factory=dict)  # model -> task -> the results file of the cell
    data: dict[str, dict[str, str]] = field(default_factory=dict)  # model -> task -> data_key of the row's data
    estimates: dict[tuple[str, str], Estimate] = field(default_factory=dict)  # cells recomputed from their samples

    def data_groups(self, task: str) -> dict[str, str]:
        """Rows on different data for ``task``: data key -> label ("data A", the most rows first); {} when
        every row ran on the same data. Rows of different groups are never ranked or compared together."""
        keys = [self.data.get(model, {}).get(task) for model in self.rows]
        counts = {key: keys.count(key) for key in keys if key is not None}
        if len(counts) < 2:
            return {}
        ordered = sorted(counts, key=lambda key: (-counts[key], keys.index(key)))
        return {key: f"data {chr(ord('A') + index)}" for index, key in enumerate(ordered)}

    def data_group(self, model: str, task: str) -> str | None:
        """The row's data label for ``task`` when the task's rows ran on different data, else None."""
        return self.data_groups(task).get(self.data.get(model, {}).get(task))

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
            None if number is None or not _number(number) else number * factor
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
        bounds = f" [{_number_text(lower, digits)}, {_number_text(upper, digits)}]" if lower is not None else ""
        group = self.data_group(model, task)
        return _number_text(value, digits) + bounds + (f" ({group})" if group else "")

    def breakdowns(self) -> dict[tuple[str, str], dict[str, dict[str, dict]]]:
        """``{(task, metric): {model: {label: {"acc", "n", ...}}}}`` for every dict-valued metric."""
        found: dict[tuple[str, str], dict[str, dict]] = {}
        for model, tasks in self.rows.items():
            for task in self.tasks:
                for key, value in tasks.get(task, {}).items():
                    name, _, filter_ = key.partition(",")
                    if filter_ and _is_breakdown(value):
                        found.setdefault((task, name), {})[model] = value
        return found


def _is_breakdown(value: object) -> bool:
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
    reasons += [f"{outcome.failed_requests} failed requests"] if outcome.failed_requests else []
    return "; ".join(reasons) or None


def _fix(record: Record) -> str:
    """The command that recomputes a model's results."""
    if Path(record.spec).is_file():
        return f"abductive-eval batch {record.spec} --model {record.model}"
    return f"rerun the `abductive-eval serve` command that wrote {record.model}"


def data_key(fingerprint: object) -> str:
    """A short name for what a data fingerprint says the data is, wherever it lives (:func:`data_content`)."""
    return hashlib.sha256(json.dumps(data_content(fingerprint), sort_keys=True, default=str).encode()).hexdigest()[:12]


class _Staleness:
    """Whether a spec identity still describes what a batch would run now: the data behind each recorded
    source, the NL-Eye descriptions a task read, each task's version and the package versions (as the batch's plan
    checks them); memoised."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.fingerprints: dict[tuple[str, str], dict] = {}

    def _fingerprint(self, benchmark: str, source: str) -> dict:
        if (benchmark, source) not in self.fingerprints:
            self.fingerprints[benchmark, source] = data_fingerprint(benchmark, source)
        return self.fingerprints[benchmark, source]

    def why(self, identity: dict, task: str) -> str | None:
        """Why ``task``'s cells under ``identity`` are stale (None: they are not)."""
        versions = package_versions()
        changed = [
            f"{name} {was} → {versions.get(name)}"
            for name, was in (identity.get("versions") or {}).items()
            if versions.get(name) != was
        ]
        entry = identity["tasks"].get(task) or {}
        try:
            version = self.suite.facts(task).version
        except SuiteError:
            version = None
        if version is not None and entry.get("version") is not None and str(entry["version"]) != version:
            changed.append(f"{task} version {entry['version']} → {version}")
        described = entry.get("descriptions")
        if isinstance(described, dict) and described.get("describer"):
            environment = {**os.environ, **(identity.get("env") or {})}
            now = descriptions.fingerprint(described["describer"], settings.cache_root(environment))
            if now != described:
                changed.append(f"the descriptions by {described['describer']} changed")
        recorded = identity["data"].get(entry.get("benchmark")) or {}
        source = recorded.get("source")
        if source and source != "hub" and "error" not in recorded:  # the hub is never fetched for a report
            now = self._fingerprint(entry["benchmark"], source)
            if data_key(now) != data_key(recorded):
                changed.append(f"the data at {source} changed")
        return ("stale: " + ", ".join(changed)) if changed else None


def _number(value: object) -> bool:
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
    if value is not None and not _number(value):
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


def collect(results_dir: Path, suite: Suite | None = None) -> Leaderboard:
    """One row per model folder holding a batch spec identity, each cell from the runs matching it
    (see the module docstring)."""
    suite = suite or Suite()
    results_dir = Path(results_dir)
    rows: dict[str, dict[str, dict]] = {}
    marks: dict[str, dict[str, str]] = {}
    sources: dict[str, dict[str, Path]] = {}
    data: dict[str, dict[str, str]] = {}
    estimates: dict[tuple[str, str], Estimate] = {}
    notes: list[str] = []
    columns: list[str] = []
    facts: dict[str, object] = {}
    staleness = _Staleness(suite)

    def task_facts(task: str):
        if task not in facts:
            try:
                facts[task] = suite.facts(task) if task in suite.task_names else None
            except SuiteError:
                facts[task] = None
        return facts[task]

    for folder in sorted(path for path in results_dir.iterdir() if path.is_dir()):
        if not (folder / SPEC_RECORD).exists():
            if next(folder.rglob("*_results.json"), None):
                notes.append(
                    f"{folder}: not shown: no {SPEC_RECORD} says which data and settings its results come from; "
                    "run it through `abductive-eval batch`"
                )
            continue
        try:
            spec = Record.read(folder / SPEC_RECORD)
        except DamagedFile as error:
            notes.append(f"{error}: {folder.name} not shown; rerun its batch spec to rewrite it")
            continue
        model = folder.name
        scan = scan_runs(folder, spec.identity)
        notes += [f"{damaged}: not read; fix: {_fix(spec)}" for damaged in scan.damaged]
        rows[model], marks[model], sources[model], data[model] = {}, {}, {}, {}
        for task in spec.tasks:
            columns += [task] if task not in columns else []
            benchmark = (spec.identity["tasks"].get(task) or {}).get("benchmark")
            data[model][task] = data_key(spec.identity["data"].get(benchmark))
            best = scan.best(task)
            stale = staleness.why(spec.identity, task) if best is not None else None
            if best is None:
                if scan.failed_run(task):
                    marks[model][task] = "run failed"
            elif stale:
                marks[model][task] = "stale"
                notes.append(f"{model} {task}: {stale} since its run; fix: {_fix(spec)}")
            elif _mark(best):
                marks[model][task] = _mark(best)
                if best.disagreement:
                    notes.append(f"{best.results_path}: {task} {best.disagreement}; fix: {_fix(spec)}")
            else:
                found = task_facts(task)
                mark, note, estimate = (
                    _check_value(best.results, found.headline_metric, best.results_path, task)
                    if found
                    else (None, None, None)
                )
                notes += [note] if note else []
                if mark:
                    marks[model][task] = mark
                    continue
                rows[model][task] = best.results
                sources[model][task] = best.results_path
                if estimate is not None:
                    estimates[(model, task)] = estimate
    headline: dict[str, str] = {}
    higher_is_better: dict[str, bool] = {}
    for task in columns:
        found = task_facts(task)
        if found is None:
            continue
        headline[task] = found.headline_metric
        higher_is_better[task] = found.higher_is_better[found.headline_metric]
    order = [task for task in suite.expand(["abductive"]) if task in headline]
    order += sorted(task for task in headline if task not in order)
    return Leaderboard(
        rows=dict(sorted(rows.items())),
        tasks=order,
        headline=headline,
        higher_is_better=higher_is_better,
        marks=marks,
        notes=notes,
        sources=sources,
        data=data,
        estimates=estimates,
    )


def _format(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def precision(lower: float | None, upper: float | None, percent: bool = True) -> int:
    """Decimals that fit an interval of this width: none from 10 points, one from 1, else two
    (no interval or a point: one decimal for percentages, three for raw values)."""
    width = None if lower is None or upper is None else abs(upper - lower)
    if not width:  # no interval, or one that is a point (every unit alike)
        return 1 if percent else 3
    return 0 if width >= 10 else 1 if width >= 1 else 2


def _number_text(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _plain(value: object) -> str:
    """A CSV value: full precision, '' for none."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def status(board: Leaderboard, model: str, task: str) -> str:
    """Why a cell holds no score ('' when it does): the collection's mark, "not computed" or "not run"."""
    mark = board.marks.get(model, {}).get(task)
    if mark:
        return mark
    if task not in board.rows[model]:
        return "not run"
    return "" if board.value(model, task) is not None else "not computed"


# ---------------------------------------------------------------- paired statistics from the samples


@dataclass
class Statistics:
    """What the runs' samples add: each task's best model(s) and who is tied with them; what could not be computed."""

    estimates: dict[tuple[str, str], Estimate] = field(default_factory=dict)  # (model, task) -> headline Estimate
    problems: dict[tuple[str, str], str] = field(default_factory=dict)  # (model, task) -> why there is no Estimate
    ties: dict[str, Ties] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def tied(self, model: str, task: str) -> bool | None:
        """True for the best and those tied with it, False for the others, None when unknown."""
        ties = self.ties.get(task)
        return None if ties is None else ties.tied(model)


def statistics(board: Leaderboard) -> Statistics:
    """Headline Estimates from every scored cell's samples JSONL (checked against the reported value by
    :func:`collect`), and ties with the best, within each group of rows on the same data."""
    found = Statistics()
    unlogged = set()  # cells whose run wrote no samples file
    for model in board.rows:
        for task in board.tasks:
            value, source = board.value(model, task), board.sources.get(model, {}).get(task)
            if value is None or source is None:
                continue
            if (model, task) in board.estimates:
                found.estimates[(model, task)] = board.estimates[(model, task)]
                continue
            unlogged |= set() if samples_path(source, task).is_file() else {(model, task)}
            try:
                found.estimates[(model, task)] = estimate_from_run(
                    samples_path(source, task), board.headline[task], value
                )
            except CompareError as error:
                found.problems[(model, task)] = str(error)
    if found.problems and not found.estimates and unlogged == set(found.problems):
        found.notes.append(
            "Ties with the best not computed: no run logged its samples (add `eval_args: [--log_samples]` to the "
            "batch spec and rerun)."
        )
    else:
        models_of: dict[str, list[str]] = {}
        for model, task in found.problems:
            models_of.setdefault(task, []).append(model)
        found.notes += [
            f"{task}: {', '.join(models)} not compared with the best: {found.problems[(models[0], task)]}"
            for task, models in models_of.items()
        ]
    for task in board.tasks:
        groups = board.data_groups(task)
        if groups:
            found.notes.append(
                f"{task}: rows ran on different data ("
                + "; ".join(
                    f"{label}: {', '.join(m for m in board.rows if board.data_group(m, task) == label)}"
                    for label in groups.values()
                )
                + "); each is ranked and compared only with the rows on its own data"
            )
        merged: Ties | None = None
        for key in groups or [None]:
            members = [model for model in board.rows if key is None or board.data.get(model, {}).get(task) == key]
            ties = _ties_among(board, found, task, members)
            if ties is not None:
                merged = (
                    ties if merged is None else Ties(merged.best + ties.best, merged.comparisons | ties.comparisons)
                )
        if merged is not None:
            found.ties[task] = merged
    return found


def _ties_among(board: Leaderboard, found: Statistics, task: str, models: list[str]) -> Ties | None:
    """The best of ``models`` on ``task`` and who is tied with it; None when the best has no usable samples."""
    scored = {model: value for model in models if (value := board.value(model, task)) is not None}
    if not scored:
        return None
    top = (max if board.higher_is_better.get(task, True) else min)(scored.values())
    if any((model, task) not in found.estimates for model, value in scored.items() if value == top):
        return None  # the best has no usable samples: its problem is noted
    estimates = {model: found.estimates[(model, task)] for model in scored if (model, task) in found.estimates}
    return ties_with_best(task, board.headline[task], estimates, board.higher_is_better.get(task, True))


def compare_models(board: Leaderboard, found: Statistics, a: str, b: str) -> list[dict]:
    """Per task, ``a - b`` on the headline metric with its paired interval and p-value, or a note saying why not."""

    def unpaired(task: str, metric: str, note: str) -> dict:
        """A row for a task the two models cannot be compared on, with the reason."""
        values = {"value_a": board.value(a, task), "value_b": board.value(b, task)}
        return {"task": task, "metric": metric, "a": a, "b": b, **values, "note": note}

    rows = []
    for task in board.tasks:
        metric = board.headline[task]
        estimate_a, estimate_b = found.estimates.get((a, task)), found.estimates.get((b, task))
        if board.data.get(a, {}).get(task) != board.data.get(b, {}).get(task):
            note = "not compared: the two ran on different data (their data fingerprints differ)"
            rows.append(unpaired(task, metric, note))
            continue
        if estimate_a is not None and estimate_b is not None:
            rows.append(paired(task, metric, (a, estimate_a), (b, estimate_b)).as_row())
            continue
        why = [
            f"{model}: {found.problems.get((model, task)) or status(board, model, task)}"
            for model in (a, b)
            if (model, task) not in found.estimates
        ]
        rows.append(unpaired(task, metric, "; ".join(why)))
    return rows


COMPARE_COLUMNS = [
    "task",
    "metric",
    "a",
    "b",
    "value_a",
    "value_b",
    "difference",
    "lower",
    "upper",
    "p_value",
    "units",
    "resamples",
    "tied",
    "note",
]


def compare_markdown(rows: list[dict], a: str, b: str) -> str:
    """The paired comparison as Markdown: values, difference and interval in percent (raw where labelled), at the
    precision the interval supports; p-values as they are."""
    header = ["task", "metric (scale)", a, b, f"{a} − {b}", "95% interval", "p", "units", "note"]
    table = []
    for row in rows:
        scale = metric_scale(row["metric"], "raw")
        factor = PERCENT_FACTOR.get(scale, 1.0)
        shown = {
            key: None if not _number(row.get(key)) else row[key] * factor
            for key in ("value_a", "value_b", "difference", "lower", "upper")
        }
        digits = precision(shown["lower"], shown["upper"], scale in PERCENT_FACTOR)
        table.append(
            [
                row["task"],
                f"{row['metric']} ({'%' if scale in PERCENT_FACTOR else 'raw'})",
                *(_number_text(shown[key], digits) for key in ("value_a", "value_b", "difference")),
                f"[{_number_text(shown['lower'], digits)}, {_number_text(shown['upper'], digits)}]"
                if shown["lower"] is not None
                else "—",
                _format(row.get("p_value")),
                _format(row.get("units")),
                row.get("note", ""),
            ]
        )
    intro = (
        f"Paired comparison {a} − {b}: per task, the headline metric's difference on the units both were scored on, "
        "its 95% paired interval and p-value."
    )
    return "\n".join([intro, "", _markdown_table(header, table, numeric_from=2), ""])


# ---------------------------------------------------------------- tables


def _header(board: Leaderboard) -> list[str]:
    def title(task: str) -> str:
        chance = board.chance(task)
        scale = "%" if board.percent(task) else "raw"
        details = [scale] + ([] if board.higher_is_better.get(task, True) else ["lower is better"])
        if chance is not None:
            details.append(f"chance {_number_text(chance * board.factor(task), 1 if board.percent(task) else 3)}")
        return f"{task} ({board.headline[task]}; {', '.join(details)})"

    averaged = average_tasks(board)
    average = [f"average (%, {len(averaged)} tasks)"] if averaged else []
    return ["rank", "model", *average, *(title(task) for task in board.tasks)]


def average_tasks(board: Leaderboard) -> list[str]:
    """The tasks the average column spans: headlines that are shares of units (accuracies, 0-100%; not a signed score
    such as Sherlock's comparison accuracy) where higher is better that some row has a score on (none when fewer
    than 2)."""
    tasks = [
        task
        for task in board.tasks
        if board.percent(task)
        and metric_proportion(board.headline[task])
        and board.higher_is_better.get(task, True)
        and any(board.shown(model, task)[0] is not None for model in board.rows)
    ]
    return tasks if len(tasks) >= 2 else []


def average(board: Leaderboard, model: str) -> float | None:
    """The model's mean headline over :func:`average_tasks`, in percent; None unless it has a score on each of
    them, on the data most rows ran on (a mean over other tasks or other data would not rank it fairly)."""
    tasks = average_tasks(board)
    values = [board.shown(model, task)[0] for task in tasks]
    main_data = [board.data_group(model, task) in (None, "data A") for task in tasks]
    if not tasks or any(value is None for value in values) or not all(main_data):
        return None
    return sum(values) / len(values)


def ranking(board: Leaderboard) -> dict[str, str]:
    """Each row's rank by the average column (or, without one, the first task's headline, on its direction);
    equal values (as printed) share a rank marked ``=``; rows without a value rank "—"."""
    tasks = average_tasks(board)
    if tasks:
        keys, higher = {model: average(board, model) for model in board.rows}, True
    elif board.tasks:
        task = board.tasks[0]
        higher = board.higher_is_better.get(task, True)
        keys = {
            model: board.shown(model, task)[0] if board.data_group(model, task) in (None, "data A") else None
            for model in board.rows
        }
    else:
        return dict.fromkeys(board.rows, "—")
    printed = {model: round(key, 1) for model, key in keys.items() if key is not None}
    ordered = sorted(printed.values(), reverse=higher)
    ranks = {}
    for model in board.rows:
        if model not in printed:
            ranks[model] = "—"
            continue
        rank = ordered.index(printed[model]) + 1
        ranks[model] = f"{rank}=" if ordered.count(printed[model]) > 1 else str(rank)
    return ranks


@dataclass
class Table:
    """A rendered table's content, once, for every format: header, cell texts, sort keys (numbers where a cell
    has one), which cells are bold, and how many leading columns are text."""

    header: list[str]
    rows: list[list[str]]
    keys: list[list[object]]
    bold: list[list[bool]]
    text_columns: int = 2

    def frame(self, strong: tuple[str, str] = ("", "")):
        """The table as a pandas DataFrame, bold cells' values between ``strong``."""
        import pandas

        cells = [
            [
                (
                    f"{strong[0]}{text.partition(' [')[0]}{strong[1]}"
                    + (" [" + text.partition(" [")[2] if " [" in text else "")
                )
                if bold
                else text
                for text, bold in zip(row, bolds, strict=True)
            ]
            for row, bolds in zip(self.rows, self.bold, strict=True)
        ]
        return pandas.DataFrame(cells, columns=self.header)

    def markdown(self) -> str:
        """The table in Markdown, every text escaped (:func:`markdown_text`)."""
        align = ["left"] * self.text_columns + ["right"] * (len(self.header) - self.text_columns)
        escaped = Table(
            [markdown_text(name) for name in self.header],
            [[markdown_text(text) for text in row] for row in self.rows],
            self.keys,
            self.bold,
            self.text_columns,
        )
        return escaped.frame(("**", "**")).to_markdown(index=False, colalign=align, disable_numparse=True)


def markdown_text(text: str) -> str:
    """``text`` as literal Markdown text: raw HTML a results file might carry, and table bars, are escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def headline_table(board: Leaderboard, found: Statistics | None = None) -> Table:
    """The headline table, rows in rank order: rank, model, the average where meaningful, each task's cell;
    the best of each task and those tied with it bold."""
    found = found or Statistics()
    ranks = ranking(board)

    def order(model: str) -> tuple:
        rank = ranks[model].rstrip("=")
        return (rank == "—", int(rank) if rank != "—" else 0, model)

    averaged = bool(average_tasks(board))
    rows, keys, bold = [], [], []
    for model in sorted(board.rows, key=order):
        mean = average(board, model) if averaged else None
        row = [ranks[model], model] + ([_number_text(mean, 1)] if averaged else [])
        key: list[object] = [order(model)[1] if ranks[model] != "—" else None, model] + ([mean] if averaged else [])
        strong = [False, False] + ([False] if averaged else [])
        for task in board.tasks:
            row.append(board.cell(model, task))
            key.append(None if board.marks.get(model, {}).get(task) else board.shown(model, task)[0])
            strong.append(bool(found.tied(model, task)) and not board.marks.get(model, {}).get(task))
        rows.append(row)
        keys.append(key)
        bold.append(strong)
    return Table(_header(board), rows, keys, bold)


def reference_rows(benchmarks: set[str] | None = None) -> list[PaperValue]:
    return [row for row in REFERENCE if benchmarks is None or row.benchmark in benchmarks]


def _markdown_table(header: list[str], rows: list[list[str]], numeric_from: int = 1) -> str:
    """A Markdown table (through :class:`Table`); columns from ``numeric_from`` on are right-aligned."""
    return Table(header, rows, rows, [[False] * len(header) for _ in rows], numeric_from).markdown()


def _reference_header_rows() -> tuple[list[str], list[list[str]]]:
    header = ["source", "benchmark", "table", "model", "paper column", "our task", "value (as printed)", "note"]
    return header, [
        [PAPER_REPORTED, row.benchmark, row.table, row.model, row.column, row.task, row.printed, row.note]
        for row in REFERENCE
    ]


def wide_table(board: Leaderboard, found: Statistics) -> tuple[list[str], list[list[str]]]:
    """``leaderboard.csv``: one row per model, machine-friendly columns per task (see the module docstring)."""
    header = ["model"]
    for task in board.tasks:
        base = f"{task}__{board.headline[task]}"
        header += [
            base,
            f"{base}__lower",
            f"{base}__upper",
            f"{base}__stderr",
            f"{base}__tied_with_best",
            f"{task}__status",
        ]
    rows = []
    for model in board.rows:
        row = [model]
        for task in board.tasks:
            entry = board.interval(model, task)
            values = (
                board.value(model, task),
                entry.get("lower"),
                entry.get("upper"),
                entry.get("stderr"),
                found.tied(model, task),
            )
            row += [*map(_plain, values), status(board, model, task)]
        rows.append(row)
    return header, rows


LONG_COLUMNS = (
    "model task metric label headline value lower upper stderr units resamples chance scale higher_is_better "
    "tied_with_best status"
).split()


def long_rows(board: Leaderboard, found: Statistics) -> list[dict]:
    """``leaderboard_long.csv``: one row per model x task x metric (a breakdown: one per label),
    numbers at full precision."""
    rows = []
    for model in board.rows:
        for task in board.tasks:
            headline = board.headline[task]
            why = status(board, model, task)
            if task not in board.rows[model]:
                rows.append(
                    {
                        "model": model,
                        "task": task,
                        "metric": headline,
                        "headline": True,
                        "scale": metric_scale(headline, "unknown"),
                        "status": why,
                    }
                )
                continue
            for key, value in board.rows[model][task].items():
                name, _, filter_ = key.partition(",")
                if not filter_ or "_stderr" in name:
                    continue
                info = metric_info(name)
                base = {
                    "model": model,
                    "task": task,
                    "metric": name,
                    "headline": name == headline,
                    "scale": metric_scale(name, "unknown"),
                }
                base["higher_is_better"] = None if info is None else info.higher_is_better
                if _is_breakdown(value):
                    rows += [
                        {
                            **base,
                            "label": label,
                            "value": cell.get("acc"),
                            "lower": cell.get("lower"),
                            "upper": cell.get("upper"),
                            "units": cell.get("n"),
                        }
                        for label, cell in value.items()
                    ]
                elif value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
                    entry = board.interval(model, task, name)
                    rows.append(
                        {
                            **base,
                            **{
                                field_: entry.get(field_)
                                for field_ in ("lower", "upper", "stderr", "units", "resamples", "chance")
                            },
                            "value": value,
                            "tied_with_best": found.tied(model, task) if name == headline else None,
                            "status": "" if value is not None else "not computed",
                        }
                    )
    return rows


def _csv_text(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _dict_row(columns: list[str], row: dict) -> list[str]:
    return [_plain(row.get(column)) for column in columns]


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.write_text(_csv_text(header, rows), newline="")
    return path


def _write_dicts(path: Path, columns: list[str], rows: list[dict]) -> Path:
    return _write_csv(path, columns, [_dict_row(columns, row) for row in rows])


def write_csv(board: Leaderboard, out: Path, found: Statistics | None = None) -> dict[str, Path]:
    """``leaderboard.csv``, ``leaderboard_long.csv``, ``comparisons.csv`` and ``paper_reported.csv``."""
    found = found or Statistics()
    comparisons = [
        comparison.as_row()
        for task in board.tasks
        if task in found.ties
        for comparison in found.ties[task].comparisons.values()
    ]
    return {
        "csv": _write_csv(out / "leaderboard.csv", *wide_table(board, found)),
        "long_csv": _write_dicts(out / "leaderboard_long.csv", LONG_COLUMNS, long_rows(board, found)),
        "comparisons_csv": _write_dicts(out / "comparisons.csv", COMPARE_COLUMNS, comparisons),
        "paper_reported_csv": _write_csv(out / "paper_reported.csv", *_reference_header_rows()),
    }


LEGEND = (
    "Rows ranked by the average column (or, without one, by the first task); equal ranks are marked =. "
    "Each cell: the headline value in percent (raw where the header says so), "
    "[95% bootstrap interval over the benchmark's units: NL-Eye/MuCR item, DVE pair, Sherlock image or chunk], "
    "printed to the precision the interval supports. "
    "**Bold**: the best model on the task and every model statistically tied with it "
    "(the paired 95% bootstrap interval of best − model, over the units both were scored on, includes 0; "
    "one comparison per model, no correction for multiple comparisons). "
    "Average: the mean of the accuracy headlines (shares of units; not a signed score such as Sherlock's comparison "
    "accuracy, -100 to 100), for rows with a score on each, on the same data. "
    "Chance: the random-answer level the task reports."
)

HTML_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>abductive-tasks leaderboard</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
td,th{border:1px solid #bbb;padding:4px 8px;text-align:right;vertical-align:top}
td.text,th.text{text-align:left}
th{background:#eef;cursor:pointer;user-select:none}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
td.mark{color:#888;font-style:italic}
table.paper-reported{background:#f6f6f6;font-style:italic}
figure{margin:1em 0}img{max-width:100%;border:1px solid #ddd}
.notes{font-size:13px;color:#444}div.wide{overflow-x:auto}
</style></head>
<body><h1>Leaderboard</h1>
<p>Our runs: one row per model, each task's headline metric. Click a column header to sort.</p>
<p>{{ legend }}</p>
<div class="wide">{{ table(ours, "ours") }}</div>
{% if notes %}<div class="notes"><p>Not shown or to read with care:</p><ul>
{% for note in notes %}<li>{{ note }}</li>
{% endfor %}</ul></div>{% endif %}
<h2>Plots</h2>
{% for plot in plots %}<figure><img src="data:image/png;base64,{{ plot.data }}" alt="{{ plot.name }}">
<figcaption>{{ plot.name }}</figcaption></figure>
{% else %}<p>{{ no_plots }}</p>{% endfor %}
<h2>Paper-reported reference numbers (not run here)</h2>
<p>Transcribed from each paper's main table, as printed; every row is marked {{ paper_reported }}.</p>
{{ table(reference, "paper-reported") }}
<script>
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (header, column) {
    header.addEventListener("click", function () {
      var descending = !header.classList.contains("sorted-desc");
      table.querySelectorAll("th").forEach(function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
      header.classList.add(descending ? "sorted-desc" : "sorted-asc");
      var body = table.tBodies[0], rows = Array.from(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[column].dataset.sort, y = b.cells[column].dataset.sort;
        var empty = (x === "") - (y === "");
        if (empty) { return empty; }
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return descending ? -order : order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
</script>
</body></html>
"""

TABLE_MACRO = """{% macro table(content, css_class) -%}
<table class="{{ css_class }} sortable"><thead><tr>
{%- for name in content.header %}<th class="{{ 'text' if loop.index0 < content.text_columns else 'number' }}">
{{- name }}</th>{% endfor -%}
</tr></thead><tbody>
{% for row in content.rows %}{% set outer = loop.index0 %}<tr>
{%- for text in row %}{% set key = content.keys[outer][loop.index0] -%}
{% set numeric = loop.index0 >= content.text_columns -%}
<td class="{{ 'text' if not numeric else ('mark' if key is none and text != '—' else 'number') }}"
 data-sort="{{ '' if key is none else key }}">
{%- if content.bold[outer][loop.index0] %}<strong>{{ text.partition(' [')[0] }}</strong>
{{- ' [' ~ text.partition(' [')[2] if ' [' in text }}{% else %}{{ text }}{% endif %}</td>
{%- endfor %}</tr>
{% endfor %}</tbody></table>
{%- endmacro %}"""


def markdown(board: Leaderboard, plot_files: list[Path], out: Path, found: Statistics | None = None) -> str:
    found = found or Statistics()
    parts = [
        "# Leaderboard",
        "",
        "Our runs: one row per model, each task's headline metric (`metadata.headline_metric`).",
        "",
        LEGEND,
        "",
        headline_table(board, found).markdown(),
        "",
    ]
    if board.notes or found.notes:
        notes = [*board.notes, *found.notes]
        parts += ["Not shown or to read with care:", "", *(f"- {markdown_text(note)}" for note in notes), ""]
    if plot_files:
        parts += ["## Plots", "", *(f"![{plot.stem}]({plot.relative_to(out).as_posix()})" for plot in plot_files), ""]
    parts += [
        "## Paper-reported reference numbers (not run here)",
        "",
        "Transcribed from each paper's main table, as printed (percentages as in the paper).",
        "",
        _markdown_table(*_reference_header_rows(), numeric_from=99),
        "",
    ]
    return "\n".join(parts)


def html_page(
    board: Leaderboard, plot_files: list[Path], out: Path, found: Statistics | None = None, no_plots: str = ""
) -> str:
    """A self-contained page: the ranked table (sortable by any column), the notes, the plots embedded as
    base64 PNGs and the paper-reported numbers apart (jinja2, every value escaped)."""
    import jinja2

    found = found or Statistics()
    header, rows = _reference_header_rows()
    reference = Table(header, rows, rows, [[False] * len(header) for _ in rows], len(header))
    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    template = environment.from_string(TABLE_MACRO + HTML_TEMPLATE)
    return template.render(
        legend=LEGEND.replace("**Bold**", "Bold"),
        ours=headline_table(board, found),
        reference=reference,
        notes=[*board.notes, *found.notes],
        plots=[{"name": plot.stem, "data": base64.b64encode(plot.read_bytes()).decode()} for plot in plot_files],
        no_plots=no_plots or "No plots.",
        paper_reported=PAPER_REPORTED,
    )


# ---------------------------------------------------------------- plots


def headline_panels(board: Leaderboard, found: Statistics) -> list[plots.Panel]:
    """One panel per task: every model's headline value, interval and tie mark; the task's chance level."""
    panels = []
    for task in board.tasks:
        metric = board.headline[task]
        bars = []
        for model in board.rows:
            entry = board.interval(model, task)
            bars.append(
                plots.Bar(
                    model,
                    board.value(model, task),
                    entry.get("lower"),
                    entry.get("upper"),
                    found.tied(model, task),
                    status(board, model, task),
                )
            )
        panels.append(
            plots.Panel(
                task,
                metric,
                metric_scale(metric, "unknown"),
                board.higher_is_better.get(task, True),
                board.chance(task),
                bars,
            )
        )
    return panels


def write_plots(board: Leaderboard, out: Path, found: Statistics) -> list[Path]:
    if not board.tasks or not board.rows:
        return []
    colors = plots.model_colors(list(board.rows))
    written = plots.plot_headlines(headline_panels(board, found), out)
    return written + [
        plots.plot_breakdown(task, metric, by_model, metric_scale(metric, "unknown"), out, colors)
        for (task, metric), by_model in board.breakdowns().items()
    ]


# ---------------------------------------------------------------- report and command


def write_report(
    results_dir: Path,
    out: Path | None = None,
    suite: Suite | None = None,
    board: Leaderboard | None = None,
    found: Statistics | None = None,
) -> dict[str, Path]:
    """Write the files the module docstring lists (default folder: ``<results_dir>/leaderboard``) as one set: each
    is made in a staging folder inside ``out``, then all replace the earlier report together
    (:func:`~abductive_tasks.inputs.files.write_set`), so an interruption, a full disk or a file-size limit leaves
    the previous complete report; plots of the earlier report that this one has not are removed after."""
    results_dir = Path(results_dir)
    out = Path(out or results_dir / "leaderboard")
    board = board or collect(results_dir, suite)
    found = found or statistics(board)
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out, prefix=".staging-"))
    try:
        (staging / "plots").mkdir()
        written = write_csv(board, staging, found)  # the tables first: they need nothing but the results
        skipped = ""
        try:
            plot_files = write_plots(board, staging / "plots", found)
        except plots.PlotsUnavailable as error:
            plot_files, skipped = [], str(error)
            print(f"leaderboard: {skipped}", file=sys.stderr)
        (staging / "leaderboard.md").write_text(markdown(board, plot_files, staging, found))
        (staging / "leaderboard.html").write_text(html_page(board, plot_files, staging, found, no_plots=skipped))
        files = {out / path.relative_to(staging): path.read_bytes() for path in staging.rglob("*") if path.is_file()}
        write_set(files)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for earlier in (out / "plots").glob("*.png"):  # a plot of an earlier report is no plot of this one
        if earlier not in files:
            earlier.unlink()
    return {
        **{kind: out / path.relative_to(staging) for kind, path in written.items()},
        "markdown": out / "leaderboard.md",
        "html": out / "leaderboard.html",
        "plots": out / "plots",
    }


def main(argv: list[str]) -> int:
    """``abductive-eval leaderboard RESULTS_DIR [--out DIR] [--compare A B]``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="abductive-eval leaderboard",
        description="Leaderboard (CSV, Markdown, HTML, PNG plots) from a results folder.",
    )
    parser.add_argument("results_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: RESULTS_DIR/leaderboard)")
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="paired difference A - B per task (needs both runs' --log_samples)",
    )
    args = parser.parse_args(argv)
    if not args.results_dir.is_dir():
        parser.error(f"{args.results_dir} is not a folder")
    board = collect(args.results_dir)
    unknown = [model for model in args.compare or () if model not in board.rows]
    if unknown:
        parser.error(f"--compare: no model {unknown} in {args.results_dir}; models: {', '.join(board.rows)}")
    found = statistics(board)
    try:
        written = write_report(args.results_dir, args.out, board=board, found=found)
        print(written["markdown"].read_text())
        if args.compare:
            a, b = args.compare
            rows = compare_models(board, found, a, b)
            written["compare_csv"] = written["markdown"].with_name(f"compare_{a}_vs_{b}.csv")
            written["compare_markdown"] = written["markdown"].with_name(f"compare_{a}_vs_{b}.md")
            write_set(
                {
                    written["compare_csv"]: _csv_text(COMPARE_COLUMNS, [_dict_row(COMPARE_COLUMNS, r) for r in rows]),
                    written["compare_markdown"]: compare_markdown(rows, a, b),
                }
            )
            print(written["compare_markdown"].read_text())
    except OSError as error:
        print(
            f"abductive-eval leaderboard: cannot write {error.filename or 'the report'} ({error.strerror or error}); "
            "the previous report stands",
            file=sys.stderr,
        )
        return 1
    for kind, path in written.items():
        print(f"{kind}: {path}")
    return 0
