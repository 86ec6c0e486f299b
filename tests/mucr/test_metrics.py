"""MuCR metric kernels on hand-computed cases:
choice accuracy and breakdowns, explanation parts, S1-S3 and Exp (Eq. 6-9); the E2C and cue-phrase style breakdowns
through the tasks' process_results and aggregation."""

from __future__ import annotations

import numpy as np
import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.mucr import data, hooks
from abductive_tasks.mucr.metrics import (
    CHANCE,
    choice_outcome,
    exp_outcome,
    part_estimates,
    split_explanation,
    weighted_parts,
)
from abductive_tasks.scoring.judge import JUDGE_FAILED, NOT_CONFIGURED, OK, UNPARSABLE
from abductive_tasks.scoring.taskspec import PARSED, REQUEST_FAILED

from helpers.specs import evaluate

LOADED = data.load(SAMPLE_ROOT / "mucr")


def test_split_explanation_labelled_and_by_sentences():
    parts, labelled = split_explanation(
        "**Cause image:** A man speeds.\nEffect image: He gets a ticket.\nCausal link: Speeding led to it."
    )
    assert labelled and parts == ("A man speeds.", "He gets a ticket.", "Speeding led to it.")
    annotation = (
        "The first image shows a man planting a tree. It is spring. "
        "The second image depicts a grown tree. The causal link is the care."
    )
    expected = (
        "The first image shows a man planting a tree. It is spring.",
        "The second image depicts a grown tree.",
        "The causal link is the care.",
    )
    assert split_explanation(annotation) == (expected, False)
    assert split_explanation("One. Two. Three. Four.") == (("One.", "Two.", "Three. Four."), False)
    assert split_explanation("Just one sentence.") == (("Just one sentence.",) * 3, False)
    # Labels out of order are not the asked-for form: split by sentences instead.
    assert split_explanation("Effect image: b. Cause image: a. Causal link: c.")[1] is False


def _choice(item_id: str, label: str, style: str, correct: bool, rule: str = "link_id", status: str = PARSED) -> dict:
    return {
        "item_id": item_id,
        "label": label,
        "style": style,
        "candidate_rule": rule,
        "correct": correct,
        "answer_status": status,
        "no_link_id": 2,  # the loader's count, the same in every record of a run
    }


def test_choice_accuracy_breakdowns_counts_and_chance():
    records = [
        _choice("0", "human", "photograph", True),
        _choice("1", "human", "photograph", False, status="unparsable"),
        _choice("2", "human", "comic", False, rule="seeded"),
        _choice("3", "animal", "comic", True, rule="seeded"),
        _choice("4", "animal", "photograph", False, status=REQUEST_FAILED),
    ]
    outcome = choice_outcome("c2e")(records)
    accuracy = outcome.estimates["c2e_accuracy"]
    assert (
        accuracy.value == pytest.approx(2 / 5) and accuracy.n_units == 5
    )  # failed and unreadable answers count as wrong
    by_label = {label: (cell.value, cell.n_units) for label, cell in outcome.breakdowns["c2e_acc_by_label"].items()}
    assert by_label == {"animal": (0.5, 2), "human": (pytest.approx(1 / 3), 3)}
    by_style = {label: (cell.value, cell.n_units) for label, cell in outcome.breakdowns["c2e_acc_by_style"].items()}
    assert by_style == {"comic": (0.5, 2), "photograph": (pytest.approx(1 / 3), 3)}
    assert outcome.counts == {"items_scored": 5, "no_link_id": 2, "candidates_link_id": 3, "candidates_seeded": 2}
    assert outcome.chance == {"c2e_accuracy": CHANCE} and CHANCE == 0.25
    cue = choice_outcome("cue")(records)
    assert set(cue.estimates) == {"cue_accuracy"} and cue.counts == {
        "items_scored": 5,
        "no_link_id": 2,
    }  # no candidate sets at the phrase level


def _cells(breakdown: dict) -> dict:
    return {label: (cell["acc"], cell["n"], cell["lower"], cell["upper"]) for label, cell in breakdown.items()}


# The sample's pairs 0-7 (category, style): 0 human photograph, 1 human photograph, 2 human comic, 3 human comic,
# 4 animal photograph, 5 animal photograph, 6 animal comic, 7 animal photograph.


def test_e2c_acc_by_style_by_hand():
    # MuCR §4 "Category and Style Impact", Figure 9 (style): image-level E2C accuracy (Eq. 4) per image style.
    # Right: pairs 0, 2, 3, 6; wrong: 1, 4, 7 (another option) and 5 (unreadable).
    # comic: pairs 2, 3, 6 -> 3/3; photograph: pairs 0, 1, 4, 5, 7 -> 1/5 (by category it would be human 3/4,
    # animal 1/4). Intervals: a draw of 5 photograph pairs holds 3 or more right ones with probability 5.8%,
    # 4 or more 0.7%: upper bound 3/5.
    docs = hooks.e2c_docs_from(LOADED).select(range(8))
    assert [(doc["label"], doc["style"]) for doc in docs][:3] == [
        ("human", "photograph"),
        ("human", "photograph"),
        ("human", "comic"),
    ]
    gold = [doc["gold_position"] for doc in docs]
    answers = [f"Answer: {gold[i]}" if i in (0, 2, 3, 6) else f"Answer: {gold[i] % 4 + 1}" for i in range(8)]
    answers[5] = "none of them"
    values = evaluate(hooks.E2C, hooks.process_results_e2c, docs, answers)
    assert values["e2c_accuracy"] == 0.5 and values["e2c_counts"]["unparsable"] == 1
    assert _cells(values["e2c_acc_by_style"]) == {
        "comic": (1.0, 3, 1.0, 1.0),
        "photograph": (0.2, 5, 0.0, 0.6),
    }
    assert {label: cell["acc"] for label, cell in values["e2c_acc_by_label"].items()} == {"animal": 0.25, "human": 0.75}


def test_cue_acc_by_style_by_hand():
    # MuCR §4 "Category and Style Impact", Figure 9 (style): phrase-level cue accuracy per image style.
    # Answers name an option's phrase: right for pairs 1, 4, 5, 7, another option for 2, 3, 6, none readable for 0.
    # photograph: pairs 0, 1, 4, 5, 7 -> 4/5; comic: pairs 2, 3, 6 -> 0/3 (by category: human 1/4, animal 3/4).
    # Intervals: a draw of 5 photograph pairs holds 2 or fewer right ones with probability 5.8%, 1 or fewer 0.7%:
    # lower bound 2/5.
    docs = hooks.cue_docs_from(LOADED).select(range(8))
    answers = []
    for i, doc in enumerate(docs):
        options, gold = doc["options"], doc["gold_position"]
        answers.append(f"The cue is {options[gold - 1] if i in (1, 4, 5, 7) else options[gold % 4]}.")
    answers[0] = "I cannot tell."
    values = evaluate(hooks.CUE, hooks.process_results_cue, docs, answers)
    assert values["cue_accuracy"] == 0.5 and values["cue_counts"]["unparsable"] == 1
    assert _cells(values["cue_acc_by_style"]) == {
        "comic": (0.0, 3, 0.0, 0.0),
        "photograph": (0.8, 5, 0.4, 1.0),
    }
    assert {label: cell["acc"] for label, cell in values["cue_acc_by_label"].items()} == {"animal": 0.75, "human": 0.25}


def test_choice_outcome_without_records_is_undefined_not_zero():
    outcome = choice_outcome("e2c")([])
    assert outcome.estimates["e2c_accuracy"].value is None and outcome.breakdowns["e2c_acc_by_label"] == {}


def test_exp_is_the_weighted_sum_of_the_part_means_in_every_replicate():
    scores = np.array([[10, 7, 9], [6, 7, 9], [6, 0, 0], [2, 5, 8]], dtype=float)
    estimates = part_estimates("exp_", ["a", "b", "c", "d"], scores)
    s1, s2, s3 = (estimates[f"exp_s{k}"].value for k in (1, 2, 3))
    assert (s1, s2, s3) == (6.0, 4.75, 6.5)
    assert estimates["exp_score"].value == pytest.approx(0.25 * 6 + 0.25 * 4.75 + 0.5 * 6.5) == pytest.approx(5.9375)
    # Same seed, same units: the same resampling weights, so the identity holds replicate by replicate.
    parts = [estimates[f"exp_s{k}"].replicates(300, seed=7) for k in (1, 2, 3)]
    assert np.allclose(
        estimates["exp_score"].replicates(300, seed=7), 0.25 * parts[0] + 0.25 * parts[1] + 0.5 * parts[2]
    )


def test_weighted_parts_is_undefined_without_pairs():
    totals = np.array([[4.0, 8.0, 12.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
    values = weighted_parts(totals)
    assert values[0] == pytest.approx((0.25 * 4 + 0.25 * 8 + 0.5 * 12) / 2) and np.isnan(values[1])


def _exp(
    item_id: str,
    s: tuple,
    statuses: tuple | str = OK,
    labelled: bool | None = True,
    answer: str = PARSED,
    judge: bool = True,
    o=(None, None, None),
) -> dict:
    statuses = (statuses,) * 3 if isinstance(statuses, str) else statuses
    record = {
        "item_id": item_id,
        "judge_configured": judge,
        "labelled": labelled,
        "answer_status": answer,
        "no_link_id": 1,
    }
    for k in range(3):
        record[f"s{k + 1}"], record[f"s{k + 1}_status"], record[f"o{k + 1}"] = s[k], statuses[k], o[k]
    return record


def test_exp_with_a_judge_hand_computed():
    records = [
        _exp("a", (8, 6, 10)),
        _exp("b", (4, 2, 6), labelled=False),
        _exp("c", (0, 0, 0), REQUEST_FAILED, labelled=None, answer=REQUEST_FAILED),  # no answer: 0, no judge question
        _exp("d", (5, None, 7), (OK, JUDGE_FAILED, OK)),  # left out, counted
        _exp("e", (None, 3, None), (UNPARSABLE, OK, JUDGE_FAILED)),  # counted once, as failed
        _exp("f", (None, 3, 3), (UNPARSABLE, OK, OK)),
    ]
    outcome = exp_outcome(records)
    values = {name: estimate.value for name, estimate in outcome.estimates.items()}
    assert (
        values["exp_s1"] == pytest.approx(12 / 3)
        and values["exp_s2"] == pytest.approx(8 / 3)
        and values["exp_s3"] == pytest.approx(16 / 3)
    )
    assert values["exp_score"] == pytest.approx(0.25 * 4 + 0.25 * 8 / 3 + 0.5 * 16 / 3)
    assert outcome.estimates["exp_score"].units.tolist() == ["a", "b", "c"]
    assert outcome.counts == {
        "items_scored": 6,
        "no_link_id": 1,
        "items_judged": 3,
        "items_judge_asked": 5,  # the five answers; the failed request asks the judge nothing
        "items_judge_failed": 2,
        "items_judge_unparsable": 1,
        "items_offline_scored": 0,
    }
    assert outcome.values["exp_unlabelled_rate"] == pytest.approx(
        1 / 5
    )  # over the five answers; the failed request is none
    assert all(outcome.values[f"exp_offline_{name}"] is None for name in ("s1", "s2", "s3", "score"))


def test_exp_without_a_judge_uses_the_offline_similarity():
    records = [
        _exp("a", (None,) * 3, NOT_CONFIGURED, judge=False, o=(0.2, 0.4, 0.8)),
        _exp("b", (None,) * 3, NOT_CONFIGURED, judge=False, o=(0.0, 0.0, 0.0), labelled=None, answer=REQUEST_FAILED),
        _exp("c", (None,) * 3, NOT_CONFIGURED, judge=False, o=(0.5, None, 0.5)),  # a part the model could not score
    ]
    outcome = exp_outcome(records)
    assert all(outcome.values[name] is None for name in ("exp_s1", "exp_s2", "exp_s3", "exp_score"))
    assert outcome.estimates["exp_offline_s1"].value == pytest.approx(0.1)
    assert outcome.estimates["exp_offline_score"].value == pytest.approx((0.25 * 0.2 + 0.25 * 0.4 + 0.5 * 0.8) / 2)
    assert outcome.counts["items_judged"] == 0 and outcome.counts["items_offline_scored"] == 2
    assert outcome.counts["items_judge_asked"] == 0  # no judge
    assert outcome.values["exp_unlabelled_rate"] == 0.0


def test_exp_when_every_request_failed_has_no_unlabelled_rate():
    outcome = exp_outcome([_exp("a", (0, 0, 0), REQUEST_FAILED, labelled=None, answer=REQUEST_FAILED)])
    assert outcome.values["exp_unlabelled_rate"] is None and outcome.estimates["exp_score"].value == 0.0


def test_split_explanation_never_starts_the_effect_part_at_the_first_sentence():
    """An unlabelled answer is read in the annotations' order (paper, Exp: cause image, effect image, causal link):
    the effect part starts at the first *later* sentence naming the second/effect image, so a first sentence that
    names it stays the cause part (S1, Eq. 6) and the cause part is never empty."""
    text = (
        "In the second image the street is flooded. "
        "The next image shows water in the road. "
        "The heavy rain caused the flood."
    )
    assert split_explanation(text) == (
        (
            "In the second image the street is flooded.",
            "The next image shows water in the road.",
            "The heavy rain caused the flood.",
        ),
        False,
    )
