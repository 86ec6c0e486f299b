"""The JSON-lines reader that DVE's ``cleaned_<split>.jsonl`` and lmms-eval's samples files share; paths inside a
data root; documents read as Arrow gives them."""

from __future__ import annotations

import math
import os
import re

import datasets
import pytest

from abductive_tasks.inputs.loading import (
    DataError,
    PathsInside,
    documents,
    json_lines,
    read_csv,
    resolve_columns,
    resolve_inside,
)


class OtherError(ValueError):
    pass


def test_json_lines_numbers_lines_as_in_the_file_skipping_blank_ones(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n  \n{"b": [2]}\n')  # a byte-order mark, as Excel writes
    assert list(json_lines(path)) == [(1, {"a": 1}), (4, {"b": [2]})]


def test_json_lines_read_what_pythons_json_reads_where_msgspec_refuses(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": NaN, "b": -Infinity}\n{"n": 123456789012345678901234567890}\n{"s": "\\u00e9", "x": 1e400}\n')
    (first, second, third) = [record for _, record in json_lines(path)]
    assert math.isnan(first["a"]) and first["b"] == -math.inf
    assert second == {"n": 123456789012345678901234567890} and third == {"s": "\u00e9", "x": math.inf}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1}\n{"a": \n', "line 2: not valid JSON (Expecting value)"),
        ('{"a": 1}\n\n[1, 2]\n', "line 3: not a JSON object (a list)"),
        ('"text"\n', "line 1: not a JSON object (a str)"),
    ],
)
def test_json_lines_names_file_and_line_of_a_bad_line_with_the_callers_error(tmp_path, text, message):
    path = tmp_path / "rows.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=f"^{re.escape(f'{path}, {message}')}$"):
        list(json_lines(path))
    with pytest.raises(OtherError, match="not"):
        list(json_lines(path, OtherError))


@pytest.mark.timeout(30)  # opening the FIFO would wait forever
def test_a_fifo_named_like_a_json_lines_file_is_never_opened(tmp_path):
    """A samples file of an upstream stage, a local data copy: a FIFO in its place raises the caller's error."""
    path = tmp_path / "rows.jsonl"
    os.mkfifo(path)
    with pytest.raises(OtherError, match=f"^{re.escape(str(path))}: a FIFO, not a regular file$"):
        list(json_lines(path, OtherError))


def test_paths_inside_resolve_as_resolve_inside_does_and_refuse_the_same_escapes(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "images" / "1").mkdir(parents=True)
    outside.mkdir()
    (root / "images" / "1" / "a.png").write_bytes(b"x")
    (outside / "b.png").write_bytes(b"x")
    (root / "images" / "2").symlink_to(outside)  # a linked folder leaving the root
    (root / "images" / "3").symlink_to(root / "images" / "1")  # a linked folder staying inside
    (root / "images" / "1" / "c.png").symlink_to(outside / "b.png")  # a linked file leaving the root
    inside = PathsInside(root)
    for relative in ("images/1/a.png", "images/3/a.png", "images/9/missing.png", "images/1/../1/a.png"):
        assert inside(relative, "row 1") == resolve_inside(root, relative, "row 1")
    assert inside("images/3/a.png", "row 1") == (root / "images" / "1" / "a.png").resolve()
    for relative in ("images/2/b.png", "images/1/c.png", "../outside/b.png", "images/../../outside/b.png"):
        with pytest.raises(DataError, match=rf"row 2: path '{re.escape(relative)}' escapes the data root"):
            inside(relative, "row 2")


def test_documents_read_as_arrow_gives_them_and_derived_datasets_read_arrow_again():
    rows = [{"id": str(n), "nested": {"a": 1} if n % 2 else {"b": 2}, "number": 1 if n % 3 else 1.5} for n in range(7)]
    docs, plain = documents(rows), datasets.Dataset.from_list(rows)
    assert list(docs) == list(plain) and [docs[n] for n in range(-7, 7)] == [plain[n] for n in range(-7, 7)]
    assert docs[1] == {"id": "1", "nested": {"b": None, "a": 1}, "number": 1.0}  # Arrow's unified types, not the input
    docs[0]["id"] = "changed"  # a read is a copy: changing it changes no later read
    assert docs[0]["id"] == "0"
    assert list(docs.select([3, 1])) == [plain[3], plain[1]]
    assert docs.remove_columns(["nested"])[3] == {"id": "3", "number": 1.5}
    assert docs.add_column("extra", list(range(7)))[4]["extra"] == 4
    assert docs.with_format("numpy")[0]["number"].dtype.kind == "f"


def test_a_data_error_shows_control_characters_escaped_on_one_line():
    """A value such as a Sherlock ``extra_info.task`` reached the terminal raw: it cleared the screen, retitled the
    window and printed a fake verdict."""
    value = "\x1b[2J\x1b[H\x1b]0;owned\x07\x1b[32mALL TESTS PASSED\x1b[0m\r\n\u202eevil\ud800"
    error = DataError(f"x.json, instance 0, field 'extra_info.task': '{value}'")
    assert str(error) == (
        "x.json, instance 0, field 'extra_info.task': "
        "'\\x1b[2J\\x1b[H\\x1b]0;owned\\x07\\x1b[32mALL TESTS PASSED\\x1b[0m\\r\\n\\u202eevil\\ud800'"
    )
    assert str(error).isprintable() and str(DataError(str(error))) == str(error)  # escaped once
    assert str(DataError("données 中 ü, 'quoted'")) == "données 中 ü, 'quoted'"  # printable text as written


@pytest.mark.parametrize(
    ("content", "line", "problem"),
    [
        ("a,b\n1,2\n3," + "x" * 200_000 + "\n5,6\n", 3, "field larger than field limit"),
        ('a,b\n1,2\n3,"x' + "\nx" * 2 + "x" * 200_000 + '"\n', 5, "field larger than field limit"),
        ("a," + "x" * 200_000 + "\n1,2\n", 1, "field larger than field limit"),
    ],
)
def test_what_the_csv_module_cannot_read_names_its_line(tmp_path, content, line, problem):
    """A field over the csv module's limit was reported without a line: ``cannot be read: Error: field larger ...``."""
    path = tmp_path / "test_set.csv"
    path.write_text(content)
    with pytest.raises(DataError, match=rf"^{re.escape(str(path))}, line {line}: cannot be read: {problem}"):
        read_csv(path)


def test_columns_resolve_to_the_first_accepted_name_the_header_holds(tmp_path):
    # NL-Eye accepts "gold_label", then "label": a file holding both is read from "gold_label"
    mapping = {"gold": ("gold_label", "label", "answer"), "note": ("note",), "id": ("id",)}
    columns = resolve_columns(["answer", "label", "id", "gold_label"], mapping, {"gold", "id"}, tmp_path / "f.csv")
    assert columns == {"gold": "gold_label", "id": "id"}
