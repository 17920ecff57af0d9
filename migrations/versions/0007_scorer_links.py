"""scorer links: a table's links that may post, undo and correct its deals

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 11:45:00

``scorer_links``: a link of one table (``/score/{token}``) that may score its deals and read
what the scoring page needs, nothing else. As with API keys only a SHA-256 of the token is
stored, with its first characters as an indexed prefix for a one-row lookup; ``revoked_at``
is set when the owner revokes it. Links go with their table on delete. Existing tables have
no links: nothing to fill in.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "scorer_links",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_scorer_links_table_id_tables"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scorer_links")),
    )
    with op.batch_alter_table("scorer_links") as batch_op:
        batch_op.create_index("ix_scorer_links_prefix", ["prefix"], unique=False)
        batch_op.create_index("ix_scorer_links_table_id", ["table_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("scorer_links") as batch_op:
        batch_op.drop_index("ix_scorer_links_table_id")
        batch_op.drop_index("ix_scorer_links_prefix")
    op.drop_table("scorer_links")
