"""REVIEW-3 (attack surfaces): ``--verbosity DEBUG`` printed a secret in clear in the traceback of a failed run.

The evaluation runs inside ``redacted_console``; at DEBUG lmms-eval raises a run's error again, which left that block
(the console no longer redacted) and was printed by Python: ``AssertionError: Unexpected kwargs: {'hf_token':
'hf-...'}`` from a backend that does not take the entry, or a data path holding a URL's credentials. The docs promise
``[REDACTED]`` on the console for every secret. Fixed: the traceback is printed inside the redacted console."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.runs import OFFLINE

REPO = Path(__file__).resolve().parents[1]
REFUSING_BACKEND = """
import sys
import lmms_eval.models
from lmms_eval.models.simple.dummy import Dummy

class Asserting(Dummy):  # as most of lmms-eval's own backends refuse an entry they do not take
    def __init__(self, response="A", **kwargs):
        assert kwargs == {}, f"Unexpected kwargs: {kwargs}"
        super().__init__(response=response)

known = lmms_eval.models.get_model
lmms_eval.models.get_model = lambda name, *rest: Asserting if name == "dummy" else known(name)
from abductive_tasks.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.e2e
@pytest.mark.parametrize("where", ["a model_args entry", "a data path"])
def test_review3_a_debug_traceback_holds_no_secret(tmp_path, where):
    secret = "hf-abcdef123456" if where == "a model_args entry" else "SuperSecretPw99"
    script = tmp_path / "run.py"
    script.write_text(REFUSING_BACKEND)
    env = {**os.environ, **OFFLINE, "ABDUCTIVE_CACHE": str(tmp_path / "cache"), "ABDUCTIVE_DATA": "sample"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    if where == "a model_args entry":
        command = [str(script), "--model", "dummy", "--model_args", f"response=1,hf_token={secret}"]
    else:  # a data folder without the benchmark's files: found only once the run loads them, at DEBUG
        data = tmp_path / "data" / f"https://u:{secret}@mirror.invalid" / "d"
        (data / "nleye").mkdir(parents=True)
        env["ABDUCTIVE_DATA"] = str(data).replace("https:/", "https://")  # a URL's credentials: a secret
        command = ["-m", "abductive_tasks.cli", "--model", "random_baseline"]
    command += ["--tasks", "nleye_triplet", "--limit", "1", "--output_path", str(tmp_path / "out")]
    done = subprocess.run(
        [sys.executable, *command, "--verbosity", "DEBUG"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" in said, said[-3000:]  # DEBUG still shows the traceback
    assert secret not in said and "[REDACTED]" in said
