"""The leaderboard, recomputed from per-item records only (never from submitted aggregates)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from schemas import POLICIES, LeaderboardRow

from .bootstrap import codes_from_scores, paired_bootstrap, rank_upper_bound
from .ranks import competition_rank, rank_range
from .ternary import rates

KEY = ["suite", "judge_id", "model_id"]
REQUIRED_COLUMNS = ("suite", "judge_id", "model_id", "item_id", "score")
LEADERBOARD_COLUMNS = list(LeaderboardRow.model_fields)
_INT_COLUMNS = [
    c
    for c, f in LeaderboardRow.model_fields.items()
    if c.startswith("rank") or c.startswith("n_") or c == "delta_adj"
]


def compute_leaderboard(records: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0) -> pd.DataFrame:
    """One row per (suite, judge_id, model_id) with the columns of :class:`schemas.LeaderboardRow`.

    ``records`` needs columns suite, judge_id, model_id, item_id, score (NaN/None = judge failed).
    Ranks are computed within (suite, judge_id); ``n_bootstrap=0`` skips the intervals.
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in records.columns]
    if missing:
        raise ValueError(f"records lack required column(s): {', '.join(missing)}")
    if records.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in LEADERBOARD_COLUMNS})
    frame = records[list(REQUIRED_COLUMNS) + [c for c in ("submission_id", "model_revision") if c in records.columns]].copy()
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce").astype("float64")
    groups = []
    for (suite, judge_id), block in frame.groupby(["suite", "judge_id"], sort=True, observed=True):
        groups.append(_rank_group(suite, judge_id, block, n_bootstrap, seed))
    table = pd.concat(groups, ignore_index=True)
    for col in LEADERBOARD_COLUMNS:
        if col not in table.columns:
            table[col] = None
    table = table[LEADERBOARD_COLUMNS]
    for col in _INT_COLUMNS:
        table[col] = table[col].astype("Int64")
    return table.sort_values(["suite", "judge_id", "rank_raw", "model_id"], na_position="last", ignore_index=True)


def _rank_group(suite: str, judge_id: str, block: pd.DataFrame, n_bootstrap: int, seed: int) -> pd.DataFrame:
    models = np.array(sorted(block["model_id"].unique()))
    model_idx = pd.Index(models)
    scores = block["score"].to_numpy()
    m = model_idx.get_indexer(block["model_id"])
    n0 = np.bincount(m, weights=(scores == 0.0), minlength=len(models))
    n05 = np.bincount(m, weights=(scores == 0.5), minlength=len(models))
    n1 = np.bincount(m, weights=(scores == 1.0), minlength=len(models))
    n_items = np.bincount(m, minlength=len(models))
    n_scored = (n0 + n05 + n1).astype(int)
    out = pd.DataFrame({"suite": suite, "judge_id": judge_id, "model_id": models})
    out["n_items"] = n_items
    out["n_scored"] = n_scored
    out["n_failed"] = n_items - n_scored
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
        _add_intervals(out, block, models, n_bootstrap, seed)
    for col in ("submission_id", "model_revision"):
        if col in block.columns:
            first = block.drop_duplicates("model_id").set_index("model_id")[col]
            out[col] = out["model_id"].map(first)
    return out


def _add_intervals(out: pd.DataFrame, block: pd.DataFrame, models: np.ndarray, n_bootstrap: int, seed: int) -> None:
    # Items × models matrix of scores: NaN = failed, +inf = the model has no record for that item.
    matrix = block.pivot_table(index="item_id", columns="model_id", values="score", aggfunc="first", dropna=False)
    matrix = matrix.reindex(columns=models)
    present = block.assign(_one=1).pivot_table(index="item_id", columns="model_id", values="_one", aggfunc="sum")
    present = present.reindex(index=matrix.index, columns=models).fillna(0).to_numpy() > 0
    scores = np.where(present, matrix.to_numpy(dtype=np.float64), np.inf)
    result = paired_bootstrap(codes_from_scores(scores), n_resamples=n_bootstrap, seed=seed)
    for metric in ("s_raw", "s_adj"):
        out[f"{metric}_lo"] = result.lo[metric]
        out[f"{metric}_hi"] = result.hi[metric]
    out["rank_lo"] = result.rank_lo
    out["rank_hi"] = result.rank_hi
    out["rank_ub"] = rank_upper_bound(result.lo["s_raw"], result.hi["s_raw"])


def leaderboard_rows(table: pd.DataFrame) -> list[LeaderboardRow]:
    """Validate a leaderboard table against the schema (used by tests and before publishing)."""
    clean = table.astype(object).where(table.notna(), None)
    return [LeaderboardRow.model_validate(r) for r in clean.to_dict(orient="records")]
