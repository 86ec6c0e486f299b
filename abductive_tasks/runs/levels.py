"""A model's levels as each finds them: the plan of :mod:`~abductive_tasks.runs.plan`, refreshed after the level
before it ran (:mod:`~abductive_tasks.runs.chain`: what a reader reads enters its identity by content), so a reader
whose upstream output is unchanged is found done; each level's tasks and stage variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from abductive_tasks.runs import chain, stage_limits
from abductive_tasks.runs.history import scan_runs
from abductive_tasks.runs.model_plan import ModelPlan


def refreshed(model_plan: ModelPlan, plans: Mapping[str, ModelPlan] | None = None) -> ModelPlan:
    """The plan with each chained task's identity entry filled with what it reads now, level by level (rescanning the
    earlier runs, whose keys those entries change), then what is done: a task whose output readers read is done only
    when its run gives it. ``plans``: the other models' plans, by name, for what a model reads from another (its
    describer)."""
    plans = plans or {}
    identity = {**model_plan.identity, "tasks": dict(model_plan.identity["tasks"])}
    working = replace(model_plan, identity=identity, earlier=scan_runs(model_plan.output, identity))
    for level in model_plan.levels:
        readers = [task for task in level if model_plan.facts[task].reads]
        for task in readers:

            def current(upstream: str, kind: str, working: ModelPlan = working) -> str | None:
                """The digest of ``kind`` that the run of ``upstream`` answering the limit gave, one whose limit its
                readers accept: this model's, or the describer's (stage_limits.answering)."""
                source: ModelPlan | None = working
                if kind in model_plan.sources:
                    source = plans.get(model_plan.sources[kind])
                if source is None:
                    return None
                root, read_as = source.derived_root, source.read_as(upstream)
                run = stage_limits.answering(source.earlier, upstream, read_as)
                return chain.current_output(
                    source.model.name, source.identity, run, upstream, kind, root, True, read_as
                )

            identity["tasks"][task] = chain.task_entry(
                model_plan.facts[task], model_plan.environment, model_plan.derived_root, current, model_plan.sources
            )
        if readers:
            working = replace(working, earlier=scan_runs(model_plan.output, identity))
    answered = [task for task in model_plan.tasks if working.earlier.done(task, model_plan.run_limit(task))]
    unusable = {task: why for task in answered if task in model_plan.feeds and (why := _gives_none(working, task))}
    waiting = {task: ups for task in model_plan.tasks if (ups := chain.pending_reads(identity["tasks"][task]))}
    done = tuple(task for task in answered if task not in waiting and task not in unusable)
    return replace(working, done=done, waiting=waiting, unusable=unusable)


def _gives_none(model_plan: ModelPlan, task: str) -> str | None:
    """Why the earlier run of ``task`` that its readers would read gives them nothing (its samples missing or
    damaged, or its output bound to a ``--limit`` they refuse: :func:`~abductive_tasks.runs.stage_limits.readable`):
    it is not done, and runs again (with their limit); None when it gives them its output."""
    name, identity, kind = model_plan.model.name, model_plan.identity, model_plan.feeds[task]
    read_as = model_plan.read_as(task)
    run = stage_limits.answering(model_plan.earlier, task, read_as)
    if run is None and (refused := stage_limits.refused(model_plan.earlier, task, kind, read_as)) is not None:
        return refused
    return chain.output_problem(name, identity, run, task, kind, read_as)


@dataclass(frozen=True)
class LevelRun:
    """One level of a model's run, as the level finds it."""

    plan: ModelPlan  # the model's plan now: what the levels before it made is in its readers' identity entries
    tasks: list[str]  # what the level runs
    waiting: dict[str, list[str]]  # readers it does not run -> the upstream tasks that gave them no output
    env: dict[str, str]  # its stage variables (none unless the model's tasks chain)
    label: str  # how the batch's lines name it: the model, and the level where it has several


def level_run(model_plan: ModelPlan, number: int, plans: Mapping[str, ModelPlan] | None = None) -> LevelRun:
    """Level ``number`` of ``model_plan``: the plan refreshed (after the level before it ran, or for what a describer
    gave), its tasks still to run, the readers whose upstream gave nothing, and the variables of its run."""
    others = other_runs(plans)
    if number or model_plan.sources:
        model_plan = refreshed(model_plan, plans)
    tasks = [task for task in model_plan.levels[number] if task not in model_plan.done]
    waiting = {task: model_plan.waiting[task] for task in tasks if task in model_plan.waiting}
    tasks = [task for task in tasks if task not in waiting]
    env: dict[str, str] = {}
    if model_plan.chained and tasks:  # its stage variables (chain.level_env)
        env = chain.level_env(model_plan.model.name, model_plan.identity, model_plan.limit, tasks, others)
    levels = len(model_plan.levels)
    label = model_plan.model.name + (f", level {number + 1} of {levels}" if levels > 1 else "")
    return LevelRun(model_plan, tasks, waiting, env, label)


def other_runs(plans: Mapping[str, ModelPlan] | None) -> dict[str, tuple]:
    """What a level's stage variables name of each model whose runs its readers may read (a describer): its (name,
    identity, limit), by name (:func:`~abductive_tasks.runs.chain.level_env`)."""
    return {name: (other.model.name, other.identity, other.limit) for name, other in (plans or {}).items()}
