"""lmms-eval internals hooked by abductive_tasks.compat, through the real ``lmms-eval`` CLI (no --include_path)."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from abductive_tasks import compat, lmms_source, lmms_subcommands
from abductive_tasks.compat import loglikelihood_value

from helpers.runs import OFFLINE

LMMS_EVAL = str(Path(sys.executable).with_name("lmms-eval"))


def lmms_eval(args: list[str], cwd: Path, data: str = "sample") -> subprocess.CompletedProcess:
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": data}
    return subprocess.run([LMMS_EVAL, *args], capture_output=True, text=True, env=environment, cwd=cwd, timeout=600)


@pytest.mark.e2e
def test_plain_lmms_eval_finds_our_tasks_and_reports_our_stderr(tmp_path):
    completed = lmms_eval(
        ["--tasks", "nleye_triplet", "--model", "dumb_pixel", "--output_path", str(tmp_path / "out")], tmp_path
    )
    (path,) = (tmp_path / "out").rglob("*_results.json")
    results = json.loads(path.read_text())["results"]["nleye_triplet"]
    assert results["consistency_acc,none"] == pytest.approx(7 / 12), completed.stderr[-2000:]
    interval = results["triplet_ci95,none"]["consistency_acc"]
    assert (
        results["consistency_acc_stderr,none"] == interval["stderr"] > 0
    )  # lmms-eval's own column carries our bootstrap
    assert interval["lower"] < 7 / 12 < interval["upper"]
    table = [line for line in completed.stdout.splitlines() if line.startswith("|")]
    assert table and max(map(len, table)) < 160 and "consistency_by_category" not in completed.stdout
    assert any(line.startswith("|nleye_triplet|none  |     0|consistency_acc ") for line in table)
    assert compat.SHOW_POINTER.format(tasks="nleye_triplet") in completed.stdout.splitlines()


def test_lmms_evals_table_keeps_our_scalar_metrics_and_others_as_they_are():
    """The table lmms-eval prints: our tasks' breakdowns, intervals and counts (dicts) left to the results JSON and
    ``show``; another task's rows, dicts included, as lmms-eval prints them."""
    import lmms_eval.utils as lmms_utils

    compat.install()
    results = {
        "results": {
            "nleye_triplet": {"alias": "nleye_triplet", "consistency_acc,none": 0.5, "consistency_acc_stderr,none": 0.1,
                              "triplet_ci95,none": {"consistency_acc": {"lower": 0.2}}, "by_x,none": {"a": {"acc": 1}}},
            "mme": {"alias": "mme", "mme_perception,none": {"total": 1200.5}},
        },
        "versions": {}, "n-shot": {}, "higher_is_better": {},
    }  # fmt: skip
    printed = lmms_utils.make_table(results)
    lines = printed.splitlines()
    assert any(re.search(r"\|consistency_acc\|.*\|\s*0\.5\|±\s*\|\s*0\.1\|", line) for line in lines)
    assert "triplet_ci95" not in printed and "by_x" not in printed and "{'total': 1200.5}" in printed
    assert lines[-1] == compat.SHOW_POINTER.format(tasks="nleye_triplet")
    assert results["results"]["nleye_triplet"]["triplet_ci95,none"]  # the results themselves untouched
    assert {
        "nleye_triplet",
        "mucr",
        "sherlock_retrieval",
    } <= lmms_source.own_task_names() and "-" not in lmms_source.own_task_names()


@pytest.mark.e2e
def test_plain_lmms_eval_lists_our_tasks(tmp_path):
    listed = lmms_eval(["--tasks", "list"], tmp_path).stdout
    for name in ("nleye_triplet", "mucr_c2e", "dve_cls", "sherlock_comparison"):
        assert name in listed


def test_an_index_of_ours_alone_resolves_each_of_our_names_as_the_whole_index_does():
    """What abductive-eval builds for a command naming only our tasks (index_builtin=False): our task folder alone,
    each name at the YAML file the whole index (lmms-eval's built-in tasks too) gives it: no name of ours is theirs."""
    from lmms_eval.tasks import TaskManager

    from abductive_tasks.runs import catalog

    compat.install()
    with compat.indexing_builtin(False):
        ours = TaskManager().task_index
    everything = TaskManager().task_index
    assert set(ours) == catalog.names() and len(everything) > 10 * len(ours)
    paths = {name: info["yaml_path"] for name, info in ours.items()}
    assert {name: everything[name]["yaml_path"] for name in ours} == paths


def _comparable(value: object) -> object:
    """A parsed YAML value with each node lmms-eval's "simple" mode leaves for a ``!function`` tag as its tag and
    text (two parses give two node objects, never equal)."""
    import yaml

    if isinstance(value, yaml.Node):
        return ("node", value.tag, value.value)
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


def test_every_task_yaml_parsed_with_libyaml_is_what_pyyamls_own_parser_builds(monkeypatch):
    """The task index parses with libyaml (compat.parsing_yaml_with_libyaml): each of our task YAML files as
    lmms-eval loads it for a run (include resolved, !function hooks imported) and each of lmms-eval's built-in ones
    as its index loads them (simple mode), keys in the same order, equal to what PyYAML's pure parser builds; the
    index and the loading of a run's tasks swap the parser in while they work, and back."""
    import yaml
    from lmms_eval.tasks import TaskManager
    from lmms_eval.utils import load_yaml_config

    assert yaml.__with_libyaml__  # the locked PyYAML wheel carries libyaml
    pure = yaml.full_load
    ours = sorted(lmms_source.tasks_path().rglob("*.yaml"))
    builtin = sorted(Path(importlib.util.find_spec("lmms_eval").origin).with_name("tasks").rglob("*.yaml"))
    assert len(ours) > 90 and len(builtin) > 1000
    for paths, mode in ((ours, "full"), (builtin, "simple")):
        expected = [repr(_comparable(load_yaml_config(str(path), mode=mode))) for path in paths]
        with compat.parsing_yaml_with_libyaml():
            assert yaml.full_load is not pure
            parsed = [repr(_comparable(load_yaml_config(str(path), mode=mode))) for path in paths]
        assert yaml.full_load is pure
        assert parsed == expected
    parses = []
    libyaml = compat._libyaml_full_load
    monkeypatch.setattr(compat, "_libyaml_full_load", lambda stream: parses.append(stream) or libyaml(stream))
    compat.install()
    manager = TaskManager(include_path=str(lmms_source.tasks_path()), include_defaults=False)
    assert "nleye_triplet" in manager.task_index and len(parses) >= len(manager.task_index)
    indexed = len(parses)
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    assert list(manager.load_task_or_group(["nleye_triplet"])) == ["nleye_triplet"]
    assert len(parses) > indexed and yaml.full_load is pure  # the run's task, in full mode


HOSTILE_YAML = {  # case: the file, and what PyYAML's own parser makes of it
    "tab indent": ("a:\n\tb: 1\n", "ScannerError"),
    "unclosed flow": ("a: [1, 2\n", "ParserError"),
    "bad indent": ("a:\n  b: 1\n c: 2\n", "ParserError"),
    "NUL": ("a: b\x00c\n", "ReaderError"),
    "two documents": ("a: 1\n---\nb: 2\n", "ComposerError"),
    "object/apply": ("a: !!python/object/apply:os.getcwd []\n", "ConstructorError"),
    "undeclared tag": ("a: !include other.yaml\n", "ConstructorError"),
    "duplicate key": ("a: 1\na: 2\n", "parsed"),
    "alias": ("x: &v [1, 2]\ny: *v\n", "parsed"),
    "byte-order mark": ("\ufeffa: 1\n", "parsed"),
    "empty": ("", "parsed"),
    "YAML 1.1 scalars": ("a: yes\nb: on\nc: 0o17\nd: 1_000\ne: .inf\nf: 2001-12-14\ng: ~\n", "parsed"),
}


def _outcome(path: Path) -> tuple:
    """What ``yaml.full_load`` makes of a file, as lmms-eval opens it: the object, or the error's type and where it
    points (libyaml words some problems differently)."""
    import yaml

    try:
        with open(path, "rb") as stream:
            return ("parsed", repr(yaml.full_load(stream)))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = (mark.line, mark.column) if mark else getattr(error, "position", None)
        return (type(error).__name__, where)


@pytest.mark.parametrize("case", HOSTILE_YAML)
def test_malformed_and_hostile_yaml_meets_the_same_fate_with_libyaml(case, tmp_path):
    """A broken or hostile task YAML fails with the same error at the same place, or builds the same object, whichever
    parser reads it; neither runs ``!!python/object/apply``."""
    path = tmp_path / "task.yaml"
    text, fate = HOSTILE_YAML[case]
    path.write_text(text, encoding="utf-8")
    pure = _outcome(path)
    assert pure[0] == fate
    with compat.parsing_yaml_with_libyaml():
        assert _outcome(path) == pure


def test_overlapping_libyaml_blocks_restore_pyyamls_parser_when_the_last_closes():
    """Blocks opened in two threads and closed out of order: libyaml parses until the last closes, which puts back the
    parser the first found."""
    import yaml

    pure = yaml.full_load
    first, second = compat.parsing_yaml_with_libyaml(), compat.parsing_yaml_with_libyaml()
    first.__enter__()
    opened = threading.Event()
    closing = threading.Event()

    def other_thread() -> None:
        with second:
            opened.set()
            closing.wait(10)

    thread = threading.Thread(target=other_thread)
    thread.start()
    assert opened.wait(10)
    first.__exit__(None, None, None)  # the first to open closes first
    assert yaml.full_load is compat._libyaml_full_load
    closing.set()
    thread.join(10)
    assert yaml.full_load is pure
    with compat.parsing_yaml_with_libyaml(), compat.parsing_yaml_with_libyaml():  # nested in one thread
        assert yaml.full_load is compat._libyaml_full_load
    assert yaml.full_load is pure


def test_a_deferred_import_runs_at_the_first_use_of_an_attribute(tmp_path, monkeypatch):
    """What abductive-eval does to lmms-eval's unused `evaluate` import, on a package of the test's own: importing it
    and asking its spec do not run it; the first attribute read does, and the real module takes its place."""
    assert not [name for name in compat.DEFERRED_IMPORTS if name.split(".")[0] == "abductive_tasks"]  # none of ours
    package = tmp_path / "slow_to_import"
    package.mkdir()
    (package / "__init__.py").write_text("import sys\nsys.slow_to_import_runs += 1\nanswer = 42\n")
    (package / "part.py").write_text("from . import answer\ntwice = 2 * answer\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "slow_to_import_runs", 0, raising=False)
    monkeypatch.setattr(compat, "DEFERRED_IMPORTS", ("slow_to_import", "not_installed_anywhere"))
    try:
        compat.defer_unused_imports()

        import slow_to_import

        assert "not_installed_anywhere" not in sys.modules
        assert importlib.util.find_spec("slow_to_import").origin == str(package / "__init__.py")
        assert slow_to_import.__file__ == str(package / "__init__.py") and sys.slow_to_import_runs == 0
        assert slow_to_import.answer == 42 and sys.slow_to_import_runs == 1
        assert type(sys.modules["slow_to_import"]) is type(sys) and sys.modules["slow_to_import"].answer == 42
        assert slow_to_import.answer == 42 and sys.slow_to_import_runs == 1  # the stand-in forwards; runs once
        compat.defer_unused_imports()  # already imported: left as it is
        assert type(sys.modules["slow_to_import"]) is type(sys)
        del sys.modules["slow_to_import"]
        compat.defer_unused_imports()
        import slow_to_import.part  # a submodule first: the package is imported for real, once

        assert slow_to_import.part.twice == 84 and sys.slow_to_import_runs == 2
        assert type(sys.modules["slow_to_import"]) is type(sys)
    finally:
        for name in ("slow_to_import", "slow_to_import.part"):
            sys.modules.pop(name, None)


@pytest.mark.e2e
def test_an_evaluation_never_imports_the_deferred_modules(tmp_path):
    """abductive-eval's run, in a fresh process: lmms-eval's `evaluate` stays a stand-in to the end, so transformers'
    pipelines (and torchvision through them) are never imported for a model that needs neither."""
    script = (
        "import sys\nfrom abductive_tasks.cli import main\ncode = main(sys.argv[1:])\n"
        "print(code, type(sys.modules['evaluate']).__name__, 'transformers.pipelines' in sys.modules)\n"
    )
    arguments = ["--model", "dumb_pixel", "--tasks", "nleye_pairs", "--limit", "2", "--output_path", str(tmp_path)]
    environment = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample"}
    done = subprocess.run(
        [sys.executable, "-c", script, *arguments], capture_output=True, text=True, env=environment, timeout=600
    )
    assert done.stdout.splitlines()[-1] == "0 _DeferredModule False", done.stdout[-2000:] + done.stderr[-2000:]


@pytest.mark.e2e
def test_bad_data_fails_once_with_the_data_error(tmp_path):
    (tmp_path / "bad" / "nleye").mkdir(parents=True)
    (tmp_path / "bad" / "nleye" / "test_set.csv").write_text("x\n1\n")
    completed = lmms_eval(
        ["--tasks", "nleye_triplet", "--model", "dumb_pixel", "--output_path", str(tmp_path / "out")],
        tmp_path,
        data=str(tmp_path / "bad"),
    )
    log = completed.stdout + completed.stderr
    assert log.count("DataError: ") == 1 and "test_set.csv: missing column(s)" in log
    assert "RetryError" not in log


def test_loglikelihood_value_reads_lmms_evals_stringified_results_without_eval():
    assert loglikelihood_value("(-3.71, False)") == -3.71
    assert loglikelihood_value((2.5, True)) == 2.5
    assert loglikelihood_value("('payload', False)") == "payload"
    assert loglikelihood_value("__import__('os').getcwd()") is None  # a literal only, never code
    assert loglikelihood_value("") is None
    assert loglikelihood_value("()") is None


@pytest.mark.parametrize(
    "text",
    ["(-3.71, False)", "(3, True)", "( -.5 ,False )", "(1e-5, False)", "(5., True)", "(+2, False)", "(1_000, False)"]
    + ["(nan, False)", "(-3.71, None)", "(123456789012345678901234567890, False)", "(1e400, False)", "(-0.0, True)"],
)
def test_the_direct_read_of_a_number_result_gives_what_literal_eval_gives(text):
    try:
        expected = ast.literal_eval(text)[0]
    except ValueError:
        expected = None
    value = loglikelihood_value(text)
    assert (repr(value), type(value)) == (repr(expected), type(expected))


def test_lmms_evals_forced_colour_is_left_to_the_terminal():
    import io

    from loguru import logger

    from abductive_tasks.compat import _colour_only_on_a_terminal

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    written = {"file": io.StringIO(), "terminal": Terminal()}
    with _colour_only_on_a_terminal(logger):
        ids = [logger.add(sink, colorize=True, format="<green>{message}</green>") for sink in written.values()]
        logger.warning("hello")
    for sink_id in ids:
        logger.remove(sink_id)
    assert written["file"].getvalue() == "hello\n"
    assert written["terminal"].getvalue().startswith("\x1b[32mhello")


def test_the_ui_media_route_finds_a_logged_sample_by_its_line_offset_and_sees_a_rewritten_file(tmp_path):
    samples = tmp_path / "x_samples_nleye_triplet.jsonl"
    samples.write_text(
        '{"doc_id": 0, "reply": "a"}\n\nnot json\n[1]\n{"doc_id": 2, "reply": "b"}\n{"doc_id": 2, "reply": "late"}\n',
        encoding="utf-8",
    )
    # the first line of a document wins
    assert lmms_subcommands._logged_sample(samples, 2) == {"doc_id": 2, "reply": "b"}
    assert lmms_subcommands._logged_sample(samples, 0) == {"doc_id": 0, "reply": "a"}
    assert lmms_subcommands._logged_sample(samples, 1) is None
    samples.write_text('{"doc_id": 1, "reply": "rewritten"}\n', encoding="utf-8")  # another size: a new index
    assert lmms_subcommands._logged_sample(samples, 1) == {"doc_id": 1, "reply": "rewritten"}
    assert lmms_subcommands._logged_sample(samples, 2) is None


def test_a_samples_file_swapped_for_a_link_after_the_route_checked_it_is_refused_not_read(tmp_path):
    """The route checks the resolved samples file is inside the logs folder, then reads it: a link put in its place
    (or in place of a folder above it) between the two is refused, never followed to the file outside."""
    logs, outside = tmp_path.resolve() / "logs", tmp_path.resolve() / "outside"
    (logs / "run").mkdir(parents=True)
    outside.mkdir()
    (outside / "x_samples_t.jsonl").write_text('{"doc_id": 0, "leak": "outside-line"}\n', encoding="utf-8")
    samples = logs / "run" / "x_samples_t.jsonl"
    samples.write_text('{"doc_id": 0, "reply": "inside"}\n', encoding="utf-8")
    assert lmms_subcommands._logged_sample(samples, 0) == {"doc_id": 0, "reply": "inside"}  # as checked

    samples.unlink()
    samples.symlink_to(outside / "x_samples_t.jsonl")  # the swap, after the check
    with pytest.raises(OSError, match="symbolic link|Too many levels"):
        lmms_subcommands._logged_sample(samples, 0)
    samples.unlink()
    (logs / "run").rmdir()
    (logs / "run").symlink_to(outside, target_is_directory=True)  # a folder above it swapped
    with pytest.raises(OSError):
        lmms_subcommands._logged_sample(samples, 0)


def test_the_samples_page_counts_and_pages_a_file_as_lmms_evals_route_does(tmp_path):
    """Our samples page (read from the file checked) gives what lmms-eval 0.7.3's own handler gives for the same file:
    blank lines, lines that are no JSON and JSON that is no object skipped, ``total`` the objects counted."""
    import asyncio

    from lmms_eval.tui import server

    logs = tmp_path.resolve() / "logs"
    logs.mkdir()
    (logs / "x_results.json").write_text('{"results": {}}', encoding="utf-8")
    lines = ['{"doc_id": 0}', "", "not json", "[1]", '{"doc_id": 1, "v": NaN}', "  ", '{"doc_id": 2}', '"s"', "{}"]
    samples = logs / "x_samples_t.jsonl"
    samples.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for offset, limit in ((0, 50), (0, 2), (1, 2), (3, 1), (4, 5), (9, 3)):
        theirs = asyncio.run(server.get_log_run_samples("x_results.json", "t", str(logs), offset, limit))
        ours, total = lmms_subcommands._samples_page(samples, offset, limit)
        assert (json.dumps(ours), total) == (json.dumps(theirs.samples), theirs.total), (offset, limit)
    assert lmms_subcommands._samples_page(samples, 1, 2)[1] == 4  # hand-counted: doc 0, doc 1, doc 2, {}
    # a line that is no UTF-8 is skipped too (lmms-eval's handler fails the whole page: HTTP 500)
    samples.write_bytes(b'{"doc_id": 0}\n{"doc_id": "\xff"}\n{"doc_id": 3}\n')
    assert lmms_subcommands._samples_page(samples, 0, 50) == ([{"doc_id": 0}, {"doc_id": 3}], 2)


def test_a_results_or_samples_file_swapped_after_the_check_is_refused_and_a_bad_results_file_named(tmp_path):
    """The results and samples pages read the resolved file with no link followed: a link swapped in for it (to a
    file outside the logs folder) or a FIFO is an OSError (HTTP 404), never read; results that are no JSON object a
    ValueError (HTTP 500), as lmms-eval's handler answers."""
    logs, outside = tmp_path.resolve() / "logs", tmp_path.resolve() / "outside"
    logs.mkdir()
    outside.mkdir()
    (outside / "leak.json").write_text('{"leak": "outside-results"}', encoding="utf-8")
    results, samples = logs / "x_results.json", logs / "x_samples_t.jsonl"
    results.write_text('{"results": {"t": {}}}', encoding="utf-8")
    samples.write_text('{"doc_id": 0}\n', encoding="utf-8")
    assert lmms_subcommands._run_results(results) == {"results": {"t": {}}}
    assert lmms_subcommands._samples_page(samples, 0, 50) == ([{"doc_id": 0}], 1)
    for path in (results, samples):
        path.unlink()
        path.symlink_to(outside / "leak.json")
    with pytest.raises(OSError, match="symbolic link|Too many levels"):
        lmms_subcommands._run_results(results)
    with pytest.raises(OSError, match="symbolic link|Too many levels"):
        lmms_subcommands._samples_page(samples, 0, 50)
    for path in (results, samples):
        path.unlink()
        os.mkfifo(path)  # nothing ever writes to it: opened blocking, it would hang the request
    with pytest.raises(OSError):
        lmms_subcommands._run_results(results)
    with pytest.raises(OSError):
        lmms_subcommands._samples_page(samples, 0, 50)
    results.unlink()
    for text, why in (("{", "JSON is invalid"), ("[1]", "must be a JSON object"), ("[" * 100000, "JSON is invalid")):
        results.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=why):
            lmms_subcommands._run_results(results)


# ---------------------------------------------------------------- each patch of lmms-eval, without a run


class _Spec(compat.OwnStderr):
    """An owner of an aggregation whose stderr is its own, as a TaskSpec is."""

    def aggregate(self, items):
        return sum(items) / len(items)

    def stderr(self, items):
        return 0.125


def test_our_aggregations_report_their_own_stderr_and_others_lmms_evals():
    """What `_route_stderr` gives lmms-eval's `stderr_for_metric`, and through it `TaskOutput`'s `<metric>_stderr`."""
    import lmms_eval.evaluator_utils as evaluator_utils
    from lmms_eval.api.metrics import mean, mean_stderr

    compat.install()
    spec = _Spec()
    assert evaluator_utils.stderr_for_metric(metric=spec.aggregate, bootstrap_iters=100) == spec.stderr
    assert evaluator_utils.stderr_for_metric(metric=spec.aggregate, bootstrap_iters=0) is None
    assert evaluator_utils.stderr_for_metric(metric=mean, bootstrap_iters=100) is mean_stderr  # lmms-eval's own
    assert evaluator_utils.stderr_for_metric(metric=mean, bootstrap_iters=0) is None
    assert evaluator_utils.stderr_for_metric(metric=lambda items: 0, bootstrap_iters=100) is None
    task = types.SimpleNamespace(aggregation=lambda: {"acc": spec.aggregate, "plain": mean}, args=None)
    output = types.SimpleNamespace(
        task=task, agg_metrics={}, sample_metrics={("acc", "none"): [1, 0, 1, 1], ("plain", "none"): [1.0, 3.0]}
    )
    evaluator_utils.TaskOutput.calculate_aggregate_metric(output, bootstrap_iters=100)
    assert output.agg_metrics["acc,none"] == 0.75 and output.agg_metrics["acc_stderr,none"] == 0.125
    assert output.agg_metrics["plain_stderr,none"] == pytest.approx(mean_stderr([1.0, 3.0]))


def test_a_data_error_in_lmms_evals_download_is_raised_at_once_and_other_errors_retried(monkeypatch):
    """`_stop_retrying_data_errors`: lmms-eval's `download` retries 5 times, 2 s apart, then raises a RetryError; our
    DataError (a PermanentLoadError) is raised itself, at once, after any transient error was retried."""
    from lmms_eval.api import task as lmms_task

    from abductive_tasks.inputs.loading import DataError

    compat.install()
    monkeypatch.setattr(lmms_task.ConfigurableTask.download.retry, "sleep", lambda seconds: None)
    calls: list[int] = []

    def download_config():  # the first thing `download` does
        calls.append(1)
        raise OSError("flaky network") if len(calls) == 1 else DataError("test_set.csv: missing column(s)")

    monkeypatch.setattr(lmms_task, "DownloadConfig", download_config)
    with pytest.raises(DataError, match="missing column"):
        lmms_task.ConfigurableTask.download(object())
    assert len(calls) == 2  # the OSError retried once, the DataError not at all


def test_a_registered_filter_is_built_by_name_from_both_of_lmms_evals_registries(monkeypatch):
    from lmms_eval import filters
    from lmms_eval.api import registry

    monkeypatch.setattr(filters, "FILTER_REGISTRY", dict(filters.FILTER_REGISTRY))
    monkeypatch.setattr(registry, "FILTER_REGISTRY", dict(registry.FILTER_REGISTRY))

    class Upper:
        def __init__(self, **settings):
            self.settings = settings

        def apply(self, resps, docs):
            return [[reply.upper() for reply in replies] for replies in resps]

    assert compat.filter_registered("upper_for_test") is None
    compat.register_filter("upper_for_test", Upper)
    assert compat.filter_registered("upper_for_test") is Upper
    assert registry.FILTER_REGISTRY["upper_for_test"] is Upper and filters.get_filter("upper_for_test") is Upper
    ensemble = filters.build_filter_ensemble("u", [["upper_for_test", {"x": 1}]])
    assert ensemble.filters[0].settings == {"x": 1}
    assert ensemble.filters[0].apply([["a", "b"]], [{}]) == [["A", "B"]]


def test_evaluate_cli_applies_each_of_its_patches_while_lmms_eval_runs_and_restores_them(monkeypatch, capsys):
    """What `evaluate_cli` changes in lmms-eval for the length of a run, each seen from inside a stand-in for
    lmms-eval's `cli_evaluate`: the run's name, the table, the written and printed text, the results, the quiet
    tracebacks, the finished runs and the exit code; everything as it was afterwards."""
    import lmms_eval.__main__ as lmms_main
    from lmms_eval.loggers import evaluation_tracker
    from lmms_eval.loggers.evaluation_tracker import GeneralConfigTracker

    compat.install()
    monkeypatch.setattr(lmms_main.evaluator, "simple_evaluate", lambda: {"results": {}})
    monkeypatch.setattr(lmms_main, "cli_evaluate_single", lambda args: ({"results": {"t": {}}}, None))
    before = (lmms_main.make_table, evaluation_tracker.json, GeneralConfigTracker.log_experiment_args,
              lmms_main.evaluator.simple_evaluate, lmms_main.traceback, lmms_main.cli_evaluate_single)  # fmt: skip
    seen: dict = {}

    def cli_evaluate() -> None:
        seen["argv"] = list(sys.argv)
        tracker = GeneralConfigTracker()
        tracker.log_experiment_args("dummy", "pretrained=x", None, None, False)
        seen["name"] = (tracker.model_name, tracker.model_name_sanitized)
        seen["table"] = lmms_main.make_table({"results": {"hidden": {"a": 1}}})
        seen["json"] = evaluation_tracker.json.dumps({"k": "SECRET"})
        lmms_main.print("dummy (api_key=sk-abc,pretrained=x) SECRET")
        seen["results"] = lmms_main.evaluator.simple_evaluate()
        try:
            raise KeyError("quiet one")
        except KeyError:
            lmms_main.traceback.print_exc()
        lmms_main.cli_evaluate_single(types.SimpleNamespace(model="dummy"))
        raise SystemExit(3)

    monkeypatch.setattr(lmms_main, "cli_evaluate", cli_evaluate)
    finished, failures, code = compat.evaluate_cli(
        ["--model", "dummy"],
        name_runs=lambda source, args: (f"{source}:{args['pretrained']}", "folder"),
        hide_in_table={"hidden"},
        table_note="nothing left",
        redact=lambda text: text.replace("SECRET", "[R]"),
        quiet=(KeyError,),
        annotate=lambda results: results.setdefault("ours", 1),
    )
    printed = capsys.readouterr()
    assert seen["argv"] == ["abductive-eval", "--model", "dummy"] and seen["name"] == ("dummy:x", "folder")
    assert seen["table"] == "nothing left" and seen["json"] == '{"k": "[R]"}'
    assert "dummy (api_key=[REDACTED],pretrained=x) [R]" in printed.out and "quiet one" not in printed.err
    assert seen["results"] == {"results": {}, "ours": 1}
    assert (finished, failures, code) == ([{"results": {"t": {}}}], [], 1)
    after = (lmms_main.make_table, evaluation_tracker.json, GeneralConfigTracker.log_experiment_args,
             lmms_main.evaluator.simple_evaluate, lmms_main.traceback, lmms_main.cli_evaluate_single)  # fmt: skip
    assert after == before and "print" not in vars(lmms_main)


# ---------------------------------------------------------------- our models in lmms-eval's registry


def test_our_manifests_imported_before_lmms_evals_models_still_register_our_models():
    """Importing our manifests first (a test reading VERSIONS) imports lmms-eval's models, which load their entry
    points, ours half run: it had no MANIFESTS yet, lmms-eval logged 'Failed to load model entry-point manifests' and
    our models were missing for the rest of the process (three test_cli tests failed after tests/runs/test_identity.py
    in one pytest worker: unknown model 'dumb_pixel')."""
    code = (
        "from abductive_tasks.models.manifests import VERSIONS\n"
        "from lmms_eval.models import MODEL_REGISTRY_V2 as registry\n"
        "print(sorted(set(VERSIONS) - set(registry.list_model_names())), registry.resolve('llava').class_path)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **OFFLINE})
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[-1] == "[] abductive_tasks.models.llava.Llava"
    assert "Failed to load" not in ran.stdout + ran.stderr


@pytest.fixture
def registry_without_ours(monkeypatch):
    """lmms-eval's model registry as a failed load of its entry points leaves it: its built-in backends alone."""
    import lmms_eval.models
    from lmms_eval.models.registry_v2 import ModelRegistryV2

    registry = ModelRegistryV2()
    for manifest in lmms_eval.models._build_builtin_manifests():
        registry.register_manifest(manifest)
    monkeypatch.setattr(lmms_eval.models, "MODEL_REGISTRY_V2", registry)
    return registry


def test_our_models_missing_from_lmms_evals_registry_are_loaded_again(registry_without_ours):
    assert "dumb_pixel" not in registry_without_ours.list_model_names()
    assert "dumb_pixel" in compat.model_names() and "dumb_pixel" in registry_without_ours.list_model_names()
    assert compat.model_class_path("llava_hf") == "abductive_tasks.models.llava_hf.LlavaHfChat"  # ours over its own


def test_our_models_failing_to_load_are_one_line_saying_why(registry_without_ours, monkeypatch, capsys):
    from abductive_tasks import cli

    def fail(*args, **kwargs):
        raise ImportError("cannot import name 'x' from 'y'")

    monkeypatch.setattr(registry_without_ours, "load_entrypoint_manifests", fail)
    with pytest.raises(compat.OwnModelsMissing) as missing:
        compat.model_names()
    assert str(missing.value) == (
        "our models are missing from lmms-eval's registry: loading its lmms_eval.models entry points failed: "
        "ImportError: cannot import name 'x' from 'y'"
    )
    monkeypatch.setattr(registry_without_ours, "load_entrypoint_manifests", lambda *args, **kwargs: None)
    with pytest.raises(compat.OwnModelsMissing, match=r"our models \(random_baseline, dumb_pixel, .*not installed"):
        compat.model_class_path("dumb_pixel")
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    assert cli.main(["--model", "dumb_pixel", "--tasks", "nleye_triplet", "--limit", "1"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("abductive-eval: our models (random_baseline, dumb_pixel, ")
