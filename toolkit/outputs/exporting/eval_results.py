"""Results on model pages: Hugging Face eval results (``slmboard export eval-results DATA --out DIR``).

Per model, ``DIR/<org>/<model>/.eval_results/slmboard.yaml`` lists one entry per suite, built with
``huggingface_hub.EvalResultEntry`` and serialised by ``eval_result_entries_to_yaml``:
``dataset.id`` = the leaderboard's Hub dataset, ``dataset.task_id`` = suite, ``dataset.revision`` =
the dataset commit, ``value`` = S_adj under the suite's primary judge (the card's
``slmboard.primary_judges``, ``--primary-judge`` overrides, else the rule of
:func:`~toolkit.data.scoring.primary_judge.choose_primary_judges`), ``source.url`` = the dataset, and
``notes`` carrying the model revision, S_raw, AR, the judge and its rubric version (a model evaluated
at several revisions gets an entry per revision). Numbers are recomputed from the
per-item records. A model with no scored item under the primary judge gets no entry for that suite.

The dataset side is ``eval.yaml`` at the dataset root, written by ``submit``/``recompute``
(:func:`toolkit.outputs.publishing.card.dataset_eval_yaml`).
"""
from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from toolkit import __version__
from toolkit.core.errors import BadOption
from .eee import model_folder
from .files import StagedFiles
from toolkit.data.reading import Dataset

RESULTS_PATH = ".eval_results/slmboard.yaml"


@dataclass
class PushOutcome:
    model_id: str
    status: str  # opened | already-open | refused | missing | error | skipped
    url: str | None = None
    message: str | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("opened", "already-open", "skipped")


@dataclass
class EvalResultsExport:
    out: Path
    dataset_id: str
    files: dict[str, str] = field(default_factory=dict)  # model_id -> path relative to out
    primary_judges: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    pushed: list[PushOutcome] = field(default_factory=list)
    leaderboard: pd.DataFrame | None = None  # the rows the files were written from (no intervals)

    @property
    def ok(self) -> bool:
        """False when a model repo asked for got no pull request."""
        return all(o.ok for o in self.pushed)

    def report_lines(self) -> list[str]:
        lines = [f"wrote eval results of {len(self.files)} model(s) to {self.out}"]
        for o in self.pushed:
            lines.append(f"  {o.status:<12} {o.model_id}" + (f"  {o.url}" if o.url else "")
                         + (f"  ({o.message})" if o.message else ""))
        failed = [o for o in self.pushed if not o.ok]
        if failed:
            lines.append(f"{len(failed)} of {len(self.pushed)} model repo(s) got no pull request")
        return lines


def primary_judges_for(board: pd.DataFrame, source: Dataset, flags: dict[str, str] | None) -> dict[str, str]:
    """{suite: judge}: flags, then the card's recorded choice, then the rule."""
    from toolkit.data.scoring.primary_judge import choose_primary_judges

    recorded = {k: v for k, v in source.card_block("primary_judges").items() if k in set(board["suite"])}
    return {s: p.judge_id for s, p in choose_primary_judges(board, {**recorded, **(flags or {})}).items()}


def model_entries(board: pd.DataFrame, rubrics: dict[tuple[str, str], str], primary: dict[str, str], dataset_id: str,
                  source: Dataset) -> dict[str, list]:
    """{model_id: [EvalResultEntry, ...]} (one entry per suite with a defined S_adj); ``rubrics``: the
    rubric version of each (suite, judge)."""
    from huggingface_hub import EvalResultEntry

    date = _dt.datetime.fromtimestamp(source.timestamp, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if source.timestamp else None
    out: dict[str, list] = {}
    for row in board.sort_values(["model_id", "suite"]).itertuples(index=False):
        if primary.get(row.suite) != row.judge_id or _missing(row.s_adj):
            continue
        rubric = rubrics.get((row.suite, row.judge_id)) or "not recorded"
        # a model evaluated at two revisions has an entry for each: the note says which revision earned it
        revision = getattr(row, "model_revision", None)
        notes = (f"model revision {revision if isinstance(revision, str) and revision else 'not recorded'}; "
                 f"S_adj = S_raw x (1 - AR) = {row.s_adj:.4f}; S_raw {row.s_raw:.4f}, AR {row.ar:.4f}; "
                 f"judge {row.judge_id} (rubric {rubric}); {int(row.n_scored)}/{int(row.n_items)} items scored, "
                 f"{int(row.n_failed)} failed; slmboard {__version__}")
        out.setdefault(row.model_id, []).append(EvalResultEntry(
            dataset_id=dataset_id, task_id=row.suite, value=float(row.s_adj), dataset_revision=source.revision,
            date=date, source_url=f"https://huggingface.co/datasets/{dataset_id}", source_name="slmboard leaderboard",
            notes=notes))
    return out


def render_entries(entries: list) -> str:
    from huggingface_hub import eval_result_entries_to_yaml

    return yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False, allow_unicode=True, width=1000)


def export_eval_results(data: str | Path, out: str | Path, dataset_id: str | None = None,
                        primary_judges: dict[str, str] | None = None) -> EvalResultsExport:
    """Write the files (all or nothing); pushing them is :func:`toolkit.outputs.exporting.push.push_eval_results`.
    The records are read one (suite, judge) group at a time (key columns and rubric version only)."""
    from toolkit.data.reading import leaderboard_groups, open_data
    from toolkit.data.scoring import assemble_leaderboard

    source = open_data(data)
    dataset_id = dataset_id or source.repo_id
    if not dataset_id:
        raise BadOption(f"{data} is a local folder: name the leaderboard's Hub dataset with dataset_id='ORG/NAME' "
                        "(eval results point at a Hub dataset)", param="dataset_id")
    boards, rubrics = [], {}
    for group in leaderboard_groups(source, n_bootstrap=0, records=["rubric_version"]):
        boards.append(group.rows)
        rubric = _first_rubric(group.records)
        if rubric is not None:
            rubrics[(group.suite, group.judge_id)] = rubric
    board = assemble_leaderboard(boards)
    result = EvalResultsExport(Path(out), dataset_id, leaderboard=board)
    result.primary_judges = primary_judges_for(board, source, primary_judges)
    staged = StagedFiles(Path(out))
    for model_id, entries in model_entries(board, rubrics, result.primary_judges, dataset_id, source).items():
        rel = f"{model_folder(model_id)}/{RESULTS_PATH}"
        staged.add(rel, render_entries(entries))
        result.files[model_id] = rel
    missing = sorted(set(board["model_id"]) - set(result.files))
    if missing:
        result.notes.append(f"no defined S_adj under the primary judge for: {', '.join(missing)} (no file written)")
    staged.commit()
    return result


def _first_rubric(records: pd.DataFrame) -> str | None:
    if "rubric_version" not in records:
        return None
    values = records["rubric_version"].dropna()
    return str(values.iloc[0]) if len(values) else None


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))
