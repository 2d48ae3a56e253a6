"""One function scrubs credentials from anything that may become public (records, manifests, messages).

Known secret values (an API key read from the environment, the Hub token) are replaced wherever
they occur; so is anything shaped like a Hugging Face (``hf_...``) or OpenAI (``sk-...``) token;
in mappings, the value of every key whose name says it holds a credential (token, key, secret,
password, auth) is replaced whole.
"""
from __future__ import annotations

import re
from typing import Any, Iterable

__all__ = ["scrub_secrets", "MASK"]

MASK = "***"
_SECRET_KEY_NAME = re.compile(r"token|key|secret|password|auth", re.I)
_TOKEN_SHAPES = re.compile(r"hf_[A-Za-z0-9]{8,}|sk-[A-Za-z0-9_-]{8,}")


def scrub_secrets(value: Any, known: Iterable[str | None] = ()) -> Any:
    """``value`` (a string, or dicts/lists of them) with every credential replaced by ``***``."""
    secrets = sorted({s for s in known if s}, key=len, reverse=True)  # longest first: no partial leftovers
    return _scrub(value, secrets)


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: (MASK if _SECRET_KEY_NAME.search(str(k)) else _scrub(v, secrets)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_scrub(v, secrets) for v in value)
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, MASK)
        return _TOKEN_SHAPES.sub(MASK, value)
    return value
