"""Data access for the leaderboard Space: read a dataset folder laid out like the HF dataset repo.

Only pandas/pyarrow (and `schemas` for the column contract) are imported here, so the Space
runs on a CPU Space without torch. Nothing here recomputes scores: the leaderboard parquet is
the output of `slmboard rank`, which rebuilds it from per-item records; the Space only shows it.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

try:  # the contract lives in `schemas`; a Space repo that was copied without it still starts
    from schemas import POLICIES, POLICY_VALUE
except ImportError:  # pragma: no cover - only on a bare Space checkout
    POLICIES = ("pessimistic", "partial_low", "midpoint", "partial_high", "optimistic", "excluded")
    POLICY_VALUE = {"pessimistic": 0.0, "partial_low": 0.25, "midpoint": 0.5,
                    "partial_high": 0.75, "optimistic": 1.0, "excluded": None}

#: Where the data is read from when neither --data nor SLMBOARD_DATA is given:
#: the folder `slmboard demo` publishes into, relative to the working directory.
DEFAULT_DATA_DIR = Path("demo-output") / "dataset"
ENV_VAR = "SLMBOARD_DATA"

LEADERBOARD_PATH = Path("data") / "leaderboard" / "leaderboard.parquet"
SUBMISSIONS_PATH = Path("data") / "submissions" / "submissions.parquet"

REQUIRED_COLUMNS: tuple[str, ...] = (
    "suite", "judge_id", "model_id", "n_items", "n_scored", "n_failed",
    "hcr", "ar", "srr", "s_raw", "s_adj", "rank_raw", "rank_adj", "delta_adj", "rank_range",
    *(f"{kind}_{p}" for p in POLICIES for kind in ("score", "rank")),
)
#: Bootstrap bounds etc.: shown when present, never required (older or CI-less rank runs).
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "s_raw_lo", "s_raw_hi", "s_adj_lo", "s_adj_hi", "rank_lo", "rank_hi", "rank_ub",
    "submission_id", "model_revision",
)


@dataclass
class Board:
    """Everything the page shows, read once per build/refresh."""

    data_dir: Path
    leaderboard: pd.DataFrame
    submissions: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: a friendly explanation when there is nothing to show (None = all good)
    message: str | None = None

    @property
    def empty(self) -> bool:
        return self.leaderboard.empty

    def suites(self) -> list[str]:
        return sorted(self.leaderboard["suite"].unique()) if not self.empty else []

    def judges(self, suite: str | None = None) -> list[str]:
        if self.empty:
            return []
        lb = self.leaderboard
        if suite is not None:
            lb = lb[lb["suite"] == suite]
        return sorted(lb["judge_id"].unique())

    def default_judge(self, suite: str | None) -> str | None:
        """The judge that scored the most models on this suite (ties: alphabetical)."""
        if self.empty or suite is None:
            return None
        lb = self.leaderboard[self.leaderboard["suite"] == suite]
        if lb.empty:
            return None
        counts = lb.groupby("judge_id")["model_id"].nunique()
        return sorted(counts.index, key=lambda j: (-counts[j], j))[0]

    def rows(self, suite: str | None, judge: str | None) -> pd.DataFrame:
        """The (suite, judge) slice, sorted by rank_raw (unranked last), then S_raw, model."""
        if self.empty or suite is None or judge is None:
            return self.leaderboard.iloc[0:0]
        lb = self.leaderboard
        part = lb[(lb["suite"] == suite) & (lb["judge_id"] == judge)]
        return part.sort_values(
            ["rank_raw", "s_raw", "model_id"], ascending=[True, False, True], na_position="last", kind="stable"
        ).reset_index(drop=True)


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """--data beats $SLMBOARD_DATA beats the demo folder. A Hub id (owner/name, no such local
    folder) is downloaded once with huggingface_hub, which gradio already depends on."""
    raw = str(data_dir) if data_dir else os.environ.get(ENV_VAR) or str(DEFAULT_DATA_DIR)
    path = Path(raw).expanduser()
    if path.exists() or raw.count("/") != 1 or raw.startswith((".", "/", "~")):
        return path
    try:  # looks like a Hub dataset id
        from huggingface_hub import snapshot_download

        # the whole dataset: the Items and Judges tabs read the per-item files. The snapshot folder
        # is named by commit, so a refresh after a new commit never reads stale files.
        return Path(snapshot_download(raw, repo_type="dataset"))
    except Exception:  # offline, private, missing: show the empty-state message, not a traceback
        return path


_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>&~$:")


def md_escape(text: str) -> str:
    """Show `text` literally in gr.Markdown: backslash-escape every Markdown/HTML metacharacter
    (CommonMark allows escaping any ASCII punctuation), so data can never become markup."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in str(text))


def _no_data_message(data_dir: Path, why: str) -> str:
    return (
        f"**No submissions yet** — {why}\n\n"
        "Run `slmboard demo` to evaluate the embedded default model and publish it here, or "
        "`slmboard submit` / `slmboard rank` to publish your own run, then press **Refresh**.\n\n"
        f"Data folder: {md_escape(str(data_dir))}"
    )


def _normalise(lb: pd.DataFrame) -> pd.DataFrame:
    """Give optional columns a value and ids a string type, so the view code needs no guards."""
    lb = lb.copy()
    for col in OPTIONAL_COLUMNS:
        if col not in lb.columns:
            lb[col] = None
    for col in ("suite", "judge_id", "model_id"):
        lb[col] = lb[col].astype(str)
    # Nullable ints arrive as float (NaN) or Int64 depending on the writer; float + NaN is
    # the one representation every formatting path below handles.
    for col in lb.columns:
        if col.startswith(("rank_", "n_", "score_", "s_")) or col in ("hcr", "ar", "srr", "delta_adj"):
            lb[col] = pd.to_numeric(lb[col], errors="coerce").astype("float64")
    return lb


def load_board(data_dir: str | os.PathLike | None = None) -> Board:
    """Read the leaderboard (and submissions table) from a dataset folder. Never raises on bad or
    missing data: the Board then carries an explanatory `message` and an empty leaderboard."""
    root = resolve_data_dir(data_dir)
    empty = pd.DataFrame(columns=list(REQUIRED_COLUMNS + OPTIONAL_COLUMNS))
    if not root.is_dir():
        return Board(root, empty, message=_no_data_message(root, "the data folder does not exist yet."))
    path = root / LEADERBOARD_PATH
    if not path.is_file():
        return Board(root, empty, message=_no_data_message(root, f"`{LEADERBOARD_PATH.as_posix()}` is missing."))
    try:
        lb = pd.read_parquet(path)
    except Exception as exc:  # a half-written or corrupt file must not take the page down
        return Board(root, empty, message=_no_data_message(root, f"`{LEADERBOARD_PATH.as_posix()}` could not be "
                                                           f"read ({type(exc).__name__})."))
    missing = [c for c in REQUIRED_COLUMNS if c not in lb.columns]
    if missing:
        return Board(root, empty, message=_no_data_message(
            root, f"the leaderboard lacks columns {', '.join(missing)} — rebuild it with `slmboard rank`."))
    if lb.empty:
        return Board(root, empty, message=_no_data_message(root, "the leaderboard has no rows."))
    subs = pd.DataFrame()
    if (root / SUBMISSIONS_PATH).is_file():
        try:
            subs = pd.read_parquet(root / SUBMISSIONS_PATH)
        except Exception:  # the submissions table is decoration; the board works without it
            subs = pd.DataFrame()
    return Board(root, _normalise(lb), subs)


def json_safe(value: Any) -> Any:
    """NaN/NA -> None and numpy scalars -> Python, for JSON API answers."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return json_safe(value.item())
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return value


def records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-safe dicts; whole-number floats of rank/count columns become ints."""
    out = []
    for row in df.to_dict(orient="records"):
        clean = {}
        for k, v in row.items():
            v = json_safe(v)
            if isinstance(v, float) and k.startswith(("rank_", "n_", "delta_")) and v.is_integer():
                v = int(v)
            clean[k] = v
        out.append(clean)
    return out
