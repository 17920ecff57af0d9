"""api keys: administration as a property of the key, and revocation

Revision ID: 0004
Revises: 0002
Create Date: 2026-12-01 08:45:00

Before this revision any key of owner "admin" could administer keys. Now only a key with
``is_admin`` can (and the environment admin key). Existing keys all become ordinary keys,
whatever their owner: an operator who wants a stored admin key makes one with
``prefscore keys create NAME --admin``. ``revoked_at``: a revoked key is refused.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch_op:
        batch_op.add_column(sa.Column("is_admin", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch_op:
        batch_op.drop_column("revoked_at")
        batch_op.drop_column("is_admin")
