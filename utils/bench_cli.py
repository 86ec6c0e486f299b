"""Time the ``abductive-eval`` commands a new user tries first (the bar: ``--help`` under 2 s).

    python utils/bench_cli.py [--repeats 5]

Runs each command as a fresh process (the installed console script next to this Python) and
prints the median and the slowest wall time. Not a test: timings depend on the machine; the
tests check the cause instead (``--help`` and ``tasks`` import neither lmms-eval nor torch).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = (
    ["--help"],
    ["tasks"],
    ["--tasks-path"],
    ["--model", "dumb_pixel", "--tasks", "nleye_triplt"],
    ["--model", "llava_hff", "--tasks", "nleye_triplet"],
)


def wall_time(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    executable = str(Path(sys.executable).with_name("abductive-eval"))
    for arguments in COMMANDS:
        times = [wall_time([executable, *arguments]) for _ in range(args.repeats)]
        print(
            f"abductive-eval {' '.join(arguments):<45} median {statistics.median(times):.2f} s, slowest "
            f"{max(times):.2f} s ({args.repeats} runs)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
