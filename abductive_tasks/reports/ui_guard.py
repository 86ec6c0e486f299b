"""What stands between ``abductive-eval ui`` and a browser: the ui serves this machine's user only, and only the
folder given at start.

lmms-eval 0.7.3's web UI server answers any request: its CORS policy reflects every origin with credentials, it
accepts any ``Host`` (so binding 127.0.0.1 does not stop a page of another site, nor DNS rebinding), its
``logs_path`` parameter reads any folder, and its launcher runs a shell command the request gives. The launcher is
left out when the app is built (:func:`abductive_tasks.lmms_subcommands.ui_app`); :class:`UiGuard`, an ASGI middleware
in front of the app, refuses with 403:

- a ``Host`` other than this server's own (``127.0.0.1:PORT``, ``localhost:PORT``, ``[::1]:PORT``);
- an ``Origin`` other than those, and a browser request another site or port made (``Sec-Fetch-Site``);
- a path outside the ui's root, a random path made at start (:func:`new_root`, 128 bits) that the page is served
  under (the app sees the path below it);
- a request without the token made at start (printed with the URL, as Jupyter does): given once as
  ``?token=`` it is kept in a cookie (``HttpOnly``, ``SameSite=Strict``, ``Path`` the root), and a browser opening
  that address is sent on to it without the token (303), so the token leaves the address bar and the history;
  scripts may send ``Authorization: token <token>``. A browser sends a cookie to every port of its host (RFC 6265,
  section 8.5) but only to the paths under its ``Path`` (section 5.1.4): a server another local user runs on another
  port of 127.0.0.1 gets the cookie only for a request under the root, which it cannot know, so it never learns the
  token (nor the root: every response says ``Referrer-Policy: same-origin``). Every response is ``Cache-Control:
  no-store``: the token URL opened again after a browser restart (its session cookie gone) reaches the server, which
  sets the cookie again, instead of a page from the browser's cache whose requests are refused;
- a launcher route (``/eval/...``);
- a path with a ``..``, ``.`` or empty segment, as sent or decoded once more (lmms-eval's page route joins the path
  to its own folder and serves whatever file that names; its logs routes decode a run id a second time);
- a ``logs_path`` outside the folder given at start (a relative one is read from that folder; none means it).

What it serves from the logs (runs, results, samples) has every secret it holds replaced (:func:`served_secrets`:
the secret-named entries of a run's ``config`` and ``model_args``, found as the batch finds them, and URL
credentials anywhere): results written by plain lmms-eval, or before abductive-eval scrubbed them, may still hold
one. Secret-named entries elsewhere are task settings or record fields, not secrets (lmms-eval's task configs carry
``score_key: score``, Sherlock's records ``has_key: true``), and replacing their values would garble the page.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode

from abductive_tasks.redaction import SHORTEST, redact_value, url_secrets, value_secrets

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
LAUNCHER_PREFIX = "/eval"
LOGS_PREFIX = "/logs/"
TRUSTED_FETCH_SITES = ("same-origin", "none")  # `none`: the user typed the address or opened a bookmark


def new_token() -> str:
    """A per-start secret (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def new_root() -> str:
    """A per-start path the ui is served under (``/`` and 128 random bits, URL-safe): its cookie's ``Path``."""
    return "/" + secrets.token_urlsafe(16)


class Refused(Exception):
    """A request the ui does not serve; the message says why."""


class UiGuard:
    """An ASGI middleware: only requests from this ui's own page (or a client holding the token), to this server's
    own address, reach ``app``; ``logs_path`` is kept inside ``logs_root``."""

    def __init__(
        self, app: App, token: str, port: int, logs_root: Path, host: str | None = None, root: str | None = None
    ) -> None:
        self.app = app
        self.token = token
        self.port = port
        self.root = root or new_root()  # the cookie goes only to paths under it: never to another port's server
        self.logs_root = logs_root.expanduser().resolve()
        self.cookie = f"abductive_ui_token_{port}"  # cookies are shared across ports: one per server
        names = [*LOOPBACK_NAMES, *([host] if host and host not in ("0.0.0.0", "::", *LOOPBACK_NAMES) else [])]
        self.hosts = frozenset(f"{name}:{port}".lower() for name in names)
        self.origins = frozenset(f"http://{host}" for host in self.hosts)

    def address(self) -> str:
        """The address to open: this server's root with the token."""
        return f"http://127.0.0.1:{self.port}{self.root}/?token={self.token}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # the ui uses no websocket
            await send({"type": "websocket.close", "code": 1008})
            return
        try:
            scope, set_cookie = self.admitted(scope)
        except Refused as refusal:
            await refuse(send, str(refusal))
            return
        if set_cookie:
            cookie = f"{self.cookie}={self.token}; Path={self.root}; HttpOnly; SameSite=Strict"
            send = with_header(send, b"set-cookie", cookie)
        send = with_header(send, b"cache-control", "no-store")  # never drawn from a cache the token did not open
        send = with_header(send, b"referrer-policy", "same-origin")  # the root never leaves in a Referer
        if set_cookie and scope["method"] == "GET" and navigation(scope):  # the address opened, minus the token
            await see_other(send, self.root + without_token(scope))
            return
        if scope["path"].startswith(LOGS_PREFIX):
            send = without_secrets(send)
        await self.app(scope, receive, send)

    def admitted(self, scope: Scope) -> tuple[Scope, bool]:
        """The request's scope as the app gets it (token dropped from the query, ``logs_path`` made absolute) and
        whether to set the token cookie; :class:`Refused` when it is not served."""
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        if headers.get("host", "").lower() not in self.hosts:
            raise Refused("Host not allowed: this ui answers only to its own address (127.0.0.1, localhost, [::1])")
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            raise Refused("cross-origin request refused")
        if headers.get("sec-fetch-site", "none") not in TRUSTED_FETCH_SITES:
            raise Refused("cross-site request refused")
        path, raw_path = self.below_root(scope)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = [value for name, value in query if name == "token"]
        from_query = bool(given) and all(self.matches(value) for value in given)
        held = [*cookie_values(headers.get("cookie", ""), self.cookie), header_token(headers)]
        if not (from_query or any(self.matches(value) for value in held)):
            raise Refused("token required: open the address abductive-eval ui printed at start (…/?token=…)")
        if path == LAUNCHER_PREFIX or path.startswith(LAUNCHER_PREFIX + "/"):
            raise Refused("the evaluation launcher is not served: run evaluations with abductive-eval or batch")
        if steps_out(path):
            raise Refused("a path with a '..', '.' or empty segment is not served")
        query = [(name, value) for name, value in query if name != "token"]
        if path.startswith(LOGS_PREFIX):
            logs = [value for name, value in query if name == "logs_path"]
            query = [(name, value) for name, value in query if name != "logs_path"]
            query.append(("logs_path", str(self.logs_path(logs[-1] if logs else ""))))
        admitted = {**scope, "path": path, "raw_path": raw_path, "query_string": urlencode(query).encode("latin-1")}
        return admitted, from_query

    def matches(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(value.encode(), self.token.encode())

    def below_root(self, scope: Scope) -> tuple[str, bytes]:
        """The request's path and raw path below the root (the app's paths); :class:`Refused` outside it."""
        root = self.root + "/"
        path = scope["path"]
        raw_path = scope.get("raw_path") or path.encode("latin-1")
        if not (path.startswith(root) and raw_path.startswith(root.encode("latin-1"))):
            raise Refused("not served: open the address abductive-eval ui printed at start (…/?token=…)")
        return path[len(self.root) :], raw_path[len(self.root) :]

    def logs_path(self, given: str) -> Path:
        """``given`` (relative: to the logs root; empty: the root) resolved, refused outside the root."""
        path = Path(given).expanduser() if given.strip() else self.logs_root
        resolved = (self.logs_root / path).resolve()
        if not resolved.is_relative_to(self.logs_root):
            raise Refused(f"logs_path outside the folder this ui serves ({self.logs_root})")
        return resolved


def steps_out(path: str) -> bool:
    """Whether a request path could name a file outside the folder a route joins it to: a ``..`` or ``.`` segment, or
    an empty one (``//etc/passwd`` joins as an absolute path), as sent or percent-decoded once more."""
    for form in (path, unquote(path)):
        segments = form.split("/")[1:]
        if any(segment in (".", "..") for segment in segments) or "" in segments[:-1]:
            return True
    return False


def cookie_values(header: str, name: str) -> list[str]:
    """Every value a ``Cookie`` header gives ``name``: a browser sends a cookie of the same name set by another port's
    server (for a wider path) beside ours, and one that does not match must not hide ours."""
    pairs = (part.strip().partition("=") for part in header.split(";"))
    return [value.strip().strip('"') for key, _, value in pairs if key.strip() == name]


def header_token(headers: dict[str, str]) -> str | None:
    """The token of an ``Authorization: token <token>`` (or ``Bearer``) header."""
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() in ("token", "bearer") else None


def with_header(send: Send, name: bytes, value: str) -> Send:
    """``send``, adding a header to the response (in place of the app's own, for ``Cache-Control``)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = message.get("headers", [])
            if name == b"cache-control":
                headers = [(key, item) for key, item in headers if key.lower() != name]
            message["headers"] = [*headers, (name, value.encode("latin-1"))]
        await send(message)

    return sending


def without_secrets(send: Send) -> Send:
    """``send``, a JSON response held until complete and sent with every secret it holds replaced."""
    start: Message | None = None
    body = b""

    async def sending(message: Message) -> None:
        nonlocal start, body
        if message["type"] == "http.response.start":
            headers = {name.lower(): value for name, value in message.get("headers", [])}
            if headers.get(b"content-type", b"").startswith(b"application/json"):
                start = message
                return
        if start is None or message["type"] != "http.response.body":
            await send(message)
            return
        body += message.get("body", b"")
        if message.get("more_body"):
            return
        try:
            value = json.loads(body)
        except ValueError:  # not JSON after all: as it came
            cleaned = body
        else:
            secrets = [secret for secret in served_secrets(value) if len(secret) >= SHORTEST]
            cleaned = json.dumps(redact_value(value, secrets), ensure_ascii=False).encode() if secrets else body
        headers = [(name, value) for name, value in start.get("headers", []) if name.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(cleaned)).encode())]})
        await send({"type": "http.response.body", "body": cleaned})

    return sending


RUN_SETTINGS = ("config", "model_args")  # where a results file keeps what the run was given, secrets included


def served_secrets(value: object) -> list[str]:
    """The secrets in a JSON value the ui serves: those of a run's ``config`` and of every ``model_args`` entry (a
    mapping or a ``key=value,...`` string, a URL's secrets inside a value included), and the secrets of every URL
    (credentials, secret-named query parameters)."""
    if isinstance(value, dict):
        return [
            found
            for key, item in value.items()
            for found in (value_secrets(item) if key in RUN_SETTINGS else served_secrets(item))
        ]
    if isinstance(value, list):
        return [found for item in value for found in served_secrets(item)]
    return url_secrets(value) if isinstance(value, str) else []


def run_secrets(results: Mapping[str, Any]) -> list[str]:
    """The secrets of a run's settings (:func:`served_secrets` of its results JSON) long enough to replace."""
    return [secret for secret in served_secrets(results) if len(secret) >= SHORTEST]


def run_redacted(samples: list, results: Mapping[str, Any]) -> list:
    """A samples page with every secret of its run's settings (:func:`run_secrets`) replaced: a reply that echoes a
    key it was given holds it in clear in a run written by plain lmms-eval."""
    redacted = redact_value(samples, run_secrets(results))
    return redacted if isinstance(redacted, list) else samples


def navigation(scope: Scope) -> bool:
    """Whether a request is a browser's top-level navigation (``Sec-Fetch-Mode: navigate``), not a script's fetch."""
    return any(name.lower() == b"sec-fetch-mode" and value == b"navigate" for name, value in scope["headers"])


def without_token(scope: Scope) -> str:
    """The request's path below the root and query as admitted (:meth:`UiGuard.admitted` dropped the token and
    encoded the query again); always a path (``//host`` or ``/\\host`` would send the browser elsewhere)."""
    query = scope.get("query_string", b"").decode("latin-1")
    path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
    return "/" + path.lstrip("/\\") + (f"?{query}" if query else "")


async def see_other(send: Send, location: str) -> None:
    """A 303 to ``location`` (the cookie and ``Cache-Control`` headers come from ``send``'s wrappers)."""
    headers = [(b"location", location.encode("latin-1")), (b"content-length", b"0")]
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def refuse(send: Send, reason: str) -> None:
    body = json.dumps({"detail": reason}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 403, "headers": headers})
    await send({"type": "http.response.body", "body": body})
