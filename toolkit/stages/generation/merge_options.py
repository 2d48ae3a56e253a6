"""What ``merge`` is told besides the shard run folders and the merged one (:func:`toolkit.api.merge`). Pydantic only."""
from __future__ import annotations

from typing import Optional

from toolkit.core.registry import Options, option

__all__ = ["MergeOptions"]


class MergeOptions(Options):
    data_dir: Optional[str] = option(None, help="the same local mirror the shards were generated from (if any)",
                                     metavar="DIR")
