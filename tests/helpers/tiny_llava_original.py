"""Build a tiny LLaVA-1.5 checkpoint in the *original* layout (haotian-liu/LLaVA), for offline tests.

``build_tiny_original_llava(out_dir)`` writes, under ``out_dir``:

* ``clip-vit-tiny/``: the tiny CLIP of ``helpers.tiny_clip`` (a whole ``CLIPModel``, as the hub's
  ``openai/clip-vit-large-patch14-336``), the vision tower the checkpoint names in ``mm_vision_tower``;
* ``llava-v1.5-tiny/``: the checkpoint itself as the LLaVA code base saves it: a Llama ``config.json`` with
  the ``mm_*`` fields (``model_type: llava``, ``architectures: [LlavaLlamaForCausalLM]``), the language model's
  weights with the projector among them (``model.mm_projector.0`` / ``.2``) in two ``pytorch_model-*.bin``
  shards, a tokenizer without ``<image>`` or a pad token, and no vision weights.

``tower`` sets what ``mm_vision_tower`` holds: the tower folder's absolute path (default) or a hub name (the
test then places the tower in a Hugging Face cache). Randomly initialised (seeded), about 0.5 MB.
"""

from __future__ import annotations

import json
import pathlib

import torch
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from helpers.tiny_clip import build_tiny_clip
from helpers.tiny_llava import CORPUS, answering

SPECIAL_TOKENS = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}  # a Llama tokenizer: no pad
VISION_HIDDEN = 32  # the tiny CLIP's vision width
TEXT_HIDDEN = 64


def _tokenizer() -> PreTrainedTokenizerFast:
    tokenizer = Tokenizer(models.WordLevel(unk_token=SPECIAL_TOKENS["unk_token"]))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(CORPUS, trainers.WordLevelTrainer(special_tokens=list(SPECIAL_TOKENS.values())))
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, **SPECIAL_TOKENS)


def original_state_dict(config: LlamaConfig) -> dict[str, torch.Tensor]:
    """A seeded random Llama with LLaVA's two-layer projector, under the original checkpoint's key names."""
    torch.manual_seed(2)
    weights = dict(LlamaForCausalLM(config).state_dict())  # model.embed_tokens, model.layers.*, model.norm, lm_head
    projector = torch.nn.Sequential(
        torch.nn.Linear(VISION_HIDDEN, TEXT_HIDDEN), torch.nn.GELU(), torch.nn.Linear(TEXT_HIDDEN, TEXT_HIDDEN)
    )
    weights |= {f"model.mm_projector.{key}": value for key, value in projector.state_dict().items()}
    return {key: value.detach().clone() for key, value in weights.items()}


def build_tiny_original_llava(
    out_dir: pathlib.Path, tower: str | None = None, answer: str | None = None
) -> pathlib.Path:
    """Write the tower and the original-layout checkpoint under ``out_dir``; return the checkpoint folder.
    ``tower``: the ``mm_vision_tower`` value (default: the tower folder's absolute path); ``answer``: a word the
    model replies to every prompt, then ends (``helpers.tiny_llava.answering``)."""
    out_dir = pathlib.Path(out_dir)
    tower_dir = build_tiny_clip(out_dir / "clip-vit-tiny")
    folder = out_dir / "llava-v1.5-tiny"
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer()
    text = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=TEXT_HIDDEN,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=512,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=False,
    )
    weights = original_state_dict(text)
    if answer is not None:
        answering(weights, tokenizer.convert_tokens_to_ids(answer), tokenizer.eos_token_id)
    names = sorted(weights)
    halves = {"pytorch_model-00001-of-00002.bin": names[::2], "pytorch_model-00002-of-00002.bin": names[1::2]}
    for file_name, keys in halves.items():
        torch.save({key: weights[key] for key in keys}, folder / file_name)
    index = {"weight_map": {key: file_name for file_name, keys in halves.items() for key in keys}}
    (folder / "pytorch_model.bin.index.json").write_text(json.dumps(index))
    config = {key: value for key, value in text.to_dict().items() if key not in ("rope_parameters", "dtype")}
    config |= {
        "architectures": ["LlavaLlamaForCausalLM"],
        "model_type": "llava",
        "rope_theta": 10000.0,
        "torch_dtype": "float32",
        "image_aspect_ratio": "pad",
        "mm_hidden_size": VISION_HIDDEN,
        "mm_patch_merge_type": "flat",
        "mm_projector_type": "mlp2x_gelu",
        "mm_use_im_patch_token": False,
        "mm_use_im_start_end": False,
        "mm_vision_select_feature": "patch",
        "mm_vision_select_layer": -2,
        "mm_vision_tower": tower or str(tower_dir.resolve()),
        "tune_mm_mlp_adapter": False,
        "use_mm_proj": True,
    }
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    tokenizer.save_pretrained(folder)
    return folder
