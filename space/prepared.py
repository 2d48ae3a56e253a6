"""What a linked view costs: computed once per data version, for every visitor.

A shared link opens a view that others open too (a burst of visitors on one link), and most links
differ only in a filter or a sort of views that are the same for everyone. So:

- each tab's outputs are kept per (data version, suite, judge, the inputs the tab reads)
  (:class:`ViewOutputs`), and the leaderboard's table and figure of every (suite, judge, sort) are
  computed ahead, in the background, once per data version (:meth:`ViewOutputs.prepare`), as the
  landing view is baked into the page (space/landing.py);
- a restored view is kept per (data version, query string, page state), so a burst on one link
  computes it once;
- the restore event answers only for the components its tab shows (one event per tab, each with
  its own outputs: Gradio rebuilds every output component of an event, skipped ones included, so
  the number of outputs is what an event costs), and the tab selection the restore causes in the
  browser starts nothing (the page remembers in JavaScript which tab it shows).

Gradio changes the update dictionaries an event returns, so every hit hands out fresh copies.
"""
from __future__ import annotations

import json
import threading
from typing import Any, Callable

from space import background
from space.memo import Memo

VIEW_ENTRIES = 512  # a table or a figure (~100 kB as PNG base64) per entry: tens of MB at most
RESTORE_ENTRIES = 256


def fresh(outputs: list) -> list:
    """Copies of the update dictionaries (Gradio pops keys from them), the values themselves shared."""
    return [dict(o) if isinstance(o, dict) else o for o in outputs]


def hashable(value: Any):
    if isinstance(value, (list, tuple)):
        return tuple(hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, hashable(v)) for k, v in value.items()))
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


class ViewOutputs:
    """The memo of view outputs and of restored pages; keys start with the data version."""

    def __init__(self):
        self.views = Memo(VIEW_ENTRIES)
        self.restores = Memo(RESTORE_ENTRIES)

    def view(self, version: int, index: int, suite, judge, keys: list[str], values: dict,
             compute: Callable[[], tuple]) -> list:
        key = (version, index, suite, judge, tuple(hashable(values.get(k)) for k in keys))
        return fresh(self.views.get(key, lambda: list(compute())))

    def restore(self, version: int, query: str, args: tuple, compute: Callable[[], list]) -> list:
        return fresh(self.restores.get((version, query, hashable(args)), compute))

    def prepare(self, version_now: Callable[[], int], combos: list, compute: Callable[..., object]) -> threading.Thread:
        """Compute ``combos`` ((suite, judge, values) each) in the background; stops when the data changes or
        the process exits."""
        version = version_now()

        def run(stop: threading.Event):
            for suite, judge, values in combos:
                if stop.is_set() or version_now() != version:
                    return
                compute(suite, judge, values)

        return background.start("slmboard-prepare-views", run)


def read_url_js(tab_keys: list[str], default: str, tab_of_param: dict[str, str]) -> str:
    """The page's load event (in the browser): the query string goes to the textbox of the tab it
    opens (its change starts that tab's restore event), or to the ``all`` textbox when it also sets an
    input of another tab computed only when shown (``tab_of_param``); the page remembers that tab as shown."""
    return (f"() => {{ const q = location.search.replace(/^\\?/, ''); const keys = {json.dumps(tab_keys)}; "
            f"const lazy = {json.dumps(tab_of_param)}; const p = new URLSearchParams(q); const t = p.get('tab'); "
            f"const tab = keys.includes(t) ? t : {json.dumps(default)}; "
            f"const to = [...p.keys()].some(k => k in lazy && lazy[k] !== tab) ? 'all' : tab; "
            f"window.slmboardTab = tab; window.slmboardRestoring = q !== ''; "
            f"return [...keys, 'all'].map(k => k === to ? q : ''); }}")


def select_tab_js(key: str, default: str) -> str:
    """A tab's select (in the browser): a new request for the tab unless the page shows it already
    (also when the restore selected it, and for the first tab's select at mount)."""
    k = json.dumps(key)
    # while a link's restore is computing, the tab's own event would read inputs the restore has not set
    # yet (and could answer last): the request waits for the restore (AFTER_RESTORE_JS sends it)
    return (f"(cur) => (window.slmboardTab ?? {json.dumps(default)}) === {k} ? cur : "
            f"window.slmboardRestoring ? (window.slmboardTab = {k}, window.slmboardPendingTab = {k}, cur) : "
            f"(window.slmboardTab = {k}, {k} + ':' + Date.now())")


# After a link's restore answered: the request of a tab opened meanwhile, computed from the restored inputs.
AFTER_RESTORE_JS = ("(cur) => { window.slmboardRestoring = false; const k = window.slmboardPendingTab; "
                    "window.slmboardPendingTab = null; return k ? k + ':' + Date.now() : cur; }")
