"""End-to-end lmms-eval runs of the Sherlock tasks on the embedded sample (ABDUCTIVE_DATA=sample)."""

from __future__ import annotations

import zipfile
from collections import Counter

import numpy as np
import pytest

from abductive_tasks.cli import main
from abductive_tasks.data import SAMPLE_ROOT
from abductive_tasks.images import draw_regions, mean_luminance, top_left_luminance
from abductive_tasks.sherlock import metrics
from abductive_tasks.sherlock.docs import documents_from
from abductive_tasks.sherlock.export import write_submission

from helpers.runs import abductive_eval, metric, read_results
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e

ROOT = SAMPLE_ROOT / "sherlock"
CONSTANT_COMPARISON = 100 * (0.75 - 0.4 - 1 / 6) / 3  # the tie-break noise alone (tests/test_sherlock_metrics.py)
CONSTANT_AUTO = 100 * (0.5 + 0 + 1 / 3) / 3  # first proposal per inference (tests/test_sherlock_data.py)
ORACLE_AUTO = 100 * (1 + 0.5 + 2 / 3) / 3


def run_ok(tmp_path, *args: str) -> dict:
    completed = abductive_eval(list(args), tmp_path / "out")
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    return read_results(tmp_path / "out")


def test_dummy_on_every_task_and_route(tmp_path):
    """A constant scorer: every number follows from the tie-break rules (hand-computed)."""
    tasks = "sherlock,sherlock_rating,sherlock_retrieval_mini,sherlock_retrieval_mini_rating,sherlock_test"
    results = run_ok(tmp_path, "--model", "dummy", "--model_args", "response=7", "--tasks", tasks)
    for suffix in ("", "_rating"):
        comparison, localization = f"sherlock_comparison{suffix}", f"sherlock_localization{suffix}"
        assert metric(results, comparison, "comparison_acc") == pytest.approx(CONSTANT_COMPARISON)
        assert metric(results, comparison, "comparison_oracle_acc") > metric(results, comparison, "comparison_human_acc") > 0
        assert metric(results, comparison, "comparison_inputs_scored") == 3
        assert metric(results, comparison, "comparison_unparsable") == 0
        assert metric(results, localization, "localization_auto_acc") == pytest.approx(CONSTANT_AUTO)
        assert metric(results, localization, "localization_auto_oracle_acc") == pytest.approx(ORACLE_AUTO)
        assert metric(results, localization, "localization_gt_images") == 3
        assert metric(results, localization, "localization_documents") == 40
        mini = f"sherlock_retrieval_mini{suffix}"
        assert metric(results, mini, "mini_im2txt_rank") == pytest.approx((2.5 + 2.0) / 2)  # all tied: (n + 1) / 2
        assert metric(results, mini, "mini_p_at_1") == 0.0
        assert metric(results, mini, "mini_chunks_scored") == 2
    assert metric(results, "sherlock_retrieval_rating", "retrieval_per_chunk")["1"] == {"im2txt_rank": 2.0, "txt2im_rank": 2.0, "p_at_1": 0.0, "n": 3}
    # The full retrieval task takes the embedding route: a plain score is counted, not ranked.
    assert metric(results, "sherlock_retrieval", "retrieval_unparsable") == 7
    assert metric(results, "sherlock_retrieval", "retrieval_p_at_1") is None
    # Test split: scores logged, metrics not computed (no answer key).
    assert metric(results, "sherlock_comparison_test", "comparison_acc") is None
    assert metric(results, "sherlock_comparison_test", "comparison_documents") == 3
    assert metric(results, "sherlock_localization_test", "localization_gt_acc") is None


def test_dumb_pixel_scores_the_drawn_region_and_exports_the_submission(tmp_path):
    tasks = "sherlock_localization,sherlock_retrieval_mini,sherlock_comparison_test,sherlock_localization_test,sherlock_retrieval_rating_test"
    results = run_ok(tmp_path, "--model", "dumb_pixel", "--tasks", tasks, "--log_samples")
    docs = documents_from(ROOT, "localization", "val")
    scores = {d["test_id"]: mean_luminance(draw_regions(d["image_path"], tuple(map(tuple, d["boxes"])))) / 255 for d in docs}
    gt = []
    for image in sorted({d["image_path"] for d in docs}):
        cells = [d for d in docs if d["image_path"] == image and d["box_type"] == "gt"]
        n = int(len(cells) ** 0.5)
        box_of = {d["inst_id"]: d["bbox_idx"] for d in cells if d["correct"]}
        sim = np.zeros((n, n))
        for d in cells:
            sim[d["bbox_idx"], box_of[d["inst_id"]]] = np.float32(scores[d["test_id"]])
        gt.append(metrics.localization_gt_accuracy(sim))
    assert metric(results, "sherlock_localization", "localization_gt_acc") == pytest.approx(100 * np.mean(gt))
    assert metric(results, "sherlock_localization", "localization_unparsable") == 0
    # The score depends on the image-region only: every inference ties within a row.
    assert metric(results, "sherlock_retrieval_mini", "mini_im2txt_rank") == pytest.approx(2.25)

    archive = write_submission(tmp_path / "out", tmp_path / "submission")
    assert archive.name == "test_set_predictions.zip"
    names = sorted(zipfile.ZipFile(archive).namelist())
    assert names == [f"test_set_predictions/{name}.npy" for name in ("comparison", "localization", "retrieval_0", "retrieval_1")]
    folder = tmp_path / "submission" / "test_set_predictions"
    for task in ("comparison", "localization"):
        test_docs = sorted(documents_from(ROOT, task, "test"), key=lambda d: d["test_id"])
        expected = [mean_luminance(draw_regions(d["image_path"], tuple(map(tuple, d["boxes"])))) / 255 for d in test_docs]
        array = np.load(folder / f"{task}.npy")
        assert array.dtype == np.float32
        np.testing.assert_array_equal(array, np.array(expected, dtype=np.float32))
    retrieval = sorted((d for d in documents_from(ROOT, "retrieval", "test") if d["chunk"] == 1), key=lambda d: d["test_id"])
    expected = [float(f"{1 + 9 * top_left_luminance(d['image_path']) / 255:.3f}") for d in retrieval]  # the rating route's "Score: x"
    np.testing.assert_array_equal(np.load(folder / "retrieval_1.npy"), np.array(expected, dtype=np.float32))


def test_tiny_llava_rates_every_region_image(tmp_path, monkeypatch, llava_images_per_call):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / "out"
    tasks = "sherlock_comparison_rating,sherlock_localization_rating,sherlock_retrieval_mini_rating"
    arguments = ["--model", "llava_hf", "--model_args", f"pretrained={model_dir},device_map=cpu,device=cpu", "--tasks", tasks]
    code = main([*arguments, "--gen_kwargs", "max_new_tokens=4", "--output_path", str(output)])
    assert code == 0
    assert Counter(llava_images_per_call) == {1: 12 + 40 + 25}  # one region-drawn image per document
    results = read_results(output)
    assert metric(results, "sherlock_comparison_rating", "comparison_documents") == 12
    assert metric(results, "sherlock_comparison_rating", "comparison_inputs_scored") == 3
    assert metric(results, "sherlock_localization_rating", "localization_gt_images") == 3
    assert 0 <= metric(results, "sherlock_retrieval_mini_rating", "mini_unparsable") <= 25
    assert metric(results, "sherlock_retrieval_mini_rating", "mini_chunks_scored") == 2
