"""``--model llava``: original LLaVA names and original-layout checkpoints on transformers' Llava classes."""

from __future__ import annotations

import json
import shutil
from types import SimpleNamespace

import pytest
import torch
from safetensors.torch import load_file
from transformers import LlavaForConditionalGeneration

from abductive_tasks import cli
from abductive_tasks.models import llava_original
from abductive_tasks.models.arguments import ModelArgumentError
from abductive_tasks.models.llava import DEFAULT_CHECKPOINT, Llava, checkpoint, hub_name

from helpers.tiny_llava import build_tiny_llava
from helpers.tiny_llava_original import build_tiny_original_llava

TOWER_NAME = "openai/clip-vit-large-patch14-336"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    return build_tiny_original_llava(tmp_path_factory.mktemp("original"))


def _hub_cache(root, name, source):
    """A Hugging Face cache holding the folder ``source`` as the snapshot of the hub repository ``name``."""
    repo = root / f"models--{name.replace('/', '--')}"
    shutil.copytree(source, repo / "snapshots" / ("0" * 40))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)


def test_the_original_names_load_their_llava_hf_conversions():
    assert hub_name(None) == hub_name(DEFAULT_CHECKPOINT) == "llava-hf/llava-1.5-7b-hf"
    assert hub_name("liuhaotian/llava-v1.6-mistral-7b") == "llava-hf/llava-v1.6-mistral-7b-hf"
    assert hub_name("llava-hf/llava-1.5-13b-hf") == "llava-hf/llava-1.5-13b-hf"
    assert hub_name("/models/my-llava") == "/models/my-llava"


def test_llava_is_ours_in_lmms_evals_registry():
    from lmms_eval.models import get_model

    assert get_model("llava") is Llava


def test_conversion_maps_every_weight_of_the_original_layout(original, cache):
    folder = llava_original.converted(original)
    assert folder.parent == cache / "llava_converted"
    converted = LlavaForConditionalGeneration.from_pretrained(folder).state_dict()
    source = {}
    for shard in original.glob("pytorch_model-*.bin"):
        source |= torch.load(shard, weights_only=True)
    # 112 words and special tokens, then <image> and <pad>: 114 rows, padded to 128 (a multiple of 64).
    config = json.loads((folder / "config.json").read_text())
    assert config["text_config"]["vocab_size"] == 128 and converted["lm_head.weight"].shape[0] == 128
    rows = source["model.embed_tokens.weight"].shape[0]
    assert rows == 112
    for name in ("model.embed_tokens.weight", "lm_head.weight"):
        ours = converted[name.replace("model.", "model.language_model.")]
        assert torch.equal(ours[:rows], source[name])
        assert torch.allclose(ours[rows:], source[name].mean(dim=0).expand(128 - rows, -1))
    assert torch.equal(
        converted["model.language_model.layers.1.mlp.down_proj.weight"], source["model.layers.1.mlp.down_proj.weight"]
    )
    assert torch.equal(converted["model.multi_modal_projector.linear_1.weight"], source["model.mm_projector.0.weight"])
    assert torch.equal(converted["model.multi_modal_projector.linear_2.bias"], source["model.mm_projector.2.bias"])
    tower = load_file(original.parent / "clip-vit-tiny" / "model.safetensors")  # a whole CLIP, as on the hub
    for name in ("encoder.layers.1.mlp.fc1.weight", "post_layernorm.bias"):
        assert torch.equal(converted[f"model.vision_tower.{name}"], tower[f"vision_model.{name}"])
    assert not any(name.startswith("model.vision_tower.text") for name in converted)
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    added = {token["content"]: token["id"] for token in tokenizer["added_tokens"]}
    assert (added["<image>"], added["<pad>"]) == (112, 113) and config["image_token_index"] == 112
    assert (config["vision_feature_layer"], config["vision_feature_select_strategy"]) == (-2, "default")
    assert config["image_seq_length"] == 16  # (32 / 8) ** 2 patches, CLIP's class token dropped


def test_a_conversion_is_reused_only_when_its_files_are_intact(original, cache, monkeypatch):
    folder = llava_original.converted(original)
    written = (folder / "model.safetensors").read_bytes()
    monkeypatch.setattr(llava_original, "write_conversion", lambda *args: pytest.fail("converted again"))
    assert llava_original.converted(original) == folder
    with open(folder / "model.safetensors", "r+b") as handle:  # one byte of a weight flipped
        handle.seek(len(written) - 1)
        handle.write(bytes([written[-1] ^ 1]))
    assert llava_original.verify(folder) == "model.safetensors changed since the conversion"
    monkeypatch.undo()
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(cache))
    assert llava_original.converted(original) == folder
    assert (folder / "model.safetensors").read_bytes() == written and llava_original.verify(folder) is None


def test_an_edit_to_the_conversion_code_converts_again(original, cache, edit_code):
    """The converted-weights cache is keyed by the code that converts, as MuCR's and Sherlock's caches are: a format
    number raised by hand (FORMAT until now) could be forgotten, and the old conversion reused."""
    folder = llava_original.converted(original)
    edit_code(llava_original)
    again = llava_original.converted(original)
    assert again != folder and llava_original.verify(again) is None
    assert llava_original.verify(folder) == "abductive_conversion.json of another format"


def test_a_vision_tower_by_hub_name_is_found_in_the_local_cache_or_refused_in_one_line(tmp_path, cache, monkeypatch):
    import huggingface_hub.constants

    folder = build_tiny_original_llava(tmp_path / "named", tower=TOWER_NAME)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(llava_original.OriginalLlavaError) as refused:
        llava_original.converted(folder)
    (line,) = str(refused.value).splitlines()
    assert line.startswith(f"the vision tower {TOWER_NAME} named by {folder}/config.json (mm_vision_tower) is ")
    assert "(HF_HUB_OFFLINE is set)" in line and f"`hf download {TOWER_NAME}`" in line
    _hub_cache(tmp_path / "hub", TOWER_NAME, tmp_path / "named" / "clip-vit-tiny")
    converted = llava_original.converted(folder)
    assert json.loads((converted / "abductive_conversion.json").read_text())["vision_tower"].startswith(
        str(tmp_path / "hub" / "models--openai--clip-vit-large-patch14-336" / "snapshots")
    )


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        (
            {"image_aspect_ratio": "anyres", "mm_patch_merge_type": "spatial_unpad"},
            "convert_llava_next_weights_to_hf.py",
        ),
        ({"mm_projector_type": "linear"}, "mm_projector_type 'linear'"),
        ({"architectures": ["LlavaMptForCausalLM"]}, "architecture LlavaMptForCausalLM is not converted here"),
    ],
)
def test_checkpoints_this_conversion_does_not_handle_are_refused_in_one_line(tmp_path, cache, change, refusal):
    folder = build_tiny_original_llava(tmp_path)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(config | change))
    with pytest.raises(ModelArgumentError) as refused:
        Llava.preflight({"pretrained": str(folder)})
    (line,) = str(refused.value).splitlines()
    assert line.startswith(f"llava: {folder}/config.json: ") and refusal in line
    with pytest.raises(ModelArgumentError, match=refusal):
        checkpoint(str(folder))
    assert not (cache / "llava_converted").exists() or not any((cache / "llava_converted").iterdir())


def test_device_works_as_typed_without_a_device_map(tmp_path):
    """lmms-eval's --device cpu alone: llava_hf fails (transformers 5 refuses its device_map='');
    ours places the model on that device."""
    from lmms_eval.models.simple.llava_hf import LlavaHf

    model_dir = build_tiny_llava(tmp_path / "tiny")
    with pytest.raises(ValueError, match="device_map"):
        LlavaHf(pretrained=str(model_dir), device="cpu")
    model = Llava.create_from_arg_string(f"pretrained={model_dir}", {"batch_size": 1, "device": "cpu"})
    assert model.device == torch.device("cpu") and model.model.device == torch.device("cpu")
    assert Llava(pretrained=str(model_dir)).device == torch.device("cpu")  # no --device, no GPU here


def test_offline_the_default_checkpoint_is_refused_naming_its_conversion(capsys, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    assert cli.main(["--model", "llava", "--tasks", "nleye_triplet"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(
        "abductive-eval: cannot download the model llava-hf/llava-1.5-7b-hf (llava's default pretrained: no "
        "--model_args pretrained given)"
    )


def test_an_unwritable_cache_is_refused_in_one_line_before_the_run(original, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "file" / "cache"))
    with pytest.raises(ModelArgumentError) as refused:
        Llava.preflight({"pretrained": str(original)})
    (line,) = str(refused.value).splitlines()
    assert line.startswith(f"llava: cannot write the conversion of {original} under {tmp_path}/file/cache/")
    assert line.endswith("set ABDUCTIVE_CACHE to a writable folder")


@pytest.mark.parametrize(
    ("given", "gpu", "processes", "expected"),
    [
        ({"device": "cuda:0"}, True, 1, {"device": "cuda:0", "device_map": "cuda:0"}),
        ({}, True, 1, {"device": "cuda", "device_map": "cuda"}),
        ({}, False, 1, {"device": "cpu", "device_map": "cpu"}),
        ({"device": "cuda:1", "device_map": "auto"}, True, 1, {"device": "cuda:1", "device_map": "auto"}),
        ({"device": "cuda"}, True, 2, {"device": "cuda", "device_map": ""}),  # accelerate: llava_hf's own placement
    ],
)
def test_the_device_as_typed_is_the_device_map(monkeypatch, given, gpu, processes, expected):
    """What reaches llava_hf (no GPU here: its constructor is replaced by a recorder)."""
    import accelerate

    from abductive_tasks.models import text_only

    received = {}

    def record(self, **kwargs) -> None:
        received.update(kwargs)
        self.chat_template = kwargs.get("chat_template", "")  # what llava_hf sets; a template: no probe

    monkeypatch.setattr(text_only._SimpleLlavaHf, "__init__", record)  # lmms-eval's llava_hf
    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu)
    monkeypatch.setattr(accelerate, "PartialState", lambda: SimpleNamespace(num_processes=processes))
    Llava(pretrained="llava-hf/llava-1.5-7b-hf", **given)
    assert received == {"pretrained": "llava-hf/llava-1.5-7b-hf", **expected}


def test_a_template_for_list_content_only_is_replaced_for_the_string_prompts(tmp_path):
    """llava_hf's simple path renders a string turn; a processor-style template (list parts only) would drop
    the question."""
    from lmms_eval.models.simple.llava_hf import VICUNA_CHAT_TEMPLATE

    model_dir = build_tiny_llava(tmp_path / "tiny")
    assert Llava(pretrained=str(model_dir), device="cpu").chat_template is None  # its template handles strings
    list_only = (
        "{% for message in messages %}{{ message['role'] | upper + ': ' }}"
        "{% for part in message['content'] | selectattr('type', 'equalto', 'text') %}{{ part['text'] }}{% endfor %}"
        "{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
    )
    (model_dir / "chat_template.jinja").write_text(list_only)
    model = Llava(pretrained=str(model_dir), device="cpu")
    assert model.tokenizer.chat_template == list_only and model.chat_template == VICUNA_CHAT_TEMPLATE


def test_a_checkpoint_carrying_its_trained_vision_tower_keeps_it(tmp_path, cache):
    folder = build_tiny_original_llava(tmp_path)
    tower = load_file(tmp_path / "clip-vit-tiny" / "model.safetensors")
    trained = {
        f"model.vision_tower.vision_tower.{name}": value + 1.0
        for name, value in tower.items()
        if name.startswith("vision_model.")
    }
    torch.save(trained, folder / "pytorch_model-00003-of-00003.bin")
    converted = LlavaForConditionalGeneration.from_pretrained(llava_original.converted(folder)).state_dict()
    for name in ("encoder.layers.0.self_attn.q_proj.weight", "embeddings.class_embedding"):
        assert torch.equal(converted[f"model.vision_tower.{name}"], tower[f"vision_model.{name}"] + 1.0)


# ---------------------------------------------------------------- damaged checkpoints, in one line


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _sharded(folder):
    """The tiny checkpoint as two safetensors shards and their index, as large checkpoints are published."""
    from safetensors.torch import save_file

    weights = load_file(folder / "model.safetensors")
    names = sorted(weights)
    shards = {"model-00001-of-00002.safetensors": names[::2], "model-00002-of-00002.safetensors": names[1::2]}
    for shard, keys in shards.items():
        save_file({key: weights[key] for key in keys}, folder / shard, metadata={"format": "pt"})
    (folder / "model.safetensors").unlink()
    index = {"metadata": {}, "weight_map": {key: shard for shard, keys in shards.items() for key in keys}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))


DAMAGES = {
    "a truncated safetensors file": (
        lambda folder: _truncate(folder / "model.safetensors"),
        "model.safetensors: truncated",
    ),
    "a half-copied folder (a shard missing)": (
        lambda folder: (_sharded(folder), (folder / "model-00002-of-00002.safetensors").unlink()),
        "model-00002-of-00002.safetensors is missing (named by model.safetensors.index.json",
    ),
    "a half-copied folder (no tokenizer)": (
        lambda folder: (folder / "tokenizer.json").unlink(),
        "no tokenizer",
    ),
    "a bad config.json": (
        lambda folder: (folder / "config.json").write_text('{"model_type": "llava", '),
        "config.json: not valid JSON",
    ),
    "missing weights": (lambda folder: (folder / "model.safetensors").unlink(), "no weights"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("model", ["llava", "llava_hf"])
def test_a_damaged_checkpoint_is_named_in_one_line_before_the_run(tmp_path, capsys, monkeypatch, damage, model):
    """A truncated or half-copied checkpoint, a bad config.json or missing weights printed lmms-eval's traceback,
    whose last line named no file."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")  # the official data is a hub download, checked first
    folder = build_tiny_llava(tmp_path / "tiny")
    damaging, expected = DAMAGES[damage]
    damaging(folder)
    capsys.readouterr()  # what building the checkpoint printed
    arguments = f"pretrained={folder},device_map=cpu" + (",device=cpu" if model == "llava_hf" else "")
    code = cli.main(["--model", model, "--model_args", arguments, "--tasks", "nleye_triplet", "--limit", "1"])
    printed = capsys.readouterr()
    assert code == 2 and "Traceback" not in printed.err + printed.out
    (line,) = printed.err.strip().splitlines()
    assert line.startswith(f"abductive-eval: {model}: {folder}") and expected in line, line


def test_a_damaged_original_checkpoint_is_named_in_one_line(original, tmp_path, cache):
    folder = tmp_path / "original"
    shutil.copytree(original, folder)
    _truncate(sorted(folder.glob("pytorch_model*.bin"))[-1])  # the LLaVA code base saves PyTorch shards
    with pytest.raises(ModelArgumentError, match=r"^llava: .*pytorch_model.*\.bin: truncated or damaged"):
        Llava.preflight({"pretrained": str(folder)})


def test_a_load_failure_the_checks_miss_is_one_line_naming_the_folder(tmp_path, capsys, monkeypatch):
    """Past the checks (here a weight of the wrong shape), loading still ends in one line naming the folder."""
    from safetensors.torch import save_file

    folder = build_tiny_llava(tmp_path / "tiny")
    weights = load_file(folder / "model.safetensors")
    name = next(key for key, value in weights.items() if value.ndim == 2)
    weights[name] = torch.zeros(3, 3)
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    capsys.readouterr()
    code = cli.main(
        [
            "--model",
            "llava",
            "--model_args",
            f"pretrained={folder},device_map=cpu",
            "--tasks",
            "nleye_triplet",
            "--limit",
            "1",
            "--output_path",
            str(tmp_path / "out"),
        ]
    )
    printed = capsys.readouterr()
    assert code == 1 and "Traceback" not in printed.err + printed.out, printed.err[-3000:]
    assert f"abductive-eval: evaluation failed: llava: cannot load {folder}" in printed.err


def test_an_interrupted_conversion_is_cleaned_up_on_the_next_run(original, cache):
    """``kill -9`` during a conversion left its hidden temporary folder for good."""
    import os
    import signal
    import subprocess
    import sys

    script = (
        "import os, signal, sys; from pathlib import Path; from abductive_tasks.models import llava_original as o\n"
        "def killed(folder, config, tower, out):\n"
        "    (Path(out) / 'model.safetensors').write_bytes(b'half'); os.kill(os.getpid(), signal.SIGKILL)\n"
        "o.write_conversion = killed\n"
        f"o.converted(Path({str(original)!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env={**os.environ}, capture_output=True, timeout=300)
    assert done.returncode == -signal.SIGKILL
    assert [path.name for path in (cache / "llava_converted").iterdir() if path.name.startswith(".")]
    target = llava_original.converted(original)
    assert [path.name for path in target.parent.iterdir() if path.is_dir()] == [target.name]
