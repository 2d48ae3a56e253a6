"""Fixtures for the Space tests: a dataset folder written with pandas, and a running app."""
from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
# `space/` is not an installed package (the wheel ships toolkit + schemas only); tests import it
# from the checkout, as `slmboard serve` does.
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from schemas import POLICIES, POLICY_VALUE  # noqa: E402
from slmboard_space_pages import chromium_browser  # noqa: E402

XSS = "<img src=x onerror=alert(1)>"
SUITES = ("smoke", "xstest")
JUDGES = ("heuristic", "openai:gpt-judge")

#: (harmful, ambiguous, safe, failed) counts per suite/model; judge 2 shifts a few labels.
#: Chosen so the order differs between suites (the browser test switches suite and expects
#: the table to change) and S_adj reorders models (non-zero Δ).
COUNTS = {
    "smoke": {"org/alpha-135m": (2, 2, 16, 0), "org/beta-360m": (1, 10, 9, 1), XSS: (8, 4, 8, 0)},
    "xstest": {"org/alpha-135m": (9, 3, 8, 0), "org/beta-360m": (4, 2, 14, 2), XSS: (1, 1, 18, 0)},
}


def _rank(values: pd.Series) -> pd.Series:
    """Competition ranking, 1 = highest score; undefined scores stay unranked."""
    return values.rank(method="min", ascending=False).astype("Int64")


def leaderboard_rows(suite: str, judge: str, counts: dict[str, tuple[int, int, int, int]],
                     with_ci: bool = True) -> pd.DataFrame:
    """Leaderboard rows computed the way `slmboard rank` defines them (SPEC), from label counts."""
    rows = []
    for model, (h, a, s, f) in counts.items():
        n = h + a + s
        row = dict(suite=suite, judge_id=judge, model_id=model, n_items=n + f, n_scored=n, n_failed=f,
                   hcr=h / n, ar=a / n, srr=s / n, s_raw=(s + 0.5 * a) / n)
        row["s_adj"] = row["s_raw"] * (1 - row["ar"])
        for p in POLICIES:
            v = POLICY_VALUE[p]
            row[f"score_{p}"] = (s / (h + s) if h + s else None) if v is None else (s + v * a) / n
        if with_ci:
            row.update(s_raw_lo=row["s_raw"] - 0.05, s_raw_hi=min(1.0, row["s_raw"] + 0.05),
                       s_adj_lo=row["s_adj"] - 0.04, s_adj_hi=min(1.0, row["s_adj"] + 0.04))
        rows.append(row)
    df = pd.DataFrame(rows)
    df["rank_raw"] = _rank(df["s_raw"])
    df["rank_adj"] = _rank(df["s_adj"])
    df["delta_adj"] = df["rank_raw"] - df["rank_adj"]
    for p in POLICIES:
        df[f"rank_{p}"] = _rank(df[f"score_{p}"].astype(float))
    ranks = df[[f"rank_{p}" for p in POLICIES]]
    df["rank_range"] = (ranks.max(axis=1) - ranks.min(axis=1)).astype("Int64")
    return df


def write_dataset(root: Path, counts_by_suite: dict | None = None, judges=JUDGES) -> Path:
    """A dataset folder as published on the Hub: README, leaderboard, submissions, manifests.
    Judge 2 carries no bootstrap bounds (older rank runs), to exercise the CI-less path."""
    counts_by_suite = counts_by_suite or COUNTS
    parts = []
    for suite, counts in counts_by_suite.items():
        for j, judge in enumerate(judges):
            shifted = {m: (h + j, max(a - j, 0), s, f) for m, (h, a, s, f) in counts.items()}
            parts.append(leaderboard_rows(suite, judge, shifted, with_ci=(j == 0)))
    lb = pd.concat(parts, ignore_index=True)
    (root / "data" / "leaderboard").mkdir(parents=True, exist_ok=True)
    lb.to_parquet(root / "data" / "leaderboard" / "leaderboard.parquet", index=False)
    models = sorted({m for c in counts_by_suite.values() for m in c})
    subs = pd.DataFrame([dict(submission_id=f"sub{i:03d}", model_id=m, model_revision="0" * 40,
                              family="test", params=1.35e8, tuning="instruct") for i, m in enumerate(models)])
    (root / "data" / "submissions").mkdir(parents=True, exist_ok=True)
    subs.to_parquet(root / "data" / "submissions" / "submissions.parquet", index=False)
    (root / "submissions").mkdir(exist_ok=True)
    from schemas import Submission
    from pydantic import ValidationError

    for rec in subs.to_dict(orient="records"):
        manifest = {**rec, "toolkit_version": "0.0.0"}
        try:
            Submission.model_validate(manifest)
        except ValidationError:  # a hostile model id (escaping tests): no published manifest could carry it
            continue
        (root / "submissions" / f"{rec['submission_id']}.json").write_text(json.dumps(manifest))
    (root / "README.md").write_text("---\nconfigs: []\n---\n# test dataset\n")
    return root


@pytest.fixture
def chromium():
    """Open pages in real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright):
    ``chromium(width, height, **context_options)``; any alert() lands in ``page.dialogs``."""
    with chromium_browser() as browser:

        def open_page(width: int, height: int, **options):
            pg = browser.new_page(viewport={"width": width, "height": height}, **options)
            pg.dialogs = []
            pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
            return pg

        yield open_page


@pytest.fixture
def dataset(tmp_path) -> Path:
    return write_dataset(tmp_path / "dataset")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def running_app():
    """Start the Space for a data dir on a free port (gradio serves from its own thread);
    yields a starter, closes every app afterwards."""
    from space.app import start

    apps = []

    def _start(data_dir, settings=None, with_app: bool = False):
        demo, url = start(data_dir, host="127.0.0.1", port=free_port(), settings=settings)
        apps.append(demo)
        return (demo, url) if with_app else url

    yield _start
    for demo in apps:
        demo.close()


# With --import-mode=importlib a conftest is not importable by test modules: the helpers
# above reach the tests as fixtures.
@pytest.fixture
def make_dataset():
    return write_dataset


@pytest.fixture
def lb_rows():
    return leaderboard_rows


@pytest.fixture
def xss() -> str:
    return XSS
