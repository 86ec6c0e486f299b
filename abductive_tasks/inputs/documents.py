"""Documents that hold their rows as Python dicts (lmms-eval reads each document several times); imported on first
use by :func:`abductive_tasks.inputs.loading.documents`, so that importing a benchmark's hooks does not import
``datasets``."""

from __future__ import annotations

from collections.abc import Iterator

import datasets


class HeldRows(datasets.Dataset):
    """A dataset that also holds its rows as Python dicts, exactly as Arrow gives them, converted once for all.

    lmms-eval reads every document several times (building requests and contexts, ``dataset[i]``; postprocessing,
    ``for doc in dataset``), and each read converts one Arrow row to Python at a cost that grows with the document's
    width: on our documents it costs more than the task itself. Here a read hands out a shallow copy of the held row.
    Anything derived from the dataset (a selection, a format, a changed column) reads Arrow again, as any dataset."""

    def __init__(self, dataset: datasets.Dataset) -> None:
        super().__init__(dataset.data, info=dataset.info, split=dataset.split, fingerprint=dataset._fingerprint)
        self._rows_of = self._data
        self._rows = self._data.table.to_pylist()

    def _held(self) -> bool:
        """Whether the held rows are what a read gives: the same table, no selection, no format."""
        return (
            getattr(self, "_rows_of", None) is self._data
            and self._indices is None
            and self._format_type is None
            and self._format_columns is None
        )

    def __iter__(self) -> Iterator:
        if not self._held():
            yield from super().__iter__()
            return
        for row in self._rows:
            yield dict(row)

    def __getitem__(self, key):  # noqa: ANN001, ANN204 (datasets' own signature)
        if type(key) is int and self._held():
            return dict(self._rows[key])
        return super().__getitem__(key)


def held_rows(rows: list[dict]) -> datasets.Dataset:
    """``datasets.Dataset.from_list(rows)`` whose row reads cost what a list's do (:class:`HeldRows`); a dataset
    with features that decode on read (images, audio) stays an ordinary one."""
    return held(datasets.Dataset.from_list(rows))


def held(dataset: datasets.Dataset) -> datasets.Dataset:
    """``dataset`` with row reads that cost what a list's do (:class:`HeldRows`), unless its features decode on read
    (images, audio): then it is returned as it is."""
    if any(datasets.features.features.require_decoding(feature) for feature in dataset.features.values()):
        return dataset
    return HeldRows(dataset)
