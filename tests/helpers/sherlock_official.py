"""The official Sherlock scoring algorithms (allenai/sherlock ``leaderboard_eval/score_{retrieval,localization,
comparison}.py``), re-implemented from their published description for the tests, not from our
kernels and not copied: the ``.npy`` is read through the sorted test ids (the export's order), retrieval ranks
the diagonal of the n x n grid with ``scipy.stats.rankdata``, GT boxes are assigned by ``lapjv`` on minus the
scores, auto boxes take the first ``argmax`` with IoU > 0.5, comparison adds ``np.random.seed(1);
np.random.random(10) / 1e9`` by position and counts the differing pairs the prediction orders like the label.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

import lapjv
import numpy as np
from scipy.stats import rankdata

from abductive_tasks.inputs.loading import SAMPLE_ROOT

ROOT = SAMPLE_ROOT / "sherlock"


def answer_keys(task: str, split: str = "val") -> dict[str, dict]:
    """``{file name: answer key}`` of ``split`` in the sample's official layout."""
    if task == "retrieval":
        paths = sorted((ROOT / f"{split}_retrieval").glob(f"{split}_retrieval_*_answer_key.json"))
        prefix = len(f"{split}_")
        return {path.name[prefix : -len("_answer_key.json")]: json.loads(path.read_text()) for path in paths}
    return {task: json.loads((ROOT / f"{split}_{task}" / f"{split}_{task}_answer_key.json").read_text())}


def instance_ids(task: str, key: dict) -> list[str]:
    return sorted(key["test_id_map"] if task == "comparison" else key)


# ---------------------------------------------------------------- the official algorithms, from their description


def official_retrieval(predictions: dict[str, float], key: dict) -> dict[str, float]:
    instances = sorted({pair[0] for pair in key.values()})
    index = {instance: position for position, instance in enumerate(instances)}
    sim = np.zeros((len(instances), len(instances)))
    for test_id, (image, text) in key.items():
        sim[index[image], index[text]] = predictions[test_id]
    im2txt = np.diagonal(rankdata(-sim, axis=1))
    txt2im = np.diagonal(rankdata(-sim, axis=0))
    return {"im2txt_rank": im2txt.mean(), "txt2im_rank": txt2im.mean(), "p_at_1": 100 * np.mean(im2txt == 1.0)}


def official_localization(predictions: dict[str, float], key: dict) -> dict[str, float]:
    gt, auto = defaultdict(list), defaultdict(list)
    for test_id, answer in key.items():
        (gt if answer["type"] == "gt" else auto)[answer["image"]].append((test_id, answer))
    auto_accs = []
    for answers in auto.values():
        per_inference = defaultdict(list)
        for test_id, answer in answers:
            per_inference[answer["inst_id"]].append((predictions[test_id], answer["IoU"]))
        auto_accs.append(np.mean([p[int(np.argmax([s for s, _ in p]))][1] > 0.5 for p in per_inference.values()]))
    gt_accs = []
    for answers in gt.values():
        n = math.isqrt(len(answers))
        box_of = {answer["inst_id"]: answer["bbox_idx"] for _, answer in answers if answer["correct"]}
        sim = np.zeros((n, n))
        for test_id, answer in answers:
            sim[answer["bbox_idx"], box_of[answer["inst_id"]]] = predictions[test_id]
        gt_accs.append(np.mean(np.arange(n) == lapjv.lapjv(-sim)[0]))
    return {"localization_gt_acc": 100 * np.mean(gt_accs), "localization_auto_acc": 100 * np.mean(auto_accs)}


def official_pairwise(prediction: list[float], label: np.ndarray) -> float:
    np.random.seed(1)
    tie_broken = np.asarray(prediction) + np.random.random(size=10)[: len(prediction)] / 1e9
    correct = total = 0
    for first in range(len(label)):
        for second in range(first + 1, len(label)):
            if label[first] != label[second]:
                total += 1
                correct += (label[first] < label[second]) == (tie_broken[first] < tie_broken[second])
    return (correct / total - 0.5) * 2 if total else 0.0


def official_comparison(predictions: dict[str, float], key: dict) -> dict[str, float]:
    decoded = {}
    for test_id, score in predictions.items():
        instance = key["test_id_map"][test_id]
        decoded[(instance["Input_iid"], instance["candidate"])] = score
    per_input = []
    for annotation in key["annotations"]:
        annot1 = np.array([float(c["annot1"]) for c in annotation["candidates"]])
        annot2 = np.array([float(c["annot2"]) for c in annotation["candidates"]])
        model = [float(decoded[(annotation["Input_iid"], c["source_iid"])]) for c in annotation["candidates"]]
        per_input.append(np.mean([official_pairwise(model, label) for label in (annot2, annot1)]))
    return {"comparison_acc": 100 * np.mean(per_input)}


def official_scores(task: str, arrays: dict[str, np.ndarray], split: str = "val") -> dict[str, dict[str, float]]:
    """``{file: official values}`` of the exported ``arrays`` of ``task`` against the sample's answer keys."""
    scorer = {"retrieval": official_retrieval, "localization": official_localization}.get(task, official_comparison)
    return {
        name: scorer(dict(zip(instance_ids(task, key), arrays[name], strict=True)), key)
        for name, key in answer_keys(task, split).items()
    }
