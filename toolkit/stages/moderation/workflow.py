"""The two user-facing operations: run a moderator on the suite, and write the reliability report."""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

import pandas as pd

from toolkit.core.defaults import MODERATION_N_BOOTSTRAP
from toolkit.core.errors import SlmboardError
from toolkit.core.records_io import atomic_write_bytes, atomic_write_text
from .components import MODERATORS

if TYPE_CHECKING:
    from .components import ModeratorSpec
    from .moderators import Moderator


def make_moderator(spec: "ModeratorSpec | str" = "hf", **options: object) -> Moderator:
    """A moderator from its spec (``hf[:<folder>]``, ``openai:<served model>``, ``guard:<folder>``, ``judge``;
    see :mod:`.components`) with checked options; an unknown option is refused by name."""
    from .components import ModeratorSpec

    return ModeratorSpec.of(spec, **options).build()


@dataclass
class ReportResult:
    out: Path
    table: pd.DataFrame
    parse_failures: pd.DataFrame
    files: list[Path] = field(default_factory=list)

    def ranking(self) -> pd.DataFrame:
        """The leaderboard of moderators (one row each, ranked)."""
        from toolkit.data.reliability.report import ranking

        return ranking(self.table)


def _csv(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode("utf-8")


def write_report(data: str | Path, out: str | Path, n_bootstrap: int = MODERATION_N_BOOTSTRAP, n_splits: int = 20, seed: int = 0,
                 stability_repeats: int = 100, figures: bool = True) -> ReportResult:
    """Compute everything first, then write: bad input leaves ``out`` untouched.

    Files: moderators.csv (the issue's columns), parse_failures.csv, verbal_ece.csv, reliability.csv,
    risk_coverage.csv, stability_lobo.csv, stability_subsample.csv, cost_curves.csv, summary.json and,
    with matplotlib, reliability.png, risk_coverage.png, cost_map.png.
    """
    from toolkit.data.reliability import figures as F
    from toolkit.data.reading.moderation import read_moderation
    from toolkit.data.reliability.report import common_item_counts, compute_report, parse_failures, verbal_ece
    from toolkit.data.reliability.stability import cost_curves, leave_one_benchmark_out, subsample_stability

    frame = read_moderation(data)
    table = compute_report(frame, n_bootstrap=n_bootstrap, seed=seed, n_splits=n_splits)
    fails = parse_failures(frame)
    outputs: dict[str, bytes] = {
        "moderators.csv": _csv(table),
        "parse_failures.csv": _csv(fails),
        "verbal_ece.csv": _csv(verbal_ece(frame)),
        "reliability.csv": _csv(F.reliability_table(frame)),
        "risk_coverage.csv": _csv(F.risk_coverage_table(frame)),
        "cost_curves.csv": _csv(cost_curves(table)),
    }
    n_mod = table["moderator_id"].nunique()
    if n_mod >= 2:
        outputs["stability_lobo.csv"] = _csv(leave_one_benchmark_out(frame))
        outputs["stability_subsample.csv"] = _csv(subsample_stability(frame, n_repeats=stability_repeats, seed=seed))
    cells = table[~table["benchmark"].isin(["macro", "pooled"])]
    summary = {"data": str(data), "n_records": int(len(frame)), "n_moderators": int(n_mod),
               "n_no_decision": int(fails["no_decision"].sum()), "n_bootstrap": n_bootstrap, "n_splits": n_splits,
               "seed": seed,
               # the common item set each benchmark is scored on, and what it left out (per moderator)
               "common_items": {b: int(n) for b, n in common_item_counts(frame).items()},
               "n_dropped": {f"{r.moderator_id}|{r.benchmark}": int(r.n_dropped) for r in cells.itertuples()
                             if r.n_dropped}}
    outputs["summary.json"] = (json.dumps(summary, indent=2) + "\n").encode()
    if figures:
        outputs.update(F.render_all(frame, table))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name, payload in outputs.items():
        atomic_write_bytes(out / name, payload)
        files.append(out / name)
    return ReportResult(out, table, fails, files)


def import_released_files(files: Sequence[str | Path], run_dir: str | Path, moderator_id: Optional[str] = None) -> list[Path]:
    """Write released Safety-Flag per-item files as ModerationRecords into RUN/moderation/<benchmark>.jsonl."""
    from toolkit.core.records_io import write_jsonl_atomic
    from toolkit.core.runs import RunDir
    from .released import import_released

    run = RunDir(run_dir)
    by_bench: dict[str, list] = {}
    for f in files:  # everything validated before anything is written
        for row in import_released(f, moderator_id=moderator_id):
            by_bench.setdefault(row["benchmark"], []).append(row)
    existing = [str(run.moderation_file(b)) for b in by_bench if run.moderation_file(b).exists()]
    if existing:
        raise SlmboardError(f"{', '.join(existing)} exist(s); import into a new run folder")
    written = []
    for bench, rows in by_bench.items():
        path = run.moderation_file(bench)
        write_jsonl_atomic(path, rows)
        written.append(path)
    return written


__all__ = ["MODERATORS", "make_moderator", "write_report", "import_released_files", "ReportResult", "atomic_write_text"]
