"""Answer parsing shared by every benchmark: choices among numbered options and numeric scores.

Both parsers return ``None`` for an answer they cannot read; callers count such answers as
wrong and report them (``parse_failure_rate``), they never drop them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

_MARKUP = re.compile(r"[*_`#>]+")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
_NOUN = r"(?:image|hypothesis|option|candidate|picture|choice|answer)"
_LABEL = r"(\d+|one|two|three|four|five)"


def _normalise(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).lower().split())


def _label_value(token: str) -> int:
    return _NUMBER_WORDS.get(token) or int(token)


def parse_choice(text: str, n_choices: int, aliases: dict[str, int] | None = None) -> int | None:
    """Return the 1-based option a free-text answer picks, or ``None`` when it is unreadable.

    Readable forms: a leading label ("2.", "**1**", "Image 2 is ..."), an explicit statement
    ("Answer: 1", "hypothesis 2 is more plausible", "the more plausible one is 1"), an ordinal
    ("the first one"), an alias such as "the middle image" (``aliases`` maps words to options),
    or a text that names exactly one option. Answers naming several options without saying
    which one is chosen are unreadable.
    """
    norm = _normalise(text)
    if not norm:
        return None
    valid = range(1, n_choices + 1)
    ordinals = {**_ORDINAL_WORDS, **(aliases or {})}
    ordinal = "|".join(sorted(map(re.escape, ordinals), key=len, reverse=True))

    def option(label: str | None, word: str | None) -> int | None:
        value = _label_value(label) if label else ordinals[word]
        return value if value in valid else None

    statements = (
        # "answer: 2", "my choice is hypothesis 1", "final answer - image two"
        rf"\b(?:answer|choice|prediction)\b(?: is)?\s*[:\-]?\s*(?:{_NOUN}\s*)?(?:#\s*)?\b{_LABEL}\b",
        # "hypothesis 2 is more plausible", "image 1 is the more plausible"
        rf"\b{_NOUN}\s*#?\s*{_LABEL}\b[^.;\n]{{0,20}}?\bis\b[^.;\n]{{0,20}}?\bmore plausible",
        # "the more plausible (one|image) is (image) 2"
        rf"\bmore plausible\b[^.;\n]{{0,30}}?\bis\b\s*(?:the\s*)?(?:{_NOUN}\s*)?#?\s*{_LABEL}\b",
        rf"\b(?:i (?:choose|select|pick)|choose|select|pick)\s+(?:{_NOUN}\s*)?#?\s*{_LABEL}\b",
    )
    for pattern in statements:
        match = re.search(pattern, norm)
        if match and (found := option(match.group(1), None)):
            return found
    lead = re.match(rf"^\(?(?:{_NOUN}\s*)?#?\s*{_LABEL}\s*(?:[).:,\-!]|$|\s)", norm)
    if lead and (found := option(lead.group(1), None)):
        return found
    lead_word = re.match(rf"^(?:the\s+)?({ordinal})\b", norm)
    if lead_word:
        return option(None, lead_word.group(1))
    named = {option(m.group(1), None) for m in re.finditer(rf"\b{_NOUN}\s*#?\s*{_LABEL}\b", norm)}
    named |= {option(None, m.group(1)) for m in re.finditer(rf"\bthe ({ordinal})(?: one| image| hypothesis)\b", norm)}
    named.discard(None)
    if len(named) == 1:
        return named.pop()
    return None


_SCORE_NUMBER = r"(\d+(?:\.\d+)?)"


def parse_score(text: str, low: float = 1.0, high: float = 10.0) -> float | None:
    """Return the numeric rating in ``[low, high]`` a free-text answer gives, or ``None``.

    Readable forms: "Score: 7", "Rank: 7/10", "I rate it 8 out of 10", "7/10", "**6**", or an
    answer that starts with the number. A number outside the range is unreadable.
    """
    norm = _normalise(text)
    patterns = (
        rf"\b(?:score|rank|rating|rate|plausibility|ranked|rated)\b[^0-9]{{0,25}}?{_SCORE_NUMBER}",
        rf"{_SCORE_NUMBER}\s*(?:/|out of)\s*10\b",
        rf"^\(?{_SCORE_NUMBER}(?![\d/])",
    )
    for pattern in patterns:
        match = re.search(pattern, norm)
        if match:
            value = float(match.group(1))
            return value if low <= value <= high else None
    return None


def parse_label(text: str, labels: Sequence[str], aliases: dict[str, str] | None = None) -> str | None:
    """Return the word label (one of ``labels``) a free-text answer gives, or ``None``.

    Readable forms: an explicit statement ("Answer: weakener", "final answer is a strengthener"),
    a leading label ("Weakener. The ball ..."), or a text that names exactly one label. Plurals
    count, and ``aliases`` maps other words to labels (e.g. "weakens" -> "weakener"). A text
    naming several labels without an explicit statement or a leading label is unreadable.
    """
    norm = _normalise(text)
    words = {label.lower(): label for label in labels} | {alias.lower(): label for alias, label in (aliases or {}).items()}
    alternatives = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    word = rf"\b({alternatives})s?\b"
    statement = re.search(rf"\b(?:answer|choice|prediction|label|verdict)\b(?: is)?\s*[:\-]?\s*(?:an?\s+|the\s+)?{word}", norm)
    if statement:
        return words[statement.group(1)]
    lead = re.match(rf"^(?:an?\s+|the\s+)?{word}", norm)
    if lead:
        return words[lead.group(1)]
    named = {words[match.group(1)] for match in re.finditer(word, norm)}
    return named.pop() if len(named) == 1 else None


def parse_option_text(text: str, options: Sequence[str]) -> int | None:
    """Return the 1-based option whose text a free-text answer quotes, or ``None``.

    The answer either is an option (ignoring case, markup and surrounding punctuation) or
    contains exactly one option as a whole phrase, counting an option only where it is not part
    of a longer option that also occurs ("catch cold" hides "cold").
    """
    norm = _normalise(text).strip(" .!\"'")
    texts = [_normalise(option) for option in options]
    if norm in texts:
        return texts.index(norm) + 1
    found = {index for index, option in enumerate(texts) if option and re.search(rf"(?<!\w){re.escape(option)}(?!\w)", norm)}
    shadowed = {index for index in found if any(other != index and texts[index] in texts[other] for other in found)}
    named = found - shadowed
    return named.pop() + 1 if len(named) == 1 else None


_ANY_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?!\d|\.\d)")


def parse_judge_score(text: str, low: float = 0.0, high: float = 10.0) -> float | None:
    """Return the numeric verdict in ``[low, high]`` of an LLM judge's reply, or ``None``.

    Reads every form :func:`parse_score` reads ("Score: 7", "7/10", a leading number), and
    otherwise a reply holding exactly one number ("The similarity is 6."). Replies with no
    number, several candidate numbers or a number outside the range are unreadable.
    """
    score = parse_score(text, low, high)
    if score is not None:
        return score
    numbers = _ANY_NUMBER.findall(_normalise(text))
    if len(numbers) != 1:
        return None
    value = float(numbers[0])
    return value if low <= value <= high else None


def parse_judge_label(text: str, labels: tuple[int, ...]) -> int | None:
    """Return the integer class among ``labels`` an LLM judge's reply gives ("2", "Class: 1"), or ``None``."""
    value = parse_judge_score(text, min(labels), max(labels))
    if value is None or not value.is_integer() or int(value) not in labels:
        return None
    return int(value)


def loglikelihood_value(result: object) -> object | None:
    """The first element of a loglikelihood result, which lmms-eval 0.7.3 hands to
    ``process_results`` stringified (``"(-3.71, False)"``); read with ``ast.literal_eval``,
    never ``eval``. ``None`` when unreadable."""
    try:
        value = ast.literal_eval(result) if isinstance(result, str) else result
        return value[0]
    except (ValueError, SyntaxError, TypeError, IndexError, MemoryError, RecursionError):
        return None


# ---------------------------------------------------------------- answer kinds (what a task asks for)

REQUEST_FAILED_MARKER = "[LMMS_EVAL_REQUEST_FAILED"


def is_request_failure(reply: object) -> bool:
    """True for no reply, an empty one, or lmms-eval's failed-request text: never an answer."""
    return reply is None or (isinstance(reply, str) and (not reply.strip() or reply.lstrip().startswith(REQUEST_FAILED_MARKER)))


@dataclass(frozen=True)
class Choice:
    """One of ``n`` numbered options (aliases: words naming an option, e.g. panel positions; option_texts: the options' texts)."""

    n: int
    aliases: tuple[tuple[str, int], ...] = ()
    option_texts: tuple[str, ...] = ()

    def read(self, text: str) -> int | None:
        found = parse_choice(text, self.n, dict(self.aliases) or None)
        return found if found is not None or not self.option_texts else parse_option_text(text, self.option_texts)

    def describe(self) -> str:
        return f"one of the options 1 to {self.n}"


@dataclass(frozen=True)
class Score:
    """A rating between ``low`` and ``high``."""

    low: float = 1.0
    high: float = 10.0

    def read(self, text: str) -> float | None:
        return parse_score(text, self.low, self.high)

    def describe(self) -> str:
        return f"a score from {self.low:g} to {self.high:g}"


@dataclass(frozen=True)
class Label:
    """One of ``labels`` (``aliases``: other words for a label)."""

    labels: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...] = ()

    def read(self, text: str) -> str | None:
        return parse_label(text, self.labels, dict(self.aliases) or None)

    def describe(self) -> str:
        return "one of: " + ", ".join(self.labels)
