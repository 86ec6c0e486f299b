"""The sample data shipped in the package is exactly what its generators (``utils/sample_generators``) write."""

from __future__ import annotations

from pathlib import Path

import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT

from sample_generators import GENERATORS


def files(root: Path) -> dict[Path, bytes]:
    return {path.relative_to(root): path.read_bytes() for path in root.rglob("*") if path.is_file()}


@pytest.mark.parametrize("benchmark", sorted(GENERATORS))
def test_the_shipped_sample_regenerates_byte_for_byte(tmp_path, benchmark):
    GENERATORS[benchmark](tmp_path)
    written, shipped = files(tmp_path), files(SAMPLE_ROOT / benchmark)
    assert sorted(written) == sorted(shipped)
    assert [name for name in sorted(written) if written[name] != shipped[name]] == []
