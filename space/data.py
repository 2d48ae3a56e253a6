"""Data access for the leaderboard Space: read a dataset folder laid out like the HF dataset repo.

Only pandas/pyarrow, `schemas` and the light `toolkit.scoring` are imported here (no torch). Nothing here recomputes scores: the leaderboard parquet is
the output of `slmboard rank`, which rebuilds it from per-item records; the Space only shows it.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

# schemas is shipped with the Space (`slmboard space deploy`)
from schemas.leaderboard import FLOAT_COLUMNS, INT_COLUMNS
from schemas.leaderboard import REQUIRED_COLUMNS as LEADERBOARD_REQUIRED

#: Where the data is read from when neither --data nor SLMBOARD_DATA is given:
#: the folder `slmboard demo` publishes into, relative to the working directory.
DEFAULT_DATA_DIR = Path("demo-output") / "dataset"
ENV_VAR = "SLMBOARD_DATA"

LEADERBOARD_PATH = Path("data") / "leaderboard" / "leaderboard.parquet"
SUBMISSIONS_PATH = Path("data") / "submissions" / "submissions.parquet"

#: The columns every leaderboard has (LeaderboardRow's required fields).
REQUIRED_COLUMNS: tuple[str, ...] = LEADERBOARD_REQUIRED
#: Bootstrap bounds etc.: shown when present, never required (older or CI-less rank runs).
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "s_raw_lo", "s_raw_hi", "s_adj_lo", "s_adj_hi", "rank_lo", "rank_hi", "rank_ub",
    "submission_id", "model_revision", "coverage",
)
CARD_PATH = Path("README.md")


@dataclass
class Board:
    """Everything the page shows, read once per build/refresh."""

    data_dir: Path
    leaderboard: pd.DataFrame
    submissions: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: a friendly explanation when there is nothing to show (None = all good)
    message: str | None = None
    #: {suite: (judge_id, why)}: the judge each suite is shown under by default
    primary: dict[str, tuple[str, str]] = field(default_factory=dict)

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
        """The suite's primary judge (see :func:`primary_judges`)."""
        if self.empty or suite is None or suite not in self.primary:
            return None
        return self.primary[suite][0]

    def judge_reason(self, suite: str | None) -> str:
        return self.primary.get(suite or "", ("", ""))[1]

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
    # Column types as LeaderboardRow declares them. Nullable ints arrive as float (NaN) or Int64 depending
    # on the writer; float + NaN is the one representation every formatting path below handles.
    for col in (*INT_COLUMNS, *FLOAT_COLUMNS):
        if col in lb.columns:
            lb[col] = pd.to_numeric(lb[col], errors="coerce").astype("float64")
    return lb


def card_primary_judges(root: Path) -> dict[str, str]:
    """``slmboard.primary_judges`` of the dataset card's YAML header ({} when absent or unreadable)."""
    return _card_block(root, "primary_judges")


def _card_block(root: Path, key: str) -> dict[str, str]:
    """``slmboard.<key>`` (a mapping) of the dataset card's YAML header; {} when absent or unreadable."""
    card = root / CARD_PATH
    if not card.is_file():
        return {}
    text = card.read_text(encoding="utf-8", errors="replace")
    if not text.startswith("---"):
        return {}
    header = text.split("---", 2)[1] if text.count("---") >= 2 else ""
    try:
        import yaml

        meta = yaml.safe_load(header) or {}
    except Exception:  # a broken card header must not take the page down; the rule still applies
        return {}
    block = meta.get("slmboard") if isinstance(meta, dict) else None
    found = block.get(key) if isinstance(block, dict) else None
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def primary_judges(root: Path, leaderboard: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """{suite: (judge, why)}: the judge the dataset card names for the suite, else the rule of
    ``toolkit.scoring.primary_judge`` (most models, then fewest failed items, then name)."""
    from toolkit.scoring.primary_judge import choose_primary_judges

    card = card_primary_judges(root)
    reasons = _card_block(root, "primary_judge_reasons")  # written by `submit`/`recompute` beside the choice
    out = {}
    for suite, pj in choose_primary_judges(leaderboard).items():
        chosen = card.get(suite)
        if chosen is not None and chosen in set(leaderboard.loc[leaderboard["suite"] == suite, "judge_id"]):
            why = f": {reasons[suite]}" if suite in reasons else ""
            out[suite] = (chosen, f"the suite's primary judge as the dataset card records it{why}")
        elif chosen is not None:
            out[suite] = (pj.judge_id, f"the dataset card names {chosen}, which has no rows here; by rule: {pj.reason}")
        else:
            out[suite] = (pj.judge_id, f"no primary judge in the dataset card; by rule: {pj.reason}")
    return out


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
    lb = _normalise(lb)
    if lb["model_revision"].isna().all() and {"model_id", "model_revision"} <= set(subs.columns):
        # the revision shown on hover comes from the submissions index when the leaderboard lacks it
        revs = subs.dropna(subset=["model_revision"]).drop_duplicates("model_id", keep="last")
        lb["model_revision"] = lb["model_id"].map(revs.set_index("model_id")["model_revision"])
    return Board(root, lb, subs, primary=primary_judges(root, lb))


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
