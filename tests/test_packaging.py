"""The wheel carries the task YAML and sample data, registers the models, and lists our tasks."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import abductive_tasks

REPO = Path(__file__).resolve().parents[1]
TASKS = {
    "nleye_triplet",
    "nleye_triplet_combined",
    "nleye_triplet_text",
    "nleye_pairs",
    "nleye_pairs_combined",
    "nleye",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(REPO)],
        check=True,
    )
    (path,) = out.glob("abductive_tasks-*.whl")
    return path


def test_wheel_contents(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "nleye_triplet.yaml",
        "nleye.yaml",
        "_default_template_yaml",
        "_triplet_template_yaml",
        "_placeholder.jsonl",
        "README.md",
    ):
        assert f"abductive_tasks/tasks/nleye/{name}" in names
    assert "abductive_tasks/sample_data/nleye/test_set.csv" in names
    assert sum(n.startswith("abductive_tasks/sample_data/nleye/images/") for n in names) == 36
    assert "abductive_tasks/reports/templates/items.html.j2" in names  # the browse / diff page
    modules = {
        path.relative_to(REPO).as_posix()
        for path in (REPO / "abductive_tasks").rglob("*.py")
        if "tasks" not in path.relative_to(REPO).parts[1:2]
    }
    assert modules and modules <= names  # every subpackage is found, none listed by hand
    # The sample-data generators are development tools (utils/sample_generators), not runtime code.
    assert not [name for name in names if "sample_generators" in name or name.endswith("/sample.py")]
    yaml = {
        f"abductive_tasks/tasks/{path.relative_to(REPO / 'yaml_tasks').as_posix()}"
        for path in (REPO / "yaml_tasks").rglob("*.yaml")
    }
    assert yaml <= names
    entry_points = next(zipfile.Path(wheel, n).read_text() for n in names if n.endswith("entry_points.txt"))
    assert "[lmms_eval.models]" in entry_points and "abductive-eval = abductive_tasks.cli:main" in entry_points


def test_wheel_metadata_names_the_license_authors_urls_and_python_versions(wheel):
    """What PyPI and ``pip show`` show: the license (an SPDX expression and its file), who wrote it, where it lives,
    and a classifier per Python version the CI matrix tests (.github/workflows/ci.yml)."""
    import email
    import re

    names = zipfile.ZipFile(wheel).namelist()
    metadata = email.message_from_string(
        zipfile.Path(wheel, next(name for name in names if name.endswith(".dist-info/METADATA"))).read_text()
    )
    assert metadata["License-Expression"] == "Apache-2.0" and "LICENSE" in metadata.get_all("License-File")
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert metadata["Author"] or metadata["Author-email"]
    urls = dict(entry.split(", ", 1) for entry in metadata.get_all("Project-URL"))
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())
    classifiers = metadata.get_all("Classifier")
    workflow = (REPO / ".github" / "workflows" / "ci.yml").read_text()
    tested = re.findall(r'"(3\.\d+)"', workflow.split("python-version:", 1)[1].split("\n", 1)[0])
    assert tested and {f"Programming Language :: Python :: {version}" for version in tested} <= set(classifiers)
    assert metadata["Requires-Python"] == f">={min(tested, key=lambda v: int(v.split('.')[1]))}"
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression says it
    assert metadata["Version"] == abductive_tasks.__version__  # pyproject.toml reads the package's one version


def test_installed_wheel_lists_tasks_and_models(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)], check=True
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    probe = (
        "from abductive_tasks.compat import tasks_path\n"
        "from lmms_eval.tasks import TaskManager\n"
        "from lmms_eval.models import get_model\n"
        "print(tasks_path())\n"
        "print(','.join(sorted(TaskManager(include_path=str(tasks_path()), include_defaults=False).all_tasks)))\n"
        "print(get_model('random_baseline').__name__, get_model('dumb_pixel').__name__)\n"
        "print(get_model('llava').__module__)\n"  # ours, over lmms-eval's own llava
    )
    lines = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.splitlines()
    assert Path(lines[-4]).is_relative_to(target)
    assert TASKS <= set(lines[-3].split(","))
    assert lines[-2:] == ["RandomBaseline DumbPixel", "abductive_tasks.models.llava"]
    printed = subprocess.run(
        [str(target / "bin" / "abductive-eval"), "--tasks-path"], env=env, capture_output=True, text=True, check=True
    )
    assert printed.stdout.strip() == lines[-4]
