"""Start the Space (``space/app.py``) from the toolkit without importing torch."""
from __future__ import annotations

from pathlib import Path

from toolkit.core.errors import SlmboardError


def launch_space(data: str | Path, host: str = "127.0.0.1", port: int | None = None, block: bool = True,
                 refresh: float | None = None) -> str:
    try:
        from space.app import launch
        from space.state import Settings
    except ImportError as exc:
        raise SlmboardError(f"the Space needs the [space] extra (gradio, matplotlib): pip install 'slmboard[space]' ({exc})") from exc
    settings = Settings() if refresh is None else Settings(refresh_seconds=refresh)
    return launch(str(data), host=host, port=port, block=block, settings=settings)
