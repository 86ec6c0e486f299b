"""Sherlock metric kernels (paper §4, Table 2), equal to the official leaderboard scorers
(allenai/sherlock ``leaderboard_eval/score_{retrieval,localization,comparison}.py``) on the same scores.

Scores are plausibilities (higher = more plausible). Every kernel takes plain arrays; grouping
documents into chunks, images and inputs happens in :mod:`abductive_tasks.sherlock.hooks`.
"""

from __future__ import annotations

import lapjv
import numpy as np
from scipy.stats import rankdata

IOU_THRESHOLD = 0.5  # §4.2: a proposal is correct when its IoU with a true box is > 0.5
TIE_BREAK_SEED = 1  # score_comparison.pairwise_acc: np.random.seed(1); np.random.random(size=10) / 1e9
TIE_BREAK_SCALE = 1e-9


def as_submitted(scores: np.ndarray) -> np.ndarray:
    """Scores as the leaderboard receives them (a float32 ``.npy``), unparsable ones (NaN) set below every other score.

    Metrics run on these values, so they equal the official scorers' numbers on the exported submission.
    """
    values = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(values)
    lowest = values[finite].min() - 1.0 if finite.any() else 0.0
    return np.where(finite, values, lowest).astype(np.float32).astype(np.float64)


# ---------------------------------------------------------------- retrieval (§4.1)


def retrieval_metrics(sim: np.ndarray) -> dict[str, float | int]:
    """Mean rank of the true item im->txt (along rows) and txt->im (along columns), and P@1 (percent of rows ranked 1).

    ``sim`` is square: image-region rows, inference columns, the true pairs on the diagonal; tied
    scores share their average rank (``scipy.stats.rankdata``), as in the official scorer.
    """
    sim = np.asarray(sim, dtype=np.float64)
    im2txt = np.diagonal(rankdata(-sim, axis=1))
    txt2im = np.diagonal(rankdata(-sim, axis=0))
    return {"im2txt_rank": float(im2txt.mean()), "txt2im_rank": float(txt2im.mean()), "p_at_1": float(100 * np.mean(im2txt == 1.0)), "n": int(len(sim))}


# ---------------------------------------------------------------- localization (§4.2)


def localization_gt_accuracy(sim: np.ndarray) -> float:
    """Share of inferences given their own box by the maximum-score one-to-one assignment.

    ``sim[box, inference]``, the true box of inference ``j`` being box ``j`` (the diagonal). As the
    official ``get_region_sol``: ``lapjv.lapjv`` (src-d) on ``-sim``, which solves in float32 (score
    differences below float32 resolution are ties) and breaks exact ties by its own deterministic
    order (a constant matrix of size n >= 2 gets no box right).
    """
    box_to_inference, _inference_to_box, _duals = lapjv.lapjv(-np.asarray(sim, dtype=np.float64))
    return float(np.mean(box_to_inference == np.arange(len(box_to_inference))))


def localization_auto_correct(scores: np.ndarray, ious: np.ndarray, threshold: float = IOU_THRESHOLD) -> bool:
    """The highest-scoring proposal (the first on ties, in answer-key order) is correct when its IoU is > ``threshold``."""
    return bool(np.asarray(ious)[int(np.argmax(scores))] > threshold)


def localization_auto_oracle(ious: np.ndarray, threshold: float = IOU_THRESHOLD) -> bool:
    """Whether any proposal is correct: the upper bound of the auto-box setting (the official 'acc oracle bbox')."""
    return localization_auto_correct(ious, ious, threshold)


# ---------------------------------------------------------------- comparison (§4.3)


def tie_break_noise(n: int) -> np.ndarray:
    """The official fixed noise added by candidate position: ``np.random.seed(1); np.random.random(10) / 1e9``.

    The official scorer draws exactly 10 values (every input has at most 10 candidates); longer inputs continue the same stream.
    """
    return np.random.RandomState(TIE_BREAK_SEED).random_sample(max(10, n))[:n] * TIE_BREAK_SCALE


def pairwise_accuracy(prediction: np.ndarray, label: np.ndarray) -> float:
    """(correct / total - 0.5) * 2 over the candidate pairs whose labels differ (0 when none differ).

    A pair is correct when the tie-broken prediction orders it as the label does (official ``pairwise_acc``).
    """
    label = np.asarray(label, dtype=np.float64)
    tie_broken = np.asarray(prediction, dtype=np.float64) + tie_break_noise(len(label))
    first, second = np.triu_indices(len(label), k=1)
    differ = label[first] != label[second]
    total = int(differ.sum())
    if total == 0:
        return 0.0
    agree = (label[first] < label[second]) == (tie_broken[first] < tie_broken[second])
    return (int((agree & differ).sum()) / total - 0.5) * 2


def comparison_input_scores(model: np.ndarray, annot1: np.ndarray, annot2: np.ndarray) -> dict[str, float]:
    """One input's model, human-agreement and oracle scores, each annotator serving in turn as the label."""
    roles = ((annot1, annot2), (annot2, annot1))  # (the other annotator's ratings, label)
    oracle = (np.asarray(annot1, dtype=np.float64) + annot2) / 2
    return {
        "model": float(np.mean([pairwise_accuracy(model, label) for _, label in roles])),
        "human": float(np.mean([pairwise_accuracy(other, label) for other, label in roles])),
        "oracle": float(np.mean([pairwise_accuracy(oracle, label) for _, label in roles])),
    }
