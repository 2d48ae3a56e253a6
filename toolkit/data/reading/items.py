"""The item reader: checked per-item records one (suite, judge) group at a time, or as one table.

Checks on every path, each error naming the SOURCE file and line (for parquet, the 1-based row
number in that file; for records given from Python, the row), never a row of a combined table:

- the key fields (model_id, suite, judge_id, item_id) are present strings;
- ``score`` is 0, 0.5, 1 or null (a 0.7 or 1.5 is refused);
- a (model_id, suite, judge_id, item_id) appears once: a duplicate names both rows and the key.

Parquet is read row group by row group with the key columns dictionary-encoded; row-group
statistics tell which (suite, judge) a row group holds, so a group's scan skips the others.
The duplicate check and the leaderboard's label matrix share one items × models matrix per
group (:class:`~toolkit.data.reading.scan.GroupScan`), so memory follows the largest group's matrices,
not the row count.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from toolkit.core.errors import ValidationFailed
from .dataset import open_data
from .scan import scan_group
from .source import NEEDED, ItemSource


@dataclass(frozen=True)
class ItemGroup:
    """The records of one (suite, judge), checked; ``frame`` keeps source file order."""

    suite: str
    judge_id: str
    frame: pd.DataFrame


def open_items(data, suites: Iterable[str] | None = None, judges: Iterable[str] | None = None) -> ItemSource:
    """DATA's item records planned once (files resolved, groups listed); pass it to the functions below."""
    if isinstance(data, ItemSource):
        return data
    suites, judges = list(suites or []) or None, list(judges or []) or None
    return open_data(data, suites=suites).items(suites, judges)


def group_frame(source: ItemSource, batches) -> tuple[pd.DataFrame, np.ndarray]:
    """One group's checked batches as a frame, and the (file position in DATA, line) of each row."""
    frames = [b.to_pandas() for b in batches]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    order = np.concatenate([np.column_stack([np.full(len(b), source.position(b.file)), b.lines]) for b in batches])
    return frame, order


def _groups(source: ItemSource, columns, suites=None, judges=None) -> Iterator[tuple[ItemGroup, np.ndarray]]:
    suites, judges = set(suites or ()), set(judges or ())
    for suite, judge in source.groups():
        if (suites and suite not in suites) or (judges and judge not in judges):
            continue
        _, batches = scan_group(source, suite, judge, columns, keep=True)
        frame, order = group_frame(source, batches)
        yield ItemGroup(suite, judge, frame), order


def iter_item_groups(data, columns: Sequence[str] | None = None, suites: Iterable[str] | None = None,
                     judges: Iterable[str] | None = None) -> Iterator[ItemGroup]:
    """Checked records one (suite, judge) at a time, sorted by (suite, judge); only ``columns`` (the
    key columns and score always) when given; ``suites``/``judges`` restrict what is read."""
    for group, _ in _groups(open_items(data, suites, judges), columns, suites, judges):
        yield group


def read_item_frame(data, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Every checked record as one DataFrame, rows in source order (file by file, line by line).

    ``columns`` (optional) keeps only those columns (the key ones and score always): parquet files then
    read only them. Only judged records: response files and shared tables inside folders are skipped.
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
    if not frames:
        return pd.DataFrame(columns=list(dict.fromkeys([*NEEDED, *(columns or [])])))
    if len(frames) == 1:
        return frames[0]
    keys = np.concatenate(orders)
    frame = pd.concat(frames, ignore_index=True)
    return frame.iloc[np.lexsort((keys[:, 1], keys[:, 0]))].reset_index(drop=True)
