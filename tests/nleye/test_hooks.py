"""NL-Eye documents, prompts, visuals and per-document results."""

from __future__ import annotations

import pytest

from abductive_tasks.inputs import images
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.nleye import data, hooks, prompts

from helpers.specs import evaluate, records


@pytest.fixture(scope="module")
def items():
    return data.load(SAMPLE_ROOT / "nleye").items


def test_triplet_docs_show_both_orders(items):
    docs = hooks.triplet_docs_from(items)
    assert len(docs) == 2 * len(items)
    for item, original, swapped in zip(
        items, docs.select(range(0, len(docs), 2)), docs.select(range(1, len(docs), 2)), strict=True
    ):
        assert original["item_id"] == swapped["item_id"] == item["item_id"]
        assert original["image_paths"] == [item["premise_image"], *item["hypothesis_images"]]
        assert swapped["image_paths"] == [item["premise_image"], *item["hypothesis_images"][::-1]]
        assert original["gold_position"] == item["gold"]
        assert swapped["gold_position"] == 3 - item["gold"]
        assert swapped["shown_descriptions"] == item["descriptions"][:0:-1]


def test_pairs_docs_one_per_hypothesis(items):
    docs = hooks.pairs_docs_from(items)
    assert len(docs) == 2 * len(items)
    assert sum(docs["is_gold"]) == len(items)
    first = docs[0]
    assert first["image_paths"] == [items[0]["premise_image"], items[0]["hypothesis_images"][0]]
    assert first["is_gold"] == (items[0]["gold"] == 1)


def test_prompts_are_table_6(items):
    doc = hooks.triplet_docs_from(items)[0]
    assert hooks.doc_to_text_triplet_separate(doc).startswith(
        "Given a context image and 2 hypothesis images (3 total images)"
    )
    assert hooks.doc_to_text_triplet_combined(doc).endswith(
        "The context image can happen before or after the hypothesis images."
    )
    assert (
        hooks.doc_to_text_pairs_combined(doc)
        == "The first (left) image is the context image. " + prompts.PROMPT_PAIRS_SEPARATE
    )
    assert "10: Almost necessarily plausible. Explain why." in prompts.PROMPT_PAIRS_SEPARATE
    text = hooks.doc_to_text_triplet_text(doc)
    assert text.startswith("Given a context, hypothesis1, and hypothesis2, which hypothesis is more plausible?")
    assert f"Context: {items[0]['descriptions'][0]}" in text
    assert hooks.doc_to_visual_none(doc) == []


def test_combined_image_puts_premise_left(items):
    doc = hooks.triplet_docs_from(items)[0]
    separate = hooks.doc_to_visual_separate(doc)
    (combined,) = hooks.doc_to_visual_combined(doc)
    height = max(image.height for image in separate)
    widths = [round(image.width * height / image.height) for image in separate]
    assert combined.size == (sum(widths) + 2 * 8, height)
    premise = separate[0].resize((widths[0], height)) if separate[0].height != height else separate[0]
    assert combined.getpixel((0, 0)) == premise.getpixel((0, 0))


def test_each_image_file_is_decoded_once_on_first_use_not_at_loading(decoded_files):
    images.clear_cache()
    data.load.cache_clear()
    items = data.load(SAMPLE_ROOT / "nleye").items  # loading checks every image (and rejects bad ones)
    assert decoded_files == []
    for docs in (hooks.triplet_docs_from(items), hooks.pairs_docs_from(items)):
        for doc in docs:
            hooks.doc_to_visual_separate(doc)
            hooks.doc_to_visual_combined(doc)
            hooks.doc_to_visual_combined(doc)
    assert len(decoded_files) == len(set(decoded_files)) == 3 * len(items)


def test_triplet_results_count_unparsable_as_wrong(items):
    doc = hooks.triplet_docs_from(items)[0]
    gold = str(doc["gold_position"])
    right, unreadable = records(
        hooks.process_results_triplet, [doc, doc], [f"Hypothesis {gold} is more plausible.", "I cannot decide."]
    )
    assert right["correct"] is True and right["answer_status"] == "parsed"
    assert (
        unreadable["correct"] is False
        and unreadable["prediction"] is None
        and unreadable["answer_status"] == "unparsable"
    )
    assert records(hooks.process_results_triplet_combined, [doc], ["the middle image"])[0]["prediction"] == 1


@pytest.mark.parametrize(
    "reply", ["[LMMS_EVAL_REQUEST_FAILED after 5 retries] Error code: 400 - Invalid image 2", "   ", "", None]
)
def test_a_failed_request_is_never_an_answer(items, reply):
    docs = hooks.triplet_docs_from(items)
    values = evaluate(hooks.TRIPLET, hooks.process_results_triplet, docs, [reply] * len(docs))
    assert values["consistency_acc"] == 0.0
    assert values["triplet_counts"]["request_failed"] == len(docs)
    assert values["triplet_counts"]["unparsable"] == 0
    pairs = hooks.pairs_docs_from(items)
    rating = evaluate(
        hooks.PAIRS,
        hooks.process_results_pairs,
        pairs,
        ["[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"] * len(pairs),
    )
    assert rating["order_faithful_acc"] == 0.0 and rating["pairs_counts"]["request_failed"] == len(pairs)
    assert rating["pairs_counts"]["items_with_both_scores"] == 0


def test_triplet_aggregations_by_hand(items):
    docs = hooks.triplet_docs_from(items).select(range(6))  # items 1-3, both orders
    # item 1: right twice; item 2: right then unparsable; item 3: wrong twice.
    answers = [
        str(docs[0]["gold_position"]),
        str(docs[1]["gold_position"]),
        str(docs[2]["gold_position"]),
        "no idea",
        str(3 - docs[4]["gold_position"]),
        str(3 - docs[5]["gold_position"]),
    ]
    values = evaluate(hooks.TRIPLET_TEXT, hooks.process_results_triplet_text, docs, answers)
    assert values["consistency_acc"] == pytest.approx(1 / 3)
    assert values["triplet_counts"] == {
        "documents": 6,
        "items_scored": 3,
        "items_incomplete": 0,
        "unparsable": 1,
        "request_failed": 0,
        "judge_extracted": 0,
    }
    # gold positions by document: item 1 (1, 2), item 2 (2, 1), item 3 (1, 2)
    assert [d["gold_position"] for d in docs] == [1, 2, 2, 1, 1, 2]
    assert values["order1_acc"] == pytest.approx(1 / 3)  # docs 0 right, 3 unparsable, 4 wrong
    assert values["order2_acc"] == pytest.approx(2 / 3)  # docs 1, 2 right, 5 wrong
    by_category = {label: (cell["acc"], cell["n"]) for label, cell in values["consistency_by_category"].items()}
    assert by_category == {"emotional": (0.0, 1), "logical": (0.0, 1), "physical": (1.0, 1)}
    assert (
        values["triplet_ci95"]["consistency_acc"]["units"] == 3
        and values["triplet_ci95"]["consistency_acc"]["chance"] == 0.25
    )
    cut = evaluate(hooks.TRIPLET_TEXT, hooks.process_results_triplet_text, docs.select(range(5)), answers[:5])
    assert cut["triplet_counts"]["items_incomplete"] == 1 and cut["triplet_counts"]["items_scored"] == 2


def test_pairs_aggregations_by_hand(items):
    docs = hooks.pairs_docs_from(items).select(range(4))  # items 1 and 2
    ratings = {True: "Score: 8", False: "Score: 3"}
    answers = [ratings[doc["is_gold"]] for doc in docs.select([0, 1])] + ["7/10", "7/10"]
    values = evaluate(hooks.PAIRS, hooks.process_results_pairs, docs, answers)
    assert values["order_faithful_acc"] == 0.5
    assert values["equal_rank_rate"] == 0.5
    assert values["rank_diff"] == 2.5
    assert values["correct_rank_mean"] == 7.5
    assert values["wrong_rank_mean"] == 5.0
    assert values["pairs_counts"]["items_scored"] == 2 and values["pairs_counts"]["items_with_both_scores"] == 2
