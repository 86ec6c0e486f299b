"""lmms-eval's simple ``llava_hf``, answering the requests that show no image.

lmms-eval 0.7.3's simple ``llava_hf.generate_until`` gives a request without images the task type "text" and never
builds the model's inputs for it: such a request fails (its reply is ``""``, an error in the log), or, after an image
request in the same call, is answered from that request's inputs (its prompt and images: a wrong reply, scored, with
no error), e.g. ``nleye_triplet_text`` in ``--tasks nleye``. :class:`AnswersTextOnly` answers every request without
images itself, as the simple form answers the others: the same prompt (its chat template choice, no image token), its
generation defaults, ``until`` taken out of the generation kwargs and not applied (the simple form does the same).
A request of a task whose metadata says ``max_images_per_prompt`` (ours) is told without decoding an image
(:func:`~abductive_tasks.compat.images_per_prompt`); another task's request is told by its visuals (its
``doc_to_visual`` then runs once more). Every request with images goes to lmms-eval's code as before.
"""

from __future__ import annotations

from lmms_eval.api.instance import Instance
from lmms_eval.models.simple.llava_hf import VICUNA_CHAT_TEMPLATE
from lmms_eval.models.simple.llava_hf import LlavaHf as _SimpleLlavaHf
from loguru import logger

from abductive_tasks.compat import images_per_prompt

GENERATION_DEFAULTS = {"max_new_tokens": 1024, "temperature": 0, "top_p": None, "num_beams": 1}  # the simple form's


class AnswersTextOnly(_SimpleLlavaHf):
    """lmms-eval's simple ``llava_hf`` whose requests of a task without images are answered (see the module)."""

    def _render(self, context: str) -> str:
        """The user turn ``context`` rendered up to the assistant's answer, with the chat template ``llava_hf``
        picks: its ``chat_template`` argument, else the checkpoint's, else LLaVA-1.5's."""
        template = self.chat_template or self.tokenizer.chat_template or VICUNA_CHAT_TEMPLATE
        return self.tokenizer.apply_chat_template(
            [{"role": "user", "content": context}], chat_template=template, tokenize=False, add_generation_prompt=True
        )

    def _answer_text(self, request: Instance) -> str:
        """The reply to one request without images; ``""`` (an error logged) when generation fails, as the simple
        form does."""
        context, gen_kwargs = request.args[:2]
        settings = {**GENERATION_DEFAULTS, **{key: value for key, value in gen_kwargs.items() if key != "until"}}
        do_sample = settings["temperature"] > 0
        inputs = self._image_processor(text=self._render(context), return_tensors="pt").to(self._device)
        try:
            output = self.model.generate(
                **inputs,
                do_sample=do_sample,
                temperature=settings["temperature"] if do_sample else None,
                top_p=settings["top_p"],
                num_beams=settings["num_beams"],
                max_new_tokens=settings["max_new_tokens"],
                use_cache=self.use_cache,
                pad_token_id=self.eot_token_id,
                eos_token_id=self.eot_token_id,
            )
        except Exception as error:
            logger.error(f"Error {error} in generating")
            return ""
        return self.tokenizer.batch_decode(output[:, inputs["input_ids"].shape[-1] :], skip_special_tokens=True)[0]

    def _shows_no_image(self, request: Instance) -> bool:
        """Whether ``request`` has no image: its task's ``max_images_per_prompt`` is 0, or, where its task declares
        none, its visuals are empty."""
        _context, _gen_kwargs, doc_to_visual, doc_id, task, split = request.args
        images = images_per_prompt(doc_to_visual)
        if images is not None:
            return images == 0
        return not self.flatten([doc_to_visual(self.task_dict[task][split][doc_id])])

    def generate_until(self, requests: list[Instance]) -> list[str]:
        """Replies in request order: a request without images answered here, the rest by lmms-eval's simple form."""
        text_only = [self._shows_no_image(request) for request in requests]
        others = [request for request, text in zip(requests, text_only, strict=True) if not text]
        replies = iter(super().generate_until(others) if others else [])
        return [
            self._answer_text(request) if text else next(replies)
            for request, text in zip(requests, text_only, strict=True)
        ]
