"""Every judge against people: each judge's figures against people's labels, and how correlated the judges' errors are.

For each suite and each people judge P of it (:func:`toolkit.core.judge_names.is_people_judge`), every other judge J
is compared with P on the items both scored (paired by model, model revision and item; failed items left out; ``n``
reported):

* ``kappa_linear`` -- linearly weighted Cohen's kappa on the 0 / 0.5 / 1 scale (the agreement module's);
* ``exact_agreement`` -- share of items where J's score is P's;
* ``ar_error`` -- J's ambiguity rate minus P's (``ar_judge`` - ``ar_people``: > 0 calls more answers ambiguous);
* ``contradiction_rate`` -- share of items where one says 0 and the other 1.

The error correlation: for each pair of judges (J1, J2), on the items P, J1 and J2 all scored, ``phi`` is the phi
coefficient (Pearson's r of two 0/1 variables) between "J1 disagrees with P" and "J2 disagrees with P"; null when
either indicator is constant. ``mean_phi`` (rho-bar) is the mean of the defined phis, and
``n_eff = k / (1 + (k - 1) * mean_phi)`` with ``k`` the number of judges compared: how many independent judges
their k opinions are worth (k when errors are uncorrelated, 1 when they are the same errors).

A panel with P among its members (``panel:RULE:P+J``) is listed in ``panels_with_people`` and left out of the
figures against P: agreeing with people it was built from measures nothing.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pandas as pd

from toolkit.core.judge_names import is_people_judge, panel_members
from .agreement import score_agreement

__all__ = ["AGAINST_PEOPLE_FIELDS", "phi", "n_eff", "people_judges", "against_people", "judges_against"]

AGAINST_PEOPLE_FIELDS = ("n", "kappa_linear", "exact_agreement", "ar_judge", "ar_people", "ar_error",
                         "contradiction_rate")


def phi(x, y) -> Optional[float]:
    """The phi coefficient of two equally long 0/1 sequences; None when either is constant (phi undefined)."""
    x, y = np.asarray(x, dtype=bool), np.asarray(y, dtype=bool)
    n11, n10 = int((x & y).sum()), int((x & ~y).sum())
    n01, n00 = int((~x & y).sum()), int((~x & ~y).sum())
    denominator = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    return (n11 * n00 - n10 * n01) / math.sqrt(denominator) if denominator else None


def n_eff(k: int, mean_phi: Optional[float]) -> Optional[float]:
    """Effective number of independent judges among ``k`` whose errors correlate by ``mean_phi`` on average."""
    if mean_phi is None or k < 1:
        return None
    denominator = 1 + (k - 1) * mean_phi
    return k / denominator if denominator > 0 else None


def people_judges(judge_ids) -> list[str]:
    return sorted({str(j) for j in judge_ids if is_people_judge(j)})


def _wide(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, revision, item), one column per judge: its score (NaN = failed or not judged)."""
    key = ["model_id", "item_id"] + (["model_revision"] if "model_revision" in frame else [])
    plain = frame[key + ["judge_id", "score"]].astype({"model_id": str, "item_id": str, "judge_id": str})
    if "model_revision" in plain:  # an item of a model at two revisions is two items
        plain = plain.assign(model_revision=plain["model_revision"].fillna("").astype(str))
    plain = plain.assign(score=pd.to_numeric(plain["score"], errors="coerce"))
    plain = plain.drop_duplicates(key + ["judge_id"], keep="first")
    return plain.set_index(key + ["judge_id"])["score"].unstack("judge_id")


def judges_against(wide: pd.DataFrame, people: str) -> dict:
    """The block of one people judge of one suite (``wide``: :func:`_wide` of the suite's records)."""
    others = [j for j in sorted(wide.columns) if j != people]
    with_people = [j for j in others if people in panel_members(j)]
    compared = [j for j in others if j not in with_people]
    p = wide[people].to_numpy(dtype=float)
    judges, wrong = {}, {}
    for judge in compared:
        s = wide[judge].to_numpy(dtype=float)
        both = ~np.isnan(p) & ~np.isnan(s)
        if not both.any():
            continue
        m = score_agreement(p[both], s[both])  # A = people, B = the judge
        judges[judge] = {"n": m["n"], "kappa_linear": m["kappa_linear"], "exact_agreement": m["exact_agreement"],
                         "ar_judge": m["ar_b"], "ar_people": m["ar_a"], "ar_error": m["ar_b"] - m["ar_a"],
                         "contradiction_rate": m["contradiction_rate"]}
        # NaN where either is missing: the pairs below keep only items all three scored
        wrong[judge] = np.where(both, s != p, np.nan)
    pairs = []
    names = sorted(wrong)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            scored = ~np.isnan(wrong[a]) & ~np.isnan(wrong[b])
            pairs.append({"judge_a": a, "judge_b": b, "n": int(scored.sum()),
                          "phi": phi(wrong[a][scored], wrong[b][scored]) if scored.any() else None})
    defined = [x["phi"] for x in pairs if x["phi"] is not None]
    mean_phi = float(np.mean(defined)) if defined else None
    return {"people": people, "judges": judges, "panels_with_people": with_people,
            "error_correlation": {"pairs": pairs, "n_judges": len(names), "mean_phi": mean_phi,
                                  "n_eff": n_eff(len(names), mean_phi)}}


def against_people(frame: pd.DataFrame) -> dict[str, dict[str, dict]]:
    """{suite: {people judge: block}} for every suite of checked records (suite, judge_id, model_id, item_id, score,
    optionally model_revision) that holds people's labels; a block is :func:`judges_against`'s."""
    out: dict[str, dict[str, dict]] = {}
    for suite, block in frame.groupby(frame["suite"].astype(str), sort=True):
        people = people_judges(block["judge_id"].dropna().unique())
        if not people:
            continue
        wide = _wide(block)
        out[str(suite)] = {p: judges_against(wide, p) for p in people}
    return out
