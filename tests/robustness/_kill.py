"""Shared helpers of the kill -9 tests: start a child, wait for a marker, freeze it, look, kill it.

The child is frozen (SIGSTOP) before anything is looked at, so what the test sees is exactly what
was on disk at the kill: a stopped process writes nothing more. A child that ended before the
marker, or before it could be frozen, is a miss (the caller retries); it never counts as a kill.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")


def start_quiet(cmd: list[str], env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen, timeout: float = 300.0) -> bool:
    """Poll until ``condition()`` or the process ends; True when the condition was met first."""
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            return False
        assert time.monotonic() < deadline, "timed out waiting for the child's marker"
        time.sleep(0.002)
    return True


def freeze_look_kill(proc: subprocess.Popen, look: Callable[[], T]) -> tuple[bool, T]:
    """SIGSTOP ``proc``, call ``look()`` while it is frozen, then SIGKILL it and reap it.
    Returns (whether it was still alive when frozen, what ``look()`` saw)."""
    # A Popen child that exited stays a zombie until reaped, so both signals land; a forked child of the zygote
    # (robustness/_zygote.py) is reaped by the kernel, and one caught in its exit path ignores the SIGSTOP and is
    # gone before the SIGKILL: it had finished writing, so it counts as not alive (a miss).
    try:
        os.kill(proc.pid, signal.SIGSTOP)
    except ProcessLookupError:
        proc.wait()
        return False, look()
    alive = proc.poll() is None  # a child that had already exited is reaped here: nothing left to kill
    seen = look()
    if alive:
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            alive = False
    proc.wait()
    return alive, seen


def reap(proc: subprocess.Popen) -> None:
    """Kill and reap ``proc`` if it is still running (a test that failed half-way leaves nothing behind)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def child_pids(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (read from /proc; call while ``pid`` is frozen, so the list is final)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def wait_gone(pids: list[int], timeout: float = 60.0) -> None:
    """Wait until every pid has exited (a zombie counts as exited): e.g. a git command that a killed
    parent left running, which may still change the repository."""
    deadline = time.monotonic() + timeout
    for pid in pids:
        while True:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                break
            if state == "Z":
                break
            assert time.monotonic() < deadline, f"process {pid} still running {timeout:.0f} s after its parent was killed"
            time.sleep(0.01)
