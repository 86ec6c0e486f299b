"""An option named by where it stands next to the context image: the one right after it, the left or right one of the
two hypotheses (the mention table of a choice whose options follow a context image, mention_tables.choice_mentions).

Reading round 38 (AT's first contact).
"""

from __future__ import annotations

import re

from abductive_tasks.scoring.reading.mentions import MentionRule
from abductive_tasks.scoring.reading.table import Example

__all__ = ["counts_context_in_apposition", "counts_options_against_context", "position_mentions"]

_IMAGE = r"(?:image|picture|panel|photo)"
_CONTEXT = rf"(?:(?:cause|effect|first|context|premise)(?:\s+{_IMAGE})?)"


def _rule(pattern: str, value: int, *examples: Example, context: bool = False) -> MentionRule:
    """A mention rule naming option ``value`` by its position (named; an option, not a count of the images), or, with
    ``context``, the reply's count of the context image (image ``value``), which shows how it counts the images."""
    return MentionRule(
        re.compile(pattern, re.IGNORECASE),
        lambda _: value,
        image=context,
        ordinal=context,
        context=context,
        examples=examples,
    )


def position_mentions(n: int, context_images: int, option_texts: tuple[str, ...]) -> tuple[MentionRule, ...]:
    """The options named by their place beside the one context image shown before them, and the context image named
    as the first image, what an option continues from."""
    if context_images != 1 or option_texts:
        return ()
    return (
        # the image right after the context is the first option: "The answer is the option right after the cause
        # image", "The second picture, right after the cause image, shows the effect" (its count shown: the context
        # is the first picture)
        _rule(
            rf"\b(?:the\s+)?(?:(?:second\s+)?{_IMAGE}|option|candidate|one)\s*[,(]?\s*(?:right|immediately|directly|just)\s+"
            rf"after\s+the\s+{_CONTEXT}\b",
            1,
            Example("mucr", "The answer is the option right after the cause image, which shows the flood.", 1),
            Example("mucr", "The second picture, right after the cause image, shows the effect: the flood.", 1),
            # or in parentheses (AV's first contact)
            Example("mucr", "The second picture (right after the cause image) shows the effect: the flood.", 1),
        ),
        # what an option continues from is the context, the first image: "I'd pick the second panel. It continues the
        # scene from the first panel" (the second panel is the first hypothesis)
        _rule(
            rf"\b(?:continues|follows\s+on|picks\s+up)\s+(?:the\s+(?:scene|story|action)\s+)?from\s+the\s+first\s+{_IMAGE}\b",
            1,
            Example("panels", "I'd pick the second panel. It continues the scene from the first panel.", 1),
            context=True,
        ),
        # of two hypotheses shown after the context, the left one is the first: "Of the two hypothesis images, the
        # left one is more plausible"
        *(
            _rule(
                rf"\bof\s+the\s+two\s+hypothes[ie]s(?:\s+{_IMAGE}s)?\s*,\s*the\s+{side}(?:\s+one|\s+{_IMAGE})?\b",
                value,
                Example("panels", f"Of the two hypothesis images, the {side} one is more plausible.", value),
            )
            for side, value in (("left", 1), ("right", 2))
            if n == 2
        ),
    )


_COUNT = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
_COUNT_WORD = "|".join(_COUNT)
# "The second image is more plausible, as this first hypothesis image shows ...": an image count and, in its own
# sentence, the same image called by its hypothesis count after "this" or "that" (AX's first contact)
_SAME_IMAGE = re.compile(
    rf"\bthe\s+(?P<image>{_COUNT_WORD})\s+{_IMAGE}\b[^.;!?\n]*?\b(?:this|that)\s+(?P<option>{_COUNT_WORD})\s+"
    r"(?:hypothesis|option|candidate)\b",
    re.IGNORECASE,
)


def counts_context_in_apposition(text: str, context_images: int) -> bool:
    """Whether the reply calls an image it counted by its hypothesis count, the context images before it counted too
    ("The second image ..., as this first hypothesis image ...", one context image): then it counts the context."""
    return any(
        _COUNT[found["image"].lower()] - context_images == _COUNT[found["option"].lower()] > 0
        for found in _SAME_IMAGE.finditer(text)
    )


# "The context shows a fisherman casting a line ... The first image shows him asleep in bed, which doesn't connect to
# the context." (BI's first contact): the first image held up against the context is no context image, so the reply
# counts the options with its image counts ("The second image is more plausible": the second hypothesis); not "The
# first image shows the context", nor "The first image is the context, and the second image fits the context"
_FIRST_AGAINST_CONTEXT = re.compile(
    rf"\bthe\s+first\s+{_IMAGE}\b(?:(?!\bcontext\b|\b(?:second|third|other|next)\s+{_IMAGE}\b)[^.;!?\n])*?"
    r"\b(?:fit|fits|match|matches|connect|connects|relate|relates|follow|follows|explain|explains|contradict|"
    r"contradicts|align|aligns|agree|agrees|link|links|consistent|inconsistent|compatible|incompatible)\b"
    r"(?:\s+(?:well|better|at\s+all|directly|naturally|logically))?\s+(?:with|to|from)?\s*the\s+context\b",
    re.IGNORECASE,
)


# the context shown by its role and the first image showing something else, no third image counted: "The context shows a
# teenager blowing out candles ..., and the second image shows the same teenager unwrapping a gift ... The first image
# shows her sitting alone in an empty classroom." (BJ's first contact, unread); not "The first image shows the context"
# (the image's noun left out too: "The context shows a man jogging ..., and the second image shows him stretching ...,
# while the first shows him asleep in bed.", BL's first contact, unread)
_CONTEXT_SHOWN = re.compile(r"\bthe\s+context(?:\s+image)?\s+shows\b", re.IGNORECASE)
_FIRST_SHOWS_ANOTHER = re.compile(
    rf"\bthe\s+first(?:\s+{_IMAGE}|\s+one)?\s+shows\s+(?!(?:the\s+)?(?:same\s+)?(?:context|scene\s+of\s+the\s+context)\b)",
    re.IGNORECASE,
)
_THIRD_IMAGE = re.compile(rf"\b(?:third|fourth|last)\s+{_IMAGE}\b|\b{_IMAGE}\s*3\b", re.IGNORECASE)


def counts_options_against_context(text: str) -> bool:
    """Whether the reply holds its first image up against the context (it fits, matches or connects to it, or not),
    or shows the context by its role and its first image showing something else, counting no third image: then that
    image is no context image, and the reply counts the options."""
    if _FIRST_AGAINST_CONTEXT.search(text):
        return True
    return bool(_CONTEXT_SHOWN.search(text) and _FIRST_SHOWS_ANOTHER.search(text) and not _THIRD_IMAGE.search(text))
