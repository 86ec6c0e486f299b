#!/usr/bin/env python
"""What the full Sherlock retrieval protocol costs in lmms-eval 0.7.3, at the official scale.

Writes a synthetic leaderboard-format val retrieval set (``--chunks`` chunk files of ``--n`` x
``--n`` instances with full answer keys, the official size is 23 x 1000 x 1000; small synthetic
images) and runs it through the real task machinery (``TaskManager`` + the task YAML,
``build_all_requests``, the model's ``loglikelihood``, ``process_results`` on the stringified
results, every aggregation), reporting wall time and peak RSS per stage:

1. ``per-pair``: the one-document-per-instance design (task ``--per-pair-task``) on one chunk of
   ``--per-pair-n`` x ``--per-pair-n`` instances, extrapolated per request to 23M retrieval and
   2.37M localization instances;
2. ``factored``: ``sherlock_retrieval`` (``abductive_tasks.sherlock.factored_retrieval``, one document per
   instance id) at full size, answered by a model that returns embeddings: ``--model dumb_pixel``
   (default: draws every image-region, like an embedding scorer, without an encoder),
   ``random_baseline``, a CLIP checkpoint folder (``clip_scorer``), or ``none`` (random
   embeddings, no model call), counting how often each image file is decoded; then the export of
   every chunk's 1M submission scores;
3. ``localization``: ``sherlock_localization`` (one document per image) on a synthetic val localization
   file of ``--localization-images`` images (official test size: 2.37M instances), answered with random
   score matrices; the samples file as lmms-eval's own writer writes it (its size), and
   ``abductive-eval export-sherlock`` on it in a child process (CPU seconds and peak RSS from
   ``/usr/bin/time -v``).

    python utils/bench_sherlock_scale.py                 # the full protocol (~8 GB of JSON in a temp dir)
    python utils/bench_sherlock_scale.py --chunks 2      # a quick run
    python utils/bench_sherlock_scale.py --skip-per-pair --skip-factored   # localization samples and export only

The script imports the installed package only.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import psutil
from PIL import Image

from abductive_tasks import compat
from abductive_tasks.inputs import images as image_module
from abductive_tasks.scoring.taskspec import held_records
from abductive_tasks.sherlock import data, factored_retrieval, localization
from abductive_tasks.sherlock.embeddings import encode_embeddings, encode_score_matrix

WORDS = (
    "the a person man woman dog cat car street kitchen waiter rain party beach store office child old young "
    "is are was will has"
).split()
LOCALIZATION_INSTANCES = 2_365_256  # test localization, official validate_submission.py
FULL_RETRIEVAL_INSTANCES = 23 * 1000 * 1000
GB = 2**30


class Meter:
    """Wall time and peak resident memory per stage (RSS of the process and its children, sampled every 10 ms).

    Listing the children reads every process's ``/proc/<pid>/stat`` (about 2 ms on a machine running 90 processes):
    done every 10 ms it took a fifth of a core from the protocol it measures, so the list is refreshed every 0.25 s
    and only the listed processes' RSS is read every 10 ms."""

    CHILDREN_EVERY = 0.25  # seconds between two listings of the children

    def __init__(self) -> None:
        self.process = psutil.Process()
        self.peak = 0
        self.rows: list[dict] = []
        self._children: list[psutil.Process] = []
        self._listed = 0.0
        self._stop = threading.Event()
        threading.Thread(target=self._sample, daemon=True).start()

    def rss(self, fresh: bool = True) -> int:
        """Resident memory of this process and its children (the chunk-loading workers); ``fresh``: list the
        children now, else reuse a listing made less than :attr:`CHILDREN_EVERY` seconds ago."""
        now = time.monotonic()
        if fresh or now - self._listed >= self.CHILDREN_EVERY:
            self._children, self._listed = self.process.children(recursive=True), now
        total = self.process.memory_info().rss
        for child in self._children:
            try:
                total += child.memory_info().rss
            except psutil.NoSuchProcess:
                pass
        return total

    def cpu(self) -> float:
        """CPU seconds (user + system) of this process and its waited-for children (the chunk-loading workers)."""
        times = self.process.cpu_times()
        return times.user + times.system + times.children_user + times.children_system

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self.rss(fresh=False))

    @contextmanager
    def stage(self, name: str, **facts):
        gc.collect()
        start_rss = self.peak = self.rss()
        start, start_cpu = time.perf_counter(), self.cpu()
        yield facts
        seconds = time.perf_counter() - start
        self.peak = max(self.peak, self.rss())
        growth = (self.peak - start_rss) / 2**30
        row = {
            "stage": name,
            "seconds": round(seconds, 2),
            "cpu_seconds": round(self.cpu() - start_cpu, 2),
            "peak_rss_gb": round(self.peak / 2**30, 3),
            "rss_growth_gb": round(growth, 3),
            **facts,
        }
        self.rows.append(row)
        print(json.dumps(row), flush=True)


# ---------------------------------------------------------------- synthetic leaderboard data


CHUNK_MARK = "@CHUNK@"  # replaced by the chunk index: one template gives every chunk distinct images and inferences


def write_images(root: Path, chunks: int, per_chunk: int, rng: np.random.Generator) -> list[tuple[str, int, int]]:
    """``per_chunk`` small JPEGs per chunk under images/VG_<chunk>/;
    returns the (url template, width, height) of each index."""
    sizes = [(int(rng.integers(40, 72)), int(rng.integers(32, 56))) for _ in range(per_chunk)]
    for chunk in range(chunks):
        folder = root / "images" / f"VG_{chunk}"
        folder.mkdir(parents=True, exist_ok=True)
        for index, size in enumerate(sizes):
            Image.new("RGB", size, tuple(int(v) for v in rng.integers(0, 256, 3))).save(
                folder / f"{index}.jpg", quality=80
            )
    return [
        (f"https://cs.stanford.edu/people/rak248/VG_{CHUNK_MARK}/{index}.jpg", *size)
        for index, size in enumerate(sizes)
    ]


def chunk_template(n: int, images: list[tuple[str, int, int]], rng: np.random.Generator) -> tuple[str, str]:
    """Official-format instances and answer key of one chunk (n instance ids, all n x n pairs, shuffled),
    chunk index left as a mark."""
    ids = [f"{CHUNK_MARK}x{k:05d}{rng.integers(1 << 40):010x}" for k in range(n)]
    image_parts, text_parts = [], []
    for k in range(n):
        url, width, height = images[int(rng.integers(len(images)))]
        left, top = int(rng.integers(0, width // 2)), int(rng.integers(0, height // 2))
        box = {
            "left": left,
            "top": top,
            "width": int(rng.integers(4, width - left)),
            "height": int(rng.integers(4, height - top)),
        }
        image_parts.append(
            f'"image": {{"url": "{url}", "width": {width}, "height": {height}}}, "region": [{json.dumps(box)}]'
        )
        text_parts.append(f'"inference": "{" ".join(rng.choice(WORDS, 8))} {CHUNK_MARK}-{k}"')
    test_ids = [f"{a:016x}{b:016x}" for a, b in rng.integers(0, 1 << 62, size=(n * n, 2)).tolist()]
    instances, key = [], []
    for i in range(n):
        for j in range(n):
            test_id = test_ids[i * n + j]
            instances.append(
                f'{{{image_parts[i]}, {text_parts[j]}, "test_id": "{test_id}", "extra_info": {{"task": "retrieval"}}}}'
            )
            key.append(f'"{test_id}": ["{ids[i]}", "{ids[j]}"]')
    order = rng.permutation(n * n)  # the official files are not ordered by pair
    return "[" + ",\n".join(instances[o] for o in order) + "]", "{" + ",\n".join(key[o] for o in order) + "}"


def synthesize(root: Path, chunks: int, n: int, images_per_chunk: int, seed: int) -> dict:
    """A val retrieval set in the official layout under ``root`` (= ``<ABDUCTIVE_DATA>/sherlock``)."""
    rng = np.random.default_rng(seed)
    images = write_images(root, chunks, images_per_chunk, rng)
    instances, key = chunk_template(n, images, rng)
    folder = root / "val_retrieval"
    folder.mkdir(parents=True, exist_ok=True)
    for chunk in range(chunks):
        (folder / f"val_retrieval_{chunk}_instances.json").write_text(instances.replace(CHUNK_MARK, str(chunk)))
        (folder / f"val_retrieval_{chunk}_answer_key.json").write_text(key.replace(CHUNK_MARK, str(chunk)))
    return {
        "chunks": chunks,
        "instances": chunks * n * n,
        "json_gb": round(chunks * (len(instances) + len(key)) / GB, 2),
        "image_files": chunks * images_per_chunk,
    }


# ---------------------------------------------------------------- lmms-eval stages


_MANAGER = None


def load_task(name: str, root: Path):
    """The task as lmms-eval builds it from our YAML, on the data under ``root`` (the task index is built once)."""
    global _MANAGER
    from lmms_eval.tasks import get_task_dict

    os.environ["ABDUCTIVE_DATA"] = str(root)
    _MANAGER = _MANAGER or compat.task_manager()
    return get_task_dict([name], _MANAGER)[name]


def run_task(meter: Meter, prefix: str, name: str, root: Path, model) -> tuple:
    with meter.stage(f"{prefix}: process_docs (read + documents)") as facts:
        task = load_task(name, root)
        facts["documents"] = len(task.eval_docs)
    with meter.stage(f"{prefix}: build_all_requests") as facts:
        task.build_all_requests(limit=None, rank=0, world_size=1)
        facts["requests"] = len(task.instances)
    responses = None
    if model is not None:
        with meter.stage(f"{prefix}: model loglikelihood") as facts:
            model.task_dict = {name: task.dataset}
            responses = model.loglikelihood(task.instances)
            facts |= {
                name: getattr(model, name) for name in ("images_encoded", "texts_encoded") if hasattr(model, name)
            }
    return task, responses


def process_and_aggregate(meter: Meter, prefix: str, task, responses: list, logged: list | None = None) -> list[dict]:
    """The evaluator's steps after the model (lmms-eval 0.7.3 ``evaluate``): store the unwrapped (stringified)
    responses, apply the filters, ``process_results`` per document in document order, then every aggregation.
    ``logged``: a list to collect the samples ``--log_samples`` writes (None: not logged)."""
    from lmms_eval.api.instance import unwrap_generation_output
    from lmms_eval.evaluator import _process_document_results

    with meter.stage(f"{prefix}: process_results + aggregation") as facts:
        for instance, response in zip(task.instances, responses, strict=True):
            instance.resps.append(unwrap_generation_output(response)[0])
        task.apply_filters()
        by_doc: dict[int, list] = {}
        for instance in task.instances:
            by_doc.setdefault(instance.doc_id, []).append(instance)
        values: dict[str, list] = {}
        for doc_id, doc in enumerate(task.eval_docs_no_media):
            processed = _process_document_results(
                (doc_id, doc, by_doc[doc_id]),
                task=task,
                filter_key="none",
                reasoning_tags=None,
                log_samples=logged is not None,
            )
            if logged is not None:
                logged.append(processed.logged_sample)
            for metric, value in processed.metrics.items():
                values.setdefault(metric, []).append(value)
        aggregations = task.aggregation()
        results = {metric: aggregations[metric](items) for metric, items in values.items()}
        shown = ("retrieval_p_at_1", "retrieval_counts", "localization_gt_acc", "localization_counts")
        facts |= {name: results[name] for name in shown if name in results}
    return held_records(values.get("retrieval_counts", []))


def random_payloads(task, dim: int = 512) -> list[tuple[str, bool]]:
    """Stand-in model: random unit embeddings per row and column (``--model none``)."""
    rng = np.random.default_rng(0)
    table: dict = {}

    def unit(key) -> np.ndarray:
        if key not in table:
            vector = rng.standard_normal(dim).astype(np.float32)
            table[key] = vector / np.linalg.norm(vector)
        return table[key]

    docs = [task.eval_docs[instance.doc_id] for instance in task.instances]
    return [
        (encode_embeddings(unit(("r", doc["chunk"], doc["row"])), unit(("c", doc["chunk"], doc["col"]))), False)
        for doc in docs
    ]


def measure_per_pair(meter: Meter, args: argparse.Namespace, work: Path) -> dict:
    """Marginal cost of one request in the one-document-per-instance design: two sizes, the difference per request."""
    sizes = (2, args.per_pair_n // 2, args.per_pair_n)  # the first only warms lmms-eval and the hooks up
    costs = []
    for size in sizes:
        with meter.stage(f"per-pair {size}x{size}: synthesize data") as facts:
            facts |= synthesize(work / f"per_pair_{size}" / "sherlock", 1, size, min(args.images, size), seed=size)
        task, _ = run_task(meter, f"per-pair {size}x{size}", args.per_pair_task, work / f"per_pair_{size}", None)
        answer = "Score: 5" if task.OUTPUT_TYPE == "generate_until" else (-0.5, False)  # what a model would return
        process_and_aggregate(meter, f"per-pair {size}x{size}", task, [answer] * len(task.instances))
        stages = meter.rows[-3:]
        costs.append(
            (
                stages[1]["requests"],
                sum(row["seconds"] for row in stages),
                sum(row["rss_growth_gb"] for row in stages) * GB,
            )
        )
    (small, small_s, small_b), (large, large_s, large_b) = costs[1:]
    per_request_s, per_request_bytes = (large_s - small_s) / (large - small), (large_b - small_b) / (large - small)
    return {
        "requests": [small, large],
        "us_per_request": round(per_request_s * 1e6, 1),
        "kb_per_request": round(per_request_bytes / 1024, 2),
        "retrieval_23M": {
            "hours": round(per_request_s * FULL_RETRIEVAL_INSTANCES / 3600, 2),
            "gb": round(per_request_bytes * FULL_RETRIEVAL_INSTANCES / GB, 1),
        },
        "localization_2.37M": {
            "minutes": round(per_request_s * LOCALIZATION_INSTANCES / 60, 1),
            "gb": round(per_request_bytes * LOCALIZATION_INSTANCES / GB, 1),
        },
    }


def build_model(spec: str):
    """The model answering the factored task: a baseline, ``clip_scorer`` on a checkpoint folder, or None (``none``)."""
    if spec == "none":
        return None
    if spec in ("dumb_pixel", "random_baseline"):
        from abductive_tasks.models.baselines import DumbPixel, RandomBaseline

        return {"dumb_pixel": DumbPixel, "random_baseline": RandomBaseline}[spec]()
    from abductive_tasks.models.clip_scorer import ClipScorer

    return ClipScorer(pretrained=spec, device="cpu", batch_size=256)


# ---------------------------------------------------------------- localization: samples file and export


def _box(rng: np.random.Generator, width: int, height: int) -> dict:
    left, top = int(rng.integers(0, width // 2)), int(rng.integers(0, height // 2))
    return {
        "left": left,
        "top": top,
        "width": int(rng.integers(4, width - left)),
        "height": int(rng.integers(4, height - top)),
    }


def synthesize_localization(root: Path, images: int, inferences: int, proposals: int, seed: int) -> dict:
    """A val localization file in the official layout under ``root``: per image ``inferences`` inferences, each
    against every gt box (one per inference, the full grid) and against ``proposals`` detector boxes."""
    rng = np.random.default_rng(seed)
    folder = root / "images" / "VG_L"
    folder.mkdir(parents=True, exist_ok=True)
    instances, key = [], []
    for image in range(images):
        width, height = int(rng.integers(40, 72)), int(rng.integers(32, 56))
        Image.new("RGB", (width, height), tuple(int(v) for v in rng.integers(0, 256, 3))).save(folder / f"{image}.jpg")
        url = f"https://cs.stanford.edu/people/rak248/VG_L/{image}.jpg"
        head = f'"image": {{"url": "{url}", "width": {width}, "height": {height}}}'
        boxes = [json.dumps(_box(rng, width, height)) for _ in range(inferences + proposals)]
        for k in range(inferences):
            text = f"{' '.join(rng.choice(WORDS, 8))} {image}-{k}"
            answer = f'"type": "%s", "image": "VG_L/{image}.jpg", "inst_id": "{image}_{k}"'
            for b, box in enumerate(boxes):
                test_id = f"{int(rng.integers(1 << 62)):016x}{int(rng.integers(1 << 62)):016x}"
                instances.append(
                    f'{{{head}, "region": [{box}], "inference": "{text}", "test_id": "{test_id}", '
                    '"extra_info": {"task": "localization"}}'
                )
                if b < inferences:
                    fields = f'{answer % "gt"}, "bbox_idx": {b}, "correct": {"true" if b == k else "false"}'
                else:
                    fields = f'{answer % "auto"}, "IoU": {round(float(rng.random()), 4)}'
                key.append(f'"{test_id}": {{{fields}}}')
    out = root / "val_localization"
    out.mkdir(parents=True, exist_ok=True)
    (out / "val_localization_instances.json").write_text("[" + ",\n".join(instances) + "]")
    (out / "val_localization_answer_key.json").write_text("{" + ",\n".join(key) + "}")
    return {"images": images, "instances": len(instances)}


def random_matrices(task) -> list[tuple[str, bool]]:
    """Stand-in model: a random regions x inferences score matrix per document."""
    rng = np.random.default_rng(0)
    return [
        (encode_score_matrix(rng.standard_normal(localization.matrix_shape(task.eval_docs[i.doc_id]))), False)
        for i in task.instances
    ]


def export_cost(run_dir: Path, data_root: Path) -> dict:
    """``abductive-eval export-sherlock --split val`` on ``run_dir`` in a child process: its CPU and peak RSS."""
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "abductive_tasks.cli", "export-sherlock", str(run_dir)]
    command += ["--split", "val", "--out", str(run_dir / "export")]
    done = subprocess.run(command, env=os.environ | {"ABDUCTIVE_DATA": str(data_root)}, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"export failed: {done.stderr[-2000:]}")
    field = {name: re.search(rf"{name}[^:]*: ([\d.:]+)", done.stderr)[1] for name in ("User time", "System time")}
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)[1])
    return {
        "cpu_seconds": round(float(field["User time"]) + float(field["System time"]), 1),
        "peak_rss_gb": round(rss_kb / 2**20, 2),
    }


def measure_localization(meter: Meter, args: argparse.Namespace, work: Path) -> dict:
    """The factored localization route at full size: its samples file (written by lmms-eval) and its export."""
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    root = work / "localization"
    if not args.keep_data:
        with meter.stage("localization: synthesize data (not part of the protocol)") as facts:
            facts |= synthesize_localization(root / "sherlock", args.localization_images, 3, 100, seed=3)
    shutil.rmtree(work / "run", ignore_errors=True)
    task, _ = run_task(meter, "localization", "sherlock_localization", root, None)
    logged: list = []
    process_and_aggregate(meter, "localization", task, random_matrices(task), logged)
    with meter.stage("localization: samples file (lmms-eval's writer)") as facts:
        tracker = EvaluationTracker(output_path=str(work / "run"))
        tracker.general_config_tracker.model_name_sanitized, tracker.date_id = "bench", "20261127T000000"
        tracker.save_results_samples("sherlock_localization", logged)
        (path,) = (work / "run").rglob("*_samples_sherlock_localization.jsonl")
        facts["samples_mb"] = samples_mb = round(path.stat().st_size / 2**20, 1)
    with meter.stage("localization: export-sherlock (child process)") as facts:
        facts |= (export := export_cost(work / "run", root))
    return {"samples_mb": samples_mb, "export": export}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=23, help="retrieval chunks (official: 23)")
    parser.add_argument("--n", type=int, default=1000, help="instance ids per chunk (official: about 1000)")
    parser.add_argument("--images", type=int, default=400, help="distinct synthetic image files per chunk")
    parser.add_argument(
        "--per-pair-n", type=int, default=150, help="per-pair measurement: one chunk of N x N instances"
    )
    parser.add_argument(
        "--per-pair-task", default="sherlock_retrieval_rating", help="a task with one document per instance"
    )
    parser.add_argument("--factored-task", default="sherlock_retrieval")
    parser.add_argument(
        "--model",
        default="dumb_pixel",
        help="'dumb_pixel', 'random_baseline', a CLIP checkpoint folder, or 'none' (random embeddings)",
    )
    parser.add_argument(
        "--localization-images",
        type=int,
        default=7650,
        help="images of the localization file (7650 x 309 instances: the official test size); 0 skips it",
    )
    parser.add_argument("--skip-per-pair", action="store_true")
    parser.add_argument("--skip-factored", action="store_true")
    parser.add_argument(
        "--keep-data", action="store_true", help="reuse the synthetic data an earlier run left in --workdir"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="where the synthetic data go (default: a temp dir, removed afterwards)",
    )
    return parser.parse_args()


class DecodeCounter:
    """PIL.Image as abductive_tasks.inputs.images sees it, counting the files it decodes."""

    def __init__(self) -> None:
        self.opened: Counter = Counter()

    def __getattr__(self, name: str):
        return getattr(Image, name)

    def open(self, path, *rest, **kwargs):
        self.opened[str(path)] += 1
        return Image.open(path, *rest, **kwargs)


def measure_factored(meter: Meter, args: argparse.Namespace, work: Path) -> dict:
    """The factored retrieval protocol at full size: loading, requests, model, process_results, aggregation."""
    if not args.keep_data:
        with meter.stage("factored: synthesize data (not part of the protocol)") as facts:
            facts |= synthesize(work / "full" / "sherlock", args.chunks, args.n, args.images, seed=2)
    model = build_model(args.model)
    counter = image_module.Image = DecodeCounter()
    try:
        start = time.perf_counter()
        task, responses = run_task(meter, "factored", args.factored_task, work / "full", model)
        if responses is None:
            responses = random_payloads(task)
        records = process_and_aggregate(meter, "factored", task, responses)
        protocol_seconds = time.perf_counter() - start
    finally:
        image_module.Image = Image
    with meter.stage("factored: submission scores of every chunk (export)") as facts:
        chunks = data.factored_chunks(work / "full" / "sherlock", "val")
        exported = [
            factored_retrieval.submission_scores(chunk, scored.scores)
            for chunk, scored in zip(chunks, factored_retrieval.chunk_scores(records), strict=True)
        ]
        facts["scores"] = sum(len(scores) for scores in exported)
    stages = [row for row in meter.rows if row["stage"].startswith("factored:")]
    return {
        "protocol_seconds": round(protocol_seconds, 1),
        "requests_and_aggregation_seconds": round(
            sum(row["seconds"] for row in stages if row["stage"].startswith(("factored: process", "factored: build"))),
            1,
        ),
        "peak_rss_gb": max(row["peak_rss_gb"] for row in stages),
        "image_files_decoded": len(counter.opened),
        "max_decodes_per_file": max(counter.opened.values(), default=0),
    }


def main() -> None:
    args = parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="sherlock-scale-"))
    meter = Meter()
    try:
        summary: dict = {
            "machine": f"{psutil.cpu_count()} cores, {round(psutil.virtual_memory().total / 2**30)} GB RAM"
        }
        if not args.skip_per_pair:
            summary["per_pair"] = measure_per_pair(meter, args, work)
            print(json.dumps({"per_pair_extrapolation": summary["per_pair"]}), flush=True)
        if not args.skip_factored:
            summary["factored"] = measure_factored(meter, args, work)
        if args.localization_images:
            summary["localization"] = measure_localization(meter, args, work)
        print(json.dumps({"summary": summary}, indent=1))
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
