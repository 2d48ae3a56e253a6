"""Server CPU of one shared-link visit, measured in-process (CPU time, so other processes on the machine
do not count): a new visitor's session, the restore event the page starts for a link to the Items tab
(suite, judge, sort, model and label in the query string) through Gradio's postprocessing of its
outputs, and, for a page from before the per-tab restore, the tab request that follows it. Distinct
links (the model and sort differ per visit), as in bench/space_load.py's shared-links mix.

    .venv/bin/python bench/space_restore_cpu.py --repo . --data DATASET_FOLDER [--visits 40]

bench/space_load.py runs it for this checkout and for --baseline, side by side, on its dataset.
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


def link(k: int) -> str:
    sort = ["model", "S_adj", "rank (raw)"][k % 3]
    return f"suite=smoke&judge=openai:gpt-judge&sort={sort}&tab=items&model=org/model-{k % 26:02d}&label=ambiguous"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--visits", type=int, default=40)
    a = ap.parse_args()
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    sys.path.insert(0, str(a.repo.resolve()))
    import space.state as state
    from gradio.state_holder import SessionState
    from space.app import build_app
    from space.wiring import _Page

    quiet = {"warm": False} if "warm" in state.Settings.__dataclass_fields__ else {"warm_items": False}
    demo = build_app(a.data, state.Settings(refresh_seconds=0, **quiet))
    demo.slmboard_holder.items.index()
    page = next(o for o in gc.get_objects() if isinstance(o, _Page))
    page_state = [None, None, "leaderboard", *(p.default for p in page.params)]
    by_fn = {getattr(f.fn, "__func__", f.fn): f for f in demo.fns.values()}
    if hasattr(page, "restore_event"):  # one restore event per tab, nothing after it
        restore = page.restore_event("items")
        restore_fn = next(f for f in demo.fns.values() if getattr(f.fn, "__qualname__", "").endswith("restore_event.<locals>.run")
                          and len(f.outputs) == len(page.restore_at["items"]))
        tab = None
    else:  # one restore event for every tab, then the tab request the restored tab causes
        restore, restore_fn = page.on_restore, by_fn[_Page.on_restore]
        tab = (page.on_tab, by_fn[_Page.on_tab])

    async def visit(k: int) -> None:
        session = SessionState(demo)
        await demo.postprocess_data(restore_fn, restore(link(k), *page_state), session)
        if tab is not None:
            await demo.postprocess_data(tab[1], tab[0]("items", *page_state[:2], "items", *page_state[3:]), session)

    for k in range(3):
        asyncio.run(visit(1000 + k))  # warm: imports, the figures of the three sorts
    times = []
    for k in range(a.visits):
        t0 = time.process_time()
        asyncio.run(visit(k))
        times.append(time.process_time() - t0)
    print(f"{statistics.median(times) * 1000:.1f} ms median, {statistics.mean(times) * 1000:.1f} ms mean "
          f"({a.visits} distinct links)")


if __name__ == "__main__":
    main()
