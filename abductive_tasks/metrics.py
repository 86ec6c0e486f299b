"""Metric kernels: pure, vectorised functions over per-document arrays.

Multi-document metrics group documents by an explicit item id; an item is scored only when
all of its documents are present (``--limit`` can cut an item apart), and the number of
incomplete items is reported beside the score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def mean_or_none(values: np.ndarray) -> float | None:
    """Mean of ``values`` as a float, ``None`` when there are none."""
    return float(np.mean(values)) if len(values) else None


@dataclass(frozen=True)
class ItemOutcomes:
    """Per-item correctness for the complete items, in sorted item-id order."""

    item_ids: np.ndarray
    correct: np.ndarray
    incomplete: int

    @property
    def accuracy(self) -> float | None:
        return mean_or_none(self.correct)


def consistency_outcomes(item_ids: Sequence[str], orders: Sequence[int], correct: Sequence[bool], n_orders: int = 2) -> ItemOutcomes:
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


def accuracy_by(groups: Sequence[str], correct: np.ndarray) -> dict[str, dict[str, float | int]]:
    """Accuracy and item count per group label, labels sorted."""
    labels, codes = np.unique(np.asarray(groups, dtype=str), return_inverse=True)
    counts = np.bincount(codes, minlength=len(labels))
    hits = np.bincount(codes, weights=np.asarray(correct, dtype=float), minlength=len(labels))
    return {str(label): {"acc": float(h / n), "n": int(n)} for label, h, n in zip(labels, hits, counts, strict=True)}


def weighted_part_means(scores: np.ndarray, weights: Sequence[float]) -> tuple[list[float | None], float | None]:
    """Column means of an (items x parts) score array and their weighted sum (MuCR Eq. 9: sum_i lambda_i S_i).

    Every row must hold all its part scores; with no rows every value is ``None``.
    """
    scores = np.asarray(scores, dtype=float).reshape(-1, len(weights))
    if not len(scores):
        return [None] * len(weights), None
    means = scores.mean(axis=0)
    return [float(mean) for mean in means], float(means @ np.asarray(weights, dtype=float))
