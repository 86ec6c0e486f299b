"""Which ``--limit`` a chained stage runs with, and which of its earlier runs its readers read.

A stage run's output is bound to its readers' ``--limit`` (:func:`bound_limit`), and a reader reads only an output
bound to its own limit or to none (:func:`~abductive_tasks.inputs.stages.checked`). A stage whose documents are laid
out otherwise than its readers' runs with a limit of its own (:func:`stage_limit`: ``nleye_describe``). The batch
(:mod:`abductive_tasks.runs.levels`) and the leaderboard (:mod:`abductive_tasks.reports.leaderboard.cells`) find the
run a reader reads by the same rule (:func:`answering`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from abductive_tasks import settings
from abductive_tasks.runs.history import Outcome, Scan

Limit = int | float | None  # an lmms-eval --limit (None: every document)


def bound_limit(run_limit: Limit, read_as: tuple[Limit, Limit] | None) -> Limit:
    """The ``--limit`` the output of a stage run with ``run_limit`` is bound to. ``read_as``: its readers' limit and
    the limit a stage run of the task gets for them (:func:`stage_limit`); a run with the latter, where it differs, is
    bound to its readers' limit, as a chain's stage run is
    (:meth:`~abductive_tasks.runs.chain.CommandChain.run_stage`). Otherwise the run's."""
    if read_as is not None and run_limit is not None and run_limit == read_as[1] != read_as[0]:
        return read_as[0]
    return run_limit


def readable(run_limit: Limit, read_as: tuple[Limit, Limit]) -> bool:
    """Whether readers with ``read_as`` (their limit, and the one a stage run of the task gets for them:
    :func:`bound_limit`) accept the output of a run with ``run_limit``: bound to no ``--limit`` or to theirs, as
    :func:`~abductive_tasks.inputs.stages.checked` requires. A run with a larger limit answers their limit as a score
    (:func:`~abductive_tasks.runs.history.limit_covers`), not as their input."""
    bound = bound_limit(run_limit, read_as)
    return bound is None or bound == read_as[0]


def answering(scan: Scan, task: str, read_as: tuple[Limit, Limit]) -> Outcome | None:
    """The earlier run of upstream ``task`` in ``scan`` whose output its readers read (``read_as``: their limit and
    its run's, :func:`bound_limit`): the newest that answers its run's limit and that they accept (:func:`readable`);
    None when there is none, and it runs again for them."""
    return scan.answering(task, read_as[1], functools.partial(readable, read_as=read_as))


def refused(scan: Scan, task: str, kind: str, read_as: tuple[Limit, Limit]) -> str | None:
    """Where no earlier run of ``task`` in ``scan`` gives its readers (``read_as``) their ``kind`` (:func:`answering`
    found none), why, when one answers its run's limit but they refuse its output (:func:`readable`: a run with a
    larger ``--limit``); None otherwise."""
    run = scan.answering(task, read_as[1])
    if run is None:
        return None
    return (
        f"its run {run.run} has --limit {run.limit}; its readers, with --limit {read_as[0]}, read the {kind} of a run "
        f"with --limit {read_as[1]}, or of one without"
    )


def stage_limit(task: str, limit: int | float | None) -> int | float | None:
    """The lmms-eval ``--limit`` a stage run of upstream ``task`` gets when its readers run with ``limit``: ``limit``
    itself, but where the task's documents are laid out otherwise than its readers' (``nleye_describe``: one per
    distinct image; ``nleye_triplet_described``: two per item), the count of its first documents that answer every
    item the readers' first ``limit`` documents show. What it gives stays bound to ``limit``, its readers' limit."""
    if task == "nleye_describe" and limit is not None:
        from abductive_tasks.nleye.hooks import describe_limit  # the data, loaded only for a limited NL-Eye chain

        return describe_limit(limit)
    return limit


def by_stage_limit(
    tasks: Iterable[str], limit: int | float | None, limits: Mapping[str, Limit] | None = None
) -> list[list[str]]:
    """``tasks`` grouped by the ``--limit`` their stage run gets (:func:`stage_limit`; ``limits``: those of the tasks
    that get another than ``limit``, :func:`stage_limits`), in order of first appearance: lmms-eval gives one run's
    tasks one limit."""
    groups: dict[int | float | None, list[str]] = {}
    for task in tasks:
        groups.setdefault(stage_limit(task, limit) if limits is None else limits.get(task, limit), []).append(task)
    return list(groups.values())


def stage_limits(tasks: Iterable[str], limit: Limit, environment: Mapping[str, str]) -> dict[str, Limit]:
    """Of ``tasks`` (upstream tasks whose output readers read under ``limit``), each whose stage run gets another
    ``--limit`` (:func:`stage_limit`) with that limit, as the data ``environment`` selects gives it (a batch's model
    runs in an environment of its own)."""
    found = {}
    for task in tasks:
        with settings.environment_restored(dict(environment)):
            if (own := stage_limit(task, limit)) != limit:
                found[task] = own
    return found
