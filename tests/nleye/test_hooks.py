"""NL-Eye documents, prompts, visuals and per-document results."""

from __future__ import annotations

import PIL.Image
import pytest

from abductive_tasks import images, nleye
from abductive_tasks.data import SAMPLE_ROOT


@pytest.fixture(scope="module")
def items():
    return nleye.load_items(SAMPLE_ROOT / "nleye")


def test_triplet_docs_show_both_orders(items):
    docs = nleye.triplet_docs_from(items)
    assert len(docs) == 2 * len(items)
    for item, original, swapped in zip(items, docs.select(range(0, len(docs), 2)), docs.select(range(1, len(docs), 2)), strict=True):
        assert original["item_id"] == swapped["item_id"] == item["item_id"]
        assert original["image_paths"] == [item["premise_image"], *item["hypothesis_images"]]
        assert swapped["image_paths"] == [item["premise_image"], *item["hypothesis_images"][::-1]]
        assert original["gold_position"] == item["gold"]
        assert swapped["gold_position"] == 3 - item["gold"]
        assert swapped["shown_descriptions"] == item["descriptions"][:0:-1]


def test_pairs_docs_one_per_hypothesis(items):
    docs = nleye.pairs_docs_from(items)
    assert len(docs) == 2 * len(items)
    assert sum(docs["is_gold"]) == len(items)
    first = docs[0]
    assert first["image_paths"] == [items[0]["premise_image"], items[0]["hypothesis_images"][0]]
    assert first["is_gold"] == (items[0]["gold"] == 1)


def test_prompts_are_table_6(items):
    doc = nleye.triplet_docs_from(items)[0]
    assert nleye.doc_to_text_triplet_separate(doc).startswith("Given a context image and 2 hypothesis images (3 total images)")
    assert nleye.doc_to_text_triplet_combined(doc).endswith("The context image can happen before or after the hypothesis images.")
    assert nleye.doc_to_text_pairs_combined(doc) == "The first (left) image is the context image. " + nleye.PROMPT_PAIRS_SEPARATE
    assert "10: Almost necessarily plausible. Explain why." in nleye.PROMPT_PAIRS_SEPARATE
    text = nleye.doc_to_text_triplet_text(doc)
    assert text.startswith("Given a context, hypothesis1, and hypothesis2, which hypothesis is more plausible?")
    assert f"Context: {items[0]['descriptions'][0]}" in text
    assert nleye.doc_to_visual_none(doc) == []


def test_combined_image_puts_premise_left(items):
    doc = nleye.triplet_docs_from(items)[0]
    separate = nleye.doc_to_visual_separate(doc)
    (combined,) = nleye.doc_to_visual_combined(doc)
    height = max(image.height for image in separate)
    widths = [round(image.width * height / image.height) for image in separate]
    assert combined.size == (sum(widths) + 2 * 8, height)
    premise = separate[0].resize((widths[0], height)) if separate[0].height != height else separate[0]
    assert combined.getpixel((0, 0)) == premise.getpixel((0, 0))


def test_each_image_file_is_decoded_once(items, monkeypatch):
    images.clear_cache()
    opened = []
    real_open = PIL.Image.open
    monkeypatch.setattr(PIL.Image, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    for docs in (nleye.triplet_docs_from(items), nleye.pairs_docs_from(items)):
        for doc in docs:
            nleye.doc_to_visual_separate(doc)
            nleye.doc_to_visual_combined(doc)
            nleye.doc_to_visual_combined(doc)
    assert len(opened) == len(set(opened)) == 3 * len(items)


def test_triplet_results_count_unparsable_as_wrong(items):
    doc = nleye.triplet_docs_from(items)[0]
    gold = str(doc["gold_position"])
    right = nleye.process_results_triplet(doc, [f"Hypothesis {gold} is more plausible."])
    unreadable = nleye.process_results_triplet(doc, ["I cannot decide."])
    assert right["consistency_acc"]["correct"] is True
    assert unreadable["consistency_acc"]["correct"] is False
    assert unreadable["consistency_acc"]["prediction"] is None
    assert nleye.triplet_parse_failure_rate([right["parse_failure_rate"], unreadable["parse_failure_rate"]]) == 0.5
    assert nleye.process_results_triplet_combined(doc, ["the middle image"])["consistency_acc"]["prediction"] == 1


def test_triplet_aggregations_by_hand(items):
    docs = nleye.triplet_docs_from(items).select(range(6))  # items 1-3, both orders
    # item 1: right twice; item 2: right then unparsable; item 3: wrong twice.
    answers = [
        str(docs[0]["gold_position"]),
        str(docs[1]["gold_position"]),
        str(docs[2]["gold_position"]),
        "no idea",
        str(3 - docs[4]["gold_position"]),
        str(3 - docs[5]["gold_position"]),
    ]
    payloads = [nleye.process_results_triplet(doc, [answer])["consistency_acc"] for doc, answer in zip(docs, answers, strict=True)]
    assert nleye.consistency_acc(payloads) == pytest.approx(1 / 3)
    assert nleye.triplet_items_scored(payloads) == 3
    assert nleye.triplet_unparsable_count(payloads) == 1
    # gold positions by document: item 1 (1, 2), item 2 (2, 1), item 3 (1, 2)
    assert [d["gold_position"] for d in docs] == [1, 2, 2, 1, 1, 2]
    assert nleye.order1_acc(payloads) == pytest.approx(1 / 3)  # docs 0 right, 3 unparsable, 4 wrong
    assert nleye.order2_acc(payloads) == pytest.approx(2 / 3)  # docs 1, 2 right, 5 wrong
    by_category = nleye.consistency_by_category(payloads)
    assert by_category == {"emotional": {"acc": 0.0, "n": 1}, "logical": {"acc": 0.0, "n": 1}, "physical": {"acc": 1.0, "n": 1}}
    assert nleye.triplet_items_incomplete(payloads[:5]) == 1


def test_pairs_aggregations_by_hand(items):
    docs = nleye.pairs_docs_from(items).select(range(4))  # items 1 and 2
    ratings = {True: "Score: 8", False: "Score: 3"}
    payloads = [nleye.process_results_pairs(doc, [ratings[doc["is_gold"]]])["order_faithful_acc"] for doc in docs.select([0, 1])]
    payloads += [nleye.process_results_pairs(doc, ["7/10"])["order_faithful_acc"] for doc in docs.select([2, 3])]
    assert nleye.order_faithful_acc(payloads) == 0.5
    assert nleye.equal_rank_rate(payloads) == 0.5
    assert nleye.rank_diff(payloads) == 2.5
    assert nleye.correct_rank_mean(payloads) == 7.5
    assert nleye.wrong_rank_mean(payloads) == 5.0
    assert nleye.pairs_items_scored(payloads) == 2
