"""Live updates of tables: the changes a write announces in its own transaction
(``announce``), the per-process hub that fans each change out to the open event streams
(``hub``), and how changes made by other processes reach it: PostgreSQL LISTEN/NOTIFY
(``pg_listener``) or, on SQLite, the tables' revision column read on an interval
(``revision_watcher``)."""

from app.kit.changes import CHANNEL, announce
from app.live.hub import KINDS, Hub, Subscription, TableEvent

__all__ = ["CHANNEL", "KINDS", "Hub", "Subscription", "TableEvent", "announce"]
