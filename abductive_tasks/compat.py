"""Every place this package relies on lmms-eval 0.7.3 internals, in one module.

:func:`install` runs when lmms-eval loads our ``lmms_eval.models`` entry point
(:mod:`abductive_tasks.models.manifests`), i.e. whenever lmms-eval imports its models, before
its CLI builds a ``TaskManager``. It

* adds our task folder to every ``TaskManager``, after the built-in tasks and the user's include
  paths (so a built-in task keeps its name on a clash): plain ``lmms-eval --tasks nleye_triplet``
  finds our tasks with no ``--include_path``;
* gives lmms-eval's ``<metric>_stderr`` our bootstrap standard error for our aggregations
  (lmms-eval only bootstraps its own built-in aggregations);
* stops lmms-eval's dataset-loading retries from repeating a :class:`PermanentLoadError` (our
  ``DataError``: bad data does not get better in 2 seconds) and lets the error itself surface, not a
  ``RetryError``.

It sits at the bottom of the package with ``settings`` and :mod:`~abductive_tasks.lmms_source` (what is read
from lmms-eval's source without importing it), the only module of ours it imports. What it needs to
recognise of ours is declared here and subclassed above (:class:`PermanentLoadError`,
:class:`OwnStderr`).

The other internals: loglikelihood results reach ``process_results`` stringified
(:func:`loglikelihood_value`); the YAML hook behind a request's visual (:func:`visual_hook`); the task index and
YAML loading (:func:`task_manager`,
:func:`task_config`); the model registry and ``--model_args`` parsing (:func:`model_names`,
:func:`model_class_path`, :func:`parse_model_args`); the evaluation entry point the ``abductive-eval`` command wraps
(:func:`evaluate_cli`, with its results-folder naming and table filter; :func:`parse_eval_args`
for the checks before it); lmms-eval's other subcommands and its web UI server with our tasks
(:func:`run_subcommand`, :func:`ui_app`); the filter registry a task's ``filter_list`` names filters from
(:func:`register_filter`: our reader as the ``read_answer`` filter; lmms-eval's own multiple-choice filter for
comparisons); and the ``llm_judge`` pieces our judge layer builds on. Model backends
(:mod:`abductive_tasks.models`) use lmms-eval's model plugin API (``lmms``, ``Instance``,
``ModelManifest``) directly, as every lmms-eval model does.
"""

from __future__ import annotations

import abc
import argparse
import ast
import functools
import inspect
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import orjson

from abductive_tasks.lmms_source import own_task_names, tasks_path

_installed = False


class PermanentLoadError(ValueError):
    """A data-loading error that retrying cannot fix; lmms-eval's download retries let it surface at once."""


class OwnStderr(abc.ABC):
    """Owner of aggregation methods whose ``stderr(items)`` is lmms-eval's ``<metric>_stderr`` (our bootstrap)."""

    @abc.abstractmethod
    def stderr(self, items: Sequence[Sequence]) -> float | str:
        """The standard error of the metric aggregated over ``items``, "N/A" when none."""


def install() -> None:
    """Hook our tasks and statistics into lmms-eval (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    _register_task_folder()
    _route_stderr()
    _stop_retrying_data_errors()
    _compact_tables()


SHOW_POINTER = (
    "abductive-tasks: the breakdowns, 95% intervals and coverage of {tasks} are in the results JSON; "
    "abductive-eval show <output_path> prints them"
)


def _compact_tables() -> None:
    """lmms-eval 0.7.3's end-of-run table (``utils.make_table``) prints a row per metric key with its value as is: a
    dict-valued one (our breakdowns, ``<prefix>_ci95``, ``<prefix>_counts``) in full on one line, hundreds of
    characters wide; only ``*_stderr`` and a few stability keys are left out by name, and nothing by value. Our
    tasks' rows keep the scalar metrics (their ``Stderr`` column is our bootstrap), one line after the table says
    where the rest is. The module global is replaced before ``lmms_eval.__main__`` imports it by name (our entry
    point loads while it imports ``lmms_eval.evaluator``), and wherever it was already imported."""
    import sys

    import lmms_eval.utils as lmms_utils

    builtin = lmms_utils.make_table
    if getattr(builtin, "compacts_ours", False):
        return

    @functools.wraps(builtin)
    def make_table(result_dict, column="results", *args, **kwargs):
        ours = own_task_names()
        rows = result_dict.get(column) or {}
        compacted = [
            name
            for name, metrics in rows.items()
            if name in ours and any(isinstance(value, dict | list) for value in metrics.values())
        ]
        if not compacted:
            return builtin(result_dict, column, *args, **kwargs)
        kept = {
            name: {key: value for key, value in metrics.items() if not isinstance(value, dict | list)}
            if name in compacted
            else metrics
            for name, metrics in rows.items()
        }
        table = builtin({**result_dict, column: kept}, column, *args, **kwargs)
        if column != "results":
            return table
        named = compacted[0] if len(compacted) == 1 else f"{len(compacted)} tasks"
        return f"{table.rstrip()}\n{SHOW_POINTER.format(tasks=named)}\n"

    make_table.compacts_ours = True
    lmms_utils.make_table = make_table
    for name in ("lmms_eval.__main__", "lmms_eval.evaluator", "__main__"):
        if getattr(sys.modules.get(name), "make_table", None) is builtin:
            sys.modules[name].make_table = make_table


def _register_task_folder() -> None:
    from lmms_eval.tasks import TaskManager

    initialize = TaskManager.initialize_tasks

    @functools.wraps(initialize)
    def initialize_with_ours(self, include_path=None, include_defaults=True):
        paths = _flat_paths(include_path)
        ours = tasks_path().resolve()
        if all(Path(path).resolve() != ours for path in paths):
            paths.append(str(ours))
        return initialize(self, include_path=paths, include_defaults=include_defaults)

    TaskManager.initialize_tasks = initialize_with_ours


def _flat_paths(include_path: object) -> list[str]:
    """Include paths as a flat list (``LMMS_EVAL_PLUGINS`` wraps an existing list in another list)."""
    if include_path is None:
        return []
    if isinstance(include_path, str | Path):
        return [str(include_path)]
    return [path for entry in include_path for path in _flat_paths(entry)]


def _route_stderr() -> None:
    import lmms_eval.evaluator_utils as evaluator_utils

    builtin = evaluator_utils.stderr_for_metric

    @functools.wraps(builtin)
    def stderr_for_metric(metric, bootstrap_iters: int):
        spec = getattr(metric, "__self__", None)
        if isinstance(spec, OwnStderr):
            return spec.stderr if bootstrap_iters > 0 else None
        return builtin(metric=metric, bootstrap_iters=bootstrap_iters)

    evaluator_utils.stderr_for_metric = stderr_for_metric


def _stop_retrying_data_errors() -> None:
    from lmms_eval.api.task import ConfigurableTask
    from tenacity import retry_if_not_exception_type

    retrying = ConfigurableTask.download.retry
    retrying.retry = retry_if_not_exception_type(PermanentLoadError)
    retrying.reraise = True


_NUMBER_RESULT = re.compile(r"\(\s*([-+]?(?:\d+(\.\d*)?|(\.)\d+)([eE][-+]?\d+)?)\s*,\s*(?:True|False)\s*\)")


def register_filter(name: str, build: Callable[..., Any]) -> None:
    """Make ``build`` (a filter class, or a function returning a filter) the lmms-eval filter a task's YAML names in
    its ``filter_list`` (``- function: <name>``), without editing lmms-eval. lmms-eval 0.7.3 builds a task's filters
    from ``lmms_eval.filters.FILTER_REGISTRY`` (``build_filter_ensemble``), which its ``register_filter`` decorator
    (``lmms_eval.api.registry.FILTER_REGISTRY``) does not reach: both get it. A filter's ``apply(resps, docs)`` receives
    every instance's replies and the task's documents in the same order."""
    from lmms_eval import filters
    from lmms_eval.api import registry

    filters.FILTER_REGISTRY[name] = build
    registry.FILTER_REGISTRY[name] = build


def filter_registered(name: str) -> Callable[..., Any] | None:
    """The filter lmms-eval builds for ``- function: <name>``, None when it knows none."""
    from lmms_eval import filters

    return filters.FILTER_REGISTRY.get(name)


def multi_choice_regex_filter(**settings: Any) -> Any:
    """lmms-eval's own multiple-choice filter (``multi_choice_regex``: ``MultiChoiceRegexFilter``), for comparisons."""
    from lmms_eval.filters.extraction import MultiChoiceRegexFilter

    return MultiChoiceRegexFilter(**settings)


def loglikelihood_value(result: object) -> object | None:
    """The first element of a loglikelihood result, which lmms-eval 0.7.3 hands to
    ``process_results`` stringified (``"(-3.71, False)"``); read with ``ast.literal_eval``,
    never ``eval`` (a plain ``(number, bool)`` is read directly, to the same value). ``None`` when unreadable."""
    plain = _NUMBER_RESULT.fullmatch(result) if isinstance(result, str) else None
    if plain:
        number, fraction, point, exponent = plain.groups()
        return float(number) if fraction is not None or point or exponent else int(number)
    try:
        value = ast.literal_eval(result) if isinstance(result, str) else result
        return value[0]
    except (ValueError, SyntaxError, TypeError, IndexError, MemoryError, RecursionError):
        return None


def visual_hook(doc_to_visual: Callable) -> Callable:
    """The task YAML's ``doc_to_visual`` hook behind the callable a request carries: lmms-eval 0.7.3 hands models
    its ``Task.doc_to_visual`` bound method (``api/task.py``, ``construct_requests``), which calls
    ``task.config.doc_to_visual``. Any other callable is returned as it is."""
    hook = getattr(getattr(getattr(doc_to_visual, "__self__", None), "config", None), "doc_to_visual", None)
    return hook if callable(hook) else doc_to_visual


def task_manager(include_path: str | Path | None = None, include_defaults: bool = False):
    """lmms-eval's task index: our tasks only by default (skips indexing ~340 built-in folders)."""
    install()
    from lmms_eval.tasks import TaskManager

    return TaskManager(include_path=str(include_path or tasks_path()), include_defaults=include_defaults)


def task_config(yaml_path: str | Path, mode: str = "full") -> dict[str, Any]:
    """A task YAML as lmms-eval reads it: ``include:`` resolved; ``!function`` tags imported
    (``mode="full"``) or left as names (``"simple"``, cheap: no hook module is imported)."""
    from lmms_eval.utils import load_yaml_config

    return load_yaml_config(str(yaml_path), mode=mode)


def parse_eval_args(argv: list[str]) -> argparse.Namespace:
    """lmms-eval's ``eval`` arguments, parsed as lmms-eval will (for checks before the run)."""
    import sys

    import lmms_eval.__main__ as lmms_main

    saved, sys.argv = sys.argv, ["abductive-eval", *argv]
    try:
        return lmms_main.parse_eval_args()[1]
    finally:
        sys.argv = saved


def parse_model_args(text: str) -> dict[str, Any]:
    """``--model_args`` as lmms-eval reads it (``k=v,k=v``; JSON values may hold commas;
    numbers and booleans converted)."""
    from lmms_eval.utils import simple_parse_args_string

    return simple_parse_args_string(text or "")


def model_names() -> list[str]:
    """Every name ``--model`` accepts (built-in backends, aliases and entry-point plugins such as ours)."""
    from lmms_eval.models import MODEL_REGISTRY_V2

    return MODEL_REGISTRY_V2.list_model_names()


def model_class_path(name: str, force_simple: bool = False) -> str:
    """The ``module.Class`` lmms-eval would load for ``--model name`` (without importing it)."""
    from lmms_eval.models import MODEL_REGISTRY_V2

    return MODEL_REGISTRY_V2.resolve(name, force_simple=force_simple).class_path


# (backend name, parsed model_args) -> (model_name, results folder name)
RunNamer = Callable[[str, Mapping[str, Any]], tuple[str, str]]


@contextmanager
def _named_runs(namer: RunNamer) -> Iterator[None]:
    """lmms-eval records ``model_name`` and names the results folder from ``model_args`` alone
    (``GeneralConfigTracker.log_experiment_args``); within this block ``namer`` decides both."""
    from lmms_eval.loggers.evaluation_tracker import GeneralConfigTracker

    builtin = GeneralConfigTracker.log_experiment_args
    signature = inspect.signature(builtin)

    @functools.wraps(builtin)
    def log_experiment_args(self, *args, **kwargs):
        builtin(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        model_args = bound.arguments.get("model_args") or ""
        parsed = dict(model_args) if isinstance(model_args, Mapping) else parse_model_args(model_args)
        self.model_name, self.model_name_sanitized = namer(str(bound.arguments.get("model_source")), parsed)

    GeneralConfigTracker.log_experiment_args = log_experiment_args
    try:
        yield
    finally:
        GeneralConfigTracker.log_experiment_args = builtin


@contextmanager
def _tables_without(hidden: Collection[str], note: str) -> Iterator[None]:
    """lmms-eval's end-of-run table without the tasks and groups in ``hidden`` (``note`` when none is left)."""
    import lmms_eval.__main__ as lmms_main

    builtin = lmms_main.make_table

    @functools.wraps(builtin)
    def make_table(result_dict, column="results", *args, **kwargs):
        kept = {name: value for name, value in result_dict.get(column, {}).items() if name not in hidden}
        if not kept:
            return note if column == "results" else ""
        return builtin({**result_dict, column: kept}, column, *args, **kwargs)

    lmms_main.make_table = make_table
    try:
        yield
    finally:
        lmms_main.make_table = builtin


_ASSIGNMENT = re.compile(r"(?P<head>(?:^|[,\s(])(?P<key>\w+)=)(?P<value>[^,\s)]+)")


@contextmanager
def _writing_without_secrets(redact: Callable[[str], str]) -> Iterator[None]:
    """lmms-eval 0.7.3 redacts only ``*api_key``, ``token``, ``*_token``, ``*_secret`` and ``password`` entries of
    the results' config (an ``access_key``, or a URL's credentials, land in clear): every results and samples line
    its tracker writes (both go through its module's ``json.dumps``) passes through ``redact`` first."""
    from lmms_eval.loggers import evaluation_tracker

    builtin = evaluation_tracker.json

    class RedactingJson:
        def __getattr__(self, name: str) -> Any:
            return getattr(builtin, name)

        @staticmethod
        def dumps(*args: Any, **kwargs: Any) -> str:
            return redact(builtin.dumps(*args, **kwargs))

    evaluation_tracker.json = RedactingJson()
    try:
        yield
    finally:
        evaluation_tracker.json = builtin


@contextmanager
def caching_without_secrets(redact: Callable[[str], str]) -> Iterator[None]:
    """lmms-eval 0.7.3's response cache (``--use_cache``) stores every reply in clear, in its SQLite ``responses``
    table and its JSONL audit log, and the model fingerprint (``model_args``) in its ``meta`` table: a reply that
    ``redact`` changes (it holds a secret) is neither stored nor logged, so it is asked again next time, and the
    fingerprint is stored redacted (the cache keys, a hash of the clear one, stay lmms-eval's)."""
    from lmms_eval.caching.response_cache import ResponseCache, _serialize_response

    store, log, open_handles = ResponseCache._store, ResponseCache._log_to_audit, ResponseCache._open_local_handles

    def holds_secret(response: Any) -> bool:
        text = _serialize_response(response)
        return redact(text) != text

    def storing(self, cache_key, request_type, task_name, doc_id, idx, gen_kwargs, response) -> None:
        if not holds_secret(response):
            store(self, cache_key, request_type, task_name, doc_id, idx, gen_kwargs, response)

    def logging(self, request_type, task_name, doc_id, idx, gen_kwargs, response, **details) -> None:
        if not holds_secret(response):
            log(self, request_type, task_name, doc_id, idx, gen_kwargs, response, **details)

    def opening(self) -> None:
        clear, self.model_fingerprint = self.model_fingerprint, redact(self.model_fingerprint)
        try:
            open_handles(self)
        finally:
            self.model_fingerprint = clear

    ResponseCache._store, ResponseCache._log_to_audit, ResponseCache._open_local_handles = storing, logging, opening
    try:
        yield
    finally:
        ResponseCache._store, ResponseCache._log_to_audit, ResponseCache._open_local_handles = store, log, open_handles


@contextmanager
def _printing_without_secrets(redact_values: Callable[[str], str] | None = None) -> Iterator[None]:
    """lmms-eval 0.7.3 prints each run's ``model_args`` as given (``openai (api_key=sk-...), gen_kwargs: ...``), while
    it redacts them in the results file: what ``lmms_eval.__main__`` prints is redacted by lmms-eval's own rules
    (``evaluator._is_sensitive_config_key``: ``api_key``, ``token``, ``*_token``, ``*_secret``, ``password``; and
    ``hf_...`` token values), then by ``redact_values``."""
    import builtins

    import lmms_eval.__main__ as lmms_main
    from lmms_eval.evaluator import _HF_TOKEN_VALUE_RE, _is_sensitive_config_key

    def redact(text: str) -> str:
        text = _ASSIGNMENT.sub(
            lambda match: f"{match['head']}[REDACTED]" if _is_sensitive_config_key(match["key"]) else match.group(),
            text,
        )
        text = _HF_TOKEN_VALUE_RE.sub("[REDACTED]", text)
        return redact_values(text) if redact_values else text

    def redacting_print(*values: object, **options: Any) -> None:
        builtins.print(*(redact(str(value)) for value in values), **options)

    lmms_main.print = redacting_print  # a module global shadows the builtin for that module's code only
    try:
        yield
    finally:
        del lmms_main.print


@contextmanager
def _no_traceback_for(lmms_main: Any, quiet: tuple[type[BaseException], ...]) -> Iterator[None]:
    """lmms-eval 0.7.3 prints the traceback of every error of an evaluation (``traceback.print_exc()``): not for an
    error of a ``quiet`` type, whose message says it all."""
    import sys
    import traceback

    class Traceback:
        def __getattr__(self, name: str) -> Any:
            return getattr(traceback, name)

        @staticmethod
        def print_exc(*args: Any, **kwargs: Any) -> None:
            if not isinstance(sys.exc_info()[1], quiet):
                traceback.print_exc(*args, **kwargs)

    lmms_main.traceback = Traceback()
    try:
        yield
    finally:
        lmms_main.traceback = traceback


@contextmanager
def _colour_only_on_a_terminal(logger: Any) -> Iterator[None]:
    """lmms-eval 0.7.3 adds its log sink with ``colorize=True``, so a log file or a pipe gets ANSI codes: leave the
    choice to loguru (colour on a terminal only)."""
    add = logger.add

    def add_without_forced_colour(*args, **kwargs):
        if kwargs.get("colorize") is True:
            kwargs["colorize"] = None
        return add(*args, **kwargs)

    logger.add = add_without_forced_colour
    try:
        yield
    finally:
        del logger.add


@contextmanager
def _annotated_results(annotate: Callable[[dict], None]) -> Iterator[None]:
    """Each run's results, as ``lmms_eval.__main__`` gets them from ``evaluator.simple_evaluate``, given to
    ``annotate`` before lmms-eval writes and prints them (it may add keys of its own)."""
    import lmms_eval.__main__ as lmms_main

    builtin = lmms_main.evaluator.simple_evaluate

    @functools.wraps(builtin)
    def simple_evaluate(*args, **kwargs):
        results = builtin(*args, **kwargs)
        if isinstance(results, dict):
            try:
                annotate(results)
            except Exception as error:  # a record that cannot be made must not cost the run its results
                lmms_main.eval_logger.warning(f"results not annotated: {type(error).__name__}: {error}")
        return results

    lmms_main.evaluator.simple_evaluate = simple_evaluate
    try:
        yield
    finally:
        lmms_main.evaluator.simple_evaluate = builtin


def evaluate_cli(
    argv: list[str],
    name_runs: RunNamer | None = None,
    hide_in_table: Collection[str] = (),
    table_note: str = "",
    redact: Callable[[str], str] | None = None,
    quiet: tuple[type[BaseException], ...] = (),
    annotate: Callable[[dict], None] | None = None,
) -> tuple[list[dict], list[BaseException], int]:
    """Run lmms-eval's CLI evaluation on ``argv``; return the results of every finished run, the
    exceptions lmms-eval swallowed (0.7.3 logs them and exits 0) and the exit code it asked for.
    (lmms-eval re-reads ``sys.argv`` inside ``cli_evaluate``, so it holds ``argv`` meanwhile.)

    ``name_runs`` names each run's ``model_name`` and results folder; lmms-eval's final table
    leaves out the tasks in ``hide_in_table`` (printing ``table_note`` when none is left). ``redact`` (text -> text)
    is applied to every results and samples file lmms-eval writes, and to what it prints; a reply it changes is not
    cached (:func:`caching_without_secrets`). An error of a ``quiet`` type (a user's error, said in one line) gets no
    traceback from lmms-eval (``--verbosity DEBUG`` re-raises it, as lmms-eval does). ``annotate`` gets each
    run's results before lmms-eval writes them.
    """
    import sys

    import lmms_eval.__main__ as lmms_main

    install()
    failures: list[BaseException] = []
    finished: list[dict] = []
    evaluate_single = lmms_main.cli_evaluate_single

    def recording_evaluate_single(*call_args, **call_kwargs):
        try:
            outcome = evaluate_single(*call_args, **call_kwargs)
        except Exception as error:
            failures.append(error)
            raise
        if outcome and outcome[0]:  # (results, samples); None on non-main ranks
            finished.append(outcome[0])
        return outcome

    lmms_main.cli_evaluate_single = recording_evaluate_single
    saved_argv, sys.argv = sys.argv, ["abductive-eval", *argv]
    try:
        with (
            _named_runs(name_runs) if name_runs else nullcontext(),
            _tables_without(hide_in_table, table_note),
            _printing_without_secrets(redact),
            _writing_without_secrets(redact) if redact else nullcontext(),
            caching_without_secrets(redact) if redact else nullcontext(),
            _annotated_results(annotate) if annotate else nullcontext(),
            _colour_only_on_a_terminal(lmms_main.eval_logger),
            _no_traceback_for(lmms_main, quiet),
        ):
            lmms_main.cli_evaluate()
    except SystemExit as exit_:
        return finished, failures, 0 if exit_.code in (0, None) else 1
    finally:
        lmms_main.cli_evaluate_single = evaluate_single
        sys.argv = saved_argv
    return finished, failures, 0


# ---------------------------------------------------------------- lmms-eval's own tools (power, ui)


def run_subcommand(argv: list[str], task_size: Callable[[str, Any], int | None] | None = None) -> int:
    """``lmms-eval <argv>`` (a subcommand such as ``power``) in process, with our tasks registered: lmms-eval 0.7.3
    loads model entry points only for an evaluation, so its ``power`` and ``tasks`` subcommands never see ours.
    ``task_size(name, task)``: the sample size ``power`` gives a task (None: its documents, lmms-eval's count)."""
    import sys

    from lmms_eval.cli import power_utils
    from lmms_eval.cli.dispatch import main as lmms_main

    install()
    builtin = power_utils.collect_task_sizes

    @functools.wraps(builtin)
    def collect_task_sizes(tasks_arg, *args, **kwargs):  # the tasks it loads, seen as it loads them
        import lmms_eval.tasks

        loaded: dict[str, Any] = {}
        get_task_dict = lmms_eval.tasks.get_task_dict

        def seen(*call_args, **call_kwargs):
            found = get_task_dict(*call_args, **call_kwargs)
            loaded.update(found)
            return found

        lmms_eval.tasks.get_task_dict = seen
        try:
            sizes = builtin(tasks_arg, *args, **kwargs)
        finally:
            lmms_eval.tasks.get_task_dict = get_task_dict
        for name in sizes:
            size = task_size(name, loaded[name]) if task_size and name in loaded else None
            sizes[name] = size or sizes[name]
        return sizes

    power_utils.collect_task_sizes = collect_task_sizes
    saved, sys.argv = sys.argv, ["lmms-eval", *argv]
    try:
        lmms_main()
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
    finally:
        sys.argv = saved
        power_utils.collect_task_sizes = builtin
    return 0


SampleMedia = Callable[[str, Mapping[str, Any]], "tuple[bytes, str] | None"]
SampleView = Callable[[str, Mapping[str, Any]], "dict[str, Any] | None"]

# What the web UI's page shows by default (lmms-eval 0.7.3's bundle, served with these literals replaced): it opens on
# View Logs at the folder the ui serves (every run under it); its Evaluate tab holds our offline demo, not lmms-eval's
# OpenRouter `mme` example; each sample of the Samples panel shows its input images (the bundle has no image element:
# this adds one pointing at the media route, hidden when a sample has none).
UI_BUNDLE_EDITS = (
    ('[e,t]=T.useState("evaluate")', '[e,t]=T.useState("logs")'),  # opens on View Logs: the runs
    ('T.useState("openai")', 'T.useState("dumb_pixel")'),
    ('T.useState("model_version=bytedance-seed/seed-1.6-flash")', 'T.useState("")'),
    (
        "export HF_HOME=${HF_HOME:-~/.cache/huggingface}\\nexport OPENAI_API_KEY=${OPENROUTER_API_KEY}\\n"
        "export OPENAI_API_BASE=https://openrouter.ai/api/v1",
        "export ABDUCTIVE_DATA=sample",
    ),
    ('new Set(["mme"])', 'new Set(["nleye_triplet"])'),
    ('"./logs/openrouter_task_smoke/"', '"./results/demo/"'),
    ('T.useState("DEBUG")', 'T.useState("INFO")'),
    ('placeholder:"cuda:0"', 'placeholder:"cpu"'),
    ('wp="./logs/"', 'wp="./"'),  # View Logs opens on the folder the ui serves (`ui RESULTS_DIR`)
    (
        'u.jsxs("div",{className:"space-y-2",children:[u.jsxs("div",{children:[u.jsx("div",'
        '{className:"text-[10px] uppercase tracking-wider text-neutral-400 mb-1",children:"Input"})',
        'u.jsxs("div",{className:"space-y-2",children:[u.jsx("img",{src:`${mo}/logs/runs/${encodeURIComponent(a)}'
        "/samples/${encodeURIComponent(F)}/media/${Ne}?logs_path=${encodeURIComponent(e)}`,"
        'alt:"the input images of this document",className:"max-h-64 border border-neutral-200",'
        'onError:x=>{x.currentTarget.style.display="none"}}),u.jsxs("div",{children:[u.jsx("div",'
        '{className:"text-[10px] uppercase tracking-wider text-neutral-400 mb-1",children:"Input"})',
    ),
)


def ui_bundle(assets: Path) -> tuple[str, str] | None:
    """The web UI's script bundle (file name, text) with :data:`UI_BUNDLE_EDITS` applied; None when the bundle is
    not lmms-eval 0.7.3's (a literal missing or repeated): it is then served as it is."""
    bundles = sorted(assets.glob("index-*.js"))
    if len(bundles) != 1:
        return None
    text = bundles[0].read_text(encoding="utf-8")
    for old, new in UI_BUNDLE_EDITS:
        if text.count(old) != 1:
            return None
        text = text.replace(old, new)
    return bundles[0].name, text


def samples_first(results: Mapping[str, Any], has_samples: Callable[[str], bool]) -> dict[str, Any]:
    """A results JSON with the tasks that logged samples first in ``results`` (the UI's Samples panel opens on the
    first task, which in lmms-eval's order is often a group: no samples file, an HTTP 404)."""
    tasks = results.get("results")
    if not isinstance(tasks, dict):
        return dict(results)
    ordered = sorted(tasks, key=lambda task: not has_samples(task))  # stable: the run's own order otherwise
    return {**results, "results": {task: tasks[task] for task in ordered}}


@functools.cache
def ui_app(sample_media: SampleMedia, sample_view: SampleView):
    """lmms-eval's web UI server (``lmms_eval.tui.server.app``, what ``lmms-eval ui`` runs in a subprocess) with our
    tasks: in its task list (0.7.3 lists only YAML under its own ``tasks/`` that loads with ``yaml.safe_load``,
    i.e. no ``!function`` tag), its task YAML preview (its own folder only) and its per-sample media route, which for
    our tasks serves ``sample_media(task, samples JSONL line)`` (lmms-eval's resolver reads the task's raw dataset:
    ours is a one-row placeholder that ``process_docs`` replaces). The Samples panel gets, for our tasks, each
    line as ``sample_view(task, line)`` (the record's fields, correct or not) and opens on a task with samples; the
    page's defaults are ours (:data:`UI_BUNDLE_EDITS`). Other tasks keep lmms-eval's handlers. Its evaluation
    launcher (``/eval/...``) and its CORS policy are removed. Needs fastapi."""
    from lmms_eval.tui import server

    install()
    index = task_manager().task_index
    ours = {name: Path(info["yaml_path"]) for name, info in index.items()}
    _list_in_task_discovery(index, ours)
    routes = [("/tasks/{task_id}/yaml", _task_yaml_route(ours)), *_sample_routes(ours, sample_media, sample_view)]
    if (script := _bundle_route()) is not None:
        routes.append(script)
    _mount_in_front(server.app, routes)
    _without_launcher_or_cors(server.app)
    return server.app


def _list_in_task_discovery(index: Mapping[str, dict], ours: Mapping[str, Path]) -> None:
    """Add our tasks to the UI's task list (a built-in name wins, as in lmms-eval)."""
    from lmms_eval.tui import discovery

    listed = {
        name: discovery._create_display_name(name, ours[name], is_group=info["type"] == "group")
        for name, info in index.items()
    }
    discover = discovery.discover_tasks

    def discover_with_ours(include_path: str | None = None) -> list[tuple[str, str]]:
        return sorted({**listed, **dict(discover(include_path))}.items())

    discovery.discover_tasks = discover_with_ours
    discovery.get_discovery_cache().clear()


def _task_yaml_route(ours: Mapping[str, Path]) -> Callable:
    """The task YAML preview: ours from our task folder, other tasks from lmms-eval's handler."""
    from lmms_eval.tui import server

    builtin_yaml = server.get_task_yaml

    async def task_yaml(task_id: str) -> dict[str, str]:
        if task_id not in ours:
            return await builtin_yaml(task_id)
        path, root = ours[task_id], tasks_path().parents[1]
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        return {"task_id": task_id, "yaml": path.read_text(encoding="utf-8"), "path": str(shown)}

    return task_yaml


def _sample_routes(
    ours: Mapping[str, Path], sample_media: SampleMedia, sample_view: SampleView
) -> list[tuple[str, Callable]]:
    """The routes of a run's samples: each sample's picture and fields for our tasks, and the run's results with the
    tasks that logged samples first; other tasks keep lmms-eval's handlers."""
    from fastapi import HTTPException, Query
    from fastapi.responses import Response
    from lmms_eval.tui import server

    builtin_media = server.get_log_run_sample_media
    builtin_results, builtin_samples = server.get_log_run_results, server.get_log_run_samples

    def samples_file(logs_path: str, run_id: str, task_name: str) -> Path | None:
        results = server._resolve_run_results_path(logs_path, run_id)
        samples = results.with_name(f"{results.name.removesuffix('_results.json')}_samples_{task_name}.jsonl")
        return samples if results.name.endswith("_results.json") and samples.is_file() else None

    async def sample_picture(run_id: str, task_name: str, doc_id: int, logs_path: str = Query("./logs/")):
        if task_name not in ours:
            return await builtin_media(run_id, task_name, doc_id, logs_path)
        samples = samples_file(logs_path, run_id, task_name)
        if samples is None:
            raise HTTPException(status_code=404, detail="Samples file not found")
        line = _logged_sample(samples, doc_id)
        picture = sample_media(task_name, line) if line is not None else None
        if picture is None:
            raise HTTPException(status_code=404, detail="No image found for this sample")
        content, media_type = picture
        return Response(content, media_type=media_type, headers={"Cache-Control": "public, max-age=3600"})

    async def run_results(run_id: str, logs_path: str = Query("./logs/")) -> dict[str, Any]:
        results = await builtin_results(run_id, logs_path)
        return samples_first(results, lambda task: samples_file(logs_path, run_id, task) is not None)

    async def run_samples(
        run_id: str,
        task_name: str,
        logs_path: str = Query("./logs/"),
        offset: int = Query(0, ge=0),
        limit: int = Query(50, ge=1, le=500),
    ):
        page = await builtin_samples(run_id, task_name, logs_path, offset, limit)
        if task_name in ours:
            page.samples = [sample_view(task_name, line) or line for line in page.samples]
        return page

    return [
        ("/logs/runs/{run_id:path}/samples/{task_name}/media/{doc_id}", sample_picture),
        ("/logs/runs/{run_id:path}/samples/{task_name}", run_samples),
        ("/logs/runs/{run_id:path}/results", run_results),
    ]


def _bundle_route() -> tuple[str, Callable] | None:
    """The page's script with our defaults (:func:`ui_bundle`), served under its own name; None when the page's
    script is not the one the edits expect."""
    from fastapi.responses import Response
    from lmms_eval.tui import server

    bundle = ui_bundle(server.STATIC_DIR / "assets")
    if bundle is None:
        return None
    name, text = bundle

    async def script() -> Response:
        return Response(text, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    return f"/assets/{name}", script


def _mount_in_front(app: Any, routes: list[tuple[str, Callable]]) -> None:
    """Add the GET routes in front of the app's own, whose last one serves the web page for every other path."""
    for path, endpoint in routes:
        app.add_api_route(path, endpoint, methods=["GET"])
    added = [app.router.routes.pop() for _ in routes]
    app.router.routes[:0] = added


def _without_launcher_or_cors(app: Any) -> None:
    """The UI serves, it does not execute: without the evaluation launcher (``POST /eval/start`` takes a shell
    command that ``GET /eval/<id>/stream`` runs) and without its CORS policy (every origin, with credentials)."""
    from fastapi.middleware.cors import CORSMiddleware

    app.router.routes[:] = [route for route in app.router.routes if not _launcher_route(route)]
    app.user_middleware[:] = [entry for entry in app.user_middleware if entry.cls is not CORSMiddleware]
    app.middleware_stack = None  # rebuilt from user_middleware at the first request


def _launcher_route(route: object) -> bool:
    path = str(getattr(route, "path", ""))
    return path == "/eval" or path.startswith("/eval/")


def _logged_sample(path: Path, doc_id: int) -> dict | None:
    """The logged sample of ``doc_id`` in a samples file, read at its line's offset (the file is scanned once per
    version, not once per request: a localization samples file runs to gigabytes)."""
    stat = path.stat()
    offset = _doc_offsets(str(path), stat.st_size, stat.st_mtime_ns).get(doc_id)
    if offset is None:
        return None
    with path.open("rb") as handle:
        handle.seek(offset)
        return orjson.loads(handle.readline())


@functools.lru_cache(maxsize=16)
def _doc_offsets(path: str, size: int, mtime_ns: int) -> dict[int, int]:
    """The byte offset of each document's line in a samples file of this size and modification time (the cache key);
    the first line of a ``doc_id`` wins, blank and unreadable lines are skipped, as lmms-eval's samples route does."""
    offsets: dict[int, int] = {}
    offset = 0
    with open(path, "rb") as lines:
        for line in lines:
            try:
                value = orjson.loads(line) if line.strip() else None
            except orjson.JSONDecodeError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("doc_id"), int):
                offsets.setdefault(value["doc_id"], offset)
            offset += len(line)
    return offsets


def ui_built() -> bool:
    """Whether lmms-eval's web UI bundle is built (its wheel ships it; a source checkout builds it with npm)."""
    from lmms_eval.tui.cli import build_web_ui, check_web_built

    return check_web_built() or build_web_ui()


# ---------------------------------------------------------------- llm_judge (abductive_tasks.scoring.judge)


def load_judge_environment() -> None:
    """Import lmms-eval's ``llm_judge``, which loads its ``.env`` (as its own judge tasks do)
    before the variables are read."""
    import lmms_eval.llm_judge  # noqa: F401


def judge_config(model_name: str, timeout: float):
    """lmms-eval's judge ``ServerConfig``: greedy, one attempt per call (our judge layer retries with backoff)."""
    from lmms_eval.llm_judge import ServerConfig

    return ServerConfig(model_name=model_name, temperature=0.0, timeout=timeout, num_retries=1, retry_delay=0)


def judge_provider(api_type: str, config):
    """lmms-eval's judge provider for ``API_TYPE``."""
    from lmms_eval.llm_judge import get_server

    return get_server(api_type, config)


def judge_request(**fields):
    """lmms-eval's judge ``Request``."""
    from lmms_eval.llm_judge import Request

    return Request(**fields)
