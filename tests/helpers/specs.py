"""Running a task's ``process_results`` and its spec's aggregation in-process, as lmms-eval would."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from abductive_tasks.scoring.taskspec import TaskSpec


def records(process_results: Callable, docs: Sequence[dict], replies: Sequence[object]) -> list[dict]:
    """The per-document records ``process_results`` keeps for ``replies`` (one reply per document)."""
    return [next(iter(process_results(doc, [reply]).values()))[1] for doc, reply in zip(docs, replies, strict=True)]


def evaluate(spec: TaskSpec, process_results: Callable, docs: Sequence[dict], replies: Sequence[object]) -> dict:
    """Every metric of ``spec`` over ``docs`` answered with ``replies``, through its aggregation hook."""
    values = [process_results(doc, [reply]) for doc, reply in zip(docs, replies, strict=True)]
    return {name: spec.aggregate([value[name] for value in values]) for name in spec.metric_names}


def script_judge(monkeypatch, ask: Callable) -> None:
    """Answer every judge question with ``ask(prompt, parse, system=..., max_tokens=...)``, whether a hook asks one
    question (``judge.ask_judge``) or several at once (``judge.ask_judge_all``, in the order asked)."""
    from abductive_tasks.scoring import judge

    monkeypatch.setattr(judge, "ask_judge", ask)
    monkeypatch.setattr(
        judge,
        "ask_judge_all",
        lambda questions: [
            ask(question.prompt, question.parse, system=question.system, max_tokens=question.max_tokens)
            for question in questions
        ],
    )
