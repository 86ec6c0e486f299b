"""NL-Eye protocols beyond the main tables: Table 14's prompt variants, the D.2.2 naturalness subset, the crowd
explanations as extra judge references, and Table 8's "Correct/Incorrect Rank" readings against the printed numbers."""

from __future__ import annotations

import csv
import json

import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError
from abductive_tasks.nleye import data, hooks

from helpers.runs import abductive_eval, count, metric, read_results, read_samples

ITEMS = data.load(SAMPLE_ROOT / "nleye").items
DOC = hooks.triplet_docs_from(ITEMS)[0]
QUESTION = (
    "Given a context image and 2 hypothesis images (3 total images), which image of the following two (1 and 2) "
    "is more plausible? The context image can happen before or after the hypothesis images. "
)


def test_table_14_prompts_on_a_sample_document():
    """Each variant is the Table 6 prompt with Table 14's phrase: after it (CoT), before it (Role), or in place of its
    answer request (Reverse Task)."""
    regular = QUESTION + "Mention which one is more plausible – 1 or 2, and explain."
    assert hooks.doc_to_text_triplet_separate(DOC) == regular
    assert hooks.doc_to_text_triplet_reverse(DOC) == (
        QUESTION + "First explain, then predict which one is more plausible – 1 or 2."
    )
    assert hooks.doc_to_text_triplet_cot(DOC) == regular + " Let's think step by step."
    assert hooks.doc_to_text_triplet_role(DOC) == "You are a causality expert. " + regular


def test_naturalness_subset_is_the_listed_ids_and_counts_the_missing():
    """D.2.2's footnote lists 19 ids; the sample holds ids 1-12, so only id 8 is found and 18 are counted missing."""
    assert len(hooks.NATURALNESS_IDS) == len(set(hooks.NATURALNESS_IDS)) == 19
    docs = hooks.naturalness_docs_from(ITEMS)
    assert sorted(set(docs["item_id"])) == ["8"] and len(docs) == 2
    assert set(docs["subset_ids_listed"]) == {19} and set(docs["subset_ids_missing"]) == {18}
    with pytest.raises(DataError, match="none of the 19 sample ids"):
        hooks.naturalness_docs_from(ITEMS.filter(lambda item: item["item_id"] != "8"))


def write(path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*rows[0]])
        writer.writeheader()
        writer.writerows(rows)


def test_crowd_explanations_join_the_judge_references(data_copy):
    """§4.2: the references are the gold explanation and the approved crowd explanations; a copy that holds them in a
    column (here a JSON list) gives the judge all of them, in order."""
    path = data_copy / "nleye" / "test_set.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["crowd_explanations"] = ""
    rows[3]["crowd_explanations"] = json.dumps(["A rolling pin flattens dough.", " "])
    rows[4]["crowd_explanations"] = "Tea time is at four in Britain"
    write(path, rows)
    items = data.load(data_copy / "nleye").items
    assert [item["crowd_explanations"] for item in items][2:5] == [
        [],
        ["A rolling pin flattens dough."],
        ["Tea time is at four in Britain"],
    ]
    doc = next(doc for doc in hooks.triplet_docs_from(items) if doc["item_id"] == "4")
    prompt = hooks.explanation_judge_prompt(doc, "1. The pin")
    assert prompt.endswith(
        f"Gold explanations:\nExplanation 1: {doc['gold_explanation'].strip()}\n"
        "Explanation 2: A rolling pin flattens dough."
    )
    rows[5]["crowd_explanations"] = '["unclosed'
    write(path, rows)
    data.load.cache_clear()
    with pytest.raises(DataError, match=r"line 7, field 'crowd_explanations': expected one explanation or a JSON"):
        data.load(data_copy / "nleye")
    data.load.cache_clear()


@pytest.mark.e2e
def test_prompt_group_and_naturalness_run_end_to_end(tmp_path):
    """dumb_pixel reads no prompt: every Table 14 variant scores as nleye_triplet, each with its own prompt; the
    subset scores its one item (id 8) as nleye_triplet does, and counts the 18 listed ids the sample lacks."""
    output = tmp_path / "out"
    run = abductive_eval(
        ["--model", "dumb_pixel", "--tasks", "nleye_prompts,nleye_triplet_naturalness", "--log_samples"], output
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = read_results(output)
    for task, hook in (
        ("nleye_triplet_reverse", hooks.doc_to_text_triplet_reverse),
        ("nleye_triplet_cot", hooks.doc_to_text_triplet_cot),
        ("nleye_triplet_role", hooks.doc_to_text_triplet_role),
    ):
        assert metric(results, task, "consistency_acc") == metric(results, "nleye_triplet", "consistency_acc")
        assert count(results, task, "items_scored") == 12 and count(results, task, "unparsable") == 0
        assert {sample["input"] for sample in read_samples(output, task)} == {hook(DOC)}
    assert count(results, "nleye_triplet_naturalness", "items_scored") == 1
    assert count(results, "nleye_triplet_naturalness", "subset_ids_missing") == 18
    correct = {
        int(sample["doc_id"]): sample["consistency_acc"][1]["correct"]
        for sample in read_samples(output, "nleye_triplet")
    }
    subset = [sample["consistency_acc"][1]["correct"] for sample in read_samples(output, "nleye_triplet_naturalness")]
    item_8 = [index for index, item_id in enumerate(hooks.triplet_docs_from(ITEMS)["item_id"]) if item_id == "8"]
    assert subset == [correct[index] for index in item_8]
    assert metric(results, "nleye_triplet_naturalness", "consistency_acc") == float(all(subset))


# ---------------------------------------------------------------- Table 8: "Correct Rank" / "Incorrect Rank"

# Table 8 as printed: strategy, model, Accuracy (%), Rank Diff, Equal Rank Rate (%), Correct Rank Diff, Incorrect Rank
# Diff, Correct Rank, Incorrect Rank.
TABLE_8 = [
    ("separate", "GPT-4o", 50, 1.48, 37, 2.54, 0.42, 7.39, 6.61),
    ("separate", "GPT-4-vision", 40, 1.60, 44, 3.12, 0.58, 6.97, 6.04),
    ("separate", "Gemini-1.5-pro", 42, 1.71, 43, 3.16, 0.65, 7.13, 6.47),
    ("separate", "Claude-Sonnet-3.5", 38, 1.33, 41, 2.49, 0.60, 7.97, 7.58),
    ("combined", "GPT-4o", 45, 1.30, 37, 2.27, 0.50, 7.77, 7.23),
    ("combined", "GPT-4-vision", 34, 1.28, 48, 2.52, 0.62, 6.76, 6.37),
    ("combined", "Gemini-1.5-pro", 39, 1.73, 45, 3.29, 0.71, 6.99, 6.47),
    ("combined", "LLaVA 1.6", 42, 2.38, 27, 3.31, 1.69, 6.10, 5.02),
    ("combined", "Fuyu-8b", 44, 2.58, 17, 3.25, 2.04, 8.06, 7.60),
]
# Rounding: the percentages to 0.5 points, the others to 0.005; propagated through each reading's formula this moves
# it by at most 0.035, so a reading that reproduces a row lands within 0.05 of it.
TOLERANCE = 0.05

# Each reading of (Correct Rank, Incorrect Rank) as (mean score of X, mean score of Y) over one item set, and what it
# makes Correct Rank - Incorrect Rank in the table's other columns (a: accuracy, e: equal rank rate; d_c, d_w: Correct
# and Incorrect Rank Diff, the latter a mean over every item not ordered correctly, ties included: Rank Diff identity).
READINGS = {
    "gold vs other hypothesis, all items (ours)": lambda a, e, rd, dc, dw: a * dc - (1 - a) * dw,
    "higher vs lower score, all items": lambda a, e, rd, dc, dw: rd,
    "gold vs other, correctly ordered items": lambda a, e, rd, dc, dw: dc,
    "higher vs lower score, items not ordered correctly": lambda a, e, rd, dc, dw: dw,
    "gold vs other, items without a tie": lambda a, e, rd, dc, dw: (a * dc - (1 - a) * dw) / (1 - e),
}


def test_table_8_columns_satisfy_the_rank_diff_identity():
    """Rank Diff = a * Correct Rank Diff + (1 - a) * Incorrect Rank Diff on every row: the readings of the gap
    columns (our gap_when_correct / gap_when_wrong) are the paper's."""
    for *_, acc, rank_diff, _equal, correct_diff, wrong_diff, _cr, _ir in TABLE_8:
        a = acc / 100
        assert a * correct_diff + (1 - a) * wrong_diff == pytest.approx(rank_diff, abs=0.02)


def test_no_reading_of_correct_and_incorrect_rank_reproduces_table_8():
    """Every reading with a closed form in the other columns misses most rows; ours (the mean score of the gold and
    of the other hypothesis) matches one row of nine (GPT-4-vision, separate images), and the printed differences
    are both larger (LLaVA 1.6: 1.08 against 0.41) and smaller (GPT-4o: 0.78 against 1.06) than it, so no reading
    over the same items does better. The other readings fare no better (at most two rows: the Incorrect Rank Diff
    itself). correct_rank_mean / wrong_rank_mean keep our reading."""
    reproduced = {}
    for name, implied in READINGS.items():
        rows = []
        for strategy, model, acc, rank_diff, equal, correct_diff, wrong_diff, correct, incorrect in TABLE_8:
            value = implied(acc / 100, equal / 100, rank_diff, correct_diff, wrong_diff)
            if abs(value - (correct - incorrect)) <= TOLERANCE:
                rows.append((strategy, model))
        reproduced[name] = rows
    assert reproduced == {
        "gold vs other hypothesis, all items (ours)": [("separate", "GPT-4-vision")],
        "higher vs lower score, all items": [],
        "gold vs other, correctly ordered items": [],
        "higher vs lower score, items not ordered correctly": [("separate", "Gemini-1.5-pro"), ("combined", "GPT-4o")],
        "gold vs other, items without a tie": [],
    }


def test_the_naturalness_warning_is_logged_once_though_the_data_check_built_the_documents_first(monkeypatch):
    """The walk: the naturalness subset's missing ids were logged twice in one run, once by abductive-eval's data check
    and once by lmms-eval's process_docs: it is logged once per process."""
    from loguru import logger

    from abductive_tasks import cli
    from abductive_tasks.scoring import judge

    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setattr(judge, "_warned", set())
    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(message.record["message"]), level="WARNING")
    try:
        cli.check_data("nleye_triplet_naturalness")  # abductive-eval, before lmms-eval starts
        hooks.naturalness_docs(None)  # lmms-eval's own process_docs
    finally:
        logger.remove(sink)
    assert len(messages) == 1 and messages[0].startswith("nleye_triplet_naturalness: 18 of the 19 sample ids"), messages
