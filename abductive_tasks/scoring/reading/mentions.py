"""Mentions: what names an answer in a reply, marked as a numbered placeholder the rule tables match over."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from abductive_tasks.scoring.reading.text import _plain

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
_NUMBER = r"\d+(?![\w%]|[.,]\d)"
_NUMBER_WORD = "|".join(_NUMBER_WORDS)
_ORDINAL = "|".join(_ORDINALS) + r"|\d+(?:st|nd|rd|th)"
# A number word standing as an answer: "Two.", "The answer is one.", "Score: five", "a six."
# (not "the other one", "of the two images").
_NUMBER_WORD_ALONE = (
    rf"(?:(?m:^)|(?<=\bis )|(?<=\bbe )|(?<=\ba )|(?<=\ban )|(?<=: ))(?P<value>{_NUMBER_WORD})\b(?=\s*(?:[.!?,;)]|$))"
)
# Nouns that take an option number after them ("Option (3)", "choice three", "hypothesis image 2"),
# and nouns that count images ("image 2", "the third picture"), which may count the context image too.
_OPTION_NOUN = (
    r"(?:hypothesis\s+images?|hypothes[ie]s|options?|choices?|candidates?|cue\s+phrases?|phrases?|h(?=\d))"  # "H2" too
)
_IMAGE_NOUN = r"(?:images?|pictures?|photos?|panels?|frames?)"
# Nouns an ordinal or a panel position names ("the third option", "the right image", "the middle one").
_ORDINAL_NOUN = (
    rf"(?:hypothesis\s+{_IMAGE_NOUN}|{_IMAGE_NOUN}|options?|choices?|candidates?|phrases?|hypothes[ie]s|ones?|"
    r"scenes?|scenarios?|sides?)"
)
_POSITION_NOT_PANEL = (
    r"answer|choice|option|decision|way|thing|track|time|call|to|place|conclusion|idea|direction|now|after|away"
)
# A placeholder: «i» for a named mention, ‹i› for a bare one, i written as a private-use character
# so that no later rule reads it as a number.
_OPEN, _CLOSE, _BARE_OPEN, _BARE_CLOSE = "«", "»", "‹", "›"
_INDEX_BASE = 0xF0000  # Supplementary Private Use Area-A: 65,534 mentions

CONTEXT_ALIAS = 0  # a Choice alias naming the context panel, which is no option ("left" in NL-Eye's combined image)


@dataclass(frozen=True)
class _Mention:
    value: object  # what the mention names; None when it names nothing valid (an ambiguous range)
    named: bool  # False for a bare number or position word, which counts only inside a verdict
    image: bool = False  # an image count ("image 3", "the third picture")
    ordinal: bool = False  # counted in order ("the third picture"), not numbered as the prompt numbers ("image 3")
    context: bool = False  # the reply's count of the context image ("the first image (the context)")
    text: bool = False  # an option's own text quoted ("heavy rain")
    passing: bool = False  # an option's text named in passing, no pick ("the cause image shows a birthday party")


class Example(NamedTuple):
    """A reply a rule exists for, and what a person reads in it, read through the example kind named ``kind`` (the
    kinds of tests/scoring/test_rule_examples.py: nleye, panels, texts, mucr, cue, letters, label, rating)."""

    kind: str
    reply: str
    reads: object


@dataclass(frozen=True)
class _MentionRule:
    """Every match of ``pattern`` is a mention; ``value`` reads what it names from the match."""

    pattern: re.Pattern
    value: Callable[[re.Match], object]  # a list: one mention per element ("options 2 and 4")
    named: bool = True
    image: bool = False
    ordinal: bool = False
    context: bool = False
    text: bool = False
    examples: tuple[Example, ...] = ()


def _mark(text: str, rules: Sequence[_MentionRule]) -> tuple[str, list[_Mention]]:
    """``text`` with every mention replaced by a numbered placeholder («i» named, ‹i› bare), and the mentions."""
    mentions: list[_Mention] = []

    def replace(rule: _MentionRule, match: re.Match) -> str:
        values = rule.value(match)
        opening, closing = (_OPEN, _CLOSE) if rule.named else (_BARE_OPEN, _BARE_CLOSE)
        placeholders = []
        for value in values if isinstance(values, list) else [values]:
            mentions.append(_Mention(value, rule.named, rule.image, rule.ordinal, rule.context, rule.text))
            placeholders.append(f"{opening}{chr(_INDEX_BASE + len(mentions) - 1)}{closing}")
        return " and ".join(placeholders)

    for rule in rules:
        text = rule.pattern.sub(lambda match, rule=rule: replace(rule, match), text)
    return text, mentions


_FLAGS = re.IGNORECASE
_REF = r"\(?\s*[«‹](?P<{name}>[\U000f0000-\U000ffffd])[»›]\s*\)?"  # a named or bare mention, perhaps in parentheses
_LIST_HEAD = r"(?!\s*,?\s*(?:and|or|&|/)\s*\(?\s*[«‹][\U000f0000-\U000ffffd][»›])"  # "1 and 3 are equally valid"
_NAMED_REF = r"«(?P<{name}>[\U000f0000-\U000ffffd])»"


def _option_text(option: str) -> str:
    """An option's text as a reply quotes it: plain, without its closing full stop ("The man is wet.")."""
    return _plain(option).rstrip(".!")


def _alternatives(words: Sequence[str]) -> str:
    """Words as a regex alternation, longest first, each word's spaces matching any white space."""
    return "|".join(r"\s+".join(map(re.escape, word.split())) for word in sorted(words, key=len, reverse=True))
