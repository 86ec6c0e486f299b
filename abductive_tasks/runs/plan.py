"""A batch's plan: per model what is done, what to run and with which command lines, starting nothing.

A task is done when a run with the same identity (:mod:`abductive_tasks.runs.identity`) has its
results without failed requests and with no smaller ``limit`` (:mod:`abductive_tasks.runs.history`); an upstream stage
only when its readers accept its run's output, bound to its limit (:func:`~abductive_tasks.runs.levels.refreshed`).
Each model runs as one ``abductive-eval`` subprocess per level of its chained tasks (:mod:`abductive_tasks.runs.chain`:
the upstream stages a task reads first, one level after another), each writing to ``<output_dir>/<name>/runs/<run>/``;
each run's response cache ``<name>/cache/<hash>`` (of the identity and what the run's tasks read; that hash is
lmms-eval's cache run id) lets a rerun reuse the answers an interrupted run stored, never across data, settings or
upstream outputs. A reader's identity holds what it reads by content (:func:`~abductive_tasks.runs.levels.refreshed`),
so an upstream stage run again makes it pending.

A :class:`~abductive_tasks.runs.model_plan.BatchPlan` (:func:`plan`) is built once and never changed: per model a
:class:`~abductive_tasks.runs.model_plan.ModelPlan` with what the later stages need (its tasks' facts, looked up once;
identity, environment, secrets, command lines and a served route's client variables with the words a run fills in) and
the judge's :class:`~abductive_tasks.runs.model_plan.JudgePlan`, so the levels, running and recording read fields and
call nothing here: the plan as each level of a chain finds it is :mod:`~abductive_tasks.runs.levels`'.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.inputs.loading import ENV_VAR, data_folder_problem
from abductive_tasks.inputs.stages import StageError
from abductive_tasks.lmms_source import limit_value, model_arg_entries
from abductive_tasks.redaction import collect_secrets, redact_text, reserved_word
from abductive_tasks.runs import chain
from abductive_tasks.runs.history import Scan
from abductive_tasks.runs.identity import build_identity, data_fingerprint
from abductive_tasks.runs.identity_record import RUNS_DIR
from abductive_tasks.runs.levels import other_runs, refreshed
from abductive_tasks.runs.model_plan import (
    CACHE,
    EVAL_PROGRAM,
    HOST,
    JUDGE_PORT,
    PORT,
    RUN_FOLDER,
    TASKS,
    BatchPlan,
    JudgePlan,
    ModelPlan,
)
from abductive_tasks.runs.spec import JUDGE_LOG, BatchSpec, JudgeSpec, ModelSpec, SpecError, limits_given
from abductive_tasks.runs.stage_limits import by_stage_limit
from abductive_tasks.runs.stage_limits import stage_limits as stage_limits_of
from abductive_tasks.runs.task_index import GENERATION_ONLY_BACKENDS, TaskFacts, TaskIndex
from abductive_tasks.runs.vllm import (
    PLACEHOLDER_API_KEY,
    KeyClash,
    SecretOnCommandLine,
    ServerPlan,
    client_env,
    inprocess_model_args,
    judge_env,
    served_model_args,
    server_key,
    server_plan,
)


def plan(spec: BatchSpec, task_index: TaskIndex, only: list[str] | None = None) -> BatchPlan:
    """The batch's plan: the judge's (:func:`judge_plan`), then per model (describers first) its tasks with the
    upstream stages they read, by level, its identity with what each reads now, and what is done."""
    judge = judge_plan(spec)
    plans = _model_plans(spec, task_index, only, judge)
    for model_plan in plans:
        check_data(spec, model_plan)
    return BatchPlan(tuple(plans), judge)


def check_data(spec: BatchSpec, model_plan: ModelPlan) -> None:
    """Refuse, before any model loads, an ``ABDUCTIVE_DATA`` (the model's ``env``, the spec's or the inherited
    environment's) that is no folder holding the benchmarks of the model's tasks: once, not a failed run per model."""
    choice = settings.raw(ENV_VAR, model_plan.environment)
    benchmarks = {fact.benchmark for fact in model_plan.facts.values() if fact.benchmark}
    if problem := data_folder_problem(choice, benchmarks):
        setters = ((f"models[{model_plan.model.name}].env", model_plan.model.env), ("env", spec.env))
        where = next((label for label, env in setters if ENV_VAR in env), "environment")
        raise SpecError(f"{where}: {problem}")


def requested_limit(spec: BatchSpec, model: ModelSpec) -> int | float | None:
    """The ``--limit`` a model's run gets: the spec's ``limit:``, overridden by a ``--limit`` in the spec's
    ``eval_args`` and then in the model's (they come later on the command line, and the last one wins)."""
    given = limits_given([*spec.eval_args, *model.eval_args])  # each checked when the spec was built
    return limit_value(float(given[-1]) if given else spec.limit)


def image_limit(facts: Iterable[TaskFacts]) -> int:
    """vLLM's ``limit_mm_per_prompt`` image count for running tasks with ``facts``: the largest declared."""
    return max((fact.max_images_per_prompt for fact in facts), default=0)


def token_floor(facts: Iterable[TaskFacts], default: int = 256) -> int:
    """The smallest generation budget among tasks with ``facts``: as vLLM's floor it leaves every task's own budget
    in force."""
    return min((fact.max_new_tokens for fact in facts if fact.max_new_tokens), default=default)


def model_args_for(model: ModelSpec, facts: list[TaskFacts]) -> str:
    """The ``--model_args`` a model runs with; fixed by the spec's whole task list (``facts``), so resumed runs keep
    it."""
    if model.route == "vllm":
        images = image_limit(facts)
        max_new_tokens = model.max_new_tokens or token_floor(facts)
        return inprocess_model_args(model.vllm, images, max_new_tokens)
    if model.route == "served":
        return served_model_args(model.vllm, model.model_args)
    return model.model_args


def _judge_description(judge: JudgeSpec | None, environment: Mapping[str, str]) -> dict | None:
    """What of the judge decides judged scores (a served judge's port and URL change from run to run); without a
    spec's judge, the one the run's ``environment`` configures (:func:`~abductive_tasks.settings.environment_judge`:
    a walkthrough's spec `env` judge was recorded as none, and rows of two judges compared as one setting)."""
    if judge is None:
        return settings.environment_judge(environment)
    if judge.url:  # its env only when it has one: the identities of endpoints without one stay as they were
        endpoint = {"url": judge.url, "model_version": judge.model_version, "api_type": judge.api_type}
        return endpoint | ({"env": judge.env} if judge.env else {})
    return {"vllm": asdict(judge.vllm), "api_type": judge.api_type, "env": judge.env}


def model_identity(
    spec: BatchSpec,
    model: ModelSpec,
    model_args: str,
    facts: list[TaskFacts],
    secrets: tuple[str, ...],
    root: Path,
    fingerprints: dict | None = None,
) -> dict:
    """The identity of ``model``'s run over the tasks with ``facts``, each of its ``secrets`` (:func:`model_secrets`)
    hashed under any name (``root``: where derived files live; ``fingerprints``: a memo of data fingerprints by
    benchmark and source)."""
    fingerprints = {} if fingerprints is None else fingerprints
    env = {**spec.env, **model.env}
    judge = _judge_description(spec.judge, {**os.environ, **env})
    tasks = {fact.name: chain.task_entry(fact, {**os.environ, **env}, root) for fact in facts}
    choice = {**os.environ, **env}.get(ENV_VAR, "").strip()
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
        judge=judge,
        tasks=tasks,
        data=data,
        secrets=secrets,
    )


def model_secrets(spec: BatchSpec, model: ModelSpec, model_args: str) -> tuple[str, ...]:
    """Clear secret values a model's run receives (:func:`~abductive_tasks.redaction.collect_secrets`):
    never written to its log, cache, identity, server log or console line."""
    judge = spec.judge
    mappings = [
        spec.env,
        judge.env if judge else {},
        judge.vllm.extra_args if judge and judge.vllm else {},
        model.env,
        model.vllm.extra_args if model.vllm else {},
    ]
    return _secrets(spec, mappings, model_args, [*spec.eval_args, *model.eval_args])


def _secrets(spec: BatchSpec, mappings: list, model_args: str = "", args: Sequence[str] = ()) -> tuple[str, ...]:
    """The spec's secrets and those a run given ``mappings``, ``model_args``, ``args`` and the inherited environment
    receives, once each."""
    found = collect_secrets(model_args, args, mappings, os.environ)
    return tuple(dict.fromkeys([*spec.secrets, *found]))


def _model_plans(
    spec: BatchSpec, task_index: TaskIndex, only: list[str] | None, judge: JudgePlan | None
) -> list[ModelPlan]:
    """The models' plans of :func:`plan` (``only``: these models and their describers), a served model's evaluation
    wired to ``judge`` as well."""
    task_set = task_index.task_set(spec.tasks)
    facts, reads_of = task_set.facts, {task: fact.reads for task, fact in task_set.facts.items()}.__getitem__
    describers = {model.name: model.describer for model in spec.models if model.describer}
    environments = {model.name: {**os.environ, **spec.env, **model.env} for model in spec.models}
    describing = chain.describing(describers, environments, reads_of, task_set.named)
    named = set(describing) | {model.describer for model in spec.models if only and model.name in only}
    plans, by_name = [], {}
    fingerprints: dict = {}
    for model in sorted(spec.models, key=lambda model: model.name not in describing):
        if only and model.name not in only and model.name not in named:
            continue
        environment = environments[model.name]
        sources = {"descriptions": model.describer} if model.describer else {}
        wanted = chain.with_upstream([*task_set.named, *describing.get(model.name, [])], reads_of, environment, sources)
        runnable = [task for task in wanted if model.backend not in GENERATION_ONLY_BACKENDS or facts[task].generates]
        feeds = {up: kind for task in runnable for up, kind in chain.run_reads(reads_of(task), environment).items()
                 if kind not in sources} | dict.fromkeys(describing.get(model.name, []), "descriptions")  # fmt: skip
        root = settings.cache_root(environment)
        limit = requested_limit(spec, model)
        stage_limits = stage_limits_of([task for task in runnable if task in feeds], limit, environment)
        # one run per level and --limit: a stage whose run gets its own limit runs on its own (ModelPlan.run_limit)
        levels = [
            group
            for level in chain.levels(runnable, reads_of, environment, sources)
            for group in by_stage_limit(level, limit, stage_limits)
        ]
        if any(kind in sources for task in runnable for kind in chain.run_reads(reads_of(task), environment).values()):
            described_limit(model.name, limit, by_name[model.describer])
        model_args = model_args_for(model, [facts[task] for task in runnable])
        secrets = model_secrets(spec, model, model_args)
        identity = model_identity(
            spec, model, model_args, [facts[task] for task in runnable], secrets, root, fingerprints
        )
        output = spec.output_dir / model.name
        env = model_env(model)
        arguments = eval_arguments(spec, model, model_args, Path(CACHE), [TASKS], Path(RUN_FOLDER))
        if (reserved := reserved_word(arguments)) is not None:
            raise SpecError(f"models[{model.name}]: {reserved}")
        server, served_env = _served_route(spec, model, [facts[task] for task in runnable], output, env, secrets, judge)
        model_plan = ModelPlan(
            model=model,
            tasks=tuple(runnable),
            unsupported=tuple(task for task in wanted if task not in runnable),
            done=(),
            waiting={},
            feeds=feeds,
            unusable={},
            model_args=model_args,
            output=output,
            identity=identity,
            earlier=Scan(),
            secrets=secrets,
            limit=limit,
            stage_limits=stage_limits,
            levels=tuple(map(tuple, levels)),
            sources=sources,
            environment=environment,
            derived_root=root,
            env=env,
            eval_command=(*EVAL_PROGRAM, *arguments),
            server=server,
            client_env=served_env,
            check_ray=model.route == "vllm" or (server is not None and spec.vllm_executable == "vllm"),
            spec_path=str(spec.path),
            facts={task: facts[task] for task in wanted},
            asked=tuple(task for task in runnable if task in task_set.named),
        )
        model_plan = refreshed(model_plan, by_name)
        by_name[model.name] = model_plan
        if not only or model.name in only:
            plans.append(model_plan)
    _check_only(spec, only, plans)
    return plans


def _check_only(spec: BatchSpec, only: list[str] | None, plans: list[ModelPlan]) -> None:
    """Refuse a ``--model`` name of no model of the spec, listing the spec's models."""
    unknown = set(only or ()) - {model_plan.model.name for model_plan in plans} - set(spec.invalid)
    if unknown:
        names = sorted({model.name for model in spec.models} | set(spec.invalid))
        raise SpecError(
            f"--model: no model of the spec is named {', '.join(sorted(unknown))}; its models: {', '.join(names)}"
        )


def described_limit(name: str, limit: int | float | None, describer: ModelPlan) -> None:
    """Refuse model ``name`` (``limit``: its ``--limit``) reading the descriptions of ``describer`` when its runs
    cannot give them: a reader reads the output of a run with its own ``--limit`` or none
    (:func:`~abductive_tasks.inputs.stages.checked`)."""
    if describer.limit not in (None, limit):
        mine = "none" if limit is None else f"--limit {limit}"
        raise StageError(
            f"{name} reads the descriptions of {describer.model.name}, which runs with --limit {describer.limit}, and "
            f"{name} with {mine}: give {describer.model.name} the same --limit, or none"
        )


def eval_arguments(
    spec: BatchSpec, model: ModelSpec, model_args: str, cache: Path, tasks: list[str], run_dir: Path
) -> list[str]:
    """The ``abductive-eval`` arguments of one model's run over ``tasks``, writing its results into ``run_dir``."""
    arguments = ["--model", model.backend]
    if model_args:
        arguments += ["--model_args", model_args]
    arguments += ["--tasks", ",".join(tasks), "--output_path", str(run_dir), "--use_cache", str(cache)]
    if spec.limit is not None:
        arguments += ["--limit", str(spec.limit)]
    extra = [*spec.eval_args, *model.eval_args]
    # the per-document records: the leaderboard's paired comparisons and ties are computed from them
    logging = [] if "--log_samples" in extra else ["--log_samples"]
    return [*arguments, *logging, *extra]


def judge_plan(spec: BatchSpec) -> JudgePlan | None:
    """The spec's judge: a served one's ``vllm serve`` line (a text-only model, so no multimodal limit), variables
    and secrets, its evaluations sending the key it requires; None without a judge. One already running at a URL is
    only wired: every evaluation gets its ``env`` with the variables, its ``OPENAI_API_KEY`` the key sent."""
    judge = spec.judge
    if judge is None:
        return None
    environment = {**os.environ, **spec.env, **judge.env}  # a served judge's server's
    if judge.url:
        key = environment.get("OPENAI_API_KEY")
        wired = judge.env | judge_env(judge.url, str(judge.model_version), judge.api_type, key)
        return JudgePlan(None, None, wired, False)
    secrets = _secrets(spec, [spec.env, judge.env, judge.vllm.extra_args])
    log, env = spec.output_dir / JUDGE_LOG, {**spec.env, **judge.env}
    port = (judge.port, JUDGE_PORT)
    try:
        server = server_plan(
            "judge", judge.vllm, None, HOST, port, spec.vllm_executable, log, env, spec.health_timeout, secrets
        )
    except SecretOnCommandLine as refused:
        raise SpecError(f"judge: {refused}") from None
    url = f"http://{HOST}:{judge.port or JUDGE_PORT}/v1"
    wired = judge_env(url, judge.vllm.name_served, judge.api_type, server_key(judge.vllm, environment))
    return JudgePlan(judge.vllm, server, wired, spec.vllm_executable == "vllm")


def _served_route(
    spec: BatchSpec,
    model: ModelSpec,
    facts: list[TaskFacts],
    output: Path,
    env: dict[str, str],
    secrets: tuple[str, ...],
    judge: JudgePlan | None,
) -> tuple[ServerPlan | None, dict[str, str]]:
    """A served model's server, and the variables its evaluation gets to reach it (:data:`PORT` in the URL until the
    port is known), beside the judge's; (None, {}) on the other routes."""
    if model.route != "served":
        return None, {}
    log = output / "server.log"
    images = image_limit(facts)
    try:
        server = server_plan(
            model.name,
            model.vllm,
            images,
            HOST,
            (model.port, PORT),
            spec.vllm_executable,
            log,
            env,
            spec.health_timeout,
            secrets,
        )
    except SecretOnCommandLine as refused:
        raise SpecError(f"models[{model.name}]: {refused}") from None
    inherited = {**os.environ, **spec.env, **(judge.client_env if judge else {}), **env}  # the server's too
    # the key its server requires, unless the model is given one of its own (model_args api_key, read before
    # OPENAI_API_KEY by lmms-eval's openai backend)
    own = any(entry.partition("=")[0].strip() == "api_key" for entry in model_arg_entries(model.model_args))
    try:
        return server, client_env(
            f"http://{HOST}:{model.port or PORT}/v1", inherited, None if own else server_key(model.vllm, inherited)
        )
    except KeyClash as clash:
        raise SpecError(f"models[{model.name}]: {clash}") from None


def model_env(model: ModelSpec) -> dict[str, str]:
    """The variables one model's run (evaluation and server) gets over the batch's (each run's response cache adds
    its own: :meth:`~abductive_tasks.runs.model_plan.ModelPlan.evaluation`)."""
    # PYTHONSAFEPATH: `-m` would otherwise put the working directory first on sys.path, and a
    # source checkout there shadows the installed package (whose task YAML lives only in the install).
    return {**model.env, "PYTHONSAFEPATH": "1"}


# The run folder made at start, as the printed commands show it (and the response cache of a level whose inputs are
# still to be made: chain.NEW_CACHE).
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


def stage_note(model_plan: ModelPlan, tasks: list[str]) -> str:
    """What one level runs and reads, for ``--print-commands``."""
    reads = []
    for task in tasks:
        inputs = model_plan.identity["tasks"][task].get("inputs") or {}
        by_kind: dict[str, list[str]] = {}
        for upstream, read in inputs.items():
            source = read.get("from") if read.get("from") != "run" else (read.get("model") or "")
            by_kind.setdefault(read["kind"], []).append(upstream + (f" (of {source})" if source else ""))
        reads += [f"{task} reads the {kind} of {', '.join(ups)}" for kind, ups in by_kind.items()]
    if tasks and (limit := model_plan.run_limit(tasks[0])) != model_plan.limit:
        reads.append(f"--limit {limit}: what its readers read under --limit {model_plan.limit}")
    return ", ".join(tasks) + (f"; {'; '.join(reads)}" if reads else "")


def stage_variables(model_plan: ModelPlan, tasks: list[str], plans: list[ModelPlan]) -> dict[str, str]:
    """The stage variables a level gets, as far as known now: an upstream output still to be made is shown by what
    makes it (``<picks of mucr_c2e from stage 1>``)."""
    others = other_runs({other.model.name: other for other in plans})
    variables = chain.level_env(model_plan.model.name, model_plan.identity, model_plan.limit, tasks, others)
    given = json.loads(variables[chain.INPUTS_VARIABLE])
    for task in tasks:
        for upstream in model_plan.waiting.get(task, []):
            kind = model_plan.identity["tasks"][task]["inputs"][upstream]["kind"]
            given[upstream] = f"<{kind} of {upstream} from its stage>"
    return variables | {chain.INPUTS_VARIABLE: json.dumps(given, sort_keys=True)}


def print_commands(spec: BatchSpec, whole: BatchPlan, job_lines: bool = True) -> None:
    """Show what a run starts, starting nothing: per model its server and evaluation command lines, with the
    variables they get over the inherited environment (as ``#`` comments), then with ``job_lines`` one
    self-contained command per model (e.g. one per Slurm array task: ``grep -v '^#'``)."""
    added, plans, judge = dict(spec.env), list(whole.models), whole.judge
    if judge is not None and judge.server is not None:
        port_note = "" if judge.server.port else f"; {JUDGE_PORT}: a free port chosen at start"
        print(f"# judge, served for the whole batch (log {judge.server.log}){port_note}")
        print(f"#   {shell_line(list(judge.server.command), judge.server.env, spec.secrets)}")
    added |= judge.client_env if judge is not None else {}
    for label, why in spec.invalid.items():
        print(f"# {label}: not run: " + redact_text(why, spec.secrets).replace("\n", "\n#   "))
    for model_plan in plans:
        model = model_plan.model
        env = {**added, **model_plan.env}
        pending = f"runs {', '.join(model_plan.pending)}" if model_plan.pending else "nothing to run"
        print(
            f"# {model.name} (route {model.route}): {pending} ({len(model_plan.done)} of {len(model_plan.tasks)} "
            "done earlier)"
        )
        if model_plan.unsupported:
            print(
                f"#   backend {model.backend} cannot run {', '.join(model_plan.unsupported)} (loglikelihood); skipped"
            )
        for task in model_plan.unusable:
            print(f"#   {model_plan.unusable_note(task)}")
        for note in filter(None, map(model_plan.doubt_note, model_plan.pending)):
            print(f"#   {note}")
        if model_plan.pending and model_plan.server is not None:
            port = model.port or PORT
            print(
                f"#   server (log {model_plan.output / 'server.log'})"
                + ("" if model.port else f"; {PORT}: a free port chosen at start")
            )
            server_line = shell_line(list(model_plan.server.command), env, model_plan.secrets)
            print(f"#   {server_line}")
            print(f"#   evaluation, once http://{HOST}:{port}/health answers 200 (the server is stopped after it)")
            env |= model_plan.client_env
        for number, tasks in enumerate(model_plan.pending_levels, 1):
            if len(model_plan.levels) > 1:
                print(f"#   stage {number}: {stage_note(model_plan, tasks)}")
            run_folder = str(model_plan.output / RUNS_DIR / NEW_RUN)
            waits = model_plan.waiting.keys() & set(tasks)  # its cache is named by inputs still to be made
            cache = model_plan.output / "cache" / chain.NEW_CACHE if waits else model_plan.cache(tasks)
            eval_command_line, cache_env = model_plan.evaluation(tasks, run_folder, cache)
            level_env = env | cache_env | (stage_variables(model_plan, tasks, plans) if model_plan.chained else {})
            print(f"#   {shell_line(eval_command_line, level_env, model_plan.secrets)}")
        if job_lines:
            print(shlex.join(["abductive-eval", "batch", str(spec.path), "--model", model.name]))
