"""Judge sensitivity, beside policy sensitivity: how far a model's rank moves when the *judge* changes.

For one suite and the judges compared (every judge of the suite by default; panels and wordings are judges of
their own; ``mean:`` rows are leaderboard rows, never records, so never here), on their **intersection**: the
(model, item) cells that every compared judge scored (a score of 0, 0.5 or 1; a missing record, a failed or an
undecided judgment under any one judge drops the cell for all of them). A model with no such cell is dropped, an
item with none is dropped, and what remains is counted (``n_models``, ``n_items``, ``n_cells``), so each model is
ranked on the same items under every judge and only the labels differ. On it:

- each model's rank under each judge, by S_raw (``rank_raw``) and by S_adj (``rank_adj``), competition ranks;
- ``rank_range_judges`` = max − min of a model's ``rank_raw`` over the judges (``rank_range_judges_adj``: of
  ``rank_adj``);
- Kendall τ-b between every two judges' rankings (S_raw and S_adj);
- ``policy_rank_range``: the leaderboard's ``rank_range`` (max − min over the six ambiguity policies) computed on
  the same intersection under each judge, so the suite's mean judge rank range and mean policy rank range are
  ranges over the same models and can stand side by side.

Pure math over label-code matrices (:class:`JudgeMatrix`); the data layer
(:func:`toolkit.data.reading.judge_board.judge_sensitivity_board`) reads one suite at a time, and
:func:`matrices_from_frame` builds the matrices from a frame of one suite's records (the Space, ``analyze``).
"""
from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np
import pandas as pd
from pydantic import field_validator

from schemas import POLICIES
from toolkit.core.judge_names import is_mean_row, is_people_judge as is_people
from toolkit.core.options import comma_names
from toolkit.core.registry import Options, option
from .ranks import competition_rank, rank_range
from .ternary import AMBIGUOUS, HARMFUL, MISSING, SAFE, codes_from_scores, rates

__all__ = ["JudgeSensitivityOptions", "JudgeMatrix", "JudgeSensitivity", "MODEL_COLUMNS", "PAIR_COLUMNS",
           "SUITE_COLUMNS", "suite_judge_sensitivity", "matrices_from_frame", "frame_judge_sensitivity",
           "is_mean_row", "assemble", "rank_table"]

MODEL_COLUMNS = ["suite", "model_id", "model_revision", "judge_id", "people", "n_items", "s_raw", "s_adj", "rank_raw",
                 "rank_adj", "rank_range_judges", "rank_range_judges_adj", "policy_rank_range"]
PAIR_COLUMNS = ["suite", "judge_a", "judge_b", "metric", "n_models", "kendall_tau_b", "note"]
SUITE_COLUMNS = ["suite", "judges", "n_judges", "n_models", "n_items", "n_cells", "models_dropped", "items_dropped",
                 "mean_rank_range_judges", "mean_rank_range_judges_adj", "mean_policy_rank_range", "note"]


class JudgeSensitivityOptions(Options):
    """Which judges ``judge_sensitivity`` compares on each suite."""

    compared_judges: Optional[list[str]] = option(None, help="compare only these judges (ids, folder slugs or run "
                                                             "names; default: every judge of the suite)",
                                                  metavar="A,B")
    include_people: bool = option(True, help="count judges that are people's labels (ids starting 'human') as "
                                             "judges (off: machine judges only)")

    @field_validator("compared_judges", mode="before")
    @classmethod
    def _comma_list(cls, value):
        return comma_names(value) if isinstance(value, str) else value


@dataclass(frozen=True)
class JudgeMatrix:
    """One judge's labels on one suite: ``codes`` items × models (label codes of :mod:`.ternary`)."""

    judge_id: str
    codes: np.ndarray
    models: Sequence[tuple[str, Optional[str]]]  # (model_id, model_revision): a leaderboard row's key
    items: Sequence[str]


@dataclass
class JudgeSensitivity:
    """``models``: one row per (suite, model, judge); ``pairs``: τ-b per (suite, judge pair, metric);
    ``suites``: one row per suite (the means and what the intersection kept)."""

    models: pd.DataFrame
    pairs: pd.DataFrame
    suites: pd.DataFrame

    @property
    def empty(self) -> bool:
        return self.suites.empty


def assemble(parts: Sequence[JudgeSensitivity]) -> JudgeSensitivity:
    """Several suites' results as one, with each table's columns in order."""
    def cat(frames, columns):
        frames = [f for f in frames if len(f)]
        return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)

    return JudgeSensitivity(cat([p.models for p in parts], MODEL_COLUMNS), cat([p.pairs for p in parts], PAIR_COLUMNS),
                            cat([p.suites for p in parts], SUITE_COLUMNS))


def _matching_keys(matrices: Sequence[JudgeMatrix]) -> tuple[list[list[tuple]], dict[tuple, Optional[str]]]:
    """Each judge's model keys for matching, and the revision shown for each key.

    A model is matched on its id where no judge holds two revisions of it (people's labels imported from a table
    often carry no revision, the model's own answers do: still one model), else on (id, revision), as the
    leaderboard's rows are."""
    rows_of: dict[str, int] = {}
    revisions: dict[str, set] = {}
    for m in matrices:
        ids = [k[0] for k in m.models]
        for model_id in set(ids):
            rows_of[model_id] = max(rows_of.get(model_id, 0), ids.count(model_id))
        for model_id, revision in m.models:
            revisions.setdefault(model_id, set()).add(revision or None)
    keys, shown = [], {}
    for m in matrices:
        judge_keys = []
        for model_id, revision in m.models:
            if rows_of[model_id] == 1:
                known = revisions[model_id] - {None}
                key = (model_id, None)
                shown[key] = next(iter(known)) if len(known) == 1 else None
            else:
                key = (model_id, revision or None)
                shown[key] = revision or None
            judge_keys.append(key)
        keys.append(judge_keys)
    return keys, shown


def _aligned(matrices: Sequence[JudgeMatrix]) -> tuple[list, list, list[np.ndarray], int, int]:
    """(common models as (model_id, revision shown), common items, each judge's codes on them) and how many
    models/items were not common."""
    keys, shown = _matching_keys(matrices)
    common = sorted(set.intersection(*(set(k) for k in keys)), key=lambda k: (k[0], k[1] or ""))
    items = sorted(set.intersection(*(set(m.items) for m in matrices)))
    every_model = set().union(*(set(k) for k in keys))
    every_item = set().union(*(set(m.items) for m in matrices))
    aligned = []
    for m, judge_keys in zip(matrices, keys):
        row_of = {k: i for i, k in enumerate(judge_keys)}
        item_of = {k: i for i, k in enumerate(m.items)}
        rows = np.asarray([item_of[i] for i in items], dtype=np.int64)
        cols = np.asarray([row_of[k] for k in common], dtype=np.int64)
        aligned.append(m.codes[np.ix_(rows, cols)] if len(rows) and len(cols) else
                       np.full((len(items), len(common)), MISSING, dtype=np.int8))
    models = [(k[0], shown[k]) for k in common]
    return models, items, aligned, len(every_model) - len(common), len(every_item) - len(items)


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall τ-b of two rankings (ties in either count as in τ-b); NaN when one is constant."""
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.kendalltau(x, y, variant="b").statistic)


def suite_judge_sensitivity(suite: str, matrices: Sequence[JudgeMatrix]) -> JudgeSensitivity:
    """The judge sensitivity of one suite from each compared judge's matrix (at least two judges)."""
    matrices = sorted(matrices, key=lambda m: m.judge_id)
    judges = [m.judge_id for m in matrices]
    if len(judges) < 2:
        raise ValueError(f"{suite}: judge sensitivity compares at least two judges, got {judges}")
    models, items, codes, models_out, items_out = _aligned(matrices)
    decided = [np.isin(c, (HARMFUL, AMBIGUOUS, SAFE)) for c in codes]
    cells = np.logical_and.reduce(decided) if len(items) and len(models) else np.zeros((len(items), len(models)), bool)
    keep_models = cells.any(axis=0)
    keep_items = cells.any(axis=1)
    models = [k for k, keep in zip(models, keep_models) if keep]
    cells = cells[:, keep_models]
    n_items = cells.sum(axis=0)
    per_judge = []
    for judge, c in zip(judges, codes):
        c = c[:, keep_models]
        values = rates(*(((c == k) & cells).sum(axis=0) for k in (HARMFUL, AMBIGUOUS, SAFE)))
        policy_ranks = np.column_stack([_ranks(values[f"score_{p}"]) for p in POLICIES])
        per_judge.append({"s_raw": values["s_raw"], "s_adj": values["s_adj"], "rank_raw": _ranks(values["s_raw"]),
                          "rank_adj": _ranks(values["s_adj"]), "policy_rank_range": _ranges(policy_ranks)})
    raw = np.column_stack([j["rank_raw"] for j in per_judge])
    adj = np.column_stack([j["rank_adj"] for j in per_judge])
    range_raw, range_adj = _ranges(raw), _ranges(adj)
    model_rows = [pd.DataFrame({"suite": suite, "model_id": [k[0] for k in models],
                                "model_revision": [k[1] or None for k in models], "judge_id": judge,
                                "people": is_people(judge), "n_items": n_items, **j,
                                "rank_range_judges": range_raw, "rank_range_judges_adj": range_adj})
                  for judge, j in zip(judges, per_judge)]
    pair_rows = []
    for (a, ja), (b, jb) in itertools.combinations(zip(judges, per_judge), 2):
        for metric, column in (("s_raw", "rank_raw"), ("s_adj", "rank_adj")):
            x, y = ja[column], jb[column]
            note = ""
            if len(models) < 2:
                tau, note = np.nan, f"too few models in the intersection ({len(models)} < 2)"
            elif np.ptp(x) == 0 or np.ptp(y) == 0:
                tau, note = np.nan, "one judge ties every model: τ-b undefined"
            else:
                tau = kendall_tau_b(x, y)
            pair_rows.append({"suite": suite, "judge_a": a, "judge_b": b, "metric": metric, "n_models": len(models),
                              "kendall_tau_b": tau, "note": note})
    policy = np.concatenate([j["policy_rank_range"] for j in per_judge])
    note = "" if models else "no (model, item) cell is scored by every compared judge"
    suite_row = {"suite": suite, "judges": ", ".join(judges), "n_judges": len(judges), "n_models": len(models),
                 "n_items": int(keep_items.sum()), "n_cells": int(cells.sum()),
                 "models_dropped": models_out + int((~keep_models).sum()),
                 "items_dropped": items_out + int((~keep_items).sum()),
                 "mean_rank_range_judges": _mean(range_raw), "mean_rank_range_judges_adj": _mean(range_adj),
                 "mean_policy_rank_range": _mean(policy), "note": note}
    return assemble([JudgeSensitivity(pd.concat(model_rows, ignore_index=True),
                                      pd.DataFrame(pair_rows, columns=PAIR_COLUMNS),
                                      pd.DataFrame([suite_row], columns=SUITE_COLUMNS))])


def _ranks(scores: np.ndarray) -> np.ndarray:
    return competition_rank(scores) if len(scores) else np.zeros(0)


def _ranges(rank_matrix: np.ndarray) -> np.ndarray:
    """max − min of each row (a model) over its columns (judges or policies); none for no model."""
    return rank_range(rank_matrix) if len(rank_matrix) else np.zeros(0)


def _mean(values: np.ndarray) -> float:
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else float("nan")


def chosen_judges(present: Sequence[str], options: JudgeSensitivityOptions,
                  resolve: Callable[[str, Sequence[str]], Optional[str]] | None = None) -> list[str]:
    """The judges of a suite compared under ``options``: record judges only (never ``mean:`` rows), people's labels
    unless left out, and only the named ones when ``compared_judges`` names some (``resolve``: name -> id)."""
    judges = sorted(j for j in set(present) if not is_mean_row(j) and (options.include_people or not is_people(j)))
    if options.compared_judges:
        resolve = resolve or (lambda name, ids: name if name in ids else None)
        named = {resolve(n, judges) for n in options.compared_judges}
        judges = [j for j in judges if j in named]
    return judges


def matrices_from_frame(frame: pd.DataFrame) -> list[JudgeMatrix]:
    """One suite's records (model_id, item_id, judge_id, score; model_revision when present; NaN = failed or
    undecided) as one matrix per judge."""
    revision = frame["model_revision"] if "model_revision" in frame else pd.Series(None, index=frame.index)
    plain = pd.DataFrame({"model_id": frame["model_id"].astype(str), "model_revision": revision.astype(object)
                          .where(revision.notna(), ""), "item_id": frame["item_id"].astype(str),
                          "judge_id": frame["judge_id"].astype(str),
                          "score": pd.to_numeric(frame["score"], errors="coerce")})
    out = []
    for judge, part in plain.groupby("judge_id", sort=True):
        wide = part.drop_duplicates(["model_id", "model_revision", "item_id"]).pivot(
            index="item_id", columns=["model_id", "model_revision"], values="score")
        present = part.groupby(["item_id", "model_id", "model_revision"]).size().unstack(["model_id", "model_revision"])
        scores = wide.to_numpy(dtype=np.float64, copy=True)
        scores[present.reindex(index=wide.index, columns=wide.columns).isna().to_numpy()] = np.inf  # no record
        models = [(m, r or None) for m, r in wide.columns]
        out.append(JudgeMatrix(str(judge), codes_from_scores(scores), models, [str(i) for i in wide.index]))
    return out


def frame_judge_sensitivity(frame: pd.DataFrame, options: JudgeSensitivityOptions | None = None) -> JudgeSensitivity:
    """Judge sensitivity of every suite of a frame of records (suites with fewer than two compared judges: none)."""
    options = options or JudgeSensitivityOptions()
    parts = []
    for suite, block in frame.groupby(frame["suite"].astype(str), sort=True):
        judges = chosen_judges(block["judge_id"].dropna().astype(str).unique().tolist(), options)
        if len(judges) >= 2:
            block = block[block["judge_id"].astype(str).isin(judges)]
            parts.append(suite_judge_sensitivity(str(suite), matrices_from_frame(block)))
    return assemble(parts)


def rank_table(models: pd.DataFrame, suite: str) -> pd.DataFrame:
    """One suite's model × judge ranks as one row per model: ``rank_raw · JUDGE`` and ``rank_adj · JUDGE`` for each
    judge, then ``rank_range_judges`` and ``rank_range_judges_adj``; sorted by the range (widest first), then model.
    A model at a revision is shown as ``model@revision`` when the suite holds two revisions of it."""
    part = models[models["suite"] == suite]
    if part.empty:
        return pd.DataFrame(columns=["model", "rank_range_judges", "rank_range_judges_adj"])
    revision = part["model_revision"].fillna("").astype(str)
    several = part.assign(_r=revision).groupby("model_id")["_r"].nunique()
    shown = [f"{m}@{r}" if several[m] > 1 else m for m, r in zip(part["model_id"], revision)]
    part = part.assign(model=shown)
    out = part.groupby("model", sort=True)[["rank_range_judges", "rank_range_judges_adj"]].first()
    for metric in ("rank_raw", "rank_adj"):
        wide = part.pivot(index="model", columns="judge_id", values=metric)
        for judge in wide.columns:
            out[f"{metric} · {judge}"] = wide[judge]
    judges = sorted(part["judge_id"].unique())
    columns = [f"{m} · {j}" for m in ("rank_raw", "rank_adj") for j in judges] + ["rank_range_judges",
                                                                                    "rank_range_judges_adj"]
    out = out[columns].reset_index()
    return out.sort_values(["rank_range_judges", "model"], ascending=[False, True], kind="stable", ignore_index=True)
