"""Reading round 68 (batch BX): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve_hooks
from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice

MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
PANELS = nleye_hooks.TRIPLET_COMBINED_ANSWER
PRESENTS = nleye_hooks.triplet_text_answer(
    {
        "shown_descriptions": [
            "A child sits on the floor, holding an unwrapped rectangular present.",
            "A child sits on the floor, holding an unwrapped ball-shaped present.",
        ]
    }
)
LABELS = dve_hooks.LABEL
SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Option 4, Option 2", None),
        ("Option 4, Option 2.", None),
        ("The effect is Option 4, Option 2.", None),
        # counter-cases: one option named twice; an option and its own text; an option's text and its number
        ("Option 4, Option 4", 4),
        ("Option 4, the flooded basement.\nOption 4 shows the effect.", 4),
    ],
)
def test_two_options_named_side_by_side(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Option 2, speeding", 2),
        ("The cue is 2, speeding.", 2),
        ("Actually, speeding, 2.", 2),
    ],
)
def test_an_option_and_its_own_text_after_a_comma_keep_their_reading(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "If the context happens before: the child unwraps the rectangular box → hypothesis 1. If the context "
            "happens after: the child could have been holding either present and then wrapped it again, so",
            None,
        ),
        (
            "If the context happens before: hypothesis 1. If it happens after, the child could have wrapped the ball "
            "again.",
            None,
        ),
        # counter-cases: one case alone; an answer stated after the cases; conditions inside the reasoning, no case
        # heading
        ("If the context happens before: the child unwraps the rectangular box → hypothesis 1.", 1),
        (
            "If the context happens before: hypothesis 1. If it happens after: hypothesis 2. Overall, hypothesis 1 is "
            "more plausible.",
            1,
        ),
        (
            "If the box was rectangular, hypothesis 1 fits. If it held a ball, the paper would be round, so hypothesis "
            "1 is more plausible.",
            1,
        ),
    ],
)
def test_an_answer_for_each_case_headed_by_its_condition(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Following the examples, the answer is Option 1 for Example 1, Option 2 for Example 2, and Option 3 for "
            "the question.",
            3,
        ),
        ("Option 1 for Example 1 and Option 3 for the question.", 3),
        # counter-cases: the examples' answers alone; without them, others said to fit (round 44's); two offered for
        # the question
        ("Option 1 for Example 1, Option 2 for Example 2.", None),
        ("Option 4 for the question. (For reference, Option 1 and Option 2 fit too.)", None),
        ("Option 2 or Option 3 for the question.", None),
        ("Option 2 and Option 3 for the question.", None),
    ],
)
def test_the_question_s_answer_after_the_examples(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Example 1's answer was attack and Example 2's answer was attack. For the question: 2 (speeding) — the "
            "car in the cause image is moving very fast and the effect shows the crash.",
            2,
        ),
        ("For the question: speeding.", 2),
        # counter-cases: two offered; the question heading a description
        ("For the question: 2 or 4.", None),
        ("For the question: the first image shows a car, 2", None),
    ],
)
def test_the_question_heading_its_answer(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Based on the image, the answer is Option 1. However, looking at it again, Option 1 shows the same person "
            "before the accident, so the correct effect is Option 3.",
            3,
        ),
        ("The answer is Option 1. Looking at the options again, Option 3.", 3),
        # counter-cases: the answer kept after looking again; a doubt after it
        ("The answer is Option 1. Looking at it again, Option 1 is still the effect.", 1),
        ("The answer is Option 1. Looking at them again, I'm not sure.", None),
    ],
)
def test_looking_at_it_again_corrects(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "| Option | Relation to cause |\n|---|---|\n| 1 | unrelated |\n| 2 | unrelated |\n| 3 | effect: flooded "
            "basement |\n| 4 | unrelated |",
            3,
        ),
        # counter-cases: every option unrelated; two left; unrelated to something in prose
        (
            "| Option | Relation |\n|---|---|\n| 1 | unrelated |\n| 2 | unrelated |\n| 3 | unrelated |\n| 4 | "
            "unrelated |",
            None,
        ),
        (
            "| Option | Relation |\n|---|---|\n| 1 | unrelated |\n| 2 | unrelated |\n| 3 | possible effect |\n| 4 | "
            "possible effect |",
            None,
        ),
        ("Option 1, option 3 and option 4 are unrelated.", None),
    ],
)
def test_a_table_row_called_unrelated(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Middle image: a man with a sunburn. Right image: a man with a cast on his leg. Since the left image shows "
            "him lying at the beach all day, 1.",
            1,
        ),
        ("Since the right image shows the cast, 2.", 2),
        # counter-cases: a condition; two offered; another sentence after it
        ("Middle image: a man with a sunburn. Right image: a man with a cast. If he fell, 2.", None),
        (
            "Middle image: a man with a sunburn. Right image: a man with a cast on his leg. Since the left image shows "
            "him lying at the beach all day, 1 or 2.",
            None,
        ),
        (
            "Middle image: a man with a sunburn. Right image: a man with a cast on his leg. Since the left image shows "
            "him lying at the beach all day, 1. Hmm, or 2.",
            None,
        ),
    ],
)
def test_an_answer_closing_the_reply_after_its_reason(answer, expected):
    assert PANELS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The update makes the hypothesis less likely, since a toddler would not typically be driving the",
            "weakener",
        ),
        ("The update makes the hypothesis more likely, since a toddler would", "strengthener"),
        # counter-cases: "whether"; denied; the other effect after it
        ("Whether the update makes the hypothesis less likely depends on the", None),
        ("The update does not make the hypothesis less likely, since the", None),
        ("The update makes the hypothesis less likely, but it also supports the idea that the", None),
        ("The update weakens, but it also strengthens the", None),
        (
            "Both. The update strengthens one part of the hypothesis (she is outdoors) but weakens another (she is "
            "gardening).",
            None,
        ),
    ],
)
def test_the_update_as_the_subject_of_a_label_s_effect(answer, expected):
    assert LABELS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        (PRESENTS, "La hipótesis más plausible es la del regalo con forma de pelota."),
        (MUCR_OPTIONS, "The second image is the effect: the boy with a scraped knee after falling off his skateboard."),
        (MUCR_OPTIONS, "Option 3 — or possibly Option 1; they both show a wet dog."),
        (LABELS, "Not a weakener."),
    ],
)
def test_left_unread(kind, answer):
    assert kind.read(answer) is None
