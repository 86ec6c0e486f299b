"""Chained protocols as one run: the upstream stages a task reads run first, for the same model and data, and every
stage output a run reads enters its identity by content.

A chained task declares what it reads (``metadata.reads``: upstream task -> kind; :mod:`abductive_tasks.inputs.stages`).
For one model its tasks fall into **levels** (:func:`levels`): a task that reads nothing from this model's runs is
level 0, a reader one more than the deepest task it reads (``mucr_exp``: 1; ``mucr_exp_ccot``: 3). Each level is one
lmms-eval run after the one before it (lmms-eval builds every request before it sends any). What a reader reads is,
per upstream task (:func:`task_inputs`, a reader's identity entry ``inputs``):

* named by a variable (``ABDUCTIVE_MUCR_PICKS``, ``ABDUCTIVE_MUCR_SCENE_GRAPHS``, ``ABDUCTIVE_NLEYE_DESCRIPTIONS`` /
  ``ABDUCTIVE_NLEYE_DESCRIBER``, :data:`VARIABLES`): nothing upstream runs, and the entry holds a fingerprint of what
  the variable names, by content (:func:`variable_input`);
* otherwise the upstream task's run for the same model, or for the model the spec or command names as the source of
  that kind on purpose (a ``describer``): a stage output derived from that run's samples (:func:`derive`), bound to
  that run (:func:`binding`); the entry holds its digest (``pending`` until the upstream has run).

The run of a level gets ``ABDUCTIVE_STAGE_INPUTS`` (upstream task -> digest) and ``ABDUCTIVE_RUN`` (what the run is,
:func:`run_descriptor`), by which its tasks read and check what they read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from loguru import logger

from abductive_tasks import settings
from abductive_tasks.compat import parse_model_args
from abductive_tasks.inputs.files import read_regular
from abductive_tasks.inputs.stages import (
    INPUTS_VARIABLE,
    RUN_VARIABLE,
    StageError,
    differs_from,
    latest,
    load,
    noted_samples,
    output_from_samples,
    remember,
    save,
    store_root,
)
from abductive_tasks.lmms_source import limit_value, results_beside, samples_glob, samples_path
from abductive_tasks.mucr import scene_graphs
from abductive_tasks.mucr.picks import PICKS_VARIABLE, samples_file
from abductive_tasks.nleye import descriptions
from abductive_tasks.redaction import collect_secrets, redact_text
from abductive_tasks.runs.history import Outcome, failures_in
from abductive_tasks.runs.identity import (
    build_identity,
    cache_key,
    data_fingerprint,
    model_key,
    task_key,
)
from abductive_tasks.runs.layout import model_name
from abductive_tasks.runs.stage_limits import Limit, bound_limit, by_stage_limit, stage_limit
from abductive_tasks.runs.vllm import child_setup, interrupts_held

if TYPE_CHECKING:
    from abductive_tasks.runs.task_index import TaskFacts, TaskIndex

# The variables that name a kind's output for plain lmms-eval runs (first set wins): with one set, nothing upstream is
# run for that kind and the reader reads what it names.
VARIABLES = {
    "picks": (PICKS_VARIABLE,),
    "graphs": (scene_graphs.VARIABLE,),
    "descriptions": (descriptions.READ_VARIABLE, descriptions.DESCRIBER_VARIABLE),
}
PENDING = "pending"


def named_by_variable(kind: str, environment: Mapping[str, str]) -> tuple[str, str] | None:
    """The variable (name, value) naming ``kind``'s output in ``environment``; None when none is set."""
    for name in VARIABLES.get(kind, ()):
        value = environment.get(name, "").strip()
        if value:
            return name, value
    return None


def run_reads(reads: Mapping[str, str], environment: Mapping[str, str]) -> dict[str, str]:
    """The reads (upstream task -> kind) that come from an upstream run rather than from a variable."""
    return {task: kind for task, kind in reads.items() if named_by_variable(kind, environment) is None}


def describing(
    describers: Mapping[str, str],
    environments: Mapping[str, Mapping[str, str]],
    reads_of: Callable[[str], Mapping[str, str]],
    tasks: Iterable[str],
) -> dict[str, list[str]]:
    """Per model that another names as its describer (``describers``: model -> describer; ``environments``: each
    model's run environment, by name), the upstream tasks of the descriptions ``tasks`` read that it runs for them."""
    listed = list(tasks)
    found: dict[str, list[str]] = {}
    for name, describer in describers.items():
        for task in listed:
            for upstream, kind in run_reads(reads_of(task), environments[name]).items():
                if kind == "descriptions" and upstream not in found.setdefault(describer, []):
                    found[describer].append(upstream)
    return found


def with_upstream(
    tasks: Iterable[str],
    reads_of: Callable[[str], Mapping[str, str]],
    environment: Mapping[str, str],
    sources: Mapping[str, str] | None = None,
) -> list[str]:
    """``tasks`` with, before the first task that reads them, the upstream tasks their reads run for this model (a
    kind whose ``sources`` names another model is run there, not here)."""
    sources = sources or {}
    ordered: list[str] = []

    def add(task: str, seen: tuple[str, ...] = ()) -> None:
        if task in seen:
            raise StageError(f"tasks read each other in a circle: {' -> '.join([*seen, task])}")
        for upstream, kind in run_reads(reads_of(task), environment).items():
            if kind not in sources:
                add(upstream, (*seen, task))
        if task not in ordered:
            ordered.append(task)

    for task in tasks:
        add(task)
    one_kind_each(ordered, reads_of)
    return ordered


def one_kind_each(tasks: Iterable[str], reads_of: Callable[[str], Mapping[str, str]]) -> None:
    """Refuse ``tasks`` when they read one upstream task as two kinds (``mucr_c2e_cot``: picks for ``mucr_exp_cot``,
    reasonings for ``mucr_c2e_cot2``): a run hands its readers one stage output per upstream task."""
    readers: dict[str, dict[str, str]] = {}
    for task in tasks:
        for upstream, kind in reads_of(task).items():
            readers.setdefault(upstream, {}).setdefault(kind, task)
    for upstream, by_kind in sorted(readers.items()):
        if len(by_kind) > 1:
            read = " and ".join(f"as {kind} by {task}" for kind, task in sorted(by_kind.items()))
            raise StageError(f"{upstream} is read {read}: run those readers in separate commands")


def levels(
    tasks: Iterable[str],
    reads_of: Callable[[str], Mapping[str, str]],
    environment: Mapping[str, str],
    sources: Mapping[str, str] | None = None,
) -> list[list[str]]:
    """``tasks`` by level (:mod:`this module <abductive_tasks.runs.chain>`), each in the given order; no empty level."""
    sources = sources or {}
    depth: dict[str, int] = {}

    def level(task: str) -> int:
        if task not in depth:
            upstream = [up for up, kind in run_reads(reads_of(task), environment).items() if kind not in sources]
            depth[task] = 1 + max(map(level, upstream)) if upstream else 0
        return depth[task]

    grouped: dict[int, list[str]] = {}
    for task in tasks:
        grouped.setdefault(level(task), []).append(task)
    return [grouped[number] for number in sorted(grouped)]


def feeds(tasks: Iterable[str], reads_of: Callable[[str], Mapping[str, str]]) -> set[str]:
    """The tasks among ``tasks`` that some task among them reads."""
    listed = list(tasks)
    return {upstream for task in listed for upstream in reads_of(task) if upstream in listed}


# ---------------------------------------------------------------- what a reader reads, by content


def variable_input(kind: str, upstream: str, environment: Mapping[str, str], root: Path) -> dict:
    """What the variable naming ``kind`` gives ``upstream``'s readers, by content: the samples file of the picks
    folder (with the results file beside it), or the named store's files (``root``: where derived files live,
    :func:`~abductive_tasks.settings.cache_root` of ``environment``)."""
    name, value = named_by_variable(kind, environment) or ("", "")
    if kind == "picks":
        try:
            path = samples_file(Path(value).expanduser(), upstream)
            digest = hashlib.sha256(read_regular(path))
            results = results_beside(path)
            if results.is_file():
                digest.update(read_regular(results))
        except Exception as error:  # noqa: BLE001 (any reason the folder gives no samples: the reader fails with it)
            return {"from": name, "error": str(error)}
        return {"from": name, "file": path.name, "sha256": digest.hexdigest()}
    store = scene_graphs.STORE if kind == "graphs" else descriptions.STORE
    return {"from": name, **store.fingerprint(value, root)}


def task_inputs(
    reads: Mapping[str, str],
    environment: Mapping[str, str],
    root: Path,
    current: Callable[[str, str], str | None],
    sources: Mapping[str, str] | None = None,
) -> dict:
    """A reader's ``inputs`` entry: per upstream task its kind and, by content, what is read now: a variable's
    fingerprint, or the digest ``current(upstream, kind)`` gives for the upstream run (``pending`` when none)."""
    sources = sources or {}
    entry = {}
    for upstream, kind in sorted(reads.items()):
        if named_by_variable(kind, environment) is not None:
            entry[upstream] = {"kind": kind, **variable_input(kind, upstream, environment, root)}
        else:
            found = current(upstream, kind)
            entry[upstream] = {"kind": kind, "from": "run", "model": sources.get(kind, ""), "digest": found or PENDING}
    return entry


def task_entry(
    fact,
    environment: Mapping[str, str],
    root: Path,
    current: Callable | None = None,
    sources: Mapping[str, str] | None = None,
) -> dict:
    """A task's part of a run identity (``fact``: its :class:`~abductive_tasks.runs.task_index.TaskFacts`): its
    benchmark and version, and for a chained task what it reads, by content (:func:`task_inputs`; ``root``: where
    derived files live; ``current(upstream, kind)``: the digest of an upstream run's output now, None while none)."""
    entry = {"benchmark": fact.benchmark, "version": fact.version}
    if fact.reads:
        entry["inputs"] = task_inputs(fact.reads, environment, root, current or (lambda upstream, kind: None), sources)
    return entry


def binding(name: str, identity: Mapping, limit: int | float | None, task: str) -> dict:
    """What a stage output of ``task`` is bound to: the run's model (``name``, backend, arguments with secret values
    hashed, key), its ``--limit`` and the upstream task's key (model, settings, versions, data); all read off the
    run's identity, so the leaderboard derives the same output again."""
    return {**_model_of(name, identity), "limit": limit, "task": task, "task_key": task_key(identity, task)}


def _model_of(name: str, identity: Mapping) -> dict:
    """The model a run's answers come from (``name``, backend, arguments with secret values hashed, key), as a stage
    output's binding and ``ABDUCTIVE_RUN`` name it."""
    return {
        "model": name,
        "backend": identity["model"].get("backend"),
        "model_args": identity["model"].get("model_args") or "",
        "key": model_key(identity),
    }


def derive(kind: str, task: str, samples: Path, bound: Mapping, root: Path, keep: bool = True) -> str | None:
    """The digest of the stage output ``samples`` hold (stored under ``root`` when ``keep``); None when they give none
    (one warning: the upstream task then counts as not run)."""
    try:
        output = output_from_samples(kind, task, samples, bound)
        return save(output, root) if keep else output.digest
    except (StageError, OSError) as error:
        logger.warning(f"{task}: no {kind} read from {samples} ({error})")
        return None


def run_descriptor(
    name: str, identity: Mapping, limit: int | float | None, sources: Mapping[str, dict] | None = None
) -> dict:
    """``ABDUCTIVE_RUN``: the running model (as :func:`binding` names it), its ``--limit``, and per upstream task read
    from another model on purpose that model's descriptor."""
    run = {**_model_of(name, identity), "limit": limit}
    return run | ({"sources": dict(sources)} if sources else {})


def current_output(
    name: str,
    identity: Mapping,
    run: Outcome | None,
    upstream: str,
    kind: str,
    root: Path,
    keep: bool = True,
    read_as: tuple[Limit, Limit] | None = None,
) -> str | None:
    """The digest of the ``kind`` output of model ``name``'s ``run`` of ``upstream``, the one its readers read
    (:meth:`~abductive_tasks.runs.history.Scan.answering`; ``read_as``: :func:`bound_limit`); None when there is none,
    or it gives none."""
    if run is None or run.results_path is None:
        return None
    bound = binding(name, identity, bound_limit(run.limit, read_as), upstream)
    return derive(kind, upstream, samples_path(run.results_path, upstream), bound, root, keep)


def output_problem(
    name: str,
    identity: Mapping,
    run: Outcome | None,
    upstream: str,
    kind: str,
    read_as: tuple[Limit, Limit] | None = None,
) -> str | None:
    """Why model ``name``'s ``run`` of ``upstream`` gives its readers no ``kind`` (no such run, its samples file
    missing, or samples giving none: edited or damaged); None when it gives one (``read_as``: :func:`bound_limit`)."""
    if run is None or run.results_path is None:
        return "no run of it has results"
    samples = samples_path(run.results_path, upstream)
    if not samples.is_file():
        return f"its samples file {samples} is missing"
    try:
        output_from_samples(kind, upstream, samples, binding(name, identity, bound_limit(run.limit, read_as), upstream))
    except (StageError, OSError) as error:
        return f"its samples give no {kind} ({error})"
    return None


def level_env(
    name: str, identity: Mapping, limit: int | float | None, tasks: Iterable[str], others: Mapping[str, tuple]
) -> dict[str, str]:
    """The variables of a level's run over ``tasks`` by model ``name`` (:func:`stage_env`); ``others``: the (name,
    identity, limit) of each model its readers read from on purpose, by name."""
    entries = [identity["tasks"][task] for task in tasks]
    sources = {}
    for entry in entries:
        for upstream, read in (entry.get("inputs") or {}).items():
            if read.get("from") == "run" and (read.get("model") or "") in others:
                other_name, other_identity, other_limit = others[read["model"]]
                sources[upstream] = run_descriptor(other_name, other_identity, other_limit)
    return stage_env(run_descriptor(name, identity, limit, sources), given(entries))


def stage_env(run: Mapping, inputs: Mapping[str, str]) -> dict[str, str]:
    """The variables a level's run gets: what it is, and the digests of the stage outputs it reads."""
    return {RUN_VARIABLE: json.dumps(run, sort_keys=True), INPUTS_VARIABLE: json.dumps(dict(inputs), sort_keys=True)}


def given(entries: Iterable[Mapping]) -> dict[str, str]:
    """The run digests the ``inputs`` entries of a level's readers name (upstream task -> digest), none pending."""
    found = {}
    for entry in entries:
        for upstream, read in (entry.get("inputs") or {}).items():
            if read.get("from") == "run" and read.get("digest") not in (None, PENDING):
                found[upstream] = read["digest"]
    return found


def pending_reads(entry: Mapping) -> list[str]:
    """The upstream tasks a reader's identity entry still waits for."""
    return [up for up, read in (entry.get("inputs") or {}).items() if read.get("digest") == PENDING]


# ---------------------------------------------------------------- one command: abductive-eval over chained tasks

# The response cache of a run whose inputs are still to be made, as the printed commands show it.
NEW_CACHE = "<key of what its stage gives>"


def keyed_cache(folder: Path, identity: Mapping, tasks: Iterable[str], pending: bool = False) -> Path:
    """The response cache a run of ``tasks`` uses when the user names ``folder`` (``--use_cache``): ``folder`` itself
    when none of them reads an upstream output, else its sub-folder named by
    :func:`~abductive_tasks.runs.identity.cache_key` (what they read, by content; :data:`NEW_CACHE` when that is still
    to be made, ``pending``), as a batch's run has. lmms-eval keys a reply on the prompt text, and ``mucr_exp`` is
    shown its pick as an image: replies made for other inputs would answer it. A ``folder`` ending ``.db`` names
    lmms-eval's database in the folder holding it."""
    listed = list(tasks)
    if not any("inputs" in identity["tasks"].get(task, {}) for task in listed):
        return folder
    root = folder.parent if folder.name.endswith(".db") else folder
    return root / (NEW_CACHE if pending else cache_key(identity, listed))


def with_cache(argv: list[str], folder: Path) -> list[str]:
    """``argv`` with ``--use_cache folder`` in place of the response cache it names (:func:`without_cache`)."""
    return [*without_cache(argv), "--use_cache", str(folder)]


def without_cache(argv: list[str]) -> list[str]:
    """``argv`` without lmms-eval's response cache option however spelled: ``--use_cache``, ``-c`` or a unique prefix,
    its value after a space or ``=``, or ``-cDIR``."""
    kept, value_next = [], False
    for word in argv:
        name, equals, _ = word.partition("=")
        if value_next:
            value_next = False
        elif name == "-c" or (name.startswith("--u") and "--use_cache".startswith(name)):
            value_next = not equals
        elif not word.startswith("-c"):
            kept.append(word)
    return kept


# lmms-eval options a stage run of the command sets itself, or that do not change a reply (left out of the identity).
OWN_OPTIONS = {"--model": True, "--model_args": True, "--tasks": True, "--output_path": True, "--log_samples": False,
               "--verbosity": True, "--limit": True}  # fmt: skip


def other_args(argv: list[str]) -> list[str]:
    """``argv`` without the options a stage run sets itself (:data:`OWN_OPTIONS`, the response cache however spelled:
    :func:`without_cache`) and their values."""
    kept, skip = [], False
    for word in without_cache(argv):
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in OWN_OPTIONS:
            skip = OWN_OPTIONS[name] and "=" not in word
            continue
        kept.append(word)
    return kept


@dataclass
class Runner:
    """A model a command's stages run: lmms-eval backend and arguments, its label and identity."""

    backend: str
    model_args: str
    label: str
    identity: dict

    def command(self, tasks: list[str], output: Path, rest: list[str], cache: Path) -> list[str]:
        words = [sys.executable, "-m", "abductive_tasks.cli", "--model", self.backend]
        words += ["--model_args", self.model_args] if self.model_args else []
        words += ["--tasks", ",".join(tasks), "--output_path", str(output), "--log_samples", "--use_cache", str(cache)]
        return [*words, *rest]


@dataclass
class CommandChain:
    """``abductive-eval --model M --tasks T`` where some task of T reads another task's run: the upstream stages run
    first (a child ``abductive-eval`` per level, writing under ``<output_path>/stages/``; an upstream output of an
    earlier command with the same identity is reused unless T asks for that task itself), then T in this process with
    what they gave. ``--describer`` names the model whose descriptions NL-Eye's image-to-text reads (t.1)."""

    runner: Runner
    describer: Runner | None
    task_index: TaskIndex
    requested: list[str]
    levels: list[list[str]]  # the upstream tasks of the runner, by level
    described: list[str]  # the upstream tasks the describer runs
    limit: int | float | None
    rest: list[str]  # the command's other lmms-eval arguments (but --limit: ``limit``)
    stages_dir: Path
    environment: dict[str, str]
    given: dict[str, str] = field(default_factory=dict)  # upstream task -> the digest its readers read
    fresh: set[str] = field(default_factory=set)  # upstream tasks run by this command
    failed: dict[str, str] = field(default_factory=dict)  # upstream task not asked for -> its stage's failures, told

    cache: Path = Path()  # this command's response cache: the last run answers what the stages asked from it
    user_cache: Path | None = None  # the one --use_cache names instead, keyed by what a run reads (cache_of)
    to_make: set[str] = field(default_factory=set)  # upstream tasks whose output a shown, not started, stage makes
    secrets: tuple[str, ...] = ()  # of the whole command line (--describer_args too) and the environment

    @property
    def root(self) -> Path:
        return settings.cache_root(self.environment)

    @property
    def stage_args(self) -> list[str]:
        """The lmms-eval arguments of a stage run: the command's own, its ``--limit`` included."""
        return self.args_of([])

    def args_of(self, tasks: list[str]) -> list[str]:
        """The lmms-eval arguments of a stage run of ``tasks``: the command's own, with the ``--limit`` those tasks
        need to give what the command's readers read under its ``--limit`` (:func:`stage_limit`)."""
        limit = stage_limit(tasks[0], self.limit) if tasks else self.limit
        return [*self.rest, *(["--limit", str(limit)] if limit is not None else [])]

    @property
    def cache_id(self) -> str:
        return cache_key(self.runner.identity, self.runner.identity["tasks"])

    def cache_of(self, runner: Runner, tasks: list[str]) -> Path:
        """The response cache of a run of ``tasks`` by ``runner``: this command's own (the describer's beside it); with
        ``--use_cache DIR``, DIR keyed by what they read (:func:`keyed_cache`; :data:`NEW_CACHE` till it is made)."""
        if self.user_cache is None:
            return self.cache if runner is self.runner else self.cache.with_name(self.cache.name + "-describer")
        pending = any(up in self.to_make for task in tasks for up in self.reads_of(task))
        return keyed_cache(self.user_cache, runner.identity, tasks, pending)

    def finish(self, say: Callable[[str], None], compare: bool = True, final_dir: Path | None = None) -> None:
        """However the command ended: with ``compare`` (its last run ended, writing into ``final_dir``), say where a
        requested upstream task's replies differ from those its readers read (the backend answered again instead of
        from the response cache); remove this command's response cache. A task the describer ran for the readers
        (``--describer``) is not compared: the last run's replies are the model's own, by design another model's than
        those its readers read."""
        for task in sorted(self.fresh & (set(self.requested) - set(self.described))) if compare else ():
            read = (kind for reader in self.requested for up, kind in self.reads_of(reader).items() if up == task)
            kind, last = next(read, None), final_dir
            if kind is None:  # read only by a stage of the chain, not by a task asked for: nothing to compare
                continue
            samples = sorted(last.glob(samples_glob(task)), key=lambda path: path.name) if last else []
            if not samples:
                continue
            bound = binding(self.runner.label, self.runner.identity, self.limit, task)
            if derive(kind, task, samples[-1], bound, self.root, keep=False) != self.given.get(task):
                say(f"{task}: its replies in the last run differ from the {kind} its readers read (kept in "
                    f"{self.stages_dir}); the backend answered again rather than from the response cache")  # fmt: skip
        shutil.rmtree(self.cache, ignore_errors=True)
        shutil.rmtree(self.cache.with_name(self.cache.name + "-describer"), ignore_errors=True)
        with contextlib.suppress(OSError):  # nothing ran: no stages folder left behind
            self.stages_dir.rmdir()

    def reads_of(self, task: str) -> dict[str, str]:
        return self.task_index.facts(task).reads

    def kind_read(self, task: str) -> str | None:
        """What this command's readers read from upstream ``task`` (one kind: :func:`one_kind_each`)."""
        readers = self.requested + sum(self.levels, [])
        return next((kind for reader in readers for up, kind in self.reads_of(reader).items() if up == task), None)

    def _entry(self, runner: Runner, task: str) -> dict:
        sources = {"descriptions": self.describer.label} if self.describer else {}
        root = settings.cache_root(self.environment)
        entry = task_entry(
            self.task_index.facts(task), self.environment, root, lambda up, kind: self.given.get(up), sources
        )
        runner.identity["tasks"][task] = entry
        return entry

    def _reusable(self, runner: Runner, task: str, say: Callable[[str], None]) -> str | None:
        """The digest of an earlier output of ``task`` with this identity, complete and answering this limit; one
        stored but refused (edited, damaged) is told with ``say``, and the task runs again."""
        if task in self.requested:
            return None
        key = task_key(runner.identity, task)
        if key is None:
            return None
        for limit in dict.fromkeys([self.limit, None]):
            digest = latest(key, limit, self.root)
            try:
                output = load(digest, self.root) if digest else None
            except StageError as error:
                say(f"{task}: its earlier output is not reused: {error}; it runs again")
                output = None
            if output is not None and not output.failed and output.kind == self.kind_read(task):
                samples = noted_samples(key, limit, self.root)
                if digest and samples is not None and differs_from(output, samples):
                    say(
                        f"{task}: its samples {samples} no longer give the output its run gave (edited after it?): "
                        f"that output, stored when the run ended ({digest[:12]}), is read, not the file"
                    )
                return digest
        return None

    def walk(self, say: Callable[[str], None], start: bool = True) -> int:
        """The stages in order (the describer's first): each upstream task reused when an earlier output with its
        identity is complete, else run (``start``) or shown with its command line (not ``start``: an output still to
        be made is shown by what makes it). Then the requested tasks' identity entries; 0, or the failing status."""
        order = [(self.describer, self.described)] if self.describer and self.described else []
        order += [(self.runner, level) for level in self.levels]
        for number, (runner, level) in enumerate(order, 1):
            to_run = []
            for task in level:
                self._entry(runner, task)
                reused = self._reusable(runner, task, say)
                if reused:
                    self.given[task] = reused
                    say(
                        f"stage {number}: {task}: reusing its output of an earlier run ({reused[:12]}, in the stage "
                        f"store {store_root(self.root)}; ABDUCTIVE_CACHE names another)"
                    )
                else:
                    to_run.append(task)
            if not to_run:
                continue
            say(f"stage {number} ({runner.label}): {', '.join(to_run)}")
            for group in by_stage_limit(to_run, self.limit):  # one lmms-eval run per --limit its tasks need
                if start:
                    code = self.run_stage(runner, group, say)
                    if code:
                        return code
                else:
                    for task in group:
                        self._entry(runner, task)
                    say(f"  {self.shown(runner, group)}")
                    self.given |= {task: f"<output of {task} from stage {number}>" for task in group}
                    self.to_make |= set(group)
        for task in self.requested:
            if self.task_index.facts(task).reads:
                self._entry(self.runner, task)
        return 0

    def shown(self, runner: Runner, tasks: list[str], final: list[str] | None = None) -> str:
        """The command line of a stage run (or, with ``final``, of the last run: the user's own arguments), with the
        variables it gets."""
        variables = self.variables(runner, tasks)
        folder = self.stages_dir / "<time>-<id>"
        command = (
            final
            if final is not None
            else runner.command(tasks, folder, self.args_of(tasks), self.cache_of(runner, tasks))
        )
        assignments = [f"{name}={shlex.quote(value)}" for name, value in variables.items()]
        secrets = (*self.secrets, *collect_secrets(args=command, environment=self.environment))
        return redact_text(" ".join([*assignments, *map(shlex.quote, command)]), secrets)

    def run_stage(self, runner: Runner, tasks: list[str], say: Callable[[str], None]) -> int:
        """One stage run: the child ``abductive-eval``, then each task's output stored and noted, and its failed
        requests counted (:attr:`failed`: the child leaves them to this command); its exit status."""
        for task in tasks:
            self._entry(runner, task)
        output = self.stages_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.urandom(3).hex()}"
        env = {**self.environment, **self.variables(runner, tasks), "PYTHONSAFEPATH": "1",
               "LMMS_CACHE_RUN_ID": self.cache_id, settings.COUNTED_ABOVE: "1"}  # fmt: skip
        command = runner.command(tasks, output, self.args_of(tasks), self.cache_of(runner, tasks))
        code = run_stage_child(command, env)
        if code:
            return code
        for task in tasks:
            found = sorted(output.rglob(samples_glob(task)))
            kind = self.kind_read(task)
            if not found or kind is None:
                say(f"{task}: its run wrote no samples under {output}")
                return 1
            bound = binding(runner.label, runner.identity, self.limit, task)
            digest = derive(kind, task, found[-1], bound, self.root)
            if digest is None:
                return 1
            if task not in self.requested and (failed := failures_in(results_beside(found[-1]), task)):  # else the last
                self.failed[task] = failed  # run's results count them; its readers count those items as the paper does
            remember(bound["task_key"], self.limit, digest, self.root, samples=found[-1].absolute())
            self.given[task] = digest
            self.fresh.add(task)
        return 0

    def variables(self, runner: Runner, tasks: list[str]) -> dict[str, str]:
        """The stage variables of a run of ``tasks`` by ``runner`` (the last run: ``self.requested``)."""
        sources = {}
        if self.describer and runner is self.runner:
            described = run_descriptor(self.describer.label, self.describer.identity, self.limit)
            sources = {task: described for task in self.described}
        reads = {up for task in tasks for up in self.reads_of(task)}
        inputs = {up: digest for up, digest in self.given.items() if up in reads}
        return stage_env(run_descriptor(runner.label, runner.identity, self.limit, sources), inputs)


STAGE_GRACE_S = (2.0, 30.0)  # an interrupted stage run's time to end on the Ctrl-C it got, then on ours


def run_stage_child(command: list[str], env: Mapping[str, str]) -> int:
    """Run a stage's ``abductive-eval`` to its end; its exit status. It ends with this process (``child_setup``). On
    Ctrl-C it is waited for (at a terminal it got the same one), then interrupted, :data:`STAGE_GRACE_S`; then killed,
    at once on another Ctrl-C (``subprocess.run`` killed it after 0.25 s, whatever it was writing)."""
    process = None
    try:
        with interrupts_held():  # a Ctrl-C held while it starts is raised here, the child then stopped as below
            process = subprocess.Popen(command, env=env, preexec_fn=child_setup())
        return process.wait()
    except BaseException:
        if process is None:
            raise
        try:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=STAGE_GRACE_S[0])
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.send_signal(signal.SIGINT)  # when still running: not at a terminal, or its Ctrl-C was lost
                process.wait(timeout=STAGE_GRACE_S[1])
        finally:
            if process.returncode is None:
                process.kill()
                process.wait()
        raise


def command_chain(
    backend: str,
    model_args: str,
    argv: list[str],
    requested: list[str],
    task_index,
    output_path: str | None,
    describer: tuple[str, str] | None = None,
    use_cache: str | None = None,
) -> CommandChain | None:
    """The chain of ``abductive-eval --model backend --model_args model_args --tasks requested ...`` (``argv``: the
    whole command line; ``use_cache``: the response cache it names, keyed per run by :meth:`CommandChain.cache_of`);
    None when no requested task reads another task's run."""
    environment = dict(os.environ)
    reads_of = lambda task: task_index.facts(task).reads  # noqa: E731
    sources = {"descriptions": "describer"} if describer else {}
    closure = with_upstream(requested, reads_of, environment, sources)
    needed = feeds(closure, reads_of) | {up for task in closure for up in run_reads(reads_of(task), environment)}
    if not any(run_reads(reads_of(task), environment) for task in closure):
        return None
    described = [up for task in closure for up, kind in run_reads(reads_of(task), environment).items()
                 if kind == "descriptions" and describer]  # fmt: skip
    upstream = [task for task in closure if task in needed and task not in described]
    rest = other_args(argv)
    limit = _limit_of(argv)
    stages_dir = Path(output_path).expanduser() / "stages" if output_path else settings.cache_root() / "stages" / "runs"
    # every secret of the command (the describer's arguments too): hashed in the identities the stage outputs hold
    secrets = collect_secrets(model_args=describer[1] if describer else "", args=argv, environment=environment)

    def runner(name: str, args: str, tasks: list[str]) -> Runner:
        identity = command_identity(name, args, rest, [task_index.facts(task) for task in tasks], environment, secrets)
        return Runner(name, args, model_name(name, parse_model_args(args)), identity)

    main = runner(backend, model_args, [*upstream, *requested])
    other = runner(describer[0], describer[1], described) if describer and described else None
    cache = stages_dir / f"responses-{time.strftime('%Y%m%d-%H%M%S')}-{os.urandom(3).hex()}"
    return CommandChain(main, other, task_index, requested, levels(upstream, reads_of, environment, sources), described,
                        limit, rest, stages_dir, environment, cache=cache,
                        user_cache=Path(use_cache) if use_cache else None, secrets=secrets)  # fmt: skip


def command_identity(
    backend: str,
    model_args: str,
    rest: list[str],
    facts: Iterable[TaskFacts],
    environment: Mapping[str, str],
    secrets: tuple[str, ...],
) -> dict:
    """The identity of a command's run of the tasks ``facts`` describe (``rest``: its other lmms-eval arguments):
    model, settings, data by content, and per task its entry, what it reads by content (:func:`task_entry`)."""
    listed = list(facts)
    root = settings.cache_root(environment)
    choice = environment.get("ABDUCTIVE_DATA", "").strip()
    data = {bench: data_fingerprint(bench, choice) for bench in sorted({f.benchmark for f in listed if f.benchmark})}
    return build_identity(
        model={"route": "lmms", "backend": backend, "vllm": None}, model_args=model_args, eval_args=rest, env={},
        environment=environment, judge=None, data=data,
        tasks={fact.name: task_entry(fact, environment, root) for fact in listed}, secrets=secrets,
    )  # fmt: skip


def command_cache(
    backend: str, model_args: str, argv: list[str], requested: list[str], task_index: TaskIndex, folder: str
) -> Path:
    """The response cache of ``abductive-eval ... --use_cache folder`` none of whose tasks reads another task's run
    (``argv``: the whole command line): ``folder`` keyed by what its tasks read from what a variable names
    (:func:`keyed_cache`), ``folder`` itself when they read nothing."""
    environment = dict(os.environ)
    facts = [task_index.facts(task) for task in requested]
    secrets = collect_secrets(args=argv, environment=environment)
    identity = command_identity(backend, model_args, other_args(argv), facts, environment, secrets)
    return keyed_cache(Path(folder), identity, requested)


def command_run(backend: str, model_args: str, argv: list[str]) -> dict:
    """``ABDUCTIVE_RUN`` of a command none of whose tasks reads another's run (what it stores under a variable's name
    is bound to it)."""
    identity = build_identity(
        model={"route": "lmms", "backend": backend, "vllm": None}, model_args=model_args, eval_args=other_args(argv),
        env={}, environment=os.environ, judge=None, tasks={}, data={},
        secrets=collect_secrets(args=argv, environment=os.environ),
    )  # fmt: skip
    return run_descriptor(model_name(backend, parse_model_args(model_args)), identity, _limit_of(argv))


def _limit_of(argv: list[str]) -> int | float | None:
    """The command's ``--limit`` (the last one given); None for every document: none given, or -1 (lmms-eval's
    spelling of every document)."""
    value = None
    for index, word in enumerate(argv):
        if word == "--limit" and index + 1 < len(argv):
            value = argv[index + 1]
        elif word.startswith("--limit="):
            value = word.split("=", 1)[1]
    return None if value is None else limit_value(float(value))
