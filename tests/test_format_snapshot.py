"""The files a batch and its leaderboard write keep their shape unless their version says otherwise
(utils/format_snapshots.py): tests/snapshots/formats.txt must be what a canonical run writes now. The edits below
change a file's shape as a careless change of ours would; a metric added to a task (the task's change, versioned with
it) must not."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import format_snapshots
import pytest
import task_snapshots

from abductive_tasks.reports.leaderboard.render import EXPORT_FORMAT

SNAPSHOTS = Path(__file__).resolve().parents[1] / "tests" / "snapshots"


@pytest.fixture(scope="module")
def canonical(tmp_path_factory) -> tuple[Path, Path]:
    """The results and cache folders of the canonical batch and leaderboard, run once as a user would."""
    return format_snapshots.run_canonical(tmp_path_factory.mktemp("formats"))


@pytest.fixture
def edited(canonical, tmp_path) -> tuple[Path, Path]:
    """A copy of the canonical run's folders, to edit."""
    results, cache = (tmp_path / "results", tmp_path / "cache")
    shutil.copytree(canonical[0], results)
    shutil.copytree(canonical[1], cache)
    return results, cache


def recorded() -> task_snapshots.Snapshot:
    found = format_snapshots.recorded(SNAPSHOTS)
    assert found is not None, "no tests/snapshots/formats.txt: run python utils/generate_task_yaml.py"
    return found


def verdict_of(results: Path, cache: Path) -> task_snapshots.Verdict:
    return task_snapshots.verdict(recorded(), format_snapshots.snapshot(results, cache))


def test_the_checked_in_record_is_what_a_canonical_run_writes_now(canonical):
    verdict = verdict_of(*canonical)
    if verdict.action == "bump":
        pytest.fail(format_snapshots.bump_message("formats", recorded().version, verdict.reason))
    assert verdict.action == "ok", f"the files record: {verdict.reason}; run python utils/generate_task_yaml.py"
    leaderboard = json.loads((canonical[0] / "leaderboard" / "leaderboard.json").read_text())
    assert leaderboard["format"] == EXPORT_FORMAT == int(recorded().version)


def test_a_renamed_csv_column_needs_the_format_raised(edited):
    path = edited[0] / "leaderboard" / "leaderboard_long.csv"
    rows = list(csv.reader(path.open(newline="")))
    rows[0] = ["value_" if column == "value" else column for column in rows[0]]
    with path.open("w", newline="") as file:
        csv.writer(file).writerows(rows)
    verdict = verdict_of(*edited)
    assert verdict.action == "bump" and "leaderboard_long.csv" in verdict.reason and "value_" in verdict.reason


def test_a_key_dropped_from_the_run_records_needs_the_format_raised(edited):
    paths = list((edited[0] / "base" / "runs").glob("*/run_identity.json"))
    assert paths
    for path in paths:
        written = json.loads(path.read_text())
        del written["spec"]
        path.write_text(json.dumps(written))
    verdict = verdict_of(*edited)
    assert verdict.action == "bump" and "run_identity.json" in verdict.reason


def test_a_metric_or_a_count_added_to_a_task_is_no_change_of_the_files(edited):
    """A task's metrics and the fields of its counts are the task's (versioned with it): adding one touches no
    other record, as issue 43's four files ask."""
    for path in (edited[0] / "base" / "runs").rglob("*_results.json"):
        written = json.loads(path.read_text())
        for values in written["results"].values():
            values["brand_new_metric,none"] = 0.5
            for key, value in values.items():
                if key.endswith("_counts,none") and isinstance(value, dict):
                    value["brand_new_count"] = 1
        path.write_text(json.dumps(written))
    for path in (edited[0] / "base" / "runs").rglob("*_samples_*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        path.write_text(
            "".join(json.dumps({**line, "brand_new_metric": ["brand_new_metric", {}]}) + "\n" for line in lines)
        )
    assert verdict_of(*edited).action == "ok"


def test_what_lmms_eval_takes_from_the_machine_and_a_version_bump_are_no_change(edited):
    """``git_hash`` is a commit where lmms-eval's install sits in a checkout or a CI sets ``GITHUB_SHA``; the
    provenance is keyed by task and package versions, which a bump moves: neither is a change of shape."""
    for path in (edited[0] / "base" / "runs").rglob("*_results.json"):
        written = json.loads(path.read_text())
        path.write_text(json.dumps({**written, "git_hash": "0123abc", "git_branch": "main"}))
    path = edited[0] / "leaderboard" / "leaderboard.json"
    written = json.loads(path.read_text())
    tasks = written["provenance"]["tasks"]
    written["provenance"]["tasks"] = {
        task: dict.fromkeys(["99.1"], sorted(by.values())[0]) for task, by in tasks.items()
    }
    path.write_text(json.dumps(written))
    assert verdict_of(*edited).action == "ok"


def test_the_canonical_run_gets_an_environment_made_anew(monkeypatch, tmp_path):
    """Nothing of the caller's environment (a CI's variables, a setting, a key) reaches the recorded run."""
    seen: list[dict] = []

    def run(command, cwd, env, **options):
        seen.append(env)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(format_snapshots.subprocess, "run", run)
    for name, value in {"GITHUB_SHA": "0123abc", "ABDUCTIVE_BOOTSTRAP_SEED": "7", "OPENAI_API_KEY": "sk-x1y2"}.items():
        monkeypatch.setenv(name, value)
    format_snapshots.run_canonical(tmp_path)
    assert len(seen) == 2
    for env in seen:
        assert {"GITHUB_SHA", "ABDUCTIVE_BOOTSTRAP_SEED", "OPENAI_API_KEY"}.isdisjoint(env)
        assert env["HOME"] == str(tmp_path / "home") and env["ABDUCTIVE_DATA"] == "sample"
