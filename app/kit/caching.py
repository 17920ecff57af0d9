"""The one cache helper of this process: cachetools' LRU cache (bounded by count, or by weight
and count) or TTL cache behind a lock, since request threads share it, and a value made once
however many threads ask for it at the same moment (``Once``).

Every cache of the service is one of these (the key lookups', the pictures', the public
views' and pages'), so that bounds, recency and expiry are cachetools' and not written again
per cache. Per process; nothing written anywhere else.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import Cache, LRUCache, TTLCache

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


class Once:
    """Work made once per token at a time: the first caller makes it, the others asking for the
    same token meanwhile wait for it and then look again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[Hashable, threading.Lock] = {}

    def run(self, token: Hashable, look: Callable[[], T | None], make: Callable[[], T]) -> T:
        """``look()`` if it finds something once the token's maker is done, else ``make()``."""
        with self._lock:
            running = self._running.setdefault(token, threading.Lock())
        try:
            with running:
                found = look()
                return found if found is not None else make()
        finally:
            with self._lock:
                self._running.pop(token, None)


class Kept(Generic[K, V]):
    """At most ``max_items`` values by key, the least recently used going first; with ``ttl``
    (seconds) each is forgotten that long after it was put; with ``weigh`` and ``max_weight``
    the values' total weight is bounded too, and a value heavier than the whole bound is not
    kept. Thread-safe."""

    def __init__(
        self,
        max_items: int,
        *,
        ttl: float | None = None,
        max_weight: int | None = None,
        weigh: Callable[[V], int] | None = None,
        timer: Callable[[], float] = time.monotonic,
    ):
        self.max_items = max(0, max_items)
        self.max_weight = max_weight
        self._weigh = weigh if max_weight is not None else None
        self._items: Cache[K, V]
        if ttl is not None:
            self._items = TTLCache(maxsize=max(1, self.max_items), ttl=ttl, timer=timer)
        elif self._weigh is not None:
            weigh_ = self._weigh
            # LRUCache weighs an entry by getsizeof: here its value's weight (at least 1)
            self._items = LRUCache(maxsize=max(0, max_weight or 0), getsizeof=lambda v: max(1, weigh_(v)))
        else:
            self._items = LRUCache(maxsize=self.max_items)
        self._lock = threading.Lock()
        self._once = Once()

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (a hit is the most recently used), else None."""
        with self._lock:
            return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items.pop(key, None)
            if self._weigh is not None and self._weigh(value) > (self.max_weight or 0):
                return  # heavier than the whole cache: not kept
            if self.max_items == 0:
                return
            self._items[key] = value  # drops the least recently used until it fits
            while len(self._items) > self.max_items:
                self._items.popitem()

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``: kept, or made now (once, however many ask at the same moment)."""
        value = self.get(key)
        if value is not None:
            return value

        def made() -> V:
            value = make()
            self.put(key, value)
            return value

        return self._once.run(key, lambda: self.get(key), made)

    def drop(self, key: K) -> None:
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    @property
    def size(self) -> tuple[int, int]:
        """(values, their total weight) kept; the weight is the count without ``weigh``."""
        with self._lock:
            return len(self._items), int(self._items.currsize)
