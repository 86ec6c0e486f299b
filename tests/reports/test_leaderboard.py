"""The leaderboard report on hand-written batch folders: values, later runs winning, plots, paper-reported rows apart;
a cell comes only from runs of the spec's identity, and a limited, failed or failed-request run is marked,
never a score."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from abductive_tasks import cli
from abductive_tasks.lmms_source import samples_path
from abductive_tasks.nleye.hooks import PAIRS, TRIPLET
from abductive_tasks.reports import leaderboard as leaderboard_package
from abductive_tasks.reports.leaderboard import collect, main, statistics, write_report
from abductive_tasks.reports.leaderboard.paper import PAPER_REPORTED, REFERENCE
from abductive_tasks.reports.leaderboard.render import csv_text, headline_table
from abductive_tasks.runs.identity import backend_versions, build_identity
from abductive_tasks.runs.identity_record import RUN_RECORD, RUNS_DIR, SPEC_RECORD, IdentityRecord
from abductive_tasks.runs.task_index import TaskIndex

TASKS = ("nleye_triplet", "nleye_pairs")
VERSION = {task: str(TaskIndex().facts(task).version) for task in TASKS}  # the installed tasks' versions: not stale


def identity(
    data_root: str = "/data/a", annotations: str = "same", inputs: dict | None = None, changes: dict | None = None
) -> dict:
    """A run's identity over :data:`TASKS`; ``inputs``: what its nleye_triplet read (a chained task's entry);
    ``changes``: top-level parts replaced (``settings``, ``judge``)."""
    built = build_identity(
        model={"route": "lmms", "backend": "dummy", "vllm": None},
        model_args="response=1",
        eval_args=[],
        env={},
        environment={},
        judge=None,
        tasks={task: {"benchmark": "nleye", "version": VERSION[task]} for task in TASKS},
        data={"nleye": {"root": f"{data_root}/nleye", "annotations_sha256": annotations}},
    )
    if inputs:
        built["tasks"]["nleye_triplet"]["inputs"] = inputs
    return built | (changes or {})


def write_spec(
    results: Path,
    model: str,
    spec_path: str = "spec.yaml",
    annotations: str = "same",
    inputs: dict | None = None,
    changes: dict | None = None,
) -> None:
    IdentityRecord(
        identity(annotations=annotations, inputs=inputs, changes=changes), None, TASKS, model, spec_path
    ).write(results / model / SPEC_RECORD)


def write_run(
    results: Path,
    model: str,
    run: str,
    task_results: dict | None,
    limit: int | None = None,
    data_root: str = "/data/a",
    exit_status: int = 0,
    annotations: str = "same",
    samples: bool = True,
    inputs: dict | None = None,
    changes: dict | None = None,
) -> Path:
    """One batch run folder (its identity, then lmms-eval's results file) whose results are ``run`` seconds
    old-ordered; with ``samples``, a samples file giving each task's headline, as the batch logs it (where records
    can give it: :func:`headline_records`)."""
    folder = results / model / RUNS_DIR / run
    asked = tuple(task for task in TASKS if task_results is None or task in task_results)
    IdentityRecord(
        identity(data_root, annotations, inputs, changes), limit, asked, model, "spec.yaml", exit_status
    ).write(folder / RUN_RECORD)
    if task_results is None:
        return folder
    path = folder / "dummy" / f"{run}_results.json"
    path.parent.mkdir(parents=True)
    task_results = json.loads(json.dumps(task_results))
    logged = {task: headline_records(task, values) for task, values in task_results.items()} if samples else {}
    for task, records in logged.items():
        counts = next((value for key, value in task_results[task].items() if key.endswith("_counts,none")), None)
        if records is not None and counts is not None:
            counts["documents"] = len(records)
    path.write_text(json.dumps(results_file(task_results, limit)))
    for task, records in logged.items():
        if records is not None and limit is None:
            write_samples(path, task, records)
    os.utime(path, (1_800_000_000 + int(run[:2]), 1_800_000_000 + int(run[:2])))  # later runs are newer
    return path


def markdown_rows(text: str) -> list[list[str]]:
    """The cells of every Markdown table row in ``text``, stripped."""
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("|") and not line.startswith("|:") and not line.startswith("|-")
    ]


def results_file(task_results: dict, limit: int | None = None) -> dict:
    """An lmms-eval results object as a run with ``limit`` writes it: ``config.limit`` and per task ``n-samples``
    (the documents its ``<prefix>_counts`` reports, 24 without one), the counts cut to the limit."""
    task_results = json.loads(json.dumps(task_results))
    n_samples = {}
    for task, values in task_results.items():
        counts = next((value for key, value in values.items() if key.endswith("_counts,none")), {})
        original = counts.get("documents", 24)
        effective = original if limit is None else min(limit, original)
        if counts:
            counts["documents"] = effective
        n_samples[task] = {"original": original, "effective": effective}
    config = {"model": "dummy", "model_args": "response=1", "limit": None if limit is None else float(limit)}
    return {"results": task_results, "config": config, "n-samples": n_samples}


def _items_for(value: float, least: int) -> tuple[int, int] | None:
    """The fewest items (at least ``least``; 12, a run's 24 documents, when it can) of which a whole number right
    gives ``value``: (items, right)."""
    for items in (12, *range(least, 101)):
        if abs(round(value * items) - value * items) < 1e-9:
            return items, round(value * items)
    return None


def headline_records(task: str, values: dict) -> list[dict] | None:
    """Records whose task metrics give the headline ``values`` report (NL-Eye triplet and pairs; None otherwise)."""
    if task == "nleye_triplet" and isinstance(values.get("consistency_acc,none"), float | int):
        found = _items_for(values["consistency_acc,none"], 10)
        return None if found is None else triplet_records(found[1], found[0])
    if task == "nleye_pairs" and isinstance(values.get("order_faithful_acc,none"), float | int):
        found = _items_for(values["order_faithful_acc,none"], 12)
        if found is None or found[0] != 12:  # 24 documents: what a run without counts ran
            return None
        return [
            {
                "item_id": f"i{index:02d}",
                "is_gold": gold,
                "rating": (8 if gold else 3) if index < found[1] else 5,
                "reasoning_category": ("physical", "social")[index % 2],
                "time_direction": "forward",
                "time_duration": "short-term",
                "answer_status": "parsed",
            }
            for index in range(found[0])
            for gold in (True, False)
        ]
    return None


def write_samples(results_path: Path, task: str, records: list[dict]) -> None:
    """The samples JSONL lmms-eval writes beside ``results_path``: each document's ``[metric, record]`` values."""
    spec = TRIPLET if task == "nleye_triplet" else PAIRS
    lines = [
        {"doc_id": index, **{name: [name, record] for name in spec.metric_names}}
        for index, record in enumerate(records)
    ]
    samples_path(results_path, task).write_text("".join(json.dumps(line) + "\n" for line in lines))


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
    write_run(
        results, "model-b", "03-rerun", {"nleye_triplet": triplet(0.5, 0.0)}
    )  # a rerun: its numbers replace the older ones
    return write_report(results, task_index=TaskIndex())


def test_csv_one_row_per_model_with_headline_metrics(report):
    rows = list(csv.DictReader(report["csv"].open()))
    columns = [
        "nleye_triplet__consistency_acc",
        "nleye_triplet__status",
        "nleye_pairs__order_faithful_acc",
        "nleye_pairs__status",
    ]
    assert [[row["model"], *(row[column] for column in columns)] for row in rows] == [
        ["model-a", "0.25", "", "0.75", ""],
        ["model-b", "0.5", "", "", "not run"],
    ]


def test_the_exports_say_the_rank_the_average_the_tasks_averaged_and_each_columns_scale(report):
    """The CSV and JSON held no rank or average (only the Markdown and HTML did), and the wide CSV mixed fractions with
    Sherlock's 0-100 values without saying which. model-b has no nleye_pairs score: no average, no rank."""
    rows = {row["model"]: row for row in csv.DictReader(report["csv"].open())}
    assert [rows["model-a"][key] for key in ("rank", "average_percent", "average_tasks")] == [
        "1",
        "50.0",
        "nleye_triplet nleye_pairs",
    ]
    assert [rows["model-b"][key] for key in ("rank", "average_percent")] == ["—", ""]
    assert rows["model-a"]["nleye_triplet__scale"] == rows["model-b"]["nleye_pairs__scale"] == "fraction"
    saved = json.loads(report["json"].read_text())
    assert saved["ranking"] == {
        "average_tasks": ["nleye_triplet", "nleye_pairs"],
        "upstream_only": [],
        "upper_bounds": [],
        "stages": [],
        "rows": {
            "model-a": {"rank": "1", "average_percent": 50.0},
            "model-b": {"rank": "—", "average_percent": None},
        },
    }
    assert saved["cells"]["model-a"]["nleye_triplet"]["scale"] == "fraction"


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """Every way a results file may not be a score, one model folder each."""
    results = tmp_path_factory.mktemp("integrity")
    for model in (
        "clean",
        "smoke-beside-full",
        "smoke-only",
        "failed-requests",
        "other-data",
        "crashed",
        "damaged-newest",
        "damaged-spec",
        "damaged-record",
    ):
        write_spec(results, model, spec_path=str(results / "spec.yaml"))
    (results / "spec.yaml").write_text("{}")
    write_run(
        results,
        "clean",
        "01-full",
        {"nleye_triplet": triplet(7 / 12, 0.5), "nleye_pairs": {"order_faithful_acc,none": 0.5}},
    )
    write_run(results, "smoke-beside-full", "01-full", {"nleye_triplet": triplet(7 / 12, 0.5)})
    write_run(results, "smoke-beside-full", "02-smoke", {"nleye_triplet": triplet(1.0, 1.0)}, limit=2)
    write_run(results, "smoke-only", "01-smoke", {"nleye_triplet": triplet(1.0, 1.0)}, limit=2)
    write_run(results, "failed-requests", "01-full", {"nleye_triplet": triplet(0.0, 0.0, failed=3)})
    write_run(results, "other-data", "01-full", {"nleye_triplet": triplet(7 / 12, 0.5)})
    write_run(results, "other-data", "02-new-data", {"nleye_triplet": triplet(0.9, 1.0)}, annotations="other")
    write_run(results, "crashed", "01-full", None, exit_status=1)
    write_run(
        results, "crashed", "02-interrupted", None, exit_status=None
    )  # no exit recorded: running or killed, not a failure
    write_run(results, "damaged-newest", "01-full", {"nleye_triplet": triplet(7 / 12, 0.5)})
    truncated = write_run(results, "damaged-newest", "02-full", {"nleye_triplet": triplet(0.1, 0.5)})
    truncated.write_text(truncated.read_text()[:120])
    (results / "damaged-spec" / SPEC_RECORD).write_text("[]")
    write_run(results, "damaged-record", "01-full", {"nleye_triplet": triplet(7 / 12, 0.5)})
    (results / "damaged-record" / RUNS_DIR / "01-full" / RUN_RECORD).write_text("{")  # truncated
    write_results_without_identity = results / "plain" / "dummy" / "20260101_results.json"
    write_results_without_identity.parent.mkdir(parents=True)
    write_results_without_identity.write_text(json.dumps({"results": {"nleye_triplet": triplet(1.0, 1.0)}}))
    return results, truncated, collect(results, TaskIndex())


def test_cells_come_only_from_the_spec_identity_and_marks_stand_for_non_scores(board):
    _, _, board = board
    assert {model: [board.cell(model, task) for task in TASKS] for model in board.rows} == {
        "clean": ["58.3", "50.0"],  # percent; one decimal without an interval
        "crashed": ["run failed", "run failed"],
        "damaged-newest": ["58.3", "—"],
        "damaged-record": ["run record damaged", "—"],  # was "not run": its results are there, its record unread
        "failed-requests": ["3 failed requests", "—"],
        "other-data": ["58.3", "—"],
        "smoke-beside-full": ["58.3", "—"],
        "smoke-only": ["limited (limit=2)", "—"],
    }
    assert board.breakdowns()[("nleye_triplet", "consistency_by_category")].keys() == {
        "clean",
        "damaged-newest",
        "other-data",
        "smoke-beside-full",
    }


def test_what_is_not_read_is_named_with_the_fix(board, capsys):
    results, truncated, board = board
    notes = "\n".join(board.notes)
    assert (
        f"{truncated}: not valid JSON, truncated?" in notes
        and f"fix: abductive-eval batch {results / 'spec.yaml'} --model damaged-newest" in notes
    )
    assert f"{results / 'damaged-spec' / SPEC_RECORD}: not a JSON object (a list): damaged-spec not shown" in notes
    assert f"{results / 'damaged-record' / RUNS_DIR / '01-full' / RUN_RECORD}: not valid JSON, truncated?" in notes
    assert f"{results / 'plain'}: not shown: no {SPEC_RECORD}" in notes
    assert main([str(results)]) == 0
    printed = capsys.readouterr().out
    assert str(truncated) in printed and ["—", "smoke-only", "—", "limited (limit=2)", "—"] in markdown_rows(printed)


def test_paper_reported_rows_are_apart_and_marked(report):
    reference = list(csv.DictReader(report["paper_reported_csv"].open()))
    assert len(reference) == len(REFERENCE) and {row["source"] for row in reference} == {PAPER_REPORTED}
    printed = {
        (row["benchmark"], row["table"], row["model"], row["paper column"]): row["value (as printed)"]
        for row in reference
    }
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
    # average, then each task, in percent; both triplet cells tied on their 12 items (bold)
    assert ["1", "model-a", "50.0", "**25.0**", "**75.0**"] in markdown_rows(ours)
    assert "paper-reported" not in ours.split("## Plots")[0]
    humans = ["paper-reported", "NL-Eye", "Table 2", "Humans", "Triplet", "nleye_triplet", "85%"]
    assert [*humans, "input strategy not printed"] in markdown_rows(papers)


def test_html_is_self_contained_sortable_with_embedded_pngs(report):
    page = report["html"].read_text()
    assert page.startswith("<!DOCTYPE html>") and '<table class="ours sortable">' in page
    assert '<table class="paper-reported sortable">' in page and 'addEventListener("click"' in page
    assert 'src="plots/' not in page  # nothing linked: the page travels alone
    plots = sorted(path.name for path in report["plots"].glob("*.png"))
    assert plots == ["headline.png", "nleye_triplet__consistency_by_category.png"]
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(embedded) == 2
    for data in embedded:
        with Image.open(io.BytesIO(base64.b64decode(data))) as image:
            assert image.format == "PNG" and image.size[0] >= 400
    assert re.search(r'<td class="text"\s+data-sort="model-b">model-b</td>', page)  # sort keys: numbers, names
    assert re.search(r'<td class="number"\s+data-sort="50.0">50.0</td>', page)


# ---------------------------------------------------------------- statistics: intervals and paired tests

ITEMS = 40


def triplet_records(consistent: int, items: int = ITEMS) -> list[dict]:
    """NL-Eye triplet records of ``items`` items: the first ``consistent`` right in both orders,
    the others in the first only."""
    records = []
    for index in range(items):
        for position in (1, 2):
            right = index < consistent or position == 1
            records.append(
                {
                    "item_id": f"i{index:02d}",
                    "gold_position": position,
                    "prediction": position if right else 3 - position,
                    "correct": right,
                    "reasoning_category": ("physical", "social")[index % 2],
                    "time_direction": "forward",
                    "time_duration": "short-term",
                    "swapped": position == 2,
                    "judge_configured": True,
                    "explanation": "ok" if right else None,
                    "explanation_valid": True if right else None,
                    "answer_status": "parsed",
                }
            )
    return records


def write_logged_run(
    results: Path,
    model: str,
    records: list[dict],
    reported: list[dict] | None = None,
    annotations: str = "same",
    inputs: dict | None = None,
    changes: dict | None = None,
) -> None:
    """A run's results JSON as the task's aggregation computes it (from ``reported``, default ``records``)
    and its samples JSONL."""
    values = TRIPLET.evaluate(reported or records)
    path = write_run(
        results,
        model,
        "01-full",
        {"nleye_triplet": {"alias": "nleye_triplet", **{f"{name},none": value for name, value in values.items()}}},
        annotations=annotations,
        samples=False,
        inputs=inputs,
        changes=changes,
    )
    lines = [
        {"doc_id": index, **{name: [name, record] for name in TRIPLET.metric_names}}
        for index, record in enumerate(records)
    ]
    samples_path(path, "nleye_triplet").write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """Three models on the same 40 items: strong (30 consistent), close (28 of those 30), weak (10)."""
    results = tmp_path_factory.mktemp("logged")
    for model, consistent in (("strong", 30), ("close", 28), ("weak", 10)):
        write_spec(results, model)
        write_logged_run(results, model, triplet_records(consistent))
    return results, write_report(results, task_index=TaskIndex())


def test_intervals_and_ties_with_the_best_in_the_tables(logged):
    _, report = logged
    markdown = report["markdown"].read_text()
    assert "nleye_triplet (consistency_acc; %, chance 25.0)" in markdown
    rows = {row[1]: row for row in markdown_rows(markdown) if row[1] in ("strong", "close", "weak")}
    assert [rows[model][:2] for model in ("strong", "close", "weak")] == [
        ["1", "strong"],
        ["2", "close"],
        ["3", "weak"],
    ]
    # percent, to the precision the interval supports (wider than 10 points: whole numbers)
    assert re.fullmatch(r"\*\*75\*\* \[\d+, \d+\]", rows["strong"][2]) and rows["close"][2].startswith("**70** [")
    assert re.fullmatch(r"25 \[\d+, \d+\]", rows["weak"][2])  # 20 more items wrong than the best: not tied
    page = report["html"].read_text()
    assert "<strong>75</strong> [" in page and re.search(r'data-sort="25.0">25 \[', page)
    wide = {row["model"]: row for row in csv.DictReader(report["csv"].open())}
    assert [wide[model]["nleye_triplet__consistency_acc__tied_with_best"] for model in ("strong", "close", "weak")] == [
        "true",
        "true",
        "false",
    ]
    strong = TRIPLET.evaluate(triplet_records(30))["triplet_ci95"]["consistency_acc"]
    assert (
        float(wide["strong"]["nleye_triplet__consistency_acc__lower"]) == strong["lower"]
        and float(wide["strong"]["nleye_triplet__consistency_acc__stderr"]) == strong["stderr"]
    )


def test_a_csv_cell_a_spreadsheet_would_run_as_a_formula_reads_as_text_and_numbers_stay_numbers():
    rows = [['=HYPERLINK("http://evil")', "-0.05", "+cmd|' /C calc'!A0", "@SUM(A1)", "-", "model-1", "12.5"]]
    read = list(csv.reader(io.StringIO(csv_text(["a", "b", "c", "d", "e", "f", "g"], rows))))
    inert = ['\'=HYPERLINK("http://evil")', "-0.05", "'+cmd|' /C calc'!A0", "'@SUM(A1)", "'-", "model-1", "12.5"]
    assert read[1] == inert


def test_a_model_folder_whose_spec_record_names_another_model_is_not_shown(tmp_path):
    """A folder copied under another name (``=HYPERLINK(...)``, or any) was ranked as a model of its own: the spec
    record names the model a batch wrote the folder for, and a folder of another name is left out with a note."""
    write_spec(tmp_path, "m")
    write_run(tmp_path, "m", "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    shutil.copytree(tmp_path / "m", tmp_path / "copy")
    board = collect(tmp_path, TaskIndex())
    assert list(board.rows) == ["m"]
    refused = (
        f"{tmp_path / 'copy'}: not shown: its {SPEC_RECORD} is the record of model 'm' (a copy, or a renamed folder); "
        "fix: name the folder 'm', or move it out of the results folder"
    )
    assert refused in board.notes


def test_a_spec_record_of_an_earlier_identity_schema_is_not_shown_and_says_so(tmp_path, monkeypatch):
    """After what identifies a result changed (``SCHEMA`` raised), an old spec record matches no run: its row is left
    out with a note, never filled from runs of another identity (none has a key to compare)."""
    from abductive_tasks.runs import identity as identities

    write_spec(tmp_path, "m")
    write_run(tmp_path, "m", "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    assert list(collect(tmp_path, TaskIndex()).rows) == ["m"]
    monkeypatch.setattr(identities, "SCHEMA", identities.SCHEMA + 1)
    board = collect(tmp_path, TaskIndex())
    assert list(board.rows) == []
    assert any(
        f"{tmp_path / 'm'}: not shown: its {SPEC_RECORD} is of an earlier run identity" in n for n in board.notes
    )


def test_long_csv_one_row_per_model_task_metric(logged):
    _, report = logged
    rows = list(csv.DictReader(report["long_csv"].open()))
    headline = next(row for row in rows if row["model"] == "weak" and row["metric"] == "consistency_acc")
    assert headline | {"lower": "", "upper": "", "stderr": ""} == {
        "model": "weak", "task": "nleye_triplet", "metric": "consistency_acc", "label": "", "headline": "true",
        "value": "0.25", "lower": "", "upper": "", "stderr": "", "units": "40", "resamples": "1000", "chance": "0.25",
        "scale": "fraction", "higher_is_better": "true", "upper_bound": "false", "caveat": "",
        "tied_with_best": "false", "status": "", "data": "", "settings": "", "read_from": "",
    }  # fmt: skip
    assert float(headline["lower"]) < 0.25 < float(headline["upper"])
    cells = {
        row["label"]: row for row in rows if row["model"] == "strong" and row["metric"] == "consistency_by_category"
    }
    assert set(cells) == {"physical", "social"} and cells["physical"]["units"] == "20" and cells["physical"]["lower"]
    metrics = {row["metric"] for row in rows if row["model"] == "strong"}
    assert {
        "consistency_acc",
        "order1_acc",
        "order2_acc",
        "explanation_valid_rate",
    } <= metrics and "triplet_counts" not in metrics


def test_comparisons_with_the_best_and_the_compare_command(logged, capsys):
    results, report = logged
    comparisons = {row["b"]: row for row in csv.DictReader(report["comparisons_csv"].open())}
    assert set(comparisons) == {"close", "weak"} and {row["a"] for row in comparisons.values()} == {"strong"}
    assert float(comparisons["close"]["difference"]) == pytest.approx(0.05) and comparisons["close"]["tied"] == "true"
    assert (
        float(comparisons["weak"]["difference"]) == pytest.approx(0.5) and float(comparisons["weak"]["p_value"]) < 0.01
    )
    assert main([str(results), "--compare", "weak", "close"]) == 0
    printed = capsys.readouterr().out
    assert "Paired comparison weak − close" in printed
    (row,) = [row for row in markdown_rows(printed) if row[0] == "nleye_triplet" and len(row) == 9]
    assert row[1:5] == ["consistency_acc (%)", "25", "70", "-45"] and row[5].startswith("[")
    rows = {row["task"]: row for row in csv.DictReader((results / "leaderboard" / "compare_weak_vs_close.csv").open())}
    assert (
        float(rows["nleye_triplet"]["upper"]) < 0
        and rows["nleye_triplet"]["units"] == "40"
        and rows["nleye_triplet"]["tied"] == "false"
    )
    assert rows["nleye_pairs"]["note"] == "weak: not run; close: not run" and rows["nleye_pairs"]["difference"] == ""
    with pytest.raises(SystemExit):
        main([str(results), "--compare", "weak", "absent"])
    assert "no model ['absent']" in capsys.readouterr().err


def test_a_value_its_samples_do_not_give_is_inconsistent_not_a_score(tmp_path):
    """An edited results file (or another run's samples): the cell is recomputed from the records and marked
    ``inconsistent``, never shown with the file's number."""
    for model in ("strong", "weak", "edited"):
        write_spec(tmp_path, model)
    write_logged_run(tmp_path, "strong", triplet_records(30))
    write_logged_run(tmp_path, "weak", triplet_records(10), reported=triplet_records(12))  # samples of another run
    write_logged_run(tmp_path, "edited", triplet_records(10))
    (path,) = (tmp_path / "edited").rglob("*_results.json")
    edited = json.loads(path.read_text())
    edited["results"]["nleye_triplet"]["consistency_acc,none"] = 0.99
    path.write_text(json.dumps(edited))
    board = collect(tmp_path, TaskIndex())
    assert [board.cell(model, "nleye_triplet") for model in ("weak", "edited")] == [
        "unverified (inconsistent samples)",
        "unverified (inconsistent samples)",
    ]
    assert board.value("edited", "nleye_triplet") is None
    notes = "\n".join(board.notes)
    assert "its records give consistency_acc = 0.25, the results file reports 0.3" in notes
    assert "its records give consistency_acc = 0.25, the results file reports 0.99" in notes
    found = statistics(board)
    assert found.tied("strong", "nleye_triplet") is True and found.tied("weak", "nleye_triplet") is None


def test_a_headline_that_is_not_a_number_is_marked(tmp_path):
    write_spec(tmp_path, "m")
    write_run(tmp_path, "m", "01-full", {"nleye_triplet": {**triplet(0.5, 0.5), "consistency_acc,none": "0.5833"}})
    board = collect(tmp_path, TaskIndex())
    assert board.cell("m", "nleye_triplet") == "not a number"
    assert any("nleye_triplet consistency_acc is '0.5833', not a number" in note for note in board.notes)
    write_report(tmp_path, task_index=TaskIndex())


@pytest.mark.parametrize("damage", ["deleted", "one garbage line"])
def test_an_edited_headline_without_usable_samples_is_unverified_never_ranked(tmp_path, damage):
    """An edited headline (99) whose samples file is deleted, or has one garbage line (same line count): the cell is
    ``unverified`` with the reason in the notes, never ranked, never bold, never plotted as a score."""
    for model in ("strong", "weak", "edited"):
        write_spec(tmp_path, model)
    write_logged_run(tmp_path, "strong", triplet_records(30))
    write_logged_run(tmp_path, "weak", triplet_records(10))
    write_logged_run(tmp_path, "edited", triplet_records(10))
    (path,) = (tmp_path / "edited").rglob("*_results.json")
    edited = json.loads(path.read_text())
    edited["results"]["nleye_triplet"]["consistency_acc,none"] = 0.99
    path.write_text(json.dumps(edited))
    samples = samples_path(path, "nleye_triplet")
    if damage == "deleted":
        samples.unlink()
    else:
        lines = samples.read_text().splitlines()
        samples.write_text("\n".join(["{not json", *lines[1:]]) + "\n")
    board = collect(tmp_path, TaskIndex())
    reason = "no samples file" if damage == "deleted" else "unreadable samples"
    assert board.cell("edited", "nleye_triplet") == f"unverified ({reason})"
    assert board.value("edited", "nleye_triplet") is None
    assert any(str(path.parent) in note and "the cell is not shown" in note for note in board.notes)
    report = write_report(tmp_path, task_index=TaskIndex())
    rows = {row[1]: row for row in markdown_rows(report["markdown"].read_text()) if row[1] in ("strong", "edited")}
    assert rows["edited"][0] == "—" and rows["edited"][2] == f"unverified ({reason})"
    assert rows["strong"][0] == "1" and rows["strong"][2].startswith("**75**")
    wide = {row["model"]: row for row in csv.DictReader(report["csv"].open())}
    assert wide["edited"]["nleye_triplet__consistency_acc"] == ""
    assert wide["edited"]["nleye_triplet__status"] == f"unverified ({reason})"


def test_raw_html_from_a_results_file_is_escaped_in_the_markdown(tmp_path):
    write_spec(tmp_path, "m")
    write_run(tmp_path, "m", "01-full", {"nleye_triplet": {**triplet(0.5, 0.5), "consistency_acc,none": "<b>x</b>"}})
    markdown = write_report(tmp_path, task_index=TaskIndex())["markdown"].read_text()
    assert "<b>" not in markdown and "&lt;b&gt;x&lt;/b&gt;" in markdown


@pytest.mark.parametrize("metric", ["x](javascript:alert(1))<img src=x onerror=alert(2)>", "by/../../../../planted"])
def test_a_breakdown_named_like_markup_or_a_path_is_drawn_under_a_plain_file_name(tmp_path, metric):
    """A breakdown plot was named after its results key as it was: a key with markup put raw HTML and a
    ``javascript:`` link into leaderboard.md, and one with a ``/`` failed the whole report (no such folder)."""
    write_spec(tmp_path, "m")
    breakdown = {"physical": {"acc": 0.5, "n": 2}}
    write_run(tmp_path, "m", "01-full", {"nleye_triplet": {**triplet(0.5, 0.5), f"{metric},none": breakdown}})
    written = write_report(tmp_path, task_index=TaskIndex())
    markdown = written["markdown"].read_text()
    assert "<img" not in markdown and "javascript:" not in markdown
    names = [path.name for path in written["plots"].iterdir()]
    assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.png", name) for name in names), names
    assert len(names) == 3 and not list(tmp_path.rglob("planted*"))


def test_two_breakdowns_whose_keys_differ_in_a_replaced_character_draw_two_plots(tmp_path):
    """``per label`` and ``per_label`` (or ``per/label``) were both drawn as ``<task>__per_label.png``: the second
    overwrote the first, and the report showed one plot for both breakdowns."""
    write_spec(tmp_path, "m")
    first, second = {"physical": {"acc": 0.5, "n": 2}}, {"social": {"acc": 1.0, "n": 2}}
    results = {**triplet(0.5, 0.5), "per label,none": first, "per_label,none": second}
    write_run(tmp_path, "m", "01-full", {"nleye_triplet": results})
    written = write_report(tmp_path, task_index=TaskIndex())
    names = sorted(path.name for path in written["plots"].iterdir() if path.name.startswith("nleye_triplet__per"))
    assert len(names) == 2 and "nleye_triplet__per_label.png" in names, names


# ---------------------------------------------------------------- what lmms-eval ran, not what a record says


def test_the_limit_and_counts_come_from_what_lmms_eval_ran(tmp_path):
    """A limit set outside the spec's ``limit:`` (eval_args), or erased from the run's record, is read from the
    results' own config; counts that contradict each other are shown as such, never as a score."""
    models = ("eval-args-limit", "record-edited", "fewer-documents", "samples-short", "clean")
    for model in models:
        write_spec(tmp_path, model)
    # --limit 2 in eval_args, as the batch recorded it before: the record says no limit, lmms-eval's config says 2
    path = write_run(tmp_path, "eval-args-limit", "01-full", {"nleye_triplet": triplet(7 / 12, 0.5)})
    path.write_text(json.dumps(results_file({"nleye_triplet": triplet(1.0, 1.0)}, limit=2)))
    # a limited run whose record was edited to say none
    path = write_run(tmp_path, "record-edited", "01-smoke", {"nleye_triplet": triplet(1.0, 1.0)}, limit=2)
    record = json.loads((path.parents[1] / RUN_RECORD).read_text())
    (path.parents[1] / RUN_RECORD).write_text(json.dumps({**record, "limit": None}))
    # no limit anywhere, but lmms-eval ran 2 of 24 documents (the config's limit removed by hand)
    path = write_run(tmp_path, "fewer-documents", "01-full", {"nleye_triplet": triplet(1.0, 1.0)})
    edited = json.loads(path.read_text())
    edited["n-samples"]["nleye_triplet"]["effective"] = 2
    path.write_text(json.dumps(edited))
    # the samples file holds 2 documents where the results say 24
    path = write_run(tmp_path, "samples-short", "01-full", {"nleye_triplet": triplet(1.0, 1.0)})
    samples_path(path, "nleye_triplet").write_text('{"doc_id": 0}\n{"doc_id": 1}\n')
    write_run(tmp_path, "clean", "01-full", {"nleye_triplet": triplet(7 / 12, 0.5)})
    board = collect(tmp_path, TaskIndex())
    assert {model: board.cell(model, "nleye_triplet") for model in models} == {
        "eval-args-limit": "limited (limit=2); counts disagree",
        "record-edited": "limited (limit=2); counts disagree",
        "fewer-documents": "counts disagree",
        "samples-short": "counts disagree",
        "clean": "58.3",
    }
    notes = "\n".join(board.notes)
    assert f"{RUN_RECORD} says limit=None, lmms-eval ran limit=2" in notes
    assert "ran 2 of 24 documents without a limit" in notes and "scored 24 documents, lmms-eval ran 2" in notes
    assert "its samples file holds 2 whole documents, lmms-eval ran 24" in notes


def test_a_results_file_without_document_counts_is_not_a_score(tmp_path):
    write_spec(tmp_path, "m")
    path = write_run(tmp_path, "m", "01-full", {"nleye_triplet": triplet(7 / 12, 0.5)})
    config = {"model": "dummy", "model_args": "response=1"}  # the run's model (without it: another model's file)
    path.write_text(json.dumps({"results": {"nleye_triplet": triplet(7 / 12, 0.5)}, "config": config}))
    board = collect(tmp_path, TaskIndex())
    assert board.cell("m", "nleye_triplet") == "counts disagree"
    assert any("no document counts (`n-samples`) in the results" in note for note in board.notes)


def test_rows_on_different_data_are_never_ranked_or_compared_together(tmp_path, capsys):
    """One model's data (flipped labels: other annotations) differs: its cell is marked with its data group,
    it is the best of its own group only, and no comparison pairs it with the others."""
    for model, consistent, content in (("strong", 30, "same"), ("close", 28, "same"), ("flipped", 36, "other")):
        write_spec(tmp_path, model, annotations=content)
        write_logged_run(tmp_path, model, triplet_records(consistent), annotations=content)
    board = collect(tmp_path, TaskIndex())
    assert [board.cell(model, "nleye_triplet").rsplit(" (", 1)[-1] for model in ("strong", "close", "flipped")] == [
        "data A)",
        "data A)",
        "data B)",
    ]
    found = statistics(board)
    assert found.ties["nleye_triplet"].best == ["strong", "flipped"]
    report = write_report(tmp_path, task_index=TaskIndex(), board=board, found=found)
    pairs = {(row["a"], row["b"]) for row in csv.DictReader(report["comparisons_csv"].open())}
    assert pairs == {("strong", "close")}
    wide = {row["model"]: row for row in csv.DictReader(report["csv"].open())}
    assert [wide[model]["nleye_triplet__data"] for model in ("strong", "close", "flipped")] == ["data A"] * 2 + [
        "data B"
    ]
    assert {key: value for key, value in wide["flipped"].items() if key.endswith(("__data", "__settings"))} == {
        "nleye_triplet__data": "data B",
        "nleye_pairs__data": "data B",  # the benchmark's data: one version for all its tasks
    }
    long = [row for row in csv.DictReader(report["long_csv"].open()) if row["task"] == "nleye_triplet"]
    assert {(row["model"], row["data"], row["settings"]) for row in long} == {
        ("strong", "data A", ""),
        ("close", "data A", ""),
        ("flipped", "data B", ""),
    }
    assert "nleye_triplet: rows ran on different data (data A: close, strong; data B: flipped)" in "\n".join(
        found.notes
    )
    assert main([str(tmp_path), "--compare", "flipped", "strong"]) == 0
    rows = list(csv.DictReader((tmp_path / "leaderboard" / "compare_flipped_vs_strong.csv").open()))
    assert rows[0]["difference"] == "" and "different data" in rows[0]["note"]


def test_rows_with_other_score_settings_are_labelled_and_never_ranked_or_compared_together(tmp_path, capsys):
    """F5 of review 1: quick's intervals come from 20 resamples, judged's judged answers from a judge (and its
    description-store variable is no setting of its own: what it reads is said as read_from); each is labelled with
    its settings group in every table, ranked and compared only within it, and the header says what each group ran."""
    quick = {"settings": {"ABDUCTIVE_BOOTSTRAP": "20"}}
    judged = {"settings": {"ABDUCTIVE_NLEYE_DESCRIPTIONS": "x"}, "judge": {"url": "http://j/v1", "model_version": "J"}}
    plain = {"settings": {"ABDUCTIVE_NLEYE_DESCRIBER": "strong"}}  # names what a reader reads: the defaults still
    for model, consistent, changes in (("strong", 30, plain), ("close", 28, None), ("quick", 36, quick)):
        write_spec(tmp_path, model, changes=changes)
        write_logged_run(tmp_path, model, triplet_records(consistent), changes=changes)
    write_spec(tmp_path, "judged", changes=judged)
    write_logged_run(tmp_path, "judged", triplet_records(20), changes=judged)
    board = collect(tmp_path, TaskIndex())
    labels = [
        board.cell(model, "nleye_triplet").rsplit(" (", 1)[-1] for model in ("strong", "close", "quick", "judged")
    ]
    assert labels == ["settings A)", "settings A)", "settings C)", "settings B)"]  # a tie: the first row's first
    found = statistics(board)
    assert set(found.ties["nleye_triplet"].best) == {"strong", "quick", "judged"}  # each the best of its own group
    assert (
        "NL-Eye: rows ran with different score settings or judges (settings A: close, strong; settings B: judged; "
        "settings C: quick): each is ranked and compared only with the rows of its own settings, as the header says"
        in found.notes
    )
    report = write_report(tmp_path, task_index=TaskIndex(), board=board, found=found)
    pairs = {(row["a"], row["b"]) for row in csv.DictReader(report["comparisons_csv"].open())}
    assert pairs == {("strong", "close")}
    wide = {row["model"]: row for row in csv.DictReader(report["csv"].open())}  # the CSVs say the groups too
    assert [wide[model]["nleye_triplet__settings"] for model in ("strong", "close", "quick", "judged")] == [
        "settings A",
        "settings A",
        "settings C",
        "settings B",
    ]
    assert "nleye_triplet__data" not in wide["strong"]
    long = {
        (row["model"], row["metric"]): row
        for row in csv.DictReader(report["long_csv"].open())
        if row["task"] == "nleye_triplet" and not row["label"]
    }
    headline = board.headline["nleye_triplet"]
    assert [long[model, headline]["settings"] for model in ("strong", "close", "quick", "judged")] == [
        "settings A",
        "settings A",
        "settings C",
        "settings B",
    ]
    assert {row["data"] for row in long.values()} == {""}
    markdown = report["markdown"].read_text()
    rows = {row[1]: row for row in markdown_rows(markdown) if row[1] in board.rows}
    assert [rows[model][0] for model in ("strong", "close", "quick", "judged")] == ["1", "2", "—", "—"]
    assert (
        "Score settings, NL-Eye: settings A: defaults, judge none — close, strong; "
        "settings B: defaults, judge J — judged; settings C: ABDUCTIVE_BOOTSTRAP=20, judge none — quick." in markdown
    )
    saved = json.loads(report["json"].read_text())
    assert saved["cells"]["quick"]["nleye_triplet"]["settings_label"] == "settings C"
    assert [
        (entry["label"], entry["settings"], entry["models"]) for entry in saved["provenance"]["settings"]["nleye"]
    ] == [
        ("settings A", {}, ["close", "strong"]),
        ("settings B", {}, ["judged"]),
        ("settings C", {"ABDUCTIVE_BOOTSTRAP": "20"}, ["quick"]),
    ]
    assert main([str(tmp_path), "--compare", "quick", "strong"]) == 0
    compared = list(csv.DictReader((tmp_path / "leaderboard" / "compare_quick_vs_strong.csv").open()))
    assert compared[0]["difference"] == "" and compared[0]["note"] == (
        "not compared: the two ran with different score settings or judges (as the header says)"
    )


def test_the_leaderboard_marks_cells_the_batch_would_rerun(tmp_path, data_copy):
    """Data changed (same ABDUCTIVE_DATA, other content) or a task's version changed since the run: stale."""
    from abductive_tasks.runs.identity import data_fingerprint

    fingerprint = data_fingerprint("nleye", str(data_copy))
    current = identity()
    current["data"] = {"nleye": fingerprint}
    old_version = json.loads(json.dumps(current))
    old_version["tasks"]["nleye_pairs"]["version"] = "1.0"
    for model, spec_identity in (("data-changes", current), ("old-version", old_version)):
        for record, path in (
            (IdentityRecord(spec_identity, None, TASKS, model, "spec.yaml"), tmp_path / model / SPEC_RECORD),
            (
                IdentityRecord(spec_identity, None, TASKS, model, "spec.yaml", 0),
                tmp_path / model / RUNS_DIR / "01" / RUN_RECORD,
            ),
        ):
            record.write(path)
        results = tmp_path / model / RUNS_DIR / "01" / "m" / "01_results.json"
        results.parent.mkdir(parents=True)
        task_results = {"nleye_triplet": triplet(0.5, 0.5), "nleye_pairs": {"order_faithful_acc,none": 0.5}}
        results.write_text(json.dumps(results_file(task_results)))
        write_samples(results, "nleye_triplet", headline_records("nleye_triplet", task_results["nleye_triplet"]))
        write_samples(results, "nleye_pairs", headline_records("nleye_pairs", task_results["nleye_pairs"]))
    assert collect(tmp_path, TaskIndex()).cell("data-changes", "nleye_triplet") == "50.0"
    (data_copy / "nleye" / "test_set.csv").write_text((data_copy / "nleye" / "test_set.csv").read_text() + "\n")
    board = collect(tmp_path, TaskIndex())
    assert [board.cell(model, task) for model in ("data-changes", "old-version") for task in TASKS] == [
        "stale",
        "stale",
        "stale",
        "stale",
    ]
    notes = "\n".join(board.notes)
    assert f"data-changes nleye_triplet: stale: the data at {data_copy} changed since its run" in notes
    assert f"old-version nleye_pairs: stale: nleye_pairs version 1.0 → {VERSION['nleye_pairs']}" in notes


def test_a_cell_of_a_backend_of_ours_is_stale_once_its_version_went_up(monkeypatch):
    """As the batch's plan would rerun it: a backend's VERSIONS entry is in the identity (runs.identity)."""
    from abductive_tasks import lmms_source
    from abductive_tasks.models.manifests import VERSIONS
    from abductive_tasks.reports.leaderboard.cells import _Staleness
    from abductive_tasks.runs.identity import backend_versions

    staleness = _Staleness(TaskIndex())
    ran = identity()
    ran["model"]["backend"] = "dumb_pixel"
    ran["versions"] |= backend_versions("dumb_pixel")
    assert staleness.why(ran, "nleye_pairs") is None
    older = json.loads(json.dumps(ran))
    del older["versions"]["backend dumb_pixel"]  # recorded before backends had versions
    monkeypatch.setattr(lmms_source, "own_model_versions", lambda: {**VERSIONS, "dumb_pixel": "9.9"})
    assert staleness.why(ran, "nleye_pairs") == f"stale: backend dumb_pixel {VERSIONS['dumb_pixel']} → 9.9"
    assert staleness.why(older, "nleye_pairs") == "stale: backend dumb_pixel unversioned → 9.9"
    assert staleness.why(identity(), "nleye_pairs") is None  # lmms-eval's dummy: nothing new


def test_rows_are_ranked_with_ties_marked(tmp_path):
    for model, triplet_value, pairs_value in (("a", 0.5, 0.5), ("b", 0.75, 0.25), ("c", 0.25, 0.25), ("d", 0.9, None)):
        write_spec(tmp_path, model)
        results = {"nleye_triplet": triplet(triplet_value, 0.5)}
        results |= {} if pairs_value is None else {"nleye_pairs": {"order_faithful_acc,none": pairs_value}}
        write_run(tmp_path, model, "01-full", results)
    table = headline_table(collect(tmp_path, TaskIndex()))
    assert table.header[:3] == ["rank", "model", "average (%, 2 tasks)"]
    assert [row[:3] for row in table.rows] == [
        ["1=", "a", "50.0"],
        ["1=", "b", "50.0"],
        ["3", "c", "25.0"],
        ["—", "d", "—"],  # no score on every averaged task: not ranked
    ]


def test_tables_are_written_without_matplotlib(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))  # no plot cached by another test
    write_spec(tmp_path, "m")
    write_run(tmp_path, "m", "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as after `pip install .` without the report extra
    written = write_report(tmp_path, task_index=TaskIndex())
    assert all(written[kind].is_file() for kind in ("csv", "long_csv", "comparisons_csv", "markdown", "html"))
    assert "plots" not in written and not (tmp_path / "leaderboard" / "plots").exists()  # no folder named as written
    assert capsys.readouterr().err == (
        'leaderboard: plots skipped: matplotlib is not installed (pip install "abductive-tasks[report]")\n'
    )
    assert "plots skipped: matplotlib is not installed" in written["html"].read_text()


@pytest.mark.parametrize("with_plots", [True, False], ids=["plots drawn", "matplotlib missing"])
def test_a_plots_link_planted_in_the_output_folder_is_never_written_through_or_emptied(
    tmp_path, monkeypatch, with_plots
):
    """Whoever can write the output folder planted ``leaderboard/plots`` as a link: the report wrote its plots into
    the folder it named, and emptied that folder of every PNG when it drew none."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    if not with_plots:
        monkeypatch.setitem(sys.modules, "matplotlib", None)
    results, victim = tmp_path / "results", tmp_path / "victim"
    write_spec(results, "m")
    write_run(results, "m", "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    victim.mkdir()
    (victim / "precious.png").write_bytes(b"keep")
    (results / "leaderboard").mkdir()
    (results / "leaderboard" / "plots").symlink_to(victim)
    written = write_report(results, task_index=TaskIndex())
    assert [path.name for path in victim.iterdir()] == ["precious.png"]
    assert (victim / "precious.png").read_bytes() == b"keep"
    assert written["markdown"].is_file()
    if with_plots:
        assert not written["plots"].is_symlink() and (written["plots"] / "headline.png").is_file()


def test_a_link_planted_as_the_default_report_folder_is_refused_not_written_through(tmp_path, monkeypatch, capsys):
    """Whoever can write the results folder planted ``leaderboard`` itself as a link: the report was written into the
    folder it named, and that folder's ``plots/*.png`` removed. The default folder is refused, in one line, exit 2,
    and nothing of the link's target is touched; a folder the user names with ``--out`` may be a link (theirs)."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    results, victim = tmp_path / "results", tmp_path / "victim"
    write_spec(results, "m")
    write_run(results, "m", "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    (victim / "plots").mkdir(parents=True)
    (victim / "plots" / "precious.png").write_bytes(b"keep")
    (victim / "leaderboard.html").write_text("victim's own page")
    (results / "leaderboard").symlink_to(victim)
    assert main([str(results)]) == 2
    assert capsys.readouterr().err == (
        f"abductive-eval leaderboard: {results / 'leaderboard'} (the default --out): a link, not followed (it may "
        "have been planted in the results folder); remove it, or name --out; name a folder to write the report in\n"
    )
    with pytest.raises(OSError, match="a link, not followed"):
        write_report(results, task_index=TaskIndex())
    assert sorted(str(path.relative_to(victim)) for path in victim.rglob("*")) == [
        "leaderboard.html",
        "plots",
        "plots/precious.png",
    ]
    assert (victim / "leaderboard.html").read_text() == "victim's own page"
    assert main([str(results), "--out", str(results / "leaderboard")]) == 0  # named by the user: written there
    assert (victim / "leaderboard.md").is_file()


def test_a_planted_model_name_reaches_the_compare_error_without_terminal_escapes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    name = "m\x1b]0;pwned\x07\x1b[2J"
    write_spec(tmp_path, name)
    write_run(tmp_path, name, "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--compare", "a", "b"])
    said = capsys.readouterr().err
    assert "--compare: no model ['a', 'b']" in said and "\x1b" not in said and "\x07" not in said
    assert "m\N{REPLACEMENT CHARACTER}]0;pwned" in said


def test_plots_are_drawn_once_per_input_and_a_cache_entry_is_checked_before_reuse(tmp_path, monkeypatch):
    from abductive_tasks.reports import plots

    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    drawn = []
    pyplot = plots.pyplot
    monkeypatch.setattr(plots, "pyplot", lambda: drawn.append(1) or pyplot())
    results = tmp_path / "results"
    write_spec(results, "m")
    write_run(results, "m", "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    first = write_report(results, task_index=TaskIndex())
    pngs = {path.name: path.read_bytes() for path in first["plots"].glob("*.png")}
    assert set(pngs) == {"headline.png", "nleye_triplet__consistency_by_category.png"} and drawn
    entries = sorted((tmp_path / "cache" / "leaderboard_plots").glob("*.json"))
    assert len(entries) == 2
    drawn.clear()
    again = write_report(
        results, task_index=TaskIndex()
    )  # the same inputs: every plot from the cache, matplotlib untouched
    assert not drawn and {path.name: path.read_bytes() for path in again["plots"].glob("*.png")} == pngs
    tampered = entries[0].read_bytes()
    entries[0].write_bytes(tampered[:-8] + b"AAAAAAAA")  # its content no longer matches its seal
    write_report(results, task_index=TaskIndex())
    assert drawn and {path.name: path.read_bytes() for path in again["plots"].glob("*.png")} == pngs
    drawn.clear()
    write_run(results, "m", "02-rerun", {"nleye_triplet": triplet(0.25, 0.5)})  # a new headline, the same breakdown
    write_report(results, task_index=TaskIndex())
    assert drawn and len(list((tmp_path / "cache" / "leaderboard_plots").glob("*.json"))) == 3  # one plot drawn


def test_a_report_cut_by_a_file_size_limit_leaves_the_previous_report_whole(tmp_path):
    """A file-size limit (or a full disk, or SIGTERM) while the leaderboard is written: every earlier file, plots
    included, stays as it was (no new CSVs beside old HTML); the error is one line."""
    for model, consistent in (("strong", 30), ("weak", 10)):
        write_spec(tmp_path, model)
        write_logged_run(tmp_path, model, triplet_records(consistent))
    out = tmp_path / "leaderboard"
    write_report(tmp_path, task_index=TaskIndex())
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    assert any(path.suffix == ".png" for path in before)
    write_spec(tmp_path, "close")
    write_logged_run(tmp_path, "close", triplet_records(28))  # the next report differs
    script = (
        "import resource, signal, sys; from abductive_tasks.cli import main; "
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)); "
        f"sys.exit(main(['leaderboard', {str(tmp_path)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "the previous report stands" in done.stderr.strip().splitlines()[-1]
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before


def test_a_run_that_left_items_out_is_partial_never_a_score(tmp_path):
    """8 of 12 items without descriptions: the cell says partial (as a limited one does), never bold or ranked."""
    write_spec(tmp_path, "m")
    values = triplet(0.5, 0.5)
    values["triplet_counts,none"] |= {"items_without_descriptions": 8}
    write_run(tmp_path, "m", "01-full", {"nleye_triplet": values})
    board = collect(tmp_path, TaskIndex())
    assert board.cell("m", "nleye_triplet") == "partial (8 items without descriptions)"
    assert board.value("m", "nleye_triplet") is None


def test_a_cell_whose_descriptions_changed_since_its_run_is_stale(tmp_path, monkeypatch):
    """Re-described images after the batch: the cell is what the batch would rerun, never shown as current."""
    from abductive_tasks import settings
    from abductive_tasks.nleye import descriptions
    from abductive_tasks.runs.chain import variable_input

    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIBER", "m")
    folder = descriptions.describer_folder("m")
    folder.mkdir(parents=True)
    (folder / "abc.json").write_text(json.dumps({"describer": "m", "description": "a red car"}))
    current = identity()
    root = settings.cache_root()
    read = {"kind": "descriptions", **variable_input("descriptions", "nleye_describe", dict(os.environ), root)}
    current["tasks"]["nleye_triplet"]["inputs"] = {"nleye_describe": read}
    results = tmp_path / "results"
    IdentityRecord(current, None, TASKS, "m", "spec.yaml").write(results / "m" / SPEC_RECORD)
    IdentityRecord(current, None, ("nleye_triplet",), "m", "spec.yaml", 0).write(
        results / "m" / RUNS_DIR / "01" / RUN_RECORD
    )
    path = results / "m" / RUNS_DIR / "01" / "dummy" / "01_results.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(results_file({"nleye_triplet": triplet(0.5, 0.5)})))
    write_samples(path, "nleye_triplet", headline_records("nleye_triplet", triplet(0.5, 0.5)))
    # named like the row, but no entry of it is bound to m's model (written by hand, unsealed): not m's own
    assert (
        collect(results, TaskIndex()).cell("m", "nleye_triplet") == "50.0 (descriptions: m (ABDUCTIVE_NLEYE_DESCRIBER))"
    )
    (folder / "abc.json").write_text(json.dumps({"describer": "m", "description": "a blue car"}))
    board = collect(results, TaskIndex())
    assert board.cell("m", "nleye_triplet") == "stale"
    assert any(
        "the descriptions of nleye_describe that ABDUCTIVE_NLEYE_DESCRIBER names changed" in note
        for note in board.notes
    )


def test_an_upper_bound_column_is_labelled_and_never_averaged():
    """A task whose YAML says ``upper_bound: true`` (mucr_exp_gold) is labelled so and left out of the average."""
    from abductive_tasks.reports.leaderboard.cells import Leaderboard
    from abductive_tasks.reports.leaderboard.ranking import average_tasks

    headline = {"nleye_triplet": "consistency_acc", "nleye_pairs": "order_faithful_acc", "mucr_c2e": "c2e_accuracy"}
    row = {task: {f"{metric},none": 0.5} for task, metric in headline.items()}
    board = Leaderboard({"m": row}, list(headline), headline, dict.fromkeys(headline, True))
    assert average_tasks(board) == list(headline)
    board.upper_bounds = {"mucr_c2e"}
    assert average_tasks(board) == ["nleye_triplet", "nleye_pairs"]
    assert "mucr_c2e (c2e_accuracy; %, upper bound, not the paper's number)" in headline_table(board).header
    assert TaskIndex().facts("mucr_exp_gold").upper_bound


def upper_bound_board(results: Path):
    """Two rows of mucr_exp (the paper's Exp, on the model's own picks) and mucr_exp_gold (on the gold effect and
    cue: an upper bound), each cell with its samples' estimate: a is best on both."""
    from abductive_tasks.scoring.stats import Estimate

    tasks = ("mucr_exp", "mucr_exp_gold")
    for model in ("a", "b"):
        IdentityRecord(identity(), None, tasks, model, "spec.yaml").write(results / model / SPEC_RECORD)
    board = collect(results, TaskIndex())
    scores = {"a": {"mucr_exp": [6, 7, 8, 9], "mucr_exp_gold": [9, 9, 9, 10]}, "b": {"mucr_exp": [2, 3, 4, 5]}}
    scores["b"]["mucr_exp_gold"] = [1, 2, 2, 3]
    for model, by_task in scores.items():
        board.rows[model] = {task: {"exp_score,none": sum(values) / len(values)} for task, values in by_task.items()}
        board.sources[model] = {task: results / model / "results.json" for task in by_task}
        for task, values in by_task.items():
            board.estimates[(model, task)] = Estimate.mean([f"item{n}" for n in range(len(values))], values)
    return board


def test_every_export_and_the_plots_data_flag_an_upper_bound_as_the_tables_do(tmp_path):
    """The tables labelled mucr_exp_gold "upper bound, not the paper's number", but leaderboard.csv,
    leaderboard_long.csv, comparisons.csv, --compare's CSV and leaderboard.json had no such flag, and the plot drew it
    beside mucr_exp, its best value bold. Each now says so from the one source the tables read (the YAML's
    ``upper_bound``), and the plot's panel is marked apart."""
    from abductive_tasks.reports.leaderboard.ranking import COMPARE_COLUMNS, compare_models
    from abductive_tasks.reports.leaderboard.render import dict_row, headline_panels

    results = tmp_path / "results"
    board = upper_bound_board(results)
    assert board.tasks == ["mucr_exp", "mucr_exp_gold"] and board.upper_bounds == {"mucr_exp_gold"}
    flag = {"mucr_exp": False, "mucr_exp_gold": True}
    found = statistics(board)
    # a bound has no best model: no tie computed, none exported, none bold (a walkthrough's CSV named a "best")
    assert found.tied("a", "mucr_exp_gold") is None and found.tied("b", "mucr_exp_gold") is None
    assert found.tied("a", "mucr_exp") is not None
    table = headline_table(board, found)
    assert "mucr_exp_gold (exp_score; raw, upper bound, not the paper's number)" in table.header
    from abductive_tasks.reports.leaderboard.render import legend

    assert legend(board).endswith(" Ranked by mucr_exp (no average column).")  # named (a walkthrough's "first task")
    # never bold in the table either (a walkthrough found a's mucr_exp_gold bold, though mucr.md says never bold)
    column = {task: next(n for n, head in enumerate(table.header) if head.startswith(f"{task} (")) for task in flag}
    assert [strong[column["mucr_exp_gold"]] for strong in table.bold] == [False, False]
    assert sorted(strong[column["mucr_exp"]] for strong in table.bold) == [False, True]  # the paper's number: its best
    report = write_report(results, task_index=TaskIndex(), board=board, found=found)
    for row in csv.DictReader(report["csv"].open()):
        assert {task: row[f"{task}__upper_bound"] for task in flag} == {"mucr_exp": "false", "mucr_exp_gold": "true"}
    long = list(csv.DictReader(report["long_csv"].open()))
    assert {(row["task"], row["upper_bound"]) for row in long} == {("mucr_exp", "false"), ("mucr_exp_gold", "true")}
    compared = list(csv.DictReader(report["comparisons_csv"].open()))
    # each compared with the best of its column: a bound has none (--compare's rows below still flag it)
    assert sorted((row["task"], row["b"], row["upper_bound"]) for row in compared) == [("mucr_exp", "b", "false")]
    saved = json.loads(report["json"].read_text())
    assert saved["ranking"]["upper_bounds"] == ["mucr_exp_gold"]
    assert {task: saved["cells"][model][task]["upper_bound"] for model in ("a", "b") for task in flag} == flag
    assert {saved["cells"][model]["mucr_exp_gold"]["tied_with_best"] for model in ("a", "b")} == {None}
    rows = compare_models(board, found, "a", "b")
    assert {row["task"]: row["upper_bound"] for row in rows} == flag
    caveat = {"mucr_exp": "", "mucr_exp_gold": "upper bound, not the paper's number"}  # each export's text too
    assert {row["task"]: row["caveat"] for row in rows} == caveat
    assert {task: saved["cells"]["a"][task]["caveat"] for task in flag} == caveat
    assert {(row["task"], row["caveat"]) for row in compared} == {("mucr_exp", "")}
    written = list(csv.DictReader(io.StringIO(csv_text(COMPARE_COLUMNS, [dict_row(COMPARE_COLUMNS, r) for r in rows]))))
    assert {row["task"]: row["upper_bound"] for row in written} == {"mucr_exp": "false", "mucr_exp_gold": "true"}
    # the plot's data: mucr_exp_gold's panel is an upper bound, labelled as the tables label it (drawn apart, never
    # bold: tests/reports/test_plots.py); mucr_exp's is the paper's number
    panels = {panel.task: panel for panel in headline_panels(board, found)}
    assert panels["mucr_exp_gold"].upper_bound and panels["mucr_exp_gold"].caveat == board.caveat("mucr_exp_gold")
    assert board.caveat("mucr_exp_gold") == "upper bound, not the paper's number"
    assert not panels["mucr_exp"].upper_bound and panels["mucr_exp"].caveat == ""


def test_a_stage_whose_headline_is_coverage_is_shown_and_never_averaged_or_ranked_by(tmp_path):
    """nleye_describe's described_rate is the share of images described, not a score: a model that answered every
    question wrong and described every image ranked on it. Its column is labelled and stays, out of the average and
    of the ranking."""
    from abductive_tasks.reports.leaderboard.ranking import average, average_tasks, ranking
    from abductive_tasks.reports.leaderboard.render import headline_panels

    def board_of(tasks: tuple[str, ...], folder: Path):
        for model in ("fixed", "m"):
            IdentityRecord(identity(), None, tasks, model, "spec.yaml").write(folder / model / SPEC_RECORD)
        board = collect(folder, TaskIndex())
        for model, (described, score) in {"fixed": (1.0, 0.0), "m": (0.5, 0.5)}.items():
            board.rows[model] = {"nleye_describe": {"described_rate,none": described}} | {
                task: {f"{board.headline[task]},none": score} for task in tasks if task != "nleye_describe"
            }
        return board

    board = board_of(("nleye_describe", "nleye_triplet_described"), tmp_path / "one")
    assert board.stages == {"nleye_describe"} and board.tasks == ["nleye_describe", "nleye_triplet_described"]
    assert average_tasks(board) == [] and ranking(board) == {"fixed": "2", "m": "1"}  # by the reader, not coverage
    board = board_of(("nleye_triplet", "nleye_describe", "nleye_triplet_described"), tmp_path / "two")
    assert average_tasks(board) == ["nleye_triplet", "nleye_triplet_described"] and average(board, "fixed") == 0.0
    table = headline_table(board)
    assert "average (%, 2 tasks)" in table.header
    assert "nleye_describe (described_rate; %, stage coverage, not a score)" in table.header
    assert not board.bold_best("nleye_describe") and board.bold_best("nleye_triplet")  # a coverage has no best model
    assert {panel.task: panel.bold_best for panel in headline_panels(board, statistics(board))} == {
        "nleye_triplet": True,
        "nleye_describe": False,
        "nleye_triplet_described": True,
    }
    assert board.cell("fixed", "nleye_describe") == "100.0"
    report = write_report(tmp_path / "two", task_index=TaskIndex(), board=board)  # the exports label it as the table
    stage = {"nleye_triplet": "", "nleye_describe": "stage coverage, not a score", "nleye_triplet_described": ""}
    for row in csv.DictReader(report["csv"].open()):
        assert {task: row[f"{task}__caveat"] for task in stage} == stage
    assert {(row["task"], row["caveat"]) for row in csv.DictReader(report["long_csv"].open())} == set(stage.items())
    saved = json.loads(report["json"].read_text())
    assert saved["ranking"]["stages"] == ["nleye_describe"] and saved["ranking"]["upper_bounds"] == []
    assert {task: saved["cells"]["m"][task]["caveat"] for task in stage} == stage
    assert (
        TaskIndex().facts("mucr_c2e_ccot")
        and "mucr_c2e_ccot_graph" in board_of(("mucr_c2e_ccot_graph", "mucr_c2e"), tmp_path / "graphs").stages
    )  # CCoT's scene-graph stages alike (scene_graph_rate)


def test_a_cell_read_from_another_models_outputs_names_them_and_is_another_protocol(tmp_path, capsys):
    """close's cell read weak's descriptions (a describer named on purpose): it says so in every table, is compared
    and bolded only with the cells that read the same, and its row is not averaged; strong and weak (each on its own
    outputs) are compared as before."""
    from abductive_tasks.runs.chain import PENDING

    read = {"nleye_describe": {"kind": "descriptions", "from": "run", "model": "weak", "digest": PENDING}}
    own = {"nleye_describe": {"kind": "descriptions", "from": "run", "model": "", "digest": PENDING}}
    for model, consistent, inputs in (("strong", 30, own), ("close", 36, read), ("weak", 10, own)):
        write_spec(tmp_path, model, inputs=inputs)
        write_logged_run(tmp_path, model, triplet_records(consistent), inputs=inputs)
    board = collect(tmp_path, TaskIndex())
    assert [board.read_from(model, "nleye_triplet") for model in ("strong", "close", "weak")] == [
        {},
        {"descriptions": "weak"},
        {},
    ]
    assert board.cell("close", "nleye_triplet").endswith("] (descriptions: weak)")
    assert board.cell("strong", "nleye_triplet").endswith("]")
    found = statistics(board)
    assert set(found.ties["nleye_triplet"].best) == {"strong", "close"}  # each the best of its own protocol
    assert "nleye_triplet: close read the descriptions of weak, not its own" in "\n".join(found.notes)
    report = write_report(tmp_path, task_index=TaskIndex(), board=board, found=found)
    pairs = {(row["a"], row["b"]) for row in csv.DictReader(report["comparisons_csv"].open())}
    assert pairs == {("strong", "weak")}
    rows = {row[1]: row for row in markdown_rows(report["markdown"].read_text()) if row[1] in board.rows}
    assert rows["close"][0] == "—" and rows["close"][2].endswith("(descriptions: weak)")
    assert [rows[model][0] for model in ("strong", "weak")] == ["1", "2"]
    wide = {row["model"]: row for row in csv.DictReader(report["csv"].open())}
    assert (
        wide["close"]["nleye_triplet__read_from"] == "descriptions: weak"
        and wide["strong"]["nleye_triplet__read_from"] == ""
    )
    saved = json.loads(report["json"].read_text())["cells"]
    assert saved["close"]["nleye_triplet"]["read_from"] == {"descriptions": "weak"}
    assert saved["strong"]["nleye_triplet"]["read_from"] == {}
    assert main([str(tmp_path), "--compare", "close", "strong"]) == 0
    compared = list(csv.DictReader((tmp_path / "leaderboard" / "compare_close_vs_strong.csv").open()))
    assert compared[0]["difference"] == "" and compared[0]["note"] == (
        "not compared: the two read different outputs (close: the descriptions of weak; strong: its own)"
    )


def test_a_task_one_of_two_compared_models_did_not_run_is_said_not_run_not_other_data(tmp_path):
    """--compare said "the two ran on different data" of a task one model's spec does not list (dp had no
    nleye_describe of its own): it is not run."""
    write_spec(tmp_path, "a")
    IdentityRecord(identity(), None, ("nleye_triplet",), "b", "spec.yaml").write(tmp_path / "b" / SPEC_RECORD)
    for model in ("a", "b"):
        write_logged_run(tmp_path, model, triplet_records(20))
    assert main([str(tmp_path), "--compare", "a", "b"]) == 0
    rows = {row["task"]: row for row in csv.DictReader((tmp_path / "leaderboard" / "compare_a_vs_b.csv").open())}
    assert rows["nleye_pairs"]["note"] == "a: not run; b: not run" and rows["nleye_triplet"]["difference"] == "0.0"


def test_the_compare_table_labels_an_upper_bound_and_a_stage():
    """--compare printed mucr_exp_gold's difference as a plain exp_score: the gold-conditioned bound unlabelled."""
    from abductive_tasks.reports.leaderboard.render import compare_markdown

    rows = [
        {"task": "mucr_exp_gold", "metric": "exp_score", "value_a": 6.5, "value_b": 4.0, "difference": 2.5},
        {"task": "nleye_describe", "metric": "described_rate", "value_a": 1.0, "value_b": 0.5, "difference": 0.5},
        {"task": "mucr_c2e", "metric": "c2e_accuracy", "value_a": 0.5, "value_b": 0.25, "difference": 0.25},
    ]
    caveats = {"mucr_exp_gold": "upper bound, not the paper's number", "nleye_describe": "stage coverage, not a score"}
    table = {row[0]: row for row in markdown_rows(compare_markdown(rows, "a", "b", caveats))}
    assert table["mucr_exp_gold"][1:5] == [
        "exp_score (raw; upper bound, not the paper's number)",
        "6.500",
        "4.000",
        "2.500",
    ]
    assert table["nleye_describe"][1] == "described_rate (%; stage coverage, not a score)"
    assert table["mucr_c2e"][1] == "c2e_accuracy (%)"


def test_a_folder_without_runs_is_said_in_one_line_and_no_report_is_written(tmp_path, capsys):
    """``leaderboard`` on an empty folder wrote an empty report without saying so."""
    assert main([str(tmp_path)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert (
        line
        == f"abductive-eval leaderboard: no run to rank under {tmp_path} (no readable *_results.json); nothing written"
    )
    assert not (tmp_path / "leaderboard").exists()


def test_a_folder_of_plain_runs_is_said_to_hold_no_batch_run(tmp_path, capsys):
    """A new user's `leaderboard results/demo` (two plain runs) said each was not shown, then "no finished run ... (no
    readable *_results.json)", though both results were readable."""
    run = tmp_path / "dumb_pixel-0123abcd"
    run.mkdir()
    (run / "20260101_000000_results.json").write_text(json.dumps({"results": {}, "config": {"model": "dumb_pixel"}}))
    assert main([str(tmp_path)]) == 1
    *notes, line = capsys.readouterr().err.splitlines()
    assert notes and all(note.startswith("leaderboard: ") for note in notes)
    expected = f"abductive-eval leaderboard: no run to rank under {tmp_path} (each run found is noted above)"
    assert line == expected + "; nothing written"


@pytest.mark.parametrize("kind", ["a FIFO", "a directory"])
def test_the_report_never_replaces_what_is_no_regular_file(tmp_path, capsys, kind):
    write_spec(tmp_path, "m")
    write_logged_run(tmp_path, "m", triplet_records(20))
    out = tmp_path / "leaderboard"
    out.mkdir()
    (os.mkfifo if kind == "a FIFO" else os.mkdir)(out / "leaderboard.html")
    assert main([str(tmp_path)]) == 1
    assert f"{kind}, not a regular file" in capsys.readouterr().err
    assert sorted(path.name for path in out.iterdir()) == ["leaderboard.html"]


def test_an_out_that_cannot_be_a_folder_is_one_line_naming_it(tmp_path, capsys):
    """--out /dev/null (or a file, or a path through one) printed the raw errno text ([Errno 17] File exists):
    one line naming the path and what it is, exit 2, before anything is read or written."""
    write_spec(tmp_path, "m")
    write_logged_run(tmp_path, "m", triplet_records(20))
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    cases = {
        "/dev/null": "--out /dev/null: a character device, not a folder",
        str(tmp_path / "dangling"): f"--out {tmp_path / 'dangling'}: a link to nothing, not a folder",
        str(tmp_path / "notes.txt"): f"--out {tmp_path / 'notes.txt'}: a file, not a folder",
        str(tmp_path / "notes.txt" / "board"): (
            f"--out {tmp_path / 'notes.txt' / 'board'}: {tmp_path / 'notes.txt'} is a file, not a folder"
        ),
    }
    for out, said in cases.items():
        assert main([str(tmp_path), "--out", out]) == 2
        assert capsys.readouterr().err == f"abductive-eval leaderboard: {said}; name a folder to write the report in\n"
    assert (tmp_path / "notes.txt").read_text() == "mine" and not (tmp_path / "leaderboard").exists()
    with pytest.raises(SystemExit):  # --out '' was the current folder: the report written among the user's files
        main([str(tmp_path), "--out", ""])
    assert "--out is empty; name a folder to write the report in" in capsys.readouterr().err
    (tmp_path / "leaderboard").write_text("")
    assert main([str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"abductive-eval leaderboard: {tmp_path / 'leaderboard'} (the default --out): a file, not a folder; name a "
        "folder to write the report in\n"
    )


def test_the_report_says_where_its_numbers_come_from_and_marks_another_data_version(tmp_path):
    """Header block: the dates, the package versions, each benchmark's data versions with their sources and
    fingerprints and the rows on each; footnote: task versions, each model's weights and judge; the cells on the
    other data version marked in the tables, the plots' bars and leaderboard.json."""
    import shutil

    from abductive_tasks.inputs.loading import SAMPLE_ROOT
    from abductive_tasks.reports.leaderboard.cells import data_key
    from abductive_tasks.reports.leaderboard.render import headline_panels
    from abductive_tasks.runs.identity import data_fingerprint

    copy = tmp_path / "copies" / "nleye-v2"
    shutil.copytree(SAMPLE_ROOT, copy)
    with next((copy / "nleye").glob("*.csv")).open("a") as annotations:
        annotations.write("\n")  # another version of the annotations
    data = {"a": data_fingerprint("nleye", "sample"), "b": data_fingerprint("nleye", str(copy))}
    results = tmp_path / "results"
    weights = {
        "m1": {},
        "m2": {"name": "llava-1.5-7b-hf", "sha256": "c" * 64},
        "m3": {"name": "o/m", "revision": "d" * 40},
    }
    for model, which in (("m1", "a"), ("m2", "a"), ("m3", "b")):
        record = identity() | {"data": {"nleye": data[which]}}
        if model == "m2":
            record["judge"] = {"url": "http://127.0.0.1:9/v1", "model_version": "Qwen/Qwen2.5-72B-Instruct"}
        if model == "m3":  # a backend of ours, versioned apart from lmms-eval (lmms-eval's dummy: with it)
            record["model"]["backend"] = "dumb_pixel"
            record["versions"] |= backend_versions("dumb_pixel")
        IdentityRecord(record, None, TASKS, model, "spec.yaml", weights=weights[model]).write(
            results / model / SPEC_RECORD
        )
        folder = results / model / RUNS_DIR / "20261128_101500"
        IdentityRecord(record, None, TASKS, model, "spec.yaml", 0, weights[model]).write(folder / RUN_RECORD)
        path = folder / record["model"]["backend"] / "20261128_101500_results.json"
        path.parent.mkdir(parents=True)
        values = {"nleye_triplet": triplet(0.25, 0.5), "nleye_pairs": {"order_faithful_acc,none": 0.75}}
        run = results_file(values)
        run["config"] |= {"model": record["model"]["backend"], "model_args": record["model"]["model_args"]}
        path.write_text(json.dumps(run))
        for task, task_values in values.items():
            write_samples(path, task, headline_records(task, task_values))
    written = write_report(results, task_index=TaskIndex())
    page, markdown = written["html"].read_text(), written["markdown"].read_text()
    key_a, key_b = data_key(data["a"]), data_key(data["b"])
    header = markdown.split("Our runs:")[0]
    lmms_eval, pixel_version = identity()["versions"]["lmms-eval"], backend_versions("dumb_pixel")["backend dumb_pixel"]
    assert re.search(  # every backend the rows ran is named: lmms-eval's dummy was left out
        r"Built \d{4}-\d\d-\d\d \d\d:\d\d UTC; runs 2026-11-28; abductive-tasks \S+, lmms-eval \S+, "
        + re.escape(f"backend dummy of lmms-eval {lmms_eval} (m1, m2), backend dumb_pixel {pixel_version} (m3)."),
        header,
    )
    assert (
        f"Data, NL-Eye: data A: embedded sample, fingerprint {key_a} (1 annotation file, 36 images) — m1, m2; "
        f"data B: {copy}, fingerprint {key_b} (1 annotation file, 36 images) — m3." in header
    )
    footnote = markdown.split("Not shown")[0].split("|\n\n")[-1]
    assert f"nleye_triplet {VERSION['nleye_triplet']}" in footnote
    assert "m1 (dummy: no weights; judge: none)" in footnote
    assert f"m2 (dummy: weights llava-1.5-7b-hf sha256:{'c' * 12}; judge: Qwen/Qwen2.5-72B-Instruct)" in footnote
    assert f"m3 (dumb_pixel: weights o/m@{'d' * 12}; judge: none)" in footnote
    rows = {row[1]: row for row in markdown_rows(markdown) if row[1] in ("m1", "m2", "m3")}
    column = next(index for index, name in enumerate(markdown_rows(markdown)[0]) if name.startswith("nleye_triplet"))
    # m2's judge is another protocol (settings B: the fewest rows; a tie goes to the first row, m1)
    assert [rows[model][column].split(" ", 1)[1] for model in ("m1", "m2", "m3")] == [
        "(data A; settings A)",
        "(data A; settings B)",
        "(data B; settings A)",
    ]
    assert (
        "Score settings, NL-Eye: settings A: defaults, judge none — m1, m3; "
        "settings B: defaults, judge Qwen/Qwen2.5-72B-Instruct — m2." in header
    )
    assert key_a in page and key_b in page and "(data B)" in page and f"data B: {copy}" in page
    board = collect(results, TaskIndex())
    bars = {bar.model: bar.data for bar in headline_panels(board, statistics(board))[0].bars}
    assert bars == {"m1": "data A", "m2": "data A", "m3": "data B"}
    saved = json.loads(written["json"].read_text())
    assert saved["cells"]["m3"]["nleye_triplet"]["data_label"] == "data B"
    assert [saved["cells"][model]["nleye_triplet"]["settings_label"] for model in ("m1", "m2", "m3")] == [
        "settings A",
        "settings B",
        "settings A",
    ]
    (version_b,) = [entry for entry in saved["provenance"]["data"]["nleye"] if entry["label"] == "data B"]
    assert version_b["hashes"] == {name: data["b"][name] for name in ("annotations_sha256", "images_sha256")}
    assert version_b["models"] == ["m3"] and saved["provenance"]["runs"] == ["2026-11-28", "2026-11-28"]
    # show of one of these runs says the same, from the batch's records
    from abductive_tasks.reports.leaderboard.provenance import run_lines

    path = next((results / "m2").rglob("*_results.json"))
    lines = run_lines(json.loads(path.read_text()), path)
    assert lines[1] == f"Data, NL-Eye: embedded sample, fingerprint {key_a} (1 annotation file, 36 images)"
    assert (
        lines[2]
        == f"Model: dummy (response=1); weights llava-1.5-7b-hf sha256:{'c' * 12}; judge: Qwen/Qwen2.5-72B-Instruct"
    )
    # the weights are the run's own, never the spec's of today: a run recorded without them says so
    run_record = path.parents[1] / RUN_RECORD
    older = IdentityRecord.read(run_record)
    older.identity["model"].pop("weights")
    IdentityRecord(**{**older.__dict__, "weights": None}).write(run_record)
    lines = run_lines(json.loads(path.read_text()), path)
    assert lines[2].startswith("Model: dummy (response=1); weights not recorded;")


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_mid_report_leaves_no_staging_folder_and_the_earlier_report(tmp_path, monkeypatch, number):
    """SIGTERM (``kill``, a scheduler) or SIGHUP (a closed terminal) while ``abductive-eval leaderboard`` writes:
    at the signals' default action the process ended on the spot, leaving its staging folder in the report's folder
    (one more each stop); now the command ends as ``SystemExit(128 + signal)``, removes it, keeps the earlier report
    whole and leaves the handlers as they were."""
    results = tmp_path / "results"
    write_spec(results, "model-a")
    write_run(results, "model-a", "01-run1", {"nleye_triplet": triplet(0.25, 0.5)})
    assert cli.main(["leaderboard", str(results)]) == 0
    out = results / "leaderboard"
    earlier = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    write_run(results, "model-a", "02-run2", {"nleye_pairs": {"order_faithful_acc,none": 0.75}})

    def stopped_while_writing(*args, **kwargs):
        os.kill(os.getpid(), number)  # its handler runs before this returns
        raise AssertionError("the signal did not stop the report")

    monkeypatch.setattr(leaderboard_package, "write_csv", stopped_while_writing)
    at_default = signal.signal(number, signal.SIG_DFL)  # as at a terminal (nohup or a background job ignores SIGHUP)
    before = {signal.SIGTERM: signal.getsignal(signal.SIGTERM), signal.SIGHUP: signal.getsignal(signal.SIGHUP)}
    try:
        with pytest.raises(SystemExit) as stop:
            cli.main(["leaderboard", str(results)])
        assert {signal.SIGTERM: signal.getsignal(signal.SIGTERM), signal.SIGHUP: signal.getsignal(signal.SIGHUP)} == (
            before
        )
    finally:
        signal.signal(number, at_default)
    assert stop.value.code == 128 + number
    assert not list(out.glob(".staging-*"))
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == earlier


def test_a_signal_ignored_at_start_stays_ignored(tmp_path, monkeypatch):
    """``nohup abductive-eval ui &`` ignores SIGHUP, so that closing the terminal leaves it serving: the stop handling
    of the quick commands takes only signals at their default action."""
    results = tmp_path / "results"
    write_spec(results, "model-a")
    write_run(results, "model-a", "01-run1", {"nleye_triplet": triplet(0.25, 0.5)})
    seen = {}

    def written_with(*args, **kwargs):
        seen.update({number: signal.getsignal(number) for number in (signal.SIGHUP, signal.SIGTERM)})
        return real_write_csv(*args, **kwargs)

    real_write_csv = leaderboard_package.write_csv
    monkeypatch.setattr(leaderboard_package, "write_csv", written_with)
    previous = {signal.SIGHUP: signal.signal(signal.SIGHUP, signal.SIG_IGN)}
    previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        assert cli.main(["leaderboard", str(results)]) == 0
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    assert seen[signal.SIGHUP] is signal.SIG_IGN and callable(seen[signal.SIGTERM])


def test_a_pool_worker_forked_while_a_quick_command_runs_ends_on_a_stop_signal():
    """A worker forked inside the stop handling (``browse``'s thumbnails, ``export-sherlock``'s chunks) inherited its
    handler, so a SIGTERM to it became its job's result (the pool catches SystemExit) and the command exited 143 in
    silence; it dies as before, the pool breaks and the command goes on as it did then (a blind review)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    at_default = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with cli.stops_unwinding(), ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            job = pool.submit(signal.raise_signal, signal.SIGTERM)
            with pytest.raises(BrokenProcessPool):
                job.result(timeout=60)
    finally:
        signal.signal(signal.SIGTERM, at_default)


def test_the_average_spans_shares_of_units_on_the_main_protocol_and_ranks_ties_as_printed():
    """ranking.average_tasks / average / ranking by hand. Sherlock's comparison_acc is a signed score (-100..100 %),
    not a share of units: never averaged. b's mean (1/12 and 11/12) is 49.99999999999999 in floating point, a's 50.0:
    equal as printed (50.0), so they share a rank. A cell on another model's outputs is its own protocol: its row gets
    no average and no rank."""
    from abductive_tasks.reports.leaderboard.cells import Leaderboard
    from abductive_tasks.reports.leaderboard.ranking import average, average_tasks, ranking

    headline = {
        "nleye_triplet": "consistency_acc",
        "nleye_pairs": "order_faithful_acc",
        "sherlock_comparison": "comparison_acc",
    }
    scores = {"a": (0.5, 0.5, -40.0), "b": (1 / 12, 11 / 12, 10.0), "c": (0.75, 0.75, 0.0)}
    rows = {
        model: {task: {f"{metric},none": value} for (task, metric), value in zip(headline.items(), values, strict=True)}
        for model, values in scores.items()
    }
    board = Leaderboard(rows, list(headline), headline, dict.fromkeys(headline, True))
    assert average_tasks(board) == ["nleye_triplet", "nleye_pairs"]
    assert (average(board, "a"), average(board, "c")) == (50.0, 75.0)
    assert average(board, "b") == pytest.approx(50.0) and average(board, "b") != 50.0
    assert ranking(board) == {"a": "2=", "b": "2=", "c": "1"}
    board.reads = {"c": {"nleye_pairs": {"descriptions": "dd"}}}
    assert average(board, "c") is None
    assert ranking(board) == {"a": "1=", "b": "1=", "c": "—"}


def test_cell_precision_steps_at_10_and_1_points():
    """cells.precision: no decimal from an interval 10 points wide, one from 1 point, else two."""
    from abductive_tasks.reports.leaderboard.cells import precision

    assert [precision(0.0, width) for width in (10.0, 9.99, 1.0, 0.99)] == [0, 1, 1, 2]
    assert (precision(None, None), precision(5.0, 5.0), precision(None, None, percent=False)) == (1, 1, 3)


def test_a_task_run_only_as_an_asked_tasks_upstream_is_shown_labelled_and_never_averaged(tmp_path, sample_spec):
    """A spec asking for mucr_c2e, mucr_e2c and mucr_exp: the batch runs mucr_cue too (mucr_exp reads its picks). It
    was averaged as if asked (the walk: 42.3 instead of 48.6); now its column is shown, labelled, and left out of the
    average, and the legend lists the tasks averaged. A spec record written before `asked` asked for all its tasks."""
    from abductive_tasks.reports.leaderboard.ranking import average, average_tasks
    from abductive_tasks.reports.leaderboard.render import legend

    asked, tasks = ("mucr_c2e", "mucr_e2c", "mucr_exp"), ("mucr_c2e", "mucr_e2c", "mucr_cue", "mucr_exp")
    assert sample_spec(",".join(asked)).asked == asked  # what the batch records: the spec's tasks, not its stages
    assert set(sample_spec(",".join(asked)).tasks) == set(tasks)

    def board_of(folder: Path, asked_tasks: tuple[str, ...] | None):
        IdentityRecord(identity(), None, tasks, "m", "spec.yaml", asked=asked_tasks).write(folder / "m" / SPEC_RECORD)
        assert IdentityRecord.read(folder / "m" / SPEC_RECORD).asked == asked_tasks
        board = collect(folder, TaskIndex())
        scores = {"mucr_c2e": 0.5, "mucr_e2c": 0.5, "mucr_cue": 0.0, "mucr_exp": None}
        board.rows["m"] = {task: {f"{board.headline[task]},none": value} for task, value in scores.items()}
        return board

    board = board_of(tmp_path / "new", asked)
    assert board.upstream_only == {"mucr_cue"} and average_tasks(board) == ["mucr_c2e", "mucr_e2c"]
    assert average(board, "m") == 50.0
    header = headline_table(board).header
    assert "mucr_cue (cue_accuracy; %, upstream only, not asked by the spec)" in header
    assert "average (%, 2 tasks)" in header
    assert legend(board).endswith(
        "Averaged (2 tasks): mucr_c2e, mucr_e2c. Not asked by the spec, run as upstream only: mucr_cue."
    )
    old = board_of(tmp_path / "old", None)
    assert old.upstream_only == set() and average_tasks(old) == ["mucr_c2e", "mucr_e2c", "mucr_cue"]


@pytest.fixture
def sample_spec(tmp_path, monkeypatch):
    """The plan of one dummy model of a spec naming ``tasks`` (comma-separated) on the sample data."""
    from abductive_tasks.runs.plan import plan
    from abductive_tasks.runs.spec import load_spec

    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))

    def planned(tasks: str):
        path = tmp_path / "spec.yaml"
        path.write_text(json.dumps({"tasks": tasks.split(","), "models": [{"name": "a", "backend": "dummy"}]}))
        (model_plan,) = plan(load_spec(path), TaskIndex()).models
        return model_plan

    return planned


def test_the_fix_for_a_copied_results_folder_names_the_output_dir_to_set(tmp_path):
    """A copy of a batch's results folder: its notes said to rerun the spec, which writes to the original and finds
    everything done there, so the copy stayed as it was (a walkthrough). The fix now says the output_dir to set."""
    spec = tmp_path / "spec.yaml"
    spec.write_text("tasks: [nleye_triplet]\noutput_dir: original\nmodels: [{name: m, backend: random_baseline}]\n")
    for folder in (tmp_path / "original", tmp_path / "copy"):
        write_spec(folder, "m", spec_path=str(spec))
        write_run(folder, "m", "01-full", {"nleye_triplet": triplet(7 / 12, 0.5)})
        (folder / "m" / RUNS_DIR / "01-full" / RUN_RECORD).write_text("{")  # damaged: a note with its fix
    command = f"abductive-eval batch {spec} --model m"
    (copied,) = [note for note in collect(tmp_path / "copy", TaskIndex()).notes if "fix:" in note]
    assert copied.endswith(
        f"fix: {command}, its `output_dir` set to {tmp_path / 'copy'} (it writes to {tmp_path / 'original'}: this "
        "folder is a copy)"
    )
    (original,) = [note for note in collect(tmp_path / "original", TaskIndex()).notes if "fix:" in note]
    assert original.endswith(f"fix: {command}")


def test_show_says_when_a_run_ran_in_utc_whatever_zone_lmms_eval_wrote_its_time_in():
    """Plain lmms-eval stamps its files in UTC+8 (its --timezone default): show printed "Run 2026-12-05" for a run
    made at 2026-12-04 20:28 UTC (a walkthrough). The time is read in the run's own zone and said in UTC."""
    from abductive_tasks.reports.leaderboard.provenance import run_lines, run_time

    assert run_time("20261205_042800", "Asia/Singapore") == "2026-12-04 20:28 UTC"  # lmms-eval's default, UTC+8
    assert run_time("20261205_042800", None) == ""  # no zone recorded: the date as written
    assert run_time("20261204_202800", "UTC") == "2026-12-04 20:28 UTC"  # abductive-eval's
    assert run_time("20261204_152800", "America/New_York") == "2026-12-04 20:28 UTC"
    assert run_time("results", "UTC") == "" and run_time("20261204_202800", "Nowhere/Else") == ""
    plain = {"date": "20261205_042800", "config": {"resolved_cli_args": {"timezone": "Asia/Singapore"}}}
    assert run_lines(plain, Path("20261205_042800_results.json"))[0].startswith("Run 2026-12-04 20:28 UTC; ")
