"""Staging folders of new run folders: named after their owner process, removed once that process is dead.

An import into a new run folder assembles it in ``.<NAME>.import-<owner>-<random>`` beside ``--out`` and
renames it into place. A process killed before the rename (SIGKILL, power loss) leaves that folder behind;
the next import into the same ``--out`` removes it. The owner tag says whose it is: a hash of the host name,
the process id and the process's start time (Linux ``/proc/<pid>/stat``), so a folder is removed only when
it was made on this host by a process that no longer runs (the start time tells a reused pid apart). A
folder of a live import, of another host, or without an owner tag (earlier versions of the toolkit wrote
``.<NAME>.import-<random>``) is left alone.
"""
from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode("utf-8")).hexdigest()[:8]


def process_start(pid: int) -> Optional[int]:
    """The start time of process ``pid`` in clock ticks since boot (Linux); None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # Field 2 (the command) is in parentheses and may hold spaces: count fields after its last ')'.
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[19])  # field 22 of the whole line: starttime


def owner_tag(pid: Optional[int] = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{_host_tag()}.{pid}.{process_start(pid) or 0}"


def _pattern(out: Path) -> re.Pattern:
    return re.compile(rf"^\.{re.escape(out.name)}\.import-(?P<host>[0-9a-f]{{8}})\.(?P<pid>\d+)\.(?P<start>\d+)-[^/]+$")


def make_staging(out: Path) -> Path:
    """A new, empty staging folder for ``out`` beside it, tagged with this process. mkdtemp makes it 0700;
    it becomes the run folder, so it gets the mode a plain mkdir would give (0777 less the umask)."""
    path = Path(tempfile.mkdtemp(prefix=f".{out.name}.import-{owner_tag()}-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    path.chmod(0o777 & ~umask)
    return path


def _alive(pid: int, start: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        pass
    now = process_start(pid)
    return not (start and now is not None and now != start)  # another process now has that pid


@dataclass(frozen=True)
class StaleStaging:
    path: Path
    pid: int


def stale_staging(out: Path) -> list[StaleStaging]:
    """The staging folders of ``out`` whose owner process (on this host) is dead."""
    pattern, host = _pattern(out), _host_tag()
    found = []
    for path in sorted(out.parent.glob(f".{glob.escape(out.name)}.import-*")):
        m = pattern.match(path.name)
        if m is None or m["host"] != host or not path.is_dir() or path.is_symlink():
            continue
        if not _alive(int(m["pid"]), int(m["start"])):
            found.append(StaleStaging(path, int(m["pid"])))
    return found


def remove_stale_staging(out: Path) -> list[StaleStaging]:
    """Remove the staging folders left beside ``out`` by dead imports; the ones removed."""
    if not out.parent.is_dir():
        return []
    removed = stale_staging(out)
    for stale in removed:
        shutil.rmtree(stale.path)
    return removed
