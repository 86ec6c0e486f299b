"""Reading round 69 (batch BY): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice

MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
TWO_IMAGES = nleye_hooks.TRIPLET_ANSWER
PANELS = nleye_hooks.TRIPLET_COMBINED_ANSWER
TWO_TEXTS = nleye_hooks.TRIPLET_TEXT_ANSWER
SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Option 4. Hmm, actually Option 4 is unrelated; the scene graph relation 'man - drops - cup' points to "
            "Option 2, the broken cup.",
            2,
        ),
        ("Option 4. Actually, Option 4 is wrong; the relation points to Option 2.", 2),
        ("Option 4. Actually, Option 4 is unrelated.", None),
        ("Option 4 is unrelated.", None),
        ("Option 4 is irrelevant.", None),
        # counter-cases: another option rejected after the correction keeps the answer; a correction to an answer;
        # options eliminated before the one kept
        ("Option 4. Actually, Option 2 is unrelated; Option 4 stands.", 4),
        ("Option 4. Hmm, actually Option 2 is unrelated; the relation points to Option 4.", 4),
        ("Option 4. Actually, Option 2 is unrelated.", 4),
        ("Option 4. Actually Option 2.", 2),
        ("Option 1, Option 3 and Option 4 are unrelated; Option 2 shows the burst pipe.", 2),
        # round 65's guard kept by an option left out (verdict_rules.VERDICTS); round 65's "That leaves" still picks
        ("Option 1 is unrelated. That leaves Option 3 out.", None),
        ("Option 1 is unrelated. That leaves Option 3, a broken window.", 3),
    ],
)
def test_an_answer_taken_back_after_a_self_correction(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (TWO_IMAGES, "I would not say image 1.", None),
        (TWO_IMAGES, "I wouldn't say image 1.", None),
        (TWO_IMAGES, "I'd not say image 1.", None),
        (TWO_IMAGES, "Je ne dirais pas l'image 1.", None),
        (TWO_TEXTS, "I would not say hypothesis 1.", None),
        (MUCR_OPTIONS, "I would not say Option 2.", None),
        # counter-cases: a pick after it; the answer said; another said after it; round 51's French guard
        (TWO_IMAGES, "I would not say image 1; image 2 is more plausible.", 2),
        (TWO_IMAGES, "Je ne dirais pas l'image 1 ; l'image 2 est plus plausible.", 2),
        (TWO_IMAGES, "I would say image 1.", 1),
        (TWO_IMAGES, "Je dirais l'image 1.", 1),
        (TWO_IMAGES, "I would not say image 1, I would say image 2.", 2),
        (TWO_IMAGES, "Je ne dirais pas la 2.", None),
        (MUCR_OPTIONS, "I would say Option 2.", 2),
    ],
)
def test_a_choice_the_reply_would_not_say(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            TWO_IMAGES,
            "Equally plausible at first sight, but on balance hypothesis 1 wins: the muddy boots by the door match the "
            "rainy hike in the context better than the clean sneakers in hypothesis 2.",
            1,
        ),
        (
            TWO_TEXTS,
            "Equally plausible at first glance, since both describe an unwrapped present, but the rectangular box in "
            "the context tips it: 1.",
            1,
        ),
        # counter-cases: a win the clause turns from after "but"; two answers after the colon
        (TWO_IMAGES, "Hypothesis 1 wins at first sight, but hypothesis 2 fits better.", 2),
        (TWO_TEXTS, "Equally plausible at first glance, but the box tips it: 1 or 2.", None),
    ],
)
def test_the_answer_that_wins_or_tips_it(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "1. Car — actually, the car itself isn't the cue; what links the images is that it was going too fast. "
            "So 2, speeding.",
            2,
        ),
        ("So 2, speeding.", 2),
        # counter-case: two answers after "So"
        ("So 2 or 4.", None),
    ],
)
def test_an_answer_alone_after_so(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Sağdaki görüntü daha makul: soldaki bağlam görüntüsünde bir kadın fırına pasta koyuyor, sağdaki "
            "görüntüde ise pasta masada dilimlenmiş duruyor.",
            2,
        ),
        ("Ortadaki görüntü daha makul.", 1),
        # counter-cases: the comparison denied; the context panel
        ("Sağdaki görüntü daha makul değil.", 1),
        ("Soldaki görüntü daha makul.", None),
    ],
)
def test_turkish_panel_positions(answer, expected):
    assert PANELS.read(answer) == expected
