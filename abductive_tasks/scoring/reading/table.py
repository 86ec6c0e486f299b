"""What every rule table of the reader is made of: a rule, and the example replies it exists for."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["Example", "Rule", "rule"]


class Example(NamedTuple):
    """A reply a rule exists for, and what a person reads in it, read through the example kind named ``kind`` (the
    kinds of tests/scoring/test_rule_examples.py: nleye, panels, texts, presents, mucr, cue, cue_words, letters, label,
    rating)."""

    kind: str
    reply: str
    reads: object


@dataclass(frozen=True)
class Rule:
    """A pattern of a rule table, and the example replies it exists for (tests/scoring/test_rule_examples.py reads
    each through its example kind and checks that the pattern matches it)."""

    pattern: re.Pattern
    examples: tuple[Example, ...]


def rule(pattern: str, *examples: Example, flags: int = re.IGNORECASE) -> Rule:
    """A rule of ``pattern`` compiled with ``flags``, and the example replies it exists for."""
    return Rule(re.compile(pattern, flags), examples)
