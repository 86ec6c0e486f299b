"""Build a tiny, randomly initialised sentence-transformers model for offline tests.

``build_tiny_embedder(out_dir)`` writes a one-layer BERT with a word-level tokenizer and mean
pooling as a sentence-transformers folder (about 100 kB, built in about a second); point
``ABDUCTIVE_SIMILARITY_MODEL`` at it. Its embeddings are meaningless, but identical texts get
identical embeddings, which is what the tests rely on. Nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path

import torch
from sentence_transformers import SentenceTransformer
from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
WORDS = (
    "a the man woman child dog cat sat ran fell wet floor slipped rain umbrella because so is was on in and of to it"
).split()
HIDDEN = 16


def build_tiny_embedder(out_dir: Path) -> Path:
    """Write the model to ``out_dir`` and return it."""
    torch.manual_seed(0)
    vocab = {token: index for index, token in enumerate([*SPECIAL, *WORDS])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        pad_token="[PAD]",
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        model_max_length=64,
    )
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=HIDDEN,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    transformer_dir = Path(out_dir) / "transformer"
    BertModel(config).save_pretrained(transformer_dir)
    fast.save_pretrained(transformer_dir)
    transformer = Transformer(str(transformer_dir), max_seq_length=64)
    SentenceTransformer(modules=[transformer, Pooling(HIDDEN, pooling_mode="mean")], device="cpu").save(str(out_dir))
    return Path(out_dir)
