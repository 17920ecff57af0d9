"""tables collection: title, note, archive; the index of an owner's tables by activity

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 09:30:00

``GET /v1/tables`` lists an owner's tables newest activity first, keyset-paged on
(updated_at, id): the index (owner, updated_at, id) answers a page by a range scan. A table
gains a ``title``, a free ``note`` and ``archived_at`` (set while it is archived). Existing
tables have none of them: untitled, no note, not archived.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch_op:
        batch_op.add_column(sa.Column("title", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("note", sa.String(length=2000), nullable=True))
        batch_op.add_column(sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_tables_owner_updated_at_id", "tables", ["owner", "updated_at", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_tables_owner_updated_at_id", table_name="tables")
    with op.batch_alter_table("tables") as batch_op:
        batch_op.drop_column("archived_at")
        batch_op.drop_column("note")
        batch_op.drop_column("title")
