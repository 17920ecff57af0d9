"""Things built once per revision: a bounded, thread-safe cache of values by key, each kept
with the revision it was built at.

A value read more often than what it is built from changes (a public page polled by many
viewers) is built once per revision of its source, however many readers ask: ``get_or_build
(key, revision, build)`` answers the value kept for ``key`` when it was built at
``revision``, else builds it (one reader builds, the others asking for the same key and
revision wait for it) and keeps it in place of the older one. A key keeps one value, its
latest revision's; the least recently used keys go first, beyond ``max_items`` values or
(with ``weigh``) ``max_bytes`` of them. The revision is the caller's: anything that changes
whenever what the value shows changes (an ETag, a row's revision with its parts'); a value
built from a source newer than the revision it is kept at is never stale, only rebuilt the
next time the revision read moves on. Per process; nothing written anywhere else.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache

V = TypeVar("V")


class Built(Generic[V]):
    """Values by key, each built once per revision (see the module)."""

    def __init__(
        self, max_items: int, *, max_bytes: int | None = None, weigh: Callable[[V], int] | None = None
    ):
        self.max_items = max(0, max_items)
        self.max_bytes = max_bytes
        self._weigh = weigh if max_bytes is not None and weigh is not None else None
        # LRUCache weighs an entry by getsizeof: its value's weight, else 1 (counted by items)
        if self._weigh is not None:
            weigh_ = self._weigh
            self._items: LRUCache[Hashable, tuple[Hashable, V]] = LRUCache(
                maxsize=max(0, max_bytes or 0), getsizeof=lambda entry: max(1, weigh_(entry[1]))
            )
        else:
            self._items = LRUCache(maxsize=self.max_items)
        self._lock = threading.Lock()
        self._building: dict[tuple[Hashable, Hashable], threading.Lock] = {}
        self.builds = 0  # values built so far (the tests and benchmarks count them)

    def get(self, key: Hashable, revision: Hashable) -> V | None:
        """The value of ``key`` built at ``revision``, if kept (a hit is the most recently used)."""
        with self._lock:
            entry = self._items.get(key)
        if entry is None or entry[0] != revision:
            return None
        return entry[1]

    def put(self, key: Hashable, revision: Hashable, value: V) -> None:
        with self._lock:
            self._items.pop(key, None)
            if self._weigh is not None and self._weigh(value) > (self.max_bytes or 0):
                return  # larger than the whole cache: not kept
            if self.max_items == 0:
                return
            self._items[key] = (revision, value)  # drops the least recently used until it fits
            while len(self._items) > self.max_items:
                self._items.popitem()

    def get_or_build(self, key: Hashable, revision: Hashable, build: Callable[[], V]) -> V:
        """The value of ``key`` at ``revision``: kept, or built now (once, however many ask)."""
        value = self.get(key, revision)
        if value is not None:
            return value
        with self._lock:
            building = self._building.setdefault((key, revision), threading.Lock())
        try:
            with building:
                value = self.get(key, revision)
                if value is None:
                    value = build()
                    with self._lock:
                        self.builds += 1
                    self.put(key, revision, value)
                return value
        finally:
            with self._lock:
                self._building.pop((key, revision), None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
