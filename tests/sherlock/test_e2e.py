"""End-to-end lmms-eval runs of the Sherlock tasks on the embedded sample (ABDUCTIVE_DATA=sample)."""

from __future__ import annotations

import zipfile
from collections import Counter

import numpy as np
import pytest

from abductive_tasks.cli import main
from abductive_tasks.inputs.images import draw_regions, mean_luminance, top_left_luminance
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.sherlock import data, metrics

from helpers.runs import abductive_eval, count, metric, read_results
from helpers.sherlock_official import official_scores
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e

ROOT = SAMPLE_ROOT / "sherlock"
CONSTANT_COMPARISON = 100 * (0.75 - 0.4 - 1 / 6) / 3  # the tie-break noise alone (test_metrics.py)
CONSTANT_AUTO = 100 * (0.5 + 0 + 1 / 3) / 3  # the first proposal per inference (test_hooks.py)
ORACLE_AUTO = 100 * (1 + 0.5 + 2 / 3) / 3
EVERY_TASK = (
    "sherlock,sherlock_rating,sherlock_retrieval_mini,sherlock_retrieval_mini_rating,sherlock_test,sherlock_rating_test"
)
RATING_TASKS = {
    "sherlock_retrieval_rating": 25,
    "sherlock_retrieval_mini_rating": 25,
    "sherlock_localization_rating": 40,
    "sherlock_comparison_rating": 12,
    "sherlock_retrieval_rating_test": 13,
    "sherlock_localization_rating_test": 3,
    "sherlock_comparison_rating_test": 3,
}


def run_ok(tmp_path, *args: str, status: int = 0) -> dict:
    """``abductive-eval ARGS`` into ``tmp_path/out``, exiting ``status`` (1: requests failed, no clean score)."""
    completed = abductive_eval(list(args), tmp_path / "out")
    assert completed.returncode == status, completed.stdout[-3000:] + completed.stderr[-3000:]
    return read_results(tmp_path / "out")


def test_dummy_on_every_task_and_route(tmp_path):
    """A constant scorer: every number follows from the tie-break rules (hand-computed)."""
    tasks = (
        "sherlock,sherlock_rating,sherlock_retrieval_mini,sherlock_retrieval_mini_rating,sherlock_test,"
        "sherlock_localization_pairs"
    )
    results = run_ok(tmp_path, "--model", "dummy", "--model_args", "response=7", "--tasks", tasks)
    for suffix in ("", "_rating"):
        comparison = f"sherlock_comparison{suffix}"
        localization = "sherlock_localization_pairs" if suffix == "" else "sherlock_localization_rating"
        assert metric(results, comparison, "comparison_acc") == pytest.approx(CONSTANT_COMPARISON)
        assert (
            metric(results, comparison, "comparison_oracle_acc")
            > metric(results, comparison, "comparison_human_acc")
            > 0
        )
        assert count(results, comparison, "inputs_scored") == 3
        assert count(results, comparison, "unparsable") == 0
        assert metric(results, localization, "localization_auto_acc") == pytest.approx(CONSTANT_AUTO)
        assert metric(results, localization, "localization_auto_oracle_acc") == pytest.approx(ORACLE_AUTO)
        assert metric(results, localization, "localization_gt_acc") == 0.0  # the official solver's ties: no box right
        assert count(results, localization, "gt_images") == 3
        assert count(results, localization, "documents") == 40
        mini = f"sherlock_retrieval_mini{suffix}"
        assert metric(results, mini, "mini_im2txt_rank") == pytest.approx((2.5 + 2.0) / 2)  # all tied: (n + 1) / 2
        assert metric(results, mini, "mini_p_at_1") == 0.0
        assert count(results, mini, "chunks_scored") == 2
        ci95 = metric(results, mini, "mini_ci95")["mini_p_at_1"]
        assert ci95["units"] == 2 and ci95["chance"] == pytest.approx((100 / 4 + 100 / 3) / 2)
    assert metric(results, "sherlock_retrieval_rating", "retrieval_per_chunk")["1"] == {
        "im2txt_rank": 2.0,
        "txt2im_rank": 2.0,
        "p_at_1": 0.0,
        "n": 3,
    }
    assert (
        metric(results, "sherlock_comparison", "comparison_acc_stderr")
        == metric(results, "sherlock_comparison", "comparison_ci95")["comparison_acc"]["stderr"]
        > 0
    )
    # The full retrieval task takes the embedding route: a plain score is counted, not ranked.
    assert count(results, "sherlock_retrieval", "unparsable") == 7
    assert metric(results, "sherlock_retrieval", "retrieval_p_at_1") is None
    # The full localization task asks one score matrix per image: a plain score is counted (3 images), and its 40
    # instances get the file's missing score, one constant: the numbers of a constant model.
    assert (
        count(results, "sherlock_localization", "documents"),
        count(results, "sherlock_localization", "unparsable"),
    ) == (3, 3)
    assert count(results, "sherlock_localization", "instances_unscored") == 40
    assert metric(results, "sherlock_localization", "localization_gt_acc") == 0.0
    assert metric(results, "sherlock_localization", "localization_auto_acc") == pytest.approx(CONSTANT_AUTO)
    # Test split: scores logged, metrics not computed (no answer key).
    assert metric(results, "sherlock_comparison_test", "comparison_acc") is None
    assert count(results, "sherlock_comparison_test", "documents") == 3
    assert metric(results, "sherlock_localization_test", "localization_gt_acc") is None


def _drawn(doc: dict) -> float:
    return mean_luminance(draw_regions(doc["image_path"], tuple(map(tuple, doc["boxes"])))) / 255


@pytest.mark.parametrize("model", ["dumb_pixel", "random_baseline"])
def test_baselines_answer_every_task(tmp_path, monkeypatch, model):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")  # the export of the factored retrieval reads the chunk files again
    results = run_ok(tmp_path, "--model", model, "--tasks", EVERY_TASK, "--log_samples")
    tasks = [
        task for task, values in results.items() if any(key.endswith("_counts,none") for key in values)
    ]  # not the groups
    assert len(tasks) == 14
    for task in tasks:
        assert (count(results, task, "unparsable"), count(results, task, "request_failed")) == (0, 0), task
        headline = next(
            name
            for name in ("retrieval_p_at_1", "mini_p_at_1", "localization_gt_acc", "comparison_acc")
            if f"{name},none" in results[task]
        )
        assert (metric(results, task, headline) is None) == task.endswith("_test"), task
    assert count(results, "sherlock_retrieval", "chunks_scored") == 2
    if model == "dumb_pixel":
        _dumb_pixel_by_hand(tmp_path, results)


def _dumb_pixel_by_hand(tmp_path, results: dict) -> None:
    """dumb_pixel scores the region-drawn image's luminance: its numbers and its submission, by hand."""
    items = data.load(ROOT, "localization", "val").items
    scores = {item["test_id"]: _drawn(item) for item in items}
    gt = []
    for image in sorted({item["image_path"] for item in items}):
        cells = [item for item in items if item["image_path"] == image and item["box_type"] == "gt"]
        n = int(len(cells) ** 0.5)
        box_of = {item["inst_id"]: item["bbox_idx"] for item in cells if item["correct"]}
        sim = np.zeros((n, n))
        for item in cells:
            sim[item["bbox_idx"], box_of[item["inst_id"]]] = np.float32(scores[item["test_id"]])
        gt.append(metrics.localization_gt_accuracy(sim))
    assert metric(results, "sherlock_localization", "localization_gt_acc") == pytest.approx(100 * np.mean(gt))
    # The score depends on the image-region only: every inference ties within a row.
    assert metric(results, "sherlock_retrieval_mini", "mini_im2txt_rank") == pytest.approx(2.25)
    # Its factored retrieval gives the same scores as the per-pair mini grid,
    # which covers the small sample chunks whole.
    for name in ("p_at_1", "im2txt_rank", "txt2im_rank"):
        assert metric(results, "sherlock_retrieval", f"retrieval_{name}") == pytest.approx(
            metric(results, "sherlock_retrieval_mini", f"mini_{name}")
        )

    tasks = "sherlock_comparison_test,sherlock_localization_test,sherlock_retrieval_test"
    assert (
        main(["export-sherlock", str(tmp_path / "out"), "--out", str(tmp_path / "submission"), "--tasks", tasks]) == 0
    )
    archive = tmp_path / "submission" / "test_set_predictions.zip"
    names = sorted(zipfile.ZipFile(archive).namelist())
    assert names == [
        f"test_set_predictions/{name}.npy" for name in ("comparison", "localization", "retrieval_0", "retrieval_1")
    ]
    folder = tmp_path / "submission" / "test_set_predictions"
    for task in ("comparison", "localization", "retrieval"):
        test_items = sorted(data.load(ROOT, task, "test").items, key=lambda item: item["test_id"])
        for chunk in sorted({item["chunk"] for item in test_items}):
            expected = [_drawn(item) for item in test_items if item["chunk"] == chunk]
            array = np.load(folder / (f"retrieval_{chunk}.npy" if task == "retrieval" else f"{task}.npy"))
            assert array.dtype == np.float32
            np.testing.assert_array_equal(array, np.array(expected, dtype=np.float32))
    # The rating route of the same files: the upper-left pixel's "Score: x".
    assert (
        main(
            [
                "export-sherlock",
                str(tmp_path / "out"),
                "--out",
                str(tmp_path / "rating"),
                "--tasks",
                "sherlock_retrieval_rating_test",
            ]
        )
        == 0
    )
    retrieval = sorted(
        (item for item in data.load(ROOT, "retrieval", "test").items if item["chunk"] == 1),
        key=lambda item: item["test_id"],
    )
    expected = [float(f"{1 + 9 * top_left_luminance(item['image_path']) / 255:.3f}") for item in retrieval]
    np.testing.assert_array_equal(
        np.load(tmp_path / "rating" / "test_set_predictions" / "retrieval_1.npy"), np.array(expected, dtype=np.float32)
    )


def test_a_failed_request_is_never_an_answer(tmp_path):
    """Every request of every rating task fails. Counted as request_failed (not unparsable), and
    scored as the export holds them (one missing-score policy): every score of a file the same, so as a constant
    model is scored
    (nothing ranked first, no GT box right, the first auto proposal, comparison ties ordered by the official
    noise: tests/sherlock/test_hooks.py derives these values)."""
    marker = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"
    results = run_ok(
        tmp_path, "--model", "dummy", "--model_args", f"response={marker}", "--tasks", EVERY_TASK, status=1
    )
    for task, documents in RATING_TASKS.items():
        assert (
            count(results, task, "documents"),
            count(results, task, "request_failed"),
            count(results, task, "unparsable"),
        ) == (documents, documents, 0), task
    assert metric(results, "sherlock_retrieval_rating", "retrieval_p_at_1") == 0.0
    assert metric(results, "sherlock_retrieval_mini_rating", "mini_p_at_1") == 0.0
    assert metric(results, "sherlock_localization_rating", "localization_gt_acc") == 0.0
    assert metric(results, "sherlock_localization_rating", "localization_auto_acc") == pytest.approx(CONSTANT_AUTO)
    assert metric(results, "sherlock_comparison_rating", "comparison_acc") == pytest.approx(CONSTANT_COMPARISON)
    # The loglikelihood route never sees the marker: lmms-eval's dummy answers (0.0, False) there, which the
    # factored localization counts as no score matrix.
    assert (
        count(results, "sherlock_comparison", "request_failed") == 0
        and count(results, "sherlock_comparison", "unparsable") == 0
        and count(results, "sherlock_localization", "request_failed") == 0
        and count(results, "sherlock_localization", "unparsable") == 3
    )


def test_tiny_llava_rates_every_region_image(tmp_path, monkeypatch, llava_images_per_call):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / "out"
    tasks = "sherlock_comparison_rating,sherlock_localization_rating,sherlock_retrieval_mini_rating"
    arguments = [
        "--model",
        "llava_hf",
        "--model_args",
        f"pretrained={model_dir},device_map=cpu,device=cpu",
        "--tasks",
        tasks,
    ]
    code = main([*arguments, "--gen_kwargs", "max_new_tokens=4", "--output_path", str(output)])
    assert code == 0
    assert Counter(llava_images_per_call) == {1: 12 + 40 + 25}  # one region-drawn image per document
    results = read_results(output)
    assert count(results, "sherlock_comparison_rating", "documents") == 12
    assert count(results, "sherlock_comparison_rating", "inputs_scored") == 3
    assert count(results, "sherlock_localization_rating", "gt_images") == 3
    assert 0 <= count(results, "sherlock_retrieval_mini_rating", "unparsable") <= 25
    assert count(results, "sherlock_retrieval_mini_rating", "chunks_scored") == 2


FAILED_REPLY = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"


@pytest.mark.parametrize(
    ("model", "missing"),
    [(("--model", "random_baseline"), 0.0), (("--model", "dummy", "--model_args", f"response={FAILED_REPLY}"), 1.0)],
    ids=["none-missing", "all-missing"],
)
def test_the_official_algorithm_on_a_runs_export_gives_what_the_run_printed(tmp_path, model, missing):
    """The official scoring on our export equals our numbers, end to end: lmms-eval runs the val rating tasks,
    export-sherlock writes the submission (failed requests as missing scores with --allow-failed), and the official
    algorithms (helpers/sherlock_official.py) on the exported arrays give the printed numbers. 10% missing:
    tests/sherlock/test_official_equality.py."""
    results = run_ok(tmp_path, *model, "--tasks", "sherlock_rating", "--log_samples", status=int(missing > 0))
    out = str(tmp_path / "submission")
    assert main(["export-sherlock", str(tmp_path / "out"), "--out", out, "--split", "val", "--allow-failed"]) == 0
    folder = tmp_path / "submission" / "validation_set_predictions"
    arrays = {path.stem: np.load(path) for path in folder.glob("*.npy")}
    assert sorted(arrays) == ["comparison", "localization", "retrieval_0", "retrieval_1"]
    for family in ("retrieval", "localization", "comparison"):
        task = f"sherlock_{family}_rating"
        documents = count(results, task, "documents")
        assert count(results, task, "request_failed") == missing * documents
        assert count(results, task, "unparsable") == 0
        official = official_scores(family, arrays)
        if family == "retrieval":
            per_chunk = metric(results, task, "retrieval_per_chunk")
            for name, values in official.items():
                printed = per_chunk[name.removeprefix("retrieval_")]
                assert {key: printed[key] for key in values} == pytest.approx(values, rel=1e-12, abs=1e-12)
            for key in ("p_at_1", "im2txt_rank", "txt2im_rank"):
                mean = np.mean([values[key] for values in official.values()])
                assert metric(results, task, f"retrieval_{key}") == pytest.approx(mean, rel=1e-12, abs=1e-12)
        else:
            for key, value in official[family].items():
                assert metric(results, task, key) == pytest.approx(value, rel=1e-12, abs=1e-12), (task, key)
