"""Time the start of an evaluation with and without the deferred imports (``compat.DEFERRED_IMPORTS``: lmms-eval's
start-up import of Hugging Face ``evaluate``, which pulls in transformers' pipelines and torchvision): importing
lmms-eval's CLI and evaluator, then one whole ``abductive-eval`` run of the sample.

    python utils/bench_startup.py [--repeats 3]

Each figure is a fresh process (offline, ``ABDUCTIVE_DATA=sample``); printed: the median wall and CPU seconds (user +
system, which a busy machine does not stretch). "Without" imports ``evaluate`` first, which leaves nothing to defer;
the whole run is ``--model dumb_pixel --tasks nleye_pairs``. Not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_task_index import OFFLINE, timed  # run as `python utils/bench_startup.py`: utils/ is on the path

IMPORT = (
    "import sys\n"
    "from abductive_tasks import compat\n"
    "{first}\n"
    "import lmms_eval.__main__, lmms_eval.evaluator\n"
    "print('transformers.pipelines' in sys.modules)\n"
)
RUN = "import sys\n{first}\nfrom abductive_tasks.cli import main\nsys.exit(main(sys.argv[1:]))\n"
FIRST = {"without": "import evaluate", "with": "compat.defer_unused_imports()"}
RUN_FIRST = {"without": "import evaluate", "with": ""}  # the run defers by itself


def median_row(label: str, runs: list[tuple[float, float, str]]) -> str:
    wall, cpu = statistics.median(run[0] for run in runs), statistics.median(run[1] for run in runs)
    return f"{label:<44} {wall:6.2f} s wall  {cpu:6.2f} s CPU (median of {len(runs)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    environment = {**os.environ, **OFFLINE}
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"# {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, {now}")
    for how, first in FIRST.items():
        runs = [timed([sys.executable, "-c", IMPORT.format(first=first)], environment) for _ in range(args.repeats)]
        pipelines = runs[0][2].split()[-1] == "True"
        print(median_row(f"import lmms-eval, {how} deferring", runs) + f"  transformers.pipelines: {pipelines}")
    with tempfile.TemporaryDirectory() as scratch:
        for how, first in RUN_FIRST.items():
            runs = [
                timed(
                    [sys.executable, "-c", RUN.format(first=first), "--model", "dumb_pixel", "--tasks", "nleye_pairs"]
                    + ["--output_path", str(Path(scratch) / f"{how}{n}")],
                    environment,
                )
                for n in range(args.repeats)
            ]
            print(median_row(f"abductive-eval run, {how} deferring", runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
