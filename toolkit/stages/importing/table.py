"""``table``: CSV / JSONL / parquet with one (prompt, response) per row and any number of label columns.

    --columns prompt=COL,response=COL[,item_id=COL]   which columns hold what (item_id: the source's id,
                                                      used by --id-map; a column named id names rows anyway)
    --judge-column JUDGE_ID=COL                       each label column becomes a judge (repeatable)
    --labels ternary|refusal|"a=0,b=0.5,c=1"          how the label columns read (see labels.py)

CSV rows are located by the line they start on (a quoted field may span lines); JSONL by line;
parquet by 1-based row.
"""
from __future__ import annotations

import csv
import gzip
import io
import sys
from pathlib import Path
from typing import Any, Iterator

from schemas import check_judge_id

from toolkit.stages.importing.components import TableOptions
from toolkit.core.errors import RecordError
from toolkit.core.records_io import iter_jsonl
from toolkit.core.registry import parse_pairs
from .base import ImportFailed, ImportRefused, ParsedSource, SourceRow, fail, require_files
from .labels import scale_from_spec

SUFFIXES = (".csv", ".csv.gz", ".tsv", ".jsonl", ".jsonl.gz", ".parquet")
COLUMN_ROLES = ("prompt", "response", "item_id")


def parse_columns(spec: str | None) -> dict[str, str]:
    """``prompt=COL,response=COL[,item_id=COL]`` → {role: column}; prompt and response default to their names."""
    roles = {"prompt": "prompt", "response": "response"}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        role, eq, col = part.partition("=")
        role = role.strip()
        if not eq or not col.strip():
            raise ImportRefused(f"columns {spec!r}: {part.strip()!r} is not ROLE=COLUMN", param="columns")
        if role not in COLUMN_ROLES:
            raise ImportRefused(f"columns {spec!r}: unknown role {role!r}; roles: {', '.join(COLUMN_ROLES)}", param="columns")
        roles[role] = col.strip()
    return roles


def parse_judge_columns(values: list[str] | None) -> dict[str, str]:
    """``["human-xstest=final_label"]`` -> {judge id: column}; each judge id must be one (it is published and shown)."""
    out = parse_pairs(values or [], "judge_columns entry", param="judge_columns", key="JUDGE_ID", value="COLUMN")
    for judge in out:
        try:
            check_judge_id(judge)
        except ValueError as exc:
            raise ImportRefused(f"judge_columns: {exc}", param="judge_columns") from None
    return out


def _open_text(path: Path) -> io.TextIOBase:
    raw = gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")


def _csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    delimiter = "\t" if path.name.endswith(".tsv") else ","
    try:
        with _open_text(path) as fh:
            reader = csv.DictReader(fh, delimiter=delimiter, strict=True)
            if not reader.fieldnames:
                raise fail(path, None, None, "no header row")
            seen = set()
            for name in reader.fieldnames:
                if name in seen:
                    raise fail(path, 1, name, "column named twice in the header")
                seen.add(name)
            start = reader.line_num + 1
            for row in reader:
                if None in row or any(v is None for v in row.values()):
                    got = sum(v is not None for k, v in row.items() if k is not None) + len(row.get(None) or [])
                    raise fail(path, start, None, f"expected {len(reader.fieldnames)} fields, got {got}")
                yield start, row
                start = reader.line_num + 1
    except UnicodeDecodeError as exc:
        raise fail(path, None, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except csv.Error as exc:
        raise fail(path, None, None, f"not a readable CSV file: {exc}") from exc


def _jsonl_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.name.endswith(".gz"):
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".jsonl") as tmp:
            tmp.write(gzip.decompress(path.read_bytes()))
            tmp.flush()
            for line_no, row in _jsonl_rows(Path(tmp.name)):
                yield line_no, row
        return
    for line_no, row in iter_jsonl(path):
        if isinstance(row, RecordError):
            raise ImportFailed([RecordError(str(path), row.row, row.field, row.message)])
        yield line_no, row


def _parquet_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for a corrupt file
        raise fail(path, None, None, f"not a readable parquet file: {exc}") from exc
    yield from enumerate(table.to_pylist(), start=1)


def iter_table(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    name = path.name
    if name.endswith((".csv", ".csv.gz", ".tsv")):
        return _csv_rows(path)
    if name.endswith((".jsonl", ".jsonl.gz")):
        return _jsonl_rows(path)
    return _parquet_rows(path)


def _text_field(path: Path, line: int, row: dict, column: str) -> str:
    value = row[column]
    if not isinstance(value, str):
        raise fail(path, line, column, f"expected text, got {type(value).__name__} {str(value)[:40]!r}")
    return value


def parse(paths: list[str | Path], options: TableOptions | None = None) -> ParsedSource:
    """The rows of the tables ``paths``, read as ``options`` say (:class:`~.components.TableOptions`)."""
    options = options or TableOptions()
    columns, judge_columns, labels = options.columns, options.judge_columns, options.labels
    files = require_files(paths, SUFFIXES, "a CSV, JSONL or parquet table")
    roles = parse_columns(columns)
    judges = parse_judge_columns(judge_columns)
    scale = scale_from_spec(labels)
    rows: list[SourceRow] = []
    implicit = None
    for path in files:
        n_before = len(rows)
        for line, row in iter_table(path):
            if len(rows) == n_before:  # first row: every named column must exist
                wanted = list(roles.values()) + list(judges.values())
                missing = [c for c in wanted if c not in row]
                if missing:
                    raise fail(path, line, missing[0], f"no column {missing[0]!r} (columns: {', '.join(map(str, row))})")
            if len(rows) == n_before and "item_id" not in roles:
                # Without item_id=COL, a column named id / item_id still names rows in messages (matching stays by prompt).
                implicit = next((c for c in ("id", "item_id") if c in row), None)
            id_column = roles.get("item_id") or implicit
            source_id = row[id_column] if id_column else None
            rows.append(SourceRow(
                where=f"{path}:{line}",
                prompt=_text_field(path, line, row, roles["prompt"]),
                response=_text_field(path, line, row, roles["response"]),
                source_id=None if source_id is None else str(source_id),
                judgments={j: row[c] for j, c in judges.items()},
            ))
        if len(rows) == n_before:
            raise fail(path, None, None, "no data rows")
    return ParsedSource(format="table", rows=rows, scales={j: scale for j in judges}, tool="table", files=files,
                        judge_info={j: {"column": c, "labels": labels} for j, c in judges.items()})
