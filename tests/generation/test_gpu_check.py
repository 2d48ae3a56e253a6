"""bench/gpu_check.py, the prepared check for a lent GPU machine, on this CPU machine: its skip logic, and its
comparison run with CPU on both sides (it must notice a device side that decodes differently)."""
import importlib.util
import subprocess
import sys

import pytest

from toolkit.testing.servers import REPO

torch = pytest.importorskip("torch")
SCRIPT = REPO / "bench" / "gpu_check.py"
SMALL = ["--n-prompts", "3", "--max-new-tokens", "5"]


def load_script():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA device is here: the check runs for real")
def test_without_cuda_the_device_side_is_skipped_and_says_why(tmp_path):
    out = tmp_path / "report.md"
    r = subprocess.run([sys.executable, str(SCRIPT), *SMALL, "--out", str(out)], capture_output=True, text=True,
                       timeout=600, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    report = out.read_text()
    assert "no CUDA device here: every device column is skipped, the CPU side runs" in report
    rows = {line.split(" | ")[0].lstrip("| "): line for line in report.splitlines() if line.startswith("| ")}
    assert "skipped: no CUDA" in rows["1 plain greedy loop, one prompt at a time"]
    assert "CPU identical to path 1: 3/3" in rows["2 toolkit continuous batching (hf backend's scheduler)"]
    hf_row = rows["3 hf backend (lm-eval HFLM, chat template, generate_stream)"]
    assert ("CPU texts equal to path 1 decoded: 3/3" in hf_row) if importlib.util.find_spec("lm_eval") else "skipped" in hf_row
    vllm_row = rows["4 vllm backend (offline LLM engine, in-process)"]
    assert "skipped: vllm not installed" in vllm_row or importlib.util.find_spec("vllm")


def test_device_side_on_cpu_agrees_and_a_different_device_model_is_reported(tmp_path, monkeypatch, capsys):
    check = load_script()
    assert check.main([*SMALL, "--device", "cpu", "--out", str(tmp_path / "same.md")]) == 0
    same = (tmp_path / "same.md").read_text()
    assert same.count("| 3/3 |") >= 2 and "different answers" not in same

    load = check.load_model

    def other_weights_on_the_device(folder, device):
        model = load(folder, device)
        if load.calls:  # the CPU model loads first; every later load is the "device" side
            with torch.no_grad():
                model.lm_head.weight.mul_(-1.0)  # another argmax: the answers must differ
        load.calls += 1
        return model

    load.calls = 0
    monkeypatch.setattr(check, "load_model", other_weights_on_the_device)
    assert check.main([*SMALL, "--device", "cpu", "--out", str(tmp_path / "diff.md")]) == 1
    assert "different answers: prompt 0: CPU [" in (tmp_path / "diff.md").read_text()
