"""Ambiguity prediction (paper 1 Tables 1–3): is a (model, prompt) judgment ambiguous (0.5) or decisive?

Features: the 12 metrics of the row (prompt metrics of its prompt, output metrics of its reply).
Classifiers: scikit-learn RandomForestClassifier and HistGradientBoostingClassifier (both accept
NaN features, e.g. self-coherence of a one-sentence reply). Scores: accuracy, balanced accuracy,
ROC-AUC on the test rows.

- :func:`within_suite` — one grouped 80/20 split per suite (GroupShuffleSplit on item_id, so a
  prompt's rows never sit on both sides);
- :func:`cross_suite` — train on every row of suite A, test on every row of suite B (the matrix);
- :func:`unseen_models` — per suite, train on all but ``k`` models, test on those ``k`` (chosen by a
  seeded draw; the paper hand-picked six of 26 to balance size, family and tuning).

Whenever a split cannot be evaluated (too few rows, a single class) the row says so in ``note``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .metrics import ALL_METRICS

MIN_ROWS = 20
CLASSIFIERS = ("random_forest", "hist_gradient_boosting")
COLUMNS = ["setting", "train", "test", "classifier", "accuracy", "balanced_accuracy", "roc_auc", "train_rows", "test_rows", "note"]


def _make(name: str, seed: int):
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    if name == "random_forest":
        return RandomForestClassifier(n_estimators=200, min_samples_leaf=2, n_jobs=2, random_state=seed)
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, random_state=seed)


def _features(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    cols = [m for m in ALL_METRICS if m in rows.columns]
    X = rows[cols].to_numpy(dtype=np.float64)
    y = (rows["score"].to_numpy(dtype=np.float64) == 0.5).astype(int)
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


def within_suite(rows: pd.DataFrame, seed: int = 0, test_size: float = 0.2) -> pd.DataFrame:
    from sklearn.model_selection import GroupShuffleSplit

    out = []
    for suite, block in rows.groupby("suite", sort=True):
        block = block.reset_index(drop=True)
        if block["item_id"].nunique() < 2:
            out += evaluate(block.iloc[:0], block, "within-suite", suite, suite, seed)
            continue
        split = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
        tr, te = next(split.split(block, groups=block["item_id"]))
        out += evaluate(block.iloc[tr], block.iloc[te], "within-suite", suite, suite, seed)
    return pd.DataFrame(out, columns=COLUMNS)


def cross_suite(rows: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    suites = sorted(rows["suite"].unique())
    out = []
    if len(suites) < 2:
        return pd.DataFrame([{"setting": "cross-suite", "train": suites[0] if suites else "", "test": "", "classifier": c,
                              "accuracy": np.nan, "balanced_accuracy": np.nan, "roc_auc": np.nan, "train_rows": len(rows),
                              "test_rows": 0, "note": "only one suite: no transfer to measure"} for c in CLASSIFIERS], columns=COLUMNS)
    for a in suites:
        for b in suites:
            if a != b:
                out += evaluate(rows[rows["suite"] == a], rows[rows["suite"] == b], "cross-suite", a, b, seed)
    return pd.DataFrame(out, columns=COLUMNS)


def unseen_models(rows: pd.DataFrame, k: int | None = None, seed: int = 0) -> pd.DataFrame:
    out = []
    for suite, block in rows.groupby("suite", sort=True):
        models = sorted(block["model_id"].unique())
        n_hold = k if k is not None else max(1, round(len(models) * 6 / 26))  # the paper held out 6 of 26
        if len(models) <= n_hold:
            out += [{"setting": "unseen-model", "train": suite, "test": suite, "classifier": c, "accuracy": np.nan,
                     "balanced_accuracy": np.nan, "roc_auc": np.nan, "train_rows": 0, "test_rows": len(block),
                     "note": f"too few models ({len(models)}) to hold out {n_hold}"} for c in CLASSIFIERS]
            continue
        held = list(np.random.default_rng(seed).choice(models, size=n_hold, replace=False))
        test_mask = block["model_id"].isin(held)
        res = evaluate(block[~test_mask], block[test_mask], "unseen-model", f"{suite} ({len(models) - n_hold} models)",
                       f"{suite} held out: {', '.join(sorted(held))}", seed)
        out += res
    return pd.DataFrame(out, columns=COLUMNS)


def best_by_balanced_accuracy(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's presentation: per (setting, train, test) the classifier with the best balanced accuracy."""
    if table.empty:
        return table
    ranked = table.assign(_b=table["balanced_accuracy"].fillna(-1.0)).sort_values("_b", ascending=False, kind="stable")
    return ranked.drop_duplicates(["setting", "train", "test"]).drop(columns="_b").sort_values(["setting", "train", "test"], ignore_index=True)
