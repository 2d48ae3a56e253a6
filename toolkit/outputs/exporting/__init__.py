"""Exports to other tools' formats, one module per format; every number is recomputed from per-item records.

- :mod:`.eee` — Every Eval Ever 0.3.0 aggregate + samples files (``slmboard export eee``)
- :mod:`.eval_results` — Hugging Face ``.eval_results/*.yaml`` per model and the dataset's ``eval.yaml``
  (``slmboard export eval-results``); :mod:`.push` opens the pull requests on model repos.
"""
from .eee import EeeExport, export_eee
from .files import ExportError

__all__ = ["EeeExport", "export_eee", "ExportError"]
