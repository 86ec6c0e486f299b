"""Review 1's findings (the provenance of the numbers a user sees), one test each, end to end on the sample; each
failed before its fix (603dbfe) and guards it now:

* F1 ``test_review1_f1_local_weights_replaced_at_the_same_path_are_another_identity`` (runs/identity.build_identity)
* F2 ``test_review1_f2_a_store_named_like_the_row_but_written_by_another_model_is_not_its_own`` (leaderboard cells)
* F3 ``test_review1_f3_a_reader_cell_is_stale_when_its_upstream_task_version_changed`` (leaderboard staleness)
* F4 ``test_review1_f4_export_refuses_tasks_of_runs_on_different_data`` (sherlock/export)
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil

import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.runs.identity import task_key
from abductive_tasks.runs.task_index import TaskIndex

from helpers.runs import cli_done, spec_identity


def test_review1_f1_local_weights_replaced_at_the_same_path_are_another_identity(tmp_path):
    """F1: weights retrained in place (``pretrained=/models/x``) keep the run identity, so the batch skips the model
    ("all tasks done earlier"), the leaderboard/show footnote names the NEW weights' digest for numbers of the OLD
    ones, and a plain chain reuses the old weights' MuCR picks for mucr_exp. ABDUCTIVE_CLIP_MODEL & co. already count
    by content (test_evaluator_weights_replaced_at_the_same_path_are_another_identity); ``pretrained`` does not."""
    weights = tmp_path / "model"
    weights.mkdir()
    (weights / "model.safetensors").write_bytes(b"weights one")
    env = {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    before = spec_identity(tmp_path, "nleye_triplet", env, {"response": "1", "pretrained": str(weights)})
    (weights / "model.safetensors").write_bytes(b"weights two, retrained")
    os.utime(weights / "model.safetensors", ns=(1, 1_000_000_000))
    after = spec_identity(tmp_path, "nleye_triplet", env, {"response": "1", "pretrained": str(weights)})
    assert task_key(before, "nleye_triplet") != task_key(after, "nleye_triplet")


def test_review1_f2_a_store_named_like_the_row_but_written_by_another_model_is_not_its_own(tmp_path):
    """F2: a batch row ``dp`` (dumb_pixel) reading ``ABDUCTIVE_NLEYE_DESCRIPTIONS=dp``, a store that random_baseline
    wrote, is shown unlabelled, averaged and ranked as if it were self-described: the leaderboard decides "own" by the
    store's NAME equalling the row's name (cells._read_from), never by the model the store's entries are bound to."""
    from abductive_tasks.reports.leaderboard.cells import collect

    cache = tmp_path / "cache"
    env = {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(cache)}
    cli_done(
        ["--model", "random_baseline", "--tasks", "nleye_describe", "--output_path", str(tmp_path / "plain")],
        {**env, "ABDUCTIVE_NLEYE_DESCRIBER": "dp"},
        tmp_path,
    )
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "output_dir: out\ntasks: [nleye_triplet_described]\nenv: {ABDUCTIVE_DATA: sample}\n"
        "models:\n  - {name: dp, backend: dumb_pixel, env: {ABDUCTIVE_NLEYE_DESCRIPTIONS: dp}}\n"
    )
    cli_done(["batch", str(spec)], env, tmp_path)
    os.environ["ABDUCTIVE_CACHE"], saved = str(cache), os.environ.get("ABDUCTIVE_CACHE")
    try:
        board = collect(tmp_path / "out")
    finally:
        os.environ.pop("ABDUCTIVE_CACHE")
        if saved is not None:
            os.environ["ABDUCTIVE_CACHE"] = saved
    assert board.value("dp", "nleye_triplet_described") is not None  # a score, shown
    assert board.read_from("dp", "nleye_triplet_described"), "random_baseline's descriptions shown as dp's own"


def test_review1_f3_a_reader_cell_is_stale_when_its_upstream_task_version_changed(tmp_path, monkeypatch):
    """F3: after nleye_describe's version changes, the leaderboard marks nleye_describe `stale` but keeps the reader
    nleye_triplet_described (which read the old stage's descriptions) as a ranked score, though the batch would run
    both again (`--print-commands`: "runs nleye_describe, nleye_triplet_described (0 of 2 done earlier)")."""
    from abductive_tasks.reports.leaderboard.cells import collect

    cache = tmp_path / "cache"
    env = {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(cache)}
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "output_dir: out\ntasks: [nleye_triplet_described]\nenv: {ABDUCTIVE_DATA: sample}\n"
        "models:\n  - {name: self, backend: dumb_pixel}\n"
    )
    cli_done(["batch", str(spec)], env, tmp_path)
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(cache))
    index = TaskIndex()
    real = index.facts

    def bumped(task):
        found = real(task)
        return dataclasses.replace(found, version=found.version + ".1") if task == "nleye_describe" else found

    monkeypatch.setattr(index, "facts", bumped)
    board = collect(tmp_path / "out", index)
    assert board.marks["self"].get("nleye_describe", "").startswith("stale")  # holds today
    assert board.marks["self"].get("nleye_triplet_described", "").startswith("stale")  # fails today: a score


def test_review1_f4_export_refuses_tasks_of_runs_on_different_data(tmp_path):
    """F4: two plain runs of one model into one --output_path (same <model>-<hash> folder), sherlock_comparison_test
    on the sample and sherlock_localization_test on another data version, are exported as ONE submission: the export
    refuses a task logged twice, not tasks of different runs (different data fingerprints, task or package versions,
    or weights retrained at the same path)."""
    from abductive_tasks.inputs.loading import DataError
    from abductive_tasks.sherlock.export import samples_files

    other = tmp_path / "data"
    shutil.copytree(SAMPLE_ROOT, other)
    from PIL import Image

    for path in sorted((other / "sherlock" / "images").rglob("*.jpg")):
        Image.eval(Image.open(path).convert("RGB"), lambda value: 255 - value).save(path)
    out = tmp_path / "out"
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    common = ["--model", "dumb_pixel", "--output_path", str(out), "--log_samples"]
    cli_done([*common, "--tasks", "sherlock_comparison_test"], {**env, "ABDUCTIVE_DATA": "sample"}, tmp_path)
    cli_done([*common, "--tasks", "sherlock_localization_test"], {**env, "ABDUCTIVE_DATA": str(other)}, tmp_path)
    (folder,) = [path for path in out.iterdir() if path.name.startswith("dumb_pixel-")]
    fingerprints = {
        json.dumps(json.loads(path.read_text())["abductive_tasks"]["data"]["sherlock"], sort_keys=True)
        for path in folder.glob("*_results.json")
    }
    assert len(fingerprints) == 2  # the two runs recorded different data
    with pytest.raises(DataError):
        samples_files(folder)  # today: {comparison: run 1, localization: run 2}, exported together
