"""DVE metrics: the Table 3 generation kernels through maintained implementations, and the
computations of both tasks from their per-document records.

Kernels: ROUGE-L (``rouge-score``) and BLEU-4 (``sacrebleu``) run offline; BERTScore
(``bert-score``) and CLIPScore (transformers CLIP) need weights, found as
:mod:`abductive_tasks.dve.weights` describes (offline first).

Records (see :mod:`abductive_tasks.dve.hooks`): ``dve_cls``: ``pair_id``, ``update_type``,
``prediction``, ``correct`` and the loader's counts (``data.LOAD_COUNTS``); ``dve_gen``: ``pair_id``, ``goal``,
``prediction`` (None for a failed request), ``references``, ``image_path``, ``premise``,
``hypothesis``, the loader's counts, ``goals_skipped``; ``dve_human``: ``pair_id``, ``update_type``, ``update``,
``image_path``, ``premise``, ``hypothesis``, the loader's counts. The resampling unit of every interval
is the premise-hypothesis pair (a pair's updates and goals are not independent).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
from PIL import Image

from abductive_tasks import settings
from abductive_tasks.dve.data import LOAD_COUNTS, UPDATE_TYPES
from abductive_tasks.dve.weights import (
    BERTSCORE_ENV,
    BERTSCORE_LAYERS_ENV,
    CLIP_ENV,
    EVALUATOR_ENV,
    MetricUnavailable,
    Source,
    first_line,
    report_not_computed,
    resolve,
    source,
)
from abductive_tasks.inputs.images import load_image
from abductive_tasks.scoring.stats import Estimate, Units
from abductive_tasks.scoring.taskspec import JUDGE_EXTRACTED, PARSED, Outcome

CLS_CHANCE = 0.5  # a random label is right half the time
PARTS = ("all", *UPDATE_TYPES)  # Table 3 reports each goal; "all" pools both
BLEU_STATS = 10  # sacrebleu's per-sentence statistics: hypothesis length, reference length, 4 matches, 4 totals


# ---------------------------------------------------------------- kernels


def rouge_l(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """ROUGE-L F-measure per prediction, the best over its references (``rouge_score.score_multi``, no stemming)."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    return np.array(
        [
            scorer.score_multi(list(refs), prediction)["rougeL"].fmeasure
            for prediction, refs in zip(predictions, references, strict=True)
        ],
        dtype=float,
    )


def bleu_statistics(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """sacrebleu's per-sentence BLEU-4 sufficient statistics, shape (N, 10); references may vary in number.

    These are the rows ``sacrebleu.corpus_bleu`` sums (its ``_extract_corpus_statistics``, also
    behind sacrebleu's own paired bootstrap), so :func:`bleu_score` of their sum is corpus BLEU.
    """
    from sacrebleu.metrics import BLEU

    if not predictions:
        return np.zeros((0, BLEU_STATS))
    width = max(len(refs) for refs in references)
    streams = [[refs[i] if i < len(refs) else None for refs in references] for i in range(width)]
    bleu = BLEU()  # corpus_bleu's defaults: 13a tokenisation, exp smoothing, no effective order
    # sacrebleu types the streams without the None of a missing reference, which it takes
    return np.array(bleu._extract_corpus_statistics(list(predictions), streams), dtype=float).reshape(-1, BLEU_STATS)  # type: ignore[arg-type,type-var]


def bleu_score(totals: np.ndarray) -> np.ndarray:
    """Corpus BLEU-4 in [0, 1] from summed statistics (..., 10), by sacrebleu's own ``compute_bleu``
    row by row (exp smoothing, as ``corpus_bleu``), so the value is sacrebleu's to the last bit."""
    from sacrebleu.metrics import BLEU

    rows = np.asarray(totals, dtype=float).reshape(-1, BLEU_STATS).tolist()
    scores = [
        BLEU.compute_bleu(row[2:6], row[6:10], int(row[0]), int(row[1]), smooth_method="exp").score / 100
        for row in rows
    ]
    return np.array(scores, dtype=float).reshape(np.shape(totals)[:-1])


@functools.cache
def _bertscorer(model: Source, layers: int | None):
    path = resolve(model, what="BERTScore model")  # first: importing bert-score takes seconds
    try:
        from bert_score import BERTScorer
        from bert_score.utils import model2layers
    except ImportError:
        raise MetricUnavailable(
            "the bert-score package is not installed (pip install 'abductive-tasks[dve]')"
        ) from None
    try:
        if layers is None:
            from transformers import AutoConfig

            layers = model2layers.get(model.name) or AutoConfig.from_pretrained(path).num_hidden_layers
        return BERTScorer(model_type=path, num_layers=layers, lang="en")
    except Exception as error:  # a missing folder, weights that do not load, a download that fails
        raise MetricUnavailable(
            f"BERTScore model '{model.name}' unavailable: {first_line(error)}. {model.how_to_get()}"
        ) from error


def bertscore_f1(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """BERTScore F1 per prediction, the best over its references (no baseline rescaling);
    an empty prediction scores 0."""
    model = source(BERTSCORE_ENV)
    if model is None:
        raise MetricUnavailable(f"disabled by {BERTSCORE_ENV}=off")
    layers = settings.raw(BERTSCORE_LAYERS_ENV)
    scorer = _bertscorer(model, int(layers) if layers else None)
    # bert-score gives an empty candidate F1 = 0 but, under transformers 5, fails to encode it: score the others only.
    scores = np.zeros(len(predictions))
    written = [i for i, prediction in enumerate(predictions) if prediction.strip()]
    if written:
        _precision, _recall, f1 = scorer.score(
            [predictions[i] for i in written], [list(references[i]) for i in written]
        )
        scores[written] = f1.numpy()
    return scores


@functools.cache
def _clip(model: Source):
    path = resolve(model, what="CLIP model")
    try:
        from transformers import AutoImageProcessor, AutoTokenizer, CLIPModel

        return (
            CLIPModel.from_pretrained(path).eval(),
            AutoTokenizer.from_pretrained(path),
            AutoImageProcessor.from_pretrained(path),
        )
    except Exception as error:
        raise MetricUnavailable(
            f"CLIP model '{model.name}' unavailable: {first_line(error)}. {model.how_to_get()}"
        ) from error


def clip_scores(images: Sequence[Image.Image], texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
    """CLIPScore per (image, text): max(cos(image, text), 0) (Hessel et al. 2021 with w = 1).

    Table 3's values (0.21-0.29) are on this scale, not on Hessel's 2.5x rescaled one.
    """
    configured = source(CLIP_ENV)
    if configured is None:
        raise MetricUnavailable(f"disabled by {CLIP_ENV}=off")
    model, tokenizer, processor = _clip(configured)
    import torch

    values = []
    with torch.no_grad():
        for start in range(0, len(texts), batch_size):
            stop = start + batch_size
            pixels = processor(images=[image.convert("RGB") for image in images[start:stop]], return_tensors="pt")[
                "pixel_values"
            ]
            tokens = tokenizer(
                list(texts[start:stop]),
                padding=True,
                truncation=True,
                max_length=model.config.text_config.max_position_embeddings,
                return_tensors="pt",
            )
            image_features = _features(model.get_image_features(pixel_values=pixels))
            text_features = _features(
                model.get_text_features(input_ids=tokens["input_ids"], attention_mask=tokens["attention_mask"])
            )
            cosine = torch.nn.functional.cosine_similarity(image_features, text_features, dim=-1)
            values.append(cosine.clamp(min=0).float().numpy())
    return np.concatenate(values).astype(float) if values else np.zeros(0)


def _features(output):
    """``get_*_features`` returns a tensor, or (recent transformers) an output holding the projected embeddings."""
    return output if hasattr(output, "dim") else output.pooler_output


def evaluator_scores(images: Sequence[Image.Image], hypotheses: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """Strength scores (Eq. 6) of (image, hypothesis, text) triples by the configured evaluator."""
    if source(EVALUATOR_ENV) is None:  # before importing torchvision
        raise MetricUnavailable(f"disabled by {EVALUATOR_ENV}=off")
    try:
        from abductive_tasks.dve import evaluator  # torch and torchvision: imported only when scoring
    except ImportError as error:  # torchvision is in the dve extra
        raise MetricUnavailable(
            f"the evaluator needs the {error.name} package (pip install 'abductive-tasks[dve]')"
        ) from None
    return evaluator.configured_scorer().predict(images, hypotheses, texts)[0]


def success(goals: np.ndarray, update: np.ndarray, caption: np.ndarray) -> np.ndarray:
    """The per-update check the authors' evaluator code reports as its accuracy on human updates: above the
    caption's score for a strengthener, below it for a weakener; ties fail. The paper prints no such rate (Table 3
    gives the mean scores); ``dve_success_*`` is ours."""
    return np.where(goals == "strengthener", update > caption, update < caption)


# ---------------------------------------------------------------- per-unit statistics


def per_unit(units: Units, stats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit ids (sorted) and the column sums of ``stats`` (rows x k) per unit."""
    ids, codes = np.unique(np.asarray(units, dtype=str), return_inverse=True)
    sums = np.zeros((len(ids), stats.shape[1]))
    np.add.at(sums, codes, stats)
    return ids, sums


def bleu_estimate(pairs: np.ndarray, statistics: np.ndarray) -> Estimate:
    """Corpus BLEU-4 over the documents given, resampled by pair (per-pair summed statistics)."""
    return Estimate(*per_unit(pairs, statistics), statistic=bleu_score)


# ---------------------------------------------------------------- dve_cls


def cls_outcome(records: list[dict]) -> Outcome:
    """Classification Task accuracy (Table 4) and its per-update-type breakdown, resampled by pair."""
    pairs = np.array([r["pair_id"] for r in records], dtype=str)
    types = np.array([r["update_type"] for r in records], dtype=str)
    correct = np.array([r["correct"] for r in records], dtype=bool)
    return Outcome(
        estimates={"dve_accuracy": Estimate.grouped_mean(pairs, correct)},
        breakdowns={
            "dve_by_update_type": {
                str(label): Estimate.grouped_mean(pairs[types == label], correct[types == label])
                for label in np.unique(types)
            }
        },
        counts={"pairs": len(set(pairs)), **{name: _first(records, name) for name in LOAD_COUNTS}},
        chance={"dve_accuracy": CLS_CHANCE},
    )


def _first(records: list[dict], field: str) -> int:
    """A per-split figure every record carries (0 without records)."""
    return int(records[0][field]) if records else 0


# ---------------------------------------------------------------- dve_gen


def _computed(
    family: str, compute: Callable[[], np.ndarray | tuple], task: str = "dve_gen"
) -> np.ndarray | tuple | None:
    """The family's per-document values, or None when its model is unavailable (one log line, naming ``task``, says
    why)."""
    try:
        return compute()
    except MetricUnavailable as error:
        report_not_computed(family, str(error), task)
        return None


def gen_outcome(records: list[dict]) -> Outcome:
    """Table 3's metrics per goal (and, ours, over both goals), the evaluator's strength means (Table 3 "Ours") and
    our success rate, resampled by pair.

    A document without an answer (failed request) has no update: it scores 0 on ROUGE-L, BERTScore
    and CLIPScore, adds no n-gram to BLEU-4 (its references still count in the brevity penalty),
    fails the success check, and is left out of the evaluator's strength means, which have no
    worst value. A family whose weights are unavailable is reported as not computed: its metrics
    are None and ``<family>_computed`` is false in ``dve_gen_counts``.
    """
    pairs = np.array([r["pair_id"] for r in records], dtype=str)
    goals = np.array([r["goal"] for r in records], dtype=str)
    answered = np.array([r["answer_status"] in (PARSED, JUDGE_EXTRACTED) for r in records], dtype=bool)
    predictions = [r["prediction"] if r["answer_status"] in (PARSED, JUDGE_EXTRACTED) else "" for r in records]
    references = [r["references"] for r in records]
    written = [i for i in range(len(records)) if answered[i]]

    rouge = rouge_l(predictions, references)
    bleu = bleu_statistics(predictions, references)
    bert = _computed("bertscore", lambda: bertscore_f1(predictions, references))
    clip = _computed("clipscore", lambda: _clip_values(records, predictions, written))
    strength = _computed("evaluator", lambda: _strength(records, predictions, written))
    passed = None if strength is None else answered & success(goals, *strength)

    outcome = Outcome(
        counts={
            "pairs": len(set(pairs)),
            **{name: _first(records, name) for name in LOAD_COUNTS},
            "goals_skipped": _first(records, "goals_skipped"),
            **{
                f"{family}_computed": values is not None
                for family, values in (("bertscore", bert), ("clipscore", clip), ("evaluator", strength))
            },
        }
    )
    for part in PARTS:
        chosen = np.ones(len(records), dtype=bool) if part == "all" else goals == part
        outcome.estimates[f"dve_rouge_l_{part}"] = Estimate.grouped_mean(pairs[chosen], rouge[chosen])
        outcome.estimates[f"dve_bleu4_{part}"] = bleu_estimate(pairs[chosen], bleu[chosen])
        for family, values in (("bertscore", bert), ("clipscore", clip)):
            _put(
                outcome,
                f"dve_{family}_{part}",
                None if values is None else Estimate.grouped_mean(pairs[chosen], values[chosen]),
            )
        _put(
            outcome,
            f"dve_success_{part}",
            None if passed is None else Estimate.grouped_mean(pairs[chosen], passed[chosen]),
        )
        if part != "all":  # Table 3 "Ours": opposite directions per goal, so no pooled mean
            scored = chosen & answered
            _put(
                outcome,
                f"dve_evaluator_{part}",
                None if strength is None else Estimate.grouped_mean(pairs[scored], strength[0][scored]),
            )
    _add_optimization(outcome, records, pairs, goals)
    return outcome


def human_outcome(records: list[dict]) -> Outcome:
    """``dve_human``: the evaluator's mean strength score of the human updates per type (the paper's 5.0998 and
    -4.5412) and their success rate against the premise caption, resampled by pair. The reply is not read."""
    pairs = np.array([r["pair_id"] for r in records], dtype=str)
    types = np.array([r["update_type"] for r in records], dtype=str)
    strength = _computed("evaluator", lambda: _human_strength(records), "dve_human")
    passed = None if strength is None else success(types, *strength)
    outcome = Outcome(
        counts={
            "updates": len(records),
            "pairs": len(set(pairs)),
            **{name: _first(records, name) for name in LOAD_COUNTS},
            "evaluator_computed": strength is not None,
        }
    )
    for part in PARTS:
        chosen = np.ones(len(records), dtype=bool) if part == "all" else types == part
        if part != "all":
            _put(
                outcome,
                f"dve_human_evaluator_{part}",
                None if strength is None else Estimate.grouped_mean(pairs[chosen], strength[0][chosen]),
            )
        _put(
            outcome,
            f"dve_human_success_{part}",
            None if passed is None else Estimate.grouped_mean(pairs[chosen], passed[chosen]),
        )
    return outcome


OPTIMIZATION_METRICS = (
    "dve_opt_rounds_mean",
    "dve_opt_refined_share",
    *(f"dve_opt_{when}_{goal}" for when in ("before", "after") for goal in UPDATE_TYPES),
)


def _add_optimization(outcome: Outcome, records: list[dict], pairs: np.ndarray, goals: np.ndarray) -> None:
    """Reward-driven update optimization figures from the traces the ``dve_optimized`` model attached.

    ``dve_opt_rounds_mean``: generations per item (1 = the initial update was kept); ``dve_opt_refined_share``:
    items refined at least once; ``dve_opt_before_<goal>`` / ``dve_opt_after_<goal>``: the evaluator's mean
    score of the initial / final update, over the items whose initial / final update was scored (an item
    whose loop ended in a failed request has no final score). ``dve_gen_counts`` gains ``optimized``
    (items with a trace), ``rounds_<n>`` (items per number of generations), ``refined``,
    ``high_quality_after`` (final updates meeting the eta rule) and ``loop_request_failed`` (items
    whose loop ended in a failed request, initial or refinement). All None without traces.
    """
    traces = [record.get("optimization") for record in records]
    if not any(traces):
        outcome.values |= dict.fromkeys(OPTIMIZATION_METRICS)
        return
    traced = np.array([trace is not None for trace in traces], dtype=bool)
    rounds = np.array([trace["rounds"] if trace else 0 for trace in traces], dtype=float)
    refined = np.array([bool(trace and trace["refined"]) for trace in traces], dtype=bool)
    outcome.estimates["dve_opt_rounds_mean"] = Estimate.grouped_mean(pairs[traced], rounds[traced])
    outcome.estimates["dve_opt_refined_share"] = Estimate.grouped_mean(pairs[traced], refined[traced])
    for when in ("before", "after"):
        scores = np.array(
            [np.nan if not trace or trace[f"score_{when}"] is None else trace[f"score_{when}"] for trace in traces]
        )
        for goal in UPDATE_TYPES:
            chosen = (goals == goal) & ~np.isnan(scores)
            outcome.estimates[f"dve_opt_{when}_{goal}"] = Estimate.grouped_mean(pairs[chosen], scores[chosen])
    histogram = np.bincount(rounds[traced].astype(int))
    outcome.counts |= {
        "optimized": int(traced.sum()),
        **{f"rounds_{n}": int(histogram[n]) for n in range(1, len(histogram)) if histogram[n]},
        "refined": int(refined.sum()),
        "high_quality_after": sum(1 for trace in traces if trace and trace["high_quality"]),
        "loop_request_failed": sum(1 for trace in traces if trace and trace["request_failed"]),
    }


def _clip_values(records: list[dict], predictions: list[str], written: list[int]) -> np.ndarray:
    """CLIPScore of the answered documents' updates with their images; 0 for the other documents."""
    values = np.zeros(len(records))
    values[written] = clip_scores(
        [load_image(records[i]["image_path"]) for i in written], [predictions[i] for i in written]
    )
    return values


def _strength(records: list[dict], predictions: list[str], written: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Evaluator scores of the answered documents' updates and of their premise captions in the
    update's place (the success baseline), in one pass; 0 for the other documents."""
    chosen = [records[i] for i in written]
    images = [load_image(r["image_path"]) for r in chosen]
    hypotheses = [r["hypothesis"] for r in chosen]
    scores = evaluator_scores(
        [*images, *images],
        [*hypotheses, *hypotheses],
        [*(predictions[i] for i in written), *(r["premise"] for r in chosen)],
    )
    update, caption = np.zeros(len(records)), np.zeros(len(records))
    update[written], caption[written] = scores[: len(written)], scores[len(written) :]
    return update, caption


def _human_strength(records: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Evaluator scores of every record's human update, and of its pair's premise caption in the update's place
    (scored once per pair), in one pass."""
    first: dict[object, int] = {}
    for index, record in enumerate(records):
        first.setdefault(record["pair_id"], index)
    chosen = [*records, *(records[index] for index in first.values())]
    scores = evaluator_scores(
        [load_image(r["image_path"]) for r in chosen],
        [r["hypothesis"] for r in chosen],
        [*(r["update"] for r in records), *(records[index]["premise"] for index in first.values())],
    )
    caption_of = dict(zip(first, scores[len(records) :], strict=True))
    return scores[: len(records)], np.array([caption_of[r["pair_id"]] for r in records], dtype=float)


def _put(outcome: Outcome, name: str, estimate: Estimate | None) -> None:
    """An estimate, or None as the value of a metric whose family is not computed."""
    if estimate is None:
        outcome.values[name] = None
    else:
        outcome.estimates[name] = estimate
