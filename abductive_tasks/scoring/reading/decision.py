"""The decision: the answer a marked reply commits to, from its picks, rejections, refusals and doubts."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from abductive_tasks.scoring.reading.closing_rules import (
    LEVEL_COLUMNS,
    LEVELS,
    OPTION_LEVELS,
    OPTION_ODDS,
    OPTION_PROBABILITIES,
    OPTION_SCORES,
    REMAINING,
)
from abductive_tasks.scoring.reading.correction_rules import (
    CLOSING_ONLY,
    FIRST_THOUGHT,
    SELF_CORRECTIONS,
    TURNED_TO_UNREAD,
)
from abductive_tasks.scoring.reading.cut_off import Pick, cut_alone, cut_off, repeated
from abductive_tasks.scoring.reading.description_rules import (
    CORRECTED_TO,
    ROLE_CLAIMS,
    STATED_OTHERWISE,
    VOUCHED_CLAIMS,
)
from abductive_tasks.scoring.reading.doubt_rules import (
    DOUBTS,
    HEDGES,
    REFUSAL_OF_THE_OTHERS,
    REFUSALS,
    ROLE_DENIED,
    ROLES_PAIRED,
    SENTENCE_END,
)
from abductive_tasks.scoring.reading.form_rules import (
    CONCESSION,
    HEADINGS,
    POSSESSIVE_TEXT,
    QUESTION,
    SCENE_GRAPH,
)
from abductive_tasks.scoring.reading.mention_marks import explained
from abductive_tasks.scoring.reading.mentions import (
    ANSWER_HEADING,
    ANY_MENTION,
    BARE_MENTION,
    CONTEXT_ALIAS,
    MENTION_INDEX,
    NAMED_MENTION,
    Mention,
    mention_index,
)
from abductive_tasks.scoring.reading.rules import ALONE
from abductive_tasks.scoring.reading.table import Rule
from abductive_tasks.scoring.reading.text import FORCED_CHOICE, sentence_start

__all__ = ["decide"]

_PLACEHOLDER = re.compile(ANY_MENTION)  # a mention left in the text
_NAMED_PLACEHOLDER = re.compile(NAMED_MENTION)
# A sentence that states no answer of its own: hedged, conditional or denied ("could hardly" denies another option, it
# hedges nothing: "..., while the ball in image 2 could hardly have been wrapped into that shape")
_HEDGED = re.compile(
    r"\b(?:could(?!\s+hardly\b)|might|may|if|argue|seems?|perhaps|maybe|not|unless|tempting)\b|n't\b", re.IGNORECASE
)
# after a mention's placeholder: another thing's ("the car's speed"), what a value stands for ("10 means ...")
_NOT_THE_ANSWER_AFTER = re.compile(r"\s*'s\b|\s+(?:means|would\s+mean|stands\s+for)\b", re.IGNORECASE)


def decide(
    text: str,
    mentions: list[Mention],
    statements: Sequence[Rule],
    verdicts: Sequence[Rule],
    valid: Callable[[object], bool],
    values: Sequence[object] | None,
    complement: bool,
    unfinished: bool = False,
) -> object | None:
    """The answer ``text`` (already marked) gives: the last statement of the answer, else the last
    other pick, else the one named option (docs/reading.md).

    ``values`` lists every valid answer of a choice or label (None for a score, which needs a pick).
    """
    text = explained(text, mentions, valid, values)
    picks, rejected = _picks(text, statements, verdicts)
    picks = _without_list_numbers(text, mentions, picks)  # "Answer:\n1. Cause image: ...\n2. Option 1: ticket"
    corrections = _corrections(text, mentions, rejected) + _taken_back(text, picks, mentions, rejected)
    since, corrected = max(corrections, default=0), max(corrections, default=len(text))
    if any(rule.pattern.search(text, since) for rule in REFUSALS):
        return None
    if _forced_without_an_answer(text, since) or _roles_paired(text, mentions, valid, since):
        return None
    # the correction turns to a number its own words explain, unread (TURNED_TO_UNREAD), and nothing after it picks
    if corrections and TURNED_TO_UNREAD.pattern.match(text, since) and not any(at >= since for _, at, _ in picks):
        return None
    cut = cut_off(text, mentions, unfinished)
    # "it's the car's speed", "Score: 10 means almost certainly true" (the scale restated)
    picks = [pick for pick in picks if not _NOT_THE_ANSWER_AFTER.match(text, _after_pick(pick[1]))]
    rejected |= {index for index, mention in enumerate(mentions) if mention.denied}
    alone, headings = _standing_alone(text, mentions)
    last_alone = [pick for pick in alone if pick[1] >= corrected] if corrections else alone
    if values is not None and _invents_an_option(last_alone, headings, picks, mentions, valid):
        return None
    contradicted = any(mentions[index].contradicted for _, _, index in last_alone)
    alone = [pick for pick in alone if valid(mentions[pick[2]].value)]
    # the answers standing alone after a self-correction stand for the reply's; of a reply cut off mid-sentence, those
    # cut_alone leaves
    if cut:
        alone = cut_alone(text, mentions, valid, alone, bool(corrections))
    alone = _alone_after(text, mentions, alone, rejected, corrected)
    stated = list(picks)  # the statement and verdict tables' picks, before the answers standing alone join them
    if len({mentions[index].value for _, _, index in alone} | headings) == 1:
        picks += alone
    # the reply's count of the context image ("Image 1 is the cause image") is no pick
    picks = [
        pick
        for pick in picks
        if pick[2] not in rejected and not mentions[pick[2]].context and not mentions[pick[2]].passing
    ]
    if _doubted(text, picks, since) or _refused_the_others(text, picks, since):
        return None
    # a number its own option text contradicts (_numbered_otherwise), after the last self-correction: no answer
    if any(mentions[index].contradicted and position >= since for _, position, index in picks):
        return None
    claims, vouched = _claims(text, mentions, valid, ROLE_CLAIMS), _claims(text, mentions, valid, VOUCHED_CLAIMS)
    if corrections and not any(position >= since for _, position, _ in picks):
        # the answer a correction turns to, where it corrects an answer given before it
        turned = claims + vouched + (_claims(text, mentions, valid, CORRECTED_TO) if picks else [])
        if (claimed := _claimed_after_correction(text, turned, mentions, valid, since)) is not None:
            return claimed
    if picks:
        if _closing_contradicts(text, picks, stated + claims + vouched, mentions):
            return None
        final = _final(picks, mentions, valid, values, corrected)
        if _role_denied(text, picks, mentions, final, since):
            return None
        last = max((position for _, position, index in picks if mentions[index].value == final), default=0)
        contradicted = _claimed_otherwise(text, claims, mentions, final, max(since, last))
        return None if contradicted or _claimed_otherwise(text, vouched, mentions, final, since) else final
    if values is None or contradicted:
        return None
    if (scored := _scored_highest(text, mentions, values)) is not None:
        return scored
    if cut:
        return repeated(text, mentions, valid) if not rejected else None
    return _the_one_named(text, mentions, valid, values, complement, rejected, alone)


def _corrections(text: str, mentions: list[Mention], rejected: set[int]) -> list[int]:
    """Where each self-correction ends (:data:`SELF_CORRECTIONS`), and where each answer heading starts that retracts
    the one before it (:func:`_retracted_headings`)."""
    ends = [match.end() for match in SELF_CORRECTIONS.pattern.finditer(text)]
    return ends + _retracted_headings(text, mentions, rejected)


# An answer heading at a line's start: "Answer: Option 3", "**Final answer:** 2"
_ANSWER_HEADING = re.compile(
    rf"^[ \t]*(?:\*\*)?{ANSWER_HEADING}(?P<pick>{ANY_MENTION})",
    re.IGNORECASE | re.MULTILINE,
)


def _retracted_headings(text: str, mentions: list[Mention], rejected: set[int]) -> list[int]:
    """Where each answer heading starts that follows one naming another answer the text between them rejects
    ("Answer: Option 3\nHmm, Option 3 shows the ruined cake after it came out, which is another effect, not a cause.
    ...\nAnswer: Option 1"): the later heading corrects the earlier, as a self-correction does."""
    headings = list(_ANSWER_HEADING.finditer(text))
    retracted = []
    for first, second in zip(headings, headings[1:], strict=False):
        value = mentions[mention_index(first["pick"])].value
        if mentions[mention_index(second["pick"])].value == value:
            continue
        between = _PLACEHOLDER.finditer(text, first.end(), second.start())
        if any(
            mention_index(found.group()) in rejected and mentions[mention_index(found.group())].value == value
            for found in between
        ):
            retracted.append(second.start())
    return retracted


# a rejection that takes a stated answer back: the rejected answer opening its sentence ("Option 4 is wrong because
# ..."), or set against the answer picked ("..., the effect should be the cold person in Option 4, not the fresh flowers
# in Option 1"); not a reason that names it ("The unwrapped ball in image 2 cannot come from a rectangular box, making
# image 1 the more plausible one": two answers, round 18's review); after a word of doubt too ("Hmm, Option 1 is
# actually identical to the cause image; ...": BE's first contact)
_TAKING_BACK = re.compile(
    r"(?:(?:^|\n|[.!?;]\s)\s*(?:(?:but|however|so|hmm+|oh)\s*,?\s+)?(?:the\s+)?"
    r"|,\s*not\s+(?:the|an?)\s+[^«‹.,;:!?\n]{1,60}?\s+(?:in|from)\s+)\Z",
    re.IGNORECASE,
)


def _taken_back(text: str, picks: list[Pick], mentions: list[Mention], rejected: set[int]) -> list[int]:
    """Where the reply rejects an answer it stated (:data:`_TAKING_BACK`) before it picks another and never that one
    again ("Option 4 is the cause. Option 4 is wrong because a bonfire cannot make a car rusty. ... in Option 2, so 2.",
    BD's first contact): the rejection takes the statement back, as a self-correction does."""
    taken = []
    for found in _PLACEHOLDER.finditer(text):
        index, position = mention_index(found.group()), found.start() + 1
        value = mentions[index].value
        if index not in rejected or value is None or not _TAKING_BACK.search(text, 0, found.start()):
            continue
        before = any(strong and at < position and mentions[i].value == value for strong, at, i in picks)
        after = {mentions[i].value for _, at, i in picks if at > position}
        if before and after and value not in after:
            taken.append(position)
    return taken


def _picks(text: str, statements: Sequence[Rule], verdicts: Sequence[Rule]) -> tuple[list[Pick], set[int]]:
    """The picks of the statement and verdict tables, and the mentions they reject. "Image 2 is more plausible?" asks;
    "Although 1 is more plausible at first glance, ..." concedes: no picks."""
    questions = [match.span() for rule in (QUESTION, CONCESSION) for match in rule.pattern.finditer(text)]
    picks: list[Pick] = []
    rejected: set[int] = set()
    for strong, rules in ((True, statements), (False, verdicts)):
        for rule in rules:
            for match in rule.pattern.finditer(text):
                found = match.groupdict()
                if found.get("reject"):
                    rejected.add(mention_index(found["reject"]))
                if found.get("pick") and not any(start <= match.start("pick") < end for start, end in questions):
                    if not _about_an_example(text, match.start("pick")):
                        picks.append((strong, match.start("pick"), mention_index(found["pick"])))
    return picks, rejected


# A few-shot example named by its number: "In Example 1 the cause was shown in Option 1", "Option 1 was the answer for
# Example 1"
_IN_AN_EXAMPLE = re.compile(
    r"\s+(?:in|for|of)\s+(?:the\s+)?(?:first\s+|second\s+)?example\b"
    r"|\s+(?:was|is)\s+(?:the\s+)?(?:answer|correct\s+(?:one|answer|option))\s+(?:in|for|of|to)\s+"
    # "option 2 was the answer to the second example" (BT's first contact, after "Answer: Option 2. No wait,", unread)
    r"(?:example\s*[‹«]|the\s+(?:first|second|third|previous|last)\s+example\b)",
    re.IGNORECASE,
)
_EXAMPLE_NAMED = re.compile(rf"\bexamples?\s*{ANY_MENTION}", re.IGNORECASE)
_CLAUSE_TURN = re.compile(r"\bbut\b", re.IGNORECASE)  # a clause of its own after it (_about_an_example)
_FOR_THE_QUESTION = re.compile(
    r"\s+(?:for|to|in)\s+(?:the|this)\s+(?:actual\s+|real\s+|new\s+)?question\b", re.IGNORECASE
)
# The answers the few-shot examples had, as the reply restates them: "Option 4 for the question. (For reference,
# Examples 1 and 2 were Option 1 and Option 2.)" (AZ's first contact, read as no answer)
_EXAMPLES_ANSWERED = re.compile(
    rf"\bexamples?\s*{ANY_MENTION}(?:\s*(?:,|and)\s*{ANY_MENTION})*\s+(?:was|were|had)\s+(?:(?:the\s+)?answers?\s+)?"
    rf"(?P<answers>{ANY_MENTION}(?:\s*(?:,|and)\s*{ANY_MENTION})*)",
    re.IGNORECASE,
)


def _alone_after(text: str, mentions: list[Mention], alone: list[Pick], rejected: set[int], since: int) -> list[Pick]:
    """The answers standing alone after ``since`` (the last self-correction), else those before it less an answer the
    reply rejects after it ("Option 4. Hmm, actually Option 4 is unrelated; ... points to Option 2, the broken cup.",
    BY's first contact, read 4)."""
    if after := [pick for pick in alone if pick[1] >= since]:
        return after
    rejected_since = {
        mentions[mention_index(found.group())].value
        for found in _PLACEHOLDER.finditer(text, since)
        if mention_index(found.group()) in rejected
    }
    return [pick for pick in alone if mentions[pick[2]].value not in rejected_since]


def _after_pick(position: int) -> int:
    """Where the text after a pick starts: a pick's position is its placeholder's middle character ("«x»")."""
    return position + 2


def _about_an_example(text: str, position: int) -> bool:
    """Whether the sentence holding ``position`` speaks of a few-shot example before it ("In Example 1 the cause was
    shown in Option 1, ..."): what it states is that example's answer, not the reply's. A clause after "but" speaks of
    its own ("In Example 1 the answer was Option 1 and in Example 2 it was Option 2, but for image 3 the cause is
    Option 3: ...": BO's first contact, unread; not "..., but in Example 2 it was Option 2")."""
    if _FOR_THE_QUESTION.match(text, _after_pick(position)):  # "..., Option 2 for Example 2, and Option 3 for the
        return False  # question." (BX's first contact): the question's own answer after the examples'
    start = max(sentence_start(text, position), text.rfind(";", 0, position) + 1)
    start = max((turn.end() for turn in _CLAUSE_TURN.finditer(text, start, position)), default=start)
    # "Option 1 in Example 1 and Option 2 in Example 2 were correct; ...": the example named after the answer
    return bool(_EXAMPLE_NAMED.search(text, start, position) or _IN_AN_EXAMPLE.match(text, _after_pick(position)))


def _standing_alone(text: str, mentions: list[Mention]) -> tuple[list[Pick], set[object]]:
    """The answers standing alone (:data:`ALONE`, less a numbered list's numbers) and the values of the headings of a
    description ("Image 1: ..."). They count when they name one valid answer: several are an enumeration. An
    elimination's options stand alone in it, no answer, where the reply closes on the one it leaves (:data:`REMAINING`:
    "Car - present in both pictures, so it's not the link. ... So it's the remaining one."; AQ's first contact)."""
    if REMAINING.pattern.search(text):
        return [], set()
    alone = [
        (True, match.start("pick"), mention_index(match["pick"]))
        for rule in ALONE
        for match in rule.pattern.finditer(text)
    ]
    found = list(HEADINGS.pattern.finditer(text))
    headings = {mentions[mention_index(match["pick"])].value for match in found}
    alone = _without_labels(text, mentions, _without_list_numbers(text, mentions, alone))
    # an answer alone on the reply's last line, after the headings of a description of every option, closes it: "1.
    # Option 1: a woman baking bread.\n...\n4. Option 4: a smoke-filled kitchen ...\nThe effect is the burnt bread.\n4."
    # (AP's first contact), headings standing alone too ("Option 1: The same man ...\n...\nOption 4: An elderly woman
    # ...\n... only Option 1 shows that person.\nOption 1": BA's first contact)
    last_line, heading_picks = text.rfind("\n"), {match.start("pick") for match in found}
    if (
        found
        and any(pick[1] > last_line for pick in alone)
        and last_line > found[-1].end()
        and all(pick[1] > last_line or pick[1] in heading_picks for pick in alone)
    ):
        headings, alone = set(), [pick for pick in alone if pick[1] > last_line]
    # ... and one alone on its first line, before them, opens it: "2\nOption 1: a sunny beach - unrelated.\nOption 2: a
    # sunburned person - direct effect of the cause ...\nOption 3: an umbrella.\nOption 4: a swimming pool." (BR's
    # first contact, unread)
    first_line = text.find("\n")
    if (
        found
        and any(pick[1] < first_line for pick in alone)
        and first_line < found[0].start()
        and all(pick[1] < first_line or pick[1] in heading_picks for pick in alone)
    ):
        headings, alone = set(), [pick for pick in alone if pick[1] < first_line]
    return alone, headings


def _invents_an_option(
    alone: list[Pick], headings: set[object], picks: list[Pick], mentions: list[Mention], valid: Callable
) -> bool:
    """ "Option 5." of four options, standing as the reply's answer (``alone``: after its last self-correction): the
    reply commits to an option that does not exist, and names no answer, unless it states a valid answer after it
    ("Option 5 ... So the answer is Option 2") or the invented option heads one item of a description ("Option 1: a
    cat. ... Option 5: an umbrella.")."""
    invented = [position for _, position, index in alone if _no_option(mentions[index], valid)]
    return bool(
        invented
        and len(headings) < 2
        and not any(
            strong and position > max(invented) and valid(mentions[index].value) for strong, position, index in picks
        )
    )


def _doubted(text: str, picks: list[Pick], since: int) -> bool:
    """A doubt after the last self-correction (at ``since``) that no statement of the answer follows: the statement
    must come after the end of the doubt's sentence."""
    doubted = max(
        (
            SENTENCE_END.search(text, match.end()).end()
            for rule in DOUBTS
            for match in rule.pattern.finditer(text, since)
        ),
        default=None,
    )
    return doubted is not None and not any(strong and position > doubted for strong, position, _ in picks)


def _closing_contradicts(text: str, picks: list[Pick], stated: list[Pick], mentions: list[Mention]) -> bool:
    """ "..., so the effect is in Option 2.\nFinal answer: 3": a closing "Final answer:" with no word of correction
    (:data:`CLOSING_ONLY`) whose answer differs from an unhedged statement before it (since any earlier correction;
    ``stated``: the statements; an answer standing alone only in the sentence just before the closing, as a reply may
    take it back in words the tables do not know: "Option 4 - the man slipping. Hmm, that's another effect. ... Final
    answer: 3")."""
    closing = max(SELF_CORRECTIONS.pattern.finditer(text), key=lambda match: match.end(), default=None)
    if closing is None or not CLOSING_ONLY.pattern.fullmatch(closing.group().strip()):
        return False
    head = text[: closing.start()].rstrip().rstrip(".!?:;")
    turns = list(SELF_CORRECTIONS.pattern.finditer(head))
    earlier = max((match.end() for match in turns), default=0)
    # what an earlier word of correction says of the answer it corrects is its reason to turn from it ("Final answer:
    # Option 2.\nWait, Option 2 shows the kettle itself, which is the cause. Final answer: Option 3.": AS's first
    # contact), no statement against the closing
    corrected: set[object] = set()
    if turns and not CLOSING_ONLY.pattern.fullmatch(turns[-1].group().strip()):
        start = turns[-2].end() if len(turns) > 1 else 0
        corrected = {
            mentions[index].value
            for strong, position, index in stated
            if strong and start <= position < turns[-1].start()
        }
    # the unhedged statements since any earlier correction ("One could argue the middle image is more plausible.\nFinal
    # answer: 2" states nothing before its closing)
    last = sentence_start(head, len(head))  # the sentence just before the closing, an answer standing alone too
    before = {
        mentions[index].value
        for strong, position, index in [*stated, *(pick for pick in picks if pick[1] >= last)]
        if strong and earlier <= position < len(head) and not _HEDGED.search(_sentence(head, position))
    } - corrected
    after = {mentions[index].value for _, position, index in picks if position >= closing.end()}
    return bool(before and after) and not before & after


def _claims(text: str, mentions: list[Mention], valid: Callable[[object], bool], table: Sequence[Rule]) -> list[Pick]:
    """The answers a table of claims (:data:`ROLE_CLAIMS`, :data:`VOUCHED_CLAIMS`) names: never a pick, only a
    contradiction of one."""
    claims = [
        (True, match.start("pick"), mention_index(match["pick"]))
        for rule in table
        for match in rule.pattern.finditer(text)
    ]
    return [claim for claim in claims if valid(mentions[claim[2]].value) and not mentions[claim[2]].context]


def _claimed_otherwise(text: str, claims: list[Pick], mentions: list[Mention], final: object, since: int) -> bool:
    """ "2\nOption 4 shows the effect because ...": an unhedged claim of an answer other than the reply's after
    ``since`` (its last self-correction and its last pick of the answer)."""
    return final is not None and any(
        position >= since and mentions[index].value != final and not _HEDGED.search(_sentence(text, position))
        for _, position, index in claims
    )


_WORDS_FOLLOW = re.compile(r"[ \t]*(?:one\b)?[ \t,:;]*[^\W\d_]")  # the sentence goes on after a phrase


def _role_denied(text: str, picks: list[Pick], mentions: list[Mention], final: object, since: int) -> bool:
    """ "The cause is Option 4, showing a hailstorm. Option 4 is not the cause. ...": the answer denied the role a
    statement of it gave it before (:data:`ROLE_DENIED`), after the last self-correction, and nothing picked after the
    denial: the reply takes back the only answer it gave."""
    for match in ROLE_DENIED.pattern.finditer(text, since):
        if final is None or mentions[mention_index(match["denied"])].value != final:
            continue
        if any(position > match.start() for _, position, _ in picks):
            continue  # an answer picked after it (_taken_back)
        role = re.compile(rf"\b{match['role']}\b", re.IGNORECASE)
        stated = [
            position
            for strong, position, index in picks
            if strong and position < match.start() and mentions[index].value == final
        ]
        if any(role.search(_sentence(text, position)) for position in stated):
            return True
    return False


def _roles_paired(text: str, mentions: list[Mention], valid: Callable[[object], bool], since: int) -> bool:
    """Two options given the two roles in one sentence after the last self-correction (:data:`ROLES_PAIRED`), each
    an option, neither the given image."""
    for match in ROLES_PAIRED.pattern.finditer(text, since):
        named = [mentions[mention_index(match[group])] for group in ("first", "second", "third") if match[group]]
        if len(named) == 2 and all(valid(mention.value) and not mention.context for mention in named):
            return True
    return False


def _forced_without_an_answer(text: str, since: int) -> bool:
    """ "Speeding is the most likely cue ... If I had to choose one, I'd go with the officer.": a forced choice last,
    after which the reply names no answer the tables know (what it names before is not its choice)."""
    forced = list(FORCED_CHOICE.finditer(text))
    return (
        bool(forced)
        and forced[-1].start() < since <= forced[-1].end()
        and _WORDS_FOLLOW.match(text, since) is not None  # not "I would pick Option 2, if forced to choose."
        and not _PLACEHOLDER.search(text, since)
    )


def _claimed_after_correction(
    text: str, claims: list[Pick], mentions: list[Mention], valid: Callable[[object], bool], since: int
) -> object | None:
    """ "Option 3 — wait, ... The effect is the broken window, Option 1.": the one answer an unhedged claim names
    after the last self-correction, where no other answer is named after it."""
    claimed = {
        mentions[index].value
        for _, position, index in claims
        if position >= since and not _HEDGED.search(_sentence(text, position))
    }
    named = {mentions[mention_index(found)].value for found in _PLACEHOLDER.findall(text, since)} & {
        value for value in (mention.value for mention in mentions) if valid(value)
    }
    if len(claimed) != 1 or named != claimed:
        return None
    return claimed.pop()


def _sentence(text: str, position: int) -> str:
    """The sentence of ``text`` holding ``position``."""
    ends = [end for end in (text.find(mark, position) for mark in ".!?\n") if end >= 0]
    return text[sentence_start(text, position) : min(ends, default=len(text))]


def _refused_the_others(text: str, picks: list[Pick], since: int) -> bool:
    """ "none of them" after the last self-correction: a refusal, unless a statement of the answer comes between
    them (then "them" are the other options)."""
    refused = [match.start() for match in REFUSAL_OF_THE_OTHERS.pattern.finditer(text, since) if not match["list"]]
    return any(not any(strong and since <= position < start for strong, position, _ in picks) for start in refused)


def _final(
    picks: list[Pick], mentions: list[Mention], valid: Callable, values: Sequence[object] | None, corrected: int
) -> object | None:
    """The final committed answer: the picks after the last self-correction if any, its statements if any (a score's
    statements outrank its other verdicts). Picks that disagree without a self-correction between them are a
    contradictory reply: no answer."""
    final = [pick for pick in picks if pick[1] >= corrected] or picks
    final = [pick for pick in final if pick[0]] or final if values is None else final
    chosen = {mentions[index].value for _, _, index in final}
    value = chosen.pop() if len(chosen) == 1 else None
    return value if valid(value) else None


def _scored_highest(text: str, mentions: list[Mention], values: Sequence[object]) -> object | None:
    """The option scored highest where the reply scores every option once (:data:`OPTION_SCORES`, or gives each its
    odds: :data:`OPTION_ODDS`, or its probability: :data:`OPTION_PROBABILITIES`, or its level in a table's rows:
    :data:`OPTION_LEVELS`; in its columns: :data:`LEVEL_COLUMNS`), else None."""
    scores: dict[object, list[float]] = {}
    rules = (OPTION_SCORES, OPTION_ODDS, OPTION_PROBABILITIES, OPTION_LEVELS)
    given = [(match["pick"], match["score"]) for rule in rules for match in rule.pattern.finditer(text)]
    for match in LEVEL_COLUMNS.pattern.finditer(text):
        heads = re.findall(ANY_MENTION, match["heads"])
        levels = [cell.strip() for cell in match["levels"].split("|")[:-1]]
        given += list(zip(heads, levels, strict=True)) if len(heads) == len(levels) else []
    for pick, score in given:
        score = score.rstrip(" \t%")
        level = LEVELS.get(" ".join(score.lower().split()))
        scores.setdefault(mentions[mention_index(pick)].value, []).append(float(score) if level is None else level)
    if set(scores) != set(values) or any(len(given) != 1 for given in scores.values()):
        return None
    best = max(given[0] for given in scores.values())
    highest = [value for value, given in scores.items() if given[0] == best]
    return highest[0] if len(highest) == 1 else None


def _remaining(
    text: str, mentions: list[Mention], valid: Callable[[object], bool], values: Sequence[object]
) -> object | None:
    """Without a pick, the answer stated as the option an elimination leaves (:data:`REMAINING`: "So the remaining
    candidate must be the effect"): the one option the reply never names, where it names every other and does not
    hedge; else none."""
    if any(hedge.pattern.search(text) for hedge in HEDGES):
        return None
    # the number of a step of the reasoning names no option ("Step 3: Eliminate options 1, 2 and 4.\nTherefore the
    # effect is the remaining option.": AY's first contact, 3)
    named = {mentions[mention_index(found)].value for found in _PLACEHOLDER.findall(_STEP_NUMBER.sub(" ", text))}
    left = [value for value in values if value not in named]
    return left[0] if len(left) == 1 and all(valid(value) for value in named & set(values)) else None


# a bare number after "Step" heading a step of the reasoning: "Step 3: ..."
_STEP_NUMBER = re.compile(rf"\bstep\s+{BARE_MENTION}(?=\s*[:.)])", re.IGNORECASE)


def _the_one_named(
    text: str,
    mentions: list[Mention],
    valid: Callable,
    values: Sequence[object],
    complement: bool,
    rejected: set[int],
    alone: list[Pick],
) -> object | None:
    """Without a pick, the only answer the reply names and does not reject (of two options, rejecting one picks the
    other where ``complement``), unless the reply hedges, states its answer in words of no option
    (:data:`STATED_OTHERWISE`), names an option's own text in the possessive (:data:`POSSESSIVE_TEXT`) or an answer
    standing alone names another one ("2. heavy rain", where heavy rain is phrase 1); an answer stated as the option an
    elimination leaves (:data:`REMAINING`) is the one never named."""
    if REMAINING.pattern.search(text):  # no named option is the answer: the one an elimination leaves, or none
        return _remaining(text, mentions, valid, values)
    if STATED_OTHERWISE.pattern.search(text):  # "The cue is the speed limit violation: the car broke the limit"
        return None
    if SCENE_GRAPH.pattern.match(text):  # a scene graph alone: the options it names are its nodes
        return None
    # an option's own text in the possessive owns what the reply names (:data:`POSSESSIVE_TEXT`: "The cue is the car's
    # excessive speed"): it is not the answer, nor is any other option it is named with
    if any(mentions[mention_index(found.group()[:3])].text for found in POSSESSIVE_TEXT.pattern.finditer(text)):
        return None
    rejected_values = {mentions[index].value for index in rejected} & set(values)
    # not the answers the reply says the few-shot examples had (:data:`_EXAMPLES_ANSWERED`)
    examples = [match.span("answers") for match in _EXAMPLES_ANSWERED.finditer(text)]
    # nor a first thought the reply sets aside (:data:`FIRST_THOUGHT`: "I initially thought strengthener, but ...")
    examples += [match.span("thought") for match in FIRST_THOUGHT.pattern.finditer(text)]
    named_left = [
        mentions[mention_index(found.group())].value
        for found in _NAMED_PLACEHOLDER.finditer(text)
        if not any(start <= found.start() < end for start, end in examples)
    ]
    named = {value for value in named_left if valid(value)} - rejected_values
    if _named_at_odds(text, mentions):
        return None
    hedged = any(hedge.pattern.search(text) for hedge in HEDGES)
    # of more than two, rejecting every option but one picks that one (AN's first contact: "The answer is not 1, 2 or
    # 3.", "Not 1, not 3, not 4."; a list denied as a whole is no hedge between its items)
    hedged_otherwise = any(hedge.pattern.search(_NEGATED_LIST.sub(" ", text)) for hedge in HEDGES)
    if not named and complement and len(rejected_values) == len(values) - 1 and not hedged_otherwise:
        return (set(values) - rejected_values).pop()
    standing = {mentions[index].value for _, _, index in alone} - rejected_values
    if len(named) == 1 and standing <= named and not hedged:
        return named.pop()
    return None


def _named_at_odds(text: str, mentions: list[Mention]) -> bool:
    """Whether a sentence of the reply opens on two options' own texts side by side, as one mention at odds with itself
    (``mention_marks.explained``: "Car speeding on the road.", where car and speeding are two options; BF's first
    contact, read road, the one other option named): it names more than one answer, so none is the one it names (not
    a description in passing: "The phrase that best explains the change in the speeding car is road.", round 17's
    review)."""
    return any(
        mentions[index].text and mentions[index].contradicted and mentions[index].value is None
        for index in map(mention_index, _SENTENCE_OPENING_MENTION.findall(text))
    )


# a named mention opening a sentence, after its article at most
_SENTENCE_OPENING_MENTION = re.compile(
    rf"(?:^|(?<=[.!?])\s)\s*(?:the\s+)?({NAMED_MENTION})", re.IGNORECASE | re.MULTILINE
)


# a list denied as a whole: "not 1, 2 or 3"
_NEGATED_LIST = re.compile(
    rf"(?:\b(?:not|neither)|n't)\s+(?:the\s+)?{ANY_MENTION}"
    rf"(?:\s*,\s*(?:the\s+)?{ANY_MENTION})*\s*,?\s+(?:or|nor)\s+(?:the\s+)?{ANY_MENTION}",
    re.IGNORECASE,
)


def _no_option(mention: Mention, valid: Callable[[object], bool]) -> bool:
    """An option named by its number that no option has ("Option 5" of four; not a bare number, an image count or the
    context panel)."""
    value = mention.value
    return (
        mention.named
        and not mention.image
        and isinstance(value, int)
        and not isinstance(value, bool)
        and value != CONTEXT_ALIAS
        and not valid(value)
    )


# A numbered list: bare numbers 1, 2, 3, ... heading consecutive items at the starts of lines ("1. The cause image")
_LIST_NUMBER = re.compile(rf"^[ \t]*{BARE_MENTION}[.)][ \t]+\S", re.MULTILINE)


def _list_numbers(text: str, mentions: list[Mention]) -> set[int]:
    """Where the numbers of a numbered list of two or more items counted from 1 stand ("Option 4.\n\n1. The cause image
    shows ...\n2. Option 4 depicts ..."): they number the reasons or the options' descriptions, they are no answers (a
    pick's position is its mention's index character)."""
    indexes = [match.start() + match.group().index("‹") + 1 for match in _LIST_NUMBER.finditer(text)]
    numbers = [mentions[mention_index(text[index])].value for index in indexes]
    return set(indexes) if len(numbers) >= 2 and numbers == list(range(1, len(numbers) + 1)) else set()


def _without_list_numbers(
    text: str, mentions: list[Mention], alone: list[tuple[bool, int, int]]
) -> list[tuple[bool, int, int]]:
    """The answers standing alone, or the picks, less the numbers of a numbered list (:func:`_list_numbers`): an
    answer heading over a numbered list ("Answer:\n1. Cause image: a man speeding\n2. Option 1: ticket\n...": AT's
    first contact, read 1) heads the list, and its first number is no answer."""
    listed = _list_numbers(text, mentions)
    return [pick for pick in alone if pick[1] not in listed]


# A number standing before its own option's text in a sentence that denies it, as an item of the options is
# labelled: "4. police officer would be the agent, not the cue" (after "The answer is 2 (speeding)") speaks of option
# 4, it does not answer with it ("4. police officer is the real cue" still does)
_LABELLED = re.compile(
    rf"‹(?P<number>{MENTION_INDEX})›\.[ \t]+(?:the[ \t]+)?«(?P<text>{MENTION_INDEX})»"
    r"(?=[^.!?\n]*(?:\bnot\b|n't\b|\brather\s+than\b|\binstead\s+of\b))",
    re.IGNORECASE,
)


# The options restated as a lettered list before the answer: "A) car B) speeding C) road D) police officer\nAnswer: B"
_LETTERED_LIST = re.compile(
    rf"‹(?P<number>{MENTION_INDEX})›[.)][ \t]*«(?P<text>{MENTION_INDEX})»[ \t]+[A-Da-d][.)][ \t]*[«‹]"
)


def _without_labels(
    text: str, mentions: list[Mention], alone: list[tuple[bool, int, int]]
) -> list[tuple[bool, int, int]]:
    """The answers standing alone, less the numbers that label their own option's text (:data:`_LABELLED`; a text
    as the prompt words it, not a panel's name: "1. The middle image shows ..." answers; :data:`_LETTERED_LIST`)."""
    labels = {
        match.start("number")
        for pattern in (_LABELLED, _LETTERED_LIST)
        for match in pattern.finditer(text)
        if mentions[mention_index(match["text"])].text
        and mentions[mention_index(match["number"])].value == mentions[mention_index(match["text"])].value
    }
    return [pick for pick in alone if pick[1] not in labels]
