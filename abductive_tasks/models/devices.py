"""Device arguments as a user types them, for lmms-eval's transformers backends (``llava_hf`` and ours on it).

lmms-eval 0.7.3's ``llava_hf`` defaults to ``device="cuda"`` and passes its ``device_map`` argument (default ``""``)
to ``from_pretrained``, which transformers 5 refuses (``ValueError: When passing device_map as a string ...``): on a
CPU machine neither no device argument nor ``--device cpu`` worked, only ``device_map=cpu,device=cpu``.
:func:`placement` turns what was typed into what the backend needs; :class:`DevicesAsTyped` applies it.
"""

from __future__ import annotations


def default_device() -> str:
    """The GPU when there is one, else the CPU."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def placement(device: str | None, device_map: str | None, processes: int = 1) -> dict[str, str]:
    """``device`` and ``device_map`` for the backend: a missing ``device`` is the GPU when there is one, else the
    CPU; a missing ``device_map`` places the whole model on ``device`` (with several processes it stays empty:
    ``llava_hf`` then puts each process on its own GPU). A ``device_map`` given (``auto``, ...) is kept."""
    device = str(device or default_device())
    return {"device": device, "device_map": str(device_map or ("" if processes > 1 else device))}


class DevicesAsTyped:
    """Mixin in front of an lmms-eval backend class whose ``__init__`` takes ``device`` and ``device_map``."""

    def __init__(self, *args, device: str | None = None, device_map: str | None = None, **kwargs) -> None:
        from accelerate import PartialState

        super().__init__(*args, **placement(device, device_map, PartialState().num_processes), **kwargs)
