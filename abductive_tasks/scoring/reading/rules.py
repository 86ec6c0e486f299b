"""The rule tables: statements, verdicts, refusals and doubts, as patterns over a reply's marked mentions.

Each rule carries the example replies it exists for (``Example``: the example kind that reads it, the reply, what a
person reads); tests/scoring/test_rule_examples.py reads every one. Adding a rule: docs/reading.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from abductive_tasks.scoring.reading.mentions import LIST_HEAD, NAMED_REF, REF, Example

__all__ = [
    "ALONE",
    "CLAUSE_END",
    "CONCESSION",
    "COPULA",
    "DOUBTS",
    "HEADINGS",
    "HEDGES",
    "HYPOTHESIS_NOUN",
    "IN_PASSING",
    "JUDGEMENTS",
    "JUDGEMENT_TOLERANCE",
    "LABEL_CONCESSIONS",
    "LABEL_EFFECTS",
    "LABEL_STATEMENTS",
    "LABEL_VERBS",
    "QUESTION",
    "REFUSALS",
    "REFUSAL_OF_THE_OTHERS",
    "ROLE_AFTER",
    "ROLE_NAMED",
    "SCORE_STATEMENTS",
    "SCORE_VERDICTS",
    "SELF_CORRECTIONS",
    "SENTENCE_END",
    "SHARED_HEAD",
    "STATEMENTS",
    "VERDICTS",
    "Rule",
]

_FLAGS = re.IGNORECASE


@dataclass(frozen=True)
class Rule:
    """A pattern of a rule table, and the example replies it exists for (tests/scoring/test_rule_examples.py reads
    each through its example kind and checks that the pattern matches it)."""

    pattern: re.Pattern
    examples: tuple[Example, ...]


# A verdict pattern's mentions: {pick} and {reject} any mention, {named_pick} a named one; a pick heads no list ("I
# would say 1 and 3 are equally valid" picks neither)
_MENTIONS = {
    "pick": REF.format(name="pick") + LIST_HEAD,
    "reject": REF.format(name="reject"),
    "named_pick": NAMED_REF.format(name="pick"),
}


def _verdict(pattern: str, *examples: Example) -> Rule:
    """A verdict or statement rule: ``pattern`` with its mentions filled in (:data:`_MENTIONS`)."""
    return Rule(re.compile(pattern.format(**_MENTIONS), _FLAGS | re.MULTILINE), examples)


def _rule(pattern: str, *examples: Example, flags: int = _FLAGS) -> Rule:
    return Rule(re.compile(pattern, flags), examples)


_ADVERBS = (
    r"(?:\s+(?:clearly|definitely|probably|likely|much|far|even|also|indeed|therefore|thus|actually|certainly|"
    r"somewhat|slightly|a\s+bit|still|the))*"
)
COPULA = rf"(?:is|are|was|seems?|looks?|appears?|would\s+be|could\s+be|must\s+be|should\s+be|remains?|makes?){_ADVERBS}"
_QUALITY = (
    r"(?:plausible|likely|probable|reasonable|logical|realistic|believable|sensible|consistent|coherent|fitting|"
    r"appropriate|accurate|suitable|natural|sense)"
)
_MORE = rf"(?:more|most)\s+{_QUALITY}|better|best|closer|closest"
_LESS = rf"(?:less|least)\s+{_QUALITY}|worse|worst"
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
    r"|final(?=\s*:)"
    r"|correct\s+(?:option|one|image|hypothesis|phrase|cue)"
    r"|best\s+(?:match|fit|option|choice|answer)|(?:that|which)\s+(?:best\s+(?:fits|matches)|(?:fits|matches)\s+best)|(?:effect|cause)(?:\s+of\s+the\s+\w+(?:\s+image)?)?|cue(?:\s+phrase)?"
)
# "the more plausible image", "most likely": a cue only with "is" ("X is more plausible: because ..." states nothing)
_QUALITY_CUE = rf"(?<!less )(?<!least )(?:(?:more|most)\s+)?{_QUALITY}(?:\s+{_CUE_NOUN})?"
_ARTICLE = r"(?:(?:the|a|an)\s+)?"
# words set off between an answer and its verb: ", showing the girl with a cast,", " - the couple cutting the cake -"
# (a verdict pattern's part: its braces are doubled for :func:`_verdicts`)
_APPOSITIVE = r"(?:\s*(?:,|\s-)\s*(?:which\s+|that\s+)?[^,\-.;:!?\n«‹]{{1,80}}?(?:,|\s-))?"

# Statements of the answer: "Answer: 2", "the more plausible image is 1", "The correct option is #3",
# "Effect: Option 4", "the cause of the effect image is 2", "### Answer\nImage 1", "More plausible: Image 2".
STATEMENTS = (
    _verdict(
        rf"\b(?:{_CUE})\s*(?:is|(?:would|should|must)\s+be)?(?:\s+(?:(?:shown|depicted|pictured|seen)\s+)?in)?\s*[:=→-]?\s*{_ARTICLE}{{pick}}",
        Example("nleye", "Answer: 2", 2),
        Example("mucr", "Effect: Option 4", 4),
        Example("nleye", "### Answer\nImage 1", 1),
    ),
    # "→ 3" ending a table or a list of checks
    _verdict(
        r"→\s*{pick}(?=\s*(?:[.!;]|$))",
        Example("mucr", "Checked every option → 3.", 3),
    ),
    # "Option 3 shows curtains on fire, which is the effect."
    _verdict(
        r"{pick}[^.;\n]{{0,80}}?,\s*which\s+(?:is|would\s+be)\s+the\s+(?:answer|effect|cause|cue|correct\s+one)(?=\s*(?:[.!;]|$))",
        Example("mucr", "Option 3 shows curtains on fire, which is the effect.", 3),
    ),
    _verdict(
        rf"\b{_QUALITY_CUE}\s*(?:is|would\s+be)\s*[:=-]?\s*{_ARTICLE}(?:one\s+)?{{pick}}",
        Example("nleye", "The more plausible image is 1.", 1),
    ),
    _verdict(
        rf"(?:^|(?<=[.!?;]))\s*(?:the\s+)?{_QUALITY_CUE}\s*[:=-]\s*{_ARTICLE}{{pick}}",
        Example("nleye", "More plausible: Image 2", 2),
    ),
    # "2 is more plausible", "Option 3 is the most likely cause", "1 is closer", "image 1 makes more sense"
    # (not "image 1 is more likely to be in the morning": a property, not the answer)
    # "The second picture, the first hypothesis, is the more plausible one"
    _verdict(
        rf"{{pick}}\s*[,-]?\s*{COPULA}\s+{_ARTICLE}(?:{_MORE}|correct|the\s+(?:answer|effect|cause|cue|link))\b(?!\s+to\s+(?:be|have)\b)",
        Example("nleye", "2 is more plausible.", 2),
        Example("mucr", "Option 3 is the most likely cause.", 3),
        Example("nleye", "Image 1 makes more sense.", 1),
    ),
    # "Therefore, Option 3 shows the effect."
    _verdict(
        r"{pick}\s+(?:shows|depicts|represents|illustrates|is)\s+the\s+(?:effect|cause|cue)(?=\s*(?:[.!;,]|$))",
        Example("mucr", "Therefore, Option 3 shows the effect.", 3),
    ),
    # "I find the rightmost panel more plausible", "I consider image 2 (to be) the more plausible one"
    _verdict(
        rf"\b(?:find|consider|deem|judge)\s+{_ARTICLE}{{pick}}\s+(?:to\s+be\s+)?{_ARTICLE}(?:{_MORE})\b",
        Example("nleye", "I find the rightmost panel more plausible.", 2),
        Example("nleye", "I consider image 2 to be the more plausible one.", 2),
    ),
    # "1 is less plausible than 2"; "2 is more plausible than 1"
    _verdict(
        rf"{{reject}}\s*{COPULA}\s+(?:{_LESS})\s+than\s+(?:that\s+of\s+)?{_ARTICLE}{{pick}}",
        Example("nleye", "1 is less plausible than 2.", 2),
    ),
    _verdict(
        rf"{{pick}}\s*{COPULA}\s+{_ARTICLE}(?:{_MORE})\s+than\s+{_ARTICLE}{{reject}}",
        Example("nleye", "2 is more plausible than 1.", 2),
    ),
    # "Middle image: more plausible", "Image 2 → more plausible"
    _verdict(
        rf"{{pick}}\s*[:→-]\s*(?:{_MORE})\b",
        Example("panels", "Middle image: more plausible", 1),
        Example("nleye", "Image 2 → more plausible", 2),
    ),
    # "not 1 but 2", "Not option 2, which shows a dry road, but option 4"
    _verdict(
        rf"\bnot\s+{_ARTICLE}{{reject}}[^.;\n]{{{{0,80}}}}?\bbut\s+(?:rather\s+)?{_ARTICLE}{{pick}}",
        Example("nleye", "Not 1 but 2.", 2),
        Example("mucr", "Not option 2, which shows a dry road, but option 4.", 4),
    ),
    # the answer's role, then its option: "The effect of the heavy rain in the cause image is Option 3", "The cause is
    # the child throwing the ball shown in Option 1, ...", "The effect image shows the broken vase, which is Option 3."
    # (not "the effect could be in option 2 or 4", "the cause is not in option 1")
    _verdict(
        r"\b(?:effect|cause|cue)\b(?:(?!\b(?:could|might|may|perhaps|possibly|if|not|no|or|n't)\b)[^.;:?!\n]){{0,100}}?"
        rf"(?:\bis|\b(?:shown|depicted|pictured|seen)\s+in|,\s*which\s+is)\s+{_ARTICLE}{{named_pick}}(?=\s*(?:[.!;,:]|$))",
        Example("mucr", "The effect of the heavy rain in the cause image is Option 3.", 3),
        Example("mucr", "The effect image shows the broken vase, which is Option 3.", 3),
    ),
    # "I'd go with 2", "I choose image 1", "I lean towards 1", "it must be option 2", "I'll change my answer to 2"
    _verdict(
        rf"\b(?:choose|chose|select|pick|go\s+with|going\s+with|settle\s+on|opt\s+for|lean(?:ing)?{_ADVERBS}\s+towards?|must\s+be"
        rf"|(?:chang|switch|revis)\w*(?:\s+(?:my\s+answer|it))?\s+to"
        rf"|(?:i'd|i\s+would|i'll|i\s+will|i'm\s+going\s+to)\s+say|classif(?:y|ied)(?:\s+(?:it|this|the\s+update))?\s+as)\s*,?\s+(?:with\s+)?{_ARTICLE}{{pick}}",
        Example("nleye", "I'd go with 2.", 2),
        Example("nleye", "I lean towards 1.", 1),
        Example("mucr", "It must be option 2.", 2),
    ),
    # "the right one better matches the context", "option 2 fits best", "image 2 - the couple cutting the cake - is the
    # one that fits the wedding best", "The right image, showing the girl with a cast, better explains the crutches"
    _verdict(
        rf"{{pick}}{_APPOSITIVE}\s+(?:(?:better|best)\s+(?:match|fit|suit|explain)\w*|(?:matches|fits|suits)\s+(?:better|best))\b",
        Example("panels", "The right one better matches the context.", 2),
        Example("mucr", "Option 2 fits best.", 2),
    ),
    _verdict(
        rf"{{pick}}{_APPOSITIVE}\s+is\s+the\s+one\s+(?:that|which)\s+(?:(?:better|best)\s+\w+|\w+(?:\s+[^\W\d_]+){{{{0,4}}}}\s+(?:better|best))\b",
        Example("nleye", "Image 2 - the couple cutting the cake - is the one that fits the wedding best.", 2),
    ),
)

# Words that start a self-correction ("Wait,", "Actually,", "On second thought").
_CORRECTION_WORDS = (
    r"wait|actually|on\s+(?:second\s+thought|reflection|closer\s+(?:inspection|look))|correction|re-?reading"
    r"|looking\s+again|scratch\s+that|let\s+me\s+reconsider|i\s+was\s+wrong|(?:sorry\s*,?\s+)?i\s+meant?|sorry"
    r"|(?:i'll|i\s+will|let\s+me|i\s+need\s+to)\s+(?:revise|correct)(?:\s+(?:that|this|it|myself|my\s+answer))?"
    r"|thinking\s+(?:about\s+it\s+)?(?:more|again|further)|on\s+further\s+(?:thought|reflection)"
    r"|(?:revised|updated|corrected)(?=\s+(?:score|rating|answer)\b)"
    r"|(?:(?:so|thus|hence|therefore)\s*,?\s+)?(?:the\s+|my\s+)?final\s+(?:answer|choice|verdict|decision|rating|score)"
)

# Other verdicts that choose or reject an option or label.
VERDICTS = (
    # "Less plausible: Image 1", "Right image: less plausible"
    _verdict(
        rf"\b(?:{_LESS}|implausible|unlikely|improbable)\s*:\s*{_ARTICLE}{{reject}}",
        Example("nleye", "Less plausible: Image 1", 2),
    ),
    _verdict(
        rf"{{reject}}\s*[:→-]\s*(?:{_LESS}|implausible|unlikely|improbable)\b",
        Example("panels", "Right image: less plausible", 1),
    ),
    # "Image 2 is implausible", "Option 2 is not the effect", "Image 1 does not make sense"
    _verdict(
        rf"{{reject}}\s*(?:{COPULA}\s+(?:{_WORSE})|{_NEGATED_VERB})",
        Example("nleye", "Image 2 is implausible.", 1),
        Example("mucr", "Option 2 is not the effect.", None),
        Example("nleye", "Image 1 does not make sense.", 2),
    ),
    # "not a strengthener", "neither 1 nor 2", "rather than 1", "instead of 1", "doesn't strengthen"
    _verdict(
        rf"(?:\b(?:not|neither|nor|rather\s+than|instead\s+of)|n't)\s+{_ARTICLE}{{reject}}",
        Example("label", "It is not a strengthener.", None),
        Example("nleye", "Neither 1 nor 2.", None),
    ),
    # "Probably 2, but I'm not sure": a probable pick is a pick ("maybe 3?" is a guess, no pick)
    _verdict(
        rf"\b(?:most\s+)?(?:probably|likely)\s*,?\s+{_ARTICLE}{{pick}}(?=\s*(?:[.,;!)]|$))",
        Example("nleye", "Probably 2, but I'm not sure.", 2),
    ),
    # "options 2 and 4 both show water, but only option 4 ..."
    _verdict(
        rf"\bbut\s+only\s+{_ARTICLE}{{pick}}",
        Example("mucr", "Options 2 and 4 both show water, but only option 4 shows a flood.", 4),
    ),
    # a yes or no for an option (a table row, a checklist): "| 2 | Yes |", "Option 3 - yes, ...", "Option 1: ✅"
    # (a check mark without a separator on the same line: "Weakener ❌ / Strengthener ✅")
    _verdict(
        r"{pick}(?:\s*[|:→-]\s*(?:yes|true|correct|high|higher)(?=\s*(?:[|.,;!]|$))"
        r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✓✔✅☑])",
        Example("nleye", "| 2 | Yes |", 2),
        Example("mucr", "Option 3 - yes, the fire explains the smoke.", 3),
        Example("label", "Weakener ❌ / Strengthener ✅", "strengthener"),
    ),
    _verdict(
        r"{reject}(?:\s*[|:→-]\s*(?:no|false|incorrect|low|lower)(?=\s*(?:[|.,;!]|$))"
        r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✗✘❌☒])",
        Example("nleye", "| 1 | No |", 2),
    ),
    # "✅ Image 2"
    _verdict(
        r"(?:^|(?<=[|]))\s*[✓✔✅☑]\s*{pick}",
        Example("nleye", "✅ Image 2", 2),
    ),
    # a checklist: "- [x] 3. slippery floor"
    _verdict(
        r"^\s*\[[xX✓]\]\s*{pick}",
        Example("cue", "- [x] 3. heavy rain", 3),
    ),
    _verdict(
        r"^\s*\[\s\]\s*{reject}",
        Example("nleye", "[ ] Image 1\n[x] Image 2", 2),
    ),
    # a table row of an option whose last cell is a check mark: "| 3 | A man lifting weights | ✓ |"
    _verdict(
        r"^\s*\|?\s*{pick}\s*\|[^\n]*\|\s*[✓✔✅☑]\s*\|?\s*$",
        Example("mucr", "| 3 | A man lifting weights | ✓ |", 3),
    ),
    _verdict(
        r"^\s*\|?\s*{reject}\s*\|[^\n]*\|\s*[✗✘❌☒]\s*\|?\s*$",
        Example("nleye", "| 1 | A dry road | ❌ |", 2),
    ),
    _verdict(
        r"(?:^|(?<=[|]))\s*[✗✘❌☒]\s*{reject}",
        Example("nleye", "❌ Image 1", 2),
    ),
    # a ranking: "2 > 1", "1 < 2"
    _verdict(
        r"{pick}\s*>\s*{reject}",
        Example("nleye", "2 > 1", 2),
    ),
    _verdict(
        r"{reject}\s*<\s*{pick}",
        Example("nleye", "1 < 2", 2),
    ),
    # "I would not pick image 2", "I wouldn't choose option 1", "never go with 3": a choice declined
    _verdict(
        r"(?:\b(?:not|never)|n't)\s+(?:choose|chose|select|pick|go\s+with|opt\s+for)\s+(?:the\s+)?{reject}",
        Example("nleye", "I would not pick image 2.", 1),
    ),
    # "not 1 or 2": the negation holds for the whole list
    _verdict(
        rf"(?:\b(?:not|neither)|n't)\s+{_ARTICLE}[«‹][\U000f0000-\U000ffffd][»›]\s*,?\s+(?:or|nor|and)\s+{_ARTICLE}{{reject}}",
        Example("mucr", "Not 1 or 2; it's option 3.", 3),
    ),
    # "No - weakener.", "No, image 2." after a question
    _verdict(
        rf"(?:^|(?<=[.!?;]))\s*no\s*[-,:]\s*(?:it's\s+|it\s+is\s+)?{_ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
        Example("label", "Does the update strengthen it? No - weakener.", "weakener"),
    ),
    # "..., so 2." / "Therefore, weakener."
    _verdict(
        rf"\b(?:so|thus|hence|therefore)\s*[,:]?\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
        Example("nleye", "The road is wet, so 2.", 2),
        Example("label", "Therefore, weakener.", "weakener"),
    ),
    # "it is a weakener", "it's the earthquake", "this is clearly option 2"
    _verdict(
        rf"\b(?:it|this|that)(?:\s+is|'s)(?:\s+(?:clearly|definitely|probably|actually))?\s+{_ARTICLE}{{named_pick}}",
        Example("label", "It is a weakener.", "weakener"),
        Example("mucr", "This is clearly option 2.", 2),
    ),
    # "I think it's 3.", "It's 4 - the dog ..."
    _verdict(
        rf"\b(?:it|this|that)(?:\s+is|'s)\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!;,:]|$)|\s+-\s)",
        Example("mucr", "I think it's 3.", 3),
    ),
    # the answer a self-correction gives: "Actually, no - it's 2", "Wait, option 3", "actually, strengthener"
    _verdict(
        rf"\b(?:{_CORRECTION_WORDS})\s*[,:-]?\s*(?:(?:no|yes)\s*[,:-]?\s*)?(?:(?:it's|it\s+is|make\s+(?:it|that)|is)\s+)?{_ARTICLE}{{pick}}"
        r"(?=\s*(?:[.!;,)]|$)|\s+-\s)",
        Example("nleye", "Image 1. Actually, no - it's 2.", 2),
        Example("mucr", "Option 1. Wait, option 3.", 3),
    ),
    # "which might seem to strengthen it", "could be read as a strengthener": a concession, not the verdict
    _verdict(
        rf"\b(?:might|may|could)\s+(?:seem|appear|look|be\s+(?:read|seen|considered|interpreted|viewed|taken))\s+(?:to\s+be\s+|to\s+|like\s+|as\s+)?{_ARTICLE}{{reject}}",
        Example("label", "This could be read as a strengthener, but it weakens the hypothesis.", "weakener"),
    ),
)

# Answers standing alone: at the start of a line (or after ";") before punctuation ("2.", "Option 3: ...",
# "2 (the right image)", "Weakener. The ..."), or as a whole sentence ("... ? Weakener.").
ALONE = (
    _verdict(
        r"^[ \t]*{pick}(?=\s*(?:[.:)!,;(-]|$))",
        Example("mucr", "Option 3: the fire explains the smoke.", 3),
        Example("nleye", "2.", 2),
    ),
    # "Strengthener?" asks, it does not answer
    _verdict(
        r"(?:(?<=[.!?;])|^)\s*{pick}\s*(?=[.!;]|$)",
        Example("label", "Does it strengthen the hypothesis? Weakener.", "weakener"),
    ),
)

# A label's own statement: "the update weakens the hypothesis".
LABEL_STATEMENTS = (
    _verdict(
        r"{named_pick}\s+(?:the|this|that|our)\s+(?:hypothesis|inference|claim|conclusion|idea|notion|assumption)\b",
        Example("label", "The update weakens the hypothesis.", "weakener"),
    ),
)
# Verbs that say what a label's verb says ("supports the idea" strengthens it). They name no label, but a label whose
# own explanation states the other label's effect with them ("weakener ... which supports the idea that ...") is
# contradictory: no answer.
LABEL_VERBS = {
    "strengthen": "support|reinforce|bolster|corroborate|confirm",
    "weaken": "undermine|contradict|refute|challenge|cast doubt on",
}
# Phrases that state a label's effect on the hypothesis without its verb ("makes the hypothesis more likely"); a label
# whose explanation states the other effect with them is contradictory as with LABEL_VERBS.
HYPOTHESIS_NOUN = (
    r"(?:the|this|that|her|his|their|our)\s+(?:idea|notion|assumption|hypothesis|inference|claim|conclusion)\b"
)
LABEL_EFFECTS = {
    "strengthen": (
        rf"makes?\s+{HYPOTHESIS_NOUN}\s+(?:much\s+|even\s+|far\s+)?more\s+(?:likely|plausible|probable|credible)"
        rf"|makes?\s+it\s+(?:much\s+|even\s+|far\s+)?more\s+(?:likely|plausible|probable)\s+that\s+{HYPOTHESIS_NOUN}"
        rf"|(?:increases?|raises?)\s+the\s+(?:likelihood|probability|plausibility)\s+(?:of|that)\b"
    ),
    "weaken": (
        rf"makes?\s+{HYPOTHESIS_NOUN}\s+(?:much\s+|even\s+|far\s+)?(?:less\s+(?:likely|plausible|probable|credible)"
        r"|unlikely|implausible|improbable)"
        rf"|makes?\s+it\s+(?:much\s+|even\s+|far\s+)?less\s+(?:likely|plausible|probable)\s+that\s+{HYPOTHESIS_NOUN}"
        rf"|(?:decreases?|lowers?|reduces?)\s+the\s+(?:likelihood|probability|plausibility)\s+(?:of|that)\b"
    ),
}
# A concession names a label without choosing it: "although it might strengthen ...", "one could argue it weakens".
LABEL_CONCESSIONS = (
    _verdict(
        r"\b(?:might|may|could|although|though|even\s+if)\b[^.;,\n]{{0,60}}?{reject}",
        Example("label", "Although it might strengthen the claim at first, it is a weakener.", "weakener"),
    ),
)

# Headings of a description, "Image 1: a man ... Image 2: a woman ...": answers standing alone among them enumerate.
HEADINGS = _verdict(
    r"(?:^|(?<=[.!?;]))\s*{pick}\s*:",
    Example("nleye", "Image 1: a man in the rain. Image 2: a man with an umbrella.", None),
)
QUESTION = _rule(
    r"[^.!?\n]*\?",
    Example("nleye", "Image 2 is more plausible? Image 1 shows the wet road.", None),
    flags=0,
)
# A concession: "Although image 1 is more plausible at first glance, ...", "At first, 1 seems better, but ...".
CONCESSION = _rule(
    r"(?:^|(?<=[.!?;:]))\s*(?:although|though|even\s+though|even\s+if|while|whereas)\b[^.;,\n]*"  # sentence-initial
    r"|\b(?:at\s+first(?:\s+(?:glance|sight))?|initially)\b[^.;\n]*?(?=[.;\n]|\bbut\b|$)",
    Example("nleye", "Although image 1 seems more plausible at first, image 2 fits better.", 2),
)

# Hedges: without a pick, a reply that says these chooses nothing even if it names one option.
HEDGES = (
    _rule(
        r"\b(?:both|either)\b[^.;\n]*\b(?:could|can|plausible|possible|likely|fit|work|valid|reasonable)\b",
        Example("nleye", "Either could be plausible; image 2 shows the wet road.", None),
    ),
    _rule(
        r"\bequally\b",
        Example("nleye", "Image 2 shows the wet road, but the dry road fits equally.", None),
    ),
    _rule(
        r"\b(?:can\s*not|can't|unable\s+to|impossible\s+to|hard\s+to|difficult\s+to)\s+(?:tell|determine|decide|say|choose)\b",
        Example("nleye", "Image 2 shows a wet road, but it is hard to tell.", None),
    ),
    _rule(
        r"\bnot\s+sure\b",
        Example("nleye", "Image 2 shows a wet road. Not sure, though.", None),
    ),
    _rule(
        r"(?<!\bnot )(?<!\bneither )[«‹][\U000f0000-\U000ffffd][»›]\s*,?\s+or\s+[«‹][\U000f0000-\U000ffffd][»›]",
        Example("mucr", "Option 2 or option 3.", None),
    ),
)

# After the last self-correction, a refusal to choose gives no answer whatever the reply picks elsewhere
# ("... Because both orders are allowed, I cannot determine which is more plausible"); a doubt does unless a statement
# of the answer follows it ("I'm unable to judge whether the update strengthens or weakens it", "Either option 2 or
# option 4 could be the effect"; but "I can't tell whether it is morning from image 1 alone. Image 2 is more
# plausible." answers 2).
_DECIDE = r"(?:determine|tell|judge|decide|say|choose|assess|know)"
_CANNOT = r"\b(?:can\s*not|can't|could\s*not|couldn't|unable\s+to|impossible\s+to|not\s+possible\s+to|no\s+way\s+to)"
_ANY_REF = r"[«‹][\U000f0000-\U000ffffd][»›]"
SENTENCE_END = re.compile(r"[.!?;\n]|,?\s+but\b|$", re.IGNORECASE)
# "which" of the answers: "which is more plausible", "which one", "which of the two", "which label applies"
# (not "which details matter")
_WHICH_ANSWER = (
    rf"which\s+(?:{_ANY_REF}|(?:one|ones|of|is|was|would|could|fits|applies|answer|option|image|picture|hypothesis|label|"
    r"cue|phrase|effect|cause|candidate|panel|score|rating)\b)"
)
REFUSALS = (
    _rule(
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?{_DECIDE}\s+{_WHICH_ANSWER}",
        Example("nleye", "Image 2 looks wet, but I cannot determine which is more plausible.", None),
    ),
    # "I cannot determine a single answer", "no way to pick one option"
    _rule(
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?(?:{_DECIDE}|pick|select|give)\s+(?:a|one|the|any)\s+"
        r"(?:single\s+|clear\s+|definitive\s+|correct\s+|right\s+)?(?:answer|option|choice|image|hypothesis|cause|effect|cue)\b",
        Example("mucr", "I cannot determine a single answer.", None),
    ),
    # "I can't make out the details well enough to choose"
    _rule(
        rf"{_CANNOT}\b[^.!?\n]{{0,80}}?\benough\s+to\s+(?:{_DECIDE}|pick|select|answer)\b",
        Example("nleye", "I can't make out the details well enough to choose.", None),
    ),
    # "None of the options clearly shows the effect" (not "none of the other options")
    _rule(
        r"\bnone\s+of\s+(?:the\s+)?(?:(?:two|four|given|candidate|listed)\s+)?"
        r"(?:options|images|pictures|hypotheses|phrases|candidates|choices|panels)\b(?!\s+(?:other|except|besides|but)\b)",
        Example("mucr", "None of the options shows the effect.", None),
    ),
)
# "None of them can explain it" refuses too, unless the reply has stated its answer before it: then "them" are the other
# options ("3\n\nOptions 1, 2 and 4 show a cat, a cake and a tree; none of them can explain the broken window")
REFUSAL_OF_THE_OTHERS = _rule(
    r"\bnone\s+of\s+them\b(?!\s+(?:other|except|besides|but)\b)",
    Example("mucr", "None of them can explain it.", None),
    Example(
        "mucr", "3\n\nOptions 1, 2 and 4 show a cat, a cake and a tree; none of them can explain the broken window.", 3
    ),
)
DOUBTS = (
    # about the answer: "whether the update ... the hypothesis", "if image 1 is more plausible", "whether it holds"
    # (not "whether it is his car")
    _rule(
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?{_DECIDE}\s+(?:whether|if)\b[^.!?;\n]*?"
        rf"(?:{_ANY_REF}|\b(?:hypothesis|update|inference|plausib\w*|likely|correct|right|true|holds?|better|more|less)\b)",
        Example("label", "I'm unable to judge whether the update strengthens or weakens the hypothesis.", None),
        Example("nleye", "I can't tell whether it is morning from image 1 alone. Image 2 is more plausible.", 2),
    ),
    _rule(
        rf"\beither\s+{_ANY_REF}\s+or\s+{_ANY_REF}",
        Example("mucr", "Either option 2 or option 4 could be the effect.", None),
    ),
    # "It's difficult to say which is intended"
    _rule(
        rf"\b(?:hard|difficult|tough|tricky)\s+to\s+{_DECIDE}\s+{_WHICH_ANSWER}",
        Example("mucr", "Option 3, though it's difficult to say which is intended.", None),
    ),
    # a conditional answer: "It depends on the timing. If ..., about 8; if ..., more like 3"
    _rule(
        r"\b(?:it|that|this|the\s+(?:answer|score|rating))\s+(?:really\s+|all\s+)?depends(?:\s+(?:on|upon)\b|(?=\s*[.,:;!-]))",
        Example("rating", "It depends on the timing. If he just arrived, about 8; if not, more like 3.", None),
    ),
)

# A score's statements: "7/10", "Score: 7", "Rating = 7.5", "The score is 7", "a score of 3".
SCORE_STATEMENTS = (
    _verdict(
        r"{named_pick}",
        Example("rating", "7/10", 7.0),
    ),
    # "Score: 7 → 8": a rating revised
    _verdict(
        r"{reject}\s*→\s*{pick}",
        Example("rating", "Score: 7 → 8", 8.0),
    ),
    # "| Score | 8 |" too
    _verdict(
        r"\b(?:score|rating|rank|plausibility|(?:final\s+)?answer)(?:\s+(?:score|rating))?\s*(?:[:=|→]|\bis\b)\s*(?:n\s*=\s*)?{pick}",
        Example("rating", "Score: 7", 7.0),
        Example("rating", "| Score | 8 |", 8.0),
    ),
    _verdict(
        r"\b(?:score|rating)\s+of\s+{pick}",
        Example("rating", "I'd assign a score of 3.", 3.0),
    ),
)

# A score's other verdicts: "I'd give it a 7", "I rate it 6", "rank this an 8", "Very plausible (7)",
# "A 5 seems fair", "around 5", "this is a 9"; "not a 10" rejects.
_SCORE_WORDS = (
    r"(?:scores?|rating|rate[ds]?|rank(?:ed|ing|s)?|plausibility|(?:give|gave|assign(?:ed)?)\s+(?:it|this|that))"
)
_FILLER = (
    r"(?:[\s:=-]|\b(?:is|of|as|at|with|it|this|that|the|a|an|would|be|i|n|my|final|overall|score|rating|plausibility|inference|hypothesis|image|level|value"
    r"|solid|strong|firm|fair|high|low|moderate|modest|generous|conservative)\b)"
)
SCORE_VERDICTS = (
    # "I'll lower it to 6", "raising my score to 8"
    _verdict(
        r"\b(?:lower|rais|chang|revis|adjust|bump|reduc|increas|decreas|drop|mov|updat)\w*(?:\s+(?:it|this|that|my\s+(?:score|rating|answer)))?(?:\s+(?:down|up))?\s+to\s+(?:a\s+|an\s+)?{pick}",
        Example("rating", "Score: 7. On reflection, I'll lower it to 6.", 6.0),
    ),
    # "I'd settle on a 6"
    _verdict(
        r"\b(?:settle|land)\w*\s+on\s+(?:a\s+|an\s+)?{pick}",
        Example("rating", "I'd settle on a 6.", 6.0),
    ),
    _verdict(
        rf"\b{_SCORE_WORDS}\b{_FILLER}{{{{0,40}}}}?{{pick}}",
        Example("rating", "I'd give it a 7.", 7.0),
        Example("rating", "I rate it 6.", 6.0),
    ),
    _verdict(
        r"\bplausib\w*(?:\s+at\s+all)?\s*\(\s*{pick}\s*\)",
        Example("rating", "Very plausible (7)", 7.0),
    ),
    _verdict(
        r"^\s*(?:a|an)\s+{pick}",
        Example("rating", "A 5 seems fair.", 5.0),
    ),
    # "70% plausible, which corresponds to a 7 on your scale"
    _verdict(
        r"\b(?:corresponds?|corresponding|translates?|equates?|maps?)\s+to\s+(?:a\s+|an\s+)?{pick}",
        Example("rating", "70% plausible, which corresponds to a 7 on your scale.", 7.0),
    ),
    _verdict(
        r"\b(?:around|about|roughly|approximately|maybe|perhaps|probably|so|thus|hence|therefore|say)\s*,?\s+(?:a\s+|an\s+)?{pick}(?=\s*(?:[.,;!)]|$))",
        Example("rating", "Around 5.", 5.0),
    ),
    _verdict(
        r"\b(?:it|this|that)(?:\s+is|'s|\s+would\s+be|\s+deserves)\s+(?:at\s+(?:least|most)\s+)?(?:a|an)\s+{pick}",
        Example("rating", "This is a 9.", 9.0),
    ),
    _verdict(
        r"\bnot\s+(?:a\s+|an\s+)?{reject}",
        Example("rating", "Not a 10. I'd give it a 9.", 9.0),
    ),
)

# A score's own words about the inference, as a share of the scale (the prompt's scale words come first): a rating
# further than JUDGEMENT_TOLERANCE of the scale from them contradicts them ("Score: 9 ... barely plausible").
JUDGEMENTS = {  # share of the scale: the words, separated by |
    0.1: (
        "implausible|not plausible|barely plausible|hardly plausible|not very plausible|unlikely|"
        "very unlikely|highly unlikely|not likely|very implausible|highly implausible"
    ),
    0.85: (
        "very plausible|highly plausible|extremely plausible|very likely|highly likely|almost certain|"
        "almost certainly true|certainly true"
    ),
}
JUDGEMENT_TOLERANCE = 0.4
# Scale words sharing their last word ("between slightly and moderately plausible", "very or highly likely") are
# written out in full, so that the two of them name a range, no rating.
SHARED_HEAD = re.compile(
    r"\b(?P<first>[a-z]+)\s+(?P<glue>and|or|to)\s+(?P<second>[a-z]+)\s+(?P<head>plausible|likely|probable)\b"
)

# A self-correction ("Wait,", "Actually,", "On second thought"): the picks after it restate the answer.
SELF_CORRECTIONS = _rule(
    rf"(?:^|(?<=[.!?;:,-]))\s*(?:(?:no|oh|hmm|um|so|but|and)\s*,?\s+)?(?:{_CORRECTION_WORDS})\b",
    Example("nleye", "Image 1. Wait, image 2.", 2),
    Example("rating", "Score: 7. Revised score: 4", 4.0),
    flags=_FLAGS | re.MULTILINE,
)


# An option text named in passing names no option: as part of describing an image ("The cause image shows children at
# a birthday party", "In the effect image there is broken glass") or as the consequence ("..., which led to the broken
# glass", "the effect is broken glass"), in the words of its clause before it (the clause ends at a sentence's end or
# at ", and", ", which", ...), unless the clause names the answer's role ("the cue that explains the effect is ...",
# "the fall caused by the slippery floor") or the text goes on to say so ("heavy rain, which explains the flood").
CLAUSE_END = re.compile(r"[.;!?\n]|,\s+(?:and|but|so|which|while|whereas|because|since|as)\b|\s-\s", re.IGNORECASE)
IN_PASSING = _rule(
    r"\b(?:shows?|showing|shown|depicts?|depicting|depicted|features?|featuring|displays?|displaying|portrays?|portraying)\b"
    r"|\b(?:in|on)\s+the\s+(?:\w+\s+){0,2}?(?:image|picture|photo|panel|scene)\b|\bthere\s+(?:is|are|was|were)\b"
    r"|\bwe\s+(?:can\s+)?see\b"
    r"|\b(?:led|leads|leading)\s+(?:\w+\s+)?to\b|\bresult(?:s|ed|ing)?\s+in\b|\bcausing\b|\bhence\b"
    r"|\b(?:effect|result|consequence|outcome)s?\b[^«‹]{0,60}?(?:\b(?:is|was|are|were)\b|:)",
    Example("cue", "The cause image shows children at a birthday party. The cue is heavy rain.", 3),
    Example("cue", "In the effect image there is broken glass.", None),
)
ROLE_NAMED = re.compile(
    r"\b(?:cue|link|linking|links|connection|connects|phrase|answer|explains?|explanation|explaining)\b"
    r"|\b(?:caused|explained|triggered)\s+by\b|\b(?:due|owing|thanks)\s+to\b|\bbecause\s+of\b",
    re.IGNORECASE,
)
ROLE_AFTER = re.compile(
    r"\s*,?\s*(?:(?:which|that|is\s+what)\s+)?(?:(?:clearly|directly|best)\s+)?"
    r"(?:explains?|links?|connects?|accounts?\s+for|is\s+the\s+(?:cue|link|answer|key|reason|connection))\b",
    re.IGNORECASE,
)
