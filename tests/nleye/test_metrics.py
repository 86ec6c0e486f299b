"""NL-Eye metric kernels on hand-computed cases (A.3 order-faithful pairs, Table 8), and the Figure 6 breakdowns
of both setups through the tasks' process_results and aggregation."""

from __future__ import annotations

import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.nleye import data, hooks
from abductive_tasks.nleye.metrics import (
    consistency_outcomes,
    pair_scores,
    pairs_outcome,
    rank_estimates,
    triplet_outcome,
)

from helpers.specs import evaluate

ITEMS = data.load(SAMPLE_ROOT / "nleye").items


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


# ---------------------------------------------------------------- Figure 6 breakdowns, hand-computed
# The sample's items 1-9 (category, time direction, time duration):
#   1 physical forward short-term     4 functional backward short-term    7 physical forward long-term
#   2 logical parallel unspecified    5 cultural parallel unspecified     8 logical forward short-term
#   3 emotional backward short-term   6 social backward short-term        9 emotional forward short-term
# A cell of one item has no interval (None); an all-right or all-wrong cell has a zero-width one.


def _cells(breakdown: dict) -> dict:
    return {label: (cell["acc"], cell["n"], cell["lower"], cell["upper"]) for label, cell in breakdown.items()}


def _triplet_values() -> dict:
    """Triplet documents of items 1-6 in both orders and item 7 in one (incomplete, so in no cell), answered
    R(ight), W(rong) or U(nparsable) per order: 1 RR, 2 RR, 3 RW, 4 RR, 5 RR, 6 RU, 7 R."""
    docs = hooks.triplet_docs_from(ITEMS).select(range(13))
    assert [doc["item_id"] for doc in docs] == [str(item) for item in (1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7)]
    plan = "RR" + "RR" + "RW" + "RR" + "RR" + "RU" + "R"
    answers = [
        {"R": str(doc["gold_position"]), "W": str(3 - doc["gold_position"]), "U": "I cannot decide."}[code]
        for doc, code in zip(docs, plan, strict=True)
    ]
    values = evaluate(hooks.TRIPLET_TEXT, hooks.process_results_triplet_text, docs, answers)
    # consistent items: 1, 2, 4, 5 of the six complete ones
    assert values["consistency_acc"] == pytest.approx(4 / 6)
    assert values["triplet_counts"]["items_scored"] == 6 and values["triplet_counts"]["items_incomplete"] == 1
    return values


def test_consistency_by_time_direction_by_hand():
    # NL-Eye §5 Figure 6 (right): triplet consistency (A.3) per temporal direction, over complete items.
    # forward: item 1 -> 1/1 (item 7 incomplete, left out); parallel: items 2, 5 -> 2/2;
    # backward: items 3, 4, 6 -> 1/3 (4 of its 6 documents are right: a per-document breakdown would give 2/3).
    # Intervals: backward resamples 3 items, 29.6% of draws hold no right item and 3.7% only item 4: [0, 1].
    values = _triplet_values()
    assert _cells(values["consistency_by_time_direction"]) == {
        "backward": (pytest.approx(1 / 3), 3, 0.0, 1.0),
        "forward": (1.0, 1, None, None),
        "parallel": (1.0, 2, 1.0, 1.0),
    }


def test_consistency_by_time_duration_by_hand():
    # NL-Eye §5 Figure 6 (right): triplet consistency per temporal duration (the sample's parallel items are
    # "unspecified"). short-term: items 1, 3, 4, 6 -> 2/4 (6 of its 8 documents right: per document 3/4);
    # unspecified: items 2, 5 -> 2/2; no long-term cell: item 7 is incomplete.
    values = _triplet_values()
    assert _cells(values["consistency_by_time_duration"]) == {
        "short-term": (0.5, 4, 0.0, 1.0),
        "unspecified": (1.0, 2, 1.0, 1.0),
    }


def _pairs_values() -> dict:
    """Pairs documents of items 1-8 (one per hypothesis) and item 9's distractor only (incomplete), rated
    (gold, distractor): 1 (8, 3) right, 2 (5, 5) tie: wrong, 3 (9, 2) right, 4 (unparsable, 6) wrong, 5 (7, 4) right,
    6 (2, 6) wrong, 7 (6, 7) wrong, 8 (10, 1) right, 9 (-, 4)."""
    docs = hooks.pairs_docs_from(ITEMS).select(range(17))
    ratings = {
        "1": (8, 3),
        "2": (5, 5),
        "3": (9, 2),
        "4": (None, 6),
        "5": (7, 4),
        "6": (2, 6),
        "7": (6, 7),
        "8": (10, 1),
        "9": (None, 4),
    }
    answers = []
    for doc in docs:
        rating = ratings[doc["item_id"]][0 if doc["is_gold"] else 1]
        answers.append("no idea" if rating is None else f"Score: {rating}")
    assert (docs[16]["item_id"], docs[16]["is_gold"]) == ("9", False)
    values = evaluate(hooks.PAIRS, hooks.process_results_pairs, docs, answers)
    assert values["order_faithful_acc"] == 0.5  # items 1, 3, 5, 8 of 8
    assert values["pairs_counts"]["items_scored"] == 8 and values["pairs_counts"]["items_incomplete"] == 1
    return values


def test_faithful_by_category_by_hand():
    # NL-Eye Figure 6 (left) breakdown by reasoning category, applied to the pairs setup's A.3 order-faithful
    # accuracy (the paper plots the triplet setup only). physical: items 1 right, 7 wrong -> 1/2; logical: 2 wrong,
    # 8 right -> 1/2; emotional: item 3 only (item 9 is incomplete) -> 1/1; functional 4 -> 0; cultural 5 -> 1;
    # social 6 -> 0.
    values = _pairs_values()
    assert _cells(values["faithful_by_category"]) == {
        "cultural": (1.0, 1, None, None),
        "emotional": (1.0, 1, None, None),
        "functional": (0.0, 1, None, None),
        "logical": (0.5, 2, 0.0, 1.0),
        "physical": (0.5, 2, 0.0, 1.0),
        "social": (0.0, 1, None, None),
    }


def test_faithful_by_time_direction_by_hand():
    # NL-Eye Figure 6 (right) breakdown by temporal direction, on the pairs setup's order-faithful accuracy (A.3).
    # forward: items 1 R, 7 W, 8 R -> 2/3 (item 9 is incomplete); parallel: 2 W, 5 R -> 1/2;
    # backward: 3 R, 4 W, 6 W -> 1/3.
    values = _pairs_values()
    assert _cells(values["faithful_by_time_direction"]) == {
        "backward": (pytest.approx(1 / 3), 3, 0.0, 1.0),
        "forward": (pytest.approx(2 / 3), 3, 0.0, 1.0),
        "parallel": (0.5, 2, 0.0, 1.0),
    }


def test_faithful_by_time_duration_by_hand():
    # NL-Eye Figure 6 (right) breakdown by temporal duration, on the pairs setup's order-faithful accuracy (A.3).
    # short-term: items 1 R, 3 R, 4 W, 6 W, 8 R -> 3/5; unspecified: 2 W, 5 R -> 1/2; long-term: item 7 W -> 0/1.
    # short-term's interval: 1.0% of draws of 5 items hold none right, 8.7% at most one: lower bound 1/5.
    values = _pairs_values()
    assert _cells(values["faithful_by_time_duration"]) == {
        "long-term": (0.0, 1, None, None),
        "short-term": (0.6, 5, 0.2, 1.0),
        "unspecified": (0.5, 2, 0.0, 1.0),
    }
