"""Batch runs from one YAML spec: many models on our tasks, resumable, one lmms-eval run per model.

A spec's journey, top to bottom (:func:`run_batch`):

1. **spec** (:mod:`~abductive_tasks.runs.spec`): read and check the YAML;
2. **plan** (:mod:`~abductive_tasks.runs.plan`, built once as :mod:`~abductive_tasks.runs.model_plan`'s data): per
   model its identity (:mod:`~abductive_tasks.runs.identity`), what earlier runs left
   (:mod:`~abductive_tasks.runs.history`), what is done and what to run, with its command lines (``--print-commands``
   stops here); a chained task's upstream stages join its model's tasks, a level before it
   (:mod:`~abductive_tasks.runs.chain`);
3. **run** (:func:`~abductive_tasks.runs.run.run_model`): one model at a time, its spec's identity for the leaderboard
   (a :class:`~abductive_tasks.runs.identity_record.IdentityRecord`), its response cache made safe
   (:mod:`~abductive_tasks.runs.cache`), its server on the vLLM routes (:mod:`~abductive_tasks.runs.vllm`), an
   ``abductive-eval`` child per level (the plan as each level finds it, :mod:`~abductive_tasks.runs.levels`, then its
   run), and each pending task's outcome;
4. **record** (:mod:`~abductive_tasks.runs.status`): ``batch_status.json`` after each model.

A model that fails is reported and the batch goes on; the exit status is 1 if any model failed or
left failed requests.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from abductive_tasks.inputs.files import open_nofollow
from abductive_tasks.inputs.stages import StageError
from abductive_tasks.redaction import collect_secrets, redact_text, redacted_console
from abductive_tasks.runs.plan import plan, print_commands
from abductive_tasks.runs.progress import say
from abductive_tasks.runs.run import Evaluations, Interrupted, run_model
from abductive_tasks.runs.spec import (
    LOCK_FILE,
    BatchSpec,
    JudgeSpec,
    ModelSpec,
    SpecError,
    check_environment,
    load_spec,
)
from abductive_tasks.runs.status import BatchStatus
from abductive_tasks.runs.task_index import TaskIndex, TaskIndexError
from abductive_tasks.runs.vllm import PRESETS


def run_batch(spec: BatchSpec, only: list[str] | None = None, task_index: TaskIndex | None = None) -> int:
    """Run every model's pending tasks; 0 when every model succeeded, 1 otherwise.
    Ctrl-C stops cleanly (rerun resumes)."""
    task_index = task_index or TaskIndex()
    with contextlib.ExitStack() as stack:
        stack.enter_context(batch_lock(spec.output_dir))
        whole = plan(spec, task_index, only)
        status = BatchStatus(spec.output_dir, spec.secrets)
        for label, why in spec.invalid.items():
            if not only or label in only:
                status.not_run(label, why)
        evaluations = Evaluations({**os.environ, **spec.env}, whole.judge, stack)
        by_name = {model_plan.model.name: model_plan for model_plan in whole.models}
        for number, model_plan in enumerate(whole.models, 1):
            prefix = f"[{number}/{len(whole.models)}] {model_plan.model.name}"
            try:
                status.outcomes[model_plan.model.name] = run_model(model_plan, prefix, by_name, evaluations)
            except Interrupted as interrupted:
                status.outcomes[model_plan.model.name] = interrupted.outcome
                status.write()
                raise
            status.write()
        return status.close()


@contextlib.contextmanager
def batch_lock(output_dir: Path) -> Iterator[None]:
    """Hold ``<output_dir>/.batch.lock`` (``fcntl.flock``) while a batch runs: a second batch on the same folder
    stops at once, naming the first one's process; an output folder that cannot be written is a :class:`SpecError`.
    """
    path = output_dir / LOCK_FILE  # opened without following a link: the pid never lands in another file
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        handle = os.fdopen(open_nofollow(path, os.O_RDWR | os.O_CREAT), "r+")
    except OSError as error:
        raise SpecError(f"output_dir {output_dir}: cannot write there ({error.strerror or error})") from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise SpecError(
                f"output_dir {output_dir}: another batch is running there (pid {holder}); wait for it to end or use "
                "another output_dir"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def user_errors(verbosity: str, run: Callable[[], int], prog: str) -> int:
    """``run()``, a user error (a bad spec, folder or model name) printed as one short message with status 2, a chain
    that cannot run as asked and a file that cannot be written (a full disk) as one with status 1; the traceback only
    with ``--verbosity DEBUG``."""
    try:
        return run()
    except (SpecError, TaskIndexError, StageError) as error:
        if verbosity.upper() == "DEBUG":
            raise
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 1 if isinstance(error, StageError) else 2
    except OSError as error:  # a full disk or a file-size limit under the output folder: what was written stands
        if verbosity.upper() == "DEBUG":
            raise
        where = f" {error.filename}" if error.filename else ""
        print(f"{prog}: error: cannot write{where} ({error.strerror or error}); rerun to resume", file=sys.stderr)
        return 1


def main(argv: list[str]) -> int:
    """``abductive-eval batch SPEC [--model NAME ...] [--print-commands] [--verbosity LEVEL]``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="abductive-eval batch", description="Run a leaderboard spec: every model on every task, resumable."
    )
    parser.add_argument("spec", type=Path)
    parser.add_argument("--model", action="append", dest="only", help="run only this model of the spec (repeatable)")
    parser.add_argument(
        "--print-commands",
        action="store_true",
        help="print what would run (servers, evaluations, variables), then one command per model; start nothing",
    )
    parser.add_argument("--verbosity", default="INFO", help="DEBUG: a user error shows its traceback too")
    args, unknown = parser.parse_known_args(argv)
    limits = [word.partition("=")[2] or next(iter(unknown[index + 1 : index + 2]), "N")
              for index, word in enumerate(unknown) if word.partition("=")[0] == "--limit"]  # fmt: skip
    if limits:
        parser.error(f"--limit is a key of the spec, not an option: add `limit: {limits[-1]}` to {args.spec}")
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")

    def run() -> int:
        try:
            spec = load_spec(args.spec)
        except SpecError as error:  # each message names the spec file (some named the field alone)
            message = str(error)
            named = any(str(path) in message for path in (args.spec, args.spec.resolve()))
            raise SpecError(message if named else f"{args.spec}: {message}") from None
        with redacted_console(spec.secrets):
            if args.print_commands:
                print_commands(spec, plan(spec, TaskIndex(), args.only))
                return _invalid_said(spec, args.only, parser.prog)
            return run_interruptible(spec, args.only)

    return user_errors(args.verbosity, run, parser.prog)


def _invalid_said(spec: BatchSpec, only: list[str] | None, prog: str) -> int:
    """After ``--print-commands``: each bad model entry said again on standard error, where a filter of the ``#``
    lines (one command per model, ``grep -v '^#'``) does not hide it; 1 when there is one, as the batch would exit."""
    invalid = {label: why for label, why in spec.invalid.items() if not only or label in only}
    for label, why in invalid.items():
        print(f"{prog}: {label}: not run: {'; '.join(redact_text(why, spec.secrets).splitlines())}", file=sys.stderr)
    return 1 if invalid else 0


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def run_interruptible(spec: BatchSpec, only: list[str] | None = None) -> int:
    """:func:`run_batch`, with Ctrl-C (SIGINT), a scheduler's SIGTERM and a closed terminal's SIGHUP stopping children
    and servers cleanly (status 130). SIGINT interrupts even where the runner was started with it ignored (a
    background job of a script: ``abductive-eval batch spec.yaml &``), so that ``kill -INT`` stops it as Ctrl-C does;
    a SIGHUP ignored at start (``nohup``) stays ignored. Before SIGHUP was handled, a closed terminal killed the runner
    at once and its evaluation by its parent-death signal, wherever it was (its response cache's merge lock held)."""
    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, _raise_interrupt)}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGHUP) is signal.SIG_DFL:
        previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, _raise_interrupt)
    try:
        return run_batch(spec, only)
    except KeyboardInterrupt:
        stopped = "servers" if serves(spec, only) else "evaluations"
        say(f"interrupted; {stopped} stopped. Rerun the same command to resume.")
        return 130
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def serves(spec: BatchSpec, only: list[str] | None = None) -> bool:
    """Whether the batch starts a server: a served judge, or a model (of ``only``) on the served route."""
    judged = spec.judge is not None and spec.judge.url is None
    return judged or any(model.route == "served" for model in spec.models if not only or model.name in only)


def serve_main(argv: list[str]) -> int:
    """``abductive-eval serve MODEL --tasks T [options] [-- more lmms-eval args]``: one model through ``vllm serve``."""
    import argparse

    extra: list[str] = []
    if "--" in argv:
        argv, extra = argv[: argv.index("--")], argv[argv.index("--") + 1 :]
    parser = argparse.ArgumentParser(
        prog="abductive-eval serve",
        description="Start `vllm serve`, evaluate through lmms-eval's openai backend, stop the server.",
    )
    parser.add_argument("model", help="hub id or local folder, as `vllm serve` takes it")
    parser.add_argument("--tasks", required=True, help="task or group names, comma-separated")
    parser.add_argument("--output_path", type=Path, default=Path("results"))
    parser.add_argument("--name", help="row name (default: the model's last path part)")
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--pipeline-parallel-size", type=int, default=1)
    parser.add_argument("--max-model-len", type=int)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    parser.add_argument("--port", type=int)
    parser.add_argument("--limit", type=_document_limit, help="documents per task (a number of them; -1: every one)")
    parser.add_argument("--backend", default="openai", choices=["openai", "async_openai"])
    parser.add_argument("--vllm-executable", default="vllm")
    parser.add_argument("--health-timeout", type=_positive, default=1800.0, help="seconds to wait for the server")
    parser.add_argument(
        "--judge-model", help="also serve this judge model (wired via API_TYPE, OPENAI_API_URL, MODEL_VERSION)"
    )
    parser.add_argument("--judge-tensor-parallel-size", type=int, default=1)
    parser.add_argument(
        "--preset",
        choices=list(PRESETS),
        help="known-good vLLM settings of a model family (docs/vllm.md, Presets)",
    )
    parser.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="pass --trust-remote-code to vllm serve (models shipping custom code)",
    )
    parser.add_argument(
        "--vllm-arg",
        action="append",
        type=_vllm_arg,
        default=[],
        metavar="KEY=VALUE",
        help="one more `vllm serve` setting, as a spec's vllm_args entry (repeatable; VALUE read as YAML: "
        "enforce_eager=true, max_num_seqs=4, limit_mm_per_prompt={image: 2})",
    )
    parser.add_argument(
        "--print-command",
        action="store_true",
        help="print the server and evaluation command lines with their variables; start nothing",
    )
    parser.add_argument("--verbosity", default="INFO", help="DEBUG: a user error shows its traceback too")
    args = parser.parse_args(argv)
    return user_errors(args.verbosity, lambda: _serve(args, extra), parser.prog)


def _vllm_arg(text: str) -> tuple[str, object]:
    """An argparse type: ``KEY=VALUE`` with the value read as YAML, as a spec's ``vllm_args`` entry is."""
    import argparse

    import yaml

    key, equals, value = text.partition("=")
    if not equals or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", key):
        raise argparse.ArgumentTypeError(f"KEY=VALUE, not {text!r}")
    try:
        return key.replace("-", "_"), yaml.safe_load(value)
    except yaml.YAMLError as error:
        raise argparse.ArgumentTypeError(f"{key}: the value is not YAML ({error.problem})") from None


def _positive(text: str) -> float:
    """An argparse type: a number above 0."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"a number above 0, not {text!r}")
    return value


def _document_limit(text: str) -> float:
    """An argparse type: a ``--limit`` lmms-eval 0.7.3 runs as asked
    (:func:`~abductive_tasks.lmms_source.limit_problem`)."""
    import argparse

    from abductive_tasks.lmms_source import limit_problem

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of documents, not {text!r}") from None
    if why := limit_problem(value):
        raise argparse.ArgumentTypeError(why)
    return value


def _serve(args, extra: list[str]) -> int:
    """``serve_main`` after parsing: the one-model spec (checked), then its run."""
    settings = dict(
        model=args.model,
        tensor_parallel_size=args.tensor_parallel_size,
        pipeline_parallel_size=args.pipeline_parallel_size,
        max_model_len=args.max_model_len,
        gpu_memory_utilization=args.gpu_memory_utilization,
        preset=args.preset,
        vllm_args={**({"trust_remote_code": True} if args.trust_remote_code else {}), **dict(args.vllm_arg)} or None,
    )
    settings = {
        key: value for key, value in settings.items() if value is not None
    }  # unset: the preset's value, or vLLM's default
    name = args.name or re.sub(r"[^A-Za-z0-9._-]", "-", args.model.rstrip("/").split("/")[-1])
    limit = int(args.limit) if args.limit is not None and args.limit.is_integer() else args.limit
    spec = BatchSpec(
        path=Path.cwd(),
        models=(
            ModelSpec.from_dict(
                {
                    "name": name,
                    "route": "served",
                    "backend": args.backend,
                    "port": args.port,
                    "eval_args": extra,
                    **settings,
                },
                0,
            ),
        ),
        tasks=tuple(args.tasks.split(",")),
        output_dir=args.output_path.resolve(),
        limit=limit,
        vllm_executable=args.vllm_executable,
        judge=JudgeSpec.from_dict({"model": args.judge_model, "tensor_parallel_size": args.judge_tensor_parallel_size})
        if args.judge_model
        else None,
        health_timeout=args.health_timeout,
        secrets=collect_secrets(
            args=[args.model, *extra, *(f"{key}={value}" for key, value in args.vllm_arg)], environment=os.environ
        ),
    )

    try:
        check_environment(dict(os.environ), spec.output_dir, "environment")
    except SpecError as error:  # its message may name a variable holding a URL's credentials
        raise SpecError(redact_text(str(error), spec.secrets)) from None
    with redacted_console(spec.secrets):
        if args.print_command:
            print_commands(spec, plan(spec, TaskIndex()), job_lines=False)
            return 0
        return run_interruptible(spec)
