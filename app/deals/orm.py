"""The tables of the deals of a table and the replays of their posts (app/deals): their ORM
classes on the one declarative base (app/kit/db/models.py). Alembic (migrations/) creates them;
app/orm.py gathers every domain's for it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db.models import Base, utcnow


class DealRow(Base):
    __tablename__ = "deals"
    __table_args__ = (UniqueConstraint("table_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)  # the canonical deal (Deal.to_dict())
    entries: Mapped[list[Any]] = mapped_column(JSON)  # what it wrote, amounts as int or "p/q"
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # The seat that dealt it (the state's next_dealer before it), written with the deal and
    # again when an undo or a correction folds the log: a page of the log with its dealers
    # reads that page's rows, never the deals before it (migration 0008).
    dealer: Mapped[int] = mapped_column(Integer)
    # The game of the match it was played in (1 without races), written with the deal and
    # again when an undo or a correction folds the log: a picture of a piter_races match
    # starts each game's pools and mountains from this, never by re-scoring the log
    # (migration 0009; null only for a deal written by a server before it).
    game: Mapped[int | None] = mapped_column(Integer, nullable=True)


class IdempotencyRow(Base):
    """The first answer to a POST of a deal with an Idempotency-Key, replayed to its retries.

    ``deal_number`` is the deal the key wrote: an undo or a correction of that deal deletes
    the row in the same transaction (a replay must never describe a deal that is no longer
    stored as it was). Rows older than the configured expiry are deleted (``created_at``)."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (
        UniqueConstraint("table_id", "key"),
        Index("ix_idempotency_keys_table_id_deal_number", "table_id", "deal_number"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    request_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    deal_number: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
