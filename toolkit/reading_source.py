"""Which files DATA stands for, and their rows one (suite, judge) at a time (part of the reader).

:class:`ItemSource` resolves DATA (record file, run folder(s), dataset folder, Hub dataset id) and
plans which (suite, judge) groups each file holds: parquet row-group statistics when a row group
holds one group, a read of its two key columns otherwise; a jsonl file is read and checked row by
row once. :meth:`ItemSource.batches` then yields one group's rows as :class:`Batch` es that carry
their source line numbers. :mod:`toolkit.reading` is the public face; see its docstring for the
checks.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .errors import RecordError, RecordFileError, ValidationFailed
from .records_io import iter_jsonl, record_files

NEEDED = ("suite", "judge_id", "model_id", "item_id", "score")
KEY_FIELDS = ("model_id", "suite", "judge_id", "item_id")
VALID_SCORES = (0.0, 0.5, 1.0)
_BATCH_ROWS = 1 << 18  # parquet rows decoded at a time
_STRING_KEYS = ("suite", "judge_id", "model_id", "item_id", "submission_id", "model_revision")
_HUB_PREFIX = "hf://datasets/"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


# ---------------------------------------------------------------------------------------------
# Which files DATA stands for
# ---------------------------------------------------------------------------------------------


@dataclass
class _File:
    path: Path  # on this machine
    name: str  # how errors name it (a Hub file: ORG/NAME[@rev]/data/<suite>/<file>)
    in_folder: bool  # found inside a folder: files that are not item records are skipped


def _dataset_item_files(root: Path) -> list[Path] | None:
    from . import dataset_layout as layout

    if (root / layout.DATA_DIR).is_dir() and (root / "README.md").is_file():
        return layout.item_files(root)
    return None


def _local_files(path: Path) -> list[_File]:
    if path.is_dir():
        files = _dataset_item_files(path)
        if files is None:
            judgments = path / "judgments"
            files = record_files(judgments if judgments.is_dir() else path)
        return [_File(f, str(f), True) for f in files]
    return [_File(f, str(f), False) for f in record_files(path)]


def parse_hub_id(data: str) -> tuple[str, str | None] | None:
    """(repo id, revision) for ``ORG/NAME[@rev]`` or ``hf://datasets/ORG/NAME[@rev]``; None otherwise."""
    text = str(data).strip()
    explicit = text.startswith(_HUB_PREFIX)
    if explicit:
        text = text[len(_HUB_PREFIX):].rstrip("/")
    repo, _, revision = text.partition("@")
    if not _REPO_ID.match(repo) or (not explicit and Path(str(data)).exists()):
        return None
    return repo, (revision or None)


def _hub_files(repo: str, revision: str | None, suites: Sequence[str] | None) -> list[_File]:
    from huggingface_hub import snapshot_download

    from . import dataset_layout as layout
    from .errors import SlmboardError

    patterns = [f"{layout.DATA_DIR}/{s}/*.parquet" for s in suites] if suites else [f"{layout.DATA_DIR}/*/*.parquet"]
    try:
        root = Path(snapshot_download(repo, repo_type="dataset", revision=revision, allow_patterns=patterns + ["README.md"]))
    except Exception as exc:  # huggingface_hub raises many types (not found, offline, auth)
        from .secrets import scrub_secrets

        reason = scrub_secrets(str(exc).splitlines()[0] if str(exc) else "", [os.environ.get("HF_TOKEN")])
        raise SlmboardError(f"{repo}: not a local file or folder, and reading it as a Hub dataset failed: "
                            f"{type(exc).__name__}: {reason}") from None
    label = repo + (f"@{revision}" if revision else "")
    return [_File(f, f"{label}/{f.relative_to(root).as_posix()}", True) for f in layout.item_files(root)]


def _resolve(data, suites: Sequence[str] | None) -> list[_File]:
    if isinstance(data, (list, tuple)):
        return [f for one in data for f in _resolve(one, suites)]
    path = Path(data)
    if path.exists():
        return _local_files(path)
    hub = parse_hub_id(str(data)) if not isinstance(data, Path) else None
    if hub is None:
        raise RecordFileError(f"{path}: no such file or folder (expected a .jsonl/.parquet file, a run folder, a dataset "
                              "folder or a Hub dataset id ORG/NAME)")
    return _hub_files(*hub, suites)


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

    def has(self, name: str) -> bool:
        names = self.data.columns if isinstance(self.data, pd.DataFrame) else self.data.schema.names
        return name in names

    def values(self, name: str, rows: list[int]) -> list:
        if isinstance(self.data, pd.DataFrame):
            return [None if _is_null(v) else v for v in self.data[name].iloc[rows].tolist()]
        return self.strings(name).take(pa.array(rows, type=pa.int64())).to_pylist()

    def scores(self) -> np.ndarray:
        """Scores as floats, null = NaN; a value that is not a number becomes +inf (refused by the check)."""
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
        return col.cast(pa.float64()).to_numpy(zero_copy_only=False)

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

    file: _File
    row_groups: list[tuple[int, int, bool]] = field(default_factory=list)  # (index, first row, holds only this group)


def _is_null(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def _is_string(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t)


class ItemSource:
    """DATA opened once: its files, and which (suite, judge) groups each holds.

    ``suites``/``judges`` restrict what is read (a Hub dataset then downloads only those suites).
    """

    def __init__(self, data, suites: Sequence[str] | None = None, judges: Sequence[str] | None = None):
        self.data = data
        self._suites = set(suites) if suites else None
        self._judges = set(judges) if judges else None
        self.files = _resolve(data, sorted(self._suites) if self._suites else None)
        self._parquet: dict[tuple[str, str], list[_ParquetPart]] = {}
        self._jsonl: dict[tuple[str, str], list[Batch]] = {}
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
        if not self._parquet and not self._jsonl:
            raise RecordFileError(f"{self._label()}: no item records found")

    def _label(self) -> str:
        return ", ".join(map(str, self.data)) if isinstance(self.data, (list, tuple)) else str(self.data)

    def _wanted(self, suite: str, judge: str) -> bool:
        return (self._suites is None or suite in self._suites) and (self._judges is None or judge in self._judges)

    def position(self, file_name: str) -> int:
        """The file's position in DATA (files are read, and rows ordered, in this order)."""
        return self._order[file_name]

    def groups(self) -> list[tuple[str, str]]:
        """Every (suite, judge_id) present, sorted."""
        return sorted(set(self._parquet) | set(self._jsonl))

    # -- planning --------------------------------------------------------------------------

    def _plan_parquet(self, f: _File) -> list[RecordError]:
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

    def _pairs_in_row_group(self, f: _File, rg: int, first: int, errors: list[RecordError]) -> list[tuple[str, str]]:
        table = pq.ParquetFile(f.path).read_row_group(rg, columns=["suite", "judge_id"])
        for key in ("suite", "judge_id"):
            nulls = np.flatnonzero(table.column(key).is_null().to_numpy(zero_copy_only=False))
            errors += [RecordError(f.name, first + int(i) + 1, key, "required field is null") for i in nulls[:50]]
        pairs = table.drop_null().group_by(["suite", "judge_id"]).aggregate([])
        return sorted(zip(pairs.column("suite").to_pylist(), pairs.column("judge_id").to_pylist()))

    def _plan_jsonl(self, f: _File) -> list[RecordError]:
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
                self._jsonl.setdefault((suite, judge), []).append(
                    Batch(f.name, part["_line"].to_numpy(dtype=np.int64), part.drop(columns="_line")))
        return []

    # -- reading one group -----------------------------------------------------------------

    def batches(self, suite: str, judge: str, columns: Sequence[str] | None = None) -> Iterator[Batch]:
        """The group's rows, file by file in DATA order, ``columns`` only (None = all)."""
        parts: list[tuple[int, object]] = [(self._order[p.file.name], p) for p in self._parquet.get((suite, judge), [])]
        parts += [(self._order[b.file], b) for b in self._jsonl.get((suite, judge), [])]
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

