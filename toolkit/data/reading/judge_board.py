"""Judge sensitivity of DATA (:mod:`toolkit.data.scoring.judge_sensitivity`), read one suite at a time.

Each (suite, judge) group is checked and turned into its items × models label matrix as the leaderboard does
(:func:`~toolkit.data.reading.scan.scan_group`), and a suite's matrices are compared once all of its judges are
read, so memory follows one suite's matrices (int8 codes), never the number of records. Groups of a judge on a
suite it does not fit are left out, as from the leaderboard; suites with fewer than two compared judges give no rows.
Written by ``rank --out`` beside the leaderboard (:func:`write_judge_sensitivity`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from toolkit.core.errors import ValidationFailed
from toolkit.core.judge_names import resolve_judge_name
from toolkit.data.scoring.judge_sensitivity import (JudgeMatrix, JudgeSensitivity, JudgeSensitivityOptions, assemble,
                                                   chosen_judges, suite_judge_sensitivity)
from .dataset import open_data
from .scan import scan_group

__all__ = ["judge_sensitivity_board", "write_judge_sensitivity", "JUDGE_SENSITIVITY_FILES"]

#: What ``rank --out`` writes beside leaderboard.parquet/.csv (when a suite has two judges or more).
JUDGE_SENSITIVITY_FILES = ("judge_sensitivity.parquet", "judge_sensitivity.csv", "judge_sensitivity_pairs.csv",
                           "judge_sensitivity_suites.csv")


def judge_sensitivity_board(data, options: Optional[JudgeSensitivityOptions] = None) -> JudgeSensitivity:
    """Every suite of DATA with two or more compared judges: model ranks per judge, rank ranges, τ-b pairs, means."""
    options = options or JudgeSensitivityOptions()
    dataset = open_data(data)
    source = dataset.items()
    by_suite: dict[str, list[str]] = {}
    for suite, judge in source.groups():
        if dataset.fitness.fits(suite, judge):
            by_suite.setdefault(suite, []).append(judge)
    parts, errors = [], []
    for suite, present in sorted(by_suite.items()):
        judges = chosen_judges(present, options, resolve_judge_name)
        if len(judges) < 2:
            continue
        matrices = []
        for judge in judges:
            try:
                scan, _ = scan_group(source, suite, judge, ["judge_status", "model_revision"])
            except ValidationFailed as exc:  # keep checking: every problem at once, as the leaderboard does
                errors += exc.errors
                continue
            items = scan.items.names()
            codes, models = scan.matrix()
            matrices.append(JudgeMatrix(judge, codes, list(zip(models.tolist(), scan.row_revisions())), items.tolist()))
        if not errors:
            parts.append(suite_judge_sensitivity(suite, matrices))
    if errors:
        raise ValidationFailed(errors)
    return assemble(parts)


def write_judge_sensitivity(result: JudgeSensitivity, out: str | Path) -> list[Path]:
    """OUT/judge_sensitivity.parquet and .csv (one row per suite, model and judge), judge_sensitivity_pairs.csv
    (τ-b per judge pair) and judge_sensitivity_suites.csv (the suite means), each written atomically."""
    from toolkit.core.records_io import atomic_write_bytes, atomic_write_text
    import io

    out = Path(out)
    sink = io.BytesIO()
    result.models.to_parquet(sink, index=False)
    paths = [out / name for name in JUDGE_SENSITIVITY_FILES]
    atomic_write_bytes(paths[0], sink.getvalue())
    for path, table in zip(paths[1:], (result.models, result.pairs, result.suites)):
        atomic_write_text(path, table.to_csv(index=False))
    return paths
