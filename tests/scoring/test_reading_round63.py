"""Reading round 63 (batch BS): each new rule reads the replies it exists for, and abstains on or keeps the readings of
the counter-cases it was narrowed against (docs/reading.md)."""

from __future__ import annotations

import pytest

from abductive_tasks.scoring.reading import Choice

MUCR_OPTIONS = Choice(4, context_images=1, image_numbers=False)


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
