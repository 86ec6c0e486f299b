"""Reading round 53 (batch BI): each new rule reads the replies it exists for, and abstains on or keeps the readings of
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
    ("answer", "expected"),
    [
        ("The effect image is the third picture, where the lawn is flooded.", None),
        ("The cause image is the second picture: the boy kicking a ball at the window.", None),
        # counter-cases: the context image counted as the first, the answer named as an option, the count from the left
        ("The cause image is the first picture; the effect is Option 3, the flooded lawn.", 3),
        ("The cause image is the fourth picture (Option 3), the burnt toast.", 3),
        ("The effect image is the third picture from the left: the flooded lawn.", 2),
    ],
)
def test_the_answers_role_counted_among_the_pictures_is_a_picture_count(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (MUCR_OPTIONS, "I'm not able to use the scene graph because it only lists option 2.", None),
        (MUCR_OPTIONS, "I cannot answer this because option 2 and option 3 look identical.", None),
        (MUCR_OPTIONS, "I am unable to pick one since the scene graph only mentions option 4.", None),
        (TWO_IMAGES, "I can't compare them, since image 2 did not load.", None),
        # counter-cases: an answer stated before the refusal, "but" going on to a pick, a pick after it, not sure
        (MUCR_OPTIONS, "Answer: 3. I cannot use the scene graph because it only names option 1.", 3),
        (MUCR_OPTIONS, "I cannot tell for sure since both images are dark, but I'd go with option 3.", 3),
        (
            MUCR_OPTIONS,
            "I couldn't open the scene graph since it was empty, so I went by the images: Option 2 shows the effect.",
            2,
        ),
        (MUCR_OPTIONS, "I can't be certain because option 2 is blurry, but option 2 shows the flood.", 2),
    ],
)
def test_an_answer_named_in_the_reason_of_a_refusal_is_no_answer(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The second image is more plausible: the first image contradicts the context, as he is indoors.", 2),
        ("The second image is more plausible. The first image shows a man asleep, which does not fit the context.", 2),
        # counter-cases: the first image not held up against the context, or the context itself
        ("The second image is more plausible.", None),
        ("The second image is more plausible. The first image sets the scene on a pier.", None),
        ("The second image is more plausible. The first image shows the context: a man fishing.", None),
        (
            "The second image is more plausible. The first image is the context, and the second image fits the "
            "context.",
            1,
        ),
    ],
)
def test_the_first_image_held_up_against_the_context_counts_the_options(answer, expected):
    assert TWO_IMAGES.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Hypothesis 1 shows a boy with an umbrella; hypothesis 2 shows a boy soaking wet. The one with the "
            "umbrella is more plausible.",
            1,
        ),
        (
            "Hypothesis 1 shows a boy with an umbrella; hypothesis 2 shows a boy soaking wet. The one where the boy is "
            "soaking wet seems more plausible, since there is no shelter.",
            2,
        ),
        # counter-case: words both descriptions share
        (
            "Hypothesis 1 shows a boy with a red umbrella; hypothesis 2 shows a boy with a blue umbrella. The one with "
            "the umbrella is more plausible.",
            None,
        ),
    ],
)
def test_the_one_named_by_the_replys_own_description(answer, expected):
    assert TWO_IMAGES.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("A – the first hypothesis (rectangular present).", 1),
        ("The second hypothesis (ball-shaped present) is more plausible.", 2),
        ("C – Option 3, the flooded lawn.", 3),
        # counter-cases: a letter, a number or a parenthesis that names the other hypothesis; words both share
        ("A – the second hypothesis (ball-shaped present).", None),
        ("Hypothesis 1 – the second hypothesis (the ball).", None),
        ("The first hypothesis (ball-shaped present) is more plausible.", None),
        ("C – Option 2, the flooded lawn.", None),
    ],
)
def test_a_letter_before_a_dash_and_a_parenthesis_in_a_hypothesiss_own_words(answer, expected):
    kind = MUCR_OPTIONS if "Option" in answer else PRESENTS
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The road (3) is only the background, but the causal link is the speeding (2).", 2),
        ("The road is in both images, but the link is speeding: the car went too fast.", 2),
        # counter-cases: two named after it, a number its own text contradicts
        ("The car (1) is present in both images, but the causal link is the speeding (2) or the road (3).", None),
        ("The car (1) is present in both images, but the causal link is the speeding (3): it went too fast.", None),
    ],
)
def test_the_link_after_but(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Somewhere between 6 and 7; I would settle on 6.", 6.0),
        ("The plausibility is between 4 and 5; I'd settle on 5, as the girl is older.", 5.0),
        # counter-case: a range and nothing settled
        ("Between 6 and 7, I'd say.", None),
    ],
)
def test_id_settle_on_settles_a_range(answer, expected):
    assert RATING.read(answer) == expected
