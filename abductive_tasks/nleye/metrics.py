"""NL-Eye metrics (§4.2, Appendix A.3, Tables 7-8): pure functions of the per-document records.

Triplet records: ``item_id``, ``gold_position`` (1 or 2, where the gold hypothesis was shown),
``correct``, the categories, and for judged explanations ``swapped`` (the hypotheses shown in the swapped
order), ``explanation`` (judge status, None when not judged) and ``explanation_valid``.
Pairs records: ``item_id``, ``is_gold``, ``rating``
(None when unreadable), the categories. The unit of every interval is the item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from abductive_tasks.scoring.judge import JUDGE_FAILED, OK, UNPARSABLE
from abductive_tasks.scoring.stats import Estimate, Units
from abductive_tasks.scoring.taskspec import Outcome


@dataclass(frozen=True)
class ItemOutcomes:
    """Per-item correctness for the complete items, in sorted item-id order."""

    item_ids: np.ndarray
    correct: np.ndarray
    incomplete: int

    @property
    def accuracy(self) -> float | None:
        return float(np.mean(self.correct)) if len(self.correct) else None


def consistency_outcomes(
    item_ids: Units, orders: Sequence[int] | np.ndarray, correct: Sequence[bool] | np.ndarray, n_orders: int = 2
) -> ItemOutcomes:
    """An item is correct only when the answer is right in every order (NL-Eye A.3 consistency).

    ``orders`` numbers each document's presentation order from 1 to ``n_orders``; an item is
    complete when every order has a document.
    """
    ids, codes = np.unique(np.asarray(item_ids, dtype=str), return_inverse=True)
    seen = np.zeros((len(ids), n_orders), dtype=bool)
    seen[codes, np.asarray(orders, dtype=int) - 1] = True
    all_correct = np.ones(len(ids), dtype=bool)
    np.logical_and.at(all_correct, codes, np.asarray(correct, dtype=bool))
    complete = seen.all(axis=1)
    return ItemOutcomes(ids[complete], all_correct[complete], int((~complete).sum()))


BREAKDOWNS = ("reasoning_category", "time_direction", "time_duration")  # Figure 6
NO_REFERENCE = "no_reference"  # an explanation that cannot be judged: descriptions or gold explanation missing
TRIPLET_CHANCE = 0.25  # a random answer is right in both orders with probability 1/2 * 1/2
ORDER_CHANCE = 0.5
PAIRS_CHANCE = 0.45  # two independent uniform ratings 1-10: P(gold > distractor) = 45/100 (ties are wrong)


def _breakdowns(outcomes: ItemOutcomes, records: list[dict], names: dict[str, str]) -> dict[str, dict[str, Estimate]]:
    """Per-label accuracy over complete items, for each record field in ``names`` (metric name -> field)."""
    label_of = {record["item_id"]: record for record in records}
    result = {}
    for metric, field in names.items():
        labels = np.array([label_of[item][field] for item in outcomes.item_ids], dtype=str)
        result[metric] = {
            str(label): Estimate.mean(outcomes.item_ids[labels == label], outcomes.correct[labels == label])
            for label in np.unique(labels)
        }
    return result


def triplet_outcome(records: list[dict], explanations: bool, described: bool = False) -> Outcome:
    """A.3 consistency (an item is right only when both of its orders are), Table 7 per-order accuracy,
    Figure 6 breakdowns, and (``explanations``) the §4.2 explanation validity of correct predictions;
    ``described`` (image-to-text): the count of items left out for lack of descriptions."""
    ids = np.array([r["item_id"] for r in records], dtype=str)
    positions = np.array([r["gold_position"] for r in records], dtype=int)
    correct = np.array([r["correct"] for r in records], dtype=bool)
    outcomes = consistency_outcomes(ids, positions, correct)
    outcome = Outcome(
        estimates={
            "consistency_acc": Estimate.mean(outcomes.item_ids, outcomes.correct),
            # Table 7: accuracy over the documents showing the gold hypothesis first / second
            "order1_acc": Estimate.grouped_mean(ids[positions == 1], correct[positions == 1]),
            "order2_acc": Estimate.grouped_mean(ids[positions == 2], correct[positions == 2]),
        },
        breakdowns=_breakdowns(
            outcomes, records, {f"consistency_by_{field.removeprefix('reasoning_')}": field for field in BREAKDOWNS}
        ),
        counts={"items_scored": len(outcomes.item_ids), "items_incomplete": outcomes.incomplete},
        chance={"consistency_acc": TRIPLET_CHANCE, "order1_acc": ORDER_CHANCE, "order2_acc": ORDER_CHANCE},
    )
    if explanations:
        _add_explanations(outcome, records)
    if described:
        outcome.counts["items_without_descriptions"] = int(records[0]["items_without_descriptions"]) if records else 0
    return outcome


def describe_outcome(records: list[dict]) -> Outcome:
    """Image-to-text describe stage: the share of distinct images whose description was stored."""
    ids = [r["item_id"] for r in records]
    stored = np.array([r["described"] for r in records], dtype=bool)
    chars = np.array([r["description_chars"] for r in records], dtype=int)
    return Outcome(
        estimates={"described_rate": Estimate.mean(ids, stored)},
        counts={
            "images": len(records),
            "described": int(stored.sum()),
            "premises": sum(1 for r in records if r["role"] == "premise"),
            "mean_description_chars": int(round(chars[stored].mean())) if stored.any() else 0,
        },
    )


def explained_items(records: list[dict]) -> list[dict]:
    """One explanation per item right in at least one order, as Table 10 counts them ("the explanations associated
    with correct plausibility prediction", one per item): the original order's when it is right, else the swapped
    order's. The paper does not say which order's explanation it judged when both are right; ours is fixed by the
    order alone, never by the verdict."""
    chosen: dict[str, dict] = {}
    for record in records:
        if not record["correct"]:
            continue
        held = chosen.get(record["item_id"])
        if held is None or (held["swapped"] and not record["swapped"]):
            chosen[record["item_id"]] = record
    return list(chosen.values())


def _add_explanations(outcome: Outcome, records: list[dict]) -> None:
    """§4.2 / Table 2 "Explanation Auto": share of the items right in at least one order whose judged explanation
    (:func:`explained_items`) the judge finds valid; the counts are items, as Table 10's.

    Without a configured judge the rate and the counts are None (one warning says how to configure one).
    """
    if not all(record["judge_configured"] for record in records):
        from abductive_tasks.scoring.judge import warn_not_configured

        warn_not_configured("NL-Eye explanation metrics")
        outcome.values["explanation_valid_rate"] = None
        outcome.counts |= {
            name: None
            for name in (
                "explanations_judged",
                "explanations_judge_failed",
                "explanations_judge_unparsable",
                "explanations_unjudgeable",
            )
        }
        return
    explained = explained_items(records)
    judged = [record for record in explained if record["explanation"] == OK]
    outcome.estimates["explanation_valid_rate"] = Estimate.mean(
        [r["item_id"] for r in judged], [r["explanation_valid"] for r in judged]
    )
    statuses = [record["explanation"] for record in explained]
    outcome.counts |= {
        "explanations_judged": statuses.count(OK),  # Table 10: number of evaluated explanations (items)
        "explanations_judge_failed": statuses.count(JUDGE_FAILED),
        "explanations_judge_unparsable": statuses.count(UNPARSABLE),
        "explanations_unjudgeable": statuses.count(NO_REFERENCE),
    }


@dataclass(frozen=True)
class PairScores:
    """Scores of the gold and the distractor hypothesis for each complete item (NaN = unparsable)."""

    item_ids: np.ndarray
    gold: np.ndarray
    distractor: np.ndarray
    incomplete: int

    def order_faithful(self) -> ItemOutcomes:
        """Correct only when the gold hypothesis scores strictly higher (A.3); ties and NaN are wrong."""
        return ItemOutcomes(self.item_ids, self.gold > self.distractor, self.incomplete)


def pair_scores(item_ids: Sequence[str], is_gold: Sequence[bool], scores: Sequence[float | None]) -> PairScores:
    """Collect each item's gold and distractor score from one document per hypothesis."""
    ids, codes = np.unique(np.asarray(item_ids, dtype=str), return_inverse=True)
    gold_mask = np.asarray(is_gold, dtype=bool)
    values = np.array([np.nan if s is None else s for s in scores], dtype=float)
    gold = np.full(len(ids), np.nan)
    distractor = np.full(len(ids), np.nan)
    has_gold = np.zeros(len(ids), dtype=bool)
    has_distractor = np.zeros(len(ids), dtype=bool)
    gold[codes[gold_mask]] = values[gold_mask]
    has_gold[codes[gold_mask]] = True
    distractor[codes[~gold_mask]] = values[~gold_mask]
    has_distractor[codes[~gold_mask]] = True
    complete = has_gold & has_distractor
    return PairScores(ids[complete], gold[complete], distractor[complete], int((~complete).sum()))


def rank_estimates(pairs: PairScores) -> dict[str, Estimate]:
    """Table 8 statistics over the items whose two scores were both parsed.

    ``rank_diff``: mean |gold - distractor|; ``equal_rank_rate``: share of ties;
    ``correct_rank_mean`` / ``wrong_rank_mean``: mean score of the gold / distractor hypothesis;
    ``gap_when_correct`` / ``gap_when_wrong``: mean |gold - distractor| over items ordered
    right / not right (ties count as not right), so that
    rank_diff = acc * gap_when_correct + (1 - acc) * gap_when_wrong, as in Table 8.
    """
    parsed = ~(np.isnan(pairs.gold) | np.isnan(pairs.distractor))
    ids, gold, distractor = pairs.item_ids[parsed], pairs.gold[parsed], pairs.distractor[parsed]
    gap = np.abs(gold - distractor)
    right = gold > distractor
    return {
        "rank_diff": Estimate.mean(ids, gap),
        "equal_rank_rate": Estimate.mean(ids, gold == distractor),
        "correct_rank_mean": Estimate.mean(ids, gold),
        "wrong_rank_mean": Estimate.mean(ids, distractor),
        "gap_when_correct": Estimate.mean(ids[right], gap[right]),
        "gap_when_wrong": Estimate.mean(ids[~right], gap[~right]),
    }


def pairs_outcome(records: list[dict]) -> Outcome:
    """A.3 order-faithful accuracy (the gold hypothesis rated strictly higher), Table 8, Figure 6 breakdowns."""
    pairs = pair_scores(
        [r["item_id"] for r in records], [r["is_gold"] for r in records], [r["rating"] for r in records]
    )
    faithful = pairs.order_faithful()
    both = int((~(np.isnan(pairs.gold) | np.isnan(pairs.distractor))).sum())
    return Outcome(
        estimates={"order_faithful_acc": Estimate.mean(faithful.item_ids, faithful.correct), **rank_estimates(pairs)},
        breakdowns=_breakdowns(
            faithful, records, {f"faithful_by_{field.removeprefix('reasoning_')}": field for field in BREAKDOWNS}
        ),
        counts={
            "items_scored": len(faithful.item_ids),
            "items_incomplete": faithful.incomplete,
            "items_with_both_scores": both,
        },
        chance={"order_faithful_acc": PAIRS_CHANCE},
    )
