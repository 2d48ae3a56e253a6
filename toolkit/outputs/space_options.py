"""What ``serve`` and ``space deploy`` are told besides the data and the Space (:func:`toolkit.api.serve`,
:func:`toolkit.api.deploy_space`). Pydantic only."""
from __future__ import annotations

from typing import Optional

from toolkit.core.registry import Options, option

__all__ = ["ServeOptions", "DeploySpaceOptions"]


class ServeOptions(Options):
    host: str = option("127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    port: Optional[int] = option(None, help="port to listen on (None: the first free one from 7860)", ge=0, le=65535)
    block: bool = option(True, help="serve until interrupted (False: return the URL with the server running)", cli=False)
    refresh: Optional[float] = option(None, help="re-read the dataset this often when it changed (default 300; 0 = only "
                                                 "on Refresh)", ge=0, metavar="SECONDS")


class DeploySpaceOptions(Options):
    private: bool = option(False, help="make the Space private")
