"""vLLM for our tasks, through lmms-eval's own backends, with the image limit derived from the tasks.

Route 1, in process: lmms-eval ``--model vllm`` with ``tensor_parallel_size``,
``limit_mm_per_prompt={"image":K}`` (lmms-eval parses JSON-looking ``--model_args`` values),
``max_model_len``, ``gpu_memory_utilization`` and a capped ``max_new_tokens`` (lmms-eval 0.7.3
uses the model's ``max_new_tokens`` as a floor over the task's, so the cap is the smallest task
budget). Route 2, served: ``vllm serve MODEL --tensor-parallel-size N --limit-mm-per-prompt
'{"image": K}'``, a wait for ``/health``, lmms-eval's ``openai`` backend pointed at it through
``OPENAI_API_BASE``, and the server stopped at the end whatever happens (failure, Ctrl-C,
SIGTERM). A judge server starts the same way and reaches lmms-eval's judge through
``API_TYPE``, ``OPENAI_API_URL`` and ``MODEL_VERSION``.

vLLM is not a dependency; the executable is configurable (``vllm_executable``), which is also
how the tests put a scripted OpenAI-compatible server in its place.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

# vLLM's OpenAI-compatible server accepts any key unless started with --api-key; the openai client needs one.
PLACEHOLDER_API_KEY = "EMPTY"


INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


def unblock_interrupts() -> None:
    """``preexec_fn`` for children started under :func:`interrupts_held`: they get Ctrl-C and SIGTERM again."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)


@contextlib.contextmanager
def interrupts_held():
    """Hold Ctrl-C and SIGTERM while starting a child, so one arriving inside ``Popen`` cannot orphan it.

    Assign the ``Popen`` inside the block; a held interrupt is raised on leaving it, where the
    caller's cleanup already knows the child.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)


class ServerError(RuntimeError):
    """The server exited or never became healthy."""


@dataclass(frozen=True)
class VllmSettings:
    """One model's vLLM settings, shared by both routes."""

    model: str
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    max_model_len: int | None = None
    gpu_memory_utilization: float = 0.9
    served_model_name: str | None = None
    extra_args: dict = field(default_factory=dict)  # route 1: more vllm.LLM kwargs; route 2: more `vllm serve` flags

    @property
    def name_served(self) -> str:
        return self.served_model_name or self.model


def image_limit_json(image_limit: int) -> str:
    """``{"image": K}``, the value of ``vllm serve --limit-mm-per-prompt``."""
    return json.dumps({"image": image_limit})


def _arg_value(value: object) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def format_model_args(args: Mapping[str, object]) -> str:
    """``key=value,...`` as lmms-eval's ``--model_args`` takes it (dicts and lists as compact JSON)."""
    return ",".join(f"{key}={_arg_value(value)}" for key, value in args.items())


def inprocess_model_args(settings: VllmSettings, image_limit: int, max_new_tokens: int) -> str:
    """Route 1: the ``--model_args`` string for lmms-eval ``--model vllm``."""
    args: dict[str, object] = {
        "model": settings.model,
        "tensor_parallel_size": settings.tensor_parallel_size,
        "gpu_memory_utilization": settings.gpu_memory_utilization,
        "limit_mm_per_prompt": {"image": image_limit},
        "max_new_tokens": max_new_tokens,
    }
    if settings.pipeline_parallel_size > 1:
        args["pipeline_parallel_size"] = settings.pipeline_parallel_size
    if settings.max_model_len:
        args["max_model_len"] = settings.max_model_len
    args.update(settings.extra_args)
    return format_model_args(args)


def serve_command(settings: VllmSettings, image_limit: int, host: str, port: int, executable: str = "vllm") -> list[str]:
    """Route 2: the ``vllm serve`` command line."""
    command = [*shlex.split(executable), "serve", settings.model, "--host", host, "--port", str(port)]
    command += ["--served-model-name", settings.name_served]
    command += ["--tensor-parallel-size", str(settings.tensor_parallel_size)]
    if settings.pipeline_parallel_size > 1:
        command += ["--pipeline-parallel-size", str(settings.pipeline_parallel_size)]
    command += ["--limit-mm-per-prompt", image_limit_json(image_limit)]
    command += ["--gpu-memory-utilization", str(settings.gpu_memory_utilization)]
    if settings.max_model_len:
        command += ["--max-model-len", str(settings.max_model_len)]
    for key, value in settings.extra_args.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            command.append(flag)
        elif value is not False and value is not None:
            command += [flag, _arg_value(value)]
    return command


def served_model_args(settings: VllmSettings, extra: str = "") -> str:
    """Route 2: the ``--model_args`` for lmms-eval ``--model openai`` against the served model (``extra``: more of them)."""
    return ",".join(filter(None, [f"model_version={settings.name_served}", extra]))


def client_env(base_url: str, environment: Mapping[str, str]) -> dict[str, str]:
    """Variables for lmms-eval's ``openai`` backend to reach ``base_url`` (``http://host:port/v1``), given the run's ``environment``.

    The backend needs a non-empty ``OPENAI_API_KEY``; when we supply the placeholder and nothing
    configures a judge (no key, no ``OPENAI_API_URL``), ``ABDUCTIVE_JUDGE=off`` keeps the
    placeholder from passing for a GPT judge at api.openai.com.
    """
    if environment.get("OPENAI_API_KEY"):
        return {"OPENAI_API_BASE": base_url}
    variables = {"OPENAI_API_BASE": base_url, "OPENAI_API_KEY": PLACEHOLDER_API_KEY}
    if not environment.get("OPENAI_API_URL"):
        variables["ABDUCTIVE_JUDGE"] = "off"
    return variables


def judge_env(base_url: str, model_version: str, api_type: str = "openai") -> dict[str, str]:
    """Environment for lmms-eval's ``llm_judge`` to use a served judge (its openai provider reads ``OPENAI_API_URL``)."""
    return {
        "API_TYPE": api_type,
        "OPENAI_API_URL": base_url,
        "MODEL_VERSION": model_version,
        "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_API_KEY,
    }


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


class VllmServer:
    """A ``vllm serve`` process: started in its own session, healthy on entry, stopped on exit, whatever happened.

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
    ) -> None:
        self.command = command
        self.host = host
        self.port = port
        self.log_path = Path(log_path)
        self.env = env
        self.health_timeout = health_timeout
        self.stop_timeout = stop_timeout
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            log.write(f"$ {shlex.join(self.command)}\n".encode())
            log.flush()
            # Own session: a terminal's Ctrl-C reaches us, not vLLM's workers; stop() ends the whole group.
            with interrupts_held():
                self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True, preexec_fn=unblock_interrupts)

    def log_tail(self, lines: int = 20) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def wait_healthy(self) -> None:
        """Poll ``GET /health`` until it answers 200; fail early if the process exits."""
        deadline = time.monotonic() + self.health_timeout
        url = f"http://{self.host}:{self.port}/health"
        while True:
            if self.process.poll() is not None:
                raise ServerError(f"server exited with status {self.process.returncode} before becoming healthy; log {self.log_path}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise ServerError(f"server not healthy at {url} after {self.health_timeout:.0f} s; log {self.log_path}:\n{self.log_tail()}")
            time.sleep(0.5)

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it after ``stop_timeout``; idempotent."""
        if self.process is None or self.process.poll() is not None:
            return
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
        try:  # workers the server left behind in its group
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

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
