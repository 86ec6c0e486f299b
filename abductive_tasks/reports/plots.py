"""Leaderboard plots (PNG, matplotlib's file-only Agg backend; extra ``report``).

* ``headline.png``: one panel per task whose headline metric reads as a percentage, each on its own
  y-axis in percent ("fraction" metrics x100, "percent" ones as they are; see
  :func:`abductive_tasks.reports.specs.metric_info`), one bar per model with its 95% interval as an
  error bar, the value printed above it (bold: the best model and those statistically tied with
  it, not for a stage's coverage nor an upper bound), and the task's chance level (the random-answer
  expectation the task reports) as a dashed line.
  A panel's title says its caveat as the tables do; a task that bounds the paper's number
  (``mucr_exp_gold``: an upper bound, gold-conditioned) is drawn apart: after the others, on a grey
  background, its bars pale and cross-hatched, its values never bold.
* ``headline_raw.png``: the same for headline metrics that are not percentages (e.g. a mean
  rank), each panel on its own axis.
* ``<task>__<metric>.png``: a breakdown (``{label: {"acc", "n", "lower", "upper"}}``) as grouped
  bars with error bars, one group per label.
"""

from __future__ import annotations

import hashlib
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

PERCENT_FACTOR = {"fraction": 100.0, "percent": 1.0}  # scale -> factor to percent; other scales are not percentages


@dataclass(frozen=True)
class Bar:
    """One model's value on one task, in the metric's own units; ``note`` stands in for a missing value."""

    model: str
    value: float | None
    lower: float | None = None
    upper: float | None = None
    best_or_tied: bool | None = None
    note: str = ""
    data: str = ""  # the data version ("data B") when the task's rows ran on more than one


@dataclass(frozen=True)
class Panel:
    """One task's headline metric across models."""

    task: str
    metric: str
    scale: str  # "fraction", "percent", "raw", or "unknown"
    higher_is_better: bool = True
    chance: float | None = None
    bars: list[Bar] = field(default_factory=list)
    upper_bound: bool = False  # bounds the paper's number (mucr_exp_gold): drawn apart, no value bold as best
    caveat: str = ""  # what the column is where not a score of the benchmark's protocol, as the tables label it
    bold_best: bool = True  # the best value and those tied with it bold: not an upper bound's nor a stage's coverage

    @property
    def percent(self) -> bool:
        return self.scale in PERCENT_FACTOR

    @property
    def factor(self) -> float:
        return PERCENT_FACTOR.get(self.scale, 1.0)


class PlotsUnavailable(RuntimeError):
    """matplotlib is not installed: the report writes its tables and skips the plots."""


def pyplot():
    """matplotlib's pyplot on the Agg backend; :class:`PlotsUnavailable` when the ``report`` extra is missing."""
    try:
        import matplotlib
    except ImportError:
        raise PlotsUnavailable(
            'plots skipped: matplotlib is not installed (pip install "abductive-tasks[report]")'
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _scaled(value: float | None, factor: float) -> float:
    return np.nan if value is None else value * factor


def _label(value: float, percent: bool) -> str:
    """Percentages with one decimal, other values with three significant digits."""
    return f"{value:.1f}" if percent else f"{value:.3g}"


def _draw_panel(axes, panel: Panel, colors: dict[str, str], unit: str) -> None:
    """Bars with error bars, value labels, the chance line and the direction of the metric."""
    factor = panel.factor
    positions = np.arange(len(panel.bars))
    values = np.array([_scaled(bar.value, factor) for bar in panel.bars])
    lower = np.array([_scaled(bar.lower, factor) for bar in panel.bars])
    upper = np.array([_scaled(bar.upper, factor) for bar in panel.bars])
    bar_colors = [colors[bar.model] for bar in panel.bars]
    drawn = axes.bar(positions, np.nan_to_num(values), color=bar_colors, alpha=0.35 if panel.upper_bound else 0.85)
    if panel.upper_bound:  # not the paper's number: apart from the scores beside it
        axes.set_facecolor(UPPER_BOUND_BACKGROUND)
    for patch, bar in zip(drawn, panel.bars, strict=True):  # another data version: hatched, and said under the bar
        if bar.data and bar.data != "data A":
            patch.set_hatch(DATA_HATCHES[(ord(bar.data[-1]) - ord("B")) % len(DATA_HATCHES)])
            patch.set_edgecolor("black")
        elif panel.upper_bound:
            patch.set_hatch(UPPER_BOUND_HATCH)
            patch.set_edgecolor("dimgray")
    # a thick tick at each value: a 0 bar is seen, not taken for a missing one
    axes.scatter(positions, values, marker="_", s=300, linewidths=3, color=bar_colors, zorder=3)
    has_interval = ~(np.isnan(lower) | np.isnan(upper) | np.isnan(values))
    if has_interval.any():
        errors = np.vstack([values - lower, upper - values])[:, has_interval]
        axes.errorbar(
            positions[has_interval],
            values[has_interval],
            yerr=np.clip(errors, 0, None),
            fmt="none",
            ecolor="black",
            elinewidth=1,
            capsize=3,
        )
    if panel.chance is not None:
        axes.axhline(panel.chance * factor, color="dimgray", linestyle="--", linewidth=1)
    for position, bar, value, low, high in zip(positions, panel.bars, values, lower, upper, strict=True):
        if np.isnan(value):
            note = bar.note or "not computed"
            axes.annotate(
                note,
                (position, 0),
                xytext=(0, 3),
                textcoords="offset points",
                ha="center",
                va="bottom",
                rotation=90,
                fontsize=7,
                color="gray",
            )
            continue
        below = value < 0  # a negative bar: its label below the interval
        anchor = np.nanmin([value, low]) if below else np.nanmax([value, high])
        best = bar.best_or_tied and panel.bold_best and not panel.upper_bound  # a bound or a coverage: no best score
        weight = "bold" if best else "normal"
        offset, align = ((0, -2), "top") if below else ((0, 2), "bottom")
        text = _label(value, percent=bool(unit))
        axes.annotate(
            text,
            (position, anchor),
            xytext=offset,
            textcoords="offset points",
            ha="center",
            va=align,
            fontsize=7,
            fontweight=weight,
        )
    names = [bar.model + (f" ({bar.data})" if bar.data else "") for bar in panel.bars]
    axes.set_xticks(positions, names, rotation=30, ha="right", fontsize=8)
    details = [] if panel.higher_is_better else ["lower is better"]
    details += [] if panel.chance is None else [f"chance {_label(panel.chance * factor, percent=bool(unit))}{unit}"]
    title = f"{panel.task}\n{panel.metric}" + (f" ({', '.join(details)})" if details else "")
    title += f"\n{panel.caveat}" if panel.caveat else ""
    axes.set_title(title, fontsize=9, style="italic" if panel.upper_bound else "normal")
    axes.axhline(0, color="black", linewidth=0.6)


def _grid(plt, count: int, models: int, sharey: bool):
    columns = min(4, count)
    rows = -(-count // columns)
    panel_width = max(3.0, 0.45 * models + 1.6)
    figure, axes = plt.subplots(
        rows, columns, figsize=(max(6.5, panel_width * columns), 3.6 * rows), squeeze=False, sharey=sharey
    )
    for unused in axes.flat[count:]:
        unused.set_visible(False)
    return figure, axes


def model_colors(models: Sequence[str]) -> dict[str, str]:
    """One colour per model, the same in every plot of a report."""
    return {model: f"C{index % 10}" for index, model in enumerate(dict.fromkeys(models))}


CAPTION = (
    "error bars: 95% bootstrap interval; dashed: chance level; bold value: best, or tied with it (paired 95% "
    "interval includes 0)"
)
DATA_CAPTION = "; hatched, (data B) and later: another data version than (data A), not comparable with it"
DATA_HATCHES = ("//", "xx", "..", "\\\\")
UPPER_BOUND_CAPTION = "; grey panel, pale cross-hatched bars: an upper bound, not the paper's number (never bold)"
UPPER_BOUND_HATCH = "++"  # none of DATA_HATCHES
UPPER_BOUND_BACKGROUND = "#ececec"


def _percent_limits(panels: Sequence[Panel]) -> tuple[float, float]:
    """A percentage panel's y range: 0-100, widened to its values, bounds and chance level (room for labels)."""
    points = [0.0, 100.0]
    for panel in panels:
        points += [panel.chance * panel.factor] if panel.chance is not None else []
        points += [
            value * panel.factor
            for bar in panel.bars
            for value in (bar.value, bar.lower, bar.upper)
            if value is not None
        ]
    low, high = min(points), max(points)
    return low - 0.12 * (high - low) * (low < 0), high + 0.12 * (high - low)


def headline_figures(panels: Sequence[Panel]) -> dict[str, object]:
    """The figures of :func:`plot_headlines`, by file stem:
    ``headline`` (percentages, one shared axis), ``headline_raw``; in each, the panels of upper bounds last."""
    plt = pyplot()
    colors = model_colors([bar.model for panel in panels for bar in panel.bars])
    figures = {}
    with_values = [panel for panel in panels if any(bar.value is not None for bar in panel.bars)]
    with_values.sort(key=lambda panel: panel.upper_bound)  # upper bounds after the scores: apart, not beside them
    for name, chosen, percent in (
        ("headline", [p for p in with_values if p.percent], True),
        ("headline_raw", [p for p in with_values if not p.percent], False),
    ):
        if not chosen:
            continue  # no figure without data
        figure, axes = _grid(plt, len(chosen), max(len(p.bars) for p in chosen), sharey=False)
        for panel_axes, panel in zip(axes.flat, chosen, strict=False):
            _draw_panel(panel_axes, panel, colors, "%" if percent else "")
            if percent:
                panel_axes.set_ylim(*_percent_limits([panel]))  # each panel its own range: one outlier squeezes none
                panel_axes.set_ylabel("percent", fontsize=8)
            else:
                panel_axes.margins(y=0.15)
                panel_axes.set_ylabel("raw value", fontsize=8)
        title = "headline metrics, percent" if percent else "headline metrics that are not percentages (own scales)"
        caption = CAPTION + (DATA_CAPTION if any(bar.data for panel in chosen for bar in panel.bars) else "")
        caption += UPPER_BOUND_CAPTION if any(panel.upper_bound for panel in chosen) else ""
        figure.suptitle(title + "\n" + textwrap.fill(caption, width=int(figure.get_figwidth() * 16)), fontsize=8)
        figure.tight_layout()
        figures[name] = figure
    return figures


def plot_headlines(panels: Sequence[Panel], out: Path) -> list[Path]:
    """``headline.png`` and ``headline_raw.png`` (see the module docstring); the paths written."""
    plt = pyplot()
    written = []
    for name, figure in headline_figures(panels).items():
        written.append(out / f"{name}.png")
        figure.savefig(written[-1], dpi=100)
        plt.close(figure)
    return written


def plot_breakdown(
    task: str,
    metric: str,
    by_model: dict[str, dict],
    scale: str,
    out: Path,
    colors: dict[str, str] | None = None,
    data: dict[str, str] | None = None,
) -> Path:
    """``<task>__<metric>.png`` of :func:`breakdown_figure` (each character of ``metric``, a results key, other than a
    letter, digit, ``_``, ``.`` or ``-`` as ``_``, and then a hash of the key: never a path or markup, nor another
    key's file); its path."""
    plt = pyplot()
    figure = breakdown_figure(task, metric, by_model, scale, colors, data)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", metric)
    if safe != metric:  # "per label" and "per_label" are two plots
        safe += "-" + hashlib.blake2b(metric.encode(), digest_size=4).hexdigest()
    path = out / f"{task}__{safe}.png"
    figure.savefig(path, dpi=100, bbox_inches="tight")  # the legend outside the axes included
    plt.close(figure)
    return path


def breakdown_figure(
    task: str,
    metric: str,
    by_model: dict[str, dict],
    scale: str,
    colors: dict[str, str] | None = None,
    data: dict[str, str] | None = None,
):
    """Grouped bars: one group per label (its item count below), one bar per model, 95% intervals as error bars,
    the legend outside the axes; a model on another data version (``data``: model -> "data B") hatched and named
    so in the legend."""
    data = data or {}
    plt = pyplot()
    colors = colors or model_colors(list(by_model))
    factor = PERCENT_FACTOR.get(scale, 1.0)
    labels = sorted({label for cells in by_model.values() for label in cells})
    models = list(by_model)
    figure, axes = plt.subplots(figsize=(max(6.0, 0.45 * len(labels) * max(1, len(models)) + 2), 4))
    width = 0.8 / max(1, len(models))
    positions = np.arange(len(labels))
    for index, model in enumerate(models):
        cells = [by_model[model].get(label, {}) for label in labels]
        values = np.array([_scaled(cell.get("acc"), factor) for cell in cells])
        lower = np.array([_scaled(cell.get("lower"), factor) for cell in cells])
        upper = np.array([_scaled(cell.get("upper"), factor) for cell in cells])
        where = positions + index * width
        version = data.get(model, "")
        hatch = (
            DATA_HATCHES[(ord(version[-1]) - ord("B")) % len(DATA_HATCHES)] if version not in ("", "data A") else None
        )
        axes.bar(
            where,
            np.nan_to_num(values),
            width,
            label=model + (f" ({version})" if version else ""),
            color=colors[model],
            alpha=0.85,
            hatch=hatch,
            edgecolor="black" if hatch else None,
        )
        axes.scatter(where, values, marker="_", s=120, linewidths=2.5, color=colors[model], zorder=3)  # 0 bars seen
        has_interval = ~(np.isnan(lower) | np.isnan(upper) | np.isnan(values))
        if has_interval.any():
            errors = np.clip(np.vstack([values - lower, upper - values])[:, has_interval], 0, None)
            axes.errorbar(
                where[has_interval],
                values[has_interval],
                yerr=errors,
                fmt="none",
                ecolor="black",
                elinewidth=0.8,
                capsize=2,
            )
    counts = {label: max(cells.get(label, {}).get("n", 0) for cells in by_model.values()) for label in labels}
    axes.set_xticks(
        positions + width * (len(models) - 1) / 2, [f"{label}\n(n={counts[label]})" for label in labels], fontsize=8
    )
    if scale in PERCENT_FACTOR:
        axes.set_ylim(0, 105)
        axes.set_ylabel("percent")
    axes.axhline(0, color="black", linewidth=0.6)
    axes.set_title(f"{task}: {metric} (error bars: 95% bootstrap interval)", fontsize=9)
    axes.legend(
        fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, title="model"
    )  # off the bars
    figure.tight_layout()
    return figure
