"""The Space's background work (the Items index at start-up, the views prepared per data version).

Each job runs in a daemon thread, so it never keeps a server from stopping, and is stopped and joined
when the interpreter exits: a daemon thread still in native code (drawing a figure, reading a table)
when the interpreter finalizes aborts the process ("terminate called without an active exception",
exit status 134; tests/space/test_space_prepared.py). A job that loops checks its stop signal between
steps; one that cannot stop midway is waited for (seconds).
"""
from __future__ import annotations

import atexit
import threading
from typing import Callable

_RUNNING: dict[threading.Thread, threading.Event] = {}
JOIN_SECONDS = 30  # per job at exit: at most one step of it


def start(name: str, job: Callable[[threading.Event], None]) -> threading.Thread:
    """Run ``job(stop)`` in a daemon thread named ``name``; ``stop`` is set when the interpreter exits."""
    stop = threading.Event()

    def run():
        try:
            job(stop)
        finally:
            _RUNNING.pop(thread, None)

    thread = threading.Thread(target=run, name=name, daemon=True)
    _RUNNING[thread] = stop
    thread.start()
    return thread


@atexit.register
def _stop_all() -> None:
    for thread, stop in list(_RUNNING.items()):
        stop.set()
        thread.join(timeout=JOIN_SECONDS)
