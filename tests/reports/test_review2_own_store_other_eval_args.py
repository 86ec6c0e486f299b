"""REVIEW-2: the leaderboard's own-store decision (commit d7e7b0e6, review 1 F2: cells._read_from)
compares each stored entry's binding key with the row's model_key, which hashes the lmms-eval arguments too. A
row's own describer run made with any other lmms-eval option (``--batch_size 1`` or ``--seed 0``, both lmms-eval's
defaults) is then shown as another model's store, ``(descriptions: dp (ABDUCTIVE_NLEYE_DESCRIPTIONS, by
dumb_pixel))`` on the dumb_pixel row itself, and the row is left out of the ranking and average. Fails on review-2's
base (main 63cc1216)."""

from __future__ import annotations

from helpers.runs import cli_done


def test_review2_a_rows_own_describer_run_with_another_batch_size_is_its_own(tmp_path, monkeypatch):
    from abductive_tasks.reports.leaderboard.cells import collect

    env = {"ABDUCTIVE_DATA": "sample", "ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    describe = ["--model", "dumb_pixel", "--tasks", "nleye_describe", "--batch_size", "1"]
    cli_done(describe, {**env, "ABDUCTIVE_NLEYE_DESCRIBER": "dp"}, tmp_path)
    (tmp_path / "spec.yaml").write_text(
        "output_dir: out\ntasks: [nleye_triplet_described]\nenv: {ABDUCTIVE_DATA: sample}\n"
        "models:\n  - {name: dp, backend: dumb_pixel, env: {ABDUCTIVE_NLEYE_DESCRIPTIONS: dp}}\n"
    )
    cli_done(["batch", "spec.yaml"], env, tmp_path)
    monkeypatch.setenv("ABDUCTIVE_CACHE", env["ABDUCTIVE_CACHE"])
    board = collect(tmp_path / "out")
    assert board.value("dp", "nleye_triplet_described") is not None
    assert board.read_from("dp", "nleye_triplet_described") == {}  # today: "dp (..., by dumb_pixel)"
    assert board.main_protocol("dp", "nleye_triplet_described")
