"""Where ``abductive-eval`` writes a run: one folder per model configuration.

lmms-eval 0.7.3 names the results folder after the model it reads off ``model_args``
(``pretrained=``, ``model=``, ...) and records that name as ``model_name``: a backend without
such an argument (our baselines, ``dummy``) gets ``""``, so every such run lands in one flat
folder and cannot be told apart. ``abductive-eval`` names it instead (through
:mod:`abductive_tasks.compat`):

* ``model_name``: lmms-eval's choice when it has one (e.g. ``llava-hf/llava-1.5-7b-hf``), else the backend;
* the folder: that name made path-safe, then ``-`` and 8 hex digits of a hash of the backend and
  every ``model_args`` entry (order-insensitive; one given its default is left out), e.g.
  ``llava-hf__llava-1.5-7b-hf-1c9a0f3e``, so
  two configurations of one model never share a folder and a rerun of one configuration reuses its own; a run of
  tasks reading another run's output (MuCR's Exp on the model's picks, CCoT, NL-Eye's image-to-text) hashes what they
  read too, by content (:func:`abductive_tasks.runs.reads.reading_inputs`), so a run on other picks or another
  describer's descriptions gets a folder of its own.

Secret-valued arguments (:func:`abductive_tasks.redaction.is_secret_name`: names ending in ``key``,
``token``, ``secret``, ``password``, ``auth`` ...) enter neither: only their names are hashed, so the folder
name neither shows a secret, not even hashed, nor changes when a key is rotated. Nor do the secrets of a URL an
argument holds (:func:`abductive_tasks.redaction.url_secrets`: its credentials, its secret-named query parameters,
``pretrained=https://h/m?token=X``): each is ``<secret>`` in the name and in the hash.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping

from abductive_tasks import lmms_source
from abductive_tasks.redaction import is_secret_name, url_secrets_replaced

# lmms-eval's GeneralConfigTracker._get_model_name order: peft and delta come with pretrained and name the tuned model.
NAME_KEYS = ("peft", "delta", "pretrained", "model", "model_version", "model_name", "model_id", "path", "engine")
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 80


USERINFO = re.compile(r"(?<=://)[^/?#\s]+@")  # a URL's credentials (``https://user:pass@host``)
SECRET = "<secret>"  # what a folder's name and hash hold of a secret


def without_url_secrets(value: str, credentials: str) -> str:
    """``value`` with each URL's credentials replaced by ``credentials`` (``""``: the name drops them), then its other
    secrets (a secret-named query parameter's value) by :data:`SECRET`."""
    return url_secrets_replaced(USERINFO.sub(credentials, value), lambda _: SECRET)


def model_name(backend: str, model_args: Mapping[str, object]) -> str:
    """The name a run is recorded under: the first model-naming argument's value (a URL without its credentials, a
    secret-named query parameter's value ``<secret>``), else the backend."""
    for key in NAME_KEYS:
        value = model_args.get(key)
        if value not in (None, "") and not is_secret_name(key):
            return without_url_secrets(str(value), "")
    return backend


def declared_defaults(backend: str) -> dict[str, object]:
    """The ``model_args`` defaults of ``backend``: those its classes' ``__init__`` declare as literals, where every
    class lmms-eval may load for it (chat and simple) declares the same; {} where the source cannot tell.

    lmms-eval 0.7.3 adds no default of its own to ``model_args``: its CLI passes ``--batch_size`` (default 1),
    ``--max_batch_size`` and ``--device`` (default None, then not passed) beside them, so the class's default is
    the true one."""
    from abductive_tasks.models.arguments import declared_arguments

    found = [declared_arguments(path) for path in lmms_source.model_class_paths(backend)]
    if not found or any(declared is None for declared in found):
        return {}
    first, *others = [declared.defaults for declared in found if declared is not None]
    return {key: value for key, value in first.items() if all(key in other and other[key] == value for other in others)}


def _is_default(value: object, default: object) -> bool:
    """Whether a ``model_args`` value (as lmms-eval parses it: ``0`` an int, ``true`` a bool) is ``default``: equal,
    and a bool only to a bool (``1`` is not ``True``)."""
    return (
        isinstance(value, bool) == isinstance(default, bool)
        and type(value) in (type(default), int, float)
        and value == default
    )


def args_digest(backend: str, model_args: Mapping[str, object], reads: Mapping[str, object] | None = None) -> str:
    """8 hex digits identifying the backend and its arguments, and ``reads`` (what the run's tasks read from other
    runs, by content) where there are any; secret values (and a URL's credentials and secret-named query parameters)
    are left out, and so is an argument given its default (:func:`declared_defaults`): giving it is the run that
    leaves it out."""
    defaults = declared_defaults(backend)
    canonical = {
        str(key): SECRET if is_secret_name(str(key)) else without_url_secrets(str(value), f"{SECRET}@")
        for key, value in model_args.items()
        if not (key in defaults and _is_default(value, defaults[key]))
    }
    payload = json.dumps({"backend": backend, "model_args": canonical} | ({"reads": reads} if reads else {}),
                         sort_keys=True)  # fmt: skip
    return hashlib.sha256(payload.encode()).hexdigest()[:8]


def model_folder(backend: str, model_args: Mapping[str, object], reads: Mapping[str, object] | None = None) -> str:
    """``<path-safe model name>-<digest>``: the folder under ``--output_path`` holding this model's runs
    (:func:`args_digest`: of its arguments and what its tasks read)."""
    name = model_name(backend, model_args).rstrip("/")
    parts = [part for part in name.split("/") if part]
    safe = UNSAFE.sub("_", "__".join(parts[-2:])).strip("._-")[:MAX_NAME] or UNSAFE.sub("_", backend)
    return f"{safe}-{args_digest(backend, model_args, reads)}"
