"""A Hub-backed table per key (a dataset, a board), read at most every few seconds: a burst of visitors makes one
read. A read that fails gives an empty table and the error's text, so the tab says so and the page stays up."""
from __future__ import annotations

import threading
import time
from typing import Callable, Optional

import pandas as pd


class TimedTable:
    def __init__(self, read: Callable[[str], pd.DataFrame], columns: list[str], seconds: float,
                 error_text: Callable[[Exception], str]):
        self._read, self._columns, self._seconds, self._error_text = read, columns, seconds, error_text
        self._lock = threading.Lock()
        self._at: dict[str, tuple[float, pd.DataFrame, Optional[str]]] = {}

    def clear(self, key: str) -> None:
        """Forget ``key``'s table: the next get reads it again (after a change made here)."""
        with self._lock:
            self._at.pop(key, None)

    def get(self, key: str) -> tuple[pd.DataFrame, Optional[str]]:
        """(the table of ``key``, None) or (an empty table, why it could not be read)."""
        with self._lock:
            hit = self._at.get(key)
            if hit and time.monotonic() - hit[0] < self._seconds:
                return hit[1], hit[2]
            try:
                table, error = self._read(key), None
            except Exception as exc:  # offline, no access, no such dataset: said on the tab, the page stays up
                table, error = pd.DataFrame(columns=self._columns), self._error_text(exc)
            self._at[key] = (time.monotonic(), table, error)
            return table, error
