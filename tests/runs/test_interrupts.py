"""Ctrl-C, SIGTERM or SIGHUP while the batch starts a child is never lost, whichever thread the kernel hands it to; an
interrupted child is interrupted again until it ends, killed on another Ctrl-C or after the grace, and what it still
writes reaches its log.

Fault injection: a fork hook sends SIGINT to the process while ``Popen`` forks the child, with a busy thread
that does not block the signal (a library's thread, or the server's output copier before it blocked them).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from abductive_tasks.runs import run
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
    signal.signal(signal.SIGHUP, signal.default_int_handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal, also when started as a background job
    log, caught = Path(sys.argv[1]), 0
    for _ in range({rounds}):
        armed.append(True)
        try:
            run_child(["true"], dict(os.environ), log)
            # not raised yet: the busy thread that took the signal was not run again before the child ended (a
            # loaded machine), so its handler sets the flag late; raised here, late but not lost (a lost one is not)
            time.sleep(1)
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


def test_sighup_at_fork_is_raised_every_time(tmp_path):
    """A closed terminal's SIGHUP, which the batch now stops on as on Ctrl-C."""
    assert _caught(tmp_path, signal.SIGHUP) == ROUNDS


def _blocked_signals(thread_id: int) -> set[int]:
    status = Path(f"/proc/self/task/{thread_id}/status").read_text()
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)
    return {number for number in INTERRUPTS if mask >> (int(number) - 1) & 1}


def test_the_server_output_copier_never_receives_interrupts(tmp_path, interrupts_delivered):
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
def interrupts_delivered():
    """Ctrl-C, SIGTERM and SIGHUP handled, as the batch has them: a suite started as a background job or under nohup
    inherits SIGINT and SIGHUP ignored, and a signal ignored is not held (a child inherits it ignored)."""
    previous = {number: signal.signal(number, signal.default_int_handler) for number in INTERRUPTS}
    yield
    for number, handler in previous.items():
        signal.signal(number, handler)


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


LOSES_FIRST_CTRL_C = textwrap.dedent(
    """
    import signal, sys, time
    received = []

    def handler(number, frame):
        received.append(number)
        print(len(received), flush=True)
        if len(received) > {lost}:
            print("last words", flush=True)
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    print("ready", flush=True)
    time.sleep(60)
    """
)


def _losing(lost: int) -> list[str]:
    """A child whose first ``lost`` Ctrl-Cs are lost (as one landing in ``_elementtree``'s init is, where the
    ``KeyboardInterrupt`` becomes the ``ImportError`` ElementTree falls back on); it prints each it receives."""
    return [sys.executable, "-c", LOSES_FIRST_CTRL_C.format(lost=lost)]


@contextlib.contextmanager
def _child_losing(lost: int) -> Iterator[subprocess.Popen]:
    """:func:`_losing` started and ready; killed if the test leaves it running."""
    child = subprocess.Popen(_losing(lost), stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        yield child
    finally:
        child.kill()
        child.wait()
        child.stdout.close()


def test_a_child_that_loses_a_ctrl_c_is_interrupted_again(monkeypatch):
    monkeypatch.setattr(run, "INTERRUPT_EVERY_S", 0.5)
    with _child_losing(1) as child:
        started = time.monotonic()
        run.interrupt_child(child)
        assert child.returncode == -signal.SIGINT  # its second Ctrl-C ended it, as an uncaught KeyboardInterrupt does
        assert child.stdout.read().split()[:2] == ["1", "2"] and time.monotonic() - started >= 0.5


def test_a_child_that_loses_every_ctrl_c_is_killed_after_the_grace(monkeypatch):
    monkeypatch.setattr(run, "INTERRUPT_EVERY_S", 0.3)
    monkeypatch.setattr(run, "INTERRUPT_GRACE_S", 1.0)
    with _child_losing(1000) as child:
        sent = []
        send = child.send_signal
        monkeypatch.setattr(child, "send_signal", lambda number: sent.append(number) or send(number))
        started = time.monotonic()
        run.interrupt_child(child)
        assert child.returncode == -signal.SIGKILL and time.monotonic() - started >= 1.0
        *interrupts, last = sent
        assert last == signal.SIGKILL and set(interrupts) == {signal.SIGINT}
        assert 1 <= len(interrupts) <= 4  # each wait lasts at least its 0.3 s


@pytest.fixture
def ctrl_c_in(ctrl_c_delivered):
    """``ctrl_c_in(seconds)``: a Ctrl-C to this process (KeyboardInterrupt in its main thread) that many seconds
    from now, sent from a timer thread (SIGALRM is pytest-timeout's)."""
    timers = []

    def arm(seconds: float) -> None:
        timers.append(threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT)))
        timers[-1].start()

    yield arm
    for timer in timers:
        timer.cancel()
        timer.join()


def test_another_ctrl_c_while_a_child_is_interrupted_kills_it_at_once(monkeypatch, ctrl_c_in):
    monkeypatch.setattr(run, "INTERRUPT_EVERY_S", 10.0)
    with _child_losing(1000) as child:
        started = time.monotonic()
        ctrl_c_in(0.5)
        with pytest.raises(KeyboardInterrupt):
            run.interrupt_child(child)
        assert child.returncode == -signal.SIGKILL and time.monotonic() - started < 5


class _ArmsOnReady:
    """Stands in for the batch's progress reader: a Ctrl-C here once the child says it is ready."""

    def __init__(self, arm) -> None:
        self.arm = arm

    def feed(self, segment: str) -> None:
        if segment.strip() == "ready":
            self.arm(0.05)


def test_an_interrupted_childs_last_words_reach_its_log_redacted(tmp_path, monkeypatch, ctrl_c_in):
    monkeypatch.setattr(run, "INTERRUPT_EVERY_S", 0.5)
    log = tmp_path / "eval.log"
    with pytest.raises(KeyboardInterrupt):
        run.run_child(_losing(1), dict(os.environ), log, ["words"], progress=_ArmsOnReady(ctrl_c_in))
    written = log.read_text()
    assert "\nready\n1\n2\nlast [REDACTED]\n" in written  # the last three written after the runner's copy was cut
    assert "words" not in written  # a secret in what the child still writes is redacted as in the rest of its log


@pytest.mark.parametrize("ignored", [False, True])
def test_a_closed_terminals_sighup_stops_the_batch_as_ctrl_c_unless_ignored_at_start(monkeypatch, ignored):
    """SIGHUP (a closed terminal) ended the runner at once, its evaluation by its parent-death signal wherever it was
    (a response cache's merge lock held, no status written); now it stops the batch as Ctrl-C does (status 130).
    Under ``nohup`` (SIGHUP ignored) the batch goes on, and the handlers are as before after it."""
    from abductive_tasks.runs import batch

    def hung_up(spec, only):
        os.kill(os.getpid(), signal.SIGHUP)  # its handler runs before this returns
        return 0

    monkeypatch.setattr(batch, "run_batch", hung_up)
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN if ignored else signal.SIG_DFL)
    try:
        before = {number: signal.getsignal(number) for number in INTERRUPTS}
        spec = SimpleNamespace(judge=None, models=())  # nothing served
        assert batch.run_interruptible(spec, None) == (0 if ignored else 130)
        assert {number: signal.getsignal(number) for number in INTERRUPTS} == before
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_a_signal_ignored_under_nohup_stays_ignored_in_the_child(tmp_path):
    """``nohup abductive-eval batch``: the batch ignores SIGHUP, and so must its evaluation, which shares its process
    group and gets the closed terminal's SIGHUP too; holding SIGHUP while forking put a handler in its place, which the
    child's exec turned into the default action (a blind review: the evaluation died where the batch went on)."""
    from abductive_tasks.runs.vllm import child_setup

    script = "import signal; print(signal.getsignal(signal.SIGHUP) is signal.SIG_IGN)"
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with interrupts_held():
            child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, preexec_fn=child_setup())
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert child.communicate(timeout=60)[0].strip() == b"True"


def test_a_ctrl_c_while_lmms_eval_writes_lands_once_the_runs_files_are_written(tmp_path, monkeypatch, ctrl_c_delivered):
    """A Ctrl-C landing while lmms-eval wrote a run's results left them cut short, or without their samples: it now
    lands once the run's files are written (as KeyboardInterrupt), and Ctrl-C is as before after it."""
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    from abductive_tasks import compat

    results, samples = tmp_path / "results.json", tmp_path / "samples.jsonl"

    def save(self, **kwargs) -> None:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C as lmms-eval starts writing: its handler runs at once
        results.write_text('{"results": {}}')

    def evaluate_single(args):
        EvaluationTracker.save_results_aggregated(None, results={})
        samples.write_text('{"doc_id": 0}\n')
        return {"results": {}}, None

    monkeypatch.setattr(EvaluationTracker, "save_results_aggregated", save)
    lmms_main = SimpleNamespace(cli_evaluate_single=evaluate_single)
    with pytest.raises(KeyboardInterrupt), compat._results_written_whole(lmms_main):
        lmms_main.cli_evaluate_single(None)
    assert results.read_text() == '{"results": {}}' and samples.read_text() == '{"doc_id": 0}\n'
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert lmms_main.cli_evaluate_single is evaluate_single and EvaluationTracker.save_results_aggregated is save


def _at_a_terminal() -> None:
    """A child's Ctrl-C as at a terminal, whatever this suite was started with (a background job or ``nohup`` leaves
    SIGINT or SIGHUP ignored, and an ignored signal stays ignored across exec)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.mark.e2e
@pytest.mark.parametrize("when", ["starting", "stage"])
def test_ctrl_c_on_a_single_run_is_one_line_and_status_130(tmp_path, when):
    """Ctrl-C to ``abductive-eval``'s process group (a terminal's) while it imports torch or while a chain stage runs
    (its child gets it too) ended it by the signal (status -2) with one or two KeyboardInterrupt tracebacks; now one
    line, status 130, and no results of the run it did not finish. A late signal: the stage runs for seconds."""
    from helpers.runs import OFFLINE

    output = tmp_path / "out"
    command = [str(Path(sys.executable).with_name("abductive-eval")), "--model", "dumb_pixel", "--tasks",
               "nleye_triplet,mucr_exp", "--output_path", str(output)]  # fmt: skip
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample"}
    child = subprocess.Popen(
        command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True, preexec_fn=_at_a_terminal,
    )  # fmt: skip
    try:
        said = ""
        if when == "starting":
            time.sleep(1.0)
        else:
            while "[chain] stage 1" not in said and child.poll() is None:
                said += child.stdout.readline()
            time.sleep(1.0)
        os.killpg(child.pid, signal.SIGINT)
        said += child.communicate(timeout=120)[0]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 130, said[-3000:]
    assert "Traceback" not in said and "KeyboardInterrupt" not in said
    interrupted = [line for line in said.splitlines() if "interrupted" in line]
    assert interrupted == [
        "abductive-eval: interrupted; a run it did not finish wrote no results. Rerun the same command to run it again."
    ]
    own = [path for path in output.rglob("*_results.json") if "stages" not in path.relative_to(output).parts]
    assert own == []
    for path in output.rglob("*_results.json"):  # a stage that finished: its results whole
        json.loads(path.read_text())


@pytest.mark.parametrize("terminal", [False, True])
def test_the_interrupt_line_ends_its_line_and_starts_one_at_a_terminal(terminal, monkeypatch):
    """At a terminal the ^C is echoed after a progress bar's text (no newline): the line stood glued to it; the line
    ends with its newline in both cases."""
    import io

    from abductive_tasks.cli import interrupts

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return terminal

    stream = Stream()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.delenv("ABDUCTIVE_RUN", raising=False)
    assert interrupts.interrupted() == 130
    assert stream.getvalue() == ("\n" if terminal else "") + f"abductive-eval: {interrupts.INTERRUPTED}\n"


def test_a_ctrl_c_python_could_not_raise_is_raised_again_in_the_main_thread(capsys):
    """ci-run59: Ctrl-C reached a chain stage's child in an import lock's weakref callback, where Python prints
    "Exception ignored in: ..." with a KeyboardInterrupt traceback and drops it. An object whose ``__del__`` is
    interrupted is the same case: the interrupt now ends the command from the main thread, and nothing is printed."""
    from abductive_tasks.cli.interrupts import interrupts_raised_again

    class Interrupted:
        def __del__(self) -> None:
            raise KeyboardInterrupt

    before = sys.unraisablehook
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)  # a command's (an xdist worker ignores it)
    try:
        with pytest.raises(KeyboardInterrupt), interrupts_raised_again():
            Interrupted()  # garbage at once: its __del__'s KeyboardInterrupt goes to sys.unraisablehook
            for _ in range(100):
                time.sleep(0.01)  # the main thread's next instructions: raised here
    finally:
        signal.signal(signal.SIGINT, handler)
    assert sys.unraisablehook is before and "Exception ignored" not in capsys.readouterr().err
