"""Chained protocols in the batch tooling: what a chained task reads is in its identity by content (picks a variable's
folder holds, scene graphs a variable's store holds, an upstream run's output), the levels a model's tasks run in,
and the leaderboard's stale mark when an upstream stage was run again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from abductive_tasks.lmms_source import results_beside
from abductive_tasks.mucr import data, strategies
from abductive_tasks.runs import chain
from abductive_tasks.runs.identity import cache_key, task_key
from abductive_tasks.runs.task_index import TaskIndex

from helpers.mucr_picks import C2E_DOCS, ITEMS, write_samples


def spec_identity(tmp_path: Path, tasks: str, env: dict[str, str]) -> dict:
    """The identity the batch plans for one dummy model of a spec with ``tasks`` and ``env``."""
    from abductive_tasks.runs.plan import plan
    from abductive_tasks.runs.spec import load_spec

    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps({"tasks": tasks.split(","), "env": env, "models": [{"name": "a", "backend": "dummy"}]}))
    (model_plan,) = plan(load_spec(path), TaskIndex()).models
    return model_plan.identity


@pytest.fixture
def sample(tmp_path, monkeypatch) -> dict[str, str]:
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    data.clear_cache()
    return {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}


def test_picks_written_again_into_the_named_folder_are_another_identity(tmp_path, sample):
    """mucr_c2e run again into the folder ABDUCTIVE_MUCR_PICKS names: mucr_exp reads other picks, so its task key
    changes (the batch runs it again) while a task that reads nothing keeps its key."""
    picks = tmp_path / "picks"
    write_samples(picks, "mucr_c2e", {item["item_id"]: "Option 1" for item in ITEMS})
    write_samples(picks, "mucr_cue", {item["item_id"]: "1" for item in ITEMS})
    env = {**sample, "ABDUCTIVE_MUCR_PICKS": str(picks)}
    before = spec_identity(tmp_path, "mucr_exp,mucr_e2c", env)
    write_samples(picks, "mucr_c2e", {item["item_id"]: "Option 2" for item in ITEMS})  # the same file, other picks
    after = spec_identity(tmp_path, "mucr_exp,mucr_e2c", env)
    assert task_key(before, "mucr_exp") != task_key(after, "mucr_exp")
    assert task_key(before, "mucr_e2c") == task_key(after, "mucr_e2c")
    read = after["tasks"]["mucr_exp"]["inputs"]["mucr_c2e"]
    assert (read["kind"], read["from"], read["file"]) == (
        "picks",
        "ABDUCTIVE_MUCR_PICKS",
        "20261127_120000_samples_mucr_c2e.jsonl",
    )


def test_scene_graphs_stored_again_under_the_same_name_are_another_identity(tmp_path, sample, monkeypatch):
    """CCoT stage 1 run again under the same ABDUCTIVE_MUCR_SCENE_GRAPHS name: mucr_c2e_ccot reads other graphs, so
    its task key changes."""
    monkeypatch.setenv("ABDUCTIVE_MUCR_SCENE_GRAPHS", "m")
    env = {**sample, "ABDUCTIVE_MUCR_SCENE_GRAPHS": "m"}
    docs = list(strategies.c2e_ccot_graph_docs(None))
    for doc in docs:
        strategies.process_results_ccot_graph(doc, ['{"objects": ["car"]}'])
    before = spec_identity(tmp_path, "mucr_c2e_ccot", env)
    strategies.process_results_ccot_graph(docs[0], ['{"objects": ["bicycle"]}'])
    after = spec_identity(tmp_path, "mucr_c2e_ccot", env)
    assert task_key(before, "mucr_c2e_ccot") != task_key(after, "mucr_c2e_ccot")
    assert after["tasks"]["mucr_c2e_ccot"]["inputs"]["mucr_c2e_ccot_graph"]["files"] == 12


def test_levels_and_upstream_tasks_follow_the_declared_reads():
    task_index = TaskIndex()

    def reads_of(task: str) -> dict[str, str]:
        return task_index.facts(task).reads

    environment = {key: value for key, value in os.environ.items() if not key.startswith("ABDUCTIVE_MUCR")}
    wanted = chain.with_upstream(["mucr_exp_ccot", "mucr_e2c"], reads_of, environment)
    assert wanted == ["mucr_c2e_ccot_graph", "mucr_c2e_ccot", "mucr_cue_ccot_graph", "mucr_cue_ccot",
                      "mucr_exp_ccot_graph", "mucr_exp_ccot", "mucr_e2c"]  # fmt: skip
    assert chain.levels(wanted, reads_of, environment) == [
        ["mucr_c2e_ccot_graph", "mucr_cue_ccot_graph", "mucr_e2c"],
        ["mucr_c2e_ccot", "mucr_cue_ccot"],
        ["mucr_exp_ccot_graph"],
        ["mucr_exp_ccot"],
    ]
    # A variable naming the picks: nothing upstream is run for them.
    named = {**environment, "ABDUCTIVE_MUCR_PICKS": "/somewhere"}
    assert chain.with_upstream(["mucr_exp"], reads_of, named) == ["mucr_exp"]
    assert chain.with_upstream(["mucr_exp"], reads_of, environment) == ["mucr_c2e", "mucr_cue", "mucr_exp"]
    # A describer named on purpose runs the describe stage elsewhere.
    described = chain.with_upstream(["nleye_triplet_described"], reads_of, environment, {"descriptions": "other"})
    assert described == ["nleye_triplet_described"]


def test_every_chained_task_declares_what_it_reads_and_every_exp_reads_its_own_levels():
    task_index = TaskIndex()
    readers = {task: task_index.facts(task).reads for task in task_index.task_names if task_index.facts(task).reads}
    assert readers["mucr_exp"] == {"mucr_c2e": "picks", "mucr_cue": "picks"}
    assert readers["nleye_triplet_described"] == {"nleye_describe": "descriptions"}
    for task, reads in readers.items():
        assert all(upstream in task_index.task_names for upstream in reads), task
        if task.startswith("mucr_exp"):
            suffix = task.removeprefix("mucr_exp").removesuffix("_graph") or ""
            picks = {up for up, kind in reads.items() if kind == "picks"}
            assert picks == {f"mucr_c2e{suffix}", f"mucr_cue{suffix}"}, task
    assert {task for task in readers if task.endswith("_ccot")} == {
        f"mucr_{lv}_ccot" for lv in ("c2e", "e2c", "cue", "exp")
    }
    assert not any(task_index.facts(task).reads for task in task_index.expand(["abductive"]) if task != "mucr_exp")
    assert task_index.facts("mucr_exp_gold").upper_bound and not task_index.facts("mucr_exp").upper_bound


def test_the_choice_records_hold_the_document_their_pick_answered(sample):
    from abductive_tasks.mucr import hooks

    doc = C2E_DOCS["3"]
    record = hooks.process_results_c2e(doc, ["Option 2"])["c2e_accuracy"][1]
    assert record["doc_digest"] == hooks.choice_digest(doc) and record["prediction"] == 2


def test_the_chain_of_one_command_keeps_its_arguments_and_limit(sample, tmp_path):
    """``abductive-eval --tasks mucr_exp --limit 3 ...``: the stage runs C2E and Cue with the command's arguments and
    limit, and the last run is told what it is (model, limit) and what it reads."""
    argv = ["--model", "random_baseline", "--model_args", "seed=1", "--tasks", "mucr_exp", "--limit", "3",
            "--gen_kwargs", "max_new_tokens=8", "--output_path", str(tmp_path / "out")]  # fmt: skip
    chained = chain.command_chain("random_baseline", "seed=1", argv, ["mucr_exp"], TaskIndex(), str(tmp_path / "out"))
    assert chained.levels == [["mucr_c2e", "mucr_cue"]] and chained.limit == 3
    assert chained.stage_args == ["--gen_kwargs", "max_new_tokens=8", "--limit", "3"]
    said: list[str] = []
    assert chained.walk(said.append, start=False) == 0
    assert said[0] == "stage 1 (random_baseline): mucr_c2e, mucr_cue"
    assert "--tasks mucr_c2e,mucr_cue --output_path" in said[1] and said[1].endswith("max_new_tokens=8 --limit 3")
    variables = chained.variables(chained.runner, ["mucr_exp"])
    run = json.loads(variables["ABDUCTIVE_RUN"])
    assert (run["model"], run["backend"], run["model_args"], run["limit"]) == ("random_baseline", "random_baseline",
                                                                                "seed=1", 3)  # fmt: skip
    assert json.loads(variables["ABDUCTIVE_STAGE_INPUTS"]) == {
        "mucr_c2e": "<output of mucr_c2e from stage 1>",
        "mucr_cue": "<output of mucr_cue from stage 1>",
    }
    assert chain.command_chain("random_baseline", "", argv, ["mucr_c2e"], TaskIndex(), None) is None  # nothing chained


def test_limit_minus_one_is_every_document_as_lmms_eval_reads_it(sample):
    """lmms-eval reads ``--limit -1`` as every document: the chain does too. Read as a limit of -1, NL-Eye's describe
    stage got ``--limit 0`` (the images of the first -1 items) and failed with lmms-eval's traceback, and the reader
    was told a limit that selects no item."""
    argv = ["--model", "random_baseline", "--tasks", "nleye_triplet_described", "--limit", "-1"]
    chained = chain.command_chain("random_baseline", "", argv, ["nleye_triplet_described"], TaskIndex(), None)
    assert chained.limit is None and chained.args_of(["nleye_describe"]) == []
    run = json.loads(chained.variables(chained.runner, ["nleye_triplet_described"])["ABDUCTIVE_RUN"])
    assert run["limit"] is None


def test_a_batchs_limit_minus_one_is_every_document(sample, tmp_path):
    """A model's ``eval_args: [--limit, -1]`` (lmms-eval: every document) is no limit: the describe stage got
    ``--limit 0`` and failed, and a run lmms-eval records with limit -1.0 was a limited one, never a score."""
    from abductive_tasks import lmms_source
    from abductive_tasks.mucr import picks
    from abductive_tasks.runs.plan import plan
    from abductive_tasks.runs.spec import load_spec

    path = tmp_path / "spec.yaml"
    model = {"name": "a", "backend": "dummy", "eval_args": ["--limit", "-1"]}
    path.write_text(json.dumps({"tasks": ["nleye_triplet_described"], "env": sample, "models": [model]}))
    (model_plan,) = plan(load_spec(path), TaskIndex()).models
    assert model_plan.limit is None and model_plan.run_limit("nleye_describe") is None
    assert lmms_source.limit_value(-1.0) is None and lmms_source.limit_value(2.0) == 2
    samples = tmp_path / "picks" / "20261202_samples_mucr_c2e.jsonl"  # ABDUCTIVE_MUCR_PICKS of such a run
    samples.parent.mkdir()
    lmms_source.results_beside(samples).write_text(json.dumps({"config": {"model": "dummy", "limit": -1.0}}))
    assert picks.samples_run(samples)[0]["limit"] is None  # not refused as a limited one


def test_limit_zero_is_read_as_no_limit_of_documents(sample):
    """A recorded ``--limit 0`` is read as no limit of documents (``stages._asked`` reads it so too): read as a limit
    of 0, the chain told NL-Eye's reader a limit selecting no item. No run under it has results: lmms-eval 0.7.3
    slices its requests to none and fails, and abductive-eval refuses it (tests/test_cli.py)."""
    from abductive_tasks import lmms_source
    from abductive_tasks.reports import report

    argv = ["--model", "random_baseline", "--tasks", "nleye_triplet_described", "--limit", "0"]
    chained = chain.command_chain("random_baseline", "", argv, ["nleye_triplet_described"], TaskIndex(), None)
    assert chained.limit is None and chained.args_of(["nleye_describe"]) == []
    run = json.loads(chained.variables(chained.runner, ["nleye_triplet_described"])["ABDUCTIVE_RUN"])
    assert run["limit"] is None
    assert lmms_source.limit_value(0.0) is None and lmms_source.limit_value(0.5) == 0.5
    summary = report.summary({"config": {"model": "m", "limit": 0.0}, "results": {}}, lambda task: None)
    assert "partial evaluation" not in summary


def test_a_wildcard_naming_a_chained_task_runs_its_stages_first(sample, monkeypatch, capsys):
    """``--tasks 'mucr_exp_s*'`` runs mucr_exp_split as lmms-eval matches the pattern: its stages run first, as for the
    name. The chain looked for our tasks by exact name only, so no stage ran and mucr_exp_split was not computed, the
    warning saying that abductive-eval runs the picks first."""
    from abductive_tasks.cli import main as cli_main

    monkeypatch.setenv("ABDUCTIVE_JUDGE", "off")
    assert cli_main(["--model", "random_baseline", "--tasks", "mucr_exp_s*", "--print-commands"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "[chain] stage 1 (random_baseline): mucr_c2e_split, mucr_cue_split"
    assert '"mucr_c2e_split": "<output of mucr_c2e_split from stage 1>"' in lines[-1]


def test_an_offset_is_refused_for_a_chained_task_in_one_line(sample, monkeypatch, capsys):
    """``--offset 2 --limit 3`` on mucr_exp: its stage would answer items 2-4, mucr_exp's documents are those items
    alone, and lmms-eval's offset then skipped two of them (one item asked, "1/1 items", exit 0); without a limit the
    first items counted as missing picks and the offset skipped others. Refused before anything runs."""
    from abductive_tasks.cli import main as cli_main

    monkeypatch.setenv("ABDUCTIVE_JUDGE", "off")
    command = ["--model", "random_baseline", "--tasks", "mucr_exp", "--limit", "3", "--print-commands"]
    assert cli_main([*command, "--offset", "2"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("abductive-eval: --offset 2: not with mucr_exp") and error.count("\n") == 1
    assert cli_main([*command, "--offset=0"]) == 0  # lmms-eval's default: no offset
    capsys.readouterr()


@pytest.mark.parametrize("zero", ["-0", "0_0", " +00 "])
def test_an_offset_lmms_eval_reads_as_zero_is_not_refused(sample, monkeypatch, capsys, zero):
    """``--offset -0`` (or ``0_0``) is lmms-eval's offset 0 (argparse's ``int``), no offset: it was refused as one that
    skips documents (the check stripped ``+`` and ``0`` from the left of the text)."""
    from abductive_tasks.cli import main as cli_main

    monkeypatch.setenv("ABDUCTIVE_JUDGE", "off")
    command = ["--model", "random_baseline", "--tasks", "mucr_exp", "--limit", "3", "--print-commands"]
    assert cli_main([*command, "--offset", zero]) == 0, capsys.readouterr().err
    capsys.readouterr()


def test_a_named_response_cache_is_keyed_per_run_by_what_its_tasks_read(sample, tmp_path):
    """``abductive-eval --tasks mucr_exp -c DIR``: the stage of tasks that read nothing uses DIR as lmms-eval does, the
    reader a sub-folder of DIR named by the batch's key of what it reads (shown as still to be made while its stage
    is only printed), so other picks get another folder and the same picks the same one."""
    folder = tmp_path / "responses"
    argv = ["--model", "random_baseline", "--tasks", "mucr_exp", "-c", str(folder), "--limit", "3"]
    chained = chain.command_chain("random_baseline", "", argv, ["mucr_exp"], TaskIndex(), None, use_cache=str(folder))
    assert chained.stage_args == ["--limit", "3"]  # the option, however spelled, is the chain's to set per run
    said: list[str] = []
    assert chained.walk(said.append, start=False) == 0
    assert said[1].endswith(f"--log_samples --use_cache {folder} --limit 3")
    assert chained.cache_of(chained.runner, ["mucr_exp"]) == folder / chain.NEW_CACHE
    chained.to_make.clear()

    def reading(c2e: str) -> Path:
        chained.given = {"mucr_c2e": c2e, "mucr_cue": "b" * 64}
        chained._entry(chained.runner, "mucr_exp")
        return chained.cache_of(chained.runner, ["mucr_exp"])

    first = reading("a" * 64)
    assert first == folder / cache_key(chained.runner.identity, ["mucr_exp"])
    assert reading("c" * 64).parent == folder and reading("c" * 64) != first and reading("a" * 64) == first
    identity = chained.runner.identity
    assert chain.keyed_cache(folder / "cache.db", identity, ["mucr_exp"]) == first  # lmms-eval's database named
    assert chain.keyed_cache(folder, identity, ["mucr_c2e", "mucr_cue"]) == folder
    spelled = ["-c", "a", "--use_c=b", "-cc", "--use_cache", "d", "--limit", "3", "--u", "e"]
    assert chain.with_cache(spelled, folder) == ["--limit", "3", "--use_cache", str(folder)]


def test_the_chain_of_one_command_holds_and_shows_no_secret_of_it_or_its_describer(sample, tmp_path):
    """Plain ``abductive-eval`` with chained tasks: the identities its stage outputs are bound to held a secret the
    name rule misses (``base_url=...?key=X`` beside ``api_key=X``), and --print-commands showed the describer's."""
    main_key, describer_key = "MAIN-KEY-pppp9999", "DESC-KEY-nnnn5678"
    model_args = f"response=1,api_key={main_key},base_url=http://127.0.0.1:9/v1?key={main_key}"
    describer_args = f"response=desc,api_key={describer_key},base_url=http://127.0.0.1:9/v1?key={describer_key}"
    argv = ["--model", "dummy", "--model_args", model_args, "--tasks", "mucr_exp,nleye_triplet_described",
            "--limit", "2", "--describer_args", describer_args]  # fmt: skip
    chained = chain.command_chain(
        "dummy", model_args, argv, ["mucr_exp", "nleye_triplet_described"], TaskIndex(), None, ("dummy", describer_args)
    )
    held = json.dumps([chained.runner.identity, chained.describer.identity])
    said: list[str] = []
    assert chained.walk(said.append, start=False) == 0
    shown = "\n".join([*said, chained.shown(chained.runner, ["mucr_exp"], argv)])
    assert "--describer" not in shown or "[REDACTED]" in shown
    for secret in (main_key, describer_key):
        assert secret not in held and secret not in shown
    assert "ABDUCTIVE_RUN=" in shown


def test_a_describer_whose_limit_its_reader_cannot_read_is_refused_in_one_line(tmp_path, sample, capsys):
    """A reader reads the descriptions of a run with its own --limit or none: a describer limited otherwise would
    leave it waiting forever, so the plan refuses it, naming both models and limits; a chain read as two kinds too."""
    from abductive_tasks.runs.batch import main as batch_main

    def refused(tasks: list[str], models: list[dict]) -> str:
        path = tmp_path / "spec.yaml"
        path.write_text(json.dumps({"tasks": tasks, "env": sample, "models": models}))
        assert batch_main([str(path), "--print-commands"]) == 1
        return capsys.readouterr().err

    reader = {"name": "dp", "backend": "dumb_pixel", "describer": "dd"}
    limited = {"name": "dd", "backend": "dummy", "eval_args": ["--limit", "4"]}
    assert refused(["nleye_triplet_described"], [reader, limited]) == (
        "abductive-eval batch: error: dp reads the descriptions of dd, which runs with --limit 4, and dp with none: "
        "give dd the same --limit, or none\n"
    )
    assert "and dp with --limit 2:" in refused(["nleye_triplet_described"], [{**reader, "eval_args": ["--limit=2"]},
                                                                             limited])  # fmt: skip
    assert refused(["mucr_exp_cot", "mucr_c2e_cot2"], [{"name": "a", "backend": "dummy"}]) == (
        "abductive-eval batch: error: mucr_c2e_cot is read as picks by mucr_exp_cot and as reasonings by "
        "mucr_c2e_cot2: run those readers in separate commands\n"
    )
    # The same limit, or a describer without one, is read.
    path = tmp_path / "spec.yaml"
    for describer in ({**limited, "eval_args": []}, limited):
        models = [{**reader, "eval_args": ["--limit", "4"]} if describer is limited else reader, describer]
        path.write_text(json.dumps({"tasks": ["nleye_triplet_described"], "env": sample, "models": models}))
        assert batch_main([str(path), "--print-commands"]) == 0
    capsys.readouterr()


def test_a_stage_run_ends_with_the_command_that_started_it(tmp_path):
    """A stage's child ends when the command that runs the chain dies, however it dies (SIGKILL here: what a batch
    does to an evaluation that ignores its Ctrl-C); it is not left running on its own."""
    pid_file = tmp_path / "stage.pid"
    stage = [
        sys.executable,
        "-c",
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)",
    ]
    parent = subprocess.Popen(
        [sys.executable, "-c", f"from abductive_tasks.runs import chain\nchain.run_stage_child({stage!r}, {{}})"]
    )
    try:
        deadline = time.monotonic() + 120
        while not (pid_file.exists() and pid_file.read_text()):
            assert parent.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        stage_process = psutil.Process(int(pid_file.read_text()))
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    while not _ended(stage_process):
        assert time.monotonic() < deadline, "the stage run outlived the command that started it"
        time.sleep(0.05)


def _ended(process: psutil.Process) -> bool:
    try:
        return process.status() == psutil.STATUS_ZOMBIE  # exited, not yet reaped by its new parent
    except psutil.NoSuchProcess:
        return True


def test_a_command_stopped_among_its_stages_leaves_no_response_cache(sample, tmp_path, monkeypatch):
    """Ctrl-C while a chained ``abductive-eval`` ran its stages left the command's response cache (the model's replies)
    for good: it was removed only after the last run (a blind review). It goes however the command ends."""
    from abductive_tasks import cli

    made = []

    def stopped(self, say, start=True):
        self.cache.mkdir(parents=True)
        (self.cache / "cache.db").write_bytes(b"replies")
        made.append(self.cache)
        raise KeyboardInterrupt

    monkeypatch.setattr(chain.CommandChain, "walk", stopped)
    # the model and data checks read lmms-eval's model registry, which an earlier test of the worker may leave without
    # our models (seen with test_leaderboard and test_interrupts before it): this test is about the chain's end
    monkeypatch.setattr(cli, "check_model", lambda *args, **kwargs: None)
    monkeypatch.setattr(cli, "check_model_and_data", lambda *args, **kwargs: None)
    argv = ["--model", "random_baseline", "--tasks", "mucr_exp", "--limit", "2", "--output_path", str(tmp_path)]
    assert cli.main(argv) == 130  # said in one line (tests/runs/test_interrupts.py)
    (cache,) = made
    assert not cache.exists()


def test_the_end_of_a_command_compares_only_after_its_last_run_and_only_what_a_task_asked_for_reads(sample, tmp_path):
    """``finish`` runs however the command ends: before its last run it compares nothing (it said "its replies in the
    last run differ" about a run that never happened), and an upstream task asked for but read only by a stage
    (``mucr_c2e_ccot_graph`` beside ``mucr_exp_ccot``) raised StopIteration from the command's ``finally``."""
    tasks = ["mucr_c2e_ccot_graph", "mucr_exp_ccot"]
    argv = ["--model", "random_baseline", "--tasks", ",".join(tasks), "--limit", "2", "--output_path", str(tmp_path)]
    chained = chain.command_chain("random_baseline", "", argv, tasks, TaskIndex(), str(tmp_path))
    chained.fresh = {"mucr_c2e_ccot_graph"}
    said: list[str] = []
    chained.cache.mkdir(parents=True)
    chained.finish(said.append)
    assert said == [] and not chained.cache.exists()
    compared = []
    chained.fresh, chained.requested = {"mucr_c2e"}, ["mucr_c2e", "mucr_exp"]
    chained.reads_of = lambda task: compared.append(task) or {}
    chained.finish(said.append, compare=False)
    assert compared == [] and said == []


def test_a_level_run_is_given_the_digests_of_the_upstream_runs_that_gave_one_only():
    digest = "ab" * 32
    reader = {
        "inputs": {
            "mucr_c2e": {"kind": "picks", "from": "run", "model": "", "digest": chain.PENDING},
            "mucr_cue": {"kind": "picks", "from": "run", "model": "", "digest": digest},
        }
    }
    named = {"inputs": {"mucr_c2e_ccot_graph": {"kind": "graphs", "from": "ABDUCTIVE_MUCR_SCENE_GRAPHS", "files": 2}}}
    assert chain.given([reader, named, {}]) == {"mucr_cue": digest}
    assert chain.pending_reads(reader) == ["mucr_c2e"] and chain.pending_reads(named) == []


def test_a_picks_variable_is_read_by_its_samples_and_the_results_beside_them(tmp_path):
    # the results file says the run's model and --limit, which the picks are checked by: another one is another input
    samples = write_samples(tmp_path / "picks", "mucr_c2e", {"0": "Option 1"})
    env = {"ABDUCTIVE_MUCR_PICKS": str(tmp_path / "picks")}
    alone = chain.variable_input("picks", "mucr_c2e", env, tmp_path)
    results_beside(samples).write_text(json.dumps({"config": {"model": "m", "limit": None}}))
    full = chain.variable_input("picks", "mucr_c2e", env, tmp_path)
    results_beside(samples).write_text(json.dumps({"config": {"model": "m", "limit": 4}}))
    limited = chain.variable_input("picks", "mucr_c2e", env, tmp_path)
    assert alone["file"] == samples.name and len({alone["sha256"], full["sha256"], limited["sha256"]}) == 3


def test_a_read_from_another_model_on_purpose_names_that_model(tmp_path):
    entry = chain.task_inputs(
        {"nleye_describe": "descriptions"}, {}, tmp_path, lambda upstream, kind: None, {"descriptions": "describer"}
    )
    assert entry == {
        "nleye_describe": {"kind": "descriptions", "from": "run", "model": "describer", "digest": chain.PENDING}
    }


def test_a_stage_output_is_bound_to_the_limit_of_the_run_that_made_it(tmp_path, sample):
    identity = spec_identity(tmp_path, "mucr_c2e", sample)
    bound = chain.binding("a", identity, 4, "mucr_c2e")
    assert (bound["model"], bound["limit"], bound["task"]) == ("a", 4, "mucr_c2e")
    assert bound["task_key"] == task_key(identity, "mucr_c2e")
