"""NL-Eye metric kernels on hand-computed cases (A.3 order-faithful pairs, Table 8)."""

import pytest

from abductive_tasks.nleye.metrics import (
    consistency_outcomes,
    pair_scores,
    pairs_outcome,
    rank_estimates,
    triplet_outcome,
)


def test_order_faithful_ties_and_unparsable_are_wrong():
    # a: 8 > 3 right; b: 5 == 5 tie, wrong; c: gold unparsable, wrong; d: 2 < 9 wrong; e: gold only, incomplete.
    pairs = pair_scores(
        item_ids=["a", "a", "b", "b", "c", "c", "d", "d", "e"],
        is_gold=[True, False, False, True, True, False, True, False, True],
        scores=[8, 3, 5, 5, None, 4, 2, 9, 7],
    )
    assert pairs.item_ids.tolist() == ["a", "b", "c", "d"]
    assert pairs.incomplete == 1
    outcome = pairs.order_faithful()
    assert outcome.correct.tolist() == [True, False, False, False]
    assert outcome.accuracy == 0.25


def test_rank_statistics_by_hand():
    # parsed items: a (8, 3), b (5, 5), d (2, 9); c has an unparsable score and is left out.
    pairs = pair_scores(
        item_ids=["a", "a", "b", "b", "c", "c", "d", "d"],
        is_gold=[True, False, True, False, True, False, True, False],
        scores=[8, 3, 5, 5, None, 4, 2, 9],
    )
    stats = {name: estimate.value for name, estimate in rank_estimates(pairs).items()}
    assert rank_estimates(pairs)["rank_diff"].units.tolist() == ["a", "b", "d"]
    assert stats["rank_diff"] == pytest.approx((5 + 0 + 7) / 3)
    assert stats["equal_rank_rate"] == pytest.approx(1 / 3)
    assert stats["correct_rank_mean"] == pytest.approx((8 + 5 + 2) / 3)
    assert stats["wrong_rank_mean"] == pytest.approx((3 + 5 + 9) / 3)
    assert stats["gap_when_correct"] == pytest.approx(5.0)
    assert stats["gap_when_wrong"] == pytest.approx((0 + 7) / 2)
    # Table 8's identity: rank diff = acc * correct diff + (1 - acc) * incorrect diff.
    accuracy = 1 / 3
    assert stats["rank_diff"] == pytest.approx(
        accuracy * stats["gap_when_correct"] + (1 - accuracy) * stats["gap_when_wrong"]
    )


def test_rank_statistics_without_parsed_items_are_none():
    estimates = rank_estimates(pair_scores(["a", "a"], [True, False], [None, None]))
    assert estimates["rank_diff"].value is None and estimates["rank_diff"].n_units == 0


def test_consistency_needs_both_orders_right_and_complete_items():
    # item a: right in both orders -> 1; b: right once -> 0; c: only one document -> incomplete.
    outcomes = consistency_outcomes(
        item_ids=["a", "a", "b", "b", "c"],
        orders=[1, 2, 2, 1, 1],
        correct=[True, True, True, False, True],
    )
    assert outcomes.item_ids.tolist() == ["a", "b"]
    assert outcomes.correct.tolist() == [True, False]
    assert outcomes.incomplete == 1
    assert outcomes.accuracy == 0.5


def test_consistency_with_no_complete_item_is_none():
    outcomes = consistency_outcomes(["a"], [1], [True])
    assert outcomes.accuracy is None
    assert outcomes.incomplete == 1


def test_pairs_chance_is_two_uniform_ratings_strictly_ordered():
    """§4.1 / A.3: order-faithful accuracy counts an item right only when the gold hypothesis is rated strictly
    higher; a random scorer rates both uniformly on Table 6's 1-10 scale, so chance is P(gold > distractor) = 45/100
    (ties, 10/100, are wrong), not 1/2."""
    by_hand = sum(gold > distractor for gold in range(1, 11) for distractor in range(1, 11)) / 100
    categories = {"reasoning_category": "social", "time_direction": "forward", "time_duration": "short-term"}
    records = [
        {"item_id": "a", "is_gold": True, "rating": 8, **categories},
        {"item_id": "a", "is_gold": False, "rating": 3, **categories},
    ]
    outcome = pairs_outcome(records)
    assert by_hand == 0.45
    assert outcome.chance["order_faithful_acc"] == pytest.approx(by_hand)
    # the triplet setup (A.3 consistency): right in both orders by chance with probability 1/2 * 1/2
    triplet = [{"item_id": "a", "gold_position": position, "correct": True, **categories} for position in (1, 2)]
    chance = triplet_outcome(triplet, explanations=False).chance
    assert chance == {"consistency_acc": 0.25, "order1_acc": 0.5, "order2_acc": 0.5}
