"""Moderation (paper 2): run a moderator on the flag / do-not-flag suite (``moderate``), its reliability report
(``moderation_report``), Safety-Flag's released outputs (``import_released_moderation``) and item lists
(``build_moderation_list``)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from toolkit.core.defaults import DEFAULT_MODERATOR
from toolkit.core.services import Services, services_or_default

from ._shared import PathLike, names

if TYPE_CHECKING:
    from toolkit.stages.moderation.components import ModerationRunOptions, ModeratorSpec
    from toolkit.stages.moderation.options import (ModerationListOptions, ModerationReportOptions,
                                                   ReleasedModerationOptions)
    from toolkit.stages.moderation.runner import ModerationRunResult
    from toolkit.stages.moderation.suite import ModerationItem
    from toolkit.stages.moderation.workflow import ReportResult

__all__ = ["moderate", "moderation_report", "import_released_moderation", "build_moderation_list"]


def moderate(
    out: PathLike,
    model: ModeratorSpec | str = DEFAULT_MODERATOR,
    options: ModerationRunOptions | None = None,
    items: dict[str, list[ModerationItem]] | None = None,
    services: Services | None = None,
) -> ModerationRunResult:
    """Run a moderator on the flag / do-not-flag suite (paper 2) → RUN/moderation/<benchmark>.jsonl (resumable).

    ``model`` is a moderator spec (``hf`` = the embedded SmolLM2, ``hf:<folder>``, ``openai:<served model>``,
    ``guard:<folder>``, ``judge``) or a :class:`ModeratorSpec` with options (``base_url``, ``guard``,
    ``judge``, ...). ``options`` (:class:`ModerationRunOptions`): the moderation benchmarks (``suites``), the
    prompt variant, where their sources are (``data_dir`` for all, ``source_data`` benchmark -> export file),
    item lists, limit and submission id. ``items``: benchmark -> the items themselves, instead of the lists.
    ``services``: the Hugging Face token of its downloads, progress bars.
    """
    from toolkit.core.hub_access import using_token
    from toolkit.stages.moderation.components import ModerationRunOptions, ModeratorSpec
    from toolkit.stages.moderation.runner import run_moderator

    o, services = options or ModerationRunOptions(), services_or_default(services)
    benchmarks = names(o.suites) or []
    data = moderation_sources(o.data_dir, o.source_data)
    for name in benchmarks:  # every name checked before a model loads
        _benchmark(name)
    with using_token(services.token):
        moderator = ModeratorSpec.of(model).build()
        return run_moderator(out, moderator, benchmarks, variant=o.variant, data=data, lists_dir=o.lists_dir,
                             limit=o.limit, submission_id=o.submission_id, batch_size=moderator.batch_size,
                             show_progress=services.progress, items=items)


def _benchmark(name: str) -> None:
    from toolkit.stages.moderation.sources import MODERATION_BENCHMARKS

    MODERATION_BENCHMARKS.get(name)  # UnknownComponent lists the benchmarks


def moderation_sources(data_dir: str | None, source_data: dict[str, str]) -> dict[str, str]:
    """benchmark -> its source: the data folder for every benchmark, an export file for those of ``source_data``."""
    from toolkit.stages.moderation.sources import MODERATION_BENCHMARKS

    data = {b: data_dir for b in MODERATION_BENCHMARKS} if data_dir else {}
    for bench, path in source_data.items():
        _benchmark(bench)
        data[bench] = path
    return data


def import_released_moderation(files: Sequence[PathLike], out: PathLike,
                               options: ReleasedModerationOptions | None = None) -> list[Path]:
    """Write Safety-Flag's released per-item files as ModerationRecords into RUN/moderation/<benchmark>.jsonl
    (``options``: :class:`ReleasedModerationOptions`, the moderator id to record)."""
    from toolkit.stages.moderation.workflow import import_released_files

    return import_released_files(files, out, moderator_id=options.moderator_id if options is not None else None)


def build_moderation_list(benchmark: str, out: PathLike, data: PathLike | None = None,
                          options: ModerationListOptions | None = None) -> tuple[Path, int, str]:
    """Build a class-balanced item list of ``benchmark`` from its source ``data`` → OUT/<benchmark>.jsonl (``out``:
    a lists folder; ``options``: :class:`ModerationListOptions`, the items per class and how they are drawn).

    Returns (the list file, its number of items, its sha256).
    """
    from toolkit.stages.moderation.options import ModerationListOptions
    from toolkit.stages.moderation.suite import build_item_list, write_item_list

    rows = build_item_list(benchmark, data, **(options or ModerationListOptions()).as_kwargs())
    path = Path(out) / f"{benchmark}.jsonl"
    return path, len(rows), write_item_list(path, rows)


def moderation_report(data: PathLike, out: PathLike, options: ModerationReportOptions | None = None,
                      services: Services | None = None) -> ReportResult:
    """Moderator reliability report from ModerationRecords → DIR/moderators.csv (+ stability, cost curves, figures);
    ``options``: :class:`ModerationReportOptions`. ``services``: the Hugging Face token of its Hub calls."""
    from toolkit.core.hub_access import hub_token
    from toolkit.stages.moderation.options import ModerationReportOptions
    from toolkit.stages.moderation.workflow import write_report

    with hub_token(services_or_default(services).token):
        return write_report(data, out, **(options or ModerationReportOptions()).as_kwargs())
