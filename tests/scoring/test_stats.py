"""Bootstrap intervals and paired comparisons: hand-checked cases and coverage on simulated data."""

import numpy as np
import pytest

from abductive_tasks.scoring import stats
from abductive_tasks.scoring.stats import Estimate, interval, paired_difference, seed_for


def test_estimate_values_by_hand():
    assert Estimate.mean(["a", "b", "c", "d"], [1, 0, 1, 1]).value == 0.75
    # rows of one unit stay together: pair p has 2 updates (1 right), q has 1 (right): 2/3 over rows
    grouped = Estimate.grouped_mean(["p", "p", "q"], [1, 0, 1])
    assert grouped.units.tolist() == ["p", "q"] and grouped.stats.tolist() == [[1, 2], [1, 1]]
    assert grouped.value == pytest.approx(2 / 3)
    assert (grouped.n_units, grouped.n_rows) == (
        2,
        3,
    )  # a breakdown cell's "n" counts the rows (updates), not the units
    assert Estimate.mean(["a", "b"], [1, 0]).n_rows == 2
    assert Estimate.mean(["a"], [50], scale=2).value == 100
    assert Estimate.mean([], []).value is None


def test_interval_of_a_constant_is_a_point_and_of_one_unit_is_undefined():
    constant = interval(Estimate.mean(list("abcdef"), [1] * 6), 200, 0)
    assert (constant.lower, constant.upper, constant.stderr) == (1.0, 1.0, 0.0)
    single = interval(Estimate.mean(["a"], [1]), 200, 0)
    assert single.lower is None and single.units == 1


def test_interval_is_reproducible_and_seeded_per_metric():
    estimate = Estimate.mean([str(i) for i in range(50)], np.arange(50) % 3 == 0)
    assert interval(estimate, 500, 7) == interval(estimate, 500, 7)
    assert interval(estimate, 500, 7) != interval(estimate, 500, 8)
    assert seed_for(0, "task", "acc") == seed_for(0, "task", "acc") != seed_for(0, "task", "acc2")


def test_bootstrap_stderr_matches_the_binomial_formula():
    rng = np.random.default_rng(1)
    values = rng.random(400) < 0.3
    estimate = Estimate.mean([str(i) for i in range(400)], values)
    p = values.mean()
    assert interval(estimate, 4000, 0).stderr == pytest.approx(np.sqrt(p * (1 - p) / 400), rel=0.06)


def test_percentile_interval_covers_the_true_rate_about_95_percent_of_the_time():
    """1,000 simulated runs of 350 items (NL-Eye's size) with a true accuracy of 0.3."""
    rng = np.random.default_rng(2024)
    units = [str(i) for i in range(350)]
    covered = 0
    for run in range(1000):
        result = interval(Estimate.mean(units, rng.random(350) < 0.3), 1000, run)
        covered += result.lower <= 0.3 <= result.upper
    assert 0.93 <= covered / 1000 <= 0.97


def test_paired_difference_detects_a_planted_gap_and_not_a_null_one():
    rng = np.random.default_rng(5)
    units = [str(i) for i in range(350)]
    base = rng.random(350) < 0.5
    flipped = base.copy()
    flipped[np.flatnonzero(~base)[:35]] = True  # model b right on 35 more items: +10 points
    gap = paired_difference(Estimate.mean(units, flipped), Estimate.mean(units, base), 2000, 0)
    assert gap.difference == pytest.approx(0.1) and gap.lower > 0 and gap.p_value < 0.01
    noise = rng.random(350) < 0.5
    null = paired_difference(Estimate.mean(units, base), Estimate.mean(units, noise), 2000, 0)
    assert null.lower <= 0 <= null.upper or null.p_value > 0.05


def test_paired_difference_uses_common_units_only():
    a = Estimate.mean(["x", "y", "z"], [1, 1, 0])
    b = Estimate.mean(["y", "z", "w"], [0, 0, 1])
    gap = paired_difference(a, b, 100, 0)
    assert gap.units == 2 and gap.difference == pytest.approx(0.5)
    same = paired_difference(a, a, 100, 0)
    assert same.difference == 0 and same.p_value == 1.0


def test_weights_count_draws_with_replacement():
    rows = stats._weights(np.random.default_rng(0), 5, 4000)
    assert rows.shape == (4000, 5) and (rows.sum(axis=1) == 5).all() and (rows >= 0).all()
    # each unit is drawn Binomial(5, 1/5) times: mean 1, variance 5 * 1/5 * 4/5 = 0.8
    assert rows.mean() == pytest.approx(1.0, abs=0.03) and rows.var() == pytest.approx(0.8, abs=0.05)
    assert (stats._weights(np.random.default_rng(0), 1, 3) == 1).all()  # one unit: drawn every time


def test_metrics_over_the_same_units_share_one_draw():
    units = [str(i) for i in range(40)]
    right = np.arange(40) % 3 == 0
    acc, err = Estimate.mean(units, right), Estimate.mean(units, ~right)
    seeds = []

    def seed(ids: list[str]) -> int:
        seeds.append(ids)
        return 11

    bounds = stats.intervals({"acc": acc, "err": err}, 500, seed)
    assert seeds == [units]  # one draw for the unit set
    # same weights: every replicate of err is 1 - the replicate of acc, so the interval mirrors exactly
    assert bounds["err"].lower == pytest.approx(1 - bounds["acc"].upper)
    assert bounds["err"].upper == pytest.approx(1 - bounds["acc"].lower)
    assert bounds["err"].stderr == pytest.approx(bounds["acc"].stderr)
    # the draw depends on the units only: alone, in another order, or with other metrics, the same interval
    assert stats.intervals({"acc": acc}, 500, seed)["acc"] == bounds["acc"] == interval(acc, 500, 11)
    assert list(stats.intervals({"err": err, "acc": acc}, 500, seed)) == ["err", "acc"]


def test_other_unit_sets_get_their_own_draw_and_unresamplable_estimates_none():
    first, second = [str(i) for i in range(30)], [str(i) for i in range(30, 60)]
    values = np.arange(30) % 2
    seeds = []
    bounds = stats.intervals(
        {
            "a": Estimate.mean(first, values),
            "b": Estimate.mean(second, values),
            "one": Estimate.mean(["x"], [1]),
            "empty": Estimate.mean([], []),
        },
        300,
        lambda ids: seeds.append(ids) or seed_for(0, "task", *ids),
    )
    assert seeds == [first, second]
    assert bounds["a"] != bounds["b"]  # same values, other units: another seed
    assert bounds["a"] == interval(Estimate.mean(first, values), 300, seed_for(0, "task", *first))
    assert (bounds["one"].lower, bounds["one"].resamples, bounds["empty"].units) == (None, 0, 0)


def _paired_one_pair(a: Estimate, b: Estimate, resamples: int, seed: int) -> stats.PairedDifference:
    """The paired difference of one pair, drawn on its own (the definition the many-pair path must reproduce)."""
    common = np.intersect1d(a.units, b.units)
    a, b = stats._aligned(a, common), stats._aligned(b, common)
    if a.value is None or b.value is None:
        return stats.PairedDifference(None, None, None, None, len(common), 0)
    if len(common) < 2:
        return stats.PairedDifference(a.value - b.value, None, None, None, len(common), 0)
    values_a, values_b = stats._replicates([a, b], resamples, seed)
    differences = values_a - values_b
    tail = (1 - stats.LEVEL) / 2 * 100
    lower, upper = np.percentile(differences[np.isfinite(differences)], [tail, 100 - tail])
    extreme = np.abs(differences - (a.value - b.value)) >= abs(a.value - b.value) - 1e-12
    p_value = min(1.0, (1 + int(extreme.sum())) / (len(differences) + 1))
    return stats.PairedDifference(a.value - b.value, float(lower), float(upper), p_value, len(common), resamples)


def test_many_pairs_give_what_each_pair_drawn_alone_gives():
    rng = np.random.default_rng(3)
    units = [f"u{i}" for i in range(60)]
    leader = Estimate.mean(units, rng.random(60) < 0.7)
    others = [
        Estimate.mean(units, rng.random(60) < 0.5),
        Estimate.mean(units[::-1], rng.random(60) < 0.6),  # the same units in another order: the same draw
        Estimate.mean(units[:45], rng.random(45) < 0.5),  # fewer units: a draw of its own
        Estimate.grouped_mean([unit for unit in units for _ in range(2)], rng.random(120), scale=100.0),
        Estimate.mean(units[:1], [1.0]),  # one common unit: no interval
        Estimate(np.asarray(units[:3]), np.zeros((3, 2))),  # a zero denominator: undefined
    ]
    found = stats.paired_differences(leader, others, 400, 21)
    assert found == [_paired_one_pair(leader, other, 400, 21) for other in others]
    assert [result.units for result in found] == [60, 60, 45, 60, 1, 3]
    assert found[0].lower is not None and found[4].lower is None and found[5].difference is None
    assert paired_difference(leader, others[2], 400, 21) == found[2]


def test_stderr_is_the_sample_standard_deviation_of_the_replicates():
    """The module's definition: ``stderr`` is the standard deviation of the replicates, with B - 1 in the
    denominator (Efron & Tibshirani's bootstrap standard error); few replicates make the divisor visible."""
    estimate = Estimate.mean([str(i) for i in range(8)], [1, 0, 0, 1, 1, 0, 1, 1])
    replicates = estimate.replicates(5, 3)
    assert len(set(replicates.tolist())) > 1  # not a point: the divisor matters
    mean = replicates.mean()
    by_hand = np.sqrt(((replicates - mean) ** 2).sum() / (5 - 1))
    assert interval(estimate, 5, 3).stderr == pytest.approx(by_hand, rel=1e-12)


def test_replicates_that_leave_the_metric_undefined_are_left_out_of_the_interval():
    """A resample drawing only units with a zero denominator leaves the metric undefined (NaN): it is dropped, not
    allowed to turn the whole interval into None. Unit a: 1 of 1 right; b, c: no rows in the denominator."""
    estimate = Estimate(np.array(["a", "b", "c"]), np.array([[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]))
    assert estimate.value == 1.0
    replicates = estimate.replicates(200, 0)
    assert np.isnan(replicates).any() and (replicates[np.isfinite(replicates)] == 1.0).all()
    result = interval(estimate, 200, 0)
    assert (result.lower, result.upper, result.stderr) == (1.0, 1.0, 0.0)
