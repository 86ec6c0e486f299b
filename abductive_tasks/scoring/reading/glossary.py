"""Answer words in other languages, as the English words the rule tables read."""

from __future__ import annotations

import re

__all__ = ["GLOSSARY", "PHRASES", "in_another_language", "translate"]

# Full-width punctuation (Chinese, Japanese) as ASCII; CJK text set apart from digits and Latin words.
_FULL_WIDTH = str.maketrans(
    {"：": ":", "（": "(", "）": ")", "。": ". ", "「": '"', "」": '"', "『": '"', "』": '"', "【": "(", "】": ")"}
    | {"，": ", ", "；": "; ", "！": "! ", "？": "? ", "،": ", ", "।": ". "}
    | {chr(zero + digit): str(digit) for zero in (0x660, 0x6F0, 0x966, 0xFF10) for digit in range(10)}
    | {chr(0x2460 + digit - 1): str(digit) for digit in range(1, 10)}  # circled digits: "③"
)
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK_BOUNDARY = re.compile(rf"(?<=[{_CJK}])(?=[^\s{_CJK}])|(?<=[^\s{_CJK}])(?=[{_CJK}])")
# Answer words in other languages, as the English words the tables read (a plain answer in another language is read
# where a person reads it: "答案是 2", "La imagen 2 es más plausible", "选项3", "Bewertung: 4"). Scale words
# ("muy plausible") are not translated: a number after an answer word is.
GLOSSARY = {  # English: the words it translates, separated by |
    "answer": (
        "答案|回答|答え|정답|답변|respuesta|resposta|réponse|reponse|antwort|risposta|ответ|الإجابة|الجواب|उत्तर|đáp án"
    ),
    "cue": "线索|線索|手がかり|pista|indice|hinweis",
    "more plausible": "más plausible|mais plausível|plus plausible|più plausibile",
    "the": "la|el|le",
    "center": "central|centrale|zentrale|中央",
    "option": (
        "选项|選項|選択肢|オプション|선택지|옵션|opción|opcion|opção|opcao|opzione|вариант|варианте|الخيار|विकल्प|"
        "варіант|варіанті"  # and Ukrainian (BF's first contact: "Варіант 2: на першому зображенні ...")
    ),
    # Vietnamese only where the answer is stated ("Đáp án: Lựa chọn 2"; an option named alone is not read), with the
    # words that revise or doubt it ("Đáp án: Lựa chọn 4? Không chắc": not sure)
    "answer: option": "đáp án: lựa chọn|đáp án: phương án",
    "no, option": "không, lựa chọn|không, phương án",
    "is not correct": "không đúng|không chính xác",
    "is not plausible": "không hợp lý",
    # and German, Spanish, Portuguese, French, Italian (AY's first contact: "Hypothese 2 ist weniger plausibel; ...",
    # read 2)
    "is less plausible": (
        "kém hợp lý hơn|ít hợp lý hơn|ist weniger plausibel|es menos plausible|é menos plausível|est moins plausible|"
        "è meno plausibile|är mindre rimlig"
    ),
    "not sure": "không chắc|không chắc chắn|chưa chắc",
    "cannot say": "không thể nói",
    "i don't think": "tôi không nghĩ",
    "not": "không phải",
    "no": "không",
    "is wrong": "sai",
    "maybe": "có thể|có lẽ",
    "or": "hoặc",
    "also": "cũng",
    "number": "número|numero|numéro|nummer",  # "Número 2: exceso de velocidad"
    # a self-correction's words ("Opción 3. No, en realidad es la opción 1": AH's first contact)
    "actually": "en realidad|en fait|na verdade|in realtà",
    "wait": "espera|espere|attendez|attends|aspetta",
    "i'll stick with": "me quedo con|je reste sur|fico com|resto con|rimango con",  # the blind review of round 26
    "image": (
        "图片|图像|圖片|图|圖|画像|이미지|사진|그림|imagen|imagem|immagine|bild|abbildung|изображение|изображении|картинка|"
        "الصورة|छवि"
    ),
    "hypothesis": (
        "假设|假設|仮説|가설|hipótesis|hipotesis|hipótese|hypothèse|hypothese|ipotesi|гипотеза|الفرضية|परिकल्पना|"
        "giả thuyết|hypotes|hipotez"
    ),
    "score is": "점수는|점수가|평점은",
    "score": (
        "评分|評分|分数|得分|打分|评级|スコア|評価|점수|평점|puntuación|puntuacion|puntaje|calificación|pontuação|pontuacao|nota|"
        "bewertung|punktzahl|punteggio|оценка|балл|الدرجة|التقييم|स्कोर|अंक|βαθμολογία"
    ),
    "plausibility": "plausibilität|plausibilidad|plausibilité|plausibilidade|合理性|可信度",
    "rate": "bewerten|bewerte|califico|calificaría|daría|darei|donnerais",
    "with": "mit",
    "is": "是|es|est|ist|é|è",
    "think": "认为|我觉得",
    "the more plausible is": "更合理的是|更合理的一个是|更可能的是|最合理的是|より妥当なのは|よりもっともらしいのは",
    "the correct answer is": "正确答案是|正確答案是",
    # the Japanese answer before its topic particle ("最終的な答えは選択肢4です": the final answer is option 4;
    # BF's first contact)
    "the answer is": "答えは|回答は|正解は",
    "is correct": "正确|正確",
    "is more plausible": (
        "更合理|更加合理|更可信|更有可能|更可能|es más plausible|é mais plausível|est plus plausible|ist plausibler|"
        "ist wahrscheinlicher|è più plausibile|の方が妥当|がより妥当|の方がもっともらしい|がよりもっともらしい|"
        "이 더 그럴듯|가 더 그럴듯|이 더 타당|가 더 타당|이 더 합리적|가 더 합리적|"
        "более правдоподобна|более правдоподобен|более правдоподобно|अधिक संभावित है|अधिक प्रशंसनीय है|hợp lý hơn|"
        # Swedish (AZ's first contact: "Hypotes 2 är mer rimlig eftersom ...")
        "är mer rimlig|är rimligare|är mer sannolik"
    ),
    "is the most plausible": (
        "最合理|最有可能|es la más plausible|es el más plausible|é a mais plausível|est la plus plausible|"
        "est le plus plausible|ist am plausibelsten|è la più plausibile|هي الأكثر معقولية|هو الأكثر معقولية|"
        "الأكثر معقولية|الأكثر منطقية"
    ),
    "the right": "右边的|右边|右側の|右の|오른쪽|de la derecha|da direita|de droite|rechte",
    "the middle": "中间的|中间|中央の|真ん中の|가운데|del medio|del centro|do meio|du milieu|du centre|mittlere",
    "the left": "左边的|左边|左側の|左の|왼쪽|de la izquierda|da esquerda|de gauche|linke",
    "strengthens": (
        "加强|增强|强化|強化|支持|강화|fortalece|refuerza|reforça|renforce|stärkt|rafforza|"
        "يُعزز|يعزز|تُعزز|تعزز|يُقوي|يقوي|تُقوي|تقوي"  # and Arabic (BF's first contact: "يُضعف الفرضية", weakens it)
    ),
    "weakens": "削弱|减弱|弱化|弱める|약화|debilita|enfraquece|affaiblit|schwächt|indebolisce|يُضعف|يضعف|تُضعف|تضعف",
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
    "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
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
# a Vietnamese reply opening with its option as a sentence of its own ("Lựa chọn 4. Hình ảnh ...": Option 4.) or as its
# heading ("Lựa chọn 4: người đàn ông ...": BC's first contact), where it names no other option after it; an option
# word elsewhere is not read ("Phương án 2 sai": option 2 is wrong)
_VIETNAMESE_OPTION = re.compile(r"(?:lựa chọn|phương án)\s+(\d)", re.IGNORECASE)
# (or given its role before the colon: "Phương án 3 là kết quả: hình nguyên nhân cho thấy ...", option 3 is the effect;
# BQ's first contact, unread)
_VIETNAMESE_OPENING = re.compile(
    r"\A(\s*)(?:lựa chọn|phương án)\s+(\d)(?:\s+là\s+(?P<role>kết quả|hệ quả|nguyên nhân))?\s*([.:])(?=\s|\Z)",
    re.IGNORECASE,
)
_VIETNAMESE_ROLES = {"kết quả": " is the effect", "hệ quả": " is the effect", "nguyên nhân": " is the cause"}


def _vietnamese_opening(text: str) -> str:
    """``text`` with its opening "Lựa chọn 4." ("Lựa chọn 4:") as "Option 4." ("Option 4:"), where every option it names
    is that one."""
    opening = _VIETNAMESE_OPENING.match(text)
    if opening is None or {match[1] for match in _VIETNAMESE_OPTION.finditer(text)} != {opening[2]}:
        return text
    role = _VIETNAMESE_ROLES[opening["role"].lower()] if opening["role"] else ""
    return f"{opening[1]}Option {opening[2]}{role}{opening[4]}{text[opening.end() :]}"


# A Japanese ordinal, the number and its counter before the noun ("2つ目の仮説画像の方が妥当です": the second hypothesis
# image is more plausible; BQ's first contact, unread; "3番目の選択肢", the third option), as the English ordinal
_JAPANESE_ORDINAL = re.compile(r"(?<![\d.])([1-4])\s*(?:つ目|番目)\s*の?")
_ORDINALS = ("first", "second", "third", "fourth")

# A Hindi rating given, the number and its points before the verb ("मैं इसे 4 अंक दूंगा, क्योंकि ...": I will give it 4
# points; BQ's first contact, unread; not "4 अंक नहीं दूंगा", I will not give it 4, nor "10 में से", out of 10)
_HINDI_POINTS = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)\s*अंक\s+(?:दूंगा|दूँगा|दूंगी|दूँगी|देता\s+हूं|देता\s+हूँ|देती\s+हूं|देती\s+हूँ)")

# Chinese points given ("打8分", "给它打 7.5 分": score 8)
_CHINESE_POINTS = re.compile(r"(?:打|给|得|评)\s*(\d+(?:\.\d+)?)\s*分")


# A Japanese rating after the topic particle, in points ("評価は7点です。": AY's first contact; not a scale:
# "評価は10点満点中7点")
# "点数は7です" (the score is 7: BB's first contact)
_JAPANESE_POINTS = re.compile(r"(?:評価|スコア|点数)\s*は\s*(\d+(?:\.\d+)?)\s*(?:点(?!\s*満点)|(?=です))")
# ... or in parentheses alone after the judgement it rates ("妥当性はかなり高いと思います（7点）。...": I think
# the plausibility is quite high (7 points); BR's first contact, unread; not "（10点満点中7点）", a scale, nor
# "（7点以上）")
_JAPANESE_POINTS_SET_OFF = re.compile(r"[（(]\s*(\d+(?:\.\d+)?)\s*点\s*[）)]")


# Russian points given after the number ("Очень правдоподобно — 7 баллов.": AR's first contact; not "из 10", a scale)
_RUSSIAN_POINTS = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*балл(?:ов|а)?(?!\w)(?!\s*(?:из|/))", re.IGNORECASE)


# A Russian comparison before what it compares, the noun and its number after it ("Более правдоподобна гипотеза 2: ...":
# hypothesis 2 is more plausible; BF's first contact), in the order the glossary reads
_RUSSIAN_INVERTED = re.compile(
    r"(?<!\w)более\s+правдоподобн(?:а|ен|о|ее|ая|ый|ое)\s+(гипотеза|изображение|картинка|вариант)\s+(\d+)(?!\w)",
    re.IGNORECASE,
)
# A Turkish comparison, its copula implicit ("Hipotez 2 daha makul: ...": hypothesis 2 is more plausible; BF's first
# contact; "daha makul değil", not more plausible), or heading the answer ("Daha makul olan 1. hipotezdir": the more
# plausible one is hypothesis 1; BE's first contact)
_TURKISH_MORE = re.compile(
    r"(?<!\w)daha\s+(?:makul|mantıklı|olası|akla\s+yatkın)(?:dır|dir)?(?!\w)"
    r"(?:(?P<which>\s+olan(?!\w))|(?P<not>\s+değil(?:dir)?(?!\w)))?",
    re.IGNORECASE,
)
_TURKISH_COMPARISONS = {"which": " the more plausible is ", "not": " is not more plausible "}
# A Turkish ordinal, the number and its full stop before the noun ("2. seçenek": the second option, "1. hipotezdir": is
# the first hypothesis; BE's first contact), as the noun and its number; not an item's number before a numbered noun
# ("1. Seçenek 1: ...")
_TURKISH_ORDINAL = re.compile(r"(?<![\w.])(\d)\.\s*(seçenek|hipotez)\w*(?!\w)(?!\s*\d)", re.IGNORECASE)

# Round 50's review: the negation of the languages round 50 read answer words of, before or after those words, so that
# no answer word is read without it
# a Turkish ordinal denied after it ("Doğru cevap 2. seçenek değil.": the correct answer is not option 2), and an
# ordinal compared to one in the ablative ("2. hipotez, 1. hipotezden daha makul.": hypothesis 2 is more plausible than
# hypothesis 1)
_TURKISH_ORDINAL_DENIED = re.compile(r"(?<![\w.])(\d)\.\s*(seçenek|hipotez)\w*\s+değil(?:dir)?(?!\w)", re.IGNORECASE)
_TURKISH_ORDINAL_COMPARED = re.compile(
    r"(?<![\w.])(\d)\.\s*(seçenek|hipotez)\w*\s*,?\s*(\d)\.\s*(?:seçenek|hipotez)(?:den|dan|ten|tan)\s+"
    r"daha\s+(?:makul|mantıklı|olası)(?:dır|dir)?(?!\w)(?!\s+değil)",
    re.IGNORECASE,
)
# the Japanese "not" after an option, put before it ("答えは選択肢4ではなく、選択肢2です": the answer is not option 4
# but option 2)
_JAPANESE_DENIED = re.compile(r"(選択肢|オプション|仮説)\s*(\d+)\s*(?:では|じゃ)(?:なく(?:て)?|ない|ありません)")
# the Thai "is not", "not" ("คำตอบไม่ใช่ตัวเลือกที่ 4": the answer is not option 4; Thai sets no spaces between words)
_THAI_NOT = re.compile(r"ไม่ใช่|ไม่(?=\s*ตัวเลือก)")
# an Arabic label verb denied ("لا يُضعف الفرضية": does not weaken the hypothesis), and the one "but rather" goes on to
# ("بل يعززها": but strengthens it)
_ARABIC_WEAKENS = "يُضعف|يضعف|تُضعف|تضعف"
_ARABIC_STRENGTHENS = "يُعزز|يعزز|تُعزز|تعزز|يُقوي|يقوي|تُقوي|تقوي"
_ARABIC_DENIED = re.compile(
    rf"(?<!\w)(?:لا|لن|لم|ليس)\s+(?:(?P<weakens>{_ARABIC_WEAKENS})|(?P<strengthens>{_ARABIC_STRENGTHENS}))(?:ها|ه)?(?!\w)"
)
_ARABIC_RATHER = re.compile(
    rf"(?<!\w)(?:بل|وإنما|بل\s+إنه)\s+(?:(?P<weakens>{_ARABIC_WEAKENS})|(?P<strengthens>{_ARABIC_STRENGTHENS}))(?:ها|ه)?(?!\w)"
)


def _arabic_denied(match: re.Match[str]) -> str:
    return " does not weaken " if match["weakens"] else " does not strengthen "


def _arabic_rather(match: re.Match[str]) -> str:
    return " but weakens it " if match["weakens"] else " but strengthens it "


# A German rating given ("Ich würde eine 7 vergeben (sehr plausibel): ...": BE's first contact; not "keine 7", a rating
# refused)
_GERMAN_POINTS = re.compile(r"\bwürde\s+(?:eine|ein)\s+(\d+(?:[.,]\d+)?)\s+vergeben\b", re.IGNORECASE)
# A Turkish rating given, the number before its verb ("Bu hipotezi 3 olarak değerlendiriyorum (biraz makul).": I rate
# this hypothesis as 3; BO's first contact; not "3 olarak değerlendirmiyorum", I do not rate it 3)
_TURKISH_RATED = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s+olarak\s+(?:değerlendiriyorum|değerlendiririm|puanlıyorum|puanlarım)(?!\w)",
    re.IGNORECASE,
)


# A Chinese comparison, the one compared first: "图片2比图片1更合理" (image 2 is more plausible than image 1),
# "这比第一张假设图片（...）更合理" (this is more plausible than the first hypothesis image: BE's first contact, read
# as a pick of the first after "答案：2。")
_CHINESE_COMPARED = re.compile(r"比\s*([^，。,.;；!?！？\n]{1,60}?)\s*(?:更加|更)(?:合理|可信|有可能|可能)")


# A Chinese numeral after a score noun ("评分：九", "评分：六分": score 9, score 6; AP's first contact), one numeral
# alone
_CHINESE_SCORE = re.compile(
    r"(?:评分|評分|分数|得分)\s*[:：]?\s*([一二三四五六七八九十])(?:\s*分)?(?![一二三四五六七八九十百点.])"
)


def _chinese_score(match: re.Match[str]) -> str:
    return f" score: {_CJK_NUMERALS[match[1]]} "


# Answer phrases of French, Spanish and German, read before the glossary's words (whose "la", "es", "die" they hold):
# the option an answer names by its number or ordinal after it ("la opción correcta es la 4", "la opción correcta es
# la tercera", "la bonne réponse est donc l'option 3", "Die Ursache ist in der dritten Option zu sehen": AP's first
# contact); an ordinal only stated as the answer or with the option noun (not "en la segunda imagen", a picture count,
# nor "la primera" alone)
PHRASES = {  # English: the phrases it translates, separated by |
    "or": "또는|아니면|ou",  # Korean and French or (AQ's first contact: "답: 2 또는 3", "Score: 7 ou 8")
    "the correct answer is": (
        "la respuesta correcta es|la bonne réponse est|la bonne reponse est|die richtige antwort ist|"
        "a resposta correta é"
    ),
    "the correct option": "la opción correcta|la opcion correcta|la bonne option|die richtige option|a opção correta",
    "the cause is": "die ursache ist",
    "the effect is": "die wirkung ist",
    "therefore": "donc",
    "is ruled out": "est exclue|est exclu|queda descartada|queda descartado|ist ausgeschlossen",
    # with AY's first contact: Turkish, Hindi, Polish and Indonesian ordinals with the option noun ("Cevap: dördüncü
    # seçenek.", "उत्तर: तीसरा विकल्प", "Przyczyną jest opcja druga", "Jawabannya adalah opsi kedua"), the Portuguese
    # answer by its ordinal ("A opção correta é a quarta") and the Spanish and Italian option one ("la opción uno")
    "the first option": (
        "la première option|la primera opción|la primera opcion|die erste option|der ersten option|a primeira opção|"
        "первый вариант|birinci seçenek|ilk seçenek|पहला विकल्प|opcja pierwsza|opcję pierwszą|opsi pertama"
    ),
    "is the first": "es la primera|est la première|ist die erste|é a primeira",
    "the second option": (
        "la deuxième option|la segunda opción|la segunda opcion|die zweite option|der zweiten option|a segunda opção|"
        "второй вариант|ikinci seçenek|दूसरा विकल्प|opcja druga|opcję drugą|opsi kedua"
    ),
    "is the second": "es la segunda|est la deuxième|ist die zweite|é a segunda",
    "the third option": (
        "la troisième option|la tercera opción|la tercera opcion|die dritte option|der dritten option|a terceira opção|"
        "третий вариант|üçüncü seçenek|तीसरा विकल्प|opcja trzecia|opcję trzecią|opsi ketiga"
    ),
    "is the third": "es la tercera|est la troisième|ist die dritte|é a terceira",
    "the fourth option": (
        "la quatrième option|la cuarta opción|la cuarta opcion|die vierte option|der vierten option|a quarta opção|"
        "четвёртый вариант|четвертый вариант|dördüncü seçenek|चौथा विकल्प|opcja czwarta|opcję czwartą|opsi keempat"
    ),
    "is the fourth": "es la cuarta|est la quatrième|ist die vierte|é a quarta",
    "option 1": "opción uno|opcion uno|opzione uno",
    # AQ's first contact: Portuguese ("A hipótese mais plausível é a segunda", "A terceira opção mostra o efeito"),
    # Russian ordinals with the option noun ("Четвёртый вариант: ..."), Korean "답: 2" (not "답: 2 또는 3", or: round
    # 20's review), a French rating heading ("Note : 7", the space before the colon French typography's; not French
    # number words, which round 17's review guards: "Rated at sept. 6 ...", "Score: huit ou neuf")
    # and Italian (AV's first contact: "L'ipotesi più plausibile è la seconda, ...")
    "the more plausible hypothesis is the first": (
        "a hipótese mais plausível é a primeira|l'ipotesi più plausibile è la prima"
    ),
    "the more plausible hypothesis is the second": (
        "a hipótese mais plausível é a segunda|l'ipotesi più plausibile è la seconda"
    ),
    "shows the effect": "mostra o efeito|muestra el efecto|montre l'effet",
    "shows the cause": "mostra a causa|muestra la causa|montre la cause",
    "answer": "답",
    "score:": "note :",
    # a rating given in French ("Je donnerais une note de 4 : ...": AZ's first contact; the negation of French stands
    # apart from the phrase, "Je ne donnerais pas une note de 8", where Spanish and Portuguese put it before it: "No
    # daría una nota de 8", round 17's review)
    "would give a score of": "donnerais une note de|je donne une note de|attribuerais une note de",
    # AR's first contact: Hindi and Russian ordinals with the hypothesis noun ("पहली परिकल्पना अधिक संभावित है"), the
    # Russian answer before its verb ("Более правдоподобна первая гипотеза: ...": the first hypothesis is more
    # plausible)
    "the first hypothesis is more plausible": "более правдоподобна первая гипотеза",
    "the second hypothesis is more plausible": "более правдоподобна вторая гипотеза",
    # and BP's: the German, Spanish, French, Italian and Portuguese ones ("Die erste Hypothese ist plausibler, da ...",
    # the first hypothesis is more plausible; unread)
    "the first hypothesis": (
        "पहली परिकल्पना|первая гипотеза|die erste hypothese|der ersten hypothese|la primera hipótesis|"
        "la première hypothèse|la prima ipotesi|a primeira hipótese"
    ),
    "the second hypothesis": (
        "दूसरी परिकल्पना|вторая гипотеза|die zweite hypothese|der zweiten hypothese|la segunda hipótesis|"
        "la deuxième hypothèse|la seconda ipotesi|a segunda hipótese"
    ),
    # AU's first contact: a German answer heading ("Gewählt: 2.", chosen), Russian label verbs ("Ослабляет")
    # and Turkish (AV's first contact: "Cevap: 4. ...")
    "answer:": "gewählt:|gewählt :|cevap:|cevap :",
    "the correct answer is ": "doğru cevap|doğru yanıt",  # BE's first contact: "Doğru cevap 2. seçenek: ..."
    # a Turkish role heading before the option noun (AW's first contact: "Efekt görüntüsü seçenek 3'tür.", the effect
    # image is option 3)
    "the effect is option": "efekt görüntüsü seçenek|etki görüntüsü seçenek|sonuç görüntüsü seçenek",
    "the cause is option": "neden görüntüsü seçenek|sebep görüntüsü seçenek",
    # AX's first contact: the option noun in Polish and Indonesian ("Efekt pokazuje opcja 1 — ...", "Opsi 4")
    "option": "opcja|opcję|opcji|opsi|опция|опцию|опции",  # and Russian (BB's first contact: "Опция 4 — причина: ...")
    # BC's first contact: the Dutch and Turkish option nouns ("Optie 2. De auto ...", "Seçenek 3: araba ..."), the Dutch
    # and Polish image nouns with their positions ("Afbeelding 1 (midden) is het meest plausibel", "Bardziej
    # prawdopodobny jest obraz 2 (po prawej)"), and a Turkish and Vietnamese rating heading ("Puan: 9.", "Điểm: 7"; the
    # colon's: "điểm" alone is also a point, a feature's "đặc điểm"); BD's: a German and Portuguese one ("Punkte: 2.",
    # "Classificação: 9."; with the colon: "7 Punkte" are points, "classificação" a classification)
    "option ": "optie|seçenek|επιλογή|επιλογής|pilihan|אפשרות",  # and BE's Greek, Indonesian and Hebrew
    # BF's first contact: the Swedish and Thai option nouns and the Swedish roles shown ("Alternativ 3 visar effekten:
    # ...", "ตัวเลือกที่ 4 ..."), the Greek rating heading ("Βαθμολογία: 6"), Arabic label verbs, the Japanese answer
    # (GLOSSARY), the Turkish and the inverted Russian comparison (_TURKISH_MORE, _RUSSIAN_INVERTED)
    "option  ": "alternativ|ตัวเลือกที่",
    "shows the effect ": "visar effekten",
    "shows the cause ": "visar orsaken",
    "image ": "afbeelding|obraz",
    "the middle": "midden|po środku",
    "the right": "rechts|po prawej",
    "the left": "po lewej",
    "is the most plausible": "is het meest plausibel|is het meest aannemelijk|jest najbardziej prawdopodobny",
    "the more plausible is": "bardziej prawdopodobny jest|bardziej prawdopodobna jest",
    "score: ": "puan:|puan :|điểm:|điểm :|punkte:|punkte :|classificação:|classificação :|classificacao:",
    # BE's first contact: the Russian and Italian panel positions ("Правое изображение более правдоподобно", "L'immagine
    # a destra è più plausibile"), the Greek, Indonesian and Hebrew answer and option nouns ("Η υπόθεση 2 είναι πιο
    # εύλογη", "Jawaban: pilihan 1.", "Επιλογή 2:", "התשובה היא אפשרות 4")
    "the right ": "правое|правом|правая|правой|правый|a destra",
    "the left ": "левое|левом|левая|левой|левый|a sinistra",
    "the middle ": "среднее|среднем|средняя|средней|средний|al centro",
    "hypothesis ": "υπόθεση|υπόθεσης",
    "is more plausible ": "είναι πιο εύλογη|είναι πιο πιθανή|είναι πιο λογική",
    "answer ": "jawaban|απάντηση",
    "the answer is ": "התשובה היא|jawabannya adalah",
    # a German and French "no" correcting the answer before it ("Die Antwort ist 4 (Polizist)... nein, 2 (...)": BE's
    # first contact, read 4), with its comma (the Italian negation "non" takes none: "non è plausibile")
    "no,": "nein,|non,",
    "weakens": "ослабляет",
    "strengthens": "усиливает|подкрепляет",
    # BG's first contact: a French pick said ("Je dirais la 2, même si la 1 n'est pas impossible : ...", I would say 2,
    # even if 1 is not impossible; not "Je ne dirais pas la 2"), a German comparison ("Hypothese 2 passt besser zum
    # Kontextbild: ...", fits better; not "passt nicht besser"), a Thai one with its hypothesis noun
    # ("สมมติฐานที่ 1 มีความเป็นไปได้มากกว่า ...", hypothesis 1 is more likely),
    # its negation and the other comparison ("ไม่มีความเป็นไปได้มากกว่า", "มีความเป็นไปได้น้อยกว่า"),
    # the Polish answer noun ("Odpowiedź: 2. ..."; not the Dutch "Antwoord: 3 (weg)", a number explained in another
    # language, which round 36 leaves unread, as round 44's and 47's guards keep) and the Spanish final answer ("Por lo
    # tanto, la respuesta final es la opción 3.")
    "i would say": "je dirais",
    # (and denied, as the English: "Je ne dirais pas l'image 1.", I would not say the image 1; round 69, no batch's:
    # read 1; doubt_rules.HEDGES)
    "i would not say": "je ne dirais pas",
    "even if": "même si",
    "fits better": "passt besser",
    "fits best": "passt am besten",
    "does not fit better": "passt nicht besser",
    "hypothesis  ": "สมมติฐานที่",
    "is more plausible  ": "มีความเป็นไปได้มากกว่า",
    # (and the comparison denied in the languages round 60 reads the ordinals of: "Die erste Hypothese ist nicht
    # plausibler", "La primera hipótesis no es más plausible", not more plausible, as round 50's review asks)
    "is not more plausible": (
        "ไม่มีความเป็นไปได้มากกว่า|ist nicht plausibler|ist nicht wahrscheinlicher|no es más plausible|"
        "n'est pas plus plausible|não é mais plausível|non è più plausibile"
    ),
    "is less plausible ": "มีความเป็นไปได้น้อยกว่า",
    "answer  ": "odpowiedź",
    "the final answer is": "la respuesta final es|la réponse finale est|a resposta final é",
    # BH's first contact: the Hebrew and Thai rating headings ("ציון: 2. ...", "คะแนน: 4"; with the colon, as the
    # Turkish and Vietnamese ones)
    "score:  ": "ציון:|ציון :|คะแนน:|คะแนน :",
    # BN's first contact: the Indonesian and Polish rating headings ("Skor: 9. Gambar konteks ...", "Ocena: 8. Obraz
    # hipotezy ..."; with the colon, as the others: "ocena" alone is also an assessment) and a Dutch rating given ("Ik
    # geef het een 5 (redelijk plausibel): ...", I give it a 5; not "Ik geef het geen 5", none)
    "score:   ": "skor:|skor :|ocena:|ocena :",
    "i give it a": "ik geef het een|ik geef dit een",
    # BO's first contact: the French panel positions after "à" ("L'image 2 (à droite) est la plus plausible : ...", the
    # image on the right; "de droite" is read already), and a Turkish rating given (_TURKISH_RATED)
    "the right  ": "à droite",
    "the left  ": "à gauche",
    "the middle  ": "au milieu|au centre",
    # BY's first contact: the Turkish panel positions with their image noun ("Sağdaki görüntü daha makul: ...", the
    # image on the right is more plausible; unread; _TURKISH_MORE reads the comparison)
    "the right image": "sağdaki görüntü|sağdaki resim",
    "the left image": "soldaki görüntü|soldaki resim",
    "the middle image": "ortadaki görüntü|ortadaki resim",
    # BP's first contact: the Dutch closing heading ("... Stap 3: Een bevroren stoep leidt tot uitglijden. Eindantwoord:
    # 1", final answer; unread; "Antwoord: 3 (weg)" stays a number explained in another language, round 36's)
    "final answer": "eindantwoord",
    # BV's first contact: the Indonesian image noun before its number and comparison ("Gambar 2 lebih masuk akal.",
    # image 2 is more plausible; its negation, "tidak lebih masuk akal", not), as "Bild 2", "imagen 2"; and the Swedish
    # label verbs ("Förstärker hypotesen.", strengthens the hypothesis; "försvagar", weakens; not "förstärker inte",
    # does not strengthen), as the German "stärkt"
    "image   ": "gambar",
    "is not more plausible ": "tidak lebih masuk akal",
    "is more plausible   ": "lebih masuk akal",
    "strengthens  ": "förstärker",
    "weakens  ": "försvagar",
    "does not strengthen": "förstärker inte",
    "does not weaken": "försvagar inte",
    # and a Spanish rating given ("Le daría un 3 (ligeramente plausible).", I would give it a 3; not "No le daría un
    # 3", I would not)
    "would give it a": "le daría un|le daría una|le daria un|le daria una",
    "not a": "no le daría un|no le daría una|no le daria un|no le daria una",
    # BW's first contact: the French image noun with its elided article ("Je dirais l'image 1 : ... L'image 2 (elle fait
    # du yoga) n'a aucun lien.", I would say the image 1; unread: "dirais l'" said no pick), as "la 2" reads
    "the image": "l'image|l'immagine",
}
# A Chinese noun the answer counts ("答案是第二个短语：超速", AQ's first contact: the second phrase), set apart
_CHINESE_NOUNS = re.compile("短语|短語")
# A Chinese item number ("线索是"超速"（第2项）": the cue is speeding, item 2; BB's first contact), as "number 2" (not
# "第2张图", the second image)
_CHINESE_ITEM = re.compile(r"第\s*(\d+)\s*[项項号號]")

# A Chinese numeral standing alone as the answer after an answer heading ("Answer: 四", "答案：三": AR's first contact)
_CJK_ANSWER_NUMERAL = re.compile(
    r"(?P<head>(?<!\w)answer|答案|回答|答え)\s*[:：]\s*(?P<numeral>[一二三四五六七八九十])(?=\s*(?:[.。!！]\s*)?\Z)",
    re.IGNORECASE,
)

# A Chinese self-correction: "不对，应该是选项1" (no, it should be option 1; AT's first contact: "Option 3 -
# 不对，应该是选项1：..." read 3), as "Actually, it is option 1"
_CHINESE_CORRECTION = re.compile(r"(?:不对|不是|错了)\s*[，,、]?\s*(?:应该|应当|应)是")

_PHRASE_WORDS = {phrase.lower(): english for english, phrases in PHRASES.items() for phrase in phrases.split("|")}
_PHRASE_PATTERN = re.compile(
    "|".join(rf"(?<!\w){re.escape(phrase)}(?!\w)" for phrase in sorted(_PHRASE_WORDS, key=len, reverse=True)),
    re.IGNORECASE,
)


def translate(text: str) -> str:
    """``text`` with full-width punctuation as ASCII, CJK set apart, and the glossary's answer words in English."""
    text = _KOREAN_NUMBER.sub(r"number \1", _KOREAN_NUMBERED.sub(r"\2 \1", text))
    text = _CHINESE_POINTS.sub(r" score: \1 ", text)
    text = _JAPANESE_POINTS.sub(r" score: \1 ", text)
    text = _JAPANESE_POINTS_SET_OFF.sub(r" (score: \1) ", text)
    text = _RUSSIAN_POINTS.sub(r" score: \1 ", text)
    text = _HINDI_POINTS.sub(r" would give it a \1 ", text)
    text = _JAPANESE_ORDINAL.sub(lambda match: f" the {_ORDINALS[int(match[1]) - 1]} ", text)
    text = _GERMAN_POINTS.sub(r" would give it a \1 ", text)
    text = _TURKISH_RATED.sub(r" would give it a \1 ", text)
    text = _CHINESE_COMPARED.sub(r" is more plausible than \1 ", text)
    text = _RUSSIAN_INVERTED.sub(r"\1 \2 более правдоподобна", text)
    text = _TURKISH_ORDINAL_DENIED.sub(r" not \2 \1 ", text)
    text = _TURKISH_ORDINAL_COMPARED.sub(r" \2 \1 is more plausible than \2 \3 ", text)
    text = _TURKISH_ORDINAL.sub(r" \2 \1 ", text)
    text = _JAPANESE_DENIED.sub(r" not \1\2 ", text)
    text = _THAI_NOT.sub(" is not ", text)
    text = _ARABIC_DENIED.sub(_arabic_denied, text)
    text = _ARABIC_RATHER.sub(_arabic_rather, text)
    text = _TURKISH_MORE.sub(lambda match: _TURKISH_COMPARISONS.get(str(match.lastgroup), " is more plausible "), text)
    text = _CHINESE_SCORE.sub(_chinese_score, text)
    text = _CJK_ANSWER_NUMERAL.sub(lambda match: f"{match['head']}: {_CJK_NUMERALS[match['numeral']]}", text)
    text = _CHINESE_CORRECTION.sub("; actually, it is ", text)
    text = _CHINESE_ITEM.sub(r" number \1 ", text)
    text = _PHRASE_PATTERN.sub(lambda match: f" {_PHRASE_WORDS[match.group().lower()]} ", text)
    text = _vietnamese_opening(text)
    text = _GLOSSARY_PATTERN.sub(
        lambda match: f" {_GLOSSARY_WORDS[match.group().lower()]} ", text.translate(_FULL_WIDTH)
    )
    text = _CHINESE_NOUNS.sub(" phrase ", text)
    return re.sub(r"[ \t]+", " ", _CJK_BOUNDARY.sub(" ", text))


# Words of Spanish, Portuguese, French, Italian and German prose that English does not use, and English words those
# languages do not: a clause with two of the first and none of the second is in another language, whose cognates
# ("cajas rectangulares") say nothing of an English option text's words (kinds.Choice._explains_another: "La hipótesis
# 2 es más plausible: muchos juguetes redondos, como pelotas, se venden en cajas rectangulares.", BJ's first contact)
_FOREIGN_WORDS = frozenset(
    (
        "como muchos muchas se en los las del una unos que son por para con es está están pero muy ils des les une "
        "dans pour sont est avec und der die das ist mit ein eine nicht sind sono della il di che per uma não são em os"
    ).split()
)
# (not "the" and "is", which the glossary writes for those languages' articles and copulas: "el regalo con forma de
# pelota podría venir dentro de una caja rectangular" is "the regalo ...", BP's first contact, unread)
_ENGLISH_WORDS = frozenset("are and of with that this it its was were would could".split())


def in_another_language(clause: str) -> bool:
    """Whether ``clause`` is written in another language than English (:data:`_FOREIGN_WORDS`)."""
    words = re.findall(r"[^\W\d_]+", clause.lower())
    return sum(word in _FOREIGN_WORDS for word in words) >= 2 and not any(word in _ENGLISH_WORDS for word in words)
