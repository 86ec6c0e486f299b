"""What a batch records when it is done with a model: the spec's identity for the leaderboard, earlier
runs' damage and failures by path, and ``batch_status.json``.
"""

from __future__ import annotations

import json

from abductive_tasks.inputs.files import write_atomic
from abductive_tasks.runs.history import RUN_RECORD, SPEC_RECORD, Record, quarantine
from abductive_tasks.runs.identity import model_weights
from abductive_tasks.runs.plan import ModelPlan
from abductive_tasks.runs.run import say
from abductive_tasks.runs.secrets import redact_value
from abductive_tasks.runs.spec import BatchSpec


def write_status(spec: BatchSpec, status: dict[str, dict]) -> None:
    """``batch_status.json``, written whole (a full disk or a kill leaves the previous one) and never through a link
    planted at its name; a write that fails is said in one line, the batch goes on."""
    path = spec.output_dir / "batch_status.json"
    try:
        write_atomic(path, json.dumps(redact_value(status, spec.secrets), indent=2) + "\n")
    except OSError as error:
        say(f"cannot write {path} ({error.strerror or error}); the previous status stands")


def write_spec_record(spec: BatchSpec, model_plan: ModelPlan) -> None:
    """The spec's identity for the leaderboard, with the weights the model runs (a hub model's revision is known
    once its weights are in the local cache: written again after its run)."""
    model = model_plan.model
    weights = model_weights(model_plan.model_args, model.vllm.model if model.vllm else None)
    Record(
        model_plan.identity, model_plan.limit, tuple(model_plan.tasks), model.name, str(spec.path), weights=weights
    ).write(model_plan.output / SPEC_RECORD)


def record_spec(spec: BatchSpec, model_plan: ModelPlan, prefix: str) -> None:
    """Write the spec's identity for the leaderboard;
    report, by path, what earlier runs left damaged (set aside) or failed."""
    write_spec_record(spec, model_plan)
    for damaged in model_plan.earlier.damaged:
        target = damaged.path.parent if damaged.path.name == RUN_RECORD else damaged.path
        if target.exists():
            say(f"{prefix}: {damaged}; set aside as {quarantine(target).name}")
    for task in model_plan.pending:
        for outcome in model_plan.earlier.outcomes.get(task, []):
            if outcome.failed_requests:
                say(
                    f"{prefix}: {task} had {outcome.failed_requests} failed requests in {outcome.results_path}; "
                    "run again"
                )
