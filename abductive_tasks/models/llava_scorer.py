"""``llava_hf_scorer``: image-aware loglikelihood for LLaVA-style transformers checkpoints.

lmms-eval 0.7.3's simple ``llava_hf`` scores a continuation by tokenising the context
*without* its images, which transformers 5 rejects (the prompt holds ``<image>`` tokens but no
pixels). This subclass keeps everything else of ``llava_hf`` (loading, generation, model
arguments; a task without images is answered: :mod:`~abductive_tasks.models.text_only`) and replaces
``loglikelihood``: the prompt (``<image>`` tokens prepended, the
checkpoint's chat template with the generation prompt) goes through the processor *with* the
request's images; the continuation's tokens are appended; one forward pass gives their
log-probabilities.

Result per request, lmms-eval's loss-like convention (lower = more plausible, the same scale as
``llava_hf`` with images): ``(-mean log-prob of the continuation tokens, is_greedy)``; model
argument ``score=sum`` gives ``-summed log-prob`` instead. Requests are batched with right
padding (``--batch_size``), so a request's score does not depend on its batch.

    --model llava_hf_scorer --model_args pretrained=llava-hf/llava-1.5-7b-hf
"""

from __future__ import annotations

import torch
from lmms_eval.api.instance import Instance
from lmms_eval.models.simple.llava_hf import DEFAULT_IMAGE_TOKEN

from abductive_tasks.models.arguments import CheckedArguments
from abductive_tasks.models.devices import DevicesAsTyped
from abductive_tasks.models.text_only import AnswersTextOnly

SCORE_MODES = ("mean", "sum")


class LlavaHfScorer(CheckedArguments, DevicesAsTyped, AnswersTextOnly):
    """``llava_hf`` (simple) whose loglikelihood passes the images through the processor."""

    model_id = "llava_hf_scorer"

    def __init__(self, score: str = "mean", **kwargs) -> None:
        """``score``: "mean" (default) or "sum" of the continuation's token log-probs; other
        arguments are ``llava_hf``'s (e.g. ``pretrained``, ``device_map``, ``dtype``)."""
        if score not in SCORE_MODES:
            raise ValueError(f"llava_hf_scorer: score must be one of {SCORE_MODES}, got '{score}'")
        super().__init__(**kwargs)
        self.score = score

    def _prompt(self, context: str, images: int) -> str:
        """The user turn (image tokens first, as ``llava_hf`` does) rendered up to the assistant's answer."""
        image_token = getattr(self._image_processor, "image_token", DEFAULT_IMAGE_TOKEN)
        if images and image_token not in context:
            context = f"{' '.join([image_token] * images)}\n{context}"
        return self._render(context)

    def _encode(self, request: Instance) -> dict:
        """Token ids of prompt + continuation, the continuation's length, and the processor's image tensors."""
        context, target, doc_to_visual, doc_id, task, split = request.args
        doc = self.task_dict[task][split][doc_id]
        continuation = target if isinstance(target, str) else target(doc)
        visuals = self.flatten([doc_to_visual(doc)])
        prompt = self._prompt(context, len(visuals))
        if not continuation[:1].isspace() and not prompt[-1:].isspace():
            continuation = f" {continuation}"
        # The continuation's tokens: what the text adds to the prompt (tokenised together, so a
        # word is split as the model would see it); the processor expands the prompt's image tokens.
        prompt_ids, full_ids = self.tok_encode(prompt), self.tok_encode(prompt + continuation)
        if full_ids[: len(prompt_ids)] != prompt_ids or len(full_ids) == len(prompt_ids):
            raise ValueError(
                f"llava_hf_scorer: the continuation of document {doc_id} of task {task} does not extend the "
                "prompt's tokens"
            )
        inputs = self._image_processor(text=[prompt + continuation], images=visuals or None, return_tensors="pt")
        images = {name: value for name, value in inputs.items() if name not in ("input_ids", "attention_mask")}
        return {
            "ids": inputs["input_ids"][0].tolist(),
            "continuation": len(full_ids) - len(prompt_ids),
            "images": images,
        }

    @torch.inference_mode()
    def _score_batch(self, encoded: list[dict]) -> list[tuple[float, bool]]:
        length = max(len(item["ids"]) for item in encoded)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.eot_token_id
        input_ids = torch.full((len(encoded), length), pad, dtype=torch.long)
        attention_mask = torch.zeros((len(encoded), length), dtype=torch.long)
        for row, item in enumerate(encoded):  # right padding: real tokens keep their positions
            input_ids[row, : len(item["ids"])] = torch.tensor(item["ids"])
            attention_mask[row, : len(item["ids"])] = 1
        images = {}
        for name in encoded[0]["images"]:
            images[name] = torch.cat([item["images"][name] for item in encoded]).to(self._device)
            if images[name].is_floating_point():
                images[name] = images[name].to(self.model.dtype)
        logits = self.model(
            input_ids=input_ids.to(self._device), attention_mask=attention_mask.to(self._device), **images
        ).logits.float()
        log_probs = torch.log_softmax(logits, dim=-1).cpu()
        results = []
        for row, item in enumerate(encoded):
            end = len(item["ids"])
            start = end - item["continuation"]
            targets = input_ids[row, start:end]
            predicted = log_probs[row, start - 1 : end - 1]  # position p predicts token p + 1
            token_log_probs = predicted.gather(-1, targets[:, None])[:, 0]
            total = float(token_log_probs.sum())
            value = -(total / len(targets)) if self.score == "mean" else -total
            results.append((value, bool((predicted.argmax(-1) == targets).all())))
        return results

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        """Loss-like score per request (see the module docstring), in request order."""
        encoded = [self._encode(request) for request in requests]
        order = sorted(range(len(encoded)), key=lambda index: -len(encoded[index]["ids"]))
        results: list[tuple[float, bool] | None] = [None] * len(encoded)
        batch: list[int] = []

        def flush() -> None:
            for index, result in zip(batch, self._score_batch([encoded[index] for index in batch]), strict=True):
                results[index] = result
            batch.clear()

        for index in order:
            shapes = {name: tuple(value.shape[1:]) for name, value in encoded[index]["images"].items()}
            if batch and shapes != {
                name: tuple(value.shape[1:]) for name, value in encoded[batch[0]]["images"].items()
            }:
                flush()  # image tensors of different shapes cannot be concatenated
            batch.append(index)
            if len(batch) >= self.batch_size:
                flush()
        if batch:
            flush()
        return results  # type: ignore[return-value]  # flush() filled every slot
