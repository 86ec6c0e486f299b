"""Ctrl-C or SIGTERM while the batch starts a child is never lost, whichever thread the kernel hands it to.

Fault injection: a fork hook sends SIGINT to the process while ``Popen`` forks the child, with a busy thread
that does not block the signal (a library's thread, or the server's output copier before it blocked them).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from abductive_tasks.runs.vllm import INTERRUPTS, VllmServer, interrupts_held

ROUNDS = 200

INJECTED = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    from pathlib import Path
    from abductive_tasks.runs.run import run_child

    def busy():
        while True:
            sum(range(1000))

    threading.Thread(target=busy, daemon=True).start()
    armed = []

    def interrupt_at_fork():
        if armed:
            armed.clear()
            os.kill(os.getpid(), {signal})
            time.sleep(0.002)  # the signal reaches a thread that does not block it, the handler runs here

    os.register_at_fork(before=interrupt_at_fork)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal, also when started as a background job
    log, caught = Path(sys.argv[1]), 0
    for _ in range({rounds}):
        armed.append(True)
        try:
            run_child(["true"], dict(os.environ), log)
        except KeyboardInterrupt:
            caught += 1
    print(caught)
    """
)


def _caught(tmp_path: Path, number: int) -> int:
    script = INJECTED.format(signal=int(number), rounds=ROUNDS)
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "eval.log")], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return int(result.stdout.strip())


def test_ctrl_c_at_fork_is_raised_every_time(tmp_path):
    assert _caught(tmp_path, signal.SIGINT) == ROUNDS


def test_sigterm_at_fork_is_raised_every_time(tmp_path):
    assert _caught(tmp_path, signal.SIGTERM) == ROUNDS


def _blocked_signals(thread_id: int) -> set[int]:
    status = Path(f"/proc/self/task/{thread_id}/status").read_text()
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)
    return {number for number in INTERRUPTS if mask >> (int(number) - 1) & 1}


def test_the_server_output_copier_never_receives_interrupts(tmp_path):
    command = [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(30)"]
    server = VllmServer(command, "127.0.0.1", 1, tmp_path / "server.log", stop_timeout=5)
    try:
        server.start()
        assert server.copier.native_id is not None
        assert _blocked_signals(server.copier.native_id) == INTERRUPTS
        assert _blocked_signals(threading.main_thread().native_id) == set()
    finally:
        server.stop()


@pytest.fixture
def ctrl_c_delivered():
    """SIGINT raising KeyboardInterrupt, as at a terminal: a suite started as a background job (or under nohup)
    inherits it ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_held_interrupt_is_raised_on_leaving_and_handlers_are_restored(ctrl_c_delivered):
    handler = signal.getsignal(signal.SIGINT)
    raised = False
    try:
        with interrupts_held():
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.01)  # held: nothing raised inside the block
    except KeyboardInterrupt:
        raised = True
    assert raised
    assert signal.getsignal(signal.SIGINT) is handler
