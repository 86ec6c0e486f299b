"""DVE on a fixture with the quirks of the authors' release.

The rows are written here, one by one, after what the released ``DVE_{dev,test}.csv`` and
``cleaned_{dev,test}.jsonl`` hold (texts are ours): every assignment writes one strengthener and
one weakener for a pair, so the file is balanced over all rows but not over the possible ones;
impossible rows carry an empty update and a reason that is ``{}`` or free text; two annotators
sometimes wrote the same update for the same pair and type; updates differing only by a final
period are different texts; free text holds commas, ``""``-escaped quotes and curly quotes; a
possible row may carry a reason; two pairs share an image; every weakener of one pair is
impossible. On the real test split the same loader gives 1,837 updates (135 impossible left
out, 4 duplicates kept) and always "strengthener" scores 924/1837; here 7/11.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import PIL.Image
import pytest

from abductive_tasks.dve import data, hooks, metrics

from helpers.specs import evaluate

TENNIS = ("A woman in a gray coat walks past a bus stop.", "The woman is going to work.", "1000000001.jpg#2r1n")
CAMERA = ('A man says "cheese", holding a camera up.', "A man takes a photo.", "1000000002.jpg#0r1e")
STREET = ('A man says "cheese", holding a camera up.', "Nobody is outside.", "1000000002.jpg#4r1c")
REASON_NONE = "{}"

# (assignment, worker, pair, update, type, impossible, reason), in file order
ROWS = [
    (11, 60, TENNIS, "She is carrying a laptop bag.", "strengthener", False, REASON_NONE),
    (11, 60, TENNIS, "It is Sunday morning.", "weakener", False, REASON_NONE),
    (12, 149, TENNIS, "She is carrying a laptop bag.", "strengthener", False, REASON_NONE),  # another worker
    (12, 149, TENNIS, "", "weakener", True, REASON_NONE),
    (13, 103, TENNIS, "She wears a company badge", "strengthener", False, REASON_NONE),
    (13, 103, TENNIS, "", "weakener", True, "The hypothesis is too obvious to the premise."),
    (14, 111, TENNIS, "She wears a company badge.", "strengthener", False, REASON_NONE),  # a final period more
    (14, 111, TENNIS, "She is in pajamas, holding a coffee.", "weakener", False, REASON_NONE),
    (15, 107, CAMERA, 'He presses the "shutter" button.', "strengthener", False, REASON_NONE),
    (15, 107, CAMERA, "The camera’s battery is dead.", "weakener", False, "He holds it, so it can’t be off"),
    (16, 115, CAMERA, "", "strengthener", True, "The hypothesis is impossible to describe."),
    (16, 115, CAMERA, "The camera’s battery is dead.", "weakener", False, REASON_NONE),  # another worker
    (17, 146, STREET, "It is raining hard, so the street is empty.", "strengthener", False, REASON_NONE),
    (17, 146, STREET, "", "weakener", True, "Does not make sense"),
    (18, 110, STREET, "The photo is taken indoors.", "strengthener", False, REASON_NONE),
    (18, 110, STREET, "", "weakener", True, REASON_NONE),
]


def records(update_of_impossible: object = "") -> list[dict]:
    """The rows as the JSONL holds them (int ids, JSON booleans); ``update_of_impossible`` fills impossible rows."""
    return [
        {
            "DataSource": "SNLI",
            "AssignmentIdAnon": assignment,
            "WorkerIdAnon": worker,
            "Premise": premise,
            "Hypothesis": hypothesis,
            "SNLIPairId": pair_id,
            "Update": update_of_impossible if impossible else update,
            "UpdateType": update_type,
            "UpdateTypeImpossible": impossible,
            "UpdateTypeImpossibleReason": reason,
        }
        for assignment, worker, (premise, hypothesis, pair_id), update, update_type, impossible, reason in ROWS
    ]


@pytest.fixture
def release(tmp_path) -> Path:
    """``dve/`` with ``DVE_test.csv`` written as the authors' file is (RFC 4180 quoting, LF ends) and 8x8 images."""
    root = tmp_path / "dve"
    (root / data.IMAGE_DIR).mkdir(parents=True)
    for shade, name in enumerate(("1000000001.jpg", "1000000002.jpg")):
        PIL.Image.new("RGB", (8, 8), (40 * shade, 90, 160)).save(root / data.IMAGE_DIR / name)
    with (root / "DVE_test.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=data.HEADER, lineterminator="\n")
        writer.writeheader()
        writer.writerows(records())  # True/False as the CSV spells them, ints as digits
    data.load.cache_clear()
    yield root
    data.load.cache_clear()


def write_jsonl(root: Path, rows: list[dict]) -> None:
    (root / "DVE_test.csv").unlink()
    (root / "cleaned_test.jsonl").write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))


def test_release_quirks_load_kept_and_counted(release):
    loaded = data.load(release, "test")
    assert len(loaded.items) == 11
    assert loaded.excluded == {"impossible": 5, "empty_text": 0}
    assert loaded.quirks == {"duplicate_updates": 2}  # lines 4 and 13 repeat lines 2 and 11
    assert loaded.items["line"] == [2, 3, 4, 6, 8, 9, 10, 11, 13, 14, 16]
    assert 'He presses the "shutter" button.' in loaded.items["update"]
    assert "The camera’s battery is dead." in loaded.items["update"]
    assert sorted(set(loaded.items["pair_id"])) == sorted({TENNIS[2], CAMERA[2], STREET[2]})
    assert len(set(loaded.items["image_path"])) == 2


def test_always_strengthener_is_scored_on_every_possible_row(release):
    loaded = data.load(release, "test")
    docs = hooks.cls_docs_from(loaded)
    values = evaluate(hooks.CLS, hooks.process_results_cls, docs, ["strengthener"] * len(docs))
    assert values["dve_accuracy"] == pytest.approx(7 / 11)  # 8/16 over all rows; 5 impossible rows, 4 weakeners
    counts = values["dve_cls_counts"]
    assert (counts["documents"], counts["impossible_excluded"], counts["duplicate_updates"]) == (11, 5, 2)
    assert counts["empty_text_excluded"] == 0 and counts["pairs"] == 3


def test_duplicate_references_change_no_generation_score(release):
    gen = hooks.gen_docs_from(data.load(release, "test"))
    by_id = {doc["item_id"]: doc for doc in gen}
    assert len(gen) == 5 and gen[0]["goals_skipped"] == 1 and f"{STREET[2]}|weakener" not in by_id
    references = by_id[f"{TENNIS[2]}|strengthener"]["references"]
    assert references == [
        "She is carrying a laptop bag.",
        "She is carrying a laptop bag.",
        "She wears a company badge",
        "She wears a company badge.",
    ]
    counts = evaluate(hooks.GEN, hooks.process_results_gen, gen, ["x"] * len(gen))["dve_gen_counts"]
    assert (counts["duplicate_updates"], counts["impossible_excluded"]) == (2, 5)
    # ROUGE-L takes the best reference and BLEU clips by the largest count: a repeated reference adds nothing.
    predictions = ["She carries a laptop bag to work.", "She is a badge wearer."]
    unique = [list(dict.fromkeys(references))] * 2
    assert np.array_equal(metrics.rouge_l(predictions, [references] * 2), metrics.rouge_l(predictions, unique))
    assert np.array_equal(
        metrics.bleu_statistics(predictions, [references] * 2), metrics.bleu_statistics(predictions, unique)
    )


@pytest.mark.parametrize("empty", ["", None, float("nan"), "nan"])  # as released, pandas 3 (null/NaN), pandas 2
def test_jsonl_release_and_empty_updates_of_impossible_rows(release, empty):
    write_jsonl(release, records(update_of_impossible=empty))
    loaded = data.load(release, "test")
    assert len(loaded.items) == 11 and loaded.excluded == {"impossible": 5, "empty_text": 0}
    assert loaded.quirks == {"duplicate_updates": 2} and "nan" not in loaded.items["update"]


def test_unmarked_row_without_update_is_left_out_and_counted(release):
    rows = records()
    rows[1]["Update"] = "nan"  # pandas 2 wrote back an empty cell of a row not marked impossible
    rows[7]["Update"] = ""
    write_jsonl(release, rows)
    loaded = data.load(release, "test")
    assert len(loaded.items) == 9 and loaded.excluded == {"impossible": 5, "empty_text": 2}


RELEASE_ENV = "ABDUCTIVE_TEST_DVE_RELEASE"  # a folder holding the authors' DVE_{dev,test}.csv and their images
RELEASE_FIGURES = {  # split: (loaded, impossible, duplicate updates, strengtheners among the loaded), as released
    "test": (1837, 135, 4, 924),
    "dev": (1785, 103, 1, 903),
}


@pytest.mark.skipif(not os.environ.get(RELEASE_ENV), reason=f"{RELEASE_ENV} names no copy of the DVE release")
@pytest.mark.parametrize("split", sorted(RELEASE_FIGURES))
def test_the_authors_release_loads_with_the_published_figures(split):
    """The real files (placeholder images will do): e.g. ABDUCTIVE_TEST_DVE_RELEASE=/data/abductive/dve."""
    data.load.cache_clear()
    loaded = data.load(Path(os.environ[RELEASE_ENV]), split)
    strengtheners = sum(label == "strengthener" for label in loaded.items["update_type"])
    figures = (len(loaded.items), loaded.excluded["impossible"], loaded.quirks["duplicate_updates"], strengtheners)
    assert figures == RELEASE_FIGURES[split] and loaded.excluded["empty_text"] == 0
