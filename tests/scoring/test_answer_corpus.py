"""Model replies read as a person reads them: the project's corpus and every blind batch (tests/shared/PROTOCOL.md).

answer_corpus.yaml (realistic replies and the earlier batches) must agree with a person on at least 99%. Each blind
batch (blind_batch_*.yaml, written by someone who never read the reader) must agree on at least 92% and turn at most
1% of its replies into a value a person does not read (a silent misread). Every disagreement is listed in the run's
terminal summary, also when the test passes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from abductive_tasks.scoring.parsing import AnswerKind, Choice, Label, answer_kind, is_request_failure

SHARED = Path(__file__).parents[1] / "shared"
CORPUS = SHARED / "answer_corpus.yaml"
BLIND_BATCHES = sorted(SHARED.glob("blind_batch_*.yaml"))
MIN_AGREEMENT = 0.99
MIN_BLIND_AGREEMENT = 0.92
MAX_BLIND_SILENT = 0.01
# Blind batches that stay above the 1% silent-misread limit after their fix round (tests/shared/pending/): the reader
# may not fall below the figures recorded in FIRST_CONTACT.md (agreeing replies at least, silent misreads at most).
PENDING_FIRST_CONTACT = {"blind_batch_i.yaml": (175, 3), "blind_batch_j.yaml": (180, 3), "blind_batch_o.yaml": (173, 2)}


def load_cases(path: Path = CORPUS) -> list[tuple[str, AnswerKind, str, object]]:
    """(group, kind, answer, what a person reads) for every case of a corpus file."""
    groups = yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]
    return [
        (
            group["name"],
            answer_kind(group["kind"], group["params"], group.get("prompt", "")),
            case["answer"],
            case["reads"],
        )
        for group in groups
        for case in group["cases"]
    ]


CASES = load_cases()


def test_corpus_covers_every_answer_kind_with_a_share_of_unreadable_answers():
    kinds = Counter(type(kind).__name__ for _, kind, _, _ in CASES)
    assert len(CASES) >= 200
    assert kinds["Choice"] >= 100 and kinds["Label"] >= 30 and kinds["Score"] >= 50
    assert {kind.n for _, kind, _, _ in CASES if isinstance(kind, Choice)} == {2, 4}
    assert any(isinstance(kind, Choice) and kind.aliases for _, kind, _, _ in CASES)
    assert any(isinstance(kind, Choice) and kind.option_texts for _, kind, _, _ in CASES)
    unreadable = sum(reads is None for _, _, _, reads in CASES)
    assert 0.1 <= unreadable / len(CASES) <= 0.3
    assert sum(is_request_failure(answer) for _, _, answer, _ in CASES) >= 5


def valid(kind: AnswerKind, reads: object) -> bool:
    """Whether ``reads`` is a valid answer of ``kind``."""
    if isinstance(kind, Choice):
        return isinstance(reads, int) and 1 <= reads <= kind.n
    if isinstance(kind, Label):
        return reads in kind.labels
    return isinstance(reads, int | float) and kind.low <= reads <= kind.high


@pytest.mark.parametrize("path", [CORPUS, *BLIND_BATCHES], ids=lambda path: path.name)
def test_every_annotation_is_a_valid_answer_of_its_kind(path):
    """Guards the corpus against annotation slips."""
    assert [
        (group, answer, reads)
        for group, kind, answer, reads in load_cases(path)
        if reads is not None and not valid(kind, reads)
    ] == []


def agreement_report(path: Path, cases: list, report: list[str]) -> tuple[float, float]:
    """Agreement and silent-misread rate of the reader on ``cases``; the report lists every disagreement."""
    disagreements = []
    per_group: dict[str, list[int]] = {}
    silent = 0
    for group, kind, answer, reads in cases:
        read = kind.read(answer)
        agree = read == reads
        silent += read is not None and not agree
        counts = per_group.setdefault(group, [0, 0])
        counts[0] += agree
        counts[1] += 1
        if not agree:
            flag = "SILENT " if read is not None else ""
            disagreements.append(f"  [{group}] {flag}person: {reads!r}, parser: {read!r} <- {answer!r}")
    agreed = sum(counts[0] for counts in per_group.values())
    agreement, silent_rate = agreed / len(cases), silent / len(cases)
    report.append(
        f"{path.name}: agreement {agreed}/{len(cases)} = {agreement:.1%}; silent misreads {silent} = {silent_rate:.1%}"
    )
    report.append("per group: " + ", ".join(f"{group} {right}/{total}" for group, (right, total) in per_group.items()))
    report.append(f"disagreements ({len(disagreements)}):" + ("" if disagreements else " none"))
    report.extend(disagreements)
    return agreement, silent_rate


def test_parser_agrees_with_a_person(corpus_report):
    agreement, _ = agreement_report(CORPUS, CASES, corpus_report)
    assert agreement >= MIN_AGREEMENT


def test_blind_batches_exist_with_half_hard_replies():
    assert BLIND_BATCHES, "tests/shared/blind_batch_*.yaml"
    for path in BLIND_BATCHES:
        groups = yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]
        cases = [case for group in groups for case in group["cases"]]
        assert len(cases) >= 150 and sum(bool(case.get("hard")) for case in cases) >= len(cases) / 2, path.name


@pytest.mark.parametrize("path", BLIND_BATCHES, ids=lambda path: path.name)
def test_blind_batch_is_read_as_a_person_reads_it(path, corpus_report):
    """After the fix that followed its first contact (FIRST_CONTACT.md): agreement, and almost no silent misread."""
    agreement, silent_rate = agreement_report(path, load_cases(path), corpus_report)
    assert agreement >= MIN_BLIND_AGREEMENT
    assert silent_rate <= MAX_BLIND_SILENT


@pytest.mark.parametrize("name", PENDING_FIRST_CONTACT)
def test_a_pending_blind_batch_reads_no_worse_than_its_first_contact(name, corpus_report):
    path = SHARED / "pending" / name
    cases = load_cases(path)
    agreement, silent_rate = agreement_report(path, cases, corpus_report)
    least_agreeing, most_silent = PENDING_FIRST_CONTACT[name]
    assert round(agreement * len(cases)) >= least_agreeing
    assert round(silent_rate * len(cases)) <= most_silent


def test_the_tasks_read_replies_with_the_kinds_the_corpus_checks():
    """Each corpus group answers one of our prompts: the task must read its replies the same way."""
    from abductive_tasks.dve import hooks as dve
    from abductive_tasks.mucr import hooks as mucr
    from abductive_tasks.nleye import hooks as nleye
    from abductive_tasks.sherlock import hooks as sherlock

    used = {
        "nleye_triplet_separate": nleye.TRIPLET_ANSWER,
        "nleye_triplet_combined": nleye.TRIPLET_COMBINED_ANSWER,
        "nleye_triplet_text": nleye.TRIPLET_TEXT_ANSWER,
        "nleye_pairs": nleye.PAIRS_ANSWER,
        "mucr_c2e_e2c": mucr.FOUR_OPTIONS,
        "mucr_cue_weather": mucr.cue_answer(
            {"options": ["slippery floor", "birthday party", "heavy rain", "broken glass"]}
        ),
        "dve_cls": dve.LABEL,
        "sherlock_rating": sherlock.RATING_ANSWER,
    }
    kinds = {group: kind for group, kind, _, _ in CASES}
    for group, kind in used.items():
        assert kinds[group] == kind, group
    # nleye_triplet_text reads the hypothesis texts it shows as option texts: the blind batches give the writers'
    texts = ["The man's clothes are soaking wet.", "The man is sunbathing on a beach."]
    blind = {group: kind for group, kind, _, _ in load_cases(SHARED / "blind_batch_h.yaml")}
    assert blind["nleye_triplet_text_h"] == nleye.triplet_text_answer({"shown_descriptions": texts})
    assert blind["nleye_triplet_combined_h"] == nleye.TRIPLET_COMBINED_ANSWER
