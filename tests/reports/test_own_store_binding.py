"""Whether a stored stage output's binding names a row's model (runs.identity.bound_to_model): the lmms-eval
arguments either run had do not count, the backend, model_args and weights do; local weights count by content, which
a binding does not hold, so only the binding's key tells them."""

from __future__ import annotations

from pathlib import Path

from abductive_tasks.runs.chain import binding
from abductive_tasks.runs.identity import bound_to_model, build_identity


def _identity(backend: str, model_args: str, eval_args: list[str], vllm: dict | None = None) -> dict:
    model = {"route": "served" if vllm else "lmms", "backend": backend, "vllm": vllm}
    return build_identity(
        model=model, model_args=model_args, eval_args=eval_args, env={}, environment={}, judge=None, tasks={}, data={}
    )


def _bound(identity: dict) -> dict:
    return {key: value for key, value in binding("m", identity, None, "t").items() if key != "task_key"}


def test_a_binding_of_the_same_model_with_other_lmms_eval_arguments_is_the_rows():
    row = _identity("dumb_pixel", "", [])
    assert bound_to_model(_bound(_identity("dumb_pixel", "", ["--batch_size", "1", "--seed", "0"])), row)
    hub = "pretrained=org/model,revision=main"
    assert bound_to_model(_bound(_identity("llava", hub, ["--batch_size", "4"])), _identity("llava", hub, []))


def test_a_binding_of_another_backend_arguments_or_served_weights_is_not_the_rows():
    row = _identity("dumb_pixel", "", [])
    assert not bound_to_model(_bound(_identity("random_baseline", "", [])), row)
    assert not bound_to_model(_bound(_identity("dumb_pixel", "seed=1", [])), row)
    served = _identity("openai", "model_version=alias", [], {"model": "org/a"})
    other = _identity("openai", "model_version=alias", ["--seed", "1"], {"model": "org/b"})
    assert not bound_to_model(_bound(other), served)  # the alias names no weights: only the key could tell


def test_local_weights_are_told_by_the_key_alone(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    weights = tmp_path / "weights"
    weights.mkdir()
    (weights / "model.bin").write_bytes(b"one")
    args = f"pretrained={weights}"
    row = _identity("llava", args, [])
    assert bound_to_model(_bound(_identity("llava", args, [])), row)
    assert not bound_to_model(_bound(_identity("llava", args, ["--batch_size", "1"])), row)
