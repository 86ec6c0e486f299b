"""What MuCR's chained tasks accept from an earlier run, and how they count items without it: another model's picks
and picks of another data version are refused, a failed pick or a pair without its scene graph counts as the paper
counts it (0, or wrong) over every pair. The measured cases of the chained-protocol review, each by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError
from abductive_tasks.mucr import data, hooks, strategies
from abductive_tasks.scoring import judge
from abductive_tasks.scoring.judge import JudgeResult

from helpers.mucr_picks import C2E_DOCS, CUE_DOCS, ITEMS, write_samples
from helpers.runs import abductive_eval
from helpers.specs import evaluate, script_judge

FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 500 Server Error"


def _right_picks(folder: Path, c2e_failed: tuple[str, ...] = ()) -> None:
    c2e = {item["item_id"]: f"Option {C2E_DOCS[item['item_id']]['gold_position']}" for item in ITEMS}
    c2e |= dict.fromkeys(c2e_failed, FAILED)
    write_samples(folder, "mucr_c2e", c2e)
    write_samples(
        folder, "mucr_cue", {item["item_id"]: str(CUE_DOCS[item["item_id"]]["gold_position"]) for item in ITEMS}
    )


def _scripted_judge(prompt, parse, *, system=None, max_tokens=256):
    """S1 = 4 and S2 = 6 for every pair; S3 = 4 for the pairs whose links are about 'hard work' (8-11), else 6:
    Exp = 0.25 * 4 + 0.25 * 6 + 0.5 * S3 = 4.5 for pairs 8-11 and 5.5 for the others."""
    if "cause image (the first" in prompt:
        reply = "Score: 4"
    elif "effect image (the second" in prompt:
        reply = "Score: 6"
    else:
        reply = "Score: 4" if "hard work" in prompt else "Score: 6"
    return JudgeResult(judge.OK, parse(reply), reply)


def test_three_of_twelve_failed_picks_count_as_zero_over_twelve(sample, monkeypatch):
    """3 of 12 C2E requests failed (pairs 9-11): those pairs are not asked and score 0. Asked: 9 pairs, pair 8 at
    4.5, 0-7 at 5.5: 48.5 in all, 5.389 over the 9 asked (the old denominator), 4.04 over the 12 pairs (Table 1
    counts every pair)."""
    picks = sample / "picks"
    _right_picks(picks, c2e_failed=("9", "10", "11"))
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(picks))
    monkeypatch.setattr(judge, "judge_configured", lambda: True)
    script_judge(monkeypatch, _scripted_judge)
    docs = list(hooks.exp_own_docs(None))
    labelled = "Cause image: a cause. Effect image: an effect. Causal link: a link."
    values = evaluate(hooks.EXP_OWN, hooks.process_results_exp_own, docs, [labelled] * len(docs))
    assert 48.5 / 9 == pytest.approx(5.389, abs=5e-4) and 48.5 / 12 == pytest.approx(4.04, abs=5e-3)
    assert values["exp_score"] == pytest.approx(48.5 / 12)
    assert values["exp_s3"] == pytest.approx((4 + 8 * 6) / 12)
    counts = values["exp_counts"]
    assert (counts["documents"], counts["items_judged"], counts["items_missing_upstream"]) == (9, 12, 3)
    assert counts["items_judge_asked"] == 9  # the three without picks are counted at 0, never sent to the judge
    assert (counts["c2e_picks_failed"], counts["c2e_picks_missing"], counts["cue_picks_failed"]) == (3, 0, 0)


def _graphs_for_first(n: int, level: str = "c2e") -> None:
    """CCoT stage 1 on the first ``n`` pairs (``--limit n``): each reply stored as the pair's graph."""
    graph_docs = getattr(strategies, f"{level}_ccot_graph_docs")(None)
    for doc in list(graph_docs)[:n]:
        strategies.process_results_ccot_graph(doc, [f'{{"objects": ["pair {doc["item_id"]}"]}}'])


def test_scene_graphs_of_a_limit_6_run_count_the_other_pairs_wrong(sample, monkeypatch):
    """``mucr_c2e_ccot_graph --limit 6`` then ``mucr_c2e_ccot`` (plain lmms-eval: nothing says the graphs came from a
    limited run): one of the 6 pairs with a graph answered right is 1/12 = 0.083 over every pair (1/6 = 0.167
    before)."""
    monkeypatch.setenv("ABDUCTIVE_MUCR_SCENE_GRAPHS", "m")
    _graphs_for_first(6)
    docs = list(strategies.c2e_ccot_docs(None))
    replies = [
        f"Option {doc['gold_position'] if n == 0 else doc['gold_position'] % 4 + 1}" for n, doc in enumerate(docs)
    ]
    values = evaluate(strategies.C2E_CCOT, strategies.process_results_c2e_ccot, docs, replies)
    assert len(docs) == 6
    assert values["c2e_accuracy"] == pytest.approx(1 / 12) and round(values["c2e_accuracy"], 3) == 0.083
    counts = values["c2e_counts"]
    assert (counts["documents"], counts["items_scored"], counts["items_missing_upstream"]) == (6, 12, 6)
    assert values["c2e_ci95"]["c2e_accuracy"]["units"] == 12


def test_picks_of_another_data_version_are_refused(sample, tmp_path, monkeypatch):
    """Picks logged on a copy whose cue texts differ (the gold positions are the same) are not explained."""
    copy = tmp_path / "other" / "mucr"
    shutil.copytree(SAMPLE_ROOT / "mucr", copy)
    path = copy / "data" / "test-00000-of-00001.parquet"
    table = pq.read_table(path)
    false_cues = table.column("false_cue").to_pylist()
    false_cues[4] = [f"{cue} (revised)" for cue in false_cues[4]]
    table = table.set_column(table.schema.get_field_index("false_cue"), "false_cue", pa.array(false_cues))
    pq.write_table(table, path)
    other = data.load(copy)
    other_cue_docs = {doc["item_id"]: doc for doc in hooks.cue_docs_from(other)}
    assert other_cue_docs["4"]["gold_position"] == CUE_DOCS["4"]["gold_position"]  # gold positions equal
    assert other_cue_docs["4"]["options"] != CUE_DOCS["4"]["options"]
    picks = tmp_path / "picks"
    write_samples(picks, "mucr_c2e", {item["item_id"]: "Option 1" for item in ITEMS})
    cue_lines = [
        {"doc_id": n, **hooks.process_results_cue(other_cue_docs[item["item_id"]], ["1"])}
        for n, item in enumerate(other.items)
    ]
    (picks / "20261127_120000_samples_mucr_cue.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in cue_lines)
    )
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(picks))
    with pytest.raises(
        DataError, match=r"the mucr_cue documents of items \['4'\] differ from those built from the data"
    ):
        hooks.exp_own_docs(None)


@pytest.mark.e2e
def test_another_models_picks_are_refused_in_one_line(tmp_path):
    """``mucr_exp`` for random_baseline never explains dumb_pixel's picks: one line naming both models, exit 1."""
    picks = abductive_eval(
        ["--model", "dumb_pixel", "--tasks", "mucr_c2e,mucr_cue", "--log_samples"], tmp_path / "picks"
    )
    assert picks.returncode == 0, picks.stderr[-2000:]
    explained = abductive_eval(
        ["--model", "random_baseline", "--tasks", "mucr_exp"],
        tmp_path / "exp",
        env={"ABDUCTIVE_MUCR_PICKS": str(tmp_path / "picks"), "ABDUCTIVE_CACHE": str(tmp_path / "cache")},
    )
    assert explained.returncode == 1, explained.stdout[-2000:]
    (line,) = explained.stderr.strip().splitlines()
    assert "mucr_exp: the picks of mucr_c2e in " in line
    assert "come from model dumb_pixel, this run's is random_baseline" in line
    assert not list((tmp_path / "exp").rglob("*_results.json"))


@pytest.mark.e2e
def test_picks_whose_results_file_is_gone_are_refused_in_one_line(tmp_path):
    """The review's reproducer: dumb_pixel's picks with the results file beside them moved away. ``mucr_exp`` for
    random_baseline read them (exit 0, one warning, 12 pairs scored on another model's picks); abductive-eval cannot
    establish whose picks they are, so it refuses them in one line naming the samples and the results file missing."""
    picks = abductive_eval(
        ["--model", "dumb_pixel", "--tasks", "mucr_c2e,mucr_cue", "--log_samples"], tmp_path / "picks"
    )
    assert picks.returncode == 0, picks.stderr[-2000:]
    (results,) = (tmp_path / "picks").rglob("*_results.json")
    results.rename(tmp_path / "results.json.bak")
    (samples,) = (tmp_path / "picks").rglob("*_samples_mucr_c2e.jsonl")
    explained = abductive_eval(
        ["--model", "random_baseline", "--tasks", "mucr_exp", "--log_samples"],
        tmp_path / "exp",
        env={"ABDUCTIVE_MUCR_PICKS": str(tmp_path / "picks"), "ABDUCTIVE_CACHE": str(tmp_path / "cache")},
    )
    assert explained.returncode == 1, explained.stdout[-2000:]
    (line,) = explained.stderr.strip().splitlines()
    assert line == (
        f"abductive-eval: mucr_exp: the picks of mucr_c2e in {samples} cannot be checked against this run's model, "
        f"random_baseline: no results file lies beside them ({results} is missing); run mucr_c2e for this model "
        "through abductive-eval (it runs it itself when no variable names another run)"
    )
    assert not list((tmp_path / "exp").rglob("*_results.json"))
