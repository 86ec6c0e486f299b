"""Sherlock's Fig. 5 input ablations and widescreen alternatives: each image checked by its pixels, against masks
built here and against the authors' drawing procedure (an RGBA overlay composited over the image, as their training
code's ``hide_region`` draws it), on the hooks of the per-pair ablation tasks and through ``clip_scorer``."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from abductive_tasks import compat
from abductive_tasks.inputs import images
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.models.clip_scorer import ClipScorer
from abductive_tasks.sherlock import data, hooks

from helpers.runs import abductive_eval, count, metric, read_results, read_samples
from helpers.tiny_clip import build_tiny_clip

GREY = (123, 117, 117)
PURPLE = (255, 5, 205)
BOXES = ((5, 6, 10, 8), (30, 2, 6, 20))  # (left, top, width, height); PIL draws both corners inclusive


@pytest.fixture
def picture(tmp_path) -> str:
    """A 48 x 30 image whose every pixel differs from its neighbours and from the fills."""
    y, x = np.mgrid[0:30, 0:48]
    pixels = np.stack([(x * 5) % 256, (y * 7) % 256, (x * 3 + y * 11) % 97], axis=-1).astype(np.uint8)
    path = tmp_path / "picture.png"
    Image.fromarray(pixels).save(path)
    images.clear_cache()
    return str(path)


def inside() -> np.ndarray:
    """Hand-made mask of the boxes: rows top..top+height and columns left..left+width, both ends included."""
    mask = np.zeros((30, 48), dtype=bool)
    for left, top, width, height in BOXES:
        mask[top : top + height + 1, left : left + width + 1] = True
    return mask


def pixels(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("RGB"), dtype=np.uint8)


def authors_overlay(path: str, base: str, box_fill: str) -> np.ndarray:
    """The authors' procedure: an RGBA overlay filled ``base``, each box drawn on it with ``box_fill`` (RGBA drawing
    on an RGBA overlay replaces its pixels), composited over the image."""
    image = Image.open(path).convert("RGBA")
    overlay = Image.new("RGBA", image.size, base)
    draw = ImageDraw.Draw(overlay, "RGBA")
    for left, top, width, height in BOXES:
        draw.rectangle([(left, top), (left + width, top + height)], fill=box_fill)
    return pixels(Image.alpha_composite(image, overlay))


def test_each_input_mode_by_its_pixels(picture):
    original, mask = pixels(Image.open(picture)), inside()
    assert mask.sum() == 11 * 9 + 7 * 21

    no_region = pixels(images.draw_input(picture, BOXES, "no_region"))
    np.testing.assert_array_equal(no_region, original)

    no_context = pixels(images.draw_input(picture, BOXES, "no_context"))
    np.testing.assert_array_equal(no_context[mask], original[mask])
    assert (no_context[~mask] == GREY).all()
    np.testing.assert_array_equal(no_context, authors_overlay(picture, "#7B7575ff", "#00000000"))

    only_context = pixels(images.draw_input(picture, BOXES, "only_context"))
    assert (only_context[mask] == GREY).all()
    np.testing.assert_array_equal(only_context[~mask], original[~mask])
    np.testing.assert_array_equal(only_context, authors_overlay(picture, "#00000000", "#7B7575ff"))

    position = pixels(images.draw_input(picture, BOXES, "position_only"))
    assert (position[mask] == PURPLE).all() and (position[~mask] == GREY).all()
    np.testing.assert_array_equal(position, authors_overlay(picture, "#7B7575ff", "#ff05cdff"))

    region = pixels(images.draw_input(picture, BOXES, "region"))
    np.testing.assert_array_equal(region, pixels(images.draw_regions(picture, BOXES)))
    assert (region[6, 5] == (5, 255, 55)).all()  # the green outline on a box corner
    assert (region[~mask] == original[~mask]).all() and not (region[mask] == original[mask]).all()


def test_crop_and_pad_are_the_highlighted_image_squared(picture):
    region = pixels(images.draw_regions(picture, BOXES))
    crop = pixels(images.draw_input(picture, BOXES, "crop"))
    assert crop.shape == (30, 30, 3)
    np.testing.assert_array_equal(crop, region[:, 9:39])  # (48 - 30) / 2 = 9 columns cut on each side
    pad = pixels(images.draw_input(picture, BOXES, "pad"))
    assert pad.shape == (48, 48, 3)
    np.testing.assert_array_equal(pad[9:39], region)  # (48 - 30) // 2 = 9 black rows above, 9 below
    assert not pad[:9].any() and not pad[39:].any()
    odd = images.square_pad(Image.new("RGB", (5, 2), (9, 9, 9)))
    assert odd.size == (5, 5) and pixels(odd)[1:3].all() and not pixels(odd)[[0, 3, 4]].any()


def test_unknown_mode_is_refused(picture):
    with pytest.raises(ValueError, match="unknown Sherlock input mode 'blur'"):
        images.draw_input(picture, BOXES, "blur")


def test_ablation_hooks_draw_their_mode_and_say_which():
    doc = hooks.documents_from(data.load(SAMPLE_ROOT / "sherlock", "comparison", "val").items)[0]
    boxes = tuple(tuple(box) for box in doc["boxes"])
    for mode in ("no_region", "no_context", "only_context", "position_only", "crop", "pad"):
        hook = getattr(hooks, f"doc_to_visual_{mode}")
        assert hook.input_mode == mode and hook.__name__ == f"doc_to_visual_{mode}"
        (image,) = hook(doc)
        np.testing.assert_array_equal(pixels(image), pixels(images.draw_input(doc["image_path"], boxes, mode)))
    assert not hasattr(hooks.doc_to_visual, "input_mode")


# ---------------------------------------------------------------- clip_scorer


@pytest.fixture(scope="module")
def clip_dir(tmp_path_factory):
    return build_tiny_clip(tmp_path_factory.mktemp("tiny-clip"))


def test_clip_scorer_input_mode_encodes_the_ablated_image(clip_dir, picture):
    """input_mode draws the document's region itself; crops=pad pads the image to a square before the processor."""
    doc = {"image_path": picture, "boxes": [list(box) for box in BOXES], "region_key": "picture|boxes"}
    region = ClipScorer(pretrained=str(clip_dir), crops="center", device="cpu")
    for mode in ("no_region", "no_context", "only_context", "position_only"):
        ablated = ClipScorer(pretrained=str(clip_dir), crops="center", input_mode=mode, device="cpu")
        key = ablated._fill_image_cache([(doc, hooks.doc_to_visual)])[0]
        expected = region._encode_images([images.draw_input(picture, BOXES, mode)])[0]
        np.testing.assert_allclose(ablated.image_embeddings[key], expected, atol=1e-6)
        with pytest.raises(ValueError, match=f"input_mode={mode} on a task whose images are already drawn as pad"):
            ablated._fill_image_cache([(doc, hooks.doc_to_visual_pad)])
    padded = ClipScorer(pretrained=str(clip_dir), crops="pad", device="cpu")
    drawn = images.draw_regions(picture, BOXES)
    np.testing.assert_allclose(
        padded._encode_images([drawn])[0], region._encode_images([images.square_pad(drawn)])[0], atol=1e-6
    )
    with pytest.raises(ValueError, match="input_mode must be one of"):
        ClipScorer(pretrained=str(clip_dir), input_mode="crop", device="cpu")


def test_clip_scorer_keys_its_cache_by_the_tasks_input_mode(clip_dir, picture):
    """Two tasks showing the same region key in different input modes in one run get their own embeddings."""
    doc = {"image_path": picture, "boxes": [list(box) for box in BOXES], "region_key": "picture|boxes"}
    model = ClipScorer(pretrained=str(clip_dir), crops="center", device="cpu")
    plain, ablated = model._fill_image_cache([(doc, hooks.doc_to_visual), (doc, hooks.doc_to_visual_no_context)])
    assert plain != ablated and model.images_encoded == 2
    assert not np.allclose(model.image_embeddings[plain], model.image_embeddings[ablated])


def test_the_yaml_hook_behind_lmms_evals_bound_visual_is_found():
    """lmms-eval 0.7.3 hands models ``Task.doc_to_visual`` (a bound method calling ``task.config.doc_to_visual``)."""

    class Task:
        config = type("Config", (), {"doc_to_visual": staticmethod(hooks.doc_to_visual_pad)})()

        def doc_to_visual(self, doc):
            return self.config.doc_to_visual(doc)

    assert compat.visual_hook(Task().doc_to_visual) is hooks.doc_to_visual_pad
    assert compat.visual_hook(hooks.doc_to_visual) is hooks.doc_to_visual


@pytest.mark.e2e
def test_ablation_tasks_and_input_mode_agree_end_to_end(tmp_path, clip_dir):
    """The per-pair ablation task (its doc_to_visual) and clip_scorer's input_mode on the base tasks, the factored
    full retrieval included, score the same inputs: equal metrics. In the first run the base and the ablation task
    share every region key, and their scores differ: the cache keeps them apart."""
    first, second = tmp_path / "tasks", tmp_path / "model"
    model_args = f"pretrained={clip_dir},device=cpu"
    run = abductive_eval(
        ["--model", "clip_scorer", "--model_args", model_args, "--log_samples", "--tasks",
         "sherlock_retrieval_mini,sherlock_retrieval_mini_no_context,sherlock_comparison_no_context"],
        first,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    run = abductive_eval(
        ["--model", "clip_scorer", "--model_args", f"{model_args},input_mode=no_context", "--tasks",
         "sherlock_retrieval,sherlock_retrieval_mini,sherlock_comparison"],
        second,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    by_task, by_model = read_results(first), read_results(second)
    for name in ("p_at_1", "im2txt_rank", "txt2im_rank"):
        assert metric(by_task, "sherlock_retrieval_mini_no_context", f"mini_{name}") == pytest.approx(
            metric(by_model, "sherlock_retrieval_mini", f"mini_{name}")
        )
        assert metric(by_model, "sherlock_retrieval", f"retrieval_{name}") == pytest.approx(
            metric(by_model, "sherlock_retrieval_mini", f"mini_{name}")
        )
    assert metric(by_task, "sherlock_comparison_no_context", "comparison_acc") == pytest.approx(
        metric(by_model, "sherlock_comparison", "comparison_acc")
    )
    assert count(by_task, "sherlock_retrieval_mini_no_context", "unparsable") == 0

    def plausibility(task: str) -> dict[str, float]:
        return {s["mini_p_at_1"][1]["test_id"]: s["mini_p_at_1"][1]["plausibility"] for s in read_samples(first, task)}

    base, ablated = plausibility("sherlock_retrieval_mini"), plausibility("sherlock_retrieval_mini_no_context")
    assert base.keys() == ablated.keys() and all(base[key] != ablated[key] for key in base)


@pytest.mark.e2e
def test_every_ablation_task_runs_with_the_baselines(tmp_path):
    """dumb_pixel scores the mean luminance of the image the task shows: the ablated one."""
    output = tmp_path / "out"
    run = abductive_eval(["--model", "dumb_pixel", "--tasks", "sherlock_ablations", "--log_samples"], output)
    assert run.returncode == 0, run.stderr[-3000:]
    results = read_results(output)
    comparison = hooks.documents_from(data.load(SAMPLE_ROOT / "sherlock", "comparison", "val").items)
    for mode in ("no_region", "position_only", "no_context", "only_context", "crop", "pad"):
        assert count(results, f"sherlock_comparison_{mode}", "inputs_scored") == 3
        assert count(results, f"sherlock_retrieval_mini_{mode}", "chunks_scored") == 2
        samples = read_samples(output, f"sherlock_comparison_{mode}")
        for sample in samples:
            doc = comparison[int(sample["doc_id"])]
            image = images.draw_input(doc["image_path"], tuple(tuple(box) for box in doc["boxes"]), mode)
            assert sample["comparison_acc"][1]["plausibility"] == pytest.approx(images.mean_luminance(image) / 255)
