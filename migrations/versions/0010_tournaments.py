"""tournaments: rounds of ordinary tables, their entrants, adjustments and audit; a table's lock

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 07:00:00

``tournaments`` and its rows (app/tournaments): the entrants, the drawn rounds, each round's
tables (an ordinary table each, with its seats and, once the round is closed, its balances),
the director's adjustments and the audit of what was done. ``tables.locked``: why a table's
deals may not change now (its tournament round is closed); null for every existing table.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _tournament_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tournament_id"],
        ["tournaments.id"],
        name=op.f(f"fk_{table}_tournament_id_tournaments"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch_op:
        batch_op.add_column(sa.Column("locked", sa.String(length=200), nullable=True))
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("convention", sa.String(length=32), nullable=False),
        sa.Column("pool_target", sa.Integer(), nullable=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("table_sizes", sa.JSON(), nullable=False),
        sa.Column("game_end", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("scoring", sa.JSON(), nullable=False),
        sa.Column("swiss", sa.Boolean(), nullable=False),
        sa.Column("share_token", sa.String(length=64), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("share_token", name=op.f("uq_tournaments_share_token")),
    )
    op.create_index("ix_tournaments_owner_id", "tournaments", ["owner", "id"], unique=False)
    op.create_table(
        "tournament_entrants",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("joined_round", sa.Integer(), nullable=False),
        sa.Column("withdrawn_round", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _tournament_fk("tournament_entrants"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_entrants")),
        sa.UniqueConstraint(
            "tournament_id", "number", name=op.f("uq_tournament_entrants_tournament_id_number")
        ),
    )
    op.create_table(
        "tournament_rounds",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("byes", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reopened", sa.Boolean(), nullable=False),
        _tournament_fk("tournament_rounds"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_rounds")),
        sa.UniqueConstraint(
            "tournament_id", "number", name=op.f("uq_tournament_rounds_tournament_id_number")
        ),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=True),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("balances", sa.JSON(), nullable=True),
        _tournament_fk("tournament_tables"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
            name=op.f("fk_tournament_tables_table_id_tables"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_tables")),
        sa.UniqueConstraint(
            "tournament_id", "round", "number", name=op.f("uq_tournament_tables_tournament_id_round_number")
        ),
    )
    op.create_index("ix_tournament_tables_table_id", "tournament_tables", ["table_id"], unique=False)
    op.create_table(
        "tournament_adjustments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("entrant", sa.Integer(), nullable=False),
        sa.Column("amount", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("by", sa.String(length=64), nullable=False),
        _tournament_fk("tournament_adjustments"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_adjustments")),
    )
    op.create_index(
        "ix_tournament_adjustments_tournament_id", "tournament_adjustments", ["tournament_id"], unique=False
    )
    op.create_table(
        "tournament_audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("by", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        _tournament_fk("tournament_audit"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_audit")),
    )
    op.create_index("ix_tournament_audit_tournament_id", "tournament_audit", ["tournament_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_tournament_audit_tournament_id", table_name="tournament_audit")
    op.drop_table("tournament_audit")
    op.drop_index("ix_tournament_adjustments_tournament_id", table_name="tournament_adjustments")
    op.drop_table("tournament_adjustments")
    op.drop_index("ix_tournament_tables_table_id", table_name="tournament_tables")
    op.drop_table("tournament_tables")
    op.drop_table("tournament_rounds")
    op.drop_table("tournament_entrants")
    op.drop_index("ix_tournaments_owner_id", table_name="tournaments")
    op.drop_table("tournaments")
    with op.batch_alter_table("tables") as batch_op:
        batch_op.drop_column("locked")
