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


def test_a_field_of_self_is_followed_through_its_string_annotation(package):
    graph = call_walk.Graph()
    walker = call_walk.Walker(graph)
    runner = graph.module("abductive_tasks.runner")
    go = graph.node("abductive_tasks.runner", "Runner.go")
    assert runner is not None
    target = walker._resolve("abductive_tasks.runner", "Runner", {}, go.body[0].value.func)
    assert target == ("abductive_tasks.service", "Redactor.text")


@pytest.mark.parametrize(
    ("function", "parameter", "trace", "returns"),
    [
        # a method called through a plan's field is a call into its module
        (
            "run",
            "plan",
            [
                "abductive_tasks.runner:run -> abductive_tasks.service:helper as value",
                "abductive_tasks.runner:run -> abductive_tasks.service:Redactor.text as self, value (return)",
            ],
            1,
        ),
        # an annotated variable and a nested function's parameter name their class
        (
            "chosen",
            "plans",
            [
                "abductive_tasks.runner:chosen -> abductive_tasks.service:Redactor.text as self, value",
                "abductive_tasks.runner:chosen -> abductive_tasks.service:Redactor.mask as self (return)",
            ],
            1,
        ),
        # a callback handed the followed value is a call; one handed nothing (print, a pushed exit) is not
        ("later", "plan", ["abductive_tasks.runner:later -> abductive_tasks.service:helper as value"], 0),
    ],
)
def test_the_walk_follows_the_value_into_the_calls_that_receive_it(package, function, parameter, trace, returns):
    graph = call_walk.Graph()
    walk = call_walk.Walker(graph).start(*graph.definition("abductive_tasks.runner", function), parameter)
    assert walk.trace == trace
    assert (walk.calls, walk.returns) == (len(trace), returns)
    assert walk.floor == 0  # one module pair: its calls merged into one would return to nothing


def test_the_floor_is_the_module_pairs_less_the_modules_they_enter():
    walk = call_walk.Walk(pairs={("a", "files"), ("b", "files"), ("c", "files"), ("a", "b"), ("a", "c")})
    assert walk.floor == 5 - 3  # files entered from a, b and c: two returns whatever each calls
