"""Prompt-level ambiguity rate vs the 12 metrics (paper 1 §3.3, Fig 5): Pearson r, p, BH q.

Each judge is analysed on its own: a prompt's AR mixes no two judges' labels.
Prompt-level AR = share of the models one judge scored 0.5 on that prompt (failed judgments are
left out of numerator and denominator). Output metrics enter as the mean over the models' replies
to the prompt. Benjamini–Hochberg (scipy.stats.false_discovery_control) runs over the metrics of
one scope of one judge (all the ternary suites that judge scored, pooled as in the paper, and each
suite alone); ``kept`` = q < 0.05.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from schemas import AMBIGUOUS_SCORE

from .metrics import ALL_METRICS, OUTPUT_METRICS, PROMPT_METRICS

Q_LEVEL = 0.05
MIN_PROMPTS = 5
COLUMNS = ["judge_id", "scope", "metric", "kind", "n_prompts", "pearson_r", "p_value", "q_value", "kept", "note"]


def prompt_level_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (suite, judge_id, item_id): AR over models, models scored, and the 12 metrics.

    ``rows`` = one row per scored (model, item, judge) with ``score`` and every metric column.
    """
    scored = rows[rows["score"].notna()]
    grouped = scored.groupby(["suite", "judge_id", "item_id"], sort=True)
    table = grouped.agg(n_models=("score", "size"), ar=("score", lambda s: float(np.mean(s == AMBIGUOUS_SCORE))))
    present = [m for m in PROMPT_METRICS if m in scored.columns]
    table = table.join(grouped[present].first())
    outputs = [m for m in OUTPUT_METRICS if m in scored.columns]
    table = table.join(grouped[outputs].mean())
    return table.reset_index()


def ar_correlations(prompt_table: pd.DataFrame, scope: str = "all suites", q_level: float = Q_LEVEL) -> pd.DataFrame:
    """Pearson r and p of prompt-level AR with each metric; BH q over the metrics that could be tested.

    ``prompt_table`` holds the prompts of one judge (its ``judge_id`` column has one value).
    """
    from scipy import stats

    judges = prompt_table["judge_id"].unique() if "judge_id" in prompt_table.columns else []
    if len(judges) > 1:
        raise ValueError(f"ar_correlations: one judge per call, got {sorted(map(str, judges))}: AR would mix their labels")
    judge_id = str(judges[0]) if len(judges) else ""
    out = []
    ar = prompt_table["ar"].to_numpy(dtype=np.float64)
    for metric in ALL_METRICS:
        kind = "prompt" if metric in PROMPT_METRICS else "output"
        row = {"judge_id": judge_id, "scope": scope, "metric": metric, "kind": kind, "n_prompts": 0, "pearson_r": np.nan, "p_value": np.nan,
               "q_value": np.nan, "kept": False, "note": ""}
        if metric not in prompt_table.columns:
            row["note"] = "metric not computed"
            out.append(row)
            continue
        x = prompt_table[metric].to_numpy(dtype=np.float64)
        ok = ~(np.isnan(x) | np.isnan(ar))
        row["n_prompts"] = int(ok.sum())
        if ok.sum() < MIN_PROMPTS:
            row["note"] = f"too few prompts with a value ({int(ok.sum())} < {MIN_PROMPTS})"
        elif np.ptp(x[ok]) == 0:
            row["note"] = "metric is constant over these prompts"
        elif np.ptp(ar[ok]) == 0:
            row["note"] = f"prompt-level AR is constant ({ar[ok][0]:.2f}) over these prompts"
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = stats.pearsonr(x[ok], ar[ok])
            row["pearson_r"], row["p_value"] = float(res.statistic), float(res.pvalue)
        out.append(row)
    table = pd.DataFrame(out, columns=COLUMNS)
    tested = table["p_value"].notna()
    if tested.any():
        table.loc[tested, "q_value"] = stats.false_discovery_control(table.loc[tested, "p_value"].to_numpy(), method="bh")
        table["kept"] = table["q_value"] < q_level
    table["kept"] = table["kept"].astype(bool)
    return table


def correlations_by_scope(prompt_table: pd.DataFrame, q_level: float = Q_LEVEL) -> pd.DataFrame:
    """Per judge: the ternary suites it scored pooled (the paper's Fig 5 scope), then each suite alone."""
    parts = []
    for _judge, of_judge in prompt_table.groupby("judge_id", sort=True):
        parts.append(ar_correlations(of_judge, "all suites", q_level))
        for suite, block in of_judge.groupby("suite", sort=True):
            parts.append(ar_correlations(block, f"suite:{suite}", q_level))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)
