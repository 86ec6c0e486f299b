"""What the batch tooling and the reports know about a task (:class:`TaskFacts`), read from the task's own YAML.

:class:`TaskIndex` is the set of tasks and groups one include path holds, as lmms-eval's ``TaskManager`` indexes
them (its ``task_index``); it expands group names and gives each task's facts. It is one of three task lists:

* the suites, ``yaml_tasks/suites/``: two groups a user runs (``abductive``, ``abductive_lite``), task YAML like any
  other, which this index expands;
* the catalog, :mod:`abductive_tasks.runs.catalog`: every task YAML read as plain YAML (names, descriptions,
  configurations; the ``abductive-eval tasks`` listing), through which this index reads;
* this index: the facts each task declares, checked, for the batch runner and the reports.

The YAML is read as lmms-eval reads it (``include:`` resolved) but without lmms-eval, torch or any hook
(:mod:`abductive_tasks.runs.catalog`): a report or a batch plan needs the metadata, not the task index.

Every task declares in its ``metadata`` the most images one prompt carries
(``max_images_per_prompt``, which becomes vLLM's ``limit_mm_per_prompt``) and its main number
(``headline_metric``, a leaderboard column), besides the ``version`` every task carries; a chained task
also what it reads from other tasks' runs (``reads``, :mod:`abductive_tasks.inputs.stages`), and a task that is
not the paper's number but a bound on it says so (``upper_bound``). A task's benchmark is the package module its
``process_docs`` hook lives in. Nothing here names a task: a new task folder under ``yaml_tasks/`` plugs in by
declaring those keys.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from abductive_tasks.compat import tasks_path
from abductive_tasks.hints import LIST_TASKS, did_you_mean
from abductive_tasks.runs import catalog

# The backends that only generate text: no loglikelihood requests (lmms-eval 0.7.3).
GENERATION_ONLY_BACKENDS = frozenset({"vllm", "vllm_chat", "openai", "async_openai"})


class TaskIndexError(ValueError):
    """A task or group name that does not resolve, or a task missing the metadata the tooling reads."""


UPPER_BOUND_LABEL = "upper bound, not the paper's number"  # how the batch and the leaderboard label such a task


@dataclass(frozen=True)
class TaskFacts:
    """The per-task facts the batch tooling and the leaderboard use."""

    name: str
    max_images_per_prompt: int
    headline_metric: str
    output_type: str
    max_new_tokens: int | None
    higher_is_better: dict[str, bool | None]
    version: str  # metadata.version
    benchmark: str | None  # the package module its documents come from: abductive_tasks.<benchmark>... in process_docs
    reads: dict[str, str] = field(default_factory=dict)  # metadata.reads: upstream task -> kind (inputs/stages.py)
    upper_bound: bool = False  # metadata.upper_bound: not the paper's number (e.g. gold-conditioned), never averaged

    @property
    def generates(self) -> bool:
        """Whether the task only needs text generation (so vLLM and OpenAI-compatible backends can run it)."""
        return self.output_type.startswith("generate_until")


def _benchmark(process_docs: object) -> str | None:
    """``nleye`` for ``!function abductive_tasks.nleye.triplet_docs`` (or ``abductive_tasks.nleye.hooks.triplet_docs``);
    None for other hooks."""
    parts = str(process_docs or "").split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "abductive_tasks" else None


class TaskIndex:
    """Our tasks and groups as lmms-eval would index them from one include path (ours by default, no built-ins)."""

    def __init__(self, include_path: Path | str | None = None) -> None:
        self.include_path = str(include_path or tasks_path())
        self._configs: dict[str, dict] = {}

    @cached_property
    def _index(self) -> dict[str, tuple[str, Path]]:
        return catalog.index(Path(self.include_path))

    def _config(self, name: str) -> dict:
        if name not in self._index:
            raise TaskIndexError(f"unknown task or group {name!r}{did_you_mean(name, self._index)}; {LIST_TASKS}")
        if name not in self._configs:
            self._configs[name] = catalog.config(self._index[name][1])
        return self._configs[name]

    def yaml_path(self, name: str) -> str:
        """The YAML file of a task or group (which must be known)."""
        self._config(name)
        return str(self._index[name][1])

    def is_group(self, name: str) -> bool:
        self._config(name)
        return self._index[name][0] == "group"

    @property
    def task_names(self) -> list[str]:
        """Every task (not group) in the index."""
        return sorted(name for name, (kind, _) in self._index.items() if kind == "task")

    def expand(self, names: Iterable[str]) -> list[str]:
        """Task names with groups replaced by their tasks (recursively), in order, without repeats."""
        tasks: list[str] = []
        for name in names:
            if self.is_group(name):
                members = self._config(name).get("task", [])
                if not all(isinstance(member, str) for member in members):
                    raise TaskIndexError(f"group {name!r} must list its tasks by name")
                leaves = self.expand(members)
            else:
                leaves = [name]
            tasks += [leaf for leaf in leaves if leaf not in tasks]
        return tasks

    def facts(self, task: str) -> TaskFacts:
        config = self._config(task)
        if self.is_group(task):
            raise TaskIndexError(f"{task!r} is a group, not a task")
        metadata = config.get("metadata") or {}
        missing = [key for key in ("version", "max_images_per_prompt", "headline_metric") if key not in metadata]
        if missing:
            raise TaskIndexError(f"task {task!r} ({self.yaml_path(task)}): metadata lacks {', '.join(missing)}")
        metrics = {
            entry["metric"]: entry.get("higher_is_better", True) for entry in config.get("metric_list", [])
        }  # None: a diagnostics dict
        if metadata["headline_metric"] not in metrics:
            raise TaskIndexError(
                f"task {task!r}: headline_metric {metadata['headline_metric']!r} is not in its metric_list"
            )
        return TaskFacts(
            name=task,
            max_images_per_prompt=int(metadata["max_images_per_prompt"]),
            headline_metric=str(metadata["headline_metric"]),
            output_type=str(config.get("output_type", "generate_until")),
            max_new_tokens=(config.get("generation_kwargs") or {}).get("max_new_tokens"),
            higher_is_better=metrics,
            version=str(metadata["version"]),
            benchmark=_benchmark(config.get("process_docs")),
            reads=dict(metadata.get("reads") or {}),
            upper_bound=bool(metadata.get("upper_bound", False)),
        )

    def task_set(self, names: Iterable[str]) -> TaskSet:
        """The named tasks (groups expanded) with the facts of each and of every task they read, however deep: what a
        batch plan needs, looked up once."""
        named = self.expand(names)
        facts = {task: self.facts(task) for task in named}
        upstream = [up for fact in facts.values() for up in fact.reads]
        while upstream:
            task = upstream.pop(0)
            if task not in facts:
                facts[task] = self.facts(task)
                upstream += list(facts[task].reads)
        return TaskSet(tuple(named), facts)


@dataclass(frozen=True)
class TaskSet:
    """Tasks by name with their facts (:meth:`TaskIndex.task_set`), as plain data handed down a batch's plan."""

    named: tuple[str, ...]  # the tasks asked for, groups expanded, in order
    facts: dict[str, TaskFacts]  # theirs and every upstream task's they read
