"""Both vLLM routes: golden command lines and model_args,
and the served route's life cycle against a fake `vllm serve`."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import psutil
import pytest
from lmms_eval.utils import simple_parse_args_string

from abductive_tasks.runs.batch import main as batch_main
from abductive_tasks.runs.batch import serve_main
from abductive_tasks.runs.model_plan import CACHE, RUN_FOLDER, TASKS
from abductive_tasks.runs.plan import image_limit, judge_plan, plan
from abductive_tasks.runs.run import start_judge
from abductive_tasks.runs.spec import ModelSpec, SpecError, load_spec
from abductive_tasks.runs.task_index import TaskIndex
from abductive_tasks.runs.vllm import (
    PRESETS,
    ServerError,
    VllmServer,
    VllmSettings,
    client_env,
    free_port,
    inprocess_model_args,
    judge_env,
    require_ray,
    serve_command,
    with_preset,
)

from helpers.runs import OFFLINE, metric, read_results

FAKE_VLLM = f"{sys.executable} {Path(__file__).parents[1] / 'helpers' / 'fake_vllm.py'}"
SETTINGS = VllmSettings(
    model="Qwen/Qwen2.5-VL-72B-Instruct", tensor_parallel_size=4, max_model_len=32768, gpu_memory_utilization=0.85
)


@pytest.fixture(scope="module")
def task_index() -> TaskIndex:
    return TaskIndex()


def test_inprocess_model_args_golden_and_parsed_by_lmms_eval():
    args = inprocess_model_args(SETTINGS, image_limit=3, max_new_tokens=256)
    assert args == (
        "model=Qwen/Qwen2.5-VL-72B-Instruct,tensor_parallel_size=4,gpu_memory_utilization=0.85,"
        'limit_mm_per_prompt={"image":3,"video":0},max_new_tokens=256,max_model_len=32768'
    )
    parsed = simple_parse_args_string(args)  # what lmms-eval does with --model_args
    assert parsed["tensor_parallel_size"] == 4 and parsed["max_model_len"] == 32768 and parsed["max_new_tokens"] == 256
    # The vllm backend json-loads "{...}" values; no memory is reserved for videos (vLLM's default limit is 999).
    assert json.loads(parsed["limit_mm_per_prompt"]) == {"image": 3, "video": 0}


def test_inprocess_extra_args_override_in_place_and_false_stays_false():
    settings = VllmSettings(
        model="m",
        extra_args={
            "gpu_memory_utilization": 0.5,
            "enforce_eager": False,
            "mm_processor_kwargs": {"max_pixels": 1003520},
            "seed": None,
        },
    )
    parsed = simple_parse_args_string(inprocess_model_args(settings, image_limit=2, max_new_tokens=32))
    assert parsed["gpu_memory_utilization"] == 0.5 and parsed["enforce_eager"] is False and "seed" not in parsed
    assert json.loads(parsed["mm_processor_kwargs"]) == {"max_pixels": 1003520}


def test_serve_command_golden():
    settings = VllmSettings(
        model="OpenGVLab/InternVL3-8B",
        tensor_parallel_size=2,
        pipeline_parallel_size=2,
        extra_args={"trust_remote_code": True, "dtype": "bfloat16"},
    )
    assert serve_command(settings, image_limit=5, host="127.0.0.1", port=8123) == [
        "vllm", "serve", "OpenGVLab/InternVL3-8B", "--host", "127.0.0.1", "--port", "8123",
        "--served-model-name", "OpenGVLab/InternVL3-8B", "--tensor-parallel-size", "2", "--pipeline-parallel-size", "2",
        "--limit-mm-per-prompt", '{"image":5,"video":0}', "--gpu-memory-utilization", "0.9",
        "--generation-config", "vllm",
        "--trust-remote-code", "--dtype", "bfloat16",
    ]  # fmt: skip


def test_serve_flags_false_none_and_overrides():
    settings = VllmSettings(
        model="m",
        extra_args={
            "enable_prefix_caching": False,  # BooleanOptionalAction in vLLM: --no-enable-prefix-caching
            "disable_log_stats": False,  # store_true in vLLM: false is its default, nothing to pass
            "enforce_eager": True,
            "generation_config": "auto",  # the user's choice replaces ours in place
            "max_num_seqs": None,  # null: left to vLLM
        },
    )
    command = serve_command(settings, image_limit=1, host="h", port=1)
    assert command[command.index("--generation-config") + 1] == "auto" and command.count("--generation-config") == 1
    assert "--no-enable-prefix-caching" in command and "--enforce-eager" in command
    assert not [word for word in command if "log-stats" in word or "max-num-seqs" in word]
    # A text-only server (the judge) gets no multimodal limit: older vLLM refused it for models without vision.
    assert "--limit-mm-per-prompt" not in serve_command(settings, image_limit=None, host="h", port=1)


def test_ray_executor_needs_ray(monkeypatch):
    settings = VllmSettings(model="m", extra_args={"distributed_executor_backend": "ray"})
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None if name == "ray" else object())
    with pytest.raises(ServerError, match=r"pip install 'abductive-tasks\[ray\]'"):
        require_ray(settings)
    require_ray(VllmSettings(model="m"))  # the default executor needs nothing more
    monkeypatch.setattr("importlib.util.find_spec", lambda name: object())
    require_ray(settings)


def test_presets_apply_and_explicit_keys_win(tmp_path, task_index):
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(
        "tasks: [nleye_triplet]\nmodels:\n"
        "  - {name: internvl, route: served, preset: internvl3, model: OpenGVLab/InternVL3-8B, "
        "tensor_parallel_size: 2}\n"
        "  - {name: qwen, route: vllm, preset: qwen2.5-vl, model: Qwen/Qwen2.5-VL-7B-Instruct, max_model_len: 16384,\n"
        "     vllm_args: {mm_processor_kwargs: {max_pixels: 401408}, enforce_eager: true}}\n"
        "  - {name: ov, route: served, preset: llava-onevision, model: llava-hf/llava-onevision-qwen2-7b-ov-hf, "
        "max_model_len: null}\n"
    )
    internvl, qwen, onevision = plan(load_spec(spec_path), task_index).models
    # InternVL3 on the served route: trust_remote_code (route 1 gets it from lmms-eval), 4 tiles per image, 8192 tokens.
    assert internvl.model.vllm == VllmSettings(
        model="OpenGVLab/InternVL3-8B",
        tensor_parallel_size=2,
        max_model_len=8192,
        extra_args={"trust_remote_code": True, "mm_processor_kwargs": {"max_dynamic_patch": 4}},
    )
    command = serve_command(internvl.model.vllm, 3, "127.0.0.1", 8000)
    assert (
        "--trust-remote-code" in command
        and command[command.index("--mm-processor-kwargs") + 1] == '{"max_dynamic_patch":4}'
    )
    # Explicit keys override the preset's; vllm_args merge key by key.
    assert qwen.model.vllm.max_model_len == 16384
    assert qwen.model.vllm.extra_args == {"mm_processor_kwargs": {"max_pixels": 401408}, "enforce_eager": True}
    assert "max_model_len=16384" in qwen.model_args and 'mm_processor_kwargs={"max_pixels":401408}' in qwen.model_args
    assert onevision.model.vllm.max_model_len is None  # null removes the preset's value: vLLM's default
    assert PRESETS["qwen2.5-vl"]["vllm_args"]["mm_processor_kwargs"]["max_pixels"] == 1280 * 28 * 28
    assert set(PRESETS) == {"qwen2.5-vl", "qwen3-vl", "internvl3", "llava-onevision", "llava-1.6"}


def test_preset_errors_name_the_field():
    with pytest.raises(ValueError, match=r"models\[0\]\.preset: 'qwen9' is not one of qwen2.5-vl"):
        ModelSpec.from_dict({"name": "x", "route": "served", "model": "m", "preset": "qwen9"}, 0)
    with pytest.raises(ValueError, match=r"models\[0\]\.preset: presets are vLLM settings"):
        ModelSpec.from_dict({"name": "x", "backend": "dummy", "preset": "qwen3-vl"}, 0)
    assert with_preset({"model": "m"}, "judge") == {"model": "m"}


def test_environment_for_client_and_judge(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    url = "http://127.0.0.1:8000/v1"
    # Our placeholder key must not pass for a GPT judge; a configured judge or a real key is left alone.
    assert client_env(url, {}) == {"OPENAI_API_BASE": url, "OPENAI_API_KEY": "EMPTY", "ABDUCTIVE_JUDGE": "off"}
    assert client_env(url, {"OPENAI_API_URL": "http://judge:8001/v1"}) == {
        "OPENAI_API_BASE": url,
        "OPENAI_API_KEY": "EMPTY",
    }
    assert client_env(url, {"OPENAI_API_KEY": "sk-real"}) == {"OPENAI_API_BASE": url}
    assert judge_env("http://127.0.0.1:8001/v1", "judge-7b") == {
        "API_TYPE": "openai",
        "OPENAI_API_URL": "http://127.0.0.1:8001/v1",
        "MODEL_VERSION": "judge-7b",
        "OPENAI_API_KEY": "EMPTY",
    }


def test_spec_derives_image_limit_and_token_cap_from_task_metadata(tmp_path, task_index):
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(
        "tasks: [nleye_triplet_combined, nleye_pairs]\nlimit: 8\n"
        "models:\n"
        "  - {name: big, route: vllm, model: org/big, tensor_parallel_size: 8, max_model_len: 16384}\n"
        "  - {name: served, route: served, model: org/served, tensor_parallel_size: 2}\n"
    )
    spec = load_spec(spec_path)
    big, served = plan(spec, task_index).models
    # nleye_pairs declares 2 images per prompt, nleye_triplet_combined 1; both budget 256 new tokens.
    assert big.model_args == (
        'model=org/big,tensor_parallel_size=8,gpu_memory_utilization=0.9,limit_mm_per_prompt={"image":2,"video":0},max_new_tokens=256,max_model_len=16384'
    )
    assert big.eval_command == (
        sys.executable, "-m", "abductive_tasks.cli",
        "--model", "vllm", "--model_args", big.model_args, "--tasks", TASKS,
        "--output_path", RUN_FOLDER, "--use_cache", CACHE, "--limit", "8", "--log_samples",
    )  # fmt: skip
    assert big.cache(big.tasks).parent == tmp_path / "results" / "big" / "cache"
    assert served.model.backend == "openai" and served.model_args == "model_version=org/served"

    def images(name: str) -> int:
        return image_limit(task_index.facts(task) for task in task_index.expand([name]))

    assert images("nleye") == 3 and images("nleye_triplet_text") == 0


def test_a_server_that_failed_is_reported_by_its_first_error(tmp_path):
    """vLLM's engine core logs the root cause, then the server's own traceback fills the tail (seen with vLLM
    0.32 on CPU: a thread-binding refusal, then "Engine core initialization failed. See root cause above"):
    the root cause alone is the message; without an error line, the log's tail."""
    log = tmp_path / "server.log"
    root_cause = (
        "(EngineCore pid=7) ERROR 11-29 05:10:35 [core.py:1510] AssertionError: Not enough allowed NUMA nodes to "
        "bind threads of 2 local CPUWorkers."
    )
    warning = "(APIServer pid=6) WARNING 11-29 05:10:01 [system_utils.py:255] errors like `OSError: [Errno 24] ...`"
    traceback = [f'  File "core_client.py", line {line}, in __init__' for line in range(30)]
    log.write_text("\n".join([warning, root_cause, *traceback, "RuntimeError: Engine core initialization failed."]))
    server = VllmServer(["vllm"], "127.0.0.1", 1, log)
    assert server.log_tail() == root_cause.split("] ", 1)[1]
    log.write_text("\n".join(["starting", "ValueError: bad --max-model-len", "exiting"]))
    assert server.log_tail() == "ValueError: bad --max-model-len"
    log.write_text("\n".join([warning, *(f"line {n}" for n in range(30))]))  # no error line: the tail
    assert server.log_tail().splitlines() == [f"line {n}" for n in range(10, 30)]


def test_server_lifecycle_success_and_failure(tmp_path):
    record = tmp_path / "record"
    env = {**os.environ, "FAKE_VLLM_RECORD": str(record), "FAKE_VLLM_WORKERS": "1"}
    port = free_port()
    command = serve_command(VllmSettings(model="m", served_model_name="served-m"), 3, "127.0.0.1", port, FAKE_VLLM)
    with VllmServer(command, "127.0.0.1", port, tmp_path / "server.log", env=env, health_timeout=60) as server:
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as response:
            assert json.loads(response.read())["data"][0]["id"] == "served-m"
        process = server.process
    assert process.poll() is not None and (record / "stopped").exists()  # stopped on success
    assert all(
        _gone(pid) for pid in json.loads((record / "workers.json").read_text())
    )  # with the workers it left in its group

    (record / "stopped").unlink()
    with pytest.raises(RuntimeError, match="evaluation broke"):
        with VllmServer(command, "127.0.0.1", port, tmp_path / "server.log", env=env, health_timeout=60) as server:
            raise RuntimeError("evaluation broke")
    assert server.process.poll() is not None and (record / "stopped").exists()  # stopped on failure

    with pytest.raises(ServerError, match="exited with status 3 before becoming healthy(.|\n)*failing at startup"):
        with VllmServer(
            command, "127.0.0.1", port, tmp_path / "server.log", env={**env, "FAKE_VLLM_FAIL": "1"}, health_timeout=60
        ):
            pytest.fail("a server that died must not be entered")


def test_the_stand_in_server_stops_cleanly_however_many_sigterms_arrive(tmp_path):
    """A batch killed outright sends the server two SIGTERMs (the parent-death signal, then the watchdog's): a burst of
    them must still end in a clean stop. A handler that set a ``threading.Event`` deadlocked on the second one (CI,
    stop 62), so the SIGKILL test above failed now and then."""
    record = tmp_path / "record"
    port = free_port()
    command = [*shlex.split(FAKE_VLLM), "serve", "m", "--port", str(port)]
    process = subprocess.Popen(command, env={**os.environ, "FAKE_VLLM_RECORD": str(record)}, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:  # serving: the handlers are in place
            assert process.poll() is None and time.monotonic() < deadline
            with contextlib.suppress(OSError), urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                break
            time.sleep(0.1)
        deadline, sent = time.monotonic() + 20, 0
        while process.poll() is None:  # 0-45 microseconds apart, until it has stopped: some land while one is handled
            assert time.monotonic() < deadline, f"still running after {sent} SIGTERMs"
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
            sent += 1
            spaced = time.perf_counter()
            while time.perf_counter() - spaced < (sent % 10) * 5e-6:
                pass
        assert process.returncode == 0 and (record / "stopped").exists()
    finally:
        process.kill()
        process.wait()


def test_a_server_that_dies_without_a_word_is_reported_with_the_command_it_ran(tmp_path):
    """The log starts with the command line, so the failure's log block is never empty."""
    silent = [sys.executable, "-c", "import sys; sys.exit(4)"]
    with pytest.raises(ServerError) as failure:
        with VllmServer(silent, "127.0.0.1", free_port(), tmp_path / "server.log", health_timeout=30):
            pytest.fail("a server that died must not be entered")
    assert str(failure.value) == (
        f"server exited with status 4 before becoming healthy; log {tmp_path / 'server.log'}:\n$ {shlex.join(silent)}"
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _serve(tmp_path: Path, *args: str, record: Path, sigint_ignored: bool = False) -> subprocess.Popen:
    env = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample", "FAKE_VLLM_RECORD": str(record)}
    command = [
        str(Path(sys.executable).with_name("abductive-eval")),
        "serve",
        "stub/model-7b",
        "--vllm-executable",
        FAKE_VLLM,
        "--output_path",
        str(tmp_path / "out"),
        *args,
    ]
    return subprocess.Popen(
        command,
        cwd=Path(__file__).parents[2],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # as a script's background job starts it: SIGINT ignored (`abductive-eval serve ... &`)
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None,
    )


@pytest.mark.e2e
def test_served_route_end_to_end_sends_every_image_within_the_limit(tmp_path):
    record = tmp_path / "record"
    process = _serve(
        tmp_path, "--tasks", "nleye_triplet,nleye_pairs", "--limit", "4", "--tensor-parallel-size", "2", record=record
    )
    output, _ = process.communicate(timeout=600)
    assert process.returncode == 0, output[-4000:]
    argv = json.loads((record / "argv.json").read_text())["argv"]
    assert argv[argv.index("--limit-mm-per-prompt") + 1] == '{"image":3,"video":0}'
    assert argv[argv.index("--tensor-parallel-size") + 1] == "2"
    assert argv[argv.index("--generation-config") + 1] == "vllm"
    requests = [json.loads(line) for line in (record / "requests.jsonl").read_text().splitlines()]
    # 4 triplet documents with 3 images each, 4 pairs documents with 2: all served, none above the limit.
    assert Counter(request["images"] for request in requests) == {3: 4, 2: 4}
    assert {request["model"] for request in requests} == {"stub/model-7b"}
    assert (record / "stopped").exists() and not _alive(json.loads((record / "argv.json").read_text())["pid"])
    results = read_results(tmp_path / "out" / "model-7b")
    assert metric(results, "nleye_triplet", "order1_acc") == 1.0  # the stub always answers "1"
    assert metric(results, "nleye_triplet", "triplet_counts")["unparsable"] == 0
    assert metric(results, "nleye_pairs", "equal_rank_rate") == 1.0


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["ctrl-c", "kill -INT of a background job"])
def test_ctrl_c_stops_the_server(tmp_path, sigint_ignored):
    record = tmp_path / "record"
    process = _serve(tmp_path, "--tasks", "nleye_triplet", record=record, sigint_ignored=sigint_ignored)
    deadline = time.monotonic() + 120
    while not (tmp_path / "out" / "model-7b" / "eval.log").exists():  # the server is healthy, the evaluation started
        assert process.poll() is None and time.monotonic() < deadline, process.stdout.read()
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 130, output
    assert "interrupted; servers stopped" in output
    pid = json.loads((record / "argv.json").read_text())["pid"]
    assert (record / "stopped").exists() and not _alive(pid)


def test_model_spec_rejects_bad_entries():
    with pytest.raises(ValueError, match=r"models\[0\]\.route"):
        ModelSpec.from_dict({"name": "x", "route": "ray"}, 0)
    with pytest.raises(ValueError, match="needs `model`"):
        ModelSpec.from_dict({"name": "x", "route": "served"}, 0)
    with pytest.raises(ValueError, match="folder-safe"):
        ModelSpec.from_dict({"name": "../x", "backend": "dummy"}, 0)


def test_judge_server_is_served_and_wired_through_the_judge_variables(tmp_path, task_index, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    record = tmp_path / "record"
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(
        f"tasks: [nleye_triplet]\nvllm_executable: {FAKE_VLLM}\nmodels: [{{name: a, backend: dummy}}]\n"
        f"judge: {{model: org/judge-7b, tensor_parallel_size: 2, env: {{FAKE_VLLM_RECORD: {record}}}}}\n"
    )
    spec = load_spec(spec_path)
    with contextlib.ExitStack() as stack:
        env = start_judge(judge_plan(spec), stack)
        assert (
            env["API_TYPE"] == "openai" and env["MODEL_VERSION"] == "org/judge-7b" and env["OPENAI_API_KEY"] == "EMPTY"
        )
        with urllib.request.urlopen(f"{env['OPENAI_API_URL']}/models", timeout=5) as response:
            assert json.loads(response.read())["data"][0]["id"] == "org/judge-7b"
    argv = json.loads((record / "argv.json").read_text())["argv"]
    assert argv[argv.index("--tensor-parallel-size") + 1] == "2"
    assert "--limit-mm-per-prompt" not in argv  # a text-only judge
    assert (record / "stopped").exists()  # stopped with the batch
    spec_path.write_text(
        "tasks: [nleye_triplet]\nmodels: [{name: a, backend: dummy}]\njudge: {url: 'http://judge:8001/v1', "
        "model_version: j}\n"
    )
    assert start_judge(judge_plan(load_spec(spec_path)), contextlib.ExitStack()) == {
        "API_TYPE": "openai",
        "OPENAI_API_URL": "http://judge:8001/v1",
        "MODEL_VERSION": "j",
        "OPENAI_API_KEY": "EMPTY",
    }


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # exited, not yet reaped by its new parent
    except psutil.NoSuchProcess:
        return True


def test_sigkill_of_the_batch_ends_the_server_its_workers_and_the_evaluation(tmp_path):
    """The batch killed with no chance to clean up (SIGKILL): the server gets SIGTERM (parent-death signal), and the
    watchdog ends its whole process group, workers included; the evaluation gets SIGTERM too."""
    record = tmp_path / "record"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FAKE_VLLM_WORKERS", "2")  # vLLM's engine and workers: never stopped by the server itself
        patch.setenv("FAKE_VLLM_DELAY", "300")  # every answer hangs: the evaluation is mid-flight when killed
        process = _serve(tmp_path, "--tasks", "nleye_triplet", record=record)
    descendants: list[int] = []
    try:
        deadline = time.monotonic() + 300  # generous: only a failing run waits for it (a busy machine starts slowly)
        while not (record / "requests.jsonl").exists():  # the server is healthy and the evaluation is asking it
            assert process.poll() is None and time.monotonic() < deadline, process.stdout.read()
            time.sleep(0.2)
        server = json.loads((record / "argv.json").read_text())["pid"]
        workers = json.loads((record / "workers.json").read_text())
        descendants = [child.pid for child in psutil.Process(process.pid).children(recursive=True)]
        assert {server, *workers} <= set(descendants)  # and the evaluation, the watchdog
        process.kill()
        process.wait()
        deadline = time.monotonic() + 60
        while not all(_gone(pid) for pid in descendants):
            assert time.monotonic() < deadline, [psutil.Process(pid).cmdline() for pid in descendants if not _gone(pid)]
            time.sleep(0.2)
        assert (record / "stopped").exists()  # the server was asked to stop (SIGTERM), not only killed
    finally:  # a failed run leaves nothing behind either
        for pid in [process.pid, *descendants]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait()


def test_print_commands_show_what_runs_and_start_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_URL", raising=False)
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(
        "tasks: [nleye_triplet]\nlimit: 2\nenv: {ABDUCTIVE_DATA: sample}\n"
        "judge: {model: org/judge-7b, env: {CUDA_VISIBLE_DEVICES: '7'}}\n"
        "models:\n"
        "  - {name: a, backend: dummy}\n"
        "  - {name: q, route: served, preset: qwen2.5-vl, model: Qwen/Qwen2.5-VL-7B-Instruct, env: "
        "{CUDA_VISIBLE_DEVICES: '0,1'}}\n"
    )
    assert batch_main([str(spec_path), "--print-commands"]) == 0
    lines = capsys.readouterr().out.splitlines()
    results = tmp_path / "results"
    assert not results.exists()  # nothing ran
    python = sys.executable
    plans = {model_plan.model.name: model_plan for model_plan in plan(load_spec(spec_path), TaskIndex()).models}
    run_id = {
        name: model_plan.cache(model_plan.tasks).name for name, model_plan in plans.items()
    }  # the identity's hash names the response cache

    def eval_args(name: str) -> str:
        run = results / name / "runs" / "<time>-<id>"  # made when the run starts
        return shlex.join(
            [
                "--tasks",
                "nleye_triplet",
                "--output_path",
                str(run),
                "--use_cache",
                str(plans[name].cache(plans[name].tasks)),
                "--limit",
                "2",
                "--log_samples",
            ]
        )

    assert lines == [
        f"# judge, served for the whole batch (log {results}/judge_server.log); "
        "$JUDGE_PORT: a free port chosen at start",
        "#   ABDUCTIVE_DATA=sample CUDA_VISIBLE_DEVICES=7 "
        'vllm serve org/judge-7b --host 127.0.0.1 --port "$JUDGE_PORT" --served-model-name org/judge-7b '
        "--tensor-parallel-size 1 --gpu-memory-utilization 0.9 --generation-config vllm",
        "# a (route lmms): runs nleye_triplet (0 of 1 done earlier)",
        '#   ABDUCTIVE_DATA=sample API_TYPE=openai OPENAI_API_URL="http://127.0.0.1:$JUDGE_PORT/v1" '
        "MODEL_VERSION=org/judge-7b OPENAI_API_KEY=EMPTY "
        f"PYTHONSAFEPATH=1 LMMS_CACHE_RUN_ID={run_id['a']} ABDUCTIVE_COUNTED_ABOVE=1 {python} -m abductive_tasks.cli "
        "--model dummy " + eval_args("a"),
        f"abductive-eval batch {spec_path} --model a",
        "# q (route served): runs nleye_triplet (0 of 1 done earlier)",
        f"#   server (log {results}/q/server.log); $PORT: a free port chosen at start",
        '#   ABDUCTIVE_DATA=sample API_TYPE=openai OPENAI_API_URL="http://127.0.0.1:$JUDGE_PORT/v1" '
        "MODEL_VERSION=org/judge-7b OPENAI_API_KEY=EMPTY "
        "CUDA_VISIBLE_DEVICES=0,1 PYTHONSAFEPATH=1 "
        'vllm serve Qwen/Qwen2.5-VL-7B-Instruct --host 127.0.0.1 --port "$PORT" '
        "--served-model-name Qwen/Qwen2.5-VL-7B-Instruct --tensor-parallel-size 1 "
        '--limit-mm-per-prompt \'{"image":3,"video":0}\' --gpu-memory-utilization 0.9 --max-model-len 32768 '
        "--generation-config vllm --mm-processor-kwargs '{\"max_pixels\":1003520}'",
        "#   evaluation, once http://127.0.0.1:$PORT/health answers 200 (the server is stopped after it)",
        '#   ABDUCTIVE_DATA=sample API_TYPE=openai OPENAI_API_URL="http://127.0.0.1:$JUDGE_PORT/v1" '
        "MODEL_VERSION=org/judge-7b OPENAI_API_KEY=EMPTY "
        "CUDA_VISIBLE_DEVICES=0,1 PYTHONSAFEPATH=1 "
        f'OPENAI_API_BASE="http://127.0.0.1:$PORT/v1" LMMS_CACHE_RUN_ID={run_id["q"]} ABDUCTIVE_COUNTED_ABOVE=1 '
        f"{python} -m abductive_tasks.cli --model openai --model_args model_version=Qwen/Qwen2.5-VL-7B-Instruct "
        + eval_args("q"),
        f"abductive-eval batch {spec_path} --model q",
    ]
    # The job lines alone are one self-contained command per model (e.g. one per Slurm array task).
    assert [line for line in lines if not line.startswith("#")] == [
        f"abductive-eval batch {spec_path} --model {name}" for name in ("a", "q")
    ]


def test_serve_print_command_shows_the_server_and_the_evaluation(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")  # a real key: used by the run, never printed
    argv = [
        "OpenGVLab/InternVL3-8B",
        "--tasks",
        "nleye_pairs",
        "--preset",
        "internvl3",
        "--port",
        "8123",
        "--output_path",
        str(tmp_path),
    ]
    assert serve_main([*argv, "--print-command"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert not any(tmp_path.iterdir())  # nothing ran
    assert lines[0] == "# InternVL3-8B (route served): runs nleye_pairs (0 of 1 done earlier)"
    server = shlex.split(lines[2].removeprefix("#   "))
    assert server[server.index("vllm") :] == serve_command(
        VllmSettings(
            model="OpenGVLab/InternVL3-8B",
            max_model_len=8192,
            extra_args={"trust_remote_code": True, "mm_processor_kwargs": {"max_dynamic_patch": 4}},
        ),
        2,
        "127.0.0.1",
        8123,
    )
    evaluation = lines[4].removeprefix("#   ")
    assert "OPENAI_API_BASE=http://127.0.0.1:8123/v1" in evaluation and "sk-secret" not in "\n".join(lines)
    assert 'OPENAI_API_KEY="$OPENAI_API_KEY"' not in evaluation  # inherited as it is: client_env adds only the base URL
    assert len(lines) == 5


def test_shipped_multi_gpu_spec_plans_with_its_presets(task_index):
    spec = load_spec(Path(__file__).parents[2] / "utils" / "specs" / "multi_gpu_node.yaml")
    plans = {model_plan.model.name: model_plan for model_plan in plan(spec, task_index).models}
    assert 'mm_processor_kwargs={"max_pixels":1003520}' in plans["qwen2.5-vl-7b"].model_args
    internvl = plans["internvl3-8b"].model.vllm
    assert "--trust-remote-code" in serve_command(
        internvl, image_limit(plans["internvl3-8b"].facts.values()), "127.0.0.1", 8000
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tensor-parallel-size", "0"], "models[0].tensor_parallel_size: input should be greater than 0"),
        (["--port", "99999"], "models[0].port: input should be less than or equal to 65535"),
        (["--tasks", "nleye_triplet,no_such_task"], "unknown task or group 'no_such_task'"),
    ],
)
def test_serve_refuses_a_bad_setting_in_one_line(args, message, capsys):
    assert serve_main(["m", "--tasks", "nleye_pairs", *args, "--print-command"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"abductive-eval serve: error: {message}")


def test_serve_takes_only_positive_timeouts(capsys):
    with pytest.raises(SystemExit) as exit_:
        serve_main(["m", "--tasks", "nleye_pairs", "--health-timeout", "-5", "--print-command"])
    assert exit_.value.code == 2
    assert "argument --health-timeout: a number above 0, not '-5'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("limit", "why"),
    [
        ("-5", "lmms-eval 0.7.3 takes no limit below 0 but -1"),
        ("0.5", "lmms-eval 0.7.3 takes a share of the first task only"),  # planned, then refused by its child
        ("nan", "a number of documents is a finite number"),
        ("two", "a number of documents, not 'two'"),
    ],
)
def test_serve_refuses_a_limit_lmms_eval_does_not_run_as_asked_before_any_server(limit, why, capsys):
    """serve's spec is built in code, past the spec file's check: `--limit 0.5` was planned, a server started and
    waited for, then the evaluation refused it."""
    with pytest.raises(SystemExit) as exit_:
        serve_main(["m", "--tasks", "nleye_pairs,dve_cls", "--limit", limit, "--print-command"])
    assert exit_.value.code == 2
    assert f"argument --limit: {why}" in capsys.readouterr().err


def test_serve_vllm_args_are_spec_vllm_args(tmp_path, capsys):
    """``--vllm-arg KEY=VALUE`` (YAML values) reaches `vllm serve` as a spec's vllm_args entry does, in place."""
    argv = ["m", "--tasks", "nleye_triplet", "--port", "8123", "--output_path", str(tmp_path), "--trust-remote-code"]
    extra = ["--vllm-arg", "enforce-eager=true", "--vllm-arg", "limit_mm_per_prompt={image: 2, video: 0}"]
    assert serve_main([*argv, *extra, "--print-command"]) == 0
    server = shlex.split(capsys.readouterr().out.splitlines()[2].removeprefix("#   "))
    assert server[server.index("vllm") :] == serve_command(
        VllmSettings(
            model="m",
            extra_args={
                "trust_remote_code": True,
                "enforce_eager": True,
                "limit_mm_per_prompt": {"image": 2, "video": 0},
            },
        ),
        3,
        "127.0.0.1",
        8123,
    )
    assert server.count("--limit-mm-per-prompt") == 1 and '{"image":2,"video":0}' in server


@pytest.mark.parametrize(("value", "message"), [("enforce_eager", "KEY=VALUE, not 'enforce_eager'"), ("a={b", "a: ")])
def test_serve_refuses_a_malformed_vllm_arg(value, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        serve_main(["m", "--tasks", "nleye_pairs", "--vllm-arg", value, "--print-command"])
    assert exit_.value.code == 2
    assert f"argument --vllm-arg: {message}" in capsys.readouterr().err


def test_a_secret_vllm_arg_other_than_the_api_key_is_refused_never_put_on_the_command_line(tmp_path, capsys):
    """`vllm serve` reads only its api_key from the environment (VLLM_API_KEY): any other secret-named argument with a
    value (hf_token) would stand on its command line, which ps shows every user. The refusal names it, not its value."""
    token = "hf_SERVE-TOKEN-iiii9999"
    argv = ["m", "--tasks", "nleye_triplet", "--output_path", str(tmp_path), "--print-command"]
    assert serve_main([*argv, "--vllm-arg", f"hf_token={token}"]) == 2
    printed = capsys.readouterr()
    assert "vllm_args hf_token: `vllm serve` would show the value on its command line" in printed.err
    assert token not in printed.out + printed.err
    assert serve_main([*argv, "--vllm-arg", "hf_token=12345678"]) == 2  # a number is a value too
    assert "vllm_args hf_token:" in capsys.readouterr().err
    assert serve_main([*argv, "--vllm-arg", "hf_token=true", "--vllm-arg", f"api_key={token}"]) == 0  # a flag; the key
    assert token not in capsys.readouterr().out
    spec = tmp_path / "spec.yaml"
    for entry in (
        f"judge: {{model: j, vllm_args: {{hf_token: {token}}}}}\nmodels: [{{name: a, backend: dummy}}]",
        f"models: [{{name: s, route: served, model: m, vllm_args: {{auth_token: {token}}}}}]",
    ):
        spec.write_text(f"tasks: [nleye_triplet]\noutput_dir: {tmp_path / 'out'}\n{entry}\n")
        with pytest.raises(
            SpecError, match=r"^(judge|models\[s\]): vllm_args (hf|auth)_token: `vllm serve`"
        ) as refused:
            plan(load_spec(spec), TaskIndex())
        assert token not in str(refused.value)


def test_a_server_without_vllm_installed_says_how_to_install_it(tmp_path):
    """`abductive-eval serve` where vLLM is not installed: one line naming the extra, not `[Errno 2] ... 'vllm'`."""
    server = VllmServer(["vllm-not-installed-here"], "127.0.0.1", 1, tmp_path / "logs" / "server.log")
    with pytest.raises(
        ServerError, match=r"no 'vllm-not-installed-here' command .*pip install 'abductive-tasks\[vllm\]'"
    ):
        server.start()
    assert not (tmp_path / "logs").exists()
