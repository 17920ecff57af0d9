"""The tables of the player registry and its players' seats (app/players): their ORM classes on
the one declarative base (app/kit/db/models.py). Alembic (migrations/) creates them; app/orm.py
gathers every domain's for it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db.models import Base, utcnow


class PlayerRow(Base):
    """A person an owner keeps score for across tables (the player registry). ``external_id``
    is an online client's own id for the person, unique per owner when given."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("owner", "external_id"),
        Index("ix_players_owner_id", "owner", "id"),
    )

    # Time-ordered hex (app/players/service.new_player_id): the listing's order is creation order.
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(64))
    external_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerTableRow(Base):
    """A registered player's seat at one table and what the table's deals add up to for that
    seat (app/players/stats.py): written in the transaction of each deal, so that a
    player's statistics are a sum over these rows, never a fold of deals on request.

    ``convention`` and ``table_created_at`` repeat the table's, so that the filtered sums read
    this table alone."""

    __tablename__ = "player_tables"
    __table_args__ = (
        UniqueConstraint("table_id", "seat"),
        UniqueConstraint("player_id", "table_id"),
        Index("ix_player_tables_player_id_table_created_at", "player_id", "table_created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    convention: Mapped[str] = mapped_column(String(32))
    table_created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    deal_count: Mapped[int] = mapped_column(Integer, default=0)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    balance: Mapped[str] = mapped_column(String(64), default="0")  # exact whists, "p/q" or an int's text
    tally: Mapped[dict[str, Any]] = mapped_column(JSON)  # the counts of player_stats.Tally
