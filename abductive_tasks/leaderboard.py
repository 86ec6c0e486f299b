"""Leaderboard report from a batch results folder: CSV, Markdown, static HTML and PNG plots.

Every model folder the batch runner wrote (``<results_dir>/<model>/spec_identity.json``) gives one
row with each task's headline metric (the task YAML's ``metadata.headline_metric``), read only
from runs whose identity matches the spec's (same model, settings, data and versions; see
:mod:`abductive_tasks.identity`). A cell whose best run was limited (``--limit``), had failed
requests or failed shows that instead of a score; a full run without failed requests wins over
those, then the newest. Damaged files and folders without a batch identity are listed by path
(notes), never read as results. Dict-valued breakdown metrics (``{label: {"acc", "n"}}``, e.g.
NL-Eye's ``consistency_by_category``) become one grouped bar chart per task and metric.
The papers' own numbers are listed apart, marked "paper-reported", never mixed with our runs.
"""

from __future__ import annotations

import csv
import html
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from abductive_tasks.identity import SPEC_RECORD, DamagedFile, Outcome, Record, scan_runs
from abductive_tasks.suite import Suite, SuiteError

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
    PaperValue(DVE, "Table 4", "LLaVA-1.5", "Accuracy (%)", "dve_cls", "52.07", "the paper evaluates LLaVA-1.5, not 1.6"),
    # Sherlock (Hessel et al., ECCV 2022), Table 2 (test set; percent, as our Sherlock metrics): no GPT-4o or LLaVA row.
    PaperValue(SHERLOCK, "Table 2", "Random", "Retrieval / im→txt mean rank (↓)", "sherlock_retrieval", "495.4", "test split (our val-split tasks are the nearest)"),
    PaperValue(SHERLOCK, "Table 2", "Random", "Retrieval / P@1 im→txt (↑)", "sherlock_retrieval", "0.1", "test split (our val-split tasks are the nearest)"),
    PaperValue(
        SHERLOCK, "Table 2", "Random", "Localization / GT-Box / Auto-Box (↑)", "sherlock_localization", "30.0/7.9", "test split (our val-split tasks are the nearest)"
    ),
    PaperValue(
        SHERLOCK, "Table 2", "Random", "Comparison / Val / Test Human Acc (↑)", "sherlock_comparison", "1.1/-0.6", "test split (our val-split tasks are the nearest)"
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

    def value(self, model: str, task: str) -> float | None:
        return self.rows[model].get(task, {}).get(f"{self.headline[task]},none")

    def cell(self, model: str, task: str) -> str:
        """The table cell: the headline score, or what stands in its place."""
        return self.marks.get(model, {}).get(task) or _format(self.value(model, task))

    def breakdowns(self) -> dict[tuple[str, str], dict[str, dict[str, dict]]]:
        """``{(task, metric): {model: {label: {"acc", "n"}}}}`` for every dict-valued metric."""
        found: dict[tuple[str, str], dict[str, dict]] = {}
        for model, tasks in self.rows.items():
            for task in self.tasks:
                for key, value in tasks.get(task, {}).items():
                    name, _, filter_ = key.partition(",")
                    if filter_ and isinstance(value, dict) and value and all(isinstance(cell, dict) and "acc" in cell for cell in value.values()):
                        found.setdefault((task, name), {})[model] = value
        return found


def _mark(outcome: Outcome) -> str | None:
    """Why an outcome is not a score (None: it is one)."""
    reasons = [f"limited (limit={outcome.limit})"] if outcome.limit is not None else []
    reasons += [f"{outcome.failed_requests} failed requests"] if outcome.failed_requests else []
    return "; ".join(reasons) or None


def _fix(record: Record) -> str:
    """The command that recomputes a model's results."""
    if Path(record.spec).is_file():
        return f"abductive-eval batch {record.spec} --model {record.model}"
    return f"rerun the `abductive-eval serve` command that wrote {record.model}"


def collect(results_dir: Path, suite: Suite | None = None) -> Leaderboard:
    """One row per model folder holding a batch spec identity, each cell from the runs matching it (see the module docstring)."""
    suite = suite or Suite()
    results_dir = Path(results_dir)
    rows: dict[str, dict[str, dict]] = {}
    marks: dict[str, dict[str, str]] = {}
    notes: list[str] = []
    columns: list[str] = []
    for folder in sorted(path for path in results_dir.iterdir() if path.is_dir()):
        if not (folder / SPEC_RECORD).exists():
            if next(folder.rglob("*_results.json"), None):
                notes.append(f"{folder}: not shown: no {SPEC_RECORD} says which data and settings its results come from; run it through `abductive-eval batch`")
            continue
        try:
            spec = Record.read(folder / SPEC_RECORD)
        except DamagedFile as error:
            notes.append(f"{error}: {folder.name} not shown; rerun its batch spec to rewrite it")
            continue
        scan = scan_runs(folder, spec.identity)
        notes += [f"{damaged}: not read; fix: {_fix(spec)}" for damaged in scan.damaged]
        rows[folder.name], marks[folder.name] = {}, {}
        for task in spec.tasks:
            columns += [task] if task not in columns else []
            best = scan.best(task)
            if best is None:
                if scan.failed_run(task):
                    marks[folder.name][task] = "run failed"
            elif _mark(best):
                marks[folder.name][task] = _mark(best)
            else:
                rows[folder.name][task] = best.results
    known = suite.task_names
    present = {task for task in columns if task in known}
    headline: dict[str, str] = {}
    higher_is_better: dict[str, bool] = {}
    for task in present:
        try:
            facts = suite.facts(task)
        except SuiteError:
            continue
        headline[task] = facts.headline_metric
        higher_is_better[task] = facts.higher_is_better[facts.headline_metric]
    order = [task for task in suite.expand(["abductive"]) if task in headline]
    order += sorted(task for task in headline if task not in order)
    return Leaderboard(rows=dict(sorted(rows.items())), tasks=order, headline=headline, higher_is_better=higher_is_better, marks=marks, notes=notes)


def _format(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def headline_table(board: Leaderboard) -> tuple[list[str], list[list[str]]]:
    header = ["model", *(f"{task} ({board.headline[task]})" for task in board.tasks)]
    return header, [[model, *(board.cell(model, task) for task in board.tasks)] for model in board.rows]


def reference_rows(benchmarks: set[str] | None = None) -> list[PaperValue]:
    return [row for row in REFERENCE if benchmarks is None or row.benchmark in benchmarks]


def _markdown_table(header: list[str], rows: list[list[str]], numeric_from: int = 1) -> str:
    """A Markdown table; columns from ``numeric_from`` on are right-aligned."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if index >= numeric_from else "---" for index in range(len(header))) + "|"]
    return "\n".join([*lines, *("| " + " | ".join(row) + " |" for row in rows)])


def _reference_header_rows() -> tuple[list[str], list[list[str]]]:
    header = ["source", "benchmark", "table", "model", "paper column", "our task", "value (as printed)", "note"]
    return header, [[PAPER_REPORTED, row.benchmark, row.table, row.model, row.column, row.task, row.printed, row.note] for row in REFERENCE]


def write_csv(board: Leaderboard, out: Path) -> tuple[Path, Path]:
    header, rows = headline_table(board)
    ours = out / "leaderboard.csv"
    with ours.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows([[row[0], *(cell if cell != "—" else "" for cell in row[1:])] for row in rows])
    reference = out / "paper_reported.csv"
    with reference.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerows([_reference_header_rows()[0], *_reference_header_rows()[1]])
    return ours, reference


def markdown(board: Leaderboard, plots: list[Path], out: Path) -> str:
    parts = ["# Leaderboard", "", "Our runs: one row per model, each task's headline metric (`metadata.headline_metric`).", ""]
    parts += [_markdown_table(*headline_table(board)), ""]
    if board.notes:
        parts += ["Not shown:", "", *(f"- {note}" for note in board.notes), ""]
    if plots:
        parts += ["## Plots", "", *(f"![{plot.stem}]({plot.relative_to(out).as_posix()})" for plot in plots), ""]
    parts += [
        "## Paper-reported reference numbers (not run here)",
        "",
        "Transcribed from each paper's main table, as printed (percentages as in the paper; our table uses fractions).",
        "",
        _markdown_table(*_reference_header_rows(), numeric_from=99),
        "",
    ]
    return "\n".join(parts)


def _html_table(header: list[str], rows: list[list[str]], css_class: str) -> str:
    head = "".join(f"<th>{html.escape(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def html_page(board: Leaderboard, plots: list[Path], out: Path) -> str:
    images = "".join(f'<figure><img src="{html.escape(plot.relative_to(out).as_posix())}" alt="{html.escape(plot.stem)}"></figure>' for plot in plots)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>abductive-tasks leaderboard</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #999;padding:4px 8px;text-align:right}}
td:first-child,th:first-child{{text-align:left}}table.paper-reported{{background:#f4f4f4;font-style:italic}}img{{max-width:900px}}</style></head>
<body><h1>Leaderboard</h1>
<p>Our runs: one row per model, each task's headline metric.</p>
{_html_table(*headline_table(board), "ours")}
<h2>Plots</h2>{images or "<p>No breakdown metrics.</p>"}
<h2>Paper-reported reference numbers (not run here)</h2>
<p>Transcribed from each paper's main table, as printed; every row is marked {PAPER_REPORTED}.</p>
{_html_table(*_reference_header_rows(), PAPER_REPORTED)}
</body></html>
"""


def _pyplot():
    """matplotlib's pyplot on the file-only Agg backend (extra ``report``)."""
    try:
        import matplotlib
    except ImportError as error:
        raise SystemExit('the leaderboard plots need matplotlib: pip install "abductive-tasks[report]"') from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_headlines(board: Leaderboard, out: Path) -> Path | None:
    """One panel per task (own scale; "lower is better" marked), one bar per model."""
    plt = _pyplot()
    if not board.tasks or not board.rows:
        return None
    models = list(board.rows)
    columns = min(4, len(board.tasks))
    rows = -(-len(board.tasks) // columns)
    panel_width = max(3.0, 0.45 * len(models) + 1.5)
    figure, axes = plt.subplots(rows, columns, figsize=(panel_width * columns, 3.4 * rows), squeeze=False)
    for panel in axes.flat[len(board.tasks) :]:
        panel.set_visible(False)
    for panel, task in zip(axes.flat, board.tasks, strict=False):
        values = [board.value(model, task) for model in models]
        panel.bar(np.arange(len(models)), [np.nan if value is None else value for value in values], color=[f"C{index}" for index in range(len(models))])
        panel.set_xticks(np.arange(len(models)), models, rotation=30, ha="right", fontsize=8)
        direction = "" if board.higher_is_better.get(task, True) else " (lower is better)"
        panel.set_title(f"{task}\n{board.headline[task]}{direction}", fontsize=9)
        if all(value is None for value in values):
            panel.text(0.5, 0.5, "not computed", ha="center", va="center", transform=panel.transAxes, color="gray")
    figure.tight_layout()
    path = out / "plots" / "headline.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def plot_breakdown(task: str, metric: str, by_model: dict[str, dict], out: Path) -> Path:
    """Grouped bars: one group per label, one bar per model (accuracy; n in the label)."""
    plt = _pyplot()
    labels = sorted({label for cells in by_model.values() for label in cells})
    figure, axes = plt.subplots(figsize=(max(6, 0.9 * len(labels) * max(1, len(by_model)) / 2 + 2), 4))
    width = 0.8 / len(by_model)
    positions = np.arange(len(labels))
    for index, (model, cells) in enumerate(by_model.items()):
        values = [cells.get(label, {}).get("acc") for label in labels]
        axes.bar(positions + index * width, [np.nan if value is None else value for value in values], width, label=model)
    counts = {label: max(cells.get(label, {}).get("n", 0) for cells in by_model.values()) for label in labels}
    axes.set_xticks(positions + width * (len(by_model) - 1) / 2, [f"{label}\n(n={counts[label]})" for label in labels], fontsize=8)
    axes.set_ylim(0, 1)
    axes.set_ylabel("accuracy")
    axes.set_title(f"{task}: {metric}")
    axes.legend(fontsize=8)
    figure.tight_layout()
    path = out / "plots" / f"{task}__{metric}.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def write_report(results_dir: Path, out: Path | None = None, suite: Suite | None = None, board: Leaderboard | None = None) -> dict[str, Path]:
    """Write ``leaderboard.{csv,md,html}``, ``paper_reported.csv`` and ``plots/*.png`` (default: ``<results_dir>/leaderboard``)."""
    results_dir = Path(results_dir)
    out = Path(out or results_dir / "leaderboard")
    board = board or collect(results_dir, suite)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    plots = [path for path in [plot_headlines(board, out)] if path]
    plots += [plot_breakdown(task, metric, by_model, out) for (task, metric), by_model in board.breakdowns().items()]
    ours, reference = write_csv(board, out)
    (out / "leaderboard.md").write_text(markdown(board, plots, out))
    (out / "leaderboard.html").write_text(html_page(board, plots, out))
    return {"csv": ours, "paper_reported_csv": reference, "markdown": out / "leaderboard.md", "html": out / "leaderboard.html", "plots": out / "plots"}


def main(argv: list[str]) -> int:
    """``abductive-eval leaderboard RESULTS_DIR [--out DIR]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="abductive-eval leaderboard", description="Leaderboard (CSV, Markdown, HTML, PNG plots) from a results folder.")
    parser.add_argument("results_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: RESULTS_DIR/leaderboard)")
    args = parser.parse_args(argv)
    if not args.results_dir.is_dir():
        parser.error(f"{args.results_dir} is not a folder")
    board = collect(args.results_dir)
    written = write_report(args.results_dir, args.out, board=board)
    print(written["markdown"].read_text())
    for kind, path in written.items():
        print(f"{kind}: {path}")
    return 0
