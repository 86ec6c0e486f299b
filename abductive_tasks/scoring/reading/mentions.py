"""Mentions: what names an answer in a reply, marked as a numbered placeholder the rule tables match over."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from abductive_tasks.scoring.reading.table import Example
from abductive_tasks.scoring.reading.text import plain

__all__ = [
    "ANSWER_HEADING",
    "ANY_MENTION",
    "BARE_MENTION",
    "MENTION_INDEX",
    "NAMED_MENTION",
    "CONTEXT_ALIAS",
    "LIST_HEAD",
    "NAMED_REF",
    "REF",
    "RELATIVE_CLAUSE",
    "Mention",
    "MentionRule",
    "alternatives",
    "mark",
    "mention_index",
    "option_text",
    "placeholder",
]

# A placeholder: «i» for a named mention, ‹i› for a bare one, i written as a private-use character
# so that no later rule reads it as a number.
_OPEN, _CLOSE, _BARE_OPEN, _BARE_CLOSE = "«", "»", "‹", "›"
_INDEX_BASE = 0xF0000  # Supplementary Private Use Area-A: 65,534 mentions
# In a pattern: a placeholder's index character, any placeholder, a named one, a bare one. Every rule spells a
# placeholder with these, never the private-use range itself.
MENTION_INDEX = r"[\U000f0000-\U000ffffd]"
ANY_MENTION = rf"[«‹]{MENTION_INDEX}[»›]"
NAMED_MENTION = rf"«{MENTION_INDEX}»"
BARE_MENTION = rf"‹{MENTION_INDEX}›"
# An answer heading: "Answer:", "**Final answer:**" (the statements, doubts and decisions that read one)
ANSWER_HEADING = r"\b(?:final\s+)?answer\s*(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*"
# A relative clause after a subject, up to its verb: "The officer who pulls the car over is ..."
RELATIVE_CLAUSE = r"(?:who|that|which)\s+[^.;,!?\n]{1,80}?\s+"


def placeholder(index: int, named: bool = True) -> str:
    """The placeholder of mention number ``index``: «i» when ``named``, else ‹i›."""
    opening, closing = (_OPEN, _CLOSE) if named else (_BARE_OPEN, _BARE_CLOSE)
    return f"{opening}{chr(_INDEX_BASE + index)}{closing}"


def mention_index(marked: str) -> int:
    """The mention number of a placeholder («i», ‹i›) or of its index character alone."""
    return ord(marked[len(marked) // 2]) - _INDEX_BASE


CONTEXT_ALIAS = 0  # a Choice alias naming the context panel, which is no option ("left" in NL-Eye's combined image)


@dataclass(frozen=True)
class Mention:
    value: object  # what the mention names; None when it names nothing valid (an ambiguous range)
    named: bool  # False for a bare number or position word, which counts only inside a verdict
    image: bool = False  # an image count ("image 3", "the third picture")
    ordinal: bool = False  # counted in order ("the third picture"), not numbered as the prompt numbers ("image 3")
    context: bool = False  # the reply's count of the context image ("the first image (the context)")
    text: bool = False  # an option's own text quoted ("heavy rain")
    passing: bool = False  # an option's text named in passing, no pick ("the cause image shows a birthday party")
    may_name: tuple = ()
    unlisted: bool = False  # a phrase in parentheses after a number that is no option's text ("3 (attack)")
    panel: bool = False  # a panel named by its position with its noun ("the middle image"), where aliases name panels
    contradicted: bool = False  # an answer its own parenthesis contradicts ("Speeding (option 3)"): no answer
    denied: bool = False  # an option's own words its clause denies before them ("not holding the ball-shaped present")


@dataclass(frozen=True)
class MentionRule:
    """Every match of ``pattern`` is a mention; ``value`` reads what it names from the match."""

    pattern: re.Pattern
    value: Callable[[re.Match], object]  # a list: one mention per element ("options 2 and 4")
    named: bool = True
    image: bool = False
    ordinal: bool = False
    context: bool = False
    text: bool = False
    examples: tuple[Example, ...] = ()
    unlisted: bool = False
    panel: bool = False


def mark(text: str, rules: Sequence[MentionRule]) -> tuple[str, list[Mention]]:
    """``text`` with every mention replaced by a numbered placeholder («i» named, ‹i› bare), and the mentions."""
    mentions: list[Mention] = []

    def replace(rule: MentionRule, match: re.Match) -> str:
        values = rule.value(match)
        placeholders = []
        for value in values if isinstance(values, list) else [values]:
            mentions.append(
                Mention(
                    value,
                    rule.named,
                    rule.image,
                    rule.ordinal,
                    rule.context,
                    rule.text,
                    unlisted=rule.unlisted,
                    panel=rule.panel,
                )
            )
            placeholders.append(placeholder(len(mentions) - 1, rule.named))
        return " and ".join(placeholders)

    for rule in rules:
        text = rule.pattern.sub(lambda match, rule=rule: replace(rule, match), text)
    return text, mentions


REF = rf"\(?\s*[«‹](?P<{{name}}>{MENTION_INDEX})[»›]\s*\)?"  # a named or bare mention, perhaps in parentheses
# "1 and 3 are equally valid", "Option 1, Option 2, Option 3, Option 4", "Option 1, option 3 and option 4 are
# unrelated", an answer and a bare number after a comma ending their line ("2, 3": AL's first contact; not "2,
# speeding")
LIST_HEAD = (
    # (the second with its article: "I'd give it a 3 or a 4.", "I would say the image 1 or the image 2.", each read at
    # its first before round 67)
    rf"(?!\s*,?\s*(?:and|or(?:\s+(?:an?|the)(?=\s))?|&|/)\s*\(?\s*{ANY_MENTION}"
    # "Option 1 (like Example 1) or Option 2 (like Example 2)": two offered, each with its parenthesis (AX's)
    rf"|\s*\([^()\n]{{0,60}}\)\s*,?\s*or\s+\(?\s*{ANY_MENTION}"
    rf"|\s*,\s*{ANY_MENTION}\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or)\s+){ANY_MENTION}"
    rf"|[ \t]*,[ \t]*{BARE_MENTION}[ \t]*[.!]?[ \t]*(?:\n|\Z))"
)
NAMED_REF = rf"«(?P<{{name}}>{MENTION_INDEX})»"


def option_text(option: str) -> str:
    """An option's text as a reply quotes it: plain, without its closing full stop ("The man is wet.")."""
    return plain(option).rstrip(".!")


def alternatives(words: Sequence[str]) -> str:
    """Words as a regex alternation, longest first, each word's spaces matching any white space."""
    return "|".join(r"\s+".join(map(re.escape, word.split())) for word in sorted(words, key=len, reverse=True))
