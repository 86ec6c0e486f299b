"""The answer kinds: Choice, Label and Score read a reply; the judge's verdicts are read as scores."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from abductive_tasks.scoring.reading.closing_rules import CLOSING_STATEMENTS, ROLE_REJECTIONS
from abductive_tasks.scoring.reading.correction_rules import SELF_CORRECTIONS
from abductive_tasks.scoring.reading.cut_off import UNFINISHED
from abductive_tasks.scoring.reading.decision import decide
from abductive_tasks.scoring.reading.description_rules import (
    DESCRIBED_ANSWER,
    DESCRIBED_ONE,
    OWN_DESCRIPTION,
    OWN_DESCRIPTIONS,
    OWN_WORDS_CLAUSE,
    OWN_WORDS_CONCEDED,
    OWN_WORDS_DENIED,
)
from abductive_tasks.scoring.reading.doubt_rules import HEDGES, REFUSALS
from abductive_tasks.scoring.reading.form_rules import (
    ANSWER_LABEL,
    LABEL_CONCESSIONS,
    LABEL_OPPOSITE,
    LABEL_STATEMENTS,
    LETTER_ANSWER,
    LETTERED_LABELS,
    NUMBER_ANSWER_LABEL,
    REPEATED_NUMBER,
)
from abductive_tasks.scoring.reading.glossary import in_another_language
from abductive_tasks.scoring.reading.head_mentions import modified_by_another
from abductive_tasks.scoring.reading.label_score_mentions import (
    HYPOTHESIS_NOUN,
    LABEL_EFFECTS,
    LABEL_VERBS,
    label_mentions,
    score_mentions,
)
from abductive_tasks.scoring.reading.mention_marks import denied, in_passing
from abductive_tasks.scoring.reading.mention_tables import (
    COUNTS_OPTIONS,
    choice_ignore,
    choice_mentions,
    distinctive_words,
    sentence_options,
)
from abductive_tasks.scoring.reading.mentions import (
    ANY_MENTION,
    CONTEXT_ALIAS,
    Mention,
    MentionRule,
    alternatives,
    mark,
    mention_index,
    option_text,
)
from abductive_tasks.scoring.reading.position_mentions import (
    counts_context_in_apposition,
    counts_options_against_context,
)
from abductive_tasks.scoring.reading.rules import STATEMENTS
from abductive_tasks.scoring.reading.score_rules import (
    JUDGEMENT_TOLERANCE,
    JUDGEMENTS,
    SCORE_STATEMENTS,
    SCORE_VERDICTS,
    SHARED_HEAD,
    settled_label,
)
from abductive_tasks.scoring.reading.table import Rule
from abductive_tasks.scoring.reading.text import (
    FORCED_CHOICE,
    TYPO_VOCABULARY,
    is_request_failure,
    plain,
    prepare,
    sentence_start,
)
from abductive_tasks.scoring.reading.verdict_rules import VERDICTS

__all__ = ["AnswerKind", "Choice", "Label", "Score", "answer_kind", "parse_judge_label", "parse_judge_score"]

_FLAGS = re.IGNORECASE
# Words heading compounds as adverbs or prefixes ("well-dressed", "half-empty"), which name nothing of their own
_COMPOUND_HEADS = frozenset("well ill far long short high low full half self all over under non semi much".split())
# A negated phrase ("not a broken window"), which describes nothing the reply sees
_NEGATED = re.compile(r"\b(?:not|no|never|nor|rather\s+than|instead\s+of)\b[^,.;!?\n]*", re.IGNORECASE)
# Where a clause about one panel ends: a sentence's end or a contrast ("..., whereas the right image shows ...")
_PANEL_CLAUSE = re.compile(r"[.!?;\n]|\b(?:but|whereas|while|although|though|however|unlike|than)\b", re.IGNORECASE)
# Words any reason about a causal pair may use, which tell no option's description apart
_REASON_WORDS = frozenset(
    "cause causes caused effect effects image images picture pictures option options shows show showing shown answer "
    "therefore because which this that these those most likely would could should there with from into they their "
    "them what when where then than have been being also only just here scene".split()
)


class AnswerKind(Protocol):
    """What every answer kind offers."""

    def read(self, text: str) -> object | None: ...

    def describe(self) -> str: ...


class _Reader:
    """Shared ``read``: failures and JSON first, then mentions, verdicts and the decision.

    A kind provides its mention and verdict tables, ``_valid`` (is a value a valid answer) and
    ``_values`` (every valid answer of a choice or label; None for a score, which needs a pick).
    """

    mention_rules: tuple[MentionRule, ...]
    _statement_rules: tuple[Rule, ...]
    _verdict_rules: tuple[Rule, ...]
    _values: tuple | None
    _ignore: re.Pattern | None = None  # text that names no answer: the question's list of answers, a score's scale
    _complement: bool = False  # of two answers, rejecting one picks the other (a forced choice)
    _answer_words: Mapping[str, object] = {}  # the words that name answers (to what they name), read through typos

    def _valid(self, value: object) -> bool:
        raise NotImplementedError

    def _revise(self, mentions: list[Mention], text: str = "", marked: str = "") -> list[Mention]:
        """The mentions as this kind reads them, knowing all of them, the reply's ``text`` and the text as
        ``marked``."""
        return mentions

    def prepared(self, text: str) -> str:
        """The reply's plain text, as the mention table reads it (:func:`text.prepare`); a reply that is one number
        said again and again, that number (:data:`REPEATED_NUMBER`)."""
        return prepare(REPEATED_NUMBER.pattern.sub(r"\g<number>", text), self._ignore, self._answer_words)

    def read(self, text: str) -> object | None:
        """The answer a person reads in ``text``, or None (docs/reading.md)."""
        if is_request_failure(text) or not isinstance(text, str):
            return None
        plain = self.prepared(text)
        marked, mentions = mark(plain, self.mention_rules)
        return decide(
            marked,
            self._revise(mentions, plain, marked),
            self._statement_rules,
            self._verdict_rules,
            self._valid,
            self._values,
            self._complement,
            self._unfinished(text, plain),
        )

    def _unfinished(self, text: str, plain: str) -> bool:
        """Whether the reply's plain text ends unfinished (:data:`UNFINISHED`), as written: not on the word before
        what the reader sets aside (``_ignore``), which ends it ("option 3 shows the effect of the first image",
        the cause image after "the effect of": BS's first contact, unread)."""
        if not UNFINISHED.search(plain) or self._ignore is None:
            return bool(UNFINISHED.search(plain))
        kept = prepare(REPEATED_NUMBER.pattern.sub(r"\g<number>", text), None, self._answer_words)
        return bool(UNFINISHED.search(kept))


# A label's definition, its clause: "a strengthener would make the hypothesis more likely", "a weakener is an update
# that ..." (the label as a kind of update, not the reply's verdict on this one)
LABEL_DEFINITION = (
    r"(?:^|(?<=[.!?;:]))\s*(?:an?\s+)(?:{labels})\s+(?:would|will|means|is\s+(?:an?\s+)?(?:update|one|something|"
    r"information|evidence)\s+that)\b[^.;!?\n]*?(?=\s*(?:[.;!?\n]|,?\s+but\b|$))"
)


# what a forced choice ends on: "..., I'd go with the officer.", "If forced, the officer."
_FORCED_HEAD = re.compile(
    r"[\s,:]*(?:one\s*,?\s*)?(?:(?:i'd|i\s+would|i'll|i\s+will)\s+)?(?:(?:go\s+with|pick|choose|say|select)\s+)?the\s+(?P<head>[^\W\d_]+)"
    r"\s*[.!]?\s*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Choice(_Reader):
    """One of ``n`` options numbered from 1; ``read`` returns the 1-based option.

    ``aliases`` maps panel positions or other words to options (NL-Eye's combined image:
    ``{"middle": 1, "right": 2}``); ``letters`` reads A, B, ... as options 1, 2, ... (only where
    the prompt lists letters); ``option_texts`` are the options' own texts, which an answer may
    quote instead of a number (MuCR cue phrases). With two options, "the former"/"the latter" count.

    Image counts ("image 2", "the second picture") name options, unless the options are texts
    (then images are no options). ``context_images`` is the number of images shown before the
    options (the context or cause image): a reply that counts images beyond the options ("the
    third image" of two options) counts these too, and its image counts are shifted back; with
    ``context_images=0`` such counts are ambiguous and name nothing. ``image_numbers=False`` where the prompt
    numbers the options otherwise ("Option 1" to "Option 4" after a context image, MuCR): then "image 3" may count
    the context image or not and names no option, unless the reply shows how it counts.
    """

    n: int
    aliases: Mapping[str, int] = field(default_factory=dict)
    letters: bool = False
    option_texts: tuple[str, ...] = ()
    context_images: int = 0
    image_numbers: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "option_texts", tuple(self.option_texts))
        object.__setattr__(self, "aliases", dict(self.aliases))
        if self.option_texts and len(self.option_texts) != self.n:
            raise ValueError(f"Choice: {len(self.option_texts)} option texts for {self.n} options")

    def __hash__(self) -> int:
        return hash(
            (
                self.n,
                tuple(sorted(self.aliases.items())),
                self.letters,
                self.option_texts,
                self.context_images,
                self.image_numbers,
            )
        )

    def prepared(self, text: str) -> str:
        """The reply's plain text; where the prompt lists letters, an opening "A:" labels the answer
        (:data:`ANSWER_LABEL`), and where it lists none, an opening "A:" before a number."""
        if self.letters:
            text = ANSWER_LABEL.pattern.sub("Answer: ", text)
        else:  # "A: 4", where no option is lettered (:data:`NUMBER_ANSWER_LABEL`)
            text = NUMBER_ANSWER_LABEL.pattern.sub("Answer: ", text)
        return super().prepared(text)

    @property
    def _answer_words(self) -> dict[str, object]:
        return {word: word for word in TYPO_VOCABULARY} | {
            option_text(option): number for number, option in enumerate(self.option_texts, start=1)
        }

    def describe(self) -> str:
        numbers = [str(number) for number in range(1, self.n + 1)]
        text = f"the number of one option: {', '.join(numbers[:-1])} or {numbers[-1]}"
        if self.option_texts:
            text += (
                " ("
                + "; ".join(f"{number} = {option}" for number, option in zip(numbers, self.option_texts, strict=True))
                + ")"
            )
        if self.aliases:
            text += " (" + "; ".join(f"the {word} image = {option}" for word, option in self.aliases.items()) + ")"
        if self.letters:
            text += f" (or the letters A to {chr(ord('A') + self.n - 1)})"
        return text

    def _valid(self, value: object) -> bool:
        return isinstance(value, int) and 1 <= value <= self.n

    @cached_property
    def _ignore(self) -> re.Pattern:  # the prompt's list of the options: "(1, 2, 3 or 4)", "1 or 2"
        return choice_ignore(self.n, self.option_texts)

    @property
    def _values(self) -> tuple[int, ...]:
        return tuple(range(1, self.n + 1))

    def _revise(self, mentions: list[Mention], text: str = "", marked: str = "") -> list[Mention]:
        if self.option_texts:
            mentions = [
                self._unlisted(mention) if mention.unlisted else mention for mention in in_passing(mentions, marked)
            ]
            mentions = modified_by_another(mentions, marked, self.option_texts)
        if sentence_options(self.option_texts):
            mentions = denied(mentions, marked)
        images = [mention.value for mention in mentions if mention.image and isinstance(mention.value, int)]
        # "the third image" of two options, "the first image (the context)": the reply counts the context image too
        # (an image beyond all those shown, "the fourth image" of three, is invented: it shows nothing of how it counts)
        shown = self.n + self.context_images if self.context_images else None
        counts_context = (
            any(self.n < value <= (shown or value) for value in images)
            or any(mention.context for mention in mentions)
            or (self.context_images > 0 and counts_context_in_apposition(text, self.context_images))
        )
        if not self.option_texts and not counts_context and not self.context_images:
            return mentions
        # "The second image is more plausible. The first hypothesis image shows ...": a reply that counts the
        # hypotheses counts the options with its ordinals
        # (or holds its first image up against the context: "The first image ... doesn't connect to the context")
        counts_options = COUNTS_OPTIONS.search(text) or counts_options_against_context(text)
        if self.image_numbers and not self.option_texts and not counts_context and counts_options:
            return mentions
        numbered = self.image_numbers and not self.option_texts and not self._counts_panels(marked, mentions)
        shift = self.context_images if counts_context and not self.option_texts else None

        def revised(mention: Mention) -> Mention:
            if not mention.image or not (shift or not numbered or mention.ordinal):
                return mention  # "image 2" numbers the options as the prompt does
            if self.option_texts and not self.image_numbers:  # MuCR cue: "the second image" is the effect image
                return Mention(None, mention.named, mention.image, mention.ordinal, context=True)
            # a count of the images shown ("the second image") may count the context image or not: no answer
            value = mention.value - shift if shift and isinstance(mention.value, int) else None
            counted = mention.value if isinstance(mention.value, int) else None
            # the options it names, counting the context image or not ("Option 2 (the fourth image)" names neither)
            may_name = () if value is not None or counted is None else (counted, counted - self.context_images)
            # the count of the context image itself ("The first image shows the cause") picks no option
            return Mention(
                value,
                mention.named,
                mention.image,
                mention.ordinal,
                mention.context or value == 0,
                may_name=tuple(option for option in may_name if self._valid(option)),
            )

        revised_mentions = [revised(mention) for mention in mentions]
        if self.option_texts and not self.image_numbers and any(mention.image for mention in mentions):
            # MuCR cue: a reply that counts the images counts them with "the first one" too ("The second image. It
            # shows the result of the first one": AO's first contact), no phrase
            return [
                Mention(None, mention.named, ordinal=True, context=True)
                if mention.ordinal and not mention.image
                else mention
                for mention in revised_mentions
            ]
        return revised_mentions

    def _forced_by_head(self, text: str) -> int | None:
        """ "... If I had to choose one, I'd go with the officer.": after a forced choice that names no option, the
        one option whose text's last word (its head: "officer" of "police officer", no other option's) it names."""
        prepared = self.prepared(text)
        forced = list(FORCED_CHOICE.finditer(prepared))
        if not forced:
            return None
        chosen = _FORCED_HEAD.fullmatch(prepared[forced[-1].end() :])
        heads = [option.lower().split()[-1] for option in self.option_texts]
        if chosen is None or heads.count(chosen["head"].lower()) != 1:
            return None
        number = heads.index(chosen["head"].lower())
        return number + 1 if " " in self.option_texts[number].strip() else None

    def _counts_panels(self, marked: str, mentions: list[Mention]) -> bool:
        """Whether a reply to panels in a row, the context first (NL-Eye's combined image), counts its image numbers
        across the panels: the first panel it speaks of for itself (alone in its clause, not denied) is the one its
        first image number names when it counts the context panel too ("Image 2 is more plausible. The middle
        image, which shows ..."). Then its image numbers may count either way."""
        if CONTEXT_ALIAS not in self.aliases.values():
            return False
        numbers = [
            mention.value
            for found in re.findall(ANY_MENTION, marked)
            if (mention := mentions[mention_index(found)]).image and not mention.ordinal
        ]
        if not numbers or not isinstance(numbers[0], int):
            return False
        for clause in _PANEL_CLAUSE.split(marked):
            named = [mentions[mention_index(found)] for found in re.findall(ANY_MENTION, clause)]
            panels = [mention.value for mention in named if mention.panel and self._valid(mention.value)]
            if len(panels) == 1 and not OWN_WORDS_DENIED.pattern.search(clause):
                return numbers[0] != panels[0] == numbers[0] - self.context_images
        return False

    def read(self, text: str) -> int | None:
        value = super().read(text)
        if value is None:
            return self._forced_by_head(text) if self.option_texts else self._described_answer(text)
        if not self.option_texts and self._reason_describes_another(text, value):
            return None
        if not sentence_options(self.option_texts):
            return value
        # "Hypothesis 2 is more plausible because ..., so his clothes would be soaking wet": another one explained
        return None if self._explains_another(text, value) else value

    def _described_answer(self, text: str) -> int | None:
        """The option a closing answer names in the words of the reply's own description of it
        (:data:`DESCRIBED_ANSWER`, :data:`OWN_DESCRIPTION`): "Option 2 shows a wet kitchen floor ... so the effect is
        the wet floor". Words its own sentence gives the cause or effect image name nothing; the option sharing the
        most others, alone."""
        reply = plain(text)
        closing = DESCRIBED_ANSWER.pattern.search(reply) or DESCRIBED_ONE.pattern.search(reply)
        if not closing or any(rule.pattern.search(reply) for rule in (*REFUSALS, *HEDGES)):
            return None
        described: dict[int, set[str]] = {}
        listed, _ = self._listed_descriptions(reply)
        for number, item in enumerate(listed, start=1):
            described[number] = _content_stems(item)
        for match in () if listed else OWN_DESCRIPTION.pattern.finditer(reply[: closing.start()]):
            described.setdefault(int(match["number"]), set()).update(_content_stems(match["described"]))
        start = sentence_start(reply, closing.start())
        words = _content_stems(closing["phrase"]) - _content_stems(reply[start : closing.start()])
        shared = {number: _sharing(words, stems) for number, stems in described.items() if self._valid(number)}
        most = max(shared.values(), default=0)
        best = [number for number, count in shared.items() if count == most]
        return best[0] if most and len(best) == 1 else None

    def _listed_descriptions(self, reply: str) -> tuple[list[str], int]:
        """The reply's own descriptions of the options, one per option, listed in order (:data:`OWN_DESCRIPTIONS`),
        and where the list ends; no descriptions where it lists another number of them."""
        listed = OWN_DESCRIPTIONS.pattern.search(reply)
        if not listed:
            return [], 0
        items = [
            item
            for item in re.split(
                r",\s*(?:and\s+)?|;\s*|\s+and\s+(?=an?\b|the\b)", listed["list"] or listed["list_before"]
            )
            if item
        ]
        return (items, listed.end()) if len(items) == self.n else ([], 0)

    def _reason_describes_another(self, text: str, value: int) -> bool:
        """Whether the reply describes every option itself (:data:`OWN_DESCRIPTIONS`) and the last sentence naming its
        answer gives a reason in words of one other option's description and none of its own: the reply contradicts
        itself ("..., a boy throwing a stone at a window, ... The effect image shows a broken window, so the cause is
        Option 2")."""
        reply = plain(text)  # not prepared: that drops the prompt's own "Option 1 to Option 4"
        items, end = self._listed_descriptions(reply)
        if not items:
            return False
        answer = rf"\b(?:option|image|picture|choice)\s*\(?{value}\b|(?<![\w.]){value}(?![\w.])"
        naming = [
            sentence for sentence in re.split(r"(?<=[.!?])\s+|\n", reply[end:]) if re.search(answer, sentence, _FLAGS)
        ]
        if not naming:
            return False
        reason = _content_stems(_NEGATED.sub(" ", re.sub(answer, " ", naming[-1], flags=_FLAGS)))
        described = [reason & _content_stems(item) for item in items]
        others = [number for number, shared in enumerate(described, start=1) if shared and number != value]
        return not described[value - 1] and len(others) == 1

    def _explains_another(self, text: str, value: int) -> bool:
        """Whether the reply's explanation affirms another hypothesis's own words and never the answer's
        (:data:`OWN_WORDS_DENIED`)."""
        plain = self.prepared(text)
        marked, mentions = mark(plain, self.mention_rules)
        mentions = self._revise(mentions, plain, marked)
        # a hyphenated word's first part counts as its own word too ("balls" says "ball-shaped"; not "shape", nor an
        # adverb heading a compound: "as well" says nothing of "well-dressed")
        stems = [
            [
                stem
                for word in words
                for stem in {word[:5], *([word.split("-")[0][:5]] if word.split("-")[0] not in _COMPOUND_HEADS else [])}
                if len(stem) >= 4
            ]
            for words in distinctive_words(self.option_texts)
        ]

        def says(words: list[str], part: str) -> bool:
            return any(re.search(rf"\b{re.escape(word)}", part, _FLAGS) for word in words)

        if says(stems[value - 1], plain):
            return False
        corrected = max((match.end() for match in SELF_CORRECTIONS.pattern.finditer(marked)), default=0)
        for found_sentence in re.finditer(r"[^.!?\n]+", marked):
            sentence = found_sentence.group()
            named = {
                mentions[mention_index(found)].value
                for found in re.findall(ANY_MENTION, sentence)
                if not mentions[mention_index(found)].text
            }
            if any(self._valid(other) and other != value for other in named):
                continue  # the sentence is about another hypothesis it names by number, not in its words
            for clause in OWN_WORDS_CLAUSE.split(OWN_WORDS_CONCEDED.pattern.sub(" ", sentence)):
                if in_another_language(clause):  # its cognates name no option's words ("cajas rectangulares")
                    continue
                others = [own for number, own in enumerate(stems, start=1) if number != value]
                quoted = {mentions[mention_index(found)].value for found in re.findall(ANY_MENTION, clause)}
                # the other's words, or its whole text after the last self-correction ("The child is holding the
                # ball-shaped present"; not "It's the man is wet. Actually, no: the answer is hypothesis 2.")
                in_its_words = any(says(own, clause) for own in others) or (
                    found_sentence.start() >= corrected
                    and any(self._valid(other) and other != value for other in quoted - named)
                )
                if in_its_words and not OWN_WORDS_DENIED.pattern.search(clause):
                    return True
        return False

    def _unlisted(self, mention: Mention) -> Mention:
        """A phrase in parentheses that is no option's text, as the one option whose text shares a word with it ("the
        rain" is "heavy rain"), or where several do, the one whose own words (no other's it shares) it shares ("(ball-
        shaped present)" of a rectangular and a ball-shaped present: BI's first contact); else naming none."""
        words = {word for word in re.findall(r"[^\W\d_]{4,}", str(mention.value).lower())}
        shared = [words & set(re.findall(r"[^\W\d_]{4,}", option.lower())) for option in self.option_texts]
        sharing = [number for number, common in enumerate(shared, start=1) if common]
        if len(sharing) > 1:
            sharing = [
                number
                for number, common in enumerate(shared, start=1)
                if common - set().union(*(other for other in shared if other is not common))
            ]
        return Mention(sharing[0] if len(sharing) == 1 else None, True, unlisted=True)

    @cached_property
    def mention_rules(self) -> tuple[MentionRule, ...]:
        return choice_mentions(self.n, self.aliases, self.letters, self.option_texts, self.context_images)

    _statement_rules = (*STATEMENTS, *CLOSING_STATEMENTS)
    _verdict_rules = (*VERDICTS, *ROLE_REJECTIONS)
    _complement = True


@dataclass(frozen=True)
class Label(_Reader):
    """One of a few word ``labels``; ``aliases`` maps other words to labels ("weakens" -> "weakener").

    A label or alias counts in the plural and in the -ing form too ("weakeners", "weakening"). The
    question's own list of the labels ("strengthener or weakener") names none. ``read`` returns the label as given.
    """

    labels: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", tuple(self.labels))
        object.__setattr__(self, "aliases", dict(self.aliases))
        unknown = set(self.aliases.values()) - set(self.labels)
        if unknown:
            raise ValueError(f"Label: aliases name unknown labels {sorted(unknown)}")

    def __hash__(self) -> int:
        return hash((self.labels, tuple(sorted(self.aliases.items()))))

    @property
    def _answer_words(self) -> dict[str, object]:
        return {label: label for label in self.labels} | dict(self.aliases)

    def prepared(self, text: str) -> str:
        """The reply's plain text; "the opposite of" one of two labels is the other, a lettered list of the labels
        restated ("A) strengthener B) weakener") names nothing, and a letter of it standing as the answer ("Answer: B")
        is its label (:data:`LETTERED_LABELS`)."""
        plain = super().prepared(text)
        labels = {label.lower(): label for label in self.labels}
        if len(self.labels) == 2:  # "the opposite of strengthener" names the other label (LABEL_OPPOSITE)
            other = {self.labels[0].lower(): self.labels[1], self.labels[1].lower(): self.labels[0]}
            plain = LABEL_OPPOSITE.pattern.sub(lambda match: other.get(match["label"].lower(), match.group()), plain)
        listed = [match for match in LETTERED_LABELS.pattern.finditer(plain) if match["label"].lower() in labels]
        letters = {match["letter"]: labels[match["label"].lower()] for match in listed}
        if len(listed) < 2 or len(letters) != len(listed) or len(set(letters.values())) != len(listed):
            return plain
        plain = LETTERED_LABELS.pattern.sub(
            lambda match: " " if match["label"].lower() in labels else match.group(), plain
        )
        return LETTER_ANSWER.sub(lambda match: letters.get(match["letter"], match.group()), plain)

    def describe(self) -> str:
        return "one of the words " + " or ".join(self.labels)

    def _valid(self, value: object) -> bool:
        return value in self.labels

    @property
    def _values(self) -> tuple[str, ...]:
        return self.labels

    @cached_property
    def mention_rules(self) -> tuple[MentionRule, ...]:
        return label_mentions(self.labels, self.aliases)

    @cached_property
    def _ignore(self) -> re.Pattern:  # the question's list: "strengthener or weakener", "strengthens or weakens"
        verbs = [label.removesuffix("er") for label in self.labels if label.lower().endswith("er")]
        word = rf"(?:an?\s+)?(?:{alternatives([*self.labels, *self.aliases, *verbs])})(?:s|ed)?"
        # as many words as labels, the last after "or" or "/"
        listed = rf"{word}(?:\s*[/,]\s*{word}){{{len(self.labels) - 2}}}"
        return re.compile(rf"\b{listed}\s*(?:/|,?\s*\bor\b)\s*{word}\b", _FLAGS)

    def read(self, text: str) -> str | None:
        value = super().read(text)
        if value is None:
            return None
        # "weakener ... which supports the idea that she is heading to work": the explanation argues the other label
        return None if self._argued(text) - {value} else value

    def _argued(self, text: str) -> set[str]:
        """The labels the reply's words state by the verbs of :data:`LABEL_VERBS` ("supports the hypothesis")."""
        stems = {label.lower().removesuffix("er"): label for label in self.labels if label.lower().endswith("er")}
        argued = set()
        # a label's definition argues nothing: "A strengthener would make the hypothesis more likely. Here the update
        # makes it less likely, so it is a weakener." (BH's first contact; LABEL_DEFINITION)
        label_words = alternatives(list(self.labels))
        defined = re.sub(LABEL_DEFINITION.format(labels=label_words), " ", plain(text), flags=_FLAGS)
        for stem, synonyms in LABEL_VERBS.items():
            if stem not in stems:
                continue
            # any form of the verb: "supports", "undermining", "casts doubt on"
            verbs = "|".join(
                rf"{verb.split()[0].removesuffix('e')}\w{{0,4}}" + "".join(rf"\s+{word}" for word in verb.split()[1:])
                for verb in synonyms.split("|")
            )
            # not denied nor conceded: "does not support the idea", "at first seems to support the idea", "could be read
            # as supporting the hypothesis" (BD's first contact, after "Answer: weakener.")
            pattern = (
                r"(?<!not )(?<!n't )(?<!never )(?<!to )(?<!might )(?<!may )(?<!could )"
                r"(?<!read as )(?<!seen as )(?<!taken as )(?<!viewed as )"
                rf"\b(?:(?:{verbs})\s+{HYPOTHESIS_NOUN}|{LABEL_EFFECTS[stem]})"
            )
            if re.search(pattern, defined, _FLAGS):
                argued.add(stems[stem])
        return argued

    _statement_rules = (*STATEMENTS, *CLOSING_STATEMENTS, *LABEL_STATEMENTS)
    _verdict_rules = (*VERDICTS, *ROLE_REJECTIONS, *LABEL_CONCESSIONS)


@dataclass(frozen=True)
class Score(_Reader):
    """A rating in ``[low, high]``; ``read`` returns it as a float. A rating out of range is unreadable.

    ``labels`` maps the prompt's own scale words to their ratings ("very plausible" -> 7 where the
    prompt defines "7: Very plausible"); they are read only when the reply gives no number.
    """

    low: float = 1.0
    high: float = 10.0
    labels: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "labels", {label.lower(): float(rating) for label, rating in dict(self.labels).items()}
        )

    def __hash__(self) -> int:
        return hash((self.low, self.high, tuple(sorted(self.labels.items()))))

    def read(self, text: str) -> float | None:
        value = super().read(text)
        if is_request_failure(text):
            return None
        if value is not None:
            # "Score: 3. This is very plausible": a rating its own words contradict is no answer
            judged = self._judgements(text, value)
            tolerance = JUDGEMENT_TOLERANCE * (self.high - self.low)
            return None if any(abs(value - rating) > tolerance for rating in judged) else value
        if not self.labels or re.search(r"\d", text):
            return None
        if (settled := settled_label(plain(text), self.labels)) is not None:
            return settled
        words = " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
        words = SHARED_HEAD.sub(r"\g<first> \g<head> \g<glue> \g<second> \g<head>", words)
        found = [label for label in self.labels if re.search(rf"(?<!\w){re.escape(label)}(?!\w)", words)]
        # "It is not very plausible" denies a label: no rating
        if any(re.search(rf"\b(?:not|n't|never|hardly)\s+{re.escape(label)}(?!\w)", words) for label in found):
            return None
        # "not plausible at all" contains "plausible": a label inside another label found counts as that one
        ratings = {
            self.labels[label] for label in found if not any(label != other and label in other for other in found)
        }
        return ratings.pop() if len(ratings) == 1 else None

    def _judgements(self, text: str, value: float) -> set[float]:
        """The ratings of the reply's own words about the inference ("this is very plausible", "barely plausible"), and
        of a word in parentheses or after a dash or colon following the rating itself ("Score: 3 (Very plausible)",
        "Score: 3 – very plausible"; not "It isn't a 1 (not plausible at all)", which is another rating)."""
        words = {label: rating for label, rating in self.labels.items()}
        words |= {
            word: self.low + share * (self.high - self.low)
            for share, phrases in JUDGEMENTS.items()
            for word in phrases.split("|")
            if word not in words
        }
        word = rf"(?P<word>{alternatives(list(words))})(?=\s*(?:[.,;:!)]|$|\s+(?:because|since|as|given)\b))"
        # not the scale restated: "where 1 is not plausible at all"
        judged = (
            r"(?<!\d )(?<!\d)\b(?:is|seems|appears|looks|sounds|be|was|remains)\s+"
            rf"(?:therefore\s+|thus\s+|so\s+|still\s+|only\s+)?{word}"
        )
        # "Score: 3 (Very plausible)", "Score: 3 – very plausible" (AG's first contact), "Score: 10: not plausible at
        # all" (the blind review of round 25)
        in_parentheses = rf"(?<![\d.])(?P<rating>\d+(?:\.\d+)?)\s*(?:/\s*\d+\s*)?(?:\(|[–—:]|\s-\s)\s*{word}"
        found = [*re.finditer(judged, plain(text), _FLAGS)] + [
            match for match in re.finditer(in_parentheses, plain(text), _FLAGS) if float(match["rating"]) == value
        ]
        return {words[" ".join(match["word"].lower().split())] for match in found}

    def describe(self) -> str:
        return f"one number from {self.low:g} to {self.high:g}"

    def _valid(self, value: object) -> bool:
        return isinstance(value, float) and self.low <= value <= self.high

    _values = None

    @cached_property
    def _ignore(self) -> re.Pattern:  # the scale itself: "(1-10)", "on a scale of 1 to 10", "between 1 and 10"
        low, high = re.escape(f"{self.low:g}"), re.escape(f"{self.high:g}")
        # the scale's own words restated with their numbers, two or more: "1: Not plausible at all, 3: Slightly ..."
        anchor = "|".join(rf"{rating:g}\s*[:=]\s*{alternatives([label])}" for label, rating in self.labels.items())
        listing = rf"(?:(?<![\w.])(?:{anchor})\s*[,;]?\s*){{2,}}|" if anchor else ""
        # any scale restated in parentheses, two or more numbers with their words: "Score (1 = not plausible, 10 = ...)"
        entry = r"\d+(?:\.\d+)?\s*[:=]\s*[^()\d,;]{2,60}"
        restated = rf"\(\s*{entry}(?:\s*[,;]\s*{entry})+\s*\)|"
        # even odds, no rating ("Score: 5. ... so the inference "this is a delivery vehicle" is 50/50.": BP's first
        # contact, unread, read as a rating on another scale)
        odds = r"(?<![\w./])(?:50\s*/\s*50|fifty[\s-]fifty)(?![\w/]|\.\d)|"
        return re.compile(
            listing
            + restated
            + odds
            + rf"\(?\s*(?:(?:on|using|in)\s+)?(?:(?:a|the)\s+)?(?:(?:scale|range)\s+(?:of\s+|from\s+)?)?(?:from\s+)?"
            rf"(?<![\d.]){low}\s*(?:-|to)\s*{high}(?!\d|\.\d)(?:\s*(?:point\s+)?(?:scale|range))?\s*\)?"
            rf"|\bbetween\s+{low}\s+and\s+{high}(?!\d|\.\d)",
            _FLAGS,
        )

    @cached_property
    def mention_rules(self) -> tuple[MentionRule, ...]:
        return score_mentions(self.high)

    _statement_rules = SCORE_STATEMENTS
    _verdict_rules = SCORE_VERDICTS


# ---------------------------------------------------------------- corpus batches and judge verdicts


def answer_kind(kind: str, params: Mapping, prompt: str = "") -> AnswerKind:
    """The answer kind a reply batch describes (``kind``: choice | label | score, with its parameters), as the
    corpus and blind batches of ``tests/shared/`` write it; ``prompt`` names the task whose prompt was answered
    (MuCR's prompts number the options "Option 1" to "Option 4", not as images)."""
    if kind == "choice":
        return Choice(
            params["n"],
            params.get("aliases", {}),
            params.get("letters", False),
            tuple(params.get("option_texts", ())),
            params.get("context_images", 0),
            params.get("image_numbers", "mucr" not in prompt),
        )
    if kind == "label":
        return Label(tuple(params["labels"]), params.get("aliases", {}))
    if kind == "score":
        return Score(params["low"], params["high"], params.get("labels", {}))
    raise ValueError(f"unknown answer kind {kind!r}")


_ANY_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?!\d|\.\d)")


def parse_judge_score(text: str, low: float = 0.0, high: float = 10.0) -> float | None:
    """The numeric verdict in ``[low, high]`` of an LLM judge's reply, or None.

    Reads every form :class:`Score` reads ("Score: 7", "7/10", a leading number), and otherwise a
    reply holding exactly one number ("The similarity is 6."). Replies with no number, several
    candidate numbers or a number outside the range are unreadable.
    """
    score = Score(low, high).read(text)
    if score is not None:
        return score
    if is_request_failure(text):
        return None
    numbers = _ANY_NUMBER.findall(plain(text))
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


def _content_stems(text: str) -> set[str]:
    """The first five letters of each word of ``text`` that could tell one description from another."""
    return {word[:5] for word in re.findall(r"[^\W\d_]{4,}", text.lower()) if word not in _REASON_WORDS}


def _sharing(words: set[str], stems: set[str]) -> int:
    """How many of ``words`` a stem of ``stems`` begins or is begun by ("windy" and "wind")."""
    return sum(any(word.startswith(stem) or stem.startswith(word) for stem in stems) for word in words)
