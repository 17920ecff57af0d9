"""rated tables pending: a finished rated table's place in the finishing order, rated after the post

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 09:00:00

``rated_tables.pending``: the post that finishes a rated table only takes its place in the
owner's finishing order; its players' ratings are written after the commit (app/ratings),
and until then the row is pending. Every existing row was rated in its post: false. The
partial index finds an owner's pending tables, in finishing order, without reading the rest.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rated_tables") as batch_op:
        batch_op.add_column(sa.Column("pending", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index(
        "ix_rated_tables_pending",
        "rated_tables",
        ["owner", "seq"],
        sqlite_where=sa.text("pending"),
        postgresql_where=sa.text("pending"),
    )


def downgrade() -> None:
    op.drop_index("ix_rated_tables_pending", table_name="rated_tables")
    with op.batch_alter_table("rated_tables") as batch_op:
        batch_op.drop_column("pending")
