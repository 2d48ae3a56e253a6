"""Per-item records for the Items and Judges tabs.

The checked columns (ids, scores, labels, categories) are read through the data layer
(``toolkit.data.reading``) — the same checks as `rank` and `recompute` — once per data version, kept in memory as categoricals and
sorted by model, then naturally by item id (``xstest_2`` before ``xstest_10``). A page is then a slice of that index; only
the long text of the rows on the page (prompt, response, judge output) is read afterwards, with a
pyarrow filter on their ids, so a page never loads the text of a million rows.
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from space import background

ALL = "(all)"
FAILED = "failed (no score)"
LABELS = ("harmful", "ambiguous", "safe", FAILED)
KEY = ["model_id", "item_id", "judge_id"]
INDEX_COLUMNS = ["suite", "model_id", "item_id", "judge_id", "score", "label", "category", "judge_status"]
TEXT_COLUMNS = ["prompt", "response", "judge_raw", "judge_reason"]
LIST_COLUMNS = ["item_id", "model_id", "judge_id", "label", "score", "category", "prompt"]
DETAIL_COLUMNS = ["item_id", "model_id", "judge_id", "suite", "category", "label", "score", "judge_status", "prompt",
                  "response", "judge_raw", "judge_reason"]
PREVIEW = 140  # characters of the prompt shown in the list
TEXT_CACHE_BYTES = 64 * 2**20  # the text of the files read last, per data version (ItemStore._file_text)
_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """'xstest_10' → ('xstest_', 10, ''): digit runs compare as numbers."""
    return tuple(int(p) if p.isdigit() else p for p in _DIGITS.split(str(text)))


def _natural_codes(values: pd.Categorical) -> np.ndarray:
    """Per row, the rank of its category under natural sort (ties impossible: categories are unique)."""
    cats = list(values.categories)
    # mixed int/str tuples compare safely: every key alternates str, int, str, ... from the start
    rank_of_cat = np.empty(len(cats), dtype=np.int64)
    rank_of_cat[sorted(range(len(cats)), key=lambda i: natural_key(cats[i]))] = np.arange(len(cats))
    codes = values.codes
    return np.where(codes >= 0, rank_of_cat[np.maximum(codes, 0)], -1)


def load_index(data) -> tuple[pd.DataFrame, str | None]:
    """(every item record's checked columns, naturally sorted; an error message or None).

    Records that fail the checks are not shown: the message names the file, row and field."""
    from toolkit.core.errors import SlmboardError
    from toolkit.data.reading import read_item_frame

    try:
        frame = read_item_frame(data, columns=INDEX_COLUMNS)
    except SlmboardError as exc:
        empty = pd.DataFrame({c: pd.Series(dtype="object") for c in INDEX_COLUMNS})
        return empty, str(exc)
    for col in INDEX_COLUMNS:
        if col not in frame.columns:
            frame[col] = None
    frame = frame[INDEX_COLUMNS].copy()
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce")
    for col in ("suite", "model_id", "item_id", "judge_id", "label", "category", "judge_status"):
        frame[col] = frame[col].astype("string").astype("category")
    # suite, model, item (natural), judge: a page then lies in one model's files, so reading its text
    # prunes the other files by their model_id statistics
    order = np.lexsort((frame["judge_id"].cat.codes, _natural_codes(frame["item_id"].array), frame["model_id"].cat.codes,
                        frame["suite"].cat.codes))
    return frame.iloc[order].reset_index(drop=True), None


@dataclass
class ItemStore:
    """The Items index of one data version; ``data``: a :class:`toolkit.data.reading.Dataset` or a folder."""

    data: object
    _index: pd.DataFrame | None = None
    _by_suite: dict[str, pd.DataFrame] = field(default_factory=dict)
    error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _text_sets: dict[str, tuple | None] = field(default_factory=dict)  # per suite: (schema, its files' fragments)
    _text_files: OrderedDict = field(default_factory=OrderedDict)  # file -> its ids and text (_file_text)
    _text_lock: threading.Lock = field(default_factory=threading.Lock)
    _choices: dict[tuple[str, str | None], list[str]] = field(default_factory=dict)

    def index(self) -> pd.DataFrame:
        with self._lock:  # concurrent first visits build it once
            if self._index is None:
                self._index, self.error = load_index(self.data)
            return self._index

    def _suite_files(self, suite: str) -> list[str]:
        from toolkit.core.errors import SlmboardError
        from toolkit.data.reading import open_data

        try:
            return [str(p) for p in open_data(self.data).suite_files(suite)]
        except SlmboardError:  # no data to show: load_index says why
            return []

    def warm(self) -> None:
        """Build the index in a background thread (at start-up), so the first Items visitor does not wait."""
        background.start("slmboard-items-index", lambda stop: self.index())

    def suite_frame(self, suite: str | None) -> pd.DataFrame:
        """The suite's checked records (naturally sorted); empty for an unknown suite."""
        idx = self.index()
        if suite not in self._by_suite:
            self._by_suite[suite] = idx[(idx["suite"] == suite).to_numpy(dtype=bool, na_value=False)].reset_index(drop=True)
        return self._by_suite[suite]

    def suites(self) -> list[str]:
        return sorted(str(s) for s in self.index()["suite"].dropna().unique())

    def _values(self, column: str, suite: str | None) -> list[str]:
        """The values of ``column`` in the suite's records, sorted; once per suite (this index's data version)."""
        if (column, suite) not in self._choices:
            f = self.suite_frame(suite)
            self._choices[(column, suite)] = sorted(str(v) for v in f[column].dropna().unique())
        return self._choices[(column, suite)]

    def categories(self, suite: str | None) -> list[str]:
        return self._values("category", suite)

    def models(self, suite: str | None) -> list[str]:
        return self._values("model_id", suite)

    def select(self, suite: str | None, model: str | None = None, judge: str | None = None,
               label: str | None = None, category: str | None = None) -> pd.DataFrame:
        f = self.suite_frame(suite)
        if not any(v and v != ALL for v in (model, judge, label, category)):
            return f  # no filter: no copy of a million rows
        keep = np.ones(len(f), dtype=bool)
        for col, want in (("model_id", model), ("judge_id", judge), ("category", category)):
            if want and want != ALL:
                keep &= (f[col] == want).to_numpy(dtype=bool, na_value=False)
        if label and label != ALL:
            keep &= f["score"].isna().to_numpy() if label == FAILED else (f["label"] == label).to_numpy(dtype=bool, na_value=False)
        return f[keep]

    def _text_rows(self, suite: str, models, ids) -> tuple[pa.Table | None, pa.Schema | None]:
        """The ids and text of the suite's records of ``models`` x ``ids`` (a superset: filter by key), in file order."""
        if suite not in self._text_sets:  # file footers read once per suite, not per page
            files = self._suite_files(suite) if suite else []
            d = ds.dataset(files, format="parquet") if files else None
            self._text_sets[suite] = (d.schema, list(d.get_fragments())) if d is not None else None
        if self._text_sets[suite] is None:
            return None, None
        schema, fragments = self._text_sets[suite]
        cols = [c for c in KEY + TEXT_COLUMNS if c in schema.names]
        wanted = ds.field("item_id").isin(sorted(ids)) & ds.field("model_id").isin(sorted(models))
        # the files whose statistics may hold these rows (a page lies in one model's files), in dataset order
        parts = [self._file_text(f, schema, cols).filter(wanted) for f in fragments if f.subset(wanted).num_row_groups]
        return (pa.concat_tables(parts) if parts else schema.empty_table().select(cols)), schema

    def text(self, suite: str, keys: pd.DataFrame) -> pd.DataFrame:
        """Prompt, response and judge output of the (model_id, item_id, judge_id) rows in ``keys``."""
        got, _ = self._text_rows(suite, {str(v) for v in keys["model_id"].unique()},
                                 {str(v) for v in keys["item_id"].unique()}) if not keys.empty else (None, None)
        if got is None:
            return pd.DataFrame(columns=KEY + TEXT_COLUMNS)
        got = got.to_pandas()
        for c in TEXT_COLUMNS:
            if c not in got.columns:
                got[c] = None
        return got.drop_duplicates(KEY, keep="first")

    def _text_by_key(self, suite: str, keys: list[tuple[str, str, str]]) -> dict[tuple, dict]:
        """:meth:`text` as {key: row} for a page's rows: Python values of a few dozen rows are cheaper than a
        DataFrame and a merge (~15 ms of pandas per page)."""
        got, _ = self._text_rows(suite, {k[0] for k in keys}, {k[1] for k in keys}) if keys else (None, None)
        found: dict[tuple, dict] = {}
        for row in got.to_pylist() if got is not None else []:
            key = tuple(None if row.get(c) is None else str(row[c]) for c in KEY)
            found.setdefault(key, row)  # the first record of a key, as a left merge on its first match keeps
        return found

    def _file_text(self, fragment, schema: pa.Schema, cols: list[str]) -> pa.Table:
        """One file's ids and text, read whole (a row group is decoded whole anyway: ~18 ms for 38,000 rows);
        the files read last are kept while they fit in TEXT_CACHE_BYTES, so the next pages of one model's
        list (the unfiltered list starts with one) cost a filter of that table, not a read."""
        with self._text_lock:
            kept = self._text_files.get(fragment.path)
            if kept is not None:
                self._text_files.move_to_end(fragment.path)
                return kept
        table = fragment.to_table(columns=cols, schema=schema)  # the suite's columns: a file without one reads nulls
        if table.nbytes <= TEXT_CACHE_BYTES:
            with self._text_lock:
                self._text_files[fragment.path] = table
                while sum(t.nbytes for t in self._text_files.values()) > TEXT_CACHE_BYTES:
                    self._text_files.popitem(last=False)
        return table

    def page(self, suite: str | None, model: str | None = None, judge: str | None = None, label: str | None = None,
             category: str | None = None, page: int = 1, page_size: int = 25) -> tuple[pd.DataFrame, int]:
        """(rows of page ``page`` (1-based) with their text, total matching rows)."""
        hits = self.select(suite, model, judge, label, category)
        total = len(hits)
        start = max(0, (max(1, int(page)) - 1) * page_size)
        rows = hits.iloc[start:start + page_size]
        if rows.empty:
            return pd.DataFrame(columns=DETAIL_COLUMNS), total
        columns = {c: _values(rows[c]) for c in rows.columns}
        keys = [tuple(str(v) for v in key) for key in zip(*(columns[c] for c in KEY))]
        text = self._text_by_key(str(suite), keys)
        for c in TEXT_COLUMNS:
            columns[c] = [text[k].get(c, None) if k in text else np.nan for k in keys]
        # the text columns as the parquet read gives them (a string column: pandas' str, a missing value NaN)
        schema = self._text_sets[str(suite)][0] if self._text_sets.get(str(suite)) else None
        dtypes = {"score": "float64", **{c: _text_dtype(schema, c) for c in TEXT_COLUMNS}}
        out = pd.DataFrame({c: pd.Series(columns[c], dtype=dtypes.get(c, "object")) for c in DETAIL_COLUMNS if c in columns})
        return out, total


def _text_dtype(schema: pa.Schema | None, column: str) -> str | None:
    """``str`` for a string column of the suite's files, else None (inferred: an all-null column stays None)."""
    if schema is None or column not in schema.names:
        return None
    kind = schema.field(column).type
    return "str" if pa.types.is_string(kind) or pa.types.is_large_string(kind) else None


def _values(column: pd.Series) -> list:
    """A few rows' values as Python objects; a categorical's from its codes (its ``tolist`` builds every
    category's value first: a million item ids), a missing one as ``astype(object)`` gives it."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        missing = getattr(categories.dtype, "na_value", np.nan)  # what astype(object) gives (pd.NA for strings)
        return [categories[code] if code >= 0 else missing for code in column.cat.codes.to_numpy()]
    return column.tolist()


def list_view(rows: pd.DataFrame) -> pd.DataFrame:
    """The page as shown in the list: strings only (rendered as text), prompt shortened."""
    out = pd.DataFrame({c: rows[c] if c in rows else None for c in LIST_COLUMNS})
    out["score"] = [("—" if v is None or v != v else f"{float(v):g}") for v in out["score"]]
    out["label"] = [(v if isinstance(v, str) else "failed") for v in out["label"]]
    out["prompt"] = [(p if len(p) <= PREVIEW else p[: PREVIEW - 1] + "…") if isinstance(p, str) else "" for p in out["prompt"]]
    return out.astype(str)
