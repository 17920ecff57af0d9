"""deals: the game of the match each deal was played in

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 10:00:00

``deals.game``: the game of the match the deal was played in (1 on a table without races),
written with the deal and again whenever an undo or a correction folds the log, so that the
picture of a piter_races match starts each game's pools and mountains again from the stored
deals and never re-scores the log. The existing deals of a races table get theirs from
their table's log folded once under the table's own rules version, one table at a time;
those of any other table are in game 1. The column stays nullable: a deal written by a
server of an earlier version has none, and its picture then draws one game.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _backfill() -> None:
    # The engine of this version: the game of a stored deal is the fold of its table's log.
    from types import SimpleNamespace

    from app.rules import Deal, InvalidDeal, InvalidTable, TableState, apply_deal, deal_game
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
        sa.column("game", sa.Integer()),
    )
    ids = [r.id for r in conn.execute(sa.select(deals.c.table_id.label("id")).distinct())]
    for table_id in ids:
        t = conn.execute(sa.select(tables).where(tables.c.id == table_id)).one()
        try:
            rules = rules_of(SimpleNamespace(**t._mapping))
        except InvalidTable:
            rules = None
        if rules is None or not rules.convention.races:
            # One game (or a table its rules refuse, never written by the service): game 1.
            conn.execute(deals.update().where(deals.c.table_id == table_id).values(game=1))
            continue
        state = TableState.new(rules, first_dealer=t.first_dealer)
        values = []
        for row in conn.execute(
            sa.select(deals.c.id, deals.c.body).where(deals.c.table_id == table_id).order_by(deals.c.number)
        ):
            try:
                after = apply_deal(rules, state, Deal.from_dict(row.body)).state
            except InvalidDeal:
                # A stored deal its rules refuse (never written by the service): it stays in
                # the game it came in, and the log goes on from there.
                values.append({"row_id": row.id, "played_in": state.game})
                continue
            values.append({"row_id": row.id, "played_in": deal_game(state, after)})
            state = after
        if values:
            conn.execute(
                deals.update()
                .where(deals.c.id == sa.bindparam("row_id"))
                .values(game=sa.bindparam("played_in")),
                values,
            )


def upgrade() -> None:
    with op.batch_alter_table("deals") as batch_op:
        batch_op.add_column(sa.Column("game", sa.Integer(), nullable=True))
    _backfill()


def downgrade() -> None:
    with op.batch_alter_table("deals") as batch_op:
        batch_op.drop_column("game")
