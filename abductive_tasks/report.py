"""A compact view of an lmms-eval results dict: one row per metric, breakdowns expanded."""

from __future__ import annotations


def _format(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return "N/A" if value is None else str(value)


def summary_table(results: dict) -> str:
    """Markdown table of every task's metrics; a breakdown ``{label: {"acc", "n"}}`` becomes one row per label
    (one per named value for breakdowns with several)."""
    rows = ["| task | metric | value | n |", "|---|---|---:|---:|"]
    for task, metrics in sorted(results.items()):
        for key, value in sorted(metrics.items()):
            name, _, _filter = key.partition(",")
            if not _filter or "_stderr" in name:
                continue
            if isinstance(value, dict):
                for label, cell in value.items():  # {"acc", "n", ...} per label, or a flat dict of counts
                    if not isinstance(cell, dict):
                        rows.append(f"| {task} | {name}.{label} | {_format(cell)} | |")
                        continue
                    rows += [f"| {task} | {name}[{label}]{'' if key == 'acc' else '.' + key} | {_format(cell[key])} | {cell.get('n', '')} |" for key in cell if key != "n"]
            else:
                rows.append(f"| {task} | {name} | {_format(value)} | |")
    return "\n".join(rows)
