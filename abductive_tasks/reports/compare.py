"""Paired model comparisons on the same units, from each run's per-sample records.

Two models scored on the same benchmark answered the same items, so their difference is measured
far more precisely than two separate intervals suggest: :func:`paired` resamples the units both
models were scored on (NL-Eye/MuCR item, DVE premise-hypothesis pair, Sherlock image or chunk)
with one set of draws for both (:func:`abductive_tasks.scoring.stats.paired_difference`) and gives the
difference ``a - b``, its 95% percentile interval and a two-sided bootstrap p-value.

The per-unit statistics come from the task spec's ``compute`` on the records of the samples
JSONL (:mod:`abductive_tasks.reports.samples`); :func:`headline_estimate` checks that they give the value
the results JSON reports, so a comparison never rests on records that are not the reported run's.
:func:`ties_with_best` marks, per task, the models whose paired interval of the difference to the
best model includes 0 (no correction for the several comparisons: a screening aid, not a test
of each model).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.reports.samples import Samples, SamplesError, read_samples
from abductive_tasks.scoring.judge import not_computed_warnings_muted
from abductive_tasks.scoring.stats import Estimate, PairedDifference, paired_differences, seed_for

TOLERANCE = 1e-9  # relative: a recomputed value must equal the reported one up to float noise
# Below this many common units a paired bootstrap says little: n units resample into few distinct differences (two
# units that differ alike give every replicate the same difference, p = 1 / (resamples + 1)).
FEW_UNITS = 20


class CompareError(ValueError):
    """Records that cannot give the reported metric; the message says which file and why."""


class Inconsistent(CompareError):
    """Records that give another value than the results file reports (an edited file, or another run's samples)."""


def headline_estimate(samples: Samples, metric: str, reported: float | None) -> Estimate:
    """The Estimate of ``metric`` from a run's samples, checked against the value its results JSON reports."""
    with not_computed_warnings_muted():  # no model runs here: the run's own log said what it could not compute
        estimate = samples.spec.compute(samples.records).estimates.get(metric)
    if estimate is None:
        raise CompareError(f"{samples.path}: {samples.spec.name} gives no interval-bearing estimate of {metric!r}")
    value = estimate.value
    if reported is None or value is None or not math.isclose(value, reported, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
        raise Inconsistent(
            f"{samples.path}: its records give {metric} = {value}, the results file reports {reported} "
            "(different settings or files?)"
        )
    return estimate


def estimate_from_run(samples_file: Path, metric: str, reported: float | None) -> Estimate:
    """:func:`headline_estimate` of a samples JSONL; :class:`CompareError` when it is missing or does not reproduce."""
    if not Path(samples_file).is_file():
        raise CompareError(f"{samples_file}: no samples file (run the evaluation with --log_samples)")
    try:
        return headline_estimate(read_samples(samples_file), metric, reported)
    except SamplesError as error:
        raise CompareError(str(error)) from None


@dataclass(frozen=True)
class Paired:
    """``a - b`` on one task's metric, on the units both were scored on."""

    task: str
    metric: str
    a: str
    b: str
    value_a: float | None  # each model's reported value (all its units)
    value_b: float | None
    units_a: int
    units_b: int
    result: PairedDifference

    @property
    def tied(self) -> bool | None:
        """Whether the interval of the difference includes 0 (None without an interval)."""
        if self.result.lower is None or self.result.upper is None:
            return None
        return self.result.lower <= 0 <= self.result.upper

    @property
    def note(self) -> str:
        """What a reader must know about the units compared ('' when both models covered the same, enough of them)."""
        common = self.result.units
        notes = []
        if common != self.units_a or common != self.units_b:
            notes.append(
                f"difference on the {common} units both were scored on ({self.a}: {self.units_a}, {self.b}: "
                f"{self.units_b})"
            )
        if self.result.p_value is not None and common < FEW_UNITS:
            notes.append(
                f"only {common} units: their resamples take few values, so the interval and p-value are not to be "
                "trusted (2 units that differ alike give the smallest p there is)"
            )
        return "; ".join(notes)

    def as_row(self) -> dict:
        return {
            "task": self.task,
            "metric": self.metric,
            "a": self.a,
            "b": self.b,
            "value_a": self.value_a,
            "value_b": self.value_b,
            **self.result.as_dict(),
            "tied": self.tied,
            "note": self.note,
        }


def paired(task: str, metric: str, a: tuple[str, Estimate], b: tuple[str, Estimate]) -> Paired:
    """The paired difference of two models' ``metric`` on ``task`` (``ABDUCTIVE_BOOTSTRAP`` resamples).

    The draws depend on the task, the metric and the common units only, so ``a - b`` and ``b - a``
    mirror each other exactly.
    """
    return paired_with_each(task, metric, a, dict([b]))[b[0]]


def paired_with_each(task: str, metric: str, a: tuple[str, Estimate], others: dict[str, Estimate]) -> dict[str, Paired]:
    """:func:`paired` of ``a`` with each of ``others`` (model -> Estimate), the same values; the pairs on the same
    units share their draws (:func:`~abductive_tasks.scoring.stats.paired_differences`)."""
    name_a, estimate_a = a
    seed = seed_for(settings.bootstrap_seed(), "paired", task, metric)
    results = paired_differences(estimate_a, list(others.values()), settings.bootstrap_resamples(), seed)
    return {
        name_b: Paired(
            task,
            metric,
            name_a,
            name_b,
            estimate_a.value,
            estimate_b.value,
            estimate_a.n_units,
            estimate_b.n_units,
            result,
        )
        for (name_b, estimate_b), result in zip(others.items(), results, strict=True)
    }


@dataclass(frozen=True)
class Ties:
    """One task's best model(s) and each other model's paired comparison with the best."""

    best: list[str]
    comparisons: dict[str, Paired]  # other model -> best - other

    def tied(self, model: str) -> bool | None:
        """True for the best and those statistically tied with it, False for the others, None when unknown."""
        if model in self.best:
            return True
        comparison = self.comparisons.get(model)
        return None if comparison is None else comparison.tied


def ties_with_best(task: str, metric: str, estimates: dict[str, Estimate], higher_is_better: bool) -> Ties | None:
    """The best model on ``metric`` (ties in value: all of them) and each other model's difference to it: the first
    best's difference to every other model, those sharing its value included (a difference of 0, ``comparisons.csv``
    lists them, as ``--compare`` does).

    ``estimates``: the models with a value; None when there is none.
    """
    scored = {model: estimate for model, estimate in estimates.items() if estimate.value is not None}
    if not scored:
        return None
    pick = max if higher_is_better else min
    top = pick(estimate.value for estimate in scored.values())
    best = sorted(model for model, estimate in scored.items() if estimate.value == top)
    leader = best[0]
    others = {model: estimate for model, estimate in sorted(scored.items()) if model != leader}
    comparisons = paired_with_each(task, metric, (leader, scored[leader]), others)
    return Ties(best, comparisons)
