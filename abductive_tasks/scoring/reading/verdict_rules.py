"""The verdict table: the picks and rejections of an option or label that state no answer as a statement does
(``rules.STATEMENTS``) but choose or reject one ("probably 2", "| 2 | Yes |", "2 > 1", "so 2.", "not 1", "although it
might strengthen ..."), as patterns over a reply's marked mentions (the words they are written in:
``verdict_patterns``).

Each rule carries the example replies it exists for; tests/scoring/test_rule_examples.py reads every one. Adding a
rule: docs/reading.md.
"""

from __future__ import annotations

from abductive_tasks.scoring.reading.correction_rules import CORRECTION_WORDS, FIRST_THOUGHT_SET_ASIDE
from abductive_tasks.scoring.reading.mentions import ANY_MENTION
from abductive_tasks.scoring.reading.table import Example
from abductive_tasks.scoring.reading.verdict_patterns import (
    APPOSITIVE,
    ARTICLE,
    COPULA,
    LESS,
    LIST_ITEM_END,
    NEGATED_VERB,
    NOT_A_MIDDLE_CELL,
    WORSE,
    verdict,
)

__all__ = ["VERDICTS"]

# "it", "this" or "that" as a preposition's object, no subject: "a swing hanging from it is ..."
_NOT_AN_OBJECT = "".join(
    rf"(?<!\b{preposition}\s)"
    for preposition in ("from", "on", "in", "of", "to", "with", "at", "by", "under", "behind", "into", "onto", "about")
)

# Other verdicts that choose or reject an option or label.
# a ranked item's own phrase, words before its number in parentheses: "... > ball-shaped present (Hypothesis 2)" (not a
# function's value, "f'(2) < f'(5)", a public reply's)
_RANKED_PHRASE = r"(?:[^\W\d_]{{2,}}[^()<>«‹\n.;:!?]{{0,60}}?\s(?=\(\s*[«‹]))?"

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
    # "Less plausible: Image 1", "Right image: less plausible": a heading opens its line or sentence (not the
    # predicate of a clause: "..., but the update that the street is dry makes rain unlikely: weakener.", BT's first
    # contact, read strengthener, the label after the colon rejected)
    verdict(
        r"(?:^|(?<=[.!?;|])|(?<=\*\*))[ \t]*(?:[-*•][ \t]+)?(?:\*\*)?"
        rf"(?:{LESS}|implausible|unlikely|improbable)\s*:\s*{ARTICLE}"
        # or the option named by its content, after "the one with" or "the one where" (BW's first contact: "**More
        # plausible:** the one where the unwrapped present is rectangular.\n**Less plausible:** the one with the
        # ball-shaped present." on the text triplet, read 2; not another sentence after the heading's)
        r"(?:one\s+(?:with|where|in\s+which|showing|that\s+shows)\b[^.;!?\n«‹]{{0,80}}?)?{reject}",
        Example("nleye", "Less plausible: Image 1", 2),
        Example("nleye", "More plausible: image 2. Less plausible: image 1.", 2),
        Example(
            "presents",
            "More plausible: the one where the unwrapped present is rectangular.\nLess plausible: the one with the "
            "ball-shaped present.",
            1,
        ),
    ),
    # the answer's role said of the other: "The less plausible one is hypothesis 1." (BJ's first contact, unread; of two
    # hypotheses, the other; not "the less plausible detail is the hat")
    verdict(
        rf"\bthe\s+(?:{LESS})(?:\s+(?:one|image|hypothesis|option|choice|picture|scenario|candidate|panel))?"
        rf"(?:\s+of\s+the\s+(?:two|four)(?:\s+(?:images|hypotheses|options|pictures))?)?\s+{COPULA}\s+{ARTICLE}{{reject}}",
        Example("nleye", "The less plausible one is hypothesis 1. Hypothesis 2, with the short cut, matches.", 2),
        Example("nleye", "The least likely of the two is image 2.", 1),
        Example("mucr", "The less plausible one is Option 1.", None),
    ),
    verdict(
        rf"{{reject}}\s*[:→=-]\s*(?:{LESS}|implausible|unlikely|improbable)\b",
        Example("panels", "Right image: less plausible", 1),
        # with "=" (AX's first contact)
        Example("panels", "right image = more plausible (2). middle image = less plausible (1).", 2),
    ),
    # "Image 2 is implausible", "Option 2 is not the effect", "Image 1 does not make sense"
    verdict(
        rf"{{reject}}{APPOSITIVE}\s*(?:{COPULA}\s+(?:{WORSE})|{NEGATED_VERB})",
        Example("nleye", "Image 2 is implausible.", 1),
        Example("texts", "Hypothesis 2 (the man on a beach) is very unlikely. The plausible one is Hypothesis 1.", 1),
        Example("mucr", "Option 2 is not the effect.", None),
        Example("nleye", "Image 1 does not make sense.", 2),
    ),
    # an option left out (round 65's guard "Option 1 is unrelated. That leaves Option 3 out.", none, once round 69 read
    # "is unrelated" as a rejection: not "That leaves Option 3, a broken window.", 3)
    verdict(
        r"\bleaves?\s+{reject}\s+out\b",
        Example("mucr", "Option 1 is unrelated. That leaves Option 3 out.", None),
    ),
    # "not a strengthener", "neither 1 nor 2", "rather than 1", "instead of 1", "doesn't strengthen"
    verdict(
        rf"(?:\b(?:not|neither|nor|rather\s+than|instead\s+of)|n't)\s+{ARTICLE}{{reject}}",
        Example("label", "It is not a strengthener.", None),
        Example("nleye", "Neither 1 nor 2.", None),
    ),
    # an answer denied after another ("..., and neither is the road", "nor is the road": BQ's first contact, unread: "2
    # — speeding. The car isn't the cue by itself, since it appears in both images, and neither is the road; ...")
    verdict(
        rf"\b(?:neither|nor)\s+(?:is|was|are|were|does|do)\s+{ARTICLE}{{reject}}",
        Example("cue", "3 — heavy rain. The slippery floor isn't the cue, and neither is the broken glass.", 3),
    ),
    # ... and the one after "or" there ("Option 1 does not show the cause; neither does option 2 or option 4.": BR's
    # first contact, both denied, no answer; before "The remaining candidate, ..., is the cause", read 3)
    verdict(
        rf"\b(?:neither|nor)\s+(?:is|was|are|were|does|do)\s+{ARTICLE}{{any_mention}}\s*,?\s+or\s+{ARTICLE}{{reject}}",
        Example("mucr", "Option 1 does not show the cause; neither does option 2 or option 4.", 3),
    ),
    # "Option 4 is the effect itself seen from another angle", "The police officer is part of the effect itself": the
    # given image itself, no answer (AJ's first contact)
    verdict(
        rf"{{reject}}{APPOSITIVE}\s*{COPULA}\s+(?:just\s+|merely\s+|simply\s+|only\s+)?(?:part\s+of\s+)?the\s+"
        r"(?:effect|cause)(?:\s+image)?\s+itself\b",
        Example("mucr", "Option 4 is the effect itself from another angle. The cause is therefore Option 3.", 3),
        Example("cue", "The broken glass is part of the effect itself. That leaves heavy rain.", 3),
    ),
    # "Option 1 just repeats the cause image", "Option 1 is actually identical to the cause image", "Option 4 shows the
    # effect image again": the given image again, no answer (BE's first contact: after "Option 1 shows the effect. Hmm,
    # ...", read 1; not "Option 1 is identical to the cause image except for the broken window", how the two differ)
    verdict(
        rf"{{reject}}{APPOSITIVE}\s*(?:just\s+|merely\s+|simply\s+|only\s+)?(?:{COPULA}\s+(?:just\s+|merely\s+|simply\s+)?"
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
        rf"{{reject}}{APPOSITIVE}\s*(?:can|must|should|is|are|has\s+been|was)\s+(?:(?:safely|clearly|easily|already)\s+)?"
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
        rf"{{reject}}{APPOSITIVE}\s*(?:shows|depicts|describes|portrays)\s+(?:an?\s+)?(?:outcome|event|scene|situation|"
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
        rf"(?:^|(?<=[.;!?]))\s*{ARTICLE}{{reject}}(?:(?![«‹])[^.;!?\n])*?,?\s*\b(?:so|and|hence|thus|therefore)\s+"
        r"(?:I|we)\s+(?:can\s+|must\s+|will\s+)?(?:rule|ruled)\s+it\s+out\b",
        Example(
            "nleye",
            "Hypothesis 1 would only make sense if the context happened after it, but the clock in the context reads "
            "earlier, so I rule it out. The answer is the other one.",
            2,
        ),
    ),
    verdict(
        rf"\b(?:rule|ruling|rules|ruled)\s+out\s+{ARTICLE}{{reject}}",
        Example("nleye", "We can rule out image 2: the cat in it is black.", 1),
    ),
    # "Car and road appear in both images ... That leaves speeding.": what an elimination leaves (AH's first contact)
    verdict(
        rf"\b(?:that|which|this)\s+leaves\s+(?:(?:only|just)\s+)?{ARTICLE}{{pick}}(?=\s*(?:[.;!)\n]|$))",
        Example("cue", "The slippery floor is in both images, so it explains no change. That leaves heavy rain.", 3),
    ),
    # "Probably 2, but I'm not sure": a probable pick is a pick ("maybe 3?" is a guess, no pick)
    # (before a parenthesis too: "Most likely Option 4 (possibly Option 2). ...", BO's first contact, unread: a hedge in
    # parentheses after the answer, as the adjudication Y read "Option 1 (but honestly it could be Option 3).")
    verdict(
        rf"\b(?:most\s+)?(?:probably|likely|clearly|definitely|obviously|certainly)\s*,?\s+{ARTICLE}{{pick}}"
        r"(?=\s*(?:[.,;!)(]|\s-\s|$))",
        Example("nleye", "Probably 2, but I'm not sure.", 2),
        Example("texts", "Which is more plausible, 1 or 2? Clearly 1 — rain leads to wet clothes.", 1),
        Example("mucr", "Most likely Option 4 (possibly Option 2). Option 4 shows a hard tackle.", 4),
    ),
    # ... or an answer opening the reply before its own low confidence, after "although" or "though": "The hypothesis in
    # the middle, although I'm not fully confident — the right one could also work if ..." (BP's first contact, unread:
    # the answer, as the adjudications Y and Z read "Weakener (low confidence), though it could also be a
    # strengthener."; not "..., although I'm not sure it fits", a doubt of what follows)
    verdict(
        r"\A\s*(?:the\s+(?:hypothesis|image|picture|option|one|panel)\s+)?{pick}\s*,\s*(?:al)?though\s+"
        r"(?:I'm|I\s+am)\s+not\s+(?:fully\s+|entirely\s+|completely\s+|totally\s+|100%\s+)?(?:sure|confident|certain)"
        r"(?=\s*(?:[.,;!]|\s-\s|$))",
        Example(
            "panels",
            "The hypothesis in the middle, although I'm not fully confident - the right one could also work if the "
            "context shows the aftermath.",
            1,
        ),
    ),
    # ... or after it, ending its clause: "Option 4 most likely, but Option 1 is close." (BO's first contact, unread;
    # not "Option 4 most likely, or Option 1.", nor "Option 4 most likely shows ...")
    verdict(
        r"{pick}\s*,?\s+most\s+(?:likely|probably)(?=\s*(?:[.,;!]|\s-\s|$))(?!\s*,?\s*or\b)",
        Example("mucr", "Option 4 most likely, but Option 1 is close. The cause shows a kid in the leaves.", 4),
    ),
    # the effect image (or the change) said to be explained by an option, opening the sentence and ending the clause:
    # "The second image is explained by the police officer (4), who pulled over the car from the first image." (BP's
    # first contact, unread; not "... is partly explained by ...", nor "... is not explained by ...", nor "... by the
    # police officer or the speeding")
    verdict(
        r"(?:^|(?<=[.!?;]))\s*(?:{any_mention}|the\s+(?:effect|change)(?:\s+(?:image|picture))?)\s+(?:is|was)\s+"
        rf"(?:best\s+|mainly\s+|fully\s+|directly\s+|clearly\s+)?explained\s+by\s+{ARTICLE}{{named_pick}}"
        r"(?:\s*\([^()\n]{{1,40}}\))?(?=\s*(?:[.,;!:]|$))",
        Example(
            "cue_words",
            "The second image is explained by the police officer (4), who pulled over the car from the first image.",
            4,
        ),
        Example("cue_words", "The effect image is explained by the speeding, not the road.", 2),
    ),
    # "options 2 and 4 both show water, but only option 4 ..."
    verdict(
        rf"\bbut\s+only\s+{ARTICLE}{{pick}}",
        Example("mucr", "Options 2 and 4 both show water, but only option 4 shows a flood.", 4),
    ),
    # the subject said to continue the context directly: "The first hypothesis, where the present is rectangular,
    # directly continues the context, while a ball-shaped gift" (BD's first contact, cut off; not "which directly
    # follows", a relative clause of what came before it, nor before "but" another answer, round 50's review)
    verdict(
        rf"{{pick}}{APPOSITIVE}\s+(?:directly|naturally)\s+(?:continues|follows(?:\s+(?:from|on\s+from))?)\s+the\s+"
        r"context\b(?![^.;!?\n]*\bbut\b)",
        Example(
            "texts",
            "The context can occur before or after the hypotheses. The first hypothesis, where the man is soaked, "
            "directly continues the context, while a sunny",
            1,
        ),
    ),
    # the cue said to link the two images' things: "The phrase 'speeding' (option 2) links the car in the cause image to
    # the police officer in the effect image." (BE's first contact; not a link denied or qualified, "links nothing to",
    # "links ... superficially, but 'speeding' (option 2) explains ...", round 50's review)
    verdict(
        rf"{{pick}}{APPOSITIVE}\s+(?:links|connects)\s+(?!(?:nothing|no|neither|none)\b)"
        r"(?![^.;:!?\n]*\b(?:superficially|loosely|weakly|partly|partially|only|but|though|although|while|whereas)\b)"
        r"(?:the\s+)?[^.;:!?\n]{{1,80}}?\s+(?:to|with|and)\s+",
        Example(
            "cue_words",
            "The phrase 'speeding' (option 2) links the car in the cause image to the police officer in the effect "
            "image.",
            2,
        ),
    ),
    # "Only option 1, the wet floor, follows from the spilled bucket.": a sentence opening on the one option said to
    # follow from or fit the given image, after the others described (AY's first contact)
    verdict(
        rf"(?:^|(?<=[.!?;:]))\s*only\s+{ARTICLE}{{pick}}"
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
        rf"{{pick}}(?:\s*[|:→-]\s*(?:yes|true|correct|high|higher)(?=\s*(?:[|.,;!]|\s-\s|$)){NOT_A_MIDDLE_CELL}"
        r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✓✔✅☑])",
        Example("nleye", "| 2 | Yes |", 2),
        Example("mucr", "Option 3 - yes, the fire explains the smoke.", 3),
        Example("label", "Weakener ❌ / Strengthener ✅", "strengthener"),
    ),
    verdict(
        rf"{{reject}}(?:\s*[|:→-]\s*(?:no|false|incorrect|low|lower|unrelated)(?=\s*(?:[|.,;!]|\s-\s|$)){NOT_A_MIDDLE_CELL}"
        r"|\s*\(\s*(?:no|false|incorrect|wrong)\s*\)"
        r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✗✘❌☒])",
        Example("nleye", "| 1 | No |", 2),
        Example("mucr", "Option 1 (no), Option 2 (no), Option 3 (yes - the bathtub), Option 4 (no). Answer: 3", 3),
        Example("mucr", "| 2 | No – a waiting room |\n| 3 | Yes – the candy explains the toothache |", 3),
        # (or called unrelated, the row left giving its option a role: BX's first contact, unread; not every row
        # unrelated)
        Example("mucr", "| 1 | unrelated |\n| 2 | unrelated |\n| 3 | effect: flooded basement |\n| 4 | unrelated |", 3),
        Example("mucr", "| 1 | unrelated |\n| 2 | unrelated |\n| 3 | unrelated |\n| 4 | unrelated |", None),
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
        # a middle cell's yes no pick (NOT_A_MIDDLE_CELL; BA's first contact)
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
    # a ranking: "2 > 1", "1 < 2"; of a chain, its head ("speeding (2) > police officer (4) > car (1) > road (3)": BO's
    # first contact, unread, read as two picks); each item a phrase and its number in parentheses ("Rectangular present
    # (Hypothesis 1) > ball-shaped present (Hypothesis 2)": BQ's first contact, unread)
    verdict(
        rf"(?<!>)(?<!>\s){{pick}}\s*>\s*{_RANKED_PHRASE}{{reject}}",
        Example("nleye", "2 > 1", 2),
        Example("cue_words", "speeding (2) > police officer (4) > car (1) > road (3)", 2),
        Example("nleye", "Wet street (Image 2) > dry street (Image 1)", 2),
    ),
    verdict(
        rf"{{reject}}\s*<\s*{_RANKED_PHRASE}{{pick}}(?!\s*<)",
        Example("nleye", "1 < 2", 2),
        Example("cue_words", "road (3) < car (1) < police officer (4) < speeding (2)", 2),
        Example("nleye", "dry street (Image 1) < wet street (Image 2)", 2),
    ),
    # an option given the cause's or the effect's role, the reply going on in its sentence to name the cue, the answer
    # the cue prompt asks for: "Speeding is the cause, the police officer is the effect, and the cue... is speeding. 2."
    # (BO's first contact, unread: read as picks of 2 and 4; not "The police officer is the effect." alone, nor "...,
    # and the cue that links them is unclear")
    verdict(
        r"{reject}\s+is\s+the\s+(?:cause|effect)\b"
        r"(?=[^.;!?\n]*?\bthe\s+cue\s*(?:\.{{2,}}|…)?\s*(?:is|would\s+be|must\s+be)\s+(?:the\s+)?{any_mention})",
        Example(
            "cue_words", "Speeding is the cause, the police officer is the effect, and the cue... is speeding. 2.", 2
        ),
    ),
    # ... or the role before the option, the cue named in its sentence or the next: "The cause is a car, and the effect
    # is a police officer writing a ticket. The cue is speeding." (BR's first contact, unread: read as picks of 1 and 4;
    # not "The cause is a car." alone, nor "..., and the cue is unclear.")
    verdict(
        r"\bthe\s+(?:cause|effect)\s+is\s+(?:the\s+|an?\s+)?{reject}"
        r"(?=[^.;!?\n]*?(?:[.;]\s+[^.;!?\n]*?)?\bthe\s+cue\s*(?:\.{{2,}}|…)?\s*(?:is|would\s+be|must\s+be)\s+"
        r"(?:the\s+)?{any_mention})",
        Example(
            "cue_words",
            "The cause is a car, and the effect is a police officer writing a ticket. The cue is speeding.",
            2,
        ),
    ),
    # "I would not pick image 2", "I wouldn't choose option 1", "never go with 3": a choice declined
    verdict(
        r"(?:\b(?:not|never)|n't)\s+(?:choose|chose|select|pick|go\s+with|opt\s+for)\s+(?:the\s+)?{reject}",
        Example("nleye", "I would not pick image 2.", 1),
    ),
    # "not 1 or 2": the negation holds for the whole list
    verdict(
        rf"(?:\b(?:not|neither)|n't)\s+{ARTICLE}{ANY_MENTION}\s*,?\s+(?:or|nor|and)\s+{ARTICLE}{{reject}}",
        Example("mucr", "Not 1 or 2; it's option 3.", 3),
    ),
    # "not 1, 2 or 3": every item of the list, the middle ones too (AN's first contact: "The answer is not 1, 2 or 3.");
    # "Option 1, 2 or 3" is one mention of a list, its items joined by "and" (round 43: "Not Option 1, 2 or 3." read
    # 3, the last item alone not rejected; "It's not Option 1, 2 or 3, since none of them involve water.", AW's: 4)
    verdict(
        rf"(?:\b(?:not|neither)|n't)\s+{ARTICLE}(?:{ANY_MENTION}{LIST_ITEM_END}{ARTICLE})+{{reject}}"
        rf"(?=\s*,?\s+(?:or|nor|and)\s+{ARTICLE}{ANY_MENTION})",
        Example("mucr", "It is not option 2, option 3 or option 4: the effect is in option 1.", 1),
        Example("mucr", "The cause is not 4, 1 or 2.", 3),
    ),
    verdict(
        rf"(?:\b(?:not|neither)|n't)\s+{ARTICLE}(?:{ANY_MENTION}{LIST_ITEM_END}{ARTICLE})+"
        rf"{ANY_MENTION}\s*,?\s+(?:or|nor|and)\s+{ARTICLE}{{reject}}",
        Example("mucr", "The effect is not 3, 4 or 1.", 2),
        Example("mucr", "Not Option 1, 2 or 3.", 4),
        Example("mucr", "It's not Option 1, 2 or 3, since none of them involve water.", 4),
    ),
    # an answer asked as a question of its own, then answered no: "Strengthens? No — the update says the players are
    # seated on the bench, so it weakens." (BU's first contact, unread: both labels named); not answered yes
    # ("Strengthens? Yes — ..."), nor a question that goes on ("Strengthens the claim? ...")
    verdict(
        r"(?:^|(?<=[.!?;]\s)|(?<=\n))[ \t]*{reject}[ \t]*\?[ \t]*no\b",
        Example(
            "label", "Strengthens? No — the update says the players are seated on the bench, so it weakens.", "weakener"
        ),
    ),
    # "No - weakener.", "No, image 2." after a question
    verdict(
        rf"(?:^|(?<=[.!?;]))\s*no\s*[-,:]\s*(?:it's\s+|it\s+is\s+)?{ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
        Example("label", "Does the update strengthen it? No - weakener.", "weakener"),
    ),
    # "..., so 2." / "Therefore, weakener."
    # (or before what it shows set off by a comma, ending the sentence: "So neither Option 1 nor Option 3 fits, and
    # Option 2 shows the opposite. Hence Option 4, the kitchen covered in a white cloud of flour.", BR's first contact,
    # unread; not before a clause, "Hence Option 4, the kitchen is covered ...", nor another option, "..., or Option 2")
    verdict(
        rf"\b(?:so|thus|hence|therefore|ok|okay)\s*[,:]?\s+{ARTICLE}{{pick}}(?=\s*(?:[.!;]|$)"
        r"|\s*,\s*(?:the|an?)\s+(?:(?!\b(?:is|are|was|were|would|could|might|may|seems?|not|but|or)\b)[^.;:!?\n«‹])+"
        r"[.!](?:\s|$))",
        Example("nleye", "The road is wet, so 2.", 2),
        Example(
            "mucr",
            "So neither Option 1 nor Option 3 fits, and Option 2 shows the opposite. Hence Option 4, the kitchen "
            "covered in a white cloud of flour.",
            4,
        ),
        Example("label", "Therefore, weakener.", "weakener"),
        # "OK 4." (BA's first contact; "let me reconsider option 2" is no pick of it: correction_rules.CORRECTION_WORDS)
        Example("mucr", "I'd say 4. Actually let me reconsider option 2 - older man, no. OK 4.", 4),
    ),
    # the option an elimination leaves: "... Option 4 shows a sunny clubhouse terrace. That leaves Option 3, a broken
    # window." (BU's first contact, unread); ending its sentence or before what it shows set off by a comma (not before
    # a clause, "That leaves Option 3, which is unrelated too.", nor two, "That leaves Option 3 and Option 4.")
    verdict(
        rf"\b(?:that|this|which)\s+leaves(?:\s+us\s+with)?\s+(?:(?:only|just)\s+)?{ARTICLE}{{pick}}(?=\s*(?:[.!;]|$)"
        r"|\s*,\s*(?:the|an?)\s+(?:(?!\b(?:is|are|was|were|would|could|might|may|seems?|not|but|or)\b)[^.;:!?\n«‹])+"
        r"[.!](?:\s|$))",
        Example(
            "mucr",
            "Option 1 shows a golf trophy, which is unrelated. Option 2 shows a golfer on a putting green, also "
            "unrelated. Option 4 shows a sunny clubhouse terrace. That leaves Option 3, a broken window.",
            3,
        ),
    ),
    # "it is a weakener", "it's the earthquake", "this is clearly option 2" (not "it" after a preposition: "The panel
    # showing a tree with a swing hanging from it is the fourth picture.", BF's first contact)
    verdict(
        rf"{_NOT_AN_OBJECT}\b(?:it|this|that)(?:\s+is|'s)(?:\s+(?:clearly|definitely|probably|actually))?\s+{ARTICLE}"
        r"{named_pick}",
        Example("label", "It is a weakener.", "weakener"),
        Example("mucr", "This is clearly option 2.", 2),
    ),
    # "I think X" before a concession of another, set off by a comma (BT's first contact: 'I think "police officer",
    # though "speeding" is also a strong candidate.', unread); the concession names no answer (not "..., though
    # speeding is more likely.", a statement of the other, nor "..., but ...")
    verdict(
        r"\bI\s+think\s+{pick}(?=\s*,\s*(?:though|although|even\s+though)\b[^.;!?\n«‹]*[«‹])",
        Example("cue_words", 'I think "police officer", though "speeding" is also a strong candidate.', 4),
        Example("cue_words", "I think police officer, though speeding is more likely.", None),
    ),
    # a heading and what it heads, then "This is less plausible": the heading's answer rejected (BT's first contact:
    # "Hypothesis 2: A child sits on the floor, holding an unwrapped ball-shaped present. This is less plausible
    # because the wrapping shows a box shape. So Hypothesis 1 is the answer.", unread: the heading stood alone)
    verdict(
        r"(?:^|(?<=[.!?]\s)|(?<=\n))[ \t]*(?:\*\*)?{reject}(?:\*\*)?\s*:[^.!?\n«‹]*{any_mention}?[^.!?\n«‹]*[.!]\s+"
        rf"(?:this|that|it)\s+(?:is|seems|looks)\s+(?:much\s+|far\s+)?(?:{LESS}|implausible|unlikely|improbable)\b",
        Example(
            "presents",
            "Hypothesis 2: A child sits on the floor, holding an unwrapped ball-shaped present. This is less plausible "
            "because the wrapping shows a box shape. So Hypothesis 1 is the answer.",
            1,
        ),
        Example("presents", "Hypothesis 2: the ball-shaped present. This is less plausible.", 1),
    ),
    # "I think it's 3.", "It's 4 - the dog ..."
    verdict(
        rf"{_NOT_AN_OBJECT}\b(?:it|this|that)(?:\s+is|'s)\s+{ARTICLE}{{pick}}(?=\s*(?:[.!;,:]|$)|\s+-\s)",
        Example("mucr", "I think it's 3.", 3),
    ),
    # the answer a self-correction gives: "Actually, no - it's 2", "Wait, option 3", "actually, strengthener"; or "no"
    # alone after a dash or a comma: "3 — no, 1." (BC's first contact)
    verdict(
        rf"(?:\b(?:{CORRECTION_WORDS})|(?:(?<=[—–…,-])|(?<=[—–…,-]\s)|(?<=\.\.\.)|(?<=\.\.\.\s))no(?=\s*,))\s*[,:-]?\s*(?:(?:no|yes)\s*[,:-]?\s*)?(?:(?:it's|it\s+is|make\s+(?:it|that)|is)\s+)?{ARTICLE}"
        # a panel named by its position after "the one" or "the image" ("The middle one, no wait — the one on the
        # right.": BU's first contact, read 1, the answer corrected)
        r"(?:(?<=the\s)(?:one|image|picture|panel|photo)\s+)?{pick}"
        r"(?=\s*(?:[.!;,)]|$)|\s+-\s)",
        Example("nleye", "Image 1. Actually, no - it's 2.", 2),
        Example("mucr", "Option 1. Wait, option 3.", 3),
        Example("mucr", "3 — no, 1.", 1),
        Example("panels", "The middle one, no wait — the one on the right.", 2),
        # after an ellipsis (BE's first contact, in German: "Die Antwort ist 4 (Polizist)... nein, 2 (...), weil ...")
        Example("cue_words", "Answer: 4... no, 2, because the officer is only the effect.", 2),
    ),
    # the answer closing the sentence a self-correction opens, after a dash ("Option 2 is the effect. Actually, on a
    # closer look, Option 4 shows the wilted plant, which follows from the cause image of a plant left in a dark closet
    # — Option 4.": BU's first contact, read 2, the answer corrected); not an answer the sentence goes on after ("... —
    # Option 4 or Option 1."), nor a dash in a sentence no correction opens
    verdict(
        rf"(?:^|(?<=[.!?]\s))(?:(?:no|oh|hmm|but|so)\s*,?\s+)?(?:{CORRECTION_WORDS})\b[^.!?\n]*?\s-\s*{ARTICLE}{{pick}}"
        r"(?=\s*(?:[.!]|$))",
        Example(
            "mucr",
            "Option 2 is the effect. Actually, on a closer look, Option 4 shows the wilted plant, which follows from "
            "the cause image of a plant left in a dark closet — Option 4.",
            4,
        ),
    ),
    # the answer a self-correction that says no turns to, the subject of a comparison ("I'd go with car (1), actually no
    # — speeding (2) is more specific to the causal link.": BU's first contact, read 1, the answer said no to); not
    # without the no ("Option 2. Wait, Option 4 is more likely the cause."), nor a comparison against it ("..., actually
    # no — speeding is less specific."), nor one with another option ("... is more specific than road (3).")
    verdict(
        rf"\b(?:(?:actually|wait|hmm+)\s*,?\s+no|no\s*,?\s+wait)\s*[,:;-]\s*{ARTICLE}{{pick}}"
        rf"(?:\s*\([^()\n]{{{{1,80}}}}\))?\s+(?:is|'s|seems|fits)\s+(?:(?:much|far|even|a|the)\s+)*(?:more|better|closer)\b"
        r"(?![^.;!?\n«‹]*[«‹])",
        Example("cue_words", "I'd go with car (1), actually no — speeding (2) is more specific to the causal link.", 2),
    ),
    # the answer closing a sentence that opens on a first thought set aside, after a colon: "I initially thought
    # strengthener, but the update that the street is dry makes rain unlikely: weakener." (BT's first contact, read
    # strengthener; correction_rules.FIRST_THOUGHT_SET_ASIDE). Not an answer the colon does not close
    # the sentence on ("...: weakener, or maybe strengthener."), nor a first thought kept ("..., and ...: weakener.")
    verdict(
        FIRST_THOUGHT_SET_ASIDE.replace("(?P<thought>", "(?:")
        + rf"[^.;:!?\n«‹]{{{{1,160}}}}:\s*{ARTICLE}{{pick}}(?=\s*(?:[.!]|$))",
        Example(
            "label",
            "I initially thought strengthener, but the update that the street is dry makes rain unlikely: weakener.",
            "weakener",
        ),
    ),
    # "which might seem to strengthen it", "could be read as a strengthener": a concession, not the verdict
    verdict(
        rf"\b(?:might|may|could)\s+(?:seem|appear|look|be\s+(?:read|seen|considered|interpreted|viewed|taken))\s+(?:to\s+be\s+|to\s+|like\s+|as\s+)?{ARTICLE}{{reject}}",
        Example("label", "This could be read as a strengthener, but it weakens the hypothesis.", "weakener"),
    ),
)
