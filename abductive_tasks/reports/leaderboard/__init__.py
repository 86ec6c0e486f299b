"""Leaderboard report from a batch results folder: CSV, Markdown, static HTML and PNG plots.

Every model folder the batch runner wrote (``<results_dir>/<model>/spec_identity.json``) gives one
row with each task's headline metric (the task YAML's ``metadata.headline_metric``), read only
from runs whose identity matches the spec's (same model, settings, data and versions; see
:mod:`abductive_tasks.runs.identity`). A cell whose best run was limited (``--limit``, as lmms-eval's own
results record it) or partial (items left out, e.g. without descriptions), had failed requests (the model's or
the judge's), failed, has counts that disagree (:func:`~abductive_tasks.runs.history.ran`), samples that are
missing, unreadable or give another value (``unverified``), or is stale
(data, task or package version changed since, or that of an upstream stage it read: what the batch would rerun)
shows that instead of a score; a
full run without failed requests wins over those, then the newest. Rows on different data for a task are
marked by data group, a benchmark's rows with different score settings (those that can change its scores) or judges by
settings group, and cells that read another
model's outputs (a describer's descriptions, a store another model's runs wrote) by whose, and each is ranked and
compared only within its group. Damaged files and folders without a batch
identity are listed by path (notes), never read as results. The papers' own numbers are listed apart, marked
"paper-reported", never mixed with our runs.

Statistics: every cell carries its 95% bootstrap interval (the task's
``<prefix>_ci95``); where the runs logged their samples (``--log_samples``), the best model of
each task and those statistically tied with it (the paired 95% interval of best - model, over the
items both answered, includes 0; :mod:`abductive_tasks.reports.compare`) are marked, and
``--compare A B`` gives the paired difference of two models on every task. Written:

* ``leaderboard.csv``: one row per model; per task ``<task>__<metric>`` and its ``__lower``,
  ``__upper``, ``__stderr``, ``__tied_with_best`` (true for the best too), ``<task>__upper_bound`` (the task bounds
  the paper's number), ``<task>__caveat`` (what the column is where not a score: an upper bound, a stage's coverage,
  upstream only; as the tables label it) and ``<task>__status`` (why a cell is not a score); ``<task>__data``
  and ``<task>__settings`` (the cell's group, "data B", "settings B") where the task's rows ran on more than one data
  version or score settings, and ``<task>__read_from`` where a row read another model's outputs;
* ``leaderboard_long.csv``: one row per model x task x metric (breakdown cells: one per label), with the cell's
  ``data``, ``settings`` and ``read_from`` (empty where all rows ran the same), ``upper_bound`` and ``caveat``;
* ``comparisons.csv``: per task, best - each other model (difference, interval, p-value), ``upper_bound`` and
  ``caveat``;
* ``leaderboard.md`` / ``.html``: rows ranked by the average of the percentage headlines (not an upper bound's, nor
  a stage's coverage), each cell in
  percent (raw where labelled) [interval] at the precision the interval supports, best and tied in bold,
  chance in the header; the HTML page self-contained (plots embedded) with sortable columns;
* ``plots/headline.png`` (percentage metrics, one axis per panel, error bars, chance lines, values; an upper bound
  drawn apart, never bold), ``plots/headline_raw.png`` (the others, when any has a value),
  ``plots/<task>__<metric>.png`` (breakdowns); skipped, with one line, without matplotlib;
* ``paper_reported.csv``;
* ``leaderboard.json``: where the numbers come from (:mod:`~abductive_tasks.reports.leaderboard.provenance`: data
  sources and fingerprints, dates, package and task versions, each model's weights and judge), in full, the ranking
  (the tasks averaged, those run only as upstream, the upper bounds, the stages) and every cell (with ``upper_bound``
  and ``caveat``). The
  Markdown and HTML pages say the same in a header block and a footnote; a cell on another data version than most
  rows is marked (data B) there and hatched in the plots, a cell with other score settings of its benchmark or
  another judge (settings B), and a cell on another model's outputs names them (descriptions: dd).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from abductive_tasks.inputs.files import write_outputs
from abductive_tasks.reports import plots
from abductive_tasks.reports.leaderboard.cells import Leaderboard, collect
from abductive_tasks.reports.leaderboard.provenance import Provenance, provenance
from abductive_tasks.reports.leaderboard.ranking import COMPARE_COLUMNS, Statistics, compare_models, statistics
from abductive_tasks.reports.leaderboard.render import (
    compare_markdown,
    console_summary,
    csv_text,
    dict_row,
    html_page,
    json_text,
    markdown,
    write_csv,
    write_plots,
)
from abductive_tasks.runs.task_index import TaskIndex


def write_report(
    results_dir: Path,
    out: Path | None = None,
    task_index: TaskIndex | None = None,
    board: Leaderboard | None = None,
    found: Statistics | None = None,
    origin: Provenance | None = None,
) -> dict[str, Path]:
    """Write the files the module docstring lists (default folder: ``<results_dir>/leaderboard``) as one set: each
    is made in a staging folder inside ``out``, then all replace the earlier report together
    (:func:`~abductive_tasks.inputs.files.write_outputs`: never over a FIFO, device or folder), so an interruption,
    a full disk or a file-size limit leaves the previous complete report; plots of the earlier report that this one
    has not are removed after."""
    results_dir = Path(results_dir)
    if out is None and (problem := default_folder_problem(results_dir / "leaderboard")):
        raise OSError(errno.ELOOP, problem, str(results_dir / "leaderboard"))
    out = Path(out or results_dir / "leaderboard")
    board = board or collect(results_dir, task_index)
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
        origin = origin or provenance(board)
        (staging / "leaderboard.md").write_text(markdown(board, plot_files, staging, found, origin))
        (staging / "leaderboard.html").write_text(
            html_page(board, plot_files, staging, found, no_plots=skipped, origin=origin)
        )
        (staging / "leaderboard.json").write_text(json_text(board, found, origin))
        files = {out / path.relative_to(staging): path.read_bytes() for path in staging.rglob("*") if path.is_file()}
        write_outputs(files, within=out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    plots_folder = out / "plots"
    if not plots_folder.is_symlink():  # a link planted there (no plot replaced it) is neither followed nor emptied
        for earlier in plots_folder.glob("*.png"):  # a plot of an earlier report is no plot of this one
            if earlier not in files:
                earlier.unlink()
    return {
        **{kind: out / path.relative_to(staging) for kind, path in written.items()},
        "markdown": out / "leaderboard.md",
        "html": out / "leaderboard.html",
        "json": out / "leaderboard.json",
        **({"plots": out / "plots"} if plot_files else {}),  # none drawn (no matplotlib): no folder named
    }


FOLDER_KINDS = {
    stat.S_IFREG: "a file",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
}  # what a path named as the report's folder may be instead


def folder_problem(out: Path) -> str:
    """Why the report cannot be written into the folder ``out`` ('' when it can): ``out``, or a path above it, is
    something else than a folder (a file, a device, a FIFO, a link to one), or the folder nearest to it that exists
    is not writable."""
    for path in (out, *out.parents):
        try:
            mode = path.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            if path.is_symlink():
                return f"{'' if path == out else f'{path} is '}a link to nothing, not a folder"
            continue  # made with the report, or a path through what the parents' check names
        except OSError as error:
            return f"{path} cannot be looked at ({error.strerror or error})"
        if not stat.S_ISDIR(mode):
            kind = FOLDER_KINDS.get(stat.S_IFMT(mode), "no file")
            return f"{'' if path == out else f'{path} is '}{kind}, not a folder"
        if not os.access(path, os.W_OK | os.X_OK):
            return f"{'' if path == out else f'{path}: '}a folder this user cannot write in"
        return ""
    return ""


def default_folder_problem(default: Path) -> str:
    """Why the report cannot go to its default folder ``<results_dir>/leaderboard`` ('' when it can): a link there,
    which whoever can write the results folder may have planted, is not followed (the report would be written, and
    the earlier plots removed, wherever it points); else :func:`folder_problem`'s. A folder named with ``--out`` is
    the user's, a link included."""
    if default.is_symlink():
        return "a link, not followed (it may have been planted in the results folder); remove it, or name --out"
    return folder_problem(default)


def main(argv: list[str]) -> int:
    """``abductive-eval leaderboard RESULTS_DIR [--out DIR] [--compare A B]``."""
    import argparse

    from abductive_tasks.reports.browse import printable  # a planted folder's name holds no escape sequence

    parser = argparse.ArgumentParser(
        prog="abductive-eval leaderboard",
        description="Leaderboard (CSV, Markdown, HTML, PNG plots) from a results folder.",
    )
    parser.add_argument("results_dir", type=Path)
    parser.add_argument("--out", default=None, help="output folder (default: RESULTS_DIR/leaderboard)")
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="paired difference A - B per task (needs both runs' --log_samples)",
    )
    args = parser.parse_args(argv)
    if not args.results_dir.is_dir():
        parser.error(f"{args.results_dir} is not a folder")
    if args.out is not None and not str(args.out).strip():
        parser.error("--out is empty; name a folder to write the report in")
    args.out = Path(args.out) if args.out is not None else None
    if problem := (folder_problem(args.out) if args.out else default_folder_problem(args.results_dir / "leaderboard")):
        where = f"--out {args.out}" if args.out else f"{args.results_dir / 'leaderboard'} (the default --out)"
        print(f"abductive-eval leaderboard: {where}: {problem}; name a folder to write the report in", file=sys.stderr)
        return 2
    board = collect(args.results_dir)
    if not board.rows and not board.marks:
        for note in board.notes:
            print(printable(f"leaderboard: {note}"), file=sys.stderr)
        why = "each run found is noted above" if board.notes else "no readable *_results.json"
        print(
            f"abductive-eval leaderboard: no run to rank under {args.results_dir} ({why}); nothing written",
            file=sys.stderr,
        )
        return 1
    unknown = [model for model in args.compare or () if model not in board.rows]
    if unknown:
        parser.error(printable(f"--compare: no model {unknown} in {args.results_dir}; models: {', '.join(board.rows)}"))
    found = statistics(board)
    origin = provenance(board)
    try:
        written = write_report(args.results_dir, args.out, board=board, found=found, origin=origin)
        print(printable(console_summary(board, found, origin)))
        if args.compare:
            a, b = args.compare
            rows = compare_models(board, found, a, b)
            written["compare_csv"] = written["markdown"].with_name(f"compare_{a}_vs_{b}.csv")
            written["compare_markdown"] = written["markdown"].with_name(f"compare_{a}_vs_{b}.md")
            write_outputs(
                {
                    written["compare_csv"]: csv_text(COMPARE_COLUMNS, [dict_row(COMPARE_COLUMNS, r) for r in rows]),
                    written["compare_markdown"]: compare_markdown(
                        rows, a, b, {task: board.caveat(task) for task in board.tasks}
                    ),
                },
                within=written["markdown"].parent,
            )
            print(printable(written["compare_markdown"].read_text()))
    except OSError as error:
        print(
            f"abductive-eval leaderboard: cannot write {error.filename or 'the report'} ({error.strerror or error}); "
            "the previous report stands",
            file=sys.stderr,
        )
        return 1
    for kind, path in written.items():
        print(printable(f"{kind}: {path}"))
    return 0
