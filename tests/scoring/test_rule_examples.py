"""Every rule of the reader's tables reads the example replies it exists for as a person reads them.

Each rule (``reading.rules``: statements; ``verdict_rules``: verdicts; ``correction_rules``: self-corrections;
``doubt_rules``: refusals, doubts; ``description_rules``; the tables of ratings, closings and forms;
``reading.mention_tables``: what names an answer) carries its examples: an example kind, the reply, and what a person
reads in it. The test reads every example through its kind, the tasks' own answer kinds, and checks that the rule's
pattern matches the reply as the rule sees it (the plain text for a mention rule, the reply's text for the rules read
before mentions are marked (``form_rules.TEXT_RULES``: invented few-shot turns, a lettered list of the labels), the text
with its mentions marked for the others), so that each example exercises its rule.
"""

from __future__ import annotations

import pytest

from abductive_tasks.dve import hooks as dve
from abductive_tasks.mucr import hooks as mucr
from abductive_tasks.nleye import hooks as nleye
from abductive_tasks.scoring.reading import (
    Choice,
    closing_rules,
    correction_rules,
    description_rules,
    doubt_rules,
    form_rules,
    rules,
    score_rules,
    verdict_rules,
)
from abductive_tasks.scoring.reading.mentions import mark
from abductive_tasks.scoring.reading.table import Rule
from abductive_tasks.sherlock import hooks as sherlock

# The example kinds a rule's examples name: the tasks' answer kinds
EXAMPLE_KINDS = {
    "nleye": nleye.TRIPLET_ANSWER,  # two hypothesis images after a context image
    "panels": nleye.TRIPLET_COMBINED_ANSWER,  # one combined image: context left, hypotheses middle and right
    "texts": nleye.triplet_text_answer(
        {"shown_descriptions": ["The man's clothes are soaking wet.", "The man is sunbathing on a beach."]}
    ),
    # two hypotheses told apart by an adjective of one noun (NL-Eye's shipped sample)
    "presents": nleye.triplet_text_answer(
        {
            "shown_descriptions": [
                "A child sits on the floor, holding an unwrapped rectangular present.",
                "A child sits on the floor, holding an unwrapped ball-shaped present.",
            ]
        }
    ),
    "mucr": mucr.FOUR_OPTIONS,  # "Option 1" to "Option 4" after a cause (effect) image
    "cue": mucr.cue_answer({"options": ["slippery floor", "birthday party", "heavy rain", "broken glass"]}),
    # the phrases of the blind batches' cue prompts, one of them a word in -ing
    "cue_words": mucr.cue_answer({"options": ["car", "speeding", "road", "police officer"]}),
    "letters": Choice(4, letters=True),  # a prompt that lists its options as letters
    "label": dve.LABEL,
    "rating": sherlock.RATING_ANSWER,
}
# Every rule table: (module, name) for the upper-case names of the table modules
TABLES = [
    (module, name)
    for module in (
        rules,
        verdict_rules,
        correction_rules,
        doubt_rules,
        description_rules,
        score_rules,
        closing_rules,
        form_rules,
    )
    for name in vars(module)
    if name.lstrip("_").isupper() and name != "TEXT_RULES"
]


def rule_examples() -> list:
    """(rule's name, rule, is a mention rule, example) for every example of every rule."""
    found = []
    for module, table in TABLES:
        value = getattr(module, table)
        entries = value if isinstance(value, tuple) else (value,)
        for index, rule in enumerate(entries):
            if isinstance(rule, Rule):
                found += [(f"{table}[{index}]", rule, False, example) for example in rule.examples]
    seen = set()
    for name, kind in EXAMPLE_KINDS.items():
        for index, rule in enumerate(kind.mention_rules):
            for example in rule.examples:
                if example.kind == name and (rule.pattern.pattern, example) not in seen:
                    seen.add((rule.pattern.pattern, example))
                    found.append((f"mentions of {name}[{index}]", rule, True, example))
    return found


EXAMPLES = rule_examples()


def test_every_rule_carries_examples():
    missing = [
        f"{table}[{index}]"
        for module, table in TABLES
        for index, rule in enumerate(
            getattr(module, table) if isinstance(getattr(module, table), tuple) else (getattr(module, table),)
        )
        if isinstance(rule, Rule) and not rule.examples
    ]
    missing += [
        f"mentions of {name}[{index}]"
        for name, kind in EXAMPLE_KINDS.items()
        for index, rule in enumerate(kind.mention_rules)
        if not rule.examples
    ]
    assert missing == []
    assert {example.kind for *_, example in EXAMPLES} <= set(EXAMPLE_KINDS)
    assert {name.split("[")[0] for name, *_ in EXAMPLES} >= {
        "STATEMENTS",
        "VERDICTS",
        "ALONE",
        "HEDGES",
        "REFUSALS",
        "DOUBTS",
        "SCORE_STATEMENTS",
        "SCORE_VERDICTS",
        *(f"mentions of {name}" for name in EXAMPLE_KINDS),
    }


@pytest.mark.parametrize(
    ("rule", "mention", "example"),
    [(rule, mention, example) for _, rule, mention, example in EXAMPLES],
    ids=[f"{name}: {example.reply[:60]}" for name, _, _, example in EXAMPLES],
)
def test_a_rule_reads_its_examples(rule, mention, example):
    kind = EXAMPLE_KINDS[example.kind]
    plain = kind.prepared(example.reply)
    if any(rule is text_rule for text_rule in form_rules.TEXT_RULES):
        seen = example.reply
    else:
        seen = plain if mention else mark(plain, kind.mention_rules)[0]
    assert rule.pattern.search(seen), f"the rule does not match its example {example.reply!r}"
    read = kind.read(example.reply)
    assert (read, type(read)) == (example.reads, type(example.reads))
