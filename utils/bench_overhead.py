#!/usr/bin/env python
"""What the plugin adds to lmms-eval's own cost: each task vs a trivial task with as many requests.

    python utils/bench_overhead.py --scales 1 8           # every task at the papers' size and 8x, 3 runs each
    python utils/bench_overhead.py --repeats 1 --tasks dve_cls sherlock_comparison
    python utils/bench_overhead.py --tasks --sherlock-full   # only the Sherlock full-size figures

Writes synthetic data in the official layouts at ``--scales`` times the papers' sizes (NL-Eye: 350
items, three 1024x1024 PNGs each; MuCR: 400 pairs with embedded 512x512 JPEG cells, every cell's
bytes distinct as in the release; DVE: 1,800 test rows over 600 Flickr-sized JPEGs; Sherlock
comparison: 485 observations x 10 candidates with an answer key; image files are hard links to a
few encoded images, each a path of its own), then runs, alternating, ``lmms-eval --model dummy
--batch_size 1 --tasks <ours>`` and the same command on a trivial task (a JSON-lines dataset,
one-line ``process_results``, no images) with the same number of requests and the same output
type, and the same trivial task on documents as wide as ours ("wide": every field of the task's own
documents, with their types, plus the trivial question and answer), all three in turn. Each task first runs once
uncounted (``--cold``: not), so that the counted runs find what a
user's later runs find: MuCR's item cache and content-addressed images written, files in the page
cache. Each run is a fresh process under ``/usr/bin/time -v``: CPU seconds (user + system) and
peak RSS. A run counts only when its results JSON holds the task. With two scales the script also
prints the CPU cost per extra document, ours and the trivial task's; with ``--phases``, the CPU of each of our steps
(importing the hooks, ``process_docs``, lmms-eval-style reads of the documents, ``process_results``, the
aggregations) per task in a fresh process. The trivial tasks' built-in
``mean`` makes lmms-eval look up its standard error, which first tries to import optional task modules (amber_g's,
which needs spaCy): a fixed cost per process that our tasks, which report their own standard errors, never pay. The
script measures it once in a fresh process and also prints the ratios with it taken off the trivial tasks
(``*_without_lookup``). Not a test: the figures depend on the machine and its load.

``--sherlock-full`` adds the Sherlock full-size figures, each in a fresh process (CPU seconds, peak
RSS): one official-size retrieval chunk (1,000 x 1,000 instances, ``bench_sherlock_scale``'s
generator) read, scored (embeddings of every row and column, one matrix product, the official grid
and metrics) and exported (the 1M submission scores), first from the JSON, then as
``export-sherlock`` finds it afterwards (the factored-chunk cache); and the localization family's
aggregation (``hooks.LOCALIZATION.evaluate``: metrics and bootstrap intervals) on 2,356,200
records, 6,600 images x (3 x 3 gt + 3 x 116 proposals), as the paper's split, per instance (the
per-pair route ``sherlock_localization_pairs``) and per image (the factored ``sherlock_localization``:
6,600 records with a 119 x 3 score matrix each); then the full protocol (``--sherlock-protocol`` alone
skips the rest): the val data at the paper's size (23 retrieval chunks of 1,000 x 1,000, the
localization file above, comparison 485 x 10; about 10 GB of JSON, written once into the work
folder) evaluated by one ``lmms-eval --model random_baseline --tasks sherlock --log_samples`` process
(the factored retrieval and localization routes; every chunk parsed from its JSON: a fresh
``ABDUCTIVE_CACHE``) and exported with ``abductive-eval export-sherlock --split val``, with the wall
time, CPU seconds and peak RSS of each, the machine's load and the other processes busy meanwhile.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil
from synthetic_data import (  # the sibling module (this script's folder is on sys.path)
    make_dve,
    make_mucr,
    make_nleye,
    make_sherlock,
)


@dataclass(frozen=True)
class Case:
    benchmark: str
    make: Callable[[Path, np.random.Generator, int], None]
    units: int  # the paper's size, in what ``make`` counts (items, pairs, rows, observations)
    requests_per_unit: int  # requests lmms-eval builds per unit (one per document for these tasks)
    output_type: str

    def requests(self, scale: int) -> int:
        return self.units * scale * self.requests_per_unit


CASES = {
    "nleye_triplet": Case("nleye", make_nleye, 350, 2, "generate_until"),
    "nleye_pairs": Case("nleye", make_nleye, 350, 2, "generate_until"),
    "mucr_c2e": Case("mucr", make_mucr, 400, 1, "generate_until"),
    "dve_cls": Case("dve", make_dve, 1800, 1, "generate_until"),
    "sherlock_comparison": Case("sherlock", make_sherlock, 485, 10, "loglikelihood"),
}


# ---------------------------------------------------------------- the trivial task


TRIVIAL_HOOKS = '''"""Hooks of the trivial tasks: no images, a one-line process_results."""


def doc_to_visual(doc):
    return []


def process_results(doc, results):
    return {"acc": float(str(results[0]).strip() == doc["answer"])}
'''

TRIVIAL_YAML = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {name}.jsonl
test_split: test
output_type: {output_type}
doc_to_visual: !function trivial_hooks.doc_to_visual
doc_to_text: "{{{{question}}}}"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  max_new_tokens: 16
process_results: !function trivial_hooks.process_results
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


WIDE_DOCUMENTS = """
import json, sys
from importlib import import_module
from abductive_tasks.runs import catalog
from abductive_tasks.runs.task_index import TaskIndex
task, out = sys.argv[1], sys.argv[2]
module, _, name = catalog.config(TaskIndex().yaml_path(task))["process_docs"].rpartition(".")
with open(out, "w") as handle:
    for number, doc in enumerate(getattr(import_module(module), name)(None)):
        if {"question", "answer"} & set(doc):
            raise SystemExit(f"{task}'s documents have a question or answer field: the wide task would overwrite it")
        question = {"question": f"Question {number}: which is more plausible, A or B?", "answer": "A"}
        handle.write(json.dumps(question | doc) + chr(10))
print(number + 1)
"""


def make_trivial(folder: Path, task: str, case: Case, scale: int) -> str:
    """A trivial task with as many documents as ``task`` has requests at ``scale`` (one request each); its name."""
    name = f"bench_trivial_{task}_x{scale}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trivial_hooks.py").write_text(TRIVIAL_HOOKS)
    (folder / f"{name}.yaml").write_text(TRIVIAL_YAML.format(name=name, output_type=case.output_type))
    with (folder / f"{name}.jsonl").open("w") as handle:
        for number in range(case.requests(scale)):
            handle.write(
                json.dumps({"question": f"Question {number}: which is more plausible, A or B?", "answer": "A"})
            )
            handle.write("\n")
    return name


STDERR_LOOKUP = """
import time
from lmms_eval.api.metrics import mean, stderr_for_metric
start = time.process_time()
stderr_for_metric(mean, 100000)
print(time.process_time() - start)
"""


OUR_PHASES = """
import importlib, json, sys, time
import lmms_eval.api.task, lmms_eval.evaluator  # imported by every run, ours or not
from abductive_tasks.runs import catalog
from abductive_tasks.runs.task_index import TaskIndex
task = sys.argv[1]
config = catalog.config(TaskIndex().yaml_path(task))
def hook(name):
    module, _, attribute = str(name).rpartition(".")
    return getattr(importlib.import_module(module), attribute)
cpu, phases = time.process_time(), {}
def lap(phase):
    global cpu
    phases[phase] = round(time.process_time() - cpu, 3)
    cpu = time.process_time()
process_docs, process_results = hook(config["process_docs"]), hook(config["process_results"])
lap("import our hooks")
docs = process_docs(None)
lap("process_docs (load, documents)")
for _ in range(2):
    rows = list(docs)
rows = [docs[i] for i in range(len(docs))]
lap("3 passes of lmms-eval-style reads")
reply = "(-1.5, False)" if config.get("output_type") == "loglikelihood" else "A"
results = [process_results(doc, [reply]) for doc in rows]
lap("process_results (the dummy's reply)")
for entry in config["metric_list"]:
    hook(entry["aggregation"])([result[entry["metric"]] for result in results])
lap("every aggregation")
print(json.dumps({"task": task, "documents": len(rows), "cpu_s": phases}))
"""


def our_phases(task: str, data: Path) -> dict:
    """CPU seconds of each of our steps for ``task`` in a fresh process, as lmms-eval takes them (its reads of the
    documents: two iterations and one indexed pass)."""
    environment = {"ABDUCTIVE_DATA": str(data), "ABDUCTIVE_CACHE": str(data.parent / f"cache_{data.name}")}
    return json.loads(child(OUR_PHASES, task, env=environment | {"ABDUCTIVE_JUDGE": "off"})[2].splitlines()[-1])


def stderr_lookup_cpu() -> float:
    """CPU seconds of lmms-eval's first standard-error lookup in a fresh process (the trivial tasks pay it)."""
    return float(child(STDERR_LOOKUP)[2].splitlines()[-1])


def make_wide(folder: Path, task: str, case: Case, scale: int, data: Path) -> str:
    """The trivial task (same YAML, hooks, prompt and requests) on documents as wide as ours: every field of ``task``'s
    own documents at ``scale``, with their types (written from our ``process_docs`` in a child, as JSON lines), plus
    the trivial task's question and answer; its name."""
    name = f"bench_wide_{task}_x{scale}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trivial_hooks.py").write_text(TRIVIAL_HOOKS)
    (folder / f"{name}.yaml").write_text(TRIVIAL_YAML.format(name=name, output_type=case.output_type))
    environment = {"ABDUCTIVE_DATA": str(data), "ABDUCTIVE_CACHE": str(data.parent / f"cache_{data.name}")}
    _cpu, _rss, written = child(WIDE_DOCUMENTS, task, str(folder / f"{name}.jsonl"), env=environment)
    if int(written.splitlines()[-1]) != case.requests(scale):
        raise SystemExit(f"{task}: {written} documents, expected {case.requests(scale)} (one request each)")
    return name


# ---------------------------------------------------------------- measuring


@dataclass
class Run:
    cpu_s: float
    peak_rss_mib: float
    wall_s: float
    documents: int


def _time_v(report: str) -> tuple[float, float]:
    """CPU seconds (user + system) and peak RSS (MiB) from ``/usr/bin/time -v``'s report."""
    fields = dict(line.strip().rsplit(": ", 1) for line in report.splitlines() if ": " in line)
    cpu = float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])
    return cpu, float(fields["Maximum resident set size (kbytes)"]) / 1024


def run_once(
    task: str,
    data: Path,
    trivial: Path,
    output: Path,
    log: Path,
    python: str = sys.executable,
    pythonpath: str | None = None,
) -> Run:
    """One fresh ``lmms-eval --model dummy --batch_size 1`` process (of the environment of ``python``, with
    ``pythonpath`` first on its path when given) on ``task`` under ``/usr/bin/time -v``; fails unless its results JSON
    holds the task."""
    shutil.rmtree(output, ignore_errors=True)
    timing = log.with_suffix(".time")
    command = ["/usr/bin/time", "-v", "-o", str(timing), str(Path(python).with_name("lmms-eval"))]
    command += ["--model", "dummy", "--tasks", task, "--batch_size", "1", "--include_path", str(trivial)]
    command += ["--output_path", str(output)]
    environment = {
        **os.environ,
        "ABDUCTIVE_DATA": str(data),
        "ABDUCTIVE_CACHE": str(data.parent / f"cache_{data.name}"),
        "ABDUCTIVE_JUDGE": "off",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        **({"PYTHONPATH": pythonpath} if pythonpath else {}),
    }
    start = time.perf_counter()
    with log.open("w") as handle:
        subprocess.run(command, env=environment, stdout=handle, stderr=subprocess.STDOUT, check=False)
    wall = time.perf_counter() - start
    results = list(output.rglob("*_results.json"))
    if len(results) != 1 or task not in json.loads(results[0].read_text())["results"]:
        raise SystemExit(f"{task}: the run wrote no results for the task (log: {log})")
    documents = sum(int(n) for n in re.findall(r"Postprocessed (\d+) docs", log.read_text()))
    cpu, rss = _time_v(timing.read_text())
    return Run(cpu, rss, wall, documents)


CHUNK_RUN = """
import os, resource, sys, time
from pathlib import Path
import numpy as np
from abductive_tasks.sherlock import factored_retrieval, metrics
folder = Path(sys.argv[1])
start = time.process_time()
instances, key = folder / "val_retrieval_0_instances.json", folder / "val_retrieval_0_answer_key.json"
chunk = factored_retrieval.load_factored_chunk(instances, key, 0)
read = time.process_time() - start
rng = np.random.default_rng(0)
image = rng.standard_normal((len(chunk.rows), 512)).astype(np.float32)
text = rng.standard_normal((len(chunk.texts), 512)).astype(np.float32)
scores = image @ text.T
values = metrics.retrieval_metrics(metrics.as_submitted(scores[np.ix_(chunk.gold_rows, chunk.gold_cols)]))
np.save(folder.parent / "retrieval_0.npy", factored_retrieval.submission_scores(chunk, scores))
print(round(read, 2), values["n"])
"""

LOCALIZATION_RUN = """
import resource, time
import numpy as np
import psutil
from abductive_tasks.sherlock import hooks
rng = np.random.default_rng(0)
records, order = [], 0
for image in range(6600):
    ids = [f"inst{image}_{k}" for k in range(3)]
    common = {"test_id": "", "sherlock_task": "localization", "split": "val", "chunk": 0, "file_size": 2356200,
              "has_key": True, "answer_status": "parsed"}
    scores, ious = rng.normal(size=9 + 348), rng.random(348)
    for box in range(3):
        for k, inst in enumerate(ids):
            records.append(common | {"group": f"VG/{image}.jpg|gt", "group_size": 9, "box_type": "gt", "inst_id": inst,
                "bbox_idx": box, "correct": k == box, "iou": float("nan"), "key_order": order,
                "plausibility": float(scores[3 * box + k])})
            order += 1
    for k, inst in enumerate(ids):
        for proposal in range(116):
            records.append(common | {"group": f"VG/{image}.jpg|auto", "group_size": 348, "box_type": "auto",
                "inst_id": inst, "bbox_idx": -1, "correct": False, "iou": float(ious[116 * k + proposal]),
                "key_order": order, "plausibility": float(scores[9 + 116 * k + proposal])})
            order += 1
before = psutil.Process().memory_info().rss
start = time.process_time()
values = hooks.LOCALIZATION.evaluate(records)
seconds = time.process_time() - start
growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
print(round(seconds, 2), round(growth / 2**20), len(records), round(values["localization_gt_acc"], 2))
"""


LOCALIZATION_MATRIX_RUN = """
import resource, time
import numpy as np
import psutil
from abductive_tasks.sherlock import hooks
from abductive_tasks.sherlock.embeddings import encode_score_matrix
rng = np.random.default_rng(0)
records, order = [], 0
for image in range(6600):
    group_gt, group_auto = f"VG/{image}.jpg|gt", f"VG/{image}.jpg|auto"
    gt = [(box, k) for box in range(3) for k in range(3)]
    auto = [(3 + proposal, k) for k in range(3) for proposal in range(116)]
    count = len(gt) + len(auto)
    records.append({"sherlock_task": "localization", "split": "val", "chunk": 0, "file_size": 2356200,
        "has_key": True, "shape": [119, 3], "test_ids": [f"{image}.{n}" for n in range(count)],
        "rows": [row for row, _ in gt + auto], "cols": [col for _, col in gt + auto],
        "positions": list(range(order, order + count)), "box_type": ["gt"] * 9 + ["auto"] * 348,
        "inst_id": [f"inst{image}_{col}" for _, col in gt + auto], "bbox_idx": [row for row, _ in gt] + [-1] * 348,
        "correct": [row == col for row, col in gt] + [False] * 348,
        "iou": [float("nan")] * 9 + rng.random(348).tolist(),
        "key_order": list(range(order, order + count)), "group": [group_gt] * 9 + [group_auto] * 348,
        "group_size": [9] * 9 + [348] * 348, "payload": encode_score_matrix(rng.normal(size=(119, 3))),
        "answer_status": "parsed"})
    order += count
before = psutil.Process().memory_info().rss
start = time.process_time()
values = hooks.LOCALIZATION_MATRIX.evaluate(records)
seconds = time.process_time() - start
growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
print(round(seconds, 2), round(growth / 2**20), values["localization_counts"]["instances"],
      round(values["localization_gt_acc"], 2))
"""


def child(code: str, *args: str, env: dict | None = None) -> tuple[float, float, str]:
    """CPU seconds, peak RSS (MiB) and output of ``python -c code args`` in a fresh process."""
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, env={**os.environ, **(env or {})}
    )
    output = process.stdout.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"child failed ({process.returncode}): {code[:80]}...")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output.strip()


def sherlock_full(work: Path) -> None:
    """Print the Sherlock full-size figures (one retrieval chunk; localization aggregation)."""
    root = work / "sherlock_full" / "sherlock"
    if not (root / "val_retrieval").is_dir():  # in a child: a process forked from a large one starts as large
        utils = str(Path(__file__).resolve().parent)
        code = "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; import bench_sherlock_scale as b"
        child(f"{code}; b.synthesize(Path(sys.argv[2]), 1, 1000, 400, seed=2)", utils, str(root))
    cache = {"ABDUCTIVE_CACHE": str(work / "sherlock_full" / "cache")}
    shutil.rmtree(cache["ABDUCTIVE_CACHE"], ignore_errors=True)
    folder = str(root / "val_retrieval")
    for stage in ("from the JSON", "from the factored-chunk cache (export-sherlock)"):
        cpu, rss, output = child(CHUNK_RUN, folder, env=cache)
        read, _n = output.split()
        row = {"sherlock_retrieval_chunk": stage, "cpu_s": round(cpu, 1), "read_cpu_s": float(read)}
        print(json.dumps(row | {"peak_rss_mib": round(rss)}), flush=True)
    for route, code in (("per instance (pairs)", LOCALIZATION_RUN), ("per image (factored)", LOCALIZATION_MATRIX_RUN)):
        cpu, rss, output = child(code)
        seconds, growth, records, _acc = output.split()
        row = {"sherlock_localization_aggregation": int(records), "records": route, "cpu_s": float(seconds)}
        print(json.dumps(row | {"rss_growth_mib": int(growth), "process_peak_rss_mib": round(rss)}), flush=True)


PROTOCOL_DATA = """
import sys
from pathlib import Path
import numpy as np
sys.path.insert(0, sys.argv[1])
import bench_overhead, bench_sherlock_scale
data, part = Path(sys.argv[2]), sys.argv[3]
if part == "retrieval":
    bench_sherlock_scale.synthesize(data / "sherlock", 23, 1000, 400, seed=2)
elif part == "localization":
    print(bench_overhead.make_sherlock_localization(data, np.random.default_rng(3)))
else:
    bench_overhead.make_sherlock(data, np.random.default_rng(4))
"""


def _busy_others() -> list[str]:
    """Other processes using CPU now (not this benchmark's): ``name pid %CPU``."""
    mine = {os.getpid(), *(child.pid for child in psutil.Process().children(recursive=True))}
    processes = [p for p in psutil.process_iter(["pid", "name", "cmdline"]) if p.pid not in mine]
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.cpu_percent(None)
    time.sleep(1.0)
    busy = []
    for process in processes:
        with contextlib.suppress(psutil.Error):
            share = process.cpu_percent(None)
            if share >= 20:
                busy.append(f"{' '.join(process.info['cmdline'] or [process.info['name']])[:60]} ({share:.0f}% CPU)")
    return busy


def _timed(command: list[str], env: dict, log: Path) -> dict:
    """Wall seconds, CPU seconds (children included) and peak RSS (the largest process) of one command."""
    start = time.perf_counter()
    with log.open("w") as handle:
        process = subprocess.Popen(command, env=env, stdout=handle, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{command[:3]} failed (log: {log})")
    wall = time.perf_counter() - start
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_rss_mib": round(usage.ru_maxrss / 1024),
    }


def sherlock_protocol(work: Path) -> None:
    """The paper's full val protocol (23 retrieval chunks, localization, comparison) evaluated and exported."""
    data = work / "sherlock_protocol"
    utils = str(Path(__file__).resolve().parent)
    for part, folder in (
        ("retrieval", "val_retrieval"),
        ("localization", "val_localization"),
        ("comparison", "val_comparison"),
    ):
        if not (data / "sherlock" / folder).is_dir():
            start = time.perf_counter()
            child(PROTOCOL_DATA, utils, str(data), part)
            print(f"# wrote the Sherlock {part} data in {time.perf_counter() - start:.0f} s", flush=True)
    env = {
        **os.environ,
        "ABDUCTIVE_DATA": str(data),
        "ABDUCTIVE_CACHE": str(work / "sherlock_protocol_cache"),
        "ABDUCTIVE_JUDGE": "off",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    output, submission = work / "sherlock_protocol_run", work / "sherlock_protocol_submission"
    for folder in (output, submission, Path(env["ABDUCTIVE_CACHE"])):
        shutil.rmtree(folder, ignore_errors=True)
    bin_dir = Path(sys.executable).parent
    others, load = _busy_others(), os.getloadavg()[0]
    evaluate = [str(bin_dir / "lmms-eval"), "--model", "random_baseline", "--tasks", "sherlock", "--batch_size", "1"]
    evaluate += ["--log_samples", "--output_path", str(output)]
    evaluated = _timed(evaluate, env, work / "sherlock_protocol_evaluate.log")
    results = list(output.rglob("*_results.json"))
    printed = json.loads(results[0].read_text())["results"] if len(results) == 1 else {}
    headline = {
        "sherlock_retrieval": "retrieval_p_at_1,none",
        "sherlock_localization": "localization_gt_acc,none",
        "sherlock_comparison": "comparison_acc,none",
    }
    if any(printed.get(task, {}).get(metric) is None for task, metric in headline.items()):
        raise SystemExit(
            f"the protocol run printed no {list(headline)} metrics (log: {work / 'sherlock_protocol_evaluate.log'})"
        )
    export = [
        str(bin_dir / "abductive-eval"),
        "export-sherlock",
        str(output),
        "--split",
        "val",
        "--out",
        str(submission),
    ]
    exported = _timed(export, env, work / "sherlock_protocol_export.log")
    files = sorted(path.stem for path in (submission / "validation_set_predictions").glob("*.npy"))
    row = {
        "sherlock_full_protocol": "23 retrieval chunks + localization + comparison, val, evaluated and exported",
        "wall_s": round(evaluated["wall_s"] + exported["wall_s"], 1),
        "evaluate": evaluated,
        "export": exported,
        "files": len(files),
        "printed": {task: round(printed[task][metric], 3) for task, metric in headline.items()},
        "documents": {task: printed[task][f"{task.split('_')[1]}_counts,none"]["documents"] for task in headline},
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "other_busy_processes_before": others,
        "other_busy_processes_after": _busy_others(),
    }
    print(json.dumps(row), flush=True)


def measure(
    task: str,
    scale: int,
    work: Path,
    repeats: int,
    warm: bool,
    before: str | None = None,
    lookup: float = 0.0,
    before_path: str | None = None,
) -> dict:
    """Ours and the trivial task at ``scale`` x the paper's size, alternating, medians of ``repeats``; with
    ``before`` (another environment's python, e.g. of the code before a change) its runs of ours join the rotation,
    with a cache of their own."""
    case = CASES[task]
    data, trivial = work / f"data_x{scale}", work / "trivial"
    if not (data / case.benchmark).is_dir():
        start = time.perf_counter()
        case.make(data, np.random.default_rng(24), case.units * scale)
        print(f"# wrote {case.benchmark} data x{scale} in {time.perf_counter() - start:.0f} s", flush=True)
    baseline = make_trivial(trivial, task, case, scale)
    wide = make_wide(trivial, task, case, scale, data)
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    if warm:  # caches (MuCR's item cache, content-addressed images) and the page cache as a user's later runs find them
        run_once(task, data, trivial, work / "out", logs / f"{task}.x{scale}.warmup.log")
        run_once(baseline, data, trivial, work / "out", logs / f"{baseline}.warmup.log")
        run_once(wide, data, trivial, work / "out", logs / f"{wide}.warmup.log")
    other = work / f"before_x{scale}"  # the same data under another name: the code before keeps its own caches
    if before:
        other.mkdir(exist_ok=True)
        if not (other / case.benchmark).exists():
            (other / case.benchmark).symlink_to(data / case.benchmark)
        if warm:
            run_once(
                task, other, trivial, work / "out", logs / f"{task}.x{scale}.before.warmup.log", before, before_path
            )
    ours, theirs, wides, olds, loads = [], [], [], [], []
    for repeat in range(repeats):  # alternating, so that load changes hit all alike
        loads.append(os.getloadavg()[0])
        ours.append(run_once(task, data, trivial, work / "out", logs / f"{task}.x{scale}.{repeat}.log"))
        if before:
            log = logs / f"{task}.x{scale}.before.{repeat}.log"
            olds.append(run_once(task, other, trivial, work / "out", log, before, before_path))
        theirs.append(run_once(baseline, data, trivial, work / "out", logs / f"{baseline}.{repeat}.log"))
        wides.append(run_once(wide, data, trivial, work / "out", logs / f"{wide}.{repeat}.log"))
    loads.append(os.getloadavg()[0])
    cpu = statistics.median(r.cpu_s for r in ours), statistics.median(r.cpu_s for r in theirs)
    rss = statistics.median(r.peak_rss_mib for r in ours), statistics.median(r.peak_rss_mib for r in theirs)
    wide_cpu, wide_rss = statistics.median(r.cpu_s for r in wides), statistics.median(r.peak_rss_mib for r in wides)
    row_before = _before_row(olds, cpu[1], rss[1]) if before else {}
    return {
        "task": task,
        "scale": scale,
        "documents": [ours[0].documents, theirs[0].documents],
        "cpu_s": [round(cpu[0], 2), round(cpu[1], 2)],
        "cpu_ratio": round(cpu[0] / cpu[1], 3),
        "peak_rss_mib": [round(rss[0]), round(rss[1])],
        "rss_ratio": round(rss[0] / rss[1], 3),
        "cpu_runs": [[round(r.cpu_s, 2) for r in ours], [round(r.cpu_s, 2) for r in theirs]],
        "wide": {
            "cpu_s": round(wide_cpu, 2),
            "cpu_ratio": round(cpu[0] / wide_cpu, 3),  # ours / the same-width trivial task
            "peak_rss_mib": round(wide_rss),
            "rss_ratio": round(rss[0] / wide_rss, 3),
            "cpu_runs": [round(r.cpu_s, 2) for r in wides],
            "wide_over_trivial": round(wide_cpu / cpu[1], 3),  # what the width alone costs lmms-eval
            "cpu_ratio_without_lookup": round(cpu[0] / (wide_cpu - lookup), 3),
        },
        "cpu_ratio_without_lookup": round(cpu[0] / (cpu[1] - lookup), 3),  # the trivial task less its stderr lookup
        "load": [round(load, 2) for load in loads],
        **row_before,
    }


def _before_row(olds: list, trivial_cpu: float, trivial_rss: float) -> dict:
    """The ``before`` entry of a row: the other environment's runs of ours against the trivial task's medians."""
    old_cpu, old_rss = statistics.median(r.cpu_s for r in olds), statistics.median(r.peak_rss_mib for r in olds)
    return {
        "before": {
            "cpu_s": round(old_cpu, 2),
            "cpu_ratio": round(old_cpu / trivial_cpu, 3),
            "peak_rss_mib": round(old_rss),
            "rss_ratio": round(old_rss / trivial_rss, 3),
            "cpu_runs": [round(r.cpu_s, 2) for r in olds],
        }
    }


def slopes(rows: list[dict]) -> list[dict]:
    """CPU per extra document (ms), ours and the trivial task's, between the smallest and largest scale of a task."""
    out = []
    for task in dict.fromkeys(row["task"] for row in rows):
        mine = sorted((row for row in rows if row["task"] == task), key=lambda row: row["scale"])
        if len(mine) < 2:
            continue
        small, large = mine[0], mine[-1]
        extra = [large["documents"][side] - small["documents"][side] for side in (0, 1)]
        ms = [1000 * (large["cpu_s"][side] - small["cpu_s"][side]) / extra[side] for side in (0, 1)]
        out.append(
            {
                "task": task,
                "scales": [small["scale"], large["scale"]],
                "ms_per_document": [round(ms[0], 3), round(ms[1], 3)],
                "ms_above_trivial": round(ms[0] - ms[1], 3),
            }
        )
    return out


def print_table(rows: list[dict], repeats: int) -> None:
    """The rows as one table, then the slopes between scales."""
    header = f"{'task':<22}{'scale':>6}{'documents':>11}{'CPU s ours / trivial / wide':>31}"
    header += f"{'ratio trivial':>15}{'ratio wide':>12}{'(less lookup)':>15}"
    header += f"{'peak RSS MiB ours / trivial / wide':>38}"
    print(f"\n{header}")
    for row in rows:
        print(
            f"{row['task']:<22}{row['scale']:>6}{row['documents'][0]:>11}"
            f"{row['cpu_s'][0]:>12.1f} / {row['cpu_s'][1]:.1f} / {row['wide']['cpu_s']:<7.1f}"
            f"{row['cpu_ratio']:>15.2f}{row['wide']['cpu_ratio']:>12.2f}"
            f"{row['cpu_ratio_without_lookup']:>8.2f} /{row['wide']['cpu_ratio_without_lookup']:>5.2f}"
            f"{row['peak_rss_mib'][0]:>16} / {row['peak_rss_mib'][1]} / {row['wide']['peak_rss_mib']:<8}"
        )
    print(
        f"(medians of {repeats}; CPU = user + system seconds of the whole lmms-eval process; wide: the "
        "trivial task on documents with our documents' fields)"
    )
    for slope in slopes(rows):
        print(json.dumps(slope), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="*", choices=sorted(CASES), default=list(CASES))
    parser.add_argument(
        "--scales", nargs="+", type=int, default=[1], help="sizes as multiples of the paper's (e.g. 1 8: also slopes)"
    )
    parser.add_argument("--cold", action="store_true", help="no uncounted warm-up run of each task before measuring")
    parser.add_argument(
        "--before", metavar="PYTHON", help="also run ours with this environment's lmms-eval (e.g. the code before)"
    )
    parser.add_argument(
        "--before-code", metavar="DIR", help="also run ours with this checkout's package first on PYTHONPATH"
    )
    parser.add_argument(
        "--phases", action="store_true", help="also the CPU of each of our steps per task, in a fresh process"
    )
    parser.add_argument("--sherlock-full", action="store_true", help="also the Sherlock full-size figures")
    parser.add_argument(
        "--sherlock-protocol",
        action="store_true",
        help="only the full-protocol figure (with --sherlock-full: after the other full-size figures)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None, help="keep data and logs here (default: a temp dir)")
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-overhead-"))
    work.mkdir(parents=True, exist_ok=True)
    print(
        f"# {platform.node()}: {psutil.cpu_count()} CPUs, {psutil.virtual_memory().total / 2**30:.0f} GiB RAM, "
        f"load {os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        flush=True,
    )
    try:
        rows = []
        lookup = stderr_lookup_cpu() if args.tasks else 0.0
        if args.tasks:
            print(f"# lmms-eval's first stderr lookup (the trivial tasks pay it, ours not): {lookup:.2f} s CPU")
        for task in args.tasks:
            for scale in args.scales:
                rows.append(
                    measure(
                        task,
                        scale,
                        work,
                        args.repeats,
                        warm=not args.cold,
                        before=args.before or (sys.executable if args.before_code else None),
                        lookup=lookup,
                        before_path=args.before_code,
                    )
                )
                print(json.dumps(rows[-1]), flush=True)
        if rows:
            print_table(rows, args.repeats)
        if args.phases:
            for task in args.tasks:
                for scale in args.scales:
                    print(json.dumps(our_phases(task, work / f"data_x{scale}") | {"scale": scale}), flush=True)
        if args.sherlock_full and not args.sherlock_protocol:
            sherlock_full(work)
        if args.sherlock_full or args.sherlock_protocol:
            sherlock_protocol(work)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
