"""lmms-eval 0.7.3's own tools with our tasks: its ``power`` subcommand (:func:`run_subcommand`) and its web UI
server (:func:`ui_app`, with the script bundle's defaults edited, :data:`UI_BUNDLE_EDITS`).

Beside :mod:`~abductive_tasks.compat` at the bottom of the package, which it builds on (:func:`compat.install`
registers our tasks); every internal of lmms-eval's ``cli`` and ``tui`` it relies on is here.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from abductive_tasks.compat import install, task_manager
from abductive_tasks.inputs.files import open_resolved
from abductive_tasks.lmms_source import RESULTS_SUFFIX, samples_path, tasks_path


def run_subcommand(
    argv: list[str], task_size: Callable[[str, Any], int | None] | None = None, prog: str = "abductive-eval"
) -> int:
    """``lmms-eval <argv>`` (a subcommand such as ``power``) in process, with our tasks registered: lmms-eval 0.7.3
    loads model entry points only for an evaluation, so its ``power`` and ``tasks`` subcommands never see ours.
    ``task_size(name, task)``: the sample size ``power`` gives a task (None: its documents, lmms-eval's count);
    ``prog``: the command its usage and help name."""
    import sys

    from lmms_eval.cli import dispatch, power_utils

    install()
    builtin, build_parser = power_utils.collect_task_sizes, dispatch._build_parser

    @functools.wraps(builtin)
    def collect_task_sizes(tasks_arg, *args, **kwargs):  # the tasks it loads, seen as it loads them
        import lmms_eval.tasks

        loaded: dict[str, Any] = {}
        get_task_dict = lmms_eval.tasks.get_task_dict

        def seen(*call_args, **call_kwargs):
            found = get_task_dict(*call_args, **call_kwargs)
            loaded.update(found)
            return found

        lmms_eval.tasks.get_task_dict = seen
        try:
            sizes = builtin(tasks_arg, *args, **kwargs)
        finally:
            lmms_eval.tasks.get_task_dict = get_task_dict
        for name in sizes:
            size = task_size(name, loaded[name]) if task_size and name in loaded else None
            sizes[name] = size or sizes[name]
        return sizes

    def parser_named_ours() -> argparse.ArgumentParser:  # its usage and help say `abductive-eval power`
        parser = build_parser()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command in action.choices.values():
                    command.prog = command.prog.replace(parser.prog, prog, 1)
        parser.prog = prog
        return parser

    power_utils.collect_task_sizes, dispatch._build_parser = collect_task_sizes, parser_named_ours
    saved, sys.argv = sys.argv, [prog, *argv]
    try:
        dispatch.main()
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
    finally:
        sys.argv = saved
        power_utils.collect_task_sizes, dispatch._build_parser = builtin, build_parser
    return 0


SampleMedia = Callable[[str, Mapping[str, Any]], "tuple[bytes, str] | None"]
SampleView = Callable[[str, Mapping[str, Any]], "dict[str, Any] | None"]
RunRedacted = Callable[[list, Mapping[str, Any]], list]
ListedRun = Callable[[Path], "dict[str, Any] | None"]

# What the web UI's page shows by default (lmms-eval 0.7.3's bundle, served with these literals replaced): it opens on
# View Logs at the folder the ui serves (every run under it); its Evaluate tab holds our offline demo, not lmms-eval's
# OpenRouter `mme` example; each sample of the Samples panel shows its input images (the bundle has no image element:
# this adds one pointing at the media route, hidden when a sample has none).
UI_BUNDLE_EDITS = (
    ('[e,t]=T.useState("evaluate")', '[e,t]=T.useState("logs")'),  # opens on View Logs: the runs
    ('T.useState("openai")', 'T.useState("dumb_pixel")'),
    ('T.useState("model_version=bytedance-seed/seed-1.6-flash")', 'T.useState("")'),
    (
        "export HF_HOME=${HF_HOME:-~/.cache/huggingface}\\nexport OPENAI_API_KEY=${OPENROUTER_API_KEY}\\n"
        "export OPENAI_API_BASE=https://openrouter.ai/api/v1",
        "export ABDUCTIVE_DATA=sample",
    ),
    ('new Set(["mme"])', 'new Set(["nleye_triplet"])'),
    ('"./logs/openrouter_task_smoke/"', '"./results/demo/"'),
    ('T.useState("DEBUG")', 'T.useState("INFO")'),
    ('placeholder:"cuda:0"', 'placeholder:"cpu"'),
    ('wp="./logs/"', 'wp="./"'),  # View Logs opens on the folder the ui serves (`ui RESULTS_DIR`)
    ('const mo=""', 'const mo="."'),  # the page's requests go below its own path (the ui's root: ui_guard.py)
    ('const tt=""', 'const tt="."'),
    (
        'u.jsxs("div",{className:"space-y-2",children:[u.jsxs("div",{children:[u.jsx("div",'
        '{className:"text-[10px] uppercase tracking-wider text-neutral-400 mb-1",children:"Input"})',
        'u.jsxs("div",{className:"space-y-2",children:[u.jsx("img",{src:`${mo}/logs/runs/${encodeURIComponent(a)}'
        "/samples/${encodeURIComponent(F)}/media/${Ne}?logs_path=${encodeURIComponent(e)}`,"
        'alt:"the input images of this document",className:"max-h-64 border border-neutral-200",'
        'onError:x=>{x.currentTarget.style.display="none"}}),u.jsxs("div",{children:[u.jsx("div",'
        '{className:"text-[10px] uppercase tracking-wider text-neutral-400 mb-1",children:"Input"})',
    ),
)


def ui_bundle(assets: Path) -> tuple[str, str] | None:
    """The web UI's script bundle (file name, text) with :data:`UI_BUNDLE_EDITS` applied; None when the bundle is
    not lmms-eval 0.7.3's (a literal missing or repeated): it is then served as it is."""
    bundles = sorted(assets.glob("index-*.js"))
    if len(bundles) != 1:
        return None
    text = bundles[0].read_text(encoding="utf-8")
    for old, new in UI_BUNDLE_EDITS:
        if text.count(old) != 1:
            return None
        text = text.replace(old, new)
    return bundles[0].name, text


def samples_first(results: Mapping[str, Any], has_samples: Callable[[str], bool]) -> dict[str, Any]:
    """A results JSON with the tasks that logged samples first in ``results`` (the UI's Samples panel opens on the
    first task, which in lmms-eval's order is often a group: no samples file, an HTTP 404)."""
    tasks = results.get("results")
    if not isinstance(tasks, dict):
        return dict(results)
    ordered = sorted(tasks, key=lambda task: not has_samples(task))  # stable: the run's own order otherwise
    return {**results, "results": {task: tasks[task] for task in ordered}}


@functools.cache
def ui_app(sample_media: SampleMedia, sample_view: SampleView, run_redacted: RunRedacted, listed_run: ListedRun):
    """lmms-eval's web UI server (``lmms_eval.tui.server.app``, what ``lmms-eval ui`` runs in a subprocess) with our
    tasks: in its task list (0.7.3 lists only YAML under its own ``tasks/`` that loads with ``yaml.safe_load``,
    i.e. no ``!function`` tag), its task YAML preview (its own folder only) and its per-sample media route, which for
    our tasks serves ``sample_media(task, samples JSONL line)`` (lmms-eval's resolver reads the task's raw dataset:
    ours is a one-row placeholder that ``process_docs`` replaces). The Samples panel gets, for our tasks, each
    line as ``sample_view(task, line)`` (the record's fields, correct or not) and opens on a task with samples; the
    page's defaults are ours (:data:`UI_BUNDLE_EDITS`), and the page names its files and makes its requests relative
    to its own path (:func:`page_index`), the ui's root (``ui_guard.py``). Every task's samples page is given as
    ``run_redacted(samples, the run's results)`` (a reply that echoes a secret of the run's settings). Other tasks
    keep lmms-eval's handlers. The run list reads each results file as ``listed_run(path)`` (None: left out, as
    lmms-eval leaves out a file it cannot read). Its evaluation launcher (``/eval/...``) and its CORS policy are
    removed. Needs fastapi."""
    from lmms_eval.tui import server

    install()
    index = task_manager().task_index
    ours = {name: Path(info["yaml_path"]) for name, info in index.items()}
    _list_in_task_discovery(index, ours)
    routes = [
        ("/logs/runs", _run_list_route(listed_run)),
        ("/tasks/{task_id}/yaml", _task_yaml_route(ours)),
        *_sample_routes(ours, sample_media, sample_view, run_redacted),
    ]
    if (script := _bundle_route()) is not None:
        routes.append(script)
    routes.append(("/", _index_route()))
    _mount_in_front(server.app, routes)
    _without_launcher_or_cors(server.app)
    return server.app


def _list_in_task_discovery(index: Mapping[str, dict], ours: Mapping[str, Path]) -> None:
    """Add our tasks to the UI's task list (a built-in name wins, as in lmms-eval)."""
    from lmms_eval.tui import discovery

    listed = {
        name: discovery._create_display_name(name, ours[name], is_group=info["type"] == "group")
        for name, info in index.items()
    }
    discover = discovery.discover_tasks

    def discover_with_ours(include_path: str | None = None) -> list[tuple[str, str]]:
        return sorted({**listed, **dict(discover(include_path))}.items())

    discovery.discover_tasks = discover_with_ours
    discovery.get_discovery_cache().clear()


def _task_yaml_route(ours: Mapping[str, Path]) -> Callable:
    """The task YAML preview: ours from our task folder, other tasks from lmms-eval's handler."""
    from lmms_eval.tui import server

    builtin_yaml = server.get_task_yaml

    async def task_yaml(task_id: str) -> dict[str, str]:
        if task_id not in ours:
            return await builtin_yaml(task_id)
        path, root = ours[task_id], tasks_path().parents[1]
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        return {"task_id": task_id, "yaml": path.read_text(encoding="utf-8"), "path": str(shown)}

    return task_yaml


def _sample_routes(
    ours: Mapping[str, Path], sample_media: SampleMedia, sample_view: SampleView, run_redacted: RunRedacted
) -> list[tuple[str, Callable]]:
    """The routes of a run's samples: each sample's picture and fields for our tasks, and the run's results with the
    tasks that logged samples first; other tasks' pictures keep lmms-eval's handler. The results and samples files are
    read as checked (:func:`_run_results`, :func:`_samples_page`): lmms-eval's handlers resolve and confine a path, then
    open it again, following a link swapped in between."""
    from fastapi import HTTPException, Query
    from fastapi.responses import Response
    from lmms_eval.tui import server

    builtin_media = server.get_log_run_sample_media

    def samples_file(logs_path: str, run_id: str, task_name: str) -> Path | None:
        """The run's samples file of ``task_name``, resolved; None when there is none, or a link places it outside
        the logs folder (lmms-eval confines the results file, not the samples beside it). Ours read the resolved path
        with no link followed (:func:`_logged_sample`): a link swapped in after this check is refused, not read."""
        results = server._resolve_run_results_path(logs_path, run_id)
        samples = samples_path(results, task_name).resolve()
        inside = samples.is_relative_to(Path(logs_path).resolve())
        return samples if results.name.endswith(RESULTS_SUFFIX) and samples.is_file() and inside else None

    async def sample_picture(run_id: str, task_name: str, doc_id: int, logs_path: str = Query("./logs/")):
        if task_name not in ours:
            return await builtin_media(run_id, task_name, doc_id, logs_path)
        samples = samples_file(logs_path, run_id, task_name)
        if samples is None:
            raise HTTPException(status_code=404, detail="Samples file not found")
        try:
            line = _logged_sample(samples, doc_id)
        except OSError:  # swapped for a link, a FIFO or removed since the check
            raise HTTPException(status_code=404, detail="Samples file not found") from None
        picture = sample_media(task_name, line) if line is not None else None
        if picture is None:
            raise HTTPException(status_code=404, detail="No image found for this sample")
        content, media_type = picture
        return Response(content, media_type=media_type, headers={"Cache-Control": "public, max-age=3600"})

    def run_results(run_id: str, logs_path: str = Query("./logs/")) -> dict[str, Any]:  # a worker thread's
        results = _checked_results(logs_path, run_id)
        return samples_first(results, lambda task: samples_file(logs_path, run_id, task) is not None)

    def run_samples(  # a plain def: a samples file runs to gigabytes, read in a worker thread
        run_id: str,
        task_name: str,
        logs_path: str = Query("./logs/"),
        offset: int = Query(0, ge=0),
        limit: int = Query(50, ge=1, le=500),
    ) -> Any:  # lmms-eval's LogSamplesResponse
        if "/" in task_name or "\\" in task_name:
            raise HTTPException(status_code=400, detail="Invalid task name")
        samples = samples_file(logs_path, run_id, task_name)
        if samples is None:  # none, or one outside the logs folder
            raise HTTPException(status_code=404, detail="Samples file not found")
        try:
            lines, total = _samples_page(samples, offset, limit)
        except OSError:  # swapped for a link, a FIFO or removed since the check
            raise HTTPException(status_code=404, detail="Samples file not found") from None
        if task_name in ours:
            lines = [sample_view(task_name, line) or line for line in lines]
        lines = run_redacted(lines, _checked_results(logs_path, run_id))
        return server.LogSamplesResponse(samples=lines, total=total, offset=offset, limit=limit)

    return [
        ("/logs/runs/{run_id:path}/samples/{task_name}/media/{doc_id}", sample_picture),
        ("/logs/runs/{run_id:path}/samples/{task_name}", run_samples),
        ("/logs/runs/{run_id:path}/results", run_results),
    ]


def _run_list_route(listed_run: ListedRun) -> Callable:
    """lmms-eval's run list (``GET /logs/runs``), each results file inside the served folder read as ``listed_run``
    reads it (None: left out), in a worker thread. lmms-eval's handler opened every ``*_results.json`` in the server's
    one event loop: a FIFO named like one hung every request from then on, and a file nested hundreds deep failed the
    whole list."""
    from fastapi import Query
    from lmms_eval.tui import server

    def list_runs(logs_path: str = Query("./logs/")) -> list[Any]:  # a plain def: run in a worker thread
        root = Path(logs_path).expanduser().resolve()
        if not root.is_dir():
            return []
        found = (
            _run_summary(root, path, listed_run, server.LogRunSummary) for path in root.rglob(f"*{RESULTS_SUFFIX}")
        )
        return sorted((run for run in found if run is not None), key=lambda run: run.date, reverse=True)

    return list_runs


def _run_summary(root: Path, path: Path, listed_run: ListedRun, summary: Callable[..., Any]) -> Any:
    """A run of the run list as lmms-eval's handler makes it (a ``LogRunSummary``); None for a file it leaves out (a
    link that loops too)."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: RuntimeError before Python 3.13, OSError since
        return None
    run = listed_run(resolved) if resolved.is_relative_to(root) else None
    if run is None:
        return None
    results = run.get("results")
    tasks: dict[str, Any] = results if isinstance(results, dict) else {}
    config, counts, date, model = run.get("config"), run.get("n-samples"), run.get("date"), run.get("model_name")
    return summary(
        run_id=quote(resolved.relative_to(root).as_posix(), safe=""),
        model_name=str("" if model is None else model),
        date=str(resolved.stem.removesuffix("_results") if date is None else date),
        tasks=[str(task) for task in tasks],
        metrics={
            str(task): {str(name): value for name, value in values.items() if name != "alias"}
            for task, values in tasks.items()
            if isinstance(values, dict)
        },
        total_evaluation_time_seconds=run.get("total_evaluation_time_seconds"),
        config=config if isinstance(config, dict) else {},
        n_samples=counts if isinstance(counts, dict) else {},
    )


def _bundle_route() -> tuple[str, Callable] | None:
    """The page's script with our defaults (:func:`ui_bundle`), served under its own name; None when the page's
    script is not the one the edits expect."""
    from fastapi.responses import Response
    from lmms_eval.tui import server

    bundle = ui_bundle(server.STATIC_DIR / "assets")
    if bundle is None:
        return None
    name, text = bundle

    async def script() -> Response:
        return Response(text, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    return f"/assets/{name}", script


def page_index(html: str) -> str:
    """The page's ``index.html`` with its own files (``/assets/...``, ``/favicon.svg``) named relative to the page,
    so that they are fetched below the path it is served under (the ui's root: ``ui_guard.py``)."""
    return re.sub(r'\b(src|href)="/(?=[^/])', r'\1="./', html)


def _index_route() -> Callable:
    """The page itself (:func:`page_index` of lmms-eval's ``index.html``)."""
    from fastapi.responses import HTMLResponse
    from lmms_eval.tui import server

    html = page_index((server.STATIC_DIR / "index.html").read_text(encoding="utf-8"))

    async def index() -> HTMLResponse:
        return HTMLResponse(html)

    return index


def _mount_in_front(app: Any, routes: list[tuple[str, Callable]]) -> None:
    """Add the GET routes in front of the app's own, whose last one serves the web page for every other path."""
    for path, endpoint in routes:
        app.add_api_route(path, endpoint, methods=["GET"])
    added = [app.router.routes.pop() for _ in routes]
    app.router.routes[:0] = added


def _without_launcher_or_cors(app: Any) -> None:
    """The UI serves, it does not execute: without the evaluation launcher (``POST /eval/start`` takes a shell
    command that ``GET /eval/<id>/stream`` runs) and without its CORS policy (every origin, with credentials)."""
    from fastapi.middleware.cors import CORSMiddleware

    app.router.routes[:] = [route for route in app.router.routes if not _launcher_route(route)]
    app.user_middleware[:] = [entry for entry in app.user_middleware if entry.cls is not CORSMiddleware]
    app.middleware_stack = None  # rebuilt from user_middleware at the first request


def _launcher_route(route: object) -> bool:
    path = str(getattr(route, "path", ""))
    return path == "/eval" or path.startswith("/eval/")


def _checked_results(logs_path: str, run_id: str) -> dict[str, Any]:
    """The run's results, read from the file lmms-eval's check resolves inside the logs folder (:func:`_run_results`);
    HTTP 404 when there is none or it was swapped since, 500 when it holds no JSON object (as lmms-eval answers)."""
    from fastapi import HTTPException
    from lmms_eval.tui import server

    path = server._resolve_run_results_path(logs_path, run_id)
    if not path.name.endswith(RESULTS_SUFFIX) or not path.is_file():
        raise HTTPException(status_code=404, detail="Run results not found")
    try:
        return _run_results(path)
    except OSError:  # swapped for a link, a FIFO or removed since the check
        raise HTTPException(status_code=404, detail="Run results not found") from None
    except ValueError as invalid:
        raise HTTPException(status_code=500, detail=f"Run results {invalid}") from None


def _run_results(path: Path) -> dict[str, Any]:
    """The results file at ``path`` (absolute, resolved), opened with no link followed
    (:func:`~abductive_tasks.inputs.files.open_resolved`): a link, FIFO or device swapped in since the check is an
    OSError; a ValueError when it holds no JSON object."""
    with open_resolved(path) as handle:
        try:
            results = json.load(handle)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deep to parse
            raise ValueError("JSON is invalid") from None
    if not isinstance(results, dict):
        raise ValueError("must be a JSON object")
    return results


def _samples_page(path: Path, offset: int, limit: int) -> tuple[list[dict], int]:
    """``limit`` logged samples from the ``offset``-th, and how many the file holds, of the samples file at ``path``
    (absolute, resolved; opened as :func:`_run_results` opens one). As lmms-eval's samples route counts them: blank
    lines, lines that are no JSON (or no UTF-8) and JSON that is no object are skipped."""
    page: list[dict] = []
    total = 0
    with open_resolved(path) as lines:
        for line in lines:
            try:
                sample = json.loads(line) if line.strip() else None
            except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deep to parse
                continue
            if isinstance(sample, dict):
                if total >= offset and len(page) < limit:
                    page.append(sample)
                total += 1
    return page, total


def _logged_sample(path: Path, doc_id: int) -> dict | None:
    """The logged sample of ``doc_id`` in a samples file at ``path`` (absolute, resolved), read at its line's offset
    (the file is scanned once per version, not once per request: a localization samples file runs to gigabytes).
    Opened with no link followed (:func:`~abductive_tasks.inputs.files.open_resolved`), so the file read is the one
    checked: a link swapped in since is an OSError."""
    with open_resolved(path) as handle:
        stat = os.fstat(handle.fileno())
        offset = _doc_offsets(str(path), stat.st_size, stat.st_mtime_ns).get(doc_id)
        if offset is None:
            return None
        handle.seek(offset)
        return orjson.loads(handle.readline())


@functools.lru_cache(maxsize=16)
def _doc_offsets(path: str, size: int, mtime_ns: int) -> dict[int, int]:
    """The byte offset of each document's line in a samples file of this size and modification time (the cache key);
    the first line of a ``doc_id`` wins, blank and unreadable lines are skipped, as lmms-eval's samples route does."""
    offsets: dict[int, int] = {}
    offset = 0
    with open_resolved(Path(path)) as lines:
        for line in lines:
            try:
                value = orjson.loads(line) if line.strip() else None
            except orjson.JSONDecodeError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("doc_id"), int):
                offsets.setdefault(value["doc_id"], offset)
            offset += len(line)
    return offsets


def ui_built() -> bool:
    """Whether lmms-eval's web UI bundle is built (its wheel ships it; a source checkout builds it with npm)."""
    from lmms_eval.tui.cli import build_web_ui, check_web_built

    return check_web_built() or build_web_ui()
