"""MuCR loading: both record schemas, the candidate rule, the sample, and errors naming file, row and field."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from abductive_tasks.inputs import images, loading
from abductive_tasks.inputs.images import load_image, materialise_image
from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError
from abductive_tasks.mucr import data

from sample_generators.mucr import make_mucr_v2

PARQUET = Path("data") / "test-00000-of-00001.parquet"
GROUPS = [{"0", "1", "2", "3"}, {"4", "5", "6", "7"}, {"8", "9", "10", "11"}]


@pytest.fixture(autouse=True)
def fresh_loader(tmp_path, monkeypatch):
    """A fresh loader cache and image cache; embedded images are written under this test's folder."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    data.clear_cache()
    images.clear_cache()
    yield
    data.clear_cache()
    images.clear_cache()


def group_of(item_id: str) -> set[str]:
    return next(group for group in GROUPS if item_id in group)


def load_items(root: Path) -> list[dict]:
    return list(data.load(root).items)


@pytest.fixture
def v2_root(tmp_path) -> Path:
    root = tmp_path / "v2" / "mucr"
    make_mucr_v2(root)
    return root


def rewrite(root: Path, column: str, edit, kind: pa.DataType | None = None) -> Path:
    """Apply ``edit(values)`` to one column of ``root``'s parquet file (values as Python objects) and write it back."""
    path = root / PARQUET
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    values = edit(values) or values
    index = table.schema.get_field_index(column)
    table = table.set_column(index, column, pa.array(values, kind or table.schema.field(index).type))
    pq.write_table(table, path)
    return path


def png_bytes(array: np.ndarray, format: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format=format)
    return buffer.getvalue()


# ---------------------------------------------------------------- the two schemas and the sample


def test_v1_sample_loads_with_embedded_images():
    loaded = data.load(SAMPLE_ROOT / "mucr")
    items = list(loaded.items)
    assert loaded.source == str(SAMPLE_ROOT / "mucr" / PARQUET) and dict(loaded.excluded) == {}
    assert [item["item_id"] for item in items] == [str(n) for n in range(12)]
    first = items[0]
    assert first["label"] == "human" and first["style"] == "photograph" and first["cue"] == "speeding"
    assert first["false_cues"] == ["car", "road", "police officer"]
    assert len(first["references"]) == 3
    assert first["link_ids"] == ["1", "2", "3"]
    assert load_image(first["cause_image"]).getpixel((0, 0)) == (250, 250, 250)  # CORNERS[0]
    assert load_image(first["effect_image"]).getpixel((0, 0)) == (20, 20, 20)


def test_v2_schema_loads_with_image_files(v2_root):
    items, v1 = load_items(v2_root), load_items(SAMPLE_ROOT / "mucr")
    assert len(items) == 12
    assert all(len(item["references"]) == 1 and item["link_ids"] == [] for item in items)
    assert items[4]["references"] == [v1[4]["references"][0]]
    assert items[4]["false_cues"] == v1[4]["false_cues"]  # written as a JSON list string
    assert Path(items[0]["cause_image"]) == v2_root / "images" / "0_0.png"
    # No link_id: every set is drawn by the seeded rule; the same-label tier is the pair's group.
    assert {item["candidate_rule"] for item in items} == {"seeded"}
    assert all(set(item["distractors"]) == group_of(item["item_id"]) - {item["item_id"]} for item in items)


def test_abductive_data_selects_a_local_copy(data_copy, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_DATA", str(data_copy))
    loaded = data.load_selected()
    assert loaded.source == str(data_copy / "mucr" / PARQUET)
    assert list(loaded.items["item_id"]) == [str(n) for n in range(12)]


def test_sample_images_are_small():
    total = sum(path.stat().st_size for path in (SAMPLE_ROOT / "mucr").rglob("*") if path.is_file())
    assert total < 100_000
    assert Image.open(load_items(SAMPLE_ROOT / "mucr")[0]["cause_image"]).format == "PNG"


def test_embedded_image_encodedare_written_once_by_content(tmp_path):
    image = load_items(SAMPLE_ROOT / "mucr")[0]["cause_image"]
    assert Path(image).parent == tmp_path / "cache" / "images"
    encoded = Path(image).read_bytes()
    assert materialise_image(encoded) == image and Path(image).name == hashlib.sha256(encoded).hexdigest() + ".png"
    assert len(list((tmp_path / "cache" / "images").iterdir())) == 24  # 12 pairs x 2 distinct images


def test_another_cache_in_the_same_process_gets_its_own_images(tmp_path, monkeypatch):
    """The pairs read are remembered per image cache: a process that changes ABDUCTIVE_CACHE (a test, the ui) is
    never handed paths in the cache it left."""
    first = load_items(SAMPLE_ROOT / "mucr")[0]["cause_image"]
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "other"))
    second = load_items(SAMPLE_ROOT / "mucr")[0]["cause_image"]
    assert Path(first).parent == tmp_path / "cache" / "images" and Path(second).parent == tmp_path / "other" / "images"
    assert Path(second).read_bytes() == Path(first).read_bytes()


# ---------------------------------------------------------------- candidate sets


def test_candidate_rule_on_the_v1_sample():
    items = load_items(SAMPLE_ROOT / "mucr")
    rules = {item["item_id"]: item["candidate_rule"] for item in items}
    # 8 names a missing pair, 10 has no link_id, 11 only two: seeded; 9 and groups 0-7 resolve.
    assert [i for i, rule in rules.items() if rule == "seeded"] == ["8", "10", "11"]
    assert items[9]["distractors"] == ["8", "10", "11"] and items[0]["distractors"] == ["1", "2", "3"]
    # Seeded sets come from the causal group the other pairs' link_ids reveal.
    assert all(set(item["distractors"]) == group_of(item["item_id"]) - {item["item_id"]} for item in items)


def _pair(item_id: str, label: str, links: list[str]) -> dict:
    return {"item_id": item_id, "label": label, "link_ids": links}


def test_seeded_rule_prefers_group_then_label_and_is_deterministic():
    pairs = [
        _pair("a", "human", ["b", "c", "d"]),
        _pair("b", "human", ["a", "zz"]),
        _pair("c", "human", []),
        _pair("d", "human", []),
        _pair("e", "animal", []),
        _pair("f", "animal", []),
        _pair("g", "human", []),
        _pair("h", "plant", []),
    ]
    sets = dict(zip("abcdefgh", data.candidate_sets(pairs), strict=True))
    assert sets["a"] == (["b", "c", "d"], "link_id")
    assert sets["b"][1] == "seeded" and set(sets["b"][0]) == {"a", "c", "d"}  # its group, found through a's links
    e_set, rule = sets["e"]
    assert rule == "seeded" and e_set[0] == "f" and set(e_set[1:]) <= {"a", "b", "c", "d", "g", "h"}
    assert data.candidate_sets(list(reversed(pairs)))[::-1] == [sets[k] for k in "abcdefgh"]  # order-independent
    assert data.causal_groups(pairs)["c"] == data.causal_groups(pairs)["a"] != data.causal_groups(pairs)["e"]


# ---------------------------------------------------------------- bad data: file, row and field


def _set_row(index: int, value):
    def edit(values: list) -> list:
        values[index] = value
        return values

    return edit


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("label", "robot", "row 3, field 'label': unknown category 'robot'"),
        ("style", "oil painting", "row 3, field 'style': unknown style 'oil painting'"),
        ("id", "0", "row 3, field 'id': duplicate id '0' (first at "),
        ("id", " ", "row 3, field 'id': empty id"),
        ("cue", "", "row 3, field 'cue': empty cue phrase"),
        ("causal_reason", " ", "row 3, field 'causal_reason': no explanation annotation"),
        ("false_cue", '["fin", "teeth"]', "row 3, field 'false_cue': expected 3 distinct false cues"),
        (
            "false_cue",
            '["car", "road", "Speeding"]',
            "row 3, field 'false_cue': expected 3 distinct false cues differing from the cue 'speeding'",
        ),
        ("false_cue", '[["fin"], "teeth", "water"]', "row 3, field 'false_cue': expected text, found list"),
        ("false_cue", "[[fin, teeth, water]", "row 3, field 'false_cue': unreadable written list"),
        ("false_cue", "[" * 5000 + "]" * 5000, "row 3, field 'false_cue': written list nested too deeply"),
        ("image_1", "../outside.png", "row 3, field 'image_1': path '../outside.png' escapes the data root"),
        ("image_0", "images/missing.png", "row 3, field 'image_0': image file not found"),
        ("image_0", "", "row 3, field 'image_0': no image"),
    ],
)
def test_bad_rows_name_file_row_and_field(v2_root, column, value, message):
    path = rewrite(v2_root, column, _set_row(2, value))
    with pytest.raises(DataError) as error:
        data.load(v2_root)
    assert str(path) in str(error.value) and message in str(error.value)


def test_missing_column_and_missing_files_are_reported(v2_root, tmp_path):
    path = v2_root / PARQUET
    pq.write_table(pq.read_table(path).drop_columns(["cue"]), path)
    with pytest.raises(DataError, match=r"missing column\(s\) for cue: one of \['cue'\]. Columns present: \['id'"):
        data.load(v2_root)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no parquet files"):
        data.load(tmp_path / "empty")


def test_too_few_pairs_for_four_candidates(v2_root):
    path = v2_root / PARQUET
    pq.write_table(pq.read_table(path).slice(0, 3), path)
    with pytest.raises(DataError, match=r"3 pairs; the 4-way candidate sets need at least 4"):
        data.load(v2_root)


def test_written_lists_parse_without_eval():
    assert data._string_list("[a, b,c]", split_commas=True) == ["a", "b", "c"]
    assert data._string_list("['x, y', 'z']", split_commas=False) == ["x, y", "z"]
    assert data._string_list("__import__('os')", split_commas=False) == ["__import__('os')"]
    assert data._string_list("[1, 2, 3]", split_commas=True) == ["1", "2", "3"]  # int ids read as their digits
    assert data._string_list(None, split_commas=True) == [] and data._string_list(" ", split_commas=True) == []


@pytest.mark.parametrize(
    ("value", "entry"),
    [
        ("__import__('os')", "\"__import__('os')\""),
        ("!!python/object/apply:x", "'!!python/object/apply:x'"),
        ("(1,2,3)", "'(1'"),
        ("[1, 2, 3", "'[1'"),
    ],
)
def test_an_unreadable_link_id_names_file_row_and_field(data_copy, value, entry):
    """It used to fall back to seeded distractors with no word (candidates_link_id 9 -> 8, seeded 3 -> 4)."""
    root = data_copy / "mucr"
    path = rewrite(root, "link_id", _set_row(3, value))
    with pytest.raises(DataError) as error:
        data.load(root)
    assert f"{path}, row 4, field 'link_id': unreadable list of pair ids {value!r}: {entry} is not a pair id" in str(
        error.value
    )


@pytest.mark.parametrize("value", ["", None, "[]"])
def test_an_empty_link_id_is_no_link_id_and_counted(data_copy, value):
    root = data_copy / "mucr"
    rewrite(root, "link_id", _set_row(3, value))
    loaded = data.load(root)
    assert loaded.quirks == {data.NO_LINK_ID: 2}  # row 4 and the sample's pair 10
    assert [item["candidate_rule"] for item in loaded.items].count(data.SEEDED) == 4


def test_a_duplicate_id_in_a_second_file_names_both(data_copy):
    root = data_copy / "mucr"
    second = root / "data" / "test-00001-of-00001.parquet"
    shutil.copy(root / PARQUET, second)
    with pytest.raises(DataError) as error:
        data.load(root)
    assert f"{second}, row 1, field 'id': duplicate id '0' (first at {root / PARQUET}, row 1)" in str(error.value)


def test_a_broken_parquet_file_is_one_error_naming_it(data_copy):
    path = data_copy / "mucr" / PARQUET
    path.write_bytes(path.read_bytes()[:300])
    with pytest.raises(DataError, match=rf"{path}: cannot be read: ArrowInvalid"):
        data.load(data_copy / "mucr")


def test_non_utf8_text_names_file_row_and_field(data_copy):
    root = data_copy / "mucr"
    path = rewrite(root, "cue", _set_row(0, b"sp\xe9eding"), pa.binary())
    with pytest.raises(DataError) as error:
        data.load(root)
    assert f"{path}, row 1, field 'cue': not UTF-8 text (invalid continuation byte at byte 2)" in str(error.value)


def test_a_nested_list_cell_is_refused(data_copy):
    root = data_copy / "mucr"
    path = rewrite(
        root,
        "causal_reason",
        lambda values: [[[text] for text in row] for row in values],
        pa.list_(pa.list_(pa.string())),
    )
    with pytest.raises(DataError) as error:
        data.load(root)
    assert f"{path}, row 1, field 'causal_reason': expected text, found list" in str(error.value)


def _set_image(index: int, payload: bytes):
    return _set_row(index, {"bytes": payload, "path": f"{index}_0.png"})


def test_a_truncated_embedded_image_is_refused(data_copy):
    root = data_copy / "mucr"
    whole = png_bytes(np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8))
    path = rewrite(root, "image_0", _set_image(4, whole[: len(whole) // 2]))
    with pytest.raises(DataError) as error:
        data.load(root)
    assert f"{path}, row 5, field 'image_0': unusable image " in str(error.value) and "truncated" in str(error.value)


def test_an_oversize_image_is_refused(data_copy, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_MAX_IMAGE_PIXELS", "100")
    with pytest.raises(
        DataError,
        match=r"row 1, field 'image_0': unusable image .* pixels is over the limit of 100 "
        r"\(ABDUCTIVE_MAX_IMAGE_PIXELS\)",
    ):
        data.load(data_copy / "mucr")


def test_an_image_mode_without_faithful_rgb_is_refused(data_copy):
    root = data_copy / "mucr"
    rewrite(root, "image_1", _set_image(6, png_bytes(np.zeros((8, 8), dtype=np.float32), format="TIFF")))
    with pytest.raises(DataError, match=r"row 7, field 'image_1': unusable image .*unsupported image mode F"):
        data.load(root)


def test_a_linked_data_folder_is_read(v2_root, tmp_path):
    """``data/`` kept elsewhere and linked in: "no parquet files" (the search did not enter linked folders); a link
    loop beside it ends."""
    expected = load_items(v2_root)
    data.clear_cache()
    kept = tmp_path / "kept_elsewhere"
    shutil.move(v2_root / "data", kept)
    (v2_root / "data").symlink_to(kept)
    (kept / "loop").symlink_to(v2_root)
    assert [item["item_id"] for item in load_items(v2_root)] == [item["item_id"] for item in expected]


def test_an_image_file_symlinked_out_of_the_root_is_refused(v2_root, tmp_path):
    target = v2_root / "images" / "3_1.png"
    outside = tmp_path / "outside.png"
    outside.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(DataError, match=r"row 4, field 'image_1': path 'images/3_1.png' escapes the data root"):
        data.load(v2_root)


# ---------------------------------------------------------------- the per-file item cache


def cached_files(tmp_path) -> list[Path]:
    return sorted((tmp_path / "cache" / "mucr_items").glob("*.json"))


@pytest.fixture
def parquet_reads(monkeypatch) -> list[str]:
    """Parquet files the loader opens and embedded images it writes, one entry per call."""
    calls: list[str] = []
    open_parquet, write_image = pq.ParquetFile, data.materialise_image  # the loader imports pyarrow.parquet on use
    monkeypatch.setattr(pq, "ParquetFile", lambda path, *a, **k: calls.append(str(path)) or open_parquet(path))
    monkeypatch.setattr(data, "materialise_image", lambda encoded: calls.append("image") or write_image(encoded))
    return calls


def reload(root: Path) -> list[dict]:
    data.clear_cache()
    return load_items(root)


@pytest.mark.parametrize("schema", ["v1 embedded images", "v2 image files"])
def test_a_second_load_reads_no_parquet_and_returns_the_same_items(schema, data_copy, v2_root, tmp_path, parquet_reads):
    root = data_copy / "mucr" if schema.startswith("v1") else v2_root
    cold = load_items(root)
    embedded = 24 if schema.startswith("v1") else 0  # 12 pairs x 2 images
    assert parquet_reads == [str(root / PARQUET)] + ["image"] * embedded
    assert len(cached_files(tmp_path)) == 1
    parquet_reads.clear()
    warm = reload(root)
    assert parquet_reads == [] and warm == cold
    assert warm[0]["cause_image"] == cold[0]["cause_image"] and warm[11]["distractors"] == cold[11]["distractors"]


def test_a_touched_or_rewritten_parquet_file_is_read_again(data_copy, tmp_path, parquet_reads):
    root = data_copy / "mucr"
    path = root / PARQUET
    cold = load_items(root)
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 1))  # same bytes, new modification time
    parquet_reads.clear()
    assert reload(root) == cold and parquet_reads == [str(path)] + ["image"] * 24
    rewrite(root, "cue", _set_row(0, "racing"))
    parquet_reads.clear()
    assert reload(root)[0]["cue"] == "racing" and parquet_reads[0] == str(path)
    assert len(cached_files(tmp_path)) == 1  # replaced, not one more per version
    parquet_reads.clear()
    assert reload(root)[0]["cue"] == "racing" and parquet_reads == []


def test_a_deleted_cached_image_brings_back_the_full_read(data_copy, parquet_reads):
    root = data_copy / "mucr"
    cold = load_items(root)
    Path(cold[5]["effect_image"]).unlink()
    parquet_reads.clear()
    assert reload(root) == cold and parquet_reads == [str(root / PARQUET)] + ["image"] * 24
    assert Path(cold[5]["effect_image"]).is_file()


@pytest.mark.parametrize("module", [data, images, loading], ids=lambda module: module.__name__)
def test_an_edit_to_the_loaders_code_reads_every_file_again(module, data_copy, tmp_path, parquet_reads, edit_code):
    """A warm cache built by other code (``_item``, its checks) is never reused: the parquet file is read again and
    its entry replaced, with no format number to raise by hand."""
    root = data_copy / "mucr"
    cold = load_items(root)
    (cache_file,) = cached_files(tmp_path)
    before = cache_file.read_bytes()
    edit_code(module)
    parquet_reads.clear()
    assert reload(root) == cold and parquet_reads == [str(root / PARQUET)] + ["image"] * 24
    assert cached_files(tmp_path) == [cache_file] and cache_file.read_bytes() != before
    parquet_reads.clear()
    assert reload(root) == cold and parquet_reads == []


def test_an_entry_stamped_with_the_old_format_number_is_read_again_and_rewritten(data_copy, tmp_path, parquet_reads):
    """An entry written before the stamp held the loader's code (``[3, size, mtime]``, sealed as it was then)
    misses, never fails."""
    root = data_copy / "mucr"
    cold = load_items(root)
    (cache_file,) = cached_files(tmp_path)
    content = json.loads(cache_file.read_bytes().split(b"\n", 1)[1])
    current = content["stamp"]
    content["stamp"] = [3, *current[1:]]
    data._save(cache_file, content)
    parquet_reads.clear()
    assert reload(root) == cold and parquet_reads == [str(root / PARQUET)] + ["image"] * 24
    assert json.loads(cache_file.read_bytes().split(b"\n", 1)[1])["stamp"] == current


@pytest.fixture
def warned() -> list[str]:
    """Messages logged through loguru at WARNING or above during the test."""
    from loguru import logger

    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(message.record["message"]), level="WARNING")
    yield messages
    logger.remove(sink)


def other_pixels(path: Path) -> bytes:
    """A valid PNG of the same size and mode as ``path``'s, with other pixels."""
    with Image.open(path) as image:
        swapped = Image.new(image.mode, image.size, "white" if image.getpixel((0, 0)) != (255, 255, 255) else "black")
    buffer = io.BytesIO()
    swapped.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize("how", ["overwritten in place", "replaced by a link"])
def test_an_extracted_image_replaced_in_the_cache_is_rebuilt_with_a_warning_never_used(
    how, data_copy, parquet_reads, warned
):
    """``<ABDUCTIVE_CACHE>/images/<sha256>.png`` is checked against its name on every hit: new pixels planted there
    (same name, a valid image, the item cache's seal untouched) are never loaded; the image is written again."""
    root = data_copy / "mucr"
    cold = load_items(root)
    planted = Path(cold[5]["effect_image"])
    original = planted.read_bytes()
    if how == "overwritten in place":
        planted.write_bytes(other_pixels(planted))
    else:
        elsewhere = planted.with_name("elsewhere.png")
        elsewhere.write_bytes(other_pixels(planted))
        planted.unlink()
        planted.symlink_to(elsewhere)
    parquet_reads.clear()
    warm = reload(root)
    assert warm == cold and parquet_reads == [str(root / PARQUET)] + ["image"] * 24
    assert not planted.is_symlink() and planted.read_bytes() == original
    assert [message for message in warned if str(planted) in message and "rewritten" in message]


def test_an_extracted_image_replaced_during_a_run_is_refused_when_decoded(data_copy, tmp_path):
    """Between the load's check and the first decode, pixels planted in the cache are refused, not shown to a model."""
    from abductive_tasks.inputs.images import clear_cache, load_image

    image = Path(load_items(data_copy / "mucr")[0]["cause_image"])
    clear_cache()
    image.write_bytes(other_pixels(image))
    with pytest.raises(ValueError, match=r"changed since it was written"):
        load_image(str(image))


def test_materialising_over_a_planted_entry_writes_the_true_bytes(tmp_path, warned):
    encoded = Path(load_items(SAMPLE_ROOT / "mucr")[0]["cause_image"]).read_bytes()
    target = tmp_path / "images" / (hashlib.sha256(encoded).hexdigest() + ".png")
    target.parent.mkdir()
    target.write_bytes(other_pixels(Path(load_items(SAMPLE_ROOT / "mucr")[0]["cause_image"])))
    assert materialise_image(encoded, tmp_path / "images") == str(target)
    assert target.read_bytes() == encoded and [message for message in warned if "rewritten" in message]


@pytest.mark.parametrize("content", [b"", b"{not json", b"[]", b'{"stamp": 1}', "half"])
def test_a_corrupt_cache_file_is_ignored_and_rewritten(content, data_copy, tmp_path, parquet_reads):
    root = data_copy / "mucr"
    cold = load_items(root)
    (cache_file,) = cached_files(tmp_path)
    whole = cache_file.read_bytes()
    cache_file.write_bytes(whole[: len(whole) // 2] if content == "half" else content)
    parquet_reads.clear()
    assert reload(root) == cold and parquet_reads[0] == str(root / PARQUET)
    assert cache_file.read_bytes() == whole


def test_a_bad_row_in_a_changed_file_still_names_file_row_and_field(v2_root):
    load_items(v2_root)
    path = rewrite(v2_root, "label", _set_row(2, "robot"))
    data.clear_cache()
    with pytest.raises(DataError) as error:
        data.load(v2_root)
    assert f"{path}, row 3, field 'label': unknown category 'robot'" in str(error.value)


def test_a_warm_cache_still_checks_images(data_copy, v2_root, tmp_path, monkeypatch):
    """A lowered pixel limit or an image file replaced by a link out of the root fail as on a cold read."""
    load_items(data_copy / "mucr")
    monkeypatch.setenv("ABDUCTIVE_MAX_IMAGE_PIXELS", "100")
    data.clear_cache()
    with pytest.raises(DataError, match=r"row 1, field 'image_0': unusable image .* pixels is over the limit of 100"):
        data.load(data_copy / "mucr")
    monkeypatch.delenv("ABDUCTIVE_MAX_IMAGE_PIXELS")
    load_items(v2_root)
    target = v2_root / "images" / "3_1.png"
    outside = tmp_path / "outside.png"
    outside.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(outside)
    data.clear_cache()
    with pytest.raises(DataError, match=r"row 4, field 'image_1': path 'images/3_1.png' escapes the data root"):
        data.load(v2_root)


def test_an_item_cache_that_cannot_be_written_leaves_no_file_behind(tmp_path):
    cache_file = tmp_path / "mucr_items" / "x.json"
    data._save(cache_file, {"items": [{"cue": "\ud800"}]})  # a lone surrogate: orjson refuses to write it
    assert not cache_file.parent.exists() or list(cache_file.parent.iterdir()) == []
    data._save(cache_file, {"items": [{"cue": "rain"}]})
    assert [path.name for path in cache_file.parent.iterdir()] == ["x.json"]


def _edit_cached(cache_file: Path, edit) -> None:
    """Edit the JSON content of a cache entry in place, keeping whatever precedes it (its stamp stays)."""
    blob = cache_file.read_bytes()
    start = blob.index(b"{")
    content = json.loads(blob[start:])
    edit(content)
    cache_file.write_bytes(blob[:start] + json.dumps(content).encode())


def test_a_cache_entry_edited_with_its_stamp_kept_is_rebuilt(data_copy, tmp_path, parquet_reads):
    """Swapping two items' cues in the cache (stamp untouched) would move mucr_cue: the entry's seal no longer
    matches, so the parquet file is read again."""
    root = data_copy / "mucr"
    cold = load_items(root)
    (cache_file,) = cached_files(tmp_path)

    assert cold[0]["cue"] != cold[4]["cue"]  # two causal groups' cues

    def swap(content: dict) -> None:
        first, second = content["items"][0], content["items"][4]
        first["cue"], second["cue"] = second["cue"], first["cue"]

    _edit_cached(cache_file, swap)
    parquet_reads.clear()
    warm = reload(root)
    assert [warm[0]["cue"], warm[4]["cue"]] == [cold[0]["cue"], cold[4]["cue"]]
    assert warm == cold and parquet_reads[0] == str(root / PARQUET)


def test_a_cache_entry_pointing_an_image_outside_its_cache_is_rebuilt(data_copy, tmp_path, parquet_reads):
    """Even an entry the loader itself wrote (sealed) is re-resolved: an embedded image's path must name a file inside
    the image cache."""
    root = data_copy / "mucr"
    cold = load_items(root)
    (cache_file,) = cached_files(tmp_path)
    outside = tmp_path / "elsewhere.png"
    shutil.copy(cold[0]["cause_image"], outside)
    content = json.loads(cache_file.read_bytes()[cache_file.read_bytes().index(b"{") :])
    content["items"][0]["cause_image"] = str(outside)
    data._save(cache_file, content)
    parquet_reads.clear()
    assert reload(root) == cold and parquet_reads[0] == str(root / PARQUET)
    assert reload(root)[0]["cause_image"] != str(outside)


def test_a_link_id_naming_the_pair_itself_or_one_pair_twice_is_not_its_candidate_set():
    pairs = [
        _pair("a", "human", ["a", "b", "c"]),  # itself among its three
        _pair("b", "human", ["c", "c", "d"]),  # one pair twice
        _pair("c", "human", []),
        _pair("d", "human", []),
        _pair("e", "human", []),
    ]
    sets = dict(zip("abcde", data.candidate_sets(pairs), strict=True))
    assert sets["a"][1] == "seeded" and "a" not in sets["a"][0]
    assert sets["b"][1] == "seeded" and len(set(sets["b"][0])) == 3


def test_pairs_linked_through_a_common_pair_are_one_causal_group():
    # a and c both name b, nobody names a or c: one group through b
    pairs = [_pair("a", "human", ["b"]), _pair("b", "human", []), _pair("c", "human", ["b"]), _pair("d", "human", [])]
    groups = data.causal_groups(pairs)
    assert groups["a"] == groups["b"] == groups["c"] != groups["d"]
