"""Fixtures of the MuCR tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from abductive_tasks.mucr import data


@pytest.fixture
def sample(tmp_path, monkeypatch) -> Iterator[Path]:
    """The embedded sample with a cache of this test's own, no run or stage inputs inherited from the environment,
    and MuCR's pairs read afresh (before and after)."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ABDUCTIVE_RUN", raising=False)
    monkeypatch.delenv("ABDUCTIVE_STAGE_INPUTS", raising=False)
    data.clear_cache()
    yield tmp_path
    data.clear_cache()
