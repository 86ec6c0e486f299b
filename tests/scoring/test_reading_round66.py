"""Reading round 66 (batch BV): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve_hooks
from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

LABELS = dve_hooks.LABEL
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
PANELS = nleye_hooks.TRIPLET_COMBINED_ANSWER
SEPARATE = Choice(2, context_images=1)
RATING = Score(1, 10)
SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Hypothesis 1 is more plausible: in the right image the boy is holding his report card with a big smile, "
            "which fits the context of him studying late into the night.",
            None,
        ),
        ("In the right image the boy is holding his report card, which fits the context.", 2),
        # counter-cases: the clause set in the answer's own panel; what the other shows said not to fit, or less well
        (
            "Hypothesis 1 is more plausible: in the middle image the boy is holding his report card with a big smile, "
            "which fits the context of him studying late into the night.",
            1,
        ),
        ("Hypothesis 1 is more plausible: in the right image the boy is crying, which does not fit the context.", 1),
        ("Hypothesis 1 is more plausible: in the right image the boy is crying, which fits the context less well.", 1),
    ],
)
def test_a_reason_set_in_another_panel_that_fits_the_context(answer, expected):
    assert PANELS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The cause is Option 2. Looking at the options, Option 3 — the man leaving his keys on the kitchen table — "
            "is what caused him to be locked out in the effect image.",
            None,
        ),
        ("Option 3 is what caused him to be locked out in the effect image.", 3),
        # counter-cases: the same option again; the other option denied
        ("The cause is Option 2. Option 2 — the man leaving his keys — is what caused him to be locked out.", 2),
        ("The cause is Option 2. Option 3 is not what caused him to be locked out.", 2),
    ],
)
def test_is_what_caused(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Answer: The cause image shows a car weaving between lanes on a wet", None),
        # counter-cases: an answer given before the description, or closing its sentence
        ("Answer: 2 (speeding). The cause image shows a car weaving between lanes on a wet", 2),
        ("Answer: The cause image shows a car weaving between lanes, so the cue is speeding", 2),
    ],
)
def test_an_answer_headings_description_of_the_given_image_cut_off(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Looking at the five pictures, the cause image shows a woman leaving the bathtub tap running. Among the "
            "options, Option 1 shows a dry bathroom, Option 2 shows water dripping through the ceiling of the room "
            "below, Option 3 shows a kitchen, and Option 4 shows someone taking a shower. The effect is best "
            "represented by Option 2.",
            2,
        ),
        ("The effect is best represented by Option 2.", 2),
        # counter-cases: two options; another option stated, this one denied
        ("The effect is best represented by Option 2 or Option 4.", None),
        ("Option 4 shows the effect. The effect is not best represented by Option 2.", 4),
    ],
)
def test_is_best_represented_by(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            SEPARATE,
            "Gambar 2 lebih masuk akal. Pada gambar konteks terlihat seorang nelayan menarik jaring dari perahu, dan "
            "gambar 2 menunjukkan ember penuh ikan di dermaga, yang merupakan hasil yang wajar.",
            2,
        ),
        (LABELS, "Förstärker hypotesen.", "strengthener"),
        (LABELS, "Försvagar hypotesen.", "weakener"),
        (
            RATING,
            "Le daría un 3 (ligeramente plausible). El contexto muestra a un hombre leyendo en una biblioteca y la "
            "hipótesis muestra al mismo hombre en una fiesta ruidosa; no hay una conexión clara.",
            3.0,
        ),
        # counter-cases: the Swedish verbs negated, the Spanish rating refused
        (LABELS, "Förstärker inte hypotesen.", None),
        (LABELS, "Försvagar inte hypotesen.", None),
        (RATING, "No le daría un 3; es muy poco plausible.", None),
    ],
)
def test_answer_words_of_other_languages(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Score: 3, maybe 4.", 3.0),
        ("Score: 5, maybe 6.", 5.0),
        ("I'd say Score: 8, maybe 9.", 8.0),
        ("7, maybe 8.", 7.0),
        ("I'd go with 5, maybe 6.", 5.0),
        # counter-cases: an approximate rating and another offered, a range (BD's writer: no answer)
        ("On a scale of 1 to 10, I'd put this at around 5, maybe 6. The two are related.", None),
        ("I'd say roughly 7, perhaps 8.", None),
        ("I'd put this at around 5, maybe 6. Score: 5", 5.0),
    ],
)
def test_a_rating_then_another_offered_keeps_the_first(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        (SEPARATE, "The second image."),
        (MUCR_OPTIONS, "The leftmost option is the cause: a hailstorm, which explains the dented car roof."),
        (
            MUCR_OPTIONS,
            "Image 3 shows the effect: after the heavy snowfall in the first image, the roof of the barn has caved in.",
        ),
        (
            MUCR_OPTIONS,
            "The effect is the third image, where the laptop screen has gone black after coffee was spilled on the "
            "keyboard.",
        ),
        (
            MUCR_OPTIONS,
            "Option 1 — wait, the second image is Option 1 and it shows a dry, brown lawn. The effect of the sprinkler "
            "in the first image is the wet, green lawn in Option 3.",
        ),
    ],
)
def test_left_unread(kind, answer):
    assert kind.read(answer) is None
