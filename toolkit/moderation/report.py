"""The moderator reliability table: one row per (moderator, benchmark) plus benchmark "pooled".

Items without a decision (parse failures) are left out of every metric and counted separately
(:func:`parse_failures`), never silently scored. Confidence metrics use ``p_flag_logprob``; a
moderator without it (an API that hides logprobs) gets empty confidence columns.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import metrics as M
from .calibration import temperature_scaling

POOLED = "pooled"

#: The columns of moderators.csv, in order (issue 6).
REPORT_COLUMNS = [
    "moderator_id", "benchmark", "n", "accuracy", "macro_f1", "far", "miss", "error_direction",
    "ece", "ece_flag", "ece_noflag", "brier", "temperature", "ece_scaled", "aurc", "risk_at_50",
    "risk_at_50_random",
    "far_lo", "far_hi", "miss_lo", "miss_hi", "macro_f1_lo", "macro_f1_hi", "ece_lo", "ece_hi",
]


def moderator_key(frame: pd.DataFrame) -> pd.Series:
    """The moderator a row belongs to: its id, plus ``@variant`` for non-default prompt variants
    (a paraphrased or swapped prompt is a different measurement of the same model)."""
    variant = frame["prompt_variant"].fillna("default")
    return frame["moderator_id"].where(variant == "default", frame["moderator_id"] + "@" + variant)


def _arrays(frame: pd.DataFrame):
    y = (frame["gold"] == "flag").to_numpy()
    d = (frame["decision"] == "flag").to_numpy()
    p = frame["p_flag_logprob"].to_numpy(dtype=float)
    return y, d, p


def _row(moderator: str, benchmark: str, frame: pd.DataFrame, n_bootstrap: int, seed: int) -> dict:
    y, d, p = _arrays(frame)
    row = {"moderator_id": moderator, "benchmark": benchmark}
    row.update(M.decision_metrics(y, d))
    has_p = frame["p_flag_logprob"].notna().all() and len(frame) > 0
    if has_p:
        row.update(M.confidence_metrics(y, p))
    row.update(M.bootstrap_bounds(y, d, p if has_p else None, n_resamples=n_bootstrap, seed=seed))
    return row


def compute_report(
    frame: pd.DataFrame, n_bootstrap: int = 2000, seed: int = 0, n_splits: int = 20
) -> pd.DataFrame:
    """moderators.csv as a frame (REPORT_COLUMNS), sorted by moderator then benchmark (pooled last)."""
    frame = frame[frame["decision"].notna()].copy()
    frame["moderator"] = moderator_key(frame)
    rows = []
    for moderator, mframe in frame.groupby("moderator", sort=True):
        has_p = mframe["p_flag_logprob"].notna().all()
        scaling = None
        if has_p:
            y, _, p = _arrays(mframe)
            # One temperature per moderator, fitted on its pooled items (paper §4).
            scaling = temperature_scaling(y, p, groups=mframe["benchmark"].to_numpy(), n_splits=n_splits, seed=seed)
        parts = [(b, g) for b, g in mframe.groupby("benchmark", sort=True)] + [(POOLED, mframe)]
        for benchmark, part in parts:
            row = _row(moderator, benchmark, part, n_bootstrap, seed)
            if scaling is not None:
                row["temperature"] = scaling.temperature
                row["ece_scaled"] = (scaling.ece_scaled if benchmark == POOLED
                                     else scaling.ece_scaled_by_group.get(benchmark, math.nan))
            rows.append(row)
    table = pd.DataFrame(rows)
    for col in REPORT_COLUMNS:
        if col not in table:
            table[col] = math.nan
    return table[REPORT_COLUMNS].reset_index(drop=True)


def parse_failures(frame: pd.DataFrame) -> pd.DataFrame:
    """Per moderator: records, records without a decision, records without a verbalized confidence."""
    f = frame.assign(moderator=moderator_key(frame))
    out = f.groupby("moderator").agg(
        n_records=("item_id", "size"),
        no_decision=("decision", lambda s: int(s.isna().sum())),
        no_logprob=("p_flag_logprob", lambda s: int(s.isna().sum())),
        no_verbal_confidence=("confidence_verbal", lambda s: int(s.isna().sum())),
    )
    return out.reset_index().rename(columns={"moderator": "moderator_id"})


def verbal_ece(frame: pd.DataFrame) -> pd.DataFrame:
    """ECE of the verbalized confidence (rescaled 1-10 -> [0, 1]) of the decided option, pooled per moderator."""
    f = frame[frame["decision"].notna() & frame["confidence_verbal"].notna()]
    f = f.assign(moderator=moderator_key(f))
    rows = []
    for moderator, g in f.groupby("moderator"):
        correct = (g["decision"] == g["gold"]).to_numpy()
        rows.append({"moderator_id": moderator, "n": len(g),
                     "ece_verbal": M.ece(g["confidence_verbal"].to_numpy(dtype=float), correct)})
    return pd.DataFrame(rows, columns=["moderator_id", "n", "ece_verbal"])


def ranking(table: pd.DataFrame) -> pd.DataFrame:
    """Pooled rows ranked by macro-F1 (best first): the leaderboard of moderators."""
    pooled = table[table["benchmark"] == POOLED].sort_values("macro_f1", ascending=False, kind="stable")
    pooled = pooled.reset_index(drop=True)
    pooled.insert(0, "rank", np.arange(1, len(pooled) + 1))
    return pooled
