"""Evaluate one model through ``vllm serve``: ``python utils/serve_vllm.py MODEL --tasks T ...`` (= ``abductive-eval serve``)."""

import sys

from abductive_tasks.batch import serve_main

if __name__ == "__main__":
    sys.exit(serve_main(sys.argv[1:]))
