"""The close-match hint of a refusal naming something unknown (a task, a model, a backend, an option, a
subcommand): one wording wherever a name is refused, from the command line's checks to a batch spec's; and a count
with its noun, singular for one (:func:`counted`)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'a' or 'b'?)``: up to three of ``candidates`` close to ``name``, closest first; '' when none
    is close."""
    close = difflib.get_close_matches(name, sorted(candidates), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(match) for match in close)}?)" if close else ""


# What a refusal of an unknown name ends with: the command that lists every accepted name.
LIST_MODELS = "`abductive-eval models` lists every one"
LIST_TASKS = "`abductive-eval tasks` lists every one"


def counted(count: int, noun: str, plural: str = "") -> str:
    """``count`` with ``noun``, singular for 1: ``1 failed request``, ``2 failed requests`` (``plural``: a plural
    that is not the noun with an ``s``)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
