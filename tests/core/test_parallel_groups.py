"""`make test` runs the suite on two pytest-xdist workers (tests/slmboard_parallel.py); what keeps that honest."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from slmboard_parallel import NEEDS, group_of_file, group_of_nodeid, make_scheduler

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"


def _test_files() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def test_every_file_that_starts_vllm_cpu_or_chromium_is_in_its_one_group():
    # written in pieces: this file names neither resource (it is in a group of its own)
    vllm = re.compile("|".join(w.replace("~", "") for w in
                               ("shared_vllm~_server", "start_vllm~_server", r"vllm~_python\(", r"\.venv~-vllm", "VLLM~_VENV")))
    chromium = re.compile("|".join(w.replace("~", "") for w in ("chromium~_browser", r"chromium~\.launch", r"mark~\.browser")))
    for path in _test_files():
        text = path.read_text(encoding="utf-8")
        if vllm.search(text):
            assert group_of_file(str(path)) == "vllm-cpu", path
        elif chromium.search(text):
            assert group_of_file(str(path)) == "chromium", path
        else:
            assert group_of_file(str(path)) == path.relative_to(TESTS).as_posix(), path
    assert len([p for p in _test_files() if group_of_file(str(p)) == "vllm-cpu"]) >= 4
    assert len([p for p in _test_files() if group_of_file(str(p)) == "chromium"]) >= 4
    assert set(NEEDS) == {"vllm-cpu", "chromium"}


def test_the_scheduler_keeps_a_file_and_a_group_on_one_worker():
    from xdist.scheduler import LoadScopeScheduling

    config = type("Config", (), {"rootpath": REPO})()
    original = LoadScopeScheduling.__init__
    LoadScopeScheduling.__init__ = lambda self, config, log=None: None  # only its grouping is under test here
    try:
        scheduler = make_scheduler(config, None)
    finally:
        LoadScopeScheduling.__init__ = original
    split = scheduler._split_scope
    assert split("tests/core/test_registry.py::test_a[x@y]") == split("tests/core/test_registry.py::test_b") == \
        group_of_nodeid(REPO, "tests/core/test_registry.py::test_c") == "core/test_registry.py"
    assert split("tests/judging/test_judges_vllm.py::test_a") == split("tests/generation/test_vllm_cpu.py::t[1]") == \
        split("tests/moderation/test_api_vllm.py::t") == split("tests/judging/test_batch_rubrics.py::t") == "vllm-cpu"
    assert split("tests/space/test_space_browser.py::t") == split("tests/requests/test_request_browser.py::t") == \
        split("tests/e2e/test_demo_pipeline.py::t") == "chromium"


def test_make_test_runs_two_workers_by_group_and_a_plain_pytest_stays_serial():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^test:.*\n\t(.+)$", makefile, re.M).group(1)
    assert "-n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder" in recipe
    assert re.search(r"^PYTEST_WORKERS \?= 2$", makefile, re.M)
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    addopts = re.search(r'^addopts = "(.*)"$', pyproject, re.M).group(1)
    assert "-n" not in addopts.split() and "--dist" not in addopts  # pytest tests/x.py: one process, as before


def test_every_worker_collects_the_same_ids():
    """xdist refuses a run whose workers collect different ids: no id may carry a value drawn at collection."""
    def collect() -> list[str]:
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                              "tests/suites", "tests/generation", "tests/judging"],
                             cwd=REPO, capture_output=True, text=True, timeout=300).stdout
        return [line for line in out.splitlines() if "::" in line]

    first = collect()
    assert first and first == collect()
