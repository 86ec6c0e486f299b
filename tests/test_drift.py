"""The drift check (.ci/drift.py) names the upstream release that breaks the Quick start.

The drift is simulated offline: a local wheel of a newer filelock that no longer has ``filelock._api`` (the
module filelock 4.3 removed and lmms-eval 0.7.3's evaluator imports), forced by a constraint.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import filelock
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / ".ci"))
import drift  # noqa: E402

STUB_VERSION = "4.2.99"


def test_locked_versions_follow_the_markers(tmp_path: Path) -> None:
    lock = tmp_path / "lock.txt"
    lock.write_text(
        "# header\n"
        "alpha==1.0\n"
        "    # via beta\n"
        "Beta_Pkg==2.0 ; python_full_version < '3.0'\n"
        "beta-pkg==3.0 ; python_full_version >= '3.0'\n"
        "gamma[extra]==4.0 ; sys_platform == 'no-such-platform'\n"
    )
    assert drift.locked_versions(lock) == {"alpha": "1.0", "beta-pkg": "3.0"}


def test_changes_and_culprits() -> None:
    changed = drift.changes(
        {"filelock": "4.2.12", "numpy": "2.4.6"}, {"filelock": "4.3.1", "numpy": "2.4.6", "new": "1"}
    )
    assert changed == {"filelock": ("4.2.12", "4.3.1"), "new": (None, "1")}
    error = "ModuleNotFoundError: No module named 'filelock._api'"
    assert drift.culprits(changed, error) == {"filelock": ("4.2.12", "4.3.1")}
    assert drift.culprits(changed, "Segmentation fault") == changed  # names none: all of them
    assert drift.describe(changed) == "filelock 4.2.12 -> 4.3.1, new (new) -> 1"


def test_first_error_skips_the_traceback_header() -> None:
    output = "ok: demo\nTraceback (most recent call last):\n  File x\nValueError: bad value\nlater error: y\n"
    assert drift.first_error(output) == "ValueError: bad value"
    assert drift.first_error("all fine\nlast line\n") == "last line"


def _stub_filelock_wheel(folder: Path) -> Path:
    """A wheel of filelock ``STUB_VERSION`` built from the installed one with ``_api`` renamed away."""
    source = folder / "src"
    package = source / "filelock"
    shutil.copytree(Path(filelock.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "_api.py").rename(package / "_core.py")
    for module in package.glob("*.py"):
        module.write_text(re.sub(r"\b_api\b", "_core", module.read_text(encoding="utf-8")), encoding="utf-8")
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "filelock"\nversion = "{STUB_VERSION}"\n'
        '[tool.setuptools]\npackages = ["filelock"]\n'
    )
    wheels = folder / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(wheels),
            str(source),
        ],
        check=True,
    )
    return wheels


@pytest.mark.e2e
def test_a_breaking_release_is_named_in_one_line(tmp_path: Path) -> None:
    wheels = _stub_filelock_wheel(tmp_path)
    force = tmp_path / "force.txt"
    force.write_text(f"filelock=={STUB_VERSION}\n")
    pip_args = f"--no-index --no-build-isolation --find-links {wheels} -c {force}"
    result = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "drift.py"), "--pip-args", pip_args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 1, result.stdout + result.stderr
    assert len(lines) == 1, result.stdout
    locked = drift.locked_versions(ROOT / "constraints.txt")["filelock"]
    assert lines[0].startswith(f"drift: FAILED filelock {locked} -> {STUB_VERSION} (1 of 1 package changed) | ")
    assert "No module named 'filelock._api'" in lines[0]
    assert filelock.__version__ != STUB_VERSION  # the overlay left the running environment as it was
