"""The factored route of full-size Sherlock retrieval (``abductive_tasks.sherlock.factored_retrieval``), on a small
grid."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from abductive_tasks import settings
from abductive_tasks.inputs.loading import DataError
from abductive_tasks.sherlock import data, factored_retrieval, hooks, metrics
from abductive_tasks.sherlock.embeddings import encode_embeddings
from abductive_tasks.sherlock.factored_retrieval import FactoredChunk, FactoringError

from helpers.specs import evaluate, records

# Four instance ids. Ids "b" and "c" share their image-region (same url and box), ids "a" and "d" their
# inference text: 3 distinct rows and 3 distinct columns for a 4 x 4 grid.
REGIONS = {
    "a": ("VG_100K/1.jpg", (1, 2, 10, 8)),
    "b": ("VG_100K/2.jpg", (0, 0, 5, 5)),
    "c": ("VG_100K/2.jpg", (0, 0, 5, 5)),
    "d": ("VG_100K/1.jpg", (3, 3, 4, 4)),
}
TEXTS = {
    "a": "the person is a waiter",
    "b": "it is raining",
    "c": "they are on vacation",
    "d": "the person is a waiter",
}
URL = "https://cs.stanford.edu/people/rak248/"


def pair_id(image: str, text: str) -> str:
    return f"{'abcd'.index(image) * 7 % 4}{image}{text}"  # not in pair order: sorting them matters


def chunk_files() -> tuple[list[dict], dict]:
    """Official-format instances (shuffled) and answer key of the 4 x 4 grid."""
    instances, key = [], {}
    for image in "abcd":
        for text in "abcd":
            path, (left, top, width, height) = REGIONS[image]
            instances.append(
                {
                    "image": {"url": URL + path, "width": 20, "height": 20},
                    "region": [{"left": left, "top": top, "width": width, "height": height}],
                    "inference": TEXTS[text],
                    "test_id": pair_id(image, text),
                    "extra_info": {"task": "retrieval"},
                }
            )
            key[pair_id(image, text)] = [f"id-{image}", f"id-{text}"]
    order = np.random.default_rng(0).permutation(len(instances))
    return [instances[i] for i in order], key


def factor_retrieval_chunk(instances: list[dict], answer_key: dict | None, chunk: int, source: str) -> FactoredChunk:
    """The reference the file route is checked against: a chunk's instance list factored in memory, in one piece,
    by the checked path (``_Factoring.add``) that a value the typed decode refuses falls back to."""
    factoring = factored_retrieval._Factoring(chunk, source)
    factoring.add(instances)
    return factoring.finish(answer_key)


def write_root(root: Path, chunks: int = 1) -> Path:
    """``<root>/sherlock`` with ``chunks`` val chunk files of the grid (each a rotation of the instance list)
    and its two images."""
    sherlock = root / "sherlock"
    (sherlock / "val_retrieval").mkdir(parents=True)
    (sherlock / "images" / "VG_100K").mkdir(parents=True)
    for name in ("1.jpg", "2.jpg"):
        Image.new("RGB", (20, 20), (10, 200, 30) if name == "1.jpg" else (250, 250, 250)).save(
            sherlock / "images" / "VG_100K" / name
        )
    instances, key = chunk_files()
    for chunk in range(chunks):
        (sherlock / "val_retrieval" / f"val_retrieval_{chunk}_instances.json").write_text(
            json.dumps(instances[chunk:] + instances[:chunk])
        )
        (sherlock / "val_retrieval" / f"val_retrieval_{chunk}_answer_key.json").write_text(json.dumps(key))
    return sherlock


def embeddings(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Fixed random unit vectors (the grid still has ties: ids b and c share a region, a and d a text)."""
    rng = np.random.default_rng(3)
    image, text = rng.standard_normal((rows, 8)).astype(np.float32), rng.standard_normal((cols, 8)).astype(np.float32)
    return image / np.linalg.norm(image, axis=1, keepdims=True), text / np.linalg.norm(text, axis=1, keepdims=True)


def test_a_chunk_factors_into_its_distinct_regions_and_inferences():
    instances, key = chunk_files()
    chunk = factor_retrieval_chunk(instances, key, 5, "chunk.json")
    assert len(chunk.rows) == 3 and len(chunk.texts) == 3 and chunk.documents == 4
    by_test_id = {instance["test_id"]: instance for instance in instances}
    for position, test_id in enumerate(sorted(by_test_id)):  # row_of / col_of follow the submission order
        instance = by_test_id[test_id]
        url, boxes = chunk.rows[chunk.row_of[position]]
        assert url == instance["image"]["url"] and boxes == tuple(tuple(box.values()) for box in instance["region"])
        assert chunk.texts[chunk.col_of[position]] == instance["inference"]
    # Instance ids in first-seen order of the sorted test ids; their rows and columns follow REGIONS and TEXTS.
    rows = {name: chunk.rows.index((URL + REGIONS[name][0], (REGIONS[name][1],))) for name in "abcd"}
    cols = {name: chunk.texts.index(TEXTS[name]) for name in "abcd"}
    assert sorted(zip(chunk.gold_rows.tolist(), chunk.gold_cols.tolist(), strict=True)) == sorted(
        (rows[n], cols[n]) for n in "abcd"
    )
    # numbered in first-seen order of the sorted test ids (0a., 1d., 2c., 3b.), whatever the file order
    assert chunk.gold_rows.tolist() == [rows[n] for n in "adcb"] and chunk.gold_cols.tolist() == [
        cols[n] for n in "adcb"
    ]


def test_the_embedding_route_scores_exactly_like_the_per_pair_route(tmp_path):
    """Same numbers as scoring all 16 instances one by one and running the official score_retrieval.py logic."""
    root = write_root(tmp_path)
    instances, key = chunk_files()
    (chunk,) = data.factored_chunks(root, "val")
    image, text = embeddings(len(chunk.rows), len(chunk.texts))
    docs = hooks.documents_from(data.load(root, "retrieval", "val", "factored").items, "embedding")
    assert docs[0]["region_key"] == f"VG_100K/{Path(docs[0]['image_path']).name}|{json.dumps(docs[0]['boxes'])}"
    replies = [
        str((encode_embeddings(image[doc["row"]], text[doc["col"]]), False)) for doc in docs
    ]  # lmms-eval stringifies
    values = evaluate(hooks.RETRIEVAL_EMBEDDING, hooks.process_results_embedding, docs, replies)

    # Per pair: each instance's score from its own image-region and inference, grid by answer-key instance ids.
    ids = sorted({pair[0] for pair in key.values()})
    grid_scores = np.zeros((4, 4))
    for instance in instances:
        region = (instance["image"]["url"], tuple(tuple(box.values()) for box in instance["region"]))
        score = image[chunk.rows.index(region)] @ text[chunk.texts.index(instance["inference"])]
        image_id, text_id = key[instance["test_id"]]
        grid_scores[ids.index(image_id), ids.index(text_id)] = np.float32(score)
    expected = metrics.retrieval_metrics(grid_scores)
    assert values["retrieval_p_at_1"] == pytest.approx(expected["p_at_1"])
    assert values["retrieval_im2txt_rank"] == pytest.approx(expected["im2txt_rank"])
    assert values["retrieval_txt2im_rank"] == pytest.approx(expected["txt2im_rank"])
    assert values["retrieval_per_chunk"] == {0: expected}
    assert values["retrieval_counts"] == {
        "documents": 4,
        "chunks_scored": 1,
        "chunks_incomplete": 0,
        "unparsable": 0,
        "request_failed": 0,
        "judge_extracted": 0,
    }


def test_submission_scores_follow_the_sorted_test_ids(tmp_path):
    root = write_root(tmp_path)
    instances, _key = chunk_files()
    docs = hooks.documents_from(data.load(root, "retrieval", "val", "factored").items, "embedding")
    assert docs.num_rows == 4 and docs[0]["image_path"].startswith(str(root / "images"))
    (chunk,) = data.factored_chunks(root, "val")
    image, text = embeddings(len(chunk.rows), len(chunk.texts))
    logged = records(
        hooks.process_results_embedding,
        docs,
        [str((encode_embeddings(image[d["row"]], text[d["col"]]), False)) for d in docs],
    )
    (scored,) = factored_retrieval.chunk_scores(logged)
    scores = factored_retrieval.submission_scores(chunk, scored.scores)
    by_test_id = {instance["test_id"]: instance for instance in instances}
    ordered = [by_test_id[test_id] for test_id in sorted(by_test_id)]
    expected = [
        image[chunk.rows.index((i["image"]["url"], tuple(tuple(b.values()) for b in i["region"])))]
        @ text[chunk.texts.index(i["inference"])]
        for i in ordered
    ]
    assert scores.dtype == np.float32 and scores.shape == (16,)
    np.testing.assert_allclose(scores, expected, rtol=1e-6)
    (partial,) = factored_retrieval.chunk_scores(logged[:3])
    assert partial.scores is None and (partial.missing, partial.unreadable) == (1, 0)


def test_missing_documents_and_plain_scores_are_counted_not_scored(tmp_path):
    root = write_root(tmp_path)
    docs = hooks.documents_from(data.load(root, "retrieval", "val", "factored").items, "embedding")
    image, text = embeddings(docs[0]["rows"], docs[0]["cols"])
    payloads = [str((encode_embeddings(image[d["row"]], text[d["col"]]), False)) for d in docs]
    plain = evaluate(
        hooks.RETRIEVAL_EMBEDDING, hooks.process_results_embedding, docs, ["(-0.25, False)"] * 4
    )  # a per-pair scorer's answer
    assert plain["retrieval_counts"]["unparsable"] == 4 and plain["retrieval_p_at_1"] is None
    assert (plain["retrieval_counts"]["chunks_scored"], plain["retrieval_counts"]["chunks_incomplete"]) == (
        0,
        0,
    )  # complete, but nothing to score
    partial = evaluate(
        hooks.RETRIEVAL_EMBEDDING, hooks.process_results_embedding, docs.select(range(3)), payloads[:3]
    )  # --limit 3
    assert (
        partial["retrieval_counts"]["chunks_scored"],
        partial["retrieval_counts"]["chunks_incomplete"],
        partial["retrieval_counts"]["unparsable"],
    ) == (0, 1, 0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda instances, key: key.pop(next(iter(key))), "different test_ids"),
        (lambda instances, key: instances.append(dict(instances[0])), "duplicate test_id"),
        (lambda instances, key: instances[5]["region"][0].pop("left"), "instance 5, field 'region'"),
        (lambda instances, key: instances[2].__setitem__("inference", 3), "instance 2, field 'inference'"),
        (
            lambda instances, key: [
                key.__setitem__(instance["test_id"], ["id-a", "id-a"]) for instance in instances[:2]
            ],
            "full 4 x 4 grid",
        ),
        (lambda instances, key: key.__setitem__(instances[0]["test_id"], ["id-a", "id-z"]), "ids differ"),
    ],
)
@pytest.mark.parametrize("key_in_file_order", [False, True])
def test_a_chunk_that_is_not_a_retrieval_grid_is_rejected(change, message, key_in_file_order):
    instances, key = chunk_files()
    change(instances, key)
    if key_in_file_order:  # the key's values are then taken as they stand, not looked up
        key = in_file_order(instances, key)
    with pytest.raises(FactoringError, match=message):
        factor_retrieval_chunk(instances, key, 0, "val_retrieval_0_instances.json")


def in_file_order(instances: list[dict], key: dict) -> dict:
    """``key`` listing the instances' test ids in their file order first, then any others."""
    ordered = {instance["test_id"]: key[instance["test_id"]] for instance in instances if instance["test_id"] in key}
    return ordered | key


def test_an_answer_key_in_the_files_order_gives_the_same_gold_grid():
    instances, key = chunk_files()
    ordered = in_file_order(instances, key)
    assert list(ordered) == [instance["test_id"] for instance in instances] != list(key)
    assert _same(factor_retrieval_chunk(instances, ordered, 0, "x"), factor_retrieval_chunk(instances, key, 0, "x"))


def test_chunks_load_in_parallel_processes_with_the_same_result(tmp_path, monkeypatch):
    root = write_root(tmp_path, chunks=2)
    instances, key = chunk_files()
    monkeypatch.setenv("ABDUCTIVE_WORKERS", "2")
    assert settings.workers(23) == 2
    chunks = data.factored_chunks(root, "val")
    assert [chunk.chunk for chunk in chunks] == [0, 1]
    for chunk in chunks:
        alone = factor_retrieval_chunk(instances[chunk.chunk :] + instances[: chunk.chunk], key, chunk.chunk, "x")
        assert chunk.rows == alone.rows and chunk.texts == alone.texts
        assert all(
            np.array_equal(getattr(chunk, name), getattr(alone, name))
            for name in ("row_of", "col_of", "gold_rows", "gold_cols")
        )
    (root / "val_retrieval" / "val_retrieval_1_instances.json").write_text(
        json.dumps(instances[:-1])
    )  # one instance lost
    data.factored_chunks.cache_clear()
    with pytest.raises(DataError, match="val_retrieval_1_instances.json.*different test_ids"):
        data.factored_chunks(root, "val")


def _chunk_file(tmp_path: Path, instances: list[dict], key: dict) -> tuple[Path, Path]:
    instances_path, key_path = tmp_path / "val_retrieval_0_instances.json", tmp_path / "val_retrieval_0_answer_key.json"
    instances_path.write_text(json.dumps(instances))
    key_path.write_text(json.dumps(key))
    return instances_path, key_path


def _same(a: factored_retrieval.FactoredChunk, b: factored_retrieval.FactoredChunk) -> bool:
    return (a.chunk, a.rows, a.texts) == (b.chunk, b.rows, b.texts) and all(
        np.array_equal(getattr(a, name), getattr(b, name)) for name in ("row_of", "col_of", "gold_rows", "gold_cols")
    )


def test_a_chunk_file_parsed_in_pieces_factors_like_the_whole_list(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(factored_retrieval, "_BLOCK", 300)  # a piece every ~two instances
    instances, key = chunk_files()
    files = _chunk_file(tmp_path, instances, key)
    assert len(list(factored_retrieval.instance_pieces(files[0]))) > 4
    assert [
        instance for piece in factored_retrieval.instance_pieces(files[0]) for instance in json.loads(piece)
    ] == instances
    assert _same(factored_retrieval.load_factored_chunk(*files, 0), factor_retrieval_chunk(instances, key, 0, "x"))


def test_a_cut_inside_a_nested_value_falls_back_to_parsing_the_whole_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(factored_retrieval, "_BLOCK", 300)
    instances, key = chunk_files()
    for instance in instances:  # the first key's object inside a list: '}, {"image":' within an instance
        instance["extra_info"] = {"task": "retrieval", "notes": [{"image": 1}, {"image": 2}]}
    files = _chunk_file(tmp_path, instances, key)
    with pytest.raises(factored_retrieval.UncutPiece):  # a piece that is not JSON
        for piece in factored_retrieval.instance_pieces(files[0]):
            factored_retrieval._add_piece(factored_retrieval._Factoring(0, "x"), piece)
    assert _same(factored_retrieval.load_factored_chunk(*files, 0), factor_retrieval_chunk(instances, key, 0, "x"))


def test_a_factored_chunk_is_read_from_the_cache_until_a_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    instances, key = chunk_files()
    files = _chunk_file(tmp_path, instances, key)
    first = factored_retrieval.load_factored_chunk(*files, 3)
    assert len(list((tmp_path / "cache" / "sherlock_chunks").glob("*.npz"))) == 1
    real = factored_retrieval._factor_files
    monkeypatch.setattr(factored_retrieval, "_factor_files", lambda *args: pytest.fail("factored again"))
    assert _same(factored_retrieval.load_factored_chunk(*files, 3), first)
    key[list(key)[1]] = ["id-a", "id-a"]  # a broken answer key (was id-a, id-b): read again, and rejected
    stamp = files[1].stat()
    files[1].write_text(json.dumps(key))  # same size: the cache knows a file by its path, size and modification time
    os.utime(files[1], ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1))  # an edit within the clock's tick
    monkeypatch.setattr(factored_retrieval, "_factor_files", real)
    with pytest.raises(DataError, match="full 4 x 4 grid"):
        factored_retrieval.load_factored_chunk(*files, 3)


def test_an_edit_to_the_factoring_code_factors_the_chunk_again(tmp_path, monkeypatch, edit_code):
    """A chunk cached by other factoring code is never reused: it lands under another key and is factored again."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    instances, key = chunk_files()
    files = _chunk_file(tmp_path, instances, key)
    first = factored_retrieval.load_factored_chunk(*files, 3)
    before = factored_retrieval._cache_file(*files)
    edit_code(factored_retrieval)
    factored = []
    real = factored_retrieval._factor_files
    monkeypatch.setattr(factored_retrieval, "_factor_files", lambda *args: factored.append(1) or real(*args))
    assert _same(factored_retrieval.load_factored_chunk(*files, 3), first) and factored == [1]
    assert factored_retrieval._cache_file(*files) != before
    assert _same(factored_retrieval.load_factored_chunk(*files, 3), first) and factored == [1]


def test_a_valid_chunk_file_takes_the_typed_decode_only(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(factored_retrieval, "_BLOCK", 300)
    instances, key = chunk_files()
    files = _chunk_file(tmp_path, instances, key)
    expected = factor_retrieval_chunk(instances, key, 0, "x")
    monkeypatch.setattr(
        factored_retrieval._Factoring, "add", lambda *args: pytest.fail("the checked path on a valid file")
    )
    assert _same(factored_retrieval.load_factored_chunk(*files, 0), expected)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda instance: instance["region"][0].pop("left"), "instance 9, field 'region'"),
        (lambda instance: instance["region"][0].__setitem__("left", True), "instance 9, field 'region'"),
        (lambda instance: instance["region"][0].__setitem__("top", 1.0), "instance 9, field 'region'"),
        (lambda instance: instance.__setitem__("region", []), "instance 9, field 'region'"),
        (lambda instance: instance.__setitem__("inference", ""), "instance 9, field 'inference'"),
        (lambda instance: instance["image"].__setitem__("url", 7), "instance 9, field 'image.url'"),
        (lambda instance: instance.pop("test_id"), "instance 9: missing or malformed field"),
    ],
)
def test_what_the_typed_decode_refuses_gets_the_checked_paths_error(tmp_path, monkeypatch, change, message):
    """A bad instance in a later piece of the file: the error names it as the checked path does."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(factored_retrieval, "_BLOCK", 300)
    instances, key = chunk_files()
    change(instances[9])
    files = _chunk_file(tmp_path, instances, key)
    with pytest.raises(DataError, match=f"val_retrieval_0_instances.json, {message}"):
        factored_retrieval.load_factored_chunk(*files, 0)


def test_a_cached_chunk_with_rolled_gold_columns_is_factored_again(tmp_path, monkeypatch):
    """Rolling ``gold_cols`` in the cached chunk (same file name, same other arrays) would move retrieval P@1: the
    chunk's seal no longer matches its arrays, so the chunk files are factored again."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    instances, key = chunk_files()
    files = _chunk_file(tmp_path, instances, key)
    first = factored_retrieval.load_factored_chunk(*files, 3)
    (cached,) = (tmp_path / "cache" / "sherlock_chunks").glob("*.npz")
    with np.load(cached) as saved:
        arrays = {name: saved[name] for name in saved.files}
    arrays["gold_cols"] = np.roll(arrays["gold_cols"], 1)
    with cached.open("wb") as handle:
        np.savez(handle, **arrays)
    factored = []
    real = factored_retrieval._factor_files
    monkeypatch.setattr(factored_retrieval, "_factor_files", lambda *args: factored.append(1) or real(*args))
    assert _same(factored_retrieval.load_factored_chunk(*files, 3), first) and factored == [1]
    assert _same(factored_retrieval.load_factored_chunk(*files, 3), first) and factored == [
        1
    ]  # rewritten, sealed again


@pytest.mark.parametrize(
    "test_ids",
    [
        ["b", "a", "c", "a"],
        ["é", "a", "é", "e"],  # not ASCII: Python's sort
        ["a\x00", "a", "b"],  # a NUL, which numpy's fixed-width bytes would drop
        [f"{n % 97:x}{n % 13}" for n in range(2000)],  # ASCII with duplicates: numpy's stable sort
        [f"{n % 3:08d}{n % 7}{n * 37 % 11:03d}" for n in range(600)],  # one width, 8-byte prefixes tied
        [f"prefix{n % 5}-{n % 17}" + "x" * (n % 3) for n in range(600)],  # several widths, tied, duplicates
        [f"{n % 4}" * (1 + n % 9) for n in range(300)],  # ids shorter and longer than the 8-byte prefix
        [],
    ],
)
def test_test_ids_sort_as_python_sorts_them_and_duplicates_are_found(test_ids):
    order, repeated = factored_retrieval.test_id_order(test_ids)
    assert order.tolist() == sorted(range(len(test_ids)), key=test_ids.__getitem__)
    ordered = sorted(test_ids)
    assert repeated.tolist() == [i for i in range(len(ordered) - 1) if ordered[i] == ordered[i + 1]]
