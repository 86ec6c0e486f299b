"""The ``abductive-eval`` command: fast help and task list, checks before lmms-eval starts, output folders,
the summary."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from abductive_tasks import cli, lmms_source
from abductive_tasks.models.arguments import ModelArgumentError, accepted_arguments, check
from abductive_tasks.runs import catalog, layout

from helpers.runs import OFFLINE, abductive_eval

HEAVY = ("lmms_eval", "torch", "transformers", "datasets")


def run_in_fresh_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE},
        timeout=120,
        check=True,
    )


# ---------------------------------------------------------------- help and the task list


def test_help_and_tasks_import_neither_lmms_eval_nor_torch():
    code = (
        "import json, sys\n"
        "from abductive_tasks.cli import main\n"
        "codes = [main(['--help']), main(['tasks']), main(['--tasks-path']), main(['--model', 'dumb_pixel', "
        "'--tasks', 'nleye_triplt']), main(['--model', 'llava_hff', '--tasks', 'nleye_triplet'])]\n"
        f"heavy = sorted(name for name in sys.modules if name.split('.')[0] in {HEAVY!r})\n"
        "print(json.dumps({'codes': codes, 'heavy': heavy}))\n"
    )
    completed = run_in_fresh_python(code)
    outcome = json.loads(completed.stdout.splitlines()[-1])
    # a task or model typo is refused before lmms-eval is even imported
    assert outcome == {"codes": [0, 0, 0, 2, 2], "heavy": []}
    assert "unknown model 'llava_hff' (did you mean 'llava_hf'" in completed.stderr


def test_the_quick_model_list_is_lmms_evals_registry():
    from lmms_eval.models import MODEL_REGISTRY_V2

    quick = lmms_source.quick_model_names()
    assert quick == set(MODEL_REGISTRY_V2.list_model_names()) and {"llava_hf", "dumb_pixel", "random_baseline"} <= quick


def test_help_names_the_data_switch_variables_baselines_subcommands_and_an_example(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    for expected in (
        "ABDUCTIVE_DATA",
        "ABDUCTIVE_BOOTSTRAP",
        "random_baseline",
        "dumb_pixel",
        "abductive-eval tasks",
        "--tasks-path",
        cli.EXAMPLE,
    ):
        assert expected in text
    assert all(f"abductive-eval {name}" in text for name in cli.SUBCOMMANDS)
    assert cli.main([]) == 2 and "ABDUCTIVE_DATA" in capsys.readouterr().out  # no arguments: the help, as a usage error


def test_tasks_lists_ours_only_with_a_line_each(capsys):
    assert cli.main(["tasks"]) == 0
    text = capsys.readouterr().out
    assert "  nleye_triplet" in text and "Triplet setup, separate images (v.2), premise first; prompt: Table 6." in text
    assert re.search(r"^  nleye +group, 5 tasks: Every NL-Eye task\.$", text, re.MULTILINE)
    for name in catalog.names():
        assert re.search(rf"^  {re.escape(name)} ", text, re.MULTILINE)
    assert "mme" not in text.split()  # lmms-eval's own tasks are not ours
    assert {"nleye_triplet", "mucr_c2e", "dve_cls", "sherlock_comparison", "abductive"} <= catalog.names()


@pytest.mark.parametrize(
    ("text", "description"),
    [
        (
            "# Classification Task (Eq. 1): does the update weaken it? Prompt: Figure 5.\ninclude: x\n",
            "Classification Task (Eq. 1): does the update weaken it?",
        ),
        ("\n# Every NL-Eye task. No aggregate_metric_list: not comparable.\n", "Every NL-Eye task."),
        ("task: x\n# a comment after content\n", ""),
        (  # a sentence over two lines is whole, not cut at the line's end
            "# Sherlock localization, one request per image: regions x inferences at once (the full\n"
            "# protocol), val. Image-aware models: the pairs task.\ninclude: x\n",
            "Sherlock localization, one request per image: regions x inferences at once (the full protocol), val.",
        ),
    ],
)
def test_description_is_the_first_sentence_of_the_leading_comment(text, description):
    assert catalog.leading_comment(text) == description


def test_no_task_description_is_cut_mid_phrase():
    """Each description ends a sentence, with its brackets closed."""
    for entry in catalog.entries():
        text = entry.description
        assert text.endswith((".", "?", "!", ")")) and text.count("(") == text.count(")"), (entry.name, text)


# ---------------------------------------------------------------- checks before lmms-eval starts


def test_misspelt_task_gets_the_closest_names_before_lmms_eval_starts(capsys):
    assert cli.main(["--model", "dumb_pixel", "--tasks", "nleye_triplet,nleye_triplt"]) == 2
    error = capsys.readouterr().err
    assert "unknown task 'nleye_triplt' (did you mean 'nleye_triplet'" in error and "abductive-eval tasks" in error


def test_task_check_passes_ours_lmms_evals_wildcards_and_listings():
    cli.check_tasks("nleye_triplet,abductive_lite", None)  # ours
    cli.check_tasks("mme,mmmu_val", None)  # built-in: left to lmms-eval
    cli.check_tasks("nleye_*", None)
    cli.check_tasks("list", None)
    with pytest.raises(cli.UsageError, match=r"'mmmu_vall' \(did you mean 'mmmu_val'"):
        cli.check_tasks("mmmu_vall", None)


@pytest.mark.parametrize(
    ("tasks", "include_path", "ours_alone"),
    [
        ("nleye,mucr_c2e,abductive", None, True),  # tasks and groups of ours
        ("nleye_triplet,mme", None, False),  # one of lmms-eval's
        ("nleye_triplet", "/some/folder", False),  # an include path may hold any name
        ("list", None, False),
        (None, None, False),
    ],
)
def test_only_a_command_of_our_tasks_alone_skips_lmms_evals_task_index(tasks, include_path, ours_alone):
    from argparse import Namespace

    assert cli.names_only_ours(Namespace(tasks=tasks, include_path=include_path)) is ours_alone


def test_task_check_reads_the_include_path(tmp_path):
    (tmp_path / "mine.yaml").write_text("task: my_own_task\n")
    cli.check_tasks("my_own_task", str(tmp_path))
    with pytest.raises(cli.UsageError):
        cli.check_tasks("my_own_task", None)


@pytest.mark.skipif(importlib.util.find_spec("llava") is not None, reason="the LLaVA package is installed here")
def test_llava_next_backend_without_its_package_gets_a_one_line_hint(capsys):
    assert cli.main(["--model", "llava_onevision", "--tasks", "nleye_triplet"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert (
        "needs the LLaVA-NeXT code base" in line
        and "--model llava_hf --model_args pretrained=llava-hf/llava-onevision-qwen2-7b-ov-hf" in line
    )


def test_misspelt_model_gets_the_closest_names(capsys):
    assert cli.main(["--model", "dumb_pixl", "--tasks", "nleye_triplet"]) == 2
    assert "unknown model 'dumb_pixl' (did you mean 'dumb_pixel'" in capsys.readouterr().err


def test_model_args_typo_names_the_argument_not_the_class(capsys):
    assert cli.main(["--model", "random_baseline", "--model_args", "sed=3", "--tasks", "nleye_triplet"]) == 2
    error = capsys.readouterr().err
    assert (
        error.strip()
        == "abductive-eval: random_baseline: unknown --model_args entry 'sed' (did you mean 'seed'?); accepted: seed"
    )
    assert cli.main(["--model", "dumb_pixel", "--model_args", "batch_size=4", "--tasks", "nleye_triplet"]) == 2
    assert "'batch_size' comes from lmms-eval's --batch_size option" in capsys.readouterr().err
    assert (
        cli.main(["--model", "dumb_pixel", "--model_args", "device=cpu", "--device", "cpu", "--tasks", "nleye_triplet"])
        == 2
    )
    assert "'device' comes from lmms-eval's --device option" in capsys.readouterr().err


LLAVA_HF_TAKES = (
    "device_map, pretrained, revision, dtype, trust_remote_code, attn_implementation, chat_template, use_cache, "
    "max_frames_num"
)


@pytest.mark.parametrize("form", [[], ["--force_simple"]], ids=["chat", "simple"])
def test_an_entry_llava_hf_does_not_take_is_one_line_naming_it_and_what_it_takes(form, capsys):
    """lmms-eval's llava_hf asserts it got no other keyword: an entry it does not take (a token meant for the hub) was
    its traceback once the evaluation started (with a local checkpoint: "cannot load" it); now one line before
    lmms-eval is imported, as our models say it."""
    model_args = "pretrained=llava-hf/llava-1.5-7b-hf,hf_token=hf-abcdef123456"
    assert cli.main(["--model", "llava_hf", "--model_args", model_args, "--tasks", "nleye_triplet", *form]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == f"abductive-eval: llava_hf: unknown --model_args entry 'hf_token'; accepted: {LLAVA_HF_TAKES}"


@pytest.mark.e2e
@pytest.mark.parametrize("refusal", ["assert", "signature"])
def test_an_entry_an_lmms_eval_backend_refuses_when_built_is_one_line(refusal, tmp_path, monkeypatch, capfd):
    """lmms-eval's own backends refuse an entry they do not take when lmms-eval builds them, after seconds: most by
    ``assert kwargs == {}``, others by their signature (Python's TypeError). That was lmms-eval's traceback; now
    lmms-eval's error line and ours, naming the model, the entry and what it takes (the traceback with DEBUG)."""
    import lmms_eval.models
    from lmms_eval.models.simple.dummy import Dummy

    class Asserting(Dummy):
        def __init__(self, response: str = "A", **kwargs) -> None:
            assert kwargs == {}, f"Unexpected kwargs: {kwargs}"
            super().__init__(response=response)

    class Signed(Dummy):
        def __init__(self, response: str = "A") -> None:
            super().__init__(response=response)

    built = {"assert": Asserting, "signature": Signed}[refusal]
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    known = lmms_eval.models.get_model
    monkeypatch.setattr(lmms_eval.models, "get_model", lambda name, *rest: built if name == "dummy" else known(name))
    argv = ["--model", "dummy", "--model_args", "response=1,hf_token=hf-abcdef123456", "--tasks", "nleye_triplet"]
    assert cli.main([*argv, "--limit", "1", "--output_path", str(tmp_path / "out")]) == 1
    captured = capfd.readouterr()
    said = captured.out + captured.err
    assert "Traceback" not in said and "hf-abcdef123456" not in said
    takes = "response" if refusal == "signature" else "response, read_bytes"  # Asserting's **kwargs reach Dummy's
    assert f"abductive-eval: evaluation failed: dummy: unknown --model_args entry 'hf_token'; accepted: {takes}" in said


def test_our_models_check_their_arguments_when_lmms_eval_builds_them():
    from abductive_tasks.models.baselines import RandomBaseline
    from abductive_tasks.models.clip_scorer import ClipScorer
    from abductive_tasks.models.llava_scorer import LlavaHfScorer

    assert (
        RandomBaseline.create_from_arg_string("seed=3", {"batch_size": 1, "max_batch_size": None, "device": None}).seed
        == 3
    )
    assert (
        RandomBaseline.create_from_arg_string("device=cpu", {"batch_size": 1, "device": None}).seed == 0
    )  # --device not given: no clash
    with pytest.raises(ModelArgumentError) as raised:
        RandomBaseline.create_from_arg_string("seed=3,tempreature=0", {"batch_size": 1, "device": None})
    assert str(raised.value) == "random_baseline: unknown --model_args entry 'tempreature'; accepted: seed"
    assert "RandomBaseline" not in str(raised.value)
    assert accepted_arguments(ClipScorer)[:3] == ["pretrained", "crops", "text_prefix"]
    scorer_arguments = accepted_arguments(LlavaHfScorer)  # its own, then llava_hf's through **kwargs
    assert scorer_arguments[0] == "score" and {"pretrained", "device_map", "dtype"} <= set(scorer_arguments)
    with pytest.raises(
        ModelArgumentError,
        match=r"llava_hf_scorer: unknown --model_args entry 'pretraind' \(did you mean 'pretrained'\?\)",
    ):
        check("llava_hf_scorer", LlavaHfScorer, ["pretraind"])


def test_refusals_answer_before_lmms_eval_or_torch_is_imported(data_copy, tmp_path):
    """Mistakes that once waited for lmms-eval's import and task index (seconds) are refused from the command line,
    the models' source and our YAML alone: one line each, exit 2 (bad data: 1). utils/bench_cli.py times them."""
    next((data_copy / "nleye").glob("*.csv")).write_text("x\n1\n", encoding="utf-8")
    cases = [
        (["--model", "dumb_pixel", "--model_args", "sed=1"], "dumb_pixel: unknown --model_args entry 'sed'"),
        (["--model", "llava_hf", "--model_args", "hf_token=hf-123"], "llava_hf: unknown --model_args entry 'hf_token'"),
        (["--model", "dumb_pixel", "--model_args", "seed"], "--model_args entry 'seed' has no value"),
        (["--model", "dumb_pixel", "--model_args", "batch_size=2"], "'batch_size' comes from lmms-eval's"),
        (["--model", "llava", "--model_args", "pretrained=/no/such/llava"], "pretrained=/no/such/llava: no such"),
        (["--model", "dumb_pixel", "--limit", "abc"], "argument --limit: invalid float value: 'abc'"),
        (["--model", "dumb_pixel", "--cache_requests", "yes"], "argument --cache_requests: invalid choice: 'yes'"),
        (["--model", "llava_hf", "--device", "cuda:0"], "--device cuda:0: no GPU here; use cpu there"),
        (["--model", "llava_hf", "--model_args", "device_map=cuda"], "--model_args device_map=cuda: no GPU here"),
    ]
    code = (
        "import json, os, sys\n"
        "from abductive_tasks import cli\n"
        "from abductive_tasks.models import devices\n"
        "devices.cuda_unavailable = lambda: 'no GPU here'\n"
        f"cases = {[arguments + ['--tasks', 'nleye_triplet'] for arguments, _ in cases]!r}\n"
        "codes = [cli.main(arguments) for arguments in cases]\n"
        f"os.environ['ABDUCTIVE_DATA'] = {str(data_copy)!r}\n"
        "codes.append(cli.main(['--model', 'dumb_pixel', '--tasks', 'nleye_triplet']))\n"
        f"heavy = sorted(name for name in sys.modules if name.split('.')[0] in {HEAVY[:2]!r})\n"
        "print(json.dumps({'codes': codes, 'heavy': heavy}))\n"
    )
    completed = run_in_fresh_python(code)
    outcome = json.loads(completed.stdout.splitlines()[-1])
    assert outcome == {"codes": [2] * len(cases) + [1], "heavy": []}
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == len(cases) + 2  # bad data: the problem and the fix
    for line, (_, expected) in zip(lines, cases, strict=False):
        assert line.startswith("abductive-eval: ") and expected in line
    assert "missing column" in lines[-2] and "ABDUCTIVE_DATA=sample" in lines[-1]


def test_arguments_read_from_source_are_those_lmms_eval_builds_with():
    """The quick check reads each of our models' arguments from the source of the class and its bases (lmms-eval's
    included, through **kwargs): the same names, in the same order, as the classes give when imported."""
    from importlib import import_module

    from abductive_tasks.models.arguments import CheckedArguments, declared_arguments

    for model, paths in lmms_source.own_model_classes().items():
        for path in paths.values():
            module, _, name = path.rpartition(".")
            cls = getattr(import_module(module), name)
            assert declared_arguments(path) == (accepted_arguments(cls), issubclass(cls, CheckedArguments)), model
    assert set(lmms_source.own_model_classes()) >= {"dumb_pixel", "random_baseline", "llava", "llava_hf"}


@pytest.mark.parametrize(
    "text", ["", "a=1,b=2", " a = 1 , b=x ", 'limit={"image":4,"video":0},b=2', "s='x,y',t=[1,2]", "a=1,,b"]
)
def test_model_args_split_as_lmms_eval_splits_them(text):
    from lmms_eval.utils import _smart_comma_split

    assert lmms_source.model_arg_entries(text) == (_smart_comma_split(text.strip()) if text.strip() else [])


def test_option_types_and_choices_read_from_source_are_lmms_evals(monkeypatch):
    import argparse

    import lmms_eval.__main__ as lmms_main

    built: list[argparse.ArgumentParser] = []
    parse = argparse.ArgumentParser.parse_args
    monkeypatch.setattr(
        argparse.ArgumentParser, "parse_args", lambda self, *a, **k: built.append(self) or parse(self, [])
    )
    lmms_main.parse_eval_args()
    expected = {
        option: (
            action.type if action.type in (int, float) else None,
            tuple(action.choices) if action.choices else None,
        )
        for action in built[0]._actions
        for option in action.option_strings
        if action.type in (int, float) or action.choices
    }
    assert lmms_source.quick_eval_option_values() == expected and expected["--limit"] == (float, None)


def test_cuda_is_refused_only_where_it_cannot_work(tmp_path, monkeypatch):
    from abductive_tasks.models.devices import cuda_unavailable, torch_build

    assert torch_build() is not None  # read from torch's version.py without importing torch
    monkeypatch.setattr(sys, "platform", "linux")
    assert cuda_unavailable((None, None), tmp_path, {}) == "the installed torch is a CPU-only build"
    assert "no NVIDIA GPU driver" in cuda_unavailable(("12.8", None), tmp_path, {})
    assert "no ROCm GPU driver" in cuda_unavailable((None, "6.2"), tmp_path, {})
    assert "hides every GPU" in cuda_unavailable(("12.8", None), tmp_path, {"CUDA_VISIBLE_DEVICES": ""})
    for device in ("nvidiactl", "dxg"):  # a driver's device file (WSL 2: /dev/dxg): CUDA may work, nothing said
        (tmp_path / device).touch()
        assert cuda_unavailable(("12.8", None), tmp_path, {"CUDA_VISIBLE_DEVICES": "0"}) is None
        (tmp_path / device).unlink()
    (tmp_path / "kfd").touch()
    assert cuda_unavailable((None, "6.2"), tmp_path, {}) is None


# ---------------------------------------------------------------- output folders


def test_model_name_and_folder():
    assert layout.model_name("dumb_pixel", {}) == "dumb_pixel"
    assert (
        layout.model_folder("dumb_pixel", {}) == "dumb_pixel-bbab07ed"
    )  # pinned: a changed digest moves every user's results
    arguments = {"pretrained": "llava-hf/llava-1.5-7b-hf", "device_map": "cpu"}
    assert layout.model_name("llava_hf", arguments) == "llava-hf/llava-1.5-7b-hf"
    folder = layout.model_folder("llava_hf", arguments)
    assert re.fullmatch(r"llava-hf__llava-1\.5-7b-hf-[0-9a-f]{8}", folder)
    assert layout.model_folder("llava_hf", dict(reversed(arguments.items()))) == folder  # order-insensitive
    assert layout.model_folder("llava_hf", {**arguments, "device_map": "cuda"}) != folder  # another configuration
    assert layout.model_folder("vllm", arguments) != folder  # another backend
    assert layout.model_folder("random_baseline", {"seed": 1}) != layout.model_folder("random_baseline", {"seed": 2})
    assert layout.model_folder("llava_hf", {"pretrained": "/models/ my llava v2/"}).startswith(
        "models___my_llava_v2-"
    )  # last two parts, path-safe
    assert layout.model_folder("llava_hf", {"pretrained": "../.."}).startswith("llava_hf-")  # nothing left: the backend
    assert "/" not in layout.model_folder("x", {"pretrained": "../../etc"})


def test_secrets_never_reach_the_folder_name():
    with_key = layout.model_folder("openai", {"model_version": "gpt-4o", "api_key": "sk-SECRET-1"})
    rotated = layout.model_folder("openai", {"model_version": "gpt-4o", "api_key": "sk-SECRET-2"})
    assert with_key == rotated and with_key.startswith("gpt-4o-") and "SECRET" not in with_key
    assert layout.model_name("openai", {"api_key": "sk-SECRET"}) == "openai"
    assert layout.model_name("x", {"model_key": "sk-SECRET"}) == "x"


def test_url_credentials_never_reach_the_model_name_or_folder():
    """``pretrained=https://user:pass@host/model`` put ``user_pass_host`` into the folder name."""
    given = {"pretrained": "https://user:pw-SECRET-1@models.example/org/m"}
    rotated = {"pretrained": "https://user:pw-SECRET-2@models.example/org/m"}
    assert layout.model_name("llava_hf", given) == "https://models.example/org/m"
    assert layout.model_folder("llava_hf", given) == layout.model_folder("llava_hf", rotated)
    assert "SECRET" not in layout.model_folder("llava_hf", given)


# ---------------------------------------------------------------- real runs


@pytest.mark.e2e
def test_a_secret_in_model_args_reaches_neither_the_console_nor_a_file(tmp_path):
    """lmms-eval 0.7.3 prints a run's model_args as given at its end; the results file it redacts itself."""
    output = tmp_path / "secret"
    secrets = ("sk-SECRET-7f3a9c", "hf_abcdefghijklmnopqrstuvwx")
    run = abductive_eval(
        [
            "--model",
            "dummy",
            "--model_args",
            f"response=1,api_key={secrets[0]},hf_token={secrets[1]}",
            "--tasks",
            "nleye_triplet",
            "--limit",
            "2",
            "--log_samples",
        ],
        output,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "dummy (response=1,api_key=[REDACTED],hf_token=[REDACTED]), gen_kwargs:" in run.stdout
    written = [path for path in output.rglob("*") if path.is_file()]
    assert len(written) == 2  # the results and the samples
    leaks = [secret for secret in secrets for text in (run.stdout, run.stderr) if secret in text]
    leaks += [path.name for path in written for secret in secrets if secret in path.read_text()]
    assert leaks == []


@pytest.mark.e2e
def test_two_models_two_folders_model_name_and_one_summary(tmp_path):
    output = tmp_path / "demo"
    first = abductive_eval(["--model", "dumb_pixel", "--tasks", "nleye_triplet"], output)
    second = abductive_eval(
        ["--model", "random_baseline", "--model_args", "seed=1", "--tasks", "nleye_triplet"], output
    )
    assert first.returncode == 0 and second.returncode == 0, first.stderr[-3000:] + second.stderr[-3000:]
    folders = sorted(path.name for path in output.iterdir())
    assert folders == ["dumb_pixel-bbab07ed", layout.model_folder("random_baseline", {"seed": 1})]
    (path,) = (output / "dumb_pixel-bbab07ed").glob("*_results.json")
    written = json.loads(path.read_text())
    assert written["model_name"] == "dumb_pixel"
    interval = written["results"]["nleye_triplet"]["triplet_ci95,none"]["consistency_acc"]
    shown = [" ".join(line.split()) for line in first.stdout.splitlines()]
    assert f"abductive-eval summary: dumb_pixel, results in {output / 'dumb_pixel-bbab07ed'}" in shown
    row = (
        f"| nleye_triplet | consistency_acc | 58.3 | [{100 * interval['lower']:.1f}, {100 * interval['upper']:.1f}] "
        "| 25.0 | 12/12 items | 0 | 0 |"
    )
    assert row in shown  # 7/12 in percent, chance 1/4 (two orders both right at random)
    assert any(line.startswith("nleye_triplet consistency_by_category: cultural 50.0") for line in shown)
    assert "{'cultural'" not in first.stdout  # lmms-eval's table, which prints breakdown dicts in full, is left out
    # The table stays narrow; its heading line names the output folder, whose length is the user's (or pytest's).
    table = first.stdout[first.stdout.index("abductive-eval summary") :].splitlines()[1:]
    assert max(len(line) for line in table) <= 140


@pytest.mark.e2e
def test_plain_lmms_eval_reports_a_model_args_typo_by_name(tmp_path):
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample"}
    lmms_eval = str(Path(sys.executable).with_name("lmms-eval"))
    completed = subprocess.run(
        [lmms_eval, "--model", "dumb_pixel", "--model_args", "sed=1", "--tasks", "nleye_triplet",
         "--output_path", str(tmp_path / "out")],
        capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    log = completed.stdout + completed.stderr
    assert "dumb_pixel: unknown --model_args entry 'sed' (did you mean 'seed'?); accepted: seed" in log
    assert "unexpected keyword argument" not in log and "DumbPixel.__init__" not in log


@pytest.mark.e2e
@pytest.mark.parametrize("benchmark", ["nleye", "dve"])
def test_bad_data_is_one_short_message_with_the_fix_and_exit_1(data_copy, tmp_path, benchmark):
    csv = next((data_copy / benchmark).glob("*.csv"))
    csv.write_text("x\n1\n", encoding="utf-8")
    task = {"nleye": "nleye_triplet", "dve": "dve_cls"}[benchmark]
    completed = abductive_eval(["--model", "dumb_pixel", "--tasks", task], tmp_path / "out", data=str(data_copy))
    assert completed.returncode == 1
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"abductive-eval: {csv}") and "missing column" in lines[0]
    assert "ABDUCTIVE_DATA=sample" in lines[1] and f"{benchmark}/README.md" in lines[1]
    assert "Traceback" not in completed.stdout + completed.stderr
    debug = abductive_eval(
        ["--model", "dumb_pixel", "--tasks", task, "--verbosity", "DEBUG"], tmp_path / "debug", data=str(data_copy)
    )
    assert "Traceback" in debug.stdout + debug.stderr and debug.returncode == 1


def test_an_unreachable_hub_model_or_dataset_is_one_line_naming_it(tmp_path):
    """Offline, a hub model that is not in the local cache is refused before lmms-eval loads anything, in one line;
    so is the official data of a benchmark when ABDUCTIVE_DATA is unset."""
    model = abductive_eval(
        ["--model", "llava_hf", "--model_args", "pretrained=llava-hf/llava-1.5-7b-hf", "--tasks", "nleye_triplet"],
        tmp_path / "model",
    )
    assert model.returncode == 1 and model.stderr == (
        "abductive-eval: cannot download the model llava-hf/llava-1.5-7b-hf (pretrained=) from the Hugging Face hub "
        "(HF_HUB_OFFLINE is set) and it is not in the local cache. Offline? Pass a local folder: "
        "--model_args pretrained=/path/to/model\n"
    )
    data = abductive_eval(["--model", "dumb_pixel", "--tasks", "nleye_triplet"], tmp_path / "data", data="")
    assert data.returncode == 1 and len(data.stderr.splitlines()) == 1
    assert data.stderr.startswith(
        "abductive-eval: cannot download the official 'nleye' data (hub dataset MorVentura/NL-Eye: "
    )
    assert data.stderr.rstrip().endswith(
        "Offline? ABDUCTIVE_DATA=<folder holding nleye/>, or ABDUCTIVE_DATA=sample for the embedded sample."
    )


@pytest.mark.parametrize(
    ("tasks", "extra", "environment", "threads"),
    [
        ("mucr_exp_gold", [], {}, "32"),  # judged: lmms-eval's result threads, twice the judge concurrency
        ("mucr,dve_cls", [], {"ABDUCTIVE_JUDGE_CONCURRENCY": "8"}, "16"),  # a group holding a judged task
        ("nleye_triplet_text,mucr_c2e", [], {}, None),  # nothing judged
        ("nleye_triplet_text", [], {"ABDUCTIVE_JUDGE_EXTRACT": "1"}, "32"),  # the judge may read its answers
        ("nleye_triplet", ["--process-docs-parallel", "2"], {}, None),  # the user's value stands
        ("nleye_triplet", ["--process_docs=2"], {}, None),  # argparse's unique prefix too
        ("nleye_triplet", [], {"ABDUCTIVE_JUDGE": "off"}, None),  # no judge configured: nothing asked
        ("nleye_triplet", [], {"ABDUCTIVE_JUDGE_CONCURRENCY": "2"}, None),  # lmms-eval's 4 threads are enough
    ],
)
def test_judged_tasks_get_as_many_result_threads_as_judge_requests(monkeypatch, tasks, extra, environment, threads):
    monkeypatch.setenv("ABDUCTIVE_JUDGE", "on")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_API_URL", "http://127.0.0.1:9/v1")  # never asked: building the judge sends nothing
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    argv = ["--model", "dummy", "--tasks", tasks, *extra]
    expected = argv if threads is None else [*argv, "--process_docs_parallel", threads]
    assert cli.with_judge_threads(argv, tasks) == expected


def test_a_damaged_picks_file_is_named_without_the_data_layout_hint(tmp_path, monkeypatch):
    """A damaged samples file under ABDUCTIVE_MUCR_PICKS is an earlier run's output, not the data: the hint to fix the
    data's layout (or to use the sample) does not apply."""
    picks = tmp_path / "picks"
    picks.mkdir()
    for task in ("mucr_c2e", "mucr_cue"):
        (picks / f"20260101_000000_samples_{task}.jsonl").write_text('{"doc_id": 0}\n')
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(picks))
    with pytest.raises(cli.DataProblem) as problem:
        cli.check_data("mucr_exp")
    message = str(problem.value)
    assert str(picks) in message.splitlines()[0] and "Fix the data" not in message and "README" not in message


def test_the_data_hint_names_a_layout_file_that_exists(data_copy, monkeypatch):
    csv = next((data_copy / "nleye").glob("*.csv"))
    csv.write_text("x\n1\n", encoding="utf-8")
    monkeypatch.setenv("ABDUCTIVE_DATA", str(data_copy))
    with pytest.raises(cli.DataProblem) as problem:
        cli.check_data("nleye_triplet")
    (layout,) = re.findall(r"section Data of (\S+?)\)", str(problem.value))
    assert Path(layout).is_file() and "## Data" in Path(layout).read_text()


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        (["--cache_requests", "true"], "--cache_requests true: not with our tasks (nleye_triplet): lmms-eval's"),
        (["--cache_req=refresh"], "--cache_requests refresh: not with our tasks"),
        (["--config", "lmms.yaml"], "--config: not with our tasks (nleye_triplet): its env (ABDUCTIVE_DATA ...)"),
        (["--conf=lmms.yaml"], "--config: not with our tasks"),
    ],
)
def test_the_request_cache_and_a_config_file_are_refused_with_our_tasks(extra, refused, capsys):
    """lmms-eval keys its request cache by task name only: changed data or a stage's new output would be prompted
    with the old text. A --config file's env (ABDUCTIVE_DATA ...) is set after our checks and stages ran. One line,
    exit 2, before lmms-eval starts; abbreviations and `=` forms too."""
    assert cli.main(["--model", "dummy", "--tasks", "nleye_triplet", *extra]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"abductive-eval: {refused}") and len(error.splitlines()) == 1, error


def test_the_request_cache_and_a_config_file_are_lmms_evals_own_without_our_tasks(tmp_path):
    """Only a run of our tasks is refused: `--cache_requests delete` only deletes; lmms-eval's tasks keep both options;
    tasks named by the config file count when --tasks is not given."""
    config = tmp_path / "lmms.yaml"
    config.write_text("model: dummy\ntasks: mme\n")
    check = cli.check_request_cache_and_config
    check(["--model", "dummy", "--tasks", "nleye_triplet", "--cache_requests", "delete"])
    check(["--model", "dummy", "--tasks", "mme", "--cache_requests", "true", "--config", str(config)])
    check(["--config", str(config), "--cache_requests", "true"])
    config.write_text("- {model: dummy, tasks: mme}\n- {model: dummy, tasks: 'mme,abductive_lite'}\n")
    with pytest.raises(cli.UsageError, match=r"^--config: not with our tasks \(abductive_lite\)"):
        check(["--config", str(config)])
    with pytest.raises(cli.UsageError, match=r"^--cache_requests true: not with our tasks \(nleye_\*\)"):
        check(["--model", "dummy", "--task", "nleye_*", "--cache_requests", "true"])
