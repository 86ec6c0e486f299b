"""NL-Eye (Ventura et al., ICLR 2025): loader, documents, prompts, lmms-eval hooks and aggregations.

Layout (official, ``MorVentura/NL-Eye``): ``test_set.csv`` and
``images/<sample_id>/{premise,hypothesis1,hypothesis2}.png``. Every item becomes two
documents per task: the triplet tasks show the hypotheses in the original and the swapped
order (§4.2), the pairs tasks show the premise with each hypothesis (§4.1).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import datasets
import numpy as np

from abductive_tasks.aggregation import ItemAggregations
from abductive_tasks.data import DataError, benchmark_root, check_image, read_csv, resolve_columns, resolve_inside
from abductive_tasks.images import compose_row, load_image
from abductive_tasks.judge import JUDGE_FAILED, OK, UNPARSABLE, ask_judge, judge_configured, warn_not_configured
from abductive_tasks.metrics import ItemOutcomes, PairScores, consistency_outcomes, mean_or_none, pair_scores, rank_statistics
from abductive_tasks.parsing import parse_choice, parse_judge_label, parse_score

BENCHMARK = "nleye"
HUB_REPO = "MorVentura/NL-Eye"
CSV_NAME = "test_set.csv"
IMAGE_NAMES = ("premise.png", "hypothesis1.png", "hypothesis2.png")

# Canonical field -> accepted CSV column names, in order of preference. The dataset card
# documents the first five; the names of the label, description and explanation columns
# could not be verified offline, so every plausible spelling is accepted (see the README).
COLUMNS: dict[str, tuple[str, ...]] = {
    "sample_id": ("sample_id",),
    "reasoning_category": ("reasoning_category",),
    "domain": ("domain",),
    "time_direction": ("time_direction",),
    "time_duration": ("time_duration",),
    "gold_label": ("gold_label", "label", "gold", "answer", "plausible_hypothesis", "correct_hypothesis"),
    "premise_description": ("premise_description", "premise", "premise_text", "premise_desc"),
    "hypothesis1_description": ("hypothesis1_description", "hypothesis1", "hypothesis_1", "hypothesis1_text", "hypothesis_1_description"),
    "hypothesis2_description": ("hypothesis2_description", "hypothesis2", "hypothesis_2", "hypothesis2_text", "hypothesis_2_description"),
    "gold_explanation": ("gold_explanation", "explanation", "gold_explanations"),
}
REQUIRED = {"sample_id", "reasoning_category", "domain", "time_direction", "time_duration", "gold_label"}
DESCRIPTIONS = ("premise_description", "hypothesis1_description", "hypothesis2_description")

REASONING_CATEGORIES = {"physical", "functional", "logical", "emotional", "cultural", "social"}  # §2.2
TIME_DIRECTIONS = {"forward", "backward", "parallel"}  # §2.2
GOLD_LABELS = {"1": 1, "2": 2, "hypothesis1": 1, "hypothesis2": 2, "hypothesis 1": 1, "hypothesis 2": 2, "h1": 1, "h2": 2}
NO_DURATION = "unspecified"  # parallel items carry no duration (§2.2)

# Appendix C, Table 6 (verbatim).
PROMPT_TRIPLET_SEPARATE = (
    "Given a context image and 2 hypothesis images (3 total images), which image of the following two (1 and 2) "
    "is more plausible? The context image can happen before or after the hypothesis images. "
    "Mention which one is more plausible – 1 or 2, and explain."
)
PROMPT_TRIPLET_COMBINED = (
    "Given a context image (left image) and two hypothesis images (middle and right), which hypothesis image "
    "(1 or 2) is more plausible? Mention which one is more plausible – 1 or 2, and explain. "
    "The context image can happen before or after the hypothesis images."
)
PROMPT_PAIRS_SEPARATE = (
    "Given a pair of images – a context image and a hypothesis image – rank how plausible the hypothesis image "
    "is in relation to the context. The context image can occur before or after the hypothesis image. "
    "Rank the plausibility with a score between 1 and 10, where: 1: Not plausible at all, 3: Slightly plausible, "
    "5: Moderately plausible, 7: Very plausible, 10: Almost necessarily plausible. Explain why."
)
PROMPT_PAIRS_COMBINED = "The first (left) image is the context image. " + PROMPT_PAIRS_SEPARATE
PROMPT_TRIPLET_TEXT = "Given a context, hypothesis1, and hypothesis2, which hypothesis is more plausible? The context can occur before or after the hypotheses."
COMBINED_ALIASES = {"middle": 1, "right": 2}  # panel positions named in the combined prompt

# Appendix C, "Prompt of Auto Evaluation of Explanation" (verbatim; the layout around it is ours, see the README).
EXPLANATION_JUDGE_QUESTION = (
    "Return 0 (Not logical at all), 1 (Logical but different), or 2 (Logical and same as one of the gold) "
    "if the candidate’s explanation presents the same logical common sense as appears in one of the gold explanations "
    "for justifying the plausible hypothesis."
)
EXPLANATION_CLASSES = (0, 1, 2)
VALID_EXPLANATION = 2  # Appendix C: classes 0 and 1 are invalid, class 2 is valid
NO_REFERENCE = "no_reference"  # an explanation that cannot be judged: descriptions or gold explanation missing


# ---------------------------------------------------------------- loading


def selected_items() -> datasets.Dataset:
    """The items of the data source ``ABDUCTIVE_DATA`` selects."""
    return load_items(benchmark_root(BENCHMARK, HUB_REPO))


@functools.cache
def load_items(root: Path) -> datasets.Dataset:
    """Read and validate ``test_set.csv`` and the image folders under ``root`` (once per run)."""
    csv_path = root / CSV_NAME
    header, rows = read_csv(csv_path)
    columns = resolve_columns(header, COLUMNS, REQUIRED, csv_path)
    items, seen = [], {}
    for line, row in rows:
        field = {name: (row[column] or "").strip() for name, column in columns.items()}

        def fail(name: str, problem: str, line: int = line) -> DataError:
            return DataError(f"{csv_path}, line {line}, field '{columns.get(name, name)}': {problem}")

        sample_id = field["sample_id"]
        if not sample_id:
            raise fail("sample_id", "empty sample id")
        if sample_id in seen:
            raise fail("sample_id", f"duplicate sample id '{sample_id}' (first on line {seen[sample_id]})")
        seen[sample_id] = line
        gold = GOLD_LABELS.get(field["gold_label"].lower())
        if gold is None:
            raise fail("gold_label", f"unknown label '{field['gold_label']}', expected one of {sorted(GOLD_LABELS)}")
        category = field["reasoning_category"].lower()
        if category not in REASONING_CATEGORIES:
            raise fail("reasoning_category", f"unknown category '{category}', expected one of {sorted(REASONING_CATEGORIES)}")
        direction = field["time_direction"].lower()
        if direction not in TIME_DIRECTIONS:
            raise fail("time_direction", f"unknown direction '{direction}', expected one of {sorted(TIME_DIRECTIONS)}")
        folder = resolve_inside(root, f"images/{sample_id}", f"{csv_path}, line {line}, field 'sample_id'")
        images = [check_image(folder / name, f"{csv_path}, line {line}") for name in IMAGE_NAMES]
        items.append(
            {
                "item_id": sample_id,
                "gold": gold,
                "reasoning_category": category,
                "domain": field["domain"],
                "time_direction": direction,
                "time_duration": field["time_duration"].lower() or NO_DURATION,
                "premise_image": images[0],
                "hypothesis_images": images[1:],
                "descriptions": [field[name] for name in DESCRIPTIONS] if all(field.get(name) for name in DESCRIPTIONS) else None,
                "gold_explanation": field.get("gold_explanation", ""),
            }
        )
    if not items:
        raise DataError(f"{csv_path}: no rows")
    return datasets.Dataset.from_list(items)


# ---------------------------------------------------------------- documents (process_docs)
# lmms-eval hands process_docs a one-row placeholder dataset (see _default_template_yaml); the
# documents are built from ``selected_items()`` instead. ``*_from`` build them from given items.

_CATEGORY_FIELDS = ("reasoning_category", "domain", "time_direction", "time_duration")


def _triplet_doc(item: dict, swapped: bool) -> dict:
    shown = [2, 1] if swapped else [1, 2]  # original hypothesis index at each position
    hypotheses = [item["hypothesis_images"][i - 1] for i in shown]
    descriptions = item["descriptions"]
    return {
        "item_id": item["item_id"],
        "swapped": swapped,
        "gold_position": shown.index(item["gold"]) + 1,
        "image_paths": [item["premise_image"], *hypotheses],
        "premise_description": descriptions[0] if descriptions else "",
        "shown_descriptions": [descriptions[i] for i in shown] if descriptions else [],
        "gold_explanation": item["gold_explanation"],
        **{name: item[name] for name in _CATEGORY_FIELDS},
        # What the baseline models need to answer (abductive_tasks.models.baselines).
        "answer_kind": "choice",
        "choices": ["1", "2"],
        "candidate_images": hypotheses,
    }


def triplet_docs_from(items: datasets.Dataset) -> datasets.Dataset:
    """Two documents per item: hypotheses in the original and in the swapped order (§4.2)."""
    return datasets.Dataset.from_list([_triplet_doc(item, swapped) for item in items for swapped in (False, True)])


def triplet_text_docs_from(items: datasets.Dataset) -> datasets.Dataset:
    """Triplet documents for the text-only approach; every item needs its gold descriptions."""
    missing = [item["item_id"] for item in items if item["descriptions"] is None]
    if missing:
        raise DataError(
            f"nleye_triplet_text needs the premise and hypothesis descriptions (columns {[COLUMNS[d] for d in DESCRIPTIONS]}); "
            f"they are missing or empty for sample ids {missing[:10]}{' ...' if len(missing) > 10 else ''}"
        )
    return triplet_docs_from(items)


def pairs_docs_from(items: datasets.Dataset) -> datasets.Dataset:
    """Two documents per item: the premise with each hypothesis (§4.1, pairs setup)."""
    return datasets.Dataset.from_list(
        [
            {
                "item_id": item["item_id"],
                "hypothesis": index,
                "is_gold": index == item["gold"],
                "image_paths": [item["premise_image"], item["hypothesis_images"][index - 1]],
                **{name: item[name] for name in _CATEGORY_FIELDS},
                "answer_kind": "score",
                "choices": [],
                "candidate_images": [item["hypothesis_images"][index - 1]],
            }
            for item in items
            for index in (1, 2)
        ]
    )


def triplet_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of the triplet tasks."""
    return triplet_docs_from(selected_items())


def triplet_text_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of nleye_triplet_text."""
    return triplet_text_docs_from(selected_items())


def pairs_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of the pairs tasks."""
    return pairs_docs_from(selected_items())


# ---------------------------------------------------------------- prompts and visuals


def doc_to_visual_separate(doc: dict) -> list:
    """Separate-images strategy (v.2): the premise first, then the shown hypotheses."""
    return [load_image(path) for path in doc["image_paths"]]


def doc_to_visual_combined(doc: dict) -> list:
    """Combined-image strategy (v.1): one image, premise on the left (§4.1)."""
    return [compose_row(tuple(doc["image_paths"]))]


def doc_to_visual_none(doc: dict) -> list:
    """Text-only approach (t.2): no image."""
    return []


def doc_to_text_triplet_separate(doc: dict) -> str:
    return PROMPT_TRIPLET_SEPARATE


def doc_to_text_triplet_combined(doc: dict) -> str:
    return PROMPT_TRIPLET_COMBINED


def doc_to_text_pairs_separate(doc: dict) -> str:
    return PROMPT_PAIRS_SEPARATE


def doc_to_text_pairs_combined(doc: dict) -> str:
    return PROMPT_PAIRS_COMBINED


def doc_to_text_triplet_text(doc: dict) -> str:
    """Table 6 text-only prompt followed by the gold descriptions (their layout is our choice)."""
    first, second = doc["shown_descriptions"]
    return f"{PROMPT_TRIPLET_TEXT}\nContext: {doc['premise_description']}\nHypothesis 1: {first}\nHypothesis 2: {second}"


# ---------------------------------------------------------------- per-document results

TRIPLET_METRICS = (
    "consistency_acc",
    "order1_acc",
    "order2_acc",
    "parse_failure_rate",
    "unparsable_count",
    "items_scored",
    "items_incomplete",
    "consistency_by_category",
    "consistency_by_time_direction",
    "consistency_by_time_duration",
)
# §4.2 automatic explanation evaluation (nleye_triplet, nleye_triplet_combined); computed only with a judge.
EXPLANATION_METRICS = (
    "explanation_valid_rate",
    "explanations_judged",
    "explanations_judge_failed",
    "explanations_judge_unparsable",
    "explanations_unjudgeable",
)
PAIRS_METRICS = (
    "order_faithful_acc",
    "rank_diff",
    "equal_rank_rate",
    "correct_rank_mean",
    "wrong_rank_mean",
    "gap_when_correct",
    "gap_when_wrong",
    "items_with_both_scores",
    "parse_failure_rate",
    "unparsable_count",
    "items_scored",
    "items_incomplete",
    "faithful_by_category",
    "faithful_by_time_direction",
    "faithful_by_time_duration",
)


def _categories(doc: dict) -> dict:
    return {name: doc[name] for name in ("reasoning_category", "time_direction", "time_duration")}


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def explanation_judge_prompt(doc: dict, candidate: str) -> str | None:
    """Appendix C's judge prompt for a triplet document's candidate explanation; None without descriptions or gold explanation.

    The reference explanations are the gold explanation only: the crowd-written explanations the
    paper adds to the references (§4.2) are not in the columns this loader reads.
    """
    references = [doc["gold_explanation"].strip()] if doc["gold_explanation"].strip() else []
    if not references or len(doc["shown_descriptions"]) != 2 or not doc["premise_description"]:
        return None
    plausible = doc["shown_descriptions"][doc["gold_position"] - 1]
    other = doc["shown_descriptions"][2 - doc["gold_position"]]
    golds = "\n".join(f"Explanation {number}: {_sentence(text)}" for number, text in enumerate(references, 1))
    return (
        f"Context: {_sentence(doc['premise_description'])}\n"
        f"Plausible Hypothesis: {_sentence(plausible)}\n"
        f"Less Plausible Hypothesis: {_sentence(other)}\n"
        f"{EXPLANATION_JUDGE_QUESTION}\n"
        f"Candidate explanation: {_sentence(candidate)}\n"
        f"Gold explanations:\n{golds}"
    )


def _explanation_verdict(doc: dict, answer: str) -> tuple[str, bool | None]:
    """§4.2 automatic evaluation of the explanation of a correct prediction: (status, valid)."""
    prompt = explanation_judge_prompt(doc, answer)
    if prompt is None:
        return NO_REFERENCE, None
    verdict = ask_judge(prompt, lambda reply: parse_judge_label(reply, EXPLANATION_CLASSES))
    return verdict.status, (verdict.value == VALID_EXPLANATION if verdict.status == OK else None)


def _triplet_result(doc: dict, answer: str, aliases: dict[str, int] | None, judge_explanations: bool) -> dict:
    """One record for every metric; with ``judge_explanations``, correct predictions get their explanation judged."""
    choice = parse_choice(answer, 2, aliases)
    correct = choice == doc["gold_position"]
    record = {
        "item_id": doc["item_id"],
        "gold_position": doc["gold_position"],
        "prediction": choice,
        "correct": correct,
        **_categories(doc),
    }
    if not judge_explanations:
        return {metric: record for metric in TRIPLET_METRICS}
    status, valid = _explanation_verdict(doc, answer) if correct else (None, None)
    record |= {"judge_configured": judge_configured(), "explanation": status, "explanation_valid": valid}
    return {metric: record for metric in (*TRIPLET_METRICS, *EXPLANATION_METRICS)}


def process_results_triplet(doc: dict, results: Sequence[str]) -> dict:
    return _triplet_result(doc, results[0], None, judge_explanations=True)


def process_results_triplet_combined(doc: dict, results: Sequence[str]) -> dict:
    return _triplet_result(doc, results[0], COMBINED_ALIASES, judge_explanations=True)


def process_results_triplet_text(doc: dict, results: Sequence[str]) -> dict:
    """Text-only approach: its prompt asks for no explanation, so none is judged."""
    return _triplet_result(doc, results[0], None, judge_explanations=False)


def process_results_pairs(doc: dict, results: Sequence[str]) -> dict:
    record = {"item_id": doc["item_id"], "is_gold": doc["is_gold"], "rating": parse_score(results[0]), **_categories(doc)}
    return {metric: record for metric in PAIRS_METRICS}


# ---------------------------------------------------------------- aggregations


def _triplet_outcomes(records: list[dict]) -> ItemOutcomes:
    """A.3 consistency: an item is right only when both of its orders are."""
    return consistency_outcomes([r["item_id"] for r in records], [r["gold_position"] for r in records], [r["correct"] for r in records])


def _pair_scores(records: list[dict]) -> PairScores:
    return pair_scores([r["item_id"] for r in records], [r["is_gold"] for r in records], [r["rating"] for r in records])


TRIPLET = ItemAggregations(_triplet_outcomes, answer_key="prediction")
PAIRS = ItemAggregations(lambda records: _pair_scores(records).order_faithful(), answer_key="rating")

consistency_acc = TRIPLET.accuracy  # A.3
triplet_parse_failure_rate = TRIPLET.parse_failure_rate
triplet_unparsable_count = TRIPLET.unparsable_count
triplet_items_scored = TRIPLET.items_scored
triplet_items_incomplete = TRIPLET.items_incomplete
consistency_by_category = TRIPLET.breakdown("reasoning_category")  # Figure 6, left
consistency_by_time_direction = TRIPLET.breakdown("time_direction")  # Figure 6, right
consistency_by_time_duration = TRIPLET.breakdown("time_duration")

order_faithful_acc = PAIRS.accuracy  # A.3: strictly higher for the gold hypothesis; ties are wrong
pairs_parse_failure_rate = PAIRS.parse_failure_rate
pairs_unparsable_count = PAIRS.unparsable_count
pairs_items_scored = PAIRS.items_scored
pairs_items_incomplete = PAIRS.items_incomplete
faithful_by_category = PAIRS.breakdown("reasoning_category")
faithful_by_time_direction = PAIRS.breakdown("time_direction")
faithful_by_time_duration = PAIRS.breakdown("time_duration")


def _order_accuracy(records: list[dict], position: int) -> float | None:
    return mean_or_none(np.array([r["correct"] for r in records if r["gold_position"] == position], dtype=float))


def order1_acc(records: list[dict]) -> float | None:
    """Table 7: accuracy over the documents that show the gold hypothesis first."""
    return _order_accuracy(records, 1)


def order2_acc(records: list[dict]) -> float | None:
    """Table 7: accuracy over the documents that show the gold hypothesis second."""
    return _order_accuracy(records, 2)


def _rank_statistic(name: str):
    def aggregate(records: list[dict]) -> float | int | None:
        return rank_statistics(_pair_scores(records))[name]

    aggregate.__name__ = name
    aggregate.__doc__ = f"Table 8 statistic '{name}' (see abductive_tasks.metrics.rank_statistics)."
    return aggregate


rank_diff = _rank_statistic("rank_diff")
equal_rank_rate = _rank_statistic("equal_rank_rate")
correct_rank_mean = _rank_statistic("correct_rank_mean")
wrong_rank_mean = _rank_statistic("wrong_rank_mean")
gap_when_correct = _rank_statistic("gap_when_correct")
gap_when_wrong = _rank_statistic("gap_when_wrong")
items_with_both_scores = _rank_statistic("items_with_both_scores")


def _explanation_statuses(records: list[dict]) -> list[str] | None:
    """Statuses of the judged explanations (correct predictions only); None when no judge is configured."""
    if not all(record["judge_configured"] for record in records):
        warn_not_configured("NL-Eye explanation metrics (explanation_valid_rate, explanations_*)")
        return None
    return [record["explanation"] for record in records if record["explanation"] is not None]


def explanation_valid_rate(records: list[dict]) -> float | None:
    """§4.2 / Table 2 "Explanation Auto": share of the judged explanations of correct predictions that the judge finds valid."""
    if _explanation_statuses(records) is None:
        return None
    return mean_or_none(np.array([record["explanation_valid"] for record in records if record["explanation"] == OK], dtype=float))


def _explanation_count(status: str):
    def count(records: list[dict]) -> int | None:
        statuses = _explanation_statuses(records)
        return None if statuses is None else statuses.count(status)

    count.__name__ = f"explanations_{status}"
    count.__doc__ = f"Number of explanations of correct predictions with judge status '{status}'; None without a judge."
    return count


explanations_judged = _explanation_count(OK)  # Table 10: number of evaluated explanations
explanations_judge_failed = _explanation_count(JUDGE_FAILED)
explanations_judge_unparsable = _explanation_count(UNPARSABLE)
explanations_unjudgeable = _explanation_count(NO_REFERENCE)
