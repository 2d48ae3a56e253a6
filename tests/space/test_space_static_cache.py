"""Gradio's front-end files served from memory (space/static_cache.py): the bytes a browser gets are
the files on disk, in the encoding it accepts; revalidation; nothing outside the folders; every
path the cache does not own reaches Gradio."""
from __future__ import annotations

import asyncio
import gzip
import time
from pathlib import Path

import brotli
import httpx
import pytest

from space.static_cache import StaticCache


def _asgi(app, path: str, method: str = "GET", headers: dict | None = None) -> tuple[int, dict, bytes]:
    """One request straight through an ASGI app (no HTTP client normalising the path)."""
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]}
    sent: list[dict] = []

    async def receive():
        await asyncio.sleep(3600)

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = sent[0]
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, b"".join(
        m.get("body", b"") for m in sent[1:])


class Downstream:
    """Stands for Gradio: answers 299 and records what reached it."""

    def __init__(self):
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send):
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b"gradio"})


@pytest.fixture
def served(tmp_path):
    folder = tmp_path / "assets"
    folder.mkdir()
    (folder / "index-abc123.js").write_text("console.log('x');\n" * 200)
    (folder / "font.woff2").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "secret.py").write_text("TOKEN = 'do not serve'")
    down = Downstream()
    return StaticCache(down, roots={"/assets/": (folder, "public, max-age=31536000, immutable")}), down, folder


def test_encodings_are_the_file_bytes(served):
    cache, down, folder = served
    raw = (folder / "index-abc123.js").read_bytes()
    status, headers, body = _asgi(cache, "/assets/index-abc123.js", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200 and headers["content-encoding"] == "br" and brotli.decompress(body) == raw
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert int(headers["content-length"]) == len(body) < len(raw)
    status, headers, body = _asgi(cache, "/assets/index-abc123.js", headers={"Accept-Encoding": "gzip"})
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == raw
    status, headers, body = _asgi(cache, "/assets/index-abc123.js", headers={"Accept-Encoding": "br;q=0, gzip"})
    assert headers["content-encoding"] == "gzip"  # q=0 refuses brotli
    status, headers, body = _asgi(cache, "/assets/index-abc123.js")
    assert "content-encoding" not in headers and body == raw
    # fonts are compressed already: sent as they are
    status, headers, body = _asgi(cache, "/assets/font.woff2", headers={"Accept-Encoding": "br"})
    assert "content-encoding" not in headers and body == (folder / "font.woff2").read_bytes()
    assert down.paths == []


def test_revalidation_and_head(served):
    cache, _, _ = served
    _, headers, _ = _asgi(cache, "/assets/index-abc123.js", headers={"Accept-Encoding": "br"})
    status, _, body = _asgi(cache, "/assets/index-abc123.js", headers={"Accept-Encoding": "br",
                                                                          "If-None-Match": headers["etag"]})
    assert status == 304 and body == b""
    status, head, body = _asgi(cache, "/assets/index-abc123.js", method="HEAD", headers={"Accept-Encoding": "br"})
    assert status == 200 and body == b"" and head["content-length"] == headers["content-length"]


def test_everything_else_reaches_gradio(served):
    cache, down, _ = served
    for path in ("/assets/../secret.py", "/assets/missing.js", "/assets/", "/config", "/"):
        status, _, body = _asgi(cache, path)
        assert (status, body) == (299, b"gradio"), path
    assert _asgi(cache, "/assets/index-abc123.js", method="POST")[0] == 299
    assert _asgi(cache, "/assets/index-abc123.js", headers={"Range": "bytes=0-9"})[0] == 299
    assert down.paths == ["/assets/../secret.py", "/assets/missing.js", "/assets/", "/config", "/",
                          "/assets/index-abc123.js", "/assets/index-abc123.js"]


def test_the_running_space_serves_gradios_files(running_app, dataset):
    """Over HTTP: every front-end file the page names decodes to Gradio's file on disk."""
    import re

    from gradio.route_utils import BUILD_PATH_LIB

    url = running_app(dataset)
    html = httpx.get(url).text
    names = sorted(set(re.findall(r'"\.?/assets/([^"?]+)"', html)))
    assert names, "the page names its front-end files"
    with httpx.Client(base_url=url, headers={"Accept-Encoding": "br"}) as client:
        for name in names:
            r = client.get(f"/assets/{name}")
            assert r.status_code == 200, name
            assert r.headers["cache-control"].endswith("immutable")  # ours, not Gradio's FileResponse
            assert r.content == (Path(BUILD_PATH_LIB) / name).read_bytes()  # httpx decoded the br body


def test_the_page_is_sent_compressed(running_app, dataset):
    """Gradio leaves `/` uncompressed (no file extension); the Space gzips it, and the text is the page."""
    url = running_app(dataset)
    raw = httpx.get(url, headers={"Accept-Encoding": "identity"})
    packed = httpx.get(url, headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in raw.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert int(packed.headers["content-length"]) < len(raw.content) / 2
    assert packed.text == raw.text and "slmboard" in packed.text  # httpx decoded the gzip body


def test_concurrent_first_requests_compress_a_file_once(served, monkeypatch):
    """A fresh server's first visitors ask for the same files at once: one compression per file and
    encoding, every request answered with its bytes; a failed read is tried again by the next request."""
    import space.static_cache as static_cache

    cache, down, folder = served
    reads = []
    real_read = static_cache._read

    def counted(file, encoding):
        reads.append((file.name, encoding))
        time.sleep(0.2)  # a compression in progress while the other requests arrive
        return real_read(file, encoding)

    monkeypatch.setattr(static_cache, "_read", counted)
    raw = (folder / "index-abc123.js").read_bytes()

    async def burst():
        bodies = await asyncio.gather(*(_asgi_async(cache, "/assets/index-abc123.js", {"Accept-Encoding": "br"})
                                        for _ in range(10)))
        return bodies

    bodies = asyncio.run(burst())
    assert reads == [("index-abc123.js", "br")]
    assert all(brotli.decompress(b) == raw for b in bodies)

    def failing(file, encoding):
        raise OSError("disk went away")

    monkeypatch.setattr(static_cache, "_read", failing)
    with pytest.raises(OSError):
        _asgi(cache, "/assets/font.woff2")
    monkeypatch.setattr(static_cache, "_read", counted)
    assert _asgi(cache, "/assets/font.woff2")[2] == (folder / "font.woff2").read_bytes()


async def _asgi_async(app, path: str, headers: dict) -> bytes:
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    sent: list[dict] = []

    async def receive():
        await asyncio.sleep(3600)

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return b"".join(m.get("body", b"") for m in sent[1:])
