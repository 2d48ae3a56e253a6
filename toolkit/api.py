"""The Python API: each pipeline stage as one typed function (every CLI command is a thin shell over these).

    from toolkit import api
    run = api.generate("runs/smol", suites=["smoke"], limit=5)
    api.judge("runs/smol", judge="heuristic")
    api.validate("runs/smol").raise_if_failed()
    api.submit("runs/smol", to="my-dataset")
    board = api.rank("my-dataset")

Every error meant for a user is a :class:`~toolkit.errors.SlmboardError` (the CLI prints it and
exits 1). Heavy modules are imported inside the functions that need them.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import pandas as pd

from .errors import BadOption, RecordError, ValidationFailed
from .validation import ValidationReport, validate_path

if TYPE_CHECKING:
    from .generation import Backend, GenerateResult, MergeResult
    from .judging import Judge, JudgeResult
    from .moderation.runner import ModerationRunResult
    from .moderation.suite import ModerationItem
    from .moderation.workflow import ReportResult
    from .publishing import SubmitResult
    from .exporting.eee import EeeExport
    from .exporting.eval_results import EvalResultsExport
    from .fanout import BoardResult
    from .importing import ImportResult
    from .publishing.recompute import RecomputeResult

__all__ = ["generate", "judge", "validate", "submit", "rank", "read_items", "serve", "demo", "merge", "agreement", "analyze",
           "evaluate", "evaluate_models", "recompute", "moderate", "moderation_report", "import_released_moderation", "build_moderation_list", "export_eee", "export_eval_results",
           "import_results",
           "ValidationFailed", "RecordError"]

PathLike = str | Path
#: Where records come from: a record file, a run folder, several run folders, a dataset folder or a Hub dataset id.
DataSource = str | Path | Sequence[str | Path]


def generate(
    out: PathLike,
    suites: Sequence[str] | str = ("smoke",),
    model: str = "hf",
    model_args: str | dict[str, str] | None = None,
    data_dir: PathLike | None = None,
    limit: int | None = None,
    batch_size: int | str | None = None,
    max_new_tokens: int | None = None,
    submission_id: str | None = None,
    backend: Backend | None = None,
    show_progress: bool = True,
    shard: str | None = None,
    mode: str = "generate",
    concurrency: int | None = None,
    executor: str = "local",
    shards: int | None = None,
    ray_address: str | None = None,
    gpus_per_task: float | None = None,
    cpus_per_task: float | None = None,
) -> GenerateResult:
    """Run a model on suites → response records in the run folder ``out`` (resumable).

    ``model`` names a registered backend (hf, openai, vllm) built from ``model_args``
    ("pretrained=...,dtype=..."), unless ``backend`` is given; ``shard`` is "K/N"; ``mode`` is how
    multiple-choice suites are answered (generate | loglikelihood); ``concurrency`` is how many prompts are
    in flight at once (openai: requests; hf: rows of the continuous batch).

    ``executor`` ("local", "ray") with ``shards=N`` runs the run as N ``shard`` jobs (on a Ray cluster at
    ``ray_address``, each task declaring ``gpus_per_task`` / ``cpus_per_task``) and merges them into ``out``.
    """
    from .generation.runner import generate as run_generation
    from .fanout import generate_fanned_out, wants_fanout
    from .fanout.plan import fanout_refusals, generation_options

    if wants_fanout(executor, shards, ray_address, gpus_per_task, cpus_per_task):
        fanout_refusals(backend=backend, shard=shard)
        options = generation_options(suites, model, model_args, data_dir, limit, batch_size, max_new_tokens,
                                     submission_id, mode, concurrency)
        return generate_fanned_out(out, options, executor, shards, ray_address, gpus_per_task, cpus_per_task, show_progress)
    return run_generation(out, suites=suites, model=model, model_args=model_args, data_dir=data_dir, limit=limit,
                          batch_size=batch_size, max_new_tokens=max_new_tokens, submission_id=submission_id,
                          backend=backend, show_progress=show_progress, shard=shard, mode=mode,
                          concurrency=concurrency)


def judge(
    run_dir: PathLike,
    judge: str | Judge = "heuristic",
    suites: Sequence[str] | None = None,
    batch_size: int = 32,
    show_progress: bool = True,
    retry_errors: bool = True,
    **judge_options: Any,
) -> JudgeResult:
    """Add one judge's ItemRecords to a run (resumable; responses are never regenerated).

    ``judge`` is a spec ("learned", "heuristic", "openai:MODEL", "mdjudge", ...) or a Judge; ``judge_options``
    go to the judge's factory (e.g. base_url, concurrency); ``retry_errors`` judges earlier API
    failures again.
    """
    from .judging.runner import judge_run

    return judge_run(run_dir, judge=judge, suites=suites, batch_size=batch_size, show_progress=show_progress,
                     retry_errors=retry_errors, **judge_options)


def validate(path: PathLike, kind: str | None = None) -> ValidationReport:
    """Validate a record file, a run folder or a dataset folder; the report lists every error."""
    return validate_path(path, kind=kind)


def submit(
    run_dir: PathLike,
    to: PathLike,
    submitter: str | None = None,
    n_bootstrap: int = 1000,
    data_dir: PathLike | None = None,
    create_pr: bool = False,
    xet: bool | None = None,
    primary_judges: dict[str, str] | None = None,
    gate: bool | None = None,
    allow_partial: bool = False,
) -> SubmitResult:
    """Validate a run and publish it into a dataset folder or Hub dataset as one commit (nothing written on failure).

    ``primary_judges`` (suite -> judge) and ``gate`` (False: no access gate) update the dataset card's choices;
    ``allow_partial`` publishes a run lacking canonical suite items (the manifest lists them).
    """
    from .publishing.submit import submit as publish

    return publish(run_dir, to, submitter=submitter, n_bootstrap=n_bootstrap, data_dir=data_dir, create_pr=create_pr, xet=xet,
                   primary_judges=primary_judges, gate=gate, allow_partial=allow_partial)


def read_items(data: DataSource) -> pd.DataFrame:
    """Per-item records as a DataFrame from a .jsonl/.parquet file, run folder(s), a dataset folder or a
    Hub dataset id (checked: scores, duplicates; errors name the source file and line)."""
    from .reading import read_item_frame

    return read_item_frame(data)


def rank(data: DataSource, out: PathLike | None = None, n_bootstrap: int = 1000, seed: int = 0,
         suite_totals: dict[str, int] | None = None) -> pd.DataFrame:
    """Recompute the leaderboard from per-item records only; optionally write leaderboard.parquet/.csv to ``out``.

    DATA: a record file, run folder(s), a dataset folder or a Hub dataset id (ORG/NAME[@rev]); read one
    (suite, judge) group at a time, so memory follows the largest group, not the number of records.
    ``coverage`` uses ``suite_totals``, by default the suite totals the dataset's manifests record.
    """
    from .reading import leaderboard, write_leaderboard

    table = leaderboard(data, n_bootstrap=n_bootstrap, seed=seed, suite_totals=suite_totals)
    if out is not None:
        write_leaderboard(table, out)
    return table


def import_results(
    fmt: str,
    sources: Sequence[PathLike],
    out: PathLike,
    suite: str | None = None,
    model_id: str | None = None,
    model_revision: str | None = None,
    data_dir: PathLike | None = None,
    id_map: str | None = None,
    skip_unmatched: bool = False,
    accept_reworded: bool = False,
    submission_id: str | None = None,
    columns: str | None = None,
    judge_columns: Sequence[str] | None = None,
    labels: str | None = None,
    helm_version: str | None = None,
    judge_models: Sequence[str] | None = None,
    prompt_field: str | None = None,
) -> ImportResult:
    """Another tool's results (``fmt``: table, eee, lm-eval, inspect, helm) → the run folder ``out``, or more
    judges for the run already there (same responses byte for byte); nothing is written on error.

    ``columns``/``judge_columns``/``labels`` are the ``table`` format's options, ``helm_version`` the HELM
    release whose judge models name the HELM annotators' judges, ``judge_models`` ("KEY=MODEL", e.g.
    ``claude=anthropic/claude-3-5-sonnet-20240620``) the judge model behind a HELM annotation key (a key
    neither names is refused), ``prompt_field`` the lm-eval doc field holding the prompt (default: the
    first of prompt, prompts_final, ...). ``skip_unmatched`` also leaves out the parts of a source that
    say no suite slmboard has (a HELM run folder of another scenario); ``suite`` applies only to sources
    (or parts) that do not say their suite."""
    from .importing import import_source

    options = dict(columns=columns, judge_columns=list(judge_columns) if judge_columns else None, labels=labels,
                   helm_version=helm_version, judge_models=list(judge_models) if judge_models else None, prompt_field=prompt_field)
    return import_source(fmt, list(sources), out, suite=suite, model_id=model_id, model_revision=model_revision,
                         data_dir=data_dir, id_map=id_map, skip_unmatched=skip_unmatched, accept_reworded=accept_reworded,
                         submission_id=submission_id, **{k: v for k, v in options.items() if v is not None})


def task_folder(tool: str = "lm-eval") -> Path:
    """The folder of slmboard's suites as ``tool``'s task configs (``lm-eval``: pass it to ``--include_path``)."""
    if tool != "lm-eval":
        raise BadOption(f"no task configs for {tool!r}; slmboard ships them for: lm-eval", param="tool")
    from .lm_eval_tasks import tasks_dir

    return tasks_dir()


def export_eee(data: PathLike, out: PathLike, n_bootstrap: int = 1000, seed: int = 0) -> EeeExport:
    """Every Eval Ever 0.3.0 files (one aggregate + samples file per model, suite and judge) in ``out``;
    numbers from the leaderboard recomputed from the per-item records of ``data``."""
    from .exporting.eee import export_eee as _export_eee

    return _export_eee(data, out, n_bootstrap=n_bootstrap, seed=seed)


def export_eval_results(data: PathLike, out: PathLike, dataset_id: str | None = None,
                        primary_judges: dict[str, str] | None = None, push: bool = False) -> EvalResultsExport:
    """Hugging Face ``.eval_results/slmboard.yaml`` per model in ``out`` (S_adj of each suite under its
    primary judge); ``push=True`` also opens one pull request per model repo."""
    from .exporting.eval_results import export_eval_results as _export

    result = _export(data, out, dataset_id=dataset_id, primary_judges=primary_judges)
    if push:
        from .exporting.push import push_eval_results

        result.pushed = push_eval_results(result)
    return result


def serve(data: PathLike, host: str = "127.0.0.1", port: int | None = None, block: bool = True,
          refresh: float | None = None) -> str:
    """Start the leaderboard Space on ``data`` (a dataset folder or Hub id); returns its URL.
    ``refresh``: re-read the data this often (seconds) when it changed; default 300, 0 = only on Refresh."""
    from .space_launcher import launch_space

    return launch_space(data, host=host, port=port, block=block, refresh=refresh)


def demo(
    workdir: PathLike = "demo-output",
    limit: int | None = None,
    max_new_tokens: int | None = None,
    serve: bool = True,
    port: int | None = 7860,
    fresh: bool = False,
    show_progress: bool = True,
    n_bootstrap: int = 1000,
) -> dict[str, Any]:
    """generate → judge → validate → submit → rank → serve on the embedded default."""
    from .demo import run_demo

    return run_demo(workdir, limit=limit, max_new_tokens=max_new_tokens, serve=serve, port=port, fresh=fresh,
                    show_progress=show_progress, n_bootstrap=n_bootstrap)


def merge(shards: Sequence[PathLike], out: PathLike, data_dir: PathLike | None = None) -> MergeResult:
    """Combine ``generate --shard K/N`` run folders into one run folder, checked complete against the suites."""
    from .generation.merge import merge_runs

    return merge_runs(shards, out, data_dir=data_dir)


def agreement(
    data: DataSource, judge_a: str, judge_b: str, out: PathLike | None = None
) -> tuple[dict[str, dict[str, Any]], tuple[Path, Path] | None]:
    """Agreement of two judges per suite (paper 1 Tables 5-6); with ``out``, writes agreement.json/.csv there.

    Returns (result keyed by suite, (json path, csv path) or None).
    """
    from .judging.agreement import judge_agreement

    return judge_agreement(data, judge_a, judge_b, out=out)


def analyze(
    data: PathLike,
    out: PathLike,
    submissions: PathLike | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    max_prompts: int | None = None,
    metrics: bool = True,
    unseen_k: int | None = None,
    show_progress: bool = True,
) -> dict[str, Any]:
    """Paper 1's diagnostics on per-item records → tables, figures and summary.json in ``out``; returns the summary."""
    from .analysis import run_analysis

    return run_analysis(data, out, submissions=submissions, n_bootstrap=n_bootstrap, seed=seed, max_prompts=max_prompts,
                        metrics=metrics, unseen_k=unseen_k, show_progress=show_progress)


def evaluate(
    out: PathLike,
    to: PathLike,
    suites: Sequence[str] | str = ("smoke",),
    judge: str = "heuristic",
    submitter: str | None = None,
    n_bootstrap: int = 1000,
    create_pr: bool = False,
    data_dir: PathLike | None = None,
    show_progress: bool = True,
    model: str = "hf",
    model_args: str | dict[str, str] | None = None,
    limit: int | None = None,
    batch_size: int | str | None = None,
    max_new_tokens: int | None = None,
    submission_id: str | None = None,
    backend: Backend | None = None,
    executor: str = "local",
    shards: int | None = None,
    ray_address: str | None = None,
    gpus_per_task: float | None = None,
    cpus_per_task: float | None = None,
) -> SubmitResult:
    """generate → judge → submit in one call. Each step resumes what a previous attempt left in ``out``;
    a run that is already in the dataset is reported, not published twice. ``executor``, ``shards``,
    ``ray_address``, ``gpus_per_task``, ``cpus_per_task``: as in :func:`generate`."""
    from .fanout import evaluate_fanned_out, wants_fanout
    from .fanout.plan import fanout_refusals, generation_options, single_outcome
    from .judging.runner import judge_run
    from .publishing.submit import submit_unless_published

    if wants_fanout(executor, shards, ray_address, gpus_per_task, cpus_per_task):
        fanout_refusals(backend=backend)
        options = generation_options(suites, model, model_args, data_dir, limit, batch_size, max_new_tokens,
                                     submission_id, "generate", None)
        board = evaluate_fanned_out(out, to, options, judge, dict(submitter=submitter, n_bootstrap=n_bootstrap,
                                    data_dir=data_dir, create_pr=create_pr), executor, shards, ray_address, gpus_per_task,
                                    cpus_per_task, show_progress)
        return single_outcome(board).submitted
    generate(out, suites=suites, model=model, model_args=model_args, data_dir=data_dir, limit=limit, batch_size=batch_size,
             max_new_tokens=max_new_tokens, submission_id=submission_id, backend=backend, show_progress=show_progress)
    judge_run(out, judge=judge, show_progress=show_progress)
    return submit_unless_published(out, to=to, submitter=submitter, n_bootstrap=n_bootstrap, data_dir=data_dir,
                                   create_pr=create_pr)


def evaluate_models(
    models: PathLike,
    out: PathLike,
    to: PathLike,
    suites: Sequence[str] | str = ("smoke",),
    judge: str = "heuristic",
    submitter: str | None = None,
    n_bootstrap: int = 1000,
    create_pr: bool = False,
    data_dir: PathLike | None = None,
    show_progress: bool = True,
    model: str = "hf",
    limit: int | None = None,
    batch_size: int | str | None = None,
    max_new_tokens: int | None = None,
    executor: str = "local",
    shards: int | None = None,
    ray_address: str | None = None,
    gpus_per_task: float | None = None,
    cpus_per_task: float | None = None,
) -> BoardResult:
    """A whole board in one call: generate → judge → submit for every entry of the models file ``models``
    (one run folder per entry under ``out``). Every (model, shard) job is scheduled at once on
    ``executor``; each model is judged and submitted as soon as its shards are complete; a model that
    fails is reported in the result and the others go on. The file is checked before anything runs."""
    from .fanout import evaluate_fanned_out
    from .fanout.plan import generation_options

    options = generation_options(suites, model, None, data_dir, limit, batch_size, max_new_tokens, None, "generate", None)
    return evaluate_fanned_out(out, to, options, judge, dict(submitter=submitter, n_bootstrap=n_bootstrap, data_dir=data_dir,
                               create_pr=create_pr), executor, shards, ray_address, gpus_per_task, cpus_per_task,
                               show_progress, models=models)


def recompute(
    dataset: PathLike,
    n_bootstrap: int = 1000,
    rejudge: int = 0,
    judge: str = "heuristic",
    threshold: float = 0.2,
    seed: int = 0,
    commit: bool = True,
    xet: bool | None = None,
    primary_judges: dict[str, str] | None = None,
    gate: bool | None = None,
) -> RecomputeResult:
    """(Maintainers) rebuild leaderboard + figures of a dataset from its per-item records and commit;
    ``rejudge`` re-judges that many items per submission file with ``judge`` and flags disagreement above
    ``threshold``; ``primary_judges`` / ``gate`` update the card's choices (None keeps them)."""
    from .publishing.recompute import recompute as rebuild

    return rebuild(dataset, n_bootstrap=n_bootstrap, rejudge=rejudge, judge=judge, threshold=threshold, seed=seed,
                   commit=commit, xet=xet, primary_judges=primary_judges, gate=gate)


def moderate(
    out: PathLike,
    benchmarks: Sequence[str] | str = ("xstest", "ethics"),
    model: str = "hf",
    variant: str = "default",
    data: Mapping[str, PathLike] | None = None,
    lists_dir: PathLike | None = None,
    limit: int | None = None,
    submission_id: str | None = None,
    batch_size: int = 8,
    show_progress: bool = True,
    items: dict[str, list[ModerationItem]] | None = None,
    **moderator_options: Any,
) -> ModerationRunResult:
    """Run a moderator on the flag / do-not-flag suite (paper 2) → RUN/moderation/<benchmark>.jsonl (resumable).

    ``model`` names a registered moderator backend: "hf" (local transformers; default the embedded
    SmolLM2), "openai" (base_url, served_model, tokenizer), "guard" (guard, model_dir), "judge"
    (judge); ``moderator_options`` go to its factory. ``data``: benchmark -> source export file or mirror folder.
    """
    from .moderation.runner import run_moderator
    from .moderation.workflow import make_moderator

    if isinstance(benchmarks, str):
        benchmarks = [b.strip() for b in benchmarks.split(",") if b.strip()]
    moderator = make_moderator(model, batch_size=batch_size, **moderator_options)
    return run_moderator(out, moderator, benchmarks, variant=variant, data=dict(data or {}), lists_dir=lists_dir,
                         limit=limit, submission_id=submission_id, batch_size=batch_size, show_progress=show_progress,
                         items=items)


def import_released_moderation(files: Sequence[PathLike], out: PathLike, moderator_id: str | None = None) -> list[Path]:
    """Write Safety-Flag's released per-item files as ModerationRecords into RUN/moderation/<benchmark>.jsonl."""
    from .moderation.workflow import import_released_files

    return import_released_files(files, out, moderator_id=moderator_id)


def build_moderation_list(
    benchmark: str, lists_dir: PathLike, data: PathLike | None = None, n_per_class: int = 100, rule: str = "random",
    seed: int = 0,
) -> tuple[Path, int, str]:
    """Build a class-balanced item list of ``benchmark`` from its source → LISTS_DIR/<benchmark>.jsonl.

    Returns (the list file, its number of items, its sha256).
    """
    from .moderation.suite import build_item_list, write_item_list

    rows = build_item_list(benchmark, data, n_per_class=n_per_class, rule=rule, seed=seed)
    path = Path(lists_dir) / f"{benchmark}.jsonl"
    return path, len(rows), write_item_list(path, rows)


def moderation_report(
    data: PathLike,
    out: PathLike,
    n_bootstrap: int = 2000,
    n_splits: int = 20,
    seed: int = 0,
    stability_repeats: int = 100,
    figures: bool = True,
) -> ReportResult:
    """Moderator reliability report from ModerationRecords → DIR/moderators.csv (+ stability, cost curves, figures)."""
    from .moderation.workflow import write_report

    return write_report(data, out, n_bootstrap=n_bootstrap, n_splits=n_splits, seed=seed,
                        stability_repeats=stability_repeats, figures=figures)
