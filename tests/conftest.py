"""Shared fixtures: offline environment, a copy of the sample data, image-count probes.

Helper modules (tiny models, the scripted OpenAI server, CLI runners) live in ``tests/helpers``
and are imported as ``helpers.<module>`` (``pythonpath = ["tests"]`` in pyproject.toml).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from abductive_tasks.inputs import files
from abductive_tasks.inputs.loading import SAMPLE_ROOT

from helpers.runs import OFFLINE

SUITE_CACHES = "ABDUCTIVE_SUITE_CACHES"  # set by the first process of a run (xdist's controller), inherited
_made_here: list[Path] = []


def pytest_configure(config: pytest.Config) -> None:
    """The suite writes none of the caches of the machine's user (ours, and the Arrow copies ``datasets`` makes of
    each data file lmms-eval loads): both go to one folder per run, shared by its workers and removed at its end.
    So no run of the suite sees what an earlier one left, as on CI's fresh machine, and ``~/.cache`` stays the user's.
    Set before anything imports ``datasets``, which reads its cache's place once."""
    if SUITE_CACHES not in os.environ:
        _made_here.append(Path(tempfile.mkdtemp(prefix="abductive-suite-caches-")))
        os.environ[SUITE_CACHES] = str(_made_here[0])
    root = Path(os.environ[SUITE_CACHES])
    os.environ["ABDUCTIVE_CACHE"] = str(root / "abductive_tasks")
    os.environ["HF_DATASETS_CACHE"] = str(root / "datasets")


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _made_here:
        shutil.rmtree(folder, ignore_errors=True)


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
