"""Judging: the judge interface and registry, the built-in judges, and the resumable runner."""
from .base import JUDGES, Judge, JudgeInput, Judgment, available_judges, make_judge, register_judge
from .runner import JudgeResult, item_record, judge_run

__all__ = [
    "JUDGES",
    "Judge",
    "JudgeInput",
    "Judgment",
    "available_judges",
    "make_judge",
    "register_judge",
    "JudgeResult",
    "item_record",
    "judge_run",
]
