"""``abductive-eval power`` and ``abductive-eval ui``: lmms-eval's own power analysis and web UI with our tasks."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from PIL import Image

from abductive_tasks.cli import main
from abductive_tasks.compat import tasks_path
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.reports import power_and_ui
from abductive_tasks.reports.power_and_ui import sample_picture
from abductive_tasks.runs import catalog

from helpers.runs import OFFLINE, abductive_eval

ABDUCTIVE_EVAL = str(Path(sys.executable).with_name("abductive-eval"))
NLEYE_1 = [
    str(SAMPLE_ROOT / "nleye" / "images" / "1" / f"{name}.png") for name in ("premise", "hypothesis1", "hypothesis2")
]


def png(content: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(content))
    assert image.format == "PNG"
    return image.convert("RGB")


def test_a_samples_input_images_are_served_side_by_side_in_the_order_the_model_got_them():
    line = {"doc_id": 1, "input_media": NLEYE_1, "consistency_acc": ["consistency_acc", {"item_id": "1"}]}
    content, media_type = sample_picture("nleye_triplet", line)
    picture = png(content)
    # premise 72x66, hypothesis1 50x56, hypothesis2 80x71: scaled to height 71 -> widths 77, 63, 80; two 8-pixel gaps
    assert media_type == "image/png" and picture.size == (77 + 8 + 63 + 8 + 80, 71)
    assert picture.getpixel((77, 0)) == (255, 255, 255)  # the gap after the premise
    assert picture.getpixel((77 + 8 + 63 + 8, 0)) == (40, 40, 40)  # hypothesis2's upper-left pixel, unscaled


def test_a_sample_without_readable_images_has_no_picture(tmp_path):
    (tmp_path / "broken.png").write_bytes(b"not an image")
    assert sample_picture("mucr_c2e", {"doc_id": 0, "c2e_accuracy": ["c2e_accuracy", {"item_id": "0"}]}) is None
    assert (
        sample_picture("nleye_triplet", {"doc_id": 0, "input_media": [*NLEYE_1[:2], str(tmp_path / "gone.png")]})
        is None
    )
    assert sample_picture("nleye_triplet", {"doc_id": 0, "input_media": [str(tmp_path / "broken.png")]}) is None


def test_the_media_route_serves_images_only_from_the_results_and_data_folders(tmp_path, monkeypatch):
    """A samples file can name any path in ``input_media``: only images inside the folder the ui serves or a data
    folder (the embedded sample, ``ABDUCTIVE_DATA``, the extracted-image cache) are drawn."""
    import shutil

    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    results, data, elsewhere = tmp_path / "results", tmp_path / "data", tmp_path / "private"
    for folder in (results, data, elsewhere):
        folder.mkdir()
        shutil.copy(NLEYE_1[0], folder / "picture.png")
    (results / "linked.png").symlink_to(elsewhere / "picture.png")
    line = lambda path: {"doc_id": 0, "input_media": [str(path)]}  # noqa: E731
    assert sample_picture("nleye_triplet", line(NLEYE_1[0]), [results]) is not None  # the embedded sample
    assert sample_picture("nleye_triplet", line(results / "picture.png"), [results]) is not None
    for outside in (elsewhere / "picture.png", results / "linked.png", results / ".." / "private" / "picture.png"):
        assert sample_picture("nleye_triplet", line(outside), [results]) is None, outside
    assert sample_picture("nleye_triplet", line(data / "picture.png"), [results]) is None
    monkeypatch.setenv("ABDUCTIVE_DATA", str(data))
    assert sample_picture("nleye_triplet", line(data / "picture.png"), [results]) is not None


def test_ui_without_fastapi_says_what_to_install_in_one_line(monkeypatch, capsys):
    real = power_and_ui.importlib.util.find_spec
    monkeypatch.setattr(
        power_and_ui.importlib.util,
        "find_spec",
        lambda name, *a: None if name in power_and_ui.UI_PACKAGES else real(name, *a),
    )
    assert main(["ui", "--no-browser"]) == 1
    error = capsys.readouterr().err
    assert error == (
        "abductive-eval ui: needs fastapi and uvicorn: pip install 'abductive-tasks[ui]' "
        "(lmms-eval's extra: pip install 'lmms-eval[tui]')\n"
    )


def test_ui_on_a_port_in_use_is_one_line_of_ours_naming_the_port(tmp_path, capsys):
    """uvicorn logged ``ERROR: [Errno 98] ... address already in use`` and exited 3; now one line, exit 2."""
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["ui", "--no-browser", "--port", str(port), str(tmp_path)]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err == (
        f"abductive-eval ui: cannot listen on port {port} of 127.0.0.1 (Address already in use); pick another: "
        "--port N\n"
    )


SHERLOCK = "sherlock_comparison,sherlock_localization_pairs,sherlock_retrieval"


@pytest.mark.e2e
@pytest.mark.parametrize(
    "command",
    [
        [ABDUCTIVE_EVAL, "power"],  # ours: lmms-eval's power with our tasks registered
        [str(Path(sys.executable).with_name("lmms-eval")), "power", "--include-path", str(tasks_path())],  # plain
    ],
    ids=["abductive-eval", "lmms-eval --include-path"],
)
def test_power_gives_our_tasks_sizes(command):
    completed = subprocess.run(
        [*command, "--tasks", f"nleye_triplet,dve_cls,{SHERLOCK}"],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample"},
        timeout=300,
        check=True,
    )
    sizes = re.findall(r"^  (\w+):\n    Sample size: +n = (\d+)$", completed.stdout, re.M)
    assert "Unresolved task names" not in completed.stdout
    if command[0] == ABDUCTIVE_EVAL:
        # the units the metrics resample (12 NL-Eye items of 24 documents, 6 DVE pairs of 17; Sherlock's 3 inputs of
        # 12, 3 images of 40, 2 chunks of 7: a walkthrough found Sherlock counted in documents), said in one line
        assert sizes == [
            ("dve_cls", "6"),
            ("nleye_triplet", "12"),
            ("sherlock_comparison", "3"),
            ("sherlock_localization_pairs", "3"),
            ("sherlock_retrieval", "2"),
        ]
        assert completed.stdout.rstrip().splitlines()[-1].startswith("abductive-tasks: n counts each of our tasks'")
        assert "DEBUG" not in completed.stderr  # --verbosity WARNING (its default) holds
    else:
        assert sizes == [  # plain lmms-eval counts documents
            ("dve_cls", "17"),
            ("nleye_triplet", "24"),
            ("sherlock_comparison", "12"),
            ("sherlock_localization_pairs", "40"),
            ("sherlock_retrieval", "7"),
        ]


def test_power_help_names_abductive_eval(capsys):
    """`abductive-eval power --help` said `usage: lmms-eval power`."""
    assert main(["power", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: abductive-eval power [-h]")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str, token: str = "") -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.mark.e2e
def test_ui_lists_our_tasks_and_serves_a_demo_runs_samples_with_their_images(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    output = tmp_path / "demo"
    run = abductive_eval(["--model", "dumb_pixel", "--tasks", "nleye_triplet", "--log_samples"], output)
    assert run.returncode == 0, run.stderr[-2000:]
    port = free_port()
    server = subprocess.Popen(
        [ABDUCTIVE_EVAL, "ui", "--no-browser", "--port", str(port)],
        env={**os.environ, **OFFLINE},
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        printed = ""
        while "token=" not in printed and server.poll() is None:
            printed += server.stdout.readline()
        root, token = re.search(r"(/[\w-]+)/\?token=([\w-]+)", printed).groups()  # printed at start, as Jupyter does
        base = f"http://127.0.0.1:{port}{root}"  # the ui is served below its root
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if get(f"{base}/health", token)[0] == 200:
                    break
            except OSError:
                time.sleep(0.5)
        status, page = get(base + "/", token)
        assert status == 200 and b'<div id="root">' in page, server.stdout.read() if server.poll() is not None else ""

        tasks = {task["id"]: task for task in json.loads(get(f"{base}/tasks", token)[1])}
        assert tasks["nleye_triplet"] == {"id": "nleye_triplet", "name": "Nleye Triplet", "group": False}
        assert catalog.names() <= set(tasks)  # every task and group of ours
        assert tasks["nleye"]["group"] and "mmbench" in tasks  # lmms-eval's own list stays
        preview = json.loads(get(f"{base}/tasks/nleye_triplet/yaml", token)[1])
        assert preview["path"] == "abductive_tasks/tasks/nleye/nleye_triplet.yaml"
        assert "task: nleye_triplet" in preview["yaml"]

        logs = quote(str(output))
        (listed,) = json.loads(get(f"{base}/logs/runs?logs_path={logs}", token)[1])
        assert listed["model_name"] == "dumb_pixel" and listed["tasks"] == ["nleye_triplet"]
        samples = json.loads(
            get(f"{base}/logs/runs/{listed['run_id']}/samples/nleye_triplet?logs_path={logs}", token)[1]
        )
        assert samples["total"] == 24  # 12 sample items, both hypothesis orders
        shown = samples["samples"][0]  # our record's fields as the panel's badges
        assert (
            shown["doc_id"] == 0 and shown["item"] == "1" and shown["images"] == "premise, hypothesis 1, hypothesis 2"
        )
        assert shown["result"] in ("✓ correct", "✗ wrong") and shown["read"] in ("1", "2")
        first = json.loads(next(output.rglob("*_samples_nleye_triplet.jsonl")).read_text().splitlines()[0])

        status, content = get(
            f"{base}/logs/runs/{listed['run_id']}/samples/nleye_triplet/media/0?logs_path={logs}", token
        )
        picture = png(content)
        assert status == 200 and picture.size == (77 + 8 + 63 + 8 + 80, 71)  # item 1's three images (see above)
        assert picture.tobytes() == png(sample_picture("nleye_triplet", first)[0]).tobytes()
        missing = get(f"{base}/logs/runs/{listed['run_id']}/samples/nleye_triplet/media/99?logs_path={logs}", token)
        assert missing == (404, b'{"detail":"No image found for this sample"}')
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize(("host", "warned"), [("127.0.0.1", False), ("::1", False), ("0.0.0.0", True)])
def test_a_ui_bound_beyond_this_machine_says_the_token_crosses_the_network(host, warned):
    """``--host 0.0.0.0`` serves other machines over plain HTTP, the token in the clear: ``ui`` says so in one line
    (not started here: uvicorn's logging setup would outlive the test)."""
    from abductive_tasks.reports.power_and_ui import bind_warning

    warning = bind_warning(host)
    assert (warning is not None) is warned
    assert warning is None or warning == (
        f"abductive-eval ui: --host {host} lets other machines reach this server over plain HTTP, the token in the "
        "clear; from another machine, prefer an SSH tunnel (ssh -L) to 127.0.0.1"
    )


def test_sherlock_units_are_inputs_images_and_chunks():
    """Comparison's inputs, localization's images (a document may carry several groups, one per route), retrieval's
    chunks; a document of no unit (the test split's, ``group`` '') counts none."""
    import datasets

    from abductive_tasks.reports.power_and_ui import sherlock_units

    comparison = datasets.Dataset.from_dict({"group": ["o1", "o1", "o2", ""], "chunk": [0, 0, 0, 0]})
    localization = datasets.Dataset.from_dict({"group": [["a.jpg|gt", "a.jpg|auto"], ["b.jpg|gt"], ["a.jpg|gt"]]})
    retrieval = datasets.Dataset.from_dict({"chunk": [0, 0, 1, 2, 2]})
    assert [sherlock_units(docs) for docs in (comparison, localization, retrieval)] == [2, 2, 3]
