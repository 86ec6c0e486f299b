"""Running ``abductive-eval`` as a user would and reading what it wrote (used by the end-to-end tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# ABDUCTIVE_JUDGE=off: no test reaches a real judge even when the environment holds OPENAI_API_KEY;
# judge tests opt in with monkeypatch.setenv("ABDUCTIVE_JUDGE", "on") or env={"ABDUCTIVE_JUDGE": "on"}.
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "WANDB_MODE": "disabled",
    "ABDUCTIVE_JUDGE": "off",
}


def abductive_eval(
    args: list[str], output: Path, data: str = "sample", env: dict | None = None
) -> subprocess.CompletedProcess:
    """Run the ``abductive-eval`` console command as a user would; output under ``output``."""
    command = [str(Path(sys.executable).with_name("abductive-eval")), *args, "--output_path", str(output)]
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": data, **(env or {})}
    return subprocess.run(command, capture_output=True, text=True, env=environment, cwd=output.parent, timeout=600)


def cli_done(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """``abductive-eval ARGS`` in this Python (``python -m abductive_tasks.cli``), offline, in ``cwd``, with ``env``
    over the inherited environment; asserts it exited 0 and returns what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "abductive_tasks.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE, **env},
        cwd=cwd,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _own(output: Path, pattern: str) -> list[Path]:
    """Files matching ``pattern`` under ``output``, not those of the upstream stages a chained run ran first
    (``<output>/stages/``)."""
    return [path for path in output.rglob(pattern) if path.relative_to(output).parts[0] != "stages"]


def read_results(output: Path) -> dict:
    """The ``results`` section of the single results JSON a run wrote under ``output``."""
    (path,) = _own(output, "*_results.json")
    return json.loads(path.read_text())["results"]


def read_samples(output: Path, task: str) -> list[dict]:
    (path,) = _own(output, f"*_samples_{task}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def metric(results: dict, task: str, name: str):
    return results[task][f"{name},none"]


def count(results: dict, task: str, key: str):
    """One entry of the task's diagnostics dict (``<prefix>_counts``: documents, items scored, unparsable ...)."""
    (counts,) = [value for name, value in results[task].items() if name.endswith("_counts,none")]
    return counts[key]


def spec_identity(tmp_path: Path, tasks: str, env: dict[str, str], model_args: dict | None = None) -> dict:
    """The identity the batch plans for one dummy model (``model_args``) of a spec with ``tasks`` and ``env``."""
    from abductive_tasks import settings
    from abductive_tasks.runs.plan import model_identity, model_secrets
    from abductive_tasks.runs.spec import load_spec
    from abductive_tasks.runs.task_index import TaskIndex

    path = tmp_path / "spec.yaml"
    arguments = f", model_args: {json.dumps(model_args)}" if model_args else ""
    path.write_text(f"tasks: [{tasks}]\nenv: {json.dumps(env)}\nmodels:\n  - {{name: a, backend: dummy{arguments}}}\n")
    spec = load_spec(path)
    model = spec.models[0]
    facts = TaskIndex().task_set(spec.tasks).facts
    secrets = model_secrets(spec, model, model.model_args)
    root = settings.cache_root({**os.environ, **spec.env, **model.env})
    return model_identity(spec, model, model.model_args, [facts[task] for task in spec.tasks], secrets, root)
