"""The leaderboard of per-item records: recomputed from the records only (``slmboard rank``)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd


def rank_records(data: str | Path, out: str | Path | None = None, n_bootstrap: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Recompute the leaderboard from per-item records; with ``out``, write leaderboard.parquet/.csv there."""
    from .arrow_schemas import leaderboard_arrow
    from .publishing.rebuild import leaderboard_with_totals, read_manifests, suite_totals
    from .reading import read_item_frame
    from .scoring.leaderboard import REQUIRED_COLUMNS

    # Only the columns the leaderboard uses: the text and nested generation columns dominate read time.
    items = read_item_frame(data, columns=list(REQUIRED_COLUMNS) + ["submission_id", "model_revision"])
    # A dataset folder's manifests know each suite's total (coverage of partial runs); a run folder's do not.
    totals = suite_totals(read_manifests(Path(data))) if Path(data).is_dir() else {}
    table = leaderboard_with_totals(items, totals, n_bootstrap=n_bootstrap, seed=seed)
    if out is not None:
        import pyarrow.parquet as pq

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        pq.write_table(leaderboard_arrow(table), out / "leaderboard.parquet")
        table.to_csv(out / "leaderboard.csv", index=False)
    return table
