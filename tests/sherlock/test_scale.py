"""The factored route of full-size Sherlock retrieval (``abductive_tasks.sherlock.scale``), on a small grid."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from abductive_tasks.data import DataError
from abductive_tasks.sherlock import metrics, scale
from abductive_tasks.sherlock.hooks import METRICS
from abductive_tasks.sherlock.scale import FactoringError, decode_embeddings, encode_embeddings, factor_retrieval_chunk

# Four instance ids. Ids "b" and "c" share their image-region (same url and box), ids "a" and "d" their
# inference text: 3 distinct rows and 3 distinct columns for a 4 x 4 grid.
REGIONS = {"a": ("VG_100K/1.jpg", (1, 2, 10, 8)), "b": ("VG_100K/2.jpg", (0, 0, 5, 5)), "c": ("VG_100K/2.jpg", (0, 0, 5, 5)), "d": ("VG_100K/1.jpg", (3, 3, 4, 4))}
TEXTS = {"a": "the person is a waiter", "b": "it is raining", "c": "they are on vacation", "d": "the person is a waiter"}
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
    assert sorted(zip(chunk.gold_rows.tolist(), chunk.gold_cols.tolist(), strict=True)) == sorted((rows[n], cols[n]) for n in "abcd")


def test_the_embedding_route_scores_exactly_like_the_per_pair_route(tmp_path):
    """Same numbers as scoring all 16 instances one by one and running the official score_retrieval.py logic."""
    instances, key = chunk_files()
    chunk = factor_retrieval_chunk(instances, key, 0, "chunk.json")
    image, text = embeddings(len(chunk.rows), len(chunk.texts))
    paths = {url: f"/images/{url.rsplit('/', 1)[1]}" for url, _ in chunk.rows}
    docs = scale.chunk_documents(chunk, paths, "val")
    assert [doc["region_key"] for doc in docs[:1]] == [f"VG_100K/{docs[0]['image_path'][-5:]}|{json.dumps(docs[0]['boxes'])}"]
    results = [str((encode_embeddings(image[doc["row"]], text[doc["col"]]), False)) for doc in docs]  # lmms-eval stringifies
    records = [scale.process_results_embedding(doc, [result])["retrieval_p_at_1"] for doc, result in zip(docs, results, strict=True)]
    aggregated = {name: getattr(scale, name)(records) for name in METRICS["retrieval"]}

    # Per pair: each instance's score from its own image-region and inference, grid by answer-key instance ids.
    row_index = {row: chunk.rows.index(row) for row in chunk.rows}
    ids = sorted({pair[0] for pair in key.values()})
    grid = np.zeros((4, 4))
    for instance in instances:
        region = (instance["image"]["url"], tuple(tuple(box.values()) for box in instance["region"]))
        score = image[row_index[region]] @ text[chunk.texts.index(instance["inference"])]
        image_id, text_id = key[instance["test_id"]]
        grid[ids.index(image_id), ids.index(text_id)] = np.float32(score)
    expected = metrics.retrieval_metrics(grid)
    assert aggregated["retrieval_p_at_1"] == pytest.approx(expected["p_at_1"])
    assert aggregated["retrieval_im2txt_rank"] == pytest.approx(expected["im2txt_rank"])
    assert aggregated["retrieval_txt2im_rank"] == pytest.approx(expected["txt2im_rank"])
    assert aggregated["retrieval_per_chunk"] == {0: expected}
    assert (aggregated["retrieval_chunks_scored"], aggregated["retrieval_chunks_incomplete"]) == (1, 0)
    assert (aggregated["retrieval_documents"], aggregated["retrieval_unparsable"]) == (4, 0)


def test_submission_scores_follow_the_sorted_test_ids(tmp_path):
    root = tmp_path / "sherlock"
    (root / "val_retrieval").mkdir(parents=True)
    (root / "images" / "VG_100K").mkdir(parents=True)
    for name in ("1.jpg", "2.jpg"):
        Image.new("RGB", (20, 20)).save(root / "images" / "VG_100K" / name)
    instances, key = chunk_files()
    (root / "val_retrieval" / "val_retrieval_0_instances.json").write_text(json.dumps(instances))
    (root / "val_retrieval" / "val_retrieval_0_answer_key.json").write_text(json.dumps(key))
    docs = scale.embedding_documents_from(root, "val")
    assert docs.num_rows == 4 and docs[0]["image_path"].startswith(str(root / "images"))
    chunk = scale.factored_chunks(root, "val")[0]
    image, text = embeddings(len(chunk.rows), len(chunk.texts))
    records = [scale.embedding_record(doc, encode_embeddings(image[doc["row"]], text[doc["col"]])) for doc in docs]
    scores = scale.submission_scores_from_samples(records, 0, root)
    by_test_id = {instance["test_id"]: instance for instance in instances}
    ordered = [by_test_id[test_id] for test_id in sorted(by_test_id)]
    expected = [image[chunk.rows.index((i["image"]["url"], tuple(tuple(b.values()) for b in i["region"])))] @ text[chunk.texts.index(i["inference"])] for i in ordered]
    assert scores.dtype == np.float32 and scores.shape == (16,)
    np.testing.assert_allclose(scores, expected, rtol=1e-6)
    with pytest.raises(DataError, match="3 of 4 documents"):
        scale.submission_scores_from_samples(records[:3], 0, root)


def test_missing_documents_and_plain_scores_are_counted_not_scored():
    instances, key = chunk_files()
    chunk = factor_retrieval_chunk(instances, key, 0, "chunk.json")
    image, text = embeddings(len(chunk.rows), len(chunk.texts))
    docs = scale.chunk_documents(chunk, {url: "x.jpg" for url, _ in chunk.rows}, "val")
    payloads = [str((encode_embeddings(image[d["row"]], text[d["col"]]), False)) for d in docs]
    plain = [scale.process_results_embedding(d, ["(-0.25, False)"])["retrieval_documents"] for d in docs]  # a per-pair scorer's answer
    assert scale.retrieval_unparsable(plain) == 4 and scale.retrieval_p_at_1(plain) is None
    assert (scale.retrieval_chunks_scored(plain), scale.retrieval_chunks_incomplete(plain)) == (0, 0)  # complete, but nothing to score
    partial = [scale.process_results_embedding(d, [p])["retrieval_documents"] for d, p in list(zip(docs, payloads, strict=True))[:3]]  # --limit 3
    assert (scale.retrieval_chunks_scored(partial), scale.retrieval_chunks_incomplete(partial), scale.retrieval_unparsable(partial)) == (0, 1, 0)
    assert decode_embeddings("Score: 7") is None and decode_embeddings(-0.25) is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda instances, key: key.pop(next(iter(key))), "different test_ids"),
        (lambda instances, key: instances.append(dict(instances[0])), "duplicate test_id"),
        (lambda instances, key: instances[5]["region"][0].pop("left"), "instance 5, field 'region'"),
        (lambda instances, key: instances[2].__setitem__("inference", 3), "instance 2, field 'inference'"),
        (lambda instances, key: [key.__setitem__(instance["test_id"], ["id-a", "id-a"]) for instance in instances[:2]], "full 4 x 4 grid"),
        (lambda instances, key: key.__setitem__(instances[0]["test_id"], ["id-a", "id-z"]), "ids differ"),
    ],
)
def test_a_chunk_that_is_not_a_retrieval_grid_is_rejected(change, message):
    instances, key = chunk_files()
    change(instances, key)
    with pytest.raises(FactoringError, match=message):
        factor_retrieval_chunk(instances, key, 0, "val_retrieval_0_instances.json")


def test_chunks_load_in_parallel_processes_with_the_same_result(tmp_path, monkeypatch):
    root = tmp_path / "sherlock"
    (root / "val_retrieval").mkdir(parents=True)
    instances, key = chunk_files()
    for chunk in (0, 1):
        (root / "val_retrieval" / f"val_retrieval_{chunk}_instances.json").write_text(json.dumps(instances[chunk:] + instances[:chunk]))
        (root / "val_retrieval" / f"val_retrieval_{chunk}_answer_key.json").write_text(json.dumps(key))
    monkeypatch.setenv("ABDUCTIVE_WORKERS", "2")
    assert scale.loading_workers(23) == 2
    chunks = scale.factored_chunks(root, "val")
    assert [chunk.chunk for chunk in chunks] == [0, 1]
    for chunk in chunks:
        alone = factor_retrieval_chunk(instances[chunk.chunk :] + instances[: chunk.chunk], key, chunk.chunk, "x")
        assert chunk.rows == alone.rows and chunk.texts == alone.texts
        assert all(np.array_equal(getattr(chunk, name), getattr(alone, name)) for name in ("row_of", "col_of", "gold_rows", "gold_cols"))
    (root / "val_retrieval" / "val_retrieval_1_instances.json").write_text(json.dumps(instances[:-1]))  # one instance lost
    scale.factored_chunks.cache_clear()
    with pytest.raises(DataError, match="val_retrieval_1_instances.json.*different test_ids"):
        scale.factored_chunks(root, "val")
