"""The leaderboard report on hand-written results files: values, later runs winning, plots, paper-reported rows apart."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PIL import Image

from abductive_tasks.leaderboard import PAPER_REPORTED, REFERENCE, write_report
from abductive_tasks.suite import Suite


def write_results(path: Path, results: dict, model_args: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"results": results, "config": {"model": "m", "model_args": model_args, "limit": None}}))


def triplet(acc: float, physical: float) -> dict:
    return {
        "alias": "nleye_triplet",
        "consistency_acc,none": acc,
        "consistency_acc_stderr,none": "N/A",
        "order1_acc,none": 0.9,
        "consistency_by_category,none": {"physical": {"acc": physical, "n": 2}, "social": {"acc": 0.0, "n": 2}},
    }


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict[str, Path]:
    results = tmp_path_factory.mktemp("results")
    write_results(results / "model-a" / "run1" / "20260101_000000_results.json", {"nleye_triplet": triplet(0.25, 0.5)})
    write_results(results / "model-a" / "run2" / "20260102_000000_results.json", {"nleye_pairs": {"order_faithful_acc,none": 0.75}})
    write_results(results / "model-b" / "20260101_000000_results.json", {"nleye_triplet": triplet(0.1, 1.0), "not_ours": {"acc,none": 1.0}})
    newer = results / "model-b" / "20260103_000000_results.json"  # a rerun: its numbers replace the older ones
    write_results(newer, {"nleye_triplet": triplet(0.5, 0.0)})
    newer.touch()
    return write_report(results, suite=Suite())


def test_csv_one_row_per_model_with_headline_metrics(report):
    rows = list(csv.reader(report["csv"].open()))
    assert rows == [
        ["model", "nleye_triplet (consistency_acc)", "nleye_pairs (order_faithful_acc)"],
        ["model-a", "0.2500", "0.7500"],
        ["model-b", "0.5000", ""],
    ]


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
