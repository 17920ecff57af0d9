"""Live updates of tables: the changes a write announces in its own transaction
(app/events/changes.py), the per-process hub that fans each change out to the open event streams
(``hub``), and how changes made by other processes reach it: PostgreSQL LISTEN/NOTIFY
(``pg_listener``) or, on SQLite, the tables' revision column read on an interval
(``revision_watcher``)."""

from app.events.changes import CHANNEL
from app.live.hub import Hub
from app.live.subscription import Subscription, TableEvent

__all__ = ["CHANNEL", "Hub", "Subscription", "TableEvent"]
