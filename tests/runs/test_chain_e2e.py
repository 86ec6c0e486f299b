"""The chained protocols as one command, end to end on the sample: ``abductive-eval --tasks mucr_exp`` runs the same
model's C2E and Cue first and explains their picks, CCoT's second stage gets the first stage's graphs, NL-Eye's
image-to-text reads the descriptions of the describer the command names; ``--print-commands`` shows the chain; a
batch runs the levels in turn, and the leaderboard marks a cell whose upstream stage was run again ``stale``."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from abductive_tasks.cli import main as cli_main
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.inputs.stages import (
    latest,
    load,
    output_from_samples,
    records_digest,
    remember,
    save,
    store_root,
)
from abductive_tasks.mucr import data, hooks, strategies
from abductive_tasks.reports.browse import rerun_command
from abductive_tasks.reports.leaderboard import collect
from abductive_tasks.runs.batch import main as batch_main
from abductive_tasks.runs.identity_record import RUN_RECORD, IdentityRecord, sealed_outputs
from abductive_tasks.runs.plan import plan
from abductive_tasks.runs.spec import load_spec
from abductive_tasks.runs.task_index import TaskIndex

from helpers.openai_stub import OpenAIStub
from helpers.runs import OFFLINE, abductive_eval, read_results

pytestmark = pytest.mark.e2e

LOADED = data.load(SAMPLE_ROOT / "mucr")
ITEMS = LOADED.items
CUE_GIVEN = re.compile(r'The cue phrase linking them is "([^"]+)"')


def results_of(folder: Path) -> dict:
    """The ``results`` of the one results file directly in a model folder under ``folder`` (not the stages')."""
    (path,) = folder.glob("*/*_results.json")
    return json.loads(path.read_text())["results"]


def samples_of(folder: Path, task: str) -> list[dict]:
    (path,) = folder.glob(f"*/*_samples_{task}.jsonl")
    return sorted((json.loads(line) for line in path.read_text().splitlines()), key=lambda line: line["doc_id"])


def judge_env(stub: OpenAIStub, tmp_path: Path) -> dict[str, str]:
    return {
        "ABDUCTIVE_JUDGE": "on",
        "API_TYPE": "openai",
        "OPENAI_API_URL": stub.url,
        "OPENAI_API_KEY": "x",
        "MODEL_VERSION": "stub-judge",
        "ABDUCTIVE_JUDGE_CACHE": str(tmp_path / "judge-cache"),
        "ABDUCTIVE_CACHE": str(tmp_path / "cache"),
    }


def test_mucr_exp_in_one_command_explains_the_models_own_picks_then_reuses_them(tmp_path):
    out = tmp_path / "out"
    with OpenAIStub(["Score: 6"]) as stub:
        env = judge_env(stub, tmp_path)
        done = abductive_eval(["--model", "random_baseline", "--tasks", "mucr_exp", "--log_samples"], out, env=env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "[chain] stage 1 (random_baseline): mucr_c2e, mucr_cue" in done.stdout
        assert len(stub.requests) == 12 * 3  # the judge: three parts of the twelve explanations
        results = results_of(out)
        assert list(results) == ["mucr_exp"]
        # Exp of random_baseline's own picks: every cue phrase asked is the one it picked in mucr_cue.
        cue_docs = hooks.cue_docs_from(LOADED)
        picked = [random.Random(f"0:mucr_cue:{n}").choice(doc["choices"]) for n, doc in enumerate(cue_docs)]
        asked = [CUE_GIVEN.search(sample["input"])[1] for sample in samples_of(out, "mucr_exp")]
        assert asked == picked and asked != [item["cue"] for item in ITEMS]
        assert results["mucr_exp"]["exp_score,none"] == pytest.approx(6.0)
        counts = results["mucr_exp"]["exp_counts,none"]
        assert (counts["documents"], counts["items_judged"], counts["items_missing_upstream"]) == (12, 12, 0)
        assert counts["items_cue_pick_wrong"] == sum(p != item["cue"] for p, item in zip(picked, ITEMS, strict=True))
        (stage,) = (out / "stages").glob("2*")
        assert {path.name.split("_samples_")[1] for path in stage.rglob("*_samples_*")} == {
            "mucr_c2e.jsonl",
            "mucr_cue.jsonl",
        }
        assert not list((out / "stages").glob("responses-*"))  # the command's response cache is gone
        # Its results record what each stage's samples give a later reader, by content, as the files read back.
        (stage_results,) = stage.rglob("*_results.json")
        recorded = json.loads(stage_results.read_text())["abductive_tasks"]["samples_records"]
        assert recorded == {
            task: records_digest(json.loads(line) for line in path.read_text().splitlines())
            for task in ("mucr_c2e", "mucr_cue")
            for path in stage.rglob(f"*_samples_{task}.jsonl")
        }
        # The results say which picks Exp explained, by content: the stage outputs the chain stored.
        (results_path,) = out.glob("*/*_results.json")
        inputs = json.loads(results_path.read_text())["abductive_tasks"]["inputs"]
        assert list(inputs) == ["mucr_exp"] and sorted(inputs["mucr_exp"]) == ["mucr_c2e", "mucr_cue"]
        for upstream, entry in inputs["mucr_exp"].items():
            assert (entry["kind"], entry["from"], entry["model"]) == ("picks", "run", "")
            stored = load(entry["digest"], tmp_path / "cache")
            assert (stored.task, stored.kind, stored.binding["model"]) == (upstream, "picks", "random_baseline")
        # The same command again: the picks of the earlier run have this identity, so no stage runs.
        again = abductive_eval(["--model", "random_baseline", "--tasks", "mucr_exp"], tmp_path / "again", env=env)
        assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
        assert "stage 1: mucr_c2e: reusing its output of an earlier run" in again.stdout
        assert not (tmp_path / "again" / "stages").exists()
        assert results_of(tmp_path / "again")["mucr_exp"]["exp_score,none"] == pytest.approx(6.0)


def test_a_stage_output_of_other_weights_at_the_same_path_is_not_reused(tmp_path):
    """Weights retrained in place are another model: the first stage's graphs of the old weights are not the new
    weights' own (review 1, F1: the run identity named the weights' path, not their content)."""
    weights = tmp_path / "weights"
    weights.mkdir()
    (weights / "model.safetensors").write_bytes(b"weights one")
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    command = ["--model", "dummy", "--model_args", f"response=1,pretrained={weights}", "--tasks", "mucr_c2e_ccot"]
    for number, weights_now in enumerate((b"weights one", b"weights one", b"weights two, retrained")):
        (weights / "model.safetensors").write_bytes(weights_now)
        done = abductive_eval(command, tmp_path / f"out{number}", env=env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        reused = "stage 1: mucr_c2e_ccot_graph: reusing its output of an earlier run" in done.stdout
        assert reused == (number == 1), done.stdout[-3000:]


def test_ccot_second_stage_in_one_command_and_a_limited_first_stage_refused(tmp_path):
    out = tmp_path / "out"
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    done = abductive_eval(["--model", "random_baseline", "--tasks", "mucr_c2e_ccot", "--log_samples"], out, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "[chain] stage 1 (random_baseline): mucr_c2e_ccot_graph" in done.stdout
    c2e_docs = hooks.c2e_docs_from(LOADED)
    stage1 = random.Random("0:mucr_c2e_ccot_graph:0").choice(c2e_docs[0]["choices"])
    first = samples_of(out, "mucr_c2e_ccot")[0]
    assert first["input"].startswith(f"Scene Graph: {stage1}. Chosen at random.\n\nUse the image and scene graph")
    picks = [random.Random(f"0:mucr_c2e_ccot:{n}").choice(doc["choices"]) for n, doc in enumerate(c2e_docs)]
    right = sum(int(pick) == doc["gold_position"] for pick, doc in zip(picks, c2e_docs, strict=True))
    assert results_of(out)["mucr_c2e_ccot"]["c2e_accuracy,none"] == pytest.approx(right / 12)
    # What the second stage read, recorded by content in its results and shown (as Exp's picks, NL-Eye's descriptions).
    (results_path,) = out.glob("*/*_results.json")
    (read,) = json.loads(results_path.read_text())["abductive_tasks"]["inputs"]["mucr_c2e_ccot"].values()
    graphs = load(read["digest"], tmp_path / "cache")
    assert (read["kind"], read["from"], graphs.kind, graphs.task) == ("graphs", "run", "graphs", "mucr_c2e_ccot_graph")
    assert len(graphs.items) == 12 and f"{stage1}. Chosen at random." in {item.value for item in graphs.items.values()}
    show = [sys.executable, "-m", "abductive_tasks.cli", "show", str(results_path.parent)]
    shown = subprocess.run(show, capture_output=True, text=True, env={**os.environ, **OFFLINE, **env}, timeout=600)
    assert f"Reads, mucr_c2e_ccot: graphs of mucr_c2e_ccot_graph {read['digest'][:12]}" in shown.stdout.splitlines()
    # Graphs stored under a name by a --limit 6 run (abductive-eval binds them to it) are refused by a full run.
    named = {**env, "ABDUCTIVE_MUCR_SCENE_GRAPHS": "m"}
    limited = abductive_eval(["--model", "random_baseline", "--tasks", "mucr_c2e_ccot_graph", "--limit", "6"],
                             tmp_path / "graphs", env=named)  # fmt: skip
    assert limited.returncode == 0, limited.stderr[-3000:]
    refused = abductive_eval(["--model", "random_baseline", "--tasks", "mucr_c2e_ccot"], tmp_path / "r", env=named)
    assert refused.returncode == 1
    (line,) = refused.stderr.strip().splitlines()
    assert "mucr_c2e_ccot: the graphs of mucr_c2e_ccot_graph in ABDUCTIVE_MUCR_SCENE_GRAPHS=m" in line
    assert line.endswith(
        "come from a --limit 6 run, and this run has no --limit; rerun mucr_c2e_ccot_graph without --limit"
    )
    assert strategies.C2E_CCOT.name == "mucr_c2e_ccot"


def test_described_predictions_read_the_named_describer(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    command = ["--model", "random_baseline", "--tasks", "nleye_triplet_described", "--describer", "dumb_pixel"]
    done = abductive_eval([*command, "--log_samples"], out, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "[chain] stage 1 (dumb_pixel): nleye_describe" in done.stdout
    (describe_config,) = (out / "stages").rglob("*_results.json")
    assert json.loads(describe_config.read_text())["config"]["model"] == "dumb_pixel"
    samples = samples_of(out, "nleye_triplet_described")
    assert len(samples) == 24 and all("Context: An image." in sample["input"] for sample in samples)
    assert {sample["triplet_counts"][1]["describer"] for sample in samples} == {"dumb_pixel"}
    results = results_of(out)["nleye_triplet_described"]
    assert results["triplet_counts,none"]["items_scored"] == 12 and results["consistency_acc,none"] is not None
    # Without --describer the model describes for itself; --describer with no reader of descriptions is refused
    # (in this process: what is asserted is the plan, which starts nothing).
    for name, value in {**OFFLINE, **env, "ABDUCTIVE_DATA": "sample"}.items():
        monkeypatch.setenv(name, value)
    own_command = ["--model", "random_baseline", "--tasks", "nleye_triplet_described", "--print-commands"]
    assert cli_main([*own_command, "--output_path", str(tmp_path / "own")]) == 0
    assert capsys.readouterr().out.startswith("[chain] stage 1 (random_baseline): nleye_describe\n")
    wrong = ["--model", "random_baseline", "--tasks", "mucr_c2e", "--describer", "dumb_pixel"]
    assert cli_main([*wrong, "--output_path", str(tmp_path / "w")]) == 2
    assert "--describer names the model whose descriptions" in capsys.readouterr().err


def test_a_chained_run_is_named_and_recorded_by_what_it_read(tmp_path):
    """Image-to-text on another describer's descriptions, then on the model's own, into one ``--output_path``: two
    folders (the walk: both runs landed in one folder, and neither results file named its describer), each results
    file saying which descriptions it read, by content, and ``show`` printing it."""
    out = tmp_path / "out"
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    base = ["--model", "random_baseline", "--tasks", "nleye_triplet_described", "--limit", "2", "--log_samples"]
    for command in ([*base, "--describer", "dumb_pixel"], base):
        done = abductive_eval(command, out, env=env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    folders = sorted(path.parent for path in out.glob("random_baseline-*/*_results.json"))
    assert len(folders) == 2
    read = {}
    for folder in folders:
        (results_path,) = folder.glob("*_results.json")
        (entry,) = json.loads(results_path.read_text())["abductive_tasks"]["inputs"]["nleye_triplet_described"].values()
        stored = load(entry["digest"], tmp_path / "cache")
        assert (entry["kind"], entry["from"], stored.task, stored.kind) == (
            "descriptions",
            "run",
            "nleye_describe",
            "descriptions",
        )
        assert entry["model"] == ("dumb_pixel" if stored.binding["model"] == "dumb_pixel" else "")
        read[stored.binding["model"]] = entry["digest"]
    assert sorted(read) == ["dumb_pixel", "random_baseline"]
    for folder in folders:
        done = subprocess.run(
            [sys.executable, "-m", "abductive_tasks.cli", "show", str(folder)],
            capture_output=True, text=True, env={**os.environ, **OFFLINE, **env}, timeout=600,
        )  # fmt: skip
        (line,) = [line for line in done.stdout.splitlines() if line.startswith("Reads, ")]
        describer = "dumb_pixel" if "from dumb_pixel" in line else "random_baseline"
        assert line == (
            f"Reads, nleye_triplet_described: descriptions of nleye_describe {read[describer][:12]}"
            + (" (from dumb_pixel)" if describer == "dumb_pixel" else "")
        )


def test_print_commands_show_the_chain_and_start_nothing(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    for name, value in {**OFFLINE, "ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(name, value)
    command = ["--model", "random_baseline", "--tasks", "mucr_exp", "--print-commands", "--output_path", str(out)]
    assert cli_main(command) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "[chain] stage 1 (random_baseline): mucr_c2e, mucr_cue"
    assert " -m abductive_tasks.cli --model random_baseline --tasks mucr_c2e,mucr_cue --output_path " in lines[1]
    assert "ABDUCTIVE_STAGE_INPUTS='{}'" in lines[1] and '"model": "random_baseline"' in lines[1]
    assert lines[2].startswith("[chain] then, in this process: ABDUCTIVE_RUN=")
    assert '"mucr_c2e": "<output of mucr_c2e from stage 1>"' in lines[2]
    assert "abductive-eval --model random_baseline --tasks mucr_exp --output_path" in lines[2]
    assert not out.exists() and not (tmp_path / "cache" / "stages").exists()
    # A named response cache: the stage's own, and the reader's named by what it reads, still to be made.
    assert cli_main([*command, "--use_cache", str(tmp_path / "responses")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1].endswith(f"--log_samples --use_cache {tmp_path / 'responses'}")
    assert lines[2].startswith(f"[chain] --use_cache {tmp_path / 'responses'}: the replies go to ")
    assert lines[3].endswith(f"--use_cache '{tmp_path / 'responses' / '<key of what its stage gives>'}'")


def test_plain_lmms_eval_runs_the_mucr_group_with_exp_not_computed(tmp_path):
    """Plain lmms-eval builds every request before it runs any, so ``--tasks mucr`` cannot give mucr_exp its picks:
    the group runs, mucr_exp reports nothing computed (never the gold bound under Exp's name) and says why."""
    out = tmp_path / "out"
    command = [str(Path(sys.executable).with_name("lmms-eval")), "--model", "dumb_pixel", "--tasks", "mucr",
               "--output_path", str(out)]  # fmt: skip
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    environment.pop("ABDUCTIVE_MUCR_PICKS", None)
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    results = read_results(out)
    assert results["mucr_c2e"]["c2e_accuracy,none"] == 0.25 and "mucr_exp_gold" not in results
    for task in ("mucr_exp", "mucr_exp_split"):
        assert results[task]["exp_s3,none"] is None and results[task]["exp_offline_score,none"] is None
        assert results[task]["exp_counts,none"]["upstream_given"] == 0
    assert "mucr_exp: no upstream output given, so it is not computed" in done.stdout + done.stderr


def _spec(tmp_path: Path) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(
        json.dumps(
            {
                "output_dir": "results",
                "tasks": ["mucr_exp"],
                "env": {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")},
                "models": [{"name": "random_baseline", "backend": "random_baseline"}],
            }
        )
    )
    return path


def _picked_again(results: Path) -> None:
    """A newer run of mucr_c2e whose picks differ (one wrong pick moved to another wrong option: same accuracy)."""
    (source,) = [run for run in (results / "random_baseline" / "runs").iterdir() if "mucr_c2e" in
                 IdentityRecord.read(run / RUN_RECORD).tasks]  # fmt: skip
    copy = source.with_name(source.name + "-again")
    shutil.copytree(source, copy)
    (samples,) = copy.rglob("*_samples_mucr_c2e.jsonl")
    _pick_otherwise(samples)
    time.sleep(0.01)
    for path in copy.rglob("*_results.json"):
        path.touch()
    record = IdentityRecord.read(copy / RUN_RECORD)  # sealed as the run's end seals what it left
    IdentityRecord(**{**record.__dict__, "tasks": ("mucr_c2e",), "outputs": sealed_outputs(copy)}).write(
        copy / RUN_RECORD
    )


def _pick_otherwise(samples: Path) -> None:
    """One wrong pick of a mucr_c2e samples file moved to another wrong option (same accuracy)."""
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    by_line = [[value[1] for value in line.values() if isinstance(value, list) and len(value) == 2 and
                isinstance(value[1], dict)] for line in lines]  # fmt: skip
    records = next(found for found in by_line if found[0]["prediction"] != found[0]["gold_position"])  # a wrong pick
    gold, picked = records[0]["gold_position"], records[0]["prediction"]
    other = next(option for option in (1, 2, 3, 4) if option not in (gold, picked))
    for record in records:
        record["prediction"] = other
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_batch_runs_the_levels_and_marks_a_reader_of_a_rerun_stage_stale(tmp_path, capsys):
    spec_path = _spec(tmp_path)
    results = tmp_path / "results"
    assert batch_main([str(spec_path), "--print-commands"]) == 0
    shown = capsys.readouterr().out
    assert "#   stage 1: mucr_c2e, mucr_cue" in shown
    assert "#   stage 2: mucr_exp; mucr_exp reads the picks of mucr_c2e, mucr_cue" in shown
    assert '"mucr_c2e": "<picks of mucr_c2e from its stage>"' in shown
    assert batch_main([str(spec_path)]) == 0
    output = capsys.readouterr().out
    assert "running mucr_c2e, mucr_cue, mucr_exp" in output
    runs = sorted((results / "random_baseline" / "runs").iterdir())
    assert [IdentityRecord.read(run / RUN_RECORD).tasks for run in runs] == [("mucr_c2e", "mucr_cue"), ("mucr_exp",)]
    assert not list((results / "random_baseline").rglob("stages"))  # a level reads its inputs: it chains nothing
    board = collect(results, TaskIndex())
    assert board.cell("random_baseline", "mucr_exp") == "—"  # no judge: Exp not computed, but current
    assert "mucr_exp" not in board.marks["random_baseline"]
    # mucr_c2e is run again and picks otherwise: the Exp cell read the old picks.
    _picked_again(results)
    board = collect(results, TaskIndex())
    assert board.cell("random_baseline", "mucr_exp") == "stale"
    assert any("mucr_c2e was run again (its picks changed)" in note for note in board.notes)
    assert board.cell("random_baseline", "mucr_c2e") != "stale"
    (model_plan,) = plan(load_spec(spec_path), TaskIndex()).models
    assert model_plan.pending == ["mucr_exp"]  # the batch runs the reader again, and only it
    assert batch_main([str(spec_path)]) == 0
    assert "running mucr_exp (2 of 3 done earlier)" in capsys.readouterr().out
    board = collect(results, TaskIndex())
    assert "mucr_exp" not in board.marks["random_baseline"]
    # ... and asks the model: lmms-eval keys a reply on the prompt text, which the pick (an image) is not in.
    rerun = (results / "random_baseline" / "eval.log").read_text().rsplit("\n$ ", 1)[1]
    assert "--tasks mucr_exp " in rerun and "ResponseCache: root=" in rerun and "cache hits" not in rerun


def _stored_picks_otherwise(stage: Path, root: Path) -> str:
    """A new mucr_c2e output of the stage run under ``stage`` (one wrong pick moved to another wrong option), stored
    as the latest of its task key, as a rerun of that stage picking otherwise leaves it; its digest."""
    (samples,) = stage.rglob("*_samples_mucr_c2e.jsonl")
    _pick_otherwise(samples)
    for path in (store_root(root) / "latest").glob("*.json"):
        task_key = path.name.removesuffix("-None.json")
        stored = load(latest(task_key, None, root) or "", root)
        if stored.task == "mucr_c2e":
            digest = save(output_from_samples("picks", "mucr_c2e", samples, stored.binding), root)
            remember(task_key, None, digest, root)
            return digest
    raise AssertionError("no stored output of mucr_c2e")


def _roots(done: subprocess.CompletedProcess, folder: Path) -> list[str]:
    """The response caches lmms-eval opened in ``done``'s runs (its log line), those in ``folder`` or a sub-folder."""
    return re.findall(rf"ResponseCache: root=({re.escape(str(folder))}(?:/[0-9a-f]{{16}})?),", done.stdout)


def test_a_reader_named_use_cache_is_asked_again_after_its_upstream_changed(tmp_path):
    """``abductive-eval --tasks mucr_exp --use_cache DIR`` ran its last run on DIR itself: lmms-eval keys a reply on the
    prompt text, which mucr_exp's pick (an image) is not in, so a rerun after mucr_c2e picked otherwise was answered
    from the replies made for the old picks (12 of 12 cache hits). Now the reader's replies go to a sub-folder of DIR
    named by what it reads: a rerun on the same picks reuses them, one on other picks asks the model."""
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    folder = tmp_path / "responses"
    command = ["--model", "random_baseline", "--tasks", "mucr_exp", "--use_cache", str(folder), "--log_samples"]
    first = abductive_eval(command, tmp_path / "first", env=env)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "[chain] stage 1 (random_baseline): mucr_c2e, mucr_cue" in first.stdout
    again = abductive_eval(command, tmp_path / "again", env=env)  # the same picks: the same replies
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "ResponseCache: 12/12 cache hits" in again.stdout
    (stage,) = (tmp_path / "first" / "stages").glob("2*")
    digest = _stored_picks_otherwise(stage, tmp_path / "cache")
    rerun = abductive_eval(command, tmp_path / "rerun", env=env)
    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    store = tmp_path / "cache" / "stages"  # the store named: a user's machine-wide cache is no surprise
    assert f"stage 1: mucr_c2e: reusing its output of an earlier run ({digest[:12]}, in the stage store {store};" in (
        rerun.stdout
    )
    assert "cache hits" not in rerun.stdout + rerun.stderr  # asked again, not answered from replies to the old picks
    # The stage reads nothing: DIR itself, as lmms-eval has it; the reader a sub-folder named by what it reads.
    stage_cache, read_first = _roots(first, folder)
    (read_again,), (read_now,) = _roots(again, folder), _roots(rerun, folder)
    assert stage_cache == str(folder) and Path(read_first).parent == folder
    assert read_again == read_first != read_now and Path(read_now).parent == folder
    assert (
        f"[chain] --use_cache {folder}: the replies go to {read_now}, named by what mucr_exp reads (upstream outputs, "
        "by content); replies made for other inputs are not reused\n"
    ) in rerun.stdout
    assert rerun.stdout.count("--use_cache") == 2 and f"--use_cache {read_now}\n" in rerun.stdout  # the last run


def test_a_reader_of_named_picks_is_asked_again_under_use_cache_after_they_changed(tmp_path):
    """The same for picks a variable names (``ABDUCTIVE_MUCR_PICKS``: no chain, the run reads an earlier run's
    samples), with the option spelled ``-c DIR``: picks edited in place were answered from DIR's replies to the old
    ones. Tasks that read nothing keep DIR itself. Picks edited under results that record them are refused."""
    picks, folder = tmp_path / "picks", tmp_path / "responses"
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    upstream = abductive_eval(["--model", "random_baseline", "--tasks", "mucr_c2e,mucr_cue", "-c", str(folder),
                               "--log_samples"], picks, env=env)  # fmt: skip
    assert upstream.returncode == 0, upstream.stderr[-3000:]
    command = ["--model", "random_baseline", "--tasks", "mucr_exp", "-c", str(folder)]
    named = {**env, "ABDUCTIVE_MUCR_PICKS": str(picks)}
    first = abductive_eval(command, tmp_path / "first", env=named)
    assert first.returncode == 0, first.stderr[-3000:]
    (first_results,) = (tmp_path / "first").rglob("*_results.json")  # the variable recorded: a rerun names it
    assert json.loads(first_results.read_text())["abductive_tasks"]["settings"]["ABDUCTIVE_MUCR_PICKS"] == str(picks)
    assert f"ABDUCTIVE_MUCR_PICKS={picks} abductive-eval --model random_baseline " in rerun_command(first_results)
    again = abductive_eval(command, tmp_path / "again", env=named)
    assert "ResponseCache: 12/12 cache hits" in again.stdout
    (samples,) = picks.rglob("*_samples_mucr_c2e.jsonl")
    _pick_otherwise(samples)
    # abductive-eval's results record what the samples gave: picks edited in place are refused, in one line
    refused = abductive_eval(command, tmp_path / "refused", env=named)
    assert refused.returncode != 0 and f"{samples} is not what its run wrote" in refused.stdout + refused.stderr
    (results,) = picks.rglob("*_results.json")  # as plain lmms-eval's would be: nothing of ours in them
    written = json.loads(results.read_text())
    del written["abductive_tasks"]
    results.write_text(json.dumps(written))
    rerun = abductive_eval(command, tmp_path / "rerun", env=named)
    assert "their run recorded nothing of what they were" in rerun.stdout + rerun.stderr
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "cache hits" not in rerun.stdout + rerun.stderr
    assert _roots(upstream, folder) == [str(folder)] and "the replies go to" not in upstream.stdout
    (read_first,), (read_again,), (read_now,) = _roots(first, folder), _roots(again, folder), _roots(rerun, folder)
    assert read_again == read_first != read_now and Path(read_now).parent == folder
    assert f"abductive-eval: --use_cache {folder}: the replies go to {read_first}, named by" in first.stdout


def test_an_upstream_stage_whose_samples_are_gone_or_damaged_runs_again(tmp_path, capsys):
    """A reader reads its upstream run's samples: an upstream run without them (deleted) or whose samples give no
    picks (edited) is not done, and runs again; its replies come from the response cache, so what the reader reads is
    unchanged and it is found done once they have run."""
    spec_path = _spec(tmp_path)
    results = tmp_path / "results"
    assert batch_main([str(spec_path)]) == 0
    capsys.readouterr()
    for run in (results / "random_baseline" / "runs").iterdir():  # runs recorded before seals (2026-12-01): their
        record = IdentityRecord.read(run / RUN_RECORD)  # readers' checks are what find this (a seal finds it first)
        IdentityRecord(**{**record.__dict__, "outputs": None}).write(run / RUN_RECORD)
    (c2e,) = results.rglob("*_samples_mucr_c2e.jsonl")
    _pick_otherwise(c2e)  # the leaderboard says what happened to what mucr_exp read
    notes = collect(results, TaskIndex()).notes
    assert any("mucr_exp: stale: mucr_c2e had its samples edited (its picks changed) since" in note for note in notes)
    c2e.unlink()
    notes = collect(results, TaskIndex()).notes
    assert any(
        "stale: mucr_c2e gives no picks now (no run, or its samples gone, damaged or changed since its run)" in note
        for note in notes
    )
    (cue,) = results.rglob("*_samples_mucr_cue.jsonl")
    lines = cue.read_text().splitlines()
    cue.write_text("\n".join([lines[0].replace('"doc_digest"', '"digest"'), *lines[1:]]) + "\n")
    assert batch_main([str(spec_path), "--print-commands"]) == 0
    shown = capsys.readouterr().out
    assert f"#   mucr_c2e runs again: its readers read its picks, and its samples file {c2e} is missing" in shown
    assert "#   mucr_cue runs again: its readers read its picks, and its samples give no picks (" in shown
    assert batch_main([str(spec_path)]) == 0
    output = capsys.readouterr().out
    assert f"mucr_c2e runs again: its readers read its picks, and its samples file {c2e} is missing" in output
    assert "running mucr_c2e, mucr_cue, mucr_exp (0 of 3 done earlier)" in output  # what mucr_exp reads is unknown
    assert re.search(r"random_baseline: done in \d+ s \(2 tasks run, 1 found done once their upstream ran\)", output)
    runs = sorted((results / "random_baseline" / "runs").iterdir())
    assert [IdentityRecord.read(run / RUN_RECORD).tasks for run in runs][-1] == ("mucr_c2e", "mucr_cue")
    (model_plan,) = plan(load_spec(spec_path), TaskIndex()).models
    assert not model_plan.pending and not model_plan.unusable


def test_a_leaderboard_of_another_describers_cells_names_them_and_averages_no_stage_coverage(tmp_path):
    """dd answers every question with one sentence (0 on every task) and describes every image (described_rate 100):
    it ranked 2nd on described_rate alone, and dp's cell on dd's descriptions was tied and bolded with rb's
    self-described one, its describer said nowhere. Now the stage's column is labelled and never averaged, and a cell
    read from another model's descriptions names them and is compared only with cells that read the same."""
    import csv

    from abductive_tasks.reports.leaderboard import write_report
    from abductive_tasks.reports.leaderboard.ranking import average, ranking, statistics
    from abductive_tasks.reports.leaderboard.render import headline_table

    spec_path = tmp_path / "spec.yaml"
    models = [
        {"name": "rb", "backend": "random_baseline", "model_args": {"seed": 0}},
        {"name": "dd", "backend": "dummy", "model_args": {"response": "A red car on a road."}},
        {"name": "dp", "backend": "dumb_pixel", "describer": "dd"},
    ]
    environment = {**OFFLINE, "ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    spec = {"output_dir": "results", "tasks": ["nleye_triplet_described", "mucr_c2e"], "env": environment}
    spec_path.write_text(json.dumps(spec | {"models": models}))
    assert batch_main([str(spec_path)]) == 0
    results = tmp_path / "results"
    board = collect(results, TaskIndex())
    header = headline_table(board).header
    assert "average (%, 2 tasks)" in header
    assert "nleye_describe (described_rate; %, stage coverage, not a score)" in header
    assert board.cell("dd", "nleye_describe").startswith("100.0") and average(board, "dd") == 0.0
    assert board.read_from("dp", "nleye_triplet_described") == {"descriptions": "dd"}
    assert board.read_from("rb", "nleye_triplet_described") == board.read_from("dd", "nleye_triplet_described") == {}
    assert board.cell("dp", "nleye_triplet_described").endswith(" (descriptions: dd)")
    assert average(board, "dp") is None and ranking(board)["dp"] == "—"
    found = statistics(board)
    ties = found.ties["nleye_triplet_described"]
    assert "dp" in ties.best  # the best of the cells on dd's descriptions: the only one
    assert all("dp" not in (comparison.a, comparison.b) for comparison in ties.comparisons.values())
    written = write_report(results, task_index=TaskIndex(), board=board, found=found)
    pairs = [
        {row["a"], row["b"]}
        for row in csv.DictReader(written["comparisons_csv"].open())
        if row["task"] == "nleye_triplet_described"
    ]
    assert pairs == [{"rb", "dd"}]
    wide = {row["model"]: row for row in csv.DictReader(written["csv"].open())}
    assert [wide[model]["nleye_triplet_described__read_from"] for model in ("dd", "dp", "rb")] == [
        "",
        "descriptions: dd",
        "",
    ]
    cells = json.loads(written["json"].read_text())["cells"]
    assert cells["dp"]["nleye_triplet_described"]["read_from"] == {"descriptions": "dd"}
    assert "(descriptions: dd)" in written["markdown"].read_text()
    assert "(descriptions: dd)" in written["html"].read_text()


def _described_spec(tmp_path: Path) -> Path:
    """NL-Eye's triplet and its image-to-text under ``limit: 4`` (the describe stage runs for the latter)."""
    path = tmp_path / "spec.yaml"
    path.write_text(
        json.dumps(
            {
                "output_dir": str(tmp_path / "results"),
                "tasks": ["nleye_triplet", "nleye_triplet_described"],
                "limit": 4,
                "env": {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")},
                "models": [{"name": "a", "backend": "random_baseline"}],
            }
        )
    )
    return path


def test_a_batch_runs_the_describe_stage_on_its_own_with_the_limit_its_readers_need(tmp_path, capsys):
    """The finding: the batch ran nleye_describe beside nleye_triplet with the spec's ``limit: 4`` (4 of the 6 images
    nleye_triplet --limit 4's items show). It runs on its own with --limit 6, as abductive-eval's chain runs it."""
    spec_path = _described_spec(tmp_path)
    (model_plan,) = plan(load_spec(spec_path), TaskIndex()).models
    assert model_plan.levels == (("nleye_triplet",), ("nleye_describe",), ("nleye_triplet_described",))
    assert [model_plan.run_limit(task) for task in model_plan.tasks] == [4, 6, 4]
    command, _ = model_plan.evaluation(["nleye_describe"], "run", tmp_path / "cache")
    assert command[-2:] == ["--limit", "6"] and command.count("--limit") == 1
    command, _ = model_plan.evaluation(["nleye_triplet"], "run", tmp_path / "cache")
    assert command[command.index("--limit") + 1] == "4"
    assert batch_main([str(spec_path), "--print-commands"]) == 0
    shown = capsys.readouterr().out
    assert "#   stage 2: nleye_describe; --limit 6: what its readers read under --limit 4" in shown
    (line,) = [line for line in shown.splitlines() if "--tasks nleye_describe " in line]
    assert line.endswith("--limit 6") and '"limit": 4' in line  # bound to its readers' limit, as a chain's stage


def test_a_limited_batch_evaluates_every_item_of_nleye_triplet_described_and_a_rerun_runs_nothing(tmp_path, capsys):
    """End to end on the sample: ``limit: 4`` evaluates nleye_triplet's 2 items, none missing its descriptions (the
    one-command route's count); the describe run under its own limit answers the spec, so a rerun runs nothing."""
    spec_path = _described_spec(tmp_path)
    assert batch_main([str(spec_path)]) == 0
    capsys.readouterr()
    runs = sorted((tmp_path / "results" / "a" / "runs").iterdir())
    records = [IdentityRecord.read(run / RUN_RECORD) for run in runs]
    assert [(record.tasks, record.limit) for record in records] == [
        (("nleye_triplet",), 4),
        (("nleye_describe",), 6),
        (("nleye_triplet_described",), 4),
    ]
    (path,) = runs[2].glob("*/*_results.json")
    counts = json.loads(path.read_text())["results"]["nleye_triplet_described"]["triplet_counts,none"]
    assert (counts["items_scored"], counts["items_missing_upstream"], counts["documents"]) == (2, 0, 4)
    assert batch_main([str(spec_path)]) == 0
    assert "all 3 tasks done earlier; skipped" in capsys.readouterr().out
    assert len(list((tmp_path / "results" / "a" / "runs").iterdir())) == 3
    board = collect(tmp_path / "results", TaskIndex())
    assert board.marks["a"]["nleye_triplet_described"] == "limited (limit=4)"  # not stale: it read that describe run


def test_the_last_runs_replies_are_compared_in_the_folder_named_by_what_it_read(tmp_path, monkeypatch, capsys):
    """The chain's finish finds the last run's samples of a requested upstream task in the folder lmms-eval wrote,
    now named by what its readers read too: where they would derive other picks, it says so (here: made to)."""
    from abductive_tasks.runs import chain

    for name, value in {**OFFLINE, "ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(name, value)
    real = chain.derive
    monkeypatch.setattr(chain, "derive", lambda *a, keep=True: real(*a, keep=keep) if keep else "another digest")
    out = tmp_path / "out"
    command = ["--model", "random_baseline", "--tasks", "mucr_c2e,mucr_exp", "--limit", "2", "--log_samples"]
    assert cli_main([*command, "--output_path", str(out)]) == 0
    printed = capsys.readouterr()
    assert "mucr_c2e: its replies in the last run differ from the picks its readers read" in printed.out + printed.err


def test_the_describers_descriptions_are_not_taken_for_the_models_replies_answered_again(tmp_path, monkeypatch, capsys):
    """``--tasks nleye_triplet_described,nleye_describe --describer dumb_pixel``: the readers read dumb_pixel's
    descriptions and the last run's nleye_describe is random_baseline's own, by design; finish compared the two and
    said the backend had answered again rather than from the response cache."""
    for name, value in {**OFFLINE, "ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "out"
    tasks = "nleye_triplet_described,nleye_describe"
    command = ["--model", "random_baseline", "--tasks", tasks, "--describer", "dumb_pixel", "--limit", "4"]
    assert cli_main([*command, "--log_samples", "--output_path", str(out)]) == 0
    printed = capsys.readouterr()
    said = printed.out + printed.err
    assert "[chain] stage 1 (dumb_pixel): nleye_describe" in said
    assert list(out.glob("random_baseline-*/*_samples_nleye_describe.jsonl"))  # compared before: its replies logged
    assert "differ from the descriptions its readers read" not in said and "answered again" not in said


def test_a_command_whose_stage_requests_failed_exits_1(tmp_path):
    failure = "response=[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"
    done = abductive_eval(
        ["--model", "dummy", "--model_args", failure, "--tasks", "mucr_exp", "--limit", "2"],
        tmp_path / "out",
        env={"ABDUCTIVE_CACHE": str(tmp_path / "cache")},
    )
    (last,) = [line for line in done.stdout.splitlines() if line.startswith("[chain] last run: ")]  # not stopped
    assert "--use_cache" not in last and "--limit 2" in last  # it named the command's cache, removed at its end
    assert not list((tmp_path / "out").glob("stages/responses-*"))
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "mucr_c2e" in done.stderr.rstrip().splitlines()[-1]


FAILING = "response=[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"


@pytest.mark.parametrize(
    ("reader", "upstream", "extra"),
    [
        ("mucr_c2e_ccot", "mucr_c2e_ccot_graph", []),
        ("mucr_e2c_cot2", "mucr_e2c_cot", []),
        ("nleye_triplet_described", "nleye_describe", ["--describer", "dummy", "--describer_args", FAILING]),
    ],
)
def test_a_reader_whose_stage_requests_all_failed_counts_every_item_and_exits_1(tmp_path, reader, upstream, extra):
    done = abductive_eval(
        ["--model", "dummy", "--model_args", FAILING, "--tasks", reader, "--limit", "2", "--log_samples", *extra],
        tmp_path / "out",
        env={"ABDUCTIVE_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "evaluation failed" not in done.stderr
    last = done.stderr.rstrip().splitlines()[-1]
    assert last.startswith(f"abductive-eval: failed requests (the model's or the judge's) in {upstream} (")
    assert re.search(rf"{upstream} \(\d+ failed requests?, in its stage run\)", last)  # told, as the summary tells
    assert last.endswith(": not clean scores (see the summary); rerun them")
    assert f"{reader}: no item has its upstream output: every item counts as unanswered" in done.stdout + done.stderr
    (results,) = (path for path in (tmp_path / "out").rglob("*_results.json") if "stages" not in path.parts)
    values = json.loads(results.read_text())["results"][reader].values()
    counts = next(value for value in values if isinstance(value, dict) and "items_missing_upstream" in value)
    assert counts["items_missing_upstream"] >= 1 and counts["request_failed"] == 0, counts  # none asked, all counted


def test_a_stage_child_leaves_its_failed_requests_to_the_chain_above(tmp_path):
    command = ["--model", "dummy", "--model_args", FAILING, "--tasks", "dve_cls", "--limit", "2"]
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    alone = abductive_eval(command, tmp_path / "alone", env=env)
    counted = abductive_eval(command, tmp_path / "counted", env=env | {"ABDUCTIVE_COUNTED_ABOVE": "1"})
    assert (alone.returncode, counted.returncode) == (1, 0), counted.stderr[-3000:]
    assert "failed requests" in alone.stderr.rstrip().splitlines()[-1]


def test_a_rotated_key_keeps_a_chained_runs_folder(tmp_path):
    out = tmp_path / "out"
    for key in ("sk-rotated-AAAA1111bbbb", "sk-rotated-CCCC3333dddd"):
        done = abductive_eval(
            ["--model", "dummy", "--model_args", f"response=A,api_key={key}", "--tasks", "mucr_exp", "--limit", "2"],
            out,
            env={"ABDUCTIVE_CACHE": str(tmp_path / "cache")},
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert len({path.parent for path in out.glob("dummy-*/*_results.json")}) == 1


def test_an_edited_stage_output_is_not_reused_and_says_so(tmp_path):
    """A stored stage output whose bytes changed (one pick typed over) was derived again in silence, though the
    integrity table says refused in one line (a blind walkthrough): the chain says it is not reused, and why. A stage's
    samples file edited since its run is not read; the reuse says so (a walkthrough's edit went unmentioned)."""
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    command = ["--model", "random_baseline", "--tasks", "mucr_exp", "--limit", "2", "--log_samples"]
    first = abductive_eval(command, tmp_path / "first", env=env)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    (samples,) = (tmp_path / "first" / "stages").rglob("*_samples_mucr_c2e.jsonl")
    typed_over = re.sub(r'"prediction": (\d)', lambda m: f'"prediction": {int(m[1]) % 4 + 1}', samples.read_text())
    samples.write_text(typed_over)  # every pick typed over
    again = abductive_eval(command, tmp_path / "again", env=env)
    assert "[chain] stage 1: mucr_c2e: reusing its output of an earlier run" in again.stdout
    assert (
        f"[chain] mucr_c2e: its samples {samples.absolute()} no longer give the output its run gave (edited after "
        "it?): that output, stored when the run ended ("
    ) in again.stdout
    assert "[chain] mucr_cue: its samples" not in again.stdout
    (prefix,) = re.findall(r"stage 1: mucr_c2e: reusing its output of an earlier run \(([0-9a-f]{12}),", again.stdout)
    (stored,) = (store_root(tmp_path / "cache") / "outputs").glob(f"{prefix}*.json")
    stored.write_bytes(stored.read_bytes().replace(b'"limit":2', b'"limit":3', 1))
    rerun = abductive_eval(command, tmp_path / "rerun", env=env)
    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    assert (
        f"[chain] mucr_c2e: its earlier output is not reused: {stored}: damaged or not written by this tool (its seal "
        "or digest does not check); not read; it runs again\n"
    ) in rerun.stdout
    assert "[chain] stage 1 (random_baseline): mucr_c2e\n" in rerun.stdout
