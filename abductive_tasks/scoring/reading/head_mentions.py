"""An option text named by one of its words: a one-word text in -ing by its stem, a phrase by its head noun, each
stated as the cue or answer (the mention table of a choice with option texts, mention_tables.choice_mentions)."""

from __future__ import annotations

import re
from collections.abc import Callable

from abductive_tasks.scoring.reading.mentions import (
    ANY_MENTION,
    RELATIVE_CLAUSE,
    Mention,
    MentionRule,
    alternatives,
    mention_index,
    option_text,
)
from abductive_tasks.scoring.reading.table import Example

__all__ = ["head_mentions", "modified_by_another", "stem_mentions"]


def _rule(pattern: str, value: Callable[[re.Match[str]], object], *examples: Example) -> MentionRule:
    """A mention rule naming an option by its text's word (named, ``text``)."""
    return MentionRule(re.compile(pattern, re.IGNORECASE), value, text=True, examples=examples)


def _stems(word: str) -> set[str]:
    """The stem of a one-word option text ending in -ing: "speed" of "speeding", "race" of "racing", "run" of
    "running"."""
    if not re.fullmatch(r"[^\W\d_]{4,}ing", word):
        return set()
    stem = word[:-3]
    return {stem, stem + "e", *([stem[:-1]] if stem[-1] == stem[-2] else [])}


def stem_mentions(option_texts: tuple[str, ...]) -> tuple[MentionRule, ...]:
    """A one-word option text by its stem, stated as the cue or answer and ending its clause ("The cue is 'speed':
    the car was going too fast", where speeding is a phrase; AI's first contact): that option, where the stem is no
    other option's word."""
    words = [option_text(option).lower() for option in option_texts]
    others = {word for text in words for word in text.split()}
    stems = {
        stem: number
        for number, word in enumerate(words, start=1)
        for stem in _stems(word)
        if len(stem) >= 4 and stem not in others
    }
    if not stems:
        return ()
    return (
        _rule(
            # or opening the reply as a sentence of its own: "Speed. The car in the first image is going much faster
            # than the other vehicles." (AV's first contact, read car)
            r"(?:(?<=\bcue is )|(?<=\banswer is )|(?<=\bcue: )|(?<=\banswer: )|\A[ \t]*)"
            # a degree word before it: "The cue is excessive speed: the driver goes too fast" (AT's first contact)
            r"(?:(?:excessive|extreme|high|reckless|too\s+much)\s+)?"
            rf"(?P<stem>{alternatives(list(stems))})(?=[ \t]*(?:[.:;,!\n]|$))",
            lambda m: stems[m["stem"].lower()],
            Example("cue_words", "The cue is 'speed': the car was going too fast.", 2),
            Example("cue_words", "The cue is speed.", 2),
            Example("cue_words", "The cue is excessive speed: the driver goes too fast and is then fined.", 2),
            Example("cue_words", "Speed. The car in the first image overtakes every other car.", 2),
        ),
    )


def _opening_words(words: list[list[str]]) -> tuple[MentionRule, ...]:
    """Any word of a phrase of two or three words, no other option's, opening the reply as a sentence of its own:
    "Police. The officer is what connects the cause with the effect." (AU's first contact; an opening word of no option
    answers nothing the reader knows, description_rules.STATED_OTHERWISE)."""
    own_words = {
        word: number
        for number, own in enumerate(words, start=1)
        if 2 <= len(own) <= 3
        for word in own
        if re.fullmatch(r"[^\W\d_]{4,}", word) and not any(word in other for other in words if other is not own)
    }
    if not own_words:
        return ()
    return (
        _rule(
            rf"\A[ \t]*(?:the\s+)?(?P<word>{alternatives(list(own_words))})(?=[ \t]*[.!](?:\s|$))",
            lambda m: own_words[m["word"].lower()],
            Example("cue_words", "Police. The officer is what connects the cause with the effect.", 4),
        ),
    )


def head_mentions(option_texts: tuple[str, ...], phrases: bool) -> tuple[MentionRule, ...]:
    """A phrase of two or three words by its last word, its head noun, stated as the cue or answer: the subject of
    "is the cue" (past a relative clause: "The officer who pulls the car over is the cue", where police officer is a
    phrase; AP's first contact) or after "the cue is the" ending its clause; that option, where the word is no other
    option's word, and the options are ``phrases``, not sentences."""
    if not phrases:
        return ()
    words = [option_text(option).lower().split() for option in option_texts]
    heads = {
        own[-1]: number
        for number, own in enumerate(words, start=1)
        if 2 <= len(own) <= 3
        and re.fullmatch(r"[^\W\d_]{4,}", own[-1])
        and not any(own[-1] in other for other in words if other is not own)
    }
    if not heads:
        return _opening_words(words)
    return _opening_words(words) + (
        _rule(
            rf"(?:(?:^|(?<=[.!?]\s))the\s+(?P<head>{alternatives(list(heads))})"
            rf"(?=\s+(?:{RELATIVE_CLAUSE})?(?:is|was)\s+(?:the\s+(?:cue|answer|link|key)\b|"
            # "The officer is what connects the cause with the effect." (AU's first contact)
            r"what\s+(?:connects|links|ties)\b))"
            r"|(?:(?<=\bcue is the )|(?<=\banswer is the )|(?<=\bcue: the )|(?<=\banswer: the )"
            # denied in an elimination: "Not the car, not the road, not the officer — ..." (AU's first contact)
            r"|(?<=\bnot the ))"
            rf"(?P<after>{alternatives(list(heads))})(?=[ \t]*(?:[.:;,!\n]|\s[-–—]|$)))",
            lambda m: heads[(m["head"] or m["after"]).lower()],
            Example(
                "cue_words", "The officer who pulls the car over is the cue, as he connects the car to the ticket.", 4
            ),
            Example("cue_words", "The cue is the officer.", 4),
            Example("cue_words", "Police. The officer is what connects the cause with the effect.", 4),
            Example("cue_words", "Not the car, not the road, not the officer.", 2),
        ),
    )


def modified_by_another(mentions: list[Mention], marked: str, option_texts: tuple[str, ...]) -> list[Mention]:
    """The mentions, an option's text named with another option's word before it as naming none: "The cue is the
    police car." (AW's first contact, read car: a thing of no option's, car being one option and police officer
    another)."""
    words = [set(re.findall(r"[^\W\d_]{4,}", option_text(option).lower())) for option in option_texts]
    revised = list(mentions)
    for found in re.finditer(rf"\b([^\W\d_]{{4,}})[ \t]+({ANY_MENTION})", marked):
        index = mention_index(found[2])
        mention, word = mentions[index], found[1].lower()
        if not mention.text or not isinstance(mention.value, int) or not 1 <= mention.value <= len(words):
            continue
        if word not in words[mention.value - 1] and any(word in own for own in words):
            revised[index] = Mention(None, mention.named, text=True)
    return revised
