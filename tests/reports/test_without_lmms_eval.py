"""show, diff, browse and leaderboard (its staleness checks included) read our task metadata from our own YAML and
specs: they work in a process where torch, transformers and lmms-eval's task index cannot be imported (nor matplotlib,
so that the leaderboard skips its plots and the test stays short)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from abductive_tasks.lmms_source import samples_path
from abductive_tasks.nleye.hooks import TRIPLET
from abductive_tasks.runs.identity import build_identity, data_fingerprint
from abductive_tasks.runs.identity_record import RUN_RECORD, RUNS_DIR, SPEC_RECORD, IdentityRecord
from abductive_tasks.runs.task_index import TaskIndex

BLOCKER = '''
import importlib.abc, importlib.machinery, sys

BLOCKED = ("torch", "transformers", "lmms_eval.tasks", "matplotlib")  # matplotlib: plots are skipped (faster)
attempts = []


class Unimportable(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the blocked modules (probes see them) and refuses to load them, noting each attempt."""

    def find_spec(self, name, path=None, target=None):
        blocked = any(name == top or name.startswith(top + ".") for top in BLOCKED)
        return importlib.machinery.ModuleSpec(name, self) if blocked else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        attempts.append(module.__name__)
        raise ImportError(f"{module.__name__} is made unimportable by the test")


sys.meta_path.insert(0, Unimportable())
'''

DRIVER = """
import json, sys
from pathlib import Path
import sitecustomize
from abductive_tasks.cli import main
folder = Path(sys.argv[1])
codes = {
    "show": main(["show", str(folder / "a")]),
    "diff": main(["diff", str(folder / "a"), str(folder / "b"), "-o", str(folder / "diff.html")]),
    "browse": main(["browse", str(folder / "a"), "-o", str(folder / "browse.html")]),
    "leaderboard": main(["leaderboard", str(folder / "board")]),
}
print("RESULT " + json.dumps({"codes": codes, "attempts": sitecustomize.attempts}))
"""


def triplet_records(right: list[bool]) -> list[dict]:
    """NL-Eye triplet records (two orders per item), as a run without an LLM judge logs them."""
    return [
        {
            "item_id": f"i{index // 2}",
            "gold_position": 1 + index % 2,
            "prediction": (1 + index % 2) if correct else 2 - index % 2,
            "correct": correct,
            "reasoning_category": ("physical", "social")[index // 2 % 2],
            "time_direction": "forward",
            "time_duration": "short-term",
            "swapped": index % 2 == 1,
            "judge_configured": False,
            "explanation": None,
            "explanation_valid": None,
            "answer_status": "parsed",
        }
        for index, correct in enumerate(right)
    ]


def write_run(folder: Path, records: list[dict]) -> Path:
    """An lmms-eval run folder of nleye_triplet: its results JSON (from the spec, as the aggregation computes it)
    and its samples JSONL."""
    folder.mkdir(parents=True)
    values = json.loads(json.dumps(TRIPLET.evaluate(records)))
    results = {
        "model_name": "random_baseline",
        "config": {"model": "random_baseline", "model_args": "", "limit": None},
        "results": {"nleye_triplet": {f"{name},none": value for name, value in values.items()}},
        "n-samples": {"nleye_triplet": {"original": len(records), "effective": len(records)}},
    }
    path = folder / "20260101_000000_results.json"
    path.write_text(json.dumps(results))
    lines = [
        {
            "doc_id": index,
            "target": str(record["gold_position"]),
            "filtered_resps": [str(record["prediction"])],
            **{name: [name, record] for name in TRIPLET.metric_names},
        }
        for index, record in enumerate(records)
    ]
    samples_path(path, "nleye_triplet").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def write_board(results: Path, records: dict[str, list[dict]]) -> None:
    """A batch results folder: one model folder per entry, with the spec and run records the batch writes."""
    identity = build_identity(
        model={"route": "lmms", "backend": "random_baseline", "vllm": None},
        model_args="",
        eval_args=["--log_samples"],
        env={},
        environment={},
        judge=None,
        tasks={"nleye_triplet": {"benchmark": "nleye", "version": TaskIndex().facts("nleye_triplet").version}},
        data={"nleye": data_fingerprint("nleye", "sample")},
    )
    for model, model_records in records.items():
        IdentityRecord(identity, None, ("nleye_triplet",), model, "spec.yaml").write(results / model / SPEC_RECORD)
        run = results / model / RUNS_DIR / "01"
        IdentityRecord(identity, None, ("nleye_triplet",), model, "spec.yaml", 0).write(run / RUN_RECORD)
        write_run(run / "random_baseline", model_records)


def test_the_reporting_tools_work_without_torch_transformers_or_the_task_index(tmp_path):
    right_a = [True, True, False, True, True, False, False, True]
    right_b = [True, False, False, True, True, True, False, True]
    write_run(tmp_path / "a", triplet_records(right_a))
    write_run(tmp_path / "b", triplet_records(right_b))
    write_board(tmp_path / "board", {"model-a": triplet_records(right_a), "model-b": triplet_records(right_b)})
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER)
    environment = {"PYTHONPATH": str(site), "ABDUCTIVE_CACHE": str(tmp_path / "cache"), "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, **environment},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.rpartition("RESULT ")[2])
    assert result["codes"] == {"show": 0, "diff": 0, "browse": 0, "leaderboard": 0}
    assert set(result["attempts"]) <= {"matplotlib"}
    assert "| nleye_triplet | consistency_acc" in done.stdout  # show found the headline in our YAML
    assert "nleye_triplet: 2 of 8 documents differ (A right, B wrong: 1; A wrong, B right: 1)" in done.stdout
    board = (tmp_path / "board" / "leaderboard" / "leaderboard.csv").read_text()
    assert "model-a,50.0" not in board and "nleye_triplet__consistency_acc" in board
    assert "stale" not in board and "unverified" not in board  # the staleness and sample checks ran and passed
