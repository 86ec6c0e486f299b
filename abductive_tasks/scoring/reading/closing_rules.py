"""The statements of an answer a reply closes on, and the rejections of an option's role, read by the choice and label
kinds beside rules.STATEMENTS and rules.VERDICTS (reading round 34, AP's first contact): the option an elimination
leaves, named; a last line stating the answer under its role's heading; the answer after the question's alternatives;
the subject of "is the cue" past its relative clause; an option said to show another role, or to be only the scene.

Each rule carries the example replies it exists for (tests/scoring/test_rule_examples.py reads every one).
"""

from __future__ import annotations

from abductive_tasks.scoring.reading.rules import QUALITY_CUE, verdict
from abductive_tasks.scoring.reading.table import Example

__all__ = ["CLOSING_STATEMENTS", "ROLE_REJECTIONS"]

CLOSING_STATEMENTS = (
    # "The officer who pulls the car over is the cue": the subject past its relative clause (AP's first contact; what
    # the clause names is no pick)
    verdict(
        r"(?:^|(?<=[.!?]\s))(?:the\s+)?{named_pick}\s+(?:who|that|which)\s+[^.;,!?\n]{{1,80}}?\s+(?:is|was)\s+"
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
        r"\b(?:that|this|which)\s+leaves\s+(?:us\s+with\s+)?(?:only\s+)?{pick}(?=\s*(?:[.:;!\n—–]|\s-\s|$))",
        Example(
            "mucr",
            "Options 1 and 3 are ruled out because they show unrelated scenes, and Option 2 shows the moment before "
            "the cause. That leaves Option 4: the melted ice cream on the pavement.",
            4,
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

ROLE_REJECTIONS = (
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
        r"{reject}\s+(?:is|was)\s+(?:only|just|merely|simply)\s+(?:the|an?)\s+"
        r"(?:setting|background|backdrop|scene|location|place|object)\b",
        Example(
            "cue_words",
            "Answer: 3\nCorrection: the road is only the setting. What links the cause to the effect is speeding.\n"
            "Answer: 2",
            2,
        ),
    ),
)
