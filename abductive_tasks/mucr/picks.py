"""MuCR Exp on the model's own picks (Eq. 5): the effect and cue picks of an earlier run, read from its samples.

Eq. 5 conditions the explanation on {I_C, I_E^(i), T_P^(i)}, where I_E^(i) and T_P^(i) are "VLLMs' prediction
from potential effect images" and "... from potential cue phrases" (Eq. 1 and 3). lmms-eval builds every
task's requests before it runs any, so the picks come from an earlier run of the same model:
``ABDUCTIVE_MUCR_PICKS`` names the folder where that run wrote its samples (``--log_samples``), and
``mucr_exp`` reads ``*_samples_mucr_c2e.jsonl`` and ``*_samples_mucr_cue.jsonl`` below it. Every Exp task reads
the C2E and Cue tasks of its own form or strategy (:func:`pick_tasks`: ``mucr_exp_split`` reads the ``_split``
ones, ``mucr_exp_cot`` the ``_cot`` ones). Each samples line carries the document's record (``item_id``,
``gold_position``, ``prediction``: the option picked, None when the reply gave none).

What is read is checked by content: every record's ``gold_position`` must be where the documents built from
the data loaded now put the gold answer, so samples of other data (or of another candidate order) are
refused rather than explained.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from abductive_tasks import settings
from abductive_tasks.inputs.data import DataError, json_lines

PICKS_VARIABLE = "ABDUCTIVE_MUCR_PICKS"


@dataclass(frozen=True)
class Picks:
    """One earlier task's picks: item id -> (gold position, picked position or None when unreadable).

    An item of the data with no entry here has a missing pick (the earlier run did not ask it, e.g. ``--limit``).
    """

    task: str
    source: str
    by_item: dict[str, tuple[int, int | None]]

    def check_gold(self, gold_positions: dict[str, int]) -> None:
        """Refuse picks whose gold positions differ from the documents built now (other data or order)."""
        unknown = sorted(set(self.by_item) - set(gold_positions))
        if unknown:
            raise DataError(
                f"{self.source}: item ids {unknown[:5]} are not in the data loaded now; "
                f"the {self.task} samples come from other data"
            )
        differing = sorted(item for item, (gold, _) in self.by_item.items() if gold != gold_positions[item])
        if differing:
            raise DataError(
                f"{self.source}: the gold option of items {differing[:5]} differs from the {self.task} documents "
                "built from the data loaded now; the samples come from other data or another candidate order"
            )


def samples_file(folder: Path, task: str) -> Path:
    """The newest ``*_samples_<task>.jsonl`` below ``folder``; an error when there is none or when they lie in
    several folders (e.g. several models' runs)."""
    found = sorted(folder.rglob(f"*_samples_{task}.jsonl"))
    if not found:
        raise DataError(
            f"{PICKS_VARIABLE}={folder}: no samples of {task} (*_samples_{task}.jsonl) below it; "
            f"run {task} with --log_samples (same model, same data) first"
        )
    folders = sorted({str(path.parent) for path in found})
    if len(folders) > 1:
        raise DataError(
            f"{PICKS_VARIABLE}={folder}: samples of {task} in {len(folders)} folders ({', '.join(folders[:3])}); "
            "name the folder of the one run whose picks are to be explained"
        )
    newest = max(found, key=lambda path: path.name)  # lmms-eval's names start with the run's date and time
    if len(found) > 1:
        logger.info(f"{task} picks: {len(found)} samples files in {folders[0]}; reading the newest, {newest.name}")
    return newest


def read_picks(path: Path, task: str, metric: str) -> Picks:
    """The picks of one samples file, from the record under ``metric`` (every metric of a line holds it)."""
    by_item: dict[str, tuple[int, int | None]] = {}
    for number, line in json_lines(path):
        where = f"{path}, line {number}"
        value = line.get(metric)
        if not (isinstance(value, list) and len(value) == 2 and isinstance(value[1], dict)):
            raise DataError(f"{where}: no [{metric!r}, record] value; not a samples file of {task}")
        record = value[1]
        item, gold, picked = record.get("item_id"), record.get("gold_position"), record.get("prediction")
        if not isinstance(item, str) or not item:
            raise DataError(f"{where}: field 'item_id' is {item!r}, expected a non-empty string")
        if not isinstance(gold, int) or isinstance(gold, bool):
            raise DataError(f"{where}: field 'gold_position' is {gold!r}, expected an option number")
        if picked is not None and (not isinstance(picked, int) or isinstance(picked, bool)):
            raise DataError(f"{where}: field 'prediction' is {picked!r}, expected an option number or null")
        if item in by_item:
            raise DataError(f"{where}: item {item!r} appears twice")
        by_item[item] = (gold, picked)
    if not by_item:
        raise DataError(f"{path}: no samples")
    return Picks(task, str(path), by_item)


def pick_tasks(asking: str) -> tuple[str, str]:
    """The C2E and Cue tasks whose picks the Exp task ``asking`` explains: those with its suffix (form or strategy),
    e.g. ``mucr_exp_cot`` -> ``mucr_c2e_cot``, ``mucr_cue_cot``. CCoT's scene-graph stage ``mucr_exp_ccot_graph``
    asks the question its second stage asks, so it reads the second stage's picks (``_ccot``)."""
    if not asking.startswith("mucr_exp"):
        raise ValueError(f"{asking} is not a MuCR Exp task")
    suffix = asking.removeprefix("mucr_exp")
    suffix = "_ccot" if suffix == "_ccot_graph" else suffix
    return f"mucr_c2e{suffix}", f"mucr_cue{suffix}"


def load_own_picks(asking: str) -> tuple[Picks, Picks]:
    """The effect and cue picks the Exp task ``asking`` explains (:func:`pick_tasks`)."""
    c2e, cue = pick_tasks(asking)
    return load_picks(asking, c2e, "c2e_accuracy"), load_picks(asking, cue, "cue_accuracy")


def load_picks(asking: str, task: str, metric: str) -> Picks:
    """The picks of ``task`` below the folder ``ABDUCTIVE_MUCR_PICKS`` names, for the task ``asking``."""
    folder = settings.mucr_picks()
    if not folder:
        raise DataError(
            f"{asking} explains the model's own picks (Eq. 5) and needs "
            f"{PICKS_VARIABLE}=<folder> holding the same model's C2E and Cue samples ({task} ..., --log_samples); "
            "mucr_exp_gold asks with the gold effect and cue instead (an upper bound)"
        )
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise DataError(f"{PICKS_VARIABLE}={folder}: not a folder")
    return read_picks(samples_file(root, task), task, metric)
