"""Ambiguity prediction (paper 1 Tables 1–3): is a (model, prompt) judgment ambiguous (0.5) or decisive?

Features: the 12 metrics of the row (prompt metrics of its prompt, output metrics of its reply).
Classifiers: scikit-learn RandomForestClassifier and HistGradientBoostingClassifier (both accept
NaN features, e.g. self-coherence of a one-sentence reply). Scores: accuracy, balanced accuracy,
ROC-AUC on the test rows.

Labels of two judges are never pooled: every training and test set holds one judge's labels
(``judge_id`` = the training rows' judge, ``test_judge_id`` = the test rows').

- :func:`within_suite` — one grouped 80/20 split per (suite, judge) (GroupShuffleSplit on item_id,
  so a prompt's rows never sit on both sides);
- :func:`cross_suite` — train on every row of suite A, test on every row of suite B (the matrix),
  both labelled by the same judge; or, when A and B each have a single judge in the data (the
  paper's setting: SALAD by MD-Judge, the others by GPT-4o), by their own judges;
- :func:`unseen_models` — per (suite, judge), train on all but ``k`` models, test on those ``k``
  (chosen by a seeded draw; the paper hand-picked six of 26 to balance size, family and tuning).

Whenever a split cannot be evaluated (too few rows, a single class) the row says so in ``note``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from schemas import AMBIGUOUS_SCORE

from .metrics import ALL_METRICS

MIN_ROWS = 20
CLASSIFIERS = ("random_forest", "hist_gradient_boosting")
COLUMNS = ["setting", "judge_id", "test_judge_id", "train", "test", "classifier", "accuracy", "balanced_accuracy", "roc_auc", "train_rows", "test_rows", "note"]


def _make(name: str, seed: int):
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    if name == "random_forest":
        return RandomForestClassifier(n_estimators=200, min_samples_leaf=2, n_jobs=2, random_state=seed)
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, random_state=seed)


def _features(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    cols = [m for m in ALL_METRICS if m in rows.columns]
    X = rows[cols].to_numpy(dtype=np.float64)
    y = (rows["score"].to_numpy(dtype=np.float64) == AMBIGUOUS_SCORE).astype(int)
    return X, y


def evaluate(train: pd.DataFrame, test: pd.DataFrame, setting: str, train_name: str, test_name: str, seed: int = 0) -> list[dict]:
    """Fit each classifier on ``train`` and score it on ``test``; one row per classifier."""
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

    base = {"setting": setting, "train": train_name, "test": test_name, "train_rows": len(train), "test_rows": len(test)}
    Xtr, ytr = _features(train)
    Xte, yte = _features(test)
    problem = ""
    if len(train) < MIN_ROWS or len(test) < max(2, MIN_ROWS // 4):
        problem = f"too few rows (train {len(train)}, test {len(test)}; need ≥ {MIN_ROWS} / ≥ {max(2, MIN_ROWS // 4)})"
    elif len(np.unique(ytr)) < 2:
        problem = f"training rows are all {'ambiguous' if ytr[0] else 'decisive'}: nothing to learn"
    if problem:
        return [{**base, "classifier": c, "accuracy": np.nan, "balanced_accuracy": np.nan, "roc_auc": np.nan, "note": problem} for c in CLASSIFIERS]
    out = []
    for name in CLASSIFIERS:
        model = _make(name, seed).fit(Xtr, ytr)
        proba = model.predict_proba(Xte)[:, 1]
        pred = (proba >= 0.5).astype(int)
        row = {**base, "classifier": name, "accuracy": accuracy_score(yte, pred), "note": ""}
        if len(np.unique(yte)) < 2:
            row["balanced_accuracy"] = np.nan
            row["roc_auc"] = np.nan
            row["note"] = "test rows hold one class only: balanced accuracy and ROC-AUC undefined"
        else:
            row["balanced_accuracy"] = balanced_accuracy_score(yte, pred)
            row["roc_auc"] = roc_auc_score(yte, proba)
        out.append(row)
    return out


def _blocks(rows: pd.DataFrame):
    """(suite, judge_id, rows) per (suite, judge), sorted: the unit no analysis pools across."""
    for (suite, judge), block in rows.groupby(["suite", "judge_id"], sort=True):
        yield suite, judge, block


def _tagged(results: list[dict], judge: str, test_judge: str | None = None) -> list[dict]:
    return [{**r, "judge_id": judge, "test_judge_id": judge if test_judge is None else test_judge} for r in results]


def _untestable(setting: str, judge: str, train: str, test: str, train_rows: int, test_rows: int, note: str) -> list[dict]:
    return [{"setting": setting, "judge_id": judge, "test_judge_id": judge, "train": train, "test": test, "classifier": c,
             "accuracy": np.nan, "balanced_accuracy": np.nan, "roc_auc": np.nan, "train_rows": train_rows,
             "test_rows": test_rows, "note": note} for c in CLASSIFIERS]


def within_suite(rows: pd.DataFrame, seed: int = 0, test_size: float = 0.2) -> pd.DataFrame:
    from sklearn.model_selection import GroupShuffleSplit

    out = []
    for suite, judge, block in _blocks(rows):
        block = block.reset_index(drop=True)
        if block["item_id"].nunique() < 2:
            out += _tagged(evaluate(block.iloc[:0], block, "within-suite", suite, suite, seed), judge)
            continue
        split = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
        tr, te = next(split.split(block, groups=block["item_id"]))
        out += _tagged(evaluate(block.iloc[tr], block.iloc[te], "within-suite", suite, suite, seed), judge)
    return pd.DataFrame(out, columns=COLUMNS)


def cross_suite(rows: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    blocks = sorted(_blocks(rows), key=lambda b: (b[1], b[0]))  # per judge, then suite
    judges = sorted({j for _, j, _ in blocks})
    judges_of: dict[str, set] = {}
    for suite, judge, _ in blocks:
        judges_of.setdefault(suite, set()).add(judge)
    out = []
    for judge in judges or [""]:
        found = False
        for a, _, train in (blk for blk in blocks if blk[1] == judge):
            for b, jb, test in sorted(blocks, key=lambda blk: (blk[1] != judge, blk[1], blk[0])):
                if b != a and (jb == judge or (len(judges_of[a]) == 1 and len(judges_of[b]) == 1)):
                    out += _tagged(evaluate(train, test, "cross-suite", a, b, seed), judge, jb)
                    found = True
        if not found:
            suites = [s for s, j, _ in blocks if j == judge]
            note = "only one suite: no transfer to measure" if len(judges) <= 1 else f"only one suite judged by {judge}: no transfer to measure"
            n_rows = int((rows["judge_id"] == judge).sum()) if judge else len(rows)
            out += _untestable("cross-suite", judge, suites[0] if suites else "", "", n_rows, 0, note)
    return pd.DataFrame(out, columns=COLUMNS)


def unseen_models(rows: pd.DataFrame, k: int | None = None, seed: int = 0) -> pd.DataFrame:
    out = []
    for suite, judge, block in _blocks(rows):
        models = sorted(block["model_id"].unique())
        n_hold = k if k is not None else max(1, round(len(models) * 6 / 26))  # the paper held out 6 of 26
        if len(models) <= n_hold:
            out += _untestable("unseen-model", judge, suite, suite, 0, len(block), f"too few models ({len(models)}) to hold out {n_hold}")
            continue
        held = list(np.random.default_rng(seed).choice(models, size=n_hold, replace=False))
        test_mask = block["model_id"].isin(held)
        out += _tagged(evaluate(block[~test_mask], block[test_mask], "unseen-model", f"{suite} ({len(models) - n_hold} models)",
                                f"{suite} held out: {', '.join(sorted(held))}", seed), judge)
    return pd.DataFrame(out, columns=COLUMNS)


def best_by_balanced_accuracy(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's presentation: per (setting, train, test) the classifier with the best balanced accuracy."""
    if table.empty:
        return table
    ranked = table.assign(_b=table["balanced_accuracy"].fillna(-1.0)).sort_values("_b", ascending=False, kind="stable")
    keys = ["setting", "judge_id", "test_judge_id", "train", "test"]
    return ranked.drop_duplicates(keys).drop(columns="_b").sort_values(keys, ignore_index=True)
