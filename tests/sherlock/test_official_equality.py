"""The official scoring algorithm on a run's exported submission gives exactly what the run printed,
whatever share of scores is missing (unreadable results, failed requests).

The official algorithms are re-implemented from their published description in ``helpers/sherlock_official.py``.
Where ``ABDUCTIVE_TEST_SHERLOCK_SCORERS`` names a local copy of allenai/sherlock (a clone: the scorers are its
``leaderboard_eval/score_*.py``), the last test runs them on the same files (skipped otherwise).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.sherlock import data, export, hooks
from abductive_tasks.sherlock.embeddings import SCORE_MATRIX_ROUTE, encode_score_matrix

from helpers.sherlock_official import answer_keys, instance_ids, official_scores
from helpers.specs import evaluate, records

ROOT = SAMPLE_ROOT / "sherlock"
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"
SCORERS_ENV = "ABDUCTIVE_TEST_SHERLOCK_SCORERS"  # a clone of allenai/sherlock (README, Test)
SHARES = (0.0, 0.1, 1.0)
FAMILIES = {  # task -> (spec, process_results of the rating route, process_results of the loglikelihood route)
    "retrieval": (hooks.RETRIEVAL, hooks.process_results_retrieval_rating, None),
    "localization": (hooks.LOCALIZATION, hooks.process_results_localization_rating, hooks.process_results_localization),
    "comparison": (hooks.COMPARISON, hooks.process_results_comparison_rating, hooks.process_results_comparison),
}


# ---------------------------------------------------------------- a run with missing scores, printed and exported


def _replies(docs, route: str, share: float, seed: int, scale: float) -> list[str]:
    """Ratings 1-10 (many ties) or loglikelihood scores (``scale``: 3e7 puts scores beyond float32's unit
    spacing); ``share`` of them missing, unreadable or failed at random."""
    rng = np.random.default_rng(seed)
    if route == "rating":
        replies = [f"Score: {rating}" for rating in rng.integers(1, 11, len(docs))]
        missing = ["no idea", FAILED]
    else:
        replies = [str((-float(score), False)) for score in rng.normal(0, 1, len(docs)) * scale]
        missing = ["(nan, False)", "?"]
    for index in rng.choice(len(docs), size=round(share * len(docs)), replace=False):
        replies[index] = missing[int(rng.integers(2))]
    return replies


def _run(task: str, route: str, share: float, seed: int, scale: float = 1.0):
    """The printed values and the exported arrays (``{file: float32 array}``) of one simulated run."""
    spec, rating, loglikelihood = FAMILIES[task]
    process_results = rating if route == "rating" else loglikelihood
    docs = hooks.documents_from(data.load(ROOT, task, "val").items)
    replies = _replies(docs, route, share, seed, scale)
    printed = evaluate(spec, process_results, docs, replies)
    logged = records(process_results, docs, replies)
    assert sum(r["plausibility"] is None for r in logged) == round(share * len(docs))
    return printed, export.submission_arrays({spec.name: logged}, allow_failed=True)


def _run_factored_localization(share: float, seed: int):
    """As :func:`_run` for the factored ``sherlock_localization``: a random score matrix per image, ``share`` of
    the images answering something else (their instances get the missing score)."""
    docs = hooks.documents_from(data.load(ROOT, "localization", "val", "factored").items, SCORE_MATRIX_ROUTE)
    rng = np.random.default_rng(seed)
    replies = [
        str((encode_score_matrix(rng.normal(size=(len(d["region_keys"]), len(d["inferences"])))), False)) for d in docs
    ]
    for index in rng.choice(len(docs), size=round(share * len(docs)), replace=False):
        replies[index] = ["?", "(0.5, False)"][int(rng.integers(2))]
    spec, process_results = hooks.LOCALIZATION_MATRIX, hooks.process_results_localization_matrix
    printed = evaluate(spec, process_results, docs, replies)
    return printed, export.submission_arrays({spec.name: records(process_results, docs, replies)})


@pytest.mark.parametrize("share", (0.0, 0.34, 1.0))
def test_official_algorithm_on_the_factored_localization_export_equals_the_printed_metrics(share):
    for seed in range(4):
        printed, arrays = _run_factored_localization(share, seed)
        for metric, value in official_scores("localization", arrays)["localization"].items():
            assert printed[metric] == pytest.approx(value, rel=1e-12, abs=1e-12), (metric, seed)


CASES = [
    (task, route, scale)
    for task in FAMILIES
    for route, scale in (("rating", 1.0), ("loglikelihood", 1.0), ("loglikelihood", 3e7))
    if FAMILIES[task][2 if route == "loglikelihood" else 1] is not None
]


@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize(("task", "route", "scale"), CASES)
def test_official_algorithm_on_the_export_equals_the_printed_metrics(task, route, scale, share):
    for seed in range(4):
        printed, arrays = _run(task, route, share, seed, scale)
        official = official_scores(task, arrays)
        if task == "retrieval":
            per_chunk = printed["retrieval_per_chunk"]
            for name, values in official.items():
                chunk = per_chunk[int(name.removeprefix("retrieval_"))]
                assert {metric: chunk[metric] for metric in values} == pytest.approx(values, rel=1e-12, abs=1e-12)
            for metric in ("p_at_1", "im2txt_rank", "txt2im_rank"):  # the leaderboard's mean over chunks
                mean = np.mean([values[metric] for values in official.values()])
                assert printed[f"retrieval_{metric}"] == pytest.approx(mean, rel=1e-12, abs=1e-12)
        else:
            for metric, value in official[task].items():
                assert printed[metric] == pytest.approx(value, rel=1e-12, abs=1e-12), (metric, seed)


def test_every_score_missing_prints_what_a_constant_answer_scores():
    """100% missing: every score of a file becomes the same value, so the run scores as a model answering one
    constant rating would (here: every rating 5), on the official algorithm too; the failures are still counted."""
    for task, (spec, rating, _) in FAMILIES.items():
        docs = hooks.documents_from(data.load(ROOT, task, "val").items)
        failed = evaluate(spec, rating, docs, [FAILED] * len(docs))
        constant = evaluate(spec, rating, docs, ["Score: 5"] * len(docs))
        assert failed[spec.counts_metric]["request_failed"] == len(docs)
        for metric in spec.metrics:
            assert failed[metric.name] == constant[metric.name], (task, metric.name)


def _official_scripts() -> Path:
    """The folder of the official scorers in the clone ``SCORERS_ENV`` names; one clear failure if it has none."""
    folder = Path(os.environ[SCORERS_ENV]) / "leaderboard_eval"
    missing = [task for task in FAMILIES if not (folder / f"score_{task}.py").is_file()]
    assert not missing, f"{SCORERS_ENV}: no leaderboard_eval/score_{{{','.join(missing)}}}.py under {folder.parent}"
    return folder


@pytest.mark.skipif(not os.environ.get(SCORERS_ENV), reason=f"{SCORERS_ENV} names no clone of allenai/sherlock")
@pytest.mark.parametrize("share", SHARES)
def test_the_official_scorers_on_the_export_print_what_the_run_printed(tmp_path, share):
    scripts = _official_scripts()
    patterns = {
        "retrieval": {"im2txt_rank": (r"im2txt: (\S+)", 3), "p_at_1": (r"p_at_1: (\S+)", 3)},
        "localization": {
            "localization_gt_acc": (r"acc gt bbox = (\S+)", 4),
            "localization_auto_acc": (r"acc auto bbox = (\S+)", 4),
        },
        "comparison": {"comparison_acc": (r"Model corr: (\S+)", 2)},
    }
    runs = [(task, _run(task, "rating", share, seed=7)) for task in FAMILIES]
    runs.append(("localization", _run_factored_localization(share, seed=7)))  # the factored route
    for task, (printed, arrays) in runs:
        for name, key in answer_keys(task).items():
            np.save(tmp_path / f"{name}.npy", arrays[name])
            (tmp_path / f"{name}_ids.json").write_text(json.dumps(instance_ids(task, key)))
            (tmp_path / f"{name}_key.json").write_text(json.dumps(key))
            output = subprocess.run(
                [
                    sys.executable,
                    str(scripts / f"score_{task}.py"),
                    str(tmp_path / f"{name}.npy"),
                    str(tmp_path / f"{name}_key.json"),
                    "--instance_ids",
                    str(tmp_path / f"{name}_ids.json"),
                ],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            ours = printed["retrieval_per_chunk"][int(name.split("_")[1])] if task == "retrieval" else printed
            for metric, (pattern, decimals) in patterns[task].items():
                assert re.search(pattern, output).group(1) == f"{ours[metric]:.{decimals}f}", (name, metric, output)
