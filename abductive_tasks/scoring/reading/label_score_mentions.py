"""The mention tables of labels and ratings (``Label``, ``Score``), and the number words every table reads.

Moved from mention_tables.py (the choices' mention tables), which had reached the 800 lines a module may have. A
rule's ``examples`` name the example kind that reads them and what a person reads; tests/scoring/test_rule_examples.py
reads every example through that kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from abductive_tasks.scoring.reading.mentions import MentionRule, alternatives
from abductive_tasks.scoring.reading.table import Example

__all__ = [
    "HYPOTHESIS_NOUN",
    "LABEL_EFFECTS",
    "LABEL_VERBS",
    "NUMBER_WORD",
    "NUMBER_WORD_ALONE",
    "NUMBER_WORDS",
    "label_mentions",
    "score_mentions",
]

_FLAGS = re.IGNORECASE

NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
NUMBER_WORD = "|".join(NUMBER_WORDS)
# A number word standing as an answer: "Two.", "The answer is one.", "Score: five", "a six."
# (not "the other one", "of the two images").
NUMBER_WORD_ALONE = (
    rf"(?:(?m:^)|(?<=\bis )|(?<=\bbe )|(?<=\ba )|(?<=\ban )|(?<=: ))(?P<value>{NUMBER_WORD})\b(?=\s*(?:[.!?,;)]|$))"
)


def _rule(pattern: str, value: Callable[[re.Match], object], *examples: Example, named: bool = True) -> MentionRule:
    """A mention rule of ``pattern`` (case-insensitive) with the example replies it exists for."""
    return MentionRule(re.compile(pattern, _FLAGS), value, named, examples=examples)


def _naming(label: str) -> Callable[[re.Match], object]:
    """What a rule naming ``label`` whatever it matched reads."""
    return lambda match: label


# Verbs that say what a label's verb says ("supports the idea" strengthens it). They name no label, but a label whose
# own explanation states the other label's effect with them ("weakener ... which supports the idea that ...") is
# contradictory: no answer.
LABEL_VERBS = {
    "strengthen": "support|reinforce|bolster|corroborate|confirm",
    "weaken": "undermine|contradict|refute|challenge|cast doubt on",
}
# Phrases that state a label's effect on the hypothesis without its verb ("makes the hypothesis more likely"); a label
# whose explanation states the other effect with them is contradictory as with LABEL_VERBS.
HYPOTHESIS_NOUN = (
    r"(?:the|this|that|her|his|their|our)\s+(?:idea|notion|assumption|hypothesis|inference|claim|conclusion)\b"
)
# (the hypothesis with what it says in a that-clause: "A strong update: the woman holding a diploma makes the hypothesis
# that she just graduated more likely.", BP's first contact, unread)
_WHAT_IT_SAYS = r"(?:\s+that\s+[^.;:!?\n]{1,80}?)?"
LABEL_EFFECTS = {
    "strengthen": (
        rf"makes?\s+{HYPOTHESIS_NOUN}{_WHAT_IT_SAYS}\s+(?:much\s+|even\s+|far\s+)?more\s+"
        r"(?:likely|plausible|probable|credible)"
        rf"|makes?\s+it\s+(?:much\s+|even\s+|far\s+)?more\s+(?:likely|plausible|probable)\s+that\s+{HYPOTHESIS_NOUN}"
        rf"|(?:increases?|raises?)\s+the\s+(?:likelihood|probability|plausibility)\s+(?:of|that)\b"
    ),
    "weaken": (
        rf"makes?\s+{HYPOTHESIS_NOUN}{_WHAT_IT_SAYS}\s+(?:much\s+|even\s+|far\s+)?"
        r"(?:less\s+(?:likely|plausible|probable|credible)"
        r"|unlikely|implausible|improbable)"
        rf"|makes?\s+it\s+(?:much\s+|even\s+|far\s+)?less\s+(?:likely|plausible|probable)\s+that\s+{HYPOTHESIS_NOUN}"
        rf"|(?:decreases?|lowers?|reduces?)\s+the\s+(?:likelihood|probability|plausibility)\s+(?:of|that)\b"
    ),
}


# The adjective of a label's verb, the reply's one word: "Strong" names "strengthener" as a bare "weak" names
# "weakener" (the adjudication Z, Z01-Z24; "weak" is read before, as the label's first letters: text._spell); BN's first
# contact, "Strong" unread; not in a sentence ("Strong evidence against it."), nor asked ("Strong?")
_LABEL_ADJECTIVES = {"strengthen": "strong"}
_ADJECTIVE_EXAMPLES = {
    "strengthen": (Example("label", "Strong", "strengthener"), Example("label", "Strong.", "strengthener")),
}


_EFFECT_EXAMPLES = {
    "weaken": (Example("label", "The update makes the hypothesis less likely.", "weakener"),),
    "strengthen": (
        Example("label", "It makes the hypothesis much more plausible.", "strengthener"),
        Example("label", "A strong update: it makes the hypothesis that she graduated more likely.", "strengthener"),
    ),
}


def label_mentions(labels: tuple[str, ...], aliases: Mapping[str, str]) -> tuple[MentionRule, ...]:
    """The mention table of ``Label(labels, aliases)``."""
    words = {label.lower(): label for label in labels} | {alias.lower(): label for alias, label in aliases.items()}
    # an agent noun's verb names it too: "weakens", "weakened" name "weakener"
    verbs = {label.lower().removesuffix("er"): label for label in labels if label.lower().endswith("er")}
    words = {verb + ending: label for verb, label in verbs.items() for ending in ("", "s", "ed")} | words
    # "the update makes the hypothesis less likely" names "weakener" (:data:`LABEL_EFFECTS`)
    effects = [
        _rule(
            rf"(?<!not )(?<!n't )(?<!never )\b(?:{LABEL_EFFECTS[stem]})",
            _naming(label),
            *_EFFECT_EXAMPLES.get(stem, ()),
        )
        for stem, label in verbs.items()
        if stem.lower() in LABEL_EFFECTS
    ]
    adjectives = [
        _rule(
            rf"\A\s*{_LABEL_ADJECTIVES[stem]}(?=\s*[.!]?\s*\Z)",
            _naming(label),
            *_ADJECTIVE_EXAMPLES.get(stem, ()),
        )
        for stem, label in verbs.items()
        if stem.lower() in _LABEL_ADJECTIVES
    ]
    return (
        *effects,
        *adjectives,
        _rule(
            rf"\b(?P<word>{alternatives(list(words))})(?:s|ing)?\b",
            lambda m: words[" ".join(m["word"].lower().split())],
            Example("label", "Weakener.", "weakener"),
            Example("label", "The update weakens the hypothesis.", "weakener"),
            Example("label", "This undermines the hypothesis.", "weakener"),
        ),
    )


def score_mentions(high: float) -> tuple[MentionRule, ...]:
    """The mention table of a ``Score`` up to ``high``."""
    # a decimal comma ("Bewertung: 6,5": BF's first contact, read 6) is the decimal point of a single rating right after
    # its heading; not a list's ("6,7,8", "Scores: 6,7": round 50's review), nor a thousands separator's ("1,000"), nor
    # two ratings the reply cannot decide between ("Score: 6,7 - I can't decide")
    single = "|".join(
        rf"(?<=\b{re.escape(heading)})" for heading in ("score:", "score: ", "score :", "score : ", "score:** ")
    )
    decimal_comma = rf"(?:{single})(?<![\d,])\d+,\d(?![\d,])(?![^.\n]*\b(?:decide|between)\b)"
    number, top = rf"(?:{decimal_comma}|\d+(?:\.\d+)?)", re.escape(f"{high:g}")
    high_words = [word for word, value in NUMBER_WORDS.items() if value == high]
    out_of = rf"(?:{'|'.join([top, *high_words])})(?!\d|\.\d)"  # "/10", "out of ten"
    per = r"(?:/|out\s+of|sur|von|de|su|em)"  # "7 out of 10"; French, German, Spanish, Italian, Portuguese

    def value(match: re.Match) -> float:
        token = match["value"].lower().replace(",", ".")
        return float(NUMBER_WORDS.get(token, token))

    return (
        _rule(
            rf"(?<![\w.])(?P<value>{number}|{NUMBER_WORD})\s*{per}\s*{out_of}",
            value,
            Example("rating", "7/10", 7.0),
            Example("rating", "I'd say seven out of ten.", 7.0),
        ),
        # a rating on another scale ("4 out of 5", "8/100") or below zero ("-2") is no rating of this one
        _rule(
            rf"(?<![\w.])(?:{number}|{NUMBER_WORD})\s*{per}\s*(?:{number}|{NUMBER_WORD})\b",
            lambda m: None,
            Example("rating", "4 out of 5", None),
            Example("rating", "Score: 8/100", None),
        ),
        _rule(
            rf"(?<![\w.-])-{number}(?![\w%/]|\.\d)",
            lambda m: None,
            Example("rating", "Score: -2", None),
            named=False,
        ),
        # the rating of the two a range leans to: "4 or 5, leaning 5." (BC's first contact; not "Score: 3, leaning 7",
        # nor "5 or 6, leaning 7"), or settles on right after a dash: "Score: 8 or 9 — I'll say 8." (BF's first contact;
        # after a comma, SCORE_STATEMENTS reads it: "around 6-7, so let's say 7")
        _rule(
            rf"(?<![\w.])(?P<low>{number})\s*(?:or|to|-)\s*(?P<high>{number})\s*(?:,\s*(?:but\s+)?leaning\s+"
            r"(?:(?:towards?|to)\s+)?|\s[;—–-]\s*(?:so\s+)?(?:I'?ll|I\s+will|let'?s|let\s+us)\s+(?:just\s+)?"
            r"(?:say|go\s+with|settle\s+on)\s+)"
            rf"(?:a\s+|an\s+)?(?P<value>(?P=low)|(?P=high))(?![\w%/]|\.\d)",
            value,
            Example("rating", "4 or 5, leaning 5.", 5.0),
            Example("rating", "Score: 6 or 7, leaning 7", 7.0),
            Example("rating", "Score: 8 or 9 — I'll say 8.", 8.0),
            named=False,
        ),
        # "6 or 7", "7-8", "between 6 and 7": no single rating, as naming two options chooses none
        _rule(
            rf"(?:\bbetween\s+{number}\s+and\s+{number}|(?<![\w.]){number}\s*(?:or|to|-)\s*{number})(?!\w|\.\d|\s*/)",
            lambda m: None,
            Example("rating", "Score: 6-7", None),
            Example("rating", "I'd give it a 7 or 8.", None),
            named=False,
        ),
        _rule(
            rf"(?<![\w.]){number}(?![\w%/]|\.\d)",
            lambda m: float(m.group().replace(",", ".")),
            Example("rating", "Score: 6.5", 6.5),
            Example("rating", "Bewertung: 6,5 – die Hypothese passt zum Kontextbild.", 6.5),
            named=False,
        ),
        _rule(NUMBER_WORD_ALONE, value, Example("rating", "Score: five", 5.0), named=False),
    )
