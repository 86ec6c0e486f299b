"""Exact-prompt snapshots: per task, what the model is sent for a fixed document and what scores the reply.

One text file per task, ``tests/snapshots/<benchmark>/<task>.txt``, holds for the first document of the shipped
sample: the prompt exactly as lmms-eval builds the request (its ``fewshot_context``, not our hook alone), the images
sent (their roles and sizes), the target, the generation kwargs, the answer kind, the metric list, the task's YAML as
lmms-eval resolves it (its metadata but the version), the number of documents and one digest of every document as
sent (prompt, target, image pixels), and a summary of the code the results depend on: what loads the documents,
builds the requests, reads and scores the reply (:mod:`code_digest`). Its ``digest:`` line is one digest of all of
that (the code by content, hook names left out, so moving or renaming a module changes none), and its ``version:``
line the task's ``metadata: version`` when it was written.

:func:`verdict` says what a difference means: a digest that changed under the same version needs a version bump and
a changelog line; anything else only a regeneration. ``python utils/generate_task_yaml.py`` writes the files and
refuses to record a new digest under an old version; tests/test_snapshots.py fails on any difference, and walking
the first-parent git history of the records (:func:`history_problems`) on a digest changed under the same version, a
version recorded with two digests, a bump without a changelog line of its own, or a scheme change that carries code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from code_digest import CodeIndex, by_module, digest_of

from abductive_tasks.settings import environment_restored

HEADER = (
    "# Exact-prompt snapshot of {task}: what the model is sent for the first document of the shipped sample, and\n"
    "# what reads and scores its reply. Written by `python utils/generate_task_yaml.py`; tests/test_snapshots.py\n"
    "# checks it.\n"
)
HEADERS = {"task": HEADER}  # per kind of record (utils/model_snapshots.py adds the model backends')
SAMPLES_NAME = "20260101_000000"  # the date stamp of the samples files written for second stages
# The environment a snapshot is built in: no judge, no network, every stage's store in a scratch folder.
STAGE_NAMES = {
    "ABDUCTIVE_NLEYE_DESCRIBER": "snapshot",
    "ABDUCTIVE_MUCR_SCENE_GRAPHS": "snapshot",
    "ABDUCTIVE_JUDGE": "off",
    "ABDUCTIVE_JUDGE_EXTRACT": "0",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_OFFLINE": "1",
}


@dataclass(frozen=True)
class Snapshot:
    """One task's snapshot: ``body`` (every line but the version and digest), ``digest``, ``version``; ``content``:
    what the digest is of (only for a snapshot built now). ``kind``: ``"model"`` for a model backend's record
    (utils/model_snapshots.py), whose ``task`` is the backend's name."""

    task: str
    version: str
    digest: str
    body: str
    content: dict = field(default_factory=dict, compare=False, repr=False)
    kind: str = "task"

    def text(self) -> str:
        return (
            HEADERS[self.kind].format(task=self.task)
            + f"{self.kind}: {self.task}\nversion: {self.version}\ndigest: {self.digest}\n"
            + self.body
        )

    @classmethod
    def read(cls, path: Path) -> Snapshot | None:
        """The record written at ``path``; None when there is none."""
        return cls.parse(path.read_text(encoding="utf-8")) if path.is_file() else None

    @classmethod
    def parse(cls, text: str) -> Snapshot:
        lines = [line for line in text.splitlines(keepends=True) if not line.startswith("#")]
        (kind, name), *rest = (line.rstrip("\n").split(": ", 1) for line in lines[:3])
        head = dict(rest)
        return cls(name, head["version"], head["digest"], "".join(lines[3:]), kind=kind)


# ---------------------------------------------------------------- building


@contextlib.contextmanager
def environment() -> Iterator[Path]:
    """A scratch data root (the shipped sample, and a DVE dev split made from its test split) and stage stores,
    set in ``os.environ`` while it lasts."""
    # What a run has (the read_answer filter): lmms-eval's models load our entry point, abductive_tasks.models.manifests
    # (imported first itself, it met lmms-eval loading it half made: 'Failed to load model entry-point manifests').
    import lmms_eval.models  # noqa: F401

    from abductive_tasks.inputs.loading import SAMPLE_ROOT

    with tempfile.TemporaryDirectory(prefix="abductive-snapshots-") as scratch:
        root = Path(scratch)
        shutil.copytree(SAMPLE_ROOT, root / "data")
        dve = root / "data" / "dve"
        if (dve / "DVE_test.csv").is_file() and not (dve / "DVE_dev.csv").exists():
            shutil.copyfile(dve / "DVE_test.csv", dve / "DVE_dev.csv")
        (root / "picks").mkdir()
        values = {
            **STAGE_NAMES,
            "ABDUCTIVE_DATA": str(root / "data"),
            "ABDUCTIVE_CACHE": str(root / "cache"),
            "ABDUCTIVE_MUCR_PICKS": str(root / "picks"),
        }
        with environment_restored(values):
            yield root


def build_all(manager: object, tasks: list[str]) -> dict[str, Snapshot]:
    """The snapshot of every task in ``tasks`` (``manager``: lmms-eval's task index of our tasks)."""
    from abductive_tasks.inputs.loading import DataError

    index = CodeIndex()
    built: dict[str, Snapshot] = {}
    answered: set[str] = set()
    with environment() as scratch:
        waiting = list(tasks)
        while waiting:
            failures: dict[str, str] = {}
            for task in waiting:
                try:
                    with _replies_read(task, answered, scratch):
                        built[task] = build(manager, task, index)
                except DataError as error:
                    failures[task] = str(error)
            if not failures or len(failures) == len(waiting) and answered >= set(built):
                waiting = list(failures)
                break
            for task in sorted(set(built) - answered):  # a later stage may read what these write
                _answer_all(manager, task, scratch / "picks")
                answered.add(task)
            waiting = list(failures)
        if waiting:
            raise LookupError(
                "cannot build the documents of "
                + "; ".join(f"{task}: {failures[task]}" for task in waiting)
                + " (the snapshot environment is utils/task_snapshots.py environment())"
            )
    return built


@contextlib.contextmanager
def _replies_read(task: str, answered: set[str], scratch: Path) -> Iterator[None]:
    """For a task that reads its upstream's replies (a kind no variable names: the two-step CoT's reasonings), the
    stage outputs of the answered upstream samples, handed on as abductive-eval hands them (``ABDUCTIVE_STAGE_INPUTS``)
    while it lasts; a DataError while an upstream is not answered yet (the task is retried after it)."""
    from abductive_tasks.inputs.loading import DataError
    from abductive_tasks.inputs.stages import INPUTS_VARIABLE, REPLY_KINDS, declared_reads, output_from_samples, save

    reads = {upstream: kind for upstream, kind in declared_reads(task).items() if kind in REPLY_KINDS}
    if not reads:
        yield
        return
    if not set(reads) <= answered:
        raise DataError(f"{task}: {sorted(set(reads) - answered)} not answered yet")
    given = {
        upstream: save(
            output_from_samples(kind, upstream, scratch / "picks" / f"{SAMPLES_NAME}_samples_{upstream}.jsonl", {})
        )
        for upstream, kind in reads.items()
    }
    os.environ[INPUTS_VARIABLE] = json.dumps(given)
    try:
        yield
    finally:
        os.environ.pop(INPUTS_VARIABLE, None)


def task_object(manager: object, task: str) -> object:
    from lmms_eval.tasks import get_task_dict

    return get_task_dict([task], manager)[task]


def _reply(doc: Mapping) -> str:
    choices = doc.get("choices") or []
    return str(choices[0]) if choices else "1"


def _answer_all(manager: object, task: str, folder: Path) -> None:
    """Every document of ``task`` answered with a fixed reply through its ``process_results`` (which stores what a
    second stage reads), and the values written as a ``--log_samples`` samples file."""
    obj = task_object(manager, task)
    reader = obj.config.process_results
    lines = [
        json.dumps({"doc_id": number, "filtered_resps": [_reply(doc)], **reader(doc, [_reply(doc)])}, default=str)
        for number, doc in enumerate(obj.test_docs())
    ]
    (folder / f"{SAMPLES_NAME}_samples_{task}.jsonl").write_text("".join(line + "\n" for line in lines), "utf-8")


def build(manager: object, task: str, index: CodeIndex | None = None) -> Snapshot:
    """The snapshot of ``task`` in the current environment (see :func:`environment`)."""
    index = index or CodeIndex()
    obj = task_object(manager, task)
    docs = obj.test_docs()
    doc = docs[0]
    context = obj.fewshot_context(doc, 0, None, False, False, None)
    request = obj.construct_requests(doc_id=0, ctx=context, metadata={"task": task, "doc_id": 0, "repeats": 1})
    request = request[0] if isinstance(request, list) else request
    generation = request.arguments[1] if obj.OUTPUT_TYPE.startswith("generate_until") else None
    visuals = [visual for visual in obj.doc_to_visual(doc) if visual is not None]
    reader = obj.config.process_results
    answer = getattr(reader, "answer", None)
    kind = answer(doc) if answer else None
    config = resolved_config(Path(manager.task_index[task]["yaml_path"]), keep_metadata=True)
    config["metadata"] = {key: value for key, value in config.get("metadata", {}).items() if key != "version"}
    metrics = [(entry["metric"], entry.get("higher_is_better")) for entry in config.pop("metric_list", [])]
    code = index.reach(roots(index, obj, reader))
    content = {
        "documents": len(docs),
        "all_documents": documents_digest(obj, docs),
        "output_type": obj.OUTPUT_TYPE,
        "generation_kwargs": generation,
        "answer_kind": _kind_text(kind),
        "target": str(obj.doc_to_target(doc)),
        "images": [_image_text(visual) for visual in visuals],
        "roles": _roles(doc),
        "prompt": context,
        "metrics": metrics,
        "config": {key: _blank_hooks(value) for key, value in config.items()},
        "code": sorted(code.values()),
    }
    body = _render(content, kind, len(docs), config, code)
    version = str(manager_version(manager, task))
    return Snapshot(task, version, content_digest(content), body, content)


def documents_digest(obj: object, docs: object) -> str:
    """One digest of every document as sent and as scored: its prompt, its target, its images (their pixels, not only
    their sizes) and every field of the document (what only the metrics read: a category, a human rating), in order;
    the first document alone is written out in the snapshot. Paths are written relative to the scratch folder."""
    scratch = str(Path(os.environ["ABDUCTIVE_DATA"]).parent)
    total = hashlib.sha256()
    for doc in docs:
        context = obj.fewshot_context(doc, 0, None, False, False, None)
        visuals = [_image_digest(visual) for visual in obj.doc_to_visual(doc) if visual is not None]
        fields = json_text(dict(doc)).replace(scratch, "<scratch>")
        total.update(json_text([context, str(obj.doc_to_target(doc)), visuals, fields]).encode("utf-8"))
    return total.hexdigest()[:16]


def _image_digest(visual: object) -> str:
    tobytes = getattr(visual, "tobytes", None)
    if tobytes is None:
        return f"{type(visual).__name__}:{visual}"
    return f"{_image_text(visual)} {hashlib.sha256(tobytes()).hexdigest()[:16]}"


# What the digests are made of: raised when :mod:`code_digest` or :func:`build` digests differently, which turns
# every recorded digest into one to regenerate (not a change of any task). A change of the scheme lands alone: no
# code, task YAML or pin may change with it (tests/test_snapshots.py, :func:`scheme_changed_with`), or it could
# carry a change of results past the version checks.
# 5: a function's own variables numbered; 6: the files record's versions, unions, machine keys; 7: what imported names
# stand for; 8: an imported definition of ours with the digest of its own text (two of one name told apart)
DIGEST_SCHEME = 8


def content_digest(content: dict) -> str:
    """The digest of what determines a task's results (see :func:`build`), its scheme first."""
    return f"{DIGEST_SCHEME}-" + hashlib.sha256(json_text(content).encode("utf-8")).hexdigest()[:16]


def same_scheme(first: str, second: str) -> bool:
    """Whether two digests were made the same way (only then does a difference mean a change)."""
    return first.partition("-")[0] == second.partition("-")[0]


def manager_version(manager: object, task: str) -> object:
    """The task's ``metadata: version`` as its YAML declares it (read without importing its hooks)."""
    config = resolved_config(Path(manager.task_index[task]["yaml_path"]), keep_metadata=True)
    return config.get("metadata", {}).get("version")


# The task's hooks that build what the model is sent (process_results and the aggregations are added apart).
HOOKS = ("process_docs", "doc_to_text", "doc_to_visual", "doc_to_target", "doc_to_choice")


def roots(index: CodeIndex, obj: object, reader: object) -> list[tuple[str, str]]:
    """Where the code a task's results depend on starts: its reader (and its spec), its aggregations and the hooks
    that load its documents and build its requests."""
    roots = [index.locate(reader)]
    for name in HOOKS:
        hook = getattr(obj.config, name, None)
        if callable(hook):
            roots.append(index.locate(hook))
    for used in _filters(obj):
        with contextlib.suppress(LookupError):  # lmms-eval's own filters count through its version
            roots.append(index.locate(used))
    spec = getattr(reader, "spec", None)
    if spec is not None:
        roots.append(index.locate(spec))
    for aggregation in {id(function): function for function in obj.aggregation().values()}.values():
        roots.append(index.locate(aggregation))
    return roots


def _filters(obj: object) -> list[object]:
    """What the filters a task's ``filter_list`` names are registered as (lmms-eval's registry)."""
    from lmms_eval import filters

    named = [step.get("function") for entry in obj.config.filter_list or [] for step in entry.get("filter", [])]
    return [filters.FILTER_REGISTRY[name] for name in named if name in filters.FILTER_REGISTRY]


# ---------------------------------------------------------------- rendering


def resolved_config(path: Path, keep_metadata: bool = False) -> dict:
    """A task YAML as lmms-eval resolves it (``include:`` applied), hooks as ``!function <name>``; without ``task``
    and (unless ``keep_metadata``) ``metadata``."""
    from abductive_tasks.runs import catalog

    dropped = {"task"} | (set() if keep_metadata else {"metadata"})
    return {key: _named_hooks(value) for key, value in catalog.config(path).items() if key not in dropped}


def _named_hooks(value: object) -> object:
    from abductive_tasks.runs.catalog import FunctionName

    if isinstance(value, FunctionName):
        return f"!function {value}"
    if isinstance(value, dict):
        return {key: _named_hooks(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_named_hooks(item) for item in value]
    return value


def _blank_hooks(value: object) -> object:
    """``value`` with hook names replaced: which function a hook is named by does not change results, its code
    does (reached by the code digest) and so does its output (the prompt)."""
    if isinstance(value, str) and value.startswith("!function "):
        return "!function"
    if isinstance(value, dict):
        return {key: _blank_hooks(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_blank_hooks(item) for item in value]
    return value


def _kind_text(kind: object) -> str | None:
    if kind is None:
        return None
    name = type(kind).__qualname__
    if dataclasses.is_dataclass(kind):
        fields = ", ".join(f"{item.name}={getattr(kind, item.name)!r}" for item in dataclasses.fields(kind))
        return f"{name}({fields})"
    return f"{name}()" if not vars(kind) else f"{name}({sorted(vars(kind).items())!r})"


def _image_text(visual: object) -> str:
    size = getattr(visual, "size", None)
    if size is None:
        return type(visual).__name__
    return f"{size[0]}x{size[1]} {getattr(visual, 'mode', '')}".rstrip()


def _roles(doc: Mapping) -> list[str]:
    """What the document says its images are: panel labels, else the file names of its images."""
    if doc.get("panel_labels"):
        return [str(label) for label in doc["panel_labels"]]
    paths = doc.get("image_paths") or ([doc["image_path"]] if doc.get("image_path") else [])
    return [Path(str(path)).name for path in paths]


def _prompt_line(line: str) -> str:
    """A prompt line as written, or JSON-quoted (``~``) when plain text would hide some of it (trailing blanks,
    control characters)."""
    plain = line == line.rstrip() and line.isprintable()
    return f"  | {line}".rstrip() if plain else f"  ~ {json.dumps(line)}"


def json_text(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _render(content: dict, kind: object, documents: int, config: dict, code: dict) -> str:
    """The snapshot's readable lines (every one but the version and digest)."""
    lines = [f"output_type: {content['output_type']}"]
    if content["generation_kwargs"] is not None:
        lines.append(f"generation_kwargs: {json_text(content['generation_kwargs'])}")
    if kind is not None:
        lines += [f"answer_kind: {content['answer_kind']}", f"answer_kind_reads: {kind.describe()}"]
    lines += [f"document: 1 of {documents}", f"target: {json_text(content['target'])}"]
    lines.append(f"images: {len(content['images'])}")
    roles = content["roles"]
    for number, image in enumerate(content["images"], start=1):
        role = f" {roles[number - 1]}" if len(roles) == len(content["images"]) else ""
        lines.append(f"  {number}: {image}{role}")
    if roles and len(roles) != len(content["images"]):
        lines.append(f"  made from: {', '.join(roles)}")
    lines.append("prompt:")
    lines += [_prompt_line(line) for line in content["prompt"].split("\n")]
    lines.append("metrics:")
    direction = {True: "higher is better", False: "lower is better", None: "no direction"}
    lines += [f"  {name} ({direction[better]})" for name, better in content["metrics"]]
    lines.append("config:")
    lines += [f"  {key}: {json_text(value)}" for key, value in sorted(config.items())]
    lines.append(f"all {documents} documents as sent (prompts, targets, image pixels): {content['all_documents']}")
    modules = by_module(code)
    lines.append(f"code: {len(code)} definitions in {len(modules)} modules, {digest_of(code)}")
    lines += [f"  {module}: {count} {digest}" for module, (count, digest) in modules.items()]
    return "".join(line + "\n" for line in lines)


# ---------------------------------------------------------------- files and verdicts


def snapshot_path(snapshots: Path, benchmark: str, task: str) -> Path:
    return snapshots / benchmark / f"{task}.txt"


def first_difference(recorded: str, current: str) -> str:
    """The first line that differs, as ``line N: - recorded / + now``."""
    old, new = recorded.splitlines(), current.splitlines()
    for number, (before, after) in enumerate(zip(old, new, strict=False), start=1):
        if before != after:
            return f"line {number}:\n  - {before}\n  + {after}"
    number = min(len(old), len(new)) + 1
    if len(old) > len(new):
        return f"line {number}:\n  - {old[number - 1]}\n  + (nothing)"
    if len(new) > len(old):
        return f"line {number}:\n  - (nothing)\n  + {new[number - 1]}"
    return "none"


def unified(recorded: str, current: str, name: str) -> str:
    return "".join(difflib.unified_diff(recorded.splitlines(True), current.splitlines(True), name, name + " (now)"))


def version_key(version: str) -> tuple[int, ...]:
    """A version as numbers (``3.10`` after ``3.9``), for "greater"."""
    return tuple(int(part) for part in re.findall(r"\d+", str(version)))


@dataclass(frozen=True)
class Verdict:
    """What a task's snapshot needs: ``"ok"``, ``"regenerate"`` (nothing that determines results changed, or the
    version was bumped) or ``"bump"`` (results may change: the version must go up first)."""

    action: str
    reason: str = ""


def verdict(recorded: Snapshot | None, current: Snapshot) -> Verdict:
    """Compare the checked-in snapshot with the one built now (whose ``version`` is the YAML's)."""
    if recorded is None:
        return Verdict("regenerate", "no snapshot recorded yet (a new task)")
    if version_key(current.version) < version_key(recorded.version):
        return Verdict("bump", f"its version went down, {recorded.version} -> {current.version}")
    if not same_scheme(recorded.digest, current.digest):
        return Verdict("regenerate", "the digest scheme changed (utils/task_snapshots.py DIGEST_SCHEME)")
    if recorded.digest != current.digest and recorded.version == current.version:
        return Verdict("bump", first_difference(recorded.body, current.body))
    if recorded.text() != current.text():
        if recorded.version != current.version:
            return Verdict("regenerate", f"version {recorded.version} -> {current.version}")
        return Verdict(
            "regenerate", "the digest is unchanged (no bump needed); " + first_difference(recorded.body, current.body)
        )
    return Verdict("ok")


# ---------------------------------------------------------------- history


def git(root: Path, *args: str) -> str | None:
    """``git -C root args``' output; None when git is missing or the command fails."""
    if shutil.which("git") is None:
        return None
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else None


@dataclass(frozen=True)
class Recorded:
    """A record's head as written in one state of the checkout: its kind (:data:`KINDS`), name, version and
    digest."""

    kind: str
    name: str
    version: str
    digest: str

    @property
    def scheme(self) -> str:
        return self.digest.partition("-")[0]


KINDS = ("task", "model", "harness", "group", "identity", "formats")  # the first line of a record's head names its kind
_HEAD = "^(task|model|harness|group|identity|formats|version|digest): "
_HEAD_LINE = re.compile(_HEAD + "(.*)$")


def recorded_heads(root: Path, commit: str | None, folder: str = "tests/snapshots") -> dict[str, Recorded]:
    """The heads of the records under ``folder`` by path: as committed at ``commit`` (one ``git grep``), or in the
    working tree (None)."""
    lines: list[tuple[str, str]] = []
    if commit is None:
        for path in sorted((root / folder).rglob("*.txt")):
            name = path.relative_to(root).as_posix()
            lines += [(name, line) for line in path.read_text(encoding="utf-8").splitlines()[:8]]
    else:
        found = git(root, "grep", "-E", _HEAD, commit, "--", folder) or ""
        lines = [(name, line) for _, name, line in (entry.split(":", 2) for entry in found.splitlines())]
    fields: dict[str, dict[str, str]] = {}
    for name, line in lines:
        match = _HEAD_LINE.match(line)
        if match:  # the first of each: a group's body lists its members under "task:"
            head = fields.setdefault(name, {})
            if match[1] in KINDS:
                head.setdefault("kind", match[1])
                head.setdefault("name", match[2])
            else:
                head.setdefault(match[1], match[2])
    return {name: Recorded(**head) for name, head in fields.items() if len(head) == 4}


def history(root: Path, folder: str = "tests/snapshots") -> list[str | None]:
    """The states the records went through: every commit of the first-parent history that changed them (a merge
    counts as one change, against main as it was), oldest first, then the working tree (None)."""
    commits = git(root, "log", "--first-parent", "--reverse", "--format=%H", "--", folder)
    return [*(commits or "").split(), None]


def history_problems(root: Path, folder: str = "tests/snapshots") -> list[str]:
    """What no state may do to the one before it: change a digest without raising the version
    (:func:`unbumped_changes`), change the digest scheme together with code (:func:`scheme_changed_with`), bump a
    task without a changelog line of its own (:func:`unlogged_bumps`); and no version may be recorded with two
    digests of one scheme anywhere in the history (a hand-edited record, a version reused)."""
    states = history(root, folder)
    heads = {state: recorded_heads(root, state, folder) for state in states}
    found: list[str] = []
    first: dict[tuple[str, str, str], tuple[str, str]] = {}
    for before, after in zip(states, states[1:], strict=False):
        where = f"{_shown(after)} (after {_shown(before)})"
        found += [f"{where}: {problem}" for problem in unbumped_changes(heads[before], heads[after])]
        changed = scheme_changed_with(root, after, heads[before], heads[after])
        if changed:
            found.append(f"{where}: the digest scheme changed together with {changed}: land a scheme change alone")
        found += [f"{where}: {problem}" for problem in unlogged_bumps(root, before, after, heads[before], heads[after])]
    for state in states:
        for head in heads[state].values():
            key, here = (head.name, head.version, head.scheme), _shown(state)
            digest, there = first.setdefault(key, (head.digest, here))
            if digest != head.digest:
                found.append(f"{head.name} {head.version}: recorded as {digest} at {there} and {head.digest} at {here}")
                first[key] = (head.digest, here)
    return found


def _shown(state: str | None) -> str:
    return state[:12] if state else "the working tree"


def unbumped_changes(before: Mapping[str, Recorded], after: Mapping[str, Recorded]) -> list[str]:
    """The records whose digest changed (in one scheme) while their version did not go up (a record rewritten by
    hand, or regenerated past the generator's refusal)."""
    found = []
    for name, new in after.items():
        old = before.get(name)
        if old and old.digest != new.digest and old.scheme == new.scheme:
            if version_key(new.version) <= version_key(old.version):
                found.append(f"{new.name}: digest {old.digest} -> {new.digest}, version {old.version} -> {new.version}")
    return found


# What a results-changing edit can touch: a digest scheme change may change none of it (see DIGEST_SCHEME).
RESULT_SOURCES = ("abductive_tasks", "yaml_tasks", "pyproject.toml", "constraints.txt")


def scheme_changed_with(
    root: Path, after: str | None, old: Mapping[str, Recorded], new: Mapping[str, Recorded]
) -> list[str]:
    """When the digest scheme changed from the records ``old`` to ``new``, those of commit ``after`` (None: the
    working tree): the files of :data:`RESULT_SOURCES` that commit changed (the working tree: since HEAD) with it.
    None may be: only then is every new digest known to record no change of results."""
    if all(old[name].scheme == head.scheme for name, head in new.items() if name in old):
        return []
    changed = (
        git(
            root,
            "diff",
            "--name-only",
            f"{after}^" if after else "HEAD",
            *([after] if after else []),
            "--",
            *RESULT_SOURCES,
        )
        or ""
    )
    untracked = "" if after else git(root, "ls-files", "--others", "--exclude-standard", "--", *RESULT_SOURCES)
    return sorted({*changed.split(), *(untracked or "").split()})


# The changelog rule of :func:`unlogged_bumps` holds for records written from this digest scheme on (earlier bumps
# were logged by folding versions into lines that already held them).
LOGGED_FROM_SCHEME = 3


def unlogged_bumps(
    root: Path, before: str, after: str | None, old: Mapping[str, Recorded], new: Mapping[str, Recorded]
) -> list[str]:
    """Tasks whose version went up from state ``before`` to ``after`` (None: the working tree) while no changelog
    line for it was added or changed: the line holding the new version (naming the task, or no task) must not be one
    ``before`` already had. (A model backend's version has no benchmark changelog.)"""
    from generate_task_yaml import changelog, logs

    found = []
    for path, head in new.items():
        was = old.get(path)
        if head.kind != "task" or was is None or int(was.scheme) < LOGGED_FROM_SCHEME:  # the others: no changelog
            continue
        if version_key(head.version) <= version_key(was.version):
            continue
        readme = f"yaml_tasks/{Path(path).parent.name}/README.md"
        text = (root / readme).read_text(encoding="utf-8") if after is None else git(root, "show", f"{after}:{readme}")
        earlier = changelog(git(root, "show", f"{before}:{readme}") or "")
        if not any(logs(line, head.name, head.version) and line not in earlier for line in changelog(text or "")):
            found.append(f"{head.name} {was.version} -> {head.version}: no new changelog line in {readme}")
    return found
