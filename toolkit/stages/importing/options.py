"""What ``import`` is told besides the format, the sources and the run folder (:func:`toolkit.api.import_results`);
the format's own options are its component's (:mod:`.components`). Pydantic only."""
from __future__ import annotations

from typing import Optional

from toolkit.core.registry import Options, option

__all__ = ["ImportOptions"]


class ImportOptions(Options):
    suite: Optional[str] = option(None, help="the suite the source answers, for sources that do not say theirs",
                                  flag="--suites")
    model_id: Optional[str] = option(None, help="the model (when the source does not say)", metavar="ORG/NAME")
    model_revision: Optional[str] = option(None, help="model revision (default: from the source, else a hash of the "
                                                      "source files)")
    data_dir: Optional[str] = option(None, help="local mirror of the benchmark files", metavar="DIR")
    id_map: Optional[str] = option(None, help="match by id: SOURCE=SUITE pattern, e.g. 'v2-{n}=xstest_{n}' (default: "
                                              "by prompt text)", metavar="SOURCE=SUITE")
    skip_unmatched: bool = option(False, help="leave out source rows that match no suite item (listed)")
    accept_reworded: bool = option(False, help="import rows matched by id whose prompt wording differs")
    submission_id: Optional[str] = option(None, help="the run's submission id (default: from the model id and revision)")
