"""Hub emulator additions for the Space workflow (`slmboard space deploy`, `slmboard review`, the
Space's submission queue): Space variables and secrets, repo settings (private / gated, reflected in
repo info), and pull requests as discussions (list, details, comments).

Installed by ``build_app`` of tests/slmboard_hub_emulator.py (one delimited call); the routes are
put before the emulator's catch-all route. Endpoints and JSON shapes are the ones huggingface_hub's
HfApi calls: get/add/delete_space_variable, add/delete_space_secret, update_repo_settings,
get_repo_discussions, get_discussion_details, comment_discussion.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.routing import Route

TYPE_OF = {"models": "model", "datasets": "dataset", "spaces": "space"}


@dataclass
class SpaceState:
    variables: dict[str, dict[str, dict]] = field(default_factory=dict)  # space id -> key -> {"value", ...}
    secrets: dict[str, dict[str, str]] = field(default_factory=dict)  # space id -> key -> value (never returned)
    settings: dict[tuple[str, str], dict] = field(default_factory=dict)  # (type, id) -> {"private", "gated"}
    comments: dict[tuple[str, str, int], list[dict]] = field(default_factory=dict)
    status: dict[tuple[str, str, int], str] = field(default_factory=dict)


def _now(t: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t or time.time()))


def install(app, state, err, authorised) -> SpaceState:
    extra = SpaceState()
    state.spaces = extra  # tests and /_emulator/spaces read it

    def need_auth(request):
        return None if authorised(request) else err(401, "Unauthorized", "Invalid credentials in Authorization header")

    def space_id(request) -> str:
        return f"{request.path_params['ns']}/{request.path_params['name']}"

    def space_or_404(rid: str):
        return state.repos.get(("space", rid)) or err(404, "RepoNotFound", f"Repository Not Found for url: spaces/{rid}.")

    async def variables(request: Request):
        rid = space_id(request)
        denied = need_auth(request)
        if denied:
            return denied
        repo = space_or_404(rid)
        if not hasattr(repo, "commits"):
            return repo
        table = extra.variables.setdefault(rid, {})
        if request.method == "POST":
            body = await request.json()
            table[body["key"]] = {"value": body["value"], "description": body.get("description"), "updatedAt": _now()}
        elif request.method == "DELETE":
            table.pop((await request.json())["key"], None)
        return JSONResponse(table)

    async def space_secrets(request: Request):
        rid = space_id(request)
        denied = need_auth(request)
        if denied:
            return denied
        repo = space_or_404(rid)
        if not hasattr(repo, "commits"):
            return repo
        table = extra.secrets.setdefault(rid, {})
        body = await request.json()
        if request.method == "POST":
            table[body["key"]] = body["value"]
        else:
            table.pop(body["key"], None)
        return JSONResponse({})

    async def settings(request: Request):
        denied = need_auth(request)
        if denied:
            return denied
        kind, rid = TYPE_OF[request.path_params["kind"]], f"{request.path_params['ns']}/{request.path_params['name']}"
        if (kind, rid) not in state.repos:
            return err(404, "RepoNotFound", f"Repository Not Found for url: {kind}s/{rid}.")
        body = await request.json()
        extra.settings.setdefault((kind, rid), {}).update({k: body[k] for k in ("private", "gated") if k in body})
        return JSONResponse({})

    def _pr(repo, num: int) -> dict:
        head = repo.commits[repo.refs[f"refs/pr/{num}"]]
        key = (repo.type, repo.id, num)
        return {"num": num, "title": head.title or f"PR {num}", "status": extra.status.get(key, "open"),
                "isPullRequest": True, "createdAt": _now(head.date), "author": {"name": "emulator"},
                "repo": {"name": repo.id, "type": repo.type}}

    def repo_of(request):
        kind, rid = TYPE_OF[request.path_params["kind"]], f"{request.path_params['ns']}/{request.path_params['name']}"
        return state.repos.get((kind, rid)) or err(404, "RepoNotFound", f"Repository Not Found for url: {kind}s/{rid}.")

    async def discussions(request: Request):
        repo = repo_of(request)
        if not hasattr(repo, "commits"):
            return repo
        nums = sorted(int(k.rsplit("/", 1)[1]) for k in repo.refs if k.startswith("refs/pr/"))
        rows = [_pr(repo, n) for n in reversed(nums)]
        status = request.query_params.get("status")
        if status and status != "all":
            rows = [r for r in rows if r["status"] == status]
        if request.query_params.get("type") == "discussion":
            rows = []
        page = int(request.query_params.get("p", 0))
        per = 50
        return JSONResponse({"discussions": rows[page * per:(page + 1) * per], "count": len(rows), "start": page * per,
                "numClosedDiscussions": 0})

    async def discussion(request: Request):
        repo = repo_of(request)
        if not hasattr(repo, "commits"):
            return repo
        num = int(request.path_params["num"])
        if f"refs/pr/{num}" not in repo.refs:
            return err(404, "NotFound", f"Discussion {num} not found")
        head_oid = repo.refs[f"refs/pr/{num}"]
        events = [{"id": f"c{head_oid[:8]}", "type": "commit", "createdAt": _now(repo.commits[head_oid].date),
                   "author": {"name": "emulator"}, "data": {"subject": repo.commits[head_oid].title, "oid": head_oid}}]
        events += extra.comments.get((repo.type, repo.id, num), [])
        return JSONResponse({**_pr(repo, num), "events": events, "filesWithConflicts": [],
                             "changes": {"base": "refs/heads/main", "headOid": head_oid}, "diff": ""})

    async def comment(request: Request):
        denied = need_auth(request)
        if denied:
            return denied
        repo = repo_of(request)
        if not hasattr(repo, "commits"):
            return repo
        num = int(request.path_params["num"])
        if f"refs/pr/{num}" not in repo.refs:
            return err(404, "NotFound", f"Discussion {num} not found")
        text = (await request.json())["comment"]
        events = extra.comments.setdefault((repo.type, repo.id, num), [])
        event = {"id": f"m{len(events) + 1}", "type": "comment", "createdAt": _now(), "author": {"name": "emulator"},
                 "data": {"edited": False, "hidden": False, "latest": {"raw": text, "html": text}}}
        events.append(event)
        return JSONResponse({"newMessage": event})

    async def close(request: Request):  # status change (tests close a PR to see it leave the queue)
        repo = repo_of(request)
        if not hasattr(repo, "commits"):
            return repo
        extra.status[(repo.type, repo.id, int(request.path_params["num"]))] = (await request.json()).get("status", "closed")
        return JSONResponse({"newMessage": {}})

    async def inspect(request: Request):  # tests only: variables, secret *names*, settings
        return JSONResponse({"variables": extra.variables, "secrets": {k: sorted(v) for k, v in extra.secrets.items()},
                             "comments": {f"{t}/{r}#{n}": [e["data"]["latest"]["raw"] for e in ev]
                                          for (t, r, n), ev in extra.comments.items()}})

    base = "/api/{kind}/{ns}/{name}/discussions"
    routes = [
        Route("/_emulator/spaces", inspect, methods=["GET"]),
        Route("/api/spaces/{ns}/{name}/variables", variables, methods=["GET", "POST", "DELETE"]),
        Route("/api/spaces/{ns}/{name}/secrets", space_secrets, methods=["POST", "DELETE"]),
        Route("/api/{kind}/{ns}/{name}/settings", settings, methods=["PUT"]),
        Route(base, discussions, methods=["GET"]),
        Route(base + "/{num:int}", discussion, methods=["GET"]),
        Route(base + "/{num:int}/comment", comment, methods=["POST"]),
        Route(base + "/{num:int}/status", close, methods=["PATCH", "POST"]),
    ]
    app.router.routes[0:0] = routes  # before the catch-all

    @app.middleware("http")
    async def repo_flags(request: Request, call_next):
        """Repo info reflects update_repo_settings (private / gated)."""
        response = await call_next(request)
        parts = request.url.path.strip("/").split("/")
        if request.method != "GET" or len(parts) < 4 or parts[0] != "api" or parts[1] not in TYPE_OF:
            return response
        flags = extra.settings.get((TYPE_OF[parts[1]], "/".join(parts[2:4])))
        if not flags or not (len(parts) == 4 or parts[4] == "revision") or response.status_code != 200:
            return response
        body = b"".join([chunk async for chunk in response.body_iterator])
        data = json.loads(body)
        data.update(flags)
        headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-type")}
        return JSONResponse(data, status_code=200, headers=headers)

    return extra
