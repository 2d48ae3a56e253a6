"""Maintainers' recompute: rebuild the leaderboard, submissions index, card and figures of a dataset
from its per-item records alone (a submitted aggregate is never read), optionally re-judge a random
sample of every submission with the maintainer's judge and flag submissions whose labels disagree
beyond a threshold; commit the result (local folder or Hub, same publishers as ``submit``).

Written files: the shared files, ``figures/rank_sensitivity__<suite>__<judge>.png`` and
``data/audit/rejudge.json`` (one entry per submission x judge that was re-judged).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from toolkit.core.defaults import DEFAULT_JUDGE
from toolkit.core.errors import BadOption, NothingToCommit, SlmboardError
from toolkit.core.records_io import atomic_write_text
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP
from . import layout

AUDIT_FILE = layout.AUDIT_FILE


@dataclass
class RecomputeResult:
    dataset: str
    revision: str | None
    n_rows: int
    figures: list[str]
    audit: list[dict] = field(default_factory=list)
    #: one line per (suite, judge) left out of the leaderboard (a judge on a suite it does not fit)
    left_out: list[str] = field(default_factory=list)

    @property
    def flagged(self) -> list[dict]:
        return [a for a in self.audit if a["flagged"]]


_AUDIT_COLUMNS = ("submission_id", "model_id", "suite", "item_id", "prompt", "response", "judge_id", "score", "gold",
                  "category")


def rejudge_sample(root: Path, judge: str, sample: int, threshold: float, seed: int = 0) -> list[dict]:
    """Re-judge ``sample`` random items of each per-item file; disagreement = share of sampled items
    (scored by both) whose label differs. Flag when it exceeds ``threshold``. Only the row groups
    holding a sampled row are read."""
    from toolkit.stages.judging import JudgeInput, make_judge
    from toolkit.stages.judging.fitness import skip_line, suite_kind_of

    maint = make_judge(judge)
    rng = random.Random(seed)
    out = []
    for path in layout.item_files(root):
        n_rows = pq.ParquetFile(path).metadata.num_rows
        if not n_rows:
            continue
        suite = path.parent.name  # data/<suite>/<submission>__<judge>.parquet
        kind = suite_kind_of(suite)
        if kind not in maint.fits:  # e.g. heuristic-v1 on BBQ's letters: its verdicts would audit nothing
            first = _read_rows(path, [0])[0]
            out.append({
                "file": path.relative_to(root).as_posix(), "submission_id": first["submission_id"],
                "model_id": first["model_id"], "suite": suite, "submitted_judge": first["judge_id"],
                "maintainer_judge": maint.judge_id, "n_sampled": 0, "n_compared": 0, "disagreement": None,
                "threshold": threshold, "flagged": False,
                "skipped": skip_line(suite, kind, maint.judge_id, maint.fits).split(" — ", 1)[1],
            })
            continue
        # the same draw as sampling the rows themselves (random.sample picks by position)
        picks = _read_rows(path, rng.sample(range(n_rows), min(sample, n_rows)))
        got = maint.judge([JudgeInput(suite=r["suite"], item_id=r["item_id"], prompt=r["prompt"], response=r["response"],
                                      gold=r.get("gold"), category=r.get("category")) for r in picks])
        both = [(r["score"], g.score) for r, g in zip(picks, got) if r["score"] is not None and g.score is not None]
        disagree = sum(1 for a, b in both if a != b) / len(both) if both else None
        first = picks[0]
        out.append({
            "file": path.relative_to(root).as_posix(), "submission_id": first["submission_id"],
            "model_id": first["model_id"], "suite": first["suite"], "submitted_judge": first["judge_id"],
            "maintainer_judge": maint.judge_id, "n_sampled": len(picks), "n_compared": len(both),
            "disagreement": disagree, "threshold": threshold,
            "flagged": disagree is not None and disagree > threshold,
        })
    return out


def _read_rows(path: Path, positions: list[int]) -> list[dict]:
    """The rows at ``positions`` (0-based, in that order), decoding only the row groups that hold them."""
    pf = pq.ParquetFile(path)
    wanted = sorted(set(positions))
    found: dict[int, dict] = {}
    first = 0
    for rg in range(pf.metadata.num_row_groups):
        end = first + pf.metadata.row_group(rg).num_rows
        inside = [i for i in wanted if first <= i < end]
        if inside:
            offset = first
            for batch in pf.iter_batches(batch_size=4096, row_groups=[rg], columns=list(_AUDIT_COLUMNS)):
                picked = [i for i in inside if offset <= i < offset + batch.num_rows]
                if picked:
                    rows = batch.take(pa.array([i - offset for i in picked], type=pa.int64())).to_pylist()
                    found.update(zip(picked, rows))
                offset += batch.num_rows
        first = end
    return [found[i] for i in positions]


def write_figures(root: Path, table) -> list[str]:
    from matplotlib import use

    use("Agg")
    from toolkit.data.board_figures import rank_sensitivity_figure  # matplotlib only; no gradio, no torch

    from toolkit.core.judge_names import judge_slug

    written = []
    for (suite, judge), rows in table.groupby(["suite", "judge_id"], sort=True):
        fig = rank_sensitivity_figure(rows.reset_index(drop=True))
        if fig is None:
            continue
        rel = f"figures/rank_sensitivity__{suite}__{judge_slug(str(judge))}.png"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(root / rel, format="png", metadata={"Software": None})  # no timestamps: same data, same bytes
        written.append(rel)
    return written


def recompute(dataset: str | Path, n_bootstrap: int = N_BOOTSTRAP, rejudge: int = 0, judge: str = DEFAULT_JUDGE,
              threshold: float = 0.2, seed: int = 0, commit: bool = True, xet: bool | None = None,
              primary_judges: dict[str, str] | None = None, gate: bool | None = None) -> RecomputeResult:
    """``primary_judges`` / ``gate`` (False = ``--no-gate``) update the card's choices (None keeps them);
    a Hub dataset whose card says gated gets ``gated="auto"`` again (settings can drift)."""
    from .hub import HubPublisher, parse_target
    from .local_folder import LocalFolderHub
    from .card import card_choices
    from .submit import rebuild_shared_files

    ref = parse_target(dataset)
    kind, where = ("hub", ref.repo_id) if ref.is_hub else ("folder", ref.path)
    state: dict = {}

    def write(root: Path) -> list[str]:
        if not layout.item_files(root):
            raise SlmboardError(f"{where} holds no per-item records (data/<suite>/*.parquet); nothing to recompute")
        state["choices"] = choices = card_choices(root, primary_judges, gate)
        table = rebuild_shared_files(root, n_bootstrap=n_bootstrap, repo_id=str(where) if kind == "hub" else None,
                                     choices=choices)
        state["n_rows"] = len(table)
        state["left_out"] = list(table.attrs.get("left_out", []))
        state["figures"] = write_figures(root, table)
        files = [layout.LEADERBOARD_FILE, layout.SUBMISSIONS_INDEX_FILE, layout.CARD_FILE, layout.LICENSE_FILE,
                 layout.EVAL_FILE, *state["figures"]]
        if rejudge > 0:
            state["audit"] = rejudge_sample(root, judge, rejudge, threshold, seed)
            atomic_write_text(root / AUDIT_FILE, json.dumps(state["audit"], indent=2) + "\n")
            files.append(AUDIT_FILE)
        return files

    message = "Recompute leaderboard from per-item records" + (f"; re-judge {rejudge}/file with {judge}" if rejudge else "")
    if kind == "hub":
        hub = HubPublisher(str(where), xet=xet, create=False, revision=ref.revision or "main")
        hub.check_branch()
        if not commit:
            raise BadOption("commit=False works on a local folder only (a Hub dataset is always committed)", param="commit")
        try:
            done = hub.commit(message, write)
            rev = done.revision
        except NothingToCommit:
            rev = hub.head()
        if state["choices"].gated:
            hub.set_gated("auto")
        elif gate is False:  # an explicit --no-gate; a card that merely says ungated leaves settings alone
            hub.set_gated(False)
    else:
        local = LocalFolderHub(where)
        if not local.exists():
            raise SlmboardError(f"{where} is not a dataset folder (no .git); create the board with `slmboard create` and submit to it first")
        if commit:
            try:
                rev = local.commit(message, write).revision
            except NothingToCommit:
                rev = local.head()  # already up to date: the recomputed files equal the committed ones
        else:
            write(local.root)
            rev = None
    return RecomputeResult(str(where), rev, state.get("n_rows", 0), state.get("figures", []), state.get("audit", []),
                           state.get("left_out", []))
