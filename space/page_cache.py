"""The page itself, rendered once per page config and sent gzipped.

Gradio renders ``/`` on every request: it deep-copies the page config, walks it to rewrite file URLs
for the request's root, fills the template and (here) gzips the result. With the landing view baked
in, the page is ~280 kB and that costs ~50 ms of the server's one interpreter per visitor: a third of
what a burst of shared-link visitors asked of it (profiled with py-spy: BENCHMARKS.md, issue 25).

What the page depends on is the config Gradio renders (a new object whenever the view is re-baked:
``Blocks.config`` is replaced, never edited in place), what its root URL is computed from (scheme,
host and the forwarding headers, the mount path), the query string, the method and whether the
browser takes gzip. The rendered, compressed response is kept under exactly that key, with the
config it was rendered from: a re-baked page is rendered again on its first request. Of the query
string only what Gradio reads counts (``page``, ``deep_link``, ``all_endpoints``): a shared view's
``?suite=...&sort=...`` is read by the page's own script in the browser, so every shared link gets the
one rendered page (tests/space/test_space_page_cache.py checks that Gradio renders them alike). Pages behind a
login (``page_config`` answers None) and responses that set a cookie or are not 200 are never kept.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable
from urllib.parse import parse_qsl

from starlette.middleware.gzip import GZipMiddleware

MAX_PAGES = 64  # ~80 kB gzipped each: a few MB; a flood of distinct query strings only evicts
#: request headers the root URL (route_utils.get_root_url) or the encoding depend on
KEY_HEADERS = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-forwarded-port", b"x-forwarded-prefix")
#: query parameters Gradio's page route reads (routes.py: main(page, deep_link), get_api_info)
GRADIO_PARAMS = ("page", "deep_link", "all_endpoints")


class PageCache:
    def __init__(self, app, page_config: Callable[[], object | None], paths: tuple[str, ...] = ("/",),
                 max_entries: int = MAX_PAGES):
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=1024, compresslevel=6)  # honours Accept-Encoding
        self.page_config = page_config  # the config Gradio renders now; None: do not keep pages
        self.paths = set(paths)
        self.max_entries = max_entries
        self._pages: OrderedDict[tuple, tuple[object, list[dict]]] = OrderedDict()
        self.rendered = 0  # pages Gradio rendered (tests, benchmarks)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") or scope["path"] not in self.paths:
            return await self.app(scope, receive, send)
        config = self.page_config()
        if config is None:
            return await self.gzip(scope, receive, send)
        key = _key(scope)
        kept = self._pages.get(key)
        if kept is not None and kept[0] is config:
            self._pages.move_to_end(key)
            for message in kept[1]:
                await send(message)
            return
        messages: list[dict] = []

        async def capture(message):
            messages.append(message)
            await send(message)

        await self.gzip(scope, receive, capture)
        self.rendered += 1
        start = messages[0] if messages else {}
        if start.get("status") == 200 and all(k.lower() != b"set-cookie" for k, _ in start.get("headers", [])):
            self._pages[key] = (config, messages)
            while len(self._pages) > self.max_entries:
                self._pages.popitem(last=False)


def _key(scope) -> tuple:
    headers = dict((k.lower(), v) for k, v in scope["headers"])
    accepts_gzip = b"gzip" in headers.get(b"accept-encoding", b"").lower()
    query = scope.get("query_string", b"").decode("latin-1")
    gradio_params = tuple(sorted((k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k in GRADIO_PARAMS))
    return (scope["method"], scope.get("scheme"), scope.get("server"), scope.get("root_path", ""), scope["path"],
            gradio_params, accepts_gzip, *(headers.get(h) for h in KEY_HEADERS))
