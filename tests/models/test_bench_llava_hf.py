"""utils/bench_llava_hf.py at its tiny size on the CPU: what it counts (requests, images, prompt and generated tokens,
failures, the split of the wall time) is what ran. Its timings are not checked: figures come from the script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def mucr_c2e_budget() -> int:
    """The task's max_new_tokens, from its prompt snapshot (tests/snapshots)."""
    for line in (ROOT / "tests/snapshots/mucr/mucr_c2e.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("generation_kwargs:"):
            return int(json.loads(line.split(":", 1)[1])["max_new_tokens"])
    raise AssertionError("mucr_c2e's snapshot names no generation_kwargs")


@pytest.mark.e2e
def test_the_tiny_run_counts_what_reached_the_model(tmp_path: Path) -> None:
    figures_file = tmp_path / "figures.json"
    command = [sys.executable, str(ROOT / "utils/bench_llava_hf.py"), "--size", "tiny", "--device", "cpu"]
    command += ["--tasks", "nleye_triplet", "nleye_triplet_text", "mucr_c2e_split", "--limit", "2"]
    command += ["--full-tasks", "mucr_c2e", "--full-limit", "1", "--json", str(figures_file)]
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "ABDUCTIVE_DATA": "sample"}
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(figures_file.read_text(encoding="utf-8"))
    short, full = figures["tasks"], figures["full"]
    expected_images = {"nleye_triplet": 3.0, "nleye_triplet_text": 0.0, "mucr_c2e_split": 5.0}
    for task, images in expected_images.items():
        row = short[task]
        assert row["error"] is None and row["generate_failures"] == {}, (task, row)
        assert (row["requests"], row["generate_calls"], row["images_per_request"]) == (2, 2, images), task
        assert row["new_tokens_per_request"] == 2.0, task  # the reply token, then the end of the reply
        assert sum(row["share"].values()) == pytest.approx(1.0, abs=1e-3), task
    # 576 image tokens per 336-px image (LLaVA-1.5's), none in the text-only prompt
    assert short["nleye_triplet"]["prompt_tokens_per_request"] > 3 * 576
    assert short["mucr_c2e_split"]["prompt_tokens_per_request"] > 5 * 576
    assert short["nleye_triplet_text"]["prompt_tokens_per_request"] < 576
    assert full["mucr_c2e"]["error"] is None
    assert full["mucr_c2e"]["new_tokens_per_request"] == mucr_c2e_budget()
    assert "| nleye_triplet_text | short | 2 | 0.0 |" in done.stdout
