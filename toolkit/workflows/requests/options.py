"""What the board's worker is told besides the board (:func:`toolkit.api.work_requests`). Pydantic only."""
from __future__ import annotations

from typing import Optional, Union

from toolkit.core.registry import Options, option

__all__ = ["WorkRequestsOptions"]


class WorkRequestsOptions(Options):
    once: bool = option(True, help="handle one request (or none waiting) and return")
    poll: Optional[float] = option(None, help="seconds between looks at an empty queue (not once; default 60)", gt=0,
                                   metavar="SECONDS")
    max_requests: Optional[int] = option(None, help="return after this many requests (not once; None: forever)", ge=1)
    runs: str = option("slmboard-worker-runs", help="run folders (on storage every worker shares, a reclaimed request "
                                                    "resumes its records)", metavar="DIR")
    executor: str = option("local", help="where the evaluation runs", choices=("local", "ray"))
    ray_address: Optional[str] = option(None, help="the Ray cluster (executor ray)", metavar="ADDRESS")
    batch_size: Optional[Union[int, str]] = option(None, help="rows decoded together", metavar="N")
    heartbeat_s: float = option(60.0, help="how often the claimed request's heartbeat is written", gt=0,
                                flag="--heartbeat", metavar="SECONDS")
