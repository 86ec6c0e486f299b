"""The reader as an lmms-eval filter: any multiple-choice task names it in its YAML ``filter_list``.

::

    filter_list:
      - name: read_answer
        filter:
          - function: read_answer          # registered with lmms-eval by this package's plugin
            choices: choices               # the document field listing the options, or a list of fields (A, B, ...)
            abstain: ["None of the above"] # options that abstain: a reply picking one gives no answer
          - function: take_first

Each reply is read as a careful person reads it (docs/reading.md): by letter (``(B)``, ``Answer: C``), by number
(``Option 2``), by an option's own text, through self-corrections, refusals and hedges. What the reader cannot read,
and a pick of an abstaining option, becomes ``fallback`` (lmms-eval's ``[invalid]``), which no target equals.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from abductive_tasks.scoring.reading import Choice, is_request_failure

OUTPUTS = ("letter", "number", "index", "text")
# An option text usable as a quotation of its option: it holds a word, not only a number or a symbol ("97", "$5")
_QUOTABLE = re.compile(r"[^\W\d_]{2,}")
_VALUE = re.compile(r"-?\d+(?:\.\d+)?\s*[°%]?")  # a number, perhaps with its degree or percent sign


@lru_cache(maxsize=4096)
def _kind(n: int, texts: tuple[str, ...]) -> Choice:
    """The answer kind of a prompt listing ``n`` options by letter (with their ``texts`` where a reply may quote them),
    built once per option set."""
    return Choice(n, letters=True, option_texts=texts)


class ReadAnswer:
    """lmms-eval filter: each reply to a multiple-choice prompt as the option a person reads in it.

    ``choices`` names the document field holding the options (a list, or a mapping from letters to texts), or is a
    list of fields, one per option (MMBench's ``A``, ``B``, ... columns; empty ones are no options). ``options``
    gives the number of options instead, when the documents do not list them. ``abstain`` lists option texts that
    abstain ("None of the above", "Cannot be determined"): a reply choosing one gives no answer. ``output`` is what a
    read answer becomes (the form the task's target takes): ``letter`` ("B"), ``number`` ("2"), ``index`` ("1") or
    ``text`` (the option's text). A reply the reader cannot read becomes ``fallback``.
    """

    def __init__(
        self,
        choices: str | Sequence[str] = "choices",
        options: int | None = None,
        abstain: Sequence[str] = (),
        output: str = "letter",
        fallback: str = "[invalid]",
        quote_texts: bool = True,
    ) -> None:
        if output not in OUTPUTS:
            raise ValueError(f"read_answer: output must be one of {', '.join(OUTPUTS)}, not {output!r}")
        self.choices = choices
        self.options = options
        self.abstain = {_normal(text) for text in abstain}
        self.output = output
        self.fallback = fallback
        self.quote_texts = quote_texts

    def apply(self, resps: Sequence[Sequence[object]], docs: Sequence[Mapping]) -> list[list[str]]:
        """lmms-eval's filter step: every reply of every document, read (the lists keep their order)."""
        return [[self.read(reply, doc) for reply in replies] for replies, doc in zip(resps, docs, strict=True)]

    def read(self, reply: object, doc: Mapping) -> str:
        """The option a person reads in ``reply`` to the question ``doc``, as ``output``; else ``fallback``."""
        texts = self._texts(doc)
        if is_request_failure(reply) or not isinstance(reply, str) or len(texts) < 2:
            return self.fallback
        quoted = tuple(texts) if self.quote_texts and _quotable(texts) else ()
        value = _kind(len(texts), quoted).read(reply)
        if value is None or _normal(texts[value - 1]) in self.abstain:
            return self.fallback
        return {
            "letter": chr(ord("A") + value - 1),
            "number": str(value),
            "index": str(value - 1),
            "text": texts[value - 1],
        }[self.output]

    def _texts(self, doc: Mapping) -> list[str]:
        """The options' texts of ``doc`` (numbers only, where only their count is known)."""
        if self.options is not None:
            return [str(number) for number in range(1, self.options + 1)]
        if isinstance(self.choices, str):
            listed = doc.get(self.choices) or []
            values = list(listed.values()) if isinstance(listed, Mapping) else list(listed)
        else:
            values = [doc.get(field) for field in self.choices]
        return [str(value) for value in values if not _missing(value)]


def _missing(value: object) -> bool:
    """An empty option column (MMBench leaves the columns of absent options empty)."""
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


def _normal(text: str) -> str:
    return " ".join(str(text).lower().split()).strip(" .")


def _quotable(texts: Sequence[str]) -> bool:
    """Whether a reply may name the options by their texts: no two are the same, and each holds a word or is a value
    no option number can be taken for ("97", "8.5", "145°" of four options; not "2" or "3")."""
    numbers = {str(number) for number in range(1, len(texts) + 1)}
    return len({_normal(text) for text in texts}) == len(texts) and all(
        _QUOTABLE.search(text) or (_VALUE.fullmatch(text.strip()) and text.strip().rstrip("°%") not in numbers)
        for text in texts
    )
