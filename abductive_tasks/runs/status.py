"""A batch's ``batch_status.json``: per model what its turn came to (done, failed, interrupted), each task's state and
why it failed, written after each model and said in one line at the end."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from abductive_tasks.hints import counted
from abductive_tasks.inputs.files import write_atomic
from abductive_tasks.redaction import redact_value
from abductive_tasks.runs.progress import say

STATUS_FILE = "batch_status.json"


@dataclass(frozen=True)
class ModelOutcome:
    """What one model's turn in a batch came to: its state (done, failed, interrupted), each task's, and why it
    failed."""

    state: str
    tasks: dict[str, str]
    error: str | None = None

    def entry(self) -> dict:
        """Its entry in ``batch_status.json``."""
        return {"state": self.state, **({"error": self.error} if self.error else {}), "tasks": self.tasks}


@dataclass
class BatchStatus:
    """The models' outcomes so far, by name, in the order they came (``secrets`` never written)."""

    output_dir: Path
    secrets: tuple[str, ...]
    outcomes: dict[str, ModelOutcome] = field(default_factory=dict)

    def not_run(self, label: str, why: str) -> None:
        """A model of the spec that cannot run (``why``: its error), said and recorded as failed."""
        say(f"{label}: not run: {why}")
        self.outcomes[label] = ModelOutcome("failed", {}, why)

    def write(self) -> None:
        """``batch_status.json``, written whole (a full disk or a kill leaves the previous one) and never through a
        link planted at its name; a write that fails is said in one line, the batch goes on."""
        path = self.output_dir / STATUS_FILE
        status = {name: outcome.entry() for name, outcome in self.outcomes.items()}
        try:
            write_atomic(path, json.dumps(redact_value(status, self.secrets), indent=2) + "\n")
        except OSError as error:
            say(f"cannot write {path} ({error.strerror or error}); the previous status stands")

    def close(self) -> int:
        """Write the status, say how many models are complete; 1 if any failed, else 0."""
        self.write()
        failed = [name for name, outcome in self.outcomes.items() if outcome.state != "done"]
        total = len(self.outcomes)
        say(
            f"{total - len(failed)} of {counted(total, 'model')} complete"
            + (f"; failed: {', '.join(failed)}" if failed else "")
        )
        return 1 if failed else 0
