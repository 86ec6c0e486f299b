"""The statements of an answer a reply closes on, and the rejections of an option's role, read by the choice and label
kinds beside rules.STATEMENTS and verdict_rules.VERDICTS (reading round 34, AP's first contact): the option an
elimination leaves, named; a last line stating the answer under its role's heading; the answer after the question's
alternatives; the subject of "is the cue" past its relative clause; an option said to show another role, or to be only
the scene. Round 35 (AQ's first contact): the answer in a tag, an option that wins, the cue as the link, the prompt's
request restated before the answer; the option ranked second and a list of options eliminated, rejected; the option an
elimination leaves unnamed (``REMAINING``, from rules); the scores (``OPTION_SCORES``, from rules) or odds
(``OPTION_ODDS``) given each option. Round 38 (AT's first contact): what the evidence points to as the better answer,
the answer after what it is said to be, and the levels given each option in a table's rows (``OPTION_LEVELS``). Round 39
(AU's first contact): a list of options ruled out in so many words, or each described and none said to follow; a list
called only the setting; an option said to be another role rather than the one asked.

Each rule carries the example replies it exists for (tests/scoring/test_rule_examples.py reads every one).
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.table import Example, Rule
from abductive_tasks.scoring.reading.verdict_patterns import QUALITY_CUE, verdict

__all__ = [
    "CLOSING_STATEMENTS",
    "LEVELS",
    "LEVEL_COLUMNS",
    "OPTION_LEVELS",
    "OPTION_ODDS",
    "OPTION_PROBABILITIES",
    "OPTION_SCORES",
    "REMAINING",
    "ROLE_REJECTIONS",
]

CLOSING_STATEMENTS = (
    # the answer after what it is said to be: "Like in the examples, the cue is the action: 2." (AT's first contact)
    verdict(
        r"\bthe\s+(?:cue|answer)\s+is\s+(?:the\s+|an?\s+)[^\W\d_]+(?:\s+[^\W\d_]+)?\s*:\s*{pick}(?=\s*(?:[.!;]|$))",
        Example("cue_words", "Like in the examples, the cue is the action: 2.", 2),
    ),
    # AT's first contact: what the reply's evidence points to as the better answer ("Is hypothesis 2 more plausible
    # than hypothesis 1? No. The rectangular box points to hypothesis 1 as the better fit.")
    verdict(
        r"\bpoints?\s+(?:clearly\s+)?to\s+(?:the\s+)?{pick}\s+as\s+the\s+(?:better|best|likelier|likeliest|stronger|"
        r"more\s+(?:plausible|likely)|most\s+(?:plausible|likely)"
        # or as the role asked, ending the clause ("The step-by-step analysis points to Option 3 as the effect.": BR's
        # first contact, after every option described, unread; not "as the effect of the cause image's rain")
        r"|(?:effect|cause|cue|answer)(?=\s*(?:[.!;,]|$)))\b",
        Example(
            "texts",
            "Is hypothesis 2 more plausible than hypothesis 1? No. The soaking wet clothes point to hypothesis 1 as "
            "the better fit.",
            1,
        ),
    ),
    # AQ's first contact: the answer in a tag ("<answer>2</answer><explanation>...</explanation>"); "So the first
    # hypothesis wins."; the cue as the link ("The link is speeding, option 2."); the prompt's request restated, then
    # the answer after its colon ("Answer with the number of the phrase (1, 2, 3 or 4) first: the second phrase.")
    # any tag of the answer's noun ("<hypothesis>1</hypothesis><reason>...</reason>": BB's first contact)
    verdict(
        r"<(?P<tag>answer|final_answer|hypothesis|option|choice|cue|phrase)>\s*{pick}\s*</(?P=tag)>",
        Example("panels", "<answer>2</answer><explanation>The left panel shows a woman at a door.</explanation>", 2),
        Example("panels", "<hypothesis>1</hypothesis><reason>box stays box</reason>", 1),
        Example("panels", "<hypothesis>1</hypothesis><answer>2</answer>", None),
    ),
    verdict(
        r"(?:^|(?<=[.!?;:]\s)|(?<=\bso\s))(?:the\s+)?{pick}\s+(?:clearly\s+|easily\s+)?wins(?=\s*(?:[.!;]|$))",
        Example(
            "texts",
            "Hypothesis 2 would require re-wrapping a ball, which is unlikely. So the first hypothesis wins.",
            1,
        ),
    ),
    # (or opening the clause after "but", its number in parentheses or a colon after it: "The car (1) is present in
    # both images, but the causal link is the speeding (2): going too fast leads to the traffic stop." (BI's first
    # contact; not "..., but the link is the speeding (2) or the road (3).", tests/scoring/test_reading_round53.py))
    verdict(
        r"(?:^|(?<=[.!?;]\s)|(?<=,\sbut\s))the\s+(?:causal\s+)?link\s+is\s+(?:the\s+)?{pick}"
        r"(?=(?:\s*\(\s*{any_mention}\s*\))?\s*(?:[.!;,:]|$))",
        Example(
            "cue_words",
            "Cue: police officer (4)? No — the officer is part of the effect, not the link. The link is speeding, "
            "option 2.",
            2,
        ),
        Example(
            "cue_words",
            "The car (1) is present in both images, but the causal link is the speeding (2): going too fast leads to "
            "the traffic stop.",
            2,
        ),
    ),
    verdict(
        r"^[ \t]*answer\s+with\s+the\s+number\s+of\s+the\s+(?:phrase|option|image|hypothesis)\s+first\s*:\s*"
        r"(?:the\s+)?{pick}(?=\s*(?:[.!;,]|$))",
        Example(
            "cue_words",
            "Answer with the number of the phrase (1, 2, 3 or 4) first: the second phrase. The car was going too fast.",
            2,
        ),
    ),
    # "The officer who pulls the car over is the cue": the subject past its relative clause (AP's first contact; what
    # the clause names is no pick)
    verdict(
        r"(?:^|(?<=[.!?]\s))(?:the\s+)?{named_pick}\s+{relative_clause}(?:is|was)\s+"
        r"the\s+(?:cue|answer|link|cause|effect)\b",
        Example(
            "cue_words",
            "The officer who pulls the car over is the cue, as he connects the speeding car to the ticket.",
            4,
        ),
        Example("cue_words", "The road that the car drives on is the cue.", 3),
    ),
    # the option an elimination leaves, named: "That leaves Option 4: the melted ice cream", "The remaining one, 3,
    # shows the muddy pitch" (AP's first contact; not "That leaves Option 3 or 4", nor where a refusal follows)
    verdict(
        r"\b(?:that|this|which)\s+leaves\s+(?:us\s+with\s+)?(?:only\s+)?{pick}"
        r"(?=\s*(?:[.:;!\n—–]|\s-\s|$|,\s+(?:where|which|in\s+which|showing|with)\b))",
        Example(
            "mucr",
            "Options 1 and 3 are ruled out because they show unrelated scenes, and Option 2 shows the moment before "
            "the cause. That leaves Option 4: the melted ice cream on the pavement.",
            4,
        ),
        # or a clause after a comma (AQ's first contact)
        Example(
            "mucr",
            "Option 1 shows her buying a new car, which is unrelated. Option 3 shows her phone fully charged at home. "
            "Option 4 shows a waiter cleaning a different table. That leaves Option 2, where she is searching her bag.",
            2,
        ),
        Example(
            "mucr",
            "Options 1 and 2 are ruled out. That leaves Option 3; but it shows the cause itself, so I cannot determine "
            "the effect.",
            None,
        ),
    ),
    verdict(
        r"\bthe\s+(?:only\s+)?(?:remaining|leftover)\s+(?:one|option|candidate|choice|image|picture)\s*[,(:]\s*"
        r"{pick}(?=\s*(?:[,).;!\n]|$))",
        Example(
            "mucr",
            "1, 2, and 4 can be ruled out: they show the scene before the rain, an unrelated office, and a sunny "
            "beach. The remaining one, 3, shows the muddy football pitch.",
            3,
        ),
    ),
    # the reply's last line stating its answer under a heading of the answer's role, after its own list of the options:
    # "Option 1: a clean kitchen\n...\nEffect of leaving the toast under the grill: Option 2." (AP's first contact)
    verdict(
        r"^[ \t]*(?:the\s+)?(?:effect|cause|cue|answer)\b(?!\s+(?:image|picture))[^\n:«‹]{{0,80}}:[ \t]*{pick}"
        r"(?=[ \t]*[.!]?\s*\Z)",
        Example(
            "mucr",
            "Option 1: a clean kitchen\nOption 2: smoke alarm going off with smoke near the ceiling\nOption 3: a pizza "
            "delivery box\nOption 4: a fire truck on a highway\nEffect of leaving the toast under the grill: Option 2.",
            2,
        ),
    ),
    # the question restated, its alternatives, then the answer after a colon: "Mention which one is more plausible – 1
    # or 2: **2**." (AP's first contact; the alternatives are the prompt's list, Choice._ignore)
    verdict(
        rf"\bwhich\s+(?:one|image|hypothesis|option|picture)\s+is\s+{QUALITY_CUE}[\s–—-]*:\s*{{pick}}"
        r"(?=\s*(?:[.!;,]|$))",
        Example(
            "nleye",
            "Mention which one is more plausible – 1 or 2: **2**. The context image shows a tree that has just been "
            "cut down; hypothesis 2 shows a neat stack of firewood.",
            2,
        ),
    ),
)

# an elimination of a list of options: "Options 1, 3 and 4 show events unrelated to the flooding; Option 2 shows ...",
# "Options 1, 2 and 3 all show events that could only happen after the broken vase, so none of them can be the cause"
# (AQ's first contact); every item of the list (the first, then the others), never a single option
_ELIMINATED = (
    r"(?=(?:(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+){any_mention}){more}(?:\s+(?:all|both))?\s+(?:"
    # unrelated, where the reply goes on to the option it keeps (not "Option 1, option 3 and option 4 are unrelated."
    # alone, which names no answer)
    r"(?:(?:show|depict)\s+(?:[^\W\d_]+\s+){{0,3}}?|are\s+(?:all\s+)?)(?:unrelated|irrelevant)\b[^.;\n«‹]*[;,]\s*"
    r"(?:(?:but|while|whereas)\s+)?(?:the\s+)?{named_mention}\s+(?:shows|depicts|is)\b"
    r"|[^.;\n«‹]*?\bso\s+(?:none\s+of\s+them\s+(?:can|could|is|are)|they\s+(?:cannot|can't|could\s+not|are\s+not))\s+"
    r"(?:be\s+)?(?:the\s+)?(?:cause|effect|cue|answer)s?\b"
    # ruled out in so many words, or denied the role in a clause of their own (AU's first contact: "Options 2, 3 and 4
    # show scenes unrelated to driving, so they can be ruled out.", "Options 1-3 show a birthday party, a library and a
    # sunny beach, none of which could cause a flood.")
    r"|[^.;\n«‹]*?\bso\s+(?:they|these|all\s+three)\s+(?:can|could|may|must|should)\s+(?:all\s+)?(?:safely\s+)?be\s+"
    r"(?:ruled\s+out|eliminated|excluded|discarded|dismissed)\b"
    r"|[^.;\n«‹]*?,\s*none\s+of\s+which\s+(?:can|could|would|is|are)\s+(?:be\s+)?(?:the\s+)?(?:cause|effect|cue|answer)"
    r"|[^.;\n«‹]*?,\s*none\s+of\s+which\s+(?:can|could|would)\s+(?:cause|explain|lead\s+to|result\s+from|follow)\b))"
)
# a list of options, each described, then none of them said to follow or to be the answer (ROLE_REJECTIONS)
_DESCRIBED_NONE = (
    r"(?=\s+(?:shows?|depicts?)\b[^.;\n«‹]*(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?:the\s+)?{any_mention}\s+"
    r"(?:shows?|depicts?)\b[^.;\n«‹]*){more}(?:\s*[-–—:;,]\s*|\s+)none\s+of\s+(?:these|those|which)\s+(?:follows?|"
    r"(?:can|could|would|is|are)\s+(?:be\s+)?(?:the\s+)?(?:cause|effect|cue|answer)|(?:can|could|would)\s+"
    r"(?:cause|explain|follow|result)|(?:causes?|explains?|results?)\b))"
)
_LATER_ITEM = r"(?:(?<=[»›] and )|(?<=[»›], and )|(?<=[»›], ))"

ROLE_REJECTIONS = (
    # the option ranked second: "Option 1 is the runner-up" (AQ's first contact: "Probably Option 3 (maybe 65%
    # confident); Option 1 is the runner-up, since it also shows a muddy floor")
    verdict(
        r"{reject}\s+(?:is|would\s+be)\s+(?:the\s+|a\s+)?(?:close\s+)?(?:runner[-\s]?up|second[-\s]best)\b",
        Example("mucr", "Probably Option 3 (maybe 65% confident); Option 1 is the runner-up, since it also fits.", 3),
    ),
    verdict(
        "{reject}" + _ELIMINATED.replace("{more}", "+"),
        Example(
            "mucr",
            "Options 1, 3 and 4 show events unrelated to the flooding; Option 2 shows the burst pipe under the sink.",
            2,
        ),
        Example(
            "mucr",
            "Options 1, 2 and 3 all show events that could only happen after the broken vase, so none of them can be "
            "the cause.",
            4,
        ),
        Example("mucr", "Options 1 and 3 show unrelated scenes; Option 2 shows a pipe, Option 4 a flood.", None),
    ),
    verdict(
        _LATER_ITEM + "{reject}" + _ELIMINATED.replace("{more}", "*"),
        Example("mucr", "Option 1, Option 3 and Option 4 are unrelated; Option 2 shows the burst pipe.", 2),
    ),
    # each option of a list described, then none of them said to follow or to be the answer: "Option 1 shows a bakery,
    # Option 3 shows a beach and Option 4 shows a classroom — none of these follows from a speeding car." (AU's first
    # contact: the option left, 2)
    verdict(
        "{reject}" + _DESCRIBED_NONE.replace("{more}", "+?"),
        Example("mucr", "Option 1 shows a bakery and Option 3 shows a beach — none of these follows the car.", None),
    ),
    verdict(
        r"(?:(?<=, )|(?<= and )){reject}" + _DESCRIBED_NONE.replace("{more}", "*?"),
        Example(
            "mucr",
            "Option 1 shows a bakery, Option 3 shows a beach and Option 4 shows a classroom — none of these follows "
            "from a speeding car.",
            2,
        ),
    ),
    # an option said to show another role, not the one asked ("Option 3 shows the ruined cake after it came out, which
    # is another effect, not a cause"), or to be only the scene ("the road is only the setting"): AP's first contact
    verdict(
        r"{reject}(?<!\))\s+(?:shows|depicts|is)\b[^.;\n«‹]{{1,80}}?,\s*which\s+is\s+(?:another|an?|the)\s+"
        r"[^.;,\n«‹]{{0,30}}?\b(?:effect|cause|response|reaction|consequence)\s*,?\s+not\s+(?:a|an|the)\s+"
        r"(?:cause|effect|cue)\b",
        Example(
            "mucr",
            "Answer: Option 3\nHmm, Option 3 shows the ruined cake after it came out, which is another effect, not a "
            "cause. The cause of the collapsed cake is the oven door being opened too early, in Option 1.\n"
            "Answer: Option 1",
            1,
        ),
    ),
    verdict(
        # or a list of them ("Car and road are just the setting, ...": AU's first contact)
        r"{reject}(?=(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?:the\s+)?{any_mention})*"
        r"\s+(?:is|was|are|were)\s+(?:only|just|merely|simply)\s+(?:the|an?)\s+"
        r"(?:setting|background|backdrop|scene|location|place|object)s?\b)",
        Example(
            "cue_words",
            "Car and road are just the setting, and the police officer is the consequence rather than the link.",
            2,
        ),
        Example(
            "cue_words",
            "Answer: 3\nCorrection: the road is only the setting. What links the cause to the effect is speeding.\n"
            "Answer: 2",
            2,
        ),
    ),
    # an option said to be another role rather than the one asked: "... and the police officer is the consequence
    # rather than the link." (AU's first contact)
    verdict(
        r"{reject}\s+(?:is|was)\s+(?:the\s+|an?\s+)?(?:consequence|effect|result|outcome|cause|setting|background)\s+"
        r"rather\s+than\s+(?:the\s+|an?\s+)?(?:link|cue|cause|effect|connection|answer)\b",
        Example("cue_words", "The police officer is the consequence rather than the link; the cue is speeding.", 2),
    ),
)

# The answer stated as the option an elimination leaves ("So the remaining candidate must be the effect", "By
# elimination, the answer is the remaining option"; AL's first contact; "So it's the remaining one.", "Only the
# remaining picture fits ...": AQ's): of the options, the one the reply never names, where it names every other
# (decision._remaining); the answers standing alone in the elimination ("Car - present in both pictures") are no picks
REMAINING = Rule(
    re.compile(
        r"\b(?:is|be|it's|that's)\s+the\s+(?:only\s+)?(?:remaining|leftover)\s+"
        r"(?:option|candidate|one|choice|image|picture|phrase)\b"
        r"|\bthe\s+(?:only\s+)?(?:remaining|leftover)\s+(?:option|candidate|one|choice|image|picture|phrase)\s*"
        # (what it shows set off by commas before its verb: "Option 1 does not show the cause; neither does option 2 or
        # option 4. The remaining candidate, showing a toddler with a permanent marker, is the cause of the scribbles on
        # the wall.": BR's first contact, unread)
        r"(?:,\s*(?:showing|depicting|with)\s+[^,.;:!?\n«‹]{1,100},\s*|\s)"
        # or what it shows, after the others eliminated ("Options 1, 2 and 4 are all unrelated to the fire in the cause
        # image; the remaining option shows the burnt house.": AY's first contact, 3)
        r"(?:(?:must\s+be|is)\s+the\s+(?:effect|cause|answer|cue)\b|fits\b|shows\b|depicts\b)",
        re.IGNORECASE,
    ),
    (
        Example(
            "mucr",
            "Option 1 shows a sunny beach — not an effect. Option 2 shows a person reading — unrelated. Option 4 shows "
            "a cat sleeping — unrelated. So the remaining candidate must be the effect.",
            3,
        ),
        Example(
            "mucr",
            "Option 1: unrelated to the cause. Option 2: unrelated. Option 4: shows the cause again, not an effect. By "
            "elimination, the answer is the remaining option.",
            3,
        ),
        Example("mucr", "Option 1 is unrelated. So the answer is the remaining option.", None),
        Example(
            "cue_words",
            "Car — present in both pictures, so it's not the link. Road — just the background. Police officer — "
            "appears only in the effect. So it's the remaining one.",
            2,
        ),
        Example("cue_words", "So it's the remaining one.", None),
        Example(
            "mucr",
            "Option 1 shows a sunny beach, unrelated. Option 2 shows a birthday cake, unrelated. Option 4 shows a cat "
            "sleeping on a sofa. Only the remaining picture fits the phone falling from the table: it shows a cracked "
            "screen.",
            3,
        ),
        Example(
            "mucr",
            "Options 1, 2 and 4 are all unrelated to the fire in the cause image; the remaining option shows the burnt "
            "house.",
            3,
        ),
        Example("mucr", "Options 1 and 4 are unrelated; the remaining option shows the burnt house.", None),
    ),
)

# A score for each option and no pick: a person reads the option scored highest, as the prompt asks which is more
# plausible ("Hypothesis 1: plausibility 3/10 - ...\nHypothesis 2: plausibility 8/10 - ...").
OPTION_SCORES = verdict(
    r"^[ \t]*{pick}\s*[:=-]\s*(?:(?:plausibility|score|rating)\s*[:=]?\s*)?(?P<score>\d+(?:\.\d+)?)\s*/\s*10(?![\d.])",
    Example(
        "nleye", "Hypothesis 1: plausibility 3/10 - the dog sleeps.\nHypothesis 2: plausibility 8/10 - it tears.", 2
    ),
    Example("texts", "Hypothesis 1: 9/10\nHypothesis 2: 4/10", 1),
)
# The odds given each option, read as OPTION_SCORES (decision._scored_highest): every option once, the highest the
# answer ("I'd estimate about 85% for the rectangular one and 15% for the ball-shaped one": AQ's first contact)
OPTION_ODDS = verdict(
    r"(?<![\d.])(?P<score>\d{{1,3}}(?:\.\d+)?)\s*%\s+(?:for|on)\s+(?:the\s+)?{pick}",
    Example("texts", "I'd estimate about 85% for the soaking wet one and 15% for the sunbathing one.", 1),
    Example("texts", "I'd estimate about 15% for hypothesis 1 and 85% for hypothesis 2.", 2),
)
# A probability after each option, a fraction of one or a percentage, read as OPTION_SCORES (AR's first contact:
# "Estimated probabilities: Option 1 0.6, Option 2 0.1, Option 3 0.2, Option 4 0.1. I choose the option with the
# highest probability.", "Plausibility: H1 = 90%, H2 = 10%.", "Middle: 0.8\nRight: 0.2"); not a rating on the
# prompt's scale ("Hypothesis 1: 7"), which the prompt does not ask for
OPTION_PROBABILITIES = verdict(
    r"{pick}[ \t]*[:=]?[ \t]*(?P<score>0?\.\d+(?![\d%])|\d{{1,3}}(?:\.\d+)?[ \t]*%)(?=[ \t]*(?:[,.;)\n]|$)"
    # the word of what it measures after it ("Hypothesis 1: 60% likely.": AY's first contact)
    r"|[ \t]+(?:likely|probable|plausible)[ \t]*(?:[,.;)\n]|$)"
    # its reason set off by a dash ("Hypothesis 1: 85% plausible — the unwrapped present ...": BB's first contact)
    r"|[ \t]+(?:likely|probable|plausible)[ \t]+-[ \t])",
    Example(
        "mucr",
        "Estimated probabilities: Option 1 0.6, Option 2 0.1, Option 3 0.2, Option 4 0.1. I choose the option with "
        "the highest probability.",
        1,
    ),
    Example("texts", "Plausibility: H1 = 90%, H2 = 10%.", 1),
    Example("panels", "Middle: 0.8\nRight: 0.2", 1),
    Example("mucr", "Option 1 0.4, Option 2 0.1, Option 3 0.4, Option 4 0.1.", None),
    Example("texts", "Hypothesis 1: 60% likely.\nHypothesis 2: 40% likely.", 1),
    Example(
        "nleye",
        "Hypothesis 1: 85% plausible — the box keeps its outline.\nHypothesis 2: 15% plausible — a ball would not.",
        1,
    ),
)
# A level of plausibility given each option in a table's rows, read as OPTION_SCORES, the levels as LEVELS rank them
# (AT's first contact: "| Hypothesis | Plausibility |\n|---|---|\n| 1 (rectangular) | High |\n| 2 (ball-shaped) |
# Low |")
# (and "Likely"/"Unlikely", a reason after a dash: "| 4 | Likely – a squirrel chewing through the attic wiring |", the
# other rows "Unlikely – ...", BJ's first contact, unread; not two rows "Likely")
LEVELS = {
    "very low": 0.0,
    "low": 1.0,
    "medium": 2.0,
    "moderate": 2.0,
    "high": 3.0,
    "very high": 4.0,
    "very unlikely": 0.0,
    "unlikely": 1.0,
    "likely": 3.0,
    "very likely": 4.0,
}
OPTION_LEVELS = verdict(
    r"^[ \t]*\|[ \t]*(?:the\s+)?{pick}[^|\n]*\|[ \t]*"
    r"(?P<score>(?:very\s+)?(?:low|high|likely|unlikely)|medium|moderate)(?:[ \t]+-[ \t][^|\n]*)?[ \t]*\|[ \t]*$",
    Example(
        "texts", "| Hypothesis | Plausibility |\n|---|---|\n| 1 (soaking wet) | High |\n| 2 (sunbathing) | Low |", 1
    ),
    Example("texts", "| Hypothesis | Plausibility |\n|---|---|\n| 1 | Medium |\n| 2 | Medium |", None),
    Example(
        "mucr",
        "| Option | Cause? |\n|---|---|\n| 1 | Unlikely – an office |\n| 2 | Unlikely – a picnic |\n"
        "| 3 | Unlikely – a lot |\n| 4 | Likely – a squirrel chewing the wiring |",
        4,
    ),
    Example(
        "mucr",
        "| Option | Cause? |\n|---|---|\n| 1 | Likely – an office |\n| 2 | Unlikely – a picnic |\n"
        "| 3 | Unlikely – a lot |\n| 4 | Likely – a squirrel chewing the wiring |",
        None,
    ),
)
# The same levels in a table whose columns are the options, in its row of the overall plausibility (BG's first contact:
# "| | Hypothesis 1 | Hypothesis 2 |\n|---|---|---|\n| Matches weather | ✗ | ✓ |\n| Overall plausibility | Low | High
# |"): the options its header names, a level each in that row (decision._scored_highest; not a row of another
# criterion, "| Matches weather | Low | High |", nor levels that tie)
LEVEL_COLUMNS = verdict(
    r"^[ \t]*\|[^|\n]*\|(?P<heads>(?:[ \t]*(?:the\s+)?{any_mention}[ \t]*\|)+)[ \t]*\n(?:[ \t]*\|[^\n]*\n)*?"
    r"[ \t]*\|[ \t]*(?:overall\s+)?(?:plausibility|verdict|overall)[ \t]*\|"
    r"(?P<levels>(?:[ \t]*(?:(?:very\s+)?(?:low|high)|medium|moderate)[ \t]*\|)+)[ \t]*$",
    Example(
        "nleye",
        "| | Hypothesis 1 | Hypothesis 2 |\n|---|---|---|\n| Matches weather | ✗ | ✓ |\n"
        "| Overall plausibility | Low | High |",
        2,
    ),
    Example("nleye", "| | Image 1 | Image 2 |\n|---|---|---|\n| Overall | High | High |", None),
)
