"""All-or-nothing writing of an export: files are staged in a temporary folder beside the target and
moved into place only once every one of them has been built and validated."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from toolkit.core.errors import SlmboardError


class ExportError(SlmboardError):
    """An export that cannot be written (bad input, missing dataset id, ...); nothing was written."""


class StagedFiles:
    def __init__(self, out: Path):
        self.out = Path(out)
        self._files: dict[str, bytes] = {}

    def add(self, relative: str, content: str | bytes) -> None:
        if relative in self._files:
            raise ExportError(f"{self.out / relative}: two exported files would share this path")
        self._files[relative] = content.encode("utf-8") if isinstance(content, str) else content

    @property
    def paths(self) -> list[str]:
        return sorted(self._files)

    def commit(self) -> None:
        """Write everything into a temporary folder, then move each file into ``out`` (a reader sees
        a file whole or not at all; nothing is written when building any file failed)."""
        if self.out.exists() and not self.out.is_dir():
            raise ExportError(f"{self.out} exists and is not a folder")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", dir=self.out.parent))
        try:
            for rel, data in self._files.items():
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                (tmp / rel).write_bytes(data)
            for rel in self._files:
                (self.out / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(tmp / rel, self.out / rel)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
