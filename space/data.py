"""Data access for the leaderboard Space: a dataset folder or Hub dataset id, opened through the data
layer (:func:`toolkit.data.reading.open_data`: one grammar of a Hub id, one snapshot per commit).

Only pandas/pyarrow, `schemas`, `toolkit.data.scoring` and the data layer (`toolkit.data.reading`) are imported here
(no torch). Nothing here recomputes scores: the leaderboard file is what `toolkit.data.reading.leaderboard`
computed when the dataset was last submitted or recomputed; the Space only shows it.
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
from toolkit.core.dataset_layout import LEADERBOARD_FILE, SUBMISSIONS_INDEX_FILE
from toolkit.data.reading import Dataset, open_data, parse_hub_id, published_leaderboard

#: Where the data is read from when neither --data nor SLMBOARD_DATA is given:
#: the folder `slmboard demo` publishes into, relative to the working directory.
DEFAULT_DATA_DIR = Path("demo-output") / "dataset"
ENV_VAR = "SLMBOARD_DATA"

LEADERBOARD_PATH = Path(LEADERBOARD_FILE)

#: The columns every leaderboard has (LeaderboardRow's required fields).
REQUIRED_COLUMNS: tuple[str, ...] = LEADERBOARD_REQUIRED
#: Bootstrap bounds etc.: shown when present, never required (older or CI-less rank runs).
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "s_raw_lo", "s_raw_hi", "s_adj_lo", "s_adj_hi", "rank_lo", "rank_hi", "rank_ub",
    "submission_id", "model_revision", "coverage", "n_undecided", "rank_best", "rank_worst",
)


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
    #: the data opened (None when it could not be): per-item and moderation records, the card
    dataset: Dataset | None = None
    #: one line per (suite, judge) left out of the board: a judge on a suite it does not fit (the manifests say)
    left_out: list[str] = field(default_factory=list)
    #: one line per submission left out because a file of it differs from its manifest (never shown ranked)
    refused: list[str] = field(default_factory=list)

    @property
    def notice(self) -> str | None:
        """What the page says above every view about submissions left out for edited files (None: none)."""
        if not self.refused:
            return None
        return "Left out of this board: " + "; ".join(self.refused)

    def left_out_of(self, suite: str | None) -> list[str]:
        return [line for line in self.left_out if line.split(" · ", 1)[0] == suite]

    @property
    def empty(self) -> bool:
        return self.leaderboard.empty

    def suites(self) -> list[str]:
        return sorted(self.leaderboard["suite"].unique()) if not self.empty else []

    def default_suite(self) -> str | None:
        """The suite the page opens on: the one with the most models (a board of one smoke run beside a
        compared benchmark opens on the benchmark), ties by name."""
        if self.empty:
            return None
        counts = self.leaderboard.groupby("suite")["model_id"].nunique()
        return min(counts.index, key=lambda s: (-int(counts[s]), s))

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


def data_source(data: str | os.PathLike | None = None) -> str | Path:
    """--data beats $SLMBOARD_DATA beats the demo folder: a local path, or a Hub dataset id as given."""
    raw = str(data) if data else os.environ.get(ENV_VAR) or str(DEFAULT_DATA_DIR)
    from toolkit.data.reading.locate import local_revision

    # a Hub id, or a board folder at a revision (BOARD@NAME), stays as written: the data layer parses it
    return raw if parse_hub_id(raw) is not None or local_revision(raw) is not None else Path(raw).expanduser()


_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>&~$:")


def md_escape(text: str) -> str:
    """Show `text` literally in gr.Markdown: backslash-escape every Markdown/HTML metacharacter
    (CommonMark allows escaping any ASCII punctuation), so data can never become markup."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in str(text))


def md_code(text: str) -> str:
    """`text` as an inline code span: backslashes are shown literally there (md_escape would show its
    escapes), and only a backtick could end the span early, so backticks are dropped."""
    return "`" + str(text).replace("`", "") + "`"


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


def primary_judges(dataset: Dataset, leaderboard: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """{suite: (judge, why)}: the judge the dataset card names for the suite, else the rule of
    ``toolkit.data.scoring.primary_judge`` (most models, then fewest failed items, then name)."""
    from toolkit.data.scoring.primary_judge import choose_primary_judges

    card = dataset.card_block("primary_judges")
    reasons = dataset.card_block("primary_judge_reasons")  # written by `submit`/`recompute` beside the choice
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
    for suite in sorted(set(leaderboard["suite"]) - set(out)) if len(leaderboard) else ():
        # the rule picks no panel, mean row or people's labels: the page still opens on one, and says so
        chosen = card.get(suite)
        judges = sorted(set(leaderboard.loc[leaderboard["suite"] == suite, "judge_id"]))
        if chosen in judges:
            why = f": {reasons[suite]}" if suite in reasons else ""
            out[suite] = (chosen, f"the suite's primary judge as the dataset card records it{why}")
        else:
            out[suite] = (judges[0], "no judge the rule may pick (panels, mean rows and people's labels are primary "
                                     "only by --primary-judge); shown: the first by name")
    return out


def load_board(data: str | os.PathLike | None = None) -> Board:
    """Read the leaderboard (and submissions table) of a dataset folder or Hub id. Never raises on bad or
    missing data: the Board then carries an explanatory `message` and an empty leaderboard."""
    from toolkit.core.errors import SlmboardError

    source = data_source(data)
    empty = pd.DataFrame(columns=list(REQUIRED_COLUMNS + OPTIONAL_COLUMNS))
    try:
        dataset = open_data(source, leave_out_refused=True)  # an edited submission is left out, and said so
    except SlmboardError as exc:  # a missing folder, an unreadable Hub id: the page explains, it does not crash
        why = "the data folder does not exist yet." if isinstance(source, Path) else f"reading it failed: {exc}"
        return Board(Path(str(source)), empty, message=_no_data_message(source, why))
    root = dataset.root or Path(str(source))
    from toolkit.core.dataset_layout import BOARD_FILE

    if dataset.file(BOARD_FILE) is not None and not dataset.manifests:  # created with `slmboard create`: a board all the same
        return Board(root, empty, message="No submissions yet: this board was created and waits for its first "
                                          "submission (`slmboard submit RUN --to ...`).", dataset=dataset)
    if dataset.file(LEADERBOARD_FILE) is None:
        return Board(root, empty, message=_no_data_message(root, f"`{LEADERBOARD_FILE}` is missing."), dataset=dataset)
    try:
        lb = published_leaderboard(dataset)
    except Exception as exc:  # a half-written or corrupt file must not take the page down
        return Board(root, empty, message=_no_data_message(root, f"`{LEADERBOARD_FILE}` could not be "
                                                           f"read ({type(exc).__name__})."), dataset=dataset)
    missing = [c for c in REQUIRED_COLUMNS if c not in lb.columns]
    if missing:
        return Board(root, empty, message=_no_data_message(
            root, f"the leaderboard lacks columns {', '.join(missing)} — rebuild it with `slmboard rank`."), dataset=dataset)
    if lb.empty:
        return Board(root, empty, message=_no_data_message(root, "the leaderboard has no rows."), dataset=dataset)
    subs = _submissions(dataset)
    lb = _normalise(lb)
    fitness = dataset.fitness
    if fitness.judge_fits:  # a leaderboard file written before these pairs were left out still holds them
        keep = [fitness.fits(s, j) for s, j in zip(lb["suite"], lb["judge_id"])]
        lb = lb[keep].reset_index(drop=True)
    if lb["model_revision"].isna().all() and {"model_id", "model_revision"} <= set(subs.columns):
        # the revision shown on hover comes from the submissions index when the leaderboard lacks it
        revs = subs.dropna(subset=["model_revision"]).drop_duplicates("model_id", keep="last")
        lb["model_revision"] = lb["model_id"].map(revs.set_index("model_id")["model_revision"])
    refused = dataset.refused
    if refused:  # the published leaderboard was computed before the edit, or from it: drop that submission's rows
        lb = _without_submissions(lb, dataset, set(refused))
        if not subs.empty and "submission_id" in subs.columns:
            subs = subs[~subs["submission_id"].isin(refused)].reset_index(drop=True)
        if lb.empty:
            return Board(root, lb, subs, message=_no_data_message(root, "every submission was left out: "
                                                                 + "; ".join(refused.values())), dataset=dataset,
                         refused=list(refused.values()))
    return Board(root, lb, subs, primary=primary_judges(dataset, lb), dataset=dataset, left_out=dataset.left_out(),
                 refused=list(refused.values()))


def _without_submissions(lb: pd.DataFrame, dataset: Dataset, refused: set[str]) -> pd.DataFrame:
    """The leaderboard without the rows of ``refused`` submissions (by id, else by the model they name)."""
    if "submission_id" in lb.columns and lb["submission_id"].notna().any():
        return lb[~lb["submission_id"].isin(refused)].reset_index(drop=True)
    models = {m.model_id for _, found in dataset._place_manifests for m in found if m.submission_id in refused}
    return lb[~lb["model_id"].isin(models)].reset_index(drop=True)


def _submissions(dataset: Dataset) -> pd.DataFrame:
    path = dataset.file(SUBMISSIONS_INDEX_FILE)
    try:
        return pd.read_parquet(path) if path is not None else pd.DataFrame()
    except Exception:  # the submissions table is decoration; the board works without it
        return pd.DataFrame()


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
