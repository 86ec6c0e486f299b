"""MuCR metrics ("Evaluation Metrics", Eq. 1-9): pure functions of the per-document records.

One document per cause-effect pair in every task, so the pair is the unit of every interval.

Choice records (C2E, E2C, Cue): ``item_id``, ``label``, ``style``, ``candidate_rule`` (C2E/E2C),
``gold_position``, ``prediction`` (None when unreadable or the request failed), ``correct``.
Exp records: ``item_id``, ``judge_configured``, ``labelled`` (None for a failed request), per part
k = 1..3 the judge score ``s<k>`` and its status ``s<k>_status``, and the offline similarity ``o<k>``.
Every record also carries the loader's counts (``data.LOAD_COUNTS``: ``no_link_id``), reported in the counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from abductive_tasks.mucr.data import CANDIDATE_RULES, LOAD_COUNTS
from abductive_tasks.scoring.judge import JUDGE_FAILED, OK, UNPARSABLE
from abductive_tasks.scoring.stats import Estimate
from abductive_tasks.scoring.taskspec import REQUEST_FAILED, UPSTREAM_MISSING, Outcome

Records = list[dict]
CHANCE = 0.25  # one of four options at random (Table 1 "Random": 25.00 for C2E, E2C and Cue)
BREAKDOWNS = ("label", "style")  # Figure 9: category and style
EXP_WEIGHTS = np.array([0.25, 0.25, 0.5])  # lambda_1..3 of Eq. (9) (Experimental Setup)
PARTS = ("cause image", "effect image", "causal link")  # order of Eq. (6)-(8)
# Part statuses that enter the means: a failed request, and an item never asked for want of its picks (Eq. 5), score
# 0 unasked.
SCORED = (OK, REQUEST_FAILED, UPSTREAM_MISSING)
OFFLINE_METRICS = "MuCR exp_offline_* (offline similarity)"  # S1-S3 and Exp without a judge, in the warnings


def load_counts_of(records: Records) -> dict[str, int]:
    """The loader's counts (:data:`~abductive_tasks.mucr.data.LOAD_COUNTS`) every record carries: one per data
    source, read from the first record (0 without records)."""
    return {name: int(records[0][name]) if records else 0 for name in LOAD_COUNTS}


# ---------------------------------------------------------------- C2E, E2C, Cue (Eq. 1-4)


def choice_outcome(level: str) -> Callable[[Records], Outcome]:
    """The computation of one choice level (``c2e``, ``e2c`` or ``cue``): accuracy over pairs, Figure 9 breakdowns."""

    def compute(records: Records) -> Outcome:
        ids = np.array([record["item_id"] for record in records], dtype=str)
        correct = np.array([record["correct"] for record in records], dtype=bool)
        breakdowns = {}
        for field in BREAKDOWNS:
            labels = np.array([record[field] for record in records], dtype=str)
            breakdowns[f"{level}_acc_by_{field}"] = {
                str(label): Estimate.mean(ids[labels == label], correct[labels == label]) for label in np.unique(labels)
            }
        counts: dict[str, int | None] = {"items_scored": len(np.unique(ids)), **load_counts_of(records)}
        if level != "cue":  # how each pair's C2E/E2C candidate set was chosen (data.candidate_sets)
            rule_of = {record["item_id"]: record["candidate_rule"] for record in records}
            counts |= {
                f"candidates_{rule}": sum(value == rule for value in rule_of.values()) for rule in CANDIDATE_RULES
            }
        return Outcome(
            estimates={f"{level}_accuracy": Estimate.mean(ids, correct)},  # Eq. (2) / (4) over pairs
            breakdowns=breakdowns,
            counts=counts,
            chance={f"{level}_accuracy": CHANCE},
        )

    compute.__qualname__ = f"{level}_outcome"
    return compute


# ---------------------------------------------------------------- Exp (Eq. 5-9)

_PART_LABEL = re.compile(r"\b(cause image|effect image|causal link)\b\s*[*_]*\s*:\s*[*_]*", re.IGNORECASE)
_PART_MARKUP = " \t\n*_#-"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_EFFECT_SENTENCE = re.compile(r"\b(?:second|effect|other|next|right)\s+(?:image|picture|panel)\b", re.IGNORECASE)
_LINK_SENTENCE = re.compile(
    r"\b(?:caus\w*|connection|link\w*|relationship|reason\w*|because|led|leads|result\w*|therefore)\b", re.IGNORECASE
)


def split_explanation(text: str) -> tuple[tuple[str, str, str], bool]:
    """Split an explanation into (cause image, effect image, causal link) parts; say whether it was labelled.

    A labelled answer ("Cause image: ... Effect image: ... Causal link: ...", the form the Exp
    prompt asks for) is cut at its labels. Otherwise sentences are grouped as the annotations
    are written (paper: cause image, then effect image, then the causal link): the cause part
    runs up to the first later sentence naming the second/effect image, the effect part up to
    the next sentence stating the link (caused, led, connection, ...). Failing that, three or
    more sentences give the first, the second and the rest; a shorter text is used whole for
    every part.
    """
    found: dict[str, re.Match[str]] = {}
    for match in _PART_LABEL.finditer(text):
        found.setdefault(match.group(1).lower(), match)
    if len(found) == len(PARTS):
        starts = [found[part] for part in PARTS]
        if starts[0].start() < starts[1].start() < starts[2].start():
            ends = [starts[1].start(), starts[2].start(), len(text)]
            parts = tuple(text[start.end() : end].strip(_PART_MARKUP) for start, end in zip(starts, ends, strict=True))
            return parts, True  # type: ignore[return-value]
    sentences = [sentence for sentence in _SENTENCE_END.split(text.strip()) if sentence]
    effect_at = next((i for i, sentence in enumerate(sentences) if i > 0 and _EFFECT_SENTENCE.search(sentence)), None)
    link_at = next(
        (
            i
            for i, sentence in enumerate(sentences)
            if effect_at is not None and i > effect_at and _LINK_SENTENCE.search(sentence)
        ),
        None,
    )
    if effect_at is not None and link_at is not None:
        bounds = (0, effect_at, link_at, len(sentences))
    elif len(sentences) >= len(PARTS):
        bounds = (0, 1, 2, len(sentences))
    else:
        whole = text.strip()
        return (whole, whole, whole), False
    return tuple(" ".join(sentences[bounds[k] : bounds[k + 1]]) for k in range(len(PARTS))), False  # type: ignore[return-value]


def weighted_parts(totals: np.ndarray) -> np.ndarray:
    """Eq. (9) on summed statistics ``(..., 4)`` = (sum S1, sum S2, sum S3, pairs): sum_i lambda_i S_i;
    NaN without pairs."""
    pairs = totals[..., 3]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, (totals[..., :3] @ EXP_WEIGHTS) / np.where(pairs > 0, pairs, 1), np.nan)


def part_estimates(prefix: str, item_ids: Sequence[str], scores: np.ndarray) -> dict[str, Estimate]:
    """S1-S3 (Eq. 6-8: mean part scores over pairs) and Exp (Eq. 9) over the same pairs.

    Exp is one estimate over the summed part scores, so Exp = 0.25 S1 + 0.25 S2 + 0.5 S3 holds
    for the reported values and within every bootstrap replicate.
    """
    ids = np.asarray(item_ids, dtype=str)
    scores = np.asarray(scores, dtype=float).reshape(-1, len(PARTS))
    estimates = {f"{prefix}s{k + 1}": Estimate.mean(ids, scores[:, k]) for k in range(len(PARTS))}
    estimates[f"{prefix}score"] = Estimate(
        ids, np.column_stack([scores, np.ones(len(ids))]).reshape(-1, len(PARTS) + 1), weighted_parts
    )
    return estimates


def _scores(records: Records, key: str) -> np.ndarray:
    return np.array([[record[f"{key}{k}"] for k in (1, 2, 3)] for record in records], dtype=float).reshape(
        -1, len(PARTS)
    )


def exp_outcome(records: Records) -> Outcome:
    """S1-S3 and Exp with the LLM judge, or their offline-similarity stand-ins without one.

    With a judge, the means run over the pairs whose three parts were all scored: judged, or a
    failed request or an item without its picks (0 for every part, no judge question). Pairs with a failed or
    unreadable judge
    verdict are left out and counted. Without a judge the judge metrics are None (one warning)
    and the offline similarity is reported over the pairs it scored.
    """
    answered = [record for record in records if record["answer_status"] not in (REQUEST_FAILED, UPSTREAM_MISSING)]
    outcome = Outcome(
        # Answers without the three labelled parts the prompt asks for (split by sentences instead).
        values={
            "exp_unlabelled_rate": float(np.mean([not record["labelled"] for record in answered])) if answered else None
        },
        counts={"items_scored": len({record["item_id"] for record in records}), **load_counts_of(records)},
    )
    statuses = [{record[f"s{k}_status"] for k in (1, 2, 3)} for record in records]
    configured = all(record["judge_configured"] for record in records)
    if configured:
        judged = [record for record, seen in zip(records, statuses, strict=True) if seen <= set(SCORED)]
        outcome.estimates |= part_estimates("exp_", [record["item_id"] for record in judged], _scores(judged, "s"))
    else:
        from abductive_tasks.scoring.judge import warn_not_configured

        warn_not_configured("MuCR S1/S2/S3/Exp", offline=OFFLINE_METRICS)
        judged = []
        outcome.values |= {name: None for name in ("exp_s1", "exp_s2", "exp_s3", "exp_score")}
    outcome.counts |= {
        "items_judged": len(judged),  # the pairs S1-S3 and Exp average over (failed requests included, at 0)
        "items_judge_asked": len(answered) if configured else 0,  # the pairs whose explanation went to the judge
        "items_judge_failed": sum(JUDGE_FAILED in seen for seen in statuses),
        "items_judge_unparsable": sum(UNPARSABLE in seen and JUDGE_FAILED not in seen for seen in statuses),
    }
    offline = [record for record in records if all(record[f"o{k}"] is not None for k in (1, 2, 3))]
    if offline:
        outcome.estimates |= part_estimates(
            "exp_offline_", [record["item_id"] for record in offline], _scores(offline, "o")
        )
    else:
        outcome.values |= {
            name: None for name in ("exp_offline_s1", "exp_offline_s2", "exp_offline_s3", "exp_offline_score")
        }
    outcome.counts["items_offline_scored"] = len(offline)
    return outcome


# Counted in every Exp-on-own-picks document: why items were not asked (their effect or cue pick is missing from the
# C2E / Cue run, its request failed, or its reply gave no option); each such item scores 0 (items_missing_upstream).
# items_without_picks: items beyond the --limit of the picks' run read under plain lmms-eval, which does not say its
# own --limit: left out, not scored, and said (the run is partial: scoring.coverage.DROPPED_COUNTS).
PICK_COUNTS = (
    "c2e_picks_missing",
    "c2e_picks_failed",
    "c2e_picks_unreadable",
    "cue_picks_missing",
    "cue_picks_failed",
    "cue_picks_unreadable",
    "items_without_picks",
)


def exp_own_outcome(records: Records) -> Outcome:
    """Exp on the model's own picks (Eq. 5): :func:`exp_outcome` over every item, those without a readable pick at 0
    (their records: ``answer_status`` upstream_missing), with why picks were missing and the items asked with a wrong
    effect / cue pick counted."""
    outcome = exp_outcome(records)
    asked = [record for record in records if record["answer_status"] != UPSTREAM_MISSING]
    outcome.counts |= {name: int(records[0][name]) if records else 0 for name in PICK_COUNTS}
    outcome.counts |= {
        "items_effect_pick_wrong": sum(not record["effect_pick_correct"] for record in asked),
        "items_cue_pick_wrong": sum(not record["cue_pick_correct"] for record in asked),
    }
    return outcome
