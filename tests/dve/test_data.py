"""DVE loader, documents, prompts and answer parsing on the embedded sample and on broken copies of it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from abductive_tasks import dve
from abductive_tasks.data import SAMPLE_ROOT, DataError
from abductive_tasks.parsing import parse_label

SAMPLE = SAMPLE_ROOT / "dve"


@pytest.fixture
def split() -> dve.DveSplit:
    return dve.load_split(SAMPLE, "test")


def _rewrite(root: Path, edit) -> Path:
    """Apply ``edit(rows)`` to the rows (header first) of ``root/dve/DVE_test.csv``; return the dve folder."""
    path = root / "dve" / "DVE_test.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    edit(rows)
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return root / "dve"


def test_sample_layout_and_header():
    with (SAMPLE / "DVE_test.csv").open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert ",".join(header) == "DataSource,AssignmentIdAnon,WorkerIdAnon,Premise,Hypothesis,SNLIPairId,Update,UpdateType,UpdateTypeImpossible,UpdateTypeImpossibleReason"
    assert sorted(p.name for p in (SAMPLE / "flickr30k-images").iterdir()) == ["1015118661.jpg", "2398605966.jpg", "3637013.jpg", "4701338123.jpg", "6556870225.jpg"]


def test_sample_rows_impossible_excluded_and_free_text_kept(split):
    assert len(split.rows) == 17
    assert split.impossible_excluded == 4
    assert sum(row["update_type"] == "strengthener" for row in split.rows) == 9
    updates = [row["update"] for row in split.rows]
    assert 'The "man" is actually a 12-year-old boy, and he plays on the school team.' in updates
    assert "nan" not in updates and "" not in updates
    assert split.rows[0] == {
        "line": 2,
        "image_path": str((SAMPLE / "flickr30k-images" / "6556870225.jpg").resolve()),
        "premise": "A young male is running while playing tennis against another person.",
        "hypothesis": "A man moves while playing a game",
        "update": "The young male is a child.",
        "update_type": "weakener",
        "pair_id": "6556870225.jpg#3r1n",
    }
    assert len({row["pair_id"] for row in split.rows}) == 6
    assert len({row["image_path"] for row in split.rows}) == 5


def test_cls_documents(split):
    docs = dve.cls_docs_from(split)
    assert len(docs) == 17
    doc = docs[0]
    assert doc["item_id"] == "line 2" and doc["update_type"] == "weakener" and doc["impossible_excluded"] == 4
    assert doc["choices"] == ["strengthener", "weakener"] and doc["candidate_images"] == [doc["image_path"]] * 2
    assert dve.doc_to_text_cls(doc) == (
        "You are a helpful assistant that helps to determine if an update strengthens or weakens a hypothesis. The premise is an image that sets the "
        "scenario. The hypothesis is an inference based on this scenario, and the update provides additional information that could impact the "
        "hypothesis. Based on the premise provided and the given update, please judge whether the update strengthens or weakens the hypothesis. "
        "ONLY output strengthener or weakener in your final answer.\nConsider this image as a premise.\nHypothesis: A man moves while playing a game\n"
        "Update: The young male is a child."
    )
    (image,) = dve.doc_to_visual(doc)
    assert image.mode == "RGB"


def test_gen_documents(split):
    docs = dve.gen_docs_from(split)
    # 6 pairs x 2 goals, less the last pair's weakener goal (all its weakeners are impossible).
    assert len(docs) == 11
    assert docs[0]["goals_skipped"] == 1
    by_id = {doc["item_id"]: doc for doc in docs}
    assert "4701338123.jpg#4r1n|weakener" not in by_id
    dog = by_id["1015118661.jpg#0r1n|strengthener"]
    assert dog["references"] == ["The dog is a hunting dog.", "A rabbit darts into the bushes, just ahead of the dog."]
    assert dog["answer_kind"] == "text" and dog["candidate_images"] == [dog["image_path"]]
    # Retrieval baseline: the first strengthener of every other pair, never one of this pair's references.
    assert dog["choices"] == [
        "The player is in his thirties.",
        "The woman is holding a chef's knife.",
        "A delivery truck, loaded with pipes, is turning onto the street.",
        "They have been digging since dawn, in the heat.",
        "It is Monday morning, and his badge hangs from his neck.",
    ]
    assert dve.doc_to_text_gen(dog) == (
        "You are a helpful assistant that generates updates to impact hypotheses based on given premises.\nConsider this image as a premise.\n"
        "Hypothesis: A dog chases a rabbit.\nGoal: strengthener\nBased on the goal, generate an update that:\n"
        "- Strengthens the hypothesis if the goal is a strengthener.\n- Weakens the hypothesis if the goal is a weakener.\n"
        "Ensure the update is logically consistent with the image premise.\nPlease provide only the update. Do not include any other information."
    )


def test_unset_data_source_explains_the_download(monkeypatch):
    monkeypatch.delenv("ABDUCTIVE_DATA", raising=False)
    with pytest.raises(DataError, match=r"github.com/skywalkerzhang/Defeasible_Visual_Entailment.*ABDUCTIVE_DATA=<root>"):
        dve.selected_split()


def test_split_selection(monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_DVE_SPLIT", "validation")
    with pytest.raises(DataError, match="expected one of"):
        dve.selected_split()
    monkeypatch.setenv("ABDUCTIVE_DVE_SPLIT", "dev")
    with pytest.raises(DataError, match="DVE_dev.csv"):
        dve.selected_split()


def test_jsonl_release_is_read_like_the_csv(data_copy):
    root = data_copy / "dve"
    with (root / "DVE_test.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    lines = []
    for row in rows:  # as pandas writes it: booleans, NaN for the empty updates
        impossible = row["UpdateTypeImpossible"] == "True"
        lines.append(json.dumps({**row, "UpdateTypeImpossible": impossible, "Update": float("nan") if impossible else row["Update"]}))
    (root / "DVE_test.csv").unlink()
    (root / "cleaned_test.jsonl").write_text("\n".join(lines) + "\n")
    loaded = dve.load_split(root, "test")
    expected = dve.load_split(SAMPLE, "test")
    assert [r["update"] for r in loaded.rows] == [r["update"] for r in expected.rows]
    assert loaded.impossible_excluded == 4


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: rows[3].__setitem__(8, "maybe"), r"line 4, field 'UpdateTypeImpossible': expected True or False, found 'maybe'"),
        (lambda rows: rows[2].__setitem__(7, "neutral"), r"line 3, field 'UpdateType': unknown update type 'neutral'"),
        (lambda rows: rows[1].__setitem__(6, ""), r"line 2, field 'Update': empty \(the row is not marked UpdateTypeImpossible\)"),
        (lambda rows: rows[1].__setitem__(5, "6556870225.jpg"), r"line 2, field 'SNLIPairId': expected '<image file>#"),
        (lambda rows: rows[1].__setitem__(5, "../../x.jpg#0r1n"), r"line 2, field 'SNLIPairId': path '../../x.jpg' escapes the data root"),
        (lambda rows: rows[1].__setitem__(5, "missing.jpg#0r1n"), r"line 2, field 'SNLIPairId': image file not found"),
        (lambda rows: rows[4].append("extra, unquoted"), r"line 5: expected 10 fields"),
        (lambda rows: [row.pop(7) for row in rows], r"missing column\(s\) for UpdateType"),
    ],
)
def test_bad_rows_name_file_line_and_field(data_copy, edit, message):
    root = _rewrite(data_copy, edit)
    with pytest.raises(DataError, match=message) as error:
        dve.load_split(root, "test")
    assert "DVE_test.csv" in str(error.value)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("weakener", "weakener"),
        ("Strengthener. Chosen at random.", "strengthener"),
        ("**Weakener**", "weakener"),
        ("The update weakens the hypothesis.", "weakener"),
        ("Final answer: strengthener", "strengthener"),
        ("I think this is a strengthener because the dog hunts.", "strengthener"),
        ("It could be a strengthener or a weakener.", None),
        ("no idea", None),
        ("", None),
    ],
)
def test_parse_label(answer, expected):
    assert parse_label(answer, dve.UPDATE_TYPES, dve.LABEL_ALIASES) == expected
