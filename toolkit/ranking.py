"""The leaderboard of per-item records: recomputed from the records only (``slmboard rank``)."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from .scoring.bootstrap import N_BOOTSTRAP


def rank_records(
    data: str | Path | Sequence[str | Path],
    out: str | Path | None = None,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
    suite_totals: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """Recompute the leaderboard from per-item records, one (suite, judge) group at a time (memory follows
    the largest group, not the number of records); with ``out``, write leaderboard.parquet/.csv there."""
    from .arrow_schemas import leaderboard_arrow
    from .publishing.rebuild import read_manifests
    from .publishing.rebuild import suite_totals as manifest_totals
    from .scoring.leaderboard import leaderboard_from

    if suite_totals is None and isinstance(data, (str, Path)) and Path(data).is_dir():
        # A dataset folder's manifests know each suite's total (coverage of partial runs); a run folder's do not.
        suite_totals = manifest_totals(read_manifests(Path(data))) or None
    table = leaderboard_from(data, n_bootstrap=n_bootstrap, seed=seed, suite_totals=suite_totals)
    if out is not None:
        import pyarrow.parquet as pq

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        pq.write_table(leaderboard_arrow(table), out / "leaderboard.parquet")
        table.to_csv(out / "leaderboard.csv", index=False)
    return table
