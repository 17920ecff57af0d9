"""Reads for the pictures of a table (sheet.svg, the share page): the table with its whole
deal log, in one read transaction, by owner or by share token.

When the caller already has the current version (its ETag), or the picture of this version
is drawn already (``DrawnCache``), the log is not read at all, so that a page polling for
changes costs one indexed row read per poll and a table is drawn once per revision.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache
from sqlalchemy.orm import Session

from app.kit.db import Database, TableRow

from app.deals.model import DealInfo, deal_info
from app.deals.service import stored_log
from app.tables.model import TableInfo, info, rules_of, state_of
from app.tables.service import load_row, shared_row


@dataclass(frozen=True)
class Picture:
    table: TableInfo
    deals: tuple[DealInfo, ...] | None  # None when the caller's version is current
    games: tuple[int | None, ...] | None = None  # piter_races: the game each deal was played in (as stored)


def _picture(session: Session, row: TableRow, current: Callable[[TableInfo], bool] | None) -> Picture:
    rules = rules_of(row)
    table = info(row, rules, state_of(row))
    if current is not None and current(table):
        return Picture(table, None)
    rows = stored_log(session, row.id)
    deals = tuple(deal_info(r) for r in rows)
    # a match's pools and mountains start again in each game: the game each deal is stored with
    games = tuple(r.game for r in rows) if table.rules.convention.races else None
    return Picture(table, deals, games)


def table_picture(
    db: Database, owner: str, table_id: str, *, current: Callable[[TableInfo], bool] | None = None
) -> Picture:
    """The owner's table and its deal log (another owner's table is not found).

    ``current(table)`` true means the caller has this version: the log is not read."""
    with db.read() as session:
        return _picture(session, load_row(session, owner, table_id, lock=False), current)


def shared_picture(db: Database, token: str, *, current: Callable[[TableInfo], bool] | None = None) -> Picture:
    """The same through the read-only share token."""
    with db.read() as session:
        return _picture(session, shared_row(session, token), current)


class DrawnCache:
    """Pictures already drawn, by ETag: a picture is drawn once per revision of its table,
    however many viewers poll it. Least recently used first out, bounded by the total size
    of the pictures kept in bytes (cachetools' LRU cache weighing each by ``len``: the SVG's
    UTF-8 and the PNG's bytes) and by their number. When several requests want a picture
    that is not drawn yet, one draws it and the others wait for it."""

    def __init__(self, max_bytes: int = 32 * 1024 * 1024, max_items: int = 512):
        self.max_bytes = max_bytes
        self.max_items = max_items
        self._items: LRUCache[str, str | bytes] = LRUCache(maxsize=max(0, max_bytes), getsizeof=len)
        self._lock = threading.Lock()
        self._drawing: dict[str, threading.Lock] = {}

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._items

    def get(self, key: str) -> Any:
        with self._lock:
            return self._items.get(key)  # a hit is the most recently used

    def put(self, key: str, value: str | bytes) -> None:
        with self._lock:
            self._items.pop(key, None)
            if len(value) > self.max_bytes:
                return  # larger than the whole cache: not kept
            self._items[key] = value  # drops the least recently used until it fits
            while len(self._items) > self.max_items:
                self._items.popitem()

    def get_or_draw(self, key: str, draw: Callable[[], Any]) -> Any:
        value = self.get(key)
        if value is not None:
            return value
        with self._lock:
            drawing = self._drawing.setdefault(key, threading.Lock())
        try:
            with drawing:
                value = self.get(key)
                if value is None:
                    value = draw()
                    self.put(key, value)
                return value
        finally:
            with self._lock:
                self._drawing.pop(key, None)

    @property
    def size(self) -> tuple[int, int]:
        """(pictures, bytes) kept."""
        with self._lock:
            return len(self._items), int(self._items.currsize)
