"""``--model llava_hf`` with device arguments as typed (:mod:`abductive_tasks.models.devices`), its ``--model_args``
checked by name before the run (:class:`~abductive_tasks.models.arguments.CheckedArguments`: lmms-eval's class asserts
that it got no other keyword, a traceback), and a damaged local checkpoint named in one line
(:func:`~abductive_tasks.models.llava.checked_folder` before the run,
:class:`~abductive_tasks.models.llava.LoadsInOneLine` while loading).

Registered over lmms-eval's own ``llava_hf`` (entry-point models are registered after the built-ins, with
overwrite), in both of its forms: the chat class (the default) and the simple one (``--force_simple``). Nothing
else changes.
"""

from __future__ import annotations

from collections.abc import Mapping

from lmms_eval.models.chat.llava_hf import LlavaHf as _ChatLlavaHf
from lmms_eval.models.simple.llava_hf import LlavaHf as _SimpleLlavaHf

from abductive_tasks.models.arguments import CheckedArguments
from abductive_tasks.models.devices import DevicesAsTyped
from abductive_tasks.models.llava import LoadsInOneLine, checked_folder


class CheckedCheckpoint(CheckedArguments, LoadsInOneLine):
    model_id = "llava_hf"

    @classmethod
    def preflight(cls, arguments: Mapping) -> None:
        """Refuse a damaged local checkpoint before lmms-eval starts (``abductive-eval`` calls it)."""
        checked_folder(cls.model_id, arguments.get("pretrained"))


class LlavaHf(CheckedCheckpoint, DevicesAsTyped, _SimpleLlavaHf):
    """lmms-eval's simple ``llava_hf``."""


class LlavaHfChat(CheckedCheckpoint, DevicesAsTyped, _ChatLlavaHf):
    """lmms-eval's chat ``llava_hf``."""
