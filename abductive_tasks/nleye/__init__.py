"""NL-Eye (Ventura et al., ICLR 2025): ``data`` (loader) -> ``hooks`` (documents, prompts, task specs) -> ``metrics``.

The task YAML (``yaml_tasks/nleye``) names the hooks re-exported here.
"""

from __future__ import annotations

from importlib import import_module

from abductive_tasks.exports import lazy_hooks

# the hooks the task YAML names, by module, imported on first use (PEP 562)
__all__, __getattr__ = lazy_hooks(
    __name__,
    {
        "hooks": (
            "aggregate_describe",
            "aggregate_pairs",
            "aggregate_triplet",
            "aggregate_triplet_described",
            "aggregate_triplet_naturalness",
            "aggregate_triplet_text",
            "describe_docs",
            "doc_to_text_describe",
            "doc_to_text_pairs_combined",
            "doc_to_text_pairs_separate",
            "doc_to_text_triplet_combined",
            "doc_to_text_triplet_cot",
            "doc_to_text_triplet_reverse",
            "doc_to_text_triplet_role",
            "doc_to_text_triplet_separate",
            "doc_to_text_triplet_text",
            "doc_to_visual_combined",
            "doc_to_visual_describe",
            "doc_to_visual_none",
            "doc_to_visual_separate",
            "naturalness_docs",
            "pairs_docs",
            "process_results_describe",
            "process_results_pairs",
            "process_results_pairs_combined",
            "process_results_triplet",
            "process_results_triplet_combined",
            "process_results_triplet_described",
            "process_results_triplet_naturalness",
            "process_results_triplet_text",
            "triplet_described_docs",
            "triplet_docs",
            "triplet_text_docs",
        ),
    },
    lambda module: import_module(f"abductive_tasks.nleye.{module}"),
)
