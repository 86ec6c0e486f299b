"""Write the Sherlock leaderboard submission from a run's logged scores.

    abductive-eval --model clip_scorer --model_args pretrained=... --tasks sherlock_test --log_samples --output_path runs/test
    python utils/export_sherlock_submission.py runs/test --out submission/
    # -> submission/test_set_predictions.zip (test_set_predictions/{comparison,localization,retrieval_<i>}.npy)

Run one route per task file (e.g. not sherlock_comparison_test and sherlock_comparison_rating_test in
the same run), or pick tasks with --tasks. --split val writes validation_set_predictions.zip, the
files the official scorers read with the val *_instance_ids.json. Logic: abductive_tasks/sherlock/export.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from abductive_tasks.data import DataError
from abductive_tasks.sherlock.export import write_submission


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path, help="an abductive-eval --output_path run with --log_samples")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for the .npy files and the zip (default: .)")
    parser.add_argument("--split", choices=("test", "val"), default="test", help="which split's scores to export (default: test)")
    parser.add_argument("--tasks", default="", help="comma-separated Sherlock task names to export (default: all logged)")
    args = parser.parse_args()
    try:
        archive = write_submission(args.run_dir, args.out, args.split, {t for t in args.tasks.split(",") if t} or None)
    except DataError as error:
        print(f"export_sherlock_submission: {error}", file=sys.stderr)
        return 1
    print(archive)
    return 0


if __name__ == "__main__":
    sys.exit(main())
