"""``nli_scorer``: NL-Eye's NLI predictors (§4.3, Table 3) on a tiny randomly initialised NLI cross-encoder."""

from __future__ import annotations

import math

import lmms_eval.models  # noqa: F401 - the model registry first (it imports our manifests)
import numpy as np
import pytest
import torch
from lmms_eval.api.instance import Instance
from lmms_eval.models import get_model
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from abductive_tasks.cli import main
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.models.arguments import ModelArgumentError
from abductive_tasks.models.nli_scorer import NliScorer, entailment_index
from abductive_tasks.nleye import data, descriptions, hooks

from helpers.runs import count, metric, read_results
from helpers.tiny_nli import build_tiny_nli

ITEMS = data.load(SAMPLE_ROOT / "nleye").items
PREMISE = "A baby stroller with a pacifier lying on the floor next to it."
HYPOTHESIS = "A crying baby sits in a stroller."


@pytest.fixture(scope="module")
def nli_dir(tmp_path_factory):
    return build_tiny_nli(tmp_path_factory.mktemp("tiny-nli"))


def test_registered_under_its_own_name():
    assert get_model("nli_scorer") is NliScorer


def test_entailment_label_from_the_checkpoint_names():
    assert entailment_index({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}) == 2
    assert entailment_index({0: "entailment", 1: "not_entailment"}) == 0
    assert entailment_index({"0": "LABEL_0", "1": "LABEL_1"}, "1") == 1
    assert entailment_index({0: "LABEL_0", 1: "Yes"}, "yes") == 1
    with pytest.raises(ModelArgumentError, match=r"hold not exactly one label naming entailment; name it with"):
        entailment_index({0: "LABEL_0", 1: "LABEL_1"})


def test_entailment_logits_by_hand_on_a_fixed_input(nli_dir):
    scorer = NliScorer(pretrained=str(nli_dir), device="cpu")
    assert scorer.entailment == 2  # bart-large-mnli's order: contradiction, neutral, entailment
    tokenizer = AutoTokenizer.from_pretrained(nli_dir)
    model = AutoModelForSequenceClassification.from_pretrained(nli_dir).eval()
    encoded = tokenizer(PREMISE, HYPOTHESIS, return_tensors="pt")
    words = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
    # One cross-encoder input: [CLS] premise [SEP] hypothesis [SEP], the hypothesis in segment 1.
    assert words[:4] == ["[CLS]", "a", "baby", "stroller"] and words.count("[SEP]") == 2
    split = words.index("[SEP]") + 1
    assert words[split:] == ["a", "crying", "baby", "sits", "in", "a", "stroller", ".", "[SEP]"]
    assert encoded["token_type_ids"][0].tolist() == [0] * split + [1] * (len(words) - split)
    # The classification head by hand: logits = W pooled + b, then a softmax over the three labels.
    with torch.inference_mode():
        pooled = model.bert(**encoded).pooler_output[0].numpy().astype(np.float64)
    weight = model.classifier.weight.detach().numpy().astype(np.float64)
    bias = model.classifier.bias.detach().numpy().astype(np.float64)
    logits = [sum(w * p for w, p in zip(row, pooled, strict=True)) + b for row, b in zip(weight, bias, strict=True)]
    entailment = math.exp(logits[2]) / sum(math.exp(value) for value in logits)
    assert scorer.entailment_probabilities([(PREMISE, HYPOTHESIS)]) == [pytest.approx(entailment, abs=1e-6)]
    # A head with zero weights and bias (1, 0, 2) gives e^2 / (e + 1 + e^2) = 0.665241 for any pair.
    with torch.no_grad():
        scorer.model.classifier.weight.zero_()
        scorer.model.classifier.bias.copy_(torch.tensor([1.0, 0.0, 2.0]))
    assert (
        scorer.entailment_probabilities([(PREMISE, HYPOTHESIS), (HYPOTHESIS, PREMISE)])
        == [pytest.approx(0.665241, abs=1e-6)] * 2
    )


def _requests(scorer: NliScorer, docs: list[dict]) -> list[Instance]:
    scorer.task_dict = {"nleye_triplet_text": {"test": docs}}
    return [
        Instance(
            "generate_until",
            ("prompt", {}, hooks.doc_to_visual_none, index, "nleye_triplet_text", "test"),
            idx=0,
            metadata={"task": "nleye_triplet_text", "doc_id": index, "repeats": 1, "split": "test"},
        )
        for index in range(len(docs))
    ]


def test_answers_the_more_entailed_hypothesis_in_both_orders(nli_dir):
    scorer = NliScorer(pretrained=str(nli_dir), device="cpu", batch_size=3)
    docs = list(hooks.triplet_text_docs_from(ITEMS))
    answers = scorer.generate_until(_requests(scorer, docs))
    for doc, answer in zip(docs, answers, strict=True):
        first, second = scorer.entailment_probabilities(
            [(doc["premise_description"], h) for h in doc["shown_descriptions"]]
        )
        assert answer == f"Hypothesis {1 if first >= second else 2} is more plausible."
        assert hooks.process_results_triplet_text(doc, [answer])["order1_acc"][1]["answer_status"] == "parsed"
    # The rigged head ties every pair: the first hypothesis shown wins.
    with torch.no_grad():
        scorer.model.classifier.weight.zero_()
    assert set(scorer.generate_until(_requests(scorer, docs[:4]))) == {"Hypothesis 1 is more plausible."}
    scorer.task_dict = {"nleye_pairs": {"test": [{"item_id": "1"}]}}
    pairs_request = Instance(
        "generate_until",
        ("p", {}, None, 0, "nleye_pairs", "test"),
        idx=0,
        metadata={"task": "nleye_pairs", "doc_id": 0, "repeats": 1, "split": "test"},
    )
    with pytest.raises(ValueError, match="nli_scorer answers the text-based NL-Eye triplet tasks"):
        scorer.generate_until([pairs_request])


@pytest.mark.e2e
def test_nleye_text_tasks_end_to_end(tmp_path, monkeypatch, nli_dir):
    """nleye_triplet_text on the gold descriptions, and nleye_triplet_described on a describer's store holding the
    same texts: the gold hypothesis is picked where the tiny model finds it more entailed, in both orders."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIPTIONS", "gold-copy")
    for item in ITEMS:
        for path, text in zip((item["premise_image"], *item["hypothesis_images"]), item["descriptions"], strict=True):
            digest = descriptions.image_digest(path)
            descriptions.STORE.save("gold-copy", digest, hooks.describe_digest(path), text, "parsed")
    output = tmp_path / "out"
    tasks = "nleye_triplet_text,nleye_triplet_described"
    assert main(["--model", "nli_scorer", "--model_args", f"pretrained={nli_dir},device=cpu", "--tasks", tasks,
                 "--output_path", str(output)]) == 0  # fmt: skip
    results = read_results(output)
    scorer = NliScorer(pretrained=str(nli_dir), device="cpu")
    gold_wins = []
    for item in ITEMS:
        premise, first, second = item["descriptions"]
        scores = scorer.entailment_probabilities([(premise, first), (premise, second)])
        gold_wins.append(scores[item["gold"] - 1] > scores[2 - item["gold"]])
    expected = sum(gold_wins) / len(ITEMS)
    assert 0 < expected < 1
    for task in ("nleye_triplet_text", "nleye_triplet_described"):
        # Scores do not depend on the order shown: consistency equals each order's accuracy (Table 7's BART row).
        for name in ("consistency_acc", "order1_acc", "order2_acc"):
            assert metric(results, task, name) == pytest.approx(expected)
        assert count(results, task, "items_scored") == 12 and count(results, task, "unparsable") == 0
    assert count(results, "nleye_triplet_described", "items_missing_upstream") == 0
