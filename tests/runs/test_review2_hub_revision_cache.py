"""REVIEW-2: a batch's run record says which commit of a hub model it ran (runs/run.py ran_weights, end_run), read
from the *batch process's* Hugging Face cache (identity._cached_revision: huggingface_hub.constants.HF_HUB_CACHE of
os.environ), not from the cache the run used when the spec's (or the model's) env sets HF_HUB_CACHE / HF_HOME. The
record, `show` and the leaderboard's footnote then name another commit than the one the run loaded.
Fails on review-2's base (main 63cc1216)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers.runs import OFFLINE


def _hub_cache(root, commit):
    model = root / "models--acme--tiny"
    (model / "refs").mkdir(parents=True)
    (model / "refs" / "main").write_text(commit)
    (model / "snapshots" / commit).mkdir(parents=True)
    (model / "snapshots" / commit / "config.json").write_text("{}")


def test_review2_run_record_names_the_commit_of_the_cache_the_run_used(tmp_path):
    batch_cache, run_cache = tmp_path / "hf-batch", tmp_path / "hf-run"
    _hub_cache(batch_cache, "a" * 40)  # what the batch's own environment points at (an older download)
    _hub_cache(run_cache, "b" * 40)  # what the spec's env gives the evaluation: the commit it loads
    (tmp_path / "spec.yaml").write_text(
        "output_dir: out\ntasks: [nleye_triplet]\nlimit: 2\n"
        f"env: {{ABDUCTIVE_DATA: sample, HF_HUB_CACHE: {run_cache}}}\n"
        "models:\n  - {name: m, backend: dummy, model_args: {response: '1', pretrained: acme/tiny}}\n"
    )
    environment = {**os.environ, **OFFLINE, "HF_HUB_CACHE": str(batch_cache)}
    done = subprocess.run(
        [sys.executable, "-m", "abductive_tasks.cli", "batch", "spec.yaml"],
        capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (record,) = (tmp_path / "out").rglob("run_identity.json")
    weights = json.loads(record.read_text())["weights"]
    assert weights == {"name": "acme/tiny", "revision": "b" * 40}  # today: "aaaa...", the batch's cache
