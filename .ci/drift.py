#!/usr/bin/env python3
"""Drift check: do the newest releases that resolve still run the Quick start?

    python .ci/drift.py [--lock constraints.txt] [--pip-args "..."] [--keep DIR]

1. Resolves the project's install (``.[test]``) as a fresh environment would today, without the lock
   (``pip install --dry-run --ignore-installed --report``: metadata only, nothing downloaded but the
   project's own build).
2. Compares the resolution with the lock for this interpreter and platform. Nothing changed: done.
3. Otherwise builds an overlay of the running (locked) environment in which every changed or new package
   is installed at its resolved version (``--no-deps``), so the overlay holds exactly the newest
   resolution, and runs ``.ci/quickstart`` in it.

It prints one line and exits 0 when the Quick start passes (or nothing changed), 1 when it fails. On a
failure the line names the changed package the first error points to (or every changed package, when the
error names none of them) with its locked and new versions, then the first error line, e.g.::

    drift: FAILED filelock 4.2.12 -> 4.3.1 (1 of 3 packages changed) | ModuleNotFoundError: No module named ...

``--pip-args`` adds pip options to the resolution and the overlay install (the tests point pip at a local
wheel folder with ``--no-index --find-links``, which also drops ``--ignore-installed``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
ERROR_LINE = re.compile(r"(\w+(Error|Exception)\b|error:|cannot |failed)", re.IGNORECASE)


def locked_versions(lock: Path) -> dict[str, str]:
    """``name -> version`` of the lock's pins whose markers hold for this interpreter and platform."""
    pins: dict[str, str] = {}
    for raw in lock.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if "==" not in line:
            continue
        requirement, _, marker = line.partition(";")
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        name, _, version = requirement.partition("==")
        pins[canonicalize_name(name.split("[")[0])] = version.strip()
    return pins


def newest_resolution(pip_args: list[str]) -> dict[str, str]:
    """``name -> version`` that pip resolves for ``.[test]`` today, the project itself left out."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--report", str(report)]
        if "--no-index" not in pip_args:
            command.append("--ignore-installed")
        subprocess.run([*command, *pip_args, f"{ROOT}[test]"], check=True, cwd=ROOT)
        installs = json.loads(report.read_text(encoding="utf-8"))["install"]
    resolved = {canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"] for item in installs}
    resolved.pop("abductive-tasks", None)
    return resolved


def changes(locked: dict[str, str], resolved: dict[str, str]) -> dict[str, tuple[str | None, str]]:
    """Packages whose resolved version differs from the lock: ``name -> (locked or None, resolved)``."""
    return {
        name: (locked.get(name), version) for name, version in sorted(resolved.items()) if locked.get(name) != version
    }


def overlay(base_paths: list[str], changed: dict[str, tuple[str | None, str]], pip_args: list[str], into: Path) -> Path:
    """A virtual environment that sees ``base_paths`` (with their ``.pth`` files) below its own site-packages,
    where the changed packages are installed; returns its ``bin`` folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(into)], check=True)
    site_packages = Path(sysconfig.get_path("purelib", vars={"base": str(into), "platbase": str(into)}))
    lines = [f"import site; site.addsitedir({path!r})" for path in base_paths]
    (site_packages / "_drift_base.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    python = into / "bin" / "python"
    wanted = [f"{name}=={version}" for name, (_, version) in changed.items()]
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", *pip_args, *wanted], check=True)
    for script, module in (("abductive-eval", "abductive_tasks.cli"), ("lmms-eval", "lmms_eval")):
        entry = into / "bin" / script
        call = "from abductive_tasks.cli import main; sys.exit(main())" if script == "abductive-eval" else None
        body = f'exec "{python}" -c "import sys; {call}" "$@"' if call else f'exec "{python}" -m {module} "$@"'
        entry.write_text(f"#!/usr/bin/env bash\n{body}\n", encoding="utf-8")
        entry.chmod(0o755)
    return into / "bin"


def first_error(output: str) -> str:
    """The first line of ``output`` that reads as an error (the whole last line when none does)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if ERROR_LINE.search(line) and not line.startswith("Traceback"):
            return line
    return lines[-1] if lines else "(no output)"


def culprits(changed: dict[str, tuple[str | None, str]], error: str) -> dict[str, tuple[str | None, str]]:
    """The changed packages the error names (by distribution or import name); all of them when it names none."""
    text = error.lower().replace("-", "_")
    named = {name: versions for name, versions in changed.items() if name.replace("-", "_") in text}
    return named or changed


def describe(changed: dict[str, tuple[str | None, str]]) -> str:
    return ", ".join(f"{name} {old or '(new)'} -> {new}" for name, (old, new) in changed.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lock", type=Path, default=ROOT / "constraints.txt")
    parser.add_argument("--pip-args", default="", help="more pip options, e.g. '--no-index --find-links DIR'")
    parser.add_argument("--keep", type=Path, help="build the overlay here and keep it (default: a temporary folder)")
    args = parser.parse_args(argv)
    pip_args = shlex.split(args.pip_args)

    try:
        resolved = newest_resolution(pip_args)
    except subprocess.CalledProcessError:
        print("drift: FAILED the newest releases do not resolve (pip's error is above)")
        return 1
    changed = changes(locked_versions(args.lock), resolved)
    if not changed:
        print(f"drift: none, the newest resolution equals the lock ({len(resolved)} packages)")
        return 0

    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch) / "overlay"
        bin_dir = overlay([p for p in sys.path if p.endswith("site-packages")], changed, pip_args, folder)
        environment = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(folder)}
        quickstart = subprocess.run(
            ["bash", str(ROOT / ".ci" / "quickstart")], capture_output=True, text=True, env=environment, cwd=ROOT
        )
    summary = f"{len(changed)} package{'s' if len(changed) > 1 else ''} changed"
    if quickstart.returncode == 0:
        print(f"drift: ok, the Quick start passes with the newest releases ({summary}: {describe(changed)})")
        return 0
    error = first_error(quickstart.stdout + "\n" + quickstart.stderr)
    named = culprits(changed, error)
    print(f"drift: FAILED {describe(named)} ({len(named)} of {summary}) | {error}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
