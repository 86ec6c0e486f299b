"""``abductive-eval diff RUN_A RUN_B``: the documents where two runs disagree, with both replies.

Documents are matched by task and lmms-eval ``doc_id`` (and must have the same gold answer: the same data).
Two runs disagree on a document when the reading its metric is computed from differs (the value read from the
reply, in full: a choice, a rating, a plausibility, Sherlock's embeddings or score matrix; for a task judged on the
reply itself, MuCR's Exp, the reply) or its status does
(correct, wrong, unparsable, request_failed; see :mod:`abductive_tasks.reports.browse`). The console
gets per task the count of disagreements and, for tasks with a per-document verdict, who was right;
``-o page.html`` writes them as the browser's page, both replies side by side.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from abductive_tasks.hints import counted
from abductive_tasks.inputs.files import write_output
from abductive_tasks.lmms_source import RESULTS_SUFFIX
from abductive_tasks.reports.browse import (
    SELF_CONTAINED_HELP,
    RunError,
    find_results,
    image_lines,
    printable,
    read_items,
    read_run,
    render,
    run_label,
    samples_files,
    shared_details,
)

REPLY_CHARS = 70
DEFAULT_PAGE = Path("diff.html")  # -o without a page: in the folder of RUN_A's results


@dataclass(frozen=True)
class Disagreement:
    a: object  # browse.Item
    b: object


def disagreements(items_a: list, items_b: list) -> tuple[dict[str, int], list[Disagreement]]:
    """Per task the documents both runs answered, and the pairs that disagree (in task, document order)."""
    by_key = {item.key: item for item in items_b}
    common: Counter[str] = Counter()
    found = []
    for a in items_a:
        b = by_key.get(a.key)
        if b is None or a.target != b.target:
            continue
        common[a.task] += 1
        if (a.decides, a.status) != (b.decides, b.status):
            found.append(Disagreement(a, b))
    return dict(common), found


def one_sided(items_a: list, items_b: list) -> list[str]:
    """One line per run holding tasks the other has not: they are not compared (the tasks in common are)."""
    tasks_a, tasks_b = {item.task for item in items_a}, {item.task for item in items_b}
    return [
        f"only in {name} (not compared): {', '.join(sorted(only))}"
        for name, only in (("A", tasks_a - tasks_b), ("B", tasks_b - tasks_a))
        if only
    ]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REPLY_CHARS else text[: REPLY_CHARS - 3] + "..."


def report_lines(
    label_a: str, label_b: str, common: dict[str, int], found: list[Disagreement], per_task: int | None = None
) -> list[str]:
    """Per task the count of disagreements, then up to ``per_task`` of them (None: all) with both replies."""
    lines = [f"abductive-eval diff: A = {label_a}, B = {label_b}"]
    if not common:
        return [*lines, "no document in common (other tasks, or other data)"]
    differing = Counter(pair.a.task for pair in found)
    for task in sorted(common):
        outcomes = Counter((pair.a.status, pair.b.status) for pair in found if pair.a.task == task)
        who = ""
        a_only, b_only = outcomes[("correct", "wrong")], outcomes[("wrong", "correct")]
        if a_only or b_only:
            who = f" (A right, B wrong: {a_only}; A wrong, B right: {b_only})"
        lines.append(f"{task}: {differing[task]} of {common[task]} documents differ{who}")
        shown = [pair for pair in found if pair.a.task == task][:per_task]
        for pair in shown:
            where = f"  doc {pair.a.doc_id} (item {pair.a.item_id}{', ' + pair.a.category if pair.a.category else ''}"
            lines.append(f"{where}, gold {_short(pair.a.target)})")
            for name, item in (("A", pair.a), ("B", pair.b)):
                read = f"read {item.read:<6}"
                reply = "" if item.reply.endswith(item.read) else f" {_short(item.reply)!r}"
                lines.append(f"    {name}: {item.status:<14} {read}{reply}")
        if len(shown) < differing[task]:
            lines.append(f"  ... {differing[task] - len(shown)} more (--show N, or -o page.html for all)")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="abductive-eval diff",
        description="Documents where two runs disagree (both need --log_samples), with both replies.",
    )
    parser.add_argument("run_a", type=Path, help="a results JSON, or a folder (its newest results JSON)")
    parser.add_argument("run_b", type=Path)
    parser.add_argument(
        "-o",
        "--out",
        type=Path,
        nargs="?",
        const=DEFAULT_PAGE,
        default=None,
        help="also write them all as an HTML page (-o alone: diff.html in the folder of RUN_A's results)",
    )
    parser.add_argument("--show", type=int, default=3, metavar="N", help="documents printed per task (default 3)")
    parser.add_argument("--self-contained", action="store_true", help=SELF_CONTAINED_HELP)
    args = parser.parse_args(argv)
    try:
        path_a, path_b = find_results(args.run_a), find_results(args.run_b)
        label_a, label_b = run_label(read_run(path_a)), run_label(read_run(path_b))
        items_a, items_b = read_items(path_a), read_items(path_b)
        shared = shared_details(items_a + items_b)
        common, found = disagreements(items_a, items_b)
    except RunError as error:
        print(printable(f"abductive-eval diff: {error}"), file=sys.stderr)
        return 1
    if label_a == label_b:  # one model's two runs: named by their folders, or their results files in one folder
        where_a, where_b = (path_a.parent.name, path_b.parent.name)
        if where_a == where_b:
            where_a, where_b = path_a.name.removesuffix(RESULTS_SUFFIX), path_b.name.removesuffix(RESULTS_SUFFIX)
        if where_a == where_b:  # one run twice
            where_a, where_b = "A", "B"
        label_a, label_b = f"{label_a} ({where_a})", f"{label_b} ({where_b})"
    if args.out == DEFAULT_PAGE:
        args.out = path_a.parent / DEFAULT_PAGE.name
    lines = report_lines(label_a, label_b, common, found, max(args.show, 0))
    print(printable("\n".join([lines[0], *one_sided(items_a, items_b), *lines[1:]])))
    if args.out:
        rows = [
            {"item": pair.a, "answers": [pair.a, pair.b], "statuses": [pair.a.status, pair.b.status]} for pair in found
        ]
        title = f"{label_a} vs {label_b}: {len(found)} of {sum(common.values())} documents differ"
        page = render(
            title,
            [label_a, label_b],
            rows,
            note=f"A: {path_a} · B: {path_b}",
            shared=shared,
            page_folder=args.out.parent,
            self_contained=args.self_contained,
            roots=[path_a.parent, path_b.parent],
        )
        try:
            inputs = [path for run in (path_a, path_b) for path in (run, *samples_files(run))]
            write_output(args.out, page.html, inputs=inputs)
        except OSError as error:
            why = error.strerror or error
            print(printable(f"abductive-eval diff: cannot write {args.out} ({why})"), file=sys.stderr)
            return 1
        lines = image_lines(page.images, page.composites, page.outside)
        print(printable(f"{args.out}: {counted(len(found), 'document')}; " + "\n".join(lines)))
    return 0
