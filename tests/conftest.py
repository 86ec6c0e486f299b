"""Shared fixtures: offline environment, a copy of the sample data, and lmms-eval CLI runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from abductive_tasks.data import SAMPLE_ROOT

# ABDUCTIVE_JUDGE=off: no test reaches a real judge even when the environment holds OPENAI_API_KEY;
# judge tests opt in with monkeypatch.setenv("ABDUCTIVE_JUDGE", "on") or env={"ABDUCTIVE_JUDGE": "on"}.
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "WANDB_MODE": "disabled", "ABDUCTIVE_JUDGE": "off"}


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


def abductive_eval(args: list[str], output: Path, data: str = "sample", env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the ``abductive-eval`` console command as a user would; output under ``output``."""
    command = [str(Path(sys.executable).with_name("abductive-eval")), *args, "--output_path", str(output)]
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": data, **(env or {})}
    return subprocess.run(command, capture_output=True, text=True, env=environment, cwd=output.parent, timeout=600)


def read_results(output: Path) -> dict:
    """The ``results`` section of the single results JSON a run wrote under ``output``."""
    (path,) = output.rglob("*_results.json")
    return json.loads(path.read_text())["results"]


def read_samples(output: Path, task: str) -> list[dict]:
    (path,) = output.rglob(f"*_samples_{task}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def metric(results: dict, task: str, name: str):
    return results[task][f"{name},none"]


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
