"""The batch runner end to end: dummy, a baseline, the tiny LLaVA and a broken model on the `abductive` group;
interrupted with Ctrl-C, resumed, rerun with nothing left to compute; then the leaderboard of those results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from abductive_tasks.batch import load_spec, main, plan
from abductive_tasks.leaderboard import write_report
from abductive_tasks.suite import Suite

from helpers.runs import OFFLINE
from helpers.tiny_llava import build_tiny_llava

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).parents[2]


def write_spec(tmp_path: Path) -> Path:
    llava = build_tiny_llava(tmp_path / "tiny-llava")
    spec = {
        "output_dir": "results",
        "tasks": ["abductive"],
        "limit": 4,
        "env": {"ABDUCTIVE_DATA": "sample"},
        "vllm_executable": f"{sys.executable} {Path(__file__).parents[1] / 'helpers' / 'fake_vllm.py'}",
        "models": [
            {"name": "dummy", "backend": "dummy", "model_args": {"response": "1"}},
            {"name": "dumb_pixel", "backend": "dumb_pixel"},
            # vLLM that dies while loading (the fake `vllm serve` exits with status 3).
            {"name": "broken", "route": "served", "model": "org/broken", "env": {"FAKE_VLLM_FAIL": "1", "FAKE_VLLM_RECORD": str(tmp_path / "record")}},
            {
                "name": "tiny-llava",
                "backend": "llava_hf",
                "model_args": {"pretrained": str(llava), "device_map": "cpu", "device": "cpu"},
                "eval_args": ["--gen_kwargs", "max_new_tokens=4"],
            },
        ],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec))  # JSON is YAML
    return path


def running_with(text: str) -> list[int]:
    """Processes whose command line mentions ``text``."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text in cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                pids.append(int(cmdline.parent.name))
        except OSError:
            continue
    return pids


def results_files(results: Path) -> set[Path]:
    return set(results.rglob("*_results.json"))


def test_batch_interrupt_resume_failure_and_leaderboard(tmp_path, capsys):
    spec_path = write_spec(tmp_path)
    results = tmp_path / "results"
    tasks = Suite().expand(["abductive"])
    env = {**os.environ, **OFFLINE}

    # 1. Ctrl-C while the second model runs: the first model's results stay, the runner exits 130.
    process = subprocess.Popen([sys.executable, "utils/run_batch.py", str(spec_path)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 300
    while not (results / "dumb_pixel" / "eval.log").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.stdout.read()
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 130, output
    assert "[1/4] dummy: done" in output and "interrupted" in output
    assert not list((results / "dumb_pixel").rglob("*_results.json"))
    assert not running_with(str(results / "dumb_pixel"))  # the interrupted evaluation did not outlive the runner
    first = results_files(results)
    assert len(first) == 1

    # 2. Resume: dummy is skipped, the broken model is reported and the batch goes on to the tiny LLaVA.
    assert main([str(spec_path)]) == 1
    output = capsys.readouterr().out
    assert f"[1/4] dummy: all {len(tasks)} tasks done earlier; skipped" in output
    assert "[3/4] broken: FAILED" in output and "server exited with status 3 before becoming healthy" in output
    assert "[4/4] tiny-llava: done" in output
    assert "3 of 4 models complete; failed: broken" in output
    status = json.loads((results / "batch_status.json").read_text())
    assert status["broken"]["state"] == "failed" and set(status["broken"]["tasks"].values()) == {"failed"}
    assert status["tiny-llava"]["tasks"] == dict.fromkeys(tasks, "done")
    second = results_files(results)
    assert first < second and len(second) == 3

    # 3. Rerun of the good models: nothing is recomputed.
    spec = load_spec(spec_path)
    assert all(not model_plan.pending for model_plan in plan(spec, Suite(), ["dummy", "dumb_pixel", "tiny-llava"]))
    assert main([str(spec_path), "--model", "dummy", "--model", "dumb_pixel", "--model", "tiny-llava"]) == 0
    assert "3 of 3 models complete" in capsys.readouterr().out
    assert results_files(results) == second
    assert (results / "tiny-llava" / "cache" / "cache.db").exists()  # lmms-eval's response cache, kept per model

    # 4. The leaderboard of these results.
    written = write_report(results)
    rows = (written["csv"]).read_text().splitlines()
    assert rows[0].split(",")[:3] == ["model", "nleye_triplet (consistency_acc)", "nleye_pairs (order_faithful_acc)"]
    assert [row.split(",")[0] for row in rows[1:]] == ["dumb_pixel", "dummy", "tiny-llava"]
    # Dummy always answers "1": never consistent across both orders, never ranks the gold higher.
    assert rows[2].split(",")[1:3] == ["0.0000", "0.0000"]
    page = written["html"].read_text()
    assert "<td>tiny-llava</td>" in page and "broken" not in page
    assert Image.open(written["plots"] / "nleye_triplet__consistency_by_category.png").size[0] > 100


def test_print_commands_one_per_model(tmp_path, capsys):
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text("tasks: [abductive]\nmodels:\n  - {name: a, backend: dummy}\n  - {name: b, route: served, model: org/m, tensor_parallel_size: 4}\n")
    assert main([str(spec_path), "--print-commands"]) == 0
    jobs = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]  # the rest: what each job runs
    assert jobs == [
        f"abductive-eval batch {spec_path} --model a",
        f"abductive-eval batch {spec_path} --model b",
    ]
    assert not (tmp_path / "results").exists()  # nothing ran


def test_spec_errors_name_the_field(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("tasks: [abductive]\nmodels: []\n")
    with pytest.raises(ValueError, match="lists no model"):
        load_spec(path)
    path.write_text("tasks: [abductive]\nmodel: []\n")
    with pytest.raises(ValueError, match=r"unknown keys \['model'\]"):
        load_spec(path)
    path.write_text("tasks: [no_such_task]\nmodels: [{name: a, backend: dummy}]\n")
    with pytest.raises(ValueError, match="unknown task or group 'no_such_task'"):
        plan(load_spec(path), Suite())
