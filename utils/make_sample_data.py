"""Generate the embedded sample data (``abductive_tasks/sample_data``) deterministically.

Each benchmark's sample mirrors its official on-disk layout and columns, with small images
drawn by Pillow (the generators are ``utils/sample_generators/``). Run ``python utils/make_sample_data.py``
and commit the result; the output is byte-for-byte reproducible (``tests/test_sample_data.py`` checks it).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from sample_generators import GENERATORS  # the sibling package (this script's folder is on sys.path)

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "abductive_tasks" / "sample_data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="sample_data folder to (re)write")
    parser.add_argument("benchmarks", nargs="*", default=sorted(GENERATORS), help="benchmarks to generate")
    args = parser.parse_args()
    for name in args.benchmarks:
        target = args.out / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        GENERATORS[name](target)
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
