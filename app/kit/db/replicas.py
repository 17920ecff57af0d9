"""Reads from a streaming replica, writes to the leader, and read-your-writes.

A request is a ``Visit`` (set for the request by app/kit/middleware/read_your_writes.py, in
a context variable, so that ``Database`` sees it in whatever thread the endpoint runs). A
read of a route declared servable by a replica goes to the replica; everything else, every
write, and every read of a request that has written goes to the leader.

Read-your-writes: after a request commits a write, the leader's WAL position
(``pg_current_wal_lsn()``, one round trip after the commit) is sent back in the
``Prefscore-Position`` header and a cookie of that name. A read that brings a position
(header or cookie) is served by the replica only when ``pg_last_wal_replay_lsn()`` has
reached it, asked in the read's own transaction, so that the read's statements see at least
that much; else by the leader. A read without a position takes the replica as it is (a moment
behind at most). With SQLite, or no ``read_database_url``, none of this runs.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

POSITION = "Prefscore-Position"
# A position no replica reaches: the leader's position could not be read after a write, so
# the client's next reads go to the leader (while the cookie lasts).
NEVER = (1 << 64) - 1
_LSN = re.compile(r"^\s*([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})\s*$")
READ_METHODS = frozenset({"GET", "HEAD"})


def parse_position(text: str | bytes | None) -> int | None:
    """A WAL position (``16/B374D848``) as a number; None when it is not one."""
    if text is None:
        return None
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    found = _LSN.match(text)
    if found is None:
        return None
    return (int(found[1], 16) << 32) + int(found[2], 16)


def format_position(position: int) -> str:
    return f"{position >> 32:X}/{position & 0xFFFFFFFF:X}"


@dataclass
class Visit:
    """What the database layer knows of the request it serves."""

    scope: MutableMapping[str, Any]  # the request's ASGI scope (its method, and its route once routed)
    routes: frozenset[str]
    position: int | None = None  # the client's last write, as it told
    written: int | None = None  # this request's last write (the leader's position after it)
    reads: dict[str, int] = field(default_factory=dict)

    def may_use_replica(self) -> bool:
        if self.written is not None or self.scope.get("method") not in READ_METHODS:
            return False
        return getattr(self.scope.get("route"), "path", None) in self.routes

    def wrote(self, position: int) -> None:
        self.written = position if self.written is None else max(self.written, position)


VISIT: ContextVar[Visit | None] = ContextVar("prefscore_visit", default=None)


def current_visit() -> Visit | None:
    return VISIT.get()


def replayed_enough(replayed: Any, wanted: int | None) -> bool:
    """Whether a replica that has replayed up to ``replayed`` (``pg_last_wal_replay_lsn()``;
    None on a server that is not in recovery, which is current) serves a read that must see
    ``wanted``."""
    if wanted is None or replayed is None:
        return True
    at = parse_position(str(replayed))
    return at is not None and at >= wanted
