"""Retries and rate limits for judge API calls (asyncio).

* :class:`RetryPolicy` -- exponential backoff with full jitter on 429, 5xx, timeouts and connection
  errors; a ``Retry-After`` / ``retry-after-ms`` header from the server wins over the computed wait
  (capped by ``max_wait``). Other 4xx errors are not retried (a bad request stays bad).
* :class:`RateLimiter` -- request-per-minute and token-per-minute budgets (token buckets), so a
  judge run stays under a provider's published limits instead of bouncing off them.
"""
from __future__ import annotations

import asyncio
import email.utils
import random
import time
from dataclasses import dataclass
from typing import Awaitable, Callable, TypeVar

from toolkit.core.errors import BadOption

__all__ = ["RetryPolicy", "RateLimiter", "RetryStats", "call_with_retry", "is_retryable", "retry_after_seconds"]

T = TypeVar("T")
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_wait: float = 120.0  # longest Retry-After we obey

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise BadOption(f"max_attempts must be >= 1, got {self.max_attempts}")

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Full jitter: uniform in [0, min(max_delay, base * 2**attempt)] (attempt counts from 0)."""
        return rng.uniform(0.0, min(self.max_delay, self.base_delay * (2 ** attempt)))


@dataclass
class RetryStats:
    attempts: int = 0
    retries: int = 0
    by_status: dict | None = None

    def note(self, key: str) -> None:
        if self.by_status is None:
            self.by_status = {}
        self.by_status[key] = self.by_status.get(key, 0) + 1


def _status_of(exc: BaseException) -> int | None:
    return getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)


def is_retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError)):
        return True
    status = _status_of(exc)
    return status is not None and (status in RETRYABLE_STATUS or status >= 500)


def retry_after_seconds(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (Retry-After: seconds or HTTP date; retry-after-ms)."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


def _label(exc: BaseException) -> str:
    status = _status_of(exc)
    return str(status) if status else type(exc).__name__


async def call_with_retry(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    stats: RetryStats,
    rng: random.Random,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """Await ``fn()``; on a retryable failure wait (Retry-After or backoff) and try again.

    Raises the last exception when attempts run out or the error is not retryable.
    """
    for attempt in range(policy.max_attempts):
        stats.attempts += 1
        try:
            return await fn()
        except Exception as exc:  # noqa: BLE001 - classified below
            stats.note(_label(exc))
            if not is_retryable(exc) or attempt == policy.max_attempts - 1:
                raise
            wait = retry_after_seconds(exc)
            wait = policy.backoff(attempt, rng) if wait is None else min(wait, policy.max_wait)
            stats.retries += 1
            await sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


class RateLimiter:
    """Token buckets for requests/minute and tokens/minute (None = unlimited).

    ``acquire(tokens)`` waits until both budgets allow the request; buckets start full, so short
    runs are not slowed down.
    """

    def __init__(self, requests_per_minute: float | None = None, tokens_per_minute: float | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], Awaitable] = asyncio.sleep):
        for name, v in (("requests_per_minute", requests_per_minute), ("tokens_per_minute", tokens_per_minute)):
            if v is not None and v <= 0:
                raise BadOption(f"{name} must be positive, got {v}")
        self.rpm, self.tpm, self._clock, self._sleep = requests_per_minute, tokens_per_minute, clock, sleep
        now = clock()
        self._req = [float(requests_per_minute or 0), now]
        self._tok = [float(tokens_per_minute or 0), now]
        self._lock = asyncio.Lock()

    @staticmethod
    def _refill(bucket: list, rate_per_min: float, now: float) -> None:
        bucket[0] = min(rate_per_min, bucket[0] + (now - bucket[1]) * rate_per_min / 60.0)
        bucket[1] = now

    def _wait_needed(self, tokens: int) -> float:
        now = self._clock()
        wait = 0.0
        if self.rpm:
            self._refill(self._req, self.rpm, now)
            if self._req[0] < 1:
                wait = max(wait, (1 - self._req[0]) * 60.0 / self.rpm)
        if self.tpm:
            self._refill(self._tok, self.tpm, now)
            need = min(tokens, self.tpm)  # a request larger than the whole budget waits for a full bucket
            if self._tok[0] < need:
                wait = max(wait, (need - self._tok[0]) * 60.0 / self.tpm)
        return wait

    async def acquire(self, tokens: int = 0) -> None:
        if not self.rpm and not self.tpm:
            return
        async with self._lock:  # FIFO: one waiter at a time keeps the order fair
            # A microsecond's shortfall is float rounding of the refill, not a budget to wait for:
            # sleeping it could add less than the clock's resolution and never end.
            while (wait := self._wait_needed(tokens)) > 1e-6:
                await self._sleep(wait)
            if self.rpm:
                self._req[0] -= 1
            if self.tpm:
                self._tok[0] -= min(tokens, self.tpm)
