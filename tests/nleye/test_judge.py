"""NL-Eye explanation auto-evaluation (§4.2, Appendix C):
judge prompt, aggregations, and an end-to-end run against the stub judge."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.nleye import data, hooks
from abductive_tasks.nleye.metrics import triplet_outcome

from helpers.openai_stub import Fault, OpenAIStub, message_text
from helpers.runs import abductive_eval, count, metric, read_results

ITEMS = data.load(SAMPLE_ROOT / "nleye").items
DOCS = hooks.triplet_docs_from(ITEMS)
EXPLANATION_METRICS = (
    "explanation_valid_rate",
    "explanations_judged",
    "explanations_judge_failed",
    "explanations_judge_unparsable",
    "explanations_unjudgeable",
)


def test_appendix_c_judge_prompt():
    doc = next(doc for doc in DOCS if doc["item_id"] == "4" and doc["swapped"])  # gold hypothesis 2, shown first
    assert doc["gold_position"] == 1
    assert hooks.explanation_judge_prompt(doc, "1. The rolling pin flattened the dough") == (
        "Context: A large thin circle of dough on a kitchen surface.\n"
        "Plausible Hypothesis: A lump of dough and a rolling pin on a kitchen surface.\n"
        "Less Plausible Hypothesis: A lump of dough and a pasta maker on a kitchen surface.\n"
        "Return 0 (Not logical at all), 1 (Logical but different), or 2 (Logical and same as one of the gold) "
        "if the candidate’s explanation presents the same logical common sense as appears in one of the gold "
        "explanations for justifying the plausible hypothesis.\n"
        "Candidate explanation: 1. The rolling pin flattened the dough.\n"
        "Gold explanations:\n"
        "Explanation 1: A rolling pin flattens dough into a thin circle."
    )
    assert hooks.explanation_judge_prompt({**doc, "gold_explanation": " "}, "1") is None
    assert hooks.explanation_judge_prompt({**doc, "shown_descriptions": [], "premise_description": ""}, "1") is None


def _record(
    item: int | str, status: str | None, valid: bool | None = None, configured: bool = True, swapped: bool = False
) -> dict:
    return {
        "item_id": str(item),
        "gold_position": 2 if swapped else 1,  # the gold hypothesis is the first: shown second when swapped
        "swapped": swapped,
        "correct": status is not None,
        "reasoning_category": "social",
        "time_direction": "forward",
        "time_duration": "short-term",
        "judge_configured": configured,
        "explanation": status,
        "explanation_valid": valid,
    }


def _explanations(records: list[dict]) -> tuple[float | None, dict]:
    outcome = triplet_outcome(records, explanations=True)
    rate = (
        outcome.estimates["explanation_valid_rate"].value
        if "explanation_valid_rate" in outcome.estimates
        else outcome.values["explanation_valid_rate"]
    )
    return rate, outcome.counts


def test_explanation_aggregations_by_hand():
    # Two wrong predictions (not judged), three valid, one invalid, one failure, one unreadable, one without references.
    statuses = [
        (None, None),
        (None, None),
        *[("ok", True)] * 3,
        ("ok", False),
        ("judge_failed", None),
        ("unparsable", None),
        ("no_reference", None),
    ]
    rate, counts = _explanations([_record(item, status, valid) for item, (status, valid) in enumerate(statuses)])
    assert rate == pytest.approx(3 / 4)
    assert (
        counts["explanations_judged"],
        counts["explanations_judge_failed"],
        counts["explanations_judge_unparsable"],
        counts["explanations_unjudgeable"],
    ) == (4, 1, 1, 1)
    rate, counts = _explanations([_record(1, None)])
    assert rate is None and counts["explanations_judged"] == 0  # no correct prediction: nothing to rate


def test_explanations_are_counted_per_item_as_table_10():
    """Items right in 0, 1 and 2 orders: one explanation per item right in at least one order (Table 10),
    the original order's when both orders are right."""
    right, wrong = ("ok", True), (None, None)
    invalid = ("ok", False)
    orders = {  # item: (original order, swapped order)
        "a": (wrong, wrong),  # right in no order: no explanation
        "b": (right, wrong),  # right in the original order only
        "c": (wrong, invalid),  # right in the swapped order only
        "d": (right, invalid),  # right in both: the original order's explanation (valid) is judged
        "e": (invalid, right),  # right in both: the original order's (invalid), never the better verdict
    }
    records = [
        _record(item, *outcome, swapped=swapped)
        for item, pair in orders.items()
        for swapped, outcome in ((True, pair[1]), (False, pair[0]))  # the swapped document first: order is no cue
    ]
    outcome = triplet_outcome(records, explanations=True)
    documents_right = sum(record["correct"] for record in records)
    assert documents_right == 6
    assert outcome.counts["explanations_judged"] == 4  # items b, c, d, e; not the 6 documents right
    # Table 10's relation: items right in order 1 + items right in order 2 - items right in both.
    right_first = outcome.estimates["order1_acc"].value * 5
    right_second = outcome.estimates["order2_acc"].value * 5
    consistent = outcome.estimates["consistency_acc"].value * 5
    assert (right_first, right_second, consistent) == pytest.approx((3, 3, 2))
    assert outcome.counts["explanations_judged"] == pytest.approx(right_first + right_second - consistent)
    assert outcome.estimates["explanation_valid_rate"].value == pytest.approx(2 / 4)  # b and d valid; c and e not
    assert sorted(outcome.estimates["explanation_valid_rate"].units) == ["b", "c", "d", "e"]  # one unit per item


def test_explanation_metrics_not_computed_without_judge(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("API_TYPE", "openai")
    doc = next(doc for doc in DOCS if doc["gold_position"] == 1)
    record = hooks.process_results_triplet(doc, ["1"])["explanation_valid_rate"][1]
    assert record["correct"] and record["explanation"] == "not_configured" and not record["judge_configured"]
    rate, counts = _explanations([record])
    assert rate is None and counts["explanations_judged"] is None
    assert set(hooks.process_results_triplet_text(doc, ["1"])) == set(
        hooks.TRIPLET_TEXT.metric_names
    )  # the text task judges nothing
    assert "explanation_valid_rate" not in hooks.TRIPLET_TEXT.metric_names


def _blank_explanation(root: Path, sample_id: str) -> None:
    path = root / "nleye" / "test_set.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        if row["sample_id"] == sample_id:
            row["gold_explanation"] = ""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


# Scripted verdict per sample id (the judge prompt names the item by its premise description).
VERDICTS = {
    **{"1": "2", "2": "2", "3": "2", "4": "2", "5": "2 (Logical and same as one of the gold)"},  # valid
    **{"6": "1", "7": "1", "8": "0", "9": "Class: 1"},  # invalid
    **{"10": "no idea", "11": Fault(500)},  # unreadable, failing
}
PREMISES = {item["descriptions"][0]: item["item_id"] for item in ITEMS}


def _verdict(body: dict):
    text = message_text(body)
    (item_id,) = [item for premise, item in PREMISES.items() if f"Context: {premise}" in text]
    return VERDICTS[item_id]


@pytest.mark.e2e
def test_explanations_judged_end_to_end_and_cached_on_rerun(tmp_path, data_copy):
    """dummy answers "1": one correct document per item and task; item 12 has no gold explanation."""
    _blank_explanation(data_copy, "12")
    tasks = "nleye_triplet,nleye_triplet_combined,nleye_triplet_text"
    with OpenAIStub(_verdict) as stub:
        env = {
            "OPENAI_API_URL": stub.url,
            "OPENAI_API_KEY": "test-key",
            "MODEL_VERSION": "stub-judge",
            "API_TYPE": "openai",
            "ABDUCTIVE_JUDGE": "on",
            "ABDUCTIVE_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "ABDUCTIVE_JUDGE_RETRIES": "1",
            "ABDUCTIVE_JUDGE_BACKOFF": "0.01",
            "ABDUCTIVE_JUDGE_TIMEOUT": "10",
            "NO_PROXY": "127.0.0.1,localhost",
        }
        first = abductive_eval(
            ["--model", "dummy", "--model_args", "response=1", "--tasks", tasks],
            tmp_path / "first",
            data=str(data_copy),
            env=env,
        )
        assert first.returncode == 1, first.stdout[-3000:] + first.stderr[-3000:]  # item 11's judge failed
        assert first.stderr.rstrip().splitlines()[-1] == (
            "abductive-eval: failed requests (the model's or the judge's) in nleye_triplet (1 judge failure), "
            "nleye_triplet_combined (1 judge failure): not clean scores (see the summary); rerun them"
        )
        first_requests = [message_text(body) for body in stub.requests]
        again = abductive_eval(
            ["--model", "dummy", "--model_args", "response=1", "--tasks", "nleye_triplet"],
            tmp_path / "again",
            data=str(data_copy),
            env=env,
        )
        assert again.returncode == 1, again.stderr[-3000:]  # item 11's judge failed again (not cached)
        rerun_requests = [message_text(body) for body in stub.requests][len(first_requests) :]

    results = read_results(tmp_path / "first")
    for task in ("nleye_triplet", "nleye_triplet_combined"):
        assert metric(results, task, "order1_acc") == 1.0 and metric(results, task, "order2_acc") == 0.0
        assert count(results, task, "explanations_judged") == 9  # items 1-9
        assert metric(results, task, "explanation_valid_rate") == pytest.approx(5 / 9)  # items 1-5 answered 2
        assert count(results, task, "explanations_judge_failed") == 1  # item 11
        assert count(results, task, "explanations_judge_unparsable") == 1  # item 10
        assert count(results, task, "explanations_unjudgeable") == 1  # item 12
    assert not any(key.startswith("explanation") for key in results["nleye_triplet_text"])
    # Only correct predictions are judged; both tasks ask the same 11 questions, asked once each,
    # except the failing one: two attempts per task.
    assert len(set(first_requests)) == 11
    assert len(first_requests) == 10 + 2 * 2
    item_4 = next(text for text in first_requests if "Context: A large thin circle of dough" in text)
    assert "Plausible Hypothesis: A lump of dough and a rolling pin on a kitchen surface." in item_4
    assert (
        "Candidate explanation: 1.\nGold explanations:\nExplanation 1: A rolling pin flattens dough into a thin circle."
        in item_4
    )
    # The rerun pays only for the answer that failed.
    assert len(rerun_requests) == 2 and all(
        "Context: A family decorates a pine tree" in text for text in rerun_requests
    )
    assert metric(read_results(tmp_path / "again"), "nleye_triplet", "explanation_valid_rate") == pytest.approx(5 / 9)


def test_an_item_right_in_both_orders_is_judged_on_its_original_orders_explanation():
    """Table 10: one explanation per item; when both orders are right, the original order's (explained_items), so
    the rate does not depend on which document came first. Item x: original valid, swapped invalid -> 1/1;
    item y: original invalid, swapped valid -> 0/1."""
    valid, invalid = ("ok", True), ("ok", False)
    only_x = [_record("x", *invalid, swapped=True), _record("x", *valid)]
    assert _explanations(only_x)[0] == 1.0
    only_y = [_record("y", *valid, swapped=True), _record("y", *invalid)]
    assert _explanations(only_y)[0] == 0.0
    assert _explanations(list(reversed(only_x)))[0] == 1.0  # document order is no cue
