"""MuCR Exp on the model's own picks (Eq. 5): picks read from earlier samples, documents, prompts and scores."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from abductive_tasks.inputs.loading import DataError
from abductive_tasks.inputs.stages import Item, StageError, StageOutput, records_digest
from abductive_tasks.lmms_source import results_beside
from abductive_tasks.mucr import hooks, picks
from abductive_tasks.scoring import judge
from abductive_tasks.scoring.judge import JudgeResult

from helpers.mucr_picks import C2E_DOCS, CUE_DOCS, ITEMS, LOADED, write_samples
from helpers.specs import evaluate, script_judge

BY_ID = {item["item_id"]: item for item in ITEMS}
LABELLED_ANSWER = "Cause image: a cause. Effect image: an effect. Causal link: a link."


def _wrong(position: int) -> int:
    return position % 4 + 1


def hand_built_picks(folder: Path, form: str = "") -> None:
    """Item 0 picks the wrong effect and the wrong cue; item 2 has no C2E sample (missing); item 3's cue reply is
    unreadable; every other item picks right."""
    c2e = {item: f"Option {C2E_DOCS[item]['gold_position']}" for item in BY_ID if item != "2"}
    c2e["0"] = f"Option {_wrong(C2E_DOCS['0']['gold_position'])}"
    cue = {item: str(CUE_DOCS[item]["gold_position"]) for item in BY_ID}
    cue["0"] = str(_wrong(CUE_DOCS["0"]["gold_position"]))
    cue["3"] = "I cannot tell which phrase it is."
    write_samples(folder, f"mucr_c2e{form}", c2e)
    write_samples(folder, f"mucr_cue{form}", cue)


@pytest.fixture
def caplog_loguru():
    """The warnings loguru writes while the test runs."""
    from loguru import logger

    class Captured:
        text = ""

    captured = Captured()
    handler = logger.add(lambda message: setattr(captured, "text", captured.text + str(message)), level="WARNING")
    yield captured
    logger.remove(handler)


@pytest.fixture
def picks_folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(tmp_path / "picks"))
    return tmp_path / "picks"


def test_a_wrong_pick_changes_the_prompt_and_the_images(picks_folder):
    hand_built_picks(picks_folder)
    docs = {doc["item_id"]: doc for doc in hooks.exp_own_docs(None)}
    gold = {doc["item_id"]: doc for doc in hooks.exp_docs_from(LOADED)}
    assert sorted(docs, key=int) == [str(n) for n in range(12) if n not in (2, 3)]  # 2, 3: no readable pick
    wrong_cue = CUE_DOCS["0"]["options"][_wrong(CUE_DOCS["0"]["gold_position"]) - 1]
    wrong_pair = C2E_DOCS["0"]["candidate_ids"][_wrong(C2E_DOCS["0"]["gold_position"]) - 1]
    assert wrong_cue != "speeding" and wrong_pair != "0"
    assert hooks.doc_to_text_exp_composite(docs["0"]) == hooks.doc_to_text_exp_composite(gold["0"]).replace(
        '"speeding"', f'"{wrong_cue}"'
    )
    assert docs["0"]["image_paths"] == [BY_ID["0"]["cause_image"], BY_ID[wrong_pair]["effect_image"]]
    assert gold["0"]["image_paths"] == [BY_ID["0"]["cause_image"], BY_ID["0"]["effect_image"]]
    assert (docs["0"]["effect_pick_correct"], docs["0"]["cue_pick_correct"], docs["0"]["gold_cue"]) == (
        False,
        False,
        "speeding",
    )
    assert docs["0"]["references"] == BY_ID["0"]["references"]  # scored against the true pair's annotations
    for item in ("1", "4", "11"):  # right picks: the gold-conditioned document's prompt and images
        assert hooks.doc_to_text_exp_split(docs[item]) == hooks.doc_to_text_exp_split(gold[item])
        assert docs[item]["image_paths"] == gold[item]["image_paths"]


def _echo(prompt: str) -> str:
    """A model that explains whatever cue phrase it was given."""
    cue = re.search(r'The cue phrase linking them is "([^"]+)"', prompt)[1]
    return f"Cause image: a cause. Effect image: an effect. Causal link: {cue} explains it."


def _cue_judge(prompt, parse, *, system=None, max_tokens=256):
    """S1 = S2 = 5; S3 = 10 when the model's link names the cue the human links name ("that <cue> explains"), else 0."""
    if "causal link between" not in prompt:
        reply = "Score: 5"
    else:
        candidate = prompt.split("Model explanation (same part):\n")[1].split("\n\nRate")[0]
        cue = candidate.removesuffix(" explains it.")
        reply = "Score: 10" if f"that {cue} explains" in prompt.split("Model explanation")[0] else "Score: 0"
    return JudgeResult(judge.OK, parse(reply), reply)


def test_a_wrong_pick_lowers_the_score_hand_computed(picks_folder, monkeypatch):
    hand_built_picks(picks_folder, "_split")
    monkeypatch.setattr(judge, "judge_configured", lambda: True)
    script_judge(monkeypatch, _cue_judge)
    own = list(hooks.exp_own_docs_split(None))
    gold = list(hooks.exp_docs_from(LOADED))
    own_values = evaluate(
        hooks.EXP_OWN, hooks.process_results_exp_own, own, [_echo(hooks.doc_to_text_exp_split(d)) for d in own]
    )
    gold_values = evaluate(
        hooks.EXP, hooks.process_results_exp, gold, [_echo(hooks.doc_to_text_exp_split(d)) for d in gold]
    )
    # Gold: every link names the true cue. Own picks: 10 items asked, item 0 with the wrong cue scores 0 on S3; items
    # 2 and 3 (no readable pick) are not asked and score 0 on every part; every mean is over the 12 pairs.
    assert gold_values["exp_s3"] == 10.0 and gold_values["exp_score"] == pytest.approx(0.25 * 5 + 0.25 * 5 + 5.0)
    assert own_values["exp_s1"] == pytest.approx(10 * 5 / 12)
    assert own_values["exp_s3"] == pytest.approx(9 * 10 / 12)
    assert own_values["exp_score"] == pytest.approx(0.25 * 50 / 12 + 0.25 * 50 / 12 + 0.5 * 90 / 12)
    assert own_values["exp_score"] < gold_values["exp_score"]
    counts = own_values["exp_counts"]
    assert (counts["documents"], counts["items_judged"], counts["items_scored"]) == (10, 12, 12)
    assert counts["items_judge_asked"] == 10
    assert counts["items_missing_upstream"] == 2
    assert {name: counts[name] for name in (*hooks.PICK_COUNTS, "items_effect_pick_wrong", "items_cue_pick_wrong")} == {
        "c2e_picks_missing": 1,
        "c2e_picks_failed": 0,
        "c2e_picks_unreadable": 0,
        "cue_picks_missing": 0,
        "cue_picks_failed": 0,
        "cue_picks_unreadable": 1,
        "items_without_picks": 0,
        "items_effect_pick_wrong": 1,
        "items_cue_pick_wrong": 1,
    }


def test_missing_picks_are_counted_never_filled_with_gold(picks_folder):
    write_samples(picks_folder, "mucr_c2e", {"0": "Option 9", "1": f"Option {C2E_DOCS['1']['gold_position']}"})
    write_samples(picks_folder, "mucr_cue", {item: str(CUE_DOCS[item]["gold_position"]) for item in BY_ID})
    docs = hooks.exp_own_docs(None)
    assert [doc["item_id"] for doc in docs] == ["1"]  # "Option 9" of four is unreadable; 2-11 were not asked
    assert {name: docs[0][name] for name in hooks.PICK_COUNTS} == {
        "c2e_picks_missing": 10,
        "c2e_picks_failed": 0,
        "c2e_picks_unreadable": 1,
        "cue_picks_missing": 0,
        "cue_picks_failed": 0,
        "cue_picks_unreadable": 0,
        "items_without_picks": 0,  # an unlimited picks run: every pair is one of the items
    }
    stand_ins = json.loads(docs[0]["upstream_missing"])  # every other item, counted as unanswered (0), never asked
    assert sorted(doc["item_id"] for doc in stand_ins) == sorted(item for item in BY_ID if item != "1")
    assert all(doc["cue"] == BY_ID[doc["item_id"]]["cue"] and doc["effect_pick"] == "" for doc in stand_ins)


def test_without_picks_it_is_not_computed_never_the_gold_bound(monkeypatch, caplog_loguru):
    """Plain lmms-eval without ABDUCTIVE_MUCR_PICKS (``--tasks mucr``): one stand-in question whose reply is never
    read, every metric None, so the rest of the group runs and no number appears under Exp's name."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    monkeypatch.delenv("ABDUCTIVE_MUCR_PICKS", raising=False)
    for process_docs in (hooks.exp_own_docs, hooks.exp_own_docs_split):
        (doc,) = process_docs(None)
        assert doc["no_upstream"] is True
        values = evaluate(hooks.EXP_OWN, hooks.process_results_exp_own, [doc], [LABELLED_ANSWER])
        assert [values[name] for name in ("exp_s1", "exp_score", "exp_offline_score")] == [None] * 3
        assert values["exp_counts"] == {"documents": 1, "upstream_given": 0, "unparsable": 0, "request_failed": 0,
                                        "judge_extracted": 0}  # fmt: skip
    assert "abductive-eval runs the same model's C2E and Cue first" in caplog_loguru.text
    assert "mucr_exp_gold is the gold-conditioned upper bound" in caplog_loguru.text


def test_picks_are_checked_by_content(picks_folder):
    with pytest.raises(DataError, match="picks: no such folder$"):  # said "not a folder" of a path that is none
        hooks.exp_own_docs(None)
    picks_folder.write_text("a file")
    with pytest.raises(DataError, match="picks: not a folder$"):
        hooks.exp_own_docs(None)
    picks_folder.unlink()
    picks_folder.mkdir()
    with pytest.raises(DataError, match="no samples of mucr_c2e .* run mucr_c2e with --log_samples"):
        hooks.exp_own_docs(None)
    hand_built_picks(picks_folder)
    path = next(picks_folder.glob("*_samples_mucr_cue.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for value in lines[4].values():
        if isinstance(value, list):
            value[1]["doc_digest"] = "0" * 32  # a pick of another document (other options, images or order)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(DataError, match=r"the mucr_cue documents of items \['4'\] differ from those built from"):
        hooks.exp_own_docs(None)
    path.write_text('{"doc_id": 0, "cue_accuracy": ["cue_accuracy", {"item_id": "0", "gold_position": 2}]}\n')
    with pytest.raises(DataError, match=r"line 1: no 'doc_digest' in the mucr_cue record .*; rerun mucr_cue"):
        hooks.exp_own_docs(None)
    path.write_text('{"doc_id": 0, "cue_accuracy": ["cue_accuracy", {"item_id": "99", "doc_digest": "x", '
                    '"prediction": 1}]}\n')  # fmt: skip
    with pytest.raises(DataError, match=r"items \['99'\] of mucr_cue are not in the data loaded now"):
        hooks.exp_own_docs(None)
    hand_built_picks(picks_folder / "another-run")  # a second run's samples: which one is meant?
    with pytest.raises(DataError, match="samples of mucr_c2e in 2 folders"):
        hooks.exp_own_docs(None)


@pytest.mark.timeout(60)  # a FIFO opened waits forever
@pytest.mark.parametrize("fifo", ["samples", "results"])
def test_a_fifo_among_the_picks_is_never_opened(picks_folder, fifo):
    """A FIFO named like the newest samples file is refused, one named like the results beside it is no binding (as
    a missing one): the Exp task and the chain's identity of the picks waited forever on either."""
    hand_built_picks(picks_folder)
    samples = next(picks_folder.glob("*_samples_mucr_c2e.jsonl"))
    path = samples if fifo == "samples" else samples.with_name(samples.name.split("_samples_")[0] + "_results.json")
    if fifo == "results":
        path.write_text(json.dumps({"config": {"model": "m", "limit": None}}))
        assert picks.samples_run(samples)[0] == {"model": "m", "backend": "m", "model_args": "", "limit": None}
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    if fifo == "samples":
        with pytest.raises(DataError, match=f"{re.escape(str(path))}: a FIFO, not a regular file$"):
            picks.samples_file(picks_folder, "mucr_c2e")
    else:
        assert picks.samples_run(samples)[0] == {}


RUN = {"model": "m", "backend": "m", "model_args": "", "key": "k-m", "limit": None}  # what abductive-eval says
UNBOUND = {  # the results file beside the picks' samples -> why their model cannot be established
    "missing": (None, "no results file lies beside them ({results} is missing)"),
    "not JSON": ("{not json", "the results file beside them ({results}) is not a JSON object lmms-eval wrote"),
    "a list": ("[]", "the results file beside them ({results}) is not a JSON object lmms-eval wrote"),
    "no config": ('{"results": {}}', "the results file beside them ({results}) names no model (no config.model)"),
    "no model": (
        '{"config": {"model_args": "", "limit": null}}',
        "the results file beside them ({results}) names no model (no config.model)",
    ),
}


@pytest.mark.parametrize("state", sorted(UNBOUND))
def test_picks_whose_model_cannot_be_established_are_refused_under_abductive_eval(
    picks_folder, monkeypatch, caplog_loguru, state
):
    """The results file beside the picks' samples is what says whose picks they are. With it gone, damaged or naming
    no model, abductive-eval (``ABDUCTIVE_RUN`` set: a batch's level too) refuses them in one line naming the file and
    what is missing, as another model's picks; it read them with one warning telling to run through abductive-eval
    (which it was), and a batch reported another model's picks' Exp as this model's. Plain lmms-eval, which cannot
    know its model, reads them with one warning saying why nothing is checked."""
    content, why = UNBOUND[state]
    monkeypatch.delenv("ABDUCTIVE_RUN", raising=False)
    monkeypatch.delenv("ABDUCTIVE_STAGE_INPUTS", raising=False)
    hand_built_picks(picks_folder)
    samples = next(picks_folder.glob("*_samples_mucr_c2e.jsonl"))
    results = results_beside(samples)
    if content is not None:
        results.write_text(content)
    why = why.format(results=results)
    assert picks.samples_run(samples)[:2] == ({}, why)
    assert len(hooks.exp_own_docs(None)) == 10  # plain lmms-eval: read, with one warning per picks file
    assert (
        f"mucr_exp: the picks of mucr_c2e in {samples} are read without a check of the model and --limit that produced "
        f"them: {why}, and plain lmms-eval does not say this run's model and --limit (abductive-eval refuses them)"
    ) in caplog_loguru.text
    assert "have them checked" not in caplog_loguru.text
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(RUN))
    with pytest.raises(StageError) as refused:
        hooks.exp_own_docs(None)
    assert str(refused.value) == (
        f"mucr_exp: the picks of mucr_c2e in {samples} cannot be checked against this run's model, m: {why}; run "
        "mucr_c2e for this model through abductive-eval (it runs it itself when no variable names another run)"
    )


def test_picks_whose_results_file_names_the_model_are_checked_or_warned_of_as_unchecked(
    picks_folder, monkeypatch, caplog_loguru
):
    """With the results file beside them, the picks are this run's under abductive-eval (read, no warning) and read
    under plain lmms-eval with a warning that says it is the run's model that is unknown."""
    monkeypatch.delenv("ABDUCTIVE_RUN", raising=False)
    monkeypatch.delenv("ABDUCTIVE_STAGE_INPUTS", raising=False)
    hand_built_picks(picks_folder)
    samples = next(picks_folder.glob("*_samples_mucr_c2e.jsonl"))
    results_beside(samples).write_text(json.dumps({"config": {"model": "m", "model_args": "", "limit": None}}))
    assert picks.samples_run(samples)[:2] == ({"model": "m", "backend": "m", "model_args": "", "limit": None}, "")
    assert len(hooks.exp_own_docs(None)) == 10
    assert (
        f"mucr_exp: the picks of mucr_c2e in {samples} are read without a check of the model and --limit that produced "
        "them: plain lmms-eval does not say this run's model and --limit (abductive-eval does, and checks them)"
    ) in caplog_loguru.text
    caplog_loguru.text = ""
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(RUN))
    assert len(hooks.exp_own_docs(None)) == 10
    assert "mucr_exp: the picks of" not in caplog_loguru.text


@pytest.mark.parametrize("target", ["gone.jsonl", "loop.jsonl"])
def test_a_broken_link_among_the_picks_is_refused(picks_folder, target):
    """A link to nothing (or to itself) named like the newest samples file is refused as the picks, one line naming
    it, as a FIFO is: the chain's identity of the picks raised FileNotFoundError on it."""
    hand_built_picks(picks_folder)
    samples = next(picks_folder.glob("*_samples_mucr_c2e.jsonl"))
    samples.unlink()
    samples.symlink_to(samples if target == "loop.jsonl" else picks_folder / target)
    with pytest.raises(DataError, match=f"{re.escape(str(samples))}: a broken link, not a regular file$"):
        picks.samples_file(picks_folder, "mucr_c2e")


def test_the_newest_samples_of_a_folder_are_read(picks_folder):
    hand_built_picks(picks_folder)
    all_right = {item: f"Option {C2E_DOCS[item]['gold_position']}" for item in BY_ID}
    write_samples(picks_folder, "mucr_c2e", all_right, name="20261127_130000")  # a later run, same folder
    docs = hooks.exp_own_docs(None)
    assert [doc["item_id"] for doc in docs if not doc["effect_pick_correct"]] == []
    assert (docs[0]["c2e_picks_missing"], docs[0]["cue_picks_unreadable"]) == (0, 1)  # only item 3's unreadable cue


def _picks_of(task: str, docs: dict, asked: list[str], limit: int) -> StageOutput:
    """The gold picks of the ``asked`` pairs, as a run of ``task`` with ``--limit limit`` gives them."""
    items = {item: Item(hooks.choice_digest(docs[item]), docs[item]["gold_position"], "parsed") for item in asked}
    return StageOutput("picks", task, {"model": "m", "limit": limit}, items)


def test_a_pair_beyond_the_limit_of_either_stage_is_not_one_of_the_items():
    # C2E run with --limit 2, Cue with --limit 3: the pairs both asked are the first two; pair 2 is none of them
    c2e = _picks_of("mucr_c2e", C2E_DOCS, ["0", "1"], 2)
    cue = _picks_of("mucr_cue", CUE_DOCS, ["0", "1", "2"], 3)
    docs = hooks.exp_own_docs_from(LOADED, c2e, cue)
    assert [doc["item_id"] for doc in docs] == ["0", "1"]
    assert [json.loads(doc["upstream_missing"]) for doc in docs] == [[], []]
    assert docs[0]["c2e_picks_missing"] == 0


def test_pairs_beyond_the_picks_limit_are_said_to_be_left_out_under_plain_lmms_eval(monkeypatch, caplog_loguru):
    """Plain lmms-eval does not say its --limit: picks of a --limit 4 run read by a run without one asked 4 of the 12
    pairs, and show called it 4/4 items, in silence (a walkthrough). The pairs beyond the picks' limit are counted as
    left out (``items_without_picks``: the run is partial) and said; abductive-eval, which refuses another --limit,
    counts none."""
    from abductive_tasks.reports import report
    from abductive_tasks.scoring.coverage import dropped_in

    c2e = _picks_of("mucr_c2e", C2E_DOCS, ["0", "1", "2", "3"], 4)
    cue = _picks_of("mucr_cue", CUE_DOCS, ["0", "1", "2", "3"], 4)
    monkeypatch.delenv("ABDUCTIVE_RUN", raising=False)
    docs = hooks.exp_own_docs_from(LOADED, c2e, cue)
    assert [doc["item_id"] for doc in docs] == ["0", "1", "2", "3"] and docs[0]["items_without_picks"] == 8
    assert (
        "mucr_exp: 8 of 12 items lie beyond the --limit 4 of the run whose picks are read: left out, not scored "
        "(items_without_picks: the run is partial, as one with that --limit is); give the picks of a run without "
        "--limit to score every item"
    ) in caplog_loguru.text
    counts = {"documents": 4, "items_scored": 4, "items_judged": 4, "items_without_picks": 8}
    assert dropped_in(counts) == {"items without picks": 8}
    assert report.coverage(counts) == "4/12 items, 8 items without picks left out"
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps({**RUN, "limit": 4}))
    assert hooks.exp_own_docs_from(LOADED, c2e, cue)[0]["items_without_picks"] == 0


def test_a_pick_is_bound_to_where_the_gold_answer_was_shown():
    # the same images and options with the gold answer elsewhere is another question: a pick of it is not read back
    for doc in (C2E_DOCS["0"], CUE_DOCS["0"]):
        moved = doc | {"gold_position": doc["gold_position"] % 4 + 1}
        assert hooks.choice_digest(moved) != hooks.choice_digest(doc)


def test_picks_that_differ_from_what_their_run_recorded_are_refused(picks_folder, monkeypatch, caplog_loguru):
    """abductive-eval records in a run's results what its samples give (``samples_records``). Picks typed over (every
    pick made right) or another run's samples put beside those results are refused in one line naming the file;
    results that record nothing (plain lmms-eval's) read them with one warning that an edit cannot be seen. A blind
    walkthrough had hand-edited picks read and scored as the model's own, in silence."""
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(RUN))
    monkeypatch.delenv("ABDUCTIVE_STAGE_INPUTS", raising=False)
    hand_built_picks(picks_folder)
    c2e, cue = (next(picks_folder.glob(f"*_samples_{task}.jsonl")) for task in ("mucr_c2e", "mucr_cue"))
    recorded = {
        task: records_digest(json.loads(line) for line in path.read_text().splitlines())
        for task, path in (("mucr_c2e", c2e), ("mucr_cue", cue))
    }
    config = {"model": "m", "model_args": "", "limit": None}
    results_beside(c2e).write_text(json.dumps({"config": config, "abductive_tasks": {"samples_records": recorded}}))
    assert len(hooks.exp_own_docs(None)) == 10
    assert "recorded nothing" not in caplog_loguru.text
    c2e.write_text("".join(reversed(c2e.read_text().splitlines(keepends=True))))  # the same picks in another order
    assert len(hooks.exp_own_docs(None)) == 10
    write_samples(picks_folder, "mucr_c2e", {item: f"Option {C2E_DOCS[item]['gold_position']}" for item in BY_ID})
    with pytest.raises(DataError) as refused:
        hooks.exp_own_docs(None)
    assert str(refused.value) == (
        f"ABDUCTIVE_MUCR_PICKS: {c2e} is not what its run wrote (the results file beside it records the picks of "
        "mucr_c2e by content, and these differ: edited, or another run's samples); name the folder of the run that "
        "wrote them, or run mucr_c2e again"
    )
    removed = {"config": config, "abductive_tasks": {"versions": {"abductive-tasks": "0.1.28"}}}
    results_beside(c2e).write_text(json.dumps(removed))  # the record removed from results of a version that writes it
    with pytest.raises(DataError, match=r"written by abductive-tasks 0\.1\.28, which records what the samples of "):
        hooks.exp_own_docs(None)
    results_beside(c2e).write_text(json.dumps({"config": config}))  # plain lmms-eval's results record nothing
    assert len(hooks.exp_own_docs(None)) == 11  # every pick right but item 3's unreadable cue
    assert len(hooks.exp_own_docs(None)) == 11  # the documents built again (as lmms-eval does): said once per file
    assert caplog_loguru.text.count(f"mucr_c2e picks in {c2e}: their run recorded nothing") == 1
    assert (
        f"mucr_c2e picks in {c2e}: their run recorded nothing of what they were (written by plain lmms-eval, or by "
        "abductive-tasks before 0.1.28), so an edit to them cannot be seen; abductive-eval records it"
    ) in caplog_loguru.text


def test_picks_named_by_the_variable_read_each_file_once(picks_folder, monkeypatch):
    """The results file beside the picks and the picks' samples file are each opened once: the binding, the check
    against what the run recorded and the stage output share what was read (each was read twice)."""
    from abductive_tasks.inputs import files, loading

    hand_built_picks(picks_folder)
    samples = next(picks_folder.glob("*_samples_mucr_c2e.jsonl"))
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    results_beside(samples).write_text(
        json.dumps(
            {
                "config": {"model": "m", "model_args": "", "limit": None},
                "abductive_tasks": {
                    "versions": {"abductive-tasks": "0.1.30"},
                    "samples_records": {"mucr_c2e": records_digest(lines)},
                },
            }
        )
    )
    opened: list[str] = []
    open_regular = files.open_regular

    def counting(path):
        opened.append(Path(path).name)
        return open_regular(path)

    monkeypatch.setattr(files, "open_regular", counting)
    monkeypatch.setattr(loading, "open_regular", counting)
    output = picks._from_folder("mucr_c2e")
    assert output is not None and output.binding["model"] == "m"
    assert sorted(opened) == sorted([samples.name, results_beside(samples).name])


def test_of_several_runs_in_the_picks_folder_the_one_written_last_is_read_and_said(picks_folder, caplog_loguru):
    """lmms-eval names samples by the time in its --timezone (UTC+8 unless given; abductive-eval's UTC): an older
    --limit run named in UTC+8 sorted after a newer full one named in UTC, and was read in silence (a walkthrough)."""
    older = write_samples(picks_folder, "mucr_c2e", {"0": "Option 1"}, name="20261205_075300")
    newer = write_samples(picks_folder, "mucr_c2e", {"0": "Option 2"}, name="20261204_235300")
    os.utime(older, ns=(1_000_000_000, 1_000_000_000))
    assert picks.samples_file(picks_folder, "mucr_c2e") == newer
    assert (
        f"mucr_c2e picks: 2 samples files in {picks_folder}; reading the one written last, {newer.name} (name the "
        "folder of one run to choose another)"
    ) in caplog_loguru.text
