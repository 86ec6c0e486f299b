"""Text-only tasks (``max_images_per_prompt: 0``) through every LLaVA backend: lmms-eval 0.7.3's chat ``llava_hf``
stopped the whole run (``images=[]`` to the processor, an ``IndexError`` in transformers 5), its simple form failed
every request (no inputs built for a request without images)."""

from __future__ import annotations

from pathlib import Path

import pytest
from transformers import AutoConfig

from abductive_tasks.cli import main

from helpers.runs import count, read_results, read_samples
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e

TASK = "nleye_triplet_text"


@pytest.fixture(scope="module")
def answering_llava(tmp_path_factory) -> Path:
    """A tiny LLaVA replying "1" to every prompt."""
    return build_tiny_llava(tmp_path_factory.mktemp("tiny-llava"), answer="1")


@pytest.fixture
def prompts_generated(monkeypatch) -> list[list[int]]:
    """The token ids of every prompt the tiny LLaVA generates from."""
    from transformers import LlavaForConditionalGeneration

    prompts: list[list[int]] = []
    real = LlavaForConditionalGeneration.generate

    def recording(self, *args, **kwargs):
        prompts.append(kwargs["input_ids"][0].tolist())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(LlavaForConditionalGeneration, "generate", recording)
    return prompts


def evaluate(model: list[str], checkpoint: Path, tasks: str, limit: int, output: Path) -> int:
    arguments = [*model, "--model_args", f"pretrained={checkpoint},device_map=cpu,device=cpu", "--tasks", tasks]
    return main([*arguments, "--limit", str(limit), "--log_samples", "--output_path", str(output)])


@pytest.mark.parametrize(
    "model",
    [["llava_hf"], ["llava_hf", "--force_simple"], ["llava"], ["llava_hf_scorer"]],
    ids=["llava_hf", "llava_hf-simple", "llava", "llava_hf_scorer"],
)
def test_every_llava_backend_answers_a_text_only_task(
    model, answering_llava, tmp_path, monkeypatch, prompts_generated, llava_images_per_call
):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    output = tmp_path / "out"
    assert evaluate(["--model", *model], answering_llava, TASK, 2, output) == 0
    results = read_results(output)
    assert count(results, TASK, "documents") == 2 and count(results, TASK, "request_failed") == 0
    assert [sample["filtered_resps"] for sample in read_samples(output, TASK)] == ["1", "1"]
    image_token = AutoConfig.from_pretrained(answering_llava).image_token_id
    assert len(prompts_generated) == 2 and all(image_token not in prompt for prompt in prompts_generated)
    assert llava_images_per_call == []  # no pixels reached the model


def test_the_nleye_group_completes_with_llava_hf(answering_llava, tmp_path, monkeypatch):
    """README's Quick start: the nleye group (nleye_triplet_text among its tasks) with --model llava_hf."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / "out"
    assert evaluate(["--model", "llava_hf"], answering_llava, "nleye", 1, output) == 0
    results = read_results(output)
    tasks = ("nleye_triplet", "nleye_triplet_combined", TASK, "nleye_pairs", "nleye_pairs_combined")
    assert all(count(results, task, "request_failed") == 0 for task in tasks)
