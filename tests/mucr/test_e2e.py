"""End-to-end lmms-eval runs of the MuCR tasks on the embedded sample (v1) and a v2 copy."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from abductive_tasks.cli import main
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.models.baselines import DumbPixel
from abductive_tasks.mucr import data, hooks, prompts
from abductive_tasks.mucr.metrics import split_explanation
from abductive_tasks.scoring import judge

from helpers.openai_stub import Fault, OpenAIStub, message_text
from helpers.runs import abductive_eval, count, metric, read_results, read_samples
from helpers.tiny_llava import build_tiny_llava
from sample_generators.mucr import make_mucr_v2

pytestmark = pytest.mark.e2e

LOADED = data.load(SAMPLE_ROOT / "mucr")
ITEMS = LOADED.items
FORMS = ("", "_split")
LABELLED = "Cause image: a man drives fast. Effect image: he gets a ticket. Causal link: speeding caused the ticket."


def run_cli(tmp_path: Path, *args: str, data: str = "sample") -> dict:
    """A real ``abductive-eval`` subprocess: the baselines' entry points load as for a user,
    whatever this process imported."""
    completed = abductive_eval(list(args), tmp_path / "out", data=data)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    return read_results(tmp_path / "out")


def run_in_process(tmp_path: Path, monkeypatch, *args: str, data: str = "sample", status: int = 0) -> dict:
    """The same command in this process (saves the lmms-eval import; monkeypatches apply); it exits ``status``."""
    monkeypatch.setenv("ABDUCTIVE_DATA", data)
    output = tmp_path / "out"
    assert main([*args, "--output_path", str(output)]) == status
    return read_results(output)


def _corner(path: str) -> float:
    red, green, blue = Image.open(path).convert("RGB").getpixel((0, 0))
    return (299 * red + 587 * green + 114 * blue) / 1000


def test_dumb_pixel_on_both_forms_matches_the_pixels(tmp_path):
    results = run_cli(tmp_path, "--model", "dumb_pixel", "--tasks", "mucr,mucr_exp_gold,mucr_exp_gold_split")
    # Every candidate set is the pair's causal group: the brightest effect (cause) of each group wins.
    for suffix in FORMS:
        for level in ("c2e", "e2c"):
            task = f"mucr_{level}{suffix}"
            assert metric(results, task, f"{level}_accuracy") == 0.25
            by_label = metric(results, task, f"{level}_acc_by_label")
            assert {label: (cell["acc"], cell["n"]) for label, cell in by_label.items()} == {
                label: (0.25, 4) for label in ("animal", "character", "human")
            }
            assert all(cell["lower"] <= 0.25 <= cell["upper"] for cell in by_label.values())
            interval = metric(results, task, f"{level}_ci95")[f"{level}_accuracy"]
            assert (
                interval["units"] == 12
                and interval["chance"] == 0.25
                and interval["lower"] <= 0.25 <= interval["upper"]
            )
            assert results[task][f"{level}_accuracy_stderr,none"] == interval["stderr"] > 0
            assert count(results, task, "candidates_link_id") == 9
            assert count(results, task, "candidates_seeded") == 3
            assert count(results, task, "unparsable") == 0 and count(results, task, "request_failed") == 0
        # Cue: the mean corner grey of the two images picks the phrase at that quarter of the list.
        docs = hooks.cue_docs_from(LOADED)
        picks = [
            min(int((_corner(d["image_paths"][0]) + _corner(d["image_paths"][1])) / 2 / 256 * 4), 3) + 1 for d in docs
        ]
        expected = sum(pick == doc["gold_position"] for pick, doc in zip(picks, docs, strict=True)) / 12
        assert metric(results, f"mucr_cue{suffix}", "cue_accuracy") == pytest.approx(expected)
        assert count(results, f"mucr_cue{suffix}", "unparsable") == 0
        # Exp: another pair's annotation; no judge configured, so S1-S3/Exp are not computed.
        assert metric(results, f"mucr_exp_gold{suffix}", "exp_score") is None
        assert count(results, f"mucr_exp_gold{suffix}", "items_judged") == 0
        assert metric(results, f"mucr_exp_gold{suffix}", "exp_unlabelled_rate") == 1.0
        assert count(results, f"mucr_exp_gold{suffix}", "items_scored") == 12
        # The group's Exp explains dumb_pixel's own picks (C2E 3/12 right, Cue 2/12), run first by abductive-eval.
        assert metric(results, f"mucr_exp{suffix}", "exp_score") is None
        assert (
            count(results, f"mucr_exp{suffix}", "documents"),
            count(results, f"mucr_exp{suffix}", "items_scored"),
        ) == (12, 12)
        assert count(results, f"mucr_exp{suffix}", "items_effect_pick_wrong") == 9
        assert count(results, f"mucr_exp{suffix}", "items_cue_pick_wrong") == 10
    assert metric(results, "mucr_cue", "cue_accuracy") == pytest.approx(2 / 12)  # the value the sample gives


def test_random_baseline_on_the_v2_schema(tmp_path):
    make_mucr_v2(tmp_path / "data" / "mucr")
    loaded = data.load(tmp_path / "data" / "mucr")
    tasks = ("mucr_c2e", "mucr_e2c_split", "mucr_cue_split")
    results = run_cli(tmp_path, "--model", "random_baseline", "--tasks", ",".join(tasks), data=str(tmp_path / "data"))
    for task, docs in zip(
        tasks, (hooks.c2e_docs_from(loaded), hooks.e2c_docs_from(loaded), hooks.cue_docs_from(loaded)), strict=True
    ):
        picks = [random.Random(f"0:{task}:{doc_id}").choice(doc["choices"]) for doc_id, doc in enumerate(docs)]
        expected = (
            sum(doc["choices"].index(pick) + 1 == doc["gold_position"] for pick, doc in zip(picks, docs, strict=True))
            / 12
        )
        level = task.split("_")[1]
        assert metric(results, task, f"{level}_accuracy") == pytest.approx(expected)
        assert count(results, task, "unparsable") == 0
        if level != "cue":
            assert count(results, task, "candidates_seeded") == 12
            assert count(results, task, "candidates_link_id") == 0


def test_dummy_answers_every_task_offline_similarity_in_process(tmp_path, monkeypatch):
    parts = {"a man drives fast.": 0.2, "he gets a ticket.": 0.4, "speeding caused the ticket.": 0.8}
    monkeypatch.setattr(judge, "offline_similarity", lambda candidate, references, what: parts[candidate])
    results = run_in_process(
        tmp_path, monkeypatch, "--model", "dummy", "--model_args", f"response={LABELLED}", "--tasks",
        "mucr,mucr_exp_gold,mucr_exp_gold_split",
    )  # fmt: skip
    for suffix in FORMS:
        for level in ("c2e", "e2c"):
            task = f"mucr_{level}{suffix}"
            assert metric(results, task, f"{level}_accuracy") == 0.0  # an explanation picks no option: wrong, counted
            assert count(results, task, "unparsable") == count(results, task, "documents") == 12
        # The answer quotes "speeding", the cue of the four speeding pairs; it names no option of the others.
        assert metric(results, f"mucr_cue{suffix}", "cue_accuracy") == pytest.approx(4 / 12)
        assert metric(results, f"mucr_cue{suffix}", "cue_acc_by_label")["human"] == {
            "acc": 1.0,
            "n": 4,
            "lower": 1.0,
            "upper": 1.0,
        }
        assert count(results, f"mucr_cue{suffix}", "unparsable") == 8
        task = f"mucr_exp_gold{suffix}"
        assert metric(results, task, "exp_s1") is None and metric(results, task, "exp_score") is None
        assert metric(results, task, "exp_offline_s2") == pytest.approx(0.4)
        assert metric(results, task, "exp_offline_score") == pytest.approx(0.25 * 0.2 + 0.25 * 0.4 + 0.5 * 0.8)
        assert count(results, task, "items_offline_scored") == 12
        assert metric(results, task, "exp_unlabelled_rate") == 0.0
        # The explanation picks no effect image: no item has its picks, so Exp is one unread stand-in question and
        # every pair counts as unanswered (no judge: not computed; the offline scores of an empty answer).
        own = f"mucr_exp{suffix}"
        assert (count(results, own, "documents"), count(results, own, "items_missing_upstream")) == (1, 12)
        assert count(results, own, "c2e_picks_unreadable") == 12 and metric(results, own, "exp_score") is None


def _judge_script(body: dict):
    text = message_text(body)
    if "fox" in text and "causal link between" in text:
        return Fault(500)
    if "cause image (the first" in text:
        return "Score: 10" if "speed" in text else "Score: 6"
    if "effect image (the second" in text:
        return "7/10"
    return "Score: 9"


def test_exp_judged_by_a_scripted_openai_server(tmp_path, monkeypatch):
    cache = tmp_path / "judge-cache"
    with OpenAIStub(_judge_script) as stub:
        env = {
            "ABDUCTIVE_JUDGE": "on",
            "API_TYPE": "openai",
            "OPENAI_API_URL": stub.url,
            "OPENAI_API_KEY": "x",
            "MODEL_VERSION": "stub-model",
            "ABDUCTIVE_JUDGE_CACHE": str(cache),
            "ABDUCTIVE_JUDGE_RETRIES": "1",
            "ABDUCTIVE_JUDGE_BACKOFF": "0",
            "ABDUCTIVE_JUDGE_TIMEOUT": "20",
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        results = run_in_process(
            tmp_path,
            monkeypatch,
            "--model",
            "dummy",
            "--model_args",
            f"response={LABELLED}",
            "--tasks",
            "mucr_exp_gold,mucr_exp_gold_split",
            status=1,  # the judge failed on one pair of each task: no clean score
        )
    # 36 distinct questions (12 pairs x 3 parts); the second task reads the 35 answered ones from the
    # cache; the fox pair's link question fails twice (one retry) in each task and is not cached.
    assert len(stub.requests) == 35 + 2 * 2
    assert all(body["model"] == "stub-model" for body in stub.requests)
    assert len(list(cache.rglob("*.json"))) == 35
    for task in ("mucr_exp_gold", "mucr_exp_gold_split"):
        assert count(results, task, "items_judged") == 11
        assert count(results, task, "items_judge_failed") == 1
        assert metric(results, task, "exp_s1") == pytest.approx((4 * 10 + 7 * 6) / 11)  # speeding pairs 10, others 6
        assert metric(results, task, "exp_s2") == pytest.approx(7.0)
        assert metric(results, task, "exp_s3") == pytest.approx(9.0)
        assert metric(results, task, "exp_score") == pytest.approx(0.25 * 82 / 11 + 0.25 * 7 + 0.5 * 9)
        assert metric(results, task, "exp_offline_score") is None


def _listed_references(item: dict, part: int) -> str:
    """How a judge question lists the pair's references for one part (prompts.JUDGE_PROMPT)."""
    parts = [split_explanation(reference)[0][part] for reference in item["references"]]
    return "Human references:\n" + "\n".join(f"{n}. {text}" for n, text in enumerate(parts, start=1)) + "\n\n"


def test_exp_keeps_a_slow_judge_busy(tmp_path):
    """dumb_pixel on mucr_exp_gold (12 pairs x S1-S3, Eq. 6-8) against a judge taking 0.5 s per request: abductive-eval
    asks the three parts of every pair at once in twice as many result threads as ABDUCTIVE_JUDGE_CONCURRENCY (16), so
    at least 12 requests are in flight (lmms-eval's 4 threads, one part after another, held 4); a count, not a
    timing."""
    with OpenAIStub(lambda body: f"Score: {len(message_text(body)) % 11}", latency=0.5) as stub:
        env = {
            "ABDUCTIVE_JUDGE": "on",
            "OPENAI_API_URL": stub.url,
            "OPENAI_API_KEY": "x",
            "MODEL_VERSION": "stub-model",
            "ABDUCTIVE_JUDGE_CACHE": str(tmp_path / "judge"),
        }
        completed = abductive_eval(
            ["--model", "dumb_pixel", "--tasks", "mucr_exp_gold", "--log_samples"], tmp_path / "out", env=env
        )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    assert len(stub.requests) == 36
    assert stub.peak_in_flight >= 12
    assert "with 32 worker(s)" in completed.stdout + completed.stderr  # lmms-eval's own log of its result threads
    expected = {}  # (pair, part): the stub's score of the question about that part of that pair
    for body in stub.requests:
        text = message_text(body)
        (part,) = [k for k, described in enumerate(prompts.PART_DESCRIPTIONS) if described in text]
        (pair,) = [item["item_id"] for item in ITEMS if _listed_references(item, part) in text]
        expected[pair, part + 1] = len(text) % 11
    assert count(read_results(tmp_path / "out"), "mucr_exp_gold", "items_judged") == 12
    records = [sample["exp_s1"][1] for sample in read_samples(tmp_path / "out", "mucr_exp_gold")]
    assert {(record["item_id"], k): record[f"s{k}"] for record in records for k in (1, 2, 3)} == expected


def test_failed_requests_score_nothing_on_every_task(tmp_path):
    """lmms-eval's failure marker is never an answer: request_failed = every document, 0 correct, no judge question."""
    with OpenAIStub(["Score: 10"]) as stub:
        env = {
            "ABDUCTIVE_JUDGE": "on",
            "OPENAI_API_URL": stub.url,
            "OPENAI_API_KEY": "x",
            "MODEL_VERSION": "stub-model",
            "ABDUCTIVE_JUDGE_CACHE": str(tmp_path / "judge"),
        }
        failure = "response=[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"
        completed = abductive_eval(
            ["--model", "dummy", "--model_args", failure, "--tasks", "mucr,mucr_exp_gold,mucr_exp_gold_split"],
            tmp_path / "out",
            env=env,
        )
    assert completed.returncode == 1, completed.stdout[-3000:] + completed.stderr[-3000:]  # no clean score
    last = completed.stderr.rstrip().splitlines()[-1]
    assert last.startswith(
        "abductive-eval: failed requests (the model's or the judge's) in mucr_c2e (12 failed requests), "
    )
    results = read_results(tmp_path / "out")
    assert stub.requests == []  # nothing to judge: a failed request scores 0 on every part unasked
    for level in ("c2e", "e2c", "cue", "exp"):
        for suffix in FORMS:
            task = f"mucr_{level}{'_gold' if level == 'exp' else ''}{suffix}"
            assert count(results, task, "request_failed") == count(results, task, "documents") == 12
            assert count(results, task, "unparsable") == 0
            if level == "exp":
                assert count(results, task, "items_judged") == 12 and count(results, task, "items_judge_failed") == 0
                assert [metric(results, task, name) for name in ("exp_s1", "exp_s2", "exp_s3", "exp_score")] == [
                    0.0
                ] * 4
                assert metric(results, task, "exp_unlabelled_rate") is None
                # Exp on the model's own picks: every pick failed, so every pair is unanswered (0), none asked.
                own = f"mucr_exp{suffix}"
                assert (count(results, own, "documents"), count(results, own, "items_missing_upstream")) == (1, 12)
                assert count(results, own, "c2e_picks_failed") == count(results, own, "items_judged") == 12
                assert count(results, own, "items_judge_asked") == 0  # no explanation reached the judge
                assert count(results, task, "items_judge_asked") == 0  # every request failed: nothing to judge
                assert [metric(results, own, name) for name in ("exp_s1", "exp_s2", "exp_s3", "exp_score")] == [0.0] * 4
            else:
                assert metric(results, task, f"{level}_accuracy") == 0.0
                assert all(cell["acc"] == 0.0 for cell in metric(results, task, f"{level}_acc_by_style").values())


def test_tiny_llava_on_form_1_and_form_3(tmp_path, monkeypatch, llava_images_per_call):
    model_dir = build_tiny_llava(tmp_path / "tiny-llava")
    args = [
        "--model",
        "llava_hf",
        "--model_args",
        f"pretrained={model_dir},device_map=cpu,device=cpu",
        "--gen_kwargs",
        "max_new_tokens=4",
    ]
    results = run_in_process(tmp_path, monkeypatch, *args, "--tasks", "mucr_c2e,mucr_cue_split,mucr_exp_gold")
    # Form-1: one composite per prompt (c2e, exp); Form-3 cue: cause and effect separately.
    assert Counter(llava_images_per_call) == {1: 24, 2: 12}
    for task, level in (("mucr_c2e", "c2e"), ("mucr_cue_split", "cue")):
        assert count(results, task, "items_scored") == 12
        assert 0.0 <= metric(results, task, f"{level}_accuracy") <= 1.0
        assert count(results, task, "documents") == 12 and count(results, task, "request_failed") == 0
    assert count(results, "mucr_exp_gold", "items_scored") == 12
    assert metric(results, "mucr_exp_gold", "exp_score") is None


CUE_GIVEN = re.compile(r'The cue phrase linking them is "([^"]+)"')


def _picks_first_and_judges_cues(body: dict) -> str:
    """One scripted server for the model under test and the judge. As the model it picks option 1 and phrase 1
    (wrong wherever the gold is elsewhere) and explains whatever cue phrase it is given; as the judge it scores
    S1 = S2 = 5 and S3 = 10 when the model's link names the cue the human links name ("that <cue> explains"), else 0."""
    text = message_text(body)
    if "Rate the semantic similarity" in text:
        if "causal link between" not in text:
            return "Score: 5"
        candidate = text.split("Model explanation (same part):\n")[1].split("\n\nRate")[0]
        cue = candidate.removesuffix(" explains it.")
        return "Score: 10" if f"that {cue} explains" in text.split("Model explanation")[0] else "Score: 0"
    given = CUE_GIVEN.search(text)
    return f"Cause image: a cause. Effect image: an effect. Causal link: {given[1]} explains it." if given else "1"


def test_exp_explains_the_models_own_picks_in_a_second_stage(tmp_path, monkeypatch):
    """Eq. 5 end to end, by hand with the variable (as plain lmms-eval runs it): stage 1 runs mucr_c2e and mucr_cue
    (samples logged), stage 2 reads their picks (ABDUCTIVE_MUCR_PICKS) for mucr_exp beside the gold-conditioned
    mucr_exp_gold; a model that picks wrong explains its wrong cues and scores lower than with the gold ones."""
    with OpenAIStub(_picks_first_and_judges_cues) as stub:
        env = {
            "ABDUCTIVE_DATA": "sample",
            "OPENAI_API_BASE": stub.url,  # the model under test
            "OPENAI_API_URL": stub.url,  # the judge
            "OPENAI_API_KEY": "x",
            "ABDUCTIVE_JUDGE": "on",
            "API_TYPE": "openai",
            "MODEL_VERSION": "stub-judge",
            "ABDUCTIVE_JUDGE_CACHE": str(tmp_path / "judge-cache"),
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        model = ["--model", "openai", "--model_args", "model_version=stub-model,max_retries=1"]
        first, second = tmp_path / "picks", tmp_path / "explain"
        assert main([*model, "--tasks", "mucr_c2e,mucr_cue", "--log_samples", "--output_path", str(first)]) == 0
        monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(first))
        assert main([*model, "--tasks", "mucr_exp,mucr_exp_gold", "--output_path", str(second)]) == 0
        given = [CUE_GIVEN.search(message_text(body)) for body in stub.requests]
    results = read_results(second)
    effect_docs, cue_docs = hooks.c2e_docs_from(LOADED), hooks.cue_docs_from(LOADED)
    asked = range(12)
    right_cues = sum(cue_docs[n]["gold_position"] == 1 for n in asked)
    assert 0 < right_cues < 12
    # The model was asked with phrase 1 of each item (mucr_exp) and with the gold cue of all 12 (gold).
    assert sorted(match[1] for match in given if match) == sorted(
        [cue_docs[n]["options"][0] for n in asked] + [item["cue"] for item in ITEMS]
    )
    assert metric(results, "mucr_exp_gold", "exp_score") == pytest.approx(0.25 * 5 + 0.25 * 5 + 0.5 * 10)
    assert metric(results, "mucr_exp", "exp_s3") == pytest.approx(10 * right_cues / 12)
    assert metric(results, "mucr_exp", "exp_score") == pytest.approx(0.25 * 5 + 0.25 * 5 + 0.5 * 10 * right_cues / 12)
    assert metric(results, "mucr_exp", "exp_score") < metric(results, "mucr_exp_gold", "exp_score")
    counts = metric(results, "mucr_exp", "exp_counts")
    assert counts["items_judged"] == counts["documents"] == 12 and counts["items_missing_upstream"] == 0
    assert counts["c2e_picks_missing"] == counts["cue_picks_missing"] == 0
    assert counts["c2e_picks_unreadable"] == counts["cue_picks_unreadable"] == 0
    assert counts["items_cue_pick_wrong"] == 12 - right_cues
    assert counts["items_effect_pick_wrong"] == sum(effect_docs[n]["gold_position"] != 1 for n in asked)


def test_dumb_pixel_explains_its_own_picks_form_3(tmp_path, monkeypatch):
    """The two stages with a baseline: dumb_pixel's Exp answers come from the documents built on its own picks
    (the cause image and the effect image it picked), and its wrong picks are counted."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    first, second = tmp_path / "picks", tmp_path / "explain"
    assert main(["--model", "dumb_pixel", "--tasks", "mucr_c2e_split,mucr_cue_split", "--log_samples",
                 "--output_path", str(first)]) == 0  # fmt: skip
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(first))
    assert main(["--model", "dumb_pixel", "--tasks", "mucr_exp_split", "--log_samples",
                 "--output_path", str(second)]) == 0  # fmt: skip
    counts = metric(read_results(second), "mucr_exp_split", "exp_counts")
    # Its C2E accuracy is 3/12 and its Cue accuracy 2/12 on the sample (test_dumb_pixel_on_both_forms_...).
    assert (counts["documents"], counts["items_missing_upstream"], counts["c2e_picks_missing"]) == (12, 0, 0)
    assert (counts["items_effect_pick_wrong"], counts["items_cue_pick_wrong"]) == (9, 10)
    docs = hooks.exp_own_docs_split(None)
    shown = [doc["image_paths"][1] for doc in docs]
    assert sum(path != item["effect_image"] for path, item in zip(shown, ITEMS, strict=True)) == 9
    samples = sorted(read_samples(second, "mucr_exp_split"), key=lambda sample: sample["doc_id"])
    replies = [sample["filtered_resps"] for sample in samples]  # one reply per document
    assert replies == [DumbPixel().answer(doc, random.Random(0)) for doc in docs]
