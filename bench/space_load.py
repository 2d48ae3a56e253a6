"""Load test of the Space: N concurrent clients on 127.0.0.1 against one server process serving
26 models x 6 suites x 2 judges and a 1,000,000-row per-item dataset.

Page loads are made the way Chromium makes them (recorded from real Chromium on this app, see
tests/space/test_space_page_events.py): the HTML, which carries the page config; on a client's first
visit the ~90 front-end files the page pulls in (JavaScript, CSS, fonts: the list is recorded by
opening the page once in Chromium when /usr/bin/chromium and playwright are here, else read from the
HTML), fetched six at a time as a browser does; later visits have them cached; then the queued
events the page starts, each with the events chained after it. The plain address starts none: its
view is baked into the page (space/landing.py). Not simulated: the heartbeat stream an open page holds.

Each server is measured once its start-up work is done (the Items index and the views prepared per
data version: wait_until_idle); the time that took is printed. ``--during-warm-up`` measures from the
moment it answers instead (visitors arriving right after a start or a data change).

Two mixes, each at every N:
  - visit (issue 14's): the page load at the plain address, the leaderboard table (/table), a suite
    switch and a judge switch (/table), and two Items pages (/items, one filtered);
  - shared links: each client opens addresses with a query string (suite, judge, sort, the Items tab
    with a model and label filter): the HTML and the restore event (table, caption, interval figure,
    the Items page); see page_load for the events a page starts.
API calls go through Gradio's queue (POST /gradio_api/call/NAME, then the SSE result), as the page's
own events do. Bounded: --rounds visits per client and --deadline seconds per N.

Last, side by side in one run: N = 10 new visitors' page loads against this server and against a
second one started with --no-static-cache (Gradio serving and compressing its front-end files
itself on every request, space/static_cache.py).

``--release`` makes the board a git repository with an older release (tag v1, then one more commit): the page has
its Version selector, and every other shared link opens the release (``&version=v1``), which the server holds
beside the latest board.

``--mix shared`` runs the shared-links mix only. ``--baseline DIR`` (another checkout of the repository,
e.g. ``git archive REV | tar -x -C DIR``) starts a second server from DIR's code on the same data and
runs the chosen mixes against both, alternating level by level: before and after side by side, one run;
it also measures the server CPU of one visit of each chosen mix for both, in-process and over HTTP
(bench/space_restore_cpu.py --http: CPU time, which the machine's other load does not inflate much).
Each level also prints the CPU time the server process and the clients (this process) spent over it.

    .venv/bin/python bench/space_load.py [--clients 1,10,50] [--rounds 3] [--rows 1000000]
    .venv/bin/python bench/space_load.py --mix shared --clients 10 --baseline /tmp/before --repeat 3

Targets (issue 14): no errors; p95 <= 2 s at N = 10; still answering at N = 50 (queue, not crash). Issue 49:
p95 <= 2 s at N = 50, and at most ~80 ms of server CPU per visit (50 visits at once, two cores, 2 s).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
BROWSER_HEADERS = {"Accept-Encoding": "gzip, deflate, br, zstd"}  # what Chromium sends
# uvicorn closes a connection idle for 5 s; a client reusing it at that moment gets a reset, which a
# browser retries silently and httpx reports: idle connections are dropped client-side first
CLIENT_LIMITS = httpx.Limits(keepalive_expiry=2.0)


def call(client: httpx.Client, name: str, data: list, timeout: float) -> None:
    """One queued API call; raises on an HTTP error, an error event or no result."""
    r = client.post(f"/gradio_api/call/{name}", json={"data": data}, timeout=timeout)
    r.raise_for_status()
    event_id = r.json()["event_id"]
    with client.stream("GET", f"/gradio_api/call/{name}/{event_id}", timeout=timeout) as s:
        s.raise_for_status()
        event = None
        for line in s.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
                if event == "error":
                    raise RuntimeError(f"{name}: error event")
            elif line.startswith("data:") and event == "complete":
                json.loads(line[5:])
                return
    raise RuntimeError(f"{name}: stream ended without a result")


def event_chain(config: dict, elem_id: str, event: str, first_value) -> list[tuple[int, list]]:
    """(fn_index, input values) of the server functions a browser runs when ``event`` fires on the
    component ``elem_id``, then those chained after it (.then), with ``first_value`` as the
    component's new value, every other input's value from the page config (None for a gr.State,
    which the server keeps per session)."""
    components = {c["id"]: c for c in config["components"]}
    target = next(c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == elem_id)

    def value(cid):
        if cid == target:
            return first_value
        c = components.get(cid, {})
        return None if c.get("type") == "state" else c.get("props", {}).get("value")

    deps = config["dependencies"]
    first = next(d for d in deps if any(t[0] == target and t[1] == event for t in d["targets"]))
    chain, ids = [], {first["id"]}
    for d in deps:  # dependencies are listed in the order they were defined: a .then follows its trigger
        if d is first or d.get("trigger_after") in ids:
            ids.add(d["id"])
            if d.get("backend_fn"):
                chain.append((d["id"], [value(i) for i in d["inputs"]]))
    return chain


def run_events(client: httpx.Client, chain: list[tuple[int, list]], session: str, timeout: float) -> None:
    """Queue each event as the browser does (POST /queue/join, result on the session's SSE stream)."""
    for fn_index, data in chain:
        r = client.post("/gradio_api/queue/join", json={"data": data, "fn_index": fn_index, "session_hash": session,
                                                         "event_data": None, "trigger_id": None}, timeout=timeout)
        r.raise_for_status()
        with client.stream("GET", "/gradio_api/queue/data", params={"session_hash": session}, timeout=timeout) as s:
            s.raise_for_status()
            for line in s.iter_lines():
                if not line.startswith("data:"):
                    continue
                msg = json.loads(line[5:])
                if msg.get("msg") == "process_completed":
                    if not msg.get("success"):
                        raise RuntimeError(f"event {fn_index}: {str(msg.get('output'))[:200]}")
                    break
            else:
                raise RuntimeError(f"event {fn_index}: stream ended without a result")


def page_assets(url: str, browser: bool = True) -> tuple[list[str], str]:
    """The front-end files a browser fetches for the page (paths), and where the list came from."""
    import re

    try:
        if not browser:
            raise ImportError("--no-browser")
        from playwright.sync_api import sync_playwright

        if not Path("/usr/bin/chromium").exists():
            raise ImportError("no /usr/bin/chromium")
        paths: list[str] = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
            page = browser.new_page()
            page.on("request", lambda r: paths.append(r.url[len(url):]) if r.resource_type in (
                "script", "stylesheet", "font", "image") and r.url.startswith(url) else None)
            page.goto(url, wait_until="load")
            page.wait_for_timeout(5000)
            browser.close()
        return sorted(set(paths)), "recorded in Chromium"
    except ImportError as exc:
        html = httpx.get(url, timeout=30).text
        found = sorted(set(re.findall(r'(?:src|href)="\.?(/(?:assets|static)/[^"]+)"', html)))
        return found, f"read from the HTML ({exc}): fewer than a browser fetches"


def fetch_assets(client: httpx.Client, assets: list[str], timeout: float) -> None:
    """Every file in full, six at a time (a browser's connections per host), left compressed (decoding
    is the visitor's CPU). Through urllib3, not httpx: the clients share the server's two cores here,
    and a lighter client leaves more of them to the server, as a visitor's own machine would."""
    from concurrent.futures import ThreadPoolExecutor

    import urllib3

    pool = urllib3.HTTPConnectionPool(client.base_url.host, client.base_url.port, maxsize=6, block=True,
                                      headers=BROWSER_HEADERS, timeout=timeout, retries=False)

    def fetch(path: str) -> None:
        r = pool.request("GET", path, preload_content=False, decode_content=False)
        try:
            if r.status != 200:
                raise RuntimeError(f"GET {path}: HTTP {r.status}")
            for _ in r.stream(65536, decode_content=False):
                pass
        finally:
            r.release_conn()

    try:
        with ThreadPoolExecutor(6) as workers:
            list(workers.map(fetch, assets))
    finally:
        pool.close()


def _has(config: dict, elem_id: str) -> bool:
    return any(c.get("props", {}).get("elem_id") == elem_id for c in config["components"])


def page_load(client: httpx.Client, query: str, config: dict, timeout: float, assets: list[str] = ()) -> None:
    """A visitor opening the page at ``/?query``: the HTML and ``assets`` (a new visitor's uncached
    front-end files), then, for a query string, the events the page starts, as Chromium starts them:
    the page copies its query string into the hidden textbox of the tab it opens, whose change is that
    tab's restore event, and the browser's selection of that tab starts nothing (the links here set
    inputs of the tab they open only; one that also set another tab's would go to ``query-in-all``). (A page from before
    the per-tab restore, e.g. a --baseline checkout, has one textbox and one restore event for all tabs,
    followed by the tab request the restored tab causes.) The plain address starts none (its view is
    in the HTML)."""
    import uuid
    from urllib.parse import parse_qs

    client.get("/" + (f"?{query}" if query else ""), timeout=timeout).raise_for_status()
    if assets:
        fetch_assets(client, assets, timeout)
    if not query:
        return
    session = uuid.uuid4().hex[:11]
    tab = parse_qs(query).get("tab", ["leaderboard"])[0]
    if _has(config, f"query-in-{tab}"):
        run_events(client, event_chain(config, f"query-in-{tab}", "change", query), session, timeout)
        return
    run_events(client, event_chain(config, "query-in", "change", query), session, timeout)
    if tab != "leaderboard":  # the browser selects the restored tab, which writes its key
        run_events(client, event_chain(config, "tab-request", "change", tab), session, timeout)


def visit(client: httpx.Client, k: int, timeout: float, config: dict, assets: list[str] | None) -> list[tuple[str, float]]:
    """``assets``: the client's first visit (its browser has none of the front-end files yet)."""
    suites = ["smoke", "sst", "harmbench", "xstest", "airbench", "salad"]
    load = "page load, new visitor" if assets else "page load, returning"
    steps = [
        (load, lambda: page_load(client, "", config, timeout, assets or ())),
        ("leaderboard", lambda: call(client, "table", ["smoke", "heuristic"], timeout)),
        ("suite switch", lambda: call(client, "table", [suites[1 + k % 5], "heuristic"], timeout)),
        ("judge switch", lambda: call(client, "table", [suites[1 + k % 5], "openai:gpt-judge"], timeout)),
        ("items page", lambda: call(client, "items", ["smoke", "(all)", "(all)", "(all)", 1 + (7 * k) % 400, "(all)"],
                                    timeout)),
        ("items filtered", lambda: call(client, "items", ["smoke", f"org/model-{k % 26:02d}", "ambiguous", "(all)",
                                                          1 + k % 20, "(all)"], timeout)),
    ]
    out = []
    for name, fn in steps:
        t0 = time.perf_counter()
        fn()
        out.append((name, time.perf_counter() - t0))
    return out


def shared_link_visit(client: httpx.Client, k: int, timeout: float, config: dict,
                      assets: list[str] | None, release: str | None = None) -> list[tuple[str, float]]:
    sort = ["model", "S_adj", "rank (raw)"][k % 3]  # different rows drawn: some figures are not cached yet
    query = f"suite=smoke&judge=openai:gpt-judge&sort={sort}&tab=items&model=org/model-{k % 26:02d}&label=ambiguous"
    query += f"&version={release}" if release and k % 2 == 0 else ""  # every other link: the older release
    t0 = time.perf_counter()
    page_load(client, query, config, timeout, assets or ())
    return [("shared link, new visitor" if assets else "shared link, returning", time.perf_counter() - t0)]


def new_visitors(all_assets: list[str]):
    """A visit that is a new visitor's page load on every round (a fresh browser each time)."""
    def visit_fn(client: httpx.Client, k: int, timeout: float, config: dict, assets) -> list[tuple[str, float]]:
        t0 = time.perf_counter()
        page_load(client, "", config, timeout, all_assets)
        return [("page load, new visitor", time.perf_counter() - t0)]
    return visit_fn


def process_cpu(pid: int | None = None) -> float:
    """CPU seconds (user + system) of process ``pid`` so far (/proc), or of this one (the clients)."""
    if pid is None:
        import resource

        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():  # not Linux: not measured
        return float("nan")
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_level(url: str, n: int, rounds: int, deadline: float, config: dict, assets: list[str], visit=visit,
              server_pid: int | None = None) -> dict:
    """``server_pid``: also the server's CPU time over the level (and the clients', this process's)."""
    lat: list[float] = []
    by_step: dict[str, list[float]] = {}
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + deadline

    def client_main(cid: int) -> None:
        with httpx.Client(base_url=url, headers=BROWSER_HEADERS, limits=CLIENT_LIMITS) as client:
            for r in range(rounds):
                if time.monotonic() > stop_at:
                    return
                try:
                    steps = visit(client, cid * rounds + r, timeout=max(1.0, stop_at - time.monotonic()), config=config,
                                  assets=assets if r == 0 else None)
                except Exception as exc:  # counted, never hidden
                    with lock:
                        errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")
                    continue
                with lock:
                    visits[0] += 1
                    for name, t in steps:
                        lat.append(t)
                        by_step.setdefault(name, []).append(t)

    visits = [0]
    cpu0 = (process_cpu(server_pid), process_cpu()) if server_pid else None
    t0 = time.perf_counter()
    threads = [threading.Thread(target=client_main, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(deadline + 30)
    wall = time.perf_counter() - t0
    cpu = (process_cpu(server_pid) - cpu0[0], process_cpu() - cpu0[1]) if cpu0 else None

    def pct(xs, q):
        return statistics.quantiles(xs, n=100)[q - 1] if len(xs) >= 2 else (xs[0] if xs else float("nan"))

    return {"n": n, "requests": len(lat), "errors": len(errors), "error_kinds": sorted(set(errors))[:3], "wall": wall,
            "visits": visits[0], "cpu": cpu,
            "p50": pct(lat, 50), "p95": pct(lat, 95), "steps": {k: (pct(v, 50), pct(v, 95)) for k, v in by_step.items()}}


MIXES = {"visit": visit, "shared links": shared_link_visit}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", default="1,10,50")
    ap.add_argument("--rounds", type=int, default=3, help="visits per client")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--deadline", type=float, default=240.0, help="seconds per level")
    ap.add_argument("--mix", choices=["all", "visit", "shared"], default="all")
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout: its server runs side by side")
    ap.add_argument("--repeat", type=int, default=1, help="times each level is run (alternating with --baseline)")
    ap.add_argument("--during-warm-up", action="store_true",
                    help="start measuring as soon as the server answers (visitors right after a start or a data "
                         "change, while the views are being prepared), not once its start-up work is done")
    ap.add_argument("--release", action="store_true",
                    help="the board as a git repository with an older release v1: the Version selector on the page, "
                         "every other shared link opening v1")
    ap.add_argument("--no-browser", action="store_true",
                    help="read the front-end files from the HTML instead of recording them in Chromium")
    a = ap.parse_args()
    sys.path.insert(0, str(REPO))  # this checkout's toolkit, as the servers it starts (PYTHONPATH)
    from toolkit.testing.boards import item_rows, synthetic_board  # bench/space.py's board

    mixes = {k: v for k, v in MIXES.items() if a.mix == "all" or k.startswith(a.mix)}
    if a.release and "shared links" in mixes:
        mixes["shared links"] = partial(shared_link_visit, release="v1")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ds"
        synthetic_board(root)
        item_rows(root, a.rows)
        if a.release:
            with_older_release(root)
        settle = not a.during_warm_up
        servers = {"this checkout": start_server(root, settle=settle)}
        if a.baseline is not None:
            servers[f"baseline {a.baseline}"] = start_server(root, repo=a.baseline, settle=settle)
        other = None
        try:
            for name, (_, url) in servers.items():
                with httpx.Client(base_url=url) as c:
                    t0 = time.perf_counter()
                    call(c, "items", ["smoke", "(all)", "(all)", "(all)", 1, "(all)"], 300)
                    print(f"{name}: first Items call (index built in the background since start-up): "
                          f"{time.perf_counter() - t0:.2f} s")
            url = servers["this checkout"][1]
            config = httpx.get(url + "/config", timeout=30).json()
            assets, source = page_assets(url, browser=not a.no_browser)
            html = httpx.get(url, headers=BROWSER_HEADERS, timeout=30)
            print(f"page: HTML {len(html.content) / 1e3:.0f} kB, {html.num_bytes_downloaded / 1e3:.0f} kB sent "
                  f"({html.headers.get('content-encoding', 'identity')}), "
                  f"{len(assets)} front-end files ({source})")
            print(f"{'N':>3} {'requests':>8} {'errors':>6} {'p50 s':>7} {'p95 s':>7} {'wall s':>7}  per step p50/p95 s")
            for mix, visit_fn in mixes.items():
                print(f"-- {mix}")
                for n in (int(x) for x in a.clients.split(",")):
                    for rep in range(a.repeat):
                        for name, (proc, u) in servers.items():
                            cfg = httpx.get(u + "/config", timeout=30).json()  # each server's own event ids
                            if len(servers) > 1:
                                print(f"   {name}{f', run {rep + 1}' if a.repeat > 1 else ''}:")
                            report(run_level(u, n, a.rounds, a.deadline, cfg, assets, visit_fn, server_pid=proc.pid))
                            alive = httpx.get(u + "/config", timeout=30).status_code == 200
                            print(f"    server answering after N={n}: {alive}")
            if a.baseline is not None:
                print("-- server CPU of one visit, in-process and over HTTP (bench/space_restore_cpu.py), side by side")
                mix = "both" if a.mix == "all" else a.mix
                for name, repo in (("this checkout", REPO), (f"baseline {a.baseline}", a.baseline)):
                    proc = subprocess.run([sys.executable, str(REPO / "bench" / "space_restore_cpu.py"), "--repo", str(repo),
                                           "--data", str(root), "--mix", mix, "--http",
                                           *(["--release", "v1"] if a.release else [])],
                                          capture_output=True, text=True, timeout=1200)
                    lines = [x for x in proc.stdout.splitlines() if x.startswith(("in-process", "over HTTP"))]
                    for line in lines or [proc.stderr[-300:]]:
                        print(f"   {name}: {line}")
            if a.mix == "all":
                print("-- side by side: N = 10 new visitors' page loads, front-end files from memory vs Gradio's own serving")
                other, other_url = start_server(root, "--no-static-cache")
                for rep in range(2):
                    for name, u in (("static cache", url), ("gradio", other_url)):
                        r = run_level(u, 10, 3, a.deadline, config, assets, new_visitors(assets))
                        print(f"{name:>12}  p50 {r['p50']:.2f} s  p95 {r['p95']:.2f} s  wall {r['wall']:.1f} s  errors {r['errors']}")
        finally:
            for proc in [p for p, _ in servers.values()] + [other]:
                if proc is not None:
                    lines = [x for x in proc.log.read_text(errors="replace").splitlines() if "Error" in x or "error" in x]
                    if lines:
                        print(f"server log {proc.log.name}: {len(lines)} error line(s), last: {lines[-1][:300]}")
                    proc.terminate()
                    try:
                        proc.wait(10)
                    except subprocess.TimeoutExpired:
                        proc.kill()


def with_older_release(root: Path) -> None:
    """``root`` committed and tagged v1, then one more commit (the card): v1 is an older commit the Space reads
    from a copy of its tree, beside the latest board."""
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "board"], ["tag", "v1"]):
        subprocess.run([*git, *args], cwd=root, check=True, capture_output=True)
    with (root / "README.md").open("a") as card:
        card.write("\nA later commit.\n")
    subprocess.run([*git, "commit", "-qam", "a later commit"], cwd=root, check=True, capture_output=True)
    print("board: a git repository with release v1 (an older commit)")


def report(r: dict) -> None:
    steps = ", ".join(f"{k} {p50:.2f}/{p95:.2f}" for k, (p50, p95) in r["steps"].items())
    print(f"{r['n']:>3} {r['requests']:>8} {r['errors']:>6} {r['p50']:>7.2f} {r['p95']:>7.2f} {r['wall']:>7.1f}  {steps}")
    if r.get("cpu") and r["visits"]:
        server, clients = r["cpu"]
        print(f"    CPU over the level: server {server:.1f} s ({server / r['visits'] * 1000:.0f} ms per visit, "
              f"{server / r['wall'] * 100:.0f}% of a core), clients {clients:.1f} s, wall {r['wall']:.1f} s")
    if r["errors"]:
        print(f"    errors: {r['error_kinds']}")


def start_server(root: Path, *extra: str, repo: Path = REPO, settle: bool = True) -> tuple[subprocess.Popen, str]:
    port = bs_port()
    env = {**os.environ, "PYTHONPATH": str(repo), "GRADIO_ANALYTICS_ENABLED": "False"}
    log = root.parent / f"server-{port}.log"  # a file, not a pipe nobody reads (a full pipe would stall the server)
    server = subprocess.Popen([sys.executable, str(repo / "space" / "app.py"), "--data", str(root), "--port", str(port),
                               "--refresh", "0", *extra], env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    server.log = log
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    while True:
        try:
            httpx.get(url + "/config", timeout=2).raise_for_status()
            break
        except httpx.HTTPError:
            if server.poll() is not None or time.perf_counter() - t0 > 120:
                raise RuntimeError(f"server did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.3)
    up = time.perf_counter() - t0
    name = f"server {repo.name if repo != REPO else ''} {' '.join(extra) or '(default)'}"
    if not settle:
        print(f"{name} up in {up:.1f} s; measured while its start-up work runs (--during-warm-up)")
        return server, url
    settled = wait_until_idle(server.pid)
    print(f"{name} up in {up:.1f} s, start-up work (Items index, prepared views) done {settled:.0f} s later")
    return server, url


def wait_until_idle(pid: int, below: float = 0.1, window: float = 2.0, limit: float = 600.0) -> float:
    """Seconds until the process uses under ``below`` of a core over ``window`` s: the Space's work after
    start-up (the Items index, the views prepared per data version, space/prepared.py) is done, so the
    levels measure a running Space, not one still warming up (which a Space is once per data version)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():  # not Linux: a fixed wait
        time.sleep(60)
        return 60.0

    def cpu() -> float:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        before = cpu()
        time.sleep(window)
        if (cpu() - before) / window < below:
            break
    return time.perf_counter() - t0


def bs_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    main()
