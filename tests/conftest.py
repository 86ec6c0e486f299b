"""Shared fixtures: offline environment, a copy of the sample data, image-count probes.

Helper modules (tiny models, the scripted OpenAI server, CLI runners) live in ``tests/helpers``
and are imported as ``helpers.<module>`` (``pythonpath = ["tests"]`` in pyproject.toml).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from abductive_tasks.inputs import files
from abductive_tasks.inputs.loading import SAMPLE_ROOT

from helpers.runs import OFFLINE


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Nothing in the suite may reach the network."""
    for key, value in OFFLINE.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def data_copy(tmp_path) -> Path:
    """A writable copy of the embedded sample, laid out as ``ABDUCTIVE_DATA=<root>`` expects."""
    root = tmp_path / "data"
    shutil.copytree(SAMPLE_ROOT, root)
    return root


@pytest.fixture
def edit_code(tmp_path, monkeypatch) -> Iterator[Callable[[ModuleType], None]]:
    """``edit_code(module)``: the module's source as a developer's edit leaves it (a copy with one line added, which
    ``module.__file__`` names for the rest of the test), as a new process would see it (``files.source_digest``
    forgotten)."""

    def edit(module: ModuleType) -> None:
        edited = tmp_path / "edited_code" / module.__name__ / Path(str(module.__file__)).name
        edited.parent.mkdir(parents=True)
        edited.write_bytes(Path(str(module.__file__)).read_bytes() + b"\n# edited\n")
        monkeypatch.setattr(module, "__file__", str(edited))
        files.source_digest.cache_clear()

    yield edit
    files.source_digest.cache_clear()


def _bytes_name(source: object) -> str:
    import hashlib
    import io

    return f"bytes:{hashlib.sha256(source.getvalue()).hexdigest()}" if isinstance(source, io.BytesIO) else ""


@pytest.fixture
def decoded_files(monkeypatch) -> list[str]:
    """Image files whose pixels PIL decodes, one entry per decode (recorded at ``ImageFile.load``, by the file's path,
    also when it was opened first and handed over; an image decoded from bytes, as a checked cache entry is, by the
    digest of those bytes)."""
    from PIL import ImageFile

    decoded: list[str] = []
    real = ImageFile.ImageFile.load

    def counting(self):
        if self.tile:  # pixels still to decode (an empty tile list: already loaded)
            decoded.append(str(self.filename) or _bytes_name(self.fp) or getattr(self.fp, "name", ""))
        return real(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", counting)
    return decoded


@pytest.fixture
def llava_images_per_call(monkeypatch) -> list[int]:
    """Images the tiny LLaVA encodes per forward call, recorded at LlavaModel.get_image_features."""
    from transformers.models.llava import modeling_llava

    counts: list[int] = []
    real = modeling_llava.LlavaModel.get_image_features

    def counting(self, pixel_values, *args, **kwargs):
        counts.append(pixel_values.shape[0])
        return real(self, pixel_values, *args, **kwargs)

    monkeypatch.setattr(modeling_llava.LlavaModel, "get_image_features", counting)
    return counts
