"""REVIEW-2: chain.run_stage_child starts the stage inside ``interrupts_held()`` but enters its wait-then-interrupt
cleanup only after the block, so a Ctrl-C held while ``Popen`` ran (raised on leaving the block, as the helper's
contract says: "where the caller's cleanup already knows the child") escapes with the stage child neither waited for,
interrupted nor killed (run.run_child has the block inside its try). Fails on review-2's base (main 63cc1216)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from abductive_tasks.runs import chain


def test_review2_a_ctrl_c_held_while_a_stage_starts_still_ends_the_stage(monkeypatch):
    started: list[subprocess.Popen] = []
    real = subprocess.Popen

    def popen_then_ctrl_c(*args, **kwargs):
        process = real(*args, **kwargs)
        started.append(process)
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while Popen runs: held, raised on leaving interrupts_held
        return process

    monkeypatch.setattr(subprocess, "Popen", popen_then_ctrl_c)
    monkeypatch.setattr(chain, "STAGE_GRACE_S", (0.1, 0.1))
    # Ctrl-C as at a terminal: under nohup or as a background job SIGINT is inherited ignored, and rightly not held
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            chain.run_stage_child([sys.executable, "-c", "import time; time.sleep(60)"], {})
    finally:
        signal.signal(signal.SIGINT, previous)
    (process,) = started
    try:
        assert process.poll() is not None, "the stage child runs on after the command took its Ctrl-C"
    finally:
        process.kill()
        process.wait()
