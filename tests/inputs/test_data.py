"""The JSON-lines reader that DVE's ``cleaned_<split>.jsonl`` and lmms-eval's samples files share."""

from __future__ import annotations

import re

import pytest

from abductive_tasks.inputs.data import DataError, json_lines


class OtherError(ValueError):
    pass


def test_json_lines_numbers_lines_as_in_the_file_skipping_blank_ones(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n  \n{"b": [2]}\n')  # a byte-order mark, as Excel writes
    assert list(json_lines(path)) == [(1, {"a": 1}), (4, {"b": [2]})]


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
