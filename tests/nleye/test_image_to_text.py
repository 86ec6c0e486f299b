"""NL-Eye image-to-text (t.1): the description store, the describe and predict documents, and the
describer/predictor split scored with scripted replies; an item without its descriptions counts as wrong."""

from __future__ import annotations

import json
import shutil

import datasets
import PIL.Image
import pytest
from loguru import logger

from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError
from abductive_tasks.nleye import data, descriptions, hooks, prompts
from abductive_tasks.scoring.taskspec import clear_cache

FAILED = "[LMMS_EVAL_REQUEST_FAILED after 5 retries] timeout"


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ABDUCTIVE_RUN", raising=False)
    monkeypatch.delenv("ABDUCTIVE_STAGE_INPUTS", raising=False)
    return tmp_path / "cache" / "stages" / "named" / "descriptions"


def save(describer: str, path: str, text: str):
    """A description stored under ``describer``, as an ``nleye_describe`` run with that name stores it."""
    return descriptions.STORE.save(
        describer, descriptions.image_digest(path), hooks.describe_digest(path), text, "parsed"
    )


def stored(describer: str, items):
    """``describer``'s stored descriptions of the items' images, as nleye_triplet_described reads them."""
    digests = {descriptions.image_digest(path) for item in items for path in paths_of(item)}
    return descriptions.STORE.output(describer, "nleye_describe", {digest: digest for digest in digests})


@pytest.fixture(scope="module")
def items():
    return data.load(SAMPLE_ROOT / "nleye").items


def paths_of(item: dict) -> list[str]:
    return [item["premise_image"], *item["hypothesis_images"]]


def test_store_is_keyed_by_image_content_and_describer(store, tmp_path, items):
    premise = items[0]["premise_image"]
    saved = save("gpt-4o", premise, "A child holds a wrapped box.")
    assert saved.parent == store / "gpt-4o" and saved.stem == descriptions.image_digest(premise)
    copy = tmp_path / "elsewhere.png"
    shutil.copy(premise, copy)
    assert descriptions.lookup("gpt-4o", str(copy)) == "A child holds a wrapped box."  # same bytes, other path
    assert descriptions.lookup("claude", premise) is None  # another describer's store
    assert descriptions.lookup("gpt-4o", items[0]["hypothesis_images"][0]) is None  # another image
    save("gpt-4o", premise, "Replaced.")
    assert descriptions.lookup("gpt-4o", premise) == "Replaced."
    # Names unsafe as folders get their own folders, never a shared one.
    folders = {descriptions.describer_folder(name) for name in ("Qwen/Qwen2-VL", "Qwen_Qwen2-VL", "..", "a b")}
    assert len(folders) == 4 and all(folder.parent == store for folder in folders)


def test_describe_docs_one_per_distinct_image(items, tmp_path):
    docs = hooks.describe_docs_from(items, "tiny")
    assert len(docs) == 36 and sum(1 for role in docs["role"] if role == "premise") == 12
    assert len(set(docs["image_digest"])) == 36
    assert hooks.doc_to_text_describe(docs[0]) == "Describe the content of the image in detail."  # Table 6
    with PIL.Image.open(docs[0]["image_path"]) as image:
        assert hooks.doc_to_visual_describe(docs[0])[0].size == image.size
    # The same picture shown by two items is described once, for both.
    repeated = [dict(items[0]), dict(items[1])]
    repeated[1]["premise_image"] = repeated[0]["premise_image"]
    docs = hooks.describe_docs_from(datasets.Dataset.from_list(repeated), "tiny")
    assert len(docs) == 5 and docs[0]["item_ids"] == [items[0]["item_id"], items[1]["item_id"]]


def test_describe_stage_stores_replies_and_counts_failures(store, items):
    clear_cache()
    docs = hooks.describe_docs_from(items.select(range(2)), "tiny")  # 6 images
    replies = ["A bright box.", "  ", FAILED, "Two people.", "A dog.", "A cat."]
    results = [hooks.process_results_describe(doc, [reply]) for doc, reply in zip(docs, replies, strict=True)]
    values = hooks.DESCRIBE.evaluate([result["described_rate"][1] for result in results])  # logged once per line
    assert values["described_rate"] == pytest.approx(4 / 6)
    counts = values["describe_counts"]
    assert (counts["images"], counts["described"], counts["request_failed"]) == (6, 4, 2)  # blank = failed request
    assert counts["mean_description_chars"] == round((13 + 11 + 6 + 6) / 4)
    found = [descriptions.lookup("tiny", path) for path in docs["image_path"]]
    assert found == ["A bright box.", None, None, "Two people.", "A dog.", "A cat."]
    records = [result["described_rate"][1] for result in results]  # the descriptions are in the run's records too
    assert [record["description"] for record in records] == ["A bright box.", None, None, "Two people.", "A dog.",
                                                               "A cat."]  # fmt: skip
    assert records[0]["doc_digest"] == hooks.describe_digest(docs[0]["image_path"])


def test_described_docs_read_one_describer_and_count_missing_items(store, items, monkeypatch):
    for item in items.select(range(1, 12)):  # item 1 gets no description at all
        for number, path in enumerate(paths_of(item)):
            save("tiny", path, f"{item['item_id']}-{number}")
    save("other", items[0]["premise_image"], "from another describer")
    docs = hooks.triplet_described_docs_from(items, stored("tiny", items))
    assert len(docs) == 22 and set(docs["describer"]) == {"tiny"}
    stand_ins = json.loads(docs[0]["upstream_missing"])  # item 1, before item 2: both orders, counted as wrong
    assert [(doc["item_id"], doc["swapped"]) for doc in stand_ins] == [("1", False), ("1", True)]
    swapped = docs[1]  # item "2", hypotheses in the swapped order
    assert hooks.doc_to_text_triplet_text(swapped) == prompts.triplet_text_prompt("2-0", "2-2", "2-1")
    assert swapped["gold_position"] == 3 - items[1]["gold"]
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIPTIONS", "nobody")
    with pytest.raises(DataError, match="run nleye_describe with ABDUCTIVE_NLEYE_DESCRIBER=nobody first"):
        hooks.triplet_described_docs(None)


def test_describer_variables(monkeypatch, store, items):
    monkeypatch.delenv("ABDUCTIVE_NLEYE_DESCRIBER", raising=False)
    monkeypatch.delenv("ABDUCTIVE_NLEYE_DESCRIPTIONS", raising=False)
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    assert set(hooks.describe_docs(None)["describer"]) == {""}  # the descriptions are in the run's records anyway
    (stand_in,) = hooks.triplet_described_docs(None)  # no describer named, no describe stage given: not computed
    assert stand_in["no_upstream"] is True
    for item in items:
        for path in paths_of(item):
            save("describer-a", path, "by a")
            save("predictor-b", path, "by b")
    # A predictor describing under its own name reads another describer's descriptions.
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIBER", "predictor-b")
    assert set(hooks.describe_docs(None)["describer"]) == {"predictor-b"}
    assert "Context: by b" in hooks.doc_to_text_triplet_text(hooks.triplet_described_docs(None)[0])
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIPTIONS", "describer-a")
    assert set(hooks.describe_docs(None)["describer"]) == {"predictor-b"}
    assert "Context: by a" in hooks.doc_to_text_triplet_text(hooks.triplet_described_docs(None)[0])


def test_predictor_scored_like_the_text_only_strategy(store, items):
    """Scripted predictor: right on item "1" in both orders, on item "2" in one; gold vs described from one split."""
    clear_cache()
    for item in items:
        for number, path in enumerate(paths_of(item)):
            save("tiny", path, f"{item['item_id']}-{number}")
    descriptions.describer_folder("tiny").joinpath(
        f"{descriptions.image_digest(items[11]['premise_image'])}.json"
    ).unlink()
    docs = hooks.triplet_described_docs_from(items, stored("tiny", items))
    answers = []
    for doc in docs:
        if doc["item_id"] == "1":
            answers.append(f"Hypothesis {doc['gold_position']} is more plausible.")
        elif doc["item_id"] == "2":
            answers.append("1" if not doc["swapped"] else FAILED)
        else:
            answers.append("Neither.")
    results = [hooks.process_results_triplet_described(doc, [a]) for doc, a in zip(docs, answers, strict=True)]
    values = hooks.TRIPLET_DESCRIBED.evaluate([result["triplet_counts"][1] for result in results])
    # Item 12 (no premise description) is not asked and counts as wrong in both orders: every mean is over 12 items.
    assert values["consistency_acc"] == pytest.approx(1 / 12)
    counts = values["triplet_counts"]
    assert (counts["documents"], counts["items_scored"], counts["items_missing_upstream"]) == (22, 12, 1)
    # Nine items answered "Neither." twice; item "2" (gold 2) answered "1" (wrong) and failed once (wrong).
    assert (counts["request_failed"], counts["unparsable"]) == (1, 18)
    assert values["order1_acc"] == pytest.approx(1 / 12) and values["order2_acc"] == pytest.approx(1 / 12)
    assert values["triplet_ci95"]["consistency_acc"]["units"] == 12


def test_an_entry_refused_or_gone_inside_the_describe_limit_counts_its_item_as_missing(store, items, monkeypatch):
    """The descriptions of an ``nleye_describe --limit 12`` run (its first 12 images: the first 4 items'), read with
    the same limit: an item whose entry was edited or deleted is counted as missing, never dropped from the items."""
    run = {"model": "dummy", "backend": "dummy", "model_args": "", "key": "k-dummy", "limit": 12}
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(run))
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIPTIONS", "dd")
    for path in hooks.describe_docs_from(items, "dd")["image_path"][:12]:
        save("dd", path, "An image.")
    edited = store / "dd" / f"{descriptions.image_digest(items[1]['premise_image'])}.json"
    edited.write_bytes(edited.read_bytes().replace(b'"status": "', b'"status": "x'))
    (store / "dd" / f"{descriptions.image_digest(items[2]['hypothesis_images'][1])}.json").unlink()
    docs = hooks.triplet_described_docs(None)
    asked = [doc["item_id"] for doc in docs]
    missing = [stand_in["item_id"] for doc in docs for stand_in in json.loads(doc["upstream_missing"])]
    first_six = [item["item_id"] for item in items.select(range(6))]
    assert asked == [first_six[0]] * 2 + [first_six[3]] * 2
    # both orders of each, counted as wrong; items 5 and 6 are among the first 12 documents (two per item) that
    # nleye_triplet --limit 12 asks, and the describe run's first 12 images lack theirs: missing, never dropped
    assert missing == [first_six[1]] * 2 + [first_six[2]] * 2 + [first_six[4]] * 2 + [first_six[5]] * 2


def test_a_limited_run_asks_the_items_of_nleye_triplet_with_that_limit(store, items, monkeypatch):
    """The finding: ``--limit 4`` described the first 4 images (item 1's and one of item 2's) and the reader dropped
    item 2 silently (1 item, ``items_missing_upstream`` 0). Its items are nleye_triplet's under the limit (2); the
    describe stage's limit covers their images; an item whose descriptions are missing counts, with its warning."""
    from abductive_tasks.runs import stage_limits

    run = {"model": "dummy", "backend": "dummy", "model_args": "", "key": "k-dummy", "limit": 4}
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(run))
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIPTIONS", "dd")
    images = list(hooks.describe_docs_from(items, "dd")["image_path"])
    first = [item["item_id"] for item in items.select(range(3))]
    assert hooks.describe_limit(4) == len({descriptions.image_digest(p) for i in range(2) for p in paths_of(items[i])})
    assert hooks.describe_limit(3) == hooks.describe_limit(4) and stage_limits.stage_limit("nleye_describe", 4) == 6
    assert stage_limits.stage_limit("mucr_c2e", 4) == 4
    grouped = stage_limits.by_stage_limit(["nleye_triplet", "nleye_describe"], 4)
    assert grouped == [["nleye_triplet"], ["nleye_describe"]]
    for path in images[: hooks.describe_limit(4)]:
        save("dd", path, "An image.")
    docs = hooks.triplet_described_docs(None)
    assert [doc["item_id"] for doc in docs] == [first[0]] * 2 + [first[1]] * 2  # nleye_triplet --limit 4's items
    assert [doc["swapped"] for doc in docs] == [False, True, False, True]
    # Descriptions of only the first 4 images (the old stage limit): item 2 is counted as missing, not dropped.
    for path in images[4:6]:
        (store / "dd" / f"{descriptions.image_digest(path)}.json").unlink(missing_ok=True)
    warnings: list[str] = []
    handler = logger.add(lambda message: warnings.append(str(message)), level="WARNING")
    try:
        docs = hooks.triplet_described_docs(None)
    finally:
        logger.remove(handler)
    assert [doc["item_id"] for doc in docs] == [first[0]] * 2
    assert [stand_in["item_id"] for stand_in in json.loads(docs[1]["upstream_missing"])] == [first[1]] * 2
    assert sum("1 of 2 items have no upstream output" in line for line in warnings) == 1


def test_descriptions_stored_by_plain_lmms_eval_are_read_under_abductive_eval_as_named(store, items, monkeypatch):
    """The describer is named on purpose, so descriptions stored by plain lmms-eval (no model, no --limit said) are
    read under abductive-eval as graphs or picks of an unknown run are not: one warning that their --limit goes
    unchecked (an item they lack counts as missing), not the advice to run through abductive-eval it was run under."""
    for item in items.select(range(2)):  # stored with no ABDUCTIVE_RUN: plain lmms-eval
        for path in paths_of(item):
            save("dd", path, "An image.")
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps({"model": "p", "backend": "p", "key": "k-p", "limit": None}))
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_NLEYE_DESCRIPTIONS", "dd")
    warnings: list[str] = []
    handler = logger.add(lambda message: warnings.append(message.record["message"]), level="WARNING")
    try:
        docs = hooks.triplet_described_docs(None)
    finally:
        logger.remove(handler)
    assert [doc["item_id"] for doc in docs] == [item["item_id"] for item in items.select(range(2)) for _ in "ab"]
    assert sum(len(json.loads(doc["upstream_missing"])) for doc in docs) == 2 * (len(items) - 2)  # counted, wrong
    (unchecked,) = [line for line in warnings if "without a check" in line]
    assert unchecked == (
        "nleye_triplet_described: the descriptions of nleye_describe in ABDUCTIVE_NLEYE_DESCRIPTIONS=dd "
        f"({descriptions.describer_folder('dd')}) are read as the variable names them, without a check of the --limit "
        "that produced them: they were stored by a run that did not say its model (plain lmms-eval) (an item they "
        "lack counts as missing)"
    )


def test_an_odd_limit_asks_the_last_of_its_items_in_the_original_order_only(store, items):
    """nleye_triplet --limit 3 asks item 1 in both orders and item 2 in the original order: so does the reader."""
    for item in items.select(range(2)):
        for path in paths_of(item):
            save("dd", path, "An image.")
    output = stored("dd", items.select(range(2)))
    docs = hooks.triplet_described_docs_from(items, output, limit=3, limit_known=True)
    first, second = items[0]["item_id"], items[1]["item_id"]
    assert [(doc["item_id"], doc["swapped"]) for doc in docs] == [(first, False), (first, True), (second, False)]
