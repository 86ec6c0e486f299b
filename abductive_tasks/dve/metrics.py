"""Generation metrics of DVE Table 3 through maintained implementations: ROUGE-L, BLEU-4, BERTScore, CLIPScore.

Nothing here is specific to DVE. ROUGE-L (``rouge-score``) and BLEU-4 (``sacrebleu``) run
offline. BERTScore (``bert-score``) and CLIPScore (transformers CLIP) need model weights,
named by a hub id or a local folder in the environment:

* ``ABDUCTIVE_BERTSCORE_MODEL`` (default ``roberta-large``, BERTScore's English default) and
  ``ABDUCTIVE_BERTSCORE_LAYERS`` (default: BERTScore's tuned layer for known models, else the last);
* ``ABDUCTIVE_CLIP_MODEL`` (default ``openai/clip-vit-base-patch32``, the ViT-B/32 CLIPScore used).

Either may be ``off``. When weights cannot be loaded the function raises
:class:`MetricUnavailable` with the reason, so the caller reports the metric as not computed.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

import numpy as np
from PIL import Image

BERTSCORE_ENV = "ABDUCTIVE_BERTSCORE_MODEL"
BERTSCORE_LAYERS_ENV = "ABDUCTIVE_BERTSCORE_LAYERS"
CLIP_ENV = "ABDUCTIVE_CLIP_MODEL"
BERTSCORE_MODEL = "roberta-large"
CLIP_MODEL = "openai/clip-vit-base-patch32"
_DISABLED = {"off", "none", "0", "false"}


class MetricUnavailable(RuntimeError):
    """A model-based metric cannot run here (missing package or weights); the message says why."""


def first_line(error: Exception) -> str:
    """The first line of an error message, for one-line "not computed" reasons."""
    text = str(error).strip()
    return text.splitlines()[0].rstrip(".") if text else type(error).__name__


def rouge_l(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """ROUGE-L F-measure per prediction, the best over its references (``rouge_score.score_multi``, no stemming)."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    return np.array([scorer.score_multi(list(refs), prediction)["rougeL"].fmeasure for prediction, refs in zip(predictions, references, strict=True)], dtype=float)


def bleu4(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> float | None:
    """Corpus BLEU-4 in [0, 1] (``sacrebleu`` defaults: 13a tokenisation, no smoothing); references may vary in number."""
    if not predictions:
        return None
    import sacrebleu

    width = max(len(refs) for refs in references)
    streams = [[refs[i] if i < len(refs) else None for refs in references] for i in range(width)]
    return sacrebleu.corpus_bleu(list(predictions), streams).score / 100


@functools.cache
def _bertscorer(model: str, layers: int | None):
    try:
        from bert_score import BERTScorer
        from bert_score.utils import model2layers
        from transformers import AutoConfig

        if layers is None:
            layers = model2layers.get(model) or AutoConfig.from_pretrained(model).num_hidden_layers
        return BERTScorer(model_type=model, num_layers=layers, lang="en")
    except Exception as error:  # ImportError, offline hub, missing folder
        raise MetricUnavailable(f"BERTScore model '{model}' unavailable: {first_line(error)}. Set {BERTSCORE_ENV} to a local model folder.") from error


def bertscore_f1(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """BERTScore F1 per prediction, the best over its references (no baseline rescaling)."""
    model = os.environ.get(BERTSCORE_ENV, "").strip() or BERTSCORE_MODEL
    if model.lower() in _DISABLED:
        raise MetricUnavailable(f"disabled by {BERTSCORE_ENV}={model}")
    layers = os.environ.get(BERTSCORE_LAYERS_ENV, "").strip()
    scorer = _bertscorer(model, int(layers) if layers else None)
    # bert-score gives an empty candidate F1 = 0 but, under transformers 5, fails to encode it: score the others only.
    scores = np.zeros(len(predictions))
    written = [i for i, prediction in enumerate(predictions) if prediction.strip()]
    if written:
        _precision, _recall, f1 = scorer.score([predictions[i] for i in written], [list(references[i]) for i in written])
        scores[written] = f1.numpy()
    return scores


@functools.cache
def _clip(model: str):
    try:
        from transformers import AutoImageProcessor, AutoTokenizer, CLIPModel

        return CLIPModel.from_pretrained(model).eval(), AutoTokenizer.from_pretrained(model), AutoImageProcessor.from_pretrained(model)
    except Exception as error:
        raise MetricUnavailable(f"CLIP model '{model}' unavailable: {first_line(error)}. Set {CLIP_ENV} to a local model folder.") from error


def clip_scores(images: Sequence[Image.Image], texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
    """CLIPScore per (image, text): max(cos(image, text), 0) (Hessel et al. 2021 with w = 1).

    Table 3's values (0.21-0.29) are on this scale, not on Hessel's 2.5x rescaled one.
    """
    import torch

    name = os.environ.get(CLIP_ENV, "").strip() or CLIP_MODEL
    if name.lower() in _DISABLED:
        raise MetricUnavailable(f"disabled by {CLIP_ENV}={name}")
    model, tokenizer, processor = _clip(name)
    values = []
    with torch.no_grad():
        for start in range(0, len(texts), batch_size):
            stop = start + batch_size
            pixels = processor(images=[image.convert("RGB") for image in images[start:stop]], return_tensors="pt")["pixel_values"]
            tokens = tokenizer(list(texts[start:stop]), padding=True, truncation=True, max_length=model.config.text_config.max_position_embeddings, return_tensors="pt")
            image_features = _features(model.get_image_features(pixel_values=pixels))
            text_features = _features(model.get_text_features(input_ids=tokens["input_ids"], attention_mask=tokens["attention_mask"]))
            cosine = torch.nn.functional.cosine_similarity(image_features, text_features, dim=-1)
            values.append(cosine.clamp(min=0).float().numpy())
    return np.concatenate(values).astype(float) if values else np.zeros(0)


def _features(output):
    """``get_*_features`` returns a tensor, or (recent transformers) an output holding the projected embeddings."""
    return output if hasattr(output, "dim") else output.pooler_output
