"""Task specs: process_results and the aggregations derived from one table."""

import pickle

import pytest

from abductive_tasks.scoring import taskspec
from abductive_tasks.scoring.reading import Choice
from abductive_tasks.scoring.stats import Estimate
from abductive_tasks.scoring.taskspec import Metric, Outcome, TaskSpec

computed: list[int] = []


def _compute(records: list[dict]) -> Outcome:
    computed.append(len(records))
    return Outcome(
        estimates={"toy_acc": Estimate.mean([r["item_id"] for r in records], [r["correct"] for r in records])},
        values={"toy_note": len(records)},
        counts={"items_scored": len(records)},
        chance={"toy_acc": 0.5},
    )


TOY = TaskSpec(
    name="toy",
    diagnostics_prefix="toy",
    metrics=(Metric("toy_acc"), Metric("toy_note", higher_is_better=None, scale="raw")),
    record=lambda doc, reading: {"item_id": doc["id"], "correct": reading.value == doc["gold"]},
    compute=_compute,
)
process_results = TOY.results_reader(lambda doc: Choice(2))
DOCS = [{"id": str(i), "gold": 1 + i % 2} for i in range(8)]


def values_of(replies):
    return [process_results(doc, [reply]) for doc, reply in zip(DOCS, replies, strict=True)]


def test_every_metric_gets_the_same_record_and_the_counts():
    values = values_of(
        ["1", "2", "Option 2", "gibberish", "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 500", "", "1", "2"]
    )
    assert set(values[0]) == {"toy_acc", "toy_note", "toy_counts", "toy_ci95"} == set(TOY.metric_names)
    assert values[0]["toy_acc"] == ["toy_acc", {"item_id": "0", "correct": True, "answer_status": "parsed"}]
    assert values[0]["toy_acc"][1] is values[0]["toy_counts"][1]
    counts = TOY.aggregate([v["toy_counts"] for v in values])
    assert counts == {"documents": 8, "items_scored": 8, "unparsable": 1, "request_failed": 2, "judge_extracted": 0}
    # golds 1,2,1,2,1,2,1,2: docs 0, 1, 6, 7 right; 2 picks option 2 (wrong); 3-5 unread or failed count as wrong
    assert TOY.aggregate([v["toy_acc"] for v in values]) == 0.5
    assert TOY.higher_is_better("toy_counts") is None and TOY.higher_is_better("toy_acc") is True


def test_the_family_is_computed_once_even_for_copies_of_the_records(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")  # a multi-process run: the records arrive as copies
    computed.clear()
    values = values_of(["1"] * 8)
    TOY.aggregate([v["toy_acc"] for v in values])
    # lmms-eval gathers each metric separately across processes: equal content, new objects
    copied = pickle.loads(pickle.dumps([v["toy_note"] for v in values]))
    assert TOY.aggregate(copied) == 8
    assert computed == [8]


def test_one_process_keys_the_family_by_record_identity_only(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.setattr(taskspec, "_digest", lambda records: pytest.fail("content digest in a one-process run"))
    computed.clear()
    values = values_of(["1"] * 8)
    assert TOY.aggregate([v["toy_note"] for v in values]) == 8
    assert TOY.aggregate([v["toy_acc"] for v in values]) == 0.5  # golds alternate 1, 2
    assert computed == [8]


def test_intervals_and_stderr_for_lmms_eval():
    values = values_of(["1", "2", "1", "1", "1", "2", "2", "1"])
    items = [v["toy_acc"] for v in values]
    intervals = TOY.aggregate([v["toy_ci95"] for v in values])
    entry = intervals["toy_acc"]
    assert (
        set(entry) == {"lower", "upper", "stderr", "units", "resamples", "chance"}
        and entry["units"] == 8
        and entry["chance"] == 0.5
    )
    assert entry["lower"] <= TOY.aggregate(items) <= entry["upper"]
    assert TOY.stderr(items) == entry["stderr"] > 0
    assert TOY.stderr([v["toy_note"] for v in values]) == "N/A"


def test_bootstrap_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_BOOTSTRAP", "0")
    values = values_of(["1"] * 8)
    assert TOY.aggregate([v["toy_ci95"] for v in values])["toy_acc"]["lower"] is None


def test_metrics_and_breakdown_cells_over_the_same_units_share_their_bootstrap_draw():
    def compute(records: list[dict]) -> Outcome:
        units = [r["item_id"] for r in records]
        right = [r["correct"] for r in records]
        wrong = [not value for value in right]
        return Outcome(
            estimates={"pair_acc": Estimate.mean(units, right), "pair_err": Estimate.mean(units, wrong)},
            breakdowns={"pair_by_all": {"all": Estimate.mean(units, wrong)}},
        )

    spec = TaskSpec(
        name="pair",
        diagnostics_prefix="pair",
        metrics=(Metric("pair_acc"), Metric("pair_err", higher_is_better=False), Metric("pair_by_all")),
        record=lambda doc, reading: {"item_id": doc["id"], "correct": reading.value == doc["gold"]},
        compute=compute,
    )
    reader = spec.results_reader(lambda doc: Choice(2))
    replies = ["1", "2", "1", "1", "1", "2", "2", "1"]
    records = [reader(doc, [reply])["pair_acc"][1] for doc, reply in zip(DOCS, replies, strict=True)]
    values = spec.evaluate(records)
    acc, err = values["pair_ci95"]["pair_acc"], values["pair_ci95"]["pair_err"]
    assert values["pair_acc"] == 5 / 8 and err["lower"] == pytest.approx(1 - acc["upper"])  # err = 1 - acc per draw
    cell = values["pair_by_all"]["all"]
    assert (cell["lower"], cell["upper"]) == (err["lower"], err["upper"])  # the cell: same units, same draw
