"""Rendering the leaderboard: the CSV files, the Markdown and HTML pages and the plots."""

from __future__ import annotations

import base64
import binascii
import contextlib
import csv
import hashlib
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.hints import counted
from abductive_tasks.inputs.files import read_regular, seal, unseal, write_atomic
from abductive_tasks.reports import plots
from abductive_tasks.reports.leaderboard.cells import (
    Leaderboard,
    is_breakdown,
    is_number,
    number_text,
    precision,
    read_text,
    status,
)
from abductive_tasks.reports.leaderboard.paper import PAPER_REPORTED, REFERENCE
from abductive_tasks.reports.leaderboard.provenance import (
    Provenance,
    as_json,
    footnote_lines,
    header_lines,
    provenance,
)
from abductive_tasks.reports.leaderboard.ranking import (
    COMPARE_COLUMNS,
    Statistics,
    average,
    average_tasks,
    flags,
    ranked_tasks,
    ranking,
)
from abductive_tasks.reports.plots import PERCENT_FACTOR
from abductive_tasks.reports.specs import task_metric
from abductive_tasks.scoring.scales import declared_scale as metric_scale


def _format(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _plain(value: object) -> str:
    """A CSV value: full precision, '' for none."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def compare_markdown(rows: list[dict], a: str, b: str, caveats: Mapping[str, str] | None = None) -> str:
    """The paired comparison as Markdown: values, difference and interval in percent (raw where labelled), at the
    precision the interval supports; p-values as they are; a task's caveat (``caveats``: an upper bound, a stage's
    coverage) beside its scale."""
    caveats = caveats or {}
    header = ["task", "metric (scale)", a, b, f"{a} − {b}", "95% interval", "p", "units", "note"]
    table = []
    for row in rows:
        scale = metric_scale(row["metric"], "raw")
        factor = PERCENT_FACTOR.get(scale, 1.0)
        shown = {
            key: None if not is_number(row.get(key)) else row[key] * factor
            for key in ("value_a", "value_b", "difference", "lower", "upper")
        }
        digits = precision(shown["lower"], shown["upper"], scale in PERCENT_FACTOR)
        details = ["%" if scale in PERCENT_FACTOR else "raw"] + (
            [caveats[row["task"]]] if caveats.get(row["task"]) else []
        )
        table.append(
            [
                row["task"],
                f"{row['metric']} ({'; '.join(details)})",
                *(number_text(shown[key], digits) for key in ("value_a", "value_b", "difference")),
                f"[{number_text(shown['lower'], digits)}, {number_text(shown['upper'], digits)}]"
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
    return "\n".join([intro, "", markdown_table(header, table, numeric_from=2), ""])


# ---------------------------------------------------------------- tables


def _header(board: Leaderboard) -> list[str]:
    def title(task: str) -> str:
        chance = board.chance(task)
        scale = "%" if board.percent(task) else "raw"
        details = [scale] + ([] if board.higher_is_better.get(task, True) else ["lower is better"])
        details += [board.caveat(task)] if board.caveat(task) else []
        if chance is not None:
            details.append(f"chance {number_text(chance * board.factor(task), 1 if board.percent(task) else 3)}")
        return f"{task} ({board.headline[task]}; {', '.join(details)})"

    averaged = average_tasks(board)
    average = [f"average (%, {counted(len(averaged), 'task')})"] if averaged else []
    return ["rank", "model", *average, *(title(task) for task in board.tasks)]


@dataclass
class Table:
    """A rendered table's content, once, for every format: header, cell texts, sort keys (numbers where a cell
    has one), which cells are bold, and how many leading columns are text."""

    header: list[str]
    rows: list[list[str]]
    keys: list[list[object]]
    bold: list[list[bool]]
    text_columns: int = 2

    def cells(self, strong: tuple[str, str] = ("", "")) -> list[list[str]]:
        """The cell texts, bold cells' values (their first word) between ``strong``."""
        return [
            [
                (
                    f"{strong[0]}{text.partition(' ')[0]}{strong[1]}"
                    + (" " + text.partition(" ")[2] if " " in text else "")
                )
                if bold
                else text
                for text, bold in zip(row, bolds, strict=True)
            ]
            for row, bolds in zip(self.rows, self.bold, strict=True)
        ]

    def markdown(self) -> str:
        """The table in Markdown (a pipe table, as pandas' ``to_markdown`` writes it), every text escaped
        (:func:`markdown_text`)."""
        import tabulate

        align = ["left"] * self.text_columns + ["right"] * (len(self.header) - self.text_columns)
        escaped = Table(
            [markdown_text(name) for name in self.header],
            [[markdown_text(text) for text in row] for row in self.rows],
            self.keys,
            self.bold,
            self.text_columns,
        )
        return tabulate.tabulate(
            escaped.cells(("**", "**")),
            headers=escaped.header,
            tablefmt="pipe",
            colalign=align,
            disable_numparse=True,
        )


def markdown_text(text: str) -> str:
    """``text`` as literal Markdown text: raw HTML a results file might carry, table bars, and the joints of a link
    (``](`` and ``][``: a planted folder's name in a note is no link; an interval's ``[33, 83]`` stays as it is) are
    escaped; a line break is a space (it would start a link definition or a block of its own)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
    return " ".join(text.splitlines()).replace("](", "]\\(").replace("][", "]\\[")


def headline_table(board: Leaderboard, found: Statistics | None = None) -> Table:
    """The headline table, rows in rank order: rank, model, the average where meaningful, each task's cell;
    the best of each task and those tied with it bold (not in a column of an upper bound or a stage's coverage)."""
    found = found or Statistics()
    ranks = ranking(board)

    def order(model: str) -> tuple:
        rank = ranks[model].rstrip("=")
        return (rank == "—", int(rank) if rank != "—" else 0, model)

    averaged = bool(average_tasks(board))
    rows, keys, bold = [], [], []
    for model in sorted(board.rows, key=order):
        mean = average(board, model) if averaged else None
        row = [ranks[model], model] + ([number_text(mean, 1)] if averaged else [])
        key: list[object] = [order(model)[1] if ranks[model] != "—" else None, model] + ([mean] if averaged else [])
        strong = [False, False] + ([False] if averaged else [])
        for task in board.tasks:
            row.append(board.cell(model, task))
            key.append(None if board.marks.get(model, {}).get(task) else board.shown(model, task)[0])
            marked = board.marks.get(model, {}).get(task)
            strong.append(bool(found.tied(model, task)) and not marked and board.bold_best(task))
        rows.append(row)
        keys.append(key)
        bold.append(strong)
    return Table(_header(board), rows, keys, bold)


def markdown_table(header: list[str], rows: list[list[str]], numeric_from: int = 1) -> str:
    """A Markdown table (through :class:`Table`); columns from ``numeric_from`` on are right-aligned."""
    return Table(header, rows, rows, [[False] * len(header) for _ in rows], numeric_from).markdown()


def reference_header_rows() -> tuple[list[str], list[list[str]]]:
    header = ["source", "benchmark", "table", "model", "paper column", "our task", "value (as printed)", "note"]
    return header, [
        [PAPER_REPORTED, row.benchmark, row.table, row.model, row.column, row.task, row.printed, row.note]
        for row in REFERENCE
    ]


def standing(board: Leaderboard) -> dict[str, tuple[str, float | None]]:
    """Each row's rank (as the tables print it) and average (percent; None where the row has none), by model."""
    ranks, averaged = ranking(board), bool(average_tasks(board))
    return {model: (ranks[model], average(board, model) if averaged else None) for model in board.rows}


def wide_table(board: Leaderboard, found: Statistics) -> tuple[list[str], list[list[str]]]:
    """``leaderboard.csv``: one row per model, machine-friendly columns per task (see the module docstring): its rank
    and average (percent) as the tables give them and the tasks averaged, then per task the headline on its results'
    own scale, named in ``<task>__scale`` (``fraction``, ``percent``, ``raw``), ``<task>__upper_bound``: whether the
    task bounds the paper's number (:attr:`~Leaderboard.upper_bounds`, never averaged), and ``<task>__caveat``: what
    the column is where not a score of the protocol (an upper bound, a stage's coverage, upstream only), as the tables
    label it."""
    header = ["model", "rank", "average_percent", "average_tasks"]
    rank_of, averaged = standing(board), " ".join(average_tasks(board))
    read_columns = {task for task in board.tasks for model in board.rows if board.read_from(model, task)}
    data_columns = {task for task in board.tasks if board.data_groups(task)}
    settings_columns = {task for task in board.tasks if board.settings_versions(board.benchmarks.get(task, task))}
    for task in board.tasks:
        base = f"{task}__{board.headline[task]}"
        header += [
            base,
            f"{base}__lower",
            f"{base}__upper",
            f"{base}__stderr",
            f"{base}__tied_with_best",
            f"{task}__scale",
            f"{task}__upper_bound",
            f"{task}__caveat",
            f"{task}__status",
        ]
        header += [f"{task}__data"] if task in data_columns else []
        header += [f"{task}__settings"] if task in settings_columns else []
        header += [f"{task}__read_from"] if task in read_columns else []
    rows = []
    for model in board.rows:
        row = [model, rank_of[model][0], _plain(rank_of[model][1]), averaged]
        for task in board.tasks:
            entry = board.interval(model, task)
            values = (
                board.value(model, task),
                entry.get("lower"),
                entry.get("upper"),
                entry.get("stderr"),
                found.tied(model, task),
            )
            row += [*map(_plain, values), metric_scale(board.headline[task], "unknown")]
            row += [_plain(board.upper_bound(task)), board.caveat(task), status(board, model, task)]
            row += [board.data_group(model, task) or ""] if task in data_columns else []
            row += [board.settings_group(model, task) or ""] if task in settings_columns else []
            row += [read_text(board.read_from(model, task))] if task in read_columns else []
        rows.append(row)
    return header, rows


LONG_COLUMNS = (
    "model task metric label headline value lower upper stderr units resamples chance scale higher_is_better "
    "upper_bound caveat tied_with_best status data settings read_from"
).split()


def long_rows(board: Leaderboard, found: Statistics) -> list[dict]:
    """``leaderboard_long.csv``: one row per model x task x metric (a breakdown: one per label),
    numbers at full precision; ``upper_bound`` and ``caveat``: what the column is, as the tables label it."""
    rows = []
    for model in board.rows:
        for task in board.tasks:
            headline = board.headline[task]
            why = status(board, model, task)
            labels = {
                "data": board.data_group(model, task) or "",
                "settings": board.settings_group(model, task) or "",
                "read_from": read_text(board.read_from(model, task)),
                **flags(board, task),
            }
            if task not in board.rows[model]:
                rows.append(
                    {
                        "model": model,
                        "task": task,
                        "metric": headline,
                        "headline": True,
                        "scale": metric_scale(headline, "unknown"),
                        "status": why,
                        **labels,
                    }
                )
                continue
            for key, value in board.rows[model][task].items():
                name, _, filter_ = key.partition(",")
                if not filter_ or "_stderr" in name:
                    continue
                info = task_metric(task, name)
                base = {
                    "model": model,
                    "task": task,
                    "metric": name,
                    "headline": name == headline,
                    "scale": metric_scale(name, "unknown"),
                    **labels,
                }
                base["higher_is_better"] = None if info is None else info.higher_is_better
                if is_breakdown(value):
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


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet run a cell as a formula (OWASP)


def inert(cell: str) -> str:
    """A CSV cell a spreadsheet would run as a formula (a model folder named ``=HYPERLINK(...)``) with ``'`` before
    it, so it reads as text; a number (``-0.05``) is left as it is."""
    if not cell.startswith(_FORMULA_STARTS):
        return cell
    try:
        float(cell)
    except ValueError:
        return "'" + cell
    return cell


def csv_text(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows([inert(cell) for cell in row] for row in rows)
    return buffer.getvalue()


def dict_row(columns: list[str], row: dict) -> list[str]:
    return [_plain(row.get(column)) for column in columns]


def write_csv_file(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.write_text(csv_text(header, rows), newline="")
    return path


def write_dicts(path: Path, columns: list[str], rows: list[dict]) -> Path:
    return write_csv_file(path, columns, [dict_row(columns, row) for row in rows])


# The shape of the files a batch and its leaderboard write (leaderboard.json, the CSVs, run and spec records, stage
# outputs): raised when one changes, so a consumer can tell (tests/snapshots/formats.txt, utils/format_snapshots.py).
EXPORT_FORMAT = 13  # 2 (2026-12-01): a run record seals its outputs once it ended (`outputs`); 3 (2026-12-02): its
# weights (`weights`, the identity's model entry too); 4 (2026-12-02): leaderboard.json says the score settings and
# judge of each cell (`settings_label`) and of the rows (`provenance.settings`); 5 (2026-12-02): per benchmark
# (`provenance.settings`: benchmark -> its settings sets, each the variables that can change its scores); 6
# (2026-12-02): the CSVs say each cell's data and settings group (`<task>__data`, `<task>__settings`; the long one's
# `data`, `settings`, `read_from`); 7 (2026-12-02): a spec record names the tasks the spec asked for (`asked`; the
# rest ran only as their upstream stages); 8 (2026-12-02): the exports say what the tables say: leaderboard.csv each
# row's `rank`, `average_percent` and `average_tasks` and each task's `<task>__scale`, leaderboard.json `ranking` and
# each cell's `scale`; 9 (2026-12-02): a results file of abductive-eval says what its chained tasks read
# (`abductive_tasks.inputs`); 10 (2026-12-04): the exports flag a task that bounds the paper's number, as the tables
# label it (`upper_bound`: leaderboard.csv's `<task>__upper_bound`, the long CSV's and the comparison CSVs' column,
# each leaderboard.json cell's field and `ranking.upper_bounds`); 11 (2026-12-04): they say each column's caveat as the
# tables do (`caveat`: an upper bound, a stage's coverage, upstream only; leaderboard.csv's `<task>__caveat`, the long
# CSV's and the comparison CSVs' column, each leaderboard.json cell's field) and list the stages (`ranking.stages`)
# 12 (2026-12-04): a results file of abductive-eval says what each stage task's samples give a later reader, by
# content (`abductive_tasks.samples_records`), so a reader of them through a variable can tell an edit; 13
# (2026-12-04): and the run's score-changing ABDUCTIVE_* settings (`abductive_tasks.settings`), as a batch's identity


def json_text(board: Leaderboard, found: Statistics, origin: Provenance) -> str:
    """``leaderboard.json``: its :data:`EXPORT_FORMAT`, the provenance in full, the ranking (each row's rank and
    average, the tasks averaged, those run only as upstream, those that bound the paper's number: ``upper_bounds``,
    the stages whose headline is their coverage: ``stages``) and per model and task the cell (value and interval on
    the results' own scale, named in ``scale``, whether its task is an upper bound, ``upper_bound``, what it is where
    not a score, ``caveat``, its status, its data version and score settings, whose outputs it read where another
    model's)."""
    cells = {
        model: {
            task: {
                "metric": board.headline[task],
                "scale": metric_scale(board.headline[task], "unknown"),
                **flags(board, task),
                "value": board.value(model, task),
                **{key: board.interval(model, task).get(key) for key in ("lower", "upper", "stderr")},
                "tied_with_best": found.tied(model, task),
                "status": status(board, model, task),
                "data": board.data.get(model, {}).get(task),
                "data_label": board.data_group(model, task) or "",
                "settings_label": board.settings_group(model, task) or "",
                "read_from": board.read_from(model, task),
            }
            for task in board.tasks
        }
        for model in board.rows
    }
    ranks = {model: {"rank": rank, "average_percent": mean} for model, (rank, mean) in standing(board).items()}
    ranked = {
        "average_tasks": average_tasks(board),
        "upstream_only": sorted(board.upstream_only),
        "upper_bounds": [task for task in board.tasks if board.upper_bound(task)],
        "stages": [task for task in board.tasks if task in board.stages],
        "rows": ranks,
    }
    document = {"format": EXPORT_FORMAT, "provenance": as_json(origin), "ranking": ranked, "cells": cells}
    return json.dumps(document, indent=2, default=str) + "\n"


def write_csv(board: Leaderboard, out: Path, found: Statistics | None = None) -> dict[str, Path]:
    """``leaderboard.csv``, ``leaderboard_long.csv``, ``comparisons.csv`` and ``paper_reported.csv``."""
    found = found or Statistics()
    comparisons = [
        {**comparison.as_row(), **flags(board, task)}
        for task in board.tasks
        if task in found.ties
        for comparison in found.ties[task].comparisons.values()
    ]
    return {
        "csv": write_csv_file(out / "leaderboard.csv", *wide_table(board, found)),
        "long_csv": write_dicts(out / "leaderboard_long.csv", LONG_COLUMNS, long_rows(board, found)),
        "comparisons_csv": write_dicts(out / "comparisons.csv", COMPARE_COLUMNS, comparisons),
        "paper_reported_csv": write_csv_file(out / "paper_reported.csv", *reference_header_rows()),
    }


LEGEND = (
    "Rows ranked by the average column (or, without one, by the first task ranked by: see below); equal ranks are "
    "marked =. "
    "Each cell: the headline value in percent (raw where the header says so), "
    "[95% bootstrap interval over the benchmark's units: NL-Eye/MuCR item, DVE pair, Sherlock image or chunk], "
    "printed to the precision the interval supports. "
    "**Bold**: the best model on the task and every model statistically tied with it "
    "(the paired 95% bootstrap interval of best − model, over the units both were scored on, includes 0; "
    "one comparison per model, no correction for multiple comparisons). "
    "Average: the mean of the accuracy headlines (shares of units; not a signed score such as Sherlock's comparison "
    "accuracy, -100 to 100; not an upper bound, nor a stage's coverage such as nleye_describe's share of images "
    "described, nor a task the spec did not ask for, run only as an asked task's upstream, such as mucr_cue for "
    "mucr_exp: shown, labelled so), for rows with a score on each, on the same data and score settings, each on its "
    "own outputs. "
    "A cell that read another model's outputs names them, e.g. (descriptions: dd), and one that ran with other score "
    "settings or another judge than most rows says so, (settings B): each is another protocol, ranked and compared "
    "only with the cells that read the same, with the same settings. "
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
.provenance{font-size:13px;background:#f4f6fa;border-left:4px solid #99a;padding:2px 10px}
.provenance p,.footnote p{margin:4px 0}.footnote{font-size:12px;color:#555}
</style></head>
<body><h1>Leaderboard</h1>
<div class="provenance">{% for line in header %}<p>{{ line }}</p>{% endfor %}</div>
<p>Our runs: one row per model, each task's headline metric. Click a column header to sort.</p>
<p>{{ legend }}</p>
<div class="wide">{{ table(ours, "ours") }}</div>
<div class="footnote">{% for line in footnote %}<p>{{ line }}</p>{% endfor %}</div>
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
{%- if content.bold[outer][loop.index0] %}<strong>{{ text.partition(' ')[0] }}</strong>
{{- ' ' ~ text.partition(' ')[2] if ' ' in text }}{% else %}{{ text }}{% endif %}</td>
{%- endfor %}</tr>
{% endfor %}</tbody></table>
{%- endmacro %}"""


def averaged_text(board: Leaderboard) -> str:
    """Which tasks the average column spans here, and the columns shown but not asked by the spec."""
    averaged = average_tasks(board)
    spans = (
        f"Averaged ({counted(len(averaged), 'task')}): {', '.join(averaged)}."
        if averaged
        else "No average column here."
    )
    upstream = [task for task in board.tasks if task in board.upstream_only]
    return spans + (f" Not asked by the spec, run as upstream only: {', '.join(upstream)}." if upstream else "")


def legend(board: Leaderboard) -> str:
    """:data:`LEGEND` and :func:`averaged_text`; without an average column, the task the rows are ranked by (a
    walkthrough's legend said "the first task" where the first column shown was an upstream one, not ranked by)."""
    ranked = ranked_tasks(board)
    by = "" if average_tasks(board) or not ranked else f" Ranked by {ranked[0]} (no average column)."
    return f"{LEGEND} {averaged_text(board)}{by}"


def markdown(
    board: Leaderboard,
    plot_files: list[Path],
    out: Path,
    found: Statistics | None = None,
    origin: Provenance | None = None,
) -> str:
    found = found or Statistics()
    origin = origin or provenance(board)
    parts = [
        "# Leaderboard",
        "",
        *(f"{markdown_text(line)}  " for line in header_lines(origin, len(board.rows))),
        "",
        "Our runs: one row per model, each task's headline metric (`metadata.headline_metric`).",
        "",
        legend(board),
        "",
        headline_table(board, found).markdown(),
        "",
        *(f"<sub>{markdown_text(line)}</sub>  " for line in footnote_lines(origin)),
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
        markdown_table(*reference_header_rows(), numeric_from=99),
        "",
    ]
    return "\n".join(parts)


def console_summary(board: Leaderboard, found: Statistics, origin: Provenance) -> str:
    """What ``abductive-eval leaderboard`` prints: the header block, the ranked table and what was not read (the
    legend, footnote, plots and paper-reported numbers are in the files)."""
    notes = [*board.notes, *found.notes]
    return "\n".join(
        [
            *header_lines(origin, len(board.rows)),
            "",
            headline_table(board, found).markdown(),
            averaged_text(board),
            "",
            *(["Not shown or to read with care:", *(f"- {note}" for note in notes), ""] if notes else []),
            "The legend, footnote (task versions, each model's weights and judge) and plots: leaderboard.md, .html",
            "",
        ]
    )


def html_page(
    board: Leaderboard,
    plot_files: list[Path],
    out: Path,
    found: Statistics | None = None,
    no_plots: str = "",
    origin: Provenance | None = None,
) -> str:
    """A self-contained page: where its numbers come from, the ranked table (sortable by any column), the notes, the
    plots embedded as base64 PNGs and the paper-reported numbers apart (jinja2, every value escaped)."""
    import jinja2

    found = found or Statistics()
    origin = origin or provenance(board)
    header, rows = reference_header_rows()
    reference = Table(header, rows, rows, [[False] * len(header) for _ in rows], len(header))
    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    template = environment.from_string(TABLE_MACRO + HTML_TEMPLATE)
    return template.render(
        legend=legend(board).replace("**Bold**", "Bold"),
        ours=headline_table(board, found),
        reference=reference,
        notes=[*board.notes, *found.notes],
        plots=[{"name": plot.stem, "data": base64.b64encode(plot.read_bytes()).decode()} for plot in plot_files],
        no_plots=no_plots or "No plots.",
        paper_reported=PAPER_REPORTED,
        header=header_lines(origin, len(board.rows)),
        footnote=footnote_lines(origin),
    )


# ---------------------------------------------------------------- plots


def headline_panels(board: Leaderboard, found: Statistics) -> list[plots.Panel]:
    """One panel per task: every model's headline value, interval and tie mark; the task's chance level, its caveat
    (:meth:`~Leaderboard.caveat`), whether it bounds the paper's number (drawn apart) and whether its best is bold."""
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
                    board.data_group(model, task) or "",
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
                upper_bound=board.upper_bound(task),
                caveat=board.caveat(task),
                bold_best=board.bold_best(task),
            )
        )
    return panels


def write_plots(board: Leaderboard, out: Path, found: Statistics) -> list[Path]:
    """Every plot of the report, each drawn once per input (:func:`cached_plots`); the paths written."""
    if not board.tasks or not board.rows:
        return []
    colors = plots.model_colors(list(board.rows))
    panels = headline_panels(board, found)
    inputs = ("headlines", [asdict(panel) for panel in panels])
    written = cached_plots(inputs, out, partial(plots.plot_headlines, panels))
    for (task, metric), by_model in board.breakdowns().items():
        scale = metric_scale(metric, "unknown")
        data = {model: label for model in by_model if (label := board.data_group(model, task))}
        inputs = ("breakdown", task, metric, by_model, scale, colors, data)
        written += cached_plots(inputs, out, partial(_breakdown, task, metric, by_model, scale, colors, data))
    return written


def _breakdown(
    task: str, metric: str, by_model: dict, scale: str, colors: dict[str, str], data: dict[str, str], out: Path
) -> list[Path]:
    return [plots.plot_breakdown(task, metric, by_model, scale, out, colors, data)]


PLOT_CACHE = "leaderboard_plots"  # under ABDUCTIVE_CACHE


def plot_key(inputs: object) -> str:
    """The cache key of a plot: a hash of its input data and of the code that draws it (the plots module)."""
    digest = hashlib.sha256(Path(plots.__file__).read_bytes())
    digest.update(json.dumps(inputs, sort_keys=True, default=repr).encode())
    return digest.hexdigest()


def cached_plots(inputs: object, out: Path, draw: Callable[[Path], list[Path]]) -> list[Path]:
    """The PNG files ``draw(out)`` writes for ``inputs``, drawn once per input: a cache entry (keyed by
    :func:`plot_key`, sealed so that its content is checked before it is reused, written atomically) gives the same
    files again without matplotlib."""
    key = plot_key(inputs)
    entry = settings.cache_root() / PLOT_CACHE / f"{key}.json"
    files = _cached(entry, key)
    if files is None:
        written = draw(out)
        files = {path.name: path.read_bytes() for path in written}
        payload = json.dumps({name: base64.b64encode(data).decode() for name, data in files.items()}).encode()
        blob = seal(payload, f"{PLOT_CACHE}:{key}")
        if blob is not None:
            with contextlib.suppress(OSError):  # an unwritable cache only means drawing again next time
                write_atomic(entry, blob)
        return written
    for name, data in files.items():
        (out / name).write_bytes(data)
    return [out / name for name in files]


def _cached(entry: Path, key: str) -> dict[str, bytes] | None:
    """The files of a sealed cache entry whose seal matches its content; None when absent or not to be trusted."""
    try:
        payload = unseal(read_regular(entry), f"{PLOT_CACHE}:{key}")
        files = json.loads(payload) if payload is not None else None
        if not isinstance(files, dict) or not all(Path(name).name == name.strip() != "" for name in files):
            return None
        return {name: base64.b64decode(data, validate=True) for name, data in files.items()}
    except (OSError, ValueError, TypeError, binascii.Error):
        return None
