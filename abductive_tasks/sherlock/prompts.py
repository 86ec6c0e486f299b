"""Sherlock prompts: ours. The paper's models are CLIP-style scorers that read no prompt (§5), so it prints none.

Both name the highlighted region as the paper renders it (purple fill, green outline; §5, Fig. 5b;
:func:`abductive_tasks.inputs.images.draw_regions`). The wording is ours (see the task README).
"""

from __future__ import annotations

# Loglikelihood route: the context; the continuation whose likelihood is scored is the inference itself.
LOGLIKELIHOOD_CONTEXT = (
    "Look at the region of the image highlighted with a purple fill and a green outline. "
    "What can you infer from it about the scene?"
)

# Rating route: a 1-10 plausibility rating of the inference, read with reading.kinds.Score(1, 10).
RATING_PROMPT = (
    "Look at the region of the image highlighted with a purple fill and a green outline. "
    'Consider this inference about the scene: "{inference}"\n'
    "How plausible is it that this inference can be drawn from the highlighted region and the rest of the image? "
    "Rate the plausibility with a score between 1 and 10, "
    "where 1 means not plausible at all and 10 means almost certainly true. "
    'Answer in the form "Score: N".'
)


def rating_prompt(inference: str) -> str:
    return RATING_PROMPT.format(inference=inference)
