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

from app.kit.caching import Kept, Once

V = TypeVar("V")


class Built(Generic[V]):
    """Values by key, each built once per revision (see the module): app/kit/caching.py's
    ``Kept`` of (revision, value) by key."""

    def __init__(
        self, max_items: int, *, max_bytes: int | None = None, weigh: Callable[[V], int] | None = None
    ):
        self.max_items = max(0, max_items)
        self.max_bytes = max_bytes
        weigh_entry: Callable[[tuple[Hashable, V]], int] | None = None
        if max_bytes is not None and weigh is not None:

            def weigh_entry(entry: tuple[Hashable, V]) -> int:
                return weigh(entry[1])

        self._items: Kept[Hashable, tuple[Hashable, V]] = Kept(
            self.max_items, max_weight=max_bytes if weigh_entry else None, weigh=weigh_entry
        )
        self._once = Once()
        self._counting = threading.Lock()
        self.builds = 0  # values built so far (the tests and benchmarks count them)

    def get(self, key: Hashable, revision: Hashable) -> V | None:
        """The value of ``key`` built at ``revision``, if kept (a hit is the most recently used)."""
        entry = self._items.get(key)
        if entry is None or entry[0] != revision:
            return None
        return entry[1]

    def put(self, key: Hashable, revision: Hashable, value: V) -> None:
        self._items.put(key, (revision, value))

    def get_or_build(self, key: Hashable, revision: Hashable, build: Callable[[], V]) -> V:
        """The value of ``key`` at ``revision``: kept, or built now (once, however many ask)."""
        value = self.get(key, revision)
        if value is not None:
            return value

        def built() -> V:
            value = build()
            with self._counting:
                self.builds += 1
            self.put(key, revision, value)
            return value

        return self._once.run((key, revision), lambda: self.get(key, revision), built)

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
