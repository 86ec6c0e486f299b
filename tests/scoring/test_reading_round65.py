"""Reading round 65 (batch BU): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve_hooks
from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.nleye import hooks as nleye_hooks
from abductive_tasks.scoring.reading import Choice

LABELS = dve_hooks.LABEL
MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
PANELS = nleye_hooks.TRIPLET_COMBINED_ANSWER
SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (PANELS, "The middle one, no wait — the one on the right.", 2),
        (
            PANELS,
            "The middle one, no wait — the one on the right. The wet footprints on the right lead away from the pool "
            "in the context.",
            2,
        ),
        (PANELS, "The middle one. No wait, the image on the right.", 2),
        # counter-case: the reply goes on to another panel after the one the correction turns to
        (PANELS, "The middle one, no wait — the one on the right, or the middle one.", 1),
    ],
)
def test_a_panel_after_the_one_a_correction_turns_to(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            MUCR_OPTIONS,
            "Option 2 is the effect. Actually, on a closer look, Option 4 shows the wilted plant, which follows from "
            "the cause image of a plant left in a dark closet — Option 4.",
            4,
        ),
        (MUCR_OPTIONS, "Option 2 is the effect. Actually, on a closer look, Option 4 shows the plant — Option 4.", 4),
        # counter-cases: the sentence goes on after the answer; no correction opens the sentence
        (
            MUCR_OPTIONS,
            "Option 2 is the effect. Actually, on a closer look, Option 4 shows the plant — Option 4 or Option 1.",
            2,
        ),
        (MUCR_OPTIONS, "Option 2 is the effect. On the whole, Option 4 shows the wilted plant — Option 4.", 2),
    ],
)
def test_the_answer_closing_a_corrected_sentence_after_a_dash(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I'd go with car (1), actually no — speeding (2) is more specific to the causal link.", 2),
        ("I'd go with car (1). Hmm, no: speeding (2) is the better choice.", 2),
    ],
)
def test_a_comparison_after_actually_no(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    "answer",
    [
        # counter-cases the rule does not read: no "no"; a comparison against it; a comparison with another option
        "I'd go with car (1). Wait, speeding (2) is more specific to the causal link.",
        "I'd go with car (1), actually no — speeding (2) is less specific.",
        "I'd go with car (1), actually no — speeding (2) is more specific than road (3).",
    ],
)
def test_a_comparison_after_actually_no_counter_cases(answer):
    assert SPEEDING.read(answer) != 2


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Scene graph for the cause image:\n- objects: man, ladder, paint can\n- relations: man on ladder, paint "
            "can on top step\nScene graph for Option 1:\n- objects: paint can,",
            None,
        ),
        (
            "Scene graph for the cause image:\n- objects: man, ladder\nScene graph for Option 1:\n- objects: paint "
            "can, floor\nScene graph for Option 2:\n- objects: man",
            None,
        ),
        # counter-cases: an answer after the option sections, or before the scene graph; a sentence in a line
        (
            "Scene graph for the cause image:\n- objects: man, ladder\nScene graph for Option 1:\n- objects: paint "
            "can, spilled\nAnswer: Option 1",
            1,
        ),
        (
            "Answer: 3\nScene graph for the cause image:\n- objects: man, ladder\nScene graph for Option 3:\n- "
            "objects: paint can,",
            3,
        ),
        (
            "Scene graph for the cause image:\n- objects: man, ladder\nScene graph for Option 1:\n- objects: paint "
            "can, spilled paint. Option 1 is the effect",
            1,
        ),
    ],
)
def test_a_scene_graph_in_lines_cut_off_inside_its_options(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            MUCR_OPTIONS,
            "Option 3, no, Option 2 – the toddler knocking over the paint can explains the blue footprints in the "
            "effect image.",
            2,
        ),
        # counter-cases: "no doubt" corrects nothing; the option a clause's subject
        (MUCR_OPTIONS, "Option 3, no doubt, Option 2 – the toddler.", 3),
        (MUCR_OPTIONS, "Option 3, no, Option 2 shows the toddler.", 3),
        (MUCR_OPTIONS, "Option 1 seems closest, though none of the options is a perfect match.", 1),
        # counter-cases: a refusal conceded that is no matter of a perfect match; none perfect in a sentence of its own
        (MUCR_OPTIONS, "Option 1 seems closest, though none of the options shows the effect.", None),
        (MUCR_OPTIONS, "None of the options is a perfect match.", None),
        (MUCR_OPTIONS, "Option 1 seems closest. None of the options is a perfect match.", None),
        (MUCR_OPTIONS, "The answer is 2 or 4, most likely 4, since the tomato plants are in the cause image.", 4),
        # counter-cases: two answers alone, or the likelier hedged
        (MUCR_OPTIONS, "The answer is 2 or 4.", None),
        (MUCR_OPTIONS, "The answer is 2 or 4, maybe 4.", None),
        (MUCR_OPTIONS, "Option 1 is unrelated. That leaves Option 3, a broken window.", 3),
        # counter-cases: two options left; an option left out
        (MUCR_OPTIONS, "Option 1 is unrelated. That leaves Option 3 and Option 4.", None),
        (MUCR_OPTIONS, "Option 1 is unrelated. That leaves Option 3 out.", None),
        (LABELS, "Strengthens? No — the update says the players are seated on the bench, so it weakens.", "weakener"),
        # counter-cases: answered yes; a question that goes on
        (LABELS, "Strengthens? Yes — the update says the players are seated on the bench, so it weakens.", None),
        (LABELS, "Strengthens the claim? No — the players are seated, so it weakens.", None),
    ],
)
def test_the_unread_replies_read(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            LABELS,
            "Weakener: the update says the woman is holding a closed umbrella, which makes it less likely that she is",
            "weakener",
        ),
        (
            LABELS,
            "Strengthener (the update that the field is covered in fresh snow makes sledding much more likely, since "
            "the",
            "strengthener",
        ),
        # counter-cases: a turn in the sentence; a sentence after it; an option's heading
        (LABELS, "Weakener: at first glance it could seem so, but the", None),
        (LABELS, "Weakener: the update says the woman is holding a closed umbrella. It also", None),
        (MUCR_OPTIONS, "Option 1: a sunny beach, unrelated to the", None),
        (SPEEDING, "Speeding: the car in the first image is going too fast and the", None),
    ],
)
def test_a_label_heading_a_sentence_cut_off(kind, answer, expected):
    assert kind.read(answer) == expected
