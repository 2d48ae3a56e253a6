"""Events of the page, wired once for every tab (see space/tabs/base.py for the tab contract).

One output list serves every event: the shared selectors, every URL-restorable input that no tab
sets itself, and every tab's outputs. An event recomputes only the tabs it concerns and answers
``gr.skip()`` for the rest. After each event the view's query string is written to the address
bar (history.replaceState), so the URL links to the view.

Opening the page costs the server nothing when nothing needs computing: the landing view is baked
into the page (space/landing.py), the page's load event runs in the browser only and copies the
query string into the hidden textbox of the tab it opens, and only a change of it (a shared view's
URL) starts that tab's restore event, which answers for the components that tab shows. Tabs work
alike: selecting one writes a request for it into another hidden textbox, whose change computes the
tab; selecting the tab the page already shows starts nothing. What a linked view costs is computed
once per data version (space/prepared.py).
"""
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import gradio as gr

from space import versions
from space.data import md_escape
from space.prepared import AFTER_RESTORE_JS, ViewOutputs, read_url_js, select_tab_js
from space.tabs.base import Ctx, Param, TabView

WRITE_URL = "(q) => { history.replaceState(null, '', location.pathname + (q ? '?' + q : '')); return []; }"
PRIVATE = dict(api_visibility="private")
HUB_PROBE_SECONDS = 10.0  # Refresh on a Hub dataset: at most one snapshot probe per this many seconds


def wire(demo, ctx: Ctx, views: list[TabView], *, suite_dd, judge_dd, note, empty_msg, refresh, share, tabs,
         tab_components, judge_note, share_query, version_dd=None) -> "_Page":
    """Wire every event; returns the page (``page.landing()`` is the view to bake into it). ``version_dd``: the
    Version selector (the latest board or one of its releases: space/versions.py), kept in the address."""
    page = _Page(ctx, views, suite_dd=suite_dd, judge_dd=judge_dd, note=note, empty_msg=empty_msg, share=share,
                 tabs=tabs, tab_components=tab_components, judge_note=judge_note, share_query=share_query,
                 version_dd=version_dd)
    _wire_page_events(demo, ctx, page, refresh=refresh)
    _wire_tabs(page)
    for view in views:
        _wire_view(view, views, page.params, page.keys, page.inputs, page.full_out, page.free, page.unpack,
                   page.compute, page.then_url)
    return page


class _Page:
    """The state every event shares (inputs, the one output list) and the page-wide handlers."""

    def __init__(self, ctx: Ctx, views: list[TabView], *, suite_dd, judge_dd, note, empty_msg, share, tabs,
                 tab_components, judge_note, share_query, version_dd=None) -> None:
        self.holder = ctx.holder
        self.refresh_seconds = ctx.settings.refresh_seconds
        self.views = views
        self.suite_dd = suite_dd
        self.judge_dd = judge_dd
        self.share = share
        self.tab_components = tab_components
        self.judge_note = judge_note
        self.share_query = share_query
        self.version_dd = version_dd
        # the version shown is an input of every event (the page's, not a tab's): a free input, restored from the URL
        version = [Param("version", version_dd, versions.LATEST)] if version_dd is not None else []
        self.params = [p for v in views for p in v.params] + version
        self.keys = [p.key for p in self.params]
        self.by_key = {p.key: p for p in self.params}
        self.defaults = {p.key: p.default for p in self.params}
        view_outputs = [o for v in views for o in v.outputs]
        self.free = [p for p in self.params if all(p.component is not o for o in view_outputs)]
        self.tab_state = gr.State("leaderboard")
        self.full_out = [empty_msg, suite_dd, judge_dd, note, *(p.component for p in self.free), *view_outputs]
        self.inputs = [suite_dd, judge_dd, self.tab_state, *(p.component for p in self.params)]
        # written in the browser only (see the module docstring): the page's query string (in the textbox of the
        # tab it opens), the tab just selected
        self.query_in = {key: gr.Textbox("", visible=False, elem_id=f"query-in-{key}") for key in [*tab_components, "all"]}
        self.tab_request = gr.Textbox("leaderboard", visible=False, elem_id="tab-request")
        self.memo = ViewOutputs()
        self.preparing = None  # the thread preparing this data version's views (prepare)
        # the data version (Holder.version) this page shows: held by the browser, not a gr.State, because a
        # session copies a State's initial value only when it first uses it (maybe after a re-bake)
        self.seen = gr.Number(0, precision=0, visible=False, elem_id="data-version")
        self.restore_out = [*self.full_out, tabs, self.tab_state, share, self.tab_request, self.seen]
        self.restore_at = self._restore_positions(views, tab_components)

    def compute(self, suite, judge, tab, values, only=None, deferred: bool | None = False) -> list:
        """The views' outputs; ``deferred``: only the deferred views (True), none of them (False), all (None)."""
        versions.show(values.get("version"))
        out: list[Any] = []
        for v in self.views:
            wanted = (only is None or v.key in only) and (deferred is None or v.deferred == deferred)
            asked = any(values.get(p.key) != p.default for p in v.params)  # the URL asks for this tab's view
            if v.update is not None and wanted and (not v.lazy or v.key == tab or (only is None and asked)):
                out += self.view_outputs(v, suite, judge, values)
            else:
                out += [gr.skip()] * len(v.outputs)
        return out

    def _restore_positions(self, views: list[TabView], tab_components: dict) -> dict[str, list[int]]:
        """Per tab, the positions in ``restore_out`` its restore event answers for: the selectors, the free
        inputs, the views always shown and the tab's own (not its details, which a row click fills and
        the baked page shows empty), the tabs and the view's query. Not the empty-data message (baked per
        data version) nor the tab request (the browser's selection of the restored tab starts nothing)."""
        head = 4 + len(self.free)
        at, own = head, {}
        for v in views:
            own[id(v)] = range(at, at + len(v.outputs) - v.details)
            at += len(v.outputs)
        tail = [len(self.full_out) + i for i in (0, 1, 2, 4)]  # tabs, tab_state, share, seen
        per_tab = {key: [*range(1, head), *(i for v in views if not v.lazy or v.key == key for i in own[id(v)]), *tail]
                   for key in tab_components}
        # a link that also sets an input of a tab it does not open (computed only when shown): everything
        every = [*range(1, head), *(i for v in views for i in own[id(v)]), *tail]
        return {**per_tab, "all": every}

    def view_outputs(self, v: TabView, suite, judge, values: dict) -> list:
        """A view's outputs; a view that is a function of the data and its inputs is computed once per
        data version and inputs (space/prepared.py)."""
        if not v.memo:
            return list(v.update(suite, judge, values))
        keys = sorted({p.key for p in v.params} | v.reads | ({"version"} if self.version_dd is not None else set()))
        return self.memo.view(self.holder.version, self.views.index(v), suite, judge, keys, values,
                              lambda: v.update(suite, judge, values))

    def new_data_version(self) -> None:
        """Forget the views of earlier data versions (their keys would never be asked again)."""
        self.memo = ViewOutputs()

    def prepare(self) -> None:
        """The views of every (suite, judge) and prepared input value (e.g. each sort of the leaderboard),
        computed in the background for this data version."""
        board = self.holder.board
        combos = [(suite, judge, {**self.defaults, p.key: value}) for suite in board.suites()
                  for judge in board.judges(suite) for p in self.params for value in p.prepare]
        self.preparing = self.memo.prepare(lambda: self.holder.version, combos, lambda suite, judge, values:
                                           self.compute(suite, judge, "leaderboard", values, deferred=None))

    def full(self, suite, judge, tab, values, reset_suite=False, fixed=None, deferred: bool | None = False) -> list:
        versions.show(values.get("version"))
        board = self.holder.board
        suites = board.suites()
        suite = suite if suite in suites else board.default_suite()
        judges = board.judges(suite)
        judge = judge if judge in judges else board.default_judge(suite)
        if reset_suite:
            values = {**values, **{p.key: p.default for p in self.params if p.per_suite}}
        fixed = fixed or {}
        return [gr.update(visible=board.empty, value=board.message or ""),
                gr.update(choices=suites, value=suite, visible=not board.empty),
                gr.update(choices=judges, value=judge, visible=not board.empty),
                self.version_note(values.get("version")) + self.judge_note(board, suite, judge),
                *(self.version_update(values.get("version")) if p.key == "version" else
                  gr.update(value=values[p.key]) if reset_suite and p.per_suite or p.key in fixed else gr.skip()
                  for p in self.free),
                *self.compute(suite, judge, tab, values, deferred=deferred)]

    def version_update(self, version) -> dict:
        """The Version selector: latest and each release of the board (hidden when it has none)."""
        names = self.holder.release_names
        return gr.update(choices=[versions.LATEST, *names], visible=bool(names),
                         value=version if version in names else versions.LATEST)

    def version_note(self, version) -> str:
        """Which version the page shows (said only on a board that has releases)."""
        names = self.holder.release_names
        if not names:
            return ""
        if version in names:
            return (f"Version shown: release **{md_escape(version)}** — the board as it was when it was released "
                    f"(the latest: choose *{versions.LATEST}*).\n\n")
        return f"Version shown: **{versions.LATEST}** (releases: {md_escape(', '.join(names))}).\n\n"

    def unpack(self, args) -> tuple[str, str, str, dict]:
        suite, judge, tab, *vals = args
        values = dict(zip(self.keys, vals))
        versions.show(values.get("version"))
        return suite, judge, tab, values

    def restore_event(self, key: str):
        def run(query: str, *args):
            """Tab ``key``'s restore: its components of the view the query string asks for."""
            out = self.on_restore(query, *args)
            return [out[i] for i in self.restore_at[key]]
        return run

    def on_restore(self, query: str, *args):
        """The view a URL's query string asks for (``query`` without its ``?``), every output of
        ``restore_out``; computed once per (data version, query, page state)."""
        return self.memo.restore(self.holder.version, query, args, lambda: self._restore(query, *args))

    def _restore(self, query: str, *args) -> list:
        _, _, _, values = self.unpack(args)
        q = dict(parse_qsl(query or "", keep_blank_values=True))
        for key, raw in q.items():
            if key in self.by_key:
                p = self.by_key[key]
                value = known_value(p, p.parse(raw) if p.parse else raw, free=p in self.free)
                if value is not _UNKNOWN:
                    values[key] = value
        tab = q.get("tab") if q.get("tab") in self.tab_components else "leaderboard"
        # the deferred figures too (cached per rows drawn): one event instead of two trips through the queue
        out = self.full(q.get("suite"), q.get("judge"), tab, values, deferred=None)
        # restore every free input from the URL (the tabs that own an input set it themselves)
        free_at = 4
        for i, p in enumerate(self.free):
            if p.key in q and p.key != "version" and values[p.key] is not _UNKNOWN:  # full() set the version
                out[free_at + i] = gr.update(value=values[p.key])
        query_out = self.view_query(out[1]["value"], out[2]["value"], tab, values)
        # a link to the first tab leaves the tab bar alone: a visitor may have opened another tab meanwhile
        selected = gr.skip() if query and tab == "leaderboard" else gr.update(selected=tab)
        return [*out, selected, tab, query_out, tab, self.holder.version]

    def landing(self) -> list:
        """What the plain address shows (outputs in ``restore_out`` order), for space/landing.py to bake."""
        return self._restore("", None, None, "leaderboard", *(p.default for p in self.params))

    def on_tab(self, request: str, *args):
        """A tab was selected (``request``: its key and when): compute it, figures included (one event: a
        tab's figures are mostly drawn already), and its query string; nothing when it is shown already."""
        key = request.split(":", 1)[0]
        suite, judge, shown, values = self.unpack(args)
        if key not in self.tab_components or key == shown:
            return [gr.skip()] * (len(self.full_out) + 2)
        head = [gr.skip()] * (4 + len(self.free))
        return [*head, *self.compute(suite, judge, key, values, only={key}, deferred=None), key,
                self.view_query(suite, judge, key, values)]

    def on_suite(self, *args):
        suite, _, tab, values = self.unpack(args)
        return self.full(suite, None, tab, values, reset_suite=True)

    def on_judge(self, *args):
        suite, judge, tab, values = self.unpack(args)
        return self.full(suite, judge, tab, values)

    def on_version(self, *args):
        """Another version chosen: the whole page, on the same suite and judge where that version has them."""
        suite, judge, tab, values = self.unpack(args)
        return self.full(suite, judge, tab, values, deferred=None)

    def on_refresh(self, *args):
        # a probe, not an unconditional reload: on a public Space anyone can press Refresh, and a reload
        # rebuilds the Items index; a Hub probe (a snapshot download) is made at most every few seconds
        self.holder.refresh_if_changed(at_most_every=HUB_PROBE_SECONDS if self.holder.is_hub() else 0)
        suite, judge, tab, values = self.unpack(args)
        return [*self.full(suite, judge, tab, values), self.holder.version]  # drawn: the timer need not redraw

    def on_tick(self, *args):
        """The refresh timer: reload the data when it changed (whichever page asks first), and re-render
        this page when it shows an older version than the Space now holds."""
        *args, seen = args
        try:
            # pages' timers are not in step: with every page probing at most each half period, new data
            # reaches every page within about one and a half periods
            self.holder.refresh_if_changed(at_most_every=self.refresh_seconds / 2)
        except Exception:  # a failed probe (offline Hub) keeps the current data
            pass
        if seen == self.holder.version:  # the usual tick: one small event, nothing chained after it
            return [gr.skip()] * (len(self.full_out) + 2)
        # figures included and the query string too: a chained event would run after every tick
        suite, judge, tab, values = self.unpack(args)
        return [*self.full(suite, judge, tab, values, deferred=None), self.view_query(suite, judge, tab, values),
                self.holder.version]

    def query(self, *args):
        return self.view_query(*self.unpack(args))

    def view_query(self, suite, judge, tab, values) -> str:
        versions.show(values.get("version"))
        board = self.holder.board
        state = {"suite": suite, "judge": judge, "tab": tab, **values}
        base = {"suite": board.default_suite(), "judge": board.default_judge(suite), "tab": "leaderboard",
                **self.defaults}
        return self.share_query(state, base)

    def later(self, only):
        def run(*args):
            """The deferred views (slow figures) the event concerns, after the main event answered."""
            suite, judge, tab, values = self.unpack(args)
            board = self.holder.board
            suites = board.suites()
            suite = suite if suite in suites else board.default_suite()
            judge = judge if judge in board.judges(suite) else board.default_judge(suite)
            return [*[gr.skip()] * (4 + len(self.free)),
                    *self.compute(suite, judge, tab, values, only=only, deferred=True)]
        return run

    def then_url(self, event, only: set | None | bool = None):
        """Chain the deferred views (``only``: the tab keys concerned, None = all, False = none) and
        the address-bar update."""
        if only is not False and any(v.deferred and (only is None or v.key in only) for v in self.views):
            event = event.then(self.later(only), self.inputs, self.full_out, **PRIVATE)
        event.then(self.query, self.inputs, self.share, **PRIVATE).then(None, [self.share], None, js=WRITE_URL,
                                                                        **PRIVATE)


def _wire_page_events(demo, ctx: Ctx, page: _Page, *, refresh) -> None:
    """Load (URL restore), suite and judge choice, Refresh and the refresh timer."""
    inputs, full_out = page.inputs, page.full_out
    keys = list(page.tab_components)
    tab_of_param = {p.key: v.key for v in page.views if v.lazy for p in v.params}
    demo.load(None, None, list(page.query_in.values()), js=read_url_js(keys, keys[0], tab_of_param), **PRIVATE)
    for key, query_in in page.query_in.items():
        outputs = [page.restore_out[i] for i in page.restore_at[key]]
        restore = query_in.change(page.restore_event(key), [query_in, *inputs], outputs, **PRIVATE)
        restore = restore.then(None, [page.share], None, js=WRITE_URL, **PRIVATE)
        restore.then(None, [page.tab_request], [page.tab_request], js=AFTER_RESTORE_JS, **PRIVATE)
    page.then_url(page.suite_dd.input(page.on_suite, inputs, full_out, **PRIVATE))
    page.then_url(page.judge_dd.input(page.on_judge, inputs, full_out, **PRIVATE))
    if page.version_dd is not None:
        page.then_url(page.version_dd.input(page.on_version, inputs, full_out, **PRIVATE), only=False)
    page.then_url(refresh.click(page.on_refresh, inputs, [*full_out, page.seen], **PRIVATE))
    if ctx.settings.refresh_seconds and ctx.settings.refresh_seconds > 0:
        timer = gr.Timer(ctx.settings.refresh_seconds)
        tick = timer.tick(page.on_tick, [*inputs, page.seen], [*full_out, page.share, page.seen], **PRIVATE)
        tick.then(None, [page.share], None, js=WRITE_URL, **PRIVATE)


def _wire_tabs(page: _Page) -> None:
    """Selecting a tab writes a request for it in the browser (none when the page shows it already); a
    request computes the tab (lazy views)."""
    first = next(iter(page.tab_components))
    for key, tab in page.tab_components.items():
        tab.select(None, [page.tab_request], [page.tab_request], js=select_tab_js(key, first), **PRIVATE)
    event = page.tab_request.change(page.on_tab, [page.tab_request, *page.inputs],
                                    [*page.full_out, page.tab_state, page.share], **PRIVATE)
    event.then(None, [page.share], None, js=WRITE_URL, **PRIVATE)


def _wire_view(view, views, params, keys, inputs, full_out, free, unpack, compute, then_url) -> None:
    """A change of one of the view's inputs recomputes every tab that reads it (a paged view goes
    back to page 1); Prev/Next step the page."""
    page = next((p for p in view.params if p.key == "page"), None)

    def readers(key):
        return {v.key for v in views if key in v.reads or any(p.key == key for p in v.params)}

    for p in view.params:
        def on_change(*args, key=p.key):
            suite, judge, tab, values = unpack(args)
            reset = page is not None and key != "page"
            if reset:
                values["page"] = 1
            head = [gr.skip()] * 4 + [gr.update(value=1) if reset and f is page else gr.skip() for f in free]
            return [*head, *compute(suite, judge, tab, values, only=readers(key))]

        comp = p.component
        trigger = comp.submit if isinstance(comp, (gr.Textbox, gr.Number)) else comp.input
        then_url(trigger(on_change, inputs, full_out, **PRIVATE), only=readers(p.key))
    pager = getattr(view, "pager", None)
    if pager:
        prev, nxt, page_comp = pager
        for button, step in ((prev, -1), (nxt, +1)):
            def on_step(*args, step=step):
                suite, judge, tab, values = unpack(args)
                values["page"] = max(1, int(values.get("page") or 1) + step)
                head = [gr.skip()] * 4 + [gr.update(value=values["page"]) if f is page else gr.skip() for f in free]
                return [*head, *compute(suite, judge, tab, values, only={view.key})]

            then_url(button.click(on_step, inputs, full_out, **PRIVATE), only=False)
    download = getattr(view, "download", None)
    if download:
        button, files, write = download
        lb_params = [p.component for p in view.params]
        version = next((p.component for p in params if p.key == "version"), None)
        if version is not None:  # the table of the version shown
            def write_at(shown, *args, write=write):
                versions.show(shown)
                return write(*args)

            button.click(write_at, [version, inputs[0], inputs[1], *lb_params], files, **PRIVATE)
        else:
            button.click(write, [inputs[0], inputs[1], *lb_params], files, **PRIVATE)


_UNKNOWN = object()


def known_value(p, value, free: bool):
    """A value from the query string that the input ``p`` can take; ``_UNKNOWN`` (dropped, the input keeps what
    it shows) for one it does not know: a value is never handed to a component that would refuse it (Gradio's
    error popups render their text as HTML). A free input's choices are fixed when the page is built; the
    inputs a tab owns (their choices follow the data) are checked by the tab's own update."""
    choices = getattr(p.component, "choices", None)
    if not free or not choices:
        return value
    allowed = {c[1] if isinstance(c, (tuple, list)) else c for c in choices}
    if isinstance(value, list):
        return [v for v in value if v in allowed]
    return value if value in allowed else _UNKNOWN

