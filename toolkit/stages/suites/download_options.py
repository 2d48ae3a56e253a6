"""What ``suites download`` is told besides the data folder (:func:`toolkit.api.download_suites`). Pydantic only."""
from __future__ import annotations

from typing import Any, Optional

from pydantic import field_validator

from toolkit.core.options import comma_text
from toolkit.core.registry import Options, option

__all__ = ["SuiteDownloadOptions"]


class SuiteDownloadOptions(Options):
    suites: Optional[str] = option(None, help="the suites to download (default: every suite whose data is not part "
                                              "of the package)", metavar="NAME[,NAME...]")
    sample: bool = option(False, help="write the samples the package ships instead, with no network: XSTest's "
                                      "prompts in full, a few dozen rows of SimpleSafetyTests, HarmBench and BBQ's "
                                      "Age category (default suites: those four)")

    @field_validator("suites", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return comma_text(value)
