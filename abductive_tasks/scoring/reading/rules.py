"""The rule tables: statements, verdicts and answers standing alone, as patterns over a reply's marked mentions
(self-corrections: ``correction_rules``; refusals and doubts: ``doubt_rules``).

Each rule carries the example replies it exists for (``Example``: the example kind that reads it, the reply, what a
person reads); tests/scoring/test_rule_examples.py reads every one. Adding a rule: docs/reading.md.
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.correction_rules import CORRECTION_WORDS
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
    "ALONE",
    "QUALITY_CUE",
    "COPULA",
    "STATEMENTS",
    "VERDICTS",
]

_FLAGS = re.IGNORECASE


# A verdict pattern's mentions: {pick} and {reject} any mention, {named_pick} a named one; a pick heads no list ("I
# would say 1 and 3 are equally valid" picks neither)
_LIST_TAIL = r"(?<![»›] and )(?<![»›] or )(?<![»›], and )(?<![»›], or )(?<![»›] & )(?<![»›] and \()"
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


_ADVERBS = (
    r"(?:\s+(?:clearly|definitely|probably|likely|much|far|even|also|indeed|therefore|thus|actually|certainly|"
    r"somewhat|slightly|a\s+bit|still|the|very|highly|quite|extremely|rather))*"
)
COPULA = rf"(?:is|are|was|seems?|looks?|appears?|would\s+be|could\s+be|must\s+be|should\s+be|remains?|makes?){_ADVERBS}"
_QUALITY = (
    r"(?:plausible|likely|probable|reasonable|logical|realistic|believable|sensible|consistent|coherent|fitting|"
    r"appropriate|accurate|suitable|natural|sense|direct)"
)
_MORE = (
    rf"(?:more|most)(?:\s+(?:directly|clearly|obviously|readily|naturally|strongly))?\s+{_QUALITY}"
    r"|better|best|closer|closest"
)
_LESS = rf"(?:less|least)\s+{_QUALITY}|worse|worst"
# a comparison's degree and what is compared: "a much better match than", "a far worse fit than"
_INTENSIFIER = r"(?:(?:much|far|way|significantly|considerably)\s+)?"
_COMPARED_NOUN = r"(?:\s+(?:match|fit|explanation|choice|option|candidate|answer))?"
_WORSE = rf"{_LESS}|implausible|unlikely|improbable|impossible|unrealistic|illogical|wrong|incorrect|not\b"
_NEGATED_VERB = (
    r"(?:does|do|did|would|could|can|should|will)\s*(?:not|n't)\b|doesn't|isn't|cannot|can't|won't|wouldn't|"
    r"contradicts?\b|conflicts?\s+with"
)
_CUE_NOUN = (
    r"(?:one|image|hypothesis(?:\s+image)?|option|choice|answer|effect|cause|cue(?:\s+phrase)?|phrase|picture|"
    r"scenario|candidate|panel)"
)
_CUE = (
    r"(?:final\s+|correct\s+|my\s+|the\s+)?(?:answer|choice|selection|prediction|verdict|label|classification|conclusion|decision)"
    r"|(?:the\s+)?number\s+of\s+the\s+(?:phrase|option|cue|answer|image|hypothesis)"
    r"|(?:correct\s+|right\s+)?(?:option|answer|choice)\s+letter"
    r"|(?:the\s+)?(?:option|answer|choice)\s+number"  # "the option number is 3" (AX's first contact)
    r"|(?:final|overall|verdict)(?=\s*:)"
    r"|correct\s+(?:option|one|image|hypothesis|phrase|cue)"
    r"|best\s+(?:match|fit|option|choice|answer)|(?:that|which)\s+(?:best\s+(?:fits|matches)|(?:fits|matches)\s+best)|(?:effect|cause)(?:\s+of\s+the\s+\w+(?:\s+image)?)?|cue(?:\s+phrase)?"
)
# "the more plausible image", "most likely": a cue only with "is" ("X is more plausible: because ..." states nothing)
_QUALITY_CUE = rf"(?<!less )(?<!least )(?:(?:more|most)\s+)?{_QUALITY}(?:\s+{_CUE_NOUN})?"
QUALITY_CUE = _QUALITY_CUE  # for closing_rules' question restated
_ARTICLE = r"(?:(?:the|a|an)\s+)?"
# one of several yes or no cells of a table row is no verdict, its last cell is (BA's first contact: "| 1 | car | yes |
# yes | no |" read car, where the row's last cell rejects it)
_NOT_A_MIDDLE_CELL = r"(?![ \t]*\|[^\n]*\|[ \t]*(?:yes|no)\b)"
# between the items of a list: a comma, or the "and" that joins the items of one mention of a list ("Option 1, 2 or 3")
_LIST_ITEM_END = r"(?:\s*,\s*|\s+and\s+)"
# words set off between an answer and its verb: ", showing the girl with a cast,", " - the couple cutting the cake -"
# (a verdict pattern's part: its braces are doubled for :func:`_verdicts`)
_APPOSITIVE = (
    r"(?:\s+(?:in|on|at|from)\s+the\s+(?:row|series|sequence|set|middle|left|right))?"
    r"(?:\s*\([^()«‹\n]{{1,80}}\))?"  # "Option 2 (a person dropping something) is the closest"
    r"(?:\s*(?:,|\s-)\s*(?:which\s+|that\s+)?[^,\-.;:!?\n«‹]{{1,80}}?(?:,|\s-))?"
)

# Statements of the answer: "Answer: 2", "the more plausible image is 1", "The correct option is #3",
# "Effect: Option 4", "the cause of the effect image is 2", "### Answer\nImage 1", "More plausible: Image 2".
STATEMENTS = (
    verdict(
        rf"(?<!\bis the )(?<!\bis a )\b(?:{_CUE})(?:\s+(?:to|for)\s+(?:the|this)\s+question)?"
        rf"\s*(?:is(?:\s+(?:clearly|obviously|definitely|certainly))?|(?:would|should|must)\s+be)?"
        rf"(?:\s+(?:shown|depicted|pictured|seen)\s+in|(?P<bare_in>\s+in)|\s+(?:the\s+)?letter)?\s*[:=→-]?\s*{_ARTICLE}{{pick}}"
        # not the subject of a verb after "in" ("The effect in image 3 matches Option 2's cause": AS's first contact)
        r"(?(bare_in)(?!\s*(?:matches|match|shows|depicts|fits|looks|resembles|seems)\b))"
        # not an option's word owning another's: "the car's speeding"
        r"(?!\s*'s\b)",
        Example("nleye", "Answer: 2", 2),
        Example("mucr", "Effect: Option 4", 4),
        Example("nleye", "### Answer\nImage 1", 1),
        Example("letters", "The correct option letter is B. The given information is ...", 2),
        Example("letters", "The correct choice is letter D.", 4),
    ),
    # "the effect is the broken vase in Option 1": the answer's role, what it shows and where (not "the effect is not
    # ... in Option 1"); with an adverb of certainty ("so the effect is clearly the flooded village in Option 4.", AY's
    # first contact: before a closing "Final answer: 1" it contradicts, read 1)
    verdict(
        r"(?:^|(?<=[.!?:;,]))\s*(?:(?:so|thus|therefore|hence)\s*,?\s+)?the\s+(?:effect|cause)\s+(?:is|must\s+be)\s+"
        r"(?:(?:clearly|obviously|definitely|certainly)\s+)?(?!not\b|no\b|neither\b|none\b)(?:the|a|an)\s+(?!same\b)[^«‹.,;:!?\n]{{1,60}}?\s+(?:in|from)\s+{pick}",
        Example(
            "mucr",
            "Option 3. Correction: looking at the scene graph relation (ball, hits, vase), the effect is the broken "
            "vase in Option 1, not the boy sweeping up in Option 3.",
            1,
        ),
        Example("mucr", "The effect is the flooded street in Option 2.", 2),
        Example("mucr", "The cause is a broken dam, so the effect is clearly the flooded village in Option 4.", 4),
        Example(
            "mucr",
            "The cause is a broken dam, so the effect is clearly the flooded village in Option 4.\nFinal answer: 1",
            None,
        ),
    ),
    # "The effect: he is locked out, shown in option 2.": the answer's role, what it shows, then where it is shown (AW's
    # first contact: before a closing "Final answer: 1" it contradicts)
    verdict(
        r"(?:^|(?<=[.!?:;]))\s*(?:(?:so|thus|therefore|hence)\s*,?\s+)?the\s+(?:effect|cause)(?:\s*:|\s+is)\s+"
        r"(?!not\b|no\b|neither\b|none\b)[^«‹.;:!?\n]{{1,60}}?,\s+(?:as\s+)?(?:shown|depicted|pictured|seen)\s+in\s+{pick}"
        # ending its sentence (not "shown in the fourth panel where he is using jumper cables. Final answer: ④": AJ's)
        r"(?=\s*(?:[.!;\n]|$))",
        Example("mucr", "The effect: he is locked out, shown in option 2.", 2),
        Example("mucr", "The effect: he is locked out, shown in option 2. Final answer: 1", None),
    ),
    # "the phrase that explains the causal link is number 2, speeding": the answer alone, ending its clause (not "the
    # car on the road"), or before a dash ("The phrase that explains the link is the road — the icy road causes the
    # car to skid.": AY's first contact, 3)
    verdict(
        r"\b(?:phrase|cue|option|one)\s+that\s+(?:best\s+)?explains\s+the\s+(?:causal\s+)?"
        rf"(?:link|relationship|connection|change)\s+(?:is|would\s+be)\s*:?\s*{_ARTICLE}{{pick}}(?=\s*(?:[.!;,]|-\s|$))",
        Example("cue", "So the phrase that explains the causal link is number 2, speeding.", 2),
        Example("cue_words", "The phrase that explains the link is the road — the icy road causes the car to skid.", 3),
    ),
    # the answer's role, what it is, then the option after a colon or comma ending the clause: "The cue should be the
    # action: 2, speeding." (BD's first contact: after "1 — car. Wait, the car is just the object.", read 1), "The cause
    # is the long marathon effort, Option 1." (not "The cause is the rain: Option 1 shows a dry street", nor "The cause
    # is not the rain, Option 1.")
    verdict(
        r"(?:^|(?<=[.!?:;]))\s*(?:(?:so|thus|therefore|hence)\s*,?\s+)?the\s+(?:effect|cause|cue(?:\s+phrase)?|answer)\s+"
        r"(?:is|(?:must|should|would)\s+be)\s+(?!not\b|no\b|neither\b|none\b)(?:the|a|an)\s+(?!same\b)"
        r"[^«‹.,;:!?\n]{{1,60}}?\s*[:,]\s*{pick}(?=\s*(?:[.!;,]|$))",
        Example(
            "cue_words", "1 — car. Wait, the car is just the object. The cue should be the action: 2, speeding.", 2
        ),
        Example("mucr", "The cause is the long marathon effort, Option 1.", 1),
    ),
    # "Both 1 and 2 are plausible, but 1 is slightly more so" (not "1 is unlikely, and 2 is even more so")
    verdict(
        r"\b(?:both|either)\b[^.;\n]*\b(?:plausible|likely|possible|reasonable)\b[^.;\n]*?,?\s*but\s+{pick}\s+is\s+"
        r"(?:slightly\s+|somewhat\s+|a\s+bit\s+|much\s+|far\s+|even\s+)?more\s+so\b",
        Example("nleye", "Both 1 and 2 are plausible, but 1 is slightly more so because of the sun.", 1),
    ),
    # "→ 3" ending a table or a list of checks (not an example's answer restated: "Example 1 → Option 1, ...")
    verdict(
        rf"(?<!example\s{ANY_MENTION}\s)(?<!example\s{ANY_MENTION})"
        r"→\s*{pick}(?=\s*(?:[.!;]|$))",
        Example("mucr", "Checked every option → 3.", 3),
    ),
    # "Option 3 it is.", "Speeding it is.": the answer settled on, ending its sentence (AM's first contact, closing a
    # self-correction: "Option 1 is the cause. ... On second thought, ... Option 3 it is."; not "Option 3, it is said")
    verdict(
        r"(?:^|(?<=[.!?;:,]\s)|(?<=[.!?;:,—–-])|(?<=\bso\s)|(?<=\bthen\s))[ \t]*(?:the\s+)?{pick}[ \t]+it\s+is"
        r"(?=[ \t]*(?:[.!;]|$))",
        Example("mucr", "Option 2 shows the cause. Hmm, on second thought, its car is parked. Option 4 it is.", 4),
        Example("cue_words", "The cue is the road. Wait, the road is in both images. Speeding it is.", 2),
        Example("mucr", "Option 1 it is.", 1),
    ),
    # "Option 3 shows curtains on fire, which is the effect."
    verdict(
        r"{pick}[^.;\n«‹]{{0,80}}?,\s*which\s+(?:is|would\s+be)\s+the\s+"
        r"(?:(?:direct|actual|real|immediate|obvious|clear|natural|most\s+likely|likely)\s+)?"
        r"(?:answer|effect|cause|cue|correct\s+one)(?:\s+of\s+[^.;!?\n«‹]{{1,60}})?(?=\s*(?:[.!;]|$))",
        Example("mucr", "Option 3 shows curtains on fire, which is the effect.", 3),
        Example(
            "mucr", "Answer: 2\n\nOption 4 shows the shredded shoe, which is the direct effect of the chewing.", None
        ),
    ),
    verdict(
        rf"\b{_QUALITY_CUE}\s*(?:is|would\s+be)\s*[:=-]?\s*{_ARTICLE}(?:one\s+(?:(?:shown|depicted)\s+)?in\s+(?:the\s+)?|one\s+)?"
        r"{pick}",
        Example("nleye", "The more plausible image is 1.", 1),
        # "the one in image 3" (AW's first contact, counting the context image)
        Example("nleye", "Image 2 is impossible. So the more plausible hypothesis is the one in image 3.", 2),
    ),
    verdict(
        rf"(?:^|(?<=[.!?;]))\s*(?:the\s+)?{_QUALITY_CUE}\s*[:=-]\s*{_ARTICLE}{{pick}}",
        Example("nleye", "More plausible: Image 2", 2),
    ),
    # "2 is more plausible", "Option 3 is the most likely cause", "1 is closer", "image 1 makes more sense"
    # (not "image 1 is more likely to be in the morning": a property, not the answer)
    # "The second picture, the first hypothesis, is the more plausible one"
    verdict(
        rf"{{pick}}{_APPOSITIVE}\s*[,-]?\s*{COPULA}\s+{_ARTICLE}(?:{_MORE}|correct|the\s+(?:(?:actual|real|true|root|underlying)\s+)?(?:answer|effect|cause|cue|link))\b(?!\s+to\s+(?:be|have)\b)",
        Example("nleye", "2 is more plausible.", 2),
        Example("cue", "4. The police officer in the second image is the link between the car and the ticket.", 4),
        Example("mucr", "Option 3 is the most likely cause.", 3),
        Example("nleye", "Image 1 makes more sense.", 1),
        Example("panels", "The second image in the row, showing the boy with a cast, is more plausible.", None),
        Example("mucr", "Option 2 (a person dropping a glass) is the closest.", 2),
        # "the actual cue", "the real cue" (AR's first contact)
        Example("cue_words", "Road (3) seems related, but speeding (2) is the actual cue.", 2),
        # "the root cause" (AT's first contact: "2) speeding\n4) police officer\nBoth are relevant, but speeding is
        # the root cause.")
        Example("cue_words", "2) speeding\n4) police officer\nBoth are relevant, but speeding is the root cause.", 2),
        # "more direct", of a cause or effect (AZ's first contact, after two options held possible)
        Example("mucr", "Options 1 and 2 could both cause this effect, but Option 2 is more direct.", 2),
    ),
    # "..., which makes image 1 the more plausible hypothesis", "..., making image 1 the more plausible one"
    verdict(
        rf"\bmak(?:es?|ing)\s+{_ARTICLE}{{pick}}\s+{_ARTICLE}(?:{_MORE})\b",
        Example("nleye", "Image 1 shows him training, which makes image 1 the more plausible hypothesis.", 1),
        Example("nleye", "In image 1 the glass lies shattered, making image 1 the more plausible one.", 1),
    ),
    # "the closest is Option 4", "the best match would be 2"
    verdict(
        r"\bthe\s+(?:closest|best|nearest|likeliest)(?:\s+(?:match|fit|one|option|candidate|answer))?\s+"
        rf"(?:is|would\s+be)\s*:?\s*{_ARTICLE}{{pick}}",
        Example("mucr", "None fits perfectly. If I must choose, the closest is Option 4.", 4),
    ),
    # the answer named, then referred to: "The middle panel shows a boy with a bandage. This is the more plausible one."
    verdict(
        r"(?:^|(?<=[.!?]\s))(?:the\s+)?{named_pick}[^.!?\n«‹]{{0,200}}[.!?]\s+(?:this|it|that)(?:\s+is|'s)\s+"
        rf"(?:the\s+)?(?:{_MORE})\s+(?:one|option|hypothesis|image|panel|answer)\b",
        Example("panels", "The middle panel shows a boy with a bandage. This is the more plausible one.", 1),
    ),
    # a cue named in another language, then its number: "线索是「超速」（2）" (the cue is "speeding" (2))
    verdict(
        r"\b(?:cue|answer)\s+is\s+[^\W\d_]{{1,12}}\s*\(\s*{pick}\s*\)",
        Example("cue", "线索是「大雨」（3）。", 3),
    ),
    # "The more plausible hypothesis is that the child is holding an unwrapped rectangular present"
    verdict(
        rf"\b(?:more|most)\s+{_QUALITY}\s+(?:hypothesis|scenario|one|option|explanation)\s+is\s+"
        r"(?:that|the\s+one\s+(?:where|in\s+which))\s+[^.;«‹\n]{{0,60}}?{pick}",
        Example("texts", "The more plausible hypothesis is that the man is a sunbathing one.", 2),
    ),
    # "Therefore, Option 3 shows the effect.", "Option 1 shows the effect: ...", where nothing after it in the reply
    # hedges it or names another answer beside it (not "Option 3 shows the effect, perhaps", "..., but so does
    # Option 1", "Option 4 shows the cause, not the effect")
    verdict(
        r"{pick}(?<!\))\s+(?:shows|depicts|represents|illustrates|is)\s+the\s+"  # not "(... in image 3) shows"
        r"(?:effect|cause|cue)(?=\s*(?:[.!;,:—–]|\s-\s|$))(?!\s*,?\s*not\b)"
        r"(?![\s\S]*\b(?:perhaps|maybe|possibly|might|could|cannot|can't|unsure|not\s+sure|hard\s+to|so\s+does|too|"
        r"as\s+well|either)\b)",
        Example("mucr", "Therefore, Option 3 shows the effect.", 3),
        Example("mucr", "Option 1 shows the effect: the boy is crying. Options 2, 3 and 4 show unrelated scenes.", 1),
    ),
    # "The third option best shows the effect of planting the seeds": a superlative of the role, unhedged
    verdict(
        r"{pick}(?<!\))\s+(?:best|most\s+(?:clearly|directly))\s+(?:shows|depicts|represents|illustrates)\s+the\s+"
        r"(?:effect|cause|cue)\b(?![^.;\n]*\b(?:perhaps|maybe|possibly|might|could|but|unless|if|or|though)\b)",
        Example("mucr", "The third option best shows the effect of planting and watering the seeds.", 3),
    ),
    verdict(
        rf"{{pick}}\s+(?:forms|makes|tells|creates|gives)\s+(?:a\s+)?(?:much\s+|far\s+)?(?:more|most)\s+{_QUALITY}\s+"
        r"(?:story|narrative|sequence|picture)\b",
        Example("nleye", "Overall, image 1 forms a much more coherent story with the context.", 1),
    ),
    # after a self-correction: "no, I'll stay with 3: ...", "sorry, I mean the image on the right"
    verdict(
        rf"\b(?:(?:stay|stick|go|going)\s+with|i\s+meant?(?:\s+the\s+(?:image|picture|one|option))?)\s+{_ARTICLE}{{pick}}"
        r"(?=\s*(?:[.:;,!]|$))",
        Example(
            "mucr", "3 → actually, the fifth image looks closer... no, I'll stay with 3: the fire is the effect.", 3
        ),
        Example(
            "panels", "Image 1 is more plausible — sorry, I mean the image on the right, which is hypothesis 2.", 2
        ),
    ),
    # AR's first contact: the answer a self-correction settles on, ending its sentence: "... Re-evaluating the
    # pictures, I believe Option 2." (read 1, the option it corrected), "Option 2 - correction, Option 1 - no wait,
    # Option 2 was right.", "... No, speeding causes the crash. Keep 2."
    verdict(
        rf"\bI\s+(?:now\s+)?(?:believe|think)\s+(?:it's\s+|it\s+is\s+)?{_ARTICLE}{{named_pick}}(?=\s*(?:[.!]|$))",
        Example(
            "mucr",
            "Option 1 - wait, the graph says 1, which might just refer to the cause image itself. Re-evaluating the "
            "pictures, I believe Option 2.",
            2,
        ),
    ),
    verdict(
        r"{pick}\s+(?:was|is)\s+(?:right|correct)(?:\s+after\s+all)?(?=\s*(?:[.!;]|$))",
        Example("mucr", "Option 2 - correction, Option 1 - no wait, Option 2 was right.", 2),
    ),
    verdict(
        rf"(?:^|(?<=[.!?;]))\s*keep\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!]|$))",
        Example(
            "cue_words",
            "Answer: 2 (speeding) - wait, the effect shows a crash, so is the cue 'road'? No, speeding causes the "
            "crash. Keep 2.",
            2,
        ),
    ),
    # "Speeding explains the link: the first image shows a car going fast ..." (AR's first contact): an option opening
    # the reply's sentence as what explains the link
    verdict(
        r"(?:^|(?<=[.!?;]))[ \t]*(?:the\s+)?{named_pick}\s+(?:best\s+|clearly\s+)?explains\s+the\s+(?:causal\s+)?"
        r"(?:link|connection)\b",
        Example(
            "cue_words",
            "Speeding explains the link: the first image shows a car going fast and the second shows it being pulled "
            "over.",
            2,
        ),
    ),
    # "The pattern so far is Option 1, then Option 2, so this one is Option 3." (AR's first contact)
    verdict(
        rf"\bso\s+(?:this|that)\s+one\s+is\s+{_ARTICLE}{{named_pick}}(?=\s*(?:[.!;]|$))",
        Example("mucr", "The pattern so far is Option 1, then Option 2, so this one is Option 3.", 3),
    ),
    # "I find the rightmost panel more plausible", "I consider image 2 (to be) the more plausible one"
    verdict(
        rf"\b(?:find|consider|deem|judge)\s+{_ARTICLE}{{pick}}\s+(?:to\s+be\s+)?{_ARTICLE}(?:{_MORE})\b",
        Example("nleye", "I find the rightmost panel more plausible.", 2),
        Example("nleye", "I consider image 2 to be the more plausible one.", 2),
    ),
    # "1 is less plausible than 2"; "2 is more plausible than 1", "Option 1 is a much better match than Option 4"
    verdict(
        rf"{{reject}}\s*{COPULA}\s+{_ARTICLE}{_INTENSIFIER}(?:{_LESS}){_COMPARED_NOUN}\s+than\s+(?:that\s+of\s+)?"
        rf"{_ARTICLE}{{pick}}",
        Example("nleye", "1 is less plausible than 2.", 2),
        Example("mucr", "Option 4 is a far worse fit than Option 1.", 1),
    ),
    verdict(
        rf"{{pick}}\s*{COPULA}\s+{_ARTICLE}{_INTENSIFIER}(?:{_MORE}){_COMPARED_NOUN}\s+than\s+{_ARTICLE}{{reject}}",
        Example("nleye", "2 is more plausible than 1.", 2),
        Example("mucr", "Option 1 is a much better match than Option 4, since a ticket follows from speeding.", 1),
    ),
    # "Middle image: more plausible", "Image 2 → more plausible"
    verdict(
        rf"{{pick}}\s*[:→-]\s*(?:{_MORE})\b",
        Example("panels", "Middle image: more plausible", 1),
        Example("nleye", "Image 2 → more plausible", 2),
    ),
    # "not 1 but 2", "Not option 2, which shows a dry road, but option 4"
    verdict(
        rf"\bnot\s+{_ARTICLE}{{reject}}[^.;\n]{{{{0,80}}}}?\bbut\s+(?:rather\s+)?{_ARTICLE}{{pick}}",
        Example("nleye", "Not 1 but 2.", 2),
        Example("mucr", "Not option 2, which shows a dry road, but option 4.", 4),
    ),
    verdict(
        rf"\bnot\s+{_ARTICLE}{{reject}}\s*(?:[-:;,]|\bbut\b)\s*(?:it'?s\s+|it\s+is\s+|rather\s+)?{_ARTICLE}{{pick}}(?=\s*(?:[.!;,]|$))",
        Example("label", "not a strengthener — weakener", "weakener"),
    ),
    # the answer's role, then its option: "The effect of the heavy rain in the cause image is Option 3", "The cause is
    # the child throwing the ball shown in Option 1, ...", "The effect image shows the broken vase, which is Option 3."
    # (not "the effect could be in option 2 or 4", "the cause is not in option 1"); or where it is: "The effect — the
    # spilled paint on the floor — is in Option 3." (BE's first contact, after "1. No wait, Option 1 just repeats the
    # cause image.", read 1; not "The effect is in Option 2 or 4")
    verdict(
        r"\b(?:effect|cause|cue)\b(?:(?!\b(?:could|might|may|perhaps|possibly|if|not|no|or|n't)\b)[^.;:?!\n]){{0,100}}?"
        rf"(?:\bis(?:\s+in)?|\b(?:shown|depicted|pictured|seen)\s+in|,\s*which\s+is)\s+{_ARTICLE}{{named_pick}}"
        r"(?=\s*(?:[.!;,:]|$))",
        Example("mucr", "The effect of the heavy rain in the cause image is Option 3.", 3),
        Example("mucr", "The effect image shows the broken vase, which is Option 3.", 3),
        Example(
            "mucr",
            "1. No wait, Option 1 just repeats the cause image. The effect — the spilled paint — is in Option 3.",
            3,
        ),
    ),
    # the answer's place set against another's, ending the clause: "the effect should be the cold, shivering person in
    # Option 4, not the fresh flowers in Option 1." (BD's first contact, after "I believe Option 1 is correct.")
    verdict(
        r"\b(?:in|from)\s+{pick}\s*,\s*not\s+(?:the|a|an)\s+[^«‹.,;:!?\n]{{1,60}}?\s+(?:in|from)\s+{reject}"
        r"(?=\s*(?:[.!;]|$))",
        Example(
            "mucr",
            "I believe Option 1 is correct. But the effect is the cold person in Option 4, not the flowers in "
            "Option 1. So Option 4.",
            4,
        ),
    ),
    # what an answer shows, its place in parentheses, as what explains the context: "The kite flying in the wind
    # (center) explains it." (BD's first contact; not "Neither the kite (center) nor the storm (right) explains it.")
    verdict(
        r"(?:^|(?<=[.!?;]))(?:(?!\b(?:not|no|neither|nor)\b|n't\b)[^.!?;\n«‹(]){{1,80}}\(\s*{pick}\s*\)\s+"
        r"(?:best\s+|clearly\s+)?explains\s+(?:it|this|that|the\s+context(?:\s+image)?)(?=\s*(?:[.!;]|$))",
        Example(
            "panels", "The context is a kite stuck in power lines. The kite flying in the wind (center) explains it.", 1
        ),
    ),
    # "I find the one on the right more believable", "I consider image 2 the most plausible"
    verdict(
        rf"\bI\s+(?:find|consider|think)\s+(?:the\s+one\s+)?{{pick}}\s+(?:to\s+be\s+)?(?:the\s+)?(?:{_MORE})\b",
        Example(
            "panels",
            "Between the middle picture and the one on the right, I find the one on the right more believable.",
            2,
        ),
    ),
    # "I don't think 1 is more plausible" rejects it; so does "more so" after a denial ("Hypothesis 1 is unlikely,
    # and hypothesis 2 is even more so")
    verdict(
        rf"\b(?:don't|do\s+not|doesn't|does\s+not)\s+(?:think|believe|feel)\s+(?:that\s+)?{{reject}}\s+(?:is|would\s+be)\s+"
        rf"(?:\w+\s+)?(?:{_MORE}|more\s+so)\b",
        Example("nleye", "I don't think 1 is more plausible; 2 fits the rain.", 2),
    ),
    verdict(
        r"\b(?:unlikely|implausible|improbable|impossible|(?:less|least)\s+(?:plausible|likely))\b[^.;\n]*?,?\s*and\s+"
        r"{reject}\s+is\s+(?:even\s+|much\s+|somewhat\s+|far\s+)?more\s+so\b",
        Example("nleye", "Image 1 is implausible, and image 2 is even more so.", None),
    ),
    # "I find image 1 less plausible" rejects it
    verdict(
        rf"\bI\s+(?:find|consider|think)\s+(?:the\s+one\s+)?{{reject}}\s+(?:to\s+be\s+)?(?:the\s+)?"
        rf"(?:{_LESS}|implausible|unlikely|improbable)\b",
        Example("nleye", "I find image 1 less plausible.", 2),
    ),
    # "I'd go with 2", "I choose image 1", "I lean towards 1", "it must be option 2", "I'll change my answer to 2"
    verdict(
        rf"\b(?:choose|chose|select|pick|go\s+with|going\s+with|settle\s+on|opt\s+for|lean(?:ing)?{_ADVERBS}(?:\s+towards?)?|must\s+be"
        rf"|(?:chang|switch|revis)\w*(?:\s+(?:my\s+answer|it))?\s+to"
        rf"|(?:i'd|i\s+would|i'll|i\s+will|i'm\s+going\s+to)\s+say|classif(?:y|ied)(?:\s+(?:it|this|the\s+update))?\s+as)\s*,?\s+(?:with\s+)?{_ARTICLE}{{pick}}",
        Example("nleye", "I'd go with 2.", 2),
        Example("nleye", "I lean towards 1.", 1),
        # "lean" alone before the answer (AY's first contact, after the labels asked: "Weakener? Strengthener? I'd lean
        # strengthener, since ...")
        Example("label", "Weakener? Strengthener? I'd lean strengthener, since age doesn't change it.", "strengthener"),
        Example("mucr", "It must be option 2.", 2),
    ),
    # "the right one better matches the context", "option 2 fits best", "image 2 - the couple cutting the cake - is the
    # one that fits the wedding best", "The right image, showing the girl with a cast, better explains the crutches"
    verdict(
        rf"{{pick}}{_APPOSITIVE}\s+(?:(?:better|best)\s+(?:match|fit|suit|explain)\w*|(?:matches|fits|suits)\s+"
        rf"(?:the\s+(?:context|scene|story)\s+)?{_INTENSIFIER}(?:better|best)"
        # what it explains, one noun: "Hypothesis 2 explains the injury best." (BD's first contact, after the hypotheses
        # described as headings; not "explains the fall of the ladder best", nor "explains the injury, but not best")
        rf"|explains\s+the\s+[^\W\d_]+\s+{_INTENSIFIER}(?:better|best)(?=\s*(?:[.!;,]|$)))\b",
        Example("panels", "The right one better matches the context.", 2),
        Example("nleye", "Hypothesis 2 fits the context far better than hypothesis 1 does.", 2),  # AQ's first contact
        Example("mucr", "Option 2 fits best.", 2),
        Example(
            "texts",
            "Hypothesis 1: A man on a ladder. Hypothesis 2: A man with a sprained ankle. Context: a man with an ice "
            "pack on his ankle. Hypothesis 2 explains the injury best.",
            2,
        ),
    ),
    verdict(
        rf"{{pick}}{_APPOSITIVE}\s+is\s+the\s+one\s+(?:that|which)\s+(?:(?:better|best)\s+\w+|\w+(?:\s+[^\W\d_]+){{{{0,4}}}}\s+(?:better|best))\b",
        Example("nleye", "Image 2 - the couple cutting the cake - is the one that fits the wedding best.", 2),
    ),
)

# Other verdicts that choose or reject an option or label.
VERDICTS = (
    # "..., exactly as described in Hypothesis 1": the reply credits that one (a pick that differs contradicts it)
    verdict(
        r"(?:^|(?<=[.;,!?]))(?:(?!\bnot\b|n't\b|\bno\b|\bunlike\b)[^.;,!?\n])*?\b(?:exactly|just|precisely)\s+as\s+"
        r"(?:described|stated|shown|depicted|predicted|suggested)\s+(?:in|by)\s+{pick}"
        r"(?!\s*(?:too|as\s+well|also|and\b|,?\s*but\b))",
        Example(
            "texts",
            "Hypothesis 2 is more plausible. Since the present is wrapped in a rectangular box shape, the child most "
            "likely unwrapped it to reveal a rectangular present, exactly as described in Hypothesis 1.",
            None,
        ),
        Example("texts", "Hypothesis 1 is more plausible: he is soaked, exactly as described in Hypothesis 1.", 1),
    ),
    # "Less plausible: Image 1", "Right image: less plausible"
    verdict(
        rf"\b(?:{_LESS}|implausible|unlikely|improbable)\s*:\s*{_ARTICLE}{{reject}}",
        Example("nleye", "Less plausible: Image 1", 2),
    ),
    verdict(
        rf"{{reject}}\s*[:→=-]\s*(?:{_LESS}|implausible|unlikely|improbable)\b",
        Example("panels", "Right image: less plausible", 1),
        # with "=" (AX's first contact)
        Example("panels", "right image = more plausible (2). middle image = less plausible (1).", 2),
    ),
    # "Image 2 is implausible", "Option 2 is not the effect", "Image 1 does not make sense"
    verdict(
        rf"{{reject}}{_APPOSITIVE}\s*(?:{COPULA}\s+(?:{_WORSE})|{_NEGATED_VERB})",
        Example("nleye", "Image 2 is implausible.", 1),
        Example("texts", "Hypothesis 2 (the man on a beach) is very unlikely. The plausible one is Hypothesis 1.", 1),
        Example("mucr", "Option 2 is not the effect.", None),
        Example("nleye", "Image 1 does not make sense.", 2),
    ),
    # "not a strengthener", "neither 1 nor 2", "rather than 1", "instead of 1", "doesn't strengthen"
    verdict(
        rf"(?:\b(?:not|neither|nor|rather\s+than|instead\s+of)|n't)\s+{_ARTICLE}{{reject}}",
        Example("label", "It is not a strengthener.", None),
        Example("nleye", "Neither 1 nor 2.", None),
    ),
    # "Option 4 is the effect itself seen from another angle", "The police officer is part of the effect itself": the
    # given image itself, no answer (AJ's first contact)
    verdict(
        rf"{{reject}}{_APPOSITIVE}\s*{COPULA}\s+(?:just\s+|merely\s+|simply\s+|only\s+)?(?:part\s+of\s+)?the\s+"
        r"(?:effect|cause)(?:\s+image)?\s+itself\b",
        Example("mucr", "Option 4 is the effect itself from another angle. The cause is therefore Option 3.", 3),
        Example("cue", "The broken glass is part of the effect itself. That leaves heavy rain.", 3),
    ),
    # "Option 1 just repeats the cause image", "Option 1 is actually identical to the cause image", "Option 4 shows the
    # effect image again": the given image again, no answer (BE's first contact: after "Option 1 shows the effect. Hmm,
    # ...", read 1; not "Option 1 is identical to the cause image except for the broken window", how the two differ)
    verdict(
        rf"{{reject}}{_APPOSITIVE}\s*(?:just\s+|merely\s+|simply\s+|only\s+)?(?:{COPULA}\s+(?:just\s+|merely\s+|simply\s+)?"
        r"(?:identical\s+to|the\s+same\s+as)|repeats|duplicates|(?P<again>shows|depicts))\s+the\s+(?:effect|cause|given)\s+"
        r"(?:image|picture)\b(?(again)\s+(?:again|once\s+more)\b|(?!\s*(?:,\s*)?(?:except|but|apart|save)\b))",
        Example(
            "mucr",
            "Option 1 shows the effect. Hmm, Option 1 is actually identical to the cause image; the effect, the "
            "overflowing bathtub, is in Option 2.",
            2,
        ),
        Example(
            "mucr", "Option 4 shows the effect image again, and option 2 shows the cause: the boy kicking the ball.", 2
        ),
    ),
    # "Hypothesis 1 can be ruled out, since the cat in it is black ...": an option eliminated (AL's first contact; of
    # two hypotheses this picks the other)
    verdict(
        rf"{{reject}}{_APPOSITIVE}\s*(?:can|must|should|is|are|has\s+been|was)\s+(?:(?:safely|clearly|easily|already)\s+)?"
        r"(?:be\s+)?(?:ruled\s+out|eliminated|excluded|discarded)\b",
        Example(
            "nleye",
            "Hypothesis 1 can be ruled out, since the cat in it is black while the cat in the context is orange. That "
            "leaves the other hypothesis as the more plausible one.",
            2,
        ),
    ),
    # "The image in the centre depicts an outcome that cannot happen: ...": an option shown impossible (AW's first
    # contact; of two hypotheses this picks the other)
    verdict(
        rf"{{reject}}{_APPOSITIVE}\s*(?:shows|depicts|describes|portrays)\s+(?:an?\s+)?(?:outcome|event|scene|situation|"
        r"result|change)\s+(?:that|which)\s+(?:cannot|can't|could\s*not|couldn't)\s+(?:happen|occur|be\s+true)\b",
        Example(
            "panels",
            "The image in the centre depicts an outcome that cannot happen: the ice grows in a warm room. Therefore "
            "the other hypothesis is the plausible one.",
            2,
        ),
    ),
    # "Hypothesis 1 would only make sense if ..., so I rule it out.": the option opening the sentence, ruled out by a
    # pronoun in it, no other option named between (AX's first contact; of two hypotheses this picks the other)
    verdict(
        rf"(?:^|(?<=[.;!?]))\s*{_ARTICLE}{{reject}}(?:(?![«‹])[^.;!?\n])*?,?\s*\b(?:so|and|hence|thus|therefore)\s+"
        r"(?:I|we)\s+(?:can\s+|must\s+|will\s+)?(?:rule|ruled)\s+it\s+out\b",
        Example(
            "nleye",
            "Hypothesis 1 would only make sense if the context happened after it, but the clock in the context reads "
            "earlier, so I rule it out. The answer is the other one.",
            2,
        ),
    ),
    verdict(
        rf"\b(?:rule|ruling|rules|ruled)\s+out\s+{_ARTICLE}{{reject}}",
        Example("nleye", "We can rule out image 2: the cat in it is black.", 1),
    ),
    # "Car and road appear in both images ... That leaves speeding.": what an elimination leaves (AH's first contact)
    verdict(
        rf"\b(?:that|which|this)\s+leaves\s+(?:(?:only|just)\s+)?{_ARTICLE}{{pick}}(?=\s*(?:[.;!)\n]|$))",
        Example("cue", "The slippery floor is in both images, so it explains no change. That leaves heavy rain.", 3),
    ),
    # "Probably 2, but I'm not sure": a probable pick is a pick ("maybe 3?" is a guess, no pick)
    verdict(
        rf"\b(?:most\s+)?(?:probably|likely|clearly|definitely|obviously|certainly)\s*,?\s+{_ARTICLE}{{pick}}(?=\s*(?:[.,;!)]|\s-\s|$))",
        Example("nleye", "Probably 2, but I'm not sure.", 2),
        Example("texts", "Which is more plausible, 1 or 2? Clearly 1 — rain leads to wet clothes.", 1),
    ),
    # "options 2 and 4 both show water, but only option 4 ..."
    verdict(
        rf"\bbut\s+only\s+{_ARTICLE}{{pick}}",
        Example("mucr", "Options 2 and 4 both show water, but only option 4 shows a flood.", 4),
    ),
    # "Only option 1, the wet floor, follows from the spilled bucket.": a sentence opening on the one option said to
    # follow from or fit the given image, after the others described (AY's first contact)
    verdict(
        rf"(?:^|(?<=[.!?;:]))\s*only\s+{_ARTICLE}{{pick}}"
        r"(?:\s*,[^,.;:!?\n«‹]{{1,60}},)?\s+"
        r"(?:follows|fits|matches|explains|results|leads|is\s+the\s+(?:effect|cause|answer|cue))\b",
        Example(
            "mucr",
            "Option 2 shows a cake, option 3 shows a broken window, option 4 shows a sunny beach. Only option 1, the "
            "wet floor, follows from the spilled bucket.",
            1,
        ),
    ),
    # a yes or no for an option (a table row, a checklist): "| 2 | Yes |", "Option 3 - yes, ...", "Option 1: ✅"
    # (a check mark without a separator on the same line: "Weakener ❌ / Strengthener ✅")
    verdict(
        rf"{{pick}}(?:\s*[|:→-]\s*(?:yes|true|correct|high|higher)(?=\s*(?:[|.,;!]|\s-\s|$)){_NOT_A_MIDDLE_CELL}"
        r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✓✔✅☑])",
        Example("nleye", "| 2 | Yes |", 2),
        Example("mucr", "Option 3 - yes, the fire explains the smoke.", 3),
        Example("label", "Weakener ❌ / Strengthener ✅", "strengthener"),
    ),
    verdict(
        rf"{{reject}}(?:\s*[|:→-]\s*(?:no|false|incorrect|low|lower)(?=\s*(?:[|.,;!]|\s-\s|$)){_NOT_A_MIDDLE_CELL}"
        r"|\s*\(\s*(?:no|false|incorrect|wrong)\s*\)"
        r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✗✘❌☒])",
        Example("nleye", "| 1 | No |", 2),
        Example("mucr", "Option 1 (no), Option 2 (no), Option 3 (yes - the bathtub), Option 4 (no). Answer: 3", 3),
        Example("mucr", "| 2 | No – a waiting room |\n| 3 | Yes – the candy explains the toothache |", 3),
    ),
    # a list item marked as the choice: "2. speeding ← this one"
    verdict(
        r"{pick}[ \t]*(?:←|<-+|⟵|⇐)",
        Example("cue", "1. slippery floor\n2. birthday party\n3. heavy rain ← this one\n4. broken glass", 3),
    ),
    # "✅ Image 2"
    verdict(
        r"(?:^|(?<=[|]))\s*[✓✔✅☑]\s*{pick}",
        Example("nleye", "✅ Image 2", 2),
    ),
    # a checklist: "- [x] 3. slippery floor"
    verdict(
        r"^\s*\[[xX✓]\]\s*{pick}",
        Example("cue", "- [x] 3. heavy rain", 3),
    ),
    verdict(
        r"^\s*\[\s\]\s*{reject}",
        Example("nleye", "[ ] Image 1\n[x] Image 2", 2),
    ),
    # a table row of an option whose last cell is a check mark: "| 3 | A man lifting weights | ✓ |" (or yes: "| Right |
    # Shows the kitten asleep | Yes |"), or a line headed by the option, its description closed by a check mark
    # ("Option 3: shards of glass on the floor ✓": AQ's first contact)
    verdict(
        r"^\s*\|?\s*{pick}\s*(?:\|[^\n]*\|\s*(?:yes\b|[✓✔✅☑])|:[^\n«‹]*[✓✔✅☑])\s*\|?\s*$",
        Example("mucr", "| 3 | A man lifting weights | ✓ |", 3),
        # a middle cell's yes no pick (_NOT_A_MIDDLE_CELL; BA's first contact)
        Example("cue_words", "| 1 | car | yes | yes | no |\n| 2 | speeding | yes | yes |\nSo the cue is 2.", 2),
        Example(
            "panels",
            "| Panel | Plausible? |\n|---|---|---|\n| Middle | A grown cat | No |\n| Right | Asleep | Yes |",
            2,
        ),
        Example("mucr", "Option 1: the glass is intact ✗\nOption 2: a man sweeping ✗\nOption 3: shards of glass ✓", 3),
    ),
    verdict(
        r"^\s*\|?\s*{reject}\s*(?:\|[^\n]*\|\s*(?:no\b|[✗✘❌☒])|:[^\n«‹]*[✗✘❌☒])\s*\|?\s*$",
        Example("nleye", "| 1 | A dry road | ❌ |", 2),
        Example(
            "mucr", "Option 1: intact ✗\nOption 2: leaves ✗\nOption 3: shards of glass\nOption 4: a match on TV ✗", 3
        ),
    ),
    verdict(
        r"(?:^|(?<=[|]))\s*[✗✘❌☒]\s*{reject}",
        Example("nleye", "❌ Image 1", 2),
    ),
    # a ranking: "2 > 1", "1 < 2"
    verdict(
        r"{pick}\s*>\s*{reject}",
        Example("nleye", "2 > 1", 2),
    ),
    verdict(
        r"{reject}\s*<\s*{pick}",
        Example("nleye", "1 < 2", 2),
    ),
    # "I would not pick image 2", "I wouldn't choose option 1", "never go with 3": a choice declined
    verdict(
        r"(?:\b(?:not|never)|n't)\s+(?:choose|chose|select|pick|go\s+with|opt\s+for)\s+(?:the\s+)?{reject}",
        Example("nleye", "I would not pick image 2.", 1),
    ),
    # "not 1 or 2": the negation holds for the whole list
    verdict(
        rf"(?:\b(?:not|neither)|n't)\s+{_ARTICLE}{ANY_MENTION}\s*,?\s+(?:or|nor|and)\s+{_ARTICLE}{{reject}}",
        Example("mucr", "Not 1 or 2; it's option 3.", 3),
    ),
    # "not 1, 2 or 3": every item of the list, the middle ones too (AN's first contact: "The answer is not 1, 2 or 3.");
    # "Option 1, 2 or 3" is one mention of a list, its items joined by "and" (round 43: "Not Option 1, 2 or 3." read
    # 3, the last item alone not rejected; "It's not Option 1, 2 or 3, since none of them involve water.", AW's: 4)
    verdict(
        rf"(?:\b(?:not|neither)|n't)\s+{_ARTICLE}(?:{ANY_MENTION}{_LIST_ITEM_END}{_ARTICLE})+{{reject}}"
        rf"(?=\s*,?\s+(?:or|nor|and)\s+{_ARTICLE}{ANY_MENTION})",
        Example("mucr", "It is not option 2, option 3 or option 4: the effect is in option 1.", 1),
        Example("mucr", "The cause is not 4, 1 or 2.", 3),
    ),
    verdict(
        rf"(?:\b(?:not|neither)|n't)\s+{_ARTICLE}(?:{ANY_MENTION}{_LIST_ITEM_END}{_ARTICLE})+"
        rf"{ANY_MENTION}\s*,?\s+(?:or|nor|and)\s+{_ARTICLE}{{reject}}",
        Example("mucr", "The effect is not 3, 4 or 1.", 2),
        Example("mucr", "Not Option 1, 2 or 3.", 4),
        Example("mucr", "It's not Option 1, 2 or 3, since none of them involve water.", 4),
    ),
    # "No - weakener.", "No, image 2." after a question
    verdict(
        rf"(?:^|(?<=[.!?;]))\s*no\s*[-,:]\s*(?:it's\s+|it\s+is\s+)?{_ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
        Example("label", "Does the update strengthen it? No - weakener.", "weakener"),
    ),
    # "..., so 2." / "Therefore, weakener."
    verdict(
        rf"\b(?:so|thus|hence|therefore|ok|okay)\s*[,:]?\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
        Example("nleye", "The road is wet, so 2.", 2),
        Example("label", "Therefore, weakener.", "weakener"),
        # "OK 4." (BA's first contact; "let me reconsider option 2" is no pick of it: correction_rules.CORRECTION_WORDS)
        Example("mucr", "I'd say 4. Actually let me reconsider option 2 - older man, no. OK 4.", 4),
    ),
    # "it is a weakener", "it's the earthquake", "this is clearly option 2"
    verdict(
        rf"\b(?:it|this|that)(?:\s+is|'s)(?:\s+(?:clearly|definitely|probably|actually))?\s+{_ARTICLE}{{named_pick}}",
        Example("label", "It is a weakener.", "weakener"),
        Example("mucr", "This is clearly option 2.", 2),
    ),
    # "I think it's 3.", "It's 4 - the dog ..."
    verdict(
        rf"\b(?:it|this|that)(?:\s+is|'s)\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!;,:]|$)|\s+-\s)",
        Example("mucr", "I think it's 3.", 3),
    ),
    # the answer a self-correction gives: "Actually, no - it's 2", "Wait, option 3", "actually, strengthener"; or "no"
    # alone after a dash or a comma: "3 — no, 1." (BC's first contact)
    verdict(
        rf"(?:\b(?:{CORRECTION_WORDS})|(?:(?<=[—–…,-])|(?<=[—–…,-]\s)|(?<=\.\.\.)|(?<=\.\.\.\s))no(?=\s*,))\s*[,:-]?\s*(?:(?:no|yes)\s*[,:-]?\s*)?(?:(?:it's|it\s+is|make\s+(?:it|that)|is)\s+)?{_ARTICLE}{{pick}}"
        r"(?=\s*(?:[.!;,)]|$)|\s+-\s)",
        Example("nleye", "Image 1. Actually, no - it's 2.", 2),
        Example("mucr", "Option 1. Wait, option 3.", 3),
        Example("mucr", "3 — no, 1.", 1),
        # after an ellipsis (BE's first contact, in German: "Die Antwort ist 4 (Polizist)... nein, 2 (...), weil ...")
        Example("cue_words", "Answer: 4... no, 2, because the officer is only the effect.", 2),
    ),
    # "which might seem to strengthen it", "could be read as a strengthener": a concession, not the verdict
    verdict(
        rf"\b(?:might|may|could)\s+(?:seem|appear|look|be\s+(?:read|seen|considered|interpreted|viewed|taken))\s+(?:to\s+be\s+|to\s+|like\s+|as\s+)?{_ARTICLE}{{reject}}",
        Example("label", "This could be read as a strengthener, but it weakens the hypothesis.", "weakener"),
    ),
)

# Answers standing alone: at the start of a line (or after ";") before punctuation ("2.", "Option 3: ...",
# "2 (the right image)", "Weakener. The ..."), or as a whole sentence ("... ? Weakener.").
# ... not a first step's number: "1. First, let's look at the cause image: ..."
_FIRST_STEP = (
    r"(?![.)]\s+(?:first(?:ly)?|let's|let\s+us|step|to\s+(?:answer|determine|decide|solve)|we\s+(?:need|must|should|will)"
    r"|i\s+(?:need|will))\b)"
)
ALONE = (
    verdict(
        # not heading a question ("3 – road? No, the road is just the setting.": AP's first contact)
        r"^[ \t]*{pick}(?=\s*(?:[.:)!,;(-]|$))(?![^.!?\n]*\?)"
        r"(?!\s*(?:,[^,.;:!?\n«‹]{{1,80}},|\([^()\n«‹]{{1,80}}\))\s*(?:does|doesn't|did|didn't|is|isn't|was|wasn't|"
        r"has|hasn't|shows?|would|wouldn't|could|couldn't|can|can't|seems?|fails?|lacks?)\b)" + _FIRST_STEP,
        Example("mucr", "Option 3: the fire explains the smoke.", 3),
        Example("nleye", "2.", 2),
        Example("texts", "2.\nHypothesis 1, a man in a hammock, doesn't fit the rain.", 2),
        # a pick and a bare number after a comma ending their line are a list, no pick (mentions.LIST_HEAD; AL's first
        # contact: "2, 3")
        Example("mucr", "2, 3\nOption 3: the melted ice cream is the effect.", 3),
        Example(
            "cue_words",
            "3 – road? No, the road is just the setting. 1 – car? It appears in both, but it is an object, not a "
            "cause.\n2 – speeding: the car goes much too fast.",
            2,
        ),  # closing a description of every option (decision._standing_alone; AP's first contact)
        Example(
            "mucr",
            "1. Option 1: a woman baking bread.\n2. Option 2: a loaf of bread on a shelf.\n3. Option 3: a man eating a "
            "sandwich.\n4. Option 4: a smoke-filled kitchen with a burnt loaf in the open oven.\nThe effect is the "
            "burnt bread.\n4.",
            4,
        ),
    ),
    # "Strengthener?" asks, it does not answer
    verdict(
        r"(?:(?<=[.!?;])|^)\s*(?:the\s+)?{pick}\s*(?=[.!;]|$)" + _FIRST_STEP,
        Example("label", "Does it strengthen the hypothesis? Weakener.", "weakener"),
        Example("cue", "The heavy rain. In the second image, the street is flooded.", 3),
    ),
)
