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
  ``RetryError``;
* has the task index, and the task YAML a run loads, parsed with libyaml (:func:`parsing_yaml_with_libyaml`).

It sits at the bottom of the package with ``settings`` and :mod:`~abductive_tasks.lmms_source` (what is read
from lmms-eval's source without importing it), the only module of ours it imports. What it needs to
recognise of ours is declared here and subclassed above (:class:`PermanentLoadError`,
:class:`OwnStderr`).

The other internals: loglikelihood results reach ``process_results`` stringified
(:func:`loglikelihood_value`); the YAML hook behind a request's visual (:func:`visual_hook`) and its task's image limit
(:func:`images_per_prompt`); the task index and YAML loading (:func:`task_manager`,
:func:`task_config`); the model registry and ``--model_args`` parsing (:func:`model_names`,
:func:`model_class_path`, :func:`model_registry`: ours loaded again where lmms-eval's load of them failed,
:func:`parse_model_args`); the evaluation entry point the ``abductive-eval`` command wraps
(:func:`evaluate_cli`, with its results-folder naming and table filter; :func:`parse_eval_args`
for the checks before it); the filter registry a task's ``filter_list`` names filters from
(:func:`register_filter`: our reader as the ``read_answer`` filter; lmms-eval's own multiple-choice filter for
comparisons); and the ``llm_judge`` pieces our judge layer builds on. Model backends
(:mod:`abductive_tasks.models`) use lmms-eval's model plugin API (``lmms``, ``Instance``,
``ModelManifest``) directly, as every lmms-eval model does. lmms-eval's ``power`` subcommand and its web UI server
with our tasks are :mod:`~abductive_tasks.lmms_subcommands`.
"""

from __future__ import annotations

import abc
import argparse
import ast
import functools
import importlib
import importlib.util
import inspect
import re
import signal
import sys
import threading
import types
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from abductive_tasks.lmms_source import own_model_classes, own_task_names, tasks_path

_installed = False
_index_builtin = True  # whether TaskManagers index lmms-eval's built-in tasks (evaluate_cli's index_builtin)


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


# lmms-eval 0.7.3 imports Hugging Face `evaluate` at start-up (lmms_eval/api/registry.py) for one call,
# `evaluate.load`, which only a task metric missing from lmms-eval's registry reaches (none of ours). Importing it
# pulls in transformers' pipelines and torchvision: about 6 of the 14 s of CPU that importing lmms-eval's CLI
# takes (utils/bench_startup.py). The evaluation entry point imports these on first use instead.
DEFERRED_IMPORTS = ("evaluate",)


_DEFERRED_LOCK = threading.RLock()  # two threads using the stand-in at once import the module once


class _DeferredModule(types.ModuleType):
    """Stands in ``sys.modules`` for a module until one of its attributes is read, then imports it for real (only
    reads: an attribute set on the stand-in stays on it)."""

    def __getattr__(self, name: str) -> Any:
        with _DEFERRED_LOCK:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            module = importlib.import_module(self.__name__)
        return getattr(module, name)


def defer_unused_imports() -> None:
    """Make each of :data:`DEFERRED_IMPORTS` not imported yet import on first use (its spec, file and name answer
    without importing it)."""
    for name in DEFERRED_IMPORTS:
        spec = None if name in sys.modules else importlib.util.find_spec(name)
        if spec is None:
            continue
        module = _DeferredModule(name)
        module.__spec__, module.__loader__, module.__file__ = spec, spec.loader, spec.origin
        sys.modules[name] = module


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
        with parsing_yaml_with_libyaml():  # the index
            return initialize(self, include_path=paths, include_defaults=include_defaults and _index_builtin)

    TaskManager.initialize_tasks = initialize_with_ours
    TaskManager.load_task_or_group = _with_libyaml(TaskManager.load_task_or_group)  # the run's tasks, in full
    TaskManager.list_all_tasks = _with_libyaml(TaskManager.list_all_tasks)  # `--tasks list`


def _with_libyaml(method: Callable) -> Callable:
    """``method``, with the YAML it reads parsed by libyaml (:func:`parsing_yaml_with_libyaml`)."""

    @functools.wraps(method)
    def parsing_with_libyaml(*args: Any, **kwargs: Any) -> Any:
        with parsing_yaml_with_libyaml():
            return method(*args, **kwargs)

    return parsing_with_libyaml


_STRING_STREAM_NAMES = {str: "<unicode string>", bytes: "<byte string>"}  # PyYAML's reader's names for them


def _libyaml_full_load(stream: Any) -> Any:
    """``yaml.full_load`` with libyaml's parser: PyYAML's ``FullLoader`` constructors and resolvers (those lmms-eval
    adds to it, ``!function``, included), read when called; the same objects. The loader keeps the stream's name, as
    PyYAML's own reader does: lmms-eval's ``!function`` finds a hook module beside its YAML file by it."""
    import yaml

    loader = yaml.CFullLoader(stream)
    loader.name = _STRING_STREAM_NAMES.get(type(stream)) or getattr(stream, "name", "<file>")
    loader.yaml_constructors = yaml.FullLoader.yaml_constructors
    loader.yaml_implicit_resolvers = yaml.FullLoader.yaml_implicit_resolvers
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


_libyaml_lock = threading.Lock()
_libyaml_users = 0  # the parsing_yaml_with_libyaml blocks open now, in any thread
_pure_full_load: Callable[..., Any] | None = None  # yaml.full_load as the first of them found it


@contextmanager
def parsing_yaml_with_libyaml() -> Iterator[None]:
    """lmms-eval 0.7.3 reads each task YAML with ``yaml.full_load`` (``utils.load_yaml_config``), PyYAML's parser in
    pure Python: about 7 ms a file here, 2 of the 4 s of CPU an evaluation of the sample spends past its imports,
    and most of the 20 s a plain ``lmms-eval`` spends indexing its ~2,000 built-in files (utils/bench_task_index.py).
    Inside this block (a ``TaskManager`` indexing, loading a run's tasks or listing them; :func:`task_config`)
    ``yaml.full_load`` parses with libyaml (where PyYAML has it) and builds the same objects with the same
    constructors; tests/test_compat.py compares both on every task YAML. Blocks may nest and overlap across threads:
    the first to open swaps the parser in, the last to close restores the one the first found."""
    import yaml

    global _libyaml_users, _pure_full_load
    if not getattr(yaml, "__with_libyaml__", False):
        yield
        return
    with _libyaml_lock:
        if not _libyaml_users:
            _pure_full_load, yaml.full_load = yaml.full_load, _libyaml_full_load
        _libyaml_users += 1
    try:
        yield
    finally:
        with _libyaml_lock:
            _libyaml_users -= 1
            if not _libyaml_users:
                yaml.full_load = _pure_full_load


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


def images_per_prompt(doc_to_visual: Callable) -> int | None:
    """The ``max_images_per_prompt`` of the task metadata behind the callable a request carries (lmms-eval 0.7.3's
    bound ``Task.doc_to_visual``, as in :func:`visual_hook`); None when it declares none."""
    metadata = getattr(getattr(getattr(doc_to_visual, "__self__", None), "config", None), "metadata", None)
    images = metadata.get("max_images_per_prompt") if isinstance(metadata, dict) else None
    return None if images is None else int(images)


def task_manager(include_path: str | Path | None = None, include_defaults: bool = False):
    """lmms-eval's task index: our tasks only by default (skips indexing ~340 built-in folders)."""
    install()
    from lmms_eval.tasks import TaskManager

    return TaskManager(include_path=str(include_path or tasks_path()), include_defaults=include_defaults)


def task_config(yaml_path: str | Path, mode: str = "full") -> dict[str, Any]:
    """A task YAML as lmms-eval reads it: ``include:`` resolved; ``!function`` tags imported
    (``mode="full"``) or left as names (``"simple"``, cheap: no hook module is imported)."""
    from lmms_eval.utils import load_yaml_config

    with parsing_yaml_with_libyaml():
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


class OwnModelsMissing(RuntimeError):
    """Our models are not in lmms-eval's model registry, and loading its entry points again did not add them."""


def model_registry() -> Any:
    """lmms-eval's model registry (``MODEL_REGISTRY_V2``) with our models in it. lmms-eval loads its
    ``lmms_eval.models`` entry points (ours: :mod:`abductive_tasks.models.manifests`) once, when its models are first
    imported, and a failure there is only a logged warning that leaves them all out for the rest of the process:
    then they are loaded again here, with lmms-eval's own loader. Raises :class:`OwnModelsMissing`, one line saying
    why, when that fails too."""
    from lmms_eval.models import MODEL_REGISTRY_V2 as registry

    if not _own_models_missing(registry):
        return registry
    try:
        registry.load_entrypoint_manifests(overwrite=True)  # as lmms-eval does: ours over its built-ins
    except Exception as error:
        raise OwnModelsMissing(
            f"our models are missing from lmms-eval's registry: loading its lmms_eval.models entry points failed: "
            f"{type(error).__name__}: {error}"
        ) from error
    missing = _own_models_missing(registry)
    if missing:
        raise OwnModelsMissing(
            f"our models ({', '.join(missing)}) are missing from lmms-eval's registry: abductive-tasks's "
            "lmms_eval.models entry point is not installed (pip install -e . where the package is)"
        )
    return registry


def _own_models_missing(registry: Any) -> list[str]:
    """Our models (read from our manifests' source) that ``registry`` lacks, or resolves to another class."""
    known = set(registry.list_canonical_model_ids())
    return [
        model
        for model, paths in own_model_classes().items()
        if model not in known or any(getattr(registry.get_manifest(model), key) != path for key, path in paths.items())
    ]


def model_names() -> list[str]:
    """Every name ``--model`` accepts (built-in backends, aliases and entry-point plugins such as ours)."""
    return model_registry().list_model_names()


def model_class_path(name: str, force_simple: bool = False) -> str:
    """The ``module.Class`` lmms-eval would load for ``--model name`` (without importing it)."""
    return model_registry().resolve(name, force_simple=force_simple).class_path


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
def indexing_builtin(index: bool) -> Iterator[None]:
    """TaskManagers built in the block index lmms-eval's built-in tasks only when ``index`` is true."""
    global _index_builtin
    saved, _index_builtin = _index_builtin, index
    try:
        yield
    finally:
        _index_builtin = saved


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


@contextmanager
def _results_written_whole(lmms_main: types.ModuleType) -> Iterator[None]:
    """A Ctrl-C while lmms-eval writes a run's files (from ``save_results_aggregated`` to the end of the run, its
    samples included) lands once they are written, as ``KeyboardInterrupt``: cut there, it left a results file cut
    short, or results without their samples. Only where Ctrl-C raises (not ignored), in the main thread."""
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    save, run = EvaluationTracker.save_results_aggregated, lmms_main.cli_evaluate_single
    held: list[int] = []
    restore: list[Any] = []

    def holding(self: Any, *args: Any, **kwargs: Any) -> Any:
        main = threading.current_thread() is threading.main_thread()
        if not restore and main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            restore.append(signal.signal(signal.SIGINT, lambda number, _frame: held.append(number)))
        return save(self, *args, **kwargs)

    def running(*args: Any, **kwargs: Any) -> Any:
        try:
            return run(*args, **kwargs)
        finally:
            if restore:
                signal.signal(signal.SIGINT, restore.pop())
                if held:
                    held.clear()
                    raise KeyboardInterrupt

    EvaluationTracker.save_results_aggregated, lmms_main.cli_evaluate_single = holding, running
    try:
        yield
    finally:
        EvaluationTracker.save_results_aggregated, lmms_main.cli_evaluate_single = save, run


def evaluate_cli(
    argv: list[str],
    name_runs: RunNamer | None = None,
    hide_in_table: Collection[str] = (),
    table_note: str = "",
    redact: Callable[[str], str] | None = None,
    quiet: tuple[type[BaseException], ...] = (),
    annotate: Callable[[dict], None] | None = None,
    index_builtin: bool = True,
    explain: Callable[[BaseException, str], BaseException | None] | None = None,
) -> tuple[list[dict], list[BaseException], int]:
    """Run lmms-eval's CLI evaluation on ``argv``; return the results of every finished run, the
    exceptions lmms-eval swallowed (0.7.3 logs them and exits 0) and the exit code it asked for.
    (lmms-eval re-reads ``sys.argv`` inside ``cli_evaluate``, so it holds ``argv`` meanwhile.)

    ``name_runs`` names each run's ``model_name`` and results folder; lmms-eval's final table
    leaves out the tasks in ``hide_in_table`` (printing ``table_note`` when none is left). ``redact`` (text -> text)
    is applied to every results and samples file lmms-eval writes, and to what it prints; a reply it changes is not
    cached (:func:`caching_without_secrets`). An error of a ``quiet`` type (a user's error, said in one line) gets no
    traceback from lmms-eval (``--verbosity DEBUG`` re-raises it, as lmms-eval does). ``annotate`` gets each
    run's results before lmms-eval writes them. ``index_builtin=False`` (a command naming only our tasks) has its
    task index hold our task folder and the include paths alone, not lmms-eval's ~2000 built-in tasks, whose YAML
    lmms-eval parses on every run (``utils/bench_task_index.py``: seconds per run). ``explain`` (error, ``--model``)
    gives an error of a run in the user's terms, raised in its place (say, of a ``quiet`` type), or None. A Ctrl-C
    while lmms-eval writes a run's files lands once they are written (:func:`_results_written_whole`).
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
            args = call_args[0] if call_args else call_kwargs.get("args")
            explained = explain(error, str(getattr(args, "model", ""))) if explain is not None else None
            failures.append(explained or error)
            if explained is not None:
                raise explained from error
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
            indexing_builtin(index_builtin),
            _results_written_whole(lmms_main),
        ):
            lmms_main.cli_evaluate()
    except SystemExit as exit_:
        return finished, failures, 0 if exit_.code in (0, None) else 1
    finally:
        lmms_main.cli_evaluate_single = evaluate_single
        sys.argv = saved_argv
    return finished, failures, 0


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
