"""Reading round 64 (batch BT): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve_hooks
from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice
from abductive_tasks.sherlock import hooks as sherlock_hooks

LABELS = dve_hooks.LABEL
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
HYPOTHESES = Choice(2, context_images=1)
PRESENTS = nleye_hooks.triplet_text_answer(
    {
        "shown_descriptions": [
            "A child sits on the floor, holding an unwrapped rectangular present.",
            "A child sits on the floor, holding an unwrapped ball-shaped present.",
        ]
    }
)
SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
RATING = sherlock_hooks.RATING_ANSWER


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            LABELS,
            "I initially thought strengthener, but the update that the street is dry makes rain unlikely: weakener.",
            "weakener",
        ),
        (LABELS, "At first I thought it was a strengthener, but the street is dry: weakener.", "weakener"),
        (MUCR_OPTIONS, "I initially thought Option 2, but the dog is muddy in the effect image: Option 3.", 3),
        (HYPOTHESES, "I first thought image 1, but the road is wet: image 2.", 2),
        # counter-cases: the first thought names no answer when nothing closes the sentence; the answer after the
        # colon not closing it; no "but"; another option named before the colon
        (LABELS, "I initially thought strengthener, but the update says: the street is dry.", None),
        (LABELS, "I initially thought strengthener, but the street is dry: weakener, or maybe strengthener.", None),
        (LABELS, "I initially thought strengthener, and the street is dry: weakener.", None),
        (MUCR_OPTIONS, "I initially thought Option 2, but Option 4 shows the dog: Option 3.", None),
        (HYPOTHESES, "I first thought image 1, but the road is wet.", None),
        (LABELS, "I initially thought weakener, and I still do.", "weakener"),
    ],
)
def test_a_first_thought_set_aside_then_the_answer_after_a_colon(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        # "unlikely:" as the predicate of a clause heads no rejection
        (LABELS, "The update that the street is dry makes rain unlikely: weakener.", "weakener"),
        # counter-cases: a heading opening its line or sentence still rejects
        (HYPOTHESES, "Less plausible: Image 1", 2),
        (HYPOTHESES, "More plausible: image 2. Less plausible: image 1.", 2),
        (HYPOTHESES, "- Less likely: image 2", 1),
    ],
)
def test_a_less_plausible_heading_opens_its_line_or_sentence(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Hypothesis 2: A child sits on the floor, holding an unwrapped ball-shaped present. This is less plausible "
            "because the wrapping shows a box shape. So Hypothesis 1 is the answer.",
            1,
        ),
        ("Hypothesis 2: the ball-shaped present. This is less plausible.", 1),
        # counter-cases: "This is more plausible" keeps the heading's; the rejection in a later sentence; a heading
        # alone
        (
            "Hypothesis 1: A child sits on the floor, holding an unwrapped rectangular present. This is more "
            "plausible.",
            1,
        ),
        (
            "Hypothesis 2: the ball-shaped present. The box shape matters. This is less plausible. So Hypothesis 1 is "
            "the answer.",
            None,
        ),
        ("Hypothesis 2: A child sits on the floor, holding an unwrapped ball-shaped present.", 2),
    ],
)
def test_a_heading_then_this_is_less_plausible(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Neither is certain, since the context doesn't say what is inside the box, but Hypothesis 1 is the safer "
            "bet.",
            1,
        ),
        ("Hypothesis 2 is the safest bet.", 2),
        # counter-cases: "safer" of no bet; the safer bet denied (the other of two, as "not the better choice")
        ("Neither is certain, since the context doesn't say what is inside the box, but Hypothesis 1 is safer.", None),
        ("Hypothesis 1 is not the safer bet, since the box could hold anything.", 2),
    ],
)
def test_the_safer_bet(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Hard to say without knowing whether the hypothesis happens before or after the context (a hiker with "
            "clean boots vs. the same hiker caked in mud), but I'd go with 5.",
            5.0,
        ),
        ("I would go with 6.", 6.0),
        # counter-cases: a range, a denial, a condition ("I'd go with 5, maybe 6.", a second rating offered after it,
        # reads 5 since round 66, as every writer of the form reads it: tests/scoring/test_reading_round66.py)
        ("I'd go with 5 or 6.", None),
        ("I wouldn't go with 5.", None),
        ("I'd go with 5 if the boots were clean.", None),
    ],
)
def test_a_rating_id_go_with(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('I think "police officer", though "speeding" is also a strong candidate.', 4),
        ("I think speeding, although road could also be it.", 2),
        # counter-cases: the concession states the other; it names no option (a doubt); "but", not a concession
        ("I think police officer, though speeding is more likely.", None),
        ("I think police officer, though speeding is the cue.", None),
        ("I think police officer, though I am not sure.", None),
        ("I think police officer, but speeding is also a strong candidate.", None),
    ],
)
def test_i_think_an_answer_before_a_concession_of_another(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Answer: Option 2. No wait, option 2 was the answer to the second example. For image 3 the cause is "
            "Option 1, the dog knocking over the trash can.",
            1,
        ),
        ("Option 3 was the answer to Example 1. For the question, the cause is Option 4.", 4),
        # counter-case: no example named after it
        ("Answer: Option 2. No wait, option 2 was the answer. The cause is Option 1.", None),
    ],
)
def test_an_option_that_was_the_answer_to_an_example(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected
