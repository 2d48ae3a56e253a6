"""The driver's view of fanned-out work: records counted on disk, one progress bar per model.

The bars count the records the jobs have appended to their shard folders -- what is durably done,
wherever the job runs -- so a retried job never counts twice and a resumed run starts where it is.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from toolkit.core.progress import progress_bar


class LineCounter:
    """Whole lines in a set of append-only files, read incrementally (only the bytes added since the last look)."""

    def __init__(self) -> None:
        self._seen: dict[Path, tuple[int, int]] = {}  # path -> (bytes up to the last newline, lines)

    def count(self, paths: Iterable[Path]) -> int:
        total = 0
        for path in paths:
            offset, lines = self._seen.get(path, (0, 0))
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                self._seen.pop(path, None)
                continue
            if size < offset:  # a torn last line was cut by a resumed job: count again
                offset, lines = 0, 0
            if size > offset:
                with open(path, "rb") as fh:
                    fh.seek(offset)
                    chunk = fh.read(size - offset)
                end = chunk.rfind(b"\n")
                if end >= 0:
                    lines += chunk.count(b"\n")
                    offset += end + 1
            self._seen[path] = (offset, lines)
            total += lines
        return total


class BoardProgress:
    """One bar per model: records on disk of the model's total, and the model's phase."""

    def __init__(self, names: list[str], totals: list[int], done: list[int], enabled: bool) -> None:
        self.bars = [progress_bar(total, name, enabled=enabled, position=i, initial=start)
                     for i, (name, total, start) in enumerate(zip(names, totals, done))]
        self.done = list(done)
        self.phases = [""] * len(names)

    def show(self, i: int, done: int, phase: str) -> None:
        if done > self.done[i]:
            self.bars[i].update(done - self.done[i])
            self.done[i] = done
        if phase != self.phases[i]:
            self.phases[i] = phase
            self.bars[i].set_postfix_str(phase)

    def close(self) -> None:
        for bar in self.bars:
            bar.close()
