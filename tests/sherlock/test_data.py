"""Sherlock loader, documents, region drawing, result parsing and aggregations (no lmms-eval run)."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from lmms_eval.api.instance import Instance
from PIL import Image

from abductive_tasks import images
from abductive_tasks.data import SAMPLE_ROOT, DataError
from abductive_tasks.models.baselines import DumbPixel, RandomBaseline
from abductive_tasks.sherlock import hooks
from abductive_tasks.sherlock.data import image_key
from abductive_tasks.sherlock.docs import documents_from
from abductive_tasks.sherlock.export import write_submission

ROOT = SAMPLE_ROOT / "sherlock"


def test_image_urls_map_to_their_last_two_components():
    assert image_key("https://cs.stanford.edu/people/rak248/VG_100K/2371713.jpg") == "VG_100K/2371713.jpg"
    url = "http://s3-us-west-2.amazonaws.com/ai2-rowanz/vcr1images/lsmdc_3023_DISTRICT_9/3023_DISTRICT_9_01.21.02.808-01.21.16.722@5.jpg"
    assert image_key(url) == "lsmdc_3023_DISTRICT_9/3023_DISTRICT_9_01.21.02.808-01.21.16.722@5.jpg"


def test_sample_documents_cover_every_leaderboard_instance():
    counts = {(task, split): len(documents_from(ROOT, task, split)) for task in ("retrieval", "localization", "comparison") for split in ("val", "test")}
    assert counts == {
        ("retrieval", "val"): 16 + 9,
        ("retrieval", "test"): 9 + 4,
        ("localization", "val"): (4 + 2 * 4) + (4 + 2 * 3) + (9 + 3 * 3),
        ("localization", "test"): 1 + 2,
        ("comparison", "val"): 5 + 4 + 3,
        ("comparison", "test"): 3,
    }
    doc = next(d for d in documents_from(ROOT, "localization", "val") if d["box_type"] == "auto" and d["iou"] == 0.5)
    assert doc["boxes"] == [[4, 4, 30, 12]] and doc["inst_id"] == "o1"
    assert doc["region_key"] == "VG_100K/101.jpg|[[4, 4, 30, 12]]"
    assert doc["group_size"] == 2 * 4 and doc["answer_kind"] == "score"
    test_doc = documents_from(ROOT, "comparison", "test")[0]
    assert not test_doc["has_key"] and math.isnan(test_doc["annot1"]) and test_doc["file_size"] == 3


def test_mini_grid_is_a_seeded_square_sub_grid_with_the_true_pairs():
    mini = documents_from(ROOT, "retrieval", "val", mini=True, mini_size=2)
    assert len(mini) == 2 * 2 * 2
    for chunk in (0, 1):
        docs = [d for d in mini if d["chunk"] == chunk]
        rows = {d["image_instance"] for d in docs}
        assert rows == {d["text_instance"] for d in docs} and len(rows) == 2
        assert all(d["group_size"] == 4 for d in docs)
    assert mini["test_id"] == documents_from(ROOT, "retrieval", "val", mini=True, mini_size=2)["test_id"]
    with pytest.raises(DataError, match="val retrieval only"):
        documents_from(ROOT, "comparison", "val", mini=True)


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("task", "file", "change", "message"),
    [
        ("comparison", "val_comparison/val_comparison_instances.json", lambda d: d[1].update(test_id=d[0]["test_id"]), "instance 1, field 'test_id': duplicate"),
        ("comparison", "val_comparison/val_comparison_instances.json", lambda d: d[2]["region"][0].update(left=1.5), "instance 2, field 'region\\[0\\]'"),
        ("comparison", "val_comparison/val_comparison_instances.json", lambda d: d[0].update(inference=""), "instance 0, field 'inference'"),
        ("comparison", "val_comparison/val_comparison_instances.json", lambda d: d[0]["image"].update(url="http://x/../.."), "escapes the data root"),
        (
            "comparison",
            "val_comparison/val_comparison_answer_key.json",
            lambda d: d["annotations"][0]["candidates"][0].pop("annot2"),
            "annotations\\[0\\], candidates\\[0\\]",
        ),
        ("localization", "val_localization/val_localization_answer_key.json", lambda d: d.pop(next(iter(d))), "no answer for 1 test_id"),
        ("localization", "val_localization/val_localization_answer_key.json", lambda d: next(iter(d.values())).update(type="box"), "type 'gt' or 'auto'"),
        ("retrieval", "val_retrieval/val_retrieval_1_answer_key.json", lambda d: d.update({next(iter(d)): ["o2", "o5"]}), "full n x n grid"),
    ],
)
def test_bad_data_names_file_row_and_field(data_copy, task, file, change, message):
    _edit(data_copy / "sherlock" / file, change)
    with pytest.raises(DataError, match=message):
        documents_from(data_copy / "sherlock", task, "val")


def test_missing_image_and_missing_answer_key_fail_loudly(data_copy):
    (data_copy / "sherlock" / "images" / "VG_100K" / "102.jpg").unlink()
    with pytest.raises(DataError, match="image file not found"):
        documents_from(data_copy / "sherlock", "comparison", "val")
    (data_copy / "sherlock" / "val_localization" / "val_localization_answer_key.json").unlink()
    with pytest.raises(DataError, match="answer key .* not found"):
        documents_from(data_copy / "sherlock", "localization", "val")


def test_regions_are_drawn_like_the_official_code_and_cached():
    images.clear_cache()
    path = str(ROOT / "images" / "VG_100K" / "101.jpg")
    drawn = images.draw_regions(path, ((4, 4, 30, 24),))
    original = Image.open(path).convert("RGB")
    assert drawn.size == original.size and drawn.mode == "RGB"
    assert drawn.getpixel((4, 4)) == (5, 255, 55)  # the opaque green outline, 3 px wide
    assert drawn.getpixel((6, 6)) == (5, 255, 55) and drawn.getpixel((7, 7)) != (5, 255, 55)
    # Inside: the #ff05cd fill at alpha 0x3c over the picture.
    red, green, blue = original.getpixel((15, 15))
    alpha = 0x3C / 255
    expected = tuple(round(c * (1 - alpha) + f * alpha) for c, f in zip((red, green, blue), (0xFF, 0x05, 0xCD), strict=True))
    assert all(abs(a - b) <= 1 for a, b in zip(drawn.getpixel((15, 15)), expected, strict=True))
    assert drawn.getpixel((60, 50)) == original.getpixel((60, 50))  # outside the box: untouched
    assert images.draw_regions(path, [[4, 4, 30, 24]]) is drawn  # cached, whatever the box container


@pytest.mark.parametrize(
    ("result", "score"),
    [
        ("(2.5, False)", -2.5),
        ("(-0.31, True)", 0.31),
        ((1, False), -1.0),
        ("(nan, False)", None),
        ("('emb1:xx', False)", None),
        ("__import__('os')", None),
        ("", None),
        ("(inf, False)", None),
    ],
)
def test_loglikelihood_results_are_read_as_losses(result, score):
    assert hooks.loglikelihood_score(result) == score


def _records(task: str, scores: dict[str, float | None]) -> list[dict]:
    """process_results records of a loglikelihood run whose plausibilities are ``scores`` (None: an unreadable result)."""
    docs = documents_from(ROOT, task, "val")
    results = [[f"({-scores[doc['test_id']]}, False)"] if scores[doc["test_id"]] is not None else ["?"] for doc in docs]
    return [next(iter(hooks.process_results_loglikelihood(doc, result).values())) for doc, result in zip(docs, results, strict=True)]


def test_aggregations_score_complete_groups_and_count_the_rest():
    docs = documents_from(ROOT, "retrieval", "val")
    truth = {d["test_id"]: float(d["image_instance"] == d["text_instance"]) for d in docs}
    records = _records("retrieval", truth)
    assert hooks.AGGREGATIONS["retrieval_p_at_1"](records) == 100.0
    assert hooks.AGGREGATIONS["retrieval_per_chunk"](records)[1] == {"im2txt_rank": 1.0, "txt2im_rank": 1.0, "p_at_1": 100.0, "n": 3}
    cut = records[:20]  # --limit: chunk 1 loses 5 of its 9 documents
    assert hooks.AGGREGATIONS["retrieval_chunks_scored"](cut) == 1
    assert hooks.AGGREGATIONS["retrieval_chunks_incomplete"](cut) == 1
    # An unparsable score ranks below every other one and is counted.
    broken = _records("retrieval", {**truth, docs[0]["test_id"]: None})
    assert hooks.AGGREGATIONS["retrieval_unparsable"](broken) == 1
    assert hooks.AGGREGATIONS["retrieval_per_chunk"](broken)[0]["p_at_1"] == 75.0


def test_localization_and_comparison_aggregations_on_the_sample_by_hand():
    docs = documents_from(ROOT, "localization", "val")
    # Score = IoU for proposals, 1 for true gt boxes: the oracle of both settings.
    oracle = {d["test_id"]: (d["iou"] if d["box_type"] == "auto" else float(d["correct"])) for d in docs}
    records = _records("localization", oracle)
    assert hooks.AGGREGATIONS["localization_gt_acc"](records) == 100.0
    # Per image: 101: o1 and o2 each have an IoU-1 proposal; American Beauty: o5's best is exactly 0.5 (wrong), o6 right;
    # 103: o4 and o9 right, o10 has no overlapping proposal.
    expected = 100 * (1 + 0.5 + 2 / 3) / 3
    assert hooks.AGGREGATIONS["localization_auto_acc"](records) == pytest.approx(expected)
    assert hooks.AGGREGATIONS["localization_auto_oracle_acc"](records) == pytest.approx(expected)
    assert hooks.AGGREGATIONS["localization_gt_images"](records) == 3 == hooks.AGGREGATIONS["localization_auto_images"](records)

    docs = documents_from(ROOT, "comparison", "val")
    constant = _records("comparison", dict.fromkeys(docs["test_id"], 0.0))
    # Inputs o3, o7, o4 with the tie-break noise alone: 0.75, -0.4, -1/6 (see test_sherlock_metrics).
    assert hooks.AGGREGATIONS["comparison_acc"](constant) == pytest.approx(100 * (0.75 - 0.4 - 1 / 6) / 3)
    mean_rating = _records("comparison", {d["test_id"]: (d["annot1"] + d["annot2"]) / 2 for d in docs})
    assert hooks.AGGREGATIONS["comparison_acc"](mean_rating) == hooks.AGGREGATIONS["comparison_oracle_acc"](constant)
    assert hooks.AGGREGATIONS["comparison_inputs_scored"](constant[:10]) == 2
    assert hooks.AGGREGATIONS["comparison_inputs_incomplete"](constant[:10]) == 1
    assert np.isfinite(hooks.AGGREGATIONS["comparison_human_acc"](constant))


def _loglikelihood_requests(task: str, docs) -> list[Instance]:
    return [
        Instance(
            request_type="loglikelihood",
            arguments=("ctx", doc["inference"], hooks.doc_to_visual, doc_id, task, "test"),
            idx=0,
            metadata={"task": task, "doc_id": doc_id, "repeats": 1},
        )
        for doc_id, doc in enumerate(docs)
    ]


def test_baselines_answer_loglikelihood_requests():
    docs = documents_from(ROOT, "comparison", "val")
    random_model, pixel_model = RandomBaseline(seed=3), DumbPixel()
    for model in (random_model, pixel_model):
        model.task_dict = {"sherlock_comparison": {"test": docs}}
    random_losses = random_model.loglikelihood(_loglikelihood_requests("sherlock_comparison", docs))
    assert random_losses == [(random.Random(f"3:sherlock_comparison:{doc_id}").random(), False) for doc_id in range(len(docs))]
    pixel_losses = pixel_model.loglikelihood(_loglikelihood_requests("sherlock_comparison", docs))
    expected = [-np.asarray(images.draw_regions(d["image_path"], tuple(map(tuple, d["boxes"]))).convert("L"), dtype=float).mean() / 255 for d in docs]
    assert [loss for loss, _ in pixel_losses] == pytest.approx(expected)
    assert all(isinstance(loss, float) and greedy is False for loss, greedy in pixel_losses)


def _write_samples(run_dir: Path, task: str, records: list[dict]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"doc_id": number, "filtered_resps": "(0.0, False)", "comparison_acc": record}) for number, record in enumerate(records)]
    (run_dir / f"20261122_samples_{task}.jsonl").write_text("\n".join(lines) + "\n")


def test_export_writes_sorted_float32_scores_and_refuses_partial_runs(tmp_path):
    docs = documents_from(ROOT, "comparison", "val")
    scores = {d["test_id"]: 0.5 + index for index, d in enumerate(docs)}
    records = _records("comparison", {**scores, docs[3]["test_id"]: None})
    _write_samples(tmp_path / "run", "sherlock_comparison", records)
    archive = write_submission(tmp_path / "run", tmp_path / "out", split="val")
    assert zipfile.ZipFile(archive).namelist() == ["validation_set_predictions/comparison.npy"]
    array = np.load(tmp_path / "out" / "validation_set_predictions" / "comparison.npy")
    expected = [scores[t] for t in sorted(scores)]
    expected[sorted(scores).index(docs[3]["test_id"])] = 0.5 - 1  # unparsable: below every other score
    assert array.dtype == np.float32 and array.tolist() == expected
    with pytest.raises(DataError, match="no Sherlock test-split samples"):
        write_submission(tmp_path / "run", tmp_path / "out")
    _write_samples(tmp_path / "partial", "sherlock_comparison", records[:5])
    with pytest.raises(DataError, match="5 of the 12 instances of comparison were logged"):
        write_submission(tmp_path / "partial", tmp_path / "out", split="val")


def test_without_abductive_data_the_error_says_where_the_data_comes_from(monkeypatch):
    monkeypatch.delenv("ABDUCTIVE_DATA", raising=False)
    with pytest.raises(DataError, match="val_retrieval.zip.*ABDUCTIVE_DATA=sample"):
        hooks.comparison_docs(None)


def test_export_command_line(tmp_path):
    docs = documents_from(ROOT, "comparison", "val")
    records = _records("comparison", {d["test_id"]: float(index) for index, d in enumerate(docs)})
    _write_samples(tmp_path / "run", "sherlock_comparison", records)
    script = Path(__file__).resolve().parents[2] / "utils" / "export_sherlock_submission.py"
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "run"), "--out", str(tmp_path / "out"), "--split", "val"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "out" / "validation_set_predictions.zip")
    failed = subprocess.run([sys.executable, str(script), str(tmp_path / "run"), "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert failed.returncode == 1 and "no Sherlock test-split samples" in failed.stderr
