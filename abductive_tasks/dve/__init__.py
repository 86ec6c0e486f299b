"""Defeasible Visual Entailment (Zhang et al., AAAI 2025): ``data`` (loader) -> ``hooks`` (documents,
prompts, task specs) -> ``metrics`` (kernels and computations; the inference-aware evaluator in
``evaluator``, where weights come from in ``weights``). ``training`` trains an evaluator;
``utils/sample_generators/dve.py`` writes the embedded sample.

The task YAML (``yaml_tasks/dve``) names the hooks re-exported here.
"""

from __future__ import annotations

from importlib import import_module

from abductive_tasks.exports import lazy_hooks

# the hooks the task YAML names, by module, imported on first use (PEP 562)
__all__, __getattr__ = lazy_hooks(
    __name__,
    {
        "hooks": (
            "aggregate_cls",
            "aggregate_gen",
            "aggregate_human",
            "cls_docs",
            "cls_docs_dev",
            "doc_to_text_cls",
            "doc_to_text_gen",
            "doc_to_text_human",
            "doc_to_visual",
            "gen_docs",
            "gen_docs_dev",
            "human_docs",
            "process_results_cls",
            "process_results_gen",
            "process_results_human",
        ),
    },
    lambda module: import_module(f"abductive_tasks.dve.{module}"),
)
