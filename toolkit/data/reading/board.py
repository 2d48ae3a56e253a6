"""The one leaderboard flow: DATA → checked records, one (suite, judge) group at a time → ranked rows.

``rank``, ``submit``/``recompute`` (the dataset's shared files), the exports, ``analyze`` and the
Space's published table all come from :func:`leaderboard` (or, for a consumer that also needs each
group's records, :func:`leaderboard_groups`, the same flow), so every column is the same however the
data is named: ``coverage`` uses the suite totals the dataset's manifests record, whether the
dataset is a folder, a Hub id or what an export reads. The leaderboard file is written atomically.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import pandas as pd

from toolkit.core.defaults import N_BOOTSTRAP
from toolkit.core.errors import ValidationFailed
from toolkit.data.scoring.leaderboard import assemble_leaderboard, rank_group
from .dataset import open_data
from .items import group_frame
from .scan import scan_group
from .source import EXTRAS, NEEDED

#: What the leaderboard reads: the key columns, the score and the provenance it carries.
INPUT_COLUMNS = [*NEEDED, *EXTRAS, "judge_status"]  # judge_status: a panel's no_decision is not a failure


@dataclass(frozen=True)
class GroupBoard:
    """One (suite, judge): its leaderboard rows (sorted as in the whole table) and, when asked, its records."""

    suite: str
    judge_id: str
    rows: pd.DataFrame
    records: pd.DataFrame | None = None


def leaderboard_groups(data, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0, suite_totals: Mapping[str, int] | None = None,
                       suites: Sequence[str] | None = None, judges: Sequence[str] | None = None,
                       records: bool | Sequence[str] = False) -> Iterator[GroupBoard]:
    """Each (suite, judge) group of DATA checked and ranked, in (suite, judge) order; memory follows one
    group. ``records``: also the group's records (True: every column; a list: those and the key ones).
    ``suite_totals`` (items per suite, for ``coverage``): by default what the dataset's manifests record.
    A bad group stops the ranking; the remaining groups are still checked, and every problem is raised
    at once. A group of a judge on a suite it does not fit (as the manifests record) is left out:
    :meth:`Dataset.left_out` says which, one line each."""
    dataset = open_data(data, suites=suites)
    source = dataset.items(suites, judges)
    totals = suite_totals if suite_totals is not None else (dataset.suite_totals() or None)
    columns = INPUT_COLUMNS if records is False else (None if records is True else [*INPUT_COLUMNS, *records])
    errors = []
    for suite, judge in source.groups():
        if not dataset.fitness.fits(suite, judge):
            continue  # a judge on a suite it cannot judge: left out, said by Dataset.left_out
        try:
            scan, batches = scan_group(source, suite, judge, columns, keep=records is not False)
        except ValidationFailed as exc:  # keep checking the other groups: report every problem at once
            errors += exc.errors
            continue
        if errors:
            continue
        codes, models = scan.matrix()  # items × rows, a row = a model at a revision, sorted by (model, revision)
        extras = scan.extras_for()
        extras["model_revision"] = scan.row_revisions()  # the row's own revision (the key, not a first row's value)
        rows = rank_group(suite, judge, codes, models, extras, n_bootstrap, seed, (totals or {}).get(suite))
        del scan, codes
        yield GroupBoard(suite, judge, assemble_leaderboard([rows]),
                         group_frame(source, batches)[0] if batches else None)
    if errors:
        raise ValidationFailed(errors)


def leaderboard(data, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0, suite_totals: Mapping[str, int] | None = None,
                suites: Sequence[str] | None = None, judges: Sequence[str] | None = None) -> pd.DataFrame:
    """The leaderboard of DATA (anything :func:`~toolkit.data.reading.open_data` takes, records given from
    Python included): one row per (suite, judge_id, model_id) with the columns of
    :class:`schemas.LeaderboardRow`, ranked within (suite, judge_id); ``n_bootstrap=0`` skips the
    intervals. Scores other than 0/0.5/1/null and duplicated records are refused (ValidationFailed
    naming the file and row). ``table.attrs["left_out"]``: one line per (suite, judge) group left out
    (a judge on a suite it does not fit)."""
    from toolkit.core import dataset_layout as layout

    dataset = open_data(data, suites=suites)
    groups = leaderboard_groups(dataset, n_bootstrap, seed, suite_totals, suites, judges)
    table = assemble_leaderboard([g.rows for g in groups])
    table.attrs["left_out"] = dataset.left_out(suites, judges)  # one line per (suite, judge) left out
    #: a board made by `slmboard create` that no one has submitted to yet (the commands say so in one line)
    table.attrs["no_submissions_yet"] = bool(table.empty and dataset.root is not None
                                             and dataset.file(layout.BOARD_FILE) is not None and not dataset.manifests)
    return table


def published_leaderboard(data, columns: Sequence[str] | None = None) -> pd.DataFrame | None:
    """The leaderboard file a dataset publishes (what :func:`leaderboard` computed when it was last
    submitted or recomputed); None when it holds none. A file that does not read raises."""
    from toolkit.core import dataset_layout as layout
    path = open_data(data).file(layout.LEADERBOARD_FILE)
    return None if path is None else pd.read_parquet(path, columns=list(columns) if columns else None)


def leaderboard_parquet(table: pd.DataFrame) -> bytes:
    """The leaderboard file's bytes (the arrow schema derived from :class:`schemas.LeaderboardRow`)."""
    import pyarrow.parquet as pq

    from toolkit.core.arrow_schemas import leaderboard_arrow

    sink = io.BytesIO()
    pq.write_table(leaderboard_arrow(table), sink)
    return sink.getvalue()


def write_leaderboard(table: pd.DataFrame, out: str | Path) -> tuple[Path, Path]:
    """``rank --out``: OUT/leaderboard.parquet and OUT/leaderboard.csv, each written atomically (a reader
    sees the old file or the new one, never half of one)."""
    from toolkit.core.records_io import atomic_write_bytes, atomic_write_text

    parquet, csv = Path(out) / "leaderboard.parquet", Path(out) / "leaderboard.csv"
    atomic_write_bytes(parquet, leaderboard_parquet(table))
    atomic_write_text(csv, table.to_csv(index=False))
    return parquet, csv
