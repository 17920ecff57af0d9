"""The tables of the ratings (app/ratings; migration 0011): their ORM classes on the one
declarative base (app/kit/db/models.py). Alembic (migrations/) creates them; app/orm.py gathers
every domain's for it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.expression import false

from app.kit.db.models import Base, utcnow


class RatedTableRow(Base):
    """A finished rated table as its players' ratings took it (app/ratings): its place in the
    owner's finishing order (``seq``) and its outcome, each seat's player and exact balance.
    ``stamp`` is bumped whenever the table's rating changes are written again (a correction
    of an earlier table re-rates it), for the settlement's ETag. ``pending``: the table has
    its place but its ratings are not written yet (the post that finished it only takes the
    place; app/ratings rates it after the commit, or before any read of the ratings)."""

    __tablename__ = "rated_tables"
    __table_args__ = (
        UniqueConstraint("owner", "seq"),
        Index(
            "ix_rated_tables_pending",
            "owner",
            "seq",
            sqlite_where=text("pending"),
            postgresql_where=text("pending"),
        ),
    )

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    convention: Mapped[str] = mapped_column(String(32))
    seq: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[list[Any]] = mapped_column(JSON)  # [[player_id, balance "p/q" or int text], ...] by seat
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    stamp: Mapped[int] = mapped_column(Integer, default=0)
    pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class RatingChangeRow(Base):
    """What one rated table did to one player's rating in one pool: the rating before and
    after (the floats of the rating model, stored as they are: double precision), and the
    player's rated tables in that pool after it. ``pool`` is "" for the owner's pool of every
    convention, else the convention's name."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("table_id", "pool", "player_id"),
        Index("ix_rating_changes_owner_pool_seq", "owner", "pool", "seq"),
        Index("ix_rating_changes_player_id_pool_seq", "player_id", "pool", "seq"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner: Mapped[str] = mapped_column(String(64))
    pool: Mapped[str] = mapped_column(String(32))
    seq: Mapped[int] = mapped_column(Integer)
    table_id: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str] = mapped_column(String(32))
    mu_before: Mapped[float] = mapped_column(Double)
    sigma_before: Mapped[float] = mapped_column(Double)
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    games: Mapped[int] = mapped_column(Integer)


class PlayerRatingRow(Base):
    """A player's current rating in one pool: the last of their ``rating_changes`` there,
    kept apart so that the leaderboard is one index range (owner, pool, ordinal, id)."""

    __tablename__ = "player_ratings"
    __table_args__ = (Index("ix_player_ratings_owner_pool_ordinal", "owner", "pool", "ordinal", "player_id"),)

    pool: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    ordinal: Mapped[float] = mapped_column(Double)  # mu - 3 sigma
    games: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)  # the finishing order of the player's last rated table here
