"""One model's run: its response cache made safe, its server (served route), its evaluation, its outcome.

The run's folder and identity are written before it starts, so results are never attributed to another
run; a run that cannot start is recorded as failed. The child's output reaches ``eval.log`` with every
secret redacted; Ctrl-C or SIGTERM stop the child and any server.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from abductive_tasks.inputs.files import open_nofollow
from abductive_tasks.runs.cache import purge_failed_replies, repair_cache, scrub_cache
from abductive_tasks.runs.history import RUN_RECORD, RUNS_DIR, Record, Scan
from abductive_tasks.runs.plan import HOST, ModelPlan, eval_command, judge_command, model_env, model_server_command
from abductive_tasks.runs.progress import ChildProgress
from abductive_tasks.runs.secrets import collect_secrets, copy_redacted, handed_over, redact_text
from abductive_tasks.runs.spec import BatchSpec
from abductive_tasks.runs.suite import Suite
from abductive_tasks.runs.vllm import (
    VllmServer,
    VllmSettings,
    child_setup,
    client_env,
    free_port,
    interrupts_held,
    judge_env,
    require_ray,
)


def run_child(
    command: list[str],
    env: dict[str, str],
    log_path: Path,
    secrets: Sequence[str] = (),
    progress: ChildProgress | None = None,
) -> int:
    """Run ``command`` with output appended to ``log_path`` (``secrets`` redacted, and handed to the child through a
    pipe, :func:`~abductive_tasks.runs.secrets.handed_over`) and read by ``progress``; on Ctrl-C or SIGTERM interrupt
    it too, then re-raise."""
    process = None
    with os.fdopen(open_nofollow(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab") as log:
        log.write(redact_text(f"$ {shlex.join(command)}\n", secrets).encode())
        log.flush()
        try:
            with interrupts_held(), handed_over(secrets) as (handoff, descriptors):
                process = subprocess.Popen(
                    command,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    env={**env, **handoff},
                    preexec_fn=child_setup(),
                    pass_fds=descriptors,
                )
            copy_redacted(process.stdout, log, secrets, progress.feed if progress is not None else None)
            return process.wait()
        except BaseException:
            if process is not None:
                process.send_signal(signal.SIGINT)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            raise


def log_tail(path: Path, lines: int = 15) -> str:
    """The last ``lines`` of a log the batch wrote ('' when there is none, or a link stands in its place)."""
    if not path.is_file() or path.is_symlink():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def say(message: str) -> None:
    print(f"[batch] {message}", flush=True)


def _require_executor(spec: BatchSpec, settings: VllmSettings, in_process: bool) -> None:
    """Check the Ray executor's dependency where vLLM runs in this environment
    (in process, or the default `vllm` executable)."""
    if in_process or spec.vllm_executable == "vllm":
        require_ray(settings)


def start_judge(spec: BatchSpec, stack: contextlib.ExitStack) -> dict[str, str]:
    """Start the spec's judge (if it is served) and return the environment that wires lmms-eval's judge to it."""
    judge = spec.judge
    if judge is None:
        return {}
    if judge.url:
        return judge_env(judge.url, judge.model_version, judge.api_type)
    _require_executor(spec, judge.vllm, in_process=False)
    port = judge.port or free_port(HOST)
    command = judge_command(spec, port)
    found = collect_secrets(mappings=[spec.env, judge.env, judge.vllm.extra_args], environment=os.environ)
    secrets = tuple(dict.fromkeys([*spec.secrets, *found]))
    say(f"judge: starting {redact_text(shlex.join(command), secrets)}")
    server = stack.enter_context(
        VllmServer(
            command,
            HOST,
            port,
            spec.output_dir / "judge_server.log",
            env={**os.environ, **spec.env, **judge.env},
            health_timeout=spec.health_timeout,
            secrets=secrets,
        )
    )
    say(f"judge: healthy at {server.base_url}")
    return judge_env(server.base_url, judge.vllm.name_served, judge.api_type)


def start_run(spec: BatchSpec, model_plan: ModelPlan) -> Path:
    """Make the model's response cache safe to read and create the run's folder with its identity; returns the folder.

    One folder per run, its identity written before it starts: results are never attributed to another run.
    """
    for message in repair_cache(model_plan.cache):
        say(f"{model_plan.model.name}: {message}")
    purged = purge_failed_replies(model_plan.cache)
    if purged:
        say(
            f"{model_plan.model.name}: {purged} failed requests removed from the response cache "
            f"{model_plan.cache}; they are asked again"
        )
    scrub_cache(model_plan.cache, model_plan.secrets)
    run_dir = model_plan.output / RUNS_DIR / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.urandom(3).hex()}"
    Record(
        model_plan.identity, model_plan.limit, tuple(model_plan.pending), model_plan.model.name, str(spec.path)
    ).write(run_dir / RUN_RECORD)
    return run_dir


def end_run(run_dir: Path, code: int) -> int:
    """Record the run's exit status (a run that ended without results for a task is a failed run)."""
    record = Record.read(run_dir / RUN_RECORD)
    Record(**{**record.__dict__, "exit_status": code}).write(run_dir / RUN_RECORD)
    return code


def _record_start_failure(run_dir: Path):
    """An exit callback recording a run that could not start (server failed, executable missing) as failed
    (status -1)."""

    def on_exit(kind, error, trace) -> bool:
        if kind is not None and issubclass(kind, OSError | RuntimeError):
            end_run(run_dir, -1)
        return False

    return on_exit


def run_model(spec: BatchSpec, model_plan: ModelPlan, suite: Suite, base_env: dict[str, str]) -> int:
    """One model's lmms-eval run over its pending tasks (starting and stopping its server on the served route)."""
    model = model_plan.model
    model_plan.output.mkdir(parents=True, exist_ok=True)
    log_path = model_plan.output / "eval.log"
    run_dir = start_run(spec, model_plan)
    env = {**base_env, **model_env(model_plan)}
    with contextlib.ExitStack() as stack:
        stack.callback(scrub_cache, model_plan.cache, model_plan.secrets)  # lmms-eval stores model_args in clear
        stack.push(_record_start_failure(run_dir))
        if model.route != "lmms":
            _require_executor(spec, model.vllm, in_process=model.route == "vllm")
        if model.route == "served":
            port = model.port or free_port(HOST)
            serve = model_server_command(spec, model_plan, suite, port)
            say(f"{model.name}: starting {redact_text(shlex.join(serve), model_plan.secrets)}")
            server = stack.enter_context(
                VllmServer(
                    serve,
                    HOST,
                    port,
                    model_plan.output / "server.log",
                    env=env,
                    health_timeout=spec.health_timeout,
                    secrets=model_plan.secrets,
                )
            )
            say(f"{model.name}: server healthy at {server.base_url}")
            env.update(client_env(server.base_url, env))
        progress = stack.enter_context(contextlib.closing(ChildProgress(model.name)))
        code = run_child(eval_command(spec, model_plan, run_dir), env, log_path, model_plan.secrets, progress)
        return end_run(run_dir, code)


def task_state(scan: Scan, task: str, limit: int | float | None) -> str:
    """A pending task's state after its run: done, N failed requests, or failed."""
    if scan.done(task, limit):
        return "done"
    best = scan.best(task)
    return f"{best.failed_requests} failed requests" if best is not None and best.failed_requests else "failed"
