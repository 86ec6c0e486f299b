"""The package's imports flow one way: every import, at module level or inside a function, static or dynamic
(``importlib.import_module``, ``__import__``, a module name built in an f-string), points down the layers below,
never up, and no modules import each other in a circle."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import abductive_tasks

PACKAGE_NAME = "abductive_tasks"
MODULE_NAME = re.compile(r"abductive_tasks(\.\w+)+")
PACKAGE = Path(abductive_tasks.__file__).parent
# Bottom to top; a module may import its own layer and the layers before it.
LAYERS = (
    # tasks: the YAML folder, a package with no code once installed; exports: how a benchmark exposes its hooks
    ("settings", "hints", "lmms_source", "compat", "exports", "redaction", "tasks"),
    ("inputs",),
    ("scoring",),
    ("nleye", "mucr", "dve", "sherlock"),
    ("models",),
    ("runs",),
    # lmms_subcommands: lmms-eval's power subcommand and web UI, served for the reports (it reads samples files
    # through inputs.files, no link followed)
    ("reports", "lmms_subcommands"),
    ("cli",),
)
LEVEL = {part: level for level, parts in enumerate(LAYERS) for part in parts}
BENCHMARKS = LAYERS[3]
IMPORT_FUNCTIONS = {"import_module", "__import__"}

# Dynamic imports whose target no constant prefix pins to one layer, by (importing module, target as written):
# the layer parts the target can reach, and why. Any other such import below the top layer is a violation.
DYNAMIC_TARGETS: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("abductive_tasks.runs.identity", "f'abductive_tasks.{benchmark}.data'"): (
        BENCHMARKS,
        "a benchmark's data module, for the hub dataset its loader downloads (HUB_REPO)",
    ),
    ("abductive_tasks.runs.identity", "f'abductive_tasks.{benchmark}'"): (
        BENCHMARKS,
        "a single-module benchmark, for its HUB_REPO",
    ),
    ("abductive_tasks.runs.identity", "name"): (BENCHMARKS, "one of the two benchmark module names above"),
    ("abductive_tasks.compat", "self.__name__"): (("compat",), "a name of compat.DEFERRED_IMPORTS: not ours"),
}


@dataclass
class Imports:
    """What one module's source imports: module names (static, or dynamic with a constant prefix naming a
    module), and the dynamic targets no constant prefix resolves, as written."""

    names: set[str] = field(default_factory=set)
    unresolved: set[str] = field(default_factory=set)


def constant_prefix(node: ast.expr) -> tuple[str, bool]:
    """The constant start of a string expression and whether that is the whole string: a literal, an f-string's
    leading text, ``"a." + x``, ``"a.%s" % x``, ``"a.{}".format(x)``; ``("", False)`` for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, True
    if isinstance(node, ast.JoinedStr):
        prefix = ""
        for part in node.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                return prefix, False
            prefix += part.value
        return prefix, True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return constant_prefix(node.left)[0], False
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return constant_prefix(node.left)[0].partition("%")[0], False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return constant_prefix(node.func.value)[0].partition("{")[0], False
    return "", False


def dynamic_name(node: ast.expr) -> str | None:
    """The package module a dynamic target names by its constant prefix (whole dotted parts only), None when the
    prefix names no module below the package root."""
    prefix, whole = constant_prefix(node)
    name = prefix if whole else prefix.rpartition(".")[0]
    return name if name.startswith(f"{PACKAGE_NAME}.") and MODULE_NAME.fullmatch(name) else None


def is_import_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not node.args:
        return False
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
    return name in IMPORT_FUNCTIONS


def scan_imports(source: str, module: str) -> Imports:
    """Every abductive_tasks module the source of ``module`` imports: statements anywhere in the file (relative
    ones resolved), any string literal that is exactly a module name (the CLI's subcommand table), except a
    ``python -m <module>`` command line (that starts a process and imports nothing here), and dynamic imports:
    the target of an ``import_module``/``__import__`` call and any f-string or string template starting with the
    package name, resolved by their constant prefix."""
    found = Imports()
    tree = ast.parse(source)
    commands = {
        id(after)
        for node in ast.walk(tree)
        if isinstance(node, ast.List | ast.Tuple)
        for before, after in zip(node.elts, node.elts[1:], strict=False)
        if isinstance(before, ast.Constant) and before.value == "-m"
    }
    dynamic = [node.args[0] for node in ast.walk(tree) if is_import_call(node)]
    dynamic += [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr | ast.BinOp | ast.Call)
        and not is_import_call(node)
        and constant_prefix(node)[0].startswith(f"{PACKAGE_NAME}.")
    ]
    inner = {id(child) for node in dynamic for child in ast.walk(node) if child is not node}
    package = module.removesuffix(".__init__") if module.endswith(".__init__") else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            origin = ".".join(part for part in (base, node.module or "") if part)
            found.names.add(origin)
            found.names.update(f"{origin}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in commands:
            found.names.update(MODULE_NAME.fullmatch(node.value) and [node.value] or [])
    for target in {id(node): node for node in dynamic if id(node) not in inner}.values():
        name = dynamic_name(target)
        if name is not None:
            found.names.add(name)
        elif not (isinstance(target, ast.Constant) and isinstance(target.value, str)):
            found.unresolved.add(ast.unparse(target))
    found.names = {name for name in found.names if name.startswith(f"{PACKAGE_NAME}.")}
    return found


def known_module(name: str, modules: set[str]) -> str | None:
    """The package module ``name`` refers to (``from pkg import function`` names the package)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def layer(module: str) -> int:
    return LEVEL[module.split(".")[1]]


def violations(module: str, imports: Imports, modules: set[str]) -> list[str]:
    """The imports of ``module`` that point up the layers, and its dynamic imports that no constant prefix or
    :data:`DYNAMIC_TARGETS` entry pins to a layer (allowed in the top layer only: nothing is above it)."""
    found = [
        f"{module} -> {target}"
        for name in sorted(imports.names)
        if (target := known_module(name, modules)) not in (None, PACKAGE_NAME) and layer(target) > layer(module)
    ]
    for target in sorted(imports.unresolved):
        parts, _reason = DYNAMIC_TARGETS.get((module, target), ((LAYERS[-1][0],), ""))
        if max(map(LEVEL.__getitem__, parts)) > layer(module):
            found.append(f"{module} -> {target} (a dynamic import no constant prefix pins to a layer)")
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


SOURCES = {module_name(path): path for path in PACKAGE.rglob("*.py") if "sample_data" not in path.parts}
IMPORTS = {
    module: scan_imports(path.read_text(encoding="utf-8"), module + (".__init__" if path.stem == "__init__" else ""))
    for module, path in SOURCES.items()
    if module != PACKAGE_NAME
}
GRAPH = {
    module: {target for name in imports.names if (target := known_module(name, set(SOURCES)))} - {module}
    for module, imports in IMPORTS.items()
}


def test_every_top_level_part_has_a_layer():
    assert {module.split(".")[1] for module in GRAPH} <= set(LEVEL)


def test_no_upward_import():
    upward = [found for module, imports in IMPORTS.items() for found in violations(module, imports, set(SOURCES))]
    assert upward == []


def test_every_allowed_dynamic_import_is_still_there():
    assert sorted(key for key in DYNAMIC_TARGETS if key[1] not in IMPORTS.get(key[0], Imports()).unresolved) == []


def test_no_import_circle():
    # Package __init__ files that re-export their own submodules are edges inside one package, not circles.
    edges = {
        module: {target for target in targets if not module.startswith(f"{target}.")}
        for module, targets in GRAPH.items()
    }
    try:
        TopologicalSorter(edges).prepare()
        circle = None
    except CycleError as error:
        circle = error.args[1]
    assert circle is None


def test_the_walk_sees_function_level_imports():
    """Guards the test itself: cli imports inputs inside a function and names the runs in its subcommand table."""
    assert "abductive_tasks.runs.batch" in GRAPH["abductive_tasks.cli"]
    assert "abductive_tasks.inputs.loading" in GRAPH["abductive_tasks.cli"]


def test_what_reads_the_plan_never_calls_back_into_it():
    """The batch's plan is built once (runs/plan.py) and handed down as data (runs/model_plan.py): the levels, the run,
    the status and every service below them import no part of plan.py; only the batch, which builds it, does."""
    importers = sorted(module for module, targets in GRAPH.items() if "abductive_tasks.runs.plan" in targets)
    assert importers == ["abductive_tasks.runs.batch"]
    assert "abductive_tasks.runs.model_plan" in GRAPH["abductive_tasks.runs.run"]
    assert "abductive_tasks.runs.model_plan" in GRAPH["abductive_tasks.runs.levels"]


PLANTED = """
import importlib
from importlib import import_module

from abductive_tasks.inputs import loading


def every_hook(name, part):
    importlib.import_module(f"abductive_tasks.{name}.hooks")  # any benchmark: no layer
    import_module(f"abductive_tasks.reports.{part}")  # the reports layer, by its prefix
    __import__("abductive_tasks." + part)  # no layer
    import_module("abductive_tasks.{}.metrics".format(name))  # no layer
    import_module(f"abductive_tasks.inputs.{part}")  # below scoring: allowed
    return import_module(name)  # no layer
"""


def test_a_planted_dynamic_upward_import_is_caught():
    """A scoring module that imports through f-strings, a concatenation, ``str.format`` and a bare name: every
    target above scoring or of no knowable layer is a violation; the one below scoring is not."""
    module = "abductive_tasks.scoring.planted"
    imports = scan_imports(PLANTED, module)
    assert imports.names >= {"abductive_tasks.inputs", "abductive_tasks.reports", "abductive_tasks.inputs.loading"}
    assert violations(module, imports, set(SOURCES)) == [
        "abductive_tasks.scoring.planted -> abductive_tasks.reports",
        "abductive_tasks.scoring.planted -> 'abductive_tasks.' + part (a dynamic import no constant prefix pins to "
        "a layer)",
        "abductive_tasks.scoring.planted -> 'abductive_tasks.{}.metrics'.format(name) (a dynamic import no constant "
        "prefix pins to a layer)",
        "abductive_tasks.scoring.planted -> f'abductive_tasks.{name}.hooks' (a dynamic import no constant prefix "
        "pins to a layer)",
        "abductive_tasks.scoring.planted -> name (a dynamic import no constant prefix pins to a layer)",
    ]
    # The same source in the top layer imports nothing above it; a relative import resolves to its package.
    assert violations("abductive_tasks.cli", scan_imports(PLANTED, "abductive_tasks.cli"), set(SOURCES)) == []
    relative = scan_imports("from ..reports import browse\n", "abductive_tasks.scoring.planted")
    assert violations(module, relative, set(SOURCES)) == [
        "abductive_tasks.scoring.planted -> abductive_tasks.reports",
        "abductive_tasks.scoring.planted -> abductive_tasks.reports.browse",
    ]


# ---------------------------------------------------------------- declared faces

READING = "abductive_tasks.scoring.reading"


def imported_names(module: str) -> list[tuple[str, str]]:
    """(module imported from, name) for every ``from abductive_tasks... import name`` of ``module``'s source, at any
    depth (relative imports resolved)."""
    path = SOURCES[module]
    package = module if path.stem == "__init__" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            origin = ".".join(part for part in (base, node.module or "") if part)
            if origin.startswith(f"{PACKAGE_NAME}."):
                found += [(origin, alias.name) for alias in node.names]
    return found


def declared(module: str) -> list[str] | None:
    """The ``__all__`` a module's source declares, None when it declares none."""
    for node in ast.parse(SOURCES[module].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "__all__" for target in node.targets):
            return ast.literal_eval(node.value)
    return None


def test_no_module_imports_another_modules_private_names():
    private = [
        f"{module}: {origin}.{name}"
        for module in SOURCES
        for origin, name in imported_names(module)
        if name.startswith("_") and origin != module
    ]
    assert private == []


def test_reading_is_used_through_its_declared_face():
    """scoring/reading/ has a small internal API: each module declares what its siblings may use (``__all__``), and
    code outside it imports only what the package exports (its ``__init__``'s ``__all__``), from the package."""
    inside = sorted(module for module in SOURCES if module.startswith(f"{READING}."))
    undeclared = [module for module in [READING, *inside] if declared(module) is None]
    assert undeclared == []
    wrong = []
    for module in SOURCES:
        for origin, name in imported_names(module):
            if not (origin == READING or origin.startswith(f"{READING}.")):
                continue
            if not module.startswith(READING):  # outside: the package's face only
                if origin != READING or name not in declared(READING):
                    wrong.append(f"{module}: {origin}.{name}")
            elif origin in SOURCES and name not in declared(origin):  # a sibling: only what it declares
                wrong.append(f"{module}: {origin}.{name}")
    assert wrong == []
    assert {name for _, name in imported_names(READING)} == set(declared(READING))  # it exports what it imports
