"""The batch spec's schema: unknown keys refused with the nearest known one, wrong types naming the
field and what it should be, a bad model entry failing alone, every user error one or two lines, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from abductive_tasks.runs.batch import batch_lock, main
from abductive_tasks.runs.plan import requested_limit
from abductive_tasks.runs.spec import SpecError, load_spec

GOOD_MODEL = "  - {name: a, backend: dummy}\n"


def spec_error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    return str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tasks: [x]\nlimit: two\nmodels:\n" + GOOD_MODEL, "limit: input should be a valid number"),
        ("tasks: [x]\nlimit: -1\nmodels:\n" + GOOD_MODEL, "limit: input should be greater than 0"),
        ("tasks: [x]\nenv: [A, B]\nmodels:\n" + GOOD_MODEL, "env: input should be a valid dictionary"),
        ("tasks: [x]\nmodels: x\n", "models: input should be a valid list"),
        ("tasks: 5\nmodels:\n" + GOOD_MODEL, "tasks: input should be a valid string or a valid list"),
        ("tasks: [x]\nhealth_timeout: soon\nmodels:\n" + GOOD_MODEL, "health_timeout: input should be a valid number"),
        ("task: [x]\nmodels:\n" + GOOD_MODEL, "task: unknown key; did you mean `tasks`?"),
        ("tasks: [x]\njudge: {modle: m}\nmodels:\n" + GOOD_MODEL, "judge.modle: unknown key; did you mean `model`?"),
        ("tasks: [x]\njudge: {port: http}\nmodels:\n" + GOOD_MODEL, "judge.port: input should be a valid integer"),
        ("tasks: [x\nmodels: []\n", "not valid YAML (line 2, column 7)"),
        ("- a\n- b\n", "a spec is a mapping (models, tasks, ...), not list"),
    ],
)
def test_spec_errors_name_the_field_and_what_it_should_be(tmp_path, text, message):
    error = spec_error(tmp_path, text)
    assert message in error and len(error.splitlines()) <= 2, error


def test_a_bad_model_entry_fails_alone_with_its_reason(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(
        "tasks: [x]\nmodels:\n"
        + GOOD_MODEL
        + "  - {name: typo, backend: dummy, modle_args: {response: '1'}}\n"
        + '  - {name: nul, backend: dummy, model_args: "response=1\\0"}\n'
        + f"  - {{name: {'n' * 300}, backend: dummy}}\n"
        + "  - {name: ports, backend: dummy, port: soon, env: [A]}\n"
        + "  - just a string\n"
    )
    spec = load_spec(path)
    assert [model.name for model in spec.models] == ["a"]
    assert spec.invalid == {
        "typo": "models[1].modle_args: unknown key; did you mean `model_args`?",
        "nul": "models[2]: model_args holds a NUL byte",
        "models[3]": "models[3].name: string should have at most 100 characters",
        "ports": "models[4].port: input should be a valid integer, unable to parse string as an integer\n"
        "models[4].env: input should be a valid dictionary",
        "models[5]": "models[5]: a model entry is a mapping (name, backend, ...), not 'just a string'",
    }


def test_user_errors_are_short_without_a_traceback_unless_debug(tmp_path, capsys):
    path = tmp_path / "spec.yaml"
    path.write_text("tasks: [x]\nmodels:\n" + GOOD_MODEL + "limit: two\n")
    assert main([str(path), "--print-commands"]) == 2
    assert capsys.readouterr().err == (  # the spec file named (a walkthrough's message named the field alone)
        f"abductive-eval batch: error: {path}: limit: input should be a valid number, unable to parse string as a "
        "number\n"
    )
    with pytest.raises(SpecError):
        main([str(path), "--print-commands", "--verbosity", "DEBUG"])
    assert main([str(tmp_path / "absent.yaml")]) == 2
    assert "absent.yaml: cannot read the spec (No such file or directory)" in capsys.readouterr().err


def test_a_limit_on_the_batch_command_line_points_to_the_spec_key(capsys):
    for given in (["--limit", "2"], ["--limit=2"]):
        with pytest.raises(SystemExit) as exited:
            main(["spec.yaml", *given])
        assert exited.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == (
            "abductive-eval batch: error: --limit is a key of the spec, not an option: add `limit: 2` to spec.yaml"
        )


def test_an_unwritable_output_folder_is_one_line(tmp_path, capsys):
    blocked = tmp_path / "a-file"  # a folder cannot be made under a file (whoever runs the test, root too)
    blocked.write_text("")
    path = tmp_path / "spec.yaml"
    path.write_text(f"tasks: [nleye_triplet]\noutput_dir: {blocked / 'results'}\nmodels:\n" + GOOD_MODEL)
    assert main([str(path)]) == 2
    assert capsys.readouterr().err == (
        f"abductive-eval batch: error: output_dir {blocked / 'results'}: cannot write there (Not a directory)\n"
    )


def test_a_second_batch_on_the_same_folder_is_refused(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from abductive_tasks.runs.batch import batch_lock\n"
            f"with batch_lock(Path({str(tmp_path)!r})):\n    print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(SpecError, match=rf"another batch is running there \(pid {holder.pid}\)"):
            with batch_lock(tmp_path):
                pass
    finally:
        holder.kill()
        holder.wait()
    with batch_lock(tmp_path):  # released with its holder
        pass


def test_an_env_key_that_is_no_variable_name_is_named_before_anything_runs(tmp_path):
    error = spec_error(tmp_path, "tasks: [x]\nenv: {'A=B': '1'}\nmodels:\n" + GOOD_MODEL)
    assert error == "env: 'A=B' is not a variable name (letters, digits and _, not starting with a digit)"
    path = tmp_path / "spec.yaml"
    path.write_text("tasks: [x]\nmodels:\n" + GOOD_MODEL + "  - {name: b, backend: dummy, env: {'A=B': '1'}}\n")
    spec = load_spec(path)
    assert [model.name for model in spec.models] == ["a"] and "'A=B' is not a variable name" in spec.invalid["b"]


@pytest.mark.parametrize("where", ["spec", "environment", "model"])
def test_an_unusable_abductive_variable_is_named_before_any_model_loads(tmp_path, monkeypatch, where):
    path = tmp_path / "spec.yaml"
    env = "env: {ABDUCTIVE_BOOTSTRAP: abc}\n" if where == "spec" else ""
    model = "  - {name: b, backend: dummy, env: {ABDUCTIVE_BOOTSTRAP: abc}}\n" if where == "model" else ""
    path.write_text("tasks: [x]\n" + env + "models:\n" + GOOD_MODEL + model)
    if where == "environment":
        monkeypatch.setenv("ABDUCTIVE_BOOTSTRAP", "abc")
    message = "ABDUCTIVE_BOOTSTRAP='abc': expected a whole number"
    if where == "model":
        assert message in load_spec(path).invalid["b"]
    else:
        with pytest.raises(SpecError, match=message):
            load_spec(path)


@pytest.mark.parametrize("where", ["spec", "environment", "model"])
def test_a_data_folder_that_is_not_there_is_refused_once_before_any_model_loads(tmp_path, monkeypatch, capsys, where):
    """`env: {ABDUCTIVE_DATA: samples}` (a typo of `sample`) started every model, each failing with the same line, all
    recorded failed (exit 1); now the plan refuses it once, as a misspelt task (exit 2), with --print-commands too."""
    monkeypatch.chdir(tmp_path)  # a relative folder is the batch's working directory's, as its evaluations read it
    (tmp_path / "empty").mkdir()
    value, env, model = "samples", "", ""
    if where == "spec":
        env = f"env: {{ABDUCTIVE_DATA: {value}}}\n"
    elif where == "environment":
        monkeypatch.setenv("ABDUCTIVE_DATA", value)
    else:  # a folder without the benchmark's folder: named too
        value = str(tmp_path / "empty")
        model = f"  - {{name: b, backend: dummy, env: {{ABDUCTIVE_DATA: {value}}}}}\n"
    path = tmp_path / "spec.yaml"
    path.write_text("tasks: [nleye_triplet]\n" + env + "models:\n" + GOOD_MODEL + model)
    label = {"spec": "env", "environment": "environment", "model": "models[b].env"}[where]
    problem = (
        f"ABDUCTIVE_DATA={value}: no such folder. Set it to the folder holding <benchmark>/ (e.g. nleye/, mucr/), "
        "or ABDUCTIVE_DATA=sample for the embedded sample."
        if where != "model"
        else f"ABDUCTIVE_DATA={value}: no folder {tmp_path / 'empty' / 'nleye'} for benchmark 'nleye' (layout: "
    )
    for extra in ([], ["--print-commands"]):
        assert main([str(path), *extra]) == 2
        printed = capsys.readouterr()
        (line,) = printed.err.splitlines()
        assert line.startswith(f"abductive-eval batch: error: {label}: {problem}") and printed.out == ""
    assert not (tmp_path / "results" / "a").exists()  # no model started


def test_a_direct_run_with_an_unusable_variable_stops_before_lmms_eval(monkeypatch, capsys):
    from abductive_tasks.cli import main as cli_main

    monkeypatch.setenv("ABDUCTIVE_BOOTSTRAP", "abc")
    monkeypatch.setitem(sys.modules, "lmms_eval", None)  # importing lmms-eval would fail: it must not be reached
    assert cli_main(["--model", "dumb_pixel", "--tasks", "nleye_triplet"]) == 2
    assert capsys.readouterr().err.strip() == "abductive-eval: ABDUCTIVE_BOOTSTRAP='abc': expected a whole number"


def test_an_output_folder_inside_the_data_folder_is_refused(tmp_path):
    (tmp_path / "data" / "nleye").mkdir(parents=True)
    error = spec_error(
        tmp_path,
        f"tasks: [x]\noutput_dir: data/results\nenv: {{ABDUCTIVE_DATA: {tmp_path / 'data'}}}\nmodels:\n" + GOOD_MODEL,
    )
    assert "is inside the data folder ABDUCTIVE_DATA=" in error and len(error.splitlines()) == 1


def test_the_batch_lock_never_follows_a_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".batch.lock").symlink_to(victim)
    with pytest.raises(SpecError, match="symbolic link"):
        with batch_lock(tmp_path / "out"):
            pass
    assert victim.read_text() == "precious\n"


def test_batch_status_never_follows_a_link_and_survives_a_full_disk(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "batch_status.json").symlink_to(victim)
    script = (
        "import resource, signal, sys; from pathlib import Path; "
        "from abductive_tasks.runs.status import BatchStatus, ModelOutcome; "
        f"status = BatchStatus(Path({str(out)!r}), ()); "
        "status.outcomes['a'] = ModelOutcome('done', {}); status.write(); "
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); resource.setrlimit(resource.RLIMIT_FSIZE, (20, 20)); "
        "status.outcomes['a'] = ModelOutcome('done', {'x' * 100: 'done'}); status.write()"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert victim.read_text() == "precious\n"
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "cannot write" in done.stdout and "the previous status stands" in done.stdout
    assert json.loads((out / "batch_status.json").read_text()) == {"a": {"state": "done", "tasks": {}}}


def test_the_evaluation_log_never_follows_a_link(tmp_path):
    from abductive_tasks.runs.run import run_child

    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "eval.log").symlink_to(victim)
    with pytest.raises(OSError, match="symbolic link"):
        run_child([sys.executable, "-c", "print('hello')"], {}, tmp_path / "eval.log")
    assert victim.read_text() == "precious\n"


def test_a_model_name_or_env_name_ending_in_a_newline_is_refused(tmp_path):
    """``$`` matches before a final newline: ``name: "m\\n"`` was accepted (a folder name with a newline)."""
    path = tmp_path / "spec.yaml"
    path.write_text(
        json.dumps(
            {
                "tasks": ["x"],
                "models": [
                    {"name": "a", "backend": "dummy"},
                    {"name": "m\n", "backend": "dummy"},
                    {"name": "e", "backend": "dummy", "env": {"VAR\n": "1"}},
                ],
            }
        )
    )
    spec = load_spec(path)
    assert [model.name for model in spec.models] == ["a"] and len(spec.invalid) == 2
    assert "VAR" in spec_error(tmp_path, json.dumps({"tasks": ["x"], "env": {"VAR\n": "1"}, "models": []}))


def test_a_url_judges_env_is_checked_like_the_specs(tmp_path):
    """A URL judge's ``env`` reaches every evaluation: an unusable ``ABDUCTIVE_*`` value there is refused before
    anything runs, naming where it was set."""
    path = tmp_path / "spec.yaml"
    path.write_text(
        "judge: {url: 'http://j.invalid/v1', model_version: j, env: {ABDUCTIVE_JUDGE_TIMEOUT: soon}}\n"
        "models: [{name: a, backend: dummy}]\ntasks: [nleye_triplet]\n"
    )
    with pytest.raises(SpecError, match=r"^judge\.env: ABDUCTIVE_JUDGE_TIMEOUT='soon': expected a number"):
        load_spec(path)
    path.write_text(path.read_text().replace("soon", "30"))
    assert load_spec(path).judge.env == {"ABDUCTIVE_JUDGE_TIMEOUT": "30"}


def test_a_judge_url_with_a_query_string_is_refused_in_one_line(tmp_path):
    """lmms-eval's judge appends ``chat/completions`` after a URL's query string (a blind walkthrough's fake server
    received ``/v1/?key=...chat/completions``): refused, without echoing the key."""
    path = tmp_path / "spec.yaml"
    path.write_text(
        "judge: {url: 'http://127.0.0.1:9/v1?key=jkey-SECRET', model_version: j}\n"
        "models: [{name: a, backend: dummy}]\ntasks: [nleye_triplet]\n"
    )
    with pytest.raises(SpecError, match=r"^judge\.url: a query string or fragment is not kept") as refused:
        load_spec(path)
    assert "jkey-SECRET" not in str(refused.value) and "\n" not in str(refused.value)
    path.write_text(path.read_text().replace("?key=jkey-SECRET", ""))
    assert load_spec(path).judge.url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("arguments", "refused"),
    [
        (["--cache_requests", "true"], "--cache_requests is refused: lmms-eval's request cache is keyed by task name"),
        (["--cache_requests=refresh"], "--cache_requests is refused"),
        (["--cache_req", "true"], "--cache_req (--cache_requests) is refused"),
        (["--cache_requests"], "--cache_requests is refused"),
        (["--config", "lmms.yaml"], "--config is refused: lmms-eval's config file may set model_args and env"),
        (["--config=lmms.yaml"], "--config is refused"),
        (["--conf", "lmms.yaml"], "--conf (--config) is refused"),
        (["--offset", "2"], "--offset is refused: the documents before it are never asked, so no run is a score"),
        (["--offset=1"], "--offset is refused"),
        (["-c", "other-cache"], "-c (-c: --use_cache) would override what the batch sets"),
        (["-xcother-cache"], "-xc (-c: --use_cache) would override what the batch sets"),
    ],
)
@pytest.mark.parametrize("where", ["top", "model"])
def test_eval_args_may_not_hold_what_the_identity_cannot_see(tmp_path, where, arguments, refused):
    """`--cache_requests` (true, refresh) reuses prompts built from other data or another stage's output (lmms-eval
    keys its request cache by task name only); `--config FILE` sets model_args and env the identity never sees; `-c`
    is `--use_cache`. Refused at plan time in one line naming the option, never its value; abbreviations and `=` too."""
    path = tmp_path / "spec.yaml"
    listed = json.dumps(arguments)
    top = f"eval_args: {listed}\n" if where == "top" else ""
    model = f"  - {{name: b, backend: dummy, eval_args: {listed}}}\n" if where == "model" else ""
    path.write_text("tasks: [nleye_triplet]\n" + top + "models:\n" + GOOD_MODEL + model)
    if where == "top":
        message = spec_error(tmp_path, path.read_text())
        assert message.startswith("eval_args: ")
    else:
        spec = load_spec(path)
        assert [model.name for model in spec.models] == ["a"]
        message = spec.invalid["b"]
        assert message.startswith("models[1].eval_args: ")
    assert refused in message and len(message.splitlines()) == 1
    assert not any(value in message for value in ("lmms.yaml", "other-cache", "true", "refresh"))


@pytest.mark.parametrize(
    ("arguments", "read"),
    [
        (["--cache_requests", "delete"], ["--cache_requests", "delete"]),
        (["--cache_req=delete"], ["--cache_requests=delete"]),
        (["--check_integrity"], ["--check_integrity"]),
        (["--offset", "0"], ["--offset", "0"]),
        (
            ["--offset=00"],
            ["--offset=00"],
        ),  # lmms-eval reads 0, as a chained command does (lmms_source.skips_documents)
        (["--offset", "-0"], ["--offset", "-0"]),
    ],
)
def test_eval_args_may_delete_the_request_cache(tmp_path, arguments, read):
    """`--cache_requests delete` only deletes lmms-eval's request cache (nothing is read from it): allowed; so is
    `--offset 0`, lmms-eval's default."""
    path = tmp_path / "spec.yaml"
    path.write_text(f"tasks: [nleye_triplet]\neval_args: {json.dumps(arguments)}\nmodels:\n" + GOOD_MODEL)
    assert load_spec(path).eval_args == tuple(read)


@pytest.mark.parametrize(
    ("arguments", "read", "limit"),
    [
        (["--lim", "2"], ["--limit", "2"], 2),
        (["--lim=3", "--gen_kw", "max_new_tokens=4"], ["--limit=3", "--gen_kwargs", "max_new_tokens=4"], 3),
        (["--limit", "2", "--unknown_option", "x"], ["--limit", "2", "--unknown_option", "x"], 2),
        (["--b", "2"], ["--b", "2"], None),  # --batch_size or --baseline: argparse refuses it, so does lmms-eval
    ],
)
def test_an_abbreviated_option_in_eval_args_is_read_as_lmms_eval_reads_it(tmp_path, arguments, read, limit):
    """lmms-eval's argparse takes `--lim 2` as `--limit 2`: the spec writes it in full, so the batch's limit, the
    run's identity and its done-check see the limit lmms-eval runs (a spec with `--lim 2` ran the task again at every
    batch, never done, as the results' limit contradicted the run's record)."""
    path = tmp_path / "spec.yaml"
    path.write_text(
        f"tasks: [nleye_triplet]\nmodels:\n  - {{name: a, backend: dummy, eval_args: {json.dumps(arguments)}}}\n"
    )
    spec = load_spec(path)
    (model,) = spec.models
    assert model.eval_args == tuple(read)
    assert requested_limit(spec, model) == limit


@pytest.mark.parametrize("name", ["batch_status.json", "Batch_Status.JSON", "leaderboard", "judge_server.log"])
def test_a_model_named_as_what_the_batch_writes_in_output_dir_is_refused(tmp_path, name):
    """`<output_dir>/<name>` is the model's folder: a model named as the batch's status file, the served judge's log
    or the leaderboard's default folder would share it (the batch stopped at `cannot write batch_status.json`)."""
    from abductive_tasks.runs.spec import BATCH_NAMES, LOCK_FILE
    from abductive_tasks.runs.status import STATUS_FILE

    assert {STATUS_FILE, LOCK_FILE, "leaderboard", "judge_server.log"} <= set(BATCH_NAMES)
    path = tmp_path / "spec.yaml"
    path.write_text(f"tasks: [nleye_triplet]\nmodels:\n{GOOD_MODEL}  - {{name: {name}, backend: dummy}}\n")
    spec = load_spec(path)
    assert [model.name for model in spec.models] == ["a"]
    assert spec.invalid[name].startswith(f"models[1].name: {name!r} is what the batch writes in output_dir (")
    assert len(spec.invalid[name].splitlines()) == 1


def test_a_misspelt_backend_is_refused_when_planned_with_the_closest_names(tmp_path):
    """`--print-commands` printed a command for `random_basline`; only the evaluation, started later, refused it."""
    path = tmp_path / "spec.yaml"
    path.write_text(f"tasks: [nleye_triplet]\nmodels:\n{GOOD_MODEL}  - {{name: b, backend: random_basline}}\n")
    spec = load_spec(path)
    assert [model.name for model in spec.models] == ["a"]
    assert spec.invalid["b"] == (
        "models[1].backend: unknown lmms-eval model 'random_basline' (did you mean 'random_baseline'?); "
        "`abductive-eval models` lists every one"
    )


@pytest.mark.parametrize("where", ["spec", "model"])
def test_a_backend_a_plugin_of_the_specs_env_registers_is_left_to_its_evaluation(tmp_path, where):
    """`env: {LMMS_EVAL_PLUGINS: myplug}` registers `mymodel` in the evaluation, which gets that env; the batch's own
    process does not see it (the review: `unknown lmms-eval model 'mymodel'`, though the same variable in the shell
    planned it)."""
    path = tmp_path / "spec.yaml"
    plugins = "env: {LMMS_EVAL_PLUGINS: myplug}"
    model = f"{{name: b, backend: mymodel, {plugins}}}" if where == "model" else "{name: b, backend: mymodel}"
    top = f"{plugins}\n" if where == "spec" else ""
    path.write_text(f"tasks: [nleye_triplet]\n{top}models:\n  - {model}\n")
    spec = load_spec(path)
    assert [model.backend for model in spec.models] == ["mymodel"] and not spec.invalid


@pytest.mark.parametrize("name", ["-x", ".hidden", "_x"])
def test_a_model_name_that_does_not_start_with_a_letter_or_digit_is_refused_saying_so(tmp_path, name):
    """`-x` was refused in words that allowed `-` (a blind walkthrough): the message says what must come first."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"tasks": ["nleye_triplet"], "models": [{"name": name, "backend": "dummy"}]}))
    assert load_spec(path).invalid == {
        "models[0]": f"models[0].name: {name!r} must be a folder-safe name (letters, digits, . _ -; a letter or digit "
        "first)"
    }


@pytest.mark.parametrize("variable", ["ABDUCTIVE_DVE_EVALUATOR", "ABDUCTIVE_BERTSCORE_MODEL", "ABDUCTIVE_CLIP_MODEL"])
def test_a_model_path_that_does_not_exist_stops_a_run_before_anything_loads(variable, tmp_path, monkeypatch, capsys):
    """docs/benchmarks/dve.md: a path that does not exist is an error, never a hub lookup. A walkthrough's typo in
    ABDUCTIVE_DVE_EVALUATOR gave one warning, exit 0 and a run without its headline. A hub id, a path that exists and
    'off' pass."""
    from abductive_tasks import settings
    from abductive_tasks.cli import main as cli_main

    missing = str(tmp_path / "nonexist.pth")
    monkeypatch.setenv(variable, missing)
    monkeypatch.setitem(sys.modules, "lmms_eval", None)  # stopped before lmms-eval is imported
    assert cli_main(["--model", "dumb_pixel", "--tasks", "dve_gen"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"abductive-eval: {variable}={missing!r}: no such file or folder (a path is loaded from there, never looked up "
        "on the hub; 'off' skips the metric)"
    )
    for usable in ("owner/model", str(tmp_path), "off"):
        assert settings.problems({variable: usable}) == []
    assert settings.problems({variable: "./typo"}) and settings.problems({variable: "weights.pth"})


@pytest.mark.parametrize(
    ("model_args", "counts"),
    [
        ('{response: "1,extra=zz"}', "2 entries of the 1 given"),  # an entry smuggled in: the run got two
        ('{seed: "0,pretrained=../../../etc/passwd"}', "2 entries of the 1 given"),
        ('{response: "Yes, the update weakens it"}', "2 entries of the 1 given"),  # failed at run time
        ('{response: "it\'s", seed: 1}', "1 entries of the 2 given"),  # a quote hid the comma: seed read in it
    ],
)
def test_a_model_args_value_lmms_eval_would_read_otherwise_fails_its_entry_naming_the_key(tmp_path, model_args, counts):
    """A mapping is one entry per key; lmms-eval 0.7.3 splits --model_args at commas outside quotes, braces and
    brackets, so a value with a comma (or an unmatched quote) reached the run as other entries. The entry fails alone,
    naming the key and the keys lmms-eval would read, never the value (it may be a secret)."""
    path = tmp_path / "spec.yaml"
    path.write_text(f"tasks: [x]\nmodels:\n{GOOD_MODEL}  - {{name: b, backend: dummy, model_args: {model_args}}}\n")
    spec = load_spec(path)
    assert [model.name for model in spec.models] == ["a"]
    key = model_args.split(":")[0].strip("{")
    assert (
        f"the value of {key!r} holds a comma or a quote that lmms-eval 0.7.3's --model_args splits or joins at (it "
        f"would read {counts}): no --model_args gives it as one value"
    ) in spec.invalid["b"]
    assert not {"zz", "passwd", "weakens", "it's"} & set(spec.invalid["b"].replace("(", " ").split())


def test_model_args_values_lmms_eval_reads_as_given_pass(tmp_path):
    """JSON in braces or brackets keeps its commas under lmms-eval's split: such values, and plain ones, pass."""
    path = tmp_path / "spec.yaml"
    path.write_text(
        "tasks: [x]\nmodels:\n  - {name: a, backend: dummy, model_args: {response: 'Yes', extra: {k: 1, j: [1, 2]}}}\n"
    )
    assert [model.model_args for model in load_spec(path).models] == ['response=Yes,extra={"k":1,"j":[1,2]}']
