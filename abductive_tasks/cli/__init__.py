"""``abductive-eval``: lmms-eval's ``eval`` with this package's tasks added, failing loudly.

``abductive-eval <lmms-eval eval arguments>`` runs the evaluation in process (our tasks are
registered by :mod:`abductive_tasks.compat`) and, unlike lmms-eval 0.7.3, exits 1 when the
evaluation failed. Before lmms-eval starts it checks the options, task and model names (with a close
match for a typo), that ``--output_path`` is writable and the data folder is there (all before lmms-eval is
imported), the ``--model_args`` of our own models, and that a backend needing the original LLaVA package has it
(:mod:`abductive_tasks.cli.checks`). Before a run or a subcommand it makes ``ABDUCTIVE_CACHE`` safe to use
(:func:`cache_made_ready`: what stands at the sealing key's name, links at the cache's folders).
Each run's results go to ``<output_path>/<model folder>/``
(:mod:`abductive_tasks.runs.layout`); at the end it prints one summary per run
(:mod:`abductive_tasks.reports.report`) in place of lmms-eval's table for our tasks (lmms-eval prints
dict metrics in full, hundreds of characters wide; every value is in the results JSON).

``--help``, ``tasks`` and ``--tasks-path`` import neither lmms-eval nor torch, so they answer at once.
Subcommands come from :data:`SUBCOMMANDS`: first argument -> (module, function taking the remaining arguments).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abductive_tasks.cli.checks import (
    CHAIN_OPTIONS,
    LIST_TASKS,
    DataProblem,
    HubUnreachable,
    UsageError,
    check_backend_package,
    check_baseline_tasks,
    check_data_folder,
    check_devices,
    check_hub_model,
    check_model,
    check_model_args_quickly,
    check_option_values,
    check_options,
    check_output_path,
    check_request_cache_and_config,
    check_required,
    check_tasks,
    option_value,
)
from abductive_tasks.cli.interrupts import interrupted, interrupts_raised_again
from abductive_tasks.hints import LIST_MODELS, did_you_mean
from abductive_tasks.inputs.files import cache_ready
from abductive_tasks.settings import counted_above, environment_restored

if TYPE_CHECKING:
    import argparse

    from abductive_tasks.runs.chain import CommandChain

SUBCOMMANDS = {
    "batch": ("abductive_tasks.runs.batch", "main"),
    "serve": ("abductive_tasks.runs.batch", "serve_main"),
    "leaderboard": ("abductive_tasks.reports.leaderboard", "main"),
    "show": ("abductive_tasks.reports.browse", "show_main"),
    "browse": ("abductive_tasks.reports.browse", "browse_main"),
    "diff": ("abductive_tasks.reports.diff", "main"),
    "export-sherlock": ("abductive_tasks.sherlock.export", "main"),
    "tasks": ("abductive_tasks.runs.catalog", "main"),
    "models": ("abductive_tasks.cli.checks", "models_main"),
    "power": ("abductive_tasks.reports.power_and_ui", "power_main"),
    "ui": ("abductive_tasks.reports.power_and_ui", "ui_main"),
}
# Quick commands in Python that write files (a report's staging folder, a temporary file beside the one replaced, the
# ui's page with its token): SIGTERM or SIGHUP ends them as an exception, so their cleanup runs (at the signals'
# default action the process ended on the spot and left those files). Not an evaluation, a batch or serve: they keep
# their own handling, and an evaluation's parent-death SIGTERM must end it at once, even inside a long C call.
UNWOUND_ON_STOP = frozenset({"leaderboard", "show", "browse", "diff", "export-sherlock", "power", "ui"})
SUBCOMMAND_HELP = {
    "tasks": "list our tasks and groups, one line each",
    "models": "list every name --model accepts (lmms-eval's backends and aliases, ours marked)",
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
EXAMPLE = "ABDUCTIVE_DATA=sample abductive-eval --model dumb_pixel --tasks nleye --output_path results/demo"


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

A task that reads another task's run (MuCR's mucr_exp the picks of mucr_c2e and mucr_cue, CCoT's second stage the
scene graphs of its first, nleye_triplet_described the descriptions of nleye_describe) has those stages run first,
for the same model and data, under <output_path>/stages/:
  --describer MODEL [--describer_args K=V,...]   another model describes for nleye_triplet_described (t.1)
  --print-commands                                show the stages and the last run, start nothing

Subcommands:
{subcommands}

Baseline models (no weights; they answer every task of ours, not other lmms-eval tasks):
{baselines}
Any lmms-eval backend works too, e.g. --model llava_hf --model_args pretrained=llava-hf/llava-1.5-7b-hf

Environment (ABDUCTIVE_DATA selects the data of every benchmark):
{help_table()}

Every lmms-eval eval option: lmms-eval eval --help"""


# ---------------------------------------------------------------- the evaluation


def describe(error: BaseException) -> str:
    """A failure in the user's terms: our own errors by their message, others with their type."""
    from abductive_tasks.inputs.loading import DataError
    from abductive_tasks.models.arguments import ModelArgumentError

    return str(error) if isinstance(error, DataError | ModelArgumentError) else f"{type(error).__name__}: {error}"


def check_data(tasks: str, readers: bool | None = None) -> None:
    """Load the data of our tasks among ``tasks`` before lmms-eval starts, so bad data is one short message
    naming file, row and field, with the fix (not lmms-eval's traceback). The loaders cache what they read,
    so lmms-eval's own ``process_docs`` reuses it: no file is read or decoded twice. ``readers``: only the tasks
    that read another task's run (True), only the others (False: checked before a chain runs their stages), all."""
    from abductive_tasks import compat
    from abductive_tasks.inputs.loading import DataError, DataUnreachable
    from abductive_tasks.inputs.stages import StageError, declared_reads
    from abductive_tasks.runs import catalog
    from abductive_tasks.runs.task_index import TaskIndex

    task_index = TaskIndex()
    for task in our_tasks(tasks):
        if readers is not None and bool(declared_reads(task)) != readers:
            continue
        module, _, name = str(catalog.config(task_index.yaml_path(task))["process_docs"]).rpartition(".")
        process_docs = getattr(import_module(module), name)  # the hook lmms-eval's `!function` imports, not lmms-eval
        try:
            process_docs(None)
        except DataUnreachable as error:
            raise DataProblem(str(error)) from error
        except StageError as error:  # what a chained task reads: one line naming the mismatch
            raise DataProblem(str(error)) from error
        except DataError as error:
            if not _names_the_data(str(error)):  # an earlier run's output (MuCR picks): the message says what to do
                raise DataProblem(f"{error}\nFull traceback: --verbosity DEBUG.") from error
            benchmark = task_index.facts(task).benchmark
            layout = compat.tasks_path() / str(benchmark) / "README.md"
            raise DataProblem(
                f"{error}\nFix the data (expected layout: section Data of {layout}), "
                "or run on the embedded sample with ABDUCTIVE_DATA=sample. Full traceback: --verbosity DEBUG."
            ) from error


def own_options(argv: list[str]) -> tuple[list[str], dict[str, str | bool]]:
    """``argv`` without :data:`CHAIN_OPTIONS`, and their values (``--x v`` or ``--x=v``; a flag is True)."""
    kept: list[str] = []
    found: dict[str, str | bool] = {}
    value: str | None
    words = iter(argv)
    for word in words:
        name, equals, value = word.partition("=")
        if name not in CHAIN_OPTIONS:
            kept.append(word)
        elif not CHAIN_OPTIONS[name]:
            found[name] = True
        elif equals or (value := next(words, None)) is not None:
            found[name] = value
        else:
            raise UsageError(f"{name} needs a value")
    return kept, found


def say(message: str) -> None:
    print(f"[chain] {message}", flush=True)


def plan_chain(argv: list[str], args: argparse.Namespace, options: dict) -> tuple[CommandChain | None, list[str]]:
    """The chain of stages the command's tasks read (:class:`~abductive_tasks.runs.chain.CommandChain`), None when no
    task reads another task's run; with no such task, ``ABDUCTIVE_RUN`` is still set when a task of the command
    reads what a variable names (checked against this run's model and limit) or is one another reads (what it stores
    under a variable's name is bound to this run), and a ``--use_cache DIR`` of a task reading what a variable names
    is keyed by what it reads (:func:`~abductive_tasks.runs.chain.command_cache`). Returns the chain and the command
    line."""
    from abductive_tasks import compat, settings
    from abductive_tasks.inputs.stages import RUN_VARIABLE
    from abductive_tasks.runs import chain
    from abductive_tasks.runs.task_index import TaskIndex

    if settings.this_run():  # a stage or level of a chain a batch or an abductive-eval runs: it says what the run is
        return None, argv  # (and its response cache, keyed by what it reads)
    task_index = TaskIndex()
    requested = our_tasks(args.tasks)
    describer = options.get("--describer")
    chained = chain.command_chain(
        args.model,
        _model_args_text(args.model_args),
        argv,
        requested,
        task_index,
        args.output_path,
        (str(describer), str(options.get("--describer_args") or "")) if describer else None,
        args.use_cache,
    )
    if describer and (chained is None or chained.describer is None):
        raise UsageError(
            "--describer names the model whose descriptions nleye_triplet_described reads; no task of "
            "this command reads descriptions from a run (or ABDUCTIVE_NLEYE_DESCRIPTIONS names them)"
        )
    from abductive_tasks.lmms_source import skips_documents

    offset = option_value(argv, "--offset")
    if chained is not None and offset is not None and skips_documents(offset):
        chained_tasks = ", ".join(task for task in requested if task_index.facts(task).reads)
        raise UsageError(
            f"--offset {offset}: not with {chained_tasks}: its stages answer the documents from the offset on, and the "
            "offset would skip as many of the items they answered; leave it out (--limit N runs the first N)"
        )
    if describer and describer not in compat.model_names():
        raise UsageError(
            f"--describer: unknown model '{describer}'{did_you_mean(str(describer), compat.model_names())}"
        )
    if chained is None:
        fed = {up for task in task_index.task_names for up in task_index.facts(task).reads}
        if any(task in fed or task_index.facts(task).reads for task in requested):
            os.environ[RUN_VARIABLE] = json.dumps(
                chain.command_run(args.model, _model_args_text(args.model_args), argv)
            )
        readers = [task for task in requested if task_index.facts(task).reads]
        if readers and args.use_cache:
            model_args = _model_args_text(args.model_args)
            folder = chain.command_cache(args.model, model_args, argv, requested, task_index, args.use_cache)
            print(f"abductive-eval: {cache_line(args.use_cache, folder, readers, argv)}", flush=True)
            argv = chain.with_cache(argv, folder)
    return chained, argv


def cache_line(given: str, folder: Path, readers: list[str], argv: list[str]) -> str:
    """The console line saying where a run whose ``readers`` read upstream outputs keeps its replies under
    ``--use_cache given`` (``folder``), every secret of ``argv`` and the environment replaced."""
    from abductive_tasks.redaction import collect_secrets, redact_text

    what = f"what {', '.join(readers)} {'reads' if len(readers) == 1 else 'read'} (upstream outputs, by content)"
    text = f"--use_cache {given}: the replies go to {folder}, named by {what}"
    return redact_text(
        f"{text}; replies made for other inputs are not reused", collect_secrets(args=argv, environment=os.environ)
    )


def _model_args_text(model_args: object) -> str:
    if isinstance(model_args, dict):
        return ",".join(f"{key}={value}" for key, value in model_args.items())
    return str(model_args or "")


def run_chain(argv: list[str], args: argparse.Namespace, chained, print_only: bool) -> tuple[int, list[str]]:
    """Run (or, ``print_only``, show) the upstream stages; then set this process up for the last run: its stage
    variables and the command's response cache (with ``--use_cache DIR``, keyed by what its tasks read, said in one
    line). Returns (exit status, the last run's command line)."""
    from abductive_tasks.redaction import collect_secrets, redact_text
    from abductive_tasks.runs.chain import with_cache

    code = chained.walk(say, start=not print_only)
    if code:
        print(f"abductive-eval: a stage the tasks read failed (exit status {code}); see above", file=sys.stderr)
        return 1, argv
    folder = chained.cache_of(chained.runner, chained.requested)
    final = with_cache(argv, folder)
    if chained.user_cache is not None:
        say(cache_line(args.use_cache, folder, [task for task in chained.requested if chained.reads_of(task)], argv))
    if print_only:
        say(f"then, in this process: {chained.shown(chained.runner, chained.requested, ['abductive-eval', *final])}")
        return 0, final
    os.environ.update(chained.variables(chained.runner, chained.requested))
    os.environ["LMMS_CACHE_RUN_ID"] = chained.cache_id
    secrets = collect_secrets(args=argv, environment=os.environ)
    say(redact_text(f"last run: {' '.join(final if chained.user_cache else argv)}", secrets))  # own cache: gone at end
    return 0, final


def _names_the_data(message: str) -> bool:
    """Whether a loader's error is about the data, not about an earlier run's output that a task reads (the samples
    under ``ABDUCTIVE_MUCR_PICKS``, a stage's named store: NL-Eye's descriptions), which no data layout fixes."""
    from abductive_tasks import settings
    from abductive_tasks.inputs.stages import store_root

    outputs = [str(Path(value).expanduser()) for value in (settings.mucr_picks(),) if value]
    return not any(output in message for output in [*outputs, str(store_root() / "named")])


def run_eval(argv: list[str], handed: tuple[str, ...] = ()) -> int:
    """Check the command line, run lmms-eval's evaluation with ``argv`` (``handed``: the secrets a batch handed this
    process, redacted as well) and print a summary per run;
    return 0 on success, 1 on any failure, 2 for a command-line mistake found before the run. A task reading another
    task's run (MuCR's Exp on the model's picks, CCoT, NL-Eye image-to-text) has those stages run first, each as a
    child ``abductive-eval`` (:mod:`abductive_tasks.runs.chain`); ``--print-commands`` shows them, starting nothing."""
    from abductive_tasks import compat

    compat.defer_unused_imports()  # before lmms-eval is imported: what it imports and never uses waits for a use
    with environment_restored({}, also=STAGE_VARIABLES):  # set for this run only (in-process callers)
        return _run_eval(argv, handed)


STAGE_VARIABLES = ("ABDUCTIVE_RUN", "ABDUCTIVE_STAGE_INPUTS", "LMMS_CACHE_RUN_ID")


def _run_eval(argv: list[str], handed: tuple[str, ...]) -> int:
    from abductive_tasks import compat, lmms_source

    given = list(argv)  # what a refusal's message may echo (a URL's credentials in a variable) is redacted by it
    above = counted_above()  # a batch's or a chain's run: they count its failed requests
    try:
        argv, options = own_options(argv)
        check_command_line(argv)
        argv = lmms_source.spelt_out_args(argv)  # read by name from here on (the chain's --limit): as lmms-eval does
        if not option_value(argv, "--config"):  # else the model and tasks may come from that file: checked below
            check_model_and_data(
                option_value(argv, "--model"),
                compat_model_args(option_value(argv, "--model_args")),
                option_value(argv, "--tasks"),
                option_value(argv, "--verbosity"),
                readers=False,
            )
        args = parsed_command_line(argv)
        if option_value(argv, "--config"):
            check_model_and_data(args.model, args.model_args, args.tasks, args.verbosity, readers=False)
    except (UsageError, HubUnreachable, DataProblem, compat.OwnModelsMissing) as error:
        return _refused(error, given)
    from abductive_tasks.inputs.stages import StageError
    from abductive_tasks.runs.identity_record import DamagedFile

    chained, last_ran = None, False
    try:  # a chain's response cache goes on Ctrl-C, an error or a refusal too, also among its stages
        try:
            if args.model and args.tasks and args.tasks not in LIST_TASKS:
                chained, argv = plan_chain(argv, args, options)
            elif options:
                raise UsageError(f"{', '.join(options)}: for a run of --model over --tasks")
            if chained is not None:
                code, argv = run_chain(argv, args, chained, bool(options.get("--print-commands")))
                if code or options.get("--print-commands"):
                    return code
            elif options.get("--print-commands"):
                from abductive_tasks.redaction import collect_secrets, redact_text

                command = " ".join(["abductive-eval", *argv])
                print(redact_text(command, collect_secrets(args=argv, environment=os.environ)))
                return 0
            if args.tasks and args.tasks not in LIST_TASKS and (args.verbosity or "").upper() != "DEBUG":
                check_data(args.tasks, readers=True)  # what reads a stage's output: once the chain has run it
        except (UsageError, HubUnreachable, DataProblem, StageError, DamagedFile, compat.OwnModelsMissing) as error:
            return _refused(error, given)  # a chain not runnable, or our models not in lmms-eval's registry
        reads: dict[str, dict] = {}
        if args.model and args.tasks and args.tasks not in LIST_TASKS:
            argv = with_judge_threads(argv, args.tasks)
            from abductive_tasks.runs.reads import reading_inputs
            from abductive_tasks.runs.task_index import TaskIndex

            reads = reading_inputs(our_tasks(args.tasks), TaskIndex())  # the stages' outputs, once the chain ran
        stage_failed = chained.failed if chained is not None else {}
        code = evaluate_and_summarise(argv, args, handed, reads, unclean_fails=not above, stage_failed=stage_failed)
        last_ran = True
        return code
    finally:
        if chained is not None:
            from abductive_tasks.runs.reads import run_folder

            folder = (
                run_folder(args.output_path, args.model, _model_args_text(args.model_args), reads) if last_ran else None
            )
            chained.finish(say, compare=last_ran, final_dir=folder)


def _refused(error: Exception, argv: list[str]) -> int:
    """Say why the command was refused before its evaluation, every secret of ``argv`` and the environment
    replaced; its exit status (2: a command-line mistake, else 1)."""
    from abductive_tasks.redaction import collect_secrets, redact_text

    print(
        f"abductive-eval: {redact_text(str(error), collect_secrets(args=argv, environment=os.environ))}",
        file=sys.stderr,
    )
    return 2 if isinstance(error, UsageError) else 1


def with_judge_threads(argv: list[str], tasks: str) -> list[str]:
    """``argv`` with lmms-eval's ``--process_docs_parallel`` (its ``process_results`` threads, 4 by default) raised to
    twice ``ABDUCTIVE_JUDGE_CONCURRENCY`` when a judge is configured and one of ``tasks`` asks it per document. Each
    thread waits on its document's verdicts, so the threads bound the judge requests in flight; twice as many as the
    judge sends at once keep a question waiting whenever a reply comes, while a finished thread moves on to its next
    document (docs/judge.md). A command line that sets the option keeps it."""
    from loguru import logger

    from abductive_tasks import settings
    from abductive_tasks.scoring import judge

    spellings = ("--process_docs_parallel", "--process-docs-parallel")  # argparse also takes a unique prefix
    given = {argument.split("=", 1)[0] for argument in argv if argument.startswith(("--process_d", "--process-d"))}
    if any(spelling.startswith(name) for name in given for spelling in spellings):
        return argv
    threads = 2 * settings.judge_concurrency()
    if threads <= DEFAULT_PROCESS_THREADS or not any(map(asks_judge, our_tasks(tasks))) or not judge.judge_configured():
        return argv
    logger.info(
        f"abductive-eval: --process_docs_parallel {threads} for the judged tasks (ABDUCTIVE_JUDGE_CONCURRENCY x 2)"
    )
    return [*argv, "--process_docs_parallel", str(threads)]


DEFAULT_PROCESS_THREADS = 4  # lmms-eval 0.7.3's --process_docs_parallel


def our_tasks(tasks: str) -> list[str]:
    """Our tasks among a ``--tasks`` value, groups expanded; a name with wildcards (``mucr_exp*``) names each of ours
    it matches, as lmms-eval matches it (``fnmatch``)."""
    import fnmatch

    from abductive_tasks.runs import catalog
    from abductive_tasks.runs.task_index import TaskIndex

    ours = sorted(catalog.names())
    return TaskIndex().expand([found for name in tasks.split(",") for found in fnmatch.filter(ours, name)])


def asks_judge(task: str) -> bool:
    """Whether our ``task``'s ``process_results`` asks the LLM judge: its task spec is judged, or it reads answers
    the judge may extract (``ABDUCTIVE_JUDGE_EXTRACT``)."""
    from abductive_tasks import settings
    from abductive_tasks.runs import catalog
    from abductive_tasks.runs.task_index import TaskIndex

    hook = catalog.config(TaskIndex().yaml_path(task)).get("process_results")
    if not isinstance(hook, catalog.FunctionName):
        return False
    module, _, name = hook.rpartition(".")
    function = getattr(import_module(module), name, None)
    spec = getattr(function, "spec", None)
    extracts = settings.judge_extraction() and getattr(function, "question", None) is not None
    return spec is not None and (spec.judged or extracts)


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
    check_required(argv)
    check_option_values(argv)
    check_request_cache_and_config(argv)
    if wrong := settings.problems():
        raise UsageError("; ".join(wrong))
    if model := option_value(argv, "--model"):
        check_backend_package(model)
        known = lmms_source.quick_model_names()  # as fast as the task check: lmms-eval is not imported yet
        if known is not None and model not in known:
            raise UsageError(f"unknown model '{model}'{did_you_mean(model, known)}; {LIST_MODELS}")
    check_model_args_quickly(argv)
    check_devices(argv)
    if tasks := option_value(argv, "--tasks"):
        check_tasks(tasks, option_value(argv, "--include_path"))
        if model in BASELINES:
            check_baseline_tasks(model, tasks, option_value(argv, "--include_path"))
    if output_path := option_value(argv, "--output_path"):
        check_output_path(output_path)
    if tasks and tasks not in LIST_TASKS:
        check_data_folder(tasks)


def check_model_and_data(
    model: str | None, model_args: object, tasks: str | None, verbosity: str | None, readers: bool | None = None
) -> None:
    """The model's weights reachable and our tasks' data usable, before lmms-eval runs: local data first (it says
    at once what is wrong), the hub's after the model (an unreachable hub is said before any download). ``readers``
    as in :func:`check_data`."""
    from abductive_tasks import settings

    if not tasks or tasks in LIST_TASKS:
        return
    data = (verbosity or "").upper() != "DEBUG"
    local = settings.data_source() != ""
    if data and local:
        check_data(tasks, readers)
    if model:
        check_model_on_hub(model, model_args)
    if data and not local:
        check_data(tasks, readers)


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
    """Raise HubUnreachable when the model's weights are neither cached nor reachable on the hub: those
    ``--model_args`` name, else our model's default (read from its class's source, as lmms-eval loads it without
    ``--force_simple``: :func:`~abductive_tasks.cli.checks.own_model_declared`)."""
    from abductive_tasks import compat
    from abductive_tasks.cli.checks import HUB_MODEL_KEYS, own_model_declared

    arguments = model_args if isinstance(model_args, dict) else compat.parse_model_args(str(model_args or ""))
    declared = own_model_declared(model, False)
    defaults = {key: declared.defaults[key] for key in HUB_MODEL_KEYS if declared and key in declared.defaults}
    defaulted = {key: model for key in defaults if not arguments.get(key)}
    arguments = {**arguments, **{key: defaults[key] for key in defaulted}}
    if model == "llava":  # ours: an original LLaVA name (its default too) loads its llava-hf conversion
        from abductive_tasks.models.llava import hub_name

        defaulted = {"pretrained": model} if not arguments.get("pretrained") else defaulted
        arguments = {**arguments, "pretrained": hub_name(arguments.get("pretrained"))}
    check_hub_model(arguments, defaulted)


def evaluate_and_summarise(
    argv: list[str],
    args: argparse.Namespace,
    handed: tuple[str, ...],
    reads: Mapping[str, dict] | None = None,
    unclean_fails: bool = True,
    stage_failed: Mapping[str, str] | None = None,
) -> int:
    """Run lmms-eval's evaluation (secrets redacted from what it prints and writes: those of ``argv``, the
    environment and ``handed``; runs named by our layout and by what their tasks read, ``reads``, which their results
    record; our tasks left out of its table; its files stamped in UTC unless ``--timezone`` names another: lmms-eval's
    default is UTC+8) and print our summary of each finished run; 1 when a run failed, or when a task's requests
    failed, the model's or the judge's (no clean score), in the run or in the chain's stage runs (``stage_failed``,
    upstream task -> count); not ``unclean_fails``: a batch's or chain's run, whose failed requests they count."""
    import traceback

    from abductive_tasks import compat
    from abductive_tasks.inputs.files import redacting_writes
    from abductive_tasks.inputs.loading import DataError
    from abductive_tasks.models.arguments import ModelArgumentError, constructor_refusal
    from abductive_tasks.redaction import collect_secrets, redact_text, redacted_console
    from abductive_tasks.reports import report
    from abductive_tasks.runs import catalog, layout
    from abductive_tasks.runs.reads import folder_name, unclean_tasks

    secrets = tuple(dict.fromkeys([*handed, *collect_secrets(args=argv, environment=os.environ)]))

    def name_run(backend: str, model_args: Mapping[str, Any]) -> tuple[str, str]:
        return layout.model_name(backend, model_args), folder_name(backend, model_args, reads or {})

    note = "(lmms-eval's table of our tasks is left out: see the summary below; every value is in the results JSON)"
    redact = (lambda text: redact_text(text, secrets)) if secrets else None
    # what lmms-eval and we print (log lines, tracebacks, our error line), and our derived files (descriptions ...)
    with redacted_console(secrets), redacting_writes(redact) if redact else contextlib.nullcontext():
        try:
            finished, failures, code = compat.evaluate_cli(
                argv if option_value(argv, "--timezone") else [*argv, "--timezone", "UTC"],  # lmms-eval's: UTC+8
                name_runs=name_run,
                hide_in_table=catalog.names(),
                table_note=note,
                redact=redact,
                quiet=(DataError, ModelArgumentError),
                annotate=lambda results: record_provenance(results, reads or {}),
                index_builtin=not names_only_ours(args),
                explain=constructor_refusal,  # an entry lmms-eval's backend refused: one line, as ours say it
            )
        except Exception:  # --verbosity DEBUG: lmms-eval raises it again; its traceback printed here, redacted
            traceback.print_exc()  # (Python would print it once the console is no longer redacted)
            return 1
        if failures:
            print(f"abductive-eval: evaluation failed: {describe(failures[0])}", file=sys.stderr)
            return 1
        headline = report.headline_lookup()
        for run in finished:
            folder = (
                Path(args.output_path) / run["model_name_sanitized"]
                if args.output_path and run.get("model_name_sanitized")
                else None
            )
            print("\n" + report.summary(run, headline, folder))
        failed = [f"{task} ({told}, in its stage run)" for task, told in (stage_failed or {}).items()]
        if unclean_fails and (failed := [*failed, *unclean_tasks(finished)]):
            print(
                f"abductive-eval: failed requests (the model's or the judge's) in {', '.join(failed)}: not clean "
                "scores (see the summary); rerun them",
                file=sys.stderr,
            )
            return 1
        return code


def names_only_ours(args: argparse.Namespace) -> bool:
    """Whether ``--tasks`` names only our tasks and groups and no ``--include_path`` is given: lmms-eval's task index
    then needs none of its built-in tasks (no name of ours is one of theirs: tests/test_compat.py)."""
    from abductive_tasks.runs import catalog

    named = set(filter(None, (args.tasks or "").split(",")))
    return bool(named) and args.include_path is None and named <= catalog.names()


def record_provenance(results: dict, reads: Mapping[str, dict]) -> None:
    """Add to a run's results what they are results of beyond lmms-eval's own record (its date, lmms-eval version,
    task versions, model arguments): our package version, per benchmark of our tasks the data by content
    (:func:`~abductive_tasks.runs.identity.data_fingerprint` of what ``ABDUCTIVE_DATA`` selects: a file read once
    is not hashed again), the model's weights (:func:`~abductive_tasks.runs.identity.model_weights`), the judge, the
    score-changing settings (:func:`~abductive_tasks.runs.identity.score_settings`), and
    per chained task what it read from other runs, by content (``reads``: :func:`~abductive_tasks.runs.reads.
    reading_inputs`), and per task a later run may read (``--log_samples``) what its samples give it, by content
    (:func:`~abductive_tasks.inputs.stages.records_digest`: a reader of them checks it). ``abductive-eval show`` prints
    them."""
    from abductive_tasks import settings
    from abductive_tasks.inputs.stages import records_digest
    from abductive_tasks.lmms_source import PROVENANCE_KEY, RECORDS_KEY
    from abductive_tasks.runs import catalog
    from abductive_tasks.runs.identity import data_fingerprint, model_weights, package_versions, score_settings
    from abductive_tasks.runs.task_index import TaskIndex, TaskIndexError
    from abductive_tasks.scoring.judge import judge_description

    task_index, benchmarks = TaskIndex(), set[str]()
    for task in results.get("results") or {}:
        try:
            benchmark = (
                task_index.facts(task).benchmark if task in catalog.names() and not task_index.is_group(task) else None
            )
        except TaskIndexError:
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
        "settings": score_settings(os.environ),  # as a batch's identity records them: a rerun repeats them
    }
    if inputs := {task: reads[task] for task in results.get("results") or {} if task in reads}:
        results[PROVENANCE_KEY]["inputs"] = inputs
    samples = results.get("samples")
    by_task = sorted(samples.items()) if isinstance(samples, dict) else []
    if records := {task: digest for task, lines in by_task if (digest := records_digest(lines))}:
        results[PROVENANCE_KEY][RECORDS_KEY] = records


def main(argv: list[str] | None = None) -> int:
    """The command (``argv``: ``sys.argv[1:]`` when None). Ctrl-C is one line, status 130 (:func:`interrupted`); as
    the command (``argv`` None), another Ctrl-C then ends the process at once, and one after its end (Python shutting
    down) is ignored: neither prints a traceback."""
    try:
        with interrupts_raised_again():
            code = _main(argv)
    except BrokenPipeError:  # `abductive-eval ... | head`: the reader left; nothing more to print, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        if argv is None:
            signal.signal(signal.SIGINT, lambda _number, _frame: os._exit(130))
        if (option_value(sys.argv[1:] if argv is None else argv, "--verbosity") or "").upper() == "DEBUG":
            raise
        return interrupted()
    if argv is None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return code


def _main(argv: list[str] | None = None) -> int:
    from abductive_tasks.redaction import handed_secrets, revealed_args

    handed = handed_secrets()  # a batch's evaluation: its secrets, which its command line holds as placeholders
    try:  # what is read from here on is the command line revealed (/proc/PID/cmdline keeps the placeholders)
        argv = revealed_args(sys.argv[1:] if argv is None else argv, handed)
    except ValueError as error:
        print(f"abductive-eval: {error}", file=sys.stderr)
        return 2
    if argv == ["--tasks-path"]:
        from abductive_tasks.compat import tasks_path

        print(tasks_path())
        return 0
    if argv and argv[0] in SUBCOMMANDS:
        if argv[0] != "tasks" and not cache_made_ready():
            return 2
        module, function = SUBCOMMANDS[argv[0]]
        with stops_unwinding() if argv[0] in UNWOUND_ON_STOP else contextlib.nullcontext():
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
    if not cache_made_ready():
        return 2
    return run_eval(argv, handed)


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _leave(number: int, _frame: object) -> None:
    raise SystemExit(128 + number)


@contextlib.contextmanager
def stops_unwinding() -> Iterator[None]:
    """Within it, SIGTERM and SIGHUP end the process as ``SystemExit(128 + signal)``, so ``finally`` and ``with``
    blocks still clean up: at the signals' default action the process ended on the spot (uvicorn, which handles
    SIGTERM itself, raises it again at that action once it has shut down). A signal the process was started with
    ignored (``nohup`` ignores SIGHUP) or handled stays so; a process forked meanwhile (a process pool's worker) has
    the default action back (:func:`_default_in_forked_children`)."""
    _forked_children_default()
    defaults = [number for number in STOP_SIGNALS if signal.getsignal(number) is signal.SIG_DFL]
    previous = {number: signal.signal(number, _leave) for number in defaults}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _default_in_forked_children() -> None:
    """In a child forked inside :func:`stops_unwinding`, the stop signals at their default action again: a pool's
    worker has no cleanup of its own, and there ``SystemExit`` would become its job's result (the pool catches it)
    instead of ending it."""
    for number in STOP_SIGNALS:
        if signal.getsignal(number) is _leave:
            signal.signal(number, signal.SIG_DFL)


@functools.cache
def _forked_children_default() -> None:
    """Register :func:`_default_in_forked_children` with ``fork``, once, when the stop handling is first used."""
    os.register_at_fork(after_in_child=_default_in_forked_children)


def cache_made_ready() -> bool:
    """Make ``ABDUCTIVE_CACHE`` safe to use (:func:`~abductive_tasks.inputs.files.cache_ready`), saying what it
    changed; False, after one line naming it, when it cannot be."""
    try:
        changed = cache_ready()
    except OSError as error:
        print(f"abductive-eval: {error}", file=sys.stderr)
        return False
    for line in changed:
        print(f"abductive-eval: {line}", file=sys.stderr)
    return True
