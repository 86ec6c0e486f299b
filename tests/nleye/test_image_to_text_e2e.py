"""NL-Eye image-to-text (t.1) end to end: the tiny local LLaVA describes every image (llava_hf), then a
different predictor (the scripted OpenAI-compatible server, lmms-eval's ``openai`` backend) predicts from the
gold descriptions and from the tiny LLaVA's in one run (Table 3's layout). lmms-eval's ``llava_hf`` cannot be
the predictor: it fails on prompts without an image (IndexError in 0.7.3), as for ``nleye_triplet_text``."""

from __future__ import annotations

import re

import pytest

from abductive_tasks.cli import main
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.nleye import data, descriptions

from helpers.openai_stub import OpenAIStub, message_text
from helpers.runs import metric, read_results, read_samples
from helpers.tiny_llava import build_tiny_llava
from sample_generators.nleye import ITEMS

pytestmark = pytest.mark.e2e

PLAUSIBLE = {item[5] for item in ITEMS}  # the sample's gold-hypothesis descriptions
HYPOTHESIS = re.compile(r"^Hypothesis ([12]): (.*)$", re.M)


def gold_reader(body: dict) -> str:
    """A predictor that knows the sample's plausible hypotheses: right on gold descriptions, "1" otherwise."""
    shown = dict(HYPOTHESIS.findall(message_text(body)))
    chosen = next((number for number, text in sorted(shown.items()) if text in PLAUSIBLE), "1")
    return f"Hypothesis {chosen} is more plausible."


def test_describer_and_predictor_chosen_independently(tmp_path, monkeypatch):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    llava = ["--model", "llava_hf", "--model_args", f"pretrained={model_dir},device_map=cpu,device=cpu"]
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIBER", "tiny-llava")

    # Describe stage: one request per distinct image, every reply stored under the describer.
    described = tmp_path / "describe"
    assert main([*llava, "--tasks", "nleye_describe", "--gen_kwargs", "max_new_tokens=6", "--log_samples",
                 "--output_path", str(described)]) == 0  # fmt: skip
    counts = metric(read_results(described), "nleye_describe", "describe_counts")
    assert counts["images"] == 36 and counts["described"] + counts["request_failed"] == 36
    assert counts["described"] > 0
    replies = {
        sample["described_rate"][1]["item_id"]: sample["filtered_resps"]  # one reply per document (record logged once)
        for sample in read_samples(described, "nleye_describe")
    }
    folder = descriptions.describer_folder("tiny-llava")
    stored = {path.stem: descriptions.STORE.lookup("tiny-llava", path.stem)[0].value for path in folder.glob("*.json")}
    assert stored == {digest: reply.strip() for digest, reply in replies.items() if reply.strip()}

    # Predict stage, another model: gold descriptions and the tiny LLaVA's in one run.
    monkeypatch.delenv("ABDUCTIVE_NLEYE_DESCRIBER")
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIPTIONS", "tiny-llava")  # the predictor reads the tiny LLaVA's
    with OpenAIStub(gold_reader) as stub:
        monkeypatch.setenv("OPENAI_API_BASE", stub.url)
        monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
        predicted = tmp_path / "predict-stub"
        tasks = "nleye_triplet_text,nleye_triplet_described"
        assert main(["--model", "openai", "--model_args", "model_version=stub-predictor,max_retries=1",
                     "--tasks", tasks, "--output_path", str(predicted)]) == 0  # fmt: skip
        prompts = [message_text(body) for body in stub.requests]
        assert stub.image_counts() == [0] * len(prompts)  # text only
    results = read_results(predicted)
    items = data.load(SAMPLE_ROOT / "nleye").items
    complete = sum(
        all(descriptions.lookup("tiny-llava", path) for path in (item["premise_image"], *item["hypothesis_images"]))
        for item in items
    )
    gold_counts = metric(results, "nleye_triplet_text", "triplet_counts")
    described_counts = metric(results, "nleye_triplet_described", "triplet_counts")
    assert len(prompts) == 24 + 2 * complete
    assert gold_counts["items_scored"] == 12 and metric(results, "nleye_triplet_text", "consistency_acc") == 1.0
    assert (described_counts["items_scored"], described_counts["items_missing_upstream"]) == (12, 12 - complete)
    # The predictor finds no plausible description among the tiny LLaVA's, answers "1": right in one order only.
    assert metric(results, "nleye_triplet_described", "consistency_acc") == 0.0
    assert metric(results, "nleye_triplet_described", "order1_acc") == 1.0
    assert metric(results, "nleye_triplet_described", "order2_acc") == 0.0
    assert any(text in prompt for prompt in prompts for text in stored.values())  # its descriptions reached it
