"""Baseline models (NL-Eye §4.3) that answer every task this package ships.

They read what to answer from the document itself, so every task's ``process_docs`` must
provide these fields:

* ``answer_kind``: ``"choice"`` (pick one of ``choices``), ``"score"`` (a 1-10 rating) or
  ``"text"`` (free text: answer with one of the candidate texts in ``choices``);
* ``choices``: the option labels in the order the prompt presents them, or for ``"text"`` the
  candidate texts (e.g. other items' references: a retrieval baseline for generation tasks);
* ``candidate_images``: image paths aligned with ``choices`` (for ``"score"``: the one image
  rated; for ``"text"``: the images whose brightness ``dumb_pixel`` maps to a candidate).

Answers use the format the prompts ask for ("2. ..." / "Score: 7"), so they run through the
same parsing and metrics as any model.

Loglikelihood requests (Sherlock's scoring interface) get ``(loss, False)`` like lmms-eval's
backends, lower = more plausible: ``random_baseline`` a seeded uniform number, ``dumb_pixel``
minus the mean luminance (0-1) of the request's first image (for Sherlock, the region-drawn image).
Documents of the factored Sherlock retrieval (``score_route`` "embedding") get an embedding
payload (:mod:`abductive_tasks.sherlock.embeddings`) whose dot product is the score:
``random_baseline`` seeded random unit vectors keyed by the image-region and by the inference
text (random scores, the same for every document showing them), ``dumb_pixel`` the mean
luminance (0-1) of the region-drawn image against the text vector ``[1.0]`` (the score of its
loglikelihood route). Documents of the factored Sherlock localization (``score_route``
"score_matrix") get the matrix of those dot products over the document's regions
(``region_keys``, one region-drawn image each) and inferences (``inferences``).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms

from abductive_tasks.inputs.images import mean_luminance, top_left_luminance
from abductive_tasks.models.arguments import CheckedArguments
from abductive_tasks.sherlock.embeddings import (
    EMBEDDING_ROUTE,
    SCORE_MATRIX_ROUTE,
    encode_embeddings,
    encode_score_matrix,
)

SCORE_RANGE = (1, 10)
RANDOM_EMBEDDING_SIZE = 16


class _DocumentBaseline(CheckedArguments, lmms):
    """Answers each request from its document, without looking at the prompt."""

    model_id = "baseline"

    def __init__(
        self,
        seed: int | str = 0,
        batch_size: int | str = 1,
        max_batch_size: int | None = None,
        device: str | None = None,
    ) -> None:
        """``seed`` comes from ``--model_args``; lmms-eval passes the batch and device settings,
        which a baseline does not need. Any other argument is refused by name
        (:mod:`abductive_tasks.models.arguments`)."""
        super().__init__()
        self.seed = int(seed)

    def answer(self, doc: dict, rng: random.Random) -> str:
        raise NotImplementedError

    def generate_until(self, requests: list[Instance]) -> list[str]:
        answers = []
        for request in requests:
            _context, _gen_kwargs, _doc_to_visual, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            if "answer_kind" not in doc:
                raise ValueError(
                    f"{self.model_id} answers only abductive-tasks tasks; task '{task}' documents lack 'answer_kind'"
                )
            rng = random.Random(f"{self.seed}:{task}:{doc_id}")  # independent of request order
            answers.append(self.answer(doc, rng))
        return answers

    def generate_until_multi_round(self, requests: list[Instance]) -> list[str]:
        return self.generate_until(requests)

    def loss(self, doc: dict, doc_to_visual: Callable[[dict], list], rng: random.Random) -> float:
        raise NotImplementedError

    def embeddings(self, doc: dict, doc_to_visual: Callable[[dict], list]) -> tuple[np.ndarray, np.ndarray]:
        """The (image-region, inference) embeddings of an embedding-route document."""
        raise NotImplementedError

    def region_embeddings(self, doc: dict, doc_to_visual: Callable[[dict], list]) -> tuple[np.ndarray, np.ndarray]:
        """A score-matrix document's region embeddings (one row per region) and inference embeddings (one row per
        inference), the same vectors :meth:`embeddings` gives each region and inference."""
        raise NotImplementedError

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float | str, bool]]:
        """A loss-like number per request (lower = more plausible), seeded per task and document;
        an embedding payload for embedding-route documents."""
        losses: list[tuple[float | str, bool]] = []
        for request in requests:
            _context, _continuation, doc_to_visual, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            if doc.get("score_route") == EMBEDDING_ROUTE:
                losses.append((encode_embeddings(*self.embeddings(doc, doc_to_visual)), False))
                continue
            if doc.get("score_route") == SCORE_MATRIX_ROUTE:
                regions, inferences = self.region_embeddings(doc, doc_to_visual)
                losses.append((encode_score_matrix(regions @ inferences.T), False))
                continue
            rng = random.Random(f"{self.seed}:{task}:{doc_id}")
            losses.append((self.loss(doc, doc_to_visual, rng), False))
        return losses


class RandomBaseline(_DocumentBaseline):
    """A uniformly random option, or a uniformly random integer score; seeded per document."""

    model_id = "random_baseline"

    def answer(self, doc: dict, rng: random.Random) -> str:
        if doc["answer_kind"] == "choice":
            return f"{rng.choice(doc['choices'])}. Chosen at random."
        if doc["answer_kind"] == "text":
            return rng.choice(doc["choices"])
        return f"Score: {rng.randint(*SCORE_RANGE)}. Chosen at random."

    def loss(self, doc: dict, doc_to_visual: Callable[[dict], list], rng: random.Random) -> float:
        return rng.random()

    def embeddings(self, doc: dict, doc_to_visual: Callable[[dict], list]) -> tuple[np.ndarray, np.ndarray]:
        """Seeded random unit vectors keyed by content, so that every document showing a region or a text agrees."""
        return self._unit_vector(f"image:{doc['region_key']}"), self._unit_vector(f"text:{doc['inference']}")

    def region_embeddings(self, doc: dict, doc_to_visual: Callable[[dict], list]) -> tuple[np.ndarray, np.ndarray]:
        regions = np.array([self._unit_vector(f"image:{key}") for key in doc["region_keys"]])
        return regions, np.array([self._unit_vector(f"text:{text}") for text in doc["inferences"]])

    def _unit_vector(self, key: str) -> np.ndarray:
        rng = random.Random(f"{self.seed}:{key}")
        vector = np.array([rng.gauss(0.0, 1.0) for _ in range(RANDOM_EMBEDDING_SIZE)])
        return vector / np.linalg.norm(vector)


class DumbPixel(_DocumentBaseline):
    """NL-Eye's dumb-pixel baseline: the candidate whose upper-left pixel is brightest wins
    (the first on ties); a rated image scores 1 + 9 * luminance / 255; for free text, the mean
    upper-left luminance of the images picks a candidate text by its position in ``choices``."""

    model_id = "dumb_pixel"

    def answer(self, doc: dict, rng: random.Random) -> str:
        brightness = [top_left_luminance(path) for path in doc["candidate_images"]]
        if doc["answer_kind"] == "choice":
            return f"{doc['choices'][brightness.index(max(brightness))]}. Its upper-left pixel is the brightest."
        if doc["answer_kind"] == "text":
            mean = sum(brightness) / len(brightness)
            return doc["choices"][min(int(mean / 256 * len(doc["choices"])), len(doc["choices"]) - 1)]
        low, high = SCORE_RANGE
        return f"Score: {low + (high - low) * brightness[0] / 255:.3f}. Read from the upper-left pixel."

    def loss(self, doc: dict, doc_to_visual: Callable[[dict], list], rng: random.Random) -> float:
        """Brighter first image = more plausible: minus its mean luminance, scaled to 0-1."""
        return -mean_luminance(doc_to_visual(doc)[0]) / 255

    def embeddings(self, doc: dict, doc_to_visual: Callable[[dict], list]) -> tuple[np.ndarray, np.ndarray]:
        """The image-region's mean luminance (0-1) against a constant text: the score of the loglikelihood route."""
        return np.array([mean_luminance(doc_to_visual(doc)[0]) / 255]), np.array([1.0])

    def region_embeddings(self, doc: dict, doc_to_visual: Callable[[dict], list]) -> tuple[np.ndarray, np.ndarray]:
        luminance = [[mean_luminance(image) / 255] for image in doc_to_visual(doc)]
        return np.array(luminance), np.ones((len(doc["inferences"]), 1))
