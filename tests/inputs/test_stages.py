"""The stage store: stage outputs written sealed and read back by content digest, checked against the reading run
(model, limit) and the documents built now, and documents that count every item."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re

import pytest

from abductive_tasks.inputs import files, stages
from abductive_tasks.inputs.stages import Item, Slot, StageError, StageOutput


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ABDUCTIVE_RUN", raising=False)
    monkeypatch.delenv("ABDUCTIVE_STAGE_INPUTS", raising=False)
    return tmp_path / "cache"


MODEL = {"model": "m", "backend": "dummy", "model_args": "response=1", "key": "k-m", "limit": None}


def picks(binding: dict | None = None, **values) -> StageOutput:
    items = {
        item: Item(f"doc-{item}", value, "parsed" if value else "request_failed") for item, value in values.items()
    }
    return StageOutput("picks", "mucr_c2e", binding if binding is not None else {**MODEL, "task": "mucr_c2e"}, items)


def test_outputs_are_read_back_by_content_digest_and_refused_when_edited(cache):
    output = picks(a=1, b=None)
    digest = stages.save(output)
    assert digest == output.digest and len(digest) == 64
    assert stages.load(digest) == output and output.failed == 1
    assert stages.save(output) == digest  # the same content: the same file
    path = cache / "stages" / "outputs" / f"{digest}.json"
    path.write_bytes(path.read_bytes().replace(b'"doc-a"', b'"doc-x"'))  # edited by hand
    with pytest.raises(StageError, match="damaged or not written by this tool"):
        stages.load(digest)
    with pytest.raises(StageError, match="is not a stage output digest"):
        stages.load("../../etc/passwd")
    with pytest.raises(StageError, match="no stage output 000000000000"):
        stages.load("0" * 64)
    stages.remember("task-key", None, digest)
    assert stages.latest("task-key", None) == digest and stages.latest("task-key", 6) is None


def test_an_output_stored_again_over_an_edited_file_says_so(cache, monkeypatch):
    """The batch derives a stage output again from its run's samples and stores it: an edited file in its place was
    written over in silence (a walkthrough's tampered pick), against the integrity page's "refused in one line"."""
    warned: list[str] = []
    monkeypatch.setattr(stages.logger, "warning", warned.append)
    output = picks(a=1, b=2)
    digest = stages.save(output)
    assert stages.save(output) == digest and warned == []  # intact: nothing said
    path = cache / "stages" / "outputs" / f"{digest}.json"
    path.write_bytes(path.read_bytes().replace(b'"doc-a"', b'"doc-x"'))
    assert stages.save(output) == digest and stages.load(digest) == output
    assert warned == [
        f"{path}: damaged or not written by this tool (its seal or digest does not check); not read, written again "
        "from the run's samples"
    ]


def test_a_sealed_output_under_a_name_not_its_content_digest_is_refused(cache):
    """The seal says who wrote an entry, the name what it holds: another output sealed under this name (as a
    writer's mistake would) is not read for it (the second mutation review's m20 passed without this check)."""
    other, named = picks(a=2), picks(a=1)
    path = cache / "stages" / "outputs" / f"{stages.save(named)}.json"
    path.write_bytes(files.seal(other.payload(), f"abductive-stage-output {named.digest}", cache))
    with pytest.raises(StageError, match="damaged or not written by this tool"):
        stages.load(named.digest)


def test_an_output_of_another_model_or_a_limited_run_is_refused_in_one_line():
    run = dict(MODEL)
    assert stages.checked("mucr_exp", picks(a=1), run).items["a"].value == 1
    other = {**MODEL, "model": "dumb_pixel", "backend": "dumb_pixel", "model_args": "", "key": "k-d"}
    with pytest.raises(StageError) as refused:
        stages.checked("mucr_exp", picks(other, a=1), run)
    assert "come from model dumb_pixel, this run's is m (response=1)" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert stages.checked("x", picks(other, a=1), run, named_on_purpose=True)  # a variable names the source
    assert stages.checked("x", picks(other, a=1), {**run, "sources": {"mucr_c2e": other}})  # the run names it
    with pytest.raises(StageError, match="come from a --limit 6 run, and this run has no --limit; rerun mucr_c2e"):
        stages.checked("mucr_exp", picks({**MODEL, "limit": 6}, a=1), run)
    assert stages.checked("mucr_exp", picks({**MODEL, "limit": 6}, a=1), {**run, "limit": 6})  # both limited alike
    # Without a key (a samples folder's results file), backend and arguments decide; secret values never count.
    legacy = {"model": "dummy", "backend": "dummy", "model_args": "api_key=[REDACTED],response=1", "limit": None}
    assert stages.checked("x", picks(legacy, a=1), {**run, "key": None, "model_args": "response=1,api_key=<s>"})
    assert stages.checked("x", picks({}, a=1), {})  # plain lmms-eval: nothing to check (a warning)


def test_items_are_checked_against_the_documents_built_now():
    output = picks(a=1, b=2)
    assert stages.validated("r", output, {"a": "doc-a", "b": "doc-b", "c": "doc-c"}) is output
    with pytest.raises(StageError, match=r"items \['b'\] of mucr_c2e are not in the data loaded now"):
        stages.validated("r", output, {"a": "doc-a"})
    with pytest.raises(StageError, match=r"the mucr_c2e documents of items \['b'\] differ from those built"):
        stages.validated("r", output, {"a": "doc-a", "b": "doc-b2"})


def test_every_item_is_counted_and_stand_ins_stay_among_the_items_a_limit_keeps():
    slots = [
        Slot("1", [], [{"item_id": "1"}]),
        Slot("2", [{"item_id": "2", "n": 1}], [{"item_id": "2"}]),
        Slot("3", [{"item_id": "3", "n": 2}, {"item_id": "3", "n": 3}], [{"item_id": "3"}]),
        Slot("4", [], [{"item_id": "4", "swapped": False}, {"item_id": "4", "swapped": True}]),
    ]
    rows = list(stages.counting_every_item(slots, "r", "test"))
    assert [(row["item_id"], row.get("n")) for row in rows] == [("2", 1), ("3", 2), ("3", 3)]
    assert [json.loads(row["upstream_missing"]) for row in rows] == [
        [{"item_id": "1"}],  # before the first asked item: attached to it
        [],
        [{"item_id": "4", "swapped": False}, {"item_id": "4", "swapped": True}],  # after the last: attached to it
    ]
    (only,) = stages.counting_every_item([Slot("1", [], [{"item_id": "1"}])], "r", "test")  # nothing to ask
    assert only["no_upstream"] is True and json.loads(only["upstream_missing"]) == [{"item_id": "1"}]
    assert stages.outside_limit(picks({**MODEL, "limit": 6}, a=1), "z")  # a limited run's absent item: not counted
    assert not stages.outside_limit(picks(a=1), "z")  # a full run's absent item: missing, counted


def test_named_outputs_are_one_file_per_key_with_their_document_and_binding(cache, monkeypatch):
    store = stages.NamedStore("graphs", "ABDUCTIVE_MUCR_SCENE_GRAPHS")
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(MODEL | {"limit": 6}))
    store.save("m", "key-a", "doc-a", "graph a", "parsed")
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(MODEL))
    store.save("m", "key-b", "doc-b", "graph b", "parsed")  # the same model, another run: no --limit
    output = store.output("m", "mucr_c2e_ccot_graph", {"a": "key-a", "b": "key-b", "c": "key-c"})
    assert {item: entry.value for item, entry in output.items.items()} == {"a": "graph a", "b": "graph b"}
    assert output.name == "m" and len(output.binding["entries"]) == 2
    with pytest.raises(StageError, match="come from a --limit 6 run"):  # one entry's binding is enough to refuse
        stages.checked("mucr_c2e_ccot", output, dict(MODEL))
    assert store.fingerprint("m", cache)["files"] == 2
    assert store.folder("a/b").name.startswith("a_b-") and store.folder("a/b") != store.folder("a_b")


def test_a_named_output_edited_or_written_by_hand_is_not_read(cache, monkeypatch):
    """Named entries are sealed as stage outputs are: the store reads only what it wrote, for that name and key, and
    says so once per name (a describer's folder holds hundreds of entries: one stored before sealing is each)."""
    from loguru import logger

    store = stages.NamedStore("descriptions", "ABDUCTIVE_NLEYE_DESCRIBER")
    path = store.save("m", "key-a", "doc-a", "a red car", "parsed")
    assert store.lookup("m", "key-a") == (Item("doc-a", "a red car", "parsed"), {})
    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(message.record["message"]), level="WARNING")
    try:
        path.write_bytes(path.read_bytes().replace(b"a red car", b"a blue car"))  # the value edited by hand
        assert store.lookup("m", "key-a") is None
        path.write_text(json.dumps({"kind": "descriptions", "name": "m", "key": "key-a", "doc": "doc-a", "value": "x"}))
        assert store.lookup("m", "key-a") is None  # written by hand in the layout the store writes (or by 2.1)
        store.save("m", "key-b", "doc-b", "a cat", "parsed")
        (store.folder("m") / "key-b.json").rename(store.folder("m") / "key-c.json")  # another key's entry
        assert store.lookup("m", "key-c") is None
        assert store.output("m", "nleye_describe", {"a": "key-a", "c": "key-c"}).items == {}
        other = store.save("n", "key-a", "doc-a", "a dog", "parsed")
        for module in (files, stages):  # a cache folder that cannot keep a key
            monkeypatch.setattr(module, "cache_key", lambda root=None: None)
        assert store.lookup("n", "key-a") is None and other.is_file()
    finally:
        logger.remove(sink)
    (edited, no_key) = messages  # one warning per name, naming the first entry not read and what to do
    assert edited.startswith(f"ABDUCTIVE_NLEYE_DESCRIBER=m: {path} is not read: its seal does not check (edited")
    assert edited.endswith(
        "counted as missing, as is every entry like it (run the task storing these descriptions again)"
    )
    assert f"no sealing key can be kept under {cache}; set ABDUCTIVE_CACHE" in no_key


def test_a_named_entry_refused_or_gone_inside_the_limit_counts_as_missing(monkeypatch):
    """The storing run's --limit keeps its first documents: an entry among them that is not read (its seal fails, or
    it was deleted) is missing, counted; only the documents after them lie beyond the limit."""
    store = stages.NamedStore("graphs", "ABDUCTIVE_MUCR_SCENE_GRAPHS")
    keys = {item: f"key-{item}" for item in "abcde"}  # in the order of the storing run's documents
    for limit in (3, 0.5):  # 0.5 of 5 documents: 3, rounded up as lmms-eval does
        monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(MODEL | {"limit": limit}))
        for item in "abc":
            store.save(f"m{limit}", keys[item], f"doc-{item}", f"graph {item}", "parsed")
        path = store.folder(f"m{limit}") / "key-b.json"
        path.write_bytes(path.read_bytes().replace(b"graph b", b"graph x"))  # edited: its seal fails
        (store.folder(f"m{limit}") / "key-c.json").unlink()  # deleted, though the run asked it
        output = store.output(f"m{limit}", "mucr_c2e_ccot_graph", keys)
        assert set(output.items) == {"a"} and output.unread == {"b", "c"}
        assert [stages.outside_limit(output, item) for item in "abcde"] == [False, False, False, True, True]


def test_a_named_store_of_two_models_runs_is_refused_naming_each_run(monkeypatch):
    """Entries stored under one name by runs of different models are not one model's: the read is refused in one line
    naming each run and its entries (one model's runs with different --limit stay readable: checked per binding)."""
    store = stages.NamedStore("descriptions", "ABDUCTIVE_NLEYE_DESCRIPTIONS")
    keys = {item: f"key-{item}" for item in "abc"}
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(MODEL))
    for item in "abc":
        store.save("dd", keys[item], f"doc-{item}", f"by m {item}", "parsed")
    other = {"model": "random_baseline", "backend": "random_baseline", "model_args": "", "key": "k-r", "limit": 1}
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(other))
    store.save("dd", "key-a", "doc-a", "by random_baseline", "parsed")
    with pytest.raises(StageError) as refused:
        store.output("dd", "nleye_describe", keys)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"ABDUCTIVE_NLEYE_DESCRIPTIONS=dd ({store.folder('dd')}): ")
    assert "come from runs of different models (random_baseline --limit 1: 1 entry; m (response=1): 2 entries)" in (
        message
    )
    monkeypatch.delenv("ABDUCTIVE_RUN")
    store.save("dd", "key-a", "doc-a", "by plain lmms-eval", "parsed")  # a run that did not say its model
    with pytest.raises(StageError, match=r"\(a run that did not say its model \(plain lmms-eval\): 1 entry; m "):
        store.output("dd", "nleye_describe", keys)
    monkeypatch.setenv("ABDUCTIVE_RUN", json.dumps(MODEL | {"limit": 1}))
    store.save("dd", "key-a", "doc-a", "by m again", "parsed")  # the same model, a --limit 1 run
    output = store.output("dd", "nleye_describe", keys)
    assert len(output.binding["entries"]) == 2 and output.items["a"].value == "by m again"


def test_a_named_store_of_plain_lmms_eval_is_refused_under_abductive_eval_unless_named_on_purpose(monkeypatch):
    """Entries stored by plain lmms-eval say no model: under abductive-eval, scene graphs (this run's model's own
    stage) are refused in one line as another model's are (they were read with a warning telling to run through
    abductive-eval, which it was); descriptions, whose describer the variable names on purpose, are read with one
    warning that their --limit is not checked. Plain lmms-eval reads either with one warning saying why."""
    from loguru import logger

    keys = {item: f"key-{item}" for item in "ab"}
    graphs = stages.NamedStore("graphs", "ABDUCTIVE_MUCR_SCENE_GRAPHS")
    described = stages.NamedStore("descriptions", "ABDUCTIVE_NLEYE_DESCRIPTIONS")
    for item in "ab":
        graphs.save("g", keys[item], f"doc-{item}", f"graph {item}", "parsed")
        described.save("d", keys[item], f"doc-{item}", f"text {item}", "parsed")
    graph_output = graphs.output("g", "mucr_c2e_ccot_graph", keys)
    text_output = described.output("d", "nleye_describe", keys)
    why = "they were stored by a run that did not say its model (plain lmms-eval)"
    assert graph_output.binding == {} and graph_output.unbound == why
    graph_origin, text_origin = f"ABDUCTIVE_MUCR_SCENE_GRAPHS=g ({graphs.folder('g')})", text_output.origin
    expected = (
        f"mucr_c2e_ccot: the graphs of mucr_c2e_ccot_graph in {graph_origin} cannot be checked against this run's "
        f"model, m (response=1): {why}; run mucr_c2e_ccot_graph for this model through abductive-eval (it runs it "
        "itself when no variable names another run)"
    )
    with pytest.raises(StageError, match=f"^{re.escape(expected)}$"):
        stages.checked("mucr_c2e_ccot", graph_output, MODEL)
    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(message.record["message"]), level="WARNING")
    try:
        assert stages.checked("nleye_triplet_described", text_output, MODEL, named_on_purpose=True) is text_output
        assert stages.checked("mucr_c2e_ccot", graph_output, {}) is graph_output
        assert stages.checked("nleye_triplet_described", text_output, {}, named_on_purpose=True) is text_output
        bound = dataclasses.replace(picks(a=1), origin="x_samples_mucr_c2e.jsonl")
        assert stages.checked("mucr_exp", bound, {}) is bound
    finally:
        logger.remove(sink)
    assert messages == [
        f"nleye_triplet_described: the descriptions of nleye_describe in {text_origin} are read as the variable names "
        f"them, without a check of the --limit that produced them: {why} (an item they lack counts as missing)",
        f"mucr_c2e_ccot: the graphs of mucr_c2e_ccot_graph in {graph_origin} are read without a check of the model and "
        f"--limit that produced them: {why}, and plain lmms-eval does not say this run's model and --limit "
        "(abductive-eval refuses them)",
        f"nleye_triplet_described: the descriptions of nleye_describe in {text_origin} are read without a check of the "
        f"--limit that produced them: {why}, and plain lmms-eval does not say this run's --limit",
        "mucr_exp: the picks of mucr_c2e in x_samples_mucr_c2e.jsonl are read without a check of the model and "
        "--limit that produced them: plain lmms-eval does not say this run's model and --limit (abductive-eval does, "
        "and checks them)",
    ]


def test_a_cache_that_cannot_keep_a_key_stores_nothing_and_says_what_to_set(cache, monkeypatch):
    monkeypatch.setattr(files, "cache_key", lambda root=None: None)
    store = stages.NamedStore("descriptions", "ABDUCTIVE_NLEYE_DESCRIBER")
    expected = f"cannot store a stage output: no sealing key can be kept under {cache}; set ABDUCTIVE_CACHE"
    with pytest.raises(StageError, match=f"^{re.escape(expected)}$"):
        store.save("m", "key-a", "doc-a", "a red car", "parsed")
    with pytest.raises(StageError, match=f"^{re.escape(expected)}$"):
        stages.save(StageOutput("picks", "mucr_c2e", {}, {"a": Item("doc-a", "1", "parsed")}), cache)
    assert not (cache / "stages").exists()


def test_what_each_chained_task_reads_is_declared_in_its_yaml():
    assert stages.declared_reads("mucr_exp_split") == {"mucr_c2e_split": "picks", "mucr_cue_split": "picks"}
    assert stages.declared_reads("mucr_c2e") == {} and stages.declared_reads("no_such_task") == {}


def test_a_document_digest_keeps_its_parts_apart():
    # texts as shown, each part length-prefixed: a line break moved from one text to the next is another document
    assert stages.content_digest(["ab", "c"]) != stages.content_digest(["a", "bc"])
    assert stages.content_digest(["1", "2"]) != stages.content_digest(["12"])


def test_an_item_twice_in_one_upstream_output_is_refused():
    record = {"item_id": "a", "doc_digest": "doc-a", "prediction": 1, "answer_status": "parsed"}
    with pytest.raises(StageError, match=r"^line 2: item 'a' appears twice$"):
        stages.output_from_records("picks", "mucr_c2e", [("line 1", record), ("line 2", record)], {})


def test_an_output_of_a_run_with_another_limit_is_refused():
    run = {**MODEL, "limit": 4}
    with pytest.raises(StageError, match="come from a --limit 6 run, and this run has --limit 4; rerun mucr_c2e"):
        stages.checked("mucr_exp", picks({**MODEL, "limit": 6}, a=1), run)


def test_a_binding_without_a_key_is_matched_by_backend_and_arguments_against_a_run_with_one():
    # a samples folder's results file names no model key; the run reading it has one: backend and arguments decide
    legacy = {"model": "dummy", "backend": "dummy", "model_args": "api_key=[REDACTED],response=1", "limit": None}
    run = {**MODEL, "model_args": "response=1,api_key=<s>"}
    assert stages.checked("x", picks(legacy, a=1), run).items["a"].value == 1
    with pytest.raises(StageError, match="come from model dummy"):
        stages.checked("x", picks({**legacy, "model_args": "response=2"}, a=1), run)


def test_a_given_output_of_another_upstream_task_is_refused(monkeypatch):
    digest = stages.save(picks(a=1))  # picks of mucr_c2e
    monkeypatch.setenv("ABDUCTIVE_STAGE_INPUTS", json.dumps({"mucr_cue": digest}))
    with pytest.raises(StageError, match=r"holds picks of mucr_c2e, not picks of mucr_cue"):
        stages.upstream_output("mucr_exp", "mucr_cue", "picks", lambda: None)


def test_a_named_entry_stored_without_a_value_is_missing(cache):
    store = stages.NamedStore("graphs", "ABDUCTIVE_MUCR_SCENE_GRAPHS")
    store.save("m", "key-a", "doc-a", "graph a", "parsed")
    store.save("m", "key-b", "doc-b", "  \n", "parsed")  # an unreadable reply stored as it was
    assert store.lookup("m", "key-b") is None
    output = store.output("m", "mucr_c2e_ccot_graph", {"a": "key-a", "b": "key-b"})
    assert list(output.items) == ["a"]


def test_what_readers_read_is_hashed_apart_from_whose_run_gave_it():
    hashed_key = {**MODEL, "task": "mucr_c2e", "model_args": "api_key=<secret 1111>", "key": "k-1", "task_key": "t-1"}
    rotated = {**hashed_key, "model_args": "api_key=<secret 2222>", "key": "k-2", "task_key": "t-2"}
    first, second = picks(hashed_key, a=1, b=2), picks(rotated, a=1, b=2)
    assert first.digest != second.digest and first.read_digest == second.read_digest
    assert picks(hashed_key, a=1, b=3).read_digest != first.read_digest  # another pick
    assert picks({**hashed_key, "limit": 2}, a=1, b=2).read_digest != first.read_digest  # another --limit
    items = {"a": ["doc-a", 1, "parsed"], "b": ["doc-b", 2, "parsed"]}
    content = {"items": items, "kind": "picks", "limit": None, "task": "mucr_c2e"}
    assert first.read_digest == hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def _line(item: str, pick: int | None, reply: str = "Option 1") -> dict:
    record = {"item_id": item, "doc_digest": f"doc-{item}", "prediction": pick, "answer_status": "parsed"}
    return {"doc_id": int(item), "filtered_resps": [reply], "mucr_c2e_accuracy": ["mucr_c2e_accuracy", record]}


def test_the_records_digest_is_what_the_samples_give_in_any_order():
    """What abductive-eval records of a run's samples (its results' ``samples_records``): the same lines in another
    order give it; another pick, another reply, or a line more do not; samples without a stage record give None."""
    lines = [_line("1", 2), _line("2", 4), _line("3", None, "I cannot tell.")]
    digest = stages.records_digest(lines)
    assert digest is not None and len(digest) == 64
    assert stages.records_digest(reversed(lines)) == digest
    assert stages.records_digest(json.loads(json.dumps(lines))) == digest  # as the samples file reads back
    assert stages.records_digest([_line("1", 3), *lines[1:]]) != digest  # one pick typed over
    assert stages.records_digest([_line("1", 2, "Option 2"), *lines[1:]]) != digest  # the reply
    assert stages.records_digest([*lines, _line("4", 1)]) != digest
    without = [{"doc_id": 0, "acc": ["acc", {"item_id": "1", "prediction": 2}]}]  # no document digest: nothing reads it
    assert stages.records_digest(without) is None and stages.records_digest([]) is None


def test_the_samples_an_output_was_derived_from_are_noted_and_compared(cache, tmp_path):
    """The chain notes which samples file a stored output came from, so a reuse can tell a file edited since."""
    samples = tmp_path / "20261204_samples_mucr_c2e.jsonl"
    samples.write_text("".join(json.dumps(line) + "\n" for line in [_line("1", 2), _line("2", 4)]))
    output = stages.output_from_samples("picks", "mucr_c2e", samples, MODEL)
    digest = stages.save(output)
    stages.remember("task-key", None, digest, samples=samples)
    assert stages.latest("task-key", None) == digest and stages.noted_samples("task-key", None) == samples
    stages.remember("other-key", None, digest)
    assert stages.noted_samples("other-key", None) is None  # noted without one (as before 0.1.28)
    assert not stages.differs_from(output, samples)
    samples.write_text(samples.read_text().replace('"prediction": 4', '"prediction": 1'))
    assert stages.differs_from(output, samples)
    samples.write_text("not json\n")
    assert stages.differs_from(output, samples)  # damaged: gives nothing
    samples.unlink()
    assert not stages.differs_from(output, samples)  # gone: nothing visible says otherwise
