"""The rule tables: statements, verdicts, refusals and doubts, as patterns over a reply's marked mentions."""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.mentions import _FLAGS, _LIST_HEAD, _NAMED_REF, _REF


def _verdicts(*patterns: str) -> tuple[re.Pattern, ...]:
    """Compile verdict patterns: ``{pick}``/``{reject}`` any mention, ``{named_pick}`` a named one."""
    fill = {  # a pick heads no list: "I would say 1 and 3 are equally valid" picks neither
        "pick": _REF.format(name="pick") + _LIST_HEAD,
        "reject": _REF.format(name="reject"),
        "named_pick": _NAMED_REF.format(name="pick"),
    }
    return tuple(re.compile(pattern.format(**fill), _FLAGS | re.MULTILINE) for pattern in patterns)


_ADVERBS = (
    r"(?:\s+(?:clearly|definitely|probably|likely|much|far|even|also|indeed|therefore|thus|actually|certainly|"
    r"somewhat|slightly|a\s+bit|still|the))*"
)
_COPULA = (
    rf"(?:is|are|was|seems?|looks?|appears?|would\s+be|could\s+be|must\s+be|should\s+be|remains?|makes?){_ADVERBS}"
)
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
STATEMENTS = _verdicts(
    rf"\b(?:{_CUE})\s*(?:is|(?:would|should|must)\s+be)?(?:\s+(?:(?:shown|depicted|pictured|seen)\s+)?in)?\s*[:=→-]?\s*{_ARTICLE}{{pick}}",
    # "→ 3" ending a table or a list of checks
    r"→\s*{pick}(?=\s*(?:[.!;]|$))",
    # "Option 3 shows curtains on fire, which is the effect."
    r"{pick}[^.;\n]{{0,80}}?,\s*which\s+(?:is|would\s+be)\s+the\s+(?:answer|effect|cause|cue|correct\s+one)(?=\s*(?:[.!;]|$))",
    rf"\b{_QUALITY_CUE}\s*(?:is|would\s+be)\s*[:=-]?\s*{_ARTICLE}(?:one\s+)?{{pick}}",
    rf"(?:^|(?<=[.!?;]))\s*(?:the\s+)?{_QUALITY_CUE}\s*[:=-]\s*{_ARTICLE}{{pick}}",
    # "2 is more plausible", "Option 3 is the most likely cause", "1 is closer", "image 1 makes more sense"
    # (not "image 1 is more likely to be in the morning": a property, not the answer)
    # "The second picture, the first hypothesis, is the more plausible one"
    rf"{{pick}}\s*[,-]?\s*{_COPULA}\s+{_ARTICLE}(?:{_MORE}|correct|the\s+(?:answer|effect|cause|cue|link))\b(?!\s+to\s+(?:be|have)\b)",
    # "Therefore, Option 3 shows the effect."
    r"{pick}\s+(?:shows|depicts|represents|illustrates|is)\s+the\s+(?:effect|cause|cue)(?=\s*(?:[.!;,]|$))",
    # "I find the rightmost panel more plausible", "I consider image 2 (to be) the more plausible one"
    rf"\b(?:find|consider|deem|judge)\s+{_ARTICLE}{{pick}}\s+(?:to\s+be\s+)?{_ARTICLE}(?:{_MORE})\b",
    # "1 is less plausible than 2"; "2 is more plausible than 1"
    rf"{{reject}}\s*{_COPULA}\s+(?:{_LESS})\s+than\s+(?:that\s+of\s+)?{_ARTICLE}{{pick}}",
    rf"{{pick}}\s*{_COPULA}\s+{_ARTICLE}(?:{_MORE})\s+than\s+{_ARTICLE}{{reject}}",
    # "Middle image: more plausible", "Image 2 → more plausible"
    rf"{{pick}}\s*[:→-]\s*(?:{_MORE})\b",
    # "not 1 but 2", "Not option 2, which shows a dry road, but option 4"
    rf"\bnot\s+{_ARTICLE}{{reject}}[^.;\n]{{{{0,80}}}}?\bbut\s+(?:rather\s+)?{_ARTICLE}{{pick}}",
    # the answer's role, then its option: "The effect of the heavy rain in the cause image is Option 3", "The cause is
    # the child throwing the ball shown in Option 1, ...", "The effect image shows the broken vase, which is Option 3."
    # (not "the effect could be in option 2 or 4", "the cause is not in option 1")
    r"\b(?:effect|cause|cue)\b(?:(?!\b(?:could|might|may|perhaps|possibly|if|not|no|or|n't)\b)[^.;:?!\n]){{0,100}}?"
    rf"(?:\bis|\b(?:shown|depicted|pictured|seen)\s+in|,\s*which\s+is)\s+{_ARTICLE}{{named_pick}}(?=\s*(?:[.!;,:]|$))",
    # "I'd go with 2", "I choose image 1", "I lean towards 1", "it must be option 2", "I'll change my answer to 2"
    rf"\b(?:choose|chose|select|pick|go\s+with|going\s+with|settle\s+on|opt\s+for|lean(?:ing)?{_ADVERBS}\s+towards?|must\s+be"
    rf"|(?:chang|switch|revis)\w*(?:\s+(?:my\s+answer|it))?\s+to"
    rf"|(?:i'd|i\s+would|i'll|i\s+will|i'm\s+going\s+to)\s+say|classif(?:y|ied)(?:\s+(?:it|this|the\s+update))?\s+as)\s*,?\s+(?:with\s+)?{_ARTICLE}{{pick}}",
    # "the right one better matches the context", "option 2 fits best", "image 2 - the couple cutting the cake - is the
    # one that fits the wedding best", "The right image, showing the girl with a cast, better explains the crutches"
    rf"{{pick}}{_APPOSITIVE}\s+(?:(?:better|best)\s+(?:match|fit|suit|explain)\w*|(?:matches|fits|suits)\s+(?:better|best))\b",
    rf"{{pick}}{_APPOSITIVE}\s+is\s+the\s+one\s+(?:that|which)\s+(?:(?:better|best)\s+\w+|\w+(?:\s+[^\W\d_]+){{{{0,4}}}}\s+(?:better|best))\b",
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
VERDICTS = _verdicts(
    # "Less plausible: Image 1", "Right image: less plausible"
    rf"\b(?:{_LESS}|implausible|unlikely|improbable)\s*:\s*{_ARTICLE}{{reject}}",
    rf"{{reject}}\s*[:→-]\s*(?:{_LESS}|implausible|unlikely|improbable)\b",
    # "Image 2 is implausible", "Option 2 is not the effect", "Image 1 does not make sense"
    rf"{{reject}}\s*(?:{_COPULA}\s+(?:{_WORSE})|{_NEGATED_VERB})",
    # "not a strengthener", "neither 1 nor 2", "rather than 1", "instead of 1", "doesn't strengthen"
    rf"(?:\b(?:not|neither|nor|rather\s+than|instead\s+of)|n't)\s+{_ARTICLE}{{reject}}",
    # "Probably 2, but I'm not sure": a probable pick is a pick ("maybe 3?" is a guess, no pick)
    rf"\b(?:most\s+)?(?:probably|likely)\s*,?\s+{_ARTICLE}{{pick}}(?=\s*(?:[.,;!)]|$))",
    # "options 2 and 4 both show water, but only option 4 ..."
    rf"\bbut\s+only\s+{_ARTICLE}{{pick}}",
    # a yes or no for an option (a table row, a checklist): "| 2 | Yes |", "Option 3 - yes, ...", "Option 1: ✅"
    # (a check mark without a separator on the same line: "Weakener ❌ / Strengthener ✅")
    r"{pick}(?:\s*[|:→-]\s*(?:yes|true|correct|high|higher)(?=\s*(?:[|.,;!]|$))"
    r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✓✔✅☑])",
    r"{reject}(?:\s*[|:→-]\s*(?:no|false|incorrect|low|lower)(?=\s*(?:[|.,;!]|$))"
    r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✗✘❌☒])",
    r"(?:^|(?<=[|]))\s*[✓✔✅☑]\s*{pick}",  # "✅ Image 2"
    r"^\s*\[[xX✓]\]\s*{pick}",  # a checklist: "- [x] 3. slippery floor"
    r"^\s*\[\s\]\s*{reject}",
    # a table row of an option whose last cell is a check mark: "| 3 | A man lifting weights | ✓ |"
    r"^\s*\|?\s*{pick}\s*\|[^\n]*\|\s*[✓✔✅☑]\s*\|?\s*$",
    r"^\s*\|?\s*{reject}\s*\|[^\n]*\|\s*[✗✘❌☒]\s*\|?\s*$",
    r"(?:^|(?<=[|]))\s*[✗✘❌☒]\s*{reject}",
    # a ranking: "2 > 1", "1 < 2"
    r"{pick}\s*>\s*{reject}",
    r"{reject}\s*<\s*{pick}",
    # "I would not pick image 2", "I wouldn't choose option 1", "never go with 3": a choice declined
    r"(?:\b(?:not|never)|n't)\s+(?:choose|chose|select|pick|go\s+with|opt\s+for)\s+(?:the\s+)?{reject}",
    # "not 1 or 2": the negation holds for the whole list
    rf"(?:\b(?:not|neither)|n't)\s+{_ARTICLE}[«‹][\U000f0000-\U000ffffd][»›]\s*,?\s+(?:or|nor|and)\s+{_ARTICLE}{{reject}}",
    # "No - weakener.", "No, image 2." after a question
    rf"(?:^|(?<=[.!?;]))\s*no\s*[-,:]\s*(?:it's\s+|it\s+is\s+)?{_ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
    # "..., so 2." / "Therefore, weakener."
    rf"\b(?:so|thus|hence|therefore)\s*[,:]?\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
    # "it is a weakener", "it's the earthquake", "this is clearly option 2"
    rf"\b(?:it|this|that)(?:\s+is|'s)(?:\s+(?:clearly|definitely|probably|actually))?\s+{_ARTICLE}{{named_pick}}",
    # "I think it's 3.", "It's 4 - the dog ..."
    rf"\b(?:it|this|that)(?:\s+is|'s)\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!;,:]|$)|\s+-\s)",
    # the answer a self-correction gives: "Actually, no - it's 2", "Wait, option 3", "actually, strengthener"
    rf"\b(?:{_CORRECTION_WORDS})\s*[,:-]?\s*(?:(?:no|yes)\s*[,:-]?\s*)?(?:(?:it's|it\s+is|make\s+(?:it|that)|is)\s+)?{_ARTICLE}{{pick}}"
    r"(?=\s*(?:[.!;,)]|$)|\s+-\s)",
    # "which might seem to strengthen it", "could be read as a strengthener": a concession, not the verdict
    rf"\b(?:might|may|could)\s+(?:seem|appear|look|be\s+(?:read|seen|considered|interpreted|viewed|taken))\s+(?:to\s+be\s+|to\s+|like\s+|as\s+)?{_ARTICLE}{{reject}}",
)

# Answers standing alone: at the start of a line (or after ";") before punctuation ("2.", "Option 3: ...",
# "2 (the right image)", "Weakener. The ..."), or as a whole sentence ("... ? Weakener.").
ALONE = _verdicts(
    r"^[ \t]*{pick}(?=\s*(?:[.:)!,;(-]|$))",
    r"(?:(?<=[.!?;])|^)\s*{pick}\s*(?=[.!;]|$)",  # "Strengthener?" asks, it does not answer
)

# A label's own statement: "the update weakens the hypothesis".
LABEL_STATEMENTS = _verdicts(
    r"{named_pick}\s+(?:the|this|that|our)\s+(?:hypothesis|inference|claim|conclusion|idea|notion|assumption)\b"
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
_HYPOTHESIS_NOUN = (
    r"(?:the|this|that|her|his|their|our)\s+(?:idea|notion|assumption|hypothesis|inference|claim|conclusion)\b"
)
LABEL_EFFECTS = {
    "strengthen": (
        rf"makes?\s+{_HYPOTHESIS_NOUN}\s+(?:much\s+|even\s+|far\s+)?more\s+(?:likely|plausible|probable|credible)"
        rf"|makes?\s+it\s+(?:much\s+|even\s+|far\s+)?more\s+(?:likely|plausible|probable)\s+that\s+{_HYPOTHESIS_NOUN}"
        rf"|(?:increases?|raises?)\s+the\s+(?:likelihood|probability|plausibility)\s+(?:of|that)\b"
    ),
    "weaken": (
        rf"makes?\s+{_HYPOTHESIS_NOUN}\s+(?:much\s+|even\s+|far\s+)?(?:less\s+(?:likely|plausible|probable|credible)"
        r"|unlikely|implausible|improbable)"
        rf"|makes?\s+it\s+(?:much\s+|even\s+|far\s+)?less\s+(?:likely|plausible|probable)\s+that\s+{_HYPOTHESIS_NOUN}"
        rf"|(?:decreases?|lowers?|reduces?)\s+the\s+(?:likelihood|probability|plausibility)\s+(?:of|that)\b"
    ),
}
# A concession names a label without choosing it: "although it might strengthen ...", "one could argue it weakens".
LABEL_CONCESSIONS = _verdicts(r"\b(?:might|may|could|although|though|even\s+if)\b[^.;,\n]{{0,60}}?{reject}")

# Headings of a description, "Image 1: a man ... Image 2: a woman ...": answers standing alone among them enumerate.
HEADINGS = _verdicts(r"(?:^|(?<=[.!?;]))\s*{pick}\s*:")[0]
_QUESTION = re.compile(r"[^.!?\n]*\?")
# A concession: "Although image 1 is more plausible at first glance, ...", "At first, 1 seems better, but ...".
_CONCESSION = re.compile(
    r"(?:^|(?<=[.!?;:]))\s*(?:although|though|even\s+though|even\s+if|while|whereas)\b[^.;,\n]*"  # sentence-initial
    r"|\b(?:at\s+first(?:\s+(?:glance|sight))?|initially)\b[^.;\n]*?(?=[.;\n]|\bbut\b|$)",
    _FLAGS,
)

# Hedges: without a pick, a reply that says these chooses nothing even if it names one option.
HEDGES = tuple(
    re.compile(pattern, _FLAGS)
    for pattern in (
        r"\b(?:both|either)\b[^.;\n]*\b(?:could|can|plausible|possible|likely|fit|work|valid|reasonable)\b",
        r"\bequally\b",
        r"\b(?:can\s*not|can't|unable\s+to|impossible\s+to|hard\s+to|difficult\s+to)\s+(?:tell|determine|decide|say|choose)\b",
        r"\bnot\s+sure\b",
        r"(?<!\bnot )(?<!\bneither )[«‹][\U000f0000-\U000ffffd][»›]\s*,?\s+or\s+[«‹][\U000f0000-\U000ffffd][»›]",
    )
)

# After the last self-correction, a refusal to choose gives no answer whatever the reply picks elsewhere
# ("... Because both orders are allowed, I cannot determine which is more plausible"); a doubt does unless a statement
# of the answer follows it ("I'm unable to judge whether the update strengthens or weakens it", "Either option 2 or
# option 4 could be the effect"; but "I can't tell whether it is morning from image 1 alone. Image 2 is more
# plausible." answers 2).
_DECIDE = r"(?:determine|tell|judge|decide|say|choose|assess|know)"
_CANNOT = r"\b(?:can\s*not|can't|could\s*not|couldn't|unable\s+to|impossible\s+to|not\s+possible\s+to|no\s+way\s+to)"
_ANY_REF = r"[«‹][\U000f0000-\U000ffffd][»›]"
_SENTENCE_END = re.compile(r"[.!?;\n]|,?\s+but\b|$", re.IGNORECASE)
# "which" of the answers: "which is more plausible", "which one", "which of the two", "which label applies"
# (not "which details matter")
_WHICH_ANSWER = (
    rf"which\s+(?:{_ANY_REF}|(?:one|ones|of|is|was|would|could|fits|applies|answer|option|image|picture|hypothesis|label|"
    r"cue|phrase|effect|cause|candidate|panel|score|rating)\b)"
)
REFUSALS = tuple(
    re.compile(pattern, _FLAGS)
    for pattern in (
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?{_DECIDE}\s+{_WHICH_ANSWER}",
        # "I cannot determine a single answer", "no way to pick one option"
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?(?:{_DECIDE}|pick|select|give)\s+(?:a|one|the|any)\s+"
        r"(?:single\s+|clear\s+|definitive\s+|correct\s+|right\s+)?(?:answer|option|choice|image|hypothesis|cause|effect|cue)\b",
        # "I can't make out the details well enough to choose"
        rf"{_CANNOT}\b[^.!?\n]{{0,80}}?\benough\s+to\s+(?:{_DECIDE}|pick|select|answer)\b",
        # "None of the options clearly shows the effect" (not "none of the other options")
        r"\bnone\s+of\s+(?:the\s+)?(?:(?:two|four|given|candidate|listed)\s+)?"
        r"(?:options|images|pictures|hypotheses|phrases|candidates|choices|panels)\b(?!\s+(?:other|except|besides|but)\b)",
    )
)
# "None of them can explain it" refuses too, unless the reply has stated its answer before it: then "them" are the other
# options ("3\n\nOptions 1, 2 and 4 show a cat, a cake and a tree; none of them can explain the broken window")
REFUSAL_OF_THE_OTHERS = re.compile(r"\bnone\s+of\s+them\b(?!\s+(?:other|except|besides|but)\b)", _FLAGS)
DOUBTS = (
    # about the answer: "whether the update ... the hypothesis", "if image 1 is more plausible", "whether it holds"
    # (not "whether it is his car")
    re.compile(
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?{_DECIDE}\s+(?:whether|if)\b[^.!?;\n]*?"
        rf"(?:{_ANY_REF}|\b(?:hypothesis|update|inference|plausib\w*|likely|correct|right|true|holds?|better|more|less)\b)",
        _FLAGS,
    ),
    re.compile(rf"\beither\s+{_ANY_REF}\s+or\s+{_ANY_REF}", _FLAGS),
    # "It's difficult to say which is intended"
    re.compile(rf"\b(?:hard|difficult|tough|tricky)\s+to\s+{_DECIDE}\s+{_WHICH_ANSWER}", _FLAGS),
    # a conditional answer: "It depends on the timing. If ..., about 8; if ..., more like 3"
    re.compile(
        r"\b(?:it|that|this|the\s+(?:answer|score|rating))\s+(?:really\s+|all\s+)?depends(?:\s+(?:on|upon)\b|(?=\s*[.,:;!-]))",
        _FLAGS,
    ),
)

# A score's statements: "7/10", "Score: 7", "Rating = 7.5", "The score is 7", "a score of 3".
SCORE_STATEMENTS = _verdicts(
    r"{named_pick}",
    r"{reject}\s*→\s*{pick}",  # "Score: 7 → 8": a rating revised
    # "| Score | 8 |" too
    r"\b(?:score|rating|rank|plausibility|(?:final\s+)?answer)(?:\s+(?:score|rating))?\s*(?:[:=|→]|\bis\b)\s*(?:n\s*=\s*)?{pick}",
    r"\b(?:score|rating)\s+of\s+{pick}",
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
SCORE_VERDICTS = _verdicts(
    # "I'll lower it to 6", "raising my score to 8"
    r"\b(?:lower|rais|chang|revis|adjust|bump|reduc|increas|decreas|drop|mov|updat)\w*(?:\s+(?:it|this|that|my\s+(?:score|rating|answer)))?(?:\s+(?:down|up))?\s+to\s+(?:a\s+|an\s+)?{pick}",
    r"\b(?:settle|land)\w*\s+on\s+(?:a\s+|an\s+)?{pick}",  # "I'd settle on a 6"
    rf"\b{_SCORE_WORDS}\b{_FILLER}{{{{0,40}}}}?{{pick}}",
    r"\bplausib\w*(?:\s+at\s+all)?\s*\(\s*{pick}\s*\)",
    r"^\s*(?:a|an)\s+{pick}",
    # "70% plausible, which corresponds to a 7 on your scale"
    r"\b(?:corresponds?|corresponding|translates?|equates?|maps?)\s+to\s+(?:a\s+|an\s+)?{pick}",
    r"\b(?:around|about|roughly|approximately|maybe|perhaps|probably|so|thus|hence|therefore|say)\s*,?\s+(?:a\s+|an\s+)?{pick}(?=\s*(?:[.,;!)]|$))",
    r"\b(?:it|this|that)(?:\s+is|'s|\s+would\s+be|\s+deserves)\s+(?:at\s+(?:least|most)\s+)?(?:a|an)\s+{pick}",
    r"\bnot\s+(?:a\s+|an\s+)?{reject}",
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
_SHARED_HEAD = re.compile(
    r"\b(?P<first>[a-z]+)\s+(?P<glue>and|or|to)\s+(?P<second>[a-z]+)\s+(?P<head>plausible|likely|probable)\b"
)

# A self-correction ("Wait,", "Actually,", "On second thought"): the picks after it restate the answer.
SELF_CORRECTIONS = re.compile(
    rf"(?:^|(?<=[.!?;:,-]))\s*(?:(?:no|oh|hmm|um|so|but|and)\s*,?\s+)?(?:{_CORRECTION_WORDS})\b",
    _FLAGS | re.MULTILINE,
)


# An option text named in passing names no option: as part of describing an image ("The cause image shows children at
# a birthday party", "In the effect image there is broken glass") or as the consequence ("..., which led to the broken
# glass", "the effect is broken glass"), in the words of its clause before it (the clause ends at a sentence's end or
# at ", and", ", which", ...), unless the clause names the answer's role ("the cue that explains the effect is ...",
# "the fall caused by the slippery floor") or the text goes on to say so ("heavy rain, which explains the flood").
_CLAUSE_END = re.compile(r"[.;!?\n]|,\s+(?:and|but|so|which|while|whereas|because|since|as)\b|\s-\s", re.IGNORECASE)
IN_PASSING = re.compile(
    r"\b(?:shows?|showing|shown|depicts?|depicting|depicted|features?|featuring|displays?|displaying|portrays?|portraying)\b"
    r"|\b(?:in|on)\s+the\s+(?:\w+\s+){0,2}?(?:image|picture|photo|panel|scene)\b|\bthere\s+(?:is|are|was|were)\b"
    r"|\bwe\s+(?:can\s+)?see\b"
    r"|\b(?:led|leads|leading)\s+(?:\w+\s+)?to\b|\bresult(?:s|ed|ing)?\s+in\b|\bcausing\b|\bhence\b"
    r"|\b(?:effect|result|consequence|outcome)s?\b[^«‹]{0,60}?(?:\b(?:is|was|are|were)\b|:)",
    re.IGNORECASE,
)
_ROLE_NAMED = re.compile(
    r"\b(?:cue|link|linking|links|connection|connects|phrase|answer|explains?|explanation|explaining)\b"
    r"|\b(?:caused|explained|triggered)\s+by\b|\b(?:due|owing|thanks)\s+to\b|\bbecause\s+of\b",
    re.IGNORECASE,
)
_ROLE_AFTER = re.compile(
    r"\s*,?\s*(?:(?:which|that|is\s+what)\s+)?(?:(?:clearly|directly|best)\s+)?"
    r"(?:explains?|links?|connects?|accounts?\s+for|is\s+the\s+(?:cue|link|answer|key|reason|connection))\b",
    re.IGNORECASE,
)
