"""The leaderboard on real chained batch runs (the embedded sample): whose outputs a reader cell read, decided by the
model its stage outputs are bound to, and a reader cell stale when an upstream it read is (review 1, F2 and F3)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from abductive_tasks.reports.leaderboard.cells import collect
from abductive_tasks.runs.task_index import TaskIndex

from helpers.runs import OFFLINE


def _batch(spec: Path, cache: Path) -> None:
    """``abductive-eval batch SPEC`` in this Python, offline, on the sample, with its own cache."""
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "abductive_tasks.cli", "batch", str(spec)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=spec.parent,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def _bumped(task_index: TaskIndex, upstream: str, monkeypatch: pytest.MonkeyPatch) -> TaskIndex:
    """``task_index`` with ``upstream``'s version gone up, as after a release that changed it."""
    real = task_index.facts

    def facts(task: str):
        found = real(task)
        return dataclasses.replace(found, version=found.version + ".1") if task == upstream else found

    monkeypatch.setattr(task_index, "facts", facts)
    return task_index


def test_a_store_is_the_rows_own_by_the_model_its_entries_are_bound_to_and_its_writers_staleness_counts(
    tmp_path, monkeypatch
):
    """dd (dumb_pixel) stored its descriptions under ``dd``; me (dumb_pixel too: the same model key) reads them as its
    own, under another name; rb (random_baseline) reads them as dd's, labelled by whom they were written. Once
    dumb_pixel's version went up, dd's nleye_describe is stale, and so is rb's reader cell, saying which upstream."""
    from abductive_tasks import lmms_source
    from abductive_tasks.models.manifests import VERSIONS

    cache = tmp_path / "cache"
    (tmp_path / "describe.yaml").write_text(
        "output_dir: out\ntasks: [nleye_describe]\nenv: {ABDUCTIVE_DATA: sample}\n"
        "models:\n  - {name: dd, backend: dumb_pixel, env: {ABDUCTIVE_NLEYE_DESCRIBER: dd}}\n"
    )
    _batch(tmp_path / "describe.yaml", cache)
    (tmp_path / "read.yaml").write_text(
        "output_dir: out\ntasks: [nleye_triplet_described]\n"
        "env: {ABDUCTIVE_DATA: sample, ABDUCTIVE_NLEYE_DESCRIPTIONS: dd}\n"
        "models:\n  - {name: me, backend: dumb_pixel}\n  - {name: rb, backend: random_baseline}\n"
    )
    _batch(tmp_path / "read.yaml", cache)
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(cache))
    board = collect(tmp_path / "out", TaskIndex())
    assert board.read_from("me", "nleye_triplet_described") == {}
    assert board.read_from("rb", "nleye_triplet_described") == {
        "descriptions": "dd (ABDUCTIVE_NLEYE_DESCRIPTIONS, by dumb_pixel)"
    }
    assert board.value("rb", "nleye_triplet_described") is not None and not board.marks["rb"]
    monkeypatch.setattr(lmms_source, "own_model_versions", lambda: {**VERSIONS, "dumb_pixel": "9.9"})
    board = collect(tmp_path / "out", TaskIndex())
    assert board.marks["dd"]["nleye_describe"] == "stale"
    assert board.marks["rb"]["nleye_triplet_described"] == "stale"
    assert (
        "rb nleye_triplet_described: stale: nleye_describe of dd, whose descriptions it read, is stale (backend "
        f"dumb_pixel {VERSIONS['dumb_pixel']} → 9.9) since its run" in "\n".join(board.notes)
    )


def test_mucr_exp_is_stale_once_the_c2e_stage_whose_picks_it_read_changed_version(tmp_path, monkeypatch):
    """mucr_exp explains the model's own mucr_c2e and mucr_cue picks: a new mucr_c2e version makes the batch run
    mucr_c2e again, and mucr_exp after it, so the leaderboard marks both stale; mucr_cue stays a score."""
    cache = tmp_path / "cache"
    (tmp_path / "spec.yaml").write_text(
        "output_dir: out\ntasks: [mucr_exp]\nenv: {ABDUCTIVE_DATA: sample, ABDUCTIVE_JUDGE: 'off'}\n"
        "models:\n  - {name: base, backend: random_baseline, model_args: 'seed=1'}\n"
    )
    _batch(tmp_path / "spec.yaml", cache)
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(cache))
    assert not collect(tmp_path / "out", TaskIndex()).marks["base"]
    index = _bumped(TaskIndex(), "mucr_c2e", monkeypatch)
    board = collect(tmp_path / "out", index)
    version = TaskIndex().facts("mucr_c2e").version
    assert {task: board.marks["base"].get(task) for task in ("mucr_c2e", "mucr_cue", "mucr_exp")} == {
        "mucr_c2e": "stale",
        "mucr_cue": None,
        "mucr_exp": "stale",
    }
    assert (
        f"base mucr_exp: stale: mucr_c2e, whose picks it read, is stale (mucr_c2e version {version} → {version}.1) "
        "since its run" in "\n".join(board.notes)
    )


def test_the_reads_lines_say_what_each_chained_task_read_by_content():
    """``abductive-eval show``'s ``Reads`` lines: a stage output by its digest (the describer named on purpose), a
    variable's samples or store by their SHA-256, nothing given, or why what a variable names is unusable."""
    from abductive_tasks.reports.leaderboard.provenance import input_lines

    inputs = {
        "nleye_triplet_described": {
            "nleye_describe": {"kind": "descriptions", "from": "run", "model": "dumb_pixel", "digest": "c" * 64}
        },
        "mucr_exp": {
            "mucr_c2e": {"kind": "picks", "from": "ABDUCTIVE_MUCR_PICKS", "file": "x.jsonl", "sha256": "d" * 64},
            "mucr_cue": {"kind": "picks", "from": "run", "model": "", "digest": "pending"},
        },
        "mucr_exp_ccot": {"mucr_c2e_ccot": {"kind": "picks", "from": "ABDUCTIVE_MUCR_PICKS", "error": "no samples"}},
    }
    assert input_lines(inputs) == [
        f"Reads, mucr_exp: picks of mucr_c2e {'d' * 12} (from ABDUCTIVE_MUCR_PICKS); picks of mucr_cue: none given",
        "Reads, mucr_exp_ccot: picks of mucr_c2e_ccot: unusable (no samples)",
        f"Reads, nleye_triplet_described: descriptions of nleye_describe {'c' * 12} (from dumb_pixel)",
    ]
    assert input_lines({}) == []


def test_a_malformed_or_empty_reads_entry_is_said_so_not_shown_blank_or_as_a_digest():
    """The walk: ``show`` printed ``Reads, mucr_exp:`` and nothing more for a malformed inputs entry, and the digest of
    no bytes (e3b0c44298fc) for a named store holding nothing. Each line now says what is malformed, or that nothing
    was stored."""
    import hashlib

    from abductive_tasks.reports.leaderboard.provenance import input_lines

    empty_store = {"kind": "descriptions", "from": "ABDUCTIVE_NLEYE_DESCRIPTIONS", "name": "gone", "files": 0}
    inputs = {
        "a_list": ["picks"],
        "b_empty": {},
        "c_text": {"mucr_c2e": "picks"},
        "d_no_kind": {"mucr_c2e": {"digest": "d" * 64}},
        "e_blank_digest": {"mucr_c2e": {"kind": "picks", "from": "run", "digest": ""}},
        "f_empty_store": {"nleye_describe": {**empty_store, "sha256": hashlib.sha256().hexdigest()}},
    }
    assert input_lines(inputs) == [
        "Reads, a_list: malformed record (list ['picks']; expected upstream task -> what it read)",
        "Reads, b_empty: malformed record (dict {}; expected upstream task -> what it read)",
        "Reads, c_text: mucr_c2e: malformed entry (str 'picks'; expected its kind and digest)",
        "Reads, d_no_kind: mucr_c2e: malformed entry (dict {'digest': '"
        + "d" * 45
        + "...; expected its kind and digest)",
        "Reads, e_blank_digest: picks of mucr_c2e: malformed entry (digest str ''; expected hex digits)",
        "Reads, f_empty_store: descriptions of nleye_describe: none stored under 'gone' (from "
        "ABDUCTIVE_NLEYE_DESCRIPTIONS)",
    ]
