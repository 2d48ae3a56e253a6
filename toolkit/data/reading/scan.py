"""One (suite, judge) group's scan: integer codes, the items × models label matrix, the duplicate check.

A leaderboard row is a model at a revision: the duplicate key is (model_id, model_revision, suite, judge_id,
item_id), so one revision judged twice is a duplicate and two revisions of a model are two rows.

Part of the data layer (:mod:`toolkit.data.reading` is the public face): :func:`scan_group` checks one
group of an :class:`~toolkit.data.reading.source.ItemSource` (files, or a DataFrame given from Python)
batch by batch.
"""
from __future__ import annotations

import bisect
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolkit.core.errors import RecordError, RecordFileError, ValidationFailed
from schemas import NO_DECISION

from toolkit.data.scoring.ternary import MISSING, UNDECIDED, codes_from_scores
from .source import EXTRAS, NEEDED, VALID_SCORES, Batch, ItemSource


class _Codes:
    """Integer codes for the strings of one key column, stable across batches (order of first sight)."""

    def __init__(self):
        self.known = pa.array([], type=pa.string())
        self._last: tuple[pa.Array, np.ndarray] | None = None

    def encode(self, values: pa.Array) -> np.ndarray:
        if not pa.types.is_dictionary(values.type):
            values = pc.dictionary_encode(values)
        dictionary = values.dictionary.cast(pa.string())
        if self._last is not None and dictionary.equals(self._last[0]):
            mapping = self._last[1]  # row groups of one suite usually share their dictionary
        else:
            pos = pc.index_in(dictionary, value_set=self.known)
            new = dictionary.filter(pos.is_null())
            if len(new):
                self.known = pa.concat_arrays([self.known, pc.unique(new)])
                pos = pc.index_in(dictionary, value_set=self.known)
            mapping = pos.to_numpy(zero_copy_only=False).astype(np.int64)
            self._last = (dictionary, mapping)
        return mapping[values.indices.to_numpy(zero_copy_only=False)]

    def names(self) -> np.ndarray:
        return np.asarray(self.known.to_pylist(), dtype=object)


class GroupScan:
    """Checks one (suite, judge) batch by batch and fills its models × items label matrix.

    ``stamp`` holds the serial number of the row that filled each cell: a cell met twice is a
    duplicate, and the serial of the first row names its file and line. Both matrices are model-
    major, so a batch of one model's rows touches memory in order.
    """

    EXTRAS = EXTRAS

    def __init__(self, suite: str, judge_id: str):
        self.suite, self.judge_id = suite, judge_id
        self.models, self.items, self.revisions = _Codes(), _Codes(), _Codes()
        #: a leaderboard row is a model at a revision: (model code, revision code) -> row code, and back
        self._row_of: dict[int, int] = {}
        self._rows: list[tuple[int, int]] = []
        self._order: np.ndarray | None = None
        self.labels = np.full((0, 0), MISSING, dtype=np.int8)
        self.stamp = np.full((0, 0), -1, dtype=np.int32)
        self.extras: dict[str, dict[int, object]] = {}
        self.errors: list[RecordError] = []
        self.n_rows = 0
        self._spans: list[tuple[int, str, np.ndarray]] = []  # (first serial, file, lines or [first line])

    def add(self, batch: Batch) -> None:
        null_rows = np.zeros(len(batch), dtype=bool)
        for key in ("model_id", "item_id"):
            nulls = batch.strings(key).is_null().to_numpy(zero_copy_only=False)
            self.errors += [RecordError(batch.file, int(batch.lines[i]), key, "required field is null") for i in np.flatnonzero(nulls)[:50]]
            null_rows |= nulls
        scores = batch.scores()
        bad = np.flatnonzero(~(np.isnan(scores) | np.isin(scores, VALID_SCORES)))[:50]
        if len(bad):
            raw = batch.values("score", bad.tolist())
            self.errors += [RecordError(batch.file, int(batch.lines[i]), "score", f"{v!r} is not 0, 0.5, 1 or null")
                            for i, v in zip(bad, raw)]
        if null_rows.any():
            return  # codes of null keys are meaningless; the errors above stop the read
        model = self._row_codes(self.models.encode(batch.strings("model_id")), self.revisions.encode(batch.revisions()))
        item = self.items.encode(batch.strings("item_id"))
        self._grow(len(self._rows), len(self.items.known))
        if self.n_rows + len(batch) >= 2**31 - 1:
            raise RecordFileError(f"{batch.file}: more than 2**31 records in one (suite, judge) group")
        serial = np.arange(self.n_rows, self.n_rows + len(batch), dtype=np.int32)
        lines = batch.lines
        if len(lines) and lines[-1] - lines[0] == len(lines) - 1:
            lines = lines[:1]  # consecutive rows (a parquet row group): the first line says it all
        self._spans.append((self.n_rows, batch.file, lines))
        self.n_rows += len(batch)
        before = self.stamp[model, item]
        self.stamp[model, item] = serial
        after = self.stamp[model, item]
        again, inside = before >= 0, after != serial
        if again.any() or inside.any():
            for first, second in ((before[again], serial[again]), (serial[inside], after[inside])):
                for a, b in zip(first[:50].tolist(), second[:50].tolist()):
                    row = b - int(serial[0])
                    self._duplicate(a, b, int(model[row]), int(item[row]))
        codes = codes_from_scores(scores)
        if batch.has("judge_status"):  # a panel's no decision: neither scored nor failed (n_undecided)
            undecided = pc.equal(batch.strings("judge_status").cast(pa.string()), NO_DECISION)
            codes[pc.fill_null(undecided, False).to_numpy(zero_copy_only=False) & np.isnan(scores)] = UNDECIDED
        self.labels[model, item] = codes
        self._first_extras(batch, model)

    def _row_codes(self, models: np.ndarray, revisions: np.ndarray) -> np.ndarray:
        """One code per (model, revision) pair, stable across batches (a batch usually holds one or two pairs)."""
        pairs = (models.astype(np.int64) << 32) | revisions.astype(np.int64)
        if len(pairs) and pairs[0] == pairs[-1] and (pairs == pairs[0]).all():
            unique, inverse = pairs[:1], np.zeros(len(pairs), dtype=np.int64)
        else:
            unique, inverse = np.unique(pairs, return_inverse=True)
        codes = np.empty(len(unique), dtype=np.int64)
        for i, pair in enumerate(unique.tolist()):
            code = self._row_of.get(pair)
            if code is None:
                code = self._row_of[pair] = len(self._rows)
                self._rows.append((pair >> 32, pair & 0xFFFFFFFF))
            codes[i] = code
        return codes[inverse]

    def _row_key(self, row: int) -> tuple[str, str]:
        model, revision = self._rows[row]
        return self.models.known[model].as_py(), self.revisions.known[revision].as_py()

    def _first_extras(self, batch: Batch, model: np.ndarray) -> None:
        cols = [c for c in self.EXTRAS if batch.has(c)]
        if not cols:
            return
        if len(model) and model[0] == model[-1] and (model == model[0]).all():
            codes, first_rows = model[:1], np.zeros(1, dtype=np.int64)
        else:
            codes, first_rows = np.unique(model, return_index=True)
        for col in cols:
            seen = self.extras.setdefault(col, {})
            new = [(int(c), int(r)) for c, r in zip(codes, first_rows) if int(c) not in seen]
            if new:
                seen.update({c: v for (c, _), v in zip(new, batch.values(col, [r for _, r in new]))})

    def _grow(self, n_models: int, n_items: int) -> None:
        rows, cols = self.labels.shape
        if n_models <= rows and n_items <= cols:
            return
        new_rows = rows if n_models <= rows else max(n_models, 2 * rows)
        new_cols = cols if n_items <= cols else max(n_items, 2 * cols)
        labels = np.full((new_rows, new_cols), MISSING, dtype=np.int8)
        stamp = np.full((new_rows, new_cols), -1, dtype=np.int32)
        labels[:rows, :cols] = self.labels
        stamp[:rows, :cols] = self.stamp
        self.labels, self.stamp = labels, stamp

    def where(self, serial: int) -> tuple[str, int]:
        """(file, line) of the row with this serial number."""
        i = bisect.bisect_right([s for s, _, _ in self._spans], serial) - 1
        start, file, lines = self._spans[i]
        return file, int(lines[0] + (serial - start) if len(lines) == 1 else lines[serial - start])

    def _duplicate(self, first: int, second: int, model: int, item: int) -> None:
        (f1, l1), (f2, l2) = self.where(first), self.where(second)
        model_id, revision = self._row_key(model)
        key = (model_id, revision, self.suite, self.judge_id, self.items.known[item].as_py())
        self.errors.append(RecordError(f2, l2, None, f"duplicate record: (model_id, model_revision, suite, judge_id, "
                                                     f"item_id) = {key} is also at {f1}:{l1}"))

    def raise_errors(self) -> None:
        if self.errors:
            raise ValidationFailed(self.errors)

    def matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """(items × rows label codes, each row's model id): a row is a model at a revision, rows sorted by
        (model id, revision), items in order of first sight. :meth:`row_revisions` gives each row's revision."""
        keys = [self._row_key(r) for r in range(len(self._rows))]
        order = np.asarray(sorted(range(len(keys)), key=lambda r: keys[r]), dtype=np.int64)
        self._order = order
        self.stamp = np.empty((0, 0), dtype=np.int32)  # the checks are done: free it before the bootstrap
        codes = np.ascontiguousarray(self.labels[order, : len(self.items.known)].T)
        self.labels = np.empty((0, 0), dtype=np.int8)
        return codes, np.asarray([keys[r][0] for r in order.tolist()], dtype=object)

    def row_revisions(self) -> list[str | None]:
        """Each matrix row's model revision (None where the records carry none), in :meth:`matrix` order."""
        return [self._row_key(r)[1] or None for r in self._order.tolist()]

    def extras_for(self, sorted_names: np.ndarray | None = None) -> dict[str, list]:
        """The first row's value of each provenance column for each matrix row, in :meth:`matrix` order."""
        return {col: [seen.get(r) for r in self._order.tolist()] for col, seen in self.extras.items()}


def scan_group(source: ItemSource, suite: str, judge: str, columns: Sequence[str] | None = None,
               keep: bool = False) -> tuple[GroupScan, list[Batch]]:
    """Check one group and build its matrices; with ``keep`` also return its batches (for a frame)."""
    scan = GroupScan(suite, judge)
    kept = []
    cols = None if columns is None else list(dict.fromkeys(list(NEEDED) + list(columns)))
    for batch in source.batches(suite, judge, cols):
        scan.add(batch)
        if len(scan.errors) >= 50:
            break
        if keep:
            kept.append(batch)
    scan.raise_errors()
    return scan, kept
