"""A real backend: a tiny random LLaVA through lmms-eval's llava_hf and our llava (both checkpoint layouts)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from abductive_tasks.cli import main

from helpers.runs import OFFLINE, metric, read_results
from helpers.tiny_llava import build_tiny_llava
from helpers.tiny_llava_original import build_tiny_original_llava

pytestmark = pytest.mark.e2e


def test_tiny_llava_sees_every_image(tmp_path, monkeypatch, llava_images_per_call):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / "out"
    code = main(
        [
            "--model",
            "llava_hf",
            "--model_args",
            f"pretrained={model_dir},device_map=cpu,device=cpu",
            "--tasks",
            "nleye_triplet,nleye_triplet_combined,nleye_pairs",
            "--gen_kwargs",
            "max_new_tokens=4",
            "--output_path",
            str(output),
        ]
    )
    assert code == 0
    # One prefill per document: 24 triplet documents with 3 images, 24 combined with 1, 24 pairs with 2.
    assert Counter(llava_images_per_call) == {3: 24, 1: 24, 2: 24}
    results = read_results(output)
    for task in ("nleye_triplet", "nleye_triplet_combined"):
        counts = metric(results, task, "triplet_counts")
        assert counts["items_scored"] == 12 and counts["documents"] == 24
        assert 0.0 <= metric(results, task, "consistency_acc") <= 1.0
        # A random model's words are rarely "1" or "2":
        # whatever it says is parsed or counted (an empty reply as a failed request).
        unread = counts["unparsable"] + counts["request_failed"]
        assert metric(results, task, "consistency_acc") <= (24 - unread) / 24
    assert metric(results, "nleye_pairs", "pairs_counts")["items_scored"] == 12


LAYOUTS = ["hf", "original"]


def tiny_checkpoint(layout: str, folder: Path, answer: str | None = None) -> Path:
    """A tiny LLaVA in transformers' layout (``hf``) or the original (haotian-liu/LLaVA) one, under ``folder``;
    ``answer``: the word it replies to every prompt, then ends (default: arbitrary words)."""
    if layout == "hf":
        return build_tiny_llava(folder / "tiny-llava", answer=answer)
    return build_tiny_original_llava(folder / "tiny-original", answer=answer)


@pytest.fixture(params=LAYOUTS)
def llava_checkpoint(request, tmp_path):
    return tiny_checkpoint(request.param, tmp_path)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_mission_command_evaluates_llava_with_plain_lmms_eval(layout, tmp_path):
    """`ABDUCTIVE_DATA=sample lmms-eval --tasks nleye_triplet --model llava --model_args pretrained=<checkpoint>`
    as typed (plus --output_path, to read the results), in a fresh process, offline, on the CPU, with the task's own
    generation settings; the tiny LLaVA replies "1" to every prompt and ends its reply (a random one writes the
    task's 256 new tokens for each document), so every reply is read and the score is known."""
    llava_checkpoint = tiny_checkpoint(layout, tmp_path, answer="1")
    output = tmp_path / "out"
    command = [str(Path(sys.executable).with_name("lmms-eval")), "--tasks", "nleye_triplet", "--model", "llava"]
    command += ["--model_args", f"pretrained={llava_checkpoint}", "--output_path", str(output)]
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    completed = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]
    results = read_results(output)  # lmms-eval exits 0 on failure: the results file is the verdict
    counts = metric(results, "nleye_triplet", "triplet_counts")
    assert counts["documents"] == 24 and counts["items_scored"] == 12 and counts["request_failed"] == 0
    assert counts["unparsable"] == 0
    # "1" in both orders of each item: never the gold in both, so never consistent.
    assert metric(results, "nleye_triplet", "consistency_acc") == 0.0
    converted = list((tmp_path / "cache" / "llava_converted").glob("*/config.json"))
    assert len(converted) == (llava_checkpoint.name == "llava-v1.5-tiny")  # the original layout, converted once


def test_abductive_eval_runs_llava_with_every_image(llava_checkpoint, tmp_path, monkeypatch, llava_images_per_call):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    output = tmp_path / "out"
    arguments = ["--model", "llava", "--model_args", f"pretrained={llava_checkpoint}", "--device", "cpu"]
    code = main(
        [*arguments, "--tasks", "nleye_triplet", "--gen_kwargs", "max_new_tokens=4", "--output_path", str(output)]
    )
    assert code == 0
    assert Counter(llava_images_per_call) == {3: 24}  # one prefill per document, its three images
    counts = metric(read_results(output), "nleye_triplet", "triplet_counts")
    assert counts["documents"] == 24 and counts["items_scored"] == 12
