"""The tables of the tables (app/tables): their ORM classes on the one declarative base
(app/kit/db/models.py). Alembic (migrations/) creates them; app/orm.py gathers every domain's
for it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.expression import false

from app.kit.db.models import Base, utcnow


class TableRow(Base):
    __tablename__ = "tables"
    # The tables collection (GET /v1/tables): an owner's tables by latest activity, keyset-paged
    # on (updated_at, id) (migration 0005).
    __table_args__ = (Index("ix_tables_owner_updated_at_id", "owner", "updated_at", "id"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    convention: Mapped[str] = mapped_column(String(32))
    players: Mapped[list[Any]] = mapped_column(JSON)
    pool_target: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    first_dealer: Mapped[int] = mapped_column(Integer)
    share_token: Mapped[str] = mapped_column(String(64), unique=True)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    rules_version: Mapped[int] = mapped_column(Integer)
    deal_count: Mapped[int] = mapped_column(Integer, default=0)
    # Bumped on every change of the log (post, undo, correction): part of the sheet's ETag,
    # because an undo followed by another deal gives the same deal_count and another sheet.
    revision: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    title: Mapped[str | None] = mapped_column(String(200), nullable=True)
    note: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    # Set while the table is archived: it refuses deals and leaves the listing unless asked.
    archived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The table counts for its players' ratings once it has finished with every seat a
    # registered player (app/ratings; migration 0011). Off unless the owner asks.
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Set while the table's results are locked (a tournament's closed round, app/tournaments):
    # why, in words; its deals are then neither posted, undone nor corrected (migration 0010).
    locked: Mapped[str | None] = mapped_column(String(200), nullable=True)
