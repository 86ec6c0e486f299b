"""A newcomer meets structure before size: no module of the package or of utils/ over 800 lines, no function over
80 (from its ``def`` line to its last line, docstring included; nested functions count inside their parent too)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULE_LINES = 800
FUNCTION_LINES = 80


def sources() -> list[Path]:
    return sorted(
        path
        for folder in ("abductive_tasks", "utils")
        for path in (REPO / folder).rglob("*.py")
        if "sample_data" not in path.parts
    )


def test_no_module_is_over_800_lines():
    long = {
        path.relative_to(REPO).as_posix(): lines
        for path in sources()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert long == {}


def test_no_function_is_over_80_lines():
    long = {
        f"{path.relative_to(REPO).as_posix()}:{node.lineno} {node.name}": node.end_lineno - node.lineno + 1
        for path in sources()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    }
    assert long == {}


def test_the_browser_tests_find_chromium_chrome_or_the_chrome_variable(tmp_path):
    """The headless-browser tests run on Debian (chromium), GitHub's runners (google-chrome) or where CHROME says."""
    from helpers.pages import find_browser

    for name in ("google-chrome", "chromium-browser"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    assert find_browser({"PATH": str(tmp_path)}) == tmp_path / "google-chrome"  # before Ubuntu's snap stub
    (tmp_path / "chromium").write_text("#!/bin/sh\n")
    (tmp_path / "chromium").chmod(0o755)
    assert find_browser({"PATH": str(tmp_path)}) == tmp_path / "chromium"
    assert find_browser({"PATH": str(tmp_path), "CHROME": str(tmp_path / "chromium-browser")}) == (
        tmp_path / "chromium-browser"
    )
    assert find_browser({"PATH": str(tmp_path), "CHROME": "/no/such/chrome"}) is None
    assert find_browser({"PATH": str(tmp_path / "empty")}) is None
