"""No page goes stale: every shell command of README.md, docs/ and the task READMEs is run by ``.ci/quickstart`` or
``.ci/run``, or exercised by a named test (with stubs where it needs a GPU, the hub or an API), and every name it
uses (subcommand, option, task, model, extra, variable, file) exists today; every relative link resolves.

How each command is covered is the table ``tests/docs_commands.yaml``: a pattern, then what runs it. A new command
in a fenced ``bash`` block fails this test until it has a row. Fast: no command is run here, only read and checked
(the checks are the ones ``abductive-eval`` makes before lmms-eval starts).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import tomllib
import yaml

from abductive_tasks import cli, lmms_source, settings

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "yaml_tasks").glob("*/README.md"))]
SHELL = ("bash", "sh", "shell", "console")
QUICKSTART = (ROOT / ".ci" / "quickstart").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")

# What runs each documented command: tests/docs_commands.yaml (its header says how a row reads).
COVERAGE: list[tuple[str, list[str]]] = [
    (row["pattern"], row["run_by"])
    for row in yaml.safe_load((Path(__file__).with_name("docs_commands.yaml")).read_text(encoding="utf-8"))
]


def shell_commands(page: Path) -> list[str]:
    """Each command of the page's shell blocks: continuation lines joined, comments and blank lines left out."""
    commands = []
    for block in re.finditer(r"^ *```(\w*)\n(.*?)^ *```", page.read_text(encoding="utf-8"), re.M | re.S):
        if block.group(1) not in SHELL:
            continue
        for line in block.group(2).replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#"):
                commands.append(re.sub(r" {2,}", " ", line))
    return commands


DOCUMENTED = [(page.relative_to(ROOT).as_posix(), command) for page in PAGES for command in shell_commands(page)]


def coverage(command: str) -> list[str]:
    return [runner for pattern, runners in COVERAGE if re.search(pattern, command) for runner in runners]


def test_the_pages_hold_commands_and_every_row_matches_one():
    assert len(DOCUMENTED) > 50 and any(page == "README.md" for page, _ in DOCUMENTED)
    unused = [pattern for pattern, _ in COVERAGE if not any(re.search(pattern, command) for _, command in DOCUMENTED)]
    assert not unused, f"rows of tests/docs_commands.yaml no page needs any more: {unused}"


@pytest.mark.parametrize("page, command", DOCUMENTED)
def test_every_documented_command_is_run_by_ci_or_a_named_test(page, command):
    runners = coverage(command)
    assert runners, f"{page}: `{command}` is run by nothing: add a row to tests/docs_commands.yaml"
    for runner in runners:
        kind, _, what = runner.partition(": ")
        if kind == "quickstart":
            assert what in QUICKSTART, f"{page}: `{command}`: .ci/quickstart no longer runs `{what}`"
        elif kind == "ci":
            assert what in CI_RUN, f"{page}: `{command}`: .ci/run no longer runs `{what}`"
        elif kind == "test":
            path, _, name = what.partition("::")
            source = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).is_file() else ""
            assert re.search(rf"^def {name}\(", source, re.M), f"{page}: `{command}`: no test {what}"
        else:
            assert runner in ("checked here",) or kind == "not run", runner


# ---------------------------------------------------------------- the names a command uses exist today


def words(command: str) -> list[str]:
    """The command's words, with ``<placeholder>`` values kept as one word."""
    return shlex.split(re.sub(r"<([^>]*)>", lambda m: "<" + m.group(1).replace(" ", "_") + ">", command))


def eval_arguments(command: str) -> list[str] | None:
    """The ``eval`` arguments of an ``abductive-eval`` or ``lmms-eval`` evaluation, else None."""
    argv = words(command.split("|")[0])
    while argv and re.fullmatch(r"[A-Z_]+=.*", argv[0]):
        argv = argv[1:]
    if not argv or argv[0] not in ("abductive-eval", "lmms-eval") or len(argv) < 2 or not argv[1].startswith("--"):
        return None
    return [argument for argument in argv[1:] if argument != "..."]


EVALUATIONS = [(page, command) for page, command in DOCUMENTED if eval_arguments(command) and "--model" in command]


@pytest.mark.parametrize("page, command", EVALUATIONS)
def test_every_documented_evaluation_names_options_tasks_and_models_that_exist(page, command):
    argv = eval_arguments(command)
    cli.check_options(argv)  # raises UsageError naming the closest option
    tasks = cli.option_value(argv, "--tasks")
    assert tasks, f"{page}: `{command}` names no task"
    include_path = cli.option_value(argv, "--include_path")  # a folder of the repository (docs/examples/...)
    cli.check_tasks(tasks, str(ROOT / include_path) if include_path else None)
    model = cli.option_value(argv, "--model")
    known = lmms_source.quick_model_names()
    assert model.startswith("<") or known is None or model in known, f"{page}: `{command}`: unknown model {model}"
    for name in re.findall(r"\b(ABDUCTIVE_\w+)=", command):
        assert name in settings.VARIABLES, f"{page}: `{command}`: {name} is no setting"


def test_documented_subcommands_spec_files_extras_scripts_and_variables_exist():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    for page, command in DOCUMENTED:
        argv = words(command.split("|")[0].split("&&")[0])
        while argv and re.fullmatch(r"(export )?[A-Z_]+=.*", argv[0]):
            argv = argv[1:]
        for name in re.findall(r"\b(ABDUCTIVE_\w+)=", command):
            assert name in settings.VARIABLES, f"{page}: `{command}`: {name} is no setting"
        if argv[:1] == ["abductive-eval"] and len(argv) > 1 and not argv[1].startswith("-"):
            assert argv[1] in cli.SUBCOMMANDS, f"{page}: `{command}`: no subcommand {argv[1]}"
            if argv[1] == "batch":
                assert (ROOT / argv[2]).is_file(), f"{page}: `{command}`: no spec {argv[2]}"
        for extra in re.findall(r"\.\[([a-z,]+)\]", command):
            assert set(extra.split(",")) <= set(extras), f"{page}: `{command}`: unknown extra in {extra}"
        if "-c constraints.txt" in command:
            assert (ROOT / "constraints.txt").is_file()
        if "pre-commit install" in command:
            assert (ROOT / ".pre-commit-config.yaml").is_file()
        if argv[:2] == ["pytest", "-m"]:
            marker = argv[2].removeprefix("not ")
            assert any(line.startswith(f"{marker}:") for line in markers["markers"]), f"{page}: no marker {marker}"
        if argv[:1] == ["python"] and argv[1].startswith("utils/"):
            script = (ROOT / argv[1]).read_text(encoding="utf-8")
            for module in re.findall(r"^from (abductive_tasks[\w.]*) import", script, re.M):  # a script's own CLI
                source = ROOT / (module.replace(".", "/") + ".py")
                script += source.read_text(encoding="utf-8") if source.is_file() else ""
            for option in (word.split("=")[0] for word in argv[2:] if word.startswith("--")):
                assert f'"{option}"' in script, f"{page}: `{command}`: {argv[1]} takes no {option}"


# ---------------------------------------------------------------- links


def test_every_relative_link_resolves_in_the_repository():
    """mkdocs checks links between pages (the built site is crawled in .ci/run); here every relative link is checked
    as on GitHub: the file must exist, and an anchor into a page of ours must be one of its headings. A page the site
    makes from another file (utils/mkdocs_hooks.py: install.md, quickstart.md, tasks/*.md) is linked as that file
    (docs/tasks/sherlock.md was a dead link on GitHub)."""
    broken = []
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve()
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, broken


def test_the_site_makes_its_install_quick_start_and_task_pages_with_site_links():
    import mkdocs_hooks

    assert set(mkdocs_hooks.generated_sources(ROOT)) == {
        "install.md", "quickstart.md", "tasks/nleye.md", "tasks/mucr.md", "tasks/dve.md", "tasks/sherlock.md",
        "tasks/suites.md",
    }  # fmt: skip
    quickstart = mkdocs_hooks.page_text("quickstart.md", ROOT)
    assert quickstart.startswith("# Quick start\n") and "## Demo (offline, CPU)" in quickstart
    assert "](results.md)" in quickstart and "](docs/" not in quickstart and "](yaml_tasks/" not in quickstart
    nleye = mkdocs_hooks.page_text("tasks/nleye.md", ROOT)
    assert "](../benchmarks/nleye.md)" in nleye and "../../docs/" not in nleye
    assert "](vllm.md)" in mkdocs_hooks.page_text("install.md", ROOT)


def test_a_docs_page_links_the_repository_files_and_the_site_its_pages():
    """docs/ links README.md and the task READMEs as files (so GitHub finds them); the site's page of each docs page
    points to the page made from that file, a README link by the section its anchor names."""
    import mkdocs_hooks

    class Page:  # what the hook reads of mkdocs' page
        def __init__(self, source: str) -> None:
            self.file = type("File", (), {"src_uri": source})()

    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "](../README.md#install)" in index and "](../yaml_tasks/mucr/README.md)" in index
    site = mkdocs_hooks.on_page_markdown(index, Page("index.md"), None, None)
    assert "](install.md#install)" in site and "](quickstart.md#quick-start)" in site and "](tasks/mucr.md)" in site
    notes = mkdocs_hooks.on_page_markdown("[x](../../yaml_tasks/dve/README.md)", Page("benchmarks/dve.md"), None, None)
    assert notes == "[x](../tasks/dve.md)"
    results = mkdocs_hooks.on_page_markdown("[d](../README.md#demo-offline-cpu)", Page("results.md"), None, None)
    assert results == "[d](quickstart.md#demo-offline-cpu)"
    unheld = "[l](../README.md#license)"  # a README section no site page holds: left for the strict build to refuse
    assert mkdocs_hooks.on_page_markdown(unheld, Page("index.md"), None, None) == unheld


def anchors(text: str) -> set[str]:
    """GitHub's and mkdocs' anchors of a page's headings (lower case, punctuation dropped, spaces as dashes)."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}
