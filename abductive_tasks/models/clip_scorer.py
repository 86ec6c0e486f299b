"""``clip_scorer``: CLIP-style (image, region, inference) scoring for the Sherlock tasks (Hessel et al., §4-§5).

A loglikelihood request is answered ``(-cosine, False)``: the cosine similarity between the
embedding of the request's image (the region already drawn on it by the task's
``doc_to_visual``) and the embedding of its continuation (the inference), negated to follow
lmms-eval's loss-like convention (lower = more plausible, like every lmms-eval backend's mean
loss; the Sherlock tasks score ``-value``). It loads any
transformers CLIP checkpoint (hub id or local folder): ``--model clip_scorer --model_args
pretrained=openai/clip-vit-base-patch16``.

Embeddings are cached per image and per text for the whole run, so scoring a chunk costs
O(distinct images + distinct texts) encoder passes, not O(pairs). The image cache is keyed by
the document's ``region_key`` field (a string naming the image file and its boxes) when the
task provides one, so ``doc_to_visual`` runs once per distinct image-region; otherwise by a
digest of the image bytes. Requests are processed grouped by that key, so documents sharing an
image file are consecutive and the file is decoded once.

Documents with ``score_route == "embedding"`` (the factored full-size ``sherlock_retrieval``)
get the embeddings themselves instead of a score: ``(payload, False)`` with the payload from
``abductive_tasks.sherlock.embeddings.encode_embeddings``; the task's aggregation then computes the
whole score matrix in one matrix product. Documents with ``score_route == "score_matrix"`` (the
factored ``sherlock_localization``: one image, its candidate regions and its inferences) get the
cosine similarities of every region (``doc_to_visual`` gives one region-drawn image per entry of
``region_keys``) with every inference (``inferences``) as one payload
(``encode_score_matrix``). Their region embeddings are not kept for the run (each region belongs to
one image, hence one document); the texts are.

Widescreen images (§5, official ``clip_inference_iterator.py``): with ``crops=two`` (default)
an image is encoded as two overlapping squares (left and right, or top and bottom), each
preprocessed by the checkpoint's image processor, and the two unnormalised embeddings are
averaged; ``crops=center`` uses the image processor alone (resize and centre crop: Fig. 5 "Crop no
Widescreen"); ``crops=pad`` pads the image to a black square first (Fig. 5 "Resize no Widescreen").

Input ablations (§5.2, Fig. 5): ``input_mode=no_region|no_context|only_context|position_only`` draws every
request's image itself from the document's image and boxes in that mode
(:func:`abductive_tasks.inputs.images.draw_input`) instead of taking the task's region-drawn visual, on every
route (embeddings, score matrices, per pair). The per-pair ablation tasks (``sherlock_*_no_context`` ...) draw
the same inputs through their ``doc_to_visual``; the two are not combined.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable

import torch
from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms
from PIL import Image
from transformers import AutoImageProcessor, AutoTokenizer, CLIPModel

from abductive_tasks.compat import visual_hook
from abductive_tasks.inputs.images import draw_input, square_pad
from abductive_tasks.models.arguments import CheckedArguments
from abductive_tasks.sherlock.embeddings import (
    EMBEDDING_ROUTE,
    SCORE_MATRIX_ROUTE,
    encode_embeddings,
    encode_score_matrix,
)

CROP_MODES = ("two", "center", "pad")
DRAWN_MODES = ("region", "no_region", "no_context", "only_context", "position_only")  # input_mode values


def square_crops(image: Image.Image) -> list[Image.Image]:
    """Sherlock §5 widescreen input: the two extreme overlapping squares of the short side."""
    width, height = image.size
    side = min(width, height)
    return [image.crop((0, 0, side, side)), image.crop((width - side, height - side, width, height))]


def image_digest(image: Image.Image) -> str:
    """Content key of a decoded image (size, mode and pixels)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{image.mode}:{image.size}".encode())
    digest.update(image.tobytes())
    return digest.hexdigest()


class ClipScorer(CheckedArguments, lmms):
    """Cosine similarity between CLIP image-region and inference embeddings, with embedding caches."""

    model_id = "clip_scorer"

    def __init__(
        self,
        pretrained: str,
        crops: str = "two",
        text_prefix: str = "",
        input_mode: str = "region",
        batch_size: int | str = 64,
        max_batch_size: int | None = None,
        device: str | None = None,
    ) -> None:
        """``pretrained``: a transformers CLIP checkpoint (hub id or local path). ``crops``: "two"
        (§5 widescreen handling, default), "center" or "pad". ``text_prefix``: prepended to every text (the paper's
        multitask model reads "inference: ..." and "clue: ..."). ``input_mode``: "region" (the task's region-drawn
        image, default) or a Fig. 5 input ablation drawn here (``DRAWN_MODES``). ``batch_size``: images or texts per
        encoder pass (lmms-eval's ``--batch_size``; ``max_batch_size`` is accepted and unused).
        ``device`` defaults to CUDA when available."""
        super().__init__()
        if crops not in CROP_MODES:
            raise ValueError(f"clip_scorer: crops must be one of {CROP_MODES}, got '{crops}'")
        if input_mode not in DRAWN_MODES:
            raise ValueError(f"clip_scorer: input_mode must be one of {DRAWN_MODES}, got '{input_mode}'")
        self.crops = crops
        self.input_mode = input_mode
        self.text_prefix = text_prefix
        self.batch_size = max(1, int(batch_size))
        self._device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = CLIPModel.from_pretrained(pretrained).to(self._device).eval()
        self.image_processor = AutoImageProcessor.from_pretrained(pretrained)
        self.tokenizer = AutoTokenizer.from_pretrained(pretrained)
        self.max_text_tokens = self.model.config.text_config.max_position_embeddings
        self.image_embeddings: dict[Hashable, torch.Tensor] = {}
        self.text_embeddings: dict[str, torch.Tensor] = {}
        self.images_encoded = 0  # distinct image-regions passed through the vision tower
        self.texts_encoded = 0  # distinct texts passed through the text tower

    @property
    def device(self) -> torch.device:
        return self._device

    # ------------------------------------------------------------ encoders

    @torch.inference_mode()
    def _encode_images(self, images: list[Image.Image]) -> torch.Tensor:
        """L2-normalised embeddings, one row per image (float32, on CPU)."""
        views = [
            square_crops(image) if self.crops == "two" else [square_pad(image) if self.crops == "pad" else image]
            for image in images
        ]
        flat = [view.convert("RGB") if view.mode != "RGB" else view for group in views for view in group]
        pixels = self.image_processor(images=flat, return_tensors="pt")["pixel_values"].to(
            self._device, self.model.dtype
        )
        features = self.model.get_image_features(pixel_values=pixels).pooler_output.float()
        features = features.view(len(images), len(views[0]), -1).mean(dim=1)  # §5: average the crops' embeddings
        self.images_encoded += len(images)
        return torch.nn.functional.normalize(features, dim=-1).cpu()

    @torch.inference_mode()
    def _encode_texts(self, texts: list[str]) -> torch.Tensor:
        tokens = self.tokenizer(
            [self.text_prefix + text for text in texts],
            padding=True,
            truncation=True,
            max_length=self.max_text_tokens,
            return_tensors="pt",
        )
        tokens = {name: tokens[name].to(self._device) for name in ("input_ids", "attention_mask") if name in tokens}
        features = self.model.get_text_features(**tokens).pooler_output.float()
        self.texts_encoded += len(texts)
        return torch.nn.functional.normalize(features, dim=-1).cpu()

    # ------------------------------------------------------------ requests

    def _visual_mode(self, doc_to_visual: Callable) -> str:
        """The input mode a request's image is drawn in: the task's (its visual hook's ``input_mode``) or this
        scorer's ``input_mode``; never both ablated."""
        task_mode = getattr(visual_hook(doc_to_visual), "input_mode", "region")
        if self.input_mode == "region":
            return task_mode
        if task_mode != "region":
            raise ValueError(
                f"clip_scorer input_mode={self.input_mode} on a task whose images are already drawn as {task_mode}: "
                "run the task's base (e.g. sherlock_comparison) with input_mode, or the ablation task without it"
            )
        return self.input_mode

    def _visuals(self, doc: dict, doc_to_visual: Callable) -> list[Image.Image]:
        """A request's images: the task's visual, or this scorer's input ablation of the document's region."""
        if self.input_mode == "region":
            return doc_to_visual(doc)
        self._visual_mode(doc_to_visual)
        if "boxes" not in doc or "image_path" not in doc:
            raise ValueError(f"clip_scorer input_mode={self.input_mode} needs a Sherlock document (image and boxes)")
        return [draw_input(doc["image_path"], tuple(map(tuple, doc["boxes"])), self.input_mode)]

    def _image_key(self, doc: dict, doc_to_visual: Callable) -> tuple[Hashable, list[Image.Image] | None]:
        """The cache key of a request's image, and the images themselves when they had to be drawn to get it."""
        if doc.get("region_key"):
            return ("region", self._visual_mode(doc_to_visual), doc["region_key"]), None
        images = self._visuals(doc, doc_to_visual)
        return ("pixels", *(image_digest(image) for image in images)), images

    def _fill_image_cache(self, docs: list[tuple[dict, Callable]]) -> list[Hashable]:
        """Encode every image-region not cached yet, in batches; return each request's image key."""
        keys: list[Hashable] = [None] * len(docs)
        batch: list[tuple[Hashable, int]] = []  # (key, number of images) in batch order
        images_in_batch: list[Image.Image] = []

        def flush() -> None:
            embeddings, start = self._encode_images(images_in_batch), 0
            for key, count in batch:  # several images for one request: their embeddings are averaged
                self.image_embeddings[key] = torch.nn.functional.normalize(
                    embeddings[start : start + count].mean(dim=0), dim=-1
                )
                start += count
            batch.clear()
            images_in_batch.clear()

        # Grouped by region key (which starts with the image file): a file's regions are drawn consecutively.
        order = sorted(range(len(docs)), key=lambda index: (str(docs[index][0].get("region_key", "")), index))
        for index in order:
            doc, doc_to_visual = docs[index]
            key, images = self._image_key(doc, doc_to_visual)
            keys[index] = key
            if key in self.image_embeddings or any(key == queued for queued, _count in batch):
                continue
            images = images if images is not None else self._visuals(doc, doc_to_visual)
            if not images:
                raise ValueError(
                    f"clip_scorer needs an image per request; document {doc.get('region_key', index)!r} has none"
                )
            batch.append((key, len(images)))
            images_in_batch.extend(images)
            if len(images_in_batch) >= self.batch_size:
                flush()
        if batch:
            flush()
        return keys

    def _fill_text_cache(self, texts: list[str]) -> None:
        missing = sorted(set(texts) - self.text_embeddings.keys())
        for start in range(0, len(missing), self.batch_size):
            chunk = missing[start : start + self.batch_size]
            for text, embedding in zip(chunk, self._encode_texts(chunk), strict=True):
                self.text_embeddings[text] = embedding

    def _score_matrix(self, doc: dict, doc_to_visual: Callable) -> str:
        """A score-matrix document's regions x inferences cosine similarities, as a payload."""
        if self.input_mode == "region":
            regions = doc_to_visual(doc)
        else:
            regions = [
                draw_input(doc["image_path"], tuple(map(tuple, region)), self.input_mode) for region in doc["regions"]
            ]
        if len(regions) != len(doc["region_keys"]):
            raise ValueError(
                f"clip_scorer: a score-matrix document needs one image per region, got {len(regions)} images for "
                f"{len(doc['region_keys'])} regions"
            )
        image = torch.cat(
            [
                self._encode_images(regions[start : start + self.batch_size])
                for start in range(0, len(regions), self.batch_size)
            ]
        )
        self._fill_text_cache(doc["inferences"])
        text = torch.stack([self.text_embeddings[inference] for inference in doc["inferences"]])
        return encode_score_matrix((image @ text.T).numpy())

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float | str, bool]]:
        """``(-cosine similarity, False)`` per request (loss-like), ``(embedding payload, False)`` for
        embedding-route documents, ``(score-matrix payload, False)`` for score-matrix documents."""
        docs, texts, matrices = [], [], {}
        for number, request in enumerate(requests):
            _context, target, doc_to_visual, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            if doc.get("score_route") == SCORE_MATRIX_ROUTE:
                matrices[number] = (self._score_matrix(doc, doc_to_visual), False)
                continue
            docs.append((doc, doc_to_visual))
            texts.append(target if isinstance(target, str) else target(doc))
        keys = self._fill_image_cache(docs)
        self._fill_text_cache(texts)
        results: list[tuple[float | str, bool]] = []
        for key, text, (doc, _visual) in zip(keys, texts, docs, strict=True):
            image, inference = self.image_embeddings[key], self.text_embeddings[text]
            if doc.get("score_route") == EMBEDDING_ROUTE:
                results.append((encode_embeddings(image.numpy(), inference.numpy()), False))
            else:
                results.append((-float(image @ inference), False))
        for number, result in sorted(matrices.items()):
            results.insert(number, result)
        return results

    def generate_until(self, requests: list[Instance]) -> list[str]:
        raise NotImplementedError(
            "clip_scorer only scores (loglikelihood); use the Sherlock loglikelihood tasks, not the *_rating variants"
        )

    def generate_until_multi_round(self, requests: list[Instance]) -> list[str]:
        return self.generate_until(requests)
