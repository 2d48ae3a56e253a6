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

__all__ = ["generate", "judge", "validate", "submit", "rank", "read_items", "serve", "demo", "merge", "analyze", "evaluate", "recompute",
           "moderate", "moderation_report", "export_eee", "export_eval_results"]


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

    from .reading import read_item_frame
    from .scoring.leaderboard import REQUIRED_COLUMNS

    # Only the columns the leaderboard uses: the text and nested generation columns dominate read time.
    from .publishing.rebuild import leaderboard_with_totals, read_manifests, suite_totals

    items = read_item_frame(data, columns=list(REQUIRED_COLUMNS) + ["submission_id", "model_revision"])
    # A dataset folder's manifests know each suite's total (coverage of partial runs); a run folder's do not.
    totals = suite_totals(read_manifests(Path(data))) if Path(data).is_dir() else {}
    table = leaderboard_with_totals(items, totals, n_bootstrap=n_bootstrap, seed=seed)
    if out is not None:
        import pyarrow.parquet as pq

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        pq.write_table(leaderboard_arrow(table), out / "leaderboard.parquet")
        table.to_csv(out / "leaderboard.csv", index=False)
    return table


def export_eee(data: str | Path, out: str | Path, n_bootstrap: int = 1000, seed: int = 0):
    """Every Eval Ever 0.3.0 files (one aggregate + samples file per model, suite and judge) in ``out``;
    numbers from the leaderboard recomputed from the per-item records of ``data``. Returns an EeeExport."""
    from .exporting.eee import export_eee as _export_eee

    return _export_eee(data, out, n_bootstrap=n_bootstrap, seed=seed)


def export_eval_results(data: str | Path, out: str | Path, dataset_id: str | None = None,
                        primary_judges: dict[str, str] | None = None, push: bool = False):
    """Hugging Face ``.eval_results/slmboard.yaml`` per model in ``out`` (S_adj of each suite under its
    primary judge); ``push=True`` also opens one pull request per model repo. Returns an EvalResultsExport."""
    from .exporting.eval_results import export_eval_results as _export

    return _export(data, out, dataset_id=dataset_id, primary_judges=primary_judges, push=push)


def serve(data: str | Path, host: str = "127.0.0.1", port: int | None = None, block: bool = True,
          refresh: float | None = None) -> str:
    """Start the leaderboard Space on ``data`` (a dataset folder or Hub id); returns its URL.
    ``refresh``: re-read the data this often (seconds) when it changed; default 300, 0 = only on Refresh."""
    from .space_launcher import launch_space

    return launch_space(data, host=host, port=port, block=block, refresh=refresh)


def demo(workdir: str | Path = "demo-output", **kwargs):
    """generate → judge → validate → submit → rank → serve on the embedded default."""
    from .demo import run_demo

    return run_demo(workdir, **kwargs)


def merge(shards, out: str | Path, data_dir: str | Path | None = None):
    """Combine ``generate --shard K/N`` run folders into one run folder, checked complete against the suites."""
    from .generation.merge import merge_runs

    return merge_runs(shards, out, data_dir=data_dir)


def agreement(data: str | Path, judge_a: str, judge_b: str, out: str | Path | None = None):
    """Agreement of two judges per suite (paper 1 Tables 5-6); with ``out``, writes agreement.json/.csv there.

    Returns (result keyed by suite, (json path, csv path) or None).
    """
    from .judging.agreement import agreement_by_suite, write_agreement
    from .reading import read_item_frame

    frame = read_item_frame(data, columns=["suite", "judge_id", "model_id", "item_id", "score"])
    result, extra = agreement_by_suite(frame, judge_a, judge_b)
    paths = write_agreement(result, extra, (judge_a, judge_b), out) if out is not None else None
    return result, paths


# Re-exported for notebooks that catch validation problems.
ValidationFailed = ValidationFailed
RecordError = RecordError


def analyze(data: str | Path, out: str | Path, submissions: str | Path | None = None, **kwargs) -> dict:
    """Paper 1's diagnostics on per-item records → tables, figures and summary.json in ``out``.

    kwargs: n_bootstrap, seed, max_prompts, metrics (False = skip the 12 metrics), unseen_k, show_progress.
    """
    from .analysis import run_analysis

    return run_analysis(data, out, submissions=submissions, **kwargs)


def evaluate(out: str | Path, to: str | Path, suites: Sequence[str] | str = ("smoke",), judge: str = "heuristic",
             submitter: str | None = None, n_bootstrap: int = 1000, create_pr: bool = False,
             data_dir: str | Path | None = None, show_progress: bool = True, **generate_kwargs):
    """generate → judge → submit in one call. Each step resumes what a previous attempt left in ``out``;
    a run that is already in the dataset is reported, not published twice."""
    from .errors import SlmboardError
    from .publishing import SubmitResult
    from .runs import RunDir

    globals()["generate"](out, suites=suites, data_dir=data_dir, show_progress=show_progress, **generate_kwargs)
    globals()["judge"](out, judge=judge, show_progress=show_progress)
    try:
        return submit(out, to=to, submitter=submitter, n_bootstrap=n_bootstrap, data_dir=data_dir, create_pr=create_pr)
    except SlmboardError as exc:
        if "is already in" not in str(exc):
            raise
        sid = RunDir(out).load_config().submission_id
        return SubmitResult(str(to), sid, "already-published", [], 0, notes=[str(exc)])


def recompute(dataset: str | Path, **kwargs):
    """(Maintainers) rebuild leaderboard + figures of a dataset from its per-item records and commit;
    kwargs: n_bootstrap, rejudge (items per submission file), judge, threshold, seed, commit."""
    from .publishing.recompute import recompute as _recompute

    return _recompute(dataset, **kwargs)



def moderate(out: str | Path, benchmarks: Sequence[str] | str = ("xstest", "ethics"), model: str = "hf",
             variant: str = "default", data: dict | None = None, lists_dir: str | Path | None = None,
             limit: int | None = None, submission_id: str | None = None, batch_size: int = 8,
             show_progress: bool = True, **moderator_kwargs):
    """Run a moderator on the flag / do-not-flag suite (paper 2) → RUN/moderation/<benchmark>.jsonl (resumable).

    model: "hf" (local transformers; default the embedded SmolLM2), "openai" (base_url, served_model,
    tokenizer), "guard" (guard, model_dir). data: benchmark -> source export file or mirror folder."""
    from .moderation.runner import run_moderator
    from .moderation.workflow import make_moderator

    if isinstance(benchmarks, str):
        benchmarks = [b.strip() for b in benchmarks.split(",") if b.strip()]
    moderator = make_moderator(model, batch_size=batch_size, **moderator_kwargs)
    return run_moderator(out, moderator, benchmarks, variant=variant, data=data, lists_dir=lists_dir, limit=limit,
                         submission_id=submission_id, batch_size=batch_size, show_progress=show_progress)


def moderation_report(data: str | Path, out: str | Path, **kwargs):
    """Moderator reliability report from ModerationRecords → DIR/moderators.csv (+ stability, cost curves,
    figures); kwargs: n_bootstrap, n_splits, seed, stability_repeats, figures."""
    from .moderation.workflow import write_report

    return write_report(data, out, **kwargs)
