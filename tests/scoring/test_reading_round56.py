"""Reading round 56 (batch BL): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
TWO_IMAGES = nleye_hooks.TRIPLET_ANSWER


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Option 1 is the cause, since the third option shows the lightning storm that knocked out the power.", None),
        ("Option 2 is the cause, because Option 4 shows a fallen tree that blocked the road to the plant.", None),
        # the reason's option is the answer's own
        ("Option 3 is the cause, since the third option shows the lightning storm that knocked out the power.", 3),
        # counter-cases: what the other option shows said otherwise (the same scene, a thing it did not do, what it
        # could have done, the role's own picture), or in a sentence of its own
        ("Option 1 is the cause, since Option 3 shows the same storm that hit the town.", 1),
        ("Option 1 is the cause, since Option 3 shows a storm that did not reach the town.", 1),
        ("Option 1 is the cause, since Option 3 shows a storm that could have knocked out the power.", 1),
        ("Option 1 is the cause, since Option 3 shows the effect that we were given.", 1),
        ("Option 1 is the cause. Option 3 shows a lightning storm that knocked out the power.", 1),
    ],
)
def test_a_reason_in_what_another_option_shows(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("3. Speeding is what explains why the car was pulled over.", None),
        ("1. Road is what connects the crash to the ice.", None),
        # the number before its own option's text
        ("2. Speeding is what explains why the car was pulled over.", 2),
        ("4. Police officer is what links the two pictures.", 4),
        # counter-case: the text said to be something else, another option said to explain
        ("3. Speeding is what the officer saw, but the road explains it.", 3),
    ],
)
def test_a_number_before_another_phrase_said_to_be_what_explains(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Answer: Option 1 (the fourth option, a cigarette dropped on dry grass)", None),
        ("Answer: Option 2 (option 3, the flooded street)", None),
        # the option and its count agree; a count of the images that may name it
        ("Answer: Option 4 (the fourth option, a cigarette dropped on dry grass)", 4),
        ("Answer: Option 2 (the third image, counting the effect image first)", 2),
        # counter-case: the parenthesis names other options after the comma, not the answer's explanation
        ("Answer: Option 2 (1, 3 and 4 show unrelated scenes)", 2),
    ],
)
def test_an_option_explained_in_parentheses_with_its_words_after_a_comma(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "I'd say the second image is more plausible. The context shows a man jogging in the park at dawn, and the "
            "second image shows him stretching on a bench, sweaty, while the first shows him asleep in bed.",
            2,
        ),
        ("The second image is more plausible. The context shows a wet dog, and the first one shows it on a sofa.", 2),
        ("The first image is more plausible. The context shows a wet dog, while the first shows it in the rain.", 1),
        # counter-cases: the first shows the context; no context shown by its role; a third image counted (the count
        # goes on through the context image: the second image is hypothesis 1)
        ("The second image is more plausible. The first shows the context: a man jogging.", None),
        ("The second image is more plausible. The first shows him asleep in bed.", None),
        (
            "The second image is more plausible. The context shows a man jogging, the first shows him asleep and the "
            "third image shows him stretching.",
            1,
        ),
    ],
)
def test_the_first_held_against_the_context_its_noun_left_out(answer, expected):
    assert TWO_IMAGES.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Option 1 shows a busy supermarket; Option 2 shows dead bees on the ground near the field; Option 3 shows "
            "a tractor at sunset; Option 4 shows a rainy sky. Pesticide use is known to harm pollinators, which makes "
            "Option 2 the effect I would pick.",
            2,
        ),
        (
            "Option 1 shows a heater being installed. Option 2 shows an open window during a snowstorm, which would "
            "make the room freezing — that's the cause I'd choose. Option 3 shows a hot cup of tea.",
            2,
        ),
        ("Option 1 shows a heater. Option 2 shows an open window during a snowstorm — that's the one I'd pick.", 2),
        # counter-cases: the pick hedged ("would make"), on a condition, with another option held possible, or
        # contradicted by a closing answer; "that" after two options' descriptions names neither
        (
            "Option 1 shows a supermarket; Option 2 shows dead bees. Pesticide harms pollinators, which would make "
            "Option 2 the effect I would pick.",
            None,
        ),
        (
            "Option 1 shows a supermarket; Option 2 shows dead bees. Pesticide harms pollinators, which makes Option 2 "
            "the effect I would pick if the bees were visible.",
            None,
        ),
        (
            "Option 1 shows a supermarket; Option 2 shows dead bees. Pesticide harms pollinators, which makes Option 2 "
            "the effect I would pick, but Option 4 fits too.",
            None,
        ),
        (
            "Option 1 shows a supermarket; Option 2 shows dead bees. Pesticide harms pollinators, which makes Option 2 "
            "the effect I would pick. Final answer: 3",
            None,
        ),
        (
            "Option 1 shows a heater. Option 2 shows an open window during a snowstorm — that's the cause I'd choose "
            "if the window were open.",
            None,
        ),
        (
            "Option 1 shows a heater. Option 2 shows an open window during a snowstorm, and Option 3 shows a draft — "
            "that's the cause I'd choose.",
            None,
        ),
    ],
)
def test_the_one_the_reply_would_pick(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Option 3 or Option 4 — both could be effects of the snowfall. If I have to pick, the buried car in Option "
            "4 is the more immediate one.",
            4,
        ),
        ("Option 3 is the most immediate effect of the flood.", 3),
        # counter-cases: "more immediate" with no article, in a reply that goes on to hold both valid (S's); with a
        # refusal after it
        (
            "Both Option 2 and Option 3 could be effects. Option 2 seems more immediate, while Option 3 is a later "
            "consequence. Both seem valid effects of the storm.",
            None,
        ),
        ("Option 3 is the more immediate one, but I cannot determine which option is the effect.", None),
    ],
)
def test_the_more_immediate_one(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "It's either 2 or 4, hard to tell from these small pictures — I'll say 2, because the officer only appears "
            "after the fact.",
            2,
        ),
        ("It's either 2 or 4 - I'll pick 4, since the officer links the two pictures.", 4),
        # counter-cases: two answers settled on; no answer after the dash; the doubt's sentence going on past the
        # answer without a dash; another held possible after it
        ("It's either 2 or 4, hard to tell — I'll say 2 or 4.", None),
        ("It's either 2 or 4, hard to tell. 2 maybe.", None),
        ("It's either 2 or 4, and I'll say 2 for now.", None),
        ("It's either 2 or 4 — I'll say 2, though 4 is possible too.", None),
    ],
)
def test_two_answers_weighed_then_one_settled_on_after_a_dash(answer, expected):
    assert SPEEDING.read(answer) == expected
