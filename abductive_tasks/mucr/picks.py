"""MuCR Exp on the model's own picks (Eq. 5): the effect and cue picks of the same model's C2E and Cue runs.

Eq. 5 conditions the explanation on {I_C, I_E^(i), T_P^(i)}, where I_E^(i) and T_P^(i) are "VLLMs' prediction
from potential effect images" and "... from potential cue phrases" (Eq. 1 and 3). lmms-eval builds every task's
requests before it runs any, so the picks come from an earlier run of the same model, a stage
(:mod:`abductive_tasks.inputs.stages`): every Exp task declares in its YAML the C2E and Cue tasks it reads
(``metadata.reads``: ``mucr_exp_split`` reads the ``_split`` ones, ``mucr_exp_cot`` the ``_cot`` ones;
:func:`pick_tasks`).
The picks are, in this order:

1. the stage outputs ``abductive-eval`` / the batch runner hand the run (they run C2E and Cue first, same model,
   same data, bound to that run);
2. ``ABDUCTIVE_MUCR_PICKS=<folder>``: the samples of an earlier run (``--log_samples``), ``*_samples_<task>.jsonl``
   below it, bound by the results file beside them (its ``config``: model, arguments, ``--limit``); without one that
   names a model, ``abductive-eval`` refuses them (their model cannot be established) and plain lmms-eval warns;
   picks that differ from what the results file records of them (``abductive-eval`` records it) are refused
   (:func:`samples_sealed`).

Each record names its item, the digest of the document it answered (:func:`hooks.choice_digest`: images by content,
options as shown) and the option picked (None when the request failed or the reply gave none); the Exp task checks
every item against the documents built from the data loaded now, and the binding against the running model.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path

from loguru import logger

from abductive_tasks import settings
from abductive_tasks.inputs.files import not_regular, read_regular
from abductive_tasks.inputs.loading import DataError, json_lines
from abductive_tasks.inputs.stages import (
    StageOutput,
    declared_reads,
    output_from_samples,
    records_digest,
    upstream_output,
)
from abductive_tasks.lmms_source import PROVENANCE_KEY, RECORDS_KEY, limit_value, results_beside, samples_glob

PICKS_VARIABLE = "ABDUCTIVE_MUCR_PICKS"


def samples_file(folder: Path, task: str) -> Path:
    """The newest ``*_samples_<task>.jsonl`` below ``folder``; an error when there is none, when they lie in
    several folders (e.g. several models' runs), or when it is no regular file (a FIFO is never opened)."""
    found = sorted(folder.rglob(samples_glob(task)))
    if not found:
        raise DataError(
            f"{PICKS_VARIABLE}={folder}: no samples of {task} ({samples_glob(task)}) below it; "
            f"run {task} with --log_samples (same model, same data) first"
        )
    folders = sorted({str(path.parent) for path in found})
    if len(folders) > 1:
        raise DataError(
            f"{PICKS_VARIABLE}={folder}: samples of {task} in {len(folders)} folders ({', '.join(folders[:3])}); "
            "name the folder of the one run whose picks are to be explained"
        )
    # lmms-eval's names start with the run's date and time in its --timezone (UTC+8 unless given; abductive-eval's
    # UTC): runs of different time zones in one folder do not sort by name, so the newest is the last written
    newest = max(found, key=lambda path: (path.lstat().st_mtime_ns, path.name))
    if len(found) > 1:
        logger.warning(
            f"{task} picks: {len(found)} samples files in {folders[0]}; reading the one written last, {newest.name} "
            "(name the folder of one run to choose another)"
        )
    if not newest.is_file():  # a FIFO or device (reading one would wait), a broken link or a loop of links
        reason = not_regular(newest) or "a broken link, not a regular file"
        raise DataError(f"{PICKS_VARIABLE}={folder}: {newest}: {reason}")
    return newest


def samples_run(samples: Path) -> tuple[dict[str, object], str, dict[str, object] | None]:
    """The run a samples file comes from, as the results file lmms-eval wrote beside it records it (model, arguments,
    ``--limit``) with '', or {} when that file is missing, unreadable, no regular file or names no model, and why: one
    clause naming the results file and what is missing (the picks' model cannot be established: ``abductive-eval``
    refuses them, :func:`~abductive_tasks.inputs.stages.checked`); and what the results file holds (None where it is
    no JSON object), which :func:`samples_sealed` checks the picks against: the file is read once."""
    path = results_beside(samples)
    try:
        results = json.loads(read_regular(path))
    except FileNotFoundError:
        return {}, f"no results file lies beside them ({path} is missing)", None
    except OSError as error:  # NotRegular is an OSError
        return {}, f"the results file beside them ({path}) is unreadable ({error.strerror or error})", None
    except ValueError:
        results = None
    if not isinstance(results, dict):
        return {}, f"the results file beside them ({path}) is not a JSON object lmms-eval wrote", None
    config = results.get("config")
    if not isinstance(config, dict) or not config.get("model"):
        return {}, f"the results file beside them ({path}) names no model (no config.model)", results
    model_args = config.get("model_args")
    if isinstance(model_args, dict):
        model_args = ",".join(f"{key}={value}" for key, value in model_args.items())
    binding = {
        "model": config.get("model"),
        "backend": config.get("model"),
        "model_args": model_args or "",
        "limit": limit_value(config.get("limit")),
    }
    return binding, "", results


_SAID_UNSEALED: set[Path] = set()  # samples files whose "recorded nothing" warning this process gave


def samples_sealed(
    samples: Path, task: str, results: dict[str, object] | None, lines: list[tuple[int, dict[str, object]]]
) -> None:
    """Refuse picks that are not what their run wrote: the results file beside them, written by ``abductive-eval``,
    records what its samples of ``task`` gave (``samples_records``), and these give otherwise (edited, or another
    run's samples put beside it). Where it records nothing (a plain lmms-eval run, or abductive-tasks before 0.1.28),
    one warning: an edit cannot be seen. ``results``: what the results file holds (None where it cannot be read: what
    is wrong with it :func:`samples_run` says); ``lines``: the samples file's numbered lines."""
    if results is None:
        return
    ours = results.get(PROVENANCE_KEY)
    ours = ours if isinstance(ours, dict) else {}
    records = ours.get(RECORDS_KEY)
    recorded = records.get(task) if isinstance(records, dict) else None
    if not isinstance(recorded, str) and _records_written_by(ours.get("versions")):
        raise DataError(
            f"{PICKS_VARIABLE}: {samples}: the results file beside it was written by abductive-tasks "
            f"{ours['versions']['abductive-tasks']}, which records what the samples of {task} give, and holds no "
            "such record (removed?); run it again"
        )
    if not isinstance(recorded, str):
        if samples not in _SAID_UNSEALED:  # once per file: the documents are built more than once
            _SAID_UNSEALED.add(samples)
            logger.warning(
                f"{task} picks in {samples}: their run recorded nothing of what they were (written by plain lmms-eval, "
                "or by abductive-tasks before 0.1.28), so an edit to them cannot be seen; abductive-eval records it"
            )
        return
    if records_digest(line for _, line in lines) != recorded:
        raise DataError(
            f"{PICKS_VARIABLE}: {samples} is not what its run wrote (the results file beside it records the picks "
            f"of {task} by content, and these differ: edited, or another run's samples); name the folder of the run "
            f"that wrote them, or run {task} again"
        )


def _records_written_by(versions: object) -> bool:
    """Whether ``versions`` (a results file's ``abductive_tasks.versions``) name an abductive-tasks that records what
    the samples give (0.1.28 on)."""
    written = versions.get("abductive-tasks") if isinstance(versions, dict) else None
    numbers = re.findall(r"\d+", written.split("+")[0]) if isinstance(written, str) else []
    return len(numbers) >= 3 and tuple(int(number) for number in numbers[:3]) >= (0, 1, 28)


def pick_tasks(asking: str) -> tuple[str, str]:
    """The C2E and Cue tasks whose picks the Exp task ``asking`` explains, as its YAML declares them (``reads``),
    e.g. ``mucr_exp_cot`` -> ``mucr_c2e_cot``, ``mucr_cue_cot``; CCoT's scene-graph stage ``mucr_exp_ccot_graph``
    asks the question its second stage asks, so it reads the second stage's picks (``_ccot``)."""
    picks = [task for task, kind in declared_reads(asking).items() if kind == "picks"]
    c2e = [task for task in picks if task.startswith("mucr_c2e")]
    cue = [task for task in picks if task.startswith("mucr_cue")]
    if len(c2e) != 1 or len(cue) != 1:
        raise ValueError(f"{asking} is not a MuCR Exp task reading one C2E and one Cue task's picks")
    return c2e[0], cue[0]


def _from_folder(task: str) -> StageOutput | None:
    folder = settings.mucr_picks()
    if not folder:
        return None
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise DataError(f"{PICKS_VARIABLE}={folder}: " + ("not a folder" if root.exists() else "no such folder"))
    path = samples_file(root, task)
    binding, unbound, results = samples_run(path)
    lines = list(json_lines(path))  # read once: checked against the results, then the stage output
    samples_sealed(path, task, results, lines)
    return dataclasses.replace(output_from_samples("picks", task, path, binding, lines), unbound=unbound)


def own_picks(asking: str) -> tuple[StageOutput, StageOutput] | None:
    """The effect and cue picks the Exp task ``asking`` explains (checked against this run's model and limit); None
    when none is given (plain lmms-eval without ``ABDUCTIVE_MUCR_PICKS``)."""
    found = [
        upstream_output(asking, task, "picks", functools.partial(_from_folder, task)) for task in pick_tasks(asking)
    ]
    if all(output is None for output in found):
        return None
    if any(output is None for output in found):
        missing = [task for task, output in zip(pick_tasks(asking), found, strict=True) if output is None]
        raise DataError(f"{asking}: no picks of {', '.join(missing)} given beside the others")
    return found[0], found[1]  # type: ignore[return-value]
