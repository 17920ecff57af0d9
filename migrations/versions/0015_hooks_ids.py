"""ids never given twice: the tables whose ids are handed out get SQLite's AUTOINCREMENT

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04 09:40:00

A SQLite rowid table without AUTOINCREMENT gives a deleted newest row's id to the next row;
where the id is handed out (a webhook's ``msg_{id}``, a webhook's, a key's, a scorer link's,
an adjustment's id, a listing's cursor) a receiver or a client would take the new row for the
old one. With AUTOINCREMENT, ids only grow (``sqlite_sequence`` remembers the largest ever
given; the copy seeds it with the largest kept). PostgreSQL's sequences never go back: nothing
to do there.

SQLite has no ALTER for it: each table is rebuilt (copied) as Alembic's batch mode does; the
migration's connection has no ``PRAGMA foreign_keys``, so dropping a parent's old copy
deletes nothing.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Parents before children: a child's copy names its parent's final table.
TABLES = (
    "api_keys",
    "scorer_links",
    "webhook_endpoints",
    "webhook_deliveries",
    "tournament_adjustments",
    "tournament_audit",
)


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for table in TABLES:
        with op.batch_alter_table(
            table, recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
        ):
            pass


def upgrade() -> None:
    _rebuild(True)


def downgrade() -> None:
    _rebuild(False)
