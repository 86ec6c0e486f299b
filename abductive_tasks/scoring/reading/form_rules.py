"""The rule tables of a reply's form: an option's text after a number or owned by another's, labels stated or lettered,
answer headings, a question answered in passing, and a concession before the answer.

Beside :mod:`~abductive_tasks.scoring.reading.rules` (the statements) and ``verdict_rules`` (the verdicts), built with
``verdict_patterns.verdict`` as they are; each rule carries the example replies it exists for (``Example``), as there.
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.description_rules import (
    DESCRIBED_ANSWER,
    DESCRIBED_ONE,
    OWN_DESCRIPTION,
    OWN_DESCRIPTIONS,
)
from abductive_tasks.scoring.reading.mentions import ANY_MENTION, NAMED_MENTION
from abductive_tasks.scoring.reading.table import Example, rule
from abductive_tasks.scoring.reading.text import INVENTED_TURNS
from abductive_tasks.scoring.reading.verdict_patterns import verdict

__all__ = [
    "ANSWER_LABEL",
    "NUMBER_ANSWER_LABEL",
    "REPEATED_NUMBER",
    "SCENE_GRAPH",
    "CONCESSION",
    "EXPLAINED_PAIR",
    "HEADINGS",
    "LABEL_CONCESSIONS",
    "LABEL_OPPOSITE",
    "LABEL_STATEMENTS",
    "LETTERED_LABELS",
    "LETTER_ANSWER",
    "NUMBERED_TEXT",
    "POSSESSIVE_TEXT",
    "QUESTION",
    "TEXT_RULES",
]


# A number standing at a line's start before another option's text ("3. speeding — the car is going far too fast",
# where speeding is phrase 2; AH's first contact): the number and its own explanation disagree, no answer (as "3 -
# heavy rain"), where the text ends its phrase (not "2. The car in the first image is speeding", the text a sentence's
# subject); not a numbered list's items (two or more lines so numbered), nor a number before its own option's text
# (decision._numbered_otherwise); or where the text, with no article, is the subject said to cause or explain what
# the images show ("4. Speeding causes the crash in the effect image.", where speeding is phrase 2: AY's first contact,
# read 4; not "2. The car in the first image is speeding"), or said to be what does so ("3. Speeding is what explains
# why the car was pulled over.", BL's first contact, read 3)
NUMBERED_TEXT = verdict(
    rf"^[ \t]*{{pick}}\.[ \t]+(?:(?:the[ \t]+)?(?P<text>{NAMED_MENTION})(?=[ \t]*(?:[-:,;.!)\n]|$))"
    rf"|(?P<subject>{NAMED_MENTION})(?=[ \t]+(?:is[ \t]+what[ \t]+)?(?:causes|caused|explains|explained|"
    r"leads[ \t]+to|led[ \t]+to|links|connects)\b|[ \t]+is[ \t]+the[ \t]+(?:cue|cause|link|answer)\b))",
    Example("cue", "1. heavy rain: the street is flooded after the storm.", None),
    Example("cue", "3. heavy rain: the street is flooded after the storm.", 3),
    Example("cue", "1. heavy rain: it floods the street.\n2. So the answer is heavy rain.", 3),
    Example("cue_words", "4. Speeding causes the crash in the effect image.", None),
    Example("cue_words", "2. Speeding causes the crash in the effect image.", 2),
    Example("cue_words", "3. Speeding is what explains why the car was pulled over.", None),
    Example("cue_words", "2. Speeding is what explains why the car was pulled over.", 2),
)

# An answer heading naming two numbers, each explained by its option's text: "Answer: 1 (car), 2 (speeding)" (AT's first
# contact, read 1): two answers, as "Answer: 1 or 4." (the heading's first number is contradicted,
# mention_marks.explained; not an option and its own text, "Answer: the right panel, hypothesis 2.")
EXPLAINED_PAIR = verdict(
    r"{answer_heading}{pick}\s*\([^()\n]*\)\s*,\s*(?:and\s+)?{any_mention}\s*\([^()\n]*\)"
    r"(?=\s*(?:[.!;\n]|$))",
    Example("cue", "Answer: 1 (heavy rain), 4 (broken glass)", None),
    Example("cue", "Answer: 1 (heavy rain), 4 (broken glass)\nOn reflection, the answer is 4.", 4),
)

# An option's own text in the possessive owns what the reply names: without a pick, no answer ("The cue is the car's
# excessive speed", where car and speeding are phrases: AL's first contact; as "The cue is the car's speeding" and
# "the police officer's car", round 17's review: an option owning another's word is none of them)
POSSESSIVE_TEXT = rule(
    rf"{NAMED_MENTION}'s\b",
    Example("cue_words", "The cue is the car's excessive speed.", None),
    Example("cue_words", "The cue is the police officer's radar reading.", None),
    Example("cue_words", "The car's speed is too high. Answer: speeding", 2),
)

# A label's own statement: "the update weakens the hypothesis".
LABEL_STATEMENTS = (
    verdict(
        r"{named_pick}\s+(?:the|this|that|our)\s+(?:hypothesis|inference|claim|conclusion|idea|notion|assumption)\b",
        Example("label", "The update weakens the hypothesis.", "weakener"),
    ),
    # the update the subject of a label's effect on the hypothesis ("makes the hypothesis less likely": its mention
    # holds the hypothesis), ending its sentence or before its reason, the reason cut off: "The update makes the
    # hypothesis less likely, since a toddler would not typically be driving the" (BX's first contact, unread; not on a
    # condition, "If the update makes the hypothesis less likely, ...", nor "whether", nor a verb going on: "Both. The
    # update strengthens one part of the hypothesis (...) but weakens another (...)", BP's, no answer; nor "..., but")
    verdict(
        r"(?<!\bif\s)(?<!\bwhether\s)\b(?:the|this)\s+update\s+{named_pick}"
        r"(?=\s*(?:[.;!]|$|,\s*(?:since|because|as|given)\b))",
        Example(
            "label",
            "The update makes the hypothesis less likely, since a toddler would not typically be driving the",
            "weakener",
        ),
    ),
)
# The labels restated as a lettered list ("A) strengthener B) weakener\nAnswer: B"): the letters name the labels, where
# a letter stands as the answer. Read in the reply's text before its mentions are marked (TEXT_RULES).
LETTERED_LABELS = rule(
    r"(?:^|(?<=\s))\(?(?P<letter>[A-Z])[).:][ \t]*(?P<label>[^\W\d_]+)\b",
    Example("label", "A) strengthener B) weakener\nAnswer: B", "weakener"),
)
LETTER_ANSWER = re.compile(
    r"(?:(?<=answer:)|(?<=answer: )|(?<=answer is )|^)[ \t]*\(?(?P<letter>(?-i:[A-Z]))\)?(?=[ \t]*(?:[.!\n]|$))",
    re.IGNORECASE | re.MULTILINE,
)
# A reply opening with "A:", as a question's answer is labelled ("A: C", "A: No, it is not"), where the prompt lists
# letters: the label of the answer, not option A.
ANSWER_LABEL = rule(
    r"\A\s*A\s*:[ \t]*(?=\S)",
    Example("letters", "A: C\nThe area of square C must be at least 11.", 3),
    flags=0,
)
# ... and where it lists none, before a number: "A: 4" (BC's first contact; no option is lettered)
NUMBER_ANSWER_LABEL = rule(
    r"\A\s*A\s*:[ \t]*(?=\d)",
    Example("cue_words", "A: 4", 4),
    flags=0,
)
# A reply that is one number said again and again, "1 1 1 1" (BC's first contact; a loop of its answer): that number
# once (not "1 2 1", nor "1 1 2")
REPEATED_NUMBER = rule(
    r"\A\s*(?P<number>\d+(?:\.\d+)?)(?:[ \t]+(?P=number)(?!\S))+\s*\Z",
    Example("nleye", "1 1 1 1", 1),
    Example("rating", "8 8 8 8 8", 8.0),
    flags=0,
)
# Of two labels, "the opposite of" one names the other: "The answer is the opposite of strengthener." (AO's first
# contact, read strengthener). Read in the reply's text before its mentions are marked (Label.prepared); of more
# labels, it names none.
LABEL_OPPOSITE = rule(
    r"\bopposite\s+of\s+(?:an?\s+|the\s+)?(?P<label>[^\W\d_]+)\b",
    Example("label", "The answer is the opposite of strengthener.", "weakener"),
    Example("label", "It is the opposite of a weakener.", "strengthener"),
)

# The rules read in the reply's text before its mentions are marked, not in the marked text
TEXT_RULES = (
    INVENTED_TURNS,
    LETTERED_LABELS,
    LABEL_OPPOSITE,
    ANSWER_LABEL,
    NUMBER_ANSWER_LABEL,
    REPEATED_NUMBER,
    OWN_DESCRIPTIONS,
    OWN_DESCRIPTION,
    DESCRIBED_ANSWER,
    DESCRIBED_ONE,
)
# A concession names a label without choosing it: "although it might strengthen ...", "one could argue it weakens".
LABEL_CONCESSIONS = (
    verdict(
        r"\b(?:might|may|could|although|though|even\s+if)\b[^.;,\n]{{0,60}}?{reject}",
        Example("label", "Although it might strengthen the claim at first, it is a weakener.", "weakener"),
    ),
)
# Headings of a description, "Image 1: a man ... Image 2: a woman ...": answers standing alone among them enumerate.
HEADINGS = verdict(
    r"(?:^|(?<=[.!?;]))\s*{pick}\s*:",
    Example("nleye", "Image 1: a man in the rain. Image 2: a man with an umbrella.", None),
)
QUESTION = rule(
    r"[^.!?\n]*\?",
    Example("nleye", "Image 2 is more plausible? Image 1 shows the wet road.", None),
    flags=0,
)
# A concession: "Although image 1 is more plausible at first glance, ...", "At first, 1 seems better, but ...".
CONCESSION = rule(
    r"(?:^|(?<=[.!?;:]))\s*(?:although|though|even\s+though|even\s+if|while|whereas)\b[^.;,\n]*"  # sentence-initial
    r"|\b(?:at\s+first(?:\s+(?:glance|sight))?|initially)\b[^.;\n]*?(?=[.;\n]|\bbut\b|$)"
    # a condition the reply goes on to set aside: "Hypothesis 2 would be more plausible if we assume ...; however"
    rf"|{ANY_MENTION}\s+would\s+be\s+[^.;\n]*?\bif\b[^.;\n]*?(?=,?\s+but\b|[.;\n]|$)"
    # a statement on a condition the reply goes on to set aside: "Hypothesis 2 is more plausible than Hypothesis 1 only
    # if the ball came in a box; otherwise Hypothesis 1." (AT's first contact)
    rf"|{ANY_MENTION}\s+(?:is|seems|looks)\s+[^.;\n]*?\bonly\s+if\b[^.;\n]*?(?=,?\s+but\b|[.;\n]|$)"
    # what something else suggests, set aside ("The pattern in the examples suggests the next answer is Option 3, but
    # ...": AQ's first contact)
    r"|\bsuggests?\s+(?:that\s+)?(?:the\s+)?(?:next\s+)?answer\s+is\b[^.;\n]*?(?=,?\s*but\b)",
    Example("nleye", "Although image 1 seems more plausible at first, image 2 fits better.", 2),
    Example(
        "texts",
        "Hypothesis 2 would be more plausible if we assume the box was only packaging; however, the most "
        "straightforward reading is that the clothes are wet. So I'd go with Hypothesis 1.",
        1,
    ),
    Example(
        "mucr",
        "The pattern in the examples suggests the next answer is Option 3, but looking at image 3 the cause is clearly "
        "Option 4, the boy kicking the ball at the window.",
        4,
    ),
    # ... to its clause (AT's first contact: "Option 1 would be the cause if the effect were a crash, but here the
    # effect is a ticket, so the cause is Option 4.")
    Example("mucr", "Option 1 would be the cause if the glass broke, but it did not, so the cause is Option 4.", 4),
    Example(
        "texts",
        "Hypothesis 2 is more plausible than Hypothesis 1 only if the ball came in a box; otherwise Hypothesis 1. "
        "Overall I'd go with Hypothesis 1.",
        1,
    ),
)

# A reply that is a scene graph and nothing else (the MuCR chain-of-thought prompts ask for one before the answer): the
# options it names are its nodes, no answer ('{"objects": [..., {"id": 2, "name": "option 3: kite caught in a tree"}],
# "relationships": [[1, "leads to", 2]]}': BE's first contact, read 3; decision._the_one_named). Its answer key is read
# as a statement ('{"objects": [...], "answer": 3}'), as is an answer after it.
SCENE_GRAPH = rule(
    r"\A\s*(?:scene\s+graph\s*:?\s*)?\{\s*(?:objects|nodes|entities|relationships|relations)\s*:[^{}]*"
    r"(?:\{[^{}]*\}[^{}]*)*\}\s*\Z",
    Example(
        "mucr",
        '{"objects": [{"id": 1, "name": "cause image: boy flying a kite"}, {"id": 2, "name": "option 3: kite caught '
        'in a tree"}], "relationships": [[1, "leads to", 2]]}',
        None,
    ),
    Example("mucr", '{"objects": [{"id": 1, "name": "boy"}, {"id": 2, "name": "window"}], "answer": 3}', 3),
)
