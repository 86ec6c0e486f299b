"""DVE prompts: Figure 5 (classification) and Figure 6 (generation), verbatim.

The figures do not show line breaks reliably: the example fields are on their own lines (ours),
and the generation prompt follows the line layout of the same request in Figure 7. Figure 6's
bullet lines end in ``*``, an extraction artefact Figure 7's copy lacks; it is left out.
"""

from __future__ import annotations

# Figure 5 (verbatim); the line breaks before the example fields are ours.
PROMPT_CLS = (
    "You are a helpful assistant that helps to determine if an update strengthens or weakens a hypothesis. "
    "The premise is an image that sets the scenario. The hypothesis is an inference based on this scenario, "
    "and the update provides additional information that could impact the hypothesis. Based on the premise "
    "provided and the given update, please judge whether the update strengthens or weakens the hypothesis. "
    "ONLY output strengthener or weakener in your final answer.\n"
    "Consider this image as a premise.\n"
    "Hypothesis: {hypothesis}\n"
    "Update: {update}"
)
# Figure 6 (verbatim), one line per line of Figure 7's initial request.
PROMPT_GEN = (
    "You are a helpful assistant that generates updates to impact hypotheses based on given premises.\n"
    "Consider this image as a premise.\n"
    "Hypothesis: {hypothesis}\n"
    "Goal: {goal}\n"
    "Based on the goal, generate an update that:\n"
    "- Strengthens the hypothesis if the goal is a strengthener.\n"
    "- Weakens the hypothesis if the goal is a weakener.\n"
    "Ensure the update is logically consistent with the image premise.\n"
    "Please provide only the update. Do not include any other information."
)


def classification_prompt(hypothesis: str, update: str) -> str:
    return PROMPT_CLS.format(hypothesis=hypothesis, update=update)


def generation_prompt(hypothesis: str, goal: str) -> str:
    return PROMPT_GEN.format(hypothesis=hypothesis, goal=goal)
