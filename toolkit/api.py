"""The Python API: each pipeline stage as one typed function (every CLI command is a thin shell over these).

    from toolkit import api
    run = api.generate("runs/smol", suites=["smoke"], limit=5)
    api.judge("runs/smol", judge=api.JudgeSpec("openai:gpt-4o-2024-05-13", concurrency=16))
    api.validate("runs/smol").raise_if_failed()
    api.create("./my-dataset")                      # a board is created on purpose (board.yaml, card)
    api.submit("runs/smol", to="./my-dataset")
    board = api.rank("./my-dataset")

Components (suites, judges, model backends, moderators, import and export formats) are named by a spec
string or a typed spec (:class:`JudgeSpec`, :class:`BackendSpec`, :class:`ModeratorSpec`) whose options
are checked against the component's options model; the registries and option models are re-exported
here, so the command line needs nothing else. Every error meant for a user is a
:class:`~toolkit.core.errors.SlmboardError` (the CLI prints it and exits 1). Heavy modules are imported inside
the functions that need them.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import pandas as pd

from toolkit.core.defaults import (DEFAULT_BACKEND, DEFAULT_EXECUTOR, DEFAULT_JUDGE, DEFAULT_MODERATOR, DEFAULT_SUITES,
                                   MODERATION_N_BOOTSTRAP, N_BOOTSTRAP)
from toolkit.core.errors import BadOption, RecordError, SlmboardError, ValidationFailed
from toolkit.core.request_policy import RequestPolicy
from toolkit.core.registry import Component, Description, OptionInfo, Options, Registry, option_infos, parse_pairs
from toolkit.core.runs import NotARun, RunMismatch
from toolkit.data.validation import ValidationReport, validate_path

#: The registries, specs and option models, served on first use: each loads its stage's package, which
#: validating or ranking never needs (and the command line builds only the parser of the command it runs).
_LAZY = {"SUITES": "toolkit.stages.suites", "JUDGES": "toolkit.stages.judging.components", "JudgeSpec": "toolkit.stages.judging.components",
         "JudgingRunOptions": "toolkit.stages.judging.components", "not_comparable": "toolkit.stages.judging.lookup",
         "BACKENDS": "toolkit.stages.generation.components", "BackendSpec": "toolkit.stages.generation.components",
         "GenerationRunOptions": "toolkit.stages.generation.components", "MODERATORS": "toolkit.stages.moderation.components",
         "ModeratorSpec": "toolkit.stages.moderation.components", "ModerationRunOptions": "toolkit.stages.moderation.components",
         "MODERATION_BENCHMARKS": "toolkit.stages.moderation.sources", "FORMATS": "toolkit.stages.importing.components",
         "EXPORT_FORMATS": "toolkit.outputs.exporting.components", "SubmitOptions": "toolkit.outputs.publishing.options",
         "AlreadyPublished": "toolkit.outputs.publishing.submit",
         "FanoutOptions": "toolkit.stages.executors.base"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

if TYPE_CHECKING:
    from toolkit.outputs.analysis import AnalysisResult
    from toolkit.stages.generation.components import BackendSpec, GenerationRunOptions
    from toolkit.stages.judging.components import JudgeSpec
    from toolkit.stages.executors.base import FanoutOptions
    from toolkit.outputs.publishing.options import SubmitOptions
    from toolkit.stages.moderation.components import ModeratorSpec
    from toolkit.workflows.demo_board import DemoResult
    from toolkit.outputs.exporting.eee import EeeExport
    from toolkit.outputs.exporting.eval_results import EvalResultsExport
    from toolkit.workflows.fanout import BoardResult
    from toolkit.stages.generation import Backend, GenerateResult, MergeResult
    from toolkit.stages.importing import ImportResult
    from toolkit.stages.judging import Judge, JudgeResult
    from toolkit.stages.moderation.runner import ModerationRunResult
    from toolkit.stages.moderation.suite import ModerationItem
    from toolkit.stages.moderation.workflow import ReportResult
    from toolkit.outputs.publishing import SubmitResult
    from toolkit.outputs.publishing.recompute import RecomputeResult
    from toolkit.outputs.reviewing import Review
    from toolkit.outputs.space_deploy import DeployResult
    from toolkit.stages.suites import SuiteInfo
    from toolkit.stages.suites._sources import FetchedFile
    from toolkit.outputs.requests import EvalRequest, Filed
    from toolkit.workflows.requests import Outcome
    from toolkit.core.board_recipe import BoardRecipe
    from toolkit.outputs.publishing.create import CreateResult

from toolkit.core.hub_access import downloads_token  # noqa: E402  (light: the CLI sets a command's --token with it)

__all__ = ["generate", "judge", "validate", "create", "submit", "rank", "read_items", "serve", "demo", "merge", "agreement", "analyze",
           "evaluate", "recompute", "moderate", "moderation_report", "import_released_moderation", "build_moderation_list",
           "evaluate_models", "request_evaluation", "work_requests", "list_requests", "task_folder", "suite_list", "download_suites", "export", "export_eee", "export_eval_results", "import_results", "review", "deploy_space", "components",
           "not_comparable",
           "JudgeSpec", "BackendSpec", "ModeratorSpec", "JUDGES", "BACKENDS", "MODERATORS", "SUITES", "FORMATS",
           "EXPORT_FORMATS", "MODERATION_BENCHMARKS", "GenerationRunOptions", "JudgingRunOptions", "SubmitOptions",
           "ModerationRunOptions", "FanoutOptions", "MODERATION_N_BOOTSTRAP", "Options", "OptionInfo", "Registry", "Component", "Description", "N_BOOTSTRAP",
           "DEFAULT_JUDGE", "DEFAULT_BACKEND", "DEFAULT_MODERATOR", "ValidationFailed", "RecordError", "BadOption", "SlmboardError",
           "AlreadyPublished", "NotARun", "RunMismatch", "option_infos", "parse_pairs", "downloads_token"]

PathLike = str | Path
#: Where records come from: a record file, a run folder, several run folders, a dataset folder or a Hub dataset id.
DataSource = str | Path | Sequence[str | Path]

def components(kind: str) -> list[Description]:
    """What each component of ``kind`` ("suite", "judge", "model backend", "moderator backend", "moderation
    benchmark", "import format", "export format") is, with its options."""
    names = ("SUITES", "JUDGES", "BACKENDS", "MODERATORS", "MODERATION_BENCHMARKS", "FORMATS", "EXPORT_FORMATS")
    registries = {r.kind: r for r in map(__getattr__, names)}
    if kind not in registries:
        raise BadOption(f"unknown component kind {kind!r}; valid kinds: {', '.join(registries)}", param="kind")
    return [c.describe() for c in registries[kind].components()]


def generate(
    out: PathLike,
    suites: Sequence[str] | str = DEFAULT_SUITES,
    model: BackendSpec | str = DEFAULT_BACKEND,
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
    executor: str = DEFAULT_EXECUTOR,
    shards: int | None = None,
    ray_address: str | None = None,
    gpus_per_task: float | None = None,
    cpus_per_task: float | None = None,
    token: str | None = None,
    options: GenerationRunOptions | None = None,
    fanout: FanoutOptions | None = None,
) -> GenerateResult:
    """Run a model on suites → response records in the run folder ``out`` (resumable).

    ``model`` is a backend spec (``hf`` = the embedded SmolLM2, ``hf:<Hub id or folder>``,
    ``openai:<served model>``; or a :class:`BackendSpec` with options such as ``base_url``); ``model_args``
    gives the same options lm-eval style ("dtype=bfloat16,revision=..."); ``backend`` replaces both with a
    built backend. ``shard`` is "K/N"; ``mode`` is how multiple-choice suites are answered (generate |
    loglikelihood); ``concurrency`` is how many prompts are in flight at once (openai: requests; hf: rows of
    the continuous batch).

    ``executor`` ("local", "ray") with ``shards=N`` runs the run as N ``shard`` jobs (on a Ray cluster at
    ``ray_address``, each task declaring ``gpus_per_task`` / ``cpus_per_task``) and merges them into ``out``.
    ``token``: the Hugging Face token of its downloads (None: HF_TOKEN or the saved login).

    ``options`` (:class:`GenerationRunOptions`) and ``fanout`` (:class:`FanoutOptions`) give the same options as
    objects; a keyword argument other than its default wins over the object's value.
    """
    from toolkit.workflows.fanout.plan import fanout_options, fanout_refusals, generate_fanned_out, model_job, wants_fanout
    from toolkit.stages.generation.runner import generate as run_generation
    from toolkit.core.hub_access import using_token

    run = _run_options(options, suites, data_dir, limit, batch_size, max_new_tokens, submission_id, shard, mode, concurrency)
    where = fanout_options(fanout, executor=executor, shards=shards, ray_address=ray_address, gpus_per_task=gpus_per_task,
                           cpus_per_task=cpus_per_task)
    with using_token(token):
        if wants_fanout(where):
            fanout_refusals(backend=backend, shard=run.shard)
            return generate_fanned_out(out, model_job(model, model_args, run), where, show_progress)
        return run_generation(out, model, model_args, options=run, backend=backend, show_progress=show_progress)


def _run_options(options: GenerationRunOptions | None, suites: Sequence[str] | str, data_dir: PathLike | None,
                 limit: int | None, batch_size: int | str | None, max_new_tokens: int | None, submission_id: str | None,
                 shard: str | None, mode: str, concurrency: int | None) -> GenerationRunOptions:
    """The run's options object: ``options`` with the keyword arguments that differ from their defaults over it."""
    from toolkit.stages.generation.components import GenerationRunOptions

    return GenerationRunOptions.checked(options, suites=suites, data_dir=data_dir, limit=limit, batch_size=batch_size,
                                        max_new_tokens=max_new_tokens, submission_id=submission_id, shard=shard,
                                        mode=mode, concurrency=concurrency)


def judge(
    run_dir: PathLike,
    judge: JudgeSpec | Judge | str = DEFAULT_JUDGE,
    suites: Sequence[str] | str | None = None,
    batch_size: int = 32,
    show_progress: bool = True,
    retry_errors: bool = True,
    token: str | None = None,
) -> JudgeResult:
    """Add one judge's ItemRecords to a run (resumable; responses are never regenerated).

    ``judge`` is a spec ("heuristic", "learned", "openai:MODEL", "mdjudge", ...), a :class:`JudgeSpec` with options
    (``JudgeSpec("openai:gpt-4o", base_url=..., concurrency=16)``) or a built Judge; ``retry_errors``
    judges earlier API failures again. The result's ``judge_id`` is the id written into the records. ``token``:
    the Hugging Face token of a judge model's download (None: HF_TOKEN or the saved login).
    """
    from toolkit.core.hub_access import using_token
    from toolkit.stages.judging.runner import judge_run

    with using_token(token):
        return judge_run(run_dir, judge=judge, suites=_names(suites), batch_size=batch_size,
                         show_progress=show_progress, retry_errors=retry_errors)


def _names(value: Sequence[str] | str | None) -> list[str] | None:
    """A comma list (as typed after --suites) or a sequence -> names; None stays None."""
    if value is None:
        return None
    raw = value.split(",") if isinstance(value, str) else list(value)
    return [n.strip() for n in raw if n.strip()]


def validate(path: PathLike, kind: str | None = None) -> ValidationReport:
    """Validate a record file, a run folder, a dataset folder or a Hub dataset (hf://datasets/ORG/NAME[@REV]); the
    report lists every error."""
    from toolkit.data.reading.hub_validation import validate_data

    return validate_data(path, kind=kind)


def submit(
    run_dir: PathLike,
    to: PathLike,
    submitter: str | None = None,
    n_bootstrap: int = N_BOOTSTRAP,
    data_dir: PathLike | None = None,
    create_pr: bool = False,
    xet: bool | None = None,
    primary_judges: dict[str, str] | None = None,
    gate: bool | None = None,
    allow_partial: bool = False,
    token: str | None = None,
    update: bool = False,
) -> SubmitResult:
    """Validate a run and publish it into a dataset folder or Hub dataset as one commit (nothing written on failure).

    ``primary_judges`` (suite -> judge) and ``gate`` (False: no access gate) update the dataset card's choices;
    ``allow_partial`` publishes a run lacking canonical suite items (the manifest lists them); ``update`` publishes
    the judgments of a submission already in the dataset that it lacks (same responses by hash). ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login).
    """
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.publishing.submit import submit as publish
    from toolkit.outputs.publishing.update import submit_update

    with hub_token(token):
        return (submit_update if update else publish)(
            run_dir, to, submitter=submitter, n_bootstrap=n_bootstrap, data_dir=data_dir, create_pr=create_pr, xet=xet,
            primary_judges=primary_judges or None, gate=gate, allow_partial=allow_partial)


def create(
    dataset: PathLike,
    suites: Sequence[str] | None = None,
    judges: Sequence[str] | None = None,
    primary_judges: dict[str, str] | None = None,
    temperature: float | None = None,
    max_new_tokens: int | None = None,
    limit: int | None = None,
    complete: bool | None = None,
    gate: bool = True,
    description: str | None = None,
    recipe: BoardRecipe | Mapping[str, Any] | PathLike | None = None,
    private: bool = False,
    requests: bool = True,
    request_policy: RequestPolicy | Mapping[str, Any] | None = None,
    token: str | None = None,
) -> CreateResult:
    """Create a board on purpose: ``board.yaml`` (its recipe: the suites, judges, primary judges, decoding and
    limits a submission must have; None leaves a field unconstrained) and its dataset card, in a new local folder
    (git) or Hub dataset. ``gate=False``: the dataset takes no access requests (records hold harmful completions,
    so boards are gated by default). ``recipe``: a whole recipe instead (a BoardRecipe, a mapping or a board.yaml
    path). A board that exists is refused unless its recipe is this one. ``requests`` (a Hub board): open its
    requests dataset beside it (``ORG/NAME-requests`` unless the policy names another) so others may ask for
    evaluations (``request_evaluation``); ``request_policy``: the policy those requests are checked against
    (board.yaml ``requests:``; None: the defaults of :class:`~toolkit.core.request_policy.RequestPolicy`).
    ``token``: as in :func:`submit`."""
    from toolkit.core.board_recipe import BoardRecipe, parse_recipe, read_recipe
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.publishing.create import create_board

    if recipe is None:
        decoding = {k: v for k, v in (("temperature", temperature), ("max_new_tokens", max_new_tokens)) if v is not None}
        limits = {k: v for k, v in (("items", limit), ("complete", complete)) if v is not None}
        recipe = parse_recipe({"suites": _names(suites), "judges": _names(judges), "primary_judges": primary_judges or None,
                               "decoding": decoding or None, "limits": limits or None, "gated": gate,
                               "description": description}, "the create arguments")
    elif isinstance(recipe, (str, Path)):
        path = Path(recipe)
        recipe = read_recipe(path.parent) if path.name == "board.yaml" else None
        if recipe is None:
            raise BadOption(f"{path}: expected a board.yaml file", param="recipe")
    elif not isinstance(recipe, BoardRecipe):
        recipe = parse_recipe(dict(recipe), "recipe")
    if request_policy is not None:
        recipe = recipe.model_copy(update={"requests": RequestPolicy.model_validate(dict(request_policy))})
    with hub_token(token):
        result = create_board(dataset, recipe, private=private)
        if requests and result.dataset.startswith("hf://datasets/"):
            from toolkit.outputs.requests import open_queue

            board = result.dataset.removeprefix("hf://datasets/").split("@")[0]
            result.requests_dataset = (recipe.requests or RequestPolicy()).requests_dataset(board)
            open_queue(result.requests_dataset, board, private=private)
        return result


def read_items(data: DataSource, token: str | None = None) -> pd.DataFrame:
    """Per-item records as a DataFrame from a .jsonl/.parquet file, run folder(s), a dataset folder or a
    Hub dataset id (checked: scores, duplicates; errors name the source file and line). ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login)."""
    from toolkit.core.hub_access import hub_token
    from toolkit.data.reading import read_item_frame

    with hub_token(token):
        return read_item_frame(data)


def rank(data: DataSource, out: PathLike | None = None, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0,
         suite_totals: dict[str, int] | None = None, token: str | None = None) -> pd.DataFrame:
    """Recompute the leaderboard from per-item records only; optionally write leaderboard.parquet/.csv to ``out``.

    DATA: a record file, run folder(s), a dataset folder or a Hub dataset id (ORG/NAME[@rev]); read one
    (suite, judge) group at a time, so memory follows the largest group, not the number of records.
    ``coverage`` uses ``suite_totals``, by default the suite totals the dataset's manifests record. ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login).
    """
    from toolkit.core.hub_access import hub_token
    from toolkit.data.reading import leaderboard, write_leaderboard

    with hub_token(token):
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
    options: Options | Mapping[str, Any] | None = None,
) -> ImportResult:
    """Another tool's results (``fmt``: a name of :data:`FORMATS`: table, eee, lm-eval, inspect, helm) → the run
    folder ``out``, or more judges for the run already there (same responses byte for byte); nothing is
    written on error.

    ``options`` are the format's own, checked against its options model (an unknown one is refused by
    name), e.g. ``{"columns": "prompt=p,response=r", "judge_columns": ["human=label"]}`` for ``table``."""
    from toolkit.stages.importing import import_source

    return import_source(fmt, list(sources), out, suite=suite, model_id=model_id, model_revision=model_revision,
                         data_dir=data_dir, id_map=id_map, skip_unmatched=skip_unmatched, accept_reworded=accept_reworded,
                         submission_id=submission_id, options=options)


def task_folder(tool: str = "lm-eval") -> Path:
    """The folder of slmboard's suites as ``tool``'s task configs (``lm-eval``: pass it to ``--include_path``)."""
    if tool != "lm-eval":
        raise BadOption(f"no task configs for {tool!r}; slmboard ships them for: lm-eval", param="tool")
    from toolkit.stages.lm_eval_tasks import tasks_dir

    return tasks_dir()


def suite_list() -> list[SuiteInfo]:
    """Every suite: name, kind (free-text, free-text-gold, multiple-choice), items, source, pinned revision, licence."""
    from toolkit.stages.suites import suite_infos

    return suite_infos()


def download_suites(to: PathLike, suites: Sequence[str] | str | None = None, token: str | None = None) -> list[FetchedFile]:
    """The pinned source files of ``suites`` (default: all) into the data folder ``to``, each checked against its
    hash, for machines without network; then pass ``data_dir=to`` (or set SLMBOARD_DATA_DIR). Files already there
    with the right bytes are kept. ``token``: for gated Hub sources (None: HF_TOKEN or the saved login)."""
    from toolkit.core.hub_access import hub_token
    from toolkit.stages.suites import download_suites as _download

    with hub_token(token):
        return _download(to, suites)


def export(fmt: str, data: PathLike, out: PathLike, options: Mapping[str, Any] | None = None,
           token: str | None = None) -> EeeExport | EvalResultsExport:
    """Per-item results of ``data`` in another tool's format (``fmt``: a name of :data:`EXPORT_FORMATS`)
    with that format's checked ``options``; every number recomputed from the per-item records. ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login)."""
    from toolkit.outputs.exporting.components import EXPORT_FORMATS
    from toolkit.core.hub_access import hub_token

    component = EXPORT_FORMATS.get(fmt)
    checked = component.parse_options(options)
    with hub_token(token):
        return component.load()(data, out, **checked.as_kwargs())


def export_eee(data: PathLike, out: PathLike, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0,
               token: str | None = None) -> EeeExport:
    """Every Eval Ever 0.3.0 files (one aggregate + samples file per model, suite and judge) in ``out``;
    numbers from the leaderboard recomputed from the per-item records of ``data``."""
    return export("eee", data, out, {"n_bootstrap": n_bootstrap, "seed": seed}, token=token)  # type: ignore[return-value]


def export_eval_results(data: PathLike, out: PathLike, dataset_id: str | None = None,
                        primary_judges: dict[str, str] | None = None, push: bool = False,
                        token: str | None = None) -> EvalResultsExport:
    """Hugging Face ``.eval_results/slmboard.yaml`` per model in ``out`` (S_adj of each suite under its
    primary judge); ``push=True`` also opens one pull request per model repo."""
    return export("eval-results", data, out, {"dataset_id": dataset_id, "primary_judges": primary_judges,  # type: ignore[return-value]
                                              "push": push}, token=token)


def serve(data: PathLike, host: str = "127.0.0.1", port: int | None = None, block: bool = True,
          refresh: float | None = None, token: str | None = None) -> str:
    """Start the leaderboard Space on ``data`` (a dataset folder or Hub id); returns its URL.
    ``refresh``: re-read the data this often (seconds) when it changed; default 300, 0 = only on Refresh.
    ``token``: the Hugging Face token the server reads a Hub dataset with (None: HF_TOKEN or the saved login).
    A missing folder or an unreachable Hub dataset is refused before any server starts."""
    from toolkit.core.hub_access import hub_token, set_process_token
    from toolkit.data.reading.locate import fetch_snapshot, local_path, parse_hub_id
    from toolkit.outputs.space_launcher import launch_space

    hub = parse_hub_id(data)  # parsed here once; the Space gets the explicit form (hf://datasets/... or an absolute path)
    with hub_token(token):  # a mistyped path or an unreachable dataset must not start a server on an empty board
        where = f"hf://datasets/{fetch_snapshot(hub).hub}" if hub else local_path(data).resolve()
    if token is not None:
        set_process_token(token)  # the server reads the dataset again in its own threads
    return launch_space(where, host=host, port=port, block=block, refresh=refresh)


def demo(
    workdir: PathLike = "demo-output",
    limit: int | None = None,
    max_new_tokens: int | None = None,
    serve: bool = True,
    port: int | None = 7860,
    fresh: bool = False,
    show_progress: bool = True,
    n_bootstrap: int = N_BOOTSTRAP,
) -> DemoResult:
    """generate → judge → validate → submit on the embedded default (its smoke run), then the XSTest v2 release's
    five models imported with ``import table`` (people's labels, the release's GPT-4 labels and the offline
    judges) → rank → serve; the Space opens on XSTest judged by people."""
    from toolkit.workflows.demo_board import run_demo

    return run_demo(workdir, limit=limit, max_new_tokens=max_new_tokens, serve=serve, port=port, fresh=fresh,
                    show_progress=show_progress, n_bootstrap=n_bootstrap)


def merge(shards: Sequence[PathLike], out: PathLike, data_dir: PathLike | None = None) -> MergeResult:
    """Combine ``generate --shard K/N`` run folders into one run folder, checked complete against the suites."""
    from toolkit.stages.generation.merge import merge_runs

    return merge_runs(shards, out, data_dir=data_dir)


def agreement(
    data: DataSource, judge_a: str, judge_b: str, out: PathLike | None = None, token: str | None = None
) -> tuple[dict[str, dict[str, Any]], tuple[Path, Path] | None]:
    """Agreement of two judges per suite (paper 1 Tables 5-6); with ``out``, writes agreement.json/.csv there.

    A judge is named by its id, its folder slug or the name it was run with (``heuristic`` for
    ``heuristic-v1``). Returns (result keyed by suite, (json path, csv path) or None).
    """
    from toolkit.core.hub_access import hub_token
    from toolkit.stages.judging.agreement_report import judge_agreement

    with hub_token(token):
        return judge_agreement(data, judge_a, judge_b, out=out)


def analyze(
    data: PathLike,
    out: PathLike,
    submissions: PathLike | None = None,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
    max_prompts: int | None = None,
    metrics: bool = True,
    unseen_k: int | None = None,
    show_progress: bool = True,
    token: str | None = None,
) -> AnalysisResult:
    """Paper 1's diagnostics on per-item records → tables, figures and summary.json in ``out``. ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login)."""
    from toolkit.outputs.analysis import run_analysis
    from toolkit.core.hub_access import hub_token

    with hub_token(token):
        return run_analysis(data, out, submissions=submissions, n_bootstrap=n_bootstrap, seed=seed, max_prompts=max_prompts,
                        metrics=metrics, unseen_k=unseen_k, show_progress=show_progress)


def evaluate(
    out: PathLike,
    to: PathLike,
    model: BackendSpec | str = DEFAULT_BACKEND,
    judge: JudgeSpec | str = DEFAULT_JUDGE,
    model_args: str | dict[str, str] | None = None,
    suites: Sequence[str] | str = DEFAULT_SUITES,
    data_dir: PathLike | None = None,
    limit: int | None = None,
    batch_size: int | str | None = None,
    max_new_tokens: int | None = None,
    submission_id: str | None = None,
    shard: str | None = None,
    mode: str = "generate",
    concurrency: int | None = None,
    retry_errors: bool = True,
    submitter: str | None = None,
    n_bootstrap: int = N_BOOTSTRAP,
    allow_partial: bool = False,
    create_pr: bool = False,
    xet: bool | None = None,
    primary_judges: dict[str, str] | None = None,
    gate: bool | None = None,
    backend: Backend | None = None,
    show_progress: bool = True,
    executor: str = DEFAULT_EXECUTOR,
    shards: int | None = None,
    ray_address: str | None = None,
    gpus_per_task: float | None = None,
    cpus_per_task: float | None = None,
    token: str | None = None,
    options: GenerationRunOptions | None = None,
    fanout: FanoutOptions | None = None,
) -> SubmitResult:
    """generate → judge → submit in one call, with every option of the three (the same names): :func:`evaluate_models`
    of one model, whose run folder is ``out``. Each step resumes what a previous attempt left in ``out``; a run
    that is already in the dataset is reported, not published twice. The result names the judge id written and
    what makes the run not comparable with reported results (the smoke suite, the heuristic judge).
    ``executor``, ``shards``, ``ray_address``, ``gpus_per_task``, ``cpus_per_task``, ``options``, ``fanout``: as in
    :func:`generate`. ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login)."""
    from toolkit.outputs.publishing.options import SubmitOptions
    from toolkit.workflows.fanout.plan import fanout_options, single_outcome

    run = _run_options(options, suites, data_dir, limit, batch_size, max_new_tokens, submission_id, shard, mode, concurrency)
    submit = SubmitOptions.checked(submitter=submitter, n_bootstrap=n_bootstrap, allow_partial=allow_partial,
                                   create_pr=create_pr, xet=xet, primary_judges=primary_judges, gate=gate)
    where = fanout_options(fanout, executor=executor, shards=shards, ray_address=ray_address, gpus_per_task=gpus_per_task,
                           cpus_per_task=cpus_per_task)
    board = evaluate_models(None, out, to, model, judge, options=run, submit=submit, fanout=where, model_args=model_args,
                            backend=backend, retry_errors=retry_errors, show_progress=show_progress, token=token)
    outcome = single_outcome(board)
    outcome.submitted.judge_id = outcome.judged.judge_id
    return outcome.submitted


#: What names one model or one run: with a models file, each entry says it (the API refuses it beside a file).
_PER_MODEL = ("model_args", "backend", "retry_errors", "submission_id", "shard", "mode", "concurrency")


def evaluate_models(
    models: PathLike | None,
    out: PathLike,
    to: PathLike,
    model: BackendSpec | str = DEFAULT_BACKEND,
    judge: JudgeSpec | str = DEFAULT_JUDGE,
    *,
    options: GenerationRunOptions | None = None,
    submit: SubmitOptions | None = None,
    fanout: FanoutOptions | None = None,
    model_args: str | dict[str, str] | None = None,
    backend: Backend | None = None,
    retry_errors: bool = True,
    show_progress: bool = True,
    token: str | None = None,
    **keywords: Any,
) -> BoardResult:
    """A whole board in one call: generate → judge → submit for every entry of the models file ``models``
    (one run folder per entry under ``out``; an entry's model, model_args and submission id over ``model``).
    Every (model, shard) job is scheduled at once on the executor; each model is judged and submitted as soon
    as its shards are complete; a model that fails is reported in the result and the others go on. The file
    is checked before anything runs.

    ``models=None`` is one model, ``model`` (with ``model_args``, or a built ``backend``), whose run folder is
    ``out``: :func:`evaluate`, which raises its error. The options come as objects -- ``options``
    (:class:`GenerationRunOptions`), ``submit`` (:class:`SubmitOptions`), ``fanout`` (:class:`FanoutOptions`) --
    or as keyword arguments of the same names (``suites=``, ``limit=``, ``submitter=``, ``executor=``, ...; one
    given beside its object wins). ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the
    saved login)."""
    from toolkit.outputs.publishing.options import SubmitOptions
    from toolkit.stages.executors.base import FanoutOptions
    from toolkit.stages.generation.components import GenerationRunOptions
    from toolkit.stages.judging.components import JudgeSpec
    from toolkit.workflows.fanout import evaluate_fanned_out, load_models_file
    from toolkit.workflows.fanout.plan import fanout_options, fanout_refusals, model_job, wants_fanout
    from toolkit.core.hub_access import using_token

    groups: dict[str, dict[str, Any]] = {"generation": {}, "submit": {}, "fanout": {}}
    for name, value in keywords.items():
        if name in GenerationRunOptions.model_fields:  # data_dir too: the submit step checks against the same data
            groups["generation"][name] = value
        elif name in SubmitOptions.model_fields and name != "update":
            groups["submit"][name] = value
        elif name in FanoutOptions.model_fields:
            groups["fanout"][name] = value
        else:
            raise TypeError(f"evaluate_models() got an unexpected keyword argument {name!r}")
    run = GenerationRunOptions.checked(options, **groups["generation"])
    where = fanout_options(fanout, **groups["fanout"])
    board_submit = SubmitOptions.checked(submit, **groups["submit"])
    if models is not None:
        _refuse_per_model(run, model_args, backend, retry_errors)
    spec = JudgeSpec.of(judge)  # checked before any generation time is spent
    job = model_job(model, model_args, run)  # the model's options, checked before anything runs
    with using_token(token):
        if models is not None:
            load_models_file(models)  # its own refusals first (read again by the fan-out)
        submit_options = _checked_submit_options(to, board_submit, run.data_dir)  # before a single model runs
        if models is None and not wants_fanout(where):
            return _evaluate_here(out, to, model, model_args, backend, run, spec, retry_errors, submit_options,
                                  show_progress)
        if models is None:
            fanout_refusals(backend=backend, shard=run.shard)
        return evaluate_fanned_out(out, to, job, spec, submit_options, where, show_progress, models=models)


def _refuse_per_model(run: GenerationRunOptions, model_args: Any, backend: Any, retry_errors: bool) -> None:
    """With a models file, what names one model or one run is written in each entry, not given for all."""
    given = {"model_args": model_args, "backend": backend, "retry_errors": None if retry_errors else False,
             **{name: getattr(run, name) for name in _PER_MODEL if name in type(run).model_fields}}
    defaults = {name: f.default for name, f in type(run).model_fields.items()}
    for name in _PER_MODEL:
        if given[name] not in (None, "", defaults.get(name)):
            raise BadOption(f"{name} names one model or one run; with a models file, leave it out (or write it in "
                            "each entry)", param=name)


def _evaluate_here(out: PathLike, to: PathLike, model: BackendSpec | str, model_args: Any, backend: Backend | None,
                   run: GenerationRunOptions, judge: JudgeSpec, retry_errors: bool, submit_options: dict[str, Any],
                   show_progress: bool) -> BoardResult:
    """One model in this process: generate → judge → submit, each step resuming ``out``; an error is raised."""
    import time

    from toolkit.outputs.publishing.submit import submit_unless_published
    from toolkit.stages.executors.local import LocalExecutor
    from toolkit.stages.generation.runner import generate as run_generation
    from toolkit.stages.judging.runner import judge_run
    from toolkit.workflows.fanout import BoardResult, ModelOutcome

    started = time.perf_counter()
    generated = run_generation(out, model, model_args, options=run, backend=backend, show_progress=show_progress)
    judged = judge_run(out, judge=judge, show_progress=show_progress, retry_errors=retry_errors)
    submitted = submit_unless_published(out, to, judge_ids=[judged.judge_id], **submit_options)
    phase = "already published" if submitted.revision == "already-published" else "published"
    outcome = ModelOutcome(Path(out).name, Path(out), phase, generated=generated, judged=judged, submitted=submitted)
    return BoardResult(LocalExecutor.description, [outcome], time.perf_counter() - started)


def _checked_submit_options(to: PathLike, submit: SubmitOptions, data_dir: str | None) -> dict[str, Any]:
    """The submit step's keywords of an evaluation into the board ``to``, checked before anything is generated:
    ``gate`` is the board's, not a submission's, and a board is created on purpose (nothing is generated for one
    that is not there). The suites' data folder is the one generated from."""
    from toolkit.outputs.publishing.submit import refuse_gate_option, refuse_missing_board

    if submit.update:
        raise BadOption("update publishes the judges a submitted run has gained: use submit, not evaluate", param="update")
    refuse_gate_option(submit.gate)
    refuse_missing_board(to)
    return {**{name: value for name, value in submit.as_kwargs().items() if name != "update"}, "data_dir": data_dir}


def recompute(
    dataset: PathLike,
    n_bootstrap: int = N_BOOTSTRAP,
    rejudge: int = 0,
    judge: JudgeSpec | str = DEFAULT_JUDGE,
    threshold: float = 0.2,
    seed: int = 0,
    commit: bool = True,
    xet: bool | None = None,
    primary_judges: dict[str, str] | None = None,
    gate: bool | None = None,
    token: str | None = None,
) -> RecomputeResult:
    """(Maintainers) rebuild leaderboard + figures of a dataset from its per-item records and commit;
    ``rejudge`` re-judges that many items per submission file with ``judge`` and flags disagreement above
    ``threshold``; ``primary_judges`` / ``gate`` update the card's choices (None keeps them). ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login)."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.publishing.recompute import recompute as rebuild

    with hub_token(token):
        return rebuild(dataset, n_bootstrap=n_bootstrap, rejudge=rejudge, judge=judge, threshold=threshold, seed=seed,
                   commit=commit, xet=xet, primary_judges=primary_judges or None, gate=gate)


def moderate(
    out: PathLike,
    suites: Sequence[str] | str = ("xstest", "ethics"),
    model: ModeratorSpec | str = DEFAULT_MODERATOR,
    variant: str = "default",
    data: Mapping[str, PathLike] | None = None,
    lists_dir: PathLike | None = None,
    limit: int | None = None,
    submission_id: str | None = None,
    show_progress: bool = True,
    items: dict[str, list[ModerationItem]] | None = None,
    token: str | None = None,
) -> ModerationRunResult:
    """Run a moderator on the flag / do-not-flag suite (paper 2) → RUN/moderation/<benchmark>.jsonl (resumable).

    ``model`` is a moderator spec (``hf`` = the embedded SmolLM2, ``hf:<folder>``, ``openai:<served model>``,
    ``guard:<folder>``, ``judge``) or a :class:`ModeratorSpec` with options (``base_url``, ``guard``,
    ``judge``, ...). ``suites``: the moderation benchmarks; ``data``: benchmark -> source export file or
    mirror folder. ``token``: the Hugging Face token of its downloads (None: HF_TOKEN or the saved login).
    """
    from toolkit.core.hub_access import using_token
    from toolkit.stages.moderation.components import ModeratorSpec
    from toolkit.stages.moderation.runner import run_moderator
    from toolkit.stages.moderation.sources import MODERATION_BENCHMARKS

    names = _names(suites) or []
    for name in names:  # every name checked before a model loads
        MODERATION_BENCHMARKS.get(name)
    with using_token(token):
        moderator = ModeratorSpec.of(model).build()
        return run_moderator(out, moderator, names, variant=variant, data=dict(data or {}),
                             lists_dir=lists_dir, limit=limit, submission_id=submission_id,
                             batch_size=moderator.batch_size, show_progress=show_progress, items=items)


def import_released_moderation(files: Sequence[PathLike], out: PathLike, moderator_id: str | None = None) -> list[Path]:
    """Write Safety-Flag's released per-item files as ModerationRecords into RUN/moderation/<benchmark>.jsonl."""
    from toolkit.stages.moderation.workflow import import_released_files

    return import_released_files(files, out, moderator_id=moderator_id)


def build_moderation_list(
    benchmark: str, lists_dir: PathLike, data: PathLike | None = None, n_per_class: int = 100, rule: str = "random",
    seed: int = 0,
) -> tuple[Path, int, str]:
    """Build a class-balanced item list of ``benchmark`` from its source → LISTS_DIR/<benchmark>.jsonl.

    Returns (the list file, its number of items, its sha256).
    """
    from toolkit.stages.moderation.suite import build_item_list, write_item_list

    rows = build_item_list(benchmark, data, n_per_class=n_per_class, rule=rule, seed=seed)
    path = Path(lists_dir) / f"{benchmark}.jsonl"
    return path, len(rows), write_item_list(path, rows)


def moderation_report(
    data: PathLike,
    out: PathLike,
    n_bootstrap: int = MODERATION_N_BOOTSTRAP,
    n_splits: int = 20,
    seed: int = 0,
    stability_repeats: int = 100,
    figures: bool = True,
    token: str | None = None,
) -> ReportResult:
    """Moderator reliability report from ModerationRecords → DIR/moderators.csv (+ stability, cost curves, figures).
    ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login)."""
    from toolkit.core.hub_access import hub_token
    from toolkit.stages.moderation.workflow import write_report

    with hub_token(token):
        return write_report(data, out, n_bootstrap=n_bootstrap, n_splits=n_splits, seed=seed,
                            stability_repeats=stability_repeats, figures=figures)


def review(dataset: str, post: bool = True, data_dir: PathLike | None = None, token: str | None = None) -> list[Review]:
    """(Maintainers) run submit's checks on each open pull request of a Hub dataset; with ``post``, comment
    each result on its pull request."""
    from toolkit.outputs.reviewing import review_dataset

    return review_dataset(dataset, post=post, token=token, data_dir=data_dir)


def deploy_space(space: str, data: str, private: bool = False, token: str | None = None) -> DeployResult:
    """Create or update the leaderboard's Gradio Space ``space`` showing the Hub dataset ``data`` (idempotent)."""
    from toolkit.outputs.space_deploy import deploy_space as deploy

    return deploy(space, data, private=private, token=token)


def request_evaluation(model: str, to: str, who: str | None = None, token: str | None = None) -> Filed:
    """Ask the board ``to`` (a Hub dataset made by ``create``) to evaluate ``model`` (``ORG/NAME[@REVISION]``):
    the board's request policy is checked (the model readable and public, safetensors weights within the
    parameter limit, a chat template, no code of its own, not on the board nor already requested, the
    user's daily rate), each refusal a :class:`~toolkit.core.errors.RequestRefused`, nothing written;
    then the request is written to the board's requests dataset, or opened there as a pull request when
    ``token`` may not write. ``who``: the user it is filed for (a Space, for its logged-in user); None: the
    token's account. ``token``: the Hugging Face token of its Hub calls (None: HF_TOKEN or the saved login)."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.requests import file_request

    with hub_token(token):
        return file_request(model, to, who=who)


def work_requests(
    board: str,
    once: bool = True,
    poll: float | None = None,
    runs: PathLike = "slmboard-worker-runs",
    executor: str = DEFAULT_EXECUTOR,
    ray_address: str | None = None,
    batch_size: int | str | None = None,
    heartbeat_s: float = 60.0,
    max_requests: int | None = None,
    show_progress: bool = True,
    say: Any = print,
    token: str | None = None,
) -> list[Outcome]:
    """(Maintainers) the board's worker: claim a request, evaluate it with the board's recipe (generate → judge →
    submit, on ``executor``), close it finished or failed; ``once``: one request (or none waiting) and return;
    else every ``poll`` seconds until ``max_requests`` were handled (None: forever). ``runs``: where run folders
    live (storage shared by the workers lets a reclaimed request resume). ``token``: the Hugging Face token of
    its Hub calls and downloads (a fine-grained token that may write the board and its requests dataset)."""
    import time

    from toolkit.core.hub_access import using_token
    from toolkit.workflows.requests import WorkerOptions, work_once

    options = WorkerOptions(evaluate=evaluate, runs=Path(runs), executor=executor, ray_address=ray_address, batch_size=batch_size,
                            heartbeat_s=heartbeat_s)
    done: list[Outcome] = []
    with using_token(token):
        while True:
            outcome = work_once(board, options, show_progress=show_progress, say=say)
            if outcome is not None:
                done.append(outcome)
                say(f"{outcome.request.status}: {outcome.request.model}@{outcome.request.commit[:12]}"
                    + (f" -> submission {outcome.request.submission_id}" if outcome.request.submission_id else "")
                    + (f" ({outcome.request.reason})" if outcome.request.reason else ""))
            if once or (max_requests is not None and len(done) >= max_requests):
                return done
            if outcome is None:
                time.sleep(poll or 60.0)


def list_requests(board: str, token: str | None = None) -> list[EvalRequest]:
    """Every evaluation request of ``board`` (pending, running, finished, failed; pull requests included), newest first."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.requests import list_requests as listed

    with hub_token(token):
        return listed(board)


def recipe(dataset: PathLike, options: "RecipeOptions | None" = None, services: "Services | None" = None):
    """Change the recipe (board.yaml) of the board ``dataset`` as a commit of its own: ``options.settings``
    (KEY=VALUE fields). Names are checked and stored resolved as ``create`` stores them; a change that a
    published submission would not meet is refused, listing those submissions (issue 43)."""
    from toolkit.core.hub_access import hub_token
    from toolkit.core.services import services_or_default
    from toolkit.outputs.publishing.options import RecipeOptions
    from toolkit.outputs.publishing.recipe import change_recipe

    options = options or RecipeOptions()
    with hub_token(services_or_default(services).token):
        return change_recipe(dataset, options.settings or {})


# issue 43: what `slmboard recipe` builds its call from (the command imports toolkit.api only)
_LAZY.update({"RecipeOptions": "toolkit.outputs.publishing.options", "Services": "toolkit.core.services"})
