"""NL-Eye lmms-eval hooks: documents, visuals, prompts, and the task specs process_results and
the aggregations derive from (:mod:`abductive_tasks.scoring.taskspec`).

Every item becomes two documents per task: the triplet tasks show the hypotheses in the
original and the swapped order (§4.2), the pairs tasks show the premise with each hypothesis
(§4.1). lmms-eval hands ``process_docs`` a one-row placeholder dataset (see
``yaml_tasks/nleye/_default_template_yaml``); the documents are built from the items
``ABDUCTIVE_DATA`` selects instead (``*_from`` build them from given items).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from abductive_tasks import settings
from abductive_tasks.inputs.images import compose_row, load_image
from abductive_tasks.inputs.loading import DataError, documents
from abductive_tasks.inputs.stages import (
    Slot,
    StageOutput,
    content_digest,
    counting_every_item,
    outside_limit,
    this_run,
    upstream_output,
    validated,
    without_upstream,
)
from abductive_tasks.nleye import descriptions, prompts
from abductive_tasks.nleye.data import COLUMNS, DESCRIPTIONS, load_selected
from abductive_tasks.nleye.metrics import NO_REFERENCE, describe_outcome, pairs_outcome, triplet_outcome
from abductive_tasks.scoring.judge import OK, ask_judge, judge_configured, warn_once
from abductive_tasks.scoring.reading import CONTEXT_ALIAS, Choice, Score, parse_judge_label
from abductive_tasks.scoring.taskspec import PARSED, Metric, Outcome, Reading, Records, TaskSpec
from abductive_tasks.scoring.taskspec import counting_every_item as every_item

if TYPE_CHECKING:
    import datasets

_CATEGORY_FIELDS = ("reasoning_category", "domain", "time_direction", "time_duration")
_RECORD_CATEGORIES = ("reasoning_category", "time_direction", "time_duration")
# What a reply is read as (tests/shared/answer_corpus.yaml checks these kinds against realistic answers).
# A reply counting images counts the context image first, so "the third image" is hypothesis 2.
TRIPLET_ANSWER = Choice(2, context_images=1)
# The combined prompt names the panels: context left, hypotheses "middle" and "right".
TRIPLET_COMBINED_ANSWER = Choice(
    2,
    # pairs, as dict() takes them (Choice stores a dict)
    aliases=(("left", CONTEXT_ALIAS), ("middle", 1), ("center", 1), ("centre", 1), ("right", 2)),  # type: ignore[arg-type]
    context_images=1,
)
TRIPLET_TEXT_ANSWER = Choice(2)


def triplet_text_answer(doc: dict) -> Choice:
    """The hypothesis number, or else the one hypothesis text the answer quotes ("The man's clothes are soaking wet
    is more plausible"); the model-written descriptions of ``nleye_triplet_described`` are no option texts."""
    return Choice(2, option_texts=tuple(doc["shown_descriptions"]))


@dataclass(frozen=True)
class Description:
    """What ``nleye_describe`` asks for: a description of one image, kept as written (whitespace stripped)."""

    def read(self, text: str) -> str | None:
        return text.strip() or None

    def describe(self) -> str:
        return "an image description"


DESCRIPTION_ANSWER = Description()
# Appendix D.2.2, footnote 3: "The sample IDs of the real images subset" (19 ids, for a subset the text calls 20
# triplets). The released data hold the generated triplets of these ids; the natural images are not released.
NATURALNESS_IDS = (8, 15, 24, 30, 35, 47, 51, 63, 84, 86, 106, 118, 187, 192, 200, 256, 268, 312, 342)
PAIRS_ANSWER = Score(1, 10, labels=prompts.PAIRS_SCALE)  # Table 6 anchors the scale: "7: Very plausible"
EXPLANATION_CLASSES = (0, 1, 2)
VALID_EXPLANATION = 2  # Appendix C: classes 0 and 1 are invalid, class 2 is valid

# ---------------------------------------------------------------- documents (process_docs)


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
        "crowd_explanations": item["crowd_explanations"],
        **{name: item[name] for name in _CATEGORY_FIELDS},
        # What the baseline models need to answer (abductive_tasks.models.baselines).
        "answer_kind": "choice",
        "choices": ["1", "2"],
        "candidate_images": hypotheses,
    }


def triplet_docs_from(items: Iterable[dict], **fields: object) -> datasets.Dataset:
    """Two documents per item: hypotheses in the original and in the swapped order (§4.2); ``fields`` are added to
    every document."""
    return documents([_triplet_doc(item, swapped) | fields for item in items for swapped in (False, True)])


def triplet_text_docs_from(items: datasets.Dataset) -> datasets.Dataset:
    """Triplet documents for the text-only approach; every item needs its gold descriptions."""
    missing = [item["item_id"] for item in items if item["descriptions"] is None]
    if missing:
        raise DataError(
            "nleye_triplet_text needs the premise and hypothesis descriptions (columns "
            f"{[COLUMNS[d] for d in DESCRIPTIONS]}); "
            f"they are missing or empty for sample ids {missing[:10]}{' ...' if len(missing) > 10 else ''}"
        )
    return triplet_docs_from(items)


def describe_digest(path: str) -> str:
    """What a describe question shows, by content: Table 6's prompt and the image's bytes."""
    return content_digest([prompts.PROMPT_DESCRIBE], [path])


def describe_docs_from(items: datasets.Dataset, describer: str = "") -> datasets.Dataset:
    """One document per distinct image (by content) of the items: premises and hypotheses alike (t.1); ``describer``:
    the name the descriptions are also stored under ('' for none)."""
    docs: dict[str, dict] = {}
    for item in items:
        for role, path in (("premise", item["premise_image"]), *(("hypothesis", p) for p in item["hypothesis_images"])):
            digest = descriptions.image_digest(path)
            if digest in docs:
                docs[digest]["item_ids"].append(item["item_id"])
                continue
            docs[digest] = {
                "image_digest": digest,
                "image_path": path,
                "role": role,
                "item_ids": [item["item_id"]],
                "describer": describer,
                # Baselines answer free text with a candidate text: a fixed placeholder description.
                "answer_kind": "text",
                "choices": ["An image."],
                "candidate_images": [path],
            }
    return documents(list(docs.values()))


def _named_descriptions(digests: dict[str, str]) -> StageOutput | None:
    """The descriptions stored under the describer ``ABDUCTIVE_NLEYE_DESCRIPTIONS`` (or ``..._DESCRIBER``) names."""
    describer = settings.nleye_descriptions()
    if not describer:
        return None
    output = descriptions.STORE.output(describer, "nleye_describe", {digest: digest for digest in digests})
    if not output.items:
        raise DataError(
            f"nleye_triplet_described: no description by describer '{describer}' in "
            f"{descriptions.describer_folder(describer)}; run nleye_describe with "
            f"{descriptions.DESCRIBER_VARIABLE}={describer} first"
        )
    return output


def _describer_label(output: StageOutput) -> str:
    """Who described: the name the descriptions were stored under, else the model of the run that wrote them."""
    return output.name or str(output.binding.get("model") or output.binding.get("backend") or "")


def limited_items(items: datasets.Dataset, limit: int | float | None) -> tuple[datasets.Dataset, bool]:
    """The items the first documents of ``nleye_triplet`` (two per item, lmms-eval's ``--limit``) show, and whether
    the last of them is shown in its original order only (an odd limit)."""
    if limit is None:
        return items, False
    total = 2 * len(items)  # lmms-eval's rule: a share below 1 of them rounded up, else that many
    shown = math.ceil(total * limit) if 0 < limit < 1 else min(total, int(limit))
    return items.select(range(math.ceil(shown / 2))), shown % 2 == 1


def describe_limit(limit: int | float | None) -> int | None:
    """The ``--limit`` an ``nleye_describe`` stage run gets so that it describes every image of the items a reading
    run with ``limit`` asks (:func:`limited_items`): its documents are the distinct images in item order, so those
    images are its first documents."""
    if limit is None:
        return None
    items, _ = limited_items(load_selected().items, limit)
    return len({descriptions.image_digest(path) for item in items for path in _paths(item)})


def _paths(item: dict) -> list[str]:
    return [item["premise_image"], *item["hypothesis_images"]]


def triplet_described_docs_from(
    items: datasets.Dataset, output: StageOutput, limit: int | float | None = None, limit_known: bool = False
) -> datasets.Dataset:
    """Triplet documents whose descriptions are the describe stage's ``output`` (t.1), checked against the images
    loaded now. An item lacking any of its three descriptions is never asked: both its orders count as wrong, over
    all items (``items_missing_upstream``). ``limit_known``: the reading run said its ``--limit`` (``limit``), so its
    items are those ``nleye_triplet`` with that limit shows, each counted whatever the describe run described;
    otherwise (plain lmms-eval) an item beyond the ``--limit`` of a limited describe run is not one of its items."""
    task = "nleye_triplet_described"
    digests = {descriptions.image_digest(path): path for item in items for path in _paths(item)}
    validated(task, output, {digest: describe_digest(path) for digest, path in digests.items()})
    describer = _describer_label(output)
    selected, odd = limited_items(items, limit) if limit_known else (items, False)
    slots = []
    for index, item in enumerate(selected):
        paths = _paths(item)
        if not limit_known and any(outside_limit(output, descriptions.image_digest(path)) for path in paths):
            continue  # beyond the --limit of the describe run this plain lmms-eval run reads: not one of its items
        orders = (False,) if odd and index == len(selected) - 1 else (False, True)
        entries = [output.items.get(descriptions.image_digest(path)) for path in paths]
        texts = [None if entry is None else entry.value for entry in entries]
        stand_ins = [_triplet_doc({**item, "descriptions": None}, swapped) for swapped in orders]
        stand_ins = [doc | {"describer": describer} for doc in stand_ins]
        if any(text is None for text in texts):
            slots.append(Slot(item["item_id"], [], stand_ins))
        else:
            asked = [_triplet_doc({**item, "descriptions": texts}, swapped) for swapped in orders]
            slots.append(Slot(item["item_id"], [doc | {"describer": describer} for doc in asked], stand_ins))
    why_none = f"descriptions of nleye_describe from {output.origin}"
    return counting_every_item(slots, task, why_none, {"shown_descriptions": ["", ""]})


def describe_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of nleye_describe (each description also stored under ``ABDUCTIVE_NLEYE_DESCRIBER`` when set)."""
    return describe_docs_from(load_selected().items, settings.nleye_describer())


def triplet_described_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of nleye_triplet_described: the descriptions of the run's describe stage, or of the describer
    ``ABDUCTIVE_NLEYE_DESCRIPTIONS`` names (named on purpose: no model check)."""
    items = load_selected().items
    paths = {
        descriptions.image_digest(p): p for item in items for p in (item["premise_image"], *item["hypothesis_images"])
    }
    output = upstream_output(
        "nleye_triplet_described", "nleye_describe", "descriptions", lambda: _named_descriptions(paths), True
    )
    if output is None:
        stand_in = _triplet_doc({**items[0], "descriptions": None}, False)
        stand_in |= {"shown_descriptions": ["", ""], "describer": ""}
        how = (
            "abductive-eval runs nleye_describe first (add --describer MODEL to name another describer), or set "
            f"{descriptions.READ_VARIABLE}=<describer> (the name an nleye_describe run stored under)"
        )
        return without_upstream("nleye_triplet_described", stand_in, how)
    run = this_run()
    return triplet_described_docs_from(items, output, run.get("limit"), bool(run))


def pairs_docs_from(items: datasets.Dataset) -> datasets.Dataset:
    """Two documents per item: the premise with each hypothesis (§4.1, pairs setup)."""
    return documents(
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
    """process_docs of nleye_triplet and nleye_triplet_combined."""
    return triplet_docs_from(load_selected().items)


def naturalness_docs_from(items: datasets.Dataset) -> datasets.Dataset:
    """Triplet documents of the items whose sample ids Appendix D.2.2 lists (:data:`NATURALNESS_IDS`); every document
    carries how many listed ids the data lack (``subset_ids_missing``), and a warning names them."""
    listed = {str(number) for number in NATURALNESS_IDS}
    found = [item for item in items if item["item_id"] in listed]
    missing = sorted(listed - {item["item_id"] for item in found}, key=int)
    if not found:
        raise DataError(
            f"nleye_triplet_naturalness: none of the {len(listed)} sample ids Appendix D.2.2 lists is in the data "
            f"({', '.join(missing)})"
        )
    if missing:  # once per process: abductive-eval's data check and lmms-eval both build the documents
        message = (
            f"nleye_triplet_naturalness: {len(missing)} of the {len(listed)} sample ids Appendix D.2.2 lists are not "
            f"in the data: {', '.join(missing)}"
        )
        warn_once(message, message)
    return triplet_docs_from(found, subset_ids_listed=len(listed), subset_ids_missing=len(missing))


def triplet_text_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of nleye_triplet_text."""
    return triplet_text_docs_from(load_selected().items)


def naturalness_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of nleye_triplet_naturalness."""
    return naturalness_docs_from(load_selected().items)


def pairs_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of the pairs tasks."""
    return pairs_docs_from(load_selected().items)


# ---------------------------------------------------------------- visuals and prompts


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
    return prompts.PROMPT_TRIPLET_SEPARATE


def doc_to_text_triplet_combined(doc: dict) -> str:
    return prompts.PROMPT_TRIPLET_COMBINED


def doc_to_text_triplet_reverse(doc: dict) -> str:
    """Table 14 "Reverse Task": explain first, then predict."""
    return prompts.PROMPT_TRIPLET_REVERSE


def doc_to_text_triplet_cot(doc: dict) -> str:
    """Table 14 "CoT"."""
    return prompts.PROMPT_TRIPLET_COT


def doc_to_text_triplet_role(doc: dict) -> str:
    """Table 14 "Role"."""
    return prompts.PROMPT_TRIPLET_ROLE


def doc_to_text_pairs_separate(doc: dict) -> str:
    return prompts.PROMPT_PAIRS_SEPARATE


def doc_to_text_pairs_combined(doc: dict) -> str:
    return prompts.PROMPT_PAIRS_COMBINED


def doc_to_visual_describe(doc: dict) -> list:
    return [load_image(doc["image_path"])]


def doc_to_text_describe(doc: dict) -> str:
    return prompts.PROMPT_DESCRIBE


def doc_to_text_triplet_text(doc: dict) -> str:
    first, second = doc["shown_descriptions"]
    return prompts.triplet_text_prompt(doc["premise_description"], first, second)


# ---------------------------------------------------------------- explanations (§4.2 automatic evaluation)


def explanation_judge_prompt(doc: dict, candidate: str) -> str | None:
    """Appendix C's judge prompt for a triplet document's candidate explanation;
    None without descriptions or gold explanation.

    The references are the gold explanation, then the approved crowd explanations (§4.2) where the data hold them
    (the ``crowd_explanations`` field, see the data notes); a document without a gold explanation is not judged.
    """
    gold = doc["gold_explanation"].strip()
    if not gold or len(doc["shown_descriptions"]) != 2 or not doc["premise_description"]:
        return None
    plausible = doc["shown_descriptions"][doc["gold_position"] - 1]
    other = doc["shown_descriptions"][2 - doc["gold_position"]]
    references = [gold, *doc["crowd_explanations"]]
    return prompts.explanation_judge_prompt(doc["premise_description"], plausible, other, candidate, references)


def _explanation_verdict(doc: dict, answer: str) -> tuple[str, bool | None]:
    """The judge's verdict on the explanation of a correct prediction: (status, valid)."""
    prompt = explanation_judge_prompt(doc, answer)
    if prompt is None:
        return NO_REFERENCE, None
    verdict = ask_judge(prompt, lambda reply: parse_judge_label(reply, EXPLANATION_CLASSES))
    return verdict.status, (verdict.value == VALID_EXPLANATION if verdict.status == OK else None)


# ---------------------------------------------------------------- task specs


def _triplet_record(doc: dict, reading: Reading) -> dict:
    return {
        "item_id": doc["item_id"],
        "gold_position": doc["gold_position"],
        "prediction": reading.value,
        "correct": reading.value == doc["gold_position"],
        **{name: doc[name] for name in _RECORD_CATEGORIES},
    }


def _judged_triplet_record(doc: dict, reading: Reading) -> dict:
    record = _triplet_record(doc, reading)
    status, valid = _explanation_verdict(doc, reading.text) if record["correct"] else (None, None)
    return record | {
        "swapped": doc["swapped"],
        "judge_configured": judge_configured(),
        "explanation": status,
        "explanation_valid": valid,
    }


_TRIPLET_METRICS = (
    Metric("consistency_acc"),  # A.3
    Metric("order1_acc"),  # Table 7
    Metric("order2_acc"),  # Table 7
    Metric("consistency_by_category", breakdown=True),  # Figure 6, left
    Metric("consistency_by_time_direction", breakdown=True),  # Figure 6, right
    Metric("consistency_by_time_duration", breakdown=True),
)

TRIPLET = TaskSpec(
    name="nleye_triplet",
    diagnostics_prefix="triplet",
    metrics=(*_TRIPLET_METRICS, Metric("explanation_valid_rate")),  # Table 2 "Explanation / Auto"
    record=_judged_triplet_record,
    compute=lambda records: triplet_outcome(records, explanations=True),
    judged=True,
)


def _naturalness_outcome(records: Records) -> Outcome:
    """The judged triplet metrics over the D.2.2 subset, with how many of its listed ids the data lack."""
    outcome = triplet_outcome(records, explanations=True)
    for name in ("subset_ids_listed", "subset_ids_missing"):
        outcome.counts[name] = int(records[0][name]) if records else 0
    return outcome


TRIPLET_NATURALNESS = TaskSpec(  # Appendix D.2.2: the triplets whose ids the paper lists, as nleye_triplet
    name="nleye_triplet_naturalness",
    diagnostics_prefix="triplet",
    metrics=TRIPLET.metrics,
    record=lambda doc, reading: (
        _judged_triplet_record(doc, reading) | {name: doc[name] for name in ("subset_ids_listed", "subset_ids_missing")}
    ),
    compute=_naturalness_outcome,
)
TRIPLET_TEXT = TaskSpec(  # its Table 6 prompt asks for no explanation, so none is judged
    name="nleye_triplet_text",
    diagnostics_prefix="triplet",
    metrics=_TRIPLET_METRICS,
    record=_triplet_record,
    compute=lambda records: triplet_outcome(records, explanations=False),
)
TRIPLET_DESCRIBED = TaskSpec(  # t.1: the text-only prompt over a describer's descriptions, every item counted
    name="nleye_triplet_described",
    diagnostics_prefix="triplet",
    metrics=_TRIPLET_METRICS,
    record=lambda doc, reading: _triplet_record(doc, reading) | {"describer": doc["describer"]},
    compute=every_item(lambda records: triplet_outcome(records, explanations=False)),
)


def _describe_record(doc: dict, reading: Reading) -> dict:
    """The description the model gave (None when it gave none) and what it described, for the predict stage; stored
    under ``ABDUCTIVE_NLEYE_DESCRIBER`` too when that names a describer."""
    described = reading.status == PARSED
    digest = describe_digest(doc["image_path"])
    if described and doc["describer"]:
        descriptions.STORE.save(doc["describer"], doc["image_digest"], digest, reading.value, reading.status)
    return {
        "item_id": doc["image_digest"],
        "doc_digest": digest,
        "description": reading.value if described else None,
        "describer": doc["describer"],
        "role": doc["role"],
        "described": described,
        "description_chars": len(reading.value) if described else 0,
    }


DESCRIBE = TaskSpec(
    name="nleye_describe",
    diagnostics_prefix="describe",
    metrics=(Metric("described_rate"),),  # share of the distinct images described
    record=_describe_record,
    compute=describe_outcome,
    record_once=True,  # the record holds the description: logged once per document, not once per metric
)
PAIRS = TaskSpec(
    name="nleye_pairs",
    diagnostics_prefix="pairs",
    metrics=(
        Metric("order_faithful_acc"),  # A.3: strictly higher for the gold hypothesis; ties are wrong
        Metric("rank_diff", scale="raw"),  # Table 8
        Metric("equal_rank_rate", higher_is_better=False),  # Table 8
        Metric("correct_rank_mean", scale="raw"),  # Table 8 "Correct Rank"
        Metric("wrong_rank_mean", higher_is_better=False, scale="raw"),  # Table 8 "Incorrect Rank"
        Metric("gap_when_correct", scale="raw"),  # Table 8 "Correct Rank Diff"
        Metric("gap_when_wrong", higher_is_better=False, scale="raw"),  # Table 8 "Incorrect Rank Diff"
        Metric("faithful_by_category", breakdown=True),
        Metric("faithful_by_time_direction", breakdown=True),
        Metric("faithful_by_time_duration", breakdown=True),
    ),
    record=lambda doc, reading: {
        "item_id": doc["item_id"],
        "is_gold": doc["is_gold"],
        "rating": reading.value,
        **{n: doc[n] for n in _RECORD_CATEGORIES},
    },
    compute=pairs_outcome,
)
SPECS = (TRIPLET, TRIPLET_NATURALNESS, TRIPLET_TEXT, TRIPLET_DESCRIBED, DESCRIBE, PAIRS)


def _fixed(value):
    return lambda doc: value


process_results_triplet = TRIPLET.results_reader(_fixed(TRIPLET_ANSWER), doc_to_text_triplet_separate)
process_results_triplet_combined = TRIPLET.results_reader(_fixed(TRIPLET_COMBINED_ANSWER), doc_to_text_triplet_combined)
process_results_triplet_naturalness = TRIPLET_NATURALNESS.results_reader(
    _fixed(TRIPLET_ANSWER), doc_to_text_triplet_separate
)
process_results_triplet_text = TRIPLET_TEXT.results_reader(triplet_text_answer, doc_to_text_triplet_text)
process_results_triplet_described = TRIPLET_DESCRIBED.results_reader(
    _fixed(TRIPLET_TEXT_ANSWER), doc_to_text_triplet_text
)
process_results_describe = DESCRIBE.results_reader(_fixed(DESCRIPTION_ANSWER))  # free text: nothing to extract
process_results_pairs = PAIRS.results_reader(_fixed(PAIRS_ANSWER), doc_to_text_pairs_separate)
process_results_pairs_combined = PAIRS.results_reader(_fixed(PAIRS_ANSWER), doc_to_text_pairs_combined)
aggregate_triplet = TRIPLET.aggregate
aggregate_triplet_naturalness = TRIPLET_NATURALNESS.aggregate
aggregate_triplet_text = TRIPLET_TEXT.aggregate
aggregate_triplet_described = TRIPLET_DESCRIBED.aggregate
aggregate_describe = DESCRIBE.aggregate
aggregate_pairs = PAIRS.aggregate
