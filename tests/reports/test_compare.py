"""Paired comparisons from task records: a planted difference is found, a null one is not, ties with the best."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from abductive_tasks.nleye.hooks import TRIPLET_TEXT
from abductive_tasks.reports.compare import CompareError, estimate_from_run, paired, ties_with_best
from abductive_tasks.scoring.stats import Estimate

ITEMS = [f"item{index:03d}" for index in range(350)]  # NL-Eye's size


def triplet_records(consistent: np.ndarray) -> list[dict]:
    """NL-Eye triplet records: an item flagged consistent is right in both orders, the others only in the first."""
    category = {"reasoning_category": "physical", "time_direction": "forward", "time_duration": "short-term"}
    return [
        {
            "item_id": item,
            "gold_position": position,
            "prediction": 1,
            "correct": bool(ok or position == 1),
            **category,
            "answer_status": "parsed",
        }
        for item, ok in zip(ITEMS, consistent, strict=True)
        for position in (1, 2)
    ]


def consistency(consistent: np.ndarray) -> Estimate:
    return TRIPLET_TEXT.compute(triplet_records(consistent)).estimates["consistency_acc"]


@pytest.fixture(scope="module")
def models() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    base = rng.random(350) < 0.4
    better = base.copy()
    better[np.flatnonzero(~base)[:28]] = True  # 28 more items right: +8 points on the same items
    return {"base": base, "better": better, "other": rng.random(350) < 0.4}


def test_a_planted_difference_is_detected(models):
    gap = paired(
        "nleye_triplet_text",
        "consistency_acc",
        ("better", consistency(models["better"])),
        ("base", consistency(models["base"])),
    )
    assert gap.result.difference == pytest.approx(28 / 350)
    assert gap.result.lower > 0 and gap.result.p_value < 0.01 and gap.tied is False
    assert gap.result.units == 350 and gap.note == ""


def test_a_difference_on_few_units_says_its_interval_and_p_value_are_not_to_be_trusted(models):
    """Two items that differ alike gave p 0.001 and an interval excluding 0, shown as they are: the note says so."""
    right, wrong = Estimate.mean(["a", "b"], [1.0, 1.0]), Estimate.mean(["a", "b"], [0.0, 0.0])
    gap = paired("nleye_triplet_text", "consistency_acc", ("x", right), ("y", wrong))
    assert gap.result.units == 2 and gap.result.p_value == 1 / (gap.result.resamples + 1)
    assert gap.note == (
        "only 2 units: their resamples take few values, so the interval and p-value are not to be trusted (2 units "
        "that differ alike give the smallest p there is)"
    )
    many = paired(
        "nleye_triplet_text",
        "consistency_acc",
        ("better", consistency(models["better"])),
        ("base", consistency(models["base"])),
    )
    assert many.result.units == 350 and many.note == ""


def test_a_null_difference_is_not(models):
    gap = paired(
        "nleye_triplet_text",
        "consistency_acc",
        ("base", consistency(models["base"])),
        ("other", consistency(models["other"])),
    )
    assert gap.result.lower < 0 < gap.result.upper and gap.result.p_value > 0.05 and gap.tied is True


def test_a_minus_b_mirrors_b_minus_a(models):
    a, b = consistency(models["better"]), consistency(models["other"])
    forward = paired("t", "consistency_acc", ("a", a), ("b", b)).result
    backward = paired("t", "consistency_acc", ("b", b), ("a", a)).result
    assert forward.difference == -backward.difference and forward.p_value == backward.p_value
    assert (forward.lower, forward.upper) == pytest.approx((-backward.upper, -backward.lower))


def test_units_one_model_lacks_are_left_out_and_said(models):
    partial = TRIPLET_TEXT.compute(triplet_records(models["base"])[:-20]).estimates[
        "consistency_acc"
    ]  # 10 items cut off
    gap = paired("t", "consistency_acc", ("full", consistency(models["base"])), ("partial", partial))
    assert gap.result.units == 340 and gap.result.difference == 0 and gap.result.p_value == 1.0
    assert gap.note == "difference on the 340 units both were scored on (full: 350, partial: 340)"


def test_ties_with_the_best_in_either_direction(models):
    estimates = {name: consistency(values) for name, values in models.items()}
    ties = ties_with_best("t", "consistency_acc", estimates, higher_is_better=True)
    assert ties.best == ["better"] and set(ties.comparisons) == {"base", "other"}
    assert ties.tied("better") is True and ties.tied("base") is False
    assert ties.comparisons["base"].result.difference == pytest.approx(28 / 350)  # best - other
    assert ties.tied("absent") is None
    lowest = ties_with_best("t", "consistency_acc", estimates, higher_is_better=False)
    assert lowest.best == [min(estimates, key=lambda name: estimates[name].value)]
    assert ties_with_best("t", "consistency_acc", {}, higher_is_better=True) is None


def test_models_sharing_the_best_value_are_compared_too(models):
    """Two models with the same best value (mucr_c2e: 25 vs 25) had no comparison, so comparisons.csv dropped the task
    without a word while ``--compare`` listed it with p = 1.0: the first best is compared with each other model."""
    estimates = {"a": consistency(models["base"]), "b": consistency(models["base"]), "c": consistency(models["other"])}
    ties = ties_with_best("t", "consistency_acc", estimates, higher_is_better=True)
    assert ties.best == ["a", "b"] and set(ties.comparisons) == {"b", "c"}
    equal = ties.comparisons["b"]
    assert (equal.a, equal.result.difference, equal.result.p_value, equal.tied) == ("a", 0, 1.0, True)
    assert ties.tied("b") is True


def test_a_run_must_reproduce_its_reported_value(tmp_path, models):
    records = triplet_records(models["base"])
    path = tmp_path / "20260101_000000_samples_nleye_triplet_text.jsonl"
    path.write_text(
        "".join(
            json.dumps({"doc_id": i, **{name: [name, r] for name in TRIPLET_TEXT.metric_names}}) + "\n"
            for i, r in enumerate(records)
        )
    )
    value = models["base"].mean()
    assert estimate_from_run(path, "consistency_acc", value).value == pytest.approx(value)
    with pytest.raises(CompareError, match="the results file reports 0.5"):
        estimate_from_run(path, "consistency_acc", 0.5)
    with pytest.raises(CompareError, match="no interval-bearing estimate of 'consistency_by_category'"):
        estimate_from_run(path, "consistency_by_category", value)
    with pytest.raises(CompareError, match="run the evaluation with --log_samples"):
        estimate_from_run(Path(tmp_path / "missing.jsonl"), "consistency_acc", value)
