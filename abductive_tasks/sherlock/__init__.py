"""Sherlock (Hessel et al., ECCV 2022): ``data`` (loader; ``grid`` factors the full retrieval) -> ``hooks``
(documents, prompts, task specs) -> ``metrics``; ``export`` writes the leaderboard submission.

The task YAML (``yaml_tasks/sherlock``) names the hooks re-exported here. They are imported on
first use (PEP 562), so that the modules model backends import (``embeddings``, the payload
codec ``clip_scorer`` and the baselines use) do not load the task hooks.
"""

from __future__ import annotations

from importlib import import_module

from abductive_tasks.exports import lazy_hooks

# the hooks the task YAML names, by module, imported on first use (PEP 562)
__all__, __getattr__ = lazy_hooks(
    __name__,
    {
        "hooks": (
            "aggregate_comparison",
            "aggregate_embedding",
            "aggregate_localization",
            "aggregate_localization_matrix",
            "aggregate_mini",
            "aggregate_retrieval",
            "comparison_docs",
            "comparison_test_docs",
            "doc_to_target",
            "doc_to_target_inferences",
            "doc_to_text_loglikelihood",
            "doc_to_text_rating",
            "doc_to_visual",
            "doc_to_visual_crop",
            "doc_to_visual_no_context",
            "doc_to_visual_no_region",
            "doc_to_visual_only_context",
            "doc_to_visual_pad",
            "doc_to_visual_position_only",
            "doc_to_visual_regions",
            "localization_clue_docs",
            "localization_docs",
            "localization_matrix_docs",
            "localization_matrix_test_docs",
            "localization_test_docs",
            "process_results_comparison",
            "process_results_comparison_rating",
            "process_results_embedding",
            "process_results_localization",
            "process_results_localization_matrix",
            "process_results_localization_rating",
            "process_results_mini",
            "process_results_mini_rating",
            "process_results_retrieval_rating",
            "retrieval_clue_docs",
            "retrieval_docs",
            "retrieval_embedding_docs",
            "retrieval_embedding_test_docs",
            "retrieval_mini_docs",
            "retrieval_test_docs",
        ),
    },
    lambda module: import_module(f"abductive_tasks.sherlock.{module}"),
)
