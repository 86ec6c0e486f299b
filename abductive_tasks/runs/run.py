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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from abductive_tasks.inputs.files import open_nofollow
from abductive_tasks.runs.cache import make_safe, scrub_cache
from abductive_tasks.runs.identity_record import RUN_RECORD, RUNS_DIR, IdentityRecord
from abductive_tasks.runs.plan import (
    HOST,
    JUDGE_PORT,
    PORT,
    RUN_FOLDER,
    TASKS,
    JudgePlan,
    LevelRun,
    ModelPlan,
)
from abductive_tasks.runs.progress import ChildProgress
from abductive_tasks.runs.secrets import copy_redacted, handed_over, redact_text
from abductive_tasks.runs.vllm import child_setup, interrupts_held, start_vllm


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


def say(message: str) -> None:
    print(f"[batch] {message}", flush=True)


def start_judge(judge: JudgePlan | None, stack: contextlib.ExitStack) -> dict[str, str]:
    """Start the spec's judge (if it is served) and return the environment that wires lmms-eval's judge to it."""
    if judge is None:
        return {}
    if judge.server is None:
        return judge.client_env
    port = start_vllm(judge.vllm, judge.check_ray, judge.server, HOST, os.environ, stack, say)
    say(f"judge: healthy at http://{HOST}:{port}/v1")
    return {name: value.replace(JUDGE_PORT, str(port)) for name, value in judge.client_env.items()}


@dataclass
class RunFolder:
    """One run's folder, and the record last written there: what the run is (identity, limit, tasks), its exit status
    added when it ends."""

    path: Path
    record: IdentityRecord | None = None


def start_run(model_plan: ModelPlan, tasks: list[str] | None = None) -> RunFolder:
    """Make the model's response cache safe to read and create the folder of its run over ``tasks`` (default: its
    pending tasks) with its identity; returns the folder.

    One folder per run, its identity written before it starts: results are never attributed to another run.
    """
    for message in make_safe(model_plan.cache, model_plan.secrets):
        say(f"{model_plan.model.name}: {message}")
    folder = RunFolder(model_plan.output / RUNS_DIR / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.urandom(3).hex()}")
    tasks = model_plan.pending if tasks is None else tasks
    _write_run_record(model_plan, tasks, folder)
    return folder


def _write_run_record(model_plan: ModelPlan, tasks: list[str], folder: RunFolder) -> None:
    """The run's record: its identity, limit and tasks, before it starts."""
    folder.record = IdentityRecord(
        model_plan.identity, model_plan.limit, tuple(tasks), model_plan.model.name, model_plan.spec_path
    )
    folder.record.write(folder.path / RUN_RECORD)


def end_run(folder: RunFolder, code: int) -> int:
    """Record the run's exit status (a run that ended without results for a task is a failed run)."""
    IdentityRecord(**{**folder.record.__dict__, "exit_status": code}).write(folder.path / RUN_RECORD)
    return code


def _record_start_failure(folder: RunFolder):
    """An exit callback recording a run that could not start (server failed, executable missing) as failed
    (status -1)."""

    def on_exit(kind, error, trace) -> bool:
        if kind is not None and issubclass(kind, OSError | RuntimeError):
            end_run(folder, -1)
        return False

    return on_exit


@dataclass
class ModelRun:
    """A model's runs under way (:func:`model_run`): the environment of its evaluations, the folder of its latest run,
    its progress line."""

    name: str
    env: dict[str, str]
    folder: RunFolder
    progress: ChildProgress
    started: bool = False  # whether a level ran in ``folder``

    def level(self, level: LevelRun) -> int:
        """One level's run (:func:`~abductive_tasks.runs.plan.level_run`), in its own run folder; its exit status, 0
        when it has no task to run. A reader whose upstream gave nothing is not run (said in one line)."""
        model_plan = level.plan
        for task, upstream in level.waiting.items():
            say(f"{self.name}: {task} not run: {', '.join(upstream)} gave it no output")
        if not level.tasks:
            return 0
        if self.started:
            self.folder = start_run(model_plan, level.tasks)
        else:  # the folder made before the server started: its record names this level's tasks
            _write_run_record(model_plan, level.tasks, self.folder)
        self.started = True
        words = {TASKS: ",".join(level.tasks), RUN_FOLDER: str(self.folder.path)}
        command = [words.get(word, word) for word in model_plan.eval_command]
        log = model_plan.output / "eval.log"
        return end_run(self.folder, run_child(command, self.env | level.env, log, model_plan.secrets, self.progress))


@contextlib.contextmanager
def model_run(model_plan: ModelPlan, base_env: dict[str, str]) -> Iterator[ModelRun]:
    """One model's runs: its response cache made safe, the folder of its first run made, its server started on the
    served route (stopped on exit, the cache scrubbed again); the levels then run through :meth:`ModelRun.level`. A
    folder no level ran in is removed."""
    model = model_plan.model
    model_plan.output.mkdir(parents=True, exist_ok=True)
    # The folder's record names every pending task until the first level starts (it then names that level's): a model
    # whose server or executable fails has every task recorded as a failed run, its later levels' readers included.
    folder = start_run(model_plan, model_plan.pending)
    env = {**base_env, **model_plan.env}
    with contextlib.ExitStack() as stack:
        stack.callback(scrub_cache, model_plan.cache, model_plan.secrets)  # lmms-eval stores model_args in clear
        stack.push(_record_start_failure(folder))
        port = start_vllm(model.vllm, model_plan.check_ray, model_plan.server, HOST, env, stack, say)
        if port is not None:
            say(f"{model.name}: server healthy at http://{HOST}:{port}/v1")
            env.update({name: value.replace(PORT, str(port)) for name, value in model_plan.client_env.items()})
        progress = stack.enter_context(contextlib.closing(ChildProgress(model.name)))
        running = ModelRun(model.name, env, folder, progress)
        yield running
        if not running.started:
            shutil.rmtree(folder.path)
