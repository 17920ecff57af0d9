"""deals: the seat that dealt each deal

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 09:00:00

``deals.dealer``: the seat that dealt the deal (the table's next dealer before it), written
with the deal and again whenever an undo or a correction folds the log, so that a page of a
scorer link's log reads that page's rows and never folds the deals before it. The existing
deals get theirs from their table's log folded once under the table's own rules version,
one table at a time; the column is then made NOT NULL.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _backfill() -> None:
    # The engine of this version: the dealer of a stored deal is the fold of its table's log.
    from types import SimpleNamespace

    from app.rules import Deal, InvalidDeal, InvalidTable, TableState, apply_deal
    from app.tables.service import rules_of

    conn = op.get_bind()
    tables = sa.table(
        "tables",
        sa.column("id", sa.String()),
        sa.column("convention", sa.String()),
        sa.column("players", sa.JSON()),
        sa.column("pool_target", sa.Integer()),
        sa.column("options", sa.JSON()),
        sa.column("first_dealer", sa.Integer()),
        sa.column("rules_version", sa.Integer()),
    )
    deals = sa.table(
        "deals",
        sa.column("id", sa.Integer()),
        sa.column("table_id", sa.String()),
        sa.column("number", sa.Integer()),
        sa.column("body", sa.JSON()),
        sa.column("dealer", sa.Integer()),
    )
    ids = [r.id for r in conn.execute(sa.select(deals.c.table_id.label("id")).distinct())]
    for table_id in ids:
        t = conn.execute(sa.select(tables).where(tables.c.id == table_id)).one()
        try:
            rules = rules_of(SimpleNamespace(**t._mapping))
        except InvalidTable:
            # A table its rules refuse (never written by the service): its first dealer deals each.
            conn.execute(
                deals.update().where(deals.c.table_id == table_id).values(dealer=t.first_dealer or 0)
            )
            continue
        state = TableState.new(rules, first_dealer=t.first_dealer)
        values = []
        for row in conn.execute(
            sa.select(deals.c.id, deals.c.body).where(deals.c.table_id == table_id).order_by(deals.c.number)
        ):
            values.append({"row_id": row.id, "seat": state.next_dealer})
            try:
                state = apply_deal(rules, state, Deal.from_dict(row.body)).state
            except InvalidDeal:
                # A stored deal its rules refuse (never written by the service): the deal passes on.
                state = TableState.new(rules, first_dealer=(state.next_dealer + 1) % rules.players)
        if values:
            conn.execute(
                deals.update()
                .where(deals.c.id == sa.bindparam("row_id"))
                .values(dealer=sa.bindparam("seat")),
                values,
            )


def upgrade() -> None:
    with op.batch_alter_table("deals") as batch_op:
        batch_op.add_column(sa.Column("dealer", sa.Integer(), nullable=True))
    _backfill()
    with op.batch_alter_table("deals") as batch_op:
        batch_op.alter_column("dealer", existing_type=sa.Integer(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("deals") as batch_op:
        batch_op.drop_column("dealer")
