"""Models this package registers with lmms-eval (entry-point group ``lmms_eval.models``).

This module is the entry point's target, not the package ``__init__``: lmms-eval loads entry
points while ``lmms_eval.models`` initialises, which can happen in the middle of importing
``abductive_tasks.models.<backend>``; a package ``__init__`` importing lmms-eval would then be
only half initialised and our models would silently be missing from the registry.

Imported first itself (a test or a script reading :data:`VERSIONS`), this module imports lmms-eval's models, which
load their entry points, this one half run: they find the empty :data:`MANIFESTS` below, and this module registers its
models at its end instead (:func:`abductive_tasks.compat.model_registry` adds them again wherever that failed).
"""

import sys
from typing import Any

from abductive_tasks import compat

# What lmms-eval's models read if they load this module half run (the next import starts them when it runs first):
# nothing, and no error that would stop them loading the entry points after ours. The end of this module adds ours.
MANIFESTS: "tuple[ModelManifest, ...]" = ()

from lmms_eval.models.registry_v2 import ModelManifest  # noqa: E402

compat.install()  # our task folder and statistics, before lmms-eval builds its TaskManager


def read_answer_filter(**settings: Any) -> object:  # the task YAML's filter arguments, as YAML gives them
    """The ``read_answer`` filter any multiple-choice task names in its YAML ``filter_list``
    (:class:`abductive_tasks.scoring.answer_filter.ReadAnswer`), imported when a task builds it."""
    from abductive_tasks.scoring.answer_filter import ReadAnswer

    return ReadAnswer(**settings)


compat.register_filter("read_answer", read_answer_filter)

MANIFESTS = (
    ModelManifest(model_id="random_baseline", simple_class_path="abductive_tasks.models.baselines.RandomBaseline"),
    ModelManifest(model_id="dumb_pixel", simple_class_path="abductive_tasks.models.baselines.DumbPixel"),
    ModelManifest(model_id="clip_scorer", simple_class_path="abductive_tasks.models.clip_scorer.ClipScorer"),
    ModelManifest(
        model_id="llava_hf",  # lmms-eval's, with device arguments as typed (abductive_tasks.models.llava_hf)
        simple_class_path="abductive_tasks.models.llava_hf.LlavaHf",
        chat_class_path="abductive_tasks.models.llava_hf.LlavaHfChat",
    ),
    ModelManifest(model_id="llava_hf_scorer", simple_class_path="abductive_tasks.models.llava_scorer.LlavaHfScorer"),
    ModelManifest(model_id="dve_optimized", simple_class_path="abductive_tasks.models.dve_optimized.DveOptimized"),
    ModelManifest(model_id="nli_scorer", simple_class_path="abductive_tasks.models.nli_scorer.NliScorer"),
    # Replaces lmms-eval's own `llava` (the original LLaVA code base, which does not run on transformers 5):
    # lmms-eval registers entry-point manifests over its built-ins (overwrite=True).
    ModelManifest(model_id="llava", simple_class_path="abductive_tasks.models.llava.Llava"),
)

_lmms_models = sys.modules["lmms_eval.models"]
if hasattr(_lmms_models, "MODEL_REGISTRY_V2"):  # they finished loading while this module was half run: ours now
    for _manifest in MANIFESTS:
        _lmms_models.MODEL_REGISTRY_V2.register_manifest(_manifest, overwrite=True)  # as lmms-eval does: over its own

# Each backend's version, as a task has its ``metadata: version``: raise it when a change to the code its classes
# reach may change its replies or scores. tests/snapshots/models/<model_id>.txt records the version and the digest of
# that code (written by ``python utils/generate_task_yaml.py``); tests/test_model_snapshots.py fails when the digest
# changes under the same version. A run's identity holds it (:func:`abductive_tasks.runs.identity.backend_versions`),
# so a bump makes cached replies and leaderboard cells of the old code stale. Read from this source without importing
# it (:func:`abductive_tasks.lmms_source.own_model_versions`): a plain literal.
VERSIONS = {
    "random_baseline": "1.0",
    "dumb_pixel": "1.1",  # 1.1: the images it reads opened only when regular (results unchanged)
    "clip_scorer": "1.1",  # 1.1: the images it reads opened only when regular (results unchanged)
    "llava_hf": "1.2",  # 1.1: a task without images (max_images_per_prompt: 0) answered; lmms-eval's failed it
    # (chat: the whole run) or, in its simple form after an image request, answered it from that request's prompt and
    # images; 1.2: any request without images (another's task too), its processor copyable
    "llava_hf_scorer": "1.2",  # 1.1, 1.2: likewise
    "dve_optimized": "1.2",  # 1.1: the images it reads opened only when regular; 1.2: the metric models' code (a
    # path that does not exist refused first, the not-computed line); results unchanged by either
    "nli_scorer": "1.0",
    "llava": "1.4",  # 1.1: its conversion cache keyed by the converting code; 1.2: its converted files hashed only
    # when regular (a FIFO in their place is refused, never waited on); results unchanged by either; 1.3, 1.4: a request
    # without images answered, as llava_hf 1.1, 1.2
}
