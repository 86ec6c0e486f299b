"""§B.1's clue-based retrieval and localization: the same val chunks and images, each text the clue of its instance,
taken from the val corpus's clue field and joined through the answer keys."""

from __future__ import annotations

import json

import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError
from abductive_tasks.sherlock import clues, data, hooks, localization

from helpers.runs import abductive_eval, count, metric, read_results

ROOT = SAMPLE_ROOT / "sherlock"
CORPUS = json.loads((ROOT / "sherlock_val_with_split_idxs_v1_1.json").read_text(encoding="utf-8"))
CLUE = {entry["instance_id"]: entry["inputs"]["clue"] for entry in CORPUS}
INFERENCE = {entry["instance_id"]: entry["targets"]["inference"] for entry in CORPUS}


def factored(root, task: str, texts: str):
    return data.load(root, task, "val", "factored", texts=texts).items


def test_clue_retrieval_keeps_the_chunks_rows_and_puts_each_instances_clue_in_its_column():
    """Chunk 0 holds o1, o3, o4, o8; o4 and o8 share an inference ("it is winter": 3 inference columns) but not a
    clue (4 clue columns). Each instance's gold row is its region, its gold column its clue."""
    inferences, clue_items = factored(ROOT, "retrieval", "inference"), factored(ROOT, "retrieval", "clue")
    assert len(clue_items) == len(inferences) == 4 + 3
    chunk = [item for item in clue_items if item["chunk"] == 0]
    assert {(item["rows"], item["cols"], item["documents"]) for item in chunk} == {(4, 4, 4)}
    assert {item["inference"] for item in chunk} == {CLUE[oid] for oid in ("o1", "o3", "o4", "o8")}
    regions = {item["row"]: item["region_key"] for item in chunk}
    texts = {item["col"]: item["inference"] for item in chunk}
    golds = [(item["gold_row"], item["gold_col"]) for item in chunk]
    ids = clues.key_instance_ids(ROOT / "val_retrieval" / "val_retrieval_0_answer_key.json")
    assert sorted(ids) == ["o1", "o3", "o4", "o8"]
    by_id = {entry["instance_id"]: entry for entry in CORPUS}
    for instance_id, (row, column) in zip(ids, golds, strict=True):
        boxes = [
            [box[name] for name in ("left", "top", "width", "height")] for box in by_id[instance_id]["inputs"]["bboxes"]
        ]
        assert regions[row].endswith(json.dumps(boxes)) and texts[column] == CLUE[instance_id]
    same_rows = [item for item in inferences if item["chunk"] == 0]
    assert [item["region_key"] for item in chunk] == [item["region_key"] for item in same_rows]
    assert [item["gold_row"] for item in chunk] == [item["gold_row"] for item in same_rows]


def test_clue_localization_documents_list_each_images_clues():
    docs = hooks.documents_from(factored(ROOT, "localization", "clue"), "score_matrix")
    plain = hooks.documents_from(factored(ROOT, "localization", "inference"), "score_matrix")
    assert len(docs) == len(plain) == 3
    for doc, base in zip(docs, plain, strict=True):
        assert doc["regions"] == base["regions"] and doc["test_ids"] == base["test_ids"]
        owners = {inst_id for inst_id in doc["inst_id"]}
        assert sorted(doc["inferences"]) == sorted(CLUE[oid] for oid in owners)
        for inst_id, column, base_column in zip(doc["inst_id"], doc["cols"], base["cols"], strict=True):
            assert doc["inferences"][column] == CLUE[inst_id]
            assert base["inferences"][base_column] == INFERENCE[inst_id]
        assert localization.matrix_shape(doc) == (len(doc["regions"]), len(doc["inferences"]))


def test_the_join_is_checked_against_the_corpus(data_copy):
    root = data_copy / "sherlock"
    corpus = root / "sherlock_val_with_split_idxs_v1_1.json"
    entries = json.loads(corpus.read_text(encoding="utf-8"))
    entries[0]["targets"]["inference"] = "something else"
    corpus.write_text(json.dumps(entries), encoding="utf-8")
    with pytest.raises(DataError, match="instance id 'o1' has the inference 'the street is in a residential area'"):
        factored(root, "retrieval", "clue")
    corpus.write_text(json.dumps(entries[1:]), encoding="utf-8")
    clues.val_clues.cache_clear()
    data.load.cache_clear()
    with pytest.raises(DataError, match="instance id 'o1' is not in the val corpus"):
        factored(root, "localization", "clue")
    entries[3]["inputs"]["clue"] = " "
    corpus.write_text(json.dumps(entries), encoding="utf-8")
    clues.val_clues.cache_clear()
    data.load.cache_clear()
    with pytest.raises(DataError, match=r"entry 3, field 'inputs.clue': missing or empty"):
        factored(root, "retrieval", "clue")
    corpus.unlink()
    clues.val_clues.cache_clear()
    data.load.cache_clear()
    with pytest.raises(DataError, match="the leaderboard files hold no clues"):
        factored(root, "retrieval", "clue")
    with pytest.raises(DataError, match="clue texts exist for the factored val"):
        data.load(root, "retrieval", "test", "factored", texts="clue")


@pytest.mark.e2e
def test_clue_tasks_run_end_to_end_with_a_baseline(tmp_path):
    """dumb_pixel scores an image-region against one constant text vector: on the same regions its clue localization
    equals its inference localization, and every clue chunk is scored."""
    tasks = "sherlock_retrieval_clues,sherlock_localization_clues,sherlock_localization"
    run = abductive_eval(["--model", "dumb_pixel", "--tasks", tasks], tmp_path / "out")
    assert run.returncode == 0, run.stderr[-3000:]
    results = read_results(tmp_path / "out")
    assert count(results, "sherlock_retrieval_clues", "chunks_scored") == 2
    assert count(results, "sherlock_retrieval_clues", "documents") == 4 + 3
    assert count(results, "sherlock_localization_clues", "documents") == 3
    assert count(results, "sherlock_localization_clues", "unparsable") == 0
    assert metric(results, "sherlock_localization_clues", "localization_gt_acc") == metric(
        results, "sherlock_localization", "localization_gt_acc"
    )
