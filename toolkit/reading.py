"""Read per-item judgments into one DataFrame, whatever holds them (file, run folder, dataset folder)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

import pyarrow.parquet as pq

from .errors import RecordError, RecordFileError, ValidationFailed
from .records_io import iter_jsonl, record_files

NEEDED = ("suite", "judge_id", "model_id", "item_id", "score")


def _dataset_item_files(root: Path) -> list[Path] | None:
    from . import dataset_layout as layout

    if (root / layout.DATA_DIR).is_dir() and (root / "README.md").is_file():
        return layout.item_files(root)
    return None


def read_item_frame(data: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """Rows of ItemRecords (only judged records: response files and shared tables are skipped).

    ``columns`` (optional) keeps only those columns (the NEEDED ones always): parquet files then read
    only them, which is what keeps `rank` on a million rows fast and small.
    """
    keep = None if columns is None else list(dict.fromkeys(list(NEEDED) + list(columns)))
    path = Path(data)
    if not path.exists():
        raise RecordFileError(f"{path}: no such file or folder (expected a .jsonl/.parquet file, a run folder or a dataset folder)")
    if path.is_dir():
        files = _dataset_item_files(path)
        if files is None:
            judgments = path / "judgments"
            files = record_files(judgments if judgments.is_dir() else path)
    else:
        files = record_files(path)
    frames = []
    errors: list[RecordError] = []
    for f in files:
        if f.suffix == ".parquet":
            names = set(pq.read_schema(f).names)
            if not set(NEEDED) <= names:
                if path.is_dir():
                    continue  # a leaderboard or index parquet inside a folder: not item records
                raise RecordFileError(f"{f}: not an item-record file (missing {', '.join(sorted(set(NEEDED) - names))})")
            frames.append(pq.read_table(f, columns=None if keep is None else [c for c in keep if c in names]).to_pandas())
        else:
            rows = []
            for row_no, row in iter_jsonl(f):
                if isinstance(row, RecordError):
                    errors.append(row)
                    continue
                missing = [k for k in NEEDED if k not in row]
                if missing:
                    if "judge_id" in missing and path.is_dir():
                        break  # a response file in a run folder
                    errors.append(RecordError(str(f), row_no, missing[0], "required field is missing"))
                    continue
                rows.append(row if keep is None else {k: row[k] for k in keep if k in row})
            if rows:
                frames.append(pd.DataFrame(rows))
    if errors:
        raise ValidationFailed(errors)
    if not frames:
        raise RecordFileError(f"{path}: no item records found")
    frame = pd.concat(frames, ignore_index=True)
    bad = ~frame["score"].isin([0.0, 0.5, 1.0]) & frame["score"].notna()
    if bad.any():
        first = frame.index[bad][0]
        raise ValidationFailed(
            [RecordError(str(path), int(first) + 1, "score", f"{frame.loc[first, 'score']!r} is not 0, 0.5, 1 or null")]
        )
    return frame


