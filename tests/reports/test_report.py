"""The end-of-run summary abductive-eval prints (abductive_tasks.reports.report), on hand-written results."""

from __future__ import annotations

import re

import pytest

from abductive_tasks.reports import report
from abductive_tasks.reports.samples import limit_text
from abductive_tasks.reports.specs import metric_scale

SCALES = {
    "consistency_acc": "fraction",
    "consistency_by_category": "fraction",
    "comparison_acc": "percent",
    "exp_score": "raw",
}
HEADLINES = {"nleye_triplet": "consistency_acc", "sherlock_comparison": "comparison_acc", "mucr_exp": "exp_score"}


def nleye_triplet(**counts) -> dict:
    """An NL-Eye triplet task's results as lmms-eval writes them (filter suffix, stderr entries, group alias)."""
    return {
        "alias": " - nleye_triplet",
        "consistency_acc,none": 7 / 12,
        "consistency_acc_stderr,none": 0.135,
        "consistency_by_category,none": {
            "physical": {"acc": 1.0, "n": 2, "lower": 1.0, "upper": 1.0},
            "social": {"acc": 0.5, "n": 2, "lower": 0.0, "upper": 1.0},
        },
        "consistency_by_category_stderr,none": "N/A",
        "triplet_counts,none": {
            "documents": 24,
            "items_scored": 12,
            "items_incomplete": 0,
            "unparsable": 1,
            "request_failed": 0,
            **counts,
        },
        "triplet_ci95,none": {
            "consistency_acc": {
                "lower": 1 / 3,
                "upper": 5 / 6,
                "stderr": 0.135,
                "units": 12,
                "resamples": 1000,
                "chance": 0.25,
            }
        },
    }


def run(results: dict, **extra) -> dict:
    return {
        "results": results,
        "config": {"model": "dumb_pixel", "model_args": "", "limit": None},
        "model_name": "dumb_pixel",
        **extra,
    }


def lines(text: str) -> list[str]:
    """Lines with runs of spaces collapsed (the table pads its columns)."""
    return [" ".join(line.split()) for line in text.splitlines()]


def test_one_row_per_task_in_percent_with_interval_chance_coverage_and_counts(tmp_path):
    results = {
        "nleye": {" ": " ", "alias": "nleye"},  # a group header: no row
        "nleye_triplet": nleye_triplet(),
        "sherlock_comparison": {
            "comparison_acc,none": 6.111111,
            "comparison_acc_stderr,none": "N/A",
        },  # not yet on the task-spec shape
        "mucr_exp": {"exp_score,none": None, "exp_counts,none": {"documents": 12, "items_scored": 12}},
        "mme": {"mme_cognition_score,none": 300.0},  # not ours
    }
    text = report.summary(run(results), HEADLINES.get, tmp_path / "dumb_pixel-bbab07ed", scale=SCALES.__getitem__)
    shown = lines(text)
    rule = shown.pop(5)
    assert re.fullmatch(r"\|-+\|-+\|-+:\|-+\|-+:\|-+\|-+:\|-+:\|", rule)  # numbers right-aligned
    assert shown[:11] == [
        f"abductive-eval summary: dumb_pixel, results in {tmp_path / 'dumb_pixel-bbab07ed'}",
        "Headline metric of each task in percent, as the papers report (raw: not a percentage); the results",
        "JSON keeps each paper's scale. Coverage: units scored/present, in the unit the 95% CI resamples.",
        "",
        "| task | headline metric | value | 95% CI | chance | coverage | unparsable | failed requests |",
        "| mucr_exp | exp_score (raw) | n/a | - | - | 0/12 items (not scored) | - | - |",  # no judge; a 0-10 score
        "| nleye_triplet | consistency_acc | 58.3 | [33.3, 83.3] | 25.0 | 12/12 items | 1 | 0 |",  # 7/12, x100
        "| sherlock_comparison | comparison_acc | 6.1 | - | - | - | - | - |",  # already a percentage: as is
        # a legend line for each metric shown that is not an accuracy
        "Sherlock comparison_acc: pairwise agreement with the annotators' ratings rescaled so that chance is 0 and "
        "full agreement 100 (-100 to 100; below 0: worse than chance)",
        "MuCR exp_score: the LLM judge's mean 0-10 score of the explanations (raw, not a percentage)",
        "",
    ]
    assert shown[11:] == [
        "Breakdowns (percent unless raw: value [95% CI] n=units):",
        "nleye_triplet consistency_by_category: physical 100.0 [100.0, 100.0] n=2;",
        "social 50.0 [0.0, 100.0] n=2",
        "",
        "Other tasks (lmms-eval's table above): mme",
    ]
    assert "consistency_acc_stderr" not in text and "triplet_ci95" not in text


@pytest.mark.parametrize(("limit", "text"), [(5.0, "5"), (5, "5"), (0.25, "0.25"), (12.5, "12.5")])
def test_a_limit_is_written_as_typed(limit, text):
    assert limit_text(limit) == text


def test_judge_failures_are_called_out_as_failed_requests_are():
    """A judge down (`items_judge_failed: 2` in the results JSON) was a summary showing 0 failed requests and no note:
    no different from a run with no judge configured (a new user's finding)."""
    results = {"nleye_triplet": nleye_triplet(explanations_judge_failed=2, items_judge_failed=None)}
    text = report.summary(run(results), HEADLINES.get, scale=SCALES.__getitem__)
    assert [line for line in lines(text) if line.startswith("!")] == [
        "! nleye_triplet: the judge failed on 2 (explanations_judge_failed); they are not scored, so this is not a "
        "clean score: check the judge (docs/judge.md) and rerun them."
    ]


def test_failed_requests_and_limit_are_called_out():
    results = {"nleye_triplet": nleye_triplet(request_failed=3)}
    text = report.summary(
        run(results, config={"model": "openai", "limit": 5.0}, model_name="gpt-4o"),  # as lmms-eval stores it
        HEADLINES.get,
        scale=SCALES.__getitem__,
    )
    assert lines(text)[:2] == [
        "abductive-eval summary: gpt-4o, results not saved (no --output_path)",
        "--limit 5: a partial evaluation, not a score",
    ]
    assert "| nleye_triplet | consistency_acc | 58.3 | [33.3, 83.3] | 25.0 | 12/12 items | 1 | 3 |" in lines(text)
    assert (
        "! nleye_triplet: 3 of 24 requests failed; they are never read as answers, "
        "so this is not a clean score: rerun them."
    ) in lines(text)


@pytest.mark.parametrize(
    ("config", "called_out"),
    [
        ({"limit": -1.0, "offset": 0}, []),  # lmms-eval's --limit -1 is every document
        ({"limit": None, "offset": 6}, ["--offset 6: a partial evaluation, not a score"]),  # 6 documents never asked
        (
            {"limit": 2.0, "offset": 1},
            ["--limit 2: a partial evaluation, not a score", "--offset 1: a partial evaluation, not a score"],
        ),
    ],
)
def test_an_offset_is_called_out_and_limit_minus_one_is_not(config, called_out):
    results = {"nleye_triplet": nleye_triplet()}
    text = report.summary(
        run(results, config={"model": "openai", **config}, model_name="m"), HEADLINES.get, scale=SCALES.__getitem__
    )
    assert [line for line in lines(text) if line.startswith("--")] == called_out


@pytest.mark.parametrize(
    ("counts", "shown"),
    [
        ({"documents": 24, "items_scored": 10, "items_incomplete": 2}, "10/12 items"),  # --limit cut two items apart
        ({"documents": 12, "items_offline_scored": 3, "items_scored": 12}, "12/12 items"),  # items_scored preferred
        # MuCR Exp: its judged means run over the pairs judged (one judge failure read "4/4 items" before)
        ({"documents": 4, "items_scored": 4, "items_judged": 3, "items_judge_failed": 1}, "3/4 items"),
        (
            {"documents": 11, "items_scored": 12, "items_judged": 12, "items_missing_upstream": 1},
            "12/12 items, 1 not asked (no upstream output), scored as unanswered",
        ),  # fmt: skip
        # DVE: its resampling unit, and the rows its protocol leaves out before pairs are formed
        ({"documents": 17, "pairs": 6, "impossible_excluded": 4}, "6/6 pairs, 4 impossible rows excluded"),
        (
            {"documents": 17, "pairs": 6, "impossible_excluded": 0, "empty_text_excluded": 2},
            "6/6 pairs, 2 rows without text excluded",
        ),
        ({"documents": 40, "gt_images": 3, "auto_images": 3, "images_incomplete": 1}, "3/4 images"),
        ({"documents": 40, "images_scored": 3, "images_incomplete": 0}, "3/3 images"),
        ({"documents": 7}, "7 documents"),
        ({}, "-"),
        ({"items_scored": None}, "-"),
    ],
)
def test_coverage(counts, shown):
    assert report.coverage(counts) == shown


@pytest.mark.parametrize(
    ("value", "scale", "shown"),
    [
        (7 / 12, "fraction", "58.3"),
        (0.0, "fraction", "0.0"),
        (-16.1111, "percent", "-16.1"),
        (5.6, "raw", "5.6"),
        (0.013996, "raw", "0.014"),
        (None, "fraction", "n/a"),
        ("N/A", "raw", "n/a"),
    ],
)
def test_format_value(value, scale, shown):
    assert report.format_value(value, scale) == shown


def test_scale_comes_from_the_task_specs():
    assert metric_scale("consistency_acc") == "fraction"  # NL-Eye's TaskSpec
    assert metric_scale("c2e_accuracy") == "fraction"  # MuCR's
    assert (
        metric_scale("comparison_acc") == "percent"
    )  # Sherlock's (0-100 in its paper), whose package loads its hooks lazily
    assert metric_scale("exp_score") == "raw"  # MuCR's 0-10 judge score
    assert metric_scale("no_such_metric") == "raw"  # undeclared: shown as is


def test_breakdown_lines_wrap_between_cells():
    cells = {f"label{index}": {"acc": index / 10, "n": 3, "lower": 0.0, "upper": 1.0} for index in range(8)}
    wrapped = report.breakdown_lines("task", {"by_label,none": cells}, scale=lambda name: "fraction")
    assert len(wrapped) > 1 and all(len(line) <= report.WIDTH for line in wrapped)
    assert " ".join(line.strip() for line in wrapped).count("n=3") == 8  # no cell split across lines
    assert wrapped[0].startswith("task by_label: label0 0.0 [0.0, 100.0] n=3;")


def test_breakdown_labels_show_control_characters_escaped():
    cells = {"\x1b[32mALL GOOD\x1b[0m": {"acc": 1.0, "n": 3, "lower": 1.0, "upper": 1.0}}
    (line,) = report.breakdown_lines("task", {"by_label,none": cells}, scale=lambda name: "fraction")
    assert line == "task by_label: \\x1b[32mALL GOOD\\x1b[0m 100.0 [100.0, 100.0] n=3"


def test_markdown_table_pads_and_aligns():
    table = report.markdown_table(["a", "value"], [["x", "1.0"], ["long", "10.0"]], right={1})
    assert table.splitlines() == ["| a    | value |", "|------|------:|", "| x    |   1.0 |", "| long |  10.0 |"]


def test_headlines_come_from_the_task_yaml():
    headline = report.headline_lookup()
    assert headline("nleye_triplet") == "consistency_acc"
    assert headline("nleye_pairs") == "order_faithful_acc"
    assert headline("nleye") is None and headline("mme") is None  # a group of ours, a task not ours


def test_coverage_counts_the_items_a_run_left_out():
    """8 of 12 NL-Eye items without descriptions: 4 of 12 covered, not 4 of 4."""
    counts = {"documents": 8, "items_scored": 4, "items_incomplete": 0, "items_without_descriptions": 8}
    assert report.coverage(counts) == "4/12 items, 8 items without descriptions left out"
    assert report.coverage({"items_scored": 4, "items_incomplete": 1}) == "4/5 items"


def test_a_sherlock_test_split_row_says_why_it_is_n_a():
    """The test split's n/a rows stood with no word why (the reason was only an INFO line of the log)."""
    unscored = {
        "alias": "sherlock_comparison_test",
        "comparison_acc,none": None,
        "comparison_counts,none": {"documents": 3, "inputs_scored": 0, "inputs_incomplete": 0},
    }
    text = report.summary(
        run({"sherlock_comparison_test": unscored, "sherlock_comparison": {**unscored, "alias": "val"}}),
        {"sherlock_comparison_test": "comparison_acc", "sherlock_comparison": "comparison_acc"}.get,
        scale=SCALES.__getitem__,
    )
    note = (
        "Sherlock's test split: n/a by design, its answer keys are private; `abductive-eval export-sherlock` writes "
        "the scores the official leaderboard takes"
    )
    assert [line.strip() for line in text.splitlines()].count(note) == 1
    assert note not in report.summary(run({"sherlock_comparison": unscored}), HEADLINES.get, scale=SCALES.__getitem__)


def test_a_task_that_bounds_the_papers_number_is_said_to_be_one_in_the_summary():
    """``mucr_exp_gold`` (Exp on the gold effect and cue) bounds the paper's Exp: the run summary says so under the
    table, as the leaderboard labels it; ``mucr_exp`` (the model's own picks) is the paper's number."""
    assert report.upper_bound_of("mucr_exp_gold") and report.upper_bound_of("mucr_exp_gold_split")
    assert not report.upper_bound_of("mucr_exp") and not report.upper_bound_of("nleye_triplet")
    results = {"nleye_triplet": nleye_triplet()}
    bounded = report.summary(
        run(results), HEADLINES.get, scale=SCALES.__getitem__, upper_bound={"nleye_triplet"}.__contains__
    )
    assert f"nleye_triplet: {report.UPPER_BOUND}" in lines(bounded)
    assert report.UPPER_BOUND not in report.summary(run(results), HEADLINES.get, scale=SCALES.__getitem__)


def test_left_out_counts_of_earlier_versions_are_named_and_a_zero_is_full_coverage():
    """Results of the versions that left items out (MuCR Exp 4.x ``items_without_picks``, strategy tasks 1.x
    ``items_without_scene_graph``, NL-Eye 1.x ``items_without_descriptions``) still read as partial; a count of 0 (a
    full run of those versions) leaves nothing out."""
    from abductive_tasks.scoring.coverage import dropped_in, dropped_units

    counts = {"items_scored": 9, "items_without_picks": 3, "items_without_scene_graph": 2}
    assert dropped_in(counts) == {"items without picks": 3, "items without scene graphs": 2}
    assert dropped_units({"exp_counts,none": counts, "exp_s1,none": 4.5}) == dropped_in(counts)
    full = {"items_scored": 4, "items_incomplete": 0, "items_without_descriptions": 0, "items_without_picks": 0}
    assert dropped_in(full) == {} and dropped_units({"triplet_counts,none": full}) == {}
    assert report.coverage(full) == "4/4 items"
    # a chained task's items without their upstream output count (at 0) and are said (a walkthrough read "12/12")
    unasked = {"documents": 11, "items_scored": 12, "items_missing_upstream": 1}
    assert report.coverage(unasked) == "12/12 items, 1 not asked (no upstream output), scored as unanswered"


@pytest.mark.parametrize(
    ("counts", "shown"),
    [
        # MuCR Exp without a judge: every item reached the metric, none was scored (read "12/12 items" before)
        ({"documents": 12, "items_scored": 12, "items_judged": 0}, "0/12 items (not scored)"),
        # DVE generation / human evaluation without the evaluator (read "6/6 pairs" before)
        ({"documents": 11, "pairs": 6, "impossible_excluded": 4}, "0/6 pairs (not scored), 4 impossible rows excluded"),
        ({"documents": 7}, "0/7 documents (not scored)"),
        ({}, "not scored"),
    ],
)
def test_coverage_of_a_headline_not_computed_is_none_scored(counts, shown):
    assert report.coverage(counts, scored=False) == shown


def test_a_row_whose_headline_was_not_computed_shows_none_scored():
    """``docs/results.md``: coverage is units scored of those present; a row showing n/a scored none of them."""
    results = {"dve_gen": {"dve_success_all,none": None, "dve_gen_counts,none": {"documents": 11, "pairs": 6}}}
    (row,) = [
        line for line in lines(report.summary(run(results), {"dve_gen": "dve_success_all"}.get)) if "dve_gen" in line
    ]
    assert row == "| dve_gen | dve_success_all | n/a | - | - | 0/6 pairs (not scored) | - | - |"


def test_a_stage_row_says_its_value_is_coverage_not_a_score():
    """``nleye_describe`` and the CCoT graph stages showed "100.0 [100.0, 100.0]" like a score, with no word that it is
    the share of documents answered (``docs/results.md``: such a stage has no score; the leaderboard labels it)."""
    assert report.stage_of("nleye_describe") and report.stage_of("mucr_c2e_ccot_graph")
    assert report.stage_of("mucr_exp_ccot_graph") and not report.stage_of("nleye_triplet")
    described = {
        "described_rate,none": 1.0,
        "describe_counts,none": {"documents": 36, "unparsable": 0, "request_failed": 0},
        "describe_ci95,none": {"described_rate": {"lower": 1.0, "upper": 1.0}},
    }
    results = {"nleye_describe": described, "nleye_triplet": nleye_triplet()}
    headlines = {"nleye_describe": "described_rate", **HEADLINES}
    shown = lines(report.summary(run(results), headlines.get, scale=lambda name: "fraction"))
    assert (
        "| nleye_describe | described_rate (stage coverage) | 100.0 | [100.0, 100.0] | - | 36 documents | 0 | 0 |"
        in (shown)
    )
    assert f"nleye_describe described_rate: {report.STAGE}" in shown
    assert "| nleye_triplet | consistency_acc | 58.3 | [33.3, 83.3] | 25.0 | 12/12 items | 1 | 0 |" in shown
    assert sum(report.STAGE in line for line in shown) == 1


def test_show_prints_each_tasks_other_metrics_with_their_intervals_and_its_counts():
    """docs/running.md: `show` prints the intervals and counts compactly; it printed the headline's interval only
    (order1_acc's, DVE's impossible_excluded were in the JSON alone). The end-of-run summary stays as it was."""
    results = {"nleye_triplet": nleye_triplet()}
    results["nleye_triplet"]["order1_acc,none"] = 0.5
    results["nleye_triplet"]["triplet_ci95,none"]["order1_acc"] = {"lower": 0.25, "upper": 0.75}
    scales = {**SCALES, "order1_acc": "fraction"}.__getitem__
    text = report.summary(run(results), HEADLINES.get, scale=scales, details=True)
    shown = lines(text)
    at = shown.index(" ".join(report.DETAILS[0].split()))
    assert shown[at : at + 5] == [
        *(" ".join(line.split()) for line in report.DETAILS),
        "nleye_triplet: order1_acc 50.0 [25.0, 75.0]",
        "nleye_triplet counts: documents 24; items_scored 12; items_incomplete 0; unparsable 1;",
        "request_failed 0",
    ]
    assert report.DETAILS[0] not in report.summary(run(results), HEADLINES.get, scale=scales)


def test_show_says_not_judged_where_no_judge_was_asked():
    """Counts a run without a judge leaves None were printed `explanations_judged None`."""
    results = {
        "consistency_acc,none": 0.5,
        "triplet_counts,none": {"documents": 24, "explanations_judged": None, "optimized": None, "unparsable": 0},
    }
    lines = report.detail_lines("nleye_triplet", results, "consistency_acc")
    assert " ".join(line.strip() for line in lines) == (
        "nleye_triplet counts: documents 24; explanations_judged not judged; optimized not computed; unparsable 0"
    )


def test_the_data_line_says_where_embedded_images_are():
    """The MuCR sample's parquet holds its images: show said `(1 annotation file, 0 images)`."""
    from abductive_tasks.reports.leaderboard.provenance import _data_lines

    embedded = {"source": "sample", "annotations_sha256": "0" * 64, "annotation_files": 1, "image_files": 0}
    files = {**embedded, "annotation_files": 2, "image_files": 36}
    lines = _data_lines({"mucr": embedded, "nleye": files, "dve": embedded})
    assert lines[0].endswith("(1 annotation file, images inside it)") and lines[1].endswith(
        "(2 annotation files, 36 images)"
    )
    assert lines[2].endswith("(1 annotation file, 0 images)")  # another's missing images are not hidden
