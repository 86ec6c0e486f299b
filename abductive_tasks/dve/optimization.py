"""DVE reward-driven update optimization (Zhang et al., AAAI 2025, section "Reward-driven Update Optimization",
Figure 4; prompts: appendix Figure 7; eta = 1 and M = 3: "Implementation Detail").

1. Initial Response Generation: the generation request (Figure 6) goes to the model.
2. Critique: the inference-aware evaluator scores the update. A strengthener scoring below ``eta`` or
   a weakener scoring above ``-eta`` is low quality; otherwise the update is the final result.
3. Refinement: the request is repeated with the previous update and its score (Figure 7); the new
   update goes back to the critique, until it is high quality or ``M`` refinements were made.

The loop here is pure: ``generate`` and ``critic`` are given, so tests script both. Choices the
paper leaves open (see ``yaml_tasks/dve/README.md``): ``M`` counts refinements (at most 1 + M
generations); the last update is the result even when an earlier one scored better; a failed
request ends the item's loop and is its result (counted as a failed request, never scored by the
critic or by the metrics, never fed back as a previous update).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import SupportsIndex

from abductive_tasks.dve import prompts
from abductive_tasks.scoring.reading import is_request_failure

ETA = 1.0  # Implementation Detail: "we set eta to 1"
MAX_ROUNDS = 3  # Implementation Detail: "and M to 3" (refinements after the initial generation)


def high_quality(goal: str, score: float, eta: float) -> bool:
    """Critique step: a strengthener needs a score of at least ``eta``, a weakener at most ``-eta``."""
    return score >= eta if goal == "strengthener" else score <= -eta


@dataclass(frozen=True)
class Request:
    """One generation item: its first request (the task's own prompt) and what the refinement repeats."""

    prompt: str
    hypothesis: str
    goal: str


@dataclass
class Trace:
    """What happened to one item: every reply (failed ones included) and the critic's score of each update."""

    goal: str
    replies: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    failed: bool = False

    @property
    def final(self) -> str:
        return self.replies[-1] if self.replies else ""

    @property
    def rounds(self) -> int:
        """Generations made: 1 for the initial update alone, at most 1 + M."""
        return len(self.replies)

    def as_record(self, eta: float, max_rounds: int) -> dict:
        """The trace as the DVE generation record keeps it (JSON-serialisable)."""
        return {
            "rounds": self.rounds,
            "refined": self.rounds > 1,
            "request_failed": self.failed,
            "score_before": self.scores[0] if self.scores else None,
            "score_after": None if self.failed or not self.scores else self.scores[-1],
            "high_quality": None if self.failed or not self.scores else high_quality(self.goal, self.scores[-1], eta),
            "scores": list(self.scores),
            "updates": [reply for reply in self.replies if not is_request_failure(reply)],
            "eta": eta,
            "max_rounds": max_rounds,
        }


Generate = Callable[[list[tuple[int, str]]], Sequence[str]]  # (item index, prompt) pairs -> one reply each
Critic = Callable[[list[int], list[str]], Sequence[float]]  # item indices, their updates -> one score each


def optimize(
    requests: Sequence[Request], generate: Generate, critic: Critic, eta: float = ETA, max_rounds: int = MAX_ROUNDS
) -> list[Trace]:
    """Run the loop for every item, one batched ``generate`` and ``critic`` call per round."""
    if max_rounds < 0:
        raise ValueError(f"max_rounds must be 0 or more, got {max_rounds}")
    traces = [Trace(request.goal) for request in requests]
    pending = [(index, request.prompt) for index, request in enumerate(requests)]
    for refinement in range(max_rounds + 1):
        if not pending:
            break
        replies = generate(pending)
        if len(replies) != len(pending):
            raise RuntimeError(f"the model gave {len(replies)} replies to {len(pending)} requests")
        answered = []
        for (index, _prompt), reply in zip(pending, replies, strict=True):
            traces[index].replies.append(reply)
            if is_request_failure(reply):
                traces[index].failed = True
            else:
                answered.append(index)
        scores = [float(score) for score in critic(answered, [traces[i].final for i in answered])] if answered else []
        for index, score in zip(answered, scores, strict=True):
            traces[index].scores.append(score)
        pending = [
            (
                index,
                prompts.refinement_prompt(requests[index].hypothesis, requests[index].goal, traces[index].final, score),
            )
            for index, score in zip(answered, scores, strict=True)
            if refinement < max_rounds and not high_quality(requests[index].goal, score, eta)
        ]
    return traces


class OptimizedReply(str):
    """The final update as text, carrying the item's trace (``meta``) to the task's ``process_results``.

    lmms-eval passes a model's ``str`` replies through as they are, except that its scoring loop
    removes reasoning blocks (``lmms_eval.api.reasoning.strip_reasoning_tags``: slicing, ``+``,
    ``rsplit``, ``strip``); those operations return an ``OptimizedReply`` with the same trace.
    """

    meta: dict

    def __new__(cls, text: str, meta: dict) -> OptimizedReply:
        reply = super().__new__(cls, text)
        reply.meta = meta
        return reply

    def __reduce__(self):
        return OptimizedReply, (str(self), self.meta)

    def _keep(self, text: str) -> OptimizedReply:
        return OptimizedReply(text, self.meta)

    def __getitem__(self, key) -> OptimizedReply:
        return self._keep(super().__getitem__(key))

    def __add__(self, other: str) -> OptimizedReply:
        return self._keep(super().__add__(other))

    def strip(self, chars: str | None = None) -> OptimizedReply:
        return self._keep(super().strip(chars))

    def lstrip(self, chars: str | None = None) -> OptimizedReply:
        return self._keep(super().lstrip(chars))

    def rstrip(self, chars: str | None = None) -> OptimizedReply:
        return self._keep(super().rstrip(chars))

    def rsplit(self, sep: str | None = None, maxsplit: SupportsIndex = -1) -> list[str]:  # of OptimizedReply
        return [self._keep(part) for part in super().rsplit(sep, maxsplit)]
