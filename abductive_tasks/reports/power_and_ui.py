"""lmms-eval's own tools with our tasks: ``abductive-eval power`` and ``abductive-eval ui`` (the lmms-eval internals
they call are in :mod:`abductive_tasks.lmms_subcommands`).

lmms-eval 0.7.3 loads the ``lmms_eval.models`` entry points (where :mod:`abductive_tasks.compat` registers our task
folder) only for an evaluation, so its ``power`` and ``ui`` subcommands do not know our tasks. These commands run the
same code in process after registering them: ``power`` is lmms-eval's subcommand itself; ``ui`` serves lmms-eval's own
web UI app (``lmms_eval.tui.server``, which ``lmms-eval ui`` starts as a ``uvicorn`` subprocess, where nothing of
ours would be loaded) with our tasks in its task list and YAML preview, and, for the samples of our runs, the
document's input images on its media route (:func:`sample_picture`); without its launcher, behind
:class:`~abductive_tasks.reports.ui_guard.UiGuard` (own host and origin, a per-start root and token, one logs folder).
"""

from __future__ import annotations

import argparse
import functools
import html
import importlib.util
import io
import json
import logging
import os
import socket
import sys
import tempfile
import webbrowser
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from abductive_tasks import lmms_subcommands
from abductive_tasks.reports import media
from abductive_tasks.reports.browse import RunError, item_of, read_run, record_of
from abductive_tasks.reports.composites import sent_picture
from abductive_tasks.reports.ui_guard import UiGuard, new_token, run_redacted

VERDICT_MARKS = {"correct": "✓ correct", "wrong": "✗ wrong", "unparsable": "? unparsable", "request_failed": "! failed"}
LMMS_FIELDS = ("doc_id", "input", "target", "filtered_resps", "doc_hash")  # what the UI shows beside the badges

UI_PACKAGES = ("fastapi", "uvicorn")
LOG_LEVELS = ("TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR", "CRITICAL")


def power_main(argv: list[str]) -> int:
    """``abductive-eval power ...``: ``lmms-eval power ...`` with our tasks, logging at its ``--verbosity`` (default
    WARNING; lmms-eval 0.7.3 passes it to the task index, which does not apply it, and prints its DEBUG lines)."""
    from loguru import logger

    peek = argparse.ArgumentParser(add_help=False)
    peek.add_argument("--verbosity", default="WARNING")
    verbosity = peek.parse_known_args(argv)[0].verbosity.upper()
    if verbosity in LOG_LEVELS:
        logger.remove()
        logger.add(sys.stderr, level=verbosity)
    code = lmms_subcommands.run_subcommand(["power", *argv], task_size=resampled_units)
    print(
        "abductive-tasks: n counts each of our tasks' resampling units (NL-Eye and MuCR items, DVE premise-hypothesis "
        "pairs, Sherlock's inputs, images or chunks), which its intervals and paired comparisons resample, not its "
        "documents"
    )
    return code


UNIT_FIELDS = ("pair_id", "item_id")  # the document field naming a task's resampling unit, in order of precedence


def resampled_units(task: str, loaded: Any) -> int | None:
    """The units a task of ours resamples (distinct ``pair_id``, else ``item_id``, of its documents; Sherlock's:
    :func:`sherlock_units`); None for another task, or one whose documents name none."""
    from abductive_tasks.runs import catalog

    docs = getattr(loaded, "eval_docs", None)
    if task not in catalog.names() or docs is None or not len(docs):
        return None
    columns = set(getattr(docs, "column_names", None) or docs[0])
    field = next((name for name in UNIT_FIELDS if name in columns), None)
    if field is not None:
        return len({doc[field] for doc in docs})
    return sherlock_units(docs) if task.startswith("sherlock_") else None


def sherlock_units(docs: Any) -> int | None:
    """Sherlock's resampling units among ``docs`` (§4): comparison's inputs (``group``), localization's images (the
    image part of its ``image|route`` groups; one document may carry several), retrieval's chunks (``chunk``)."""
    columns = set(getattr(docs, "column_names", None) or docs[0])
    if "group" in columns:
        groups = [group for value in docs["group"] for group in (value if isinstance(value, list) else [value])]
        return len({str(group).split("|", 1)[0] for group in groups if group != ""})
    return len({str(chunk) for chunk in docs["chunk"]}) if "chunk" in columns else None


def sample_picture(task: str, line: Mapping[str, Any], roots: Sequence[Path] = ()) -> tuple[bytes, str] | None:
    """The input images of one logged document (``input_media``, written by lmms-eval's evaluator) as one PNG: on a
    composite task the one image the model was sent (:mod:`abductive_tasks.reports.composites`), else side by side
    in the order the model got them; None when the sample names none, or one is gone, unreadable (a picture missing
    a panel would misplace the others) or outside ``roots`` and the data folders
    (:mod:`abductive_tasks.reports.media`): a samples file can name any path."""
    paths = tuple(item_of(task, line).images)
    try:
        picture = sent_picture(task, paths, media.allowed_folders(roots))  # each image read once, where checked
    except (OSError, ValueError, Image.DecompressionBombError):  # unreadable (our DataError is a ValueError)
        return None
    if picture is None:
        return None
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue(), "image/png"


def sample_view(task: str, line: Mapping[str, Any]) -> dict[str, Any] | None:
    """A logged document as the UI's Samples panel shows it: lmms-eval's fields, then as badges the verdict
    (correct or not), the value read, the item, its category and the record's other fields, in place of one
    ``[metric, record]`` entry per metric (which the panel shows as "2 items"); None for a line without our record."""
    if not record_of(line):
        return None
    item = item_of(task, line)
    view = {key: line[key] for key in LMMS_FIELDS if key in line}
    view["result"] = VERDICT_MARKS.get(item.status, item.status)
    view["read"] = item.read
    view["item"] = item.item_id
    if item.category:
        view["category"] = item.category
    if item.roles:
        view["images"] = ("one image sent, left to right: " if item.composite else "") + ", ".join(item.roles)
    return view | item.details


def ui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="abductive-eval ui",
        description="lmms-eval's web UI (runs, results, samples; task list) with our tasks, serving the runs under "
        "one folder to this machine's browser only. It runs nothing: its evaluation launcher is left out. Open the "
        "address it prints (with its per-start token).",
    )
    parser.add_argument(
        "logs",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="RESULTS_DIR",
        help="the folder whose runs it serves, e.g. an --output_path of ours (default: the current folder); "
        "'View Logs' paths are read inside it",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("LMMS_SERVER_PORT", "8000")),
        help="port (default: $LMMS_SERVER_PORT or 8000, as lmms-eval ui)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default: 127.0.0.1, this machine only; lmms-eval ui binds 0.0.0.0, every interface)",
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return parser


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def bind_warning(host: str) -> str | None:
    """The line ``ui`` prints when it binds ``host`` beyond this machine: the token then crosses the network."""
    if host in LOOPBACK_HOSTS:
        return None
    return (
        f"abductive-eval ui: --host {host} lets other machines reach this server over plain HTTP, the token in the "
        "clear; from another machine, prefer an SSH tunnel (ssh -L) to 127.0.0.1"
    )


def listed_run(results_path: Path) -> dict[str, Any] | None:
    """A results file for the ui's run list (:func:`~abductive_tasks.reports.browse.read_run`: a regular file, a JSON
    object nested at most ``MAX_NESTING`` deep, with results); None, left out of the list, when it is not."""
    try:
        return read_run(results_path)
    except RunError:
        return None


def ui_main(argv: list[str]) -> int:
    """``abductive-eval ui [RESULTS_DIR] [--port N] [--host H] [--no-browser]``."""
    args = ui_parser().parse_args(argv)
    missing = [name for name in UI_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        print(
            f"abductive-eval ui: needs {' and '.join(missing)}: pip install 'abductive-tasks[ui]' "
            "(lmms-eval's extra: pip install 'lmms-eval[tui]')",
            file=sys.stderr,
        )
        return 1
    if not lmms_subcommands.ui_built():
        return 1
    import uvicorn

    if not args.logs.is_dir():
        print(f"abductive-eval ui: {args.logs} is not a folder", file=sys.stderr)
        return 2
    try:
        listening = listening_socket(args.host, args.port)
    except (OSError, OverflowError) as error:  # uvicorn: "[Errno 98] ... address already in use", exit 3
        why = "not a port: 1 to 65535" if isinstance(error, OverflowError) else error.strerror or error
        print(
            f"abductive-eval ui: cannot listen on port {args.port} of {args.host} ({why}); pick another: --port N",
            file=sys.stderr,
        )
        return 2
    token = new_token()
    pictures = functools.partial(sample_picture, roots=(args.logs,))  # images of the served runs and the data only
    ui = lmms_subcommands.ui_app(pictures, sample_view, run_redacted, listed_run)
    app = UiGuard(ui, token, args.port, args.logs, args.host)
    url = app.address()
    print(
        f"Serving the runs under {app.logs_root} (with the abductive-tasks tasks) to this machine's browser; "
        f"open\n    {url}\npress Ctrl+C to stop",
        flush=True,
    )
    if (warning := bind_warning(args.host)) is not None:
        print(warning, file=sys.stderr, flush=True)
    config = uvicorn.Config(app, host=args.host, port=args.port)  # configures uvicorn's loggers
    logging.getLogger("uvicorn.access").addFilter(WithoutToken(token))
    with listening, tempfile.TemporaryDirectory(prefix="abductive-ui-") as private:  # 0700: this user's alone
        if not args.no_browser:
            webbrowser.open(redirect_file(Path(private), url).as_uri())
        uvicorn.Server(config).run(sockets=[listening])
    return 0


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` as uvicorn binds one (IPv6 for a host with ``:``), for its server to
    serve on; OSError when it cannot be (the port in use), OverflowError for a number that is no port."""
    listening = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
    except OSError:
        listening.close()
        raise
    return listening


def redirect_file(folder: Path, url: str) -> Path:
    """A page only its owner can read (mode 0600) that sends the browser on to ``url``: the browser is started on this
    file, so the token never reaches its command line, where any local user reads it (Jupyter does the same)."""
    path = folder / "open.html"
    escaped = html.escape(url, quote=True)
    page = (
        f'<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={escaped}">'
        f'</head><body><a href="{escaped}">abductive-eval ui</a>'
        f"<script>window.location.replace({json.dumps(url)})</script></body></html>"
    )
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(page)
    return path


class WithoutToken(logging.Filter):
    """uvicorn's access log with the token replaced (a request line holds it as ``?token=...``)."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                value.replace(self.token, "[REDACTED]") if isinstance(value, str) else value for value in record.args
            )
        if isinstance(record.msg, str):
            record.msg = record.msg.replace(self.token, "[REDACTED]")
        return True
