"""Reading round 60 (batch BP): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve_hooks
from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
PANELS = nleye_hooks.TRIPLET_COMBINED_ANSWER
SEPARATE = nleye_hooks.TRIPLET_ANSWER
PRESENTS = nleye_hooks.triplet_text_answer(
    {
        "shown_descriptions": [
            "A child sits on the floor, holding an unwrapped rectangular present.",
            "A child sits on the floor, holding an unwrapped ball-shaped present.",
        ]
    }
)
LABEL = dve_hooks.LABEL
RATING = Score(1, 10)


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (SPEEDING, "I can't identify the causal cue; the first image is too dark to see what the car is doing.", None),
        # counter-cases: qualified, before a choice after "but"; the given image's details, not the answer
        (SPEEDING, "I can't identify the causal cue with certainty, but speeding seems most likely.", 2),
        (MUCR_OPTIONS, "I can't identify the effect clearly, but Option 2 seems most likely.", 2),
        (MUCR_OPTIONS, "I can't identify the cause image's details, but Option 2 shows the effect.", 2),
    ],
)
def test_a_refusal_to_identify_the_answer(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The cause is Option 4, showing a hailstorm. Option 4 is not the cause. The effect is a dented car roof.",
            None,
        ),
        ("The answer is 4. Option 4 is not the answer.", None),
        # counter-cases: another role denied; the role of something else; another answer picked after the denial
        ("The cause is Option 4. Option 4 is not the effect.", 4),
        ("The cause is Option 4. Option 4 is not the cause of the dents alone.", 4),
        ("The cause is Option 4. Option 4 is not the cause. The cause is Option 2.", 2),
    ],
)
def test_the_answer_denied_the_role_it_was_given(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            PANELS,
            "I think the answer is 1. Hmm, however the time of day in the right image matches the context better (both "
            "show sunset over the harbor), so maybe 2 is more plausible. It's really a toss-up.",
            None,
        ),
        (SEPARATE, "Image 2 is more plausible. It is a coin flip.", None),
        # counter-cases: an answer stated after the toss-up's sentence
        (SEPARATE, "It's a toss-up. On balance, image 2 is more plausible.", 2),
        (PANELS, "It's a toss-up, but I'd go with the right one.", 2),
    ],
)
def test_a_toss_up_as_a_sentence_of_its_own(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Die erste Hypothese ist plausibler, da das Geschenk bereits als rechteckige Schachtel verpackt ist und "
            "ausgepackt ebenfalls rechteckig sein sollte.",
            1,
        ),
        ("Die erste Hypothese.", 1),  # AX's
        ("La deuxième hypothèse est plus plausible.", 2),  # AH's
        ("La primera hipótesis es más plausible.", 1),
        # counter-cases: the comparison denied, as "The first hypothesis is not more plausible." reads
        ("Die erste Hypothese ist nicht plausibler.", 2),
        ("La primera hipótesis no es más plausible.", 2),
        ("La hipótesis 1 no es más plausible.", 2),
    ],
)
def test_the_hypothesis_ordinals_of_other_languages(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "La hipótesis 2 es más plausible: el regalo con forma de pelota podría venir dentro de una caja "
            "rectangular.",
            2,
        ),
        # counter-cases: an English reason in the other hypothesis's words still contradicts the answer
        ("Hypothesis 2 is more plausible: the present is rectangular.", None),
        ("Hypothesis 2 is more plausible: the rectangular box is the present.", None),
    ],
)
def test_a_reason_in_another_language_whose_articles_the_glossary_translated(answer, expected):
    assert PRESENTS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "I think Option 1, but Option 4 is also possible — the cause image shows a kid spilling paint, and "
            "Option 1 shows a paint-stained carpet while Option 4 shows the kid covered in paint.",
            1,
        ),
        # counter-cases: a tie; another on a condition; another held possible "too" (the doubt of round 43)
        ("I think Option 1, but Option 4 is equally plausible.", None),
        ("I think Option 1, but Option 4 is also possible if the paint dried.", None),
        ("I think Option 1, but Option 4 is possible too.", None),
    ],
)
def test_a_pick_before_another_held_possible_after_but(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The hypothesis in the middle, although I'm not fully confident — the right one could also work if the "
            "context shows the aftermath rather than the start of the parade.",
            1,
        ),
        ("The right one, though I'm not sure.", 2),
        # counter-case: a doubt of what follows, no low confidence of the answer
        ("The hypothesis in the middle, although I'm not sure it fits the context.", None),
    ],
)
def test_an_answer_opening_the_reply_before_its_own_low_confidence(answer, expected):
    assert PANELS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The second image is explained by the police officer (4), who pulled over the car from the first image.", 4),
        ("The effect image is explained by the speeding, not the road.", 2),
        # counter-case: two explanations offered
        ("The second image is explained by the police officer or the speeding.", None),
    ],
)
def test_the_effect_image_explained_by_a_cue(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Let's go through it. The cause image depicts a family forgetting to put out their campfire. Options: (1) "
            "a roaring forest fire; (2) a family singing songs; (3) marshmallows roasting; (4) a ranger putting up a "
            "fire-ban sign. The unattended campfire would spread to the forest, so (1). However, (4) could be a "
            "consequence too, as rangers respond to fires. On balance, I'll go with (4)... no — the ranger sign is "
            "preventive, not an effect of this specific fire. Final answer: 1",
            1,
        ),
        ("Option 2... no - Option 3 is the effect.", 3),
        # counter-cases: the closing still contradicts a statement no word of correction takes back; the same answer
        ("I'll go with Option 4. The ranger sign is preventive. Final answer: 1", None),
        ("I'll go with Option 4... no — Option 4 it is. Final answer: 4", 4),
    ],
)
def test_no_before_a_dash_corrects(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            MUCR_OPTIONS,
            "Stap 1: Het oorzaakbeeld toont iemand die over een bevroren stoep loopt. Stap 2: Optie 1 toont hem "
            "uitgegleden op de grond, optie 2 toont hem zonnend op een terras, optie 3 een sneeuwpop, optie 4 warme "
            "chocolademelk. Stap 3: Een bevroren stoep leidt tot uitglijden. Eindantwoord: 1",
            1,
        ),
        # counter-case: a number explained in another language (round 36)
        (SPEEDING, "Antwoord: 3 (weg)", None),
    ],
)
def test_the_dutch_closing_heading(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Weakener. Although the update could support the idea of a competition, the fact that", "weakener"),
        # counter-cases: another answer held possible after "But"; a correction after the concession
        ("Weakener. But it could also be a strengthener, because the", None),
        (
            "Weakener. Although the update could support the idea, it is actually a strengthener because the",
            "strengthener",
        ),
    ],
)
def test_a_concession_after_the_opening_answer_of_a_reply_cut_off(answer, expected):
    assert LABEL.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "A strong update: the woman holding a diploma makes the hypothesis that she just graduated more likely.",
            "strengthener",
        ),
        ("The update makes the hypothesis that she is a tourist less likely.", "weakener"),
        # counter-cases: denied; the other label's effect explaining a label
        ("The diploma does not make the hypothesis that she just graduated more likely.", None),
        ("Weakener: the diploma makes the hypothesis that she graduated more likely.", None),
    ],
)
def test_a_labels_effect_on_the_hypothesis_with_what_it_says(answer, expected):
    assert LABEL.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Score: 5. The highlighted truck has a logo, but I can't read it, so the inference \"this is a delivery "
            'vehicle" is 50/50.',
            5.0,
        ),
        ("Score: 9. It's fifty-fifty.", 9.0),
        # counter-cases: even odds alone name no rating
        ("Score: 50/50", None),
        ("It's 50/50.", None),
    ],
)
def test_even_odds_are_no_rating(answer, expected):
    assert RATING.read(answer) == expected
