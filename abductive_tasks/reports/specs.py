"""Our task specs as the readers of finished runs find them: every spec, the spec of a task, a metric's declaration.

The specs live in the benchmarks' hook modules (``abductive_tasks.<benchmark>.hooks``, and MuCR's CCoT stages in
``abductive_tasks.mucr.strategies``), imported here by name (static imports: the layering test sees them). A task's
spec is the one its YAML's ``process_results`` hook carries, found from the hook's name in our YAML
(:mod:`abductive_tasks.runs.catalog`): neither lmms-eval's task index nor a task's data loader is involved.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from abductive_tasks.runs import catalog

if TYPE_CHECKING:
    from abductive_tasks.scoring.taskspec import Metric, TaskSpec


def _import_benchmark(benchmark: str) -> None:
    """Import the modules defining ``benchmark``'s specs (each spec registers itself on definition)."""
    if benchmark == "nleye":
        import abductive_tasks.nleye.hooks  # noqa: F401
    elif benchmark == "mucr":
        import abductive_tasks.mucr.hooks  # noqa: F401
        import abductive_tasks.mucr.strategies  # noqa: F401
    elif benchmark == "dve":
        import abductive_tasks.dve.hooks  # noqa: F401
    elif benchmark == "sherlock":
        import abductive_tasks.sherlock.hooks  # noqa: F401


@functools.cache
def _import_specs() -> None:
    """Import every module that defines a task spec."""
    for benchmark in ("nleye", "mucr", "dve", "sherlock"):
        _import_benchmark(benchmark)


def registered_specs() -> list[TaskSpec]:
    """Every task spec: ours, and any other defined in this process (e.g. a test's)."""
    from abductive_tasks.scoring.taskspec import REGISTRY

    _import_specs()
    return list(REGISTRY.values())


def spec_of_task(task: str, root: Path | None = None) -> TaskSpec | None:
    """The spec the task's ``process_results`` hook derives from (None for a task or group not ours, or a hook
    without a spec), read from the hook's name in our YAML; for our installed task folder, once per task and
    process (as :func:`~abductive_tasks.runs.catalog.index` reads it)."""
    return _installed_spec(task) if root is None else _spec_of(task, root)


@functools.cache
def _installed_spec(task: str) -> TaskSpec | None:
    return _spec_of(task, None)


def _spec_of(task: str, root: Path | None) -> TaskSpec | None:
    import abductive_tasks

    kind, path = catalog.index(root).get(task, (None, None))
    hook = catalog.config(path).get("process_results") if kind == "task" else None
    parts = str(hook or "").split(".")
    if len(parts) < 3 or parts[0] != "abductive_tasks":
        return None
    _import_benchmark(parts[1])  # that benchmark's only: another's hooks may import much more (scipy, datasets)
    found: object = abductive_tasks
    for part in parts[1:]:
        found = getattr(found, part, None)
    return getattr(found, "spec", None)


def task_metric(task: str, name: str) -> Metric | None:
    """The declaration of ``name`` in ``task``'s spec (None when not ours or not declared there), importing only the
    task's benchmark."""
    spec = spec_of_task(task)
    return next((metric for metric in spec.metrics if metric.name == name), None) if spec else None


def metric_info(name: str) -> Metric | None:
    """The declaration of a metric of any task spec (the first spec declaring it), None if unknown."""
    return _declarations(tuple(registered_specs())).get(name)


@functools.lru_cache(maxsize=4)
def _declarations(specs: tuple[TaskSpec, ...]) -> dict[str, Metric]:
    found: dict[str, Metric] = {}
    for spec in specs:
        for metric in spec.metrics:
            found.setdefault(metric.name, metric)
    return found


def metric_proportion(name: str, task: str | None = None) -> bool:
    """Whether a metric of ours (of ``task``'s spec, when given) is a share of units (0-100%); False for a metric not
    ours."""
    info = task_metric(task, name) if task else metric_info(name)
    return bool(info and info.proportion and info.scale != "raw")


def metric_scale(name: str, undeclared: str = "raw") -> str:
    """How a metric's raw value reads as a percentage ("fraction", "percent" or "raw");
    ``undeclared`` for a metric not ours."""
    info = metric_info(name)
    return info.scale if info else undeclared
