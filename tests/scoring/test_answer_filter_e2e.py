"""The shipped example task (docs/examples/read_answer/) run by plain lmms-eval: its YAML names the ``read_answer``
filter, which our installed plugin registers, beside lmms-eval's own ``multi_choice_regex``; replies come from a
scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers.openai_stub import OpenAIStub, message_text
from helpers.runs import OFFLINE, read_results

pytestmark = pytest.mark.e2e

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "read_answer"
# One reply per question of the example, chosen by a word of its question
REPLIES = {
    "mammal": "Dolphins breathe air and nurse their young, so the answer is (B).",
    "7 times 6": "7 x 6 = 42. Wait, let me double-check: 6 x 7 = 42. Final answer: B",
    "closest to the Sun": "It's not (A) Venus and not (B) Earth: the closest planet is Mercury.",
    "photosynthesis": "I can't view the second image, so I cannot determine which option is correct.",
    "liquid at room temperature": "Neither iron nor copper, but if forced to choose, (D) None of the above.",
}


def reply(body: dict) -> str:
    text = message_text(body)
    return next(answer for key, answer in REPLIES.items() if key in text)


def test_a_task_yaml_names_the_reader_as_its_filter(tmp_path):
    documents = [json.loads(line) for line in (EXAMPLE / "read_answer_example.jsonl").read_text().splitlines()]
    config = yaml.safe_load((EXAMPLE / "read_answer_example.yaml").read_text())
    assert [step["function"] for step in config["filter_list"][0]["filter"]] == ["read_answer", "take_first"]
    with OpenAIStub(reply) as stub:
        environment = {**os.environ, **OFFLINE, "OPENAI_API_BASE": stub.url, "OPENAI_API_KEY": "EMPTY"}
        command = [sys.executable, "-m", "lmms_eval", "--model", "openai", "--model_args",
                   "model_version=stub,max_retries=1", "--include_path", str(EXAMPLE), "--tasks",
                   "read_answer_example", "--output_path", str(tmp_path / "out"), "--log_samples"]  # fmt: skip
        completed = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=600)
        assert len(stub.requests) == len(documents)
    assert completed.returncode == 0, completed.stderr[-3000:]
    (samples,) = (tmp_path / "out").rglob("*_samples_read_answer_example.jsonl")
    logged = [json.loads(line) for line in samples.read_text().splitlines()]
    # each filter logs every document once, read_answer first
    ours, theirs = logged[: len(documents)], logged[len(documents) :]
    assert [sample["filtered_resps"] for sample in ours] == ["B", "B", "C", "[invalid]", "[invalid]"]
    assert [sample["filtered_resps"] for sample in theirs] == ["(B)", "(B)", "(A)", "[invalid]", "(D)"]
    results = read_results(tmp_path / "out")["read_answer_example"]
    assert results["exact_match,read_answer"] == pytest.approx(3 / 5)
    assert results["exact_match,multi_choice_regex"] == pytest.approx(2 / 5)
    assert [document["answer"] for document in documents] == ["B", "B", "C", "C", "B"]
