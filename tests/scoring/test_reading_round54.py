"""Reading round 54 (batch BJ): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
TWO_IMAGES = nleye_hooks.TRIPLET_ANSWER
PRESENTS = Choice(
    2,
    option_texts=(
        "A child sits on the floor, holding an unwrapped rectangular present.",
        "A child sits on the floor, holding an unwrapped ball-shaped present.",
    ),
)
RATING = Score(1, 10)


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (TWO_IMAGES, "Neither hypothesis follows from the context; the first hypothesis shows a beach game.", None),
        (TWO_IMAGES, "Neither of the two images fits the context. The second one shows a supermarket.", None),
        (TWO_IMAGES, "Neither one matches the fire. The first hypothesis shows a dog.", None),
        (MUCR_OPTIONS, "Neither option makes sense here; Option 2 shows a kitchen.", None),
        # counter-cases: neither of two named, then a pick; a choice after "but"; "neither" after the options it rejects
        (
            TWO_IMAGES,
            "Neither the first nor the third image is the answer; the second hypothesis is more plausible.",
            2,
        ),
        (TWO_IMAGES, "Neither hypothesis is perfect, but hypothesis 2 comes closest.", 2),
        (TWO_IMAGES, "Hypothesis 2 is more plausible. Neither hypothesis shows the fire itself.", 2),
        (MUCR_OPTIONS, "Not Option 1 and not Option 2: neither shows the cause. The cause is Option 3.", 3),
        (SPEEDING, "Neither the car (1) nor the road (3) is the link; it's speeding (2).", 2),
    ],
)
def test_neither_of_the_answers_said_to_fit_is_no_answer(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (TWO_IMAGES, "The less plausible one is hypothesis 1. Hypothesis 2, with the short neat cut, matches.", 2),
        (TWO_IMAGES, "The least likely of the two is image 2, since the street is dry.", 1),
        (PRESENTS, "The less plausible hypothesis is hypothesis 2: the box is rectangular.", 1),
        # counter-cases: of four options the others stay open; a detail, no hypothesis
        (MUCR_OPTIONS, "The less plausible one is Option 1.", None),
        (MUCR_OPTIONS, "The least likely of the four is Option 2, and Option 3 shows the flood.", 3),
    ],
)
def test_the_less_plausible_one_named(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "La hipótesis 2 es más plausible: muchos juguetes redondos, como pelotas, se venden en cajas "
            "rectangulares.",
            2,
        ),
        ("La hipótesis 1 es más plausible: la caja es rectangular.", 1),
        # counter-case: the reason in English, in the other's own words
        ("Hypothesis 2 is more plausible: round toys are often sold in rectangular boxes.", None),
    ],
)
def test_a_reason_in_another_language_names_no_options_words(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Moderately plausible – 5. He might have caught the frog, but not with the rod.", 5.0),
        ("Very plausible - 8. The same dog, the same collar.", 8.0),
        ("Almost necessarily plausible — 10.", 10.0),
        # counter-cases: the scale restated; not opening the reply
        ("Moderately plausible - 5, very plausible - 7.", None),
        ("The frog is new. Moderately plausible - 5.", None),
    ],
)
def test_a_rating_after_the_scales_words_and_a_dash(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "| Option | Cause? |\n|---|---|\n| 1 | Unlikely – an office |\n| 2 | Unlikely – a picnic |\n"
            "| 3 | Likely – a dog chewing the wire |\n| 4 | Unlikely – a lot |",
            3,
        ),
        ("| Option | Cause? |\n|---|---|\n| 1 | Very likely |\n| 2 | Likely |\n| 3 | Unlikely |\n| 4 | Unlikely |", 1),
        # counter-cases: two rows "Likely"; an option left out
        (
            "| Option | Cause? |\n|---|---|\n| 1 | Likely – an office |\n| 2 | Unlikely – a picnic |\n"
            "| 3 | Likely – a dog chewing the wire |\n| 4 | Unlikely – a lot |",
            None,
        ),
        ("| Option | Cause? |\n|---|---|\n| 1 | Unlikely |\n| 2 | Unlikely |\n| 3 | Likely |", None),
    ],
)
def test_a_tables_one_likely_row(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "3. At first I thought the road was the link, but the radar shows 140 km/h, so the real cue is "
            "speeding: 2.",
            2,
        ),
        ("1. Hmm, the car is in both, but it explains nothing; the answer is 2, speeding.", 2),
        ("Answer: 1 (car). Hmm, no — the car is just the object. Answer: 2 (speeding)", 2),
        # counter-cases: second thoughts that keep the answer; a first thought the reply comes back to; a correction
        # that turns to two
        ("2. Hmm, the speed camera flash confirms it.", 2),
        ("Initially I thought 3, the road, and the road is indeed the link: 3.", 3),
        ("Answer: 1 (car). Hmm, no — the car is just the object. Answer: 3 (road) or 2 (speeding).", None),
    ],
)
def test_a_cue_self_correction_after_an_opening_number(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The second image is more plausible. The context shows a birthday cake, and the second image shows a gift "
            "being unwrapped. The first image shows an empty classroom.",
            2,
        ),
        ("The first image is more plausible. The context shows a flat tire; the first image shows a pump.", 1),
        # counter-cases: the first image showing the context; a third image counted; no context shown by its role
        ("The second image is more plausible. The first image shows the context: a party.", None),
        (
            "The second image is more plausible. The context shows a party; the first image shows the party, the third "
            "image shows a classroom.",
            1,
        ),
        ("The second image is more plausible. The first image shows an empty classroom.", None),
    ],
)
def test_the_context_shown_by_its_role_and_the_first_image_another_scene(answer, expected):
    assert TWO_IMAGES.read(answer) == expected
