"""Every reader of a file this package or lmms-eval wrote (stage outputs, caches, run files, logs) refuses a FIFO, a
device or a folder in its place: it says so or reads nothing, and never waits on it (a FIFO read waits forever)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from abductive_tasks.inputs import files, stages
from abductive_tasks.lmms_source import results_beside, samples_path
from abductive_tasks.mucr import picks
from abductive_tasks.nleye import descriptions
from abductive_tasks.runs import cache, history, run
from abductive_tasks.runs.identity_record import IdentityRecord, sealed_outputs

pytestmark = pytest.mark.timeout(60)  # a FIFO read would wait forever


@pytest.fixture(autouse=True)
def cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ABDUCTIVE_RUN", raising=False)
    return tmp_path / "cache"


def fifo_at(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


def test_the_shared_readers_refuse_a_fifo_and_name_what_it_is(tmp_path):
    regular = tmp_path / "run.log"
    regular.write_text("one\ntwo\n")
    fifo = fifo_at(tmp_path / "fifo.log")
    assert files.read_regular(regular) == b"one\ntwo\n"
    assert files.file_sha256(regular) == hashlib.sha256(b"one\ntwo\n").hexdigest()
    for read in (files.read_regular, files.file_sha256):
        with pytest.raises(files.NotRegular, match=f"^{re.escape(str(fifo))}: a FIFO, not a regular file$"):
            read(fifo)
    with pytest.raises(files.NotRegular, match="a directory, not a regular file$"):
        files.file_sha256(tmp_path)
    # opened for writing with no link followed: what is there is named too (it said only "not a regular file")
    with pytest.raises(files.NotRegular, match=f"^{re.escape(str(fifo))}: a FIFO, not a regular file$"):
        files.open_nofollow(fifo, os.O_RDONLY | os.O_NONBLOCK)
    (tmp_path / "link.log").symlink_to(regular)
    assert [files.read_log(tmp_path / name) for name in ("run.log", "fifo.log", "link.log", "missing.log")] == [
        "one\ntwo\n",
        "",
        "",
        "",
    ]
    assert run.log_tail(regular, lines=1) == "two" and run.log_tail(fifo) == ""


def test_stage_outputs_and_named_entries_with_a_fifo_in_their_place_are_not_read(cache_root, capsys):
    output = stages.StageOutput("picks", "mucr_c2e", {"model": "m", "task": "mucr_c2e"}, {})
    digest = stages.save(output)
    stored = cache_root / "stages" / "outputs" / f"{digest}.json"
    fifo_at(stored)
    with pytest.raises(stages.StageError, match=f"no stage output {digest[:12]} .*a FIFO, not a regular file"):
        stages.load(digest)
    assert stages.save(output) == digest and stages.load(digest) == output  # the FIFO written over
    stages.remember("task-key", None, digest)
    fifo_at(cache_root / "stages" / "latest" / "task-key-None.json")
    assert stages.latest("task-key", None) is None
    folder = descriptions.STORE.folder("mine")
    before = descriptions.STORE.fingerprint("mine", cache_root)
    fifo_at(folder / "item.json")
    assert descriptions.STORE.lookup("mine", "item") is None
    after = descriptions.STORE.fingerprint("mine", cache_root)
    assert (before["files"], after["files"]) == (0, 1) and after["sha256"] != before["sha256"]


def test_a_response_cache_audit_log_that_is_a_fifo_is_set_aside_and_named(tmp_path):
    root = tmp_path / "responses"
    fifo = fifo_at(root / "rank0.jsonl")
    (message,) = cache.repair_cache(root)
    assert message.startswith(f"damaged response cache {fifo} (a FIFO, not a regular file): set aside as rank0.jsonl")
    assert not fifo.exists() and cache.purge_failed_replies(root) == 0 and cache.scrub_cache(root, ["s3cret"]) == 0


def test_a_run_file_swapped_for_a_fifo_after_its_look_reads_as_edited_not_waited_on(tmp_path):
    folder = tmp_path / "run"
    results = folder / "m" / "20261201_results.json"
    results.parent.mkdir(parents=True)
    results.write_text(json.dumps({"results": {"t": {}}}))
    samples_path(results, "t").write_text('{"doc_id": 0}\n')
    record = IdentityRecord({}, None, ("t",), "m", "spec.yaml", outputs=sealed_outputs(folder))
    assert sorted(record.outputs) == ["m/20261201_results.json", "m/20261201_samples_t.jsonl"]
    assert history.seal_broken(record, folder, results, "t", files.file_sha256) is None

    def swapped_then_hashed(path: Path) -> str:
        fifo_at(path)  # a FIFO put in the file's place after seal_broken looked at it
        return files.file_sha256(path)

    assert history.seal_broken(record, folder, results, "t", swapped_then_hashed) == (
        "changed since its run ended: its results file was edited, its samples file was edited"
    )


def test_the_picks_binding_reads_nothing_from_a_fifo_in_place_of_the_results_beside_them(tmp_path):
    samples = tmp_path / "samples_mucr_c2e.jsonl"
    samples.write_text("{}\n")
    fifo_at(results_beside(samples))
    assert picks.samples_binding(samples) == {}
