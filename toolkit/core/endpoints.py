"""One way to point any component (a generation backend, a judge, a moderator) at an OpenAI-compatible
server: the same two options (``base_url``, ``api_key_env``; flags ``--base-url``, ``--api-key-env``) and
the same key rule.

The key is read from the environment variable ``api_key_env`` when the component starts and is never
written anywhere (records keep the variable's name only). A server on this machine (127.0.0.1,
localhost, ::1) without a key gets a placeholder, since such servers only check that the header is
there; any other server needs the variable set.
"""
from __future__ import annotations

import os
from typing import Optional
from urllib.parse import urlparse

from toolkit.core.errors import SlmboardError
from toolkit.core.registry import Options, option

__all__ = ["EndpointOptions", "ApiKeyMissing", "api_key", "DEFAULT_KEY_ENV", "LOCAL_HOSTS"]

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
#: What a local server without keys is sent (it checks only that the header is present).
LOCAL_PLACEHOLDER = "EMPTY"


class ApiKeyMissing(SlmboardError):
    """No API key in the environment variable the component was told to read."""


class EndpointOptions(Options):
    """How to reach an OpenAI-compatible server (the options every such component shares)."""

    base_url: Optional[str] = option(None, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 "
                                                "(default: the openai client's, api.openai.com)", metavar="URL")
    api_key_env: str = option(DEFAULT_KEY_ENV, help="environment variable holding the API key (its value is never "
                                                    "stored; a server on 127.0.0.1 needs none)", metavar="VAR")


def api_key(api_key_env: str, base_url: str | None, who: str) -> str:
    """The key in ``$api_key_env``; a placeholder for a server on this machine; :class:`ApiKeyMissing` otherwise."""
    key = os.environ.get(api_key_env)
    if key:
        return key
    if urlparse(base_url or "").hostname in LOCAL_HOSTS:
        return LOCAL_PLACEHOLDER
    raise ApiKeyMissing(f"{who}: no API key: set the environment variable {api_key_env} (or name another with "
                        "api_key_env; any value for a server that checks none)", param="api_key_env")
