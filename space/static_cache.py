"""Gradio's own front-end files, served from memory and compressed once.

A new visitor's browser fetches about 90 of Gradio's JavaScript, CSS and font files (recorded in
Chromium on this app). Gradio serves each from disk and compresses it again (brotli) on every
request: on a 2-vCPU Space that is most of what a page load costs, and a burst of new visitors
waits on it (BENCHMARKS.md, "Space under concurrent clients"). This ASGI middleware answers
``GET /assets/...`` and ``GET /static/...`` itself: each file is read and compressed once per
process (brotli, gzip or none, as the request accepts), kept in memory, sent with a validator
(ETag) and a cache lifetime (the build's assets carry a content hash in their names: immutable).
Anything it does not find, and every other path, goes on to Gradio unchanged. (The page itself:
space/page_cache.py.)
"""
from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
from pathlib import Path

import anyio
import brotli
from gradio.route_utils import BUILD_PATH_LIB, STATIC_PATH_LIB

COMPRESSIBLE = {".js", ".mjs", ".css", ".html", ".json", ".svg", ".txt", ".map"}
#: URL prefix -> (folder, Cache-Control)
ROOTS = {
    "/assets/": (Path(BUILD_PATH_LIB), "public, max-age=31536000, immutable"),  # names carry a content hash
    "/static/": (Path(STATIC_PATH_LIB), "public, max-age=86400"),
}


class StaticCache:
    def __init__(self, app, roots: dict[str, tuple[Path, str]] | None = None):
        self.app = app
        self.roots = {prefix: (folder.resolve(), cc) for prefix, (folder, cc) in (roots or ROOTS).items()}
        self._files: dict[tuple[Path, str], tuple[bytes, str]] = {}  # (file, encoding) -> (body, etag)
        self._loading: dict[tuple[Path, str], asyncio.Future] = {}  # being read and compressed now

    async def __call__(self, scope, receive, send):
        found = self._match(scope)
        if found is None:
            return await self.app(scope, receive, send)
        file, cache_control = found
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if "range" in headers:  # partial content: Gradio's own ranged responses
            return await self.app(scope, receive, send)
        encoding = _encoding(file, headers.get("accept-encoding", ""))
        body, etag = await self._load(file, encoding)
        response_headers = [(b"cache-control", cache_control.encode()), (b"etag", etag.encode()),
                            (b"vary", b"Accept-Encoding")]
        if headers.get("if-none-match") == etag:
            await send({"type": "http.response.start", "status": 304, "headers": response_headers})
            await send({"type": "http.response.body", "body": b""})
            return
        media = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if media.startswith("text/") or media in ("application/javascript", "application/json"):
            media += "; charset=utf-8"
        response_headers += [(b"content-type", media.encode()), (b"content-length", str(len(body)).encode())]
        if encoding != "identity":
            response_headers.append((b"content-encoding", encoding.encode()))
        await send({"type": "http.response.start", "status": 200, "headers": response_headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

    def _match(self, scope) -> tuple[Path, str] | None:
        """The file a GET/HEAD asks for under one of the roots, or None (Gradio answers)."""
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            return None
        path = scope["path"]
        for prefix, (folder, cache_control) in self.roots.items():
            if path.startswith(prefix):
                file = (folder / path[len(prefix):]).resolve()
                if file.is_relative_to(folder) and file.is_file():  # no way out of the folder
                    return file, cache_control
                return None
        return None

    async def _load(self, file: Path, encoding: str) -> tuple[bytes, str]:
        """Once per file and encoding: the first visitors of a fresh server ask for the same ~90 files at
        once, and each request arriving while a file is compressed waits for that one compression."""
        key = (file, encoding)
        if key in self._files:
            return self._files[key]
        loading = self._loading.get(key)
        if loading is None:
            loading = self._loading[key] = asyncio.ensure_future(anyio.to_thread.run_sync(_read, file, encoding))
        try:
            self._files[key] = await asyncio.shield(loading)  # a client that disconnects cancels only its wait
        finally:
            if loading.done():
                self._loading.pop(key, None)  # a failed read is tried again by the next request
        return self._files[key]


def _encoding(file: Path, accept: str) -> str:
    if file.suffix.lower() not in COMPRESSIBLE:
        return "identity"
    offered = set()
    for part in accept.split(","):
        name, _, params = part.partition(";")
        if params.replace(" ", "").lower() not in ("q=0", "q=0.0", "q=0.00", "q=0.000"):  # q=0: "not this one"
            offered.add(name.strip().lower())
    return "br" if "br" in offered else "gzip" if "gzip" in offered else "identity"


def _read(file: Path, encoding: str) -> tuple[bytes, str]:
    raw = file.read_bytes()
    body = brotli.compress(raw, quality=6) if encoding == "br" else gzip.compress(raw, 6) if encoding == "gzip" else raw
    etag = '"' + hashlib.sha256(raw).hexdigest()[:20] + ("" if encoding == "identity" else f"-{encoding}") + '"'
    return body, etag

