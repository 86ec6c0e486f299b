"""Every metric a task spec declares is named by a test of its benchmark.

A metric counts as tested when its name appears, as a whole word, in a string of a test file under
``tests/<benchmark>/`` (a docstring or a comment does not count, nor does a name an f-string builds). The YAML and
snapshot tests at the top of ``tests/`` and the generated snapshot files name every metric and do not count.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace

from abductive_tasks.reports.specs import registered_specs
from abductive_tasks.scoring.taskspec import Metric

TESTS = Path(__file__).parent
BENCHMARKS = ("nleye", "mucr", "dve", "sherlock")


def benchmark_of(spec) -> str | None:
    """The benchmark whose package defines the spec (None for a spec a test defined)."""
    parts = spec.record.__module__.split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "abductive_tasks" and parts[1] in BENCHMARKS else None


def strings_of(path: Path) -> list[str]:
    """The string constants of a Python file, bare strings (docstrings) left out; an f-string gives its literals."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare
    ]


@functools.cache
def benchmark_strings(benchmark: str, root: Path = TESTS) -> tuple[str, ...]:
    """The strings of the test files under ``<root>/<benchmark>/``."""
    return tuple(text for path in sorted((root / benchmark).rglob("*.py")) for text in strings_of(path))


def untested(specs: Iterable, root: Path = TESTS) -> list[str]:
    """One line per metric of ``specs`` that no test of its benchmark names, with the tasks declaring it."""
    tasks: dict[tuple[str, str], list[str]] = {}
    for spec in specs:
        benchmark = benchmark_of(spec)
        for metric in spec.metrics if benchmark else ():
            word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(metric.name)}(?![A-Za-z0-9_])")
            if not any(word.search(text) for text in benchmark_strings(benchmark, root)):
                tasks.setdefault((benchmark, metric.name, metric.breakdown), []).append(spec.name)
    return [
        f"metric {name!r} of {', '.join(names)} is named by no test under tests/{benchmark}/: add a test asserting "
        f"its hand-computed value{' and breakdown cells' if breakdown else ''} to tests/{benchmark}/test_metrics.py"
        for (benchmark, name, breakdown), names in tasks.items()
    ]


def test_every_declared_metric_is_named_by_a_test_of_its_benchmark():
    specs = [spec for spec in registered_specs() if benchmark_of(spec)]
    assert {benchmark_of(spec) for spec in specs} == set(BENCHMARKS)  # every benchmark's specs were found
    missing = untested(specs)
    assert not missing, "metrics without a test (docs/contributing.md, Adding a metric):\n" + "\n".join(missing)


def test_a_metric_no_test_names_is_reported_with_its_tasks_and_where_to_test_it(tmp_path):
    (tmp_path / "mucr").mkdir()
    (tmp_path / "mucr" / "test_x.py").write_text(
        '''"""c2e_acc_by_shape in a docstring."""


def test_it(level="c2e"):
    """c2e_acc_by_shape in a docstring."""
    # c2e_acc_by_shape in a comment, c2e_acc in a comment
    assert values["c2e_acc_by_style"] == values[f"{level}_acc"] != values["c2e_acc_by_shape_and_size"]
'''
    )

    def record(doc, reading):
        return {}

    record.__module__ = "abductive_tasks.mucr.hooks"
    metrics = (
        Metric("c2e_acc_by_style", breakdown=True),
        Metric("c2e_acc_by_shape", breakdown=True),
        Metric("c2e_acc"),
    )
    specs = [SimpleNamespace(name=name, record=record, metrics=metrics) for name in ("mucr_c2e", "mucr_c2e_cot2")]
    assert untested(specs, tmp_path) == [
        "metric 'c2e_acc_by_shape' of mucr_c2e, mucr_c2e_cot2 is named by no test under tests/mucr/: add a test "
        "asserting its hand-computed value and breakdown cells to tests/mucr/test_metrics.py",
        "metric 'c2e_acc' of mucr_c2e, mucr_c2e_cot2 is named by no test under tests/mucr/: add a test "
        "asserting its hand-computed value to tests/mucr/test_metrics.py",
    ]
    record.__module__ = "scoring.test_taskspec"  # a spec a test defined is not ours to cover
    assert untested(specs, tmp_path) == []
