"""lmms-eval hooks of the Sherlock tasks: documents, the region-drawn image, prompts, results and aggregations.

Routes (paper §4: a model maps (image, region, inference) to a real score):

* loglikelihood: the image with the region drawn on it, a fixed instruction as context and the
  inference as continuation. lmms-eval 0.7.3 backends return a LOSS-like first element (mean
  negative log-likelihood, lower = more plausible) and stringify the pair before process_results,
  so the score is ``-value`` of ``ast.literal_eval(result)``;
* generate (``*_rating`` tasks): a 1-10 plausibility rating, read with ``parse_score``.

Unparsable results are counted and scored below every other score (``metrics.as_submitted``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import datasets
import numpy as np
from loguru import logger

from abductive_tasks.images import draw_regions
from abductive_tasks.parsing import loglikelihood_value, parse_score
from abductive_tasks.sherlock import metrics
from abductive_tasks.sherlock.docs import documents

# The paper's models are CLIP-style scorers without a prompt (§5); for language models the context
# names the highlighted region as the paper renders it (Fig. 5b). Our choice: the paper is silent.
LOGLIKELIHOOD_CONTEXT = "Look at the region of the image highlighted with a purple fill and a green outline. What can you infer from it about the scene?"
RATING_PROMPT = (
    "Look at the region of the image highlighted with a purple fill and a green outline. "
    'Consider this inference about the scene: "{inference}"\n'
    "How plausible is it that this inference can be drawn from the highlighted region and the rest of the image? "
    "Rate the plausibility with a score between 1 and 10, where 1 means not plausible at all and 10 means almost certainly true. "
    'Answer in the form "Score: N".'
)

# ---------------------------------------------------------------- process_docs (the placeholder is replaced)


def retrieval_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents("retrieval", "val")


def retrieval_mini_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents("retrieval", "val", mini=True)


def localization_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents("localization", "val")


def comparison_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents("comparison", "val")


def retrieval_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents("retrieval", "test")


def localization_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents("localization", "test")


def comparison_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    return documents("comparison", "test")


# ---------------------------------------------------------------- visuals and prompts


def doc_to_visual(doc: dict) -> list:
    """The image with the region drawn on it (§5: purple fill, green outline), decoded and drawn once per run."""
    return [draw_regions(doc["image_path"], tuple(tuple(box) for box in doc["boxes"]))]


def doc_to_text_loglikelihood(doc: dict) -> str:
    return LOGLIKELIHOOD_CONTEXT


def doc_to_target(doc: dict) -> str:
    """The continuation whose likelihood is the score: the inference itself."""
    return doc["inference"]


def doc_to_text_rating(doc: dict) -> str:
    return RATING_PROMPT.format(inference=doc["inference"])


# ---------------------------------------------------------------- process_results

METRICS = {
    "retrieval": (
        "retrieval_p_at_1",
        "retrieval_im2txt_rank",
        "retrieval_txt2im_rank",
        "retrieval_per_chunk",
        "retrieval_chunks_scored",
        "retrieval_chunks_incomplete",
        "retrieval_documents",
        "retrieval_unparsable",
    ),
    "retrieval_mini": (
        "mini_p_at_1",
        "mini_im2txt_rank",
        "mini_txt2im_rank",
        "mini_per_chunk",
        "mini_chunks_scored",
        "mini_chunks_incomplete",
        "mini_documents",
        "mini_unparsable",
    ),
    "localization": (
        "localization_gt_acc",
        "localization_auto_acc",
        "localization_auto_oracle_acc",
        "localization_gt_images",
        "localization_auto_images",
        "localization_images_incomplete",
        "localization_documents",
        "localization_unparsable",
    ),
    "comparison": (
        "comparison_acc",
        "comparison_human_acc",
        "comparison_oracle_acc",
        "comparison_inputs_scored",
        "comparison_inputs_incomplete",
        "comparison_documents",
        "comparison_unparsable",
    ),
}
# What each metric family's aggregation and the submission export read from a document: records
# stay small (large runs keep one per document, and --log_samples writes one per metric).
_COMMON_FIELDS = ("test_id", "sherlock_task", "split", "chunk", "file_size", "has_key", "group", "group_size")
_RECORD_FIELDS = {
    "retrieval": (*_COMMON_FIELDS, "image_instance", "text_instance"),
    "retrieval_mini": (*_COMMON_FIELDS, "image_instance", "text_instance"),
    "localization": (*_COMMON_FIELDS, "box_type", "inst_id", "bbox_idx", "correct", "iou", "key_order"),
    "comparison": (*_COMMON_FIELDS, "position", "annot1", "annot2"),
}


def loglikelihood_score(result: object) -> float | None:
    """The plausibility in a loglikelihood result: minus its loss-like first element; ``None`` when unreadable."""
    loss = loglikelihood_value(result)
    if isinstance(loss, bool) or not isinstance(loss, int | float) or not math.isfinite(loss):
        return None
    return -float(loss)


def _records(doc: dict, score: float | None) -> dict:
    # not "score": lmms-eval would compute a CLT stderr over a record field of that name
    record = {field: doc[field] for field in _RECORD_FIELDS[doc["metric_set"]]} | {"plausibility": score}
    return {metric: record for metric in METRICS[doc["metric_set"]]}


def process_results_loglikelihood(doc: dict, results: Sequence[object]) -> dict:
    return _records(doc, loglikelihood_score(results[0]))


def process_results_rating(doc: dict, results: Sequence[str]) -> dict:
    return _records(doc, parse_score(results[0]))


# ---------------------------------------------------------------- aggregations

Records = list[dict]


def _groups(records: Records) -> tuple[dict[str, list[tuple[dict, float]]], int]:
    """Complete groups of labelled records (with their submitted scores) and the number of incomplete ones."""
    labelled = [r for r in records if r["has_key"]]
    scores = metrics.as_submitted(np.array([np.nan if r["plausibility"] is None else r["plausibility"] for r in labelled], dtype=np.float64))
    groups: dict[str, list[tuple[dict, float]]] = {}
    for record, score in zip(labelled, scores, strict=True):
        groups.setdefault(record["group"], []).append((record, float(score)))
    complete = {group: members for group, members in groups.items() if len(members) == members[0][0]["group_size"]}
    return complete, len(groups) - len(complete)


class _Memo:
    """Remembers the last computation per metric family: lmms-eval calls every aggregation of a task on lists
    holding the same record objects (process_results returns one record for all metrics)."""

    def __init__(self, compute: Callable[[Records], dict]) -> None:
        self.compute = compute
        self.key: tuple = ()
        self.value: dict = {}

    def __call__(self, records: Records) -> dict:
        key = (len(records), records[0] if records else None, records[-1] if records else None)
        if len(self.key) != 3 or key[0] != self.key[0] or key[1] is not self.key[1] or key[2] is not self.key[2]:
            self.key, self.value = key, self.compute(records)  # the key holds the records, so their ids cannot be reused
        return self.value


def _counts(records: Records, incomplete: int) -> dict:
    return {"documents": len(records), "unparsable": sum(r["plausibility"] is None for r in records), "incomplete": incomplete}


def _retrieval(records: Records) -> dict:
    """Per complete chunk: the n x n grid (image instances x text instances, true pairs on the diagonal), §4.1."""
    groups, incomplete = _groups(records)
    per_chunk = {}
    for members in groups.values():
        rows, row_of = np.unique([r["image_instance"] for r, _ in members], return_inverse=True)
        _, col_of = np.unique([r["text_instance"] for r, _ in members], return_inverse=True)
        sim = np.zeros((len(rows), len(rows)))
        sim[row_of, col_of] = [score for _, score in members]
        per_chunk[int(members[0][0]["chunk"])] = metrics.retrieval_metrics(sim)
    per_chunk = dict(sorted(per_chunk.items()))
    mean = {name: float(np.mean([c[name] for c in per_chunk.values()])) if per_chunk else None for name in ("im2txt_rank", "txt2im_rank", "p_at_1")}
    return mean | {"per_chunk": per_chunk, "scored": len(per_chunk)} | _counts(records, incomplete)


def _localization(records: Records) -> dict:
    """GT boxes: one-to-one assignment per image; auto boxes: best proposal per inference, per image (§4.2)."""
    groups, incomplete = _groups(records)
    gt, auto, oracle = [], [], []
    for members in groups.values():
        if members[0][0]["box_type"] == "gt":
            box_of = {r["inst_id"]: r["bbox_idx"] for r, _ in members if r["correct"]}
            n = len(box_of)
            sim = np.zeros((n, n))
            for record, score in members:
                sim[record["bbox_idx"], box_of[record["inst_id"]]] = score
            gt.append(metrics.localization_gt_accuracy(sim))
            continue
        per_inference: dict[str, list[tuple[int, float, float]]] = {}
        for record, score in members:
            per_inference.setdefault(record["inst_id"], []).append((record["key_order"], score, record["iou"]))
        proposals = [np.array(sorted(rows)) for rows in per_inference.values()]  # answer-key order decides ties
        auto.append(np.mean([metrics.localization_auto_correct(p[:, 1], p[:, 2]) for p in proposals]))
        oracle.append(np.mean([metrics.localization_auto_oracle(p[:, 2]) for p in proposals]))

    def percent(values: list) -> float | None:
        return float(100 * np.mean(values)) if values else None

    return {"gt_acc": percent(gt), "auto_acc": percent(auto), "auto_oracle_acc": percent(oracle), "gt_images": len(gt), "auto_images": len(auto)} | _counts(
        records, incomplete
    )


def _comparison(records: Records) -> dict:
    """Pairwise accuracy with the official tie-break, each annotator in turn as the label; mean over inputs x 100 (§4.3)."""
    groups, incomplete = _groups(records)
    per_input = []
    for members in groups.values():
        ordered = sorted(members, key=lambda member: member[0]["position"])
        annot1 = np.array([r["annot1"] for r, _ in ordered])
        annot2 = np.array([r["annot2"] for r, _ in ordered])
        per_input.append(metrics.comparison_input_scores(np.array([score for _, score in ordered]), annot1, annot2))

    def mean(name: str) -> float | None:
        return float(100 * np.mean([scores[name] for scores in per_input])) if per_input else None

    return {"acc": mean("model"), "human_acc": mean("human"), "oracle_acc": mean("oracle"), "scored": len(per_input)} | _counts(records, incomplete)


_FAMILIES = {"retrieval": _Memo(_retrieval), "retrieval_mini": _Memo(_retrieval), "localization": _Memo(_localization), "comparison": _Memo(_comparison)}


def _aggregation(family: str, name: str, field: str) -> Callable[[Records], object]:
    def aggregate(records: Records) -> object:
        value = _FAMILIES[family](records)[field]
        if value is None and records and field not in ("documents", "unparsable") and not any(r["has_key"] for r in records):
            logger.info(f"{name}: not computed on the {records[0]['split']} split (no answer key); export the scores with utils/export_sherlock_submission.py")
        return value

    aggregate.__name__ = name
    aggregate.__doc__ = f"Sherlock {family} metric '{field}' (see abductive_tasks.sherlock.hooks._{family.split('_')[0]})."
    return aggregate


_FIELDS = {
    "retrieval": ("p_at_1", "im2txt_rank", "txt2im_rank", "per_chunk", "scored", "incomplete", "documents", "unparsable"),
    "localization": ("gt_acc", "auto_acc", "auto_oracle_acc", "gt_images", "auto_images", "incomplete", "documents", "unparsable"),
    "comparison": ("acc", "human_acc", "oracle_acc", "scored", "incomplete", "documents", "unparsable"),
}
_FIELDS["retrieval_mini"] = _FIELDS["retrieval"]
AGGREGATIONS = {name: _aggregation(family, name, field) for family, names in METRICS.items() for name, field in zip(names, _FIELDS[family], strict=True)}
globals().update(AGGREGATIONS)  # each metric's aggregation is importable as abductive_tasks.sherlock.hooks.<metric name>

__all__ = [
    "retrieval_docs",
    "retrieval_mini_docs",
    "localization_docs",
    "comparison_docs",
    "retrieval_test_docs",
    "localization_test_docs",
    "comparison_test_docs",
    "doc_to_visual",
    "doc_to_text_loglikelihood",
    "doc_to_text_rating",
    "doc_to_target",
    "process_results_loglikelihood",
    "process_results_rating",
    *AGGREGATIONS,
]
