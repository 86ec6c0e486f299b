"""Reading model answers as a person would: answer kinds, failed requests, and LLM-judge verdicts.

The reading policy (issue 22; the READMEs repeat it). A reply is read as a careful person reads it, given the prompt:

- The reply is what the model said: chat-template artefacts ("</s>", "<|im_end|>") are no text, an echoed prompt
  before the last role marker ("USER: ... ASSISTANT: 7") and a next user turn after the reply ("... USER:") are no
  part of it.
- The reply's final committed answer wins. A self-correction ("actually", "wait", "on reflection", "on closer
  inspection", "thinking about it more", "So actually ...", "Sorry, I mean 1", "I'll change my answer to 2", "I'll
  revise: weakener", "I'll lower it to 6", "Final answer: 3") replaces what came before it; a LaTeX box
  ("\\boxed{2}", "$$\\boxed{\\text{Option 3}}$$"), as reasoning models end their replies, states the answer;
  a closed ``<think>...</think>`` block is deliberation, and the answer after it counts (a block never closed, cut
  off while reasoning, holds none). A concession ("Although image 1 seems more plausible at first, ...") or a question
  ("Image 2 is more plausible?") commits to nothing.
- Hedges, refusals, "cannot determine", "neither", "both", "none of the options" and contradictory replies are never
  a value ("None of the options shows the effect", "I cannot determine a single answer", "I can't make them out well
  enough to choose"; not "none of the other options", nor "none of them" after the reply has stated its answer: "3\n\n
  ... Options 1, 2 and 4 show a cat, a cake and a tree; none of them can explain it" is about the other options, and
  picks 3); a pick heading a list ("I would say 1 and 3") picks none, and
  the whole range of options ("Options 1-4") names none. A reply is contradictory when it commits to two answers
  without a self-correction between them ("Image 2 is more plausible. ... In summary, image 1 is the more plausible",
  "2\n\nOption 4 shows the effect", a JSON answer whose phrase is another option's), or when a rating contradicts the
  reply's own words about it ("Score: 3. This is very plausible"). A rating on another scale ("4 out of 5",
  "8/100") or below zero is no rating. After the last self-correction, a refusal to choose ("I cannot determine
  which is more plausible") outweighs any pick elsewhere in the reply, and so does a doubt ("unable to judge whether
  ...", "Either option 2 or option 4 could be the effect", "It's difficult to say which is intended") unless a
  statement of the answer follows its sentence. A
  declined choice ("I would not pick image 2") rejects its option. A reply cut off mid-sentence commits to nothing
  its unfinished last line heads ("Middle (hypothesis 1): Children"), nor does one ending on an article and a word
  after its sentences ("... with the context. The middle"), on a prepositional phrase ("... a cloudy sky. In the
  middle panel"), on a heading ("... Option 1:"), on a word no sentence ends on ("... and the first hypothesis
  shows") or on the next answer's name in a reply that goes through the
  answers a sentence each ("Hypothesis 1 states ... Hypothesis 2"), unless it is a repetition loop whose every complete
  sentence names the same answer ("Option 3 shows the effect. Option 3 shows the effect. Option 3 shows the"). A
  conditional reply ("It depends on the timing. If ..., about 8; if ..., more like 3") gives no answer.
- An answer its own explanation contradicts is no answer: a number whose parenthesis or option text names another option
  ("Hypothesis 1 (right image)" where right is 2, "3 - heavy rain" or "3 - heavy rain explains ..." where heavy rain is
  option 1); an option that does not exist standing as the answer ("Option 5." of four options, whatever the reply names
  after it, unless it states a valid answer after it: an invented option then names nothing, as when it heads one item
  of a description, "Option 5: an umbrella."); a second pick set off from its verb ("1 is more plausible. The right
  image, showing the girl with a cast, better explains the crutches": contradictory); a label whose explanation
  states the other label's effect with a verb of :data:`LABEL_VERBS` or a phrase of :data:`LABEL_EFFECTS`
  ("weakener ... which supports the idea that ...", "weakener ... makes the hypothesis more likely"); an option
  explained as the context panel ("Image 1 (the left one)", where the left panel is the context).
  "Revised score: 4" corrects "Score: 7". The prompt's scale restated with its numbers ("1: Not plausible at all, 3:
  ...") names no rating; two scale words sharing their head ("between slightly and moderately plausible") are a range. A
  decimal rating on the scale ("Score: 6.5") is read as written: the prompts ask for a score between 1 and 10, not for
  an integer; a range ("6-7", "Score: 4-5", "7 or 8") is no rating, not its midpoint.
- When in doubt, abstain: the reply is counted unparsable (and wrong), never guessed. A silent misread (a value a
  person does not read) is worse than an unread reply, which is at least counted.
- Letters are option positions where a person reads them so: "(B)", "Answer: C", "answer: c", a reply opening
  "B. ..." or with a letter alone on its first line before an explanation (a bare "B" reply is not read), "Option A"
  (A to the last option's letter), and any letter standing as an answer where the prompt lists letters
  (``Choice(letters=True)``).
- Ordinals and positions count where a person reads them unambiguously: "the second option", "the right image",
  "the third of the candidate images", "image 2" (numbered as the prompt numbers the options). An ordinal count of the
  images shown ("the second image") where the prompt also shows a context image may count it or not and names no
  option, unless the reply shows how it counts ("the third image" of two options, "(i.e. hypothesis 1)", "the first
  hypothesis image" elsewhere in the reply, "the context (first image in the row)"; naming "the context image" by its
  role does not show it; naming the first image by the context's role, as the MuCR prompts do, "The first image (the
  cause) shows ...", "the first image is the effect", does). An image count beyond all the images shown ("the fifth
  image" of three) is an invented image: it names no option and shows nothing of how the reply counts. The rightmost
  picture is the last option where the options are images in a row after the context. The numbers of a numbered list
  counted from 1 ("1. The cause image shows ...") are no answers. An option's own text quoted is that option (MuCR cue
  phrases, ``nleye_triplet_text``'s hypotheses), unless it is named in passing: while describing an image ("The
  cause image shows children at a birthday party", "In the effect image there is broken glass") or as the
  consequence ("..., which led to the broken glass", "the effect is broken glass"), in a clause that does not name
  the answer's role ("the cue is ...", "... explains"); a reply that names its cue only by a synonym ("the wet
  tiles") then names none. Where the prompt numbers the options otherwise ("Option 1" to "Option 4" after a context
  image), "image 3" is such a count too (``Choice(image_numbers=False)``).
- A plain answer in another language is read: answer words and the digits after them ("答案是 2", "La imagen 2 es más
  plausible", "选项3", "Bewertung: 4", "削弱", "Ответ: 4", "الدرجة: ٧", "परिकल्पना 1", "mit sieben bewerten"), by the
  glossary :data:`GLOSSARY`, with other scripts' digits; scale words in other languages ("muy plausible") are not.
- Typos of the answers' own words (labels, option texts) are read as the words where one answer alone is that close:
  one edit per word ("strenghtener", "slipery flor"; a one-word answer in a sentence needs seven letters: "floor" is
  no typo of "flood"), two for a reply of one word ("weaknr"), or a label's first four letters or more standing alone
  ("weak"). Korean "2번 이미지" is "image 2", Korean "3번" and Japanese "2番" are "number 3", "number 2".
  Pictographs ("🎂 2 🎉") are decoration; "→ 3" gives the answer.

An answer kind reads a model's reply with ``read(text)`` and returns the answer a careful person
reads in it, or ``None`` when the reply chooses nothing. ``describe()`` says in one line what the valid answers are
(the judge's extraction prompt uses it). The kinds the tasks parse:

- :class:`Choice`: one of ``n`` numbered options ("Image 2", "Option (3)", "the third option", "(B)",
  "the image on the right" with ``aliases``, an option's own text with ``option_texts``);
- :class:`Label`: one of a few words ("weakener", its verb "weakens", or an alias such as "undermines");
- :class:`Score`: a rating in ``[low, high]`` ("Score: 7.5", "7/10", "I'd give it a 7").

Callers check :func:`is_request_failure` first: a failed request is counted as such, never read
(``read`` also returns ``None`` for one). Callers count ``None`` as wrong and report how many.

One engine reads every kind, driven by small tables (no rule names a particular reply):

1. A closed ``<think>`` block is dropped when an answer follows it, an unclosed one always. A JSON object with an
   answer-like key (``{"answer": 2}``, fenced or not) is read by its value, as a statement ("Answer: 2").
2. Full-width punctuation becomes ASCII and the glossary's answer words become English ("图" -> "image"). Markdown
   (emphasis, headers, bullets, code fences), quotes and pictographs are removed, and so is the question's own list
   of answers ("(1, 2, 3 or 4)", "strengthens or weakens", a score's scale). Typos of the kind's answer words are
   written as the words (``_spell``).
3. Mentions are marked: the kind's mention table turns what names an answer ("image 2", "the second option",
   "the last one", "on the right", "(B)", "heavy rain", "weakens", "8/10", "seven out of ten") into a numbered
   placeholder; other digits and number words standing as an answer ("Two.") become bare mentions, which count only
   inside a verdict ("Answer: 2").
4. Verdicts: the statement tables find commitments to an answer ("Answer: 2", "the more plausible image is 1",
   "2 is more plausible than 1", "I choose 2", "Score: 7", "7/10", "the update weakens the hypothesis", or an
   answer standing alone at the start of a line or as a sentence: "2.", "Option 3: ...", "Weakener.", unless such
   lines (after the last self-correction, if any) name different answers, an enumeration, or head a description:
   "Image 1: a man ... Image 2: ...", or stand on the unfinished last line of a reply cut off mid-sentence); the
   verdict tables find weaker picks and rejections ("probably 2", "| 2 | Yes |", "2 > 1", "so 2.", "not 1",
   "I'd give it a 7", "although it might strengthen ..."). A pick inside a question ("Image 2 is more plausible?")
   picks nothing.
5. A refusal (:data:`REFUSALS`) after the last self-correction gives no answer, and so does a doubt (:data:`DOUBTS`)
   that no statement of the answer follows. Else the answer is
   what the picks after the last self-correction (else all picks) commit to: one answer, or none
   when they disagree (a contradiction); for a score, statements ("Score: 8") outrank other verdicts. An
   explanation after "Answer: 2" ("image 1 is more likely to be in the morning") is no statement. Without a pick,
   a choice or label is the only one the reply names and does not reject (of two options, rejecting one picks the
   other; of two labels it picks none), unless the reply hedges ("either could be", "not sure"), an answer standing
   alone names another one, or the reply was cut off mid-sentence after other sentences (the token limit); a score
   needs a pick.

A change to reading follows the blind protocol (tests/shared/PROTOCOL.md): first-contact figures on a fresh blind
batch before the fix, recorded in tests/shared/FIRST_CONTACT.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

# lmms-eval's API backends answer a request that failed after their retries with this text
# (lmms_eval/models/chat/openai.py: f"[LMMS_EVAL_REQUEST_FAILED after {n} retries] {error}").
REQUEST_FAILED_MARKER = "[LMMS_EVAL_REQUEST_FAILED"


def is_request_failure(reply: object) -> bool:
    """True when ``reply`` is no answer at all: None, empty or blank, or lmms-eval's failure marker."""
    if reply is None:
        return True
    return isinstance(reply, str) and (not reply.strip() or reply.lstrip().startswith(REQUEST_FAILED_MARKER))


class AnswerKind(Protocol):
    """What every answer kind offers."""

    def read(self, text: str) -> object | None: ...

    def describe(self) -> str: ...


# ---------------------------------------------------------------- text preparation

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
    return None


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


def _plain(text: str) -> str:
    """``text`` without markdown, quotes and extra white space; line breaks are kept."""
    for pattern, replacement in _PLAIN:
        text = pattern.sub(replacement, text)
    return text.strip()


# A closed reasoning block before the reply's answer ("<think>...</think> Image 1 is ..."): the answer is after it.
# A reasoning block the reply never closed (cut off while reasoning) holds no committed answer.
_THINK = re.compile(r"<think>.*?</think>|<think>(?!.*</think>).*", re.IGNORECASE | re.DOTALL)
# Full-width punctuation (Chinese, Japanese) as ASCII; CJK text set apart from digits and Latin words.
_FULL_WIDTH = str.maketrans(
    {"：": ":", "（": "(", "）": ")", "。": ". ", "，": ", ", "；": "; ", "！": "! ", "？": "? ", "،": ", ", "।": ". "}
    | {chr(zero + digit): str(digit) for zero in (0x660, 0x6F0, 0x966, 0xFF10) for digit in range(10)}
)
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK_BOUNDARY = re.compile(rf"(?<=[{_CJK}])(?=[^\s{_CJK}])|(?<=[^\s{_CJK}])(?=[{_CJK}])")
# Answer words in other languages, as the English words the tables read (a plain answer in another language is read
# where a person reads it: "答案是 2", "La imagen 2 es más plausible", "选项3", "Bewertung: 4"). Scale words
# ("muy plausible") are not translated: a number after an answer word is.
GLOSSARY = {  # English: the words it translates, separated by |
    "answer": "答案|回答|答え|정답|답변|respuesta|resposta|réponse|reponse|antwort|risposta|ответ|الإجابة|الجواب|उत्तर",
    "option": "选项|選項|選択肢|オプション|선택지|옵션|opción|opcion|opção|opcao|opzione|вариант|варианте|الخيار|विकल्प",
    "image": (
        "图片|图像|圖片|图|圖|画像|이미지|사진|그림|imagen|imagem|immagine|bild|abbildung|изображение|изображении|картинка|"
        "الصورة|छवि"
    ),
    "hypothesis": (
        "假设|假設|仮説|가설|hipótesis|hipotesis|hipótese|hypothèse|hypothese|ipotesi|гипотеза|الفرضية|परिकल्पना"
    ),
    "score is": "점수는|점수가|평점은",
    "score": (
        "评分|評分|分数|得分|打分|评级|スコア|評価|점수|평점|puntuación|puntuacion|puntaje|calificación|pontuação|pontuacao|nota|"
        "bewertung|punktzahl|punteggio|оценка|балл|الدرجة|التقييم|स्कोर|अंक"
    ),
    "plausibility": "plausibilität|plausibilidad|plausibilité|plausibilidade|合理性|可信度",
    "rate": "bewerten|bewerte|califico|calificaría|daría|darei|donnerais",
    "with": "mit",
    "is": "是|es|est|ist|é",
    "think": "认为|我觉得",
    "the more plausible is": "更合理的是|更合理的一个是|更可能的是|最合理的是|より妥当なのは|よりもっともらしいのは",
    "is more plausible": (
        "更合理|更加合理|更可信|更有可能|更可能|es más plausible|é mais plausível|est plus plausible|ist plausibler|"
        "ist wahrscheinlicher|è più plausibile|の方が妥当|がより妥当|の方がもっともらしい|がよりもっともらしい|"
        "이 더 그럴듯|가 더 그럴듯|이 더 타당|가 더 타당|이 더 합리적|가 더 합리적|"
        "более правдоподобна|более правдоподобен|более правдоподобно|अधिक संभावित है|अधिक प्रशंसनीय है"
    ),
    "is the most plausible": (
        "最合理|最有可能|es la más plausible|es el más plausible|é a mais plausível|est la plus plausible|"
        "est le plus plausible|ist am plausibelsten|è la più plausibile|هي الأكثر معقولية|هو الأكثر معقولية|"
        "الأكثر معقولية|الأكثر منطقية"
    ),
    "the right": "右边的|右边|右側の|右の|오른쪽|de la derecha|da direita|de droite|rechte",
    "the middle": "中间的|中间|中央の|真ん中の|가운데|del medio|del centro|do meio|du milieu|du centre|mittlere",
    "the left": "左边的|左边|左側の|左の|왼쪽|de la izquierda|da esquerda|de gauche|linke",
    "strengthens": "加强|增强|强化|強化|支持|강화|fortalece|refuerza|reforça|renforce|stärkt|rafforza",
    "weakens": "削弱|减弱|弱化|弱める|약화|debilita|enfraquece|affaiblit|schwächt|indebolisce",
    "strengthener": "fortalecedor|fortalecedora|reforzador|renforçateur|verstärker|rafforzativo",
    "weakener": "debilitador|debilitadora|affaiblisseur|abschwächer|indebolente",
    # Arabic puts the ordinal after its noun: "الفرضية الأولى" is "the first hypothesis"
    "the first": "첫 번째|첫번째",
    "the second": "두 번째|두번째",
    "the third": "세 번째|세번째",
    "the fourth": "네 번째|네번째",
    "the first hypothesis": "الفرضية الأولى",
    "the second hypothesis": "الفرضية الثانية",
    "the first image": "الصورة الأولى",
    "the second image": "الصورة الثانية",
    "the first option": "الخيار الأول",
    "the second option": "الخيار الثاني",
    "the third option": "الخيار الثالث",
    "the fourth option": "الخيار الرابع",
}
# Number words of other languages, as digits ("mit sieben bewerten": rate with 7)
_GLOSSARY_NUMBERS = {
    "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10,
}  # fmt: skip
_GLOSSARY_WORDS = {word.lower(): english for english, words in GLOSSARY.items() for word in words.split("|")}
_GLOSSARY_WORDS |= {word: str(value) for word, value in _GLOSSARY_NUMBERS.items()}
# Chinese numerals after an answer noun ("选项二": option 2) and ordinals ("第二个": the second)
_CJK_NUMERALS = dict(zip("一二三四五六七八九十", range(1, 11), strict=True))
_GLOSSARY_WORDS |= {
    f"{noun}{numeral}": f"{english} {value}"
    for noun, english in (("选项", "option"), ("图片", "image"), ("图", "image"), ("假设", "hypothesis"))
    for numeral, value in _CJK_NUMERALS.items()
}
_GLOSSARY_WORDS |= {
    f"第{numeral}{measure}": f"the {ordinal}"
    for numeral, ordinal in zip(
        _CJK_NUMERALS, "first second third fourth fifth sixth seventh eighth ninth tenth".split(), strict=True
    )
    for measure in ("", "个", "張", "张", "幅")
}
_GLOSSARY_PATTERN = re.compile(
    "|".join(
        re.escape(word) if re.match(f"[{_CJK}]", word) else rf"(?<!\w){re.escape(word)}(?!\w)"
        for word in sorted(_GLOSSARY_WORDS, key=len, reverse=True)
    ),
    re.IGNORECASE,
)


# Korean counts with 번 before the noun: "2번 이미지" is "이미지 2" (image 2)
_KOREAN_NUMBERED = re.compile(r"(\d+)\s*번\s*(이미지|사진|그림|선택지|옵션|가설)")
_KOREAN_NUMBER = re.compile(r"(\d+)\s*[번番](?!\s*[째目])")  # "정답은 3번", "2番です" (number 2; not "2番目")


def _translate(text: str) -> str:
    """``text`` with full-width punctuation as ASCII, CJK set apart, and the glossary's answer words in English."""
    text = _KOREAN_NUMBER.sub(r"number \1", _KOREAN_NUMBERED.sub(r"\2 \1", text))
    text = _GLOSSARY_PATTERN.sub(
        lambda match: f" {_GLOSSARY_WORDS[match.group().lower()]} ", text.translate(_FULL_WIDTH)
    )
    return re.sub(r"[ \t]+", " ", _CJK_BOUNDARY.sub(" ", text))


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


def _close(typed: str, word: str, alone: bool) -> bool:
    """Whether ``typed`` is a typo of the answer word ``word`` (both lower case)."""
    if typed == word or len(word) < TYPO_MIN_LENGTH:
        return typed == word
    if alone and len(typed) >= TYPO_MIN_PREFIX and word.startswith(typed):
        return True
    return len(typed) >= TYPO_MIN_LENGTH - 1 and _edits(typed, word) <= (2 if alone else 1)


def _spell(text: str, phrases: Sequence[str]) -> str:
    """``text`` with typos of the answer ``phrases`` written as the phrases, where one phrase alone is that close."""
    words = list(_WORD.finditer(text))
    alone = len(words) == 1 and not re.sub(r"[\s.!]", "", text[: words[0].start()] + text[words[0].end() :])
    if alone:  # a reply of one word of one answer phrase alone: "slippery" for "slippery floor"
        typed = words[0].group().lower()
        holding = {
            phrase
            for phrase in phrases
            if any(len(part) >= TYPO_MIN_LENGTH and _close(typed, part, True) for part in phrase.lower().split())
        }
        if len(holding) == 1 and len((phrase := holding.pop()).split()) > 1:
            return text[: words[0].start()] + phrase + text[words[0].end() :]
    pieces, done, start = [], 0, 0
    while start < len(words):
        candidates = set()
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
                candidates.add(phrase if typed != parts else None)  # None: an answer word written right
        if len(candidates) == 1 and None not in candidates:
            phrase = candidates.pop()
            last = words[start + len(phrase.split()) - 1]
            pieces += [text[done : words[start].start()], phrase]
            done, start = last.end(), start + len(phrase.split())
        else:
            start += 1
    return "".join([*pieces, text[done:]])


# ---------------------------------------------------------------- mentions

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
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
_NUMBER = r"\d+(?![\w%]|[.,]\d)"
_NUMBER_WORD = "|".join(_NUMBER_WORDS)
_ORDINAL = "|".join(_ORDINALS) + r"|\d+(?:st|nd|rd|th)"
# A number word standing as an answer: "Two.", "The answer is one.", "Score: five", "a six."
# (not "the other one", "of the two images").
_NUMBER_WORD_ALONE = (
    rf"(?:(?m:^)|(?<=\bis )|(?<=\bbe )|(?<=\ba )|(?<=\ban )|(?<=: ))(?P<value>{_NUMBER_WORD})\b(?=\s*(?:[.!?,;)]|$))"
)
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
# A placeholder: «i» for a named mention, ‹i› for a bare one, i written as a private-use character
# so that no later rule reads it as a number.
_OPEN, _CLOSE, _BARE_OPEN, _BARE_CLOSE = "«", "»", "‹", "›"
_INDEX_BASE = 0xF0000  # Supplementary Private Use Area-A: 65,534 mentions


@dataclass(frozen=True)
class _Mention:
    value: object  # what the mention names; None when it names nothing valid (an ambiguous range)
    named: bool  # False for a bare number or position word, which counts only inside a verdict
    image: bool = False  # an image count ("image 3", "the third picture")
    ordinal: bool = False  # counted in order ("the third picture"), not numbered as the prompt numbers ("image 3")
    context: bool = False  # the reply's count of the context image ("the first image (the context)")
    text: bool = False  # an option's own text quoted ("heavy rain")
    passing: bool = False  # an option's text named in passing, no pick ("the cause image shows a birthday party")


@dataclass(frozen=True)
class _MentionRule:
    """Every match of ``pattern`` is a mention; ``value`` reads what it names from the match."""

    pattern: re.Pattern
    value: Callable[[re.Match], object]  # a list: one mention per element ("options 2 and 4")
    named: bool = True
    image: bool = False
    ordinal: bool = False
    context: bool = False
    text: bool = False


def _mark(text: str, rules: Sequence[_MentionRule]) -> tuple[str, list[_Mention]]:
    """``text`` with every mention replaced by a numbered placeholder («i» named, ‹i› bare), and the mentions."""
    mentions: list[_Mention] = []

    def replace(rule: _MentionRule, match: re.Match) -> str:
        values = rule.value(match)
        opening, closing = (_OPEN, _CLOSE) if rule.named else (_BARE_OPEN, _BARE_CLOSE)
        placeholders = []
        for value in values if isinstance(values, list) else [values]:
            mentions.append(_Mention(value, rule.named, rule.image, rule.ordinal, rule.context, rule.text))
            placeholders.append(f"{opening}{chr(_INDEX_BASE + len(mentions) - 1)}{closing}")
        return " and ".join(placeholders)

    for rule in rules:
        text = rule.pattern.sub(lambda match, rule=rule: replace(rule, match), text)
    return text, mentions


_FLAGS = re.IGNORECASE
_REF = r"\(?\s*[«‹](?P<{name}>[\U000f0000-\U000ffffd])[»›]\s*\)?"  # a named or bare mention, perhaps in parentheses
_LIST_HEAD = r"(?!\s*,?\s*(?:and|or|&|/)\s*\(?\s*[«‹][\U000f0000-\U000ffffd][»›])"  # "1 and 3 are equally valid"
_NAMED_REF = r"«(?P<{name}>[\U000f0000-\U000ffffd])»"


def _verdicts(*patterns: str) -> tuple[re.Pattern, ...]:
    """Compile verdict patterns: ``{pick}``/``{reject}`` any mention, ``{named_pick}`` a named one."""
    fill = {  # a pick heads no list: "I would say 1 and 3 are equally valid" picks neither
        "pick": _REF.format(name="pick") + _LIST_HEAD,
        "reject": _REF.format(name="reject"),
        "named_pick": _NAMED_REF.format(name="pick"),
    }
    return tuple(re.compile(pattern.format(**fill), _FLAGS | re.MULTILINE) for pattern in patterns)


# ---------------------------------------------------------------- verdicts

_ADVERBS = (
    r"(?:\s+(?:clearly|definitely|probably|likely|much|far|even|also|indeed|therefore|thus|actually|certainly|"
    r"somewhat|slightly|a\s+bit|still|the))*"
)
_COPULA = (
    rf"(?:is|are|was|seems?|looks?|appears?|would\s+be|could\s+be|must\s+be|should\s+be|remains?|makes?){_ADVERBS}"
)
_QUALITY = (
    r"(?:plausible|likely|probable|reasonable|logical|realistic|believable|sensible|consistent|coherent|fitting|"
    r"appropriate|accurate|suitable|natural|sense)"
)
_MORE = rf"(?:more|most)\s+{_QUALITY}|better|best|closer|closest"
_LESS = rf"(?:less|least)\s+{_QUALITY}|worse|worst"
_WORSE = rf"{_LESS}|implausible|unlikely|improbable|impossible|unrealistic|illogical|wrong|incorrect|not\b"
_NEGATED_VERB = (
    r"(?:does|do|did|would|could|can|should|will)\s*(?:not|n't)\b|doesn't|isn't|cannot|can't|won't|wouldn't|"
    r"contradicts?\b|conflicts?\s+with"
)
_CUE_NOUN = (
    r"(?:one|image|hypothesis(?:\s+image)?|option|choice|answer|effect|cause|cue(?:\s+phrase)?|phrase|picture|"
    r"scenario|candidate|panel)"
)
_CUE = (
    r"(?:final\s+|correct\s+|my\s+|the\s+)?(?:answer|choice|selection|prediction|verdict|label|classification|conclusion|decision)"
    r"|final(?=\s*:)"
    r"|correct\s+(?:option|one|image|hypothesis|phrase|cue)"
    r"|best\s+(?:match|fit|option|choice|answer)|(?:that|which)\s+(?:best\s+(?:fits|matches)|(?:fits|matches)\s+best)|(?:effect|cause)(?:\s+of\s+the\s+\w+(?:\s+image)?)?|cue(?:\s+phrase)?"
)
# "the more plausible image", "most likely": a cue only with "is" ("X is more plausible: because ..." states nothing)
_QUALITY_CUE = rf"(?<!less )(?<!least )(?:(?:more|most)\s+)?{_QUALITY}(?:\s+{_CUE_NOUN})?"
_ARTICLE = r"(?:(?:the|a|an)\s+)?"
# words set off between an answer and its verb: ", showing the girl with a cast,", " - the couple cutting the cake -"
# (a verdict pattern's part: its braces are doubled for :func:`_verdicts`)
_APPOSITIVE = r"(?:\s*(?:,|\s-)\s*(?:which\s+|that\s+)?[^,\-.;:!?\n«‹]{{1,80}}?(?:,|\s-))?"

# Statements of the answer: "Answer: 2", "the more plausible image is 1", "The correct option is #3",
# "Effect: Option 4", "the cause of the effect image is 2", "### Answer\nImage 1", "More plausible: Image 2".
STATEMENTS = _verdicts(
    rf"\b(?:{_CUE})\s*(?:is|(?:would|should|must)\s+be)?(?:\s+(?:(?:shown|depicted|pictured|seen)\s+)?in)?\s*[:=→-]?\s*{_ARTICLE}{{pick}}",
    # "→ 3" ending a table or a list of checks
    r"→\s*{pick}(?=\s*(?:[.!;]|$))",
    # "Option 3 shows curtains on fire, which is the effect."
    r"{pick}[^.;\n]{{0,80}}?,\s*which\s+(?:is|would\s+be)\s+the\s+(?:answer|effect|cause|cue|correct\s+one)(?=\s*(?:[.!;]|$))",
    rf"\b{_QUALITY_CUE}\s*(?:is|would\s+be)\s*[:=-]?\s*{_ARTICLE}(?:one\s+)?{{pick}}",
    rf"(?:^|(?<=[.!?;]))\s*(?:the\s+)?{_QUALITY_CUE}\s*[:=-]\s*{_ARTICLE}{{pick}}",
    # "2 is more plausible", "Option 3 is the most likely cause", "1 is closer", "image 1 makes more sense"
    # (not "image 1 is more likely to be in the morning": a property, not the answer)
    # "The second picture, the first hypothesis, is the more plausible one"
    rf"{{pick}}\s*[,-]?\s*{_COPULA}\s+{_ARTICLE}(?:{_MORE}|correct|the\s+(?:answer|effect|cause|cue|link))\b(?!\s+to\s+(?:be|have)\b)",
    # "Therefore, Option 3 shows the effect."
    r"{pick}\s+(?:shows|depicts|represents|illustrates|is)\s+the\s+(?:effect|cause|cue)(?=\s*(?:[.!;,]|$))",
    # "I find the rightmost panel more plausible", "I consider image 2 (to be) the more plausible one"
    rf"\b(?:find|consider|deem|judge)\s+{_ARTICLE}{{pick}}\s+(?:to\s+be\s+)?{_ARTICLE}(?:{_MORE})\b",
    # "1 is less plausible than 2"; "2 is more plausible than 1"
    rf"{{reject}}\s*{_COPULA}\s+(?:{_LESS})\s+than\s+(?:that\s+of\s+)?{_ARTICLE}{{pick}}",
    rf"{{pick}}\s*{_COPULA}\s+{_ARTICLE}(?:{_MORE})\s+than\s+{_ARTICLE}{{reject}}",
    # "Middle image: more plausible", "Image 2 → more plausible"
    rf"{{pick}}\s*[:→-]\s*(?:{_MORE})\b",
    # "not 1 but 2", "Not option 2, which shows a dry road, but option 4"
    rf"\bnot\s+{_ARTICLE}{{reject}}[^.;\n]{{{{0,80}}}}?\bbut\s+(?:rather\s+)?{_ARTICLE}{{pick}}",
    # the answer's role, then its option: "The effect of the heavy rain in the cause image is Option 3", "The cause is
    # the child throwing the ball shown in Option 1, ...", "The effect image shows the broken vase, which is Option 3."
    # (not "the effect could be in option 2 or 4", "the cause is not in option 1")
    r"\b(?:effect|cause|cue)\b(?:(?!\b(?:could|might|may|perhaps|possibly|if|not|no|or|n't)\b)[^.;:?!\n]){{0,100}}?"
    rf"(?:\bis|\b(?:shown|depicted|pictured|seen)\s+in|,\s*which\s+is)\s+{_ARTICLE}{{named_pick}}(?=\s*(?:[.!;,:]|$))",
    # "I'd go with 2", "I choose image 1", "I lean towards 1", "it must be option 2", "I'll change my answer to 2"
    rf"\b(?:choose|chose|select|pick|go\s+with|going\s+with|settle\s+on|opt\s+for|lean(?:ing)?{_ADVERBS}\s+towards?|must\s+be"
    rf"|(?:chang|switch|revis)\w*(?:\s+(?:my\s+answer|it))?\s+to"
    rf"|(?:i'd|i\s+would|i'll|i\s+will|i'm\s+going\s+to)\s+say|classif(?:y|ied)(?:\s+(?:it|this|the\s+update))?\s+as)\s*,?\s+(?:with\s+)?{_ARTICLE}{{pick}}",
    # "the right one better matches the context", "option 2 fits best", "image 2 - the couple cutting the cake - is the
    # one that fits the wedding best", "The right image, showing the girl with a cast, better explains the crutches"
    rf"{{pick}}{_APPOSITIVE}\s+(?:(?:better|best)\s+(?:match|fit|suit|explain)\w*|(?:matches|fits|suits)\s+(?:better|best))\b",
    rf"{{pick}}{_APPOSITIVE}\s+is\s+the\s+one\s+(?:that|which)\s+(?:(?:better|best)\s+\w+|\w+(?:\s+[^\W\d_]+){{{{0,4}}}}\s+(?:better|best))\b",
)

# Words that start a self-correction ("Wait,", "Actually,", "On second thought").
_CORRECTION_WORDS = (
    r"wait|actually|on\s+(?:second\s+thought|reflection|closer\s+(?:inspection|look))|correction|re-?reading"
    r"|looking\s+again|scratch\s+that|let\s+me\s+reconsider|i\s+was\s+wrong|(?:sorry\s*,?\s+)?i\s+meant?|sorry"
    r"|(?:i'll|i\s+will|let\s+me|i\s+need\s+to)\s+(?:revise|correct)(?:\s+(?:that|this|it|myself|my\s+answer))?"
    r"|thinking\s+(?:about\s+it\s+)?(?:more|again|further)|on\s+further\s+(?:thought|reflection)"
    r"|(?:revised|updated|corrected)(?=\s+(?:score|rating|answer)\b)"
    r"|(?:(?:so|thus|hence|therefore)\s*,?\s+)?(?:the\s+|my\s+)?final\s+(?:answer|choice|verdict|decision|rating|score)"
)

# Other verdicts that choose or reject an option or label.
VERDICTS = _verdicts(
    # "Less plausible: Image 1", "Right image: less plausible"
    rf"\b(?:{_LESS}|implausible|unlikely|improbable)\s*:\s*{_ARTICLE}{{reject}}",
    rf"{{reject}}\s*[:→-]\s*(?:{_LESS}|implausible|unlikely|improbable)\b",
    # "Image 2 is implausible", "Option 2 is not the effect", "Image 1 does not make sense"
    rf"{{reject}}\s*(?:{_COPULA}\s+(?:{_WORSE})|{_NEGATED_VERB})",
    # "not a strengthener", "neither 1 nor 2", "rather than 1", "instead of 1", "doesn't strengthen"
    rf"(?:\b(?:not|neither|nor|rather\s+than|instead\s+of)|n't)\s+{_ARTICLE}{{reject}}",
    # "Probably 2, but I'm not sure": a probable pick is a pick ("maybe 3?" is a guess, no pick)
    rf"\b(?:most\s+)?(?:probably|likely)\s*,?\s+{_ARTICLE}{{pick}}(?=\s*(?:[.,;!)]|$))",
    # "options 2 and 4 both show water, but only option 4 ..."
    rf"\bbut\s+only\s+{_ARTICLE}{{pick}}",
    # a yes or no for an option (a table row, a checklist): "| 2 | Yes |", "Option 3 - yes, ...", "Option 1: ✅"
    # (a check mark without a separator on the same line: "Weakener ❌ / Strengthener ✅")
    r"{pick}(?:\s*[|:→-]\s*(?:yes|true|correct|high|higher)(?=\s*(?:[|.,;!]|$))"
    r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✓✔✅☑])",
    r"{reject}(?:\s*[|:→-]\s*(?:no|false|incorrect|low|lower)(?=\s*(?:[|.,;!]|$))"
    r"|(?:[ \t]*[|:→-])?[ \t]*(?<!\n)[✗✘❌☒])",
    r"(?:^|(?<=[|]))\s*[✓✔✅☑]\s*{pick}",  # "✅ Image 2"
    r"^\s*\[[xX✓]\]\s*{pick}",  # a checklist: "- [x] 3. slippery floor"
    r"^\s*\[\s\]\s*{reject}",
    # a table row of an option whose last cell is a check mark: "| 3 | A man lifting weights | ✓ |"
    r"^\s*\|?\s*{pick}\s*\|[^\n]*\|\s*[✓✔✅☑]\s*\|?\s*$",
    r"^\s*\|?\s*{reject}\s*\|[^\n]*\|\s*[✗✘❌☒]\s*\|?\s*$",
    r"(?:^|(?<=[|]))\s*[✗✘❌☒]\s*{reject}",
    # a ranking: "2 > 1", "1 < 2"
    r"{pick}\s*>\s*{reject}",
    r"{reject}\s*<\s*{pick}",
    # "I would not pick image 2", "I wouldn't choose option 1", "never go with 3": a choice declined
    r"(?:\b(?:not|never)|n't)\s+(?:choose|chose|select|pick|go\s+with|opt\s+for)\s+(?:the\s+)?{reject}",
    # "not 1 or 2": the negation holds for the whole list
    rf"(?:\b(?:not|neither)|n't)\s+{_ARTICLE}[«‹][\U000f0000-\U000ffffd][»›]\s*,?\s+(?:or|nor|and)\s+{_ARTICLE}{{reject}}",
    # "No - weakener.", "No, image 2." after a question
    rf"(?:^|(?<=[.!?;]))\s*no\s*[-,:]\s*(?:it's\s+|it\s+is\s+)?{_ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
    # "..., so 2." / "Therefore, weakener."
    rf"\b(?:so|thus|hence|therefore)\s*[,:]?\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!;]|$))",
    # "it is a weakener", "it's the earthquake", "this is clearly option 2"
    rf"\b(?:it|this|that)(?:\s+is|'s)(?:\s+(?:clearly|definitely|probably|actually))?\s+{_ARTICLE}{{named_pick}}",
    # "I think it's 3.", "It's 4 - the dog ..."
    rf"\b(?:it|this|that)(?:\s+is|'s)\s+{_ARTICLE}{{pick}}(?=\s*(?:[.!;,:]|$)|\s+-\s)",
    # the answer a self-correction gives: "Actually, no - it's 2", "Wait, option 3", "actually, strengthener"
    rf"\b(?:{_CORRECTION_WORDS})\s*[,:-]?\s*(?:(?:no|yes)\s*[,:-]?\s*)?(?:(?:it's|it\s+is|make\s+(?:it|that)|is)\s+)?{_ARTICLE}{{pick}}"
    r"(?=\s*(?:[.!;,)]|$)|\s+-\s)",
    # "which might seem to strengthen it", "could be read as a strengthener": a concession, not the verdict
    rf"\b(?:might|may|could)\s+(?:seem|appear|look|be\s+(?:read|seen|considered|interpreted|viewed|taken))\s+(?:to\s+be\s+|to\s+|like\s+|as\s+)?{_ARTICLE}{{reject}}",
)

# Answers standing alone: at the start of a line (or after ";") before punctuation ("2.", "Option 3: ...",
# "2 (the right image)", "Weakener. The ..."), or as a whole sentence ("... ? Weakener.").
ALONE = _verdicts(
    r"^[ \t]*{pick}(?=\s*(?:[.:)!,;(-]|$))",
    r"(?:(?<=[.!?;])|^)\s*{pick}\s*(?=[.!;]|$)",  # "Strengthener?" asks, it does not answer
)

# A label's own statement: "the update weakens the hypothesis".
LABEL_STATEMENTS = _verdicts(
    r"{named_pick}\s+(?:the|this|that|our)\s+(?:hypothesis|inference|claim|conclusion|idea|notion|assumption)\b"
)
# Verbs that say what a label's verb says ("supports the idea" strengthens it). They name no label, but a label whose
# own explanation states the other label's effect with them ("weakener ... which supports the idea that ...") is
# contradictory: no answer.
LABEL_VERBS = {
    "strengthen": "support|reinforce|bolster|corroborate|confirm",
    "weaken": "undermine|contradict|refute|challenge|cast doubt on",
}
# Phrases that state a label's effect on the hypothesis without its verb ("makes the hypothesis more likely"); a label
# whose explanation states the other effect with them is contradictory as with LABEL_VERBS.
_HYPOTHESIS_NOUN = (
    r"(?:the|this|that|her|his|their|our)\s+(?:idea|notion|assumption|hypothesis|inference|claim|conclusion)\b"
)
LABEL_EFFECTS = {
    "strengthen": (
        rf"makes?\s+{_HYPOTHESIS_NOUN}\s+(?:much\s+|even\s+|far\s+)?more\s+(?:likely|plausible|probable|credible)"
        rf"|makes?\s+it\s+(?:much\s+|even\s+|far\s+)?more\s+(?:likely|plausible|probable)\s+that\s+{_HYPOTHESIS_NOUN}"
        rf"|(?:increases?|raises?)\s+the\s+(?:likelihood|probability|plausibility)\s+(?:of|that)\b"
    ),
    "weaken": (
        rf"makes?\s+{_HYPOTHESIS_NOUN}\s+(?:much\s+|even\s+|far\s+)?(?:less\s+(?:likely|plausible|probable|credible)"
        r"|unlikely|implausible|improbable)"
        rf"|makes?\s+it\s+(?:much\s+|even\s+|far\s+)?less\s+(?:likely|plausible|probable)\s+that\s+{_HYPOTHESIS_NOUN}"
        rf"|(?:decreases?|lowers?|reduces?)\s+the\s+(?:likelihood|probability|plausibility)\s+(?:of|that)\b"
    ),
}
# A concession names a label without choosing it: "although it might strengthen ...", "one could argue it weakens".
LABEL_CONCESSIONS = _verdicts(r"\b(?:might|may|could|although|though|even\s+if)\b[^.;,\n]{{0,60}}?{reject}")

# Headings of a description, "Image 1: a man ... Image 2: a woman ...": answers standing alone among them enumerate.
HEADINGS = _verdicts(r"(?:^|(?<=[.!?;]))\s*{pick}\s*:")[0]
_QUESTION = re.compile(r"[^.!?\n]*\?")
# A concession: "Although image 1 is more plausible at first glance, ...", "At first, 1 seems better, but ...".
_CONCESSION = re.compile(
    r"(?:^|(?<=[.!?;:]))\s*(?:although|though|even\s+though|even\s+if|while|whereas)\b[^.;,\n]*"  # sentence-initial
    r"|\b(?:at\s+first(?:\s+(?:glance|sight))?|initially)\b[^.;\n]*?(?=[.;\n]|\bbut\b|$)",
    _FLAGS,
)

# Hedges: without a pick, a reply that says these chooses nothing even if it names one option.
HEDGES = tuple(
    re.compile(pattern, _FLAGS)
    for pattern in (
        r"\b(?:both|either)\b[^.;\n]*\b(?:could|can|plausible|possible|likely|fit|work|valid|reasonable)\b",
        r"\bequally\b",
        r"\b(?:can\s*not|can't|unable\s+to|impossible\s+to|hard\s+to|difficult\s+to)\s+(?:tell|determine|decide|say|choose)\b",
        r"\bnot\s+sure\b",
        r"(?<!\bnot )(?<!\bneither )[«‹][\U000f0000-\U000ffffd][»›]\s*,?\s+or\s+[«‹][\U000f0000-\U000ffffd][»›]",
    )
)

# After the last self-correction, a refusal to choose gives no answer whatever the reply picks elsewhere
# ("... Because both orders are allowed, I cannot determine which is more plausible"); a doubt does unless a statement
# of the answer follows it ("I'm unable to judge whether the update strengthens or weakens it", "Either option 2 or
# option 4 could be the effect"; but "I can't tell whether it is morning from image 1 alone. Image 2 is more
# plausible." answers 2).
_DECIDE = r"(?:determine|tell|judge|decide|say|choose|assess|know)"
_CANNOT = r"\b(?:can\s*not|can't|could\s*not|couldn't|unable\s+to|impossible\s+to|not\s+possible\s+to|no\s+way\s+to)"
_ANY_REF = r"[«‹][\U000f0000-\U000ffffd][»›]"
_SENTENCE_END = re.compile(r"[.!?;\n]|,?\s+but\b|$", re.IGNORECASE)
# "which" of the answers: "which is more plausible", "which one", "which of the two", "which label applies"
# (not "which details matter")
_WHICH_ANSWER = (
    rf"which\s+(?:{_ANY_REF}|(?:one|ones|of|is|was|would|could|fits|applies|answer|option|image|picture|hypothesis|label|"
    r"cue|phrase|effect|cause|candidate|panel|score|rating)\b)"
)
REFUSALS = tuple(
    re.compile(pattern, _FLAGS)
    for pattern in (
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?{_DECIDE}\s+{_WHICH_ANSWER}",
        # "I cannot determine a single answer", "no way to pick one option"
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?(?:{_DECIDE}|pick|select|give)\s+(?:a|one|the|any)\s+"
        r"(?:single\s+|clear\s+|definitive\s+|correct\s+|right\s+)?(?:answer|option|choice|image|hypothesis|cause|effect|cue)\b",
        # "I can't make out the details well enough to choose"
        rf"{_CANNOT}\b[^.!?\n]{{0,80}}?\benough\s+to\s+(?:{_DECIDE}|pick|select|answer)\b",
        # "None of the options clearly shows the effect" (not "none of the other options")
        r"\bnone\s+of\s+(?:the\s+)?(?:(?:two|four|given|candidate|listed)\s+)?"
        r"(?:options|images|pictures|hypotheses|phrases|candidates|choices|panels)\b(?!\s+(?:other|except|besides|but)\b)",
    )
)
# "None of them can explain it" refuses too, unless the reply has stated its answer before it: then "them" are the other
# options ("3\n\nOptions 1, 2 and 4 show a cat, a cake and a tree; none of them can explain the broken window")
REFUSAL_OF_THE_OTHERS = re.compile(r"\bnone\s+of\s+them\b(?!\s+(?:other|except|besides|but)\b)", _FLAGS)
DOUBTS = (
    # about the answer: "whether the update ... the hypothesis", "if image 1 is more plausible", "whether it holds"
    # (not "whether it is his car")
    re.compile(
        rf"{_CANNOT}\s+(?:\w+\s+){{0,2}}?{_DECIDE}\s+(?:whether|if)\b[^.!?;\n]*?"
        rf"(?:{_ANY_REF}|\b(?:hypothesis|update|inference|plausib\w*|likely|correct|right|true|holds?|better|more|less)\b)",
        _FLAGS,
    ),
    re.compile(rf"\beither\s+{_ANY_REF}\s+or\s+{_ANY_REF}", _FLAGS),
    # "It's difficult to say which is intended"
    re.compile(rf"\b(?:hard|difficult|tough|tricky)\s+to\s+{_DECIDE}\s+{_WHICH_ANSWER}", _FLAGS),
    # a conditional answer: "It depends on the timing. If ..., about 8; if ..., more like 3"
    re.compile(
        r"\b(?:it|that|this|the\s+(?:answer|score|rating))\s+(?:really\s+|all\s+)?depends(?:\s+(?:on|upon)\b|(?=\s*[.,:;!-]))",
        _FLAGS,
    ),
)

# A score's statements: "7/10", "Score: 7", "Rating = 7.5", "The score is 7", "a score of 3".
SCORE_STATEMENTS = _verdicts(
    r"{named_pick}",
    r"{reject}\s*→\s*{pick}",  # "Score: 7 → 8": a rating revised
    # "| Score | 8 |" too
    r"\b(?:score|rating|rank|plausibility|(?:final\s+)?answer)(?:\s+(?:score|rating))?\s*(?:[:=|→]|\bis\b)\s*(?:n\s*=\s*)?{pick}",
    r"\b(?:score|rating)\s+of\s+{pick}",
)

# A score's other verdicts: "I'd give it a 7", "I rate it 6", "rank this an 8", "Very plausible (7)",
# "A 5 seems fair", "around 5", "this is a 9"; "not a 10" rejects.
_SCORE_WORDS = (
    r"(?:scores?|rating|rate[ds]?|rank(?:ed|ing|s)?|plausibility|(?:give|gave|assign(?:ed)?)\s+(?:it|this|that))"
)
_FILLER = (
    r"(?:[\s:=-]|\b(?:is|of|as|at|with|it|this|that|the|a|an|would|be|i|n|my|final|overall|score|rating|plausibility|inference|hypothesis|image|level|value"
    r"|solid|strong|firm|fair|high|low|moderate|modest|generous|conservative)\b)"
)
SCORE_VERDICTS = _verdicts(
    # "I'll lower it to 6", "raising my score to 8"
    r"\b(?:lower|rais|chang|revis|adjust|bump|reduc|increas|decreas|drop|mov|updat)\w*(?:\s+(?:it|this|that|my\s+(?:score|rating|answer)))?(?:\s+(?:down|up))?\s+to\s+(?:a\s+|an\s+)?{pick}",
    r"\b(?:settle|land)\w*\s+on\s+(?:a\s+|an\s+)?{pick}",  # "I'd settle on a 6"
    rf"\b{_SCORE_WORDS}\b{_FILLER}{{{{0,40}}}}?{{pick}}",
    r"\bplausib\w*(?:\s+at\s+all)?\s*\(\s*{pick}\s*\)",
    r"^\s*(?:a|an)\s+{pick}",
    # "70% plausible, which corresponds to a 7 on your scale"
    r"\b(?:corresponds?|corresponding|translates?|equates?|maps?)\s+to\s+(?:a\s+|an\s+)?{pick}",
    r"\b(?:around|about|roughly|approximately|maybe|perhaps|probably|so|thus|hence|therefore|say)\s*,?\s+(?:a\s+|an\s+)?{pick}(?=\s*(?:[.,;!)]|$))",
    r"\b(?:it|this|that)(?:\s+is|'s|\s+would\s+be|\s+deserves)\s+(?:at\s+(?:least|most)\s+)?(?:a|an)\s+{pick}",
    r"\bnot\s+(?:a\s+|an\s+)?{reject}",
)

# A score's own words about the inference, as a share of the scale (the prompt's scale words come first): a rating
# further than JUDGEMENT_TOLERANCE of the scale from them contradicts them ("Score: 9 ... barely plausible").
JUDGEMENTS = {  # share of the scale: the words, separated by |
    0.1: (
        "implausible|not plausible|barely plausible|hardly plausible|not very plausible|unlikely|"
        "very unlikely|highly unlikely|not likely|very implausible|highly implausible"
    ),
    0.85: (
        "very plausible|highly plausible|extremely plausible|very likely|highly likely|almost certain|"
        "almost certainly true|certainly true"
    ),
}
JUDGEMENT_TOLERANCE = 0.4
# Scale words sharing their last word ("between slightly and moderately plausible", "very or highly likely") are
# written out in full, so that the two of them name a range, no rating.
_SHARED_HEAD = re.compile(
    r"\b(?P<first>[a-z]+)\s+(?P<glue>and|or|to)\s+(?P<second>[a-z]+)\s+(?P<head>plausible|likely|probable)\b"
)

# A self-correction ("Wait,", "Actually,", "On second thought"): the picks after it restate the answer.
SELF_CORRECTIONS = re.compile(
    rf"(?:^|(?<=[.!?;:,-]))\s*(?:(?:no|oh|hmm|um|so|but|and)\s*,?\s+)?(?:{_CORRECTION_WORDS})\b",
    _FLAGS | re.MULTILINE,
)
# A reply cut off by the token limit: sentences, then an unfinished one. It names no answer without a pick.
_CUT_OFF = re.compile(r"[.!?]\s.*[^\s.!?)\]|:»›]\s*$", re.DOTALL)
# A reply ending on an article and a word after its sentences is cut off too: "... with the context. The middle"
# or on a prepositional phrase alone ("... a cloudy sky. In the middle panel"), or on a heading ("... Option 1:")
_UNFINISHED = re.compile(
    r"[.!?][ \t]+(?:(?:in|on|at|from|for|to|with|looking\s+at)\s+)?(?:the|a|an)\s+[^\W\d_]+(?:\s+[^\W\d_]+)?\s*$"
    r"|:\s*$"
    # or on a word no sentence ends on ("... and the first hypothesis shows")
    r"|(?<=\w\s)(?-i:the|a|an|and|or|but|of|with|because|since|shows|depicts|showing|depicting)\s*$",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"[«‹][\U000f0000-\U000ffffd][»›]")  # a mention left in the text
# The hypotheses counted ("the second hypothesis image"): the reply's ordinal counts of images ("the second image")
# then count the options too. (Naming the context image by its role does not show how a reply counts: "The second
# image is more plausible. It shows the aftermath seen in the context image." may count the context image first.)
_COUNTS_OPTIONS = re.compile(rf"\b(?:{_ORDINAL})\s+(?:hypothesis|hypotheses|option|candidate)\b", _FLAGS)

# A mention explained by another: "the third image (right)", "Hypothesis 1 (right image)", "3 - heavy rain".
_COLLAPSE = re.compile(
    r"(?P<outer>[«‹][\U000f0000-\U000ffffd][»›])(?:\s+overall|\s+(?:from|on)\s+the\s+(?:left|right))?"
    r"\s*(?:(?:\(|-(?=\s*i\.e\.))\s*(?:the\s+|i\.e\.,?\s+)?(?P<inner>[«‹][\U000f0000-\U000ffffd][»›])\s*[)-]"
    r"|[-:=]\s*(?:the\s+)?(?P<named>«[\U000f0000-\U000ffffd]»)(?=\s*(?:[.,;!)\n]|$)|\s+(?!and\b|or\b)[^\W\d_]))",
    _FLAGS,
)


CONTEXT_ALIAS = 0  # a Choice alias naming the context panel, which is no option ("left" in NL-Eye's combined image)


def _index(placeholder: str) -> int:
    """The mention number of a placeholder («i», ‹i›) or of its index character alone."""
    return ord(placeholder[len(placeholder) // 2]) - _INDEX_BASE


def _decide(
    text: str,
    mentions: list[_Mention],
    statements: Sequence[re.Pattern],
    verdicts: Sequence[re.Pattern],
    valid: Callable[[object], bool],
    values: Sequence[object] | None,
    complement: bool,
    unfinished: bool = False,
) -> object | None:
    """The answer ``text`` (already marked) gives: the last statement of the answer, else the last
    other pick, else the one named option (see the module docstring).

    ``values`` lists every valid answer of a choice or label (None for a score, which needs a pick).
    """

    # "the third image (right)", "the second image (Option 1)": the parenthesis names the answer when the
    # outer mention is not valid or counts images (which may count the context image too). A number its own
    # explanation contradicts ("Hypothesis 1 (right image)" where right is 2, "3 - heavy rain" where heavy rain is
    # option 1) names no answer.
    def collapse(match: re.Match) -> str:
        explained = match["inner"] or match["named"]
        outer, inner = mentions[_index(match["outer"])], mentions[_index(explained)]
        if values is not None and inner.value == CONTEXT_ALIAS and valid(outer.value):
            mentions.append(_Mention(None, True))  # "Image 1 (the left one)", where the left panel is the context
            return f"{_OPEN}{chr(_INDEX_BASE + len(mentions) - 1)}{_CLOSE}"
        if values is not None and valid(inner.value) and valid(outer.value) and inner.value != outer.value:
            if not outer.image:
                mentions.append(_Mention(None, True))
                return f"{_OPEN}{chr(_INDEX_BASE + len(mentions) - 1)}{_CLOSE}"
        if match["inner"] and valid(inner.value) and (outer.image or not valid(outer.value)):
            return match["outer"][0] + match["inner"][1] + match["outer"][-1]  # named as the outer mention is
        return match["outer"] if match["inner"] else match.group()

    text = _COLLAPSE.sub(collapse, text)
    corrections = [match.end() for match in SELF_CORRECTIONS.finditer(text)]
    corrected = max(corrections, default=len(text))
    if any(pattern.search(text, max(corrections, default=0)) for pattern in REFUSALS):
        return None
    # "none of them" after the last self-correction: a refusal, unless a statement of the answer comes between them
    refused = [match.start() for match in REFUSAL_OF_THE_OTHERS.finditer(text, max(corrections, default=0))]
    # where the last doubt's sentence ends: a statement after it outweighs the doubt
    doubted = max(
        (
            _SENTENCE_END.search(text, match.end()).end()
            for pattern in DOUBTS
            for match in pattern.finditer(text, max(corrections, default=0))
        ),
        default=None,
    )
    cut_off = unfinished or _CUT_OFF.search(text) or _next_item_cut(text, mentions)
    # "Image 2 is more plausible?" asks; "Although 1 is more plausible at first glance, ..." concedes: no picks
    questions = [match.span() for pattern in (_QUESTION, _CONCESSION) for match in pattern.finditer(text)]
    picks: list[tuple[bool, int, int]] = []  # (a statement of the answer, position, mention)
    rejected: set[int] = set()
    for strong, patterns in ((True, statements), (False, verdicts)):
        for pattern in patterns:
            for match in pattern.finditer(text):
                found = match.groupdict()
                if found.get("reject"):
                    rejected.add(_index(found["reject"]))
                if found.get("pick") and not any(start <= match.start("pick") < end for start, end in questions):
                    picks.append((strong, match.start("pick"), _index(found["pick"])))
    # Answers standing alone count when they name one valid answer: several (or several headings "Image 1: ...")
    # are an enumeration.
    alone = [
        (True, match.start("pick"), _index(match["pick"])) for pattern in ALONE for match in pattern.finditer(text)
    ]
    alone = _without_list_numbers(text, mentions, alone)
    headings = {mentions[_index(match["pick"])].value for match in HEADINGS.finditer(text)}
    # "Option 5." of four options, standing as the reply's answer (after its last self-correction): the reply commits
    # to an option that does not exist, and names no answer, unless it states a valid answer after it ("Option 5 ...
    # So the answer is Option 2") or the invented option heads one item of a description ("Option 1: a cat. ...
    # Option 5: an umbrella.")
    last_alone = [pick for pick in alone if pick[1] >= corrected] if corrections else alone
    invented = [position for _, position, index in last_alone if _no_option(mentions[index], valid)]
    if (
        values is not None
        and invented
        and len(headings) < 2
        and not any(
            strong and position > max(invented) and valid(mentions[index].value) for strong, position, index in picks
        )
    ):
        return None
    alone = [pick for pick in alone if valid(mentions[pick[2]].value)]
    # the answers standing alone after a self-correction stand for the reply's; none on the unfinished last line of a
    # reply cut off mid-sentence (the heading of a description it never finished: "Middle (hypothesis 1): Children")
    if cut_off:
        alone = [pick for pick in alone if pick[1] < text.rfind("\n")]
    alone = [pick for pick in alone if pick[1] >= corrected] or alone
    if len({mentions[index].value for _, _, index in alone} | headings) == 1:
        picks += alone
    # the reply's count of the context image ("Image 1 is the cause image") is no pick
    picks = [
        pick
        for pick in picks
        if pick[2] not in rejected and not mentions[pick[2]].context and not mentions[pick[2]].passing
    ]
    if doubted is not None and not any(strong and position > doubted for strong, position, _ in picks):
        return None
    since = max(corrections, default=0)
    if any(not any(strong and since <= position < start for strong, position, _ in picks) for start in refused):
        return None
    if picks:
        # The final committed answer: the picks after the last self-correction if any, its statements if any.
        # Picks that disagree without a self-correction between them are a contradictory reply: no answer.
        final = [pick for pick in picks if pick[1] >= corrected] or picks
        final = [pick for pick in final if pick[0]] or final if values is None else final
        chosen = {mentions[index].value for _, _, index in final}
        value = chosen.pop() if len(chosen) == 1 else None
        return value if valid(value) else None
    if values is None:
        return None
    if cut_off:
        return _repeated(text, mentions, valid) if not rejected else None
    rejected_values = {mentions[index].value for index in rejected} & set(values)
    named_left = [
        mentions[_index(placeholder)].value for placeholder in _PLACEHOLDER.findall(text) if placeholder[0] == _OPEN
    ]
    named = {value for value in named_left if valid(value)} - rejected_values
    if not named and complement and len(values) == 2 and len(rejected_values) == 1:
        return (set(values) - rejected_values).pop()
    # "2. heavy rain" (phrase 1): an answer standing alone that the one named answer contradicts
    standing = {mentions[index].value for _, _, index in alone} - rejected_values
    if len(named) == 1 and standing <= named and not any(hedge.search(text) for hedge in HEDGES):
        return named.pop()
    return None


def _no_option(mention: _Mention, valid: Callable[[object], bool]) -> bool:
    """An option named by its number that no option has ("Option 5" of four; not a bare number, an image count or the
    context panel)."""
    value = mention.value
    return (
        mention.named
        and not mention.image
        and isinstance(value, int)
        and not isinstance(value, bool)
        and value != CONTEXT_ALIAS
        and not valid(value)
    )


# A numbered list: bare numbers 1, 2, 3, ... heading consecutive items at the starts of lines ("1. The cause image")
_LIST_NUMBER = re.compile(r"^[ \t]*‹[\U000f0000-\U000ffffd]›[.)][ \t]+\S", re.MULTILINE)


def _without_list_numbers(
    text: str, mentions: list[_Mention], alone: list[tuple[bool, int, int]]
) -> list[tuple[bool, int, int]]:
    """The answers standing alone, less the numbers of a numbered list of two or more items counted from 1 ("Option
    4.\n\n1. The cause image shows ...\n2. Option 4 depicts ..."): they number the reasons, they are no answers."""
    indexes = [match.start() + match.group().index("‹") + 1 for match in _LIST_NUMBER.finditer(text)]
    numbers = [mentions[_index(text[index])].value for index in indexes]
    if len(numbers) < 2 or numbers != list(range(1, len(numbers) + 1)):
        return alone
    return [pick for pick in alone if pick[1] not in indexes]  # a pick's position is its mention's index character


# The last words of a reply: an answer's name alone after a sentence, on the same line, with no full stop
_ENDS_ON_A_NAME = re.compile(r"[.!?][ \t]+([«‹][\U000f0000-\U000ffffd][»›])[ \t]*\Z")
_SENTENCE_HEAD = re.compile(r"(?:^|(?<=[.!?]))\s*([«‹][\U000f0000-\U000ffffd][»›])(?=\s+[^\W\d_])", re.MULTILINE)


def _next_item_cut(text: str, mentions: list[_Mention]) -> bool:
    """A reply that goes through the answers one sentence each ("Hypothesis 1 states ...") and stops on the next
    one's name ("... Hypothesis 2"): cut off by the token limit, its last word is no answer."""
    end = _ENDS_ON_A_NAME.search(text)
    if end is None:
        return False
    last = mentions[_index(end[1])].value
    heads = {mentions[_index(match[1])].value for match in _SENTENCE_HEAD.finditer(text, 0, end.start(1))}
    return bool(heads - {last, None})


def _repeated(text: str, mentions: list[_Mention], valid: Callable[[object], bool]) -> object | None:
    """The one answer every complete sentence of a reply cut off in a repetition loop names ("Option 3 shows the
    effect. Option 3 shows the effect. Option 3 shows the"), else None."""
    ended = max((match.end() for match in re.finditer(r"[.!?](?=\s)", text)), default=0)
    sentences = [sentence for sentence in re.split(r"(?<=[.!?])\s+", text[:ended]) if sentence.strip()]
    named = [
        {mentions[_index(placeholder)].value for placeholder in _PLACEHOLDER.findall(piece) if placeholder[0] == _OPEN}
        for piece in [*sentences, text[ended:]]
    ]
    if len(sentences) < 2 or not all(named[:-1]) or any(hedge.search(text) for hedge in HEDGES):
        return None
    values = set().union(*named)
    return values.pop() if len(values) == 1 and valid(next(iter(values))) else None


# An option text named in passing names no option: as part of describing an image ("The cause image shows children at
# a birthday party", "In the effect image there is broken glass") or as the consequence ("..., which led to the broken
# glass", "the effect is broken glass"), in the words of its clause before it (the clause ends at a sentence's end or
# at ", and", ", which", ...), unless the clause names the answer's role ("the cue that explains the effect is ...",
# "the fall caused by the slippery floor") or the text goes on to say so ("heavy rain, which explains the flood").
_CLAUSE_END = re.compile(r"[.;!?\n]|,\s+(?:and|but|so|which|while|whereas|because|since|as)\b|\s-\s", re.IGNORECASE)
IN_PASSING = re.compile(
    r"\b(?:shows?|showing|shown|depicts?|depicting|depicted|features?|featuring|displays?|displaying|portrays?|portraying)\b"
    r"|\b(?:in|on)\s+the\s+(?:\w+\s+){0,2}?(?:image|picture|photo|panel|scene)\b|\bthere\s+(?:is|are|was|were)\b"
    r"|\bwe\s+(?:can\s+)?see\b"
    r"|\b(?:led|leads|leading)\s+(?:\w+\s+)?to\b|\bresult(?:s|ed|ing)?\s+in\b|\bcausing\b|\bhence\b"
    r"|\b(?:effect|result|consequence|outcome)s?\b[^«‹]{0,60}?(?:\b(?:is|was|are|were)\b|:)",
    re.IGNORECASE,
)
_ROLE_NAMED = re.compile(
    r"\b(?:cue|link|linking|links|connection|connects|phrase|answer|explains?|explanation|explaining)\b"
    r"|\b(?:caused|explained|triggered)\s+by\b|\b(?:due|owing|thanks)\s+to\b|\bbecause\s+of\b",
    re.IGNORECASE,
)
_ROLE_AFTER = re.compile(
    r"\s*,?\s*(?:(?:which|that|is\s+what)\s+)?(?:(?:clearly|directly|best)\s+)?"
    r"(?:explains?|links?|connects?|accounts?\s+for|is\s+the\s+(?:cue|link|answer|key|reason|connection))\b",
    re.IGNORECASE,
)


def _in_passing(mentions: list[_Mention], marked: str) -> list[_Mention]:
    """The mentions with the option texts named in passing (see :data:`IN_PASSING`) naming nothing."""
    passing = set()
    for match in _PLACEHOLDER.finditer(marked):
        index = _index(match.group())
        if not mentions[index].text:
            continue
        start = max((end.end() for end in _CLAUSE_END.finditer(marked, 0, match.start())), default=0)
        clause = marked[start : match.start()]
        if IN_PASSING.search(clause) and not _ROLE_NAMED.search(clause) and not _ROLE_AFTER.match(marked, match.end()):
            passing.add(index)
    return [
        _Mention(None, True, passing=True) if index in passing else mention for index, mention in enumerate(mentions)
    ]


# ---------------------------------------------------------------- answer kinds


def _option_text(option: str) -> str:
    """An option's text as a reply quotes it: plain, without its closing full stop ("The man is wet.")."""
    return _plain(option).rstrip(".!")


def _alternatives(words: Sequence[str]) -> str:
    """Words as a regex alternation, longest first, each word's spaces matching any white space."""
    return "|".join(r"\s+".join(map(re.escape, word.split())) for word in sorted(words, key=len, reverse=True))


class _Reader:
    """Shared ``read``: failures and JSON first, then mentions, verdicts and the decision.

    A kind provides its mention and verdict tables, ``_valid`` (is a value a valid answer) and
    ``_values`` (every valid answer of a choice or label; None for a score, which needs a pick).
    """

    _mention_rules: tuple[_MentionRule, ...]
    _statement_rules: tuple[re.Pattern, ...]
    _verdict_rules: tuple[re.Pattern, ...]
    _values: tuple | None
    _ignore: re.Pattern | None = None  # text that names no answer: the question's list of answers, a score's scale
    _complement: bool = False  # of two answers, rejecting one picks the other (a forced choice)
    _answer_words: tuple[str, ...] = ()  # the words that name answers, read through typos

    def _valid(self, value: object) -> bool:
        raise NotImplementedError

    def _revise(self, mentions: list[_Mention], text: str = "", marked: str = "") -> list[_Mention]:
        """The mentions as this kind reads them, knowing all of them, the reply's ``text`` and the text as
        ``marked``."""
        return mentions

    def read(self, text: str) -> object | None:
        """The answer a person reads in ``text``, or None (see the module docstring)."""
        if is_request_failure(text) or not isinstance(text, str):
            return None
        text = _reply_part(text)
        answer = _THINK.sub(" ", text)
        text = answer if answer.strip() or "</think>" not in text.lower() else text
        json_answer = _json_answer(text)
        # a JSON answer is a statement of the answer: {"choice": "B"} reads as "Answer: B"
        plain = _plain(_translate(f"Answer: {json_answer}" if json_answer is not None else text))
        if self._ignore is not None:
            plain = self._ignore.sub(" ", plain)
        if self._answer_words:
            plain = _spell(plain, self._answer_words)
        marked, mentions = _mark(plain, self._mention_rules)
        return _decide(
            marked,
            self._revise(mentions, plain, marked),
            self._statement_rules,
            self._verdict_rules,
            self._valid,
            self._values,
            self._complement,
            bool(_UNFINISHED.search(plain)),
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

    @property
    def _answer_words(self) -> tuple[str, ...]:
        return (*(_option_text(option) for option in self.option_texts), *TYPO_VOCABULARY)

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
        listed = r"\s*,\s*".join(str(number) for number in range(1, self.n))
        whole_range = rf"\b{_OPTION_NOUN}\s*1\s*(?:-|to|through|thru)\s*(?:{_OPTION_NOUN}\s*)?{self.n}(?![\w.,])"
        return re.compile(rf"\(?(?<![\w.,]){listed}\s*,?\s*or\s+{self.n}(?![\w.,])\s*\)?|{whole_range}", _FLAGS)

    @property
    def _values(self) -> tuple[int, ...]:
        return tuple(range(1, self.n + 1))

    def _revise(self, mentions: list[_Mention], text: str = "", marked: str = "") -> list[_Mention]:
        if self.option_texts:
            mentions = _in_passing(mentions, marked)
        images = [mention.value for mention in mentions if mention.image and isinstance(mention.value, int)]
        # "the third image" of two options, "the first image (the context)": the reply counts the context image too
        # (an image beyond all those shown, "the fourth image" of three, is invented: it shows nothing of how it counts)
        shown = self.n + self.context_images if self.context_images else None
        counts_context = any(self.n < value <= (shown or value) for value in images) or any(
            mention.context for mention in mentions
        )
        if not self.option_texts and not counts_context and not self.context_images:
            return mentions
        # "The second image is more plausible. The first hypothesis image shows ...": a reply that counts the
        # hypotheses counts the options with its ordinals
        if self.image_numbers and not self.option_texts and not counts_context and _COUNTS_OPTIONS.search(text):
            return mentions
        numbered = self.image_numbers and not self.option_texts
        shift = self.context_images if counts_context and not self.option_texts else None

        def revised(mention: _Mention) -> _Mention:
            if not mention.image or not (shift or not numbered or mention.ordinal):
                return mention  # "image 2" numbers the options as the prompt does
            # a count of the images shown ("the second image") may count the context image or not: no answer
            value = mention.value - shift if shift and isinstance(mention.value, int) else None
            # the count of the context image itself ("The first image shows the cause") picks no option
            return _Mention(value, mention.named, mention.image, mention.ordinal, mention.context or value == 0)

        return [revised(mention) for mention in mentions]

    @cached_property
    def _mention_rules(self) -> tuple[_MentionRule, ...]:
        # letters as option positions: A to the last option's letter after an option noun ("Option B"), any with
        # ``letters`` (the prompt lists letters)
        letter = "(?-i:[A-Z])" if self.letters else f"(?-i:[A-{chr(ord('A') + self.n - 1)}])"
        label = rf"{_NUMBER}|{_NUMBER_WORD}|{letter}\b(?!')"
        positions = {
            **({"former": 1, "latter": 2} if self.n == 2 else {}),
            # the options shown as images in a row after the context: the rightmost is the last
            **({"rightmost": self.n, "right-most": self.n} if not self.aliases and not self.option_texts else {}),
            **{word.lower(): option for word, option in self.aliases.items()},
        }
        position = _alternatives(list(positions)) if positions else None

        def number(token: str) -> int:
            token = token.strip().lower()
            if token.isdigit():
                return int(token)
            if token in _NUMBER_WORDS:
                return _NUMBER_WORDS[token]
            return ord(token.upper()) - ord("A") + 1  # a letter

        def ordinal(token: str) -> int:
            token = token.lower()
            return _ORDINALS[token] if token in _ORDINALS else int(re.sub(r"\D", "", token))

        def rule(
            pattern: str,
            value: Callable[[re.Match], object],
            named: bool = True,
            image: bool = False,
            ordinal: bool = False,
            context: bool = False,
            text: bool = False,
        ) -> _MentionRule:
            return _MentionRule(re.compile(pattern, _FLAGS), value, named, image, ordinal, context, text)

        rules = []
        if self.option_texts:  # longest first: "catch cold" is one mention, not "cold" inside it
            texts = {_option_text(option).lower(): index for index, option in enumerate(self.option_texts, start=1)}
            rules.append(
                rule(
                    rf"(?<!\w)(?:{_alternatives(list(texts))})(?!\w)",
                    lambda m: texts[" ".join(m.group().lower().split())],
                    text=True,
                )
            )
        if position:
            word = rf"(?P<word>{position})(?:-?most|-hand(?:\s+side)?)?"
            rules += [
                rule(
                    rf"\b(?:on|in|at|from|to)\s+the\s+{word}\b(?:\s+{_ORDINAL_NOUN}\b)?",
                    lambda m: positions[m["word"].lower()],
                ),
                rule(rf"\b(?:the\s+)?{word}\s+{_ORDINAL_NOUN}\b", lambda m: positions[m["word"].lower()]),
                rule(rf"\bthe\s+{word}\b(?!\s+(?:{_POSITION_NOT_PANEL})\b)", lambda m: positions[m["word"].lower()]),
            ]
        one = rf"(?:\(\s*(?:{label})\s*\)|(?:{label}))"
        glue = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)"
        labels = rf"(?P<labels>{one}(?:{glue}{one})*)"

        def numbers(match: re.Match) -> list[int]:
            return [number(token) for token in re.findall(label, match["labels"], _FLAGS)]

        last_noun = rf"(?!{_IMAGE_NOUN}\b){_ORDINAL_NOUN}" if self.option_texts else _ORDINAL_NOUN
        rules += [
            # the reply's count of the context image: "the first image (the context)", "Image 1 is the cause image"
            rule(
                rf"\b(?:(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+{_IMAGE_NOUN}|{_IMAGE_NOUN}\s*(?P<number>\d+))"
                r"(?=\s*(?:\(\s*|,?\s+(?:is|being)\s+)(?:the\s+)?(?:context|premise|(?:cause|effect)\s+image)\b)",
                lambda m: ordinal(m["ordinal"]) if m["ordinal"] else int(m["number"]),
                image=True,
                ordinal=True,
                context=True,
            ),
            # the first image named by the context's role, as the prompt names it ("The first image shows a cause"):
            # "The first image (the cause) shows ...", "the first image is the effect"
            *(
                [
                    rule(
                        rf"\b(?:(?:the\s+)?first\s+{_IMAGE_NOUN}|{_IMAGE_NOUN}\s*1(?!\d))"
                        r"(?=\s*(?:\(\s*|,?\s+(?:is|being|shows|showing|depicts)\s+)(?:the\s+)?(?:cause|effect)\b)",
                        lambda m: 1,
                        image=True,
                        ordinal=True,
                        context=True,
                    )
                ]
                if self.context_images
                else []
            ),
            # ... and the context named first, then counted: "the context (first image in the row)", "the context
            # image, i.e. the first picture", "the cause image is the first image"
            rule(
                r"\b(?:context|premise|(?:cause|effect)\s+image)(?:\s+(?:image|panel|picture))?"
                rf"\s*(?:\(\s*|,\s*|\s+(?:is|being)\s+)(?:i\.e\.,?\s+)?(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+{_IMAGE_NOUN}\b",
                lambda m: ordinal(m["ordinal"]),
                image=True,
                ordinal=True,
                context=True,
            ),
            # "Option (3)", "choice three", "phrase #4", "image 2", and lists: "options 2 and 4", "Options 1, 3 and 4"
            rule(rf"\b{_OPTION_NOUN}[ \t]*(?:#\s*|no\.\s*|number\s*[:=]?\s*)?{labels}", numbers),
            rule(rf"\b{_IMAGE_NOUN}[ \t]*(?:#\s*|no\.\s*|number\s+)?{labels}", numbers, image=True),
            rule(rf"(?:#\s*|\bnumber\s+)(?P<label>{_NUMBER}|{_NUMBER_WORD})\b", lambda m: number(m["label"])),
            # "the third option", "the second hypothesis image", "the first one"; "the third image" counts images
            rule(
                rf"\b(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+(?!{_IMAGE_NOUN}\b){_ORDINAL_NOUN}\b",
                lambda m: ordinal(m["ordinal"]),
            ),
            # "the third of the candidate images" counts the options
            rule(
                rf"\b(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+of\s+the\s+(?:candidate|option|hypothesis)\s+{_IMAGE_NOUN}",
                lambda m: ordinal(m["ordinal"]),
            ),
            rule(
                rf"\b(?:the\s+)?(?P<ordinal>{_ORDINAL})\s+{_IMAGE_NOUN}\b",
                lambda m: ordinal(m["ordinal"]),
                image=True,
                ordinal=True,
            ),
            # "the last one", "the final option"; "the last image" too, unless the images are no options
            rule(rf"\b(?:the\s+)?(?:last|final)\s+{last_noun}\b", lambda m: self.n),
            # an ordinal standing alone: "The first.", "the second, because ...", "the second is more plausible"
            rule(
                rf"\bthe\s+(?P<ordinal>{_ORDINAL})(?=\s*(?:[.!,;)]|$)|\s+{_COPULA}\b)", lambda m: ordinal(m["ordinal"])
            ),
        ]
        if position:
            rules.append(
                rule(
                    r"(?<!\ball )(?<!that's )(?<!you're )(?<!\bis )(?<!\bare )"
                    rf"\b(?P<word>{position})(?:-?most|-hand(?:\s+side)?)?\b(?!\s+(?:{_POSITION_NOT_PANEL})\b)",
                    lambda m: positions[m["word"].lower()],
                    named=False,
                )
            )
        # a letter as an option position where a person reads one: "(B)", "Answer: C", "The answer is (B)."
        rules.append(rule(rf"\(\s*{letter}\s*\)", lambda m: number(m.group().strip("() ")), named=True))
        any_case = f"(?i:{letter.removeprefix('(?-i:')}"
        # "B. The child", "D" alone on the first line
        rules.append(rule(rf"\A\s*{letter}(?=[.)]\s|[ \t]*\n)", lambda m: number(m.group()), named=False))
        rules.append(
            rule(
                rf"(?:(?<=answer:)|(?<=answer: )|(?<=answer is )|(?<=choice: )|(?<=choice is )){any_case}"
                r"(?=[ \t]*(?:[.):;,!\n]|$))",
                lambda m: number(m.group()),
                named=False,
            )
        )
        if self.letters:
            # a letter standing as an answer ("Answer: C", "(B)", "D."), not "A man ..." or "I think"
            rules.append(rule(r"(?<![\w'])(?-i:[A-Z])(?=\s*(?:[.):;,]|$))", lambda m: number(m.group()), named=False))
        rules.append(rule(_NUMBER_WORD_ALONE, lambda m: number(m["value"]), named=False))
        rules.append(rule(rf"(?<![\w.,/]){_NUMBER}(?!\s*/)", lambda m: int(m.group()), named=False))
        return tuple(rules)

    _statement_rules = STATEMENTS
    _verdict_rules = VERDICTS
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
    def _answer_words(self) -> tuple[str, ...]:
        return (*self.labels, *self.aliases)

    def describe(self) -> str:
        return "one of the words " + " or ".join(self.labels)

    def _valid(self, value: object) -> bool:
        return value in self.labels

    @property
    def _values(self) -> tuple[str, ...]:
        return self.labels

    @cached_property
    def _mention_rules(self) -> tuple[_MentionRule, ...]:
        words = {label.lower(): label for label in self.labels} | {
            alias.lower(): label for alias, label in self.aliases.items()
        }
        # an agent noun's verb names it too: "weakens", "weakened" name "weakener"
        verbs = {label.lower().removesuffix("er"): label for label in self.labels if label.lower().endswith("er")}
        words = {verb + ending: label for verb, label in verbs.items() for ending in ("", "s", "ed")} | words
        pattern = re.compile(rf"\b(?P<word>{_alternatives(list(words))})(?:s|ing)?\b", _FLAGS)
        # "the update makes the hypothesis less likely" names "weakener" (:data:`LABEL_EFFECTS`)
        effects = [
            _MentionRule(
                re.compile(rf"(?<!not )(?<!n't )(?<!never )\b(?:{LABEL_EFFECTS[stem]})", _FLAGS), lambda m, x=label: x
            )
            for stem, label in verbs.items()
            if stem.lower() in LABEL_EFFECTS
        ]
        return (*effects, _MentionRule(pattern, lambda m: words[" ".join(m["word"].lower().split())]))

    @cached_property
    def _ignore(self) -> re.Pattern:  # the question's list: "strengthener or weakener", "strengthens or weakens"
        verbs = [label.removesuffix("er") for label in self.labels if label.lower().endswith("er")]
        word = rf"(?:an?\s+)?(?:{_alternatives([*self.labels, *self.aliases, *verbs])})(?:s|ed)?"
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
        for stem, synonyms in LABEL_VERBS.items():
            if stem not in stems:
                continue
            # any form of the verb: "supports", "undermining", "casts doubt on"
            verbs = "|".join(
                rf"{verb.split()[0].removesuffix('e')}\w{{0,4}}" + "".join(rf"\s+{word}" for word in verb.split()[1:])
                for verb in synonyms.split("|")
            )
            # not denied nor conceded: "does not support the idea", "at first seems to support the idea"
            pattern = (
                r"(?<!not )(?<!n't )(?<!never )(?<!to )(?<!might )(?<!may )(?<!could )"
                rf"\b(?:(?:{verbs})\s+{_HYPOTHESIS_NOUN}|{LABEL_EFFECTS[stem]})"
            )
            if re.search(pattern, _plain(text), _FLAGS):
                argued.add(stems[stem])
        return argued

    _statement_rules = (*STATEMENTS, *LABEL_STATEMENTS)
    _verdict_rules = (*VERDICTS, *LABEL_CONCESSIONS)


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
            judged = self._judgements(text)
            tolerance = JUDGEMENT_TOLERANCE * (self.high - self.low)
            return None if any(abs(value - rating) > tolerance for rating in judged) else value
        if not self.labels or re.search(r"\d", text):
            return None
        words = " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
        words = _SHARED_HEAD.sub(r"\g<first> \g<head> \g<glue> \g<second> \g<head>", words)
        found = [label for label in self.labels if re.search(rf"(?<!\w){re.escape(label)}(?!\w)", words)]
        # "It is not very plausible" denies a label: no rating
        if any(re.search(rf"\b(?:not|n't|never|hardly)\s+{re.escape(label)}(?!\w)", words) for label in found):
            return None
        # "not plausible at all" contains "plausible": a label inside another label found counts as that one
        ratings = {
            self.labels[label] for label in found if not any(label != other and label in other for other in found)
        }
        return ratings.pop() if len(ratings) == 1 else None

    def _judgements(self, text: str) -> set[float]:
        """The ratings of the reply's own words about the inference ("this is very plausible", "barely plausible")."""
        words = {label: rating for label, rating in self.labels.items()}
        words |= {
            word: self.low + share * (self.high - self.low)
            for share, phrases in JUDGEMENTS.items()
            for word in phrases.split("|")
            if word not in words
        }
        # not the scale restated: "where 1 is not plausible at all"
        pattern = (
            r"(?<!\d )(?<!\d)\b(?:is|seems|appears|looks|sounds|be|was|remains)\s+"
            rf"(?:therefore\s+|thus\s+|so\s+|still\s+|only\s+)?(?P<word>{_alternatives(list(words))})"
            r"(?=\s*(?:[.,;:!)]|$|\s+(?:because|since|as|given)\b))"
        )
        return {words[" ".join(match["word"].lower().split())] for match in re.finditer(pattern, _plain(text), _FLAGS)}

    def describe(self) -> str:
        return f"one number from {self.low:g} to {self.high:g}"

    def _valid(self, value: object) -> bool:
        return isinstance(value, float) and self.low <= value <= self.high

    _values = None

    @cached_property
    def _ignore(self) -> re.Pattern:  # the scale itself: "(1-10)", "on a scale of 1 to 10", "between 1 and 10"
        low, high = re.escape(f"{self.low:g}"), re.escape(f"{self.high:g}")
        # the scale's own words restated with their numbers, two or more: "1: Not plausible at all, 3: Slightly ..."
        anchor = "|".join(rf"{rating:g}\s*[:=]\s*{_alternatives([label])}" for label, rating in self.labels.items())
        listing = rf"(?:(?<![\w.])(?:{anchor})\s*[,;]?\s*){{2,}}|" if anchor else ""
        return re.compile(
            listing
            + rf"\(?\s*(?:(?:on|using|in)\s+)?(?:(?:a|the)\s+)?(?:(?:scale|range)\s+(?:of\s+|from\s+)?)?(?:from\s+)?"
            rf"(?<![\d.]){low}\s*(?:-|to)\s*{high}(?!\d|\.\d)(?:\s*(?:point\s+)?(?:scale|range))?\s*\)?"
            rf"|\bbetween\s+{low}\s+and\s+{high}(?!\d|\.\d)",
            _FLAGS,
        )

    @cached_property
    def _mention_rules(self) -> tuple[_MentionRule, ...]:
        number, high = r"\d+(?:\.\d+)?", re.escape(f"{self.high:g}")
        high_words = [word for word, value in _NUMBER_WORDS.items() if value == self.high]
        out_of = rf"(?:{'|'.join([high, *high_words])})(?!\d|\.\d)"  # "/10", "out of ten"
        per = r"(?:/|out\s+of|sur|von|de|su|em)"  # "7 out of 10"; French, German, Spanish, Italian, Portuguese

        def value(match: re.Match) -> float:
            token = match["value"].lower()
            return float(_NUMBER_WORDS.get(token, token))

        return (
            _MentionRule(
                re.compile(rf"(?<![\w.])(?P<value>{number}|{_NUMBER_WORD})\s*{per}\s*{out_of}", _FLAGS), value
            ),
            # a rating on another scale ("4 out of 5", "8/100") or below zero ("-2") is no rating of this one
            _MentionRule(
                re.compile(rf"(?<![\w.])(?:{number}|{_NUMBER_WORD})\s*{per}\s*(?:{number}|{_NUMBER_WORD})\b", _FLAGS),
                lambda m: None,
            ),
            _MentionRule(re.compile(rf"(?<![\w.-])-{number}(?![\w%/]|\.\d)"), lambda m: None, named=False),
            _MentionRule(  # "6 or 7", "7-8", "between 6 and 7": no single rating, as naming two options chooses none
                re.compile(
                    rf"(?:\bbetween\s+{number}\s+and\s+{number}|(?<![\w.]){number}\s*(?:or|to|-)\s*{number})(?!\w|\.\d|\s*/)",
                    _FLAGS,
                ),
                lambda m: None,
                named=False,
            ),
            _MentionRule(
                re.compile(rf"(?<![\w.]){number}(?![\w%/]|\.\d)", _FLAGS), lambda m: float(m.group()), named=False
            ),
            _MentionRule(re.compile(_NUMBER_WORD_ALONE, _FLAGS), value, named=False),
        )

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
    numbers = _ANY_NUMBER.findall(_plain(text))
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
