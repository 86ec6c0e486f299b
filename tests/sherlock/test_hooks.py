"""Sherlock documents, visuals, prompts, answer reading and the task specs
(process_results + aggregation, no lmms-eval run)."""

from __future__ import annotations

import ast
import json
import pickle
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest
from lmms_eval.api.instance import Instance
from PIL import Image

from abductive_tasks import compat
from abductive_tasks.inputs import images
from abductive_tasks.inputs.documents import HeldRows
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.models.baselines import DumbPixel, RandomBaseline
from abductive_tasks.sherlock import data, hooks, prompts
from abductive_tasks.sherlock.embeddings import (
    EMBEDDING_ROUTE,
    SCORE_MATRIX_ROUTE,
    decode_embeddings,
    encode_embeddings,
)

from helpers.specs import evaluate, records

ROOT = SAMPLE_ROOT / "sherlock"
YAML = Path(compat.tasks_path()) / "sherlock"
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"


def docs_of(task: str, split: str = "val", view: str = "pairs"):
    return hooks.documents_from(data.load(ROOT, task, split, view).items, EMBEDDING_ROUTE if view == "factored" else "")


def loglikelihood(score: float | None) -> str:
    """What lmms-eval hands process_results for a backend's (loss, greedy) pair, for a plausibility ``score``
    (None: unreadable)."""
    return "?" if score is None else str((-score, False))


# ---------------------------------------------------------------- documents, visuals, prompts


def test_factored_retrieval_documents_hold_their_rows_as_arrow_gives_them_and_the_others_stay_plain():
    factored = docs_of("retrieval", view="factored")
    assert isinstance(factored, HeldRows) and len(factored) > 0
    arrow = factored.select(range(len(factored)))  # a derived dataset reads Arrow again
    assert not isinstance(arrow, HeldRows) or not arrow._held()
    assert [factored[i] for i in range(len(factored))] == list(factored) == list(arrow)
    assert factored[0]["score_route"] == EMBEDDING_ROUTE
    assert not isinstance(docs_of("retrieval", view="mini"), HeldRows)
    localization = hooks.documents_from(data.load(ROOT, "localization", "val", "factored").items, SCORE_MATRIX_ROUTE)
    assert not isinstance(localization, HeldRows)  # its rows hold lists over every instance: kept in Arrow


def test_comparison_documents_hold_their_rows_as_arrow_gives_them(monkeypatch):
    """4,850 rows at the paper's size, read several times by lmms-eval: held, so no read converts an Arrow row."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    for docs in (hooks.comparison_docs(None), hooks.comparison_test_docs(None)):
        assert isinstance(docs, HeldRows) and docs._held() and len(docs) > 0
        arrow = list(docs.select(range(len(docs))))  # read from Arrow again
        assert repr([docs[i] for i in range(len(docs))]) == repr(list(docs)) == repr(arrow)  # NaN ratings compare


def test_documents_carry_what_the_baselines_read():
    doc = docs_of("localization")[0]
    assert (doc["answer_kind"], doc["choices"], doc["candidate_images"]) == ("score", [], [doc["image_path"]])
    assert "score_route" not in doc
    embedding = docs_of("retrieval", view="factored")[0]
    assert embedding["score_route"] == EMBEDDING_ROUTE and embedding["candidate_images"] == [embedding["image_path"]]


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
    expected = tuple(
        round(c * (1 - alpha) + f * alpha) for c, f in zip((red, green, blue), (0xFF, 0x05, 0xCD), strict=True)
    )
    assert all(abs(a - b) <= 1 for a, b in zip(drawn.getpixel((15, 15)), expected, strict=True))
    assert drawn.getpixel((60, 50)) == original.getpixel((60, 50))  # outside the box: untouched
    assert images.draw_regions(path, [[4, 4, 30, 24]]) is drawn  # cached, whatever the box container
    doc = next(d for d in docs_of("localization") if d["boxes"] == [[4, 4, 30, 24]])
    assert hooks.doc_to_visual(doc) == [drawn]


def test_prompts_name_the_drawn_region_and_the_inference():
    doc = docs_of("comparison")[0]
    assert hooks.doc_to_text_loglikelihood(doc) == prompts.LOGLIKELIHOOD_CONTEXT
    assert hooks.doc_to_target(doc) == doc["inference"]
    rating = hooks.doc_to_text_rating(doc)
    assert f'Consider this inference about the scene: "{doc["inference"]}"' in rating and rating.endswith(
        'Answer in the form "Score: N".'
    )


# ---------------------------------------------------------------- answer reading


@pytest.mark.parametrize(
    ("result", "score"),
    [
        ("(2.5, False)", -2.5),
        ("(-0.31, True)", 0.31),
        ((1, False), -1.0),
        ("(nan, False)", None),
        ("(inf, False)", None),
        ("(True, False)", None),
        ("('emb1:xx', False)", None),
        ("__import__('os')", None),
        ("Score: 7", None),
    ],
)
def test_loglikelihood_results_are_read_as_losses(result, score):
    assert hooks.Plausibility().read(result) == score


def test_embedding_payloads_are_kept_and_anything_else_is_unreadable():
    payload = encode_embeddings(np.array([0.6, 0.8]), np.array([1.0, 0.0]))
    assert hooks.EmbeddingPayload().read(str((payload, False))) == payload
    image, text = decode_embeddings(payload)
    assert image.tolist() == pytest.approx([0.6, 0.8]) and text.tolist() == [1.0, 0.0]
    for other in ("(-0.25, False)", "('emb1:!!', False)", "('emb1:AAAA', False)", "('emb1:', False)", "Score: 7"):
        assert hooks.EmbeddingPayload().read(other) is None, other
    with pytest.raises(ValueError, match="equal length"):
        encode_embeddings(np.ones(2), np.ones(3))
    # a NaN or infinite value gives no exportable score: not an embedding (counted as unparsable)
    for bad in (np.nan, np.inf):
        not_finite = encode_embeddings(np.array([bad, 0.8]), np.array([1.0, 0.0]))
        assert decode_embeddings(not_finite) is None
        assert hooks.EmbeddingPayload().read(str((not_finite, False))) is None


def test_records_keep_what_the_metrics_and_the_export_read():
    doc = docs_of("comparison")[0]
    (record,) = records(hooks.process_results_comparison, [doc], [loglikelihood(0.5)])
    assert record == {
        **{
            field: doc[field]
            for field in (
                "test_id",
                "sherlock_task",
                "split",
                "chunk",
                "file_size",
                "has_key",
                "group",
                "group_size",
                "position",
                "annot1",
                "annot2",
            )
        },
        "plausibility": 0.5,
        "answer_status": "parsed",
    }
    (rated,) = records(hooks.process_results_comparison_rating, [doc], ["Score: 7"])
    assert rated["plausibility"] == 7.0


# ---------------------------------------------------------------- task specs by hand


def test_retrieval_scores_complete_chunks_and_counts_the_rest():
    docs = docs_of("retrieval")
    truth = ["Score: 10" if d["image_instance"] == d["text_instance"] else "Score: 1" for d in docs]
    values = evaluate(hooks.RETRIEVAL, hooks.process_results_retrieval_rating, docs, truth)
    assert values["retrieval_p_at_1"] == 100.0 and values["retrieval_im2txt_rank"] == 1.0
    assert values["retrieval_per_chunk"][1] == {"im2txt_rank": 1.0, "txt2im_rank": 1.0, "p_at_1": 100.0, "n": 3}
    assert values["retrieval_counts"] == {
        "documents": 25,
        "chunks_scored": 2,
        "chunks_incomplete": 0,
        "unparsable": 0,
        "request_failed": 0,
        "judge_extracted": 0,
    }
    interval = values["retrieval_ci95"]["retrieval_p_at_1"]
    assert interval["units"] == 2 and interval["chance"] == pytest.approx(
        (100 / 4 + 100 / 3) / 2
    )  # the chunk is the unit
    assert values["retrieval_ci95"]["retrieval_im2txt_rank"]["chance"] == pytest.approx((2.5 + 2) / 2)
    cut = evaluate(
        hooks.RETRIEVAL, hooks.process_results_retrieval_rating, docs.select(range(20)), truth[:20]
    )  # --limit: chunk 1 loses 5 of 9
    assert (cut["retrieval_counts"]["chunks_scored"], cut["retrieval_counts"]["chunks_incomplete"]) == (1, 1)
    # An unparsable answer ranks below every other score and is counted.
    broken = evaluate(hooks.RETRIEVAL, hooks.process_results_retrieval_rating, docs, ["no idea", *truth[1:]])
    assert broken["retrieval_counts"]["unparsable"] == 1
    assert broken["retrieval_per_chunk"][0]["p_at_1"] == 75.0


def test_localization_and_comparison_on_the_sample_by_hand():
    docs = docs_of("localization")
    # Score = IoU for proposals, 1 for true gt boxes: the oracle of both settings.
    oracle = [loglikelihood(d["iou"] if d["box_type"] == "auto" else float(d["correct"])) for d in docs]
    values = evaluate(hooks.LOCALIZATION, hooks.process_results_localization, docs, oracle)
    assert values["localization_gt_acc"] == 100.0
    # Per image: 101: o1 and o2 each have an IoU-1 proposal; American Beauty: o5's best is exactly 0.5 (wrong),
    # o6 right; 103: o4 and o9 right, o10 has no overlapping proposal.
    expected = 100 * (1 + 0.5 + 2 / 3) / 3
    assert values["localization_auto_acc"] == pytest.approx(expected)
    assert values["localization_auto_oracle_acc"] == pytest.approx(expected)
    assert values["localization_counts"] == {
        "documents": 40,
        "gt_images": 3,
        "auto_images": 3,
        "images_incomplete": 0,
        "unparsable": 0,
        "request_failed": 0,
        "judge_extracted": 0,
    }
    assert values["localization_ci95"]["localization_gt_acc"]["units"] == 3  # the image is the unit

    docs = docs_of("comparison")
    constant = evaluate(hooks.COMPARISON, hooks.process_results_comparison, docs, [loglikelihood(0.0)] * len(docs))
    # Inputs o3, o7, o4 with the tie-break noise alone: 0.75, -0.4, -1/6 (see test_metrics).
    assert constant["comparison_acc"] == pytest.approx(100 * (0.75 - 0.4 - 1 / 6) / 3)
    mean_rating = evaluate(
        hooks.COMPARISON,
        hooks.process_results_comparison,
        docs,
        [loglikelihood((d["annot1"] + d["annot2"]) / 2) for d in docs],
    )
    assert mean_rating["comparison_acc"] == constant["comparison_oracle_acc"]
    assert (
        constant["comparison_ci95"]["comparison_acc"]["units"] == 3
        and constant["comparison_ci95"]["comparison_acc"]["chance"] == 0.0
    )
    cut = evaluate(
        hooks.COMPARISON, hooks.process_results_comparison, docs.select(range(10)), [loglikelihood(0.0)] * 10
    )
    assert (cut["comparison_counts"]["inputs_scored"], cut["comparison_counts"]["inputs_incomplete"]) == (2, 1)
    assert np.isfinite(constant["comparison_human_acc"])


def test_test_split_documents_are_counted_not_scored():
    docs = docs_of("localization", "test")
    values = evaluate(hooks.LOCALIZATION, hooks.process_results_localization, docs, [loglikelihood(0.1)] * len(docs))
    assert values["localization_gt_acc"] is None and values["localization_auto_acc"] is None
    assert values["localization_counts"]["documents"] == 3 and values["localization_counts"]["gt_images"] == 0
    assert values["localization_ci95"]["localization_gt_acc"] == {
        "lower": None,
        "upper": None,
        "stderr": None,
        "units": 0,
        "resamples": 0,
    }


FAMILIES = [
    (hooks.RETRIEVAL, hooks.process_results_retrieval_rating, "retrieval", "pairs"),
    (hooks.RETRIEVAL_MINI, hooks.process_results_mini_rating, "retrieval", "mini"),
    (hooks.LOCALIZATION, hooks.process_results_localization_rating, "localization", "pairs"),
    (hooks.COMPARISON, hooks.process_results_comparison_rating, "comparison", "pairs"),
    (hooks.RETRIEVAL_EMBEDDING, hooks.process_results_embedding, "retrieval", "factored"),
]


@pytest.mark.parametrize(
    ("spec", "process_results", "task", "view"), FAMILIES, ids=[family[0].name for family in FAMILIES]
)
@pytest.mark.parametrize("reply", [FAILED, "", None])
def test_a_failed_request_is_never_an_answer(spec, process_results, task, view, reply):
    """Counted as request_failed, not unparsable, and scored like an unreadable answer: below every other score."""
    docs = docs_of(task, view=view)
    failed = evaluate(spec, process_results, docs, [reply] * len(docs))
    unreadable = evaluate(spec, process_results, docs, ["no idea"] * len(docs))
    assert failed[spec.counts_metric] == {
        **unreadable[spec.counts_metric],
        "unparsable": 0,
        "request_failed": len(docs),
    }
    for metric in spec.metrics:
        assert failed[metric.name] == unreadable[metric.name], metric.name


def test_an_unreadable_loglikelihood_is_counted_and_scored_below_every_score_of_its_file():
    docs = docs_of("comparison")
    scores = [float(index % 5) for index in range(len(docs))]
    replies = [loglikelihood(score) for score in scores]
    replies[2] = "(nan, False)"
    values = evaluate(hooks.COMPARISON, hooks.process_results_comparison, docs, replies)
    lowest = evaluate(
        hooks.COMPARISON, hooks.process_results_comparison, docs, [*replies[:2], loglikelihood(-1.0), *replies[3:]]
    )
    assert values["comparison_counts"]["unparsable"] == 1 and lowest["comparison_counts"]["unparsable"] == 0
    # the missing score is the file's lowest score minus 1 (0 - 1), as the export writes it
    assert values["comparison_acc"] == lowest["comparison_acc"]


def test_every_request_failed_scores_as_one_constant_answer():
    """Every score of a file missing makes them all equal (0), so the official algorithms see a constant
    model: retrieval ranks (n + 1) / 2 and P@1 0 (chunks of 4 and 3), no GT box right (the solver's tie order,
    3 images of 2+ boxes), the first proposal of every auto inference and the official noise ordering the comparison
    ties by candidate position, the constant model's values derived in this file and in test_metrics.py
    (test_official_equality.py checks the official algorithm on the export gives the same). Still counted."""
    for task, spec, process_results, expected in (
        ("retrieval", hooks.RETRIEVAL, hooks.process_results_retrieval_rating,
         {"retrieval_p_at_1": 0.0, "retrieval_im2txt_rank": (2.5 + 2.0) / 2}),
        ("localization", hooks.LOCALIZATION, hooks.process_results_localization_rating,
         {"localization_gt_acc": 0.0, "localization_auto_acc": 100 * (0.5 + 0 + 1 / 3) / 3}),
        ("comparison", hooks.COMPARISON, hooks.process_results_comparison_rating,
         {"comparison_acc": 100 * (0.75 - 0.4 - 1 / 6) / 3}),
    ):  # fmt: skip
        docs = docs_of(task)
        values = evaluate(spec, process_results, docs, [FAILED] * len(docs))
        assert values[f"{task}_counts"]["request_failed"] == len(docs)
        assert {name: values[name] for name in expected} == pytest.approx(expected)


# ---------------------------------------------------------------- task YAML and specs agree beyond test_task_yaml.py


@pytest.mark.parametrize("path", sorted(YAML.glob("sherlock_*.yaml")), ids=lambda path: path.stem)
def test_every_task_builds_documents_its_process_results_reads(path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    config = compat.task_config(path)
    if "group" in config:
        return
    spec = config["process_results"].spec
    # versions agree with the README changelogs in tests/test_snapshots.py
    mode = getattr(config["doc_to_visual"], "input_mode", "region")
    doc = config["process_docs"](None)[0]
    reply = "Score: 5" if config["output_type"] == "generate_until" else "(0.5, False)"
    assert set(config["process_results"](doc, [reply])) == set(spec.metric_names)
    width, height = images.load_image(doc["image_path"]).size
    side = {"crop": min(width, height), "pad": max(width, height)}.get(mode)
    assert config["doc_to_visual"](doc)[0].size == ((side, side) if side else (width, height))


def test_model_backends_import_the_payload_codec_without_the_task_hooks():
    models = Path(__file__).resolve().parents[2] / "abductive_tasks" / "models"
    imported = {
        node.module
        for path in models.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("abductive_tasks.sherlock")
    }
    assert imported == {"abductive_tasks.sherlock.embeddings"}
    code = (
        "import sys, abductive_tasks.sherlock.embeddings\nprint(sorted(m for m in sys.modules if "
        "m.startswith('abductive_tasks.')))"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    # exports (the lazy hook table, no imports of its own) is all the package __init__ loads
    assert completed.stdout.split() == [
        "['abductive_tasks.exports',",
        "'abductive_tasks.sherlock',",
        "'abductive_tasks.sherlock.embeddings']",
    ], completed.stderr[-2000:]


# ---------------------------------------------------------------- baselines answer every route


def _requests(task: str, docs) -> list[Instance]:
    return [
        Instance(
            request_type="loglikelihood",
            arguments=("ctx", doc["inference"], hooks.doc_to_visual, doc_id, task, "test"),
            idx=0,
            metadata={"task": task, "doc_id": doc_id, "repeats": 1},
        )
        for doc_id, doc in enumerate(docs)
    ]


def _drawn_luminance(doc: dict) -> float:
    return (
        np.asarray(
            images.draw_regions(doc["image_path"], tuple(map(tuple, doc["boxes"]))).convert("L"), dtype=float
        ).mean()
        / 255
    )


def test_baselines_answer_loglikelihood_requests():
    docs = docs_of("comparison")
    random_model, pixel_model = RandomBaseline(seed=3), DumbPixel()
    for model in (random_model, pixel_model):
        model.task_dict = {"sherlock_comparison": {"test": docs}}
    random_losses = random_model.loglikelihood(_requests("sherlock_comparison", docs))
    assert random_losses == [
        (random.Random(f"3:sherlock_comparison:{doc_id}").random(), False) for doc_id in range(len(docs))
    ]
    pixel_losses = pixel_model.loglikelihood(_requests("sherlock_comparison", docs))
    assert [loss for loss, _ in pixel_losses] == pytest.approx([-_drawn_luminance(d) for d in docs])
    assert all(isinstance(loss, float) and greedy is False for loss, greedy in pixel_losses)


def test_baselines_answer_the_factored_retrieval_with_embeddings():
    docs = docs_of("retrieval", view="factored")
    pixel, randomly, other_seed = DumbPixel(), RandomBaseline(seed=0), RandomBaseline(seed=1)
    answers = {}
    for name, model in (("pixel", pixel), ("random", randomly), ("other", other_seed)):
        model.task_dict = {"sherlock_retrieval": {"test": docs}}
        answers[name] = [
            decode_embeddings(payload) for payload, _ in model.loglikelihood(_requests("sherlock_retrieval", docs))
        ]
    # dumb_pixel: the region-drawn image's mean luminance against a constant text, i.e. its loglikelihood-route score.
    for doc, (image, text) in zip(docs, answers["pixel"], strict=True):
        assert image.tolist() == pytest.approx([_drawn_luminance(doc)], abs=1e-6) and text.tolist() == [1.0]
    # random_baseline: unit vectors keyed by content (documents 0 and 3 of chunk 0 show the same inference), seeded.
    image, text = answers["random"][0]
    assert image.shape == text.shape == (16,) and float(np.linalg.norm(image)) == pytest.approx(1, abs=1e-6)
    assert docs[0]["inference"] == docs[3]["inference"] and np.array_equal(
        answers["random"][0][1], answers["random"][3][1]
    )
    assert not np.array_equal(answers["random"][0][0], answers["random"][1][0])
    assert not np.array_equal(answers["random"][0][0], answers["other"][0][0])
    replies = [str((encode_embeddings(image, text), False)) for image, text in answers["pixel"]]
    values = evaluate(hooks.RETRIEVAL_EMBEDDING, hooks.process_results_embedding, docs, replies)
    assert values["retrieval_counts"]["unparsable"] == 0 and values["retrieval_counts"]["chunks_scored"] == 2
    # The score depends on the image-region only: every inference ties within a row, (n + 1) / 2 per chunk.
    assert values["retrieval_im2txt_rank"] == pytest.approx((2.5 + 2) / 2) and values["retrieval_p_at_1"] == 0.0


def test_a_record_is_logged_once_without_nan_and_every_metric_still_aggregates_it(tmp_path):
    """A samples line holds the record under the family's first metric only (the others name it) and no NaN (a gt
    box's IoU is null): orjson reads it, the samples reader and every aggregation, after a gather's pickling too,
    see the record."""
    from abductive_tasks.reports.samples import read_samples
    from abductive_tasks.scoring.taskspec import clear_cache

    spec, docs = hooks.LOCALIZATION, docs_of("localization")
    values = [hooks.process_results_localization(doc, [loglikelihood(0.1 * n)]) for n, doc in enumerate(docs)]
    lines = [json.dumps(value) for value in values]  # as lmms-eval writes them
    first, *others = spec.metric_names
    assert all(line.count('"answer_status"') == 1 and "NaN" not in line for line in lines)
    assert [orjson.loads(lines[0])[name] for name in others] == [[name, first] for name in others]
    path = tmp_path / "20261127_samples_sherlock_localization_pairs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    logged = read_samples(path, spec).records
    assert logged == [value[first][1] for value in values] and logged[0]["iou"] is None
    clear_cache()
    expected = spec.evaluate(logged)
    clear_cache()
    gathered = pickle.loads(pickle.dumps(values))
    assert {name: spec.aggregate([value[name] for value in gathered]) for name in spec.metric_names} == {
        name: expected[name] for name in spec.metric_names
    }
