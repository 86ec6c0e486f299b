#!/usr/bin/env python
"""Loading a factored Sherlock retrieval chunk, timed on one chunk's files, each figure the median of ``--repeats``
CPU timings (user + system, this process): the whole factoring of the chunk as a cold cache runs it
(``factored_retrieval._factor_files``: read, decode, number, answer key, finish), and its steps: the instance list
read and decoded a block at a time and numbered (``_add_piece``), the answer key parsed (``_read``),
``_Factoring.finish`` (the chunk's test ids sorted into submission order, the gold grid checked) and the
factored-chunk cache key (``factored_retrieval._cache_file``: it decides whether the chunk is read from the cache).

Run it with two installs of the package on the same files, alternately, to compare versions side by side::

    for venv in before after before after; do $venv/bin/python utils/bench_sherlock_loading.py \
        DATA/sherlock/val_retrieval/val_retrieval_0_instances.json; done

The chunk files come from ``utils/bench_sherlock_scale.py --workdir DATA``. The script imports the installed package.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
from collections.abc import Callable
from pathlib import Path

from abductive_tasks.sherlock import factored_retrieval


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far."""
    times = os.times()
    return times.user + times.system


def cpu_median(step: Callable[[], object], repeats: int) -> float:
    """The median CPU seconds of ``repeats`` calls of ``step`` (what it returns freed inside the timing, with the
    cyclic GC paused as the loader pauses it)."""
    times = []
    for _ in range(repeats):
        gc.collect()
        start = cpu_seconds()
        step()
        times.append(cpu_seconds() - start)
    return round(statistics.median(times), 3)


def factor_pieces(instances: Path) -> factored_retrieval._Factoring:
    """The instance list read and decoded a block at a time and numbered, as ``_factor_files`` does."""
    factoring = factored_retrieval._Factoring(0, str(instances))
    gc.disable()
    try:
        for piece in factored_retrieval.instance_pieces(instances):
            factored_retrieval._add_piece(factoring, piece)
    finally:
        gc.enable()
    return factoring


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("instances", type=Path, help="a val_retrieval_<i>_instances.json (its answer key beside it)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    answer_key_path = args.instances.with_name(args.instances.name.replace("_instances", "_answer_key"))
    factoring = factor_pieces(args.instances)
    answer_key = factored_retrieval._read(answer_key_path)
    print(
        json.dumps(
            {
                "package": str(Path(factored_retrieval.__file__).parents[2]),
                "instances": len(factoring.test_ids),
                "factor_files_cpu_s": cpu_median(
                    lambda: factored_retrieval._factor_files(args.instances, answer_key_path, 0), args.repeats
                ),
                "pieces_cpu_s": cpu_median(lambda: factor_pieces(args.instances), args.repeats),
                "answer_key_cpu_s": cpu_median(lambda: factored_retrieval._read(answer_key_path), args.repeats),
                "finish_cpu_s": cpu_median(lambda: factoring.finish(answer_key), args.repeats),
                "cache_key_cpu_s": cpu_median(
                    lambda: factored_retrieval._cache_file(args.instances, answer_key_path), args.repeats
                ),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
