"""Each of our metrics' scale (how its raw value reads as a percentage), readable without importing a task.

Written by utils/generate_task_yaml.py from the task specs (:class:`abductive_tasks.scoring.taskspec.Metric`
declares the scale); do not edit. Importing the specs means importing every benchmark's hooks (datasets,
pandas: seconds), so ``show`` and the other readers of a finished run read this copy;
tests/test_task_yaml.py fails while it disagrees with the specs.
"""

from __future__ import annotations

_BY_SCALE: dict[str, tuple[str, ...]] = {
    "fraction": (
        "c2e_acc_by_label",
        "c2e_acc_by_style",
        "c2e_accuracy",
        "consistency_acc",
        "consistency_by_category",
        "consistency_by_time_direction",
        "consistency_by_time_duration",
        "cue_acc_by_label",
        "cue_acc_by_style",
        "cue_accuracy",
        "described_rate",
        "dve_accuracy",
        "dve_bertscore_all",
        "dve_bertscore_strengthener",
        "dve_bertscore_weakener",
        "dve_bleu4_all",
        "dve_bleu4_strengthener",
        "dve_bleu4_weakener",
        "dve_by_update_type",
        "dve_clipscore_all",
        "dve_clipscore_strengthener",
        "dve_clipscore_weakener",
        "dve_opt_refined_share",
        "dve_rouge_l_all",
        "dve_rouge_l_strengthener",
        "dve_rouge_l_weakener",
        "dve_success_all",
        "dve_success_strengthener",
        "dve_success_weakener",
        "e2c_acc_by_label",
        "e2c_acc_by_style",
        "e2c_accuracy",
        "equal_rank_rate",
        "exp_unlabelled_rate",
        "explanation_valid_rate",
        "faithful_by_category",
        "faithful_by_time_direction",
        "faithful_by_time_duration",
        "order1_acc",
        "order2_acc",
        "order_faithful_acc",
        "scene_graph_rate",
    ),
    "percent": (
        "comparison_acc",
        "comparison_human_acc",
        "comparison_oracle_acc",
        "localization_auto_acc",
        "localization_auto_oracle_acc",
        "localization_gt_acc",
        "mini_p_at_1",
        "retrieval_p_at_1",
    ),
    "raw": (
        "correct_rank_mean",
        "dve_evaluator_strengthener",
        "dve_evaluator_weakener",
        "dve_opt_after_strengthener",
        "dve_opt_after_weakener",
        "dve_opt_before_strengthener",
        "dve_opt_before_weakener",
        "dve_opt_rounds_mean",
        "exp_offline_s1",
        "exp_offline_s2",
        "exp_offline_s3",
        "exp_offline_score",
        "exp_s1",
        "exp_s2",
        "exp_s3",
        "exp_score",
        "gap_when_correct",
        "gap_when_wrong",
        "mini_im2txt_rank",
        "mini_per_chunk",
        "mini_txt2im_rank",
        "rank_diff",
        "retrieval_im2txt_rank",
        "retrieval_per_chunk",
        "retrieval_txt2im_rank",
        "wrong_rank_mean",
    ),
}
SCALES: dict[str, str] = {name: scale for scale, names in _BY_SCALE.items() for name in names}


def declared_scale(name: str, undeclared: str = "raw") -> str:
    """The scale a metric of ours declares ("fraction", "percent" or "raw"); ``undeclared`` for a metric not ours."""
    return SCALES.get(name, undeclared)
