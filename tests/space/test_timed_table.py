"""The Submit tab's tables (PR queue, requests) are read at most once per interval per key; a failed read
shows an empty table and the error, and clearing a key makes the next visit read it again."""
from __future__ import annotations

import pandas as pd

from space.timed_table import TimedTable


def test_reads_once_per_interval_clears_and_reports_failures():
    reads: list[str] = []

    def read(key: str) -> pd.DataFrame:
        reads.append(key)
        if key == "offline":
            raise ConnectionError("hub unreachable\nsecond line")
        return pd.DataFrame({"a": [key]})

    tables = TimedTable(read, ["a"], 60.0, lambda exc: str(exc).splitlines()[0])
    first, error = tables.get("org/board")
    assert error is None and first["a"].tolist() == ["org/board"]
    assert tables.get("org/board")[0] is first and reads == ["org/board"]  # within the interval: no second read
    tables.clear("org/board")
    tables.get("org/board")
    assert reads == ["org/board", "org/board"]
    empty, error = tables.get("offline")
    assert empty.empty and list(empty.columns) == ["a"] and error == "hub unreachable"
    assert TimedTable(read, ["a"], 0.0, str).get("org/board")[0] is not first  # a zero interval reads every time
