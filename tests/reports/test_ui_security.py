"""``abductive-eval ui`` serves this machine's user and one folder, and runs nothing: requests from another origin,
to another ``Host`` (DNS rebinding), without the per-start token, to lmms-eval's launcher, or for logs outside the
folder are refused, over HTTP (httpx) and from pages loaded in headless Chromium."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from helpers.pages import CHROMIUM, MISSING
from helpers.runs import OFFLINE

ABDUCTIVE_EVAL = str(Path(sys.executable).with_name("abductive-eval"))
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",
]

pytestmark = pytest.mark.e2e


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# what plain lmms-eval (or an older abductive-eval) leaves in a results file: it redacts only `*api_key`-like keys
OLD_SECRETS = ("AKIA-old-secret-1234", "pw-old-5678", "cs-old-9999")
CONFIG = {"model_args": f"access_key={OLD_SECRETS[0]},base_url=https://u:{OLD_SECRETS[1]}@h.invalid/v1"}


def results_file(folder: Path, model_name: str) -> None:
    folder.mkdir(parents=True)
    config = {**CONFIG, "extra": {"client_secret": OLD_SECRETS[2]}}
    record = {"results": {"nleye_triplet": {"alias": "nleye_triplet"}}, "config": config, "model_name": model_name}
    (folder / "2026-01-01T00-00-00_results.json").write_text(json.dumps(record))


class Ui:
    """A running ``abductive-eval ui`` serving ``served`` (its working folder), with ``outside`` beside it."""

    def __init__(self, root: Path) -> None:
        self.served, self.outside, self.marker = root / "served", root / "outside", root / "launched"
        results_file(self.served / "ours", "served-run")
        results_file(self.outside / "theirs", "outside-run")
        self.port = free_port()
        self.output: list[str] = []
        self.process = subprocess.Popen(
            [ABDUCTIVE_EVAL, "ui", "--no-browser", "--port", str(self.port)],
            env={**os.environ, **OFFLINE},
            cwd=self.served,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=lambda: self.output.extend(self.process.stdout), daemon=True).start()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.base, self.token = self.wait_for_address()

    def wait_for_address(self) -> tuple[str, str]:
        """The root (``http://127.0.0.1:PORT/<root>``) and token of the address the ui printed at start, once the
        server answers."""
        import httpx

        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and self.process.poll() is None:
            urls = re.findall(r"http://[^\s;]+", "".join(self.output))
            if urls:
                token = parse_qs(urlsplit(urls[0]).query).get("token", [""])[0]
                base = self.origin + urlsplit(urls[0]).path.rstrip("/")
                try:
                    if httpx.get(f"{base}/health", params={"token": token}).status_code == 200:
                        return base, token
                except httpx.TransportError:
                    pass
            time.sleep(0.5)
        raise AssertionError(f"the ui did not start:\n{''.join(self.output)}")

    def get(self, path: str, headers: dict | None = None, **params: str):
        import httpx

        return httpx.get(self.base + path, params=params, headers=headers)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def ui(tmp_path_factory) -> Ui:
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    server = Ui(tmp_path_factory.mktemp("ui"))
    yield server
    server.stop()


def test_the_ui_prints_its_address_with_a_token_and_serves_whoever_holds_it(ui):
    import httpx

    assert len(ui.token) >= 32 and len(ui.base) > len(ui.origin) + 20  # the root: a random path
    assert f"{ui.base}/?token={ui.token}" in "".join(ui.output)
    first = ui.get("/logs/runs", token=ui.token)
    assert first.status_code == 200 and [run["model_name"] for run in first.json()] == ["served-run"]
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and f"Path={urlsplit(ui.base).path};" in cookie
    with httpx.Client(base_url=ui.base) as browser:  # the page's later requests carry the cookie, not the token
        browser.cookies.update(first.cookies)
        assert browser.get("/logs/runs").status_code == 200
        assert browser.get("/").status_code == 200
    assert ui.get("/logs/runs", headers={"Authorization": f"token {ui.token}"}).status_code == 200


def test_a_browser_opening_the_token_address_is_sent_on_without_the_token(ui):
    """The address printed at start, opened in a browser (a top-level navigation), answers a 303 to itself without the
    token, with the cookie: the token leaves the address bar and the browser's history. A script's request with
    ``?token=`` is answered as before."""
    import httpx

    navigate = {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "none"}
    opened = ui.get("/", headers=navigate, token=ui.token, view="samples")
    assert opened.status_code == 303 and opened.headers["location"] == f"{urlsplit(ui.base).path}/?view=samples"
    assert "HttpOnly" in opened.headers["set-cookie"] and opened.headers["cache-control"] == "no-store"
    assert ui.token not in opened.headers["location"] and not opened.content
    with httpx.Client(base_url=ui.origin) as browser:
        browser.cookies.update(opened.cookies)
        assert browser.get(opened.headers["location"], headers=navigate).status_code == 200
    assert ui.get("//evil.example", headers=navigate, token=ui.token).status_code == 403  # never a redirect away
    assert ui.get("/", headers=navigate, token="wrong").status_code == 403
    assert ui.get("/logs/runs", token=ui.token).status_code == 200  # a script: no redirect


@pytest.mark.parametrize("path", ["/", "/logs/runs", "/tasks", "/health"])
def test_without_the_token_nothing_is_served(ui, path):
    assert ui.get(path).status_code == 403
    assert ui.get(path, token="wrong").status_code == 403
    assert ui.get(path, headers={"Cookie": f"abductive_ui_token_{ui.port}=wrong"}).status_code == 403


def test_the_launcher_is_refused_and_runs_no_command(ui):
    import httpx

    request = {"model": "dummy", "tasks": ["nleye_triplet"], "env_setup": f"touch {ui.marker}; exit 0"}
    own_page = {"Origin": ui.origin, "Sec-Fetch-Site": "same-origin"}
    started = httpx.post(f"{ui.base}/eval/start", params={"token": ui.token}, json=request, headers=own_page)
    job = started.json().get("job_id", "none") if started.status_code == 200 else "none"
    streamed = ui.get(f"/eval/{job}/stream", token=ui.token)
    time.sleep(1)
    assert not ui.marker.exists(), "the launcher ran the request's command"
    assert (started.status_code, streamed.status_code) == (403, 403)
    for path in ("/eval/preview", "/eval/import-yaml", "/eval/none/stop"):
        assert httpx.post(f"{ui.base}{path}", params={"token": ui.token}, json=request).status_code == 403
    assert "launcher is not served" in started.json()["detail"]


@pytest.mark.parametrize("origin", ["http://127.0.0.1:1", "http://evil.example", "null"])
def test_a_cross_origin_request_is_refused_even_with_the_token(ui, origin):
    import httpx

    read = ui.get("/logs/runs", headers={"Origin": origin}, token=ui.token)
    preflight = httpx.options(
        f"{ui.base}/logs/runs",
        headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
        params={"token": ui.token},
    )
    for response in (read, preflight):
        assert response.status_code == 403 and "access-control-allow-origin" not in response.headers
    assert ui.get("/logs/runs", headers={"Sec-Fetch-Site": "same-site"}, token=ui.token).status_code == 403
    assert ui.get("/logs/runs", headers={"Origin": f"http://localhost:{ui.port}"}, token=ui.token).status_code == 200


@pytest.mark.parametrize("host", ["rebind.example:{port}", "127.0.0.1:1", "evil.example", "localhost.evil:{port}"])
def test_a_foreign_host_is_refused_even_with_the_token(ui, host):
    response = ui.get("/logs/runs", headers={"Host": host.format(port=ui.port)}, token=ui.token)
    assert response.status_code == 403 and "Host not allowed" in response.json()["detail"]


def test_secrets_left_in_a_results_file_are_not_served(ui):
    listed = ui.get("/logs/runs", token=ui.token)
    (run,) = listed.json()
    results = ui.get(f"/logs/runs/{run['run_id']}/results", token=ui.token)
    for response in (listed, results):
        assert response.status_code == 200 and not [secret for secret in OLD_SECRETS if secret in response.text]
        assert int(response.headers["content-length"]) == len(response.content)
    assert results.json()["config"] == {
        "model_args": "access_key=[REDACTED],base_url=https://[REDACTED]@h.invalid/v1",
        "extra": {"client_secret": "[REDACTED]"},
    }


def test_task_settings_and_record_fields_named_like_secrets_are_served_as_they_are():
    """lmms-eval's task configs carry ``score_key: score`` and Sherlock's records ``has_key: true``: not secrets,
    and scrubbing their values garbled every ``items_scored`` count and every ``True``."""
    from abductive_tasks.reports.ui_guard import served_secrets

    results = {
        "config": {"model_args": "api_key=sk-planted-0001", "extra": {"client_secret": "planted-0002"}},
        "configs": {"dve_cls": {"score_key": "score", "url": "https://u:planted-0003@h.invalid"}},
        "results": {"mucr_c2e": {"c2e_counts,none": {"items_scored": 12}}},
        "samples": [{"has_key": True, "sort_key": "timestamp"}],
    }
    assert set(served_secrets(results)) == {"sk-planted-0001", "planted-0002", "planted-0003", "u:planted-0003"}


def test_logs_are_served_only_from_the_folder_given_at_start(ui):
    for escape in (str(ui.outside), "../outside", "~", "/"):
        response = ui.get("/logs/runs", token=ui.token, logs_path=escape)
        assert response.status_code == 403 and "outside-run" not in response.text, escape
    run_id = "..%2Foutside%2Ftheirs%2F2026-01-01T00-00-00_results.json"
    assert ui.get(f"/logs/runs/{run_id}/results", token=ui.token).status_code in (400, 403, 404)
    for inside in ("", ".", "./", str(ui.served), "ours"):
        listed = ui.get("/logs/runs", token=ui.token, logs_path=inside).json()
        assert [run["model_name"] for run in listed] == ["served-run"], inside


def test_no_path_names_a_file_outside_what_the_ui_serves(ui):
    """lmms-eval's page route joined any path to its own folder and served the file it named: with the token,
    ``/..%2F..%2F...%2Fetc%2Fpasswd`` read any file on the machine (the cache's sealing key included)."""
    outside = ui.outside / "not-served.txt"
    outside.write_text("outside-file-content")
    up = "..%2F" * 24
    for path in (
        f"/{up}{str(outside).lstrip('/').replace('/', '%2F')}",
        f"/{'%252e%252e%252f' * 24}{str(outside).lstrip('/')}",
        f"/%2F{str(outside).lstrip('/')}",
        f"/assets/{up}{str(outside).lstrip('/').replace('/', '%2F')}",
        "/logs/runs/ours%2F..%2F..%2Foutside%2Ftheirs%2F2026-01-01T00-00-00_results.json/results",
    ):
        response = ui.get(path, token=ui.token)
        assert response.status_code == 403 and "outside-file-content" not in response.text, path
        assert "outside-run" not in response.text, path
    assert ui.get("/", token=ui.token).status_code == 200  # the page itself is served


def test_a_samples_file_linked_from_outside_the_folder_is_not_served(ui):
    """A samples file beside a run's results that is a link out of the served folder was read through the link (the
    results file itself was confined)."""
    planted = ui.served / "planted"
    planted.mkdir()
    record = {"results": {"foo": {"alias": "foo"}}, "config": {}, "model_name": "planted-run"}
    (planted / "x_results.json").write_text(json.dumps(record))
    (ui.outside / "outside.jsonl").write_text(json.dumps({"doc_id": 0, "leak": "outside-samples-line"}) + "\n")
    (planted / "x_samples_foo.jsonl").symlink_to(ui.outside / "outside.jsonl")
    response = ui.get("/logs/runs/planted%2Fx_results.json/samples/foo", token=ui.token)
    assert response.status_code == 404 and "outside-samples-line" not in response.text


def test_a_reply_echoing_a_secret_of_its_run_is_served_redacted(ui):
    """A run written by plain lmms-eval keeps its model_args in clear, and a reply may echo a key it was given: the
    samples page of that run replaces the run's secrets (its results page already did)."""
    line = {"doc_id": 0, "filtered_resps": f"1 {OLD_SECRETS[0]}", "resps": [[f"echo {OLD_SECRETS[1]}"]]}
    (ui.served / "ours" / "2026-01-01T00-00-00_samples_echo.jsonl").write_text(json.dumps(line) + "\n")
    response = ui.get("/logs/runs/ours%2F2026-01-01T00-00-00_results.json/samples/echo", token=ui.token)
    assert response.status_code == 200 and response.json()["total"] == 1
    assert not [secret for secret in OLD_SECRETS if secret in response.text]
    assert "1 [REDACTED]" in response.text


def test_a_fifo_or_a_deeply_nested_file_named_like_results_neither_hangs_nor_breaks_the_run_list(ui):
    """lmms-eval's run list opened every ``*_results.json`` in the server's one event loop: a FIFO named like one hung
    that request and every later one (the ui answered nothing until something wrote to it), and a results file nested
    hundreds deep failed the whole list (a RecursionError, HTTP 500)."""
    import httpx

    planted = ui.served / "planted-list"
    planted.mkdir()
    fifo = planted / "a_results.json"
    os.mkfifo(fifo)
    (planted / "b_results.json").write_text('{"results": {}, "x": ' + "[" * 600 + "]" * 600 + "}")
    try:
        listed = httpx.get(f"{ui.base}/logs/runs", params={"token": ui.token}, timeout=20)
        assert listed.status_code == 200 and "served-run" in [run["model_name"] for run in listed.json()]
        assert not [run for run in listed.json() if unquote(run["run_id"]).startswith("planted-list/")]
        assert ui.get("/health", token=ui.token).status_code == 200
    finally:
        try:  # a reader left waiting on the FIFO gets its end of file: the server answers the other tests
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        for path in planted.iterdir():
            path.unlink()
        planted.rmdir()


def test_the_folder_to_serve_is_an_argument(tmp_path):
    pytest.importorskip("fastapi")
    missing = subprocess.run(
        [ABDUCTIVE_EVAL, "ui", str(tmp_path / "nowhere"), "--no-browser"], capture_output=True, text=True, timeout=120
    )
    assert missing.returncode == 2 and missing.stderr == f"abductive-eval ui: {tmp_path / 'nowhere'} is not a folder\n"


BROWSER_RECORDER = """import json, os, stat, sys
from urllib.parse import unquote, urlsplit
opened = sys.argv[1]
path = unquote(urlsplit(opened).path)
status = os.stat(path)
record = {"argv": sys.argv, "mode": stat.S_IMODE(status.st_mode), "owner": status.st_uid, "text": open(path).read()}
with open(os.environ["RECORD"] + ".part", "w") as out:  # renamed whole: the test never reads a half-written record
    json.dump(record, out)
os.replace(os.environ["RECORD"] + ".part", os.environ["RECORD"])
"""


def test_the_browser_gets_no_token_on_its_command_line_and_no_log_line_holds_it(tmp_path):
    """``abductive-eval ui`` handed the token URL to the browser as an argument (any local user reads it with ``ps``),
    and its access log printed it again: the browser now opens a redirect file only its owner can read, as Jupyter
    does, and the token is printed once, in the address to open."""
    import httpx

    pytest.importorskip("fastapi")
    recorder, record = tmp_path / "browser.py", tmp_path / "opened.json"
    recorder.write_text(f"#!{sys.executable}\n{BROWSER_RECORDER}")  # $BROWSER names one program
    recorder.chmod(0o755)
    port = free_port()
    output: list[str] = []
    environment = {**os.environ, **OFFLINE, "BROWSER": str(recorder), "RECORD": str(record)}
    environment.pop("DISPLAY", None)
    process = subprocess.Popen(
        [ABDUCTIVE_EVAL, "ui", str(tmp_path), "--port", str(port)],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not record.exists() and process.poll() is None:
            time.sleep(0.5)
        opened = json.loads(record.read_text())
        token = re.search(r"token=([\w-]+)", opened["text"])[1]
        assert not [word for word in opened["argv"] if token in word]
        assert opened["mode"] == 0o600 and opened["owner"] == os.getuid()
        root = re.search(rf"http://127\.0\.0\.1:{port}(/[\w-]{{20,}})/\?token={token}", opened["text"])[1]
        base = f"http://127.0.0.1:{port}{root}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/health", params={"token": token}).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.5)
        for path in ("/", "/logs/runs", "/health"):
            assert httpx.get(base + path, params={"token": token}).status_code == 200
        time.sleep(1)
    finally:
        process.terminate()
        process.wait(timeout=30)
    printed = "".join(output)
    assert printed.count(token) == 1 and f"GET {root}/logs/runs" in printed  # the access log, without the token
    # Stopped by SIGTERM (as a service manager or ``kill`` stops it), it removes the page that holds the token and its
    # folder: uvicorn re-raised the signal at its default action after its shutdown, which ended the process before
    # its temporary folder was removed (one folder, with the token's page, left in the temporary directory a stop).
    redirect = Path(unquote(urlsplit(opened["argv"][1]).path))
    assert not redirect.exists() and not redirect.parent.exists()
    assert process.returncode == 128 + signal.SIGTERM, printed[-2000:]


def test_ui_results_dir_opens_on_that_folder(tmp_path):
    """``ui RESULTS_DIR`` opened "View Logs" on ``./results/demo/`` inside it, not on the folder it was given."""
    pytest.importorskip("fastapi")
    from lmms_eval.tui import server

    from abductive_tasks.lmms_subcommands import ui_bundle

    name, text = ui_bundle(server.STATIC_DIR / "assets")
    assert 'wp="./"' in text and "results/demo" not in text.split("wp=", 1)[1][:40]


# ---------------------------------------------------------------- in a browser

ATTACK_PAGE = """<!doctype html><html><body><pre id="out"></pre><script>
const ui = "{base}", token = "{token}", outcomes = {{}};
function attempt(name, method, url, body) {{
  const request = new XMLHttpRequest();  // synchronous: the DOM is final when the page has loaded
  try {{
    request.open(method, url, false);
    request.withCredentials = true;
    if (body) request.setRequestHeader("Content-Type", "application/json");
    request.send(body ? JSON.stringify(body) : null);
    outcomes[name] = request.status + " " + request.responseText.slice(0, 300);
  }} catch (error) {{
    outcomes[name] = "blocked: " + error.name;
  }}
  return request;
}}
const launch = {{model: "dummy", tasks: ["nleye_triplet"], env_setup: "touch {marker}; exit 0"}};
for (const [label, suffix] of [["no token", ""], ["stolen token", "?token=" + token]]) {{
  const started = attempt(label + ": start", "POST", ui + "/eval/start" + suffix, launch);
  let job = "none";
  try {{ job = JSON.parse(started.responseText).job_id || "none"; }} catch (error) {{}}
  const sep = suffix ? "&" : "?";
  attempt(label + ": stream", "GET", ui + "/eval/" + job + "/stream" + suffix);
  attempt(label + ": logs", "GET", ui + "/logs/runs" + suffix + sep + "logs_path={outside}");
}}
document.getElementById("out").textContent = JSON.stringify(outcomes);
</script></body></html>"""


def chromium_dom(url: str, profile: Path, *flags: str) -> str:
    completed = subprocess.run(
        [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *flags, "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return completed.stdout


@pytest.fixture
def chromium():
    if CHROMIUM is None:
        pytest.skip(MISSING)
    return chromium_dom


@pytest.fixture
def attack_site(ui, tmp_path):
    """A page on another local port whose script calls the ui's launcher and logs, with and without the token."""
    site = tmp_path / "site"
    site.mkdir()
    page = ATTACK_PAGE.format(base=ui.base, token=ui.token, marker=ui.marker, outside=ui.outside)
    (site / "attack.html").write_text(page)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/attack.html"
    server.shutdown()
    server.server_close()


def outcomes(dom: str) -> dict[str, str]:
    found = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    assert found and found[1], dom[-2000:]
    return json.loads(found[1].replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


def test_a_page_of_another_origin_cannot_launch_or_read_in_chromium(ui, chromium, attack_site, tmp_path):
    seen = outcomes(chromium(attack_site, tmp_path / "profile"))
    time.sleep(1)
    assert not ui.marker.exists(), f"a page of another origin ran a command: {seen}"
    assert set(seen) == {
        f"{label}: {what}" for label in ("no token", "stolen token") for what in ("start", "stream", "logs")
    }
    for name, outcome in seen.items():  # refused by the server (403) or blocked by the browser: never read
        assert outcome.startswith(("blocked", "0 ", "403 ")), (name, outcome)
        assert "outside-run" not in outcome and "job_id" not in outcome, (name, outcome)


def test_a_rebound_host_name_is_refused_in_chromium_and_the_own_address_served(ui, chromium, tmp_path):
    rebound = chromium(
        f"http://rebind.test:{ui.port}{urlsplit(ui.base).path}/logs/runs?token={ui.token}",
        tmp_path / "profile",
        "--host-resolver-rules=MAP rebind.test 127.0.0.1",
    )
    assert "Host not allowed" in rebound and "served-run" not in rebound
    own = chromium(f"{ui.base}/logs/runs?token={ui.token}", tmp_path / "profile-own")
    assert "served-run" in own  # the browser reaches the ui: the refusal above is the ui's


def test_the_token_address_opens_the_page_again_after_a_browser_restart(ui, chromium, tmp_path):
    """After a browser restart (its session cookie gone, its disk cache kept) the token URL opened a blank page from
    the browser's cache: the page is drawn both times."""
    url = f"{ui.base}/?token={ui.token}"
    profile = tmp_path / "profile"
    for launch in ("first", "after a restart"):
        dom = chromium(url, profile, "--virtual-time-budget=5000")
        assert "View Logs" in dom, (launch, dom[-1500:])


class CookieRecorder(http.server.BaseHTTPRequestHandler):
    """Another local server: records the ``Cookie`` header of every request, by path."""

    seen: list[tuple[str, str]] = []

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Cookie", "")))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def test_chromium_sends_the_ui_cookie_to_another_port_only_below_the_root(ui, chromium, tmp_path):
    """REVIEW-3: Chromium sent the ui's cookie (``Path=/``) with every request to every port of 127.0.0.1. The cookie's
    ``Path`` is now the ui's random root: opened in the same browser, another port's pages get no token; the same
    port's server asked for the root (which it cannot know) would."""
    import httpx

    recorder = type("Recorder", (CookieRecorder,), {"seen": []})
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), recorder)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    other_base, root = f"http://127.0.0.1:{other.server_address[1]}", urlsplit(ui.base).path
    profile = tmp_path / "profile"
    browser = subprocess.Popen(
        [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not (profile / "DevToolsActivePort").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        devtools = f"http://127.0.0.1:{(profile / 'DevToolsActivePort').read_text().split()[0]}"

        def open_tab(url: str) -> None:  # as the user opens an address: a navigation the browser starts
            httpx.put(f"{devtools}/json/new?{url}", timeout=30).raise_for_status()

        open_tab(f"{ui.base}/?token={ui.token}")
        while time.monotonic() < deadline and not [seen for seen in recorder.seen if ui.token in seen[1]]:
            open_tab(f"{other_base}{root}/probe")  # the root, which another user's server cannot know
            time.sleep(1)
        for path in ("/", "/logs/runs", "/favicon.ico"):
            open_tab(other_base + path)
        while time.monotonic() < deadline and len({path for path, _ in recorder.seen} - {f"{root}/probe"}) < 3:
            time.sleep(0.2)
    finally:
        browser.terminate()
        browser.wait(timeout=30)
        other.shutdown()
        other.server_close()
    below = [cookie for path, cookie in recorder.seen if path.startswith(root + "/")]
    elsewhere = {path: cookie for path, cookie in recorder.seen if not path.startswith(root + "/")}
    assert below and ui.token in below[-1], recorder.seen  # the browser holds the cookie and sends it below the root
    assert set(elsewhere) >= {"/", "/logs/runs", "/favicon.ico"} and not [
        path for path, cookie in elsewhere.items() if ui.token in cookie
    ], elsewhere
