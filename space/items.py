"""The per-item browser's data access: pyarrow dataset scans with filters and early-stopping
pagination, so one page never loads the whole table (the per-item data can have millions of rows).

Files: ``data/<suite>/*.parquet`` of the published dataset (one per submission x judge).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

RESERVED = ("leaderboard", "moderation", "submissions")
ALL = "(all)"
FAILED = "failed (no score)"
LABELS = ("harmful", "ambiguous", "safe", FAILED)
LIST_COLUMNS = ["item_id", "model_id", "judge_id", "label", "score", "category", "prompt"]
DETAIL_COLUMNS = ["item_id", "model_id", "judge_id", "suite", "category", "label", "score", "judge_status", "prompt",
                  "response", "judge_raw", "judge_reason"]
PREVIEW = 140  # characters of the prompt shown in the list


@dataclass
class ItemStore:
    root: Path
    _datasets: dict[str, ds.Dataset] = field(default_factory=dict)
    _categories: dict[str, list[str]] = field(default_factory=dict)

    def suites(self) -> list[str]:
        data = self.root / "data"
        if not data.is_dir():
            return []
        return sorted(p.name for p in data.iterdir() if p.is_dir() and p.name not in RESERVED and any(p.glob("*.parquet")))

    def dataset(self, suite: str) -> ds.Dataset | None:
        if suite not in self._datasets:
            files = sorted(str(p) for p in (self.root / "data" / suite).glob("*.parquet"))
            if not files:
                return None
            self._datasets[suite] = ds.dataset(files, format="parquet")
        return self._datasets[suite]

    def categories(self, suite: str | None) -> list[str]:
        """Distinct categories of a suite (one column read, cached per store)."""
        if not suite:
            return []
        if suite not in self._categories:
            d = self.dataset(suite)
            if d is None or "category" not in d.schema.names:
                self._categories[suite] = []
            else:
                col = d.to_table(columns=["category"]).column("category")
                self._categories[suite] = sorted(str(v) for v in pc.unique(col).to_pylist() if v is not None)
        return self._categories[suite]

    @staticmethod
    def _filter(model: str | None, judge: str | None, label: str | None, category: str | None):
        expr = None

        def both(e):
            return e if expr is None else expr & e

        if model and model != ALL:
            expr = both(ds.field("model_id") == model)
        if judge and judge != ALL:
            expr = both(ds.field("judge_id") == judge)
        if label and label != ALL:
            expr = both(ds.field("label").is_null() if label == FAILED else ds.field("label") == label)
        if category and category != ALL:
            expr = both(ds.field("category") == category)
        return expr

    def page(self, suite: str | None, model: str | None = None, judge: str | None = None, label: str | None = None,
             category: str | None = None, page: int = 1, page_size: int = 25) -> tuple[pd.DataFrame, int]:
        """(rows of page ``page`` (1-based), total matching rows). Scans batch by batch and stops
        as soon as the page is full; counting uses only the filter columns."""
        d = self.dataset(suite) if suite else None
        if d is None:
            return pd.DataFrame(columns=DETAIL_COLUMNS), 0
        expr = self._filter(model, judge, label, category)
        total = d.count_rows(filter=expr)
        start = max(0, (max(1, int(page)) - 1) * page_size)
        if start >= total:
            return pd.DataFrame(columns=DETAIL_COLUMNS), total
        cols = [c for c in DETAIL_COLUMNS if c in d.schema.names]
        got: list[pa.RecordBatch] = []
        seen = 0
        need = page_size
        for batch in d.scanner(columns=cols, filter=expr, batch_size=4096).to_batches():
            n = batch.num_rows
            if seen + n <= start:
                seen += n
                continue
            lo = max(0, start - seen)
            piece = batch.slice(lo, need)
            got.append(piece)
            need -= piece.num_rows
            seen += n
            if need <= 0:
                break
        table = pa.Table.from_batches(got, schema=got[0].schema) if got else pa.table({c: [] for c in cols})
        return table.to_pandas(), total


def list_view(rows: pd.DataFrame) -> pd.DataFrame:
    """The page as shown in the list: strings only (rendered as text), prompt shortened."""
    out = pd.DataFrame({c: rows[c] if c in rows else None for c in LIST_COLUMNS})
    out["score"] = [("—" if v is None or v != v else f"{float(v):g}") for v in out["score"]]
    out["label"] = [(v if isinstance(v, str) else "failed") for v in out["label"]]
    out["prompt"] = [(p if len(p) <= PREVIEW else p[: PREVIEW - 1] + "…") if isinstance(p, str) else "" for p in out["prompt"]]
    return out.astype(str)
