"""The protocol map (docs/protocols.md): every name it uses exists, every numbered table and figure of the four papers
that reports numbers has a row, and the README and each task README link to it."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from abductive_tasks import cli, compat, lmms_source, settings
from abductive_tasks.models.baselines import DumbPixel, RandomBaseline
from abductive_tasks.models.clip_scorer import CROP_MODES, DRAWN_MODES, ClipScorer
from abductive_tasks.models.dve_optimized import DveOptimized
from abductive_tasks.models.llava_scorer import LlavaHfScorer
from abductive_tasks.models.nli_scorer import NliScorer
from abductive_tasks.scoring.taskspec import REGISTRY

for _hooks in ("nleye.hooks", "mucr.hooks", "mucr.strategies", "dve.hooks", "sherlock.hooks", "sherlock.localization"):
    importlib.import_module(f"abductive_tasks.{_hooks}")  # every task spec registers itself when its module loads

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "protocols.md"
TEXT = PAGE.read_text(encoding="utf-8")
MANAGER = compat.task_manager()
OUR_MODELS = (ClipScorer, LlavaHfScorer, NliScorer, DveOptimized, RandomBaseline, DumbPixel)
ENUMERATED = {"crops": CROP_MODES, "input_mode": DRAWN_MODES}

# The numbered tables and figures of each paper that report numbers, read off the papers (the others report none:
# examples, prompts, model lists, diagrams), and the results printed only in the text that the map also places.
RESULTS = {
    "NL-Eye": [*(f"Table {n}" for n in (2, 3, 7, 8, 9, 10, 11, 12, 13, 14)), "Figure 6", "Figure 7", "Figure 14",
               "§D.2.2"],
    "MuCR": ["Table 1", "Table 2", "Table 3", "Table 5", "Figure 9", "Figure 12", "Figure 13"],
    "Defeasible Visual Entailment": ["Table 1", "Table 2", "Table 3", "Table 4", "Table 6", "Table 7", "Figure 8",
                                     "5.0998 / -4.5412"],
    "Sherlock": ["Table 2", "Figure 5a, input ablations", "Figure 5a, model ablations", "Figure 6", "§5.2",
                 "§5.3", "§B.1", "§C", "§3"],
}  # fmt: skip


def sections() -> dict[str, str]:
    """The page's text per paper section (``## <paper> (...)``)."""
    parts = re.split(r"^## ", TEXT, flags=re.M)[1:]
    return {part.split(" (")[0]: part for part in parts}


def first_cells(section: str) -> list[str]:
    return [row.split("|")[1].strip() for row in section.splitlines() if row.startswith("| ") and "---" not in row]


def model_parameters() -> set[str]:
    return {name for model in OUR_MODELS for name in inspect.signature(model.__init__).parameters} - {"self"}


def metric_names() -> set[str]:
    return {name for spec in REGISTRY.values() for name in spec.metric_names}


def known(token: str, tasks: set[str], metrics: set[str], parameters: set[str]) -> bool:
    """Whether a backticked token of the page names something that exists."""
    if token in tasks or token in metrics or token in settings.VARIABLES or token in compat.model_names():
        return True
    if re.fullmatch(r"--\w+", token):
        return token in (lmms_source.quick_eval_options() or set())
    if token.startswith("--model "):
        return token.removeprefix("--model ") in compat.model_names()
    if token.startswith("abductive-eval "):
        return token.split()[1] in cli.SUBCOMMANDS
    if "=" in token:
        name, value = token.split("=", 1)
        return name in parameters and (name not in ENUMERATED or value in ENUMERATED[name])
    if "/" in token:
        return (ROOT / token).is_file()
    return token in parameters


def test_every_name_on_the_map_exists():
    tasks = {name for name, entry in MANAGER.task_index.items() if entry["type"] in ("task", "group")}
    tokens = set(re.findall(r"`([^`]+)`", TEXT))
    metrics, parameters = metric_names(), model_parameters()
    unknown = sorted(token for token in tokens if not known(token, tasks, metrics, parameters))
    assert not unknown, f"docs/protocols.md names what does not exist: {unknown}"
    assert {"nleye_triplet_naturalness", "sherlock_ablations", "dve_human", "input_mode=no_context"} <= tokens


def test_the_checks_catch_what_does_not_exist():
    tasks, metrics, parameters = {"nleye_triplet"}, {"consistency_acc"}, model_parameters()
    for token in (
        "nleye_triplet",
        "consistency_acc",
        "--model clip_scorer",
        "crops=pad",
        "ABDUCTIVE_DATA",
        "abductive-eval export-sherlock",
        "tests/test_protocols.py",
        "text_prefix",
    ):
        assert known(token, tasks, metrics, parameters), token
    for token in (
        "nleye_triplet_rot",
        "--model clip",
        "crops=stretch",
        "input_mode=crop",
        "ABDUCTIVE_NOPE",
        "abductive-eval export",
        "tests/missing.py",
        "text_suffix",
    ):
        assert not known(token, tasks, metrics, parameters), token  # fmt: skip


@pytest.mark.parametrize("paper", sorted(RESULTS))
def test_every_table_and_figure_with_results_has_a_row(paper):
    rows = first_cells(sections()[paper])
    missing = [item for item in RESULTS[paper] if not any(cell.startswith(item) or item in cell for cell in rows)]
    assert not missing, f"{paper}: no row for {missing}"


def test_readme_and_every_task_readme_link_the_map():
    pages = [
        ROOT / "README.md",
        *(ROOT / "yaml_tasks" / name / "README.md" for name in ("nleye", "mucr", "dve", "sherlock")),
    ]
    for page in pages:
        target = Path("docs/protocols.md") if page.parent == ROOT else Path("../../docs/protocols.md")
        assert f"]({target.as_posix()})" in page.read_text(encoding="utf-8"), page.relative_to(ROOT)
