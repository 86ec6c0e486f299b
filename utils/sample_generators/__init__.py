"""The generators of the sample data shipped in ``abductive_tasks/sample_data``: one module per benchmark, each
writing that benchmark's official on-disk layout with small Pillow drawings, byte-for-byte reproducibly.

Development tools, not part of the installed package: ``utils/make_sample_data.py`` runs them, and
``tests/test_sample_data.py`` checks that they still write exactly the shipped files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sample_generators.dve import make_dve
from sample_generators.mucr import make_mucr
from sample_generators.nleye import make_nleye
from sample_generators.sherlock import make_sherlock

GENERATORS: dict[str, Callable[[Path], None]] = {
    "nleye": make_nleye,
    "dve": make_dve,
    "mucr": make_mucr,
    "sherlock": make_sherlock,
}
