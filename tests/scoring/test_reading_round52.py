"""Reading round 52 (batch BH): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Label, Score

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
TWO_IMAGES = nleye_hooks.TRIPLET_ANSWER
LABELS = Label(("strengthener", "weakener"))
RATING = Score(1, 10)


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            MUCR_OPTIONS,
            "I believe it's option 1 or option 3: both option 1 (smoke) and option 3 (a burnt loaf) fit.",
            None,
        ),
        (MUCR_OPTIONS, "The effect is Option 2 or Option 4.", None),
        # counter-cases: a statement after its sentence, a denial, a question, "but" going on to one of them (AL's)
        (MUCR_OPTIONS, "It's option 1 or option 3. On reflection, the answer is option 3.", 3),
        (MUCR_OPTIONS, "It's not option 1 or option 3, but option 2.", 2),
        (MUCR_OPTIONS, "Is it option 1 or option 3? The answer is option 3.", 3),
        (TWO_IMAGES, "I think the answer is 1 or 2, but more likely 2, because the door is open.", 2),
    ],
)
def test_the_answer_said_to_be_one_of_two_is_no_answer(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The effect shows a girl. Option 1 shows a puppy with paper; Option 2 shows a girl writing; Option 3", None),
        # counter-case: an answer stated before the clauses that go through the options
        ("Option 3 is the cause. Option 1 shows a puppy; Option 2 shows a girl writing; Option 3", 3),
    ],
)
def test_a_reply_cut_off_while_it_goes_through_the_options_a_clause_each(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("None of the options is a perfect match, but option 2 (the sun after rain) is the closest cause.", 2),
        # counter-case: a refusal not qualified
        ("None of the options shows the cause, but option 2 is the closest cause.", None),
        ("The cause could be option 2 or option 3. If I had to pick, I'd go with the doorbell, option 3.", 3),
        # counter-case: two options after the thing
        ("I'd go with the doorbell, option 3 or 2.", None),
        ("Option 2 or Option 4; both could cause it. On balance Option 4, because of the small handprints.", 4),
        ("On balance, Option 4 or Option 2.", None),
        ("Options 2 and 4 both show damage, but 4 (the uprooted palms) is the direct effect; 2 is the clean-up.", 4),
    ],
)
def test_a_choice_settled_on_after_two_named(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Answer: 2 or 4 (speeding / police officer) – I'll pick 2, since the officer only appears because of it.", 2),
        # counter-case: nothing picked after the dash
        ("Answer: 2 or 4 – the officer appears in the effect.", None),
        ("Speeding – the car in the first picture is going much too fast on a wet highway.", 2),
        # counter-cases: two options' texts side by side (round 50), a text explained by another ending its clause
        ("Car speeding on the road.", None),
        ("Speeding - police officer.", None),
        ("2 (speeding). The cue links cause and effect: the car in the left picture is speeding.", 2),
        ("Cause and effect: the car.", None),
    ],
)
def test_cue_replies(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "A strengthener would make the hypothesis more likely. Here the update makes it less likely, so it is a "
            "weakener.",
            "weakener",
        ),
        # counter-cases: the other label's effect argued outside the definition
        ("Weakener. The update makes the hypothesis more likely.", None),
        (
            "A weakener would make the hypothesis less likely, but here the update makes the hypothesis more likely, "
            "so it is a weakener.",
            None,
        ),
    ],
)
def test_a_labels_definition_argues_nothing(answer, expected):
    assert LABELS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Score: 5 or 6. The woman holds a briefcase, but the background is a park. I'll say 6.", 6.0),
        ("ציון: 2. האזור המסומן מראה שלט בערבית.", 2.0),
        ("คะแนน: 4", 4.0),
        # counter-case: a range and nothing settled
        ("Score: 5 or 6. The woman holds a briefcase.", None),
    ],
)
def test_ratings(answer, expected):
    assert RATING.read(answer) == expected
