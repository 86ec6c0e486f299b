"""``--model llava``: LLaVA-1.5 and LLaVA-1.6 by their original names, on transformers' Llava classes.

lmms-eval's own ``llava`` backend imports the original LLaVA code base (package ``llava``), which does not
run with the transformers lmms-eval 0.7.3 needs. This model takes its place (lmms-eval registers entry-point
models over its built-ins) and runs through lmms-eval's ``llava_hf`` (loading, generation; the image-aware
loglikelihood of ``llava_hf_scorer``):

* an original checkpoint name (``liuhaotian/llava-v1.5-7b``, lmms-eval's default, and the rest of
  :data:`HUB_CONVERSIONS`) runs its published llava-hf conversion (LLaVA-1.6: ``LlavaNext``);
* a local folder in the original layout (haotian-liu/LLaVA) is converted once into the cache
  (:mod:`abductive_tasks.models.llava_original`);
* anything else (a llava-hf name, a folder in the transformers layout) goes to ``llava_hf`` as given.

``--device cpu`` / ``--device cuda:0`` work as typed (:mod:`abductive_tasks.models.devices`); without ``--device``,
the GPU when there is one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lmms_eval.models.simple.llava_hf import VICUNA_CHAT_TEMPLATE

from abductive_tasks.models.arguments import ModelArgumentError
from abductive_tasks.models.llava_scorer import LlavaHfScorer

DEFAULT_CHECKPOINT = "liuhaotian/llava-v1.5-7b"  # lmms-eval's llava default
# Original checkpoint -> its conversion published by llava-hf (docs/running.md and docs/models.md list the same).
HUB_CONVERSIONS = {
    "liuhaotian/llava-v1.5-7b": "llava-hf/llava-1.5-7b-hf",
    "liuhaotian/llava-v1.5-13b": "llava-hf/llava-1.5-13b-hf",
    "liuhaotian/llava-v1.6-vicuna-7b": "llava-hf/llava-v1.6-vicuna-7b-hf",
    "liuhaotian/llava-v1.6-vicuna-13b": "llava-hf/llava-v1.6-vicuna-13b-hf",
    "liuhaotian/llava-v1.6-mistral-7b": "llava-hf/llava-v1.6-mistral-7b-hf",
    "liuhaotian/llava-v1.6-34b": "llava-hf/llava-v1.6-34b-hf",
}


def hub_name(pretrained: str | None) -> str:
    """The name ``pretrained`` is loaded by: the llava-hf conversion of an original name, else itself."""
    name = str(pretrained or DEFAULT_CHECKPOINT)
    return HUB_CONVERSIONS.get(name, HUB_CONVERSIONS.get(name.lower(), name))


def checkpoint(pretrained: str | None) -> str:
    """What ``llava_hf`` loads for ``pretrained``: a local original-layout folder converted (cached), an original
    name's llava-hf conversion, or ``pretrained`` itself."""
    from abductive_tasks.models import llava_original

    name = hub_name(pretrained)
    folder = Path(name).expanduser()
    if folder.is_dir() and llava_original.read_config(folder) is not None:
        try:
            return str(llava_original.converted(folder))
        except llava_original.OriginalLlavaError as error:
            raise ModelArgumentError(f"llava: {error}") from None
    if name != pretrained:
        from loguru import logger

        logger.info(f"llava: {pretrained or DEFAULT_CHECKPOINT} runs its transformers conversion {name}")
    return name


def renders_text(tokenizer) -> bool:
    """Whether the tokenizer's chat template keeps a user turn given as a string (True when it has none:
    ``llava_hf`` then uses its own)."""
    if tokenizer.chat_template is None:
        return True
    probe = "<image>\nWhich image follows?"
    try:
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": probe}], tokenize=False, add_generation_prompt=True
        )
    except Exception:  # a template that fails on strings
        return False
    return probe in text


def checked_folder(model: str, pretrained: object) -> None:
    """Refuse a damaged local checkpoint folder in one line naming the file
    (:func:`~abductive_tasks.models.llava_original.check_files`); a hub name is left to the loader."""
    from abductive_tasks.models import llava_original

    folder = Path(str(pretrained or "")).expanduser()
    if str(pretrained or "") and folder.is_dir():
        try:
            llava_original.check_files(folder)
        except llava_original.OriginalLlavaError as error:
            raise ModelArgumentError(f"{model}: {error}") from None


class LoadsInOneLine:
    """Mixin in front of a transformers backend: a local checkpoint that fails to load past :func:`checked_folder`
    (a weight of the wrong shape, an architecture transformers does not know) is one line naming the folder, not
    lmms-eval's traceback (``--verbosity DEBUG`` shows it)."""

    model_id: str

    def __init__(self, *args, **kwargs) -> None:
        try:
            super().__init__(*args, **kwargs)
        except Exception as error:
            pretrained = str(kwargs.get("pretrained") or "")
            if not pretrained or not Path(pretrained).expanduser().is_dir():
                raise
            why = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise ModelArgumentError(
                f"{self.model_id}: cannot load {pretrained} ({type(error).__name__}: {why})"
            ) from error


class Llava(LoadsInOneLine, LlavaHfScorer):
    """lmms-eval's ``llava_hf`` (with ``llava_hf_scorer``'s loglikelihood) for LLaVA checkpoints by any name."""

    model_id = "llava"

    def __init__(self, pretrained: str = DEFAULT_CHECKPOINT, **kwargs) -> None:
        """``pretrained``: an original LLaVA name, a llava-hf name, or a local folder in either layout; device
        arguments as typed (:mod:`abductive_tasks.models.devices`, through ``llava_hf_scorer``); other arguments are
        ``llava_hf``'s (``dtype``, ``attn_implementation``, ``device_map=auto`` to spread a model over GPUs...)."""
        super().__init__(pretrained=checkpoint(pretrained), **kwargs)
        if self.chat_template is None and not renders_text(self.tokenizer):  # type: ignore[has-type]  # llava_hf's
            # A processor's template for list content only (llava_hf's simple path passes a string): the prompt
            # would lose its text. lmms-eval's template for LLaVA-1.5, as llava_hf uses when there is none.
            from loguru import logger

            logger.warning("llava: the checkpoint's chat template drops string content; using LLaVA-1.5's")
            self.chat_template = VICUNA_CHAT_TEMPLATE

    @classmethod
    def preflight(cls, arguments: Mapping) -> None:
        """Refuse, before lmms-eval starts, a damaged local checkpoint (:func:`checked_folder`) and an original-layout
        folder that cannot be converted here (or into an unwritable cache)."""
        from abductive_tasks.models import llava_original

        folder = Path(hub_name(arguments.get("pretrained"))).expanduser()
        config = llava_original.read_config(folder) if folder.is_dir() else None
        if config is None:
            checked_folder("llava", folder)
        else:
            try:
                llava_original.writable_cache_folder(folder, config, llava_original.check(folder, config))
            except llava_original.OriginalLlavaError as error:
                raise ModelArgumentError(f"llava: {error}") from None
