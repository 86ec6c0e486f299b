#!/usr/bin/env python
"""What checking an extracted image on a cache hit costs: :func:`abductive_tasks.inputs.images.intact_entry` (open
without following a link, read, SHA-256, compare with the name) per file, by file size.

    python utils/bench_image_check.py
    python utils/bench_image_check.py --sizes 50000 1000000 --repeats 2000

Writes one content-addressed file per size (random bytes: the check reads bytes, it decodes nothing) into a
temporary image cache, then times ``--repeats`` checks of each, after one untimed check (the file is in the page
cache, as on a warm load). Prints the median and the 95th percentile per check, and the throughput. Not a test: the
figures depend on the machine and its load (printed first).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import tempfile
import time
from pathlib import Path

from abductive_tasks.inputs.images import intact_entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 5_000_000])
    parser.add_argument("--repeats", type=int, default=1000)
    args = parser.parse_args(argv)
    print(f"# load average {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-image-check-") as folder:
        for size in args.sizes:
            data = os.urandom(size)
            path = Path(folder) / f"{hashlib.sha256(data).hexdigest()}.png"
            path.write_bytes(data)
            assert intact_entry(path)
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                intact_entry(path)
                times.append(time.perf_counter() - start)
            median, p95 = statistics.median(times), statistics.quantiles(times, n=20)[-1]
            print(
                f"{size / 1e3:>8.0f} kB: median {median * 1e6:8.1f} us, p95 {p95 * 1e6:8.1f} us per hit "
                f"({size / median / 1e9:.2f} GB/s)",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
