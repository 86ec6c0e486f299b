"""The files record: the shape of every file a canonical batch and its leaderboard write, ours and lmms-eval's.

Leaderboard maintainers read ``leaderboard.json`` and the CSVs; the batch reads back its run and spec records, its
stage outputs and lmms-eval's results and samples files. A renamed column or key, or an lmms-eval release that writes
its results otherwise, passes every prompt, version and identity record. One text file,
``tests/snapshots/formats.txt``, holds the shape of each file a real run writes (:func:`run_canonical`:
``abductive-eval batch`` of ``random_baseline`` over a chained task on the embedded sample, then ``abductive-eval
leaderboard``): per file, its path with run names, times and hashes as words, and its shape (JSON and JSON Lines: the
keys at every level with the type of each value, tasks', metrics' and versions' names as words, and what lmms-eval
takes from the machine, a git commit, as either; CSV: the header; anything else, and the caches but the stage store:
that it is there). Its version is ``EXPORT_FORMAT`` of :mod:`abductive_tasks.reports.leaderboard.render`
(``leaderboard.json`` holds it as ``format``); the lmms-eval version that wrote its files is a line of it, outside
the digest. :func:`task_snapshots.verdict` says what a difference means: a shape that changed under the same version
needs ``EXPORT_FORMAT`` raised (a consumer of the files can tell), and after a new lmms-eval the readers of its files
checked; then ``python utils/generate_task_yaml.py``.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import task_snapshots

task_snapshots.HEADERS["formats"] = (
    "# Record of the files a canonical batch and its leaderboard write (ours and lmms-eval's): each one's path and\n"
    "# shape. Written by `python utils/generate_task_yaml.py`; tests/test_format_snapshot.py checks it.\n"
)
NAME = "formats"  # tests/snapshots/formats.txt
SPEC = """\
tasks: [nleye_triplet, mucr_exp]
models:
  - {name: base, backend: random_baseline, model_args: "seed=1"}
"""
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "WANDB_MODE": "disabled",
    "ABDUCTIVE_JUDGE": "off",
    "ABDUCTIVE_DATA": "sample",
}
# What varies from run to run in a path, as the words the record writes instead (the longest first).
PATH_WORDS = (
    (re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}"), "<run>"),
    (re.compile(r"\d{8}_\d{6}"), "<time>"),
    (re.compile(r"[0-9a-f]{16,64}"), "<hash>"),
    (re.compile(r"random_baseline-[0-9a-f]{8}"), "<model folder>"),
)
SHAPED = {".json", ".jsonl", ".csv"}  # files whose shape is recorded; of others only that they are there
# Of the cache folder only the stage store's shape: what a chained task reads across runs. The other caches (items,
# chunks, plots, file hashes) are the tool's alone, keyed by the code that builds them and checked by their seals.
STAGES = "stages/"


def run_canonical(scratch: Path) -> tuple[Path, Path]:
    """Run the canonical batch and leaderboard in ``scratch`` as a user would (console commands, offline, the
    embedded sample); the results folder and the cache folder."""
    (scratch / "spec.yaml").write_text(SPEC, encoding="utf-8")
    cache, home = scratch / "cache", scratch / "home"
    home.mkdir()
    # An environment made anew: no inherited setting (ABDUCTIVE_*), key or CI variable reaches what is recorded.
    environment = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), **OFFLINE, "ABDUCTIVE_CACHE": str(cache)}
    # the checkout's own package where PYTHONPATH names one (a worktree beside an installed copy), not the installed
    environment |= {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}
    command = str(Path(sys.executable).with_name("abductive-eval"))
    for arguments in (["batch", "spec.yaml"], ["leaderboard", "results"]):
        done = subprocess.run(
            [command, *arguments], cwd=scratch, env=environment, capture_output=True, text=True, timeout=900
        )
        if done.returncode:
            raise RuntimeError(f"abductive-eval {' '.join(arguments)} exited {done.returncode}:\n{done.stdout[-3000:]}")
    return scratch / "results", cache


TASKS = ("nleye_triplet", "mucr_c2e", "mucr_cue", "mucr_exp")  # what the spec runs (mucr_exp reads the others)
TASK, METRIC, ITEM, VERSION = "<task>", "<metric>", "<item>", "<version>"
VERSION_KEY = re.compile(r"\d+(?:\.\d+)+")  # a map keyed by versions (the provenance's): a bump is no change
# What lmms-eval fills from the machine: the git commit around its install, or a CI's (GITHUB_SHA).
MACHINE_KEYS = {"git_hash": "null|str", "git_branch": "null|str"}
# lmms-eval's maps whose values a task declares (its config, its metrics' directions): their shape is the task's,
# versioned with it, so only that a task has one is recorded.
TASK_OWNED = frozenset({"configs", "higher_is_better"})


def key_word(key: str, metrics: frozenset[str]) -> str:
    """A key as the record writes it: a task's name as ``<task>``, a metric's (``name``, ``name,none``,
    ``name_stderr,none``) as ``<metric>``; others as they are."""
    if key in TASKS:
        return TASK
    if VERSION_KEY.fullmatch(key):
        return VERSION
    name = key.split(",")[0]
    return METRIC if name in metrics or name.removesuffix("_stderr") in metrics else key


def type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def shape(value: object, metrics: frozenset[str] = frozenset(), owner: str = "") -> object:
    """The keys at every level with each value's type; a list's items merged into one shape. Tasks' and metrics'
    names are words (``<task>``, ``<metric>``), item ids (the keys of ``items``) ``<item>``, and of a metric's value
    and a task-declared map (:data:`TASK_OWNED`) only the type: a task, a metric or a count added is the task's
    change, versioned with it, not a file's. ``owner``: the key ``value`` stands under."""
    if owner == METRIC and isinstance(value, dict | list):
        return type_name(value)
    if isinstance(value, dict):
        found: dict[str, list[object]] = {}
        for key, item in sorted(value.items()):
            word = ITEM if owner == "items" else key_word(str(key), metrics)
            word = shown_path(word, metrics) if owner == "outputs" else word  # a run's sealed files, by path
            if owner in TASK_OWNED:
                inner: object = type_name(item)
            elif owner == "" and word in MACHINE_KEYS:
                inner = MACHINE_KEYS[word]
            else:
                inner = shape(item, metrics, METRIC if word == METRIC else key)
            found.setdefault(word, []).append(inner)
        return {key: merged(items) for key, items in found.items()}
    if isinstance(value, list):
        return [merged([shape(item, metrics, owner) for item in value])] if value else []
    return type_name(value)


def merged(shapes: list[object]) -> object:
    """One shape for several (the items of a list, the lines of a file): the union of their keys, and the types
    a value had, joined by ``|``."""
    if all(isinstance(item, dict) for item in shapes) and shapes:
        keys = sorted({key for item in shapes for key in item})  # type: ignore[union-attr]
        return {key: merged([item[key] for item in shapes if key in item]) for key in keys}  # type: ignore[index]
    if all(isinstance(item, list) for item in shapes) and shapes:
        inner = [part for item in shapes for part in item]  # type: ignore[union-attr]
        return [merged(inner)] if inner else []
    names = {
        name
        for item in shapes
        for name in (item.split("|") if isinstance(item, str) else [json.dumps(item, sort_keys=True)])
    }
    return "|".join(sorted(names))


SEAL_LINE = re.compile(r"abductive-seal-v\d+ [0-9a-f]{64}\n")  # a cache entry's seal (inputs/files.py: seal)


def file_shape(path: Path, metrics: frozenset[str]) -> object:
    """What the record holds of one file (a sealed cache entry: ``sealed`` and its payload's shape; a CSV: its header
    with tasks' and metrics' names as words, once each)."""
    if path.suffix == ".json":
        text = path.read_text(encoding="utf-8")
        sealed = SEAL_LINE.match(text)
        found = shape(json.loads(text[sealed.end() :] if sealed else text), metrics)
        return {"sealed": found} if sealed else found
    if path.suffix == ".jsonl":
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return merged([shape(line, metrics) for line in lines])
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as file:
            header = next(csv.reader(file), [])
        words = ["__".join(key_word(part, metrics) for part in column.split("__")) for column in header]
        return ", ".join(dict.fromkeys(words))  # in order: a consumer may read the columns by place
    return "present"


def metric_names(results: Path) -> frozenset[str]:
    """The metrics lmms-eval's results files under ``results`` report (``name,none`` keys of each task's results)."""
    found = set()
    for path in results.rglob("*_results.json"):
        for values in json.loads(path.read_text(encoding="utf-8")).get("results", {}).values():
            found |= {key.split(",")[0] for key in values if "," in key and not key.split(",")[0].endswith("_stderr")}
    return frozenset(found - {"alias"})


def shown_path(relative: str, metrics: frozenset[str]) -> str:
    """A file's path as the record writes it: run names, times and hashes as words (:data:`PATH_WORDS`), and
    tasks' and metrics' names (``_samples_<task>.jsonl``, ``plots/<task>__<metric>.png``)."""
    for pattern, word in PATH_WORDS:
        relative = pattern.sub(word, relative)
    for task in sorted(TASKS, key=len, reverse=True):
        relative = relative.replace(task, TASK)
    return re.sub(r"(?<=<task>__)\w+(?=\.)", lambda found: key_word(found[0], metrics), relative)


def shapes(results: Path, cache: Path) -> dict[str, object]:
    """Every file under the results and cache folders by its shown path (one entry per shown path: files that differ
    only in a run name, time or hash are one, their shapes merged)."""
    metrics = metric_names(results)
    found: dict[str, list[object]] = {}
    for root, label in ((results, "results"), (cache, "cache")):
        for path in sorted(root.rglob("*")):
            if path.is_file():
                relative = path.relative_to(root).as_posix()
                shaped = path.suffix in SHAPED and (label == "results" or relative.startswith(STAGES))
                found.setdefault(shown_path(f"{label}/{relative}", metrics), []).append(
                    file_shape(path, metrics) if shaped else "present"
                )
    return {shown: merged(items) for shown, items in sorted(found.items())}


def snapshot(results: Path, cache: Path) -> task_snapshots.Snapshot:
    """The files record of what a run left in ``results`` and ``cache``, under ``EXPORT_FORMAT`` (the lmms-eval
    version that wrote its files is a line of it, outside the digest: a new lmms-eval that writes the same shapes
    needs only a regeneration)."""
    from importlib.metadata import version

    from abductive_tasks.reports.leaderboard.render import EXPORT_FORMAT

    content = shapes(results, cache)
    lines = [f"lmms-eval: {version('lmms-eval')}"]
    lines += [f"{path}: {task_snapshots.json_text(value)}" for path, value in content.items()]
    body = "".join(line + "\n" for line in lines)
    return task_snapshots.Snapshot(
        NAME, str(EXPORT_FORMAT), task_snapshots.content_digest(content), body, content, NAME
    )


def build() -> task_snapshots.Snapshot:
    """The files record as a canonical run (:func:`run_canonical`) writes them now."""
    with tempfile.TemporaryDirectory(prefix="abductive-formats-") as scratch:
        return snapshot(*run_canonical(Path(scratch)))


def build_all() -> dict[str, task_snapshots.Snapshot]:
    return {NAME: build()}


def record_path(snapshots: Path, name: str = NAME) -> Path:
    return snapshots / f"{name}.txt"


def recorded(snapshots: Path, name: str = NAME) -> task_snapshots.Snapshot | None:
    return task_snapshots.Snapshot.read(record_path(snapshots, name))


def bump_message(name: str, version: str, reason: str) -> str:
    """What to do when a file's shape changed under the same version."""
    return (
        f"the files a batch and its leaderboard write changed shape, but their version is still {version} "
        f"({reason}).\n"
        "  Ours: raise EXPORT_FORMAT in abductive_tasks/reports/leaderboard/render.py (leaderboard.json holds it: a "
        "consumer of the exports can tell). lmms-eval's (after a new lmms-eval): check that what reads them still "
        "reads them. Then run python utils/generate_task_yaml.py."
    )
