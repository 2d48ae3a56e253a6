"""Judge server faults: garbage bodies, 429 with Retry-After, 500, timeouts, connection resets and
slow replies from a real HTTP server on 127.0.0.1. Every item ends judged or explicitly failed,
and the counts reconcile with the requests the server saw."""
from __future__ import annotations

import hashlib
import json
import socket
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from slmboard_testing import make_run
from toolkit.cli import main

FAULTS = ["garbage", "429", "500", "timeout", "reset", "slow", "ok"]
GOOD_REPLY = "<reasoning>It refused.</reasoning><score>1</score>"


class FaultyServer:
    """Each item's first request fails in the way its hash picks; items whose hash picks a fault
    for every attempt ("always") keep failing, so they must end as explicit errors."""

    def __init__(self):
        self.requests: Counter = Counter()
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def _send(self, code: int, body: bytes, headers: dict | None = None):
                self.send_response(code)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self._send(200, json.dumps({"object": "list", "data": [{"id": "faulty", "object": "model"}]}).encode())

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                key = hashlib.sha256(body).hexdigest()
                with outer.lock:
                    outer.requests[key] += 1
                    attempt = outer.requests[key]
                fault = FAULTS[int(key[:8], 16) % len(FAULTS)]
                always = int(key[8:10], 16) % 4 == 0 and fault not in ("ok", "slow")
                if attempt > 1 and not always:
                    fault = "ok"
                if fault == "garbage":
                    return self._send(200, b"\x00not json at all")
                if fault == "429":
                    return self._send(429, b'{"error": {"message": "slow down"}}', {"Retry-After": "1"})
                if fault == "500":
                    return self._send(500, b'{"error": {"message": "boom"}}')
                if fault == "timeout":
                    time.sleep(3)
                if fault == "reset":
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if fault == "slow":
                    time.sleep(0.8)
                reply = {"id": "x", "object": "chat.completion", "created": 0, "model": "faulty",
                         "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": GOOD_REPLY}}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                self._send(200, json.dumps(reply).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # the client gave up on a timed-out reply: expected
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def faulty():
    server = FaultyServer()
    yield server
    server.stop()


def test_every_item_ends_judged_or_explicitly_failed(tmp_path, faulty, monkeypatch, capsys):
    monkeypatch.setenv("SLMBOARD_TEST_KEY", "test-key")
    scores = {f"smoke_{i:03d}": 1.0 for i in range(1, 31)}
    run = make_run(tmp_path / "run", scores=scores, judged=False)
    rc = main(["judge", str(run), "--judge", "openai:faulty", "--base-url", faulty.base_url, "--api-key-env", "SLMBOARD_TEST_KEY",
               "--concurrency", "4", "--max-attempts", "3", "--timeout", "1.5", "--cache", str(tmp_path / "c.sqlite")])
    out = capsys.readouterr()
    assert rc == 0, out.err
    rows = [json.loads(l) for l in (run / "judgments" / "openai-faulty" / "smoke.jsonl").read_text().splitlines()]
    assert sorted(r["item_id"] for r in rows) == sorted(scores)  # nothing lost, nothing twice
    status = Counter(r["judge_status"] for r in rows)
    assert status["ok"] + status["parse_error"] + status["error"] == len(scores)
    assert status["error"] > 0 and status["ok"] > 0, status  # both outcomes are exercised
    for r in rows:
        if r["judge_status"] == "ok":
            assert r["score"] == 1.0
        else:
            assert r["score"] is None and r["label"] is None and r["judge_reason"]
    # Requests reconcile: each item asked at least once, failed items up to --max-attempts times.
    total = sum(faulty.requests.values())
    assert len(scores) <= total <= 3 * len(scores)
    assert f"failed {status['error'] + status['parse_error']}" in out.out or str(status["error"]) in out.out
