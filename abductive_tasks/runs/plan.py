"""A batch's plan: per model what is done, what to run and with which command lines, starting nothing.

A task is done when a run with the same identity (:mod:`abductive_tasks.runs.identity`) has its
results without failed requests and with no smaller ``limit`` (:mod:`abductive_tasks.runs.history`).
Each model runs as one ``abductive-eval`` subprocess writing to ``<output_dir>/<name>/runs/<run>/``;
its response cache ``<name>/cache/<identity hash>`` (with that hash as lmms-eval's cache run id) lets a
rerun reuse the answers an interrupted run stored, never across data or settings.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.inputs.data import ENV_VAR
from abductive_tasks.nleye import descriptions
from abductive_tasks.runs.history import RUNS_DIR, Scan, scan_runs
from abductive_tasks.runs.identity import build_identity, cache_key, data_fingerprint
from abductive_tasks.runs.secrets import collect_secrets, redact_text
from abductive_tasks.runs.spec import BatchSpec, JudgeSpec, ModelSpec, SpecError
from abductive_tasks.runs.suite import GENERATION_ONLY_BACKENDS, Suite
from abductive_tasks.runs.vllm import (
    PLACEHOLDER_API_KEY,
    client_env,
    inprocess_model_args,
    judge_env,
    serve_command,
    served_model_args,
)

HOST = "127.0.0.1"


@dataclass
class ModelPlan:
    """What a batch run does for one model."""

    model: ModelSpec
    tasks: list[str]  # every task of the spec the backend can run
    unsupported: list[str]  # tasks the backend cannot run (loglikelihood on a generation-only backend)
    done: list[str]
    model_args: str
    output: Path
    identity: dict = field(default_factory=dict)  # what its results must be results of (abductive_tasks.runs.identity)
    earlier: Scan = field(default_factory=Scan)  # what earlier runs with this identity left
    secrets: tuple[str, ...] = ()  # clear values never to be written (model_args, eval_args, env, vLLM arguments)
    limit: int | float | None = None  # the --limit the run gets, wherever the spec set it (requested_limit)

    @property
    def pending(self) -> list[str]:
        return [task for task in self.tasks if task not in self.done]

    @property
    def cache(self) -> Path:
        """lmms-eval's response cache for this identity: new data or settings never meet old answers."""
        return self.output / "cache" / cache_key(self.identity)


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def requested_limit(spec: BatchSpec, model: ModelSpec) -> int | float | None:
    """The ``--limit`` a model's run gets: the spec's ``limit:``, overridden by a ``--limit`` in the spec's
    ``eval_args`` and then in the model's (they come later on the command line, and the last one wins)."""
    limit = spec.limit
    words = [*spec.eval_args, *model.eval_args]
    for index, word in enumerate(words):
        value = word.split("=", 1)[1] if word.startswith("--limit=") else None
        if word == "--limit" and index + 1 < len(words):
            value = words[index + 1]
        if value is not None:
            try:
                limit = _number(value)
            except ValueError:
                raise SpecError(f"{model.name}: eval_args --limit {value!r} is not a number") from None
    return limit


def model_args_for(model: ModelSpec, suite: Suite, tasks: list[str]) -> str:
    """The ``--model_args`` a model runs with; fixed by the spec's whole task list, so resumed runs keep it."""
    if model.route == "vllm":
        max_new_tokens = model.max_new_tokens or suite.max_new_tokens(tasks)
        return inprocess_model_args(model.vllm, suite.image_limit(tasks), max_new_tokens)
    if model.route == "served":
        return served_model_args(model.vllm, model.model_args)
    return model.model_args


def _judge_description(judge: JudgeSpec | None) -> dict | None:
    """What of the judge decides judged scores (a served judge's port and URL change from run to run)."""
    if judge is None:
        return None
    if judge.url:
        return {"url": judge.url, "model_version": judge.model_version, "api_type": judge.api_type}
    return {"vllm": asdict(judge.vllm), "api_type": judge.api_type, "env": judge.env}


def model_identity(
    spec: BatchSpec, model: ModelSpec, model_args: str, tasks: list[str], suite: Suite, fingerprints: dict | None = None
) -> dict:
    """The identity of ``model``'s run over ``tasks``, every secret the run receives hashed under any name
    (``fingerprints``: a memo of data fingerprints by benchmark and source)."""
    fingerprints = {} if fingerprints is None else fingerprints
    env = {**spec.env, **model.env}
    choice = {**os.environ, **env}.get(ENV_VAR, "").strip()
    facts = [suite.facts(task) for task in tasks]
    data = {}
    for benchmark in sorted({fact.benchmark for fact in facts if fact.benchmark}):
        if (benchmark, choice) not in fingerprints:
            fingerprints[benchmark, choice] = data_fingerprint(benchmark, choice)
        data[benchmark] = fingerprints[benchmark, choice]
    return build_identity(
        model={"route": model.route, "backend": model.backend, "vllm": asdict(model.vllm) if model.vllm else None},
        model_args=model_args,
        eval_args=[*spec.eval_args, *model.eval_args],
        env=env,
        environment={**os.environ, **env},
        judge=_judge_description(spec.judge),
        tasks={fact.name: task_entry(fact, {**os.environ, **env}) for fact in facts},
        data=data,
        secrets=model_secrets(spec, model, model_args),
    )


def task_entry(fact, environment: dict[str, str]) -> dict:
    """A task's part of a run identity: its benchmark and version, and for a task reading stored NL-Eye descriptions,
    their content (:func:`~abductive_tasks.nleye.descriptions.fingerprint`) under the run's environment."""
    entry = {"benchmark": fact.benchmark, "version": fact.version}
    if fact.name in descriptions.READERS:
        describer = settings.nleye_descriptions(environment)
        entry["descriptions"] = descriptions.fingerprint(describer, settings.cache_root(environment))
    return entry


def model_secrets(spec: BatchSpec, model: ModelSpec, model_args: str) -> tuple[str, ...]:
    """Clear secret values a model's run receives (:func:`~abductive_tasks.runs.secrets.collect_secrets`):
    never written to its log, cache, identity, server log or console line."""
    judge = spec.judge
    found = collect_secrets(
        model_args,
        [*spec.eval_args, *model.eval_args],
        [
            spec.env,
            judge.env if judge else {},
            judge.vllm.extra_args if judge and judge.vllm else {},
            model.env,
            model.vllm.extra_args if model.vllm else {},
        ],
        os.environ,
    )
    return tuple(dict.fromkeys([*spec.secrets, *found]))


def plan(spec: BatchSpec, suite: Suite, only: list[str] | None = None) -> list[ModelPlan]:
    tasks = suite.expand(spec.tasks)
    plans = []
    fingerprints: dict = {}
    for model in spec.models:
        if only and model.name not in only:
            continue
        runnable = [
            task for task in tasks if model.backend not in GENERATION_ONLY_BACKENDS or suite.facts(task).generates
        ]
        model_args = model_args_for(model, suite, runnable)
        output = spec.output_dir / model.name
        identity = model_identity(spec, model, model_args, runnable, suite, fingerprints)
        earlier = scan_runs(output, identity)
        limit = requested_limit(spec, model)
        done = [task for task in runnable if earlier.done(task, limit)]
        unsupported = [task for task in tasks if task not in runnable]
        plans.append(
            ModelPlan(
                model,
                runnable,
                unsupported,
                done,
                model_args,
                output,
                identity,
                earlier,
                model_secrets(spec, model, model_args),
                limit,
            )
        )
    unknown = set(only or ()) - {model_plan.model.name for model_plan in plans} - set(spec.invalid)
    if unknown:
        raise SpecError(f"unknown model names {sorted(unknown)}")
    return plans


def eval_arguments(spec: BatchSpec, model_plan: ModelPlan, tasks: list[str], run_dir: Path) -> list[str]:
    """The ``abductive-eval`` arguments of one model's run over ``tasks``, writing its results into ``run_dir``."""
    model = model_plan.model
    arguments = ["--model", model.backend]
    if model_plan.model_args:
        arguments += ["--model_args", model_plan.model_args]
    arguments += ["--tasks", ",".join(tasks), "--output_path", str(run_dir), "--use_cache", str(model_plan.cache)]
    if spec.limit is not None:
        arguments += ["--limit", str(spec.limit)]
    extra = [*spec.eval_args, *model.eval_args]
    # the per-document records: the leaderboard's paired comparisons and ties are computed from them
    logging = [] if "--log_samples" in extra else ["--log_samples"]
    return [*arguments, *logging, *extra]


def judge_command(spec: BatchSpec, port: int | str) -> list[str]:
    """The served judge's ``vllm serve`` line: a text-only model, so no multimodal limit."""
    return serve_command(spec.judge.vllm, None, HOST, port, spec.vllm_executable)


def model_env(model_plan: ModelPlan) -> dict[str, str]:
    """The variables one model's run (evaluation and server) gets over the batch's."""
    # The cache run id is the identity's hash: an interrupted run's response shard is reopened, not orphaned.
    # PYTHONSAFEPATH: `-m` would otherwise put the working directory first on sys.path, and a
    # source checkout there shadows the installed package (whose task YAML lives only in the install).
    return {**model_plan.model.env, "LMMS_CACHE_RUN_ID": model_plan.cache.name, "PYTHONSAFEPATH": "1"}


def eval_command(spec: BatchSpec, model_plan: ModelPlan, run_dir: Path) -> list[str]:
    """The ``abductive-eval`` process of one model's run over its pending tasks, writing into ``run_dir``."""
    return [sys.executable, "-m", "abductive_tasks.cli", *eval_arguments(spec, model_plan, model_plan.pending, run_dir)]


def model_server_command(spec: BatchSpec, model_plan: ModelPlan, suite: Suite, port: int | str) -> list[str]:
    """The served route's ``vllm serve`` line, its image limit fixed by the spec's whole task list."""
    return serve_command(model_plan.model.vllm, suite.image_limit(model_plan.tasks), HOST, port, spec.vllm_executable)


# Ports chosen free at start, and the run folder made at start, as the printed commands show them.
PORT, JUDGE_PORT = "$PORT", "$JUDGE_PORT"


NEW_RUN = "<time>-<id>"
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|AUTH|CREDENTIAL", re.IGNORECASE)


def _shell_word(word: str) -> str:
    """``word`` quoted for a shell; one holding a port placeholder in double quotes, so the shell expands it."""
    if re.fullmatch(r"[\w@%+=:,./-]*\$(JUDGE_)?PORT\b[\w@%+=:,./-]*", word):
        return f'"{word}"'
    return shlex.quote(word)


def shell_line(command: list[str], env: dict[str, str], secrets: tuple[str, ...] = ()) -> str:
    """``command`` run with the variables ``env`` sets, as one shell line; secret-named variables and variables
    holding a secret (a URL with credentials) appear as references to the environment, other secrets redacted."""
    assignments = [
        f'{name}="${name}"'
        if (SECRET_NAME.search(name) and value != PLACEHOLDER_API_KEY) or redact_text(value, secrets) != value
        else f"{name}={_shell_word(value)}"
        for name, value in env.items()
    ]
    return redact_text(" ".join([*assignments, *map(_shell_word, command)]), secrets)


def print_commands(spec: BatchSpec, plans: list[ModelPlan], suite: Suite, job_lines: bool = True) -> None:
    """Show what a run starts, starting nothing: per model its server and evaluation command lines, with the
    variables they get over the inherited environment (as ``#`` comments), then with ``job_lines`` one
    self-contained command per model (e.g. one per Slurm array task: ``grep -v '^#'``)."""
    added = dict(spec.env)
    judge = spec.judge
    if judge is not None and judge.url:
        added |= judge_env(judge.url, judge.model_version, judge.api_type)
    elif judge is not None:
        port = judge.port or JUDGE_PORT
        port_note = "" if judge.port else f"; {JUDGE_PORT}: a free port chosen at start"
        print(f"# judge, served for the whole batch (log {spec.output_dir / 'judge_server.log'}){port_note}")
        print(f"#   {shell_line(judge_command(spec, port), {**spec.env, **judge.env}, spec.secrets)}")
        added |= judge_env(f"http://{HOST}:{port}/v1", judge.vllm.name_served, judge.api_type)
    for label, why in spec.invalid.items():
        print(f"# {label}: not run: " + redact_text(why, spec.secrets).replace("\n", "\n#   "))
    for model_plan in plans:
        model = model_plan.model
        env = {**added, **model_env(model_plan)}
        pending = f"runs {', '.join(model_plan.pending)}" if model_plan.pending else "nothing to run"
        print(
            f"# {model.name} (route {model.route}): {pending} ({len(model_plan.done)} of {len(model_plan.tasks)} "
            "done earlier)"
        )
        if model_plan.unsupported:
            print(
                f"#   backend {model.backend} cannot run {', '.join(model_plan.unsupported)} (loglikelihood); skipped"
            )
        if model_plan.pending and model.route == "served":
            port = model.port or PORT
            print(
                f"#   server (log {model_plan.output / 'server.log'})"
                + ("" if model.port else f"; {PORT}: a free port chosen at start")
            )
            server_line = shell_line(model_server_command(spec, model_plan, suite, port), env, model_plan.secrets)
            print(f"#   {server_line}")
            print(f"#   evaluation, once http://{HOST}:{port}/health answers 200 (the server is stopped after it)")
            env |= client_env(f"http://{HOST}:{port}/v1", {**os.environ, **env})
        if model_plan.pending:
            eval_command_line = eval_command(spec, model_plan, model_plan.output / RUNS_DIR / NEW_RUN)
            print(f"#   {shell_line(eval_command_line, env, model_plan.secrets)}")
        if job_lines:
            print(shlex.join(["abductive-eval", "batch", str(spec.path), "--model", model.name]))
