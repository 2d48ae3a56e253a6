"""Judge agreement for the Judges and Items tabs, from a suite's checked per-item records.

Suite-level numbers come from ``toolkit.data.scoring.agreement.suite_agreement`` (what `slmboard
agreement` prints, on records the data layer already checked); the per-model breakdown applies the
same function to each model's records, so the two can never disagree on a definition. The disagreement list pairs two judges' scores of the
same (model, item): boundary = one says 0.5, the other 0 or 1; contradiction = 0 vs 1.
"""
from __future__ import annotations

import pandas as pd

from schemas import AMBIGUOUS_SCORE
from toolkit.data.scoring.identity import model_keys, model_labels

SCORE_NAMES = ("0 harmful", "0.5 ambiguous", "1 safe")
KINDS = ("all disagreements", "boundary (0.5 vs 0/1)", "contradiction (0 vs 1)")
PER_MODEL_COLUMNS = ["judge A", "judge B", "model", "paired items", "exact", "κ_linear", "boundary", "contradiction"]


def judge_pairs(judges: list[str]) -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(judges) for b in judges[i + 1:]]


def pair_stats(frame: pd.DataFrame, a: str, b: str) -> dict | None:
    """suite_agreement's metrics for one suite's records (None when no item is paired)."""
    from toolkit.data.scoring.agreement import suite_agreement

    revision = ["model_revision"] if "model_revision" in frame else []  # two revisions of a model: two models
    plain = frame[["model_id", *revision, "suite", "item_id", "judge_id", "score"]].astype(
        {"model_id": str, "suite": str, "item_id": str, "judge_id": str})
    if a == b or not {a, b} <= set(plain["judge_id"]):
        return None
    try:
        stats, extra = suite_agreement(plain, a, b)
    except ValueError:  # no item scored by both
        return None
    (suite_stats,) = stats.values()
    return {**suite_stats, **next(iter(extra.values()))}


def per_model(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """One row per model (a model at a revision) both judges scored: paired items, exact, κ_linear, boundary,
    contradiction. A model at two revisions has a row per revision, named with its revision."""
    labels = model_labels(frame)
    rows = []
    for _, part in sorted(frame.groupby(model_keys(frame), sort=False), key=lambda kv: kv[0]):
        s = pair_stats(part, a, b)
        if s is None or not s["n"]:
            continue
        rows.append([a, b, labels[part.index[0]], s["n"], s["exact_agreement"], s["kappa_linear"], s["boundary_rate"],
                     s["contradiction_rate"]])
    return pd.DataFrame(rows, columns=PER_MODEL_COLUMNS)


def paired_scores(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """(model_id, item_id, score_a, score_b) for every (model, item) both judges have a record of; a model at
    two revisions is two models, its id shown with the revision."""
    keyed = frame.assign(_model=model_keys(frame), _shown=model_labels(frame))
    key = ["_model", "item_id"]
    sides = []
    for judge, tag in ((a, "a"), (b, "b")):
        part = keyed.loc[keyed["judge_id"] == judge, key + ["_shown", "score"]].astype({"item_id": str})
        sides.append(part.drop_duplicates(key).rename(columns={"score": f"score_{tag}"}))
    pairs = sides[0].merge(sides[1].drop(columns="_shown"), on=key, how="inner", sort=False)
    return pairs.rename(columns={"_shown": "model_id"})[["model_id", "item_id", "score_a", "score_b"]]


def disagreements(frame: pd.DataFrame, a: str, b: str, kind: str = KINDS[0]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items where both judges scored and the scores differ, filtered by ``kind``;
    items where exactly one of the two failed), both in the frame's (natural) order."""
    pairs = paired_scores(frame, a, b)
    sa, sb = pairs["score_a"], pairs["score_b"]
    both = sa.notna() & sb.notna()
    boundary = both & ((sa == AMBIGUOUS_SCORE) != (sb == AMBIGUOUS_SCORE))
    contradiction = both & (((sa == 0) & (sb == 1)) | ((sa == 1) & (sb == 0)))
    pick = {KINDS[1]: boundary, KINDS[2]: contradiction}.get(kind, boundary | contradiction)
    out = pairs[pick].assign(kind=["boundary" if x else "contradiction" for x in boundary[pick]])
    one_failed = pairs[sa.isna() != sb.isna()].assign(kind=["failed: " + (a if x else b) for x in sa[sa.isna() != sb.isna()].isna()])
    return out.reset_index(drop=True), one_failed.reset_index(drop=True)
