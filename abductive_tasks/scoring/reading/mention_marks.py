"""What a reply's own words make of its mentions, before the decision (``decision``) weighs its picks: a mention
explained by another is one mention ("the third image (right)", "Hypothesis 1 (right image)", "3 - heavy rain"), or
none where the two disagree; a number its own explanation contradicts names no answer; an option's text its own clause
denies is rejected, and one named in passing names nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from abductive_tasks.scoring.reading.description_rules import (
    CLAUSE_END,
    IN_PASSING,
    OWN_WORDS_CLAUSE,
    OWN_WORDS_DENIED,
    PARTICIPLE_SUBJECT,
    PROGRESSIVE_SUBJECT,
    ROLE_AFTER,
    ROLE_NAMED,
    THAT_CLAUSE_SUBJECT,
)
from abductive_tasks.scoring.reading.form_rules import EXPLAINED_PAIR, NUMBERED_TEXT
from abductive_tasks.scoring.reading.mentions import (
    ANY_MENTION,
    CONTEXT_ALIAS,
    NAMED_MENTION,
    Mention,
    mention_index,
    placeholder,
)

__all__ = ["denied", "explained", "in_passing"]

_PLACEHOLDER = re.compile(ANY_MENTION)  # a mention left in the text
# A mention explained by another: "the third image (right)", "Hypothesis 1 (right image)", "3 - heavy rain".
# a sentence that cannot decide: "... so I cannot decide."
_CANNOT_DECIDE = r"(?:\b(?:cannot|can\s+not|unable\s+to)|n't)\s+(?:decide|tell|determine|choose|say)\b"
_COLLAPSE = re.compile(
    r"(?<!\bnot\s)(?<!\bnot\sa\s)(?<!\bnot\san\s)(?<!\bnot\sthe\s)"  # "not a strengthener - weakener" contrasts
    rf"(?P<outer>{ANY_MENTION})(?:\s+overall|\s+(?:from|on)\s+the\s+(?:left|right))?"
    rf"(?:(?:\s*(?:(?:\(|-(?=\s*(?:i\.e\.|(?:the\s+)?{ANY_MENTION}\s*-)))\s*(?:the\s+|(?:i\.e\.|that\s+is),?\s+)?"
    # "Image 2 (hypothesis 1)", "Image 2 - the first hypothesis -", "The second image (that is, the first hypothesis)"
    # or the parenthesis a sentence naming it the answer's role: "Final answer: 2 (Option 3 shows the effect)." (AV's
    # first contact, read 2: the number and its explanation disagree, no answer)
    rf"(?P<inner>{ANY_MENTION})(?:\s+(?:shows?|depicts?|is)\s+the\s+(?:effect|cause|cue|answer))?"
    # (or by the image's own numbering: "Option 2 (Option 4 in the image) shows the effect", "Option 3 (the first option
    # in the image)", BM's first contact, read 2 and 3: the two disagree, no answer)
    r"(?:\s+(?:in|on)\s+the\s+(?:image|picture|grid|figure|panel)s?)?"
    # (or its words after a comma, naming no other: "Answer: Option 1 (the fourth option, a cigarette dropped on dry
    # grass)", BL's first contact, read 1: the number and its count disagree, no answer)
    r"\s*(?:[)-]|,[^()«‹\n]{1,100}\))"
    # (or before its own parenthesis: "Hypothesis 1 – the second hypothesis (the ball)." names two; BI's round)
    rf"|[-=]\s*(?:the\s+)?(?P<named>{NAMED_MENTION})(?=\s*(?:[.,;!)\n(]|$)|\s+(?!and\b|or\b)[^\W\d_]))"
    # "Effect = Image #4 → Option 3" (AR's first contact): an image count and the option it is, after an arrow
    rf"|[ \t]*→[ \t]*(?P<arrow>{NAMED_MENTION})(?=\s*(?:[.,;!)\n]|$))"
    # "3: heavy rain." explains; "2: the car is merely present" does not
    rf"|:\s*(?:the\s+)?(?P<colon>{NAMED_MENTION})(?=\s*(?:[.,;!)\n]|$))"
    # ", which is Option 3", ", i.e. Option 3" ("So the effect is the fourth picture, i.e. Option 3.": BF's first
    # contact; not where its sentence cannot decide: ", i.e. Option 3, is blurry, so I cannot decide.", round 50's
    # review)
    rf"|\s*,\s*(?:(?:which|that)\s+is|i\.e\.,?(?![^.!?\n]*{_CANNOT_DECIDE}))"
    rf"\s+(?:the\s+)?(?P<which>{NAMED_MENTION})(?=\s*(?:[.,;!)\n]|$))"
    # "(B), the third image, shows ...": an image count set off by commas explains an option, or the other way round
    # (or "with" its own text: "The second hypothesis, with the ball-shaped present, is less consistent ...", BQ's
    # first contact)
    rf"|\s*,\s*(?:the\s+|i\.e\.,?\s+|with\s+(?:the\s+)?)?(?P<appositive>{NAMED_MENTION})\s*,)"
    # an option's text and its number after a comma, ending the line: "Actually, speeding, 2." (AS's first contact;
    # a list head otherwise, mentions.LIST_HEAD); or two options named by their numbers: "Option 4, Option 2" (BX's)
    rf"|[ \t]*,[ \t]*(?P<numbered>{ANY_MENTION})(?=[ \t]*[.!]?[ \t]*(?:\n|\Z))"
    # a choice and its own text side by side: "(A) The man's clothes are soaking wet"
    rf"|[ \t]+(?P<adjacent>{NAMED_MENTION}))",
    re.IGNORECASE,
)


# a verb after an appositive, its subject the mention before it: "The second hypothesis, with the ball-shaped present,
# is less consistent ..."
_VERB_AFTER = re.compile(
    r"\s*(?:is|are|was|were|seems?|looks?|appears?|fits?|matches|makes?|would|could|does|doesn't|isn't)\b",
    re.IGNORECASE,
)
# words after a mention that make it a sentence's subject: "the car in the first picture is going ..." (or "leads to"
# what follows from it: "The answer is 'speeding' – the car going far too fast on a curve (cause) leads to the crash
# into the guardrail (effect).": BS's first contact, unread, read as two options side by side)
_SUBJECT_AFTER = re.compile(
    r"\s+(?!and\b|or\b)[^\W\d_]+\b[^.;!?\n]*?\b(?:is|are|was|were|goes|drives|leads|led|causes|caused)\b"
)


def explained(
    text: str, mentions: list[Mention], valid: Callable[[object], bool], values: Sequence[object] | None
) -> str:
    """``text`` with each mention explained by another as one mention (:data:`_COLLAPSE`), once the numbers their own
    explanation contradicts are marked: a number at a line's start before another option's text
    (:func:`_numbered_otherwise`), and the first of two numbers an answer heading names, each explained
    (:data:`EXPLAINED_PAIR`: "Answer: 1 (car), 2 (speeding)", AT's first contact: two answers, none)."""
    _numbered_otherwise(text, mentions, valid)
    for match in EXPLAINED_PAIR.pattern.finditer(text):
        index = mention_index(match["pick"])
        mentions[index] = replace(mentions[index], contradicted=True)
    return _COLLAPSE.sub(lambda match: _collapse(match, mentions, valid, values), text)


def _collapse(
    match: re.Match, mentions: list[Mention], valid: Callable[[object], bool], values: Sequence[object] | None
) -> str:
    """A mention explained by another, as one mention (:data:`_COLLAPSE`).

    "the third image (right)", "the second image (Option 1)": the parenthesis names the answer when the outer mention
    is not valid or counts images (which may count the context image too). A number its own explanation contradicts
    ("Hypothesis 1 (right image)" where right is 2, "3 - heavy rain" where heavy rain is option 1) names no answer.
    """
    explained = (
        match["inner"]
        or match["named"]
        or match["arrow"]
        or match["colon"]
        or match["which"]
        or match["adjacent"]
        or match["appositive"]
        or match["numbered"]
    )
    outer, inner = mentions[mention_index(match["outer"])], mentions[mention_index(explained)]
    if match["numbered"] and inner.named:
        # two options named by their numbers side by side, ending their line, and nothing else: "Option 4, Option 2"
        # (BX's first contact, read 4) lists two answers, none (a list of bare numbers is mentions.LIST_HEAD's: "2, 3")
        listed = values is not None and not (outer.text or inner.text or outer.image or inner.image)
        if listed and outer.named and valid(outer.value) and valid(inner.value) and inner.value != outer.value:
            mentions.append(Mention(None, True, contradicted=True))
            return placeholder(len(mentions) - 1)
        return match.group()
    if match["numbered"]:  # "speeding, 2.": an option's own text and its number, one mention; contradicted by another
        if values is None or not (outer.text and valid(outer.value) and valid(inner.value)) or inner.image:
            return match.group()
        if inner.value != outer.value:
            mentions.append(Mention(None, True, contradicted=True))
            return placeholder(len(mentions) - 1)
        return placeholder(mention_index(match["outer"]), named=True)
    if (
        match["appositive"]
        and inner.text
        and not (outer.text or outer.image)
        and inner.value == outer.value
        and valid(outer.value)
        and _VERB_AFTER.match(match.string, match.end())
    ):
        # an option's own text set off by commas between its number and its verb, one mention: "The second hypothesis,
        # with the ball-shaped present, is less consistent with the wrapping; the first is more plausible." (BQ's first
        # contact, unread: the number read alone beside "the first is more plausible"; not "Option 2, speeding, though
        # the police officer (4) is also part of the story.", BN's)
        return placeholder(mention_index(match["outer"]), named=True)
    if match["appositive"] and outer.image == inner.image:
        return match.group()  # a list ("Option 1, Option 2, ..."), not an explanation
    if values is not None and inner.value == CONTEXT_ALIAS and valid(outer.value):
        mentions.append(
            Mention(None, True, contradicted=True)
        )  # "Image 1 (the left one)", where the left panel is the context
        return placeholder(len(mentions) - 1)
    # "Option 2 (the fourth image)": a count of the images that names another option however it counts
    counted_otherwise = inner.image and inner.value is None and inner.may_name and outer.value not in inner.may_name
    # "Option 2, the second image, shows ...": an option and its image set off side by side count the images as the
    # prompt does, the context first (the second image is Option 1)
    counted_otherwise = counted_otherwise or bool(
        match["appositive"] and inner.ordinal and len(inner.may_name) == 2 and outer.value != inner.may_name[-1]
    )
    if match["arrow"]:  # an image count the option after it explains, where the count may name it
        named = outer.image and valid(inner.value) and inner.value in outer.may_name
        return match["outer"][0] + explained[1] + match["outer"][-1] if named else match.group()
    # an option's own text set off by a dash, then a sentence whose subject is another's: "Speeding – the car in the
    # first picture is going much too fast ..." (BH's first contact): no explanation of the first, which stands alone
    if match["named"] and outer.text and inner.text and _SUBJECT_AFTER.match(match.string, match.end()):
        return match.group()
    explains = valid(inner.value) or counted_otherwise or inner.unlisted
    if values is not None and valid(outer.value) and not outer.image and explains:
        if inner.value != outer.value:  # two options' own texts side by side are two answers named as one
            mentions.append(Mention(None, True, text=outer.text and inner.text, contradicted=True))
            return placeholder(len(mentions) - 1)
    if (match["inner"] or match["which"]) and valid(inner.value) and (outer.image or not valid(outer.value)):
        return match["outer"][0] + explained[1] + match["outer"][-1]  # named as the outer mention is
    if match["inner"] or match["adjacent"]:  # "4 (police officer)": one mention, named if either is
        return placeholder(mention_index(match["outer"]), named=explained[0] == "«" or match["outer"][0] == "«")
    return match.group()


# the items of a numbered list: two or more lines opening with a number and a full stop or parenthesis
_NUMBERED_LINE = re.compile(rf"^[ \t]*{ANY_MENTION}[.)][ \t]", re.MULTILINE)


def _numbered_otherwise(text: str, mentions: list[Mention], valid: Callable[[object], bool]) -> None:
    """ "3. speeding — ...", where speeding is phrase 2 (:data:`NUMBERED_TEXT`): a number standing at a line's start
    before another option's own text is contradicted by it (it names no answer, and still disagrees with a pick of
    another); not an item of a numbered list."""
    if len(_NUMBERED_LINE.findall(text)) > 1:
        return
    for match in NUMBERED_TEXT.pattern.finditer(text):
        index = mention_index(match["pick"])
        number, named = mentions[index], mentions[mention_index(match["text"] or match["subject"])]
        if not number.text and named.text and valid(number.value) and valid(named.value):
            if number.value != named.value:
                mentions[index] = replace(number, contradicted=True)


# An option's words denied right after them: "..., which contradicts the box", "...? Unlikely."
_DENIED_AFTER = re.compile(
    r"\s*(?:,\s*(?:which|but\s+that|and\s+that)\s+(?:\w+\s+){0,2}?|\?\s*|\s*[-—–]\s*)"
    r"(?:contradict\w*|(?:is\s+|seems\s+)?(?:unlikely|implausible|impossible|wrong|inconsistent)|does\s*n[o']t|makes\s+no)",
    re.IGNORECASE,
)


# Where the clause of a denial ends: a sentence's end, or where OWN_WORDS_CLAUSE ends one
_DENIAL_CLAUSE = re.compile(rf"[.!?\n]|{OWN_WORDS_CLAUSE.pattern}", re.IGNORECASE)


def denied(mentions: list[Mention], marked: str) -> list[Mention]:
    """The mentions with the option texts their own clause denies (:data:`OWN_WORDS_DENIED` before them: "The child is
    not holding the ball-shaped present", "It would be strange for him to hold the ball-shaped present"; or right
    after them: "..., which contradicts the box") rejected."""
    found = set()
    for match in _PLACEHOLDER.finditer(marked):
        index = mention_index(match.group())
        start = max((end.end() for end in _DENIAL_CLAUSE.finditer(marked, 0, match.start())), default=0)
        before, after = marked[start : match.start()], marked[match.end() :]
        if mentions[index].text and (OWN_WORDS_DENIED.pattern.search(before) or _DENIED_AFTER.match(after)):
            found.add(index)
    return [replace(mention, denied=True) if index in found else mention for index, mention in enumerate(mentions)]


def in_passing(mentions: list[Mention], marked: str) -> list[Mention]:
    """The mentions with the option texts named in passing (see :data:`IN_PASSING`) naming nothing."""
    passing = set()
    for match in _PLACEHOLDER.finditer(marked):
        index = mention_index(match.group())
        if not mentions[index].text:
            continue
        start = max((end.end() for end in CLAUSE_END.finditer(marked, 0, match.start())), default=0)
        clause = marked[start : match.start()]
        if (
            IN_PASSING.pattern.search(clause)
            and not ROLE_NAMED.search(clause)
            and not ROLE_AFTER.match(marked, match.end())
        ):
            passing.add(index)
    # the subject of a that-clause: "The cue is that the car was going too fast"; of a sentence in the progressive: "The
    # car was going too fast"; of a participle after "is": "the real cause is the car going too fast"
    passing |= {
        index
        for subject in (THAT_CLAUSE_SUBJECT, PROGRESSIVE_SUBJECT, PARTICIPLE_SUBJECT)
        for match in subject.pattern.finditer(marked)
        if mentions[index := mention_index(match["subject"])].text
    }
    return [
        Mention(None, True, passing=True) if index in passing else mention for index, mention in enumerate(mentions)
    ]
