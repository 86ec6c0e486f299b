"""The task index: groups expanded and the per-task facts the tooling reads from task metadata (plain YAML, no
lmms-eval)."""

from __future__ import annotations

import pytest

from abductive_tasks.runs.task_index import TaskIndex, TaskIndexError


@pytest.fixture(scope="module")
def task_index() -> TaskIndex:
    return TaskIndex()


def test_every_task_declares_what_the_tooling_reads(task_index):
    for task in task_index.task_names:
        facts = task_index.facts(task)
        assert facts.max_images_per_prompt >= 0 and facts.headline_metric in facts.higher_is_better, task


def test_nleye_facts(task_index):
    assert [
        task_index.facts(task).max_images_per_prompt
        for task in ("nleye_triplet", "nleye_pairs", "nleye_triplet_combined", "nleye_triplet_text")
    ] == [3, 2, 1, 0]
    facts = task_index.facts("nleye_triplet")
    assert facts.headline_metric == "consistency_acc" and facts.max_new_tokens == 256 and facts.generates
    assert facts.higher_is_better["consistency_acc"] is True and facts.higher_is_better["triplet_counts"] is None


def test_groups_expand_to_generation_tasks_every_backend_can_run(task_index):
    main = task_index.expand(["abductive"])
    assert main[:2] == ["nleye_triplet", "nleye_pairs"]
    assert all(task_index.facts(task).generates for task in main)
    lite = task_index.expand(["abductive_lite"])
    assert set(lite) < set(main)
    assert (
        task_index.expand(["nleye_triplet", "abductive_lite", "nleye"])[0] == "nleye_triplet"
    )  # order kept, no repeats
    assert len(task_index.expand(["abductive", "abductive"])) == len(main)
    task_set = task_index.task_set(["abductive"])
    assert task_set.named == tuple(main) and set(main) <= set(task_set.facts)
    assert all(upstream in task_set.facts for fact in task_set.facts.values() for upstream in fact.reads)


def test_unknown_names_and_groups_as_tasks_are_errors(task_index):
    with pytest.raises(TaskIndexError, match="unknown task or group 'nleye_quadruplet'"):
        task_index.expand(["nleye_quadruplet"])
    # a spec's misspelt task gets the closest names, as the command line's does, not every name (2,000 characters)
    with pytest.raises(TaskIndexError) as raised:
        task_index.expand(["nleye_triplt"])
    assert str(raised.value) == (
        "unknown task or group 'nleye_triplt' (did you mean 'nleye_triplet' or 'nleye_triplet_cot' or "
        "'nleye_triplet_text'?); `abductive-eval tasks` lists every one"
    )
    with pytest.raises(TaskIndexError, match="is a group"):
        task_index.facts("abductive")


def test_missing_metadata_is_named(tmp_path):
    (tmp_path / "bare.yaml").write_text(
        "task: bare_task\ndataset_path: json\noutput_type: generate_until\nmetadata:\n  version: 1.0\n"
    )
    with pytest.raises(TaskIndexError, match=r"bare_task.*metadata lacks max_images_per_prompt, headline_metric"):
        TaskIndex(tmp_path).facts("bare_task")
