"""Exact-prompt snapshots and versions checked against content (utils/task_snapshots.py, utils/code_digest.py).

Every task's checked-in snapshot (tests/snapshots/<benchmark>/<task>.txt) must be what the code builds now; one whose
digest changed under the same version needs a version bump and a changelog line; and no commit may change a
recorded digest without raising the version (checked against git history where there is one).
"""

from __future__ import annotations

import ast
import dataclasses
import shutil
import subprocess
import textwrap
from pathlib import Path

import code_digest
import generate_task_yaml
import pytest
import task_snapshots

from abductive_tasks import compat

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "snapshots"
MANAGER = compat.task_manager()
TASKS = generate_task_yaml.our_tasks(MANAGER)


@pytest.fixture(scope="module")
def built() -> dict[str, task_snapshots.Snapshot]:
    return task_snapshots.build_all(MANAGER, TASKS)


def recorded(task: str) -> task_snapshots.Snapshot | None:
    path = task_snapshots.snapshot_path(SNAPSHOTS, generate_task_yaml.yaml_path(MANAGER, task).parent.name, task)
    return task_snapshots.Snapshot.read(path)


@pytest.mark.parametrize("task", TASKS)
def test_the_checked_in_snapshot_is_what_the_task_sends_and_scores_now(built, task):
    current = built[task]
    verdict = task_snapshots.verdict(recorded(task), current)
    if verdict.action == "bump":
        yaml_file = generate_task_yaml.yaml_path(MANAGER, task)
        pytest.fail(generate_task_yaml.bump_message(task, yaml_file, current.version, verdict.reason, ROOT))
    assert verdict.action == "ok", f"{task}: {verdict.reason}; run python utils/generate_task_yaml.py"


def test_every_snapshot_file_belongs_to_a_task():
    models = SNAPSHOTS / "models"  # the model backends' records: tests/test_model_snapshots.py
    stale = [
        path.relative_to(ROOT)
        for path in SNAPSHOTS.rglob("*.txt")
        if path.stem not in TASKS
        and path.parent not in (models, SNAPSHOTS / "groups")
        and path.name not in ("harness.txt", "identity.txt", "formats.txt")  # their tests: test_<kind>_snapshot(s).py
    ]
    assert not stale, f"snapshots of tasks that no longer exist: {stale}; delete them"


def test_one_changed_word_in_any_prompt_needs_a_bump_and_with_one_only_a_regeneration(built):
    """The snapshot test fails, naming the task and the line, whatever task's prompt loses a word; with the version
    raised (and its changelog line, checked below) only a regeneration remains."""
    for task, snapshot in built.items():
        words = snapshot.content["prompt"].split(" ")
        changed = {**snapshot.content, "prompt": " ".join(words[:-1] + ["changed"])}
        now = dataclasses.replace(snapshot, digest=task_snapshots.content_digest(changed))
        verdict = task_snapshots.verdict(snapshot, now)
        assert verdict.action == "bump", task
        bumped = dataclasses.replace(now, version=f"{snapshot.version}.1")
        assert task_snapshots.verdict(snapshot, bumped).action == "regenerate", task
    message = generate_task_yaml.bump_message(
        "nleye_triplet", ROOT / "yaml_tasks/nleye/nleye_triplet.yaml", "3.6", "line 17", ROOT
    )
    assert "nleye_triplet" in message and "yaml_tasks/nleye/README.md" in message and "line 17" in message


def test_a_changed_prompt_is_caught_by_building_the_snapshot_again(monkeypatch, built):
    """End to end for the prompt the review changed: the end of PROMPT_TRIPLET_SEPARATE."""
    from abductive_tasks.nleye import prompts

    shortened = prompts.PROMPT_TRIPLET_SEPARATE.rsplit(" ", 1)[0] + " now."
    monkeypatch.setattr(prompts, "PROMPT_TRIPLET_SEPARATE", shortened)
    with task_snapshots.environment():
        now = task_snapshots.build(MANAGER, "nleye_triplet")
    verdict = task_snapshots.verdict(built["nleye_triplet"], now)
    assert verdict.action == "bump" and "line " in verdict.reason and shortened in verdict.reason


def test_the_digest_covers_the_reader_rules_and_the_metric_code(built):
    index = code_digest.CodeIndex()
    with task_snapshots.environment():
        obj = task_snapshots.task_object(MANAGER, "nleye_triplet")
    reached = index.reach(task_snapshots.roots(index, obj, obj.config.process_results))
    for ref in (
        ("abductive_tasks.scoring.reading.rules", "STATEMENTS"),  # the reading rules
        ("abductive_tasks.scoring.reading.kinds", "Choice"),  # the answer kind
        ("abductive_tasks.nleye.hooks", "TRIPLET_ANSWER"),
        ("abductive_tasks.nleye.metrics", "triplet_outcome"),  # the metric code
        ("abductive_tasks.scoring.stats", "intervals"),  # the intervals
        ("abductive_tasks.scoring.taskspec", "TaskSpec"),
        ("abductive_tasks.nleye.prompts", "explanation_judge_prompt"),  # the judge's prompt
    ):
        assert ref in reached, ref
    assert ("abductive_tasks.nleye.hooks", "PAIRS") not in reached  # another family's spec


# ---------------------------------------------------------------- versions and changelogs


@pytest.mark.parametrize("task", TASKS)
def test_every_version_has_a_changelog_line_and_a_line_naming_the_task_sets_it(task):
    path = generate_task_yaml.yaml_path(MANAGER, task)
    lines = generate_task_yaml.changelog((path.parent / "README.md").read_text(encoding="utf-8"))
    version = generate_task_yaml.yaml_version(path.read_text(encoding="utf-8"))
    assert any(generate_task_yaml.logs(line, task, version) for line in lines), (
        f"{task}: version {version} has no changelog line naming it (or no task) in {path.parent / 'README.md'}"
    )
    named = generate_task_yaml.named_version(lines, task)
    assert named is None or task_snapshots.version_key(named) <= task_snapshots.version_key(version), (
        f"{task}: the changelog names it with {named}, its YAML says {version}: run python utils/generate_task_yaml.py"
    )


def test_changelog_lines_name_tasks_before_their_version():
    readme = (
        "### Changelog\n\n- 1.0 (2026-11-22): first release of `x_a`.\n"
        "- `x_a`, `y_*` 1.2 (2026-11-23): reading.\n- 2.3 / 3.6 (2026-11-27): both.\n\n"
        "### Running\n- `x_a` 9.0 (2026-11-29): x\n"
    )
    lines = generate_task_yaml.changelog(readme)
    assert lines == [([], ["1.0"]), (["x_a", "y_*"], ["1.2"]), ([], ["2.3", "3.6"])]
    assert generate_task_yaml.named_version(lines, "y_b") == "1.2"
    assert generate_task_yaml.named_version(lines, "z") is None
    text = "task: t\nmetadata:\n  max_images_per_prompt: 1\n  version: 3.5  # note\n"
    assert generate_task_yaml.yaml_version(text) == "3.5"
    assert task_snapshots.version_key("3.10") > task_snapshots.version_key("3.9")


def test_a_changelog_line_naming_other_tasks_does_not_log_a_version_of_this_one():
    lines = generate_task_yaml.changelog(
        "### Changelog\n\n- `x_b` 2.4 (2026-11-29): b.\n- 1.0 / 2.3 (2026-11-22): all.\n"
    )
    assert [generate_task_yaml.logs(line, "x_a", "2.4") for line in lines] == [False, False]
    assert [generate_task_yaml.logs(line, "x_b", "2.4") for line in lines] == [True, False]
    assert [generate_task_yaml.logs(line, "x_a", "2.3") for line in lines] == [False, True]


def test_no_state_of_the_records_history_hides_a_change():
    """Walking the first-parent history of tests/snapshots (and the working tree): no digest changed without a higher
    version, no version names two contents, no scheme change carried code, every bump logged. The whole history,
    not the last commit alone: a bad commit followed by another is still found."""
    if task_snapshots.git(ROOT, "rev-parse", "HEAD") is None:
        pytest.skip("no git history to walk")
    assert task_snapshots.history_problems(ROOT) == []


def _toy_history(tmp_path: Path) -> Path:
    """A git checkout whose one commit holds a snapshot of ``t`` (1.0, scheme 3), a changelog and a module."""
    (tmp_path / "tests" / "snapshots" / "b").mkdir(parents=True)
    (tmp_path / "yaml_tasks" / "b").mkdir(parents=True)
    (tmp_path / "abductive_tasks").mkdir()
    (tmp_path / "abductive_tasks" / "m.py").write_text("X = 1\n")
    (tmp_path / "yaml_tasks" / "b" / "README.md").write_text("### Changelog\n\n- 1.0 / 1.1 (2026-11-22): first.\n")
    _write_snapshot(tmp_path, "1.0", "3-aaaa")
    _commit(tmp_path, "first")
    return tmp_path


def _write_snapshot(root: Path, version: str, digest: str, body: str = "prompt:\n  | p\n") -> None:
    snapshot = task_snapshots.Snapshot("t", version, digest, body)
    (root / "tests" / "snapshots" / "b" / "t.txt").write_text(snapshot.text())


def _commit(root: Path, message: str) -> None:
    if not (root / ".git").exists():
        subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], check=True
    )


def _problems(root: Path) -> list[str]:
    """The history's problems, without the commit names (they differ at each run)."""
    return [
        problem.split(": ", 1)[1] if " (after " in problem else problem
        for problem in task_snapshots.history_problems(root)
    ]


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_a_digest_rewritten_under_the_same_version_is_caught_in_any_later_commit(tmp_path):
    """The review's second round: the checks compared HEAD^ only, so a bad commit followed by any other passed."""
    root = _toy_history(tmp_path)
    _write_snapshot(root, "1.0", "3-bbbb", "prompt:\n  | new\n")
    _commit(root, "hidden")
    (root / "abductive_tasks" / "m.py").write_text("X = 1  # later\n")
    _commit(root, "another")
    assert "t: digest 3-aaaa -> 3-bbbb, version 1.0 -> 1.0" in _problems(root)
    assert any(problem.startswith("t 1.0: recorded as 3-aaaa at ") for problem in _problems(root))


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_a_version_an_earlier_commit_recorded_is_not_recorded_again_with_another_digest(tmp_path):
    """The review's I: a branch bumped 1.0 -> 1.1 in a commit; a later change regenerated (or hand-edited) under
    1.1 passed a comparison with the base (1.0 -> 1.1 went up)."""
    root = _toy_history(tmp_path)
    (root / "yaml_tasks" / "b" / "README.md").write_text(
        "### Changelog\n\n- 1.0 (2026-11-22): first.\n- 1.1 (2026-11-30): t.\n"
    )
    _write_snapshot(root, "1.1", "3-bbbb")
    _commit(root, "bump")
    assert _problems(root) == []
    _write_snapshot(root, "1.1", "3-cccc")
    [problem, reused] = _problems(root)
    assert problem == "t: digest 3-bbbb -> 3-cccc, version 1.1 -> 1.1"
    assert reused.startswith("t 1.1: recorded as 3-bbbb at ") and reused.endswith("3-cccc at the working tree")


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_a_digest_scheme_change_carrying_a_change_of_code_is_refused(tmp_path):
    """The review's G: raising DIGEST_SCHEME and regenerating accepted any change with no bump."""
    root = _toy_history(tmp_path)
    _write_snapshot(root, "1.0", "4-bbbb")
    assert _problems(root) == []  # alone: fine
    (root / "abductive_tasks" / "m.py").write_text("X = 2\n")
    (root / "abductive_tasks" / "new.py").write_text("")
    assert _problems(root) == [
        "the digest scheme changed together with ['abductive_tasks/m.py', 'abductive_tasks/new.py']: land a scheme "
        "change alone"
    ]
    _commit(root, "scheme and code")
    (root / "yaml_tasks" / "b" / "extra.yaml").write_text("")
    assert len(_problems(root)) == 1  # the commit that did it, found later too


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_a_bump_needs_a_changelog_line_of_its_own(tmp_path):
    """The review's H: a bump passed when an older line (or another task's) held the new version."""
    root = _toy_history(tmp_path)
    _write_snapshot(root, "1.1", "3-bbbb")
    assert _problems(root) == ["t 1.0 -> 1.1: no new changelog line in yaml_tasks/b/README.md"]
    readme = root / "yaml_tasks" / "b" / "README.md"
    readme.write_text(readme.read_text() + "- `u` 1.1 (2026-11-30): another task.\n")
    assert _problems(root) != []
    readme.write_text(readme.read_text() + "- `t` 1.1 (2026-11-30): t's change.\n")
    assert _problems(root) == []


# ---------------------------------------------------------------- the code digest


def _digest(source: str) -> str:
    return code_digest.canonical(ast.parse(textwrap.dedent(source)))


def test_comments_docstrings_formatting_and_signature_annotations_do_not_change_the_digest():
    plain = _digest(
        """
        def f(x, y=2):
            return x * y + len(f"{x}a{y}")
        """
    )
    noisy = _digest(
        '''
        def f(x: int,   y: "float" = 2) -> float:  # a comment
            """What f does."""
            # another
            return (x * y
                    + len(f"{x}" "a" f"{y}"))
        '''
    )
    assert plain == noisy


def test_a_local_variable_annotation_does_not_change_the_digest_but_a_class_field_annotation_does():
    assert _digest("def f():\n    seen: dict[str, int] = {}\n    found: list\n    return seen\n") == _digest(
        "def f():\n    seen = {}\n    return seen\n"
    )
    assert _digest("class A:\n    n: int = 1\n") != _digest("class A:\n    n = 1\n")


def _renamed(source: str) -> str:
    return code_digest.canonical(code_digest.locals_renamed(ast.parse(textwrap.dedent(source))))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("def f(a):\n    x = a + 1\n    return x\n", "def f(a):\n    total = a + 1\n    return total\n"),
        ("def f(xs):\n    return [x * 2 for x in xs]\n", "def f(xs):\n    return [y * 2 for y in xs]\n"),
        (
            "def f(a):\n    x = a\n    def g():\n        return x\n    return g\n",
            "def f(a):\n    y = a\n    def h():\n        return y\n    return h\n",
        ),
        (
            "def f():\n    try:\n        pass\n    except E as e:\n        raise e\n",
            "def f():\n    try:\n        pass\n    except E as error:\n        raise error\n",
        ),
    ],
    ids=["local", "comprehension", "closure", "except-as"],
)
def test_renaming_a_functions_own_variable_does_not_change_the_digest(before, after):
    """The drift review's false alarm: a renamed local variable asked for a bump."""
    assert _renamed(before) == _renamed(after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("def f(a):\n    return a\n", "def f(b):\n    return b\n"),  # a parameter: callers may name it
        ("def f(a):\n    x = len(a)\n    return x\n", "def f(a):\n    len = len(a)\n    return len\n"),
        ("def f(xs):\n    [x for x in xs]\n    return x\n", "def f(xs):\n    [z for z in xs]\n    return z\n"),
        (
            "def f(a):\n    x = a\n    def g():\n        return x\n    return g\n",
            "def f(a):\n    y = a\n    def g():\n        return x\n    return g\n",
        ),
        (
            "class A:\n    def m(self):\n        x = 1\n        return x\n    def n(self):\n        return x\n",
            "class A:\n    def m(self):\n        w = 1\n        return w\n    def n(self):\n        return w\n",
        ),
        ("def f():\n    x = 1\n    return locals()['x']\n", "def f():\n    y = 1\n    return locals()['x']\n"),
        ("class A:\n    x = 1\n", "class A:\n    y = 1\n"),
    ],
    ids=[
        "parameter",
        "shadowed-global",
        "comprehension-leak",
        "closure-to-global",
        "sibling-global",
        "locals",
        "field",
    ],
)
def test_a_rename_that_changes_what_a_name_refers_to_changes_the_digest(before, after):
    """Only a consistent renaming of a function's own variables is no change: a name that reads something else
    after it (a global, a comprehension's variable outside it, a sibling method's global) is."""
    assert _renamed(before) != _renamed(after)


def test_a_changed_constant_operator_name_or_field_annotation_changes_the_digest():
    base = _digest("def f(x):\n    return x * 2\n")
    for changed in ("def f(x):\n    return x * 3\n", "def f(x):\n    return x + 2\n", "def g(x):\n    return x * 2\n"):
        assert _digest(changed) != base
    assert _digest("class A:\n    n: int\n") != _digest("class A:\n    n: str\n")  # dataclass / msgspec fields


def test_reach_follows_imports_attributes_and_function_level_imports_and_a_move_keeps_the_digest(tmp_path, monkeypatch):
    package = tmp_path / "toy_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "from toy_pkg import b\nfrom toy_pkg.b import helper\n\nTABLE = (1, 2)\n\n"
        "Alias = int\n\n"
        "def root(x: Alias) -> Alias:\n    from toy_pkg.c import late\n    y: Alias = 1\n"
        "    return helper(x) + b.other() + late() + len(TABLE) + y\n\n"
        "def unused():\n    return 0\n"
    )
    (package / "b.py").write_text("def helper(x):\n    return x\n\ndef other():\n    return 1\n")
    (package / "c.py").write_text("def late():\n    return 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    index = code_digest.CodeIndex("toy_pkg")
    reached = index.reach([("toy_pkg.a", "root")])
    assert set(reached) == {  # not Alias: named in annotations only
        ("toy_pkg.a", "root"),
        ("toy_pkg.a", "TABLE"),
        ("toy_pkg.b", "helper"),
        ("toy_pkg.b", "other"),
        ("toy_pkg.c", "late"),
    }
    (package / "c.py").write_text("")
    (package / "b.py").write_text((package / "b.py").read_text() + "\ndef late():\n    return 2\n")
    (package / "a.py").write_text((package / "a.py").read_text().replace("toy_pkg.c import", "toy_pkg.b import"))
    moved = code_digest.CodeIndex("toy_pkg").reach([("toy_pkg.a", "root")])
    assert ("toy_pkg.b", "late") in moved and code_digest.digest_of(moved) == code_digest.digest_of(reached)


def test_settings_help_texts_are_not_in_the_digest_but_defaults_are(monkeypatch):
    from abductive_tasks import settings

    view = code_digest.RUNTIME_VIEWS[("abductive_tasks.settings", "VARIABLES")]
    before = view()
    bootstrap = settings.VARIABLES["ABDUCTIVE_BOOTSTRAP"]
    monkeypatch.setitem(settings.VARIABLES, "ABDUCTIVE_BOOTSTRAP", dataclasses.replace(bootstrap, help="other words"))
    assert view() == before
    monkeypatch.setitem(settings.VARIABLES, "ABDUCTIVE_BOOTSTRAP", dataclasses.replace(bootstrap, default="2000"))
    assert view() != before


PINNED_SOURCE = '''
"""Module docstring."""
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rule:
    """A rule."""

    pattern: re.Pattern[str]
    examples: tuple[str, ...] = field(default=())


def read(text: str, *rules: Rule, limit: int = 3, **options: object) -> int | None:
    found: list[int] = []
    for number, rule in enumerate(rules):
        if (match := rule.pattern.search(text)) is not None and f"{number:>2}{{x}}" != "":
            found += [match.start()] if number % 2 else [-1]
    total = sum(value for value in found if value > 0) or None
    try:
        return {"a": total, **options}.get("a") if limit else lambda: (yield)
    except (KeyError, TypeError) as error:
        raise ValueError(f"{error!r}: {text[1:-1]!s} {limit=}") from None
    finally:
        del found


async def later(items):
    async with items as opened:
        return [item async for item in opened if not item] + [*items]
'''


def test_the_canonical_form_is_pinned():
    """The digest of a fixed source touching most syntax: equal on every Python the package supports (3.10-3.12).
    Should a Python write it differently, this fails there, before any recorded digest could drift."""
    digest = code_digest._digest(_digest(PINNED_SOURCE))
    assert digest == "ac171f2199fee228", digest


def _toy_reach(tmp_path: Path, monkeypatch, name: str, source: str) -> dict:
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return code_digest.CodeIndex(name).reach([(f"{name}.a", "root")])


def test_a_module_level_statement_that_edits_a_table_is_part_of_the_table(tmp_path, monkeypatch):
    """The review's J: ``del _GLOSSARY_WORDS["siete"]`` at module level changed a reading with no digest moving."""
    table = "TABLE = {'siete': 7, 'ocho': 8}\n\ndef root(word):\n    return TABLE.get(word)\n"
    plain = _toy_reach(tmp_path, monkeypatch, "toy_plain", table)
    edits = {
        "toy_del": "del TABLE['siete']\n",
        "toy_loop": "for key in list(TABLE):\n    TABLE[key.upper()] = TABLE.pop(key)\n",
        "toy_call": "TABLE.pop('siete')\n",
        "toy_item": "TABLE['siete'] = 6\n",
        "toy_with": "with open(__file__) as _f:\n    TABLE.clear()\n",
    }
    for name, edit in edits.items():
        edited = _toy_reach(tmp_path, monkeypatch, name, table + edit)
        assert code_digest.digest_of(edited) != code_digest.digest_of(plain), name


def _toy_package(tmp_path: Path, monkeypatch, name: str, modules: dict[str, str]) -> dict:
    package = tmp_path / name
    package.mkdir()
    for module, source in {"__init__": "", **modules}.items():
        (package / f"{module}.py").write_text(source.replace("PKG", name))
    monkeypatch.syspath_prepend(str(tmp_path))
    return code_digest.CodeIndex(name).reach([(f"{name}.a", "root")])


def test_what_an_imported_name_stands_for_is_part_of_the_digest(tmp_path, monkeypatch):
    """The drift review's third round: ``from taskspec import REQUEST_FAILED as UPSTREAM_MISSING, UPSTREAM_MISSING as
    REQUEST_FAILED`` in mucr/metrics.py changed which records a metric counts, and no digest moved (an import is no
    definition's code, and both names were reached anyway); nor did ``from math import ceil as floor``."""
    statuses = "FAILED = 'failed'\nMISSING = 'missing'\n"
    root = "\n\ndef root(records):\n    return [r for r in records if r != MISSING], FAILED, floor(len(records) / 2)\n"
    plain = _toy_package(
        tmp_path,
        monkeypatch,
        "toy_imports",
        {"b": statuses, "a": "from math import floor\nfrom PKG.b import FAILED, MISSING" + root},
    )
    swapped = _toy_package(
        tmp_path,
        monkeypatch,
        "toy_swapped",
        {"b": statuses, "a": "from math import floor\nfrom PKG.b import FAILED as MISSING, MISSING as FAILED" + root},
    )
    external = _toy_package(
        tmp_path,
        monkeypatch,
        "toy_ceil",
        {"b": statuses, "a": "from math import ceil as floor\nfrom PKG.b import FAILED, MISSING" + root},
    )
    moved = _toy_package(
        tmp_path,
        monkeypatch,
        "toy_moved",
        {"c": statuses, "a": "from math import floor\nfrom PKG.c import FAILED, MISSING" + root},
    )
    assert len(swapped) == len(plain) == 3  # the same definitions reached, each with the same code
    assert code_digest.digest_of(swapped) != code_digest.digest_of(plain)
    assert code_digest.digest_of(external) != code_digest.digest_of(plain)
    assert code_digest.digest_of(moved) == code_digest.digest_of(plain)  # moving code between modules: no change


def test_two_definitions_of_one_name_swapped_by_their_imports_move_the_digest(tmp_path, monkeypatch):
    """The review of scheme 7: ``from b import STATUS as FIRST; from c import STATUS as SECOND`` and the same with b
    and c swapped digested alike (an imported definition was recorded by its name alone), though the program changed:
    it is recorded with the digest of its own text."""
    root = "\n\ndef root(records):\n    return [r for r in records if r == FIRST], SECOND\n"
    modules = {"b": "STATUS = 'failed'\n", "c": "STATUS = 'missing'\n"}
    plain = _toy_package(
        tmp_path,
        monkeypatch,
        "toy_first",
        {**modules, "a": "from PKG.b import STATUS as FIRST\nfrom PKG.c import STATUS as SECOND" + root},
    )
    swapped = _toy_package(
        tmp_path,
        monkeypatch,
        "toy_second",
        {**modules, "a": "from PKG.c import STATUS as FIRST\nfrom PKG.b import STATUS as SECOND" + root},
    )
    assert len(swapped) == len(plain) == 3 and code_digest.digest_of(swapped) != code_digest.digest_of(plain)


def test_renaming_a_function_only_a_yaml_names_keeps_the_digest_and_renaming_what_code_calls_does_not(
    tmp_path, monkeypatch
):
    """The review's false alarm: renaming a hook asked for a bump."""
    source = "def helper(x):\n    return x + 1\n\ndef root(x):\n    return helper(x)\n"
    before = code_digest.digest_of(_toy_reach(tmp_path, monkeypatch, "toy_hook", source))
    hook_renamed = source.replace("def root(", "def root_renamed(") + "\nroot = root_renamed\n"
    renamed = _toy_reach(tmp_path, monkeypatch, "toy_hook2", hook_renamed)
    assert code_digest.digest_of({ref: d for ref, d in renamed.items() if ref[1] != "root"}) == before
    called_renamed = source.replace("helper", "assist")
    assert code_digest.digest_of(_toy_reach(tmp_path, monkeypatch, "toy_hook3", called_renamed)) != before


def test_the_digest_covers_the_hooks_that_load_documents_and_build_requests(built):
    """The review's E, A and D: what the document hooks read (the mini grid's seed, the composite's drawing, a
    breakdown label) was outside every digest."""
    index = code_digest.CodeIndex()
    expected = {
        "sherlock_retrieval_mini": ("abductive_tasks.sherlock.data", "MINI_SEED"),
        "mucr_c2e": ("abductive_tasks.inputs.images", "compose_row"),
        "nleye_triplet": ("abductive_tasks.nleye.data", "NO_DURATION"),
    }
    with task_snapshots.environment():
        for task, ref in expected.items():
            obj = task_snapshots.task_object(MANAGER, task)
            assert ref in index.reach(task_snapshots.roots(index, obj, obj.config.process_results)), (task, ref)


def test_a_dropped_document_or_a_later_documents_changed_images_change_the_digest(monkeypatch, built):
    """The review's F and B: a hook dropping the last document, and one swapping the images of later documents,
    passed (the snapshot wrote out the first document only)."""
    from abductive_tasks.nleye import hooks

    triplet_docs, separate = hooks.triplet_docs, hooks.doc_to_visual_separate
    monkeypatch.setattr(hooks, "triplet_docs", lambda docs: (found := triplet_docs(docs)).select(range(len(found) - 1)))
    with task_snapshots.environment():
        dropped = task_snapshots.build(MANAGER, "nleye_triplet")
    monkeypatch.setattr(hooks, "triplet_docs", triplet_docs)
    first: list = []  # the image paths of the first document asked for (the snapshot's first document)

    def swapped(doc: dict) -> list:
        first[:] = first or [doc["image_paths"]]
        images = separate(doc)
        return images if doc["image_paths"] == first[0] else images[::-1]

    monkeypatch.setattr(hooks, "doc_to_visual_separate", swapped)
    with task_snapshots.environment():
        later = task_snapshots.build(MANAGER, "nleye_triplet")
    for changed in (dropped, later):
        assert task_snapshots.verdict(built["nleye_triplet"], changed).action == "bump"
    assert dropped.content["documents"] == built["nleye_triplet"].content["documents"] - 1
    assert later.content["images"] == built["nleye_triplet"].content["images"]  # the first document is as it was


def test_a_tasks_metadata_but_its_version_is_in_the_snapshot(built):
    """The review's 6e: a changed ``headline_metric`` passed the version checks."""
    assert '"headline_metric": "comparison_acc"' in built["sherlock_comparison"].body
    assert '"version"' not in built["sherlock_comparison"].content["config"]["metadata"]


def test_a_document_field_only_the_metrics_read_changes_the_digest(monkeypatch, built):
    """The drift review's second round: a sample's category (read by a breakdown) or a human rating (read by the
    comparison metric) changed no digest; only prompts, targets and pixels did."""
    from abductive_tasks.nleye import hooks

    triplet_docs = hooks.triplet_docs

    def recategorised(docs):
        found = triplet_docs(docs)
        return found.map(
            lambda doc, number: {"reasoning_category": "changed"} if number == 3 else {}, with_indices=True
        )

    monkeypatch.setattr(hooks, "triplet_docs", recategorised)
    with task_snapshots.environment():
        now = task_snapshots.build(MANAGER, "nleye_triplet")
    assert now.content["prompt"] == built["nleye_triplet"].content["prompt"]
    assert task_snapshots.verdict(built["nleye_triplet"], now).action == "bump"


def test_the_snapshot_environment_registers_what_a_run_does():
    """A task whose YAML names the read_answer filter (registered with our model backends) can be built."""
    from lmms_eval import filters

    with task_snapshots.environment():
        assert "read_answer" in filters.FILTER_REGISTRY


def test_every_record_of_every_kind_is_in_the_history_checks():
    """The harness's and the groups' records were left out of the history walk (their heads were not read)."""
    heads = task_snapshots.recorded_heads(ROOT, None)
    assert len(heads) == len(list(SNAPSHOTS.rglob("*.txt")))
    assert {head.kind for head in heads.values()} == set(task_snapshots.KINDS)
