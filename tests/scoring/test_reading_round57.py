"""Reading round 57 (batch BM): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
TWO_IMAGES = nleye_hooks.TRIPLET_ANSWER
RATING = Score(1, 10)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Option 2 (Option 4 in the image) shows the effect: the cause image shows a balloon being pricked.", None),
        ("Option 3 (the first option in the image) is the cause: the effect image shows a broken arm.", None),
        # the parenthesis names the option itself by the image's numbering, or names no option
        ("Option 4 (Option 4 in the image) shows the effect: the balloon burst into pieces.", 4),
        ("Option 2 (shown in the image) shows the effect: the balloon burst into pieces.", 2),
        ("Option 2 (Option 4 in the image) shows the effect. Final answer: 2", None),
    ],
)
def test_an_option_explained_by_the_images_own_numbering(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The answer is 3. A concert also follows tuning, so Option 1 is an effect too. Final answer: 3 and 1",
            None,
        ),
        ("The answer is 3. Final answer: 3 or 1.", None),
        ("The answer is 3. Final answer: **Option 3 and Option 1**", None),
        # counter-cases: the two not ending the heading's clause, a later statement settling on one, a dash before the
        # one settled on
        ("The answer is 3. Final answer: 3 and 1 is wrong, so 3.", 3),
        ("The answer is 3. Final answer: 3 and 1. On reflection, the answer is 3.", 3),
        ("The answer is 3. Final answer: 3 or 1 — I'll pick 3.", 3),
        ("The answer is 3. Final answer: 3", 3),
    ],
)
def test_a_closing_heading_that_names_two_answers(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Based on the scene graph (1), Option 1 is the answer. However, the image suggests Option 3 as well, since "
            "the cause shows a person dropping a lit match in dry grass and both a small flame and a big grass fire "
            "are shown.",
            None,
        ),
        ("Option 2 is the answer, but the picture points to Option 4 too.", None),
        # counter-cases: the same option; "as well as"; set aside after it; a later answer
        ("Option 1 is the answer. However, the image suggests Option 1 as well, since it shows a fire.", 1),
        ("Option 1 is the answer. However, the image suggests Option 3 as well, but Option 3 shows only a spark.", 1),
        ("Option 1 is the answer. The image suggests Option 3 as well as a fire.", 1),
        ("Option 1 is the answer. However, the image suggests Option 3 as well. Final answer: 3", 3),
    ],
)
def test_another_option_conceded_beside_the_answer(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I would put this at 6 on the scale, since it's reasonably likely but not guaranteed.", 6.0),
        ("I'd put it at 4 on this scale.", 4.0),
        # counter-case: a scale of something else
        ("I would put this at 6 on the scale of a skeptic.", None),
    ],
)
def test_a_rating_put_on_the_scale(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "4, since the police officer in the second image... no wait, the officer is only in the effect; the real "
            "cause is the car going too fast in the first image. The cue is 2.",
            2,
        ),
        ("The real cause is the car going too fast in the first image. The cue is 2.", 2),
        # counter-cases: the text itself the answer; a noun in -ing after it
        ("The real cause is the car going too fast. The cue is the car.", 1),
        ("The cue is the car.", 1),
        ("The cue is the road.", 3),
    ],
)
def test_an_option_text_as_the_subject_of_a_participle(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Option 1 shows the effect: the first image shows a man hammering a nail without looking, and Option 1 "
            "shows him holding his swollen thumb.",
            1,
        ),
        # counter-cases: the colon before an image alone, or after the role with no option said to show it
        ("Option 1 shows the effect: the first image.", None),
        ("Effect: the first image shows a man hammering a nail.", None),
        ("The image that shows the effect is Option 3.", 3),
    ],
)
def test_the_role_an_option_shows_then_a_colon_and_what_another_image_shows(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "I think 2. The context shows a mountain climber at the base camp, and 2 shows him at the summit with a "
            "flag; the other one shows him in an office. Summit follows base camp.",
            2,
        ),
        ("I think 1.", 1),
        # counter-cases: a count of something; another offered; not opening the reply; a closing answer against it
        ("I think 2 of them fit.", None),
        ("I think 2, or maybe 1.", None),
        ("I think 2. Final answer: 1", None),
    ],
)
def test_a_bare_number_thought_opening_the_reply(answer, expected):
    assert TWO_IMAGES.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The pattern in the examples goes Option 1, then Option 2, so the question's answer should be Option 3. "
            "But looking at image 3 itself, the effect shows a bent bicycle wheel and only Option 4 shows the bike "
            "hitting a curb, so I'll answer Option 4 instead of following the pattern.",
            4,
        ),
        ("The answer should be Option 3, so I'll pick Option 4 instead.", 4),
        # counter-cases: without "instead", two answers; another offered after it
        ("The answer should be Option 3. But Option 4 shows the curb, so I'll answer Option 4.", None),
        ("The answer is Option 3. I'll answer Option 4 instead of 3, or maybe 2.", None),
    ],
)
def test_the_answer_given_instead(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected
