"""Answer parsing: the ways models answer a two-way choice or a 1-10 rating."""

import pytest

from abductive_tasks.parsing import loglikelihood_value, parse_choice, parse_score


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Image 2", 2),
        ("hypothesis 1", 1),
        ("hypothesis1 is the one", 1),
        ("the first one", 1),
        ("The second hypothesis image is more plausible", 2),
        ("2.", 2),
        ("**1**", 1),
        ("1 - because the glass fell", 1),
        ("Answer: 1", 1),
        ("Final answer - image two", 2),
        ("Hypothesis 2 is more plausible because the snow melts.", 2),
        ("The more plausible one is 2.", 2),
        ("I choose image 1.", 1),
        ("Comparing image 1 and image 2, image 2 is more plausible.", 2),
    ],
)
def test_choice_forms(answer, expected):
    assert parse_choice(answer, 2) == expected


@pytest.mark.parametrize(
    "answer",
    ["", "gibberish", "Both image 1 and image 2 are equally plausible.", "Image 3", "I cannot tell."],
)
def test_unreadable_choices_are_none(answer):
    assert parse_choice(answer, 2) is None


def test_aliases_only_where_given():
    assert parse_choice("The middle image.", 2) is None
    assert parse_choice("The middle image.", 2, {"middle": 1, "right": 2}) == 1
    assert parse_choice("The right image is more plausible", 2, {"middle": 1, "right": 2}) == 2


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Score: 7/10", 7.0),
        ("7/10", 7.0),
        ("I would rate it 8 out of 10.", 8.0),
        ("Rank: 7", 7.0),
        ("**6**", 6.0),
        ("7.5 - very plausible", 7.5),
        ("The plausibility score is 3 because ...", 3.0),
        ("Score: 6.470. Read from the upper-left pixel.", 6.47),
        ("10", 10.0),
    ],
)
def test_score_forms(answer, expected):
    assert parse_score(answer) == expected


@pytest.mark.parametrize("answer", ["Score: 11", "0", "blah", "", "very plausible"])
def test_unreadable_or_out_of_range_scores_are_none(answer):
    assert parse_score(answer) is None


def test_loglikelihood_value_reads_lmms_evals_stringified_results_without_eval():
    assert loglikelihood_value("(-3.71, False)") == -3.71
    assert loglikelihood_value((2.5, True)) == 2.5
    assert loglikelihood_value("('payload', False)") == "payload"
    assert loglikelihood_value("__import__('os').getcwd()") is None  # a literal only, never code
    assert loglikelihood_value("") is None
    assert loglikelihood_value("()") is None
