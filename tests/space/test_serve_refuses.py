"""`slmboard serve` refuses what it cannot show before any server starts: a missing folder, an
unreachable Hub dataset (a closed port as HF_ENDPOINT). A server that started would block until the
timeout; a refusal is one line and exit 1, and nothing listens on the port."""
from __future__ import annotations

import socket
import subprocess

import pytest

from slmboard_hub_clients import cli, hub_env


def free_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("data,needles", [
    ("{tmp}/missing/board", ["missing/board", "no such file or folder"]),
    ("org/board", ["dataset org/board", "cannot reach the Hub"]),
])
def test_serve_refuses_before_starting_a_server(data, needles, tmp_path):
    hub = type("NoEmulator", (), {"url": f"http://127.0.0.1:{free_port()}", "token": "hf_unusedtoken0123"})
    port = free_port()
    try:
        proc = cli(hub_env(hub, tmp_path), "serve", data.format(tmp=tmp_path), "--port", str(port), check=False, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve {data} started a server instead of refusing")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and all(n in lines[0] for n in needles), proc.stderr
    assert "Running on" not in proc.stdout and not listening(port)


def test_serve_on_a_busy_port_is_one_line_naming_port(tmp_path):
    """Another server listens on the port: one line naming --port, not Gradio's traceback about its
    environment variable, and the other server keeps its port."""
    from slmboard_testing import make_run

    make_run(tmp_path / "board", judged=True)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        hub = type("NoEmulator", (), {"url": f"http://127.0.0.1:{free_port()}", "token": "hf_unusedtoken0123"})
        try:
            proc = cli(hub_env(hub, tmp_path), "serve", str(tmp_path / "board"), "--port", str(port), check=False,
                       timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail("serve started a server on a busy port")
        assert proc.returncode == 1, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and f"port {port} on 127.0.0.1 is in use" in lines[0] and "--port" in lines[0], proc.stderr
        assert "GRADIO_SERVER_PORT" not in proc.stderr and listening(port)


def test_serve_starts_behind_a_dead_proxy_and_says_where(tmp_path):
    """http_proxy points at a closed port and no_proxy does not name localhost: Gradio's launch checks its own
    local URL through the proxy (httpx ConnectError) unless serve bypasses it for its own addresses. The line
    serve prints names the URL, not Gradio's `share=True`, an option a serve user does not have."""
    import sys
    import time

    from slmboard_testing import make_run

    make_run(tmp_path / "board", judged=True)
    dead = f"http://127.0.0.1:{free_port()}"
    env = {k: v for k, v in hub_env(type("NoEmulator", (), {"url": dead, "token": "hf_unusedtoken0123"}), tmp_path).items()
           if k.lower() != "no_proxy"}
    env.update(http_proxy=dead, https_proxy=dead, HTTP_PROXY=dead, HTTPS_PROXY=dead)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "toolkit.cli", "serve", str(tmp_path / "board"), "--port", str(port)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines, line, deadline = [], "", time.monotonic() + 120
        while "Serving" not in line and proc.poll() is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
        assert f"Serving the leaderboard at http://127.0.0.1:{port}" in line, (line, proc.poll())
        assert listening(port)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=60)
    assert "share=True" not in "".join(lines) + out + err and "ConnectError" not in err, err[-2000:]
