"""Reading round 51 (batch BG): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice

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


MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
COMBINED = nleye_hooks.TRIPLET_COMBINED_ANSWER
TWO_IMAGES = nleye_hooks.TRIPLET_ANSWER


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Answer: Option 2\nHowever, on further inspection, Option 2 shows him before. The effect is Option 4.", 4),
        ("Option 1. On further inspection, Option 3 fits better.", 3),
        # counter-case: restated after it, the answer stands
        ("Option 2 is the effect. On further inspection, Option 2 shows the broken vase clearly.", 2),
    ],
)
def test_on_further_inspection_corrects(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (COMBINED, "Both are plausible, but the right one more so, since the paint came from the ladder.", 2),
        (TWO_IMAGES, "Both hypotheses are possible, but hypothesis 1 more so.", 1),
        # counter-cases: the other comparison, and a list after "but"
        (TWO_IMAGES, "Both are plausible, but 1 less so.", None),
        (TWO_IMAGES, "Both are plausible, but 1 and 2 more so than the context suggests.", None),
    ],
)
def test_both_plausible_but_one_more_so_without_its_verb(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The cause in image 3 is Option 4: the open window let the rain soak the sofa.", 4),
        ("The effect in image 3 is option 2.", 2),
        # counter-cases: a verb after the picture, the answer's place named alone
        ("The effect in image 3 matches Option 2's cause, just like Example 2 where the answer was Option 2.", 2),
        ("The cause in Option 3 is the rain.", 3),
        ("The cause of the effect in image 1 is Option 1.", None),
    ],
)
def test_the_answer_after_the_picture_the_prompt_gives_the_question(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (TWO_IMAGES, "Je dirais la 2, même si la 1 n'est pas impossible : le contexte montre une tente effondrée.", 2),
        (TWO_IMAGES, "Hypothese 2 passt besser zum Kontextbild: dort liegt ein umgefallener Mülleimer.", 2),
        (TWO_IMAGES, "สมมติฐานที่ 1 มีความเป็นไปได้มากกว่า เพราะมีแก้วแตกอยู่บนพื้น", 1),
        (SPEEDING, "Odpowiedź: 2. Pierwsze zdjęcie pokazuje samochód jadący za szybko.", 2),
        (MUCR_OPTIONS, "Paso 3: la comida se estropea.\nPor lo tanto, la respuesta final es la opción 3.", 3),
        # counter-cases: the French pick denied, the German and Thai comparisons denied or turned, a number explained in
        # another language ending the reply (round 36)
        (TWO_IMAGES, "Je ne dirais pas la 2.", None),
        (TWO_IMAGES, "Hypothese 2 passt nicht besser.", 1),
        (TWO_IMAGES, "สมมติฐานที่ 1 ไม่มีความเป็นไปได้มากกว่า", 2),
        (TWO_IMAGES, "สมมติฐานที่ 1 มีความเป็นไปได้น้อยกว่า", 2),
        (SPEEDING, "Odpowiedź: 3 (zbyt szybka jazda).", None),
        (SPEEDING, "Antwoord: 3 (weg). De gladde weg verklaart het ongeluk.", None),
    ],
)
def test_answer_words_of_other_languages(kind, answer, expected):
    assert kind.read(answer) == expected


PRESENTS = nleye_hooks.triplet_text_answer(
    {
        "shown_descriptions": [
            "A child sits on the floor, holding an unwrapped rectangular present.",
            "A child sits on the floor, holding an unwrapped ball-shaped present.",
        ]
    }
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("It is more plausible that the unwrapped present is rectangular, not ball-shaped.", 1),
        ("It is more plausible that the present is ball-shaped.", 2),
        # counter-cases: the two offered, a description of the context, the other predicate denied
        ("It is more plausible that the present is rectangular or ball-shaped.", None),
        ("The present is rectangular.", None),
        ("It is more plausible that the present is not rectangular.", None),
    ],
)
def test_a_hypothesis_own_word_said_of_its_noun_in_what_is_more_plausible(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("| | Image 1 | Image 2 |\n|---|---|---|\n| Fit | ✗ | ✓ |\n| Overall plausibility | Low | High |", 2),
        ("| | Image 1 | Image 2 |\n|---|---|---|\n| Overall | Very high | Medium |", 1),
        # counter-cases: levels that tie, a row of another criterion, a level missing
        ("| | Image 1 | Image 2 |\n|---|---|---|\n| Overall | High | High |", None),
        ("| | Image 1 | Image 2 |\n|---|---|---|\n| Matches weather | Low | High |", None),
        ("| | Image 1 | Image 2 |\n|---|---|---|\n| Overall | Low |", None),
    ],
)
def test_levels_in_the_columns_of_the_options(answer, expected):
    assert TWO_IMAGES.read(answer) == expected
