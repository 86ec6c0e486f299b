#!/usr/bin/env python
"""MuCR loading cold and warm: ``mucr.data.load`` on ``bench_overhead``'s MuCR data, per fresh process.

    python utils/bench_mucr_load.py --repeats 3
    python utils/bench_mucr_load.py --trailing-bytes 2   # cells with bytes after the JPEG end marker

Writes the data once (400 pairs, embedded 512x512 JPEG cells, as ``bench_overhead.make_mucr``), then, ``--repeats``
times: one process with an emptied ``ABDUCTIVE_CACHE`` (cold: every image written to its content-addressed file,
the item cache written) and one with the cache that run left (warm: the item cache read, each image checked).
Each process prints the wall and CPU seconds of one ``load.__wrapped__(root)`` call (no ``functools.cache``) and
how much its RSS grew. ``--trailing-bytes N`` appends N zero bytes to every image cell (as some exporters leave them).
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
import pyarrow as pa
import pyarrow.parquet as pq
from synthetic_data import make_mucr  # the sibling module (this script's folder is on sys.path)

ONE_LOAD = """
import sys, time
from pathlib import Path
import psutil
from abductive_tasks.mucr import data
rss, wall, cpu = psutil.Process().memory_info().rss, time.perf_counter(), time.process_time()
loaded = data.load.__wrapped__(Path(sys.argv[1]))
grown = (psutil.Process().memory_info().rss - rss) / 2**20
print(f"{time.perf_counter() - wall:.3f} s wall, {time.process_time() - cpu:.3f} s CPU, {len(loaded.items)} items, "
      f"RSS +{grown:.0f} MiB")
"""


def pad(path: Path, trailer: bytes) -> None:
    """Append ``trailer`` to the bytes of every image cell of the parquet file at ``path``."""
    table = pq.read_table(path)
    for index, name in enumerate(table.column_names):
        if name.startswith("image_"):
            cells = [{**cell, "bytes": cell["bytes"] + trailer} for cell in table.column(name).to_pylist()]
            table = table.set_column(index, table.schema.field(index), pa.array(cells, table.schema.field(index).type))
    pq.write_table(table, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trailing-bytes", type=int, default=0, help="zero bytes appended to every image cell")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-mucr-load-"))
    try:
        make_mucr(work / "data", np.random.default_rng(24))
        if args.trailing_bytes:
            pad(next((work / "data" / "mucr").rglob("*.parquet")), b"\0" * args.trailing_bytes)
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
