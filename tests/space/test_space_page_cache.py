"""The page rendered once per page config (space/page_cache.py): what is kept, under which key, and
that a kept page is the page Gradio renders for that request, before and after the data changes."""
from __future__ import annotations

import asyncio
import gzip

import httpx
import pandas as pd

from space.page_cache import PageCache
from space.state import Settings
from tests.space.conftest import write_dataset


class Renderer:
    """Stands for Gradio's page route: a body naming the config and the Host, a count of renders."""

    def __init__(self, status: int = 200, cookie: bool = False):
        self.renders = 0
        self.status, self.cookie = status, cookie
        self.config = {"n": 0}

    async def __call__(self, scope, receive, send):
        self.renders += 1
        host = dict(scope["headers"]).get(b"host", b"?").decode()
        headers = [(b"content-type", b"text/html")] + ([(b"set-cookie", b"a=b")] if self.cookie else [])
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": f"page {self.config['n']} for {host} ".encode() * 100})


def get(app, query: str = "", host: str = "a.example", path: str = "/", gzip_ok: bool = True, method: str = "GET"):
    headers = [(b"host", host.encode())] + ([(b"accept-encoding", b"gzip, br")] if gzip_ok else [])
    scope = {"type": "http", "method": method, "scheme": "http", "server": ("127.0.0.1", 7860), "root_path": "",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "headers": headers}
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start_headers = dict(sent[0]["headers"])
    body = b"".join(m.get("body", b"") for m in sent[1:])
    if start_headers.get(b"content-encoding") == b"gzip":
        body = gzip.decompress(body)
    return sent[0]["status"], body.decode()


def test_one_render_per_config_and_request_origin():
    gradio = Renderer()
    config = [gradio.config]
    cache = PageCache(gradio, page_config=lambda: config[0])
    first = get(cache)
    assert first == (200, "page 0 for a.example " * 100)
    # a shared view's query string is read in the browser: the same page, not rendered again
    assert get(cache, "suite=smoke&sort=S_adj&tab=items") == first
    assert gradio.renders == 1
    # what Gradio's page depends on is rendered for: another host (root URL), its own parameters, no gzip
    assert get(cache, host="b.example")[1].startswith("page 0 for b.example")
    get(cache, "page=other")
    get(cache, "deep_link=abc")
    assert get(cache, gzip_ok=False) == first
    assert gradio.renders == 5
    # a re-baked page is a new config object: rendered again on its first request, then kept
    gradio.config = {"n": 1}
    config[0] = gradio.config
    assert get(cache)[1].startswith("page 1 for a.example")
    assert get(cache, "suite=xstest")[1].startswith("page 1 ")
    assert gradio.renders == 6
    # other paths and methods go straight to Gradio
    get(cache, path="/config")
    get(cache, method="POST")
    assert gradio.renders == 8


def test_what_is_never_kept():
    for gradio, config in ((Renderer(cookie=True), {}), (Renderer(status=500), {}), (Renderer(), None)):
        cache = PageCache(gradio, page_config=lambda config=config: config)  # None: behind a login
        get(cache)
        get(cache)
        assert gradio.renders == 2


def test_kept_page_is_what_gradio_renders(running_app, tmp_path):
    """Over HTTP against the real app: Gradio itself (no cache) renders the page with a shared view's
    query string as the plain page; the kept page is what Gradio renders for that request; after the
    data changes the page shows the new data."""
    data = write_dataset(tmp_path / "ds")
    own_url = running_app(data, settings=Settings(refresh_seconds=0, static_cache=False)).rstrip("/")
    demo, url = running_app(data, settings=Settings(refresh_seconds=0), with_app=True)
    url = url.rstrip("/")
    query = "/?suite=xstest&judge=openai:gpt-judge&sort=S_adj&tab=items&model=org/alpha-135m&label=ambiguous"
    page = httpx.get(own_url + query)
    assert page.status_code == 200 and "window.gradio_config" in page.text and "org/alpha-135m" in page.text
    by_gradio = page.text
    assert by_gradio == httpx.get(own_url + "/").text  # Gradio ignores the view's query string
    plain = httpx.get(url + "/").text
    kept = httpx.get(url + query).text
    assert kept == plain
    # another Host is another root URL: Gradio renders the page anew, and it is the kept one
    port = url.rsplit(":", 1)[1]
    fresh = httpx.get(url + query, headers={"Host": f"localhost:{port}"}).text
    assert f"http://localhost:{port}" in fresh
    assert fresh.replace(f"http://localhost:{port}", url) == kept
    assert "org/gamma-1b" not in kept
    # new data: a model joins; the re-baked page shows it at once
    lb = pd.read_parquet(data / "data" / "leaderboard" / "leaderboard.parquet")
    extra = lb[lb["model_id"] == "org/alpha-135m"].assign(model_id="org/gamma-1b")
    pd.concat([lb, extra]).to_parquet(data / "data" / "leaderboard" / "leaderboard.parquet", index=False)
    demo.slmboard_holder.reload()
    assert "org/gamma-1b" in httpx.get(url + "/").text
    assert "org/gamma-1b" in httpx.get(url + query).text

