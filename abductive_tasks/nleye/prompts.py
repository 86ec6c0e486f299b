"""NL-Eye prompts: Appendix C, Table 6 (verbatim), Appendix D.2.1 Table 14's variants, and the Appendix C
explanation-judge question."""

from __future__ import annotations

_TRIPLET_SEPARATE_QUESTION = (
    "Given a context image and 2 hypothesis images (3 total images), which image of the following two (1 and 2) "
    "is more plausible? The context image can happen before or after the hypothesis images. "
)
PROMPT_TRIPLET_SEPARATE = f"{_TRIPLET_SEPARATE_QUESTION}Mention which one is more plausible – 1 or 2, and explain."
PROMPT_TRIPLET_COMBINED = (
    "Given a context image (left image) and two hypothesis images (middle and right), which hypothesis image "
    "(1 or 2) is more plausible? Mention which one is more plausible – 1 or 2, and explain. "
    "The context image can happen before or after the hypothesis images."
)
PROMPT_PAIRS_SEPARATE = (
    "Given a pair of images – a context image and a hypothesis image – rank how plausible the hypothesis image "
    "is in relation to the context. The context image can occur before or after the hypothesis image. "
    "Rank the plausibility with a score between 1 and 10, where: 1: Not plausible at all, 3: Slightly plausible, "
    "5: Moderately plausible, 7: Very plausible, 10: Almost necessarily plausible. Explain why."
)
PROMPT_PAIRS_COMBINED = "The first (left) image is the context image. " + PROMPT_PAIRS_SEPARATE
# The scale words PROMPT_PAIRS_SEPARATE defines; a reply giving only the words means their rating.
PAIRS_SCALE = {
    "not plausible at all": 1,
    "slightly plausible": 3,
    "moderately plausible": 5,
    "very plausible": 7,
    "almost necessarily plausible": 10,
}
PROMPT_TRIPLET_TEXT = (
    "Given a context, hypothesis1, and hypothesis2, which hypothesis is more plausible? The context can occur before "
    "or after the hypotheses."
)

# Table 14 ("Prompts Comparison with GPT-4 Vision", triplet, separate images): three variants of the Table 6
# prompt. The table prints only each variant's phrase (in quotes below, verbatim); where the phrase goes is ours.
TABLE14_REVERSE = "First explain, then predict"  # "Reverse Task": the explanation before the choice
TABLE14_COT = "Let's think step by step"  # "CoT"
TABLE14_ROLE = "You are a causality expert"  # "Role"
PROMPT_TRIPLET_REVERSE = f"{_TRIPLET_SEPARATE_QUESTION}{TABLE14_REVERSE} which one is more plausible – 1 or 2."
PROMPT_TRIPLET_COT = f"{PROMPT_TRIPLET_SEPARATE} {TABLE14_COT}."
PROMPT_TRIPLET_ROLE = f"{TABLE14_ROLE}. {PROMPT_TRIPLET_SEPARATE}"

PROMPT_DESCRIBE = "Describe the content of the image in detail."  # Table 6, Image-to-Text (t.1), one image


def triplet_text_prompt(premise: str, first: str, second: str) -> str:
    """The Table 6 text-only prompt followed by the gold descriptions (their layout is our choice, see the README)."""
    return f"{PROMPT_TRIPLET_TEXT}\nContext: {premise}\nHypothesis 1: {first}\nHypothesis 2: {second}"


# Appendix C, "Prompt of Auto Evaluation of Explanation" (verbatim; the layout around it is ours, see the README).
EXPLANATION_JUDGE_QUESTION = (
    "Return 0 (Not logical at all), 1 (Logical but different), or 2 (Logical and same as one of the gold) "
    "if the candidate’s explanation presents the same logical common sense as appears in one of the gold explanations "
    "for justifying the plausible hypothesis."
)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def explanation_judge_prompt(premise: str, plausible: str, other: str, candidate: str, references: list[str]) -> str:
    """Appendix C's judge prompt for a candidate explanation of the plausible hypothesis."""
    golds = "\n".join(f"Explanation {number}: {_sentence(text)}" for number, text in enumerate(references, 1))
    return (
        f"Context: {_sentence(premise)}\n"
        f"Plausible Hypothesis: {_sentence(plausible)}\n"
        f"Less Plausible Hypothesis: {_sentence(other)}\n"
        f"{EXPLANATION_JUDGE_QUESTION}\n"
        f"Candidate explanation: {_sentence(candidate)}\n"
        f"Gold explanations:\n{golds}"
    )
