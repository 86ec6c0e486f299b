"""A batch spec: the models of a leaderboard, the tasks, and how each model runs, read and checked.

A spec (see ``utils/specs/sample_leaderboard.yaml``)::

    output_dir: results/leaderboard        # relative to the spec file
    tasks: [abductive]                     # task or group names
    limit: null                            # lmms-eval --limit
    env: {ABDUCTIVE_DATA: sample}          # for every run
    eval_args: [--batch_size, "1"]         # more lmms-eval arguments for every run
    vllm_executable: vllm                  # what `vllm serve` is started with
    judge: {model: Qwen/Qwen2.5-72B-Instruct, tensor_parallel_size: 4}   # optional served judge
    models:
      - {name: dumb_pixel, backend: dumb_pixel}
      - {name: qwen-72b, route: vllm, model: Qwen/Qwen2.5-VL-72B-Instruct, tensor_parallel_size: 4}
      - {name: internvl, route: served, model: OpenGVLab/InternVL3-8B, tensor_parallel_size: 2}

Routes: ``lmms`` (default; any lmms-eval backend with its ``model_args``), ``vllm`` (lmms-eval
``--model vllm`` in process) and ``served`` (``vllm serve`` + lmms-eval ``--model openai``), see
:mod:`abductive_tasks.runs.vllm`.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveInt,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from abductive_tasks import lmms_source, settings
from abductive_tasks.hints import LIST_MODELS, did_you_mean
from abductive_tasks.inputs.loading import ENV_VAR
from abductive_tasks.redaction import collect_secrets, redact_text
from abductive_tasks.runs.status import STATUS_FILE
from abductive_tasks.runs.vllm import (
    VllmSettings,
    format_model_args,
    model_args_problem,
    with_preset,
)

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")  # \Z: `$` would match before a final newline
NAME_MAX = 100  # a folder name, with room for what lmms-eval and the batch add below it
# What the batch writes at the top of output_dir beside the model folders (<output_dir>/<name>): no model is named so.
# Temporary files (.batch_status.json.*.tmp) start with a dot, which no model name does.
LOCK_FILE = ".batch.lock"
JUDGE_LOG = "judge_server.log"
LEADERBOARD_FOLDER = "leaderboard"  # `abductive-eval leaderboard OUTPUT_DIR` writes there by default
BATCH_NAMES = (STATUS_FILE, LOCK_FILE, JUDGE_LOG, LEADERBOARD_FOLDER)
VLLM_KEYS = (
    "model",
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "max_model_len",
    "gpu_memory_utilization",
    "served_model_name",
)


class SpecError(ValueError):
    """A malformed batch spec; the message names the field."""


# ---------------------------------------------------------------- the schema: what a spec file may hold

Scalar = StrictStr | StrictInt | StrictFloat | StrictBool


def _no_nul(value: object, where: str = "") -> None:
    """Refuse a NUL byte anywhere in a value: no command line, file name or environment can hold one."""
    if isinstance(value, str) and "\x00" in value:
        raise ValueError(f"{where or 'value'} holds a NUL byte")
    if isinstance(value, dict):
        for key, item in value.items():
            _no_nul(str(key), f"{where}.{key}".lstrip("."))
            _no_nul(item, f"{where}.{key}".lstrip("."))
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _no_nul(item, f"{where}[{index}]")


ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


def _env_names(env: dict | None) -> dict | None:
    """Refuse an ``env`` key that is no variable name (``"A=B"``, a space): no process environment can hold it."""
    for name in env or {}:
        if not ENV_NAME.match(name):
            raise ValueError(f"{name!r} is not a variable name (letters, digits and _, not starting with a digit)")
    return env


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _refuse_nul(cls, data: object) -> object:
        _no_nul(data)
        return data

    @field_validator("env", check_fields=False)
    @classmethod
    def _variable_names(cls, env: dict | None) -> dict | None:
        return _env_names(env)


class _VllmEntry(_Entry):
    """vLLM settings (route vllm or served, or a served judge); null leaves a preset's value out."""

    preset: str | None = None
    model: str | None = None
    tensor_parallel_size: PositiveInt | None = None
    pipeline_parallel_size: PositiveInt | None = None
    max_model_len: PositiveInt | None = None
    gpu_memory_utilization: float | None = Field(default=None, gt=0, le=1)
    served_model_name: str | None = None
    vllm_args: dict[str, Any] | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    env: dict[str, Scalar] | None = None


class ModelEntry(_VllmEntry):
    """One ``models:`` entry."""

    name: str = Field(max_length=NAME_MAX)
    route: Literal["lmms", "vllm", "served"] = "lmms"
    backend: str | None = None
    model_args: str | dict[str, Any] | None = None
    max_new_tokens: PositiveInt | None = None
    eval_args: list[Scalar] | None = None
    describer: str | None = None  # NL-Eye image-to-text (t.1): another model of the spec describes for this one

    @field_validator("model_args")
    @classmethod
    def _read_back_as_given(cls, model_args: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        """Refuse a mapping lmms-eval would read otherwise (``{response: "1,extra=zz"}`` ran with two entries)."""
        if isinstance(model_args, dict) and (problem := model_args_problem(model_args)):
            raise ValueError(problem)
        return model_args

    @field_validator("name")
    @classmethod
    def _folder_safe(cls, name: str) -> str:
        if not NAME_PATTERN.match(name):
            raise ValueError(f"{name!r} must be a folder-safe name (letters, digits, . _ -; a letter or digit first)")
        return name


class JudgeEntry(_VllmEntry):
    """The ``judge:`` entry: a served model (``model`` ...) or an endpoint (``url``, ``model_version``)."""

    url: str | None = None
    model_version: str | None = None
    api_type: str = "openai"

    @field_validator("url")
    @classmethod
    def _base_url(cls, url: str | None) -> str | None:
        """A base URL lmms-eval 0.7.3's judge keeps (:func:`~abductive_tasks.settings.judge_url_problem`): refused
        otherwise, the key has its place."""
        if problem := settings.judge_url_problem(url):
            raise ValueError(f"{problem} in the judge's env")
        return url


class SpecFile(_Entry):
    """A spec file's top level; ``models`` entries are checked one by one (:class:`ModelEntry`)."""

    models: list[Any]
    tasks: StrictStr | list[StrictStr]
    output_dir: str = "results"
    limit: float | None = Field(default=None, gt=0)
    env: dict[str, Scalar] | None = None
    eval_args: list[Scalar] | None = None
    vllm_executable: str = "vllm"
    judge: JudgeEntry | None = None
    health_timeout: float = Field(default=1800.0, gt=0)

    @field_validator("env")
    @classmethod
    def _variable_names(cls, env: dict | None) -> dict | None:
        return _env_names(env)

    @model_validator(mode="before")
    @classmethod
    def _refuse_nul(cls, data: object) -> object:  # models: checked one by one
        _no_nul({key: value for key, value in data.items() if key != "models"} if isinstance(data, dict) else data)
        return data


def _fields_of(schema: type[BaseModel], location: tuple) -> list[str]:
    """The keys allowed where ``location`` points (for a did-you-mean)."""
    for part in location:
        field_info = schema.model_fields.get(part) if isinstance(part, str) else None
        annotation = getattr(field_info, "annotation", None)
        nested = next(
            (
                kind
                for kind in (annotation, *get_args(annotation))
                if isinstance(kind, type) and issubclass(kind, BaseModel)
            ),
            None,
        )
        if nested is None:
            break
        schema = nested
    return list(schema.model_fields)


def _where(prefix: str, location: tuple) -> str:
    """``models[0].env`` from pydantic's location (union member tags such as ``str`` or ``dict[str,any]`` left out)."""
    text = prefix
    for part in location:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part in _TYPE_TAGS or "[" in part or part.startswith(("function-", "constrained-")):
            break
        else:
            text += f".{part}" if text else part
    return text or "spec"


_TYPE_TAGS = {"str", "int", "float", "bool", "list", "dict", "none"}


def describe(error: ValidationError, schema: type[BaseModel], prefix: str = "") -> str:
    """A pydantic error as lines naming each field, what it should be and what it got; an unknown key with the
    nearest known one."""
    lines: dict[str, list[str]] = {}
    for item in error.errors():
        location = tuple(item["loc"])
        where = _where(prefix, location)
        if item["type"] == "extra_forbidden":
            key = str(location[-1])
            near = difflib.get_close_matches(key, _fields_of(schema, location[:-1]), n=1)
            hint = f"; did you mean `{near[0]}`?" if near else ""
            lines.setdefault(where, []).append(f"unknown key{hint}")
            continue
        message = item["msg"].removeprefix("Value error, ")
        message = message[0].lower() + message[1:] if message else message
        lines.setdefault(where, []).append(message)
    described = []
    for where, messages in lines.items():
        unique = list(dict.fromkeys(messages))
        if len(unique) > 1 and all(message.startswith("input should be") for message in unique):
            unique = ["input should be " + " or ".join(message.removeprefix("input should be ") for message in unique)]
        described.append(f"{where}: {'; '.join(unique)}")
    return "\n".join(described)


def _validated(schema: type[_Entry], entry: object, prefix: str) -> _Entry:
    try:
        return schema.model_validate(entry)
    except ValidationError as error:
        raise SpecError(describe(error, schema, prefix)) from None


# What the batch decides for every run (the model's identity, its folders): eval_args may not set them again.
RESERVED_OPTIONS = ("--model", "--model_args", "--tasks", "--output_path", "--use_cache", "--include_path")
# lmms-eval's -c is --use_cache; its switches -w and -x may come before it in one word (-xc PATH).
SHORT_USE_CACHE = re.compile(r"-[wx]*c")
# lmms-eval options eval_args may not hold (-> why): what they change escapes the run's identity, or no run they make
# is a score.
REFUSED_OPTIONS = {
    "--cache_requests": (
        "lmms-eval's request cache is keyed by task name only, so changed data or a stage's new output would be "
        "prompted with the old text (only `--cache_requests delete` is allowed: it deletes the cache)"
    ),
    "--config": (
        "lmms-eval's config file may set model_args and env (ABDUCTIVE_DATA ...) the run's identity never sees; "
        "a spec is the config: put the settings in the spec"
    ),
    "--offset": (
        "the documents before it are never asked, so no run is a score, and a chained task's stages answer the "
        "documents from the offset on, which it skips again; `limit:` runs the first N"
    ),
}
# a refused option's allowed values: `--cache_requests delete` deletes the cache; an offset of 0 skips none
ALLOWED: dict[str, Callable[[str], bool]] = {
    "--cache_requests": lambda value: value == "delete",
    "--offset": lambda value: not lmms_source.skips_documents(value),
}


def _check_eval_args(arguments: tuple[str, ...], where: str) -> None:
    """Refuse an ``eval_args`` option that would override what the batch sets, and so what the run's identity says
    (a backend or ``model_args`` of another model), and one whose effect the identity cannot see
    (:data:`REFUSED_OPTIONS`); argparse's abbreviations (``--model_arg``, ``--conf``) and ``--option=value`` count
    too. The message names the option only: its value may hold a secret."""
    for index, argument in enumerate(arguments):
        option, equals, value = argument.partition("=")
        long, short = len(option) > 2 and option.startswith("--"), SHORT_USE_CACHE.match(argument)
        if short or (long and any(name.startswith(option) for name in RESERVED_OPTIONS)):
            spelt = f"{short[0]} (-c: --use_cache)" if short else option
            raise SpecError(
                f"{where}: {spelt} would override what the batch sets ({', '.join(RESERVED_OPTIONS)}); set the "
                "model's `backend`, `model_args` or the spec's `tasks` / `output_dir` instead"
            )
        if not long:
            continue
        given = value if equals else (arguments[index + 1] if index + 1 < len(arguments) else None)
        for name, why in REFUSED_OPTIONS.items():
            allowed = ALLOWED.get(name)
            if name.startswith(option) and not (allowed and given is not None and allowed(given)):
                spelt = option if option == name else f"{option} ({name})"
                raise SpecError(f"{where}: {spelt} is refused: {why}")


PLUGINS_VARIABLE = "LMMS_EVAL_PLUGINS"  # lmms-eval imports these packages, which may register models


def _check_backend(backend: str, where: str) -> None:
    """Refuse a backend lmms-eval does not know, with the closest names, when planned (``--print-commands`` too), not
    when its evaluation starts."""
    known = lmms_source.quick_model_names()  # None where lmms-eval's source cannot be read: its evaluation says
    if backend and known is not None and backend not in known:
        hint = did_you_mean(backend, known)
        raise SpecError(f"{where}.backend: unknown lmms-eval model {backend!r}{hint}; {LIST_MODELS}")


def limits_given(words: Sequence[str]) -> list[str]:
    """The values of every ``--limit`` among command-line ``words`` (spelt out), in order: the last one counts."""
    return [
        word.partition("=")[2] if word.startswith("--limit=") else words[index + 1]
        for index, word in enumerate(words)
        if word.startswith("--limit=") or (word == "--limit" and index + 1 < len(words))
    ]


def _checked_eval_args(values: list | None, where: str) -> tuple[str, ...]:
    """The words of an ``eval_args`` list once checked (as typed: a refusal names the user's words), each option
    argparse would take as an abbreviation written in full (:func:`~abductive_tasks.lmms_source.spelt_out`: ``--lim
    2`` is the run's ``--limit``, which what reads the limit, the identity included, must see)."""
    arguments = tuple(str(value) for value in values or ())
    _check_eval_args(arguments, where)
    spelt = tuple(lmms_source.spelt_out_args(arguments))
    for given in limits_given(spelt):  # a --limit lmms-eval would not run as asked: this entry fails, not the batch
        try:
            problem = lmms_source.limit_problem(float(given))
        except ValueError:
            problem = "not a number"
        if problem:
            raise SpecError(f"{where}: --limit {given}: {problem}")
    return spelt


def _model_args_string(value: str | dict | None) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else format_model_args(value)


def _vllm_settings(entry: dict, where: str) -> VllmSettings:
    try:
        entry = with_preset(entry, where)
    except ValueError as error:
        raise SpecError(str(error)) from None
    if "model" not in entry:
        raise SpecError(f"{where}: a vLLM model needs `model` (hub id or local folder)")
    known = {key: entry[key] for key in VLLM_KEYS if key in entry}
    return VllmSettings(**known, extra_args=dict(entry.get("vllm_args") or {}))


@dataclass(frozen=True)
class ModelSpec:
    """One leaderboard row: how to run the model."""

    name: str
    route: str = "lmms"
    backend: str = ""
    model_args: str = ""
    vllm: VllmSettings | None = None
    max_new_tokens: int | None = None
    port: int | None = None
    env: dict = field(default_factory=dict)
    eval_args: tuple[str, ...] = ()
    describer: str = ""  # the model whose descriptions this one predicts from (NL-Eye t.1); '' = its own

    @classmethod
    def from_dict(cls, entry: dict, index: int, plugins: bool = False) -> ModelSpec:
        """A model entry, checked (``plugins``: the spec's env names plugins that may register its backend)."""
        where = f"models[{index}]"
        if not isinstance(entry, dict):
            raise SpecError(f"{where}: a model entry is a mapping (name, backend, ...), not {entry!r}")
        entry = _validated(ModelEntry, entry, where).model_dump(exclude_unset=True)
        name, route = entry["name"], entry.get("route", "lmms")
        if name.casefold() in {taken.casefold() for taken in BATCH_NAMES}:  # casefold: a case-insensitive disk
            raise SpecError(
                f"{where}.name: {name!r} is what the batch writes in output_dir ({', '.join(BATCH_NAMES)}); "
                "name the model otherwise"
            )
        if route == "lmms" and not entry.get("backend"):
            raise SpecError(f"{where}: route lmms needs `backend` (an lmms-eval --model name)")
        if not plugins and PLUGINS_VARIABLE not in (entry.get("env") or {}):  # else registered in its evaluation
            _check_backend(str(entry.get("backend") or ""), where)
        if route == "lmms" and entry.get("preset"):
            raise SpecError(f"{where}.preset: presets are vLLM settings, for route vllm or served")
        default_backend = {"lmms": "", "vllm": "vllm", "served": "openai"}[route]
        return cls(
            name=name,
            route=route,
            backend=str(entry.get("backend") or default_backend),
            model_args=_model_args_string(entry.get("model_args")),
            vllm=_vllm_settings(entry, where) if route != "lmms" else None,
            max_new_tokens=entry.get("max_new_tokens"),
            port=entry.get("port"),
            env={key: str(value) for key, value in (entry.get("env") or {}).items()},
            eval_args=_checked_eval_args(entry.get("eval_args"), f"{where}.eval_args"),
            describer="" if entry.get("describer") in (None, name) else str(entry["describer"]),
        )


@dataclass(frozen=True)
class JudgeSpec:
    """A judge served by vLLM (``model`` ...) or an existing OpenAI-compatible endpoint (``url``, ``model_version``)."""

    vllm: VllmSettings | None = None
    url: str | None = None
    model_version: str | None = None
    api_type: str = "openai"
    port: int | None = None
    env: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, entry: dict) -> JudgeSpec:
        """The ``judge:`` entry checked; its ``env`` is a served judge's server's, an endpoint's every evaluation's."""
        entry = _validated(JudgeEntry, entry, "judge").model_dump(exclude_unset=True)
        env = {key: str(value) for key, value in (entry.get("env") or {}).items()}
        api_type = entry.get("api_type", "openai")
        if entry.get("url"):
            if not entry.get("model_version"):
                raise SpecError("judge: an endpoint `url` needs `model_version`")
            return cls(url=entry["url"], model_version=entry["model_version"], api_type=api_type, env=env)
        return cls(vllm=_vllm_settings(entry, "judge"), api_type=api_type, port=entry.get("port"), env=env)


@dataclass(frozen=True)
class BatchSpec:
    path: Path
    models: tuple[ModelSpec, ...]
    tasks: tuple[str, ...]
    output_dir: Path
    limit: int | float | None = None
    env: dict = field(default_factory=dict)
    eval_args: tuple[str, ...] = ()
    vllm_executable: str = "vllm"
    judge: JudgeSpec | None = None
    health_timeout: float = 1800.0
    invalid: dict[str, str] = field(default_factory=dict)  # model entries that cannot run: label -> why
    # every clear secret of the spec as written (malformed entries included) and of the inherited environment,
    # collected once: never written or printed by the batch (abductive_tasks.redaction)
    secrets: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """A ``limit`` lmms-eval 0.7.3 would not run as asked is refused however the spec was built (a file's, or
        ``serve``'s in code)."""
        if self.limit is not None and (why := lmms_source.limit_problem(self.limit)):
            raise SpecError(f"`limit: {self.limit:g}`: {why.replace('--limit', '`limit:`')}")


def _label(entry: object, index: int) -> str:
    """What names a bad model entry in the batch's status: its name when usable, else its position."""
    name = entry.get("name") if isinstance(entry, dict) else None
    if isinstance(name, str) and NAME_PATTERN.match(name) and len(name) <= NAME_MAX:
        return name
    return f"models[{index}]"


def _read_yaml(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError(f"{path}: cannot read the spec ({getattr(error, 'strerror', None) or error})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise SpecError(f"{path}: not valid YAML{at}: {problem}") from None


def check_environment(environment: dict[str, str], output_dir: Path, where: str) -> None:
    """The environment a run gets, checked before any model loads: every ``ABDUCTIVE_*`` value usable
    (:func:`~abductive_tasks.settings.problems`), and ``output_dir`` outside the data it evaluates (results there
    would enter the data fingerprint and make every result stale)."""
    wrong = settings.problems(environment)
    if wrong:
        raise SpecError(f"{where}: {'; '.join(wrong)}")
    choice = environment.get(ENV_VAR, "").strip()
    if choice and choice != "sample":
        data_root = Path(choice).expanduser().resolve()
        if output_dir == data_root or output_dir.is_relative_to(data_root):
            raise SpecError(
                f"output_dir {output_dir} is inside the data folder {ENV_VAR}={choice}: results written there would "
                "change the data's fingerprint; put them elsewhere"
            )


def load_spec(path: Path | str) -> BatchSpec:
    """Read and check a batch spec; relative ``output_dir`` resolves against the spec's folder.

    A malformed top level is a :class:`SpecError` naming each field; a malformed model entry fails alone: it is
    listed in ``invalid`` (the batch reports it and runs the others). Neither message holds a secret of the spec.
    """
    path = Path(path).resolve()
    raw = _read_yaml(path)
    secrets = collect_secrets(mappings=[raw], environment=os.environ)
    try:
        return _checked_spec(path, raw, secrets)
    except SpecError as error:
        raise SpecError(redact_text(str(error), secrets)) from None


def _checked_spec(path: Path, raw: object, secrets: tuple[str, ...]) -> BatchSpec:
    if not isinstance(raw, dict):
        raise SpecError(f"{path}: a spec is a mapping (models, tasks, ...), not {type(raw).__name__}")
    top = _validated(SpecFile, raw, "")
    if not top.models:
        raise SpecError(f"{path}: `models` lists no model")
    models, invalid = [], {}
    for index, entry in enumerate(top.models):
        try:
            models.append(ModelSpec.from_dict(entry, index, PLUGINS_VARIABLE in (top.env or {})))
        except SpecError as error:
            invalid[_label(entry, index)] = redact_text(str(error), secrets)
    names = [model.name for model in models] + list(invalid)
    if len(set(names)) != len(names):
        raise SpecError(f"{path}: model names repeat: {sorted(name for name in names if names.count(name) > 1)}")
    by_name = {model.name: model for model in models}
    for model in list(models):
        source = by_name.get(model.describer)
        if model.describer and (source is None or source.describer):
            why = "is no model of the spec" if source is None else "names a describer of its own"
            invalid[model.name] = f"models[{model.name}].describer: {model.describer!r} {why}"
            models.remove(model)
    tasks = tuple(top.tasks.split(",") if isinstance(top.tasks, str) else top.tasks)
    if not tasks:
        raise SpecError(f"{path}: `tasks` is empty")
    limit = top.limit
    env = {key: str(value) for key, value in (top.env or {}).items()}
    output_dir = (path.parent / top.output_dir).resolve()
    check_environment({**os.environ, **env}, output_dir, "env")
    judge = JudgeSpec.from_dict(raw["judge"]) if raw.get("judge") else None
    if judge is not None and judge.env:  # a URL judge's reach every evaluation
        check_environment({**os.environ, **env, **judge.env}, output_dir, "judge.env")
    for model in list(models):
        try:
            check_environment({**os.environ, **env, **model.env}, output_dir, f"models[{model.name}].env")
        except SpecError as error:
            invalid[model.name] = str(error)
            models.remove(model)
    return BatchSpec(
        path=path,
        models=tuple(models),
        tasks=tasks,
        output_dir=output_dir,
        limit=int(limit) if limit is not None and float(limit).is_integer() else limit,
        env=env,
        eval_args=_checked_eval_args(top.eval_args, "eval_args"),
        vllm_executable=top.vllm_executable,
        judge=judge,
        health_timeout=top.health_timeout,
        invalid=invalid,
        secrets=secrets,
    )
