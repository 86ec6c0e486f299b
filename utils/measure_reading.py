"""First-contact figures of the answer reader on a batch of replies (the blind protocol, tests/shared/PROTOCOL.md).

    python utils/measure_reading.py tests/shared/blind_batch_e.yaml [--show]
    python utils/measure_reading.py --record tests/scoring/pinned_readings.yaml \
        tests/shared/*.yaml tests/shared/pending/*.yaml

Prints agreement with a person overall and on hard replies, and silent misreads: replies the reader
turns into a value a person does not read (a different value, or a value where a person reads none).
``--record`` writes every disagreement of the batches to the file the corpus test pins them with
(tests/scoring/test_answer_corpus.py), after a change to reading that moved them on purpose.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import yaml

from abductive_tasks.scoring.parsing import answer_kind

RECORD_HEADER = (
    "# Every reply of tests/shared/ that the reader reads otherwise than a person, by batch (person: what a person\n"
    "# reads; reader: what the reader reads). tests/scoring/test_answer_corpus.py fails on any change. Written by\n"
    "# python utils/measure_reading.py --record tests/scoring/pinned_readings.yaml tests/shared/*.yaml "
    "tests/shared/pending/*.yaml\n"
)


def measure(path: Path) -> dict:
    """Agreement, hard agreement and silent misreads of the reader on the batch at ``path``."""
    groups = yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]
    rows = []
    for group in groups:
        kind = answer_kind(group["kind"], group["params"], group.get("prompt", ""))
        for case in group["cases"]:
            read = kind.read(case["answer"])
            rows.append((group["name"], case["answer"], case["reads"], read, bool(case.get("hard"))))
    total = len(rows)
    hard = [row for row in rows if row[4]]
    agree = sum(row[2] == row[3] for row in rows)
    silent = [row for row in rows if row[3] is not None and row[3] != row[2]]
    return {
        "cases": total,
        "agreement": agree / total,
        "agree": agree,
        "hard": len(hard),
        "hard_agreement": sum(row[2] == row[3] for row in hard) / max(len(hard), 1),
        "silent": len(silent),
        "silent_rate": len(silent) / total,
        "rows": rows,
    }


def disagreements(rows: list[tuple]) -> list[dict]:
    """The rows the reader reads otherwise than a person, as the record lists them."""
    return [
        {"group": group, "answer": answer, "person": person, "reader": read}
        for group, answer, person, read, _ in rows
        if person != read
    ]


def record(target: Path, batches: list[Path]) -> None:
    """Write the disagreements of ``batches`` to ``target`` (atomically), keyed by batch file name."""
    names = [batch.name for batch in batches]
    if len(set(names)) != len(names):
        raise SystemExit(f"measure_reading: two batches share a file name in {names}")
    content = {batch.name: disagreements(measure(batch)["rows"]) for batch in batches}
    text = RECORD_HEADER + yaml.safe_dump(content, allow_unicode=True, sort_keys=False, width=120)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, delete=False, suffix=".tmp") as file:
        file.write(text)
    os.replace(file.name, target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("batch", type=Path, nargs="+")
    parser.add_argument("--show", action="store_true", help="list every disagreement")
    parser.add_argument("--record", type=Path, metavar="FILE", help="write every disagreement of the batches to FILE")
    args = parser.parse_args()
    if args.record is not None:
        record(args.record, args.batch)
        print(f"recorded the disagreements of {len(args.batch)} batches in {args.record}")
        return
    for batch in args.batch:
        result = measure(batch)
        print(
            f"{batch.name}: agreement {result['agree']}/{result['cases']} = {result['agreement']:.1%}; "
            f"hard {result['hard_agreement']:.1%} of {result['hard']}; "
            f"silent misreads {result['silent']} = {result['silent_rate']:.1%}"
        )
        if args.show:
            for group, answer, person, read, hard in result["rows"]:
                if person != read:
                    flag = "SILENT" if read is not None else "unread"
                    print(
                        f"  [{group}{' hard' if hard else ''}] {flag} person={person!r} reader={read!r} <- {answer!r}"
                    )


if __name__ == "__main__":
    main()
