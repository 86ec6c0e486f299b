"""Run identity: secrets, data fingerprints, task keys, reading earlier runs,
and lmms-eval's response cache kept honest."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest
from lmms_eval.api.instance import Instance
from lmms_eval.caching.response_cache import ResponseCache

from abductive_tasks.redaction import (
    collect_secrets,
    hash_secret,
    model_args_secrets,
    redact_mapping,
    redact_model_args,
    redact_text,
)
from abductive_tasks.runs import history
from abductive_tasks.runs.cache import make_safe, purge_failed_replies, repair_cache, scrub_cache
from abductive_tasks.runs.history import (
    failed_requests,
    failures_in,
    failures_text,
    limit_covers,
    other_model,
    scan_runs,
    task_state,
)
from abductive_tasks.runs.identity import (
    FileHashes,
    backend_versions,
    build_identity,
    cache_key,
    data_content,
    data_fingerprint,
    hub_repo,
    package_versions,
    task_key,
)
from abductive_tasks.runs.identity_record import (
    RUN_RECORD,
    RUNS_DIR,
    DamagedFile,
    IdentityRecord,
    quarantine,
    sealed_outputs,
)
from abductive_tasks.runs.task_index import TaskIndex, _benchmark

from helpers.runs import spec_identity

SECRET = "sk-test-0123456789abcdefSECRET"
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit reached"


# ---------------------------------------------------------------- failed requests


@pytest.mark.parametrize(
    ("task_results", "expected"),
    [
        (
            {
                "consistency_acc,none": 0.5,
                "triplet_counts,none": {"documents": 24, "request_failed": 3, "unparsable": 1},
            },
            3,
        ),
        (
            {"triplet_counts,none": {"request_failed": 2}, "judge_counts,none": {"request_failed": 5.0}},
            7,
        ),  # every dict-valued metric counts
        (
            {
                "triplet_counts,none": {"documents": 24, "request_failed": 0},
                "consistency_by_category,none": {"physical": {"acc": 0.5, "n": 2}},
            },
            0,
        ),
        (
            {"acc,none": 1.0, "alias": "nleye_triplet", "acc_stderr,none": "N/A"},
            0,
        ),  # no diagnostics dict: nothing reported failed
    ],
)
def test_failed_requests_sums_every_diagnostics_dict(task_results, expected):
    assert failed_requests(task_results) == expected


def test_failures_in_reads_one_tasks_counts_from_a_results_file_and_names_a_damaged_one(tmp_path):
    """A chain's stage run's failures, told apart as the summary tells them (the command's last line said "3")."""
    path = tmp_path / "r_results.json"
    results = {"mucr_c2e": {"c2e_counts,none": {"request_failed": 2, "exp_judge_failed": 1}}, "dve_cls": {}}
    path.write_text(json.dumps({"results": results}))
    told = (failures_in(path, "mucr_c2e"), failures_in(path, "dve_cls"), failures_in(path, "mucr_cue"))
    assert told == ("2 failed requests, 1 judge failure", "", "")
    path.write_text('{"results": {"mucr_c2e": {"c2e_counts,none": {"request_failed": -1}}}}')
    with pytest.raises(DamagedFile, match=r"r_results\.json: mucr_c2e: c2e_counts,none: request_failed is -1, not a"):
        failures_in(path, "mucr_c2e")


def test_a_judge_failing_every_request_leaves_the_task_not_done(tmp_path):
    """Judge failures count as failed requests (no judged value, no score): the task is not done and is retried
    next batch."""
    assert failed_requests({"triplet_counts,none": {"request_failed": 0, "explanations_judge_failed": 24}}) == 24
    assert failed_requests({"exp_counts,none": {"request_failed": 1, "items_judge_failed": 12}}) == 13
    assert failed_requests({"triplet_counts,none": {"request_failed": 0, "explanations_judge_failed": None}}) == 0
    model_dir = tmp_path / "m"
    write_run(model_dir, "1-judge-down", identity(), {"nleye_triplet": {**triplet(0.5), "x_counts,none": {
        "explanations_judge_failed": 24}}})  # fmt: skip
    scan = scan_runs(model_dir, identity())
    assert not scan.done("nleye_triplet", None) and scan.best("nleye_triplet").failed_requests == 24
    assert task_state(scan, "nleye_triplet", None) == "24 judge failures"  # as the run's summary names them


@pytest.mark.parametrize(
    ("counts", "text"),
    [
        ({"request_failed": 1}, "1 failed request"),
        ({"request_failed": 0, "items_judge_failed": 2}, "2 judge failures"),  # the summary's table said 0 failed
        (
            {"request_failed": 2, "items_judge_failed": 1, "explanations_judge_failed": None},
            "2 failed requests, 1 judge failure",
        ),
        ({"request_failed": 0, "explanations_judge_failed": None}, ""),
    ],
)
def test_failures_are_told_as_the_summary_tells_them(counts, text):
    """A batch said `mucr_exp (2 failed requests)` where the run's summary table counted 0 failed requests and a
    line below said the judge failed on 2: the model's failed requests and the judge's failures are told apart, and
    one is singular."""
    assert failures_text({"exp_counts,none": counts}) == text


@pytest.mark.parametrize("count", ["3", -1, 2.5, True, None])
def test_a_failure_count_that_is_not_a_count_is_an_error(count):
    with pytest.raises(ValueError, match=r"triplet_counts,none: request_failed is .*, not a count"):
        failed_requests({"triplet_counts,none": {"request_failed": count}})


# ---------------------------------------------------------------- secrets


def test_secret_values_are_hashed_and_the_rest_kept():
    model_args = (
        f"pretrained=org/m,api_key={SECRET},openai_api_key=other-key,hf_token=hf_abc,max_new_tokens=4,"
        'limit_mm_per_prompt={"image":3}'
    )
    redacted = redact_model_args(model_args)
    assert SECRET not in redacted and "other-key" not in redacted and "hf_abc" not in redacted
    assert redacted == (
        f"pretrained=org/m,api_key={hash_secret(SECRET)},openai_api_key={hash_secret('other-key')},hf_token={hash_secret('hf_abc')},"
        'max_new_tokens=4,limit_mm_per_prompt={"image":3}'
    )
    assert hash_secret(SECRET) == hash_secret(SECRET) != hash_secret(SECRET + "x")
    assert model_args_secrets(model_args) == [SECRET, "other-key", "hf_abc"]
    assert redact_mapping({"OPENAI_API_KEY": SECRET, "ABDUCTIVE_DATA": "sample", "nested": {"password": "p"}}) == {
        "OPENAI_API_KEY": hash_secret(SECRET),
        "ABDUCTIVE_DATA": "sample",
        "nested": {"password": hash_secret("p")},
    }
    assert (
        redact_text(f"model_args api_key={SECRET}, again {SECRET}", [SECRET])
        == "model_args api_key=[REDACTED], again [REDACTED]"
    )


def test_every_key_lmms_eval_redacts_is_a_secret_here_too():
    from lmms_eval.evaluator import _redact_eval_config_secrets

    names = [
        "api_key",
        "client_secret",
        "hf_token",
        "huggingface_hub_token",
        "token",
        "github_token",
        "my_secret",
        "db_password",
        "OPENAI_API_KEY",
        "max_tokens",
        "seed",
    ]
    model_args = ",".join(f"{name}=value{index}" for index, name in enumerate(names))
    theirs = dict(pair.split("=") for pair in _redact_eval_config_secrets(model_args).split(","))
    ours = dict(pair.split("=") for pair in redact_model_args(model_args).split(","))
    assert {name for name in names if theirs[name] == "[REDACTED]"} <= {
        name for name in names if ours[name].startswith("<secret ")
    }
    assert ours["max_tokens"] == "value9" and ours["seed"] == "value10"


# ---------------------------------------------------------------- data fingerprint


def test_data_fingerprint_is_content_not_place(data_copy, tmp_path):
    source = str(data_copy)
    first = data_fingerprint("nleye", source)
    assert (
        first["image_files"] == 36
        and first["annotation_files"] == 1
        and set(first)
        == {
            "source",
            "annotations_sha256",
            "images_sha256",
            "image_files",
            "annotation_files",
        }
    )
    assert first["source"] == source  # where it was found: kept for a report's staleness check, never keyed
    assert data_content(data_fingerprint("nleye", "sample")) == data_content(first)  # the installed package's copy
    moved = tmp_path / "elsewhere"
    data_copy.rename(moved)
    assert data_content(data_fingerprint("nleye", str(moved))) == data_content(first)  # moved: same data

    (moved / "nleye" / "notes.txt").write_text("not data")
    image = moved / "nleye" / "images" / "8" / "hypothesis1.png"
    stat = image.stat()
    os.utime(image, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # touched, bytes unchanged
    assert data_content(data_fingerprint("nleye", str(moved))) == data_content(first)

    image.write_bytes(image.read_bytes() + b"\0")  # a changed image
    changed = data_fingerprint("nleye", str(moved))
    assert (
        changed["images_sha256"] != first["images_sha256"]
        and changed["annotations_sha256"] == first["annotations_sha256"]
    )

    csv_path = moved / "nleye" / "test_set.csv"
    csv_path.write_text(csv_path.read_text().replace("Physical", "Social", 1))
    assert data_fingerprint("nleye", str(moved))["annotations_sha256"] != first["annotations_sha256"]


def test_file_hashes_are_remembered_by_path_size_and_mtime(data_copy, tmp_path):
    """An unchanged file is not read again; the cache is what makes a second fingerprint cheap."""
    table = tmp_path / "hashes.sqlite3"
    first = data_fingerprint("nleye", str(data_copy), FileHashes(table))
    assert len(FileHashes(table).known) == 37
    image = data_copy / "nleye" / "images" / "8" / "hypothesis1.png"
    stat = image.stat()
    image.write_bytes(b"\0" * stat.st_size)  # same size and mtime: the remembered hash is used
    os.utime(image, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert data_fingerprint("nleye", str(data_copy), FileHashes(table)) == first
    assert data_fingerprint("nleye", str(data_copy), FileHashes(tmp_path / "fresh.sqlite3")) != first


def test_a_link_at_the_file_hash_table_is_replaced_not_followed(tmp_path):
    """A link planted at ``file_hashes.sqlite3`` made SQLite create and fill the file it pointed to, outside the
    cache."""
    victim = tmp_path / "victim" / "planted.db"
    victim.parent.mkdir()
    table = tmp_path / "cache" / "file_hashes.sqlite3"
    table.parent.mkdir()
    table.symlink_to(victim)
    image = tmp_path / "image.png"
    image.write_bytes(b"pixels")
    hashes = FileHashes(table)
    hashes.sha256(image)
    hashes.save()
    assert not victim.exists() and not table.is_symlink()
    assert len(FileHashes(table).known) == 1


def test_a_source_that_does_not_resolve_is_fingerprinted_by_its_error(tmp_path):
    assert data_fingerprint("nleye", str(tmp_path)) == {
        "source": str(tmp_path),
        "error": f"ABDUCTIVE_DATA={tmp_path}: no folder {tmp_path / 'nleye'} for benchmark 'nleye'",
    }
    assert data_fingerprint("dve", "")["source"] == "hub" and "has no hub copy" in data_fingerprint("dve", "")["error"]


def test_hub_repos_are_found_where_the_loaders_keep_them():
    assert [hub_repo(benchmark) for benchmark in ("nleye", "mucr", "dve", "sherlock")] == [
        "MorVentura/NL-Eye",
        "Pinkygin/MuCR",
        None,
        None,
    ]


def test_task_facts_name_the_benchmark_and_version():
    task_index = TaskIndex()
    facts = {
        task: (task_index.facts(task).benchmark, task_index.facts(task).version)
        for task in ("nleye_triplet", "mucr_c2e", "dve_cls", "sherlock_retrieval")
    }
    assert {task: benchmark for task, (benchmark, _) in facts.items()} == {
        "nleye_triplet": "nleye",
        "mucr_c2e": "mucr",
        "dve_cls": "dve",
        "sherlock_retrieval": "sherlock",
    }
    assert all(version for _, version in facts.values())
    assert all(task_index.facts(task).benchmark for task in task_index.task_names)
    assert (
        _benchmark("abductive_tasks.nleye.hooks.triplet_docs") == "nleye"
        and _benchmark("abductive_tasks.mucr.c2e_docs") == "mucr"
    )
    assert _benchmark("utils.process_docs") is None and _benchmark(None) is None


# ---------------------------------------------------------------- identity and keys


def identity(
    nleye_data: str = "a",
    version: str = "2.0",
    model_args: str = "response=1",
    mucr_data: str = "a",
    source: str = "/data",
    environment: dict | None = None,
) -> dict:
    return build_identity(
        model={"route": "lmms", "backend": "dummy", "vllm": None},
        model_args=model_args,
        eval_args=[],
        env={"ABDUCTIVE_DATA": "/data"},
        environment=environment or {},
        judge=None,
        tasks={
            "nleye_triplet": {"benchmark": "nleye", "version": version},
            "mucr_c2e": {"benchmark": "mucr", "version": "1.0"},
        },
        data={
            "nleye": {"source": source, "annotations_sha256": nleye_data},
            "mucr": {"source": source, "annotations_sha256": mucr_data},
        },
    )


def test_task_key_follows_what_decides_the_task_only():
    base = identity()
    assert task_key(base, "nleye_triplet") == task_key(identity(), "nleye_triplet")
    assert task_key(identity(nleye_data="b"), "nleye_triplet") != task_key(base, "nleye_triplet")
    assert task_key(identity(nleye_data="b"), "mucr_c2e") == task_key(base, "mucr_c2e")  # another benchmark's data
    assert task_key(identity(mucr_data="b"), "nleye_triplet") == task_key(base, "nleye_triplet")
    # the same data found elsewhere (another ABDUCTIVE_DATA folder, another install mode) keys the same
    assert task_key(identity(source="/elsewhere"), "nleye_triplet") == task_key(base, "nleye_triplet")
    assert task_key(identity(version="2.1"), "nleye_triplet") != task_key(base, "nleye_triplet")
    assert task_key(identity(model_args="response=2"), "mucr_c2e") != task_key(base, "mucr_c2e")
    assert task_key(identity(environment={"ABDUCTIVE_JUDGE_EXTRACT": "1"}), "mucr_c2e") != task_key(base, "mucr_c2e")
    assert task_key(identity(environment={"ABDUCTIVE_WORKERS": "8", "ABDUCTIVE_JUDGE": "on"}), "mucr_c2e") == task_key(
        base, "mucr_c2e"
    )
    assert task_key(base, "nleye_pairs") is None
    # Where the data lies is not what it is: the data fingerprint (by content) stands for ABDUCTIVE_DATA.
    assert "ABDUCTIVE_DATA" not in base["env"] and not base["settings"]
    assert task_key(identity(environment={"ABDUCTIVE_DATA": "/elsewhere"}), "mucr_c2e") == task_key(base, "mucr_c2e")
    assert task_key(identity(model_args=f"api_key={SECRET}"), "mucr_c2e") == task_key(
        identity(model_args=f"api_key={SECRET}"), "mucr_c2e"
    )
    assert task_key(identity(model_args=f"api_key={SECRET}"), "mucr_c2e") != task_key(
        identity(model_args="api_key=another"), "mucr_c2e"
    )
    assert SECRET not in json.dumps(identity(model_args=f"api_key={SECRET}"))
    tasks = base["tasks"]
    assert cache_key(identity(nleye_data="b"), tasks) != cache_key(base, tasks) == cache_key(identity(), tasks)
    assert cache_key(identity(source="/elsewhere"), tasks) == cache_key(base, tasks)


def test_the_cache_key_follows_what_the_runs_tasks_read():
    """lmms-eval keys a reply on the prompt text, and MuCR's Exp is shown its pick as an image: a run reading another
    upstream output gets another response cache, or it is answered for the old picks."""

    def reading(digest: str) -> dict:
        read = identity()
        read["tasks"]["mucr_exp"] = {
            "benchmark": "mucr",
            "version": "1.0",
            "inputs": {"mucr_c2e": {"kind": "picks", "from": "run", "model": "", "digest": digest}},
        }
        return read

    base, first, second = identity(), reading("a" * 64), reading("b" * 64)
    assert cache_key(first, ["mucr_exp"]) != cache_key(second, ["mucr_exp"])
    assert cache_key(first, ["mucr_exp", "mucr_c2e"]) != cache_key(second, ["mucr_exp", "mucr_c2e"])
    assert cache_key(first, ["mucr_exp"]) == cache_key(reading("a" * 64), ["mucr_exp"])  # a rerun reuses its answers
    # A run of tasks reading nothing keeps its cache whatever another task reads.
    assert cache_key(first, ["mucr_c2e"]) == cache_key(second, ["mucr_c2e"]) == cache_key(base, ["mucr_c2e"])


def test_a_backend_of_ours_is_versioned_in_the_identity_and_a_bump_is_another_identity(monkeypatch):
    """A backend this package registers has its version (manifests.VERSIONS) among the identity's versions, so a bump
    changes the task and cache keys (the old replies and cells go stale); lmms-eval's own backends get nothing new."""
    from abductive_tasks import lmms_source
    from abductive_tasks.models.manifests import VERSIONS

    def of(backend: str) -> dict:
        return build_identity(
            model={"route": "lmms", "backend": backend, "vllm": None}, model_args="pretrained=x", eval_args=[],
            env={}, environment={}, judge=None, tasks={"mucr_c2e": {"benchmark": "mucr", "version": "1.0"}},
            data={"mucr": {"annotations_sha256": "a"}},
        )  # fmt: skip

    for theirs in ("dummy", "vllm", "openai", "qwen2_vl"):
        assert of(theirs)["versions"] == package_versions(), theirs
    ours = of("llava_hf_scorer")
    assert ours["versions"] == {**package_versions(), "backend llava_hf_scorer": VERSIONS["llava_hf_scorer"]}
    assert backend_versions("llava") == {"backend llava": VERSIONS["llava"]} and backend_versions("") == {}
    monkeypatch.setattr(lmms_source, "own_model_versions", lambda: {**VERSIONS, "llava_hf_scorer": "99.0"})
    bumped = of("llava_hf_scorer")
    assert bumped["versions"]["backend llava_hf_scorer"] == "99.0"
    assert task_key(bumped, "mucr_c2e") != task_key(ours, "mucr_c2e")
    assert cache_key(bumped, ["mucr_c2e"]) != cache_key(ours, ["mucr_c2e"])
    assert task_key(of("dummy"), "mucr_c2e") == task_key(of("dummy"), "mucr_c2e")


def test_the_identity_holds_the_version_of_the_code_that_runs_not_a_stale_installs(monkeypatch):
    """An editable install's metadata keeps the version it was installed at (this checkout's venv said 0.1.19 at
    0.1.23): results of new code were identified, cached and labelled as the old version's. Ours now comes from the
    package itself; lmms-eval's still from its installed metadata."""
    import abductive_tasks
    from abductive_tasks.runs import identity as identity_module

    installed = {"abductive-tasks": "0.1.19", "lmms-eval": "0.7.3"}
    monkeypatch.setattr(identity_module, "version", installed.__getitem__)
    assert package_versions() == {"abductive-tasks": abductive_tasks.__version__, "lmms-eval": "0.7.3"}
    assert abductive_tasks.__version__ != "0.1.19"


@pytest.mark.parametrize(
    ("run_limit", "wanted", "covers"),
    [
        (None, None, True),
        (None, 2, True),
        (2, None, False),
        (2, 2, True),
        (4, 2, True),
        (2, 4, False),
        (0.5, 0.5, True),
        (0.5, 2, False),
        (4, 0.5, False),
    ],
)
def test_limit_covers(run_limit, wanted, covers):
    assert limit_covers(run_limit, wanted) is covers


# ---------------------------------------------------------------- reading earlier runs


def write_run(
    model_dir: Path,
    name: str,
    spec_identity: dict,
    results: dict | None,
    limit: int | None = None,
    exit_status: int | None = 0,
    config: dict | None = None,
) -> Path:
    """A run folder: its record, then (``results``) lmms-eval's results file naming the record's model in its
    ``config`` (or ``config``: what it names instead)."""
    run = model_dir / RUNS_DIR / name
    IdentityRecord(spec_identity, limit, tuple(spec_identity["tasks"]), model_dir.name, "spec.yaml", exit_status).write(
        run / RUN_RECORD
    )
    if results is not None:
        effective = 24 if limit is None else limit  # as lmms-eval counts them: n-samples and <prefix>_counts agree
        for values in results.values():
            for key, value in values.items():
                if key.endswith("_counts,none"):
                    values[key] = {**value, "documents": effective}
        n_samples = {task: {"original": 24, "effective": effective} for task in results}
        (run / f"{name}_results.json").write_text(
            json.dumps(
                {
                    "results": results,
                    "config": {**as_lmms_eval_writes(spec_identity), "limit": limit, **(config or {})},
                    "n-samples": n_samples,
                }
            )
        )
    return run


def as_lmms_eval_writes(spec_identity: dict, model_args: str | None = None, secrets: tuple[str, ...] = ()) -> dict:
    """The ``model`` and ``model_args`` of a results file's ``config``, as lmms-eval writes them in a batch's child:
    ``model_args`` (clear; default: the identity's) redacted by lmms-eval, then the results JSON by the child
    (``secrets``)."""
    from lmms_eval.evaluator import _redact_eval_config_secrets

    clear = spec_identity["model"]["model_args"] if model_args is None else model_args
    config = _redact_eval_config_secrets({"model": spec_identity["model"]["backend"], "model_args": clear})
    return json.loads(redact_text(json.dumps(config), secrets))


def triplet(acc: float, failed: int = 0) -> dict:
    return {"consistency_acc,none": acc, "triplet_counts,none": {"documents": 24, "request_failed": failed}}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"results": {"nleye_triplet": {"consistency', "not valid JSON, truncated?"),
        ("[1, 2]", "not a JSON object (a list)"),
        ('{"results": [1]}', "no `results` object"),
        ('{"results": {"nleye_triplet": 0.5}}', "results of 'nleye_triplet' are not an object"),
        (
            '{"results": {"nleye_triplet": {"c,none": {"request_failed": "many"}}}}',
            "request_failed is 'many', not a count",
        ),
        (b"\xff\xfe", "unreadable"),
    ],
)
def test_damaged_results_name_the_file(tmp_path, text, reason):
    path = tmp_path / "x_results.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(
        DamagedFile,
        match="^"
        + str(path).replace(".", r"\.")
        + ": .*"
        + reason.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?"),
    ):
        history._checked_results(path, history.read_json_object(path))  # as scan_runs reads a results file


SEALED_RECORD = IdentityRecord({}, None, ("t",), "m", "spec.yaml", 0)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(
    ("files", "outputs", "changed"),
    [
        ({"r_results.json": "{}", "r_samples_t.jsonl": "x"}, {"r_results.json": "{}", "r_samples_t.jsonl": "x"}, None),
        ({"r_results.json": "{}"}, None, None),  # no seal: a run that ended before 2026-12-01, or one not ended
        (
            {"r_results.json": "{ }", "r_samples_t.jsonl": "x"},
            {"r_results.json": "{}", "r_samples_t.jsonl": "x"},
            "its results file was edited",
        ),
        ({"r_results.json": "{}"}, {"r_results.json": "{}", "r_samples_t.jsonl": "x"}, "its samples file was deleted"),
        ({"r_results.json": "{}", "r_samples_t.jsonl": "x"}, {"r_results.json": "{}"}, "its samples file was added"),
        (
            {"r_results.json": "{}", "r_samples_t.jsonl": "y"},
            {"r_samples_t.jsonl": "x"},
            "its results file was added, its samples file was edited",
        ),
        ({"r_results.json": "{}", "r_samples_u.jsonl": "y"}, {"r_results.json": "{}"}, None),  # another task's
    ],
)
def test_a_runs_files_are_held_against_the_seal_its_record_holds(tmp_path, files, outputs, changed):
    """``outputs`` given as the contents the seal was taken of."""
    for name, text in files.items():
        (tmp_path / "out" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "out" / name).write_text(text)
    seal = None if outputs is None else {f"out/{name}": sha256(text) for name, text in outputs.items()}
    record = IdentityRecord(**{**SEALED_RECORD.__dict__, "outputs": seal})
    reason = history.seal_broken(record, tmp_path, tmp_path / "out" / "r_results.json", "t", history.file_sha256)
    assert reason == (None if changed is None else f"changed since its run ended: {changed}")


def test_a_seal_is_what_the_run_left_and_a_seal_of_another_shape_is_a_damaged_record(tmp_path):
    (tmp_path / "m").mkdir()
    for name in ("m/d_results.json", "m/d_samples_t.jsonl", "m/notes.txt", "eval.log"):
        (tmp_path / name).write_text(name)
    assert sealed_outputs(tmp_path) == {name: sha256(name) for name in ("m/d_results.json", "m/d_samples_t.jsonl")}
    for outputs in ([], {"m/d_results.json": 3}):
        path = tmp_path / f"{type(outputs).__name__}.json"
        spec = identity()
        record = IdentityRecord(spec, None, tuple(spec["tasks"]), "dummy", "spec.yaml", 0)
        path.write_text(json.dumps({**record.__dict__, "tasks": list(record.tasks), "outputs": outputs}))
        with pytest.raises(DamagedFile, match="`outputs` is not an object of digests"):
            IdentityRecord.read(path)


def test_a_cell_shows_a_run_it_can_believe_before_a_newer_changed_one_under_a_limit_too():
    """Two runs of a limited spec, the newer one's files changed since it ended: the older one is shown (the newer
    one was, so the cell stayed `changed since its run` though the batch found nothing to run)."""
    older = history.Outcome(Path("old"), 4, {"a,none": 0.5}, when=1.0)
    newer = history.Outcome(Path("new"), 4, {"a,none": 0.9}, when=2.0, changed="changed since its run ended: ...")
    scan = history.Scan(outcomes={"t": [older, newer]})
    assert scan.best("t") is older and scan.done("t", 4)
    assert history.Scan(outcomes={"t": [newer]}).best("t") is newer  # shown as changed: nothing else to show


def test_a_results_name_that_is_no_regular_file_is_damaged_never_read(tmp_path):
    """A FIFO named like a results file in a run folder made the batch and the leaderboard wait forever."""
    model_dir = tmp_path / "dummy"
    spec = identity()
    run = write_run(model_dir, "1-full", spec, None)
    os.mkfifo(run / "x_results.json")
    scan = scan_runs(model_dir, spec)
    assert [str(error) for error in scan.damaged] == [f"{run / 'x_results.json'}: a FIFO, not a regular file"]


@pytest.mark.parametrize("exit_status", [None, -9, 130])
def test_a_run_stopped_between_its_results_and_its_samples_is_not_done(tmp_path, exit_status):
    """lmms-eval writes a task's results, then its samples: a run stopped between (its record ended without status 0,
    or its end never recorded: the batch killed) with results and no samples is run again; one that ended with 0 and
    has none (its samples deleted since) keeps the leaderboard's ``unverified`` cell, as before. From a blind review:
    a SIGTERM at that moment left a task ``done`` for ever."""
    spec = identity()
    write_run(tmp_path / "stopped", "1-stopped", spec, {"nleye_triplet": triplet(0.5)}, exit_status=exit_status)
    write_run(tmp_path / "ended", "1-ended", spec, {"nleye_triplet": triplet(0.5)})
    stopped, ended = scan_runs(tmp_path / "stopped", spec), scan_runs(tmp_path / "ended", spec)
    (outcome,) = stopped.outcomes["nleye_triplet"]
    assert outcome.disagreement == "counts disagree: no samples file: its run was stopped after writing its results"
    assert not stopped.done("nleye_triplet", None)
    assert ended.done("nleye_triplet", None) and ended.outcomes["nleye_triplet"][0].disagreement is None


@pytest.mark.parametrize(
    "last, counted",
    [
        (b'{"doc_id": 23}\n', 24),  # whole
        (b'{"doc_id": 23}', 23),  # its newline never written
        (b'{"doc_id": 2', 23),  # cut inside the JSON
        ('{"doc_id": 23, "resps": "\u00e9"}\n'.encode()[:-4] + b"\n", 23),  # a character cut in two, then a newline
    ],
)
def test_a_samples_file_cut_at_its_last_line_counts_only_whole_lines(tmp_path, last, counted):
    """A kill while lmms-eval appends the last sample leaves a line cut short: it is no document, so the counts
    disagree and the task is run again (it counted as the 24th before)."""
    spec = identity()
    run = write_run(tmp_path / "m", "1-cut", spec, {"nleye_triplet": triplet(0.5)})
    (results,) = run.glob("*_results.json")
    whole = b"".join(f'{{"doc_id": {index}}}\n'.encode() for index in range(23))
    history.samples_path(results, "nleye_triplet").write_bytes(whole + last)
    (outcome,) = scan_runs(tmp_path / "m", spec).outcomes["nleye_triplet"]
    expected = (
        None
        if counted == 24
        else f"counts disagree: its samples file holds {counted} whole documents, lmms-eval ran 24"
    )
    assert outcome.disagreement == expected


def test_scan_reads_only_matching_runs_and_reports_damage(tmp_path):
    model_dir = tmp_path / "dummy"
    spec = identity()
    write_run(model_dir, "1-full", spec, {"nleye_triplet": triplet(0.5)})
    write_run(model_dir, "2-smoke", spec, {"nleye_triplet": triplet(1.0)}, limit=2)
    write_run(
        model_dir,
        "3-other-data",
        identity(nleye_data="b"),
        {"nleye_triplet": triplet(0.25), "mucr_c2e": {"acc,none": 0.9}},
    )
    write_run(
        model_dir, "4-failed-requests", spec, {"nleye_triplet": triplet(0.0, failed=24), "mucr_c2e": {"acc,none": 0.75}}
    )
    write_run(model_dir, "5-crashed", spec, None, exit_status=1)
    write_run(model_dir, "6-running", spec, None, exit_status=None)
    damaged_record = write_run(model_dir, "7-damaged-record", spec, {"nleye_triplet": triplet(0.1)}) / RUN_RECORD
    damaged_record.write_text("{")
    damaged_results = next(
        (write_run(model_dir, "8-damaged-results", spec, {"nleye_triplet": triplet(0.1)})).glob("*_results.json")
    )
    damaged_results.write_text("[]")

    scan = scan_runs(model_dir, spec)
    assert sorted(str(error.path) for error in scan.damaged) == [str(damaged_record), str(damaged_results)]
    assert [outcome.run.name for outcome in scan.outcomes["nleye_triplet"]] == [
        "1-full",
        "2-smoke",
        "4-failed-requests",
        "5-crashed",
        "8-damaged-results",
    ]
    best = scan.best("nleye_triplet")
    assert best.run.name == "1-full" and best.limit is None and best.failed_requests == 0
    assert best.disagreement is None
    assert scan.done("nleye_triplet", None) and scan.done("nleye_triplet", 2)
    assert scan.best("mucr_c2e").failed_requests == 0 and scan.done(
        "mucr_c2e", None
    )  # failures in another task of the run do not count
    assert scan.failed_run("nleye_triplet")

    (model_dir / RUNS_DIR / "1-full").rename(model_dir / RUNS_DIR / "1-full.damaged")  # set aside: never read again
    only_failures = scan_runs(model_dir, spec)
    assert not only_failures.done("nleye_triplet", None) and only_failures.done("nleye_triplet", 2)
    assert (
        only_failures.best("nleye_triplet").limit is None and only_failures.best("nleye_triplet").failed_requests == 24
    )  # a full run ranks first


def test_results_naming_another_model_are_damaged_and_never_count(tmp_path):
    """A results file another model's run wrote, put in this model's run folder (its record left as it was): its
    ``config`` names another backend or other arguments, so it is a damaged file, named with the fields that differ
    (never a value), and the task is not done; the same model's results beside it still count."""
    model_dir, spec = tmp_path / "dummy", identity()
    write_run(model_dir, "1-own", spec, {"nleye_triplet": triplet(0.25)})
    other_backend = write_run(
        model_dir, "2-other-backend", spec, {"nleye_triplet": triplet(1.0)}, config={"model": "random_baseline"}
    )
    other_args = write_run(
        model_dir, "3-other-args", spec, {"nleye_triplet": triplet(1.0)}, config={"model_args": "response=2"}
    )
    both = write_run(
        model_dir,
        "4-other-model",
        spec,
        {"nleye_triplet": triplet(1.0)},
        config={"model": "dumb_pixel", "model_args": "seed=1"},
    )
    nameless = write_run(model_dir, "5-no-model", spec, {"nleye_triplet": triplet(1.0)}, config={"model": None})
    scan = scan_runs(model_dir, spec)
    record = "results of another model than its run_identity.json records"
    assert sorted(str(error) for error in scan.damaged) == [
        f"{next(other_backend.glob('*_results.json'))}: {record} (model differs)",
        f"{next(other_args.glob('*_results.json'))}: {record} (model_args differ)",
        f"{next(both.glob('*_results.json'))}: {record} (model differs, model_args differ)",
        f"{next(nameless.glob('*_results.json'))}: {record} (model differs)",
    ]
    # as a damaged results file: each of those runs ended without results for the task (a failed run)
    assert [(outcome.run.name, outcome.results is None) for outcome in scan.outcomes["nleye_triplet"]] == [
        ("1-own", False),
        ("2-other-backend", True),
        ("3-other-args", True),
        ("4-other-model", True),
        ("5-no-model", True),
    ]
    assert scan.best("nleye_triplet").results["consistency_acc,none"] == 0.25
    assert scan.answering("nleye_triplet", None).run.name == "1-own"

    alone = tmp_path / "alone"
    write_run(alone, "1-other", spec, {"nleye_triplet": triplet(1.0)}, config={"model_args": "response=2"})
    scan = scan_runs(alone, spec)
    assert not scan.done("nleye_triplet", None) and scan.best("nleye_triplet") is None
    assert scan.answering("nleye_triplet", None) is None and scan.failed_run("nleye_triplet")


@pytest.mark.parametrize(
    "model_args",
    [
        "response=1",
        "",
        f"response=1,api_key={SECRET}",
        f"pretrained=org/m,hf_token=hf_abcdefghijklmnopqrstuvwx,auth=abc,access_key={SECRET}2,max_new_tokens=4",
        f"response=1,base_url=https://user:{SECRET}@host/v1",
        'response=1,limit_mm_per_prompt={"image":3}',
    ],
)
def test_results_of_the_runs_own_model_count_whatever_it_hides(tmp_path, model_args):
    """No false alarm: a run's own results, their ``model_args`` as the batch's child writes them (secret values
    ``[REDACTED]`` by lmms-eval and by the child), match the identity holding the same ``model_args`` with secret
    values hashed, whichever side hides more."""
    secrets = collect_secrets(model_args)
    spec = build_identity(
        model={"route": "lmms", "backend": "dummy", "vllm": None},
        model_args=model_args,
        eval_args=[],
        env={},
        environment={},
        judge=None,
        tasks={"nleye_triplet": {"benchmark": "nleye", "version": "2.0"}},
        data={"nleye": {"source": "/data", "annotations_sha256": "a"}},
        secrets=secrets,
    )
    written = as_lmms_eval_writes(spec, model_args, secrets)
    assert SECRET not in json.dumps([spec, written])
    write_run(tmp_path / "m", "1", spec, {"nleye_triplet": triplet(0.5)}, config=written)
    scan = scan_runs(tmp_path / "m", spec)
    assert scan.damaged == [] and scan.done("nleye_triplet", None)
    other = as_lmms_eval_writes(spec, model_args + ",seed=2", secrets)
    write_run(tmp_path / "m", "2", spec, {"nleye_triplet": triplet(1.0)}, config=other)
    scan = scan_runs(tmp_path / "m", spec)
    assert [str(error).rsplit(" (", 1)[1] for error in scan.damaged] == ["model_args differ)"]
    assert scan.best("nleye_triplet").results["consistency_acc,none"] == 0.5


def test_set_aside_never_overwrites_and_is_never_read_again(tmp_path):
    model_dir, spec = tmp_path / "dummy", identity()
    assert quarantine(write_run(model_dir, "1-full", spec, {"nleye_triplet": triplet(0.5)})).name == "1-full.damaged"
    assert quarantine(write_run(model_dir, "1-full", spec, {"nleye_triplet": triplet(0.5)})).name == "1-full.2.damaged"
    assert sorted(path.name for path in (model_dir / RUNS_DIR).iterdir()) == ["1-full.2.damaged", "1-full.damaged"]
    assert scan_runs(model_dir, spec).outcomes == {}


# ---------------------------------------------------------------- lmms-eval's response cache


class Replies:
    """A stand-in model: ``generate_until`` answers from ``replies`` by document and records what it was asked."""

    def __init__(self, replies: dict[int, str]) -> None:
        self.replies = replies
        self.asked: list[int] = []

    def generate_until(self, requests: list[Instance]) -> list[str]:
        self.asked += [request.doc_id for request in requests]
        return [self.replies[request.doc_id] for request in requests]


def requests() -> list[Instance]:
    return [
        Instance(
            "generate_until",
            ("Which image is more plausible, 1 or 2?", {"until": []}),
            0,
            {"task": "nleye_triplet", "doc_id": doc, "repeats": 1},
        )
        for doc in range(3)
    ]


def run_cache(root: Path, model: Replies) -> list[str]:
    """One evaluation through lmms-eval's own cache, as ``--use_cache root`` with run id ``run`` does it."""
    os.environ["LMMS_CACHE_RUN_ID"] = "run"
    try:
        cache = ResponseCache.create(str(root), model="dummy", model_args=f"response=1,api_key={SECRET}")
        answers = cache.execute(model, "generate_until", requests())
        cache.finalize(success=True)
    finally:
        del os.environ["LMMS_CACHE_RUN_ID"]
    return answers


def files_holding(root: Path, text: str) -> list[str]:
    return sorted(path.name for path in root.rglob("*") if path.is_file() and text.encode() in path.read_bytes())


def test_a_merge_lock_left_by_a_killed_run_is_removed_so_the_next_run_merges(tmp_path):
    """lmms-eval's merge lock (a folder it removes in a ``finally``) left by a run killed while merging made every
    later run wait 60 s and merge nothing (a blind review). Made with lmms-eval's own lock, as a kill left it."""
    from lmms_eval.caching import response_cache

    lock = tmp_path / "cache" / "key" / response_cache._LAYERED_RUNS_DIRNAME / response_cache._LAYERED_LOCK_DIRNAME
    killed = response_cache._merge_lock(str(lock), timeout_seconds=1)
    killed.__enter__()  # never left: the run was killed while it held the lock
    waiting = response_cache._merge_lock(str(lock), timeout_seconds=1, poll_interval_seconds=0.1)
    with pytest.raises(TimeoutError), waiting:
        pass
    assert make_safe(tmp_path / "cache", ()) == [
        f"a merge lock left by a killed run removed from the response cache: {lock}"
    ]
    assert not lock.exists()
    with response_cache._merge_lock(str(lock), timeout_seconds=1):  # the next run takes it at once
        assert (lock / "owner.json").is_file()
    assert make_safe(tmp_path / "cache", ()) == []


def test_failed_replies_are_removed_from_the_cache_and_asked_again(tmp_path):
    root = tmp_path / "cache"
    assert run_cache(root, Replies({0: "1", 1: FAILED, 2: "2"})) == ["1", FAILED, "2"]
    assert run_cache(root, Replies({0: "x", 1: "x", 2: "x"})) == [
        "1",
        FAILED,
        "2",
    ]  # lmms-eval serves its cached failure
    assert purge_failed_replies(root) == 1  # from the root database and the run's shard (and the audit logs)
    again = Replies({0: "x", 1: "2", 2: "x"})
    assert run_cache(root, again) == ["1", "2", "2"] and again.asked == [1]
    assert purge_failed_replies(root) == 0


def test_secrets_are_scrubbed_from_the_cache(tmp_path):
    root = tmp_path / "cache"
    run_cache(root, Replies({0: "1", 1: "1", 2: "1"}))
    assert files_holding(root, SECRET) == ["cache.db", "rank_0.db"]  # lmms-eval keeps model_args in clear
    scrub_cache(root, [SECRET])
    assert files_holding(root, SECRET) == []
    assert run_cache(root, Replies({})) == ["1", "1", "1"]  # still a working cache


def test_purging_an_audit_log_never_writes_through_a_planted_link(tmp_path):
    """The purge rewrote an audit log through a fixed temporary name (``.<log>.tmp``), following a link planted
    there."""
    root = tmp_path / "cache"
    run_cache(root, Replies({0: "1", 1: FAILED, 2: "2"}))
    victim = tmp_path / "victim.txt"
    victim.write_text("kept")
    for log in root.rglob("*.audit.jsonl"):
        log.with_name(f".{log.name}.tmp").symlink_to(victim)
    assert purge_failed_replies(root) == 1
    assert victim.read_text() == "kept"
    assert not [line for log in root.rglob("*.audit.jsonl") for line in log.read_text().splitlines() if FAILED in line]


def test_a_reply_holding_a_secret_is_not_cached(tmp_path):
    """The response cache keeps no reply that holds a collected secret (lmms-eval stores every reply in clear, in its
    ``responses`` table and its audit logs): it is deleted, and asked again next time; the other replies stay."""
    root = tmp_path / "cache"
    run_cache(root, Replies({0: "1", 1: f"2, said {SECRET}", 2: "1"}))
    assert files_holding(root, SECRET) == ["cache.audit.jsonl", "cache.db", "rank_0.audit.jsonl", "rank_0.db"]
    assert scrub_cache(root, [SECRET]) == 1
    assert files_holding(root, SECRET) == []
    again = Replies({0: "x", 1: "2", 2: "x"})
    assert run_cache(root, again) == ["1", "2", "1"] and again.asked == [1]


def test_the_evaluation_caches_no_reply_holding_a_secret_in_the_first_place(tmp_path):
    """What abductive-eval's lmms-eval writes while it runs: no reply holding a secret, in the database or the audit
    log, and the model fingerprint (``model_args``) redacted; the cache keys stay lmms-eval's own."""
    from abductive_tasks.compat import caching_without_secrets
    from abductive_tasks.redaction import redact_text

    root = tmp_path / "cache"
    with caching_without_secrets(lambda text: redact_text(text, [SECRET])):
        answers = run_cache(root, Replies({0: "1", 1: f"2, said {SECRET}", 2: "1"}))
    assert answers == ["1", f"2, said {SECRET}", "1"]  # the run itself reads the reply as given
    assert files_holding(root, SECRET) == []
    again = Replies({0: "x", 1: "2", 2: "x"})
    assert run_cache(root, again) == ["1", "2", "1"] and again.asked == [1]  # the other replies are hits


def test_damaged_cache_files_are_set_aside_and_named(tmp_path):
    root = tmp_path / "cache"
    run_cache(root, Replies({0: "1", 1: "2", 2: "1"}))
    database, shard, audit = (
        root / "cache.db",
        root / "runs" / "run" / "rank_0.db",
        root / "runs" / "run" / "rank_0.audit.jsonl",
    )
    database.write_bytes(b"not a database\n" * 64)
    shard.write_bytes(shard.read_bytes()[:2000])
    assert repair_cache(tmp_path / "missing") == []
    messages = repair_cache(root)
    assert [message.split(" (")[0] for message in messages] == [
        f"damaged response cache {database}",
        f"damaged response cache {shard}",
    ]
    assert (
        not database.exists()
        and (root / "cache.db.damaged").exists()
        and (root / "runs" / "run" / "rank_0.db.damaged").exists()
    )
    assert repair_cache(root) == []
    replayed = Replies({})
    assert (
        run_cache(root, replayed) == ["1", "2", "1"] and replayed.asked == []
    )  # lmms-eval replays its intact audit log
    audit.write_bytes(b"\xff\xfe not UTF-8")  # lmms-eval's end-of-run merge would fail on it
    (message,) = repair_cache(root)
    assert message.startswith(f"damaged response cache {audit} (not UTF-8 text") and message.endswith(
        "set aside as rank_0.audit.jsonl.damaged; its answers are recomputed"
    )


def test_a_cache_database_lmms_eval_cannot_merge_into_fails_it(tmp_path):
    """Why the batch repairs the cache first: lmms-eval fails at the end of the run on a damaged root database."""
    root = tmp_path / "cache"
    root.mkdir()
    (root / "cache.db").write_bytes(b"not a database\n" * 64)
    with pytest.raises(sqlite3.DatabaseError, match="file is not a database"):
        run_cache(root, Replies({0: "1", 1: "1", 2: "1"}))


def tree(top: Path) -> dict[str, bytes | None]:
    """What ``top`` holds: each file's bytes, each folder (None), by path below it; links as they stand."""
    return {str(path.relative_to(top)): None if path.is_dir() else path.read_bytes() for path in top.rglob("*")}


def victim_folder(top: Path) -> Path:
    """Another user's project, shaped like a response cache: a file named like a database (not one), audit logs with
    a secret, a failed reply, text that is no UTF-8, a merge lock."""
    (top / "runs" / "run" / ".merge.lock").mkdir(parents=True)
    (top / "runs" / "run" / ".merge.lock" / "owner.json").write_text("{}")
    (top / "notes.db").write_bytes(b"not sqlite, the user's own file")
    (top / "runs" / "run" / "latin1.jsonl").write_bytes(b"caf\xe9\n")
    failed = json.dumps({"cache_key": "f", "response": json.dumps(FAILED)})
    (top / "runs" / "run" / "rank_0.audit.jsonl").write_text(f'{{"k": "{SECRET}"}}\n{failed}\n{{"k": "keep"}}\n')
    return top


def test_a_regular_response_cache_is_made_safe_as_before(tmp_path):
    """The cache of a run, no link in it: failed replies purged, replies holding a secret and the secret in the model
    fingerprint scrubbed, in place; the other replies are hits."""
    model = tmp_path / "results" / "m"
    root = model / "cache" / "key"
    run_cache(root, Replies({0: "1", 1: FAILED, 2: f"2, said {SECRET}"}))
    assert files_holding(root, SECRET) == ["cache.audit.jsonl", "cache.db", "rank_0.audit.jsonl", "rank_0.db"]
    assert make_safe(root, [SECRET]) == [
        f"1 failed request removed from the response cache {root}; they are asked again"
    ]
    assert files_holding(root, SECRET) == [] and files_holding(root, "LMMS_EVAL_REQUEST_FAILED") == []
    assert sorted(path.name for path in (model / "cache").iterdir()) == ["key"]  # nothing set aside
    again = Replies({0: "x", 1: "2", 2: "2"})
    assert run_cache(root, again) == ["1", "2", "2"] and again.asked == [1, 2]
    assert make_safe(root, [SECRET]) == []


def test_an_audit_log_that_is_a_link_is_never_read_nor_replaced(tmp_path):
    """A link planted as an audit log (``cache/<hash>/x.audit.jsonl -> ~/.env``) was read and written back as a
    regular file: the user's private file's lines, less those holding a secret, in a file every user could read (a
    blind review). It is left as it is, said, and the cache folder holding it set aside; its own files scrubbed."""
    victim = tmp_path / "home" / ".env"
    victim.parent.mkdir()
    victim.write_text(f"OPENAI_API_KEY={SECRET}\nAWS_SECRET_ACCESS_KEY=AKIA-PRIVATE-XYZ\n")
    victim.chmod(0o600)
    cache = tmp_path / "out" / "m" / "cache" / "abc"
    cache.mkdir(parents=True)
    (cache / "x.audit.jsonl").symlink_to(victim)
    (cache / "rank_0.audit.jsonl").write_text(f'{{"k": "{SECRET}"}}\n{{"k": "keep"}}\n')
    assert make_safe(cache, [SECRET]) == [
        f"{cache / 'x.audit.jsonl'} is a link to {victim} in the response cache: left as it is, never followed",
        f"the response cache {cache} holds links (lmms-eval would follow them): set aside as abc.set-aside; its "
        "replies are asked again",
    ]
    assert victim.read_text() == f"OPENAI_API_KEY={SECRET}\nAWS_SECRET_ACCESS_KEY=AKIA-PRIVATE-XYZ\n"
    assert victim.stat().st_mode & 0o777 == 0o600
    aside = cache.with_name("abc.set-aside")
    assert not cache.exists() and os.readlink(aside / "x.audit.jsonl") == str(victim)
    assert (aside / "rank_0.audit.jsonl").read_text() == '{"k": "keep"}\n'


@pytest.mark.parametrize("link_at", ["cache", "cache/key"])
def test_a_response_cache_folder_that_is_a_link_is_moved_aside_never_entered(tmp_path, link_at):
    """A link planted where the model's response cache goes (the cache folder, or the folder of its runs' caches):
    databases were set aside as damaged, secret lines deleted and merge locks removed in what it points to, and the
    run would write its cache there (a blind review). The link is moved aside before the run, nothing in its target
    read or changed; the run makes the cache anew. Planted again while the run runs: its scrub enters nothing."""
    victim = victim_folder(tmp_path / "victim_project")
    before = tree(victim)
    model = tmp_path / "results" / "gem"
    cache = model / "cache" / "key"
    link = model / link_at
    link.parent.mkdir(parents=True)
    link.symlink_to(victim, target_is_directory=True)
    within = {"within": model} if link_at == "cache" else {}  # a link at the cache folder: its parent is the default
    assert make_safe(cache, [SECRET], **within) == [
        f"{link} was a link to {victim} where the response cache goes: moved aside as {link.name}.set-aside, never "
        "followed; the cache is made anew and its replies asked again"
    ]
    assert tree(victim) == before and not link.exists()
    assert os.readlink(link.with_name(f"{link.name}.set-aside")) == str(victim)
    link.symlink_to(victim, target_is_directory=True)
    assert scrub_cache(cache, [SECRET], within=model) == 0 and purge_failed_replies(cache, within=model) == 0
    assert repair_cache(cache, within=model) == [] and tree(victim) == before


def test_a_folder_or_file_in_the_cache_that_is_a_link_is_never_entered(tmp_path):
    """A link inside the cache (here its ``runs`` folder, and a database) is listed, never entered: no lock removed,
    no file set aside, read or rewritten in what it points to; the cache's own files are scrubbed, then the folder set
    aside (lmms-eval, which opens its files by name, would follow the links)."""
    victim = victim_folder(tmp_path / "victim_project")
    before = tree(victim)
    root = tmp_path / "cache"
    root.mkdir()
    (root / "runs").symlink_to(victim / "runs", target_is_directory=True)
    (root / "cache.db").symlink_to(victim / "notes.db")
    (root / "cache.audit.jsonl").write_text(f'{{"cache_key": "s", "response": "{SECRET}"}}\n{{"k": "keep"}}\n')
    assert purge_failed_replies(root) == 0 and repair_cache(root) == [] and tree(victim) == before
    assert scrub_cache(root, [SECRET]) == 1 and tree(victim) == before
    (root / "cache.audit.jsonl").write_text(f'{{"cache_key": "s", "response": "{SECRET}"}}\n{{"k": "keep"}}\n')
    assert make_safe(root, [SECRET]) == [
        f"{root / 'cache.db'} is a link to {victim / 'notes.db'} in the response cache: left as it is, never followed",
        f"{root / 'runs'} is a link to {victim / 'runs'} in the response cache: left as it is, never followed",
        f"the response cache {root} holds links (lmms-eval would follow them): set aside as cache.set-aside; its "
        "replies are asked again",
    ]
    assert tree(victim) == before and not root.exists()
    assert (tmp_path / "cache.set-aside" / "cache.audit.jsonl").read_text() == '{"k": "keep"}\n'


def test_an_audit_log_swapped_for_a_link_after_its_listing_is_not_followed(tmp_path, monkeypatch):
    """The log is read from the descriptor checked: a link put in its place between the listing and the read is
    neither read nor replaced."""
    from abductive_tasks.inputs import files
    from abductive_tasks.runs import cache

    victim = tmp_path / "victim.txt"
    victim.write_text(f"{SECRET}\nmine\n")
    root = tmp_path / "cache"
    root.mkdir()
    (root / "rank_0.audit.jsonl").write_text(f'{{"k": "{SECRET}"}}\n')

    def swapped_then_opened(folder: int, name: str, path: Path):
        os.unlink(name, dir_fd=folder)
        os.symlink(victim, name, dir_fd=folder)
        return files.open_in(folder, name, path)

    monkeypatch.setattr(cache, "open_in", swapped_then_opened)
    assert scrub_cache(root, [SECRET]) == 0
    assert victim.read_text() == f"{SECRET}\nmine\n" and os.readlink(root / "rank_0.audit.jsonl") == str(victim)


def test_the_requested_limit_is_read_wherever_the_spec_sets_it(tmp_path):
    """`limit:`, then `--limit` in the spec's eval_args, then in the model's: the last one on the command line wins."""
    from abductive_tasks.runs.plan import requested_limit
    from abductive_tasks.runs.spec import SpecError, load_spec

    path = tmp_path / "spec.yaml"
    path.write_text(
        "tasks: [nleye_triplet]\nlimit: 5\neval_args: ['--limit', '2']\nmodels:\n"
        "  - {name: a, backend: dummy}\n  - {name: b, backend: dummy, eval_args: ['--limit=3']}\n"
        "  - {name: c, backend: dummy, eval_args: ['--limit', 'two']}\n"
        "  - {name: d, backend: dummy, eval_args: ['--limit=0.5']}\n"
    )
    spec = load_spec(path)
    assert [requested_limit(spec, model) for model in spec.models] == [2, 3]
    # an entry's unusable --limit fails it alone (it stopped the whole batch, exit 2), when the spec is read
    assert spec.invalid == {
        "c": "models[2].eval_args: --limit two: not a number",
        # a share: lmms-eval 0.7.3 takes it of the first task only (its task loop keeps that task's count)
        "d": "models[3].eval_args: --limit 0.5: lmms-eval 0.7.3 takes a share of the first task only and runs as many "
        "documents of every other task (its task loop keeps the first task's count); give a number of documents, "
        "--limit N",
    }
    path.write_text("tasks: [nleye_triplet]\neval_args: ['--lim', '-5']\nmodels:\n  - {name: a, backend: dummy}\n")
    with pytest.raises(SpecError, match=r"^eval_args: --limit -5: lmms-eval 0.7.3 takes no limit below 0 but -1"):
        load_spec(path)  # the spec's own: every model's, so the spec
    path.write_text("tasks: [nleye_triplet]\nlimit: 0.25\nmodels:\n  - {name: a, backend: dummy}\n")
    with pytest.raises(SpecError, match=r"`limit: 0.25`: .*takes a share of the first task only.*`limit:` N"):
        load_spec(path)
    with pytest.raises(SpecError, match="`limit: inf`: a number of documents is a finite number"):
        dataclasses.replace(spec, limit=float("inf"))  # a spec built in code (serve's) is checked too


def test_secrets_in_command_line_words_are_found_and_hashed():
    from abductive_tasks.redaction import args_secrets, collect_secrets, hash_secret, redact_args

    words = ["--model_args", "response=1,api_key=sk-abcdef", "--hf_token=hf_123456", "--api_key", "sk-zyxwvu", "-v"]
    assert args_secrets(words) == ["sk-abcdef", "hf_123456", "sk-zyxwvu"]
    assert redact_args(words) == [
        "--model_args",
        f"response=1,api_key={hash_secret('sk-abcdef')}",
        f"--hf_token={hash_secret('hf_123456')}",
        "--api_key",
        hash_secret("sk-zyxwvu"),
        "-v",
    ]
    found = collect_secrets(
        "password=hunter22",
        words,
        [{"OPENAI_API_KEY": "sk-envenv"}, {"nested": {"secret": "s3cr3t!"}}, {"api_key": "x"}],
        {"HF_TOKEN": "hf_environment", "USE_AUTH_TOKEN": "true", "PATH": "/usr/bin"},
    )
    assert found == (
        "hunter22", "sk-abcdef", "hf_123456", "sk-zyxwvu", "sk-envenv", "s3cr3t!", "hf_environment"
    )  # fmt: skip


def test_re_described_images_are_another_identity_for_the_described_task(tmp_path):
    """Re-describing under the same describer name changes what nleye_triplet_described reads: its task key changes
    (the batch runs it again), while nleye_triplet's stays."""
    from abductive_tasks.nleye import descriptions

    env = {"ABDUCTIVE_CACHE": str(tmp_path / "cache"), "ABDUCTIVE_NLEYE_DESCRIBER": "m", "ABDUCTIVE_DATA": "sample"}
    folder = descriptions.describer_folder("m", tmp_path / "cache")
    folder.mkdir(parents=True)
    (folder / "abc.json").write_text(json.dumps({"describer": "m", "description": "a red car"}))
    before = spec_identity(tmp_path, "nleye_triplet_described, nleye_triplet", env)
    (folder / "abc.json").write_text(json.dumps({"describer": "m", "description": "a blue car"}))
    after = spec_identity(tmp_path, "nleye_triplet_described, nleye_triplet", env)
    assert task_key(before, "nleye_triplet_described") != task_key(after, "nleye_triplet_described")
    assert task_key(before, "nleye_triplet") == task_key(after, "nleye_triplet")
    read = after["tasks"]["nleye_triplet_described"]["inputs"]["nleye_describe"]
    assert (read["kind"], read["from"], read["name"], read["files"]) == (
        "descriptions",
        "ABDUCTIVE_NLEYE_DESCRIBER",
        "m",
        1,
    )


def test_evaluator_weights_replaced_at_the_same_path_are_another_identity(tmp_path):
    weights = tmp_path / "evaluator.pth"
    weights.write_bytes(b"weights one")
    env = {"ABDUCTIVE_DVE_EVALUATOR": str(weights), "ABDUCTIVE_DATA": "sample"}
    before = spec_identity(tmp_path, "dve_gen", env)
    weights.write_bytes(b"weights two")
    os.utime(weights, ns=(1, 1_000_000_000))  # another modification time, as a replaced file has
    after = spec_identity(tmp_path, "dve_gen", env)
    assert task_key(before, "dve_gen") != task_key(after, "dve_gen")
    assert after["settings"]["ABDUCTIVE_DVE_EVALUATOR"].startswith(f"{weights}@sha256:")


@pytest.mark.parametrize(
    ("where", "arguments"),
    [
        ("top", "['--model', 'dumb_pixel']"),
        ("model", "['--model_args=pretrained=x']"),
        ("model", "['--model_arg', 'x']"),
    ],
)
def test_eval_args_may_not_override_the_backend_or_model_args(tmp_path, where, arguments):
    from abductive_tasks.runs.spec import SpecError, load_spec

    path = tmp_path / "spec.yaml"
    top = f"eval_args: {arguments}\n" if where == "top" else ""
    model = f"  - {{name: b, backend: random_baseline, eval_args: {arguments}}}\n" if where == "model" else ""
    path.write_text("tasks: [nleye_triplet]\n" + top + "models:\n  - {name: a, backend: dummy}\n" + model)
    if where == "top":
        with pytest.raises(SpecError, match="eval_args: .* would override what the batch sets"):
            load_spec(path)
    else:
        spec = load_spec(path)
        assert [m.name for m in spec.models] == ["a"] and "would override what the batch sets" in spec.invalid["b"]


def test_an_edited_file_hash_row_is_not_believed(data_copy, tmp_path):
    """A remembered hash edited in the table (same path, size and mtime) would make changed data look unchanged: its
    seal no longer matches, so the file is read again."""
    table = tmp_path / "hashes.sqlite3"
    first = data_fingerprint("nleye", str(data_copy), FileHashes(table))
    image = data_copy / "nleye" / "images" / "8" / "hypothesis1.png"
    with sqlite3.connect(table) as connection:
        (name,) = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchone()
        connection.execute(f"UPDATE {name} SET sha256 = ? WHERE path = ?", ("0" * 64, str(image.resolve())))
    assert FileHashes(table).sha256(image) != "0" * 64
    assert data_fingerprint("nleye", str(data_copy), FileHashes(table)) == first


def test_the_weights_a_model_ran_are_named_by_content_or_by_the_revision_its_cache_resolved(tmp_path, monkeypatch):
    from huggingface_hub import constants

    from abductive_tasks.runs.identity import content_digest, model_weights

    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    local = tmp_path / "tiny-llava"
    local.mkdir()
    (local / "model.safetensors").write_bytes(b"weights")
    assert model_weights(f"pretrained={local},device_map=cpu") == {
        "name": "tiny-llava",
        "sha256": content_digest(local),
    }
    before = content_digest(local)
    (local / "model.safetensors").write_bytes(b"other weights")  # replaced at the same path: another digest
    assert model_weights(f"pretrained={local}")["sha256"] == content_digest(local) != before
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    assert model_weights("pretrained=org/model") == {"name": "org/model", "revision": "main"}  # not downloaded yet
    refs = tmp_path / "hub" / "models--org--model" / "refs"
    refs.mkdir(parents=True)
    (refs / "main").write_text("a" * 40)
    assert model_weights("pretrained=org/model,revision=main") == {"name": "org/model", "revision": "a" * 40}
    # the run identity's: the revision as asked (a branch resolves only once downloaded), a pinned commit exactly
    assert model_weights("pretrained=org/model", resolved=False) == {"name": "org/model", "revision": "main"}
    assert model_weights("pretrained=org/model,revision=" + "b" * 40, resolved=False)["revision"] == "b" * 40
    assert model_weights(f"pretrained={local}", resolved=False)["sha256"] == content_digest(local)
    assert model_weights("pretrained=org/model,revision=" + "b" * 40)["revision"] == "b" * 40
    assert model_weights("model=org/model", served=None)["revision"] == "a" * 40  # lmms-eval's openai/vllm name
    assert model_weights("model=served-name", served="org/model")["revision"] == "a" * 40  # what vLLM serves
    assert model_weights("seed=3") == {} and model_weights("") == {}


def test_a_run_recorded_under_an_earlier_schema_is_another_identity_never_a_damaged_one(tmp_path, monkeypatch):
    """When what identifies a result changes (``SCHEMA`` raised, a part added that task keys read), the runs users
    made before are not current, and they are not set aside as damaged either: they lack only the new part."""
    from abductive_tasks.runs import identity as identities
    from abductive_tasks.runs.history import scan_runs

    earlier = identity()
    write_run(tmp_path / "m", "20260101-000000-aaaaaa", earlier, {"nleye_triplet": triplet(0.5)})
    assert scan_runs(tmp_path / "m", earlier).done("nleye_triplet", None)
    parts = ("schema", "model", "eval_args", "env", "settings", "judge", "versions", "new_part")
    monkeypatch.setattr(identities, "SCHEMA", identities.SCHEMA + 1)
    monkeypatch.setattr(identities, "_run_settings", lambda found: {key: found[key] for key in parts})
    now = {**identity(), "schema": identities.SCHEMA, "new_part": "x"}
    scan = scan_runs(tmp_path / "m", now)
    assert not scan.damaged and not scan.done("nleye_triplet", None) and task_key(now, "nleye_triplet") is not None
    assert task_key(earlier, "nleye_triplet") is None
    # A record of the earlier schema has no key: it matches nothing, another keyless record neither (a leaderboard
    # reading an old spec record would otherwise show a run of any other identity).
    other = identity(model_args="response=2", nleye_data="b")
    write_run(tmp_path / "m", "20260101-000001-bbbbbb", other, {"nleye_triplet": triplet(0.9)})
    assert scan_runs(tmp_path / "m", earlier).best("nleye_triplet") is None


@pytest.mark.parametrize(
    ("backend", "written"),
    [("<secret 11654b3efafa5e1b>", "[REDACTED]"), ("open<secret 11654b3efafa5e1b>", "open[REDACTED]")],
)
def test_a_backend_a_secret_hides_is_the_runs_own(backend, written):
    """A secret equal to the backend's name or a part of it (`SOME_API_KEY: dummy` with backend dummy) is hashed in
    the run record and [REDACTED] in the results: the run's own results, not another model's (the review replayed an
    endless re-run: every batch set the results aside as another model's)."""
    record = {"model": {"backend": backend, "model_args": ""}}
    assert other_model({"config": {"model": written, "model_args": ""}}, record) is None
    assert other_model({"config": {"model": "dumb_pixel", "model_args": ""}}, {"model": {"backend": "dummy"}}) == (
        "results of another model than its run_identity.json records (model differs)"
    )


# ---------------------------------------------------------------- review (mutation): parts each key must follow


def _keyed(tmp_path, **changes) -> dict:
    """An identity as :func:`identity` builds it, with any part replaced (the keyword names the argument)."""
    arguments = {
        "model": {"route": "lmms", "backend": "dummy", "vllm": None},
        "model_args": "response=1",
        "eval_args": [],
        "env": {},
        "environment": {"ABDUCTIVE_CACHE": str(tmp_path / "cache")},
        "judge": None,
        "tasks": {"mucr_c2e": {"benchmark": "mucr", "version": "1.0"}},
        "data": {"mucr": {"source": "/data", "annotations_sha256": "a"}},
    }
    return build_identity(**{**arguments, **changes})


def test_model_weights_replaced_at_the_same_path_are_another_task_key(tmp_path):
    """The weights a local ``pretrained=`` folder holds enter the identity by content, so a leaderboard cell of the
    old weights is not shown as current once the folder holds others."""
    weights = tmp_path / "tiny-llava"
    weights.mkdir()
    (weights / "model.safetensors").write_bytes(b"weights one")
    before = _keyed(tmp_path, model_args=f"pretrained={weights}")
    (weights / "model.safetensors").write_bytes(b"other weights two")
    after = _keyed(tmp_path, model_args=f"pretrained={weights}")
    assert before["model"]["weights"]["sha256"] != after["model"]["weights"]["sha256"]
    assert task_key(before, "mucr_c2e") != task_key(after, "mucr_c2e")
    assert cache_key(before, ["mucr_c2e"]) != cache_key(after, ["mucr_c2e"])


def test_the_judge_the_spec_env_and_the_versions_each_change_the_task_key(tmp_path, monkeypatch):
    base = task_key(_keyed(tmp_path), "mucr_c2e")
    judged = {"model": "gpt-4o-mini", "base_url": "http://judge"}
    assert task_key(_keyed(tmp_path, judge=judged), "mucr_c2e") != base
    assert task_key(_keyed(tmp_path, judge={**judged, "model": "gpt-4o"}), "mucr_c2e") != task_key(
        _keyed(tmp_path, judge=judged), "mucr_c2e"
    )
    assert task_key(_keyed(tmp_path, env={"SOME_SETTING": "1"}), "mucr_c2e") != base
    from abductive_tasks.runs import identity as identity_module

    monkeypatch.setattr(identity_module, "package_versions", lambda: {"abductive-tasks": "0.0.1", "lmms-eval": "9"})
    assert task_key(_keyed(tmp_path), "mucr_c2e") != base
