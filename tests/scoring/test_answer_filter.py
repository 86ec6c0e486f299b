"""The reader as an lmms-eval filter (``read_answer``): what it returns for the replies of a multiple-choice task, its
registration, and its reading of 220 public replies of 11 models next to lmms-eval's own ``multi_choice_regex``."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from abductive_tasks import compat
from abductive_tasks.scoring.answer_filter import ReadAnswer

PUBLIC = Path(__file__).with_name("public_replies") / "mathvista_mc.yaml"
PLANETS = {"choices": ["Venus", "Earth", "Mercury", "None of the above"]}


@pytest.mark.parametrize(
    ("reply", "reads"),
    [
        ("(C)", "C"),
        ("The answer is C.", "C"),
        ("Option 3 is right: Mercury orbits closest.", "C"),  # a number
        ("Mercury is the closest planet.", "C"),  # an option's own text
        ("It's not (A) Venus and not (B) Earth: the closest planet is Mercury.", "C"),
        ("(A) Venus. Wait, no: Mercury is closer. Final answer: C", "C"),
        ("I cannot determine which option is correct.", "[invalid]"),  # a refusal
        ("I can't view the second image, so I can't compare the options.", "[invalid]"),  # a refusal naming an image
        ("Neither Venus nor Earth, but if forced to choose, (D) None of the above.", "[invalid]"),  # abstaining option
        ("(B), the third image, shows the closest planet.", "[invalid]"),  # an image count and a letter disagree
        ("The answer is (A) Venus.\n\nQuestion: Which planet is largest?\n(A) Jupiter\nAnswer: (A)", "A"),
        ("", "[invalid]"),  # no reply
        ("[LMMS_EVAL_REQUEST_FAILED after 3 retries] timeout", "[invalid]"),
    ],
)
def test_reads_a_reply_as_a_person_does(reply, reads):
    assert ReadAnswer(abstain=["None of the above"]).read(reply, PLANETS) == reads


def test_outputs_the_form_the_target_takes():
    reply = "The answer is (C) Mercury."
    assert [ReadAnswer(output=form).read(reply, PLANETS) for form in ("letter", "number", "index", "text")] == [
        "C",
        "3",
        "2",
        "Mercury",
    ]
    assert ReadAnswer(fallback="").read("I don't know.", PLANETS) == ""
    with pytest.raises(ValueError, match="output must be one of"):
        ReadAnswer(output="word")


def test_options_from_columns_a_mapping_or_a_count():
    mmbench = {"A": "cat", "B": "dog", "C": "cow", "D": float("nan")}  # MMBench: absent options are empty columns
    assert ReadAnswer(choices=["A", "B", "C", "D"]).read("It's the dog.", mmbench) == "B"
    assert ReadAnswer(choices=["A", "B", "C", "D"]).read("Option D.", mmbench) == "[invalid]"  # no option D
    assert ReadAnswer(choices="options").read("answer: b", {"options": {"A": "cat", "B": "dog"}}) == "B"
    assert ReadAnswer(options=5).read("I'd go with E.", {}) == "E"


def test_numbers_read_as_option_texts_only_where_no_option_number_is_one():
    values = {"choices": ["97", "102", "107", "122"]}
    assert ReadAnswer().read("m∠H = 107°, so 107.", values) == "C"
    assert ReadAnswer().read("The radius is 8.5 inches.", {"choices": ["7.5", "8", "8.5", "17"]}) == "C"
    small = {"choices": ["2", "3", "4", "5"]}  # "3" may be option 3 or the text of option 2: numbers name options
    assert ReadAnswer().read("The answer is 3.", small) == "C"


def test_applies_to_every_reply_of_every_document_in_order():
    docs = [PLANETS, {"choices": ["yes", "no"]}]
    assert ReadAnswer().apply([["(C)", "Earth"], ["No."]], docs) == [["C", "B"], ["B"]]


def test_lmms_eval_builds_it_by_name_once_the_plugin_is_loaded():
    import lmms_eval.models  # noqa: F401  (loads our entry point, which registers the filter)
    from lmms_eval.filters import build_filter_ensemble

    assert compat.filter_registered("read_answer") is not None
    ensemble = build_filter_ensemble("read_answer", [["read_answer", {"choices": "choices"}], ["take_first", None]])
    assert [type(step).__name__ for step in ensemble.filters] == ["ReadAnswer", "TakeFirstFilter"]


def _measure_filter():
    """utils/measure_filter.py, which measures the filter on public replies."""
    path = Path(__file__).parents[2] / "utils" / "measure_filter.py"
    spec = importlib.util.spec_from_file_location("measure_filter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reads_public_replies_of_real_models_better_than_lmms_evals_own_filter():
    """220 published replies of 11 models to MathVista's lettered prompts, against what a person reads in each:
    ours is pinned exactly; lmms-eval's multi_choice_regex reads fewer right and more wrong."""
    measure = _measure_filter()
    items = yaml.safe_load(PUBLIC.read_text(encoding="utf-8"))["items"]
    assert sum(len(item["replies"]) for item in items) == 220
    assert len({reply["model"] for item in items for reply in item["replies"]}) == 11
    figures = measure.measure(PUBLIC)
    assert (figures["ours"]["agree"], figures["ours"]["silent"], figures["ours"]["no_answer_read"]) == (202, 0, 0)
    for name, theirs in figures.items():
        if name != "ours":
            assert theirs["agree"] < figures["ours"]["agree"] and theirs["silent"] > figures["ours"]["silent"], name
