"""Group records: per task group of ours (a YAML with ``group:``), its version and what it runs.

A group names the tasks ``--tasks <group>`` evaluates and how it aggregates them; dropping a member, or adding an
``aggregate_metric_list``, changes what a group run reports under the same name. One text file per group,
``tests/snapshots/groups/<group>.txt``, holds its ``metadata: version`` and its YAML as lmms-eval resolves it (its
metadata but the version). :func:`task_snapshots.verdict` says what a difference means, as for a task: a changed
record under the same version needs a bump of the group's version first. A group entry that overrides a member's
settings inline (``- task: x`` with ``generation_kwargs``) would run that task differently under the task's own name
and version: tests/test_group_snapshots.py refuses it.
"""

from __future__ import annotations

from pathlib import Path

import task_snapshots

task_snapshots.HEADERS["group"] = (
    "# Record of group {task}: its version and what it runs, as lmms-eval resolves its YAML. Written by\n"
    "# `python utils/generate_task_yaml.py`; tests/test_group_snapshots.py checks it.\n"
)
FOLDER = "groups"  # under tests/snapshots
YAML_ROOT = Path(__file__).resolve().parents[1] / "yaml_tasks"


def group_files(root: Path = YAML_ROOT) -> dict[str, Path]:
    """Every group YAML under ``root``: group name -> file."""
    from abductive_tasks.runs import catalog

    found = {}
    for path in sorted(root.rglob("*.yaml")):
        config = catalog.config(path)
        if isinstance(config.get("group"), str):
            found[config["group"]] = path
    return found


def build(group: str, path: Path) -> task_snapshots.Snapshot:
    """The record of ``group`` (declared in ``path``) as its YAML is now."""
    from abductive_tasks.runs import catalog

    config = {key: value for key, value in catalog.config(path).items() if key != "group"}
    metadata = dict(config.pop("metadata", None) or {})
    version = str(metadata.pop("version", ""))
    content = {**config, "metadata": metadata}
    body = "".join(f"{key}: {task_snapshots.json_text(value)}\n" for key, value in sorted(content.items()))
    return task_snapshots.Snapshot(group, version, task_snapshots.content_digest(content), body, content, "group")


def build_all(root: Path = YAML_ROOT) -> dict[str, task_snapshots.Snapshot]:
    return {group: build(group, path) for group, path in group_files(root).items()}


def record_path(snapshots: Path, group: str) -> Path:
    return snapshots / FOLDER / f"{group}.txt"


def recorded(snapshots: Path, group: str) -> task_snapshots.Snapshot | None:
    return task_snapshots.Snapshot.read(record_path(snapshots, group))


def bump_message(group: str, version: str, reason: str) -> str:
    """What to do when ``group``'s YAML changed under the same version."""
    path = group_files()[group]
    return (
        f"group {group}: what it runs changed, but its version is still {version} ({reason}).\n"
        f"  Bump it: raise metadata: version in {path}, then run python utils/generate_task_yaml.py."
    )
