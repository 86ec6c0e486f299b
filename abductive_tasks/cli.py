"""``abductive-eval``: lmms-eval's ``eval`` with this package's tasks added, failing loudly.

``abductive-eval <lmms-eval eval arguments>`` runs the evaluation in process (our tasks are
registered by :mod:`abductive_tasks.compat`) and, unlike lmms-eval 0.7.3, exits 1 when the
evaluation failed. Before lmms-eval starts it checks the options, task and model names (with a close
match for a typo), that ``--output_path`` is writable and the data folder is there (all before lmms-eval is
imported), the ``--model_args`` of our own models, and that a backend needing the original LLaVA package has it.
Each run's results go to ``<output_path>/<model folder>/``
(:mod:`abductive_tasks.runs.layout`); at the end it prints one summary per run
(:mod:`abductive_tasks.reports.report`) in place of lmms-eval's table for our tasks (lmms-eval prints
dict metrics in full, hundreds of characters wide; every value is in the results JSON).

``--help``, ``tasks`` and ``--tasks-path`` import neither lmms-eval nor torch, so they answer at once.
Subcommands come from :data:`SUBCOMMANDS`: first argument -> (module, function taking the remaining arguments).
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import os
import re
import sys
import tempfile
from collections.abc import Mapping
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

SUBCOMMANDS = {
    "batch": ("abductive_tasks.runs.batch", "main"),
    "serve": ("abductive_tasks.runs.batch", "serve_main"),
    "leaderboard": ("abductive_tasks.reports.leaderboard", "main"),
    "show": ("abductive_tasks.reports.browse", "show_main"),
    "browse": ("abductive_tasks.reports.browse", "browse_main"),
    "diff": ("abductive_tasks.reports.diff", "main"),
    "export-sherlock": ("abductive_tasks.sherlock.export", "main"),
    "tasks": ("abductive_tasks.runs.catalog", "main"),
    "power": ("abductive_tasks.reports.lmms_tools", "power_main"),
    "ui": ("abductive_tasks.reports.lmms_tools", "ui_main"),
}
SUBCOMMAND_HELP = {
    "tasks": "list our tasks and groups, one line each",
    "batch": "SPEC [--model NAME] [--print-commands]: many models from a leaderboard spec, resumable",
    "serve": "MODEL --tasks ... [--tensor-parallel-size N]: one model through `vllm serve`, stopped at the end",
    "leaderboard": "RESULTS_DIR: CSV, Markdown, HTML and PNG plots of finished runs",
    "show": "RUN: a past run's summary again (RUN: its results JSON or folder)",
    "browse": "RUN [-o page.html] [--self-contained]: every document of a run (--log_samples) on one HTML page",
    "diff": "RUN_A RUN_B [-o page.html] [--self-contained]: the documents where two runs disagree, both replies",
    "export-sherlock": (
        "RUN_DIR [--out DIR] [--split test|val]: the Sherlock leaderboard submission from a run's scores"
    ),
    "power": "--tasks T1,T2 [lmms-eval power options]: lmms-eval's power analysis, our tasks' sizes included",
    "ui": "[RESULTS_DIR] [--port N]: lmms-eval's web UI with our tasks, serving one folder's runs (needs pip install "
    "'abductive-tasks[ui]')",
}
BASELINES = {
    "random_baseline": "a uniformly random option or 1-10 score, seeded per document (--model_args seed=N)",
    "dumb_pixel": "NL-Eye §4.3: the candidate image whose upper-left pixel is brightest",
}
# lmms-eval backends that import the original LLaVA code base (package `llava`) and fail with a
# NameError without it; the Hugging Face backend `llava_hf` runs the llava-hf checkpoints. (`llava` itself is
# ours: abductive_tasks.models.llava, on transformers' Llava classes.)
NEEDS_LLAVA_PACKAGE = frozenset({"llava_onevision", "llava_vid", "llava_onevision_moviechat"})
LLAVA_HINT = (
    "lmms-eval's '{model}' backend needs the LLaVA-NeXT code base (package llava), which does not run on the "
    "transformers lmms-eval 0.7.3 needs; use the Hugging Face backend: --model llava_hf --model_args "
    "pretrained=llava-hf/llava-onevision-qwen2-7b-ov-hf (or --model llava for LLaVA-1.5/1.6)"
)
DEVICE_KEYS = ("device", "device_map")  # --model_args entries placing a model on a device
LIST_TASKS = {"list", "list_groups", "list_subtasks", "list_tags"}  # lmms-eval's own listings, passed through
EXAMPLE = "ABDUCTIVE_DATA=sample abductive-eval --model dumb_pixel --tasks nleye --output_path results/demo"


class UsageError(Exception):
    """A mistake in the command line, found before lmms-eval starts."""


class HubUnreachable(Exception):
    """A hub model that can be neither found locally nor downloaded, found before lmms-eval starts."""


class DataProblem(Exception):
    """Data our tasks cannot use, found before lmms-eval starts (the message names file, row and field, and the fix)."""


def help_text() -> str:
    """``abductive-eval --help`` (built without lmms-eval)."""
    from abductive_tasks.settings import help_table

    described = {name: SUBCOMMAND_HELP.get(name, f"see abductive-eval {name} --help") for name in SUBCOMMANDS}
    described["--tasks-path"] = 'the folder of our task YAML: lmms-eval --include_path "$(abductive-eval --tasks-path)"'
    width = max(map(len, described))
    subcommands = "\n".join(f"  abductive-eval {name:<{width}}  {text}" for name, text in described.items())
    baselines = "\n".join(f"  {name:<16} {text}" for name, text in BASELINES.items())
    return f"""usage: abductive-eval --model MODEL [--model_args K=V,...] --tasks TASK[,TASK...] [--output_path DIR] \
[lmms-eval eval options]
       abductive-eval SUBCOMMAND ...

lmms-eval's `eval` with the abductive-tasks benchmarks (NL-Eye, MuCR, DVE, Sherlock) added, exiting 1
when the evaluation failed. Results go to DIR/<model>-<hash of its args>/; a summary ends each run
(headline metrics in percent; the results JSON keeps each paper's scale).

Example (offline, CPU, the embedded sample data):
  {EXAMPLE}

Subcommands:
{subcommands}

Baseline models (no weights; they answer every task):
{baselines}
Any lmms-eval backend works too, e.g. --model llava_hf --model_args pretrained=llava-hf/llava-1.5-7b-hf

Environment (ABDUCTIVE_DATA selects the data of every benchmark):
{help_table()}

Every lmms-eval eval option: lmms-eval eval --help"""


# ---------------------------------------------------------------- checks before lmms-eval starts


def option_value(argv: list[str], option: str) -> str | None:
    """The value given to ``option`` (``--x v`` or ``--x=v``; the last one wins, as in argparse)."""
    value = None
    for index, argument in enumerate(argv):
        if argument == option and index + 1 < len(argv):
            value = argv[index + 1]
        elif argument.startswith(option + "="):
            value = argument.split("=", 1)[1]
    return value


def did_you_mean(name: str, candidates: set[str] | list[str]) -> str:
    close = difflib.get_close_matches(name, sorted(candidates), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(match) for match in close)}?)" if close else ""


def _task_yaml_text(folders: list[Path]) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for folder in folders
        if folder.is_dir()
        for path in folder.rglob("*.yaml")
    )


def check_tasks(value: str, include_path: str | None) -> None:
    """Refuse a task name that is neither ours nor in any task YAML lmms-eval will index, suggesting close names.

    Names of ours are known at once; any other name is looked up as a word in the built-in and
    ``--include_path`` YAML text (a name found there is left to lmms-eval: no false refusals).
    """
    from abductive_tasks import lmms_source
    from abductive_tasks.runs import catalog

    if value in LIST_TASKS:
        return
    ours = catalog.names()
    unknown = [
        name for name in value.split(",") if name and name not in ours and "*" not in name and not Path(name).exists()
    ]
    if not unknown:
        return
    folders = [
        folder for folder in (lmms_source.builtin_task_folder(), Path(include_path) if include_path else None) if folder
    ]
    text = _task_yaml_text(folders)
    missing = [name for name in unknown if not re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", text)]
    if missing:
        known = ours | set(re.findall(r"^\s*(?:task|group|tag)\s*:\s*[\"']?([\w.-]+)[\"']?\s*$", text, re.MULTILINE))
        unknowns = "; ".join(f"'{name}'{did_you_mean(name, known)}" for name in missing)
        raise UsageError(
            f"unknown task {unknowns}. Our tasks: abductive-eval tasks; lmms-eval's: lmms-eval --tasks list"
        )


def check_options(argv: list[str]) -> None:
    """Refuse an option lmms-eval's ``eval`` does not know (argparse's unique prefixes are accepted), naming the
    closest ones: one line, before lmms-eval is imported (argparse would print its whole usage after seconds)."""
    from abductive_tasks import lmms_source

    known = lmms_source.quick_eval_options()
    if known is None:
        return
    for argument in argv:
        name = argument.split("=", 1)[0]
        if not name.startswith("--") or name == "--" or name in known:
            continue
        if sum(option.startswith(name) for option in known) == 1:
            continue
        raise UsageError(f"unknown option '{name}'{did_you_mean(name, known)}; every option: lmms-eval eval --help")


def check_option_values(argv: list[str]) -> None:
    """Refuse a value lmms-eval's ``eval`` would refuse by its type (``--limit abc``) or its choices, in argparse's
    words: one line, before lmms-eval is imported."""
    from abductive_tasks import lmms_source

    for option, (kind, choices) in lmms_source.quick_eval_option_values().items():
        value = option_value(argv, option)
        if value is None:
            continue
        if kind is not None:
            try:
                kind(value)
            except ValueError:
                raise UsageError(f"argument {option}: invalid {kind.__name__} value: {value!r}") from None
        if choices is not None and value not in choices:
            allowed = ", ".join(repr(choice) for choice in choices)
            raise UsageError(f"argument {option}: invalid choice: {value!r} (choose from {allowed})")


def check_devices(argv: list[str]) -> None:
    """Refuse ``--device cuda...`` (or ``device``/``device_map`` in ``--model_args``) on a machine where CUDA cannot
    work, in one line before anything is imported (lmms-eval would load the model first, then print a traceback)."""
    from abductive_tasks import lmms_source
    from abductive_tasks.models.devices import cuda_unavailable

    typed = [("--device", option_value(argv, "--device"))]
    for entry in lmms_source.model_arg_entries(option_value(argv, "--model_args") or ""):
        name, _, value = entry.partition("=")
        typed += [(f"--model_args {name.strip()}=", value.strip().strip("\"'"))] if name.strip() in DEVICE_KEYS else []
    wanted = [(where, value) for where, value in typed if value and value.lower().startswith("cuda")]
    if wanted and (why := cuda_unavailable()):
        where, value = wanted[0]
        shown = f"{where}{value}" if where.endswith("=") else f"{where} {value}"
        raise UsageError(
            f"{shown}: {why}; use cpu there, or leave the device out (the GPU when there is one, else the CPU)"
        )


def check_model_args_quickly(argv: list[str]) -> None:
    """``--model_args`` checked from the command line and the models' source, before lmms-eval is imported: every
    entry is ``name=value``; for our models, each name is one the model takes (as :func:`check_model` checks it
    after lmms-eval parsed the command line, which takes seconds). Where the source cannot tell, nothing is said."""
    from abductive_tasks import lmms_source
    from abductive_tasks.models.arguments import (
        FROM_LMMS_EVAL_OPTIONS,
        ModelArgumentError,
        check_names,
        declared_arguments,
    )

    model, text = option_value(argv, "--model"), option_value(argv, "--model_args") or ""
    entries = lmms_source.model_arg_entries(text)
    bare = [entry for entry in entries if "=" not in entry]
    if bare:
        raise UsageError(f"--model_args entry {bare[0]!r} has no value: write name=value, entries separated by commas")
    for entry in entries:
        name, _, value = (part.strip() for part in entry.partition("="))
        local = value.strip("\"'")
        if (
            name in HUB_MODEL_KEYS
            and local.startswith(("/", "./", "../", "~"))
            and not Path(local).expanduser().exists()
        ):
            raise UsageError(f"--model_args {name}={local}: no such file or folder (a hub model is named owner/name)")
    classes = lmms_source.own_model_classes() if lmms_source.quick_model_names() is not None else {}
    if not model or model not in classes or option_value(argv, "--config"):
        return
    paths = classes[model]
    path = paths.get("chat_class_path") if "--force_simple" not in argv else None
    declared = declared_arguments(path or paths.get("simple_class_path", ""))
    if declared is None or not declared[1]:
        return
    supplied = ["batch_size"] + [name for name, option in FROM_LMMS_EVAL_OPTIONS.items() if option_value(argv, option)]
    try:
        check_names(model, declared[0], [entry.split("=", 1)[0].strip() for entry in entries], supplied)
    except ModelArgumentError as error:
        raise UsageError(str(error)) from None


def check_output_path(output_path: str) -> None:
    """Refuse an ``--output_path`` where no results file can be written (lmms-eval 0.7.3 only logs a warning after
    the whole run and exits 0), before any model loads. Folders it makes to try are removed again: a run refused
    later leaves nothing behind."""
    folder = Path(output_path).expanduser()
    made = [path for path in (folder, *folder.parents) if not path.exists()]  # deepest first
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".abductive-write-check-"):
            pass
    except OSError as error:
        raise UsageError(
            f"cannot write results to --output_path {output_path} ({error.strerror or error}); pick a writable folder"
        ) from None
    finally:
        for path in made:
            with contextlib.suppress(OSError):
                path.rmdir()


def benchmark_folders(tasks: str) -> set[str]:
    """The task folders (benchmarks) our tasks among ``tasks`` read their data from; groups are expanded."""
    from abductive_tasks.runs import catalog

    by_name = {entry.name: entry for entry in catalog.entries()}
    folders: set[str] = set()
    pending, seen = [name for name in tasks.split(",") if name in by_name], set()
    while pending:
        entry = by_name[pending.pop()]
        if entry.name in seen:
            continue
        seen.add(entry.name)
        if entry.kind == "group":
            pending += [member for member in entry.members if member in by_name]
        else:
            folders.add(entry.folder)
    return folders


def check_data_folder(tasks: str) -> None:
    """With ``ABDUCTIVE_DATA`` a path, each benchmark's folder under it must exist: said at once, before the imports
    that take seconds (the loaders would say the same later)."""
    from abductive_tasks import settings
    from abductive_tasks.compat import tasks_path

    choice, variable = settings.data_source(), "ABDUCTIVE_DATA"
    if choice in ("", "sample"):
        return
    root = Path(choice).expanduser()
    if not root.is_dir():
        raise DataProblem(
            f"{variable}={choice}: no such folder. Set it to the folder holding <benchmark>/ (e.g. nleye/, mucr/), "
            f"or {variable}=sample for the embedded sample."
        )
    for folder in sorted(benchmark_folders(tasks)):
        if not (root / folder).is_dir():
            raise DataProblem(
                f"{variable}={choice}: no folder {root / folder} for benchmark '{folder}' (layout: section Data of "
                f"{tasks_path() / folder / 'README.md'}), or {variable}=sample for the embedded sample."
            )


def check_backend_package(model: str) -> None:
    if model in NEEDS_LLAVA_PACKAGE and importlib.util.find_spec("llava") is None:
        raise UsageError(LLAVA_HINT.format(model=model))


def check_model(model: str, model_args: object, force_simple: bool, supplied: list[str]) -> None:
    """Refuse an unknown ``--model`` (suggesting close names) and, for our models, a ``--model_args`` they do not take
    (``supplied``: the arguments lmms-eval passes from its own options)."""
    from abductive_tasks import compat
    from abductive_tasks.models.arguments import CheckedArguments, ModelArgumentError, check

    names = compat.model_names()
    if model not in names:
        raise UsageError(f"unknown model '{model}'{did_you_mean(model, names)}; every backend: lmms-eval models")
    module, _, name = compat.model_class_path(model, force_simple).rpartition(".")
    if not module.startswith("abductive_tasks."):
        return
    cls = getattr(import_module(module), name)
    arguments = model_args if isinstance(model_args, dict) else compat.parse_model_args(str(model_args or ""))
    try:
        if issubclass(cls, CheckedArguments):
            check(model, cls, arguments, supplied)
        if callable(getattr(cls, "preflight", None)):  # ours over lmms-eval's (llava_hf) have one too
            cls.preflight(arguments)
    except ModelArgumentError as error:
        raise UsageError(str(error)) from None


HUB_MODEL_KEYS = ("pretrained",)  # model_args naming Hugging Face weights (lmms-eval's HF backends, our scorers)


def check_hub_model(model_args: dict) -> None:
    """A hub model that is neither a local folder nor in the local cache must be downloadable: ask the hub once
    (no retries) before lmms-eval starts, so an unreachable hub is one line naming the model, not a traceback."""
    for key in HUB_MODEL_KEYS:
        repo = str(model_args.get(key) or "")
        if not repo or Path(repo).expanduser().exists() or repo.count("/") != 1 or repo.startswith(("/", ".", "~")):
            continue
        from huggingface_hub import constants, model_info, snapshot_download

        try:
            snapshot_download(repo_id=repo, local_files_only=True)
            continue
        except Exception:  # not (completely) in the local cache
            pass
        why = "HF_HUB_OFFLINE is set" if constants.HF_HUB_OFFLINE else ""
        if not why:
            try:
                model_info(repo, timeout=10)
                continue
            except Exception as error:  # unreachable, unknown repository, gated
                why = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise HubUnreachable(
            f"cannot download the model {repo} ({key}=) from the Hugging Face hub ({why}) and it is not in the "
            "local cache. Offline? Pass a local folder: --model_args pretrained=/path/to/model"
        )


# ---------------------------------------------------------------- the evaluation


def describe(error: BaseException) -> str:
    """A failure in the user's terms: our own errors by their message, others with their type."""
    from abductive_tasks.inputs.data import DataError
    from abductive_tasks.models.arguments import ModelArgumentError

    return str(error) if isinstance(error, DataError | ModelArgumentError) else f"{type(error).__name__}: {error}"


def check_data(tasks: str) -> None:
    """Load the data of our tasks among ``tasks`` before lmms-eval starts, so bad data is one short message
    naming file, row and field, with the fix (not lmms-eval's traceback). The loaders cache what they read,
    so lmms-eval's own ``process_docs`` reuses it: no file is read or decoded twice."""
    from abductive_tasks import compat
    from abductive_tasks.inputs.data import DataError, DataUnreachable
    from abductive_tasks.runs import catalog
    from abductive_tasks.runs.suite import Suite

    suite = Suite()
    ours = [name for name in tasks.split(",") if name in catalog.names()]
    for task in suite.expand(ours):
        module, _, name = str(catalog.config(suite.yaml_path(task))["process_docs"]).rpartition(".")
        process_docs = getattr(import_module(module), name)  # the hook lmms-eval's `!function` imports, not lmms-eval
        try:
            process_docs(None)
        except DataUnreachable as error:
            raise DataProblem(str(error)) from error
        except DataError as error:
            if not _names_the_data(str(error)):  # an earlier run's output (MuCR picks): the message says what to do
                raise DataProblem(f"{error}\nFull traceback: --verbosity DEBUG.") from error
            benchmark = suite.facts(task).benchmark
            layout = compat.tasks_path() / str(benchmark) / "README.md"
            raise DataProblem(
                f"{error}\nFix the data (expected layout: section Data of {layout}), "
                "or run on the embedded sample with ABDUCTIVE_DATA=sample. Full traceback: --verbosity DEBUG."
            ) from error


def _names_the_data(message: str) -> bool:
    """Whether a loader's error is about the data, not about an earlier run's output that a task reads (the samples
    under ``ABDUCTIVE_MUCR_PICKS``), which no data layout fixes."""
    from abductive_tasks import settings

    outputs = [value for value in (settings.mucr_picks(),) if value]
    return not any(str(Path(value).expanduser()) in message for value in outputs)


def run_eval(argv: list[str]) -> int:
    """Check the command line, run lmms-eval's evaluation with ``argv`` and print a summary per run;
    return 0 on success, 1 on any failure, 2 for a command-line mistake found before the run."""
    try:
        check_command_line(argv)
        if not option_value(argv, "--config"):  # else the model and tasks may come from that file: checked below
            check_model_and_data(
                option_value(argv, "--model"),
                compat_model_args(option_value(argv, "--model_args")),
                option_value(argv, "--tasks"),
                option_value(argv, "--verbosity"),
            )
        args = parsed_command_line(argv)
        if option_value(argv, "--config"):
            check_model_and_data(args.model, args.model_args, args.tasks, args.verbosity)
    except UsageError as error:
        print(f"abductive-eval: {error}", file=sys.stderr)
        return 2
    except (HubUnreachable, DataProblem) as error:
        print(f"abductive-eval: {error}", file=sys.stderr)
        return 1
    return evaluate_and_summarise(argv, args)


def compat_model_args(text: str | None) -> dict[str, str]:
    """``--model_args`` as name -> value text, read without lmms-eval (for the checks before it starts)."""
    from abductive_tasks import lmms_source

    pairs = [entry.split("=", 1) for entry in lmms_source.model_arg_entries(text or "")]
    return {name.strip().strip("\"'"): value.strip().strip("\"'") for name, value in pairs}


def check_command_line(argv: list[str]) -> None:
    """What can be checked before lmms-eval is imported (options and their values, settings, model and task names,
    our models' arguments, devices, output path, data folder): each mistake one line, in well under 2 s. Raises
    UsageError, or DataProblem for a data folder that cannot be used."""
    from abductive_tasks import lmms_source, settings

    check_options(argv)
    check_option_values(argv)
    if wrong := settings.problems():
        raise UsageError("; ".join(wrong))
    if model := option_value(argv, "--model"):
        check_backend_package(model)
        known = lmms_source.quick_model_names()  # as fast as the task check: lmms-eval is not imported yet
        if known is not None and model not in known:
            raise UsageError(f"unknown model '{model}'{did_you_mean(model, known)}; every backend: lmms-eval models")
    check_model_args_quickly(argv)
    check_devices(argv)
    if tasks := option_value(argv, "--tasks"):
        check_tasks(tasks, option_value(argv, "--include_path"))
    if output_path := option_value(argv, "--output_path"):
        check_output_path(output_path)
    if tasks and tasks not in LIST_TASKS:
        check_data_folder(tasks)


def check_model_and_data(model: str | None, model_args: object, tasks: str | None, verbosity: str | None) -> None:
    """The model's weights reachable and our tasks' data usable, before lmms-eval runs: local data first (it says
    at once what is wrong), the hub's after the model (an unreachable hub is said before any download)."""
    from abductive_tasks import settings

    if not tasks or tasks in LIST_TASKS:
        return
    data = (verbosity or "").upper() != "DEBUG"
    local = settings.data_source() != ""
    if data and local:
        check_data(tasks)
    if model:
        check_model_on_hub(model, model_args)
    if data and not local:
        check_data(tasks)


def parsed_command_line(argv: list[str]) -> argparse.Namespace:
    """lmms-eval's parsed arguments for ``argv`` (lmms-eval imported: seconds), with the model's arguments checked
    (:func:`check_model`, our models' preflight included). Raises UsageError."""
    from abductive_tasks import compat
    from abductive_tasks.models.arguments import FROM_LMMS_EVAL_OPTIONS

    args = compat.parse_eval_args(argv)
    if args.model and args.tasks not in LIST_TASKS:
        supplied = [name for name in FROM_LMMS_EVAL_OPTIONS if getattr(args, name, None) is not None]
        check_model(args.model, args.model_args, bool(getattr(args, "force_simple", False)), supplied)
    return args


def check_model_on_hub(model: str, model_args: object) -> None:
    """Raise HubUnreachable when the model's weights are neither cached nor reachable on the hub."""
    from abductive_tasks import compat

    arguments = model_args if isinstance(model_args, dict) else compat.parse_model_args(str(model_args or ""))
    if model == "llava":  # ours: an original LLaVA name loads its llava-hf conversion
        from abductive_tasks.models.llava import hub_name

        arguments = {**arguments, "pretrained": hub_name(arguments.get("pretrained"))}
    check_hub_model(arguments)


def evaluate_and_summarise(argv: list[str], args: argparse.Namespace) -> int:
    """Run lmms-eval's evaluation (secrets redacted from what it prints and writes, runs named by our layout,
    our tasks left out of its table) and print our summary of each finished run; 1 when a run failed."""
    from abductive_tasks import compat
    from abductive_tasks.inputs.data import DataError
    from abductive_tasks.inputs.files import redacting_writes
    from abductive_tasks.models.arguments import ModelArgumentError
    from abductive_tasks.reports import report
    from abductive_tasks.runs import catalog, layout
    from abductive_tasks.runs.secrets import collect_secrets, handed_secrets, redact_text

    secrets = tuple(dict.fromkeys([*handed_secrets(), *collect_secrets(args=argv, environment=os.environ)]))

    def name_run(backend: str, model_args: Mapping[str, Any]) -> tuple[str, str]:
        return layout.model_name(backend, model_args), layout.model_folder(backend, model_args)

    note = "(lmms-eval's table of our tasks is left out: see the summary below; every value is in the results JSON)"
    redact = (lambda text: redact_text(text, secrets)) if secrets else None
    with redacting_writes(redact) if redact else contextlib.nullcontext():  # our derived files (descriptions ...)
        finished, failures, code = compat.evaluate_cli(
            argv,
            name_runs=name_run,
            hide_in_table=catalog.names(),
            table_note=note,
            redact=redact,
            quiet=(DataError, ModelArgumentError),
            annotate=record_provenance,
        )
    if failures:
        print(f"abductive-eval: evaluation failed: {describe(failures[0])}", file=sys.stderr)
        return 1
    headline = report.suite_headline()
    for run in finished:
        folder = (
            Path(args.output_path) / run["model_name_sanitized"]
            if args.output_path and run.get("model_name_sanitized")
            else None
        )
        print("\n" + report.summary(run, headline, folder))
    return code


PROVENANCE_KEY = "abductive_tasks"  # what abductive-eval adds to lmms-eval's results JSON


def record_provenance(results: dict) -> None:
    """Add to a run's results what they are results of beyond lmms-eval's own record (its date, lmms-eval version,
    task versions, model arguments): our package version, per benchmark of our tasks the data by content
    (:func:`~abductive_tasks.runs.identity.data_fingerprint` of what ``ABDUCTIVE_DATA`` selects: a file read once
    is not hashed again), the model's weights (:func:`~abductive_tasks.runs.identity.model_weights`) and the judge.
    ``abductive-eval show`` prints them."""
    from abductive_tasks import settings
    from abductive_tasks.runs import catalog
    from abductive_tasks.runs.identity import data_fingerprint, model_weights, package_versions
    from abductive_tasks.runs.suite import Suite, SuiteError
    from abductive_tasks.scoring.judge import judge_description

    suite, benchmarks = Suite(), set[str]()
    for task in results.get("results") or {}:
        try:
            benchmark = suite.facts(task).benchmark if task in catalog.names() and not suite.is_group(task) else None
        except SuiteError:
            continue
        if benchmark is not None:
            benchmarks.add(benchmark)
    config = results.get("config")
    model_args = config.get("model_args") if isinstance(config, dict) else None
    results[PROVENANCE_KEY] = {
        "versions": package_versions(),
        "data": {name: data_fingerprint(name, settings.data_source()) for name in sorted(benchmarks)},
        "weights": model_weights(model_args) if isinstance(model_args, str) else None,
        "judge": judge_description(),
    }


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `abductive-eval ... | head`: the reader left; nothing more to print, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--tasks-path"]:
        from abductive_tasks.compat import tasks_path

        print(tasks_path())
        return 0
    if argv and argv[0] in SUBCOMMANDS:
        module, function = SUBCOMMANDS[argv[0]]
        return getattr(import_module(module), function)(argv[1:])
    if not argv or argv in (["-h"], ["--help"]):
        print(help_text())
        return 0 if argv else 2
    if not argv[0].startswith("-"):
        print(
            f"abductive-eval: unknown subcommand '{argv[0]}'{did_you_mean(argv[0], list(SUBCOMMANDS))}; "
            "see abductive-eval --help",
            file=sys.stderr,
        )
        return 2
    return run_eval(argv)


if __name__ == "__main__":
    sys.exit(main())
