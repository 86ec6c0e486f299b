"""``abductive-eval``: lmms-eval's ``eval`` with this package's tasks added, failing loudly.

* ``abductive-eval --tasks-path`` prints the folder of our task YAML, for
  ``lmms-eval --include_path <folder>``.
* ``abductive-eval batch SPEC [--model NAME] [--print-commands]`` runs a leaderboard spec
  (many models, resumable; ``abductive_tasks/batch.py``).
* ``abductive-eval serve MODEL --tasks ... [--tensor-parallel-size N]`` evaluates one model
  through ``vllm serve`` and lmms-eval's ``openai`` backend, stopping the server at the end.
* ``abductive-eval leaderboard RESULTS_DIR`` writes CSV, Markdown, HTML and PNG plots.
* ``abductive-eval <lmms-eval eval arguments>`` runs the evaluation with our tasks on the
  include path (beside any ``--include_path`` given) and exits 1 when lmms-eval reports a
  failure, which lmms-eval 0.7.3 itself swallows (its exit status is 0). After lmms-eval's
  own table it prints a compact one (breakdowns one row per label).
"""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.resources import files
from pathlib import Path

from abductive_tasks.report import summary_table

# Subcommands: first argument -> (module, function taking the remaining arguments).
SUBCOMMANDS = {
    "batch": ("abductive_tasks.batch", "main"),
    "serve": ("abductive_tasks.batch", "serve_main"),
    "leaderboard": ("abductive_tasks.leaderboard", "main"),
}


def tasks_path() -> Path:
    """The installed folder holding our task YAML (``abductive_tasks.tasks``)."""
    return Path(str(files("abductive_tasks.tasks")))


def run_eval(argv: list[str]) -> int:
    """Run lmms-eval's evaluation with ``argv``; return 0 on success, 1 on any failure."""
    import lmms_eval.__main__ as lmms_main

    sys.argv = ["abductive-eval", *argv]
    _parser, args = lmms_main.parse_eval_args()
    args.include_path = [str(tasks_path()), *([args.include_path] if args.include_path else [])]

    failures: list[Exception] = []
    finished: list[dict] = []
    evaluate_single = lmms_main.cli_evaluate_single

    def recording_evaluate_single(*call_args, **call_kwargs):
        try:
            outcome = evaluate_single(*call_args, **call_kwargs)
        except Exception as error:
            failures.append(error)
            raise
        if outcome and outcome[0]:  # (results, samples); None on non-main ranks
            finished.append(outcome[0])
        return outcome

    lmms_main.cli_evaluate_single = recording_evaluate_single
    try:
        lmms_main.cli_evaluate(args)
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 1
    finally:
        lmms_main.cli_evaluate_single = evaluate_single
    if failures:
        print(f"abductive-eval: evaluation failed: {failures[0]!r}", file=sys.stderr)
        return 1
    for results in finished:
        print(summary_table(results["results"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--tasks-path"]:
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
