"""DVE loading: the sample, the test/dev splits, the JSONL release, and errors that name file, row and field."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from abductive_tasks.dve import data, hooks
from abductive_tasks.inputs import images
from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError

SAMPLE = SAMPLE_ROOT / "dve"


@pytest.fixture(autouse=True)
def fresh_loader():
    data.load.cache_clear()
    yield
    data.load.cache_clear()


def rewrite(root: Path, edit, name: str = "DVE_test.csv") -> Path:
    """Apply ``edit(rows)`` to the rows (header first) of ``root/dve/DVE_test.csv``, write them to
    ``root/dve/<name>``; return the dve folder."""
    with (root / "dve" / "DVE_test.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    edit(rows)
    with (root / "dve" / name).open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return root / "dve"


def as_jsonl(root: Path) -> Path:
    """Replace ``DVE_test.csv`` by ``cleaned_test.jsonl`` as pandas writes it (booleans, NaN for the empty updates)."""
    with (root / "DVE_test.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    lines = []
    for row in rows:
        impossible = row["UpdateTypeImpossible"] == "True"
        lines.append(
            json.dumps(
                {**row, "UpdateTypeImpossible": impossible, "Update": float("nan") if impossible else row["Update"]}
            )
        )
    (root / "DVE_test.csv").unlink()
    path = root / "cleaned_test.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_sample_layout_and_header():
    with (SAMPLE / "DVE_test.csv").open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert ",".join(header) == (
        "DataSource,AssignmentIdAnon,WorkerIdAnon,Premise,Hypothesis,SNLIPairId,Update,UpdateType,"
        "UpdateTypeImpossible,UpdateTypeImpossibleReason"
    )
    assert tuple(header) == data.HEADER
    assert sorted(p.name for p in (SAMPLE / "flickr30k-images").iterdir()) == [
        "1015118661.jpg",
        "2398605966.jpg",
        "3637013.jpg",
        "4701338123.jpg",
        "6556870225.jpg",
    ]


def test_sample_rows_impossible_excluded_and_free_text_kept():
    loaded = data.load(SAMPLE, "test")
    items = loaded.items
    assert len(items) == 17
    assert loaded.excluded == {"impossible": 4, "empty_text": 0} and loaded.quirks == {"duplicate_updates": 0}
    assert loaded.source == str(SAMPLE / "DVE_test.csv")
    assert sum(row["update_type"] == "strengthener" for row in items) == 9
    updates = items["update"]
    assert 'The "man" is actually a 12-year-old boy, and he plays on the school team.' in updates
    assert "nan" not in updates and "" not in updates
    assert items[0] == {
        "line": 2,
        "image_path": str((SAMPLE / "flickr30k-images" / "6556870225.jpg").resolve()),
        "premise": "A young male is running while playing tennis against another person.",
        "hypothesis": "A man moves while playing a game",
        "update": "The young male is a child.",
        "update_type": "weakener",
        "pair_id": "6556870225.jpg#3r1n",
    }
    assert len(set(items["pair_id"])) == 6
    assert len(set(items["image_path"])) == 5


def test_unset_data_source_explains_the_download(monkeypatch):
    monkeypatch.delenv("ABDUCTIVE_DATA", raising=False)
    with pytest.raises(
        DataError, match=r"github.com/skywalkerzhang/Defeasible_Visual_Entailment.*ABDUCTIVE_DATA=<root>"
    ):
        data.load_selected()


def test_dev_split_is_its_own_file(monkeypatch, data_copy):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    with pytest.raises(
        DataError, match=r"data file not found: .*DVE_dev.csv \(nor cleaned_dev.jsonl\).*holds the test split only"
    ):
        data.load_selected("dev")
    with pytest.raises(ValueError, match=r"DVE split 'validation': expected one of \['test', 'dev', 'train'\]"):
        data.load(SAMPLE, "validation")
    root = rewrite(data_copy, lambda rows: rows.__delitem__(slice(5, None)), name="DVE_dev.csv")  # the first pair only
    monkeypatch.setenv("ABDUCTIVE_DATA", str(data_copy))
    dev, test = data.load_selected("dev"), data.load_selected("test")
    assert (
        dev.source == str(root / "DVE_dev.csv")
        and len(dev.items) == 4
        and set(dev.items["pair_id"]) == {"6556870225.jpg#3r1n"}
    )
    assert len(test.items) == 17


def test_jsonl_release_is_read_like_the_csv(data_copy):
    as_jsonl(data_copy / "dve")
    loaded = data.load(data_copy / "dve", "test")
    expected = data.load(SAMPLE, "test")
    assert loaded.items["update"] == expected.items["update"] and loaded.items["pair_id"] == expected.items["pair_id"]
    assert loaded.excluded == {"impossible": 4, "empty_text": 0}


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (lambda text: b"\xef\xbb\xbf" + text, None),  # a byte order mark is accepted
        (lambda text: text.replace(b"hunting", b"h\xfcnting", 1), r"cleaned_test.jsonl: not UTF-8 text"),
        (lambda text: text.replace(b"}\n", b"\n", 1), r"cleaned_test.jsonl, line 1: not valid JSON"),
        (
            lambda text: text.replace(b'"Premise": ', b'"Premise": [["nested"]], "x": ', 1),
            r"cleaned_test.jsonl, line 1, field 'Premise': expected text, found a JSON list",
        ),
        (lambda text: b"[" * 100_000 + text, r"cleaned_test.jsonl: nested too deeply to read"),
    ],
)
def test_damaged_jsonl_is_one_error_naming_the_file(data_copy, corrupt, message):
    path = as_jsonl(data_copy / "dve")
    path.write_bytes(corrupt(path.read_bytes()))
    if message is None:
        assert len(data.load(data_copy / "dve", "test").items) == 17
        return
    with pytest.raises(DataError, match=message):
        data.load(data_copy / "dve", "test")


def test_csv_with_a_byte_order_mark_loads_and_non_utf8_names_the_file(data_copy):
    path = data_copy / "dve" / "DVE_test.csv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert len(data.load(data_copy / "dve", "test").items) == 17
    data.load.cache_clear()
    path.write_bytes(path.read_bytes().replace(b"hunting", b"h\xfcnting", 1))
    with pytest.raises(DataError, match=r"DVE_test.csv: not UTF-8 text"):
        data.load(data_copy / "dve", "test")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda rows: rows[3].__setitem__(8, "maybe"),
            r"line 4, field 'UpdateTypeImpossible': expected True or False, found 'maybe'",
        ),
        (lambda rows: rows[2].__setitem__(7, "neutral"), r"line 3, field 'UpdateType': unknown update type 'neutral'"),
        (lambda rows: rows[1].__setitem__(5, "6556870225.jpg"), r"line 2, field 'SNLIPairId': expected '<image file>#"),
        (
            lambda rows: rows[1].__setitem__(5, "../../x.jpg#0r1n"),
            r"line 2, field 'SNLIPairId': path '../../x.jpg' escapes the data root",
        ),
        (lambda rows: rows[1].__setitem__(5, "missing.jpg#0r1n"), r"line 2, field 'SNLIPairId': image file not found"),
        (lambda rows: rows[4].append("extra, unquoted"), r"line 5: expected 10 fields"),
        (lambda rows: [row.pop(7) for row in rows], r"missing column\(s\) for UpdateType"),
    ],
)
def test_bad_rows_name_file_line_and_field(data_copy, edit, message):
    root = rewrite(data_copy, edit)
    with pytest.raises(DataError, match=message) as error:
        data.load(root, "test")
    assert str(root / "DVE_test.csv") in str(error.value)


def test_same_update_text_elsewhere_is_no_duplicate(data_copy):
    # Line 8 (dog pair, strengthener) gets the text of line 7 (dog pair, weakener); line 12 (kitchen pair,
    # weakener) that of line 2 (tennis pair, weakener): neither is the same update for the same pair and type.
    root = rewrite(data_copy, lambda rows: (rows[7].__setitem__(6, rows[6][6]), rows[11].__setitem__(6, rows[1][6])))
    loaded = data.load(root, "test")
    assert len(loaded.items) == 17 and loaded.quirks == {"duplicate_updates": 0}


def test_repeated_updates_are_kept_and_counted(data_copy):
    # the release holds the same update from two annotators (test 4 rows, dev 1); both rows are data.
    # Line 23 repeats line 3; line 4 takes line 2's weakener with trailing spaces (stripped, so the same text).
    root = rewrite(data_copy, lambda rows: (rows.append(list(rows[2])), rows[3].__setitem__(6, rows[1][6] + "  ")))
    loaded = data.load(root, "test")
    assert len(loaded.items) == 18 and loaded.quirks == {"duplicate_updates": 2}
    assert loaded.items["line"][-1] == 23 and loaded.items["update"][-1] == "The player is in his thirties."


def test_unmarked_empty_update_is_left_out_and_counted(data_copy):
    root = rewrite(data_copy, lambda rows: rows[1].__setitem__(6, ""))
    loaded = data.load(root, "test")
    assert len(loaded.items) == 16 and loaded.excluded == {"impossible": 4, "empty_text": 1}


def test_unusable_images_stop_loading(data_copy, monkeypatch):
    image = data_copy / "dve" / "flickr30k-images" / "1015118661.jpg"
    image.write_bytes(image.read_bytes()[: image.stat().st_size // 2])  # truncated
    with pytest.raises(DataError, match=r"DVE_test.csv, line 6, field 'SNLIPairId': unusable image .*1015118661.jpg"):
        data.load(data_copy / "dve", "test")
    data.load.cache_clear()
    images.clear_cache()
    monkeypatch.setenv("ABDUCTIVE_MAX_IMAGE_PIXELS", "100")
    with pytest.raises(
        DataError, match=r"line 2, field 'SNLIPairId': unusable image .*6556870225.jpg: .* over the limit of 100"
    ):
        data.load(SAMPLE, "test")
    images.clear_cache()


def test_image_symlink_leaving_the_root_is_refused(data_copy, tmp_path):
    outside = tmp_path / "outside.jpg"
    target = data_copy / "dve" / "flickr30k-images" / "2398605966.jpg"
    outside.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(DataError, match=r"line 11, field 'SNLIPairId': path '2398605966.jpg' escapes the data root"):
        data.load(data_copy / "dve", "test")


def test_each_image_file_is_decoded_once_on_first_use_not_at_loading(decoded_files):
    images.clear_cache()
    loaded = data.load(SAMPLE, "test")  # loading checks every image (and rejects bad ones)
    assert decoded_files == []
    for docs in (hooks.cls_docs_from(loaded), hooks.gen_docs_from(loaded)):
        for doc in docs:
            hooks.doc_to_visual(doc)
    assert len(decoded_files) == len(set(decoded_files)) == 5


def test_a_pair_id_recurring_with_other_texts_names_another_pair(data_copy):
    # Lines 4 and 5 keep the tennis pair's SNLIPairId with another hypothesis: a second pair, named "/2"
    root = rewrite(data_copy, lambda rows: [rows[line - 1].__setitem__(4, "A boy holds a racket") for line in (4, 5)])
    items = data.load(root, "test").items
    tennis = "6556870225.jpg#3r1n"
    assert items["pair_id"][:4] == [tennis, tennis, f"{tennis}/2", f"{tennis}/2"]
    assert len(set(items["pair_id"])) == 7


def test_the_csv_is_read_where_the_jsonl_release_lies_beside_it(data_copy):
    root = data_copy / "dve"
    csv_bytes = (root / "DVE_test.csv").read_bytes()
    jsonl = as_jsonl(root)
    jsonl.write_text(jsonl.read_text().splitlines()[0] + "\n")  # one row: not what the CSV holds
    (root / "DVE_test.csv").write_bytes(csv_bytes)
    loaded = data.load(root, "test")
    assert loaded.source == str(root / "DVE_test.csv") and len(loaded.items) == 17
