"""Every ``ABDUCTIVE_*`` environment variable, read in this one module.

Each variable is declared once in :data:`VARIABLES` (name, default, what it does); code asks for
a typed value through the functions below, which read the environment at call time so that a
test or a batch child can change a variable between runs. ``abductive-eval --help`` lists the
same table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variable:
    name: str
    default: str
    help: str
    changes_scores: bool = True  # False: where files go or how fast, never a number (left out of a run's identity)
    benchmarks: tuple[str, ...] = ()  # the benchmarks whose scores it can change (abductive_tasks.<benchmark>); (): all


VARIABLES: dict[str, Variable] = {
    variable.name: variable
    for variable in (
        Variable(
            "ABDUCTIVE_DATA",
            "",
            "data for every benchmark: unset = official source, 'sample' = embedded sample, a path = local copies",
        ),
        Variable(
            "ABDUCTIVE_CACHE",
            "",
            "derived files (judge replies, extracted images, MuCR item lists, factored Sherlock chunks); "
            "default $XDG_CACHE_HOME/abductive_tasks",
            changes_scores=False,
        ),
        Variable(
            "ABDUCTIVE_IMAGE_CACHE_MB",
            "2048",
            "decoded-image cache budget in MB (images decode on first use, once per run within the budget)",
            changes_scores=False,
        ),
        Variable(
            "ABDUCTIVE_MAX_IMAGE_PIXELS", "64000000", "largest image accepted at load time, in pixels (width x height)"
        ),
        Variable(
            "ABDUCTIVE_NLEYE_COLUMNS",
            "",
            "NL-Eye column overrides, e.g. 'gold_label=label,gold_explanation=explanation'",
            benchmarks=("nleye",),
        ),
        Variable(
            "ABDUCTIVE_NLEYE_DESCRIBER",
            "",
            "NL-Eye image-to-text, plain lmms-eval: a name nleye_describe also stores its descriptions under "
            "(e.g. the describing model's name)",
            benchmarks=("nleye",),
        ),
        Variable(
            "ABDUCTIVE_NLEYE_DESCRIPTIONS",
            "",
            "NL-Eye image-to-text: the describer whose stored descriptions nleye_triplet_described reads "
            "(default: ABDUCTIVE_NLEYE_DESCRIBER; unset: abductive-eval runs nleye_describe first)",
            benchmarks=("nleye",),
        ),
        Variable(
            "ABDUCTIVE_MUCR_SCENE_GRAPHS",
            "",
            "MuCR CCoT, plain lmms-eval: the name mucr_<level>_ccot_graph also stores its scene graphs under and "
            "mucr_<level>_ccot reads them back by (unset: abductive-eval runs the graph stage first)",
            benchmarks=("mucr",),
        ),
        Variable(
            "ABDUCTIVE_MUCR_PICKS",
            "",
            "MuCR Exp (Eq. 5), plain lmms-eval: the folder holding the same model's mucr_c2e and mucr_cue samples "
            "(--log_samples) whose picks mucr_exp explains (unset: abductive-eval runs them first)",
            benchmarks=("mucr",),
        ),
        Variable(
            "ABDUCTIVE_STAGE_INPUTS",
            "",
            "set by abductive-eval and batch for a chained task's run: the stage outputs it reads (JSON, by digest)",
            changes_scores=False,  # what they name enters a run's identity by content (its tasks' inputs)
        ),
        Variable(
            "ABDUCTIVE_RUN",
            "",
            "set by abductive-eval and batch: the run's model and --limit (JSON), checked against what it reads",
            changes_scores=False,
        ),
        Variable(
            "ABDUCTIVE_COUNTED_ABOVE",
            "",
            "set by abductive-eval for a chain's stage runs and by batch for its runs: the failed requests of the run "
            "are counted by that command (its last line names them), so the run itself exits as lmms-eval does",
            changes_scores=False,
        ),
        Variable("ABDUCTIVE_JUDGE", "on", "'off' disables the LLM judge even when OPENAI_API_KEY is set"),
        Variable(
            "ABDUCTIVE_JUDGE_CACHE",
            "",
            "judge reply cache folder; default <ABDUCTIVE_CACHE>/judge",
            changes_scores=False,
        ),
        Variable("ABDUCTIVE_JUDGE_RETRIES", "4", "judge retries after the first attempt", changes_scores=False),
        Variable(
            "ABDUCTIVE_JUDGE_BACKOFF",
            "2",
            "seconds before the first judge retry, doubled before each next one (at most 60)",
            changes_scores=False,
        ),
        Variable("ABDUCTIVE_JUDGE_TIMEOUT", "60", "seconds per judge request", changes_scores=False),
        Variable(
            "ABDUCTIVE_JUDGE_CONCURRENCY",
            "16",
            "judge requests in flight at once (lowered while the judge answers 429; docs/judge.md)",
            changes_scores=False,
        ),
        Variable(
            "ABDUCTIVE_JUDGE_EXTRACT",
            "0",
            "'1': the judge reads answers the rules cannot (counted as *judge_extracted)",
        ),
        Variable(
            "ABDUCTIVE_SIMILARITY_MODEL",
            "",
            "local sentence-transformers folder for the offline similarity (MuCR exp without a judge)",
            benchmarks=("mucr",),
        ),
        # DVE model-based metrics: unset = the default from the local Hugging Face cache only (never downloaded);
        # a hub id the user sets may be downloaded; a local folder or file; 'off' skips the metric.
        Variable(
            "ABDUCTIVE_BERTSCORE_MODEL",
            "roberta-large",
            "DVE BERTScore model (hub id: downloads; local folder; 'off'; unset: local cache only)",
            benchmarks=("dve",),
        ),
        Variable(
            "ABDUCTIVE_BERTSCORE_LAYERS",
            "",
            "DVE BERTScore layer (default: bert-score's choice for the model)",
            benchmarks=("dve",),
        ),
        Variable(
            "ABDUCTIVE_CLIP_MODEL",
            "openai/clip-vit-base-patch32",
            "DVE CLIPScore model (hub id: downloads; local folder; 'off'; unset: local cache only)",
            benchmarks=("dve",),
        ),
        Variable(
            "ABDUCTIVE_DVE_EVALUATOR",
            "skywalkerzhang19/DVE_evaluator",
            "DVE evaluator weights (hub repo: downloads; local .pth; 'off'; unset: local cache only)",
            benchmarks=("dve",),
        ),
        Variable(
            "ABDUCTIVE_DVE_EVALUATOR_TEXT",
            "google-bert/bert-large-uncased",
            "DVE evaluator text backbone config and tokenizer (hub id or local folder)",
            benchmarks=("dve",),
        ),
        Variable(
            "ABDUCTIVE_DVE_EVALUATOR_RESNET",
            "resnet50",
            "DVE evaluator image backbone: a torchvision ResNet name or 'basic|bottleneck:n1,n2,n3,n4'",
            benchmarks=("dve",),
        ),
        Variable(
            "ABDUCTIVE_WORKERS",
            "",
            "processes that read Sherlock chunk files (default min(4, CPUs))",
            changes_scores=False,
        ),
        Variable(
            "ABDUCTIVE_BOOTSTRAP", "1000", "bootstrap resamples for every confidence interval; 0 turns intervals off"
        ),
        Variable("ABDUCTIVE_BOOTSTRAP_SEED", "0", "seed of the bootstrap resampling"),
        Variable(
            "ABDUCTIVE_SECRETS_FD",
            "",
            "set by `batch` for its evaluation: the pipe it hands the secret values to redact through",
            changes_scores=False,
        ),
    )
}


def raw(name: str, environment: Mapping[str, str] | None = None) -> str:
    """The variable's value in ``environment`` (default: this process's), stripped, or its default."""
    return (os.environ if environment is None else environment).get(name, "").strip() or VARIABLES[name].default


@contextmanager
def environment_restored(values: Mapping[str, str], also: Iterable[str] = ()) -> Iterator[None]:
    """``values`` set in ``os.environ`` for the block; after it, those variables and the ``also`` ones (which the
    block may set) are as they were before, unset where they were unset."""
    saved = {name: os.environ.get(name) for name in [*values, *also]}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _number(name: str, kind: type = float):
    value = raw(name)
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"{name}={value!r}: expected a {kind.__name__}") from None


_OFF_FLAG = {"", "0", "off", "false", "no"}  # a flag's values that turn it off


def _flag(name: str, environment: Mapping[str, str] | None = None) -> bool:
    return raw(name, environment).lower() not in _OFF_FLAG


def data_source() -> str:
    """``ABDUCTIVE_DATA``: '' (official source), 'sample', or a path."""
    return raw("ABDUCTIVE_DATA")


def cache_root(environment: Mapping[str, str] | None = None) -> Path:
    """Where this package keeps files it derives: ``ABDUCTIVE_CACHE``, default ``$XDG_CACHE_HOME/abductive_tasks``
    (in ``environment``, default: this process's)."""
    environment = os.environ if environment is None else environment
    configured = raw("ABDUCTIVE_CACHE", environment)
    if configured:
        return Path(configured).expanduser()
    return Path(environment.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "abductive_tasks"


def image_cache_bytes() -> int:
    return _number("ABDUCTIVE_IMAGE_CACHE_MB", int) * 2**20


def max_image_pixels() -> int:
    return _number("ABDUCTIVE_MAX_IMAGE_PIXELS", int)


def nleye_columns() -> dict[str, str]:
    """``ABDUCTIVE_NLEYE_COLUMNS`` as {canonical field: CSV column}."""
    text = raw("ABDUCTIVE_NLEYE_COLUMNS")
    pairs = [part.split("=", 1) for part in text.split(",") if part.strip()]
    if any(len(pair) != 2 or not pair[0].strip() or not pair[1].strip() for pair in pairs):
        raise ValueError(f"ABDUCTIVE_NLEYE_COLUMNS={text!r}: expected 'field=column,field=column'")
    return {field.strip(): column.strip() for field, column in pairs}


def nleye_describer() -> str:
    """``ABDUCTIVE_NLEYE_DESCRIBER``: the name this run's descriptions are stored under ('' when unset)."""
    return raw("ABDUCTIVE_NLEYE_DESCRIBER")


def nleye_descriptions(environment: Mapping[str, str] | None = None) -> str:
    """``ABDUCTIVE_NLEYE_DESCRIPTIONS``: the describer whose descriptions are read, by default
    ``ABDUCTIVE_NLEYE_DESCRIBER`` ('' when both are unset; in ``environment``, default: this process's)."""
    return raw("ABDUCTIVE_NLEYE_DESCRIPTIONS", environment) or raw("ABDUCTIVE_NLEYE_DESCRIBER", environment)


def mucr_scene_graphs() -> str:
    """``ABDUCTIVE_MUCR_SCENE_GRAPHS``: the name MuCR's CCoT scene graphs are stored and read under ('' when unset)."""
    return raw("ABDUCTIVE_MUCR_SCENE_GRAPHS")


def mucr_picks() -> str:
    """``ABDUCTIVE_MUCR_PICKS``: the folder of the earlier samples mucr_exp and its form and strategy variants read
    their picks from ('' when unset)."""
    return raw("ABDUCTIVE_MUCR_PICKS")


def stage_inputs() -> str:
    """``ABDUCTIVE_STAGE_INPUTS`` as set ('' when unset)."""
    return raw("ABDUCTIVE_STAGE_INPUTS")


def this_run(environment: Mapping[str, str] | None = None) -> str:
    """``ABDUCTIVE_RUN`` as set ('' when unset; in ``environment``, default: this process's)."""
    return raw("ABDUCTIVE_RUN", environment)


COUNTED_ABOVE = "ABDUCTIVE_COUNTED_ABOVE"  # its value "1": a chain or batch counts the run's failed requests


def counted_above() -> bool:
    """Whether a command above this run (a chain, a batch: :data:`COUNTED_ABOVE`) counts its failed requests."""
    return raw(COUNTED_ABOVE) == "1"


def judge_disabled() -> bool:
    return not _flag("ABDUCTIVE_JUDGE")


def judge_cache() -> Path:
    configured = raw("ABDUCTIVE_JUDGE_CACHE")
    return Path(configured).expanduser() if configured else cache_root() / "judge"


def judge_retries() -> int:
    return max(0, _number("ABDUCTIVE_JUDGE_RETRIES", int))


def judge_backoff() -> float:
    return max(0.0, _number("ABDUCTIVE_JUDGE_BACKOFF"))


def judge_timeout() -> float:
    return _number("ABDUCTIVE_JUDGE_TIMEOUT")


def judge_concurrency() -> int:
    return max(1, _number("ABDUCTIVE_JUDGE_CONCURRENCY", int))


def judge_url_problem(url: str | None) -> str | None:
    """Why ``url`` cannot be the judge's base URL (``OPENAI_API_URL``, a spec's judge ``url``), None when it can:
    lmms-eval 0.7.3's judge hands it to the OpenAI client as its base URL, which appends ``chat/completions`` after a
    query string or fragment (``/v1/?key=Xchat/completions``). The URL is never repeated (its query may hold a key)."""
    if url and ("?" in url or "#" in url):
        return (
            "a query string or fragment is not kept by lmms-eval 0.7.3's judge (its client appends chat/completions "
            "after it); give the base URL alone, and the key as OPENAI_API_KEY"
        )
    return None


DEFAULT_JUDGE_MODEL = "gpt-4o-2024-11-20"  # lmms-eval's default judge, MODEL_VERSION unset


def judge_api_type(environment: Mapping[str, str]) -> str:
    """lmms-eval's judge provider (``API_TYPE``, default ``openai``)."""
    return environment.get("API_TYPE", "").strip().lower() or "openai"


def judge_problem(environment: Mapping[str, str]) -> str | None:
    """Why ``environment`` configures no judge through lmms-eval's variables (``ABDUCTIVE_JUDGE=off``; the openai
    provider without ``OPENAI_API_KEY`` or with a base URL it cannot use: :func:`judge_url_problem`); None when it
    configures one. The run's judge (:mod:`~abductive_tasks.scoring.judge`) and a run's identity
    (:func:`environment_judge`) read it alike, so they never disagree on whether there is a judge."""
    if not _flag("ABDUCTIVE_JUDGE", environment):
        return "ABDUCTIVE_JUDGE=off"
    if judge_api_type(environment) != "openai":
        return None
    if not environment.get("OPENAI_API_KEY"):
        return "OPENAI_API_KEY is not set"
    if problem := judge_url_problem(environment.get("OPENAI_API_URL", "").strip()):
        return f"OPENAI_API_URL: {problem}"  # every request would go to another path
    return None


def environment_judge(environment: Mapping[str, str]) -> dict | None:
    """The judge ``environment`` configures, as a run's identity names it: provider, model and base URL (never the
    key); None where it configures none (:func:`judge_problem`)."""
    if judge_problem(environment):
        return None
    url = environment.get("OPENAI_API_URL", "").strip()
    model = environment.get("MODEL_VERSION", "").strip() or DEFAULT_JUDGE_MODEL
    return {"api_type": judge_api_type(environment), "model_version": model, "url": url or None}


def judge_extraction() -> bool:
    return _flag("ABDUCTIVE_JUDGE_EXTRACT")


def bootstrap_resamples() -> int:
    return max(0, _number("ABDUCTIVE_BOOTSTRAP", int))


def bootstrap_seed() -> int:
    return _number("ABDUCTIVE_BOOTSTRAP_SEED", int)


def is_set(name: str) -> bool:
    """Whether the user set the variable (to anything but blanks), as opposed to leaving its default."""
    return bool(os.environ.get(name, "").strip())


OFF_WORDS = {"off", "none", "0", "false", "no"}  # a model-backed metric's source turned off


def model_source(name: str) -> str | None:
    """A model-backed metric's source (hub id, folder or file);
    None when set to 'off' (or 'none', '0', 'false', 'no')."""
    value = raw(name)
    return None if value.lower() in OFF_WORDS else value


def written_as_path(name: str) -> bool:
    """Whether a model source is written as a path, whether or not it exists (a hub id is ``name`` or
    ``owner/name``): such a source is loaded from there, never looked up on the hub."""
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or "\\" in name or name.endswith(".pth")


def workers(files: int) -> int:
    configured = raw("ABDUCTIVE_WORKERS")
    wanted = int(configured) if configured else min(4, os.cpu_count() or 1)
    return max(1, min(files, wanted))


_FLAGS = {"", "0", "1", "on", "off", "true", "false", "yes", "no"}


def _check_number(kind: type, low: float | None = None):
    def check(value: str) -> str | None:
        try:
            number = kind(value)
        except ValueError:
            return f"expected {'a whole number' if kind is int else 'a number'}"
        if number != number or (low is not None and number < low):  # NaN, or below the least allowed
            return f"expected a number of at least {low}"
        return None

    return check


def _check_columns(value: str) -> str | None:
    pairs = [part.split("=", 1) for part in value.split(",") if part.strip()]
    if any(len(pair) != 2 or not pair[0].strip() or not pair[1].strip() for pair in pairs):
        return "expected 'field=column,field=column'"
    return None


def _check_model_path(value: str) -> str | None:
    """A model source written as a path that does not exist: an error before anything loads (a typo gave a warning
    and a run without the metric)."""
    if value.lower() in OFF_WORDS or not written_as_path(value) or Path(value).expanduser().exists():
        return None
    return "no such file or folder (a path is loaded from there, never looked up on the hub; 'off' skips the metric)"


def _check_flag(value: str) -> str | None:
    return None if value.lower() in _FLAGS else "expected on or off (1/0, true/false, yes/no)"


_CHECKS = {
    "ABDUCTIVE_IMAGE_CACHE_MB": _check_number(int, 0),
    "ABDUCTIVE_MAX_IMAGE_PIXELS": _check_number(int, 1),
    "ABDUCTIVE_NLEYE_COLUMNS": _check_columns,
    "ABDUCTIVE_JUDGE": _check_flag,
    "ABDUCTIVE_JUDGE_RETRIES": _check_number(int, 0),
    "ABDUCTIVE_JUDGE_BACKOFF": _check_number(float, 0),
    "ABDUCTIVE_JUDGE_TIMEOUT": _check_number(float, 0),
    "ABDUCTIVE_JUDGE_CONCURRENCY": _check_number(int, 1),
    "ABDUCTIVE_JUDGE_EXTRACT": _check_flag,
    "ABDUCTIVE_WORKERS": _check_number(int, 1),
    "ABDUCTIVE_BOOTSTRAP": _check_number(int, 0),
    "ABDUCTIVE_BOOTSTRAP_SEED": _check_number(int, 0),
    **dict.fromkeys(
        (
            "ABDUCTIVE_SIMILARITY_MODEL",
            "ABDUCTIVE_BERTSCORE_MODEL",
            "ABDUCTIVE_CLIP_MODEL",
            "ABDUCTIVE_DVE_EVALUATOR",
            "ABDUCTIVE_DVE_EVALUATOR_TEXT",
        ),
        _check_model_path,
    ),
}


def problems(environment: Mapping[str, str] | None = None) -> list[str]:
    """One line per ``ABDUCTIVE_*`` variable of ``environment`` (default: this process's) whose value cannot be used,
    naming it: checked before any model loads, not after the whole inference."""
    environment = os.environ if environment is None else environment
    found = []
    for name, check in _CHECKS.items():
        value = environment.get(name, "").strip()
        problem = check(value) if value else None
        if problem:
            found.append(f"{name}={value!r}: {problem}")
    return found


def help_table() -> str:
    """One line per variable, for ``--help``."""
    return "\n".join(
        f"  {v.name:<32} {v.help}" + (f" (default {v.default})" if v.default else "") for v in VARIABLES.values()
    )
