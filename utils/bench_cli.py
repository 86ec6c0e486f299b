"""Time the ``abductive-eval`` commands a new user tries first, and its refusals of common mistakes (the bar: each
under 2 s).

    python utils/bench_cli.py [--repeats 5]

Runs each command as a fresh process (the installed console script next to this Python, ``ABDUCTIVE_DATA=sample``,
offline) and prints the median and the slowest wall time and the median CPU time (user + system, which a busy
machine does not stretch), with the exit status and the number of lines it wrote to stderr. The ``--device cuda:0``
refusal is one only on a machine without a GPU driver. The bad-data case runs on a copy of the sample whose NL-Eye
annotations lack their columns. Not a test: timings depend on the machine; the tests check the cause instead
(``--help``, ``tasks`` and every refusal here import neither lmms-eval nor torch).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TASK = ["--tasks", "nleye_triplet"]
COMMANDS = (
    ["--help"],
    ["tasks"],
    ["--tasks-path"],
    ["--model", "dumb_pixel", "--tasks", "nleye_triplt"],
    ["--model", "llava_hff", "--tasks", "nleye_triplet"],
    ["--model", "llava_hf", "--model_args", "pretrained=llava-hf/llava-1.5-7b-hf", "--device", "cuda:0", *TASK],
    ["--model", "dumb_pixel", "--model_args", "sed=1", *TASK],
    ["--model", "dumb_pixel", "--model_args", "seed", *TASK],
    ["--model", "dumb_pixel", "--model_args", "batch_size=2", *TASK],
    ["--model", "llava", "--model_args", "pretrained=/no/such/folder", *TASK],
    ["--model", "dumb_pixel", "--limit", "abc", *TASK],
    ["BAD_DATA", "--model", "dumb_pixel", *TASK],
)
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ABDUCTIVE_DATA": "sample"}


def bad_data(folder: Path) -> Path:
    """A copy of the embedded sample whose NL-Eye annotation file has lost its columns."""
    from abductive_tasks.inputs.loading import SAMPLE_ROOT

    root = folder / "data"
    shutil.copytree(SAMPLE_ROOT, root)
    next((root / "nleye").glob("*.csv")).write_text("x\n1\n", encoding="utf-8")
    return root


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, int, int]:
    """Wall and CPU seconds (user + system: what the load of a shared machine does not stretch), exit status and
    stderr lines of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.returncode, len(done.stderr.splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    executable = str(Path(sys.executable).with_name("abductive-eval"))
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        broken = str(bad_data(Path(folder)))
        for arguments in COMMANDS:
            env = {**os.environ, **OFFLINE}
            if arguments[0] == "BAD_DATA":
                arguments, env["ABDUCTIVE_DATA"] = arguments[1:], broken
            runs = [timed([executable, *arguments], env) for _ in range(args.repeats)]
            times = [seconds for seconds, _, _, _ in runs]
            cpu = statistics.median(seconds for _, seconds, _, _ in runs)
            _, _, code, lines = runs[-1]
            shown = " ".join(arguments) + (" (bad data)" if env["ABDUCTIVE_DATA"] == broken else "")
            print(
                f"{shown:<110} median {statistics.median(times):.2f} s (CPU {cpu:.2f} s), slowest {max(times):.2f} s "
                f"({args.repeats} runs), exit {code}, {lines} stderr lines"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
