"""What the bootstrap intervals cost: a measurement, not a test.

1. Full size: synthetic records of NL-Eye's size (350 items x 2 documents: triplet with judged
   explanations, pairs) and DVE's (1,800 rows, 900 premise-hypothesis pairs: dve_cls, and dve_gen
   with ROUGE-L and corpus BLEU-4; its model-based metrics off), through the real task specs:
   each family's whole aggregation (``spec.evaluate``) with ``ABDUCTIVE_BOOTSTRAP=0`` and with the
   default, the difference being the intervals. Target: under 10 s.
2. The sample: one ``abductive-eval`` run of the given tasks on ``ABDUCTIVE_DATA=sample`` with
   ``--log_samples``; each task's aggregation is recomputed from its samples JSONL with and without
   intervals, and their cost is set against the run's wall time. Target: under 2%. ``--ab`` also
   times whole runs with ``ABDUCTIVE_BOOTSTRAP=0`` and the default, alternating (whole-run times
   on a shared machine vary by more than the intervals cost, so the recomputed cost is the figure
   to read).

    python utils/bench_intervals.py [--tasks nleye,mucr,dve,sherlock] [--ab] [--skip-run]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from abductive_tasks import settings
from abductive_tasks.reports.samples import SamplesError, read_samples, task_of
from abductive_tasks.scoring.taskspec import TaskSpec

OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "ABDUCTIVE_JUDGE": "off",
    "WANDB_MODE": "disabled",
}
MODELS_OFF = {"ABDUCTIVE_BERTSCORE_MODEL": "off", "ABDUCTIVE_CLIP_MODEL": "off", "ABDUCTIVE_DVE_EVALUATOR": "off"}


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def aggregation_times(spec: TaskSpec, records: list[dict]) -> tuple[float, float]:
    """Seconds of the family's aggregation without and with intervals, after a warm-up call (imports, kernels).

    Every call is uncached: the cache key holds the resamples and the seed.
    """
    with settings.environment_restored({"ABDUCTIVE_BOOTSTRAP": "0", "ABDUCTIVE_BOOTSTRAP_SEED": "1"}):
        spec.evaluate(records)
    with settings.environment_restored({"ABDUCTIVE_BOOTSTRAP": "0"}):
        without = timed(lambda: spec.evaluate(records))
    return without, timed(lambda: spec.evaluate(records))


# ---------------------------------------------------------------- synthetic full-size records

CATEGORIES = ("physical", "functional", "logical", "emotional", "cultural", "social")
DIRECTIONS = (("forward", "short-term"), ("backward", "long-term"), ("parallel", "unspecified"))


def nleye_triplet_records(rng: np.random.Generator, items: int = 350) -> list[dict]:
    """Both orders of every item; a correct prediction's explanation judged valid half the time."""
    records = []
    for index in range(items):
        direction, duration = DIRECTIONS[index % 3]
        for position in (1, 2):
            correct = bool(rng.random() < 0.6)
            records.append(
                {
                    "item_id": f"{index}",
                    "gold_position": position,
                    "prediction": position if correct else 3 - position,
                    "correct": correct,
                    "reasoning_category": CATEGORIES[index % 6],
                    "time_direction": direction,
                    "time_duration": duration,
                    "swapped": position == 2,
                    "judge_configured": True,
                    "explanation": "ok" if correct else None,
                    "explanation_valid": bool(rng.random() < 0.5) if correct else None,
                    "answer_status": "parsed",
                }
            )
    return records


def nleye_pairs_records(rng: np.random.Generator, items: int = 350) -> list[dict]:
    records = []
    for index in range(items):
        direction, duration = DIRECTIONS[index % 3]
        for gold in (index % 2 == 0, index % 2 == 1):
            rating = int(rng.integers(1, 11)) if rng.random() < 0.95 else None
            records.append(
                {
                    "item_id": f"{index}",
                    "is_gold": gold,
                    "rating": rating,
                    "reasoning_category": CATEGORIES[index % 6],
                    "time_direction": direction,
                    "time_duration": duration,
                    "answer_status": "parsed" if rating is not None else "unparsable",
                }
            )
    return records


WORDS = (
    "the man woman dog street rain umbrella runs holds wet smiles car crowd light night morning because after".split()
)


def sentence(rng: np.random.Generator) -> str:
    return " ".join(rng.choice(WORDS, size=int(rng.integers(6, 14))))


def dve_cls_records(rng: np.random.Generator, pairs: int = 900) -> list[dict]:
    """Two updates per pair (one of each type), as DVE's dev split has about 1,800 rows."""
    records = []
    for pair in range(pairs):
        for update_type in ("strengthener", "weakener"):
            correct = bool(rng.random() < 0.7)
            other = "weakener" if update_type == "strengthener" else "strengthener"
            records.append(
                {
                    "item_id": f"{pair}-{update_type}",
                    "pair_id": f"{pair}",
                    "update_type": update_type,
                    "prediction": update_type if correct else other,
                    "correct": correct,
                    "impossible_excluded": 0,
                    "answer_status": "parsed",
                }
            )
    return records


def dve_gen_records(rng: np.random.Generator, image: Path, pairs: int = 900) -> list[dict]:
    """One document per pair and goal, three reference updates each (``image``: every document's premise image)."""
    return [
        {
            "item_id": f"{pair}-{goal}",
            "pair_id": f"{pair}",
            "goal": goal,
            "prediction": sentence(rng),
            "references": [sentence(rng) for _ in range(3)],
            "image_path": str(image),
            "premise": sentence(rng),
            "hypothesis": sentence(rng),
            "impossible_excluded": 0,
            "goals_skipped": 0,
            "answer_status": "parsed",
        }
        for pair in range(pairs)
        for goal in ("strengthener", "weakener")
    ]


def full_size() -> list[tuple[str, int, float, float]]:
    """(family, documents, seconds without intervals, seconds with) for every full-size input available."""
    from abductive_tasks.nleye.hooks import PAIRS, TRIPLET

    rng = np.random.default_rng(0)
    inputs: list[tuple[TaskSpec, list[dict]]] = [
        (TRIPLET, nleye_triplet_records(rng)),
        (PAIRS, nleye_pairs_records(rng)),
    ]
    try:
        from abductive_tasks.dve.hooks import CLS, GEN
    except ImportError:
        print("DVE task specs not found (abductive_tasks.dve.hooks.CLS/GEN): DVE-sized input skipped")
    else:
        image = Path(tempfile.mkdtemp()) / "premise.png"
        Image.new("RGB", (64, 48), "gray").save(image)
        inputs += [(CLS, dve_cls_records(rng)), (GEN, dve_gen_records(rng, image))]
    with settings.environment_restored({**OFFLINE, **MODELS_OFF}):
        return [(spec.name, len(records), *aggregation_times(spec, records)) for spec, records in inputs]


# ---------------------------------------------------------------- the sample


def run_sample(tasks: str, output: Path, resamples: str | None) -> float:
    """Wall seconds of one ``abductive-eval`` run on the sample (random_baseline, samples logged)."""
    command = [
        str(Path(sys.executable).with_name("abductive-eval")),
        "--model",
        "random_baseline",
        "--tasks",
        tasks,
        "--log_samples",
        "--output_path",
        str(output),
    ]
    env = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample"}
    if resamples is not None:
        env["ABDUCTIVE_BOOTSTRAP"] = resamples
    start = time.perf_counter()
    completed = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if completed.returncode != 0:
        raise SystemExit(f"abductive-eval failed ({completed.returncode}):\n{completed.stderr[-3000:]}")
    return wall


def sample_costs(output: Path) -> list[tuple[str, int, float, float]]:
    """(task, documents, seconds without intervals, seconds with),
    recomputed from every samples file under ``output``."""
    rows = []
    with settings.environment_restored({**OFFLINE, "ABDUCTIVE_DATA": "sample"}):
        for path in sorted(output.rglob("*_samples_*.jsonl")):
            try:
                samples = read_samples(path)
            except SamplesError as error:
                print(f"{task_of(path)}: not recomputed ({error})")
                continue
            rows.append(
                (samples.task or path.name, len(samples.records), *aggregation_times(samples.spec, samples.records))
            )
    return rows


def table(rows: list[tuple[str, int, float, float]], first: str) -> str:
    lines = [
        f"| {first} | documents | aggregation without intervals (s) | with intervals (s) | intervals (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {documents} | {without:.3f} | {with_:.3f} | {with_ - without:.3f} |"
        for name, documents, without, with_ in rows
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tasks",
        default="nleye,mucr,dve,sherlock",
        help="tasks or groups of the sample run (default: nleye,mucr,dve,sherlock)",
    )
    parser.add_argument(
        "--ab", action="store_true", help="also time whole runs with ABDUCTIVE_BOOTSTRAP=0 and the default, alternating"
    )
    parser.add_argument("--skip-run", action="store_true", help="full-size input only")
    args = parser.parse_args()
    print(f"ABDUCTIVE_BOOTSTRAP={settings.bootstrap_resamples()} resamples, {os.cpu_count()} CPUs\n")

    rows = full_size()
    print("## Full size (synthetic records, real task specs)\n")
    print(table(rows, "family"))
    print(
        f"\ntotal with intervals: {sum(row[3] for row in rows):.2f} s; intervals: "
        f"{sum(row[3] - row[2] for row in rows):.2f} s\n"
    )
    if args.skip_run:
        return

    with tempfile.TemporaryDirectory() as folder:
        wall = run_sample(args.tasks, Path(folder) / "default", None)
        rows = sample_costs(Path(folder) / "default")
        intervals = sum(row[3] - row[2] for row in rows)
        print(f"## Sample run: --tasks {args.tasks} (random_baseline)\n")
        print(table(rows, "task"))
        print(
            f"\nrun wall time {wall:.1f} s; intervals of all {len(rows)} tasks {intervals:.3f} s = "
            f"{100 * intervals / wall:.2f}% of it"
        )
        if args.ab:  # alternating, so that warm caches favour neither setting
            walls: dict[str, list[float]] = {"default": [wall], "ABDUCTIVE_BOOTSTRAP=0": []}
            for round_ in range(2):
                walls["ABDUCTIVE_BOOTSTRAP=0"].append(run_sample(args.tasks, Path(folder) / f"off{round_}", "0"))
                walls["default"].append(run_sample(args.tasks, Path(folder) / f"on{round_}", None))
            for name, times in walls.items():
                print(
                    f"whole runs, {name}: {', '.join(f'{time:.1f}' for time in times)} s (median "
                    f"{np.median(times):.1f} s)"
                )


if __name__ == "__main__":
    main()
