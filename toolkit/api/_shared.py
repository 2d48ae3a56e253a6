"""What the API's modules share: the types of their targets and the small steps every call takes."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from toolkit.core.options import comma_names
from toolkit.core.registry import Spec

PathLike = str | Path
#: Where records come from: a record file, a run folder, several run folders, a dataset folder or a Hub dataset id.
DataSource = str | Path | Sequence[str | Path]


#: A comma list (as typed after --suites) or a sequence -> names; None stays None.
names = comma_names


def built(component: Any) -> bool:
    """Whether ``component`` is a built object (a Backend, a Judge), not its spec string or :class:`Spec`."""
    return not isinstance(component, (str, Spec))
