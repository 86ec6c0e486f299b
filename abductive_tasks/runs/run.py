"""One model's turn in a batch (:func:`run_model`): its spec record, its response cache made safe, its server (served
route), its evaluation level by level, its outcome.

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
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from abductive_tasks.inputs.files import log_size, open_nofollow, read_log
from abductive_tasks.redaction import concealed_args, copy_redacted, handed_over, overlaps, redact_text
from abductive_tasks.runs.cache import make_safe, scrub_cache
from abductive_tasks.runs.history import failures_text, task_states
from abductive_tasks.runs.identity import FILE_HASHES, FileHashes, model_weights
from abductive_tasks.runs.identity_record import (
    RUN_RECORD,
    RUNS_DIR,
    SPEC_RECORD,
    IdentityRecord,
    quarantine,
    sealed_outputs,
)
from abductive_tasks.runs.levels import LevelRun, level_run, refreshed
from abductive_tasks.runs.model_plan import EVAL_PROGRAM, HOST, JUDGE_PORT, PORT, JudgePlan, ModelPlan
from abductive_tasks.runs.progress import ChildProgress, say, task_line
from abductive_tasks.runs.status import ModelOutcome
from abductive_tasks.runs.vllm import child_setup, interrupts_held, start_vllm


def run_child(
    command: list[str],
    env: dict[str, str],
    log_path: Path,
    secrets: Sequence[str] = (),
    progress: ChildProgress | None = None,
) -> int:
    """Run ``command`` (:data:`~abductive_tasks.runs.model_plan.EVAL_PROGRAM` and its arguments) with output appended
    to ``log_path`` (``secrets`` redacted, and handed to the child through a pipe,
    :func:`~abductive_tasks.redaction.handed_over`) and read by ``progress``; on Ctrl-C or SIGTERM interrupt it
    too, then re-raise. Its command line holds a placeholder for each secret in the arguments, which its CLI reveals
    (:func:`~abductive_tasks.redaction.concealed_args`): every user of the machine may read a command line."""
    program = len(EVAL_PROGRAM)
    secrets = (*secrets, *overlaps(command[program:], secrets))  # two secrets overlapping: concealed whole
    argv = [*command[:program], *concealed_args(command[program:], secrets)]
    process = None
    with os.fdopen(open_nofollow(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab") as log:
        log.write(redact_text(f"$ {shlex.join(command)}\n", secrets).encode())
        log.flush()
        try:
            with interrupts_held(), handed_over(secrets) as (handoff, descriptors):
                process = subprocess.Popen(
                    argv,
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
                rest = threading.Thread(target=_copy_rest, args=(process, log, secrets), daemon=True)
                rest.start()  # its last words reach the log, and a full pipe does not hold it up
                try:
                    interrupt_child(process)
                finally:
                    rest.join(timeout=DRAIN_S)
            raise


INTERRUPT_EVERY_S = 2.0
INTERRUPT_GRACE_S = 30.0
DRAIN_S = 10.0


def interrupt_child(process: subprocess.Popen) -> None:
    """Ctrl-C to a child, again every :data:`INTERRUPT_EVERY_S` seconds until it exits, SIGKILL after
    :data:`INTERRUPT_GRACE_S`, or at once on another Ctrl-C or SIGTERM here (re-raised). One SIGINT can be lost:
    CPython runs the handler where the interpreter next checks, and an extension module's init that fails there may
    report an ``ImportError`` instead (a child interrupted while ``_elementtree``'s init imported ``pyexpat`` went on
    and wrote its results; tests/runs/test_interrupts.py stands in a child that ignores its first Ctrl-C)."""
    deadline = time.monotonic() + INTERRUPT_GRACE_S
    try:
        while (left := deadline - time.monotonic()) > 0:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=min(INTERRUPT_EVERY_S, left))
                return
            except subprocess.TimeoutExpired:
                continue
    finally:
        if process.returncode is None:
            process.kill()
            process.wait()


def _copy_rest(process: subprocess.Popen, log: BinaryIO, secrets: Sequence[str]) -> None:
    """What an interrupted child still writes, into its log (redacted) until it ends; nothing once the log is shut."""
    with contextlib.suppress(ValueError, OSError), process.stdout:
        copy_redacted(process.stdout, log, secrets)


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
    """Create the folder of the model's run over ``tasks`` (default: its pending tasks) with its identity; returns
    the folder.

    One folder per run, its identity written before it starts: results are never attributed to another run.
    """
    folder = RunFolder(model_plan.output / RUNS_DIR / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.urandom(3).hex()}")
    tasks = model_plan.pending if tasks is None else tasks
    _write_run_record(model_plan, tasks, folder)
    return folder


def _write_run_record(model_plan: ModelPlan, tasks: list[str], folder: RunFolder) -> None:
    """The run's record: its identity, limit and tasks, before it starts."""
    limit = model_plan.run_limit(tasks[0]) if tasks else model_plan.limit  # what lmms-eval runs (ModelPlan.evaluation)
    folder.record = IdentityRecord(
        model_plan.identity, limit, tuple(tasks), model_plan.model.name, model_plan.spec_path
    )
    folder.record.write(folder.path / RUN_RECORD)


def end_run(folder: RunFolder, code: int, weights: dict | None = None) -> int:
    """Record the run's exit status (a run that ended without results for a task is a failed run), the weights it
    ran (:func:`ran_weights`; None: it could not start) and the seal of its outputs
    (:func:`~abductive_tasks.runs.identity_record.sealed_outputs`)."""
    ended = {**folder.record.__dict__, "exit_status": code, "weights": weights, "outputs": sealed_outputs(folder.path)}
    IdentityRecord(**ended).write(folder.path / RUN_RECORD)
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
    ran: list[str] = field(default_factory=list)  # the tasks its levels ran (a reader found done is not among them)

    def level(self, level: LevelRun) -> int:
        """One level's run (:func:`~abductive_tasks.runs.levels.level_run`), in its own run folder, with the response
        cache of its tasks as they read now (:meth:`~abductive_tasks.runs.model_plan.ModelPlan.cache`); its exit
        status, 0 when it has no task to run. A reader whose upstream gave nothing is not run (said in one line)."""
        model_plan = level.plan
        for task, upstream in level.waiting.items():
            say(f"{self.name}: {task} not run: {', '.join(upstream)} gave it no output")
        if not level.tasks:
            return 0
        cache = model_plan.cache(level.tasks)  # a link there or inside moved aside, never followed (make_safe)
        for message in make_safe(cache, model_plan.secrets, within=model_plan.output):
            say(f"{self.name}: {message}")
        if self.started:
            self.folder = start_run(model_plan, level.tasks)
        else:  # the folder made before the server started: its record names this level's tasks
            _write_run_record(model_plan, level.tasks, self.folder)
        self.started = True
        self.ran += level.tasks
        command, cache_env = model_plan.evaluation(level.tasks, str(self.folder.path), cache)
        self.progress.start(level.label)
        log = model_plan.output / "eval.log"
        try:
            code = run_child(command, self.env | cache_env | level.env, log, model_plan.secrets, self.progress)
        finally:
            scrub_cache(cache, model_plan.secrets, within=model_plan.output)  # lmms-eval stores model_args in clear
        return end_run(self.folder, code, ran_weights(model_plan))


@contextlib.contextmanager
def model_run(model_plan: ModelPlan, base_env: dict[str, str]) -> Iterator[ModelRun]:
    """One model's runs: the folder of its first run made, its server started on the served route (stopped on exit);
    the levels then run through :meth:`ModelRun.level`, each with its response cache made safe before and scrubbed
    after. A folder no level ran in is removed."""
    model = model_plan.model
    model_plan.output.mkdir(parents=True, exist_ok=True)
    # The folder's record names every pending task until the first level starts (it then names that level's): a model
    # whose server or executable fails has every task recorded as a failed run, its later levels' readers included.
    folder = start_run(model_plan, model_plan.pending)
    env = {**base_env, **model_plan.env}
    with contextlib.ExitStack() as stack:
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


def run_levels(model_plan: ModelPlan, running: ModelRun, plans: dict[str, ModelPlan]) -> int:
    """A model's levels in turn, each run as the plan finds it then (:func:`~abductive_tasks.runs.levels.level_run`:
    what its readers read is resolved after the level before it ran, so a reader whose upstream output is unchanged is
    found done); the first failed run's exit status, else 0. ``plans``: every model's plan by name (a describer's),
    where the model's plan as its runs left it is left: refreshed after a level that ran, so the models that read its
    runs (a describer's readers) find them, even those of its last level."""
    name = model_plan.model.name
    for number in range(len(model_plan.levels)):
        level = level_run(model_plan, number, plans)
        model_plan = plans[name] = level.plan
        code = running.level(level)
        if level.tasks:
            plans[name] = refreshed(level.plan, plans)
        if code:
            return code
    return 0


def ran_weights(model_plan: ModelPlan) -> dict:
    """The weights the model runs, as they are now (:func:`~abductive_tasks.runs.identity.model_weights`: a hub
    model's revision is the commit the cache its runs use resolved once lmms-eval downloaded it)."""
    model = model_plan.model
    served = model.vllm.model if model.vllm else None
    hashes = FileHashes(model_plan.derived_root / FILE_HASHES)  # the table its evaluation's own process keeps
    return model_weights(model_plan.model_args, served, hashes, environment=model_plan.environment)


def write_spec_record(model_plan: ModelPlan) -> None:
    """The spec's identity for the leaderboard, as the model's plan has it now, with the weights the model runs:
    written again after the model's runs (a chained task's entry says what it reads)."""
    model = model_plan.model
    weights = ran_weights(model_plan)
    spec_record = IdentityRecord(
        identity=model_plan.identity,
        limit=model_plan.limit,
        tasks=model_plan.tasks,
        model=model.name,
        spec=model_plan.spec_path,
        weights=weights,
        asked=model_plan.asked,
    )
    spec_record.write(model_plan.output / SPEC_RECORD)


def record_spec(model_plan: ModelPlan, prefix: str) -> None:
    """Write the spec's identity for the leaderboard;
    report, by path, what earlier runs left damaged (set aside) or failed."""
    write_spec_record(model_plan)
    for damaged in model_plan.earlier.damaged:
        target = damaged.path.parent if damaged.path.name == RUN_RECORD else damaged.path
        if target.exists():
            say(f"{prefix}: {damaged}; set aside as {quarantine(target).name}")
    for foreign in model_plan.earlier.foreign:
        say(f"{prefix}: {foreign}")
    for task in model_plan.unusable:
        say(f"{prefix}: {model_plan.unusable_note(task)}")
    for task in model_plan.pending:
        if note := model_plan.doubt_note(task):
            say(f"{prefix}: {note}")
        for outcome in model_plan.earlier.outcomes.get(task, []):
            if outcome.failed_requests:
                say(f"{prefix}: {task} had {failures_text(outcome.results or {})} in {outcome.results_path}; run again")


def log_tail(path: Path, lines: int = 15, since: int = 0) -> str:
    """The last ``lines`` of what a log the batch wrote holds past its first ``since`` bytes (what an earlier
    attempt had written, :func:`~abductive_tasks.inputs.files.log_size`): '' when there is none, or a link stands in
    its place."""
    return "\n".join(read_log(path, since).splitlines()[-lines:])


@dataclass
class Evaluations:
    """What every model's evaluations get: the inherited environment with the spec's (``base``), and the variables
    that wire lmms-eval's judge to the spec's ``judge``, started (if served) when the first model runs."""

    base: dict[str, str]
    judge: JudgePlan | None
    stack: contextlib.ExitStack  # holds the judge's server until the batch ends
    wired: dict[str, str] | None = None

    def environment(self) -> dict[str, str]:
        if self.wired is None:
            self.wired = start_judge(self.judge, self.stack)
        return {**self.base, **self.wired}


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a model's runs, with what its tasks came to (the batch records it, then stops): done
    when each of them was done by then, else interrupted."""

    def __init__(self, outcome: ModelOutcome) -> None:
        super().__init__()
        self.outcome = outcome


def run_model(
    model_plan: ModelPlan, prefix: str, plans: dict[str, ModelPlan], evaluations: Evaluations
) -> ModelOutcome:
    """One model's turn in a batch: its spec record written, its pending tasks run level by level
    (:func:`run_levels`), what each task came to read back, said and returned. ``plans``: every model's plan by name,
    where the model's plan as its last level found it is left. Ctrl-C raises :class:`Interrupted`."""
    name = model_plan.model.name
    tasks_status = {task: "done (earlier run)" for task in model_plan.done}
    tasks_status |= {task: "unsupported by backend" for task in model_plan.unsupported}
    record_spec(model_plan, prefix)
    if model_plan.unsupported:
        say(
            f"{prefix}: backend {model_plan.model.backend} cannot run "
            f"{', '.join(model_plan.unsupported)} (loglikelihood); skipped"
        )
    if not model_plan.pending:
        done = f"all {len(model_plan.tasks)} tasks" if len(model_plan.tasks) > 1 else "its task"
        say(f"{prefix}: {done} done earlier; skipped")
        return ModelOutcome("done", tasks_status)
    pending = list(model_plan.pending)  # what this batch runs (its levels refresh the plan as they go)
    say(
        f"{prefix}: running {', '.join(pending)} ({len(model_plan.done)} of "
        f"{len(model_plan.tasks)} done earlier); log {model_plan.output / 'eval.log'}"
    )
    started, logged = time.monotonic(), log_size(model_plan.output / "eval.log")  # earlier attempts' lines
    ran: list[str] = []
    try:
        with model_run(model_plan, evaluations.environment()) as running:
            code = run_levels(model_plan, running, plans)
            ran = running.ran
        error = None if code == 0 else f"abductive-eval exited with status {code}"
    except (OSError, RuntimeError) as exception:  # server failed to start, executable missing, ...
        error = str(exception)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the status says which model stopped, and which tasks
        after = task_states(plans[name].output, plans[name].identity, pending, plans[name].run_limit)
        states = {task: "done" if state == "done" else "interrupted" for task, (state, _) in after.items()}
        finished = all(state == "done" for state in states.values())  # interrupted after its last task: done
        raise Interrupted(ModelOutcome("done" if finished else "interrupted", tasks_status | states)) from None
    return _ran(plans[name], prefix, pending, ran, tasks_status, error, time.monotonic() - started, logged)


def _ran(
    model_plan: ModelPlan,
    prefix: str,
    pending: list[str],
    ran: list[str],
    tasks_status: dict[str, str],
    error: str | None,
    elapsed: float,
    logged: int = 0,
) -> ModelOutcome:
    """What a model's runs came to (``model_plan``: as its last level found it): each pending task's state read back,
    the spec record written again, the outcome said with each done task's headline and how many tasks ``ran`` (a
    reader whose upstream output came out unchanged is found done, not run); a failure with the end of what this
    attempt logged (``logged``: the length of the log before it)."""
    after = task_states(model_plan.output, model_plan.identity, pending, model_plan.run_limit)
    tasks_status = tasks_status | {task: state for task, (state, _) in after.items()}
    write_spec_record(model_plan)  # what its chained tasks read now, a hub model's revision now cached
    not_done = [task for task in pending if tasks_status[task] != "done"]
    if error or not_done:
        error = error or "not done: " + ", ".join(f"{task} ({tasks_status[task]})" for task in not_done)
        tail = log_tail(model_plan.output / "eval.log", since=logged)  # none: it failed before its evaluation
        say(f"{prefix}: FAILED after {elapsed:.0f} s: {error}" + (f"\n{tail}" if tail else ""))
        outcome = ModelOutcome("failed", tasks_status, error)
    else:
        reused = len(pending) - len(ran)
        found = f", {reused} found done once their upstream ran" if reused else ""
        say(f"{prefix}: done in {elapsed:.0f} s ({len(ran)} task{'' if len(ran) == 1 else 's'} run{found})")
        outcome = ModelOutcome("done", tasks_status)
    for task, (state, best) in after.items():
        if state == "done" and best is not None and best.results is not None:
            facts = model_plan.facts[task]
            print(f"    {task_line(task, best.results, facts.headline_metric, facts.upper_bound)}", flush=True)
    return outcome
