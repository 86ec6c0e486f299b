"""The two Sherlock scorers: ``clip_scorer`` (tiny random CLIP) and ``llava_hf_scorer`` (tiny random LLaVA)."""

from __future__ import annotations

import lmms_eval.models  # noqa: F401 - the model registry first (it imports our manifests)
import numpy as np
import pytest
import torch
from lmms_eval.api.instance import Instance
from lmms_eval.models import get_model
from lmms_eval.models.simple.llava_hf import LlavaHf
from PIL import Image, ImageDraw
from transformers import AutoImageProcessor, AutoTokenizer, CLIPModel

from abductive_tasks.models.clip_scorer import ClipScorer, square_crops
from abductive_tasks.models.llava_scorer import LlavaHfScorer
from abductive_tasks.sherlock.embeddings import (
    EMBEDDING_ROUTE,
    SCORE_MATRIX_ROUTE,
    decode_embeddings,
    decode_score_matrix,
)

from helpers.runs import abductive_eval, count, metric, read_results
from helpers.tiny_clip import build_tiny_clip
from helpers.tiny_llava import build_tiny_llava


def _image(size: tuple[int, int], colour: tuple[int, int, int]) -> Image.Image:
    image = Image.new("RGB", size, colour)
    ImageDraw.Draw(image).rectangle([(2, 3), (size[0] // 2, size[1] - 4)], fill=(255 - colour[0], 40, 200))
    return image


IMAGES = {
    "wide": _image((64, 32), (200, 30, 30)),
    "tall": _image((24, 56), (20, 180, 60)),
    "square": _image((40, 40), (10, 10, 240)),
}
TEXTS = ["the dog is hungry", "it is raining", "a waiter in a kitchen"]


class CountingVisual:
    """A doc_to_visual that returns the document's image and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, doc: dict) -> list[Image.Image]:
        self.calls += 1
        return [IMAGES[doc["image"]]]


def documents(region_keys: bool = True, route: str | None = None) -> list[dict]:
    """Every (image, text) pair, the first three pairs twice: 12 requests over 3 images and 3 texts."""
    pairs = [(image, text) for image in IMAGES for text in TEXTS]
    docs = [{"image": image, "inference": text} for image, text in pairs + pairs[:3]]
    for doc in docs:
        if region_keys:
            doc["region_key"] = f"{doc['image']}|[[1, 2, 3, 4]]"
        if route:
            doc["score_route"] = route
    return docs


def requests_for(model, docs: list[dict], visual, context: str = "Look at the image .") -> list[Instance]:
    model.task_dict = {"task": {"test": docs}}
    metadata = [{"task": "task", "doc_id": index, "repeats": 1, "split": "test"} for index in range(len(docs))]
    return [
        Instance(
            "loglikelihood", (context, doc["inference"], visual, index, "task", "test"), idx=0, metadata=metadata[index]
        )
        for index, doc in enumerate(docs)
    ]


@pytest.fixture(scope="module")
def clip_dir(tmp_path_factory):
    return build_tiny_clip(tmp_path_factory.mktemp("tiny-clip"))


@pytest.fixture(scope="module")
def llava_dir(tmp_path_factory):
    return build_tiny_llava(tmp_path_factory.mktemp("tiny-llava"))


def test_both_scorers_are_registered_with_lmms_eval():
    assert get_model("clip_scorer") is ClipScorer
    assert get_model("llava_hf_scorer") is LlavaHfScorer


# ---------------------------------------------------------------- clip_scorer


def _reference_embeddings(clip_dir, images: list[Image.Image], texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """Embeddings straight from transformers: processor, CLIPModel, L2 normalisation."""
    model = CLIPModel.from_pretrained(clip_dir).eval()
    processor, tokenizer = AutoImageProcessor.from_pretrained(clip_dir), AutoTokenizer.from_pretrained(clip_dir)
    with torch.no_grad():
        image = model.get_image_features(
            pixel_values=processor(images=images, return_tensors="pt")["pixel_values"]
        ).pooler_output
        tokens = tokenizer(texts, padding=True, return_tensors="pt")
        text = model.get_text_features(
            input_ids=tokens["input_ids"], attention_mask=tokens["attention_mask"]
        ).pooler_output
    return torch.nn.functional.normalize(image, dim=-1), torch.nn.functional.normalize(text, dim=-1)


def test_clip_score_is_the_negated_cosine_of_the_checkpoint_embeddings(clip_dir):
    model = ClipScorer(pretrained=str(clip_dir), crops="center", device="cpu")
    docs = documents()
    scores = [value for value, greedy in model.loglikelihood(requests_for(model, docs, CountingVisual()))]
    image, text = _reference_embeddings(
        clip_dir, [IMAGES[doc["image"]] for doc in docs], [doc["inference"] for doc in docs]
    )
    expected = -(image * text).sum(dim=-1)
    np.testing.assert_allclose(scores, expected.numpy(), atol=1e-5)
    assert len(set(np.round(scores, 6))) == 9  # nine distinct pairs, nine distinct scores


def test_two_crops_average_the_squares_of_a_widescreen_image(clip_dir):
    """§5: the two extreme squares' unnormalised embeddings are averaged; a square image is its own two crops."""
    wide = IMAGES["wide"]
    left, right = square_crops(wide)
    assert left.size == right.size == (32, 32) and left.tobytes() != right.tobytes()
    model = ClipScorer(pretrained=str(clip_dir), device="cpu")
    reference = CLIPModel.from_pretrained(clip_dir).eval()
    processor = AutoImageProcessor.from_pretrained(clip_dir)
    with torch.no_grad():
        raw = reference.get_image_features(
            pixel_values=processor(images=[left, right], return_tensors="pt")["pixel_values"]
        ).pooler_output
    expected = torch.nn.functional.normalize(raw.mean(dim=0), dim=-1)
    torch.testing.assert_close(model._encode_images([wide])[0], expected, atol=1e-5, rtol=0)
    center = ClipScorer(pretrained=str(clip_dir), crops="center", device="cpu")
    torch.testing.assert_close(
        model._encode_images([IMAGES["square"]]), center._encode_images([IMAGES["square"]]), atol=1e-5, rtol=0
    )


def test_clip_batches_and_caches_encode_each_image_and_text_once(clip_dir):
    docs = documents()
    single = ClipScorer(pretrained=str(clip_dir), batch_size=1, device="cpu")
    batched = ClipScorer(pretrained=str(clip_dir), batch_size=64, device="cpu")
    visual = CountingVisual()
    single_scores = single.loglikelihood(requests_for(single, docs, CountingVisual()))
    batched_scores = batched.loglikelihood(requests_for(batched, docs, visual))
    np.testing.assert_allclose([s for s, _ in single_scores], [s for s, _ in batched_scores], atol=1e-5)
    # 12 requests over 3 distinct region keys and 3 distinct texts: 3 + 3 encoder passes, 3 drawings.
    assert (batched.images_encoded, batched.texts_encoded, visual.calls) == (3, 3, 3)
    assert batched_scores[9:] == batched_scores[:3]  # repeated pairs, same scores
    again = batched.loglikelihood(requests_for(batched, list(reversed(docs)), visual))
    assert (batched.images_encoded, batched.texts_encoded, visual.calls) == (3, 3, 3)  # the caches serve a second call
    assert again == list(reversed(batched_scores))


def test_clip_without_region_keys_keys_images_by_their_pixels(clip_dir):
    keyed = ClipScorer(pretrained=str(clip_dir), device="cpu")
    by_pixels = ClipScorer(pretrained=str(clip_dir), device="cpu")
    visual = CountingVisual()
    expected = keyed.loglikelihood(requests_for(keyed, documents(), CountingVisual()))
    scores = by_pixels.loglikelihood(requests_for(by_pixels, documents(region_keys=False), visual))
    np.testing.assert_allclose([s for s, _ in scores], [s for s, _ in expected], atol=1e-5)
    assert visual.calls == 12 and by_pixels.images_encoded == 3  # drawn per request to get the key, encoded once


def test_clip_returns_embeddings_for_embedding_route_documents(clip_dir):
    model = ClipScorer(pretrained=str(clip_dir), device="cpu")
    scores = model.loglikelihood(requests_for(model, documents(), CountingVisual()))
    payloads = model.loglikelihood(requests_for(model, documents(route=EMBEDDING_ROUTE), CountingVisual()))
    for (score, _), (payload, greedy) in zip(scores, payloads, strict=True):
        image, text = decode_embeddings(payload)
        assert greedy is False and image.shape == text.shape == (16,)
        assert float(np.linalg.norm(image)) == pytest.approx(1, abs=1e-5)
        assert -float(image @ text) == pytest.approx(score, abs=1e-6)
    with pytest.raises(NotImplementedError, match="only scores"):
        model.generate_until([])


def test_clip_answers_a_score_matrix_document_with_every_region_inference_cosine(clip_dir):
    """A factored localization document (one image, its regions, its inferences) mixed with per-pair requests: its
    answer is the regions x inferences matrix of the per-pair scores, and the other answers keep their places."""
    model = ClipScorer(pretrained=str(clip_dir), batch_size=2, device="cpu")
    pairs = documents()[:3]
    matrix_doc = {
        "score_route": SCORE_MATRIX_ROUTE,
        "region_keys": [f"{name}|[[1, 2, 3, 4]]" for name in IMAGES],
        "inferences": TEXTS[::-1],
        "inference": "",
    }

    def visual(doc: dict) -> list[Image.Image]:
        return list(IMAGES.values()) if "region_keys" in doc else [IMAGES[doc["image"]]]

    answers = model.loglikelihood(requests_for(model, [pairs[0], matrix_doc, pairs[1]], visual))
    per_pair = ClipScorer(pretrained=str(clip_dir), device="cpu")
    scores = [value for value, _ in per_pair.loglikelihood(requests_for(per_pair, documents()[:9], visual))]
    assert [answers[0][0], answers[2][0]] == pytest.approx(scores[:2], abs=1e-6)
    matrix = decode_score_matrix(answers[1][0], (3, 3))
    expected = -np.array(scores).reshape(3, 3)[:, ::-1]  # rows: IMAGES order; columns: TEXTS reversed
    np.testing.assert_allclose(matrix, expected, atol=1e-6)
    assert answers[1][1] is False and model.images_encoded == 1 + 3  # the two pairs share an image; the document: 3


def test_clip_rejects_unknown_crop_mode(clip_dir):
    with pytest.raises(ValueError, match="crops"):
        ClipScorer(pretrained=str(clip_dir), crops="stretch", device="cpu")


# ---------------------------------------------------------------- llava_hf_scorer


def test_lmms_eval_llava_hf_loglikelihood_fails_with_images(llava_dir):
    """The bug llava_hf_scorer fixes: the simple llava_hf tokenises its context without the images."""
    model = LlavaHf(pretrained=str(llava_dir), device="cpu", device_map="cpu")
    with pytest.raises(ValueError, match="(?i)image"):
        model.loglikelihood(requests_for(model, documents()[:1], CountingVisual()))


def test_llava_scorer_is_the_continuation_loss_with_the_image(llava_dir):
    model = LlavaHfScorer(pretrained=str(llava_dir), device="cpu", device_map="cpu", batch_size=4)
    docs = documents()
    scores = model.loglikelihood(requests_for(model, docs, CountingVisual()))
    values = np.array([value for value, _ in scores])
    assert np.isfinite(values).all() and (values > 0).all()  # a loss: minus a mean log-probability
    by_image = values[:9].reshape(3, 3)  # rows: images, columns: texts
    assert all(len(set(np.round(by_image[:, column], 6))) == 3 for column in range(3))  # the image changes the score
    np.testing.assert_allclose(values[9:], values[:3], rtol=0, atol=1e-6)

    # Reference: transformers' own loss over the continuation tokens of the same sequence.
    request = requests_for(model, docs, CountingVisual())[4]
    encoded = model._encode(request)
    labels = torch.full((1, len(encoded["ids"])), -100)
    labels[0, -encoded["continuation"] :] = torch.tensor(encoded["ids"][-encoded["continuation"] :])
    with torch.no_grad():
        loss = model.model(input_ids=torch.tensor([encoded["ids"]]), labels=labels, **encoded["images"]).loss
    assert values[4] == pytest.approx(float(loss), abs=1e-5)

    # One request at a time, in reverse order: the same numbers.
    model.batch_size_per_gpu = 1
    reversed_scores = model.loglikelihood(requests_for(model, list(reversed(docs)), CountingVisual()))
    np.testing.assert_allclose([value for value, _ in reversed(reversed_scores)], values, rtol=0, atol=1e-5)


def test_llava_scorer_sum_mode_scales_by_the_continuation_length(llava_dir):
    mean = LlavaHfScorer(pretrained=str(llava_dir), device="cpu", device_map="cpu")
    total = LlavaHfScorer(pretrained=str(llava_dir), device="cpu", device_map="cpu", score="sum")
    docs = documents()[:3]
    lengths = [mean._encode(request)["continuation"] for request in requests_for(mean, docs, CountingVisual())]
    assert lengths == [4, 3, 5]
    mean_values = [value for value, _ in mean.loglikelihood(requests_for(mean, docs, CountingVisual()))]
    sum_values = [value for value, _ in total.loglikelihood(requests_for(total, docs, CountingVisual()))]
    np.testing.assert_allclose(sum_values, np.array(mean_values) * lengths, rtol=1e-5)
    with pytest.raises(ValueError, match="score"):
        LlavaHfScorer(pretrained=str(llava_dir), device="cpu", device_map="cpu", score="max")


# ---------------------------------------------------------------- end to end on the sample data


@pytest.mark.e2e
def test_clip_scorer_runs_every_sherlock_task_and_both_retrieval_and_localization_routes_agree(tmp_path, clip_dir):
    """One abductive-eval run: the factored retrieval (embeddings, one matrix product) and the per-pair mini
    grid (which covers the whole small sample chunks) must give the same numbers from the same model; so must the
    factored localization (one score matrix per image) and the per-pair one (one request per instance)."""
    tasks = (
        "sherlock_retrieval,sherlock_retrieval_mini,sherlock_localization,sherlock_localization_pairs,"
        "sherlock_comparison"
    )
    output = tmp_path / "out"
    run = abductive_eval(
        ["--model", "clip_scorer", "--model_args", f"pretrained={clip_dir},device=cpu", "--tasks", tasks], output
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = read_results(output)
    assert count(results, "sherlock_retrieval", "chunks_scored") == 2
    assert count(results, "sherlock_retrieval", "documents") == 4 + 3  # one per instance id: 16 + 9 instances
    assert count(results, "sherlock_retrieval", "unparsable") == 0
    assert count(results, "sherlock_retrieval_mini", "documents") == 16 + 9
    for name in ("p_at_1", "im2txt_rank", "txt2im_rank"):
        assert metric(results, "sherlock_retrieval", f"retrieval_{name}") == pytest.approx(
            metric(results, "sherlock_retrieval_mini", f"mini_{name}")
        )
    assert metric(results, "sherlock_comparison", "comparison_acc") is not None
    assert (
        count(results, "sherlock_localization", "documents"),
        count(results, "sherlock_localization_pairs", "documents"),
    ) == (3, 40)
    assert count(results, "sherlock_localization", "instances_unscored") == 0
    for name in ("gt_acc", "auto_acc", "auto_oracle_acc", "ci95"):
        assert metric(results, "sherlock_localization", f"localization_{name}") == metric(
            results, "sherlock_localization_pairs", f"localization_{name}"
        ), name
    assert count(results, "sherlock_localization", "unparsable") == 0
    assert count(results, "sherlock_comparison", "unparsable") == 0


@pytest.mark.e2e
def test_llava_hf_scorer_scores_every_per_pair_task_with_its_images(tmp_path, llava_dir):
    """The image-aware loglikelihood runs through abductive-eval;
    the embedding-only full retrieval counts its answers as unparsable."""
    tasks = "sherlock_retrieval,sherlock_retrieval_mini,sherlock_localization_pairs,sherlock_comparison"
    output = tmp_path / "out"
    run = abductive_eval(
        [
            "--model",
            "llava_hf_scorer",
            "--model_args",
            f"pretrained={llava_dir},device_map=cpu,device=cpu",
            "--tasks",
            tasks,
        ],
        output,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = read_results(output)
    assert (
        count(results, "sherlock_retrieval_mini", "chunks_scored") == 2
        and count(results, "sherlock_retrieval_mini", "unparsable") == 0
    )
    assert 0 <= metric(results, "sherlock_retrieval_mini", "mini_p_at_1") <= 100
    assert (
        count(results, "sherlock_localization_pairs", "unparsable") == 0
        and count(results, "sherlock_localization_pairs", "gt_images") == 3
    )
    assert (
        count(results, "sherlock_comparison", "unparsable") == 0
        and count(results, "sherlock_comparison", "inputs_scored") == 3
    )
    assert (
        count(results, "sherlock_retrieval", "unparsable"),
        count(results, "sherlock_retrieval", "chunks_scored"),
    ) == (7, 0)
