"""Full-size Sherlock localization through one request per image (task ``sherlock_localization``).

The official localization file lists about 2.36M (image, candidate region, inference) instances
over 6,600 images: every ground-truth box and every detector proposal against each inference
written about the image. One lmms-eval request per instance costs about 22 minutes of lmms-eval
overhead before any model time (``yaml_tasks/sherlock/README.md``). Every pair an image is scored on
lies inside that image, as the official ``CLIPDatasetLocalizationLeaderboard`` exploits: the task
builds one document per image with its distinct candidate regions and distinct inferences
(:func:`abductive_tasks.sherlock.data.load`, view ``factored``), the model answers the whole
regions x inferences plausibility matrix in one payload (:mod:`abductive_tasks.sherlock.embeddings`),
and the aggregation reads each instance's score off its image's matrix, in the per-pair route's
document order, and runs the per-pair route's computation on those columns
(:func:`abductive_tasks.sherlock.metrics.localization_columns_outcome`; missing scores:
:func:`abductive_tasks.sherlock.metrics.as_submitted`, the file's lowest score minus 1). The export
writes the same float32 values.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd
from loguru import logger

from abductive_tasks.scoring.taskspec import Outcome
from abductive_tasks.sherlock import metrics
from abductive_tasks.sherlock.embeddings import decode_score_matrix
from abductive_tasks.sherlock.factored_retrieval import test_id_order

# Per instance of a document (lists aligned with ``test_ids``); the answer fields are the per-pair items' own.
INSTANCE_FIELDS = ("test_ids", "rows", "cols", "positions", *metrics.LOCALIZATION_COLUMNS)
RECORD_FIELDS = ("sherlock_task", "split", "chunk", "file_size", "has_key", "shape", *INSTANCE_FIELDS)


def matrix_shape(doc: dict) -> tuple[int, int]:
    """The regions x inferences shape of the matrix a document asks for."""
    return len(doc["region_keys"]), len(doc["inferences"])


def record(doc: dict, payload: str | None) -> dict:
    """What a document keeps: its instances (test ids, matrix cells, answer fields) and the payload (None if the
    result was not a score matrix of the document's shape)."""
    fields = {name: doc[name] for name in RECORD_FIELDS if name != "shape"}
    fields["iou"] = [None if iou != iou else iou for iou in fields["iou"]]  # gt boxes: null, not NaN (see export)
    return fields | {"shape": list(matrix_shape(doc)), "payload": payload}


def _flat(records: Sequence[dict], name: str) -> list:
    return list(itertools.chain.from_iterable(record[name] for record in records))


def raw_scores(records: Sequence[dict]) -> np.ndarray:
    """Each instance's score (float64, NaN where its document holds no score matrix), records' instances in turn."""
    parts = []
    for entry in records:
        matrix = decode_score_matrix(entry["payload"], tuple(entry["shape"])) if entry["payload"] else None
        if matrix is None:
            parts.append(np.full(len(entry["test_ids"]), np.nan))
        else:
            parts.append(matrix[np.asarray(entry["rows"], dtype=np.int64), np.asarray(entry["cols"], dtype=np.int64)])
    return np.concatenate(parts).astype(np.float64) if parts else np.zeros(0)


def outcome(records: Sequence[dict]) -> Outcome:
    """§4.2 from the documents' score matrices: the columns the per-pair route computes on (labelled instances of
    complete images, in the instances file's order, scores as submitted), then its computation."""
    raw = raw_scores(records)
    order = np.argsort(np.array(_flat(records, "positions"), dtype=np.int64), kind="stable")
    scores = metrics.as_submitted(raw[order])  # one leaderboard file: every instance of the run
    labelled = np.repeat([bool(entry["has_key"]) for entry in records], [len(r["test_ids"]) for r in records])[order]
    unscored = sum(entry["payload"] is None for entry in records)
    if unscored:
        logger.warning(
            f"sherlock_localization: {unscored} results are not score matrices: it needs a model that scores an "
            "image's regions x inferences in one answer (clip_scorer, the baselines); else use "
            "sherlock_localization_pairs"
        )
    if not labelled.any():
        logger.info(f"Sherlock {records[0]['split']} split: no answer key, metrics not computed; {metrics.EXPORT_HINT}")
    columns = {
        name: np.array(_flat(records, name), dtype=dtype)[order][labelled]
        for name, dtype in metrics.LOCALIZATION_COLUMNS.items()
    }
    units, groups = pd.factorize(columns["group"], sort=False)
    first = np.unique(units, return_index=True)[1]
    complete = np.bincount(units, minlength=len(groups)) == columns["group_size"][first]
    columns |= {"score": scores[labelled], "unit": units}
    if not complete.all():  # an image's instances are one document, but a group is the answer key's image
        keep = complete[units]
        columns = {name: values[keep] for name, values in columns.items()}
    result = metrics.localization_columns_outcome(columns, int((~complete).sum()))
    result.counts |= {"instances": len(raw), "instances_unscored": int(np.isnan(raw).sum())}
    return result


def submission(records: Sequence[dict]) -> tuple[np.ndarray, int]:
    """The ``localization`` leaderboard scores (float32, sorted test_id order; missing scores as the metrics read
    them) and the number of distinct test ids logged (the caller compares it with the file's size)."""
    test_ids = _flat(records, "test_ids")
    scores = metrics.as_submitted(raw_scores(records))
    order, repeated = test_id_order(test_ids)
    return scores[order], len(test_ids) - len(repeated)
