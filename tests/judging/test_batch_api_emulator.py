"""The --batch path end to end through the real `openai` client against a Batch API *emulator* on
127.0.0.1 (files upload, batch create, poll, output download). No local server implements
/v1/batches, so this emulator answers each request line with a scored reply; what is under test is
our client path: upload once, persist the batch id, a restarted judge resumes that batch instead of
submitting a new one, and every item ends judged or explicitly failed."""
from __future__ import annotations

import json
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from slmboard_testing import make_run
from toolkit import api

REPLY = "<reasoning>Refused.</reasoning><score>1</score>"


class BatchEmulator:
    def __init__(self, polls_before_done: int = 2):
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.created = 0
        self.billed = [0, 0]  # prompt and completion tokens of every answered line
        self.with_usage = True  # False: answers without `usage`, as some servers give them
        self.tokenized = 0
        self.polls_before_done = polls_before_done
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _json(self, obj, code=200):
                body = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.endswith("/files"):
                    # multipart/form-data: keep the part that holds the JSONL lines
                    match = re.search(rb'filename="[^"]*"\r\n(?:[^\r\n]+\r\n)*\r\n(.*?)\r\n--', data, re.S)
                    fid = f"file-{uuid.uuid4().hex[:8]}"
                    outer.files[fid] = match.group(1) if match else b""
                    return self._json({"id": fid, "object": "file", "bytes": len(outer.files[fid]), "created_at": 0,
                                       "filename": "judge-batch.jsonl", "purpose": "batch", "status": "processed"})
                if self.path == "/tokenize":  # as vLLM's: a chat's messages (the template adds 5) or a text
                    req = json.loads(data)
                    text = " ".join(m["content"] for m in req["messages"]) if "messages" in req else req["prompt"]
                    outer.tokenized += 1
                    return self._json({"count": len(text.split()) + (5 if "messages" in req else 0)})
                if self.path.endswith("/batches"):
                    req = json.loads(data)
                    bid = f"batch_{uuid.uuid4().hex[:8]}"
                    outer.created += 1
                    outer.batches[bid] = {"input": req["input_file_id"], "polls": 0}
                    return self._json(self._batch(bid))
                self._json({"error": {"message": "not found"}}, 404)

            def _batch(self, bid):
                b = outer.batches[bid]
                done = b["polls"] >= outer.polls_before_done
                out_id = None
                if done and "output" not in b:
                    lines = []
                    for line in outer.files[b["input"]].decode().splitlines():
                        if line.strip():
                            req = json.loads(line)
                            # billed as a server would: words of the prompt in, a fixed reply out (summed here)
                            usage = {"prompt_tokens": len(req["body"]["messages"][0]["content"].split()),
                                     "completion_tokens": 11}
                            outer.billed[0] += usage["prompt_tokens"]
                            outer.billed[1] += usage["completion_tokens"]
                            body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY},
                                                 "finish_reason": "stop"}]}
                            if outer.with_usage:
                                body["usage"] = {**usage, "total_tokens": sum(usage.values())}
                            lines.append(json.dumps({"id": "r", "custom_id": req["custom_id"],
                                                     "response": {"status_code": 200, "body": body}}))
                    b["output"] = f"file-out-{bid}"
                    outer.files[b["output"]] = ("\n".join(lines) + "\n").encode()
                if done:
                    out_id = b["output"]
                return {"id": bid, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": b["input"],
                        "completion_window": "24h", "status": "completed" if done else "in_progress", "created_at": 0,
                        "output_file_id": out_id, "error_file_id": None}

            def do_GET(self):
                m = re.search(r"/batches/([^/]+)$", self.path)
                if m:
                    outer.batches[m.group(1)]["polls"] += 1
                    return self._json(self._batch(m.group(1)))
                m = re.search(r"/files/([^/]+)/content$", self.path)
                if m:
                    body = outer.files[m.group(1)]
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    return self.wfile.write(body)
                self._json({"error": {"message": "not found"}}, 404)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def emulator():
    e = BatchEmulator()
    yield e
    e.stop()


def test_batch_is_uploaded_once_resumed_by_id_and_every_item_judged(tmp_path, emulator, monkeypatch):
    monkeypatch.setenv("SLMBOARD_TEST_KEY", "test-key")
    run = make_run(tmp_path / "run", judged=False)
    opts = dict(base_url=emulator.base_url, api_key_env="SLMBOARD_TEST_KEY", batch_api=True, batch_poll_seconds=0.05,
                cache_file=str(tmp_path / "cache.sqlite"))
    # First attempt: the batch is submitted, then the process "dies" while polling (timeout before completion).
    emulator.polls_before_done = 10**9
    from toolkit.stages.judging import make_judge

    judge = make_judge("openai:batch-model", **opts)
    import toolkit.stages.judging.batch as batch_mod

    real = batch_mod.judge_with_batch_api

    def dying(*args, **kwargs):
        return real(*args, **{**kwargs, "timeout_seconds": 0.2})

    monkeypatch.setattr(batch_mod, "judge_with_batch_api", dying)
    monkeypatch.setattr("toolkit.stages.judging.openai_judge.judge_with_batch_api", dying, raising=False)
    with pytest.raises(TimeoutError, match="re-run to resume"):
        api.judge(run, judge=judge, services=api.Services(progress=False))
    state = run / "judgments" / "openai-batch-model" / "batch-state.json"
    assert state.is_file() and emulator.created == 1
    batch_id = json.loads(state.read_text())["batch_id"]
    # Restart: the pending batch is resumed by its id, not submitted again.
    monkeypatch.setattr(batch_mod, "judge_with_batch_api", real)
    monkeypatch.setattr("toolkit.stages.judging.openai_judge.judge_with_batch_api", real, raising=False)
    emulator.polls_before_done = 0
    assert not (run / "cost.json").exists()  # the first attempt died before any answer: nothing spent is known yet
    result = api.judge(run, judge=api.JudgeSpec("openai:batch-model", **opts), services=api.Services(progress=False),
                       options=api.JudgingRunOptions(price=["openai:batch-model=2,8"]))
    assert emulator.created == 1 and emulator.batches[batch_id]["polls"] >= 1
    assert not state.exists()
    rows = [json.loads(l) for l in (run / "judgments" / "openai-batch-model" / "smoke.jsonl").read_text().splitlines()]
    assert [(r["judge_status"], r["score"]) for r in rows] == [("ok", 1.0)] * 3, [r["judge_reason"] for r in rows]
    assert result.n_new == 3
    # What the job cost: its 3 requests counted once (the resumed process records them, the dead one could not),
    # with the tokens the emulator billed and the price given for the judge.
    cost = json.loads((run / "cost.json").read_text())["openai:batch-model"]
    prompt, completion = emulator.billed
    assert (cost["requests"], cost["items"], cost["prompt_tokens"], cost["output_tokens"]) == (3, 3, prompt, completion)
    assert cost["usd"] == pytest.approx((prompt * 2 + completion * 8) / 1e6)


def test_a_server_that_reports_no_usage_is_counted_by_its_own_tokenizer(tmp_path, emulator, monkeypatch):
    monkeypatch.setenv("SLMBOARD_TEST_KEY", "test-key")
    emulator.with_usage, emulator.polls_before_done = False, 0
    run = make_run(tmp_path / "run", judged=False)
    opts = dict(base_url=emulator.base_url, api_key_env="SLMBOARD_TEST_KEY", batch_api=True, batch_poll_seconds=0.05,
                cache_file=str(tmp_path / "cache.sqlite"))
    api.judge(run, judge=api.JudgeSpec("openai:batch-model", **opts), services=api.Services(progress=False))
    ledger = [json.loads(line) for line in (run / ".usage" / "judgments" / "openai-batch-model.jsonl").read_text().splitlines()]
    assert {r["tokens_from"] for r in ledger} == {"tokenizer"} and emulator.tokenized == 6  # a prompt and a reply each
    cost = json.loads((run / "cost.json").read_text())["openai:batch-model"]
    # the emulator's tokenizer: words, and 5 for the chat template around the prompt
    assert cost["prompt_tokens"] == emulator.billed[0] + 5 * 3 and cost["output_tokens"] == 3 * len(REPLY.split())
