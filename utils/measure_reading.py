"""First-contact figures of the answer reader on a batch of replies (the blind protocol, tests/shared/PROTOCOL.md).

    python utils/measure_reading.py tests/shared/blind_batch_e.yaml [--show]
    python utils/measure_reading.py --record tests/scoring/pinned_readings.yaml \
        tests/shared/*.yaml tests/shared/pending/*.yaml
    python utils/measure_reading.py --readings tests/scoring/corpus_readings.jsonl \
        tests/shared/*.yaml tests/shared/pending/*.yaml

What a person reads is the batch's ``reads``, except where blind adjudication replaced a writer's reading
(tests/shared/adjudication/readings.yaml: every annotator of both rounds read one same other value); the batches
stay as written.

Prints agreement with a person overall, on hard replies and on the others (realistic), silent misreads: replies the
reader turns into a value a person does not read (a different value, or a value where a person reads none), and how
many replies with no answer it reads as a value.
``--record`` writes every disagreement of the batches to the file the corpus test pins them with
(tests/scoring/test_answer_corpus.py), after a change to reading that moved them on purpose.
``--readings`` writes every reply's reading and status (read, unread, request_failed), which
tests/scoring/test_answer_corpus.py checks every reply against: a change of code that moves no reading on
purpose (a refactoring) keeps them all.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

import yaml

from abductive_tasks.scoring.reading import AnswerKind, Choice, Score, answer_kind, is_request_failure

ADJUDICATION = Path(__file__).resolve().parents[1] / "tests" / "shared" / "adjudication" / "readings.yaml"
RECORD_HEADER = (
    "# Every reply of tests/shared/ that the reader reads otherwise than a person, by batch (person: what a person\n"
    "# reads; reader: what the reader reads). tests/scoring/test_answer_corpus.py fails on any change. Written by\n"
    "# python utils/measure_reading.py --record tests/scoring/pinned_readings.yaml tests/shared/*.yaml "
    "tests/shared/pending/*.yaml\n"
)


def load_yaml(path: Path) -> dict:
    """A batch or record file's content, parsed with libyaml where PyYAML has it (the corpus is 2.6 MB of YAML that the
    corpus test reads several times: about ten times faster than the pure-Python parser, to the same values)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@functools.cache
def _adjudication() -> list[dict]:
    """The entries of the blind adjudication's file, read once a process (nothing here writes it)."""
    return load_yaml(ADJUDICATION)["replies"]


def answer_digest(answer: str) -> str:
    """A reply's text, by content (so that an edited reply is noticed, not read against another's reading)."""
    return hashlib.sha256(answer.encode("utf-8")).hexdigest()[:10]


def adjudicated(batch: str) -> dict[tuple[str, int, str], object]:
    """The readings blind adjudication gives a person for replies of the batch file named ``batch``, keyed by
    (group, position, digest): a disputed reply's, where every annotator of every round read one same value other
    than its writer's."""
    found = {}
    for entry in _adjudication():
        reply, readings = entry["reply"], entry["readings"]
        if reply["batch"] == batch and entry["disputed"] and len(set(map(repr, readings))) == 1:
            if readings[0] != entry["writer"]:
                found[(reply["group"], reply["index"], reply["digest"])] = readings[0]
    return found


def outside_the_scale(kind: AnswerKind, reading: object) -> bool:
    """Whether ``reading`` is a rating outside the scale of ``kind`` (``Score: 12`` of 1 to 10), or a number that is no
    option of a choice (BU's writer wrote 0 for `The left image`, the context's panel): no person's reading of the
    task's answer (tests/shared/PROTOCOL.md, step 6), however a writer wrote it down."""
    if not isinstance(reading, int | float) or isinstance(reading, bool):
        return False
    if isinstance(kind, Choice):
        return not 1 <= reading <= kind.n
    return isinstance(kind, Score) and not kind.low <= reading <= kind.high


def cases(path: Path) -> list[tuple[str, int, AnswerKind, str, object, bool]]:
    """(group, position in it, answer kind, reply, what a person reads, hard) for every reply of the batch at
    ``path``, what a person reads being the adjudicated reading where there is one, and no answer where its writer
    wrote down a rating outside the scale (W's and X's writers were asked for ratings "as written")."""
    adjudication, rows = adjudicated(path.name), []
    for group in load_yaml(path)["groups"]:
        kind = answer_kind(group["kind"], group["params"], group.get("prompt", ""))
        for index, case in enumerate(group["cases"]):
            person = adjudication.get((group["name"], index, answer_digest(case["answer"])), case["reads"])
            person = None if outside_the_scale(kind, person) else person
            rows.append((group["name"], index, kind, case["answer"], person, bool(case.get("hard"))))
    return rows


def measure(path: Path) -> dict:
    """Agreement, hard agreement and silent misreads of the reader on the batch at ``path``."""
    rows = [(group, answer, person, kind.read(answer), hard) for group, _, kind, answer, person, hard in cases(path)]
    total = len(rows)
    hard = [row for row in rows if row[4]]
    realistic = [row for row in rows if not row[4]]
    agree = sum(row[2] == row[3] for row in rows)
    silent = [row for row in rows if row[3] is not None and row[3] != row[2]]
    no_answer = [row for row in rows if row[2] is None]
    return {
        "cases": total,
        "agreement": agree / total,
        "agree": agree,
        "hard": len(hard),
        "hard_agreement": sum(row[2] == row[3] for row in hard) / max(len(hard), 1),
        "realistic": len(realistic),
        "realistic_agreement": sum(row[2] == row[3] for row in realistic) / max(len(realistic), 1),
        "no_answer": len(no_answer),
        "no_answer_read": sum(row[3] is not None for row in no_answer),
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


def reply_id(batch: Path, group: str, index: int, answer: str) -> str:
    """A reply's key in the readings record: batch file, group, position, and a digest of its text (so that an edited
    reply is noticed, not read against another's reading)."""
    return f"{batch.name}/{group}/{index}/{answer_digest(answer)}"


def status(answer: str, read: object) -> str:
    """How a task counts the reply: a failed request, a reading, or an unread (unparsable) reply."""
    if is_request_failure(answer):
        return "request_failed"
    return "unread" if read is None else "read"


def readings(batches: list[Path]) -> list[dict]:
    """Every reply of ``batches`` with its reading and status, in the batches' order."""
    rows = []
    for batch in batches:
        for group, index, kind, answer, _, _ in cases(batch):
            read = kind.read(answer)
            rows.append(
                {"reply": reply_id(batch, group, index, answer), "reading": read, "status": status(answer, read)}
            )
    return rows


def record_readings(target: Path, batches: list[Path]) -> None:
    """Write every reply's reading and status to ``target`` (JSON lines, atomically)."""
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in readings(batches))
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, delete=False, suffix=".tmp") as file:
        file.write(text)
    os.replace(file.name, target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("batch", type=Path, nargs="+")
    parser.add_argument("--show", action="store_true", help="list every disagreement")
    parser.add_argument("--record", type=Path, metavar="FILE", help="write every disagreement of the batches to FILE")
    parser.add_argument(
        "--readings", type=Path, metavar="FILE", help="write every reply's reading and status to FILE (JSON lines)"
    )
    args = parser.parse_args()
    if args.readings is not None:
        record_readings(args.readings, args.batch)
        print(f"recorded the readings of every reply of {len(args.batch)} batches in {args.readings}")
        return
    if args.record is not None:
        record(args.record, args.batch)
        print(f"recorded the disagreements of {len(args.batch)} batches in {args.record}")
        return
    for batch in args.batch:
        result = measure(batch)
        print(
            f"{batch.name}: agreement {result['agree']}/{result['cases']} = {result['agreement']:.1%}; "
            f"hard {result['hard_agreement']:.1%} of {result['hard']}; "
            f"silent misreads {result['silent']} = {result['silent_rate']:.1%}; "
            f"realistic {result['realistic_agreement']:.1%} of {result['realistic']}; "
            f"no-answer read as a value {result['no_answer_read']} of {result['no_answer']}"
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
