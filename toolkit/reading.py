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

Three modules: :mod:`toolkit.reading_source` (which files DATA stands for, their rows as batches),
:mod:`toolkit.reading_scan` (one group's checks and matrices) and this one (the public reader; it
re-exports the names callers use).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from .errors import ValidationFailed
from .reading_scan import AMBIGUOUS, FAILED, HARMFUL, MISSING, SAFE, GroupScan, scan_frame, scan_group
from .reading_source import KEY_FIELDS, NEEDED, VALID_SCORES, ItemSource, parse_hub_id

__all__ = ["AMBIGUOUS", "FAILED", "HARMFUL", "MISSING", "SAFE", "KEY_FIELDS", "NEEDED", "VALID_SCORES", "GroupScan",
           "ItemGroup", "ItemSource", "iter_item_groups", "open_items", "parse_hub_id", "read_item_frame",
           "scan_frame", "scan_group"]


@dataclass(frozen=True)
class ItemGroup:
    """The records of one (suite, judge), checked; ``frame`` keeps source file order."""

    suite: str
    judge_id: str
    frame: pd.DataFrame


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
        order = np.concatenate([np.column_stack([np.full(len(b), source.position(b.file)), b.lines]) for b in batches])
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
