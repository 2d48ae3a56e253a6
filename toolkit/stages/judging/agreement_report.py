"""Judge agreement (paper 1, Tables 5-6) of records: ``slmboard agreement`` and ``api.agreement``.

The metrics are :mod:`toolkit.data.scoring.agreement` (confusion, exact agreement, weighted kappa,
boundary and contradiction rates, ambiguity rates, mean rank range); here the records are read
through the data layer (only the two judges' groups, each checked), the judges named as the user
names them (exactly, or as their folder slug), and the result written as agreement.json/.csv.
Without two judges named, :func:`agreement_with_people` compares every judge with people's labels
(:mod:`toolkit.data.scoring.against_people`) and writes against_people.json/.csv and error_correlation.csv.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from toolkit.core.errors import BadOption
from toolkit.core.judge_names import resolve_judge_name
from toolkit.data.scoring.agreement import AGREEMENT_FIELDS, suite_agreement

__all__ = ["agreement_by_suite", "judge_agreement", "write_agreement", "resolve_judge_id", "AGREEMENT_FIELDS",
           "agreement_with_people", "write_against_people"]

_COLUMNS = ["suite", "judge_id", "model_id", "item_id", "score"]


def resolve_judge_id(judge_ids, name: str) -> str:
    """A judge id present in the data (``judge_ids``), given exactly, as its folder slug ('openai-gpt-4o') or
    as the name it was run with ('heuristic' for 'heuristic-v1')."""
    ids = sorted({str(j) for j in judge_ids if j is not None and j == j})
    found = resolve_judge_name(name, ids)
    if found is None:
        raise ValueError(f"judge {name!r} not found in the data; judges present: {', '.join(ids) or 'none'}")
    return found


def _two_judges(judge_ids, judge_a: str, judge_b: str) -> tuple[str, str]:
    try:
        ja, jb = (resolve_judge_id(judge_ids, j) for j in (judge_a, judge_b))
    except ValueError as exc:  # an unknown judge name: the caller's input, not a bug
        raise BadOption(str(exc)) from exc
    if ja == jb:
        raise BadOption(f"judge_a and judge_b name the same judge ({ja})", param="judge_b")
    return ja, jb


def agreement_by_suite(frame: pd.DataFrame, judge_a: str, judge_b: str) -> tuple[dict[str, dict], dict[str, dict]]:
    """({suite: metrics}, {suite: {"n_failed_a", "n_failed_b", "n_unpaired"}}) for two judges of records
    given from Python. ``frame`` gets the reader's checks: a score other than 0/0.5/1/null or a
    duplicated (model, suite, judge, item) raises ValidationFailed naming the row (position + 1)."""
    from toolkit.data.reading import open_items, scan_group

    missing = [c for c in _COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"records lack column(s): {', '.join(missing)}")
    source = open_items(frame)
    for suite, judge in source.groups():
        scan_group(source, suite, judge)
    ja, jb = _two_judges(frame["judge_id"], judge_a, judge_b)
    try:
        return suite_agreement(frame, ja, jb)
    except ValueError as exc:
        raise BadOption(str(exc)) from exc


def judge_agreement(data, judge_a: str, judge_b: str, out: str | Path | None = None
                    ) -> tuple[dict[str, dict[str, Any]], tuple[Path, Path] | None]:
    """Agreement of two judges per suite of DATA (anything :func:`toolkit.data.reading.open_data` takes);
    with ``out``, agreement.json/.csv are written there. Only the two judges' groups are read."""
    from toolkit.data.reading import iter_item_groups, open_items

    source = open_items(data)
    ja, jb = _two_judges([judge for _, judge in source.groups()], judge_a, judge_b)
    frames = [g.frame for g in iter_item_groups(source, columns=_COLUMNS, judges=[ja, jb])]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=_COLUMNS)
    try:
        result, extra = suite_agreement(frame, ja, jb)
    except ValueError as exc:
        raise BadOption(str(exc)) from exc
    paths = write_agreement(result, extra, (judge_a, judge_b), out) if out is not None else None
    return result, paths


def write_agreement(result: dict[str, dict], extra: dict[str, dict], judges: Sequence[str], out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``agreement.json`` (keyed by suite) and ``agreement.csv`` (one row per suite) atomically."""
    from toolkit.core.records_io import atomic_write_text

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for suite, m in result.items():
        row = {"suite": suite, "judge_a": judges[0], "judge_b": judges[1]}
        row.update({k: m[k] for k in AGREEMENT_FIELDS if k != "confusion"})
        for i, la in enumerate(("0", "0.5", "1")):
            for j, lb in enumerate(("0", "0.5", "1")):
                row[f"a{la}_b{lb}"] = m["confusion"][i][j]
        row.update(extra.get(suite, {}))
        rows.append(row)
    json_path, csv_path = out_dir / "agreement.json", out_dir / "agreement.csv"
    # the matrix says which judge is which: rows judge A, columns judge B, each over the scores 0 / 0.5 / 1
    labelled = {suite: {**m, "confusion_rows": judges[0], "confusion_columns": judges[1],
                        "confusion_scores": [0, 0.5, 1]} for suite, m in result.items()}
    atomic_write_text(json_path, json.dumps(labelled, indent=2, allow_nan=False) + "\n")
    atomic_write_text(csv_path, pd.DataFrame(rows).to_csv(index=False))
    return json_path, csv_path


def agreement_with_people(data, out: str | Path | None = None) -> tuple[dict[str, dict[str, dict]], tuple[Path, Path, Path] | None]:
    """Every judge against people, per suite of DATA that holds people's labels ({suite: {people judge: block}}, see
    :func:`toolkit.data.scoring.against_people.against_people`); with ``out``, against_people.json, against_people.csv
    (one row per judge against people) and error_correlation.csv (one row per pair of judges) are written there.
    Only the suites with people's labels are read; DATA without any is refused, naming the judges it has."""
    from toolkit.data.reading import iter_item_groups, open_items
    from toolkit.data.scoring.against_people import against_people, people_judges

    source = open_items(data)
    groups = list(source.groups())
    suites = sorted({suite for suite, judge in groups if people_judges([judge])})
    if not suites:
        judges = sorted({str(judge) for _, judge in groups})
        raise BadOption(f"no judge of the data is people's labels (an id named human or people, e.g. human-xstest); "
                        f"judges present: {', '.join(judges) or 'none'}: name two judges to compare them",
                        param="data")
    frames = [g.frame for g in iter_item_groups(source, columns=_COLUMNS + ["model_revision"], suites=suites)]
    result = against_people(pd.concat(frames, ignore_index=True))
    paths = write_against_people(result, out) if out is not None else None
    return result, paths


def write_against_people(result: dict[str, dict[str, dict]], out_dir: str | Path) -> tuple[Path, Path, Path]:
    """Write ``against_people.json`` (as returned), ``against_people.csv`` and ``error_correlation.csv`` atomically."""
    from toolkit.core.records_io import atomic_write_text
    from toolkit.data.scoring.against_people import AGAINST_PEOPLE_FIELDS

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    figures, pairs = [], []
    for suite, blocks in result.items():
        for people, block in blocks.items():
            for judge, m in block["judges"].items():
                figures.append({"suite": suite, "people": people, "judge": judge, **{k: m[k] for k in AGAINST_PEOPLE_FIELDS}})
            for judge in block["panels_with_people"]:  # marked, no figures: the panel holds these labels
                figures.append({"suite": suite, "people": people, "judge": judge, "panel_with_people": True})
            corr = block["error_correlation"]
            for pair in corr["pairs"]:
                pairs.append({"suite": suite, "people": people, **pair, "mean_phi": corr["mean_phi"],
                              "n_judges": corr["n_judges"], "n_eff": corr["n_eff"]})
    figure_columns = ["suite", "people", "judge", *AGAINST_PEOPLE_FIELDS, "panel_with_people"]
    frame = pd.DataFrame(figures, columns=figure_columns)
    frame["panel_with_people"] = frame["panel_with_people"].fillna(False).astype(bool)
    frame["n"] = frame["n"].astype("Int64")  # a marked panel's row has none
    pair_columns = ["suite", "people", "judge_a", "judge_b", "n", "phi", "mean_phi", "n_judges", "n_eff"]
    paths = out_dir / "against_people.json", out_dir / "against_people.csv", out_dir / "error_correlation.csv"
    atomic_write_text(paths[0], json.dumps(result, indent=2, allow_nan=False) + "\n")
    atomic_write_text(paths[1], frame.to_csv(index=False))
    atomic_write_text(paths[2], pd.DataFrame(pairs, columns=pair_columns).to_csv(index=False))
    return paths
