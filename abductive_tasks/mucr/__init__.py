"""MuCR (Li et al., arXiv 2408.08105): ``data`` (loader, candidate sets) -> ``hooks`` (documents, prompts, task specs)
-> ``metrics``.

The task YAML (``yaml_tasks/mucr``) names the hooks re-exported here: the tasks' own from ``hooks``, the Table 2
strategy variants' from ``strategies`` (their YAML generated from the table in ``variants``);
``utils/sample_generators/mucr.py`` writes the embedded sample.
"""

from __future__ import annotations

from importlib import import_module

from abductive_tasks.exports import lazy_hooks
from abductive_tasks.mucr import variants

# the hooks the task YAML names, by module, imported on first use (PEP 562)
__all__, __getattr__ = lazy_hooks(
    __name__,
    {
        "hooks": (
            "aggregate_c2e",
            "aggregate_cue",
            "aggregate_e2c",
            "aggregate_exp",
            "aggregate_exp_own",
            "c2e_docs",
            "cue_docs",
            "doc_to_text_c2e_composite",
            "doc_to_text_c2e_split",
            "doc_to_text_cue_composite",
            "doc_to_text_cue_split",
            "doc_to_text_e2c_composite",
            "doc_to_text_e2c_split",
            "doc_to_text_exp_composite",
            "doc_to_text_exp_split",
            "doc_to_visual_composite",
            "doc_to_visual_split",
            "e2c_docs",
            "exp_docs",
            "exp_own_docs",
            "exp_own_docs_split",
            "process_results_c2e",
            "process_results_c2e_split",
            "process_results_cue",
            "process_results_cue_split",
            "process_results_e2c",
            "process_results_e2c_split",
            "process_results_exp",
            "process_results_exp_own",
        ),
        "strategies": variants.hook_names(),
    },
    lambda module: import_module(f"abductive_tasks.mucr.{module}"),
)
