"""Sherlock documents: one per leaderboard ``test_id`` (an image, a region, an inference), every task and split.

Each document carries what the hooks, the aggregations and the submission export need: the
answer-key fields (neutral values on the test split, ``has_key`` false), the id of the group a
metric is computed over (``group``: retrieval chunk, localization image and box type,
comparison input) and that group's size, so that groups cut apart by ``--limit`` are counted,
not scored.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import datasets
import numpy as np

from abductive_tasks.data import DataError
from abductive_tasks.sherlock.data import Instance, comparison_key, localization_key, read_instance_list, retrieval_key, sherlock_root, task_files, validate_instances

# sherlock_retrieval_mini (val only): per chunk, a seeded choice of MINI_ROWS image-region rows and
# the same instances' inferences as columns, i.e. a MINI_ROWS x MINI_ROWS sub-grid with the true pairs
# on the diagonal; 23 chunks x 30^2 = 20,700 pairs, 690 queries (size justified in the task README).
MINI_ROWS = 30
MINI_SEED = 0

# Answer fields per task, with the neutral values test documents (no answer key) carry. Only the
# task's own fields become columns: fewer columns make lmms-eval's per-document access cheaper.
_NO_KEY = {
    "retrieval": {"image_instance": "", "text_instance": ""},
    "localization": {"box_type": "", "inst_id": "", "bbox_idx": -1, "correct": False, "iou": math.nan, "key_order": -1},
    "comparison": {"input_iid": "", "candidate": "", "position": -1, "annot1": math.nan, "annot2": math.nan},
}


def _base(instance: Instance, task: str, split: str, metric_set: str, chunk: int, file_size: int) -> dict:
    return {
        "test_id": instance.test_id,
        "sherlock_task": task,
        "metric_set": metric_set,  # which metric family process_results reports (retrieval, retrieval_mini, localization, comparison)
        "split": split,
        "chunk": chunk,
        "file_size": file_size,  # instances in the leaderboard file: the export checks a submission is complete
        "image_path": instance.image_path,
        "boxes": [list(box) for box in instance.boxes],
        "region_key": instance.region_key,
        "inference": instance.inference,
        # What the baseline models read (abductive_tasks.models.baselines): one image rated 1-10.
        "answer_kind": "score",
        "choices": [],
        "candidate_images": [instance.image_path],
    }


def _retrieval_answers(key: dict[str, tuple[str, str]], test_ids: list[str], chunk: int, rows: set[str] | None) -> list[dict | None]:
    n = len(rows) if rows is not None else math.isqrt(len(key))
    answers = []
    for test_id in test_ids:
        image, text = key[test_id]
        keep = rows is None or (image in rows and text in rows)
        answers.append({"image_instance": image, "text_instance": text, "group": str(chunk), "group_size": n * n} if keep else None)
    return answers


def mini_rows(key: dict[str, tuple[str, str]], chunk: int, size: int = MINI_ROWS) -> set[str]:
    """The instance ids of chunk ``chunk``'s mini sub-grid: ``size`` of them, chosen with seed ``MINI_SEED + chunk``."""
    ids = sorted({image for image, _ in key.values()})
    chosen = np.random.default_rng(MINI_SEED + chunk).choice(len(ids), size=min(size, len(ids)), replace=False)
    return {ids[i] for i in chosen}


def _localization_answers(path: Path, test_ids: list[str]) -> list[dict]:
    key = localization_key(path, test_ids)
    sizes: dict[str, int] = {}
    for answer in key.values():
        group = f"{answer['image']}|{answer['type']}"
        sizes[group] = sizes.get(group, 0) + 1
    answers = []
    for test_id in test_ids:
        answer = key[test_id]
        group = f"{answer['image']}|{answer['type']}"
        answers.append(
            {
                "box_type": answer["type"],
                "inst_id": answer["inst_id"],
                "bbox_idx": answer["bbox_idx"],
                "correct": answer["correct"],
                "iou": answer["iou"],
                "key_order": answer["order"],
                "group": group,
                "group_size": sizes[group],
            }
        )
    return answers


def _comparison_answers(path: Path, test_ids: list[str]) -> list[dict]:
    key = comparison_key(path, test_ids)
    return [
        {
            "input_iid": (answer := key[test_id])["input_iid"],
            "candidate": answer["candidate"],
            "position": answer["position"],
            "annot1": answer["annot1"],
            "annot2": answer["annot2"],
            "group": answer["input_iid"],
            "group_size": answer["group_size"],
        }
        for test_id in test_ids
    ]


@functools.cache
def documents_from(root: Path, task: str, split: str, mini: bool = False, mini_size: int = MINI_ROWS) -> datasets.Dataset:
    """The documents of ``task`` on ``split`` under ``root`` (``mini``: the retrieval sub-grid, val only); built once per run."""
    if mini and (task != "retrieval" or split != "val"):
        raise DataError("the mini sub-grid exists for val retrieval only (test answer keys are private)")
    metric_set = "retrieval_mini" if mini else task
    columns: dict[str, list] = {}  # built column by column: large files make millions of documents
    for file in task_files(root, task, split):
        raw, test_ids = read_instance_list(file.instances)
        if file.answer_key is None:
            answers: list[dict | None] = [{"group": "", "group_size": 0} for _ in test_ids]
        elif task == "retrieval":
            key = retrieval_key(file.answer_key, test_ids)
            answers = _retrieval_answers(key, test_ids, file.chunk, mini_rows(key, file.chunk, mini_size) if mini else None)
        elif task == "localization":
            answers = _localization_answers(file.answer_key, test_ids)
        else:
            answers = _comparison_answers(file.answer_key, test_ids)
        kept = [index for index, answer in enumerate(answers) if answer is not None]  # mini: validate only the sub-grid
        for instance, index in zip(validate_instances(raw, file.instances, root, task, kept), kept, strict=True):
            base = _base(instance, task, split, metric_set, file.chunk, len(test_ids))
            for field, value in {**base, **_NO_KEY[task], "has_key": file.answer_key is not None, **answers[index]}.items():
                columns.setdefault(field, []).append(value)
    return datasets.Dataset.from_dict(columns)


def documents(task: str, split: str, mini: bool = False) -> datasets.Dataset:
    """The documents of the data source ``ABDUCTIVE_DATA`` selects."""
    return documents_from(sherlock_root(), task, split, mini)
