"""The readers of finished runs find each task's spec and each metric's declaration from our YAML and specs."""

from __future__ import annotations

import pkgutil

from abductive_tasks.reports.specs import metric_info, metric_proportion, spec_of_task
from abductive_tasks.runs import catalog
from abductive_tasks.runs.task_index import TaskIndex


def test_metric_declarations_are_found_by_name():
    assert metric_info("consistency_acc").scale == "fraction"  # NL-Eye's
    assert metric_info("comparison_acc").scale == "percent"  # Sherlock's, whose package loads its hooks lazily
    assert metric_info("scene_graph_rate").scale == "fraction"  # MuCR's CCoT graph stage (strategies module)
    assert metric_info("no_such_metric") is None


def test_only_shares_of_units_are_proportions_an_average_may_mix():
    assert metric_proportion("consistency_acc") and metric_proportion("dve_accuracy")
    assert not metric_proportion("comparison_acc")  # (agree - 0.5) * 2: -100..100%
    assert not metric_proportion("exp_score")  # a 0-10 judge score, not a percentage
    assert not metric_proportion("not_our_metric")


def test_a_tasks_spec_is_the_one_its_process_results_hook_carries():
    task_index = TaskIndex()
    for task in task_index.task_names:
        hook = catalog.config(task_index.yaml_path(task))["process_results"]
        assert spec_of_task(task) is pkgutil.resolve_name(hook).spec, task
    assert spec_of_task("dve_cls").name == "dve_cls"
    assert spec_of_task("abductive") is None and spec_of_task("mmbench") is None  # a group; not ours
