"""A batch model's progress, read from the child's own output (segments as lmms-eval 0.7.3 writes them)."""

from __future__ import annotations

import io

from abductive_tasks.runs.progress import ChildProgress, task_line

INFO = "\x1b[32m2026-11-24 21:01:54\x1b[0m | \x1b[1mINFO    \x1b[0m | lmms_eval.api.task:build_all_requests:473 - "


def segments(responding: bool) -> list[str]:
    """Two tasks of 24 and 12 documents; with a backend request bar (llava_hf's) or without (our baselines)."""
    lines = []
    for task, documents in (("nleye_triplet", 24), ("mucr_c2e", 12)):
        lines += [
            f"{INFO}Building contexts for {task} on rank 0...\n",
            f"  0%|          | 0/{documents} [00:00<?, ?it/s]\r",
            f"100%|##########| {documents}/{documents} [00:00<00:00, 13073.16it/s]\n",
        ]
    lines.append(f"{INFO}Running generate_until requests\n")
    if responding:
        lines += [
            f"Model Responding:  {done * 100 // 36}%|#   | {done}/36 [00:0{done % 9}<00:10]\r" for done in range(37)
        ]
    for documents in (24, 12):
        lines += [
            f"Postprocessing:   0%|   | 0/{documents} [00:00<?, ?it/s]\r",
            f"Postprocessing: 100%|#| {documents}/{documents} [00:00<00:00, 322.94it/s]\n",
        ]
    return lines


def test_quarter_lines_off_a_terminal_from_the_request_bar():
    out = io.StringIO()
    progress = ChildProgress("tiny", out, tty=False)
    for segment in segments(responding=True):
        progress.feed(segment)
    lines = out.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "[batch] tiny: 9/36 documents (25%)",
        "[batch] tiny: 18/36 documents (50%)",
        "[batch] tiny: 27/36 documents (75%)",
        "[batch] tiny: 36/36 documents (100%)",
    ]
    assert all("docs/s, ETA " in line for line in lines) and "\x1b" not in out.getvalue()


def test_a_backend_without_a_bar_advances_per_postprocessed_task():
    out = io.StringIO()
    progress = ChildProgress("dumb_pixel", out, tty=False)
    for segment in segments(responding=False):
        progress.feed(segment)
    assert [line.split(",")[0] for line in out.getvalue().splitlines()] == [
        "[batch] dumb_pixel: 24/36 documents (67%)",
        "[batch] dumb_pixel: 36/36 documents (100%)",
    ]


def test_a_backend_without_a_bar_prints_at_each_quarter_where_post_processing_redraws_its_bar():
    """Post-processing slow enough for tqdm to redraw its bar gives the counts one by one: the lines fall at the
    quarters themselves (only the tasks' ends counted before: 67% and 100% here, as for a task scored at once)."""
    out = io.StringIO()
    progress = ChildProgress("dumb_pixel", out, tty=False)
    lines = segments(responding=False)
    postprocessing = lines.index("Postprocessing:   0%|   | 0/24 [00:00<?, ?it/s]\r")
    for segment in lines[: postprocessing + 1]:
        progress.feed(segment)
    for done in range(1, 24):  # redrawn within the first task, as for a slow scorer
        progress.feed(f"Postprocessing:  {done * 100 // 24}%|#  | {done}/24 [00:0{done % 9}<00:10, 2.00it/s]\r")
    for segment in lines[postprocessing + 1 :]:
        progress.feed(segment)
    assert [line.split(",")[0] for line in out.getvalue().splitlines()] == [
        "[batch] dumb_pixel: 9/36 documents (25%)",
        "[batch] dumb_pixel: 18/36 documents (50%)",
        "[batch] dumb_pixel: 36/36 documents (100%)",
    ]


def test_each_level_of_a_chain_counts_its_own_documents():
    """A chain's second level added its documents to the first's total: its quarters fell below the 100% already
    reported, and it printed no line at all."""
    out = io.StringIO()
    progress = ChildProgress("dumb_pixel, level 1 of 2", out, tty=False)
    for segment in segments(responding=False):
        progress.feed(segment)
    progress.start("dumb_pixel, level 2 of 2")
    for segment in segments(responding=True):
        progress.feed(segment)
    assert [line.rsplit(", ", 2)[0] for line in out.getvalue().splitlines()] == [
        "[batch] dumb_pixel, level 1 of 2: 24/36 documents (67%)",
        "[batch] dumb_pixel, level 1 of 2: 36/36 documents (100%)",
        "[batch] dumb_pixel, level 2 of 2: 9/36 documents (25%)",
        "[batch] dumb_pixel, level 2 of 2: 18/36 documents (50%)",
        "[batch] dumb_pixel, level 2 of 2: 27/36 documents (75%)",
        "[batch] dumb_pixel, level 2 of 2: 36/36 documents (100%)",
    ]


def test_one_bar_on_a_terminal():
    out = io.StringIO()
    progress = ChildProgress("tiny", out, tty=True)
    for segment in segments(responding=True):
        progress.feed(segment)
    progress.close()
    drawn = out.getvalue().split("\r")
    assert drawn[-1].startswith("tiny: 100%|") and "36/36" in drawn[-1] and "doc/s" in drawn[-1]
    assert "[batch]" not in out.getvalue()


def test_task_line_is_the_summary_headline_and_interval():
    results = {
        "consistency_acc,none": 7 / 12,
        "triplet_ci95,none": {"consistency_acc": {"lower": 1 / 3, "upper": 5 / 6, "chance": 0.25}},
        "triplet_counts,none": {"documents": 24},
    }
    assert task_line("nleye_triplet", results, "consistency_acc") == "nleye_triplet: consistency_acc 58.3 [33.3, 83.3]"
    assert task_line("mucr_exp", {"exp_score,none": None}, "exp_score") == "mucr_exp: exp_score (raw) n/a"
    gold = task_line("mucr_exp_gold", {"exp_score,none": 6.25}, "exp_score", upper_bound=True)
    assert gold == "mucr_exp_gold: exp_score (raw) 6.25 (upper bound, not the paper's number)"  # said, as the summary
