"""A refusal, "cannot determine", "neither", "both" or "none of the options" is never a value, in any task's kind.

Every kind a task reads replies with (found with grep "Choice(\\|Score(\\|Label(" abductive_tasks) is checked with
replies that name two of its own answers ({a}, {b}) without choosing one.
"""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve
from abductive_tasks.mucr import hooks as mucr
from abductive_tasks.nleye import hooks as nleye
from abductive_tasks.scoring.reading import AnswerKind
from abductive_tasks.sherlock import hooks as sherlock

CUE_DOC = {"options": ["heavy rain", "birthday party", "slippery floor", "broken glass"]}
# each task's answer kind, and two of its answers as a reply names them
TASK_KINDS: dict[str, tuple[AnswerKind, str, str]] = {
    "nleye.TRIPLET_ANSWER": (nleye.TRIPLET_ANSWER, "image 1", "image 2"),
    "nleye.TRIPLET_COMBINED_ANSWER": (nleye.TRIPLET_COMBINED_ANSWER, "the middle image", "the right image"),
    "nleye.TRIPLET_TEXT_ANSWER": (nleye.TRIPLET_TEXT_ANSWER, "hypothesis 1", "hypothesis 2"),
    "nleye.triplet_text_answer": (
        nleye.triplet_text_answer({"shown_descriptions": ["The man is wet.", "The man is on a beach."]}),
        "the man is wet",
        "hypothesis 2",
    ),
    "nleye.PAIRS_ANSWER": (nleye.PAIRS_ANSWER, "3", "8"),
    "mucr.FOUR_OPTIONS": (mucr.FOUR_OPTIONS, "option 1", "option 3"),
    "mucr.cue_answer": (mucr.cue_answer(CUE_DOC), "heavy rain", "phrase 3"),
    "dve.LABEL": (dve.LABEL, "strengthener", "weakener"),
    "sherlock.RATING_ANSWER": (sherlock.RATING_ANSWER, "2", "9"),
}
NON_ANSWERS = (
    # refusals
    "I'm sorry, but I can't help with that.",
    "I refuse to answer this question.",
    "As an AI, I cannot make judgments about {a} or {b}.",
    # cannot determine
    "I cannot determine the answer from these images.",
    "It is not possible to determine whether {a} or {b} is right.",
    "Cannot determine: {a} and {b} both fit.",
    "I can't decide between {a} and {b}.",
    "{a} or {b}; I am not sure which.",
    "{b} fits if the context came first; {a} if it came after. I cannot determine which is right.",
    "I can't see the image, so I'm unable to judge whether {a} or {b} is right.",
    "Either {a} or {b} could be right.",
    # a reply cut off before it committed
    "Let me describe each one.\n\n- {a}: a man holding",
    # neither
    "Neither.",
    "Neither {a} nor {b}.",
    # both
    "Both.",
    "Both {a} and {b}.",
    "Both {a} and {b} are equally plausible.",
    # none of the options
    "None of the options.",
    "None of the options is right: not {a}, and not {b} either.",
    # contradictory
    "It's {a}. In conclusion, it's {b}.",
)


@pytest.mark.parametrize("reply", NON_ANSWERS)
@pytest.mark.parametrize("task_kind", TASK_KINDS, ids=str)
def test_a_non_answer_is_never_a_value(task_kind, reply):
    kind, a, b = TASK_KINDS[task_kind]
    assert kind.read(reply.format(a=a, b=b)) is None


@pytest.mark.parametrize("task_kind", TASK_KINDS, ids=str)
def test_the_same_kinds_read_a_plain_answer(task_kind):
    """The non-answers above are unread for what they say, not because the kind reads nothing."""
    kind, a, b = TASK_KINDS[task_kind]
    assert kind.read(f"The answer is {b}.") is not None
    assert kind.read(f"It's {a}. Actually, no: the answer is {b}.") == kind.read(f"Answer: {b}")
