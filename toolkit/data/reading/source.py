"""Rows of the item records one (suite, judge) at a time (part of the data layer).

:class:`ItemSource` plans which (suite, judge) groups each file holds (the files come resolved from
:class:`~toolkit.data.reading.dataset.Dataset`): parquet row-group statistics when a row group holds one
group, a read of its two key columns otherwise; a jsonl file is read and checked row by row once; a
DataFrame given from Python is checked the same way. :meth:`ItemSource.batches` then yields one
group's rows as :class:`Batch` es that carry their source line numbers. :mod:`toolkit.data.reading` is the
public face; see :mod:`toolkit.data.reading.items` for the checks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from schemas import TERNARY_SCORES

from toolkit.core.errors import RecordError, RecordFileError, ValidationFailed
from toolkit.core.records_io import iter_jsonl

NEEDED = ("suite", "judge_id", "model_id", "item_id", "score")
KEY_FIELDS = ("model_id", "suite", "judge_id", "item_id")
VALID_SCORES = TERNARY_SCORES  # 0, 0.5, 1: defined once in schemas
#: Provenance columns the leaderboard carries (the first row's value per model).
EXTRAS = ("submission_id", "model_revision")
_BATCH_ROWS = 1 << 18  # parquet rows decoded at a time
_STRING_KEYS = ("suite", "judge_id", "model_id", "item_id", "submission_id", "model_revision")


@dataclass(frozen=True)
class DataFile:
    """One record file of DATA."""

    path: Path  # on this machine
    name: str  # how errors name it (a Hub file: ORG/NAME[@rev]/data/<suite>/<file>)
    in_folder: bool  # found inside a folder: files that are not item records are skipped


# ---------------------------------------------------------------------------------------------
# Batches: rows of one (suite, judge) from one file, with their source line numbers
# ---------------------------------------------------------------------------------------------


@dataclass
class Batch:
    file: str
    lines: np.ndarray  # 1-based line (jsonl) or row (parquet) number of each row in its file
    data: pa.RecordBatch | pa.Table | pd.DataFrame

    def __len__(self) -> int:
        return len(self.lines)

    def strings(self, name: str) -> pa.Array:
        if isinstance(self.data, pd.DataFrame):
            return pa.array(self.data[name], type=pa.string(), from_pandas=True)
        col = self.data.column(name)
        return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col

    def revisions(self) -> pa.Array:
        """The model_revision column as strings, "" where it is absent or null (other tools' records)."""
        if not self.has("model_revision"):
            return pa.array([""] * len(self), type=pa.string())
        values = self.strings("model_revision")
        if values.null_count == 0:
            return values  # a parquet row group's dictionary column stays encoded (no string is copied)
        if pa.types.is_dictionary(values.type):
            values = values.cast(pa.string())
        return pc.fill_null(values, "")

    def has(self, name: str) -> bool:
        names = self.data.columns if isinstance(self.data, pd.DataFrame) else self.data.schema.names
        return name in names

    def values(self, name: str, rows: list[int]) -> list:
        if isinstance(self.data, pd.DataFrame):
            return [None if _is_null(v) else v for v in self.data[name].iloc[rows].tolist()]
        return self.strings(name).take(pa.array(rows, type=pa.int64())).to_pylist()

    def scores(self) -> np.ndarray:
        """Scores as floats, null = NaN; a value that is not a number, or a NaN in a parquet file, becomes +inf
        (refused by the check)."""
        if isinstance(self.data, pd.DataFrame):
            raw = self.data["score"]
            if raw.dtype.kind in "fiu":
                return raw.to_numpy(dtype=np.float64, na_value=np.nan)
            # object column: a bool or a string is not a score, even where it would parse as one
            num = pd.to_numeric(raw.where(~raw.map(lambda v: isinstance(v, (bool, np.bool_, str))), "x"), errors="coerce")
            num = num.to_numpy(dtype=np.float64, na_value=np.nan).copy()
            num[np.isnan(num) & raw.notna().to_numpy()] = np.inf
            return num
        col = self.data.column("score")
        col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
        values = col.cast(pa.float64()).to_numpy(zero_copy_only=False)
        if pa.types.is_floating(col.type) and col.null_count < len(col):
            nan = pc.is_nan(col).fill_null(False).to_numpy(zero_copy_only=False)
            if nan.any():  # a NaN is no score and no failed item (null): refused, never counted as failed
                values = values.copy()
                values[nan] = np.inf
        return values

    def to_pandas(self) -> pd.DataFrame:
        if isinstance(self.data, pd.DataFrame):
            return self.data.reset_index(drop=True)
        frame = self.data.to_pandas()
        for c in frame.columns:  # plain strings for callers (categoricals would change groupby semantics)
            if isinstance(frame[c].dtype, pd.CategoricalDtype):
                frame[c] = frame[c].astype(object)
        return frame


@dataclass
class _ParquetPart:
    """Row groups of one parquet file that hold a given (suite, judge)."""

    file: DataFile
    row_groups: list[tuple[int, int, bool]] = field(default_factory=list)  # (index, first row, holds only this group)


def _is_null(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def _is_string(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t)


class ItemSource:
    """The item records of DATA planned once: which (suite, judge) groups each file holds.

    ``files`` come resolved (:class:`~toolkit.data.reading.dataset.Dataset`); ``label`` names DATA in an
    error; ``suites``/``judges`` restrict what is read; ``allow_empty``: no record is no error (a
    dataset that holds none yet).
    """

    def __init__(self, files: Sequence[DataFile], label: str, suites: Sequence[str] | None = None,
                 judges: Sequence[str] | None = None, allow_empty: bool = False):
        self.label = label
        self._suites = set(suites) if suites else None
        self._judges = set(judges) if judges else None
        self.files = list(files)
        self._parquet: dict[tuple[str, str], list[_ParquetPart]] = {}
        self._frames: dict[tuple[str, str], list[Batch]] = {}  # rows held in memory (jsonl, a DataFrame)
        self._columns: dict[str, list[str]] = {}  # file name -> its columns
        self._order: dict[str, int] = {}
        errors: list[RecordError] = []
        for i, f in enumerate(self.files):
            self._order[f.name] = i
            if f.path.suffix == ".parquet":
                errors += self._plan_parquet(f)
            else:
                errors += self._plan_jsonl(f)
        if errors:
            raise ValidationFailed(errors)
        if not allow_empty and not self._parquet and not self._frames:
            raise RecordFileError(f"{label}: no item records found")

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "records", suites: Sequence[str] | None = None,
                   judges: Sequence[str] | None = None) -> "ItemSource":
        """Records given from Python, checked like a file's; errors name ``name`` and the row
        (position in ``frame`` + 1)."""
        missing = [c for c in NEEDED if c not in frame.columns]
        if missing:
            raise ValueError(f"records lack required column(s): {', '.join(missing)}")
        errors = []
        for key in KEY_FIELDS:
            bad = np.flatnonzero(~frame[key].map(lambda v: isinstance(v, str)).to_numpy(dtype=bool))
            errors += [RecordError(name, int(i) + 1, key, f"{frame[key].iloc[i]!r} is not a string") for i in bad[:50]]
        if errors:
            raise ValidationFailed(errors)
        source = cls([], name, suites=suites, judges=judges, allow_empty=True)
        source._order[name] = 0
        source._columns[name] = list(frame.columns)
        for (suite, judge), rows in frame.groupby(["suite", "judge_id"], sort=False).indices.items():
            if source._wanted(suite, judge):
                source._frames[(suite, judge)] = [Batch(name, rows.astype(np.int64) + 1, frame.iloc[rows])]
        return source

    def _wanted(self, suite: str, judge: str) -> bool:
        return (self._suites is None or suite in self._suites) and (self._judges is None or judge in self._judges)

    def position(self, file_name: str) -> int:
        """The file's position in DATA (files are read, and rows ordered, in this order)."""
        return self._order[file_name]

    def groups(self) -> list[tuple[str, str]]:
        """Every (suite, judge_id) present, sorted."""
        return sorted(set(self._parquet) | set(self._frames))

    # -- planning --------------------------------------------------------------------------

    def _plan_parquet(self, f: DataFile) -> list[RecordError]:
        try:
            schema = pq.read_schema(f.path)
        except Exception as exc:
            raise RecordFileError(f"{f.name}: not a readable parquet file ({exc})") from None
        names = set(schema.names)
        if not set(NEEDED) <= names:
            if f.in_folder:
                return []  # a leaderboard or index parquet inside a folder: not item records
            raise RecordFileError(f"{f.name}: not an item-record file (missing {', '.join(sorted(set(NEEDED) - names))})")
        for key in KEY_FIELDS:
            if not _is_string(schema.field(key).type):
                return [RecordError(f.name, None, key, f"column type {schema.field(key).type} (expected string)")]
        t = schema.field("score").type
        if not (pa.types.is_floating(t) or pa.types.is_integer(t) or pa.types.is_null(t)):
            return [RecordError(f.name, None, "score", f"column type {t} (expected a number: 0, 0.5, 1 or null)")]
        self._columns[f.name] = list(schema.names)
        meta = pq.ParquetFile(f.path).metadata
        col_index = {meta.schema.column(i).name: i for i in range(meta.num_columns)}
        errors: list[RecordError] = []
        first = 0
        for rg in range(meta.num_row_groups):
            n = meta.row_group(rg).num_rows
            pure = _pure_group(meta.row_group(rg), col_index)
            pairs = [pure] if pure else self._pairs_in_row_group(f, rg, first, errors)
            for suite, judge in pairs:
                if self._wanted(suite, judge):
                    parts = self._parquet.setdefault((suite, judge), [])
                    if not parts or parts[-1].file is not f:
                        parts.append(_ParquetPart(f))
                    parts[-1].row_groups.append((rg, first, pure is not None))
            first += n
        return errors

    def _pairs_in_row_group(self, f: DataFile, rg: int, first: int, errors: list[RecordError]) -> list[tuple[str, str]]:
        table = pq.ParquetFile(f.path).read_row_group(rg, columns=["suite", "judge_id"])
        for key in ("suite", "judge_id"):
            nulls = np.flatnonzero(table.column(key).is_null().to_numpy(zero_copy_only=False))
            errors += [RecordError(f.name, first + int(i) + 1, key, "required field is null") for i in nulls[:50]]
        pairs = table.drop_null().group_by(["suite", "judge_id"]).aggregate([])
        return sorted(zip(pairs.column("suite").to_pylist(), pairs.column("judge_id").to_pylist()))

    def _plan_jsonl(self, f: DataFile) -> list[RecordError]:
        rows, lines, errors = [], [], []
        for line, row in iter_jsonl(f.path):
            if isinstance(row, RecordError):
                errors.append(row)
                continue
            if not isinstance(row, dict):
                errors.append(RecordError(f.name, line, None, "not a JSON object"))
                continue
            missing = [k for k in NEEDED if k not in row]
            if missing:
                if "judge_id" in missing and f.in_folder:
                    return errors  # a response file in a run folder
                errors.append(RecordError(f.name, line, missing[0], "required field is missing"))
                continue
            bad = _jsonl_row_error(row)
            if bad:
                errors.append(RecordError(f.name, line, bad[0], bad[1]))
                continue
            rows.append(row)
            lines.append(line)
        if errors or not rows:
            return errors
        frame = pd.DataFrame(rows)
        frame["_line"] = lines
        self._columns[f.name] = [c for c in frame.columns if c != "_line"]
        for (suite, judge), part in frame.groupby(["suite", "judge_id"], sort=True):
            if self._wanted(suite, judge):
                self._frames.setdefault((suite, judge), []).append(
                    Batch(f.name, part["_line"].to_numpy(dtype=np.int64), part.drop(columns="_line")))
        return []

    # -- reading one group -----------------------------------------------------------------

    def batches(self, suite: str, judge: str, columns: Sequence[str] | None = None) -> Iterator[Batch]:
        """The group's rows, file by file in DATA order, ``columns`` only (None = all)."""
        parts: list[tuple[int, object]] = [(self._order[p.file.name], p) for p in self._parquet.get((suite, judge), [])]
        parts += [(self._order[b.file], b) for b in self._frames.get((suite, judge), [])]
        for _, part in sorted(parts, key=lambda x: x[0]):
            if isinstance(part, Batch):
                keep = part.data.columns if columns is None else [c for c in columns if c in part.data.columns]
                yield Batch(part.file, part.lines, part.data[keep])
            else:
                yield from self._parquet_batches(part, suite, judge, columns)

    def _parquet_batches(self, part: _ParquetPart, suite: str, judge: str, columns) -> Iterator[Batch]:
        present = self._columns[part.file.name]
        cols = present if columns is None else [c for c in columns if c in present]
        reader = pq.ParquetFile(part.file.path, read_dictionary=[c for c in _STRING_KEYS if c in cols])
        for rg, first, pure in part.row_groups:
            read_cols = cols if pure else list(dict.fromkeys(cols + ["suite", "judge_id"]))
            offset = first
            for batch in reader.iter_batches(batch_size=_BATCH_ROWS, row_groups=[rg], columns=read_cols):
                lines = np.arange(offset + 1, offset + 1 + batch.num_rows, dtype=np.int64)
                offset += batch.num_rows
                if not pure:
                    mask = pc.and_(pc.equal(batch.column("suite").cast(pa.string()), suite),
                                   pc.equal(batch.column("judge_id").cast(pa.string()), judge))
                    mask = mask.fill_null(False)
                    lines = lines[mask.to_numpy(zero_copy_only=False)]
                    batch = batch.filter(mask).select(cols)
                if batch.num_rows:
                    yield Batch(part.file.name, lines, batch)


def _pure_group(rg_meta, col_index: dict[str, int]) -> tuple[str, str] | None:
    """(suite, judge) when row-group statistics show one value of each and no null; else None."""
    out = []
    for key in ("suite", "judge_id"):
        stats = rg_meta.column(col_index[key]).statistics
        if stats is None or not stats.has_min_max or stats.null_count != 0 or stats.min != stats.max:
            return None
        value = stats.min
        out.append(value.decode("utf-8") if isinstance(value, bytes) else str(value))
    return out[0], out[1]


def _jsonl_row_error(row: dict) -> tuple[str, str] | None:
    for key in KEY_FIELDS:
        if not isinstance(row[key], str):
            return key, f"{row[key]!r} is not a string"
    score = row["score"]
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or float(score) not in VALID_SCORES:
        return "score", f"{score!r} is not 0, 0.5, 1 or null"
    return None

