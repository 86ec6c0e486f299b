"""A stand-in for the ``vllm`` executable: ``python tests/fake_vllm.py serve MODEL --host H --port P ...``.

It serves the scripted OpenAI-compatible stub (``openai_stub.py``) on the requested port, with
vLLM's behaviour for multi-image prompts: a request with more images than
``--limit-mm-per-prompt`` allows is rejected with HTTP 400. Everything observable is written to
the folder ``$FAKE_VLLM_RECORD``: ``argv.json`` (its command line, pid and whether it requires a key, on start),
``requests.jsonl`` (one line per chat request: model, image count) and ``stopped`` (on a clean
SIGTERM/SIGINT shutdown). ``FAKE_VLLM_REPLY`` is the answer text (default ``1``);
``FAKE_VLLM_FAIL=1`` makes it exit with status 3 at once, as a vLLM that cannot load would;
``FAKE_VLLM_DELAY`` (seconds) delays every answer. Started with ``--api-key`` (or ``VLLM_API_KEY``), it answers 401
to a request without that key, as vLLM does; ``unauthorized`` counts them (written on shutdown).
``FAKE_VLLM_WORKERS=N`` starts N worker processes first, as vLLM's engine and workers, in the
server's process group; like a server killed mid-flight, it never stops them itself. Their pids
are in ``workers.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the batch runs children with PYTHONSAFEPATH=1
import openai_stub  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("model")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--served-model-name")
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--limit-mm-per-prompt", type=json.loads, default={"image": 1})
    parser.add_argument("--api-key", default=os.environ.get("VLLM_API_KEY") or None)
    args, _rest = parser.parse_known_args(argv)
    record = Path(os.environ["FAKE_VLLM_RECORD"])
    record.mkdir(parents=True, exist_ok=True)
    (record / "argv.json").write_text(
        json.dumps({"argv": argv, "pid": os.getpid(), "key_required": bool(args.api_key)})
    )
    print(f"fake vllm: {argv}", flush=True)
    if os.environ.get("FAKE_VLLM_FAIL") == "1":
        print("fake vllm: failing at startup", flush=True)
        return 3
    workers = [
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        for _ in range(int(os.environ.get("FAKE_VLLM_WORKERS", "0")))
    ]
    (record / "workers.json").write_text(json.dumps([worker.pid for worker in workers]))
    limit = int(args.limit_mm_per_prompt.get("image", 1))
    reply = os.environ.get("FAKE_VLLM_REPLY", "1")
    delay = float(os.environ.get("FAKE_VLLM_DELAY", "0"))
    lock = threading.Lock()

    def answer(body: dict) -> openai_stub.Reply:
        images = openai_stub.count_images(body)
        with lock, (record / "requests.jsonl").open("a") as log:
            log.write(json.dumps({"model": body.get("model"), "images": images}) + "\n")
        if images > limit:
            return openai_stub.Fault(400)
        return openai_stub.Delay(delay, reply) if delay else reply

    class OnRequestedPort(ThreadingHTTPServer):
        def __init__(self, _address, handler) -> None:
            super().__init__((args.host, args.port), handler)

    openai_stub.ThreadingHTTPServer = OnRequestedPort
    # A stop request reaches a pipe (written by the C-level handler) rather than a Python handler that takes a lock:
    # a second SIGTERM (the parent-death signal, then the watchdog's) arriving while ``Event.set`` held its lock
    # deadlocked the server until the watchdog's SIGKILL, so it never wrote ``stopped``.
    stop_read, stop_write = os.pipe()
    os.set_blocking(stop_write, False)
    signal.set_wakeup_fd(stop_write)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: None)
    time.sleep(0.3)  # vLLM is not healthy at once: the caller must poll /health
    with openai_stub.OpenAIStub(answer, model=args.served_model_name or args.model, api_key=args.api_key) as stub:
        os.read(stop_read, 1)
        for sig in (signal.SIGTERM, signal.SIGINT):  # stopping: later ones are ignored (the interpreter's shutdown
            signal.signal(sig, signal.SIG_IGN)  # puts back the default action of a Python handler: killed, -15)
    (record / "unauthorized").write_text(str(stub.unauthorized))
    (record / "stopped").write_text("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
