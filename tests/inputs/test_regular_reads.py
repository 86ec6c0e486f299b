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
from abductive_tasks.inputs.loading import DataError
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


def seen_as_a_file(monkeypatch, *paths: Path) -> None:
    """Any look at ``paths`` sees a regular file: a FIFO put in its place after the look, before the read."""
    looked = Path.is_file
    monkeypatch.setattr(Path, "is_file", lambda self: self in paths or looked(self))


def test_run_files_swapped_for_a_fifo_after_any_look_are_read_as_nothing(tmp_path, monkeypatch):
    samples = tmp_path / "20261201_samples_mucr_c2e.jsonl"
    samples.write_text("{}\n")
    results = fifo_at(results_beside(samples))
    log = fifo_at(tmp_path / "eval.log")
    counted = fifo_at(samples_path(tmp_path / "20261202_results.json", "t"))
    seen_as_a_file(monkeypatch, results, log, counted)
    assert picks.samples_run(samples)[0] == {}
    assert run.log_tail(log) == ""
    assert history._samples_lines(tmp_path / "20261202_results.json", "t") is None
    stage = stages.StageOutput("picks", "mucr_c2e", {"model": "m", "task": "mucr_c2e"}, {})
    stored = fifo_at(stages.store_root() / "outputs" / f"{stage.digest}.json")
    seen_as_a_file(monkeypatch, results, log, counted, stored)
    assert stages.save(stage) == stage.digest and stages.load(stage.digest) == stage


def test_response_cache_logs_that_are_fifos_are_passed_over_by_the_purge_and_the_scrub(tmp_path):
    root = tmp_path / "responses"
    fifo = fifo_at(root / "rank0.jsonl")
    kept = '{"cache_key": "j", "response": "ok"}\n'
    (root / "rank1.jsonl").write_text('{"cache_key": "k", "response": "s3cret"}\n' + kept)
    assert cache.purge_failed_replies(root) == 0
    assert cache.scrub_cache(root, ["s3cret"]) == 1
    assert (root / "rank1.jsonl").read_text() == kept and fifo.exists()


def test_cached_entries_judge_replies_and_images_with_a_fifo_in_their_place_are_not_read(tmp_path, cache_root):
    from PIL import Image

    from abductive_tasks.inputs import images
    from abductive_tasks.reports import thumbnails
    from abductive_tasks.reports.leaderboard import render
    from abductive_tasks.scoring.judge import _ReplyCache
    from abductive_tasks.sherlock import factored_retrieval

    assert files.cache_key() is not None
    digest = "ab" * 32
    fifo_at(thumbnails.entry_path(digest, 64))
    assert thumbnails.cached(digest, 64) is None
    assert render._cached(fifo_at(tmp_path / "plots.sealed"), "key") is None
    assert factored_retrieval._restore(fifo_at(tmp_path / "chunk.npz"), 0) is None
    replies = _ReplyCache(tmp_path / "judge")
    replies.put("a" * 32, {"question": "q"}, "Score: 7")
    assert replies.get("a" * 32, {"question": "q"}) == "Score: 7"
    fifo_at(replies._path("a" * 32))
    assert replies.get("a" * 32, {"question": "q"}) is None
    picture = tmp_path / "picture.png"
    Image.new("RGB", (4, 3), "red").save(picture)
    written = Path(images.materialise_image(picture.read_bytes()))
    assert images.intact_entry(written) and images.image_size(str(picture)) == (4, 3)
    fifo_at(written)
    assert not images.intact_entry(written)
    assert images.materialise_image(picture.read_bytes()) == str(written) and images.intact_entry(written)
    fifo = fifo_at(tmp_path / "data" / "image.png")
    with pytest.raises(DataError, match=f"^row 3: unusable image {re.escape(str(fifo))}: a FIFO, not a regular file$"):
        images.check_image(fifo, "row 3")
    with pytest.raises(files.NotRegular):
        images.image_size(str(fifo))


def test_sherlock_files_and_the_llava_conversion_with_a_fifo_in_their_place_are_refused_in_one_line(tmp_path):
    from abductive_tasks.models import llava_original
    from abductive_tasks.sherlock import answer_keys, export

    fifo = fifo_at(tmp_path / "answers.json")
    with pytest.raises(DataError, match=f"^{re.escape(str(fifo))}: a FIFO, not a regular file$"):
        answer_keys.read_json(fifo)
    samples = fifo_at(tmp_path / "run" / "20261201_samples_sherlock_retrieval.jsonl")
    with pytest.raises(DataError, match=f"^{re.escape(str(samples))}: a FIFO, not a regular file$"):
        export.logged_records(tmp_path / "run")
    target = tmp_path / "converted"
    fifo_at(target / llava_original.MANIFEST)
    assert llava_original.verify(target).startswith(f"no readable {llava_original.MANIFEST} (")
    (target / llava_original.MANIFEST).unlink()
    (target / "weights.bin").write_bytes(b"w")
    manifest = {
        "format": llava_original.conversion_code(),
        "files": {"weights.bin": files.file_sha256(target / "weights.bin")},
    }
    (target / llava_original.MANIFEST).write_text(json.dumps(manifest))
    assert llava_original.verify(target) is None
    looked = Path.is_file  # listed as a file, then a FIFO put in its place before it is hashed
    fifo_at(target / "weights.bin")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "is_file", lambda self: self.name == "weights.bin" or looked(self))
        assert llava_original.verify(target) == "weights.bin unreadable (a FIFO, not a regular file)"


def test_the_sealing_key_and_a_no_follow_open_never_wait_on_a_fifo(tmp_path):
    fifo = fifo_at(tmp_path / ".cache_key")
    assert files._key_trusted(fifo) is None
    for flags in (os.O_WRONLY | os.O_CREAT | os.O_TRUNC, os.O_RDONLY, os.O_RDWR | os.O_CREAT):
        with pytest.raises(files.NotRegular, match=f"^{re.escape(str(fifo))}: a FIFO, not a regular file$"):
            files.open_nofollow(fifo, flags)
    descriptor = files.open_nofollow(tmp_path / "new.log", os.O_WRONLY | os.O_CREAT)
    try:
        assert os.get_blocking(descriptor)
    finally:
        os.close(descriptor)
