"""What a single ``abductive-eval`` run is a run of, beyond its model: what its chained tasks read from other runs, by
content (the results JSON records it, ``abductive_tasks.inputs``, which ``abductive-eval show`` prints, and the run's
folder name hashes it, :func:`run_folder`, so a run on another run's picks or another describer's descriptions is told
apart from this one; a batch's run record holds the same in its identity, ``tasks.<task>.inputs``), and whether its
scores are clean (:func:`unclean_tasks`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.compat import parse_model_args
from abductive_tasks.inputs.stages import StageError, given_inputs, load, this_run
from abductive_tasks.runs.chain import task_inputs
from abductive_tasks.runs.history import failures_text
from abductive_tasks.runs.layout import model_folder
from abductive_tasks.runs.task_index import TaskIndex


def reading_inputs(tasks: Iterable[str], task_index: TaskIndex) -> dict[str, dict]:
    """Per task of ``tasks`` that reads another task's run, what it reads now (:func:`~abductive_tasks.runs.chain.
    task_inputs`): the stage output the chain handed it (``ABDUCTIVE_STAGE_INPUTS``, its digest; the model named on
    purpose in ``ABDUCTIVE_RUN``, say the describer), or what a variable names, by content; {} when none reads."""
    given, named = given_inputs(), this_run().get("sources") or {}
    root = settings.cache_root()
    found = {}
    for task in tasks:
        reads = task_index.facts(task).reads
        if reads:
            sources = {kind: str(named[up].get("model", "")) for up, kind in reads.items() if up in named}
            found[task] = task_inputs(reads, os.environ, root, lambda upstream, _kind: given.get(upstream), sources)
    return found


def run_folder(output_path: str | None, backend: str, model_args: str, reads: Mapping[str, dict]) -> Path | None:
    """The folder under ``output_path`` a run of ``backend`` with ``model_args`` writes into (None without one): its
    model's configuration and what its tasks read (:func:`folder_name`)."""
    if not output_path:
        return None
    return Path(output_path).expanduser() / folder_name(backend, parse_model_args(model_args), reads)


def folder_name(backend: str, model_args: Mapping[str, object], reads: Mapping[str, dict]) -> str:
    """The name of the folder of a run of ``backend`` with ``model_args`` whose tasks read ``reads``
    (:func:`reading_inputs`): :func:`~abductive_tasks.runs.layout.model_folder`, a stage output hashed by what it
    holds (:attr:`~abductive_tasks.inputs.stages.StageOutput.read_digest`), as no secret may enter a folder name, not
    even hashed, and its digest hashes the model's key."""
    root = settings.cache_root()

    def by_content(read: dict) -> dict:
        if read.get("from") != "run":
            return read
        try:
            return read | {"digest": load(str(read.get("digest")), root).read_digest}
        except StageError:  # none stored (pending): its digest names nothing secret
            return read

    held = {task: {up: by_content(read) for up, read in entry.items()} for task, entry in reads.items()}
    return model_folder(backend, model_args, held)


def unclean_tasks(finished: Iterable[Mapping]) -> list[str]:
    """The tasks of ``finished`` runs' results with failed requests, the model's or the judge's, as a batch counts
    them (:func:`~abductive_tasks.runs.history.failed_requests`), each as ``task (2 failed requests)``, the judge's
    told apart (:func:`~abductive_tasks.runs.history.failures_text`)."""
    counts = [
        (task, failures_text(results))
        for run in finished
        for task, results in (run.get("results") or {}).items()
        if isinstance(results, Mapping)
    ]
    return [f"{task} ({failures})" for task, failures in counts if failures]
