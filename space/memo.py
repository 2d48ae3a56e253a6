"""Computed once per key, for every visitor: a bounded, thread-safe memo.

Concurrent requests for one key compute it once (the others wait for that result); the least recently
used entries go beyond ``max_entries``. Keys carry what the value depends on (a data version, the rows
drawn, a query string), so nothing needs invalidating.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Hashable


class Memo:
    def __init__(self, max_entries: int):
        self.max_entries = max_entries
        self._done: OrderedDict[Hashable, object] = OrderedDict()
        self._computing: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()
        self.computed = 0  # values actually computed (tests, benchmarks)

    def get(self, key: Hashable, compute: Callable[[], object]):
        with self._lock:
            if key in self._done:
                self._done.move_to_end(key)
                return self._done[key]
            per_key = self._computing.setdefault(key, threading.Lock())
        with per_key:  # one computation per key; later arrivals find the result below
            with self._lock:
                if key in self._done:
                    return self._done[key]
            value = compute()
            with self._lock:
                self.computed += 1
                self._done[key] = value
                self._computing.pop(key, None)
                while len(self._done) > self.max_entries:
                    self._done.popitem(last=False)
            return value

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._done
