"""The close-match hint: one helper, the same words wherever a name is refused."""

from __future__ import annotations

import pytest

from abductive_tasks.cli import checks
from abductive_tasks.hints import did_you_mean
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
    assert str(unknown.value) == f"unknown task or group 'nleye_triplt'{hint}; every one: abductive-eval tasks"
    with pytest.raises(spec.SpecError) as backend:
        spec._check_backend("dumb_pixl", "models[0]")
    assert str(backend.value) == (
        "models[0].backend: unknown lmms-eval model 'dumb_pixl' (did you mean 'dumb_pixel'?); every one: lmms-eval "
        "models"
    )


def test_the_names_a_task_yaml_defines_are_read_by_one_pattern():
    text = "task: a_task\n  group: 'a_group'\ntag: \"a_tag\"\ninclude: _default\ntask_alias: not_a_name\n"
    assert checks._defined_names(text, ("task", "group", "tag")) == {"a_task", "a_group", "a_tag"}
    assert checks._defined_names(text, ("task",)) == {"a_task"}
