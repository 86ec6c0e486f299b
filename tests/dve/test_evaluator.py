"""The inference-aware evaluator built from tiny random configs: shapes, determinism, batching,
the released checkpoint's key layout loading strictly, and training with the paper's loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image
from torchvision import models as tv_models
from transformers import AutoTokenizer, BertConfig

from abductive_tasks import settings
from abductive_tasks.dve import evaluator, training

from helpers.dve_tiny_models import TINY_RESNET, build_tiny_bert, build_tiny_evaluator


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("bert"))


def _model(bert_dir, seed: int = 0) -> evaluator.InferenceAwareEvaluator:
    torch.manual_seed(seed)
    return evaluator.InferenceAwareEvaluator(BertConfig.from_pretrained(bert_dir), evaluator.build_resnet(TINY_RESNET))


def _scorer(bert_dir, batch_size: int = 32, seed: int = 0) -> evaluator.EvaluatorScorer:
    return evaluator.EvaluatorScorer(
        _model(bert_dir, seed), AutoTokenizer.from_pretrained(bert_dir), batch_size=batch_size, device="cpu"
    )


IMAGES = [
    Image.new("RGB", size, color)
    for size, color in (((64, 48), (250, 10, 10)), ((30, 90), (10, 200, 30)), ((100, 100), (20, 20, 220)))
]
HYPOTHESES = ["a dog chases a rabbit", "the man is at work", "the young woman makes a meal"]
UPDATES = ["the dog is a hunting dog", "it is monday morning", "the woman is washing a dish"]


def test_shapes_and_dimensions(bert_dir):
    model = _model(bert_dir).eval()
    assert model.regressor.in_features == 16 + 512  # d2 (BERT hidden) + d1 (basic-block ResNet)
    assert model.classifier.out_features == 2
    pixels = torch.stack([evaluator.IMAGE_TRANSFORM(image) for image in IMAGES])
    assert pixels.shape == (3, 3, 224, 224)
    tokens = AutoTokenizer.from_pretrained(bert_dir)(
        HYPOTHESES, UPDATES, padding="max_length", truncation=True, max_length=128, return_tensors="pt"
    )
    assert tokens["input_ids"].shape == (3, 128)
    with torch.no_grad():
        logits, scores = model(pixels, tokens["input_ids"], tokens["attention_mask"])
    assert logits.shape == (3, 2) and scores.shape == (3,)


def test_resnet50_children_are_the_released_visual_layout():
    resnet = evaluator.build_resnet("resnet50")
    encoder = evaluator.VisualEncoder(resnet)
    assert encoder.output_size == 2048  # d1
    names = {name.split(".")[0] for name, _ in resnet.named_children()}
    assert "fc" in names and len(encoder.model) == 9
    reference = {key for key in tv_models.resnet50(weights=None).state_dict() if not key.startswith("fc.")}
    order = ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4", "avgpool"]
    renamed = {f"model.{order.index(key.split('.')[0])}.{key.split('.', 1)[1]}" for key in reference}
    assert set(encoder.state_dict()) == renamed
    with torch.no_grad():
        assert encoder.eval()(torch.zeros(1, 3, 224, 224)).shape == (1, 2048)


def test_predictions_are_deterministic_and_batch_independent(bert_dir):
    scorer = _scorer(bert_dir, batch_size=2)
    scores, probabilities = scorer.predict(IMAGES, HYPOTHESES, UPDATES)
    assert scores.shape == (3,) and probabilities.shape == (3,)
    assert ((probabilities > 0) & (probabilities < 1)).all()
    again, _ = scorer.predict(IMAGES, HYPOTHESES, UPDATES)
    assert (again == scores).all()
    singles = [
        scorer.predict([image], [hypothesis], [update])[0][0]
        for image, hypothesis, update in zip(IMAGES, HYPOTHESES, UPDATES, strict=True)
    ]
    assert singles == pytest.approx(scores, abs=1e-5)
    assert len(set(scores.round(6))) == 3  # the inputs reach the score


def test_state_dict_round_trips_strictly_in_the_released_layout(bert_dir, tmp_path):
    path = build_tiny_evaluator(tmp_path, bert_dir, seed=1)
    state = torch.load(path, weights_only=True)
    prefixes = {key.split(".")[0] for key in state}
    assert prefixes == {"bert_model", "visual_encoder", "regressor", "classifier"}
    visual = {int(key.split(".")[2]) for key in state if key.startswith("visual_encoder.")}
    assert visual == {0, 1, 4, 5, 6, 7}  # conv1, bn1, layer1-4 carry weights; relu, maxpool, avgpool do not
    assert {key for key in state if not key.startswith(("bert_model.", "visual_encoder."))} == {
        "regressor.weight",
        "regressor.bias",
        "classifier.weight",
        "classifier.bias",
    }
    assert state["regressor.weight"].shape == (1, 528) and state["classifier.weight"].shape == (2, 528)
    assert "bert_model.pooler.dense.weight" in state and "visual_encoder.model.4.0.conv1.weight" in state

    fresh = _model(bert_dir, seed=2)
    # Older transformers saved this buffer with BertModel; it is accepted and ignored.
    evaluator.load_weights(fresh, {**state, "bert_model.embeddings.position_ids": torch.arange(128)[None]})
    assert all(torch.equal(value, state[key]) for key, value in fresh.state_dict().items())
    with pytest.raises(RuntimeError, match="Unexpected key"):
        evaluator.load_weights(fresh, {**state, "extra_head.weight": torch.zeros(1)})
    with pytest.raises(RuntimeError, match="Missing key"):
        evaluator.load_weights(fresh, {key: value for key, value in state.items() if key != "classifier.bias"})


def test_configured_scorer_loads_a_local_checkpoint(bert_dir, tmp_path, monkeypatch):
    path = build_tiny_evaluator(tmp_path, bert_dir, seed=3)
    monkeypatch.setenv(evaluator.WEIGHTS_ENV, str(path))
    monkeypatch.setenv(evaluator.TEXT_ENV, str(bert_dir))
    monkeypatch.setenv(evaluator.RESNET_ENV, TINY_RESNET)
    evaluator.load_scorer.cache_clear()
    try:
        loaded = evaluator.configured_scorer()
        assert evaluator.configured_scorer() is loaded  # once per configuration
        expected, _ = _scorer(bert_dir, seed=3).predict(IMAGES, HYPOTHESES, UPDATES)
        assert loaded.predict(IMAGES, HYPOTHESES, UPDATES)[0] == pytest.approx(expected, abs=1e-6)
        monkeypatch.setenv(evaluator.RESNET_ENV, "resnet18")  # wrong architecture for these weights
        with pytest.raises(evaluator.EvaluatorUnavailable, match="ResNet 'resnet18'"):
            evaluator.configured_scorer()
        monkeypatch.setenv(evaluator.WEIGHTS_ENV, "off")
        with pytest.raises(evaluator.EvaluatorUnavailable, match="disabled"):
            evaluator.configured_scorer()
    finally:
        evaluator.load_scorer.cache_clear()


@pytest.mark.parametrize("spec", ["basic:1,1,1", "triangle:1,1,1,1", "vgg16"])
def test_bad_resnet_specs(spec):
    with pytest.raises(ValueError, match="ResNet spec"):
        evaluator.build_resnet(spec)


def test_training_loss_by_hand():
    # L_p = -(log sigmoid(1) + log sigmoid(0)) / 2 = (0.313262 + 0.693147) / 2; L_c = log 2 (zero logits).
    loss, pairwise, classification = evaluator.training_loss(
        torch.tensor([1.0, 0.0]), torch.tensor([0.0, 0.0]), torch.zeros(2, 2), torch.tensor([1.0, -1.0]), alpha=0.9
    )
    assert pairwise.item() == pytest.approx((0.3132617 + 0.6931472) / 2, abs=1e-6)
    assert classification.item() == pytest.approx(0.6931472, abs=1e-6)
    assert loss.item() == pytest.approx(0.1 * pairwise.item() + 0.9 * classification.item(), abs=1e-6)
    # A weakener scored below its caption costs less than one scored above it.
    low = evaluator.training_loss(torch.tensor([-1.0]), torch.tensor([0.0]), torch.zeros(1, 2), torch.tensor([-1.0]))[1]
    high = evaluator.training_loss(torch.tensor([1.0]), torch.tensor([0.0]), torch.zeros(1, 2), torch.tensor([-1.0]))[1]
    assert low < high


def test_training_on_the_sample(bert_dir, tmp_path, monkeypatch):
    assert training.parse_args(["--output", "x.pth"]).__dict__ | {"output": None} == {
        "output": None,
        "train_split": "train",
        "dev_split": "dev",
        "text_backbone": "google-bert/bert-large-uncased",
        "resnet": "resnet50",
        "init": "pretrained",
        "epochs": 20,
        "batch_size": 32,
        "lr": 5e-6,
        "weight_decay": 1e-4,
        "alpha": 0.9,
        "seed": 42,
        "device": "cpu",
    }
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / "trained.pth"
    arguments = [
        "--output",
        str(output),
        "--train-split",
        "test",
        "--dev-split",
        "test",
        "--text-backbone",
        str(bert_dir),
        "--resnet",
        TINY_RESNET,
    ]
    history = training.main([*arguments, "--init", "random", "--epochs", "1", "--batch-size", "17", "--lr", "1e-3"])
    assert [record["epoch"] for record in history] == [1]
    assert all(np.isfinite(record["train_loss"]) and 0.0 <= record["pairwise_accuracy"] <= 1.0 for record in history)
    evaluator.load_weights(_model(bert_dir), torch.load(output, weights_only=True))  # the released layout, strictly


def test_defaults_are_the_settings_defaults():
    assert (
        settings.VARIABLES[evaluator.TEXT_ENV].default
        == evaluator.TEXT_BACKBONE
        == training.parse_args(["--output", "x"]).text_backbone
    )
    assert settings.VARIABLES[evaluator.RESNET_ENV].default == evaluator.RESNET
    assert settings.VARIABLES[evaluator.WEIGHTS_ENV].default == evaluator.HUB_REPO
