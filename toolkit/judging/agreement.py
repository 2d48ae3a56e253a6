"""Judge agreement (paper 1, Tables 5-6): how two judges' ternary labels on the same items compare.

Items are paired by (model_id, suite, item_id); only pairs where both judges produced a score
count (failed judgments are left out, and their number shows in the CSV). Per suite:

* ``confusion`` -- 3x3 counts, rows judge A = 0 / 0.5 / 1, columns judge B = 0 / 0.5 / 1;
* ``exact_agreement`` -- share of pairs on the diagonal;
* ``kappa_linear`` -- linearly weighted Cohen's kappa (scikit-learn), null when undefined
  (e.g. both judges gave one single label);
* ``boundary_rate`` -- share of pairs where one judge says 0.5 and the other 0 or 1;
* ``contradiction_rate`` -- share of pairs where one says 0 and the other 1;
* ``ar_a`` / ``ar_b`` -- each judge's ambiguity rate (share of 0.5) on the paired items;
* ``mean_rank_range_a`` / ``_b`` -- mean over models of the rank range across ambiguity
  treatments (toolkit.scoring.compute_leaderboard's ``rank_range``), from each judge's labels on
  the paired items; null with a single model.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from schemas import TERNARY_SCORES

from ..errors import BadOption
from ..naming import resolve_judge_name

__all__ = ["agreement_by_suite", "write_agreement", "resolve_judge_id", "AGREEMENT_FIELDS"]

LEVELS = TERNARY_SCORES  # 0, 0.5, 1 (sorted: searchsorted indexes them)
AGREEMENT_FIELDS = (
    "n", "confusion", "exact_agreement", "kappa_linear", "boundary_rate", "contradiction_rate",
    "ar_a", "ar_b", "mean_rank_range_a", "mean_rank_range_b",
)


def resolve_judge_id(frame: pd.DataFrame, name: str) -> str:
    """A judge id present in the data, given exactly, as its folder slug ('openai-gpt-4o') or as the name it
    was run with ('heuristic' for 'heuristic-v1')."""
    ids = sorted(frame["judge_id"].dropna().unique())
    found = resolve_judge_name(name, ids)
    if found is None:
        raise ValueError(f"judge {name!r} not found in the data; judges present: {', '.join(ids) or 'none'}")
    return found


def _rate(mask: np.ndarray, n: int) -> float | None:
    return float(mask.sum()) / n if n else None


def _mean_rank_range(pairs: pd.DataFrame, score_col: str) -> float | None:
    from ..scoring import compute_leaderboard

    if pairs["model_id"].nunique() < 2:
        return None
    recs = pairs[["suite", "model_id", "item_id"]].assign(judge_id="j", score=pairs[score_col].to_numpy())
    table = compute_leaderboard(recs, n_bootstrap=0)
    value = pd.to_numeric(table["rank_range"], errors="coerce").mean()
    return None if pd.isna(value) else float(value)


def _suite_stats(pairs: pd.DataFrame) -> dict:
    from sklearn.metrics import cohen_kappa_score

    a = pairs["score_a"].to_numpy(dtype=float)
    b = pairs["score_b"].to_numpy(dtype=float)
    n = len(pairs)
    ia = np.searchsorted(LEVELS, a)
    ib = np.searchsorted(LEVELS, b)
    confusion = np.zeros((3, 3), dtype=int)
    np.add.at(confusion, (ia, ib), 1)
    kappa = None
    if n:
        with np.errstate(divide="ignore", invalid="ignore"):
            k = float(cohen_kappa_score(ia, ib, labels=[0, 1, 2], weights="linear"))
        kappa = k if math.isfinite(k) else None
    boundary = ((a == 0.5) != (b == 0.5))
    contradiction = ((a == 0.0) & (b == 1.0)) | ((a == 1.0) & (b == 0.0))
    return {
        "n": int(n),
        "confusion": confusion.tolist(),
        "exact_agreement": _rate(ia == ib, n),
        "kappa_linear": kappa,
        "boundary_rate": _rate(boundary, n),
        "contradiction_rate": _rate(contradiction, n),
        "ar_a": _rate(a == 0.5, n),
        "ar_b": _rate(b == 0.5, n),
        "mean_rank_range_a": _mean_rank_range(pairs, "score_a"),
        "mean_rank_range_b": _mean_rank_range(pairs, "score_b"),
    }


def agreement_by_suite(frame: pd.DataFrame, judge_a: str, judge_b: str) -> tuple[dict[str, dict], dict[str, dict]]:
    """({suite: metrics}, {suite: {"n_failed_a", "n_failed_b", "n_unpaired"}}) for two judges.

    ``frame`` gets the reader's checks: a score other than 0/0.5/1/null or a duplicated (model, suite,
    judge, item) raises ValidationFailed naming the row (position in ``frame`` + 1).
    """
    from ..reading import scan_frame

    missing = [c for c in ("model_id", "suite", "item_id", "judge_id", "score") if c not in frame.columns]
    if missing:
        raise ValueError(f"records lack column(s): {', '.join(missing)}")
    for _ in scan_frame(frame):
        pass
    ja, jb = resolve_judge_id(frame, judge_a), resolve_judge_id(frame, judge_b)
    if ja == jb:
        raise BadOption(f"judge_a and judge_b name the same judge ({ja})", param="judge_b")
    key = ["model_id", "suite", "item_id"]
    sides = []
    for j, tag in ((ja, "a"), (jb, "b")):
        part = frame.loc[frame["judge_id"] == j, key + ["score"]].drop_duplicates(key, keep="first")
        part = part.rename(columns={"score": f"score_{tag}"})
        part[f"score_{tag}"] = pd.to_numeric(part[f"score_{tag}"], errors="coerce")
        sides.append(part)
    merged = sides[0].merge(sides[1], on=key, how="outer", indicator=True)
    out, extra = {}, {}
    for suite, block in merged.groupby("suite", sort=True):
        both = block[block["_merge"] == "both"]
        scored = both.dropna(subset=["score_a", "score_b"])
        out[str(suite)] = _suite_stats(scored)
        extra[str(suite)] = {
            "n_failed_a": int(both["score_a"].isna().sum()),
            "n_failed_b": int(both["score_b"].isna().sum()),
            "n_unpaired": int((block["_merge"] != "both").sum()),
        }
    if not out:
        raise ValueError(f"no items judged by both {ja} and {jb}")
    return out, extra


def write_agreement(result: dict[str, dict], extra: dict[str, dict], judges: Sequence[str], out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``agreement.json`` (keyed by suite) and ``agreement.csv`` (one row per suite) atomically."""
    from ..records_io import atomic_write_text

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for suite, m in result.items():
        row = {"suite": suite, "judge_a": judges[0], "judge_b": judges[1]}
        row.update({k: m[k] for k in AGREEMENT_FIELDS if k != "confusion"})
        for i, la in enumerate(("0", "0.5", "1")):
            for j, lb in enumerate(("0", "0.5", "1")):
                row[f"a{la}_b{lb}"] = m["confusion"][i][j]
        row.update(extra.get(suite, {}))
        rows.append(row)
    json_path, csv_path = out_dir / "agreement.json", out_dir / "agreement.csv"
    atomic_write_text(json_path, json.dumps(result, indent=2, allow_nan=False) + "\n")
    atomic_write_text(csv_path, pd.DataFrame(rows).to_csv(index=False))
    return json_path, csv_path
