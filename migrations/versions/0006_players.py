"""players: the owner's player registry and each registered player's tally per table

Revision ID: 0006
Revises: 0004
Create Date: 2026-12-01 09:30:00

``players``: a person an owner keeps score for, with an optional ``external_id`` (an online
client's own user id), unique per owner. ``player_tables``: a registered player's seat at a
table and what that table's deals add up to for the seat, kept in the deal's transaction;
a player's statistics are a sum over these rows. Both go with their table (or player) on
delete. Existing tables have no registered players: nothing to fill in.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("external_id", sa.String(length=128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("owner", "external_id", name=op.f("uq_players_owner_external_id")),
    )
    with op.batch_alter_table("players") as batch_op:
        batch_op.create_index("ix_players_owner_id", ["owner", "id"], unique=False)
    op.create_table(
        "player_tables",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("convention", sa.String(length=32), nullable=False),
        sa.Column("table_created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deal_count", sa.Integer(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("balance", sa.String(length=64), nullable=False),
        sa.Column("tally", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_player_tables_player_id_players"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_player_tables_table_id_tables"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_tables")),
        sa.UniqueConstraint("player_id", "table_id", name=op.f("uq_player_tables_player_id_table_id")),
        sa.UniqueConstraint("table_id", "seat", name=op.f("uq_player_tables_table_id_seat")),
    )
    with op.batch_alter_table("player_tables") as batch_op:
        batch_op.create_index(
            "ix_player_tables_player_id_table_created_at", ["player_id", "table_created_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("player_tables") as batch_op:
        batch_op.drop_index("ix_player_tables_player_id_table_created_at")
    op.drop_table("player_tables")
    with op.batch_alter_table("players") as batch_op:
        batch_op.drop_index("ix_players_owner_id")
    op.drop_table("players")
