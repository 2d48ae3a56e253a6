"""What a call is handed besides its options: the services it shares with the rest of the process.

Options say *what* to compute and are recorded (run.json, judge-config.json); services say *how to reach*
things and are never recorded: the Hugging Face token, whether to draw progress bars, where to say a line.
The API functions and the component builders take them whole, as one :class:`Services` object, so an option
is never also a keyword argument (HELM's annotators get their client and cache injected the same way).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from toolkit.core.registry import Options, option

__all__ = ["Services", "services_or_default"]


def _say(line: str) -> None:
    print(line)


class Services(Options):
    """Shared services of one call (none of them changes a result)."""

    token: Optional[str] = option(None, help="the Hugging Face token of the Hub calls and downloads (None: HF_TOKEN or "
                                             "the saved login)", cli=False)
    progress: bool = option(True, help="draw progress bars (counts and rates) on stderr", cli=False)
    say: Callable[[str], Any] = option(_say, help="where a long-running call says what it did, one line at a time",
                                       cli=False)


def services_or_default(services: Optional[Services]) -> Services:
    """``services``, or the defaults when a caller passed none."""
    return services if services is not None else Services()
