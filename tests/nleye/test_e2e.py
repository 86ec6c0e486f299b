"""End-to-end lmms-eval runs of every NL-Eye task on the embedded sample (ABDUCTIVE_DATA=sample)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.nleye import data, hooks

from helpers.runs import OFFLINE, abductive_eval, count, metric, read_results, read_samples

pytestmark = pytest.mark.e2e

TRIPLET_TASKS = ("nleye_triplet", "nleye_triplet_combined", "nleye_triplet_text")
PAIRS_TASKS = ("nleye_pairs", "nleye_pairs_combined")
ITEMS = data.load(SAMPLE_ROOT / "nleye").items


def run_ok(tmp_path: Path, *args: str, data: str = "sample") -> dict:
    completed = abductive_eval(list(args), tmp_path / "out", data=data)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    return read_results(tmp_path / "out")


def test_dummy_always_one_on_triplets(tmp_path):
    results = run_ok(tmp_path, "--model", "dummy", "--model_args", "response=1", "--tasks", ",".join(TRIPLET_TASKS))
    for task in TRIPLET_TASKS:
        assert metric(results, task, "consistency_acc") == 0.0
        assert metric(results, task, "order1_acc") == 1.0
        assert metric(results, task, "order2_acc") == 0.0
        assert count(results, task, "unparsable") == 0
        assert count(results, task, "items_scored") == 12
        assert count(results, task, "items_incomplete") == 0
        assert metric(results, task, "consistency_by_category")["social"] == {
            "acc": 0.0,
            "n": 2,
            "lower": 0.0,
            "upper": 0.0,
        }


def test_dummy_always_seven_on_pairs(tmp_path):
    results = run_ok(tmp_path, "--model", "dummy", "--model_args", "response=7", "--tasks", ",".join(PAIRS_TASKS))
    for task in PAIRS_TASKS:
        assert metric(results, task, "order_faithful_acc") == 0.0
        assert metric(results, task, "equal_rank_rate") == 1.0
        assert metric(results, task, "rank_diff") == 0.0
        assert metric(results, task, "correct_rank_mean") == 7.0
        assert count(results, task, "items_with_both_scores") == 12


def test_unparsable_answers_are_counted_as_wrong(tmp_path):
    completed = abductive_eval(
        ["--model", "dummy", "--model_args", "response=no idea", "--tasks", "nleye_triplet,nleye_pairs"],
        tmp_path / "out",
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    shown = [" ".join(line.split()) for line in completed.stdout.splitlines()]
    assert (
        "| nleye_triplet | consistency_acc | 0.0 | [0.0, 0.0] | 25.0 | 12/12 items | 24 | 0 |" in shown
    )  # the summary: 24 unparsable
    results = read_results(tmp_path / "out")
    assert count(results, "nleye_triplet", "unparsable") == count(results, "nleye_triplet", "documents")
    assert count(results, "nleye_triplet", "unparsable") == 24
    assert metric(results, "nleye_triplet", "consistency_acc") == 0.0
    assert count(results, "nleye_pairs", "unparsable") == 24
    assert metric(results, "nleye_pairs", "order_faithful_acc") == 0.0
    assert count(results, "nleye_pairs", "items_with_both_scores") == 0


def test_limit_cutting_an_item_is_reported(tmp_path):
    results = run_ok(
        tmp_path, "--model", "dummy", "--model_args", "response=1", "--tasks", "nleye_triplet", "--limit", "3"
    )
    assert count(results, "nleye_triplet", "items_scored") == 1
    assert count(results, "nleye_triplet", "items_incomplete") == 1


def _corner_luminance(path: str) -> float:
    red, green, blue = Image.open(path).convert("RGB").getpixel((0, 0))
    return (299 * red + 587 * green + 114 * blue) / 1000


def test_dumb_pixel_on_every_task_matches_the_pixels(tmp_path):
    results = run_ok(tmp_path, "--model", "dumb_pixel", "--tasks", "nleye", "--log_samples")
    gold_brighter = np.array(
        [
            _corner_luminance(i["hypothesis_images"][i["gold"] - 1])
            > _corner_luminance(i["hypothesis_images"][2 - i["gold"]])
            for i in ITEMS
        ]
    )
    expected = gold_brighter.mean()
    assert expected == pytest.approx(7 / 12)  # how the sample was drawn
    for task in TRIPLET_TASKS:
        # The brighter hypothesis wins in both orders: consistent, right exactly when gold is brighter.
        assert metric(results, task, "consistency_acc") == pytest.approx(expected)
        assert metric(results, task, "order1_acc") == pytest.approx(expected)
        assert metric(results, task, "order2_acc") == pytest.approx(expected)
        assert count(results, task, "unparsable") == 0
    for task in PAIRS_TASKS:
        assert metric(results, task, "order_faithful_acc") == pytest.approx(expected)
        assert metric(results, task, "equal_rank_rate") == 0.0
        assert count(results, task, "unparsable") == 0
    responses = [s["filtered_resps"] for s in read_samples(tmp_path / "out", "nleye_pairs")]
    assert all(r.startswith("Score: ") for r in responses)


def _random_triplet_consistency(task: str, seed: int = 0) -> float:
    docs = hooks.triplet_docs_from(ITEMS)
    picks = [random.Random(f"{seed}:{task}:{doc_id}").choice(["1", "2"]) for doc_id in range(len(docs))]
    right = [int(pick) == doc["gold_position"] for pick, doc in zip(picks, docs, strict=True)]
    return float(np.mean(np.logical_and(right[0::2], right[1::2])))


def test_random_baseline_on_every_task_is_seeded_per_document(tmp_path):
    results = run_ok(tmp_path, "--model", "random_baseline", "--model_args", "seed=0", "--tasks", "nleye")
    for task in TRIPLET_TASKS:
        assert metric(results, task, "consistency_acc") == pytest.approx(_random_triplet_consistency(task))
        assert count(results, task, "unparsable") == 0
    for task in PAIRS_TASKS:
        assert count(results, task, "unparsable") == 0
        assert count(results, task, "items_with_both_scores") == 12
        assert 0.0 <= metric(results, task, "order_faithful_acc") <= 1.0


def test_plain_lmms_eval_route_with_include_path(tmp_path, data_copy):
    """The documented plain route works, and shows why abductive-eval exists: 0.7.3 exits 0 on failure."""
    tasks_path = subprocess.run(
        [str(Path(sys.executable).with_name("abductive-eval")), "--tasks-path"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    env = {**os.environ, **OFFLINE}
    command = [
        str(Path(sys.executable).with_name("lmms-eval")),
        "--model",
        "dummy",
        "--model_args",
        "response=1",
        "--tasks",
        "nleye_triplet",
        "--include_path",
        tasks_path,
    ]
    good = subprocess.run(
        [*command, "--output_path", str(tmp_path / "good")],
        capture_output=True,
        text=True,
        env={**env, "ABDUCTIVE_DATA": "sample"},
        cwd=tmp_path,
    )
    assert good.returncode == 0
    assert metric(read_results(tmp_path / "good"), "nleye_triplet", "order1_acc") == 1.0
    (data_copy / "nleye" / "images" / "4" / "premise.png").unlink()
    bad = subprocess.run(
        [*command, "--output_path", str(tmp_path / "bad")],
        capture_output=True,
        text=True,
        env={**env, "ABDUCTIVE_DATA": str(data_copy)},
        cwd=tmp_path,
    )
    assert bad.returncode == 0 and "image file not found" in bad.stdout + bad.stderr
    assert not list((tmp_path / "bad").rglob("*_results.json"))


def test_bad_data_fails_loudly(tmp_path, data_copy):
    (data_copy / "nleye" / "images" / "4" / "premise.png").unlink()
    completed = abductive_eval(["--model", "dummy", "--tasks", "nleye_triplet"], tmp_path / "out", data=str(data_copy))
    assert completed.returncode == 1
    assert "image file not found" in completed.stderr and "ABDUCTIVE_DATA=sample" in completed.stderr
    assert completed.stderr.startswith(f"abductive-eval: {data_copy / 'nleye' / 'test_set.csv'}, line 5")
