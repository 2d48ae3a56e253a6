"""The leaderboard, recomputed from per-item records only (never from submitted aggregates).

Two entry points share one computation per (suite, judge) group: :func:`compute_leaderboard`
for a DataFrame given from Python, :func:`leaderboard_from` for DATA (a file, run folder(s),
dataset folder or Hub id) read group by group through :mod:`toolkit.reading`, so memory follows
the largest group's items × models matrix, never the number of rows.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from schemas import POLICIES, LeaderboardRow
from schemas.leaderboard import INT_COLUMNS

from .bootstrap import AMBIGUOUS, HARMFUL, MISSING, N_BOOTSTRAP, SAFE, paired_bootstrap, rank_upper_bound
from .ranks import competition_rank, rank_range
from .ternary import rates

KEY = ["suite", "judge_id", "model_id"]
REQUIRED_COLUMNS = ("suite", "judge_id", "model_id", "item_id", "score")
#: What the leaderboard reads: the required columns and the provenance it carries.
INPUT_COLUMNS = [*REQUIRED_COLUMNS, "submission_id", "model_revision"]
LEADERBOARD_COLUMNS = list(LeaderboardRow.model_fields)
_INT_COLUMNS = list(INT_COLUMNS)


def compute_leaderboard(records: pd.DataFrame, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0,
                        suite_totals: Mapping[str, int] | None = None) -> pd.DataFrame:
    """One row per (suite, judge_id, model_id) with the columns of :class:`schemas.LeaderboardRow`.

    ``records`` needs columns suite, judge_id, model_id, item_id, score (NaN/None = judge failed);
    scores other than 0/0.5/1/null and duplicated (model, suite, judge, item) records are refused
    (ValidationFailed naming the row). Ranks are computed within (suite, judge_id);
    ``n_bootstrap=0`` skips the intervals. ``suite_totals`` (items per suite) gives ``coverage``.
    """
    from ..reading import scan_frame

    missing = [c for c in REQUIRED_COLUMNS if c not in records.columns]
    if missing:
        raise ValueError(f"records lack required column(s): {', '.join(missing)}")
    if records.empty:
        return _empty()
    groups = [_rank_scan(scan, n_bootstrap, seed, suite_totals) for scan in scan_frame(records)]
    return _assemble(groups)


def leaderboard_from(data, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0, suite_totals: Mapping[str, int] | None = None,
                     suites=None, judges=None) -> pd.DataFrame:
    """The leaderboard of DATA, read and ranked one (suite, judge) group at a time (bounded memory)."""
    from ..reading import open_items, scan_group

    from ..errors import ValidationFailed

    source = open_items(data, suites=suites, judges=judges)
    groups, errors = [], []
    for suite, judge in source.groups():
        try:
            scan, _ = scan_group(source, suite, judge, INPUT_COLUMNS)
        except ValidationFailed as exc:  # keep checking the other groups: report every problem at once
            errors += exc.errors
            continue
        if not errors:
            groups.append(_rank_scan(scan, n_bootstrap, seed, suite_totals))
        del scan
    if errors:
        raise ValidationFailed(errors)
    return _assemble(groups)


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in LEADERBOARD_COLUMNS})


def _assemble(groups: list[pd.DataFrame]) -> pd.DataFrame:
    if not groups:
        return _empty()
    table = pd.concat(groups, ignore_index=True)
    for col in LEADERBOARD_COLUMNS:
        if col not in table.columns:
            table[col] = None
    table = table[LEADERBOARD_COLUMNS]
    for col in _INT_COLUMNS:
        table[col] = table[col].astype("Int64")
    return table.sort_values(["suite", "judge_id", "rank_raw", "model_id"], na_position="last", ignore_index=True)


def _rank_scan(scan, n_bootstrap: int, seed: int, suite_totals: Mapping[str, int] | None) -> pd.DataFrame:
    codes, models = scan.matrix()  # items × models, models sorted by name
    extras = scan.extras_for(models)
    total = (suite_totals or {}).get(scan.suite)
    return rank_group(scan.suite, scan.judge_id, codes, models, extras, n_bootstrap, seed, total)


def rank_group(suite: str, judge_id: str, codes: np.ndarray, models: np.ndarray, extras: Mapping[str, list],
               n_bootstrap: int, seed: int, suite_total: int | None = None) -> pd.DataFrame:
    """The leaderboard rows of one (suite, judge) from its items × models label-code matrix."""
    n0, n05, n1 = ((codes == k).sum(axis=0) for k in (HARMFUL, AMBIGUOUS, SAFE))
    n_items = (codes != MISSING).sum(axis=0)
    n_scored = (n0 + n05 + n1).astype(int)
    out = pd.DataFrame({"suite": suite, "judge_id": judge_id, "model_id": models})
    out["n_items"] = n_items
    out["n_scored"] = n_scored
    out["n_failed"] = n_items - n_scored
    out["coverage"] = n_items / suite_total if suite_total else None
    values = rates(n0, n05, n1)
    for name, arr in values.items():
        out[name] = arr
    out["rank_raw"] = competition_rank(values["s_raw"])
    out["rank_adj"] = competition_rank(values["s_adj"])
    policy_ranks = np.column_stack([competition_rank(values[f"score_{p}"]) for p in POLICIES])
    for i, p in enumerate(POLICIES):
        out[f"rank_{p}"] = policy_ranks[:, i]
    out["delta_adj"] = out["rank_raw"] - out["rank_adj"]
    out["rank_range"] = rank_range(policy_ranks)
    if n_bootstrap > 0:
        _add_intervals(out, codes, n_bootstrap, seed)
    for col, values_ in extras.items():
        out[col] = values_
    return out


def _add_intervals(out: pd.DataFrame, codes: np.ndarray, n_bootstrap: int, seed: int) -> None:
    result = paired_bootstrap(codes, n_resamples=n_bootstrap, seed=seed, rank_metrics=("s_adj",))
    for metric in ("s_raw", "s_adj") + tuple(f"score_{p}" for p in POLICIES):
        out[f"{metric}_lo"] = result.lo[metric]
        out[f"{metric}_hi"] = result.hi[metric]
    out["rank_lo"] = result.rank_lo
    out["rank_hi"] = result.rank_hi
    out["rank_ub"] = rank_upper_bound(result.lo["s_raw"], result.hi["s_raw"])
    out["rank_adj_lo"], out["rank_adj_hi"] = result.rank_bounds["s_adj"]


def leaderboard_rows(table: pd.DataFrame) -> list[LeaderboardRow]:
    """Validate a leaderboard table against the schema (used by tests and before publishing)."""
    clean = table.astype(object).where(table.notna(), None)
    return [LeaderboardRow.model_validate(r) for r in clean.to_dict(orient="records")]
