"""What ``abductive-eval`` prints at the end of a run: one row per task, then the breakdowns.

The summary has a row per task of ours with its headline metric (the task YAML's
``metadata: headline_metric``, read through :mod:`abductive_tasks.runs.task_index`), the metric's 95%
bootstrap interval and chance level (the task's ``<prefix>_ci95`` dict), its coverage (units
scored of units present in the unit its interval resamples, e.g. ``12/12 items``; fewer under ``--limit``), a legend
line for a metric that is not an accuracy (:data:`LEGEND`), unparsable answers and
failed requests (the task's ``<prefix>_counts`` dict). Breakdowns (dict metrics of
``{label: {acc, n, lower, upper}}``) follow in a separate block, one wrapped line per breakdown.

**One scale.** Every value shown is in percent, as the four papers report their numbers: a metric
declared ``scale="fraction"`` (:class:`abductive_tasks.scoring.taskspec.Metric`) is multiplied by 100,
``"percent"`` (Sherlock's metrics, already 0-100) is shown as is, ``"raw"`` (not a percentage,
e.g. MuCR's 0-10 judge score) is shown as is and labelled ``raw``, and so is a metric without a
declaration. The results JSON keeps every value on its paper's own scale.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from abductive_tasks.inputs.loading import escaped
from abductive_tasks.lmms_source import limit_value
from abductive_tasks.reports.samples import limit_text
from abductive_tasks.scoring.coverage import dropped_in
from abductive_tasks.scoring.scales import declared_scale as metric_scale

FRACTION, PERCENT, RAW = "fraction", "percent", "raw"
WIDTH = 100  # wrap width of the breakdown block


# ---------------------------------------------------------------- scale


def shown(value: float | None, scale: str) -> float | None:
    """``value`` on the summary's scale: fractions in percent, everything else as is."""
    if value is None:
        return None
    return 100 * value if scale == FRACTION else value


def format_value(value: object, scale: str) -> str:
    """A raw metric value as the summary shows it ("n/a" when not computed)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "n/a"
    number = shown(float(value), scale)
    return f"{number:.1f}" if scale in (FRACTION, PERCENT) else f"{number:.4g}"


def _interval(entry: Mapping | None, scale: str) -> str:
    if not entry or entry.get("lower") is None or entry.get("upper") is None:
        return "-"
    return f"[{format_value(entry['lower'], scale)}, {format_value(entry['upper'], scale)}]"


# ---------------------------------------------------------------- reading a task's results


def _metrics(task_results: Mapping) -> dict[str, object]:
    """``{metric: value}`` without lmms-eval's filter suffix and stderr entries."""
    found = {}
    for key, value in task_results.items():
        name, comma, _filter = key.partition(",")
        if comma and not any(name.endswith(suffix) for suffix in ("_stderr", "_stderr_clt", "_stderr_clustered")):
            found[name] = value
    return found


def _suffixed(metrics: Mapping[str, object], suffix: str) -> dict:
    """The task's ``<prefix><suffix>`` dict (``_counts`` or ``_ci95``), {} when it has none."""
    return next((value for name, value in metrics.items() if name.endswith(suffix) and isinstance(value, dict)), {})


def is_breakdown(value: object) -> bool:
    """A breakdown: ``{label: {"acc": ..., "n": ..., ...}}``."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(cell, dict) and "acc" in cell and "n" in cell for cell in value.values())
    )


BARE_UNITS = ("pairs", "gt_images")  # DVE's premise-hypothesis pairs; Sherlock localization's images (gt boxes)

# Rows the benchmark's protocol leaves out before any unit is formed (DVE's loader, as the paper does): never in the
# units present, said beside the coverage so that "6/6 pairs" does not read as every row of the data.
EXCLUDED_ROWS = {
    "impossible_excluded": "impossible rows excluded",  # DVE: the annotators found no update possible
    "empty_text_excluded": "rows without text excluded",  # DVE: an empty premise, hypothesis or update
}

# Units the protocol counts although they were never asked (a chained task's items without their upstream output, at
# 0 or wrong, as the paper counts them): said beside the coverage so that "12/12 items" does not read as all answered.
UNASKED_UNITS = {"items_missing_upstream": "not asked (no upstream output), scored as unanswered"}


def _units(counts: Mapping[str, object]) -> tuple[int, int | None, str, dict[str, int]] | None:
    """(scored, present (None when unknown), unit, {label: count} left out) in the unit the task's interval
    resamples: MuCR Exp's ``items_judged`` of ``items_scored``, else ``<unit>_scored`` and ``<unit>_incomplete`` (and
    items the run left out, :func:`~abductive_tasks.scoring.coverage.dropped_in`), else a bare unit count, else
    documents; None: no count."""
    judged, pairs = counts.get("items_judged"), counts.get("items_scored")
    if isinstance(judged, int) and isinstance(pairs, int):  # MuCR Exp: the judge's means run over the pairs judged
        dropped = dropped_in(counts)
        return judged, pairs + sum(dropped.values()), "items", dropped
    scored_keys = sorted((key for key in counts if key.endswith("_scored")), key=lambda key: key != "items_scored")
    for key in scored_keys:
        unit, scored = key.removesuffix("_scored"), counts[key]
        if isinstance(scored, int):
            incomplete = counts.get(f"{unit}_incomplete", 0)
            if not isinstance(incomplete, int):
                return scored, None, unit, {}
            dropped = dropped_in(counts) if unit == "items" else {}
            return scored, scored + incomplete + sum(dropped.values()), unit, dropped
    for key in BARE_UNITS:
        if isinstance(units := counts.get(key), int):
            unit = key.removeprefix("gt_")
            incomplete = counts.get(f"{unit}_incomplete", 0)
            return units, units + incomplete if isinstance(incomplete, int) else None, unit, {}
    documents = counts.get("documents")
    return (documents, None, "documents", {}) if isinstance(documents, int) else None


def coverage(counts: Mapping[str, object], scored: bool = True) -> str:
    """Units scored of units present, in the unit the task's interval resamples (NL-Eye and MuCR items, DVE pairs,
    Sherlock inputs, images or chunks; :func:`_units`), items the run left out named, rows the protocol excluded
    (:data:`EXCLUDED_ROWS`) and units counted unasked (:data:`UNASKED_UNITS`). ``scored=False`` (the headline was
    not computed: no judge, no evaluator): none of them was scored, ``0/<present> <unit> (not scored)``, whatever the
    counts say reached the metric."""
    found = _units(counts)
    if found is None:
        return "-" if scored else "not scored"
    units, present, unit, dropped = found
    excluded = "".join(
        f", {count} {label}"
        for key, label in (EXCLUDED_ROWS | UNASKED_UNITS).items()
        if isinstance(count := counts.get(key), int) and not isinstance(count, bool) and count > 0
    )
    if not scored:
        return f"0/{units if present is None else present} {unit} (not scored){excluded}"
    if present is None or unit == "documents":
        return f"{units} {unit}{excluded}"
    left_out = "".join(f", {count} {label} left out" for label, count in dropped.items())
    return f"{units}/{present} {unit}{left_out}{excluded}"


# What a value means where it is not an accuracy (a line under the summary when the table shows the metric).
LEGEND = {
    "comparison_acc": "Sherlock comparison_acc: pairwise agreement with the annotators' ratings rescaled so that "
    "chance is 0 and full agreement 100 (-100 to 100; below 0: worse than chance)",
    "exp_score": "MuCR exp_score: the LLM judge's mean 0-10 score of the explanations (raw, not a percentage)",
}


# Why a task's headline is n/a by design (a line under the summary when one of its rows shows n/a).
NOT_SCORED = {
    "sherlock_test": "Sherlock's test split: n/a by design, its answer keys are private; `abductive-eval "
    "export-sherlock` writes the scores the official leaderboard takes",
}


def not_scored_key(task: str) -> str | None:
    """The :data:`NOT_SCORED` entry of ``task`` (``sherlock_retrieval_test`` -> ``sherlock_test``), if any."""
    key = f"{task.partition('_')[0]}_{task.rpartition('_')[2]}"
    return key if key in NOT_SCORED else None


def _count(counts: Mapping[str, object], key: str) -> str:
    value = counts.get(key)
    return str(value) if isinstance(value, int) else "-"


@dataclass(frozen=True)
class Row:
    """One task's line in the summary, raw values as in the results JSON."""

    task: str
    metric: str
    scale: str
    value: object
    interval: Mapping | None
    counts: Mapping[str, object]
    stage: bool = False  # a stage whose headline is coverage (:func:`stage_of`), not a score

    def cells(self) -> list[str]:
        chance = (self.interval or {}).get("chance")
        unit = " (raw)" if self.scale == RAW else " (stage coverage)" if self.stage else ""
        return [
            self.task,
            self.metric + unit,
            format_value(self.value, self.scale),
            _interval(self.interval, self.scale),
            format_value(chance, self.scale) if chance is not None else "-",
            coverage(self.counts, scored=format_value(self.value, self.scale) != "n/a"),
            _count(self.counts, "unparsable"),
            _count(self.counts, "request_failed"),
        ]


def task_row(task: str, task_results: Mapping, headline: str, scale: Callable[[str], str] = metric_scale) -> Row:
    metrics = _metrics(task_results)
    return Row(
        task,
        headline,
        scale(headline),
        metrics.get(headline),
        _suffixed(metrics, "_ci95").get(headline),
        _suffixed(metrics, "_counts"),
    )


# ---------------------------------------------------------------- rendering


def markdown_table(headers: list[str], rows: list[list[str]], right: set[int]) -> str:
    """A Markdown table with padded columns (readable as plain text too); ``right``: right-aligned column indices."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return (
            "| "
            + " | ".join(
                cell.rjust(width) if index in right else cell.ljust(width)
                for index, (cell, width) in enumerate(zip(cells, widths, strict=True))
            )
            + " |"
        )

    rule = (
        "|"
        + "|".join(
            "-" * (width + 1) + ":" if index in right else "-" * (width + 2) for index, width in enumerate(widths)
        )
        + "|"
    )
    return "\n".join([line(headers), rule, *map(line, rows)])


HEADERS = ["task", "headline metric", "value", "95% CI", "chance", "coverage", "unparsable", "failed requests"]


def wrap_cells(head: str, cells: list[str], width: int = WIDTH, indent: str = "    ") -> list[str]:
    """``head`` then the cells separated by "; ", wrapped between cells (a cell is never split)."""
    lines, line = [], head
    for index, cell in enumerate(cells):
        piece = cell + (";" if index < len(cells) - 1 else "")
        if len(line) + 1 + len(piece) > width and line != head:
            lines.append(line)
            line = indent + piece
        else:
            line = f"{line} {piece}"
    return [*lines, line]


def breakdown_lines(task: str, task_results: Mapping, scale: Callable[[str], str] = metric_scale) -> list[str]:
    """One wrapped entry per breakdown metric, a cell per label: ``label value [lower, upper] n=N`` (labels come from
    the data: shown escaped, :func:`~abductive_tasks.inputs.loading.escaped`)."""
    lines = []
    for name, value in sorted(_metrics(task_results).items()):
        if not is_breakdown(value):
            continue
        unit = scale(name)
        cells = []
        for label, cell in value.items():
            interval = _interval(cell, unit)
            figure = f"{format_value(cell['acc'], unit)}{'' if interval == '-' else ' ' + interval}"
            cells.append(f"{escaped(str(label))} {figure} n={cell['n']}")
        lines += wrap_cells(f"{task} {name}{' (raw)' if unit == RAW else ''}:", cells)
    return lines


def detail_lines(
    task: str, task_results: Mapping, headline: str, scale: Callable[[str], str] = metric_scale
) -> list[str]:
    """What the table leaves out of a task, as ``show`` prints it: each scalar metric but the headline, with its 95%
    interval where the task's ``<prefix>_ci95`` has one, then every entry of its ``<prefix>_counts``."""
    metrics = _metrics(task_results)
    intervals, counts = _suffixed(metrics, "_ci95"), _suffixed(metrics, "_counts")
    cells = []
    for name, value in sorted(metrics.items()):
        if name == headline or isinstance(value, dict) or name.endswith(("_ci95", "_counts")):
            continue
        unit = scale(name)
        interval = _interval(intervals.get(name), unit)
        shown_value = format_value(value, unit) + ("" if interval == "-" else " " + interval)
        cells.append(f"{name}{' (raw)' if unit == RAW else ''} {shown_value}")
    lines = wrap_cells(f"{task}:", cells) if cells else []
    if counts:
        lines += wrap_cells(f"{task} counts:", [f"{key} {count_text(key, value)}" for key, value in counts.items()])
    return lines


def count_text(key: str, value: object) -> str:
    """A count as ``show`` prints it: None (nothing asked: no judge, no trace) in words, not as ``None``."""
    if value is None:
        return "not judged" if "judg" in key else "not computed"
    return escaped(str(value))


DETAILS = [
    "Other metrics (percent unless raw: value [95% CI]) and counts. In the results JSON, results.<task>: each key",
    "with lmms-eval's filter suffix: <metric>,none; intervals in <prefix>_ci95,none, counts in <prefix>_counts,none.",
]
UPPER_BOUND = "an upper bound (gold-conditioned), not the paper's number; the leaderboard never ranks it"


STAGE = (
    "stage coverage, not a score: the share of documents the stage answered (its outputs are what a later task "
    "reads); never averaged or ranked by"
)


def stage_of(task: str) -> bool:
    """Whether our task is a stage whose headline is coverage (``nleye_describe``, ``mucr_*_ccot_graph``:
    :func:`abductive_tasks.runs.catalog.coverage_stages`)."""
    from abductive_tasks.runs import catalog

    return task in catalog.coverage_stages()


def upper_bound_of(task: str) -> bool:
    """Whether our task's YAML says it bounds the paper's number (``metadata: upper_bound``, as ``mucr_exp_gold``)."""
    from abductive_tasks.runs import catalog

    return bool(catalog.metadata(task).get("upper_bound", False))


def summary(
    run: Mapping,
    headline: Callable[[str], str | None],
    folder: Path | None = None,
    scale: Callable[[str], str] = metric_scale,
    upper_bound: Callable[[str], bool] = upper_bound_of,
    stage: Callable[[str], bool] = stage_of,
    details: bool = False,
) -> str:
    """The end-of-run summary of an lmms-eval results dict (``results``, ``config``, ``model_name``); a task that
    bounds the paper's number (``upper_bound(task)``, default :func:`upper_bound_of`) is said to be one, and so is a
    stage whose headline is coverage (``stage(task)``, default :func:`stage_of`). ``details`` (``show``): each task's
    other metrics with their intervals and its counts (:func:`detail_lines`) follow the breakdowns.

    ``headline(task)``: the task's headline metric, None for a task that is not ours (listed apart).
    """
    results = run.get("results", {})
    rows, breakdowns, others, extra = [], [], [], []
    for task in sorted(results):
        metric = headline(task)
        if metric is None:
            if any(key.partition(",")[1] for key in results[task]):  # a task with metrics, not a group header
                others.append(task)
            continue
        rows.append(replace(task_row(task, results[task], metric, scale), stage=stage(task)))
        breakdowns += breakdown_lines(task, results[task], scale)
        extra += detail_lines(task, results[task], metric, scale) if details else []
    config = run.get("config") or {}
    where = f"results in {folder}" if folder else "results not saved (no --output_path)"
    lines = [f"abductive-eval summary: {run.get('model_name') or config.get('model', '?')}, {where}"]
    if limit_value(config.get("limit")) is not None:  # -1 is lmms-eval's every document
        lines.append(f"--limit {limit_text(config['limit'])}: a partial evaluation, not a score")
    if config.get("offset"):  # the documents before it were not asked
        lines.append(f"--offset {config['offset']}: a partial evaluation, not a score")
    if rows:
        lines += [
            "Headline metric of each task in percent, as the papers report (raw: not a percentage); the results",
            "JSON keeps each paper's scale. Coverage: units scored/present, in the unit the 95% CI resamples.",
            "",
            markdown_table(HEADERS, [row.cells() for row in rows], right={2, 4, 6, 7}),
        ]
        lines += [f"  {LEGEND[metric]}" for metric in sorted({row.metric for row in rows}) if metric in LEGEND]
        lines += [f"  {row.task}: {UPPER_BOUND}" for row in rows if upper_bound(row.task)]
        lines += [f"  {row.task} {row.metric}: {STAGE}" for row in rows if row.stage]
        unscored = {key for row in rows if row.value is None and (key := not_scored_key(row.task))}
        lines += [f"  {NOT_SCORED[key]}" for key in sorted(unscored)]
        for row in rows:
            failed = row.counts.get("request_failed")
            if isinstance(failed, int) and failed:
                documents = row.counts.get("documents", "?")
                lines.append(
                    f"! {row.task}: {failed} of {documents} requests failed; they are never read as answers, so "
                    "this is not a clean score: rerun them."
                )
            judged = {key: count for key, count in row.counts.items() if key.endswith("judge_failed")}
            for key, count in judged.items():
                if isinstance(count, int) and count:
                    lines.append(
                        f"! {row.task}: the judge failed on {count} ({key}); they are not scored, so this is not a "
                        "clean score: check the judge (docs/judge.md) and rerun them."
                    )
    if breakdowns:
        lines += ["", "Breakdowns (percent unless raw: value [95% CI] n=units):", *("  " + line for line in breakdowns)]
    if extra:
        lines += ["", *DETAILS, *("  " + line for line in extra)]
    if others:
        lines += ["", f"Other tasks (lmms-eval's table above): {', '.join(others)}"]
    return "\n".join(lines)


def headline_lookup() -> Callable[[str], str | None]:
    """``headline(task)`` from the task YAML's ``metadata: headline_metric``; None for a task or group not ours.

    Read from our task folder as text-level YAML (:func:`abductive_tasks.runs.catalog.metadata`), neither lmms-eval's
    task index nor a hook is imported."""
    from abductive_tasks.runs import catalog

    ours = {entry.name for entry in catalog.entries() if entry.kind == "task"}

    def headline(task: str) -> str | None:
        # metadata missing (tests/test_task_yaml.py forbids it): listed with the other tasks, not a crash after the run
        return catalog.metadata(task).get("headline_metric") if task in ours else None

    return headline
