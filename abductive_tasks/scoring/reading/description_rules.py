"""The options a reply describes itself: its own list of what each option shows, and an answer given in those words.

Read in the reply's text, before its mentions are marked (``rules.TEXT_RULES``); :class:`kinds.Choice` reads them
(``_reason_describes_another``, ``_described_answer``).
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.table import Example, Rule

__all__ = ["DESCRIBED_ANSWER", "OWN_DESCRIPTION", "OWN_DESCRIPTIONS"]


def _rule(pattern: str, *examples: Example) -> Rule:
    return Rule(re.compile(pattern, re.IGNORECASE), examples)


# The options described by the reply itself, in order ("Option 1 to Option 4 show, in order: a woman baking, a man
# jogging, ..."): a pick whose own reason speaks of another option's description alone, and not of its own, contradicts
# the reply's description (:meth:`Choice.read`). Read in the reply's text (TEXT_RULES).
OWN_DESCRIPTIONS = _rule(
    r"\boptions?\s*(?:\(?1\)?)\s*(?:to|-|–|through)\s*(?:option\s*)?\(?\d\)?,?\s+(?:show|depict|contain)s?\b,?"
    r"\s*(?:(?:in\s+order|respectively|from\s+left\s+to\s+right)\s*[:,]?\s*(?P<list>[^.\n]+)"
    r"|(?P<list_before>[^.\n]+?),?\s+(?:in\s+order|respectively|from\s+left\s+to\s+right)\s*(?=[.\n]|$))",
    Example(
        "mucr",
        "Option 1 to Option 4 show, in order: a woman baking, a man jogging, a boy throwing a stone at a window, and a "
        "cat sleeping. The effect image shows a broken window, so the cause is Option 2.",
        None,
    ),
    Example(
        "mucr",
        "Options 1-4 show, in order: a woman baking, a man jogging, a boy throwing a stone at a window, and a cat "
        "sleeping. The effect image shows a broken window, so the cause is Option 3.",
        3,
    ),
)
# An option described by the reply itself ("Option 2 shows a wet kitchen floor", "Option 1: A boy kicking a ball."),
# and a closing answer in a description's words ("..., so the effect is the wet floor."): that option, where its
# words are one description's alone (:meth:`Choice.read`). Read in the reply's text (TEXT_RULES).
OWN_DESCRIPTION = _rule(
    r"\boption\s*\(?(?P<number>\d)\)?\s*(?::|\s(?:shows?|depicts?)\b|(?=\s+(?:an?|the)\s))"
    r"(?P<described>(?:(?!\boption\s*\(?\d)[^.\n])+)",
    Example(
        "mucr",
        "Option 3 shows a person holding an umbrella, and Option 2 shows a wet kitchen floor with a puddle under the "
        "sink. The cause image shows a leaking pipe under a sink, so the effect is the wet floor.",
        2,
    ),
)
DESCRIBED_ANSWER = _rule(
    r"\b(?:so|therefore|thus|hence)\b,?\s+the\s+(?:cause|effect|answer)\s+(?:is|must\s+be|would\s+be)\s+"
    r"(?P<phrase>(?:the|an?)\s+(?!one\b|other\b|same\b)[^.\n]+)[.!]?\s*$",
    Example(
        "mucr",
        "Option 1: A boy kicking a ball.\nOption 2: A woman cooking dinner.\nOption 3: A dog sleeping.\nOption 4: A "
        "thunderstorm.\nThe effect image shows a broken vase next to a soccer ball, so the cause is the boy kicking "
        "the ball.",
        1,
    ),
    Example(
        "mucr",
        "Option 1: A boy kicking a ball.\nOption 2: A dog chasing a ball.\nOption 3: A cat sleeping.\nOption 4: A "
        "thunderstorm.\nThe vase lies next to a ball, so the cause is the ball.",
        None,
    ),
)
