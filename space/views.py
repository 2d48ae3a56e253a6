"""Pure view helpers of the Space: leaderboard filters and sorting (no gradio; testable alone)."""
from __future__ import annotations

import pandas as pd

ANY = "any"
SIZES = {"any": (None, None), "< 200M": (0, 2e8), "200M – 1B": (2e8, 1e9), "1B – 3B": (1e9, 3e9), "> 3B": (3e9, None)}
TUNED = ("any", "instruction-tuned", "base")
SORTS = {"rank (raw)": ("rank_raw", True), "S_adj": ("s_adj", False), "Δ adj": ("delta_adj", False),
         "rank range": ("rank_range", False), "model": ("model_id", True)}


def with_metadata(rows: pd.DataFrame, submissions: pd.DataFrame) -> pd.DataFrame:
    """Leaderboard rows joined with family / params / instruction_tuned and the cost of the submissions index."""
    rows = rows.copy()
    for col in ("family", "params", "instruction_tuned", "cost"):
        rows[col] = None
    if submissions is None or submissions.empty or "model_id" not in submissions:
        return rows
    if "cost" in submissions and "submission_id" in submissions and "submission_id" in rows:
        # a submission's own cost (an index made before costs were recorded has no column: a dash)
        rows["cost"] = rows["submission_id"].map(submissions.drop_duplicates("submission_id", keep="last")
                                                 .set_index("submission_id")["cost"])
    meta = submissions.drop_duplicates("model_id", keep="last").set_index("model_id")
    for col in ("family", "params", "instruction_tuned"):
        if col in meta:
            rows[col] = rows["model_id"].map(meta[col])
    if "tuning" in meta:  # instruction_tuned may be null while tuning says "instruct"/"chat"
        tuning = rows["model_id"].map(meta["tuning"])
        rows["instruction_tuned"] = [t if t is not None and t == t else (tu in ("instruct", "chat") if isinstance(tu, str) and tu != "unknown" else None)
                                     for t, tu in zip(rows["instruction_tuned"], tuning)]
    return rows


def families(submissions: pd.DataFrame) -> list[str]:
    if submissions is None or submissions.empty or "family" not in submissions:
        return []
    return sorted({str(f) for f in submissions["family"].dropna()})


def filter_rows(rows: pd.DataFrame, family: list[str] | None = None, size: str = ANY, tuned: str = ANY,
                search: str = "") -> pd.DataFrame:
    """Keep rows matching every filter; rows lacking the metadata a filter needs are dropped by it."""
    keep = pd.Series(True, index=rows.index)
    if family:
        keep &= rows["family"].isin(family)
    lo, hi = SIZES.get(size or ANY, (None, None))
    if lo is not None or hi is not None:
        p = pd.to_numeric(rows["params"], errors="coerce")
        keep &= p.notna() & (p >= (lo or 0)) & ((p < hi) if hi else True)
    if tuned and tuned != ANY:
        want = tuned == "instruction-tuned"
        keep &= rows["instruction_tuned"].map(lambda v: v is not None and v == v and bool(v) == want)
    if search and search.strip():
        keep &= rows["model_id"].str.contains(search.strip(), case=False, regex=False)
    return rows[keep]


def sort_rows(rows: pd.DataFrame, by: str) -> pd.DataFrame:
    col, asc = SORTS.get(by, SORTS["rank (raw)"])
    return rows.sort_values([col, "model_id"], ascending=[asc, True], na_position="last", kind="stable").reset_index(drop=True)
