"""The mention tables of choices: what names an option, as rules with the example replies they exist for (a label
or a rating: label_score_mentions.py).

A kind marks a reply with its table in order: the first rule whose pattern matches a span marks it. A rule's
``examples`` name the example kind that reads them (``Example.kind``, see docs/reading.md) and what a person reads;
tests/scoring/test_rule_examples.py reads every example through that kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from abductive_tasks.scoring.reading.head_mentions import head_mentions, stem_mentions
from abductive_tasks.scoring.reading.label_score_mentions import NUMBER_WORD, NUMBER_WORD_ALONE, NUMBER_WORDS
from abductive_tasks.scoring.reading.mentions import CONTEXT_ALIAS, MentionRule, alternatives, option_text
from abductive_tasks.scoring.reading.position_mentions import position_mentions
from abductive_tasks.scoring.reading.table import Example
from abductive_tasks.scoring.reading.text import sentence_start
from abductive_tasks.scoring.reading.verdict_patterns import COPULA

__all__ = [
    "COUNTS_OPTIONS",
    "choice_ignore",
    "distinctive_words",
    "sentence_options",
    "choice_mentions",
]

_FLAGS = re.IGNORECASE

_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
_ROMANS = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6}
_ROMAN = "(?-i:iii|ii|iv|vi|v|i|III|II|IV|VI|V|I)"
_NUMBER = r"\d+(?![\w%°]|[.,]\d|\s*degrees?\b)"  # not a quantity: "105°", "35 degrees"
_ORDINAL = "|".join(_ORDINALS) + r"|\d+(?:st|nd|rd|th)"
# Nouns that take an option number after them ("Option (3)", "choice three", "hypothesis image 2"),
# and nouns that count images ("image 2", "the third picture"), which may count the context image too.
_OPTION_NOUN = (
    r"(?:hypothesis\s+images?|hypothes[ie]s|options?|choices?|candidates?|cue\s+phrases?|phrases?|h(?=\d))"  # "H2" too
)
_IMAGE_NOUN = r"(?:images?|pictures?|photos?|panels?|frames?)"
# Nouns an ordinal or a panel position names ("the third option", "the right image", "the middle one").
_ORDINAL_NOUN = (
    rf"(?:hypothesis\s+{_IMAGE_NOUN}|{_IMAGE_NOUN}|options?|choices?|candidates?|phrases?|hypothes[ie]s|ones?|"
    r"scenes?|scenarios?|sides?)"
)
_POSITION_NOT_PANEL = (
    r"answer|choice|option|decision|way|thing|track|time|call|to|place|conclusion|idea|direction|now|after|away"
)


# The hypotheses counted ("the second hypothesis image"): the reply's ordinal counts of images ("the second image")
# then count the options too. (Naming the context image by its role does not show how a reply counts: "The second
# image is more plausible. It shows the aftermath seen in the context image." may count the context image first.)
COUNTS_OPTIONS = re.compile(rf"\b(?:{_ORDINAL})\s+(?:hypothesis|hypotheses|option|candidate)\b", _FLAGS)


def _rule(
    pattern: str,
    value: Callable[[re.Match], object],
    *examples: Example,
    named: bool = True,
    image: bool = False,
    ordinal: bool = False,
    context: bool = False,
    text: bool = False,
    unlisted: bool = False,
    panel: bool = False,
) -> MentionRule:
    return MentionRule(
        re.compile(pattern, _FLAGS), value, named, image, ordinal, context, text, examples, unlisted, panel
    )


def _number(token: str) -> int:
    """An option number written as a digit, a number word or a letter ("B" is 2)."""
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    if token in NUMBER_WORDS:
        return NUMBER_WORDS[token]
    return ord(token.upper()) - ord("A") + 1  # a letter


def _ordinal(token: str) -> int:
    token = token.lower()
    return _ORDINALS[token] if token in _ORDINALS else int(re.sub(r"\D", "", token))


def choice_mentions(
    n: int, aliases: Mapping[str, int], letters: bool, option_texts: tuple[str, ...], context_images: int
) -> tuple[MentionRule, ...]:
    """The mention table of ``Choice(n, aliases, letters, option_texts, context_images)``."""
    # letters as option positions: A to the last option's letter after an option noun ("Option B"), any with
    # ``letters`` (the prompt lists letters)
    letter = "(?-i:[A-Z])" if letters else f"(?-i:[A-{chr(ord('A') + n - 1)}])"
    panels = {word.lower(): option for word, option in aliases.items()}
    positions = {
        **({"former": 1, "latter": 2} if n == 2 else {}),
        # the options shown as images in a row after the context: the rightmost is the last
        **({"rightmost": n, "right-most": n} if not aliases and not option_texts else {}),
    }
    return (
        *_option_text_mentions(option_texts),
        *stem_mentions(option_texts),
        *head_mentions(option_texts, phrases=not sentence_options(option_texts)),
        *_content_mentions(option_texts),
        *position_mentions(n, context_images, option_texts),
        *_row_mentions(n, context_images, aliases, option_texts),
        *_row_count_mentions(n, context_images, option_texts),
        *_position_mentions(panels, panel=True),
        *_position_mentions(positions),
        *_context_count_mentions(context_images),
        *_numbered_mentions(letter),
        *_ordinal_mentions(n, option_texts),
        *_bare_position_mentions(positions | panels),
        *_letter_mentions(letter, letters),
        _rule(
            NUMBER_WORD_ALONE,
            lambda m: _number(m["value"]),
            Example("mucr", "Two.", 2),
            Example("nleye", "The answer is one.", 1),
            named=False,
        ),
        _rule(
            rf"(?<![\w.,/]){_NUMBER}(?!\s*/)",
            lambda m: int(m.group()),
            Example("nleye", "2", 2),
            Example("mucr", "3. The spilled water explains the puddle.", 3),
            named=False,
        ),
        *_unlisted_mentions(option_texts),
    )


def _unlisted_mentions(option_texts: tuple[str, ...]) -> tuple[MentionRule, ...]:
    """A phrase in parentheses after a number, ending the reply, that is no option's text ("Answer: 3 (attack)", copied
    from a solved example): the number's own explanation, which names another option (its words are another's) or
    none. (Not where the reply goes on: "3 (suelo resbaladizo). La imagen ..." names the option in another language.)"""
    if not option_texts:
        return ()
    return (
        _rule(
            r"(?:(?<=[»›\d]\()|(?<=[»›\d] \())(?P<phrase>[^\W\d_]{3,}(?:[ -][^\W\d_]+){0,2})(?=\)\s*[.!]?\s*\Z)",
            lambda m: m["phrase"].lower(),
            Example("cue", "Answer: 3 (attack)", None),
            Example("cue", "Answer: 3 (the rain)", 3),
            unlisted=True,
        ),
    )


_VALUE_AFTER = r"[ \t]+[-+−]?\d[\d.,/]*[ \t]*(?:[.,;!?%)]|$)"  # a number the phrase compares with: "equal to 3."


def _option_text_mentions(option_texts: tuple[str, ...]) -> tuple[MentionRule, ...]:
    """An option's own text quoted names it, longest first: "catch cold" is one mention, not "cold" inside it."""
    if not option_texts:
        return ()
    texts = {option_text(option).lower(): index for index, option in enumerate(option_texts, start=1)}
    return (
        _rule(
            # "8" is not in "8.5"; "equal to 3." compares with a value: no quote of "equal to" (not "next to 1 dog")
            rf"(?<!\w)(?<!\d[.,])(?:{alternatives(list(texts))})(?!\w|[.,]\d)"
            rf"(?!(?<=\bto){_VALUE_AFTER})(?!(?<=\bthan){_VALUE_AFTER})(?!(?<=\bas){_VALUE_AFTER})",
            lambda m: texts[" ".join(m.group().lower().split())],
            Example("cue", "The cue is heavy rain.", 3),
            Example("texts", "The man is sunbathing on a beach is the more plausible hypothesis.", 2),
            text=True,
        ),
    )


# Words no option text is told apart by
_STOPWORDS = frozenset(
    "a an the is are was were be been being his her their its this that these those of on in at to for with and or but "
    "by from as it he she they".split()
)
_TEXT_WORD = r"[^\W\d_]+(?:-[^\W\d_]+)*"


def distinctive_words(option_texts: tuple[str, ...]) -> list[list[str]]:
    """Each option text's own words, which no other option text has, in order (lower case; "ball-shaped" whole)."""
    words = [re.findall(_TEXT_WORD, text.lower()) for text in option_texts]
    return [
        [
            word
            for word in own
            if word not in _STOPWORDS
            and len(word) >= 3
            and not any(word in other for other in words if other is not own)
        ]
        for own in words
    ]


def sentence_options(option_texts: tuple[str, ...]) -> bool:
    """Whether the options are sentences (NL-Eye's hypotheses), not phrases (MuCR's cues)."""
    return bool(option_texts) and all(len(re.findall(_TEXT_WORD, text)) >= 4 for text in option_texts)


def _content_mentions(option_texts: tuple[str, ...]) -> tuple[MentionRule, ...]:
    """A hypothesis named by its own words with a noun: "the rectangular present", "the ball-shaped one", "an unwrapped
    rectangular present" (words both share may come first; options that are sentences only; a phrase is named by its
    whole text)."""
    if not sentence_options(option_texts):
        return ()
    named, predicated = [], []
    for number, (text, own) in enumerate(zip(option_texts, distinctive_words(option_texts), strict=True), start=1):
        words = re.findall(_TEXT_WORD, text.lower())
        nouns = {words[index + 1] for index, word in enumerate(words[:-1]) if word in own} - _STOPWORDS
        heads = {"one", "option", "hypothesis", "scenario", "version"} | nouns
        if own:
            named.append(rf"(?P<option{number}>(?:{alternatives(own)})\s+(?:{alternatives(sorted(heads))}))")
        if own and nouns:
            own_words = alternatives(own)
            predicated.append(rf"(?P<option{number}>(?:{alternatives(sorted(nouns))})\s+(?:is|was)\s+(?:{own_words}))")
    if not named:
        return ()
    own_words = {word for words in distinctive_words(option_texts) for word in words}
    shared = sorted(
        {word for text in option_texts for word in re.findall(_TEXT_WORD, text.lower())} - own_words - _STOPWORDS
    )

    def value(match: re.Match) -> int:
        return next(int(name.removeprefix("option")) for name, found in match.groupdict().items() if found)

    return (
        _rule(
            rf"\bthe\s+(?:(?:{alternatives(shared)})\s+)?(?:{'|'.join(named)})\b",
            value,
            Example("texts", "The sunbathing one, since the rain may stop by the afternoon.", 2),
            Example("texts", "The soaking wet one: it is raining.", 1),
            text=True,
        ),
        # the whole reply, without an article: "ball-shaped present" (BF's first contact)
        _rule(
            rf"\A\s*(?:(?:{alternatives(shared)})\s+)?(?:{'|'.join(named)})\s*[.!]?\s*\Z",
            value,
            Example("texts", "Sunbathing one.", 2),
            text=True,
        ),
        # with "a"/"an", only inside a statement or verdict ("The more plausible hypothesis is that he holds a soaking
        # wet coat"): a description in passing ("They applied a thin layer of wax") names nothing
        _rule(
            rf"\ban?\s+(?:(?:{alternatives(shared)})\s+)?(?:{'|'.join(named)})\b",
            value,
            Example("texts", "The more plausible one is that he is a sunbathing one.", 2),
            text=True,
            named=False,
        ),
        # what a hypothesis's own word says of its noun, in what the reply holds more plausible ("It is more plausible
        # that the unwrapped present is rectangular, not ball-shaped.": BF's first contact; not the two offered: "...
        # that the present is rectangular or ball-shaped", nor a description: "The present is rectangular.")
        _rule(
            rf"(?<=\bplausible\sthat\s)the\s+(?:(?:{alternatives(shared)})\s+)?(?:{'|'.join(predicated)})\b"
            r"(?!\s*,?\s*(?:or|and)\b)",
            value,
            Example("presents", "It is more plausible that the unwrapped present is rectangular, not ball-shaped.", 1),
            text=True,
        ),
    )


def _position_mentions(positions: Mapping[str, int], panel: bool = False) -> tuple[MentionRule, ...]:
    """Panel positions and "the former"/"the latter" named with their noun or article (``panel``: the prompt's own
    panel positions, :attr:`Mention.panel`)."""
    if not positions:
        return ()
    word = rf"(?P<word>{alternatives(list(positions))})(?:-?most|-hand(?:\s+side)?)?"

    def value(match: re.Match) -> int:
        return positions[match["word"].lower()]

    examples = (
        (
            (Example("panels", "The image on the right is more plausible.", 2),),
            (Example("panels", "The middle panel is more plausible.", 1),),
            (Example("panels", "The answer is the middle.", 1),),
        )
        if panel
        else (
            (Example("nleye", "The image on the rightmost side is more plausible.", 2),),
            (
                Example("nleye", "The rightmost picture is more plausible.", 2),
                # the image holding the row is no option (AU's first contact, the strips of the MuCR ICL prompts)
                Example("mucr", "The rightmost picture in image 3 shows the cause: a storm.", 4),
            ),
            (Example("nleye", "I'd go with the latter.", 2),),
        )
    )
    return (
        _rule(rf"\b(?:on|in|at|from|to)\s+the\s+{word}\b(?:\s+{_ORDINAL_NOUN}\b)?", value, *examples[0], panel=panel),
        _rule(
            rf"\b(?:the\s+)?{word}\s+{_ORDINAL_NOUN}\b(?:\s+(?:in|of)\s+{_IMAGE_NOUN}\s*#?\s*\d\b)?",
            value,
            *examples[1],
            panel=panel,
        ),
        _rule(rf"\bthe\s+{word}\b(?!\s+(?:{_POSITION_NOT_PANEL})\b)", value, *examples[2], panel=panel),
    )


_COUNT_WORDS = {3: "three|3", 5: "five|5"}  # all the images shown: "Of the three images, the second one"
_OPTIONS_COUNTED = re.compile(r"\b(?:options|candidates|choices)\b", re.IGNORECASE)


def _row_mentions(
    n: int, context_images: int, aliases: Mapping[str, int], option_texts: tuple[str, ...]
) -> tuple[MentionRule, ...]:
    """An image counted from one end of the row (the context first, then the options) names an option however the
    reply counts: "the second picture from the right" of four options is option 3, "the third picture from the left"
    and "the third picture in the row" are option 2 (six of six annotators, tests/shared/adjudication; a bare "the
    third picture" split them four to two). An option counted from either end counts the options ("the second option
    from the right", "the third from the left among the options" of four are option 3)."""
    if not context_images or option_texts:
        return ()

    def value(match: re.Match) -> int | None:
        groups = match.groupdict()
        count, from_right = _ordinal(match["ordinal"]), (groups["side"] or "").lower() == "right"
        sentence = match.string[sentence_start(match.string, match.start()) : match.start()]
        if not from_right and _OPTIONS_COUNTED.search(sentence):
            return None  # "Of the four options, the third picture from the left": which count, the reply does not say
        if groups.get("option") or groups.get("among"):
            option = n - count + 1 if from_right else count
            return option if 1 <= option <= n else None
        option = n - count + 1 if from_right else count - context_images
        # "the second one from the left" may count the options or the images
        return option if 1 <= option <= n and (from_right or not groups.get("one")) else None

    # "in the row" counts from the left, where the left image is no named context panel (NL-Eye's combined image
    # leaves "the second image in the row" unread); "the first image in the row" is the context's
    in_the_row = "" if aliases.get("left") == CONTEXT_ALIAS else r"|in\s+the\s+row"
    side = rf"(?:from\s+the\s+(?P<side>left|right){in_the_row})\b"
    return (
        _rule(
            rf"\b(?!(?:the\s+)?(?:first|1st)\s+\w+\s+in\s+the\s+row)(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+(?:{_IMAGE_NOUN}|(?P<one>one)|(?P<option>option|choice|candidate))\s+{side}"
            r"(?P<among>\s+(?:among|of)\s+the\s+(?:\w+\s+)?(?:options|candidates|choices))?",
            value,
            Example("mucr", "The effect is shown in the second picture from the right: the melted snowman.", 3),
            Example("panels", "The second panel from the left is the more plausible one.", 1),
            Example("mucr", "A lack of water: the second option from the right, with the empty watering can.", 3),
            Example("mucr", "The third picture from the left shows the effect: a soaked dog.", 2),
            Example("mucr", "The effect is the fourth picture in the row, where he is lying on the ground.", 3),
        ),
        # "Of the three images, the second one", "Looking at the three panels, the second panel": the context counted
        # (and BB's first contact: "Looking at the three panels from left to right, the second panel", "In the row of
        # five pictures, the second picture")
        _rule(
            rf"\b(?:of|looking\s+at|in)\s+the\s+(?:row\s+of\s+)?(?:{_COUNT_WORDS.get(n + context_images, '(?!)')})\s+"
            rf"{_IMAGE_NOUN}(?:\s+from\s+left\s+to\s+right|\s+in\s+the\s+row)?\s*,?\s+the\s+(?P<ordinal>{_ORDINAL})"
            rf"(?:\s+(?:one|{_IMAGE_NOUN}))?(?P<side>(?!))?\b",
            value,
            Example("nleye", "Of the three images, the second one (the cat on the counter) is the more plausible.", 1),
            Example("panels", "Looking at the three panels, the second panel is the more plausible hypothesis.", 1),
            Example("panels", "Looking at the three panels from left to right, the second panel is more plausible.", 1),
            Example(
                "mucr", "In the row of five pictures, the second picture shows an officer handing over a ticket.", 1
            ),
        ),
        # "The second of the three images is the more plausible one" (AU's first contact), as above
        _rule(
            rf"\bthe\s+(?P<ordinal>{_ORDINAL})\s+(?:one\s+)?(?:of|out\s+of)\s+(?:all\s+)?the\s+"
            rf"(?:{_COUNT_WORDS.get(n + context_images, '(?!)')})\s+{_IMAGE_NOUN}\b(?P<side>(?!))?",
            value,
            Example("nleye", "The second of the three images is the more plausible one: the box keeps its shape.", 1),
        ),
        # "the third from the left among the options", "the picture second from the right", "the second-from-right
        # option"
        _rule(
            rf"\b(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+from\s+the\s+(?P<side>left|right)"
            r"(?P<among>\s+(?:among|of)\s+the\s+(?:\w+\s+)?(?:options|candidates|choices))",
            value,
            Example("mucr", "The third from the left among the options is the cause of the water stain.", 3),
        ),
        _rule(
            rf"\b(?:the\s+)?(?:{_IMAGE_NOUN}\s+)?(?P<ordinal>{_ORDINAL})[-\s]from[-\s](?:the[-\s])?(?P<side>left|right)"
            r"(?:\s+(?P<option>option|choice|candidate))?\b",
            value,
            Example("mucr", "The effect is shown in the picture second from the right, with fallen branches.", 3),
            Example("mucr", "Final answer: the second-from-right option.", 3),
        ),
    )


def _row_count_mentions(n: int, context_images: int, option_texts: tuple[str, ...]) -> tuple[MentionRule, ...]:
    """An image of the row counted out of every image shown ("image 2 of 3"), and the one furthest to the right."""
    if not context_images or option_texts:
        return ()
    return (
        # "image 2 of 3": the images counted, the context first, out of every image shown (AS's first contact: "The
        # first hypothesis image (image 2 of 3) is the more plausible one")
        _rule(
            rf"\b(?:{_IMAGE_NOUN})\s*(?:#|number)?\s*(?P<count>\d)\s+(?:of|out\s+of)\s+{n + context_images}\b",
            lambda m: int(m["count"]) - context_images if 0 < int(m["count"]) - context_images <= n else None,
            Example("nleye", "The first hypothesis image (image 2 of 3) is the more plausible one.", 1),
            Example("nleye", "Image 3 of 3 is the more plausible one.", 2),
            Example("mucr", "The answer is picture number 4 of 5: the frozen lake.", 3),  # AV's first contact
        ),
        # "the one furthest to the right": the last option of the row (BB's first contact)
        _rule(
            rf"\bthe\s+(?:one|option|candidate|{_IMAGE_NOUN})\s+(?:furthest|farthest)\s+(?:to|on)\s+the\s+right\b",
            lambda m: n,
            Example("mucr", "The cause picture is the one furthest to the right, where the car is racing.", 4),
        ),
    )


def _context_count_mentions(context_images: int) -> tuple[MentionRule, ...]:
    """The reply's count of the context image, which shows how it counts the images (no pick itself). Where the
    prompt shows context images before the options, only a count among them: "The cause image is the second picture"
    on MuCR's e2c prompt names the answer's role by a picture count (BI's first contact), no context image."""
    # the ordinals and numbers of the context images (any, where the prompt shows none before the options)
    ordinal = (
        "|".join(
            [word for word, value in _ORDINALS.items() if value <= context_images]
            + [rf"[1-{context_images}](?:st|nd|rd|th)"]
        )
        if 0 < context_images < 10
        else _ORDINAL
    )
    number = rf"[1-{context_images}](?!\d)" if 0 < context_images < 10 else r"\d+"
    return (
        # "the first image (the context)", "Image 1 is the cause image"; the first alone, as the MuCR prompts count it
        # ("The first, labelled "Effect image", shows an effect"): "the first is the effect image" (AM's first contact),
        # and the prompt's own layout restated, the first labelled as the given image (BB's first contact)
        _rule(
            rf"\b(?:(?:the\s+)?(?P<ordinal>{ordinal})\s+{_IMAGE_NOUN}|{_IMAGE_NOUN}\s*(?P<number>{number})"
            r"|the\s+(?P<first>first))"
            r"(?=\s*(?:\(\s*|,?\s+(?:is|being|labell?ed|marked)\s+)(?:the\s+)?(?:context|premise|(?:cause|effect)\s+image)\b)",
            lambda m: 1 if m["first"] else _ordinal(m["ordinal"]) if m["ordinal"] else int(m["number"]),
            Example("nleye", "The first image (the context) shows rain. The third image is more plausible.", 2),
            Example(
                "mucr",
                "There are five pictures; the first is the effect image. Which one shows the cause? Option 2, since "
                "the rain explains the puddles.",
                2,
            ),
            Example(
                "mucr",
                'Question (image 3):\nThe image shows five pictures side by side. The first, labelled "Effect image", '
                'shows an effect. The other four, labelled "Option 1" to "Option 4", are candidate cause images.',
                None,
            ),
            Example("mucr", 'The first, labelled "Cause image", shows a fire. Option 2 shows the burnt house.', 2),
            image=True,
            ordinal=True,
            context=True,
        ),
        # the first image named by the context's role, as the prompt names it ("The first image shows a cause"):
        # "The first image (the cause) shows ...", "the first image is the effect"
        *(
            [
                _rule(
                    rf"\b(?:(?:the\s+)?first\s+{_IMAGE_NOUN}|{_IMAGE_NOUN}\s*1(?!\d))"
                    r"(?=\s*(?:\(\s*|,?\s+(?:is|being|shows|showing|depicts)\s+)(?:the\s+)?(?:cause|effect)\b)"
                    # "The cause (first image) shows a car speeding" (AT's first contact)
                    rf"|(?:(?<=\bcause\s\()|(?<=\beffect\s\())(?:first\s+{_IMAGE_NOUN}|{_IMAGE_NOUN}\s*1(?!\d))(?=\s*\))",
                    lambda m: 1,
                    Example("mucr", "The first image (the cause) shows rain. The third image shows the flood.", 2),
                    Example("mucr", "Option 1 shows the effect. The cause (first image) shows a car speeding.", 1),
                    image=True,
                    ordinal=True,
                    context=True,
                )
            ]
            if context_images
            else []
        ),
        # ... and the context named first, then counted: "the context (first image in the row)", "the context
        # image, i.e. the first picture", "the cause image is the first image"
        _rule(
            r"\b(?:context|premise|(?:cause|effect)\s+image)(?:\s+(?:image|panel|picture))?"
            rf"\s*(?:\(\s*|,\s*|\s+(?:is|being)\s+)(?:i\.e\.,?\s+)?(?:the\s+)?(?P<ordinal>{ordinal})\s+{_IMAGE_NOUN}\b",
            lambda m: _ordinal(m["ordinal"]),
            Example(
                "nleye", "The context (first image in the row) shows a storm. The second image is more plausible.", 1
            ),
            image=True,
            ordinal=True,
            context=True,
        ),
    )


def _numbered_mentions(letter: str) -> tuple[MentionRule, ...]:
    """An option or image named by its number: "Option (3)", "choice three", "phrase #4", "image 2", and lists:
    "options 2 and 4", "Options 1, 3 and 4"."""
    label = rf"{_NUMBER}|{NUMBER_WORD}|{letter}\b(?!')"
    one = rf"(?:\(\s*(?:{label})\s*\)|(?:{label}))"
    glue = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)"
    labels = rf"(?P<labels>{one}(?:{glue}{one})*)"

    def numbers(match: re.Match) -> list[int]:
        return [_number(token) for token in re.findall(label, match["labels"], _FLAGS)]

    return (
        # a range: "Options 1-3 show healthy plants"
        _rule(
            r"\b(?:options|choices|images|pictures)\s+(?P<first>[1-9])\s*(?:-|–|to|through)\s*(?P<last>[1-9])\b",
            lambda m: list(range(int(m["first"]), int(m["last"]) + 1)),
            Example("mucr", "Option 4: the wilted plant.\nOptions 1-3 show healthy plants.", 4),
        ),
        # (not "the options one by one")
        _rule(
            rf"\b{_OPTION_NOUN}[ \t]*(?:#\s*|no\.\s*|number\s*[:=]?\s*)?{labels}(?!\s+by\s+one\b)",
            numbers,
            Example("mucr", "Option (3) shows the effect.", 3),
            Example("mucr", "Option B.", 2),
            Example("mucr", "Options 2 and 4 both show water, but only option 4 shows a flood.", 4),
        ),
        _rule(
            rf"\b{_IMAGE_NOUN}[ \t]*(?:#\s*|no\.\s*|number\s+)?{labels}(?!\s+by\s+one\b)",
            numbers,
            Example("nleye", "Image 2 is more plausible.", 2),
            image=True,
        ),
        # a roman numeral: "Option IV", "Hypothesis II", "Answer: iii" (AP's first contact), one case throughout, ending
        # its phrase or before the verb of its clause (not "the option I chose", nor "Answer: I think")
        _rule(
            rf"(?:\b{_OPTION_NOUN}[ \t]+|\banswer\s*:\s*(?=(?-i:ii|II|iv|IV|v|V)))(?P<roman>{_ROMAN})(?![\w'])"
            r"(?=\s*(?:[.:;,!)\n—–-]|$)|\s+(?:is|was|shows|showed|depicts|seems|looks|appears|fits|makes)\b)",
            lambda m: _ROMANS[m["roman"].lower()],
            Example("mucr", "Option IV — the scorched frying pan is what you get after leaving the stove on high.", 4),
            Example("mucr", "Answer: iii. The wet road explains the skid marks in the effect image.", 3),
            Example("nleye", "Hypothesis II is more plausible. Hypothesis I shows the vase upright.", 2),
            Example("mucr", "The option I chose first, Option I, was wrong; the answer is Option 2.", 2),
        ),
        _rule(
            rf"(?:#\s*|\bnumber\s+)(?P<label>{_NUMBER}|{NUMBER_WORD})\b",
            lambda m: _number(m["label"]),
            Example("mucr", "The correct option is #3.", 3),
        ),
    )


def _last_mentions(n: int, last_noun: str) -> tuple[MentionRule, ...]:
    """The last option: "the last one", "the final option"."""
    return (
        # where the answer is, before a colon and what it shows: "The effect is shown in the last option: a car covered
        # in dents" (BD's first contact; not before a number: "the last option: 2" heads it); the answer itself too
        # ("The last image: the broken eggs on the kitchen floor ...", "The cause in image 3 is the last option: a pan
        # left unattended ...": BO's first contact, unread)
        _rule(
            rf"\bthe\s+(?:last|final)\s+{last_noun}\b(?=\s*:\s*(?:a|an|the)\s)",
            lambda m: n,
            Example("mucr", "The effect is shown in the last option: a car covered in dents after the hailstorm.", 4),
            Example("mucr", "The last image: the broken eggs on the kitchen floor after the bag tore open.", 4),
        ),
        # "the last one", "the final option"; "the last image" too, unless the images are no options ("Final choice: 3"
        # and "The final choice is 2" head an answer)
        _rule(
            rf"\b(?<!-)(?:(?:the\s+)?last|the\s+final)\s+{last_noun}\b"
            r"(?!\s*[:=]|\s+(?:is|was|would\s+be)\s*:?\s*(?:(?:option|choice|image|hypothesis)\s*)?[(#]?\d)",
            lambda m: n,
            Example("mucr", "The last one is the cause.", 4),
            Example("mucr", "The final option shows the wildfire.", 4),
        ),
    )


def _counted_ones() -> tuple[MentionRule, ...]:
    """Where the options are phrases, an ordinal without its image noun that counts the pictures."""
    # where the options are phrases, "the first one" is counted in order: the images, where the reply counts them
    # (Choice._revise; AO's first contact: "The second image. It shows the result of the first one")
    return (
        _rule(
            rf"\b(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+ones?\b",
            lambda m: _ordinal(m["ordinal"]),
            Example("cue", "The second one, the birthday party.", 2),
            ordinal=True,
        ),
        # and a place counted alone, the image's noun left out: "he measures the speed in the first picture and writes
        # the ticket in the second" (BK's first contact, unread: "the second" read as option 2)
        _rule(
            rf"(?<=\bin\s)the\s+(?P<ordinal>{_ORDINAL})(?=\s*(?:[.!,;)]|$))",
            lambda m: _ordinal(m["ordinal"]),
            Example(
                "cue_words",
                "The police officer (4) links the two: he measures the speed in the first picture and writes the "
                "ticket in the second.",
                4,
            ),
            ordinal=True,
        ),
        # or after "and", closing its clause or a reply cut off: "The first image shows a car driving fast on a
        # highway, and the second" (BW's first contact, cut off before a phrase, read 2; where the reply counts no
        # image, "the second" stays the second phrase: "Speeding, and the second")
        _rule(
            rf"(?<=\band\s)the\s+(?P<ordinal>{_ORDINAL})(?=\s*(?:[.!,;)]|$))",
            lambda m: _ordinal(m["ordinal"]),
            Example("cue", "The first image shows a car driving fast on a highway, and the second", None),
            ordinal=True,
        ),
    )


def _ordinal_mentions(n: int, option_texts: tuple[str, ...]) -> tuple[MentionRule, ...]:
    """Ordinals: "the third option" names an option, "the third image" counts the images shown."""
    last_noun = rf"(?!{_IMAGE_NOUN}\b){_ORDINAL_NOUN}" if option_texts else _ORDINAL_NOUN
    return (
        *(_counted_ones() if option_texts else ()),
        # "the third option", "the second hypothesis image", "the first one"
        _rule(
            rf"\b(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+(?!{_IMAGE_NOUN}\b){_ORDINAL_NOUN}\b",
            lambda m: _ordinal(m["ordinal"]),
            Example("mucr", "The third option shows the effect.", 3),
            Example("nleye", "The second hypothesis image is more plausible.", 2),
        ),
        # "the third of the candidate images" counts the options
        _rule(
            rf"\b(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+of\s+the\s+(?:(?:two|four|\d)\s+)?(?:candidate|option|hypothesis)\s+"
            rf"{_IMAGE_NOUN}",
            lambda m: _ordinal(m["ordinal"]),
            Example("mucr", "The answer is the third of the candidate images.", 3),
            Example("nleye", "The girl holding the kite — that's the first of the two hypothesis images.", 1),
        ),
        # an image count explained by an ordinal of the options, in parentheses or after "i.e." ("The second image, i.e.
        # the first of the two hypotheses, is more plausible": AM's first contact; "the fourth picture (the third of the
        # four options)"): the options counted; not standing alone ("The third of the four options might seem right,
        # but it is not", "Neither the first nor the second of the two hypotheses is plausible": round 17's review);
        # or set off by a dash after the image count ("The second image — the first of the four options — shows the
        # effect: ...": BS's first contact, unread)
        _rule(
            r"(?:(?<=\bi\.e\.\s)|(?<=\bi\.e\.,\s)|(?<=\()|(?<=\(\s)"
            r"|(?<=\bimage\s-\s)|(?<=\bpicture\s-\s)|(?<=\bphoto\s-\s)|(?<=\bpanel\s-\s))"
            rf"(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+of\s+the\s+(?:(?:two|four|\d)\s+)?"
            r"(?:hypothes[ie]s|options|candidates|choices)\b",
            lambda m: _ordinal(m["ordinal"]),
            Example("nleye", "The second picture, i.e. the second of the two hypotheses, is more plausible.", 2),
            Example("mucr", "The fourth picture (the third of the four options) shows the effect: a flood.", 3),
            Example("mucr", "The second image - the first of the four options - shows the effect: a split oak.", 1),
        ),
        _rule(
            rf"\b(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+{_IMAGE_NOUN}\b",
            lambda m: _ordinal(m["ordinal"]),
            Example("nleye", "The second image is more plausible.", None),
            Example("nleye", "The third image is more plausible.", 2),
            image=True,
            ordinal=True,
        ),
        # "the last of the four candidates"
        _rule(
            r"\bthe\s+(?:last|final)\s+of\s+the\s+(?:\w+\s+)?(?:options|candidates|choices|hypotheses|candidate\s+images)\b",
            lambda m: n,
            Example("mucr", "The last of the four candidates is the cause: it shows a wildfire.", 4),
        ),
        # "the second-to-last picture", "the penultimate option": the option before the last, however the reply
        # counts the images
        _rule(
            r"\b(?:second[-\s]to[-\s]last|second[-\s]last|penultimate)\s+"
            rf"(?:{_IMAGE_NOUN}|one|option|choice|candidate)\b",
            lambda m: n - 1,
            Example("mucr", "The cause is shown in the second-to-last picture, where the toy lies on the stairs.", 3),
        ),
        *_last_mentions(n, last_noun),
        # an ordinal standing alone: "The first.", "the second, because ...", "the second is more plausible"
        _rule(
            rf"\bthe\s+(?P<ordinal>{_ORDINAL})(?=\s*(?:[.!,;)]|$)|\s+{COPULA}\b)",
            lambda m: _ordinal(m["ordinal"]),
            Example("nleye", "The first.", 1),
        ),
        # ... and after "is", before the colon of its reason: "L'ipotesi più plausibile è la seconda: il bambino ..."
        # (BW's first contact, the more plausible hypothesis is the second; unread; not a heading, "The second: a
        # ball", nor "is the second image")
        _rule(
            rf"(?<=\bis\s)the\s+(?P<ordinal>{_ORDINAL})(?=\s*:)",
            lambda m: _ordinal(m["ordinal"]),
            Example("presents", "The more plausible hypothesis is the second: the child may have got a ball.", 2),
        ),
    )


def _bare_position_mentions(positions: Mapping[str, int]) -> tuple[MentionRule, ...]:
    """A position word alone, which counts only inside a verdict ("Answer: right")."""
    if not positions:
        return ()
    return (
        _rule(
            r"(?<!\ball )(?<!that's )(?<!you're )(?<!\bis )(?<!\bare )"
            rf"\b(?P<word>{alternatives(list(positions))})(?:-?most|-hand(?:\s+side)?)?\b"
            rf"(?!\s+(?:{_POSITION_NOT_PANEL})\b)",
            lambda m: positions[m["word"].lower()],
            Example("panels", "Answer: right", 2),
            named=False,
        ),
    )


def _letter_mentions(letter: str, letters: bool) -> tuple[MentionRule, ...]:
    """A letter as an option position where a person reads one: "(B)", "Answer: C", "The answer is (B)."."""
    any_case = f"(?i:{letter.removeprefix('(?-i:')}"
    return (
        _rule(
            rf"\(\s*{letter}\s*\)",
            lambda m: _number(m.group().strip("() ")),
            Example("mucr", "The answer is (B).", 2),
        ),
        # "B. The child", "C — the image of ..." (a description after the dash; not "B — no wait, C"), "D" alone on the
        # first line or as the whole reply
        _rule(
            rf"\A\s*{letter}(?=[.)]\s|[ \t]*\n|[.)]?\s*\Z|[ \t]*(?:[—–]|\s-)[ \t]*(?:(?:the|an?|this|that)\s|[«‹]))",
            lambda m: _number(m.group()),
            Example("mucr", "B. The child dropped the glass, which explains the shards.", 2),
            Example("mucr", "D\nThe wet road follows from the rain.", 4),
            Example("mucr", "D", 4),
            Example("mucr", "D.", 4),
            Example("mucr", "C — the image of the boy crying and holding his scraped knee.", 3),
            # or another name of the option after the dash: "B – the second hypothesis (ball-shaped present)." (BI's
            # first contact)
            Example("presents", "B – the second hypothesis (ball-shaped present).", 2),
            named=False,
        ),
        _rule(
            rf"(?:(?<=answer:)|(?<=answer: )|(?<=answer is )|(?<=choice: )|(?<=choice is )){any_case}"
            r"(?=[ \t]*(?:[.):;,!\n]|$)|\s-\s)",
            lambda m: _number(m.group()),
            Example("mucr", "Answer: C", 3),
            Example("texts", "Answer: A — the man's clothes are soaking wet.", 1),
            Example("mucr", "answer: c", 3),
            named=False,
        ),
        # a letter standing as an answer ("Answer: C", "(B)", "D."), not "A man ..." or "I think"
        *(
            [
                _rule(
                    r"(?<![\w'])(?-i:[A-Z])(?=\s*(?:[.):;,]|$))",
                    lambda m: _number(m.group()),
                    Example("letters", "I pick D.", 4),
                    named=False,
                )
            ]
            if letters
            else []
        ),
    )


# The image a question's answer, cause or effect belongs to, named after it: "the answer for image 3 is Option 4" (a
# few-shot prompt's question image, after its examples' images 1 and 2, which "the answer for image 2" restates), "the
# cause of the effect in image 3 is shown in the fourth option", "an effect of the first one" (the given image): never
# an option, and no count of the images either (the first image, a count of the context, still is one)
_GIVEN_IMAGE = (
    r"(?<=\banswer )(?:for|to)\s+(?:the\s+)?(?:question\s+)?"
    r"(?:(?:third|fourth|fifth)\s+(?:image|picture)|(?:image|picture)\s*(?:[3-9]|\d\d))\b"
    r"|(?<=\bquestion )\(\s*(?:image|picture)\s*(?:[3-9]|\d\d)\s*\)"  # "The answer to the question (image 3) is 1."
    r"|(?:(?<=\bof the effect )|(?<=\bof the cause ))(?:shown\s+)?in\s+"
    r"(?:the\s+)?(?:(?:second|third|fourth|fifth)\s+(?:image|picture)|(?:image|picture)\s*(?:[2-9]|\d\d))\b"
    r"|(?:(?<=\beffect of )|(?<=\bcause of ))the\s+first\s+(?:one|image|picture)\b"
)


def choice_ignore(n: int, option_texts: tuple[str, ...] = ()) -> re.Pattern:
    """What names no option of ``n``: the prompt's list of the options ("(1, 2, 3 or 4)", "1 or 2"), their whole
    range ("Options 1-4") and the numbered option texts restated in order ("The phrases are: 1. heavy rain, 2. ...")."""
    listed = r"\s*,\s*".join(str(number) for number in range(1, n))
    whole_range = rf"\b{_OPTION_NOUN}\s*1\s*(?:-|to|through|thru)\s*(?:{_OPTION_NOUN}\s*)?{n}(?![\w.,])"
    restated = (
        r"(?<![\w.])"
        + r"\s*[,;]?\s*(?:and\s+)?".join(
            rf"{number}\s*[.):]\s*{alternatives([option_text(text)])}"
            for number, text in enumerate(option_texts, start=1)
        )
        + r"(?!\w)"
    )
    return re.compile(
        rf"\(?(?<![\w.,]){listed}\s*,?\s*or\s+{n}(?![\w.,])\s*\)?|{whole_range}|{_GIVEN_IMAGE}"
        + (f"|{restated}" if option_texts else ""),
        _FLAGS,
    )
