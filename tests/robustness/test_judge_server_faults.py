"""Judge server faults: garbage bodies, 429 with Retry-After, 500, timeouts, connection resets and
slow replies from a real HTTP server on 127.0.0.1. Every item ends judged or explicitly failed,
and the counts reconcile with the requests the server saw."""
from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from slmboard_testing import make_run
from toolkit.cli import main

FAULTS = ["garbage", "429", "500", "timeout", "reset", "slow", "ok"]
GOOD_REPLY = "<reasoning>It refused.</reasoning><score>1</score>"


def plan(key: str) -> tuple[str, bool]:
    """The fault a request body's hash picks for its first attempt, and whether it repeats on every attempt."""
    fault = FAULTS[int(key[:8], 16) % len(FAULTS)]
    return fault, int(key[8:10], 16) % 4 == 0 and fault not in ("ok", "slow")


def expected_outcome(fault: str, always: bool, max_attempts: int) -> tuple[int, str]:
    """(requests the server sees, final judge_status) for one item under the client's retry contract:
    transport failures (timeout, reset), 429 and 5xx are retried up to --max-attempts; a 200 whose
    body is not JSON is an answer, not a transient failure: one request, an explicit error."""
    if fault in ("ok", "slow"):  # slow (0.8 s) stays inside the 1.5 s timeout
        return 1, "ok"
    if fault == "garbage":
        return 1, "error"
    return (max_attempts, "error") if always else (2, "ok")


class FaultyServer:
    """Each item's first request fails in the way its hash picks; items whose hash picks a fault
    for every attempt ("always") keep failing, so they must end as explicit errors."""

    def __init__(self):
        self.requests: Counter = Counter()
        self.bodies: dict[str, bytes] = {}
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
                    outer.bodies[key] = body
                    attempt = outer.requests[key]
                fault, always = plan(key)
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
    assert status["error"] > 0 and status["ok"] > 0, (status, Counter(r["judge_reason"][:100] for r in rows))  # both outcomes are exercised
    for r in rows:
        if r["judge_status"] == "ok":
            assert r["score"] == 1.0
        else:
            assert r["score"] is None and r["label"] is None and r["judge_reason"]
    # Requests reconcile exactly with the server's fault plan, item by item.
    prompts = {r["item_id"]: r["prompt"] for r in rows}
    item_of_key = {}
    for key, body in faulty.bodies.items():
        text = json.dumps(json.loads(body))
        matches = [i for i, p in prompts.items() if json.dumps(p)[1:-1] in text]
        assert len(matches) == 1, (key, matches)
        item_of_key[key] = matches[0]
    assert sorted(item_of_key.values()) == sorted(scores)  # one request body per item, every item asked
    by_item = {r["item_id"]: r for r in rows}
    expected_total = 0
    seen_faults = Counter()
    for key, item in item_of_key.items():
        fault, always = plan(key)
        n_requests, final = expected_outcome(fault, always, max_attempts=3)
        seen_faults[fault, always] += 1
        assert (faulty.requests[key], by_item[item]["judge_status"]) == (n_requests, final), (item, fault, always)
        expected_total += n_requests
    assert sum(faulty.requests.values()) == expected_total
    assert any(always for _, always in seen_faults) and any(f != "ok" and not a for f, a in seen_faults), seen_faults
    pe, err = status["parse_error"], status["error"]
    assert f"failed {pe + err} (parse_error {pe}, error {err})" in out.out
