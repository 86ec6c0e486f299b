"""The keys a batch's evaluations send: a judge at a URL keeps its ``env`` (its key) and every evaluation gets it; and
no key reaches a file or a console line."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest

from abductive_tasks.runs.batch import main as batch_main
from abductive_tasks.runs.plan import judge_plan, plan
from abductive_tasks.runs.run import Evaluations, write_spec_record
from abductive_tasks.runs.secrets import hash_secret
from abductive_tasks.runs.spec import load_spec
from abductive_tasks.runs.task_index import TaskIndex

from helpers.openai_stub import OpenAIStub
from helpers.runs import read_results

JUDGE_KEY = "judge-key-2b4d6f8a0c1e3a5c"
URL = "http://127.0.0.1:$PORT/v1"


@pytest.fixture(scope="module")
def task_index() -> TaskIndex:
    return TaskIndex()


@pytest.fixture(autouse=True)
def no_inherited_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_API_URL", "VLLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text("tasks: [nleye_triplet]\n" + text)
    return path


# ---------------------------------------------------------------- a judge at a URL


def test_a_judge_at_a_url_keeps_its_env_and_every_evaluation_gets_it(tmp_path, task_index):
    """``judge: {url, model_version, env: {OPENAI_API_KEY: ...}}`` lost its env: the judge got the placeholder key."""
    path = write(
        tmp_path,
        "judge: {url: 'http://judge.invalid:8001/v1', model_version: j, "
        f"env: {{OPENAI_API_KEY: {JUDGE_KEY}, JUDGE_REGION: eu}}}}\n"
        "models: [{name: a, backend: dummy}, {name: q, route: served, model: org/q}]\n",
    )
    spec = load_spec(path)
    assert spec.judge.env == {"OPENAI_API_KEY": JUDGE_KEY, "JUDGE_REGION": "eu"}
    wired = judge_plan(spec).client_env
    assert wired == {
        "OPENAI_API_KEY": JUDGE_KEY,
        "JUDGE_REGION": "eu",
        "API_TYPE": "openai",
        "OPENAI_API_URL": "http://judge.invalid:8001/v1",
        "MODEL_VERSION": "j",
    }
    whole = plan(spec, task_index)
    a, q = whole.models
    evaluations = Evaluations({**os.environ, **spec.env}, whole.judge, contextlib.ExitStack())
    assert {**evaluations.environment(), **a.env}["OPENAI_API_KEY"] == JUDGE_KEY  # what a's evaluation gets
    assert q.client_env == {"OPENAI_API_BASE": URL}  # a server without a key takes the judge's
    assert JUDGE_KEY in a.secrets and JUDGE_KEY in q.secrets  # redacted from their logs, handed to their children
    # The judge's env is part of what the results are results of, its key hashed.
    assert a.identity["judge"]["env"] == {"OPENAI_API_KEY": hash_secret(JUDGE_KEY), "JUDGE_REGION": "eu"}
    bare = "judge: {url: 'http://j/v1', model_version: j}\nmodels: [{name: a, backend: dummy}]\n"
    assert load_spec(write(tmp_path, bare)).judge.env == {}


def test_a_url_judges_key_reaches_no_file_and_no_console_line(tmp_path, task_index, capsys):
    path = write(
        tmp_path,
        "judge: {url: 'http://judge.invalid:8001/v1', model_version: j, "
        f"env: {{OPENAI_API_KEY: {JUDGE_KEY}}}}}\nmodels: [{{name: a, backend: dummy}}]\n",
    )
    spec = load_spec(path)
    (a,) = plan(spec, task_index).models
    a.output.mkdir(parents=True)
    write_spec_record(a)  # spec_identity.json, as the batch writes it before the model runs
    record = (a.output / "spec_identity.json").read_text()
    assert hash_secret(JUDGE_KEY) in record  # the judge's env is part of the identity
    assert JUDGE_KEY not in record
    assert batch_main([str(path), "--print-commands"]) == 0
    printed = capsys.readouterr().out
    assert JUDGE_KEY not in printed and 'OPENAI_API_KEY="$OPENAI_API_KEY"' in printed


@pytest.mark.e2e
def test_a_url_judge_with_its_key_in_its_env_judges_and_the_key_is_nowhere(tmp_path, capsys):
    """The judge answers 401 without its key, as an endpoint does: with the key dropped, every question failed."""
    with OpenAIStub(["Score: 7"], api_key=JUDGE_KEY) as stub:
        spec = {
            "output_dir": "results",
            "tasks": ["mucr_exp_gold"],
            "limit": 2,
            "env": {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_JUDGE": "on", "ABDUCTIVE_JUDGE_CACHE": str(tmp_path / "jc")},
            "judge": {"url": stub.url, "model_version": "judge-j", "env": {"OPENAI_API_KEY": JUDGE_KEY}},
            "models": [{"name": "dummy", "backend": "dummy", "model_args": {"response": "speeding caused it."}}],
        }
        path = tmp_path / "spec.yaml"
        path.write_text(json.dumps(spec))
        assert batch_main([str(path)]) == 0
    printed = capsys.readouterr().out
    assert stub.unauthorized == 0 and len(stub.requests) >= 2
    assert {request["model"] for request in stub.requests} == {"judge-j"}
    results = read_results(next((tmp_path / "results" / "dummy" / "runs").iterdir()))
    assert results["mucr_exp_gold"]["exp_score,none"] is not None
    assert JUDGE_KEY not in printed
    written = [path for path in (tmp_path / "results").rglob("*") if path.is_file()]
    assert [path for path in written if JUDGE_KEY.encode() in path.read_bytes()] == []
