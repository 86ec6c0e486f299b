"""The reporting tools' cost against the cost of reading their input, on synthetic runs, two installs side by side.

Builds (once, in ``--workdir``) with this checkout's package:

* ``show/``: a 10,000-document ``dve_cls`` run (results JSON and samples JSONL, random answers), and a second run of
  the same documents for ``diff``;
* ``board/``: a batch results folder of 20 models x 10 tasks (NL-Eye, MuCR and DVE tasks, ``--board-docs`` documents
  each, random answers per model), with the spec and run identity records the batch writes.

The records come from each task's own ``process_docs`` (on the shipped sample data, repeated under new item ids up to
the size asked) and ``process_results`` hooks, and the results from the task spec's aggregation, as a run writes them.

Then times, as separate processes, alternating installs in each round (median of ``--rounds``): every tool of
:data:`TOOLS` under each ``--install`` (``name=python`` of a venv whose package is the install to time; default: this
interpreter as "after", and ``/work/venvs/main/bin/python`` as "before" when it exists), and beside them the cost of
reading the tool's input JSON with the standard library (the floor a reporting tool can reach). One uncounted round
comes first, and each install's bytecode is compiled once and kept (``PYTHONPYCACHEPREFIX`` under ``--workdir``), as
an installed package has it. CPU seconds (user + system) come from ``wait4``, peak RSS from ``/usr/bin/time``. Each
tool is one ``bench_*`` function below: add one to :data:`TOOLS`.

    nice python utils/bench_reports.py --workdir /tmp/bench_reports
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SHOW_DOCS = 10_000
MODELS = 20
BOARD_TASKS = (
    "nleye_triplet",
    "nleye_triplet_combined",
    "nleye_pairs",
    "nleye_pairs_combined",
    "mucr_c2e",
    "mucr_e2c",
    "mucr_cue",
    "mucr_c2e_split",
    "mucr_cue_split",
    "dve_cls",
)
STAMP = "20260101_000000"

# ---------------------------------------------------------------- synthetic runs (built with this checkout)


def _hooks(task: str) -> tuple[Callable, Callable, object]:
    """The task's process_docs and process_results hooks and its spec, from our YAML."""
    import pkgutil

    from abductive_tasks.runs import catalog
    from abductive_tasks.runs.task_index import TaskIndex

    config = catalog.config(TaskIndex().yaml_path(task))
    process_results = pkgutil.resolve_name(config["process_results"])
    return pkgutil.resolve_name(config["process_docs"]), process_results, process_results.spec


def _documents(task: str, count: int) -> list[dict]:
    """``count`` documents of ``task``: the sample data's, repeated under new item (and pair) ids."""
    process_docs, _, _ = _hooks(task)
    base = [dict(doc) for doc in process_docs(None)]
    docs = []
    for index in range(count):
        doc = dict(base[index % len(base)])
        copy = index // len(base)
        for key in ("item_id", "pair_id"):
            if key in doc and copy:
                doc[key] = f"{doc[key]}#{copy}"
        docs.append(doc)
    return docs


def _reply(doc: dict, rng: random.Random) -> str:
    """A random answer in the format the prompts ask for (as the random_baseline model answers)."""
    if doc.get("answer_kind") == "choice":
        return f"{rng.choice(doc['choices'])}. Chosen at random."
    if doc.get("answer_kind") == "text":
        return rng.choice(doc["choices"])
    return f"Score: {rng.randint(1, 10)}. Chosen at random."


def _plain(doc: dict) -> dict:
    """A document as lmms-eval logs it: JSON values only."""
    return json.loads(json.dumps(doc, default=str))


def write_run(folder: Path, tasks: dict[str, list[dict]], seed: int) -> Path:
    """One lmms-eval run folder: ``<stamp>_results.json`` and a samples JSONL per task, random answers."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    results, n_samples = {}, {}
    for task, docs in tasks.items():
        _, process_results, spec = _hooks(task)
        lines = []
        for doc_id, doc in enumerate(docs):
            reply = _reply(doc, rng)
            values = process_results(doc, [reply])
            lines.append(
                {
                    "doc_id": doc_id,
                    "doc": _plain(doc),
                    "target": str(doc.get("gold_position", doc.get("update_type", ""))),
                    "arguments": [],
                    "resps": [[reply]],
                    "filtered_resps": [reply],
                    **values,
                }
            )
        records = [next(iter(line[name][1] for name in spec.metric_names)) for line in lines]
        computed = json.loads(json.dumps(spec.evaluate(records)))
        intervals = computed.get(spec.interval_metric, {})
        results[task] = {"alias": task}
        for name, value in computed.items():
            results[task][f"{name},none"] = value
            entry = intervals.get(name) if isinstance(intervals, dict) else None
            stderr = entry.get("stderr") if isinstance(entry, dict) else None
            results[task][f"{name}_stderr,none"] = "N/A" if stderr is None else stderr
        n_samples[task] = {"original": len(docs), "effective": len(docs)}
        with (folder / f"{STAMP}_samples_{task}.jsonl").open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(line) + "\n" for line in lines)
    run = {
        "results": results,
        "config": {"model": "random_baseline", "model_args": f"seed={seed}", "limit": None},
        "n-samples": n_samples,
    }
    path = folder / f"{STAMP}_results.json"
    path.write_text(json.dumps(run), encoding="utf-8")
    return path


def build_show(root: Path) -> dict[str, Path]:
    """Two runs of the same 10,000 dve_cls documents (different random answers)."""
    docs = _documents("dve_cls", SHOW_DOCS)
    return {name: write_run(root / name / "random_baseline", {"dve_cls": docs}, seed) for seed, name in enumerate("ab")}


def build_board(root: Path, docs_per_task: int) -> Path:
    """A batch results folder: :data:`MODELS` models x :data:`BOARD_TASKS`, each with its spec and run records."""
    from abductive_tasks.runs.identity import build_identity, data_fingerprint
    from abductive_tasks.runs.identity_record import RUN_RECORD, RUNS_DIR, SPEC_RECORD, IdentityRecord
    from abductive_tasks.runs.task_index import TaskIndex

    task_index = TaskIndex()
    facts = {task: task_index.facts(task) for task in BOARD_TASKS}
    data = {fact.benchmark: data_fingerprint(fact.benchmark, "sample") for fact in facts.values()}
    docs = {task: _documents(task, docs_per_task) for task in BOARD_TASKS}
    for index in range(MODELS):
        model = f"model{index:02d}"
        identity = build_identity(
            model={"route": "lmms", "backend": "random_baseline", "vllm": None},
            model_args=f"seed={index}",
            eval_args=["--log_samples"],
            env={},
            environment={},
            judge=None,
            tasks={task: {"benchmark": fact.benchmark, "version": fact.version} for task, fact in facts.items()},
            data=data,
        )
        IdentityRecord(identity, None, BOARD_TASKS, model, "spec.yaml").write(root / model / SPEC_RECORD)
        run = root / model / RUNS_DIR / "01"
        IdentityRecord(identity, None, BOARD_TASKS, model, "spec.yaml", 0).write(run / RUN_RECORD)
        write_run(run / "random_baseline", docs, 1000 + index)
    return root


def build(workdir: Path, board_docs: int) -> dict[str, Path]:
    """The synthetic inputs, built once per ``workdir`` (delete it to rebuild)."""
    done = workdir / "built.json"
    if done.is_file():
        return {name: Path(path) for name, path in json.loads(done.read_text()).items()}
    os.environ["ABDUCTIVE_DATA"] = "sample"
    workdir.mkdir(parents=True, exist_ok=True)
    show = workdir / "show.json"  # the two runs, kept while the board is rebuilt
    if not show.is_file():
        show.write_text(json.dumps({name: str(path) for name, path in build_show(workdir / "show").items()}))
    runs = json.loads(show.read_text())
    shutil.rmtree(workdir / "board", ignore_errors=True)
    paths = {"run_a": Path(runs["a"]), "run_b": Path(runs["b"]), "board": build_board(workdir / "board", board_docs)}
    done.write_text(json.dumps({name: str(path) for name, path in paths.items()}))
    return paths


# ---------------------------------------------------------------- timing


def measure(command: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    """One process, run in ``cwd``: wall and CPU seconds, peak RSS (MiB); its output is discarded, a failure stops the
    bench. ``cwd`` must hold no ``abductive_tasks`` folder: ``python -m`` puts it first on ``sys.path``, so from a
    checkout every install would time that checkout's package.

    The peak RSS is the one ``/usr/bin/time`` reports for the tool: ``wait4``'s own would count the pages a child
    shares with this (large) process between fork and exec."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        start = time.perf_counter()
        timed = ["/usr/bin/time", "-f", "%M", "-o", rss.name, *command]
        process = subprocess.Popen(timed, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        peak_kib = int(rss.read().split()[-1])
    error = process.stderr.read().decode(errors="replace") if process.stderr else ""
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}:\n{error[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": peak_kib / 1024}


def read_json_command(python: str, paths: list[Path]) -> list[str]:
    """The floor: the standard library reading the tool's input JSON (results files and samples lines)."""
    code = (
        "import json,sys\n"
        "for p in sys.argv[1:]:\n"
        "    f=open(p)\n"
        "    [json.loads(l) for l in f] if p.endswith('.jsonl') else json.load(f)\n"
    )
    return [python, "-c", code, *map(str, paths)]


def cli(python: str, *arguments: str) -> list[str]:
    return [python, "-m", "abductive_tasks.cli", *arguments]


def bench_show(python: str, inputs: dict[str, Path], scratch: Path) -> tuple[list[str], list[Path]]:
    """``show`` of the 10k-document dve_cls run; its input is the results JSON."""
    return cli(python, "show", str(inputs["run_a"])), [inputs["run_a"]]


def bench_diff(python: str, inputs: dict[str, Path], scratch: Path) -> tuple[list[str], list[Path]]:
    """``diff`` of two 10k-document dve_cls runs (console only); its input is both runs' results and samples."""
    files = [path for run in ("run_a", "run_b") for path in sorted(inputs[run].parent.glob(f"{STAMP}_*"))]
    return cli(python, "diff", str(inputs["run_a"]), str(inputs["run_b"])), files


def _board_inputs(inputs: dict[str, Path]) -> list[Path]:
    return sorted(inputs["board"].glob("*/runs/*/random_baseline/*"))


def bench_leaderboard(python: str, inputs: dict[str, Path], scratch: Path) -> tuple[list[str], list[Path]]:
    """``leaderboard`` over 20 models x 10 tasks, its plot cache kept from the round before (a repeated report)."""
    return cli(python, "leaderboard", str(inputs["board"]), "--out", str(scratch / "board_out")), _board_inputs(inputs)


def bench_leaderboard_cold(python: str, inputs: dict[str, Path], scratch: Path) -> tuple[list[str], list[Path]]:
    """``leaderboard`` as above with an empty cache: every plot drawn."""
    shutil.rmtree(scratch / "cache", ignore_errors=True)
    return cli(python, "leaderboard", str(inputs["board"]), "--out", str(scratch / "board_out")), _board_inputs(inputs)


TOOLS: dict[str, Callable[[str, dict[str, Path], Path], tuple[list[str], list[Path]]]] = {
    "show": bench_show,
    "diff": bench_diff,
    "leaderboard (cold cache)": bench_leaderboard_cold,
    "leaderboard": bench_leaderboard,
}


def tool_env(scratch: Path) -> dict[str, str]:
    """A timed process's environment: its install's own caches, and its bytecode compiled once and kept (under
    ``scratch``, outside the source tree), as a user's installed package has it: without that, a shell exporting
    ``PYTHONDONTWRITEBYTECODE`` would time the compiling of every module the tool imports."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {
        **env,
        "ABDUCTIVE_CACHE": str(scratch / "cache"),
        "MPLBACKEND": "Agg",
        "PYTHONPYCACHEPREFIX": str(scratch / "pycache"),
    }


def run_bench(installs: dict[str, str], inputs: dict[str, Path], workdir: Path, rounds: int, tools: list[str]) -> dict:
    """Per tool: per install and for reading the input, the median wall, CPU and peak RSS over ``rounds``, after one
    uncounted round (bytecode compiled, plots drawn, files in the page cache)."""
    samples: dict[str, dict[str, list[dict]]] = {tool: {} for tool in tools}
    for round_ in range(rounds + 1):
        for tool in tools:
            for install, python in [*installs.items(), ("read input JSON", sys.executable)]:
                scratch = workdir / "scratch" / install.replace(" ", "_")
                scratch.mkdir(parents=True, exist_ok=True)
                command, files = TOOLS[tool](python, inputs, scratch)
                if install == "read input JSON":
                    command = read_json_command(python, files)
                figure = measure(command, tool_env(scratch), scratch)
                if not round_:
                    continue  # the warm-up
                samples[tool].setdefault(install, []).append(figure)
                print(f"{tool} | {install} | " + " ".join(f"{k} {v:.2f}" for k, v in figure.items()), flush=True)
    return {
        tool: {
            install: {key: statistics.median(run[key] for run in runs) for key in ("wall", "cpu", "rss")}
            for install, runs in by_install.items()
        }
        for tool, by_install in samples.items()
    }


def table(figures: dict) -> str:
    lines = ["| tool | install | wall s | CPU s | peak RSS MiB |", "|---|---|---:|---:|---:|"]
    for tool, by_install in figures.items():
        for install, value in by_install.items():
            lines.append(f"| {tool} | {install} | {value['wall']:.2f} | {value['cpu']:.2f} | {value['rss']:.0f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/bench_reports"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--board-docs", type=int, default=240, help="documents per task of each leaderboard run")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated, of: {', '.join(TOOLS)}")
    parser.add_argument(
        "--install",
        action="append",
        default=[],
        metavar="NAME=PYTHON",
        help="an install to time (repeatable), e.g. before=OLD/bin/python after=NEW/bin/python; "
        "default: this interpreter only",
    )
    args = parser.parse_args()
    installs = dict(entry.split("=", 1) for entry in args.install)
    if not installs:
        installs = {"this": sys.executable}
    args.workdir = args.workdir.resolve()  # the tools run in folders under it
    inputs = build(args.workdir, args.board_docs)
    print(f"load before: {os.getloadavg()}", flush=True)
    figures = run_bench(installs, inputs, args.workdir, args.rounds, args.tools.split(","))
    print(f"load after: {os.getloadavg()}")
    print(table(figures))
    (args.workdir / "figures.json").write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
