"""The leaderboard report on hand-written batch folders: values, later runs winning, plots, paper-reported rows apart;
a cell comes only from runs of the spec's identity, and a limited, failed or failed-request run is marked, never a score."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from PIL import Image

from abductive_tasks.identity import RUN_RECORD, RUNS_DIR, SPEC_RECORD, Record, build_identity
from abductive_tasks.leaderboard import PAPER_REPORTED, REFERENCE, collect, main, write_report
from abductive_tasks.suite import Suite

TASKS = ("nleye_triplet", "nleye_pairs")


def identity(data_root: str = "/data/a") -> dict:
    return build_identity(
        model={"route": "lmms", "backend": "dummy", "vllm": None},
        model_args="response=1",
        eval_args=[],
        env={},
        environment={},
        judge=None,
        tasks={task: {"benchmark": "nleye", "version": "2.0"} for task in TASKS},
        data={"nleye": {"root": f"{data_root}/nleye"}},
    )


def write_spec(results: Path, model: str, spec_path: str = "spec.yaml") -> None:
    Record(identity(), None, TASKS, model, spec_path).write(results / model / SPEC_RECORD)


def write_run(results: Path, model: str, run: str, task_results: dict | None, limit: int | None = None, data_root: str = "/data/a", exit_status: int = 0) -> Path:
    """One batch run folder (its identity, then lmms-eval's results file) whose results are ``run`` seconds old-ordered."""
    folder = results / model / RUNS_DIR / run
    asked = tuple(task for task in TASKS if task_results is None or task in task_results)
    Record(identity(data_root), limit, asked, model, "spec.yaml", exit_status).write(folder / RUN_RECORD)
    if task_results is None:
        return folder
    path = folder / "dummy" / f"{run}_results.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"results": task_results, "config": {"model": "dummy", "model_args": "response=1", "limit": limit}}))
    os.utime(path, (1_800_000_000 + int(run[:2]), 1_800_000_000 + int(run[:2])))  # later runs are newer
    return path


def triplet(acc: float, physical: float, failed: int = 0) -> dict:
    return {
        "alias": "nleye_triplet",
        "consistency_acc,none": acc,
        "consistency_acc_stderr,none": "N/A",
        "order1_acc,none": 0.9,
        "consistency_by_category,none": {"physical": {"acc": physical, "n": 2}, "social": {"acc": 0.0, "n": 2}},
        "triplet_counts,none": {"documents": 24, "request_failed": failed, "unparsable": 0},
    }


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict[str, Path]:
    results = tmp_path_factory.mktemp("results")
    for model in ("model-a", "model-b"):
        write_spec(results, model)
    write_run(results, "model-a", "01-run1", {"nleye_triplet": triplet(0.25, 0.5)})
    write_run(results, "model-a", "02-run2", {"nleye_pairs": {"order_faithful_acc,none": 0.75}})
    write_run(results, "model-b", "01-run1", {"nleye_triplet": triplet(0.1, 1.0), "not_ours": {"acc,none": 1.0}})
    write_run(results, "model-b", "03-rerun", {"nleye_triplet": triplet(0.5, 0.0)})  # a rerun: its numbers replace the older ones
    return write_report(results, suite=Suite())


def test_csv_one_row_per_model_with_headline_metrics(report):
    rows = list(csv.reader(report["csv"].open()))
    assert rows == [
        ["model", "nleye_triplet (consistency_acc)", "nleye_pairs (order_faithful_acc)"],
        ["model-a", "0.2500", "0.7500"],
        ["model-b", "0.5000", ""],
    ]


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """Every way a results file may not be a score, one model folder each (issue 11)."""
    results = tmp_path_factory.mktemp("integrity")
    for model in ("clean", "smoke-beside-full", "smoke-only", "failed-requests", "other-data", "crashed", "damaged-newest", "damaged-spec"):
        write_spec(results, model, spec_path=str(results / "spec.yaml"))
    (results / "spec.yaml").write_text("{}")
    write_run(results, "clean", "01-full", {"nleye_triplet": triplet(0.5833, 0.5), "nleye_pairs": {"order_faithful_acc,none": 0.5}})
    write_run(results, "smoke-beside-full", "01-full", {"nleye_triplet": triplet(0.5833, 0.5)})
    write_run(results, "smoke-beside-full", "02-smoke", {"nleye_triplet": triplet(1.0, 1.0)}, limit=2)
    write_run(results, "smoke-only", "01-smoke", {"nleye_triplet": triplet(1.0, 1.0)}, limit=2)
    write_run(results, "failed-requests", "01-full", {"nleye_triplet": triplet(0.0, 0.0, failed=3)})
    write_run(results, "other-data", "01-full", {"nleye_triplet": triplet(0.5833, 0.5)})
    write_run(results, "other-data", "02-new-data", {"nleye_triplet": triplet(0.9, 1.0)}, data_root="/data/b")
    write_run(results, "crashed", "01-full", None, exit_status=1)
    write_run(results, "crashed", "02-interrupted", None, exit_status=None)  # no exit recorded: running or killed, not a failure
    write_run(results, "damaged-newest", "01-full", {"nleye_triplet": triplet(0.5833, 0.5)})
    truncated = write_run(results, "damaged-newest", "02-full", {"nleye_triplet": triplet(0.1, 0.5)})
    truncated.write_text(truncated.read_text()[:120])
    (results / "damaged-spec" / SPEC_RECORD).write_text("[]")
    write_results_without_identity = results / "plain" / "dummy" / "20260101_results.json"
    write_results_without_identity.parent.mkdir(parents=True)
    write_results_without_identity.write_text(json.dumps({"results": {"nleye_triplet": triplet(1.0, 1.0)}}))
    return results, truncated, collect(results, Suite())


def test_cells_come_only_from_the_spec_identity_and_marks_stand_for_non_scores(board):
    _, _, board = board
    assert {model: [board.cell(model, task) for task in TASKS] for model in board.rows} == {
        "clean": ["0.5833", "0.5000"],
        "crashed": ["run failed", "run failed"],
        "damaged-newest": ["0.5833", "—"],
        "failed-requests": ["3 failed requests", "—"],
        "other-data": ["0.5833", "—"],
        "smoke-beside-full": ["0.5833", "—"],
        "smoke-only": ["limited (limit=2)", "—"],
    }
    assert board.breakdowns()[("nleye_triplet", "consistency_by_category")].keys() == {"clean", "damaged-newest", "other-data", "smoke-beside-full"}


def test_what_is_not_read_is_named_with_the_fix(board, capsys):
    results, truncated, board = board
    notes = "\n".join(board.notes)
    assert f"{truncated}: not valid JSON, truncated?" in notes and f"fix: abductive-eval batch {results / 'spec.yaml'} --model damaged-newest" in notes
    assert f"{results / 'damaged-spec' / SPEC_RECORD}: not a JSON object (a list): damaged-spec not shown" in notes
    assert f"{results / 'plain'}: not shown: no {SPEC_RECORD}" in notes
    assert main([str(results)]) == 0
    printed = capsys.readouterr().out
    assert str(truncated) in printed and "| smoke-only | limited (limit=2) | — |" in printed


def test_paper_reported_rows_are_apart_and_marked(report):
    reference = list(csv.DictReader(report["paper_reported_csv"].open()))
    assert len(reference) == len(REFERENCE) and {row["source"] for row in reference} == {PAPER_REPORTED}
    printed = {(row["benchmark"], row["table"], row["model"], row["paper column"]): row["value (as printed)"] for row in reference}
    assert printed[("NL-Eye", "Table 2", "Humans", "Triplet")] == "85%"
    assert printed[("NL-Eye", "Table 2", "LLaVA 1.6", "Combined Image / Triplet")] == "14%"
    assert printed[("NL-Eye", "Table 2", "Dumb Pixel", "Pairs")] == "50%"
    assert printed[("MuCR", "Table 1", "GPT-4o", "Image Level / C2E")] == "81.25"
    assert printed[("MuCR", "Table 1", "Human", "Phrase Level / Cue")] == "90.50"
    assert printed[("DVE", "Table 4", "GPT-4o", "Accuracy (%)")] == "81.76"
    assert printed[("Sherlock", "Table 2", "Random", "Retrieval / im→txt mean rank (↓)")] == "495.4"
    assert "paper-reported" not in report["csv"].read_text()
    markdown = report["markdown"].read_text()
    ours, _, papers = markdown.partition("## Paper-reported reference numbers (not run here)")
    assert "| model-a | 0.2500 | 0.7500 |" in ours and "paper-reported" not in ours.split("## Plots")[0]
    assert "| paper-reported | NL-Eye | Table 2 | Humans | Triplet | nleye_triplet | 85% |" in papers


def test_html_references_valid_pngs(report):
    page = report["html"].read_text()
    assert page.startswith("<!DOCTYPE html>") and '<table class="ours">' in page and '<table class="paper-reported">' in page
    assert "<td>model-b</td><td>0.5000</td><td>—</td>" in page
    plots = sorted(path.name for path in report["plots"].glob("*.png"))
    assert plots == ["headline.png", "nleye_triplet__consistency_by_category.png"]
    for name in plots:
        assert f'src="plots/{name}"' in page
        with Image.open(report["plots"] / name) as image:
            image.verify()
            assert image.format == "PNG" and image.size[0] >= 400
