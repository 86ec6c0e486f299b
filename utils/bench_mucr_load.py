#!/usr/bin/env python
"""MuCR loading cold and warm (issue 24): ``mucr.data.load`` on ``bench_overhead``'s MuCR data, per fresh process.

    python utils/bench_mucr_load.py --repeats 3

Writes the data once (400 pairs, embedded 512x512 JPEG cells, as ``bench_overhead.make_mucr``), then, ``--repeats``
times: one process with an emptied ``ABDUCTIVE_CACHE`` (cold: every image written to its content-addressed file,
the item cache written) and one with the cache that run left (warm: the item cache read, each image checked).
Each process prints the wall and CPU seconds of one ``load.__wrapped__(root)`` call (no ``functools.cache``).
Not a test: the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from bench_overhead import make_mucr  # the sibling script (this script's folder is on sys.path)

ONE_LOAD = """
import sys, time
from pathlib import Path
from abductive_tasks.mucr import data
wall, cpu = time.perf_counter(), time.process_time()
loaded = data.load.__wrapped__(Path(sys.argv[1]))
print(f"{time.perf_counter() - wall:.3f} s wall, {time.process_time() - cpu:.3f} s CPU, {len(loaded.items)} items")
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-mucr-load-"))
    try:
        make_mucr(work / "data", np.random.default_rng(24))
        cache = work / "cache"
        environment = {**os.environ, "ABDUCTIVE_CACHE": str(cache)}
        print(f"# load average {os.getloadavg()[0]:.2f}", flush=True)
        for repeat in range(args.repeats):
            shutil.rmtree(cache, ignore_errors=True)
            for state in ("cold", "warm"):
                run = subprocess.run(
                    [sys.executable, "-c", ONE_LOAD, str(work / "data" / "mucr")],
                    env=environment,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                print(f"{repeat} {state}: {run.stdout.strip()}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
