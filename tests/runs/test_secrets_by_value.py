"""Secrets are scrubbed by value wherever they land: secrets planted in a spec (secret-named ``model_args`` lmms-eval
does not redact, URL credentials in ``model_args``, ``env`` and the judge's URL, a URL's query key inside a
``model_args`` string, the judge's ``env``, a malformed model entry) appear in no file a batch, ``browse`` or
``export-sherlock`` writes, on no console line, and in nothing the ui serves."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from abductive_tasks.nleye import descriptions
from abductive_tasks.redaction import collect_secrets, redact_text, url_credentials, value_secrets
from abductive_tasks.reports.browse import browse_main
from abductive_tasks.runs.batch import main as batch_main
from abductive_tasks.sherlock.export import main as export_main

from helpers.runs import OFFLINE, abductive_eval

PLANTED = {
    "api_key": "sk-planted-api-7c1d9e2f4a6b8c0d",
    "access_key": "AKIAPLANTED5E6F7A8B9C",
    "token": "tok-planted-3b5d7f9a1c2e4f6a",
    "base_url password": "pw-planted-8e0f2a4c6e8a",
    "judge url password": "jpw-planted-1a3c5e7f9b",
    "judge env key": "jkey-planted-5f7b9d1e3a",
    "env token": "envtok-planted-6d8f0b2d4f",
    "env url password": "envpw-planted-2c4e6a8c0e",
    "malformed entry api_key": "sk-planted-bad-9a7b5c3d1e",
    "url query key": "AIzaSyPLANTED4d6f8a0c2e4b",
    "model url token": "hf_plantedUrlToken5b7d9f1",
}
TASKS = ["nleye_triplet", "sherlock_comparison_rating"]
ABDUCTIVE_EVAL = str(Path(sys.executable).with_name("abductive-eval"))


def test_url_credentials_are_the_userinfo_and_its_password_as_written_and_decoded():
    text = "base https://user:p%40ss1@host/v1, mirror http://tok-abc@mirror.invalid and https://plain.example/x@y"
    assert url_credentials(text) == ["user:p%40ss1", "user:p@ss1", "p%40ss1", "p@ss1", "tok-abc", "tok-abc"]


def test_secrets_are_collected_from_every_place_by_key_rule_and_from_urls():
    spec = {
        "env": {"SERVICE_TOKEN": "tok-12345", "MIRROR": "https://u:pw-12345@m.invalid"},
        "models": [
            {"model_args": {"access_key": "AKIA12345", "base_url": "https://u:pw-67890@h.invalid"}},
            "dumb_pixel api_key=sk-in-a-string",
            {"eval_args": ["--client_secret", "cs-12345", "--model_args", "response=1,hf_token=hf-12345"]},
        ],
        "judge": {"url": "https://judge:jpw-12345@j.invalid/v1"},
    }
    found = set(value_secrets(spec))
    expected = {"tok-12345", "pw-12345", "AKIA12345", "pw-67890", "sk-in-a-string", "cs-12345", "hf-12345", "jpw-12345"}
    assert expected <= found
    inherited = collect_secrets(environment={"HTTPS_PROXY": "http://proxy-user:proxy-pw1@proxy:3128", "X": "y"})
    assert "proxy-pw1" in inherited and "y" not in inherited
    assert redact_text('{"k": "a\\"quoted-secret"}', ['a"quoted-secret']) == '{"k": "[REDACTED]"}'  # as JSON writes it


def test_names_outside_the_old_rule_mark_secrets_too():
    """``hf_auth``, ``db_passwd``, ``ssh_passphrase`` and ``client_credentials`` hold secrets like ``*_token`` does;
    names that merely contain such a word (``author``, ``auth_mode``) do not."""
    spec = {
        "hf_auth": "hfa-123456",
        "db_passwd": "dbp-123456",
        "ssh_passphrase": "ssh-123456",
        "client_credentials": "cc-1234567",
        "author": "someone-1",
        "auth_mode": "bearer-1",
    }
    assert set(value_secrets(spec)) == {"hfa-123456", "dbp-123456", "ssh-123456", "cc-1234567"}


def planted_spec(tmp_path: Path) -> Path:
    url = "https://planted-user:{}@{}.invalid/v1"
    spec = {
        "output_dir": "results",
        "tasks": TASKS,
        "env": {
            "ABDUCTIVE_DATA": "sample",
            "SERVICE_TOKEN": PLANTED["env token"],
            "MIRROR_URL": url.format(PLANTED["env url password"], "mirror"),
        },
        "judge": {
            "url": url.format(PLANTED["judge url password"], "judge"),
            "model_version": "judge-model",
            "env": {"OPENAI_API_KEY": PLANTED["judge env key"]},  # every evaluation gets it
        },
        "models": [
            {
                "name": "dummy-planted",
                "backend": "dummy",
                "model_args": {
                    "response": "1",
                    "api_key": PLANTED["api_key"],
                    "access_key": PLANTED["access_key"],
                    "token": PLANTED["token"],
                    "base_url": url.format(PLANTED["base_url password"], "api"),
                },
            },
            {"name": "random_baseline", "backend": "random_baseline"},
            {"name": "dumb_pixel", "backend": "dumb_pixel"},
            {  # a URL's query key inside a model_args string, read as one value before
                "name": "dummy-url",
                "backend": "dummy",
                "model_args": f"response=1,base_url=https://gen.example/v1beta?key={PLANTED['url query key']}",
            },
            f"broken api_key={PLANTED['malformed entry api_key']}",
        ],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec))
    return path


def leaks(text: str | bytes, where: str) -> set[tuple[str, str]]:
    data = text if isinstance(text, bytes) else text.encode()
    return {(place, where) for place, secret in PLANTED.items() if secret.encode() in data}


def file_leaks(folder: Path, root: Path) -> set[tuple[str, str]]:
    """Every secret in a file under ``folder``, or in a file's or folder's name (a run folder named by a URL)."""
    found = set()
    for path in folder.rglob("*"):
        found |= leaks(str(path.relative_to(root)), f"name: {path.relative_to(root)}")
        if path.is_file():
            found |= leaks(path.read_bytes(), str(path.relative_to(root)))
            if path.suffix == ".zip":
                with zipfile.ZipFile(path) as archive:
                    for name in archive.namelist():
                        found |= leaks(archive.read(name), f"{path.relative_to(root)}:{name}")
    return found


def served_by_the_ui(results: Path) -> list[tuple[str, str]]:
    """Every run, results file and samples page the ui serves for ``results``."""
    import httpx

    port = free_port()
    output: list[str] = []
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("abductive-eval")),
            "ui",
            str(results),
            "--no-browser",
            "--port",
            str(port),
        ],
        env={**os.environ, **OFFLINE},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    threading.Thread(target=lambda: output.extend(server.stdout), daemon=True).start()
    base, served = f"http://127.0.0.1:{port}", []
    try:
        deadline, token = time.monotonic() + 180, None
        while time.monotonic() < deadline and server.poll() is None and token is None:
            found = re.search(r"(/[\w-]+)/\?token=([\w-]+)", "".join(output))  # the ui is served below its root
            try:
                if found and httpx.get(f"{base}{found[1]}/health", params={"token": found[2]}).status_code == 200:
                    base, token = base + found[1], found[2]
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        assert token, "".join(output)
        with httpx.Client(base_url=base, headers={"Authorization": f"token {token}"}, timeout=60) as client:
            runs = client.get("/logs/runs")
            served.append(("/logs/runs", runs.text))
            for run in runs.json():
                path = f"/logs/runs/{run['run_id']}"
                served.append((f"{path}/results", client.get(f"{path}/results").text))
                for task in run["tasks"]:
                    served.append((f"{path}/samples/{task}", client.get(f"{path}/samples/{task}").text))
    finally:
        server.terminate()
        server.wait(timeout=30)
    served.append(("ui console", "".join(output)))
    return served


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.e2e
def test_planted_secrets_reach_no_file_console_or_page(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    spec = planted_spec(tmp_path)
    results = tmp_path / "results"

    assert batch_main([str(spec), "--print-commands"]) == 1  # its broken entry, said on stderr too
    printed = capsys.readouterr()
    found = leaks(printed.out + printed.err, "console: batch --print-commands")
    assert batch_main([str(spec)]) == 1  # the malformed entry fails alone
    printed = capsys.readouterr()
    found |= leaks(printed.out + printed.err, "console: batch")
    found |= file_leaks(results, tmp_path) | file_leaks(tmp_path / "cache", tmp_path)
    assert found == set(), "a batch wrote or printed a secret"

    assert "4 of 5 models complete; failed: models[4]" in printed.out
    status = json.loads((results / "batch_status.json").read_text())
    assert status["models[4]"]["state"] == "failed" and "[REDACTED]" in status["models[4]"]["error"]
    (recorded,) = (results / "dummy-planted").rglob("*_results.json")
    model_args = json.loads(recorded.read_text())["config"]["model_args"]
    assert "access_key=[REDACTED]" in model_args and "base_url=https://[REDACTED]@api.invalid/v1" in model_args
    (recorded,) = (results / "dummy-url").rglob("*_results.json")
    model_args = json.loads(recorded.read_text())["config"]["model_args"]
    assert "base_url=https://gen.example/v1beta?key=[REDACTED]" in model_args
    assert len(list(results.rglob("*"))) > 30

    pages = tmp_path / "pages"
    pages.mkdir()
    for model in ("dummy-planted", "random_baseline", "dumb_pixel", "dummy-url"):
        for task_results in (results / model).rglob("*_results.json"):
            assert browse_main([str(task_results), "-o", str(pages / f"{model}.html")]) == 0
    (sherlock_run,) = {path.parent for path in (results / "dummy-planted").rglob("*_samples_sherlock_*.jsonl")}
    assert export_main([str(sherlock_run), "--out", str(tmp_path / "export"), "--split", "val"]) == 0
    printed = capsys.readouterr()
    assert list((tmp_path / "export").glob("*.zip")) and len(list(pages.glob("*.html"))) == 4
    found = leaks(printed.out + printed.err, "console: browse, export-sherlock")
    found |= file_leaks(pages, tmp_path) | file_leaks(tmp_path / "export", tmp_path)
    assert found == set(), "browse or export-sherlock wrote or printed a secret"

    served = served_by_the_ui(results)
    assert len(served) >= 2 + 4 * len(TASKS)
    assert {leak for where, text in served for leak in leaks(text, f"ui: {where}")} == set()


def test_an_identity_holds_a_secret_under_no_name_in_clear(tmp_path):
    """``token: X`` marks X secret; the same X under ``hf_auth`` (outside the name rule), in a URL-less ``env`` value
    or in ``eval_args`` is hashed too, so ``spec_identity.json`` and ``run_identity.json`` never hold it."""
    from abductive_tasks.redaction import hash_secret
    from abductive_tasks.runs.plan import plan
    from abductive_tasks.runs.spec import load_spec
    from abductive_tasks.runs.task_index import TaskIndex

    spec = {
        "output_dir": "results",
        "tasks": ["nleye_triplet"],
        "env": {"ABDUCTIVE_DATA": "sample", "MIRROR_AUTH_VALUE": ECHOED},
        "models": [
            {
                "name": "echo",
                "backend": "dummy",
                "model_args": {"response": "1", "token": ECHOED, "hf_auth": ECHOED},
                "eval_args": ["--gen_kwargs", f"note={ECHOED}"],
            }
        ],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec))
    (model_plan,) = plan(load_spec(path), TaskIndex()).models
    written = json.dumps(model_plan.identity)
    assert ECHOED not in written and written.count(hash_secret(ECHOED)) == 4


def test_print_commands_show_a_variable_holding_a_secret_by_reference():
    from abductive_tasks.runs.plan import shell_line

    secrets = collect_secrets(mappings=[{"judge": "https://j:jpw-1234@j.invalid/v1", "base": "https://u:pw-1234@h"}])
    line = shell_line(
        ["abductive-eval", "--model_args", "base_url=https://u:pw-1234@h/v1"],
        {"OPENAI_API_URL": "https://j:jpw-1234@j.invalid/v1", "ABDUCTIVE_DATA": "sample"},
        secrets,
    )
    assert line == (
        'OPENAI_API_URL="$OPENAI_API_URL" ABDUCTIVE_DATA=sample abductive-eval --model_args '
        "base_url=https://[REDACTED]@h/v1"
    )


@pytest.mark.e2e
def test_abductive_eval_alone_writes_and_prints_no_secret_it_was_given(tmp_path):
    """Not only under a batch: secrets on the command line and in the environment are scrubbed from the results
    and samples files and the console."""
    model_args = (
        f"response=1,access_key={PLANTED['access_key']},base_url=https://u:{PLANTED['base_url password']}@h.x,"
        f"model=https://h.x/m?token={PLANTED['model url token']}"  # names the run's folder
    )
    output = tmp_path / "out"
    run = abductive_eval(
        ["--model", "dummy", "--model_args", model_args, "--tasks", "nleye_triplet", "--log_samples"],
        output,
        env={"MIRROR_URL": f"https://mirror:{PLANTED['env url password']}@m.invalid"},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    (results,) = output.rglob("*_results.json")
    assert "access_key=[REDACTED]" in json.loads(results.read_text())["config"]["model_args"]
    assert file_leaks(output, tmp_path) | leaks(run.stdout + run.stderr, "console") == set()


ECHOED = "hf-echoed-7Qx2Lm9Vb4Kd"
SHORT_ENV_SECRET = "zq7Tk"  # in the spec's env: the child's own rule for inherited variables wants 8 characters


@pytest.mark.e2e
def test_a_secret_under_a_second_name_and_in_the_reply_is_in_no_file_of_the_batch_or_the_cache(tmp_path, capsys):
    """The done-when case of the response cache and the identity files: ``token: X`` marks X secret; ``hf_auth: X``
    (a name outside the rule) and a reply holding X (lmms-eval's dummy echoes its ``response``) must not leave X in
    ``spec_identity.json``, ``run_identity.json``, the response cache (``cache.db``, ``*.audit.jsonl``) or anywhere
    else under the output folder or ``ABDUCTIVE_CACHE``. A secret the batch alone knows by its rule (a short one in
    the spec's ``env``) is handed to the evaluation, which redacts it too. Run twice: the rerun reads what the first
    left."""
    cache = tmp_path / "cache"
    spec = {
        "output_dir": "results",
        # the describer's replies are stored in ABDUCTIVE_CACHE; mucr_exp's stage (the picks of mucr_c2e and mucr_cue)
        # is sealed there from the samples
        "tasks": ["nleye_triplet", "nleye_describe", "mucr_exp"],
        "limit": 2,
        "env": {
            "ABDUCTIVE_DATA": "sample",
            "ABDUCTIVE_CACHE": str(cache),
            "ABDUCTIVE_NLEYE_DESCRIBER": "echo",
            "MY_SERVICE_TOKEN": SHORT_ENV_SECRET,
        },
        "models": [
            {
                "name": "echo",
                "backend": "dummy",
                "model_args": {
                    "response": f"1 because {ECHOED} and {SHORT_ENV_SECRET}",
                    "token": ECHOED,
                    "hf_auth": ECHOED,
                },
            }
        ],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec))
    for _ in range(2):
        assert batch_main([str(path)]) == 0
    printed = capsys.readouterr()
    results = tmp_path / "results"
    assert list(results.rglob("cache.db")) and list(results.rglob("*.audit.jsonl"))  # lmms-eval's cache was used
    assert list(results.rglob("spec_identity.json")) and list(results.rglob("run_identity.json"))
    (description, *_) = descriptions.describer_folder("echo", cache).glob("*.json")  # the stage store's named folder
    assert "[REDACTED]" in description.read_text()
    outputs = list((cache / "stages" / "outputs").glob("*.json"))
    assert len(outputs) == 2 and all("token=<secret " in output.read_text() for output in outputs)  # the binding
    for secret in (ECHOED, SHORT_ENV_SECRET):
        found = subprocess.run(["grep", "-rl", secret, str(results), str(cache)], capture_output=True, text=True)
        assert found.stdout == "", f"{secret} is written in clear"
        assert secret not in printed.out + printed.err
    (samples,) = results.rglob("*_samples_nleye_triplet.jsonl")
    assert "1 because [REDACTED] and [REDACTED]" in samples.read_text()


# Secrets that reach a file or a line only escaped: nested in a model's settings (json.dumps writes non-ASCII as
# \uXXXX, and a quote escaped inside a JSON string inside another), quoted for a shell (shlex.quote splits a value
# holding '), or written after a flag's '=' (the flag's own name is no secret's). Each is named by the tail every
# escaped form keeps.
ESCAPED = {
    "NONASCII-TAIL-777": "pässwörd-NONASCII-TAIL-777",
    "NESTEDQUOTE-TAIL-444": 'ab"cd-NESTEDQUOTE-TAIL-444',
    "SHELLQUOTE-TAIL-888": "ab'cd-SHELLQUOTE-TAIL-888",
    "FLAGVALUE-TAIL-321": "FLAGVALUE-TAIL-321",
}


def test_secret_forms_cover_json_shell_and_repr_escapes_once_and_twice():
    from abductive_tasks.redaction import hash_secret, hash_values

    secret = "p'ä\"ss-FORM-TAIL"
    nested = json.dumps({"extra": json.dumps({"api_key": secret})})  # a JSON value in a JSON string, ASCII-escaped
    for text in (nested, f"--model_args='api_key={secret}'".replace("'", "'\"'\"'"), repr({"k": secret})):
        assert "FORM-TAIL" in text and "FORM-TAIL" not in redact_text(text, [secret]), text
    hashed = json.dumps(hash_values({"a": [nested]}, [secret]))
    assert "FORM-TAIL" not in hashed and hash_secret(secret) in hashed
    assert collect_secrets(args=["--gen_kwargs=temperature=0,api_key=FLAG-TAIL-1"]) == ("FLAG-TAIL-1",)
    assert collect_secrets(args=["--gen_kwargs=api_key=FLAG-TAIL-2"]) == ("FLAG-TAIL-2",)


def test_a_hub_model_named_by_a_url_with_credentials_is_recorded_with_them_hashed():
    from abductive_tasks.redaction import hash_secret
    from abductive_tasks.runs.identity import model_weights

    weights = model_weights("pretrained=https://bob:HUB-TAIL-1234@hf.invalid/model,revision=main")
    assert weights == {"name": f"https://{hash_secret('bob:HUB-TAIL-1234')}@hf.invalid/model", "revision": "main"}


@pytest.mark.e2e
def test_secrets_written_only_escaped_reach_no_file_or_console_line(tmp_path, capsys, monkeypatch):
    """A blind review found each of these in clear (escaped) in spec_identity.json, run_identity.json, the results,
    eval.log, the cache's model fingerprint and --print-commands."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    spec = {
        "output_dir": "results",
        "tasks": ["dve_cls"],
        "env": {"ABDUCTIVE_DATA": "sample"},
        "models": [
            {
                "name": "nested",
                "backend": "dummy",
                "model_args": {
                    "response": "strengthener",
                    "extra": {
                        "api_key": ESCAPED["NONASCII-TAIL-777"],
                        "inner": {"token": ESCAPED["NESTEDQUOTE-TAIL-444"]},
                    },
                },
                "eval_args": ["--limit", "2"],
            },
            {
                "name": "quoted",
                "backend": "dummy",
                "model_args": f"response=weakener,api_key={ESCAPED['SHELLQUOTE-TAIL-888']}",
                "eval_args": ["--limit", "2", "--gen_kwargs=api_key=" + ESCAPED["FLAGVALUE-TAIL-321"]],
            },
        ],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec))

    def escaped_leaks(data: bytes, where: str) -> set[tuple[str, str]]:
        return {(tail, where) for tail in ESCAPED if tail.encode() in data}

    assert batch_main([str(path), "--print-commands"]) == 0
    printed = capsys.readouterr()
    found = escaped_leaks((printed.out + printed.err).encode(), "console: --print-commands")
    assert batch_main([str(path)]) == 0
    printed = capsys.readouterr()
    found |= escaped_leaks((printed.out + printed.err).encode(), "console: batch")
    written = [path for folder in (tmp_path / "results", tmp_path / "cache") for path in folder.rglob("*")]
    assert len([path for path in written if path.name.endswith("_results.json")]) == 2
    for file in (path for path in written if path.is_file()):
        found |= escaped_leaks(file.read_bytes(), str(file.relative_to(tmp_path)))
    assert found == set()


def test_secrets_too_many_to_hand_over_stop_the_evaluation_instead_of_going_unredacted():
    from abductive_tasks.redaction import HANDOFF_MAX, handed_over

    many = [f"secret-{index:06d}-" + "x" * 40 for index in range(HANDOFF_MAX // 40)]
    with pytest.raises(RuntimeError, match=r"over the 32768 a pipe holds"), handed_over(many):
        pass
    with handed_over(many[:3]) as (variables, descriptors):
        assert list(variables) == ["ABDUCTIVE_SECRETS_FD"] and len(descriptors) == 1


# A stand-in for abductive-eval (three words, as EVAL_PROGRAM): it records its command line as the system shows every
# user, and its arguments as its CLI reveals them from the secrets handed over the pipe.
RECORDING_CHILD = """
import json, sys
from pathlib import Path
from abductive_tasks.redaction import handed_secrets, revealed_args
cmdline = Path("/proc/self/cmdline").read_bytes().decode().split("\\0")[:-1]
revealed = revealed_args(sys.argv[2:], handed_secrets())
Path(sys.argv[1]).write_text(json.dumps({"cmdline": cmdline, "revealed": revealed}))
"""


def test_an_evaluations_command_line_holds_a_placeholder_for_each_secret_and_its_cli_reveals_them(tmp_path):
    """`ps` shows every user a process's command line: an evaluation's (the plan's words: model_args with a key and a
    URL's credentials, eval_args with a token) holds a placeholder for each secret, and the child, in another process
    (its own hash seed), reveals the very words from the secrets handed over the pipe. The identity is the plan's, as
    before: hashed model_args, not the command line."""
    from abductive_tasks.redaction import hash_secret
    from abductive_tasks.runs.model_plan import EVAL_PROGRAM
    from abductive_tasks.runs.plan import plan
    from abductive_tasks.runs.run import run_child
    from abductive_tasks.runs.spec import load_spec
    from abductive_tasks.runs.task_index import TaskIndex

    secrets = {"key": "sk-argv-3f4e5d6c7b8a", "password": "pw-argv-1a2b3c4d", "token": "tok-argv-9e8d7c6b"}
    spec = {
        "output_dir": "results",
        "tasks": ["nleye_triplet"],
        "env": {"ABDUCTIVE_DATA": "sample"},
        "models": [
            {
                "name": "keyed",
                "backend": "dummy",
                "model_args": {
                    "response": "1",
                    "api_key": secrets["key"],
                    "base_url": f"https://user:{secrets['password']}@h.invalid/v1",
                },
                "eval_args": ["--gen_kwargs", f"hf_token={secrets['token']}"],
            }
        ],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec))
    (model_plan,) = plan(load_spec(path), TaskIndex()).models
    assert hash_secret(secrets["key"]) in json.dumps(model_plan.identity)
    command, _ = model_plan.evaluation(["nleye_triplet"], str(tmp_path / "run"), tmp_path / "cache")
    words = command[len(EVAL_PROGRAM) :]
    record = tmp_path / "record.json"
    child = [sys.executable, "-c", RECORDING_CHILD, str(record), *words]
    assert run_child(child, dict(os.environ), tmp_path / "eval.log", model_plan.secrets) == 0, (
        tmp_path / "eval.log"
    ).read_text()
    recorded = json.loads(record.read_text())
    assert [place for place, secret in secrets.items() if secret in " ".join(recorded["cmdline"])] == []
    assert re.search(r"api_key=<secret:\d+>,base_url=https://<secret:\d+>@h\.invalid", " ".join(recorded["cmdline"]))
    assert recorded["revealed"] == words


def test_two_secrets_overlapping_in_one_argument_are_concealed_whole(tmp_path):
    """The review's finding 6: with secrets ``zzabcd`` and ``abcdXYZW``, ``k=zzabcdXYZW`` became ``k=<secret:1>XYZW``,
    a piece of one in sight. Their stretch is handed over as a secret of its own and concealed whole."""
    from abductive_tasks.runs.model_plan import EVAL_PROGRAM
    from abductive_tasks.runs.run import run_child

    secrets = ("zz-first-abcd", "abcd-second-XYZW")
    words = ["--model_args", "k=zz-first-abcd-second-XYZW,other=1", "--gen_kwargs", "t=abcd-second-XYZW"]
    record = tmp_path / "record.json"
    child = [*EVAL_PROGRAM[:1], "-c", RECORDING_CHILD, str(record), *words]
    assert len(EVAL_PROGRAM) == 3
    assert run_child(child, dict(os.environ), tmp_path / "eval.log", secrets) == 0, (tmp_path / "eval.log").read_text()
    recorded = json.loads(record.read_text())
    shown = " ".join(recorded["cmdline"])
    assert "first" not in shown and "second" not in shown and "XYZW" not in shown and "zz-" not in shown, shown
    assert recorded["revealed"] == words


def test_a_placeholder_none_stands_behind_is_a_one_line_refusal_never_taken_as_the_value(monkeypatch, capsys, tmp_path):
    """Written by hand, or by a batch whose pipe is gone: the CLI refuses it before reading its arguments. A word
    already holding one is refused by the batch: it could not be told from its own."""
    from abductive_tasks.cli import main
    from abductive_tasks.redaction import HANDOFF, concealed_args

    command = ["--model", "dummy", "--model_args", "response=1,api_key=<secret:0>", "--tasks", "nleye_triplet"]
    assert main([*command, "--limit", "1"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "<secret:0> on the command line stands for a secret" in error
    assert "none was handed to it" in error
    read, write = os.pipe()
    os.write(write, json.dumps(["sk-handed-5a6b7c8d"]).encode())
    os.close(write)
    monkeypatch.setenv(HANDOFF, str(read))
    assert main([*command[:3], "response=1,api_key=<secret:99>", *command[4:], "--limit", "1"]) == 2
    assert "none of those handed to it is number 99" in capsys.readouterr().err
    with pytest.raises(RuntimeError, match="holds <secret:7>, a word reserved"):
        concealed_args(["--gen_kwargs", "note=<secret:7>"], ["sk-handed-5a6b7c8d"])
    # A spec whose arguments hold one is refused when the batch is planned, before any server starts.
    from abductive_tasks.runs.plan import plan
    from abductive_tasks.runs.spec import SpecError, load_spec
    from abductive_tasks.runs.task_index import TaskIndex

    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"tasks: [nleye_triplet]\noutput_dir: {tmp_path / 'out'}\n"
        "models: [{name: a, backend: dummy, eval_args: [--gen_kwargs, 'note=<secret:7>']}]\n"
    )
    with pytest.raises(SpecError, match=r"^models\[a\]: an argument holds <secret:7>, a word reserved"):
        plan(load_spec(spec), TaskIndex())


def test_every_value_under_a_secret_name_is_a_secret_however_deep_and_each_line_of_one():
    """``auth: {user: ..., pw: X}`` and ``api_key: [X, Y]`` were collected as Python shows the whole (never written
    so), and a secret of two lines was found only whole (a log is copied a line at a time)."""
    from abductive_tasks.redaction import written_forms

    spec = {"vllm_args": {"auth": {"username": "bob", "pw": "DICT-PW-1111"}, "api_key": ["LIST-1-2222", "LIST-2-3333"]}}
    assert collect_secrets(mappings=[spec]) == ("DICT-PW-1111", "LIST-1-2222", "LIST-2-3333")
    served = '--auth \'{"username":"bob","pw":"DICT-PW-1111"}\' --api-key \'["LIST-1-2222","LIST-2-3333"]\''
    assert redact_text(served, collect_secrets(mappings=[spec])).count("[REDACTED]") == 3
    pem = "LINE-ONE-aaaa1111\nLINE-TWO-bbbb2222"
    assert {"LINE-ONE-aaaa1111", "LINE-TWO-bbbb2222", pem} <= set(written_forms([pem]))
    assert redact_text("api_key=[REDACTED]\nLINE-TWO-bbbb2222), gen_kwargs", [pem]) == (
        "api_key=[REDACTED]\n[REDACTED]), gen_kwargs"
    )


def test_a_refusal_echoing_a_variable_holding_credentials_redacts_them(monkeypatch, capsys):
    from abductive_tasks.cli import main

    monkeypatch.setenv("ABDUCTIVE_DATA", "https://u:DATA-PASS-4444@host.invalid/x")
    assert main(["--model", "dumb_pixel", "--tasks", "nleye_triplet", "--limit", "2"]) != 0
    printed = capsys.readouterr().err
    assert "ABDUCTIVE_DATA=https://[REDACTED]@host.invalid/x" in printed and "DATA-PASS-4444" not in printed


def test_serve_refusing_its_environment_redacts_a_variable_holding_credentials(monkeypatch, capsys, tmp_path):
    from abductive_tasks.runs.batch import serve_main

    monkeypatch.setenv("ABDUCTIVE_JUDGE_TIMEOUT", "https://u:SERVE-PW-gggg7777@h.invalid")
    argv = ["Qwen/Qwen2.5-VL-7B-Instruct", "--tasks", "nleye_triplet", "--output_path", str(tmp_path / "o")]
    assert serve_main([*argv, "--print-command"]) == 2
    printed = capsys.readouterr().err
    assert "ABDUCTIVE_JUDGE_TIMEOUT='https://[REDACTED]@h.invalid': expected a number" in printed
    assert "SERVE-PW-gggg7777" not in printed


def test_serve_counts_a_vllm_arg_key_among_its_secrets(monkeypatch, capsys, tmp_path):
    """``--vllm-arg api_key=K``: K is a secret of the run wherever it shows up, a refusal echoing a value included."""
    from abductive_tasks.runs.batch import serve_main

    key = "SERVE-KEY-hhhh8888"
    monkeypatch.setenv("ABDUCTIVE_JUDGE_TIMEOUT", key)
    argv = ["Qwen/Qwen2.5-VL-7B-Instruct", "--tasks", "nleye_triplet", "--output_path", str(tmp_path / "o")]
    assert serve_main([*argv, "--vllm-arg", f"api_key={key}", "--print-command"]) == 2
    printed = capsys.readouterr()
    assert "ABDUCTIVE_JUDGE_TIMEOUT" in printed.err and key not in printed.out + printed.err


def test_an_inherited_secret_of_eight_characters_or_more_is_collected_and_a_shorter_flag_is_not():
    """review (mutation): the judge's key in the environment is a secret from 8 characters on (shorter values under a
    secret name are flags such as ``true``), so a short real key is still kept out of every file and line."""
    environment = {"OPENAI_API_KEY": "sk-12345", "JUDGE_TOKEN": "sk-short-9ab", "USE_AUTH": "true", "PATH": "/bin"}
    found = collect_secrets(environment=environment)
    assert "sk-12345" in found and "sk-short-9ab" in found
    assert "true" not in found and "/bin" not in found


def test_a_redacted_console_replaces_a_secret_in_each_line_written():
    """review (mutation): what this process prints inside :func:`redacted_console` never holds a secret."""
    import io

    from abductive_tasks.redaction import RedactingStream

    sink = io.StringIO()
    stream = RedactingStream(sink, ["CONSOLE-SECRET-42"])
    stream.write("key CONSOLE-SEC")
    stream.write("RET-42 used\nand CONSOLE-SECRET-42 again")
    stream.flush()
    assert "CONSOLE-SECRET-42" not in sink.getvalue() and sink.getvalue().count("[REDACTED]") == 2


def test_a_child_output_ending_without_a_newline_is_copied_redacted_too():
    """The output's last segment, written when the child ends without a newline (a traceback cut short), is redacted
    like every other (the second mutation review's m30: its redaction dropped, every test passed)."""
    import io

    from abductive_tasks.redaction import copy_redacted

    secret = "sk-live-0123456789abcdef"
    log = io.BytesIO()
    copy_redacted(io.BytesIO(f"loading model\rkey={secret}\nfailed with key={secret}".encode()), log, [secret])
    assert log.getvalue() == b"loading model\rkey=[REDACTED]\nfailed with key=[REDACTED]"


def test_model_args_keep_no_url_credentials_in_clear():
    """A server URL with a user and password in ``model_args`` (under a name no secret rule knows) is named by a hash
    of its credentials, however the rest of the identity is redacted (m32 of the second mutation review)."""
    from abductive_tasks.redaction import hash_secret, redact_model_args

    redacted = redact_model_args("model=m,base_url=http://alice:s3cret-pw@judge.local:8000/v1,api_key=sk-0123456789")
    assert "alice" not in redacted and "s3cret-pw" not in redacted and "sk-0123456789" not in redacted
    assert redacted == (
        f"model=m,base_url=http://{hash_secret('alice:s3cret-pw')}@judge.local:8000/v1,"
        f"api_key={hash_secret('sk-0123456789')}"
    )


# ---------------------------------------------------------------- a URL's secrets inside a value

QUERY_KEY = "AIzaSyLEAK0123456789"


def test_a_secret_query_parameter_of_a_url_nested_in_model_args_is_collected():
    """``base_url=https://...?key=X`` was read as one assignment, its value the whole URL: X, a query parameter the
    bare URL's reading finds, was never collected (the reviewer's case)."""
    from abductive_tasks.redaction import model_args_secrets, text_secrets

    assert collect_secrets(model_args=f"base_url=https://g.example/v1beta?key={QUERY_KEY}") == (QUERY_KEY,)
    assert "hf_abcdef123456" in text_secrets("response=1,model=https://h/m?token=hf_abcdef123456")
    assert model_args_secrets(f"response=1,base_url=https://g.example/v1beta?key={QUERY_KEY}") == [QUERY_KEY]


def test_a_password_in_a_url_nested_in_model_args_is_among_its_model_args_secrets():
    """``model_args_secrets`` (what a command-line word's pairs hold: ``args_secrets``, ``redact_args``) reads a URL
    value's credentials as :func:`url_credentials` reads a bare URL's."""
    from abductive_tasks.redaction import args_secrets, model_args_secrets

    model_args = "response=1,base_url=https://bob:pw-nested-4321@h.invalid/v1"
    assert set(model_args_secrets(model_args)) == {"bob:pw-nested-4321", "pw-nested-4321"}
    assert "pw-nested-4321" in args_secrets(["--model_args", model_args])


def test_each_pair_holding_a_url_gives_its_secrets_and_a_value_with_no_url_is_left_alone():
    """Several pairs, each URL's secret its first query parameter (``&name=X`` further on was already found);
    ``sig`` (a signed URL's signature) is a secret name; values with no URL hold no secret, not even ``a:b@c``."""
    model_args = (
        "response=1,note=a:b@c,model=org/m,"
        "base_url=https://a.example/v1?key=k-first-1234,"
        "mirror=https://b.example/x?access_token=at-second-5678&revision=main,"
        "weights=https://c.example/m.bin?sig=sig-third-9012"
    )
    assert collect_secrets(model_args=model_args) == ("k-first-1234", "at-second-5678", "sig-third-9012")
    assert collect_secrets(model_args="response=1,note=a:b@c,model=org/m,path=/data/m?x") == ()


def test_a_non_secret_query_parameter_is_not_collected_beside_a_secret_one():
    assert collect_secrets(model_args="pretrained=https://h.example/m?token=tok-9876543&revision=main") == (
        "tok-9876543",
    )
    assert collect_secrets(model_args="pretrained=https://h.example/m?revision=main&page=2") == ()


def test_a_url_secret_is_collected_from_eval_args_a_spec_and_the_inherited_environment():
    eval_args = ["--model_args", f"response=1,base_url=https://g.example/v1?key={QUERY_KEY}"]
    assert collect_secrets(args=eval_args) == (QUERY_KEY,)
    spec = {"models": [{"model_args": f"response=1,base_url=https://g.example/v1?api_key={QUERY_KEY}"}]}
    assert QUERY_KEY in value_secrets(spec)
    environment = {"HF_ENDPOINT": f"https://mirror.invalid/hub?token={QUERY_KEY}", "PATH": "/bin"}
    assert collect_secrets(environment=environment) == (QUERY_KEY,)


def test_what_the_ui_browse_and_show_replace_holds_a_url_secret_nested_in_a_runs_settings():
    from abductive_tasks.reports.ui_guard import run_secrets

    results = {
        "config": {"model": "dummy", "model_args": f"response=1,base_url=https://g.example/v1?key={QUERY_KEY}"},
        "model_name": f"https://h.example/m?token={QUERY_KEY}-2",
    }
    assert {QUERY_KEY, f"{QUERY_KEY}-2"} <= set(run_secrets(results))


def test_identities_hash_a_url_secret_nested_in_model_args_eval_args_and_env():
    from abductive_tasks.redaction import hash_secret, redact_args, redact_mapping, redact_model_args

    model_args = f"response=1,base_url=https://g.example/v1?key={QUERY_KEY}&revision=main,api_key=sk-0123456789"
    assert redact_model_args(model_args) == (
        f"response=1,base_url=https://g.example/v1?key={hash_secret(QUERY_KEY)}&revision=main,"
        f"api_key={hash_secret('sk-0123456789')}"
    )
    assert redact_args(["--model_args", model_args]) == ["--model_args", redact_model_args(model_args)]
    assert redact_mapping({"HF_ENDPOINT": f"https://mirror.invalid/?token={QUERY_KEY}"}) == {
        "HF_ENDPOINT": f"https://mirror.invalid/?token={hash_secret(QUERY_KEY)}"
    }


def test_a_run_folder_named_by_a_url_holds_none_of_its_secrets():
    """The folder (and ``model_name``) of ``pretrained=https://h/m?token=X``: the token is ``<secret>`` in the name
    and in its hash, as a secret-named argument is, so rotating it keeps the folder."""
    from abductive_tasks.runs import layout

    folder = layout.model_folder("dummy", {"pretrained": "https://h.example/m?token=hf_abcdef123456&revision=main"})
    rotated = layout.model_folder("dummy", {"pretrained": "https://h.example/m?token=hf_rotated98765&revision=main"})
    assert "abcdef123456" not in folder and folder == rotated and folder.startswith("h.example__m_token_secret_rev")
    assert layout.model_name("dummy", {"model": "https://u:pw-1234@h.example/m?key=k-12345678"}) == (
        "https://h.example/m?key=<secret>"
    )
    other = layout.model_folder("dummy", {"pretrained": "https://h.example/m?token=hf_abcdef123456&revision=dev"})
    assert other != folder


def test_header_style_names_are_secret_names_and_a_count_of_tokens_is_not():
    """``authorization`` and ``cookie`` (a header's value handed as a model arg or a variable) are secret names, as
    ``auth`` was; ``max_new_tokens`` ends in no secret name."""
    model_args = "response=1,authorization=Bearer-hdr-24681357,session_cookie=ck-13572468,max_new_tokens=64"
    assert collect_secrets(model_args=model_args) == ("Bearer-hdr-24681357", "ck-13572468")
    environment = {"PROXY_AUTHORIZATION": "Basic-env-97531864", "PATH": "/bin"}
    assert collect_secrets(environment=environment) == ("Basic-env-97531864",)
    assert collect_secrets(model_args="pretrained=https://h.example/m?authorization=q-86420975") == ("q-86420975",)
