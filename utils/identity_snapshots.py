"""The run identity's record: what identifies a result, for canonical runs, under ``SCHEMA`` of runs/identity.py.

Whether an earlier result counts (a task done, a response cache reused, a leaderboard cell current) is decided by
comparing run identities (:mod:`abductive_tasks.runs.identity`) and the keys made from them. Code that leaves a part
out of an identity (a backend's version, a setting no longer marked as changing scores, a key that skips the settings)
passes every task's, backend's and group's record unchanged, and lets old results pass as current. One text file,
``tests/snapshots/identity.txt``, holds what the code makes now of canonical inputs: the settings that enter an
identity, the identities a batch plans for a canonical spec (a backend of ours with a secret in its ``model_args``, a
served model, a served judge, a chained task) and one ``abductive-eval`` command's, each with its keys. What moves for
reasons versioned elsewhere is masked: task and package versions (and a backend's), and where the data lies (the
data itself is a fixed synthetic tree, so its hashes stay). :func:`task_snapshots.verdict` says what a difference
means: under the same ``SCHEMA`` it needs ``SCHEMA`` raised (every identity holds it, so every earlier result and
cache goes stale once), then ``python utils/generate_task_yaml.py``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import task_snapshots

task_snapshots.HEADERS["identity"] = (
    "# Record of the run identity: the settings that enter one, and the identities and keys of canonical runs\n"
    "# (versions and the data's place masked). Written by `python utils/generate_task_yaml.py`;\n"
    "# tests/test_identity_snapshot.py checks it.\n"
)
NAME = "identity"  # tests/snapshots/identity.txt
SCHEMA_FILE = "abductive_tasks/runs/identity.py"
TASKS = ("nleye_triplet", "mucr_exp", "dve_cls", "sherlock_comparison")  # mucr_exp reads mucr_c2e's picks
SECRET = "sk-canonical-secret-value"
SPEC = f"""\
tasks: [{", ".join(TASKS)}]
env: {{HF_TOKEN: hf-canonical-token-value, ABDUCTIVE_BOOTSTRAP_SEED: "7"}}
eval_args: [--seed, "1", --limit, "2"]
judge: {{model: org/judge-model, tensor_parallel_size: 2, port: 8101}}
models:
  - {{name: ours, backend: llava, model_args: "pretrained=/models/llava-tiny,api_key={SECRET}"}}
  - {{name: served, route: served, model: org/served-model, tensor_parallel_size: 2, port: 8102}}
"""
COMMAND = ("random_baseline", f"seed=3,api_key={SECRET}", ["--seed", "1", "--log_samples"])
MASKED = "<masked>"


@contextlib.contextmanager
def canonical_environment() -> Iterator[Path]:
    """A scratch folder holding a fixed synthetic data tree for every benchmark (an annotation file, an image and a
    file neither reads), with ``os.environ`` holding only ``PATH`` and the data and cache variables while it lasts
    (no inherited key, token or setting reaches the identities)."""
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="abductive-identity-") as scratch:
        root = Path(scratch)
        for benchmark in ("nleye", "mucr", "dve", "sherlock"):
            folder = root / "data" / benchmark
            (folder / "images").mkdir(parents=True)
            (folder / "annotations.jsonl").write_text(f'{{"benchmark": "{benchmark}"}}\n', encoding="utf-8")
            (folder / "images" / "1.png").write_bytes(f"{benchmark} image".encode())
            (folder / "README.txt").write_text("neither annotation nor image\n", encoding="utf-8")
        os.environ.clear()
        os.environ.update(
            {"PATH": saved.get("PATH", ""), "ABDUCTIVE_DATA": str(root / "data"), "ABDUCTIVE_CACHE": str(root / "c")}
        )
        try:
            yield root
        finally:
            os.environ.clear()
            os.environ.update(saved)


def masked(identity: Mapping) -> dict:
    """``identity`` with what moves for reasons versioned elsewhere masked: every version (tasks', packages',
    backends') and the data's place (``source``)."""
    found = dict(identity)
    found["versions"] = dict.fromkeys(identity["versions"], MASKED)
    found["tasks"] = {task: {**entry, "version": MASKED} for task, entry in identity["tasks"].items()}
    found["data"] = {name: {**print_, "source": MASKED} for name, print_ in identity["data"].items()}
    return found


def _keys(identity: Mapping) -> dict:
    """The keys a run's results are found by: each task's, the response cache's (of all tasks, and of each task that
    reads another run, alone) and the model's."""
    from abductive_tasks.runs.identity import cache_key, model_key, task_key

    tasks = sorted(identity["tasks"])
    chained = [task for task in tasks if "inputs" in identity["tasks"][task]]
    return {
        "task": {task: task_key(identity, task) for task in tasks},
        "cache": {"all": cache_key(identity, tasks), **{task: cache_key(identity, [task]) for task in chained}},
        "model": model_key(identity),
    }


def identities() -> dict[str, object]:
    """What the code makes of the canonical inputs (see the module's docstring), by line name."""
    from abductive_tasks import settings
    from abductive_tasks.redaction import collect_secrets
    from abductive_tasks.runs.chain import command_identity
    from abductive_tasks.runs.identity import score_settings
    from abductive_tasks.runs.plan import plan
    from abductive_tasks.runs.spec import load_spec
    from abductive_tasks.runs.task_index import TaskIndex

    with canonical_environment() as root:
        every = {name: "/canonical/value" for name in settings.VARIABLES}
        found: dict[str, object] = {"settings": sorted(score_settings(every))}
        spec_path = root / "spec.yaml"
        spec_path.write_text(SPEC + f"output_dir: {root / 'out'}\n", encoding="utf-8")
        index = TaskIndex()
        for model_plan in plan(load_spec(spec_path), index).models:
            identity = masked(model_plan.identity)
            found[f"batch {model_plan.model.name}"] = identity
            found[f"batch {model_plan.model.name} keys"] = _keys(identity)
        backend, model_args, rest = COMMAND
        facts = [index.facts(task) for task in TASKS if task != "mucr_exp"]
        secrets = tuple(collect_secrets(model_args, rest, [], os.environ))
        identity = masked(command_identity(backend, model_args, rest, facts, dict(os.environ), secrets))
        found["command"] = identity
        found["command keys"] = _keys(identity)
    return found


def build() -> task_snapshots.Snapshot:
    """The identity's record as the code is now, under ``SCHEMA``."""
    from abductive_tasks.runs.identity import SCHEMA

    content = identities()
    lines = []  # a line per part of each identity: a difference names the part
    for name, value in content.items():
        parts = value.items() if isinstance(value, dict) else [("", value)]
        lines += [f"{name}{'.' if part else ''}{part}: {task_snapshots.json_text(item)}" for part, item in parts]
    body = "".join(line + "\n" for line in lines)
    return task_snapshots.Snapshot(NAME, str(SCHEMA), task_snapshots.content_digest(content), body, content, NAME)


def build_all() -> dict[str, task_snapshots.Snapshot]:
    return {NAME: build()}


def record_path(snapshots: Path, name: str = NAME) -> Path:
    return snapshots / f"{name}.txt"


def recorded(snapshots: Path, name: str = NAME) -> task_snapshots.Snapshot | None:
    return task_snapshots.Snapshot.read(record_path(snapshots, name))


def bump_message(name: str, version: str, reason: str) -> str:
    """What to do when what the code makes of the canonical inputs changed under the same ``SCHEMA``."""
    return (
        f"the run identity: what identifies a canonical run's results changed, but SCHEMA is still {version} "
        f"({reason}).\n"
        f"  If the change is meant, raise SCHEMA in {SCHEMA_FILE} (every identity holds it: earlier results, caches "
        "and leaderboard cells go stale once), then run python utils/generate_task_yaml.py."
    )
