"""Reading round 58 (batch BN): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve_hooks
from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
TWO_IMAGES = nleye_hooks.TRIPLET_ANSWER
PRESENTS = nleye_hooks.triplet_text_answer(
    {
        "shown_descriptions": [
            "A child sits on the floor, holding an unwrapped rectangular present.",
            "A child sits on the floor, holding an unwrapped ball-shaped present.",
        ]
    }
)
RATING = Score(1, 10)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Answer: 1. The hypothesis 2 image clearly shows what happened just before the context (the boy slipping "
            "on the icy step), so it is the more plausible one.",
            None,
        ),
        ("Hypothesis 2 shows the boy slipping on the icy step, so it is the more plausible one.", 2),
        # counter-cases: the answer's own option; another option named between them; a lesser quality or a denial
        ("Answer: 2. The hypothesis 2 image shows the boy slipping, so it is the more plausible one.", 2),
        ("Answer: 1. Hypothesis 1 shows a cat and hypothesis 2 a dog, so it is the more plausible one.", 1),
        ("Answer: 1. The hypothesis 2 image shows the boy slipping, so it is less plausible.", 1),
        ("Answer: 1. The hypothesis 2 image shows the boy slipping, so it is not the more plausible one.", 1),
    ],
)
def test_an_option_referred_to_after_so_as_the_more_plausible(answer, expected):
    assert TWO_IMAGES.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Hypothesis 1 is more plausible. Actually, on reflection, hypothesis 2 explains the open window just as "
            "well. Both explanations work, really.",
            None,
        ),
        ("Hypothesis 1 is more plausible, and hypothesis 2 fits it equally well.", None),
        # counter-cases: a statement after its sentence; denied; conceded after "though"; a comparison going on
        (
            "Hypothesis 1 is more plausible. Actually, on reflection, hypothesis 2 explains the open window just as "
            "well. Still, hypothesis 1 is more plausible.",
            1,
        ),
        ("Hypothesis 1 is more plausible; hypothesis 2 does not explain the open window just as well.", 1),
        ("Hypothesis 1 is more plausible, though hypothesis 2 fits it equally well.", 1),
        ("Hypothesis 1 is more plausible. Hypothesis 2 explains the window just as well as a random guess.", 1),
    ],
)
def test_another_answer_said_to_explain_it_just_as_well(answer, expected):
    assert TWO_IMAGES.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Most plausible: the child holding an unwrapped ball-shaped present (hypothesis 2)? No, I think the first "
            "is more plausible. Hard to say, both work.",
            None,
        ),
        ("I think the first is more plausible. Hard to say, both hypotheses could work.", None),
        # counter-cases: the sentence going on after "but"; a statement of the answer after it
        ("I think the first is more plausible. Hard to say, both work, but the first is better.", 1),
        ("I think the first is more plausible. Hard to say, both work. Final answer: 1", 1),
        ("Hard to say, both work. The first is more plausible.", 1),
    ],
)
def test_hard_to_say_both_work(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Answer: 1 (or possibly 2, if the spilled milk came from the cat rather than the child).", 1),
        ("Answer: 1 (or possibly 2).", 1),
        # counter-cases: the other offered after a comma, or in a parenthesis not after the answer
        ("Answer: 1, or possibly 2.", None),
        ("Answer: 1. The milk (or possibly 2) is odd.", None),
    ],
)
def test_a_hedge_in_parentheses_after_the_answer(answer, expected):
    assert TWO_IMAGES.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The cue is the car (or perhaps the speeding).", 1),
        ("The cue is the car, or perhaps the speeding.", None),
    ],
)
def test_a_cue_hedged_in_parentheses(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The effect (a man with a black eye) is caused by the boxing match in Option 1, not the bar fight in "
            "Option 3, because he is wearing boxing gloves in both images.",
            1,
        ),
        # counter-cases: another option after the comma; a doubt after it; a closing answer against it
        (
            "The effect is caused by the boxing match in Option 1, not the bar fight in Option 3, or by the fall in "
            "Option 2.",
            None,
        ),
        (
            "The effect is caused by the boxing match in Option 1, not the bar fight in Option 3, but I am not sure.",
            None,
        ),
        (
            "The effect is caused by the boxing match in Option 1, not the bar fight in Option 3, because of the "
            "gloves. Final answer: 3",
            3,
        ),
    ],
)
def test_an_option_set_against_another_before_its_reason(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Skor: 9. Gambar konteks menunjukkan seorang anak basah kuyup.", 9.0),
        ("Ocena: 8. Obraz hipotezy pokazuje, jak chłopiec kopie piłkę.", 8.0),
        ("Ik geef het een 5 (redelijk plausibel): de hypothese toont iemand die een boek leest.", 5.0),
        ("Ik geef dit een 7.", 7.0),
        # counter-cases: without the heading's colon; a rating refused ("geen": none)
        ("Skor 9", None),
        ("Ocena 8 to dobra.", None),
        ("Ik geef het geen 5.", None),
    ],
)
def test_ratings_in_indonesian_polish_and_dutch(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Strong", "strengthener"),
        ("Strong.", "strengthener"),
        ("weak", "weakener"),
        # counter-cases: in a sentence, asked, denied
        ("Strong evidence against it.", None),
        ("Strong?", None),
        ("Not strong.", None),
    ],
)
def test_a_labels_adjective_alone(answer, expected):
    assert dve_hooks.LABEL.read(answer) == expected
