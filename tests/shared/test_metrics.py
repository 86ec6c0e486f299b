"""Metric kernels on hand-computed cases."""

import numpy as np
import pytest

from abductive_tasks.metrics import accuracy_by, consistency_outcomes


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


def test_accuracy_by_group():
    result = accuracy_by(["social", "physical", "social", "social"], np.array([True, False, False, True]))
    assert result == {"physical": {"acc": 0.0, "n": 1}, "social": {"acc": pytest.approx(2 / 3), "n": 3}}
