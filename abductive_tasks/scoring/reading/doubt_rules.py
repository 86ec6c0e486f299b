"""The refusals, hedges and doubts: what makes a reply choose nothing, as patterns over its marked mentions.

Each rule carries the example replies it exists for; tests/scoring/test_rule_examples.py reads every one (through
``rules``, which re-exports the tables).
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.mentions import ANSWER_HEADING, ANY_MENTION, BARE_MENTION
from abductive_tasks.scoring.reading.table import Example, rule

__all__ = ["DOUBTS", "HEDGES", "REFUSALS", "REFUSAL_OF_THE_OTHERS", "ROLES_PAIRED", "ROLE_DENIED", "SENTENCE_END"]


# the option after "but" chosen by a statement ending its clause ("..., but Option 3 comes closest: ...", "..., but
# Option 2 (...) seems most likely."), not merely named or described ("..., but option 2 shows a bathtub", "..., but
# Option 3 comes closest, though Option 2 also comes close. I can't choose.": round 50's review)
_CHOSEN_AFTER_BUT = (
    r",?\s+but\s+[^.;:!?\n«‹]*?" + ANY_MENTION + r"(?:\s*\([^()\n]{1,80}\))?\s+"
    r"(?:(?:comes|came|gets)\s+(?:the\s+)?(?:closest|nearest)"
    r"|(?:seems|looks|appears|is)\s+(?:the\s+)?(?:most\s+(?:likely|plausible)|likeliest|closest|best)"
    # with its noun: "..., but option 2 (...) is the closest cause." (BH's first contact)
    r"(?:\s+(?:cause|effect|match|fit|one|option|answer|candidate))?"
    r"|is\s+(?:the\s+)?answer)"
    r"(?=\s*(?:[.:!\n—–]|$))"
)
# Hedges: without a pick, a reply that says these chooses nothing even if it names one option.
HEDGES = (
    rule(
        r"\b(?:both|either)\b[^.;\n]*\b(?:could|can|plausible|possible|likely|fit|work|valid|reasonable)\b",
        Example("nleye", "Either could be plausible; image 2 shows the wet road.", None),
    ),
    rule(
        r"\bequally\b",
        Example("nleye", "Image 2 shows the wet road, but the dry road fits equally.", None),
    ),
    rule(
        r"\b(?:can\s*not|can't|unable\s+to|impossible\s+to|hard\s+to|difficult\s+to)\s+(?:tell|determine|decide|say|choose)\b",
        Example("nleye", "Image 2 shows a wet road, but it is hard to tell.", None),
    ),
    rule(
        r"\bnot\s+sure\b",
        Example("nleye", "Image 2 shows a wet road. Not sure, though.", None),
    ),
    # (not two denied together after "neither does" or "nor does": "Option 1 does not show the cause; neither does
    # option 2 or option 4. The remaining candidate, ..., is the cause ...", BR's first contact, unread; verdict_rules)
    rule(
        rf"(?<!\bnot )(?<!\bneither )(?<!\bneither does )(?<!\bnor does )(?<!\bneither do )(?<!\bnor do )"
        rf"{ANY_MENTION}\s*,?\s+or\s+{ANY_MENTION}",
        Example("mucr", "Option 2 or option 3.", None),
    ),
    # "Option 3 shows the effect, maybe.", "... Or maybe Option 1"
    rule(
        r"[,;]\s*(?:maybe|perhaps)\s*(?:[.!?;]|$)|\bor\s+(?:maybe|perhaps)\b",
        Example("mucr", "Option 3 shows the effect, maybe.", None),
    ),
    # an answer the reply would not say, ending its clause: "I would not say image 1." (round 69, no batch's: read 1;
    # the French "Je ne dirais pas l'image 1.", glossary.PHRASES; not "I would not say image 1; image 2 is more
    # plausible.", a pick after it, nor "I would say image 1.")
    rule(
        r"\b(?:I(?:\s+would|'d)\s+not\s+say|I\s+wouldn't\s+say)\s+(?:that\s+)?(?:(?:the|an?)\s+)?"
        rf"{ANY_MENTION}\s*(?:[.;,!\n]|$)",
        Example("nleye", "I would not say image 1.", None),
        Example("nleye", "I would not say image 1; image 2 is more plausible.", 2),
    ),
    # "..., which is what option 3 might be showing"
    rule(
        rf"{ANY_MENTION}\s+(?:might|may|could)\s+(?:be\s+)?(?:show|depict|illustrat|represent)\w*",
        Example("mucr", "This could easily lead to a fire, which is what option 3 might be showing.", None),
    ),
    # the reply's own refusal, an answer named in its reason: "I'm not able to use the scene graph because it only
    # contains the number 1." (BI's first contact, read 1; not "I cannot tell for sure since both images are dark, but
    # I'd go with 3", where "but" goes on to a pick, nor a refusal to be sure)
    rule(
        r"\bI(?:(?:'m|\s+am)\s+(?:not\s+able|unable)\s+to|\s+(?:can\s*not|can't|could\s*not|couldn't))\s+(?!be\b)"
        r"(?=\w)[^.;!?\n«‹]*?\b(?:because|since|as)\b(?:(?!\bbut\b)[^.;!?\n])*?" + ANY_MENTION,
        Example("mucr", "I'm not able to use the scene graph because it only contains the number 1.", None),
        Example("nleye", "I can't compare them, since image 2 did not load.", None),
    ),
    # "neither" of the answers said to fit, as "none of the options" is: "Neither hypothesis follows from the context.
    # ... while the first hypothesis shows a beach volleyball game and the second ..." (BJ's first contact, read 1); not
    # "neither X nor Y" (verdict_rules: "Neither the car nor the road is the link; it's speeding."), nor where the
    # sentence goes on to a choice after "but" ("Neither hypothesis is perfect, but hypothesis 2 comes closest."), nor
    # where it does not open its sentence ("Not Option 1 and not Option 2: neither shows anything that would lead to
    # ...", the options it rejects)
    rule(
        r"(?:(?<![\s\S])|(?<=[.!?\n])|(?<=[.!?]\s))\s*neither\s+(?:one\b|(?:of\s+(?:the\s+|these\s+)?(?:(?:two|four|given|candidate|listed)\s+)?)?"
        r"(?:options?|images?|pictures?|hypotheses|hypothesis|phrases?|candidates?|choices?|panels?|scenarios?)\b"
        r"|of\s+them\b|(?=(?:is|seems|looks|fits|follows|matches|works|makes|explains|shows)\b))"
        r"(?![^.;:!?\n]*\bnor\b)(?![^.;:!?\n]*?" + _CHOSEN_AFTER_BUT + ")",
        Example("nleye", "Neither hypothesis follows from the context; the first hypothesis shows a beach game.", None),
        Example("nleye", "Neither of the two images fits the context, though image 2 is a party.", None),
    ),
)

# After the last self-correction, a refusal to choose gives no answer whatever the reply picks elsewhere
# ("... Because both orders are allowed, I cannot determine which is more plausible"); a doubt does unless a statement
# of the answer follows it ("I'm unable to judge whether the update strengthens or weakens it", "Either option 2 or
# option 4 could be the effect"; but "I can't tell whether it is morning from image 1 alone. Image 2 is more
# plausible." answers 2).
# ("identify": "I can't identify the causal cue; the first image is too dark ...", BP's first contact, read 1)
_DECIDE = r"(?:determine|tell|judge|decide|say|choose|assess|know|identify)"
_CANNOT = r"\b(?:can\s*not|can't|could\s*not|couldn't|unable\s+to|impossible\s+to|not\s+possible\s+to|no\s+way\s+to)"
_ANY_REF = ANY_MENTION
# (and a dash before the answer settled on: "It's either 2 or 4, hard to tell from these small pictures — I'll say 2,
# because ..." (BL's first contact, unread), as an answer heading's two answers, "Answer: 2 or 4 ... – I'll pick 2")
SENTENCE_END = re.compile(
    r"[.!?;\n]|,?\s+but\b|\s[—–-](?=\s*(?:so\s+)?(?:I'?ll|I\s+will|let'?s|let\s+us)\s+(?:just\s+)?"
    r"(?:say|pick|choose|go\s+with|settle\s+on)\b)|$",
    re.IGNORECASE,
)
# "which" of the answers: "which is more plausible", "which one", "which of the two", "which label applies"
# (not "which details matter")
_WHICH_ANSWER = (
    rf"which\s+(?:{_ANY_REF}|(?:one|ones|of|is|was|would|could|fits|applies|answer|option|image|picture|hypothesis|label|"
    r"cue|phrase|effect|cause|candidate|panel|score|rating)\b)"
)
# a refusal qualified (fully, clearly, with certainty), before a choice in its own sentence after "but": no refusal
_NOT_QUALIFIED_BEFORE_A_CHOICE = (
    r"(?![^.;:!?\n]*?\b(?:fully|definitively|completely|entirely|conclusively|clearly|with\s+certainty|for\s+certain|"
    r"for\s+sure)\b"
    r"[^.;:!?\n]*?" + _CHOSEN_AFTER_BUT + ")"
)
# a few words between a condition and its answer: "if ..., I'd rate it 8", "if ..., only 2"
_FEW_WORDS = r"(?:[^\W\d_][\w']*\s+){0,4}?"
_HEADING = ANSWER_HEADING
REFUSALS = (
    rule(
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?{_DECIDE}\s+{_WHICH_ANSWER}",
        Example("nleye", "Image 2 looks wet, but I cannot determine which is more plausible.", None),
    ),
    # "I cannot determine a single answer", "no way to pick one option" (not qualified, before a choice the sentence
    # goes on to: "I cannot fully determine the cause from this image, but Option 2 (...) seems most likely.", BE's
    # first contact); "I can't identify the causal cue; the first image is too dark to see what the car is doing." (BP's
    # first contact, read 1: the car named in the reason; not the given image, "I can't identify the cause image's
    # details")
    rule(
        rf"{_CANNOT}\s+{_NOT_QUALIFIED_BEFORE_A_CHOICE}(?:\w+\s+){{0,2}}?(?:{_DECIDE}|pick|select|give)\s+(?:a|one|the|any)\s+"
        r"(?:single\s+|clear\s+|definitive\s+|correct\s+|right\s+|causal\s+)?"
        r"(?:answer|option|choice|image|hypothesis|cause|effect|cue)\b(?!\s*(?:image|picture|'s)\b)",
        Example("mucr", "I cannot determine a single answer.", None),
        Example("mucr", "I cannot determine the cause with certainty, and Option 2 seems most likely.", None),
        Example("cue", "I can't identify the causal cue; the first image is too dark to see the heavy rain.", None),
    ),
    # "I can't make out the details well enough to choose"
    rule(
        rf"{_CANNOT}\b[^.!?\n]{{0,80}}?\benough\s+to\s+(?:{_DECIDE}|pick|select|answer)\b",
        Example("nleye", "I can't make out the details well enough to choose.", None),
    ),
    # a choice declined in so many words: "..., but honestly 2 is just as likely, so I can't pick one.", "I'll go with
    # neither to be safe." (AT's first contact, read 1 each; not "I can't pick one without ...")
    rule(
        rf"{_CANNOT}\s+(?:really\s+)?(?:pick|choose|select|decide\s+on)\s+(?:just\s+)?(?:one|either(?:\s+one)?|between\s+them)"
        r"(?=\s*(?:[.!;\n]|$))"
        # (not "neither 1 nor 3, but 2")
        r"|\b(?:i'll|i\s+will|i'd|i\s+would|i)\s+(?:go\s+with|choose|pick|select|opt\s+for|answer)\s+neither\b"
        r"(?!\s*(?:the\s+)?[«‹])",
        Example(
            "nleye",
            "I would say 1 is slightly more plausible, but honestly 2 is just as likely, so I can't pick one.",
            None,
        ),
        Example(
            "mucr",
            "Option 1 (ticket) is more likely than Option 4 (crash), but both fit the scene graph. I'll go with "
            "neither.",
            None,
        ),
    ),
    # "None of the options clearly shows the effect" (not "none of the other options"; nor where none is perfect and
    # the sentence goes on to one: "None of the options is a perfect match, but Option 3 comes closest: ...", BF's first
    # contact), nor conceded after "though" where none is perfect ("Option 1 seems closest, though none of the options
    # is a perfect match for the spilled bag of marbles.": BU's first contact, unread)
    rule(
        r"(?:(?<!\bthough\s)(?<!\balthough\s)|(?!none\s+of\s+(?:the\s+)?\w+\s+(?:is|are|seems?)\s+(?:a\s+|an\s+)?"
        r"(?:perfect|exact|ideal)\b))"
        r"\bnone\s+of\s+(?:the\s+)?(?:(?:two|four|given|candidate|listed)\s+)?"
        r"(?:options|images|pictures|hypotheses|hypothesis|phrases|candidates|choices|panels)\b"
        r"(?!\s+(?:other|except|besides|but)\b)"
        r"(?!\s+(?:(?:is|are|seems?|looks?)\s+(?:a\s+|an\s+)?(?:perfect|exact|ideal)\b|(?:fits?|matches?|works?)\s+"
        r"(?:perfectly|exactly)\b)[^.;:!?\n]*?" + _CHOSEN_AFTER_BUT + ")",
        Example("mucr", "None of the options shows the effect.", None),
        Example("mucr", "Option 1 seems closest, though none of the options shows the effect.", None),
        # the hypotheses too, which the reading spells "hypothesis" (text.TYPO_VOCABULARY) before this table meets them
        # (AN's first contact: "None of the hypotheses fits the context, though image 2 comes closer" read 2)
        Example("nleye", "None of the hypotheses matches the context; the second one is a little closer.", None),
    ),
    # "I don't see how any of the four images is caused by the first one": none of them, as above (AM's first contact;
    # not "any of the other options", nor "any of the options but 3")
    rule(
        r"\b(?:(?:do|does|could)\s*(?:not|n't)|can\s*not|can't|fail\s+to)\s+see\s+how\s+any\s+(?:one\s+)?of\s+(?:the\s+|these\s+)?"
        r"(?:(?:two|four|given|candidate|listed)\s+)?"
        r"(?:options|images|pictures|hypotheses|hypothesis|phrases|candidates|choices|panels)\b"
        r"(?!\s+(?:other|except|besides|but|apart)\b)",
        Example("mucr", "I don't see how any of the four pictures follows from the cause image.", None),
        Example("nleye", "I can't see how any of the hypotheses fits the context, though image 2 comes closer.", None),
    ),
    # "However, this option is not available in the choices", "the correct option is not provided", "125° is not an
    # option"
    rule(
        r"\b(?:is|are)\s+not\s+(?:(?:available|listed|given)\s+)?(?:(?:among|in|one\s+of)\s+the\s+"
        r"(?:given\s+|provided\s+|listed\s+)?(?:options|choices|answers)|an?\s+(?:option|choice)\b|"
        r"(?:listed|provided|available|given)\b)",
        Example("letters", "So AC = 11.5. However, this option is not available in the choices.", None),
        Example("letters", "The correct option is not provided.", None),
    ),
    # an answer heading naming two answers, or none where the question's list of them is no part of the reply, said
    # to depend on a condition: "Answer: 1 or 2 — it depends on the time direction. If ..., 1 is more likely; if ...,
    # 2 could also work" (AO's first contact, read 1; not "Answer: 1 or 2 — it depends. On reflection, 1.")
    rule(
        rf"{_HEADING}(?:(?:the\s+)?{_ANY_REF}\s*,?\s+or\s+(?:the\s+)?{_ANY_REF})?\s*(?:\*\*)?\s*(?:[-–—,;:(]\s*)+"
        r"(?:it\s+(?:all\s+|really\s+)?depends|depending)\b",
        Example("mucr", "Answer: 2 or 3 — it depends on the weather. If it rained, 3 fits better; if not, 2.", None),
        Example("nleye", "Answer: 1 or 2, depending on the order. If the context comes first, 1 is more likely.", None),
        Example("mucr", "Answer: 2 or 3 - it depends. On reflection, the answer is 3.", 3),
    ),
)
# "None of them can explain it" refuses too, unless the reply has stated its answer before it: then "them" are the other
# options ("3\n\nOptions 1, 2 and 4 show a cat, a cake and a tree; none of them can explain the broken window"), or
# its sentence opens with the list "them" stands for, eliminated (group "list": "Options 1, 2 and 3 all show events
# that could only happen after the broken vase, so none of them can be the cause": AQ's first contact), or a list
# denied as a whole before it, giving the reason ("It's not Option 1, 2 or 3, since none of them involve water.": AW's
# first contact, read in round 43; the option left, 4)
REFUSAL_OF_THE_OTHERS = rule(
    rf"(?P<list>(?:(?:^|(?<=\n)|(?<=[.;!?]\s)){_ANY_REF}(?:(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+){_ANY_REF})+"
    r"[^.;!?\n«‹]*?,?\s+so\s+"
    rf"|(?:\bnot|n't)\s+(?:the\s+)?{_ANY_REF}(?:(?:\s*,\s*(?:(?:and|or|nor)\s+)?|\s+(?:and|or|nor)\s+){_ANY_REF})+"
    r"\s*,?\s+(?:since|because|as)\s+))?"
    r"\bnone\s+of\s+them\b(?!\s+(?:other|except|besides|but)\b)",
    Example("mucr", "None of them can explain it.", None),
    Example(
        "mucr",
        "Options 1, 2 and 3 all show events that could only happen after the broken vase, so none of them can be the "
        "cause.",
        4,
    ),
    Example(
        "mucr", "3\n\nOptions 1, 2 and 4 show a cat, a cake and a tree; none of them can explain the broken window.", 3
    ),
    Example("mucr", "It's not Option 1, 2 or 3, since none of them involve water.", 4),
)
# held possible beside another answer: "... is possible too", "... seems equally plausible as well", or as much as
# it, ending its clause: "... so hypothesis 2 is equally plausible." (BD's first contact: after "I would pick
# hypothesis 1 because ...", read 1)
_HELD_POSSIBLE = (
    r"\s+(?:is|seems|looks|would\s+be|could\s+be|might\s+be)\s+(?:(?:also\s+|equally\s+)?"
    r"(?:possible|plausible|likely|valid)\s+(?:too|as\s+well)\b|(?:just\s+as|equally)\s+(?:plausible|likely|valid)"
    r"(?=\s*(?:[.!;]|$)))"
)
DOUBTS = (
    # a refusal that names an image: "I can't view the fourth candidate image", "unable to compare all four options"
    rule(
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?(?:see|view|open|load|access|make\s+out|analy[sz]e|process|read|display)\s+"
        rf"(?:one\s+of\s+)?(?:the\s+)?{_ANY_REF}"
        rf"|{_CANNOT}\s+compare\b",
        Example("mucr", "I can't view the fourth candidate image, so I'm unable to compare all four options.", None),
    ),
    # an answer on a condition, and another otherwise: "The answer is Option 4 if the glass broke; otherwise Option 3"
    rule(
        rf"{_ANY_REF}[^.;\n]{{0,40}}?\bif\b[^.;\n]*[;,]\s*(?:otherwise|else|if\s+not)\b",
        Example("mucr", "The answer is Option 4 if the glass broke; otherwise Option 3.", None),
    ),
    # another answer offered beside it: "The cue is the car, or perhaps the speeding" (not a hedge in parentheses just
    # after the answer, which reads the answer as the adjudication Y read "Option 1 (but honestly it could be Option
    # 3)": "Answer: 1 (or possibly 2, if the spilled milk came from the cat rather than the child).", BN's first
    # contact, unread)
    rule(
        r",?\s*(?<![»›]\()(?<![»›]\s\()(?<![»›]\(\s)(?<![»›]\s\(\s)"
        rf"\bor\s+(?:maybe|perhaps|possibly)\s+(?:the\s+)?{_ANY_REF}",
        Example("cue", "The cue is the heavy rain, or perhaps the slippery floor.", None),
    ),
    # another answer offered after a doubt: "That leaves speeding. I'm not sure though; it might be the road." (the
    # blind review of round 26)
    rule(
        rf"\b(?:not\s+sure|unsure|uncertain)\b[^.;\n]{{0,20}}?[;,:.]\s*(?:it|that)\s+(?:might|could|may)\s+"
        rf"(?:also\s+|well\s+)?be\s+(?:the\s+)?{_ANY_REF}",
        Example("cue", "That leaves heavy rain. I'm not sure though; it might be the slippery floor.", None),
    ),
    # another answer asked about after it, and no answer named after the question: "Answer: Option 2... or is it 4? I'm
    # still undecided." (not "Answer: Option 1. Or is it 3? I think it's 1.")
    rule(
        rf"\bor\s+(?:is|was|could)\s+it(?:\s+be)?\s+(?:the\s+)?{_ANY_REF}(?=\s*\?(?![\s\S]*{_ANY_REF}))",
        Example("mucr", "Answer: Option 2... or is it 4? I'm still undecided.", None),
        Example("mucr", "**Answer: Option 3**\n\n*...or is it Option 1?*", None),
    ),
    # another answer offered on a condition: "Answer: 4 (police officer) – or 2 (speeding) if ..."
    rule(
        rf"(?:[,;–—]|\s-)\s*or\s+(?:else\s+)?(?:the\s+)?{_ANY_REF}[^.;\n]{{0,40}}?\bif\b",
        Example("cue", "Answer: 4 (police officer) – or 2 (speeding) if the cue has to be an action.", None),
    ),
    # an answer hedged where it is named: "Maybe the second picture shows it", "Option 3 possibly shows the effect"
    rule(
        rf"(?:^|(?<=[.!?;:]))\s*(?:perhaps|maybe|possibly)\s*,?\s+(?:the\s+)?{_ANY_REF}"
        rf"|{_ANY_REF}\s+(?:perhaps|maybe|possibly|probably)\s+(?:best\s+)?(?:shows?|depicts?)\b",
        Example("mucr", "Maybe the picture second from the right shows the effect.", None),
        Example("mucr", "The third picture from the left possibly shows the effect.", None),
    ),
    # an answer that leads only so far, before the next option is checked: "Option 3 seems the most likely so far, ...,
    # but let's check Option 4:" (AL's first contact, cut off)
    rule(
        rf"{_ANY_REF}\s+(?:seems|looks|is|appears)\b[^.;!?\n]{{0,60}}?\b(?:so\s+far|thus\s+far|for\s+now|at\s+this\s+point)\b",
        Example(
            "mucr",
            "Option 1 shows a bee; Option 2 shows a lawnmower. Option 3 seems the most likely so far, since it shows "
            "seeds floating in the air, but let's check Option 4:",
            None,
        ),
        Example("mucr", "Option 3 seems the most likely so far. Option 4 shows a bee. So the answer is Option 3.", 3),
    ),
    # a word of reconsidering that turns to doubt takes the answer back: "1. Hmm, on reflection I'm not sure about this;
    # ..." (BC's first contact, read 1; not "Probably 2, but I'm not sure.", where no reconsidering turns from it)
    rule(
        # (after the word, as a doubt is looked for after the last self-correction: decision._doubted)
        r"(?:(?<=\bthought)|(?<=\breflection)|(?<=\binspection)|(?<=\blook)|(?<=\bagain)|(?<=\bmore)|(?<=\bfurther)"
        r"|(?<=\bactually)|(?<=\bwait))\s*,?\s+(?:(?:i'm|i\s+am)\s+(?:now\s+)?(?:no\s+longer\s+sure|"
        r"not\s+(?:so\s+|really\s+|entirely\s+)?(?:sure|certain|confident)|unsure|uncertain)"
        # "On second thought, I can't be sure of that: ..." (BE's first contact, read 2)
        r"|i\s+(?:can't|cannot|can\s+not)\s+(?:really\s+)?be\s+(?:sure|certain))\b",
        Example("nleye", "1. Hmm, on reflection I'm not sure about this; the shapes are hard to make out.", None),
        Example("nleye", "1. On reflection, I'm not sure about this. Final answer: 2", 2),
        Example(
            "nleye",
            "Hypothesis 2 seems more plausible at first, because the cone in it is dripping. On second thought, I "
            "can't be sure of that: the sun isn't visible, so I don't want to commit to either one.",
            None,
        ),
    ),
    # the answer's role said to be unknown: "Option 3, road. Hmm, no: the road appears in both images. I'm not sure
    # what the link is." (BE's first contact, read 3; unless a statement of the answer follows its sentence: "I'm not
    # sure what the link is. The cue is speeding.")
    rule(
        r"\b(?:not\s+sure|unsure|uncertain|no\s+idea)\s+(?:what|which)\s+(?:the\s+)?(?:causal\s+)?"
        r"(?:link|cue|connection|answer|cause|effect)\s+(?:is|would\s+be|might\s+be)(?=\s*(?:[.!;\n]|$))",
        Example(
            "cue_words",
            "Option 3, road. Hmm, no: the road appears in both images but doesn't explain anything. I'm not sure what "
            "the link is.",
            None,
        ),
        Example("cue_words", "I'm not sure what the link is. The cue is speeding.", 2),
    ),
    # a doubt between two answers: "I'm not sure whether the cue is speeding or the police officer; both seem to link
    # the images." (BD's first contact, read 2; unless a statement of the answer follows its sentence)
    rule(
        r"\b(?:not\s+sure|unsure|uncertain|undecided|can't\s+decide|cannot\s+decide)\s+(?:whether|if|between)\b"
        rf"[^.;!?\n]{{0,60}}?{_ANY_REF}\s*,?\s+(?:or|and)\s+(?:the\s+)?{_ANY_REF}",
        Example(
            "cue_words", "I'm not sure whether the cue is speeding or the police officer; both link the images.", None
        ),
        Example("cue_words", "I'm not sure whether the cue is speeding or the road. The cue is speeding.", 2),
    ),
    # an approximate rating and another offered after it, ending the clause: "I'd put this at around 5, maybe 6." (BD's
    # first contact, read 5; a range, as "5 or 6"; not "3, maybe 4 at most — let's say 3", nor "I'd say 4, maybe 5 at
    # most. Score: 4"). A rating given as such, then another offered (`Score: 3, maybe 4.`, BV's first contact and
    # every other writer of the form: BO, BP, BR, BS, BT), keeps the first, as `Option 2, maybe Option 4` does
    rule(
        r"\b(?:around|about|roughly|approximately|somewhere\s+(?:around|near))\s+"
        rf"{BARE_MENTION}\s*,\s*(?:maybe|perhaps|possibly)\s+(?:an?\s+)?{BARE_MENTION}(?=\s*(?:[.!;\n]|$))",
        Example("rating", "On a scale of 1 to 10, I'd put this at around 5, maybe 6. The two are related.", None),
        Example("rating", "I'd put this at around 5, maybe 6. Score: 5", 5.0),
        Example("rating", "I'd say roughly 7, perhaps 8.", None),
    ),
    # a doubt whose object is the answer: "I am not sure hypothesis 1 is" (not "I don't think 1 is ...": it rejects)
    rule(
        r"\b(?:not\s+sure|unsure|cannot\s+say|can't\s+say|doubt)\b"
        rf"(?:\s+(?:that|whether|if))?\s+(?:the\s+)?{_ANY_REF}",
        Example("nleye", "I am not sure hypothesis 1 is more plausible.", None),
        Example("nleye", "I am not sure hypothesis 1 is more plausible.\nFinal answer: 2", 2),
    ),
    # the answer said to be one of two: "I believe it's option 1 or option 3: ... both option 1 (...) and option 3 (...)
    # fit." (BH's first contact, read 1; unless a statement of the answer follows its sentence; not "It's not 1 or 3")
    rule(
        r"\b(?:it|the\s+(?:answer|cause|effect|cue|link))\s*(?:'s|\s+is|\s+(?:must|would|should)\s+be)\s+"
        # (without a comma: "The effect is the second option from the right, or the third option from the left." names
        # one option twice, round 18's review)
        rf"(?:either\s+)?(?:the\s+)?{_ANY_REF}\s+or\s+(?:the\s+)?{_ANY_REF}(?!\s*\?)"
        # (not where "but" goes on to one of them: "I think the answer is 1 or 2, but more likely 2, because ...", AL's)
        # nor before the likelier of them set off by a comma: "The answer is 2 or 4, most likely 4, since ...", BU's
        # first contact)
        rf"(?!\s*,?\s+but\b|\s*,\s*(?:(?:most|more)\s+likely|probably)\s+(?:the\s+)?{_ANY_REF})",
        Example(
            "mucr",
            "I believe it's option 1 or option 3: the cause image shows a baker forgetting bread in the oven, and both "
            "option 1 (black smoke from the oven) and option 3 (a burnt loaf) fit.",
            None,
        ),
        Example("mucr", "It's option 1 or option 3. Looking closer, the answer is option 3.", 3),
    ),
    # an answer heading that names two answers: "Answer: 1 or 4." (AJ's first contact; not "Answer: not 1 or 2, but 3")
    # (nor before the one settled on after a dash: "Answer: 2 or 4 (speeding / police officer) – I'll pick 2, since
    # ...", BH's first contact, as round 50's "Score: 8 or 9 — I'll say 8.")
    rule(
        rf"{_HEADING}(?:the\s+)?{_ANY_REF}\s*,?\s+or\s+(?:the\s+)?{_ANY_REF}"
        r"(?![^.;!?\n]*?\s[—–-]\s*(?:so\s+)?(?:I'?ll|I\s+will|let'?s|let\s+us)\s+(?:just\s+)?"
        rf"(?:say|pick|choose|go\s+with|settle\s+on)\s+(?:the\s+)?{_ANY_REF})",
        Example("mucr", "Option 2 shows the effect, though Option 3 fits too. Answer: 2 or 3.", None),
        Example("mucr", "Answer: 2 or 3. On reflection, I'll go with 3.", 3),
    ),
    # a closing answer heading that names two answers, ending its clause: "The answer is 3. ... so Option 1 is an effect
    # too. Final answer: 3 and 1" (BM's first contact, read 3: the closing, a self-correction, begins where the rule
    # above is no longer looked for; not "Final answer: 3 and 1 is wrong, so 3", nor "Final answer: 2 or 4 — I'll pick
    # 2")
    rule(
        rf"(?<=\banswer)\s*(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*(?:the\s+)?{_ANY_REF}\s*,?\s+(?:and|or|&)\s+(?:the\s+)?"
        rf"{_ANY_REF}(?=\s*(?:\*\*)?\s*(?:[.!;\n]|$))",
        Example("mucr", "The answer is 3. So Option 1 is an effect too. Final answer: 3 and 1", None),
        Example("mucr", "The answer is 3. Final answer: 3 or 1.", None),
        Example("mucr", "The answer is 3. Final answer: 3 and 1. On reflection, the answer is 3.", 3),
    ),
    # a range of options after a heading, or alone: "Answer: 1-4" (AO's first contact, read 1), "Final answer: 2-3"
    rule(
        rf"(?:^|(?<=[:：])|(?<=[:：]\s))\s*(?:\*\*)?\s*(?:the\s+)?{_ANY_REF}\s*(?:-|–|—|to|through)\s*{BARE_MENTION}(?=\s*(?:\*\*)?\s*(?:[.!;\n]|$))",
        Example("mucr", "Answer: 1-4", None),
        Example("mucr", "Final answer: 2-3.", None),
        Example("mucr", "Answer: 1-4.\nOn reflection, the answer is Option 2.", 2),
    ),
    # another answer held possible beside the one given: "Option 3.\nHmm, Option 3 shows a parked car, ... Option 4
    # shows the speeding car. But the ticket could also be for parking, so Option 3 is possible too." (AT's first
    # contact, read 3; not where the reply sets it aside: "Hypothesis 1 is possible too, but the setting differs", AT's;
    # a concession, "though Option 4 is possible too", is the next rule's)
    rule(
        rf"(?<!\bthough\s)(?<!\bthough\sthe\s){_ANY_REF}{_HELD_POSSIBLE}(?!\s*,?\s*(?:but|though|although|yet)\b)",
        Example(
            "mucr",
            "Option 3.\nOption 4 shows the speeding car. But the ticket could be for parking, so Option 3 is possible "
            "too.",
            None,
        ),
        Example(
            "texts",
            "I would pick hypothesis 1 because a rectangular box usually holds a rectangular item. But a ball can also "
            "be packed in a box, so hypothesis 2 is equally plausible.",
            None,
        ),
    ),
    # the same conceded, unless its sentence ranks an answer above it: "Option 3, though Option 4 is possible too" (no
    # answer); not "Most likely Option 3, though Option 4 is possible too." (AU's first contact, read as no answer:
    # a lean with a doubt, 3)
    rule(
        r"(?:^|(?<=[.!?;\n]))(?:(?!\b(?:most|more)\s+(?:likely|plausible)\b|\bprobably\b|\blikeliest\b)[^.!?;\n])*"
        rf"\bthough\s+(?:the\s+)?{_ANY_REF}{_HELD_POSSIBLE}",
        Example("mucr", "Option 3, though Option 4 is possible too.", None),
        Example("mucr", "Option 3, though Option 4 is possible too. Final answer: Option 3.", 3),
    ),
    # the same said of what another answer explains or fits, as well as the answer does: "Hypothesis 1 is more
    # plausible. Actually, on reflection, hypothesis 2 explains the open window just as well. ..." (BN's first contact,
    # read 1; not denied, "hypothesis 2 does not explain it just as well", nor conceded, "though hypothesis 2 fits it
    # equally well", nor "just as well as ...", a comparison going on)
    rule(
        rf"(?<!\bthough\s)(?<!\bthough\sthe\s){_ANY_REF}\s+(?:also\s+)?"
        r"(?:explains|fits|matches|accounts\s+for|works\s+for)\b"
        r"(?:(?!\b(?:not|never|hardly|but)\b|n't\b)[^.;!?\n«‹]){0,80}?\s(?:just\s+as|equally)\s+well"
        r"(?=\s*(?:[.!;]|$))",
        Example(
            "nleye",
            "Hypothesis 1 is more plausible. Actually, on reflection, hypothesis 2 explains the open window just as "
            "well. Both explanations work, really.",
            None,
        ),
        Example("nleye", "Hypothesis 1 is more plausible, and hypothesis 2 fits it equally well.", None),
        Example("nleye", "Hypothesis 2 explains the open window just as well. Final answer: hypothesis 1", 1),
    ),
    # an answer said to be the role "also", in addition to another (BW's first contact: "Option 2 is the cause. Looking
    # closer, Option 4 is also the cause.", read 4; not "Option 4 is not also the cause", nor "Option 2 is also the
    # correct answer" of the option stated)
    rule(
        rf"{_ANY_REF}\s+(?:is|was)\s+also\s+(?:the|an?)\s+"
        r"(?:cause|effect|cue)(?=\s*(?:[.;!\n]|,?\s+(?:too|as\s+well)\b|$))",
        Example("mucr", "Option 2 is the cause. Looking closer, Option 4 is also the cause.", None),
    ),
    # "Both 2 and 4 could be the cue: ..."
    rule(
        rf"\bboth\s+{_ANY_REF}\s+and\s+{_ANY_REF}\s+(?:could|might|may|can|are|seem)\b",
        Example("cue", "Both 2 and 4 could be the cue: the speeding explains why the car was stopped.", None),
    ),
    # "Between 2 and 4 I'm torn"
    rule(
        r"\b(?:i'?m|i\s+am)\s+(?:really\s+|a\s+bit\s+)?torn\b",
        Example("cue", "Between 3 and 4 I'm torn: the rain explains the glass, but the glass ties them.", None),
    ),
    # a conditional answer: "Score: 3 (if the ball belongs to a child) or 8 (if it is the owner's)"
    rule(
        rf"{_ANY_REF}\s*\(\s*(?:if|when|assuming|given|unless)\b[^()]*\)\s*,?\s*(?:or|but|and|otherwise)\b",
        Example("rating", "Score: 3 (if the ball belongs to a child) or 8 (if it is the owner's)", None),
    ),
    # about the answer: "whether the update ... the hypothesis", "if image 1 is more plausible", "whether it holds"
    # (not "whether it is his car")
    rule(
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?{_DECIDE}\s+(?:whether|if)\b[^.!?;\n]*?"
        rf"(?:{_ANY_REF}|\b(?:hypothesis|update|inference|plausib\w*|likely|correct|right|true|holds?|better|more|less)\b)",
        Example("label", "I'm unable to judge whether the update strengthens or weakens the hypothesis.", None),
        Example("nleye", "I can't tell whether it is morning from image 1 alone. Image 2 is more plausible.", 2),
    ),
    # "Option 3 is correct, but so is Option 1"
    rule(
        rf"\bbut\s+so\s+(?:is|does|do)\s+{_ANY_REF}",
        Example("mucr", "Option 3 is correct, but so is Option 1, so I cannot decide.", None),
    ),
    rule(
        rf"\beither\s+{_ANY_REF}\s+or\s+{_ANY_REF}",
        Example("mucr", "Either option 2 or option 4 could be the effect.", None),
    ),
    # an ordinal whose noun the second one carries: "I think it's either the second or the fifth image" (AN's first
    # contact: two candidates, where the count of the second alone read as an option)
    rule(
        r"\beither\s+(?:the\s+)?(?:first|second|third|fourth|fifth|sixth|last|left|middle|right|leftmost|rightmost)"
        rf"\s+(?:one\s+)?or\s+(?:the\s+)?{_ANY_REF}",
        Example("mucr", "It is either the third or the fourth picture, I cannot say which.", None),
        Example("mucr", "Either the first or the second option shows the effect. Wait, the answer is Option 1.", 1),
    ),
    # "It's difficult to say which is intended"
    rule(
        rf"\b(?:hard|difficult|tough|tricky)\s+to\s+{_DECIDE}\s+{_WHICH_ANSWER}",
        Example("mucr", "Option 3, though it's difficult to say which is intended.", None),
    ),
    # AS's first contact: an answer on a condition and another on the other ("Hypothesis 1 is more plausible if the
    # context happens before; hypothesis 2 if it happens after.")
    rule(
        rf"{_ANY_REF}[^.;\n]{{0,60}}?\bif\b[^.;\n]*[;,]\s*(?:and\s+|but\s+|or\s+)?(?:the\s+)?{_ANY_REF}\s+if\b",
        Example(
            "texts",
            "Hypothesis 1 is more plausible if the context happens before; hypothesis 2 if it happens after.",
            None,
        ),
        Example("mucr", "Option 2 if it rained, option 3 if the pipe burst.", None),
    ),
    # the same with each condition first: "If the context happens first, Hypothesis 1 is more plausible; if it
    # happens afterwards, Hypothesis 2 is just as likely, ..." (AU's first contact, read 1)
    rule(
        rf"\bif\b[^.;\n«‹]*,\s*{_FEW_WORDS}(?:the\s+)?{_ANY_REF}[^.;\n]*[;,]\s*(?:and\s+|but\s+|or\s+)?(?:if|when)\b"
        rf"[^.;\n«‹]*,\s*{_FEW_WORDS}(?:the\s+)?{_ANY_REF}",
        Example(
            "texts",
            "If the context happens first, Hypothesis 1 is more plausible; if it happens afterwards, Hypothesis 2 is "
            "just as likely.",
            None,
        ),
        Example("mucr", "If it rained, Option 2 shows the effect; if the pipe burst, Option 3.", None),
        # a rating so given, a few words before each: "If the context image comes first, I'd rate it 8; if it comes
        # after the hypothesis image, only 2, ..." (AV's first contact, read 8)
        Example(
            "rating", "If he arrived first, I'd rate it 8; if he came later, only 2, as the door was locked.", None
        ),
    ),
    # ... or each condition a case heading its own sentence with a colon, the answer after it, the other case's
    # sentence cut off or answering otherwise: "If the context happens before: the child unwraps the rectangular box →
    # hypothesis 1. If the context happens after: the child could have been holding either present and then wrapped
    # it again, so" (BX's first contact, read 1; not one case alone, "If the context happens before: ... → hypothesis
    # 1.", nor an answer stated after the cases)
    rule(
        rf"(?:^|(?<=[.!?;\n]))\s*(?:if|when)\b[^.;:\n«‹]*:\s*[^.;\n«‹]{{0,100}}?{_ANY_REF}[^.;\n]*[.;]\s*"
        r"(?:and\s+|but\s+)?(?:if|when)\b[^.;:\n«‹]*[:,]",
        Example(
            "presents",
            "If the context happens before: the child unwraps the rectangular box → hypothesis 1. If the context "
            "happens after: the child could have been holding either present and then wrapped it again, so",
            None,
        ),
        Example("mucr", "If it rained: Option 2. If the pipe burst: Option 3. Overall, Option 3 is the effect.", 3),
    ),
    # two sources that point to two answers, the reply choosing neither: "The scene graph indicates option 1, but the
    # image suggests option 2 is the effect." (AS's first contact; not "The examples suggest Option 3, but the cause is
    # clearly Option 4", round 35's concession)
    rule(
        rf"\b(?:indicates?|suggests?|points?\s+to|implies|favou?rs?)\s+(?:that\s+)?(?:the\s+)?{_ANY_REF}[^.;\n]*?,?\s*"
        rf"\bbut\b[^.;\n]*?\b(?:indicates?|suggests?|points?\s+to|implies|favou?rs?)\s+(?:that\s+)?(?:the\s+)?{_ANY_REF}",
        Example("mucr", "The scene graph indicates option 1, but the image suggests option 2 is the effect.", None),
        Example(
            "mucr",
            "The scene graph indicates option 1, but the image suggests option 2 is the effect. Final answer: 2",
            2,
        ),
    ),
    # an answer left unsure, a sentence of its own after it: "... So 1? Hard to say." (AS's first contact: a reply that
    # turns twice)
    # (or with both said to work after a comma, ending its sentence: "... No, I think the first is more plausible. Hard
    # to say, both work." BN's first contact, read 1; not "Hard to say, both work, but 1 is better."; "hypotheses" is
    # spelt "hypothesis" before the table meets it: text.TYPO_VOCABULARY)
    rule(
        r"(?:^|(?<=[.!?;]))\s*(?:(?:it's|it\s+is|that's|that\s+is)\s+)?(?:really\s+)?(?:hard|difficult|tough)\s+to\s+"
        r"(?:say|tell)(?=\s*(?:[.!]|$)|\s*,\s*both\s+"
        r"(?:(?:explanations|hypotheses|hypothesis|options|images|answers|ones|of\s+them)\s+)?"
        r"(?:(?:could|can|might|would)\s+)?"
        r"(?:work|fit|(?:are|seem)\s+(?:equally\s+)?(?:plausible|possible|valid|likely))(?=\s*(?:[.!]|$)))",
        Example(
            "nleye",
            "2 is more plausible. Wait, the context could occur after the hypotheses... Still, 2 seems less likely "
            "than 1. So 1? Hard to say.",
            None,
        ),
        Example("nleye", "Hard to say. Image 2 is more plausible.", 2),
        Example(
            "presents",
            "Most plausible: the child holding an unwrapped ball-shaped present (hypothesis 2)? No, I think the first "
            "is more plausible. Hard to say, both work.",
            None,
        ),
    ),
    # a toss-up, a sentence of its own: "I think the answer is 1. Hmm, however the time of day in the right image
    # matches the context better ..., so maybe 2 is more plausible. It's really a toss-up." (BP's first contact, read
    # 2; unless a statement of the answer follows its sentence: "It's a toss-up, but I'd go with 2.")
    rule(
        r"(?:^|(?<=[.!?;]))\s*(?:(?:it's|it\s+is|that's|that\s+is|this\s+is)\s+)?(?:really\s+|honestly\s+|just\s+)?"
        r"(?:a\s+)?(?:toss-?\s?up|coin\s+(?:flip|toss))(?=\s*(?:[.!]|$))",
        Example(
            "panels",
            "I think the answer is 1. Hmm, however the right image matches the context better, so maybe 2 is more "
            "plausible. It's really a toss-up.",
            None,
        ),
        Example("nleye", "It's a toss-up. On balance, image 2 is more plausible.", 2),
    ),
    # two answers on a condition: "I'd give it a 4 or an 8, depending on whether the context comes before or after
    # the hypothesis." (AT's first contact, read 4)
    rule(
        rf"{_ANY_REF}\s*,?\s+or\s+(?:an?\s+|the\s+)?{_ANY_REF}\s*,?\s*(?:[-–—(]\s*)?(?:depending|it\s+(?:all\s+|really\s+)?depends)\b",
        Example("rating", "I'd give it a 4 or an 8, depending on whether the context comes first.", None),
        Example("mucr", "Option 2 or Option 3, depending on the weather.", None),
    ),
    # a conditional answer: "It depends on the timing. If ..., about 8; if ..., more like 3"
    rule(
        r"\b(?:it|that|this|the\s+(?:answer|score|rating))\s+(?:really\s+|all\s+)?depends(?:\s+(?:on|upon)\b|(?=\s*[.,:;!-]))",
        Example("rating", "It depends on the timing. If he just arrived, about 8; if not, more like 3.", None),
    ),
    # an answer for each part of what is judged: "It is a strengthener for 'moves while playing' but a weakener for
    # 'man'." (AV's first contact, read strengthener)
    rule(
        rf"{_ANY_REF}\s+(?:for|regarding|as\s+to|about)\s+[^.;\n«‹]{{1,80}}?\s*,?\s+(?:but|and|while|whereas)\s+"
        rf"(?:(?:it\s+is|it's|is)\s+)?(?:also\s+)?(?:an?\s+|the\s+)?{_ANY_REF}\s+(?:for|regarding|as\s+to|about)\b",
        Example("label", "It is a weakener for 'outdoors' but a strengthener for 'child'.", None),
        Example(
            "label", "It is a weakener for 'outdoors' but a strengthener for 'child'. Overall: weakener", "weakener"
        ),
    ),
)


# Two options given the two roles in one sentence: "Option 1 is the cause, and option 2 shows its effect." (AW's first
# contact, read 1: the reader does not know which role the prompt asks for, so neither is the answer); not where one
# of them is the given image's count ("Among the five images, image 1 is the cause and image 4 is its effect.": AL's,
# read by decision.decide), nor where the first shows the given image by its role ("Option 4 shows the effect image
# again, and option 2 shows the cause: ...": BE's first contact, unread)
ROLES_PAIRED = rule(
    rf"(?P<first>{_ANY_REF})\s+(?:is|shows|depicts)\s+(?:the|its)\s+(?P<role>cause|effect)\b(?!\s+(?:image|picture)\b)"
    rf"[^.;\n]{{0,40}}?,?\s+and\s+"
    rf"(?:(?P<second>{_ANY_REF})\s+(?:is|shows|depicts)\s+(?:the|its)\s+|the\s+)(?!(?P=role))(?:cause|effect)\b"
    rf"(?:\s+is\s+(?P<third>{_ANY_REF}))?",
    Example("mucr", "Option 1 is the cause, and option 2 shows its effect.", None),
    Example("mucr", "Option 4 is the effect, and the cause is option 1.", None),
)


# An answer denied its role in a sentence of its own: "The cause is Option 4, showing a hailstorm. Option 4 is not the
# cause. The effect is a dented car roof." (BP's first contact, read 4). Where the reply stated that answer in that role
# before it and picks nothing after it, it takes back the only answer it gave: no answer (decision.decide; not "Option 4
# is not the effect" after "The cause is Option 4", another role, nor "Option 4 is not the cause, Option 2 is", nor "...
# not the cause of the flood", nor where it picks an answer after it: decision._taken_back)
ROLE_DENIED = rule(
    rf"(?:^|(?<=[.!?;]))\s*(?:the\s+)?(?P<denied>{_ANY_REF})\s+(?:is|was)\s+not\s+(?:the|a|an)\s+"
    r"(?P<role>cause|effect|answer|cue)(?=\s*(?:[.!;\n]|$))",
    Example("mucr", "The cause is Option 4, showing a hailstorm. Option 4 is not the cause. The roof is dented.", None),
    Example("mucr", "The cause is Option 4, showing a hailstorm. Option 4 is not the effect.", 4),
)
