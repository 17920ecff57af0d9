"""webhook event data: a delivery's own data, for an event its other columns cannot describe

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 08:00:00

``webhook_deliveries.data``: the event's data as it was when it happened (rating.changed: its
players' ratings before and after), so that every attempt sends the same payload. Null for
every existing delivery (their payloads are made from their other columns).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_deliveries") as batch_op:
        batch_op.add_column(sa.Column("data", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_deliveries") as batch_op:
        batch_op.drop_column("data")
