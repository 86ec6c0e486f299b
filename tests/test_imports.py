"""The package's imports flow one way: every import, at module level or inside a function,
points down the layers below, never up, and no modules import each other in a circle."""

from __future__ import annotations

import ast
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import abductive_tasks

MODULE_NAME = re.compile(r"abductive_tasks(\.\w+)+")
PACKAGE = Path(abductive_tasks.__file__).parent
# Bottom to top; a module may import its own layer and the layers before it.
LAYERS = (
    ("settings", "compat", "tasks"),  # tasks: the YAML folder, a package with no code once installed
    ("inputs",),
    ("scoring",),
    ("nleye", "mucr", "dve", "sherlock"),
    ("models",),
    ("runs",),
    ("reports",),
    ("cli",),
)
LEVEL = {part: level for level, parts in enumerate(LAYERS) for part in parts}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """Every abductive_tasks module ``path`` imports: statements anywhere in the file, and any string
    literal that is exactly a module name (``import_module`` targets, the CLI's subcommand table), except
    a ``python -m <module>`` command line: that starts a process and imports nothing here."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    commands = {
        id(after)
        for node in ast.walk(tree)
        if isinstance(node, ast.List | ast.Tuple)
        for before, after in zip(node.elts, node.elts[1:], strict=False)
        if isinstance(before, ast.Constant) and before.value == "-m"
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in commands:
            found.update(MODULE_NAME.fullmatch(node.value) and [node.value] or [])
    return {name for name in found if name.startswith("abductive_tasks.")}


def known_module(name: str, modules: set[str]) -> str | None:
    """The package module ``name`` refers to (``from pkg import function`` names the package)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def layer(module: str) -> int:
    return LEVEL[module.split(".")[1]]


SOURCES = {module_name(path): path for path in PACKAGE.rglob("*.py") if "sample_data" not in path.parts}
GRAPH = {
    module: {target for name in imported_modules(path) if (target := known_module(name, set(SOURCES)))} - {module}
    for module, path in SOURCES.items()
    if module != "abductive_tasks"
}


def test_every_top_level_part_has_a_layer():
    assert {module.split(".")[1] for module in GRAPH} <= set(LEVEL)


def test_no_upward_import():
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if target != "abductive_tasks" and layer(target) > layer(module)
    )
    assert upward == []


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
    assert "abductive_tasks.inputs.data" in GRAPH["abductive_tasks.cli"]
