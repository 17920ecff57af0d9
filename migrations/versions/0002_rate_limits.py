"""rate limits: per-key request counts shared by every server process

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 20:30:00

The per-key rate limit (app/kit/limiter.py) counts in the service's own database so that all
processes share one count; one row per (bucket, window), the bucket being a SHA-256 of the
presented key.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_limits",
        sa.Column("bucket", sa.String(length=64), nullable=False),
        sa.Column("window", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("bucket", "window", name=op.f("pk_rate_limits")),
    )


def downgrade() -> None:
    op.drop_table("rate_limits")
