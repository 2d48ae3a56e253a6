"""Typed errors. Every message names what is wrong and where (file:row:field when it applies)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


class SlmboardError(Exception):
    """Base class: the CLI prints these as one clear message and exits 1 (no traceback)."""


@dataclass(frozen=True)
class RecordError:
    file: str
    row: int | None  # 1-based row / line number; None for file-level problems
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.row is not None:
            where += f":{self.row}"
        if self.field:
            where += f":{self.field}"
        return f"{where}: {self.message}"


class ValidationFailed(SlmboardError):
    """Records or manifests failed validation; ``errors`` lists every problem found."""

    def __init__(self, errors: Sequence[RecordError], limit: int = 50):
        self.errors = list(errors)
        shown = "\n".join(f"  {e}" for e in self.errors[:limit])
        more = f"\n  ... and {len(self.errors) - limit} more" if len(self.errors) > limit else ""
        super().__init__(f"{len(self.errors)} validation error(s):\n{shown}{more}")


class RecordFileError(SlmboardError):
    """A record file cannot be read at all (missing, empty, not JSONL/parquet)."""


class PublishError(SlmboardError):
    """The dataset could not be updated; it was left as it was before the attempt."""
