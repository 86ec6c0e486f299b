"""What a task's results depend on in our code: the definitions reached from its scoring hooks, and their digest.

A task's ``process_results`` reader, its aggregations and its task spec are the roots. From each root the module-level
definitions (functions, classes, assignments) of ``abductive_tasks`` that its code names are followed, through
imports, ``module.name`` attributes and function-level imports, to a closed set: the reader's answer kind and the
reading rules it applies, the record and metric code, the task spec machinery, the bootstrap. A class is taken
whole (a method may call any other through ``self``).

Each definition is digested from its syntax tree, so that what does not run does not count:

* left out: comments, formatting, docstrings, the annotations of function signatures (with postponed evaluation
  they never run) and of local variables (never evaluated), and import statements inside functions (what they
  import is followed instead);
* kept: everything else, including class-body annotations (dataclass and ``msgspec.Struct`` fields are made from
  them), the example replies of the reading rules (they sit in the rule tables), names and string constants.

The tree is written out by :func:`canonical`, node type and fields by name, skipping the fields that differ
between Python 3.10 and 3.12 (``type_params``, ``kind``, ``ctx``) and merging the string pieces of f-strings, so the
digest is the same on every supported Python and machine: no path, no line number, no ``repr`` of a live object.

A definition's digest does not contain its module's name, nor a ``def``'s or ``class``'s own: moving code between
modules (a rename of ``inputs/``, say) or renaming a hook only a YAML names changes no task's digest; renaming what
the code calls does, since the caller's tree names it. What each imported name it reads stands for is part of it
(``from m import A as B``: B is A; ``from math import ceil as floor``), by the definition's name, not its module's.

Nor does it contain the names a function gives its own variables (:func:`locals_renamed`: they are numbered in the
order they first appear, in their scope): renaming a local variable changes no digest; renaming a parameter, or a
variable into a name the function also reads from around it, does.

A module-level statement that may change a name it mentions without binding it (``del X[k]``, ``X[k] = ...``, a
loop, a call such as ``X.update(...)``) is part of the definition of every name it mentions.

One table is read at run time instead: ``abductive_tasks.settings.VARIABLES`` contributes the defaults of the
variables that change scores (their help texts are documentation).

Names the code reaches only dynamically (``getattr(module, name)``, a method of an object whose class the code never
names) are not followed; the prompt side of such code is covered by the snapshot's prompt instead.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

Ref = tuple[str, str]  # (module, top-level name)

_SKIPPED_FIELDS = frozenset({"ctx", "kind", "type_comment", "type_params"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def canonical(node: object, in_function: bool = False) -> str:
    """``node`` written out by node type and field name: stable across Python 3.10-3.12, without what does not
    run (docstrings, the annotations of signatures and local variables, function-level imports). ``in_function``:
    ``node`` lies in a function body (where a variable's annotation is never evaluated)."""
    if isinstance(node, list):
        items = (canonical(item, in_function) for item in _without_imports(node))
        return "[" + ",".join(item for item in items if item) + "]"
    if not isinstance(node, ast.AST):
        return repr(node)
    if in_function and isinstance(node, ast.AnnAssign):  # a local variable's annotation is never evaluated
        return "" if node.value is None else canonical(ast.Assign([node.target], node.value), in_function)
    inner = isinstance(node, _FUNCTIONS) or (in_function and not isinstance(node, ast.ClassDef))
    fields = []
    for name in node._fields:
        if name in _SKIPPED_FIELDS:
            continue
        value = getattr(node, name, None)
        if name == "body" and isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Module)):
            value = _without_docstring(value)
        elif name == "values" and isinstance(node, ast.JoinedStr):
            value = _merged_strings(value)
        elif _unevaluated_annotation(node, name):
            value = None
        fields.append(f"{name}={canonical(value, inner)}")
    return f"{type(node).__name__}({','.join(fields)})"


def _unevaluated_annotation(node: ast.AST, name: str) -> bool:
    """A signature's annotations (never evaluated with postponed evaluation)."""
    return (name == "returns" and isinstance(node, _FUNCTIONS)) or (name == "annotation" and isinstance(node, ast.arg))


def _without_docstring(body: list) -> list:
    first = body[0] if body else None
    is_docstring = (
        isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    )
    return body[1:] if is_docstring else body


def _without_imports(items: list) -> list:
    return [item for item in items if not isinstance(item, (ast.Import, ast.ImportFrom))]


def _running(node: ast.AST, in_function: bool = False) -> Iterator[ast.AST]:
    """The nodes of ``node`` that :func:`canonical` keeps: not the annotations it leaves out (a name used only in
    an annotation is not followed)."""
    yield node
    if in_function and isinstance(node, ast.AnnAssign):
        fields = ["target", "value"]
    else:
        fields = [name for name in node._fields if not _unevaluated_annotation(node, name)]
    inner = isinstance(node, _FUNCTIONS) or (in_function and not isinstance(node, ast.ClassDef))
    for name in fields:
        value = getattr(node, name, None)
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                yield from _running(child, inner)


def _merged_strings(values: list) -> list:
    """An f-string's pieces with adjacent constant strings joined and empty ones dropped (3.12 splits them
    differently)."""
    merged: list = []
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            if not value.value:
                continue
            if merged and isinstance(merged[-1], ast.Constant):
                merged[-1] = ast.Constant(merged[-1].value + value.value)
                continue
            merged.append(ast.Constant(value.value))
        else:
            merged.append(value)
    return merged


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class _Module:
    """One module of the package as written: its top-level definitions and the names it imports."""

    name: str
    is_package: bool
    definitions: dict[str, list[ast.AST]] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted target
    effects: list[ast.stmt] = field(default_factory=list)  # what runs on import besides binding names

    @classmethod
    def parse(cls, name: str, path: Path) -> _Module:
        module = cls(name, path.name == "__init__.py")
        module._read(ast.parse(path.read_text(encoding="utf-8"), str(path)).body)
        bound = set(module.definitions) - set(module.imports)
        for statement in module.effects:  # part of each definition of the module it names (not of an import)
            for name in sorted(bound & {node.id for node in ast.walk(statement) if isinstance(node, ast.Name)}):
                module._define(name, statement)
        return module

    def _read(self, statements: Iterable[ast.stmt]) -> None:
        for statement in statements:
            if isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
                self._define(statement.name, statement)
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                self.imports.update(_imported(statement, self.name, self.is_package))
            elif _runs_as_script(statement) or _is_docstring(statement):
                continue
            elif isinstance(statement, (ast.If, ast.Try)):
                for block in (statement.body, statement.orelse, getattr(statement, "finalbody", [])):
                    self._read(block)
                for handler in getattr(statement, "handlers", []):
                    self._read(handler.body)
            elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and _defines_only_names(statement):
                for name in _bound_names(statement):
                    self._define(name, statement)
            else:  # a statement that may change what it names (del, a loop, a call, X[k] = ...)
                self.effects.append(statement)

    def _define(self, name: str, node: ast.AST) -> None:
        self.definitions.setdefault(name, []).append(node)


def _runs_as_script(statement: ast.stmt) -> bool:
    """``if __name__ == "__main__":``: what runs only when the module is run as a script."""
    test = getattr(statement, "test", None)
    return isinstance(statement, ast.If) and isinstance(test, ast.Compare) and "__main__" in ast.unparse(test)


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _imported(statement: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> dict[str, str]:
    if isinstance(statement, ast.Import):
        return {
            (alias.asname or alias.name.partition(".")[0]): (
                alias.name if alias.asname else alias.name.partition(".")[0]
            )
            for alias in statement.names
        }
    base = statement.module or ""
    if statement.level:
        parts = module.split(".")
        parent = parts if is_package else parts[:-1]
        parent = parent[: len(parent) - statement.level + 1]
        base = ".".join([*parent, base] if base else parent)
    return {(alias.asname or alias.name): f"{base}.{alias.name}" for alias in statement.names if alias.name != "*"}


def _defines_only_names(statement: ast.Assign | ast.AnnAssign) -> bool:
    """``X = ...``, ``X: T = ...``, ``X, Y = ...``: a statement that binds names and changes nothing else."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return all(_plain_target(target) for target in targets)


def _plain_target(target: ast.expr) -> bool:
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_plain_target(element) for element in target.elts)
    return isinstance(target, (ast.Name, ast.Starred)) and (
        not isinstance(target, ast.Starred) or isinstance(target.value, ast.Name)
    )


def _bound_names(statement: ast.Assign | ast.AnnAssign) -> Iterator[str]:
    """The names ``X = ...`` (or ``X, *Y = ...``) binds."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                yield node.id


def _settings_defaults() -> str:
    """``settings.VARIABLES`` as it bears on scores: the defaults of the variables that change them."""
    from abductive_tasks import settings

    return repr(
        sorted((name, variable.default) for name, variable in settings.VARIABLES.items() if variable.changes_scores)
    )


# Definitions digested from a value read at run time instead of their syntax tree (and not followed further).
RUNTIME_VIEWS: dict[Ref, Callable[[], str]] = {("abductive_tasks.settings", "VARIABLES"): _settings_defaults}


class CodeIndex:
    """The modules of one package, parsed on first use; definitions found from live objects, and followed."""

    def __init__(self, package: str = "abductive_tasks") -> None:
        self.package = package
        self.root = Path(importlib.import_module(package).__file__ or "").resolve().parent
        self._modules: dict[str, _Module | None] = {}
        self._digests: dict[Ref, str] = {}
        self._texts: dict[Ref, str] = {}
        self._renamed_nodes: dict[Ref, list[ast.AST]] = {}
        self._references: dict[Ref, frozenset[Ref]] = {}  # a definition's code does not change while an index lives

    # ------------------------------------------------------------ modules

    def module(self, name: str) -> _Module | None:
        """The parsed module ``name``; None when it is not a module of the package."""
        if name not in self._modules:
            self._modules[name] = None
            path = self._path(name)
            if path is not None:
                self._modules[name] = _Module.parse(name, path)
        return self._modules[name]

    def _path(self, name: str) -> Path | None:
        if name != self.package and not name.startswith(self.package + "."):
            return None
        relative = Path(*name.split(".")[1:])
        for path in (self.root / relative / "__init__.py", (self.root / relative).with_suffix(".py")):
            if path.is_file() and path.resolve().is_relative_to(self.root):
                return path
        return None

    def _resolve_target(self, dotted: str, seen: frozenset[str] = frozenset()) -> tuple[str, str | None] | None:
        """A dotted import target as (module, None) for a module of ours or (module, name) for a definition in one."""
        if dotted in seen:
            return None
        if self.module(dotted) is not None:
            return dotted, None
        parent, _, name = dotted.rpartition(".")
        module = self.module(parent) if parent else None
        if module is None:
            return None
        if name in module.definitions:
            return parent, name
        if name in module.imports:  # a re-export
            return self._resolve_target(module.imports[name], seen | {dotted})
        return None

    # ------------------------------------------------------------ live objects

    def locate(self, value: object) -> Ref:
        """The module-level definition that binds ``value`` (the module and name of its ``X = ...`` or ``def X``)."""
        candidates = []
        for name, module in sorted(sys.modules.items()):
            if not (name == self.package or name.startswith(self.package + ".")) or module is None:
                continue
            parsed = self.module(name)
            if parsed is None:
                continue
            for bound in parsed.definitions:
                found = getattr(module, bound, None)
                if found is value or (callable(value) and _same_method(found, value)):
                    candidates.append((name, bound))
        if not candidates:
            raise LookupError(f"no module of {self.package} binds {value!r} at top level")
        return candidates[0]

    # ------------------------------------------------------------ following names

    def reach(self, roots: Iterable[Ref]) -> dict[Ref, str]:
        """Every definition reachable from ``roots``, with its digest."""
        found: dict[Ref, str] = {}
        queue = list(roots)
        while queue:
            ref = queue.pop()
            if ref in found:
                continue
            found[ref] = self.digest(ref)
            if ref not in RUNTIME_VIEWS:
                queue.extend(self.references(ref))
        return found

    def digest(self, ref: Ref) -> str:
        if ref not in self._digests:
            view = RUNTIME_VIEWS.get(ref)
            if view is not None:
                self._digests[ref] = _digest(view())
            else:
                imports = self._imports_read(self.module(ref[0]), self._renamed(ref))
                self._digests[ref] = _digest(self._own_text(ref) + imports)
        return self._digests[ref]

    def _renamed(self, ref: Ref) -> list[ast.AST]:
        """The nodes of definition ``ref``, each unnamed and with its own variables renamed (:func:`locals_renamed`),
        made once an index (its digest and an importer's both read them)."""
        if ref not in self._renamed_nodes:
            module = self.module(ref[0])
            nodes = module.definitions.get(ref[1], []) if module else []
            self._renamed_nodes[ref] = [locals_renamed(_unnamed(node)) for node in nodes]
        return self._renamed_nodes[ref]

    def _own_text(self, ref: Ref) -> str:
        """The canonical text of definition ``ref`` alone, without what its imported names stand for."""
        if ref not in self._texts:
            self._texts[ref] = "\n".join(canonical(node) for node in self._renamed(ref))
        return self._texts[ref]

    def _imports_read(self, module: _Module | None, nodes: list[ast.AST]) -> str:
        """What each imported name ``nodes`` read stands for (``from m import A as B``: B is A): a definition of ours
        by its name and the digest of its own text (moving it between modules changes nothing; two of one name in two
        modules are told apart), a module of ours as such, anything else by its dotted name (``math.ceil``); '' when
        they read none."""
        if module is None:
            return ""
        local = dict(module.imports)
        for node in nodes:
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    local.update(_imported(inner, module.name, module.is_package))
        read = {
            inner.id
            for node in nodes
            for inner in _running(node)
            if isinstance(inner, ast.Name) and inner.id in local and inner.id not in module.definitions
        }
        stands_for = {name: self._resolve_target(local[name]) for name in read}
        return "".join(
            f"\n{name}={self._stands_for(local[name], target)}" for name, target in sorted(stands_for.items())
        )

    def _stands_for(self, dotted: str, target: tuple[str, str | None] | None) -> str:
        if target is None:
            return dotted
        if target[1] is None:
            return "<module>"
        return f"{target[1]}:{_digest(self._own_text((target[0], target[1])))}"

    def effects(self) -> tuple[list[str], list[Ref]]:
        """What importing the package does besides binding names (a call such as ``compat.install()``, a table
        edited in place), in every module but ``__main__`` and script blocks: each statement's canonical text, and
        the definitions those statements name (to follow with :meth:`reach`); of a call, what it calls and what it is
        handed (a filter registered by name runs in any task naming it, ours or not)."""
        texts: list[str] = []
        roots: set[Ref] = set()
        for path in sorted(self.root.rglob("*.py")):
            parts = path.relative_to(self.root).with_suffix("").parts
            name = ".".join([self.package, *(parts[:-1] if parts[-1] == "__init__" else parts)])
            module = self.module(name) if parts[-1] != "__main__" else None
            for statement in module.effects if module else []:
                texts.append(canonical(statement))
                roots |= self._named(module, [statement])
        return sorted(texts), sorted(roots)

    def references(self, ref: Ref) -> frozenset[Ref]:
        """The definitions of the package that the code of ``ref`` names (found once per index: every task's
        snapshot follows the shared reading and scoring code again)."""
        if ref not in self._references:
            module = self.module(ref[0])
            found = self._named(module, module.definitions.get(ref[1], [])) if module else set()
            self._references[ref] = frozenset(found - {ref})
        return self._references[ref]

    def _named(self, module: _Module, nodes: list[ast.AST]) -> set[Ref]:
        """The definitions of the package that ``nodes`` of ``module`` name."""
        found: set[Ref] = set()
        for node in nodes:
            local = dict(module.imports)
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    local.update(_imported(inner, module.name, module.is_package))
            for inner in _running(node):
                if isinstance(inner, (ast.Name, ast.Attribute)):
                    target = self._resolve_expression(inner, module, local)
                    if target is not None and target[1] is not None:
                        found.add((target[0], target[1]))
        return found

    def _resolve_expression(
        self, node: ast.expr, module: _Module, local: dict[str, str]
    ) -> tuple[str, str | None] | None:
        if isinstance(node, ast.Name):
            if node.id in module.definitions:
                return module.name, node.id
            return self._resolve_target(local[node.id]) if node.id in local else None
        if isinstance(node, ast.Attribute):
            base = self._resolve_expression(node.value, module, local)
            if base is not None and base[1] is None:  # an attribute of a module of ours
                return self._resolve_target(f"{base[0]}.{node.attr}")
        return None


_SCOPES = (*_FUNCTIONS, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_DYNAMIC = frozenset({"locals", "vars", "eval", "exec", "globals"})  # calls that read variables by name


def locals_renamed(node: ast.AST) -> ast.AST:
    """A copy of ``node`` whose functions' own variables (bound in their body: not parameters, not ``global``
    names) and comprehensions' variables are renamed ``_v0``, ``_v1``, ... in the order they first appear, each in
    its scope and the scopes inside it (a closure): renaming a local variable changes no digest, while a change of
    what a name refers to (a shadowed global, another global read) still does. A function holding a class, or
    reading variables by name (``locals()``, ``eval``), keeps its own names."""
    node = copy.deepcopy(node)
    counter = iter(range(1 << 30))

    def fresh(names: Iterable[str]) -> dict[str, str]:
        return {name: f"_v{next(counter)}" for name in dict.fromkeys(names)}

    def visit(found: ast.AST, mapping: dict[str, str]) -> None:
        if isinstance(found, ast.Name) and found.id in mapping:
            found.id = mapping[found.id]
        elif isinstance(found, ast.ExceptHandler) and found.name in mapping:
            found.name = mapping[found.name]
        elif isinstance(found, ast.Nonlocal):
            found.names = [mapping.get(name, name) for name in found.names]
        if isinstance(found, _SCOPES):
            function(found, mapping)
        elif isinstance(found, _COMPREHENSIONS):
            comprehension(found, mapping)
        else:
            for child in ast.iter_child_nodes(found):
                visit(child, mapping)

    def function(found: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, outer: dict[str, str]) -> None:
        arguments = found.args
        for part in [*arguments.defaults, *filter(None, arguments.kw_defaults), *getattr(found, "decorator_list", [])]:
            visit(part, outer)
        if isinstance(found, _FUNCTIONS) and found.name in outer:  # a nested def: its name is the scope around's
            found.name = outer[found.name]
        body = found.body if isinstance(found.body, list) else [found.body]
        inside = [child for statement in body for child in _scope_nodes(statement)]
        parameters = {
            argument.arg
            for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            + [argument for argument in (arguments.vararg, arguments.kwarg) if argument is not None]
        }
        global_names = {name for child in inside if isinstance(child, ast.Global) for name in child.names}
        mapping = {name: renamed for name, renamed in outer.items() if name not in parameters | global_names}
        dynamic = any(isinstance(child, ast.ClassDef) for child in inside) or any(
            isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id in _DYNAMIC
            for child in inside
        )
        if not dynamic:
            declared = parameters | {
                name for child in inside if isinstance(child, ast.Global | ast.Nonlocal) for name in child.names
            }
            own = [name for child in inside for name in _binds(child) if name not in declared]
            mapping |= fresh(own)
        for statement in body:
            visit(statement, mapping)

    def comprehension(found: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, outer: dict[str, str]):
        first, *rest = found.generators
        visit(first.iter, outer)  # evaluated in the scope around
        targets = [name.id for generator in found.generators for name in ast.walk(generator.target)
                   if isinstance(name, ast.Name)]  # fmt: skip
        mapping = outer | fresh(targets)
        visit(first.target, mapping)
        for condition in first.ifs:
            visit(condition, mapping)
        for generator in rest:
            visit(generator, mapping)
        for part in (found.key, found.value) if isinstance(found, ast.DictComp) else (found.elt,):
            visit(part, mapping)

    visit(node, {})
    return node


def _scope_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and what lies in its scope: not inside a nested function, lambda or comprehension (their defaults,
    decorators and first iterable are the scope's; a nested ``def`` binds its name here)."""
    yield node
    if isinstance(node, _SCOPES):
        arguments = node.args
        parts = [*arguments.defaults, *filter(None, arguments.kw_defaults), *getattr(node, "decorator_list", [])]
    elif isinstance(node, _COMPREHENSIONS):
        parts = [node.generators[0].iter]
    else:
        parts = list(ast.iter_child_nodes(node))
    for part in parts:
        yield from _scope_nodes(part)


def _binds(node: ast.AST) -> list[str]:
    """The names ``node`` binds in its scope (an assignment's, a loop's or a ``with``'s target, ``except ... as``,
    a walrus, ``del``, a nested ``def``)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return [node.id]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, _FUNCTIONS):
        return [node.name]
    return []


def _unnamed(node: ast.AST) -> ast.AST:
    """A ``def`` or ``class`` without its own name: renaming a hook that only a YAML names changes no result (its
    callers in the code name it, and change)."""
    if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
        node = copy.copy(node)
        node.name = ""
    return node


def _same_method(found: object, value: object) -> bool:
    """Bound methods are made anew at each attribute access: ``SPEC.aggregate`` equals, but is not, another."""
    owner = getattr(value, "__self__", None)
    return (
        owner is not None
        and getattr(found, "__self__", None) is owner
        and getattr(found, "__func__", None) is getattr(value, "__func__", None)
    )


def digest_of(definitions: dict[Ref, str]) -> str:
    """One digest of a set of definitions, independent of which modules hold them."""
    return _digest("\n".join(sorted(definitions.values())))


def by_module(definitions: dict[Ref, str]) -> dict[str, tuple[int, str]]:
    """Per module: how many of the definitions it holds, and their digest (for the snapshot's readable summary)."""
    grouped: dict[str, list[str]] = {}
    for (module, name), digest in sorted(definitions.items()):
        grouped.setdefault(module, []).append(f"{name}:{digest}")
    return {module: (len(entries), _digest("\n".join(entries))) for module, entries in grouped.items()}
