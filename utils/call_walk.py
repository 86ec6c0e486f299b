"""How often following a call graph goes back into a module it had already left: a measure of a flow's back and forth.

From one function of ``abductive_tasks`` (by default the batch runner, ``abductive_tasks.runs.batch:run_batch``) the
static call graph is walked depth first, each function visited once, calls in source order. A call is followed when it
names a function or class of the package: a name defined in the module or imported from the package, ``module.name``
through an imported module, ``Class.method``, ``self.method``, ``param.method`` where the parameter's annotation (or an
annotated variable's, a nested function's parameter's) names a class of the package, and the same through fields
(``param.field.method``, ``self.field.method``) where the class declares the field with an annotation naming a class of
the package (a plan handing down a service); a function of the package handed to a call as an argument (a callback)
counts as a call too, and a class called is a call into its module (its ``__init__`` or ``__post_init__`` followed
when it has one).
Not followed: methods of objects whose class the code never names, properties, ``getattr``.

Each call from one module into another is counted; it is a *return* when the walk had entered that module before
(it left it to get where it is). The report gives both totals, the modules entered and how often each was, and the
*floor*: the fewest returns any code with the same module pairs (caller module, called module) could make, each
pair's calls merged into one: the pairs less the modules they enter. Below it only fewer pairs go (a module calling
no longer into another, or two modules merged).

    python utils/call_walk.py                       # from run_batch
    python utils/call_walk.py abductive_tasks.reports.leaderboard.cells:collect --trace
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "abductive_tasks"
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Module:
    """One module's definitions and what its names stand for."""

    name: str
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    imported: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # local name -> (module, name or None)


def module_path(name: str) -> Path | None:
    """The file of module ``name`` in the checkout, or None."""
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _absolute(module: str, level: int, current: str, is_package: bool) -> str:
    if not level:
        return module
    parts = current.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


class Graph:
    """The package's modules, parsed on first use."""

    def __init__(self) -> None:
        self.modules: dict[str, Module | None] = {}

    def module(self, name: str) -> Module | None:
        if name not in self.modules:
            self.modules[name] = self._parse(name)
        return self.modules[name]

    def _parse(self, name: str) -> Module | None:
        path = module_path(name) if name.split(".")[0] == PACKAGE else None
        if path is None:
            return None
        tree = ast.parse(path.read_text(), str(path))
        found = Module(name)
        for node in ast.walk(tree):  # function-level imports name things too
            if isinstance(node, ast.ImportFrom):
                source = _absolute(node.module or "", node.level, name, path.name == "__init__.py")
                for alias in node.names:
                    if self.module(f"{source}.{alias.name}") is not None:
                        found.imported[alias.asname or alias.name] = (f"{source}.{alias.name}", None)
                    else:
                        found.imported[alias.asname or alias.name] = (source, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        found.imported[alias.asname] = (alias.name, None)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                found.classes[node.name] = node
        return found

    def definition(self, module: str, name: str, seen: frozenset[str] = frozenset()) -> tuple[str, str] | None:
        """``(module, qualified name)`` where ``module.name`` is defined (following re-exports), or None."""
        found = self.module(module)
        if found is None or (module, name) in seen:
            return None
        if name in found.functions or name in found.classes:
            return module, name
        if name in found.imported:
            source, attribute = found.imported[name]
            if attribute is not None:
                return self.definition(source, attribute, seen | {(module, name)})
        return None

    def method(self, module: str, cls: str, name: str) -> tuple[str, str] | None:
        node = self.modules[module].classes.get(cls) if self.modules.get(module) else None
        if node is None:
            return None
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == name:
                return module, f"{cls}.{name}"
        return None

    def field_class(self, module: str, cls: str, name: str) -> tuple[str, str] | None:
        """The package class that field ``name`` of class ``cls`` is annotated with (``Scan``, ``Scan | None``), or
        None."""
        node = self.modules[module].classes.get(cls) if self.modules.get(module) else None
        for item in node.body if node is not None else ():
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.target.id == name:
                for found in ast.walk(item.annotation):
                    annotated = self.annotated_class(module, found)
                    if annotated is not None:
                        return annotated
        return None

    def annotated_class(self, module: str, node: ast.AST) -> tuple[str, str] | None:
        """The package class a name in an annotation stands for (a string annotation is parsed), or None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if not isinstance(node, ast.Name):
            return None
        found = self.module(module)
        if node.id in found.classes:
            return module, node.id
        source, attribute = found.imported.get(node.id, ("", None))
        target = self.definition(source, attribute) if attribute else None
        return target if target is not None and isinstance(self.node(*target), ast.ClassDef) else None

    def node(self, module: str, qualified: str) -> ast.AST:
        found = self.modules[module]
        if "." not in qualified:
            return found.functions.get(qualified) or found.classes[qualified]
        cls, name = qualified.split(".")
        return next(item for item in found.classes[cls].body if getattr(item, "name", None) == name)


@dataclass
class Walk:
    """The walk's findings."""

    calls: int = 0  # calls that hand the value from one module into another
    returns: int = 0  # of which into a module entered before
    entries: Counter = field(default_factory=Counter)
    trace: list[str] = field(default_factory=list)
    pairs: set[tuple[str, str]] = field(default_factory=set)  # (caller module, called module)

    @property
    def floor(self) -> int:
        """The fewest returns these module pairs allow: one call per pair, the first into each module no return."""
        return len(self.pairs) - len({called for _, called in self.pairs})


def _mentions(expression: ast.AST | None, carriers: set[str]) -> bool:
    """Whether ``expression`` reads one of the names in ``carriers``."""
    return expression is not None and any(
        isinstance(node, ast.Name) and node.id in carriers for node in ast.walk(expression)
    )


def _bound(target: ast.AST) -> list[str]:
    return [node.id for node in ast.walk(target) if isinstance(node, ast.Name)]


def carriers_of(function: ast.AST, followed: set[str]) -> set[str]:
    """The names in ``function`` that hold the followed value or something made from it (an assignment, a loop, a
    ``with``, a comprehension or a nested function's parameter fed from it), to a fixed point."""
    carriers = set(followed)
    while True:
        before = len(carriers)
        for node in ast.walk(function):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and _mentions(
                node.value, carriers
            ):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                carriers.update(name for target in targets for name in _bound(target))
            elif isinstance(node, ast.For | ast.comprehension) and _mentions(node.iter, carriers):
                carriers.update(_bound(node.target))
            elif isinstance(node, ast.withitem) and node.optional_vars and _mentions(node.context_expr, carriers):
                carriers.update(_bound(node.optional_vars))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):  # a default fed from it
                positional = [*node.args.posonlyargs, *node.args.args]
                defaults = zip(positional[len(positional) - len(node.args.defaults) :], node.args.defaults, strict=True)
                keywords = zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
                for argument, default in [*defaults, *keywords]:
                    if default is not None and _mentions(default, carriers):
                        carriers.add(argument.arg)
        if len(carriers) == before:
            return carriers


def _parameters(function: ast.AST) -> list[str]:
    arguments = function.args
    return [argument.arg for argument in [*arguments.posonlyargs, *arguments.args]]


class Walker:
    """Follows one parameter depth first; each function is walked once (with the parameters that first carried it)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.visited: set[tuple[str, str]] = set()
        self.walk = Walk()

    def start(self, module: str, qualified: str, parameter: str) -> Walk:
        self.walk.entries[module] += 1
        self._visit(module, qualified, {parameter}, 0)
        return self.walk

    def _visit(self, module: str, qualified: str, followed: set[str], depth: int) -> None:
        self.visited.add((module, qualified))
        function = self.graph.node(module, qualified)
        carriers = carriers_of(function, followed)
        cls = qualified.split(".")[0] if "." in qualified else None
        typed = self._annotated(module, function)
        seen: set[tuple[str, str]] = set()
        calls = sorted(
            (node for statement in function.body for node in ast.walk(statement) if isinstance(node, ast.Call)),
            key=lambda node: (node.lineno, node.col_offset),
        )
        for call in [handing for node in calls for handing in self._callbacks(module, cls, typed, node)]:
            target = self._resolve(module, cls, typed, call.func)
            if target is None:
                continue
            target, handed = self._handed(target, call, carriers)
            if target is None or not handed or target in seen:
                continue
            seen.add(target)
            if target[0] != module:
                self.walk.calls += 1
                returning = target[0] in self.walk.entries
                self.walk.returns += returning
                self.walk.entries[target[0]] += 1
                self.walk.pairs.add((module, target[0]))
                mark = " (return)" if returning else ""
                line = f"{'  ' * depth}{module}:{qualified} -> {target[0]}:{target[1]} as {', '.join(handed)}{mark}"
                self.walk.trace.append(line)
            if target not in self.visited:
                self._visit(*target, set(handed), depth + 1)

    def _callbacks(
        self, module: str, cls: str | None, typed: dict[str, tuple[str, str]], call: ast.Call
    ) -> list[ast.Call]:
        """The call, then one call per function of the package it is handed as a positional argument (a callback:
        ``stack.callback(scrub, cache, secrets)``, ``pool.submit(run, plan)``), given the arguments after it and the
        call's keywords."""
        found = [call]
        for index, argument in enumerate(call.args):
            target = (
                self._resolve(module, cls, typed, argument) if isinstance(argument, ast.Name | ast.Attribute) else None
            )
            if target is not None and isinstance(self.graph.node(*target), ast.FunctionDef | ast.AsyncFunctionDef):
                handing = ast.Call(func=argument, args=call.args[index + 1 :], keywords=call.keywords)
                found.append(ast.copy_location(handing, call))
        return found

    def _handed(
        self, target: tuple[str, str], call: ast.Call, carriers: set[str]
    ) -> tuple[tuple[str, str] | None, list[str]]:
        """The function a call runs (a class: its ``__init__`` or ``__post_init__``; None if it has neither) and its
        parameters that receive the followed value."""
        node = self.graph.node(*target)
        receiver = isinstance(call.func, ast.Attribute) and _mentions(call.func.value, carriers)
        if isinstance(node, ast.ClassDef):
            found = [self.graph.method(*target, name) for name in ("__init__", "__post_init__")]
            target = next((method for method in found if method is not None), None)
            if target is None:
                return None, []
            node, receiver = self.graph.node(*target), False
        parameters = _parameters(node)
        is_method = "." in target[1] and parameters[:1] == ["self"]
        handed = ["self"] if is_method and receiver else []
        positional = parameters[1:] if is_method else parameters
        for name, argument in zip(positional, call.args, strict=False):
            if _mentions(argument, carriers):
                handed.append(name)
        handed += [keyword.arg for keyword in call.keywords if keyword.arg and _mentions(keyword.value, carriers)]
        return target, handed

    def _annotated(self, module: str, function: ast.AST) -> dict[str, tuple[str, str]]:
        """Parameters, and variables of its body (``source: ModelPlan | None = ...``, a nested function's parameters),
        whose annotation names a class of the package (``TaskIndex | None`` names ``TaskIndex``)."""
        typed = {}
        annotated: list[tuple[str, ast.AST | None]] = []
        for node in [function, *ast.walk(ast.Module(body=getattr(function, "body", []), type_ignores=[]))]:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                annotated += [(argument.arg, argument.annotation) for argument in arguments]
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                annotated.append((node.target.id, node.annotation))
        for variable, annotation in annotated:
            for name in ast.walk(annotation) if annotation else ():
                target = self.graph.annotated_class(module, name)
                if target is not None:
                    typed.setdefault(variable, target)
        return typed

    def _resolve(
        self, module: str, cls: str | None, typed: dict[str, tuple[str, str]], expression: ast.AST
    ) -> tuple[str, str] | None:
        found = self.graph.module(module)
        if isinstance(expression, ast.Name):
            if expression.id in found.functions or expression.id in found.classes:
                return module, expression.id
            source, attribute = found.imported.get(expression.id, ("", None))
            return self.graph.definition(source, attribute) if attribute else None
        if not isinstance(expression, ast.Attribute):
            return None
        if isinstance(expression.value, ast.Attribute):  # param.field.method: through the field's annotated class
            holder = self._class_of(module, cls, typed, expression.value)
            return self.graph.method(*holder, expression.attr) if holder is not None else None
        if not isinstance(expression.value, ast.Name):
            return None
        owner, name = expression.value.id, expression.attr
        if owner == "self" and cls is not None:
            return self.graph.method(module, cls, name)
        if owner in typed:
            return self.graph.method(*typed[owner], name)
        source, attribute = found.imported.get(owner, ("", None))
        if source and attribute is None:  # an imported module
            return self.graph.definition(source, name)
        holder = self._resolve(module, cls, typed, expression.value)
        if holder is not None and isinstance(self.graph.node(*holder), ast.ClassDef):
            return self.graph.method(*holder, name)
        return None

    def _class_of(
        self, module: str, cls: str | None, typed: dict[str, tuple[str, str]], expression: ast.AST
    ) -> tuple[str, str] | None:
        """The package class an expression's value is an instance of, as far as annotations say: ``self``, a typed
        parameter, or a field of one (``plan.earlier``), however deep."""
        if isinstance(expression, ast.Name):
            if expression.id == "self" and cls is not None:
                return module, cls
            return typed.get(expression.id)
        if isinstance(expression, ast.Attribute):
            holder = self._class_of(module, cls, typed, expression.value)
            return self.graph.field_class(*holder, expression.attr) if holder is not None else None
        return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "start", nargs="?", default=f"{PACKAGE}.runs.batch:run_batch:spec", help="MODULE:FUNCTION:PARAMETER"
    )
    parser.add_argument("--trace", action="store_true", help="print every call between modules, indented by depth")
    args = parser.parse_args(argv)
    module, function, parameter = (args.start.split(":") + ["", ""])[:3]
    graph = Graph()
    if graph.module(module) is None or graph.definition(module, function) is None:
        parser.error(f"{args.start}: no such function in the checkout")
    start = graph.definition(module, function)
    if parameter not in _parameters(graph.node(*start)):
        parser.error(f"{args.start}: {function} has no parameter {parameter!r}")
    walk = Walker(graph).start(*start, parameter)
    if args.trace:
        print("\n".join(walk.trace))
    print(f"from {args.start}: {walk.calls} calls between {len(walk.entries)} modules, {walk.returns} returns")
    print(f"floor: {len(walk.pairs)} module pairs, so at least {walk.floor} returns with one call per pair")
    for name, count in walk.entries.most_common():
        print(f"  {count:3d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
