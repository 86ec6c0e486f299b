"""The close-match hint: one helper, the same words wherever a name is refused."""

from __future__ import annotations

import re

import pytest

from abductive_tasks import cli, lmms_source
from abductive_tasks.cli import checks
from abductive_tasks.hints import LIST_MODELS, LIST_TASKS, did_you_mean
from abductive_tasks.runs import catalog, spec
from abductive_tasks.runs.task_index import TaskIndex, TaskIndexError


def test_up_to_three_close_names_closest_first_or_nothing():
    names = {"nleye_triplet", "nleye_triplet_text", "mucr_c2e"}
    assert did_you_mean("nleye_triplt", names) == " (did you mean 'nleye_triplet' or 'nleye_triplet_text'?)"
    assert did_you_mean("sherlock", names) == ""
    assert did_you_mean("abcd", ["abce", "abcf", "abcg", "abch"]) == " (did you mean 'abch' or 'abcg' or 'abcf'?)"


def test_the_command_line_the_task_index_and_a_batch_spec_give_the_same_hint():
    hint = did_you_mean("nleye_triplt", catalog.names())
    assert hint.startswith(" (did you mean 'nleye_triplet' or ")
    with pytest.raises(checks.UsageError) as refused:
        checks.check_tasks("nleye_triplt", None)
    assert str(refused.value).startswith(f"unknown task 'nleye_triplt'{hint}. Our tasks: abductive-eval tasks")
    with pytest.raises(TaskIndexError) as unknown:
        TaskIndex().yaml_path("nleye_triplt")
    assert str(unknown.value) == f"unknown task or group 'nleye_triplt'{hint}; `abductive-eval tasks` lists every one"
    with pytest.raises(spec.SpecError) as backend:
        spec._check_backend("dumb_pixl", "models[0]")
    assert str(backend.value) == (
        "models[0].backend: unknown lmms-eval model 'dumb_pixl' (did you mean 'dumb_pixel'?); `abductive-eval models` "
        "lists every one"
    )


@pytest.mark.parametrize("hint", [LIST_MODELS, LIST_TASKS])
def test_the_command_a_refusal_names_lists_every_name_the_check_accepts(hint, capsys):
    """The walk: `; every one: lmms-eval models` was unclear, and lmms-eval's `models` lists neither its aliases nor
    our models (`random_baseline`, which the hint's check accepts, was missing). The command each hint names runs and
    lists every name its check accepts, one a line."""
    command = re.fullmatch(r"`abductive-eval (\w+)` lists every one", hint)
    assert command, hint
    assert cli.main([command[1]]) == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()}
    accepted = lmms_source.quick_model_names() if command[1] == "models" else set(catalog.names())
    assert accepted is not None and accepted <= listed
    assert command[1] != "models" or {"random_baseline", "openai_compatible"} <= listed  # ours, an alias


def test_the_names_a_task_yaml_defines_are_read_by_one_pattern():
    text = "task: a_task\n  group: 'a_group'\ntag: \"a_tag\"\ninclude: _default\ntask_alias: not_a_name\n"
    assert checks._defined_names(text, ("task", "group", "tag")) == {"a_task", "a_group", "a_tag"}
    assert checks._defined_names(text, ("task",)) == {"a_task"}
