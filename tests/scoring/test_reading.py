"""Answer reading: the answer kinds, failed requests, and the ways models answer a choice or a rating.

The realistic corpus (answer_corpus.yaml, test_answer_corpus.py) measures agreement with a person;
these tests pin the interface and the rules one by one.
"""

from pathlib import Path

import pytest
import yaml

from abductive_tasks.dve import hooks as dve
from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice, Label, Score, is_request_failure
from abductive_tasks.sherlock import hooks as sherlock_hooks

RATE_LIMITED = (
    "[LMMS_EVAL_REQUEST_FAILED after 5 retries] Error code: 429 - Rate limit reached for gpt-4o; retry in 4 s"
)
INVALID_IMAGE = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] Error code: 400 - Invalid image 2 in the request"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Image 2", 2),
        ("hypothesis 1", 1),
        ("hypothesis1 is the one", 1),
        ("the first one", 1),
        ("The second hypothesis image is more plausible", 2),
        ("2.", 2),
        ("**1**", 1),
        ("1 - because the glass fell", 1),
        ("Answer: 1", 1),
        ("Final answer - image two", 2),
        ("Hypothesis 2 is more plausible because the snow melts.", 2),
        ("The more plausible one is 2.", 2),
        ("I choose image 1.", 1),
        ("Comparing image 1 and image 2, image 2 is more plausible.", 2),
    ],
)
def test_choice_forms(answer, expected):
    assert Choice(2).read(answer) == expected


@pytest.mark.parametrize(
    "answer",
    ["", "gibberish", "Both image 1 and image 2 are equally plausible.", "Image 3", "I cannot tell."],
)
def test_unreadable_choices_are_none(answer):
    assert Choice(2).read(answer) is None


def test_aliases_only_where_given():
    assert Choice(2).read("The middle image.") is None
    assert Choice(2, {"middle": 1, "right": 2}).read("The middle image.") == 1
    assert Choice(2, {"middle": 1, "right": 2}).read("The right image is more plausible") == 2


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Score: 7/10", 7.0),
        ("7/10", 7.0),
        ("I would rate it 8 out of 10.", 8.0),
        ("Rank: 7", 7.0),
        ("**6**", 6.0),
        ("7.5 - very plausible", 7.5),
        ("The plausibility score is 3 because ...", 3.0),
        ("Score: 6.470. Read from the upper-left pixel.", 6.47),
        ("10", 10.0),
    ],
)
def test_score_forms(answer, expected):
    assert Score().read(answer) == expected


@pytest.mark.parametrize("answer", ["Score: 11", "0", "blah", "", "very plausible"])
def test_unreadable_or_out_of_range_scores_are_none(answer):
    assert Score().read(answer) is None


# ---------------------------------------------------------------- failed requests


@pytest.mark.parametrize(
    "reply",
    [None, "", "   \n", RATE_LIMITED, INVALID_IMAGE, "  [LMMS_EVAL_REQUEST_FAILED after 1 retries] Connection error."],
)
def test_request_failures_are_recognised(reply):
    assert is_request_failure(reply)


@pytest.mark.parametrize(
    "reply", ["2", "Score: 4", "The model said [LMMS_EVAL_REQUEST_FAILED earlier, but the answer is 2"]
)
def test_answers_are_not_request_failures(reply):
    assert not is_request_failure(reply)


def test_a_failed_request_is_never_read_as_an_answer():
    """The old parser read "...Invalid image 2..." as choice 2 and "...429 Rate limit..." as a score."""
    for reply in (RATE_LIMITED, INVALID_IMAGE):
        assert Choice(2).read(reply) is None
        assert Choice(4, option_texts=("rate limit", "image", "request", "error")).read(reply) is None
        assert Score().read(reply) is None
        assert Label(("strengthener", "weakener")).read(reply + " weakener") is None
        assert Choice(2).read(reply) is None and Score().read(reply) is None


# ---------------------------------------------------------------- the answer kinds


def test_letters_as_option_positions_where_a_person_reads_them():
    # without letters in the prompt: a letter in parentheses, after an answer word or an option noun, or as the whole
    # reply (round 17: blind writers J, T and Z read "C", "B" and "D" so), within range
    assert [Choice(4).read(answer) for answer in ("A", "(B)", "Answer: C", "D.", "Option E", "The answer is (B).")] == [
        1,
        2,
        3,
        4,
        None,
        2,
    ]
    assert [Choice(4).read(answer) for answer in ("E", "E.", "A man.", "I")] == [None, None, None, None]
    assert Choice(4).read("Answer: I think option 2.") == 2  # "I" is no option of four
    lettered = Choice(4, letters=True)
    assert [
        lettered.read(answer) for answer in ("A", "(B) the second image", "Answer: C", "The answer is D.", "E")
    ] == [1, 2, 3, 4, None]
    assert lettered.read("A man is walking his dog, so option 3 is the effect.") == 3  # the article is no letter
    assert lettered.read("I think option B is more plausible.") == 2


def test_panel_positions_of_the_combined_image():
    combined = Choice(2, {"middle": 1, "right": 2})
    assert combined.read("The image on the right is more plausible.") == 2
    assert combined.read("The middle one.") == 1
    assert combined.read("The left image.") is None  # the context, not an option
    assert combined.read("That's right: the middle image is more plausible.") == 1
    assert Choice(2).read("The image on the right is more plausible.") is None  # no positions without aliases


def test_a_reply_that_counts_the_context_image_too():
    counted = (
        "In the first image, a man holds an umbrella. In the second image, he is wet. In the third image, he is dry. "
        "The second image is more plausible."
    )
    assert Choice(2, context_images=1).read(counted) == 1  # the second of three images is hypothesis 1
    assert Choice(2).read(counted) is None  # without knowing what comes first, such counts name nothing
    assert Choice(2, context_images=1).read("Hypothesis 2 (the third image) is more plausible.") == 2
    # an ordinal count of the images shown may count the context image or not: no answer ("image 2" numbers options)
    assert Choice(2, context_images=1).read("The second image is more plausible.") is None
    assert Choice(2, context_images=1).read("Image 2 is more plausible.") == 2
    assert Choice(4, context_images=1).read("The third of the candidate images is the cause.") == 3
    assert Choice(4, context_images=1).read("The fifth image shows the effect.") == 4


def test_images_are_no_options_when_the_options_are_texts():
    cue = Choice(4, option_texts=("slippery floor", "birthday party", "heavy rain", "broken glass"))
    assert cue.read("In the second image the street is flooded.") is None
    assert cue.read("The second image shows a flooded street, so the cue is heavy rain.") == 3


def test_a_stated_answer_outranks_verdicts_in_the_explanation():
    assert Choice(2).read("Answer: 2. Image 1 is more likely to be in the morning, unlike the night context.") == 2
    assert Score().read("Score: 6. The man gave 2 apples to the boy.") == 6.0
    assert (
        Choice(2).read("Image 2 is more plausible? No: image 1 is more plausible.") == 1
    )  # of equal rank, the last wins
    assert (
        Label(("strengthener", "weakener")).read("Answer: weakener. On second thought, answer: strengthener.")
        == "strengthener"
    )


def test_former_and_latter_name_one_of_two_options():
    assert Choice(2).read("The latter is more plausible.") == 2
    assert Choice(2).read("I prefer the former.") == 1
    assert Choice(4).read("The latter is more plausible.") is None


def test_option_texts_and_numbers():
    cue = Choice(4, option_texts=("cold", "catch cold", "wet floor", "rain"))
    assert cue.read("I think catch cold.") == 2  # "cold" inside the longer option is no second mention
    assert cue.read("The cue is 'wet floor' (3).") == 3
    assert cue.read("Phrase 4") == 4
    assert cue.read("Either cold or rain.") is None
    assert Choice(4, option_texts=("cold", "catch cold", "wet floor", "rain")).read("The cue is rain.") == 4


def test_scores_in_another_range():
    assert Score(0, 10).read("Score: 0") == 0.0
    assert Score(0, 10).read("On a scale from 0 to 10 I give it a 3.") == 3.0
    assert Score(1, 5).read("4/5") == 4.0
    assert Score(1, 5).read("Score: 7") is None
    assert Score(1, 5).read("Rating (1-5): 2") == 2.0


def test_labels_with_aliases_and_negation():
    update = Label(("strengthener", "weakener"), {"strengthens": "strengthener", "weakens": "weakener"})
    assert update.read("It is not a strengthener; it is a weakener.") == "weakener"
    assert update.read("The update weakens the hypothesis.") == "weakener"
    assert update.read("Neither a strengthener nor a weakener.") is None
    # the verb of an agent-noun label names it too ("weakens" for "weakener"); other aliases only where given
    assert Label(("strengthener", "weakener")).read("The update weakens the hypothesis.") == "weakener"
    assert Label(("strengthener", "weakener")).read("The update undermines the hypothesis.") is None


def test_describe_names_the_valid_answers():
    assert Choice(2).describe() == "the number of one option: 1 or 2"
    assert (
        Choice(2, {"middle": 1, "right": 2}).describe()
        == "the number of one option: 1 or 2 (the middle image = 1; the right image = 2)"
    )
    assert (
        Choice(3, option_texts=("rain", "wind", "snow")).describe()
        == "the number of one option: 1, 2 or 3 (1 = rain; 2 = wind; 3 = snow)"
    )
    assert Choice(4, letters=True).describe() == "the number of one option: 1, 2, 3 or 4 (or the letters A to D)"
    assert Label(("strengthener", "weakener")).describe() == "one of the words strengthener or weakener"
    assert Score().describe() == "one number from 1 to 10"


def test_kinds_are_hashable_values_and_check_their_parameters():
    assert (
        Choice(2, {"middle": 1}) == Choice(2, {"middle": 1})
        and len({Choice(2, {"middle": 1}), Choice(2, {"middle": 1})}) == 1
    )
    assert hash(Label(["a", "b"], {"as": "a"})) == hash(Label(("a", "b"), {"as": "a"}))
    with pytest.raises(ValueError, match="3 option texts for 4 options"):
        Choice(4, option_texts=("a", "b", "c"))
    with pytest.raises(ValueError, match="unknown labels"):
        Label(("strengthener", "weakener"), {"weakens": "weak"})


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (Choice(2), "2. Chosen at random.", 2),
        (Choice(2, {"middle": 1, "right": 2}), "1. Its upper-left pixel is the brightest.", 1),
        (
            Choice(4, option_texts=("heavy rain", "slippery floor", "birthday party", "broken glass")),
            "broken glass. Chosen at random.",
            4,
        ),
        (Label(("strengthener", "weakener")), "strengthener. Its upper-left pixel is the brightest.", "strengthener"),
        (Score(), "Score: 6.470. Read from the upper-left pixel.", 6.47),
        (Score(), "Score: 10. Chosen at random.", 10.0),
    ],
)
def test_the_baselines_answers_are_read(kind, answer, expected):
    """random_baseline and dumb_pixel answer in these forms (abductive_tasks/models/baselines.py)."""
    assert kind.read(answer) == expected


def test_a_rejection_a_panel_position_a_rating_and_a_negated_label_read():
    assert Choice(2).read("1 is less plausible than 2") == 2
    assert Choice(2, {"middle": 1, "right": 2}).read("The right one") == 2
    assert Score().read("I'd give it a 7.") == 7.0
    assert Label(("strengthener", "weakener")).read("It is not a strengthener; it is a weakener.") == "weakener"


# ---------------------------------------------------------------- rules from the held-out batch (corpus groups *_d)


def test_number_words_standing_as_an_answer():
    assert [Choice(2).read(answer) for answer in ("Two.", "The answer is one.", "Answer: two")] == [2, 1, 2]
    assert Choice(2).read("I'd go with the other one.") is None  # a pronoun, not an option
    assert Choice(2).read("Neither of the two is more plausible.") is None
    assert [
        Score().read(answer)
        for answer in ("seven", "Score: five", "Score: seven out of ten", "I'd say it's about a six.")
    ] == [7.0, 5.0, 7.0, 6.0]


def test_last_and_bare_ordinals():
    assert Choice(4).read("The last one.") == 4
    assert Choice(2, {"middle": 1, "right": 2}, context_images=1).read("The last image is more plausible.") == 2
    cue = Choice(4, option_texts=("heavy snow", "forgot umbrella", "power outage", "ate too much"))
    assert (
        cue.read("The last image shows a buried car; the cue is heavy snow.") == 1
    )  # images are no options of a text choice
    assert Choice(2).read("The first.") == 1
    assert Choice(2).read("In the first, the man is dry; in the second, he is wet. The second is more plausible.") == 2


def test_the_questions_own_list_of_answers_names_none():
    assert Choice(4).read("1, 2, 3 or 4") is None
    assert Choice(4).read("Option number (1, 2, 3 or 4): 2") == 2
    assert Choice(2).read("Is it 1 or 2? I'd say 2.") == 2
    update = Label(("strengthener", "weakener"), {"strengthens": "strengthener", "weakens": "weakener"})
    assert update.read("Strengthener or weakener: weakener") == "weakener"
    assert update.read("Judging whether the update strengthens or weakens the hypothesis: it weakens it.") == "weakener"
    assert update.read("strengthener/weakener") is None


def test_a_colon_after_a_verdict_introduces_the_reason_not_an_answer():
    counted = (
        "The second image is more plausible: "
        "the first image shows a boy with a kite, and the third image shows him on the beach."
    )
    assert Choice(2, context_images=1).read(counted) == 1  # the reply counts the context as its first image
    assert Choice(2).read("Image 1 is more plausible: image 2 shows a dry road after rain.") == 1
    assert Choice(2).read("More plausible: image 2. Less plausible: image 1.") == 2


def test_a_parenthesis_names_the_option_an_image_count_means():
    assert Choice(4, context_images=1).read("The second image (Option 1) shows the effect: the cup is broken.") == 1
    assert Choice(2, {"middle": 1, "right": 2}, context_images=1).read("The second panel (middle) fits better.") == 1
    assert (
        Choice(2, context_images=1).read("Hypothesis 2 (the third image) is more plausible.") == 2
    )  # an option outranks its image count


def test_a_self_correction_restates_the_answer():
    assert Choice(2).read("1. Actually, on second thought, 2 is more plausible because of the snow.") == 2
    assert Choice(2).read("Answer: 2. Actually, image 1 shows the shoes, which are dry.") == 2  # no pick after it
    assert Score().read("Score: 3\n\nOn reflection, the region shows a police uniform, so Score: 8") == 8.0


def test_a_reply_cut_off_after_other_sentences_names_nothing_without_a_pick():
    assert Choice(2).read("Looking at the context image, a woman carries a box up the stairs. In image 1, she") is None
    assert Choice(2).read("Image 2 because the man is wet") == 2  # one unpunctuated sentence is a complete short answer
    assert Choice(2).read("hypothesis1 is the one") == 1


def test_hedged_ranked_and_tabled_picks():
    assert Choice(2).read("Probably 2, but I'm not entirely sure.") == 2
    assert Choice(4).read("I am not sure, maybe option 3?") is None  # a guess, no pick
    assert Choice(2).read("I'd lean slightly towards image 1, though both are plausible.") == 1
    assert Choice(2).read("Plausibility ranking: 2 > 1") == 2
    assert Choice(2).read("| Image | Plausible? |\n|---|---|\n| 1 | No |\n| 2 | Yes |") == 2
    assert Choice(2).read("| Image | Plausible? |\n|---|---|\n| 1 | No |\n| 2 | No |") is None
    assert Choice(4).read("Option 1 — no. Option 2 — no. Option 3 — yes, the glass is shattered. Option 4 — no.") == 3
    assert Choice(2).read("Option 1: ✅ More plausible\nOption 2: ❌ Less plausible") == 1
    assert Choice(2).read("Image 1: yes, the man is wet. Image 2: no, he is dry.") == 1


def test_more_ways_to_pick_or_reject():
    assert Choice(4).read("Options 2 and 4 both show water, but only option 4 shows a flooded room.") == 4
    assert (
        Choice(4, context_images=1).read(
            "First, each option:\n- Option 1: A park.\n- Option 2: A cast.\n\n"
            "The cause of the effect image is Option 2."
        )
        == 2
    )
    assert Choice(4).read("It's not 1 or 2. I think it's 3.") == 3
    assert Choice(2).read("The hypothesis image that best fits is 2.") == 2
    assert (
        Choice(2, {"middle": 1, "right": 2}).read(
            "Of the middle and right images, the right one better matches the context."
        )
        == 2
    )
    assert Choice(2).read("Neither image clearly follows; if forced to choose, 2.") == 2
    assert Choice(2).read("H2") == 2 and Choice(2).read("H2O on the floor suggests image 1.") == 1
    update = Label(("strengthener", "weakener"), {"strengthen": "strengthener", "weaken": "weakener"})
    assert update.read("Strengthener? No — weakener.") == "weakener"  # a question is no answer
    assert update.read("The update is strengthening the hypothesis.") == "strengthener"
    # of two labels, rejecting one picks none (a person reads no answer); of two options, it picks the other
    assert update.read("The update doesn't strengthen the hypothesis.") is None
    assert Choice(2).read("Not image 1.") == 2


def test_more_score_forms():
    assert Score().read("I'd give it a solid 7.") == 7.0
    assert Score().read("It is not a 10, since the man could have dried off, but it's at least an 8.") == 8.0
    assert Score().read("| Aspect | Assessment |\n|---|---|\n| Consistency | High |\n| **Score** | **8** |") == 8.0
    assert (
        Score().read("The highlighted region shows 3 people waiting at a bus stop. The inference is quite plausible.")
        is None
    )


def test_score_reads_the_prompts_own_scale_words_only_without_a_number():
    scale = Score(1, 10, labels={"not plausible at all": 1, "slightly plausible": 3, "very plausible": 7})
    assert scale.read("Very plausible.") == 7.0
    assert scale.read("It is not plausible at all.") == 1.0  # not read as the shorter label inside it
    assert scale.read("Very plausible (8).") == 8.0  # a number wins
    assert scale.read("Slightly plausible, maybe very plausible.") is None  # two ratings named
    assert scale.read("plausible") is None
    assert Score(1, 10).read("Very plausible.") is None  # only where the prompt defines the words
    assert scale.read("[LMMS_EVAL_REQUEST_FAILED after 3 retries] very plausible") is None


# ---------------------------------------------------------------- the reading policy

TWO_IMAGES = Choice(2, context_images=1)
COMBINED = Choice(2, {"middle": 1, "right": 2}, context_images=1)
FOUR_IMAGES = Choice(4, context_images=1)
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
UPDATE = Label(("strengthener", "weakener"))
DVE_LABEL = dve.LABEL
CUE_PHRASES = Choice(4, option_texts=("heavy rain", "birthday party", "slippery floor", "broken glass"))
PAIRS_SCALE = {"not plausible at all": 1, "slightly plausible": 3, "very plausible": 7}


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        # the final committed answer wins
        (TWO_IMAGES, "I think it's 1. Actually, no - it's 2, because the road is wet.", 2),
        (Score(), "Score: 8. Hmm, on reflection the lighting differs. I'll lower it to 6.", 6.0),
        (UPDATE, "Weakener... actually, strengthener.", "strengthener"),
        (FOUR_IMAGES, "I'll change my answer to option 1.", 1),
        (TWO_IMAGES, "Image 2 is more plausible? No, on closer inspection image 1 is more plausible.", 1),
        # contradictory replies give no answer
        (TWO_IMAGES, "Image 1 is more plausible. In summary, image 2 is the more plausible hypothesis.", None),
        (FOUR_IMAGES, "Option 2. The stove is on. Therefore, the correct answer is Option 4.", None),
        (UPDATE, "Strengthener. The briefcase suggests she is coming home, which weakens the hypothesis.", None),
        (Score(1, 10, PAIRS_SCALE), "Score: 3. This is very plausible.", None),
        (Score(), "Score: 9\n\nThere is no water anywhere, so the inference is barely plausible.", None),
        (
            Choice(4, option_texts=("heavy rain", "birthday party", "slippery floor", "broken glass")),
            "2. heavy rain",
            None,
        ),
        # an explanation, a concession or a question is no second answer
        (TWO_IMAGES, "Answer: 2. Although image 1 is more plausible at first glance, image 2 explains the floor.", 2),
        (TWO_IMAGES, "At first, image 1 seems more plausible, but image 2 fits better. Final answer: 2", 2),
        (TWO_IMAGES, "I think 2 is more plausible? Hmm. Actually yes, 2.", 2),
        (Choice(2), "Hypothesis 1 is more plausible. It rains; hypothesis 2 (sunbathing) contradicts the rain.", 1),
        (TWO_IMAGES, "Answer: 2. Image 1 is more likely to be in the morning.", 2),
        (Score(), "Plausibility: 8/10. The plausibility of 2 people sharing one umbrella is high.", 8.0),
        (Score(1, 10, PAIRS_SCALE), "Score: 7. The hypothesis is very plausible.", 7.0),
        # a scale word denied is no rating
        (Score(1, 10, PAIRS_SCALE), "It is not very plausible.", None),
        # positions a person reads unambiguously, and those they cannot
        (COMBINED, "Right image: less plausible. Middle image: more plausible.", 1),
        (COMBINED, "The second picture (the middle one, i.e. hypothesis 1) is more plausible.", 1),
        (FOUR_IMAGES, "The third picture from the left, i.e. Option 2, shows the effect.", 2),
        (FOUR_IMAGES, "The fourth image shows the effect.", None),
        (FOUR_IMAGES, "The second image is the effect.", None),
        (
            TWO_IMAGES,
            "In the first image (the context), a man holds an umbrella. The second image is more plausible.",
            1,
        ),
        (FOUR_IMAGES, "Neither the second nor the third image shows the effect.", None),
        (FOUR_IMAGES, "It is not option 1 or option 2. Option 3, the child with paint, is the effect.", 3),
        # letters as option positions
        (FOUR_IMAGES, "(B)", 2),
        (FOUR_IMAGES, "Answer: C. Option C shows the ice cream melting.", 3),
        (TWO_IMAGES, "The answer is (A).", 1),
        # other languages: answer words and digits, not scale words
        (TWO_IMAGES, "答案是 2", 2),
        (TWO_IMAGES, "我认为图2更合理。图1显示她在教室里考试。", 2),
        (TWO_IMAGES, "La imagen 1 es más plausible. La imagen 2 muestra al perro durmiendo.", 1),
        (COMBINED, "L'image de droite (hypothèse 2) est la plus plausible.", 2),
        (COMBINED, "Die mittlere Abbildung (Hypothese 1) ist plausibler.", 1),
        (FOUR_IMAGES, "选项3", 3),
        (TWO_IMAGES, "画像2の方が妥当です。", 2),
        (FOUR_IMAGES, "第三个选项是结果。", 3),
        (TWO_IMAGES, "更合理的是图二。", 2),
        (TWO_IMAGES, "第二张图片更合理。", None),  # "the second image": may count the context image
        (Score(), "Puntuación: 7 de 10", 7.0),
        (Score(), "这个推断十分合理，评分：9", 9.0),  # 十分 is "very" here, no rating
        # a rating on another scale, or below zero, is no rating; a JSON answer is a statement; a table row picks
        (Score(), "Score: 4 out of 5", None),
        (Score(), "Score: -2", None),
        (Score(), "Score - 5", 5.0),
        (TWO_IMAGES, '{"choice": "B"}', 2),
        (TWO_IMAGES, "| Hypothesis | Plausibility |\n| 1 | Low |\n| 2 | High |", 2),
        (TWO_IMAGES, "Image 1. No wait, image 2.", 2),
        (TWO_IMAGES, "A resposta é a imagem 2.", 2),
        (FOUR_IMAGES, "Opción 2. La imagen del efecto muestra un coche.", 2),
        (FOUR_IMAGES, "Número 2: el coche va demasiado rápido.", 2),
        # round 12 (batch U): an opening answer cut off by the token limit, unless a self-correction or another answer
        # follows it; a number labelling its own option's text in a sentence denying it speaks of that option; lists
        (
            DVE_LABEL,
            "Weakener. The hypothesis says a man, but the update says the person is a child, which",
            "weakener",
        ),
        (DVE_LABEL, "Weakener. Wait, the update says the person is a child, which", None),
        (DVE_LABEL, "Weakener. But it could also be a strengthener, because the", None),
        (MUCR_OPTIONS, "Option 2. Or maybe option 3, since the", None),
        (MUCR_OPTIONS, "1. Identify the effect: the effect image shows a shattered window. Next, examine the", None),
        (Score(), "1. The highlighted region shows a man wearing a suit and tie, which suggests that he is", None),
        (
            CUE_PHRASES,
            "The answer is 3 (slippery floor). The effect image shows a fall. 1. heavy rain is not shown.",
            3,
        ),
        (CUE_PHRASES, "The answer is 3.\n\n1. heavy rain is the real cue, since the street is flooded.", None),
        (CUE_PHRASES, "1. The heavy rain is not the cue; the cue is the", None),
        (CUE_PHRASES, "1. heavy rain - the street is flooded.", 1),
        (MUCR_OPTIONS, "Option 1, Option 2, Option 3, Option 4", None),  # a list of three or more heads nothing
        (MUCR_OPTIONS, "Option 1, option 3 and option 4 are unrelated.", None),
        # ratings: a revision or a commitment ends its clause; numbers that are no ratings are not taken
        (Score(), "I'd rate this 5... actually, given the same red collar, 7 is more appropriate.", 7.0),
        (Score(), "Let's say 2 of the 3 clues point to rain. I'd give it a 6.", 6.0),
        (Score(), "I'll pick 2 key clues: the umbrella and the wet ground. Both point to rain.", None),
        (Score(), "On a 1-10 scale where 10 is closer to certainty, this is a solid 8.", None),
        (Score(), "I'd rate this 6. Some might argue 8 is fairer, but the evidence is thin.", 6.0),
        # the other hypothesis's words as the reason, whatever common word the answer's hyphenated word starts with
        (
            Choice(2, option_texts=("A man in soaking wet clothes walks in.", "A well-dressed man walks in.")),
            "Hypothesis 2 is more plausible as well, because it rained heavily, so his clothes would be soaking wet.",
            None,
        ),
        (Score(), "评分：7分。", 7.0),
        (Score(), "Ich würde die Plausibilität mit 4 bewerten.", 4.0),
        (Score(), "Puntuación: 6.", 6.0),
        (Score(), "Pontuação: 5", 5.0),
        (UPDATE, "削弱。", "weakener"),
        (UPDATE, "Fortalece la hipótesis.", "strengthener"),
        (Score(1, 10, PAIRS_SCALE), "Muy plausible.", None),
        # a closed reasoning block is deliberation; the answer follows it
        (
            TWO_IMAGES,
            "<think>Image 1? The coat differs. Going with 2.</think>\nHypothesis image 2 is more plausible.",
            2,
        ),
        (TWO_IMAGES, "<think>The coat differs, so I will go with 2", None),  # cut off while reasoning
        # a choice declined rejects its option; of two, the other is named
        (
            TWO_IMAGES,
            "I would not pick image 2 here. The scene in image 1, a man drying off, is the more natural one.",
            1,
        ),
        # a refusal or "cannot determine which" after the last self-correction overrides any pick
        (TWO_IMAGES, "Image 2 fits better if it came first. Still, I cannot determine which is more plausible.", None),
        (TWO_IMAGES, "I cannot determine the exact time of day, but image 2 is more plausible.", 2),
        (FOUR_IMAGES, "Either Option 2 or Option 4 could be the effect. Option 4 shows a person slipping.", None),
        (FOUR_IMAGES, "Either option 2 or option 4. Actually, option 4 is the effect.", 4),
        # a doubt gives no answer unless a statement of the answer follows its sentence; a refusal to choose never does
        (TWO_IMAGES, "I cannot determine whether image 1 or image 2 is more plausible.", None),
        (TWO_IMAGES, "I can't tell whether it is morning from image 1 alone. Image 2 is more plausible.", 2),
        (TWO_IMAGES, "Either image 1 or image 2 could work, but the answer is 2.", 2),
        (TWO_IMAGES, "Either image 1 or image 2 could work. Image 2 shows more detail.", None),
        (
            Score(),
            "Score: 6\n\nThe man holds keys, but I can't tell whether it is his car.",
            6.0,
        ),  # not the answer's doubt
        (Score(), "Score: 5/10, but I can't determine which details matter.", 5.0),  # nor its refusal
        (TWO_IMAGES, "I cannot determine which is more plausible with certainty, but image 2 is more plausible.", None),
        (UPDATE, "I can't see the image, so I'm unable to judge whether the update strengthens or weakens it.", None),
        (
            UPDATE,
            "The question is whether the update strengthens or weakens the hypothesis. It weakens it.",
            "weakener",
        ),
        # a reply cut off mid-sentence: its headings ("Middle (hypothesis 1): ...") are no answer
        (
            COMBINED,
            "Let's describe each panel.\n\n- **Left (context):** A cake.\n- **Middle (hypothesis 1):** Kids",
            None,
        ),
        (UPDATE, "Strengthener.\n\nThe update shows the woman carrying a", "strengthener"),  # committed, then cut off
        # the answer standing alone after a self-correction
        (UPDATE, "Weakener. Wait - a briefcase suggests she goes to work. Strengthener.", "strengthener"),
        # pictographs are decoration; an arrow gives the answer
        (Choice(2), "Hypothesis 1 ☔️👕💦 - he is in the rain. Hypothesis 2 🏖️ doesn't fit the weather.", 1),
        (CUE_PHRASES, "| 1 | heavy rain | No |\n| 3 | slippery floor | Yes |\n\n→ **3**", 3),
        (CUE_PHRASES, "🎂 2 — birthday party! 🎉", 2),
        (TWO_IMAGES, "Image 1 → less plausible\nImage 2 → more plausible", 2),
        (TWO_IMAGES, "✅ Image 2\n❌ Image 1", 2),
        (Score(), "Score: 7 → 8 after reflection.", 8.0),
        # the statement's wording: "is shown in", ", which is the effect", "corresponds to a 7"
        (FOUR_IMAGES, "The cause image shows rain, so the effect is shown in Option 3.", 3),
        (
            FOUR_IMAGES,
            "The cause image (image 1) shows a candle. Option 3 shows curtains on fire, which is the effect.",
            3,
        ),
        (Score(), "I'd say about 70% plausible, which corresponds to a 7 on your scale.", 7.0),
        # typos of the answers' own words, one edit away (two, or a beginning, for a word standing alone)
        (CUE_PHRASES, "The cue is slipery flor because the hallway was waxed.", 3),
        (UPDATE, "strenghtener", "strengthener"),
        (UPDATE, "It is a weakner.", "weakener"),
        (UPDATE, "weaknr", "weakener"),
        (UPDATE, "weak", "weakener"),
        (UPDATE, "The link is weaker now.", None),
        # the task's label, whose aliases ("strengthened", "weaken") are close too: they name the same label
        (DVE_LABEL, "strenghtener", "strengthener"),
        (DVE_LABEL, "weakner", "weakener"),
        (DVE_LABEL, "weak", "weakener"),
        (CUE_PHRASES, "heavy rian", None),  # a four-letter word is read as written
        (Choice(2, option_texts=("flood", "drought")), "The floor of the house is wet.", None),
        (Choice(2, option_texts=("earthquake", "drought")), "The cue is earthqake.", 1),
        # Korean and Japanese answer words
        (Choice(2), "가설 1이 더 그럴듯합니다. 가설 2는 비 오는 상황과 맞지 않습니다.", 1),
        (COMBINED, "右の画像（仮説2）の方がもっともらしいです。", 2),
        (Score(), "점수: 9", 9.0),
        (Score(), "점수는 7점입니다.", 7.0),
        (TWO_IMAGES, "2번 이미지가 더 그럴듯합니다.", 2),
        (Score(), "Score → 6", 6.0),
        # round 3 (blind batch G): a number its own explanation contradicts names nothing
        (COMBINED, "Hypothesis 2 (middle image) fits the context better.", None),
        (COMBINED, "Hypothesis 2 (right image) fits the context better.", 2),
        (CUE_PHRASES, "4 - birthday party, since there is cake on the table.", None),
        (CUE_PHRASES, "2 - birthday party, since there is cake on the table.", 2),
        # a conditional reply, or one cut off on an article and a word, gives no answer
        (Score(), "That depends on the season: in summer about 7, in winter closer to 2.", None),
        (COMBINED, "First I compare the middle and right panels with the context. The right", None),
        # "image 3" after a context image, where the prompt numbers the options "Option k", names no option
        (MUCR_OPTIONS, "Image 2 is the effect of the first image.", None),
        (MUCR_OPTIONS, "Option 2 is the effect of the first image.", 2),
        (FOUR_IMAGES, "Image 2 is the effect.", 2),
        (MUCR_OPTIONS, "Image 1 is the cause image. Image 3 shows the effect, so image 3.", 2),
        # a label argued against by its own explanation (LABEL_VERBS)
        (UPDATE, "Strengthener\n\nThe wet floor undermines the idea that nobody was home.", None),
        (UPDATE, "Strengthener\n\nThe dog's leash supports the hypothesis that he went for a walk.", "strengthener"),
        (UPDATE, "Weakener. At first the bag seems to support the idea, but it is a gym bag.", "weakener"),
        (UPDATE, "Strengthener ✅ / Weakener ❌", "strengthener"),
        (UPDATE, "debilitador", "weakener"),
        # letters, a final answer and a revised score
        (FOUR_IMAGES, "answer: c", 3),
        (FOUR_IMAGES, "C. The glass fell off the shelf and broke.", 3),
        (FOUR_IMAGES, "My first choice would have been option 2. Final: option 4.", 4),
        (Score(), "Score: 8\n\nOn the table there is an umbrella too.\n\nRevised score: 5", 5.0),
        (CUE_PHRASES, "It isn't the heavy rain or the broken glass; the cake points to a birthday party.", 2),
        (CUE_PHRASES, "broken", 4),
        # a repetition loop cut off mid-sentence: every complete sentence names the answer
        (FOUR_IMAGES, "Option 2 is the cause. Option 2 is the cause. Option 2 is the cause. Option 2 is", 2),
        (FOUR_IMAGES, "Option 2 shows a cup. Option 3 shows a dog. Option 4 shows a", None),
        # more languages: Russian, Arabic, Hindi answer words, other scripts' digits, German number words
        (Choice(2), "Гипотеза 2 более правдоподобна.", 2),
        (FOUR_IMAGES, "Ответ: 3.", 3),
        (Choice(2), "الفرضية الثانية هي الأكثر معقولية.", 2),
        (FOUR_IMAGES, "الخيار الثالث هو الأكثر معقولية.", 3),
        (TWO_IMAGES, "Изображение 2 более правдоподобно.", 2),
        (Score(), "الدرجة: ٨", 8.0),
        (Score(), "स्कोर: ५", 5.0),
        (Choice(2), "परिकल्पना 2 अधिक संभावित है।", 2),
        (Score(), "Ich würde die Plausibilität mit acht bewerten.", 8.0),
    ],
)
def test_the_reading_policy(kind, answer, expected):
    assert kind.read(answer) == expected


COMBINED_PANELS = Choice(2, aliases={"left": 0, "middle": 1, "right": 2}, context_images=1)
PAIRS_WORDS = Score(labels={"not plausible at all": 1, "slightly plausible": 3, "moderately plausible": 5})
HYPOTHESES = Choice(2, option_texts=("The man is wet.", "The man is on a beach."))


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        # chat-template artefacts; a role marker separates an echoed prompt from the reply, a user turn ends it
        (Score(), "ASSISTANT: 6</s>", 6.0),
        (FOUR_IMAGES, "<|im_start|>assistant\n2<|im_end|>", 2),
        (Choice(2), "USER: <image> Which image (1 or 2) is more plausible? ASSISTANT: 2", 2),
        (UPDATE, "ASSISTANT: The update is a weakener. USER:", "weakener"),
        (FOUR_IMAGES, "Option 2Option 2Option 2", 2),
        # "Final answer" restates the answer; "Therefore: 3"; "It's 4 - ..."
        (FOUR_IMAGES, "I first thought option 1, the broken cup. Hmm. Final answer: 3", 3),
        (FOUR_IMAGES, "Option 1 is out. Therefore: 3", 3),
        (FOUR_IMAGES, "Not 1. It's 4 - the storm flooded the street.", 4),
        # the answer's role with its option; a contradiction between them is no answer
        (FOUR_IMAGES, "Option 1 shows a cat. The effect of the fire in the cause image is Option 2.", 2),
        (FOUR_IMAGES, "Option 3. The cause is the boy kicking the ball shown in Option 1, which broke it.", None),
        (FOUR_IMAGES, "3\n\nOption 1 shows the effect, because the vase is broken there.", None),
        (FOUR_IMAGES, "The effect could be in option 2 or option 4.", None),
        # cut off on a prepositional phrase or on a heading
        (COMBINED_PANELS, "Let me compare. The left panel shows rain. In the middle panel", None),
        (FOUR_IMAGES, "Let me check each option in turn. Option 2:", None),
        # refusals that name options
        (FOUR_IMAGES, "None of the options shows the effect; option 2 is the closest but still wrong.", None),
        (
            FOUR_IMAGES,
            "It is unclear whether option 1 or option 3 is the cause, so I cannot determine a single answer.",
            None,
        ),
        (FOUR_IMAGES, "I can't make out Options 1 through 4 well enough to choose.", None),
        (FOUR_IMAGES, "Option 3 is the effect; none of the other options show water.", 3),
        # lists head no pick; the context panel named for an option contradicts it
        (CUE_PHRASES, "I would say 1 and 3 are equally valid.", None),
        (COMBINED_PANELS, "Image 1 (the left one) is more plausible.", None),
        (COMBINED_PANELS, "The more plausible hypothesis image is the one in the middle.", 1),
        (COMBINED_PANELS, "I find the rightmost panel more plausible.", 2),
        (
            TWO_IMAGES,
            "The second image overall - i.e. Hypothesis 1 - is more plausible. The first image (the context) ...",
            1,
        ),
        # a scale restated, scale words making a range
        (PAIRS_WORDS, "1: Not plausible at all, 3: Slightly plausible, 5: Moderately plausible. I'd say 5.", 5.0),
        (PAIRS_WORDS, "Somewhere between slightly and moderately plausible.", None),
        # a label's effect stated without its verb
        (UPDATE, "The update makes the hypothesis less likely.", "weakener"),
        (UPDATE, "Weakener. The briefcase makes the hypothesis more likely.", None),
        # hypotheses counted by ordinals; a quoted hypothesis text; typos of the tables' words
        (TWO_IMAGES, "The second image. The first hypothesis image shows a beach, the second one the rain.", 2),
        (TWO_IMAGES, "The second image is more plausible. It shows what the context image shows later.", None),
        (HYPOTHESES, '"The man is wet" is more plausible.', 1),
        (Choice(2), "hypothsis 1 is more plasuible", 1),
        # letters: alone on the first line before an explanation; since round 17 also a letter that is the whole reply
        (FOUR_IMAGES, "D\n\nThe effect shows a flood; D shows the storm.", 4),
        (FOUR_IMAGES, "D", 4),
        (Choice(2), "Answer: A\n\nThe rain explains it.", 1),
    ],
)
def test_the_reading_policy_of_rounds_4_and_5(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            FOUR_IMAGES,
            "Option 1 at first. On second thought, option 1 is a different scene. The effect is in Option 4.",
            4,
        ),
        (FOUR_IMAGES, "### Option 1\nA dog.\n\n### Option 2\nA storm.\n\n### Decision\nOption 2.", 2),
        (FOUR_IMAGES, "Effect image\nA large tree, split.\n\nThe cause is option 3.", 3),  # no letter across a line
        (COMBINED_PANELS, "The second hypothesis (the right-hand image) is the more plausible.", 2),
        (CUE_PHRASES, "- [ ] 1. heavy rain\n- [x] 3. slippery floor\n- [ ] 4. broken glass", 3),
        (FOUR_IMAGES, "| Option | Shows | Cause? |\n|---|---|---|\n| 1 | a jogger | ✗ |\n| 3 | a lifter | ✓ |", 3),
        (Score(), "Not a 10, not as low as a 3. I'd settle on a 6.", 6.0),
        (Choice(2), "두 번째 가설 이미지가 더 그럴듯합니다.", 2),
        (CUE_PHRASES, "정답은 3번입니다.", 3),
        (CUE_PHRASES, '{"cue_number": 3, "phrase": "broken glass"}', None),  # the phrase is cue 4
        (COMBINED_PANELS, '{"hypothesis": 2, "confidence": 0.7, "hypothesis_1": "an empty room"}', 2),
    ],
)
def test_the_reading_policy_of_round_7(kind, answer, expected):
    assert kind.read(answer) == expected


HYPOTHESIS_TEXTS = Choice(2, option_texts=("The man's clothes are soaking wet.", "The man is sunbathing on a beach."))


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        # an option that does not exist, standing as the answer, names none (not "the last picture" after it)
        (MUCR_OPTIONS, "Option 5. The effect image shows a broken umbrella and the last picture shows wind.", None),
        (MUCR_OPTIONS, "Option 5. Wait, there are four: Option 4.", 4),
        (MUCR_OPTIONS, "4.\nThe effect is in the last picture.", 4),  # a bare number is no named option
        # the context counted first by the reply itself: its image counts are shifted back
        (COMBINED_PANELS, "The context (first image in the row) shows a tree. The second image is more plausible.", 1),
        (TWO_IMAGES, "The context image, i.e. the first image, shows rain. The third image is more plausible.", 2),
        (TWO_IMAGES, "The second image is more plausible. It follows the context image.", None),  # counts unknown
        # an enumeration of the hypotheses cut off at the next one's name
        (
            HYPOTHESIS_TEXTS,
            "Let's consider each hypothesis. Hypothesis 1 states the man is wet. That depends on a roof. Hypothesis 2",
            None,
        ),
        (Choice(2), "Both fit at first. On reflection, the rain decides it. Hypothesis 2 is more plausible", 2),
        # a numbered list of reasons under the answer: its numbers are no answers
        (MUCR_OPTIONS, "Option 4.\n\n1. The cause shows snow.\n2. Option 4 shows a snowman.\n3. No other fits.", 4),
        (MUCR_OPTIONS, "Option 4.\n\n2. The cause image shows snow.\n3. Option 4 shows a snowman.", None),  # not from 1
    ],
)
def test_the_reading_policy_of_round_8(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        # "Sorry, I mean ..." corrects the answer before it, a spaced dash after the corrected pick included
        (HYPOTHESIS_TEXTS, "Hypothesis 2 is more plausible. Sorry, I mean Hypothesis 1 - the rain soaks him.", 1),
        (FOUR_IMAGES, "Option 3. Sorry, option 2.", 2),
        (FOUR_IMAGES, "Option 3. I meant to say more about the dog: it is wet.", 3),  # no pick after the correction
        # a number explained after a dash by an option text that the sentence goes on from
        (CUE_PHRASES, "2 - heavy rain explains why the road is covered in water.", None),  # heavy rain is cue 1
        (CUE_PHRASES, "1 - heavy rain explains why the road is covered in water.", 1),
        (CUE_PHRASES, "3 - slippery floor and nothing else.", 3),
    ],
)
def test_the_reading_policy_of_round_9(kind, answer, expected):
    assert kind.read(answer) == expected


# Reading round 10: each case reads otherwise with the reader before it (the round-9 reader)
@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        # a LaTeX box states the answer, its math delimiters and \text{} are no text
        (MUCR_OPTIONS, "The nails on the road lead most directly to a flat tire. So the answer is \\boxed{2}.", 2),
        (MUCR_OPTIONS, "Only the baseball game explains the broken window.\n\n$$\\boxed{\\text{Option } 3}$$", 3),
        (TWO_IMAGES, "Hypothesis 1 directly explains the broken vase.\n\nFinal answer: \\boxed{1}", 1),
        (Score(), "A wedding almost always includes exchanging rings.\n\nFinal score: \\boxed{9}", 9.0),
        (TWO_IMAGES, "The rain decides it.\n\n\\[\n\\boxed{\\text{B}}\n\\]", 2),
        (MUCR_OPTIONS, "Option 2 shows the effect.\n\n\\boxed{4}", None),  # a box contradicting the stated answer
        # the answer first, then "none of them" about the other options
        (
            MUCR_OPTIONS,
            "3\n\nThe boy with the bat explains the broken window. Options 1, 2 and 4 show a cat, a cake and a jogger; "
            "none of them can explain it.",
            3,
        ),
        (
            CUE_PHRASES,
            "3 (slippery floor)\n\nThe spilled water made the tiles slick. Heavy rain, a birthday party, broken glass: "
            "none of them explain the fall.",
            3,
        ),
        # an invented option heading one item of a description, or followed by a stated answer; an invented image
        (
            MUCR_OPTIONS,
            "Option 1: a cat.\nOption 2: a flooded street.\nOption 3: a cake.\nOption 4: a dry road.\n"
            "Option 5: an umbrella.\n\nThe cause image shows rain, so the answer is Option 2.",
            2,
        ),
        (MUCR_OPTIONS, "Option 5\n\nThe cause image shows rain. The answer is Option 2.", 2),
        (
            TWO_IMAGES,
            "The fifth image shows a man on a beach, which does not fit. The more plausible one is image 1.",
            1,
        ),
        (TWO_IMAGES, "The fourth image shows a beach, which does not fit. So image 2 is more plausible.", 2),
        # an option text named in passing, describing an image or as the consequence, is no pick
        (
            CUE_PHRASES,
            "The cause image shows children at a birthday party spilling drinks on the tiles, and the effect image "
            "shows a woman who has fallen. The wet tiles made her slip.",
            None,
        ),
        (
            CUE_PHRASES,
            "The spilled oil made the tiles slick, which led to the woman falling and the broken glass on the floor.",
            None,
        ),
        (CUE_PHRASES, "The effect of the slick, wet tiles is broken glass: she dropped her tray when she fell.", None),
        (CUE_PHRASES, "The slippery floor is the link; the effect is broken glass.", 3),
        (CUE_PHRASES, "Effect: broken glass on the floor. Cause: slippery floor.", 3),
        # batches Q and S: Japanese 番; "It's 3:"; a second pick set off by an appositive contradicts the first
        (CUE_PHRASES, "2番です。誕生日パーティーが二つの画像をつなぐ手がかりです。", 2),
        (CUE_PHRASES, "The answer is not 1 - there is no sign of weather. It's 3: the floor is covered in oil.", 3),
        (
            COMBINED_PANELS,
            "1 is more plausible. The right image, showing the girl with a cast, better explains the crutches.",
            None,
        ),
        (
            TWO_IMAGES,
            "1 is more plausible. However, image 2 - the couple cutting the cake - is the one that fits best.",
            None,
        ),
        # ... a reply ending on a word no sentence ends on is cut off; "I'll revise:", "Thinking about it more",
        # "So actually" correct; "It's difficult to say which" doubts; "should be" states
        (
            TWO_IMAGES,
            "Comparing the two hypotheses, the context shows a bandaged knee, and the first hypothesis shows",
            None,
        ),
        (UPDATE, "strengthener\n\nWait - races are held on roads, not park paths. I'll revise: weakener.", "weakener"),
        (
            MUCR_OPTIONS,
            "I would go with Option 4. Hmm, but the watering can suggests long-term care, so maybe Option 2. "
            "It's difficult to say which is intended.",
            None,
        ),
        (
            MUCR_OPTIONS,
            "1\n\nA sprinkler would not flood a lawn. Thinking about it more, a storm would. So it is Option 3.",
            3,
        ),
        (CUE_PHRASES, "1\n\nThe rain doesn't make her fall. So actually the answer should be 3, slippery floor.", 3),
        # ... the rightmost picture is the last option; the first image named by the context's role counts the context
        (MUCR_OPTIONS, "The rightmost picture is the cause: it shows a truck spilling oil on the road.", 4),
        (
            MUCR_OPTIONS,
            "The first image (the cause) shows open car windows. The second image shows soaked seats. "
            "Therefore, the second image shows the effect.",
            1,
        ),
        (
            MUCR_OPTIONS,
            "The first image shows the cause, a jam. Let me reconsider: the first image is the effect. "
            "So the cause is Option 3.",
            3,
        ),
    ],
)
def test_the_reading_policy_of_round_10(kind, answer, expected):
    assert kind.read(answer) == expected


# ... and guards that read as before round 10
@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            MUCR_OPTIONS,
            "Option 1 shows a cat, Option 2 a cake, Option 4 a jogger. None of them can explain the broken window.",
            None,
        ),
        (MUCR_OPTIONS, "None of them fits perfectly, but Option 3 is the closest.", None),
        (MUCR_OPTIONS, "Answer: 3\n\nActually, looking again, none of them show the effect.", None),
        (MUCR_OPTIONS, "Option 3 is the effect; none of the other options show water.", 3),
        (MUCR_OPTIONS, "Option 5. The effect image shows a broken umbrella and the last picture shows wind.", None),
        (MUCR_OPTIONS, "Option 5. Wait, there are four: Option 4.", 4),
        (TWO_IMAGES, "The second image is more plausible.", None),  # a count of the images shown names no option
        (MUCR_OPTIONS, "The second image shows the effect.", None),
        (TWO_IMAGES, "The third image is more plausible.", 2),
        (CUE_PHRASES, "The cause image shows heavy rain, which explains the flood.", 1),
        (CUE_PHRASES, "The cause image shows a storm, and the heavy rain explains the flooded street.", 1),
        (CUE_PHRASES, "The cue is heavy rain: the cause image shows heavy rain and the effect a flood.", 1),
        (CUE_PHRASES, "The flood was caused by heavy rain.", 1),
        (CUE_PHRASES, "The effect is the fall caused by the slippery floor.", 3),
        (CUE_PHRASES, "The effect image shows a woman who slipped because of the slippery floor.", 3),
        (CUE_PHRASES, "3. The cause image shows a birthday party where juice spilled on the tiles.", 3),
        (Choice(4, letters=True), "A", 1),
        # the answer a reply opens with, as the prompt asks ("Answer with the option number first, then explain"),
        # stands when the token limit cuts the explanation (round 12; no answer before: batch U's writer reads it)
        (MUCR_OPTIONS, "Option 2. The cause image shows a", 2),
        (TWO_IMAGES, "It's hard to say which is more plausible at first, but I'd go with image 2.", 2),
        (Score(), "I'd give it a 6-7.", None),  # a range names no rating
    ],
)
def test_round_10_guards(kind, answer, expected):
    assert kind.read(answer) == expected


# Round 13 (batches V and O): how a reply counts the panels, and the options it describes itself; with the replies a
# blind reviewer wrote against each rule, where the rule must not fire
@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        # "Image 2" with the middle panel spoken of for itself first: the reply may count the context panel
        (
            COMBINED_PANELS,
            "Image 2 is more plausible. The middle image, which shows the girl blowing out the candles, follows the "
            "context, whereas the right image shows a girl asleep.",
            None,
        ),
        (COMBINED_PANELS, "Image 2 is more plausible. The right image shows her blowing out the candles.", 2),
        (COMBINED_PANELS, "Image 1 is more plausible. The middle image shows her blowing out the candles.", 1),
        (
            COMBINED_PANELS,
            "Image 2 is more plausible. Unlike the middle image, where the girl is fast asleep, the right image shows "
            "her blowing out the candles.",
            2,
        ),
        (
            COMBINED_PANELS,
            "Image 2 is more plausible. The middle image shows the man completely dry, which does not fit the heavy "
            "rain in the context, while the right image shows him soaked.",
            2,
        ),
        (
            COMBINED_PANELS,
            "Image 2 is the more plausible one. Both the middle and right images show the girl, but only in the right "
            "one is she blowing out the candles.",
            2,
        ),
        (TWO_IMAGES, "Image 2 is more plausible. The middle image shows her blowing out the candles.", 2),
        # the options described in order, and a reason in another option's words only
        (
            MUCR_OPTIONS,
            "Option 1 to Option 4 show, in order: a woman baking, a man jogging, a boy throwing a stone at a window, "
            "and a cat sleeping. The effect image shows a broken window, so the cause is Option 2.",
            None,
        ),
        (
            MUCR_OPTIONS,
            "Options 1 to 4 show a woman baking, a man jogging, a boy throwing a stone at a window, and a cat "
            "sleeping, respectively. The effect image shows a broken window, so the cause is Option 2.",
            None,
        ),
        (
            MUCR_OPTIONS,
            "Option 1 to Option 4 show, in order: a woman baking, a man jogging, a boy throwing a stone at a window, "
            "and a cat sleeping. The effect image shows a tired runner, not a broken window, so the cause is Option 2.",
            2,
        ),
        (
            MUCR_OPTIONS,
            "Option 1 to Option 4 show, in order: a woman baking, a man jogging, a boy throwing a stone at a window, "
            "and a cat sleeping. The answer is Option 3.",
            3,
        ),
        # an answer in the words of the reply's own description of one option
        (
            MUCR_OPTIONS,
            "Option 3 shows a person holding an umbrella, and Option 2 shows a wet kitchen floor with a puddle under "
            "the sink. The cause image shows a leaking pipe under a sink, so the effect is the wet floor.",
            2,
        ),
        (
            MUCR_OPTIONS,
            "Option 1: a girl crying over a scraped knee. Option 2: a girl smiling with a trophy. The cause image "
            "shows a girl falling off her bike, so the effect is the girl crying.",
            1,
        ),
        (
            MUCR_OPTIONS,
            "Option 1 shows a boy kicking a football. Option 2 shows a man washing a window. The effect image shows a "
            "broken window, therefore the cause must be something hitting the window.",
            None,
        ),
        (
            MUCR_OPTIONS,
            "Option 2 shows a man washing a window. Option 4 shows a child playing football in the yard. The effect "
            "image shows a shattered window, so the answer is related to the window.",
            None,
        ),
        (
            MUCR_OPTIONS,
            "Option 2 shows a chef chopping onions. Option 4 shows a kitchen on fire. The cause image shows a pan left "
            "on a hot stove, so the effect is what happens in the kitchen.",
            None,
        ),
        (
            MUCR_OPTIONS,
            "Option 1 shows a man washing a window. Option 2 shows a boy with a ball. The effect image shows a broken "
            "window, so the cause is the window.",
            None,
        ),
    ],
)
def test_round_13_guards(kind, answer, expected):
    assert kind.read(answer) == expected


NLEYE_PAIRS = nleye_hooks.PAIRS_ANSWER
PRESENTS = nleye_hooks.triplet_text_answer(
    {
        "shown_descriptions": [
            "A child sits on the floor, holding an unwrapped rectangular present.",
            "A child sits on the floor, holding an unwrapped ball-shaped present.",
        ]
    }
)
SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})


# Round 14 (batch W): answers their own words contradict, a closing heading against the sentence before it, and the
# forms W's writer read that the reader left unread
@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (SPEEDING, "Speeding (option 3). The car in the left image is going far over the limit.", None),
        (SPEEDING, "Speeding (option 2). The car in the left image is going far over the limit.", 2),
        (
            MUCR_OPTIONS,
            "Option 2 shows the bent wheel under the car, so the effect is in Option 2.\nFinal answer: 3",
            None,
        ),
        (MUCR_OPTIONS, "Option 2 shows the bent wheel, so the effect is in Option 2.\nFinal answer: 2", 2),
        (MUCR_OPTIONS, "The effect is in Option 2. Wait, the wheel is in Option 3.\nFinal answer: 3", 3),
        (NLEYE_PAIRS, "Score: 3 (Very plausible). The gardener harvests the tomatoes.", None),
        (NLEYE_PAIRS, "Score: 8 (very plausible)", 8.0),
        (NLEYE_PAIRS, "It isn't a 1 (not plausible at all). Score: 7", 7.0),
        (
            PRESENTS,
            "Hypothesis 2 is more plausible. The child unwrapped it to reveal a rectangular present, exactly as "
            "described in Hypothesis 1.",
            None,
        ),
        (PRESENTS, "Hypothesis 1 is more plausible: it is a box, exactly as described in Hypothesis 1.", 1),
        (
            MUCR_OPTIONS,
            "Option 3. Correction: the effect is the broken vase in Option 1, not the boy sweeping up in Option 3.",
            1,
        ),
        (MUCR_OPTIONS, "Option 3. The effect is not the broken vase in Option 1.", 3),
        (TWO_IMAGES, "Image 2, the third one shown, is more plausible.", 2),
        (TWO_IMAGES, "The second one is more plausible.", 2),
        (NLEYE_PAIRS, "我给这个假设图像打8分（非常合理）。", 8.0),
        (SPEEDING, "La risposta è 2 (eccesso di velocità). L'auto viaggia molto veloce.", 2),
        (PRESENTS, "The more plausible hypothesis is that the child is holding an unwrapped rectangular present.", 1),
        (MUCR_OPTIONS, "C — the image of the boy crying and holding his scraped knee.", 3),
        (MUCR_OPTIONS, "A boy is crying in Option 3.", 3),
        (
            MUCR_OPTIONS,
            "Following the examples: Example 1 → Option 1, Example 2 → Option 2. For the question, the cause is "
            "Option 4, where the dog runs through puddles.",
            4,
        ),
        (SPEEDING, "Réponse : 3 (excès de vitesse)", None),  # the phrase may be another option's: no answer
        (SPEEDING, "Answer: 2 (attack)", None),
        # a blind review's replies against the round's first version (tests/shared/FIRST_CONTACT.md)
        (MUCR_OPTIONS, "B — no wait, C.", None),
        (MUCR_OPTIONS, "A — B — C — D: the correct one is C.", None),
        (
            PRESENTS,
            "It is not likely that the child is holding an unwrapped ball-shaped present, since the box was "
            "rectangular.",
            1,
        ),
        (PRESENTS, "The child is not holding the ball-shaped present.", 1),
        (PRESENTS, "It would be strange for the child to hold the ball-shaped present.", 1),
        (PRESENTS, "The child is holding an unwrapped ball-shaped present, which contradicts the rectangular box.", 1),
        (PRESENTS, "The child is holding an unwrapped ball-shaped present? Unlikely. The box was rectangular.", 1),
        (COMBINED_PANELS, "One could argue the middle image (1) is more plausible.\nFinal answer: 2", 2),
        (MUCR_OPTIONS, "Option 2 could be the effect, but it is not.\nFinal answer: 4", 4),
        (MUCR_OPTIONS, "Option 2 is the effect.\nFinal answer: 3", None),
        (
            MUCR_OPTIONS,
            "Option 3. One might think the effect is the puddle in Option 1, but the wet floor in Option 3 fits "
            "better.",
            3,
        ),
        (MUCR_OPTIONS, "Option 2. The effect is the same as in Option 4, but clearer here.", 2),
        (
            PRESENTS,
            "Hypothesis 2 is more plausible. The child sits on the floor, exactly as described in Hypothesis 1 too.",
            2,
        ),
    ],
)
def test_round_14_guards(kind, answer, expected):
    assert kind.read(answer) == expected


# Round 15 (batch X)
@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            COMBINED_PANELS,
            "Between the middle picture and the one on the right, I find the one on the right more "
            "believable, since the man is holding up his catch.",
            2,
        ),  # fmt: skip
        (TWO_IMAGES, "I consider image 1 the most plausible.", 1),
        (TWO_IMAGES, "I find image 1 less plausible.", 2),  # of two, the other
        (
            PRESENTS,
            "Hypothesis 2 would be more plausible if we assume the box was only packaging; however, the "
            "present itself is rectangular. So I'd go with Hypothesis 1.",
            1,
        ),  # fmt: skip
        (PRESENTS, "The ball-shaped one is less likely. I'd pick the rectangular present.", 1),
        (NLEYE_PAIRS, "On a scale from 1 to 10, I would place this hypothesis at a 2. The envelope is sealed.", 2.0),
        (NLEYE_PAIRS, "I'd put it at 7.", 7.0),
        (MUCR_OPTIONS, "Example 1: Option 1. Example 2: Option 2. Question: Option 4.", 4),
        (MUCR_OPTIONS, "The cause is Option 4. Example 3: Option 1.", 4),
    ],
)
def test_round_15_guards(kind, answer, expected):
    assert kind.read(answer) == expected


# Round 16 (batch Y), with the replies of a blind review of the round's first version
@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            MUCR_OPTIONS,
            "Step 1: The cause image shows a candle next to a curtain. This could lead to a fire, which is "
            "what option 3 might be showing.",
            None,
        ),  # fmt: skip
        (
            MUCR_OPTIONS,
            "In Example 1 the cause was shown in Option 1 and in Example 2 it was shown in Option 2, but the "
            "position is not fixed. A dishwasher could leak, but",
            None,
        ),  # fmt: skip
        (TWO_IMAGES, "Both 1 and 2 are plausible, but 1 is slightly more so because of the setting sun.", 1),
        # both denied: no answer (before the round, 2: a silent misread)
        (TWO_IMAGES, "Image 1 is implausible, and image 2 is even more so.", None),
        (PRESENTS, "Hypothesis 1 is unlikely, and hypothesis 2 is much more so.", None),
        (TWO_IMAGES, "I don't think 1 is more plausible; they are equally likely.", None),
        (TWO_IMAGES, "I don't think 1 is more plausible; 2 fits the rain.", 2),
        (MUCR_OPTIONS, "Option 1 shows the effect: the boy is crying. Options 2, 3 and 4 show unrelated scenes.", 1),
        (MUCR_OPTIONS, "Option 3 shows the effect, perhaps. It is hard to tell; it could also be Option 1.", None),
        (MUCR_OPTIONS, "Option 3 shows the effect, maybe.", None),
        (MUCR_OPTIONS, "Option 3 shows the effect. Or maybe Option 1 does; I cannot tell.", None),
        (MUCR_OPTIONS, "Option 3 is correct, but so is Option 1, so I cannot decide.", None),
        (MUCR_OPTIONS, "Option 3 (the third candidate in image 3) shows the cause: the boy left the tap running.", 3),
        (MUCR_OPTIONS, "Option 4\n- Effect: the plant in option 4 is wilted.\n- Options 1-3 show healthy plants.", 4),
        (MUCR_OPTIONS, "Options 2-4 all show possible effects, so I cannot pick a single one.", None),
        (MUCR_OPTIONS, "③ — the cyclist riding through a muddy puddle.", 3),
        (SPEEDING, "Answer: Speeding is the cue — the car is going too fast in the cause image.", 2),
        (TWO_IMAGES, "The girl holding the kite — that's the first of the two hypothesis images.", 1),
        (PRESENTS, "Hypothesis 2 is more plausible. Toys such as balls are often packed inside rectangular boxes.", 2),
        (PRESENTS, "Hypothesis 1, because the shape of the present stays the same when the paper comes off.", 1),
    ],
)
def test_round_16_guards(kind, answer, expected):
    assert kind.read(answer) == expected


# Rounds 17 to 19: (round, kind, reply, what a person reads); each round with the replies of the blind reviews of its
# first versions (tests/shared/FIRST_CONTACT.md)
LATE_ROUND_GUARDS = [
    # Round 17 (batch Z), with the replies of two blind reviews of the round's first versions (a reply that is only a
    # letter is read since this round: see test_letters_as_option_positions_where_a_person_reads_them)
    # the question's or the given image named after the answer, cause or effect is no option
    (17, MUCR_OPTIONS, "Following the examples (Option 1, then Option 2), the answer for image 3 is Option 4.", 4),
    (17, MUCR_OPTIONS, "The cause of the effect in image 3 is shown in the fourth option, where she chops onions.", 4),
    (17, MUCR_OPTIONS, "The cause of the effect in image 3 is the rain.", None),
    (17, MUCR_OPTIONS, "The cause of the effect in image 3 is shown in image 4.", None),
    (17, MUCR_OPTIONS, "The answer for image 2 is Option 2. The question image shows Option 4 as the cause.", None),
    (17, TWO_IMAGES, "The effect of the cause in image 1 is shown in image 2.", None),
    # the phrase that explains the link, alone in its clause; an option owning another's word is none of them
    (17, SPEEDING, "So the phrase that explains the causal link is number 2, speeding.", 2),
    (17, SPEEDING, "The phrase that best explains the change in the road is car.", None),
    (17, SPEEDING, "The phrase that best explains the causal link is the car on the road.", None),
    (17, SPEEDING, "The cue is the car's speeding.", None),
    (17, SPEEDING, "The cue is the car, or perhaps the speeding.", None),
    # an answer on a condition, another otherwise
    (17, MUCR_OPTIONS, "The answer is Option 4 if the glass broke; otherwise Option 3.", None),
    (17, NLEYE_PAIRS, "Score: 8 if the context comes first; otherwise 3.", None),
    # Vietnamese: the answer stated, and the words that revise or doubt it; an option named alone is not read
    (17, MUCR_OPTIONS, "Đáp án: Lựa chọn 2. Hình ảnh kết quả cho thấy một chiếc xe bị thủng lốp.", 2),
    (17, MUCR_OPTIONS, "Đáp án: Lựa chọn 2. Không, Lựa chọn 4.", None),
    (17, MUCR_OPTIONS, "Đáp án: Lựa chọn 4? Không chắc.", None),
    (17, MUCR_OPTIONS, "Phương án 2 sai.", None),
    # a possibility conceded to the other hypothesis, ending its sentence, explains nothing in its words; the other
    # hypothesis's whole text affirmed does
    (17, PRESENTS, "Probably Hypothesis 1, though a ball could in principle have been packed in a box before.", 1),
    (17, PRESENTS, "Hypothesis 1, though a ball might be inside, which seems more likely.", None),
    (17, PRESENTS, "Hypothesis 1, though the present is ball-shaped and it might roll.", None),
    (17, PRESENTS, "Hypothesis 1. The child is holding the ball-shaped present after unwrapping it.", None),
    # dropped after the reviews: the first versions read these (French scores with words the reader does not
    # know, an option counted among all, a cut-off reply's opening number, which may head a first step)
    (17, NLEYE_PAIRS, "Une note de 7 serait trop élevée; je donne 4.", None),
    (17, MUCR_OPTIONS, "The third of the four options might seem right, but it is not.", None),
    (
        17,
        TWO_IMAGES,
        "1. The context image depicts a toddler sitting on a rug holding a wrapped rectangular box. Hypothesis "
        "image 1 shows an opened box. Hypothesis image 2 shows",
        None,
    ),  # fmt: skip
    # Round 18 (batch AA's silent misreads), with the replies of a blind review of the round's first version
    (18, TWO_IMAGES, "In image 1 the glass lies shattered, making image 1 the more plausible one.", 1),
    (
        18,
        TWO_IMAGES,
        "Image 2 is more plausible. In image 1 the glass lies shattered on the floor, which is exactly what "
        "would follow, making image 1 the more plausible one.",
        None,
    ),  # fmt: skip
    (18, MUCR_OPTIONS, "A lack of water: the second option from the right, with the empty watering can.", 3),
    (18, MUCR_OPTIONS, "The first choice from the left shows the effect.", 1),
    (
        18,
        MUCR_OPTIONS,
        "The cause image shows a cat knocking a vase off a shelf. Option 3 clearly shows the vase shattered "
        "on the floor, which is the effect. Option 1 shows the vase intact on the shelf.\nFinal answer: 1",
        None,
    ),  # fmt: skip
    # an answer standing alone, taken back in words the tables do not know, is no statement against the closing
    (
        18,
        MUCR_OPTIONS,
        "Option 4 - the man slipping on the wet floor. Hmm, that's actually another effect, not the cause. The "
        "cause of the wet floor is the overturned bucket in Option 3. Final answer: 3.",
        3,
    ),  # fmt: skip
    # a hedged statement is none either; an opening label alone just before the closing still is one
    (18, MUCR_OPTIONS, "One could argue Option 2 is the effect. Option 3 shows the flood.\nFinal answer: 3", 3),
    (18, DVE_LABEL, "Strengthener. Final answer: weakener", None),
    # "final" heads an answer, it is no count of the options ("Final choice: 3" read 4 before)
    (18, MUCR_OPTIONS, "The flooded road is the result of the storm. Final choice: 3", 3),
    (18, MUCR_OPTIONS, "The final choice is 2.", 2),
    (18, MUCR_OPTIONS, "The final option shows the wildfire.", 4),
    # Round 19 (batch AB's silent misreads)
    (19, MUCR_OPTIONS, "The cause is shown in the second-to-last picture, where the toy lies on the stairs.", 3),
    (19, MUCR_OPTIONS, "The penultimate option shows the effect.", 3),
    (19, MUCR_OPTIONS, "1. First, let's look at the cause image: it shows a candle burning next to a curtain.", None),
    (19, MUCR_OPTIONS, "1. Let's look at the cause image first.", None),
    # "the options one by one" names no option (read 1 before)
    (19, MUCR_OPTIONS, "Let's compare the options one by one. The flood follows from the rain.", None),
    (19, TWO_IMAGES, "I looked at the images one by one; both fit the context.", None),
    (19, MUCR_OPTIONS, "1. The candle sets the curtain on fire.", 1),
    # dropped after the blind review: a statement with "because" after it, and an option after a comma, read
    # replies that hedge or name another option later
    (
        19,
        MUCR_OPTIONS,
        "Option 4 shows the effect because the street is flooded. Option 2 may also be the effect.",
        None,
    ),
    (
        19,
        MUCR_OPTIONS,
        "The most direct effect is the broken window, Option 3. Option 4 shows the effect as well.",
        None,
    ),
    # Round 23 (batch AE): the given image named as what the effect is "of" is no option; a comparison's degree and
    # noun (the rule examples hold the rest)
    (23, MUCR_OPTIONS, "None of these images looks like an effect of the first one; they show unrelated scenes.", None),
    (23, MUCR_OPTIONS, "Option 2 shows the effect of the first image: the flooded street.", 2),
    (23, MUCR_OPTIONS, "Option 1 is a much better match than Option 4. Actually, Option 2 fits best.", 2),
    # an option that "was the answer for Example N" is that example's
    (
        23,
        MUCR_OPTIONS,
        "Option 1 was the answer for Example 1 and Option 2 for Example 2; for the question, the cause is Option 4.",
        4,
    ),
    # Round 24 (batch AF, round 23's reviews): "or is it 3?" doubts only where no answer is named after the question;
    # a vouched claim contradicts an answer given before it, unless a correction comes between
    (24, MUCR_OPTIONS, "Answer: Option 1. Or is it 3? I think it's 1.", 1),
    (24, MUCR_OPTIONS, "Answer: 2. Option 4 shows a lit match, which is certainly the cause of the fire.", None),
    (24, MUCR_OPTIONS, "Option 4 shows a lit match, which is clearly the cause. Wait, no: the answer is Option 2.", 2),
    # Round 31 (batch AM): "X it is." settles on X, after a self-correction too; an ordinal of the options counts the
    # options; "the first" named as the given image by its label counts the context; "I don't see how any of the
    # options ..." refuses them all
    (31, MUCR_OPTIONS, "The effect is Option 2. Hmm, thinking about it more, that glass is intact. Option 1 it is.", 1),
    (31, SPEEDING, "The police officer is the cue. Actually no, he only appears in the second image. Road it is.", 3),
    (31, UPDATE, "I first thought strengthener, but the update contradicts the claim. Weakener it is.", "weakener"),
    (
        31,
        TWO_IMAGES,
        "The second image (i.e. the first of the two hypotheses) is more plausible; the last image shows a cat.",
        1,
    ),
    (31, FOUR_IMAGES, "The third picture (the second of the four candidates) shows the child crying over the toy.", 2),
    (31, TWO_IMAGES, "Neither the first nor the second of the two hypotheses is plausible.", None),
    (
        31,
        MUCR_OPTIONS,
        "There are five pictures in a row, and the first is the cause image. Option 3, because the melted ice cream "
        "follows from the heat.",
        3,
    ),
    (31, MUCR_OPTIONS, "I do not see how any of the options follows from the first one.", None),
    (31, TWO_IMAGES, "I can't see how any of the hypotheses fits, though the first one comes closer.", None),
    (31, MUCR_OPTIONS, "Option 2. I don't see how any of the other options could be the effect.", 2),
    # Round 32 (batch AN): a rating a self-correction turns to; an ordinal sharing the noun of the count after "or" is a
    # second candidate; "none of the hypotheses" refuses both; an elimination rejecting every option but one picks it
    (32, NLEYE_PAIRS, "Rating: 8 — actually 5", 5.0),
    (32, NLEYE_PAIRS, "Score: 2. Wait, no: make it a 3.", 3.0),
    (32, NLEYE_PAIRS, "Score: 7. Actually 6 of the 10 details fit, which is still plausible.", 7.0),
    (32, MUCR_OPTIONS, "My guess is either the third or the fourth picture.", None),
    (32, FOUR_IMAGES, "I'd say either the third or the fifth picture.", None),
    (32, MUCR_OPTIONS, "The effect is shown by either the first or the fourth option.", None),
    (32, MUCR_OPTIONS, "Either the second or the third picture looked right at first. The answer is Option 2.", 2),
    (32, TWO_IMAGES, "None of the hypotheses is consistent with the context, although image 1 is closer.", None),
    (32, COMBINED, "None of the hypotheses fits; the right panel is nearer.", None),
    (32, TWO_IMAGES, "None of the hypotheses is perfect, but if I had to choose, image 2.", 2),
    (32, MUCR_OPTIONS, "The cause is not 2, 3 or 4.", 1),
    (32, MUCR_OPTIONS, "It isn't Option 4, Option 1 or Option 2.", 3),
    (32, SPEEDING, "Not car, not road, not police officer.", 2),
    (32, MUCR_OPTIONS, "Not 1, not 2, not 3, not 4.", None),
    (32, MUCR_OPTIONS, "Not 1 or 2; 3 or 4 might both work.", None),
    # Round 33 (batch AO): an answer heading said to depend on a condition; a range after a heading; the examples'
    # answers on one line before the question's; an option's text as a that-clause's subject; "the first one" where a
    # cue reply counts images; a vouched "exactly what happens after"; "the opposite of" one of two labels
    (33, TWO_IMAGES, "Answer: 1 or 2 — it depends on the order. If the context comes first, 1 is more likely.", None),
    (33, MUCR_OPTIONS, "Answer: 2 or 4, depending on the timing. If it rained, 2 is more likely.", None),
    (33, MUCR_OPTIONS, "Answer: 2 or 3 — it depends. On reflection, the answer is 3.", 3),
    (33, MUCR_OPTIONS, "Answer: 1-4", None),
    (33, MUCR_OPTIONS, "Final answer: 2-3.", None),
    (33, SPEEDING, "Answer: 2 - speeding", 2),
    (33, SPEEDING, "Example 1: 3, Example 2: 4, Question: 2", 2),
    (33, MUCR_OPTIONS, "Example 1: Option 3; Example 2: Option 1; Question: Option 4", 4),
    (33, SPEEDING, "The cue is that the car was going too fast.", None),
    (33, SPEEDING, "The cue is that the road was icy.", None),
    (33, SPEEDING, "The second image. It shows the result of the first one.", None),
    (33, SPEEDING, "The third picture, because it follows from the first one.", None),
    (33, SPEEDING, "The second one: speeding.", 2),
    (33, MUCR_OPTIONS, "Option 2 shows a fire, which is exactly what happens after lightning.\nFinal answer: 4", None),
    (33, MUCR_OPTIONS, "Option 2 shows a fire, which is exactly what happens after lightning.\nFinal answer: 2", 2),
    (33, DVE_LABEL, "The answer is the opposite of strengthener.", "weakener"),
    (33, DVE_LABEL, "It is the opposite of a weakener.", "strengthener"),
    # Round 36 (batch AR): a closing rating against the stated one; a role vouched for after the answer; the answer a
    # self-correction settles on ("I believe Option 2.", "Option 2 was right.", "Keep 2."); "however" after three dots;
    # "the actual cue"; an image count and its option after an arrow; "so this one is"; a probability for each option;
    # Russian points; a Chinese numeral after an answer heading
    (
        36,
        NLEYE_PAIRS,
        "Score: 3\nThe hypothesis image shows the same rectangular box opened, so overall I'd give it an 8.",
        None,
    ),
    (36, NLEYE_PAIRS, "Score: 8\nThe box matches, so overall I'd give it an 8.", 8.0),
    (36, NLEYE_PAIRS, "Очень правдоподобно — 7 баллов.", 7.0),
    (
        36,
        MUCR_OPTIONS,
        "The answer: Option 2.\nExplanation: Option 4 clearly shows the cause, with the man slipping on the ice.",
        None,
    ),
    (
        36,
        MUCR_OPTIONS,
        "The answer: Option 4.\nExplanation: Option 4 clearly shows the cause, with the man slipping on the ice.",
        4,
    ),
    (
        36,
        MUCR_OPTIONS,
        "Option 1 — wait, the graph says 1, which might just refer to the cause image itself. Re-evaluating the "
        "pictures, I believe Option 2.",
        2,
    ),
    (36, MUCR_OPTIONS, "I believe Option 2 is wrong.", None),
    (36, MUCR_OPTIONS, "Option 2 — correction, Option 1 — no wait, Option 2 was right.", 2),
    (
        36,
        SPEEDING,
        "Answer: 2 (speeding) — wait, the effect shows a crash, so is the cue 'road'? No, speeding causes the crash. "
        "Keep 2.",
        2,
    ),
    (36, SPEEDING, "I would choose option 3... however, speeding is the real cue, so 2.", 2),
    (36, SPEEDING, "Road (3) seems related, but speeding (2) is the actual cue.", 2),
    (36, MUCR_OPTIONS, "Effect = Image #4 → Option 3", 3),
    (36, MUCR_OPTIONS, "Effect = Image #2 → Option 4", None),  # image 2 is option 1 or 2, however it counts
    (36, MUCR_OPTIONS, "The pattern so far is Option 1, then Option 2, so this one is Option 3.", 3),
    (
        36,
        MUCR_OPTIONS,
        "Estimated probabilities: Option 1 0.6, Option 2 0.1, Option 3 0.2, Option 4 0.1. I choose the option with "
        "the highest probability.",
        1,
    ),
    (36, MUCR_OPTIONS, "Option 1 0.4, Option 2 0.1, Option 3 0.4, Option 4 0.1.", None),  # no one maximum
    (36, MUCR_OPTIONS, "Option 1 0.6, Option 2 0.1, Option 3 0.2.", None),  # not every option
    (36, PRESENTS, "Plausibility: H1 = 90%, H2 = 10%.", 1),
    (36, PRESENTS, "Hypothesis 1: 7\nHypothesis 2: 3", None),  # ratings on the prompt's scale: not asked for
    (36, COMBINED, "Middle: 0.8\nRight: 0.2", 1),
    # a phrase in another language beside its number, which no table checks against the option it names (round 14's
    # guard, "Réponse : 3 (excès de vitesse)"), in any script
    (36, SPEEDING, "Exceso de velocidad (2).", None),
    (36, SPEEDING, "スピード違反（2）", None),
    (36, SPEEDING, "Car (3).", None),  # an option's own text against its number
    (36, SPEEDING, "Ответ: 4 (полицейский)", None),
    (36, SPEEDING, "Ответ: 3 (полицейский)", None),
    (36, SPEEDING, "الجواب: 2 (السرعة الزائدة)", None),
    (36, SPEEDING, "Antwort: 2 (Raserei)", None),  # a Latin phrase that is no option's text: round 14's guard
    (36, MUCR_OPTIONS, "Answer: 四", 4),
    (36, MUCR_OPTIONS, "答案：四", 4),
    (36, MUCR_OPTIONS, "答案：三个选项都不对", None),
    (36, PRESENTS, "पहली परिकल्पना अधिक संभावित है, क्योंकि उपहार का आकार आयताकार है।", 1),
    (36, TWO_IMAGES, "Более правдоподобна первая гипотеза: форма подарка совпадает с коробкой.", 1),
    (36, TWO_IMAGES, "Более правдоподобна вторая гипотеза.", 2),
    (
        36,
        SPEEDING,
        "Speeding explains the link: the first image shows a car going fast and the second shows it being pulled over.",
        2,
    ),
    (36, SPEEDING, "Speeding explains the link. Final answer: 4", None),
    # Round 37 (batch AS): a reply that turns twice and ends unsure; an answer on a condition and another on the other;
    # two sources pointing to two answers; another answer named in the reply's own doubt; an option's text and its
    # number after a comma; what a correction says of the answer it corrects; "The effect in image 3 matches ...";
    # "image 2 of 3"
    (
        37,
        TWO_IMAGES,
        "2 is more plausible. Wait, the context could occur after the hypotheses... Still, 2 seems less likely than 1. "
        "So 1? Hard to say.",
        None,
    ),
    (37, TWO_IMAGES, "Hard to say at first glance. Image 2 is more plausible.", 2),
    (37, TWO_IMAGES, "Hard to say. Image 2 is more plausible.", 2),  # an answer stated after the doubt
    (
        37,
        PRESENTS,
        "Hypothesis 1 is more plausible if the context happens before; hypothesis 2 if it happens after.",
        None,
    ),
    (37, MUCR_OPTIONS, "Option 2 if it rained, option 3 if the pipe burst.", None),
    (37, MUCR_OPTIONS, "The scene graph indicates option 1, but the image suggests option 2 is the effect.", None),
    (
        37,
        MUCR_OPTIONS,
        "The pattern in the examples suggests the next answer is Option 3, but looking at image 3 the cause is "
        "clearly Option 4, the boy kicking the ball at the window.",
        4,
    ),  # round 35's concession stays as it is
    # read as no answer until the adjudication Z, whose six annotators all read the label the reply names first
    (37, DVE_LABEL, "Weakener (low confidence), though it could also be a strengthener.", "weakener"),
    (37, DVE_LABEL, "Weakener (low confidence).", "weakener"),
    (37, NLEYE_PAIRS, "The score is 7, but it could also be 8 given the lighting.", 7.0),  # a rating's neighbour
    (37, SPEEDING, "Answer: 3 (road)... Actually, speeding, 2.", 2),
    (37, SPEEDING, "Answer: 3 (road). Actually, speeding, 2.", 2),
    (37, SPEEDING, "Answer: speeding, 3.", None),  # the text and its number disagree (read 2 before)
    (37, MUCR_OPTIONS, "2, 3\nOption 3: the melted ice cream is the effect.", 3),  # a list's numbers stay a list
    (
        37,
        MUCR_OPTIONS,
        "The cause image shows a kettle on a stove.\nFinal answer: Option 2.\nWait, Option 2 shows the kettle itself, "
        "which is the cause. Final answer: Option 3.",
        3,
    ),
    (37, MUCR_OPTIONS, "Option 2 shows the bent wheel, so the effect is in Option 2.\nFinal answer: 3", None),
    (
        37,
        MUCR_OPTIONS,
        "Answer: Option 2\nThe effect in image 3 matches Option 2's cause, just like Example 2 where the answer was "
        "Option 2.",
        2,
    ),
    (37, MUCR_OPTIONS, "The effect is shown in Option 3.", 3),
    (
        37,
        TWO_IMAGES,
        "The first hypothesis image (image 2 of 3) is the more plausible one: the child is holding the same box, now "
        "unwrapped.",
        1,
    ),
    (37, TWO_IMAGES, "Image 3 of 3 is the more plausible one.", 2),
    (37, TWO_IMAGES, "The first hypothesis image (image 3 of 3) is the more plausible one.", None),
    # guards that stay as they are: the middle image's count (writers disagree), picture counts, a number explained
    # in another language (round 36), an option's text alone in another language
    (37, COMBINED, "Image 2 (the middle image) is more plausible, since the present is still box-shaped.", 1),
    (37, MUCR_OPTIONS, "The second picture shows the effect of the cause image: the glass has shattered.", None),
    (37, SPEEDING, "Respuesta: 2 (exceso de velocidad)", None),
    (37, SPEEDING, "الإجابة: 2 (السرعة الزائدة)", None),
    (37, SPEEDING, "答えは「スピード違反」です。", None),
    # round 40 (AV's first contact): ratings each on a condition, first; a number its parenthesis's sentence
    # contradicts; a label for each part; "no" alone correcting a rating; an opening word, an option's or none; picture
    # counts that show how they count; a rating's strength; Turkish and Italian answers
    (40, NLEYE_PAIRS, "If the cat came in first, I'd rate it 7; if it came in last, only 3, as it is full.", None),
    (40, NLEYE_PAIRS, "If it rained first, a 7; if later, maybe 2.", None),
    (40, NLEYE_PAIRS, "If it rained first, I'd rate it 7, as the street is wet.", 7.0),  # one condition, one rating
    (40, MUCR_OPTIONS, "Final answer: 1 (Option 4 shows the effect).", None),
    (40, MUCR_OPTIONS, "Final answer: 4 (Option 4 shows the effect).", 4),
    (40, DVE_LABEL, "A weakener for 'at night' and a strengthener for 'a woman'.", None),
    (40, DVE_LABEL, "It is a strengthener for the hypothesis.", "strengthener"),
    (40, NLEYE_PAIRS, "Rating: 9 — no, 5.", 5.0),
    (40, NLEYE_PAIRS, "Rating: 9 — no, the hat is not his. Rating: 5", 5.0),
    (40, SPEEDING, "Speed. It is why the officer stops the car.", 2),
    (40, SPEEDING, "Officer. He is the one who stops the car.", 4),
    (40, SPEEDING, "The ticket. It follows from the car going too fast.", None),  # a word of no option, not car
    (40, SPEEDING, "Okay. The car is the cue.", 1),
    (40, MUCR_OPTIONS, "The second image (right after the cause image) shows the flood.", 1),
    (40, MUCR_OPTIONS, "The answer is picture number 3 of 5: the broken vase.", 2),
    (40, MUCR_OPTIONS, "The third picture shows the effect.", None),  # a bare picture count stays unread
    (40, NLEYE_PAIRS, "The cat matches, so it's a solid 6.", 6.0),
    (40, MUCR_OPTIONS, "Cevap: 2. Buz eriyor.", 2),
    (40, PRESENTS, "L'ipotesi più plausibile è la prima.", 1),
    # policies that stay: a denied label picks no other (round 1), a hedged pick (round 16), a list called unrelated
    # alone (round 35), a number explained in another language (round 36)
    (40, DVE_LABEL, "It does not strengthen the hypothesis.", None),
    (40, DVE_LABEL, "Not a weakener.", None),
    (40, MUCR_OPTIONS, "Maybe Option 1, but it's a guess.", None),
    (40, MUCR_OPTIONS, "Options 1, 3 and 4 show scenes unrelated to the fire.", None),
    (40, SPEEDING, "Ответ: 2 (превышение скорости).", None),
    # round 41 (AW's first contact): an option shown impossible; two options given the two roles; an option's text
    # with another option's word before it; a role's description shown in an option before a closing it contradicts;
    # "the one in image 3"; a Turkish role heading
    (41, COMBINED_PANELS, "The middle image shows a scene that cannot happen. So the other one is plausible.", 2),
    (41, TWO_IMAGES, "Image 3 depicts an event that could not happen: the glass mends itself.", 1),
    (41, MUCR_OPTIONS, "Option 3 is the cause, and option 1 shows its effect.", None),
    (41, MUCR_OPTIONS, "Option 2 is the effect, and the cause is option 4.", None),
    (41, MUCR_OPTIONS, "Among the five images, image 1 is the cause and image 3 is its effect.", 2),  # the cause image
    (41, SPEEDING, "The cue is the police car.", None),
    (41, SPEEDING, "The cue is the red car.", 1),  # a word of no option: the car still
    (41, MUCR_OPTIONS, "The effect: the floor is flooded, shown in option 3. Final answer: 2", None),
    (41, MUCR_OPTIONS, "The effect is a flooded floor, shown in option 3.", 3),
    (41, MUCR_OPTIONS, "The effect is a dead battery, shown in the fourth panel where he is. Final answer: 3", 3),
    (41, TWO_IMAGES, "Image 2 is impossible. So the more plausible hypothesis is the one in image 3.", 2),
    (41, TWO_IMAGES, "The more plausible hypothesis is the one shown in image 1.", 1),
    (41, MUCR_OPTIONS, "Neden görüntüsü seçenek 2'dir.", 2),
    # policies that stay: a bare picture count (PROTOCOL step 6), a denied label (round 1), a number explained in
    # another language (round 36); a hedge in parentheses just after the answer, round 16's no answer, reads the answer
    # since round 58, as the adjudication Y read "Option 1 (but honestly it could be Option 3)." (AW's writer reads 4)
    (41, MUCR_OPTIONS, "The second image shows the effect: the man is holding a ticket.", None),
    (41, DVE_LABEL, "It does not weaken the hypothesis.", None),
    (41, MUCR_OPTIONS, "Final answer: 4 (or possibly 1).", 4),
    (41, SPEEDING, "Antwort: 2 (Geschwindigkeitsüberschreitung)", None),
    # round 42 (AX's first contact): an image count and "this first hypothesis" in its own sentence; an option ruled
    # out by a pronoun in its sentence; a rating "more like" another; two options offered, each with its parenthesis;
    # "Hmm, no:" correcting; "the option number is"; panels with "="; Polish and Indonesian option nouns
    (42, TWO_IMAGES, "The third image fits better, as this second hypothesis image shows the wet street.", 2),
    (42, TWO_IMAGES, "The second image fits, since that first hypothesis shows the wet street.", 1),
    (
        42,
        TWO_IMAGES,
        "The second image is more plausible. The first hypothesis image shows a wet street.",
        2,
    ),  # counts options
    (42, TWO_IMAGES, "Hypothesis 2 would only make sense if the lamp were on, so I rule it out.", 1),
    (42, TWO_IMAGES, "Hypothesis 2 is better than hypothesis 1, so I rule it out.", 2),  # another named between
    (42, NLEYE_PAIRS, "Rating: 8. Wait, the dog is dry, so it's more like a 4.", 4.0),
    (42, NLEYE_PAIRS, "It depends on the timing. If he just arrived, about 8; if not, more like 3.", None),
    (42, MUCR_OPTIONS, "Final answer: Option 3 (the spilled milk) or Option 4 (the wet floor).", None),
    (42, MUCR_OPTIONS, "Final answer: Option 3 (the spilled milk).", 3),
    (42, MUCR_OPTIONS, "Answer: 4. Hmm, no: option 4 shows the cause itself. Option 2.", 2),
    (42, MUCR_OPTIONS, "So the option number is 2.", 2),
    (42, COMBINED_PANELS, "middle image = less plausible", 2),
    (42, MUCR_OPTIONS, "Opsi 2", 2),
    (42, MUCR_OPTIONS, "Przyczynę pokazuje opcja 3.", 3),
    # policies that stay: a bare picture count (PROTOCOL step 6), a number explained in another language (round 36); a
    # hedge in parentheses just after the answer reads the answer since round 58 (the adjudication Y's convention)
    (42, MUCR_OPTIONS, "The fourth picture shows the cause.", None),
    (42, MUCR_OPTIONS, "Final answer: 2 (or possibly 3).", 2),
    (42, SPEEDING, "Antwort: 4 (Polizist).", None),
    # round 43 (AY's first contact): the one-sentence elimination ("Option 1, 2 or 3" one mention of a list) and "none
    # of them" giving its reason; the less plausible in German and Romance languages; a reply cut off at the number of
    # a list's first item; a number before another option's text as the subject of "causes"; the effect "clearly" in
    # an option before a closing answer; the remaining option past the numbers of steps, or said to show; "Only option
    # 1, ..., follows"; the cue before a dash; an image count after all the images shown counted; a probability with
    # "likely"; "lean" before the answer; ordinals with the option noun in Turkish, Hindi, Polish, Indonesian,
    # Portuguese; the Spanish option one, German "eins"; a Japanese rating in points
    (43, MUCR_OPTIONS, "Not Option 1, 2 or 3.", 4),
    (43, MUCR_OPTIONS, "Not options 2, 3 or 4.", 1),
    (43, MUCR_OPTIONS, "It's not Option 1, 2 or 3, since none of them involve water.", 4),
    (43, MUCR_OPTIONS, "It's not Option 1 or 2, since none of them involve water.", None),  # two left
    (43, MUCR_OPTIONS, "None of them involve water.", None),
    (43, PRESENTS, "Hypothese 2 ist weniger plausibel; die erste passt zur Form der Verpackung.", 1),
    (43, TWO_IMAGES, "La imagen 2 es menos plausible.", 1),
    (43, TWO_IMAGES, "L'immagine 1 è meno plausibile.", 2),
    (43, MUCR_OPTIONS, "First, the cause image shows a woman planting seeds. Now the candidates:\n1.", None),
    (43, MUCR_OPTIONS, "Answer:\n1.", 1),  # an answer heading, no list
    (43, SPEEDING, "4. Speeding causes the crash in the effect image.", None),
    (43, SPEEDING, "2. Speeding causes the crash in the effect image.", 2),
    (43, SPEEDING, "2. The car in the first image is speeding", 2),  # the text no subject of "causes"
    (
        43,
        MUCR_OPTIONS,
        "The cause is a broken dam, so the effect is clearly the flooded village in Option 4.\nFinal answer: 1",
        None,
    ),
    (43, MUCR_OPTIONS, "The cause is a broken dam, so the effect is clearly the flooded village in Option 4.", 4),
    (
        43,
        MUCR_OPTIONS,
        "Step 1: The cause is a falling tree. Step 2: Option 1 is a forest, Option 2 is a sunset, Option 4 is a "
        "lumberjack. Step 3: Eliminate options 1, 2 and 4.\nTherefore the effect is the remaining option.",
        3,
    ),
    (
        43,
        MUCR_OPTIONS,
        "Options 1, 2 and 4 are all unrelated to the fire in the cause image; the remaining option shows the burnt "
        "house.",
        3,
    ),
    (43, MUCR_OPTIONS, "Options 1 and 4 are unrelated; the remaining option shows the burnt house.", None),
    (
        43,
        MUCR_OPTIONS,
        "Option 2 shows a cake, option 3 shows a broken window, option 4 shows a sunny beach. Only option 1, the wet "
        "floor, follows from the spilled bucket.",
        1,
    ),
    (43, MUCR_OPTIONS, "Only option 1 and option 2 fit.", None),
    (43, SPEEDING, "The phrase that explains the link is the road — the icy road causes the car to skid.", 3),
    (
        43,
        COMBINED_PANELS,
        "Looking at the three panels, the second panel is the more plausible hypothesis: the man is seen drying off "
        "with a towel after the swim shown in the first panel.",
        1,
    ),
    (43, MUCR_OPTIONS, "Looking at the five pictures, the third picture shows the effect.", 2),
    (43, TWO_IMAGES, "Looking at the three images, the first is a wrapped present. The second image fits.", None),
    (43, PRESENTS, "Hypothesis 1: 60% likely.\nHypothesis 2: 40% likely.", 1),
    (43, PRESENTS, "Hypothesis 1: 50% likely.\nHypothesis 2: 50% likely.", None),
    (
        43,
        DVE_LABEL,
        "Weakener? Strengthener? I'd lean strengthener, since age doesn't change whether he moves.",
        "strengthener",
    ),
    (43, MUCR_OPTIONS, "Cevap: dördüncü seçenek.", 4),
    (43, MUCR_OPTIONS, "उत्तर: तीसरा विकल्प", 3),
    (43, MUCR_OPTIONS, "Przyczyną jest opcja druga – mężczyzna zostawił włączone żelazko.", 2),
    (
        43,
        MUCR_OPTIONS,
        "Jawabannya adalah opsi kedua karena gambar itu menunjukkan anak yang bermain di bawah hujan.",
        2,
    ),
    (43, MUCR_OPTIONS, "A opção correta é a quarta, que mostra a planta murcha depois de dias sem água.", 4),
    (43, MUCR_OPTIONS, "La causa es la opción uno: el niño lanzando la pelota hacia la ventana.", 1),
    (43, TWO_IMAGES, "Hypothese eins ist plausibler, da der Junge den Ball schon in der Hand hält.", 1),
    (43, NLEYE_PAIRS, "評価は7点です。仮説画像は文脈画像の少し後の場面だと考えられます。", 7.0),
    (43, NLEYE_PAIRS, "評価は10点満点中7点", None),  # a scale, not the rating
    # policies that stay: a bare picture count (PROTOCOL step 6), options in other words (`The cop.`), a number
    # explained in another language (round 36), two answers with the likelier named after them (left: the reader would
    # have to check the likelier is one of the two)
    (43, MUCR_OPTIONS, "The second picture shows the effect: the dog is muddy after running through the puddle.", None),
    (43, SPEEDING, "Excess speed is what links the two images.", None),
    (43, SPEEDING, "Svaret är 4, polisen.", None),
    (43, MUCR_OPTIONS, "Answer: 2 or 3, most likely 2.", None),
    # round 44 (AZ's first contact): an option given the answer's role toward the given image named by the other role
    # contradicts another answer (not the role alone, nor another thing's effect, nor the last of a list)
    (
        44,
        MUCR_OPTIONS,
        "Option 4 shows the effect of the cause image, since the tree has fallen onto the roof.\nTherefore the answer "
        "is Option 2.",
        None,
    ),
    (44, MUCR_OPTIONS, "Option 4 shows the effect of the cause image, since the tree fell.\nTherefore Option 4.", 4),
    (44, MUCR_OPTIONS, "Option 4 shows the effect of the rain, since the tree has fallen.\nThe answer is Option 2.", 2),
    (
        44,
        MUCR_OPTIONS,
        "The question asks which of Options 1, 2, 3 and 4 shows the cause of the effect image. The cause is the sun, "
        "depicted in Option 3.",
        3,
    ),
    # Swedish, and a French rating (not Spanish or Portuguese, whose negation stands before the phrase)
    (44, PRESENTS, "Hypotes 2 är mer rimlig eftersom barnet redan har öppnat paketet.", 2),
    (44, PRESENTS, "Hypotes 2 är mindre rimlig.", 1),
    (44, NLEYE_PAIRS, "Je donnerais une note de 4 : c'est peu plausible, car le cadeau n'a pas la même forme.", 4.0),
    (44, NLEYE_PAIRS, "Je ne donnerais pas une note de 8.", None),
    (44, NLEYE_PAIRS, "Non darei un voto di 8.", None),
    # a rating after the scale's words, with its article (not the scale restated)
    (44, NLEYE_PAIRS, "Between slightly plausible and moderately plausible — a 4.", 4.0),
    (44, NLEYE_PAIRS, "Scale: moderately plausible: 5, very plausible: 7.", None),
    (44, NLEYE_PAIRS, "Between slightly plausible and moderately plausible.", None),
    # the other hypothesis's words in a possibility on a condition are no explanation in its words (a fact is)
    (
        44,
        PRESENTS,
        "The context can occur before or after the hypotheses. If it occurs after, the child might have re-wrapped the "
        "ball in a box, so it's hard to say for sure. I lean towards Hypothesis 1.",
        1,
    ),
    (44, PRESENTS, "If it occurs after, the child is holding the ball. I lean towards Hypothesis 1.", None),
    # "more direct" of a cause or effect; "I'll go with" and "the cue is really" settle on an answer
    (44, MUCR_OPTIONS, "Options 1 and 2 could both cause this effect, but Option 2 is more direct.", 2),
    (44, MUCR_OPTIONS, "Options 1 and 2 could both cause this effect.", None),
    (44, MUCR_OPTIONS, "Option 2 is less direct than Option 1.", 1),
    (
        44,
        MUCR_OPTIONS,
        "Option 1 seems most likely, but Option 3 could also be argued because of the wet road. I'll go with Option 3.",
        3,
    ),
    (44, MUCR_OPTIONS, "Option 1 is more likely than Option 4, but both fit. I'll go with neither to be safe.", None),
    (44, MUCR_OPTIONS, "I'll go with Option 3. Option 1 shows the effect.", None),
    (
        44,
        SPEEDING,
        "1 (car). Hmm, the car is present, but it doesn't explain the causal link; the cue is really speeding, so 2.",
        2,
    ),
    (44, SPEEDING, "The cue is really speeding (2).", 2),
    # the question's image named after "the question", and the examples' answers restated beside the question's
    (44, MUCR_OPTIONS, "The answer to the question (image 3) is 1.", 1),
    (44, MUCR_OPTIONS, "The answer to the question (image 2) is 1.", None),
    (44, MUCR_OPTIONS, "Option 4 for the question. (For reference, Examples 1 and 2 were Option 1 and Option 2.)", 4),
    (44, MUCR_OPTIONS, "Option 4 for the question. (For reference, Option 1 and Option 2 fit too.)", None),
    (44, MUCR_OPTIONS, "Like in Example 1, the answer is the first option: the man is speeding.", 1),
    # policies that stay: a bare image count (`Image 2` on the separate prompt, its writer's dispute: PROTOCOL step 6),
    # an ordinal of the four candidates alone (round 31), a number explained in another language (round 36), a denied
    # label (round 1)
    (44, TWO_IMAGES, "Image 2 is more plausible. The present in it has the same proportions as the wrapped box.", 2),
    (44, MUCR_OPTIONS, "The cause is in the third of the four candidates, which shows the man speeding.", None),
    (44, SPEEDING, "Het antwoord is 4, de politieagent, omdat hij de bestuurder aanhoudt.", None),
    (44, DVE_LABEL, "Not a strengthener.", None),
    # round 45 (BA's first contact): "let me reconsider" an option is no pick of it, and "OK 4." settles on 4
    (
        45,
        MUCR_OPTIONS,
        "<think>\nOption 4 has the car in motion with blur lines. I'd say 4. Actually let me reconsider option 2 - "
        "older man, no. OK 4.\n</think>",
        4,
    ),
    (45, MUCR_OPTIONS, "I'd say 4. Actually, let me reconsider: Option 2.", 2),
    (45, MUCR_OPTIONS, "OK, 4 options to compare. Option 2 shows the effect.", 2),
    # one of several yes or no cells of a table row is no verdict, its last cell is
    (
        45,
        SPEEDING,
        "| # | Phrase | In cause image | In effect image | Explains the link? |\n|---|---|---|---|---|\n| 1 | car | "
        "yes | yes | no |\n| 2 | speeding | yes | (ticket for it) | **yes** |\n| 3 | road | yes | yes | no |\n"
        "| 4 | police officer | no | yes | no |\n\nSo the cue is 2.",
        2,
    ),
    (45, MUCR_OPTIONS, "| Option | Effect? |\n|---|---|\n| 1 | No |\n| 2 | Yes |", 2),
    (45, MUCR_OPTIONS, "| 2 | Yes | the fire explains the smoke |", 2),
    # a reply cut off after its opening answer: other options it only describes, the answer set off by a dash
    (
        45,
        MUCR_OPTIONS,
        "Option 1. The cause image shows a man driving his car at an excessive speed, and Option 1 shows the same man "
        "getting a speeding ticket from a police officer. Options 2 and 3 show other drivers being pulled over, and "
        "Option 4 shows an elderly woman",
        1,
    ),
    (
        45,
        MUCR_OPTIONS,
        "Option 4 - the man driving his car at excessive speed. This is the cause of the effect image, in which the "
        "same man is given a speeding ticket by the police. The other options show a woman, an older man and",
        4,
    ),
    (
        45,
        SPEEDING,
        "2 - speeding. In the cause image, the man is driving his car well above the speed limit, and in the effect "
        "image a police officer is giving him a ticket. The causal link is that the man was",
        2,
    ),
    (45, MUCR_OPTIONS, "Option 1. The man is speeding. Option 4 shows the same man getting a ticket, which", None),
    (45, MUCR_OPTIONS, "Option 1. The man is speeding. Option 4 could also show the effect, because the", None),
    (
        45,
        MUCR_OPTIONS,
        "Option 1. The man is speeding. Options 2 and 3 show other drivers, and Option 4 shows an effect",
        None,
    ),
    (45, MUCR_OPTIONS, "Option 1 - the man gets a ticket. Option 4 shows the man, but wait, the", None),
    (45, MUCR_OPTIONS, "1 - Identify the effect: the man is given a ticket. Then compare the", None),
    (45, DVE_LABEL, "Weakener. But it might be a strengthener too, because the", None),
    # left: the other options named in the unfinished sentence, its verb cut off
    (
        45,
        SPEEDING,
        "2. Speeding. The first image shows the driver going well over the speed limit, and as a direct result the "
        "second image shows him being stopped and ticketed. The car and the road are",
        None,
    ),
    # an answer alone on the last line after the options' headings standing alone
    (
        45,
        MUCR_OPTIONS,
        "Option 1: The same man given a ticket.\nOption 2: A woman pulled over.\nOption 3: An elderly man pulled "
        "over.\nOption 4: An elderly woman with a ticket.\nOnly Option 1 shows the driver.\nOption 1",
        1,
    ),
    (
        45,
        MUCR_OPTIONS,
        "Option 1: The same man given a ticket.\nOption 2: A woman pulled over.\nOption 3: An elderly man.\nOption 4: "
        "An elderly woman",
        None,
    ),
    (45, SPEEDING, "Option 2: speeding\nExplanation: In the first image the car is going fast.", 2),
    # round 46 (BB's first contact): the prompt's own layout restated names no option, the first labelled as the given
    # image being the reply's count of the context
    (
        46,
        MUCR_OPTIONS,
        'Question (image 3):\nThe image shows five pictures side by side. The first, labelled "Effect image", shows '
        'an effect. The other four, labelled "Option 1" to "Option 4", are candidate cause images.',
        None,
    ),
    (46, MUCR_OPTIONS, 'The first, labelled "Cause image", shows a storm. The answer is Option 3.', 3),
    (46, MUCR_OPTIONS, "The first option, labelled Option 1, shows the flood.", 1),
    (46, MUCR_OPTIONS, 'The first, labelled "Option 1", shows the flood.', 1),
    # a probability per hypothesis with its reason after a dash; any tag of the answer's noun
    (
        46,
        TWO_IMAGES,
        "Hypothesis 1: 85% plausible — the box keeps its outline.\nHypothesis 2: 15% plausible — a ball would not.",
        1,
    ),
    (46, TWO_IMAGES, "Hypothesis 1: 50% plausible — maybe.\nHypothesis 2: 50% plausible — maybe.", None),
    (46, TWO_IMAGES, "Hypothesis 1: 7 — the box keeps its outline.\nHypothesis 2: 3 — a ball would not.", None),
    (46, COMBINED, "<hypothesis>1</hypothesis><reason>box stays box</reason>", 1),
    (46, COMBINED, "<option>2</option>", 2),
    (46, COMBINED, "<hypothesis>1</option>", None),
    # ratings with their own hedge or strength
    (46, NLEYE_PAIRS, "Around 8 or so. Opening the box-shaped gift is a very natural sequence.", 8.0),
    (46, NLEYE_PAIRS, "A solid 8. Houses and a quiet street.", 8.0),
    (46, NLEYE_PAIRS, "Around 7 or 8.", None),
    (46, NLEYE_PAIRS, "A solid 8 or 9.", None),
    (46, NLEYE_PAIRS, "点数は7です (very plausible)。", 7.0),
    (46, NLEYE_PAIRS, "点数は10点満点中7点です。", None),
    # the images counted from left to right or in a row of all of them; the one furthest to the right
    (46, COMBINED, "Looking at the three panels from left to right, the second panel is more plausible.", 1),
    (46, COMBINED, "Looking at the two panels from left to right, the second panel is more plausible.", None),
    (46, MUCR_OPTIONS, "In the row of five pictures, the second picture shows the ticket.", 1),
    (46, MUCR_OPTIONS, "The cause picture is the one furthest to the right, where the car is racing.", 4),
    (46, MUCR_OPTIONS, "The cause picture is the one furthest to the left, where the car is racing.", None),
    # Russian and Chinese option nouns; an emphatic opening answer before a cut
    (46, MUCR_OPTIONS, "Опция 4 — причина: машина превышает скорость.", 4),
    (46, SPEEDING, '线索是"超速"（第2项）。', 2),
    (46, SPEEDING, "第2张图里警察拦下了它。", None),
    (46, MUCR_OPTIONS, "option 1!!! police", 1),
    (46, MUCR_OPTIONS, "Option 1... Option 3 shows the", None),
    # round 47 (BC's first contact): "no" alone between commas or after a dash corrects, before an answer ending its
    # clause; a word of reconsidering that turns to doubt takes the answer back
    (47, NLEYE_PAIRS, "9, no, 5.", 5.0),
    (47, NLEYE_PAIRS, "Score: 9, no doubt.", 9.0),
    (47, NLEYE_PAIRS, "9, no, 5 is too low.", 9.0),
    (47, MUCR_OPTIONS, "3 — no, 1.", 1),
    (47, MUCR_OPTIONS, "Option 2, no, Option 4.", 4),
    (47, MUCR_OPTIONS, "Option 2 shows a car, no, a truck.", 2),
    (
        47,
        TWO_IMAGES,
        "1. Hmm, on reflection I'm not sure about this; the shapes are hard to make out at this resolution.",
        None,
    ),
    (47, TWO_IMAGES, "Image 2 is more plausible. Thinking about it more, I'm not so sure.", None),
    (47, TWO_IMAGES, "1. On reflection, I'm not sure about this. Final answer: 2", 2),
    (47, TWO_IMAGES, "Image 2, I think, but I'm not sure.", 2),
    # the Dutch, Turkish, Polish and Vietnamese answer words
    (47, MUCR_OPTIONS, "Optie 2. De auto staat stil langs de weg.", 2),
    (47, MUCR_OPTIONS, "Seçenek 3: araba kaza yapmış.", 3),
    (47, MUCR_OPTIONS, "Seçenek 3 yanlış, seçenek 2 doğru.", None),
    (47, MUCR_OPTIONS, "Lựa chọn 4: người đàn ông lái xe quá tốc độ.", 4),
    (47, MUCR_OPTIONS, "Lựa chọn 4: sai. Lựa chọn 2: đúng.", None),
    (47, COMBINED_PANELS, "Afbeelding 1 (midden) is het meest plausibel: het kind houdt een cadeau vast.", 1),
    (47, COMBINED_PANELS, "Bardziej prawdopodobny jest obraz 2 (po prawej), ponieważ dziecko trzyma piłkę.", 2),
    (47, COMBINED_PANELS, "Bardziej prawdopodobny jest obraz 1 (po lewej).", None),
    (47, NLEYE_PAIRS, "Puan: 9. Bağlam görüntüsündeki paket dikdörtgen.", 9.0),
    (47, NLEYE_PAIRS, "Điểm: 7", 7.0),
    (47, NLEYE_PAIRS, "Đặc điểm 7 của hình ảnh.", None),
    (47, SPEEDING, "Antwoord: 2 (te hard rijden).", None),
    # a rating after a heading and a dash, the rating a range leans to
    (47, NLEYE_PAIRS, "Answer - 10", 10.0),
    (47, NLEYE_PAIRS, "Answer - 7 or 8", None),
    (47, NLEYE_PAIRS, "4 or 5, leaning 5.", 5.0),
    (47, NLEYE_PAIRS, "Score: 6 or 7, leaning 7", 7.0),
    (47, NLEYE_PAIRS, "Score: 5 or 6, leaning 7.", None),
    (47, NLEYE_PAIRS, "Score: 5 or 6, leaning 6 or 7.", None),
    # "A:" before a number where no option is lettered; one number said again and again
    (47, SPEEDING, "A: 4", 4),
    (47, SPEEDING, "A: 4 or 2", None),
    (47, COMBINED_PANELS, "1 1 1 1", 1),
    (47, NLEYE_PAIRS, "8 8 8 8 8", 8.0),
    (47, MUCR_OPTIONS, "1 1 2", None),
    (47, MUCR_OPTIONS, "1 2 1 2", None),
    # a cut-off reply opening with a number and its own option's text as a sentence of its own
    (47, SPEEDING, "2. speeding. The first image shows a man driving his", 2),
    (47, SPEEDING, "3. speeding. The first image shows a man driving his", None),
    (47, MUCR_OPTIONS, "1. Option 1 shows a man. Option 2 shows a", None),
    # round 48 (BD's first contact): its four silent misreads. The answer's role, what it is, then the option after a
    # colon or comma ending the clause; "hold on" set off as a word of correction
    (48, SPEEDING, "1 — car. Wait, the car is just the object. The cue should be the action: 2, speeding.", 2),
    (48, MUCR_OPTIONS, "The cause is the long marathon effort, Option 1.", 1),
    (48, MUCR_OPTIONS, "The cause is the rain: Option 1 shows a dry street, so it is Option 3.", 3),
    (48, MUCR_OPTIONS, "Answer: 3 — hold on, Option 3 shows a thermometer, not an effect. Answer: 1", 1),
    (48, MUCR_OPTIONS, "Option 2: the boy tries to hold on to the string.", 2),
    # a doubt between two answers; an answer held as plausible as the one picked; a bare rating and another after it
    (
        48,
        SPEEDING,
        "I'm not sure whether the cue is speeding or the police officer; both seem to link the images.",
        None,
    ),
    (48, SPEEDING, "I'm not sure whether the cue is speeding or the road. The cue is speeding.", 2),
    (
        48,
        PRESENTS,
        "I would pick hypothesis 1 because a rectangular box usually contains a rectangular item. But a ball can also "
        "be packed in a rectangular box to make wrapping easier, so hypothesis 2 is equally plausible.",
        None,
    ),
    (
        48,
        PRESENTS,
        "I would pick hypothesis 1. Hypothesis 2 is equally plausible at first glance, but the box is flat.",
        1,
    ),
    (48, NLEYE_PAIRS, "On a scale of 1 to 10, I'd put this at around 5, maybe 6. The two are related.", None),
    (48, NLEYE_PAIRS, "I'd say 4, maybe 5 at most. Score: 4", 4.0),
    (48, NLEYE_PAIRS, "I would rate it 3, maybe 4 at most — let's say 3.", 3.0),
    # an answer stated, then rejected by name before another is picked: the rejection takes it back
    (
        48,
        MUCR_OPTIONS,
        "Option 4 is the cause. Option 4 is wrong because a bonfire cannot make a car rusty. The rust comes from the "
        "salty sea air in Option 2, so 2.",
        2,
    ),
    (
        48,
        MUCR_OPTIONS,
        "Option 3 is the effect. Option 3 is not plausible because a flooded street is not caused by a volcano. The "
        "effect of a volcanic eruption is ash covering the houses, which is Option 1.",
        1,
    ),
    (
        48,
        MUCR_OPTIONS,
        "I believe Option 1 is correct. But the effect should be the cold, shivering person in Option 4, not the fresh "
        "flowers in Option 1. So Option 4.",
        4,
    ),
    (48, MUCR_OPTIONS, "Option 2 is the cause. Option 4 is wrong because it shows a bonfire. So Option 2.", 2),
    (48, MUCR_OPTIONS, "Option 2 is the cause. Option 2 is not perfect, but Option 1 is worse. So Option 2.", 2),
    # what explains it, best; in parentheses; in the last option before what it shows
    (
        48,
        PRESENTS,
        "Hypothesis 1: A man on a ladder cleaning gutters. Hypothesis 2: A man on the ground next to a fallen ladder. "
        "Context: A man with an ice pack on his ankle. Hypothesis 2 explains the injury best.",
        2,
    ),
    (
        48,
        nleye_hooks.TRIPLET_COMBINED_ANSWER,
        "The context is a lost kite stuck in power lines. The kite flying in the wind (center) explains it.",
        1,
    ),
    (48, nleye_hooks.TRIPLET_COMBINED_ANSWER, "Neither the kite (center) nor the storm (right) explains it.", None),
    (48, MUCR_OPTIONS, "The effect is shown in the last option: a car covered in dents after the hailstorm.", 4),
    (48, MUCR_OPTIONS, "The effect is shown in the last option: 2.", 2),
    # a German and Portuguese rating heading; a label's other verb conceded as a reading
    (48, NLEYE_PAIRS, "Punkte: 2. Das Kontextbild zeigt einen leeren Parkplatz in der Nacht.", 2.0),
    (48, NLEYE_PAIRS, "Das Bild verdient 7 Punkte, vielleicht 8.", None),
    (48, NLEYE_PAIRS, "Classificação: 9. O contexto mostra uma casa com o telhado destruído.", 9.0),
    (
        48,
        DVE_LABEL,
        "Answer: weakener. Although the update could be read as supporting the hypothesis, the",
        "weakener",
    ),
    (48, DVE_LABEL, "Answer: weakener. The update supports the hypothesis.", None),
    # round 49 (BE's first contact): its seven silent misreads. The answer's role, what it is set off, then where it is
    # ("is in"); an option called the given image again, taken back after "Hmm,"
    (
        49,
        MUCR_OPTIONS,
        "1. No wait, Option 1 just repeats the cause image. The effect — the spilled paint on the floor — is in "
        "Option 3.",
        3,
    ),
    (49, MUCR_OPTIONS, "The effect, the overflowing bathtub, is in Option 2.", 2),
    (49, MUCR_OPTIONS, "The effect is in Option 2 or Option 4.", None),
    (
        49,
        MUCR_OPTIONS,
        "Option 1 shows the effect. Hmm, Option 1 is actually identical to the cause image; the effect, the "
        "overflowing bathtub, is in Option 2.",
        2,
    ),
    (
        49,
        MUCR_OPTIONS,
        "Option 4 is identical to the cause image except for the broken window, so it is the effect.",
        4,
    ),
    (
        49,
        MUCR_OPTIONS,
        "Option 4 shows the effect image again, and option 2 shows the cause: the boy kicking the ball toward the "
        "window.",
        2,
    ),
    (49, MUCR_OPTIONS, "Option 4 shows the effect, and option 2 shows the cause.", None),
    (
        49,
        MUCR_OPTIONS,
        "Option 2 shows the effect. Hmm, Option 2 is a strong candidate; the flooded street is in Option 2.",
        2,
    ),
    # what the answer shows said to be an option, closing the reply after a correction
    (49, MUCR_OPTIONS, "Option 3 — sorry, I counted the cause image. The stained tablecloth is Option 2.", 2),
    (49, MUCR_OPTIONS, "Option 3 shows the effect. The stained tablecloth is Option 2.", 3),
    # "nein," and "non," correct; a correction that turns to a number explained in other words takes the answer back,
    # the number unread (round 36); "no," after an ellipsis
    (
        49,
        SPEEDING,
        "Die Antwort ist 4 (Polizist)... nein, 2 (zu schnelles Fahren), weil der Polizist nur die Folge ist.",
        None,
    ),
    (49, SPEEDING, "Die Antwort ist 4 (Polizist)... nein, 2 (zu schnelles Fahren). Final answer: 2", 2),
    (49, SPEEDING, "Answer: 4 (police officer)... no, 2 (speeding), because the officer is only the effect.", 2),
    # answers taken back into doubt
    (
        49,
        TWO_IMAGES,
        "Hypothesis 2 seems more plausible at first, because the ice cream cone in it is dripping. On second thought, "
        "I can't be sure of that: the sun isn't visible in the context image, so I don't want to commit to either one.",
        None,
    ),
    (49, TWO_IMAGES, "Image 2. On second thought, I can't be sure of that. Final answer: 1", 1),
    (49, TWO_IMAGES, "Image 2, though I can't be sure.", 2),
    (
        49,
        SPEEDING,
        "Option 3, road. Hmm, no: the road appears in both images but doesn't explain anything. I'm not sure what the "
        "link is.",
        None,
    ),
    (49, SPEEDING, "I wasn't sure what the link is at first. The cue is speeding.", 2),
    # a scene graph alone names no answer; its answer key and an answer after it do
    (
        49,
        MUCR_OPTIONS,
        '{"objects": [{"id": 1, "name": "cause image: boy flying a kite"}, {"id": 2, "name": "option 3: kite caught '
        'in a tree"}], "relationships": [[1, "leads to", 2]]}',
        None,
    ),
    (49, MUCR_OPTIONS, '{"objects": [{"id": 1, "name": "boy"}, {"id": 2, "name": "window"}], "answer": 3}', 3),
    (
        49,
        MUCR_OPTIONS,
        'Option 3 shows the effect: {"objects": ["kite", "tree"], "relationships": [["kite", "caught in", "tree"]]}',
        3,
    ),
    # Russian, Italian, Greek, Indonesian and Hebrew answer words; a German rating given; a Chinese comparison
    (
        49,
        COMBINED_PANELS,
        "Правое изображение более правдоподобно: на левом изображении мужчина разбивает яйца в миску.",
        2,
    ),
    (49, COMBINED_PANELS, "L'immagine a destra è più plausibile perché mostra il bambino con il gesso.", 2),
    (49, COMBINED_PANELS, "L'immagine a sinistra mostra il bambino che cade.", None),
    (49, PRESENTS, "Η υπόθεση 2 είναι πιο εύλογη, επειδή ο σκύλος κρατά ένα λουρί.", 2),
    (49, MUCR_OPTIONS, "Jawaban: pilihan 1. Gambar akibat menunjukkan jalanan yang licin.", 1),
    (49, MUCR_OPTIONS, "Επιλογή 2: στην εικόνα του αποτελέσματος ένας άνδρας είναι μούσκεμα.", 2),
    (49, MUCR_OPTIONS, "התשובה היא אפשרות 4: בתמונת התוצאה רואים ילד עם ברך שרוטה.", 4),
    (
        49,
        NLEYE_PAIRS,
        "Ich würde eine 7 vergeben (sehr plausibel): Auf dem Kontextbild backt eine Frau Plätzchen.",
        7.0,
    ),
    (49, NLEYE_PAIRS, "Ich würde keine 7 vergeben.", None),
    (49, TWO_IMAGES, "答案：2。\n解释：第二张假设图片显示气球爆了，这比第一张假设图片（气球自己飞上天空）更合理。", 2),
    (49, TWO_IMAGES, "图片2比图片1更合理。", 2),
    (49, TWO_IMAGES, "图片1比图片2更合理。答案：2", None),
    # round 50 (BF's first contact): its two silent misreads. A rating's decimal comma is its decimal point (not a
    # list's comma, nor one before a space)
    (50, NLEYE_PAIRS, "Bewertung: 6,5 – die Hypothese zeigt denselben Jungen mit einem Pflaster am Knie.", 6.5),
    (50, NLEYE_PAIRS, "Score: 6,5/10", 6.5),
    (50, NLEYE_PAIRS, "Scores: 6,7,8", None),
    (50, NLEYE_PAIRS, "Score: 7, 8", None),
    # two options' own texts side by side are two answers named as one: the one other option named is not the answer
    (50, SPEEDING, "Car speeding on the road.", None),
    (50, SPEEDING, "Speeding car.", None),
    (50, SPEEDING, "The road.", 3),
    (
        50,
        MUCR_OPTIONS,
        "**Option 3** — The first image shows a wilted houseplant. Option 3 shows the same plant in a dry pot.",
        3,
    ),
    # a range and the rating settled on right after it; a hedged rating with its article before a colon
    (50, NLEYE_PAIRS, "Score: 8 or 9 — I'll say 8.", 8.0),
    (50, NLEYE_PAIRS, "Score: 8 or 9 — I'll say 7.", None),
    (50, NLEYE_PAIRS, "Very plausible, about an 8: the fisherman is holding the same rod and a fish.", 8.0),
    (50, NLEYE_PAIRS, "About 8: the fisherman is holding the same rod.", None),
    # answer words of other languages
    (50, TWO_IMAGES, "Более правдоподобна гипотеза 2: на изображении гипотезы 2 он держит пойманную рыбу.", 2),
    (50, PRESENTS, "Hipotez 2 daha makul: kadın şemsiyesini açtı.", 2),
    (50, PRESENTS, "Hipotez 2 daha makul değil.", 1),  # not more plausible: the other, as in English
    (50, PRESENTS, "Daha makul olan 1. hipotezdir, çünkü hediye dikdörtgen bir kutu şeklinde paketlenmiş.", 1),
    (50, MUCR_OPTIONS, "Doğru cevap 2. seçenek: sonuç görüntüsünde yanmış bir kek var.", 2),
    (50, MUCR_OPTIONS, "ตัวเลือกที่ 4 ภาพสาเหตุแสดงเด็กกำลังรดน้ำต้นไม้ทุกวัน", 4),
    (50, MUCR_OPTIONS, "Варіант 2: на першому зображенні дитина залишає іграшки на сходах.", 2),
    (50, MUCR_OPTIONS, "Alternativ 3 visar effekten: mannen som glömde paraplyet är genomblöt.", 3),
    (
        50,
        MUCR_OPTIONS,
        "選択肢1はファストフード店、選択肢4はゴールテープの場面です。\nしたがって、最終的な答えは選択肢4です。",
        4,
    ),
    (50, DVE_LABEL, "يُضعف الفرضية", "weakener"),
    (50, NLEYE_PAIRS, "Βαθμολογία: 6", 6.0),
    # a hypothesis said to fit what it names better, ending the clause, after both held possible
    (
        50,
        PRESENTS,
        "Both hypotheses are possible, since the context can occur before or after them, but hypothesis 1 fits the box "
        "shape better.",
        1,
    ),
    # a refusal qualified before a choice in its own sentence is no refusal; "comes closest"
    (
        50,
        MUCR_OPTIONS,
        "None of the options is a perfect match, but Option 3 comes closest: Option 3 shows a waxy puddle.",
        3,
    ),
    (50, MUCR_OPTIONS, "None of the options is a perfect match.", None),
    (50, MUCR_OPTIONS, "None of the options shows the effect, but Option 3 comes closest.", None),
    (
        50,
        SPEEDING,
        "None of the phrases fit perfectly, since the link is a traffic violation, but 'speeding' is the closest.",
        2,
    ),
    (
        50,
        MUCR_OPTIONS,
        "I cannot fully determine the cause from this image, but Option 2 (the open window) seems most likely.",
        2,
    ),
    (50, MUCR_OPTIONS, "I cannot determine the cause from this image, but Option 2 seems most likely.", None),
    # "I think" and the answer before its reason
    (
        50,
        MUCR_OPTIONS,
        "Option 3? Option 1? I think Option 1, because the overflowing bathtub explains the dripping.",
        1,
    ),
    (50, MUCR_OPTIONS, "I think Option 1 shows a bathtub. Option 3 is the cause.", 3),
    # "i.e." explains a picture count; "it" after a preposition is no subject
    (
        50,
        MUCR_OPTIONS,
        "The panel showing a tree with a swing hanging from it is the fourth picture.\nSo the effect is the fourth "
        "picture, i.e. Option 3.",
        3,
    ),
    (50, MUCR_OPTIONS, "So the effect is the fourth picture, i.e. Option 3, the tree.", 3),
    # the subject said to continue the context directly, before a cut
    (
        50,
        PRESENTS,
        "The context can occur before or after the hypotheses. The first hypothesis, where the present is rectangular, "
        "directly continues the context, while a ball-shaped gift",
        1,
    ),
    # the cue said to link the things of the two images
    (
        50,
        SPEEDING,
        "The phrase 'speeding' (option 2) links the car in the cause image to the police officer in the effect image.",
        2,
    ),
    # a hypothesis named by its own words alone, the whole reply
    (50, PRESENTS, "ball-shaped present", 2),
    (50, PRESENTS, "ball-shaped present, maybe", None),
]


@pytest.mark.parametrize(("round_", "kind", "answer", "expected"), LATE_ROUND_GUARDS)
def test_late_round_guards(round_, kind, answer, expected):
    assert kind.read(answer) == expected


def test_each_late_round_guard_is_written_once():
    """A round's guard of a standing policy takes a reply no earlier round guards (rounds 40 to 42 had copied three)."""
    seen = [(id(kind), answer) for _round, kind, answer, _expected in LATE_ROUND_GUARDS]
    assert len(seen) == len(set(seen)), [row for row in seen if seen.count(row) > 1]


# Round 50's blind review: replies a person reads as no answer, or as another value, that round 50's rules read as a
# value (each read None, or the person's value, before round 50). ``expected``: what a person reads (a tuple: the
# readings a person would accept).
@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        # Arabic label verbs without their "لا" (not): "does not weaken the hypothesis, but strengthens it" read as the
        # opposite label (the English reply reads strengthener), "this does not weaken the hypothesis" as weakener
        (DVE_LABEL, "الدليل الجديد لا يضعف الفرضية، بل يعززها.", "strengthener"),
        (DVE_LABEL, "التحديث لا يُضعف الفرضية بل يقويها.", "strengthener"),
        (DVE_LABEL, "هذا لا يُضعف الفرضية.", None),
        # the Thai option noun after "is not" ("The answer is not option 4")
        (MUCR_OPTIONS, "คำตอบไม่ใช่ตัวเลือกที่ 4", None),
        # the Japanese answer particle before "not option 4 but option 2"
        (MUCR_OPTIONS, "答えは選択肢4ではなく、選択肢2です。", 2),
        # Turkish "the correct answer is not option 2"
        (MUCR_OPTIONS, "Doğru cevap 2. seçenek değil.", None),
        # a qualified refusal, then an option described, not chosen, after "but"
        (MUCR_OPTIONS, "None of the options fits perfectly, but option 2 shows a bathtub, which is irrelevant.", None),
        (MUCR_OPTIONS, "None of the options is an exact match, but Option 1 shows rain.", None),
        (MUCR_OPTIONS, "I cannot fully determine the cause, but Option 2 shows an open window.", None),
        (
            MUCR_OPTIONS,
            "None of the options is a perfect match, but Option 3 comes closest, though Option 2 also comes close. "
            "I can't choose.",
            None,
        ),
        # a list of two ratings read as one decimal comma (the rule's own guard: "Scores: 6,7,8" reads none)
        (NLEYE_PAIRS, "Scores: 6,7", None),
        # the hedged rating before a colon, after a refusal, the colon opening a condition
        (NLEYE_PAIRS, "I can't give a single rating. Maybe about an 8: if the man is the fisherman.", None),
        # ", i.e. Option 3," collapses the count into a pick the refusal after it no longer sees
        (MUCR_OPTIONS, "The fourth picture, i.e. Option 3, is blurry, so I cannot decide.", None),
        # "links ... to/and": a cue said to link only superficially, the other one chosen
        (
            SPEEDING,
            "'Car' (option 1) links the cause and effect images superficially, but 'speeding' (option 2) explains the "
            "ticket.",
            (2, None),
        ),
        # "fits the <noun> better" inside a condition the reply cannot settle
        (PRESENTS, "If hypothesis 1 fits the box shape better, then it is the answer, but I cannot tell.", None),
    ],
)
def test_round_50_review_no_silent_misread(kind, answer, expected):
    acceptable = expected if isinstance(expected, tuple) else (expected,)
    assert kind.read(answer) in acceptable


# Round 50's blind review: replies read as the person reads them before round 50, unread since (a verdict round 50
# added now stands against the answer the reply goes on to give)
@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (PRESENTS, "Hypothesis 1 fits the box shape better, but hypothesis 2 is more plausible overall.", 2),
        (PRESENTS, "Hypothesis 1 directly continues the context in time, but hypothesis 2 is more plausible.", 2),
        (MUCR_OPTIONS, "Option 3 comes closest visually, but Option 1 is the actual effect.", 1),
        (MUCR_OPTIONS, "Option 2 comes closest to the cause image in color, but the effect is Option 4.", 4),
        (MUCR_OPTIONS, "I think Option 1, because the bathtub overflows.\nAnswer: 3", 3),
        (SPEEDING, "The road links the car to the police officer, but speeding is the real cue.", 2),
        (SPEEDING, "The phrase 'speeding' links nothing to the police officer; the answer is road.", 3),
        (NLEYE_PAIRS, "Not about an 8: more like a 3.", 3.0),
        (TWO_IMAGES, "2. hipotez, 1. hipotezden daha makul.", 2),
    ],
)
def test_round_50_review_readings_kept(kind, answer, expected):
    assert kind.read(answer) == expected


REVIEW_KINDS = {
    "nleye_separate": nleye_hooks.TRIPLET_ANSWER,
    "nleye_combined": nleye_hooks.TRIPLET_COMBINED_ANSWER,
    "nleye_text": PRESENTS,
    "nleye_pairs": NLEYE_PAIRS,
    "mucr": mucr_hooks.FOUR_OPTIONS,
    "mucr_cue": SPEEDING,
    "dve_label": DVE_LABEL,
    "sherlock_rating": sherlock_hooks.RATING_ANSWER,
    # round 22's review: a lettered comparison (MathVista's "____ that at x=5") and phrases ending in "to"/"as"
    "compare_letters": Choice(
        4, letters=True, option_texts=("larger than", "equal to", "smaller than", "none of the above")
    ),
    "cue_to": Choice(4, option_texts=("close to", "far from", "next to", "same as"), image_numbers=False),
}


@pytest.mark.parametrize(
    ("round_file", "replies"),
    [
        ("review_round17.yaml", 810),
        ("review_round18.yaml", 212),
        ("review_round19.yaml", 147),
        ("review_round20.yaml", 180),
        ("review_round21.yaml", 165),
        ("review_round22.yaml", 81),
        ("review_round23.yaml", 154),
        ("review_round24.yaml", 110),
        ("review_round25.yaml", 177),
        ("review_round26.yaml", 112),
    ],
)
def test_review_replies(round_file, replies):
    """Every reply of a round's blind reviews that the round reads as the reviewer's person does still reads so."""
    cases = yaml.safe_load((Path(__file__).parent / round_file).read_text(encoding="utf-8"))
    assert len(cases) == replies
    moved = [
        (case["kind"], case["reply"], case["person"], read)
        for case in cases
        if (read := REVIEW_KINDS[case["kind"]].read(case["reply"])) != case["person"]
    ]
    assert moved == []
