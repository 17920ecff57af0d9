"""idempotency keys: the deal each key wrote, and an index for their expiry

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 08:30:00

An undo or a correction of a deal retires the Idempotency-Keys that wrote it, so each key
row names its deal (``deal_number``, taken from the stored answer for the existing rows).
Existing rows whose deal is no longer stored as it was answered (undone, corrected, or
undone and replaced by another deal) are deleted: a retry with such a key is a new deal.
``created_at`` is indexed for the expiry of old records.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STORED_ONLY = ("number", "entries", "created_at")


def _retire_ghosts_and_backfill() -> None:
    conn = op.get_bind()
    keys = sa.table(
        "idempotency_keys",
        sa.column("id", sa.Integer()),
        sa.column("table_id", sa.String()),
        sa.column("response", sa.JSON()),
        sa.column("deal_number", sa.Integer()),
    )
    deals = sa.table(
        "deals",
        sa.column("table_id", sa.String()),
        sa.column("number", sa.Integer()),
        sa.column("body", sa.JSON()),
    )
    gone: list[int] = []
    numbers: list[dict[str, int]] = []
    table_ids = conn.execute(sa.select(keys.c.table_id).distinct()).scalars().all()
    for table_id in table_ids:  # two queries a table, whatever its number of keys
        answers = conn.execute(sa.select(keys.c.id, keys.c.response).where(keys.c.table_id == table_id)).all()
        stored = dict(
            conn.execute(sa.select(deals.c.number, deals.c.body).where(deals.c.table_id == table_id)).all()
        )
        for key_id, response in answers:
            deal = (response or {}).get("deal") or {}
            number = deal.get("number")
            answered = {k: v for k, v in deal.items() if k not in _STORED_ONLY}
            if isinstance(number, int) and stored.get(number) == answered:
                numbers.append({"key_id": key_id, "number": number})
            else:
                gone.append(key_id)
    for start in range(0, len(gone), 500):  # within any database's limit of bound parameters
        conn.execute(sa.delete(keys).where(keys.c.id.in_(gone[start : start + 500])))
    if numbers:
        conn.execute(
            sa.update(keys)
            .where(keys.c.id == sa.bindparam("key_id"))
            .values(deal_number=sa.bindparam("number")),
            numbers,
        )


def upgrade() -> None:
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deal_number", sa.Integer(), nullable=True))
    _retire_ghosts_and_backfill()
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.alter_column("deal_number", existing_type=sa.Integer(), nullable=False)
        batch_op.create_index(batch_op.f("ix_idempotency_keys_created_at"), ["created_at"], unique=False)
        batch_op.create_index(
            "ix_idempotency_keys_table_id_deal_number", ["table_id", "deal_number"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.drop_index("ix_idempotency_keys_table_id_deal_number")
        batch_op.drop_index(batch_op.f("ix_idempotency_keys_created_at"))
        batch_op.drop_column("deal_number")
