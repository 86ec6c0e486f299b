"""``--model llava_hf`` with device arguments as typed (:mod:`abductive_tasks.models.devices`), its ``--model_args``
checked by name before the run (:class:`~abductive_tasks.models.arguments.CheckedArguments`: lmms-eval's class asserts
that it got no other keyword, a traceback), and a damaged local checkpoint named in one line
(:func:`~abductive_tasks.models.llava.checked_folder` before the run,
:class:`~abductive_tasks.models.llava.LoadsInOneLine` while loading).

Registered over lmms-eval's own ``llava_hf`` (entry-point models are registered after the built-ins, with
overwrite), in both of its forms: the chat class (the default) and the simple one (``--force_simple``). Both answer
a task without images, which lmms-eval 0.7.3's fail (the chat form: :class:`ImagesOrNone`; the simple one:
:class:`~abductive_tasks.models.text_only.AnswersTextOnly`). Nothing else changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lmms_eval.models.chat.llava_hf import LlavaHf as _ChatLlavaHf

from abductive_tasks.models.arguments import CheckedArguments
from abductive_tasks.models.devices import DevicesAsTyped
from abductive_tasks.models.llava import LoadsInOneLine, checked_folder
from abductive_tasks.models.text_only import AnswersTextOnly


class CheckedCheckpoint(CheckedArguments, LoadsInOneLine):
    model_id = "llava_hf"

    @classmethod
    def preflight(cls, arguments: Mapping) -> None:
        """Refuse a damaged local checkpoint before lmms-eval starts (``abductive-eval`` calls it)."""
        checked_folder(cls.model_id, arguments.get("pretrained"))


class ImagesOrNone:
    """A processor called with ``images=None`` where it is given none: lmms-eval 0.7.3's chat ``llava_hf`` passes a
    request without images ``images=[]``, and transformers 5's image processor then indexes ``images[0]``
    (``IndexError``: the whole run stops). Anything else is the processor's own: attributes read and set on it."""

    def __init__(self, processor: Any) -> None:
        object.__setattr__(self, "processor", processor)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if isinstance(kwargs.get("images"), list) and not kwargs["images"]:
            kwargs["images"] = None
        return self.processor(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name == "processor":  # not set yet (a copy or an unpickling in progress): no lookup through itself
            raise AttributeError(name)
        return getattr(self.processor, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.processor, name, value)


class LlavaHf(CheckedCheckpoint, DevicesAsTyped, AnswersTextOnly):
    """lmms-eval's simple ``llava_hf``, answering tasks without images."""


class LlavaHfChat(CheckedCheckpoint, DevicesAsTyped, _ChatLlavaHf):
    """lmms-eval's chat ``llava_hf``, its processor given no empty image list (:class:`ImagesOrNone`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._image_processor = ImagesOrNone(self._image_processor)  # type: ignore[has-type]  # llava_hf sets it
