"""Units a run left out of a task's scores, as its ``<prefix>_counts`` diagnostics say: readable from a results
file without importing a task (``show``, the leaderboard)."""

from __future__ import annotations

from collections.abc import Mapping

# Diagnostics counting units a task's data had but its run left out (not scored, not in the interval's units):
# a run with any is partial, as a limited one is.
DROPPED_COUNTS = {
    "items_without_descriptions": "items without descriptions",  # NL-Eye described: no stored description
    "items_without_picks": "items without picks",  # MuCR Exp (Eq. 5): beyond the --limit of the picks' run
    "items_without_scene_graph": "items without scene graphs",  # MuCR CCoT stage 2: no stored graph
}


def dropped_in(counts: Mapping) -> dict[str, int]:
    """The units one ``<prefix>_counts`` dict says were left out (:data:`DROPPED_COUNTS`), by what left them out."""
    return {
        label: count
        for key, label in DROPPED_COUNTS.items()
        if isinstance(count := counts.get(key), int) and not isinstance(count, bool) and count > 0
    }


def dropped_units(task_results: Mapping) -> dict[str, int]:
    """The units a task's results say were left out (from its ``<prefix>_counts``); {} for a run that covered all."""
    found: dict[str, int] = {}
    for name, value in task_results.items():
        if name.endswith("_counts,none") and isinstance(value, Mapping):
            found |= dropped_in(value)
    return found
