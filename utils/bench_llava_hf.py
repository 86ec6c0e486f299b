"""Where a real-size run's time goes: lmms-eval's ``llava_hf`` backend on a randomly initialised model of
LLaVA-1.5-7B's size in bf16, our tasks on the embedded sample (our hooks' share vs the model's time).

    python utils/bench_llava_hf.py --device cuda:0 --json figures.json           # on a GPU machine
    python utils/bench_llava_hf.py --size tiny --device cpu --limit 2              # a check of this script (CPU)

The checkpoint is built here (nothing is downloaded): LLaVA-1.5-7B's shapes (a CLIP ViT-L/14 at 336 px, 576 image
tokens per image, its second-to-last layer; a Llama of 32 layers, hidden size 4096, 32 heads, vocabulary 32,064;
about 7.1 B parameters) with random weights in bf16, and a word-level tokenizer (every word and sign one token, where
Llama's tokenizer makes about 1.3 of a word), saved and loaded back as ``llava_hf`` loads any checkpoint. Its attention
and MLP outputs are zeroed and its embeddings set so that it replies one token and ends (the cost of every matrix
product is unchanged): each request costs the prefill of its prompt and images plus two decoding steps, the least a
request takes, so our share is at its largest. ``--full-tasks`` then runs some tasks again with the end of reply made
unreachable, so that each reply runs its task's whole ``max_new_tokens``, the most a request takes.

Each task runs twice through lmms-eval's ``simple_evaluate`` on the one loaded model, with the task's own documents,
prompts, images, generation kwargs, ``process_results`` and aggregations (intervals included): its first run in the
process pays its benchmark's one-time costs (modules imported, data loaded and cached; the first task's also the
process's: CUDA's start, lmms-eval's lazy imports), whose wall and our seconds are printed beside the second run's
row. Printed per task: requests, images and prompt tokens per request, generated tokens, the run's wall time, the
model calls' time (``generate_until`` / ``loglikelihood``, exact), and the wall time split by where the main thread
was: a sampler thread reads its stack every millisecond (the interpreter's switch interval lowered to 0.1 ms
meanwhile, so that it runs on time) and charges the interval to the innermost frame of ours (``abductive_tasks``),
lmms-eval's or the model stack's (torch, transformers, accelerate, tokenizers, safetensors); frames of other libraries
(PIL, datasets, numpy) are charged to their caller. The thread needs a free core: where every core is busy the OS runs
it more often while the main thread waits, so take the figures on an otherwise idle machine. "ours per request" is our
share of the wall time divided by the requests. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from abductive_tasks.settings import environment_restored

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ABDUCTIVE_JUDGE": "off"}
TASKS = (
    "nleye_triplet",
    "nleye_triplet_combined",
    "nleye_pairs",
    "nleye_triplet_text",
    "mucr_c2e",
    "mucr_c2e_split",
    "mucr_cue",
    "dve_cls",
    "sherlock_comparison_rating",
)
FULL_TASKS = ("nleye_triplet", "mucr_c2e")
IMAGE_TOKEN = "<image>"
SPECIAL_TOKENS = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"}
# LLaVA-1.5's conversation format (llava-hf's chat template, text parts after the images).
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}{{ message['role'] | upper }}: "
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>\n{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}{% if message['role'] == 'assistant' %}{{ eos_token }}{% endif %}{{ '\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)
REPLY = "2"  # the one token every reply is: an option or a rating on most tasks
SIZES: dict[str, dict[str, dict[str, int]]] = {
    # llava-hf/llava-1.5-7b-hf's config.json
    "7b": {
        "vision": dict(
            image_size=336,
            patch_size=14,
            hidden_size=1024,
            intermediate_size=4096,
            num_hidden_layers=24,
            num_attention_heads=16,
            projection_dim=768,
        ),
        "text": dict(
            vocab_size=32064,
            hidden_size=4096,
            intermediate_size=11008,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=32,
            max_position_embeddings=4096,
        ),
    },
    "tiny": {
        "vision": dict(
            image_size=336,
            patch_size=14,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            projection_dim=32,
        ),
        "text": dict(
            vocab_size=512,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=4,
            max_position_embeddings=4096,
        ),
    },
}


def tokenizer_corpus() -> list[str]:
    """Words the tasks' prompts use (every benchmark's ``prompts`` module), so that they are tokens of their own."""
    from abductive_tasks.dve import prompts as dve_prompts
    from abductive_tasks.mucr import prompts as mucr_prompts
    from abductive_tasks.nleye import prompts as nleye_prompts
    from abductive_tasks.sherlock import prompts as sherlock_prompts

    modules = (dve_prompts, mucr_prompts, nleye_prompts, sherlock_prompts)
    texts = [value for module in modules for value in vars(module).values() if isinstance(value, str)]
    return [*texts, "USER: ASSISTANT: 0 1 2 3 4 5 6 7 8 9 10"]


def build_checkpoint(folder: Path, size: str, build_device: str) -> Path:
    """Write a randomly initialised LLaVA of ``size`` (weights in bf16, replying ``REPLY`` then ending) and its
    processor into ``folder``."""
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

    words = Tokenizer(models.WordLevel(unk_token=SPECIAL_TOKENS["unk_token"]))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    words.train_from_iterator(
        tokenizer_corpus(), trainers.WordLevelTrainer(special_tokens=[*SPECIAL_TOKENS.values(), IMAGE_TOKEN])
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=words, additional_special_tokens=[IMAGE_TOKEN], chat_template=CHAT_TEMPLATE, **SPECIAL_TOKENS
    )
    shapes = SIZES[size]
    vocabulary = max(shapes["text"]["vocab_size"], len(tokenizer))
    ids = {name: tokenizer.convert_tokens_to_ids(token) for name, token in SPECIAL_TOKENS.items()}
    text = LlamaConfig(
        **{**shapes["text"], "vocab_size": vocabulary},
        bos_token_id=ids["bos_token"],
        eos_token_id=ids["eos_token"],
        pad_token_id=ids["pad_token"],
    )
    vision = CLIPVisionConfig(**shapes["vision"])
    per_image = (vision.image_size // vision.patch_size) ** 2
    config = LlavaConfig(
        vision_config=vision,
        text_config=text,
        image_token_id=tokenizer.convert_tokens_to_ids(IMAGE_TOKEN),
        vision_feature_select_strategy="default",
        vision_feature_layer=-2,
        image_seq_length=per_image,
    )
    torch.manual_seed(0)
    default_dtype = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device(build_device):
            model = LlavaForConditionalGeneration(config).eval()
    finally:
        torch.set_default_dtype(default_dtype)
    with torch.no_grad():
        reply_then_end(dict(model.state_dict()), tokenizer.convert_tokens_to_ids(REPLY), ids["eos_token"])
    for name, value in ids.items():
        setattr(model.generation_config, name.replace("_token", "_token_id"), value)
    model.save_pretrained(folder)
    image_processor = CLIPImageProcessor(
        size={"shortest_edge": vision.image_size}, crop_size={"height": vision.image_size, "width": vision.image_size}
    )
    LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=vision.patch_size,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=CHAT_TEMPLATE,
    ).save_pretrained(folder)
    del model
    if build_device.startswith("cuda"):
        torch.cuda.empty_cache()
    return folder


def reply_then_end(weights: dict[str, Any], reply: int, end: int) -> None:
    """Make the Llama in ``weights`` (edited in place) answer ``reply``, then ``end``: its layers write nothing to the
    residual stream (attention and MLP outputs zero; every product still computed), so each position's logits depend
    on its own token alone; every token but ``reply`` embeds along one axis, read by the head as ``reply``, and
    ``reply`` along another, read as ``end``."""
    import torch

    generator = torch.Generator().manual_seed(3)
    for key, value in weights.items():
        if key.endswith(("self_attn.o_proj.weight", "mlp.down_proj.weight")):
            value.zero_()
        elif key.endswith(("embed_tokens.weight", "lm_head.weight")):
            value.copy_(0.01 * torch.randn(value.shape, generator=generator).to(value.device, value.dtype))
            if key.endswith("embed_tokens.weight"):
                value[:, 0] += 1.0
                value[reply, 0] -= 1.0
                value[reply, 1] += 1.0
            else:
                value[reply, 0] = value[end, 1] = 10.0


def never_end(model: Any, reply: int, end: int) -> None:
    """Make the loaded model answer ``reply`` after ``reply`` too: replies run to ``max_new_tokens``."""
    import torch

    with torch.no_grad():
        head = model.get_output_embeddings().weight
        head[end, 1] = 0.0
        head[reply, 1] = 10.0


class StackSampler:
    """Charges the main thread's wall time, in ``interval`` steps, to the task running and to the innermost frame of
    ours, lmms-eval's or the model stack's."""

    def __init__(self, interval: float = 0.001) -> None:
        import lmms_eval

        import abductive_tasks

        def root(module: Any) -> str:
            return str(Path(module.__file__).parent) + os.sep

        self.kinds: list[tuple[str, str]] = [(root(abductive_tasks), "ours"), (root(lmms_eval), "lmms-eval")]
        for name in ("torch", "transformers", "accelerate", "tokenizers", "safetensors"):
            module = sys.modules.get(name) or __import__(name)
            self.kinds.append((root(module), "model"))
        self.interval = interval
        self.task = ""
        self.seconds: dict[str, Counter[str]] = defaultdict(Counter)
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._kind_of: dict[str, str] = {}
        self._switch = sys.getswitchinterval()

    def _kind(self, frame: FrameType | None) -> str:
        while frame is not None:
            filename = frame.f_code.co_filename
            kind = self._kind_of.get(filename)
            if kind is None:
                kind = next((kind for prefix, kind in self.kinds if filename.startswith(prefix)), "")
                self._kind_of[filename] = kind
            if kind:
                return kind
            frame = frame.f_back
        return "other"

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.wait(self.interval):
            now = time.perf_counter()
            if self.task:
                frame = sys._current_frames().get(self._main)  # noqa: SLF001 (the one way to read another thread)
                self.seconds[self.task][self._kind(frame)] += now - last
            last = now

    def __enter__(self) -> StackSampler:
        # The sampler thread runs when the main thread lets go of the GIL, which it does at every call that releases
        # it (torch, I/O) and otherwise once per switch interval (5 ms): at that default the thread would wake mostly
        # inside such calls and charge the Python work before them (our hooks) to them. At a tenth of its tick the
        # thread gets the GIL within 0.1 ms wherever the main thread is.
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(self.interval / 10)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        sys.setswitchinterval(self._switch)
        self._thread.join()


class ModelCalls:
    """Exact time and counts of the backend's request methods and of the HF model's ``generate`` calls."""

    def __init__(self, lm: Any) -> None:
        self.seconds = 0.0
        self.requests = 0
        self.generate_calls = 0
        self.generate_failures: Counter[str] = Counter()
        self.images = 0
        self.prompt_tokens = 0
        self.new_tokens = 0
        for method in ("generate_until", "loglikelihood"):
            setattr(lm, method, self._timed(getattr(lm, method)))
        model = lm.model
        model.generate = self._counted(model.generate)

    def reset(self) -> None:
        self.seconds, self.requests, self.generate_calls, self.images = 0.0, 0, 0, 0
        self.prompt_tokens = self.new_tokens = 0
        self.generate_failures = Counter()

    def _timed(self, method: Callable) -> Callable:
        def timed(requests: list) -> Any:
            start = time.perf_counter()
            try:
                return method(requests)
            finally:
                self.seconds += time.perf_counter() - start
                self.requests += len(requests)

        return timed

    def _counted(self, generate: Callable) -> Callable:
        def counted(**inputs: Any) -> Any:
            self.generate_calls += 1
            pixels = inputs.get("pixel_values")
            self.images += 0 if pixels is None else int(pixels.shape[0])
            prompt = int(inputs["input_ids"].shape[1])
            self.prompt_tokens += prompt
            try:
                output = generate(**inputs)
            except Exception as error:  # lmms-eval's backend swallows it and replies "": counted here
                self.generate_failures[f"{type(error).__name__}: {error}"[:200]] += 1
                raise
            self.new_tokens += int(output.shape[1]) - prompt
            return output

        return counted


def run_task(task: str, lm: Any, manager: Any, limit: int | None) -> dict[str, Any]:
    """One task through lmms-eval's ``simple_evaluate`` on the loaded model; its headline values and counts."""
    from lmms_eval.evaluator import simple_evaluate

    outcome = simple_evaluate(
        model=lm, tasks=[task], limit=limit, task_manager=manager, log_samples=False, verbosity="WARNING"
    )
    results = (outcome or {}).get("results", {}).get(task, {})
    return {
        key.split(",")[0]: value
        for key, value in results.items()
        if isinstance(value, (int, float)) and not key.endswith("_stderr,none") and key != "alias"
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from abductive_tasks import compat

    compat.defer_unused_imports()
    import lmms_eval.evaluator  # noqa: F401 (lmms-eval's start-up, before our hooks into it)
    import torch
    from lmms_eval.models import get_model

    compat.install()
    figures: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "cpus": os.cpu_count(),
        },
        "size": args.size,
        "limit": args.limit,
        "tasks": {},
        "full": {},
    }
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        folder = build_checkpoint(Path(scratch) / "llava", args.size, args.device)
        figures["build_s"] = round(time.perf_counter() - start, 1)
        figures["checkpoint_gb"] = round(sum(p.stat().st_size for p in folder.iterdir()) / 1e9, 2)
        start = time.perf_counter()
        dtype = "bfloat16" if args.device.startswith("cuda") else "float32"
        lm = get_model("llava_hf")(pretrained=str(folder), device=args.device, device_map=args.device, dtype=dtype)
        figures["load_s"] = round(time.perf_counter() - start, 1)
    figures["parameters_b"] = round(sum(p.numel() for p in lm.model.parameters()) / 1e9, 2)
    lm.clean = lambda: None  # lmms-eval frees the model after each evaluation; kept here for the next task
    calls = ModelCalls(lm)
    manager = compat.task_manager()
    with StackSampler() as sampler:
        for label, tasks in (("tasks", args.tasks), ("full", args.full_tasks)):
            if label == "full" and tasks:
                tokenizer = lm.tokenizer
                never_end(lm.model, tokenizer.convert_tokens_to_ids(REPLY), tokenizer.eos_token_id)
            for task in tasks:
                limit = args.full_limit if label == "full" else args.limit
                if label == "tasks":  # its first run in the process: the benchmark's imports, data and caches
                    first = measured(task, lm, manager, limit, calls, sampler)
                    first_ours = first["share"]["ours"] * first["wall_s"]
                again = measured(task, lm, manager, limit, calls, sampler)
                if label == "tasks":
                    again["first_run"] = {"wall_s": first["wall_s"], "ours_s": round(first_ours, 2)}
                figures[label][task] = again
                print(json.dumps({label: {task: again}}), flush=True)
    return figures


def measured(task: str, lm: Any, manager: Any, limit: int | None, calls: ModelCalls, sampler: StackSampler) -> dict:
    """One run of ``task``: its row (:func:`row`); a failure is the row's ``error``, not the end of the bench."""
    calls.reset()
    sampler.task = key = f"{task}:{time.perf_counter()}"
    start = time.perf_counter()
    try:
        values, error = run_task(task, lm, manager, limit), None
    except Exception as failure:  # one task's failure must not cost the others' figures
        values, error = {}, f"{type(failure).__name__}: {failure}"[:300]
    wall = time.perf_counter() - start
    sampler.task = ""
    return row(wall, calls, sampler.seconds[key], values, error)


def row(wall: float, calls: ModelCalls, split: Counter[str], values: dict, error: str | None) -> dict[str, Any]:
    sampled = sum(split.values()) or 1.0
    share = {kind: split[kind] / sampled for kind in ("ours", "lmms-eval", "model", "other")}
    requests = calls.requests or 1
    return {
        "requests": calls.requests,
        "generate_calls": calls.generate_calls,
        "generate_failures": dict(calls.generate_failures),
        "images_per_request": round(calls.images / requests, 2),
        "prompt_tokens_per_request": round(calls.prompt_tokens / requests, 1),
        "new_tokens_per_request": round(calls.new_tokens / requests, 1),
        "wall_s": round(wall, 2),
        "model_calls_s": round(calls.seconds, 2),
        "share": {kind: round(value, 4) for kind, value in share.items()},
        "ours_ms_per_request": round(1000 * share["ours"] * wall / requests, 1),
        "model_ms_per_request": round(1000 * share["model"] * wall / requests, 1),
        "values": values,
        "error": error,
    }


def table(figures: dict[str, Any]) -> str:
    lines = [
        "| task | replies | requests | images/req | prompt tokens/req | new tokens/req | wall s | model calls s "
        "| ours % | lmms-eval % | model % | ours ms/req | model ms/req | first run: wall s, ours s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label in ("tasks", "full"):
        for task, r in figures[label].items():
            if r["error"]:
                lines.append(f"| {task} | {label} | failed: {r['error']} |" + " |" * 11)
                continue
            s, first = r["share"], r.get("first_run")
            first_run = f"{first['wall_s']}, {first['ours_s']}" if first else "-"
            lines.append(
                f"| {task} | {'short' if label == 'tasks' else 'full budget'} | {r['requests']} "
                f"| {r['images_per_request']} | {r['prompt_tokens_per_request']} | {r['new_tokens_per_request']} "
                f"| {r['wall_s']} | {r['model_calls_s']} | {100 * s['ours']:.1f} | {100 * s['lmms-eval']:.1f} "
                f"| {100 * s['model']:.1f} | {r['ours_ms_per_request']} | {r['model_ms_per_request']} "
                f"| {first_run} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=sorted(SIZES), default="7b")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS))
    parser.add_argument("--limit", type=int, default=8, help="documents per task (the sample's first)")
    parser.add_argument("--full-tasks", nargs="*", default=list(FULL_TASKS))
    parser.add_argument("--full-limit", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    with environment_restored({**OFFLINE, "ABDUCTIVE_DATA": os.environ.get("ABDUCTIVE_DATA", "sample")}):
        figures = measure(args)
    print(json.dumps({key: figures[key] for key in figures if key not in ("tasks", "full")}))
    print(table(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
