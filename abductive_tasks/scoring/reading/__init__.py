"""Reading model replies as a careful person reads them: the answer kinds, failed requests and judge verdicts.

The reading policy, its rounds and how to add a rule: docs/reading.md. The modules, in the order a reply meets them:
``text`` (what of the reply is the reply, as plain text) and ``glossary`` (other languages); ``mentions`` (what a
mention is, and marking) with ``mention_tables`` (what names an answer of each kind); ``rules`` (the tables of
statements, verdicts, refusals and doubts); ``decision`` (the answer the reply commits to); ``kinds`` (Choice, Label,
Score). Every rule of the tables carries the example replies it exists for.
"""
