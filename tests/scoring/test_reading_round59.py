"""Reading round 59 (batch BO): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
PANELS = nleye_hooks.TRIPLET_COMBINED_ANSWER
RATING = Score(1, 10)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Option 3 shows the effect. The overflowing bathroom sink in the cause image leads to water stains "
            "spreading on the ceiling of the room below, which is what Option 1 shows.",
            None,
        ),
        (
            "Option 3 shows the effect. The sink causes water stains on the ceiling, which is exactly what Option 1 "
            "shows.",
            None,
        ),
        # counter-cases: the answer's own option; denied; the given image named, no option
        ("Option 1 shows the effect. The sink leads to water stains on the ceiling, which is what Option 1 shows.", 1),
        ("Option 3 shows the effect. The sink leads to water stains, which is not what Option 1 shows.", 3),
        ("Option 3 shows the effect. The sink leads to water stains, which is what the cause image shows.", 3),
    ],
)
def test_what_the_given_image_brings_about_said_to_be_what_another_option_shows(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "L'image 2 (à droite) est la plus plausible : sur l'image de gauche, un homme appuie une échelle contre "
            "un arbre où un chat est coincé, et à droite il redescend avec le chat dans les bras. L'image du milieu, "
            "où il lave sa voiture, n'a pas de lien avec la scène.",
            2,
        ),
        ("L'image au centre est la plus plausible : il lave sa voiture.", 1),
        # counter-case: the left panel is the context, no hypothesis (as "Image 2 (the left)" reads)
        ("L'image 2 (à gauche) est la plus plausible.", None),
    ],
)
def test_the_french_panel_positions_after_a(answer, expected):
    assert PANELS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Bu hipotezi 3 olarak değerlendiriyorum (biraz makul). Bağlam görüntüsünde bir adam otobüs durağında "
            "bekliyor, hipotez görüntüsünde ise aynı adam bir uçakta oturuyor.",
            3.0,
        ),
        ("Bu hipotezi 8 olarak puanlıyorum.", 8.0),
        # counter-case: the verb denied ("I do not rate it 3")
        ("Bu hipotezi 3 olarak değerlendirmiyorum.", None),
    ],
)
def test_a_turkish_rating_given(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Hard to judge given how tiny the hypothesis image is, but I'd tentatively say 4: the context shows "
            "someone carrying a ladder into a house, and the hypothesis seems to show a replaced light bulb.",
            4.0,
        ),
        ("I'd say 7: the man is wet and holds an umbrella.", 7.0),
        # counter-cases: before a condition; denied
        ("I'd say 4: if the ladder is his, more.", None),
        ("I wouldn't say 4: the ladder is not his.", None),
    ],
)
def test_a_rating_said_before_a_colon_that_explains_it(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Most likely Option 4 (possibly Option 2). The effect shows a swollen, bandaged ankle; Option 4 shows a "
            "hard tackle during a soccer match, while Option 2 shows someone stepping off a curb awkwardly.",
            4,
        ),
        (
            "Option 4 most likely, but Option 1 is close. The cause shows a kid jumping into a pile of leaves; Option "
            "4 shows leaves scattered all over the lawn, Option 1 shows the kid laughing.",
            4,
        ),
        # counter-cases: another offered after "or"; asked; the adverb of a verb
        ("Option 4 most likely, or Option 1.", None),
        ("Option 4 most likely? Option 1 is close.", None),
        ("Option 4 most likely shows the effect, but Option 1 is close.", None),
    ],
)
def test_a_probable_pick_before_a_parenthesis_or_after_its_option(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "3 — the kid kicked the ball straight toward the vase on the shelf. The other options (a cat sleeping on "
            "a rug, a woman reading, a",
            3,
        ),
        # counter-cases: a first step's number; another answer after it
        ("1 - identify the effect in the image. The effect is a broken vase, and the", None),
        ("3 - the kid kicked the ball. Option 2 could also be the cause, because the", None),
    ],
)
def test_a_bare_number_but_1_set_off_by_a_dash_opening_a_reply_cut_off(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The last image: the broken eggs on the kitchen floor after the bottom of the grocery bag tore open.", 4),
        (
            "The cause in image 3 is the last option: a pan left unattended on a lit stove, which explains the "
            "smoke-filled kitchen and the firefighter.",
            4,
        ),
        # counter-cases: a number after the colon heads it; a heading of a description, then another answer, read as
        # "Option 4: a man jogging. Option 2 shows the effect." is
        ("The last option: 2.", None),
        ("The last option: a man jogging. Option 2 shows the effect.", None),
    ],
)
def test_the_last_option_before_a_colon_and_what_it_shows(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "In Example 1 the answer was Option 1 and in Example 2 it was Option 2, but for image 3 the cause is "
            "Option 3: the boy climbing over a barbed-wire fence explains the torn trousers in the effect image.",
            3,
        ),
        # counter-cases: the clause after "but" names an example too; conceded, no statement
        ("In Example 1 the answer was Option 1, but in Example 2 it was Option 2.", None),
        ("In Example 1 the cause was Option 1, but Option 2 was also plausible.", None),
    ],
)
def test_a_clause_after_but_speaks_of_its_own_not_of_an_example(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("speeding (2) > police officer (4) > car (1) > road (3)", 2),
        ("road (3) < car (1) < police officer (4) < speeding (2)", 2),
        ("2 > 4 > 1 > 3", 2),
        # counter-case: two rankings, two heads
        ("speeding (2) > police officer (4), but car (1) > road (3)", None),
    ],
)
def test_a_ranking_chain_picks_its_head(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Speeding is the cause, the police officer is the effect, and the cue... is speeding. 2.", 2),
        ("The car is the cause, the police officer is the effect, and the cue is speeding.", 2),
        # counter-cases: no cue named in the sentence (read as before)
        ("The police officer is the effect.", 4),
        ("The police officer is the effect, and the cue that links them is unclear.", 4),
    ],
)
def test_the_roles_given_before_the_cue_named_in_one_sentence(answer, expected):
    assert SPEEDING.read(answer) == expected
