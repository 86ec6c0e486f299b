"""Generate the embedded sample data (``abductive_tasks/sample_data``) deterministically.

Each benchmark's sample mirrors its official on-disk layout and columns, with small images
drawn by Pillow. Run ``python utils/make_sample_data.py`` and commit the result; the output
is byte-for-byte reproducible.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from abductive_tasks.dve.sample import make_dve
from abductive_tasks.mucr.sample import make_mucr
from abductive_tasks.nleye.sample import make_nleye
from abductive_tasks.sherlock.sample import make_sherlock

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "abductive_tasks" / "sample_data"

BENCHMARKS = {"nleye": make_nleye, "dve": make_dve, "mucr": make_mucr, "sherlock": make_sherlock}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="sample_data folder to (re)write")
    parser.add_argument("benchmarks", nargs="*", default=sorted(BENCHMARKS), help="benchmarks to generate")
    args = parser.parse_args()
    for name in args.benchmarks:
        target = args.out / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        BENCHMARKS[name](target)
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
