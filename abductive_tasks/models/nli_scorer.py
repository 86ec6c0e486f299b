"""``nli_scorer``: NL-Eye's fine-tuned NLI predictors (§4.3 "NLI models", Table 3 "BART L mnli", "DeBERTa nli v3").

"For fine-tuned NLI models, we compute two 'entailment' scores between the premise and each hypothesis, and the
final prediction is made based on the hypothesis with the higher score." For each document of the text-based
triplet tasks (``nleye_triplet_text`` on the gold descriptions, ``nleye_triplet_described`` on a describer's) the
backend scores the pairs (premise description, hypothesis description) in the order shown with any
``transformers`` sequence-classification NLI checkpoint, takes the entailment probability (softmax over the
checkpoint's labels), and answers ``Hypothesis <k> is more plausible.`` for the higher one (the first on a tie),
so the answer goes through the task's reading and metrics like any model's. Nothing is generated and the prompt
is not read: the scores depend on the two texts only, so a prediction does not change with the hypothesis order
(Table 7 prints 68.0% for BART-L-MNLI in both orders and in consistency).

``--model nli_scorer --model_args pretrained=facebook/bart-large-mnli`` (or a local folder). The entailment label
is the one whose name contains "entail" in the checkpoint's ``id2label``; ``entailment_label=<name or index>``
names it where that is ambiguous.
"""

from __future__ import annotations

import torch
from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from abductive_tasks.models.arguments import CheckedArguments, ModelArgumentError

TASK_FIELDS = ("premise_description", "shown_descriptions")


def entailment_index(id2label: dict[int, str], named: str = "") -> int:
    """The output index of the entailment class: ``named`` (a label name or an index), else the one label whose
    name contains "entail"."""
    labels = {int(index): str(label) for index, label in id2label.items()}
    if named:
        if named.isdigit() and int(named) in labels:
            return int(named)
        matches = [index for index, label in labels.items() if label.lower() == named.lower()]
    else:
        matches = [index for index, label in labels.items() if "entail" in label.lower()]
        matches = [index for index in matches if "not" not in labels[index].lower()] or matches
    if len(matches) != 1:
        wanted = f"the label {named!r}" if named else "one label naming entailment"
        raise ModelArgumentError(
            f"nli_scorer: the checkpoint's labels {sorted(labels.values())} hold not exactly {wanted}; "
            "name it with --model_args entailment_label=<label or index>"
        )
    return matches[0]


class NliScorer(CheckedArguments, lmms):
    """Answers a text-based NL-Eye triplet with the hypothesis an NLI cross-encoder finds more entailed."""

    model_id = "nli_scorer"

    def __init__(
        self,
        pretrained: str,
        entailment_label: str = "",
        batch_size: int | str = 16,
        max_batch_size: int | None = None,
        device: str | None = None,
    ) -> None:
        """``pretrained``: a transformers sequence-classification NLI checkpoint (hub id or local folder);
        ``entailment_label``: the label (name or index) that means entailment, when the checkpoint's names do not
        say; ``batch_size``: pairs per forward pass (lmms-eval's ``--batch_size``); ``device`` defaults to CUDA
        when available."""
        super().__init__()
        self._device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.tokenizer = AutoTokenizer.from_pretrained(pretrained)
        self.model = AutoModelForSequenceClassification.from_pretrained(pretrained).to(self._device).eval()
        self.entailment = entailment_index(self.model.config.id2label, str(entailment_label))
        self.batch_size = max(1, int(batch_size))

    @property
    def device(self) -> torch.device:
        return self._device

    @torch.inference_mode()
    def entailment_probabilities(self, pairs: list[tuple[str, str]]) -> list[float]:
        """P(entailment | premise, hypothesis) for each (premise, hypothesis) pair: softmax over all labels."""
        probabilities: list[float] = []
        for start in range(0, len(pairs), self.batch_size):
            chunk = pairs[start : start + self.batch_size]
            encoded = self.tokenizer(
                [premise for premise, _ in chunk],
                [hypothesis for _, hypothesis in chunk],
                padding=True,
                truncation=True,
                return_tensors="pt",
            ).to(self._device)
            logits = self.model(**encoded).logits.float()
            probabilities += torch.softmax(logits, dim=-1)[:, self.entailment].tolist()
        return probabilities

    def generate_until(self, requests: list[Instance]) -> list[str]:
        pairs: list[tuple[str, str]] = []
        for request in requests:
            _context, _gen_kwargs, _doc_to_visual, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            if any(field not in doc for field in TASK_FIELDS) or len(doc["shown_descriptions"]) != 2:
                raise ValueError(
                    f"nli_scorer answers the text-based NL-Eye triplet tasks (nleye_triplet_text, "
                    f"nleye_triplet_described); task '{task}' documents lack a premise and two hypothesis descriptions"
                )
            pairs += [(doc["premise_description"], hypothesis) for hypothesis in doc["shown_descriptions"]]
        scores = self.entailment_probabilities(pairs)
        answers = []
        for first, second in zip(scores[0::2], scores[1::2], strict=True):
            answers.append(f"Hypothesis {1 if first >= second else 2} is more plausible.")
        return answers

    def generate_until_multi_round(self, requests: list[Instance]) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        raise NotImplementedError("nli_scorer answers generation requests of the text-based NL-Eye triplet tasks only")
