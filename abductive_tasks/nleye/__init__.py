"""NL-Eye (Ventura et al., ICLR 2025): ``data`` (loader) -> ``hooks`` (documents, prompts, task specs) -> ``metrics``.

The task YAML (``yaml_tasks/nleye``) names the hooks re-exported here.
"""

from abductive_tasks.nleye.hooks import (
    aggregate_pairs,
    aggregate_triplet,
    aggregate_triplet_text,
    doc_to_text_pairs_combined,
    doc_to_text_pairs_separate,
    doc_to_text_triplet_combined,
    doc_to_text_triplet_separate,
    doc_to_text_triplet_text,
    doc_to_visual_combined,
    doc_to_visual_none,
    doc_to_visual_separate,
    pairs_docs,
    process_results_pairs,
    process_results_pairs_combined,
    process_results_triplet,
    process_results_triplet_combined,
    process_results_triplet_text,
    triplet_docs,
    triplet_text_docs,
)

__all__ = [
    "aggregate_pairs",
    "aggregate_triplet",
    "aggregate_triplet_text",
    "doc_to_text_pairs_combined",
    "doc_to_text_pairs_separate",
    "doc_to_text_triplet_combined",
    "doc_to_text_triplet_separate",
    "doc_to_text_triplet_text",
    "doc_to_visual_combined",
    "doc_to_visual_none",
    "doc_to_visual_separate",
    "pairs_docs",
    "process_results_pairs",
    "process_results_pairs_combined",
    "process_results_triplet",
    "process_results_triplet_combined",
    "process_results_triplet_text",
    "triplet_docs",
    "triplet_text_docs",
]
