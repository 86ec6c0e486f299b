"""REVIEW-2: export-sherlock's one-configuration check compares the data fingerprint with its ``source`` (the
ABDUCTIVE_DATA string as typed), so two runs on the very same data, named once by a relative and once by an
absolute path, are refused as "runs of another data". Fails on review-2's base (main 63cc1216)."""

from __future__ import annotations

from abductive_tasks.sherlock.export import samples_files

from helpers.runs import cli_done


def test_review2_export_accepts_runs_on_the_same_data_named_by_another_path(tmp_path, data_copy):
    out = tmp_path / "out"
    common = ["--model", "dumb_pixel", "--output_path", str(out), "--log_samples"]
    cli_done([*common, "--tasks", "sherlock_comparison_test"], {"ABDUCTIVE_DATA": "data"}, tmp_path)  # relative
    cli_done([*common, "--tasks", "sherlock_localization_test"], {"ABDUCTIVE_DATA": str(data_copy)}, tmp_path)
    (folder,) = [path for path in out.iterdir() if path.name.startswith("dumb_pixel-")]
    found = samples_files(folder)  # raises DataError "runs of another data" today: same bytes, other spelling
    assert set(found) == {"sherlock_comparison_test", "sherlock_localization_test"}
