"""The payloads of the factored routes: how a model answers one request for many (image-region, inference) pairs.

* Retrieval (``sherlock_retrieval``): an embedding scorer (``clip_scorer``, and the baselines)
  answers a document whose ``score_route`` is :data:`EMBEDDING_ROUTE` with the image-region's and
  the inference's embeddings instead of a score, packed in one string (lmms-eval stringifies model
  outputs). The task's aggregation stacks them per chunk and scores the whole chunk with one matrix
  product (:mod:`abductive_tasks.sherlock.factored_retrieval`): rows and columns meet across documents.
* Localization (``sherlock_localization``): a document whose ``score_route`` is
  :data:`SCORE_MATRIX_ROUTE` is one image with its candidate regions (``region_keys``, and
  ``doc_to_visual`` gives one region-drawn image per region, in that order) and its inferences
  (``inferences``). Every pair it is scored on lies inside the document, so the model answers the
  whole regions x inferences plausibility matrix (higher = more plausible; for an embedding scorer
  the cosine similarities), not the embeddings: about 120 regions x 3 inferences per image is 360
  floats instead of 123 x 512 (:mod:`abductive_tasks.sherlock.localization`).

This module is the whole contract between the model backends and the task: it imports nothing
from the task hooks.
"""

from __future__ import annotations

import base64
import binascii

import numpy as np

EMBEDDING_ROUTE = "embedding"  # a document's ``score_route`` asking the model for embeddings, not a score
SCORE_MATRIX_ROUTE = "score_matrix"  # a document's ``score_route`` asking for its regions x inferences scores
PAYLOAD_PREFIX = "emb1:"
SCORE_MATRIX_PREFIX = "scm1:"


def encode_embeddings(image: np.ndarray, text: np.ndarray) -> str:
    """One request's image and text embeddings (same length, stored as little-endian float32) as a string."""
    image, text = np.asarray(image, dtype="<f4").ravel(), np.asarray(text, dtype="<f4").ravel()
    if image.size != text.size or not image.size:
        raise ValueError(
            f"image and text embeddings must be non-empty and of equal length, got {image.size} and {text.size}"
        )
    return PAYLOAD_PREFIX + base64.b64encode(np.concatenate([image, text]).tobytes()).decode("ascii")


def decode_embeddings(payload: object) -> tuple[np.ndarray, np.ndarray] | None:
    """The (image, text) embeddings of a payload; None when ``payload`` is not one (e.g. a plain score) or holds
    a value that is not finite (no score could be exported from it: the official validator rejects NaN)."""
    if not isinstance(payload, str) or not payload.startswith(PAYLOAD_PREFIX):
        return None
    try:
        raw = base64.b64decode(payload[len(PAYLOAD_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        return None
    if not raw or len(raw) % 8:  # two float32 vectors of equal length
        return None
    vector = np.frombuffer(raw, dtype="<f4")
    if not np.isfinite(vector).all():
        return None
    return vector[: vector.size // 2], vector[vector.size // 2 :]


def encode_score_matrix(scores: np.ndarray) -> str:
    """A regions x inferences plausibility matrix (stored as little-endian float32) as a string."""
    matrix = np.asarray(scores, dtype="<f4")
    if matrix.ndim != 2 or not matrix.size:
        raise ValueError(f"a score matrix must be a non-empty 2-D array, got shape {matrix.shape}")
    rows, cols = matrix.shape
    return f"{SCORE_MATRIX_PREFIX}{rows}x{cols}:" + base64.b64encode(np.ascontiguousarray(matrix).tobytes()).decode()


def decode_score_matrix(payload: object, shape: tuple[int, int] | None = None) -> np.ndarray | None:
    """The float32 matrix of a payload; None when ``payload`` is not one, has another ``shape`` than the one asked
    for, or holds a value that is not finite (no score could be exported from it)."""
    if not isinstance(payload, str) or not payload.startswith(SCORE_MATRIX_PREFIX):
        return None
    header, _, body = payload[len(SCORE_MATRIX_PREFIX) :].partition(":")
    rows, _, cols = header.partition("x")
    if not (rows.isdigit() and cols.isdigit()) or (shape is not None and (int(rows), int(cols)) != tuple(shape)):
        return None
    try:
        raw = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return None
    if not raw or len(raw) != 4 * int(rows) * int(cols):
        return None
    matrix = np.frombuffer(raw, dtype="<f4").reshape(int(rows), int(cols))
    return matrix if np.isfinite(matrix).all() else None
