"""Every Sherlock test starts from an empty loader cache (tests rewrite copies of the sample data)."""

import pytest

from abductive_tasks.sherlock import clues, data


@pytest.fixture(autouse=True)
def fresh_loader():
    data.load.cache_clear()
    data.factored_chunks.cache_clear()
    clues.val_clues.cache_clear()
    yield
    data.load.cache_clear()
    data.factored_chunks.cache_clear()
    clues.val_clues.cache_clear()
