"""lmms-eval 0.7.3 read from its source files, and our own from ours, without importing anything (importing lmms-eval
takes seconds: it indexes every task): what the checks ``abductive-eval`` makes before lmms-eval starts need, and
where lmms-eval keeps its task YAML. The internals an import reaches are in :mod:`abductive_tasks.compat`.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import math
import os
import re
from pathlib import Path

MODEL_TABLES = ("AVAILABLE_SIMPLE_MODELS", "AVAILABLE_CHAT_TEMPLATE_MODELS", "MODEL_ALIASES")  # lmms_eval.models


def tasks_path() -> Path:
    """The installed folder holding our task YAML (``abductive_tasks.tasks``)."""
    from importlib.resources import files

    return Path(str(files("abductive_tasks.tasks")))


def quick_model_names() -> set[str] | None:
    """The names ``--model`` accepts, read without importing lmms-eval (which takes seconds: it indexes every task):
    lmms-eval's built-in tables and aliases from the source of ``lmms_eval.models``, and our entry point's
    ``model_id`` values from the source of :mod:`abductive_tasks.models.manifests`. None when that cannot tell:
    another package registers models (entry points or ``LMMS_EVAL_PLUGINS``), or the source is not as expected."""
    from importlib.metadata import entry_points

    plugins = [
        point for point in entry_points(group="lmms_eval.models") if not point.value.startswith("abductive_tasks.")
    ]
    spec = importlib.util.find_spec("lmms_eval")
    if plugins or os.environ.get("LMMS_EVAL_PLUGINS") or spec is None or not spec.submodule_search_locations:
        return None
    source = Path(list(spec.submodule_search_locations)[0]) / "models" / "__init__.py"
    tables = set(MODEL_TABLES)
    names: set[str] = set()
    try:
        for node in ast.parse(source.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.Assign | ast.AnnAssign):  # `NAME = {...}` or `NAME: type = {...}`
                continue
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id in tables and node.value is not None:
                table = ast.literal_eval(node.value)
                names |= set(table)
                if target.id == "MODEL_ALIASES":
                    names |= {alias for aliases in table.values() for alias in aliases}
                tables.discard(target.id)
    except (OSError, SyntaxError, ValueError):
        return None
    names |= set(own_model_classes())
    return None if tables else names


def own_model_classes() -> dict[str, dict[str, str]]:
    """Our entry point's models read from the source of :mod:`abductive_tasks.models.manifests` (importing it
    imports lmms-eval): ``model_id`` -> its ``simple_class_path`` and ``chat_class_path`` as given."""
    ours = Path(__file__).with_name("models") / "manifests.py"
    found: dict[str, dict[str, str]] = {}
    for node in ast.walk(ast.parse(ours.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ModelManifest":
            given = {
                keyword.arg: keyword.value.value
                for keyword in node.keywords
                if keyword.arg is not None  # not `**mapping`
                and isinstance(keyword.value, ast.Constant)
                and isinstance(keyword.value.value, str)
            }
            if "model_id" in given:
                found[given.pop("model_id")] = given
    return found


@functools.cache
def model_class_paths(backend: str) -> tuple[str, ...]:
    """The classes lmms-eval may load for ``--model backend`` (``module.Class``: chat and simple, as
    ``--force_simple`` picks), read without importing it: ours from our manifests, which lmms-eval loads over its
    own, else its built-in tables and aliases; () where the source cannot tell."""
    if backend in (ours := own_model_classes()):
        return tuple(path for path in ours[backend].values() if path)
    spec = importlib.util.find_spec("lmms_eval")
    if spec is None or not spec.submodule_search_locations:
        return ()
    source = Path(list(spec.submodule_search_locations)[0]) / "models" / "__init__.py"
    tables: dict[str, dict] = {}
    try:
        for node in ast.parse(source.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.Assign | ast.AnnAssign):  # `NAME = {...}` or `NAME: type = {...}`
                continue
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id in MODEL_TABLES and node.value is not None:
                tables[target.id] = ast.literal_eval(node.value)
    except (OSError, SyntaxError, ValueError):
        return ()
    aliases = tables.get("MODEL_ALIASES", {})
    name = next((name for name, spelt in aliases.items() if backend in spelt), backend)
    kinds = (("chat", "AVAILABLE_CHAT_TEMPLATE_MODELS"), ("simple", "AVAILABLE_SIMPLE_MODELS"))
    found = [(kind, tables.get(table, {}).get(name)) for kind, table in kinds]
    return tuple(cls if "." in cls else f"lmms_eval.models.{kind}.{name}.{cls}" for kind, cls in found if cls)


@functools.cache
def own_model_versions() -> dict[str, str]:
    """Our backends' versions (``VERSIONS`` of :mod:`abductive_tasks.models.manifests`), read from its source without
    importing it (importing it imports lmms-eval): ``model_id`` -> version."""
    ours = Path(__file__).with_name("models") / "manifests.py"
    for node in ast.parse(ours.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(target, "id", None) for target in node.targets] == ["VERSIONS"]:
            return {str(name): str(version) for name, version in ast.literal_eval(node.value).items()}
    return {}


def model_arg_entries(text: str) -> list[str]:
    """``--model_args`` split into its entries as lmms-eval 0.7.3 splits them (``simple_parse_args_string``: at
    commas outside quotes, braces and brackets), without importing it (seconds)."""
    entries: list[str] = []
    current: list[str] = []
    depth = 0
    quote: str | None = None
    for index, char in enumerate(text.strip()):
        if char in "\"'" and (index == 0 or text.strip()[index - 1] != "\\"):
            quote = char if quote is None else None if char == quote else quote
        elif quote is None and char in "{[":
            depth += 1
        elif quote is None and char in "}]":
            depth -= 1
        elif quote is None and depth == 0 and char == ",":
            entries.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    entries.append("".join(current).strip())
    return [entry for entry in entries if entry]


def _eval_option_calls() -> list[ast.Call] | None:
    """The ``add_argument`` calls of ``parse_eval_args`` in the source of ``lmms_eval.__main__`` (read, not imported:
    importing it takes seconds); None when the source is not as expected."""
    spec = importlib.util.find_spec("lmms_eval")
    if spec is None or not spec.submodule_search_locations:
        return None
    return _option_calls_in(Path(list(spec.submodule_search_locations)[0]) / "__main__.py")


@functools.cache
def _option_calls_in(source: Path) -> list[ast.Call] | None:
    """:func:`_eval_option_calls` of one source file, parsed once per process (every check of an option reads it)."""
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    function = next(
        (node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "parse_eval_args"), None
    )
    return [
        node
        for node in ast.walk(function or ast.Module(body=[], type_ignores=[]))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument"
    ]


def _option_names(call: ast.Call) -> list[str]:
    return [
        argument.value
        for argument in call.args
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str) and argument.value.startswith("-")
    ]


def quick_eval_options() -> set[str] | None:
    """The option strings of lmms-eval's ``eval`` (``--model``, ``--output_path``, ...), read without importing
    lmms-eval (seconds) from the ``add_argument`` calls of ``parse_eval_args`` in the source of
    ``lmms_eval.__main__``. None when the source is not as expected."""
    options = {name for call in _eval_option_calls() or () for name in _option_names(call)}
    return options | {"-h", "--help"} if "--model" in options and "--tasks" in options else None


# What an lmms-eval run writes in --output_path: <date>_results.json, with --log_samples <date>_samples_<task>.jsonl
RESULTS_SUFFIX, SAMPLES_MARK = "_results.json", "_samples_"
PROVENANCE_KEY = "abductive_tasks"  # what abductive-eval adds to lmms-eval's results JSON
RECORDS_KEY = "samples_records"  # under it, per task: what its samples give readers (stages.records_digest)


# lmms-eval's ``--limit -1`` (``evaluator_utils.get_sample_size``): no limit. A run under ``--limit 0`` never has
# results (:func:`limit_problem`): a recorded 0 is read the same, as no limit of documents.
EVERY_DOCUMENT = (-1, 0)


def limit_problem(value: float) -> str | None:
    """Why a ``--limit`` does not run as asked under lmms-eval 0.7.3 (abductive-eval and a batch refuse it), None for
    -1 and a whole number of documents. 0 runs none: ``get_sample_size`` gives 0 and ``build_all_requests`` slices
    its requests to ``[:0]``, so the run fails. A share (``0.5``) is taken of the first task only: ``evaluate``
    assigns the count back to ``limit`` in its task loop, so every later task, a chain's stages too, runs that many
    documents. A count with a fraction (``2.5``) is cut to its whole part; below 0, only -1 is taken; ``nan`` and
    ``inf`` fail in ``int``."""
    if not math.isfinite(value):
        return "a number of documents is a finite number (lmms-eval 0.7.3 fails on it)"
    if value == 0:
        return (
            "lmms-eval 0.7.3 runs no document under it and the run fails; leave --limit out, or give -1, for every "
            "document"
        )
    if value < 0 and value != -1:
        return "lmms-eval 0.7.3 takes no limit below 0 but -1 (every document)"
    if 0 < value < 1:
        return (
            "lmms-eval 0.7.3 takes a share of the first task only and runs as many documents of every other task "
            "(its task loop keeps the first task's count); give a number of documents, --limit N"
        )
    if value > 0 and not float(value).is_integer():
        return "a number of documents is a whole number (lmms-eval 0.7.3 would cut it to its whole part)"
    return None


def limit_value(value: object) -> int | float | None:
    """A ``--limit`` as lmms-eval takes it (``2``, ``0.5``) or records it (``2.0``) in a batch's terms: a whole number
    as an int, a share as a float, None for every document (none given, -1 or 0)."""
    if value is None or (isinstance(value, int | float) and value in EVERY_DOCUMENT):
        return None
    return int(value) if isinstance(value, float) and value.is_integer() else value  # type: ignore[return-value]


def skips_documents(offset: str) -> bool:
    """Whether an ``--offset`` value skips documents as lmms-eval reads it (argparse's ``int``: ``00``, ``+0``, ``-0``
    and ``0_0`` are 0); one that is no number too (lmms-eval refuses it)."""
    try:
        return int(offset) != 0
    except ValueError:
        return True


def samples_path(results_path: Path, task: str) -> Path:
    """The samples JSONL lmms-eval writes beside ``<date>_results.json`` for ``task``."""
    results_path = Path(results_path)
    return results_path.with_name(f"{results_path.name.removesuffix(RESULTS_SUFFIX)}{SAMPLES_MARK}{task}.jsonl")


def results_beside(samples: Path) -> Path:
    """The ``<date>_results.json`` lmms-eval writes beside a samples JSONL of the same run."""
    return samples.with_name(samples.name.split(SAMPLES_MARK, 1)[0] + RESULTS_SUFFIX)


def samples_glob(task: str) -> str:
    """The name pattern of ``task``'s samples files, of any run (``path.glob``)."""
    return f"*{SAMPLES_MARK}{task}.jsonl"


def options_taking(name: str, known: set[str]) -> list[str]:
    """The options of ``known`` argparse could read ``name`` as: itself when known, else each it abbreviates (one:
    taken; several: ambiguous; none: unknown)."""
    return [name] if name in known else sorted(option for option in known if option.startswith(name))


def spelt_out(argument: str, known: set[str] | None) -> str:
    """``argument`` with the option argparse reads it as written in full: ``--lim 2`` and ``--lim=2`` are ``--limit``'s
    (an abbreviation unique among ``known``: :func:`quick_eval_options`); anything else, an exact or ambiguous name
    and every word where ``known`` is None, as it is."""
    name, equals, value = argument.partition("=")
    if known is None or len(name) < 3 or not name.startswith("--"):
        return argument
    taken = options_taking(name, known)
    return f"{taken[0]}{equals}{value}" if len(taken) == 1 else argument


def spelt_out_args(words: list[str] | tuple[str, ...]) -> list[str]:
    """Each word of an lmms-eval command line :func:`spelt_out` against lmms-eval's options."""
    known = quick_eval_options()
    return [spelt_out(word, known) for word in words]


def quick_eval_option_values() -> dict[str, tuple[type | None, tuple | None]]:
    """Per option of lmms-eval's ``eval`` whose value argparse checks by a plain ``int`` or ``float`` type or a list
    of ``choices``: (that type or None, the choices or None), read from the source as :func:`quick_eval_options`
    reads the names ({} when the source is not as expected)."""
    found: dict[str, tuple[type | None, tuple | None]] = {}
    for call in _eval_option_calls() or ():
        keywords = {keyword.arg: keyword.value for keyword in call.keywords}
        named = keywords.get("type")
        kind = {"int": int, "float": float}.get(named.id) if isinstance(named, ast.Name) else None
        try:
            choices = tuple(ast.literal_eval(keywords["choices"])) if "choices" in keywords else None
        except ValueError:
            choices = None
        if kind or choices:
            found |= dict.fromkeys(_option_names(call), (kind, choices))
    return found


def builtin_task_folder() -> Path | None:
    """lmms-eval's own task YAML folder, located without importing lmms-eval (None if not installed)."""
    spec = importlib.util.find_spec("lmms_eval")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "tasks"


@functools.cache
def own_task_names() -> frozenset[str]:
    """The task and group names our YAML declares, read as text (lmms-eval's end-of-run table needs no more)."""
    declared = re.compile(r"^(?:task|group)[ \t]*:[ \t]*[\"']?([\w.-]+)", re.MULTILINE)
    return frozenset(name for path in tasks_path().rglob("*.yaml") for name in declared.findall(path.read_text()))
