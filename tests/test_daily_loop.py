"""The daily loop a newcomer follows from the README: demo, show, browse, diff, ui; and the mistakes they make
(a misspelt flag, an unwritable output folder, a missing data folder, CPU device arguments), each answered at once
in one line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from abductive_tasks.cli import main
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.reports import browse, report
from abductive_tasks.reports.diff import disagreements, report_lines

from helpers.pages import page_data
from helpers.runs import OFFLINE

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
STAMP = "20260101_000000"
# What show, browse, diff and the early refusals must not import (seconds each: lmms-eval's task index, torch, ...)
HEAVY = ("lmms_eval", "torch", "transformers", "datasets", "pandas")


def in_fresh_python(arguments: list[str], env: dict[str, str] | None = None) -> dict:
    """``abductive-eval <arguments>`` in a fresh interpreter: exit code, stderr, stdout, heavy modules imported."""
    code = (
        "import json, sys\n"
        "from abductive_tasks.cli import main\n"
        f"code = main({arguments!r})\n"
        f"heavy = sorted({{name.split('.')[0] for name in sys.modules if name.split('.')[0] in {HEAVY!r}}})\n"
        "hooks = sorted(name for name in sys.modules if name.endswith('.hooks'))\n"
        "print(json.dumps({'code': code, 'heavy': heavy, 'hooks': hooks}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE, **(env or {})},
        timeout=120,
        check=True,
    )
    return {**json.loads(done.stdout.splitlines()[-1]), "stderr": done.stderr, "stdout": done.stdout}


# ---------------------------------------------------------------- the README's demo and what follows it


def test_the_readme_demo_logs_samples_so_browse_and_diff_work_on_it():
    demo = README.split("## Demo (offline, CPU)", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in demo.splitlines() if line.startswith("ABDUCTIVE_DATA=sample abductive-eval")]
    assert len(commands) == 2 and all(command.endswith(" --log_samples") for command in commands)
    quickstart = README.split("## Quick start", 1)[1].split("```", 2)[1]
    assert "--output_path results/demo --log_samples" in quickstart
    assert "--log_samples" in (ROOT / ".ci" / "quickstart").read_text().split("# 2.", 1)[1].split("\n", 2)[1]


def write_run(folder: Path, model: str, lines: dict[str, list[dict]], results: dict | None = None) -> Path:
    folder.mkdir(parents=True)
    run = {
        "model_name": model,
        "config": {
            "model": model,
            "model_args": "seed=1",
            "limit": None,
            "resolved_cli_args": {"tasks": "sherlock,mucr_c2e_split", "output_path": "results/demo"},
        },
        "results": results or {task: {} for task in lines},
        "configs": {},
    }
    (folder / f"{STAMP}_results.json").write_text(json.dumps(run))
    for task, task_lines in lines.items():
        (folder / f"{STAMP}_samples_{task}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in task_lines))
    return folder


def test_browse_and_diff_on_a_run_without_samples_say_how_to_rerun_it_in_one_line(tmp_path, capsys):
    run = write_run(tmp_path / "results" / "demo" / "m-1", "m", {})
    for arguments in (["browse", str(run)], ["diff", str(run), str(run)]):
        assert main(arguments) == 1
        (line,) = capsys.readouterr().err.splitlines()
        assert line.endswith(
            "this run kept no samples; re-run it with them: abductive-eval --model m --model_args 'seed=1' "
            "--tasks sherlock,mucr_c2e_split --output_path results/demo --log_samples"
        )


def retrieval_line(doc_id: int, payload: str) -> dict:
    record = {"split": "val", "chunk": 0, "row": doc_id, "col": 0, "rows": 4, "documents": 4, "payload": payload}
    return {
        "doc_id": doc_id,
        "target": f"inference {doc_id}",
        "filtered_resps": f"('{payload}', False)",
        "input_media": [str(SAMPLE_ROOT / "sherlock" / "images" / "VG_100K" / "101.jpg")],
        "retrieval_p_at_1": ["retrieval_p_at_1", {**record, "answer_status": "parsed"}],
    }


def comparison_line(doc_id: int, loss: float) -> dict:
    record = {"test_id": f"t{doc_id}", "sherlock_task": "comparison", "file_size": 12, "plausibility": -loss}
    return {
        "doc_id": doc_id,
        "target": "the owner plays soccer",
        "filtered_resps": f"({loss!r}, False)",
        "comparison_acc": ["comparison_acc", {**record, "answer_status": "parsed"}],
    }


def test_diff_counts_the_readings_the_metric_is_computed_from_and_shows_them_rounded(tmp_path):
    # P@1 is computed from each document's embeddings: two runs with other embeddings differ on every document
    a = write_run(
        tmp_path / "a",
        "a",
        {
            "sherlock_retrieval": [retrieval_line(0, "emb1:jWL9PgAAgD8="), retrieval_line(1, "emb1:AACAPwAAAAA=")],
            "sherlock_comparison": [comparison_line(0, -0.49109436274509805)],
        },
    )
    b = write_run(
        tmp_path / "b",
        "b",
        {
            "sherlock_retrieval": [retrieval_line(0, "emb1:AAAAPwAAgD8="), retrieval_line(1, "emb1:AACAPwAAAAA=")],
            "sherlock_comparison": [comparison_line(0, 0.6848560093545495)],
        },
    )
    items_a, items_b = (browse.read_items(browse.find_results(run)) for run in (a, b))
    common, found = disagreements(items_a, items_b)
    assert common == {"sherlock_comparison": 1, "sherlock_retrieval": 2}
    assert [pair.a.key for pair in found] == [("sherlock_comparison", 0), ("sherlock_retrieval", 0)]
    printed = "\n".join(report_lines("a", "b", common, found))
    assert "sherlock_retrieval: 1 of 2 documents differ" in printed
    # 0x3efd628d is 0.49489 (float32), 0x3f800000 is 1.0, 0x3f000000 is 0.5
    assert "A: answered       read embeddings of 1 value each: image [0.4949], text [1]" in printed
    assert "B: answered       read embeddings of 1 value each: image [0.5], text [1]" in printed
    assert (
        "A: answered       read 0.4911 'loglikelihood result: loss -0.4911 (read as plausibility = -loss)'" in printed
    )
    assert (
        "B: answered       read -0.6849 'loglikelihood result: loss 0.6849 (read as plausibility = -loss)'" in printed
    )
    assert "emb1:" not in printed and "0.49109" not in printed


def test_browse_names_each_images_role_shows_every_mucr_option_and_says_dataset_fields_once(tmp_path):
    images = [str(SAMPLE_ROOT / "nleye" / "images" / str(item) / "premise.png") for item in range(1, 6)]
    record = {"item_id": "0", "label": "human", "gold_position": 4, "prediction": 4, "correct": True}
    lines = [
        {
            "doc_id": doc_id,
            "target": "4",
            "filtered_resps": "4",
            "input_media": images[:4],  # lmms-eval keeps at most 4
            "c2e_accuracy": ["c2e_accuracy", {**record, "images": images, "excluded": 3, "answer_status": "parsed"}],
        }
        for doc_id in range(2)
    ]
    run = write_run(tmp_path / "run", "m", {"mucr_c2e_split": lines})
    made, count = browse.browse_page(browse.find_results(run))
    page = made.html
    assert count == 2
    card = page_data(page)["cards"][0]
    assert [role for role, _, _ in card["images"]] == ["cause", "option 1", "option 2", "option 3", "option 4"]
    assert str(SAMPLE_ROOT) not in page and "site-packages" not in page
    assert "excluded" not in str(card) and page.count("excluded=3") == 1  # said once, in the header
    assert re.search(r"mucr_c2e_split, the same on every document: [^<]*excluded=3", page)


def test_browse_labels_nleye_images_premise_and_hypotheses():
    line = {"doc_id": 0, "input_media": ["a.png", "b.png", "c.png"], "consistency_acc": ["consistency_acc", {}]}
    assert browse.item_of("nleye_triplet", line).roles == ["premise", "hypothesis 1", "hypothesis 2"]
    assert browse.item_of("mucr_e2c", {**line, "input_media": ["a.png"] * 5}).roles[:2] == ["effect", "option 1"]


def test_mucr_records_carry_every_image_of_the_document(monkeypatch):
    from abductive_tasks.mucr import hooks

    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    doc = hooks.c2e_docs(None)[0]
    record = hooks.process_results_c2e_split(doc, ["1"])["c2e_accuracy"][1]
    assert record["images"] == doc["image_paths"] and len(record["images"]) == 5


# ---------------------------------------------------------------- answered at once, in one line


def test_show_reads_the_run_from_disk_without_the_task_index_torch_or_hooks(tmp_path):
    results = {
        "nleye_triplet": {"consistency_acc,none": 0.5, "triplet_counts,none": {"documents": 4, "items_scored": 2}},
        "sherlock_comparison": {"comparison_acc,none": 6.1},
    }
    run = write_run(tmp_path / "run", "m", {}, results)
    outcome = in_fresh_python(["show", str(run)])
    assert outcome["code"] == 0 and outcome["heavy"] == [] and outcome["hooks"] == []
    assert "| nleye_triplet       | consistency_acc |  50.0 |" in outcome["stdout"]  # a fraction, in percent
    assert "| sherlock_comparison | comparison_acc  |   6.1 |" in outcome["stdout"]  # already in percent


def test_a_misspelt_option_or_subcommand_gets_a_did_you_mean_line_before_lmms_eval_is_imported():
    outcome = in_fresh_python(["--model", "dumb_pixel", "--tasks", "nleye_triplet", "--output_pth", "x"])
    assert outcome["code"] == 2 and outcome["heavy"] == []
    assert outcome["stderr"] == (
        "abductive-eval: unknown option '--output_pth' (did you mean '--output_path'?); "
        "every option: lmms-eval eval --help\n"
    )
    outcome = in_fresh_python(["brwose", "results/demo"])
    assert outcome["code"] == 2 and "unknown subcommand 'brwose' (did you mean 'browse'?)" in outcome["stderr"]


def test_argparse_prefixes_of_lmms_eval_options_are_still_accepted():
    from abductive_tasks.cli import check_options

    check_options(["--model", "dumb_pixel", "--log_samples_suf", "x", "--output=results"])  # unique prefixes


def test_an_unwritable_output_path_is_refused_before_any_model_loads():
    outcome = in_fresh_python(["--model", "dumb_pixel", "--tasks", "nleye_triplet", "--output_path", "/proc/x/results"])
    assert outcome["code"] == 2 and outcome["heavy"] == []
    (line,) = outcome["stderr"].splitlines()
    assert line.startswith("abductive-eval: cannot write results to --output_path /proc/x/results (")


def test_a_missing_data_folder_is_reported_before_the_slow_imports(tmp_path):
    missing = tmp_path / "nowhere"
    outcome = in_fresh_python(["--model", "dumb_pixel", "--tasks", "nleye_triplet"], {"ABDUCTIVE_DATA": str(missing)})
    assert outcome["code"] == 1 and outcome["heavy"] == []
    assert outcome["stderr"].startswith(f"abductive-eval: ABDUCTIVE_DATA={missing}: no such folder.")
    (tmp_path / "data" / "nleye").mkdir(parents=True)
    outcome = in_fresh_python(
        ["--model", "dumb_pixel", "--tasks", "abductive_lite"], {"ABDUCTIVE_DATA": str(tmp_path / "data")}
    )
    assert outcome["code"] == 1 and outcome["heavy"] == []
    assert f"no folder {tmp_path / 'data' / 'dve'} for benchmark 'dve'" in outcome["stderr"]


# ---------------------------------------------------------------- device arguments as typed


def test_device_placement_as_typed(monkeypatch):
    import torch

    from abductive_tasks.models.devices import placement

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert placement(None, None) == {"device": "cpu", "device_map": "cpu"}
    assert placement("cpu", "") == {"device": "cpu", "device_map": "cpu"}
    assert placement("cuda:0", None) == {"device": "cuda:0", "device_map": "cuda:0"}
    assert placement("cuda:0", "auto") == {"device": "cuda:0", "device_map": "auto"}
    assert placement("cuda", None, processes=2) == {"device": "cuda", "device_map": ""}  # one GPU per process
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert placement(None, None) == {"device": "cuda", "device_map": "cuda"}


@pytest.mark.parametrize("force_simple", [False, True])
def test_llava_hf_loads_a_local_folder_on_cpu_with_no_device_argument_or_only_device_cpu(tmp_path, force_simple):
    from lmms_eval.models import get_model

    from helpers.tiny_llava import build_tiny_llava

    folder = build_tiny_llava(tmp_path / "tiny-llava")
    cls = get_model("llava_hf", force_simple=force_simple)
    for extra in ({"batch_size": 1}, {"batch_size": 1, "device": "cpu"}):  # as lmms-eval's CLI constructs it
        model = cls.create_from_arg_string(f"pretrained={folder}", extra)
        assert str(model.device) == "cpu" and next(model.model.parameters()).device.type == "cpu"


def test_headline_metrics_come_from_our_task_yaml():
    headline = report.headline_lookup()
    assert headline("nleye_triplet") == "consistency_acc" and headline("sherlock_retrieval") == "retrieval_p_at_1"
    assert headline("mmbench") is None and headline("nleye") is None  # not ours; a group


def test_the_scale_table_show_reads_is_the_task_specs_declarations():
    import abductive_tasks.mucr.strategies  # noqa: F401  (the CCoT graph stage's spec, not in the hooks module)
    from abductive_tasks.reports.specs import registered_specs
    from abductive_tasks.scoring.scales import SCALES
    from abductive_tasks.scoring.taskspec import REGISTRY, TaskSpec

    registered_specs()  # imports every benchmark's hooks: every spec registered
    ours = {  # the specs our package defines (other tests register toy specs in the same registry)
        id(value)
        for name, module in list(sys.modules.items())
        if name.startswith("abductive_tasks.")
        for value in vars(module).values()
        if isinstance(value, TaskSpec)
    }
    declared = {metric.name: metric.scale for spec in REGISTRY.values() if id(spec) in ours for metric in spec.metrics}
    assert SCALES == declared


# ---------------------------------------------------------------- the web UI


def test_the_ui_opens_on_a_task_with_samples_shows_verdicts_record_fields_images_and_our_demo(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from abductive_tasks import lmms_subcommands
    from abductive_tasks.reports import power_and_ui
    from abductive_tasks.reports.ui_guard import run_redacted

    record = {"item_id": "1", "gold_position": 1, "prediction": 1, "correct": True, "reasoning_category": "physical"}
    line = {
        "doc_id": 0,
        "target": "1",
        "filtered_resps": "1",
        "input": "Which hypothesis?",
        "input_media": [
            str(SAMPLE_ROOT / "nleye" / "images" / "1" / f"{name}.png") for name in ("premise", "hypothesis1")
        ],
        "consistency_acc": ["consistency_acc", {**record, "answer_status": "parsed"}],
        "triplet_counts": ["triplet_counts", {**record, "answer_status": "parsed"}],
    }
    # lmms-eval writes a group first in results: the Samples panel used to open on it (no samples file: HTTP 404)
    results = {"nleye": {" ": " "}, "nleye_triplet": {"consistency_acc,none": 1.0}}
    write_run(tmp_path / "logs" / "m-1", "m", {"nleye_triplet": [line]}, results)
    client = TestClient(
        lmms_subcommands.ui_app(
            power_and_ui.sample_picture, power_and_ui.sample_view, run_redacted, power_and_ui.listed_run
        )
    )
    logs = {"logs_path": str(tmp_path / "logs")}
    (run,) = client.get("/logs/runs", params=logs).json()
    shown = client.get(f"/logs/runs/{run['run_id']}/results", params=logs).json()
    assert list(shown["results"]) == ["nleye_triplet", "nleye"]
    (sample,) = client.get(f"/logs/runs/{run['run_id']}/samples/nleye_triplet", params=logs).json()["samples"]
    assert sample == {
        "doc_id": 0,
        "input": "Which hypothesis?",
        "target": "1",
        "filtered_resps": "1",
        "result": "✓ correct",
        "read": "1",
        "item": "1",
        "category": "physical",
        "images": "premise, hypothesis 1",
        "gold_position": "1",
    }
    picture = client.get(f"/logs/runs/{run['run_id']}/samples/nleye_triplet/media/0", params=logs)
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    bundle = re.search(r'src="\.(/assets/index-[^"]+\.js)"', client.get("/").text).group(1)  # below the page
    script = client.get(bundle).text
    for old, new in lmms_subcommands.UI_BUNDLE_EDITS:
        assert old not in script and new in script
    assert 'T.useState("dumb_pixel")' in script and "openrouter" not in script
    assert 'u.jsx("img",{src:`${mo}/logs/runs/' in script  # each sample shows its images


# ---------------------------------------------------------------- the README's figures come from a script


def test_the_readme_names_the_figures_script_and_it_reads_the_figures_quickstart_checks():
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "utils" / "readme_figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    pages = ("README.md", "docs/results.md", "docs/batch.md")
    said = {page: figures.readme_figures((ROOT / page).read_text(encoding="utf-8")) for page in pages}
    documents, p_values = said["docs/results.md"][0], said["docs/batch.md"][1]  # each beside its command
    assert isinstance(documents, int) and documents > 200
    assert set(p_values) >= {"nleye_triplet", "mucr_c2e", "dve_cls", "sherlock_comparison_rating"}
    assert all(re.fullmatch(r"\d\.\d{4}|—", p) for p in p_values.values())
    assert (
        "python utils/readme_figures.py" in README
        and f"utils/readme_figures.py --check {' '.join(pages)}" in (ROOT / ".ci" / "quickstart").read_text()
    )
    for stale in ("about 10 s", "0.6 MB", "201 documents", "16 min 55 s"):
        assert all(stale not in (ROOT / page).read_text(encoding="utf-8") for page in pages)
