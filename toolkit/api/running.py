"""Running models: ``generate`` (one model on suites), ``evaluate`` / ``evaluate_models`` (generate → judge →
submit, one model or a whole board), ``merge`` (shard runs into one) and ``demo``."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from toolkit.core.defaults import DEFAULT_BACKEND, DEFAULT_JUDGE
from toolkit.core.errors import BadOption
from toolkit.core.services import Services, services_or_default

from ._shared import PathLike, built

if TYPE_CHECKING:
    from toolkit.outputs.publishing import SubmitResult
    from toolkit.outputs.publishing.options import SubmitOptions
    from toolkit.stages.executors.base import FanoutOptions
    from toolkit.stages.generation import Backend, GenerateResult, MergeResult
    from toolkit.stages.generation.components import BackendSpec, GenerationRunOptions
    from toolkit.stages.generation.merge_options import MergeOptions
    from toolkit.stages.judging.components import JudgeSpec
    from toolkit.workflows.demo_board import DemoOptions, DemoResult
    from toolkit.workflows.fanout import BoardResult
    from toolkit.workflows.fanout.options import EvaluationOptions
    from toolkit.workflows.estimate import EvaluationEstimate

__all__ = ["generate", "evaluate", "estimate_evaluation", "evaluate_models", "merge", "demo"]


def generate(out: PathLike, model: BackendSpec | Backend | str = DEFAULT_BACKEND, options: GenerationRunOptions | None = None,
             fanout: FanoutOptions | None = None, services: Services | None = None) -> GenerateResult:
    """Run a model on suites → response records in the run folder ``out`` (resumable).

    ``model`` is a backend spec (``hf`` = the embedded SmolLM2, ``hf:<Hub id or folder>``,
    ``openai:<served model>``), a :class:`BackendSpec` with the backend's options
    (``BackendSpec("hf:./m", dtype="float32")``; lm-eval style ``model_args`` go through
    ``BackendSpec.combine(model, "dtype=float32,revision=...")``), or a built backend. ``options``
    (:class:`GenerationRunOptions`) is the run: suites, limit, decoding, shard, mode, concurrency.

    ``fanout`` (:class:`FanoutOptions`): ``executor="ray"`` or ``shards=N`` runs the run as N shard jobs (on a Ray
    cluster at ``ray_address``, each task declaring ``gpus_per_task`` / ``cpus_per_task``) and merges them into
    ``out``. ``services``: the Hugging Face token of its downloads and whether to draw progress bars.
    """
    from toolkit.core.hub_access import using_token
    from toolkit.stages.executors.base import FanoutOptions
    from toolkit.stages.generation.components import GenerationRunOptions
    from toolkit.stages.generation.runner import generate as run_generation
    from toolkit.workflows.fanout.plan import fanout_refusals, generate_fanned_out, model_job, wants_fanout

    run, where, services = options or GenerationRunOptions(), fanout or FanoutOptions(), services_or_default(services)
    backend, spec = (model, DEFAULT_BACKEND) if built(model) else (None, model)
    with using_token(services.token):
        if wants_fanout(where):
            fanout_refusals(backend=backend, shard=run.shard)
            return generate_fanned_out(out, model_job(spec, None, run), where, services.progress)
        return run_generation(out, spec, None, options=run, backend=backend, show_progress=services.progress)


def evaluate(
    out: PathLike,
    to: PathLike,
    model: BackendSpec | Backend | str = DEFAULT_BACKEND,
    judge: JudgeSpec | str = DEFAULT_JUDGE,
    options: EvaluationOptions | None = None,
    services: Services | None = None,
) -> SubmitResult:
    """generate → judge → submit one model in one call, its run folder ``out``, into the board ``to``. Each step
    resumes what a previous attempt left in ``out``; a run that is already in the dataset is reported, not
    published twice. The result names the judge id written and what makes the run not comparable with reported
    results (the smoke suite, the heuristic judge).

    ``model`` and ``judge`` as in :func:`generate` and :func:`~toolkit.api.judge`; ``options``
    (:class:`EvaluationOptions`) holds each step's options object: ``generation``, ``judging``, ``submission`` and
    ``execution`` (where the work runs, as ``fanout`` of :func:`generate`). ``services``: the Hugging Face token of
    its Hub calls and downloads, progress bars."""
    from toolkit.workflows.fanout.plan import single_outcome

    outcome = single_outcome(_evaluate(None, out, to, model, judge, options, services))
    outcome.submitted.judge_id = outcome.judged.judge_id
    return outcome.submitted


def evaluate_models(
    models: PathLike,
    out: PathLike,
    to: PathLike,
    judge: JudgeSpec | str = DEFAULT_JUDGE,
    options: EvaluationOptions | None = None,
    services: Services | None = None,
) -> BoardResult:
    """A whole board in one call: generate → judge → submit for every entry of the models file ``models`` (one run
    folder per entry under ``out``; an entry names its model, model_args and submission id; one without a model is
    the embedded default's backend, ``hf``). Every (model, shard) job is scheduled at once on the executor; each
    model is judged and submitted as soon as its shards are complete; a model that fails is reported in the result
    and the others go on. The file is checked before anything runs.

    ``options`` (:class:`EvaluationOptions`) are the board's: what names one model or one run (``submission_id``,
    ``shard``, ``mode``, ``concurrency``; judging ``retry_errors=False``) is written in each entry instead and
    refused here."""
    return _evaluate(models, out, to, DEFAULT_BACKEND, judge, options, services)


#: What names one model or one run: with a models file, each entry says it (refused beside a file).
_PER_MODEL = ("submission_id", "shard", "mode", "concurrency")


def _evaluate(models: PathLike | None, out: PathLike, to: PathLike, model: Any, judge: JudgeSpec | str,
              options: EvaluationOptions | None, services: Services | None) -> BoardResult:
    """One model (``models`` None: in this process unless the execution fans out) or a models file's board."""
    from toolkit.core.hub_access import using_token
    from toolkit.stages.judging.components import JudgeSpec
    from toolkit.workflows.fanout import evaluate_fanned_out, load_models_file
    from toolkit.workflows.fanout.options import EvaluationOptions
    from toolkit.workflows.fanout.plan import fanout_refusals, model_job, wants_fanout

    steps, services = options or EvaluationOptions(), services_or_default(services)
    run, where = steps.generation, steps.execution
    if steps.judging.suites is not None:
        raise BadOption("evaluate judges the suites it generated: leave the judging suites unset", param="suites")
    if steps.judging.estimate:  # the command asks estimate_evaluation; a models file has no one run to estimate
        raise BadOption("estimate answers for one model run in this process: leave out the models file (estimate "
                        "each entry with its own run folder)" if models is not None else
                        "estimate: evaluate() runs; estimate_evaluation() says what it would cost", param="estimate")
    if steps.judging.price and (models is not None or wants_fanout(where)):
        raise BadOption("price applies to a judge run in this process; a fanned-out board's judges are priced from "
                        "the shipped table", param="price")
    if models is not None:
        _refuse_per_model(steps)
    backend, spec = (model, DEFAULT_BACKEND) if built(model) else (None, model)
    judge_spec = JudgeSpec.of(judge)  # checked before any generation time is spent
    job = model_job(spec, None, run)  # the model's options, checked before anything runs
    with using_token(services.token):
        if models is not None:
            load_models_file(models)  # its own refusals first (read again by the fan-out)
        submit_options = _checked_submit_options(to, steps.submission, run.data_dir)  # before a single model runs
        if models is None and not wants_fanout(where):
            return _evaluate_here(out, to, spec, backend, steps, judge_spec, submit_options, services.progress)
        if models is None:
            fanout_refusals(backend=backend, shard=run.shard)
        return evaluate_fanned_out(out, to, job, judge_spec, submit_options, where, services.progress, models=models)


def estimate_evaluation(
    out: PathLike,
    judge: JudgeSpec | str = DEFAULT_JUDGE,
    options: EvaluationOptions | None = None,
    services: Services | None = None,
) -> "EvaluationEstimate":
    """What :func:`evaluate` of one model into the run folder ``out`` would cost, writing nothing: the prompts each
    suite still has to answer, new tokens up to ``max_new_tokens``, hours at an earlier rate (said which), and the
    judge's requests, tokens and dollars as :func:`~toolkit.api.estimate_judging` counts them (answers, not written
    yet, at their cap)."""
    from toolkit.core.hub_access import using_token
    from toolkit.stages.judging.prices import parse_prices
    from toolkit.workflows.estimate import estimate_evaluation as estimate
    from toolkit.workflows.fanout.options import EvaluationOptions

    steps, services = options or EvaluationOptions(), services_or_default(services)
    with using_token(services.token):
        return estimate(out, judge, steps.generation, parse_prices(steps.judging.price))


def _refuse_per_model(steps: EvaluationOptions) -> None:
    """With a models file, what names one model or one run is written in each entry, not given for all."""
    run = steps.generation
    given = {name: getattr(run, name) for name in _PER_MODEL}
    defaults = {name: f.default for name, f in type(run).model_fields.items()}
    for name in _PER_MODEL:
        if given[name] not in (None, "", defaults.get(name)):
            raise BadOption(f"{name} names one model or one run; with a models file, leave it out (or write it in "
                            "each entry)", param=name)
    if not steps.judging.retry_errors:
        raise BadOption("retry_errors names one model or one run; with a models file, leave it out (or write it in "
                        "each entry)", param="retry_errors")


def _evaluate_here(out: PathLike, to: PathLike, model: BackendSpec | str, backend: Backend | None,
                   steps: EvaluationOptions, judge: JudgeSpec, submit_options: dict[str, Any],
                   show_progress: bool) -> BoardResult:
    """One model in this process: generate → judge → submit, each step resuming ``out``; an error is raised."""
    import time

    from toolkit.outputs.publishing.submit import submit_unless_published
    from toolkit.stages.executors.local import LocalExecutor
    from toolkit.stages.generation.runner import generate as run_generation
    from toolkit.stages.judging.runner import judge_run
    from toolkit.workflows.fanout import BoardResult, ModelOutcome

    started = time.perf_counter()
    generated = run_generation(out, model, None, options=steps.generation, backend=backend, show_progress=show_progress)
    from toolkit.stages.judging.prices import parse_prices

    judged = judge_run(out, judge=judge, show_progress=show_progress, retry_errors=steps.judging.retry_errors,
                       prices=parse_prices(steps.judging.price))
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


def merge(shard_runs: Sequence[PathLike], out: PathLike, options: MergeOptions | None = None) -> MergeResult:
    """Combine the ``generate --shard K/N`` run folders ``shard_runs`` into one run folder, checked complete against the suites
    (``options``: :class:`MergeOptions`, the data folder the shards were generated from)."""
    from toolkit.stages.generation.merge import merge_runs

    return merge_runs(shard_runs, out, data_dir=options.data_dir if options is not None else None)


def demo(workdir: PathLike = "demo-output", options: DemoOptions | None = None,
         services: Services | None = None) -> DemoResult:
    """generate → judge → validate → submit on the embedded default (its smoke run), then the XSTest v2 release's
    five models imported with ``import table`` (people's labels, the release's GPT-4 labels and the offline
    judges) → rank → serve; the Space opens on XSTest judged by people. ``options``: :class:`DemoOptions`."""
    from space.launcher import launch_space
    from toolkit.workflows.demo_board import run_demo

    return run_demo(workdir, options, services, launch=lambda board, port: launch_space(board, port=port, block=False))
