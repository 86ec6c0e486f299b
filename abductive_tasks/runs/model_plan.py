"""A batch's plan as data: built once by :func:`~abductive_tasks.runs.plan.plan` and handed down to the levels
(:mod:`~abductive_tasks.runs.levels`), the run (:mod:`~abductive_tasks.runs.run`) and the batch, none of which calls
back into the plan.

Its command lines hold placeholder words where a run fills in what is known only then (:func:`fill`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from abductive_tasks.runs.history import Scan
from abductive_tasks.runs.identity import cache_key, without_limit
from abductive_tasks.runs.spec import ModelSpec
from abductive_tasks.runs.task_index import TaskFacts
from abductive_tasks.runs.vllm import ServerPlan, VllmSettings
from abductive_tasks.settings import COUNTED_ABOVE

HOST = "127.0.0.1"


# Words the plan's command lines hold where a run fills in what is known only then: the port chosen free at start,
# the level's tasks, the folder made for its run and its response cache (ModelPlan.cache).
PORT, JUDGE_PORT = "$PORT", "$JUDGE_PORT"
TASKS, RUN_FOLDER, CACHE = "<tasks>", "<run folder>", "<cache>"
EVAL_PROGRAM = (sys.executable, "-m", "abductive_tasks.cli")  # a level's process: abductive-eval, in this Python


@dataclass(frozen=True)
class ModelPlan:
    """Everything a batch does for one model, built once and handed down: what it runs and reads (identity, levels,
    what is done), the environment and secrets its runs get, and their command lines. It is never changed in place:
    :func:`~abductive_tasks.runs.levels.level_run` gives the plan as each level finds it."""

    model: ModelSpec
    tasks: tuple[str, ...]  # every task of the spec the backend can run
    unsupported: tuple[str, ...]  # tasks the backend cannot run (loglikelihood on a generation-only backend)
    done: tuple[str, ...]
    waiting: dict[str, list[str]]  # readers -> the upstream tasks whose output they still wait for (none yet given)
    feeds: dict[str, str]  # its tasks whose runs readers read (its own, and those of models it describes for) -> kind
    unusable: dict[str, str]  # of those, each whose answering run gives its readers nothing -> why (it runs again)
    model_args: str
    output: Path
    identity: dict  # what its results must be results of (abductive_tasks.runs.identity)
    earlier: Scan  # what earlier runs with this identity left
    secrets: tuple[str, ...]  # clear values never to be written (model_args, eval_args, env, vLLM arguments)
    limit: int | float | None  # the --limit the run gets, wherever the spec set it (requested_limit)
    stage_limits: dict[
        str, int | float | None
    ]  # its upstream tasks whose runs get another --limit (stage_limits.stage_limits)
    levels: tuple[tuple[str, ...], ...]  # its tasks by chain level, each level one run (split by run_limit)
    sources: dict[str, str]  # kind -> the model whose runs give it (a describer)
    environment: dict[str, str]  # the inherited environment with the spec's and the model's env
    derived_root: Path  # where derived files live (settings.cache_root of its environment): stage outputs, stores
    env: dict[str, str]  # the variables its runs (evaluation and server) get over the batch's (model_env)
    eval_command: tuple[str, ...]  # one level's abductive-eval process, TASKS, RUN_FOLDER and CACHE to fill in
    server: ServerPlan | None  # the served route's `vllm serve`
    client_env: dict[str, str]  # what the served route's evaluation gets to reach it (PORT in the URL to fill in)
    check_ray: bool  # whether vLLM runs in this environment (in process, or the default executable)
    spec_path: str  # the spec it comes from, as run records name it
    facts: dict[str, TaskFacts]  # of its tasks (and of what they read), looked up once
    asked: tuple[str, ...] = ()  # of its tasks, those the spec names (groups expanded); the rest are upstream stages

    @property
    def pending(self) -> list[str]:
        return [task for task in self.tasks if task not in self.done]

    @property
    def pending_levels(self) -> list[list[str]]:
        """Its pending tasks, level by level (no empty level)."""
        found = [[task for task in level if task not in self.done] for level in self.levels]
        return [level for level in found if level]

    def run_limit(self, task: str) -> int | float | None:
        """The ``--limit`` a run of ``task`` gets, and that an earlier run of it must cover to be done: :attr:`limit`,
        or for an upstream task laid out otherwise than its readers (``nleye_describe``) the limit that gives them what
        they read under :attr:`limit` (:func:`~abductive_tasks.runs.stage_limits.stage_limit`; its output is bound to
        :attr:`limit`, :func:`~abductive_tasks.runs.stage_limits.bound_limit`). A level's tasks share one
        (:attr:`levels`)."""
        return self.stage_limits.get(task, self.limit)

    def read_as(self, task: str) -> tuple[int | float | None, int | float | None]:
        """What binds the output of a run of ``task`` that its readers read: their limit, and the one its run gets
        (:func:`~abductive_tasks.runs.stage_limits.bound_limit`)."""
        return self.limit, self.run_limit(task)

    def cache(self, tasks: Iterable[str]) -> Path:
        """lmms-eval's response cache of a run of ``tasks``: a folder per identity and what those tasks read
        (:func:`~abductive_tasks.runs.identity.cache_key`), so new data, settings or upstream outputs never meet old
        answers."""
        return self.output / "cache" / cache_key(self.identity, tasks)

    def evaluation(self, tasks: Sequence[str], run_folder: str, cache: Path) -> tuple[list[str], dict[str, str]]:
        """The command line of a run of ``tasks`` writing into ``run_folder`` with the response ``cache``, and the
        variables it gets for it: lmms-eval's run id, the folder's name, so an interrupted run's shard is reopened,
        not orphaned; and :data:`~abductive_tasks.settings.COUNTED_ABOVE`, as the batch counts its failed requests."""
        command = fill(self.eval_command, {TASKS: ",".join(tasks), RUN_FOLDER: run_folder, CACHE: str(cache)})
        limit = self.run_limit(tasks[0]) if tasks else self.limit
        if limit != self.limit:  # a stage's own limit (run_limit) in place of the spec's, however given
            command = [*without_limit(command), "--limit", str(limit)]
        return command, {"LMMS_CACHE_RUN_ID": cache.name, COUNTED_ABOVE: "1"}

    def unusable_note(self, task: str) -> str:
        """Why ``task``, done earlier, runs again (:attr:`unusable`)."""
        return f"{task} runs again: its readers read its {self.feeds[task]}, and {self.unusable[task]}"

    def doubt_note(self, task: str) -> str | None:
        """Why ``task``, run earlier, runs again: its run cannot be believed (:meth:`Scan.doubted`); None otherwise."""
        doubted = self.earlier.doubted(task, self.run_limit(task))
        return None if doubted is None else f"{task} runs again: {doubted.doubt} (run {doubted.run})"

    @property
    def chained(self) -> bool:
        """Whether a task of it reads another task's run: then each level's run gets the stage variables."""
        return any("inputs" in self.identity["tasks"].get(task, {}) for task in self.tasks)


@dataclass(frozen=True)
class JudgePlan:
    """The spec's judge, built once: the variables that wire lmms-eval's judge to it, and a served judge's server."""

    vllm: VllmSettings | None
    server: ServerPlan | None  # a served judge's; None for one already running at a URL
    client_env: dict[str, str]  # what every evaluation gets (a served judge's URL holds JUDGE_PORT to fill in)
    check_ray: bool


@dataclass(frozen=True)
class BatchPlan:
    """A batch's plan, built once and handed down: every model's, and the judge's."""

    models: tuple[ModelPlan, ...]
    judge: JudgePlan | None


def fill(command: Sequence[str], words: Mapping[str, str]) -> list[str]:
    """``command`` with its placeholder words (:data:`PORT`, :data:`TASKS`, ...) replaced as ``words`` say."""
    return [words.get(word, word) for word in command]
