"""Start the Space (``space/app.py``) from the toolkit without importing torch."""
from __future__ import annotations

from pathlib import Path

from .errors import SlmboardError


def launch_space(data: str | Path, host: str = "127.0.0.1", port: int | None = None, block: bool = True) -> str:
    try:
        from space.app import launch
    except ImportError as exc:
        raise SlmboardError(f"the Space needs the [space] extra (gradio, matplotlib): pip install 'slmboard[space]' ({exc})") from exc
    return launch(Path(data), host=host, port=port, block=block)
