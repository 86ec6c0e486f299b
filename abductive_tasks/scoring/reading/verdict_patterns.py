"""The words the statement and verdict tables are written in: :func:`verdict`, which fills in a pattern's mentions
(``{pick}``, ``{reject}``, ``{named_pick}``, ...), and the pattern parts the tables share (the copula, what is more or
less plausible, the words that announce an answer, an article, an appositive set off between an answer and its verb).

The tables: ``rules`` (statements, answers standing alone), ``verdict_rules`` (other verdicts), and the ratings,
closings and forms of ``score_rules``, ``closing_rules`` and ``form_rules``.
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.mentions import (
    ANSWER_HEADING,
    ANY_MENTION,
    LIST_HEAD,
    NAMED_MENTION,
    NAMED_REF,
    REF,
    RELATIVE_CLAUSE,
)
from abductive_tasks.scoring.reading.table import Example, Rule

__all__ = [
    "verdict",
    "ADVERBS",
    "ANSWER_CUE",
    "APPOSITIVE",
    "ARTICLE",
    "COMPARED_NOUN",
    "COPULA",
    "INTENSIFIER",
    "LESS",
    "LIST_ITEM_END",
    "MORE",
    "NEGATED_VERB",
    "NOT_A_MIDDLE_CELL",
    "QUALITY",
    "QUALITY_CUE",
    "WORSE",
]

_FLAGS = re.IGNORECASE


# A verdict pattern's mentions: {pick} and {reject} any mention, {named_pick} a named one; a pick heads no list ("I
# would say 1 and 3 are equally valid" picks neither)
_LIST_TAIL = (
    r"(?<![»›] and )(?<![»›] or )(?<![»›], and )(?<![»›], or )(?<![»›] & )(?<![»›] and \()"
    # with the second's article (round 67: "A 4 or a 5 seems about right", BM's, no answer)
    r"(?<![»›] or a )(?<![»›] or an )(?<![»›] or the )"
)
_MENTIONS = {
    # nor ends one ("Both Option 2 and Option 4 could be the cause")
    "pick": REF.format(name="pick").replace("[«‹]", _LIST_TAIL + "[«‹]", 1) + LIST_HEAD,
    "reject": REF.format(name="reject"),
    "named_pick": NAMED_REF.format(name="pick"),
    "named_mention": NAMED_MENTION,  # a named mention that is neither pick nor rejection
    "any_mention": ANY_MENTION,
    "answer_heading": ANSWER_HEADING,
    "relative_clause": RELATIVE_CLAUSE,
}


def verdict(pattern: str, *examples: Example) -> Rule:
    """A verdict or statement rule: ``pattern`` with its mentions filled in (:data:`_MENTIONS`)."""
    return Rule(re.compile(pattern.format(**_MENTIONS), _FLAGS | re.MULTILINE), examples)


ADVERBS = (
    r"(?:\s+(?:clearly|definitely|probably|likely|much|far|even|also|indeed|therefore|thus|actually|certainly|"
    r"somewhat|slightly|a\s+bit|still|the|very|highly|quite|extremely|rather))*"
)
COPULA = rf"(?:is|are|was|seems?|looks?|appears?|would\s+be|could\s+be|must\s+be|should\s+be|remains?|makes?){ADVERBS}"
QUALITY = (
    r"(?:plausible|likely|probable|reasonable|logical|realistic|believable|sensible|consistent|coherent|fitting|"
    r"appropriate|accurate|suitable|natural|sense|direct)"
)
MORE = (
    rf"(?:more|most)(?:\s+(?:directly|clearly|obviously|readily|naturally|strongly))?\s+{QUALITY}"
    r"|better|best|closer|closest"
    # "the safer bet" (BT's first contact: "Neither is certain, ..., but Hypothesis 1 is the safer bet.", unread)
    r"|(?:safer|safest)(?=\s+bet\b)"
)
LESS = rf"(?:less|least)\s+{QUALITY}|worse|worst"
# a comparison's degree and what is compared: "a much better match than", "a far worse fit than"
INTENSIFIER = r"(?:(?:much|far|way|significantly|considerably)\s+)?"
COMPARED_NOUN = r"(?:\s+(?:match|fit|explanation|choice|option|candidate|answer))?"
# (or called unrelated to the question: "Option 4. Hmm, actually Option 4 is unrelated; ... points to Option 2, the
# broken cup.", BY's first contact, read 4)
WORSE = (
    rf"{LESS}|implausible|unlikely|improbable|impossible|unrealistic|illogical|wrong|incorrect|not\b"
    r"|unrelated|irrelevant"
)
NEGATED_VERB = (
    r"(?:does|do|did|would|could|can|should|will)\s*(?:not|n't)\b|doesn't|isn't|cannot|can't|won't|wouldn't|"
    r"contradicts?\b|conflicts?\s+with"
)
_CUE_NOUN = (
    r"(?:one|image|hypothesis(?:\s+image)?|option|choice|answer|effect|cause|cue(?:\s+phrase)?|phrase|picture|"
    r"scenario|candidate|panel)"
)
ANSWER_CUE = (
    r"(?:final\s+|correct\s+|my\s+|the\s+)?(?:answer|choice|selection|prediction|verdict|label|classification|conclusion|decision)"
    r"|(?:the\s+)?number\s+of\s+the\s+(?:phrase|option|cue|answer|image|hypothesis)"
    r"|(?:correct\s+|right\s+)?(?:option|answer|choice)\s+letter"
    r"|(?:the\s+)?(?:option|answer|choice)\s+number"  # "the option number is 3" (AX's first contact)
    r"|(?:final|overall|verdict)(?=\s*:)"
    # the question's own answer after the examples' ("Example 1's answer was attack and Example 2's answer was attack.
    # For the question: 2 (speeding) — ...": BX's first contact, unread)
    r"|for\s+(?:the|this)\s+(?:actual\s+|real\s+|new\s+)?question(?=\s*:)"
    r"|correct\s+(?:option|one|image|hypothesis|phrase|cue)"
    r"|best\s+(?:match|fit|option|choice|answer)|(?:that|which)\s+(?:best\s+(?:fits|matches)|(?:fits|matches)\s+best)|(?:effect|cause)(?:\s+of\s+the\s+\w+(?:\s+image)?)?|cue(?:\s+phrase)?"
)
# "the more plausible image", "most likely": a cue only with "is" ("X is more plausible: because ..." states nothing)
QUALITY_CUE = rf"(?<!less )(?<!least )(?:(?:more|most)\s+)?{QUALITY}(?:\s+{_CUE_NOUN})?"
ARTICLE = r"(?:(?:the|a|an)\s+)?"
# one of several yes or no cells of a table row is no verdict, its last cell is (BA's first contact: "| 1 | car | yes |
# yes | no |" read car, where the row's last cell rejects it)
NOT_A_MIDDLE_CELL = r"(?![ \t]*\|[^\n]*\|[ \t]*(?:yes|no)\b)"
# between the items of a list: a comma, or the "and" that joins the items of one mention of a list ("Option 1, 2 or 3")
LIST_ITEM_END = r"(?:\s*,\s*|\s+and\s+)"
# words set off between an answer and its verb: ", showing the girl with a cast,", " - the couple cutting the cake -"
# (a verdict pattern's part: its braces are doubled for :func:`verdict`)
APPOSITIVE = (
    r"(?:\s+(?:in|on|at|from)\s+the\s+(?:row|series|sequence|set|middle|left|right))?"
    r"(?:\s*\([^()«‹\n]{{1,80}}\))?"  # "Option 2 (a person dropping something) is the closest"
    r"(?:\s*(?:,|\s-)\s*(?:which\s+|that\s+)?[^,\-.;:!?\n«‹]{{1,80}}?(?:,|\s-))?"
)
