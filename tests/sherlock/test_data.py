"""Sherlock loading: the official layout, the sample, the three views, and errors that name file, instance and field."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import PIL.Image
import pytest

from abductive_tasks.inputs import images
from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError
from abductive_tasks.sherlock import data

ROOT = SAMPLE_ROOT / "sherlock"


def items(root: Path, task: str, split: str = "val", view: str = "pairs", mini_size: int = data.MINI_ROWS):
    return data.load(root, task, split, view, mini_size).items


def test_image_urls_map_to_their_last_two_components():
    assert data.image_key("https://cs.stanford.edu/people/rak248/VG_100K/2371713.jpg") == "VG_100K/2371713.jpg"
    url = "http://s3-us-west-2.amazonaws.com/ai2-rowanz/vcr1images/lsmdc_3023_DISTRICT_9/3023_DISTRICT_9_01.21.02.808-01.21.16.722@5.jpg"
    assert data.image_key(url) == "lsmdc_3023_DISTRICT_9/3023_DISTRICT_9_01.21.02.808-01.21.16.722@5.jpg"


def test_sample_items_cover_every_leaderboard_instance():
    counts = {(task, split): len(items(ROOT, task, split)) for task in data.TASKS for split in data.SPLITS}
    assert counts == {
        ("retrieval", "val"): 16 + 9,
        ("retrieval", "test"): 9 + 4,
        ("localization", "val"): (4 + 2 * 4) + (4 + 2 * 3) + (9 + 3 * 3),
        ("localization", "test"): 1 + 2,
        ("comparison", "val"): 5 + 4 + 3,
        ("comparison", "test"): 3,
    }
    item = next(i for i in items(ROOT, "localization") if i["box_type"] == "auto" and i["iou"] == 0.5)
    assert item["boxes"] == [[4, 4, 30, 12]] and item["inst_id"] == "o1"
    assert item["region_key"] == "VG_100K/101.jpg|[[4, 4, 30, 12]]"
    assert item["group_size"] == 2 * 4 and item["has_key"]
    test_item = items(ROOT, "comparison", "test")[0]
    assert not test_item["has_key"] and math.isnan(test_item["annot1"]) and test_item["file_size"] == 3
    loaded = data.load(ROOT, "comparison", "val")
    assert loaded.source == str(ROOT / "val_comparison" / "val_comparison_instances.json") and loaded.excluded == {}


def test_mini_grid_is_a_seeded_square_sub_grid_with_the_true_pairs():
    mini = items(ROOT, "retrieval", view="mini", mini_size=2)
    assert len(mini) == 2 * 2 * 2
    for chunk in (0, 1):
        chosen = [i for i in mini if i["chunk"] == chunk]
        rows = {i["image_instance"] for i in chosen}
        assert rows == {i["text_instance"] for i in chosen} and len(rows) == 2
        assert all(i["group_size"] == 4 for i in chosen)
    assert data.load(ROOT, "retrieval", "val", "mini", 2).excluded == {"outside_mini_grid": 25 - 8}
    data.load.cache_clear()
    assert mini["test_id"] == items(ROOT, "retrieval", view="mini", mini_size=2)["test_id"]
    with pytest.raises(DataError, match="the mini view does not exist for comparison"):
        data.load(ROOT, "comparison", "val", "mini")
    with pytest.raises(DataError, match="val retrieval only"):
        data.load(ROOT, "retrieval", "test", "mini")


def test_factored_view_has_one_item_per_instance_id_of_each_chunk():
    factored = items(ROOT, "retrieval", view="factored")
    assert len(factored) == 4 + 3
    first = [item for item in factored if item["chunk"] == 0]
    # Chunk 0: o1, o3, o4, o8; o4 and o8 share their inference text, so 4 rows and 3 columns.
    assert {(item["rows"], item["cols"], item["documents"]) for item in first} == {(4, 3, 4)}
    assert [item["row"] for item in first] == [0, 1, 2, 3] and [item["col"] for item in first] == [0, 1, 2, 0]
    assert sorted(item["gold_row"] for item in first) == [0, 1, 2, 3] and sorted(
        item["gold_col"] for item in first
    ) == [0, 1, 2, 2]
    assert first[0]["region_key"] == (
        f"{Path(first[0]['image_path']).parent.name}/{Path(first[0]['image_path']).name}|"
        f"{json.dumps(first[0]['boxes'])}"
    )
    test = items(ROOT, "retrieval", "test", view="factored")
    assert len(test) == 3 + 2 and not any(test["has_key"]) and set(test["gold_row"]) == {-1}


def test_loading_checks_every_image_file_without_decoding_it(monkeypatch, decoded_files):
    images.clear_cache()
    opened = []
    real_open = PIL.Image.open
    monkeypatch.setattr(  # opened by path, or opened first and handed over (its name is the path)
        PIL.Image, "open", lambda fp, *a, **k: opened.append(str(getattr(fp, "name", fp))) or real_open(fp, *a, **k)
    )
    for task in data.TASKS:
        items(ROOT, task)
    items(ROOT, "retrieval", view="factored")
    assert len(set(opened)) == 6 and decoded_files == []  # every sample image checked, none decoded


def _edit(path: Path, change) -> None:
    content = json.loads(path.read_text())
    change(content)
    path.write_text(json.dumps(content))


def _rating(field: str, value: object):
    return lambda key: key["annotations"][1]["candidates"][2].update({field: value})


COMPARISON = "val_comparison/val_comparison_instances.json"
COMPARISON_KEY = "val_comparison/val_comparison_answer_key.json"
LOCALIZATION = "val_localization/val_localization_instances.json"
LOCALIZATION_KEY = "val_localization/val_localization_answer_key.json"


@pytest.mark.parametrize(
    ("task", "file", "change", "message"),
    [
        (
            "comparison",
            COMPARISON,
            lambda d: d[1].update(test_id=d[0]["test_id"]),
            "instance 1, field 'test_id': duplicate",
        ),
        ("comparison", COMPARISON, lambda d: d[2]["region"][0].update(left=1.5), "instance 2, field 'region\\[0\\]'"),
        ("comparison", COMPARISON, lambda d: d[0].update(inference=""), "instance 0, field 'inference'"),
        # Printed raw, it cleared the terminal and wrote a fake verdict.
        (
            "comparison",
            COMPARISON,
            lambda d: d[0].update(extra_info={"task": "\x1b[2J\x1b]0;owned\x07\x1b[32mALL TESTS PASSED\x1b[0m\r"}),
            "instance 0, field 'extra_info.task': '\\\\x1b\\[2J\\\\x1b\\]0;owned\\\\x07\\\\x1b\\[32mALL TESTS PASSED"
            "\\\\x1b\\[0m\\\\r' in a comparison file$",
        ),
        ("comparison", COMPARISON, lambda d: d[0]["image"].update(url="http://x/../.."), "escapes the data root"),
        (
            "comparison",
            COMPARISON_KEY,
            lambda d: d["annotations"][0]["candidates"][0].pop("annot2"),
            "annotations\\[0\\], candidates\\[0\\], field 'annot2'",
        ),
        (
            "comparison",
            COMPARISON_KEY,
            _rating("annot1", "NaN"),
            "annotations\\[1\\], candidates\\[2\\], field 'annot1': expected a finite number, got 'NaN'",
        ),
        (
            "comparison",
            COMPARISON_KEY,
            _rating("annot2", float("nan")),
            "annotations\\[1\\], candidates\\[2\\], field 'annot2': expected a finite number, got nan",
        ),
        (
            "comparison",
            COMPARISON_KEY,
            _rating("annot1", float("inf")),
            "field 'annot1': expected a finite number, got inf",
        ),
        # A repeated candidate overwrote its first answer and its group size: -28.3 on 2/3 inputs, no error.
        (
            "comparison",
            COMPARISON_KEY,
            lambda d: d["annotations"][0]["candidates"].append(dict(d["annotations"][0]["candidates"][0])),
            "annotations\\[0\\], candidates\\[5\\], field 'source_iid': candidate 'cand0' repeats candidates\\[0\\]",
        ),
        (
            "comparison",
            COMPARISON_KEY,
            lambda d: d["annotations"].append(
                {"Input_iid": "o3", "candidates": [d["annotations"][0]["candidates"].pop()]}
            ),
            "annotations\\[3\\], field 'Input_iid': 'o3' repeats annotations\\[0\\]",
        ),
        (
            "comparison",
            COMPARISON_KEY,
            lambda d: d["test_id_map"].update({"f" * 32: {"Input_iid": "o3", "candidate": "cand0"}}),
            "test_id 'f{32}': test_id_map maps \\(Input_iid 'o3', candidate 'cand0'\\) already to test_id",
        ),
        ("comparison", COMPARISON_KEY, _rating("annot1", "3"), "field 'annot1': expected a finite number, got '3'"),
        ("comparison", COMPARISON_KEY, _rating("annot1", True), "field 'annot1': expected a finite number, got True"),
        # A negative box crashed the drawing mid-inference; a box outside the image was scored with nothing drawn.
        (
            "localization",
            LOCALIZATION,
            lambda d: d[1]["region"][0].update(width=-4),
            "instance 1, field 'region\\[0\\]': negative width or height \\(-4 x 24\\)",
        ),
        (
            "localization",
            LOCALIZATION,
            lambda d: d[5]["region"][0].update(height=-1),
            "instance 5, field 'region\\[0\\]': negative width or height",
        ),
        (
            "localization",
            LOCALIZATION,
            lambda d: d[0]["region"][0].update(left=96),
            "instance 0, field 'region\\[0\\]': box \\[96, 4, 30, 24\\] lies outside the 96x64 image",
        ),
        (
            "localization",
            LOCALIZATION,
            lambda d: d[0]["region"][0].update(left=-40, width=30),
            "instance 0, field 'region\\[0\\]': box .* lies outside",
        ),
        (
            "localization",
            LOCALIZATION,
            lambda d: d[3].update(test_id=d[0]["test_id"]),
            "instance 3, field 'test_id': duplicate",
        ),
        ("localization", LOCALIZATION, lambda d: d[4].update(inference=" "), "instance 4, field 'inference'"),
        ("localization", LOCALIZATION, lambda d: d[6]["image"].pop("url"), "instance 6, field 'image.url'"),
        (
            "localization",
            LOCALIZATION,
            lambda d: d[7]["region"][0].update(top="4"),
            "instance 7, field 'region\\[0\\]': expected integer",
        ),
        (
            "localization",
            LOCALIZATION,
            lambda d: d[8].update(extra_info={"task": "retrieval"}),
            "instance 8, field 'extra_info.task'",
        ),
        ("localization", LOCALIZATION_KEY, lambda d: d.pop(next(iter(d))), "no answer for 1 test_id"),
        ("localization", LOCALIZATION_KEY, lambda d: next(iter(d.values())).update(type="box"), "type 'gt' or 'auto'"),
        (
            "localization",
            LOCALIZATION_KEY,
            lambda d: next(a for a in d.values() if a["type"] == "auto").update(IoU=float("nan")),
            "numeric 'IoU' in \\[0, 1\\], got nan",
        ),
        (
            "retrieval",
            "val_retrieval/val_retrieval_1_answer_key.json",
            lambda d: d.update({next(iter(d)): ["o2", "o5"]}),
            "full n x n grid",
        ),
    ],
)
def test_bad_data_names_file_instance_and_field(data_copy, task, file, change, message):
    """Localization also on its factored view (one item per image): its fast reading hands anything it does not
    accept to the checked reading, which names the same instance and field."""
    path = data_copy / "sherlock" / file
    _edit(path, change)
    for view in ("pairs", "factored") if task == "localization" else ("pairs",):
        data.load.cache_clear()
        with pytest.raises(DataError, match=message) as raised:
            items(data_copy / "sherlock", task, view=view)
        assert str(path) in str(raised.value)


def test_boxes_partly_outside_the_image_are_drawn_clipped_and_accepted(data_copy):
    # The official drawing clips such boxes (negative coordinates, or past the border): they are real regions.
    _edit(
        data_copy / "sherlock" / LOCALIZATION, lambda d: d[2]["region"][0].update(left=-5, top=50, width=120, height=30)
    )
    item = items(data_copy / "sherlock", "localization")[2]
    assert item["boxes"] == [[-5, 50, 120, 30]]


@pytest.mark.parametrize("view", ["pairs", "factored"])
def test_a_box_outside_the_image_is_refused_on_both_retrieval_views(data_copy, view):
    def move(instances: list[dict]) -> None:  # every instance showing the first region, so the chunk stays a grid
        first = json.dumps(instances[0]["region"])
        for instance in instances:
            if json.dumps(instance["region"]) == first:
                instance["region"][0]["top"] = 500

    _edit(data_copy / "sherlock" / "val_retrieval" / "val_retrieval_0_instances.json", move)
    with pytest.raises(DataError, match="lies outside the 96x64 image"):
        items(data_copy / "sherlock", "retrieval", view=view)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[{]", "cannot be read: JSONDecodeError"),
        ('[{"test_id": "é"}]'.encode("latin-1"), "not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply|cannot be read"),
    ],
)
@pytest.mark.parametrize(
    ("task", "file"),
    [
        ("comparison", COMPARISON),
        ("comparison", COMPARISON_KEY),
        ("retrieval", "val_retrieval/val_retrieval_0_instances.json"),
    ],
)
def test_unreadable_json_is_named_by_file(data_copy, task, file, content, message):
    path = data_copy / "sherlock" / file
    path.write_bytes(content)
    for view in ("pairs", "factored") if task == "retrieval" else ("pairs",):
        with pytest.raises(DataError, match=message) as raised:
            items(data_copy / "sherlock", task, view=view)
        assert str(raised.value).startswith(str(path))


def test_missing_image_and_missing_answer_key_fail_loudly(data_copy):
    (data_copy / "sherlock" / "images" / "VG_100K" / "102.jpg").unlink()
    with pytest.raises(DataError, match="image file not found"):
        items(data_copy / "sherlock", "comparison")
    (data_copy / "sherlock" / "val_localization" / "val_localization_answer_key.json").unlink()
    with pytest.raises(DataError, match="answer key .* not found"):
        items(data_copy / "sherlock", "localization")


def test_a_truncated_image_is_refused_with_its_instance(data_copy):
    path = data_copy / "sherlock" / "images" / "VG_100K" / "102.jpg"
    path.write_bytes(path.read_bytes()[:200])
    images.clear_cache()
    with pytest.raises(
        DataError, match=r"val_comparison_instances.json, instance 0, field 'image.url': unusable image"
    ):
        items(data_copy / "sherlock", "comparison")


def test_without_abductive_data_the_error_says_where_the_data_comes_from(monkeypatch):
    monkeypatch.delenv("ABDUCTIVE_DATA", raising=False)
    with pytest.raises(DataError, match="val_retrieval.zip.*ABDUCTIVE_DATA=sample"):
        data.load_selected("comparison", "val")


def test_the_fast_and_the_checked_reading_give_the_same_factored_localization(monkeypatch):
    fast = items(ROOT, "localization", view="factored").to_list()

    def unchecked(root: Path, path: Path):
        raise data._Unchecked

    monkeypatch.setattr(data, "_fast_images", unchecked)
    data.load.cache_clear()
    checked = items(ROOT, "localization", view="factored").to_list()
    assert json.dumps(checked) == json.dumps(fast) and len(fast) == 3


def test_each_chunks_mini_grid_is_drawn_with_its_own_seed():
    # the seeded choice of chunk c uses seed MINI_SEED + c: chunks holding the same instance ids draw other rows
    ids = [f"i{number:02d}" for number in range(12)]
    key = {f"t{number}": (image, image) for number, image in enumerate(ids)}
    drawn = [data.mini_rows(key, chunk, 4) for chunk in range(4)]
    assert len({frozenset(rows) for rows in drawn}) > 1
    expected = np.random.default_rng(data.MINI_SEED + 3).choice(len(ids), size=4, replace=False)
    assert drawn[3] == {ids[index] for index in expected}
