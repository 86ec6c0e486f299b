"""MuCR (Li et al., "Multimodal Causal Reasoning Benchmark"): loader, documents, prompts, hooks, metrics.

Layout (official, Hugging Face dataset ``Pinkygin/MuCR``): parquet files anywhere under the
root (``data/test-*.parquet`` on the hub), one cause-effect pair per row, in either record schema
the project README documents:

* v1: ``id, caption_0, caption_1, link_id, cue, false_cue, style, label, causal_reason, image_0, image_1``
  (``causal_reason``: three annotations; ``link_id``: the other pairs of the causal group);
* v2: ``id, style, cause, effect, cue, false_cue, label, causal_reason, image_0, image_1``
  (``causal_reason``: one annotation string).

Image cells are Hugging Face image features (``{"bytes", "path"}``: the bytes are written once to
a content-addressed cache file) or paths relative to the root. Each pair becomes one document per
task. Tasks: C2E and E2C (image level), Cue (phrase level), Exp (sentence level); see the paper's
"Evaluation Metrics" section and ``yaml_tasks/mucr/README.md``.
"""

from __future__ import annotations

import ast
import functools
import json
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import datasets
import numpy as np
import pyarrow.parquet as pq

from abductive_tasks import judge
from abductive_tasks.aggregation import ItemAggregations
from abductive_tasks.data import DataError, benchmark_root, resolve_columns, resolve_inside
from abductive_tasks.images import check_image, compose_labelled, load_image, materialise_image
from abductive_tasks.metrics import ItemOutcomes, consistency_outcomes, weighted_part_means
from abductive_tasks.parsing import parse_choice, parse_judge_score, parse_option_text

BENCHMARK = "mucr"
HUB_REPO = "Pinkygin/MuCR"

# Canonical field -> accepted columns (v1 name first, then v2). link_id exists in v1 only.
COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id",),
    "link_id": ("link_id",),
    "cue": ("cue",),
    "false_cue": ("false_cue",),
    "style": ("style",),
    "label": ("label",),
    "causal_reason": ("causal_reason",),
    "image_0": ("image_0",),
    "image_1": ("image_1",),
}
REQUIRED = set(COLUMNS) - {"link_id"}
LABELS = {"human": "human", "person": "human", "animal": "animal", "plant": "plant", "character": "character", "mixture": "mixture"}  # Figure 5 (b)
STYLES = {"photograph": "photograph", "photographic": "photograph", "photo": "photograph", "comic": "comic"}  # Figure 5 (c)
N_CANDIDATES = 4  # "four potential images" / "four potential cue phrases" (Evaluation Metrics)
EXP_WEIGHTS = (0.25, 0.25, 0.5)  # lambda_1..3 of Eq. (9) (Experimental Setup)
PARTS = ("cause image", "effect image", "causal link")  # order of Eq. (6)-(8)


# ---------------------------------------------------------------- loading


def selected_items() -> list[dict]:
    """The pairs of the data source ``ABDUCTIVE_DATA`` selects."""
    return load_items(benchmark_root(BENCHMARK, HUB_REPO))


def _literal_list(text: str) -> list:
    """A list written as text: JSON, a Python literal (parsed safely), or bare ``[a, b, c]`` tokens."""
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, list):
            return value
    return [token.strip().strip("'\"") for token in text.strip()[1:-1].split(",")]


def _string_list(value: object, split_commas: bool) -> list[str]:
    """A list cell as non-empty strings; a text cell is a written list, a comma list or one string."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            value = _literal_list(text)
        else:
            value = text.split(",") if split_commas else [text]
    if not isinstance(value, list | tuple):
        value = [value]
    return [str(entry).strip() for entry in value if entry is not None and str(entry).strip()]


def _image(value: object, root: Path, where: str) -> str:
    """The path of an image cell: embedded bytes are written to the image cache, paths resolved inside ``root``."""
    if isinstance(value, dict):
        if value.get("bytes"):
            return check_image(Path(materialise_image(value["bytes"])), where)
        value = value.get("path")
    if isinstance(value, str) and value.strip():
        return check_image(resolve_inside(root, value.strip(), where), where)
    raise DataError(f"{where}: no image (expected an image cell with bytes, or a path relative to {root})")


def _item(record: dict, columns: dict[str, str], root: Path, where: str) -> dict:
    def fail(field: str, problem: str) -> DataError:
        return DataError(f"{where}, field '{columns.get(field, field)}': {problem}")

    item_id = str(record[columns["id"]] if record[columns["id"]] is not None else "").strip()
    if not item_id:
        raise fail("id", "empty id")
    cue = str(record[columns["cue"]] or "").strip()
    if not cue:
        raise fail("cue", "empty cue phrase")
    false_cues = _string_list(record[columns["false_cue"]], split_commas=True)
    if len(false_cues) != N_CANDIDATES - 1 or len({c.lower() for c in [cue, *false_cues]}) != N_CANDIDATES:
        raise fail("false_cue", f"expected {N_CANDIDATES - 1} distinct false cues differing from the cue '{cue}', found {false_cues}")
    label = LABELS.get(str(record[columns["label"]] or "").strip().lower())
    if label is None:
        raise fail("label", f"unknown category '{record[columns['label']]}', expected one of {sorted(LABELS)}")
    style = STYLES.get(str(record[columns["style"]] or "").strip().lower())
    if style is None:
        raise fail("style", f"unknown style '{record[columns['style']]}', expected one of {sorted(STYLES)}")
    references = _string_list(record[columns["causal_reason"]], split_commas=False)
    if not references:
        raise fail("causal_reason", "no explanation annotation")
    return {
        "item_id": item_id,
        "link_ids": _string_list(record[columns["link_id"]], split_commas=True) if "link_id" in columns else [],
        "cue": cue,
        "false_cues": false_cues,
        "label": label,
        "style": style,
        "references": references,
        "cause_image": _image(record[columns["image_0"]], root, f"{where}, field '{columns['image_0']}'"),
        "effect_image": _image(record[columns["image_1"]], root, f"{where}, field '{columns['image_1']}'"),
    }


@functools.cache
def load_items(root: Path) -> list[dict]:
    """Read and validate every parquet file under ``root`` (once per run); add each pair's candidate set."""
    files = sorted(root.rglob("*.parquet"))
    if not files:
        raise DataError(f"{root}: no parquet files (expected the {HUB_REPO} layout, e.g. data/test-00000-of-00001.parquet)")
    items, seen = [], {}
    for path in files:
        parquet = pq.ParquetFile(path)
        columns = resolve_columns(parquet.schema_arrow.names, COLUMNS, REQUIRED, path)
        row = 0
        for batch in parquet.iter_batches(batch_size=64, columns=list(columns.values())):
            for record in batch.to_pylist():
                row += 1
                item = _item(record, columns, root, f"{path}, row {row}")
                if item["item_id"] in seen:
                    raise DataError(f"{path}, row {row}, field 'id': duplicate id '{item['item_id']}' (first at {seen[item['item_id']]})")
                seen[item["item_id"]] = f"{path}, row {row}"
                items.append(item)
    if len(items) < N_CANDIDATES:
        raise DataError(f"{root}: {len(items)} pairs; the {N_CANDIDATES}-way candidate sets need at least {N_CANDIDATES}")
    for item, (distractors, rule) in zip(items, candidate_sets(items), strict=True):
        item["distractors"], item["candidate_rule"] = distractors, rule
    return items


# ---------------------------------------------------------------- candidate sets


def causal_groups(items: Sequence[dict]) -> dict[str, int]:
    """Group number per item: connected components of the ``link_id`` references between loaded pairs.

    ``link_id`` names the other pairs of an item's causal group (the paper's groups of four
    captions); unresolvable ids are ignored, and an item nobody links stays alone.
    """
    parent = {item["item_id"]: item["item_id"] for item in items}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for item in items:
        for other in item["link_ids"]:
            if other in parent:
                parent[root(other)] = root(item["item_id"])
    roots = sorted({root(node) for node in parent})
    return {node: roots.index(root(node)) for node in parent}


def _links_resolve(item: dict, known: set[str]) -> bool:
    links = item["link_ids"]
    return len(links) == N_CANDIDATES - 1 and len(set(links)) == len(links) and item["item_id"] not in links and set(links) <= known


def candidate_sets(items: Sequence[dict]) -> list[tuple[list[str], str]]:
    """The three distractor pairs of every item and the rule that chose them (the paper does not publish its sets).

    ``link_id``: the item's ``link_id`` when it names exactly three other loaded pairs.
    ``seeded``: otherwise three pairs drawn by a generator seeded with the item id, taking first
    the item's causal group (:func:`causal_groups`), then pairs with the same category label,
    then any other pair; each tier is shuffled.
    """
    known = {item["item_id"] for item in items}
    group = causal_groups(items)
    label = {item["item_id"]: item["label"] for item in items}
    chosen = []
    for item in items:
        item_id = item["item_id"]
        if _links_resolve(item, known):
            chosen.append((list(item["link_ids"]), "link_id"))
            continue
        rng = random.Random(f"mucr-distractors:{item_id}")
        others = sorted(known - {item_id})
        same_group = [other for other in others if group[other] == group[item_id]]
        same_label = [other for other in others if group[other] != group[item_id] and label[other] == label[item_id]]
        rest = [other for other in others if group[other] != group[item_id] and label[other] != label[item_id]]
        picked = []
        for tier in (same_group, same_label, rest):
            rng.shuffle(tier)
            picked += tier
        chosen.append((picked[: N_CANDIDATES - 1], "seeded"))
    return chosen


# ---------------------------------------------------------------- documents (process_docs)
# lmms-eval hands process_docs a one-row placeholder dataset (see _default_template_yaml); the
# documents are built from ``selected_items()`` instead. ``*_from`` build them from given items.


def _shuffled(values: Sequence, seed: str) -> list:
    shown = list(values)
    random.Random(seed).shuffle(shown)
    return shown


QUERY_PANEL = {"c2e": "Cause image", "e2c": "Effect image"}
OPTION_PANELS = [f"Option {number}" for number in range(1, N_CANDIDATES + 1)]
PAIR_PANELS = ["Cause image", "Effect image"]


def _image_choice_doc(item: dict, by_id: dict[str, dict], direction: str) -> dict:
    """C2E: the cause image and four candidate effect images; E2C the reverse (Eq. 1-2)."""
    query, answer = ("cause_image", "effect_image") if direction == "c2e" else ("effect_image", "cause_image")
    order = _shuffled([item["item_id"], *item["distractors"]], f"mucr:{direction}:{item['item_id']}")
    candidates = [by_id[pair_id][answer] for pair_id in order]
    return {
        "item_id": item["item_id"],
        "label": item["label"],
        "style": item["style"],
        "candidate_rule": item["candidate_rule"],
        "candidate_ids": order,
        "gold_position": order.index(item["item_id"]) + 1,
        "image_paths": [item[query], *candidates],
        "panel_labels": [QUERY_PANEL[direction], *OPTION_PANELS],
        # What the baseline models need to answer (abductive_tasks.models.baselines).
        "answer_kind": "choice",
        "choices": [str(number) for number in range(1, N_CANDIDATES + 1)],
        "candidate_images": candidates,
    }


def _cue_doc(item: dict) -> dict:
    """Cue: cause and effect images and the four cue phrases, shuffled per item (Eq. 3-4)."""
    options = _shuffled([item["cue"], *item["false_cues"]], f"mucr:cue:{item['item_id']}")
    return {
        "item_id": item["item_id"],
        "label": item["label"],
        "style": item["style"],
        "options": options,
        "gold_position": options.index(item["cue"]) + 1,
        "image_paths": [item["cause_image"], item["effect_image"]],
        "panel_labels": PAIR_PANELS,
        # Baselines answer with one of the phrases (text), parsed like a model quoting an option.
        "answer_kind": "text",
        "choices": options,
        "candidate_images": [item["cause_image"], item["effect_image"]],
    }


def _exp_doc(item: dict, by_id: dict[str, dict]) -> dict:
    """Exp: cause and effect images and the correct cue phrase (Eq. 5); the annotations are the references."""
    return {
        "item_id": item["item_id"],
        "label": item["label"],
        "style": item["style"],
        "cue": item["cue"],
        "references": item["references"],
        "reference_text": item["references"][0],
        "image_paths": [item["cause_image"], item["effect_image"]],
        "panel_labels": PAIR_PANELS,
        # Baselines retrieve another pair's annotation: the first one of each distractor pair.
        "answer_kind": "text",
        "choices": [by_id[pair_id]["references"][0] for pair_id in item["distractors"]],
        "candidate_images": [item["cause_image"], item["effect_image"]],
    }


def c2e_docs_from(items: Sequence[dict]) -> datasets.Dataset:
    by_id = {item["item_id"]: item for item in items}
    return datasets.Dataset.from_list([_image_choice_doc(item, by_id, "c2e") for item in items])


def e2c_docs_from(items: Sequence[dict]) -> datasets.Dataset:
    by_id = {item["item_id"]: item for item in items}
    return datasets.Dataset.from_list([_image_choice_doc(item, by_id, "e2c") for item in items])


def cue_docs_from(items: Sequence[dict]) -> datasets.Dataset:
    return datasets.Dataset.from_list([_cue_doc(item) for item in items])


def exp_docs_from(items: Sequence[dict]) -> datasets.Dataset:
    by_id = {item["item_id"]: item for item in items}
    return datasets.Dataset.from_list([_exp_doc(item, by_id) for item in items])


def c2e_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_c2e and mucr_c2e_split."""
    return c2e_docs_from(selected_items())


def e2c_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_e2c and mucr_e2c_split."""
    return e2c_docs_from(selected_items())


def cue_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_cue and mucr_cue_split."""
    return cue_docs_from(selected_items())


def exp_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of mucr_exp and mucr_exp_split."""
    return exp_docs_from(selected_items())


# ---------------------------------------------------------------- prompts and visuals
# The paper does not print its questions Q_I, Q_P, Q_S; these follow the task definitions of
# "Evaluation Metrics" and the annotation structure of "Creating Images and Annotations".
# Form-1 (Figure 7 a, Table 3): one composite image with labelled panels; Form-3: separate images.

_CHOICE_TAIL = "Answer with the option number (1, 2, 3 or 4) first, then explain."
PROMPTS = {
    ("c2e", "composite"): (
        'The image shows five pictures side by side. The first, labelled "Cause image", shows a cause. The other four, '
        'labelled "Option 1" to "Option 4", are candidate effect images. Which option shows the effect of the cause image? ' + _CHOICE_TAIL
    ),
    ("c2e", "split"): (
        "The first image shows a cause. The next four images are candidate effect images, Option 1 to Option 4 in order. "
        "Which option shows the effect of the first image? " + _CHOICE_TAIL
    ),
    ("e2c", "composite"): (
        'The image shows five pictures side by side. The first, labelled "Effect image", shows an effect. The other four, '
        'labelled "Option 1" to "Option 4", are candidate cause images. Which option shows the cause of the effect image? ' + _CHOICE_TAIL
    ),
    ("e2c", "split"): (
        "The first image shows an effect. The next four images are candidate cause images, Option 1 to Option 4 in order. "
        "Which option shows the cause of the first image? " + _CHOICE_TAIL
    ),
    ("pair", "composite"): (
        'The image shows two pictures side by side: the cause image on the left (labelled "Cause image") and its effect on the right (labelled "Effect image").'
    ),
    ("pair", "split"): "The first image shows a cause and the second image shows its effect.",
}
CUE_QUESTION = "Which of the following phrases is the cue that explains the causal link between the two images?"
CUE_TAIL = "Answer with the number of the phrase (1, 2, 3 or 4) first, then explain."
EXP_QUESTION = (
    'The cue phrase linking them is "{cue}". Explain the causal relationship: first describe the content of the cause image, '
    "then the content of the effect image, and conclude with the causal link between the two images using the cue phrase. "
    "Answer in three lines:\nCause image: <description>\nEffect image: <description>\nCausal link: <explanation>"
)


def doc_to_visual_composite(doc: dict) -> list:
    """Form-1: one composite image, panels left to right in prompt order, each labelled."""
    return [compose_labelled(tuple(doc["image_paths"]), tuple(doc["panel_labels"]))]


def doc_to_visual_split(doc: dict) -> list:
    """Form-3: the images separately, in prompt order."""
    return [load_image(path) for path in doc["image_paths"]]


def doc_to_text_c2e_composite(doc: dict) -> str:
    return PROMPTS[("c2e", "composite")]


def doc_to_text_c2e_split(doc: dict) -> str:
    return PROMPTS[("c2e", "split")]


def doc_to_text_e2c_composite(doc: dict) -> str:
    return PROMPTS[("e2c", "composite")]


def doc_to_text_e2c_split(doc: dict) -> str:
    return PROMPTS[("e2c", "split")]


def _cue_prompt(doc: dict, form: str) -> str:
    options = "\n".join(f"{number}. {option}" for number, option in enumerate(doc["options"], start=1))
    return f"{PROMPTS[('pair', form)]} {CUE_QUESTION}\n{options}\n{CUE_TAIL}"


def doc_to_text_cue_composite(doc: dict) -> str:
    return _cue_prompt(doc, "composite")


def doc_to_text_cue_split(doc: dict) -> str:
    return _cue_prompt(doc, "split")


def doc_to_text_exp_composite(doc: dict) -> str:
    return f"{PROMPTS[('pair', 'composite')]} {EXP_QUESTION.format(cue=doc['cue'])}"


def doc_to_text_exp_split(doc: dict) -> str:
    return f"{PROMPTS[('pair', 'split')]} {EXP_QUESTION.format(cue=doc['cue'])}"


# ---------------------------------------------------------------- explanations in three parts

_PART_LABEL = re.compile(r"\b(cause image|effect image|causal link)\b\s*[*_]*\s*:\s*[*_]*", re.IGNORECASE)
_PART_MARKUP = " \t\n*_#-"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_EFFECT_SENTENCE = re.compile(r"\b(?:second|effect|other|next|right)\s+(?:image|picture|panel)\b", re.IGNORECASE)
_LINK_SENTENCE = re.compile(r"\b(?:caus\w*|connection|link\w*|relationship|reason\w*|because|led|leads|result\w*|therefore)\b", re.IGNORECASE)


def split_explanation(text: str) -> tuple[tuple[str, str, str], bool]:
    """Split an explanation into (cause image, effect image, causal link) parts; say whether it was labelled.

    A labelled answer ("Cause image: ... Effect image: ... Causal link: ...", the form the Exp
    prompt asks for) is cut at its labels. Otherwise sentences are grouped as the annotations
    are written (paper: cause image, then effect image, then the causal link): the cause part
    runs up to the first later sentence naming the second/effect image, the effect part up to
    the next sentence stating the link (caused, led, connection, ...). Failing that, three or
    more sentences give the first, the second and the rest; a shorter text is used whole for
    every part.
    """
    found = {}
    for match in _PART_LABEL.finditer(text):
        found.setdefault(match.group(1).lower(), match)
    if len(found) == len(PARTS):
        starts = [found[part] for part in PARTS]
        if starts[0].start() < starts[1].start() < starts[2].start():
            ends = [starts[1].start(), starts[2].start(), len(text)]
            parts = tuple(text[start.end() : end].strip(_PART_MARKUP) for start, end in zip(starts, ends, strict=True))
            return parts, True  # type: ignore[return-value]
    sentences = [sentence for sentence in _SENTENCE_END.split(text.strip()) if sentence]
    effect_at = next((i for i, sentence in enumerate(sentences) if i > 0 and _EFFECT_SENTENCE.search(sentence)), None)
    link_at = next((i for i, sentence in enumerate(sentences) if effect_at is not None and i > effect_at and _LINK_SENTENCE.search(sentence)), None)
    if effect_at is not None and link_at is not None:
        bounds = (0, effect_at, link_at, len(sentences))
    elif len(sentences) >= len(PARTS):
        bounds = (0, 1, 2, len(sentences))
    else:
        whole = text.strip()
        return (whole, whole, whole), False
    return tuple(" ".join(sentences[bounds[k] : bounds[k + 1]]) for k in range(len(PARTS))), False  # type: ignore[return-value]


# GPT-4 as f_sim, "scoring from 0 to 10" (Experimental Setup); the paper does not print the judge prompt.
JUDGE_SYSTEM = "You are a careful evaluator of image descriptions and causal explanations."
JUDGE_PROMPT = (
    "Two images show a cause and its effect. Human annotators described them; below is one part of each human explanation, "
    "the part describing {part_description}.\n\nHuman references:\n{references}\n\nModel explanation (same part):\n{candidate}\n\n"
    "Rate the semantic similarity of the model explanation to the human references on a scale from 0 to 10 "
    '(0: unrelated or contradictory, 10: the same meaning). Reply with "Score: <number>" only.'
)
PART_DESCRIPTIONS = ("the content of the cause image (the first image)", "the content of the effect image (the second image)", "the causal link between the two images")


def judge_prompt(part: int, candidate: str, references: Sequence[str]) -> str:
    """The judge question for one part (0: cause image, 1: effect image, 2: causal link)."""
    listed = "\n".join(f"{number}. {reference}" for number, reference in enumerate(references, start=1))
    return JUDGE_PROMPT.format(part_description=PART_DESCRIPTIONS[part], references=listed, candidate=candidate)


def _judge_part(part: int, candidate: str, references: Sequence[str]) -> tuple[float | None, str]:
    """One f_sim score; an empty model part scores 0 without asking (there is nothing to compare)."""
    if not candidate:
        return 0.0, judge.OK
    verdict = judge.ask_judge(judge_prompt(part, candidate, references), parse_judge_score, system=JUDGE_SYSTEM, max_tokens=32)
    return (float(verdict.value) if verdict.status == judge.OK else None), verdict.status


def _offline_part(candidate: str, references: Sequence[str]) -> float | None:
    return 0.0 if not candidate else judge.offline_similarity(candidate, references)


# ---------------------------------------------------------------- per-document results

C2E_METRICS = ("c2e_accuracy", "c2e_acc_by_label", "c2e_acc_by_style", "c2e_candidates_link_id", "c2e_candidates_seeded")
E2C_METRICS = ("e2c_accuracy", "e2c_acc_by_label", "e2c_acc_by_style", "e2c_candidates_link_id", "e2c_candidates_seeded")
CUE_METRICS = ("cue_accuracy", "cue_acc_by_label", "cue_acc_by_style")
COMMON_CHOICE_METRICS = ("parse_failure_rate", "unparsable_count", "items_scored")
EXP_METRICS = (
    "exp_s1",
    "exp_s2",
    "exp_s3",
    "exp_score",
    "exp_judged_items",
    "exp_judge_failed_items",
    "exp_judge_unparsable_items",
    "exp_offline_s1",
    "exp_offline_s2",
    "exp_offline_s3",
    "exp_offline_score",
    "exp_offline_items",
    "exp_unlabelled_rate",
    "items_scored",
)


def _choice_record(doc: dict, prediction: int | None) -> dict:
    return {
        "item_id": doc["item_id"],
        "label": doc["label"],
        "style": doc["style"],
        "candidate_rule": doc.get("candidate_rule", ""),
        "gold_position": doc["gold_position"],
        "prediction": prediction,
        "correct": prediction == doc["gold_position"],
    }


def _results(record: dict, names: Sequence[str]) -> dict:
    return {metric: record for metric in (*names, *COMMON_CHOICE_METRICS)}


def process_results_c2e(doc: dict, results: Sequence[str]) -> dict:
    return _results(_choice_record(doc, parse_choice(results[0], N_CANDIDATES)), C2E_METRICS)


def process_results_e2c(doc: dict, results: Sequence[str]) -> dict:
    return _results(_choice_record(doc, parse_choice(results[0], N_CANDIDATES)), E2C_METRICS)


def parse_cue(answer: str, options: Sequence[str]) -> int | None:
    """The option number, or else the option phrase the answer quotes."""
    return parse_choice(answer, len(options)) or parse_option_text(answer, options)


def process_results_cue(doc: dict, results: Sequence[str]) -> dict:
    return _results(_choice_record(doc, parse_cue(results[0], doc["options"])), CUE_METRICS)


def process_results_exp(doc: dict, results: Sequence[str]) -> dict:
    """Split the answer and the annotations into the three parts; score each part (Eq. 6-8).

    With a judge: one 0-10 judge score per part against the matching parts of all annotations
    (one annotation in the v2 schema). Without: the offline similarity per part instead.
    """
    parts, labelled = split_explanation(results[0])
    references = [split_explanation(reference)[0] for reference in doc["references"]]
    record: dict = {"item_id": doc["item_id"], "labelled": labelled}
    judged = judge.judge_configured()
    for k, part in enumerate(parts):
        part_references = [reference[k] for reference in references]
        record[f"s{k + 1}"], record[f"s{k + 1}_status"] = _judge_part(k, part, part_references) if judged else (None, judge.NOT_CONFIGURED)
        record[f"o{k + 1}"] = None if judged else _offline_part(part, part_references)
    return {metric: record for metric in EXP_METRICS}


# ---------------------------------------------------------------- aggregations


def _single_outcomes(records: list[dict]) -> ItemOutcomes:
    """One document per pair: the item is right when its answer is."""
    return consistency_outcomes([r["item_id"] for r in records], [1] * len(records), [r["correct"] for r in records], n_orders=1)


CHOICE = ItemAggregations(_single_outcomes, answer_key="prediction")
accuracy = CHOICE.accuracy  # Eq. (2) / (4), averaged over pairs
parse_failure_rate = CHOICE.parse_failure_rate
unparsable_count = CHOICE.unparsable_count
items_scored = CHOICE.items_scored
acc_by_label = CHOICE.breakdown("label")  # Figure 9, category
acc_by_style = CHOICE.breakdown("style")  # Figure 9, style


def _rule_count(rule: str) -> Callable[[list[dict]], int]:
    def count(records: list[dict]) -> int:
        return len({r["item_id"] for r in records if r["candidate_rule"] == rule})

    count.__name__ = f"candidates_{rule}"
    count.__doc__ = f"Pairs whose distractors came from the '{rule}' rule (see candidate_sets)."
    return count


candidates_link_id = _rule_count("link_id")
candidates_seeded = _rule_count("seeded")


def _judged(records: list[dict]) -> list[dict]:
    return [r for r in records if all(r[f"s{k}_status"] == judge.OK for k in (1, 2, 3))]


def _judge_configured_for(records: list[dict]) -> bool:
    if records and all(r["s1_status"] == judge.NOT_CONFIGURED for r in records):
        judge.warn_not_configured("MuCR S1/S2/S3/Exp (the offline similarity exp_offline_* is reported instead)")
        return False
    return True


def _exp_scores(records: list[dict], prefix: str) -> tuple[list[float | None], float | None]:
    values = np.array([[r[f"{prefix}{k}"] for k in (1, 2, 3)] for r in records], dtype=float).reshape(-1, 3)
    return weighted_part_means(values, EXP_WEIGHTS)


def _exp_metric(prefix: str, index: int | None) -> Callable[[list[dict]], float | None]:
    """S1..S3 (index 0..2) or Exp (index None) over the judged (``s``) or offline-scored (``o``) items."""

    def aggregate(records: list[dict]) -> float | None:
        if prefix == "s":
            if not _judge_configured_for(records):
                return None
            scored = _judged(records)
        else:
            scored = [r for r in records if all(r[f"o{k}"] is not None for k in (1, 2, 3))]
        parts, total = _exp_scores(scored, prefix)
        return total if index is None else parts[index]

    aggregate.__name__ = f"exp_{'offline_' if prefix == 'o' else ''}{'score' if index is None else f's{index + 1}'}"
    return aggregate


exp_s1, exp_s2, exp_s3, exp_score = (_exp_metric("s", index) for index in (0, 1, 2, None))  # Eq. (6)-(9)
exp_offline_s1, exp_offline_s2, exp_offline_s3, exp_offline_score = (_exp_metric("o", index) for index in (0, 1, 2, None))


def exp_judged_items(records: list[dict]) -> int:
    """Pairs with all three parts judged (the pairs S1-S3 and Exp average over)."""
    return len(_judged(records))


def exp_judge_failed_items(records: list[dict]) -> int:
    """Pairs left out because a judge request failed after its retries."""
    return sum(any(r[f"s{k}_status"] == judge.JUDGE_FAILED for k in (1, 2, 3)) for r in records)


def exp_judge_unparsable_items(records: list[dict]) -> int:
    """Pairs left out because a judge reply had no readable 0-10 score (and none failed)."""
    return sum(any(r[f"s{k}_status"] == judge.UNPARSABLE for k in (1, 2, 3)) and not any(r[f"s{k}_status"] == judge.JUDGE_FAILED for k in (1, 2, 3)) for r in records)


def exp_offline_items(records: list[dict]) -> int:
    """Pairs with an offline similarity for all three parts."""
    return sum(all(r[f"o{k}"] is not None for k in (1, 2, 3)) for r in records)


def exp_unlabelled_rate(records: list[dict]) -> float | None:
    """Share of answers without the three labelled parts the prompt asks for (split by sentences instead)."""
    return float(np.mean([not r["labelled"] for r in records])) if records else None


def exp_items_scored(records: list[dict]) -> int:
    return len({r["item_id"] for r in records})
