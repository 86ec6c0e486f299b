"""A batch's chained stages across specs and models, end to end on the sample with the baselines; each test failed
before its fix and guards it now:

* ``test_a_stage_run_with_a_larger_limit_runs_again_for_readers_with_a_smaller_one``: an upstream stage's run under a
  larger ``limit:`` answers a smaller one as a score (``history.limit_covers``), but its output is bound to its own
  limit, which the readers refuse (``inputs.stages.checked``); the batch counted it done for them, and every rerun
  failed the reader (``levels._gives_none`` and ``stage_limits.answering`` now plan it to run again, with their limit).
* ``test_a_describer_whose_tasks_sit_in_one_level_gives_its_reader_what_it_ran``: the describer's plan was left as
  its one level found it before running (``run.run_levels``), so its reader, later in the same batch, found no
  descriptions and failed; a second batch succeeded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abductive_tasks.reports.leaderboard import collect
from abductive_tasks.runs.batch import main as batch_main
from abductive_tasks.runs.identity_record import RUN_RECORD, IdentityRecord
from abductive_tasks.runs.task_index import TaskIndex

from helpers.runs import cli_done

pytestmark = pytest.mark.e2e


def _spec(tmp_path: Path, name: str, tasks: list[str], limit: int, models: list[dict]) -> Path:
    path = tmp_path / f"{name}.yaml"
    env = {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    path.write_text(json.dumps({"output_dir": "results", "tasks": tasks, "limit": limit, "env": env, "models": models}))
    return path


def _runs(model_dir: Path, since: dict | None = None) -> dict[str, tuple[tuple[str, ...], int | float | None]]:
    """Each run's tasks and ``--limit``, by folder name (those of ``since`` left out)."""
    runs = [run for run in sorted((model_dir / "runs").iterdir()) if run.name not in (since or {})]
    return {
        run.name: (record.tasks, record.limit) for run in runs for record in [IdentityRecord.read(run / RUN_RECORD)]
    }


def test_a_stage_run_with_a_larger_limit_runs_again_for_readers_with_a_smaller_one(tmp_path, capsys):
    rb = [{"name": "rb", "backend": "random_baseline", "model_args": {"seed": 0}}]
    # limit 6: mucr_c2e and mucr_cue at --limit 6, nleye_describe at --limit 9 (the images of the first 6 triplets)
    larger = _spec(tmp_path, "larger", ["mucr_c2e", "mucr_cue", "nleye_triplet_described"], 6, rb)
    smaller = _spec(tmp_path, "smaller", ["mucr_exp", "nleye_triplet_described"], 4, rb)
    model_dir = tmp_path / "results" / "rb"
    assert batch_main([str(larger)]) == 0
    capsys.readouterr()
    before = _runs(model_dir)
    # limit 4: those runs cover --limit 4 (and nleye_describe's --limit 6), but their outputs are bound to 6: refused
    assert batch_main([str(smaller)]) == 0  # before the fix: mucr_exp and nleye_triplet_described failed, every time
    said = capsys.readouterr().out
    for task, kind, limits in (("mucr_c2e", "picks", (6, 4)), ("nleye_describe", "descriptions", (9, 6))):
        assert f"{task} runs again: its readers read its {kind}, and its run " in said
        assert (
            f"has --limit {limits[0]}; its readers, with --limit 4, read the {kind} of a run with --limit {limits[1]}, "
            "or of one without" in said
        )
    assert "mucr_cue runs again" in said
    assert "FAILED" not in said
    assert sorted(_runs(model_dir, before).values()) == [
        (("mucr_c2e", "mucr_cue"), 4),
        (("mucr_exp", "nleye_triplet_described"), 4),
        (("nleye_describe",), 6),  # its stage limit under limit 4, its output bound to 4
    ]
    # Resumed, nothing is left to run; a larger run made since (newest) does not displace what the readers read.
    assert batch_main([str(smaller)]) == 0
    assert "all 5 tasks done earlier; skipped" in capsys.readouterr().out
    before = _runs(model_dir)
    assert batch_main([str(_spec(tmp_path, "largest", ["mucr_c2e"], 8, rb))]) == 0
    assert list(_runs(model_dir, before).values()) == [(("mucr_c2e",), 8)]
    capsys.readouterr()
    assert batch_main([str(smaller)]) == 0
    assert "all 5 tasks done earlier; skipped" in capsys.readouterr().out
    board = collect(tmp_path / "results", TaskIndex())
    for task in ("mucr_exp", "nleye_triplet_described"):  # a limited run's cell, current (not stale)
        assert board.marks["rb"][task] == "limited (limit=4)"


def test_a_describer_whose_tasks_sit_in_one_level_gives_its_reader_what_it_ran(tmp_path, capsys):
    # dp's own reader reads a store another command wrote: its nleye_describe runs only for rb, in dp's one level
    env = {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache"), "ABDUCTIVE_NLEYE_DESCRIBER": "other"}
    store_run = ["--model", "dumb_pixel", "--tasks", "nleye_describe", "--output_path", str(tmp_path / "store_run")]
    cli_done(store_run, env, tmp_path)
    models = [
        {"name": "rb", "backend": "random_baseline", "describer": "dp"},
        {"name": "dp", "backend": "dumb_pixel", "env": {"ABDUCTIVE_NLEYE_DESCRIPTIONS": "other"}},
    ]
    path = tmp_path / "spec.yaml"
    spec = {"output_dir": "results", "tasks": ["nleye_triplet_described"], "models": models}
    path.write_text(json.dumps(spec | {"env": {key: env[key] for key in ("ABDUCTIVE_DATA", "ABDUCTIVE_CACHE")}}))
    assert batch_main([str(path)]) == 0  # before the fix: rb failed, its describer's run unseen
    said = capsys.readouterr().out
    assert "gave it no output" not in said and "FAILED" not in said
    assert list(_runs(tmp_path / "results" / "dp").values()) == [(("nleye_triplet_described", "nleye_describe"), None)]
    assert list(_runs(tmp_path / "results" / "rb").values()) == [(("nleye_triplet_described",), None)]
    board = collect(tmp_path / "results", TaskIndex())
    assert board.value("rb", "nleye_triplet_described") is not None
    assert board.read_from("rb", "nleye_triplet_described") == {"descriptions": "dp"}
