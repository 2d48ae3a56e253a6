"""What "one model" means downstream of the records: a model id at one revision.

Two revisions of a model are two models everywhere (the board's rows, exports, judge agreement, the Space), so
every place that groups or pairs records by model keys them here, one way: a missing revision is spelled ""
(NaN is not equal to NaN, and None and NaN must not become two models).
"""
from __future__ import annotations

import pandas as pd

__all__ = ["model_key", "model_keys", "models_with_several_revisions", "model_label", "model_labels"]


def _revision(value: object) -> str:
    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)


def model_key(model_id: object, revision: object = None) -> str:
    """The key of one model at one revision: ``id@revision`` (``id@`` when the revision is unknown)."""
    return f"{model_id}@{_revision(revision)}"


def model_keys(frame: pd.DataFrame) -> pd.Series:
    """:func:`model_key` of every row of a frame with ``model_id`` and, where known, ``model_revision``."""
    revisions = frame["model_revision"] if "model_revision" in frame else pd.Series("", index=frame.index)
    return frame["model_id"].astype(str) + "@" + revisions.map(_revision)


def models_with_several_revisions(table: pd.DataFrame) -> set[str]:
    """The model ids that have rows at more than one revision (each revision is its own row)."""
    if table.empty or "model_revision" not in table.columns:
        return set()
    counts = table.dropna(subset=["model_revision"]).groupby("model_id")["model_revision"].nunique()
    return set(counts[counts > 1].index.astype(str))


def model_label(model_id: str, revision: object, several: set[str]) -> str:
    """How a row names its model: the id, with ``@`` and the revision's first 12 characters where the
    model has rows at more than one revision."""
    if model_id in several and isinstance(revision, str) and revision:
        return f"{model_id}@{revision[:12]}"
    return model_id


def model_labels(frame: pd.DataFrame) -> pd.Series:
    """:func:`model_label` of every row of a frame of records (the revision shown where a model has several)."""
    several = models_with_several_revisions(frame)
    revisions = frame["model_revision"] if "model_revision" in frame else pd.Series(None, index=frame.index)
    return pd.Series([model_label(str(m), r, several) for m, r in zip(frame["model_id"], revisions)],
                     index=frame.index, dtype=object)
