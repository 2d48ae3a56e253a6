"""Hub emulator additions for the Space workflow (`slmboard space deploy`, `slmboard review`, the
Space's submission queue): Space variables and secrets, and pull-request comments with the events of
a PR's details (its head commit, then the comments). Pull requests themselves and repo settings are
the main emulator's (tests/slmboard_hub_emulator.py).

Installed by ``build_app`` of tests/slmboard_hub_emulator.py (one delimited call); the routes are
put before the emulator's catch-all route. Endpoints and JSON shapes are the ones huggingface_hub's
HfApi calls: get/add/delete_space_variable, add/delete_space_secret, get_discussion_details,
comment_discussion.
"""
from __future__ import annotations

import hashlib
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
    comments: dict[tuple[str, str, int], list[dict]] = field(default_factory=dict)


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

    def _pr(repo, num: int) -> dict | None:
        """The main emulator's record of PR ``num`` (title, status, ...) as its list endpoint shows it."""
        found = next((d for d in getattr(repo, "discussions", []) if d["num"] == num), None)
        if found is None:
            return None
        return {**{k: v for k, v in found.items() if k not in ("description", "ref")},
                "repo": {"name": repo.id, "type": repo.type}}

    def repo_of(request):
        kind, rid = TYPE_OF[request.path_params["kind"]], f"{request.path_params['ns']}/{request.path_params['name']}"
        return state.repos.get((kind, rid)) or err(404, "RepoNotFound", f"Repository Not Found for url: {kind}s/{rid}.")

    async def discussion(request: Request):
        repo = repo_of(request)
        if not hasattr(repo, "commits"):
            return repo
        num = int(request.path_params["num"])
        pr = _pr(repo, num)
        if getattr(repo, "discussions_disabled", False):
            return err(403, "Forbidden", "Discussions are disabled for this repo")
        if pr is None or f"refs/pr/{num}" not in repo.refs:
            return err(404, "EntryNotFound", f"Discussion {num} not found")
        head_oid = repo.refs[f"refs/pr/{num}"]
        events = [{"id": f"c{head_oid[:8]}", "type": "commit", "createdAt": _now(repo.commits[head_oid].date),
                   "author": {"name": "emulator"}, "data": {"subject": repo.commits[head_oid].title, "oid": head_oid}}]
        events += extra.comments.get((repo.type, repo.id, num), [])
        return JSONResponse({**pr, "events": events, "filesWithConflicts": [],
                             "changes": {"base": "refs/heads/main", "headOid": head_oid}, "diff": ""})

    def pull_request_of(request):
        """(repo, num, the main emulator's PR record), or the error response of an unauthorised or unknown one."""
        denied = need_auth(request)
        if denied:
            return denied
        repo = repo_of(request)
        if not hasattr(repo, "commits"):
            return repo
        num = int(request.path_params["num"])
        found = next((d for d in getattr(repo, "discussions", []) if d["num"] == num), None)
        return (repo, num, found) if found is not None else err(404, "EntryNotFound", f"Discussion {num} not found")

    def add_comment(repo, num: int, text: str) -> dict:
        events = extra.comments.setdefault((repo.type, repo.id, num), [])
        event = {"id": f"m{len(events) + 1}", "type": "comment", "createdAt": _now(), "author": {"name": "emulator"},
                 "data": {"edited": False, "hidden": False, "latest": {"raw": text, "html": text}}}
        events.append(event)
        return event

    async def comment(request: Request):
        found = pull_request_of(request)
        if not isinstance(found, tuple):
            return found
        repo, num, _ = found
        return JSONResponse({"newMessage": add_comment(repo, num, (await request.json())["comment"])})

    async def status(request: Request):
        """Close or reopen a pull request (change_discussion_status), its comment kept with the others."""
        found = pull_request_of(request)
        if not isinstance(found, tuple):
            return found
        repo, num, pr = found
        body = await request.json()
        pr["status"] = body["status"]
        if body.get("comment"):
            add_comment(repo, num, body["comment"])
        return JSONResponse({"newStatus": {"id": f"s{num}", "type": "status-change", "createdAt": _now(),
                                           "author": {"name": "emulator"}, "data": {"status": body["status"]}}})

    async def inspect(request: Request):  # tests only: variables, secret names (values as sha256), comments
        return JSONResponse({"variables": extra.variables, "secrets": {k: sorted(v) for k, v in extra.secrets.items()},
                             "secret_sha256": {k: {n: hashlib.sha256(v.encode()).hexdigest() for n, v in t.items()}
                                               for k, t in extra.secrets.items()},
                             "comments": {f"{t}/{r}#{n}": [e["data"]["latest"]["raw"] for e in ev]
                                          for (t, r, n), ev in extra.comments.items()}})

    base = "/api/{kind}/{ns}/{name}/discussions"
    routes = [
        Route("/_emulator/spaces", inspect, methods=["GET"]),
        Route("/api/spaces/{ns}/{name}/variables", variables, methods=["GET", "POST", "DELETE"]),
        Route("/api/spaces/{ns}/{name}/secrets", space_secrets, methods=["POST", "DELETE"]),
        Route(base + "/{num:int}", discussion, methods=["GET"]),
        Route(base + "/{num:int}/comment", comment, methods=["POST"]),
        Route(base + "/{num:int}/status", status, methods=["POST"]),
    ]
    app.router.routes[0:0] = routes  # before the catch-all

    return extra
