"""Our tasks and groups, read from the task YAML without lmms-eval: the names, descriptions and configurations.

The lowest of the three task lists: the task index (:class:`~abductive_tasks.runs.task_index.TaskIndex`) reads its
configurations through this module to give each task's facts, and the suites (``yaml_tasks/suites/``) are two groups,
task YAML like any other, that both list.

``abductive-eval tasks``, the task-name check before a run, the batch tooling and the reports need names,
descriptions and task configurations, so this reads the YAML files of our task folder as plain YAML and stays
fast: no lmms-eval, no torch, no hook imported. ``!function`` tags are kept as their dotted names
(:class:`FunctionName`); ``include:`` is resolved as lmms-eval's ``load_yaml_config`` resolves it. A task's
description is the first sentence of the comment its YAML file opens with; a benchmark's heading is the title of its
folder's README.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from abductive_tasks.compat import tasks_path


@dataclass(frozen=True)
class Entry:
    """One task or group of ours."""

    name: str
    kind: str  # "task" or "group"
    folder: str  # its folder under the task path: the benchmark (or "suites")
    description: str
    members: tuple[str, ...] = ()  # a group's tasks


SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z])")  # "Eq. 1" does not end a sentence


class _TagIgnoringLoader(yaml.SafeLoader):
    """Reads task YAML without resolving ``!function`` tags (their values are not needed here)."""


_TagIgnoringLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


class FunctionName(str):
    """A ``!function`` tag's dotted name (``abductive_tasks.dve.process_results_cls``), not imported."""


class _FunctionNamingLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """Reads task YAML keeping each ``!function`` tag as its :class:`FunctionName`."""


_FunctionNamingLoader.add_constructor("!function", lambda loader, node: FunctionName(loader.construct_scalar(node)))


def leading_comment(text: str) -> str:
    """The first sentence of the comment a YAML file opens with, across its lines ('' when it opens with content)."""
    block: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped and not block:
            continue
        if not stripped.startswith("#"):
            break
        block.append(stripped.lstrip("#").strip())
    return SENTENCE_END.split(" ".join(block), maxsplit=1)[0]


def read_entry(path: Path, root: Path) -> Entry | None:
    """The task or group a YAML file defines (None for a file that defines neither)."""
    text = path.read_text(encoding="utf-8")
    config = yaml.load(text, Loader=_TagIgnoringLoader) or {}
    folder = path.relative_to(root).parts[0]
    if "group" in config:
        members = config.get("task") or []
        return Entry(
            str(config["group"]),
            "group",
            folder,
            leading_comment(text),
            tuple(str(member) for member in members if isinstance(member, str)),
        )
    if "task" in config and isinstance(config["task"], str):
        return Entry(config["task"], "task", folder, leading_comment(text))
    return None


@functools.cache
def entries(root: Path | None = None) -> tuple[Entry, ...]:
    """Every task and group under ``root`` (default: our installed task folder), sorted by folder then name."""
    root = root or tasks_path()
    found = [entry for path in sorted(root.rglob("*.yaml")) if (entry := read_entry(path, root)) is not None]
    return tuple(sorted(found, key=lambda entry: (entry.folder, entry.kind != "group", entry.name)))


def index(root: Path | None = None) -> dict[str, tuple[str, Path]]:
    """Every task and group under ``root``: name -> (kind, YAML file), as the files are now; by default our installed
    task folder, indexed once per process (the installed files do not change under a running command)."""
    return _index(root) if root else _installed_index()


@functools.cache
def _installed_index() -> dict[str, tuple[str, Path]]:
    return _index(tasks_path())


def _index(root: Path) -> dict[str, tuple[str, Path]]:
    return {entry.name: (entry.kind, path) for path in sorted(root.rglob("*.yaml")) if (entry := _named(path))}


def _named(path: Path) -> Entry | None:
    config = _load(path)
    if "group" in config:
        return Entry(str(config["group"]), "group", "", "")
    return Entry(config["task"], "task", "", "") if isinstance(config.get("task"), str) else None


def _load(path: Path) -> dict:
    stat = path.stat()
    return _parsed(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=512)
def _parsed(path: Path, mtime_ns: int, size: int) -> dict:
    """A YAML file's mapping, parsed once per version of the file (its modification time and size)."""
    loaded = yaml.load(path.read_text(encoding="utf-8"), Loader=_FunctionNamingLoader) or {}
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: a task YAML file holds a mapping, not {type(loaded).__name__}")
    return loaded


def config(path: Path | str, seen: frozenset[Path] = frozenset()) -> dict:
    """A task or group file's configuration with its ``include:`` applied as lmms-eval applies it (the file's own
    keys win, then the first file it includes); ``!function`` values are :class:`FunctionName`."""
    path = Path(path)
    own = dict(_load(path))
    included = own.pop("include", None)
    if included is None or path in seen:
        return own
    merged: dict = {}
    for name in reversed([included] if isinstance(included, str) else list(included)):
        merged.update(config(Path(name) if Path(name).is_file() else path.parent / name, seen | {path}))
    return {**merged, **own}


def metadata(task: str, root: Path | None = None) -> dict:
    """A task's ``metadata:`` (``version``, ``headline_metric``, ...) read from our YAML without lmms-eval; {} for a
    task that is not ours."""
    kind, path = index(root).get(task, (None, None))
    found = config(path).get("metadata") if kind == "task" else None
    return found if isinstance(found, dict) else {}


def names() -> set[str]:
    """The names of all our tasks and groups."""
    return {entry.name for entry in entries()}


def heading(folder: str, root: Path | None = None) -> str:
    """A folder's heading: the title line of its README, else the folder name."""
    readme = (root or tasks_path()) / folder / "README.md"
    if readme.is_file():
        for line in readme.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return folder


def render(listed: tuple[Entry, ...] | None = None) -> str:
    """Our tasks grouped by benchmark, one line each; groups first, with their size."""
    listed = entries() if listed is None else listed
    width = max((len(entry.name) for entry in listed), default=0) + 2
    lines = [
        "Tasks of abductive-tasks (run: abductive-eval --model MODEL --tasks NAME[,NAME...]; a group runs all "
        "its tasks)"
    ]
    folder = None
    for entry in listed:
        if entry.folder != folder:
            folder = entry.folder
            lines += ["", f"{heading(folder)}:"]
        label = f"group, {len(entry.members)} tasks: " if entry.kind == "group" else ""
        lines.append(f"  {entry.name:<{width}}{label}{entry.description}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """``abductive-eval tasks``: list our tasks and groups."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: abductive-eval tasks\n\nLists this package's tasks and groups with one line each "
            "(lmms-eval's own: lmms-eval --tasks list)."
        )
        return 0
    if argv:
        print(f"abductive-eval tasks: takes no arguments (got {' '.join(argv)})", file=sys.stderr)
        return 2
    print(render())
    return 0
