"""Tiny random models for the DVE model-based metrics, built offline in a test's tmp folder.

* ``build_tiny_bert(dir)``: a 2-layer BERT (hidden 16) with a word-piece tokenizer over a small
  vocabulary; serves as BERTScore's model and as the evaluator's text backbone.
* ``build_tiny_clip(dir)``: a 1-layer CLIP (32x32 images) with the same tokenizer.
* ``build_tiny_evaluator(dir, bert_dir)``: an ``InferenceAwareEvaluator`` with that BERT and a
  ResNet of one basic block per stage (``TINY_RESNET``), saved as ``evaluator_weights.pth``.

``tiny_metric_env(root)`` builds all three and returns the environment variables that point
the DVE metrics at them.
"""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import BertConfig, BertModel, BertTokenizerFast, CLIPConfig, CLIPImageProcessor, CLIPModel

from abductive_tasks.dve import evaluator, metrics

TINY_RESNET = "basic:1,1,1,1"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = (
    "a the an is are of and to in on at with his her their its it he she they man woman dog ball rabbit game "
    "tennis player young male child boy kitchen meal knife dish crew workers street truck supplies break lunch "
    "tired work desk suit badge monday morning grown running moves "
    "chases hunting bounces once weakener strengthener update hypothesis premise image goal , . ' \""
).split()


def build_tiny_bert(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(SPECIALS + WORDS) + "\n")
    tokenizer = BertTokenizerFast(
        vocab_file=str(folder / "vocab.txt"), do_lower_case=True, model_max_length=evaluator.MAX_TOKENS
    )
    tokenizer.save_pretrained(folder)
    config = BertConfig(
        vocab_size=len(SPECIALS) + len(WORDS),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=evaluator.MAX_TOKENS,
    )
    torch.manual_seed(0)
    BertModel(config).save_pretrained(folder)
    return folder


def build_tiny_clip(folder: Path, bert_folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = BertTokenizerFast.from_pretrained(bert_folder)
    tokenizer.save_pretrained(folder)
    text = {
        "vocab_size": len(tokenizer),
        "hidden_size": 16,
        "intermediate_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
    }
    text |= {
        "max_position_embeddings": 64,
        "bos_token_id": tokenizer.cls_token_id,
        "eos_token_id": tokenizer.sep_token_id,
        "pad_token_id": tokenizer.pad_token_id,
    }
    vision = {
        "hidden_size": 16,
        "intermediate_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "image_size": 32,
        "patch_size": 8,
    }
    torch.manual_seed(0)
    CLIPModel(CLIPConfig(text_config=text, vision_config=vision, projection_dim=8)).save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


def build_tiny_evaluator(folder: Path, bert_folder: Path, seed: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    model = evaluator.InferenceAwareEvaluator(
        BertConfig.from_pretrained(bert_folder), evaluator.build_resnet(TINY_RESNET)
    )
    torch.save(model.state_dict(), folder / evaluator.WEIGHTS_FILE)
    return folder / evaluator.WEIGHTS_FILE


def tiny_metric_env(root: Path) -> dict[str, str]:
    """Build the three tiny models under ``root``; the environment that selects them."""
    bert = build_tiny_bert(root / "bert")
    return {
        metrics.BERTSCORE_ENV: str(bert),
        metrics.CLIP_ENV: str(build_tiny_clip(root / "clip", bert)),
        evaluator.WEIGHTS_ENV: str(build_tiny_evaluator(root / "evaluator", bert)),
        evaluator.TEXT_ENV: str(bert),
        evaluator.RESNET_ENV: TINY_RESNET,
    }
