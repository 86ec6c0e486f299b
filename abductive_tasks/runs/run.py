"""One model's run: its response cache made safe, its server (served route), its evaluation, its outcome.

The run's folder and identity are written before it starts, so results are never attributed to another
run; a run that cannot start is recorded as failed. The child's output reaches ``eval.log`` with every
secret redacted; Ctrl-C or SIGTERM stop the child and any server.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from abductive_tasks.inputs.files import open_nofollow
from abductive_tasks.runs.cache import purge_failed_replies, repair_cache, scrub_cache
from abductive_tasks.runs.history import Scan
from abductive_tasks.runs.identity_record import RUN_RECORD, RUNS_DIR, IdentityRecord
from abductive_tasks.runs.plan import HOST, JUDGE_PORT, PORT, RUN_FOLDER, TASKS, JudgePlan, ModelPlan, level_run
from abductive_tasks.runs.progress import ChildProgress
from abductive_tasks.runs.secrets import copy_redacted, handed_over, redact_text
from abductive_tasks.runs.task_index import TaskIndex
from abductive_tasks.runs.vllm import (
    VllmServer,
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


def start_judge(judge: JudgePlan | None, stack: contextlib.ExitStack) -> dict[str, str]:
    """Start the spec's judge (if it is served) and return the environment that wires lmms-eval's judge to it."""
    if judge is None:
        return {}
    if judge.url:
        return judge_env(judge.url, judge.model_version, judge.api_type)
    if judge.check_ray and judge.vllm is not None:
        require_ray(judge.vllm)
    port = judge.port or free_port(HOST)
    command = [str(port) if word == JUDGE_PORT else word for word in judge.command]
    say(f"judge: starting {redact_text(shlex.join(command), judge.secrets)}")
    server = stack.enter_context(
        VllmServer(
            command,
            HOST,
            port,
            judge.log,
            env={**os.environ, **judge.env},
            health_timeout=judge.health_timeout,
            secrets=judge.secrets,
        )
    )
    say(f"judge: healthy at {server.base_url}")
    return judge_env(server.base_url, judge.model_version, judge.api_type)


def start_run(model_plan: ModelPlan, tasks: list[str] | None = None) -> Path:
    """Make the model's response cache safe to read and create the folder of its run over ``tasks`` (default: its
    pending tasks) with its identity; returns the folder.

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
    tasks = model_plan.pending if tasks is None else tasks
    _write_run_record(model_plan, tasks, run_dir)
    return run_dir


def _write_run_record(model_plan: ModelPlan, tasks: list[str], run_dir: Path) -> None:
    """The run's record: its identity, limit and tasks, before it starts."""
    record = IdentityRecord(
        model_plan.identity, model_plan.limit, tuple(tasks), model_plan.model.name, model_plan.spec_path
    )
    record.write(run_dir / RUN_RECORD)


def end_run(run_dir: Path, code: int) -> int:
    """Record the run's exit status (a run that ended without results for a task is a failed run)."""
    record = IdentityRecord.read(run_dir / RUN_RECORD)
    IdentityRecord(**{**record.__dict__, "exit_status": code}).write(run_dir / RUN_RECORD)
    return code


def _record_start_failure(run_dir: Path):
    """An exit callback recording a run that could not start (server failed, executable missing) as failed
    (status -1)."""

    def on_exit(kind, error, trace) -> bool:
        if kind is not None and issubclass(kind, OSError | RuntimeError):
            end_run(run_dir, -1)
        return False

    return on_exit


def run_model(
    model_plan: ModelPlan, task_index: TaskIndex, base_env: dict[str, str], plans: dict[str, ModelPlan] | None = None
) -> int:
    """One model's lmms-eval runs over its pending tasks, one per chain level, each level's readers given what the
    level before made (starting and stopping its server on the served route); ``plans``: every model's plan, by name
    (a describer's), where the model's plan as its last level found it is left."""
    model = model_plan.model
    plans = {} if plans is None else plans
    model_plan.output.mkdir(parents=True, exist_ok=True)
    # The folder's record names every pending task until the first level starts (it then names that level's): a model
    # whose server or executable fails has every task recorded as a failed run, its later levels' readers included.
    run_dir = start_run(model_plan, model_plan.pending)
    env = {**base_env, **model_plan.env}
    with contextlib.ExitStack() as stack:
        stack.callback(scrub_cache, model_plan.cache, model_plan.secrets)  # lmms-eval stores model_args in clear
        stack.push(_record_start_failure(run_dir))
        if model_plan.check_ray and model.vllm is not None:
            require_ray(model.vllm)
        if model_plan.server_command is not None:
            port = model.port or free_port(HOST)
            serve = [str(port) if word == PORT else word for word in model_plan.server_command]
            say(f"{model.name}: starting {redact_text(shlex.join(serve), model_plan.secrets)}")
            server = stack.enter_context(
                VllmServer(
                    serve,
                    HOST,
                    port,
                    model_plan.output / "server.log",
                    env=env,
                    health_timeout=model_plan.health_timeout,
                    secrets=model_plan.secrets,
                )
            )
            say(f"{model.name}: server healthy at {server.base_url}")
            env.update(client_env(server.base_url, env))
        progress = stack.enter_context(contextlib.closing(ChildProgress(model.name)))
        return _run_levels(model_plan, task_index, env, plans, run_dir, progress)


def _run_levels(
    model_plan: ModelPlan,
    task_index: TaskIndex,
    env: dict[str, str],
    plans: dict[str, ModelPlan],
    run_dir: Path,
    progress: ChildProgress,
) -> int:
    """Each pending level in turn, in its own run folder (``run_dir``: the first one's): what its readers read is
    resolved after the level before it ran, so a reader whose upstream output is unchanged is found done, and one whose
    upstream gave nothing is not run (said in one line)."""
    code, first = 0, True
    for number in range(len(model_plan.levels)):
        level = level_run(model_plan, number, task_index, plans)
        model_plan = plans[model_plan.model.name] = level.plan
        for task, upstream in level.waiting.items():
            say(f"{model_plan.model.name}: {task} not run: {', '.join(upstream)} gave it no output")
        if not level.tasks:
            continue
        if first:  # the folder made before the server started: its record names this level's tasks
            _write_run_record(model_plan, level.tasks, run_dir)
        else:
            run_dir = start_run(model_plan, level.tasks)
        first = False
        words = {TASKS: ",".join(level.tasks), RUN_FOLDER: str(run_dir)}
        command = [words.get(word, word) for word in model_plan.eval_command]
        code = end_run(run_dir, run_child(command, env | level.env, model_plan.output / "eval.log", model_plan.secrets,
                                          progress))  # fmt: skip
        if code:
            return code
    if first:  # no level had a task to run: the folder made for the first holds no run
        shutil.rmtree(run_dir)
    return code


def task_state(scan: Scan, task: str, limit: int | float | None) -> str:
    """A pending task's state after its run: done, N failed requests, or failed."""
    if scan.done(task, limit):
        return "done"
    best = scan.best(task)
    return f"{best.failed_requests} failed requests" if best is not None and best.failed_requests else "failed"
