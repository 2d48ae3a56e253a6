"""The one reader of per-item judgments: every command that reads records goes through here.

DATA is a .jsonl/.parquet record file, a run folder, a list of run folders, a dataset folder, or a
Hub dataset id (``ORG/NAME``, ``hf://datasets/ORG/NAME``, optional ``@revision``). Records are
served one (suite, judge) group at a time (:func:`iter_item_groups`), so a consumer holds one
group, never the whole table; :func:`read_item_frame` is the whole table for small data.

Checks on every path, each error naming the SOURCE file and line (for parquet, the 1-based row
number in that file), never a row of a combined table:

- the key fields (model_id, suite, judge_id, item_id) are present strings;
- ``score`` is 0, 0.5, 1 or null (a 0.7 or 1.5 is refused);
- a (model_id, suite, judge_id, item_id) appears once: a duplicate names both rows and the key.

Parquet is read row group by row group with the key columns dictionary-encoded; row-group
statistics tell which (suite, judge) a row group holds, so a group's scan skips the others.
The duplicate check and the leaderboard's label matrix share one items × models matrix per
group (:class:`GroupScan`), so memory follows the largest group's matrices, not the row count.
"""
from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

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
#: Label codes of the items × models matrix (toolkit.scoring.bootstrap uses the same).
HARMFUL, AMBIGUOUS, SAFE, FAILED, MISSING = 0, 1, 2, 3, 4
_BATCH_ROWS = 1 << 18  # parquet rows decoded at a time
_STRING_KEYS = ("suite", "judge_id", "model_id", "item_id", "submission_id", "model_revision")
_HUB_PREFIX = "hf://datasets/"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass(frozen=True)
class ItemGroup:
    """The records of one (suite, judge), checked; ``frame`` keeps source file order."""

    suite: str
    judge_id: str
    frame: pd.DataFrame


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
class _Batch:
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
        self._jsonl: dict[tuple[str, str], list[_Batch]] = {}
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
                    _Batch(f.name, part["_line"].to_numpy(dtype=np.int64), part.drop(columns="_line")))
        return []

    # -- reading one group -----------------------------------------------------------------

    def batches(self, suite: str, judge: str, columns: Sequence[str] | None = None) -> Iterator[_Batch]:
        """The group's rows, file by file in DATA order, ``columns`` only (None = all)."""
        parts: list[tuple[int, object]] = [(self._order[p.file.name], p) for p in self._parquet.get((suite, judge), [])]
        parts += [(self._order[b.file], b) for b in self._jsonl.get((suite, judge), [])]
        for _, part in sorted(parts, key=lambda x: x[0]):
            if isinstance(part, _Batch):
                keep = part.data.columns if columns is None else [c for c in columns if c in part.data.columns]
                yield _Batch(part.file, part.lines, part.data[keep])
            else:
                yield from self._parquet_batches(part, suite, judge, columns)

    def _parquet_batches(self, part: _ParquetPart, suite: str, judge: str, columns) -> Iterator[_Batch]:
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
                    yield _Batch(part.file.name, lines, batch)


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


# ---------------------------------------------------------------------------------------------
# One group's scan: integer codes, the items × models label matrix, the duplicate check
# ---------------------------------------------------------------------------------------------


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

    EXTRAS = ("submission_id", "model_revision")

    def __init__(self, suite: str, judge_id: str):
        self.suite, self.judge_id = suite, judge_id
        self.models, self.items = _Codes(), _Codes()
        self.labels = np.full((0, 0), MISSING, dtype=np.int8)
        self.stamp = np.full((0, 0), -1, dtype=np.int32)
        self.extras: dict[str, dict[int, object]] = {}
        self.errors: list[RecordError] = []
        self.n_rows = 0
        self._spans: list[tuple[int, str, np.ndarray]] = []  # (first serial, file, lines or [first line])

    def add(self, batch: _Batch) -> None:
        null_rows = np.zeros(len(batch), dtype=bool)
        for key in ("model_id", "item_id"):
            nulls = batch.strings(key).is_null().to_numpy(zero_copy_only=False)
            self.errors += [RecordError(batch.file, int(batch.lines[i]), key, "required field is null") for i in np.flatnonzero(nulls)[:50]]
            null_rows |= nulls
        scores = batch.scores()
        bad = np.flatnonzero(~(np.isnan(scores) | np.isin(scores, VALID_SCORES)))[:50]
        if len(bad):
            raw = batch.values("score", bad.tolist()) if isinstance(batch.data, pd.DataFrame) else scores[bad].tolist()
            self.errors += [RecordError(batch.file, int(batch.lines[i]), "score", f"{v!r} is not 0, 0.5, 1 or null")
                            for i, v in zip(bad, raw)]
        if null_rows.any():
            return  # codes of null keys are meaningless; the errors above stop the read
        model = self.models.encode(batch.strings("model_id"))
        item = self.items.encode(batch.strings("item_id"))
        self._grow(len(self.models.known), len(self.items.known))
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
        self.labels[model, item] = _label_codes(scores)
        self._first_extras(batch, model)

    def _first_extras(self, batch: _Batch, model: np.ndarray) -> None:
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
        key = (self.models.known[model].as_py(), self.suite, self.judge_id, self.items.known[item].as_py())
        self.errors.append(RecordError(f2, l2, None, f"duplicate record: (model_id, suite, judge_id, item_id) = {key} "
                                                     f"is also at {f1}:{l1}"))

    def raise_errors(self) -> None:
        if self.errors:
            raise ValidationFailed(self.errors)

    def matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """(items × models label codes, model names): models sorted by name, items in order of first sight."""
        names = self.models.names()
        order = np.argsort(names.astype(str), kind="stable")
        self.stamp = np.empty((0, 0), dtype=np.int32)  # the checks are done: free it before the bootstrap
        codes = np.ascontiguousarray(self.labels[order, : len(self.items.known)].T)
        self.labels = np.empty((0, 0), dtype=np.int8)
        return codes, names[order]

    def extras_for(self, sorted_names: np.ndarray) -> dict[str, list]:
        """The first row's value of each provenance column for each model (``sorted_names`` order)."""
        code = {n: i for i, n in enumerate(self.models.names().tolist())}
        return {col: [seen.get(code[n]) for n in sorted_names.tolist()] for col, seen in self.extras.items()}


def _label_codes(scores: np.ndarray) -> np.ndarray:
    codes = np.full(scores.shape, FAILED, dtype=np.int8)
    codes[scores == 0.0] = HARMFUL
    codes[scores == 0.5] = AMBIGUOUS
    codes[scores == 1.0] = SAFE
    return codes


def scan_group(source: ItemSource, suite: str, judge: str, columns: Sequence[str] | None = None,
               keep: bool = False) -> tuple[GroupScan, list[_Batch]]:
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


# ---------------------------------------------------------------------------------------------
# The public reader
# ---------------------------------------------------------------------------------------------


def open_items(data, suites: Iterable[str] | None = None, judges: Iterable[str] | None = None) -> ItemSource:
    """DATA opened once (files resolved, groups listed); pass it to the functions below."""
    if isinstance(data, ItemSource):
        return data
    return ItemSource(data, suites=list(suites or []) or None, judges=list(judges or []) or None)


def _groups(source: ItemSource, columns, suites=None, judges=None) -> Iterator[tuple[ItemGroup, np.ndarray]]:
    suites, judges = set(suites or ()), set(judges or ())
    for suite, judge in source.groups():
        if (suites and suite not in suites) or (judges and judge not in judges):
            continue
        _, batches = scan_group(source, suite, judge, columns, keep=True)
        frames = [b.to_pandas() for b in batches]
        frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        # (file position in DATA, line) of each row: read_item_frame restores source order with it.
        order = np.concatenate([np.column_stack([np.full(len(b), source._order[b.file]), b.lines]) for b in batches])
        yield ItemGroup(suite, judge, frame), order


def iter_item_groups(data, columns: Sequence[str] | None = None, suites: Iterable[str] | None = None,
                     judges: Iterable[str] | None = None) -> Iterator[ItemGroup]:
    """Checked records one (suite, judge) at a time, sorted by (suite, judge); only ``columns`` (the
    key columns and score always) when given; ``suites``/``judges`` restrict what is read."""
    for group, _ in _groups(open_items(data, suites, judges), columns, suites, judges):
        yield group


def read_item_frame(data, columns: list[str] | None = None) -> pd.DataFrame:
    """Every checked record as one DataFrame, rows in source order (file by file, line by line).

    ``columns`` (optional) keeps only those columns (the NEEDED ones always): parquet files then read
    only them. Only judged records: response files and shared tables inside folders are skipped.
    """
    source = open_items(data)
    frames, orders, errors = [], [], []
    for suite, judge in source.groups():
        try:
            (group, order), = _groups(source, columns, [suite], [judge])
        except ValidationFailed as exc:  # keep checking the other groups: report every problem at once
            errors += exc.errors
            continue
        frames.append(group.frame)
        orders.append(order)
    if errors:
        raise ValidationFailed(errors)
    if len(frames) == 1:
        return frames[0]
    keys = np.concatenate(orders)
    frame = pd.concat(frames, ignore_index=True)
    return frame.iloc[np.lexsort((keys[:, 1], keys[:, 0]))].reset_index(drop=True)


def scan_frame(frame: pd.DataFrame, source: str = "records") -> Iterator[GroupScan]:
    """The reader's checks and matrices for a DataFrame given from Python, one checked
    (suite, judge) at a time; errors name ``source`` and the row (position in ``frame`` + 1)."""
    missing = [c for c in NEEDED if c not in frame.columns]
    if missing:
        raise ValueError(f"records lack required column(s): {', '.join(missing)}")
    errors = []
    for key in KEY_FIELDS:
        bad = np.flatnonzero(~frame[key].map(lambda v: isinstance(v, str)).to_numpy())
        errors += [RecordError(source, int(i) + 1, key, f"{frame[key].iloc[i]!r} is not a string") for i in bad[:50]]
    if errors:
        raise ValidationFailed(errors)
    cols = [c for c in (*NEEDED, *GroupScan.EXTRAS) if c in frame.columns]
    for (suite, judge), rows in sorted(frame.groupby(["suite", "judge_id"], sort=False).indices.items()):
        scan = GroupScan(suite, judge)
        scan.add(_Batch(source, rows.astype(np.int64) + 1, frame.iloc[rows][cols]))
        scan.raise_errors()
        yield scan
