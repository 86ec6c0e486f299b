"""The keys a batch's evaluations send: a judge at a URL keeps its ``env`` (its key) and every evaluation gets it; a
served model's or a served judge's evaluation sends the key its server was started with (``vllm_args: {api_key:
...}``, vLLM's ``--api-key``), never the placeholder; and no key reaches a file or a console line."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from abductive_tasks.redaction import hash_secret
from abductive_tasks.runs.batch import main as batch_main
from abductive_tasks.runs.plan import judge_plan, plan
from abductive_tasks.runs.run import Evaluations, start_judge, write_spec_record
from abductive_tasks.runs.spec import SpecError, load_spec
from abductive_tasks.runs.task_index import TaskIndex

from helpers.openai_stub import OpenAIStub
from helpers.runs import OFFLINE, read_results

MODEL_KEY, JUDGE_KEY = "vllm-key-6c1f0e9d8b7a5c3e", "judge-key-2b4d6f8a0c1e3a5c"
FAKE_VLLM = f"{sys.executable} {Path(__file__).parents[1] / 'helpers' / 'fake_vllm.py'}"
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


# ---------------------------------------------------------------- a served model's key


def test_a_served_models_evaluation_sends_the_key_its_server_requires(tmp_path, task_index, capsys):
    """``vllm_args: {api_key: K}`` starts vLLM requiring K; its evaluation sent the placeholder key, refused."""
    path = write(
        tmp_path,
        "models:\n"
        f"  - {{name: q, route: served, model: org/q, vllm_args: {{api_key: {MODEL_KEY}}}}}\n"
        f"  - {{name: v, route: served, model: org/v, env: {{VLLM_API_KEY: {MODEL_KEY}}}}}\n"  # vLLM reads it too
        "  - {name: open, route: served, model: org/open}\n",
    )
    q, v, keyless = plan(load_spec(path), task_index).models
    # nothing configures a judge: the server's key must not pass for a GPT judge's at api.openai.com
    sent = {"OPENAI_API_BASE": URL, "OPENAI_API_KEY": MODEL_KEY, "ABDUCTIVE_JUDGE": "off"}
    assert q.client_env == sent and v.client_env == sent
    assert keyless.client_env == {"OPENAI_API_BASE": URL, "OPENAI_API_KEY": "EMPTY", "ABDUCTIVE_JUDGE": "off"}
    assert MODEL_KEY in q.secrets and MODEL_KEY in v.secrets
    # the key reaches q's server in its environment, never on its command line (public: ps)
    assert q.server.env["VLLM_API_KEY"] == MODEL_KEY and MODEL_KEY not in " ".join(q.server.command)
    assert batch_main([str(path), "--print-commands"]) == 0
    printed = capsys.readouterr().out
    assert MODEL_KEY not in printed and 'OPENAI_API_KEY="$OPENAI_API_KEY"' in printed


def test_a_served_judge_is_sent_its_key_and_a_model_key_it_cannot_share_is_one_line(
    tmp_path, task_index, capsys, monkeypatch
):
    monkeypatch.setenv("ABDUCTIVE_JUDGE", "on")  # the suite turns the judge off
    judge = f"judge: {{model: org/judge, vllm_args: {{api_key: {JUDGE_KEY}}}}}\n"
    served = "{name: q, route: served, model: org/q, vllm_args: {api_key: %s}%s}"
    path = write(tmp_path, judge + f"models: [{served % (JUDGE_KEY, '')}]\n")
    spec = load_spec(path)
    assert judge_plan(spec).client_env["OPENAI_API_KEY"] == JUDGE_KEY
    (q,) = plan(spec, task_index).models
    assert q.client_env == {"OPENAI_API_BASE": URL, "OPENAI_API_KEY": JUDGE_KEY}  # one key for both: shared

    # Another key for the model: both would travel in OPENAI_API_KEY. Refused before anything runs, naming neither.
    path = write(tmp_path, judge + f"models: [{served % (MODEL_KEY, '')}]\n")
    with pytest.raises(SpecError) as clash:
        plan(load_spec(path), task_index)
    assert str(clash.value).startswith("models[q]: its server requires an API key")
    assert batch_main([str(path), "--print-commands"]) == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1 and "Traceback" not in error
    assert MODEL_KEY not in error and JUDGE_KEY not in error
    # ... unless the model is given its key on its own (lmms-eval's openai backend reads api_key first)
    own = f", model_args: {{api_key: {MODEL_KEY}}}"
    (q,) = plan(load_spec(write(tmp_path, judge + f"models: [{served % (MODEL_KEY, own)}]\n")), task_index).models
    assert q.client_env == {"OPENAI_API_BASE": URL}
    # ... or the judge is off
    judge_off = "env: {ABDUCTIVE_JUDGE: 'off'}\n" + judge
    (q,) = plan(load_spec(write(tmp_path, judge_off + f"models: [{served % (MODEL_KEY, '')}]\n")), task_index).models
    assert q.client_env["OPENAI_API_KEY"] == MODEL_KEY


def test_a_served_judge_started_with_a_key_answers_the_evaluations(tmp_path):
    """Against the scripted server, which answers 401 without the key it was started with, as vLLM does."""
    record = tmp_path / "record"
    path = write(
        tmp_path,
        f"vllm_executable: {FAKE_VLLM}\nmodels: [{{name: a, backend: dummy}}]\n"
        f"judge: {{model: org/judge-7b, vllm_args: {{api_key: {JUDGE_KEY}}}, env: {{FAKE_VLLM_RECORD: {record}}}}}\n",
    )
    with contextlib.ExitStack() as stack:
        env = start_judge(judge_plan(load_spec(path)), stack)
        models = urllib.request.Request(f"{env['OPENAI_API_URL']}/models")
        with pytest.raises(urllib.error.HTTPError, match="401"):
            urllib.request.urlopen(models, timeout=5)
        models.add_header("Authorization", f"Bearer {env['OPENAI_API_KEY']}")
        with urllib.request.urlopen(models, timeout=5) as response:
            assert json.loads(response.read())["data"][0]["id"] == "org/judge-7b"
    assert JUDGE_KEY not in (tmp_path / "results" / "judge_server.log").read_text()  # vLLM prints its arguments
    argv = json.loads((record / "argv.json").read_text())["argv"]
    assert "--api-key" not in argv and JUDGE_KEY not in " ".join(argv)  # required through VLLM_API_KEY: ps shows argv


@pytest.mark.e2e
def test_served_model_with_a_key_is_evaluated_and_the_key_is_nowhere(tmp_path):
    record, output = tmp_path / "record", tmp_path / "out"
    env = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample", "FAKE_VLLM_RECORD": str(record)}
    command = [
        str(Path(sys.executable).with_name("abductive-eval")), "serve", "stub/model-7b", "--tasks", "nleye_triplet",
        "--limit", "2", "--vllm-executable", FAKE_VLLM, "--vllm-arg", f"api_key={MODEL_KEY}", "--output_path",
        str(output),
    ]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    argv = json.loads((record / "argv.json").read_text())["argv"]
    assert "--api-key" not in argv and MODEL_KEY not in " ".join(argv)  # given as VLLM_API_KEY: ps shows argv
    assert json.loads((record / "argv.json").read_text())["key_required"]
    assert (record / "unauthorized").read_text() == "0"
    assert len((record / "requests.jsonl").read_text().splitlines()) == 2  # both documents asked, with the key
    assert read_results(output / "model-7b")["nleye_triplet"]["triplet_counts,none"]["request_failed"] == 0
    assert MODEL_KEY not in run.stdout + run.stderr
    leaks = [path for path in output.rglob("*") if path.is_file() and MODEL_KEY.encode() in path.read_bytes()]
    assert leaks == []


def test_a_judge_the_environment_configures_is_in_the_identity_its_key_never(tmp_path, task_index, monkeypatch):
    """A judge set through the spec's ``env`` (or the inherited environment) judged the run, yet its identity, the
    leaderboard's footnote and ``show`` said "judge: none", so rows of two judges were compared as one setting (a
    walkthrough). The identity names it as the spec's judge is named: provider, model, base URL, never the key."""
    from abductive_tasks.runs.identity import task_key

    monkeypatch.delenv("ABDUCTIVE_JUDGE", raising=False)  # the suite's default is off

    def identity_of(env: str) -> dict:
        path = write(tmp_path, f"env: {{{env}}}\nmodels: [{{name: a, backend: dummy}}]\n")
        (model,) = plan(load_spec(path), task_index).models
        return model.identity

    keyed = identity_of(f"OPENAI_API_KEY: {JUDGE_KEY}")
    assert keyed["judge"] == {"api_type": "openai", "model_version": "gpt-4o-2024-11-20", "url": None}
    assert JUDGE_KEY not in json.dumps(keyed)
    other = identity_of(f"OPENAI_API_KEY: {JUDGE_KEY}, MODEL_VERSION: judge-b, OPENAI_API_URL: 'http://j:8/v1'")
    assert other["judge"] == {"api_type": "openai", "model_version": "judge-b", "url": "http://j:8/v1"}
    assert task_key(other, "nleye_triplet") != task_key(keyed, "nleye_triplet")  # another judge: another setting
    assert identity_of(f"OPENAI_API_KEY: {JUDGE_KEY}, ABDUCTIVE_JUDGE: 'off'")["judge"] is None
    assert identity_of("ABDUCTIVE_BOOTSTRAP: 20")["judge"] is None  # no key: no judge, as the run finds none
    assert identity_of(f"OPENAI_API_KEY: {JUDGE_KEY}, OPENAI_API_URL: 'http://j/v1?k=1'")["judge"] is None
    monkeypatch.setenv("OPENAI_API_KEY", JUDGE_KEY)  # inherited, not the spec's
    monkeypatch.setenv("MODEL_VERSION", "judge-c")
    assert identity_of("ABDUCTIVE_BOOTSTRAP: 20")["judge"]["model_version"] == "judge-c"
