"""A real backend: a tiny random LLaVA through lmms-eval's llava_hf, driven by abductive-eval in-process."""

from __future__ import annotations

from collections import Counter

import pytest

from abductive_tasks.cli import main

from helpers.runs import metric, read_results
from helpers.tiny_llava import build_tiny_llava

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
