"""Where the weights of DVE's model-based metrics come from, offline first.

Each model-based family (BERTScore, CLIPScore, the inference-aware evaluator) is configured by
an ``ABDUCTIVE_*`` variable (:mod:`abductive_tasks.settings`) holding a hub id, a local folder or
file, or ``off``. Nothing touches the network unless the user named the model:

* variable unset: the default hub id is used only if it is already in the local Hugging Face cache
  (``local_files_only``); otherwise the family is not computed, at once, with one log line saying
  how to get the weights;
* variable set to a hub id: that model may be downloaded (and is cached by ``huggingface_hub``);
* variable set to a local folder or file: loaded from there;
* ``off``: not computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from abductive_tasks import settings
from abductive_tasks.scoring.judge import warn_once

BERTSCORE_ENV = "ABDUCTIVE_BERTSCORE_MODEL"
BERTSCORE_LAYERS_ENV = "ABDUCTIVE_BERTSCORE_LAYERS"
CLIP_ENV = "ABDUCTIVE_CLIP_MODEL"
EVALUATOR_ENV = "ABDUCTIVE_DVE_EVALUATOR"
EVALUATOR_TEXT_ENV = "ABDUCTIVE_DVE_EVALUATOR_TEXT"
EVALUATOR_RESNET_ENV = "ABDUCTIVE_DVE_EVALUATOR_RESNET"


class MetricUnavailable(RuntimeError):
    """A model-based metric cannot run here (missing package or weights); the message says why."""


@dataclass(frozen=True)
class Source:
    """A model a metric loads: ``name`` (hub id, folder or file) from ``variable``, which the user
    ``named`` (set) or left to its default."""

    variable: str
    name: str
    named: bool

    @property
    def is_local(self) -> bool:
        return Path(self.name).expanduser().exists()

    @property
    def is_path(self) -> bool:
        """Written as a path (a hub id is ``name`` or ``owner/name``), whether or not it exists."""
        return self.is_local or settings.written_as_path(self.name)

    def how_to_get(self, what: str = "weights") -> str:
        """How to get the model: a local copy, or a hub id named (the default itself too: unset never downloads)."""
        return (
            f"Set {self.variable} to a local folder or file, or to a hub id to allow the download "
            f"({self.variable}={self.name} downloads this one); {self.variable}=off skips it."
        )


def source(variable: str) -> Source | None:
    """The configured model of ``variable``; None when it is ``off``."""
    name = settings.model_source(variable)
    return None if name is None else Source(variable, name, settings.is_set(variable))


def first_line(error: Exception) -> str:
    """The first line of an error message, for one-line "not computed" reasons."""
    text = str(error).strip()
    return text.splitlines()[0].rstrip(".") if text else type(error).__name__


def resolve(model: Source, may_download: bool | None = None, what: str = "weights") -> str:
    """What ``from_pretrained`` may load without unasked network use: a local path as is, a hub id
    the user named (or ``may_download``) as is, and otherwise the default id's snapshot folder in
    the local Hugging Face cache; raises :class:`MetricUnavailable` when it is not there."""
    if model.is_local:
        return str(Path(model.name).expanduser())
    if model.is_path:
        raise MetricUnavailable(f"no folder or file at '{model.name}' ({what}). {model.how_to_get(what)}")
    if model.named if may_download is None else may_download:
        return model.name
    from huggingface_hub import snapshot_download

    try:
        return snapshot_download(repo_id=model.name, local_files_only=True)
    except Exception:  # LocalEntryNotFoundError, or a name that is no valid repo id
        raise MetricUnavailable(
            f"'{model.name}' ({what}) is not in the local Hugging Face cache. {model.how_to_get(what)}"
        ) from None


def report_not_computed(family: str, reason: str, task: str = "dve_gen") -> None:
    """The one log line per task, family and reason saying why the family is not computed (``task``: the tasks it is
    said of, ``dve_gen`` for generation and its dev split, ``dve_human`` for the human updates)."""
    warn_once(f"dve:{task}:{family}:{reason}", f"{task}: {family} not computed: {reason}")
