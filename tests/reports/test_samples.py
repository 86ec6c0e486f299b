"""From a samples JSONL back to the metrics: hand-written files, and a real run whose every number is recomputed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from abductive_tasks import compat
from abductive_tasks.lmms_source import samples_path
from abductive_tasks.nleye.hooks import TRIPLET_TEXT
from abductive_tasks.reports.samples import SamplesError, read_samples, task_of
from abductive_tasks.reports.specs import spec_of_task
from abductive_tasks.runs.task_index import TaskIndex
from abductive_tasks.scoring.taskspec import Metric, Outcome, TaskSpec

from helpers.runs import OFFLINE, abductive_eval

CATEGORIES = {"reasoning_category": "physical", "time_direction": "forward", "time_duration": "short-term"}


def triplet_record(item: str, position: int, correct: bool) -> dict:
    prediction = position if correct else 3 - position
    return {
        "item_id": item,
        "gold_position": position,
        "prediction": prediction,
        "correct": correct,
        **CATEGORIES,
        "answer_status": "parsed",
    }


def write_samples(path: Path, spec, records: list[dict], extra: dict | None = None) -> Path:
    """Lines as lmms-eval writes them: its own fields, then ``{metric: [metric, record]}`` for every metric."""
    lines = [
        {"doc_id": index, "target": "1", **{name: [name, record] for name in spec.metric_names}, **(extra or {})}
        for index, record in enumerate(records)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_file_names_follow_lmms_eval():
    assert samples_path(Path("out/m/20260101_000000_results.json"), "nleye_pairs") == Path(
        "out/m/20260101_000000_samples_nleye_pairs.jsonl"
    )
    assert task_of(Path("20260101_000000_samples_nleye_triplet_text.jsonl")) == "nleye_triplet_text"
    assert task_of(Path("records.jsonl")) is None


def test_records_and_spec_come_back_from_the_lines(tmp_path):
    records = [
        triplet_record("a", 1, True),
        triplet_record("a", 2, True),
        triplet_record("b", 1, True),
        triplet_record("b", 2, False),
    ]
    samples = read_samples(
        write_samples(tmp_path / "20260101_000000_samples_nleye_triplet_text.jsonl", TRIPLET_TEXT, records)
    )
    # TRIPLET_TEXT's metrics lack TRIPLET's explanation_valid_rate: the metric names alone decide
    assert samples.spec is TRIPLET_TEXT and samples.task == "nleye_triplet_text" and samples.records == records
    values = samples.evaluate()
    assert values["consistency_acc"] == 0.5  # a right in both orders, b only in one
    assert values["order1_acc"] == 1.0 and values["order2_acc"] == 0.5
    assert values["triplet_counts"]["items_scored"] == 2


def test_a_line_without_the_spec_metrics_or_with_differing_records_is_refused(tmp_path):
    records = [triplet_record("a", 1, True), triplet_record("a", 2, False)]
    path = write_samples(tmp_path / "x_samples_nleye_triplet_text.jsonl", TRIPLET_TEXT, records)
    lines = path.read_text().splitlines()
    second = json.loads(lines[1])
    del second["order2_acc"]
    path.write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    with pytest.raises(SamplesError, match=r"line 2: no \[metric, record\] value for \['order2_acc'\]"):
        read_samples(path)
    second = json.loads(lines[1])
    second["order1_acc"][1] = {**second["order1_acc"][1], "correct": True}
    path.write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    with pytest.raises(SamplesError, match=r"line 2: the records of \['order1_acc'\] differ"):
        read_samples(path)
    (tmp_path / "plain.jsonl").write_text(json.dumps({"doc_id": 0, "acc": 1.0}) + "\n")
    with pytest.raises(SamplesError, match="not a samples file of one of our tasks"):
        read_samples(tmp_path / "plain.jsonl")
    (tmp_path / "other.jsonl").write_text(json.dumps({"doc_id": 0, "acc": ["acc", {"x": 1}]}) + "\n")
    with pytest.raises(SamplesError, match=r"no single task spec reports exactly the metrics \['acc'\]"):
        read_samples(tmp_path / "other.jsonl")


def test_an_explicit_spec_reads_lines_carrying_more_keys(tmp_path):
    records = [triplet_record("a", 1, True), triplet_record("a", 2, True)]
    path = write_samples(tmp_path / "records.jsonl", TRIPLET_TEXT, records, extra={"note": ["note", {}]})
    with pytest.raises(SamplesError, match="no single task spec"):
        read_samples(path)
    assert read_samples(path, spec=TRIPLET_TEXT).records == records


ONCE = TaskSpec(  # a family logging its record once, under its first metric; the others name that metric
    name="record_once_test",
    diagnostics_prefix="once",
    metrics=(Metric("once_acc"), Metric("once_rate")),
    record=lambda doc, reading: {},
    compute=lambda records: Outcome(),
    record_once=True,
)


def test_unusual_lines_give_the_records_a_full_reading_gives(tmp_path):
    """Lines are read from their records' JSON text alone where that is safe; what is not (a document msgspec
    refuses, copies written differently, a NaN in a record) gives the same records through the full reading."""
    records = [triplet_record(item, position, True) for item in "abcd" for position in (1, 2)]
    records[1]["big"] = 2**70  # past 64 bits: stays an exact integer
    records[4]["score"] = float("nan")
    path = write_samples(tmp_path / "x_samples_nleye_triplet_text.jsonl", TRIPLET_TEXT, records)
    lines = [json.loads(text) for text in path.read_text().splitlines()]
    name = TRIPLET_TEXT.metric_names[1]
    lines[2][name][1] = dict(reversed(lines[2][name][1].items()))  # the same record, keys in another order
    lines[3]["doc"] = {"score": float("nan")}  # json.dumps writes NaN, which msgspec refuses
    texts = [json.dumps(line) for line in lines]
    texts[3] = texts[3][:-1] + ', "huge": 1e999}'  # beyond the double range: msgspec refuses, json reads inf
    path.write_text("\n".join(texts[:5]) + "\n  \n" + "\n".join(texts[5:]) + "\n")  # and a blank line
    read = read_samples(path).records
    assert read[:4] + read[5:] == records[:4] + records[5:] and read[1]["big"] == 2**70
    assert math.isnan(read[4].pop("score")) and read[4] == {k: v for k, v in records[4].items() if k != "score"}

    once = [{"item_id": item, "answer_status": "parsed"} for item in "xyz"]
    first, *others = ONCE.metric_names
    path = tmp_path / "y_samples_once.jsonl"
    path.write_text(
        "".join(
            json.dumps({"doc_id": 0, first: [first, record], **{o: [o, first] for o in others}}) + "\n"
            for record in once
        )
    )
    assert read_samples(path).records == once and read_samples(path).spec is ONCE
    wrong = {"doc_id": 0, first: [first, once[0]], **{o: [o, others[0]] for o in others}}  # names a name: refused
    path.write_text(path.read_text() + json.dumps(wrong) + "\n")
    with pytest.raises(SamplesError, match=r"line 4: no \[metric, record\] value for"):
        read_samples(path)


def spec_tasks() -> list[str]:
    """The suite's tasks whose process_results derive from a task spec (every converted benchmark)."""
    manager = compat.task_manager()
    configs = {
        task: compat.task_config(manager.task_index[task]["yaml_path"])
        for task in TaskIndex().expand(["abductive", "nleye"])
    }
    return [task for task, config in configs.items() if getattr(config["process_results"], "spec", None) is not None]


@pytest.mark.e2e
def test_a_real_run_is_recomputed_from_its_samples_alone(tmp_path, monkeypatch):
    """Every metric, count and interval of the results JSON, and lmms-eval's stderr column, from the samples JSONL."""
    tasks = spec_tasks()
    assert {"nleye_triplet", "nleye_pairs"} <= set(tasks)
    run = abductive_eval(["--model", "random_baseline", "--tasks", ",".join(tasks), "--log_samples"], tmp_path / "out")
    assert run.returncode == 0, run.stderr[-3000:]
    (results_file,) = (tmp_path / "out").glob("*/*_results.json")  # mucr_exp's first stage logs under out/stages/
    results = json.loads(results_file.read_text())["results"]
    for name, value in {**OFFLINE, "ABDUCTIVE_DATA": "sample"}.items():
        monkeypatch.setenv(name, value)
    with_intervals = []
    for task in tasks:
        samples = read_samples(samples_path(results_file, task))
        assert samples.task == task and samples.spec is spec_of_task(
            task
        )  # the metric names found the task YAML's spec
        recomputed = samples.evaluate()
        reported = {
            key.removesuffix(",none"): value
            for key, value in results[task].items()
            if key.endswith(",none") and "_stderr" not in key
        }
        assert json.loads(json.dumps(recomputed)) == reported, task  # as JSON: a dict's int keys read back as strings
        intervals = recomputed[
            samples.spec.interval_metric
        ]  # empty where nothing was computed (mucr_exp without a judge)
        assert all(entry["resamples"] == 1000 for entry in intervals.values())
        with_intervals += [task] if intervals else []
        for metric, entry in intervals.items():
            assert results[task][f"{metric}_stderr,none"] == ("N/A" if entry["stderr"] is None else entry["stderr"]), (
                task,
                metric,
            )
    assert {"nleye_triplet", "nleye_pairs"} <= set(with_intervals)
