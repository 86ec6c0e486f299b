"""LLaVA checkpoints in the original layout (haotian-liu/LLaVA), converted once to transformers' Llava layout.

An original checkpoint folder holds a Llama (or Mistral) ``config.json`` extended with ``mm_*`` fields
(``architectures: [LlavaLlamaForCausalLM]``), the language model's weights with the projector among them
(``model.mm_projector.0`` / ``.2``), the tokenizer, and only the *name* of its CLIP vision tower
(``mm_vision_tower``, e.g. ``openai/clip-vit-large-patch14-336``). transformers' Llava classes cannot load it.
:func:`converted` writes the transformers layout once into ``<ABDUCTIVE_CACHE>/llava_converted/<key>`` and
returns that folder; later runs reuse it after checking every file against the digests written with it.

The conversion follows the key mapping of transformers' published ``convert_llava_weights_to_hf.py``
(language model under ``model.language_model``, ``lm_head``, ``model.mm_projector.0/2`` as the projector's
``linear_1/2``, the vision tower's weights from the tower checkpoint unless the checkpoint carries its own),
and, as that script does, adds ``<image>`` (and ``<pad>`` where the tokenizer has none) to the vocabulary, padded
to a multiple of 64 rows. One difference: the new rows are the mean of the existing rows, where the script
samples them at random, so a conversion is reproducible (those rows only hold the image placeholder and padding).

Supported: LLaVA-1.5 style checkpoints (two-layer MLP projector ``mlp2x_gelu``, CLIP tower, Llama or Mistral
language model). Anything else is refused in one line (:class:`OriginalLlavaError`) naming the way out.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.inputs.files import file_sha256, read_regular, source_digest


def conversion_code() -> str:
    """The digest of this module's source (:func:`~abductive_tasks.inputs.files.source_digest`), which does the
    conversion: an edit to it converts again, where a format number raised by hand could be forgotten."""
    return source_digest(sys.modules[__name__])


MANIFEST = "abductive_conversion.json"
CACHE_FOLDER = "llava_converted"
ARCHITECTURES = {"LlavaLlamaForCausalLM": "llama", "LlavaMistralForCausalLM": "mistral"}
IMAGE_TOKEN = "<image>"
PAD_TOKEN = "<pad>"
VOCAB_MULTIPLE = 64
NOT_TEXT_FIELDS = {"model_type", "architectures", "_name_or_path", "transformers_version", "dtype", "torch_dtype"}
PROJECTOR_LAYERS = {"0": "linear_1", "2": "linear_2"}  # nn.Sequential(Linear, GELU, Linear) in the original
NEXT_CONVERSION = (
    "transformers' convert_llava_next_weights_to_hf.py (github.com/huggingface/transformers, "
    "src/transformers/models/llava_next/; not in the wheel)"
)
# LLaVA-1.5's conversation format (conv_vicuna_v1):
# "<system> USER: <image>\n<question> ASSISTANT: <answer></s>USER: ... ASSISTANT:". Content may be a string
# (lmms-eval's simple backends, image tokens already in it) or a list of image and text parts (the chat backends).
CHAT_TEMPLATE = (
    '{%- set ns = namespace(system="A chat between a curious human and an artificial intelligence assistant. '
    "The assistant gives helpful, detailed, and polite answers to the human's questions.\") -%}"
    "{%- for message in messages if message['role'] == 'system' -%}"
    "{%- set ns.system = message['content'] if message['content'] is string else "
    "message['content'] | selectattr('type', 'equalto', 'text') | map(attribute='text') | join(' ') -%}"
    "{%- endfor -%}"
    "{{ ns.system + ' ' }}"
    "{%- for message in messages if message['role'] != 'system' -%}"
    "{{ message['role'] | upper + ': ' }}"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}"
    "{%- for part in message['content'] if part['type'] == 'image' -%}{{ '<image>\\n' }}{%- endfor -%}"
    "{{ message['content'] | selectattr('type', 'equalto', 'text') | map(attribute='text') | join(' ') }}"
    "{%- endif -%}"
    "{{ eos_token if message['role'] == 'assistant' else ' ' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ 'ASSISTANT:' }}{%- endif -%}"
)


class OriginalLlavaError(ValueError):
    """An original-layout checkpoint that cannot be converted here (the message is one line, with the way out)."""


def read_config(folder: Path) -> dict | None:
    """The checkpoint's ``config.json`` when ``folder`` holds an original-layout LLaVA checkpoint, else None."""
    path = Path(folder) / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict) or "text_config" in config:  # transformers' own Llava layout
        return None
    original = any(key in config for key in ("mm_vision_tower", "mm_projector_type", "mm_hidden_size"))
    return config if original or set(config.get("architectures") or ()) & set(ARCHITECTURES) else None


def _tower_name(config: dict) -> str:
    return str(config.get("mm_vision_tower") or config.get("vision_tower") or "")


def check(folder: Path, config: dict) -> Path:
    """Refuse, in one line, an original checkpoint this conversion does not handle; return its vision tower folder."""
    where = f"{folder}/config.json"
    architecture = (config.get("architectures") or ["?"])[0]
    if architecture not in ARCHITECTURES:
        raise OriginalLlavaError(
            f"{where}: architecture {architecture} is not converted here (supported: {', '.join(ARCHITECTURES)})"
        )
    aspect, merge = str(config.get("image_aspect_ratio", "")), str(config.get("mm_patch_merge_type", ""))
    if aspect.startswith("anyres") or merge.startswith("spatial"):
        raise OriginalLlavaError(
            f"{where}: a LLaVA-1.6 (anyres) checkpoint, which runs on transformers' LlavaNext: convert it with "
            f"{NEXT_CONVERSION}, or use its llava-hf conversion (see docs/models.md)"
        )
    projector = config.get("mm_projector_type", "linear")  # the LLaVA code base's default
    if projector != "mlp2x_gelu":
        raise OriginalLlavaError(
            f"{where}: mm_projector_type {projector!r}; transformers' Llava has the two-layer projector "
            "(mlp2x_gelu) only"
        )
    check_files(folder)
    return vision_tower(folder, config)


def vision_tower(folder: Path, config: dict) -> Path:
    """The local folder of the CLIP vision tower the checkpoint names: a folder (as given, or relative to the
    checkpoint), else the Hugging Face cache, else a download unless offline; refused in one line otherwise."""
    name = _tower_name(config)
    if not name:
        raise OriginalLlavaError(f"{folder}/config.json names no vision tower (mm_vision_tower)")
    for candidate in (Path(name).expanduser(), Path(folder) / name):
        if (candidate / "config.json").is_file():
            return _clip_tower(candidate, folder)
    if name.count("/") != 1 or name.startswith(("/", ".", "~")):
        raise OriginalLlavaError(f"{folder}/config.json: the vision tower {name} (mm_vision_tower) is no folder")
    from huggingface_hub import constants, snapshot_download

    patterns = ["*.json", "*.safetensors", "pytorch_model.bin"]
    try:
        return _clip_tower(Path(snapshot_download(name, allow_patterns=patterns, local_files_only=True)), folder)
    except OriginalLlavaError:
        raise
    except Exception:  # not (completely) in the local cache
        pass
    why = "HF_HUB_OFFLINE is set"
    if not constants.HF_HUB_OFFLINE:
        try:
            return _clip_tower(Path(snapshot_download(name, allow_patterns=patterns)), folder)
        except OriginalLlavaError:
            raise
        except Exception as error:
            why = (str(error).strip().splitlines() or [type(error).__name__])[0]
    raise OriginalLlavaError(
        f"the vision tower {name} named by {folder}/config.json (mm_vision_tower) is neither a local folder nor in "
        f"the Hugging Face cache, and cannot be downloaded ({why}): run `hf download {name}` where the hub is "
        "reachable, or set mm_vision_tower to a local folder"
    )


def _clip_tower(tower: Path, folder: Path) -> Path:
    try:
        model_type = json.loads((tower / "config.json").read_text(encoding="utf-8")).get("model_type")
    except (OSError, ValueError) as error:
        raise OriginalLlavaError(f"the vision tower {tower} of {folder}: unreadable config.json ({error})") from None
    if model_type not in ("clip", "clip_vision_model"):
        raise OriginalLlavaError(
            f"the vision tower {tower} of {folder} is a {model_type!r} model; this conversion handles CLIP towers"
        )
    if not any(tower.glob("*.safetensors")) and not (tower / "pytorch_model.bin").is_file():
        raise OriginalLlavaError(f"the vision tower {tower} of {folder} has no weights")
    return tower


def _weight_files(folder: Path) -> list[Path]:
    """The checkpoint's weight files: its safetensors shards, else its PyTorch shards."""
    return sorted(Path(folder).glob("*.safetensors")) or sorted(Path(folder).glob("pytorch_model*.bin"))


WEIGHT_INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "spiece.model", "vocab.txt")


def check_files(folder: Path) -> None:
    """Refuse, in one line naming the file, a local checkpoint folder that cannot load: no or a bad ``config.json``,
    a weight shard its index names missing (a half-copied folder), no weights, a weight file cut short or damaged
    (read off its header: the whole file is not read), no tokenizer."""
    folder = Path(folder)
    config = folder / "config.json"
    if not config.is_file():
        raise OriginalLlavaError(f"{folder}: no config.json (not a model folder, or not copied whole)")
    try:
        parsed = json.loads(config.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise OriginalLlavaError(f"{config}: not valid JSON ({error})") from None
    if not isinstance(parsed, dict):
        raise OriginalLlavaError(f"{config}: not a JSON object")
    for name in WEIGHT_INDEXES:
        if (folder / name).is_file():
            for shard in _indexed_shards(folder / name):
                if not (folder / shard).is_file():
                    raise OriginalLlavaError(
                        f"{folder}: {shard} is missing (named by {name}: a half-copied folder? copy it again)"
                    )
    weights = _weight_files(folder)
    if not weights:
        raise OriginalLlavaError(f"{folder}: no weights (*.safetensors or pytorch_model*.bin)")
    for path in weights:
        problem = _weight_file_problem(path)
        if problem:
            raise OriginalLlavaError(f"{path}: {problem}")
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        raise OriginalLlavaError(
            f"{folder}: no tokenizer ({', '.join(TOKENIZER_FILES)}): a half-copied folder? copy it again"
        )


def _indexed_shards(index: Path) -> list[str]:
    try:
        weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
        return sorted({str(shard) for shard in weight_map.values()})
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise OriginalLlavaError(f"{index}: not a readable weight index ({type(error).__name__}: {error})") from None


def _weight_file_problem(path: Path) -> str | None:
    """Why a weight file cannot be whole, from its header and size (None: it looks whole)."""
    size = path.stat().st_size
    with open(path, "rb") as handle:
        head = handle.read(8)
        if path.suffix != ".safetensors":
            if head.startswith(b"PK") and not zipfile.is_zipfile(handle):
                return f"truncated or damaged ({size} bytes, not a whole zip archive): copy it again"
            return None
        if len(head) < 8 or 8 + int.from_bytes(head, "little") > size:
            return f"truncated ({size} bytes, shorter than its own header): copy it again"
        length = int.from_bytes(head, "little")
        try:
            header = json.loads(handle.read(length))
        except (UnicodeDecodeError, ValueError):
            return "damaged (its header is not valid JSON): copy it again"
    try:
        ends = [entry["data_offsets"][1] for key, entry in header.items() if key != "__metadata__"]
    except (AttributeError, KeyError, TypeError, IndexError):
        return "damaged (its header lists no tensor offsets): copy it again"
    expected = 8 + length + max(ends, default=0)
    if size < expected:
        return f"truncated ({size} of {expected} bytes): copy it again"
    if size > expected:
        return f"damaged ({size - expected} bytes after its last tensor)"
    return None


# ---------------------------------------------------------------- the cache


def cache_folder(folder: Path, config: dict, tower: Path) -> Path:
    """``<ABDUCTIVE_CACHE>/llava_converted/<key>``: the key covers the conversion's code, the checkpoint (its
    config, and each file's name, size and modification time) and the vision tower's folder and config."""
    folder = Path(folder).resolve()
    files = sorted(
        (str(path.relative_to(folder)), path.stat().st_size, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    )
    tower_config = (tower / "config.json").read_bytes()
    parts = [
        conversion_code(),
        str(folder),
        config,
        files,
        str(tower.resolve()),
        hashlib.sha256(tower_config).hexdigest(),
    ]
    key = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:40]
    return settings.cache_root() / CACHE_FOLDER / key


def writable_cache_folder(folder: Path, config: dict, tower: Path) -> Path:
    """:func:`cache_folder`, its parent created; refused in one line when it cannot be."""
    target = cache_folder(folder, config, tower)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=target.parent).close()
    except OSError as error:
        raise OriginalLlavaError(
            f"cannot write the conversion of {folder} under {target.parent} ({error.strerror}): set ABDUCTIVE_CACHE "
            "to a writable folder"
        ) from None
    return target


def _listing(folder: Path) -> list[str]:
    return sorted(
        str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file() and path.name != MANIFEST
    )


def verify(target: Path) -> str | None:
    """Why the conversion in ``target`` cannot be trusted (None when every file matches the digests written with
    it, and no file is missing or extra)."""
    try:
        manifest = json.loads(read_regular(target / MANIFEST))
    except (OSError, ValueError) as error:
        return f"no readable {MANIFEST} ({error})"
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if manifest.get("format") != conversion_code() or not isinstance(files, dict):
        return f"{MANIFEST} of another format"
    if sorted(files) != _listing(target):
        return "files missing or added since the conversion"
    for name, digest in files.items():
        try:
            if file_sha256(target / name) != digest:
                return f"{name} changed since the conversion"
        except OSError as error:  # gone, or no regular file in its place since the listing
            return f"{name} unreadable ({error.strerror or error})"
    return None


@contextmanager
def _conversion_lock(target: Path) -> Iterator[None]:
    """One conversion of a checkpoint at a time (lmms-eval's processes start together under accelerate)."""
    from filelock import FileLock

    with FileLock(str(target) + ".lock"):
        yield


def _remove_interrupted(cache: Path, held: str) -> None:
    """Remove what conversions killed midway (``kill -9``, a lost machine) left: their hidden temporary folders
    ``.<key>.<random>``, those of ``held`` (whose conversion lock this process holds) and each other once no process
    holds its conversion's lock."""
    from filelock import FileLock, Timeout

    for work in cache.glob(".*"):
        key = work.name[1:].split(".", 1)[0]
        if not work.is_dir() or work.is_symlink() or len(key) != len(held):
            continue
        if key == held:
            shutil.rmtree(work, ignore_errors=True)
            continue
        try:
            with FileLock(str(cache / key) + ".lock", timeout=0):
                shutil.rmtree(work, ignore_errors=True)
        except Timeout:  # a conversion of that checkpoint is running now
            continue


def converted(folder: Path) -> Path:
    """The transformers-layout conversion of the original-layout checkpoint ``folder``, from the cache when an
    intact one is there, else written now (atomically: a temporary folder renamed into place)."""
    from loguru import logger

    folder = Path(folder)
    config = read_config(folder)
    if config is None:
        raise OriginalLlavaError(f"{folder} is not an original-layout LLaVA checkpoint")
    tower = check(folder, config)
    target = writable_cache_folder(folder, config, tower)
    with _conversion_lock(target):
        _remove_interrupted(target.parent, held=target.name)
        if target.exists():
            problem = verify(target)
            if problem is None:
                logger.info(f"llava: {folder} as converted in {target}")
                return target
            logger.warning(f"llava: the conversion of {folder} in {target} is not reused ({problem}); converting again")
            shutil.rmtree(target)
        logger.info(f"llava: converting the original-layout checkpoint {folder} (once) into {target}")
        work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
        try:
            write_conversion(folder, config, tower, work)
            manifest = {
                "format": conversion_code(),
                "source": str(folder.resolve()),
                "vision_tower": str(tower),
                "files": {name: file_sha256(work / name) for name in _listing(work)},
            }
            (work / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
            os.replace(work, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target


# ---------------------------------------------------------------- the conversion


def _original_state_dict(folder: Path) -> dict:
    import torch
    from safetensors.torch import load_file

    weights: dict = {}
    for path in _weight_files(folder):
        part = (
            load_file(path)
            if path.suffix == ".safetensors"
            else torch.load(path, map_location="cpu", weights_only=True)
        )
        weights.update(part)
    return {key: value for key, value in weights.items() if not key.endswith(".inv_freq")}


def _with_rows(matrix, rows: int):
    """``matrix`` grown to ``rows`` rows, each new row the mean of the existing ones."""
    import torch

    extra = rows - matrix.shape[0]
    if extra <= 0:
        return matrix
    mean = matrix.float().mean(dim=0, keepdim=True).to(matrix.dtype)
    return torch.cat([matrix, mean.expand(extra, -1)])


def _text_config(config: dict, vocab_size: int):
    from transformers import AutoConfig

    model_type = ARCHITECTURES[config["architectures"][0]]
    known = set(AutoConfig.for_model(model_type).to_dict()) | {"rope_theta", "rope_scaling"}  # rope: older spelling
    fields = {key: value for key, value in config.items() if key in known and key not in NOT_TEXT_FIELDS}
    return AutoConfig.for_model(model_type, **{**fields, "vocab_size": vocab_size})


def _split(weights: dict, has: str) -> dict:
    """The entries of ``weights`` whose key starts with ``has``, that prefix removed."""
    return {key[len(has) :]: value for key, value in weights.items() if key.startswith(has)}


def write_conversion(folder: Path, config: dict, tower: Path, out: Path) -> None:
    """Write the transformers Llava layout of ``folder`` (original layout, vision tower folder ``tower``) to ``out``."""
    import torch
    from transformers import (
        AddedToken,
        AutoImageProcessor,
        AutoTokenizer,
        CLIPVisionConfig,
        CLIPVisionModel,
        GenerationConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    tokenizer = AutoTokenizer.from_pretrained(folder)
    if IMAGE_TOKEN not in tokenizer.get_vocab():
        tokenizer.add_tokens(AddedToken(IMAGE_TOKEN, special=True, normalized=False), special_tokens=True)
    if tokenizer.pad_token is None:
        tokenizer.add_special_tokens({"pad_token": PAD_TOKEN})
    tokenizer.chat_template = CHAT_TEMPLATE

    weights = _original_state_dict(folder)
    projector = {key.partition("."): value for key, value in _split(weights, "model.mm_projector.").items()}
    own_tower = _split(weights, "model.vision_tower.vision_tower.")
    text = {
        key: value
        for key, value in _split(weights, "model.").items()
        if not key.startswith(("mm_projector.", "vision_tower.", "image_newline"))
    }
    rows = math.ceil(max(len(tokenizer), text["embed_tokens.weight"].shape[0]) / VOCAB_MULTIPLE) * VOCAB_MULTIPLE
    text["embed_tokens.weight"] = _with_rows(text["embed_tokens.weight"], rows)
    lm_head = _with_rows(weights.get("lm_head.weight", text["embed_tokens.weight"]), rows)

    vision_config = CLIPVisionConfig.from_pretrained(tower)
    strategy = "full" if config.get("mm_vision_select_feature") == "cls_patch" else "default"
    patches = (vision_config.image_size // vision_config.patch_size) ** 2
    dtype = next(iter(text.values())).dtype
    llava_config = LlavaConfig(
        text_config=_text_config(config, rows),
        vision_config=vision_config,
        image_token_id=tokenizer.convert_tokens_to_ids(IMAGE_TOKEN),
        projector_hidden_act="gelu",
        multimodal_projector_bias="model.mm_projector.0.bias" in weights,
        vision_feature_select_strategy=strategy,
        vision_feature_layer=config.get("mm_vision_select_layer", -2),
        image_seq_length=patches + (strategy == "full"),
        tie_word_embeddings=bool(config.get("tie_word_embeddings", False)),
    )
    llava_config.dtype = dtype
    with torch.device("meta"):
        model = LlavaForConditionalGeneration(llava_config)
    model.model.language_model.load_state_dict(text, strict=True, assign=True)
    model.lm_head.load_state_dict({"weight": lm_head}, strict=True, assign=True)
    projector = {f"{PROJECTOR_LAYERS.get(layer, layer)}.{name}": value for (layer, _, name), value in projector.items()}
    model.model.multi_modal_projector.load_state_dict(projector, strict=True, assign=True)
    if own_tower:  # a checkpoint that trained its tower carries it; transformers' CLIP keys have no vision_model.
        model.model.vision_tower.load_state_dict(_split(own_tower, "vision_model."), strict=True, assign=True)
    else:
        tower_model = CLIPVisionModel.from_pretrained(tower, dtype=dtype)
        model.model.vision_tower.load_state_dict(tower_model.state_dict(), strict=True, assign=True)
    if (folder / "generation_config.json").is_file():
        model.generation_config = GenerationConfig.from_pretrained(folder)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)

    processor = LlavaProcessor(
        image_processor=AutoImageProcessor.from_pretrained(tower),
        tokenizer=tokenizer,
        patch_size=vision_config.patch_size,
        vision_feature_select_strategy=strategy,
        num_additional_image_tokens=1,  # CLIP's class token
        chat_template=CHAT_TEMPLATE,
    )
    processor.save_pretrained(out)
