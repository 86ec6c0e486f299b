"""Reading round 61 (batch BQ): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Score

SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
SEPARATE = nleye_hooks.TRIPLET_ANSWER
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
    ("kind", "answer", "expected"),
    [
        (
            SPEEDING,
            "The first image shows a car on a long, empty road at sunset, and in the second image the same car is",
            None,
        ),
        (SPEEDING, "The first image shows a car on a road, and in the second image the cars are", None),
        # counter-cases: a statement of the answer before the cut; a complete reply; a copula ending no reply
        (SPEEDING, "The cue is speeding, and in the second image the same car is", 2),
        (SPEEDING, "The car.", 1),
        (MUCR_OPTIONS, "Option 3 shows the effect.\nThe cause image is", 3),
    ],
)
def test_a_reply_cut_off_on_a_copula(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The second hypothesis, with the ball-shaped present, is less consistent with the wrapping; the first is "
            "more plausible.",
            1,
        ),
        ("The second hypothesis, with the ball-shaped present, is less consistent with the wrapping.", 1),
        ("Hypothesis 2, with the ball-shaped present, is more plausible.", 2),
        # counter-cases: another hypothesis's text set off (two named); no verb after the appositive
        ("The second hypothesis, with the rectangular present, is less consistent with the wrapping.", None),
    ],
)
def test_an_option_text_set_off_between_its_number_and_its_verb(answer, expected):
    assert PRESENTS.read(answer) == expected


def test_an_appositive_before_a_concession_is_no_verdict():
    # BN's reply, which the verb after the appositive keeps as it was
    assert SPEEDING.read("Option 2, speeding, though the police officer (4) is also part of the story.") == 2


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Rectangular present (Hypothesis 1) > ball-shaped present (Hypothesis 2)", 1),
        ("ball-shaped present (Hypothesis 2) < rectangular present (Hypothesis 1)", 1),
        # counter-cases: the plain ranking, as before; the phrase only before a number in parentheses
        ("Hypothesis 1 > Hypothesis 2", 1),
        ("Hypothesis 2 > Hypothesis 1", 2),
    ],
)
def test_a_ranking_of_phrases_and_their_numbers(answer, expected):
    assert PRESENTS.read(answer) == expected


def test_a_function_s_values_are_no_ranked_phrases():
    # a public reply's form (tests/scoring/public_replies), read 3, not unread as a ranking of phrases
    kind = Choice(4, option_texts=("larger than", "equal to", "smaller than", "none of the above"))
    answer = "The correct answer is (C). f'(x) = 2x - 3, so f'(2) = 1 and f'(5) = 7. Therefore, f'(2) < f'(5)."
    assert kind.read(answer) == 3


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "2つ目の仮説画像の方が妥当です。文脈画像では男性が釣り竿を持って湖のほとりに座っており、2つ目の画像では彼が"
            "大きな魚を掲げています。1つ目の画像はオフィスで働く様子で、関連性が低いです。",
            2,
        ),
        ("1番目の仮説画像の方が妥当です。", 1),
        # counter-case: a bare image count, as its English "The second image is more plausible." (the policy's)
        ("2つ目の画像の方が妥当です。", None),
    ],
)
def test_japanese_ordinals(answer, expected):
    assert SEPARATE.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("मैं इसे 4 अंक दूंगा, क्योंकि संदर्भ चित्र में एक आदमी छाता लिए खड़ा है।", 4.0),
        ("मैं इसे 7 अंक देता हूं।", 7.0),
        # counter-case: the rating refused ("I will not give it 4 points")
        ("मैं इसे 4 अंक नहीं दूंगा।", None),
    ],
)
def test_hindi_points_given(answer, expected):
    assert RATING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Phương án 3 là kết quả: hình nguyên nhân cho thấy một người đang bơm hơi quả bóng bay quá mức, "
            "và phương án 3 cho thấy quả bóng bị nổ tung.",
            3,
        ),
        # counter-cases: another option named after it; an option named with its role elsewhere than opening the reply
        (
            "Phương án 3 là kết quả: hình nguyên nhân cho thấy một người, và phương án 2 cho thấy quả bóng bị nổ tung.",
            None,
        ),
        ("Hình nguyên nhân cho thấy một quả bóng. Phương án 3 là kết quả.", None),
    ],
)
def test_a_vietnamese_opening_option_and_its_role(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "2 — speeding. The car isn't the cue by itself, since it appears in both images, and neither is the road; "
            "the police officer is a consequence, not the link.",
            2,
        ),
        ("Speeding. The car isn't the cue, nor is the road.", 2),
        # counter-cases: nothing picked but the denials (read 3 before, the road); "neither" before no copula
        ("The car isn't the cue, and neither is the road.", None),
        ("Neither the car nor the road is the link; it's speeding.", 2),
    ],
)
def test_an_answer_denied_after_another(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        # left unread: a bare image count (the policy's); an option's text in another language (round 36's); two
        # options given the two roles (ROLES_PAIRED's: the reader does not know the role the prompt asks for); a single
        # option offered in doubt (the corpus's "I am not sure, maybe option 3?" reads no answer)
        (
            SEPARATE,
            "The second image is more plausible. The context shows a girl holding the string of a kite on a windy "
            "hill, and the second image shows the kite tangled in a tree nearby, which could easily happen right "
            "after.",
        ),
        (
            PRESENTS,
            "L'hypothèse la plus plausible est celle du cadeau rectangulaire : l'emballage a déjà la forme d'une boîte "
            "rectangulaire.",
        ),
        (
            MUCR_OPTIONS,
            "Option 3 is the effect, not the cause. The cause is Option 1, a woman dropping her phone into the pool.",
        ),
        (
            MUCR_OPTIONS,
            "Not sure, maybe 3? The deflated tire in the effect image might come from the broken glass in Option 3.",
        ),
    ],
)
def test_left_unread(kind, answer):
    assert kind.read(answer) is None
