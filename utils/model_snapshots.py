"""Model backend records: per model backend this package registers, its version and the code its replies depend on.

A backend (``abductive_tasks.models.manifests``: ``MANIFESTS`` and ``VERSIONS``) is versioned as a task is. One text
file per backend, ``tests/snapshots/models/<model_id>.txt``, holds its version and the digest of every definition of
the package reached from its classes (:mod:`code_digest`: the class, its bases of ours, what its methods call), with a
per-module summary. :func:`task_snapshots.verdict` says what a difference means: a digest that changed under the same
version needs a bump of the backend's ``VERSIONS`` entry (which enters a run's identity, so cached replies and
leaderboard cells of the old code go stale); anything else only a regeneration. ``python utils/generate_task_yaml.py``
writes the files and refuses to record a new digest under an old version; tests/test_model_snapshots.py fails on any
difference, and tests/test_snapshots.py compares recorded digests with the branch's base commit.

lmms-eval's own code, which our backends subclass, is not digested: the lmms-eval version in a run's identity stands
for it.

One more record, ``tests/snapshots/harness.txt``, is of what importing the package does besides defining names
(:meth:`code_digest.CodeIndex.effects`: ``compat.install()``'s patches of lmms-eval, the ``read_answer`` filter
registered, a table edited in place at import) and the code those statements reach: it changes every run, so its
version is the package's (``__version__`` in ``abductive_tasks/__init__.py``, which pyproject.toml reads), which every
run's identity holds.
"""

from __future__ import annotations

import re
from pathlib import Path

import task_snapshots
from code_digest import CodeIndex, Ref, by_module, digest_of

from abductive_tasks.lmms_source import own_model_classes, own_model_versions

HEADER = (
    "# Model backend record of {task}: its version and the digest of the code its classes reach. Written by\n"
    "# `python utils/generate_task_yaml.py`; tests/test_model_snapshots.py checks it.\n"
)
task_snapshots.HEADERS["model"] = HEADER
task_snapshots.HEADERS["harness"] = (
    "# Record of {task}: what importing the package does besides defining names, and the code it reaches; its version\n"
    "# is the package's. Written by `python utils/generate_task_yaml.py`; tests/test_model_snapshots.py checks it.\n"
)
FOLDER = "models"  # under tests/snapshots
VERSIONS_FILE = "abductive_tasks/models/manifests.py"
HARNESS = "harness"  # the import-time effects' record: tests/snapshots/harness.txt
PACKAGE_INIT = Path(__file__).resolve().parents[1] / "abductive_tasks" / "__init__.py"


def class_refs(paths: dict[str, str]) -> list[Ref]:
    """A manifest's class paths (``simple_class_path``, ``chat_class_path``) as (module, class) definitions."""
    refs = []
    for key in ("simple_class_path", "chat_class_path"):
        if paths.get(key):
            module, _, name = paths[key].rpartition(".")
            refs.append((module, name))
    return refs


def build(model: str, index: CodeIndex | None = None, version: str | None = None) -> task_snapshots.Snapshot:
    """The record of backend ``model`` as the code (``index``: of the checkout's package by default) is now;
    ``version``: its ``VERSIONS`` entry by default."""
    index = index or CodeIndex()
    refs = class_refs(own_model_classes()[model])
    missing = [
        f"{module}.{name}" for module, name in refs if name not in getattr(index.module(module), "definitions", {})
    ]
    if missing:
        raise LookupError(f"{model}: its manifest names {missing}, which no module of the package defines")
    code = index.reach(refs)
    content = {"code": sorted(code.values())}
    modules = by_module(code)
    lines = [f"classes: {', '.join(f'{module}.{name}' for module, name in refs)}"]
    lines.append("modules (definitions reached, their digest):")  # first: a difference names the module
    lines += [f"  {module}: {count} {digest}" for module, (count, digest) in modules.items()]
    lines.append(f"code: {len(code)} definitions in {len(modules)} modules, {digest_of(code)}")
    body = "".join(line + "\n" for line in lines)
    version = version or own_model_versions().get(model, "")
    return task_snapshots.Snapshot(model, version, task_snapshots.content_digest(content), body, content, kind="model")


def build_harness(index: CodeIndex | None = None, version: str | None = None) -> task_snapshots.Snapshot:
    """The record of what importing the package does (see the module's docstring); ``version``: the package's."""
    index = index or CodeIndex()
    effects, roots = index.effects()
    code = index.reach(roots)
    content = {"effects": effects, "code": sorted(code.values())}
    modules = by_module(code)
    lines = [f"effects: {len(effects)} statements, reaching:", "modules (definitions reached, their digest):"]
    lines += [f"  {module}: {count} {digest}" for module, (count, digest) in modules.items()]
    lines.append(f"code: {len(code)} definitions in {len(modules)} modules, {digest_of(code)}")
    version = version or package_version()
    body = "".join(line + "\n" for line in lines)
    return task_snapshots.Snapshot(HARNESS, version, task_snapshots.content_digest(content), body, content, "harness")


def package_version() -> str:
    """``__version__`` in the checkout's ``abductive_tasks/__init__.py``: the package's version (pyproject.toml's
    ``version`` is read from it), read from the file, not from an installed package's metadata."""
    match = re.search(r'^__version__ = "([^"]+)"', PACKAGE_INIT.read_text(encoding="utf-8"), re.MULTILINE)
    if match is None:
        raise LookupError(f"{PACKAGE_INIT}: no __version__ line")
    return match.group(1)


def build_all(index: CodeIndex | None = None) -> dict[str, task_snapshots.Snapshot]:
    """The record of every backend the manifests register, and the harness's."""
    index = index or CodeIndex()
    return {**{model: build(model, index) for model in sorted(own_model_classes())}, HARNESS: build_harness(index)}


def record_path(snapshots: Path, model: str) -> Path:
    return snapshots / f"{HARNESS}.txt" if model == HARNESS else snapshots / FOLDER / f"{model}.txt"


def recorded(snapshots: Path, model: str) -> task_snapshots.Snapshot | None:
    return task_snapshots.Snapshot.read(record_path(snapshots, model))


def bump_message(model: str, version: str, reason: str) -> str:
    """What to do when backend ``model``'s code (or the harness's) changed under the same version."""
    if model == HARNESS:
        return (
            f"the package's import-time effects (compat.install's patches, registered filters, tables edited at "
            f"import) or the code they reach changed, but the package's version is still {version} ({reason}).\n"
            "  Bump it: raise __version__ in abductive_tasks/__init__.py (every run's identity holds it: cached "
            "replies and leaderboard cells of the old code go stale), then run python utils/generate_task_yaml.py."
        )
    return (
        f"model backend {model}: the code its classes reach changed, but its version is still {version} "
        f"({reason}).\n"
        f"  Bump its version: raise VERSIONS[{model!r}] in {VERSIONS_FILE} (a run's identity holds it: cached "
        "replies and leaderboard cells of the old code go stale), then run python utils/generate_task_yaml.py."
    )
