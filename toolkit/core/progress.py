"""Progress bars with counts and rates (tqdm on stderr; silent when disabled, e.g. in tests)."""
from __future__ import annotations

from tqdm.auto import tqdm


class _NullBar:
    def update(self, n: int = 1) -> None: ...

    def set_postfix_str(self, s: str) -> None: ...

    def close(self) -> None: ...


def progress_bar(total: int, desc: str, unit: str = "item", enabled: bool = True, position: int | None = None,
                 initial: int = 0):
    """``position``: the bar's line when several are drawn at once (one per model of a board);
    ``initial``: work already done (a resumed run), so the rate counts only this run's."""
    if not enabled:
        return _NullBar()
    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True, smoothing=0.1, position=position, initial=initial)
