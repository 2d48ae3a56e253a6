"""slmboard leaderboard Space: the page and its shared selectors; each tab lives in space/tabs/.

Run:  python space/app.py --data DIR [--host 127.0.0.1] [--port N]   (or set SLMBOARD_DATA)
From Python (e.g. `slmboard serve`):  from space.app import build_app, start, launch

Imports gradio, pandas, pyarrow, matplotlib, `schemas` and the light parts of `toolkit`
(reading, scoring, judging.agreement, moderation reports): never torch. `slmboard space deploy`
ships `space/`, `schemas/` and `toolkit/` with the app, so a Space renders every tab.
Escaping: every data string reaches the browser as a Dataframe cell of type "str", escaped
Markdown (`md_escape`; the Model column's links are built from escaped text), a Textbox or a
matplotlib PNG. Never build HTML from data here.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# Gradio phones home for analytics/version checks on import/launch; a Space does not need it and
# offline machines would wait on it.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# Gradio's queue summarises its event log (up to 10,000 events, a pandas group-by) after every event by
# default; once per 1,000 events keeps the API page's figures without a cost that grows with uptime
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1000")
if not __package__:  # `python space/app.py` from a checkout: import `space`, `schemas`, `toolkit` from the
    # checkout, and drop space/ itself from the path (its modules must not shadow top-level names)
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != here]
    sys.path.insert(0, str(Path(here).parent))

import gradio as gr  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # no display on a Space; must precede any pyplot import elsewhere

from space import api as space_api  # noqa: E402
from space import landing, sessions, signatures  # noqa: E402
from space.data import ENV_VAR, md_escape  # noqa: E402
from space.state import TABS, Holder, Settings, share_query  # noqa: E402
from space.tabs import about, disagreements, items, judges, labelmix, leaderboard, moderators, sensitivity, submit  # noqa: E402
from space.tabs import label  # noqa: E402
from space.tabs.base import Ctx, TabView  # noqa: E402
from space.page_cache import PageCache  # noqa: E402
from space.static_cache import StaticCache  # noqa: E402
from space.versions import LATEST  # noqa: E402
from space.wiring import wire  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402

CSS = leaderboard.CSS
TAB_MODULES = {"leaderboard": leaderboard, "sensitivity": sensitivity, "labelmix": labelmix, "judges": judges,
               "moderators": moderators, "items": items, "disagreements": disagreements, "label": label, "submit": submit, "about": about}


def judge_note(board, suite, judge) -> str:
    """Which judge the page shows and why (the default is the suite's primary judge), after what the
    board left out for files that differ from their manifests."""
    notice = f"**{md_escape(board.notice)}**\n\n" if getattr(board, "notice", None) else ""
    if board.empty or not suite or not judge:
        return notice
    primary, why = board.default_judge(suite), board.judge_reason(suite)
    if judge == primary:
        return f"{notice}Judge shown: **{md_escape(judge)}** — the default for this suite: {md_escape(why)}."
    return (f"{notice}Judge shown: **{md_escape(judge)}** (your choice). The suite's default is "
            f"**{md_escape(primary or '?')}**: {md_escape(why)}.")


def build_app(data: str | Path | None = None, settings: Settings | None = None) -> gr.Blocks:
    """Build the page. Data is read now, on Refresh, and on the refresh timer when it changed."""
    settings = settings or Settings()
    signatures.install()  # Gradio's config renders, cheaper (space/signatures.py)
    sessions.install()  # and a session's, rendered when read (space/sessions.py)
    holder = Holder(data, warm=settings.warm)
    ctx = Ctx(holder, settings)
    board = holder.board
    views: list[TabView] = []
    with gr.Blocks(title="slmboard leaderboard", fill_width=True) as demo:
        gr.Markdown("# slmboard — ambiguity-aware safety leaderboard for small language models")
        empty_msg = gr.Markdown(board.message or "", visible=board.empty, elem_id="empty-message")
        with gr.Row(equal_height=True):
            suite_dd = gr.Dropdown(board.suites(), label="Suite", elem_id="suite-select", visible=not board.empty)
            judge_dd = gr.Dropdown([], label="Judge", elem_id="judge-select", visible=not board.empty)
            # the latest board or one of its releases (space/versions.py); hidden on a board without releases
            version_dd = gr.Dropdown([LATEST, *holder.release_names], value=LATEST, label="Version", elem_id="version-select",
                                     visible=bool(holder.release_names), scale=0, min_width=160)
            refresh = gr.Button("Refresh", variant="secondary", scale=0, min_width=110, elem_id="refresh")
        note = gr.Markdown("", elem_id="judge-note")
        share = gr.Textbox("", visible=False, elem_id="share-query")
        with gr.Tabs(elem_id="tabs") as tabs:
            tab_components = {}
            for key, module in TAB_MODULES.items():
                if not getattr(module, "shown", lambda _: True)(ctx):
                    continue  # a tab its board turns off (Label: the labelling policy's `tab`)
                with gr.Tab(TABS[key], id=key, elem_id=f"tab-{key}") as tab:
                    built = module.build(ctx)
                    views.extend(built if isinstance(built, list) else [built])
                tab_components[key] = tab
        page = wire(demo, ctx, views, suite_dd=suite_dd, judge_dd=judge_dd, note=note, empty_msg=empty_msg,
                    refresh=refresh, share=share, tabs=tabs, tab_components=tab_components, judge_note=judge_note,
                    share_query=share_query, version_dd=version_dd)
        space_api.register(holder)

    def bake_landing():  # the plain address's view, in the page itself (space/landing.py)
        page.new_data_version()
        landing.bake(demo, page.restore_out, page.landing())
        if settings.warm:  # and the views a shared link opens, in the background (space/prepared.py)
            page.prepare()

    bake_landing()
    holder.on_reload.append(bake_landing)
    demo.slmboard_views = views  # introspection (tests, deploy checks): the tabs and their update functions
    demo.slmboard_holder = holder
    demo.slmboard_page = page  # the shared events (bench/space_load.py, tests)
    return demo


def start(data: str | Path | None = None, host: str = "127.0.0.1", port: int | None = None, quiet: bool = True,
          settings: Settings | None = None) -> tuple[gr.Blocks, str]:
    """Launch without blocking; returns the Blocks (call .close()) and the local URL."""
    reach_localhost_directly(host)
    demo = build_app(data, settings)
    # a burst of visitors queues instead of piling threads onto 2 vCPUs
    demo.queue(default_concurrency_limit=4, max_size=512)
    settings = settings or Settings()
    middleware = [Middleware(PageCache, page_config=lambda: _public_config(demo)), Middleware(StaticCache)] \
        if settings.static_cache else []
    _, url, _ = demo.launch(server_name=host, server_port=port, prevent_thread_lock=True, quiet=quiet,
                            footer_links=["api"], css=CSS, app_kwargs={"middleware": middleware})
    return demo, url


def reach_localhost_directly(host: str) -> None:
    """Gradio's launch asks its own local URL over HTTP (httpx, which honours http_proxy): behind a proxy that
    no_proxy does not bypass for localhost, that check goes to the proxy and the start fails. This process's
    own addresses never need a proxy, so they join no_proxy/NO_PROXY here (for this process only)."""
    local = ["127.0.0.1", "localhost", "::1", *([host] if host and host != "0.0.0.0" else [])]
    for var in ("no_proxy", "NO_PROXY"):
        have = [h.strip() for h in os.environ.get(var, "").split(",") if h.strip()]
        os.environ[var] = ",".join(have + [h for h in local if h not in have])


def _public_config(demo: gr.Blocks):
    """The config Gradio renders the page from, or None behind a login (a page per user: never kept)."""
    login = demo.auth is not None or getattr(getattr(demo, "server_app", None), "auth_dependency", None) is not None
    return None if login else demo.config


def launch(data: str | Path | None = None, host: str = "127.0.0.1", port: int | None = None, block: bool = True,
           settings: Settings | None = None) -> str:
    """Serve the leaderboard; with block=True say where and wait until Ctrl-C. Returns the local URL."""
    # quiet: Gradio's own lines end with "set `share=True` in `launch()`", an option a serve user does not have
    demo, url = start(data, host, port, quiet=True, settings=settings)
    if block:
        print(f"* Serving the leaderboard at {url}  (Ctrl-C to stop)", flush=True)
        demo.block_thread()  # returns on KeyboardInterrupt, after closing the server
    return url


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Serve the slmboard leaderboard Space.")
    ap.add_argument("--data", default=os.environ.get(ENV_VAR),
                    help=f"dataset folder or Hub dataset id; default ${ENV_VAR} or ./demo-output/dataset")
    # A Space must listen on 0.0.0.0:7860; GRADIO_SERVER_NAME/PORT are set there.
    ap.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    ap.add_argument("--port", type=int, default=int(os.environ["GRADIO_SERVER_PORT"])
                    if os.environ.get("GRADIO_SERVER_PORT") else None)
    ap.add_argument("--refresh", type=float, default=300.0, metavar="SECONDS",
                    help="re-read the data this often when it changed (0 = only on Refresh)")
    ap.add_argument("--no-static-cache", action="store_true",
                    help="let Gradio serve its front-end files itself (bench/space_load.py compares the two)")
    args = ap.parse_args(argv)
    launch(args.data, args.host, args.port, block=True,
           settings=Settings(refresh_seconds=args.refresh, static_cache=not args.no_static_cache))


if __name__ == "__main__":
    main()
