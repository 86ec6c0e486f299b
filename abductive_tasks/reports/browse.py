"""Looking at a finished run: its summary again, and its items one by one.

* ``abductive-eval show RUN``: the end-of-run summary (:func:`abductive_tasks.reports.report.summary`) of a past run;
* ``abductive-eval browse RUN -o page.html``: one self-contained HTML page with a card per document
  (image thumbnails, prompt, reply, how it was read, correct or not), filterable by task, category and
  status, from the samples JSONL lmms-eval writes with ``--log_samples``.

``RUN`` is a results JSON (``<date>_results.json``) or a folder: the newest results JSON under it
(a model folder of ``abductive-eval``, a batch model's folder). Each samples line carries lmms-eval's
``input`` (the prompt), ``filtered_resps`` (the reply), ``target``, ``input_media`` (at most 4 image paths;
MuCR's parquet images are cached as ``<sha256>.png`` so that lmms-eval records them too)
and our record (:mod:`abductive_tasks.scoring.taskspec`: ``answer_status``, the value read, ``correct``).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.inputs.files import write_atomic
from abductive_tasks.reports.samples import RESULTS_SUFFIX, SAMPLES_MARK, task_of

THUMBNAIL_PX = 160
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # terminal control characters (ESC among them)
READ_KEYS = ("prediction", "rating", "plausibility")  # the value a record keeps of the reply, by benchmark
CATEGORY_KEYS = ("reasoning_category", "label", "update_type", "goal", "box_type", "sherlock_task")
ID_KEYS = ("item_id", "test_id")
STATUSES = ("correct", "wrong", "unparsable", "request_failed", "answered")
STATUS_HELP = {
    "correct": "read, and right",
    "wrong": "read, and wrong",
    "unparsable": "no answer could be read (counts as wrong)",
    "request_failed": "the request failed (never read as an answer)",
    "answered": "read; scored with the other documents of its item or group (ratings, explanations)",
}


class RunError(ValueError):
    """A RUN argument that names no finished run; the message says what was looked for where."""


def find_results(run: Path | str) -> Path:
    """The results JSON ``run`` names: the file itself, or the newest ``*_results.json`` under a folder."""
    run = Path(run)
    if run.is_file():
        return run
    if not run.is_dir():
        raise RunError(f"{run}: no such file or folder")
    found = sorted(run.rglob(f"*{RESULTS_SUFFIX}"), key=lambda path: (path.stat().st_mtime_ns, path.name))
    if not found:
        raise RunError(f"{run}: no *{RESULTS_SUFFIX} under it (a finished run writes one)")
    return found[-1]


def read_run(results_path: Path) -> dict:
    try:
        run = json.loads(results_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise RunError(f"{results_path}: not a readable results JSON ({error})") from None
    if not isinstance(run, dict) or not isinstance(run.get("results"), dict):
        raise RunError(f"{results_path}: no 'results' in it: not an lmms-eval results JSON")
    return run


def run_label(run: Mapping) -> str:
    return str(run.get("model_name") or (run.get("config") or {}).get("model") or "?")


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

    @property
    def key(self) -> tuple[str, int]:
        return self.task, self.doc_id


def _record(line: Mapping) -> dict:
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


def item_of(task: str, line: Mapping) -> Item:
    record = _record(line)
    read_key = next((key for key in READ_KEYS if key in record), None)
    category_key = next((key for key in CATEGORY_KEYS if record.get(key) not in (None, "")), None)
    id_key = next((key for key in ID_KEYS if key in record), None)
    shown = {read_key, category_key, id_key, "answer_status", "correct"}
    images = [str(path) for path in line.get("input_media") or [] if isinstance(path, str)]
    if not images and isinstance(record.get("image_path"), str):
        images = [record["image_path"]]
    return Item(
        task=task,
        doc_id=int(line.get("doc_id", -1)),
        item_id=str(record[id_key]) if id_key else str(line.get("doc_id", "")),
        category=str(record[category_key]) if category_key else "",
        status=verdict(record),
        read="-" if read_key is None or record[read_key] is None else _text(record[read_key]),
        reply=_text(line.get("filtered_resps", line.get("resps"))),
        prompt=_text(line.get("input")),
        target=_text(line.get("target")),
        images=images,
        details={
            key: _text(value)[:200]
            for key, value in record.items()
            if key not in shown and key != "image_path" and value not in (None, "", [])
        },
    )


def samples_files(results_path: Path) -> list[Path]:
    stamp = results_path.name.removesuffix(RESULTS_SUFFIX)
    return sorted(results_path.parent.glob(f"{stamp}{SAMPLES_MARK}*.jsonl"))


def read_items(results_path: Path) -> list[Item]:
    """Every document of every task of the run, from the samples JSONL beside its results JSON."""
    files = samples_files(results_path)
    if not files:
        raise RunError(
            f"{results_path}: no samples files beside it ({results_path.name.removesuffix(RESULTS_SUFFIX)}"
            f"{SAMPLES_MARK}<task>.jsonl): run the evaluation with --log_samples"
        )
    items = []
    for path in files:
        task = task_of(path) or path.stem
        with path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if not text.strip():
                    continue
                try:
                    items.append(item_of(task, json.loads(text)))
                except (json.JSONDecodeError, TypeError, ValueError) as error:
                    raise RunError(f"{path}, line {number}: not a samples line ({error})") from None
    return items


@lru_cache(maxsize=4096)
def thumbnail(path: str, size: int = THUMBNAIL_PX) -> str | None:
    """A small JPEG of the image at ``path`` as a data URI; None when it cannot be read, is no regular file, or
    declares more pixels than ``ABDUCTIVE_MAX_IMAGE_PIXELS`` (a decompression bomb is never decoded)."""
    from PIL import Image

    if not Path(path).is_file():  # gone, a folder, or a FIFO that would block the read
        return None
    try:
        with Image.open(path) as image:
            if image.width * image.height > settings.max_image_pixels():  # declared size: nothing decoded yet
                return None
            image = image.convert("RGB")
            image.thumbnail((size, size))
            buffer = io.BytesIO()
            image.save(buffer, "JPEG", quality=70)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode()


# ---------------------------------------------------------------- the page


def render(title: str, runs: list[str], rows: list[dict], note: str = "") -> str:
    """The page: ``rows`` are {item: Item, answers: [Item per run]} (one answer for a browse, two for a diff)."""
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("abductive_tasks.reports", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    for row in rows:
        row["thumbnails"] = [(path, thumbnail(path)) for path in row["item"].images]
    return environment.get_template("items.html.j2").render(
        title=title,
        runs=runs,
        rows=rows,
        note=note,
        tasks=sorted({row["item"].task for row in rows}),
        categories=sorted({row["item"].category for row in rows if row["item"].category}),
        statuses=[status for status in STATUSES if any(status in row["statuses"] for row in rows)],
        status_help=STATUS_HELP,
    )


def browse_page(results_path: Path) -> tuple[str, int]:
    """The page of a run, and the number of documents on it."""
    run = read_run(results_path)
    items = read_items(results_path)
    rows = [{"item": item, "answers": [item], "statuses": [item.status]} for item in items]
    label = run_label(run)
    return render(f"{label}: {len(items)} documents", [label], rows, note=str(results_path)), len(items)


# ---------------------------------------------------------------- commands


def show_main(argv: list[str]) -> int:
    """``abductive-eval show RUN``: a past run's end-of-run summary."""
    from abductive_tasks.reports import report

    parser = argparse.ArgumentParser(prog="abductive-eval show", description="A past run's summary, again.")
    parser.add_argument("run", type=Path, help="a results JSON, or a folder (its newest results JSON)")
    args = parser.parse_args(argv)
    try:
        results_path = find_results(args.run)
        run = read_run(results_path)
    except RunError as error:
        print(f"abductive-eval show: {error}", file=sys.stderr)
        return 1
    print(printable(report.summary(run, report.suite_headline(), results_path.parent)))
    return 0


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
    parser.add_argument("-o", "--out", type=Path, default=Path("items.html"), help="the page (default items.html)")
    args = parser.parse_args(argv)
    try:
        results_path = find_results(args.run)
        page, count = browse_page(results_path)
    except RunError as error:
        print(f"abductive-eval browse: {error}", file=sys.stderr)
        return 1
    try:
        write_atomic(args.out, page)
    except OSError as error:
        print(f"abductive-eval browse: cannot write {args.out} ({error.strerror or error})", file=sys.stderr)
        return 1
    print(f"{args.out}: {count} documents of {results_path}")
    return 0
