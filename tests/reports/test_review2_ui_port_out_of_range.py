"""REVIEW-2: ``abductive-eval ui`` says a port it cannot listen on in one line (commit 73cb323f) only for an OSError;
a port outside 0-65535 (``--port 70000``, or ``LMMS_SERVER_PORT=99999``, its default) raises OverflowError from
``listening_socket``'s bind: a traceback, exit 1. Fails on review-2's base (main 63cc1216)."""

from __future__ import annotations

import pytest

from abductive_tasks.cli import main


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_review2_ui_on_a_port_out_of_range_is_one_line(port, tmp_path, capsys):
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    assert main(["ui", "--no-browser", "--port", port, str(tmp_path)]) == 2  # today: OverflowError, a traceback
    printed = capsys.readouterr()
    assert printed.err.startswith("abductive-eval ui: ") and printed.err.count("\n") == 1
