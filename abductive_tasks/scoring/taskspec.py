"""One specification per task family, from which its ``process_results`` and aggregations derive.

A :class:`TaskSpec` names what a family of tasks (e.g. NL-Eye's three triplet strategies) reads
from each reply, the small record it keeps per document, the metrics it reports and the one
computation they all share. lmms-eval then sees:

* ``process_results = SPEC.results_reader(answer, question)``, one per input strategy: the reply is
  checked (a failed request is never an answer), read with the document's answer kind (and, when
  the rules cannot read it and answer extraction is on, by the LLM judge), turned into a record,
  and returned as ``{metric: [metric, record]}`` for every metric of the family (a family whose
  records are large, ``record_once``, logs the record under its first metric only: the others hold a
  :class:`RecordRef`, logged as that metric's name);
* ``aggregation = SPEC.aggregate`` for every metric of the family: it knows which metric it is
  asked for from the value, computes the family once per record list (a content-keyed cache, so
  lmms-eval's per-metric gather in multi-process runs still computes once) and returns the value.

Besides its metrics every family reports two dicts: ``<diagnostics_prefix>_counts`` (documents, items scored
and incomplete, unparsable answers, failed requests, judge-extracted answers ...) and
``<diagnostics_prefix>_ci95`` (per scalar metric: the bootstrap interval, its standard error, the number of
units resampled and, where the task defines one, the chance level). Breakdown cells carry their
own interval. The standard error also reaches lmms-eval's ``<metric>_stderr`` column through
:mod:`abductive_tasks.compat`.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import pickle
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import orjson

from abductive_tasks import settings
from abductive_tasks.compat import OwnStderr
from abductive_tasks.inputs.stages import MISSING_FIELD, NO_UPSTREAM_FIELD
from abductive_tasks.scoring.reading import AnswerKind, is_request_failure
from abductive_tasks.scoring.stats import Estimate, intervals, seed_for

PARSED, JUDGE_EXTRACTED, UNPARSABLE, REQUEST_FAILED = "parsed", "judge_extracted", "unparsable", "request_failed"
# Chained tasks (abductive_tasks.inputs.stages): an item whose upstream output is missing, failed or unreadable is
# never asked and is scored as a failed request is; a run given no upstream output at all computes nothing.
UPSTREAM_MISSING, NO_UPSTREAM = "upstream_missing", "no_upstream"
Records = list[dict]


@dataclass(frozen=True)
class Reading:
    """A reply as the task reads it: its value (None unless parsed or judge-extracted), how it was
    read, the reply text itself ("" for a failed request), and what a wrapping backend attached to
    the reply as its ``meta`` attribute (e.g. the DVE optimization trace; None for plain replies)."""

    value: Any
    status: str
    text: str = ""
    meta: dict | None = None


@dataclass(frozen=True)
class Metric:
    """One reported metric. ``scale``: how its raw value reads as a percentage in summaries
    ("fraction": 0-1, "percent": already 0-100, "raw": not a percentage, e.g. a mean rank). ``proportion``: the value
    is a share of units (0-100%), which an average over tasks may mix with others; False for a signed score
    (Sherlock's comparison accuracy, -100..100%)."""

    name: str
    higher_is_better: bool | None = True
    scale: Literal["fraction", "percent", "raw"] = "fraction"
    breakdown: bool = False
    proportion: bool = True


@dataclass
class Outcome:
    """What a family computation returns.

    ``estimates``: scalar metrics with bootstrap intervals; ``breakdowns``: per-label estimates
    (cells ``{"acc", "n", "lower", "upper"}``, ``n`` the rows behind the cell: units, or the
    documents of a grouped estimate); ``values``: any other metric value, as is;
    ``counts``: coverage counts for ``<diagnostics_prefix>_counts``; ``chance``: the random-answer level of a
    metric where the task defines one.
    """

    estimates: dict[str, Estimate] = field(default_factory=dict)
    breakdowns: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int | None] = field(default_factory=dict)
    chance: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class TaskSpec(OwnStderr):
    """A task family: what each document keeps, what is reported, and how.

    The one definition of the family's metrics: each task YAML's ``metric_list`` is generated from
    ``metric_names`` and ``higher_is_better`` by utils/generate_task_yaml.py and checked in (as
    lm-evaluation-harness generates task YAML from Python), and tests/test_task_yaml.py fails when
    they disagree. The spec rather than the YAML, because the metrics are computed here anyway.

    ``diagnostics_prefix``: names the family's two diagnostics dicts, ``<diagnostics_prefix>_counts`` and
    ``<diagnostics_prefix>_ci95`` (``triplet``: ``triplet_counts``, ``triplet_ci95``); the family's metrics often,
    not always, start with it (NL-Eye's triplet metrics do not).
    ``record(doc, reading)``: the record fields (small, JSON-serialisable; the samples JSONL
    carries them); ``compute(records)``: every metric from the records of all documents;
    ``seed_name``: the name the bootstrap seeds derive from (default ``name``): two routes of one
    family that compute the same outcome share it, so they also print the same intervals.
    ``record_once``: ``process_results`` puts the record under the first metric only, the other metrics a
    :class:`RecordRef` to it (``--log_samples`` then writes each record once, not once per metric).
    ``judged``: ``record`` asks the LLM judge (``abductive-eval`` then runs more ``process_results`` at once).
    """

    name: str
    diagnostics_prefix: str
    metrics: tuple[Metric, ...]
    record: Callable[[dict, Reading], dict]
    compute: Callable[[Records], Outcome]
    seed_name: str = ""
    record_once: bool = False
    judged: bool = False

    def __post_init__(self) -> None:
        REGISTRY[self.name] = self

    @property
    def counts_metric(self) -> str:
        return f"{self.diagnostics_prefix}_counts"

    @property
    def interval_metric(self) -> str:
        return f"{self.diagnostics_prefix}_ci95"

    @property
    def metric_names(self) -> tuple[str, ...]:
        return (*(metric.name for metric in self.metrics), self.counts_metric, self.interval_metric)

    def higher_is_better(self, name: str) -> bool | None:
        """The direction the YAML must declare for ``name`` (None for the diagnostics dicts)."""
        return next((metric.higher_is_better for metric in self.metrics if metric.name == name), None)

    # ------------------------------------------------------------ per document

    def results_reader(
        self, answer: Callable[[dict], AnswerKind], question: Callable[[dict], str] | None = None
    ) -> Callable[[dict, Sequence], dict]:
        """lmms-eval's ``process_results`` for one input strategy of the family.

        ``answer(doc)``: the document's answer kind; ``question(doc)``: the prompt, given to the
        judge when answer extraction is on (None: never extract, e.g. scores read off a loglikelihood).
        Pass the task's ``doc_to_text`` hook itself, so that the prompt is named once, in that hook.
        """

        names = self.metric_names

        def process_results(doc: dict, results: Sequence[object]) -> dict:
            if doc.get(NO_UPSTREAM_FIELD):  # a chained run's stand-in question: its reply is never read
                record: dict[str, Any] = {"item_id": str(doc.get("item_id", "")), "answer_status": NO_UPSTREAM}
            else:
                reading = read_reply(results[0] if results else None, answer(doc), question(doc) if question else None)
                record = {**self.record(doc, reading), "answer_status": reading.status}
            stand_ins = json.loads(doc.get(MISSING_FIELD) or "[]")
            if stand_ins:  # the items before it whose upstream output is missing: scored as failed requests
                missing = Reading(None, UPSTREAM_MISSING)
                record[MISSING_FIELD] = [
                    {**self.record(stand_in, missing), "answer_status": UPSTREAM_MISSING} for stand_in in stand_ins
                ]
            if self.record_once:
                reference = RecordRef(names[0])
                reference.record = record
                return {names[0]: [names[0], record], **{name: [name, reference] for name in names[1:]}}
            return {name: [name, record] for name in names}

        process_results.__qualname__ = f"{self.name}.process_results"
        process_results.spec = self  # type: ignore[attr-defined]  # the static YAML test checks the task against it
        process_results.question = question  # type: ignore[attr-defined]  # ... and this against its doc_to_text
        process_results.answer = answer  # type: ignore[attr-defined]  # the answer kind, for the prompt snapshots
        return process_results

    # ------------------------------------------------------------ over all documents

    def aggregate(self, items: Sequence[Sequence]) -> Any:
        """lmms-eval's ``aggregation`` for every metric of the family; ``items`` are ``[metric, record]`` values."""
        if not items:
            return None
        name = items[0][0]
        return self.evaluate(held_records(items))[name]

    def stderr(self, items: Sequence[Sequence]) -> float | str:
        """The bootstrap standard error of the metric in ``items`` (lmms-eval's ``<metric>_stderr``),
        "N/A" when none."""
        if not items:
            return "N/A"
        entry = self.evaluate(held_records(items))[self.interval_metric].get(items[0][0]) or {}
        return "N/A" if entry.get("stderr") is None else entry["stderr"]

    def evaluate(self, records: Records) -> dict[str, Any]:
        """Every metric of the family on ``records``, computed once per distinct record list.

        lmms-eval hands each metric's aggregation its own list: in one process the lists hold the
        same record objects (found by identity: the key hashes their ids), after a multi-process
        gather they hold equal copies (found by a digest of their content, computed only then).
        """
        run = (self.name, settings.bootstrap_resamples(), settings.bootstrap_seed())
        same_objects = (*run, _identity(records))
        with _cache_lock:
            if same_objects in _by_identity:
                return _by_identity[same_objects][1]
        same_content = (*run, _digest(records)) if _gathered() else None
        with _cache_lock:
            values = _by_content.get(same_content) if same_content else None
        if values is None:
            values = self._evaluate(records)
        with _cache_lock:
            if same_content:
                _remember(_by_content, same_content, values, _CONTENT_ENTRIES)
            _remember(
                _by_identity, same_objects, (records, values), _IDENTITY_ENTRIES
            )  # holding the records keeps their ids unique
        return values

    def _evaluate(self, records: Records) -> dict[str, Any]:
        outcome = self.compute(records)
        resamples, base_seed = settings.bootstrap_resamples(), settings.bootstrap_seed()
        seed_name = self.seed_name or self.name
        statuses = Counter(map(operator.itemgetter("answer_status"), records))
        counts = {
            "documents": len(records),
            **outcome.counts,
            "unparsable": statuses[UNPARSABLE],
            "request_failed": statuses[REQUEST_FAILED],
            "judge_extracted": statuses[JUDGE_EXTRACTED],
        }
        values: dict[str, Any] = dict(outcome.values)
        estimates: dict[tuple[str, str | None], Estimate] = {
            (name, None): estimate for name, estimate in outcome.estimates.items()
        }
        estimates |= {
            (name, label): cell for name, cells in outcome.breakdowns.items() for label, cell in cells.items()
        }
        bounds_of = intervals(estimates, resamples, lambda units: seed_for(base_seed, seed_name, "units", *units))
        ci95: dict[str, dict] = {}
        for name, estimate in outcome.estimates.items():
            values[name] = estimate.value
            ci95[name] = bounds_of[name, None].as_dict()
            if name in outcome.chance:
                ci95[name]["chance"] = outcome.chance[name]
        for name, cells in outcome.breakdowns.items():
            values[name] = {}
            for label, estimate in sorted(cells.items()):
                bounds = bounds_of[name, label]
                values[name][label] = {
                    "acc": estimate.value,
                    "n": estimate.n_rows,
                    "lower": bounds.lower,
                    "upper": bounds.upper,
                }
        values[self.counts_metric] = counts
        values[self.interval_metric] = ci95
        if outcome.counts.get("upstream_given") == 0:  # a chained run given no upstream output: nothing computed
            values |= {metric.name: None for metric in self.metrics if metric.name not in values}
        missing = set(self.metric_names) - set(values)
        if missing:
            raise KeyError(f"{self.name}: the computation gave no value for {sorted(missing)}")
        return values


class RecordRef(str):
    """A metric's value standing for the record logged under another metric of the document: JSON writes it as
    that metric's name; in memory (and through the pickling of a multi-process gather) it holds the record."""

    record: dict


def held_records(items: Sequence[Sequence]) -> Records:
    """The records of ``[metric, record or RecordRef]`` values, as the aggregations receive them."""
    return [value.record if isinstance(value, RecordRef) else value for _name, value in items]


def read_reply(reply: object, kind: AnswerKind, question: str | None) -> Reading:
    """Read a reply: failed requests and empty replies first, then the rules, then (if on) the judge."""
    meta = getattr(reply, "meta", None) if isinstance(reply, str) else None
    if is_request_failure(reply):
        return Reading(None, REQUEST_FAILED, meta=meta)
    text = str(reply)
    value = kind.read(text)
    if value is not None:
        return Reading(value, PARSED, text, meta)
    if question is not None and settings.judge_extraction():
        from abductive_tasks.scoring.judge import extract_answer

        extracted = extract_answer(kind, question, text)
        if extracted is not None:
            return Reading(extracted, JUDGE_EXTRACTED, text, meta)
    return Reading(None, UNPARSABLE, text, meta)


def counting_every_item(compute: Callable[[Records], Outcome]) -> Callable[[Records], Outcome]:
    """A chained family's computation (:mod:`abductive_tasks.inputs.stages`) over every item: the records of the
    documents asked and the stand-in records they carry (items whose upstream output is missing, failed or
    unreadable, scored as failed requests), counted as ``items_missing_upstream``; a run given no upstream output at
    all computes nothing (``upstream_given: 0``). Wrapping a computation that already counts every item returns it."""
    if getattr(compute, "counts_every_item", False):
        return compute

    def compute_every_item(records: Records) -> Outcome:
        asked = [record for record in records if record["answer_status"] != NO_UPSTREAM]
        stand_ins = [stand_in for record in records for stand_in in record.get(MISSING_FIELD, ())]
        if records and not asked and not stand_ins:
            return Outcome(counts={"upstream_given": 0})
        outcome = compute([*asked, *stand_ins])
        outcome.counts["items_missing_upstream"] = len({stand_in["item_id"] for stand_in in stand_ins})
        return outcome

    compute_every_item.__qualname__ = f"counting_every_item({getattr(compute, '__qualname__', 'compute')})"
    compute_every_item.counts_every_item = True  # type: ignore[attr-defined]
    return compute_every_item


REGISTRY: dict[str, TaskSpec] = {}  # every task spec defined so far, by name


_CONTENT_ENTRIES, _IDENTITY_ENTRIES = 16, 2
_by_content: OrderedDict[tuple, dict] = OrderedDict()
_by_identity: OrderedDict[tuple, tuple[Records, dict]] = OrderedDict()
_cache_lock = threading.Lock()


def clear_cache() -> None:
    """Forget every computed family (tests use it to count computations)."""
    with _cache_lock:
        _by_content.clear()
        _by_identity.clear()


def _remember(cache: OrderedDict, key: tuple, value: object, entries: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > entries:
        cache.popitem(last=False)


def _gathered() -> bool:
    """Whether lmms-eval runs in several processes (``accelerate launch`` and ``torchrun`` set ``WORLD_SIZE``):
    then each metric's records reach its aggregation as separate copies."""
    return int(os.environ.get("WORLD_SIZE") or 1) > 1


def _identity(records: Records) -> tuple[int, str]:
    """A key for the record objects themselves (their ids, in order): a digest of the ids, so that looking it up
    costs one pass over the list however often lmms-eval asks."""
    ids = np.fromiter(map(id, records), dtype=np.uint64, count=len(records))
    return len(records), hashlib.blake2b(ids.tobytes(), digest_size=16).hexdigest()


def _digest(records: Records) -> str:
    """A content key for a record list: equal lists from different processes get the same key
    (orjson, several times faster than pickle on these small dicts; pickle for what JSON cannot hold)."""
    try:
        content = orjson.dumps(records, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        content = pickle.dumps(records, protocol=5)
    return hashlib.blake2b(content, digest_size=16).hexdigest()
