"""Text preparation: what of a reply is the reply, and its plain text (markdown, quotes, JSON, typos)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping

from abductive_tasks.scoring.reading.glossary import translate
from abductive_tasks.scoring.reading.table import Example, Rule

__all__ = [
    "FORCED",
    "FORCED_CHOICE",
    "INVENTED_TURNS",
    "REQUEST_FAILED_MARKER",
    "TYPO_VOCABULARY",
    "is_request_failure",
    "plain",
    "prepare",
    "sentence_start",
]

# lmms-eval's API backends answer a request that failed after their retries with this text
# (lmms_eval/models/chat/openai.py: f"[LMMS_EVAL_REQUEST_FAILED after {n} retries] {error}").
REQUEST_FAILED_MARKER = "[LMMS_EVAL_REQUEST_FAILED"


def sentence_start(text: str, position: int) -> int:
    """Where the sentence holding ``position`` starts: after the last full stop, "!", "?" or line break before it."""
    return max(text.rfind(end, 0, position) for end in ".!?\n") + 1


def is_request_failure(reply: object) -> bool:
    """True when ``reply`` is no answer at all: None, empty or blank, or lmms-eval's failure marker."""
    if reply is None:
        return True
    return isinstance(reply, str) and (not reply.strip() or reply.lstrip().startswith(REQUEST_FAILED_MARKER))


_JSON_OBJECT = re.compile(r"\{[^{}]*\}")
_ANSWER_KEY = re.compile(
    r"answer|choice|option|plausib|prediction|label|verdict|score|rating|result|cue|selection|decision"
    r"|^(?:hypothesis|image|panel|phrase)$",
    re.I,
)
_EXPLANATION_KEY = re.compile(r"reason|explanation|rationale|justification|analysis|description", re.I)


def _json_answer(text: str) -> str | None:
    """The values of the answer-like keys of the first JSON object in ``text`` that has them, as text: one value, or
    several joined as an answer and its explanation (``{"cue_number": 3, "phrase": "broken glass"}`` is
    "3 - broken glass", which the phrase may contradict)."""
    for match in _JSON_OBJECT.finditer(text):
        try:
            value = json.loads(match.group())
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        answers = [
            str(answer)
            for key, answer in value.items()
            if _ANSWER_KEY.search(key)
            and not _EXPLANATION_KEY.search(key)
            and isinstance(answer, str | int | float)
            and not isinstance(answer, bool)
        ]
        if answers:
            return " - ".join(answers)
        # the solved examples restated, then the question's answer ({"example_1": "Option 1", ..., "question":
        # "Option 3"}: AT's first contact), as "Example 1: Option 1 ... Question: Option 3" (INVENTED_TURNS)
        keys = {key.lower(): answer for key, answer in value.items()}
        if isinstance(keys.get("question"), str | int) and any(key.startswith("example") for key in keys):
            return str(keys["question"])
    return None


# A key and its value, complete (a comma or a closing brace after it), in a JSON object the reply was cut off inside
_KEY_VALUE = re.compile(r'"(?P<key>[^"\\]*)"\s*:\s*(?P<value>"[^"\\]*"|-?\d+(?:\.\d+)?)\s*[,}]')


def _unclosed_json(text: str) -> int | None:
    """Where the JSON object opens that the reply was cut off inside (``{"`` never closed), else None."""
    opened: list[int] = []
    quoted = escaped = False
    for position, char in enumerate(text):
        if quoted:
            escaped, quoted = char == "\\" and not escaped, quoted and (char != '"' or escaped)
        elif char == '"':
            quoted = True
        elif char == "{":
            opened.append(position)
        elif char == "}" and opened:
            opened.pop()
    return opened[0] if opened and re.match(r'\{\s*"', text[opened[0] :]) else None


def _cut_json(text: str) -> str:
    """A reply cut off inside a JSON object, without the object, which names no answer but the values its answer keys
    already gave, complete, as a statement (``{"option": 3, "reason": "The effect shows`` is "Answer: 3"): its other
    keys and values name the options it goes through (``{"scene_graph": {"cause": {...}, "option_1": {"objects":
    ["fire truck"``, BS's first contact, read 1), a key numbering one no answer (``"option_1"``)."""
    start = _unclosed_json(text)
    if start is None:
        return text
    answers = [
        match["value"].strip('"')
        for match in _KEY_VALUE.finditer(text, start)
        if _ANSWER_KEY.search(match["key"])
        and not _EXPLANATION_KEY.search(match["key"])
        and not re.search(r"\d", match["key"])
    ]
    return text[:start] + (f" Answer: {' - '.join(answers)}." if answers else "")


# The option sections of a scene graph in plain lines: each a heading ("Scene graph for Option 1:") and lines of its
# objects, relations and attributes ("- objects: paint can, brush")
_SCENE_GRAPH_OPTIONS = re.compile(
    r"^[ \t]*(?:[#*]+[ \t]*)?scene[ \t]+graph[ \t]+(?:for|of)[ \t]+(?:the[ \t]+)?(?:option|choice)[ \t]*\d+"
    r"[ \t*]*:[ \t*]*"
    r"(?:\n[ \t]*(?:[-*•][ \t]*)?(?:scene[ \t]+graph[ \t]+(?:for|of)[ \t]+(?:the[ \t]+)?(?:option|choice)[ \t]*\d+"
    r"|objects|relations|relationships|attributes|nodes|edges)[ \t*]*:[^\n.!?]*|\n[ \t]*)*\Z",
    re.IGNORECASE | re.MULTILINE,
)


def _cut_scene_graph(text: str) -> str:
    """A reply cut off inside a scene graph's option sections in plain lines, without them: they go through the
    options and name no answer (``Scene graph for Option 1:\n- objects: paint can,``, BU's first contact, read 1), as
    a scene graph cut off inside a JSON object's option key does (:func:`_cut_json`); not a reply that ends a sentence
    or names an answer after them."""
    if re.search(r"[.!?)\]]\s*\Z", text):
        return text
    found = _SCENE_GRAPH_OPTIONS.search(text)
    return text[: found.start()] if found else text


_PLAIN = (
    # a LaTeX box is a statement of the answer, its math delimiters and text commands no text: "$$\boxed{4}$$",
    # "\[\boxed{\text{Option 3}}\]" is "Answer: Option 3"
    (re.compile(r"\\(?:text|textbf|mathrm|mathbf|textit)\s*\{([^{}]*)\}"), r"\1"),
    (
        re.compile(r"(?:\$\$?|\\[\[(])?\s*\\boxed\s*\{\s*([^{}]*?)\s*\}\s*(?:\$\$?|\\[\])])?"),
        r" Answer: \1. ",
    ),
    # chat-template artefacts a deployment leaves in the reply: "ASSISTANT: 3</s>", "<|im_start|>assistant\n4<|im_end|>"
    (
        re.compile(
            r"<\|im_start\|>\s*(?:assistant|user|system)?|<\|[a-z_]+\|>|</?s>|\[/?INST\]|<(?:start|end)_of_turn>(?:model)?",
            re.I,
        ),
        " ",
    ),
    (re.compile(r"(?<=\d)(?=[A-Z][a-z])"), " "),  # a repetition loop without spaces: "Option 3Option 3"
    (re.compile(r"```(?:json)?", re.I), " "),  # code fences
    (re.compile(r"[*_~`]+"), " "),  # emphasis, inline code
    (re.compile(r"(?m)^[ \t]*(?:#+|>+|[-•+](?=\s))[ \t]*"), ""),  # headers, quotes, bullets
    (re.compile(r"[’‘]"), "'"),
    (
        re.compile(r"[\"“”«»‹›\U000f0000-\U000ffffd]|(?<![A-Za-z])'|'(?![A-Za-z])"),
        " ",
    ),  # quotes, placeholder characters
    (re.compile(r"[–—]"), "-"),
    # a keycap opening a line heads it as a number does ("4️⃣ The car speeding ... is the cause": AT's first contact)
    (re.compile("(?m)^([ \t]*\\d)\ufe0f?\u20e3(?=[ \t]+[^\\W\\d_])"), r"\1."),
    (re.compile("[\ufe0f\u20e3]"), ""),  # keycap emoji: 2️⃣ is 2
    (
        re.compile("[\U0001f000-\U0001faff\u2600-\u260f\u2613-\u26ff]"),
        " ",
    ),  # pictographs ("🎂 2 🎉"); check marks and ballot boxes stay
    (re.compile(r"(?:→|⇒|=>|->)"), " → "),  # arrows: "→ 3" gives the answer
    (re.compile(r"[ \t]+"), " "),
    (re.compile(r" ?\n\s*"), "\n"),
)


# A chat role marker: what follows the last one is the reply, what precedes it an echo of the prompt
# ("USER: <image> Given a pair of images ... ASSISTANT: 7").
_ROLE_MARKER = re.compile(
    r"(?:^|(?<=\s))(?:###\s*)?(?-i:ASSISTANT|Assistant|GPT)\s*:|<\|im_start\|>\s*assistant\b|<\|assistant\|>|\[/INST\]"
    r"|<start_of_turn>\s*model\b",
    re.I,
)


# The start of the next user turn ends the reply ("ASSISTANT: The update is a strengthener. USER:").
_USER_MARKER = re.compile(
    r"(?:^|(?<=\s))(?:###\s*)?(?-i:USER|User|Human)\s*:|<\|im_start\|>\s*user\b|<\|user\|>|\[INST\]"
    r"|<start_of_turn>\s*user\b",
    re.I,
)


def _reply_part(text: str) -> str:
    """``text`` after its last chat role marker, when something follows it, up to the next user turn; else
    ``text``."""
    markers = list(_ROLE_MARKER.finditer(text))
    if markers and text[markers[-1].end() :].strip():
        text = text[markers[-1].end() :]
    user = _USER_MARKER.search(text)
    return text[: user.start()] if user and text[: user.start()].strip() else text


def plain(text: str) -> str:
    """``text`` without markdown, quotes and extra white space; line breaks are kept."""
    for pattern, replacement in _PLAIN:
        text = pattern.sub(replacement, text)
    return text.strip()


# A closed reasoning block before the reply's answer ("<think>...</think> Image 1 is ..."): the answer is after it.
# A reasoning block the reply never closed (cut off while reasoning) holds no committed answer.
_THINK = re.compile(r"<think>.*?</think>|<think>(?!.*</think>).*", re.IGNORECASE | re.DOTALL)

# Typos of the answers' own words ("strenghtener", "slipery flor") are read as the words, where only one answer word is
# that close: each word of a phrase of at least TYPO_MIN_LENGTH letters one edit away (a letter added, dropped, changed
# or two swapped); a one-word answer in a sentence needs TYPO_MIN_LENGTH_ALONE letters ("floor" is no typo of
# "flood"). A reply that is one word alone may be two edits away ("weaknr") or an answer's beginning of at least
# TYPO_MIN_PREFIX letters ("weak").
TYPO_MIN_LENGTH = 5
TYPO_MIN_LENGTH_ALONE = 7
TYPO_MIN_PREFIX = 4
# Words of the statement tables read through typos too ("hypothsis 1 is more plasuible")
TYPO_VOCABULARY = ("hypothesis", "plausible")
_WORD = re.compile(r"[^\W\d_]+")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")  # a word, or words joined by hyphens ("ball-shaped")


def _edits(first: str, second: str) -> int:
    """Edits between two words: letters added, dropped, changed, or two neighbours swapped."""
    previous2, previous = None, list(range(len(second) + 1))
    for i, a in enumerate(first, start=1):
        current = [i]
        for j, b in enumerate(second, start=1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b))
            if previous2 is not None and j > 1 and a == second[j - 2] and first[i - 2] == b:
                cost = min(cost, previous2[j - 2] + 1)
            current.append(cost)
        previous2, previous = previous, current
    return previous[-1]


@functools.lru_cache(maxsize=65536)  # replies repeat their words: each pair is compared once per process
def _close(typed: str, word: str, alone: bool) -> bool:
    """Whether ``typed`` is a typo of the answer word ``word`` (both lower case)."""
    if typed == word or len(word) < TYPO_MIN_LENGTH:
        return typed == word
    if alone and len(typed) >= TYPO_MIN_PREFIX and word.startswith(typed):
        return True
    allowed = 2 if alone else 1
    # Each edit changes the length by at most one: words further apart in length need no edit count.
    if len(typed) < TYPO_MIN_LENGTH - 1 or abs(len(typed) - len(word)) > allowed:
        return False
    return _edits(typed, word) <= allowed


def _spell(text: str, phrases: Mapping[str, object]) -> str:
    """``text`` with typos of the answer ``phrases`` written as the phrases, where the phrases that close name one
    answer alone (``phrases`` maps each to the answer it names: "strenghtener" is close to "strengthener" and to its
    alias "strengthened", which name one label; it is written as the closest)."""
    words = list(_WORD.finditer(text))
    alone = len(words) == 1 and not re.sub(r"[\s.!]", "", text[: words[0].start()] + text[words[0].end() :])
    # a reply of one word of one answer phrase alone: "slippery" for "slippery floor"; a hyphenated one too
    # ("Ball-shaped." for "... holding an unwrapped ball-shaped present.": BR's first contact, unread)
    single = [match for match in _COMPOUND.finditer(text) if match.group()]
    if len(single) == 1 and not re.sub(r"[\s.!]", "", text[: single[0].start()] + text[single[0].end() :]):
        typed = single[0].group().lower()
        holding = [
            phrase
            for phrase in phrases
            if any(
                len(part) >= TYPO_MIN_LENGTH and (_close(typed, part, True) if "-" not in typed else typed == part)
                for part in phrase.lower().split()
            )
        ]
        if len({phrases[phrase] for phrase in holding}) == 1 and len((phrase := holding[0]).split()) > 1:
            return text[: single[0].start()] + phrase + text[single[0].end() :]
    pieces, done, start = [], 0, 0
    while start < len(words):
        candidates: dict[str, int] = {}  # phrase: edits
        for phrase in phrases:
            parts = phrase.lower().split()
            window = words[start : start + len(parts)]
            typed = [match.group().lower() for match in window]
            if (
                len(window) == len(parts)
                and not any(text[a.end() : b.start()].strip() for a, b in zip(window, window[1:], strict=False))
                and (alone or len(parts) > 1 or len(parts[0]) >= TYPO_MIN_LENGTH_ALONE)
                and all(_close(word, part, alone) for word, part in zip(typed, parts, strict=True))
            ):
                candidates[phrase] = sum(map(_edits, typed, parts))
        if len({phrases[phrase] for phrase in candidates}) == 1 and 0 not in candidates.values():
            phrase = min(candidates, key=candidates.__getitem__)  # the closest; the first of equals
            last = words[start + len(phrase.split()) - 1]
            pieces += [text[done : words[start].start()], phrase]
            done, start = last.end(), start + len(phrase.split())
        else:
            start += 1
    return "".join([*pieces, text[done:]])


# Few-shot turns a reply invents (weaker models on the ICL and MMICL prompts): after answering, the reply goes on with
# "Example 3:" or "Question:" and answers that too. Their text is no part of the reply. A reply that opens by restating
# the solved examples ("Example 1: Option 1\nExample 2: Option 2\nQuestion: Option 4") answers in its "Question:"
# part; an example it restates ends at its blank line.
INVENTED_TURNS = Rule(
    re.compile(
        r"(?:^|(?<=[.!?,;] ))[ \t]*(?:(?P<example>example\s+\d+)|(?P<question>question))\b[^:\n.]{0,24}:",
        re.IGNORECASE | re.MULTILINE,
    ),
    (
        Example("cue", "Answer: 3 (heavy rain)\n\nExample 3:\nWhich phrase is the cue?\nAnswer: 1 (slippery floor)", 3),
        Example("cue", "3 (heavy rain)\n\nQuestion:\nWhich phrase is the cue?\nAnswer: 2", 3),
        Example("mucr", "Example 1: Option 1\nExample 2: Option 2\nQuestion: Option 4", 4),
        Example("mucr", "Example 1: Option 1. Example 2: Option 2. Question: Option 4.", 4),
        # on one line, after commas (AO's first contact: "Example 1: 3, Example 2: 4, Question: 2" read 3)
        Example("mucr", "Example 1: 3, Example 2: 4, Question: 2", 2),
        Example("cue", "Example 3:\nWhich phrase is the cue?\nAnswer: 2\n\nAnswer to the question: 3 (heavy rain)", 3),
        Example("cue", "Example 3:\nAnswer: 3 (heavy rain)", 3),
    ),
)


def _without_invented_turns(text: str) -> str:
    """``text`` without the few-shot turns it invents (:data:`INVENTED_TURNS`)."""
    headings = list(INVENTED_TURNS.pattern.finditer(text))
    if not headings:
        return text
    if text[: headings[0].start()].strip():  # answered first: every turn after the answer is invented
        return text[: headings[0].start()]
    kept = []
    for heading, following in zip(headings, [*headings[1:], None], strict=True):
        part = text[heading.end() : following.start() if following else len(text)]
        if heading["question"]:
            kept.append(part)
        elif ended := re.search(r"\n[ \t]*\n", part):  # a restated example ends at its blank line
            kept.append(part[ended.end() :])
        elif len(headings) == 1:  # the reply's own label for the question: "Example 3:\nAnswer: 2 (speeding)"
            kept.append(part)
    return "\n".join(kept)


def prepare(text: str, ignore: re.Pattern | None = None, answer_words: Mapping[str, object] | None = None) -> str:
    """A reply's plain text, as the mention tables read it: the reply part, without a closed reasoning block, its JSON
    answer as a statement, in English words, without what ``ignore`` matches (the question's list of answers, a
    score's scale), the typos of ``answer_words`` (each mapped to the answer it names) spelled as the words."""
    text = _without_invented_turns(_reply_part(text))
    answer = _THINK.sub(" ", text)
    text = answer if answer.strip() or "</think>" not in text.lower() else text
    json_answer = _json_answer(text)
    # a JSON answer is a statement of the answer: {"choice": "B"} reads as "Answer: B"
    cut = _cut_scene_graph(_cut_json(text))
    prepared = plain(translate(f"Answer: {json_answer}" if json_answer is not None else cut))
    if ignore is not None:
        prepared = ignore.sub(" ", prepared)
    return _spell(prepared, answer_words) if answer_words else prepared


# a forced choice: "If I had to choose (one), ...", "if forced to pick"; a self-correction too
# (correction_rules.SELF_CORRECTIONS)
FORCED = (
    r"if\s+(?:i|we)\s+(?:had\s+to|have\s+to|must|need\s+to|were\s+forced\s+to)\s+(?:choose|pick|answer|decide|select|give|name)"
    r"|if\s+forced(?:\s+to\s+(?:choose|pick|answer))?|forced\s+to\s+(?:choose|pick)"
)
FORCED_CHOICE = re.compile(rf"\b(?:{FORCED})\b", re.IGNORECASE)
