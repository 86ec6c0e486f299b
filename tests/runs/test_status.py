"""batch_status.json: each model's outcome in the order it came, secrets redacted, the closing line and exit status."""

from __future__ import annotations

import json

from abductive_tasks.runs.status import STATUS_FILE, BatchStatus, ModelOutcome


def test_outcomes_are_written_in_order_with_secrets_redacted_and_the_close_counts_failures(tmp_path, capsys):
    status = BatchStatus(tmp_path, ("s3cr3t-value",))
    status.not_run("broken", "model_args holds s3cr3t-value twice")
    status.outcomes["a"] = ModelOutcome("done", {"nleye_pairs": "done", "mucr_c2e": "done (earlier run)"})
    status.outcomes["b"] = ModelOutcome("failed", {"dve_cls": "no results"}, "not done: dve_cls (no results)")
    assert status.close() == 1
    written = json.loads((tmp_path / STATUS_FILE).read_text())
    assert list(written) == ["broken", "a", "b"]
    assert written["broken"] == {"state": "failed", "error": "model_args holds [REDACTED] twice", "tasks": {}}
    assert written["a"] == {"state": "done", "tasks": {"nleye_pairs": "done", "mucr_c2e": "done (earlier run)"}}
    assert written["b"]["error"] == "not done: dve_cls (no results)"
    said = capsys.readouterr().out.splitlines()
    assert said[0] == "[batch] broken: not run: model_args holds s3cr3t-value twice"  # the console is redacted above
    assert said[-1] == "[batch] 1 of 3 models complete; failed: broken, b"


def test_a_batch_whose_models_are_all_done_closes_with_0(tmp_path, capsys):
    status = BatchStatus(tmp_path, ())
    status.outcomes["a"] = ModelOutcome("done", {})
    assert status.close() == 0
    assert capsys.readouterr().out == "[batch] 1 of 1 model complete\n"  # singular
    assert json.loads((tmp_path / STATUS_FILE).read_text()) == {"a": {"state": "done", "tasks": {}}}
