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
