"""A reply cut off by the token limit: how the reader sees one, and the answers it still gives (docs/reading.md)."""

from __future__ import annotations

import re
from collections.abc import Callable

from abductive_tasks.scoring.reading.doubt_rules import HEDGES
from abductive_tasks.scoring.reading.mentions import (
    ANY_MENTION,
    MENTION_INDEX,
    NAMED_MENTION,
    Mention,
    mention_index,
)

__all__ = ["UNFINISHED", "Pick", "cut_alone", "cut_off", "repeated"]

Pick = tuple[bool, int, int]  # (a statement of the answer, its position in the marked text, its mention's index)

# A reply cut off by the token limit: sentences, then an unfinished one. It names no answer without a pick.
_CUT_OFF = re.compile(r"[.!?]\s.*[^\s.!?)\]|:»›]\s*$", re.DOTALL)
# A reply ending on an article and a word after its sentences is cut off too: "... with the context. The middle"
# or on a prepositional phrase alone ("... a cloudy sky. In the middle panel"), or on a heading ("... Option 1:")
UNFINISHED = re.compile(
    r"[.!?][ \t]+(?:(?:in|on|at|from|for|to|with|looking\s+at)\s+)?(?:the|a|an)\s+[^\W\d_]+(?:\s+[^\W\d_]+)?\s*$"
    r"|:\s*$"
    # or on a word no sentence ends on ("... and the first hypothesis shows"; a copula: "The first image shows a car on
    # a long, empty road at sunset, and in the second image the same car is", BQ's first contact, read 1)
    r"|(?<=\w\s)(?-i:the|a|an|and|or|but|of|with|because|since|shows|depicts|showing|depicting|is|are|was|were)\s*$"
    # or on the subject of a sentence its verb never came for: an option after a phrase that turns to the options ("3.
    # Looking at the options, Option 1": BR's first contact, read 1; not "Looking at the options, Option 1 fits.", nor
    # with its full stop, "..., Option 1."), or a noun phrase after one that sets a scene in an image ("In the first
    # image, a blue car": BR's first contact, read 1 on the cue prompt; not "In the first image, a blue car speeds.")
    r"|(?:^|[.!?:]\s|\n)[ \t]*(?:\d+[.)][ \t]*)?(?:looking\s+at|considering|comparing|examining|reviewing|going\s+"
    r"through|turning\s+to)\s+(?:the|all|these|those|each\s+of\s+the)\s+(?:\w+\s+)?(?:options|choices|candidates)"
    r"[ \t]*,[ \t]*(?:option|choice|candidate)[ \t]*\d+[ \t]*$"
    r"|(?:^|[.!?]\s|\n)[ \t]*(?:in|on)\s+the\s+(?:first|second|third|fourth|cause|effect|left|right|middle|last)\s+"
    r"(?:image|picture|panel|photo)[ \t]*,[ \t]*(?:the|a|an)\s+[^\W\d_]+(?:\s+[^\W\d_]+)?[ \t]*$"
    # or in the one sentence after an answer heading that describes the given image, never ended ("Answer: The cause
    # image shows a car weaving between lanes on a wet": BV's first contact, read 1 on the cue prompt; not "Answer: The
    # cause image shows a car weaving between lanes on a wet road.", nor a sentence after it)
    r"|(?:^|\n)[ \t]*(?:final[ \t]+)?answer[ \t]*:[ \t]*(?:in[ \t]+)?the[ \t]+"
    r"(?:first|cause|effect|given|context)[ \t]+(?:image|picture|panel|photo)\b[^.!?\n:;]*[^\W\d_][ \t]*$"
    # or on the first item's number of a list it announces by its plural noun ("... Now the candidates:\n1.": AY's first
    # contact, read 1; not an answer heading: "Answer:\n1.")
    r"|\b(?:candidates|options|choices|images|pictures|panels|phrases|hypotheses|steps)\b[^\n.:]{0,30}:[ \t]*\n"
    r"[ \t]*1[ \t]*[.)][ \t]*$",
    re.IGNORECASE,
)

_PLACEHOLDER = re.compile(ANY_MENTION)  # a mention left in the text
# A reply opening with a named answer as a sentence of its own ("Weakener. The ...", "Option 2. The ...", "option 1!!!
# police": BB's first contact; not a bare
# number, which may number a first step: "1. Identify the effect: ..."), or set off by a dash before its explanation
# ending the sentence ("Option 4 - the man driving his car at excessive speed. ...": BA's first contact; a bare number
# where its sentence names that option again, _named_again: "2 - speeding. ...", "1 - the man in the cause image is
# driving at excessive speed, and Option 1 shows him getting a speeding ticket. ..."), or a bare number and a full stop
# before its own option's text as a sentence of its own ("2. speeding. The first image shows a man driving his": BC's
# first contact; not "1. Option 1 shows ...", a first step's)
_OPENING_SENTENCE = re.compile(
    rf"\s*(?:«(?P<answer>{MENTION_INDEX})»\s*(?:\.|!+)(?=\s)"
    rf"|[«‹](?P<dashed>{MENTION_INDEX})[»›](?=[ \t]+-[ \t]+(?P<sentence>[^.!?\n]*)[.!]\s)"
    rf"|‹(?P<numbered>{MENTION_INDEX})›(?=\.[ \t]+(?:the[ \t]+)?«(?P<restated>{MENTION_INDEX})»[ \t]*[.!]\s)"
    # or set off by a comma before a concession the reply was cut off inside, what it concedes no other answer given
    # ("Weakener, though it could also be read as a strengthener if the couple were celebrating an anniversary at the":
    # BS's first contact, unread, as BO's whole "Weakener, although it could also be read as a strengthener if ..."
    # reads; not "Weakener, but it could also be a strengthener, because the", nor a sentence after the concession)
    rf"|«(?P<conceding>{MENTION_INDEX})»[ \t]*,(?=[ \t]*(?:though|although|even[ \t]+though)\b[^.;:!?\n]*\Z)"
    # or before a colon, its sentence naming that option again as what shows ("Option 3: the effect image shows a man
    # coughing in a smoky living room, and Option 3 shows a fire in the fireplace ... This would fill the room with
    # smoke and cause": BS's first contact, unread; not a heading whose sentence names it no more, "Option 1: a sunny
    # beach, unrelated to the")
    rf"|«(?P<headed>{MENTION_INDEX})»[ \t]*:(?=[^.!?\n]*?«(?P<shown>{MENTION_INDEX})»[ \t]+(?:shows|depicts)\b)"
    # or a label before a colon or an opening parenthesis, the reply cut off in the one sentence it heads, which names
    # no answer and hedges or turns nothing ("Weakener: the update says the woman is holding a closed umbrella, which
    # makes it less likely that she is", "Strengthener (the update that the field is covered in fresh snow makes
    # sledding much more likely, since the": BU's first contact, unread; not "Weakener: at first glance, but", nor
    # "Option 1: a sunny beach, unrelated to the", a heading of an option: _names_only)
    rf"|«(?P<labelled>{MENTION_INDEX})»[ \t]*[:(](?=[^.;!?\n«‹]*\Z)"
    r"(?![^\n]*\b(?:but|however|though|although|if|might|may|could|whether|unless|or|maybe|perhaps)\b))",
    re.IGNORECASE,
)
# An option the reply goes on to describe, no other answer: the subject of "shows" or "depicts" (a list of them too),
# its clause hedging nothing, giving it no role and no likeness to the answer ("Options 2 and 3 show other drivers
# being pulled over, and Option 4 shows an elderly woman": BA's first contact; not "Option 4 shows an effect too",
# "Option 4 could also show ...", "Option 4 shows the same man")
_DESCRIBED = re.compile(
    rf"(?P<subject>{ANY_MENTION}(?:(?:\s*,\s*|\s*,?\s+and\s+){ANY_MENTION})*)"
    r"\s+(?:also\s+|each\s+|both\s+|all\s+)?(?:shows?|depicts?)\b(?P<clause>[^.;:!?\n«‹]*)"
)
_UNDESCRIBED = re.compile(
    r"\b(?:could|might|may|perhaps|maybe|possibl\w*|probabl\w*|likel\w*|if|unless|either|or|argu\w*|tempting|effects?"
    r"|causes?|cue|answer|consequences?|results?|outcome|reason|explain\w*|link\w*|plausibl\w*|fits?|match\w*|correct"
    r"|right|better|best|more|most|same|instead|too|well|actually|wait)\b",
    re.IGNORECASE,
)
_NAMED_PLACEHOLDER = re.compile(NAMED_MENTION)
# A concession opening a sentence, its clause complete before a comma: what it names is set aside, no other answer
# ("Weakener. Although the update could support the idea of a competition, the fact that": BP's first contact, unread;
# not "Weakener. But it could also be a strengthener, because the")
_CONCEDED = re.compile(r"(?:^|(?<=[.!?;]))\s*(?:although|though|even\s+though|even\s+if)\b[^.;,!?\n]*,", re.IGNORECASE)


def cut_off(text: str, mentions: list[Mention], unfinished: bool) -> bool:
    """Whether the reply (``text``, marked) was cut off by the token limit: ``unfinished`` (:data:`UNFINISHED` in its
    plain text), sentences then an unfinished one, or the next answer's name it stops on (:func:`_next_item_cut`)."""
    return bool(unfinished or _CUT_OFF.search(text) or _next_item_cut(text, mentions))


def cut_alone(
    text: str, mentions: list[Mention], valid: Callable[[object], bool], alone: list[Pick], corrected: bool
) -> list[Pick]:
    """The answers standing alone in a reply cut off mid-sentence: none on its unfinished last line (the heading of a
    description it never finished: "Middle (hypothesis 1): Children"), but the answer the reply opens with as a
    sentence of its own, where nothing after it corrects it (``corrected``: a self-correction) or names another answer
    ("Weakener. The hypothesis says a man, but the update says the person is a child, which"; not "Weakener. But it
    could also be a strengthener, because the")."""
    opening = _OPENING_SENTENCE.match(text)
    stands = opening is not None and not corrected and _names_only(text, opening, mentions, valid)
    group = next(
        (
            name
            for name in ("answer", "dashed", "numbered", "conceding", "headed", "labelled")
            if opening is not None and opening[name]
        ),
        "",
    )
    start = opening.start(group) if opening is not None and stands else -1
    return [pick for pick in alone if pick[1] < text.rfind("\n") or pick[1] == start]


def _names_only(text: str, opening: re.Match, mentions: list[Mention], valid: Callable[[object], bool]) -> bool:
    """Whether the reply names no valid answer after its opening one but that one, or other options only as it
    describes them (:data:`_DESCRIBED`) or concedes them (:data:`_CONCEDED`); a bare number opening it where its
    sentence names that option again."""
    if opening["conceding"]:  # every other answer it names lies in the concession, the reply's last clause
        return True
    if opening["labelled"]:  # a label, which no other answer follows in the sentence it heads: no option's heading
        return isinstance(mentions[mention_index(opening["labelled"])].value, str)
    value = mentions[
        mention_index(opening["answer"] or opening["dashed"] or opening["numbered"] or opening["headed"])
    ].value
    if opening["numbered"] and mentions[mention_index(opening["restated"])].value != value:
        return False
    if opening["headed"] and mentions[mention_index(opening["shown"])].value != value:
        return False
    # (a bare number but 1, a list's first: "3 - the kid kicked the ball straight toward the vase on the shelf. The
    # other options (a cat sleeping on a rug, a woman reading, a": BO's first contact, unread)
    if opening["dashed"] and not mentions[mention_index(opening["dashed"])].named and value == 1:
        again = _NAMED_PLACEHOLDER.findall(opening["sentence"])
        if value not in {mentions[mention_index(found)].value for found in again}:
            return False
    described = {
        found.start()
        for match in _DESCRIBED.finditer(text, opening.end())
        if not _UNDESCRIBED.search(match["clause"])
        for found in _PLACEHOLDER.finditer(text, match.start("subject"), match.end("subject"))
    }
    conceded = {
        found.start()
        for match in _CONCEDED.finditer(text, opening.end())
        for found in _PLACEHOLDER.finditer(text, match.start(), match.end())
    }
    return all(
        other == value or not valid(other) or position in described or position in conceded
        for position, other in (
            (found.start(), mentions[mention_index(found.group())].value)
            for found in _PLACEHOLDER.finditer(text, opening.end())
        )
    )


# The last words of a reply: an answer's name alone after a sentence, on the same line, with no full stop
# (or after a semicolon, in a reply that goes through them a clause each: "... Option 1 shows a puppy with paper in its
# mouth; Option 2 shows a girl writing at a desk; Option 3": BH's first contact, read 3)
_ENDS_ON_A_NAME = re.compile(rf"[.!?;][ \t]+({ANY_MENTION})[ \t]*\Z")
_SENTENCE_HEAD = re.compile(rf"(?:^|(?<=[.!?;]))\s*({ANY_MENTION})(?=\s+[^\W\d_])", re.MULTILINE)


def _next_item_cut(text: str, mentions: list[Mention]) -> bool:
    """A reply that goes through the answers one sentence each ("Hypothesis 1 states ...") and stops on the next
    one's name ("... Hypothesis 2"): cut off by the token limit, its last word is no answer."""
    end = _ENDS_ON_A_NAME.search(text)
    if end is None:
        return False
    last = mentions[mention_index(end[1])].value
    heads = {mentions[mention_index(match[1])].value for match in _SENTENCE_HEAD.finditer(text, 0, end.start(1))}
    return bool(heads - {last, None})


def repeated(text: str, mentions: list[Mention], valid: Callable[[object], bool]) -> object | None:
    """The one answer every complete sentence of a reply cut off in a repetition loop names ("Option 3 shows the
    effect. Option 3 shows the effect. Option 3 shows the"), else None."""
    ended = max((match.end() for match in re.finditer(r"[.!?](?=\s)", text)), default=0)
    sentences = [sentence for sentence in re.split(r"(?<=[.!?])\s+", text[:ended]) if sentence.strip()]
    named = [
        {mentions[mention_index(found)].value for found in _NAMED_PLACEHOLDER.findall(piece)}
        for piece in [*sentences, text[ended:]]
    ]
    if len(sentences) < 2 or not all(named[:-1]) or any(hedge.pattern.search(text) for hedge in HEDGES):
        return None
    values = set().union(*named)
    return values.pop() if len(values) == 1 and valid(next(iter(values))) else None
