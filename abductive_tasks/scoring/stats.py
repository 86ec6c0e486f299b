"""Confidence intervals by bootstrap over the benchmark's unit, and paired model comparisons.

Every metric this package reports is a function of per-unit additive statistics: a mean over
items is ``sum(x) / sum(1)``, an accuracy over updates grouped by premise-hypothesis pair is
``sum(correct) / sum(updates)`` over pairs, corpus BLEU is a function of summed n-gram counts.
An :class:`Estimate` holds those statistics, one row per unit (NL-Eye/MuCR item, DVE pair,
Sherlock image, input or chunk), so one bootstrap replicate is a multinomial reweighting of the
rows followed by one matrix product: vectorised, and the same code for every metric.

Intervals are percentile intervals of ``resamples`` replicates (``ABDUCTIVE_BOOTSTRAP``,
default 1000). A task's metrics are resampled together (:func:`intervals`): the metrics and
breakdown cells over the same units share one weight draw, seeded from ``ABDUCTIVE_BOOTSTRAP_SEED``,
the task and the unit ids, so an interval depends neither on the order metrics are computed in nor
on which other metrics share its units. ``stderr`` is the standard deviation of the replicates.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

Statistic = Callable[[np.ndarray], np.ndarray]  # summed statistics (..., k) -> metric values (...)
Units = Sequence[str] | np.ndarray  # one unit id per row
Values = Sequence[float] | np.ndarray  # one number per row
Key = TypeVar("Key", bound=Hashable)
LEVEL = 0.95
_MAX_CELLS = 4_000_000  # replicates x units drawn at once


def ratio(totals: np.ndarray) -> np.ndarray:
    """``totals[..., 0] / totals[..., 1]``; NaN where the denominator is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals[..., 1] > 0, totals[..., 0] / np.where(totals[..., 1] > 0, totals[..., 1], 1), np.nan)


@dataclass(frozen=True)
class Estimate:
    """A metric as ``statistic(sum of per-unit statistics)``, with the unit ids for paired comparisons."""

    units: np.ndarray  # (U,) unit ids, str
    stats: np.ndarray  # (U, k) additive statistics per unit
    statistic: Statistic = ratio
    scale: float = 1.0  # the reported value is statistic * scale (e.g. 100 for percentages)
    rows: int | None = None  # rows (documents) behind the units where a unit holds several (grouped_mean)

    @classmethod
    def mean(cls, units: Units, values: Values, scale: float = 1.0) -> Estimate:
        """The mean of one value per unit."""
        values = np.asarray(values, dtype=float)
        return cls(
            np.asarray(units, dtype=str), np.column_stack([values, np.ones(len(values))]).reshape(-1, 2), ratio, scale
        )

    @classmethod
    def grouped_mean(cls, units: Units, values: Values, scale: float = 1.0) -> Estimate:
        """The mean over rows, resampled by unit (a cluster bootstrap: rows of one unit stay together)."""
        ids, codes = np.unique(np.asarray(units, dtype=str), return_inverse=True)
        values = np.asarray(values, dtype=float)
        sums = np.bincount(codes, weights=values, minlength=len(ids))
        counts = np.bincount(codes, minlength=len(ids)).astype(float)
        return cls(ids, np.column_stack([sums, counts]).reshape(-1, 2), ratio, scale, rows=len(values))

    @property
    def n_units(self) -> int:
        return len(self.units)

    @property
    def n_rows(self) -> int:
        """The rows the metric is computed over (the units themselves unless a unit groups several)."""
        return self.n_units if self.rows is None else self.rows

    @property
    def value(self) -> float | None:
        """The metric on the data itself; None when it is undefined (no unit, or a zero denominator)."""
        if not self.n_units:
            return None
        value = float(self.statistic(self.stats.sum(axis=0))) * self.scale
        return value if np.isfinite(value) else None

    def replicates(self, resamples: int, seed: int) -> np.ndarray:
        """``resamples`` bootstrap values of the metric (NaN where a resample leaves it undefined)."""
        return _replicates([self], resamples, seed)[0]


def _weights(rng: np.random.Generator, units: int, size: int) -> np.ndarray:
    """``size`` bootstrap weight rows over ``units`` units: how often each unit is drawn in ``units`` draws with
    replacement (a multinomial with equal probabilities), as counts of uniform draws."""
    draws = rng.integers(0, units, size=(size, units)) + units * np.arange(size)[:, None]
    return np.bincount(draws.ravel(), minlength=size * units).reshape(size, units).astype(float)


def _replicates(estimates: Sequence[Estimate], resamples: int, seed: int) -> list[np.ndarray]:
    """Bootstrap replicates of estimates that share their units (same rows, same order): one weight draw for all."""
    n = estimates[0].n_units
    rng = np.random.default_rng(seed)
    out = [np.empty(resamples) for _ in estimates]
    step = max(1, _MAX_CELLS // max(n, 1))
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        weights = _weights(rng, n, size)
        for estimate, values in zip(estimates, out, strict=True):
            values[start : start + size] = estimate.statistic(weights @ estimate.stats) * estimate.scale
    return out


def seed_for(base: int, *names: str) -> int:
    """A seed for one metric: the base seed and the metric's names, independent of computation order."""
    return (base * 1_000_003 + zlib.crc32("\0".join(names).encode())) % 2**32


@dataclass(frozen=True)
class Interval:
    lower: float | None
    upper: float | None
    stderr: float | None
    units: int
    resamples: int

    def as_dict(self) -> dict:
        return {
            "lower": self.lower,
            "upper": self.upper,
            "stderr": self.stderr,
            "units": self.units,
            "resamples": self.resamples,
        }


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _percentile_interval(estimate: Estimate, values: np.ndarray, resamples: int, level: float) -> Interval:
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return Interval(None, None, None, estimate.n_units, resamples)
    tail = (1 - level) / 2 * 100
    lower, upper = np.percentile(values, [tail, 100 - tail])
    return Interval(_finite(lower), _finite(upper), _finite(np.std(values, ddof=1)), estimate.n_units, resamples)


def _resamplable(estimate: Estimate, resamples: int) -> bool:
    return resamples > 0 and estimate.n_units >= 2 and estimate.value is not None


def interval(estimate: Estimate, resamples: int, seed: int, level: float = LEVEL) -> Interval:
    """Percentile bootstrap interval and standard error of ``estimate``; all None when it cannot be resampled."""
    if not _resamplable(estimate, resamples):
        return Interval(None, None, None, estimate.n_units, 0)
    return _percentile_interval(estimate, estimate.replicates(resamples, seed), resamples, level)


def intervals(
    estimates: Mapping[Key, Estimate], resamples: int, seed: Callable[[list[str]], int], level: float = LEVEL
) -> dict[Key, Interval]:
    """:func:`interval` of every estimate, those over the same units (same ids, same order) resampled with one
    weight draw, seeded ``seed(unit ids)``: the draws of a unit set do not depend on which metrics use it."""
    by_units: dict[tuple[str, ...], list[Key]] = {}
    results: dict[Key, Interval] = {}
    for key, estimate in estimates.items():
        if _resamplable(estimate, resamples):
            by_units.setdefault(tuple(estimate.units.tolist()), []).append(key)
        else:
            results[key] = Interval(None, None, None, estimate.n_units, 0)
    for units, keys in by_units.items():
        replicates = _replicates([estimates[key] for key in keys], resamples, seed(list(units)))
        for key, values in zip(keys, replicates, strict=True):
            results[key] = _percentile_interval(estimates[key], values, resamples, level)
    return {key: results[key] for key in estimates}


def _aligned(estimate: Estimate, units: np.ndarray) -> Estimate:
    order = {unit: row for row, unit in enumerate(estimate.units)}
    return Estimate(units, estimate.stats[[order[unit] for unit in units]], estimate.statistic, estimate.scale)


@dataclass(frozen=True)
class PairedDifference:
    """``a - b`` on the units both models were scored on, with a paired bootstrap interval and p-value."""

    difference: float | None
    lower: float | None
    upper: float | None
    p_value: float | None
    units: int
    resamples: int

    def as_dict(self) -> dict:
        return {key: getattr(self, key) for key in ("difference", "lower", "upper", "p_value", "units", "resamples")}


def paired_difference(a: Estimate, b: Estimate, resamples: int, seed: int, level: float = LEVEL) -> PairedDifference:
    """Difference of two models' metric on their common units; both resampled with the same draws.

    The p-value is the two-sided bootstrap test of no difference: the share of replicates of the
    centred difference at least as far from 0 as the observed one (with the usual +1 correction).
    """
    return paired_differences(a, [b], resamples, seed, level)[0]


def paired_differences(
    a: Estimate, others: Sequence[Estimate], resamples: int, seed: int, level: float = LEVEL
) -> list[PairedDifference]:
    """:func:`paired_difference` of ``a`` and each of ``others``, the same numbers at a fraction of the cost: the
    draws depend on the seed and the number of common units only, so the pairs on the same common units share one
    weight draw, and ``a``'s replicates on them."""
    found: list[PairedDifference | None] = [None] * len(others)
    pairs: dict[int, tuple[Estimate, Estimate]] = {}
    groups: dict[tuple[str, ...], list[int]] = {}  # common units -> the pairs on them
    for index, b in enumerate(others):
        common = np.intersect1d(a.units, b.units)
        pair = _aligned(a, common), _aligned(b, common)
        if pair[0].value is None or pair[1].value is None:
            found[index] = PairedDifference(None, None, None, None, len(common), 0)
        elif resamples <= 0 or len(common) < 2:
            found[index] = PairedDifference(pair[0].value - pair[1].value, None, None, None, len(common), 0)
        else:
            pairs[index] = pair
            groups.setdefault(tuple(common.tolist()), []).append(index)
    for indices in groups.values():
        values_a, *values_others = _replicates([pairs[indices[0]][0], *(pairs[i][1] for i in indices)], resamples, seed)
        for index, values_b in zip(indices, values_others, strict=True):
            found[index] = _paired(*pairs[index], values_a - values_b, resamples, level)
    return found  # type: ignore[return-value]  # every entry set above


def _paired(a: Estimate, b: Estimate, differences: np.ndarray, resamples: int, level: float) -> PairedDifference:
    """The paired difference of ``a`` and ``b`` (aligned on their common units) from its bootstrap replicates."""
    observed = a.value - b.value  # type: ignore[operator]  # both defined: checked by the caller
    differences = differences[np.isfinite(differences)]
    tail = (1 - level) / 2 * 100
    lower, upper = np.percentile(differences, [tail, 100 - tail])
    extreme = np.abs(differences - observed) >= abs(observed) - 1e-12
    p_value = (1 + int(extreme.sum())) / (len(differences) + 1)
    return PairedDifference(observed, float(lower), float(upper), min(1.0, p_value), a.n_units, resamples)
