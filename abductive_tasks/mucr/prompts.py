"""MuCR prompts: the task questions and the Exp judge question, all ours.

The paper prints neither its questions Q_I, Q_P, Q_S nor its GPT-4 scoring prompt. Ours state
the tasks as "Evaluation Metrics" defines them and ask for the explanation in the order the
annotators wrote theirs ("Creating Images and Annotations": cause image, effect image, causal
link); ``docs/benchmarks/mucr.md`` describes them. Form-1 (Figure 7 a, Table 3): one composite
image with labelled panels; Form-3: the images separately.
"""

from __future__ import annotations

from collections.abc import Sequence

_CHOICE_TAIL = "Answer with the option number (1, 2, 3 or 4) first, then explain."
PROMPTS = {
    ("c2e", "composite"): (
        'The image shows five pictures side by side. The first, labelled "Cause image", shows a cause. '
        'The other four, labelled "Option 1" to "Option 4", are candidate effect images. '
        "Which option shows the effect of the cause image? " + _CHOICE_TAIL
    ),
    ("c2e", "split"): (
        "The first image shows a cause. "
        "The next four images are candidate effect images, Option 1 to Option 4 in order. "
        "Which option shows the effect of the first image? " + _CHOICE_TAIL
    ),
    ("e2c", "composite"): (
        'The image shows five pictures side by side. The first, labelled "Effect image", shows an effect. '
        'The other four, labelled "Option 1" to "Option 4", are candidate cause images. '
        "Which option shows the cause of the effect image? " + _CHOICE_TAIL
    ),
    ("e2c", "split"): (
        "The first image shows an effect. "
        "The next four images are candidate cause images, Option 1 to Option 4 in order. "
        "Which option shows the cause of the first image? " + _CHOICE_TAIL
    ),
    ("pair", "composite"): (
        'The image shows two pictures side by side: the cause image on the left (labelled "Cause image") '
        'and its effect on the right (labelled "Effect image").'
    ),
    ("pair", "split"): "The first image shows a cause and the second image shows its effect.",
}
CUE_QUESTION = "Which of the following phrases is the cue that explains the causal link between the two images?"
CUE_TAIL = "Answer with the number of the phrase (1, 2, 3 or 4) first, then explain."
EXP_QUESTION = (
    'The cue phrase linking them is "{cue}". Explain the causal relationship: '
    "first describe the content of the cause image, then the content of the effect image, "
    "and conclude with the causal link between the two images using the cue phrase. "
    "Answer in three lines:\nCause image: <description>\nEffect image: <description>\nCausal link: <explanation>"
)


def cue_prompt(options: Sequence[str], form: str) -> str:
    """The Cue question (Eq. 3) with the four phrases numbered 1-4."""
    listed = "\n".join(f"{number}. {option}" for number, option in enumerate(options, start=1))
    return f"{PROMPTS[('pair', form)]} {CUE_QUESTION}\n{listed}\n{CUE_TAIL}"


def exp_prompt(cue: str, form: str) -> str:
    """The Exp question (Eq. 5) given the correct cue phrase."""
    return f"{PROMPTS[('pair', form)]} {EXP_QUESTION.format(cue=cue)}"


# GPT-4 as f_sim, "scoring from 0 to 10" (Experimental Setup); the paper does not print the judge prompt.
JUDGE_SYSTEM = "You are a careful evaluator of image descriptions and causal explanations."
JUDGE_PROMPT = (
    "Two images show a cause and its effect. Human annotators described them; "
    "below is one part of each human explanation, the part describing {part_description}.\n\n"
    "Human references:\n{references}\n\nModel explanation (same part):\n{candidate}\n\n"
    "Rate the semantic similarity of the model explanation to the human references on a scale from 0 to 10 "
    '(0: unrelated or contradictory, 10: the same meaning). Reply with "Score: <number>" only.'
)
PART_DESCRIPTIONS = (
    "the content of the cause image (the first image)",
    "the content of the effect image (the second image)",
    "the causal link between the two images",
)


def judge_prompt(part: int, candidate: str, references: Sequence[str]) -> str:
    """The judge question for one part (0: cause image, 1: effect image, 2: causal link)."""
    listed = "\n".join(f"{number}. {reference}" for number, reference in enumerate(references, start=1))
    return JUDGE_PROMPT.format(part_description=PART_DESCRIPTIONS[part], references=listed, candidate=candidate)


# ---------------------------------------------------------------- Table 2 strategies (abductive_tasks.mucr.strategies)
# CoT (Kojima et al. 2022, "Large Language Models are Zero-Shot Reasoners"): the zero-shot trigger after the
# question. The reasoning comes first, so the choice prompts ask for the number last instead of first.
COT_TRIGGER = "Let's think step by step."
COT_TAILS = {
    _CHOICE_TAIL: "Give the option number (1, 2, 3 or 4) as your final answer.",
    CUE_TAIL: "Give the number of the phrase (1, 2, 3 or 4) as your final answer.",
}
# Kojima et al.'s second step (answer extraction, their §3 and Figure 2): the first step's prompt, its reasoning and
# the answer trigger, joined as their code joins them (prompt, reasoning, " " + trigger).
COT_ANSWER_TRIGGER = "Therefore, the answer is"
# CCoT (Mitra et al., CVPR 2024), as the authors' code words it (chancharikmitra/CCoT, LLaVA-1.5-13b/LLaVA_MMBench.py:
# ``sgPrompt`` after the question for the scene graph, then ``"Scene Graph: " + graph + "\n\n" + answerPrompt``
# before the question).
CCOT_GRAPH_REQUEST = (
    "For the provided image and its associated question, generate a scene graph in JSON format that includes "
    "the following:\n"
    "1. Objects that are relevant to answering the question\n"
    "2. Object attributes that are relevant to answering the question\n"
    "3. Object relationships that are relevant to answering the question\n\n"
    "Scene Graph:"
)
EXP_ANSWER_FORMAT = "Answer in three lines:"  # where the Exp question's answer format starts
CCOT_ANSWER_REQUEST = "Use the image and scene graph as context and answer the following question: "
# ICL (Brown et al. 2020): solved examples as text; MMICL (Zhao et al., ICLR 2024): the examples' images come with
# them, each declared by its position ("image 1 ... image 3"), as MMICL's image declarations name each image.
ICL_INTRO = "Two solved examples come first (their images are not shown), then the question about the image shown."
MMICL_INTRO = "Images 1 and 2 belong to two solved examples; image {query} belongs to the question."


def cot_prompt(question: str) -> str:
    """Zero-shot CoT: the task prompt with its answer request moved last, then the trigger."""
    for tail, final in COT_TAILS.items():
        if question.endswith(tail):
            question = question[: -len(tail)] + final
            break
    return f"{question}\n{COT_TRIGGER}"


def cot_answer_prompt(cot_question: str, reasoning: str) -> str:
    """Two-step CoT, step 2: the step-1 prompt (:func:`cot_prompt`), the step-1 reasoning, the answer trigger."""
    return f"{cot_question} {reasoning.strip()} {COT_ANSWER_TRIGGER}"


def ccot_graph_prompt(question: str) -> str:
    """CCoT stage 1: the question without its options or answer format (up to its question mark, as the authors'
    GPT-4V script cuts it; Exp: before its three-line format) and the scene graph request."""
    asked = question.split("?")[0] + "?" if "?" in question else question.split(EXP_ANSWER_FORMAT)[0].rstrip()
    return f"{asked}\n{CCOT_GRAPH_REQUEST}"


def ccot_answer_prompt(question: str, graph: str) -> str:
    """CCoT stage 2: the scene graph, then the answer request and the full question."""
    return f"Scene Graph: {graph}\n\n{CCOT_ANSWER_REQUEST}{question}"


def icl_prompt(shots: Sequence[tuple[str, str]], question: str) -> str:
    """Text-only in-context examples (question, gold answer) before the question."""
    examples = "\n\n".join(
        f"Example {number}:\n{shot}\nAnswer: {answer}" for number, (shot, answer) in enumerate(shots, start=1)
    )
    return f"{ICL_INTRO}\n\n{examples}\n\nQuestion:\n{question}"


def mmicl_prompt(shots: Sequence[tuple[str, str]], question: str) -> str:
    """In-context examples with their images (Form-1: one composite each): example k is image k, the question's
    composite comes last."""
    query = len(shots) + 1
    examples = "\n\n".join(
        f"Example {number} (image {number}):\n{shot}\nAnswer: {answer}"
        for number, (shot, answer) in enumerate(shots, start=1)
    )
    return f"{MMICL_INTRO.format(query=query)}\n\n{examples}\n\nQuestion (image {query}):\n{question}"
