#!/usr/bin/env python
"""Two steps of loading a factored Sherlock retrieval chunk, timed on one chunk's files: the factored-chunk cache key
(``grid._cache_file``: it decides whether the chunk is read from the cache) and ``_Factoring.finish`` (the chunk's
test ids sorted into submission order, the gold grid checked), each the median of ``--repeats`` CPU timings.

Run it with two installs of the package on the same files, alternately, to compare versions side by side::

    for venv in before after before after; do $venv/bin/python utils/bench_sherlock_loading.py \
        DATA/sherlock/val_retrieval/val_retrieval_0_instances.json; done

The chunk files come from ``utils/bench_sherlock_scale.py --workdir DATA``. The script imports the installed package.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from abductive_tasks.sherlock import grid


def cpu_median(step: Callable[[], object], repeats: int) -> float:
    """The median CPU seconds of ``repeats`` calls of ``step``."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        step()
        times.append(time.process_time() - start)
    return round(statistics.median(times), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("instances", type=Path, help="a val_retrieval_<i>_instances.json (its answer key beside it)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    answer_key_path = args.instances.with_name(args.instances.name.replace("_instances", "_answer_key"))
    factoring = grid._Factoring(0, str(args.instances))
    for piece in grid.instance_pieces(args.instances):
        grid._add_piece(factoring, piece)
    answer_key = grid._read(answer_key_path)
    print(
        json.dumps(
            {
                "package": str(Path(grid.__file__).parents[2]),
                "instances": len(factoring.test_ids),
                "cache_key_cpu_s": cpu_median(lambda: grid._cache_file(args.instances, answer_key_path), args.repeats),
                "finish_cpu_s": cpu_median(lambda: factoring.finish(answer_key), args.repeats),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
