"""webhooks: endpoints, the tables they are limited to, the outbox of deliveries, their attempts

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 07:00:00

An owner's webhook endpoints (``webhook_endpoints``, and ``webhook_endpoint_tables`` for an
endpoint limited to some tables); the outbox (``webhook_deliveries``): one row per event and
endpoint, written in the transaction of the change it announces and delivered after its
commit; every attempt (``webhook_attempts``). New tables only: nothing existing changes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("url", sa.String(length=2000), nullable=False),
        sa.Column("types", sa.Integer(), nullable=False),
        sa.Column("all_tables", sa.Boolean(), nullable=False),
        sa.Column("secret", sa.String(length=100), nullable=False),
        sa.Column("previous_secret", sa.String(length=100), nullable=True),
        sa.Column("previous_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("disabled_reason", sa.String(length=500), nullable=True),
        sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_endpoints")),
    )
    op.create_index(op.f("ix_webhook_endpoints_owner"), "webhook_endpoints", ["owner"], unique=False)
    op.create_table(
        "webhook_endpoint_tables",
        sa.Column("endpoint_id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["endpoint_id"],
            ["webhook_endpoints.id"],
            name=op.f("fk_webhook_endpoint_tables_endpoint_id_webhook_endpoints"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("endpoint_id", "table_id", name=op.f("pk_webhook_endpoint_tables")),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("endpoint_id", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=True),
        sa.Column("revision", sa.Integer(), nullable=True),
        sa.Column("deal_number", sa.Integer(), nullable=True),
        sa.Column("deal_count", sa.Integer(), nullable=True),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["endpoint_id"],
            ["webhook_endpoints.id"],
            name=op.f("fk_webhook_deliveries_endpoint_id_webhook_endpoints"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
    )
    op.create_index(
        "ix_webhook_deliveries_state_due_at", "webhook_deliveries", ["state", "due_at"], unique=False
    )
    op.create_index(
        "ix_webhook_deliveries_endpoint_id_id", "webhook_deliveries", ["endpoint_id", "id"], unique=False
    )
    op.create_index("ix_webhook_deliveries_finished_at", "webhook_deliveries", ["finished_at"], unique=False)
    op.create_table(
        "webhook_attempts",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("delivery_id", _ID, nullable=False),
        sa.Column("attempted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.ForeignKeyConstraint(
            ["delivery_id"],
            ["webhook_deliveries.id"],
            name=op.f("fk_webhook_attempts_delivery_id_webhook_deliveries"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_attempts")),
    )
    op.create_index(
        op.f("ix_webhook_attempts_delivery_id"), "webhook_attempts", ["delivery_id"], unique=False
    )


def downgrade() -> None:
    op.drop_table("webhook_attempts")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoint_tables")
    op.drop_table("webhook_endpoints")
