"""Kojima et al.'s two-step CoT on MuCR (``mucr_<level>_cot2``): the CoT run's replies are the reasonings (a stage of
kind ``reasonings``), the second step asks with the step-1 prompt, the reasoning and "Therefore, the answer is" and is
scored as the base over every pair; a pair whose reasoning is missing, failed or empty is not asked and counts as
wrong. Metric values by hand on the sample; one command runs both steps."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from abductive_tasks.cli import main as cli_main
from abductive_tasks.inputs.images import top_left_luminance
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.inputs.stages import NO_UPSTREAM_FIELD, StageError, declared_reads, output_from_samples, save
from abductive_tasks.mucr import data, hooks, prompts, strategies
from abductive_tasks.runs import chain

from helpers.runs import OFFLINE, abductive_eval
from helpers.specs import evaluate

LOADED = data.load(SAMPLE_ROOT / "mucr")
ITEMS = LOADED.items
DOCS = {"c2e": hooks.c2e_docs_from(LOADED), "e2c": hooks.e2c_docs_from(LOADED), "cue": hooks.cue_docs_from(LOADED)}
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 500 Server Error"
TRIGGER = "Therefore, the answer is"


def cot_samples(path: Path, replies: list[str]) -> Path:
    """A samples JSONL of ``mucr_c2e_cot`` as ``--log_samples`` writes it: the reply and mucr_c2e's values."""
    lines = [
        {"doc_id": n, "filtered_resps": [reply], **hooks.process_results_c2e(doc, [reply])}
        for n, (doc, reply) in enumerate(zip(DOCS["c2e"], replies, strict=True))
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def reasonings(tmp_path: Path) -> list[str]:
    """Pair 0's CoT request failed, pair 1's reply is blank; the others reasoned."""
    return [FAILED, "  \n", *(f"Reasoning {n}: the glass falls." for n in range(2, 12))]


def test_the_reasonings_are_the_cot_replies_and_a_failed_or_blank_one_is_none(sample):
    path = cot_samples(sample / "cot.jsonl", reasonings(sample))
    output = output_from_samples("reasonings", "mucr_c2e_cot", path, {})
    values = {item_id: item.value for item_id, item in output.items.items()}
    assert values["0"] is None and values["1"] is None
    assert values["5"] == "Reasoning 5: the glass falls."
    assert output.failed == 2 and len(output.items) == 12
    assert output.items["5"].doc == hooks.choice_digest(DOCS["c2e"][5])  # the document it answered, by content


def test_a_pair_without_its_reasoning_is_not_asked_and_counts_as_wrong(sample, monkeypatch):
    """Pairs 0 (failed) and 1 (blank) have no reasoning: 10 asked. Answered: pairs 2-6 right, 7-11 wrong, so 5 right
    of the 12 pairs: 5/12 (not 5/10), with items_missing_upstream 2."""
    output = output_from_samples(
        "reasonings", "mucr_c2e_cot", cot_samples(sample / "cot.jsonl", reasonings(sample)), {}
    )
    monkeypatch.setenv("ABDUCTIVE_STAGE_INPUTS", json.dumps({"mucr_c2e_cot": save(output)}))
    docs = list(strategies.c2e_cot2_docs(None))
    assert [doc["item_id"] for doc in docs] == [str(n) for n in range(2, 12)]
    question = hooks.doc_to_text_c2e_composite(docs[0])
    assert strategies.doc_to_text_c2e_cot2(docs[0]) == (
        f"{prompts.cot_prompt(question)} Reasoning 2: the glass falls. {TRIGGER}"
    )
    assert strategies.doc_to_text_c2e_cot2(docs[0]).startswith(strategies.doc_to_text_c2e_cot(docs[0]))
    replies = [str(doc["gold_position"]) if int(doc["item_id"]) <= 6 else "none of them" for doc in docs]
    values = evaluate(strategies.C2E_COT2, strategies.process_results_c2e_cot2, docs, replies)
    assert values["c2e_accuracy"] == pytest.approx(5 / 12)
    counts = values["c2e_counts"]
    assert (counts["documents"], counts["items_scored"], counts["items_missing_upstream"]) == (10, 12, 2)
    assert counts["unparsable"] == 5  # "none of them": read as no option, wrong and counted


def test_reasonings_of_other_documents_are_refused(sample, monkeypatch):
    output = output_from_samples(
        "reasonings", "mucr_c2e_cot", cot_samples(sample / "cot.jsonl", reasonings(sample)), {}
    )
    items = dict(output.items) | {"3": output.items["4"]}  # pair 3's entry answered pair 4's document
    tampered = type(output)(output.kind, output.task, output.binding, items)
    monkeypatch.setenv("ABDUCTIVE_STAGE_INPUTS", json.dumps({"mucr_c2e_cot": save(tampered)}))
    with pytest.raises(StageError, match=r"mucr_c2e_cot2: .* documents of items \['3'\] differ"):
        strategies.c2e_cot2_docs(None)


def test_plain_lmms_eval_without_the_first_step_computes_nothing(sample):
    (doc,) = strategies.c2e_cot2_docs(None)
    assert doc[NO_UPSTREAM_FIELD]
    values = evaluate(strategies.C2E_COT2, strategies.process_results_c2e_cot2, [doc], ["1"])
    assert values["c2e_accuracy"] is None and values["c2e_counts"]["upstream_given"] == 0


def test_the_cot_run_is_read_as_one_kind_per_command():
    """mucr_c2e_cot is the first step of mucr_c2e_cot2 (its replies) and the pick source of mucr_exp_cot (its picks):
    one command hands a reader one output per upstream task, so it refuses both readers at once, in one line."""
    assert chain.with_upstream(["mucr_c2e_cot2"], declared_reads, {}) == ["mucr_c2e_cot", "mucr_c2e_cot2"]
    with pytest.raises(StageError) as refused:
        chain.with_upstream(["mucr_exp_cot", "mucr_c2e_cot2"], declared_reads, {})
    assert str(refused.value) == (
        "mucr_c2e_cot is read as picks by mucr_exp_cot and as reasonings by mucr_c2e_cot2: run those readers in "
        "separate commands"
    )


def results_of(folder: Path) -> dict:
    (path,) = folder.glob("*/*_results.json")
    return json.loads(path.read_text())["results"]


def samples_of(folder: Path, task: str) -> list[dict]:
    (path,) = folder.glob(f"*/*_samples_{task}.jsonl")
    return sorted((json.loads(line) for line in path.read_text().splitlines()), key=lambda line: line["doc_id"])


@pytest.mark.e2e
def test_one_command_runs_both_steps_with_random_baseline(tmp_path):
    out = tmp_path / "out"
    command = ["--model", "random_baseline", "--tasks", "mucr_c2e_cot2", "--log_samples"]
    done = abductive_eval(command, out, env={"ABDUCTIVE_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "[chain] stage 1 (random_baseline): mucr_c2e_cot" in done.stdout
    docs = DOCS["c2e"]
    # Step 1's reply to pair 0 (random_baseline: "<option>. Chosen at random.", seeded by task and document) is the
    # reasoning step 2 is asked with.
    step1 = random.Random("0:mucr_c2e_cot:0").choice(docs[0]["choices"])
    first = samples_of(out, "mucr_c2e_cot2")[0]
    cot = prompts.cot_prompt(hooks.doc_to_text_c2e_composite(docs[0]))
    assert first["input"] == f"{cot} {step1}. Chosen at random. {TRIGGER}"
    picks = [random.Random(f"0:mucr_c2e_cot2:{n}").choice(doc["choices"]) for n, doc in enumerate(docs)]
    right = sum(int(pick) == doc["gold_position"] for pick, doc in zip(picks, docs, strict=True))
    results = results_of(out)
    assert list(results) == ["mucr_c2e_cot2"]
    assert results["mucr_c2e_cot2"]["c2e_accuracy,none"] == pytest.approx(right / 12)
    counts = results["mucr_c2e_cot2"]["c2e_counts,none"]
    assert (counts["documents"], counts["items_scored"], counts["items_missing_upstream"]) == (12, 12, 0)


@pytest.mark.e2e
def test_the_picks_of_an_earlier_command_are_not_taken_for_reasonings(tmp_path, monkeypatch, capsys):
    """An earlier command kept mucr_c2e_cot's picks (for mucr_exp_cot); the two-step CoT of the same model runs
    mucr_c2e_cot again for its replies instead of reusing that output."""
    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache")}
    picks = abductive_eval(["--model", "random_baseline", "--tasks", "mucr_exp_cot"], tmp_path / "exp", env=env)
    assert picks.returncode == 0, picks.stdout[-3000:] + picks.stderr[-3000:]
    done = abductive_eval(["--model", "random_baseline", "--tasks", "mucr_c2e_cot2"], tmp_path / "cot2", env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "[chain] stage 1 (random_baseline): mucr_c2e_cot" in done.stdout and "reusing" not in done.stdout
    assert results_of(tmp_path / "cot2")["mucr_c2e_cot2"]["c2e_counts,none"]["items_missing_upstream"] == 0
    for name, value in {**OFFLINE, **env, "ABDUCTIVE_DATA": "sample"}.items():  # refused before any run: in process
        monkeypatch.setenv(name, value)
    both = ["--model", "random_baseline", "--tasks", "mucr_exp_cot,mucr_c2e_cot2", "--output_path", str(tmp_path / "b")]
    assert cli_main(both) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()  # one line, no traceback
    assert line.startswith("abductive-eval: mucr_c2e_cot is read as picks by mucr_exp_cot and as reasonings by ")
    assert line.endswith("run those readers in separate commands")


@pytest.mark.e2e
def test_the_group_with_dumb_pixel_scores_its_pixel_picks(tmp_path):
    """dumb_pixel picks the candidate whose upper-left pixel is brightest, whatever the prompt: each level's accuracy
    by hand from the images."""
    out = tmp_path / "out"
    command = ["--model", "dumb_pixel", "--tasks", "mucr_cot2", "--log_samples"]
    done = abductive_eval(command, out, env={"ABDUCTIVE_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = results_of(out)
    for level, docs in DOCS.items():
        right = 0
        for doc in docs:
            brightness = [top_left_luminance(path) for path in doc["candidate_images"]]
            right += brightness.index(max(brightness)) + 1 == doc["gold_position"]  # choices: the options in order
        task = f"mucr_{level}_cot2"
        assert results[task][f"{level}_accuracy,none"] == pytest.approx(right / 12), task
        assert results[task][f"{level}_counts,none"]["items_missing_upstream"] == 0
    assert results["mucr_c2e_cot2"]["c2e_accuracy,none"] == 0.25  # as mucr_c2e (tests/mucr/test_strategies_e2e.py)
