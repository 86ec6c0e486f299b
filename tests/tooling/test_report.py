"""The compact results table abductive-eval prints."""

from abductive_tasks.report import summary_table


def test_summary_expands_breakdowns_and_skips_stderr():
    results = {
        "nleye": {" ": " ", "alias": "nleye"},
        "nleye_triplet": {
            "alias": " - nleye_triplet",
            "consistency_acc,none": 0.25,
            "consistency_acc_stderr,none": "N/A",
            "items_scored,none": 12,
            "gap_when_correct,none": None,
            "consistency_by_category,none": {"social": {"acc": 0.5, "n": 2}},
        },
    }
    assert summary_table(results).splitlines() == [
        "| task | metric | value | n |",
        "|---|---|---:|---:|",
        "| nleye_triplet | consistency_acc | 0.2500 | |",
        "| nleye_triplet | consistency_by_category[social] | 0.5000 | 2 |",
        "| nleye_triplet | gap_when_correct | N/A | |",
        "| nleye_triplet | items_scored | 12 | |",
    ]
