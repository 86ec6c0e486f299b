"""Build a tiny, randomly initialised LLaVA checkpoint for offline tests.

``build_tiny_llava(out_dir)`` writes a complete ``LlavaForConditionalGeneration``
checkpoint plus its ``LlavaProcessor`` (CLIP image processor, locally trained
word-level tokenizer, chat template) into ``out_dir``; nothing is downloaded.
The checkpoint is about 0.5 MB and builds in well under a second.

Use it with lmms-eval's built-in ``llava_hf`` backend via::

    --model llava_hf --model_args pretrained=<out_dir>,device_map=cpu,device=cpu

or ``get_model("llava_hf")(pretrained=str(out_dir), device="cpu", device_map="cpu")``.

Caveats (lmms-eval 0.7.3, transformers 5.x):

* Both ``device_map=cpu`` and ``device=cpu`` are needed on a CPU-only machine:
  the backend's ``device`` defaults to ``cuda`` and it calls ``model.to(device)``.
  ``device`` may instead come from lmms-eval's ``--device cpu``, but not from
  both places (duplicate keyword argument). Likewise pass ``batch_size`` to
  lmms-eval itself, never in ``model_args``. ``decord`` must be importable
  because the backend imports it at load time.
* ``--model llava_hf`` resolves to the *chat* class
  (``lmms_eval.models.chat.llava_hf.LlavaHf``). Its requests carry
  ``(ctx, doc_to_messages, gen_kwargs, doc_id, task, split)`` and the prompt is
  rendered by the *processor's* chat template from list-of-parts content. The
  simple class (``force_simple=True``) uses ``(ctx, gen_kwargs, doc_to_visual,
  doc_id, task, split)`` and the *tokenizer's* template with string content
  (``<image>`` tokens prepended). Both templates are saved, so both work. The
  chat class returns ``GenerationResult`` objects (answer in ``.text``), the
  simple class plain strings.
* Both backends swallow exceptions raised by ``model.generate`` and return ``""``:
  an empty answer may hide a failure, so tests should check that images reached
  the model. The vision path runs through
  ``transformers.models.llava.modeling_llava.LlavaModel.get_image_features``
  (``LlavaForConditionalGeneration.get_image_features`` is *not* called by
  ``forward``); it receives ``pixel_values`` of shape ``(n_images, 3, 32, 32)``
  once per ``generate`` call (the prefill step).
* Every image is resized and centre-cropped to 32x32, i.e. 16 ``<image>``
  tokens per image. Pass ``max_new_tokens`` in the task's generation kwargs;
  the backend otherwise defaults to 1024. The random model rarely emits EOS, so
  outputs are arbitrary words from the tiny vocabulary.
"""

from __future__ import annotations

import pathlib

import torch
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import (
    CLIPImageProcessor,
    CLIPVisionConfig,
    LlamaConfig,
    LlavaConfig,
    LlavaForConditionalGeneration,
    LlavaProcessor,
    PreTrainedTokenizerFast,
)

IMAGE_TOKEN = "<image>"
SPECIAL_TOKENS = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"}
IMAGE_SIZE = 32
PATCH_SIZE = 8

# Each message's content may be a string or a list of {"type": "image"} / {"type": "text"} parts.
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ message['role'] | upper }}: "
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>\n"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "{% if message['role'] == 'assistant' %}{{ eos_token }}{% endif %}{{ '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)

CORPUS = [
    "USER: ASSISTANT: SYSTEM:",
    "Look at the image and read the context .",
    "Which hypothesis is the most plausible explanation ?",
    "Give a plausibility score from 1 to 10 .",
    "The score is 1 2 3 4 5 6 7 8 9 10 .",
    "Answer with a single number or a letter A B C D .",
    "The first image shows the beginning and the last image shows the end .",
    "What happened between the observations in the images ?",
    "Hypothesis A is plausible because the context supports it .",
    "Hypothesis B is not plausible given the image .",
    "Rate how likely the explanation is on a scale of 1 to 10 .",
    "The answer is yes , no , maybe .",
    "A person walks into the room and the door is open .",
    "The video frames show a man , a woman , a dog and a car .",
    "Explain the event that best fits the observation .",
    "Option : the cat knocked over the glass of water .",
    "Choose the best option from the list below .",
    "Observation one : the floor is wet . Observation two : the glass is broken .",
]


def _build_tokenizer() -> PreTrainedTokenizerFast:
    """Train a word-level tokenizer on ``CORPUS`` and wrap it for transformers."""
    tokenizer = Tokenizer(models.WordLevel(unk_token=SPECIAL_TOKENS["unk_token"]))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(special_tokens=[*SPECIAL_TOKENS.values(), IMAGE_TOKEN])
    tokenizer.train_from_iterator(CORPUS, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        additional_special_tokens=[IMAGE_TOKEN],
        chat_template=CHAT_TEMPLATE,
        **SPECIAL_TOKENS,
    )


def _build_model(tokenizer: PreTrainedTokenizerFast) -> LlavaForConditionalGeneration:
    """Create a randomly initialised (seeded) tiny LLaVA model matching ``tokenizer``."""
    vision_config = CLIPVisionConfig(
        image_size=IMAGE_SIZE,
        patch_size=PATCH_SIZE,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        projection_dim=32,
    )
    text_config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=512,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    config = LlavaConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_id=tokenizer.convert_tokens_to_ids(IMAGE_TOKEN),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
        image_seq_length=(IMAGE_SIZE // PATCH_SIZE) ** 2,
    )
    torch.manual_seed(0)
    model = LlavaForConditionalGeneration(config).eval()
    model.generation_config.bos_token_id = tokenizer.bos_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def answering(weights: dict[str, torch.Tensor], answer: int, eos: int) -> None:
    """Make the Llama in ``weights`` (a state dict, edited in place) reply token ``answer``, then end its reply: its
    layers write nothing to the residual stream (attention outputs and MLP outputs zero), so each position's logits
    are a function of its own token alone; every token but ``answer`` embeds along one axis, which the head reads as
    ``answer``, and ``answer`` along another, read as end of sequence. Generation then takes two steps a document
    instead of the task's whole ``max_new_tokens`` (a random model rarely ends a reply), with images still reaching
    the model at the prefill."""
    generator = torch.Generator().manual_seed(3)
    for key, value in weights.items():
        if key.endswith(("self_attn.o_proj.weight", "mlp.down_proj.weight")):
            value.zero_()
        elif key.endswith(("embed_tokens.weight", "lm_head.weight")):
            value.copy_(0.01 * torch.randn(value.shape, generator=generator))
            if key.endswith("embed_tokens.weight"):
                value[:, 0] += 1.0
                value[answer, 0] -= 1.0
                value[answer, 1] += 1.0
            else:
                value[answer, 0] = value[eos, 1] = 10.0


def build_tiny_llava(out_dir: pathlib.Path, answer: str | None = None) -> pathlib.Path:
    """Build and save a tiny randomly initialised LLaVA checkpoint (model + processor) under out_dir;
    return its path. ``answer``: a word of the tokenizer the model replies to every prompt, then ends (see
    :func:`answering`); by default arbitrary words up to ``max_new_tokens``."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = _build_tokenizer()
    image_processor = CLIPImageProcessor(
        size={"shortest_edge": IMAGE_SIZE},
        crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE},
    )
    # CLIP prepends a CLS token (+1) that the "default" strategy drops (-1): 16 tokens per image.
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=PATCH_SIZE,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=CHAT_TEMPLATE,
    )
    model = _build_model(tokenizer)
    if answer is not None:
        with torch.no_grad():
            answering(dict(model.state_dict()), tokenizer.convert_tokens_to_ids(answer), tokenizer.eos_token_id)
    model.save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return out_dir
