"""Full-size Sherlock retrieval through embeddings: the factored route (issue "Scale").

An official retrieval chunk file lists about 1,000 x 1,000 = 1M (image, region, inference)
instances, 23 chunks per split. One lmms-eval document per instance cannot fit on one machine
(``utils/bench_sherlock_scale.py`` measures it; figures in ``yaml_tasks/sherlock/README.md``).
For models that embed images and texts independently (``clip_scorer``, like the paper's CLIP
models, §5) the score matrix factors: this module reduces a chunk to its distinct image-regions
(rows) and distinct inferences (columns), content-keyed exactly like the official
``predict_clip_leaderboard.py``, and builds one document per index ``k`` carrying row ``k`` and
column ``k``. The model returns the two embeddings (``encode_embeddings``); the aggregation
stacks them per chunk, computes every score with one matrix product and hands the official
n x n grid (image instance x text instance, truth on the diagonal) to the metric kernel.
23 chunks cost about 23,000 requests instead of 23 million.
"""

from __future__ import annotations

import base64
import functools
import gc
import json
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import datasets
import numpy as np
from loguru import logger

from abductive_tasks.data import DataError, resolve_inside
from abductive_tasks.images import check_image
from abductive_tasks.parsing import loglikelihood_value
from abductive_tasks.sherlock import metrics
from abductive_tasks.sherlock.data import TaskFile, image_key, sherlock_root, task_files
from abductive_tasks.sherlock.hooks import METRICS, _Memo

EMBEDDING_ROUTE = "embedding"  # a document's ``score_route`` asking the model for embeddings, not a score
_PAYLOAD_PREFIX = "emb1:"

Box = tuple[int, int, int, int]  # left, top, width, height (absolute pixels)
BOX_FIELDS = ("left", "top", "width", "height")


# ---------------------------------------------------------------- embedding payload (model -> task)


def encode_embeddings(image: np.ndarray, text: np.ndarray) -> str:
    """One request's image and text embeddings as a string (lmms-eval stringifies model outputs)."""
    vector = np.concatenate([np.asarray(image, dtype="<f4").ravel(), np.asarray(text, dtype="<f4").ravel()])
    return _PAYLOAD_PREFIX + base64.b64encode(vector.tobytes()).decode("ascii")


def decode_embeddings(payload: object) -> tuple[np.ndarray, np.ndarray] | None:
    """The (image, text) embeddings of a payload; None when ``payload`` is not one (e.g. a plain score)."""
    if not isinstance(payload, str) or not payload.startswith(_PAYLOAD_PREFIX):
        return None
    vector = np.frombuffer(base64.b64decode(payload[len(_PAYLOAD_PREFIX) :]), dtype="<f4")
    if vector.size == 0 or vector.size % 2:
        return None
    return vector[: vector.size // 2], vector[vector.size // 2 :]


# ---------------------------------------------------------------- factoring one chunk file


@dataclass(frozen=True)
class FactoredChunk:
    """One retrieval chunk reduced to its distinct image-regions and inferences.

    ``row_of``/``col_of`` give, for each instance in sorted ``test_id`` order (the submission
    order), its row and column. With an answer key, ``gold_rows[i]``/``gold_cols[i]`` are the row
    and column of the i-th instance id (sorted): the official grid is
    ``scores[gold_rows][:, gold_cols]``, true pairs on its diagonal.
    """

    chunk: int
    rows: tuple[tuple[str, tuple[Box, ...]], ...]  # (image url, boxes)
    texts: tuple[str, ...]
    row_of: np.ndarray
    col_of: np.ndarray
    gold_rows: np.ndarray | None
    gold_cols: np.ndarray | None

    @property
    def documents(self) -> int:
        """Documents the factored task builds for this chunk: every row, column and instance id once."""
        gold = 0 if self.gold_rows is None else len(self.gold_rows)
        return max(len(self.rows), len(self.texts), gold)


class FactoringError(ValueError):
    """A chunk file that does not describe a retrieval grid (message names the file and instance)."""


@contextmanager
def _without_gc():
    """Python's cyclic GC re-walks every live object while millions of small ones are created
    (a parsed chunk holds ~10M): pausing it makes loading a chunk several times faster."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _first_bad_instance(instances: Sequence[object], source: str) -> FactoringError:
    """The error naming the first instance whose fields cannot be read (the slow path of the fast comprehensions)."""
    for index, instance in enumerate(instances):
        where = f"{source}, instance {index}"
        try:
            fields = {"test_id": instance["test_id"], "image.url": instance["image"]["url"], "inference": instance["inference"], "region": instance["region"]}
        except (TypeError, KeyError, IndexError) as error:
            return FactoringError(f"{where}: missing or malformed field ({error!r})")
        for name, value in fields.items():
            if name != "region" and not (isinstance(value, str) and value):
                return FactoringError(f"{where}, field '{name}': expected a non-empty string, got {value!r}")
        region = fields["region"]
        if not isinstance(region, list) or not region or not all(isinstance(box, dict) and all(_integer(box.get(f)) for f in BOX_FIELDS) for box in region):
            return FactoringError(f"{where}, field 'region': expected a non-empty list of boxes with integer {list(BOX_FIELDS)}, got {region!r}")
    return FactoringError(f"{source}: malformed instances")


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def factor_retrieval_chunk(instances: Sequence[dict], answer_key: dict | None, chunk: int, source: str) -> FactoredChunk:
    """Reduce a retrieval chunk (official instance dicts, optional answer key) to a ``FactoredChunk``.

    A chunk holds ~1M instances: fields are read with comprehensions and checked on the distinct
    values; any failure falls back to a per-instance scan that names the first bad instance.
    """
    with _without_gc():
        try:
            test_ids = [instance["test_id"] for instance in instances]
            row_keys = [(instance["image"]["url"], tuple([(b["left"], b["top"], b["width"], b["height"]) for b in instance["region"]])) for instance in instances]
            texts = [instance["inference"] for instance in instances]
        except (TypeError, KeyError, IndexError):
            raise _first_bad_instance(instances, source) from None
        row_index = {key: number for number, key in enumerate(dict.fromkeys(row_keys))}
        text_index = {text: number for number, text in enumerate(dict.fromkeys(texts))}
        rows, cols = list(map(row_index.__getitem__, row_keys)), list(map(text_index.__getitem__, texts))
        del row_keys, texts
        distinct_ok = all(isinstance(url, str) and url and boxes and all(_integer(v) for box in boxes for v in box) for url, boxes in row_index)
        if not distinct_ok or not all(isinstance(text, str) and text for text in text_index) or set(map(type, test_ids)) != {str}:
            raise _first_bad_instance(instances, source)
        order = sorted(range(len(test_ids)), key=test_ids.__getitem__)  # submission order: sorted test_id
        sorted_ids = [test_ids[index] for index in order]
        if not sorted_ids[0]:
            raise _first_bad_instance(instances, source)
        if len(set(sorted_ids)) != len(sorted_ids):
            duplicate = next(sorted_ids[i] for i in range(1, len(sorted_ids)) if sorted_ids[i] == sorted_ids[i - 1])
            raise FactoringError(f"{source}: duplicate test_id '{duplicate}'")
        row_of = np.asarray(rows, dtype=np.int32)[order]
        col_of = np.asarray(cols, dtype=np.int32)[order]
        gold_rows = gold_cols = None
        if answer_key is not None:
            gold_rows, gold_cols = _gold_grid(sorted_ids, row_of, col_of, answer_key, source)
    return FactoredChunk(chunk, tuple(row_index), tuple(text_index), row_of, col_of, gold_rows, gold_cols)


def _gold_grid(test_ids: list[str], row_of: np.ndarray, col_of: np.ndarray, answer_key: dict, source: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the answer key's instance ids; checks the key is a full n x n grid over the instances."""
    pairs = list(map(answer_key.get, test_ids))
    if len(answer_key) != len(test_ids) or None in pairs:
        missing = [test_id for test_id in test_ids if test_id not in answer_key][:3] or [test_id for test_id in answer_key if test_id not in set(test_ids)][:3]
        raise FactoringError(f"{source}: the answer key and the instances list different test_ids (e.g. {missing})")
    try:
        if set(map(len, pairs)) != {2}:
            raise TypeError
        image_side, text_side = [pair[0] for pair in pairs], [pair[1] for pair in pairs]
        number = {instance_id: position for position, instance_id in enumerate(dict.fromkeys(image_side))}
        if not all(isinstance(instance_id, str | int) for instance_id in number):
            raise TypeError
        image_ids = np.fromiter(map(number.__getitem__, image_side), dtype=np.int64, count=len(pairs))
    except TypeError:
        raise FactoringError(f"{source}: every answer-key value must be [image_instance_id, text_instance_id]") from None
    try:
        text_ids = np.fromiter(map(number.__getitem__, text_side), dtype=np.int64, count=len(pairs))
    except (KeyError, TypeError):
        text_ids = np.array([-1])
    size = len(number)
    if (text_ids < 0).any() or not np.bincount(text_ids, minlength=size).all():
        raise FactoringError(f"{source}: image and text instance ids differ; retrieval needs one id set for both")
    if len(pairs) != size**2 or not (np.bincount(image_ids * size + text_ids, minlength=size**2) == 1).all():
        raise FactoringError(f"{source}: the answer key is not a full {size} x {size} grid of (image, text) instance ids")
    gold_rows = np.full(size, -1, dtype=np.int32)
    gold_cols = np.full(size, -1, dtype=np.int32)
    gold_rows[image_ids] = row_of
    gold_cols[text_ids] = col_of
    if not (np.array_equal(gold_rows[image_ids], row_of) and np.array_equal(gold_cols[text_ids], col_of)):
        raise FactoringError(f"{source}: an instance id names different image-regions or inferences in different instances")
    return gold_rows, gold_cols


def load_factored_chunk(instances_path: Path, answer_key_path: Path | None, chunk: int) -> FactoredChunk:
    """Read one chunk's JSON files and factor them; the parsed JSON is released before returning."""
    with _without_gc():
        instances = json.loads(instances_path.read_bytes())
        answer_key = json.loads(answer_key_path.read_bytes()) if answer_key_path is not None else None
    if not isinstance(instances, list):
        raise FactoringError(f"{instances_path}: expected a JSON list of instances")
    if answer_key is not None and not isinstance(answer_key, dict):
        raise FactoringError(f"{answer_key_path}: expected a JSON object mapping test_id to [image_instance_id, text_instance_id]")
    return factor_retrieval_chunk(instances, answer_key, chunk, str(instances_path))


# ---------------------------------------------------------------- documents and scores


def chunk_documents(chunk: FactoredChunk, image_paths: dict[str, str], split: str) -> list[dict]:
    """The embedding-route documents of one chunk: document ``k`` carries row ``k`` and column ``k``
    (wrapping when one side has fewer distinct entries) and the k-th instance id's gold row and column.

    ``image_paths`` maps each image url to its local file. Fields follow the per-pair schema of
    ``abductive_tasks.sherlock`` (``image_path``, ``boxes``, ``region_key``, ``inference``), so the
    same ``doc_to_visual``/``doc_to_target`` hooks serve both routes.
    """
    documents = []
    gold = 0 if chunk.gold_rows is None else len(chunk.gold_rows)
    for k in range(chunk.documents):
        row, col = k % len(chunk.rows), k % len(chunk.texts)
        url, boxes = chunk.rows[row]
        documents.append(
            {
                "chunk": chunk.chunk,
                "row": row,
                "col": col,
                "gold_row": int(chunk.gold_rows[k]) if k < gold else -1,
                "gold_col": int(chunk.gold_cols[k]) if k < gold else -1,
                "rows": len(chunk.rows),
                "cols": len(chunk.texts),
                "documents": chunk.documents,
                "image_path": image_paths[url],
                "boxes": [list(box) for box in boxes],
                "region_key": f"{image_key(url)}|{json.dumps([list(box) for box in boxes])}",
                "inference": chunk.texts[col],
                "score_route": EMBEDDING_ROUTE,
                "split": split,
                "has_key": chunk.gold_rows is not None,
                # What the baseline models read (abductive_tasks.models.baselines): one image rated 1-10.
                "answer_kind": "score",
                "choices": [],
                "candidate_images": [image_paths[url]],
            }
        )
    return documents


@dataclass
class ChunkScores:
    """Scores of one chunk from its documents' embeddings; ``None`` when documents are missing or not embeddings."""

    chunk: int
    scores: np.ndarray | None  # rows x cols cosine similarities
    grid: np.ndarray | None  # official n x n grid (truth on the diagonal); None without an answer key
    unparsable: int
    missing: int  # documents of the chunk absent from the records (--limit)


def embedding_record(doc: dict, result: str) -> dict:
    """What process_results keeps of an embedding-route document (the payload stays a string until aggregation)."""
    return {key: doc[key] for key in ("split", "chunk", "row", "col", "gold_row", "gold_col", "rows", "cols", "documents")} | {"payload": result}


def chunk_scores(records: list[dict]) -> list[ChunkScores]:
    """Per chunk: stack the embeddings, one matrix product, and the official grid when gold ids are known.

    A chunk missing documents (``--limit``) or holding a result that is not an embedding payload
    gets ``None`` scores and counts its unparsable results.
    """
    by_chunk: dict[int, list[dict]] = {}
    for record in records:
        by_chunk.setdefault(record["chunk"], []).append(record)
    results = []
    for chunk, group in sorted(by_chunk.items()):
        decoded = [decode_embeddings(record["payload"]) for record in group]
        unparsable, missing = sum(embeddings is None for embeddings in decoded), group[0]["documents"] - len(group)
        if unparsable or missing:
            results.append(ChunkScores(chunk, None, None, unparsable, missing))
            continue
        image = np.zeros((group[0]["rows"], decoded[0][0].size), np.float32)
        text = np.zeros((group[0]["cols"], decoded[0][1].size), np.float32)
        for record, (image_embedding, text_embedding) in zip(group, decoded, strict=True):
            image[record["row"]], text[record["col"]] = image_embedding, text_embedding
        scores = image @ text.T
        gold = [(record["gold_row"], record["gold_col"]) for record in group if record["gold_row"] >= 0]
        grid = None
        if gold:  # same order for rows and columns: the true pairs stay on the diagonal
            gold_rows, gold_cols = (np.array(side) for side in zip(*gold, strict=True))
            grid = scores[np.ix_(gold_rows, gold_cols)]
        results.append(ChunkScores(chunk, scores, grid, unparsable, missing))
    return results


def submission_scores(chunk: FactoredChunk, scores: np.ndarray) -> np.ndarray:
    """Leaderboard scores (float32, higher = more plausible) of every instance in sorted test_id order."""
    return scores[chunk.row_of, chunk.col_of].astype(np.float32)


# ---------------------------------------------------------------- lmms-eval hooks (task sherlock_retrieval)


def _load_task_file(file: TaskFile) -> FactoredChunk:
    try:
        return load_factored_chunk(file.instances, file.answer_key, file.chunk)
    except (FactoringError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DataError(f"{file.instances}: {error}" if str(file.instances) not in str(error) else str(error)) from None


def loading_workers(files: int) -> int:
    """Processes that read chunk files in parallel: ``ABDUCTIVE_WORKERS`` (default: up to 4, one per core).
    Each holds one parsed chunk at a time (about 2.5 GB at the official size)."""
    return max(1, min(files, int(os.environ.get("ABDUCTIVE_WORKERS", min(4, os.cpu_count() or 1)))))


@functools.cache
def factored_chunks(root: Path, split: str) -> tuple[FactoredChunk, ...]:
    """Every retrieval chunk of ``split`` under ``root``, factored (read once per run; chunks in parallel processes)."""
    files = task_files(root, "retrieval", split)
    workers = loading_workers(len(files))
    if workers == 1:
        return tuple(_load_task_file(file) for file in files)
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return tuple(pool.map(_load_task_file, files))


@functools.cache
def embedding_documents_from(root: Path, split: str) -> datasets.Dataset:
    """The embedding-route documents of every chunk; each image file is checked once."""
    documents: list[dict] = []
    for chunk in factored_chunks(root, split):
        image_paths = {}
        for url, _boxes in chunk.rows:
            if url not in image_paths:
                where = f"Sherlock {split} retrieval chunk {chunk.chunk}, image url '{url}'"
                image_paths[url] = check_image(resolve_inside(root / "images", image_key(url), where), where)
        documents.extend(chunk_documents(chunk, image_paths, split))
    return datasets.Dataset.from_list(documents)


def retrieval_embedding_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of sherlock_retrieval (val): one document per index of each chunk."""
    return embedding_documents_from(sherlock_root(), "val")


def retrieval_embedding_test_docs(placeholder: datasets.Dataset) -> datasets.Dataset:
    """process_docs of the test-split retrieval task (scores exported, no metrics)."""
    return embedding_documents_from(sherlock_root(), "test")


def _payload(result: object) -> str | None:
    payload = loglikelihood_value(result)
    return payload if decode_embeddings(payload) is not None else None


def process_results_embedding(doc: dict, results: Sequence[object]) -> dict:
    """Keep the document's embedding payload; a result that is not one (a plain score) is counted as unparsable."""
    record = embedding_record(doc, _payload(results[0]))
    return {metric: record for metric in METRICS["retrieval"]}


def _retrieval(records: list[dict]) -> dict:
    """Per complete chunk, the official grid from one matrix product, then §4.1's metrics on the submitted (float32) scores."""
    per_chunk, incomplete, unparsable = {}, 0, 0
    for scored in chunk_scores(records):
        unparsable += scored.unparsable
        incomplete += scored.missing > 0  # a chunk cut by --limit; unparsable results are counted on their own
        if scored.grid is None:
            continue
        per_chunk[scored.chunk] = metrics.retrieval_metrics(metrics.as_submitted(scored.grid))
    if unparsable:
        logger.warning(f"sherlock_retrieval: {unparsable} results are not embeddings: it needs an embedding scorer like clip_scorer (else use sherlock_retrieval_mini)")
    mean = {name: float(np.mean([c[name] for c in per_chunk.values()])) if per_chunk else None for name in ("im2txt_rank", "txt2im_rank", "p_at_1")}
    return mean | {"per_chunk": per_chunk, "scored": len(per_chunk), "incomplete": incomplete, "documents": len(records), "unparsable": unparsable}


_RETRIEVAL = _Memo(_retrieval)
_FIELDS = ("p_at_1", "im2txt_rank", "txt2im_rank", "per_chunk", "scored", "incomplete", "documents", "unparsable")


def _aggregation(name: str, field: str):
    def aggregate(records: list[dict]) -> object:
        return _RETRIEVAL(records)[field]

    aggregate.__name__ = name
    aggregate.__doc__ = f"sherlock_retrieval (embedding route) metric '{field}'."
    return aggregate


AGGREGATIONS = {name: _aggregation(name, field) for name, field in zip(METRICS["retrieval"], _FIELDS, strict=True)}
globals().update(AGGREGATIONS)  # importable as abductive_tasks.sherlock.scale.<metric name>


def submission_scores_from_samples(records: list[dict], chunk: int, root: Path | None = None) -> np.ndarray:
    """Leaderboard scores of retrieval chunk ``chunk`` (float32, sorted test_id order) from its documents' records."""
    selected = [record for record in records if record["chunk"] == chunk]
    if not selected:
        raise DataError(f"no logged retrieval records for chunk {chunk}")
    (scored,) = chunk_scores(selected)
    if scored.scores is None:
        raise DataError(f"retrieval chunk {chunk}: {len(selected)} of {selected[0]['documents']} documents logged, {scored.unparsable} without embeddings")
    by_index = {factored.chunk: factored for factored in factored_chunks(root or sherlock_root(), selected[0]["split"])}
    return submission_scores(by_index[chunk], scored.scores)
