"""Ctrl-C in ``abductive-eval``: one line and exit status 130 (:func:`interrupted`), also where Python could not raise
it (:func:`interrupts_raised_again`)."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

REDELIVERY_S = 0.05  # after an unraisable Ctrl-C, when it is sent again to the main thread
INTERRUPTED = "interrupted; a run it did not finish wrote no results. Rerun the same command to run it again."


def interrupted() -> int:
    """After Ctrl-C: one line (none from a stage or level a chain or batch runs: the command that started it says
    it), exit status 130, on a line of its own at a terminal (its ``^C`` lands on a progress bar's line). lmms-eval
    writes a run's files whole before it takes a Ctrl-C (:func:`~abductive_tasks.compat.evaluate_cli`)."""
    from abductive_tasks import settings

    if not settings.this_run():
        print(("\n" if sys.stderr.isatty() else "") + f"abductive-eval: {INTERRUPTED}", file=sys.stderr, flush=True)
    return 130


@contextlib.contextmanager
def interrupts_raised_again() -> Iterator[None]:
    """While the command runs, a Ctrl-C that lands in a callback Python cannot raise from is raised again in the main
    thread, where the command ends in one line: in an import lock's weakref callback (Python 3.11's
    ``_ModuleLock.__init__.<locals>.cb``) it was printed as "Exception ignored in: ...", a ``KeyboardInterrupt``
    traceback, and lost (ci-run59: a chain stage's child interrupted while it imported). Anything else unraisable is
    printed as before."""
    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            # sent again once the hook returned (raised within it, it would be "ignored" again), as a signal: it wakes
            # the main thread from a blocking call too
            again = threading.Timer(REDELIVERY_S, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
            again.daemon = True
            again.start()
        else:
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous
