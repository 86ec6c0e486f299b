"""utils/call_walk.py: a call through a field of a plan handed down (``plan.service.text(...)``) is followed, the plan
named by a parameter, an annotated variable or a nested function's parameter; a function of the package handed to a
call as a callback, with the followed value, is a call."""

from __future__ import annotations

from pathlib import Path

import call_walk
import pytest

SERVICE = """
from dataclasses import dataclass


class Redactor:
    def text(self, value: str) -> str:
        return value

    def mask(self, value: str) -> str:
        return value


def helper(value: str) -> str:
    return value


@dataclass(frozen=True)
class Plan:
    name: str
    redactor: Redactor | None
"""

RUNNER = """
from abductive_tasks.service import Plan, helper


class Runner:
    plan: "Plan"

    def go(self) -> str:
        return self.plan.redactor.text(self.plan.name)


def run(plan: Plan) -> str:
    helper(plan.name)
    Runner().go()
    return plan.redactor.text(plan.name)


def chosen(plans: dict) -> str:
    def name(default: Plan = plans["b"]) -> str:
        return default.redactor.text(default.name)

    plan: Plan = plans["a"]
    return plan.redactor.mask(name())


def later(plan: Plan, stack) -> None:
    stack.callback(print, plan.name)
    stack.callback(helper, plan.name)
    stack.push(helper)
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "abductive_tasks"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "service.py").write_text(SERVICE)
    (folder / "runner.py").write_text(RUNNER)
    monkeypatch.setattr(call_walk, "ROOT", tmp_path)
    return tmp_path


def test_a_method_called_through_a_plans_field_is_a_call_into_its_module(package):
    graph = call_walk.Graph()
    walk = call_walk.Walker(graph).start(*graph.definition("abductive_tasks.runner", "run"), "plan")
    assert walk.trace == [
        "abductive_tasks.runner:run -> abductive_tasks.service:helper as value",
        "abductive_tasks.runner:run -> abductive_tasks.service:Redactor.text as self, value (return)",
    ]
    assert (walk.calls, walk.returns) == (2, 1)


def test_a_field_of_self_is_followed_through_its_string_annotation(package):
    graph = call_walk.Graph()
    walker = call_walk.Walker(graph)
    runner = graph.module("abductive_tasks.runner")
    go = graph.node("abductive_tasks.runner", "Runner.go")
    assert runner is not None
    target = walker._resolve("abductive_tasks.runner", "Runner", {}, go.body[0].value.func)
    assert target == ("abductive_tasks.service", "Redactor.text")


def test_an_annotated_variable_and_a_nested_functions_parameter_name_their_class(package):
    graph = call_walk.Graph()
    walk = call_walk.Walker(graph).start(*graph.definition("abductive_tasks.runner", "chosen"), "plans")
    assert walk.trace == [
        "abductive_tasks.runner:chosen -> abductive_tasks.service:Redactor.text as self, value",
        "abductive_tasks.runner:chosen -> abductive_tasks.service:Redactor.mask as self (return)",
    ]
    assert (walk.calls, walk.returns) == (2, 1)


def test_a_callback_handed_the_followed_value_is_a_call_and_one_handed_nothing_is_not(package):
    graph = call_walk.Graph()
    walk = call_walk.Walker(graph).start(*graph.definition("abductive_tasks.runner", "later"), "plan")
    assert walk.trace == ["abductive_tasks.runner:later -> abductive_tasks.service:helper as value"]
    assert (walk.calls, walk.returns) == (1, 0)
