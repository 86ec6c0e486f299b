"""REVIEW-3 (attack surfaces): the ui's token cookie reached every port of 127.0.0.1 (fixed).

:class:`~abductive_tasks.reports.ui_guard.UiGuard` keeps the token, once given as ``?token=``, in a cookie
(``HttpOnly; SameSite=Strict``) and admits any request carrying it. Cookies are not isolated by port (RFC 6265,
section 8.5), and another port of the same host is the same *site*, so ``SameSite=Strict`` does not hold it back: the
cookie, set with ``Path=/``, went with every request to ``http://127.0.0.1:<any port>/``, a page there opened from a
link or from the user's own bookmarks, or reloaded by itself after a cross-site navigation. A server another local
user runs on such a port (the docs' threat model: a local user who cannot read this user's files; only a process of
this user is out of scope, "it can read ... the ui token") so learned the token and replayed it to the ui with
``curl`` (any ``Host``/``Sec-Fetch-*`` header it likes), reading every run the ui serves.

The ui is now served under a random root made at start, and the cookie's ``Path`` is that root (RFC 6265, section
5.1.4): the browser sends it to another port only for a request under the root, which that server cannot know, and
the guard serves nothing outside it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from abductive_tasks.reports.ui_guard import UiGuard, new_token

UI_PORT, OTHER_PORT = 8123, 9999
UI, OTHER = f"http://127.0.0.1:{UI_PORT}", f"http://127.0.0.1:{OTHER_PORT}"


async def served(scope, receive, send) -> None:
    """What the ui's app answers: the served runs."""
    body = b'{"runs": "this user\'s results"}'
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def test_review3_what_another_port_of_this_host_receives_opens_nothing_of_the_ui(tmp_path: Path):
    httpx = pytest.importorskip("httpx")
    token = new_token()
    guard = UiGuard(served, token, UI_PORT, tmp_path)
    seen: list[str] = []

    async def other_users_server(scope, receive, send) -> None:  # a server on another port of 127.0.0.1
        seen.extend(value.decode("latin-1") for name, value in scope["headers"] if name == b"cookie")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def browse_then_replay() -> list[int]:
        mounts = {UI: httpx.ASGITransport(app=guard), OTHER: httpx.ASGITransport(app=other_users_server)}
        async with httpx.AsyncClient(mounts=mounts) as browser:  # a cookie jar as a browser keeps one
            opened = await browser.get(guard.address(), headers={"sec-fetch-mode": "navigate"})
            assert opened.status_code == 303  # the token address opened: the cookie set
            page = await browser.get(UI + opened.headers["location"], headers={"sec-fetch-site": "same-origin"})
            assert page.status_code == 200 and "this user" in page.text  # the ui works on the cookie alone
            for path in ("/", "/logs/runs", "/favicon.ico", "/assets/x.js"):
                await browser.get(OTHER + path, headers={"sec-fetch-site": "same-site"})
        assert not [header for header in seen if token in header]  # the cookie never went to the other port
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=guard)) as curl:  # the other user replays
            headers = {"host": f"127.0.0.1:{UI_PORT}", "sec-fetch-site": "same-origin", "cookie": "; ".join(seen)}
            replayed = [await curl.get(f"{UI}{path}", headers=headers) for path in ("/logs/runs", "/")]
        return [response.status_code for response in replayed]

    assert asyncio.run(browse_then_replay()) == [403, 403]


def test_the_ui_is_served_only_below_its_root_and_a_planted_cookie_hides_nothing(tmp_path: Path):
    """A request outside the root is refused even with the token; a cookie of our name that another port's server set
    for ``/`` (the browser sends it beside ours) neither locks the user out nor opens anything."""
    from abductive_tasks.reports.ui_guard import cookie_values

    httpx = pytest.importorskip("httpx")
    token = new_token()
    guard = UiGuard(served, token, UI_PORT, tmp_path)
    assert (
        guard.root.startswith("/") and len(guard.root) > 20 and guard.root != UiGuard(served, token, 1, tmp_path).root
    )

    async def requests() -> list[int]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=guard), base_url=UI) as client:
            own = f"{guard.cookie}={token}"
            planted = f"{guard.cookie}=planted"
            asked = [
                ("/logs/runs", {"authorization": f"token {token}"}),  # outside the root
                (f"{guard.root}x/logs/runs", {"authorization": f"token {token}"}),  # the root is a whole segment
                (f"{guard.root}/logs/runs", {"cookie": f"{own}; {planted}"}),
                (f"{guard.root}/logs/runs", {"cookie": f"{planted}; {own}"}),
                (f"{guard.root}/logs/runs", {"cookie": planted}),
            ]
            return [(await client.get(path, headers=headers)).status_code for path, headers in asked]

    assert asyncio.run(requests()) == [403, 403, 200, 200, 403]
    assert cookie_values('a=1; b="2"; a = 3;c', "a") == ["1", "3"]


def test_the_cookie_is_bound_to_the_root_and_the_redirect_stays_below_it(tmp_path: Path):
    httpx = pytest.importorskip("httpx")
    token = new_token()
    guard = UiGuard(served, token, UI_PORT, tmp_path)
    assert guard.address() == f"{UI}{guard.root}/?token={token}"

    async def opened() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=guard)) as browser:
            url = f"{UI}{guard.root}//evil.example?token={token}&view=samples"
            return await browser.get(url, headers={"sec-fetch-mode": "navigate"})

    assert asyncio.run(opened()).status_code == 403  # an empty segment: never a redirect away

    async def navigated() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=guard)) as browser:
            url = f"{UI}{guard.root}/?token={token}&view=samples"
            return await browser.get(url, headers={"sec-fetch-mode": "navigate"})

    response = asyncio.run(navigated())
    assert response.headers["location"] == f"{guard.root}/?view=samples"
    assert f"Path={guard.root};" in response.headers["set-cookie"]
    assert response.headers["referrer-policy"] == "same-origin"
