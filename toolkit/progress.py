"""Progress bars with counts and rates (tqdm on stderr; silent when disabled, e.g. in tests)."""
from __future__ import annotations

from tqdm.auto import tqdm


class _NullBar:
    def update(self, n: int = 1) -> None: ...

    def set_postfix_str(self, s: str) -> None: ...

    def close(self) -> None: ...


def progress_bar(total: int, desc: str, unit: str = "item", enabled: bool = True):
    if not enabled:
        return _NullBar()
    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True, smoothing=0.1)
