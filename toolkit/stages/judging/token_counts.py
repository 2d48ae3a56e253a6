"""Tokens of an LLM judge's requests, counted as its server counts them, without generating anything: a vLLM
server's own ``POST /tokenize`` (the same messages through the same chat template), the OpenAI API's models with
tiktoken and OpenAI's chat framing; where neither can count, an upper bound (UTF-8 bytes), said so, or nothing.
Used by the estimate (before a run) and by the usage ledger (a reply whose server reported no ``usage``)."""
from __future__ import annotations

from .base import Judge, JudgeInput

UPPER_BOUND = "an upper bound"  # how a count that is a bound, not the server's, says so


def count_prompt_tokens(judge: Judge, bodies: list[dict]) -> tuple[int | None, str]:
    """The input tokens of ``bodies`` as the judge's server counts them, and who counted."""
    base_url = getattr(judge, "base_url", None)
    if base_url:
        counted = _server_count(base_url, bodies, judge)
        if counted is not None:
            return counted, f"the server's /tokenize ({base_url.rstrip('/').removesuffix('/v1')})"
        return None, f"unknown: {base_url} counts no tokens without generating (no /tokenize)"
    return _tiktoken_count(bodies)


def _server_count(base_url: str, bodies: list[dict], judge: Judge) -> int | None:
    """vLLM's ``POST /tokenize``: the same messages through the same chat template as a chat completion."""
    import httpx

    root = base_url.rstrip("/").removesuffix("/v1")
    headers = {"Authorization": f"Bearer {judge._api_key()}"}
    total = 0
    with httpx.Client(timeout=getattr(judge, "timeout", 60.0)) as client:
        for body in bodies:
            try:
                resp = client.post(f"{root}/tokenize", headers=headers, json={
                    "model": body["model"], "messages": body["messages"], "add_generation_prompt": True})
            except httpx.HTTPError:
                return None
            if resp.status_code != 200 or "count" not in (data := resp.json()):
                return None
            total += int(data["count"])
    return total


def _tiktoken_count(bodies: list[dict]) -> tuple[int | None, str]:
    """OpenAI's chat framing (their cookbook's count for the gpt-4o family): 3 tokens per message, its role's and
    content's tokens, and 3 that open the reply. Where tiktoken cannot load the model's encoding (it downloads it
    once; offline it cannot), the UTF-8 bytes bound the tokens from above (a byte-level BPE token holds at least one
    byte): an upper bound, said so."""
    import tiktoken

    model = bodies[0]["model"]
    try:
        enc = tiktoken.encoding_for_model(model)
        count, how = lambda text: len(enc.encode(text)), f"tiktoken ({enc.name}) with OpenAI's chat framing"
    except KeyError:
        enc, why = None, f"tiktoken knows no encoding of model {model!r}"
    except (OSError, ValueError) as exc:  # the encoding file could not be fetched
        enc, why = None, f"tiktoken could not load the encoding of {model!r} ({type(exc).__name__}; offline?)"
    if enc is None:
        count, how = lambda text: len(text.encode("utf-8")), f"{UPPER_BOUND}: UTF-8 bytes, since {why}"
    total = sum(3 + sum(3 + count(m["role"]) + count(m["content"]) for m in body["messages"]) for body in bodies)
    return total, how


def count_reply_tokens(judge: Judge, item: JudgeInput, reply: str) -> tuple[int, int] | None:
    """(input, output) tokens of one request whose server reported no ``usage``, counted as :func:`count_prompt_tokens`
    counts, the reply's own tokens with them; None where only a bound is known (never a guess in the ledger)."""
    if not hasattr(judge, "chat_body"):
        return None
    body = judge.chat_body(item)[1]
    prompt, how = count_prompt_tokens(judge, [body])
    if prompt is None or how.startswith(UPPER_BOUND):
        return None
    base_url = getattr(judge, "base_url", None)
    if base_url:
        import httpx

        root = base_url.rstrip("/").removesuffix("/v1")
        try:
            resp = httpx.post(f"{root}/tokenize", headers={"Authorization": f"Bearer {judge._api_key()}"},
                              json={"model": body["model"], "prompt": reply, "add_special_tokens": False},
                              timeout=getattr(judge, "timeout", 60.0))
            return (prompt, int(resp.json()["count"])) if resp.status_code == 200 else None
        except (httpx.HTTPError, ValueError, KeyError):
            return None
    import tiktoken

    return prompt, len(tiktoken.encoding_for_model(body["model"]).encode(reply))


