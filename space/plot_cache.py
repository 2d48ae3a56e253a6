"""Rendered figures, shared by every visitor.

Drawing a figure and encoding it as PNG costs about a second of CPU (matplotlib) while the table it
sits beside costs milliseconds; every view with a figure draws it, so a burst of visitors
would redraw the same PNG again and again. A figure is a function of the rows it draws, so it is
cached under a hash of exactly those columns: a refresh that changes the data, a filter, a suite
or judge change gives other rows and another key; nothing needs invalidating. Concurrent requests
for one key draw it once (the others wait for that PNG). The value is Gradio's encoded PlotData,
which ``gr.Plot`` passes through as is.
"""
from __future__ import annotations

import hashlib
from typing import Callable

import pandas as pd

from space.memo import Memo

MAX_ENTRIES = 128  # a PNG is ~50-150 kB as base64: a few MB at most


class PlotCache:
    def __init__(self, max_entries: int = MAX_ENTRIES):
        self._memo = Memo(max_entries)

    @property
    def draws(self) -> int:
        """Figures actually drawn (tests, benchmarks)."""
        return self._memo.computed

    def get(self, kind: str, rows: pd.DataFrame, columns: list[str], draw: Callable[[pd.DataFrame], object],
            fmt: str = "png"):
        """The encoded figure ``draw(rows)`` for ``rows`` (None when ``draw`` returns None)."""
        return self._memo.get((kind, fmt, rows_key(rows, columns)), lambda: _encode(draw(rows), fmt))


def rows_key(rows: pd.DataFrame, columns: list[str]) -> str:
    """A hash of the rows' values in ``columns`` (those present), in row order."""
    present = [c for c in columns if c in rows.columns]
    part = rows[present].astype(str)  # mixed object columns (None, floats, strings) hash alike as text
    digest = hashlib.sha256(",".join(present).encode())
    digest.update(pd.util.hash_pandas_object(part, index=False).values.tobytes())
    return digest.hexdigest()


def _encode(figure, fmt: str):
    if figure is None:
        return None
    from gradio import processing_utils
    from gradio.components.plot import PlotData

    return PlotData(type="matplotlib", plot=processing_utils.encode_plot_to_base64(figure, fmt))
