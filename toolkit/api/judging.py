"""Judging: ``judge`` (one judge's verdicts added to a run), ``agreement`` (two judges compared),
``agreement_with_people`` (every judge against people's labels) and ``not_comparable`` (what makes results not comparable with reported ones)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from toolkit.core.defaults import DEFAULT_JUDGE
from toolkit.core.services import Services, services_or_default

from ._shared import DataSource, PathLike, names

if TYPE_CHECKING:
    from toolkit.stages.judging import Judge, JudgeResult
    from toolkit.stages.judging.components import JudgeSpec, JudgingRunOptions
    from toolkit.stages.judging.estimate import JudgingEstimate

__all__ = ["judge", "estimate_judging", "agreement", "agreement_with_people", "not_comparable"]


def judge(
    run_dir: PathLike,
    judge: JudgeSpec | Judge | str = DEFAULT_JUDGE,
    options: JudgingRunOptions | None = None,
    services: Services | None = None,
) -> JudgeResult:
    """Add one judge's ItemRecords to a run (resumable; responses are never regenerated).

    ``judge`` is a spec ("heuristic", "learned", "openai:MODEL", "mdjudge", ...), a :class:`JudgeSpec` with options
    (``JudgeSpec("openai:gpt-4o", base_url=..., concurrency=16)``) or a built Judge. ``options``
    (:class:`JudgingRunOptions`): the suites judged (default: every suite of the run) and ``retry_errors`` (judge
    earlier API failures again). The result's ``judge_id`` is the id written into the records. ``services``: the
    Hugging Face token of a judge model's download, progress bars.
    """
    from toolkit.core.hub_access import using_token
    from toolkit.stages.judging.components import JudgingRunOptions
    from toolkit.stages.judging.runner import judge_run

    from toolkit.core.errors import BadOption
    from toolkit.stages.judging.prices import parse_prices

    options, services = options or JudgingRunOptions(), services_or_default(services)
    if options.estimate:
        raise BadOption("estimate: judge() judges; ask estimate_judging() what it would cost", param="estimate")
    with using_token(services.token):
        return judge_run(run_dir, judge=judge, suites=names(options.suites), show_progress=services.progress,
                         retry_errors=options.retry_errors, prices=parse_prices(options.price))


def estimate_judging(
    run_dir: PathLike,
    judge: JudgeSpec | Judge | str = DEFAULT_JUDGE,
    options: JudgingRunOptions | None = None,
    services: Services | None = None,
) -> "JudgingEstimate":
    """What :func:`judge` with the same arguments would cost, writing nothing: the items it would judge, the
    requests left after the cache, the judge's input tokens counted as its server counts them (exact where the
    server or a tokenizer of the model can count; otherwise said), its output tokens up to ``max_tokens``, hours at
    an earlier rate (said which) and dollars where a price is known."""
    from toolkit.core.hub_access import using_token
    from toolkit.stages.judging.components import JudgingRunOptions
    from toolkit.stages.judging.estimate import estimate_judging as estimate
    from toolkit.stages.judging.prices import parse_prices

    options, services = options or JudgingRunOptions(), services_or_default(services)
    with using_token(services.token):
        return estimate(run_dir, judge, suites=names(options.suites), retry_errors=options.retry_errors,
                        prices=parse_prices(options.price))


def agreement(
    data: DataSource, judge_a: str, judge_b: str, out: PathLike | None = None, services: Services | None = None
) -> tuple[dict[str, dict[str, Any]], tuple[Path, Path] | None]:
    """Agreement of two judges per suite (paper 1 Tables 5-6); with ``out``, writes agreement.json/.csv there.

    A judge is named by its id, its folder slug or the name it was run with (``heuristic`` for
    ``heuristic-v1``). Returns (result keyed by suite, (json path, csv path) or None). ``services``: the Hugging
    Face token of its Hub calls.
    """
    from toolkit.core.hub_access import hub_token
    from toolkit.stages.judging.agreement_report import judge_agreement

    with hub_token(services_or_default(services).token):
        return judge_agreement(data, judge_a, judge_b, out=out)


def agreement_with_people(
    data: DataSource, out: PathLike | None = None, services: Services | None = None
) -> tuple[dict[str, dict[str, dict[str, Any]]], tuple[Path, Path, Path] | None]:
    """Every judge against people's labels, per suite that has them: each other judge's κ_linear, exact agreement,
    AR error (judge − people) and contradiction rate on the items both scored, and the error correlation (φ between
    each pair of judges' "disagrees with people", mean φ, n_eff); a panel with a people member is listed apart,
    with no figures against those people. Returns ({suite: {people judge: block}}, (against_people.json,
    against_people.csv, error_correlation.csv) or None); with ``out``, writes them there. ``services``: the
    Hugging Face token of its Hub calls.
    """
    from toolkit.core.hub_access import hub_token
    from toolkit.stages.judging.agreement_report import agreement_with_people as report

    with hub_token(services_or_default(services).token):
        return report(data, out=out)


def not_comparable(suite_names: Iterable[str] = (), judge_specs: Iterable[JudgeSpec | str] = ()) -> list[str]:
    """One line per suite or judge whose results are not comparable with reported results (the smoke suite,
    the offline heuristic judge): commands print them, the dataset card lists them. A judge is a
    :class:`JudgeSpec` (its component is known: nothing is parsed) or a written id read from records."""
    from toolkit.stages.judging.lookup import not_comparable as lines

    return lines(suites=suite_names, judges=judge_specs)
