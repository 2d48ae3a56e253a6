"""Item lists from Safety-Flag's released per-item files (``<model>__<benchmark>[_s0].jsonl``: ``id``, ``gt``).

The v2 package lists were read from these files (see lists/v2/MANIFEST.json). Where the files are at hand
(a clone of github.com/yibo-hu-lab/safety-flag-benchmark), :func:`list_from_release_files` rebuilds a list
from several models' files and :func:`compare_with_list` reports any difference from a shipped list, so
the transcription can be re-checked mechanically.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from toolkit.core.errors import RecordError, RecordFileError, ValidationFailed
from toolkit.core.records_io import iter_jsonl
from toolkit.stages.suites._base import SuiteDataError

_GOLD = {"(A)": "flag", "(B)": "no_flag"}


def read_release_ids(path: str | Path) -> list[dict[str, str]]:
    """(item_id, gold) per line of one released file, in file order; a repeated id must repeat its gold
    and is kept once (the release's Aegis files repeat two ids)."""
    path = Path(path)
    if not path.is_file():
        raise RecordFileError(f"{path}: no such file")
    rows, seen, errors = [], {}, []
    for line, obj in iter_jsonl(path):
        if isinstance(obj, RecordError):
            errors.append(obj)
            continue
        item_id, gt = obj.get("id") if isinstance(obj, dict) else None, obj.get("gt") if isinstance(obj, dict) else None
        if item_id is None or gt not in _GOLD:
            errors.append(RecordError(str(path), line, "gt" if item_id is not None else "id",
                                      f"expected an id and gt '(A)' or '(B)', got id={item_id!r} gt={gt!r}"))
            continue
        item_id, gold = str(item_id), _GOLD[gt]
        if item_id in seen:
            if seen[item_id] != gold:
                errors.append(RecordError(str(path), line, "gt", f"id {item_id!r} repeats with other gold"))
            continue
        seen[item_id] = gold
        rows.append({"item_id": item_id, "gold": gold})
    if errors:
        raise ValidationFailed(errors)
    return rows


def list_from_release_files(files: Sequence[str | Path]) -> list[dict[str, str]]:
    """The list the files agree on: the first file's rows, after checking every file has the same ids
    with the same gold (two models' files = a transcription check)."""
    if not files:
        raise SuiteDataError("no released files given")
    first = read_release_ids(files[0])
    want = {r["item_id"]: r["gold"] for r in first}
    for other in files[1:]:
        got = {r["item_id"]: r["gold"] for r in read_release_ids(other)}
        diff = compare(want, got)
        if diff:
            raise SuiteDataError(f"{files[0]} and {other} disagree: {diff}")
    return first


def compare(want: dict[str, str], got: dict[str, str]) -> str:
    """'' when equal, else a short account of missing, extra and re-labelled ids."""
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    relabelled = sorted(i for i in set(want) & set(got) if want[i] != got[i])
    parts = [f"{len(v)} {k} (e.g. {v[:3]})" for k, v in
             (("missing", missing), ("extra", extra), ("with other gold", relabelled)) if v]
    return "; ".join(parts)


def compare_with_list(rows: list[dict[str, str]], listed: list[dict[str, str]]) -> str:
    """'' when a rebuilt list has exactly the shipped list's ids and gold (order aside)."""
    return compare({r["item_id"]: r["gold"] for r in listed}, {r["item_id"]: r["gold"] for r in rows})
