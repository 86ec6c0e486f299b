"""The factored localization route (``sherlock_localization``): one document per image, a score matrix per answer,
and the same numbers and export as the per-pair route (``sherlock_localization_pairs``) on the same scores."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from lmms_eval.api.instance import Instance

from abductive_tasks.inputs import images
from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError
from abductive_tasks.models.baselines import DumbPixel, RandomBaseline
from abductive_tasks.sherlock import data, export, hooks
from abductive_tasks.sherlock.embeddings import SCORE_MATRIX_ROUTE, decode_score_matrix, encode_score_matrix

from helpers.sherlock_official import official_scores
from helpers.specs import evaluate

ROOT = SAMPLE_ROOT / "sherlock"
CONSTANT_AUTO = 100 * (0.5 + 0 + 1 / 3) / 3  # the first proposal per inference (test_hooks.py)
ORACLE_AUTO = 100 * (1 + 0.5 + 2 / 3) / 3  # some proposal has IoU > 0.5 (test_e2e.py)
Score = Callable[[str, list, str], float]  # (image path, region boxes, inference) -> plausibility


def pair_docs(split: str = "val"):
    return hooks.documents_from(data.load(ROOT, "localization", split).items)


def matrix_docs(split: str = "val"):
    return hooks.documents_from(data.load(ROOT, "localization", split, "factored").items, SCORE_MATRIX_ROUTE)


def pair_replies(docs, score: Score) -> list[str]:
    """What lmms-eval hands process_results for a backend's loss: minus the plausibility."""
    return [str((-score(d["image_path"], d["boxes"], d["inference"]), False)) for d in docs]


def matrix_replies(docs, score: Score) -> list[str]:
    matrices = [[[score(d["image_path"], r, i) for i in d["inferences"]] for r in d["regions"]] for d in docs]
    return [str((encode_score_matrix(np.array(matrix)), False)) for matrix in matrices]


def both_routes(score: Score, unscored: set[str] = frozenset()) -> tuple[dict, dict]:
    """Every printed value of the per-pair and of the factored route on the same scores; the images in
    ``unscored`` get no matrix (factored) and an unreadable result for each of their instances (per pair)."""
    pairs, matrices = pair_docs(), matrix_docs()
    replies = [
        "?" if d["image_path"] in unscored else reply
        for d, reply in zip(pairs, pair_replies(pairs, score), strict=True)
    ]
    per_pair = evaluate(hooks.LOCALIZATION, hooks.process_results_localization, pairs, replies)
    replies = [
        "(0.5, False)" if d["image_path"] in unscored else reply
        for d, reply in zip(matrices, matrix_replies(matrices, score), strict=True)
    ]
    factored = evaluate(hooks.LOCALIZATION_MATRIX, hooks.process_results_localization_matrix, matrices, replies)
    return per_pair, factored


def _iou(a: list, b: list) -> float:
    width = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    height = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return width * height / (a[2] * a[3] + b[2] * b[3] - width * height)


def _true_boxes() -> dict[tuple[str, str], list]:
    """(image, inference) -> its correct gt box (every gt region of the sample is one box)."""
    return {(d["image_path"], d["inference"]): d["boxes"][0] for d in pair_docs() if d["correct"]}


# ---------------------------------------------------------------- documents


def test_one_document_per_image_lists_every_instance_once_with_its_region_inference_and_answer():
    pairs = {d["test_id"]: (position, d) for position, d in enumerate(pair_docs())}
    docs = matrix_docs()
    assert len(docs) == 3 and sum(len(d["test_ids"]) for d in docs) == len(pairs) == 40
    assert [len(d["regions"]) for d in docs] == [4, 4, 4]  # gt boxes and proposals, each distinct region once
    assert [len(d["inferences"]) for d in docs] == [2, 2, 3]
    seen = []
    for doc in docs:
        assert doc["score_route"] == SCORE_MATRIX_ROUTE and len(doc["region_keys"]) == len(doc["regions"])
        for k, test_id in enumerate(doc["test_ids"]):
            position, pair = pairs[test_id]
            assert doc["positions"][k] == position and doc["image_path"] == pair["image_path"]
            assert doc["regions"][doc["rows"][k]] == pair["boxes"]
            assert doc["region_keys"][doc["rows"][k]] == pair["region_key"]
            assert doc["inferences"][doc["cols"][k]] == pair["inference"]
            for field in ("box_type", "inst_id", "bbox_idx", "correct", "key_order", "group", "group_size"):
                assert doc[field][k] == pair[field], field
            assert doc["iou"][k] == pytest.approx(pair["iou"], nan_ok=True)
            seen.append(test_id)
    assert sorted(seen) == sorted(pairs)
    # Each region is drawn like the per-pair document showing it.
    drawn = hooks.doc_to_visual_regions(docs[0])
    assert drawn[1] is images.draw_regions(docs[0]["image_path"], tuple(map(tuple, docs[0]["regions"][1])))
    assert hooks.doc_to_target_inferences(docs[2]).split("\n") == docs[2]["inferences"]


def test_the_factored_view_exists_for_retrieval_and_localization_only():
    with pytest.raises(DataError, match="the factored view does not exist for comparison"):
        data.load(ROOT, "comparison", "val", "factored")
    test = matrix_docs("test")
    assert (len(test), test[0]["has_key"], test[0]["group"]) == (1, False, ["", "", ""])


# ---------------------------------------------------------------- the same numbers as the per-pair route


def test_scored_by_iou_with_the_true_box_every_gt_box_is_found_and_auto_reaches_the_oracle():
    """By hand: a score equal to the region's IoU with the inference's true box puts the true box first (IoU 1,
    the other gt boxes of the sample do not overlap it fully), so the assignment is the diagonal (100%), and the
    best proposal is the one with the highest IoU, correct exactly when some proposal is (the oracle, 72.2%)."""
    true = _true_boxes()
    per_pair, factored = both_routes(lambda image, region, inference: _iou(region[0], true[(image, inference)]))
    assert factored["localization_gt_acc"] == 100.0
    assert factored["localization_auto_acc"] == pytest.approx(ORACLE_AUTO)
    assert factored["localization_auto_oracle_acc"] == pytest.approx(ORACLE_AUTO)
    assert factored["localization_counts"] | {"documents": 40} == per_pair["localization_counts"] | {
        "instances": 40,
        "instances_unscored": 0,
    }
    assert factored["localization_counts"]["documents"] == 3
    assert {k: v for k, v in factored.items() if k != "localization_counts"} == {
        k: v for k, v in per_pair.items() if k != "localization_counts"
    }


@pytest.mark.parametrize("seed", range(4))
def test_both_routes_print_the_same_on_tied_scores_and_unscored_images(seed):
    """Integer scores (many ties: the lapjv order and the first-proposal rule decide) and, from seed 2 on, one or two
    images without a score matrix: their instances get the file's missing score in both routes."""
    rng = np.random.default_rng(seed)
    table: dict[tuple, float] = {}

    def score(image: str, region: list, inference: str) -> float:
        return table.setdefault((image, json.dumps(region), inference), float(rng.integers(0, 3)))

    unscored = set(matrix_docs()["image_path"][: max(0, seed - 1)])
    per_pair, factored = both_routes(score, unscored)
    for name in ("localization_gt_acc", "localization_auto_acc", "localization_auto_oracle_acc", "localization_ci95"):
        assert factored[name] == per_pair[name], name
    instances = sum(len(d["test_ids"]) for d in matrix_docs() if d["image_path"] in unscored)
    assert factored["localization_counts"]["instances_unscored"] == instances
    assert factored["localization_counts"]["unparsable"] == len(unscored)
    assert per_pair["localization_counts"]["unparsable"] == instances


@pytest.mark.parametrize(
    "reply",
    ["(0.5, False)", "?", f"('{encode_score_matrix(np.ones((2, 2)))}', False)", "('scm1:4x2:AAAA', False)"],
    ids=["a loss", "unreadable", "another shape", "truncated"],
)
def test_a_result_that_is_not_the_documents_score_matrix_is_unparsable(reply):
    docs = matrix_docs()
    values = evaluate(hooks.LOCALIZATION_MATRIX, hooks.process_results_localization_matrix, docs, [reply] * 3)
    assert values["localization_counts"]["unparsable"] == 3
    assert values["localization_counts"]["instances_unscored"] == 40
    # Every score missing: one constant file, scored as a constant model (the official solver gets no box right).
    assert values["localization_gt_acc"] == 0.0
    assert values["localization_auto_acc"] == pytest.approx(CONSTANT_AUTO)


def test_the_score_matrix_payload_round_trips_float32_and_refuses_non_finite_values():
    matrix = np.array([[0.25, -1.5, 3e7], [1 / 3, 0.0, -0.0]])
    payload = encode_score_matrix(matrix)
    assert payload.startswith("scm1:2x3:")
    np.testing.assert_array_equal(decode_score_matrix(payload, (2, 3)), matrix.astype(np.float32))
    assert decode_score_matrix(payload, (3, 2)) is None and decode_score_matrix(payload) is not None
    assert decode_score_matrix(encode_score_matrix(np.array([[np.nan]])), (1, 1)) is None
    assert decode_score_matrix("emb1:AAAA", (1, 1)) is None and decode_score_matrix(0.5) is None
    with pytest.raises(ValueError, match="non-empty 2-D"):
        encode_score_matrix(np.ones(3))


# ---------------------------------------------------------------- the export


def _write_samples(run_dir: Path, task: str, process_results, docs, replies) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(process_results(doc, [reply])) for doc, reply in zip(docs, replies, strict=True)]
    (run_dir / f"20261125_samples_{task}.jsonl").write_text("\n".join(lines) + "\n")


def test_the_export_writes_what_the_per_pair_route_writes_and_what_the_official_algorithm_reads(tmp_path):
    rng = np.random.default_rng(5)
    table: dict[tuple, float] = {}

    def score(image: str, region: list, inference: str) -> float:
        return table.setdefault((image, json.dumps(region), inference), float(rng.normal()))

    pairs, matrices = pair_docs(), matrix_docs()
    unscored = matrices[1]["image_path"]
    pair_answers = [
        "?" if d["image_path"] == unscored else r for d, r in zip(pairs, pair_replies(pairs, score), strict=True)
    ]
    matrix_answers = matrix_replies(matrices, score)
    matrix_answers[1] = "?"
    _write_samples(
        tmp_path / "pairs", "sherlock_localization_pairs", hooks.process_results_localization, pairs, pair_answers
    )
    _write_samples(
        tmp_path / "matrix",
        "sherlock_localization",
        hooks.process_results_localization_matrix,
        matrices,
        matrix_answers,
    )
    written = {}
    for run in ("pairs", "matrix"):
        archive = export.write_submission(tmp_path / run, tmp_path / f"out_{run}", split="val")
        assert zipfile.ZipFile(archive).namelist() == ["validation_set_predictions/localization.npy"]
        written[run] = np.load(tmp_path / f"out_{run}" / "validation_set_predictions" / "localization.npy")
    assert written["matrix"].dtype == np.float32
    np.testing.assert_array_equal(written["matrix"], written["pairs"])
    printed = evaluate(hooks.LOCALIZATION_MATRIX, hooks.process_results_localization_matrix, matrices, matrix_answers)
    for metric, value in official_scores("localization", {"localization": written["matrix"]})["localization"].items():
        assert printed[metric] == pytest.approx(value, rel=1e-12, abs=1e-12), metric
    # A run cut by --limit cannot be submitted.
    _write_samples(
        tmp_path / "partial",
        "sherlock_localization",
        hooks.process_results_localization_matrix,
        matrices.select(range(2)),
        matrix_answers[:2],
    )
    with pytest.raises(DataError, match="22 of the 40 instances of localization were logged"):
        export.write_submission(tmp_path / "partial", tmp_path / "out", split="val")


# ---------------------------------------------------------------- the baselines answer the route


def _answers(model, docs, visual: Callable, target: Callable) -> list:
    """The model's loglikelihood answers to one request per document."""
    model.task_dict = {"sherlock_localization": {"test": docs}}
    metadata = {"task": "sherlock_localization", "doc_id": 0, "repeats": 1}
    requests = [
        Instance("loglikelihood", ("ctx", target(d), visual, n, "sherlock_localization", "test"), 0, metadata)
        for n, d in enumerate(docs)
    ]
    return [value for value, _greedy in model.loglikelihood(requests)]


def test_baselines_answer_score_matrices_with_their_per_pair_scores():
    docs, pairs = matrix_docs(), pair_docs()
    pixel, randomly = DumbPixel(), RandomBaseline(seed=0)
    matrices = _answers(pixel, docs, hooks.doc_to_visual_regions, hooks.doc_to_target_inferences)
    # dumb_pixel: each region-drawn image's luminance, the very float32 score of its per-pair route.
    losses = _answers(pixel, pairs, hooks.doc_to_visual, hooks.doc_to_target)
    per_pair = {d["test_id"]: -loss for d, loss in zip(pairs, losses, strict=True)}
    for doc, payload in zip(docs, matrices, strict=True):
        matrix = decode_score_matrix(payload, (len(doc["regions"]), len(doc["inferences"])))
        expected = np.array([per_pair[test_id] for test_id in doc["test_ids"]], dtype=np.float32)
        np.testing.assert_array_equal(matrix[doc["rows"], doc["cols"]], expected)
    # random_baseline: seeded unit vectors per region and per inference, the vectors of its retrieval route.
    first = decode_score_matrix(
        _answers(randomly, docs, hooks.doc_to_visual_regions, hooks.doc_to_target_inferences)[0]
    )
    assert first.shape == (4, 2) and np.all(np.abs(first) <= 1) and len(np.unique(first)) == 8
    region, text = randomly.embeddings(
        {"region_key": docs[0]["region_keys"][1], "inference": docs[0]["inferences"][0]}, None
    )
    assert first[1, 0] == pytest.approx(float(region @ text), abs=1e-6)
