"""``--model_args`` checking for this package's backends: a typo is named, with the accepted names, and so is a
required entry left out.

lmms-eval builds a model as ``cls(**model_args, batch_size=..., device=...)``, so a misspelt
argument surfaces as ``TypeError: DumbPixel.__init__() got an unexpected keyword argument``,
naming a class the user never typed. :class:`CheckedArguments` checks the arguments first and
raises :class:`ModelArgumentError` in the user's terms: the model name, the unknown argument
(with a close match), and what is accepted. ``abductive-eval`` runs the same check before
lmms-eval starts (:func:`check`), and says an entry the constructor of one of lmms-eval's own backends refused in the
same words (:func:`constructor_refusal`).
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import functools
import importlib.util
import inspect
import re
import sys
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

# lmms-eval passes these from its own options when set (--batch_size always: its default is 1);
# in --model_args they then clash, and they are not listed as accepted model arguments.
FROM_LMMS_EVAL_OPTIONS = {"batch_size": "--batch_size", "max_batch_size": "--max_batch_size", "device": "--device"}


class ModelArgumentError(TypeError):
    """A ``--model_args`` entry the model does not take (a TypeError, as Python's own for an unexpected keyword)."""


def accepted_arguments(cls: type) -> list[str]:
    """The keyword arguments ``cls(...)`` takes, following ``**kwargs`` up the class hierarchy."""
    names: list[str] = []
    for klass in cls.__mro__:
        if "__init__" not in vars(klass) or klass is object:
            continue
        parameters = list(inspect.signature(vars(klass)["__init__"]).parameters.values())[1:]
        names += [
            p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in names
        ]
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            break
    return names


def check(model: str, cls: type, given: Iterable[str], supplied: Iterable[str] = ("batch_size",)) -> None:
    """Raise :class:`ModelArgumentError` for an argument ``cls`` does not take, or one lmms-eval
    ``supplied`` from its own options (``batch_size`` always)."""
    check_names(model, accepted_arguments(cls), given, supplied)


def required_arguments(cls: type) -> list[str]:
    """The arguments of :func:`accepted_arguments` without a default, as the first class declaring each says:
    ``cls(...)`` fails without them. (Not checked when lmms-eval builds the model: ``abductive-eval`` checks them
    before, :func:`check_required`, and the code our models reach stays as their recorded versions have it.)"""
    inits = [
        inspect.signature(vars(klass)["__init__"]).parameters
        for klass in cls.__mro__
        if "__init__" in vars(klass) and klass is not object
    ]
    empty = inspect.Parameter.empty
    return [
        name
        for name in accepted_arguments(cls)
        if next(parameters[name] for parameters in inits if name in parameters).default is empty
    ]


# what a required entry holds, said when it is missing
REQUIRED_VALUES = {"pretrained": "hub id or local folder", "base": "a --model name"}


def check_required(model: str, required: Iterable[str], given: Mapping[str, object]) -> None:
    """Raise :class:`ModelArgumentError` naming the ``required`` arguments not ``given`` (name -> value) or given empty
    (``pretrained=$MODEL`` with ``MODEL`` unset); lmms-eval would say ``TypeError: ....__init__() missing 1 required
    positional argument`` or fail deep in a loader, naming a class the user never typed."""
    present = {name for name, value in given.items() if value is not None and str(value).strip().strip("\"'")}
    missing = [name for name in required if name not in present and name not in FROM_LMMS_EVAL_OPTIONS]
    if missing:
        entries = " and ".join(f"{name}=<{REQUIRED_VALUES.get(name, 'value')}>" for name in missing)
        raise ModelArgumentError(f"{model}: --model_args needs {entries}")


def check_names(model: str, accepted: list[str], given: Iterable[str], supplied: Iterable[str]) -> None:
    """:func:`check` against the ``accepted`` argument names."""
    supplied = set(supplied)
    for name in given:
        if name in supplied and name in FROM_LMMS_EVAL_OPTIONS:
            raise ModelArgumentError(
                f"{model}: '{name}' comes from lmms-eval's {FROM_LMMS_EVAL_OPTIONS[name]} option; leave it out "
                "of --model_args"
            )
        if name not in accepted:
            raise unknown_entry(model, name, accepted)


def unknown_entry(model: str, name: str, accepted: list[str]) -> ModelArgumentError:
    """The error for a ``--model_args`` entry ``name`` that ``model`` does not take: a close match among the
    ``accepted`` names a user sets, and all of them."""
    settable = [known for known in accepted if known not in FROM_LMMS_EVAL_OPTIONS]
    close = difflib.get_close_matches(name, settable, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return ModelArgumentError(
        f"{model}: unknown --model_args entry '{name}'{hint}; accepted: {', '.join(settable) or 'none'}"
    )


def check_typed(model: str, accepted: list[str], given: Iterable[str], supplied: Iterable[str]) -> None:
    """:func:`check_names` as ``abductive-eval`` checks the command line, before lmms-eval builds the model: an unknown
    name's error lists (and suggests among) the names a user sets there, ``device`` too while ``--device`` is not
    given (:func:`unknown_entry` leaves it out: the model's own check, in its recorded code, has no command line to
    tell); the batch sizes are lmms-eval's options."""
    supplied = set(supplied)
    for name in given:
        if name not in accepted and not (name in supplied and name in FROM_LMMS_EVAL_OPTIONS):
            hidden = supplied | (FROM_LMMS_EVAL_OPTIONS.keys() - {"device"})
            settable = [known for known in accepted if known not in hidden]
            close = difflib.get_close_matches(name, settable, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ModelArgumentError(
                f"{model}: unknown --model_args entry '{name}'{hint}; accepted: {', '.join(settable) or 'none'}"
            )
        check_names(model, accepted, [name], supplied)  # a name lmms-eval's option also sets: its own error


# Python's words for a keyword a function does not take: "Qwen2_VL.__init__() got an unexpected keyword argument 'x'"
UNEXPECTED_KEYWORD = re.compile(r"(?P<owner>\S+)\.__init__\(\) got an unexpected keyword argument '(?P<name>[^']*)'")


def constructor_refusal(error: BaseException, model: str) -> ModelArgumentError | None:
    """``error``, raised while lmms-eval built ``model`` from its ``--model_args`` (in ``create_from_arg_string``),
    as :func:`unknown_entry` when the model's constructor refused an entry: Python's ``TypeError`` for an unexpected
    keyword of one of its classes, or lmms-eval's ``assert kwargs == {}`` (``Unexpected kwargs: {...}``) in one of
    their ``__init__``; None for any other error. Our models refuse such entries before (:class:`CheckedArguments`)."""
    frames = [frame for frame, _ in traceback.walk_tb(error.__traceback__)]
    building = [frame.f_locals.get("cls") for frame in frames if frame.f_code.co_name == "create_from_arg_string"]
    built = building[0] if building else None
    if not isinstance(built, type):
        return None
    names: list[str] = []
    match = UNEXPECTED_KEYWORD.fullmatch(str(error)) if type(error) is TypeError else None
    if match and match["owner"] in {klass.__qualname__ for klass in built.__mro__}:
        names = [match["name"]]
    elif isinstance(error, AssertionError) and str(error).startswith("Unexpected kwargs"):
        raised_in, local = frames[-1].f_code.co_name, frames[-1].f_locals
        refused = local.get("kwargs")
        if raised_in == "__init__" and isinstance(local.get("self"), built) and isinstance(refused, dict):
            names = [str(name) for name in refused]
    return unknown_entry(model, names[0], accepted_arguments(built)) if names else None


class CheckedArguments:
    """Mixin for an lmms-eval model class (listed before ``lmms``): checks ``--model_args`` by name first.

    ``model_id`` is the name the model is registered under (``--model``)."""

    model_id: str

    @classmethod
    def preflight(cls, arguments: Mapping) -> None:
        """Refuse, before lmms-eval starts, a model that cannot run here (raise :class:`ModelArgumentError`
        with a one-line reason); ``abductive-eval`` calls it after checking the argument names."""

    @classmethod
    def create_from_arg_string(cls, arg_string: str | Mapping, additional_config: dict | None = None):
        from abductive_tasks.compat import parse_model_args

        arguments = dict(arg_string) if isinstance(arg_string, Mapping) else parse_model_args(arg_string)
        extra = {
            key: value for key, value in (additional_config or {}).items() if value is not None
        }  # as lmms-eval does
        check(cls.model_id, cls, arguments, supplied=extra)
        return cls(**arguments, **extra)


# ---------------------------------------------------------------- the same, read from the source


@functools.cache
def _module_source(module: str) -> tuple[dict[str, ast.ClassDef], dict[str, str]] | None:
    """A module's top-level classes and imported names (local name -> ``module.name`` or ``module``), from its
    source file, located without importing anything (a package's ``__init__`` may take seconds)."""
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        base = Path(list(spec.submodule_search_locations)[0]).joinpath(*rest)
        files = [base.with_suffix(".py"), base / "__init__.py"]
    else:
        files = [Path(spec.origin or "")] if not rest else []
    path = next((file for file in files if file.suffix == ".py" and file.is_file()), None)
    if path is None:
        return None
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    imported: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported |= {alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            for alias in node.names:  # `import a.b` binds a, `import a.b as c` binds c to a.b
                imported[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
    return classes, imported


def _resolve(module: str, expression: ast.expr, depth: int = 0) -> tuple[str, str] | None:
    """The (module, class name) a base-class expression of ``module`` names; None when the source cannot tell."""
    if depth > 8:
        return None
    if isinstance(expression, ast.Name) and expression.id == "object":
        return ("builtins", "object")
    found = _module_source(module)
    if found is None:  # no source: a module already imported (frozen: abc) is read as it is
        return (module, expression.id) if module in sys.modules and isinstance(expression, ast.Name) else None
    classes, imported = found
    if isinstance(expression, ast.Name):
        if expression.id in classes:
            return module, expression.id
        target = imported.get(expression.id)
        if target is None or "." not in target:
            return None
        where, _, name = target.rpartition(".")
        return _resolve(where, ast.Name(name), depth + 1)
    if isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name):
        owner = imported.get(expression.value.id)
        return _resolve(owner, ast.Name(expression.attr), depth + 1) if owner else None
    return None


def _linearization(
    key: tuple[str, str], seen: frozenset[tuple[str, str]] = frozenset()
) -> list[tuple[str, str]] | None:
    """The method resolution order (C3) of a class read from source; None when a base cannot be read."""
    if key in seen:
        return None
    node = (_module_source(key[0]) or ({}, {}))[0].get(key[1])
    if node is None:  # a class of a module already imported without its source (a frozen one: abc.ABC, object)
        loaded = getattr(sys.modules.get(key[0]), key[1], None)
        if not isinstance(loaded, type) or any("__init__" in vars(klass) for klass in loaded.__mro__[:-1]):
            return None
        return [(klass.__module__, klass.__qualname__) for klass in loaded.__mro__]
    resolved = [_resolve(key[0], base) for base in node.bases]
    bases = [base for base in resolved if base is not None]
    if len(bases) < len(resolved):
        return None
    bases = bases or [("builtins", "object")]
    found = [_linearization(base, seen | {key}) for base in bases]
    orders = [order for order in found if order is not None]
    if len(orders) < len(found):
        return None
    pending = [list(order) for order in orders] + [list(bases)]
    merged = [key]
    while any(pending):
        head = next(
            (order[0] for order in pending if order and not any(order[0] in other[1:] for other in pending)), None
        )
        if head is None:
            return None
        merged.append(head)
        pending = [[entry for entry in order if entry != head] for order in pending]
    return merged


class Declared(NamedTuple):
    """A model class's ``__init__`` arguments as its source declares them (:func:`declared_arguments`)."""

    accepted: list[str]  # as accepted_arguments
    checked: bool  # whether the class is a CheckedArguments
    required: list[str]  # as required_arguments
    defaults: dict[str, object]  # the accepted ones' defaults written as a literal (a name's value is not read)


def declared_arguments(class_path: str) -> Declared | None:
    """:func:`accepted_arguments`, :func:`required_arguments` and the defaults of the class at ``module.Class``, and
    whether it is a :class:`CheckedArguments`, read from the source of it and its bases without importing them
    (lmms-eval and torch take seconds to import); None when the source cannot tell."""
    module, _, name = class_path.rpartition(".")
    order = _linearization((module, name))
    if order is None:
        return None
    found = Declared([], (__name__, CheckedArguments.__name__) in order, [], {})
    for where, class_name in order:
        node = (_module_source(where) or ({}, {}))[0].get(class_name)
        if node is None:  # a class without __init__ of its own (abc.ABC, object)
            continue
        init = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)
        if init is None:
            continue
        arguments = init.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
        pairs = [*zip(positional, defaults, strict=True)][1:]
        pairs += zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        for argument, default in pairs:
            if argument in arguments.posonlyargs or argument.arg in found.accepted:
                continue
            found.accepted.append(argument.arg)
            if default is None:
                found.required.append(argument.arg)
            else:
                with contextlib.suppress(ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    found.defaults[argument.arg] = ast.literal_eval(default)
        if arguments.kwarg is None:
            break
    return found
