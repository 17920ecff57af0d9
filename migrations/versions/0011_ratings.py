"""ratings: rated tables, each rated table's change to its players' ratings, the current ratings

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 07:00:00

``tables.rated``: the owner asked for the table to count for its players' ratings (false for
every existing table, and by default). ``rated_tables``: each finished rated table with its
place in the owner's finishing order and its outcome (each seat's player and exact balance).
``rating_changes``: what each rated table did to each of its players' ratings, in the owner's
pool of every convention ("") and in the table's convention's pool, as the rating model's
floats (double precision). ``player_ratings``: each player's current rating per pool, indexed
for the leaderboard. No existing table is rated: nothing to fill in.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch_op:
        batch_op.add_column(sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_table(
        "rated_tables",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("convention", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.JSON(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stamp", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_rated_tables_table_id_tables"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_rated_tables")),
        sa.UniqueConstraint("owner", "seq", name=op.f("uq_rated_tables_owner_seq")),
    )
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("pool", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("mu_before", sa.Double(), nullable=False),
        sa.Column("sigma_before", sa.Double(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_changes")),
        sa.UniqueConstraint(
            "table_id", "pool", "player_id", name=op.f("uq_rating_changes_table_id_pool_player_id")
        ),
    )
    with op.batch_alter_table("rating_changes") as batch_op:
        batch_op.create_index("ix_rating_changes_owner_pool_seq", ["owner", "pool", "seq"], unique=False)
        batch_op.create_index(
            "ix_rating_changes_player_id_pool_seq", ["player_id", "pool", "seq"], unique=False
        )
    op.create_table(
        "player_ratings",
        sa.Column("pool", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("ordinal", sa.Double(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("pool", "player_id", name=op.f("pk_player_ratings")),
    )
    with op.batch_alter_table("player_ratings") as batch_op:
        batch_op.create_index(
            "ix_player_ratings_owner_pool_ordinal", ["owner", "pool", "ordinal", "player_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("player_ratings") as batch_op:
        batch_op.drop_index("ix_player_ratings_owner_pool_ordinal")
    op.drop_table("player_ratings")
    with op.batch_alter_table("rating_changes") as batch_op:
        batch_op.drop_index("ix_rating_changes_player_id_pool_seq")
        batch_op.drop_index("ix_rating_changes_owner_pool_seq")
    op.drop_table("rating_changes")
    op.drop_table("rated_tables")
    with op.batch_alter_table("tables") as batch_op:
        batch_op.drop_column("rated")
