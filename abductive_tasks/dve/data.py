"""DVE data: the official layout, its columns, and the loader.

Official release: GitHub ``skywalkerzhang/Defeasible_Visual_Entailment``, ``Data/DVE_{train,dev,test}.csv``
(or ``cleaned_<split>.jsonl``), images from Flickr30k. Local layout under ``ABDUCTIVE_DATA``:
``dve/DVE_<split>.csv`` and ``dve/flickr30k-images/<file>``. One item per usable row (an update).

Checked against the released ``DVE_{dev,test}.csv`` and ``cleaned_{dev,test}.jsonl``:
rows marked ``UpdateTypeImpossible=True`` carry an empty update and are left out and counted
(test 135, dev 103); the same update written by two annotators for the same pair and type is
kept and counted as ``duplicate_updates`` (test 4, dev 1); free text holds commas, quotes and
curly quotes. Only what makes a score meaningless stops loading: a missing column, a label that is
not one of the two update types, an unreadable image or a path leaving the image folder.
"""

from __future__ import annotations

import functools
from pathlib import Path

from abductive_tasks.inputs.images import check_image
from abductive_tasks.inputs.loading import (
    SAMPLE_ROOT,
    DataError,
    Loaded,
    PathsInside,
    benchmark_root,
    documents,
    json_lines,
    read_csv,
    reading,
    resolve_columns,
)

BENCHMARK = "dve"
OFFICIAL_REPO = "https://github.com/skywalkerzhang/Defeasible_Visual_Entailment"
SPLITS = ("test", "dev", "train")  # Table 1: test, validation (released as "dev"), train
IMAGE_DIR = "flickr30k-images"
# The official header, exactly.
HEADER = (
    "DataSource",
    "AssignmentIdAnon",
    "WorkerIdAnon",
    "Premise",
    "Hypothesis",
    "SNLIPairId",
    "Update",
    "UpdateType",
    "UpdateTypeImpossible",
    "UpdateTypeImpossibleReason",
)
REQUIRED = {"Premise", "Hypothesis", "SNLIPairId", "Update", "UpdateType", "UpdateTypeImpossible"}
UPDATE_TYPES = ("strengthener", "weakener")  # Task Definition: s and w
BOOLEANS = {"true": True, "false": False}
IMPOSSIBLE = "impossible"  # the key of Loaded.excluded for rows marked UpdateTypeImpossible
EMPTY_TEXT = "empty_text"  # the key of Loaded.excluded for unmarked rows without a premise, hypothesis or update
DUPLICATES = "duplicate_updates"  # the key of Loaded.quirks: kept rows repeating an earlier update
LOAD_COUNTS = ("impossible_excluded", "empty_text_excluded", "duplicate_updates")  # see load_counts
# An empty cell as pandas writes it back: ``astype(str)`` under pandas 2 turns NaN into "nan" (pandas 3 keeps NaN).
EMPTY_CELLS = {"", "nan"}


def data_root() -> Path:
    """The ``dve`` folder ``ABDUCTIVE_DATA`` selects; the official release is on GitHub, not on the hub."""
    return benchmark_root(
        BENCHMARK,
        hub_repo=None,
        how_to_get=(
            f"Download Data/DVE_test.csv (and DVE_dev.csv, DVE_train.csv) from {OFFICIAL_REPO} and the Flickr30k "
            "images (request form: https://forms.illinois.edu/sec/229675), laid out as <root>/dve/DVE_test.csv and "
            f"<root>/dve/{IMAGE_DIR}/<image>.jpg."
        ),
    )


def load_selected(split: str = "test") -> Loaded:
    """The items of ``split`` in the data source ``ABDUCTIVE_DATA`` selects."""
    return load(data_root(), split)


def split_file(root: Path, split: str) -> Path:
    """``DVE_<split>.csv``, or ``cleaned_<split>.jsonl`` where only that exists."""
    if split not in SPLITS:
        raise ValueError(f"DVE split '{split}': expected one of {list(SPLITS)}")
    csv_path, jsonl_path = root / f"DVE_{split}.csv", root / f"cleaned_{split}.jsonl"
    if csv_path.is_file() or not jsonl_path.is_file():
        if not csv_path.is_file():
            sample = (
                " The embedded sample (ABDUCTIVE_DATA=sample) holds the test split only."
                if root == SAMPLE_ROOT / BENCHMARK
                else ""
            )
            raise DataError(
                f"data file not found: {csv_path} (nor {jsonl_path.name}); the official file is "
                f"Data/DVE_{split}.csv in {OFFICIAL_REPO}.{sample}"
            )
        return csv_path
    return jsonl_path


def _cell(value: object, path: Path, line: int, key: str) -> str:
    """A JSON value as the CSV would hold it: null and NaN empty, booleans ``True``/``False``; no lists or objects."""
    if value is None or value != value:
        return ""
    if isinstance(value, list | dict):
        raise DataError(f"{path}, line {line}, field '{key}': expected text, found a JSON {type(value).__name__}")
    return str(value)


def read_jsonl(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and ``(line number, row)`` pairs of ``cleaned_<split>.jsonl``, cells as strings."""
    with reading(path):
        rows = [
            (line, {key: _cell(value, path, line, key) for key, value in record.items()})
            for line, record in json_lines(path)
        ]
    return sorted({key for _, row in rows for key in row}), rows


@functools.cache
def load(root: Path, split: str = "test") -> Loaded:
    """Read and validate ``split`` under ``root`` and its images (once per run and split).

    One item per usable row: ``line``, ``pair_id`` (the premise-hypothesis pair, see
    :func:`_pair_ids`), ``image_path`` (resolved inside ``root/flickr30k-images`` and checked, ``images.check_image``),
    ``premise``, ``hypothesis``, ``update``, ``update_type``. ``excluded`` counts the rows marked
    ``UpdateTypeImpossible`` (``impossible``) and the unmarked rows without a premise, hypothesis or update
    (``empty_text``; a cell read as ``nan`` is empty); ``quirks["duplicate_updates"]`` counts kept
    rows whose pair, type and update text (surrounding whitespace stripped) repeat an earlier row.
    """
    path = split_file(root, split)
    header, raw_rows = read_jsonl(path) if path.suffix == ".jsonl" else read_csv(path)
    columns = resolve_columns(header, {name: (name,) for name in HEADER}, REQUIRED, path)
    images_inside = PathsInside(root / IMAGE_DIR)
    checked: dict[str, str] = {}
    first_seen: dict[tuple[str, ...], int] = {}
    rows, impossible, empty, duplicates = [], 0, 0, 0
    for line, raw in raw_rows:
        field = {name: (raw.get(column) or "").strip() for name, column in columns.items()}

        def fail(name: str, problem: str, line: int = line) -> DataError:
            return DataError(f"{path}, line {line}, field '{name}': {problem}")

        flag = BOOLEANS.get(field["UpdateTypeImpossible"].lower())
        if flag is None:
            raise fail("UpdateTypeImpossible", f"expected True or False, found '{field['UpdateTypeImpossible']}'")
        update_type = field["UpdateType"].lower()
        if update_type not in UPDATE_TYPES:
            raise fail(
                "UpdateType", f"unknown update type '{field['UpdateType']}', expected one of {list(UPDATE_TYPES)}"
            )
        if flag:
            impossible += 1
            continue
        if any(field[name].lower() in EMPTY_CELLS for name in ("Premise", "Hypothesis", "Update")):
            empty += 1
            continue
        image_file, hash_sign, _caption = field["SNLIPairId"].partition("#")
        if not hash_sign or not image_file:
            raise fail("SNLIPairId", f"expected '<image file>#<caption index><label>', found '{field['SNLIPairId']}'")
        key = (field["SNLIPairId"], field["Premise"], field["Hypothesis"], update_type, field["Update"])
        duplicates += key in first_seen  # two annotators wrote the same update: both rows are data
        first_seen.setdefault(key, line)
        if image_file not in checked:
            where = f"{path}, line {line}, field 'SNLIPairId'"
            checked[image_file] = check_image(images_inside(image_file, where), where)
        rows.append(
            {
                "line": line,
                "pair_key": key[:3],
                "image_path": checked[image_file],
                "premise": field["Premise"],
                "hypothesis": field["Hypothesis"],
                "update": field["Update"],
                "update_type": update_type,
            }
        )
    if not rows:
        raise DataError(
            f"{path}: no usable rows ({impossible} marked UpdateTypeImpossible, {empty} with an empty text)"
        )
    return Loaded(
        str(path),
        documents(_pair_ids(rows)),
        excluded={IMPOSSIBLE: impossible, EMPTY_TEXT: empty},
        quirks={DUPLICATES: duplicates},
    )


def load_counts(loaded: Loaded) -> dict[str, int]:
    """The loader's figures every document and record carries into ``<prefix>_counts`` (:data:`LOAD_COUNTS`)."""
    return {
        "impossible_excluded": loaded.excluded[IMPOSSIBLE],
        "empty_text_excluded": loaded.excluded[EMPTY_TEXT],
        "duplicate_updates": loaded.quirks[DUPLICATES],
    }


def _pair_ids(rows: list[dict]) -> list[dict]:
    """Name each premise-hypothesis pair by its SNLIPairId (``/2``, ``/3`` ... if the id recurs with other texts)."""
    names: dict[tuple, str] = {}
    per_id: dict[str, int] = {}
    for row in rows:
        key = row.pop("pair_key")
        if key not in names:
            per_id[key[0]] = per_id.get(key[0], 0) + 1
            names[key] = key[0] if per_id[key[0]] == 1 else f"{key[0]}/{per_id[key[0]]}"
        row["pair_id"] = names[key]
    return rows
