"""The leaderboard submission (``abductive-eval export-sherlock``) from logged samples."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from abductive_tasks.cli import main
from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError
from abductive_tasks.sherlock import data, hooks
from abductive_tasks.sherlock.embeddings import encode_embeddings
from abductive_tasks.sherlock.export import samples_files, write_submission

ROOT = SAMPLE_ROOT / "sherlock"


def _write_samples(run_dir: Path, task: str, process_results, docs, replies) -> None:
    """A samples file as lmms-eval writes it with --log_samples: process_results' values per document."""
    run_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"doc_id": number, "filtered_resps": reply, **process_results(doc, [reply])})
        for number, (doc, reply) in enumerate(zip(docs, replies, strict=True))
    ]
    (run_dir / f"20261122_samples_{task}.jsonl").write_text("\n".join(lines) + "\n")


def _comparison(split: str = "val"):
    return hooks.documents_from(data.load(ROOT, "comparison", split).items)


def test_export_writes_sorted_float32_scores_and_refuses_partial_runs(tmp_path):
    docs = _comparison()
    scores = {d["test_id"]: 0.5 + index for index, d in enumerate(docs)}
    replies = [str((-scores[d["test_id"]], False)) for d in docs]
    replies[3] = "(nan, False)"  # unreadable: below every other score
    _write_samples(tmp_path / "run", "sherlock_comparison", hooks.process_results_comparison, docs, replies)
    archive = write_submission(tmp_path / "run", tmp_path / "out", split="val")
    assert zipfile.ZipFile(archive).namelist() == ["validation_set_predictions/comparison.npy"]
    array = np.load(tmp_path / "out" / "validation_set_predictions" / "comparison.npy")
    expected = [scores[t] for t in sorted(scores)]
    expected[sorted(scores).index(docs[3]["test_id"])] = 0.5 - 1
    assert array.dtype == np.float32 and array.tolist() == expected
    with pytest.raises(DataError, match="no Sherlock test-split samples"):
        write_submission(tmp_path / "run", tmp_path / "out")
    _write_samples(
        tmp_path / "partial",
        "sherlock_comparison",
        hooks.process_results_comparison,
        docs.select(range(5)),
        replies[:5],
    )
    with pytest.raises(DataError, match="5 of the 12 instances of comparison were logged"):
        write_submission(tmp_path / "partial", tmp_path / "out", split="val")


def test_export_refuses_failed_requests(tmp_path):
    docs = _comparison("test")
    _write_samples(
        tmp_path / "run",
        "sherlock_comparison_rating_test",
        hooks.process_results_comparison_rating,
        docs,
        ["Score: 4", "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 500", "Score: 2"],
    )
    with pytest.raises(DataError, match="sherlock_comparison_rating_test: 1 of 3 requests failed .* rerun them"):
        write_submission(tmp_path / "run", tmp_path / "out")
    # --allow-failed: the failed request is written as the run's metrics score it, the file's lowest minus 1
    assert main(["export-sherlock", str(tmp_path / "run"), "--out", str(tmp_path / "out"), "--allow-failed"]) == 0
    array = np.load(tmp_path / "out" / "test_set_predictions" / "comparison.npy")
    by_id = dict(zip(sorted(docs["test_id"]), array.tolist(), strict=True))
    assert [by_id[test_id] for test_id in docs["test_id"]] == [4.0, 1.0, 2.0]


def test_export_of_the_factored_retrieval_indexes_each_chunk_by_its_instances(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    docs = hooks.documents_from(data.load(ROOT, "retrieval", "test", "factored").items, "embedding")
    rng = np.random.default_rng(0)
    image, text = rng.standard_normal((10, 4)), rng.standard_normal((10, 4))
    replies = [str((encode_embeddings(image[d["row"]], text[d["col"]]), False)) for d in docs]
    _write_samples(tmp_path / "run", "sherlock_retrieval_test", hooks.process_results_embedding, docs, replies)
    write_submission(tmp_path / "run", tmp_path / "out")
    chunks = data.factored_chunks(ROOT, "test")
    for chunk in chunks:
        instances = sorted(
            json.loads((ROOT / "test_retrieval_public" / f"test_retrieval_{chunk.chunk}_instances.json").read_text()),
            key=lambda i: i["test_id"],
        )
        rows = [
            chunk.rows.index((i["image"]["url"], tuple(tuple(box[f] for f in data.BOX_FIELDS) for box in i["region"])))
            for i in instances
        ]
        cols = [chunk.texts.index(i["inference"]) for i in instances]
        expected = (image[rows].astype(np.float32) * text[cols].astype(np.float32)).sum(axis=1)
        np.testing.assert_allclose(
            np.load(tmp_path / "out" / "test_set_predictions" / f"retrieval_{chunk.chunk}.npy"), expected, rtol=1e-5
        )
    _write_samples(
        tmp_path / "cut", "sherlock_retrieval_test", hooks.process_results_embedding, docs.select(range(4)), replies[:4]
    )
    with pytest.raises(DataError, match="retrieval chunk 1: 1 of 2 documents logged, 0 without embeddings"):
        write_submission(tmp_path / "cut", tmp_path / "out")


@pytest.mark.parametrize(
    ("field", "value"),
    [("sherlock_task", "../../planted/comparison"), ("sherlock_task", "/tmp/planted"), ("chunk", "0/../../../x")],
)
def test_a_record_naming_a_file_outside_the_submission_is_refused(tmp_path, capsys, field, value):
    """The .npy a record's score goes to is named after its ``sherlock_task`` (and ``chunk``): an edited samples file
    wrote it outside ``--out`` (``../``) and put a ``../`` entry in the zip (a zip slip for whoever unpacks it)."""
    docs = _comparison()
    _write_samples(
        tmp_path / "run",
        "sherlock_comparison",
        hooks.process_results_comparison,
        docs,
        [str((-float(i), False)) for i in range(len(docs))],
    )
    (path,) = (tmp_path / "run").glob("*.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        line["comparison_acc"][1].update({field: value} | ({"sherlock_task": "retrieval"} if field == "chunk" else {}))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["export-sherlock", str(tmp_path / "run"), "--out", str(tmp_path / "out"), "--split", "val"]) == 1
    assert "no file of the Sherlock leaderboard" in capsys.readouterr().err
    assert sorted(str(found.relative_to(tmp_path)) for found in tmp_path.rglob("*") if found.is_file()) == [
        str(path.relative_to(tmp_path))
    ]


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda record: record.pop("answer_status"), "KeyError: 'answer_status'"),
        (lambda record: record.update(plausibility="x"), "ValueError: could not convert string to float: 'x'"),
        (lambda record: record.update(test_id=[1]), "TypeError: unhashable type: 'list'"),
    ],
)
def test_a_record_of_another_shape_is_one_line_naming_its_task(tmp_path, capsys, edit, why):
    docs = _comparison()
    replies = [str((-float(i), False)) for i in range(len(docs))]
    _write_samples(tmp_path / "run", "sherlock_comparison", hooks.process_results_comparison, docs, replies)
    (path,) = (tmp_path / "run").glob("*.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    edit(lines[0]["comparison_acc"][1])
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["export-sherlock", str(tmp_path / "run"), "--out", str(tmp_path / "out"), "--split", "val"]) == 1
    assert capsys.readouterr().err == (
        f"abductive-eval export-sherlock: sherlock_comparison: its samples hold a record that is no Sherlock record "
        f"of this version ({why})\n"
    )


def test_export_is_an_abductive_eval_subcommand(tmp_path, capsys):
    docs = _comparison()
    _write_samples(
        tmp_path / "run",
        "sherlock_comparison",
        hooks.process_results_comparison,
        docs,
        [str((-float(i), False)) for i in range(len(docs))],
    )
    assert main(["export-sherlock", str(tmp_path / "run"), "--out", str(tmp_path / "out"), "--split", "val"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "out" / "validation_set_predictions.zip")
    assert main(["export-sherlock", str(tmp_path / "run"), "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err == (  # the run's val samples: the hint to rerun with --log_samples did not apply
        f"abductive-eval export-sherlock: {tmp_path / 'run'}: no Sherlock test-split samples "
        "(*_samples_sherlock_*.jsonl); it holds val-split samples: export them with --split val\n"
    )
    (tmp_path / "empty").mkdir()
    assert main(["export-sherlock", str(tmp_path / "empty"), "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err.endswith(
        "; run abductive-eval on the test-split tasks (e.g. --tasks sherlock_test) with --log_samples\n"
    )
    assert main(["export-sherlock", str(tmp_path / "nonexist"), "--out", str(tmp_path / "out")]) == 1
    assert (
        capsys.readouterr().err == f"abductive-eval export-sherlock: {tmp_path / 'nonexist'}: no such file or folder\n"
    )


def _two_models(run_dir: Path) -> None:
    """The README's demo layout: two models' runs under one --output_path (lmms-eval: one folder per model)."""
    docs = _comparison()
    for model, sign in (("model-a", 1.0), ("model-b", -1.0)):
        replies = [str((sign * float(i), False)) for i in range(len(docs))]
        _write_samples(run_dir / model, "sherlock_comparison", hooks.process_results_comparison, docs, replies)


def test_export_refuses_a_folder_of_several_models_unless_one_is_picked(tmp_path, capsys):
    _two_models(tmp_path / "runs")
    out = ["--out", str(tmp_path / "out"), "--split", "val"]
    assert main(["export-sherlock", str(tmp_path / "runs"), *out]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "several runs (model-a, model-b): pick one model with --model" in error
    assert not (tmp_path / "out").exists()
    assert main(["export-sherlock", str(tmp_path / "runs"), *out, "--model", "model-b"]) == 0
    array = np.load(tmp_path / "out" / "validation_set_predictions" / "comparison.npy")
    assert array.shape == (12,)  # one score per comparison instance, not 24


def test_an_export_cut_by_a_file_size_limit_leaves_the_previous_export_whole(tmp_path):
    """A file-size limit (or a full disk) while exporting: the previous .npy and zip stay as they were, and the
    error is one line."""
    docs = _comparison()
    replies = [str((-float(i), False)) for i in range(len(docs))]
    _write_samples(tmp_path / "run", "sherlock_comparison", hooks.process_results_comparison, docs, replies)
    out = tmp_path / "out"
    assert main(["export-sherlock", str(tmp_path / "run"), "--out", str(out), "--split", "val"]) == 0
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    _write_samples(tmp_path / "run", "sherlock_comparison", hooks.process_results_comparison, docs, replies[::-1])
    script = (
        "import resource, signal, sys; from abductive_tasks.cli import main; "
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100)); "
        f"sys.exit(main(['export-sherlock', {str(tmp_path / 'run')!r}, '--out', {str(out)!r}, '--split', 'val']))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before
    assert zipfile.ZipFile(out / "validation_set_predictions.zip").testzip() is None


def test_one_of_two_runs_in_one_model_folder_is_exported_by_its_results_file(tmp_path, capsys):
    """Two runs of one model configuration share its folder (lmms-eval names their files by date): the refusal names
    the way to pick one, its results file, and following it exports that run alone."""
    docs = _comparison()
    folder = tmp_path / "runs" / "model-a"
    for stamp, sign in (("20261122", 1.0), ("20261123", -1.0)):
        replies = [str((sign * float(i), False)) for i in range(len(docs))]
        _write_samples(folder, "sherlock_comparison", hooks.process_results_comparison, docs, replies)
        (folder / "20261122_samples_sherlock_comparison.jsonl").rename(
            folder / f"{stamp}T00-00-00_samples_sherlock_comparison.jsonl"
        )
        (folder / f"{stamp}T00-00-00_results.json").write_text("{}")
    out = ["--out", str(tmp_path / "out"), "--split", "val"]
    assert main(["export-sherlock", str(tmp_path / "runs"), *out]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and f"{folder / '20261123T00-00-00_results.json'}" in error
    assert main(["export-sherlock", str(folder / "20261123T00-00-00_results.json"), *out]) == 0
    scores = np.load(tmp_path / "out" / "validation_set_predictions" / "comparison.npy")
    assert scores.shape == (12,) and scores.min() >= 0  # the second run's scores alone (the first run's are <= 0)


@pytest.mark.parametrize("kind", ["a FIFO at the zip", "a link to a FIFO at an .npy"])
def test_the_export_never_replaces_what_is_not_a_regular_file(tmp_path, capsys, kind):
    import os

    docs = _comparison()
    replies = [str((-float(i), False)) for i in range(len(docs))]
    _write_samples(tmp_path / "run", "sherlock_comparison", hooks.process_results_comparison, docs, replies)
    out = tmp_path / "out"
    (out / "validation_set_predictions").mkdir(parents=True)
    if kind == "a FIFO at the zip":
        os.mkfifo(out / "validation_set_predictions.zip")
    else:
        os.mkfifo(tmp_path / "fifo")
        (out / "validation_set_predictions" / "comparison.npy").symlink_to(tmp_path / "fifo")
    before = {path: os.lstat(path).st_mode for path in tmp_path.rglob("*")}
    assert main(["export-sherlock", str(tmp_path / "run"), "--out", str(out), "--split", "val"]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert "cannot write" in line and "not a regular file" in line
    assert {path: os.lstat(path).st_mode for path in tmp_path.rglob("*")} == before


def _run_of(folder: Path, stamp: str, task: str, results: dict | None) -> None:
    """One run's files in a model folder: its samples file of ``task`` and its results file (``results``: its JSON;
    None: no results file)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stamp}_samples_{task}.jsonl").write_text("{}\n")
    if results is not None:
        (folder / f"{stamp}_results.json").write_text(json.dumps(results))


def _results(data_sha: str = "a" * 64, limit: int | None = None, model_args: str = "seed=1") -> dict:
    return {
        "config": {"model": "dumb_pixel", "model_args": model_args, "limit": limit},
        "abductive_tasks": {
            "versions": {"abductive-tasks": "0.1.8"},
            "weights": {},
            "data": {"sherlock": {"annotations_sha256": data_sha}, "nleye": {"annotations_sha256": "n" * 64}},
            "judge": None,
        },
    }


@pytest.mark.parametrize(
    ("second", "differing"),
    [
        (_results(data_sha="b" * 64), "data"),
        (_results(limit=3), "--limit"),
        (_results(model_args="seed=2"), "model arguments"),
        (None, "does not say what it ran"),
        ({"config": {"model": "dumb_pixel"}}, "does not say what it ran"),
    ],
)
def test_tasks_of_two_runs_are_one_submission_only_when_the_runs_ran_the_same(tmp_path, second, differing):
    """Two runs of one model into one folder (lmms-eval's <model> folder, files named by date): their tasks export
    together only when both record the same model, arguments, --limit, versions, weights and Sherlock data (review 1,
    F4: a comparison on the sample and a localization on other data were zipped as one submission)."""
    folder = tmp_path / "runs" / "dumb_pixel"
    _run_of(folder, "20261201_100000", "sherlock_comparison_test", _results())
    _run_of(folder, "20261201_110000", "sherlock_localization_test", second)
    with pytest.raises(DataError, match=re.escape(differing)) as refused:
        samples_files(folder)
    assert str(folder / "20261201_110000_results.json") in str(refused.value)  # the run that differs, named
    # the same runs, the second recording what the first did (another benchmark's data apart): one submission
    same = _results()
    same["abductive_tasks"]["data"]["nleye"] = {"annotations_sha256": "m" * 64}
    _run_of(folder, "20261201_110000", "sherlock_localization_test", same)
    assert set(samples_files(folder)) == {"sherlock_comparison_test", "sherlock_localization_test"}


def test_a_partial_export_leaves_no_earlier_file_beside_it_and_says_it_is_partial(tmp_path, capsys):
    """A walkthrough exported all three, then comparison alone into the same folder: the zip held comparison only
    and the folder still held the earlier localization and retrieval files, with no word that it was partial."""
    from abductive_tasks.sherlock.export import main as export_main

    docs = _comparison()
    replies = [str((float(index), False)) for index, _ in enumerate(docs)]
    _write_samples(tmp_path / "run", "sherlock_comparison", hooks.process_results_comparison, docs, replies)
    folder = tmp_path / "out" / "validation_set_predictions"
    folder.mkdir(parents=True)
    for name in ("localization.npy", "retrieval_0.npy", "notes.npy"):  # an earlier export's; a file of the user's
        np.save(folder / name, np.zeros(2, dtype=np.float32))
    assert export_main([str(tmp_path / "run"), "--out", str(tmp_path / "out"), "--split", "val"]) == 0
    assert sorted(path.name for path in folder.iterdir()) == ["comparison.npy", "notes.npy"]
    assert capsys.readouterr().err == (
        "abductive-eval export-sherlock: a partial submission: no localization, retrieval scores (the leaderboard "
        "scores comparison, localization and retrieval; export a run of all three for a full one)\n"
    )
