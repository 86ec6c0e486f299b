"""Device arguments as a user types them, for lmms-eval's transformers backends (``llava_hf`` and ours on it).

lmms-eval 0.7.3's ``llava_hf`` defaults to ``device="cuda"`` and passes its ``device_map`` argument (default ``""``)
to ``from_pretrained``, which transformers 5 refuses (``ValueError: When passing device_map as a string ...``): on a
CPU machine neither no device argument nor ``--device cpu`` worked, only ``device_map=cpu,device=cpu``.
:func:`placement` turns what was typed into what the backend needs; :class:`DevicesAsTyped` applies it.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
from collections.abc import Mapping
from pathlib import Path

# Device files a GPU backend of torch opens: NVIDIA's driver (WSL 2: /dev/dxg), AMD's ROCm driver (/dev/kfd).
NVIDIA_DEVICES = ("nvidiactl", "nvidia0", "dxg")
ROCM_DEVICES = ("kfd",)


def torch_build() -> tuple[str | None, str | None] | None:
    """The CUDA and HIP versions the installed torch was built for (None each for a CPU-only build), read from its
    ``version.py`` without importing torch (seconds); None when torch is not installed or the file is not as
    expected."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    values: dict[str, object] = {}
    try:
        tree = ast.parse((Path(list(spec.submodule_search_locations)[0]) / "version.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.Assign | ast.AnnAssign):  # `name = value` or `name: type = value`
                continue
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if isinstance(target, ast.Name) and node.value is not None:
                values[target.id] = ast.literal_eval(node.value)
    except (OSError, SyntaxError, ValueError):
        return None
    cuda, hip = values.get("cuda"), values.get("hip")
    if "cuda" not in values or not isinstance(cuda, str | None) or not isinstance(hip, str | None):
        return None
    return cuda, hip


def cuda_unavailable(
    build: tuple[str | None, str | None] | None = None,
    devices: Path = Path("/dev"),
    environment: Mapping[str, str] = os.environ,
) -> str | None:
    """Why ``--device cuda...`` cannot work here, found without importing torch or starting the GPU driver (which
    would make later worker processes unable to use it); None when it may work (only what is certain is said).
    ``build``: :func:`torch_build` by default."""
    build = torch_build() if build is None else build
    if build is None:
        return None
    cuda, hip = build
    if not cuda and not hip:
        return "the installed torch is a CPU-only build"
    visible = environment.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return f"CUDA_VISIBLE_DEVICES={visible.strip()!r} hides every GPU"
    if not sys.platform.startswith("linux"):
        return None
    expected = NVIDIA_DEVICES if cuda else ROCM_DEVICES
    if not any((devices / name).exists() for name in expected):
        driver = "NVIDIA" if cuda else "ROCm"
        return (
            f"this machine has no {driver} GPU driver ({', '.join(str(devices / name) for name in expected)} missing)"
        )
    return None


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
