"""Task groups are versioned as tasks are (utils/group_snapshots.py): each group's checked-in record
(tests/snapshots/groups/<group>.txt) must be what its YAML says now, a change under the same version needs a bump,
and no group overrides a member's settings inline."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import group_snapshots
import pytest
import task_snapshots

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "snapshots"
GROUPS = sorted(group_snapshots.group_files())


@pytest.fixture(scope="module")
def built() -> dict[str, task_snapshots.Snapshot]:
    return group_snapshots.build_all()


@pytest.mark.parametrize("group", GROUPS)
def test_the_checked_in_record_is_what_the_group_runs_now(built, group):
    verdict = task_snapshots.verdict(group_snapshots.recorded(SNAPSHOTS, group), built[group])
    assert verdict.action != "bump", group_snapshots.bump_message(group, built[group].version, verdict.reason)
    assert verdict.action == "ok", f"group {group}: {verdict.reason}; run python utils/generate_task_yaml.py"


def test_every_group_record_belongs_to_a_group():
    stale = sorted(path.stem for path in (SNAPSHOTS / group_snapshots.FOLDER).glob("*.txt") if path.stem not in GROUPS)
    assert not stale, f"records of groups that no longer exist: {stale}; delete them"


@pytest.mark.parametrize("group", GROUPS)
def test_no_group_overrides_a_members_settings_inline(built, group):
    """``- task: x`` with settings would run x differently under x's own name and version."""
    members = built[group].content.get("task", [])
    inline = [member for member in members if not isinstance(member, str)]
    assert not inline, f"group {group} sets a member's settings inline: {inline}; make it a task of its own"


def test_a_dropped_member_or_a_new_aggregate_needs_a_bump(built, tmp_path):
    """The drift re-review's row 11: dropping mucr_exp_split from the mucr group passed every check."""
    yaml_root = tmp_path / "yaml_tasks"
    shutil.copytree(ROOT / "yaml_tasks", yaml_root)
    path = yaml_root / "mucr" / "mucr.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("  - mucr_exp_split\n", ""), encoding="utf-8")
    now = group_snapshots.build_all(yaml_root)["mucr"]
    verdict = task_snapshots.verdict(built["mucr"], now)
    assert verdict.action == "bump" and "mucr_exp_split" in verdict.reason
    bumped = dataclasses.replace(now, version="3.1")
    assert task_snapshots.verdict(built["mucr"], bumped).action == "regenerate"
    assert "raise metadata: version in" in group_snapshots.bump_message("mucr", "3.0", verdict.reason)
