"""slmboard's engine: generate → judge → validate → publish → rank.

The public Python API lives in :mod:`toolkit.api`; the CLI (:mod:`toolkit.cli`) is a thin shell over it.
Heavy libraries (torch, transformers, lm-eval) are imported only inside the functions that need them.
"""
from __future__ import annotations

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("slmboard")
except _metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
