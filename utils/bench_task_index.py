"""Time lmms-eval's task index, which every evaluation builds: all of lmms-eval's built-in task YAML plus ours, against
our task folder alone (what ``abductive-eval`` builds when ``--tasks`` names only our tasks and groups), and one
whole ``abductive-eval`` run of the sample both ways.

    python utils/bench_task_index.py [--repeats 3]

Each figure is a fresh process (offline, ``ABDUCTIVE_DATA=sample``); printed: the median wall and CPU seconds
(user + system, which a busy machine does not stretch) and the number of tasks indexed. The whole runs are the
``--model dumb_pixel --tasks nleye_pairs`` evaluation, with ``--include_path`` set to an empty folder for the
built-in index (any include path makes abductive-eval index everything, as lmms-eval does). Not a test: timings
depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ABDUCTIVE_DATA": "sample"}
INDEX = (
    "import json, time\n"
    "from abductive_tasks import compat\n"
    "compat.install()\n"
    "from lmms_eval.tasks import TaskManager\n"
    "with compat.indexing_builtin({builtin}):\n"
    "    start = time.perf_counter(); index = TaskManager().task_index\n"
    "print(json.dumps({{'seconds': time.perf_counter() - start, 'tasks': len(index)}}))\n"
)


def timed(command: list[str], environment: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one child process, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    environment = {**os.environ, **OFFLINE}
    evaluate = str(Path(sys.executable).with_name("abductive-eval"))
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"# {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, {now}")
    with tempfile.TemporaryDirectory() as scratch:
        empty = Path(scratch) / "empty"
        empty.mkdir()
        for builtin in (True, False):
            command = [sys.executable, "-c", INDEX.format(builtin=builtin)]
            rows = [json.loads(timed(command, environment)[2].splitlines()[-1]) for _ in range(args.repeats)]
            seconds = statistics.median(row["seconds"] for row in rows)
            label = "built-in + ours" if builtin else "ours alone"
            print(f"task index, {label:<16} {seconds:6.2f} s (in process)  {rows[0]['tasks']} tasks")
        for builtin in (True, False):
            extra = ["--include_path", str(empty)] if builtin else []
            runs = [
                timed(
                    [
                        evaluate,
                        "--model",
                        "dumb_pixel",
                        "--tasks",
                        "nleye_pairs",
                        "--output_path",
                        str(Path(scratch) / f"out{n}"),
                        *extra,
                    ],
                    environment,
                )  # fmt: skip
                for n in range(args.repeats)
            ]
            label = "built-in + ours" if builtin else "ours alone"
            wall, cpu = statistics.median(run[0] for run in runs), statistics.median(run[1] for run in runs)
            print(f"abductive-eval run, {label:<16} {wall:6.2f} s wall  {cpu:6.2f} s CPU (median of {args.repeats})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
