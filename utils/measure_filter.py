"""The reader as an lmms-eval filter (``read_answer``) on public replies, beside lmms-eval's multiple-choice filter.

    python utils/measure_filter.py tests/scoring/public_replies/mathvista_mc.yaml [--show]

For each reader, over the replies against what a person reads in each (the file's ``reads``): agreement, silent
misreads (a valid option a person does not read), replies left unread, and replies with no answer read as an option.
lmms-eval's ``multi_choice_regex`` (``MultiChoiceRegexFilter``) is measured as lmms-eval ships it (its default
pattern) and as its tasks configure it (``regex_pattern: "(\\([A-Z]\\))"``, ``ignore_case``,
``ignore_punctuation``); an answer outside the options (``(E)`` of four) counts as unread for every reader.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from abductive_tasks import compat
from abductive_tasks.scoring.answer_filter import ReadAnswer

# lmms-eval's filter as its tasks configure it (illusionvqa, metavqa, ...), and with its defaults
LMMS_EVAL_SETTINGS = {
    "multi_choice_regex (as tasks configure it)": {
        "regex_pattern": r"(\([A-Z]\))",
        "group_select": 0,
        "ignore_case": True,
        "ignore_punctuation": True,
    },
    "multi_choice_regex (defaults)": {},
}


def replies(path: Path) -> list[dict]:
    """Every reply of the file with its question's options: model, response, choices, reads."""
    items = yaml.safe_load(path.read_text(encoding="utf-8"))["items"]
    return [reply | {"choices": item["choices"]} for item in items for reply in item["replies"]]


def _letter(value: str, options: int) -> str | None:
    """An option letter from a filter's output ("(B)", "B"), None for anything else."""
    letter = value.strip().strip("()").strip()
    return letter if len(letter) == 1 and "A" <= letter < chr(ord("A") + options) else None


def measure(path: Path) -> dict[str, dict]:
    """Agreement, silent misreads, unread replies and no-answer replies read as a value, per reader."""
    rows = replies(path)
    readers = {"ours": ReadAnswer()} | {
        name: compat.multi_choice_regex_filter(**kw) for name, kw in LMMS_EVAL_SETTINGS.items()
    }
    figures = {}
    for name, reader in readers.items():
        # one call for every reply, as lmms-eval applies a filter to a whole task
        found = reader.apply([[row["response"]] for row in rows], [{"choices": row["choices"]} for row in rows])
        read = [_letter(replies[0], len(row["choices"])) for replies, row in zip(found, rows, strict=True)]
        figures[name] = {
            "replies": len(rows),
            "agree": sum(got == row["reads"] for got, row in zip(read, rows, strict=True)),
            "silent": sum(got is not None and got != row["reads"] for got, row in zip(read, rows, strict=True)),
            "unread": sum(got is None and row["reads"] is not None for got, row in zip(read, rows, strict=True)),
            "no_answer": sum(row["reads"] is None for row in rows),
            "no_answer_read": sum(
                got is not None and row["reads"] is None for got, row in zip(read, rows, strict=True)
            ),
            "read": read,
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replies", type=Path)
    parser.add_argument("--show", action="store_true", help="list every reply a reader reads otherwise than a person")
    args = parser.parse_args()
    figures, rows = measure(args.replies), replies(args.replies)
    for name, found in figures.items():
        print(
            f"{name}: agreement {found['agree']}/{found['replies']} = {found['agree'] / found['replies']:.1%}; "
            f"silent misreads {found['silent']}; unread {found['unread']}; "
            f"no-answer read as a value {found['no_answer_read']} of {found['no_answer']}"
        )
        if args.show:
            for got, row in zip(found["read"], rows, strict=True):
                if got != row["reads"]:
                    flag = "SILENT" if got is not None else "unread"
                    print(
                        f"  [{row['model']}] {flag} person={row['reads']!r} read={got!r} <- {row['response'][:160]!r}"
                    )


if __name__ == "__main__":
    main()
