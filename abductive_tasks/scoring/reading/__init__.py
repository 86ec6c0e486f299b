"""Reading model replies as a careful person reads them: the answer kinds, failed requests and judge verdicts.

The reading policy, its rounds and how to add a rule: docs/reading.md. The modules, in the order a reply meets them:
``table`` (a rule and its examples); ``text`` (what of the reply is the reply, as plain text) and ``glossary`` (other
languages); ``mentions`` (what a mention is, and marking) with ``mention_tables`` (what names an option) and
``label_score_mentions`` (what names a label or a rating); ``verdict_patterns`` (the words the tables are written in);
``rules``, ``verdict_rules``, ``correction_rules``, ``doubt_rules``, ``form_rules``, ``closing_rules`` and
``score_rules`` (the tables of statements, verdicts, self-corrections, refusals and doubts, and of the reply's form);
``mention_marks`` (what the reply's own words make of its mentions) and ``decision`` (the answer the reply commits to);
``kinds`` (Choice, Label, Score). Every rule of the tables carries the example replies it exists for.

This package's face is what the tasks use, below: code outside it imports these names from here. Inside it, each
module's ``__all__`` is what its siblings may use; no module imports another's private names
(tests/test_imports.py).
"""

from abductive_tasks.scoring.reading.kinds import (
    AnswerKind,
    Choice,
    Label,
    Score,
    answer_kind,
    parse_judge_label,
    parse_judge_score,
)
from abductive_tasks.scoring.reading.mentions import CONTEXT_ALIAS
from abductive_tasks.scoring.reading.text import REQUEST_FAILED_MARKER, is_request_failure

__all__ = [
    "CONTEXT_ALIAS",
    "REQUEST_FAILED_MARKER",
    "AnswerKind",
    "Choice",
    "Label",
    "Score",
    "answer_kind",
    "is_request_failure",
    "parse_judge_label",
    "parse_judge_score",
]
