"""The batch runner end to end: dummy, a baseline, the tiny LLaVA and a broken model on the `abductive` group;
interrupted with Ctrl-C, resumed, rerun with nothing left to compute; then the leaderboard of those results.
Then the integrity cases (what is not a score): changed data, a changed data source, a `limit` smoke run, a secret in
`model_args`, damaged results and a damaged response cache, each ending with the clean run's leaderboard."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from abductive_tasks.inputs import files
from abductive_tasks.reports.browse import show_main
from abductive_tasks.reports.leaderboard import main as leaderboard_main
from abductive_tasks.reports.leaderboard import write_report
from abductive_tasks.runs import run
from abductive_tasks.runs.batch import main, run_interruptible
from abductive_tasks.runs.history import scan_runs
from abductive_tasks.runs.identity import content_digest
from abductive_tasks.runs.identity_record import IdentityRecord
from abductive_tasks.runs.plan import plan
from abductive_tasks.runs.spec import load_spec
from abductive_tasks.runs.task_index import TaskIndex

from helpers.runs import OFFLINE
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).parents[2]


def write_spec(tmp_path: Path) -> Path:
    llava = build_tiny_llava(tmp_path / "tiny-llava")
    spec = {
        "output_dir": "results",
        "tasks": ["abductive"],
        "limit": 4,
        "env": {"ABDUCTIVE_DATA": "sample"},
        "vllm_executable": f"{sys.executable} {Path(__file__).parents[1] / 'helpers' / 'fake_vllm.py'}",
        "models": [
            {"name": "dummy", "backend": "dummy", "model_args": {"response": "1"}},
            {"name": "dumb_pixel", "backend": "dumb_pixel"},
            # vLLM that dies while loading (the fake `vllm serve` exits with status 3).
            {
                "name": "broken",
                "route": "served",
                "model": "org/broken",
                "env": {"FAKE_VLLM_FAIL": "1", "FAKE_VLLM_RECORD": str(tmp_path / "record")},
            },
            {
                "name": "tiny-llava",
                "backend": "llava_hf",
                "model_args": {"pretrained": str(llava), "device_map": "cpu", "device": "cpu"},
                "eval_args": ["--gen_kwargs", "max_new_tokens=4"],
            },
        ],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec))  # JSON is YAML
    return path


def running_with(text: str) -> list[int]:
    """Processes whose command line mentions ``text``."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text in cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                pids.append(int(cmdline.parent.name))
        except OSError:
            continue
    return pids


def results_files(results: Path) -> set[Path]:
    return set(results.rglob("*_results.json"))


def test_batch_interrupt_resume_failure_and_leaderboard(tmp_path, capsys):
    spec_path = write_spec(tmp_path)
    results = tmp_path / "results"
    tasks = TaskIndex().expand(["abductive"])
    env = {**os.environ, **OFFLINE}

    # 1. Ctrl-C while the second model runs: the first model's results stay, the runner exits 130.
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("abductive-eval")), "batch", str(spec_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not (results / "dumb_pixel" / "eval.log").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.stdout.read()
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 130, output
    assert "[1/4] dummy: done" in output and "interrupted" in output
    assert not list((results / "dumb_pixel").rglob("*_results.json"))
    assert not running_with(str(results / "dumb_pixel"))  # the interrupted evaluation did not outlive the runner
    first = results_files(results)
    assert len(first) == 2  # dummy's two levels: the suite, then mucr_exp on its picks
    interrupted = json.loads((results / "batch_status.json").read_text())  # the stopped model has its entry
    assert interrupted["dummy"] == {"state": "done", "tasks": dict.fromkeys(tasks, "done")}
    assert interrupted["dumb_pixel"] == {"state": "interrupted", "tasks": dict.fromkeys(tasks, "interrupted")}

    # 2. Resume: dummy is skipped, the broken model is reported and the batch goes on to the tiny LLaVA.
    assert main([str(spec_path)]) == 1
    output = capsys.readouterr().out
    assert f"[1/4] dummy: all {len(tasks)} tasks done earlier; skipped" in output
    assert "[3/4] broken: FAILED" in output and "server exited with status 3 before becoming healthy" in output
    # the server log's tail under the failure line, then the next model: no empty evaluation log in between
    failure = output.split("[3/4] broken: FAILED", 1)[1].split("\n[batch] ", 1)[0]
    assert "server.log:\n$ " in failure and "\n\n" not in failure
    assert failure.endswith("\nfake vllm: failing at startup")
    assert "[4/4] tiny-llava: done" in output
    # Progress off a terminal: plain quarter lines read from the evaluation's own output, each level of the chain
    # (the Exp tasks read the picks) counted on its own up to its 100%, then one line per task.
    full = r"^\[batch\] tiny-llava, level (\d) of 2: (\d+)/(\d+) documents \(100%\), [\d.]+ docs/s, ETA 0:00$"
    levels = re.findall(full, output, re.M)
    assert [level for level, _done, _total in levels] == ["1", "2"]
    assert all(int(done) == int(total) > 0 for _level, done, total in levels)
    assert re.search(r"^    nleye_triplet: consistency_acc [\d.]+ \[[\d.]+, [\d.]+\]$", output, re.M)
    assert "\x1b[" not in output
    assert "3 of 4 models complete; failed: broken" in output
    status = json.loads((results / "batch_status.json").read_text())
    assert status["broken"]["state"] == "failed" and set(status["broken"]["tasks"].values()) == {"failed"}
    assert status["tiny-llava"]["tasks"] == dict.fromkeys(tasks, "done")
    second = results_files(results)
    assert first < second and len(second) == 6  # two levels for each of the three good models
    llava = Path(load_spec(spec_path).models[3].model_args.split("pretrained=")[1].split(",")[0])
    assert IdentityRecord.read(results / "tiny-llava" / "spec_identity.json").weights == {
        "name": llava.name,
        "sha256": content_digest(llava),
    }  # the weights it ran, for the leaderboard's footnote
    assert IdentityRecord.read(results / "dummy" / "spec_identity.json").weights == {}
    for record in (results / "tiny-llava" / "runs").glob("*/run_identity.json"):  # each ended run: its own weights
        ended = IdentityRecord.read(record)
        ran = {"name": llava.name, "sha256": content_digest(llava)}
        assert ended.weights == ended.identity["model"]["weights"] == ran

    # 3. Rerun of the good models: nothing is recomputed.
    spec = load_spec(spec_path)
    rerun = plan(spec, TaskIndex(), ["dummy", "dumb_pixel", "tiny-llava"])
    assert all(not model_plan.pending for model_plan in rerun.models)
    assert main([str(spec_path), "--model", "dummy", "--model", "dumb_pixel", "--model", "tiny-llava"]) == 0
    assert "3 of 3 models complete" in capsys.readouterr().out
    assert results_files(results) == second
    (spec_plan,) = plan(spec, TaskIndex(), ["tiny-llava"]).models
    caches = {spec_plan.cache(level) for level in spec_plan.levels}  # lmms-eval's, per model, identity and inputs
    assert len(caches) == 2 and all((cache / "cache.db").exists() for cache in caches)
    assert {cache.parent for cache in caches} == {results / "tiny-llava" / "cache"}

    # 4. The leaderboard of these results: every cell comes from a `limit: 4` run (or a failed one), so none is a score.
    written = write_report(results)
    assert next(csv.reader(written["csv"].open()))[:5] == [
        "model",
        "rank",
        "average_percent",
        "average_tasks",
        "nleye_triplet__consistency_acc",
    ]
    rows = leaderboard_rows(results)
    assert list(rows) == ["broken", "dumb_pixel", "dummy", "tiny-llava"]
    assert {cell for model, cells in rows.items() if model != "broken" for cell in cells} == {"limited (limit=4)"}
    assert set(rows["broken"]) == {"run failed"}
    # The numbers behind the marks: dummy always answers "1", never consistent across both orders,
    # never ranking the gold higher.
    dummy = scan_runs(results / "dummy", IdentityRecord.read(results / "dummy" / "spec_identity.json").identity)
    assert [
        dummy.best(task).results[f"{metric},none"]
        for task, metric in [("nleye_triplet", "consistency_acc"), ("nleye_pairs", "order_faithful_acc")]
    ] == [0.0, 0.0]
    page = written["html"].read_text()
    assert re.search(
        r'data-sort="tiny-llava">tiny-llava</td><td class="mark"\s+data-sort="">limited \(limit=4\)<', page
    )
    assert re.search(r'data-sort="broken">broken</td><td class="mark"\s+data-sort="">run failed<', page)


def test_print_commands_one_per_model(tmp_path, capsys):
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(
        "tasks: [abductive]\nmodels:\n  - {name: a, backend: dummy}\n  - {name: b, route: served, model: org/m, "
        "tensor_parallel_size: 4}\n"
    )
    assert main([str(spec_path), "--print-commands"]) == 0
    jobs = [
        line for line in capsys.readouterr().out.splitlines() if not line.startswith("#")
    ]  # the rest: what each job runs
    assert jobs == [
        f"abductive-eval batch {spec_path} --model a",
        f"abductive-eval batch {spec_path} --model b",
    ]
    assert not (tmp_path / "results").exists()  # nothing ran


def test_print_commands_says_a_bad_model_entry_where_a_filter_of_the_comments_does_not_hide_it(tmp_path, capsys):
    """A bad entry was only a ``#`` line and the status was 0: the documented Slurm recipe (``grep -v '^#'``)
    dropped that model without a word."""
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(
        "tasks: [abductive]\nmodels:\n  - {name: a, backend: dummy}\n  - {name: b, backend: dummy, "
        "modle_args: {seed: 0}}\n  - {name: c, backend: dummy, port: soon, env: [A]}\n"
    )
    assert main([str(spec_path), "--print-commands"]) == 1
    printed = capsys.readouterr()
    assert [line for line in printed.out.splitlines() if not line.startswith("#")] == [
        f"abductive-eval batch {spec_path} --model a"
    ]
    assert printed.err.splitlines() == [
        "abductive-eval batch: b: not run: models[1].modle_args: unknown key; did you mean `model_args`?",
        "abductive-eval batch: c: not run: models[2].port: input should be a valid integer, unable to parse string "
        "as an integer; models[2].env: input should be a valid dictionary",
    ]
    assert main([str(spec_path), "--print-commands", "--model", "a"]) == 0  # the bad ones not asked for


def test_spec_errors_name_the_field(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("tasks: [abductive]\nmodels: []\n")
    with pytest.raises(ValueError, match="lists no model"):
        load_spec(path)
    path.write_text("tasks: [abductive]\nmodel: []\n")
    with pytest.raises(ValueError, match=r"model: unknown key; did you mean `models`\?"):
        load_spec(path)
    path.write_text("tasks: [no_such_task]\nmodels: [{name: a, backend: dummy}]\n")
    with pytest.raises(ValueError, match="unknown task or group 'no_such_task'"):
        plan(load_spec(path), TaskIndex())
    path.write_text("tasks: [nleye_triplet]\nmodels: [{name: dumb_pixel, backend: dumb_pixel}, {name: b, backend: x}]")
    with pytest.raises(ValueError) as raised:  # `batch --model dumb_pixl`: the spec's names, not a bare list
        plan(load_spec(path), TaskIndex(), only=["dumb_pixl"])
    assert str(raised.value) == "--model: no model of the spec is named dumb_pixl; its models: b, dumb_pixel"


# ---------------------------------------------------------------- integrity: a leaderboard cell is the spec's or marked
# One cheap task (nleye_triplet: 24 documents) and cheap models (dumb_pixel, dummy).

SECRET = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"


def integrity_spec(
    path: Path, models: list[dict], output_dir: str = "results", limit: int | None = None, data: str = "sample"
) -> Path:
    spec = {
        "output_dir": output_dir,
        "tasks": ["nleye_triplet"],
        "limit": limit,
        "env": {"ABDUCTIVE_DATA": data},
        "models": models,
    }
    path.write_text(json.dumps(spec))
    return path


DUMB_PIXEL = [{"name": "dumb_pixel", "backend": "dumb_pixel"}]


def leaderboard_rows(results: Path) -> dict[str, list[str]]:
    """``leaderboard.csv`` as {model: per task its headline value (4 decimals), or the status standing in its place}."""
    with write_report(results)["csv"].open() as handle:
        header, *rows = csv.reader(handle)
    # per task: `<task>__<headline>` first, then its interval, scale, flags and `<task>__status`
    statuses = [index for index, name in enumerate(header) if name.endswith("__status")]
    headlines = {
        index: next(column for column, name in enumerate(header) if name.startswith(header[index][: -len("status")]))
        for index in statuses
    }
    return {row[0]: [row[index] or f"{float(row[headlines[index]]):.4f}" for index in statuses] for row in rows}


def last_run_log(output: Path) -> str:
    """The part of ``eval.log`` written by the latest child run."""
    return (output / "eval.log").read_text().rsplit("\n$ ", 1)[-1]


def swap_hypothesis_images(root: Path, items: list[str]) -> None:
    """New images behind the same document index: hypothesis1.png and hypothesis2.png change places."""
    for item in items:
        folder = root / "nleye" / "images" / item
        first, second = (folder / "hypothesis1.png").read_bytes(), (folder / "hypothesis2.png").read_bytes()
        (folder / "hypothesis1.png").write_bytes(second)
        (folder / "hypothesis2.png").write_bytes(first)


def test_changed_data_is_recomputed_never_served_from_the_cache(tmp_path, data_copy, capsys):
    spec = integrity_spec(tmp_path / "spec.yaml", DUMB_PIXEL)
    results = tmp_path / "results"
    assert main([str(spec)]) == 0
    on_sample = leaderboard_rows(results)["dumb_pixel"]

    # The same data elsewhere (a copy of the installed sample, then moved to another folder, as a reinstall in
    # another mode moves the embedded sample): identity is content, so nothing re-runs.
    for move in (False, True):
        if move:
            data_copy = data_copy.rename(tmp_path / "moved")
        integrity_spec(spec, DUMB_PIXEL, data=str(data_copy))
        capsys.readouterr()
        assert main([str(spec)]) == 0
        assert "dumb_pixel: its task done earlier; skipped" in capsys.readouterr().out
        assert leaderboard_rows(results)["dumb_pixel"] == on_sample

    # New images behind the same document index: NL-Eye's prompt text is the same for every item,
    # so only the data fingerprint tells these documents from the old ones.
    swap_hypothesis_images(data_copy, ["8", "9", "10"])
    assert main([str(spec)]) == 0
    assert "dumb_pixel: running nleye_triplet" in capsys.readouterr().out
    assert "ResponseCache stats: 0 hits" in last_run_log(results / "dumb_pixel")
    assert (
        main([str(integrity_spec(tmp_path / "fresh.yaml", DUMB_PIXEL, output_dir="fresh", data=str(data_copy)))]) == 0
    )
    fresh = leaderboard_rows(tmp_path / "fresh")["dumb_pixel"]
    assert leaderboard_rows(results)["dumb_pixel"] == fresh == ["0.8333"] != on_sample == ["0.5833"]


def test_limit_smoke_run_never_replaces_the_full_run(tmp_path):
    results = tmp_path / "results"
    assert main([str(integrity_spec(tmp_path / "spec.yaml", DUMB_PIXEL))]) == 0
    full = leaderboard_rows(results)
    assert full == {"dumb_pixel": ["0.5833"]}
    assert main([str(integrity_spec(tmp_path / "smoke.yaml", DUMB_PIXEL, limit=2))]) == 0
    assert leaderboard_rows(results) == full


def test_api_key_in_model_args_no_rerun_and_never_in_clear(tmp_path, capsys):
    models = [
        {"name": "dummy", "backend": "dummy", "model_args": {"response": "1"}},
        {"name": "dummy-key", "backend": "dummy", "model_args": {"response": "1", "api_key": SECRET}},
    ]
    spec = integrity_spec(tmp_path / "spec.yaml", models)
    results = tmp_path / "results"
    assert main([str(spec), "--print-commands"]) == 0
    printed = capsys.readouterr()
    printed = printed.out + printed.err
    assert "api_key=[REDACTED]" in printed and SECRET not in printed
    assert main([str(spec)]) == 0
    assert main([str(spec)]) == 0
    output = capsys.readouterr().out
    assert "[2/2] dummy-key: its task done earlier; skipped" in output
    rows = leaderboard_rows(results)
    assert rows["dummy-key"] == rows["dummy"] == ["0.0000"]
    assert SECRET not in output
    assert [path for path in results.rglob("*") if path.is_file() and SECRET.encode() in path.read_bytes()] == []


def test_damaged_results_are_reported_and_recomputed(tmp_path, capsys):
    spec = integrity_spec(tmp_path / "spec.yaml", DUMB_PIXEL)
    results = tmp_path / "results"
    assert main([str(spec)]) == 0
    clean = leaderboard_rows(results)
    (damaged,) = results.rglob("*_results.json")
    damaged.write_text("[1, 2]")  # valid JSON, not a results object
    capsys.readouterr()
    assert main([str(spec)]) == 0
    output = capsys.readouterr().out
    assert str(damaged) in output and "dumb_pixel: running nleye_triplet" in output
    assert leaderboard_rows(results) == clean

    (recomputed,) = results.rglob("*_results.json")
    recomputed.write_text(recomputed.read_text()[:200])  # truncated
    capsys.readouterr()
    assert leaderboard_main([str(results)]) == 0
    output = capsys.readouterr().out
    assert str(recomputed) in output and f"abductive-eval batch {spec}" in output
    assert main([str(spec)]) == 0
    assert leaderboard_rows(results) == clean


def sealed_run(results: Path) -> tuple[Path, Path, Path]:
    """The only run folder under ``results``, its results file and its nleye_triplet samples file."""
    (results_file,) = results.rglob("*_results.json")
    samples = results_file.with_name(results_file.name.replace("_results.json", "_samples_nleye_triplet.jsonl"))
    return results_file.parents[1], results_file, samples


def test_a_run_edited_since_it_ended_is_run_again(tmp_path, capsys):
    """A run's record seals the results and samples files it left when it ended. A headline typed over (the samples
    left as they were), a samples file deleted or edited, a results file added or deleted: the cell is `changed since
    its run`, with the command that reruns it, and the next batch runs the task again (it trusted the results' counts
    and left the cell `unverified` until 2026-12-01; a deleted results file was `run failed`)."""
    spec = integrity_spec(tmp_path / "spec.yaml", DUMB_PIXEL)
    results = tmp_path / "results"
    assert main([str(spec)]) == 0
    clean = leaderboard_rows(results)
    run_folder, results_file, samples = sealed_run(results)
    assert IdentityRecord.read(run_folder / "run_identity.json").outputs == {
        path.relative_to(run_folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in (results_file, samples)
    }

    def added(results_file: Path, samples: Path) -> None:  # the run's own files again, under a later stamp
        for path in (results_file, samples):
            path.with_name(path.name.replace(path.name[:15], "20990101_000000")).write_bytes(path.read_bytes())

    edits = {
        "its results file was edited": lambda results_file, samples: results_file.write_text(
            results_file.read_text().replace('"consistency_acc,none": 0.58', '"consistency_acc,none": 0.98', 1)
        ),
        "its samples file was deleted": lambda results_file, samples: samples.unlink(),
        "its samples file was edited": lambda results_file, samples: samples.write_text(
            samples.read_text().replace('"filtered_resps": "1.', '"filtered_resps": "2.', 1)
        ),
        "its results file was added, its samples file was added": added,
        "its results file was deleted": lambda results_file, samples: results_file.unlink(),
    }
    pristine = tmp_path / "pristine"
    shutil.copytree(run_folder, pristine)
    rerun = {"its results file was edited", "its results file was deleted"}  # one batch run each way; the unit
    # table (test_identity.py) holds every edit against the seal the batch's done-check reads
    for why, edit in edits.items():
        shutil.rmtree(run_folder)
        shutil.copytree(pristine, run_folder)
        edit(results_file, samples)
        assert leaderboard_rows(results)["dumb_pixel"] == ["changed since its run"], why
        capsys.readouterr()
        assert leaderboard_main([str(results)]) == 0
        assert f"nleye_triplet changed since its run ended: {why}; fix: abductive-eval batch {spec}" in (
            capsys.readouterr().out
        )
        if why in rerun:
            assert main([str(spec), "--print-commands"]) == 0
            note = f"nleye_triplet runs again: changed since its run ended: {why} (run {run_folder})"
            assert f"#   {note}" in capsys.readouterr().out
            assert main([str(spec)]) == 0
            out = capsys.readouterr().out
            assert "dumb_pixel: running nleye_triplet (0 of 1 done earlier)" in out, why
            assert f"dumb_pixel: {note}" in out
            assert leaderboard_rows(results) == clean
            assert leaderboard_main([str(results)]) == 0  # the rerun shown: the edited run's fix is to move it aside
            assert (
                f"{run_folder}: nleye_triplet changed since its run ended: {why}; fix: move {run_folder} aside "
                "(a later run is shown)"
            ) in capsys.readouterr().out
            for path in list(results.rglob("*_results.json")):  # the rerun's folder gone: the next edit is the run's
                if path.parents[1] != run_folder:
                    shutil.rmtree(path.parents[1])


def test_a_run_recorded_without_a_seal_is_checked_as_before(tmp_path, capsys):
    """A run that ended before runs sealed their outputs (its record has no ``outputs``) is trusted on its counts; its
    cell, recomputed from its samples, is ``unverified`` when they are gone, and the note says how to rerun it."""
    spec = integrity_spec(tmp_path / "spec.yaml", DUMB_PIXEL)
    results = tmp_path / "results"
    assert main([str(spec)]) == 0
    clean = leaderboard_rows(results)
    run_folder, results_file, samples = sealed_run(results)
    record = json.loads((run_folder / "run_identity.json").read_text())
    del record["outputs"]
    (run_folder / "run_identity.json").write_text(json.dumps(record))
    samples.unlink()
    assert leaderboard_rows(results)["dumb_pixel"] == ["unverified (no samples file)"]
    capsys.readouterr()
    assert leaderboard_main([str(results)]) == 0
    assert f"the cell is not shown; fix: move {run_folder} aside, then abductive-eval batch {spec}" in (
        capsys.readouterr().out
    )
    assert main([str(spec)]) == 0
    assert "dumb_pixel: its task done earlier; skipped" in capsys.readouterr().out
    run_folder.rename(tmp_path / "aside")
    assert main([str(spec)]) == 0
    assert "dumb_pixel: running nleye_triplet (0 of 1 done earlier)" in capsys.readouterr().out
    assert leaderboard_rows(results) == clean


# two models whose results differ on the sample (a copy of one's into the other's folder is told by its config)
TWO_MODELS = [
    {"name": "dp", "backend": "dumb_pixel", "model_args": {"seed": "1"}},
    {"name": "rb", "backend": "random_baseline", "model_args": {"seed": "0"}},
]


def test_results_of_another_model_in_a_run_folder_never_count(tmp_path, capsys):
    """Another model's results copied into a model's run folder (its run record left as it was) name that model in
    their own ``config``: set aside as the damaged are, never a cell, never a done task; the batch runs it again."""
    spec = integrity_spec(tmp_path / "spec.yaml", TWO_MODELS)
    results = tmp_path / "results"
    assert main([str(spec)]) == 0
    clean = leaderboard_rows(results)
    assert clean["dp"] != clean["rb"]
    (own,) = (results / "dp").rglob("*_results.json")
    (theirs,) = (results / "rb").rglob("*_results.json")
    for path in own.parent.iterdir():  # dp's results and samples gone, rb's in their place, a newer stamp
        path.unlink()
    stamp = theirs.name.removesuffix("_results.json")
    for path in theirs.parent.iterdir():
        (own.parent / path.name.replace(stamp, "29990101_000000")).write_bytes(path.read_bytes())
    swapped = own.parent / "29990101_000000_results.json"
    identity = IdentityRecord.read(results / "dp" / "spec_identity.json").identity
    scan = scan_runs(results / "dp", identity)
    assert scan.best("nleye_triplet") is None and not scan.done("nleye_triplet", None)  # a run without results
    assert [str(error) for error in scan.damaged] == [
        f"{swapped}: results of another model than its run_identity.json records (model differs, model_args differ)"
    ]
    assert leaderboard_rows(results)["dp"] != clean["rb"]
    capsys.readouterr()
    assert leaderboard_main([str(results)]) == 0
    assert f"{swapped}: results of another model" in capsys.readouterr().out
    assert main([str(spec), "--print-commands"]) == 0
    assert "# dp (route lmms): runs nleye_triplet (0 of 1 done earlier)" in capsys.readouterr().out
    assert main([str(spec)]) == 0
    output = capsys.readouterr().out
    assert f"{swapped}: results of another model" in output and "dp: running nleye_triplet" in output
    assert not swapped.exists() and leaderboard_rows(results) == clean
    assert leaderboard_main([str(results)]) == 0  # the run it replaced: its own results deleted, a later run shown
    assert (
        f"{own.parents[1]}: nleye_triplet changed since its run ended: its results file was deleted; fix: move "
        f"{own.parents[1]} aside (a later run is shown)"
    ) in capsys.readouterr().out


def test_results_of_another_model_written_over_a_runs_own_are_said_to_be_set_aside(tmp_path, capsys):
    """Another model's results written over a run's own (same name): the batch sets them aside as damaged and runs
    the task again; the leaderboard said the run's results file was deleted, and to run the batch (which it had)."""
    spec = integrity_spec(tmp_path / "spec.yaml", TWO_MODELS)
    results = tmp_path / "results"
    assert main([str(spec)]) == 0
    (own,) = (results / "dp").rglob("*_results.json")
    (theirs,) = (results / "rb").rglob("*_results.json")
    own.write_bytes(theirs.read_bytes())
    assert main([str(spec)]) == 0
    assert own.with_name(own.name + ".damaged").is_file() and not own.exists()
    capsys.readouterr()
    assert leaderboard_main([str(results)]) == 0
    assert (
        f"{own.parents[1]}: nleye_triplet changed since its run ended: its results file was set aside as damaged; "
        f"fix: move {own.parents[1]} aside (a later run is shown)"
    ) in capsys.readouterr().out


def test_corrupt_response_cache_is_reported_and_recomputed(tmp_path, capsys):
    spec = integrity_spec(tmp_path / "spec.yaml", DUMB_PIXEL)
    results = tmp_path / "results"
    assert main([str(spec)]) == 0
    clean = leaderboard_rows(results)
    for path in results.rglob("*_results.json"):  # as an interrupted run leaves it: a cache, no results
        path.unlink()
    databases = sorted((results / "dumb_pixel").rglob("*.db"))
    assert databases
    for database in databases:
        database.write_bytes(b"this is not an SQLite database\n" * 64)
    capsys.readouterr()
    assert main([str(spec)]) == 0
    output = capsys.readouterr().out
    assert all(str(database) in output for database in databases)
    assert leaderboard_rows(results) == clean


def test_a_link_planted_as_the_response_cache_is_moved_aside_and_its_target_left_alone(tmp_path, capsys):
    """A link planted where a model's response cache goes (another user can write the output folder): the level moves
    it aside, never entering it (its make_safe renamed, purged and scrubbed in the target; lmms-eval then wrote the
    run's cache there), and runs with a cache of its own."""
    spec = integrity_spec(tmp_path / "spec.yaml", DUMB_PIXEL)
    results = tmp_path / "results"
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "notes.db").write_bytes(b"the user's own file, not a database")
    (results / "dumb_pixel").mkdir(parents=True)
    (results / "dumb_pixel" / "cache").symlink_to(victim, target_is_directory=True)
    assert main([str(spec)]) == 0
    output = capsys.readouterr().out
    assert f"{results / 'dumb_pixel' / 'cache'} was a link to {victim} where the response cache goes" in output
    assert [path.name for path in victim.iterdir()] == ["notes.db"]
    assert (victim / "notes.db").read_bytes() == b"the user's own file, not a database"
    assert (results / "dumb_pixel" / "cache.set-aside").is_symlink()
    assert list((results / "dumb_pixel" / "cache").rglob("cache.db"))  # the run's own cache


def test_failed_requests_leave_a_task_not_done_and_are_asked_again(tmp_path, capsys):
    failing = [
        {
            "name": "rate-limited",
            "backend": "dummy",
            "model_args": {"response": "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"},
        }
    ]
    spec = integrity_spec(tmp_path / "spec.yaml", failing)
    results = tmp_path / "results"
    assert main([str(spec)]) == 1
    output = capsys.readouterr().out
    assert "rate-limited: FAILED" in output and "not done: nleye_triplet (24 failed requests)" in output
    assert json.loads((results / "batch_status.json").read_text())["rate-limited"]["tasks"] == {
        "nleye_triplet": "24 failed requests"
    }
    assert leaderboard_rows(results) == {"rate-limited": ["24 failed requests"]}

    assert main([str(spec)]) == 1  # not done: run again, the failures asked again rather than served from the cache
    output = capsys.readouterr().out
    assert "nleye_triplet had 24 failed requests in" in output and "rate-limited: running nleye_triplet" in output
    assert "24 failed requests removed from the response cache" in output
    assert "ResponseCache stats: 0 hits" in last_run_log(results / "rate-limited")


def test_a_limit_in_eval_args_is_a_smoke_run_never_a_score(tmp_path, capsys):
    """`--limit` in the spec's or a model's eval_args (not the spec's `limit:`): what lmms-eval ran decides,
    not what the spec says."""
    models = [
        {"name": "spec-limit", "backend": "dumb_pixel"},
        {"name": "model-limit", "backend": "dumb_pixel", "eval_args": ["--limit", "3"]},
    ]
    path = integrity_spec(tmp_path / "spec.yaml", models)
    spec = json.loads(path.read_text())
    path.write_text(json.dumps({**spec, "eval_args": ["--limit", "2"]}))
    assert main([str(path)]) == 0
    assert "2 of 2 models complete" in capsys.readouterr().out
    results = tmp_path / "results"
    assert leaderboard_rows(results) == {"spec-limit": ["limited (limit=2)"], "model-limit": ["limited (limit=3)"]}
    assert main([str(path)]) == 0  # the smoke runs answer the smoke spec: nothing reruns
    assert "its task done earlier; skipped" in capsys.readouterr().out
    # the limit erased from a run's record by hand is not believed: the results say what ran
    (record,) = (results / "spec-limit" / "runs").glob("*/run_identity.json")
    record.write_text(json.dumps({**json.loads(record.read_text()), "limit": None}))
    assert leaderboard_rows(results)["spec-limit"] == ["limited (limit=2); counts disagree"]


def test_secrets_from_every_place_a_spec_holds_them_never_reach_a_file_or_the_console(tmp_path, capsys):
    """model_args, eval_args (`--model_args=...api_key=...`, refused: eval_args may not override a model's
    model_args; the refusal never echoes its value), env and vllm_args."""
    secrets = {place: f"sk-{place}-9f8e7d6c5b4a3928" for place in ("args", "evalargs", "env", "vllm")}
    models = [
        {"name": "in-model-args", "backend": "dummy", "model_args": {"response": "1", "api_key": secrets["args"]}},
        {
            "name": "in-eval-args",
            "backend": "dummy",
            "eval_args": [f"--model_args=response=1,api_key={secrets['evalargs']}"],
        },
        {
            "name": "served",
            "route": "served",
            "model": "org/m",
            "vllm_args": {"api_key": secrets["vllm"]},
            "env": {"FAKE_VLLM_RECORD": str(tmp_path / "record")},
        },
    ]
    path = integrity_spec(tmp_path / "spec.yaml", models)
    spec = json.loads(path.read_text())
    spec["env"] |= {"MY_SERVICE_TOKEN": secrets["env"]}
    spec["vllm_executable"] = f"{sys.executable} {Path(__file__).parents[1] / 'helpers' / 'fake_vllm.py'}"
    path.write_text(json.dumps(spec))
    assert main([str(path), "--print-commands"]) == 1  # its bad entry, said on stderr too
    assert main([str(path)]) == 1
    printed = capsys.readouterr().out
    assert "2 of 3 models complete; failed: in-eval-args" in printed
    assert "in-eval-args: not run: models[1].eval_args: --model_args would override what the batch sets" in printed
    assert "--api-key" not in (tmp_path / "results" / "served" / "server.log").read_text()  # vLLM prints its argv
    assert json.loads((tmp_path / "record" / "argv.json").read_text())["key_required"]  # through VLLM_API_KEY
    assert (tmp_path / "record" / "unauthorized").read_text() == "0"  # and every request sent it
    written = [path for path in (tmp_path / "results").rglob("*") if path.is_file()]
    assert len(written) > 20
    leaks = {
        (place, str(path.relative_to(tmp_path)))
        for path in written
        for place, secret in secrets.items()
        if secret.encode() in path.read_bytes()
    }
    assert leaks == set()
    assert [place for place, secret in secrets.items() if secret in printed] == []


def test_an_evaluations_command_line_holds_no_secret_and_the_evaluation_still_gets_each(tmp_path, monkeypatch, capsys):
    """Every user of the machine reads a process's command line (`ps`, /proc/PID/cmdline): an evaluation is started
    with a placeholder for each secret of its model_args (a key, a URL's credentials) and eval_args, and its CLI reveals
    them from the secrets handed over a pipe. The served model's own key (its model_args) is the one its server
    requires: no request refused says the evaluation sent the key itself, not its placeholder."""
    from abductive_tasks.runs.model_plan import EVAL_PROGRAM

    key, password, generation = "sk-own-key-1c2d3e4f5a6b7c8d", "pw-in-url-9a8b7c6d", "tok-gen-kwargs-4e5f6a7b"
    models = [
        {
            "name": "served",
            "route": "served",
            "model": "org/m",
            "vllm_args": {"api_key": key},
            "model_args": {"api_key": key},
            "env": {"FAKE_VLLM_RECORD": str(tmp_path / "record")},
        },
        {
            "name": "dummy-key",
            "backend": "dummy",
            "model_args": {"response": "1", "api_key": SECRET, "base_url": f"https://user:{password}@h.invalid/v1"},
            "eval_args": ["--gen_kwargs", f"temperature=0,hf_token={generation}"],
        },
    ]
    path = integrity_spec(tmp_path / "spec.yaml", models, limit=2)
    spec = json.loads(path.read_text())
    spec["vllm_executable"] = f"{sys.executable} {Path(__file__).parents[1] / 'helpers' / 'fake_vllm.py'}"
    path.write_text(json.dumps(spec))
    started, popen = [], subprocess.Popen

    def recorded(command, *arguments, **options):
        if tuple(command[: len(EVAL_PROGRAM)]) == EVAL_PROGRAM:
            started.append(list(command))
        return popen(command, *arguments, **options)

    monkeypatch.setattr(subprocess, "Popen", recorded)
    assert main([str(path)]) == 0
    assert "2 of 2 models complete" in capsys.readouterr().out
    assert (tmp_path / "record" / "unauthorized").read_text() == "0"  # the served model's key reached its server
    assert len(started) == 2 and all(re.search(r"api_key=<secret:\d+>", " ".join(words)) for words in started)
    assert re.search(r"https://<secret:\d+>@h\.invalid", " ".join(started[1]))
    assert [secret for secret in (key, SECRET, password, generation) if secret in repr(started)] == []
    # lmms-eval was given each value itself (redacted as a secret where it prints it), never a placeholder
    log = (tmp_path / "results" / "dummy-key" / "eval.log").read_text()
    given = "dummy (response=1,api_key=[REDACTED],base_url=https://[REDACTED]@h.invalid/v1), gen_kwargs: "
    assert f"{given}(temperature=0,hf_token=[REDACTED])" in log and "<secret:" not in log


def test_a_bad_model_entry_fails_alone_and_the_batch_goes_on(tmp_path, capsys):
    """A NUL byte in one model's model_args used to abort the whole batch with a traceback: now it fails alone."""
    models = [{"name": "nul", "backend": "dummy", "model_args": "response=1\0"}, *DUMB_PIXEL]
    path = integrity_spec(tmp_path / "spec.yaml", models)
    assert main([str(path)]) == 1
    output = capsys.readouterr().out
    assert "[batch] nul: not run: models[0]: model_args holds a NUL byte" in output
    assert "[1/1] dumb_pixel: done" in output and "1 of 2 models complete; failed: nul" in output
    status = json.loads((tmp_path / "results" / "batch_status.json").read_text())
    assert status["nul"] == {"state": "failed", "error": "models[0]: model_args holds a NUL byte", "tasks": {}}
    assert status["dumb_pixel"]["state"] == "done"
    assert leaderboard_rows(tmp_path / "results") == {"dumb_pixel": ["0.5833"]}


def test_ctrl_c_once_a_models_tasks_are_done_records_it_done(tmp_path, monkeypatch, capsys):
    """Ctrl-C landing after a model's last task was done (its server stopping, its cache scrubbed) recorded the model
    as interrupted beside tasks all done; it is done, and the batch still stops as interrupted."""
    ran = run.run_levels

    def then_ctrl_c(*arguments) -> int:
        assert ran(*arguments) == 0  # every level ran and succeeded
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "run_levels", then_ctrl_c)
    models = [*DUMB_PIXEL, {"name": "dummy", "backend": "dummy"}]
    path = integrity_spec(tmp_path / "spec.yaml", models, limit=2)
    assert run_interruptible(load_spec(path)) == 130
    output = capsys.readouterr().out  # no server on the lmms route: none is said to have stopped
    assert "[batch] interrupted; evaluations stopped. Rerun the same command to resume." in output
    assert "servers" not in output
    status = json.loads((tmp_path / "results" / "batch_status.json").read_text())
    assert status == {"dumb_pixel": {"state": "done", "tasks": {"nleye_triplet": "done"}}}  # dummy never started


def test_a_failure_shows_the_end_of_its_own_attempt_only(tmp_path):
    """eval.log keeps every attempt (appended): the failure of the second shows its own command and error, not the
    first attempt's lines above them (a fresh user's walk found two `$ ...` lines in one failure)."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "output_dir: out\ntasks: [nleye_pairs]\nenv: {ABDUCTIVE_DATA: sample}\n"
        "models:\n  - {name: bad, backend: random_baseline, model_args: {bogus: '2'}}\n"
    )
    command = [str(Path(sys.executable).with_name("abductive-eval")), "batch", str(spec)]
    for _attempt in (1, 2):
        done = subprocess.run(command, cwd=tmp_path, env={**os.environ, **OFFLINE}, capture_output=True, text=True)
        assert done.returncode == 1, done.stdout + done.stderr
        failure = done.stdout.split("bad: FAILED", 1)[1].split("\n[batch] ", 1)[0]
        assert failure.count("\n$ ") == 1, failure
        assert failure.rstrip().endswith("unknown --model_args entry 'bogus'; accepted: seed, device")
    assert (tmp_path / "out" / "bad" / "eval.log").read_text().count("\n") >= 4  # both attempts kept in the log
    spec.write_text(spec.read_text().replace("{bogus: '2'}", "{seed: 2}"))
    done = subprocess.run(command, cwd=tmp_path, env={**os.environ, **OFFLINE}, capture_output=True, text=True)
    assert re.search(r"bad: done in \d+ s \(1 task run\)\n", done.stdout), done.stdout


def test_the_log_tail_is_what_an_attempt_added(tmp_path):
    log = tmp_path / "eval.log"
    log.write_text("$ first\nold one: réponse illisible\nold two: 回答なし\n")  # fewer characters than bytes
    logged = files.log_size(log)  # measured without reading it
    assert run.log_tail(log, since=logged) == ""  # failed before writing anything: no earlier attempt's lines
    log.write_text(log.read_text() + "$ second\nnew\n")
    assert run.log_tail(log, since=logged) == "$ second\nnew" and run.log_tail(log, lines=2) == "$ second\nnew"
    assert files.log_size(tmp_path / "missing.log") == 0 and run.log_tail(tmp_path / "missing.log") == ""


def test_an_edited_run_is_told_where_an_older_limited_run_is_shown(tmp_path, capsys):
    """A limited run, then a full one, whose results file is then edited: the cell shows the intact limited run as
    `limited`, and a note names the edited run and its fix (the note was left out wherever another run was shown, so
    the edit went unreported)."""
    limited = integrity_spec(tmp_path / "limited.yaml", DUMB_PIXEL, limit=2)
    spec = integrity_spec(tmp_path / "spec.yaml", DUMB_PIXEL)
    results = tmp_path / "results"
    assert main([str(limited)]) == 0
    assert main([str(spec)]) == 0
    full = max(results.rglob("*_results.json"), key=lambda path: path.stat().st_mtime)
    text = full.read_text()
    assert '"consistency_acc,none": 0.58' in text
    full.write_text(text.replace('"consistency_acc,none": 0.58', '"consistency_acc,none": 0.98', 1))
    assert leaderboard_rows(results)["dumb_pixel"] == ["limited (limit=2)"]
    capsys.readouterr()
    assert leaderboard_main([str(results)]) == 0
    note = f"{full.parents[1]}: nleye_triplet changed since its run ended: its results file was edited; fix: "
    assert note in capsys.readouterr().out
    assert show_main([str(full)]) == 0  # show says so too, before the edited value
    shown = capsys.readouterr()
    assert "| consistency_acc |  98.3 |" in shown.out and shown.err == (
        "abductive-eval show: nleye_triplet changed since its run ended: its results file was edited "
        f"({full.parents[1]}): its values below are not what the run wrote\n"
    )
    (intact,) = [path for path in results.rglob("*_results.json") if path != full]
    assert show_main([str(intact)]) == 0 and capsys.readouterr().err == ""


def test_a_run_folder_of_another_model_copied_into_a_models_runs_is_said_and_never_read(tmp_path, capsys):
    """Another model's whole run folder copied into a model's runs/: never mixed in (its identity is another), but
    it was nowhere said; the batch and the leaderboard now name it, and how to clear it."""
    spec = integrity_spec(tmp_path / "spec.yaml", TWO_MODELS)
    results = tmp_path / "results"
    assert main([str(spec)]) == 0
    clean = leaderboard_rows(results)
    (theirs,) = (results / "rb" / "runs").iterdir()
    planted = results / "dp" / "runs" / "20991231-000000-aaaaaa"
    shutil.copytree(theirs, planted)
    note = f"{planted}: a run of model 'rb', not 'dp' (copied in?): not read; fix: move it out of {planted.parent}"
    capsys.readouterr()
    assert leaderboard_main([str(results)]) == 0
    assert note in capsys.readouterr().out and leaderboard_rows(results) == clean
    assert main([str(spec)]) == 0
    output = capsys.readouterr().out
    assert f"[batch] [1/2] dp: {note}\n" in output and "dp: its task done earlier; skipped" in output
