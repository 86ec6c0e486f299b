"""NL-Eye data: the official layout, its columns, and the loader.

Layout (official, Hugging Face dataset ``MorVentura/NL-Eye``): ``test_set.csv`` and
``images/<sample_id>/{premise,hypothesis1,hypothesis2}.png``; one item per row.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.inputs.images import check_image
from abductive_tasks.inputs.loading import (
    DataError,
    Loaded,
    PathsInside,
    benchmark_root,
    documents,
    read_csv,
    resolve_columns,
)

BENCHMARK = "nleye"
HUB_REPO = "MorVentura/NL-Eye"
CSV_NAME = "test_set.csv"
IMAGE_NAMES = ("premise.png", "hypothesis1.png", "hypothesis2.png")
COLUMNS_VARIABLE = "ABDUCTIVE_NLEYE_COLUMNS"

# Canonical field -> accepted CSV column names, in order of preference. The dataset card
# documents the first five; the names of the label, description and explanation columns
# could not be verified offline, so every plausible spelling is accepted, and
# ABDUCTIVE_NLEYE_COLUMNS=field=column,... names the column for a field (see the README).
COLUMNS: dict[str, tuple[str, ...]] = {
    "sample_id": ("sample_id",),
    "reasoning_category": ("reasoning_category",),
    "domain": ("domain",),
    "time_direction": ("time_direction",),
    "time_duration": ("time_duration",),
    "gold_label": ("gold_label", "label", "gold", "answer", "plausible_hypothesis", "correct_hypothesis"),
    "premise_description": ("premise_description", "premise", "premise_text", "premise_desc"),
    "hypothesis1_description": (
        "hypothesis1_description",
        "hypothesis1",
        "hypothesis_1",
        "hypothesis1_text",
        "hypothesis_1_description",
    ),
    "hypothesis2_description": (
        "hypothesis2_description",
        "hypothesis2",
        "hypothesis_2",
        "hypothesis2_text",
        "hypothesis_2_description",
    ),
    "gold_explanation": ("gold_explanation", "explanation", "gold_explanations"),
    # §4.2: the crowd-written explanations approved in the human evaluation, extra references for the judge. No
    # column of the release is known to hold them (docs/benchmarks/nleye.md, "Crowd explanations"); a copy that has
    # them names its column here or with ABDUCTIVE_NLEYE_COLUMNS. A cell is one explanation or a JSON list of them.
    "crowd_explanations": ("crowd_explanations", "approved_explanations", "human_explanations"),
}
REQUIRED = {"sample_id", "reasoning_category", "domain", "time_direction", "time_duration", "gold_label"}
DESCRIPTIONS = ("premise_description", "hypothesis1_description", "hypothesis2_description")

REASONING_CATEGORIES = {"physical", "functional", "logical", "emotional", "cultural", "social"}  # §2.2
TIME_DIRECTIONS = {"forward", "backward", "parallel"}  # §2.2
GOLD_LABELS = {
    "1": 1,
    "2": 2,
    "hypothesis1": 1,
    "hypothesis2": 2,
    "hypothesis 1": 1,
    "hypothesis 2": 2,
    "h1": 1,
    "h2": 2,
}
NO_DURATION = "unspecified"  # parallel items carry no duration (§2.2)
TIME_DURATIONS = {
    "short-term": "short-term",
    "long-term": "long-term",
    "short": "short-term",
    "long": "long-term",
    "": NO_DURATION,
}  # §2.2 ("short-term", "long-term"; §1 "short or long"), spaces and underscores read as "-"


def crowd_explanations(cell: str) -> list[str] | None:
    """The explanations of a ``crowd_explanations`` cell: none when empty, a JSON list of strings when it starts with
    ``[`` (None if it is not one), else the cell as one explanation."""
    if not cell:
        return []
    if not cell.startswith("["):
        return [cell]
    try:
        values = json.loads(cell)
    except ValueError:
        return None
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        return None
    return [value.strip() for value in values if value.strip()]


def column_overrides() -> tuple[tuple[str, str], ...]:
    """The (field, column) pairs ``ABDUCTIVE_NLEYE_COLUMNS`` names, checked against ``COLUMNS``."""
    try:
        overrides = settings.nleye_columns()
    except ValueError as error:
        raise DataError(str(error)) from None
    unknown = sorted(set(overrides) - set(COLUMNS))
    if unknown:
        raise DataError(f"{COLUMNS_VARIABLE}: unknown field(s) {unknown}; fields: {sorted(COLUMNS)}")
    return tuple(sorted(overrides.items()))


def load_selected() -> Loaded:
    """The items of the data source ``ABDUCTIVE_DATA`` selects."""
    return load(benchmark_root(BENCHMARK, HUB_REPO), column_overrides())


@functools.cache
def load(root: Path, column_overrides: tuple[tuple[str, str], ...] = ()) -> Loaded:
    """Read and validate ``test_set.csv`` and every image under ``root`` (once per run and column mapping;
    ``column_overrides`` map a field to exactly one column, see :func:`column_overrides`).

    One item per row: ``item_id``, ``gold`` (1 or 2), the categories, the three image paths (each resolved inside
    ``root/images``, which may be a link, and checked by ``images.check_image``), the descriptions (None unless all
    three are present) and the gold explanation.
    """
    csv_path = root / CSV_NAME
    header, rows = read_csv(csv_path)
    absent = [f"{field}={column}" for field, column in column_overrides if column not in header]
    if absent:
        raise DataError(
            f"{csv_path}: {COLUMNS_VARIABLE} names column(s) the file lacks: {absent}. Columns present: {list(header)}"
        )
    candidates = COLUMNS | {field: (column,) for field, column in column_overrides}
    columns = resolve_columns(
        header, candidates, REQUIRED, csv_path, hint=f"name a column with {COLUMNS_VARIABLE}=<field>=<column>,..."
    )
    items, inside = [], PathsInside(root / "images")  # the folder the layout names: it may be a link
    seen: dict[str, int] = {}
    for line, row in rows:
        field = {name: (row[column] or "").strip() for name, column in columns.items()}

        def fail(name: str, problem: str, line: int = line) -> DataError:
            return DataError(f"{csv_path}, line {line}, field '{columns.get(name, name)}': {problem}")

        sample_id = field["sample_id"]
        if not sample_id:
            raise fail("sample_id", "empty sample id")
        if sample_id in seen:
            raise fail("sample_id", f"duplicate sample id '{sample_id}' (first on line {seen[sample_id]})")
        seen[sample_id] = line
        gold = GOLD_LABELS.get(field["gold_label"].lower())
        if gold is None:
            raise fail("gold_label", f"unknown label '{field['gold_label']}', expected one of {sorted(GOLD_LABELS)}")
        category = field["reasoning_category"].lower()
        if category not in REASONING_CATEGORIES:
            raise fail(
                "reasoning_category", f"unknown category '{category}', expected one of {sorted(REASONING_CATEGORIES)}"
            )
        direction = field["time_direction"].lower()
        if direction not in TIME_DIRECTIONS:
            raise fail("time_direction", f"unknown direction '{direction}', expected one of {sorted(TIME_DIRECTIONS)}")
        duration = TIME_DURATIONS.get(field["time_duration"].lower().replace(" ", "-").replace("_", "-"))
        if duration is None:
            raise fail(
                "time_duration",
                f"unknown duration '{field['time_duration']}', expected short-term, long-term or empty (none)",
            )
        crowd = crowd_explanations(field.get("crowd_explanations", ""))
        if crowd is None:
            raise fail("crowd_explanations", "expected one explanation or a JSON list of strings")
        where = f"{csv_path}, line {line}, field '{columns['sample_id']}'"
        images = [check_image(inside(f"{sample_id}/{name}", where), where) for name in IMAGE_NAMES]
        items.append(
            {
                "item_id": sample_id,
                "gold": gold,
                "reasoning_category": category,
                "domain": field["domain"],
                "time_direction": direction,
                "time_duration": duration,
                "premise_image": images[0],
                "hypothesis_images": images[1:],
                "descriptions": [field[name] for name in DESCRIPTIONS]
                if all(field.get(name) for name in DESCRIPTIONS)
                else None,
                "gold_explanation": field.get("gold_explanation", ""),
                "crowd_explanations": crowd,
            }
        )
    if not items:
        raise DataError(f"{csv_path}: no rows")
    return Loaded(str(csv_path), documents(items))
