"""``--model llava_hf`` with device arguments as typed (:mod:`abductive_tasks.models.devices`).

Registered over lmms-eval's own ``llava_hf`` (entry-point models are registered after the built-ins, with
overwrite), in both of its forms: the chat class (the default) and the simple one (``--force_simple``). Nothing
else changes.
"""

from __future__ import annotations

from lmms_eval.models.chat.llava_hf import LlavaHf as _ChatLlavaHf
from lmms_eval.models.simple.llava_hf import LlavaHf as _SimpleLlavaHf

from abductive_tasks.models.devices import DevicesAsTyped


class LlavaHf(DevicesAsTyped, _SimpleLlavaHf):
    """lmms-eval's simple ``llava_hf``."""


class LlavaHfChat(DevicesAsTyped, _ChatLlavaHf):
    """lmms-eval's chat ``llava_hf``."""
