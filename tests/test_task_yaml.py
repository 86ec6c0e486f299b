"""Static checks of every task YAML we ship: hooks resolve, the metric list is the task spec's, metadata is complete."""

from __future__ import annotations

import importlib.util
import itertools
import re
from pathlib import Path
from types import ModuleType

import pytest

from abductive_tasks import compat

MANAGER = compat.task_manager()
HOOK_NAME = re.compile(r"!function abductive_tasks\.(\w+)\.(\w+)\b(?!\.)")
TASKS = sorted(name for name, entry in MANAGER.task_index.items() if entry["type"] == "task")


def config(task: str) -> dict:
    return compat.task_config(MANAGER.task_index[task]["yaml_path"])  # full mode: every !function is imported


@pytest.mark.parametrize("task", TASKS)
def test_hooks_resolve_and_metric_list_is_the_spec(task):
    cfg = config(task)
    for hook in ("process_docs", "doc_to_visual", "doc_to_text", "process_results"):
        assert callable(cfg[hook]) or isinstance(cfg[hook], str), f"{task}: {hook}"
    spec = getattr(cfg["process_results"], "spec", None)
    assert spec is not None, f"{task}: process_results is not derived from a TaskSpec"
    listed = [entry["metric"] for entry in cfg["metric_list"]]
    assert listed == list(spec.metric_names), task
    for entry in cfg["metric_list"]:
        assert getattr(entry["aggregation"], "__self__", None) is spec, (
            f"{task}: {entry['metric']} aggregates with another spec"
        )
        assert entry["higher_is_better"] == spec.higher_is_better(entry["metric"]), f"{task}: {entry['metric']}"


@pytest.mark.parametrize("task", TASKS)
def test_metadata_declares_version_headline_and_image_limit(task):
    metadata = config(task)["metadata"]
    spec = config(task)["process_results"].spec
    assert isinstance(metadata["version"], int | float)
    assert isinstance(metadata["max_images_per_prompt"], int) and metadata["max_images_per_prompt"] >= 0
    headline = next(metric for metric in spec.metrics if metric.name == metadata["headline_metric"])
    assert not headline.breakdown and headline.higher_is_better is not None


def test_no_metric_name_is_part_of_another():
    """lmms-eval matches group metrics by substring: `acc` would also match `acc_by_category`."""
    names = {entry["metric"] for task in TASKS for entry in config(task)["metric_list"]}
    clashes = [(a, b) for a, b in itertools.permutations(sorted(names), 2) if a in b]
    assert not clashes


def _generator() -> ModuleType:
    """utils/generate_task_yaml.py, which writes every metric_list from its task spec (utils/ is no package)."""
    path = Path(__file__).resolve().parents[1] / "utils" / "generate_task_yaml.py"
    module_spec = importlib.util.spec_from_file_location("generate_task_yaml", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


GENERATOR = _generator()


def test_every_metric_list_is_the_one_its_spec_generates():
    """The spec is the one definition of a task's metrics; the checked-in YAML must be what it generates."""
    differences = GENERATOR.differences(GENERATOR.generated(MANAGER))
    assert not differences, (
        "a checked-in metric_list disagrees with its task spec; edit the spec, then run "
        f"python utils/generate_task_yaml.py\n{differences}"
    )


def test_every_strategy_yaml_is_the_one_its_table_generates():
    """MuCR's Table 2 variants and their groups are written from the level x strategy table (mucr/variants.py);
    a file edited by hand, or a row added without running the generator, fails here."""
    folder = compat.tasks_path().resolve() / "mucr"
    files = GENERATOR.strategy_files(folder)
    assert len(files) >= 25  # 4 levels x 5 strategies (+ the two-step CoT's 3 levels) and a group per strategy
    differences = GENERATOR.differences(files)
    assert not differences, (
        f"a strategy YAML disagrees with its row; run python utils/generate_task_yaml.py\n{differences}"
    )


def test_a_hand_edit_of_a_strategy_yaml_is_a_difference(tmp_path):
    folder = compat.tasks_path().resolve() / "mucr"
    for path in folder.glob("mucr_*.yaml"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    edited = tmp_path / "mucr_c2e_icl.yaml"
    edited.write_text(
        edited.read_text(encoding="utf-8").replace("max_images_per_prompt: 1", "max_images_per_prompt: 2")
    )
    (tmp_path / "mucr_e2c_cot.yaml").unlink()
    differences = GENERATOR.differences(GENERATOR.strategy_files(tmp_path), tmp_path)
    assert "-  max_images_per_prompt: 2" in differences and "+  max_images_per_prompt: 1" in differences
    assert "+task: mucr_e2c_cot" in differences  # a missing file is written whole


def test_yaml_names_every_hook_as_benchmark_dot_hook():
    """One way to name a hook: ``abductive_tasks.<benchmark>.<hook>``, never a module inside the benchmark."""
    deeper = re.compile(r"!function abductive_tasks\.\w+\.\w+\.")
    found = [
        f"{path.name}: {line.strip()}"
        for path in compat.tasks_path().resolve().rglob("*")
        if path.suffix == ".yaml" or path.name.endswith("_yaml")
        for line in path.read_text(encoding="utf-8").splitlines()
        if deeper.search(line)
    ]
    assert found == []


def test_each_reader_gives_the_judge_the_prompt_of_the_doc_to_text_beside_it():
    """A prompt is named once, in a doc_to_text hook, and the reader takes its judge question from that hook:
    the doc_to_text of the YAML that declares the process_results (a strategy variant that keeps its base's
    process_results, e.g. CoT, keeps its base's question). None: nothing to extract (free text, scores)."""
    asked = {}
    for task in TASKS:
        chain = GENERATOR.include_chain(Path(MANAGER.task_index[task]["yaml_path"]).resolve(), {})
        holder = next(path for path, raw in chain if "process_results" in raw)
        if holder not in asked:
            beside = compat.task_config(holder)
            asked[holder] = (beside["process_results"].question, beside.get("doc_to_text"))
    wrong = [str(path) for path, (question, doc_to_text) in asked.items() if question not in (None, doc_to_text)]
    assert not wrong
    assert sum(question is not None for question, _ in asked.values()) >= 20  # the check checks something


def test_each_benchmark_re_exports_exactly_the_hooks_its_yaml_names():
    """Each benchmark package lists its YAML's hooks once, in ``__all__`` (:func:`abductive_tasks.exports.lazy_hooks`),
    and resolves them from the module that defines them."""
    named: dict[str, set[str]] = {}
    for path in compat.tasks_path().resolve().rglob("*"):
        if path.suffix == ".yaml" or path.name.endswith("_yaml"):
            for benchmark, hook in HOOK_NAME.findall(path.read_text(encoding="utf-8")):
                named.setdefault(benchmark, set()).add(hook)
    assert set(named) == {"nleye", "mucr", "dve", "sherlock"}
    for benchmark, hooks in named.items():
        package = importlib.import_module(f"abductive_tasks.{benchmark}")
        assert sorted(package.__all__) == sorted(hooks), benchmark
        assert all(callable(getattr(package, hook)) for hook in hooks), benchmark


def test_every_readme_metrics_table_is_the_one_the_specs_generate():
    """Each README's metrics table has a row per metric its tasks' specs declare, with the tasks declaring it."""
    differences = GENERATOR.differences(GENERATOR.readme_tables(MANAGER))
    assert not differences, (
        f"a README metrics table disagrees with the specs; run python utils/generate_task_yaml.py\n{differences}"
    )


README_LINES = 150  # the lm-eval task README template's budget (the brief: at most 150 lines)
README_WIDTH = 400  # a line a reader takes in: the budget is not met by folding a changelog into one line


def test_every_task_readme_keeps_to_the_template_and_its_line_budget():
    """Each benchmark folder's README follows lm-eval's task template (its sections, in order) within the budget, in
    lines a reader takes in: the changelog keeps a line per task family, each version's entry is in the benchmark's
    version notes in docs/."""
    folder = compat.tasks_path().resolve()
    readmes = sorted(folder.glob("*/README.md"))
    assert {readme.parent.name for readme in readmes} >= {"nleye", "mucr", "dve", "sherlock"}
    for readme in readmes:
        lines = readme.read_text(encoding="utf-8").splitlines()
        assert len(lines) <= README_LINES, (
            f"{readme.relative_to(folder.parent)}: {len(lines)} lines, over {README_LINES}"
        )
        wide = [number for number, line in enumerate(lines, 1) if len(line) > README_WIDTH]
        assert not wide, f"{readme.relative_to(folder.parent)}: lines {wide} are over {README_WIDTH} characters"
        if readme.parent.name == "suites":
            continue
        headings = [line for line in lines if line.startswith("### ")]
        template = ["### Paper", "### Citation", "### Groups and Tasks", "### Checklist", "### Changelog"]
        assert [line for line in headings if line in template] == template, readme.parent.name


def test_every_metric_row_says_what_the_metric_means():
    folder = compat.tasks_path().resolve()
    empty = [
        f"{readme.parent.name}: {name}"
        for readme in sorted(folder.glob("*/README.md"))
        if (match := GENERATOR._TABLE.search(readme.read_text(encoding="utf-8")))
        for name, (_, meaning) in GENERATOR._rows(match.group("table")).items()
        if not meaning
    ]
    assert not empty, (
        f"metrics without a Meaning in their README table (write one there; the generator keeps it): {empty}"
    )


def test_the_scales_module_is_the_one_the_specs_generate():
    import abductive_tasks

    package = Path(abductive_tasks.__file__).resolve().parent
    differences = GENERATOR.differences(GENERATOR.scales(MANAGER, package), package.parent)
    assert not differences, (
        f"scoring/scales.py disagrees with the specs; run python utils/generate_task_yaml.py\n{differences}"
    )


def test_task_patterns_name_exactly_the_tasks_of_a_row():
    every = ["m_a", "m_a_cot", "m_a_graph", "m_b", "m_b_graph", "n_x"]
    assert GENERATOR.task_pattern(["m_a", "m_a_cot", "m_a_graph"], every) == "`m_a*`"
    assert GENERATOR.task_pattern(["m_a_graph", "m_b_graph"], every) == "`m_*_graph`"
    assert GENERATOR.task_pattern(["m_a", "m_a_cot"], every) == "`m_a`, `m_a_cot`"
    assert GENERATOR.task_pattern(["m_a", "m_a_cot", "m_a_graph", "m_b"], every) == "`m_*` but `m_b_graph`"
    assert GENERATOR.task_pattern(["n_x"], every) == "`n_x`"


def test_a_new_metric_gets_a_row_after_its_family_and_meanings_are_kept():
    current = "| Metric | Tasks | Meaning |\n|---|---|---|\n| `a_acc` | x | share |\n| `b_acc` | y | other |\n"
    table = GENERATOR.metrics_table(
        {"a_acc": ["t_a"], "a_new": ["t_a"], "b_acc": ["t_b"]}, [["a_acc", "a_new"], ["b_acc"]], ["t_a", "t_b"], current
    )
    assert table.splitlines()[2:] == [
        "| `a_acc` | `t_a` | share |",
        "| `a_new` | `t_a` | |",
        "| `b_acc` | `t_b` | other |",
    ]


def test_replace_block_rewrites_only_the_block_and_its_marker():
    block = GENERATOR.MARKER.format(spec="toy") + "\nmetric_list:\n  - metric: new\n"
    text = (
        "# header\ninclude: x\n"
        + GENERATOR.MARKER.format(spec="old")
        + "\nmetric_list:\n  - metric: old  # note\n\n    higher_is_better: true\nmetadata:\n  version: 1\n"
    )
    assert GENERATOR.replace_block(text, block, Path("t.yaml")) == "# header\ninclude: x\n" + block + (
        "metadata:\n  version: 1\n"
    )
    assert GENERATOR.replace_block("task: new\n", block, Path("t.yaml")) == "task: new\n" + block
