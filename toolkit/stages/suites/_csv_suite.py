"""CSV-backed suites: find the file (mirror or cache), read rows, turn them into items."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import ClassVar, Iterator, Optional

from ._base import Suite, SuiteDataError, SuiteItem, check_items
from ._fetch import fetch_url
from ._sources import UrlFile


def read_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line number, row) for each data row; raises if a required column is absent."""
    # utf-8-sig drops a BOM; newline="" keeps newlines inside quoted fields exactly as written.
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise SuiteDataError(
                f"{path}: missing column {', '.join(repr(c) for c in missing)} (found columns: {', '.join(header)})"
            )
        start = reader.line_num + 1
        for row in reader:
            if None in row:  # DictReader files surplus cells under the key None
                raise SuiteDataError(f"{path}:{start}: row has more cells than the header")
            yield start, {k: (v if v is not None else "") for k, v in row.items()}
            start = reader.line_num + 1


class CsvSuite(Suite):
    """A suite read from one CSV file: ``<data_dir>/<mirror_path>``, or ``url`` fetched into the cache."""

    mirror_path: ClassVar[str]  # relative to data_dir
    columns: ClassVar[tuple[str, ...]]  # required header columns
    sha256: ClassVar[str]  # of the file at ``source`` (the pinned revision)

    def sources(self) -> list[UrlFile]:
        return [UrlFile(self.source, self.mirror_path, self.sha256)]

    def item(self, row: dict[str, str], where: str) -> SuiteItem:
        raise NotImplementedError

    def locate(self, data_dir: Optional[Path] = None) -> Path:
        if data_dir is None:
            return fetch_url(self.sources()[0], suite=self.name, revision=self.revision)
        path = Path(data_dir) / self.mirror_path
        if not path.is_file():
            raise self.missing_data(f"expected its data at {path.resolve()}, which does not exist", self.source,
                                    "put it there (`slmboard suites download` (toolkit.api.download_suites) does)")
        return path

    def load(self, data_dir: Optional[Path] = None) -> list[SuiteItem]:
        path = self.locate(data_dir)
        items, where = [], []
        for n, (line, row) in enumerate(read_rows(path, self.columns), start=1):
            loc = f"{path}:{line} (data row {n})"
            items.append(self.item(row, loc))
            where.append(loc)
        if not items:
            raise SuiteDataError(f"suite '{self.name}': {path} has no data rows")
        return check_items(items, where)
