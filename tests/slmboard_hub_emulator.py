"""A Hugging Face Hub *emulator* for tests: the real huggingface_hub / datasets client code talks to it
on 127.0.0.1 instead of huggingface.co.

It implements only the endpoints that client code uses to create a repo (dataset or model), commit
to it (regular files and classic LFS uploads; start the client with HF_HUB_DISABLE_XET=1) and read it
back (revision info, tree, paths-info, refs, commits, resolve); tags (``create_tag``: ``POST
/api/{type}s/{ns}/{name}/tag/{rev}``, listed under ``tags`` of the refs, every read resolves a tag name or
``refs/tags/NAME``; an existing tag is 409); pull requests (``create_pr=True``
commits open a discussion; list and details) and repo settings (``update_repo_settings``: gated,
visibility). A test can refuse pull requests on a repo (as the Hub does when discussions are
disabled) with ``POST /_emulator/repo-flags/{type}s/{ns}/{name}`` ``{"discussions_disabled": true}``, and make the
next requests under a path fail with ``POST /_emulator/fail`` ``{"status": 403, "path_prefix": "/api/...",
"times": N, "method": "POST", "code": "GatedRepo"}`` (``{"clear": true}`` removes every such rule), and make every
commit hold its repo's lock for a while with ``POST /_emulator/commit-delay`` ``{"seconds": S}`` (widens races). Commits honour ``parentCommit``
exactly like the Hub: 412 when the branch moved, 409 while another commit to the same repo is in
flight. ``whoami`` names the token's account (SLMBOARD_EMULATOR_USER). State lives in memory; one process per test (start with :func:`start_emulator`).

Run by hand:  python tests/slmboard_hub_emulator.py --port 8999 --token hf_test
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

# Module level (not inside build_app): FastAPI resolves the string annotations that
# `from __future__ import annotations` leaves against this module's globals.
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

EMULATOR_TOKEN_ENV = "SLMBOARD_EMULATOR_TOKEN"
USER_ENV = "SLMBOARD_EMULATOR_USER"  # the account name whoami gives the token
COMMIT_DELAY_ENV = "SLMBOARD_EMULATOR_COMMIT_DELAY"  # seconds a commit holds the repo lock (widens races)
TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
#: X-Error-Code and message of an injected failure, as the Hub answers that status (huggingface_hub reads both)
INJECTED_DEFAULTS = {401: ("Unauthorized", "Invalid credentials in Authorization header"),
                     403: ("Forbidden", "You don't have the rights to write to this repo"),
                     404: ("RepoNotFound", "Repository not found"), 409: ("Conflict", "A commit is already in progress"),
                     412: ("PreconditionFailed", "The parent commit is not the head of the branch"),
                     429: ("TooManyRequests", "Rate limit reached")}


def git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Entry:
    oid: str  # git blob oid (of the pointer file for LFS entries)
    size: int
    lfs_sha256: str | None = None

    def as_json(self, path: str) -> dict:
        out = {"type": "file", "oid": self.oid, "size": self.size, "path": path}
        if self.lfs_sha256:
            out["lfs"] = {"oid": self.lfs_sha256, "size": self.size, "pointerSize": 134}
        return out


@dataclass
class Commit:
    oid: str
    parent: str | None
    files: dict[str, Entry]
    title: str
    message: str
    date: float


@dataclass
class Repo:
    type: str
    id: str
    commits: dict[str, Commit] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)  # "main" / "refs/pr/1" -> commit oid
    tags: dict[str, str] = field(default_factory=dict)  # "v1" -> commit oid (create_tag)
    lock: threading.Lock = field(default_factory=threading.Lock)
    n_prs: int = 0
    # -- pull requests and settings (export helper) --
    discussions: list[dict] = field(default_factory=list)
    settings: dict = field(default_factory=lambda: {"gated": False, "private": False})
    discussions_disabled: bool = False


class State:
    def __init__(self, token: str | None):
        self.token = token
        self.repos: dict[tuple[str, str], Repo] = {}
        self.blobs: dict[str, bytes] = {}  # git oid -> content (regular files)
        self.lfs: dict[str, bytes] = {}  # sha256 -> content
        self.guard = threading.Lock()
        self.counts: dict[str, int] = {"commit": 0, "commit_412": 0, "commit_409": 0, "lfs_put": 0}
        #: where the Xet write token sends uploads (the Hub's CAS service); None: no Xet, as before (the token
        #: endpoint answers 404, and a client with hf_xet fails there)
        self.xet_cas_url: str | None = None

    def resolve(self, repo: Repo, rev: str) -> Commit | None:
        rev = unquote(rev)
        oid = repo.refs.get(rev) or repo.refs.get(rev.removeprefix("refs/heads/"))
        oid = oid or repo.tags.get(rev.removeprefix("refs/tags/"))  # a branch wins over a tag of the same name
        if oid is None:
            matches = [c for c in repo.commits if c.startswith(rev)] if len(rev) >= 7 else []
            oid = matches[0] if len(matches) == 1 else None
        return repo.commits.get(oid) if oid else None


def build_app(token: str | None = None, commit_delay: float = 0.0):
    state = State(token)
    app = FastAPI(title="slmboard Hub emulator")

    def err(status: int, code: str, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status, headers={"X-Error-Code": code, "X-Error-Message": message})

    def authorised(request: Request) -> bool:
        if state.token is None:
            return True
        return request.headers.get("authorization", "") == f"Bearer {state.token}"

    def parts_of(request: Request) -> list[str]:
        raw = request.scope.get("raw_path") or request.url.path.encode()
        path = raw.decode("latin-1").split("?", 1)[0]
        return [unquote(p) for p in path.strip("/").split("/")]

    def take_repo(parts: list[str]) -> tuple[str, str, list[str]]:
        """(type, 'ns/name', rest) from ['datasets', ns, name, ...] or [ns, name, ...] (models)."""
        if parts and parts[0] in TYPES:
            return TYPES[parts[0]], "/".join(parts[1:3]), parts[3:]
        return "model", "/".join(parts[0:2]), parts[2:]

    def take_rev(rest: list[str]) -> tuple[str, list[str]]:
        # A PR ref arrives unquoted by some clients ("refs/pr/1/...") and quoted by others.
        if len(rest) >= 3 and rest[0] == "refs" and rest[1] in ("pr", "convert", "heads", "tags"):
            return "/".join(rest[:3]), rest[3:]
        return (rest[0] if rest else "main"), rest[1:]

    def repo_or_404(kind: str, rid: str, request: Request | None = None):
        repo = state.repos.get((kind, rid))
        if repo and request is not None and repo.settings["private"] and not authorised(request):
            # as the Hub: a private repo read without its token is "not found" (401)
            return err(401, "RepoNotFound", f"Repository Not Found for url: {kind}s/{rid}. Invalid username or password.")
        return repo if repo else err(404, "RepoNotFound", f"Repository Not Found for url: {kind}s/{rid}.")

    def listing(commit: Commit, prefix: str, recursive: bool) -> list[dict] | None:
        prefix = prefix.strip("/")
        out: dict[str, dict] = {}
        found = prefix == ""
        for path in sorted(commit.files):
            if prefix and not path.startswith(prefix + "/"):
                if path == prefix:
                    found = True
                continue
            found = True
            rel = path[len(prefix) + 1:] if prefix else path
            segs = rel.split("/")
            for depth in range(1, len(segs)):
                if not recursive and depth > 1:
                    break
                d = "/".join(([prefix] if prefix else []) + segs[:depth])
                out.setdefault(d, {"type": "directory", "oid": hashlib.sha1(d.encode()).hexdigest(), "size": 0, "path": d})
            if recursive or len(segs) == 1:
                out[path] = commit.files[path].as_json(path)
        return list(out.values()) if found else None

    def info(repo: Repo, commit: Commit) -> dict:
        return {
            "id": repo.id, "sha": commit.oid, "private": bool(repo.settings["private"]), "disabled": False,
            "gated": repo.settings["gated"],
            "lastModified": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(commit.date)),
            "siblings": [{"rfilename": p, "size": e.size} for p, e in sorted(commit.files.items())],
            "tags": [], "downloads": 0, "likes": 0, "author": repo.id.split("/")[0],
        }

    def new_commit(repo: Repo, parent: Commit | None, files: dict[str, Entry], title: str, message: str) -> Commit:
        oid = hashlib.sha1(f"{repo.id}{time.time_ns()}{secrets.token_hex(8)}".encode()).hexdigest()
        c = Commit(oid, parent.oid if parent else None, files, title, message, time.time())
        repo.commits[oid] = c
        return c

    @app.post("/api/repos/create")
    async def create_repo(request: Request):
        if not authorised(request):
            return err(401, "Unauthorized", "Invalid credentials in Authorization header")
        body = await request.json()
        kind = body.get("type") or "model"
        rid = f"{body.get('organization') or 'user'}/{body['name']}"
        prefix = "" if kind == "model" else f"{kind}s/"
        url = f"{str(request.base_url).rstrip('/')}/{prefix}{rid}"
        with state.guard:
            if (kind, rid) in state.repos:  # the Hub's 409 body carries the url too
                return JSONResponse({"error": "You already created this repo", "url": url}, status_code=409,
                                    headers={"X-Error-Message": "You already created this repo"})
            repo = Repo(kind, rid)
            repo.settings["private"] = body.get("visibility") == "private" or body.get("private") is True  # create_repo(private=True)
            gitattributes = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
            state.blobs[git_blob_oid(gitattributes)] = gitattributes
            first = new_commit(repo, None, {".gitattributes": Entry(git_blob_oid(gitattributes), len(gitattributes))},
                               "initial commit", "")
            repo.refs["main"] = first.oid
            state.repos[(kind, rid)] = repo
        return {"url": url, "name": rid, "id": rid}

    @app.delete("/api/repos/delete")
    async def delete_repo(request: Request):
        if not authorised(request):
            return err(401, "Unauthorized", "Invalid credentials in Authorization header")
        body = await request.json()
        key = (body.get("type") or "model", f"{body.get('organization') or 'user'}/{body['name']}")
        with state.guard:
            if state.repos.pop(key, None) is None:
                return err(404, "RepoNotFound", f"Repository {key[1]} not found")
        state.counts["repo_delete"] = state.counts.get("repo_delete", 0) + 1
        return {}

    @app.post("/api/validate-yaml")
    async def validate_yaml(request: Request):
        import yaml

        content = (await request.json()).get("content", "")
        if content.startswith("---"):
            try:
                yaml.safe_load(content.split("---", 2)[1])
            except yaml.YAMLError as exc:
                return JSONResponse({"errors": [{"message": str(exc)}], "warnings": []}, status_code=400)
        return {"errors": [], "warnings": []}

    @app.get("/api/whoami-v2")
    def whoami(request: Request):
        # the account of the emulator's token (SLMBOARD_EMULATOR_USER, default "emulator-user"), as the Hub answers
        if state.token is None or not authorised(request):
            return err(401, "Unauthorized", "Invalid credentials in Authorization header")
        name = os.environ.get(USER_ENV) or "emulator-user"
        return {"type": "user", "name": name, "fullname": name, "avatarUrl": f"/avatars/{name}.svg", "orgs": [],
                "auth": {"type": "access_token", "accessToken": {"displayName": "emulator", "role": "write"}}}

    @app.get("/_emulator/stats")
    def stats():
        return state.counts

    # --- failure injection (tests/publishing/test_hub_failures.py): the next ``times`` requests whose path
    # starts with ``path_prefix`` (and, when given, use ``method``) get ``status``, with the headers the Hub sends
    injected: list[dict] = []

    delay = {"seconds": commit_delay}  # how long a commit holds its repo's lock; POST /_emulator/commit-delay sets it

    @app.post("/_emulator/commit-delay")
    async def set_commit_delay(request: Request):
        delay["seconds"] = float((await request.json()).get("seconds", 0))
        return {"seconds": delay["seconds"]}

    @app.post("/_emulator/fail")
    async def inject_failure(request: Request):
        body = await request.json()
        if body.get("clear"):
            injected.clear()
        else:
            status = int(body["status"])
            code, message = INJECTED_DEFAULTS.get(status, ("Error", f"injected HTTP {status}"))
            injected.append({"status": status, "path_prefix": body.get("path_prefix", "/"), "method": body.get("method"),
                             "times": int(body.get("times", 1_000_000)), "code": body.get("code") or code,
                             "message": body.get("message") or message})
        return {"injected": len(injected)}

    @app.middleware("http")
    async def injected_failures(request: Request, call_next):
        path = unquote(request.url.path)
        for rule in injected if not path.startswith("/_emulator") else ():
            if rule["times"] > 0 and path.startswith(rule["path_prefix"]) and rule["method"] in (None, request.method):
                rule["times"] -= 1
                return err(rule["status"], rule["code"], rule["message"])
        return await call_next(request)

    @app.post("/_emulator/xet")
    async def xet_storage(request: Request):
        """Hand out Xet write tokens whose storage service is ``cas_url`` (e.g. a closed port: the Hub answers,
        its storage does not)."""
        state.xet_cas_url = (await request.json()).get("cas_url")
        return {"cas_url": state.xet_cas_url}

    @app.put("/_emulator/lfs/{oid}")
    async def lfs_put(oid: str, request: Request):
        data = await request.body()
        if hashlib.sha256(data).hexdigest() != oid:
            return err(400, "BadRequest", "uploaded content does not match its sha256")
        state.lfs[oid] = data
        state.counts["lfs_put"] += 1
        return Response(status_code=200, headers={"ETag": f'"{oid}"'})

    @app.post("/_emulator/lfs/{oid}/verify")
    async def lfs_verify(oid: str):
        return {"ok": oid in state.lfs} if oid in state.lfs else err(404, "EntryNotFound", f"LFS object {oid} missing")

    # ---------------------------------------------- pull requests and repo settings (export helper)
    def discussion_json(repo: Repo, d: dict) -> dict:
        return {**{k: v for k, v in d.items() if k not in ("description", "ref")}, "repo": {"name": repo.id, "type": repo.type}}

    def discussions(request: Request, repo: Repo, tail: list[str]):
        if repo.discussions_disabled:
            return err(403, "Forbidden", "Discussions are disabled for this repo")
        if tail:  # details of one discussion
            found = next((d for d in repo.discussions if str(d["num"]) == tail[0]), None)
            if found is None:
                return err(404, "EntryNotFound", f"Discussion {tail[0]} not found")
            return {**discussion_json(repo, found), "events": [], "filesWithConflicts": [],
                    "changes": {"base": "refs/heads/main"}, "diff": ""}
        q = request.query_params
        rows = [d for d in repo.discussions
                if (q.get("type") in (None, "all") or (q.get("type") == "pull_request") == d["isPullRequest"])
                and (q.get("status") in (None, "all") or q.get("status") == d["status"])]
        rows = sorted(rows, key=lambda d: -d["num"])
        start = int(q.get("p", 0)) * 50
        return {"discussions": [discussion_json(repo, d) for d in rows[start:start + 50]], "count": len(rows),
                "start": start, "numClosedDiscussions": sum(1 for d in repo.discussions if d["status"] != "open")}

    @app.put("/api/{kind}/{ns}/{name}/settings")
    async def repo_settings(kind: str, ns: str, name: str, request: Request):
        if not authorised(request):
            return err(401, "Unauthorized", "Invalid credentials in Authorization header")
        repo = repo_or_404(TYPES.get(kind, kind), f"{ns}/{name}")
        if not isinstance(repo, Repo):
            return repo
        body = await request.json()
        if "gated" in body:
            if body["gated"] not in ("auto", "manual", False):
                return err(400, "BadRequest", f"invalid gated value {body['gated']!r}")
            repo.settings["gated"] = body["gated"]
        if "visibility" in body:
            repo.settings["private"] = body["visibility"] == "private"
        return {}

    @app.post("/_emulator/repo-flags/{kind}/{ns}/{name}")
    async def repo_flags(kind: str, ns: str, name: str, request: Request):
        repo = repo_or_404(TYPES.get(kind, kind), f"{ns}/{name}")
        if not isinstance(repo, Repo):
            return repo
        repo.discussions_disabled = bool((await request.json()).get("discussions_disabled"))
        return {"discussions_disabled": repo.discussions_disabled}
    # ---------------------------------------------- end of pull requests and repo settings

    @app.api_route("/{full:path}", methods=["GET", "HEAD", "POST"])
    async def dispatch(full: str, request: Request):
        parts = parts_of(request)
        base = str(request.base_url).rstrip("/")
        if parts[0] == "api" and len(parts) >= 4 and parts[1] in TYPES:
            kind, rid, rest = TYPES[parts[1]], "/".join(parts[2:4]), parts[4:]
            repo = repo_or_404(kind, rid, request)
            if not isinstance(repo, Repo):
                return repo
            op = rest[0] if rest else "revision"
            rev, tail = take_rev(rest[1:]) if rest else ("main", [])
            if op == "commit" and request.method == "POST":
                return await commit(request, repo, rev, base)
            if op == "preupload" and request.method == "POST":
                body = await request.json()
                current = state.resolve(repo, rev)
                files = []
                for f in body.get("files", []):
                    sample = base64.b64decode(f.get("sample", ""))
                    text = f["path"].endswith((".md", ".json", ".txt", ".yaml", ".yml", ".csv", ".gitattributes"))
                    binary = b"\0" in sample or not text
                    existing = current.files.get(f["path"]) if current else None
                    remote = (existing.lfs_sha256 or existing.oid) if existing else None
                    files.append({"path": f["path"], "uploadMode": "lfs" if binary and f.get("size", 0) > 0 else "regular",
                                  "shouldIgnore": False, "oid": remote})
                return {"files": files, "commitOid": current.oid if current else None}
            if op == "discussions":  # -- pull requests (export helper) --
                return discussions(request, repo, rest[1:])
            if op == "refs":
                branches = [{"name": k, "ref": f"refs/heads/{k}", "targetCommit": v} for k, v in repo.refs.items() if not k.startswith("refs/")]
                prs = [{"name": k, "ref": k, "targetCommit": v} for k, v in repo.refs.items() if k.startswith("refs/pr/")]
                tags = [{"name": k, "ref": f"refs/tags/{k}", "targetCommit": v} for k, v in sorted(repo.tags.items())]
                out = {"branches": branches, "converts": [], "tags": tags}
                if request.query_params.get("include_prs") or request.query_params.get("include_pull_requests"):
                    out["pullRequests"] = prs
                return out
            if op == "tag" and request.method == "POST":
                return await create_tag(request, repo, rev)
            if op in ("xet-write-token", "xet-read-token") and state.xet_cas_url:
                return {"accessToken": "xet-emulator-token", "exp": int(time.time()) + 3600,
                        "casUrl": state.xet_cas_url}
            c = state.resolve(repo, rev)
            if c is None:
                return err(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            if op == "revision":
                return info(repo, c)
            if op == "tree":
                recursive = request.query_params.get("recursive", "false").lower() in ("1", "true")
                entries = listing(c, "/".join(tail), recursive)
                if entries is None:
                    return err(404, "EntryNotFound", f"{'/'.join(tail)} does not exist on {rev}")
                return entries
            if op == "paths-info" and request.method == "POST":
                form = await request.form()
                out = []
                for p in form.getlist("paths"):
                    p = str(p).strip("/")
                    if p in c.files:
                        out.append(c.files[p].as_json(p))
                    elif any(f.startswith(p + "/") for f in c.files):
                        out.append({"type": "directory", "oid": hashlib.sha1(p.encode()).hexdigest(), "size": 0, "path": p})
                return out
            if op == "commits":
                chain, cur = [], c
                while cur is not None:
                    chain.append({"id": cur.oid, "title": cur.title, "message": cur.message, "authors": [{"user": "emulator"}],
                                  "date": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(cur.date))})
                    cur = repo.commits.get(cur.parent) if cur.parent else None
                return chain
            return err(404, "NotFound", f"emulator: unsupported api call {request.method} {'/'.join(parts)}")
        # LFS batch: /{prefix}{ns}/{name}.git/info/lfs/objects/batch
        if len(parts) >= 6 and parts[-4:] == ["info", "lfs", "objects", "batch"]:
            if not authorised(request):
                return err(401, "Unauthorized", "Invalid credentials in Authorization header")
            body = await request.json()
            objects = []
            for o in body.get("objects", []):
                item = {"oid": o["oid"], "size": o["size"], "authenticated": True}
                if o["oid"] not in state.lfs:
                    item["actions"] = {"upload": {"href": f"{base}/_emulator/lfs/{o['oid']}"},
                                       "verify": {"href": f"{base}/_emulator/lfs/{o['oid']}/verify"}}
                objects.append(item)
            return JSONResponse({"transfer": "basic", "objects": objects}, media_type="application/vnd.git-lfs+json")
        # Downloads: /{prefix}{ns}/{name}/resolve/{rev}/{path}
        kind, rid, rest = take_repo(parts)
        if rest and rest[0] == "resolve":
            repo = repo_or_404(kind, rid, request)
            if not isinstance(repo, Repo):
                return repo
            rev, tail = take_rev(rest[1:])
            c = state.resolve(repo, rev)
            if c is None:
                return err(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            path = "/".join(tail)
            entry = c.files.get(path)
            if entry is None:
                return err(404, "EntryNotFound", f"{path} does not exist on {rev}")
            data = state.lfs[entry.lfs_sha256] if entry.lfs_sha256 else state.blobs[entry.oid]
            headers = {"X-Repo-Commit": c.oid, "ETag": f'"{entry.lfs_sha256 or entry.oid}"', "Accept-Ranges": "bytes"}
            if entry.lfs_sha256:
                headers.update({"X-Linked-Etag": f'"{entry.lfs_sha256}"', "X-Linked-Size": str(entry.size)})
            rng = request.headers.get("range")
            if rng and rng.startswith("bytes=") and request.method == "GET":
                start_s, _, end_s = rng[6:].partition("-")
                start = int(start_s or 0)
                end = int(end_s) if end_s else len(data) - 1
                chunk = data[start:end + 1]
                headers["Content-Range"] = f"bytes {start}-{start + len(chunk) - 1}/{len(data)}"
                return Response(chunk, status_code=206, headers=headers, media_type="application/octet-stream")
            if request.method == "HEAD":
                headers["Content-Length"] = str(len(data))
                return Response(status_code=200, headers=headers)
            return Response(data, headers=headers, media_type="application/octet-stream")
        return err(404, "NotFound", f"emulator: unsupported call {request.method} /{'/'.join(parts)}")

    async def create_tag(request: Request, repo: Repo, rev: str):
        """``HfApi.create_tag``: tag ``rev`` (a branch, tag or commit) as ``body.tag``; 409 when the tag exists."""
        if not authorised(request):
            return err(401, "Unauthorized", "Invalid credentials in Authorization header")
        name = (await request.json()).get("tag") or ""
        target = state.resolve(repo, rev)
        if target is None:
            return err(404, "RevisionNotFound", f"Invalid rev id: {rev}")
        if name in repo.tags:  # no await between this check and the write: one event loop, no race
            return err(409, "Conflict", f"Tag {name} already exists")
        repo.tags[name] = target.oid
        return {}

    async def commit(request: Request, repo: Repo, rev: str, base: str):
        if not authorised(request):
            return err(401, "Unauthorized", "Invalid credentials in Authorization header")
        lines = [json.loads(line) for line in (await request.body()).decode().splitlines() if line.strip()]
        header = next((x["value"] for x in lines if x["key"] == "header"), {})
        create_pr = request.query_params.get("create_pr") in ("1", "true")
        if create_pr and repo.discussions_disabled:
            return err(403, "Forbidden", "Discussions are disabled for this repo")
        if not repo.lock.acquire(blocking=False):
            state.counts["commit_409"] += 1
            return err(409, "Conflict", "A commit is already in progress on this repository; retry later")
        try:
            if delay["seconds"]:
                await asyncio.sleep(delay["seconds"])  # holds the repo lock like a slow Hub commit (widens races)
            head = state.resolve(repo, rev)
            if head is None:
                return err(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            parent_oid = header.get("parentCommit")
            if parent_oid and not create_pr and not head.oid.startswith(parent_oid):
                state.counts["commit_412"] += 1
                return err(412, "PreconditionFailed", "A commit has happened since. Please refresh and try again.")
            base_commit = head
            if parent_oid and create_pr:
                base_commit = state.resolve(repo, parent_oid)
                if base_commit is None:
                    return err(404, "RevisionNotFound", f"Invalid parent commit: {parent_oid}")
            files = dict(base_commit.files)
            for item in lines:
                key, value = item["key"], item["value"]
                if key == "file":
                    data = base64.b64decode(value["content"])
                    oid = git_blob_oid(data)
                    state.blobs[oid] = data
                    files[value["path"]] = Entry(oid, len(data))
                elif key == "lfsFile":
                    if value["oid"] not in state.lfs:
                        return err(422, "UnprocessableEntity", f"LFS object {value['oid']} was never uploaded")
                    pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{value['oid']}\nsize {len(state.lfs[value['oid']])}\n"
                    files[value["path"]] = Entry(git_blob_oid(pointer.encode()), len(state.lfs[value["oid"]]), value["oid"])
                elif key == "deletedFile":
                    if value["path"] not in files:
                        return err(404, "EntryNotFound", f"A file with this name doesn't exist: {value['path']}")
                    del files[value["path"]]
                elif key == "deletedFolder":
                    prefix = value["path"].rstrip("/") + "/"
                    files = {p: e for p, e in files.items() if not p.startswith(prefix)}
            c = new_commit(repo, base_commit, files, header.get("summary", ""), header.get("description", ""))
            pr_url = None
            if create_pr:
                repo.n_prs += 1
                repo.refs[f"refs/pr/{repo.n_prs}"] = c.oid
                prefix = "" if repo.type == "model" else f"{repo.type}s/"
                pr_url = f"{base}/{prefix}{repo.id}/discussions/{repo.n_prs}"
                repo.discussions.append({"num": repo.n_prs, "title": header.get("summary", ""), "status": "open",
                                         "isPullRequest": True, "author": {"name": "emulator"},
                                         "createdAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                                         "description": header.get("description", ""), "ref": f"refs/pr/{repo.n_prs}"})
            else:
                repo.refs[unquote(rev)] = c.oid
            state.counts["commit"] += 1
            return {"success": True, "commitOid": c.oid, "commitUrl": f"{base}/{repo.type}s/{repo.id}/commit/{c.oid}",
                    "pullRequestUrl": pr_url}
        finally:
            repo.lock.release()

    # --- Space variables and secrets, PR comments and details events (space helper) -------------
    from slmboard_hub_emulator_spaces import install as install_space_routes

    install_space_routes(app, state, err, authorised)
    # --- end of the space helper's block -----------------------------------------------------------
    # --- a minimal OpenID provider: a Space's real sign-in (tests/slmboard_hub_emulator_oauth.py) -----------
    from slmboard_hub_emulator_oauth import install as install_openid_provider

    install_openid_provider(app)
    return app


# ---------------------------------------------------------------- starting it from tests
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class RunningEmulator:
    url: str
    token: str
    proc: subprocess.Popen

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def stats(self) -> dict:
        import urllib.request

        with urllib.request.urlopen(f"{self.url}/_emulator/stats", timeout=10) as r:
            return json.loads(r.read())


def start_emulator(token: str = "hf_emulatortoken0123456789", commit_delay: float = 0.0, timeout: float = 30.0) -> RunningEmulator:
    """Start the emulator in its own process on a free 127.0.0.1 port; raises if it does not come up."""
    import urllib.request

    port = free_port()
    env = {**os.environ, EMULATOR_TOKEN_ENV: token, COMMIT_DELAY_ENV: str(commit_delay)}
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Hub emulator exited with {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        try:
            urllib.request.urlopen(f"{url}/_emulator/stats", timeout=1).read()
            return RunningEmulator(url, token, proc)
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"Hub emulator did not answer on {url} within {timeout}s")


def main() -> None:
    import uvicorn

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8999)
    ap.add_argument("--token", default=os.environ.get(EMULATOR_TOKEN_ENV))
    ap.add_argument("--commit-delay", type=float, default=float(os.environ.get(COMMIT_DELAY_ENV) or 0))
    a = ap.parse_args()
    uvicorn.run(build_app(a.token, a.commit_delay), host="127.0.0.1", port=a.port, log_level="warning")


if __name__ == "__main__":
    main()
