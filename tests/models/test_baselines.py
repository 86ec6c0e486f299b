"""Baseline construction: lmms-eval's runtime settings are accepted, typos in --model_args are not."""

import random
import subprocess
import sys

import pytest
from PIL import Image

from abductive_tasks.models.baselines import DumbPixel, RandomBaseline


def test_runtime_settings_accepted_and_seed_parsed():
    model = RandomBaseline.create_from_arg_string("seed=7", {"batch_size": 4, "device": "cpu"})
    assert model.seed == 7


def test_unknown_model_argument_fails_loudly():
    with pytest.raises(TypeError, match="sed"):
        DumbPixel.create_from_arg_string("sed=7")


def test_text_answers_come_from_the_candidate_texts(tmp_path):
    dark, bright = tmp_path / "dark.png", tmp_path / "bright.png"
    Image.new("RGB", (4, 4), (0, 0, 0)).save(dark)
    Image.new("RGB", (4, 4), (255, 255, 255)).save(bright)
    texts = ["first", "second", "third", "fourth"]
    pixel = DumbPixel.create_from_arg_string("")
    # mean luminance 0 -> first text; 255 -> last; (0 + 255) / 2 = 127.5 -> index int(127.5 / 256 * 4) = 1
    assert (
        pixel.answer({"answer_kind": "text", "choices": texts, "candidate_images": [str(dark)]}, random.Random(0))
        == "first"
    )
    assert (
        pixel.answer({"answer_kind": "text", "choices": texts, "candidate_images": [str(bright)]}, random.Random(0))
        == "fourth"
    )
    assert (
        pixel.answer(
            {"answer_kind": "text", "choices": texts, "candidate_images": [str(dark), str(bright)]}, random.Random(0)
        )
        == "second"
    )
    randomly = RandomBaseline.create_from_arg_string("")
    assert randomly.answer(
        {"answer_kind": "text", "choices": texts, "candidate_images": []}, random.Random("0:t:3")
    ) == random.Random("0:t:3").choice(texts)


def test_registry_has_our_models_when_a_backend_module_is_imported_first():
    """lmms-eval loads entry points while its models package initialises; importing one of our
    backends first must not leave the registry without our models (a circular-import trap)."""
    code = (
        "import abductive_tasks.models.baselines\nfrom lmms_eval.models import get_model\n"
        "print(get_model('dumb_pixel').__name__)"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert completed.stdout.strip().splitlines()[-1] == "DumbPixel", completed.stderr[-2000:]
