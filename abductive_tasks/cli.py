"""``abductive-eval``: lmms-eval's ``eval`` with this package's tasks added, failing loudly.

* ``abductive-eval --tasks-path`` prints the folder of our task YAML, for
  ``lmms-eval --include_path <folder>``.
* ``abductive-eval batch SPEC [--model NAME] [--print-commands]`` runs a leaderboard spec
  (many models, resumable; ``abductive_tasks/batch.py``).
* ``abductive-eval serve MODEL --tasks ... [--tensor-parallel-size N]`` evaluates one model
  through ``vllm serve`` and lmms-eval's ``openai`` backend, stopping the server at the end.
* ``abductive-eval leaderboard RESULTS_DIR`` writes CSV, Markdown, HTML and PNG plots.
* ``abductive-eval export-sherlock RUN_DIR [--out DIR] [--split test|val]`` writes the Sherlock
  leaderboard submission from a run's logged scores.
* ``abductive-eval <lmms-eval eval arguments>`` runs the evaluation with our tasks on the
  include path (beside any ``--include_path`` given) and exits 1 when lmms-eval reports a
  failure, which lmms-eval 0.7.3 itself swallows (its exit status is 0). After lmms-eval's
  own table it prints a compact one (breakdowns one row per label).
"""

from __future__ import annotations

import sys
from importlib import import_module

from abductive_tasks.report import summary_table

# Subcommands: first argument -> (module, function taking the remaining arguments).
SUBCOMMANDS = {
    "batch": ("abductive_tasks.batch", "main"),
    "serve": ("abductive_tasks.batch", "serve_main"),
    "leaderboard": ("abductive_tasks.leaderboard", "main"),
    "export-sherlock": ("abductive_tasks.sherlock.export", "main"),
}


def run_eval(argv: list[str]) -> int:
    """Run lmms-eval's evaluation with ``argv`` (our tasks are registered by :mod:`abductive_tasks.compat`);
    return 0 on success, 1 on any failure."""
    from abductive_tasks import compat

    finished, failures, code = compat.evaluate_cli(argv)
    if failures:
        print(f"abductive-eval: evaluation failed: {failures[0]!r}", file=sys.stderr)
        return 1
    for results in finished:
        print(summary_table(results["results"]))
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--tasks-path"]:
        from abductive_tasks.compat import tasks_path

        print(tasks_path())
        return 0
    if argv and argv[0] in SUBCOMMANDS:
        module, function = SUBCOMMANDS[argv[0]]
        return getattr(import_module(module), function)(argv[1:])
    if not argv or argv in (["-h"], ["--help"]):
        print(__doc__.strip())
        if not argv:
            return 2
    return run_eval(argv)


if __name__ == "__main__":
    sys.exit(main())
