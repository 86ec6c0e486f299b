"""How a benchmark package exposes the hooks its task YAML names, the one way: ``abductive_tasks.<benchmark>.<hook>``.

Each benchmark's ``__init__`` declares which of its modules holds which hooks; :func:`lazy_hooks` gives it the
``__all__`` and the ``__getattr__`` (PEP 562) that import a hook's module on first use, so importing the package (as
lmms-eval's ``!function`` and the model backends do) loads no hook module it does not need.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import ModuleType


def lazy_hooks(
    package: str, modules: Mapping[str, Iterable[str]], load: Callable[[str], ModuleType]
) -> tuple[list[str], Callable[[str], object]]:
    """``__all__`` and ``__getattr__`` of ``package``: each hook of ``modules`` (module name within the package ->
    the hooks it defines) resolved from its module, ``load(module name)``, when first asked for; a name in two
    modules is an error. ``load`` is the package's own (``lambda module: import_module(f"<package>.{module}")``),
    so that the import's target stays visible to the layering test."""
    source: dict[str, str] = {}
    for module, names in modules.items():
        for name in names:
            if source.setdefault(name, module) != module:
                raise ValueError(f"{package}: hook {name!r} is named in both {source[name]!r} and {module!r}")

    def __getattr__(name: str) -> object:
        if name in source:
            return getattr(load(source[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return sorted(source), __getattr__
