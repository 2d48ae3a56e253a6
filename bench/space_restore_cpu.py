"""Server CPU of one visit, for both mixes of bench/space_load.py, as CPU time (other processes on the machine
do not count; contention for the cores still inflates it a little).

In-process (always): the work of a visit inside the server's interpreter, no HTTP.
  - shared link: a new visitor's session, the restore event the page starts for a link to the Items tab (suite,
    judge, sort, model and label in the query string) through Gradio's postprocessing of its outputs, and, for a
    page from before the per-tab restore, the tab request that follows it. Distinct links (the model and sort
    differ per visit), as in the load test.
  - visit: the five named API calls of the plain visit (the table three times, two Items pages, one filtered),
    each through ``Blocks.process_api`` with a session of its own, as every ``/gradio_api/call/NAME`` request
    opens one; the page itself comes from memory (space/page_cache.py) and is left out here.
``--http``: the whole visit over HTTP, one visitor at a time, against a server process started from ``--repo``
(the page, the queue's join and result streams, JSON): the growth of that process's CPU time (/proc) per
visit, idle time subtracted. This is the figure held against the ~80 ms that 50 visitors at once on two cores
allow (issue 49): 50 x 80 ms of CPU is 2 s on two cores.

    .venv/bin/python bench/space_restore_cpu.py --repo . --data DATASET_FOLDER [--visits 40] [--mix both] [--http]

bench/space_load.py runs it (with --http) for this checkout and for --baseline, side by side, on its dataset.
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def link(k: int) -> str:
    sort = ["model", "S_adj", "rank (raw)"][k % 3]
    return f"suite=smoke&judge=openai:gpt-judge&sort={sort}&tab=items&model=org/model-{k % 26:02d}&label=ambiguous"


def visit_calls(k: int) -> list[tuple[str, list]]:
    """The named API calls of bench/space_load.py's plain visit ``k``."""
    suite = ["sst", "harmbench", "xstest", "airbench", "salad"][k % 5]
    return [("table", ["smoke", "heuristic"]), ("table", [suite, "heuristic"]), ("table", [suite, "openai:gpt-judge"]),
            ("items", ["smoke", "(all)", "(all)", "(all)", 1 + (7 * k) % 400, "(all)"]),
            ("items", ["smoke", f"org/model-{k % 26:02d}", "ambiguous", "(all)", 1 + k % 20, "(all)"])]


def in_process(repo: Path, data: Path, visits: int, mixes: list[str]) -> None:
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    sys.path.insert(0, str(repo.resolve()))
    import space.state as state
    from gradio.state_holder import SessionState
    from space.app import build_app
    from space.wiring import _Page

    quiet = {"warm": False} if "warm" in state.Settings.__dataclass_fields__ else {"warm_items": False}
    demo = build_app(data, state.Settings(refresh_seconds=0, **quiet))
    demo.slmboard_holder.items.index()
    page = next(o for o in gc.get_objects() if isinstance(o, _Page))
    page_state = [None, None, "leaderboard", *(p.default for p in page.params)]
    by_fn = {getattr(f.fn, "__func__", f.fn): f for f in demo.fns.values()}
    by_api = {f.api_name: f for f in demo.fns.values() if getattr(f, "api_name", None)}
    if hasattr(page, "restore_event"):  # one restore event per tab, nothing after it
        restore = page.restore_event("items")
        restore_fn = next(f for f in demo.fns.values() if getattr(f.fn, "__qualname__", "").endswith("restore_event.<locals>.run")
                          and len(f.outputs) == len(page.restore_at["items"]))
        tab = None
    else:  # one restore event for every tab, then the tab request the restored tab causes
        restore, restore_fn = page.on_restore, by_fn[_Page.on_restore]
        tab = (page.on_tab, by_fn[_Page.on_tab])

    async def shared(k: int) -> None:
        session = SessionState(demo)
        await demo.postprocess_data(restore_fn, restore(link(k), *page_state), session)
        if tab is not None:
            await demo.postprocess_data(tab[1], tab[0]("items", *page_state[:2], "items", *page_state[3:]), session)

    async def plain(k: int) -> None:
        for name, data in visit_calls(k):
            await demo.process_api(by_api[name], data, state=SessionState(demo))

    for mix in mixes:
        one = shared if mix == "shared" else plain
        for k in range(3):
            asyncio.run(one(1000 + k))  # warm: imports, the figures of the three sorts
        times = []
        for k in range(visits):
            t0 = time.process_time()
            asyncio.run(one(k))
            times.append(time.process_time() - t0)
        what = f"{visits} distinct links" if mix == "shared" else f"{visits} visits of 5 API calls"
        print(f"in-process, {'shared link' if mix == 'shared' else 'visit'}: {statistics.median(times) * 1000:.1f} ms "
              f"median, {statistics.mean(times) * 1000:.1f} ms mean ({what})")


def over_http(repo: Path, data: Path, visits: int, mixes: list[str], release: str | None) -> None:
    """One visitor at a time against a server process from ``repo``: its CPU time per visit."""
    from functools import partial

    import httpx

    sys.path.insert(0, str(BENCH))
    import space_load as load

    def cpu(pid: int) -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    server, url = load.start_server(data, repo=repo.resolve())
    try:
        config = httpx.get(url + "/config", timeout=30).json()
        idle0, t0 = cpu(server.pid), time.perf_counter()
        time.sleep(3)
        idle = (cpu(server.pid) - idle0) / (time.perf_counter() - t0)  # timers, the queue's loop: per second
        with httpx.Client(base_url=url, headers=load.BROWSER_HEADERS, limits=load.CLIENT_LIMITS) as client:
            for mix in mixes:
                fn = load.visit if mix == "visit" else partial(load.shared_link_visit, release=release)
                for k in range(3):
                    fn(client, 1000 + k, 60, config, None)  # warm
                c0, t0, requests = cpu(server.pid), time.perf_counter(), 0
                for k in range(visits):
                    requests += len(fn(client, k, 60, config, None))
                spent = cpu(server.pid) - c0 - idle * (time.perf_counter() - t0)
                name = "visit (page load and 5 API calls)" if mix == "visit" else "shared link (page and restore)"
                print(f"over HTTP, {name}: {spent / visits * 1000:.1f} ms of server CPU per visit "
                      f"({spent / requests * 1000:.1f} ms per request; {visits} visits, returning visitors)")
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--visits", type=int, default=40)
    ap.add_argument("--mix", choices=["both", "visit", "shared"], default="both")
    ap.add_argument("--http", action="store_true", help="also the whole visit over HTTP, against a server process")
    ap.add_argument("--release", default=None, help="with --http: every other shared link opens this release")
    a = ap.parse_args()
    mixes = ["visit", "shared"] if a.mix == "both" else [a.mix]
    in_process(a.repo, a.data, a.visits, mixes)
    if a.http:
        over_http(a.repo, a.data, a.visits, mixes, a.release)


if __name__ == "__main__":
    main()
