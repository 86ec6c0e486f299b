"""Sherlock lmms-eval hooks: documents, the region-drawn image, prompts, and the task specs process_results
and the aggregations derive from (:mod:`abductive_tasks.scoring.taskspec`).

Routes (paper §4: a model maps (image, region, inference) to a real score):

* loglikelihood: the image with the region drawn on it, a fixed instruction as context and the
  inference as continuation. lmms-eval 0.7.3 backends return a LOSS-like first element (mean
  negative log-likelihood, lower = more plausible) and stringify the pair before process_results,
  so the score is minus the first element (:class:`Plausibility`);
* generate (``*_rating`` tasks): a 1-10 plausibility rating (``reading.kinds.Score``);
* embeddings (``sherlock_retrieval``, the factored full-size retrieval): the model returns the
  image-region's and the inference's embeddings (:class:`EmbeddingPayload`);
* score matrices (``sherlock_localization``, the factored full-size localization): one document per
  image, the model returns its regions x inferences scores (:class:`ScoreMatrixPayload`).

An unreadable result and a failed request carry no plausibility: both are counted (``unparsable``,
``request_failed``) and scored as the export writes them, the lowest score of their leaderboard file
minus 1 (:func:`abductive_tasks.sherlock.metrics.submitted_scores`).

lmms-eval hands ``process_docs`` a one-row placeholder dataset (``_default_template_yaml``); the
documents are the items of :func:`abductive_tasks.sherlock.data.load` for the data
``ABDUCTIVE_DATA`` selects, with the fields the baseline models read added.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import datasets

from abductive_tasks.compat import loglikelihood_value
from abductive_tasks.inputs.images import draw_input, draw_regions
from abductive_tasks.scoring.reading import Score
from abductive_tasks.scoring.taskspec import Metric, Reading, TaskSpec
from abductive_tasks.sherlock import localization, metrics, prompts
from abductive_tasks.sherlock.data import load_selected
from abductive_tasks.sherlock.embeddings import (
    EMBEDDING_ROUTE,
    SCORE_MATRIX_ROUTE,
    decode_embeddings,
    decode_score_matrix,
)

# ---------------------------------------------------------------- answer kinds of the scoring routes


@dataclass(frozen=True)
class Plausibility:
    """A loglikelihood result ``(loss, greedy)`` read as a plausibility: minus the loss (higher = more plausible)."""

    def read(self, text: str) -> float | None:
        loss = loglikelihood_value(text)
        if isinstance(loss, bool) or not isinstance(loss, int | float) or not math.isfinite(loss):
            return None
        return -float(loss)

    def describe(self) -> str:
        return "a loglikelihood result (loss, greedy)"


@dataclass(frozen=True)
class EmbeddingPayload:
    """A loglikelihood result carrying an embedding payload (:mod:`abductive_tasks.sherlock.embeddings`);
    kept as the string."""

    def read(self, text: str) -> object | None:
        payload = loglikelihood_value(text)
        return payload if decode_embeddings(payload) is not None else None

    def describe(self) -> str:
        return "an image and a text embedding (an embedding scorer's payload)"


@dataclass(frozen=True)
class ScoreMatrixPayload:
    """A loglikelihood result carrying a ``shape`` score matrix (:mod:`abductive_tasks.sherlock.embeddings`);
    kept as the string."""

    shape: tuple[int, int]

    def read(self, text: str) -> object | None:
        payload = loglikelihood_value(text)
        return payload if decode_score_matrix(payload, self.shape) is not None else None

    def describe(self) -> str:
        return f"a {self.shape[0]} x {self.shape[1]} score matrix (regions x inferences)"


# ---------------------------------------------------------------- documents (process_docs)


def _with_column(dataset: datasets.Dataset, name: str, values: list) -> datasets.Dataset:
    """``dataset.add_column(name, values)`` for values that follow from the dataset and the name
    (``score_route=<route>`` adds ``score_route``): its fingerprint derives from theirs, where ``datasets`` would
    pickle every value to hash them (most of the comparison documents' build time; seconds for millions of per-pair
    documents)."""
    fingerprint = hashlib.blake2b(f"{dataset._fingerprint}/{name}".encode(), digest_size=16).hexdigest()
    return dataset.add_column(name.split("=")[0], values, new_fingerprint=fingerprint)


def documents_from(items: datasets.Dataset, route: str = "", hold: bool = False) -> datasets.Dataset:
    """The documents of loaded items: each item plus what the baseline models read
    (``abductive_tasks.models.baselines``: one image rated 1-10) and, for the factored routes, ``score_route``.

    The factored retrieval's documents (one per instance id: 23,000 narrow rows for the full val retrieval) and, with
    ``hold``, the comparison's (4,850 rows at the paper's size) also hold their rows as Python dicts, so lmms-eval's
    reads of them (requests, the model's visuals, process_results) do not convert an Arrow row each time. The others
    stay plain datasets: the per-pair routes have up to millions of documents, and the factored localization's rows
    hold lists over all 2.37M instances (kept in Arrow)."""
    documents = _with_column(items, "answer_kind", ["score"] * len(items))
    documents = _with_column(documents, "choices", [[] for _ in range(len(items))])
    documents = _with_column(documents, "candidate_images", [[path] for path in items["image_path"]])
    if route:
        documents = _with_column(documents, f"score_route={route}", [route] * len(items))
    if route != EMBEDDING_ROUTE and not hold:
        return documents
    from abductive_tasks.inputs.documents import held

    return held(documents)


def retrieval_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of sherlock_retrieval_rating: every pair of every val chunk."""
    return documents_from(load_selected("retrieval", "val").items)


def retrieval_mini_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of the mini tasks: the seeded sub-grid of every val chunk."""
    return documents_from(load_selected("retrieval", "val", "mini").items)


def retrieval_embedding_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of sherlock_retrieval: one document per instance id of each val chunk (the factored route)."""
    return documents_from(load_selected("retrieval", "val", "factored").items, EMBEDDING_ROUTE)


def localization_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of sherlock_localization_pairs[_rating]: one document per (image, region, inference)."""
    return documents_from(load_selected("localization", "val").items)


def localization_matrix_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of sherlock_localization: one document per image, its regions x inferences (the factored route)."""
    return documents_from(load_selected("localization", "val", "factored").items, SCORE_MATRIX_ROUTE)


def retrieval_clue_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of sherlock_retrieval_clues: sherlock_retrieval's val chunks with the clues as texts (§B.1)."""
    return documents_from(load_selected("retrieval", "val", "factored", texts="clue").items, EMBEDDING_ROUTE)


def localization_clue_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of sherlock_localization_clues: sherlock_localization's val images with the clues as texts
    (§B.1)."""
    return documents_from(load_selected("localization", "val", "factored", texts="clue").items, SCORE_MATRIX_ROUTE)


def localization_matrix_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents_from(load_selected("localization", "test", "factored").items, SCORE_MATRIX_ROUTE)


def comparison_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents_from(load_selected("comparison", "val").items, hold=True)


def retrieval_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents_from(load_selected("retrieval", "test").items)


def retrieval_embedding_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents_from(load_selected("retrieval", "test", "factored").items, EMBEDDING_ROUTE)


def localization_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents_from(load_selected("localization", "test").items)


def comparison_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents_from(load_selected("comparison", "test").items, hold=True)


# ---------------------------------------------------------------- visuals and prompts


def doc_to_visual(doc: dict) -> list:
    """The image with the region drawn on it (§5: purple fill, green outline), decoded and drawn once per run."""
    return [draw_regions(doc["image_path"], tuple(tuple(box) for box in doc["boxes"]))]


def _ablation(mode: str):
    """The per-pair tasks' visual in input ``mode`` (§5.2, Fig. 5; :func:`abductive_tasks.inputs.images.draw_input`).
    The hook carries its mode as ``input_mode``: ``clip_scorer`` keys its image cache by it and refuses a second
    ablation of its own on top."""

    def doc_to_visual_ablated(doc: dict) -> list:
        return [draw_input(doc["image_path"], tuple(tuple(box) for box in doc["boxes"]), mode)]

    doc_to_visual_ablated.__name__ = doc_to_visual_ablated.__qualname__ = f"doc_to_visual_{mode}"
    doc_to_visual_ablated.input_mode = mode  # type: ignore[attr-defined]
    return doc_to_visual_ablated


doc_to_visual_no_region = _ablation("no_region")  # Fig. 5 "No Region"
doc_to_visual_no_context = _ablation("no_context")  # Fig. 5 "No Context"
doc_to_visual_only_context = _ablation("only_context")  # Fig. 5 "Only Context"
doc_to_visual_position_only = _ablation("position_only")  # Fig. 5 "Position only"
doc_to_visual_crop = _ablation("crop")  # Fig. 5 "Crop no Widescreen"
doc_to_visual_pad = _ablation("pad")  # Fig. 5 "Resize no Widescreen"


def doc_to_visual_regions(doc: dict) -> list:
    """A factored localization document's candidate regions, each drawn on the image (as :func:`doc_to_visual`),
    in ``region_keys`` order."""
    return [draw_regions(doc["image_path"], tuple(tuple(box) for box in region)) for region in doc["regions"]]


def doc_to_text_loglikelihood(doc: dict) -> str:
    return prompts.LOGLIKELIHOOD_CONTEXT


def doc_to_target(doc: dict) -> str:
    """The continuation whose likelihood is the score: the inference itself."""
    return doc["inference"]


def doc_to_target_inferences(doc: dict) -> str:
    """A factored localization document's continuations: its inferences, one per line (score-matrix models read
    the ``inferences`` list itself)."""
    return "\n".join(doc["inferences"])


def doc_to_text_rating(doc: dict) -> str:
    return prompts.rating_prompt(doc["inference"])


# ---------------------------------------------------------------- task specs

# What each family's computation and the submission export read from a document: records stay
# small (large runs keep one per document, and --log_samples writes each once: ``record_once``). Not "score": lmms-eval
# computes a CLT stderr over a record field of that name.
_COMMON_FIELDS = ("test_id", "sherlock_task", "split", "chunk", "file_size", "has_key", "group", "group_size")
_RETRIEVAL_FIELDS = (*_COMMON_FIELDS, "image_instance", "text_instance")
_LOCALIZATION_FIELDS = (*_COMMON_FIELDS, "box_type", "inst_id", "bbox_idx", "correct", "iou", "key_order")
_COMPARISON_FIELDS = (*_COMMON_FIELDS, "position", "annot1", "annot2")
_EMBEDDING_FIELDS = ("split", "chunk", "row", "col", "gold_row", "gold_col", "rows", "cols", "documents")


def _scored(fields: tuple[str, ...]):
    def record(doc: dict, reading: Reading) -> dict:
        kept = {field: doc[field] for field in fields} | {"plausibility": reading.value}
        if "iou" in kept and kept["iou"] != kept["iou"]:  # a gt box has no IoU: null, not NaN (orjson reads the logs)
            kept["iou"] = None
        return kept

    return record


def _retrieval_metrics(prefix: str) -> tuple[Metric, ...]:
    return (
        Metric(f"{prefix}_p_at_1", scale="percent"),  # §4.1 P@1 im->txt
        Metric(f"{prefix}_im2txt_rank", higher_is_better=False, scale="raw"),  # §4.1 mean rank of the true inference
        Metric(f"{prefix}_txt2im_rank", higher_is_better=False, scale="raw"),  # §4.1 mean rank of the true image-region
        Metric(
            f"{prefix}_per_chunk", higher_is_better=None, scale="raw"
        ),  # {chunk: {im2txt_rank, txt2im_rank, p_at_1, n}}
    )


RETRIEVAL = TaskSpec(
    name="sherlock_retrieval_pairs",
    diagnostics_prefix="retrieval",
    metrics=_retrieval_metrics("retrieval"),
    record=_scored(_RETRIEVAL_FIELDS),
    record_once=True,
    compute=lambda records: metrics.retrieval_outcome(records, "retrieval"),
)
RETRIEVAL_MINI = TaskSpec(
    name="sherlock_retrieval_mini",
    diagnostics_prefix="mini",
    metrics=_retrieval_metrics("mini"),
    record=_scored(_RETRIEVAL_FIELDS),
    record_once=True,
    compute=lambda records: metrics.retrieval_outcome(records, "mini"),
)
RETRIEVAL_EMBEDDING = TaskSpec(
    name="sherlock_retrieval_embedding",
    diagnostics_prefix="retrieval",
    metrics=_retrieval_metrics("retrieval"),
    record=lambda doc, reading: {field: doc[field] for field in _EMBEDDING_FIELDS} | {"payload": reading.value},
    record_once=True,
    compute=metrics.embedding_retrieval_outcome,
)
LOCALIZATION = TaskSpec(
    name="sherlock_localization",
    diagnostics_prefix="localization",
    metrics=(
        Metric("localization_gt_acc", scale="percent"),  # Table 2 GT-Box
        Metric("localization_auto_acc", scale="percent"),  # Table 2 Auto-Box
        Metric("localization_auto_oracle_acc", scale="percent"),  # Table 2 "(96.2)": some proposal has IoU > 0.5
    ),
    record=_scored(_LOCALIZATION_FIELDS),
    record_once=True,
    compute=metrics.localization_outcome,
)
LOCALIZATION_MATRIX = TaskSpec(
    name="sherlock_localization_matrix",
    diagnostics_prefix="localization",
    metrics=LOCALIZATION.metrics,
    record=lambda doc, reading: localization.record(doc, reading.value),
    record_once=True,
    compute=localization.outcome,
    seed_name=LOCALIZATION.name,  # the per-pair route's outcome, so its intervals too
)
COMPARISON = TaskSpec(
    name="sherlock_comparison",
    diagnostics_prefix="comparison",
    metrics=(
        Metric("comparison_acc", scale="percent", proportion=False),  # Table 2 "Human Acc" of a model: -100..100
        Metric(
            "comparison_human_acc", scale="percent", proportion=False
        ),  # Table 2 "Human": one annotator predicting the other
        Metric(
            "comparison_oracle_acc", scale="percent", proportion=False
        ),  # official "Oracle corr": the mean of both annotators
    ),
    record=_scored(_COMPARISON_FIELDS),
    record_once=True,
    compute=metrics.comparison_outcome,
)
SPECS = (RETRIEVAL, RETRIEVAL_MINI, RETRIEVAL_EMBEDDING, LOCALIZATION, LOCALIZATION_MATRIX, COMPARISON)


def _plausibility(doc: dict) -> Plausibility:
    return Plausibility()


# The scale words of RATING_PROMPT mean their ratings;
# tests/shared/answer_corpus.yaml checks this kind against realistic answers.
RATING_ANSWER = Score(1, 10, labels={"not plausible at all": 1, "almost certainly true": 10})


def _rating(doc: dict) -> Score:
    return RATING_ANSWER


process_results_retrieval_rating = RETRIEVAL.results_reader(_rating, doc_to_text_rating)
process_results_mini = RETRIEVAL_MINI.results_reader(_plausibility)
process_results_mini_rating = RETRIEVAL_MINI.results_reader(_rating, doc_to_text_rating)
process_results_embedding = RETRIEVAL_EMBEDDING.results_reader(lambda doc: EmbeddingPayload())
process_results_localization = LOCALIZATION.results_reader(_plausibility)
process_results_localization_rating = LOCALIZATION.results_reader(_rating, doc_to_text_rating)
process_results_localization_matrix = LOCALIZATION_MATRIX.results_reader(
    lambda doc: ScoreMatrixPayload(localization.matrix_shape(doc))
)
process_results_comparison = COMPARISON.results_reader(_plausibility)
process_results_comparison_rating = COMPARISON.results_reader(_rating, doc_to_text_rating)
aggregate_retrieval = RETRIEVAL.aggregate
aggregate_mini = RETRIEVAL_MINI.aggregate
aggregate_embedding = RETRIEVAL_EMBEDDING.aggregate
aggregate_localization = LOCALIZATION.aggregate
aggregate_localization_matrix = LOCALIZATION_MATRIX.aggregate
aggregate_comparison = COMPARISON.aggregate
