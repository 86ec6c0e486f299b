"""MuCR loader (both record schemas), candidate rule, documents, answer and explanation parsing, metrics."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from abductive_tasks import judge, mucr
from abductive_tasks.data import SAMPLE_ROOT, DataError
from abductive_tasks.images import compose_labelled, load_image, materialise_image
from abductive_tasks.judge import JudgeResult

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "utils"))
from sample_mucr import make_mucr_v2  # noqa: E402

V1 = mucr.load_items(SAMPLE_ROOT / "mucr")
GROUPS = [{"0", "1", "2", "3"}, {"4", "5", "6", "7"}, {"8", "9", "10", "11"}]


def group_of(item_id: str) -> set[str]:
    return next(group for group in GROUPS if item_id in group)


@pytest.fixture
def v2_root(tmp_path) -> Path:
    root = tmp_path / "mucr"
    make_mucr_v2(root)
    return root


# ---------------------------------------------------------------- loading


def test_v1_sample_loads_with_embedded_images():
    assert [item["item_id"] for item in V1] == [str(n) for n in range(12)]
    first = V1[0]
    assert first["label"] == "human" and first["style"] == "photograph" and first["cue"] == "speeding"
    assert first["false_cues"] == ["car", "road", "police officer"]
    assert len(first["references"]) == 3
    assert first["link_ids"] == ["1", "2", "3"]
    assert load_image(first["cause_image"]).getpixel((0, 0)) == (250, 250, 250)  # CORNERS[0]
    assert load_image(first["effect_image"]).getpixel((0, 0)) == (20, 20, 20)


def test_v2_schema_loads_with_image_files(v2_root):
    items = mucr.load_items(v2_root)
    assert len(items) == 12
    assert all(len(item["references"]) == 1 and item["link_ids"] == [] for item in items)
    assert items[4]["references"] == [V1[4]["references"][0]]
    assert items[4]["false_cues"] == V1[4]["false_cues"]  # written as a JSON list string
    assert Path(items[0]["cause_image"]) == v2_root / "images" / "0_0.png"
    # No link_id: every set is drawn by the seeded rule; the same-label tier is the pair's group.
    assert {item["candidate_rule"] for item in items} == {"seeded"}
    assert all(set(item["distractors"]) == group_of(item["item_id"]) - {item["item_id"]} for item in items)


def test_candidate_rule_on_the_v1_sample():
    rules = {item["item_id"]: item["candidate_rule"] for item in V1}
    # 8 names a missing pair, 10 has no link_id, 11 only two: seeded; 9 and groups 0-7 resolve.
    assert [i for i, rule in rules.items() if rule == "seeded"] == ["8", "10", "11"]
    assert V1[9]["distractors"] == ["8", "10", "11"] and V1[0]["distractors"] == ["1", "2", "3"]
    # Seeded sets come from the causal group the other pairs' link_ids reveal.
    assert all(set(item["distractors"]) == group_of(item["item_id"]) - {item["item_id"]} for item in V1)


def _pair(item_id: str, label: str, links: list[str]) -> dict:
    return {"item_id": item_id, "label": label, "link_ids": links}


def test_seeded_rule_prefers_group_then_label_and_is_deterministic():
    pairs = [
        _pair("a", "human", ["b", "c", "d"]),
        _pair("b", "human", ["a", "zz"]),
        _pair("c", "human", []),
        _pair("d", "human", []),
        _pair("e", "animal", []),
        _pair("f", "animal", []),
        _pair("g", "human", []),
        _pair("h", "plant", []),
    ]
    sets = dict(zip("abcdefgh", mucr.candidate_sets(pairs), strict=True))
    assert sets["a"] == (["b", "c", "d"], "link_id")
    assert sets["b"][1] == "seeded" and set(sets["b"][0]) == {"a", "c", "d"}  # its group, found through a's links
    e_set, rule = sets["e"]
    assert rule == "seeded" and e_set[0] == "f" and set(e_set[1:]) <= {"a", "b", "c", "d", "g", "h"}
    assert mucr.candidate_sets(list(reversed(pairs)))[::-1] == [sets[k] for k in "abcdefgh"]  # order-independent
    assert mucr.causal_groups(pairs)["c"] == mucr.causal_groups(pairs)["a"] != mucr.causal_groups(pairs)["e"]


def _rewrite(root: Path, column: str, values: list) -> Path:
    path = root / "data" / "test-00000-of-00001.parquet"
    table = pq.read_table(path)
    table = table.set_column(table.schema.get_field_index(column), column, pa.array(values))
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("label", "robot", "row 3, field 'label': unknown category 'robot'"),
        ("id", "0", "row 3, field 'id': duplicate id '0'"),
        ("false_cue", '["fin", "teeth"]', "row 3, field 'false_cue': expected 3 distinct false cues"),
        ("image_1", "../outside.png", "row 3, field 'image_1': path '../outside.png' escapes the data root"),
        ("image_0", "images/missing.png", "row 3, field 'image_0': image file not found"),
    ],
)
def test_bad_rows_name_file_row_and_field(v2_root, column, value, message):
    values = pq.read_table(v2_root / "data" / "test-00000-of-00001.parquet").column(column).to_pylist()
    values[2] = value
    path = _rewrite(v2_root, column, values)
    with pytest.raises(DataError) as error:
        mucr.load_items(v2_root)
    assert str(path) in str(error.value) and message in str(error.value)


def test_missing_column_and_missing_files_are_reported(v2_root, tmp_path):
    path = v2_root / "data" / "test-00000-of-00001.parquet"
    pq.write_table(pq.read_table(path).drop_columns(["cue"]), path)
    with pytest.raises(DataError, match=r"missing column\(s\) for cue"):
        mucr.load_items(v2_root)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no parquet files"):
        mucr.load_items(tmp_path / "empty")


def test_written_lists_parse_without_eval():
    assert mucr._string_list("[a, b,c]", split_commas=True) == ["a", "b", "c"]
    assert mucr._string_list("['x, y', 'z']", split_commas=False) == ["x, y", "z"]
    assert mucr._string_list("__import__('os')", split_commas=False) == ["__import__('os')"]
    assert mucr._string_list(None, split_commas=True) == [] and mucr._string_list(" ", split_commas=True) == []


# ---------------------------------------------------------------- documents and visuals


def test_image_documents_hold_the_gold_among_four_shuffled_candidates():
    by_id = {item["item_id"]: item for item in V1}
    for builder, answer in ((mucr.c2e_docs_from, "effect_image"), (mucr.e2c_docs_from, "cause_image")):
        docs = builder(V1)
        positions = [doc["gold_position"] for doc in docs]
        assert len(set(positions)) > 1  # the gold is not always in the same place
        for doc in docs:
            assert sorted(doc["candidate_ids"]) == sorted([doc["item_id"], *by_id[doc["item_id"]]["distractors"]])
            assert doc["candidate_images"] == [by_id[pair][answer] for pair in doc["candidate_ids"]]
            assert doc["candidate_ids"][doc["gold_position"] - 1] == doc["item_id"]
            assert doc["image_paths"][1:] == doc["candidate_images"] and len(doc["panel_labels"]) == 5
        assert builder(V1)[:] == docs[:]  # deterministic


def test_cue_options_are_shuffled_per_item():
    docs = mucr.cue_docs_from(V1)
    for doc, item in zip(docs, V1, strict=True):
        assert sorted(doc["options"]) == sorted([item["cue"], *item["false_cues"]])
        assert doc["options"][doc["gold_position"] - 1] == item["cue"]
    assert len({doc["gold_position"] for doc in docs}) > 1
    prompt = mucr.doc_to_text_cue_split(docs[0])
    assert "\n1. " + docs[0]["options"][0] in prompt and "\n4. " + docs[0]["options"][3] in prompt


def test_exp_documents_offer_other_pairs_annotations_to_baselines():
    docs = mucr.exp_docs_from(V1)
    assert docs[0]["choices"] == [V1[int(pair)]["references"][0] for pair in V1[0]["distractors"]]
    assert V1[0]["references"][0] not in docs[0]["choices"]
    assert '"speeding"' in mucr.doc_to_text_exp_composite(docs[0])


def test_composite_has_labelled_panels_and_split_keeps_images_apart():
    doc = mucr.c2e_docs_from(V1)[0]
    (composite,) = mucr.doc_to_visual_composite(doc)
    panels = [load_image(path) for path in doc["image_paths"]]
    height = max(panel.height for panel in panels)
    assert composite.height > height  # the caption strip
    assert composite.width == sum(round(p.width * height / p.height) for p in panels) + 8 * 4
    assert compose_labelled(tuple(doc["image_paths"]), tuple(doc["panel_labels"])) is composite  # cached
    strip = composite.crop((0, 0, composite.width, composite.height - height)).convert("L")
    assert strip.getextrema()[0] < 100  # dark caption text on white
    assert mucr.doc_to_visual_split(doc) == panels
    with pytest.raises(ValueError, match="5 images but 2 labels"):
        compose_labelled(tuple(doc["image_paths"]), ("a", "b"))


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("3. The fin is visible.", 3), ("Answer: 2", 2), ("speeding", 2), ("The cue is police officer.", 4), ("car and road", None), ("no idea", None)],
)
def test_cue_answers_by_number_or_phrase(answer, expected):
    assert mucr.parse_cue(answer, ["car", "speeding", "road", "police officer"]) == expected


def test_option_phrase_inside_a_longer_option_is_not_a_second_match():
    assert mucr.parse_cue("I think catch cold.", ["cold", "catch cold", "wet", "rain"]) == 2


def test_split_explanation_labelled_and_by_sentences():
    parts, labelled = mucr.split_explanation("**Cause image:** A man speeds.\nEffect image: He gets a ticket.\nCausal link: Speeding led to it.")
    assert labelled and parts == ("A man speeds.", "He gets a ticket.", "Speeding led to it.")
    annotation = "The first image shows a man planting a tree. It is spring. The second image depicts a grown tree. The causal link is the care."
    expected = ("The first image shows a man planting a tree. It is spring.", "The second image depicts a grown tree.", "The causal link is the care.")
    assert mucr.split_explanation(annotation) == (expected, False)
    assert mucr.split_explanation("One. Two. Three. Four.") == (("One.", "Two.", "Three. Four."), False)
    assert mucr.split_explanation("Just one sentence.") == (("Just one sentence.",) * 3, False)


# ---------------------------------------------------------------- metrics


def _choice_results(process, docs, answers):
    return [process(doc, [answer]) for doc, answer in zip(docs, answers, strict=True)]


def test_choice_metrics_hand_computed():
    docs = list(mucr.c2e_docs_from(V1))[:4]
    golds = [doc["gold_position"] for doc in docs]
    answers = [f"{golds[0]}.", "no idea", f"Option {golds[2] % 4 + 1}", f"Answer: {golds[3]}"]
    records = [result["c2e_accuracy"] for result in _choice_results(mucr.process_results_c2e, docs, answers)]
    assert [r["correct"] for r in records] == [True, False, False, True]
    assert mucr.accuracy(records) == 0.5
    assert mucr.parse_failure_rate(records) == 0.25 and mucr.unparsable_count(records) == 1
    assert mucr.items_scored(records) == 4
    # Pairs 0, 1 photograph; 2, 3 comic; all human.
    assert mucr.acc_by_style(records) == {"comic": {"acc": 0.5, "n": 2}, "photograph": {"acc": 0.5, "n": 2}}
    assert mucr.acc_by_label(records) == {"human": {"acc": 0.5, "n": 4}}
    all_records = [r["c2e_accuracy"] for r in _choice_results(mucr.process_results_c2e, mucr.c2e_docs_from(V1), ["1"] * 12)]
    assert mucr.candidates_link_id(all_records) == 9 and mucr.candidates_seeded(all_records) == 3


def test_process_results_use_distinct_metric_names():
    names = [*mucr.C2E_METRICS, *mucr.E2C_METRICS, *mucr.CUE_METRICS]
    assert len(set(names)) == len(names)
    for group in (mucr.C2E_METRICS + mucr.COMMON_CHOICE_METRICS, mucr.EXP_METRICS):
        assert not [(a, b) for a in group for b in group if a != b and a in b]


LABELLED = "Cause image: a man drives fast. Effect image: he gets a ticket. Causal link: speeding caused the ticket."
PART_SCORES = {"cause image (the first": "Score: 6", "effect image (the second": "7/10", "causal link between": "Score: 9"}


def _scripted_judge(prompts: list[str], fail_when: str | None = None):
    def ask(prompt, parse, *, system=None, max_tokens=256):
        prompts.append(prompt)
        if fail_when and fail_when in prompt and "causal link between" in prompt:
            return JudgeResult(judge.JUDGE_FAILED, None, None)
        reply = "Score: 10" if "speed" in prompt and "cause image (the first" in prompt else next(v for k, v in PART_SCORES.items() if k in prompt)
        value = parse(reply)
        return JudgeResult(judge.OK if value is not None else judge.UNPARSABLE, value, reply)

    return ask


def test_exp_scores_from_a_scripted_judge(monkeypatch):
    prompts: list[str] = []
    monkeypatch.setattr(judge, "judge_configured", lambda: True)
    monkeypatch.setattr(judge, "ask_judge", _scripted_judge(prompts, fail_when="fox"))
    docs = mucr.exp_docs_from(V1)
    records = [mucr.process_results_exp(doc, [LABELLED])["exp_score"] for doc in docs]
    assert len(prompts) == 36
    cause_prompt = prompts[0]
    assert "a man drives fast." in cause_prompt and "1. In the first image, the man drove his car at an excessive speed." in cause_prompt
    assert "3. In the first image" in cause_prompt and "second image" not in cause_prompt.split("Human references:")[1].split("Model")[0]
    # Pairs 0-3 (speeding) score 10 on the cause part, the others 6; the fox pair (11) fails on the link.
    assert mucr.exp_judged_items(records) == 11 and mucr.exp_judge_failed_items(records) == 1
    assert mucr.exp_s1(records) == pytest.approx((4 * 10 + 7 * 6) / 11)
    assert mucr.exp_s2(records) == pytest.approx(7.0) and mucr.exp_s3(records) == pytest.approx(9.0)
    assert mucr.exp_score(records) == pytest.approx(0.25 * (82 / 11) + 0.25 * 7 + 0.5 * 9)
    assert mucr.exp_offline_score(records) is None and mucr.exp_offline_items(records) == 0
    assert mucr.exp_unlabelled_rate(records) == 0.0 and mucr.exp_items_scored(records) == 12


def test_exp_unparsable_judge_reply_and_empty_part(monkeypatch):
    monkeypatch.setattr(judge, "judge_configured", lambda: True)
    replies = iter(["no score here", "Score: 1", "Score: 2", "Score: 5", "Score: 8"])

    def ask(prompt, parse, **kwargs):
        reply = next(replies)
        return JudgeResult(judge.OK if parse(reply) is not None else judge.UNPARSABLE, parse(reply), reply)

    monkeypatch.setattr(judge, "ask_judge", ask)
    doc = mucr.exp_docs_from(V1)[0]
    unreadable = mucr.process_results_exp(doc, [LABELLED])["exp_score"]
    empty_cause = mucr.process_results_exp(doc, ["Cause image: Effect image: a ticket. Causal link: speeding."])["exp_score"]
    assert unreadable["s1_status"] == judge.UNPARSABLE and empty_cause["s1"] == 0.0  # no judge call for an empty part
    records = [unreadable, empty_cause]
    assert mucr.exp_judge_unparsable_items(records) == 1 and mucr.exp_judged_items(records) == 1
    assert mucr.exp_score(records) == pytest.approx(0.25 * 0 + 0.25 * 5 + 0.5 * 8)


def test_exp_without_judge_reports_offline_similarity(monkeypatch):
    seen = []

    def similarity(candidate, references):
        seen.append(references)
        return {"a man drives fast.": 0.2, "he gets a ticket.": 0.4, "speeding caused the ticket.": 0.8}[candidate]

    monkeypatch.setattr(judge, "offline_similarity", similarity)
    records = [mucr.process_results_exp(doc, [LABELLED])["exp_score"] for doc in mucr.exp_docs_from(V1)]
    assert seen[1] == [ref.split(". ")[1] + "." for ref in V1[0]["references"]]  # the effect parts of the annotations
    assert mucr.exp_s1(records) is None and mucr.exp_score(records) is None and mucr.exp_judged_items(records) == 0
    assert mucr.exp_offline_s1(records) == pytest.approx(0.2) and mucr.exp_offline_s3(records) == pytest.approx(0.8)
    assert mucr.exp_offline_score(records) == pytest.approx(0.25 * 0.2 + 0.25 * 0.4 + 0.5 * 0.8)
    assert mucr.exp_offline_items(records) == 12


def test_offline_similarity_with_a_real_embedder(monkeypatch, tmp_path):
    pytest.importorskip("sentence_transformers")
    from helpers.tiny_embedder import build_tiny_embedder

    monkeypatch.setenv("ABDUCTIVE_SIMILARITY_MODEL", str(build_tiny_embedder(tmp_path / "embedder")))
    doc = mucr.exp_docs_from(V1)[0]
    record = mucr.process_results_exp(doc, [doc["references"][1]])["exp_score"]  # an annotation scores itself 1
    assert mucr.exp_offline_score([record]) == pytest.approx(1.0, abs=1e-5)


def test_sample_images_are_small():
    total = sum(path.stat().st_size for path in (SAMPLE_ROOT / "mucr").rglob("*") if path.is_file())
    assert total < 100_000
    assert Image.open(V1[0]["cause_image"]).format == "PNG"


def test_embedded_image_bytes_are_written_once_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    data = Path(V1[0]["cause_image"]).read_bytes()
    first = materialise_image(data)
    assert Path(first).parent == tmp_path / "cache" / "images" and Path(first).read_bytes() == data
    assert materialise_image(data) == first and len(list((tmp_path / "cache" / "images").iterdir())) == 1
