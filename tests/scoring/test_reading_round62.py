"""Reading round 62 (batch BR): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
SEPARATE = nleye_hooks.TRIPLET_ANSWER
COMBINED = nleye_hooks.TRIPLET_COMBINED_ANSWER
PRESENTS = nleye_hooks.triplet_text_answer(
    {
        "shown_descriptions": [
            "A child sits on the floor, holding an unwrapped rectangular present.",
            "A child sits on the floor, holding an unwrapped ball-shaped present.",
        ]
    }
)
RATING = Score(1, 10)
PAIRS = Score(
    1,
    10,
    {
        "not plausible at all": 1,
        "slightly plausible": 3,
        "moderately plausible": 5,
        "very plausible": 7,
        "almost necessarily plausible": 10,
    },
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Answer: 1. The context shows a leaking pipe under a kitchen sink with a bucket underneath, and the "
            "plumber arriving with a toolbox in hypothesis 2 makes it the more plausible scenario, whereas hypothesis "
            "1 shows a newly renovated kitchen.",
            None,
        ),
        ("The plumber with a toolbox in hypothesis 2 makes it the more plausible scenario.", 2),
        # counter-cases: the same answer; "makes it less plausible", no statement of the other
        ("Answer: 2. The plumber with a toolbox in hypothesis 2 makes it the more plausible scenario.", 2),
        ("Answer: 1. The plumber in hypothesis 2 makes it less plausible.", 1),
    ],
)
def test_what_an_option_shows_makes_it_the_more_plausible(answer, expected):
    assert SEPARATE.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            MUCR_OPTIONS,
            "1. The cause image depicts a woman dropping her phone into a swimming pool.\n2. Possible effects include "
            "a broken phone, a wet phone drying in rice, or\n3. Looking at the options, Option 1",
            None,
        ),
        (MUCR_OPTIONS, "Looking at the options, Option 1", None),
        (SPEEDING, "In the first image, a blue car", None),
        # counter-cases: the sentence finished; a statement after the opening phrase; a heading's colon; a verb
        (MUCR_OPTIONS, "Looking at the options, Option 3.", 3),
        (MUCR_OPTIONS, "Looking at the options, Option 1 fits.", 1),
        (MUCR_OPTIONS, "Looking at the options, the answer is Option 1", 1),
        (MUCR_OPTIONS, "Looking at the options: Option 1", 1),
        (SPEEDING, "In the first image, a blue car speeds.", 1),
        (SPEEDING, "The car", 1),
    ],
)
def test_a_reply_cut_off_before_its_verb(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "It's hard to say, but I'd guess 2. The context shows a group of people holding umbrellas, and the right "
            "panel shows dark clouds gathering.",
            2,
        ),
        (
            "Neither of the hypothesis images seems right to me - the context shows a snow-covered car, while the "
            "middle shows a car wash and the right shows the car in a garage. If forced to, I'd still say the right "
            "one, since a garage could be where the snow melts later.",
            2,
        ),
        # counter-cases: a guess between two; a guess asked; two offered after it
        ("I'd guess 2 or 1.", None),
        ("I'd guess maybe 2?", None),
        ("Hard to say. I'd guess 2, or maybe 1.", None),
    ],
)
def test_an_answer_guessed(answer, expected):
    assert COMBINED.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Ball-shaped.", 2),
        ("ball-shaped", 2),
        ("Rectangular.", 1),
        # counter-cases: a question; a compound no option has, which typos do not reach ("well-shaped")
        ("Ball-shaped?", None),
        ("Well-shaped.", None),
    ],
)
def test_a_hyphenated_word_of_one_option_alone(answer, expected):
    assert PRESENTS.read(answer) == expected


def test_a_hyphenated_word_of_no_option_alone():
    assert SPEEDING.read("Police-officer.") is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "妥当性はかなり高いと思います（7点）。文脈画像では道路に水たまりができており、仮説画像では激しい雨が降っているため、時間的に"
            "前の出来事として自然です。",
            7.0,
        ),
        ("評価は7点です。", 7.0),
        # counter-cases: a scale ("7 of 10 points"); a bound ("7 points or more")
        ("妥当性は高い（10点満点中7点）。", None),
        ("（7点以上）", None),
    ],
)
def test_japanese_points_in_parentheses(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Somewhere between slightly and moderately plausible - I'll go with moderately plausible. The hypothesis "
            "shows a dog digging, and the context shows a hole under the fence.",
            5.0,
        ),
        ("Between slightly and moderately plausible. I'd say slightly plausible.", 3.0),
        # counter-cases: another offered after a comma; another named after it; the range alone
        ("I'll go with moderately plausible, maybe very plausible.", None),
        ("Slightly plausible? I'll go with moderately plausible. Or very plausible.", None),
        ("Somewhere between slightly and moderately plausible.", None),
    ],
)
def test_a_scale_word_settled_on(answer, expected):
    assert PAIRS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Option 1 does not show the cause; neither does option 2 or option 4. The remaining candidate, showing a "
            "toddler with a permanent marker, is the cause of the scribbles on the wall.",
            3,
        ),
        # the three denied leave the fourth, as "Option 1 does not show the cause, nor does option 2, nor does option
        # 4." read before
        ("Option 1 does not show the cause; neither does option 2 or option 4.", 3),
        ("Options 1, 2 and 4 do not show the cause. The remaining candidate, showing a toddler, is the cause.", 3),
        # counter-cases: two offered, not denied; the remaining one denied its role; not every other one eliminated
        ("Option 2 or option 4.", None),
        ("Option 1 shows the cause; so does option 2 or option 4.", None),
        ("Options 1, 2 and 4 do not show the cause. The remaining candidate, with a toddler, isn't the cause.", None),
        ("Options 1 and 2 do not show the cause. The remaining candidate, showing a toddler, is the cause.", None),
    ],
)
def test_options_denied_together_and_the_remaining_one(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "2\nOption 1: a sunny beach - unrelated.\nOption 2: a sunburned person - direct effect of the cause (lying "
            "in the sun for hours).\nOption 3: an umbrella.\nOption 4: a swimming pool.",
            2,
        ),
        # counter-cases: another answer alone on the last line; the headings alone
        (
            "2\nOption 1: a sunny beach.\nOption 2: a sunburned person.\nOption 3: an umbrella.\nOption 4: a swimming "
            "pool.\n4",
            None,
        ),
        ("Option 1: a sunny beach.\nOption 2: a sunburned person.\nOption 3: an umbrella.\nOption 4: a pool.", None),
    ],
)
def test_an_answer_alone_on_the_first_line_before_headings(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Looking at the effect image, the toast is burnt black. Option 1 shows someone making a sandwich, Option 2 "
            "shows a toaster with its dial turned to maximum, Option 3 shows a loaf of bread, and Option 4 shows a "
            "butter dish. The cause is the toaster set too high.",
            2,
        ),
        # counter-case: the words of two options' descriptions, as the rule's "..., so the cause is the ball." (none)
        (
            "Option 1: A boy kicking a ball.\nOption 2: A dog chasing a ball.\nOption 3: A cat sleeping.\nOption 4: A "
            "thunderstorm.\nThe vase lies next to a ball. The cause is the ball.",
            None,
        ),
    ],
)
def test_the_answer_described_in_a_last_sentence_of_its_own(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The cause image shows a toddler with a box of crayons next to a white wall. Option 1 shows a toddler "
            "asleep, Option 2 shows a box of new crayons, Option 3 shows the wall covered in colorful scribbles, and "
            "Option 4 shows a painter. The step-by-step analysis points to Option 3 as the effect. However, I am not "
            "fully certain because the images are small.",
            3,
        ),
        # counter-case: the role of something else ("as the effect of the crayons")
        (
            "Option 1 shows a toddler asleep, Option 3 shows the wall. The analysis points to Option 3 as the effect "
            "of the crayons.",
            None,
        ),
    ],
)
def test_what_the_reasoning_points_to_as_the_role(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The cause shows a woman dropping a bag of flour from a high shelf. Option 1 shows her baking, which is "
            "before, not after. Option 3 shows an empty shelf, and Option 2 shows the flour perfectly sealed. So "
            "neither Option 1 nor Option 3 fits, and Option 2 shows the opposite. Hence Option 4, the kitchen covered "
            "in a white cloud of flour.",
            4,
        ),
        ("Option 2 shows the flour sealed. So Option 4, the kitchen covered in flour.", 4),
        # counter-cases: a clause after the comma; another option after it
        ("Option 2 shows the flour sealed. Hence Option 4, the kitchen is covered in flour.", None),
        ("Option 2 shows the flour sealed. Hence Option 4, the kitchen, or Option 2.", None),
    ],
)
def test_an_answer_after_hence_and_what_it_shows(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The cause is a car, and the effect is a police officer writing a ticket. The cue is speeding.", 2),
        # counter-cases: the role alone, as before; the roles two sentences before the cue
        ("The cause is a car.", 1),
        ("The cause is a car. The effect is a police officer. The cue is speeding.", None),
    ],
)
def test_the_roles_before_the_cue_in_the_next_sentence(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        # left unread: a bare number as a clause's subject after an opening phrase (no named option); two options
        # given the two roles (ROLES_PAIRED's); a bare image count on the split prompt (the policy's); an option's text
        # or the number's explanation in another language (round 36's); "X, maybe Y" (writers split)
        (
            SEPARATE,
            "Hypothesis 1 shows a wet umbrella drying by the front door, and hypothesis 2 shows a sunny window with a "
            "dry umbrella in the stand. The context shows a person pulling off muddy rain boots in the hallway. "
            "Comparing them, 1 aligns with the rainy weather, so it is more plausible.",
        ),
        (
            MUCR_OPTIONS,
            "Option 4 is the effect, not the cause. Option 1 shows the cause: a farmer spraying pesticide, which "
            "explains the dead bees in the effect image.",
        ),
        (
            MUCR_OPTIONS,
            "The third image shows the effect: the lake covered in cracked, thinning ice after the warm spell in the "
            "first image.",
        ),
        (SPEEDING, "答案是超速。原因图中的汽车在限速路段飞驰，结果图中司机收到了罚单。"),
        (
            SPEEDING,
            'La respuesta es "exceso de velocidad" (2): el coche va demasiado rápido en la imagen de causa y en la de '
            "efecto tiene un accidente.",
        ),
        (SPEEDING, "Đáp án: 4 (cảnh sát)"),
        # ("Score: 5, maybe 6.", left unread here, reads 5 since round 66: tests/scoring/test_reading_round66.py)
    ],
)
def test_left_unread(kind, answer):
    assert kind.read(answer) is None
