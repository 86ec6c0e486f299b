"""Build a tiny, randomly initialised CLIP checkpoint for offline tests.

``build_tiny_clip(out_dir)`` writes a ``CLIPModel`` (vision: 32x32 images, 8x8 patches;
text: 2 layers) plus a ``CLIPImageProcessor`` and a word-level tokenizer trained locally,
so ``clip_scorer`` loads it with ``pretrained=<out_dir>``; nothing is downloaded. The
tokenizer wraps every text as ``<|startoftext|> ... <|endoftext|>`` like CLIP's, and pads
with ``<|endoftext|>``: the text tower pools at the first end-of-text token.
"""

from __future__ import annotations

import pathlib

import torch
from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, PreTrainedTokenizerFast

from helpers.tiny_llava import CORPUS

BOS, EOS, UNK = "<|startoftext|>", "<|endoftext|>", "<unk>"
IMAGE_SIZE = 32
SHERLOCK_WORDS = (
    "the person is a waiter this is a kitchen it is raining they are on vacation "
    "someone will eat soon the dog is hungry"
)


def _build_tokenizer() -> PreTrainedTokenizerFast:
    tokenizer = Tokenizer(models.WordLevel(unk_token=UNK))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(
        [*CORPUS, SHERLOCK_WORDS], trainer=trainers.WordLevelTrainer(special_tokens=[UNK, BOS, EOS])
    )
    bos, eos = tokenizer.token_to_id(BOS), tokenizer.token_to_id(EOS)
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A {EOS}", special_tokens=[(BOS, bos), (EOS, eos)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token=BOS, eos_token=EOS, pad_token=EOS, unk_token=UNK, model_max_length=32
    )


def build_tiny_clip(out_dir: pathlib.Path) -> pathlib.Path:
    """Build and save a tiny randomly initialised (seeded) CLIP checkpoint under out_dir; return its path."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = _build_tokenizer()
    config = CLIPConfig(
        text_config={
            "vocab_size": len(tokenizer),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "max_position_embeddings": 32,
            "bos_token_id": tokenizer.bos_token_id,
            "eos_token_id": tokenizer.eos_token_id,
            "pad_token_id": tokenizer.pad_token_id,
        },
        vision_config={
            "image_size": IMAGE_SIZE,
            "patch_size": 8,
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
        },
        projection_dim=16,
    )
    torch.manual_seed(0)
    CLIPModel(config).eval().save_pretrained(out_dir)
    CLIPImageProcessor(
        size={"shortest_edge": IMAGE_SIZE}, crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE}
    ).save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir
