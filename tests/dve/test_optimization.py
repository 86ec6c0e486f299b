"""DVE reward-driven update optimization: the stopping rule (eta, M), the refinement prompt (Figure 7),
failed requests in the loop, and the figures the generation task reports, with scripted replies and critics."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from lmms_eval.api.reasoning import strip_reasoning_tags

from abductive_tasks.dve import data, hooks, prompts
from abductive_tasks.dve.optimization import OptimizedReply, Request, high_quality, optimize
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.scoring.taskspec import REQUEST_FAILED, clear_cache, read_reply

FAILED = "[LMMS_EVAL_REQUEST_FAILED after 5 retries] HTTP 500"


class Script:
    """Scripted model and critic: replies per item, one per round; scores per reply text."""

    def __init__(self, replies: dict[int, list[str]], scores: dict[str, float]) -> None:
        self.replies, self.scores = replies, scores
        self.prompts: list[list[tuple[int, str]]] = []  # what each generate call received
        self.critiqued: list[str] = []  # every text the critic saw

    def generate(self, pending: list[tuple[int, str]]) -> list[str]:
        self.prompts.append(pending)
        return [
            self.replies[index][len([p for call in self.prompts for p in call if p[0] == index]) - 1]
            for index, _ in pending
        ]

    def critic(self, indices: list[int], updates: list[str]) -> list[float]:
        self.critiqued += updates
        return [self.scores[update] for update in updates]


def request(goal: str, hypothesis: str = "A dog runs.") -> Request:
    return Request(prompts.generation_prompt(hypothesis, goal), hypothesis, goal)


@pytest.mark.parametrize(
    ("goal", "score", "eta", "expected"),
    [
        ("strengthener", 1.0, 1.0, True),  # "less than eta" is low quality: eta itself is high quality
        ("strengthener", 0.999, 1.0, False),
        ("weakener", -1.0, 1.0, True),  # "exceeds -eta" is low quality
        ("weakener", -0.999, 1.0, False),
        ("weakener", 0.0, 0.0, True),
        ("strengthener", -0.1, 0.0, False),
    ],
)
def test_critique_threshold(goal, score, eta, expected):
    assert high_quality(goal, score, eta) is expected


def test_loop_stops_at_high_quality_or_after_m_refinements():
    script = Script(
        replies={
            0: ["s0"],  # strengthener scoring 2.0 at once: kept
            1: ["w0", "w1", "w2"],  # weakener: 0.5, -0.2, then -1.5 (high quality): 3 generations
            2: ["x0", "x1", "x2", "x3"],  # strengthener never reaching eta: 1 + M generations
        },
        scores={"s0": 2.0, "w0": 0.5, "w1": -0.2, "w2": -1.5, "x0": 0.1, "x1": 0.2, "x2": 0.3, "x3": 0.4},
    )
    items = [request("strengthener"), request("weakener", "Tall humans standing."), request("strengthener")]
    traces = optimize(items, script.generate, script.critic, eta=1.0, max_rounds=3)
    assert [t.rounds for t in traces] == [1, 3, 4]
    assert [t.final for t in traces] == ["s0", "w2", "x3"]
    assert traces[1].scores == [0.5, -0.2, -1.5] and traces[2].scores == [0.1, 0.2, 0.3, 0.4]
    # One batched call per round: all three, then the two low-quality items, then both again, then item 2.
    assert [[index for index, _ in call] for call in script.prompts] == [[0, 1, 2], [1, 2], [1, 2], [2]]
    assert script.prompts[0][1][1] == items[1].prompt  # the task's own request first
    # The refinement repeats the request with the previous update and its score (Figure 7).
    assert script.prompts[1][0][1] == prompts.refinement_prompt("Tall humans standing.", "weakener", "w0", 0.5)
    assert (
        "Previous Update: w0\nPrevious Update's Defeasible Strength: 0.50000\nBased on the goal"
        in (script.prompts[1][0][1])
    )
    assert "Previous Update: w1\nPrevious Update's Defeasible Strength: -0.20000\n" in script.prompts[2][0][1]
    record = traces[2].as_record(eta=1.0, max_rounds=3)
    assert record == {
        "rounds": 4,
        "refined": True,
        "request_failed": False,
        "score_before": 0.1,
        "score_after": 0.4,
        "high_quality": False,
        "scores": [0.1, 0.2, 0.3, 0.4],
        "updates": ["x0", "x1", "x2", "x3"],
        "eta": 1.0,
        "max_rounds": 3,
    }


def test_max_rounds_and_eta_change_the_stopping_point():
    replies = {0: ["a", "b", "c", "d"]}
    scores = {"a": 0.2, "b": 0.6, "c": 1.1, "d": 3.0}
    assert optimize([request("strengthener")], *_calls(replies, scores), eta=1.0, max_rounds=0)[0].rounds == 1
    assert optimize([request("strengthener")], *_calls(replies, scores), eta=1.0, max_rounds=1)[0].final == "b"
    assert optimize([request("strengthener")], *_calls(replies, scores), eta=1.0, max_rounds=3)[0].final == "c"
    assert optimize([request("strengthener")], *_calls(replies, scores), eta=0.5, max_rounds=3)[0].final == "b"
    assert optimize([request("strengthener")], *_calls(replies, scores), eta=0.0, max_rounds=3)[0].rounds == 1
    with pytest.raises(ValueError, match="max_rounds"):
        optimize([request("strengthener")], *_calls(replies, scores), max_rounds=-1)


def _calls(replies, scores):
    script = Script(replies, scores)
    return script.generate, script.critic


def test_a_failed_request_in_the_loop_ends_it_and_is_never_critiqued():
    script = Script(
        replies={0: ["first", FAILED], 1: [FAILED], 2: ["ok", "better"]},
        scores={"first": 0.0, "ok": 0.0, "better": 1.2},
    )
    traces = optimize(
        [request("strengthener"), request("weakener"), request("strengthener")], script.generate, script.critic
    )
    assert script.critiqued == ["first", "ok", "better"]  # no failure text reaches the critic
    assert all(FAILED not in prompt for call in script.prompts for _, prompt in call)  # nor a refinement
    assert [(t.rounds, t.failed, t.final) for t in traces] == [
        (2, True, FAILED),
        (1, True, FAILED),
        (2, False, "better"),
    ]
    refined_then_failed = traces[0].as_record(1.0, 3)
    assert (refined_then_failed["score_before"], refined_then_failed["score_after"]) == (0.0, None)
    assert refined_then_failed["updates"] == ["first"] and refined_then_failed["high_quality"] is None
    assert traces[1].as_record(1.0, 3)["score_before"] is None


def test_the_trace_survives_what_lmms_eval_does_to_a_reply():
    meta = {"rounds": 2}
    reply = OptimizedReply("<think>plan</think>  The dog sleeps. ", meta)
    stripped = strip_reasoning_tags(reply, [["<think>", "</think>"]])
    assert stripped == "The dog sleeps." and stripped.meta is meta
    assert strip_reasoning_tags(OptimizedReply("x</think> Done.", meta), [["<think>", "</think>"]]).meta is meta
    copy = pickle.loads(pickle.dumps(reply))
    assert copy == reply and copy.meta == meta
    assert read_reply(OptimizedReply(FAILED, meta), hooks.Update(), None).meta is meta
    assert read_reply(OptimizedReply(FAILED, meta), hooks.Update(), None).status == REQUEST_FAILED
    assert read_reply("plain", hooks.Update(), None).meta is None


def test_generation_task_reports_rounds_refined_share_and_scores(monkeypatch):
    """Four sample documents with hand-made traces, the rest answered by a plain model: figures by hand."""
    for variable in ("ABDUCTIVE_BERTSCORE_MODEL", "ABDUCTIVE_CLIP_MODEL", "ABDUCTIVE_DVE_EVALUATOR"):
        monkeypatch.setenv(variable, "off")
    clear_cache()
    docs = hooks.gen_docs_from(data.load(SAMPLE_ROOT / "dve", "test"))
    goals = list(docs["goal"])
    strengthener = [i for i, g in enumerate(goals) if g == "strengthener"][:2]
    weakener = [i for i, g in enumerate(goals) if g == "weakener"][:2]
    traces = {
        strengthener[0]: {"rounds": 1, "refined": False, "request_failed": False, "score_before": 2.0,
                          "score_after": 2.0, "high_quality": True},
        strengthener[1]: {"rounds": 4, "refined": True, "request_failed": False, "score_before": -1.0,
                          "score_after": 0.5, "high_quality": False},
        weakener[0]: {"rounds": 2, "refined": True, "request_failed": False, "score_before": 0.5,
                      "score_after": -3.0, "high_quality": True},
        weakener[1]: {"rounds": 3, "refined": True, "request_failed": True, "score_before": 0.25,
                      "score_after": None, "high_quality": None},
    }  # fmt: skip
    results = []
    for index, doc in enumerate(docs):
        if index in traces:
            text = FAILED if traces[index]["request_failed"] else "The update."
            results.append(hooks.process_results_gen(doc, [OptimizedReply(text, traces[index])]))
        else:
            results.append(hooks.process_results_gen(doc, ["The update."]))
    records = [result["dve_gen_counts"][1] for result in results]
    values = hooks.GEN.evaluate(records)
    assert values["dve_opt_rounds_mean"] == pytest.approx((1 + 4 + 2 + 3) / 4)
    assert values["dve_opt_refined_share"] == pytest.approx(3 / 4)
    assert values["dve_opt_before_strengthener"] == pytest.approx(np.mean([2.0, -1.0]))
    assert values["dve_opt_after_strengthener"] == pytest.approx(np.mean([2.0, 0.5]))
    assert values["dve_opt_before_weakener"] == pytest.approx(np.mean([0.5, 0.25]))
    assert values["dve_opt_after_weakener"] == pytest.approx(-3.0)  # the failed loop has no final score
    counts = values["dve_gen_counts"]
    assert {key: counts[key] for key in ("optimized", "rounds_1", "rounds_2", "rounds_3", "rounds_4", "refined")} == {
        "optimized": 4, "rounds_1": 1, "rounds_2": 1, "rounds_3": 1, "rounds_4": 1, "refined": 3
    }  # fmt: skip
    assert (counts["high_quality_after"], counts["loop_request_failed"], counts["request_failed"]) == (2, 1, 1)
    plain = hooks.GEN.evaluate(
        [result["dve_gen_counts"][1] for result in (hooks.process_results_gen(d, ["x"]) for d in docs)]
    )
    assert plain["dve_opt_rounds_mean"] is None and "optimized" not in plain["dve_gen_counts"]
