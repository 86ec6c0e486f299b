"""What route 1 hands vLLM's engine, recorded from inside the evaluation process (tests only).

With this folder on ``PYTHONPATH`` and ``VLLM_PROBE_RECORD`` naming a file, Python imports this module at
start-up; once ``vllm.entrypoints.llm`` is imported (by lmms-eval's ``vllm`` backend), ``vllm.LLM`` is
wrapped so that every engine built and every ``LLM.chat`` call appends one JSON line to that file:

- ``{"event": "init", "kwargs": {...}}``: the keyword arguments lmms-eval passed to ``vllm.LLM``;
- ``{"event": "chat", "images": [...], "prompt_token_ids": [[...]], "texts": [...]}``: per conversation, the
  number of image parts lmms-eval sent, the prompt token ids the engine actually ran (images expanded into
  their placeholder tokens by vLLM's own processor) and the engine's reply;
- ``{"event": "chat_error", "images": [...], "error": "..."}``: a call the engine refused, in vLLM's words.

Nothing is changed in what lmms-eval or vLLM do. Without ``VLLM_PROBE_RECORD`` this module does nothing.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import os
import sys

RECORD = os.environ.get("VLLM_PROBE_RECORD")
TARGET = "vllm.entrypoints.llm"


def _write(entry: dict) -> None:
    with open(RECORD, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry, default=repr) + "\n")


def _images(conversation: list[dict]) -> int:
    """Image parts in one OpenAI-style conversation (what lmms-eval's vllm backend sends)."""
    return sum(
        1
        for message in conversation
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") in {"image_url", "image", "image_pil"}
    )


def _wrap(llm_class: type) -> None:
    init, chat = llm_class.__init__, llm_class.chat

    def recording_init(self, *args, **kwargs):
        _write({"event": "init", "kwargs": kwargs})
        init(self, *args, **kwargs)

    def recording_chat(self, messages, *args, **kwargs):
        conversations = messages if messages and isinstance(messages[0], list) else [messages]
        images = [_images(conversation) for conversation in conversations]
        try:
            outputs = chat(self, messages, *args, **kwargs)
        except Exception as error:
            _write({"event": "chat_error", "images": images, "error": f"{type(error).__name__}: {error}"})
            raise
        _write(
            {
                "event": "chat",
                "images": images,
                "prompt_token_ids": [list(output.prompt_token_ids) for output in outputs],
                "texts": [output.outputs[0].text for output in outputs],
            }
        )
        return outputs

    llm_class.__init__, llm_class.chat = recording_init, recording_chat


class _WrapOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: lets the normal import of ``vllm.entrypoints.llm`` run, then wraps its ``LLM``."""

    def find_spec(self, name, path, target=None):
        if name != TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            _wrap(module.LLM)

        spec.loader.exec_module = exec_module
        return spec


if RECORD:
    sys.meta_path.insert(0, _WrapOnImport())
