"""A pre-imported Python that forks each command line of a kill test, so that a trial does not pay for a fresh
interpreter importing the toolkit (about 2 s of CPU, 80 times per kill test) on top of the work it kills.

Each command is a process of its own, forked from a single-threaded parent that has imported ``toolkit.cli`` and
the modules its commands load, then runs ``toolkit.cli.main(argv)`` as ``python -m toolkit.cli`` would and exits
with its status. The test kills it by pid (SIGSTOP, SIGKILL) exactly as it kills a ``Popen``: what is killed is the
command, mid-write. Children are reaped by the kernel (SIGCHLD ignored in the parent, restored in each child, whose
own subprocesses are waited for as usual); a child's exit status is written to a file when it ends, so a child
that leaves no status file was killed.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

_PARENT = r"""
import json, os, signal, sys, traceback
import toolkit.cli
for name in sys.argv[1:]:
    __import__(name)
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
print("ready", flush=True)
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid:
        print(pid, flush=True)
        continue
    rc = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            os.dup2(os.open(job[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        sys.stdin = open(os.devnull)
        os.environ.clear()
        os.environ.update(job["env"])
        sys.argv = ["slmboard", *job["argv"]]
        try:
            rc = toolkit.cli.main(job["argv"])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
            rc = 1
        sys.stdout.flush()
        sys.stderr.flush()
        with open(job["rc"] + ".tmp", "w") as f:
            f.write(str(rc))
        os.replace(job["rc"] + ".tmp", job["rc"])
    finally:
        os._exit(rc if isinstance(rc, int) else 1)
"""


@dataclass
class Child:
    """A forked command, with the part of ``subprocess.Popen``'s interface the kill helpers use."""

    pid: int
    files: Path
    returncode: int | None = None

    def _alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def poll(self) -> int | None:
        status = self.files / "rc"  # written last: a child with one is done, even while the kernel reaps it
        if self.returncode is None and status.exists():
            self.returncode = int(status.read_text())
        elif self.returncode is None and not self._alive():
            self.returncode = int(status.read_text()) if status.exists() else -signal.SIGKILL
        return self.returncode

    def wait(self, timeout: float = 300.0) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.01)
        return self.returncode

    def kill(self) -> None:
        if self._alive():
            os.kill(self.pid, signal.SIGKILL)

    @property
    def stdout(self) -> str:
        return (self.files / "stdout").read_text()

    @property
    def stderr(self) -> str:
        return (self.files / "stderr").read_text()


class Zygote:
    """``Zygote(preload=[...])``: a parent that has imported ``toolkit.cli`` and ``preload``; ``start(argv, env)``
    forks one command; ``run(argv, env)`` forks one and waits for it. ``close()`` ends the parent."""

    def __init__(self, preload: tuple[str, ...] = (), env: dict | None = None) -> None:
        self._work = Path(tempfile.mkdtemp(prefix="zygote-"))
        self._n = 0
        self._proc = subprocess.Popen([sys.executable, "-c", _PARENT, *preload], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, env=env)
        assert self._proc.stdout.readline().strip() == "ready", "the zygote did not start"

    def start(self, argv: list[str], env: dict) -> Child:
        self._n += 1
        files = self._work / str(self._n)
        files.mkdir()
        job = dict(argv=argv, env=env, stdout=str(files / "stdout"), stderr=str(files / "stderr"), rc=str(files / "rc"))
        self._proc.stdin.write(json.dumps(job) + "\n")
        self._proc.stdin.flush()
        return Child(int(self._proc.stdout.readline()), files)

    def run(self, argv: list[str], env: dict, timeout: float = 300.0) -> Child:
        child = self.start(argv, env)
        child.wait(timeout)
        return child

    def close(self) -> None:
        self._proc.stdin.close()
        self._proc.wait(timeout=30)
        shutil.rmtree(self._work, ignore_errors=True)
