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
    score = pd.to_numeric(records["score"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    # Integer codes for every key column, once: grouping and pivoting then work on int arrays
    # (a pandas groupby over string columns dominated the run time at a million rows).
    suite_code, suites = pd.factorize(records["suite"], sort=True)
    judge_code, judges = pd.factorize(records["judge_id"], sort=True)
    model_code, model_names = pd.factorize(records["model_id"], sort=True)
    item_code, _ = pd.factorize(records["item_id"], sort=False)
    extras = {c: records[c].to_numpy(dtype=object) for c in ("submission_id", "model_revision") if c in records.columns}
    group = suite_code.astype(np.int64) * len(judges) + judge_code
    order = np.argsort(group, kind="stable")
    bounds = np.flatnonzero(np.diff(group[order])) + 1
    groups = []
    for rows in np.split(order, bounds):
        g = int(group[rows[0]])
        suite, judge_id = suites[g // len(judges)], judges[g % len(judges)]
        block = _Block(model_code[rows], item_code[rows], score[rows], {c: v[rows] for c, v in extras.items()})
        groups.append(_rank_group(suite, judge_id, block, np.asarray(model_names), n_bootstrap, seed))
    table = pd.concat(groups, ignore_index=True)
    for col in LEADERBOARD_COLUMNS:
        if col not in table.columns:
            table[col] = None
    table = table[LEADERBOARD_COLUMNS]
    for col in _INT_COLUMNS:
        table[col] = table[col].astype("Int64")
    return table.sort_values(["suite", "judge_id", "rank_raw", "model_id"], na_position="last", ignore_index=True)


class _Block:
    """The rows of one (suite, judge): model and item codes, scores, optional provenance columns."""

    def __init__(self, model: np.ndarray, item: np.ndarray, score: np.ndarray, extras: dict[str, np.ndarray]):
        self.model, self.item, self.score, self.extras = model, item, score, extras


def _rank_group(suite: str, judge_id: str, block: _Block, model_names: np.ndarray, n_bootstrap: int, seed: int) -> pd.DataFrame:
    present_models, m = np.unique(block.model, return_inverse=True)
    models = model_names[present_models]  # sorted, since factorize(sort=True) codes follow name order
    scores = block.score
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
        _add_intervals(out, block, m, len(models), n_bootstrap, seed)
    for col, values_ in block.extras.items():
        first = np.unique(m, return_index=True)[1]
        out[col] = values_[first]
    return out


def _add_intervals(out: pd.DataFrame, block: _Block, m: np.ndarray, n_models: int, n_bootstrap: int, seed: int) -> None:
    # Items × models matrix of label codes built by integer indexing (no pivot). The first record of
    # a (model, item) pair wins; +inf marks a model without a record for that item.
    _, item_idx = np.unique(block.item, return_inverse=True)
    n_items = int(item_idx.max()) + 1
    scores = np.full((n_items, n_models), np.inf)
    cell = item_idx.astype(np.int64) * n_models + m
    _, first = np.unique(cell, return_index=True)
    scores.ravel()[cell[first]] = block.score[first]
    result = paired_bootstrap(codes_from_scores(scores), n_resamples=n_bootstrap, seed=seed, rank_metrics=("s_adj",))
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
