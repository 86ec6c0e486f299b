"""No page quotes a prompt that is no longer the prompt: every quote in README.md, docs/ and the task READMEs (a code
span or a line of a fenced block) that reads like one of the prompts of a benchmark's ``prompts.py`` is that prompt's
text verbatim, but where the prompt has a placeholder (``{premise}``) or the quote elides (``...``, ``<premise>``).

A prompt changed with its version bumped passes every snapshot test; the guide that quotes it would go on quoting
the old words unseen (the contributor walk of 2026-12-02 changed one word of ``PROMPT_TRIPLET_TEXT``).
"""

from __future__ import annotations

import difflib
import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "yaml_tasks").glob("*/README.md"))]
BENCHMARKS = ("nleye", "mucr", "dve", "sherlock")
MIN_WORDS = 6  # a shorter quote ("more plausible – 1 or 2") is a phrase, not a quote of the prompt
PROMPT_WORDS = 3  # a prompt this short or longer may be quoted
LOOKS_ALIKE = 0.8  # a quote this alike to the part of a prompt it lies over is read as a quote of it
# words and marks; a placeholder (`{premise}`), an angle or square bracket group and an ellipsis are one token each
TOKENS = re.compile(r"\{[^{}]*\}|\.\.\.|…|<[^<>]*>|\[[^\[\]]*\]|\w+|[^\w\s]")
ELISION = re.compile(r"\.\.\.|…|<[^<>]*>|\[[^\[\]]*\]")  # in a quote: what it leaves out, or a value


@dataclass
class Quote:
    """A code span, or a whole fenced block, of a page: its text and the line each of its tokens stands on."""

    text: str
    lines: list[int]  # per token of TOKENS.findall(text)


def benchmark_prompts() -> dict[str, str]:
    """Every module-level text constant of three words or more of each benchmark's ``prompts.py``: name -> text."""
    prompts = {}
    for benchmark in BENCHMARKS:
        module = importlib.import_module(f"abductive_tasks.{benchmark}.prompts")
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, str) and len(value.split()) >= PROMPT_WORDS:
                prompts[f"{benchmark}.prompts.{name}"] = value
    return prompts


def quotes(page: Path) -> list[Quote]:
    """Each code span of six words or more of ``page``, and each fenced block as one quote (a prompt quoted whole,
    its lines together)."""
    found: list[Quote] = []
    block: list[tuple[int, str]] | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            if block is not None:
                found.append(_quote(block))
            block = [] if block is None else None
        elif block is not None:
            block.append((number, line))
        else:
            found += [_quote([(number, text)]) for text in re.findall(r"`([^`\n]+)`", line)]
    return [quote for quote in found if len(quote.text.split()) >= MIN_WORDS]


def _quote(lines: list[tuple[int, str]]) -> Quote:
    return Quote(
        "\n".join(text for _, text in lines),
        [number for number, text in lines for _ in TOKENS.findall(text)],
    )


def _allowed(said: list[str], written: list[str]) -> bool:
    """Whether quoted tokens ``said`` may stand where the prompt has ``written``: a value in a placeholder's place,
    or an elision of the quote over the prompt's own words (never over a bracket group of the prompt's)."""
    if written and all(token.startswith("{") for token in written):
        return True
    return (
        bool(said)
        and all(ELISION.fullmatch(token) for token in said)
        and not any(ELISION.fullmatch(token) for token in written)
    )


def _compare(said: list[str], quoted: list[str]) -> tuple[float, list[tuple[int, str]]]:
    """difflib's ratio of ``said`` to ``quoted`` (what an allowed difference covers left out) and each other
    difference: (index of its first quoted token, ``'quoted' != 'prompt'``)."""
    found, same, spared = [], 0, 0
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, said, quoted, autojunk=False).get_opcodes():
        if tag == "equal":
            same += a2 - a1
        elif _allowed(said[a1:a2], quoted[b1:b2]):
            spared += a2 - a1 + b2 - b1
        else:
            found.append((min(a1, len(said) - 1), f"{' '.join(said[a1:a2])!r} != {' '.join(quoted[b1:b2])!r}"))
    return 2 * same / max(len(said) + len(quoted) - spared, 1), found


def differences(quote: str, prompt: str) -> tuple[float, list[tuple[int, str]]]:
    """How alike ``quote`` and the part of ``prompt`` it lies over are (difflib's ratio over their tokens, what a
    placeholder or an elision covers left out), and where it departs from it other than there: (token index,
    ``'quoted' != 'prompt'``) each. The part is the best of two alignments: from the quote's first matching words
    to its last (a placeholder may stand for many lines), and a window of the quote's own length at any place its
    words match (a word of the quote that recurs far off must not stretch the part)."""
    said, written = TOKENS.findall(quote), TOKENS.findall(prompt)
    blocks = [block for block in difflib.SequenceMatcher(None, said, written, autojunk=False).get_matching_blocks()]
    blocks = [block for block in blocks if block.size]
    if not blocks:
        return 0.0, [(0, f"{quote!r} != {prompt!r}")]
    first, last = blocks[0], blocks[-1]
    spans = [(max(0, first.b - first.a), last.b + last.size + len(said) - last.a - last.size)]
    spans += [(max(0, block.b - block.a), max(0, block.b - block.a) + len(said)) for block in blocks]
    return max((_compare(said, written[low:high]) for low, high in spans), key=lambda result: result[0])


def stale_quotes(pages: list[Path], prompts: dict[str, str]) -> list[str]:
    """Each quote of ``pages`` that reads like a prompt but is not it: ``page:line: name: differences`` (the line of
    its first difference)."""
    stale = []
    vocabulary = {name: set(TOKENS.findall(text)) for name, text in prompts.items()}
    for page in pages:
        for quote in quotes(page):
            if any(quote.text in text for text in prompts.values()):
                continue
            words = {token for token in TOKENS.findall(quote.text) if not ELISION.fullmatch(token)}
            for name, text in prompts.items():
                if len(words & vocabulary[name]) < len(words) / 2:  # far below LOOKS_ALIKE: not worth aligning
                    continue
                share, found = differences(quote.text, text)
                if share >= LOOKS_ALIKE and found:
                    line = quote.lines[found[0][0]]
                    said = "; ".join(difference for _, difference in found[:3])
                    stale.append(f"{page.relative_to(ROOT)}:{line}: {name}: {said}")
    return stale


def test_every_prompt_the_pages_quote_is_the_prompt():
    prompts = benchmark_prompts()
    assert len(prompts) >= 20
    assert not stale_quotes(PAGES, prompts), "pages quoting a prompt that is not the prompt (quote it as it is now)"


def test_quotes_are_found_where_the_guides_give_the_prompts():
    """The check reads the pages' prompts: each benchmark guide quotes some prompt of its own faithfully."""
    prompts = benchmark_prompts()
    for benchmark in ("nleye", "mucr", "dve"):
        page = ROOT / "docs" / "benchmarks" / f"{benchmark}.md"
        own = [text for name, text in prompts.items() if name.startswith(f"{benchmark}.")]
        alike = [differences(quote.text, text) for quote in quotes(page) for text in own]
        assert any(share >= LOOKS_ALIKE and not found for share, found in alike), benchmark


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("plausible?", "likely?"), "'plausible' != 'likely'"),  # one word of the prompt changed, the page not
        (("hypotheses.", "hypotheses first."), "'' != 'first'"),
    ],
)
def test_a_word_changed_in_a_prompt_makes_its_quote_stale(change, expected):
    prompts = benchmark_prompts()
    name = "nleye.prompts.PROMPT_TRIPLET_TEXT"
    assert change[0] in prompts[name]
    changed = {key: text.replace(*change) for key, text in prompts.items()}  # and the prompts built from it
    stale = [line for line in stale_quotes([ROOT / "docs" / "benchmarks" / "nleye.md"], changed) if name in line]
    assert stale and all(expected in line for line in stale), stale


def test_placeholders_and_elisions_are_no_difference():
    prompt = "Images 1 and 2 belong to two solved examples; image {query} belongs to the question."
    filled = "Images 1 and 2 belong to two solved examples; image 3 belongs to the question."
    assert differences(filled, prompt) == (1.0, [])
    assert differences("Images 1 and 2 belong to two solved examples, ...", prompt)[1] == [(9, "', ...' != '; image'")]
    assert differences("Images 1 and 2 belong to two solved examples; ...", prompt) == (1.0, [])
    assert differences("Images 1 and 2 belong to three solved examples; ...", prompt) == (
        0.9,
        [(6, "'three' != 'two'")],
    )
    assert differences("Images <a> and 2 belong to two solved examples; image 3 belongs", prompt)[1] == []


def _line_of(page: Path, text: str, occurrence: int = 1) -> int:
    """The number of the line of ``page`` holding its ``occurrence``-th line that contains ``text``."""
    numbers = [number for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1) if text in line]
    return numbers[occurrence - 1]


@pytest.mark.parametrize(
    ("page", "quoted", "occurrence", "change", "changed_in"),
    [
        # a line beside one alike ("- Strengthens ... strengthener."): the compared span reaches over both lines
        (
            "dve.md",
            "- Weakens the hypothesis if the goal",
            1,
            ("if the goal is a weakener", "if the target is a weakener"),
            "",
        ),
        # the tail of the quote recurs later in the prompt ("... the context image."): the span reaches there
        (
            "nleye.md",
            "The first (left) image is the context image.",
            1,
            ("is the context image. Given", "is the premise image. Given"),
            "",
        ),
        # the generation prompt changed, its quote still in the classification prompt: any prompt holding it passes it
        (
            "dve.md",
            "Consider this image as a premise.",
            2,
            ("Consider this image", "Consider this photo"),
            "generates updates",
        ),
        # a word of the prompt written in angle brackets: the quote's "<number>" is taken for an elision
        ("mucr.md", 'Reply with "Score: <number>" only.', 1, ("<number>", "<integer>"), ""),
    ],
)
def test_a_one_word_change_of_a_quoted_prompt_is_always_flagged(page, quoted, occurrence, change, changed_in):
    path = ROOT / "docs" / "benchmarks" / page
    prompts = benchmark_prompts()
    assert any(change[0] in text for text in prompts.values())
    changed = {key: text.replace(*change) if changed_in in text else text for key, text in prompts.items()}
    number = _line_of(path, quoted, occurrence)
    assert not [line for line in stale_quotes([path], prompts) if f":{number}:" in line]  # faithful as it stands
    assert [line for line in stale_quotes([path], changed) if line.startswith(f"docs/benchmarks/{page}:{number}:")]
