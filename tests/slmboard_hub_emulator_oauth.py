"""Hub emulator addition: a minimal OpenID provider, so that a Space's real "Sign in with Hugging Face" (Gradio's
OAuth routes, which run only inside a Space: ``SYSTEM=spaces``, ``OPENID_PROVIDER_URL``) signs in named test users.

- ``GET /.well-known/openid-configuration``: discovery (authorization, token, userinfo and JWKS endpoints; RS256)
- ``GET /oauth/authorize``: a form asking which test user signs in (the test types a name, as a person would pick an
  account); ``POST /oauth/authorize``: redirects to the client's ``redirect_uri`` with a one-time ``code`` and its
  ``state``
- ``POST /oauth/token``: the code (once, for the client id and secret the Space was given) for an access token and
  an ``id_token`` signed with the emulator's RSA key (claims: sub, preferred_username, name, nonce, aud, iss, exp)
- ``GET /oauth/userinfo`` (bearer access token), ``GET /oauth/jwks``

Installed by ``build_app`` of tests/slmboard_hub_emulator.py, before its catch-all route. Clients: any registered
id (``OAUTH_CLIENT``, its secret ``OAUTH_SECRET``).
"""
from __future__ import annotations

import html
import secrets
import time
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from starlette.routing import Route

OAUTH_CLIENT, OAUTH_SECRET = "emulator-space", "emulator-space-secret"


def install(app) -> None:
    made: dict = {}  # the RSA key, made on first use (most emulators never sign anyone in)

    def key():
        from authlib.jose import JsonWebKey

        if "key" not in made:
            made["key"] = JsonWebKey.generate_key("RSA", 2048, is_private=True, options={"kid": "emulator"})
        return made["key"]

    codes: dict[str, dict] = {}  # code -> {user, nonce, redirect_uri, client_id}
    tokens: dict[str, str] = {}  # access token -> user

    def base(request: Request) -> str:
        return str(request.base_url).rstrip("/")

    def claims_of(user: str) -> dict:
        return {"sub": f"id-{user}", "preferred_username": user, "name": user.title(), "picture": "",
                "profile": f"https://huggingface.co/{user}"}

    async def discovery(request: Request):
        url = base(request)
        return JSONResponse({"issuer": url, "authorization_endpoint": f"{url}/oauth/authorize",
                             "token_endpoint": f"{url}/oauth/token", "userinfo_endpoint": f"{url}/oauth/userinfo",
                             "jwks_uri": f"{url}/oauth/jwks", "response_types_supported": ["code"],
                             "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
                             "scopes_supported": ["openid", "profile"],
                             "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]})

    async def authorize(request: Request):
        if request.method == "GET":
            q = request.query_params
            if q.get("client_id") != OAUTH_CLIENT:
                return JSONResponse({"error": "unknown client"}, status_code=400)
            hidden = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                             for k, v in q.items())
            return HTMLResponse(f'<form method="post">{hidden}<label>Test user <input id="username" name="username">'
                                '</label><button id="sign-in" type="submit">Sign in</button></form>')
        form = await request.form()
        user = str(form.get("username") or "").strip()
        if not user.isidentifier():
            return HTMLResponse("no such test user", status_code=400)
        code = secrets.token_urlsafe(16)
        codes[code] = {"user": user, "nonce": form.get("nonce"), "redirect_uri": form.get("redirect_uri"),
                       "client_id": form.get("client_id")}
        query = urlencode({"code": code, **({"state": form["state"]} if form.get("state") else {})})
        return RedirectResponse(f"{form.get('redirect_uri')}{'&' if '?' in str(form.get('redirect_uri')) else '?'}{query}",
                                status_code=302)

    async def token(request: Request):
        form = await request.form()
        client_id, secret = form.get("client_id"), form.get("client_secret")
        auth = request.headers.get("authorization", "")
        if auth.startswith("Basic "):
            import base64

            client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        grant = codes.pop(str(form.get("code")), None)
        if (client_id, secret) != (OAUTH_CLIENT, OAUTH_SECRET) or grant is None or grant["client_id"] != client_id:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        now = int(time.time())
        access = "hf_oauth_" + secrets.token_hex(12)
        tokens[access] = grant["user"]
        claims = {**claims_of(grant["user"]), "iss": base(request), "aud": client_id, "iat": now, "exp": now + 3600,
                  **({"nonce": grant["nonce"]} if grant["nonce"] else {})}
        from authlib.jose import jwt

        id_token = jwt.encode({"alg": "RS256", "kid": "emulator"}, claims, key()).decode()
        return JSONResponse({"access_token": access, "token_type": "bearer", "expires_in": 3600,
                             "scope": "openid profile", "id_token": id_token})

    async def userinfo(request: Request):
        user = tokens.get(request.headers.get("authorization", "").removeprefix("Bearer "))
        return JSONResponse(claims_of(user)) if user else JSONResponse({"error": "invalid_token"}, status_code=401)

    async def jwks(request: Request):
        return JSONResponse({"keys": [key().as_dict(is_private=False)]})

    app.router.routes[0:0] = [
        Route("/.well-known/openid-configuration", discovery, methods=["GET"]),
        Route("/oauth/authorize", authorize, methods=["GET", "POST"]),
        Route("/oauth/token", token, methods=["POST"]),
        Route("/oauth/userinfo", userinfo, methods=["GET"]),
        Route("/oauth/jwks", jwks, methods=["GET"]),
    ]
