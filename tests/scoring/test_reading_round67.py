"""Reading round 67 (batch BW): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
SEPARATE = Choice(2, context_images=1)
PRESENTS = nleye_hooks.triplet_text_answer(
    {
        "shown_descriptions": [
            "A child sits on the floor, holding an unwrapped rectangular present.",
            "A child sits on the floor, holding an unwrapped ball-shaped present.",
        ]
    }
)
RATING = Score(1, 10)
SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "**More plausible:** the one where the unwrapped present is rectangular.\n**Less plausible:** the one "
            "with the ball-shaped present.",
            1,
        ),
        (
            "Less plausible: the one with the ball-shaped present.\nMore plausible: the one where the unwrapped "
            "present is rectangular.",
            1,
        ),
        # counter-cases: the option named after the heading as before; the less plausible heading alone, its option's
        # words the reply's only ones
        ("**More plausible:** the ball-shaped present.\n**Less plausible:** the rectangular one.", 2),
        ("**Less plausible:** the ball-shaped present.", None),
    ],
)
def test_an_option_named_by_its_content_under_a_less_plausible_heading(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Option 2 is the cause. Looking closer, Option 4 is also the cause.", None),
        ("Option 4 is also the effect.", None),
        # counter-cases: the other denied; the answer said again in other words; a correction without "also"
        ("Option 2 is the cause. Option 4 is not also the cause.", 2),
        ("Option 2 is the cause. Option 2 is also the correct answer.", 2),
        ("Option 2 is the cause. Looking closer, Option 4 is the cause.", 4),
    ],
)
def test_another_answer_given_the_role_also(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The first image shows a car driving fast on a highway, and the second", None),
        # counter-cases: a phrase given before; no image counted; the image's count going on to the phrase
        ("Speeding (2). The first image shows a car driving fast on a highway, and the second", 2),
        ("Speeding, and the second.", 2),
        ("The first picture shows a car, and the second shows a crash: speeding (2).", 2),
    ],
)
def test_an_image_count_cut_off_at_its_ordinal(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Score: 6 — wait, given the snow on the rooftops, 8.", 8.0),
        ("Score: 6 — wait, 8.", 8.0),
        # counter-cases: the reason without a word of correction; the rating going on; no rating after the reason
        ("Score: 6 — given the snow on the rooftops, 8 would be too high.", 6.0),
        ("Score: 6 — wait, given the snow on the rooftops, 8 of the 10 details fit.", 6.0),
        ("Score: 6 — wait, given the snow on the rooftops.", 6.0),
    ],
)
def test_a_rating_corrected_after_a_reason(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I would not give it a 3.", None),
        ("I wouldn't give it a 3.", None),
        ("I'd give it a 3 or a 4.", None),
        ("A 4 or a 5 seems about right to me.", None),
        # counter-cases: the rating given; another given after the one refused; a range settled; more than refused
        ("I'd give it a 3.", 3.0),
        ("I would not give it a 3; I'd give it a 7.", 7.0),
        ("I'd give it a 3 or a 4. Score: 4", 4.0),
        ("I would not give it more than a 3.", None),
    ],
)
def test_a_rating_refused_or_offered_with_another(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I would say the image 1 or the image 2.", None),
        ("Je dirais l'image 1 ou l'image 2.", None),
        # counter-case: one named
        ("I would say the image 1.", 1),
    ],
)
def test_two_options_offered_with_their_articles(answer, expected):
    assert SEPARATE.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            SEPARATE,
            "Je dirais l'image 1 : le contexte montre une femme avec un plâtre au bras, et l'image 1 la montre en "
            "train de tomber de vélo, ce qui explique la blessure. L'image 2 (elle fait du yoga) n'a aucun lien.",
            1,
        ),
        (SEPARATE, "Je dirais l'image 2.", 2),
        (
            PRESENTS,
            "L'ipotesi più plausibile è la seconda: il bambino potrebbe aver ricevuto una palla, anche se era "
            "incartata dentro una scatola rettangolare.",
            2,
        ),
        (PRESENTS, "The more plausible hypothesis is the first: the box is rectangular.", 1),
        # counter-cases: the less plausible one; ordinals heading a list
        (PRESENTS, "L'ipotesi meno plausibile è la seconda: una palla.", None),
        (PRESENTS, "The second: a ball. The first: a box.", None),
    ],
)
def test_answers_of_other_languages(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The second phrase — the car in the first image is going well over the limit, and the second image shows "
            "the result.",
            2,
        ),
        ("Speeding — the police officer in the second image is writing a ticket.", 2),
        # counter-cases: the option's text given the role; no phrase besides it
        ("The second phrase — the car in the first image is the cue.", None),
        ("The car in the first image is going too fast.", None),
    ],
)
def test_an_option_text_doing_something_after_a_dash(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        (MUCR_OPTIONS, "The leftmost of the four options shows the cause: a toddler pulling on the tablecloth."),
        (MUCR_OPTIONS, "The third image shows the effect: the milk has boiled over and burnt onto the stovetop."),
    ],
)
def test_left_unread(kind, answer):
    assert kind.read(answer) is None
