"""Executors: where fanned-out jobs run (``local``: this process; ``ray``: a Ray cluster). See :mod:`.base`."""
from .base import EXECUTORS, Executor, ExecutorError, Resources, make_executor, run_in_thread

__all__ = ["EXECUTORS", "Executor", "ExecutorError", "Resources", "make_executor", "run_in_thread"]
