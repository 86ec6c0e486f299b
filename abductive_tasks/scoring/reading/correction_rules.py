"""The self-corrections: the words that turn a reply from what it said to a new answer, and the closing headings and
forced choices that are final as a self-correction is.

Each rule carries the example replies it exists for (``Example``); tests/scoring/test_rule_examples.py reads every one.
The picks after the last self-correction are the answer (``decision``, ``kinds``); ``verdict_rules.VERDICTS`` reads a
bare answer after a word of correction (``CORRECTION_WORDS``). Adding a rule: docs/reading.md.
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.mentions import ANY_MENTION
from abductive_tasks.scoring.reading.table import Example, rule
from abductive_tasks.scoring.reading.text import FORCED

__all__ = [
    "CLOSING_ONLY",
    "CORRECTION_WORDS",
    "FIRST_THOUGHT",
    "FIRST_THOUGHT_SET_ASIDE",
    "SELF_CORRECTIONS",
    "TURNED_TO_UNREAD",
]

_FLAGS = re.IGNORECASE

# Words that start a self-correction ("Wait,", "Actually,", "On second thought").
CORRECTION_WORDS = (
    r"wait|actually|on\s+(?:second\s+thought|reflection|(?:a\s+)?closer\s+(?:inspection|look))|correction|correcting(?=\s*[:,])|re-?reading"
    r"|looking\s+(?:closer|more\s+(?:carefully|closely))|on\s+(?:a\s+)?second\s+look|at\s+second\s+glance|(?:i'll|i\s+will|i'd|i\s+would|let\s+me)\s+settle(?=\s+on)"
    r"|hmm+\s*,?\s+no(?=\s*[:;,-])"  # "The answer is 3. Hmm, no: the road is just background. ..." (AX's)
    # a first thought set aside: "At first I thought the road was the link, ... so the real cue is speeding: 2."; "Hmm,"
    # opening a sentence of second thoughts (BJ's first contact, each after an opening bare number, unread)
    r"|(?:at\s+first|initially)\s*,?\s+I\s+(?:thought|assumed|considered)|hmm+(?=\s*,)"
    # (or at what it looks at: "Based on the image, the answer is Option 1. However, looking at it again, Option 1 shows
    # the same person before the accident, so the correct effect is Option 3.", BX's first contact, unread)
    r"|looking\s+(?:at\s+(?:it|them|this|that|these|the\s+(?:images?|pictures?|options?))\s+)?again|scratch\s+that|(?:hold|hang)\s+on(?=\s*[,.;:!—–-])|let\s+me\s+reconsider(?!\s+(?:the\s+)?[«‹])|(?:let\s+me|i'll|i\s+will)\s+(?:double[-\s]?check|re-?check|check\s+again)(?=\s*[.:;,!\n])|i\s+was\s+wrong|(?:sorry\s*,?\s+)?i\s+meant?|sorry"
    r"|(?:i'll|i\s+will|let\s+me|i\s+need\s+to)\s+(?:revise|correct)(?:\s+(?:that|this|it|myself|my\s+answer))?"
    r"|thinking\s+(?:about\s+it\s+)?(?:more|again|further)|on\s+further\s+(?:thought|reflection|inspection)"
    r"|(?:revised|updated|corrected|changed|lowered|raised)(?=\s+(?:score|rating|answer|to|back)\b)|back(?=\s+to\b)"
    r"|(?:i'll|i\s+will|let\s+me)\s+(?:stay|stick)(?=\s+with\b)"
    # the choice a reply settles on after weighing two (AZ's first contact: "Option 1 seems most likely, but Option 3
    # could also be argued because of the wet road. I'll go with Option 3.", read as no answer), an answer after it
    # (not "I'll go with neither to be safe.")
    # an answer said to be "really" another (AZ's first contact: "1 (car). Hmm, the car is present, but it doesn't
    # explain the causal link; the cue is really speeding, so 2.", read as no answer)
    r"|(?:the\s+)?(?:cue|answer|link|cause|effect)\s+is\s+really(?=\s+(?:the\s+)?[«‹])"
    r"|(?:i'll|i\s+will)\s+go(?=\s+with\s+(?:[^\W\d_]+\s+)?(?:[^\W\d_]+\s+)?[«‹])"
    # the answer a reply gives "instead" of one it stated: "..., so the question's answer should be Option 3. But ...
    # only Option 4 shows the bike hitting a curb, so I'll answer Option 4 instead of following the pattern." (BM's
    # first contact, unread)
    r"|(?:i'll|i\s+will)\s+(?:answer|pick|choose|say)(?=\s+(?:the\s+)?[«‹].[»›]\s+instead\b)"
    # the answer a reply says it settles on, opening its clause: "Score: 5 or 6. The highlighted woman holds a
    # briefcase, but the background is a park. I'll say 6." (BH's first contact, a range before it)
    # (a sentence of its own: after a dash, the range's rating rule reads only one of its two, "Score: 8 or 9 — I'll say
    # 7." reading none, round 50's review)
    r"|(?:(?<=[.!?]\s)|(?<=\n)|(?<![\s\S]))(?:i'll|i\s+will|let'?s|let\s+us)\s+(?:just\s+)?say(?=\s+(?:an?\s+)?[«‹])"
    r"|(?:(?:so|thus|hence|therefore)\s*,?\s+)?(?:the\s+|my\s+)?final\s+(?:answer|choice|verdict|decision|rating|score)"
)

# A self-correction ("Wait,", "Actually,", "On second thought"): the picks after it restate the answer.
# A closing verdict heading ("Overall: strengthener", "Verdict: 2", "In conclusion: ...") and a forced choice after a
# refusal ("None of them is a perfect match, but if I had to choose, ...") are final as a self-correction is: the
# picks after them are the answer. (Not "In conclusion, image 1 ...": without the heading, two answers contradict.)
_CLOSING = r"(?:overall|in\s+conclusion|conclusion|verdict|in\s+summary|summary|final)(?=\s*:)"
_FORCED = rf"{FORCED}|my\s+best\s+guess(?=\s+(?:is|would\s+be)\b)"  # "I cannot determine ... My best guess is 3."
# "Final answer:" with no word of correction contradicts a statement of another answer in the sentence just before it
# (decision._closing_contradicts); "Overall:" and "In conclusion:" outrank what came before, as a closing verdict
CLOSING_ONLY = rule(
    r"(?:(?:so|thus|hence|therefore)\s*,?\s+)?(?:the\s+|my\s+)?final\s+(?:answer|choice|verdict|decision|rating|score)",
    Example("mucr", "Option 2 shows the bent wheel, so the effect is in Option 2.\nFinal answer: 3", None),
    Example("mucr", "Option 2 shows the bent wheel, so it fits best.\nFinal answer: 2", 2),
)
SELF_CORRECTIONS = rule(
    rf"(?:^|(?<=[.!?;:,\-→…—–]))\s*(?:→\s*)?(?:(?:no|oh|hmm|um|so|but|and)\s*,?\s+)?(?:{CORRECTION_WORDS}|{_CLOSING}|{_FORCED})\b"
    # "Score: 9 — no, the cleats could belong to a visitor. Score: 6", "Option 1... no, ... Option 3." (AQ's first
    # contact); before a dash too: "On balance, I'll go with (4)... no — the ranger sign is preventive, not an effect of
    # this specific fire. Final answer: 1" (BP's first contact, unread: the closing read against the 4 it corrects)
    r"|(?:(?<=[-→…—–])|(?<=\.\.\.))\s*(?:no|hmm)(?=\s*[,:;!]|\s+[-—–]\s)"
    # "no" alone between commas before an answer ending its clause: "9, no, 5." (BC's first contact, read 9; not
    # "Option 2, no doubt, ...", nor "a man, no, two men")
    # (or before a dash and what the answer shows: "Option 3, no, Option 2 – the toddler knocking over the paint can
    # explains the blue footprints in the effect image.", BU's first contact, unread)
    rf"|(?<=,)\s*no(?=\s*,\s*(?:the\s+)?{ANY_MENTION}\s*(?:[.!;]|$|[—–-]\s))"
    # "I would choose option 3... however, speeding is the real cue, so 2." (AR's first contact)
    r"|(?<=\.\.\.)\s*however(?=\s*,)"
    # "I'd say 3, road, ... Hmm, but the road doesn't cause anything. The real cue is speeding, 2." (AT's first contact)
    r"|(?:^|(?<=[.!?]))\s*hmm\s*,?\s+but\b",
    Example("nleye", "Image 1. Wait, image 2.", 2),
    Example("rating", "Score: 7. Revised score: 4", 4.0),
    Example("texts", "Hypothesis 2 is more plausible... → actually no: rain soaks clothes. Hypothesis 1.", 1),
    Example("mucr", "Option 2... no, looking closer, Option 2 shows a dog. The effect is Option 4.", 4),
    Example(
        "mucr", "Option 3 shows the cause... no, looking more carefully, option 3 shows the aftermath. Option 4.", 4
    ),
    Example(
        "label", "The update weakens the claim that he is a man, but supports it. Overall: strengthener", "strengthener"
    ),
    Example("mucr", "None of them is a perfect match, but if I had to choose, Option 2 is the closest.", 2),
    Example("rating", "Score: 9 — no, the cleats could belong to a visitor. Score: 6", 6.0),
    Example("mucr", "Option 1... no, Option 1 shows the same moment as the cause. Option 3.", 3),
    Example(
        "mucr",
        "Based on the image, the answer is Option 1. However, looking at it again, Option 1 shows the same person "
        "before the accident, so the correct effect is Option 3.",
        3,
    ),
    Example("mucr", "I'll go with Option 4... no - Option 4 shows a sign, not an effect. Final answer: 1", 1),
    # "on further inspection" as "on closer inspection" (BG's first contact: after "Answer: Option 2", no answer)
    Example("mucr", "Answer: Option 2\nHowever, on further inspection, Option 2 shows the cause again. Answer: 4.", 4),
    Example("rating", "9, no, 5.", 5.0),
    Example("mucr", "Option 3, no, Option 2 – the toddler knocking over the paint can explains the footprints.", 2),
    # "hold on" set off as a word of its own (BD's first contact; not "the boy tries to hold on to the string")
    Example("mucr", "Answer: 3 — hold on, Option 3 shows a thermometer. The effect is in Option 1. Answer: 1", 1),
    Example("cue_words", "I would choose option 3... however, speeding is the real cue, so 2.", 2),
    Example("cue_words", "I'd say 3, road. Hmm, but the road doesn't cause anything. The real cue is speeding, 2.", 2),
    Example("mucr", "Option 1 seems most likely, but Option 3 could also be argued. I'll go with Option 3.", 3),
    Example(
        "rating",
        "Score: 5 or 6. The highlighted woman holds a briefcase, but the background is a park. I'll say 6.",
        6.0,
    ),
    Example("cue_words", "1 (car). Hmm, it doesn't explain the causal link; the cue is really speeding, so 2.", 2),
    # a check that ends its clause turns to what follows it (AP's first contact; not "let me double check Option 3")
    Example(
        "mucr",
        "Answer: Option 4\nLet me double-check. Option 4 shows a man buying a new umbrella, but the first image shows "
        "a gust of wind; the umbrella turned inside out in Option 2 is the direct effect.\nFinal answer: Option 2",
        2,
    ),
    # "Correcting:" turns to what follows it (AQ's first contact)
    Example(
        "mucr",
        "Answer: Option 2. Hmm, Option 2 shows the aftermath, not the cause. Correcting: Option 1, the girl spilling "
        "the juice.",
        1,
    ),
    flags=_FLAGS | re.MULTILINE,
)

# A first thought the reply sets aside, opening its sentence: "I initially thought strengthener, but ...", "At first I
# thought it was Option 2, but ..." (BT's first contact: "I initially thought strengthener, but the update that the
# street is dry makes rain unlikely: weakener.", read strengthener). The answer thought (``thought``) is no answer the
# reply names (decision._the_one_named); the one closing the sentence after a colon is (verdict_rules.VERDICTS).
FIRST_THOUGHT_SET_ASIDE = (
    r"(?:^|(?<=[.!?]\s)|(?<=\n))(?:I\s+(?:initially|first|originally)|(?:at\s+first|initially|originally)\s*,?\s+I)"
    r"\s+(?:thought|assumed|considered|guessed|said)\s+(?:(?:it|this)\s+(?:was|is|would\s+be)\s+)?"
    rf"(?:(?:the|a|an)\s+)?(?P<thought>{ANY_MENTION})\s*,?\s+but\b"
)
FIRST_THOUGHT = rule(
    FIRST_THOUGHT_SET_ASIDE,
    Example("label", "I initially thought strengthener, but the update says the street is dry.", None),
    Example("label", "At first I thought it was a strengthener, but the street is dry: weakener.", "weakener"),
    flags=_FLAGS | re.MULTILINE,
)

# The answer a self-correction turns to, a number explained by words that name no option, where nothing after it
# picks: "Die Antwort ist 4 (Polizist)... nein, 2 (zu schnelles Fahren), weil ..." (BE's first contact, read 4). The
# correction takes the answer before it back, and the number it turns to stays unread, as any number explained in
# another language (round 36): no answer (decision.decide; not "... no, 2 (speeding).", the option's own text).
TURNED_TO_UNREAD = rule(
    rf"\s*[,:;-]?\s*(?:(?:it's|it\s+is)\s+)?{ANY_MENTION}\s*\((?![^()\n]*[«‹])[^()\n]+\)",
    Example(
        "cue_words",
        "Die Antwort ist 4 (Polizist)... nein, 2 (zu schnelles Fahren), weil der Polizist nur die Folge ist.",
        None,
    ),
    Example("cue_words", "Die Antwort ist 4 (Polizist)... nein, 2 (zu schnelles Fahren). Final answer: 2", 2),
)
