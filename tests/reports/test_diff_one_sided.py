"""abductive-eval diff names the tasks one run holds and the other has not (they were skipped without a word)."""

from __future__ import annotations

from types import SimpleNamespace

from abductive_tasks.reports.diff import one_sided


def items(*tasks: str) -> list:
    return [SimpleNamespace(task=task) for task in tasks]


def test_tasks_only_in_one_run_are_said_in_one_line_each():
    a, b = items("mucr_c2e", "mucr_cue", "nleye_triplet", "mucr_cue"), items("mucr_c2e", "dve_cls")
    assert one_sided(a, b) == [
        "only in A (not compared): mucr_cue, nleye_triplet",
        "only in B (not compared): dve_cls",
    ]
    assert one_sided(a, a) == []
