"""Run a leaderboard spec: ``python utils/run_batch.py SPEC [--model NAME] [--print-commands]`` (= ``abductive-eval batch``)."""

import sys

from abductive_tasks.batch import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
