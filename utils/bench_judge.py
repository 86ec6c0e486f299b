#!/usr/bin/env python
"""The judged metrics at the judge server's pace: wall time, requests in flight, and the floor they cannot beat.

    python utils/bench_judge.py                                   # 0.5 s and 2 s judges, concurrency 16 and 32
    python utils/bench_judge.py --latency 0.5 --concurrency 16 --benchmarks mucr
    python utils/bench_judge.py --over-cap 32 16                  # judge concurrency 32 against a server serving 16
    PYTHONPATH=<checkout of the code before> python utils/bench_judge.py --latency 0.5   # the code before

Synthetic documents at the papers' size, no images: NL-Eye 350 items (700 triplet documents, both hypothesis orders;
the model is right in every one and explains each in its own words, so every document's explanation is judged, §4.2:
700 questions) and MuCR 400 pairs (``mucr_exp_gold``: a labelled three-part explanation per pair, S1-S3 each judged,
Eq. 6-8: 1,200 questions). The judge is ``tests/helpers/openai_stub.py``, the scripted OpenAI-compatible server of the
tests, in a process of its own on 127.0.0.1, with a fixed latency per request and a cap on the requests it serves at
once (beyond it: 429 with ``Retry-After: 1``); its verdicts are a function of the prompt, so every configuration must
print the same metrics (and the same digest of the records).

Each row runs what lmms-eval runs after inference: the task's ``process_results`` over every document in lmms-eval's
own result threads (``lmms_eval.evaluator._thread_map_ordered``, as many as ``abductive-eval`` passes as
``--process_docs_parallel``: twice the judge concurrency; 4, lmms-eval's default, in the code before), then the
aggregation; the judged wall time
is that phase's. The floor is ``requests x latency / concurrency`` (the server's cap), which no client can beat. A
fresh reply cache per row, so every row asks every question. Not a test: wall times depend on the machine's load
(printed); the requests in flight are counts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the tests' scripted server

from helpers.openai_stub import OpenAIStub, message_text  # noqa: E402

NLEYE_ITEMS, MUCR_PAIRS = 350, 400  # the papers' sizes
RETRY_AFTER = 1.0  # seconds the capped stub's 429 asks to wait
CATEGORIES = ("physical", "functional", "logical", "emotional", "cultural", "social")


@dataclass(frozen=True)
class Judged:
    """One judged task: its documents and the model's answers, process_results, aggregation and headline metric."""

    task: str
    docs: list[dict]
    answers: list[str]
    process: Callable
    aggregate: Callable
    headline: str


def nleye_case() -> Judged:
    from abductive_tasks.nleye import hooks

    items = [
        {
            "item_id": str(number),
            "premise_image": f"{number}/premise.png",
            "hypothesis_images": [f"{number}/hypothesis1.png", f"{number}/hypothesis2.png"],
            "descriptions": [f"Premise scene {number}.", f"Hypothesis one {number}.", f"Hypothesis two {number}."],
            "gold": 1 + number % 2,
            "gold_explanation": f"The reason behind scene {number}.",
            "crowd_explanations": [],  # the release's CSV without approved crowd explanations: the gold one only
            "reasoning_category": CATEGORIES[number % 6],
            "domain": "home",
            "time_direction": "forward",
            "time_duration": "short-term",
        }
        for number in range(NLEYE_ITEMS)
    ]
    docs = list(hooks.triplet_docs_from(items))
    answers = [
        f"{doc['gold_position']}. In order {int(doc['swapped'])}, scene {doc['item_id']} follows." for doc in docs
    ]
    return Judged(
        "nleye_triplet", docs, answers, hooks.process_results_triplet, hooks.aggregate_triplet, "explanation_valid_rate"
    )


def mucr_case() -> Judged:
    from abductive_tasks.inputs.loading import Loaded, documents
    from abductive_tasks.mucr import hooks
    from abductive_tasks.mucr.data import NO_LINK_ID

    def annotation(pair: int, writer: int) -> str:
        return (
            f"Cause image: person {pair} seen by writer {writer}. Effect image: outcome {pair} follows. "
            f"Causal link: cue {pair} links them."
        )

    items = [
        {
            "item_id": str(pair),
            "label": ("human", "animal", "character")[pair % 3],
            "style": ("photograph", "comic")[pair % 2],
            "cue": f"cue {pair}",
            "references": [annotation(pair, writer) for writer in range(3)],
            "cause_image": f"{pair}_0.jpg",
            "effect_image": f"{pair}_1.jpg",
            "distractors": [str((pair + step) % MUCR_PAIRS) for step in (1, 2, 3)],
        }
        for pair in range(MUCR_PAIRS)
    ]
    # Synthetic pairs, their candidate sets given: none drawn by the seeded rule for want of link ids.
    docs = list(hooks.exp_docs_from(Loaded("synthetic", documents(items), quirks={NO_LINK_ID: 0})))
    answers = [
        f"Cause image: a model sees pair {doc['item_id']}. Effect image: its result. Causal link: one led to the other."
        for doc in docs
    ]
    return Judged("mucr_exp_gold", docs, answers, hooks.process_results_exp, hooks.aggregate_exp, "exp_score")


CASES = {"nleye": nleye_case, "mucr": mucr_case}


def verdict(body: dict) -> str:
    """The stub judge's reply: a function of the prompt (MuCR: a 0-10 score; NL-Eye: a class 0-2)."""
    text = message_text(body)
    digest = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
    return f"Score: {digest % 11}" if "Rate the semantic similarity" in text else str(digest % 3)


def serve(latency: float, cap: int, connection: Connection) -> None:
    """The stub judge in a process of its own (its CPU is not the client's): sends its URL, serves until told to stop,
    then sends (requests, peak in flight, 429s)."""
    with OpenAIStub(verdict, latency=latency, max_in_flight=cap, retry_after=RETRY_AFTER) as stub:
        connection.send(stub.url)
        connection.recv()
        connection.send((len(stub.requests), stub.peak_in_flight, stub.rejections))


@contextmanager
def judge_server(latency: float, cap: int) -> Iterator[tuple[str, dict]]:
    """The URL of a stub judge serving in a child process, and (after the block) its counts."""
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(target=serve, args=(latency, cap, theirs), daemon=True)
    server.start()
    counts: dict = {}
    try:
        yield ours.recv(), counts
    finally:
        ours.send("stop")
        counts["requests"], counts["peak_in_flight"], counts["429s"] = ours.recv()
        server.join(timeout=10)


def result_threads(task: str) -> int:
    """The ``--process_docs_parallel`` abductive-eval runs ``task`` with (lmms-eval's default 4 in the code before)."""
    from abductive_tasks import cli

    if not hasattr(cli, "with_judge_threads"):
        return 4
    argv = cli.with_judge_threads(["--model", "bench", "--tasks", task], task)
    return int(argv[-1]) if "--process_docs_parallel" in argv else 4


def run(case: Judged, latency: float, concurrency: int, cap: int, work: Path) -> dict:
    """One judged phase against a judge of ``latency`` s serving ``cap`` requests at once, asked with
    ``ABDUCTIVE_JUDGE_CONCURRENCY=concurrency``."""
    from lmms_eval.evaluator import _thread_map_ordered

    from abductive_tasks.scoring import judge
    from abductive_tasks.scoring.taskspec import clear_cache

    cache = Path(tempfile.mkdtemp(prefix="judge-cache-", dir=work))
    with judge_server(latency, cap) as (url, served):
        os.environ |= {
            "ABDUCTIVE_JUDGE": "on",
            "API_TYPE": "openai",
            "OPENAI_API_URL": url,
            "OPENAI_API_KEY": "bench",
            "MODEL_VERSION": "bench-judge",
            "ABDUCTIVE_JUDGE_CACHE": str(cache),
            "ABDUCTIVE_JUDGE_CONCURRENCY": str(concurrency),
            "NO_PROXY": "127.0.0.1,localhost",
        }
        judge._judges.clear()
        clear_cache()
        threads = result_threads(case.task)
        load = os.getloadavg()[0]
        cpu = time.process_time()
        start = time.perf_counter()
        results = _thread_map_ordered(
            lambda pair: case.process(pair[0], [pair[1]]),
            list(zip(case.docs, case.answers, strict=True)),
            max_workers=threads,
        )
        values = case.aggregate([result[case.headline] for result in results])
        counts_name = next(name for name in results[0] if name.endswith("_counts"))
        counts = case.aggregate([result[counts_name] for result in results])
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu
    requests, peak, rejections = served["requests"], served["peak_in_flight"], served["429s"]
    floor = requests * latency / cap
    records = [result[case.headline][1] for result in results]
    digest = hashlib.sha256(json.dumps(records, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return {
        "task": case.task,
        "latency_s": latency,
        "judge_concurrency": concurrency,
        "server_cap": cap,
        "result_threads": threads,
        "requests": requests,
        "429s": rejections,
        "peak_in_flight": peak,
        "wall_s": round(wall, 1),
        "floor_s": round(floor, 1),
        "ratio_to_floor": round(wall / floor, 3) if floor else None,
        "client_cpu_ms_per_request": round(1000 * cpu / requests, 2) if requests else None,
        case.headline: round(values, 6) if isinstance(values, float) else values,
        "counts": {key: value for key, value in counts.items() if "judge" in key or key.endswith("judged")},
        "records_digest": digest,
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmarks", nargs="+", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--latency", nargs="+", type=float, default=[0.5, 2.0], help="seconds per judge request")
    parser.add_argument(
        "--concurrency", nargs="+", type=int, default=[16, 32], help="ABDUCTIVE_JUDGE_CONCURRENCY = the server's cap"
    )
    parser.add_argument(
        "--over-cap",
        nargs=2,
        type=int,
        metavar=("CONCURRENCY", "CAP"),
        help="also a row asking CONCURRENCY at once of a server serving CAP (429 beyond), at the first latency",
    )
    args = parser.parse_args(argv)
    import abductive_tasks

    print(f"# code: {Path(abductive_tasks.__file__).parent}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# {os.cpu_count()} CPUs, load {' '.join(f'{value:.2f}' for value in os.getloadavg())}", flush=True)
    configurations = [
        (latency, concurrency, concurrency) for latency in args.latency for concurrency in args.concurrency
    ]
    if args.over_cap:
        configurations.append((args.latency[0], *args.over_cap))
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-judge-") as work:
        for name in args.benchmarks:
            case = CASES[name]()
            for latency, concurrency, cap in configurations:
                rows.append(run(case, latency, concurrency, cap, Path(work)))
                print(json.dumps(rows[-1]), flush=True)
    header = f"{'task':<15}{'latency':>8}{'conc.':>6}{'cap':>5}{'threads':>8}{'requests':>9}{'429s':>6}"
    header += f"{'peak':>6}{'wall s':>8}{'floor s':>8}{'ratio':>7}  records"
    print(f"\n{header}")
    for row in rows:
        print(
            f"{row['task']:<15}{row['latency_s']:>8}{row['judge_concurrency']:>6}{row['server_cap']:>5}"
            f"{row['result_threads']:>8}{row['requests']:>9}{row['429s']:>6}{row['peak_in_flight']:>6}"
            f"{row['wall_s']:>8}{row['floor_s']:>8}{row['ratio_to_floor']:>7}  {row['records_digest']}"
        )
    ratios = [row["ratio_to_floor"] for row in rows if row["ratio_to_floor"]]
    if ratios:
        print(f"(ratio to floor: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
