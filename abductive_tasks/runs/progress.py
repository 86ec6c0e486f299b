"""A batch model's progress on the console, read from its evaluation's own output.

The child ``abductive-eval`` writes lmms-eval's log and tqdm bars to ``eval.log``
(:func:`abductive_tasks.runs.run.run_child`); :class:`ChildProgress` reads the same text as it
comes (tqdm redraws with carriage returns, so segments end at ``\\r`` or ``\\n``):

* ``Building contexts for <task> ...`` then its bar ``0/N``: the task has N documents (the total);
* after ``Running <type> requests``: the backend's request bar ``k/M`` (``Model Responding``,
  lmms-eval's ``Requests``, ...), counted as documents in proportion (one request per document for
  our generation tasks);
* ``Postprocessing ... k/N``: k of a task's documents are answered and scored (backends without a bar, like the
  baselines and lmms-eval's ``dummy``, answer every request at once).

On a terminal one tqdm bar per model shows documents done / total, rate and ETA; elsewhere (a log
file, CI) a plain line each time the documents done pass another quarter of the total: at 25, 50, 75 and 100%
where the counts come one by one (a request bar; a post-processing bar redrawn within a task), else at the count
that passed it (a task post-processed at once, in under tqdm's 0.1 s between redraws: 67% where its first task holds
two thirds of the documents, one line for the two quarters it passed). After the run, :func:`task_line` gives one
line per task: headline metric, value and 95% interval in percent (as the end-of-run summary shows them). The batch's
own lines start with ``[batch]`` (:func:`say`).
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Mapping
from typing import TextIO

from abductive_tasks.runs.task_index import UPPER_BOUND_LABEL
from abductive_tasks.scoring.scales import declared_scale as metric_scale

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
BUILDING = re.compile(r"Building contexts for (\S+) on rank")
BAR = re.compile(r"(?:^|\s|\|)(\d+)/(\d+) \[")
RUNNING = re.compile(r"Running \w+ requests")


class ChildProgress:
    """Documents done of a model's evaluation, from its output segments; drawn as one bar or quarter lines."""

    def __init__(self, name: str, stream: TextIO | None = None, tty: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.bar = None
        self.start(name)

    def start(self, name: str) -> None:
        """Count an evaluation from nothing under ``name``: each level of a chain is an evaluation of its own (its
        documents, quarters and bar), where the quarters of the first hid the next's."""
        self.close()
        self.name = name
        self.total = 0
        self.done = 0
        self.building: str | None = None
        self.requesting = False
        self.postprocessed = 0
        self.started = time.monotonic()
        self.reported_quarter = 0
        self.bar = None

    # ------------------------------------------------------------ reading

    def feed(self, segment: str) -> None:
        """One line or one carriage-return redraw of the child's output."""
        text = ANSI.sub("", segment)
        if match := BUILDING.search(text):
            self.building = match.group(1)
            return
        if RUNNING.search(text):
            self.building, self.requesting = None, True
            return
        bar = BAR.search(text)
        if bar is None:
            return
        count, of = int(bar.group(1)), int(bar.group(2))
        if self.building is not None:
            if count == 0:
                self.total += of
                self._draw()
            if count == of:
                self.building = None
            return
        if text.lstrip().startswith("Postprocessing"):
            self.requesting = False
            self._advance(self.postprocessed + count)
            if count == of:
                self.postprocessed += of
        elif self.requesting and of:
            self._advance(round(count * self.total / of) if self.total else count)

    def _advance(self, done: int) -> None:
        if done > self.done:
            self.done = min(done, self.total) if self.total else done
            self._draw()

    # ------------------------------------------------------------ drawing

    def _draw(self) -> None:
        if self.tty:
            self._draw_bar()
        elif self.total:
            quarter = 4 * self.done // self.total
            if quarter > self.reported_quarter and self.done:
                self.reported_quarter = quarter
                self.stream.write(self.line() + "\n")
                self.stream.flush()

    def _draw_bar(self) -> None:
        from tqdm import tqdm

        if self.bar is None:
            size = shutil.get_terminal_size((100, 24))  # a pseudo-terminal may report 0 x 0: tqdm then draws nothing
            self.bar = tqdm(
                total=self.total or None,
                desc=self.name,
                unit="doc",
                file=self.stream,
                ncols=min(size.columns or 100, 120),
                nrows=size.lines or 24,
            )
        if self.total and self.bar.total != self.total:
            self.bar.total = self.total
            self.bar.refresh()
        self.bar.update(self.done - self.bar.n)

    def line(self) -> str:
        """``name: done/total documents (P%), R docs/s, ETA M:SS``."""
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate else None
        eta = f"ETA {int(left // 60)}:{int(left % 60):02d}" if left is not None else "ETA ?"
        return (
            f"[batch] {self.name}: {self.done}/{self.total} documents ({100 * self.done / self.total:.0f}%), "
            f"{rate:.2f} docs/s, {eta}"
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def task_line(task: str, task_results: Mapping, headline: str, upper_bound: bool = False) -> str:
    """``task: metric value [lower, upper]``, in percent for a fraction (as the summary shows it), else raw; a task
    that bounds the paper's number (``mucr_exp_gold``) says so, as the summary and the leaderboard do."""
    scale = metric_scale(headline)
    value = task_results.get(f"{headline},none")
    interval = next(
        (entry.get(headline) for key, entry in task_results.items() if key.endswith("_ci95,none") and entry), None
    )

    def shown(number: object) -> str:
        if not isinstance(number, int | float) or isinstance(number, bool):
            return "n/a"
        return (
            f"{100 * number:.1f}" if scale == "fraction" else f"{number:.1f}" if scale == "percent" else f"{number:.4g}"
        )

    bounds = ""
    if isinstance(interval, Mapping) and interval.get("lower") is not None:
        bounds = f" [{shown(interval['lower'])}, {shown(interval['upper'])}]"
    label = f" ({UPPER_BOUND_LABEL})" if upper_bound else ""
    return f"{task}: {headline}{' (raw)' if scale == 'raw' else ''} {shown(value)}{bounds}{label}"


def say(message: str) -> None:
    """One line of the batch's own on the console."""
    print(f"[batch] {message}", flush=True)
