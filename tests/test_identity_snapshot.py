"""The run identity is versioned as tasks are (utils/identity_snapshots.py): tests/snapshots/identity.txt must be what
the code makes of the canonical inputs now; a difference under the same ``SCHEMA`` needs ``SCHEMA`` raised. Each test
below replays an edit that left a part out of every identity while every other record stayed as it was."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import identity_snapshots
import pytest
import task_snapshots

from abductive_tasks import settings
from abductive_tasks.runs import identity

SNAPSHOTS = Path(__file__).resolve().parents[1] / "tests" / "snapshots"


@pytest.fixture(scope="module")
def recorded() -> task_snapshots.Snapshot:
    found = identity_snapshots.recorded(SNAPSHOTS)
    assert found is not None, "no tests/snapshots/identity.txt: run python utils/generate_task_yaml.py"
    return found


def verdict_now(recorded: task_snapshots.Snapshot) -> task_snapshots.Verdict:
    return task_snapshots.verdict(recorded, identity_snapshots.build())


def test_the_checked_in_record_is_what_the_code_makes_now(recorded):
    verdict = verdict_now(recorded)
    if verdict.action == "bump":
        pytest.fail(identity_snapshots.bump_message("identity", recorded.version, verdict.reason))
    assert verdict.action == "ok", f"the run identity: {verdict.reason}; run python utils/generate_task_yaml.py"


def test_the_record_holds_no_secret_and_nothing_of_this_machine(recorded, monkeypatch):
    """Inherited keys and settings do not reach it (its environment is made anew), nor the scratch folder."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-inherited-key-value")
    monkeypatch.setenv("ABDUCTIVE_JUDGE_EXTRACT", "1")
    built = identity_snapshots.build()
    assert built.body == recorded.body
    assert os.environ["OPENAI_API_KEY"] == "sk-inherited-key-value"  # restored after
    assert identity_snapshots.SECRET not in built.body and "hf-canonical-token-value" not in built.body
    assert "abductive-identity-" not in built.body
    assert Path.home() == Path("/") or str(Path.home()) not in built.body  # a container's HOME may be /


def test_a_backend_version_left_out_of_the_identity_needs_a_schema_bump(recorded, monkeypatch):
    """The drift review's row 12: ``backend_versions`` returning {} kept every task record as it was."""
    monkeypatch.setattr(identity, "backend_versions", lambda backend: {})
    verdict = verdict_now(recorded)
    assert verdict.action == "bump" and "batch ours.versions" in verdict.reason


def test_a_setting_no_longer_marked_as_changing_scores_needs_a_schema_bump(recorded, monkeypatch):
    """The drift review's row 14: ``changes_scores=False`` on a score-changing setting left it out of identities."""
    name = "ABDUCTIVE_BOOTSTRAP_SEED"
    variables = {**settings.VARIABLES, name: dataclasses.replace(settings.VARIABLES[name], changes_scores=False)}
    monkeypatch.setattr(settings, "VARIABLES", variables)
    verdict = verdict_now(recorded)
    assert verdict.action == "bump" and verdict.reason.startswith("line 1:\n  - settings: ")
    assert name in verdict.reason.splitlines()[1] and name not in verdict.reason.splitlines()[2]


def test_a_key_that_skips_a_part_of_the_identity_needs_a_schema_bump(recorded, monkeypatch):
    """A task key made without the settings: a run under other settings would be found done."""
    parts = ("schema", "model", "eval_args", "env", "judge", "versions")
    monkeypatch.setattr(identity, "_run_settings", lambda found: {key: found[key] for key in parts})
    verdict = verdict_now(recorded)
    assert verdict.action == "bump" and "keys" in verdict.reason


def test_raising_the_schema_passes(recorded, monkeypatch):
    monkeypatch.setattr(identity, "SCHEMA", identity.SCHEMA + 1)
    monkeypatch.setattr(identity, "backend_versions", lambda backend: {})
    assert verdict_now(recorded).action == "regenerate"
