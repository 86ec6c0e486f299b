"""Reading round 63 (batch BS): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve_hooks
from abductive_tasks.mucr import hooks as mucr_hooks
from abductive_tasks.scoring.reading import Choice

MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)
LABELS = dve_hooks.LABEL
SPEEDING = mucr_hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            '{"scene_graph": {"cause": {"objects": ["child", "candle", "curtain"], "relations": [["child", "holding", '
            '"candle"], ["candle", "near", "curtain"]]}, "option_1": {"objects": ["fire truck"',
            None,
        ),
        ('{"scene_graph": {"option_1": {"objects": ["fire truck"]}, "option_2": {"objects": ["wet', None),
        ('{"objects": ["candle", "curtain"], "answer":', None),
        ('{"answer": 2', None),
        # counter-cases: an answer key's value given before the cut; an answer stated before the object; the object
        # complete; braces in prose, no JSON
        ('{"option": 3, "reason": "The effect shows a muddy dog on a white sofa; option 3 shows the dog', 3),
        ('{"scene_graph": {"cause": {"objects": ["child"]}}, "answer": "Option 1", "reasoning": "the fire', 1),
        ('Option 3 shows the effect.\n```json\n{"scene_graph": {"option_1": {"objects": ["fire', 3),
        ('{"scene_graph": {"option_1": {"objects": ["a {big} truck"]}}, "answer": 2}', 2),
        ("Scene graph: option 4 {fire truck, hose}, the effect.", 4),
    ],
)
def test_a_reply_cut_off_inside_a_json_object(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("option 3 shows the effect of the first image", 3),
        ("Option 2 shows the effect of the cause image", 2),
        # counter-cases: cut off on the word itself; the context set aside, the reply still cut off before it
        ("option 3 shows the effect of the", None),
        ("Looking at the options, Option 1", None),
        ("The first image shows a storm, and in the second image the old oak is", None),
    ],
)
def test_a_reply_ending_on_what_the_reader_sets_aside(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The second image — the first of the four options — shows the effect: right after the lightning strike "
            "in the first image, it shows the old oak split in half.",
            1,
        ),
        ("The fourth picture - the third of the four options - shows the effect.", 3),
        # counter-cases: standing alone, or after a dash but no image count
        ("The third of the four options might seem right, but it is not.", None),
        ("The effect - the first of the four options - is wrong.", None),
    ],
)
def test_an_image_count_explained_by_an_ordinal_of_the_options_after_a_dash(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("kind", "answer", "expected"),
    [
        (
            LABELS,
            "Weakener, though it could also be read as a strengthener if the couple were celebrating an anniversary "
            "at the",
            "weakener",
        ),
        (LABELS, "Weakener, although the update says the", "weakener"),
        (MUCR_OPTIONS, "Option 2, though Option 3 is also possible if the", 2),
        # counter-cases: "but", no concession; a correction or a sentence after the concession; two answers opening
        # it; a clause after a semicolon
        (LABELS, "Weakener, but it could also be a strengthener, because the", None),
        (
            LABELS,
            "Weakener, though it could also be a strengthener. Actually, a strengthener, because the",
            "strengthener",
        ),
        (LABELS, "Weakener, though it could also be a strengthener. The update says the", None),
        (LABELS, "Weakener or strengthener, though the", None),
        (LABELS, "Weakener, though maybe a strengthener; the update says the", None),
        (MUCR_OPTIONS, "Option 2 or 3, though the", None),
    ],
)
def test_an_opening_answer_before_a_concession_cut_off(kind, answer, expected):
    assert kind.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The cause image shows a child throwing bread to ducks at a pond. The most natural effect is the ducks "
            "crowding around the child, which appears in Option 4. Options 1–3 show unrelated scenes.",
            4,
        ),
        # counter-cases: no role given; "too" after it; a hedge; a denial; two options
        ("The cause image shows a dog, which appears in Option 4. Options 1–3 show unrelated scenes.", None),
        (
            "The effect is the ducks crowding around the child, which appears in Option 4 too. Options 1–3 show "
            "unrelated scenes.",
            None,
        ),
        (
            "The effect is the ducks crowding around the child, which might appear in Option 4. Options 1–3 show "
            "unrelated scenes.",
            None,
        ),
        (
            "The effect is not the ducks crowding around the child, which appears in Option 4. Options 1–3 show "
            "unrelated scenes.",
            None,
        ),
        (
            "The effect is the ducks crowding, which appears in Option 4 or 2. Options 1 and 3 show unrelated scenes.",
            None,
        ),
    ],
)
def test_the_answers_role_then_which_option_it_appears_in(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The answer is 'speeding' – the car going far too fast on a curve (cause) leads to the crash into the "
            "guardrail (effect). 'Car' and 'road' are just the setting, and there's no police officer in either image.",
            2,
        ),
        ("Speeding - the car going too fast leads to the crash.", 2),
        # counter-cases: another option's text after the dash, no verb it is the subject of
        ("The answer is speeding - the car going far too fast.", None),
        ("Speeding - the road leading to the town.", None),
        ("Speeding - the car.", None),
    ],
)
def test_an_options_text_after_a_dash_as_the_subject_of_leads(answer, expected):
    assert SPEEDING.read(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Option 3: the effect image shows a man coughing in a smoky living room, and Option 3 shows a fire in the "
            "fireplace with the chimney flue closed. This would fill the room with smoke and cause",
            3,
        ),
        # counter-cases: a heading its sentence names no more; another option in its sentence; another option after
        # it; the option named again in another sentence
        ("Option 1: a sunny beach, unrelated to the", None),
        (
            "Option 1: the effect image shows a man coughing, and Option 2 shows a fire in the fireplace. This would "
            "fill the room with smoke and cause",
            None,
        ),
        (
            "Option 3: the effect image shows a man coughing, and Option 3 shows a fire. Option 1 shows a fire too, "
            "which",
            None,
        ),
        (
            "Option 3: the effect image shows a man coughing. Option 3 shows a fire in the fireplace, which would fill "
            "the",
            None,
        ),
    ],
)
def test_an_opening_option_before_a_colon_named_again_in_its_sentence(answer, expected):
    assert MUCR_OPTIONS.read(answer) == expected
