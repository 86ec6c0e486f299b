"""REVIEW-2: the leaderboard's settings groups (commit d7e7b0e6, review 1 F5: cells.settings_key) are per row,
over every score-changing ABDUCTIVE_* variable whatever benchmark it applies to: a row whose env sets a DVE-only
variable (ABDUCTIVE_DVE_EVALUATOR_RESNET) is "settings B" in its NL-Eye cells, left out of the ranking and "not
compared", though no NL-Eye number can depend on it. Fails on review-2's base (main 63cc1216)."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers.runs import OFFLINE


def test_review2_a_setting_of_another_benchmark_does_not_split_a_tasks_rows(tmp_path, monkeypatch):
    from abductive_tasks.reports.leaderboard.cells import collect

    (tmp_path / "spec.yaml").write_text(
        "output_dir: out\ntasks: [nleye_triplet]\nenv: {ABDUCTIVE_DATA: sample}\n"
        "models:\n  - {name: a, backend: dumb_pixel}\n"
        "  - {name: b, backend: random_baseline, env: {ABDUCTIVE_DVE_EVALUATOR_RESNET: resnet18}}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "abductive_tasks.cli", "batch", "spec.yaml"],
        capture_output=True, text=True, env={**os.environ, **OFFLINE}, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    board = collect(tmp_path / "out")
    assert board.value("b", "nleye_triplet") is not None
    assert board.labels("b", "nleye_triplet") == []  # today: ["settings B"]
    assert board.main_protocol("b", "nleye_triplet")  # today: False, the row is not ranked


def test_a_benchmarks_own_variables_and_the_judge_still_split_its_cells():
    """The case the review's test leaves: the variable splits the benchmark it applies to (DVE), a variable no
    declaration assigns and the judge split every benchmark."""
    from abductive_tasks.reports.leaderboard.cells import protocol_settings, settings_key

    resnet = {"settings": {"ABDUCTIVE_DVE_EVALUATOR_RESNET": "resnet18", "ABDUCTIVE_BOOTSTRAP": "20"}}
    assert protocol_settings(resnet, "dve") == resnet["settings"]
    assert protocol_settings(resnet, "nleye") == {"ABDUCTIVE_BOOTSTRAP": "20"}
    assert protocol_settings({"settings": {"ABDUCTIVE_UNDECLARED": "1"}}, "nleye") == {"ABDUCTIVE_UNDECLARED": "1"}
    assert settings_key({"settings": {}, "judge": {"model_version": "J"}}, "sherlock") != settings_key({}, "sherlock")
    assert settings_key(resnet, "dve") != settings_key({}, "dve")
