"""Looking at a finished run: its summary again, and its items one by one.

* ``abductive-eval show RUN``: the end-of-run summary (:func:`abductive_tasks.reports.report.summary`) of a past run;
* ``abductive-eval browse RUN -o page.html``: one HTML page with a card per document
  (image thumbnails, prompt, reply, how it was read, correct or not), filterable by task, category and
  status, from the samples JSONL lmms-eval writes with ``--log_samples``. The cards travel as JSON inside the page
  and are drawn :data:`PAGE_SIZE` at a time as the reader scrolls, so a page of 10,000 documents opens at once;
  each distinct image is embedded once, its thumbnail made once per content and cached
  (:mod:`abductive_tasks.reports.thumbnails`). Thumbnails not in the cache are made within a decode budget; the
  images past it are linked (a relative URL to the file, drawn by the browser when its card is), unless
  ``--self-contained`` asks for every one.

``RUN`` is a results JSON (``<date>_results.json``) or a folder: the newest results JSON under it
(a model folder of ``abductive-eval``, a batch model's folder). Each samples line carries lmms-eval's
``input`` (the prompt), ``filtered_resps`` (the reply), ``target``, ``input_media`` (at most 4 image paths;
MuCR's parquet images are cached as ``<sha256>.png`` so that lmms-eval records them too)
and our record (:mod:`abductive_tasks.scoring.taskspec`: ``answer_status``, the value read, ``correct``).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import glob
import json
import os
import re
import shlex
import struct
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from abductive_tasks.hints import counted
from abductive_tasks.inputs.files import NotRegular, open_regular, write_output
from abductive_tasks.inputs.loading import MAX_NESTING, json_object, json_texts, nested_too_deeply
from abductive_tasks.lmms_source import RESULTS_SUFFIX, SAMPLES_MARK
from abductive_tasks.redaction import redact_text, redact_value
from abductive_tasks.reports import composites, media, thumbnails
from abductive_tasks.reports.samples import limit_text, task_of
from abductive_tasks.reports.ui_guard import run_secrets

PAGE_SIZE = 50  # cards the page renders at a time; more as the reader scrolls to the end
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # terminal control characters (ESC among them)
READ_KEYS = ("prediction", "rating", "plausibility", "payload")  # the value a record keeps of the reply, by benchmark
CATEGORY_KEYS = ("reasoning_category", "label", "update_type", "goal", "box_type", "sherlock_task")
ID_KEYS = ("item_id", "test_id")
STATUSES = ("correct", "wrong", "unparsable", "request_failed", "answered")
SELF_CONTAINED_HELP = (
    "embed every image's thumbnail, however long making them takes: a page that needs no other file. Without it, "
    "thumbnails not yet cached are made within a time budget and the other images are linked to their files"
)
STATUS_HELP = {
    "correct": "read, and right",
    "wrong": "read, and wrong",
    "unparsable": "no answer could be read (counts as wrong)",
    "request_failed": "the request failed (never read as an answer)",
    "answered": "read; scored with the other documents of its item or group (ratings, explanations)",
}


# What each image of a document is, in the order the samples list them (the prompt's order), by task name prefix.
IMAGE_ROLES = (
    ("nleye_triplet", ("premise", "hypothesis 1", "hypothesis 2")),
    ("nleye_pairs", ("premise", "hypothesis")),
    ("mucr_c2e", ("cause", "option 1", "option 2", "option 3", "option 4")),
    ("mucr_e2c", ("effect", "option 1", "option 2", "option 3", "option 4")),
    ("mucr_", ("cause", "effect")),
    ("dve_", ("premise image",)),
    ("sherlock_", ("image as stored (the model saw it with the task's regions drawn on it)",)),
)
SIGNIFICANT = 4  # digits a number read from a reply is shown with (the comparison keeps every digit)
_LOGLIKELIHOOD = re.compile(r"\(\s*(-?[\d.eE+-]+|'[^']*')\s*,\s*(True|False)\s*\)")


class RunError(ValueError):
    """A RUN argument that names no finished run; the message says what was looked for where."""


def find_results(run: Path | str) -> Path:
    """The results JSON ``run`` names: the file itself, or the newest ``*_results.json`` under a folder."""
    return results_under(run)[-1]


def results_under(run: Path | str) -> list[Path]:
    """The results JSONs ``run`` names, oldest first: the file itself, or every ``*_results.json`` under a folder."""
    run = Path(run)
    if run.is_file():
        return [run]
    if not run.is_dir():
        raise RunError(f"{run}: no such file or folder")
    found = sorted(run.rglob(f"*{RESULTS_SUFFIX}"), key=lambda path: (path.stat().st_mtime_ns, path.name))
    if not found:
        raise RunError(f"{run}: no *{RESULTS_SUFFIX} under it (a finished run writes one)")
    return found


def which_shown(run: Path, found: list[Path]) -> str | None:
    """For a folder holding several results files (a batch's or a demo's, several models' runs): one line saying how
    many, which one is shown and how to show another (by its run's folder, or by its file where that folder holds a
    newer one); None for one."""
    if len(found) < 2:
        return None
    other = found[-2]
    named = other.parent if [path for path in found if path.parent == other.parent][-1] == other else other
    return (
        f"{run} holds {len(found)} results files; shown: the newest, {found[-1]}; show another by its run's folder "
        f"or results file, e.g. abductive-eval show {named}"
    )


def read_run(results_path: Path) -> dict:
    """The results JSON at ``results_path``, an object with ``results`` (and a ``config`` that is one, if any); a FIFO
    or device named like one is never opened (it would wait)."""
    try:
        with open_regular(results_path) as handle:
            run = json.loads(handle.read().decode("utf-8"))
    except NotRegular as refused:
        raise RunError(str(refused)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RunError(f"{results_path}: not a readable results JSON ({error})") from None
    except RecursionError:
        raise RunError(f"{results_path}: not a readable results JSON (nested too deeply)") from None
    if nested_too_deeply(run):
        raise RunError(f"{results_path}: not a readable results JSON (nested over {MAX_NESTING} deep)")
    if not isinstance(run, dict) or not isinstance(run.get("results"), dict):
        raise RunError(f"{results_path}: no 'results' in it: not an lmms-eval results JSON")
    if not isinstance(run.get("config") or {}, dict):
        raise RunError(f"{results_path}: its config is no JSON object: not an lmms-eval results JSON")
    return run


def run_label(run: Mapping) -> str:
    """The model a run names (``model_name``), every secret of its settings replaced: plain lmms-eval names a run by
    its ``pretrained=`` (or ``model=`` ...) value as given, a URL's credentials included."""
    label = str(run.get("model_name") or (run.get("config") or {}).get("model") or "?")
    return redact_text(label, run_secrets(run))


# ---------------------------------------------------------------- items


@dataclass
class Item:
    """One document of one task as the browser shows it."""

    task: str
    doc_id: int
    item_id: str
    category: str
    status: str
    read: str
    reply: str
    prompt: str
    target: str
    images: list[str] = field(default_factory=list)
    details: dict[str, str] = field(default_factory=dict)
    roles: list[str] = field(default_factory=list)  # what each image is (premise, option 2, ...)
    decides: str = ""  # the reading the metric is computed from, in full (what diff compares)
    composite: composites.Composite | None = None  # the one image the model was sent, made of ``images``

    @property
    def key(self) -> tuple[str, int]:
        return self.task, self.doc_id


def record_of(line: Mapping) -> dict:
    """Our record in a samples line: the value of any ``[metric, record]`` entry (all carry the same record)."""
    for key, value in line.items():
        if isinstance(value, list) and len(value) == 2 and value[0] == key and isinstance(value[1], dict):
            return value[1]
    return {}


def verdict(record: Mapping) -> str:
    """One of :data:`STATUSES`."""
    status = record.get("answer_status")
    if status in ("unparsable", "request_failed"):
        return status
    correct = record.get("correct")
    if isinstance(correct, bool):
        return "correct" if correct else "wrong"
    return "answered"


def _text(value: object) -> str:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def _number(value: float) -> str:
    return f"{value:.{SIGNIFICANT}g}"


def _floats(encoded: str) -> list[float] | None:
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return list(struct.unpack(f"<{len(raw) // 4}f", raw[: len(raw) // 4 * 4])) if raw else None


def _values(values: list[float], shown: int = 3) -> str:
    head = ", ".join(_number(value) for value in values[:shown])
    return f"[{head}{', ...' if len(values) > shown else ''}]"


def describe_reading(value: object) -> str:
    """A value read from a reply as a person reads it: numbers to 4 significant digits, Sherlock's embedding and
    score-matrix payloads (base64) as what they hold."""
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str) and value.startswith("emb1:"):
        floats = _floats(value.removeprefix("emb1:"))
        if floats:
            half = len(floats) // 2
            size = f"{half} value{'s' if half != 1 else ''}"
            return f"embeddings of {size} each: image {_values(floats[:half])}, text {_values(floats[half:])}"
    if isinstance(value, str) and value.startswith("scm1:"):
        shape, _, body = value.removeprefix("scm1:").partition(":")
        floats = _floats(body)
        if floats:
            return f"score matrix {shape} (regions x inferences) {_values(floats, 4)}"
    return _text(value)


def describe_reply(reply: str) -> str:
    """lmms-eval's stringified loglikelihood result ``(loss, greedy)`` as what it is; other replies as they are."""
    match = _LOGLIKELIHOOD.fullmatch(reply.strip())
    if not match:
        return reply
    first = match.group(1)
    if first.startswith("'"):
        return f"loglikelihood result: {describe_reading(first.strip(chr(39)))}"
    try:
        return f"loglikelihood result: loss {_number(float(first))} (read as plausibility = -loss)"
    except ValueError:
        return reply


NOT_SENT = " (not sent: this task sends the model text only)"


def image_roles(task: str, count: int) -> list[str]:
    """What each of a document's ``count`` images is, by task; "image N" where the task is not in the table. A task
    that sends no image (``metadata: max_images_per_prompt: 0``: NL-Eye's text and described triplets) shows them
    as the document's, :data:`NOT_SENT` (lmms-eval's ``input_media`` lists a document's images, sent or not)."""
    from abductive_tasks.runs import catalog

    roles = next((roles for prefix, roles in IMAGE_ROLES if task.startswith(prefix)), ())
    suffix = NOT_SENT if catalog.metadata(task).get("max_images_per_prompt") == 0 else ""
    return [(roles[index] if index < len(roles) else f"image {index + 1}") + suffix for index in range(count)]


def item_of(task: str, line: Mapping) -> Item:
    record = record_of(line)
    read_key = next((key for key in READ_KEYS if key in record), None)
    category_key = next(
        (key for key in CATEGORY_KEYS if record.get(key) not in (None, "") and not isinstance(record[key], list)), None
    )
    id_key = next((key for key in ID_KEYS if key in record), None)
    shown = {read_key, category_key, id_key, "answer_status", "correct", "images"}
    recorded = record.get("images")  # every image of the document (lmms-eval's input_media keeps at most 4)
    if isinstance(recorded, list) and recorded and all(isinstance(path, str) for path in recorded):
        images = list(recorded)
    else:
        images = [str(path) for path in line.get("input_media") or [] if isinstance(path, str)]
    if not images and isinstance(record.get("image_path"), str):
        images = [record["image_path"]]
    reading = None if read_key is None else record[read_key]
    reply = line.get("filtered_resps", line.get("resps"))
    # a free-text task's record keeps no value read off the reply (MuCR's Exp is judged on the reply itself): diff
    # compares the reply (it compared nothing, and two runs' different explanations read as the same)
    decides = json.dumps(reading) if reading is not None else "" if read_key is not None else json.dumps(_text(reply))
    return Item(
        task=task,
        doc_id=int(line.get("doc_id", -1)),
        item_id=str(record[id_key]) if id_key else str(line.get("doc_id", "")),
        category=str(record[category_key]) if category_key else "",
        status=verdict(record),
        read=describe_reading(reading),
        reply=describe_reply(_text(reply)),
        prompt=_text(line.get("input")),
        target=_text(line.get("target")),
        images=images,
        details={
            key: _text(value)[:200]
            for key, value in record.items()
            if key not in shown and key != "image_path" and value not in (None, "", [])
        },
        roles=image_roles(task, len(images)),
        decides=decides,
        composite=composites.composite_of(task, images),
    )


def shared_details(items: list[Item]) -> dict[str, dict[str, str]]:
    """Per task, the record fields with one value on every document (dataset-level counters such as
    ``impossible_excluded``): said once per task, not on every card. Removed from the items' details."""
    by_task: dict[str, list[Item]] = {}
    for item in items:
        by_task.setdefault(item.task, []).append(item)
    shared: dict[str, dict[str, str]] = {}
    for task, group in by_task.items():
        if len(group) < 2:
            continue
        common = dict(group[0].details)
        for item in group[1:]:
            common = {key: value for key, value in common.items() if item.details.get(key) == value}
        if common:
            shared[task] = common
            for item in group:
                item.details = {key: value for key, value in item.details.items() if key not in common}
    return shared


def _single_quoted(text: str) -> str:
    """``text`` in single quotes for a shell, always (``shlex.quote`` leaves ``a=b,c=d`` bare, and a secret redacted
    after quoting, ``[REDACTED]``, would then be a glob)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def rerun_command(results_path: Path) -> str:
    """The ``abductive-eval`` command that repeats a run with ``--log_samples`` (from its results JSON's config), with
    the ``ABDUCTIVE_DATA`` the run recorded when it was not the official source and the other score-changing
    ``ABDUCTIVE_*`` settings it recorded (``ABDUCTIVE_MUCR_PICKS`` ...); every secret of the run replaced."""
    from abductive_tasks.reports.leaderboard.provenance import run_data, run_settings

    try:
        run = read_run(results_path)
    except RunError:
        run = {}
    recorded = run_data(run, results_path).values()
    sources = {str(print_.get("source") or "hub") for print_ in recorded if isinstance(print_, dict)}
    data = sources.pop() if len(sources) == 1 else "hub"  # hub: the official source, ABDUCTIVE_DATA unset
    config = run.get("config") or {}
    typed = config.get("resolved_cli_args") or {}  # the command line as lmms-eval read it
    groups = set(run.get("group_subtasks") or {})
    tasks = typed.get("tasks") or ",".join(task for task in run.get("results") or {} if task not in groups) or "TASKS"
    model_args = config.get("model_args")
    parts = [
        "" if data == "hub" else f"ABDUCTIVE_DATA={shlex.quote(data)}",
        *(f"{name}={shlex.quote(value)}" for name, value in run_settings(run, results_path).items()),
        "abductive-eval",
        f"--model {shlex.quote(str(config.get('model') or 'MODEL'))}",
        f"--model_args {_single_quoted(model_args)}" if isinstance(model_args, str) and model_args else "",
        f"--tasks {shlex.quote(str(tasks))}",
        f"--output_path {shlex.quote(str(typed.get('output_path') or results_path.parent.parent))}",
        f"--limit {shlex.quote(limit_text(config['limit']))}" if config.get("limit") is not None else "",
        f"--offset {shlex.quote(str(config['offset']))}" if config.get("offset") else "",
        "--log_samples",
    ]
    return redact_text(" ".join(part for part in parts if part), run_secrets(run))


def samples_files(results_path: Path) -> list[Path]:
    """The samples files of the run whose results are ``results_path`` (its name's ``*``, ``?`` or ``[`` matching only
    itself: a run named so drew other runs' samples in)."""
    stamp = results_path.name.removesuffix(RESULTS_SUFFIX)
    return sorted(results_path.parent.glob(f"{glob.escape(stamp)}{SAMPLES_MARK}*.jsonl"))


def read_items(results_path: Path) -> list[Item]:
    """Every document of every task of the run, from the samples JSONL beside its results JSON, with every secret of
    the run's settings replaced (a reply echoing a key of a run written by plain lmms-eval, :func:`run_secrets`)."""
    files = samples_files(results_path)
    if not files:
        raise RunError(f"{results_path}: this run kept no samples; re-run it with them: {rerun_command(results_path)}")
    secrets = run_secrets(read_run(results_path))
    items = []
    for path in files:
        try:
            items += _file_items(path, secrets)
        except UnicodeDecodeError as problem:  # decoded a block at a time: no line to name
            raise RunError(f"{path}: not UTF-8 text ({problem.reason})") from None
    return items


def _file_items(path: Path, secrets: list[str]) -> list[Item]:
    """The documents of one samples file (:func:`read_items`)."""
    task, items = task_of(path) or path.stem, []
    for number, text in json_texts(path, error=RunError):
        try:
            line = json_object(text, path, number, RunError)
            if nested_too_deeply(line):
                raise RunError(f"{path}, line {number}: not a samples line (nested over {MAX_NESTING} deep)")
            redacted = redact_value(line, secrets)
            items.append(item_of(task, redacted if isinstance(redacted, dict) else line))
        except RunError:
            raise
        except (TypeError, ValueError, OverflowError, RecursionError) as error:
            raise RunError(f"{path}, line {number}: not a samples line ({error})") from None
    return items


# ---------------------------------------------------------------- the page


def card(
    row: dict,
    image_id: Callable[[str], int | None],
    sent: Mapping[composites.Composite, int],
    outside: Collection[str] = (),
) -> dict:
    """What the page shows of one row: the document, its images (ids into the page's image table: the composite the
    model was sent where ``sent`` has it, else each image; an image in ``outside`` with the reason it is not drawn),
    each answer."""
    item = row["item"]
    pictured = zip(item.roles, item.images, strict=True)
    images = [
        [role, Path(path).name, image_id(path)] + ([media.NOT_DRAWN] if path in outside else [])
        for role, path in pictured
    ]
    if item.composite is not None:
        parts = ", ".join(item.roles)
        if item.composite in sent:
            images = [[f"one image sent, left to right: {parts}", f"{len(item.images)} images", sent[item.composite]]]
        else:
            images = [[f"{role} (part {number} of the one image sent)", *rest] for number, (role, *rest)
                      in enumerate(images, 1)]  # fmt: skip
    return {
        "task": item.task,
        "doc": item.doc_id,
        "item": item.item_id,
        "category": item.category,
        "target": item.target,
        "prompt": item.prompt,
        "statuses": row["statuses"],
        "images": images,
        "answers": [
            {
                "status": answer.status,
                "read": answer.read,
                "reply": answer.reply,
                "details": [[key, value] for key, value in answer.details.items()],
            }
            for answer in row["answers"]
        ],
    }


def link(path: str, page_folder: Path) -> str | None:
    """A URL from a page in ``page_folder`` to the image file ``path``: relative, each segment percent-encoded (so
    no part of a name reads as a scheme, a query, a fragment or markup); a ``file:`` URL where no relative path
    exists (another drive). None when ``path`` is no regular file."""
    if not Path(path).is_file():
        return None
    target = os.path.abspath(path)  # lexical, as the browser resolves the URL: symbolic links left as they are
    try:
        relative = os.path.relpath(target, os.path.abspath(page_folder))
    except ValueError:
        return Path(target).as_uri()
    return "/".join(quote(segment, safe="") for segment in relative.split(os.sep))


@dataclass
class Page:
    """A written page's HTML and what its images cost: made, taken from the cache, linked; composites drawn; the
    images not drawn, outside the runs' and the data folders."""

    html: str
    images: thumbnails.Thumbnails
    composites: composites.Pictures = field(default_factory=composites.Pictures)
    outside: list[str] = field(default_factory=list)


def render(
    title: str,
    runs: list[str],
    rows: list[dict],
    note: str = "",
    shared: dict[str, dict[str, str]] | None = None,
    page_size: int = PAGE_SIZE,
    page_folder: Path = Path(),
    self_contained: bool = False,
    roots: Sequence[Path] = (),
) -> Page:
    """The page: ``rows`` are {item: Item, answers: [Item per run], statuses: [status per run]} (one answer for a
    browse, two for a diff). The cards travel as JSON inside the page, each image once in an image table they
    point into: a thumbnail, or past the decode budget (unless ``self_contained``) a link from ``page_folder`` to
    its file. The page's script renders ``page_size`` cards at a time, more as the reader scrolls; the first
    page's thumbnails are always made. Only images inside ``roots`` (the runs' folders) and the data folders are read
    (:mod:`abductive_tasks.reports.media`, as the ui draws them): a samples file may name any path; each other image
    is shown as not drawn, and a composite with such a part is shown as its parts."""
    import jinja2

    allowed = media.allowed_folders(roots)
    everywhere = dict.fromkeys(path for row in rows for path in row["item"].images)
    outside = {path: None for path in everywhere if not media.drawable(path, allowed)}  # in page order
    budget = None if self_contained else thumbnails.DECODE_BUDGET_PX
    drawn = composites.pictures(
        (
            row["item"].composite
            for row in rows
            if row["item"].composite and outside.keys().isdisjoint(row["item"].images)
        ),
        allowed,
        budget=budget,
        always=len({row["item"].composite for row in rows[:page_size] if row["item"].composite}),
    )
    apart = [row["item"] for row in rows if row["item"].composite not in drawn.uris]
    shown = [[path for path in item.images if path not in outside] for item in apart]
    first_page = len(dict.fromkeys(path for paths in shown[:page_size] for path in paths))
    wanted = (path for paths in shown for path in paths)
    made = thumbnails.thumbnails(wanted, budget=budget, always=first_page, allowed=allowed)  # checked as read
    linked = {path: link(path, page_folder) for path in made.linked}
    images: list[str] = []
    ids: dict[str, int] = {}

    def uri_id(uri: str) -> int:
        if uri not in ids:
            ids[uri] = len(images)
            images.append(uri)
        return ids[uri]

    def image_id(path: str) -> int | None:
        uri = made.uris.get(path) or linked.get(path)
        return None if uri is None else uri_id(uri)

    sent = {composite: uri_id(uri) for composite, uri in drawn.uris.items()}
    cards = [card(row, image_id, sent, outside) for row in rows]
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("abductive_tasks.reports", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    html = environment.get_template("items.html.j2").render(
        title=title,
        count=len(rows),
        data={"runs": runs, "images": images, "cards": cards, "page_size": page_size},
        note=note,
        tasks=sorted({row["item"].task for row in rows}),
        categories=sorted({row["item"].category for row in rows if row["item"].category}),
        statuses=[status for status in STATUSES if any(status in row["statuses"] for row in rows)],
        status_help=STATUS_HELP,
        shared=shared or {},
    )
    made.linked = [path for path in made.linked if linked[path] is not None]
    return Page(html, made, drawn, list(outside))


def image_lines(
    made: thumbnails.Thumbnails, drawn: composites.Pictures | None = None, outside: Sequence[str] = ()
) -> list[str]:
    """What the page's images cost, for the console: embedded (made, from the cache) and linked; where some are
    linked, that the page needs their files and what ``--self-contained`` would cost; composites drawn; how many
    images are ``outside`` the runs' and the data folders, not drawn."""
    embedded = made.decoded + made.reused
    lines = [
        f"images: {embedded:,} embedded ({made.decoded:,} made, {made.reused:,} from the cache), "
        f"{len(made.linked):,} linked"
    ]
    if drawn is not None and (drawn.uris or drawn.left):
        lines.append(
            f"  composites the model was sent: {len(drawn.uris):,} shown ({drawn.decoded:,} drawn, {drawn.reused:,} "
            f"from the cache)"
            + (f", {drawn.left:,} shown as their parts (--self-contained draws all)" if drawn.left else "")
        )
    if made.linked:
        cost = ""
        if made.decoded:
            seconds = made.making_s / made.decoded * len(made.linked)
            cost = f", in about {seconds:,.0f} s here" if seconds >= 1 else ", in under a second here"
        lines.append(
            f"  the page shows the {len(made.linked):,} linked images from their files on this machine; "
            f"--self-contained embeds them all{cost} (thumbnails are cached: a later page embeds more)"
        )
    absent = [path for path in outside if not os.path.lexists(path)]
    if here := len(outside) - len(absent):
        lines.append(
            f"  {here:,} image{'' if here == 1 else 's'} not drawn: outside the runs' folders and the "
            "data folders (a samples file may name any path; set ABDUCTIVE_DATA to the run's data folder to draw its "
            "images)"
        )
    if absent:  # a run copied from another machine names the paths it read there
        lines.append(
            f"  {len(absent):,} image{'' if len(absent) == 1 else 's'} not drawn: no such file on this machine (a run "
            "copied from another machine names the paths it read there); browse it where it ran, or run it here"
        )
    return lines


def browse_page(results_path: Path, page_folder: Path = Path(), self_contained: bool = False) -> tuple[Page, int]:
    """The page of a run (its links relative to ``page_folder``), and the number of documents on it."""
    run = read_run(results_path)
    items = read_items(results_path)
    shared = shared_details(items)
    rows = [{"item": item, "answers": [item], "statuses": [item.status]} for item in items]
    label = run_label(run)
    page = render(
        f"{label}: {counted(len(items), 'document')}",
        [label],
        rows,
        note=str(results_path),
        shared=shared,
        page_folder=page_folder,
        self_contained=self_contained,
        roots=[results_path.parent],
    )
    return page, len(items)


# ---------------------------------------------------------------- commands


def show_main(argv: list[str]) -> int:
    """``abductive-eval show RUN``: a past run's end-of-run summary."""
    from abductive_tasks.reports import report
    from abductive_tasks.reports.leaderboard.provenance import run_lines

    parser = argparse.ArgumentParser(prog="abductive-eval show", description="A past run's summary, again.")
    parser.add_argument("run", type=Path, help="a results JSON, or a folder (its newest results JSON)")
    args = parser.parse_args(argv)
    try:
        found = results_under(args.run)
        results_path = found[-1]
        run = read_run(results_path)
    except RunError as error:
        print(printable(f"abductive-eval show: {error}"), file=sys.stderr)
        return 1
    if several := which_shown(args.run, found):
        print(printable(several) + "\n")
    for line in changed_since_run(results_path, run["results"]):
        print(printable(line), file=sys.stderr)
    secrets = run_secrets(run)  # a run written by plain lmms-eval keeps its model_args in clear
    shown = report.summary(run, report.headline_lookup(), results_path.parent, details=True)
    print(printable(redact_text(shown, secrets)))
    print(printable(redact_text("\n" + "\n".join(run_lines(run, results_path)), secrets)))
    return 0


def changed_since_run(results_path: Path, tasks: Collection[str]) -> list[str]:
    """A line for each of ``tasks`` whose results or samples file changed since its batch run ended, by the seal of
    its run record (``<run>/run_identity.json``, the results' folder's parent; :func:`~abductive_tasks.runs.history.
    seal_broken`): the values shown are then not what the run wrote. None for a run no batch recorded."""
    from abductive_tasks.inputs.files import file_sha256
    from abductive_tasks.runs.history import seal_broken
    from abductive_tasks.runs.identity_record import RUN_RECORD, DamagedFile, IdentityRecord

    run = results_path.parents[1]
    if not (run / RUN_RECORD).is_file():
        return []
    try:
        record = IdentityRecord.read(run / RUN_RECORD)
    except DamagedFile as error:
        return [f"abductive-eval show: {error}: what follows is not checked against the run's seal"]
    return [
        f"abductive-eval show: {task} {why} ({run}): its values below are not what the run wrote"
        for task in sorted(tasks)
        if (why := seal_broken(record, run, results_path, task, file_sha256))
    ]


def printable(text: str) -> str:
    """``text`` without terminal control sequences a results file may carry (line breaks and tabs kept)."""
    return CONTROL.sub("\N{REPLACEMENT CHARACTER}", text)


def browse_main(argv: list[str]) -> int:
    """``abductive-eval browse RUN -o page.html``."""
    parser = argparse.ArgumentParser(
        prog="abductive-eval browse",
        description="One HTML page with every document of a run (needs --log_samples): images, prompt, reply, "
        "how it was read, correct or not; filter by task, category, status.",
    )
    parser.add_argument("run", type=Path, help="a results JSON, or a folder (its newest results JSON)")
    parser.add_argument(
        "-o", "--out", type=Path, default=None, help="the page (default: items.html in the folder of the run's results)"
    )
    parser.add_argument("--self-contained", action="store_true", help=SELF_CONTAINED_HELP)
    args = parser.parse_args(argv)
    try:
        results_path = find_results(args.run)
        args.out = args.out or results_path.parent / "items.html"
        page, count = browse_page(results_path, args.out.parent, args.self_contained)
    except RunError as error:
        print(printable(f"abductive-eval browse: {error}"), file=sys.stderr)
        return 1
    try:
        write_output(args.out, page.html, inputs=[results_path, *samples_files(results_path)])
    except OSError as error:
        print(printable(f"abductive-eval browse: cannot write {args.out} ({error.strerror or error})"), file=sys.stderr)
        return 1
    print(
        printable(
            f"{args.out}: {counted(count, 'document')} of {results_path}; "
            + "\n".join(image_lines(page.images, page.composites, page.outside))
        )
    )
    return 0
