"""Ranking and statistics: the average column, ranks, each task's best model and those statistically tied with it,
and the paired comparison of two models, from the cells' samples."""

from __future__ import annotations

from dataclasses import dataclass, field

from abductive_tasks.lmms_source import samples_path
from abductive_tasks.reports.compare import CompareError, Ties, estimate_from_run, paired, ties_with_best
from abductive_tasks.reports.leaderboard.cells import Leaderboard, status
from abductive_tasks.reports.specs import metric_proportion
from abductive_tasks.runs.catalog import heading
from abductive_tasks.scoring.stats import Estimate

# ---------------------------------------------------------------- paired statistics from the samples


@dataclass
class Statistics:
    """What the runs' samples add: each task's best model(s) and who is tied with them; what could not be computed."""

    estimates: dict[tuple[str, str], Estimate] = field(default_factory=dict)  # (model, task) -> headline Estimate
    problems: dict[tuple[str, str], str] = field(default_factory=dict)  # (model, task) -> why there is no Estimate
    ties: dict[str, Ties] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def tied(self, model: str, task: str) -> bool | None:
        """True for the best and those tied with it, False for the others, None when unknown."""
        ties = self.ties.get(task)
        return None if ties is None else ties.tied(model)


def statistics(board: Leaderboard) -> Statistics:
    """Headline Estimates from every scored cell's samples JSONL (checked against the reported value by
    :func:`collect`), and ties with the best, within each protocol's rows (:meth:`Leaderboard.protocol`)."""
    found = Statistics()
    unlogged = set()  # cells whose run wrote no samples file
    for model in board.rows:
        for task in board.tasks:
            value, source = board.value(model, task), board.sources.get(model, {}).get(task)
            if value is None or source is None:
                continue
            if (model, task) in board.estimates:
                found.estimates[(model, task)] = board.estimates[(model, task)]
                continue
            unlogged |= set() if samples_path(source, task).is_file() else {(model, task)}
            try:
                found.estimates[(model, task)] = estimate_from_run(
                    samples_path(source, task), board.headline[task], value
                )
            except CompareError as error:
                found.problems[(model, task)] = str(error)
    if found.problems and not found.estimates and unlogged == set(found.problems):
        found.notes.append(
            "Ties with the best not computed: no run logged its samples (add `eval_args: [--log_samples]` to the "
            "batch spec and rerun)."
        )
    else:
        models_of: dict[str, list[str]] = {}
        for model, task in found.problems:
            models_of.setdefault(task, []).append(model)
        found.notes += [
            f"{task}: {', '.join(models)} not compared with the best: {found.problems[(models[0], task)]}"
            for task, models in models_of.items()
        ]
    found.notes += settings_notes(board)
    for task in board.tasks:
        groups = board.data_groups(task)
        if len(groups) > 1:
            found.notes.append(
                f"{task}: rows ran on different data ("
                + "; ".join(
                    f"{label}: {', '.join(m for m in board.rows if board.data_group(m, task) == label)}"
                    for label in groups.values()
                )
                + "); each is ranked and compared only with the rows on its own data"
            )
        readers = [
            model for model in board.rows if board.read_from(model, task) and board.value(model, task) is not None
        ]
        if readers:
            found.notes.append(
                f"{task}: "
                + "; ".join(f"{model} read {_sources(board.read_from(model, task))}" for model in readers)
                + ", not its own: a protocol of its own, compared only with the rows that read the same and never "
                "averaged"
            )
        protocols = {model: board.protocol(model, task) for model in board.rows}
        merged: Ties | None = None
        for key in dict.fromkeys(protocols.values()):
            ties = _ties_among(board, found, task, [model for model in board.rows if protocols[model] == key])
            if ties is not None:
                merged = (
                    ties if merged is None else Ties(merged.best + ties.best, merged.comparisons | ties.comparisons)
                )
        if merged is not None and board.bold_best(task):  # an upper bound's or a coverage's best is no best model
            found.ties[task] = merged
    return found


def settings_notes(board: Leaderboard) -> list[str]:
    """Per benchmark, the note saying its rows ran with different score settings or judges (those that can change its
    scores), each group's rows named; [] when each benchmark's rows all ran with the same."""
    notes = []
    for benchmark in dict.fromkeys(board.benchmarks[task] for task in board.tasks if task in board.benchmarks):
        groups = board.settings_versions(benchmark)
        rows = {
            label: [m for m in board.rows if groups.get(board.settings[m].get(benchmark, "")) == label]
            for label in groups.values()
        }
        named = "; ".join(f"{label}: {', '.join(models)}" for label, models in rows.items())
        notes += (
            [
                f"{heading(benchmark)}: rows ran with different score settings or judges ({named}): each is ranked and "
                "compared only with the rows of its own settings, as the header says"
            ]
            if groups
            else []
        )
    return notes


def _sources(read: dict[str, str]) -> str:
    """``{"descriptions": "dd"}`` as "the descriptions of dd"."""
    return " and ".join(f"the {kind} of {source}" for kind, source in sorted(read.items()))


def _ties_among(board: Leaderboard, found: Statistics, task: str, models: list[str]) -> Ties | None:
    """The best of ``models`` on ``task`` and who is tied with it; None when the best has no usable samples."""
    scored = {model: value for model in models if (value := board.value(model, task)) is not None}
    if not scored:
        return None
    top = (max if board.higher_is_better.get(task, True) else min)(scored.values())
    if any((model, task) not in found.estimates for model, value in scored.items() if value == top):
        return None  # the best has no usable samples: its problem is noted
    estimates = {model: found.estimates[(model, task)] for model in scored if (model, task) in found.estimates}
    return ties_with_best(task, board.headline[task], estimates, board.higher_is_better.get(task, True))


def compare_models(board: Leaderboard, found: Statistics, a: str, b: str) -> list[dict]:
    """Per task, ``a - b`` on the headline metric with its paired interval and p-value, or a note saying why not;
    ``upper_bound``: whether the task bounds the paper's number (:meth:`~Leaderboard.upper_bound`); ``caveat``: what
    the column is where not a score of the benchmark's protocol (:meth:`~Leaderboard.caveat`)."""

    def unpaired(task: str, metric: str, note: str) -> dict:
        """A row for a task the two models cannot be compared on, with the reason."""
        values = {"value_a": board.value(a, task), "value_b": board.value(b, task)}
        return {"task": task, "metric": metric, "a": a, "b": b, **values, "note": note}

    rows = []
    for task in board.tasks:
        metric = board.headline[task]
        estimate_a, estimate_b = found.estimates.get((a, task)), found.estimates.get((b, task))
        data = {board.data.get(model, {}).get(task) for model in (a, b)}
        if None not in data and len(data) > 1:  # a task one of them did not run is said so below
            note = "not compared: the two ran on different data (their data fingerprints differ)"
            rows.append(unpaired(task, metric, note))
            continue
        if board.settings_of(a, task) != board.settings_of(b, task):
            note = "not compared: the two ran with different score settings or judges (as the header says)"
            rows.append(unpaired(task, metric, note))
            continue
        if board.read_from(a, task) != board.read_from(b, task):
            read = "; ".join(f"{model}: {_sources(board.read_from(model, task)) or 'its own'}" for model in (a, b))
            rows.append(unpaired(task, metric, f"not compared: the two read different outputs ({read})"))
            continue
        if estimate_a is not None and estimate_b is not None:
            rows.append(paired(task, metric, (a, estimate_a), (b, estimate_b)).as_row())
            continue
        why = [
            f"{model}: {found.problems.get((model, task)) or status(board, model, task)}"
            for model in (a, b)
            if (model, task) not in found.estimates
        ]
        rows.append(unpaired(task, metric, "; ".join(why)))
    return [{**row, **flags(board, row["task"])} for row in rows]


def flags(board: Leaderboard, task: str) -> dict[str, bool | str]:
    """What every export says of a task's column, as the tables label it: ``upper_bound`` (it bounds the paper's
    number) and ``caveat`` (an upper bound, a stage's coverage or upstream only; '' for a score of the protocol)."""
    return {"upper_bound": board.upper_bound(task), "caveat": board.caveat(task)}


COMPARE_COLUMNS = [
    "task",
    "metric",
    "upper_bound",  # the task bounds the paper's number (mucr_exp_gold), as the tables label it: never averaged
    "caveat",  # what the column is where not a score of the protocol, as the tables label it: never averaged
    "a",
    "b",
    "value_a",
    "value_b",
    "difference",
    "lower",
    "upper",
    "p_value",
    "units",
    "resamples",
    "tied",
    "note",
]


def ranked_tasks(board: Leaderboard) -> list[str]:
    """The tasks whose headline is a score of the benchmark's protocol: not a bound on the paper's number
    (mucr_exp_gold) nor a stage's coverage (nleye_describe's described_rate), and asked by the spec (not run only as
    another task's upstream, :attr:`~Leaderboard.upstream_only`); only these are averaged or ranked by."""
    left_out = board.upper_bounds | board.stages | board.upstream_only
    return [task for task in board.tasks if task not in left_out]


def average_tasks(board: Leaderboard) -> list[str]:
    """The tasks the average column spans: of :func:`ranked_tasks`, headlines that are shares of units (accuracies,
    0-100%; not a signed score such as Sherlock's comparison accuracy) where higher is better that some row has a
    score on (none when fewer than 2)."""
    tasks = [
        task
        for task in ranked_tasks(board)
        if board.percent(task)
        and metric_proportion(board.headline[task], task)
        and board.higher_is_better.get(task, True)
        and any(board.shown(model, task)[0] is not None for model in board.rows)
    ]
    return tasks if len(tasks) >= 2 else []


def average(board: Leaderboard, model: str) -> float | None:
    """The model's mean headline over :func:`average_tasks`, in percent; None unless it has a score on each of
    them, each on the main protocol (the data most rows ran on, its own outputs read: a mean over other tasks, other
    data or another model's outputs would not rank it fairly)."""
    tasks = average_tasks(board)
    values = [board.shown(model, task)[0] for task in tasks]
    if not tasks or any(value is None for value in values):
        return None
    if not all(board.main_protocol(model, task) for task in tasks):
        return None
    return sum(values) / len(values)


def ranking(board: Leaderboard) -> dict[str, str]:
    """Each row's rank by the average column (or, without one, the first of :func:`ranked_tasks`' headline, on its
    direction); equal values (as printed) share a rank marked ``=``; rows without a value rank "—"."""
    tasks, ranked = average_tasks(board), ranked_tasks(board)
    if tasks:
        keys, higher = {model: average(board, model) for model in board.rows}, True
    elif ranked:
        task = ranked[0]
        higher = board.higher_is_better.get(task, True)
        keys = {
            model: board.shown(model, task)[0] if board.main_protocol(model, task) else None for model in board.rows
        }
    else:
        return dict.fromkeys(board.rows, "—")
    printed = {model: round(key, 1) for model, key in keys.items() if key is not None}
    ordered = sorted(printed.values(), reverse=higher)
    ranks = {}
    for model in board.rows:
        if model not in printed:
            ranks[model] = "—"
            continue
        rank = ordered.index(printed[model]) + 1
        ranks[model] = f"{rank}=" if ordered.count(printed[model]) > 1 else str(rank)
    return ranks
