"""From lmms-eval's samples JSONL back to a task's metrics and intervals.

Every task's ``process_results`` returns ``{metric: [metric, record]}`` for each metric of its
family (:mod:`abductive_tasks.scoring.taskspec`), and lmms-eval's ``--log_samples`` writes those values
into one JSON line per document (``<date>_samples_<task>.jsonl``, beside ``<date>_results.json``).
Each line therefore carries the document's record: item id, order or hypothesis, the parsed
answer (None when unreadable), ``answer_status`` (parsed, judge_extracted, unparsable,
request_failed), correctness and the categories the breakdowns use. This module reads the records
back and finds the task's spec, so that::

    samples = read_samples("results/m/20260101_000000_samples_nleye_triplet.jsonl")
    values = samples.spec.evaluate(samples.records)   # every metric, <prefix>_counts, <prefix>_ci95
    outcome = samples.spec.compute(samples.records)   # the Estimates (per-unit statistics, unit ids)

gives what the results JSON holds (the intervals too, under the run's ``ABDUCTIVE_BOOTSTRAP``
and ``ABDUCTIVE_BOOTSTRAP_SEED``). Metrics computed by a model (DVE's BERTScore, CLIPScore and
evaluator) load that model again, from the settings of the recomputing process.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from abductive_tasks.lmms_source import SAMPLES_MARK

if TYPE_CHECKING:  # imported where used: the task specs and data loaders pull in numpy and datasets, which browse,
    # diff and show do not need
    from abductive_tasks.scoring.taskspec import Records, TaskSpec


class SamplesError(ValueError):
    """A samples file that cannot give a task's records; the message names the file and line."""


@dataclass(frozen=True)
class Samples:
    """The records of one task's run and the spec that computes its metrics from them."""

    path: Path
    task: str | None  # from the file name, None when it does not follow lmms-eval's naming
    spec: TaskSpec
    records: Records

    def evaluate(self) -> dict:
        """Every metric, ``<prefix>_counts`` and ``<prefix>_ci95``, as the run's aggregation computed them."""
        return self.spec.evaluate(self.records)


def limit_text(limit: object) -> str:
    """A run's ``--limit`` as typed: lmms-eval keeps it as a float (``4.0`` for ``--limit 4``); a value of another
    type (an edited results file) as it is."""
    return str(int(limit)) if isinstance(limit, float) and limit.is_integer() else str(limit)


def task_of(path: Path) -> str | None:
    """The task a samples file belongs to, from lmms-eval's name ``<date>_samples_<task>.jsonl``."""
    name = Path(path).name
    if SAMPLES_MARK not in name or not name.endswith(".jsonl"):
        return None
    return name.split(SAMPLES_MARK, 1)[1].removesuffix(".jsonl") or None


def _record_metrics(line: dict) -> set[str]:
    """The keys of a samples line holding a ``[metric, record]`` value, as ``process_results`` returns them, or a
    ``[metric, other metric]`` value naming the key that holds the record (a family logging it once)."""
    pairs = {
        key: value[1] for key, value in line.items() if isinstance(value, list) and len(value) == 2 and value[0] == key
    }
    holding = {key for key, value in pairs.items() if isinstance(value, dict)}
    return holding | {key for key, value in pairs.items() if isinstance(value, str) and value in holding}


def _record_under(line: dict, name: str) -> dict:
    """The record the ``[metric, ...]`` value of ``name`` holds or names."""
    value = line[name][1]
    return line[value][1] if isinstance(value, str) else value


def identify_spec(metric_names: set[str], task: str | None) -> TaskSpec:
    """The spec whose metric names are exactly ``metric_names``: the task's own (its YAML's ``process_results``) when
    it reports them, else the only spec that does."""
    from abductive_tasks.reports.specs import registered_specs, spec_of_task

    by_task = spec_of_task(task) if task else None
    if by_task is not None and set(by_task.metric_names) == metric_names:
        return by_task  # the task's own spec (only its benchmark imported)
    candidates = [spec for spec in registered_specs() if set(spec.metric_names) == metric_names]
    if len(candidates) == 1:
        return candidates[0]
    from abductive_tasks.scoring.taskspec import REGISTRY

    known = sorted(spec.name for spec in REGISTRY.values())
    raise SamplesError(
        f"no single task spec reports exactly the metrics {sorted(metric_names)}"
        + (
            f" (candidates: {[spec.name for spec in candidates]}; the task {task!r} does not decide)"
            if candidates
            else f"; known specs: {known}"
        )
    )


def read_samples(path: Path | str, spec: TaskSpec | None = None) -> Samples:
    """The records of a samples JSONL (one per document, in the file's order) and their task spec.

    ``spec``: the spec to use; by default the one whose metric names the lines carry (the task in the
    file name decides between specs with the same names). Every line must carry the spec's metrics,
    all with the same record.
    """
    from abductive_tasks.inputs.loading import json_object, json_texts

    path = Path(path)
    task = task_of(path)
    records: Records = []
    expected: set[str] | None = set(spec.metric_names) if spec else None
    quick = _RecordSlices(expected) if expected else None
    for number, text in json_texts(path, error=SamplesError):
        record = quick(text) if quick else None
        if record is not None:
            records.append(record)
            continue
        line = json_object(text, path, number, SamplesError)
        names = _record_metrics(line)
        if expected is None:
            if not names:
                raise SamplesError(
                    f"{path}, line {number}: no [metric, record] values: not a samples file of one of our "
                    "tasks (run with --log_samples)"
                )
            spec = identify_spec(names, task)
            expected = set(spec.metric_names)
            quick = _RecordSlices(expected)
        missing = sorted(expected - names)
        if missing:
            raise SamplesError(f"{path}, line {number}: no [metric, record] value for {missing}")
        first, *others = sorted(expected)
        record = _record_under(line, first)
        differing = [name for name in others if _record_under(line, name) != record]
        if differing:
            raise SamplesError(f"{path}, line {number}: the records of {differing} differ from the record of {first!r}")
        records.append(record)
    if spec is None:
        raise SamplesError(f"{path}: no samples")
    return Samples(path, task, spec, records)


_NAME = msgspec.json.Decoder(str)
_RECORD = msgspec.json.Decoder(dict)


class _RecordSlices:
    """The record of a samples line read from the JSON text of its ``[metric, ...]`` values alone: the rest of the
    line (the document, the replies) is skipped, not decoded, and the metrics' copies of the record are compared as
    text. Gives the record :func:`read_samples` would, or None for a line that needs the full reading (copies that
    differ as text, a value msgspec does not decode, anything missing or malformed), which then decides."""

    def __init__(self, names: set[str]) -> None:
        self.names = sorted(names)
        fields = {f"metric{index}": name for index, name in enumerate(self.names)}
        line = msgspec.defstruct(
            "Line", [(field, tuple[Literal[name], msgspec.Raw]) for field, name in fields.items()], rename=fields
        )
        self.decoder = msgspec.json.Decoder(line)  # a line's other keys are skipped, not decoded

    def __call__(self, text: str) -> dict | None:
        try:
            values = [value for _, value in msgspec.structs.astuple(self.decoder.decode(text))]
            record = values[0]
            if values.count(record) != len(values):  # a family logging the record once: a name stands for it
                held = dict(zip(self.names, map(bytes, values), strict=True))
                texts = {held.get(_NAME.decode(value), b"") if value[:1] == b'"' else value for value in held.values()}
                if len(texts) != 1:
                    return None
                (record,) = texts
            return _RECORD.decode(record)  # a record is an object: anything else is a ValidationError
        except msgspec.MsgspecError:
            return None
