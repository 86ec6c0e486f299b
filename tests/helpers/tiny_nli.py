"""Build a tiny, randomly initialised NLI cross-encoder for offline tests.

``build_tiny_nli(out_dir)`` writes a ``BertForSequenceClassification`` (1 layer, hidden size 16) with MNLI's
three labels in bart-large-mnli's order (0 contradiction, 1 neutral, 2 entailment) and a word-level tokenizer
trained locally on the NL-Eye sample's descriptions that encodes a pair as ``[CLS] premise [SEP] hypothesis [SEP]``
(token types 0 then 1), so ``nli_scorer`` loads it with ``pretrained=<out_dir>``; nothing is downloaded.
"""

from __future__ import annotations

import pathlib

import torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

from sample_generators.nleye import ITEMS

CLS, SEP, PAD, UNK = "[CLS]", "[SEP]", "[PAD]", "[UNK]"
LABELS = {0: "contradiction", 1: "neutral", 2: "entailment"}


def _build_tokenizer() -> PreTrainedTokenizerFast:
    tokenizer = Tokenizer(models.WordLevel(unk_token=UNK))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = [text for item in ITEMS for text in item if isinstance(text, str)]
    tokenizer.train_from_iterator(corpus, trainer=trainers.WordLevelTrainer(special_tokens=[PAD, UNK, CLS, SEP]))
    cls, sep = tokenizer.token_to_id(CLS), tokenizer.token_to_id(SEP)
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{CLS} $A {SEP}",
        pair=f"{CLS} $A {SEP} $B:1 {SEP}:1",
        special_tokens=[(CLS, cls), (SEP, sep)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        cls_token=CLS,
        sep_token=SEP,
        pad_token=PAD,
        unk_token=UNK,
        model_max_length=64,
        model_input_names=["input_ids", "token_type_ids", "attention_mask"],
    )


def build_tiny_nli(out_dir: pathlib.Path) -> pathlib.Path:
    """Build and save a tiny randomly initialised (seeded) NLI checkpoint under out_dir; return its path."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = _build_tokenizer()
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id,
        num_labels=3,
        initializer_range=0.5,  # weights large enough that two hypotheses never tie on a float rounding
        id2label=LABELS,
        label2id={label: index for index, label in LABELS.items()},
    )
    torch.manual_seed(0)
    BertForSequenceClassification(config).eval().save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir
