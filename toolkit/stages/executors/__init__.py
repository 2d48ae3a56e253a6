"""Executors: where fanned-out jobs run (``local``: this process; ``ray``: a Ray cluster). See :mod:`.base`."""
from .base import DEFAULT_EXECUTOR, EXECUTORS, Executor, ExecutorError, FanoutOptions, Resources, make_executor, run_in_thread

__all__ = ["DEFAULT_EXECUTOR", "EXECUTORS", "Executor", "ExecutorError", "FanoutOptions", "Resources", "make_executor",
           "run_in_thread"]
