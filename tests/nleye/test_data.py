"""NL-Eye loading: the ABDUCTIVE_DATA switch, the sample, and errors that name file, row and field."""

from __future__ import annotations

import csv
import shutil
from collections import Counter
from pathlib import Path

import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError, benchmark_root
from abductive_tasks.nleye import data as nleye
from abductive_tasks.nleye.hooks import triplet_docs_from, triplet_text_docs_from
from abductive_tasks.settings import cache_root


@pytest.fixture(autouse=True)
def fresh_loader():
    nleye.load.cache_clear()
    yield
    nleye.load.cache_clear()


def load_items(root: Path, overrides: tuple = ()):
    return nleye.load(root, overrides).items


def rewrite_csv(root: Path, edit) -> Path:
    """Apply ``edit(rows)`` to ``root/nleye/test_set.csv`` (rows as dicts) and write it back."""
    path = root / "nleye" / "test_set.csv"
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows = edit(rows) or rows
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_sample_covers_categories_directions_and_balanced_gold():
    items = load_items(SAMPLE_ROOT / "nleye")
    assert len(items) == 12
    assert set(items["reasoning_category"]) == nleye.REASONING_CATEGORIES
    assert set(items["time_direction"]) == nleye.TIME_DIRECTIONS
    assert Counter(items["gold"]) == {1: 6, 2: 6}
    sizes = {
        Path(path).stat().st_size for item in items for path in [item["premise_image"], *item["hypothesis_images"]]
    }
    assert len(sizes) > 1
    assert all(item["descriptions"] and len(item["descriptions"]) == 3 for item in items)


def test_switch_selects_sample_local_copy_or_official(monkeypatch, data_copy):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    assert benchmark_root("nleye", "MorVentura/NL-Eye") == SAMPLE_ROOT / "nleye"
    monkeypatch.setenv("ABDUCTIVE_DATA", str(data_copy))
    assert benchmark_root("nleye", "MorVentura/NL-Eye") == data_copy / "nleye"
    monkeypatch.setenv("ABDUCTIVE_DATA", str(data_copy / "missing"))
    with pytest.raises(DataError, match="no folder"):
        benchmark_root("nleye", "MorVentura/NL-Eye")
    monkeypatch.delenv("ABDUCTIVE_DATA")
    monkeypatch.setenv("HF_HUB_CACHE", str(data_copy / "empty-hub-cache"))
    with pytest.raises(DataError, match="ABDUCTIVE_DATA=sample") as error:
        benchmark_root("nleye", "MorVentura/NL-Eye")
    assert "MorVentura/NL-Eye" in str(error.value)


def test_local_copy_with_renamed_columns_loads(data_copy):
    def rename(rows):
        return [
            {
                ("label" if k == "gold_label" else "explanation" if k == "gold_explanation" else k): v
                for k, v in row.items()
            }
            for row in rows
        ]

    rewrite_csv(data_copy, rename)
    items = load_items(data_copy / "nleye")
    assert items["gold"] == load_items(SAMPLE_ROOT / "nleye")["gold"]


def test_missing_required_column_lists_columns_present(data_copy):
    rewrite_csv(data_copy, lambda rows: [{k: v for k, v in row.items() if k != "gold_label"} for row in rows])
    with pytest.raises(DataError, match=r"gold_label: one of .*Columns present: \['sample_id'"):
        load_items(data_copy / "nleye")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda rows: rows.__setitem__(3, {**rows[3], "gold_label": "3"}),
            r"line 5, field 'gold_label': unknown label '3'",
        ),
        (
            lambda rows: rows.__setitem__(4, {**rows[4], "sample_id": rows[0]["sample_id"]}),
            r"line 6, field 'sample_id': duplicate sample id '1' \(first on line 2\)",
        ),
        (
            lambda rows: rows.__setitem__(1, {**rows[1], "reasoning_category": "magical"}),
            r"line 3, field 'reasoning_category': unknown category 'magical'",
        ),
        (
            lambda rows: rows.__setitem__(1, {**rows[1], "time_direction": "sideways"}),
            r"line 3, field 'time_direction'",
        ),
        # An unknown duration became a bucket of its own in consistency_by_time_duration.
        (
            lambda rows: rows.__setitem__(1, {**rows[1], "time_duration": "mid-term"}),
            r"line 3, field 'time_duration': unknown duration 'mid-term', expected short-term, long-term or empty",
        ),
        (
            lambda rows: rows.__setitem__(0, {**rows[0], "sample_id": "../../.."}),
            r"line 2, field 'sample_id': path '../../../premise.png' escapes the data root",
        ),
    ],
)
def test_bad_rows_name_file_line_and_field(data_copy, edit, message):
    path = rewrite_csv(data_copy, edit)
    with pytest.raises(DataError, match=message) as error:
        load_items(data_copy / "nleye")
    assert str(path) in str(error.value)


def test_durations_read_as_the_papers_two_or_unspecified(data_copy):
    written = ["Short Term", "long_term", "short", "LONG", "", "short-term"]
    rewrite_csv(data_copy, lambda rows: [{**row, "time_duration": written[n % 6]} for n, row in enumerate(rows)])
    durations = load_items(data_copy / "nleye")["time_duration"]
    assert durations[:6] == ["short-term", "long-term", "short-term", "long-term", "unspecified", "short-term"]


def test_malformed_row_names_its_line(data_copy):
    path = data_copy / "nleye" / "test_set.csv"
    lines = path.read_text().splitlines()
    lines[2] += ",an extra field"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"test_set.csv, line 3: expected 10 fields"):
        load_items(data_copy / "nleye")


def test_missing_and_unreadable_images_stop_loading(data_copy):
    (data_copy / "nleye" / "images" / "5" / "hypothesis2.png").unlink()
    with pytest.raises(DataError, match=r"line 6, field 'sample_id': image file not found: .*images/5/hypothesis2.png"):
        load_items(data_copy / "nleye")
    (data_copy / "nleye" / "images" / "5" / "hypothesis2.png").write_bytes(b"not a png")
    with pytest.raises(DataError, match=r"line 6, field 'sample_id': unusable image .*images/5/hypothesis2.png"):
        load_items(data_copy / "nleye")


def test_text_task_needs_descriptions(data_copy):
    rewrite_csv(data_copy, lambda rows: rows.__setitem__(2, {**rows[2], "premise_description": ""}))
    items = load_items(data_copy / "nleye")
    with pytest.raises(DataError, match=r"nleye_triplet_text needs .* sample ids \['3'\]"):
        triplet_text_docs_from(items)
    assert len(triplet_docs_from(items)) == 24


def test_benchmark_without_a_hub_copy_says_how_to_get_its_data(monkeypatch):
    monkeypatch.delenv("ABDUCTIVE_DATA", raising=False)
    with pytest.raises(
        DataError,
        match=r"'dve' has no hub copy.*Fetch it here\. Then set ABDUCTIVE_DATA=<root> \(data under <root>/dve/\)",
    ):
        benchmark_root("dve", None, "Fetch it here.")


def test_cache_root_honours_abductive_cache_then_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ABDUCTIVE_CACHE", raising=False)
    assert cache_root() == tmp_path / "xdg" / "abductive_tasks"
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"


def test_column_override_maps_a_field_to_a_column(data_copy, monkeypatch):
    def rename(rows):
        return [{("which_one" if k == "gold_label" else k): v for k, v in row.items()} for row in rows]

    path = rewrite_csv(data_copy, rename)
    with pytest.raises(DataError, match=r"gold_label: one of .*name a column with ABDUCTIVE_NLEYE_COLUMNS") as error:
        load_items(data_copy / "nleye")
    assert str(path) in str(error.value)
    monkeypatch.setenv("ABDUCTIVE_NLEYE_COLUMNS", "gold_label=which_one")
    assert nleye.column_overrides() == (("gold_label", "which_one"),)
    assert (
        load_items(data_copy / "nleye", nleye.column_overrides())["gold"] == load_items(SAMPLE_ROOT / "nleye")["gold"]
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("gold_label", r"expected 'field=column,field=column'"),
        ("golden=label", r"unknown field\(s\) \['golden'\]"),
    ],
)
def test_bad_column_override_is_a_clear_error(monkeypatch, value, message):
    monkeypatch.setenv("ABDUCTIVE_NLEYE_COLUMNS", value)
    with pytest.raises(DataError, match=message):
        nleye.column_overrides()


def test_column_override_naming_an_absent_column_is_an_error(data_copy):
    with pytest.raises(
        DataError, match=r"ABDUCTIVE_NLEYE_COLUMNS names column\(s\) the file lacks: \['gold_explanation=expl'\]"
    ):
        load_items(data_copy / "nleye", (("gold_explanation", "expl"),))


def test_image_symlink_leaving_the_root_is_refused(data_copy, tmp_path):
    outside = tmp_path / "outside.png"
    target = data_copy / "nleye" / "images" / "4" / "premise.png"
    outside.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(DataError, match=r"line 5, field 'sample_id': path '4/premise.png' escapes the data root"):
        load_items(data_copy / "nleye")


def test_the_images_folder_of_the_layout_may_be_a_link(data_copy, tmp_path):
    """The images kept elsewhere, ``images/`` linked in (as DVE's and Sherlock's image folders may be): it was refused
    as an escape, while a name the CSV gives still may not step out of it (above)."""
    kept = tmp_path / "kept_elsewhere"
    shutil.move(data_copy / "nleye" / "images", kept)
    (data_copy / "nleye" / "images").symlink_to(kept)
    items = load_items(data_copy / "nleye")
    assert len(items) == 12 and items[0]["premise_image"] == str(kept.resolve() / items[0]["item_id"] / "premise.png")


def test_csv_with_a_byte_order_mark_loads(data_copy):
    path = data_copy / "nleye" / "test_set.csv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert len(load_items(data_copy / "nleye")) == 12


def test_non_utf8_csv_names_the_file(data_copy):
    path = data_copy / "nleye" / "test_set.csv"
    path.write_bytes(path.read_bytes().replace(b"kitchen", b"k\xe9tchen", 1))
    with pytest.raises(DataError, match=r"test_set.csv: not UTF-8 text"):
        load_items(data_copy / "nleye")


@pytest.mark.parametrize(
    ("label", "gold"),
    [("1", 1), ("2", 2), ("Hypothesis 1", 1), ("Hypothesis 2", 2), ("hypothesis2", 2), ("H1", 1), ("h2", 2)],
)
def test_every_gold_label_spelling_reads_as_its_hypothesis(data_copy, label, gold):
    rewrite_csv(data_copy, lambda rows: [rows[0] | {"gold_label": label}, *rows[1:]])
    assert load_items(data_copy / "nleye")[0]["gold"] == gold


def test_each_image_of_an_item_is_read_from_its_own_file():
    for item in load_items(SAMPLE_ROOT / "nleye"):
        paths = [Path(item["premise_image"]), *map(Path, item["hypothesis_images"])]
        assert [path.name for path in paths] == ["premise.png", "hypothesis1.png", "hypothesis2.png"]
        assert {path.parent.name for path in paths} == {item["item_id"]}
