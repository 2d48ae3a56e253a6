"""Boards: check a run (``validate``), make a board (``create``), publish into it (``submit``), read and rank it
(``read_items``, ``rank``, ``analyze``), maintain it (``recompute``, ``review``) and show it (``serve``,
``deploy_space``)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import pandas as pd

from toolkit.core.defaults import DEFAULT_JUDGE
from toolkit.core.errors import BadOption
from toolkit.core.services import Services, services_or_default
from toolkit.data.validation import ValidationReport

from ._shared import DataSource, PathLike

if TYPE_CHECKING:
    from toolkit.outputs.publishing.options import RecipeOptions
    from toolkit.outputs.publishing.recipe import RecipeChange
    from toolkit.core.board_recipe import BoardRecipe
    from toolkit.data.reading.options import RankOptions
    from toolkit.data.scoring.judge_sensitivity import JudgeSensitivity, JudgeSensitivityOptions
    from toolkit.outputs.analysis import AnalysisResult
    from toolkit.outputs.analysis.options import AnalyzeOptions
    from toolkit.outputs.publishing import SubmitResult
    from toolkit.outputs.publishing.create import CreateResult
    from toolkit.outputs.publishing.options import CreateOptions, RecomputeOptions, ReleaseOptions, SubmitOptions
    from toolkit.outputs.publishing.release import Release
    from toolkit.outputs.publishing.recompute import RecomputeResult
    from toolkit.outputs.reviewing import Review, ReviewOptions
    from toolkit.outputs.space_deploy import DeployResult
    from toolkit.outputs.space_options import DeploySpaceOptions, ServeOptions
    from toolkit.stages.judging.components import JudgeSpec

__all__ = ["validate", "create", "submit", "release", "read_items", "rank", "judge_sensitivity", "analyze", "recompute", "review",
           "serve", "deploy_space"]


def validate(path: PathLike, kind: str | None = None) -> ValidationReport:
    """Validate a record file, a run folder, a dataset folder or a Hub dataset (hf://datasets/ORG/NAME[@REV]); the
    report lists every error."""
    from toolkit.data.reading.hub_validation import validate_data

    return validate_data(path, kind=kind)


def recipe(dataset: PathLike, options: "RecipeOptions | None" = None,
           services: Services | None = None) -> "RecipeChange":
    """Change the recipe (board.yaml) of the board ``dataset`` as a commit of its own: ``options.settings``
    (KEY=VALUE fields). Names are checked and stored resolved as ``create`` stores them; a change that a
    published submission would not meet is refused, listing those submissions."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.publishing.options import RecipeOptions
    from toolkit.outputs.publishing.recipe import change_recipe

    options = options or RecipeOptions()
    with hub_token(services_or_default(services).token):
        return change_recipe(dataset, options.settings or {})


def create(dataset: PathLike, recipe: BoardRecipe | Mapping[str, Any] | PathLike | None = None,
           options: CreateOptions | None = None, services: Services | None = None) -> CreateResult:
    """Create a board on purpose: ``board.yaml`` (its recipe: the suites, judges, primary judges, decoding and
    limits a submission must have) and its dataset card, in a new local folder (git) or Hub dataset.

    ``options`` (:class:`CreateOptions`) are the recipe's fields (None leaves one unconstrained), ``gate=False``
    (the dataset takes no access requests; records hold harmful completions, so boards are gated by default),
    ``private``, and for a Hub board ``requests`` (open its requests dataset beside it, ``ORG/NAME-requests``
    unless the policy names another, so others may ask for evaluations) with ``request_policy`` (board.yaml
    ``requests:``; None: the defaults of :class:`~toolkit.core.request_policy.RequestPolicy`). ``recipe``: a whole
    recipe instead of the recipe's fields (a BoardRecipe, a mapping or a board.yaml path). A board that exists is
    refused unless its recipe is this one. ``labels``: people label the board's answers (the default labelling
    policy and the labels dataset, as :func:`labels_init` makes them). ``services``: the Hugging Face token of its Hub calls."""
    from toolkit.core.board_recipe import BoardRecipe, parse_recipe, read_recipe
    from toolkit.core.hub_access import hub_token
    from toolkit.core.request_policy import RequestPolicy
    from toolkit.outputs.publishing.create import create_board
    from toolkit.outputs.publishing.options import CreateOptions

    o = options or CreateOptions()
    if recipe is None:
        decoding = {k: v for k, v in (("temperature", o.temperature), ("max_new_tokens", o.max_new_tokens)) if v is not None}
        limits = {k: v for k, v in (("items", o.limit), ("complete", o.complete)) if v is not None}
        recipe = parse_recipe({"suites": o.suites, "judges": o.judges, "primary_judges": o.primary_judges or None,
                               "decoding": decoding or None, "limits": limits or None, "gated": o.gate,
                               "description": o.description}, "the create options")
    elif isinstance(recipe, (str, Path)):
        path = Path(recipe)
        recipe = read_recipe(path.parent) if path.name == "board.yaml" else None
        if recipe is None:
            raise BadOption(f"{path}: expected a board.yaml file", param="recipe")
    elif not isinstance(recipe, BoardRecipe):
        recipe = parse_recipe(dict(recipe), "recipe")
    if o.request_policy is not None:
        recipe = recipe.model_copy(update={"requests": RequestPolicy.model_validate(dict(o.request_policy))})
    with hub_token(services_or_default(services).token):
        result = create_board(dataset, recipe, private=o.private)
        if o.requests and result.dataset.startswith("hf://datasets/"):
            from toolkit.outputs.requests import open_queue

            board = result.dataset.removeprefix("hf://datasets/").split("@")[0]
            result.requests_dataset = (recipe.requests or RequestPolicy()).requests_dataset(board)
            open_queue(result.requests_dataset, board, private=o.private)
        if o.labels:  # the labelling policy is a commit of its own, after the board's first
            from toolkit.outputs.labelling import init_labels

            result.labels_dataset = init_labels(result.dataset, {}).labels_dataset
        return result


def submit(run_dir: PathLike, to: PathLike, options: SubmitOptions | None = None,
           services: Services | None = None) -> SubmitResult:
    """Validate a run and publish it into a dataset folder or Hub dataset as one commit (nothing written on failure).

    ``options`` (:class:`SubmitOptions`): ``primary_judges`` (suite -> judge) updates the dataset card's choice;
    ``allow_partial`` publishes a run lacking canonical suite items (the manifest lists them); ``update`` publishes
    the judgments of a submission already in the dataset that it lacks (same responses by hash). ``services``: the
    Hugging Face token of its Hub calls."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.publishing.options import SubmitOptions
    from toolkit.outputs.publishing.submit import submit as publish
    from toolkit.outputs.publishing.update import submit_update

    o = options or SubmitOptions()
    keywords = {name: value for name, value in o.as_kwargs().items() if name != "update"}
    with hub_token(services_or_default(services).token):
        return (submit_update if o.update else publish)(run_dir, to, **{**keywords,
                                                                        "primary_judges": o.primary_judges or None})


def release(dataset: PathLike, name: str, options: ReleaseOptions | None = None,
            services: Services | None = None) -> Release:
    """Name the board as it is now: write the release's entry into the dataset card (what changed since the previous
    release: models and judges added, ranks that moved; ``options.notes``), commit it and tag that commit ``name``
    (a git tag on a local board, a tag of the Hub dataset). Refused (:class:`~toolkit.core.errors.ReleaseRefused`)
    when the board has that name already, or, on the Hub, while pull requests are open. Read it as ``BOARD@NAME``.
    ``services``: the Hugging Face token of its Hub calls."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.publishing.options import ReleaseOptions
    from toolkit.outputs.publishing.release import release as make_release

    o = options or ReleaseOptions()
    with hub_token(services_or_default(services).token):
        return make_release(dataset, name, notes=o.notes)


def read_items(data: DataSource, services: Services | None = None) -> pd.DataFrame:
    """Per-item records as a DataFrame from a .jsonl/.parquet file, run folder(s), a dataset folder or a
    Hub dataset id (checked: scores, duplicates; errors name the source file and line). ``services``: the
    Hugging Face token of its Hub calls."""
    from toolkit.core.hub_access import hub_token
    from toolkit.data.reading import read_item_frame

    with hub_token(services_or_default(services).token):
        return read_item_frame(data)


def rank(data: DataSource, out: PathLike | None = None, options: RankOptions | None = None,
         services: Services | None = None) -> pd.DataFrame:
    """Recompute the leaderboard from per-item records only; optionally write leaderboard.parquet/.csv to ``out``,
    and beside them the judge sensitivity files (:func:`judge_sensitivity`) when a suite has two judges or more
    (``options.judge_sensitivity``; ``table.attrs["judge_sensitivity_files"]`` lists what was written).

    DATA: a record file, run folder(s), a dataset folder or a Hub dataset id (ORG/NAME[@rev]); read one
    (suite, judge) group at a time, so memory follows the largest group, not the number of records.
    ``options`` (:class:`RankOptions`): the bootstrap's resamples and seed, and the ``suite_totals`` coverage counts
    against (default: those the dataset's manifests record). ``services``: the Hugging Face token of its Hub calls.
    """
    from toolkit.core.hub_access import hub_token
    from toolkit.data.reading import leaderboard, write_leaderboard
    from toolkit.data.reading.options import RankOptions

    o = options or RankOptions()
    with hub_token(services_or_default(services).token):
        table = leaderboard(data, n_bootstrap=o.n_bootstrap, seed=o.seed, suite_totals=o.suite_totals)
        if o.mean_of_judges:  # HELM's mean of judges: leaderboard rows only, never ItemRecords
            table = _with_mean_rows(table, data, o)
    if out is not None:
        write_leaderboard(table, out)
        if o.judge_sensitivity and _several_judges(table):
            from toolkit.data.reading.judge_board import judge_sensitivity_board, write_judge_sensitivity

            with hub_token(services_or_default(services).token):
                result = judge_sensitivity_board(data)
            if not result.empty:
                table.attrs["judge_sensitivity_files"] = [str(p) for p in write_judge_sensitivity(result, out)]
    return table


def _several_judges(table: pd.DataFrame) -> bool:
    """Some suite has two record judges (``mean:`` rows are not judges of records): judge sensitivity has rows."""
    from toolkit.core.judge_names import is_mean_row

    judges = table.loc[~table["judge_id"].map(is_mean_row), ["suite", "judge_id"]]
    return bool(len(judges)) and int(judges.groupby("suite")["judge_id"].nunique().max()) >= 2


def judge_sensitivity(data: DataSource, options: JudgeSensitivityOptions | None = None,
                      services: Services | None = None) -> JudgeSensitivity:
    """How far ranks move when the judge changes, per suite, on the (model, item) cells every compared judge scored:
    each model's rank under each judge (S_raw and S_adj), ``rank_range_judges``, Kendall τ-b per judge pair, and the
    suite's mean judge rank range beside its mean policy rank range (docs/concepts.md). ``options``
    (:class:`JudgeSensitivityOptions`): which judges are compared (default: all of each suite's, people's labels
    included). Read one suite at a time. ``services``: the Hugging Face token of its Hub calls."""
    from toolkit.core.hub_access import hub_token
    from toolkit.data.reading.judge_board import judge_sensitivity_board

    with hub_token(services_or_default(services).token):
        return judge_sensitivity_board(data, options)


def _with_mean_rows(table: pd.DataFrame, data: DataSource, o: RankOptions) -> pd.DataFrame:
    from toolkit.data.reading.mean_board import mean_of_judges_board
    from toolkit.data.scoring.mean_of_judges import MeanOfJudgesOptions

    rows = mean_of_judges_board(data, o.mean_of_judges, MeanOfJudgesOptions(n_bootstrap=o.n_bootstrap, seed=o.seed))
    attrs = dict(table.attrs)
    table = pd.concat([table, rows], ignore_index=True) if len(table) else rows
    table.attrs.update(attrs)
    return table


def analyze(data: PathLike, out: PathLike, options: AnalyzeOptions | None = None,
            services: Services | None = None) -> AnalysisResult:
    """Paper 1's diagnostics on per-item records → tables, figures and summary.json in ``out`` (``options``:
    :class:`AnalyzeOptions`). ``services``: the Hugging Face token of its Hub calls, progress bars."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.analysis import run_analysis
    from toolkit.outputs.analysis.options import AnalyzeOptions

    o, services = options or AnalyzeOptions(), services_or_default(services)
    with hub_token(services.token):
        return run_analysis(data, out, **o.as_kwargs(), show_progress=services.progress)


def recompute(dataset: PathLike, judge: JudgeSpec | str = DEFAULT_JUDGE, options: RecomputeOptions | None = None,
              services: Services | None = None) -> RecomputeResult:
    """(Maintainers) rebuild leaderboard + figures of a dataset from its per-item records and commit.
    ``options`` (:class:`RecomputeOptions`): ``rejudge`` re-judges that many items per submission file with
    ``judge`` and flags disagreement above ``threshold``; ``primary_judges`` / ``gate`` update the card's choices
    (None keeps them). ``services``: the Hugging Face token of its Hub calls."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.publishing.options import RecomputeOptions
    from toolkit.outputs.publishing.recompute import recompute as rebuild

    o = options or RecomputeOptions()
    with hub_token(services_or_default(services).token):
        return rebuild(dataset, judge=judge, **{**o.as_kwargs(), "primary_judges": o.primary_judges or None})


def review(dataset: str, options: ReviewOptions | None = None, services: Services | None = None) -> list[Review]:
    """(Maintainers) run submit's checks on each open pull request of a Hub dataset; with ``post``
    (:class:`ReviewOptions`), comment each result on its pull request."""
    from toolkit.outputs.reviewing import ReviewOptions, review_dataset

    o = options or ReviewOptions()
    return review_dataset(dataset, post=o.post, token=services_or_default(services).token, data_dir=o.data_dir)


def serve(data: PathLike, options: ServeOptions | None = None, services: Services | None = None) -> str:
    """Start the leaderboard Space on ``data`` (a dataset folder or Hub id); returns its URL. ``options``
    (:class:`ServeOptions`): host, port, ``block`` and ``refresh`` (re-read the data this often, in seconds, when it
    changed; default 300, 0 = only on Refresh). ``services``: the Hugging Face token the server reads a Hub dataset
    with. A missing folder or an unreachable Hub dataset is refused before any server starts."""
    from toolkit.core.hub_access import hub_token, set_process_token
    from toolkit.data.reading import read_local_board
    from toolkit.data.reading.locate import fetch_snapshot, local_path, local_revision, parse_hub_id
    from space.launcher import launch_space
    from toolkit.outputs.space_options import ServeOptions

    o, token = options or ServeOptions(), services_or_default(services).token
    hub = parse_hub_id(data)  # parsed here once; the Space gets the explicit form (hf://datasets/... or an absolute path)
    at = local_revision(data) if hub is None else None  # BOARD@NAME: the board's release NAME
    with hub_token(token):  # a mistyped path or an unreachable dataset must not start a server on an empty board
        if at is not None:
            folder = local_path(at[0]).resolve()
            read_local_board(folder, at[1])  # an unknown revision is refused here, not shown as an empty board
            where = f"{folder}@{at[1]}"
        else:
            where = f"hf://datasets/{fetch_snapshot(hub).hub}" if hub else local_path(data).resolve()
    if token is not None:
        set_process_token(token)  # the server reads the dataset again in its own threads
    return launch_space(where, host=o.host, port=o.port, block=o.block, refresh=o.refresh)


def deploy_space(space: str, data: str, options: DeploySpaceOptions | None = None,
                 services: Services | None = None) -> DeployResult:
    """Create or update the leaderboard's Gradio Space ``space`` showing the Hub dataset ``data`` (idempotent)."""
    from toolkit.outputs.space_deploy import deploy_space as deploy
    from toolkit.outputs.space_options import DeploySpaceOptions

    o = options or DeploySpaceOptions()
    return deploy(space, data, private=o.private, token=services_or_default(services).token)
