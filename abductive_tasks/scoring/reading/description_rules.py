"""The options in a reply's own words: its own list of what each option shows, an answer given in those words, an
explanation given in another option's words, and an option's text named in passing.

The option lists and described answers are read in the reply's text, before its mentions are marked
(``form_rules.TEXT_RULES``), the own-words and in-passing rules in the marked reply's clauses (:class:`kinds.Choice`:
``_reason_describes_another``, ``_described_answer``, ``_explains_another``; ``decision.in_passing``).
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.mentions import MENTION_INDEX, NAMED_MENTION
from abductive_tasks.scoring.reading.table import Example, rule

__all__ = [
    "CLAUSE_END",
    "DESCRIBED_ANSWER",
    "DESCRIBED_ONE",
    "IN_PASSING",
    "OWN_DESCRIPTION",
    "OWN_DESCRIPTIONS",
    "OWN_WORDS_CLAUSE",
    "OWN_WORDS_CONCEDED",
    "OWN_WORDS_DENIED",
    "PARTICIPLE_SUBJECT",
    "PROGRESSIVE_SUBJECT",
    "ROLE_AFTER",
    "ROLE_CLAIMS",
    "CORRECTED_TO",
    "ROLE_NAMED",
    "STATED_OTHERWISE",
    "THAT_CLAUSE_SUBJECT",
    "VOUCHED_CLAIMS",
]


# The options described by the reply itself, in order ("Option 1 to Option 4 show, in order: a woman baking, a man
# jogging, ..."): a pick whose own reason speaks of another option's description alone, and not of its own, contradicts
# the reply's description (:meth:`Choice.read`). Read in the reply's text (TEXT_RULES).
OWN_DESCRIPTIONS = rule(
    r"\boptions?\s*(?:\(?1\)?)\s*(?:to|-|–|through)\s*(?:option\s*)?\(?\d\)?,?\s+(?:show|depict|contain)s?\b,?"
    r"\s*(?:(?:in\s+order|respectively|from\s+left\s+to\s+right)\s*[:,]?\s*(?P<list>[^.\n]+)"
    r"|(?P<list_before>[^.\n]+?),?\s+(?:in\s+order|respectively|from\s+left\s+to\s+right)\s*(?=[.\n]|$))",
    Example(
        "mucr",
        "Option 1 to Option 4 show, in order: a woman baking, a man jogging, a boy throwing a stone at a window, and a "
        "cat sleeping. The effect image shows a broken window, so the cause is Option 2.",
        None,
    ),
    Example(
        "mucr",
        "Options 1-4 show, in order: a woman baking, a man jogging, a boy throwing a stone at a window, and a cat "
        "sleeping. The effect image shows a broken window, so the cause is Option 3.",
        3,
    ),
)
# An option described by the reply itself ("Option 2 shows a wet kitchen floor", "Option 1: A boy kicking a ball."),
# and a closing answer in a description's words ("..., so the effect is the wet floor."): that option, where its
# words are one description's alone (:meth:`Choice.read`). Read in the reply's text (TEXT_RULES).
# (a hypothesis too: "Hypothesis 1 shows a woman holding a set of car keys ...; hypothesis 2 shows ...", BI's first
# contact)
OWN_DESCRIPTION = rule(
    r"\b(?:option|hypothesis)\s*\(?(?P<number>\d)\)?\s*(?::|\s(?:shows?|depicts?)\b|(?=\s+(?:an?|the)\s))"
    r"(?P<described>(?:(?!\b(?:option|hypothesis)\s*\(?\d)[^.\n])+)",
    Example(
        "mucr",
        "Option 3 shows a person holding an umbrella, and Option 2 shows a wet kitchen floor with a puddle under the "
        "sink. The cause image shows a leaking pipe under a sink, so the effect is the wet floor.",
        2,
    ),
)
DESCRIBED_ANSWER = rule(
    # (or as the reply's last sentence of its own: "... Option 1 shows someone making a sandwich, Option 2 shows a
    # toaster with its dial turned to maximum, ... The cause is the toaster set too high.": BR's first contact, unread)
    r"(?:\b(?:so|therefore|thus|hence)\b,?\s+|(?<=[.!?]\s)|(?<=\n))the\s+(?:cause|effect|answer)\s+(?:is|must\s+be|would\s+be)\s+"
    r"(?P<phrase>(?:the|an?)\s+(?!one\b|other\b|same\b)[^.\n]+)[.!]?\s*$",
    Example(
        "mucr",
        "Option 1: A boy kicking a ball.\nOption 2: A woman cooking dinner.\nOption 3: A dog sleeping.\nOption 4: A "
        "thunderstorm.\nThe effect image shows a broken vase next to a soccer ball, so the cause is the boy kicking "
        "the ball.",
        1,
    ),
    Example(
        "mucr",
        "Option 1: A boy kicking a ball.\nOption 2: A dog chasing a ball.\nOption 3: A cat sleeping.\nOption 4: A "
        "thunderstorm.\nThe vase lies next to a ball, so the cause is the ball.",
        None,
    ),
    Example(
        "mucr",
        "Looking at the effect image, the toast is burnt black. Option 1 shows someone making a sandwich, Option 2 "
        "shows a toaster with its dial turned to maximum, Option 3 shows a loaf of bread, and Option 4 shows a butter "
        "dish. The cause is the toaster set too high.",
        2,
    ),
)
# ... and the one the reply holds more plausible, named by what it shows, in the closing sentence: "Hypothesis 1 shows
# a woman holding a set of car keys next to an open car door; hypothesis 2 shows the same woman locked out, ... The one
# where she is holding the keys is more plausible, because she needs them to drive." (BI's first contact)
DESCRIBED_ONE = rule(
    r"(?:^|(?<=[.!?]\s)|(?<=\n))the\s+one\s+(?:where|in\s+which|that\s+shows|showing|with)\s+"
    r"(?P<phrase>[^.\n]+?)\s+(?:is|seems|looks)\s+(?:the\s+)?more\s+(?:plausible|likely)\b[^.\n]*[.!]?\s*$",
    Example(
        "nleye",
        "Hypothesis 1 shows a woman holding a set of car keys next to an open car door; hypothesis 2 shows the same "
        "woman locked out, peering through the car window. The one where she is holding the keys is more plausible, "
        "because she needs them to drive.",
        1,
    ),
    Example(
        "nleye",
        "Hypothesis 1 shows a woman holding car keys; hypothesis 2 shows her holding a phone. The one where she is "
        "holding something is more plausible.",
        None,
    ),
)


# A hypothesis's own words in the explanation of another's number ("Hypothesis 2 is more plausible because ..., so his
# clothes would be soaking wet", where soaking wet is hypothesis 1) contradict the answer, unless the clause denies
# them or the sentence names the other hypothesis ("sunbathing on a beach does not fit", "Hypothesis 2 describes him
# sunbathing"), or the reply's explanation uses the answer's own words too (Choice with sentences for options).
OWN_WORDS_DENIED = rule(
    r"\b(?:not|no|never|neither|nor|nobody|nothing|without|instead|rather|unless|if|less|impossible|unlikely|"
    r"implausible|improbable|inconsistent|unrelated|irrelevant|odd|strange|contradict\w*|requires?|cannot)\b|n't\b"
    r"|\bmakes\s+no\s+sense\b",
    Example("texts", "Hypothesis 1 is more plausible, whereas sunbathing on a beach does not fit the rain.", 1),
)
# A possibility the reply concedes to another hypothesis is no explanation in its words: "Probably Hypothesis 1, though
# a ball could in principle have been packed in a box" (a ball is hypothesis 2's)
# (a possibility of being, ending the sentence, with no fact stated before it nor a reason after it: not "..., though
# a ball might be inside, which seems more likely", "though the present is ball-shaped and it might roll", "though I
# might be wrong because the present is ball-shaped")
OWN_WORDS_CONCEDED = rule(
    r"\b(?:although|though|even\s+if|admittedly|granted)\b"
    r"(?:(?!\b(?:is|are|was|were|holds?|holding|has|have|turns?|because|since|so|as|and)\b)[^.;!?\n,])*?"
    r"\b(?:could|might|may)\s+(?:(?:in\s+principle|possibly|conceivably|well|also)\s+)?(?:have\s+been|be)\b"
    r"(?:(?!\b(?:because|since|so|as|and)\b)[^.;!?\n,])*(?=[.;!?\n]|$)"
    # or on a condition, a sentence opening with it: "If it occurs after, the child might have re-wrapped the ball in a
    # box, so it's hard to say for sure. I lean towards Hypothesis 1." (AZ's first contact; not a fact after the
    # condition: "If it occurs after, the child is holding the ball.")
    r"|(?:^\s*|(?<=[.!?]\s)|(?<=\n))if\b[^.;!?\n,]{1,80},\s*"
    r"(?:(?!\b(?:is|are|was|were|has|because|since|so|as|and)\b)[^.;!?\n,])*?"
    r"\b(?:could|might|may)\s+(?:(?:possibly|conceivably|well|also)\s+)?have\s+[^\W\d_]+"
    r"(?:(?!\b(?:because|since|so|as|and)\b)[^.;!?\n,])*(?=[.;!?\n,]|$)",
    Example("texts", "Probably Hypothesis 1, though he could in principle have been sunbathing on a beach.", 1),
    Example(
        "texts",
        "If it rained later, he might have been soaking wet, so it's hard to say. I lean towards Hypothesis 2.",
        2,
    ),
)
# The answer stated in words of no option ("The cue is the speed limit violation: the car broke the limit"; AG's first
# contact): an option text named after it explains it and answers nothing (``decision._the_one_named``); not "The answer
# is the following: speeding", "The answer is the first of the two hypotheses", "The answer is the person enforcing the
# law: 4" (an answer after the colon, not a clause; the blind review of round 25); nor the kind of thing the answer is,
# no answer of its own ("Not the car, not the road, and not the police officer — those are objects, while the examples
# show the cue is an action.": AU's first contact, the option left, 2)
STATED_OTHERWISE = rule(
    r"\b(?:cue|answer)\s+(?:is|would\s+be|must\s+be)\s+(?:the|an?)\s+"
    r"(?!(?:following|same|latter|former|one|best|right|correct|key|obvious)\b)"
    r"(?!(?:action|object|event|activity|thing)\s*(?:[.;!?\n]|$))"
    r"(?:(?!\b(?:first|second|third|fourth|last|other|hypothes\w*|images?|pictures?|options?|panels?|phrases?|ones?)\b)"
    r"[^«‹.:;,!?\n]){3,60}?\s*(?=[.;!?\n]|$|:\s*(?:the|an?|it|this|that|they|he|she|its|their)\b)"
    # or a word of no option opening the reply as a sentence of its own, as the prompts ask for the answer first ("The
    # cop. He is what connects the fast car to the ticket.": AV's first contact, read car, a person reads police
    # officer); not a word that answers nothing ("Okay.", "Hmm.")
    r"|\A[ \t]*(?:(?:the|an?)\s+[^\W\d_]{2,}|(?!(?:okay|ok|sure|yes|no|well|right|alright|hmm+|so|certainly|"
    r"understood|interesting|great|good|answer|cue|explanation|reasoning|analysis)\b)[^\W\d_]{3,})[.!](?=\s|$)",
    Example("cue", "The cue is the speed limit violation: the car broke the limit and was stopped.", None),
    Example("cue_words", "The cop. He is what connects the fast car to the ticket.", None),
)

# Where a clause ends, for OWN_WORDS_DENIED
OWN_WORDS_CLAUSE = re.compile(r"[,;:()]|\s-\s|\b(?:but|whereas|while|although|though|however|unlike)\b", re.IGNORECASE)


# An option text named in passing names no option: as part of describing an image ("The cause image shows children at
# a birthday party", "In the effect image there is broken glass") or as the consequence ("..., which led to the broken
# glass", "the effect is broken glass"), in the words of its clause before it (the clause ends at a sentence's end or
# at ", and", ", which", ...), unless the clause names the answer's role ("the cue that explains the effect is ...",
# "the fall caused by the slippery floor") or the text goes on to say so ("heavy rain, which explains the flood").
CLAUSE_END = re.compile(r"[.;!?\n]|,\s+(?:and|but|so|which|while|whereas|because|since|as)\b|\s-\s", re.IGNORECASE)
IN_PASSING = rule(
    r"\b(?:shows?|showing|shown|depicts?|depicting|depicted|features?|featuring|displays?|displaying|portrays?|portraying)\b"
    r"|\b(?:in|on)\s+the\s+(?:\w+\s+){0,2}?(?:image|picture|photo|panel|scene)\b|\bthere\s+(?:is|are|was|were)\b"
    r"|\bwe\s+(?:can\s+)?see\b"
    r"|\b(?:led|leads|leading)\s+(?:\w+\s+)?to\b|\bresult(?:s|ed|ing)?\s+in\b|\bcausing\b|\bhence\b"
    r"|\b(?:effect|result|consequence|outcome)s?\b[^«‹]{0,60}?(?:\b(?:is|was|are|were)\b|:)",
    Example("cue", "The cause image shows children at a birthday party. The cue is heavy rain.", 3),
    Example("cue", "In the effect image there is broken glass.", None),
)
# A determiner before an option's text as a subject: "the car", "his car"
_DETERMINER = r"(?:the\s+|a\s+|an\s+|his\s+|her\s+|their\s+)?"
# An option's text as the subject of a that-clause, a finite verb after it: the clause, not the text, is what the reply
# names ("The cue is that the car was going too fast": AO's first contact, read car; the speeding is what it says)
THAT_CLAUSE_SUBJECT = rule(
    rf"\bthat\s+{_DETERMINER}(?P<subject>{NAMED_MENTION})\s+"
    r"(?:was|were|is|are|had|has|got|gets|kept|keeps|did|does|went|goes|came|comes|made|makes)\b"
    r"(?!\s+(?:the\s+)?(?:cue|link|answer|key|reason|connection)\b)",
    Example("cue_words", "The cue is that the car was going too fast.", None),
    Example("cue_words", "The cue is that the car was going too fast, i.e. speeding.", 2),
)
# An option's text as the subject of a sentence in the progressive: what the subject does, not the text, is what the
# reply names ("The car was going too fast — that's what links the two pictures.": AU's first contact, read car; the
# speeding is what it says; not "The car is the cue")
# (also after a dash, with the image it is in: "The second phrase — the car in the first image is going well over the
# limit, and the second image shows the result." on the cue prompt, BW's first contact, unread; not "The car in the
# first image is the cue")
PROGRESSIVE_SUBJECT = rule(
    rf"(?:^|(?<=[.!?]\s)|(?<=\n)|(?<=\s-\s)){_DETERMINER}(?P<subject>{NAMED_MENTION})"
    rf"(?:\s+in\s+{NAMED_MENTION})?\s+"
    r"(?:was|were|is|are|kept)\s+(?:still\s+|clearly\s+|just\s+)?[^\W\d_]+ing\b",
    Example("cue_words", "The car was going too fast — that's what links the two pictures.", None),
    Example("cue_words", "The car was going too fast. The cue is speeding.", 2),
    Example(
        "cue_words",
        "The second phrase — the car in the first image is going well over the limit, and the second image shows the "
        "result.",
        2,
    ),
)
# ... or of a participle after "is" or "was", what it does going on after it: "the real cause is the car going too fast
# in the first image. The cue is 2." (BM's first contact, unread: the speeding is what it says; not "The cue is the
# car.", nor a noun in -ing, "the car parking lot")
PARTICIPLE_SUBJECT = rule(
    rf"\b(?:is|was)\s+{_DETERMINER}(?P<subject>{NAMED_MENTION})\s+"
    r"(?!(?:thing|something|nothing|anything|everything|morning|evening|building|ceiling|ring|king|wing|string|"
    r"parking|painting|clothing|being)\b)[^\W\d_]{2,}ing\s+(?!(?:is|was|are|were|and|or)\b)[^\W\d_]",
    Example("cue_words", "The real cause is the car going too fast in the first image. The cue is 2.", 2),
    Example("cue_words", "The real cause is the car going too fast in the first image. The cue is the car.", 1),
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
# Claims of an option's role that never pick but contradict an answer the reply gives otherwise
# (``decision._claimed_otherwise``; as picks they read replies that name or hedge another option later: the blind
# review of round 19)
_CLAIMED = rf"[«‹](?P<pick>{MENTION_INDEX})[»›]"
ROLE_CLAIMS = (
    # "2\nOption 4 shows the effect because ...": the role claimed with its reason
    rule(
        rf"{_CLAIMED}(?<!\))\s+(?:shows|depicts|represents|illustrates|is)\s+the\s+(?:effect|cause|cue)\s+(?:because|since|as)\b",
        Example(
            "mucr", "2\nOption 4 shows the effect because the power line fell and Option 4 shows a blackout.", None
        ),
        Example("mucr", "4\nOption 4 shows the effect because the power line fell.", 4),
    ),
    # "The answer: Option 2.\nExplanation: Option 4 clearly shows the cause, with the man slipping on the ice." (AR's
    # first contact, read 2): the role vouched for, ending its clause
    rule(
        rf"{_CLAIMED}(?<!\))\s+(?:clearly|obviously|definitely|certainly)\s+(?:shows|depicts|represents|illustrates|is)\s+"
        r"the\s+(?:effect|cause|cue)\s*(?=[,.;:!\n]|$)",
        Example(
            "mucr",
            "The answer: Option 2.\nExplanation: Option 4 clearly shows the cause, with the man slipping on the ice.",
            None,
        ),
        Example(
            "mucr", "The answer: Option 4.\nExplanation: Option 4 clearly shows the cause, with the man slipping.", 4
        ),
    ),
    # "Step 4: The most direct physical effect is the destroyed shoe, Option 3.\nFinal answer: 2"
    rule(
        rf"\b(?:effect|cause|cue|answer)\s+is\s+[^.;\n«‹]{{1,80}}?,\s*{_CLAIMED}\s*(?=[.!\n]|$)",
        Example(
            "mucr", "Step 4: The most direct physical effect is the destroyed shoe, Option 3.\nFinal answer: 2", None
        ),
        Example("mucr", "Step 4: The most direct physical effect is the destroyed shoe, Option 3.\nFinal answer: 3", 3),
    ),
    # "Option 2 is the cause. Lying in the sun for hours, as shown in Option 4, leads to the sunburn": what an option
    # shows, said to bring about the given image
    rule(
        rf"\bas\s+(?:shown|seen|depicted|pictured)\s+in\s+{_CLAIMED}\s*,\s*(?:leads|led|causes|caused|results|resulted)"
        r"\s+(?:to|in)?\s*the\b",
        Example(
            "mucr",
            "Option 2 is the cause. Lying in the sun for hours, as shown in Option 4, leads to the sunburn seen in the "
            "effect image.",
            None,
        ),
        Example("mucr", "Option 4 is the cause. Lying in the sun, as shown in Option 4, leads to the sunburn.", 4),
    ),
    # "Option 1 shows the cause. In the effect image, the officer is issuing a ticket, which most likely resulted from
    # the car speeding past the sign in the last picture." (AG's first contact): the given image said to come from
    # what an option shows, the option ending the sentence; or said to be caused by what it shows ("Answer: 2. The
    # broken vase on the floor was caused by the cat jumping onto the shelf, shown in Option 4.": AP's first contact)
    rule(
        r"\b(?:(?:result(?:s|ed)?|comes?|came|stems?|stemmed)\s+from|(?:caused|brought\s+about|triggered)\s+by)"
        r"\s+[^.;!?\n«‹]{1,80}?(?:\s*,?\s+(?:as\s+)?(?:shown|seen|depicted|pictured))?\s+(?:in|on)\s+(?:the\s+)?"
        rf"{_CLAIMED}\s*(?=[.!;\n]|$)",
        Example(
            "mucr",
            "Option 1 shows the cause. The officer is issuing a ticket, which most likely resulted from the car "
            "speeding past the sign in Option 4.",
            None,
        ),
        Example(
            "mucr",
            "Option 4 shows the cause. The officer is issuing a ticket, which resulted from the car speeding in "
            "Option 4.",
            4,
        ),
        Example(
            "mucr",
            "Answer: 2. The broken vase on the floor was caused by the cat jumping onto the shelf, shown in Option 4.",
            None,
        ),
        Example(
            "mucr",
            "Answer: 4. The broken vase on the floor was caused by the cat jumping onto the shelf, shown in Option 4.",
            4,
        ),
    ),
    # ... or what the given image brings about, said after "which is what" to be what an option shows, ending the
    # sentence: "Option 3 shows the effect. The overflowing bathroom sink in the cause image leads to water stains
    # spreading on the ceiling of the room below, which is what Option 1 shows." (BO's first contact, read 3; not
    # "which is not what Option 1 shows", nor "which is what Option 1 might show", nor "..., which is what Option 1
    # shows too, but ...")
    rule(
        r"\b(?:(?:leads?|led)\s+to|(?:results?|resulted)\s+(?:in|from)|causes|caused|produces|produced"
        r"|(?:comes?|came|stems?|stemmed)\s+from)\s+[^.;!?\n«‹]{1,120}?,\s*which\s+is\s+(?:exactly\s+|precisely\s+)?"
        rf"what\s+{_CLAIMED}(?<!\))\s+(?:clearly\s+)?(?:shows|depicts|illustrates)\s*(?=[.!;\n]|$)",
        Example(
            "mucr",
            "Option 3 shows the effect. The overflowing bathroom sink in the cause image leads to water stains "
            "spreading on the ceiling of the room below, which is what Option 1 shows.",
            None,
        ),
        Example(
            "mucr",
            "Option 1 shows the effect. The overflowing sink leads to water stains on the ceiling below, which is "
            "what Option 1 shows.",
            1,
        ),
    ),
    # "Option 1 is the cause, since the third option shows the lightning storm that knocked out the power." (BL's first
    # contact, read 1): the reason given for the answer's role is what another option shows doing something, a claim
    # of that option (not what it shows said otherwise: "..., since Option 3 shows a storm that is not near the
    # house", "..., since Option 3 shows the same storm that hit the town", nor the role's own picture, "..., since
    # Option 3 shows the effect")
    rule(
        r"\b(?:effect|cause|cue|answer|one)\s*,?\s+(?:since|because|as)\s+(?:the\s+)?"
        rf"{_CLAIMED}(?<!\))\s+(?:clearly\s+)?(?:shows|depicts|illustrates)\s+(?:the|a|an)\s+"
        r"(?!(?:same|effect|cause|result|aftermath|consequence|outcome|context|given)\b)[^.;!?\n«‹]{1,60}?\s+"
        r"(?:that|which)\s+(?!(?:is|are|was|were|has|have|had|does|do|did|would|could|might|may|can|will|should|"
        r"seems?|looks?)\b)[^\W\d_]+\b(?![^.;!?\n]*\b(?:not|never|no)\b|[^.;!?\n]*n't\b)",
        Example(
            "mucr",
            "Option 1 is the cause, since the third option shows the lightning storm that knocked out the power.",
            None,
        ),
        Example(
            "mucr",
            "Option 3 is the cause, since the third option shows the lightning storm that knocked out the power.",
            3,
        ),
    ),
    # "Based on the scene graph (1), Option 1 is the answer. However, the image suggests Option 3 as well, since ..."
    # (BM's first contact, read 1): another option conceded beside the answer after "however" or "but", a claim of
    # that option (not "... as well as ...", nor set aside after it: "..., but Option 3 shows only a small flame")
    rule(
        r"\b(?:however|but|yet)\s*,?\s+(?:[^.;!?\n«‹]{0,60}?\s)?(?:suggests|supports|points\s+to|indicates|fits|"
        rf"favou?rs)\s+(?:the\s+)?{_CLAIMED}\s+(?:as\s+well|too)\b(?!\s+as\b)"
        r"(?!\s*,?\s*(?:but|though|although|yet)\b)",
        Example("mucr", "Option 1 is the answer. However, the image suggests Option 3 as well, since both fit.", None),
        Example("mucr", "Option 1 is the answer. However, the image suggests Option 1 as well, since it fits.", 1),
    ),
)

# What an option shows said to bring about, or come from, another image's ("which is what causes a ticket")
_BRINGS_ABOUT = r"(?:causes|caused|leads\s+to|led\s+to|results\s+(?:in|from)|resulted\s+(?:in|from)|follows\s+from)\b"

# A claim of an option's role vouched for ("clearly", "obviously"): it contradicts a different answer wherever the reply
# gives it, before the claim too, unless a self-correction comes between ("Option 4 shows a lit match ..., which is
# certainly the cause of the forest fire. Answer: 2": the blind review of round 23)
VOUCHED_CLAIMS = (
    # "Option 1 shows a bandaged hand, which is clearly the effect of getting burned.\nFinal answer: 4": what the option
    # shows, then its role
    rule(
        rf"{_CLAIMED}(?<!\))\s+(?:shows|depicts|represents|illustrates)\b[^.;\n«‹]{{1,80}}?,\s*which\s+is\s+"
        r"(?:clearly|obviously|definitely|certainly)\s+the\s+(?:effect|cause|cue)\b",
        Example(
            "mucr",
            "Option 1 shows a bandaged hand, which is clearly the effect of getting burned.\nFinal answer: 4",
            None,
        ),
        Example(
            "mucr", "Option 4 shows a bandaged hand, which is clearly the effect of getting burned.\nFinal answer: 4", 4
        ),
        Example("mucr", "Option 4 shows a lit match, which is certainly the cause of the forest fire. Answer: 2", None),
    ),
    # "Option 4 shows the effect of the cause image, since the tree has fallen onto the roof.\nTherefore the answer is
    # Option 2." (AZ's first contact, read 2): the option given the answer's role toward the given image named by the
    # other role, as the prompts name it, which says the role asked: it contradicts another answer wherever the reply
    # gives it (not "Option 4 shows the effect", nor "... the effect of the rain"; the subject of a sentence, not the
    # last of a list: "The question asks which of Options 1, 2, 3 and 4 shows the cause of the effect image.")
    rule(
        rf"(?:^|(?<=[.!?;:]\s)|(?<=\n)){_CLAIMED}(?<!\))\s+(?:(?:clearly|best|obviously|certainly|definitely)\s+)?"
        r"(?:shows|depicts|represents|illustrates|is)\s+the\s+(?:effect\s+of\s+the\s+cause|cause\s+of\s+the\s+effect)\s+"
        r"(?:image|picture)\b(?!\s*\?)",
        Example(
            "mucr",
            "Option 4 shows the effect of the cause image, since the tree has fallen onto the roof.\nTherefore the "
            "answer is Option 2.",
            None,
        ),
        Example("mucr", "Option 4 shows the effect of the cause image, since the tree has fallen.\nAnswer: 4", 4),
    ),
    # "Option 4 shows the car speeding, which is what causes a ticket." (AG's first contact): what the option shows,
    # said to bring about the given image (not "which is not what causes it")
    rule(
        rf"{_CLAIMED}(?<!\))\s+(?:shows|depicts|represents|illustrates)\b[^.;\n«‹]{{1,80}}?,\s*which\s+is\s+"
        rf"(?:exactly\s+|precisely\s+)?what\s+{_BRINGS_ABOUT}",
        Example(
            "mucr",
            "Answer: Option 3\nExplanation: The effect image shows a police officer writing a ticket; Option 4 shows "
            "the car speeding, which is what causes a ticket.",
            None,
        ),
        Example("mucr", "Answer: Option 4. Option 4 shows the car speeding, which is what causes a ticket.", 4),
    ),
    # "Step 3: Option 1 shows exactly that: a police officer giving the driver a ticket.\nFinal answer: 2" (AG's first
    # contact), "Option 4 shows exactly what causes a ticket" (the blind review of round 25): the option said to show
    # what the reasoning before it expects (not "shows exactly that scene again", "shows exactly what the cause image
    # shows")
    rule(
        rf"{_CLAIMED}(?<!\))\s+(?:shows|depicts|illustrates)\s+(?:exactly|precisely)\s+(?:(?:that|this|(?:that|the)\s+"
        rf"(?:cause|effect|consequence|result|outcome))\s*(?=[:.!—–]|$)|what\s+{_BRINGS_ABOUT})",
        Example(
            "mucr",
            "Step 1: The cause image shows a car speeding.\nStep 2: Speeding usually leads to being stopped by the "
            "police.\nStep 3: Option 1 shows exactly that: a police officer giving the driver a ticket.\n"
            "Final answer: 2",
            None,
        ),
        Example("mucr", "Speeding leads to being stopped. Option 2 shows exactly that.\nFinal answer: 2", 2),
        Example("mucr", "Answer: Option 1\nOption 4 shows exactly the cause: a car racing past the sign.", None),
        Example("mucr", "Option 4 shows exactly what causes a ticket: a car speeding. Final answer: 1", None),
    ),
    # "Option 1 shows him getting a speeding ticket, which is exactly what happens after speeding. ... Final answer: 3"
    # (AO's first contact, read 3): what the option shows said to be exactly what follows the given image's
    rule(
        rf"{_CLAIMED}(?<!\))\s+(?:shows|depicts|illustrates)\b[^.;\n«‹]{{1,80}}?,\s*which\s+is\s+(?:exactly|precisely)\s+"
        r"what\s+(?:happens|follows|comes|results)\s+(?:after|from|when|next)\b",
        Example(
            "mucr",
            "The cause image shows a man speeding. Option 1 shows him getting a ticket, which is exactly what happens "
            "after speeding.\nFinal answer: 3",
            None,
        ),
        Example("mucr", "Option 3 shows a ticket, which is exactly what happens after speeding.\nFinal answer: 3", 3),
    ),
    # "The wrapped present in the context image has sharp corners and flat sides, exactly like the unwrapped present in
    # image 1, ... So the more plausible image is 2." (AG's first contact): the context said to match what an option
    # shows exactly
    rule(
        r"\bcontext\b[^.;!?\n«‹]{0,120}?\b(?:exactly|just|precisely)\s+(?:like|as\s+in)\s+(?:the\s+)?[^.;!?\n«‹]{0,60}?"
        rf"\bin\s+{_CLAIMED}(?!\s*\))",
        Example(
            "nleye",
            "The present in the context image has sharp corners, exactly like the unwrapped present in image 1, while "
            "the ball in image 2 could hardly have been wrapped that way. So the more plausible image is 2.",
            None,
        ),
        Example(
            "nleye",
            "The present in the context image has sharp corners, exactly like the unwrapped present in image 1. So "
            "the more plausible image is 1.",
            1,
        ),
    ),
)

# The answer a self-correction turns to, where no pick follows it: an answer after a colon ending the reply ("Weakener.
# Wait — ..., so the update actually supports it: strengthener."; AF's first contact). Read only after a correction of
# an answer given before it (not 'Wait, the instructions say to answer with "1" or "2". The required format is: "1"').
CORRECTED_TO = (
    rule(
        rf":\s*{_CLAIMED}\s*[.!]?\s*\Z",
        Example(
            "label",
            "Weakener. Wait — a child can still move while playing a game, so the update actually supports it: "
            "strengthener.",
            "strengthener",
        ),
        Example("nleye", "More plausible: image 2. Less plausible: image 1.", 2),
    ),
    # what the answer shows, said to be an option in a sentence closing the reply: "Option 3 — sorry, I counted the
    # cause image. The stained tablecloth is Option 2." (BE's first contact, read 3; not "Option 3 — sorry, the
    # stained tablecloth is Option 2, and the effect is Option 3.", which names the first again)
    rule(
        rf"(?:^|(?<=[.!?]\s))the\s+[^«‹.,;:!?\n]{{1,60}}?\s+is\s+{_CLAIMED}\s*[.!]?\s*\Z",
        Example("mucr", "Option 3 — sorry, I counted the cause image. The stained tablecloth is Option 2.", 2),
        Example("mucr", "Option 3 shows the effect. The stained tablecloth is Option 2.", 3),
    ),
)
