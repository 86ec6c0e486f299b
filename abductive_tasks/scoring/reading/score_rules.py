"""The rating tables: statements and verdicts of a score, and the reply's own words about the inference."""

from __future__ import annotations

import re
from collections.abc import Mapping

from abductive_tasks.scoring.reading.correction_rules import CORRECTION_WORDS
from abductive_tasks.scoring.reading.mentions import alternatives
from abductive_tasks.scoring.reading.table import Example
from abductive_tasks.scoring.reading.verdict_patterns import verdict

__all__ = ["JUDGEMENTS", "JUDGEMENT_TOLERANCE", "SCORE_STATEMENTS", "SCORE_VERDICTS", "SHARED_HEAD", "settled_label"]

# A score's statements: "7/10", "Score: 7", "Rating = 7.5", "The score is 7", "a score of 3".
SCORE_STATEMENTS = (
    verdict(
        r"{named_pick}",
        Example("rating", "7/10", 7.0),
    ),
    # "Score: 7 → 8": a rating revised
    verdict(
        r"{reject}\s*→\s*{pick}",
        Example("rating", "Score: 7 → 8", 8.0),
    ),
    # "| Score | 8 |" too
    verdict(
        r"\b(?:score|rating|rank|plausibility|(?:final\s+)?answer|overall|verdict|final)(?:\s+(?:score|rating))?\s*(?:[:=|→]|\bis\b)\s*(?:n\s*=\s*)?{pick}",
        Example("rating", "Score: 7", 7.0),
        Example("rating", "| Score | 8 |", 8.0),
        Example("rating", "Score: 10 means almost certainly true; here I'd say Score: 6.", 6.0),
        Example(
            "rating", "Here is my reasoning:\n\n1. The man runs.\n2. He sits.\n3. He waits.\n\nOverall: **4**", 4.0
        ),
    ),
    # a heading set off by a dash before a rating alone on its line: "Answer - 10" (BC's first contact)
    verdict(
        r"^[ \t]*(?:final\s+)?(?:answer|score|rating)[ \t]+[-–—][ \t]*{pick}(?=[ \t]*(?:[.!]|$))",
        Example("rating", "Answer - 10", 10.0),
    ),
    # the scale as the rating's heading, its colon left where the scale is dropped (Score._ignore): "On a 1–10 scale: 7"
    # (AU's first contact)
    verdict(
        r"^[ \t]*:[ \t]*{pick}(?=[ \t]*(?:[.!]|$))",
        Example("rating", "On a 1–10 scale: 7", 7.0),
        Example("rating", "On a scale of 1 to 10: 4. The man is wet.", 4.0),
    ),
    # a closing rating: "so overall I'd give it an 8" (AR's first contact: after "Score: 3", read 3; two ratings
    # stated, no answer)
    verdict(
        r"\boverall\s*,?\s+(?:I'd|I\s+would|I'll|I\s+will)\s+(?:give|rate|score)\s+(?:it|this|the\s+hypothesis)\s+"
        r"(?:a\s+|an\s+)?{pick}",
        Example(
            "rating",
            "Score: 3\nThe hypothesis image shows the same rectangular box opened, so overall I'd give it an 8.",
            None,
        ),
        Example("rating", "The box is the same shape, so overall I'd give it an 8.", 8.0),
    ),
    # in the prompt's own words: "The plausibility of the hypothesis image in relation to the context is 3"
    verdict(
        r"\b(?:plausibility|score|rating)\s+(?:of|for)\s+[^.;:!?\n«‹]{{1,80}}?\s+is\s+(?:a\s+|an\s+)?{pick}",
        Example(
            "rating",
            "The plausibility of the hypothesis image in relation to the context is 3, slightly plausible.",
            3.0,
        ),
    ),
    verdict(
        r"\b(?:score|rating)\s+of\s+{pick}",
        Example("rating", "I'd assign a score of 3.", 3.0),
    ),
    # a rating with a word of its strength: "I'd say it's a strong 8." (AV's first contact)
    verdict(
        r"\b(?:it's|it\s+is|that's|that\s+is|give\s+it|gets?)\s+(?:a|an)\s+(?:strong|solid|firm|clear|weak|low|high|"
        r"good|fair|generous|cautious)\s+{pick}(?=\s*(?:[.,;!)]|$))",
        Example("rating", "The collar matches the dog's, so I'd say it's a solid 7.", 7.0),
    ),
    # "I would place this hypothesis at a 2", "I'd put it at 7" (on the scale too: "I would put this at 6 on the scale,
    # since it's reasonably likely but not guaranteed.", BM's first contact, unread; not "... at 6 on the scale of
    # someone who ...")
    verdict(
        r"\b(?:place|put|set|peg)\s+(?:it|this|that|the\s+hypothesis|this\s+hypothesis|this\s+inference)\s+at\s+"
        r"(?:a\s+|an\s+|around\s+|about\s+)?{pick}(?:\s+on\s+(?:the|this|our)\s+scale)?(?=\s*(?:[.,;!)]|$))",
        Example("rating", "On a scale from 1 to 10, I would place this hypothesis at a 2.", 2.0),
        Example("rating", "I would put this at 6 on the scale, since it's reasonably likely but not guaranteed.", 6.0),
    ),
    # a rating after the scale's words it is stated with: "I would rate this as moderately plausible: 5." (AT's first
    # contact)
    verdict(
        r"\b(?:rate|score|grade)\s+(?:it|this|that|the\s+hypothesis)\s+as\s+(?:[^\W\d_]+\s+){{0,2}}[^\W\d_]+\s*:\s*{pick}"
        r"(?=\s*(?:[.!;]|$))",
        Example("rating", "The present is hard to make out.\nI would rate this as moderately plausible: 5.", 5.0),
    ),
    # a commitment after a range, the rating ending its clause: "around 6-7, so let's say 7", "I'll go with 6" (not
    # "Let's say 2 of the 3 clues point to rain"); "I'd go with 5" (BT's first contact: "Hard to say without knowing
    # whether ..., but I'd go with 5.", unread)
    verdict(
        r"\b(?:(?:let'?s|let\s+us|I'?ll|I\s+will)\s+(?:just\s+)?(?:say|go\s+with|settle\s+on)"
        r"|(?:I'd|I\s+would)\s+(?:just\s+)?(?:go\s+with|settle\s+on))\s+(?:a\s+|an\s+)?{pick}"
        r"(?=\s*(?:[.,;!)]|$))",
        Example("rating", "I'd rate it around 6-7, so let's say 7.", 7.0),
        Example("rating", "Somewhere between 4 and 6. I'll go with 5.", 5.0),
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
    # a rating the reply rejects, wherever it stands: "Score: 10/10 feels too high ...; call it 7"
    verdict(
        r"{reject}\s+(?:\w+\s+){{0,2}}?(?:feels?|seems?|is|sounds?|looks?|would\s+be|might\s+be)\s+"
        r"(?:a\s+(?:bit|little)\s+|far\s+|way\s+|much\s+|slightly\s+|rather\s+|perhaps\s+|probably\s+)?"
        r"(?:too\s+(?:high|low|generous|harsh|strong|weak|much|little|optimistic|pessimistic)|excessive|overly\s+\w+)",
        Example("rating", "Score: 10/10 feels too high, since he may have tripped; call it 7.", 7.0),
    ),
    # "call it 7", "make it a 6"; "if I have to pick a single number, 7"
    verdict(
        r"\b(?:call|make)\s+it\s+(?:a\s+|an\s+)?{pick}",
        Example("rating", "Score: 10/10 is too high; call it 7.", 7.0),
    ),
    verdict(
        r"\b(?:single\s+)?(?:number|value|score|rating)\s*[,:]\s*(?:a\s+|an\s+)?{pick}(?=\s*(?:[.,;!)]|$))",
        Example("rating", "Somewhere around 6-7; if I have to pick a single number, 7.", 7.0),
    ),
    # a rating a self-correction turns to, ending its clause: "Score: 4 — actually 6" (AN's first contact, read 4),
    # "Score: 8. Wait, no: 5." (not "Actually 6 of the 10 details fit", nor "Score: 9 — actually 10 is too much")
    verdict(
        r"(?:^|(?<=[.!?;:,→…—–-]))\s*(?:(?:no|oh|hmm)\s*,?\s+)?(?:actually|wait|correction|scratch\s+that|sorry"
        # "no" alone after a dash: "Score: 4 — no, 6." (AV's first contact, read 4)
        # or between commas: "9, no, 5." (BC's first contact, read 9)
        r"|(?:(?<=[—–…-])|(?<=[—–…-]\s))no(?=\s*[,:])|(?:(?<=,)|(?<=,\s))no(?=\s*,))"
        r"\s*[,:-]?\s*(?:no\s*[,:-]?\s*)?"
        # the correction's reason set off by commas before the rating: "Score: 6 — wait, given the snow on the
        # rooftops, 8." (BW's first contact, read 6; not a reason without the correction, "Score: 6 — given the snow
        # on the rooftops, 8 would be too high.")
        r"(?:(?:given|since|because|considering|seeing)\b[^.;!?\n«‹,]{{0,80}},\s*)?"
        r"(?:(?:make\s+(?:it|that)|it's|it\s+is)\s+)?(?:a\s+|an\s+)?{pick}"
        r"(?=\s*(?:[.!;)]|$)|\s+-\s)",
        Example("rating", "Score: 3 - actually 7", 7.0),
        Example("rating", "Score: 6 — wait, given the snow on the rooftops, 8.", 8.0),
        Example("rating", "Rating: 9. Wait, no: 5. The hat is not his.", 5.0),
        Example("rating", "Rating: 3 — no, 7. The hat is his after all.", 7.0),
        Example("rating", "9, no, 5.", 5.0),
    ),
    # ... and after the correction's reason, the scale's words and a dash before the rating ending its sentence: "I
    # would rate it a 7. Actually, since the nail is visible in both images, it's almost certain — 9." (BK's first
    # contact, read 7; not a number that goes on after the dash, "... almost certain - 9 of 10 would agree", nor without
    # a word of correction opening the sentence: "The nail is visible, so it's almost certain - 9.")
    verdict(
        rf"(?:^|(?<=[.!?]\s)|(?<=\n))(?:(?:no|oh|hmm)\s*,?\s+)?(?:{CORRECTION_WORDS})\b[^.;!?\n«‹]{{{{0,120}}}}?"
        r"\b(?:plausib\w*|likely|certain|probable)\s+-\s+{pick}(?=\s*(?:[.!]|$))",
        Example(
            "rating",
            "I would rate it a 7. Actually, since the nail is visible in both images, it's almost certain — 9.",
            9.0,
        ),
    ),
    # "I'll lower it to 6", "raising my score to 8"
    verdict(
        r"\b(?:lower|rais|chang|revis|adjust|bump|reduc|increas|decreas|drop|mov|updat)\w*(?:\s+(?:it|this|that|my\s+(?:score|rating|answer)))?(?:\s+(?:down|up))?\s+to\s+(?:a\s+|an\s+)?{pick}",
        Example("rating", "Score: 7. On reflection, I'll lower it to 6.", 6.0),
    ),
    # "..., so 8 is fairer", "7 would be more accurate": the value the reply settles on after weighing another
    # (after a word that settles it: not "Some might argue 8 is fairer", "where 10 is closer to certainty")
    verdict(
        r"\b(?:so|thus|hence|therefore|then|actually|honestly|frankly|really)\s*,?\s+(?:a\s+|an\s+)?{pick}\s+"
        r"(?:is|seems|feels|would\s+be)\s+(?:much\s+|far\s+)?(?:fairer|more\s+(?:accurate|appropriate|reasonable|"
        r"fitting|realistic)|about\s+right)\b",
        Example(
            "rating", "Score: 3 — well, actually, the vase explains why the cat looks guilty, so 8 is fairer.", 8.0
        ),
    ),
    # "I'd settle on a 6"
    verdict(
        r"\b(?:settle|land)\w*\s+(?:on|at)\s+(?:a\s+|an\s+)?{pick}",
        Example("rating", "I'd settle on a 6.", 6.0),
    ),
    verdict(
        rf"\b{_SCORE_WORDS}\b{_FILLER}{{{{0,40}}}}?{{pick}}",
        Example("rating", "I'd give it a 7.", 7.0),
        Example("rating", "I rate it 6.", 6.0),
    ),
    verdict(
        r"\bplausib\w*(?:\s+at\s+all)?\s*\(\s*{pick}\s*\)",
        Example("rating", "Very plausible (7)", 7.0),
    ),
    # "A solid 8." with a word of its strength too (BB's first contact)
    verdict(
        r"^\s*(?:a|an)\s+(?:(?:strong|solid|firm|clear|weak|low|high|good|fair|generous|cautious)\s+)?{pick}",
        Example("rating", "A 5 seems fair.", 5.0),
        Example("rating", "A solid 8. Houses and a quiet street.", 8.0),
    ),
    # the rating after the scale's words, set off by a dash or colon, ending its sentence: "Between slightly plausible
    # and moderately plausible — a 4." (AZ's first contact; with its article: not the scale restated, "moderately
    # plausible: 5, very plausible: 7")
    verdict(
        r"\bplausib\w*(?:\s+at\s+all)?\s*[-:]\s*(?:a|an)\s+{pick}(?=\s*(?:[.!;]|$))",
        Example("rating", "Between slightly plausible and moderately plausible — a 4.", 4.0),
        Example("rating", "Slightly plausible: a 3. The ball could not have been wrapped that way.", 3.0),
    ),
    # without the article where the scale's words open the reply, a dash before the rating: "Moderately plausible – 5.
    # The context shows ..." (BJ's first contact, unread; not the scale restated, "Moderately plausible - 5, very
    # plausible - 7", nor after a colon, "Slightly plausible: 3 ..." heading the scale's list)
    verdict(
        r"(?<![\s\S])\s*(?:[^\W\d_]+\s+){{0,2}}?plausib\w*(?:\s+at\s+all)?\s+-\s+{pick}(?=\s*(?:[.!;]|$))",
        Example("rating", "Moderately plausible – 5. He might have caught the frog, but not with the rod.", 5.0),
        Example("rating", "Very plausible - 8.", 8.0),
    ),
    verdict(
        r"\b(?:a|an)\s+{pick}\s+(?:feels|seems|sounds|looks)\s+(?:about\s+)?(?:right|fair|reasonable|appropriate|correct)",
        Example("rating", "It isn't a 1. Something like a 7 feels right: very plausible.", 7.0),
    ),
    # "I'd rate this 5... actually, considering the collar, 7 is more appropriate": the revised rating, ending its
    # clause (not "10 is closer to certainty", "8 seems more appropriate at first glance")
    verdict(
        r"{pick}\s+(?:is|seems|feels|sounds|would\s+be)\s+(?:more\s+(?:appropriate|fitting|accurate|reasonable|suitable))"
        r"(?=\s*(?:[.;!)]|$))",
        Example("rating", "I'd rate this 5... actually, given the same red collar, 7 is more appropriate.", 7.0),
    ),
    # "70% plausible, which corresponds to a 7 on your scale"
    verdict(
        r"\b(?:corresponds?|corresponding|translates?|equates?|maps?)\s+to\s+(?:a\s+|an\s+)?{pick}",
        Example("rating", "70% plausible, which corresponds to a 7 on your scale.", 7.0),
    ),
    verdict(
        r"\b(?:around|about|roughly|approximately|maybe|perhaps|probably|so|thus|hence|therefore|say|more\s+like)\s*,?\s+"
        # "around 8 or so", the rating's own hedge (BB's first contact; not "around 8 or 9", a range)
        r"(?:a\s+|an\s+)?{pick}(?=\s*(?:[.,;!)]|\s-\s|$)|\s+or\s+so\b)",
        Example("rating", "Around 5.", 5.0),
        Example("rating", "Around 8 or so. The box keeps its shape.", 8.0),
        Example("rating", "I'd say around 7 or so.", 7.0),
        Example("rating", "Around 8 or 9.", None),
        # a rating corrected to what it is "more like" (AX's first contact)
        Example("rating", "Score: 3. Wait, reconsidering the shadow direction, it's more like a 6.", 6.0),
        Example("rating", "I'd rate this around a **6** — somewhere between moderately and very plausible.", 6.0),
    ),
    # the rating with its article and hedge before a colon that explains it: "Very plausible, about an 8: the fisherman
    # ..." (BF's first contact; without the article, "about 8:" may head a list's item)
    # (not denied, "Not about an 8: more like a 3.", nor before a condition, "I can't give a single rating. Maybe about
    # an 8: if the man is ...": round 50's review)
    verdict(
        r"(?<!\bnot\s)(?<![^\W\d_]n't\s)\b(?:around|about|roughly|approximately)\s+(?:a|an)\s+{pick}"
        r"(?=\s*:(?!\s*(?:if|when|unless|assuming|provided|only\s+if)\b))",
        Example("rating", "Very plausible, about an 8: the fisherman holds the same rod and a fish.", 8.0),
    ),
    # ... or said, "I'd say" before it: "Hard to judge given how tiny the hypothesis image is, but I'd tentatively say
    # 4: the context shows someone carrying a ladder ..." (BO's first contact, unread; not denied, "I wouldn't say 4:
    # ...", nor before a condition, "I'd say 4: if ...")
    verdict(
        r"\b(?:I'd|I\s+would)\s+(?:(?:tentatively|cautiously|probably|perhaps|maybe)\s+)?say\s+(?:a\s+|an\s+)?{pick}"
        r"(?=\s*:(?!\s*(?:if|when|unless|assuming|provided|only\s+if)\b))",
        Example(
            "rating",
            "Hard to judge given how tiny the hypothesis image is, but I'd tentatively say 4: the context shows "
            "someone carrying a ladder into a house.",
            4.0,
        ),
    ),
    verdict(
        r"\b(?:it|this|that)(?:\s+is|'s|\s+would\s+be|\s+deserves)\s+(?:at\s+(?:least|most)\s+)?(?:a|an)\s+{pick}",
        Example("rating", "This is a 9.", 9.0),
    ),
    # (or a giving of it negated: "I would not give it a 3." reads no rating, as the Spanish "No le daría un 3" does;
    # not "I'd give it a 3, not a 4", nor the rating given after it: "I wouldn't give it a 3; I'd give it a 7.")
    verdict(
        r"(?:\bnot|n't)\s+(?:be\s+)?(?:(?:give|rate|score|assign)\s+(?:it|this|that|the\s+hypothesis)\s+)?"
        r"(?:(?:close|near)\s+to\s+|anywhere\s+near\s+)?(?:a\s+|an\s+)?{reject}",
        Example("rating", "Not a 10. I'd give it a 9.", 9.0),
        Example("rating", "I would not give it a 3.", None),
        Example("rating", "I wouldn't give it a 3; I'd give it a 7.", 7.0),
        Example("rating", "The hypothesis isn't a 1, and it isn't a 10 either. I'd say it lands at a 5.", 5.0),
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


# The scale's word the reply settles on, ending its clause: "Somewhere between slightly and moderately plausible - I'll
# go with moderately plausible. The hypothesis shows a dog digging, ..." (BR's first contact, unread: a range, then the
# one of its words given, as "Somewhere between 4 and 6. I'll go with 5." reads 5; not "I'll go with moderately
# plausible, maybe very plausible", nor another named after it, "... I'll go with moderately plausible. Or very
# plausible.")
_SETTLED = (
    r"\b(?:i'll|i\s+will|i'd|i\s+would)\s+(?:go\s+with|say|pick|choose|settle\s+on)\s+(?P<label>{labels})"
    r"(?=\s*(?:[.;!]|$))"
)


def settled_label(text: str, labels: Mapping[str, float]) -> float | None:
    """The rating of the one scale word (``labels``, lower case, to their ratings) that ``text`` (plain) settles on
    (:data:`_SETTLED`), else None."""
    words = alternatives(list(labels))
    found = [*re.finditer(_SETTLED.format(labels=words), text, re.IGNORECASE)]
    settled = {labels[" ".join(match["label"].lower().split())] for match in found}
    # the last word the reply names ("... I'll go with moderately plausible. Or very plausible." settles on none)
    if len(settled) != 1 or re.search(rf"(?<!\w)(?:{words})(?!\w)", text[found[-1].end() :], re.IGNORECASE):
        return None
    return settled.pop()
