"""Reading round 51 (batch BG): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The officer is only in the second image, so the link must be the car going too fast: 2.", 2),
        ("It must be the car going too fast: 2.", 2),
        ("The cue is the car going too fast: 2.", 2),
        # counter-cases: two numbers after the colon, the thing alone, a thing and its number on separate lines
        ("The link must be the car going too fast: 2 or 3.", None),
        ("It must be the car.", 1),
        ("Answer: 1\nExplanation: 2 shows nothing new.", 1),
    ],
)
def test_a_thing_an_option_names_is_the_subject_of_the_number_after_it(answer, expected):
    assert SPEEDING.read(answer) == expected
