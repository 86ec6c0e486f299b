"""Reading round 55 (batch BK): each new rule reads the replies it exists for, and abstains on or keeps the readings of
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
        (
            "I would rate it a 7. Actually, since the nail is visible in both images, it's almost certain — 9.",
            9.0,
        ),
        ("Score: 4. Wait, the collar matches after all, so it is very plausible - 8.", 8.0),
        ("I'd give it a 3. On second thought, given the same scarf, it's quite likely – 6.", 6.0),
        # counter-cases: a number that goes on after the dash; the scale's words as a range; no word of correction
        # opening the sentence; a second rating offered after it
        (
            "I would rate it a 7. Actually, since the nail is visible, it is almost certain — 9 of 10 would agree.",
            7.0,
        ),
        ("I would rate it a 7. Actually, it is between moderately plausible - 5 and very plausible - 8.", 7.0),
        ("The nail is visible, so it is almost certain - 9.", None),
        ("I would rate it a 7. Actually, since the nail is visible, it is almost certain — 9, or maybe 8.", None),
    ],
)
def test_a_rating_a_correction_turns_to_after_its_reason_and_the_scales_words(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The more plausible hypothesis is the one showing the farmer harvesting the wheat, which is hypothesis 2. "
            "The context shows bales of hay. Hypothesis 1 shows seeds being planted, which is too early.",
            2,
        ),
        (
            "The more plausible hypothesis is the one that shows the wet coat, which is hypothesis 1. Hypothesis 2 "
            "shows a sunny park.",
            1,
        ),
        (
            "The more plausible image is the one in which the dog is muddy, which would be image 1; image 2 shows a "
            "bath.",
            1,
        ),
        (
            "The more plausible hypothesis is the one with the open umbrella, which is shown in hypothesis 2. "
            "Hypothesis 1 shows a dry street.",
            2,
        ),
        # counter-cases: a denied name; two names offered; the less plausible one; a closing answer it contradicts
        (
            "The more plausible hypothesis is the one showing the farmer, which is hypothesis 2 or 1. Hypothesis 1 "
            "shows seeds.",
            None,
        ),
        (
            "The less plausible hypothesis is the one showing the farmer, which is hypothesis 2. Hypothesis 1 shows "
            "seeds.",
            None,
        ),
        (
            "The more plausible hypothesis is the one showing the farmer, which is hypothesis 2. Hypothesis 1 shows "
            "seeds. Final answer: 1",
            None,
        ),
    ],
)
def test_the_more_plausible_one_by_what_it_shows_then_named(answer, expected):
    assert TWO_IMAGES.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Looking at the four candidates: option 1 shows a sunny day, option 2 shows an umbrella, option 3 shows a "
            "wet dog, option 4 shows a rainbow. The cause image shows a sudden downpour, so the most direct effect is "
            "the wet dog in option 3.",
            3,
        ),
        (
            "Option 2 shows a dry lawn and Option 4 a flood. So the immediate effect is the flooded street in "
            "Option 4.",
            4,
        ),
        ("Options 1 and 3 show the party. The actual cause is the candle in Option 3.", 3),
        # counter-cases: the least likely effect and an indirect one, each before the effect named, are no picks
        (
            "Option 1 shows a sunny day. The least likely effect is the sunny day in Option 1; the effect is Option 3.",
            3,
        ),
        ("Option 2 shows an umbrella. The indirect effect is the umbrella in Option 2, and the effect is Option 3.", 3),
    ],
)
def test_the_role_with_a_word_of_its_directness(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The police officer (4) links the two: he measures the speed in the first picture and writes the ticket "
            "in the second.",
            4,
        ),
        (
            "The road (3) connects the two: the tires slip on the ice in the first image and the crash follows in the "
            "second.",
            3,
        ),
        # counter-cases: no image counted, "in the second" names the phrase; an ordinal that stands alone
        ("The answer is in the second.", 2),
        ("The second. Speeding is what the officer stops the driver for.", 2),
    ],
)
def test_a_place_counted_alone_continues_the_image_count(answer, expected):
    assert SPEEDING.read(answer) == expected
