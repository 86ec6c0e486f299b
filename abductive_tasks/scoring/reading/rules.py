"""The rule tables of statements and of answers standing alone, as patterns over a reply's marked mentions (the words
they are written in: ``verdict_patterns``; other verdicts: ``verdict_rules``; self-corrections: ``correction_rules``;
refusals and doubts: ``doubt_rules``).

Each rule carries the example replies it exists for (``Example``: the example kind that reads it, the reply, what a
person reads); tests/scoring/test_rule_examples.py reads every one. Adding a rule: docs/reading.md.
"""

from __future__ import annotations

from abductive_tasks.scoring.reading.mentions import ANY_MENTION
from abductive_tasks.scoring.reading.table import Example
from abductive_tasks.scoring.reading.verdict_patterns import (
    ADVERBS,
    ANSWER_CUE,
    APPOSITIVE,
    ARTICLE,
    COMPARED_NOUN,
    COPULA,
    INTENSIFIER,
    LESS,
    MORE,
    QUALITY,
    QUALITY_CUE,
    verdict,
)

__all__ = [
    "ALONE",
    "STATEMENTS",
]

# A thing an option names, the subject of words the answer's number follows after a colon ending the clause: "the car
# going too fast: 2" (BG's first contact) names no option by the thing, the number does (a pattern part of the rules
# below, filled in by ``verdict``)
_SUBJECT_OF_A_NUMBER = r"(?![ \t]*[^\W\d_]+(?:[ \t]+[^\W\d_]+){{0,4}}[ \t]*:[ \t]*{any_mention})"

# the answer's role, or "the one", that the reply would pick, ending its clause: "the effect I would pick", "the cause
# I'd choose" (not on a condition: "the cause I'd choose if ...")
_ONE_I_PICK = (
    r"the\s+(?:effect|cause|cue|answer|one|option|choice)\s+(?:that\s+)?(?:i'd|i\s+would|i'll|i\s+will)\s+"
    r"(?:pick|choose|select|go\s+with)(?=\s*(?:[.!;,]|$))(?!\s*,?\s*(?:if|unless|but|though)\b)"
)

# Statements of the answer: "Answer: 2", "the more plausible image is 1", "The correct option is #3",
# "Effect: Option 4", "the cause of the effect image is 2", "### Answer\nImage 1", "More plausible: Image 2".
STATEMENTS = (
    verdict(
        # not the role in a picture, then "is" and an option: "The cause in image 3 is Option 4: ..." (BG's first
        # contact, on the multi-image prompt whose image 3 is the question's: the option after "is" is the answer; not
        # "The cause of the effect in image 1 is Option 1", round 17's review)
        # nor the pair "cause and effect" before a colon ("the cue is the action that links cause and effect: the car in
        # the left picture is speeding ...": BH's first contact, after "2 (speeding).", read as no answer)
        r"(?<!\bis the )(?<!\bis a )(?<!\bcause and )(?<!\beffect and )"
        r"\b(?!(?:effect|cause)\s+in\s+{any_mention}\s+is\s+(?:the\s+)?{named_mention})"
        # nor the role an option is said to show, then a colon and a sentence whose subject is another image ("Option 1
        # shows the effect: the first image shows a man hammering a nail ...", BM's first contact, unread: what follows
        # the colon explains, it does not name the answer)
        r"(?!(?<=\bshows\sthe\s)(?:effect|cause|cue)\s*:\s*(?:the\s+)?{any_mention}\s+(?:shows|depicts|illustrates)\b)"
        rf"(?:{ANSWER_CUE})(?:\s+(?:to|for)\s+(?:the|this)\s+question)?"
        rf"\s*(?:is(?:\s+(?:clearly|obviously|definitely|certainly))?|(?:would|should|must)\s+be)?"
        rf"(?:\s+(?:shown|depicted|pictured|seen)\s+in|(?P<bare_in>\s+in)|\s+(?:the\s+)?letter"
        # "is best represented by" (BV's first contact: "The effect is best represented by Option 2." after every
        # option described, unread; not "is not best represented by", nor "by Option 2 or Option 4")
        rf"|(?<=\bis)\s+(?:best\s+)?(?:represented|shown|depicted|illustrated|captured)\s+by)?\s*[:=→-]?\s*{ARTICLE}{{pick}}"
        # not the subject of a verb after "in" ("The effect in image 3 matches Option 2's cause": AS's first contact)
        r"(?(bare_in)(?!\s*(?:matches|match|shows|depicts|fits|looks|resembles|seems)\b))"
        # not an option's word owning another's: "the car's speeding"
        r"(?!\s*'s\b)" + _SUBJECT_OF_A_NUMBER,
        Example("nleye", "Answer: 2", 2),
        Example("mucr", "Effect: Option 4", 4),
        Example("nleye", "### Answer\nImage 1", 1),
        Example("letters", "The correct option letter is B. The given information is ...", 2),
        Example("letters", "The correct choice is letter D.", 4),
        Example("mucr", "The effect is best represented by Option 2.", 2),
        Example(
            "cue_words",
            "Example 1's answer was attack and Example 2's answer was attack. For the question: 2 (speeding) — the "
            "car in the cause image is moving very fast and the effect shows the crash.",
            2,
        ),
    ),
    # "the effect is the broken vase in Option 1": the answer's role, what it shows and where (not "the effect is not
    # ... in Option 1"); with an adverb of certainty ("so the effect is clearly the flooded village in Option 4.", AY's
    # first contact: before a closing "Final answer: 1" it contradicts, read 1)
    # (the role with a word of its directness: "so the most direct effect is the wet dog in option 3", BK's first
    # contact, after a list of every option, unread; not "the least likely effect", "the indirect effect")
    verdict(
        r"(?:^|(?<=[.!?:;,]))\s*(?:(?:so|thus|therefore|hence)\s*,?\s+)?the\s+"
        r"(?:(?:most\s+)?(?:direct|immediate|likely|obvious|probable)\s+|(?:actual|real|true)\s+)?(?:effect|cause)\s+"
        r"(?:is|must\s+be)\s+"
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
        Example(
            "mucr",
            "Option 1 shows a sunny day, option 3 shows a wet dog. The cause image shows a downpour, so the most "
            "direct effect is the wet dog in option 3.",
            3,
        ),
    ),
    # the answer alone closing the reply after a clause of reason before its comma: "Middle image: a man with a sunburn.
    # Right image: a man with a cast on his leg. Since the left image shows him lying at the beach all day, 1." (BX's
    # first contact, unread: the panels' headings before it; not a condition, "If he lay at the beach all day, 1.", nor
    # with a sentence after it)
    verdict(
        r"(?:^|(?<=[.!?:;]))\s*(?:since|because|as|given\s+that)\s+[^.;:!?\n]{{1,120}}?,\s*{pick}(?=[ \t]*[.!]?\s*\Z)",
        Example(
            "panels",
            "Middle image: a man with a sunburn. Right image: a man with a cast on his leg. Since the left image shows "
            "him lying at the beach all day, 1.",
            1,
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
        rf"(?:link|relationship|connection|change)\s+(?:is|would\s+be)\s*:?\s*{ARTICLE}{{pick}}(?=\s*(?:[.!;,]|-\s|$))",
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
    # the answer's role, then a thing an option names and what it does, then the option after a colon ending the
    # clause: "... so the link must be the car going too fast: 2." (BG's first contact, read 1, the car: the thing is
    # the subject of words the number follows, _SUBJECT_OF_A_NUMBER; not "the link must be the car going too fast: 2
    # or 3", nor "It must be the car.", the thing alone)
    verdict(
        r"(?:^|(?<=[.!?:;,]))\s*(?:(?:so|thus|therefore|hence)\s*,?\s+)?"
        r"(?:the\s+(?:effect|cause|cue(?:\s+phrase)?|link|answer)|it)\s+(?:is|(?:must|should|would)\s+be)\s+"
        r"(?:the|a|an)\s+{named_mention}(?:[ \t]+[^\W\d_]+){{1,5}}[ \t]*:[ \t]*{pick}"
        r"(?=\s*(?:[.!;]|$))",
        Example(
            "cue_words",
            "The police officer only appears in the effect image, so the link must be the car going too fast: 2.",
            2,
        ),
    ),
    # the answer a weighing settles on, ending its clause: "Option 2 or Option 4; both could cause the spilled flour
    # ... On balance Option 4, because the small handprints are in the flour." (BH's first contact, after two options
    # named; not "On balance Option 4 shows more flour.", nor "On balance, Option 4 or Option 2.")
    verdict(
        r"(?:^|(?<=[.!?;:]))\s*(?:(?:so|but|and)\s*,?\s+)?(?:on\s+balance|all\s+things\s+considered|all\s+in\s+all|"
        r"on\s+the\s+whole)\s*,?\s+(?:the\s+)?{pick}(?=\s*(?:[.!;,]|$))(?!\s*,?\s+or\b)",
        Example(
            "mucr",
            "Option 2 or Option 4; both could cause the spilled flour on the floor. On balance Option 4, because the "
            "small handprints are in the flour.",
            4,
        ),
    ),
    # the choice a reply goes with, said by what it shows, then its option after a comma ending the clause: "If I had
    # to pick, I'd go with the doorbell, option 3." (BH's first contact, after "the cause could be the mail carrier
    # (option 2) or the doorbell ringing (option 3)"; not "I'd go with the doorbell, option 3 or 2.")
    verdict(
        r"\b(?:i'd|i\s+would|i'll|i\s+will)\s+(?:go\s+with|pick|choose|select|opt\s+for)\s+(?:the|a|an)\s+"
        r"[^\W\d_]+(?:[ \t]+[^\W\d_]+){{0,3}}[ \t]*,[ \t]*{named_pick}(?=\s*(?:[.!;]|$))",
        Example(
            "mucr",
            "The cause could be the mail carrier (option 2) or the doorbell ringing (option 3). If I had to pick, I'd "
            "go with the doorbell, option 3.",
            3,
        ),
    ),
    # "Both 1 and 2 are plausible, but 1 is slightly more so" (not "1 is unlikely, and 2 is even more so"); the verb
    # left out ("Both are plausible, but the right one more so, since ...": BG's first contact; not "..., but 1 less
    # so", nor "..., but 1 and 2 more so than ...")
    verdict(
        r"\b(?:both|either)\b[^.;\n]*\b(?:plausible|likely|possible|reasonable)\b[^.;\n]*?,?\s*but\s+{pick}\s+(?:is\s+)?"
        r"(?:slightly\s+|somewhat\s+|a\s+bit\s+|much\s+|far\s+|even\s+)?more\s+so\b",
        Example("nleye", "Both 1 and 2 are plausible, but 1 is slightly more so because of the sun.", 1),
        Example(
            "panels", "Both are plausible, but the right one more so, since the paint would come from the ladder.", 2
        ),
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
        rf"\b{QUALITY_CUE}\s*(?:is|would\s+be)\s*[:=-]?\s*{ARTICLE}(?:one\s+(?:(?:shown|depicted)\s+)?in\s+(?:the\s+)?|one\s+)?"
        r"{pick}",
        Example("nleye", "The more plausible image is 1.", 1),
        # "the one in image 3" (AW's first contact, counting the context image)
        Example("nleye", "Image 2 is impossible. So the more plausible hypothesis is the one in image 3.", 2),
    ),
    verdict(
        rf"(?:^|(?<=[.!?;]))\s*(?:the\s+)?{QUALITY_CUE}\s*[:=-]\s*{ARTICLE}{{pick}}",
        Example("nleye", "More plausible: Image 2", 2),
    ),
    # "2 is more plausible", "Option 3 is the most likely cause", "1 is closer", "image 1 makes more sense"
    # (not "image 1 is more likely to be in the morning": a property, not the answer)
    # "The second picture, the first hypothesis, is the more plausible one"
    verdict(
        rf"{{pick}}{APPOSITIVE}\s*[,-]?\s*{COPULA}\s+{ARTICLE}(?:{MORE}|(?<=\bthe\s)(?:more|most)\s+immediate|correct|the\s+(?:(?:actual|real|true|root|underlying|direct|immediate)\s+)?(?:answer|effect|cause|cue|link)|(?<=\bis\s)what\s+(?:caused|causes|led\s+to|leads\s+to))\b(?!\s+to\s+(?:be|have)\b)",
        Example("nleye", "2 is more plausible.", 2),
        # "is what caused": the answer's role said by its verb (BV's first contact: "The cause is Option 2. Looking at
        # the options, Option 3 — the man leaving his keys on the kitchen table — is what caused him to be locked out
        # in the effect image.", two answers, read 2; not "Option 3 is not what caused ...")
        Example("mucr", "Option 3 is what caused him to be locked out in the effect image.", 3),
        Example("cue", "4. The police officer in the second image is the link between the car and the ticket.", 4),
        Example("mucr", "Option 3 is the most likely cause.", 3),
        Example("nleye", "Image 1 makes more sense.", 1),
        Example("panels", "The second image in the row, showing the boy with a cast, is more plausible.", None),
        Example("mucr", "Option 2 (a person dropping a glass) is the closest.", 2),
        # after a refusal qualified, "is the closest cause" (doubt_rules._CHOSEN_AFTER_BUT; BH's first contact)
        Example(
            "mucr",
            "None of the options is a perfect match for the effect image, a rainbow over a field, but option 2 (the "
            "sun breaking through after a rain shower) is the closest cause.",
            2,
        ),
        # "the actual cue", "the real cue" (AR's first contact)
        Example("cue_words", "Road (3) seems related, but speeding (2) is the actual cue.", 2),
        # "the root cause" (AT's first contact: "2) speeding\n4) police officer\nBoth are relevant, but speeding is
        # the root cause.")
        Example("cue_words", "2) speeding\n4) police officer\nBoth are relevant, but speeding is the root cause.", 2),
        # "more direct", of a cause or effect (AZ's first contact, after two options held possible)
        Example("mucr", "Options 1 and 2 could both cause this effect, but Option 2 is more direct.", 2),
        # "the direct effect" (BH's first contact, after two options said to show damage: "Options 2 and 4 both show
        # damage after the cyclone in the cause image, but 4 (the uprooted palm trees along the shore) is the direct
        # effect; 2 is the clean-up afterwards.")
        Example(
            "mucr",
            "Options 2 and 4 both show damage after the cyclone, but 4 (the uprooted palm trees) is the direct effect; "
            "2 is the clean-up afterwards.",
            4,
        ),
        # "the more immediate one", of a cause or effect (BL's first contact, after two options held possible: "Option
        # 3 or Option 4 — both could be effects of the snowfall. If I have to pick, the buried car in Option 4 is the
        # more immediate one."; with its article: not "Option 2 seems more immediate, while Option 3 is a later
        # consequence. ... both seem valid effects", S's, no answer)
        Example(
            "mucr",
            "Option 3 or Option 4 — both could be effects of the snowfall. If I have to pick, the buried car in Option "
            "4 is the more immediate one.",
            4,
        ),
    ),
    # "Option 3 comes closest" (BF's first contact, after no option held a perfect match; not before the answer its
    # clause goes on to after "but": "Option 3 comes closest visually, but Option 1 is the actual effect.", round 50's
    # review)
    verdict(
        rf"{{pick}}{APPOSITIVE}\s+(?:comes|came|gets)\s+(?:the\s+)?(?:closest|nearest)\b(?![^.;!?\n]*\bbut\b)",
        Example("mucr", "None of the options is a perfect match, but Option 3 comes closest: a waxy puddle.", 3),
    ),
    # ... or "wins" the comparison, and what tips it to an answer after a colon closing the reply: "Equally plausible at
    # first sight, but on balance hypothesis 1 wins: the muddy boots ..." and "Equally plausible at first glance, ...,
    # but the rectangular box in the context tips it: 1." (BY's first contact, unread after "equally"; not "Hypothesis 1
    # wins at first sight, but hypothesis 2 fits better.", nor "... tips it: 1 or 2.")
    verdict(
        rf"{{pick}}{APPOSITIVE}\s+(?:wins|won)\b(?![^.;!?\n]*\bbut\b)",
        Example("nleye", "Equally plausible at first sight, but on balance hypothesis 1 wins: the boots match.", 1),
    ),
    verdict(
        r"\btips\s+(?:it|the\s+(?:balance|scales))\s*:\s*{pick}(?=\s*[.!]?\s*$)",
        Example("texts", "Equally plausible at first glance, but the box in the context tips it: 1.", 1),
    ),
    # "..., which makes image 1 the more plausible hypothesis", "..., making image 1 the more plausible one"
    verdict(
        rf"\bmak(?:es?|ing)\s+{ARTICLE}{{pick}}\s+{ARTICLE}(?:{MORE})\b",
        Example("nleye", "Image 1 shows him training, which makes image 1 the more plausible hypothesis.", 1),
        Example("nleye", "In image 1 the glass lies shattered, making image 1 the more plausible one.", 1),
    ),
    # ... or the thing an option shows, then "makes it" the more plausible one: "... and the plumber arriving with a
    # toolbox in hypothesis 2 makes it the more plausible scenario, ..." (BR's first contact, after "Answer: 1.", read
    # 1: two answers; not "makes it less plausible", nor an option named before its own verb, "Hypothesis 2 shows a
    # plumber, which makes it ...", another rule's)
    verdict(
        rf"(?:\b(?:in|of|from)\s+){{pick}}\s+mak(?:es|ing)\s+(?:it|this|that)\s+{ARTICLE}(?:{MORE})\s+"
        r"(?:one|option|hypothesis|image|panel|answer|scenario|explanation|choice)\b",
        Example("nleye", "The plumber with a toolbox in hypothesis 2 makes it the more plausible scenario.", 2),
        Example(
            "nleye",
            "Answer: 1. The context shows a leaking pipe under a sink, and the plumber arriving with a toolbox in "
            "hypothesis 2 makes it the more plausible scenario, whereas hypothesis 1 shows a newly renovated kitchen.",
            None,
        ),
    ),
    # ... or a clause set in an option, what it shows there said to fit the context: "Hypothesis 1 is more plausible: in
    # the right image the boy is holding his report card with a big smile, which fits the context of him studying late
    # into the night." (BV's first contact on the combined image, read 1: the right image is hypothesis 2, two answers;
    # not "which does not fit the context", nor "which fits the context less well", nor "but")
    verdict(
        # (the mention marked with its "in": «in the right image»)
        r"(?:^|(?<=[.!?:;]))\s*(?:in\s+)?{pick}\s*,?\s+(?:the|a|an|he|she|they|we|you)\s+[^.;!?\n«‹]{{1,100}}?,\s*"
        r"which\s+(?:fits|matches|suits)\s+the\s+context\b"
        r"(?![^.;!?\n]*\b(?:less|worse|poorly|not|but|though|although)\b)",
        Example("panels", "In the right image the boy is holding his report card, which fits the context.", 2),
        Example(
            "panels",
            "Hypothesis 1 is more plausible: in the right image the boy is holding his report card with a big smile, "
            "which fits the context of him studying late into the night.",
            None,
        ),
    ),
    # ... or the one the reply would pick: "Pesticide use is known to harm pollinators, which makes Option 2 the effect
    # I would pick." (BL's first contact, after a list of every option, unread; not "..., which would make Option 2
    # the effect I would pick", nor "... the effect I would pick if the bees were visible")
    verdict(
        rf"\bmak(?:es|ing)\s+{ARTICLE}{{pick}}\s+{_ONE_I_PICK}",
        Example(
            "mucr",
            "Option 1 shows a supermarket; Option 2 shows dead bees. Pesticide harms pollinators, which makes Option 2 "
            "the effect I would pick.",
            2,
        ),
    ),
    # ... or what an option shows, then "that's the one I'd choose" after a dash: "Option 2 shows an open window during
    # a snowstorm, which would make the room freezing — that's the cause I'd choose." (BL's first contact, unread; not
    # "... — that's the cause I'd choose if the window were open")
    verdict(
        r"(?:^|(?<=[.!?;:]\s)|(?<=\n)){pick}\s+(?:shows|depicts|illustrates)\b[^.;!?\n«‹]{{1,160}}?\s[—–-]\s*"
        rf"(?:that's|that\s+is|this\s+is|it's)\s+{_ONE_I_PICK}",
        Example(
            "mucr",
            "Option 1 shows a heater being installed. Option 2 shows an open window during a snowstorm, which would "
            "make the room freezing — that's the cause I'd choose. Option 3 shows a hot cup of tea.",
            2,
        ),
    ),
    # "the closest is Option 4", "the best match would be 2"
    verdict(
        r"\bthe\s+(?:closest|best|nearest|likeliest)(?:\s+(?:match|fit|one|option|candidate|answer))?\s+"
        rf"(?:is|would\s+be)\s*:?\s*{ARTICLE}{{pick}}",
        Example("mucr", "None fits perfectly. If I must choose, the closest is Option 4.", 4),
    ),
    # the answer named, then referred to: "The middle panel shows a boy with a bandage. This is the more plausible one."
    # (or after "so" in its own sentence: "Answer: 1. The hypothesis 2 image clearly shows what happened just before the
    # context (the boy slipping on the icy step), so it is the more plausible one.", BN's first contact, read 1: two
    # answers; not where another option is named between them, "Image 1 shows a cat and image 2 a dog, so it is ...")
    verdict(
        r"(?:^|(?<=[.!?]\s))(?:the\s+)?{named_pick}[^.!?\n«‹]{{0,200}}"
        r"(?:[.!?]\s+|,\s*(?:and\s+)?(?:so|thus|hence|therefore)\s+)(?:this|it|that)(?:\s+is|'s)\s+"
        rf"(?:the\s+)?(?:{MORE})\s+(?:one|option|hypothesis|image|panel|answer)\b",
        Example("panels", "The middle panel shows a boy with a bandage. This is the more plausible one.", 1),
        Example(
            "nleye",
            "Answer: 1. The hypothesis 2 image clearly shows what happened just before the context (the boy slipping "
            "on the icy step), so it is the more plausible one.",
            None,
        ),
        Example("nleye", "Hypothesis 2 shows the boy slipping on the icy step, so it is the more plausible one.", 2),
    ),
    # a cue named in another language, then its number: "线索是「超速」（2）" (the cue is "speeding" (2))
    verdict(
        r"\b(?:cue|answer)\s+is\s+[^\W\d_]{{1,12}}\s*\(\s*{pick}\s*\)",
        Example("cue", "线索是「大雨」（3）。", 3),
    ),
    # "The more plausible hypothesis is that the child is holding an unwrapped rectangular present"
    verdict(
        rf"\b(?:more|most)\s+{QUALITY}\s+(?:hypothesis|scenario|one|option|explanation)\s+is\s+"
        r"(?:that|the\s+one\s+(?:where|in\s+which))\s+[^.;«‹\n]{{0,60}}?{pick}",
        Example("texts", "The more plausible hypothesis is that the man is a sunbathing one.", 2),
    ),
    # ... the one it shows by what it shows, then named after "which is", ending its clause: "The more plausible
    # hypothesis is the one showing the farmer harvesting the wheat, which is hypothesis 2. ... Hypothesis 1 shows seeds
    # being planted, ..." (BK's first contact, unread; not "..., which is not hypothesis 1", nor "..., which is
    # hypothesis 2 or 1", nor the less plausible one)
    verdict(
        rf"\b{QUALITY_CUE}\s+(?:is|would\s+be)\s+the\s+one\s+(?:showing|that\s+shows|where|in\s+which|with)\s+"
        r"[^.;!?\n«‹]{{1,80}}?,\s*(?:which|that)\s+(?:is|would\s+be)\s+(?:shown\s+in\s+)?{pick}(?=\s*(?:[.!;,]|$))",
        Example(
            "nleye",
            "The more plausible hypothesis is the one showing the farmer harvesting the wheat, which is hypothesis 2. "
            "Hypothesis 1 shows seeds being planted, which is too early in the season.",
            2,
        ),
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
        rf"{{pick}}\s+(?:forms|makes|tells|creates|gives)\s+(?:a\s+)?(?:much\s+|far\s+)?(?:more|most)\s+{QUALITY}\s+"
        r"(?:story|narrative|sequence|picture)\b",
        Example("nleye", "Overall, image 1 forms a much more coherent story with the context.", 1),
    ),
    # after a self-correction: "no, I'll stay with 3: ...", "sorry, I mean the image on the right"
    verdict(
        rf"\b(?:(?:stay|stick|go|going)\s+with|i\s+meant?(?:\s+the\s+(?:image|picture|one|option))?)\s+{ARTICLE}{{pick}}"
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
    # and before its reason: "Option 3? Option 1? I think Option 1, because the overflowing bathtub explains ..." (BF's
    # first contact; not before an answer heading: "I think Option 1, because ...\nAnswer: 3", round 50's review)
    # or before another held possible after "but", ending its clause: "I think Option 1, but Option 4 is also
    # possible — ..." (BP's first contact, unread: a hedge beside the answer, as the adjudication Y reads "Option 1 (but
    # honestly it could be Option 3)."; not "..., but Option 4 is equally plausible", a tie, nor "..., but Option 4 is
    # possible if ...")
    verdict(
        rf"\bI\s+(?:now\s+)?(?:believe|think)\s+(?:it's\s+|it\s+is\s+)?{ARTICLE}{{named_pick}}"
        r"(?=\s*(?:[.!]|$)|\s*,\s*(?:because|since|as|given)\b(?![\s\S]*{answer_heading})"
        r"|\s*,\s*but\s+(?:the\s+)?{any_mention}\s+(?:is|seems)\s+(?:also\s+)?(?:possible|plausible)"
        r"(?=\s*(?:[.!;]|\s-\s|$)))",
        Example(
            "mucr",
            "Option 1 - wait, the graph says 1, which might just refer to the cause image itself. Re-evaluating the "
            "pictures, I believe Option 2.",
            2,
        ),
        Example("mucr", "Option 3? Option 1? I think Option 1, because the bathtub explains the dripping ceiling.", 1),
        Example("mucr", "I think Option 1, but Option 4 is also possible - Option 1 shows a paint-stained carpet.", 1),
    ),
    # ... or a bare number so, opening the reply and ending its sentence: "I think 2. The context shows a mountain
    # climber at the base camp, and 2 shows him at the summit with a flag; ..." (BM's first contact, unread; not "I
    # think 2 of them fit.", nor "I think 2, or maybe 1.")
    verdict(
        r"\AI\s+(?:think|believe)\s+{pick}(?=\s*[.!](?:\s|$))",
        Example("nleye", "I think 2. The context shows a climber at the base camp, and 2 shows him at the summit.", 2),
    ),
    verdict(
        r"{pick}\s+(?:was|is)\s+(?:right|correct)(?:\s+after\s+all)?(?=\s*(?:[.!;]|$))",
        Example("mucr", "Option 2 - correction, Option 1 - no wait, Option 2 was right.", 2),
    ),
    verdict(
        rf"(?:^|(?<=[.!?;]))\s*keep\s+{ARTICLE}{{pick}}(?=\s*(?:[.!]|$))",
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
        rf"\bso\s+(?:this|that)\s+one\s+is\s+{ARTICLE}{{named_pick}}(?=\s*(?:[.!;]|$))",
        Example("mucr", "The pattern so far is Option 1, then Option 2, so this one is Option 3.", 3),
    ),
    # "I find the rightmost panel more plausible", "I consider image 2 (to be) the more plausible one"
    verdict(
        rf"\b(?:find|consider|deem|judge)\s+{ARTICLE}{{pick}}\s+(?:to\s+be\s+)?{ARTICLE}(?:{MORE})\b",
        Example("nleye", "I find the rightmost panel more plausible.", 2),
        Example("nleye", "I consider image 2 to be the more plausible one.", 2),
    ),
    # "1 is less plausible than 2"; "2 is more plausible than 1", "Option 1 is a much better match than Option 4"
    verdict(
        rf"{{reject}}\s*{COPULA}\s+{ARTICLE}{INTENSIFIER}(?:{LESS}){COMPARED_NOUN}\s+than\s+(?:that\s+of\s+)?"
        rf"{ARTICLE}{{pick}}",
        Example("nleye", "1 is less plausible than 2.", 2),
        Example("mucr", "Option 4 is a far worse fit than Option 1.", 1),
    ),
    verdict(
        rf"{{pick}}\s*{COPULA}\s+{ARTICLE}{INTENSIFIER}(?:{MORE}){COMPARED_NOUN}\s+than\s+{ARTICLE}{{reject}}",
        Example("nleye", "2 is more plausible than 1.", 2),
        Example("mucr", "Option 1 is a much better match than Option 4, since a ticket follows from speeding.", 1),
    ),
    # "Middle image: more plausible", "Image 2 → more plausible"
    verdict(
        rf"{{pick}}\s*[:→-]\s*(?:{MORE})\b",
        Example("panels", "Middle image: more plausible", 1),
        Example("nleye", "Image 2 → more plausible", 2),
    ),
    # "not 1 but 2", "Not option 2, which shows a dry road, but option 4"
    verdict(
        rf"\bnot\s+{ARTICLE}{{reject}}[^.;\n]{{{{0,80}}}}?\bbut\s+(?:rather\s+)?{ARTICLE}{{pick}}",
        Example("nleye", "Not 1 but 2.", 2),
        Example("mucr", "Not option 2, which shows a dry road, but option 4.", 4),
    ),
    verdict(
        rf"\bnot\s+{ARTICLE}{{reject}}\s*(?:[-:;,]|\bbut\b)\s*(?:it'?s\s+|it\s+is\s+|rather\s+)?{ARTICLE}{{pick}}(?=\s*(?:[.!;,]|$))",
        Example("label", "not a strengthener — weakener", "weakener"),
    ),
    # the answer's role, then its option: "The effect of the heavy rain in the cause image is Option 3", "The cause is
    # the child throwing the ball shown in Option 1, ...", "The effect image shows the broken vase, which is Option 3."
    # (not "the effect could be in option 2 or 4", "the cause is not in option 1"); or where it is: "The effect — the
    # spilled paint on the floor — is in Option 3." (BE's first contact, after "1. No wait, Option 1 just repeats the
    # cause image.", read 1; not "The effect is in Option 2 or 4")
    verdict(
        r"\b(?:effect|cause|cue)\b(?:(?!\b(?:could|might|may|perhaps|possibly|if|not|no|or|n't)\b)[^.;:?!\n]){{0,100}}?"
        rf"(?:\bis(?:\s+in)?|\b(?:shown|depicted|pictured|seen)\s+in|,\s*which\s+is)\s+{ARTICLE}{{named_pick}}"
        r"(?=\s*(?:[.!;,:]|$))",
        Example("mucr", "The effect of the heavy rain in the cause image is Option 3.", 3),
        # the role in the picture the prompt gives the question, then its option (BG's first contact: STATEMENTS[0] no
        # longer picks the picture)
        Example("mucr", "The cause in image 3 is Option 4: the open window let the rain soak the sofa.", 4),
        Example("mucr", "The effect image shows the broken vase, which is Option 3.", 3),
        Example(
            "mucr",
            "1. No wait, Option 1 just repeats the cause image. The effect — the spilled paint — is in Option 3.",
            3,
        ),
    ),
    # an option given for the question, ending its clause, just after the examples' answers restated ("Following the
    # examples, the answer is Option 1 for Example 1, Option 2 for Example 2, and Option 3 for the question.": BX's
    # first contact, unread; not without them, round 44's "Option 4 for the question. (For reference, Option 1 and
    # Option 2 fit too.)", no answer, nor two offered, "Option 2 or Option 3 for the question.")
    verdict(
        r"\bexamples?\s*[«‹].[»›]\s*(?:,\s*(?:and\s+)?|and\s+){named_pick}\s+(?:for|to|in)\s+(?:the|this)\s+"
        r"(?:actual\s+|real\s+|new\s+)?question(?=\s*(?:[.!;]|$))",
        Example(
            "mucr",
            "Following the examples, the answer is Option 1 for Example 1, Option 2 for Example 2, and Option 3 for "
            "the question.",
            3,
        ),
    ),
    # the answer's role given what it shows, then the option it appears in, after "which", ending the clause: "The most
    # natural effect is the ducks crowding around the child, which appears in Option 4. Options 1-3 show unrelated
    # scenes." (BS's first contact, unread; not "The cause image shows a dog, which appears in Option 2.", nor "...,
    # which appears in Option 4 too", nor "..., which might appear in Option 4")
    verdict(
        r"\b(?:effect|cause|cue)\s+(?:is|would\s+be)\s+(?!not\b|no\b)[^.;:!?\n«‹]{{1,80}}?,\s*which\s+"
        r"(?:appears|is\s+shown|is\s+seen|can\s+be\s+seen)\s+in\s+{named_pick}(?=\s*(?:[.!;]|$))",
        Example(
            "mucr",
            "The most natural effect is the ducks crowding around the child, which appears in Option 4. Options 1-3 "
            "show unrelated scenes.",
            4,
        ),
    ),
    # the answer's place set against another's, ending the clause: "the effect should be the cold, shivering person in
    # Option 4, not the fresh flowers in Option 1." (BD's first contact, after "I believe Option 1 is correct."); or
    # before its reason after a comma: "The effect (a man with a black eye) is caused by the boxing match in Option 1,
    # not the bar fight in Option 3, because he is wearing boxing gloves in both images." (BN's first contact, unread;
    # not "..., not the bar fight in Option 3, or in Option 2")
    verdict(
        r"\b(?:in|from)\s+{pick}\s*,\s*not\s+(?:the|a|an)\s+[^«‹.,;:!?\n]{{1,60}}?\s+(?:in|from)\s+{reject}"
        r"(?=\s*(?:[.!;]|$|,\s*(?:because|since|as|given\s+that)\b))",
        Example(
            "mucr",
            "I believe Option 1 is correct. But the effect is the cold person in Option 4, not the flowers in "
            "Option 1. So Option 4.",
            4,
        ),
        Example(
            "mucr",
            "The effect (a man with a black eye) is caused by the boxing match in Option 1, not the bar fight in "
            "Option 3, because he is wearing boxing gloves in both images.",
            1,
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
        rf"\bI\s+(?:find|consider|think)\s+(?:the\s+one\s+)?{{pick}}\s+(?:to\s+be\s+)?(?:the\s+)?(?:{MORE})\b",
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
        rf"(?:\w+\s+)?(?:{MORE}|more\s+so)\b",
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
        rf"(?:{LESS}|implausible|unlikely|improbable)\b",
        Example("nleye", "I find image 1 less plausible.", 2),
    ),
    # "I'd go with 2", "I choose image 1", "I lean towards 1", "it must be option 2", "I'll change my answer to 2"
    verdict(
        rf"\b(?:choose|chose|select|pick|go\s+with|going\s+with|settle\s+on|opt\s+for|lean(?:ing)?{ADVERBS}(?:\s+towards?)?|must\s+be"
        rf"|(?:chang|switch|revis)\w*(?:\s+(?:my\s+answer|it))?\s+to"
        rf"|(?:i'd|i\s+would|i'll|i\s+will|i'm\s+going\s+to)\s+(?:still\s+)?(?:say|guess)|classif(?:y|ied)(?:\s+(?:it|this|the\s+update))?\s+as)\s*,?\s+(?:with\s+)?{ARTICLE}{{pick}}"
        # not the subject of words its number follows: "the link must be the car going too fast: 2." (BG's first
        # contact, read 1)
        + _SUBJECT_OF_A_NUMBER,
        Example("nleye", "I'd go with 2.", 2),
        # "I'd guess" an answer, and "I'd still say" one after a refusal: "It's hard to say, but I'd guess 2. The
        # context shows ..." and "Neither of the hypothesis images seems right to me - ... If forced to, I'd still say
        # the right one, since ..." (BR's first contact, unread: a guess given is an answer, as "I would guess Option
        # 1, though I'm not confident" read; not "maybe 2?", nor "I'd guess 2 or 1")
        Example("nleye", "It's hard to say, but I'd guess 2. The context shows people holding umbrellas.", 2),
        Example(
            "panels",
            "Neither seems right - the middle shows a car wash and the right shows a garage. If forced to, I'd still "
            "say the right one.",
            2,
        ),
        # after an answer heading naming two, the one picked after a dash (doubt_rules.DOUBTS; BH's first contact)
        Example(
            "cue_words",
            "Answer: 2 or 4 (speeding / police officer) – I'll pick 2, since the officer only appears because of the "
            "speeding.",
            2,
        ),
        Example("nleye", "I lean towards 1.", 1),
        # "lean" alone before the answer (AY's first contact, after the labels asked: "Weakener? Strengthener? I'd lean
        # strengthener, since ...")
        Example("label", "Weakener? Strengthener? I'd lean strengthener, since age doesn't change it.", "strengthener"),
        Example("mucr", "It must be option 2.", 2),
    ),
    # "the right one better matches the context", "option 2 fits best", "image 2 - the couple cutting the cake - is the
    # one that fits the wedding best", "The right image, showing the girl with a cast, better explains the crutches"
    verdict(
        rf"{{pick}}{APPOSITIVE}\s+(?:(?:better|best)\s+(?:match|fit|suit|explain)\w*|(?:matches|fits|suits)\s+"
        rf"(?:the\s+(?:context|scene|story)\s+)?{INTENSIFIER}(?:better|best)"
        # what it explains, one noun: "Hypothesis 2 explains the injury best." (BD's first contact, after the hypotheses
        # described as headings; not "explains the fall of the ladder best", nor "explains the injury, but not best")
        rf"|explains\s+the\s+[^\W\d_]+\s+{INTENSIFIER}(?:better|best)(?=\s*(?:[.!;,]|$)))\b",
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
    # what it fits, a noun or two, ending the sentence: "... but hypothesis 1 fits the box shape better." (BF's first
    # contact, after both held possible; not "fits the box shape better than the ball does", nor before "but" another
    # answer, nor a condition: "If hypothesis 1 fits the box shape better, then ...", round 50's review)
    verdict(
        rf"(?<!\bif\s)(?<!\bwhether\s)(?<!\bunless\s){{pick}}{APPOSITIVE}\s+(?:matches|fits|suits)\s+the\s+[^\W\d_]+"
        rf"(?:\s+[^\W\d_]+)?\s+{INTENSIFIER}(?:better|best)(?=\s*(?:[.!;]|$))",
        Example(
            "texts",
            "Both hypotheses are possible, since the context can occur before or after them, but hypothesis 1 fits the "
            "box shape better.",
            1,
        ),
    ),
    verdict(
        rf"{{pick}}{APPOSITIVE}\s+is\s+the\s+one\s+(?:that|which)\s+(?:(?:better|best)\s+\w+|\w+(?:\s+[^\W\d_]+){{{{0,4}}}}\s+(?:better|best))\b",
        Example("nleye", "Image 2 - the couple cutting the cake - is the one that fits the wedding best.", 2),
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
        # the pair "cause and effect" before a colon heads no answer after it (STATEMENTS; BH's first contact)
        Example(
            "cue",
            "2 (speeding). Like the examples, the cue is the action that links cause and effect: the car in the left "
            "picture is speeding.",
            2,
        ),
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
        # (after "So" too, with the option's own text after a comma: "1. Car — actually, the car itself isn't the cue;
        # ... So 2, speeding.", BY's first contact, unread; not "So 2 or 4.")
        r"(?:(?<=[.!?;])|^)\s*(?:(?:so|thus|hence|therefore)\s*,?\s+)?(?:the\s+)?{pick}(?:\s*,\s*«.»)?\s*(?=[.!;]|$)"
        + _FIRST_STEP,
        Example("label", "Does it strengthen the hypothesis? Weakener.", "weakener"),
        Example("cue", "The heavy rain. In the second image, the street is flooded.", 3),
        Example("cue_words", "1. Car — actually, the car itself isn't the cue. So 2, speeding.", 2),
    ),
)
