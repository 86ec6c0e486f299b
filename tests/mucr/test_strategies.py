"""MuCR Table 2 strategies: the shot sampler, the prompts, the scene-graph store, and reading CoT-style replies."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from abductive_tasks.inputs.loading import SAMPLE_ROOT, DataError, documents
from abductive_tasks.inputs.stages import MISSING_FIELD, Item, StageError, StageOutput, save
from abductive_tasks.mucr import data, hooks, picks, prompts, scene_graphs, strategies

from helpers.mucr_picks import C2E_DOCS, CUE_DOCS, write_samples

LOADED = data.load(SAMPLE_ROOT / "mucr")
ITEMS = list(LOADED.items)
GROUP = data.causal_groups(ITEMS)


def _item(item_id: str, links: list[str], distractors: list[str]) -> dict:
    return {"item_id": item_id, "link_ids": links, "distractors": distractors}


# ---------------------------------------------------------------- the shot sampler


def test_shots_on_the_sample_are_other_groups_seeded_by_the_pair():
    # The sample's groups: 0-3 speeding, 4-7 shark attack, 8-11 hard work (link_id); pair 0's options are 1-3.
    assert [GROUP[str(i)] for i in range(12)] == [0] * 4 + [1] * 4 + [2] * 4
    pool = ["10", "11", "4", "5", "6", "7", "8", "9"]  # pairs outside group 0, sorted as strings
    assert strategies.draw_shots(ITEMS, "0") == random.Random("mucr-icl:0").sample(pool, 2) == ["6", "5"]
    for item in ITEMS:
        shots = strategies.draw_shots(ITEMS, item["item_id"])
        assert len(set(shots)) == 2 and item["item_id"] not in shots
        assert all(GROUP[shot] != GROUP[item["item_id"]] for shot in shots)
        assert not set(shots) & set(item["distractors"])
        assert strategies.draw_shots(ITEMS, item["item_id"]) == shots  # seeded: the same every time
    assert strategies.draw_shots(ITEMS, "0", seed="other") != ["6", "5"]  # the seed decides


def test_shots_skip_the_group_and_the_candidate_set():
    # a-b one causal group; a's options b, c, e (a seeded set reaching outside the group): only d and f are left.
    items = [
        _item("a", ["b"], ["b", "c", "e"]),
        _item("b", ["a"], ["a", "c", "d"]),
        _item("c", ["d"], ["d", "a", "b"]),
        _item("d", [], ["c", "a", "b"]),
        _item("e", [], ["a", "b", "c"]),
        _item("f", [], ["a", "b", "c"]),
    ]
    assert sorted(strategies.draw_shots(items, "a")) == ["d", "f"]
    # c and d are one group (c links d); b's options a, c, d: only e and f are left
    assert sorted(strategies.draw_shots(items, "b")) == ["e", "f"]
    with pytest.raises(DataError, match="MuCR pair a: 2 pairs outside its causal group, 3 in-context shots needed"):
        strategies.draw_shots(items, "a", k=3)


# ---------------------------------------------------------------- prompts


@pytest.fixture
def sample(monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")


def _doc(level: str) -> dict:
    return strategies.base_hook(level, "process_docs")(None)[0]


def _wrong(position: int) -> int:
    return position % 4 + 1


def write_picks(folder, suffix: str, wrong: tuple[str, ...] = ()) -> None:
    """C2E and Cue samples of the tasks ``mucr_c2e<suffix>`` / ``mucr_cue<suffix>``: every pair picks right except
    those in ``wrong``, which pick the next effect image and the next cue phrase."""
    c2e = {item: C2E_DOCS[item]["gold_position"] for item in C2E_DOCS}
    cue = {item: CUE_DOCS[item]["gold_position"] for item in CUE_DOCS}
    for item in wrong:
        c2e[item], cue[item] = _wrong(c2e[item]), _wrong(cue[item])
    write_samples(folder, f"mucr_c2e{suffix}", {item: f"Option {pick}" for item, pick in c2e.items()})
    write_samples(folder, f"mucr_cue{suffix}", {item: str(pick) for item, pick in cue.items()})


@pytest.fixture
def strategy_picks(sample, tmp_path, monkeypatch):
    """Each strategy's C2E and Cue picks (ABDUCTIVE_MUCR_PICKS), pair 0 picking the wrong effect and cue."""
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(tmp_path / "picks"))
    for strategy in ("cot", "icl", "mmicl", "ccot"):
        write_picks(tmp_path / "picks", f"_{strategy}", wrong=("0",))


WRONG_CUE_0 = CUE_DOCS["0"]["options"][_wrong(CUE_DOCS["0"]["gold_position"]) - 1]  # pair 0's gold cue: speeding
WRONG_PAIR_0 = C2E_DOCS["0"]["candidate_ids"][_wrong(C2E_DOCS["0"]["gold_position"]) - 1]


def _exp_doc(strategy: str) -> dict:
    """Pair 0's document of ``mucr_exp_<strategy>``: asked with its wrong picks."""
    doc = hooks.exp_own_docs_of(f"mucr_exp_{strategy}")[0]
    assert (doc["item_id"], doc["cue"], doc["effect_pick"]) == ("0", WRONG_CUE_0, WRONG_PAIR_0)
    return doc


def test_cot_moves_the_answer_request_last_and_ends_with_the_trigger(strategy_picks):
    c2e = strategies.doc_to_text_c2e_cot(_doc("c2e"))
    assert c2e == (
        prompts.PROMPTS[("c2e", "composite")].replace(
            "Answer with the option number (1, 2, 3 or 4) first, then explain.",
            "Give the option number (1, 2, 3 or 4) as your final answer.",
        )
        + "\nLet's think step by step."
    )
    cue = strategies.doc_to_text_cue_cot(_doc("cue"))
    assert cue.endswith(
        "4. police officer\nGive the number of the phrase (1, 2, 3 or 4) as your final answer.\n"
        "Let's think step by step."
    )
    exp_doc = strategies.exp_cot_docs(None)[0]
    assert f'The cue phrase linking them is "{WRONG_CUE_0}".' in hooks.doc_to_text_exp_composite(exp_doc)
    assert strategies.doc_to_text_exp_cot(exp_doc) == hooks.doc_to_text_exp_composite(exp_doc) + (
        "\nLet's think step by step."
    )


def test_ccot_stages_follow_the_authors_wording(strategy_picks):
    doc = _doc("cue")
    stage1 = strategies.doc_to_text_cue_ccot_graph(doc)
    assert stage1 == (
        'The image shows two pictures side by side: the cause image on the left (labelled "Cause image") and its '
        'effect on the right (labelled "Effect image"). Which of the following phrases is the cue that explains the '
        "causal link between the two images?\n"
        "For the provided image and its associated question, generate a scene graph in JSON format that includes the "
        "following:\n1. Objects that are relevant to answering the question\n"
        "2. Object attributes that are relevant to answering the question\n"
        "3. Object relationships that are relevant to answering the question\n\nScene Graph:"
    )
    stage2 = strategies.doc_to_text_cue_ccot({**doc, "scene_graph": '{"objects": ["car"]}'})
    assert stage2 == (
        'Scene Graph: {"objects": ["car"]}\n\nUse the image and scene graph as context and answer the following '
        "question: " + hooks.doc_to_text_cue_composite(doc)
    )
    exp_doc = _exp_doc("ccot_graph")  # no question mark: cut before the format
    exp_stage1 = strategies.doc_to_text_exp_ccot_graph(exp_doc)
    assert exp_stage1.startswith(hooks.doc_to_text_exp_composite(exp_doc).split(" Answer in three lines:")[0])
    assert "Answer in three lines" not in exp_stage1 and exp_stage1.endswith("\n\nScene Graph:")


def test_icl_shows_two_other_pairs_with_their_gold_answers(strategy_picks):
    cue_docs = {doc["item_id"]: doc for doc in hooks.cue_docs_from(LOADED)}
    text = strategies.doc_to_text_cue_icl(cue_docs["0"])
    shot6, shot5 = cue_docs["6"], cue_docs["5"]  # pair 0's shots (test above)
    assert text == (
        "Two solved examples come first (their images are not shown), then the question about the image shown.\n\n"
        f"Example 1:\n{hooks.doc_to_text_cue_composite(shot6)}\nAnswer: {shot6['gold_position']} (attack)\n\n"
        f"Example 2:\n{hooks.doc_to_text_cue_composite(shot5)}\nAnswer: {shot5['gold_position']} (attack)\n\n"
        f"Question:\n{hooks.doc_to_text_cue_composite(cue_docs['0'])}"
    )
    c2e_docs = {doc["item_id"]: doc for doc in hooks.c2e_docs_from(LOADED)}
    c2e = strategies.doc_to_text_c2e_icl(c2e_docs["0"])
    assert f"Answer: Option {c2e_docs['6']['gold_position']}\n\nExample 2:" in c2e
    assert c2e.endswith(
        f"Answer: Option {c2e_docs['5']['gold_position']}\n\nQuestion:\n{prompts.PROMPTS['c2e', 'composite']}"
    )
    exp_doc = strategies.exp_icl_docs(None)[0]  # pair 0, asked with its own (wrong) cue pick
    exp = strategies.doc_to_text_exp_icl(exp_doc)  # the shots: their gold cue and first annotation, labelled lines
    assert 'The cue phrase linking them is "attack".' in exp
    assert "Answer: Cause image: In the first image, the shark is attacking the manta ray.\n" in exp
    assert exp.endswith(f"\n\nQuestion:\n{hooks.doc_to_text_exp_composite(exp_doc)}")
    assert f'The cue phrase linking them is "{WRONG_CUE_0}".' in exp.split("Question:\n")[1]


def test_mmicl_carries_the_shot_images_before_the_question(strategy_picks):
    docs = {doc["item_id"]: doc for doc in hooks.c2e_docs_from(LOADED)}
    visuals = strategies.doc_to_visual_c2e_mmicl(docs["0"])
    expected = [*hooks.doc_to_visual_composite(docs["6"]), *hooks.doc_to_visual_composite(docs["5"])]
    expected += hooks.doc_to_visual_composite(docs["0"])
    assert len(visuals) == 3
    assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(visuals, expected, strict=True))
    text = strategies.doc_to_text_c2e_mmicl(docs["0"])
    assert text.startswith("Images 1 and 2 belong to two solved examples; image 3 belongs to the question.\n\n")
    assert "Example 1 (image 1):" in text and "Example 2 (image 2):" in text and "\n\nQuestion (image 3):\n" in text
    exp_doc = strategies.exp_mmicl_docs(None)[0]  # the question's composite: the cause and the effect image picked
    exp_visuals = strategies.doc_to_visual_exp_mmicl(exp_doc)
    assert len(exp_visuals) == 3
    assert exp_doc["image_paths"] == [ITEMS[0]["cause_image"], ITEMS[int(WRONG_PAIR_0)]["effect_image"]]
    assert np.array_equal(np.asarray(exp_visuals[2]), np.asarray(hooks.doc_to_visual_composite(exp_doc)[0]))


# ---------------------------------------------------------------- Exp variants on the same strategy's picks


def test_pick_tasks_keep_the_suffix_of_the_asking_exp_task():
    assert picks.pick_tasks("mucr_exp") == ("mucr_c2e", "mucr_cue")
    assert picks.pick_tasks("mucr_exp_split") == ("mucr_c2e_split", "mucr_cue_split")
    assert picks.pick_tasks("mucr_exp_cot") == ("mucr_c2e_cot", "mucr_cue_cot")
    assert picks.pick_tasks("mucr_exp_ccot") == ("mucr_c2e_ccot", "mucr_cue_ccot")
    assert picks.pick_tasks("mucr_exp_ccot_graph") == ("mucr_c2e_ccot", "mucr_cue_ccot")  # the question stage 2 asks


def test_mucr_exp_cot_reads_the_picks_of_mucr_c2e_cot_and_mucr_cue_cot(sample, tmp_path, monkeypatch):
    folder = tmp_path / "picks"
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(folder))
    write_picks(folder, "")  # the base tasks pick right everywhere
    with pytest.raises(DataError, match=r"no samples of mucr_c2e_cot .* run mucr_c2e_cot with --log_samples"):
        strategies.exp_cot_docs(None)
    write_picks(folder, "_cot", wrong=("0",))  # CoT picks wrong on pair 0
    cot = {doc["item_id"]: doc for doc in strategies.exp_cot_docs(None)}
    base = {doc["item_id"]: doc for doc in hooks.exp_own_docs(None)}
    assert strategies.doc_to_text_exp_cot(cot["0"]) == prompts.cot_prompt(
        hooks.doc_to_text_exp_composite(base["0"]).replace('"speeding"', f'"{WRONG_CUE_0}"')
    )
    assert cot["0"]["image_paths"] == [ITEMS[0]["cause_image"], ITEMS[int(WRONG_PAIR_0)]["effect_image"]]
    assert base["0"]["image_paths"] == [ITEMS[0]["cause_image"], ITEMS[0]["effect_image"]]
    assert (cot["0"]["effect_pick_correct"], cot["0"]["cue_pick_correct"]) == (False, False)
    assert WRONG_CUE_0 != "speeding" and WRONG_PAIR_0 != "0"
    for item in set(cot) - {"0"}:  # right picks: the same documents as the base task's
        expected = prompts.cot_prompt(hooks.doc_to_text_exp_composite(base[item]))
        assert strategies.doc_to_text_exp_cot(cot[item]) == expected
        assert cot[item]["image_paths"] == base[item]["image_paths"]
    next(folder.glob("*_samples_mucr_cue_cot.jsonl")).unlink()  # never the base's picks instead
    with pytest.raises(DataError, match="no samples of mucr_cue_cot"):
        strategies.exp_cot_docs(None)


# ---------------------------------------------------------------- the scene-graph store


def test_scene_graph_store_keys_by_prompt_and_image_content(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    first.write_bytes(b"one")
    second.write_bytes(b"two")
    key = scene_graphs.key("Which option?", [str(first), str(second)])
    assert key != scene_graphs.key("Which option?", [str(second), str(first)])  # order counts
    assert key != scene_graphs.key("Which phrase?", [str(first), str(second)])
    path = scene_graphs.STORE.save("model/a b", key, key, '{"objects": []}', "parsed")
    assert path.parent.name.startswith("model_a_b-")  # made safe, the exact name digested
    assert path.parent == scene_graphs.folder("model/a b")
    assert scene_graphs.lookup("model/a b", key) == '{"objects": []}'
    assert scene_graphs.lookup("model_a_b", key) is None  # another name, another folder
    copy = tmp_path / "c.png"
    copy.write_bytes(b"one")  # same content, other path: same key
    assert scene_graphs.key("Which option?", [str(copy), str(second)]) == key
    path.write_text(json.dumps({"kind": "graphs", "name": "model/a b", "key": "0" * 32, "doc": key, "value": "x"}))
    assert scene_graphs.lookup("model/a b", key) is None  # not this key's file


def test_ccot_without_graphs_is_not_computed_and_a_named_store_must_hold_some(sample, monkeypatch):
    monkeypatch.delenv("ABDUCTIVE_MUCR_SCENE_GRAPHS", raising=False)
    stage1 = list(strategies.c2e_ccot_graph_docs(None))  # no name needed: the graphs are in the run's records
    assert len(stage1) == 12 and {doc["scene_graphs"] for doc in stage1} == {""}
    (stand_in,) = strategies.cue_ccot_docs(None)  # no graphs given at all (plain lmms-eval, no variable)
    assert stand_in["no_upstream"] is True
    record = strategies.process_results_cue_ccot(stand_in, ["1"])["cue_accuracy"][1]
    values = strategies.CUE_CCOT.evaluate([record])
    assert values["cue_accuracy"] is None and values["cue_counts"]["upstream_given"] == 0
    monkeypatch.setenv("ABDUCTIVE_MUCR_SCENE_GRAPHS", "nobody")
    monkeypatch.setenv("ABDUCTIVE_CACHE", "/nonexistent-h32b")
    with pytest.raises(DataError, match="run mucr_cue_ccot_graph with ABDUCTIVE_MUCR_SCENE_GRAPHS=nobody first"):
        strategies.cue_ccot_docs(None)


def test_ccot_counts_a_graph_refused_or_gone_inside_the_limit_as_missing(sample, tmp_path, monkeypatch):
    """The graphs a ``mucr_c2e_ccot_graph --limit 6`` run stored under a name, read with the same limit: a pair whose
    entry was edited or deleted is counted as missing (wrong), never dropped from the pairs."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ABDUCTIVE_STAGE_INPUTS", raising=False)
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps({"model": "dummy", "backend": "dummy", "key": "k", "limit": 6}))
    monkeypatch.setenv("ABDUCTIVE_MUCR_SCENE_GRAPHS", "g1")
    stage1 = list(strategies.c2e_ccot_graph_docs(None))[:6]
    keys = [strategies.scene_graph_key("c2e", doc) for doc in stage1]
    paths = [scene_graphs.STORE.save("g1", key, key, '{"objects": []}', "parsed") for key in keys]
    paths[1].write_bytes(paths[1].read_bytes().replace(b'"status": "', b'"status": "x'))
    paths[3].unlink()
    docs = strategies.c2e_ccot_docs(None)
    asked = [doc["item_id"] for doc in docs]
    missing = [stand_in["item_id"] for doc in docs for stand_in in json.loads(doc["upstream_missing"])]
    ids = [doc["item_id"] for doc in stage1]
    assert asked == [ids[0], ids[2], ids[4], ids[5]] and missing == [ids[1], ids[3]]


def test_ccot_refuses_graphs_stored_by_plain_lmms_eval_under_abductive_eval(sample, tmp_path, monkeypatch):
    """Graphs stored under a name by plain lmms-eval say no model: abductive-eval (a batch's level too) cannot tell
    they are this model's and refuses them in one line; it read them with a warning telling to run through
    abductive-eval, which it was. Plain lmms-eval reads them with one warning saying why nothing is checked."""
    monkeypatch.setenv("ABDUCTIVE_MUCR_SCENE_GRAPHS", "plain")
    for doc in strategies.c2e_ccot_graph_docs(None):  # stage 1 under plain lmms-eval: no ABDUCTIVE_RUN
        strategies.process_results_ccot_graph(doc, ['{"objects": ["car"]}'])
    assert len(strategies.c2e_ccot_docs(None)) == 12
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps({"model": "dummy", "backend": "dummy", "key": "k", "limit": None}))
    with pytest.raises(StageError) as refused:
        strategies.c2e_ccot_docs(None)
    assert str(refused.value) == (
        f"mucr_c2e_ccot: the graphs of mucr_c2e_ccot_graph in ABDUCTIVE_MUCR_SCENE_GRAPHS=plain "
        f"({scene_graphs.folder('plain')}) cannot be checked against this run's model, dummy: they were stored by a "
        "run that did not say its model (plain lmms-eval); run mucr_c2e_ccot_graph for this model through "
        "abductive-eval (it runs it itself when no variable names another run)"
    )


# ---------------------------------------------------------------- reading CoT-style replies (hand-written)

COT_CHOICE_REPLIES = [
    (
        "Let's think step by step.\n1. The cause image shows a man driving fast on a highway.\n"
        "2. Option 1 shows a car wash, Option 2 shows the man being handed a ticket by a police officer, "
        "Option 3 shows a picnic and Option 4 shows a parked car.\n3. Driving too fast leads to a speeding ticket.\n"
        "Therefore, the answer is Option 2.",
        2,
    ),
    (
        "First, the cause image shows a shark swimming towards a seal. Next, I compare the options: Option 1 is a "
        "calm sea, Option 2 a beach, Option 3 the seal with a wound on its back, Option 4 a fishing boat. A shark "
        "attack would leave the seal wounded. So my final answer is 3.",
        3,
    ),
    (
        "Step 1: The effect image shows a soaked man standing in the street.\nStep 2: Option 1 - sunny park; "
        "Option 2 - dark rain clouds gathering over the same street; Option 3 - a man at a desk; Option 4 - a dog.\n"
        "Step 3: Getting soaked is explained by the rain.\n\nFinal answer: Option 2",
        2,
    ),
    (
        "Looking at the cause image, the rabbit is lifting dumbbells. Option 4 shows the rabbit flexing big muscles, "
        "while Option 1 shows it sleeping. At first Option 1 seemed possible, but sleeping does not follow from "
        "exercise.\n\n**Answer: 4**",
        4,
    ),
]
COT_CHOICE_REPLIES += [
    (
        "Let's think step by step.\n1. The cause image shows a man speeding.\n2. Option 1: car wash. Option 2: "
        "ticket. Option 3: picnic. Option 4: parked car.\n3. Speeding leads to a ticket.\n"
        "4. So the answer is Option 2.",
        2,
    ),
    (
        "To determine the effect, let's analyze each option:\n- Option 1: A man at a desk.\n- Option 2: A man holding "
        "a trophy.\n- Option 3: A man asleep.\n- Option 4: A man eating.\nHard work leads to success, so **Option 2** "
        "is the answer.",
        2,
    ),
]
COT_CUE_REPLIES = [
    (
        "Step 1: The cause image shows a car racing along a road.\nStep 2: The effect image shows a police officer "
        "writing the driver a ticket.\nStep 3: The road and the car are only the setting; the driver going too fast "
        "is what links them.\nFinal answer: 2 (speeding)",
        2,
    ),
    (
        "Let's think step by step. The man drives fast in the first picture, and in the second a police officer "
        "stops him. The car and the road are present in both but explain nothing, and the police officer is part "
        "of the effect. The cue is speeding.",
        2,
    ),
]


@pytest.mark.parametrize(("reply", "expected"), COT_CHOICE_REPLIES)
def test_the_base_reader_takes_the_final_answer_of_a_cot_reply(reply, expected):
    assert hooks.FOUR_OPTIONS.read(reply) == expected


@pytest.mark.parametrize(("reply", "expected"), COT_CUE_REPLIES)
def test_the_cue_reader_takes_the_final_answer_of_a_cot_reply(reply, expected):
    assert hooks.cue_answer({"options": ["car", "speeding", "road", "police officer"]}).read(reply) == expected


def test_a_cot_explanation_is_read_from_its_labelled_lines():
    reply = (
        "Let's think step by step. The left picture shows a man at the wheel going very fast; the right one shows "
        "him holding a ticket next to a police car. Speeding is what connects them.\n\n"
        "Cause image: A man drives his car far above the speed limit.\n"
        "Effect image: The man receives a speeding ticket from a police officer.\n"
        "Causal link: Speeding got him caught, so he was fined."
    )
    parts, labelled = hooks.Explanation().read(reply)
    assert labelled
    assert parts == (
        "A man drives his car far above the speed limit.",
        "The man receives a speeding ticket from a police officer.",
        "Speeding got him caught, so he was fined.",
    )


def test_shots_skip_the_causal_group_beyond_the_candidate_set():
    # a-b one causal group with b outside a's options (a seeded set): b is no shot of a, so only f and g are left
    items = [
        _item("a", ["b"], ["c", "d", "e"]),
        _item("b", [], ["c", "d", "e"]),
        *(_item(other, [], ["a", "b", "c"]) for other in "cdefg"),
    ]
    assert sorted(strategies.draw_shots(items, "a")) == ["f", "g"]
    with pytest.raises(DataError, match="MuCR pair a: 2 pairs outside its causal group, 3 in-context shots needed"):
        strategies.draw_shots(items, "a", k=3)


def test_scene_graphs_of_other_documents_are_refused(sample, monkeypatch):
    keys = {doc["item_id"]: strategies.scene_graph_key("c2e", doc) for doc in hooks.c2e_docs_from(LOADED)}
    items = {item: Item(key, f"graph of pair {item}", "parsed") for item, key in keys.items()}
    failed = {"5": Item(keys["5"], None, "request_failed")}  # pair 5's graph request failed: not asked, wrong
    graphs = StageOutput("graphs", "mucr_c2e_ccot_graph", {}, items | failed)
    monkeypatch.setenv("ABDUCTIVE_STAGE_INPUTS", json.dumps({"mucr_c2e_ccot_graph": save(graphs)}))
    docs = strategies.c2e_ccot_docs(None)
    assert [doc["item_id"] for doc in docs] == [item for item in keys if item != "5"]
    assert [doc["scene_graph"] for doc in docs] == [f"graph of pair {doc['item_id']}" for doc in docs]
    assert [stand_in["item_id"] for doc in docs for stand_in in json.loads(doc["upstream_missing"])] == ["5"]
    tampered = StageOutput("graphs", "mucr_c2e_ccot_graph", {}, items | {"3": items["4"]})  # answered pair 4's
    monkeypatch.setenv("ABDUCTIVE_STAGE_INPUTS", json.dumps({"mucr_c2e_ccot_graph": save(tampered)}))
    with pytest.raises(StageError, match=r"mucr_c2e_ccot: .* documents of items \['3'\] differ"):
        strategies.c2e_ccot_docs(None)


def test_a_scene_graph_is_keyed_by_every_image_its_question_shows():
    # the same cause image with the options in another order is another question: its graph is not read back
    doc = dict(hooks.c2e_docs_from(LOADED)[0])
    reordered = doc | {"image_paths": [doc["image_paths"][0], *reversed(doc["image_paths"][1:])]}
    assert strategies.scene_graph_key("c2e", reordered) != strategies.scene_graph_key("c2e", doc)


def test_fields_a_stage_adds_reach_the_stand_ins_its_documents_carry():
    # CCoT stage 1 over Exp: a pair without picks is a stand-in, scored with the same record (its ccot_level too)
    docs = documents([{"item_id": "1", MISSING_FIELD: json.dumps([{"item_id": "0"}])}])
    (doc,) = strategies._with_fields(docs, {"ccot_level": "exp", "scene_graphs": ""})
    assert doc["ccot_level"] == "exp"
    assert json.loads(doc[MISSING_FIELD]) == [{"item_id": "0", "ccot_level": "exp", "scene_graphs": ""}]
