"""Retry policy (backoff, jitter, Retry-After), rate limits and the judgment cache."""
import asyncio
import random

import httpx
import openai
import pytest

from toolkit.stages.judging.base import Judgment
from toolkit.stages.judging.cache import JudgmentCache
from toolkit.stages.judging.retry import RateLimiter, RetryPolicy, RetryStats, call_with_retry, is_retryable, retry_after_seconds


def _error(status: int, headers: dict | None = None):
    req = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    resp = httpx.Response(status, headers=headers or {}, request=req, json={"error": {"message": "x"}})
    cls = {429: openai.RateLimitError, 500: openai.InternalServerError, 400: openai.BadRequestError}[status]
    return cls("x", response=resp, body=None)


def test_retry_after_header_forms():
    assert retry_after_seconds(_error(429, {"retry-after": "3"})) == 3.0
    assert retry_after_seconds(_error(429, {"retry-after-ms": "250"})) == 0.25
    assert retry_after_seconds(_error(429)) is None


def test_backoff_is_exponential_with_full_jitter():
    p = RetryPolicy(base_delay=1.0, max_delay=8.0)
    rng = random.Random(0)
    for attempt, cap in ((0, 1.0), (1, 2.0), (2, 4.0), (5, 8.0)):
        draws = [p.backoff(attempt, rng) for _ in range(200)]
        assert 0 <= min(draws) and max(draws) <= cap and max(draws) > cap * 0.8


def test_call_with_retry_honours_retry_after_and_stops_on_client_errors():
    waits = []

    async def sleep(s):
        waits.append(s)

    failures = [_error(429, {"retry-after": "2"}), _error(500)]

    async def flaky():
        if failures:
            raise failures.pop(0)
        return "ok"

    stats = RetryStats()
    out = asyncio.run(call_with_retry(flaky, RetryPolicy(base_delay=0.5), stats, random.Random(1), sleep=sleep))
    assert out == "ok" and stats.attempts == 3 and stats.retries == 2
    assert waits[0] == 2.0 and 0 <= waits[1] <= 1.0  # server's Retry-After, then jittered backoff
    assert stats.by_status == {"429": 1, "500": 1}

    async def bad():
        raise _error(400)

    stats = RetryStats()
    with pytest.raises(openai.BadRequestError):
        asyncio.run(call_with_retry(bad, RetryPolicy(), stats, random.Random(1), sleep=sleep))
    assert stats.attempts == 1 and not is_retryable(_error(400)) and is_retryable(_error(500))


class FakeClock:
    """A clock that only moves when the limiter sleeps: waits are exact, the test takes no time."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_rate_limiter_spaces_requests():
    clock = FakeClock()

    async def go():
        lim = RateLimiter(requests_per_minute=600, clock=clock, sleep=clock.sleep)  # 10/s; the bucket starts full
        for _ in range(600):  # a full bucket: no waiting at all
            await lim.acquire()
        assert clock.sleeps == []
        stamps = []
        for _ in range(5):  # then one request per 0.1 s, each after exactly one wait
            await lim.acquire()
            stamps.append(clock.now)
        return stamps

    stamps = asyncio.run(go())
    assert len(clock.sleeps) == 5 and clock.sleeps == pytest.approx([0.1] * 5)
    assert stamps == pytest.approx([1000.1, 1000.2, 1000.3, 1000.4, 1000.5])


def test_token_limiter_waits_for_budget():
    clock = FakeClock()

    async def go():
        lim = RateLimiter(tokens_per_minute=6000, clock=clock, sleep=clock.sleep)  # 100 tokens/s
        await lim.acquire(6000)  # spends the whole bucket, no wait
        assert clock.sleeps == []
        await lim.acquire(30)  # 30 tokens at 100/s
        await lim.acquire(10_000)  # larger than the budget: waits for a full bucket (60 s), not forever
        clock.now += 5.0  # idle time refills the bucket: 500 tokens
        await lim.acquire(400)

    asyncio.run(go())
    assert clock.sleeps == pytest.approx([0.3, 60.0])


def test_cache_roundtrip_skips_errors(tmp_path):
    c = JudgmentCache(tmp_path / "c.sqlite")
    j = Judgment(0.5, "ok", "<score>0.5</score>", "vague")
    c.put("openai:m", "r1/harm_bench", "p", "a", j)
    c.put("openai:m", "r1/harm_bench", "p", "b", Judgment(None, "error", None, "HTTP 500"))
    assert c.get("openai:m", "r1/harm_bench", "p", "a") == j
    assert c.get("openai:m", "r1/harm_bench", "p", "b") is None  # API failures are retried, not cached
    assert c.get("openai:other", "r1/harm_bench", "p", "a") is None  # keyed by judge model
    assert c.get("openai:m", "r2/harm_bench", "p", "a") is None  # and by rubric version
    c.close()
    again = JudgmentCache(tmp_path / "c.sqlite")
    assert len(again) == 1  # persisted
    again.close()
