"""Sherlock metric kernels on hand-computed cases (paper §4; official leaderboard scorers)."""

from __future__ import annotations

import lapjv
import numpy as np
import pytest

from abductive_tasks.sherlock import metrics

# np.random.seed(1); np.random.random(10): the official comparison tie-break, before scaling by 1e-9.
OFFICIAL_NOISE = [
    0.417022005,
    0.720324493,
    0.000114374817,
    0.302332573,
    0.146755891,
    0.0923385948,
    0.186260211,
    0.345560727,
    0.396767474,
    0.538816734,
]


def test_retrieval_ranks_with_ties_get_average_ranks():
    sim = np.array(
        [
            [0.9, 0.1, 0.2],  # true item first: rank 1
            [0.5, 0.5, 0.5],  # three-way tie: rank 2
            [0.3, 0.8, 0.3],  # tied with item 0 for second place: rank 2.5
        ]
    )
    result = metrics.retrieval_metrics(sim)
    assert result["im2txt_rank"] == pytest.approx((1 + 2 + 2.5) / 3)
    # columns: item 0: 0.9 > 0.5, 0.3 -> 1; item 1: 0.8 > 0.5 > 0.1 -> 2; item 2: 0.3 > 0.2 but 0.5 above -> 2
    assert result["txt2im_rank"] == pytest.approx((1 + 2 + 2) / 3)
    assert result["p_at_1"] == pytest.approx(100 / 3)  # only an exact rank 1 counts, not a tie for first
    assert result["n"] == 3


def test_retrieval_perfect_and_constant_scores():
    assert metrics.retrieval_metrics(np.eye(4)) == {"im2txt_rank": 1.0, "txt2im_rank": 1.0, "p_at_1": 100.0, "n": 4}
    assert metrics.retrieval_metrics(np.zeros((4, 4))) == {
        "im2txt_rank": 2.5,
        "txt2im_rank": 2.5,
        "p_at_1": 0.0,
        "n": 4,
    }


def test_localization_gt_assignment_is_one_to_one_not_argmax():
    # Inference 0 prefers box 0 (0.9) and so does inference 1 (0.8); the best assignment
    # gives box 0 to inference 0 and box 1 to inference 1: 0.9 + 0.7 > 0.1 + 0.8.
    sim = np.array([[0.9, 0.8], [0.1, 0.7]])
    assert metrics.localization_gt_accuracy(sim) == 1.0
    # Here swapping wins (0.2 + 0.9 > 0.6 + 0.4): both inferences get the wrong box.
    assert metrics.localization_gt_accuracy(np.array([[0.6, 0.9], [0.2, 0.4]])) == 0.0
    # 3 x 3: inference 2 has box 1's best score but box 1 goes to inference 1 overall.
    sim = np.array([[5.0, 0.0, 0.0], [0.0, 4.0, 3.0], [0.0, 0.0, 2.0]])
    assert metrics.localization_gt_accuracy(sim) == 1.0
    assert metrics.localization_gt_accuracy(np.array([[0.3]])) == 1.0


def official_gt_accuracy(sim: np.ndarray) -> float:
    """The official GT-box accuracy of one image (allenai/sherlock ``leaderboard_eval/score_localization.py``).

    Restated from ``get_region_sol`` and the ``gt_accs`` loop: the float64 box x inference matrix,
    negated, goes to src-d ``lapjv.lapjv`` as is (the solver casts it to float32); its first output
    is the inference assigned to each box; accuracy = mean of ``arange(n) == solution``.
    """
    solution = lapjv.lapjv(-np.array(sim, dtype=np.float64))[0]
    return float(np.mean(np.arange(len(sim)) == solution[np.arange(len(solution))]))


def random_matrices(kind: str, sizes: range, per_size: int, seed: int = 0) -> list[np.ndarray]:
    """Score matrices with many exact ties (constant, 1-10 integer ratings, three levels, two decimals) or none
    (uniform)."""
    rng = np.random.default_rng(seed)
    draw = {
        "constant": lambda n: np.full((n, n), float(rng.integers(1, 11))),
        "ratings_1_10": lambda n: rng.integers(1, 11, size=(n, n)).astype(np.float64),
        "three_levels": lambda n: rng.integers(1, 4, size=(n, n)).astype(np.float64),
        "two_decimals": lambda n: np.round(rng.random((n, n)), 2),
        "uniform": lambda n: rng.random((n, n)),
    }[kind]
    return [draw(n) for n in sizes for _ in range(per_size)]


@pytest.mark.parametrize("kind", ["constant", "ratings_1_10", "three_levels", "two_decimals", "uniform"])
def test_localization_gt_equals_the_official_scorer(kind):
    for sim in random_matrices(kind, range(1, 25), per_size=20):
        assert metrics.localization_gt_accuracy(sim) == official_gt_accuracy(sim), sim


def test_localization_gt_constant_scores_get_no_box_right():
    # The official solver's tie order on a constant matrix assigns no box to its own inference (n >= 2);
    # the former solver (lap 0.5, float64) gave 1/n on odd n >= 5, e.g. 0.2 here.
    assert metrics.localization_gt_accuracy(np.zeros((5, 5))) == 0.0
    assert metrics.localization_gt_accuracy(np.full((7, 7), 4.0)) == 0.0
    assert metrics.localization_gt_accuracy(np.full((1, 1), 4.0)) == 1.0
    # A rating model that gives every box of 2,000 images the same score: 0% (the former solver: 4.99% on these images).
    rng = np.random.default_rng(10)
    images = [np.full((n, n), 5.0) for n in rng.integers(2, 16, size=2000)]
    accuracies = [metrics.localization_gt_accuracy(sim) for sim in images]
    assert 100 * np.mean(accuracies) == 0.0
    assert accuracies == [official_gt_accuracy(sim) for sim in images]


def test_localization_gt_differences_below_float32_resolution_are_ties():
    # In float64 the diagonal wins by 1e-9; the official solver works in float32, where all four scores are 1.0 (a tie).
    sim = np.array([[1.0, 1.0], [1.0, 1.0 + 1e-9]])
    assert metrics.localization_gt_accuracy(sim) == official_gt_accuracy(sim) == 0.0
    # A difference float32 keeps decides as usual.
    assert metrics.localization_gt_accuracy(np.array([[1.0, 1.0], [1.0, 1.001]])) == 1.0


def test_tie_break_noise_is_the_official_stream():
    np.testing.assert_allclose(metrics.tie_break_noise(10), np.array(OFFICIAL_NOISE) * 1e-9, rtol=1e-8)
    np.testing.assert_allclose(metrics.tie_break_noise(3), np.array(OFFICIAL_NOISE[:3]) * 1e-9, rtol=1e-8)
    assert metrics.tie_break_noise(12)[:10] == pytest.approx(metrics.tie_break_noise(10), rel=1e-12)


def test_pairwise_accuracy_by_hand():
    label = np.array([3, 2, 1, 2, 1])
    # Pairs with different labels: (0,1) (0,2) (0,3) (0,4) (1,2) (1,4) (2,3) (3,4): 8.
    perfect = np.array([3.0, 2.0, 1.0, 2.0, 1.0])
    assert metrics.pairwise_accuracy(perfect, label) == 1.0  # tied predictions only on tied labels
    assert metrics.pairwise_accuracy(-perfect, label) == -1.0
    # Constant scores: the noise orders positions 1 > 0 > 3 > 4 > 2; only (0,1) is ordered wrongly: (7/8 - 0.5) * 2.
    assert metrics.pairwise_accuracy(np.zeros(5), label) == pytest.approx(0.75)
    assert metrics.pairwise_accuracy(np.zeros(3), np.array([2, 2, 2])) == 0.0  # no pair differs
    # A real difference dominates the 1e-9 noise.
    assert metrics.pairwise_accuracy(np.array([1.0, 1.0 + 1e-6, 0.0]), np.array([1, 2, 3])) == pytest.approx(
        (1 / 3 - 0.5) * 2
    )


def test_comparison_input_scores_by_hand():
    annot1 = np.array([3, 1, 2, 3])
    annot2 = np.array([2, 1, 2, 3])
    scores = metrics.comparison_input_scores(np.zeros(4), annot1, annot2)
    # label annot1: 5 differing pairs, noise gets (0,2) and (2,3) right: -0.2; label annot2: 5 pairs, only (2,3): -0.6.
    assert scores["model"] == pytest.approx(-0.4)
    # annot2 (+ noise) predicting annot1: differing pairs (0,1) (0,2) (1,2) (1,3) (2,3), all ordered alike: 1.0.
    # annot1 (+ noise) predicting annot2: pairs (0,1) (0,3) (1,2) (1,3) (2,3); (0,3) is 3 + .417e-9 vs 3 + .302e-9,
    # ordered against the label 2 < 3: 4/5 -> 0.6. Mean 0.8.
    assert scores["human"] == pytest.approx(0.8)
    # The mean of both annotators [2.5, 1, 2, 3] orders every differing pair like either label.
    assert scores["oracle"] == pytest.approx(1.0)


def test_as_submitted_rounds_to_float32_and_puts_missing_scores_strictly_lowest():
    values = metrics.as_submitted(np.array([0.1, np.nan, -3.0, 2.0, np.inf]))
    assert values.dtype == np.float32 and values[1] == values[4] == -4.0
    assert values[0] == np.float32(0.1)
    assert metrics.as_submitted(np.array([np.nan, np.nan])).tolist() == [0.0, 0.0]
    # From 2**24 on, lowest - 1 rounds back to the lowest in float32: the next float32 below it is taken instead.
    big = metrics.as_submitted(np.array([np.nan, -3e7, 5e7]))
    assert np.float32(-3e7) - np.float32(1.0) == np.float32(-3e7)  # the tie the rule avoids
    assert big[0] < big[1] and big[0] == np.nextafter(np.float32(-3e7), np.float32(-np.inf))
    assert metrics.missing_score(np.array([], dtype=np.float32)) == 0.0


def test_submitted_scores_take_the_missing_value_of_their_own_file():
    records = [
        {"sherlock_task": "retrieval", "chunk": 0, "plausibility": 5.0},
        {"sherlock_task": "retrieval", "chunk": 0, "plausibility": None},
        {"sherlock_task": "retrieval", "chunk": 1, "plausibility": None},
        {"sherlock_task": "retrieval", "chunk": 1, "plausibility": 2.0},
        {"sherlock_task": "localization", "chunk": 0, "plausibility": None},
    ]
    assert metrics.submitted_scores(records).tolist() == [5.0, 4.0, 1.0, 2.0, 0.0]


# ---------------------------------------------------------------- outcomes: units, counts, chance levels


def _record(group: str, size: int, plausibility: float | None, **fields) -> dict:
    return {
        "group": group,
        "group_size": size,
        "has_key": True,
        "split": "val",
        "chunk": 0,
        "sherlock_task": "retrieval" if "image_instance" in fields else "comparison",
        "plausibility": plausibility,
        **fields,
    }


def test_retrieval_outcome_averages_chunks_and_gives_the_random_levels():
    records = []
    for chunk, n in ((0, 2), (1, 3)):
        for image in range(n):
            for text in range(n):  # chunk 0 perfect; chunk 1 all tied
                score = float(image == text) if chunk == 0 else 0.5
                records.append(
                    _record(str(chunk), n * n, score, chunk=chunk, image_instance=f"i{image}", text_instance=f"i{text}")
                )
    records.append(
        _record("2", 4, 1.0, chunk=2, image_instance="i0", text_instance="i0")
    )  # a chunk cut apart by --limit
    outcome = metrics.retrieval_outcome(records, "mini")
    assert outcome.estimates["mini_p_at_1"].value == pytest.approx((100 + 0) / 2)
    assert outcome.estimates["mini_im2txt_rank"].value == pytest.approx((1 + 2) / 2)  # tied: (n + 1) / 2 = 2
    assert list(outcome.estimates["mini_p_at_1"].units) == ["0", "1"]  # the chunk is the bootstrap unit
    assert outcome.chance == {
        "mini_p_at_1": pytest.approx((50 + 100 / 3) / 2),
        "mini_im2txt_rank": 1.75,
        "mini_txt2im_rank": 1.75,
    }
    assert outcome.counts == {"chunks_scored": 2, "chunks_incomplete": 1}
    assert sorted(outcome.values["mini_per_chunk"]) == [0, 1]


def test_localization_outcome_units_and_random_levels():
    records = [  # image A: a 2 x 2 gt grid scored right; image B: 3 x 3 all tied (the official solver gets none right)
        _record(
            "A|gt",
            4,
            float(box == inference),
            box_type="gt",
            inst_id=f"a{inference}",
            bbox_idx=box,
            correct=box == inference,
            iou=np.nan,
            key_order=0,
        )
        for box in range(2)
        for inference in range(2)
    ] + [
        _record(
            "B|gt",
            9,
            1.0,
            box_type="gt",
            inst_id=f"b{inference}",
            bbox_idx=box,
            correct=box == inference,
            iou=np.nan,
            key_order=0,
        )
        for box in range(3)
        for inference in range(3)
    ]
    # Auto: image A, two inferences with 4 and 2 proposals;
    # the best-scored is right for the first, wrong for the second.
    auto = [("x", 0.9, 0.7), ("x", 0.1, 0.2), ("x", 0.3, 0.6), ("x", 0.2, 0.1), ("y", 0.8, 0.3), ("y", 0.1, 0.9)]
    records += [
        _record("A|auto", 6, score, box_type="auto", inst_id=inst, bbox_idx=-1, correct=False, iou=iou, key_order=order)
        for order, (inst, score, iou) in enumerate(auto)
    ]
    outcome = metrics.localization_outcome(records)
    assert outcome.estimates["localization_gt_acc"].value == pytest.approx(100 * (1 + 0) / 2)
    assert outcome.estimates["localization_auto_acc"].value == pytest.approx(100 * 0.5)
    assert outcome.estimates["localization_auto_oracle_acc"].value == pytest.approx(100.0)
    assert sorted(outcome.estimates["localization_gt_acc"].units) == ["A|gt", "B|gt"]  # one unit per image
    # Random levels: a random assignment gets 1/n of an image's boxes right;
    # a random proposal is right with the share of correct ones.
    assert outcome.chance["localization_gt_acc"] == pytest.approx(100 * (1 / 2 + 1 / 3) / 2)
    assert outcome.chance["localization_auto_acc"] == pytest.approx(100 * (2 / 4 + 1 / 2) / 2)
    assert outcome.counts == {"gt_images": 2, "auto_images": 1, "images_incomplete": 0}


def test_comparison_outcome_is_a_mean_over_inputs_with_chance_zero():
    records = [
        _record(group, 3, score, position=position, annot1=label, annot2=label)
        for group, scores in (("in1", (3.0, 2.0, 1.0)), ("in2", (1.0, 2.0, 3.0)))
        for position, (score, label) in enumerate(zip(scores, (3, 2, 1), strict=True))
    ]
    outcome = metrics.comparison_outcome(records)
    assert outcome.estimates["comparison_acc"].value == pytest.approx(100 * (1 + -1) / 2)
    assert outcome.estimates["comparison_human_acc"].value == pytest.approx(100.0)
    assert list(outcome.estimates["comparison_acc"].units) == ["in1", "in2"] and outcome.chance == {
        "comparison_acc": 0.0
    }
    # Random scores: every differing pair is ordered right with probability 1/2, so (acc - 0.5) x 2 averages 0.
    rng = np.random.default_rng(0)
    labels = np.array([3, 1, 2, 2, 1])
    mean = np.mean([metrics.pairwise_accuracy(rng.random(5), labels) for _ in range(20_000)])
    assert abs(mean) < 0.01


def test_a_missing_score_is_the_lowest_score_of_its_file():
    """Unreadable results and failed requests: the official algorithms on the submitted values, where a
    missing score sits strictly below every real score of its file (before 2.1 anything resting on it was wrong)."""
    records = [
        _record("o1", 3, plausibility, position=position, annot1=label, annot2=label)
        for position, (plausibility, label) in enumerate(((3.0, 3.0), (1.0, 2.0), (None, 1.0)))
    ]
    # Candidate 2 becomes 1 - 1 = 0: every differing pair is ordered as the labels are.
    assert metrics.comparison_outcome(records).estimates["comparison_acc"].value == pytest.approx(100.0)
    records[0]["plausibility"] = None  # both missing tie at 0; the official noise orders (0, 2) by position
    # (0, 1) wrong (0 < 1 against 3 > 2), (1, 2) right, (0, 2) right when the noise of position 0 is the larger
    noise = metrics.tie_break_noise(3)
    expected = 100 * ((1 + int(noise[0] > noise[2])) / 3 - 0.5) * 2
    assert metrics.comparison_outcome(records).estimates["comparison_acc"].value == pytest.approx(expected)
