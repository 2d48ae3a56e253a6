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
# A key name is split into words (snake, kebab, camelCase). A credential is named by one of these words,
# or by a run-together name (``apikey``, ``hftoken``) ending in one of them; words naming counts or
# tools (``max_tokens``, ``tokenizer``) or where a secret lives (``api_key_env``) are not secrets, and
# masking them would hide the decoding settings a published number depends on.
_SECRET_WORDS = {"token", "key", "keys", "apikey", "secret", "secrets", "password", "passwd", "auth",
                 "authorization", "credential", "credentials", "bearer", "cookie"}
_SECRET_SUFFIXES = ("token", "key", "secret", "password")
_NOT_SECRET_LAST_WORD = {"env", "var", "variable", "file", "path", "name", "id", "type"}
_TOKEN_SHAPES = re.compile(r"hf_[A-Za-z0-9]{8,}|sk-[A-Za-z0-9_-]{8,}")


def scrub_secrets(value: Any, known: Iterable[str | None] = ()) -> Any:
    """``value`` (a string, or dicts/lists of them) with every credential replaced by ``***``."""
    secrets = sorted({s for s in known if s}, key=len, reverse=True)  # longest first: no partial leftovers
    return _scrub(value, secrets)


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: (MASK if _names_a_credential(str(k)) else _scrub(v, secrets)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_scrub(v, secrets) for v in value)
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, MASK)
        return _TOKEN_SHAPES.sub(MASK, value)
    return value


def _names_a_credential(key: str) -> bool:
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower()
    parts = [p for p in re.split(r"[^a-z0-9]+", words) if p]
    if not parts or parts[-1] in _NOT_SECRET_LAST_WORD:
        return False
    return any(p in _SECRET_WORDS or (p.endswith(_SECRET_SUFFIXES) and len(p) > 6) for p in parts)
