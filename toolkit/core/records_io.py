"""Reading and writing record files (JSONL and parquet) safely.

- Reads report problems as :class:`~toolkit.core.errors.RecordError` (file, row, field) instead of raising
  on the first bad line, so ``validate`` can list them all.
- Writes are atomic (temp file + ``os.replace``); JSONL appends are whole lines followed by fsync, and a
  torn last line left by a killed process is cut off before the next append, so resumed runs neither
  lose nor duplicate records.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from toolkit.core.errors import RecordError, RecordFileError, SlmboardError, UnknownFields


RECORD_SUFFIXES = (".jsonl", ".parquet")
MAX_LINE_BYTES = 16 * 1024 * 1024  # a single record beyond this is certainly not one of ours


def record_files(path: str | Path) -> list[Path]:
    """The record files a path stands for: the file itself, or every .jsonl/.parquet under a folder."""
    path = Path(path)
    if not path.exists():
        raise RecordFileError(f"{path}: no such file or folder")
    if path.is_file():
        if path.suffix not in RECORD_SUFFIXES:
            raise RecordFileError(f"{path}: expected a .jsonl or .parquet file, got '{path.suffix or 'no suffix'}'")
        return [path]
    files = sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and p.suffix in RECORD_SUFFIXES and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )
    return files


def _reject_nan(token: str) -> Any:
    raise ValueError(f"{token} is not valid JSON")


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r} in one object")
        obj[key] = value
    return obj


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any] | RecordError]]:
    """Yield ``(line_number, object_or_error)`` for each non-blank line. Tolerates a BOM and CRLF."""
    path = Path(path)
    name = str(path)
    with open(path, "rb") as fh:
        line_no = 0
        while True:
            raw = fh.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            line_no += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # skip the rest of the oversized line
                    raw = fh.readline(MAX_LINE_BYTES)
                yield line_no, RecordError(name, line_no, None, f"line longer than {MAX_LINE_BYTES} bytes")
                continue
            if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield line_no, RecordError(name, line_no, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
                continue
            text = text.strip()
            if not text:
                continue
            try:
                obj = json.loads(text, parse_constant=_reject_nan, object_pairs_hook=_reject_duplicate_keys)
            except RecursionError:
                yield line_no, RecordError(name, line_no, None, "invalid JSON: nested too deeply")
                continue
            except ValueError as exc:
                truncated = not raw.endswith(b"\n")
                hint = " (truncated last line?)" if truncated else ""
                yield line_no, RecordError(name, line_no, None, f"invalid JSON{hint}: {exc}")
                continue
            if not isinstance(obj, dict):
                yield line_no, RecordError(name, line_no, None, f"expected a JSON object, got {type(obj).__name__}")
                continue
            yield line_no, obj


def _clean_parquet_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return value  # left for validation to reject by field
    return value


def iter_rows(path: str | Path) -> Iterator[tuple[int, dict[str, Any] | RecordError]]:
    """Rows of a JSONL or parquet record file, 1-based, as dicts or errors."""
    path = Path(path)
    if path.stat().st_size == 0:
        yield 0, RecordError(str(path), None, None, "file is empty")
        return
    if path.suffix == ".jsonl":
        yield from iter_jsonl(path)
        return
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for a corrupt file
        yield 0, RecordError(str(path), None, None, f"not a readable parquet file: {exc}")
        return
    for i, row in enumerate(table.to_pylist(), start=1):
        yield i, {k: _clean_parquet_value(v) for k, v in row.items()}


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


@contextmanager
def _replacing(path: Path) -> Iterator[str]:
    """A temporary file beside ``path`` for the caller to fill; on success it is synced and replaces ``path``
    (readers see the old file or the new one, never a part), on any failure it is removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600: the file gets what a plain open gives (0644)
    try:
        yield tmp
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    with _replacing(Path(path)) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def to_json_line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, sort_keys=False) + "\n"


def write_jsonl_atomic(path: str | Path, rows: Iterable[dict[str, Any]]) -> None:
    atomic_write_text(path, "".join(to_json_line(r) for r in rows))


def arrow_table(rows: Sequence[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows as a table of ``schema``: a key outside the schema is an error, a missing one becomes null."""
    names = set(schema.names)
    for i, row in enumerate(rows, start=1):
        extra = set(row) - names
        if extra:
            raise UnknownFields(f"row {i}: fields {sorted(extra)} are not in the parquet schema")
    return pa.Table.from_pylist(list(rows), schema=schema)


def write_parquet_atomic(path: str | Path, rows: Sequence[dict[str, Any]], schema: pa.Schema) -> None:
    """Write rows with an explicit schema (unknown keys are an error, missing ones become null)."""
    table = arrow_table(rows, schema)
    with _replacing(Path(path)) as tmp:
        pq.write_table(table, tmp, compression="zstd")


class JsonlAppender:
    """Append whole records to a JSONL file so that a crash at any moment loses at most the batch in flight.

    On open, a torn last line (a process killed mid-write) is cut off; each :meth:`append` writes
    complete lines in one ``write`` and fsyncs before returning.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        repair_torn_tail(self.path)
        self._fh = open(self.path, "ab")

    def append(self, rows: Iterable[dict[str, Any]]) -> int:
        data = "".join(to_json_line(r) for r in rows).encode("utf-8")
        if data:
            self._fh.write(data)
            self._fh.flush()
            os.fsync(self._fh.fileno())
        return data.count(b"\n")

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> "JsonlAppender":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def repair_torn_tail(path: Path) -> None:
    """Cut an incomplete last line (no trailing newline) from a JSONL file written by :class:`JsonlAppender`."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        # Walk back to the last newline; everything after it is a torn write.
        size = fh.seek(0, os.SEEK_END)
        pos = size
        chunk = 65536
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            block = fh.read(pos - start)
            idx = block.rfind(b"\n")
            if idx >= 0:
                fh.truncate(start + idx + 1)
                return
            pos = start
        fh.truncate(0)


def read_valid_rows(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a file we wrote ourselves; raises on the first unreadable row."""
    out = []
    for _, row in iter_rows(path):
        if isinstance(row, RecordError):
            raise RecordFileError(str(row))
        out.append(row)
    return out
