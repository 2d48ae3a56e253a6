"""Model metadata vs ambiguity rate and mean score (paper 1 Table 4), read from submission manifests.

The 13 features, in Table 4's order, and how each is read from a :class:`schemas.Submission`:
instruction_tuned, n_heads, hidden_size, rmsnorm, gqa, params, context_length, silu, swiglu,
chat_tuned, rope, n_layers, vocab_size. Binary features are 1 when the manifest says true and 0
otherwise — a property Table A2 does not report counts as absent, which is how a feature table
built from reported architectures reads; ``gqa`` is also 1 when n_kv_heads < n_heads. A numeric
feature that a manifest leaves null drops that model from that feature's correlation only.

Per (model, judge): AR and mean score (S_raw) = the mean over the ternary suites the model has from
that judge, each suite weighing the same (a SALAD-sized suite must not drown SST) — from a
leaderboard table. Judges are never pooled (as everywhere in ``analyze``): each judge gets its own
13 correlation rows, with a ``judge_id`` column.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.core.errors import RecordError, ValidationFailed

FEATURES: tuple[tuple[str, str], ...] = (
    ("instruction_tuned", "Instruction-tuned checkpoint"),
    ("n_heads", "Attention head count"),
    ("hidden_size", "Internal representation width"),
    ("rmsnorm", "RMS-based normalization"),
    ("gqa", "Grouped-query attention"),
    ("params", "Total model size"),
    ("context_length", "Maximum context length"),
    ("silu", "Smooth nonlinear activation"),
    ("swiglu", "Gated feed-forward activation"),
    ("chat_tuned", "Chat-tuned checkpoint indicator"),
    ("rope", "Rotary position encoding"),
    ("n_layers", "Transformer layer count"),
    ("vocab_size", "Tokenizer vocabulary size"),
)
BINARY = {"instruction_tuned", "rmsnorm", "gqa", "silu", "swiglu", "chat_tuned", "rope"}
MIN_MODELS = 4
COLUMNS = ["judge_id", "feature", "description", "n_models", "r_ar", "p_ar", "r_score", "p_score", "note"]


def read_manifests(folder: str | Path) -> pd.DataFrame:
    """One row per manifest (*.json) in ``folder``: model_id + the 13 features. Bad files are all reported."""
    from toolkit.data.reading import read_manifest_files

    folder = Path(folder)
    files = sorted(folder.glob("*.json"))
    if not files:
        raise ValidationFailed([RecordError(str(folder), None, None, "no submission manifests (*.json) here")])
    rows = [features_of(sub) for sub in read_manifest_files([(f, str(f)) for f in files])]
    return pd.DataFrame(rows)


def features_of(sub) -> dict:
    arch = sub.architecture
    gqa = bool(arch.gqa) or (arch.n_kv_heads is not None and arch.n_heads is not None and arch.n_kv_heads < arch.n_heads)
    return {
        "model_id": sub.model_id,
        "display_name": getattr(sub, "display_name", None) or sub.model_id,
        "instruction_tuned": float(bool(sub.instruction_tuned)),
        "n_heads": arch.n_heads,
        "hidden_size": arch.hidden_size,
        "rmsnorm": float(bool(arch.rmsnorm)),
        "gqa": float(gqa),
        "params": sub.params,
        "context_length": sub.context_length,
        "silu": float(bool(arch.silu)),
        "swiglu": float(bool(arch.swiglu)),
        "chat_tuned": float(bool(sub.chat_tuned)),
        "rope": float(bool(arch.rope)),
        "n_layers": arch.n_layers,
        "vocab_size": arch.vocab_size,
    }


def model_outcomes(board: pd.DataFrame) -> pd.DataFrame:
    """Per (model, judge): mean over the model's suites from that judge (each weighing the same) of
    AR and S_raw, and the suite count. A board row is one (model, suite, judge)."""
    b = board[board["ar"].notna()]
    return (b.groupby(["model_id", "judge_id"], sort=True)
             .agg(ar=("ar", "mean"), score=("s_raw", "mean"), n_suites=("suite", "nunique")).reset_index())


def metadata_correlations(features: pd.DataFrame, outcomes: pd.DataFrame) -> pd.DataFrame:
    """Pearson r, p of each feature with per-model AR and mean score (models in both tables), one
    block of rows per judge of ``outcomes`` (see :func:`model_outcomes`)."""
    rows = []
    for judge, block in outcomes.groupby("judge_id", sort=True):
        joined = features.merge(block, on="model_id", how="inner")
        rows += [{"judge_id": judge, **row} for row in _feature_rows(joined)]
    return pd.DataFrame(rows, columns=COLUMNS)


def _feature_rows(joined: pd.DataFrame) -> list[dict]:
    """The 13 correlation rows of one judge's (features + outcomes) table."""
    from scipy import stats

    rows = []
    for feature, description in FEATURES:
        x = joined[feature].to_numpy(dtype=np.float64, na_value=np.nan)
        ok = ~np.isnan(x)
        row = {"feature": feature, "description": description, "n_models": int(ok.sum()), "r_ar": np.nan, "p_ar": np.nan,
               "r_score": np.nan, "p_score": np.nan, "note": ""}
        if ok.sum() < MIN_MODELS:
            row["note"] = f"too few models with this feature and outcomes ({int(ok.sum())} < {MIN_MODELS})"
        elif np.ptp(x[ok]) == 0:
            row["note"] = f"feature is constant ({x[ok][0]:g}) over these models"
        else:
            for outcome, r_key, p_key in (("ar", "r_ar", "p_ar"), ("score", "r_score", "p_score")):
                y = joined[outcome].to_numpy(dtype=np.float64)
                if np.ptp(y[ok]) == 0:
                    row["note"] = f"{outcome} is constant over these models"
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = stats.pearsonr(x[ok], y[ok])
                row[r_key], row[p_key] = float(res.statistic), float(res.pvalue)
        rows.append(row)
    return rows
