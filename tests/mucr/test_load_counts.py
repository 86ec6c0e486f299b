"""The loader's counts reach every MuCR task's ``<level>_counts``: ``no_link_id``, the pairs without link ids (an empty
``link_id`` cell), whose C2E/E2C candidates the seeded rule drew (``data.candidate_sets``)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from abductive_tasks.mucr import data, hooks, strategies
from abductive_tasks.scoring import judge

from helpers.specs import evaluate

PARQUET = Path("mucr") / "data" / "test-00000-of-00001.parquet"
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 429 Rate limit"


def _link_every_pair(root: Path) -> None:
    """Give the sample's one pair without a link id (pair 10, row 11: an empty cell) the other pairs of its group."""
    path = root / PARQUET
    table = pq.read_table(path)
    links = table.column("link_id").to_pylist()
    assert [n for n, cell in enumerate(links) if not cell] == [10]  # the sample as shipped
    links[10] = "[8, 9, 11]"
    index = table.schema.get_field_index("link_id")
    pq.write_table(table.set_column(index, "link_id", pa.array(links, table.schema.field(index).type)), path)


def _write_picks(folder: Path) -> None:
    """C2E and Cue samples answering option 1 everywhere, on the data loaded now (what mucr_exp explains)."""
    folder.mkdir()
    for task, docs, reader in (
        ("mucr_c2e", hooks.c2e_docs(None), hooks.process_results_c2e),
        ("mucr_cue", hooks.cue_docs(None), hooks.process_results_cue),
    ):
        lines = [{"doc_id": n, **reader(doc, ["1"])} for n, doc in enumerate(docs)]
        (folder / f"20261130_120000_samples_{task}.jsonl").write_text(
            "".join(json.dumps(line) + "\n" for line in lines)
        )


@pytest.mark.parametrize(
    ("linked", "no_link_id", "seeded"),
    # The sample: pair 10 has no link id; 8 (links 42, not a pair) and 11 (two links) have link ids that do not make a
    # candidate set: 1 without link ids, 3 seeded. Pair 10 linked to 8, 9, 11: none without, 2 seeded.
    [(False, 1, 3), (True, 0, 2)],
    ids=["sample", "every-link-id"],
)
def test_every_task_counts_the_pairs_without_link_ids(sample, data_copy, monkeypatch, linked, no_link_id, seeded):
    if linked:
        _link_every_pair(data_copy)
        monkeypatch.setenv("ABDUCTIVE_DATA", str(data_copy))
    monkeypatch.delenv("ABDUCTIVE_MUCR_SCENE_GRAPHS", raising=False)
    monkeypatch.setenv("ABDUCTIVE_MUCR_PICKS", str(sample / "picks"))
    monkeypatch.setattr(judge, "judge_configured", lambda: True)  # failed requests score 0 without a judge question
    assert data.load_selected().quirks == {data.NO_LINK_ID: no_link_id}
    _write_picks(sample / "picks")
    families = {
        "c2e_counts": (hooks.C2E, hooks.process_results_c2e, hooks.c2e_docs(None), "1"),
        "e2c_counts": (hooks.E2C, hooks.process_results_e2c_split, hooks.e2c_docs(None), "1"),
        "cue_counts": (hooks.CUE, hooks.process_results_cue, hooks.cue_docs(None), "1"),
        "exp_counts": (hooks.EXP, hooks.process_results_exp, hooks.exp_docs(None), FAILED),  # mucr_exp_gold
        "exp_own": (hooks.EXP_OWN, hooks.process_results_exp_own, hooks.exp_own_docs(None), FAILED),  # mucr_exp
        "scene_graph_counts": (
            strategies.SCENE_GRAPH,
            strategies.process_results_ccot_graph,
            strategies.c2e_ccot_graph_docs(None),
            "a graph",
        ),
    }
    for name, (spec, process_results, docs, reply) in families.items():
        counts = evaluate(spec, process_results, docs, [reply] * len(docs))[spec.counts_metric]
        assert counts[data.NO_LINK_ID] == no_link_id, name
        if name in ("c2e_counts", "e2c_counts"):
            assert counts["candidates_seeded"] == seeded
