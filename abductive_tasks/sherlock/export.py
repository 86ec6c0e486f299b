"""Leaderboard submission from a run's logged scores (``--log_samples``): ``abductive-eval export-sherlock``.

The Sherlock leaderboard (allenai/sherlock ``leaderboard_eval``) takes one float32 ``.npy`` per
task file, scores in sorted ``test_id`` order: ``comparison.npy``, ``localization.npy`` and
``retrieval_<i>.npy`` for the 23 chunks, zipped as ``test_set_predictions.zip`` holding the folder
``test_set_predictions/`` (the names its ``validate_submission.py`` checks; its README also says
``test_set_submission``, which the validator rejects). Val runs export the same files under
``validation_set_predictions/``, which the official scorers read with the val ``*_instance_ids.json``.

A missing score (unparsable, or a failed request) is written as ``metrics.missing_score`` of its file,
strictly below every real score (the validator rejects NaN): the values are ``metrics.submitted_scores``,
the ones the run's metrics read, so the official scorers on the export give what the run printed. A
failed request is no answer of the model: a run with failed requests is refused (rerun them) unless
``--allow-failed`` is given.
"""

from __future__ import annotations

import argparse
import glob
import io
import operator
import re
import sys
import zipfile
from pathlib import Path

import numpy as np

from abductive_tasks.inputs.files import open_regular, write_outputs
from abductive_tasks.inputs.loading import DataError, data_content, json_value, reading
from abductive_tasks.lmms_source import RESULTS_SUFFIX, SAMPLES_MARK, results_beside, samples_glob
from abductive_tasks.scoring.taskspec import REQUEST_FAILED
from abductive_tasks.sherlock import data, factored_retrieval, localization, metrics

FOLDERS = {"test": "test_set_predictions", "val": "validation_set_predictions"}
FILE_NAMES = re.compile(r"comparison|localization|retrieval_\d+")  # the leaderboard's files (without .npy)
_SAMPLES = re.compile(rf".*{SAMPLES_MARK}(sherlock_[a-z0-9_]+)\.jsonl")


def _record(sample: dict) -> dict | None:
    """The process_results record of a logged sample: the ``[metric, record]`` value holding it (a Sherlock family
    logs it under one metric; the others name that metric)."""
    for value in sample.values():
        if (
            isinstance(value, list)
            and len(value) == 2
            and isinstance(value[1], dict)
            and ("test_id" in value[1] or "payload" in value[1])
        ):
            return value[1]
    return None


# What the export reads of a factored localization record (the answer fields only serve the metrics).
_MATRIX_FIELDS = ("sherlock_task", "split", "chunk", "file_size", "has_key", "answer_status", "shape", "payload")


def _kept(record: dict) -> dict:
    """What the export keeps of a record while it streams the file: a factored localization record without its
    answer fields, its matrix cells as int32 arrays (a full-size file holds 2.4M instances)."""
    if "test_ids" not in record:
        return record
    kept = {name: record[name] for name in _MATRIX_FIELDS}
    kept["test_ids"] = record["test_ids"]
    kept["rows"] = np.array(record["rows"], dtype=np.int32)
    kept["cols"] = np.array(record["cols"], dtype=np.int32)
    return kept


def _run_label(run_dir: Path, path: Path) -> str:
    """Whose run a samples file is: its folder under ``run_dir`` (lmms-eval writes one folder per model)."""
    return path.parent.relative_to(run_dir).as_posix()


def _run_files(run_dir: Path) -> list[Path]:
    """The Sherlock samples files ``run_dir`` names: those under a folder, or those of one run named by its results
    file (``<date>_results.json``: the samples files of that date beside it)."""
    if run_dir.is_file() and run_dir.name.endswith(RESULTS_SUFFIX):
        stamp = run_dir.name.removesuffix(RESULTS_SUFFIX)
        return sorted(run_dir.parent.glob(f"{glob.escape(stamp)}{SAMPLES_MARK}sherlock_*.jsonl"))
    return sorted(run_dir.rglob(samples_glob("sherlock_*")))


def samples_files(run_dir: Path, tasks: set[str] | None = None, model: str | None = None) -> dict[str, Path]:
    """Each Sherlock task's samples file under ``run_dir``: one run of one model, or a DataError naming the runs.

    ``run_dir`` is a folder, or one run's results file. ``model`` picks the runs whose folder (below ``run_dir``)
    has a part of that name (a model's folder of a batch or of ``--output_path``); without it a folder holding
    several models' runs is refused, and so is a task logged by two runs (their scores would be mixed: the message
    names their results files, each of which exports its run alone)."""
    found: dict[str, list[Path]] = {}
    if run_dir.is_file():
        run_dir, files = run_dir.parent, _run_files(run_dir)
    else:
        files = _run_files(run_dir)
    for path in files:
        match = _SAMPLES.fullmatch(path.name)
        if not match or (tasks and match.group(1) not in tasks):
            continue
        if model is not None and model not in path.parent.relative_to(run_dir).parts:
            continue
        found.setdefault(match.group(1), []).append(path)
    labels = sorted({_run_label(run_dir, path) for paths in found.values() for path in paths})
    if len(labels) > 1:
        raise DataError(
            f"{run_dir} holds several runs ({', '.join(labels)}): pick one model with --model NAME "
            "(a folder name) or export one run's folder"
        )
    for task, paths in found.items():
        if len(paths) > 1:
            named = ", ".join(str(results_beside(path)) for path in paths)
            raise DataError(
                f"{run_dir}: {task} was logged by {len(paths)} runs; export one of them by its results file: {named}"
            )
    _require_one_configuration(run_dir, sorted({results_beside(paths[0]) for paths in found.values()}))
    return {task: paths[0] for task, paths in found.items()}


def _configuration(results: Path) -> dict | None:
    """What decides a Sherlock score in the run of ``results`` (its ``<date>_results.json``): the model and its
    arguments, the --limit, the package versions, the weights and the Sherlock data by content, as lmms-eval and
    ``abductive-eval`` record them; None where the file does not say it (plain lmms-eval, or no such file)."""
    try:
        with reading(results), open_regular(results) as opened:
            run = json_value(opened.read())
    except (DataError, OSError):
        return None
    ours, config = (run.get("abductive_tasks"), run.get("config")) if isinstance(run, dict) else (None, None)
    if not isinstance(ours, dict) or not isinstance(config, dict):
        return None
    return {
        "model": config.get("model"),
        "model arguments": config.get("model_args"),
        "--limit": config.get("limit"),
        "versions": ours.get("versions"),
        "weights": ours.get("weights"),
        "data": data_content((ours.get("data") or {}).get("sherlock")),  # where the data lives apart
    }


def _require_one_configuration(run_dir: Path, results: list[Path]) -> None:
    """Tasks of several runs (``results``: their results files) are one submission only when each run records what
    it ran and all ran the same (:func:`_configuration`): else a DataError naming the runs that differ."""
    if len(results) < 2:
        return
    configurations = [_configuration(path) for path in results]
    first = configurations[0]
    for path, configuration in zip(results, configurations, strict=True):
        if configuration is None or first is None:
            unknown = path if configuration is None else results[0]
            raise DataError(
                f"{run_dir}: its Sherlock tasks come from {len(results)} runs and {unknown} does not say what it ran "
                "(abductive-eval records it): run the tasks in one command, or export one run by its results file"
            )
        if configuration != first:
            differing = next(name for name in first if first[name] != configuration[name])
            raise DataError(
                f"{run_dir}: its Sherlock tasks come from runs of another {differing} ({results[0]}, {path}): one "
                "submission is one model's run; run the tasks in one command, or export one run by its results file"
            )


def logged_records(
    run_dir: Path, split: str = "test", tasks: set[str] | None = None, model: str | None = None
) -> dict[str, list[dict]]:
    """Each Sherlock task's ``process_results`` records on ``split``, read from the samples files of one run under
    ``run_dir`` (:func:`samples_files`)."""
    if not run_dir.exists():
        raise DataError(f"{run_dir}: no such file or folder")
    by_task: dict[str, list[dict]] = {}
    other_splits: set[str] = set()
    for task, path in samples_files(run_dir, tasks, model).items():
        with reading(path), open_regular(path) as lines:  # one line at a time: a localization file is ~300 MB
            for number, line in enumerate(lines, start=1):
                record = _record(json_value(line))
                if record is None:
                    raise DataError(
                        f"{path}, line {number}: no Sherlock record (was the run made with this version of the "
                        "Sherlock tasks?)"
                    )
                if record["split"] == split:
                    by_task.setdefault(task, []).append(_kept(record))
                else:
                    other_splits.add(str(record["split"]))
    if not by_task:
        raise DataError(
            f"{run_dir}: no Sherlock {split}-split samples ({samples_glob('sherlock_*')})"
            + (f" of a model named {model}" if model else "")
            + _how_to_get(split, other_splits)
        )
    return by_task


def _how_to_get(split: str, logged: set[str]) -> str:
    """What to do when a run logged no ``split`` samples: export the split it logged, or run that split's tasks."""
    if logged:
        other = sorted(logged)[0]
        return f"; it holds {other}-split samples: export them with --split {other}"
    tasks = "the test-split tasks (e.g. --tasks sherlock_test)" if split == "test" else "the Sherlock tasks"
    return f"; run abductive-eval on {tasks} with --log_samples"


def _refuse_failed_requests(task: str, records: list[dict]) -> None:
    """A DataError when a request of ``task`` failed (the export's default)."""
    failed = [record for record in records if record["answer_status"] == REQUEST_FAILED]
    if failed:
        example = failed[0].get("test_id") or (failed[0].get("test_ids") or [f"chunk {failed[0]['chunk']}"])[0]
        raise DataError(
            f"{task}: {len(failed)} of {len(records)} requests failed (e.g. {example}); a failed request is not "
            "a score: rerun them before exporting (or export them as missing scores with --allow-failed)"
        )


def _embedding_arrays(records: list[dict], root: Path | None) -> dict[str, np.ndarray]:
    """``retrieval_<i>`` scores of the factored route: each chunk's matrix product indexed by its instances."""
    root = root or data.sherlock_root()
    chunks = {chunk.chunk: chunk for chunk in data.factored_chunks(root, records[0]["split"])}
    arrays = {}
    for scored in factored_retrieval.chunk_scores(records):
        chunk = chunks.get(scored.chunk)
        if chunk is None:
            raise DataError(
                f"retrieval chunk {scored.chunk} is not in the data under {root}: export with the ABDUCTIVE_DATA "
                "of the run"
            )
        if scored.scores is None:
            logged = chunk.documents - scored.missing
            raise DataError(
                f"retrieval chunk {scored.chunk}: {logged} of {chunk.documents} documents logged, "
                f"{scored.unreadable} without embeddings"
            )
        arrays[f"retrieval_{scored.chunk}"] = factored_retrieval.submission_scores(chunk, scored.scores)
    return arrays


def _matrix_arrays(task: str, records: list[dict]) -> dict[str, np.ndarray]:
    """``localization`` scores of the factored route: each instance's cell of its image's score matrix."""
    scores, logged = localization.submission(records)
    if logged != records[0]["file_size"]:
        raise DataError(
            f"{task}: {logged} of the {records[0]['file_size']} instances of localization were logged (a --limit "
            "run cannot be submitted)"
        )
    return {"localization": scores}


def _per_pair_arrays(task: str, records: list[dict]) -> dict[str, np.ndarray]:
    files: dict[str, list[dict]] = {}
    for record in records:
        files.setdefault(metrics.submission_file(record), []).append(record)
    arrays = {}
    for name, group in files.items():
        if len({r["test_id"] for r in group}) != group[0]["file_size"]:
            raise DataError(
                f"{task}: {len(group)} of the {group[0]['file_size']} instances of {name} were logged (a --limit "
                "run cannot be submitted)"
            )
        ordered = sorted(group, key=operator.itemgetter("test_id"))
        arrays[name] = metrics.submitted_scores(ordered)  # the values the run's metrics read
    return arrays


def _task_arrays(task: str, records: list[dict], root: Path | None, allow_failed: bool) -> dict[str, np.ndarray]:
    """One task's files (:func:`submission_arrays`)."""
    if not allow_failed:
        _refuse_failed_requests(task, records)
    if "test_ids" in records[0]:
        return _matrix_arrays(task, records)
    if "payload" in records[0]:
        return _embedding_arrays(records, root)
    return _per_pair_arrays(task, records)


def submission_arrays(
    by_task: dict[str, list[dict]], root: Path | None = None, allow_failed: bool = False
) -> dict[str, np.ndarray]:
    """``{file name: float32 scores in sorted test_id order}``; every task file must be complete.
    ``root``: the Sherlock data folder the factored route reads its chunks from (default: ``ABDUCTIVE_DATA``'s);
    ``allow_failed``: write failed requests as missing scores instead of refusing the run."""
    arrays: dict[str, np.ndarray] = {}
    origin: dict[str, str] = {}
    for task, records in sorted(by_task.items()):
        try:
            files = _task_arrays(task, records, root, allow_failed)
        except DataError:
            raise
        except (KeyError, TypeError, ValueError) as error:  # a field missing, or of another type: an edited file
            raise DataError(
                f"{task}: its samples hold a record that is no Sherlock record of this version "
                f"({type(error).__name__}: {error})"
            ) from None
        for name, array in files.items():
            if not FILE_NAMES.fullmatch(name):  # named by the records: an edited samples file names any path
                raise DataError(f"{task}: its records score a file {name!r}, no file of the Sherlock leaderboard")
            if name in arrays:
                raise DataError(f"both {origin[name]} and {task} score {name}: export one of them (--tasks)")
            arrays[name], origin[name] = array, task
    return arrays


def write_submission(
    run_dir: Path,
    out_dir: Path,
    split: str = "test",
    tasks: set[str] | None = None,
    root: Path | None = None,
    allow_failed: bool = False,
    model: str | None = None,
) -> Path:
    """Write ``<folder>/<file>.npy`` and ``<folder>.zip`` under ``out_dir`` from ``split``'s scores in the run under
    ``run_dir`` (of ``model``, when it holds several); return the zip. The files are written as one set: an
    interruption leaves the previous export whole; a leaderboard file of an earlier export this one lacks is removed
    from the folder, so the folder holds what the zip holds."""
    arrays = submission_arrays(logged_records(run_dir, split, tasks, model), root, allow_failed)
    folder = out_dir / FOLDERS[split]
    files: dict[Path, bytes] = {}
    archive_bytes = io.BytesIO()
    with zipfile.ZipFile(archive_bytes, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, array in sorted(arrays.items()):
            buffer = io.BytesIO()
            np.save(buffer, array)
            files[folder / f"{name}.npy"] = buffer.getvalue()
            bundle.writestr(f"{FOLDERS[split]}/{name}.npy", buffer.getvalue())
    archive = out_dir / f"{FOLDERS[split]}.zip"
    try:
        write_outputs(
            {**files, archive: archive_bytes.getvalue()},
            within=out_dir,
            inputs=samples_files(run_dir, tasks, model).values(),
        )
    except OSError as error:
        raise DataError(f"{out_dir}: cannot write the submission ({error.strerror or error})") from None
    for stale in sorted(folder.glob("*.npy")):  # an earlier export's file this one lacks: never left beside it
        if FILE_NAMES.fullmatch(stale.stem) and stale not in files:
            stale.unlink()
    return archive


def missing_kinds(archive: Path) -> list[str]:
    """The leaderboard's task files (comparison, localization, retrieval) a submission zip lacks: the leaderboard
    scores all three, so a zip without one is a partial submission."""
    with zipfile.ZipFile(archive) as bundle:
        kinds = {Path(name).stem.partition("_")[0] for name in bundle.namelist()}
    return [kind for kind in ("comparison", "localization", "retrieval") if kind not in kinds]


USAGE = """Write the Sherlock leaderboard submission from a run's logged scores.

    abductive-eval --model clip_scorer --model_args pretrained=... --tasks sherlock_test --log_samples \
--output_path runs/test
    abductive-eval export-sherlock runs/test --out submission/
    # -> submission/test_set_predictions.zip (test_set_predictions/{comparison,localization,retrieval_<i>}.npy)

Run one route per task file (e.g. not sherlock_comparison_test and sherlock_comparison_rating_test in
the same run), or pick tasks with --tasks. --split val writes validation_set_predictions.zip, the
files the official scorers read with the val *_instance_ids.json. The factored sherlock_retrieval
route reads the factored chunks the evaluation cached (ABDUCTIVE_CACHE), or else its chunk files
again: run with the same ABDUCTIVE_DATA as the evaluation.
"""


def main(argv: list[str] | None = None) -> int:
    """``abductive-eval export-sherlock RUN_DIR [--out DIR] [--split test|val] [--tasks a,b] [--allow-failed]``;
    0 on success, 1 on a data error."""
    parser = argparse.ArgumentParser(
        prog="abductive-eval export-sherlock", description=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "run_dir",
        type=Path,
        help="an abductive-eval --output_path run with --log_samples, or one run's <date>_results.json",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("."), help="folder for the .npy files and the zip (default: .)"
    )
    parser.add_argument(
        "--split", choices=("test", "val"), default="test", help="which split's scores to export (default: test)"
    )
    parser.add_argument(
        "--tasks", default="", help="comma-separated Sherlock task names to export (default: all logged)"
    )
    parser.add_argument(
        "--model", help="the model whose run to export, when RUN_DIR holds several (a folder name below RUN_DIR)"
    )
    parser.add_argument(
        "--allow-failed",
        action="store_true",
        help="export failed requests as missing scores (lowest of the file - 1, as the run's metrics score "
        "them) instead of refusing the run",
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        archive = write_submission(
            args.run_dir,
            args.out,
            args.split,
            {t for t in args.tasks.split(",") if t} or None,
            allow_failed=args.allow_failed,
            model=args.model,
        )
    except DataError as error:
        print(f"abductive-eval export-sherlock: {error}", file=sys.stderr)
        return 1
    print(archive)
    if missing := missing_kinds(archive):
        print(
            f"abductive-eval export-sherlock: a partial submission: no {', '.join(missing)} scores (the leaderboard "
            "scores comparison, localization and retrieval; export a run of all three for a full one)",
            file=sys.stderr,
        )
    return 0
