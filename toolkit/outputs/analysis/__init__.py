"""Diagnostics of paper 1 (§3.3, §4.2): the 12 metrics, AR correlations, ambiguity prediction,
model-metadata correlations and the figures. Importing this package loads nothing heavy: torch,
spaCy and sentence-transformers load inside the metric functions; figures need matplotlib only.
"""
from .metrics import ALL_METRICS, OUTPUT_METRICS, PROMPT_METRICS, SCORER
from .report import AnalysisResult, run_analysis

__all__ = ["ALL_METRICS", "PROMPT_METRICS", "OUTPUT_METRICS", "SCORER", "run_analysis", "AnalysisResult"]
