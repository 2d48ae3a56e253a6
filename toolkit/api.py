"""The Python API: each pipeline stage as one function (the CLI is a thin shell over these).

    from toolkit import api
    run = api.generate("runs/smol", suites=["smoke"], limit=5)
    api.judge("runs/smol", judge="heuristic")
    api.validate("runs/smol").raise_if_failed()
    api.submit("runs/smol", to="my-dataset")
    board = api.rank("my-dataset")
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd

from .errors import RecordError, ValidationFailed
from .validation import ValidationReport, validate_path

__all__ = ["generate", "judge", "validate", "submit", "rank", "read_items", "serve", "demo"]


def generate(out: str | Path, suites: Sequence[str] | str = ("smoke",), **kwargs):
    """Run a model on suites → response records in the run folder ``out`` (resumable).

    kwargs: model ("hf"), model_args ("pretrained=...,dtype=..."), data_dir, limit, batch_size,
    max_new_tokens, submission_id, show_progress.
    """
    from .generation import generate as _generate

    return _generate(out, suites=suites, **kwargs)


def judge(run_dir: str | Path, judge: str = "heuristic", **kwargs):
    """Add one judge's ItemRecords to a run (resumable; responses are never regenerated)."""
    from .judging import judge_run

    return judge_run(run_dir, judge=judge, **kwargs)


def validate(path: str | Path, kind: str | None = None) -> ValidationReport:
    """Validate a record file, a run folder or a dataset folder; the report lists every error."""
    return validate_path(path, kind=kind)


def submit(run_dir: str | Path, to: str | Path, **kwargs):
    """Validate a run and publish it into a dataset folder as one commit (nothing written on failure)."""
    from .publishing import submit as _submit

    return _submit(run_dir, to, **kwargs)


def read_items(data: str | Path) -> pd.DataFrame:
    """Per-item records as a DataFrame from a .jsonl/.parquet file, a run folder or a dataset folder."""
    from .reading import read_item_frame

    return read_item_frame(data)


def rank(data: str | Path, out: str | Path | None = None, n_bootstrap: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Recompute the leaderboard from per-item records only; optionally write leaderboard.parquet/.csv to ``out``."""
    from .publishing.submit import leaderboard_arrow
    from .scoring import compute_leaderboard

    table = compute_leaderboard(read_items(data), n_bootstrap=n_bootstrap, seed=seed)
    if out is not None:
        import pyarrow.parquet as pq

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        pq.write_table(leaderboard_arrow(table), out / "leaderboard.parquet")
        table.to_csv(out / "leaderboard.csv", index=False)
    return table


def serve(data: str | Path, host: str = "127.0.0.1", port: int | None = None, block: bool = True) -> str:
    """Start the leaderboard Space on ``data`` (a dataset folder); returns its URL."""
    from .space_launcher import launch_space

    return launch_space(data, host=host, port=port, block=block)


def demo(workdir: str | Path = "demo-output", **kwargs):
    """generate → judge → validate → submit → rank → serve on the embedded default."""
    from .demo import run_demo

    return run_demo(workdir, **kwargs)


# Re-exported for notebooks that catch validation problems.
ValidationFailed = ValidationFailed
RecordError = RecordError
