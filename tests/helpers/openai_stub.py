"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests (judge, served vLLM route).

It answers ``POST /v1/chat/completions`` from a script and records every request body::

    with OpenAIStub(["Score: 7", Fault(500), Delay(2.0, "8/10")]) as stub:
        os.environ["OPENAI_API_URL"] = stub.url          # http://127.0.0.1:<port>/v1
        ...
    stub.requests        # JSON bodies received, in arrival order
    stub.image_counts()  # images (``image_url`` parts) per request

A script is a list consumed in order (the last entry repeats once the list is exhausted) or a
callable ``body -> reply``; a reply is a string, a :class:`Fault` (HTTP error status, optionally with a
``Retry-After`` header) or a :class:`Delay` (sleep, then reply: provokes client timeouts). ``GET /health`` and
``GET /v1/models`` answer as vLLM's server does, so readiness polling works against it.

A judge at a server's pace (tests and ``utils/bench_judge.py``)::

    with OpenAIStub(script, latency=0.5, max_in_flight=16, retry_after=1.0) as stub:
        ...
    stub.peak_in_flight  # the most requests served at once
    stub.rejections      # requests answered 429 (with Retry-After) because max_in_flight were being served

``latency`` is added to every accepted request; a request arriving while ``max_in_flight`` are served is answered
429 at once, is not scripted and is not in ``requests``.

A server started with a key (``api_key``, as ``vllm serve --api-key``) answers 401 to a ``/v1`` request without
``Authorization: Bearer <key>``, as vLLM's does; such a request is counted in ``unauthorized`` and not scripted.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Fault:
    """Answer with this HTTP status and an OpenAI-style error body."""

    status: int = 500
    retry_after: float | None = None  # seconds, sent as the Retry-After header


@dataclass(frozen=True)
class Delay:
    """Sleep ``seconds`` before answering with ``reply``."""

    seconds: float
    reply: str | Fault = ""


Reply = str | Fault | Delay
Script = list[Reply] | Callable[[dict], Reply]


def count_images(body: dict) -> int:
    """Number of ``image_url`` content parts in a chat-completions request body."""
    return sum(
        1
        for message in body.get("messages", [])
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if isinstance(part, dict) and part.get("type") == "image_url"
    )


def message_text(body: dict) -> str:
    """All text content of a request's messages, joined by newlines."""
    texts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(
                part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
            )
    return "\n".join(texts)


class OpenAIStub:
    """Context manager running the scripted server in a background thread."""

    def __init__(
        self,
        script: Script,
        model: str = "stub-model",
        latency: float = 0.0,
        max_in_flight: int | None = None,
        retry_after: float = 1.0,
        api_key: str | None = None,
    ) -> None:
        self.model = model
        self.api_key = api_key
        self.unauthorized = 0
        self.latency = latency
        self.max_in_flight = max_in_flight
        self.retry_after = retry_after
        self.requests: list[dict] = []
        self.arrivals: list[float] = []  # time.monotonic() of each accepted request, as ``requests``
        self.in_flight = 0
        self.peak_in_flight = 0
        self.rejections = 0
        self._script = script
        self._position = 0
        self._lock = threading.Lock()
        # Looked up when called (fake_vllm.py swaps in a server on its port); socketserver's backlog of 5 would drop
        # connections of a burst of concurrent clients.
        server = type("Server", (ThreadingHTTPServer,), {"request_queue_size": 256, "daemon_threads": True})
        self._server = server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL as OpenAI clients expect it (``.../v1``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def image_counts(self) -> list[int]:
        with self._lock:
            return [count_images(body) for body in self.requests]

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _admit(self) -> bool:
        """Count a request in flight, unless ``max_in_flight`` are being served (then it is rejected)."""
        with self._lock:
            if self.max_in_flight is not None and self.in_flight >= self.max_in_flight:
                self.rejections += 1
                return False
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            return True

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _next_reply(self, body: dict) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.arrivals.append(time.monotonic())
            if callable(self._script):
                return self._script(body)
            reply = self._script[min(self._position, len(self._script) - 1)]
            self._position += 1
            return reply

    def _completion(self, content: str) -> dict:
        return {
            "id": f"chatcmpl-stub-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as an OpenAI-compatible server: no connection per request
            # TCP_NODELAY, as asyncio (under uvicorn, vLLM's server) sets it: the body's write after the headers' would
            # otherwise wait for the client's delayed ACK (a request took 60 ms one at a time; 5 ms with it)
            disable_nagle_algorithm = True

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: dict, retry_after: float | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                if retry_after is not None:
                    self.send_header("Retry-After", f"{retry_after:g}")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorized(self) -> bool:
                """Whether a ``/v1`` request carries the server's key (answered 401 if not)."""
                if stub.api_key is None or self.headers.get("Authorization") == f"Bearer {stub.api_key}":
                    return True
                with stub._lock:
                    stub.unauthorized += 1
                self._send(401, {"error": "Unauthorized"})
                return False

            def do_GET(self) -> None:
                if self.path.startswith("/v1") and not self._authorized():
                    return
                if self.path.rstrip("/") == "/health":
                    self._send(200, {})
                elif self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": stub.model, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if not self._authorized():
                    return
                if not stub._admit():
                    error = {"message": "too many requests in flight", "type": "rate_limit_error", "code": 429}
                    self._send(429, {"error": error}, retry_after=stub.retry_after)
                    return
                try:
                    reply = stub._next_reply(body)
                    time.sleep(stub.latency)
                    if isinstance(reply, Delay):
                        time.sleep(reply.seconds)
                        reply = reply.reply
                finally:
                    stub._leave()  # before the reply is sent: a client's next request never finds this one in flight
                if isinstance(reply, Fault):
                    error = {"message": "scripted fault", "type": "server_error", "code": reply.status}
                    self._send(reply.status, {"error": error}, retry_after=reply.retry_after)
                else:
                    self._send(200, stub._completion(reply))

        return Handler
