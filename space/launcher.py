"""Start the Space (``space/app.py``) for the layers above it without importing torch or, until it starts,
gradio: ``api.serve`` and ``api.demo`` call :func:`launch_space` (the Space is a layer of its own, between
the workflows and the API; nothing below it starts it)."""
from __future__ import annotations

import errno
import socket
from pathlib import Path

from toolkit.core.errors import PortInUse, SlmboardError

__all__ = ["PortInUse", "check_port_free", "launch_space"]


def check_port_free(host: str, port: int) -> None:
    """PortInUse when something already listens on ``host:port`` (or the address cannot be bound)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # SO_REUSEADDR as the server sets it: a port left in TIME_WAIT by a stopped server is free,
        # one another process listens on is not.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            why = ("is in use (another server listens there); choose another port" if exc.errno == errno.EADDRINUSE
                   else f"cannot be listened on ({exc.strerror or exc})")
            raise PortInUse(f"port {port} on {host} {why}", param="port") from None


def launch_space(data: str | Path, host: str = "127.0.0.1", port: int | None = None, block: bool = True,
                 refresh: float | None = None) -> str:
    """Serve the board ``data`` (an absolute folder or ``hf://datasets/ORG/NAME``); returns its URL. A taken
    port is refused before gradio is imported; a missing [space] extra is said by name."""
    if port is not None:
        check_port_free(host, port)
    try:
        from space.app import launch
        from space.state import Settings
    except ImportError as exc:
        raise SlmboardError(f"the Space needs the [space] extra (gradio, matplotlib): pip install 'slmboard[space]' ({exc})") from exc
    settings = Settings() if refresh is None else Settings(refresh_seconds=refresh)
    try:
        return launch(str(data), host=host, port=port, block=block, settings=settings)
    except OSError as exc:
        if port is not None and "port" in str(exc).lower():  # taken between the check and the start
            raise PortInUse(f"port {port} on {host} is in use (another server listens there); choose another port",
                            param="port") from None
        raise
