"""The tables of the scorer links (app/scorer): their ORM classes on the one declarative base
(app/kit/db/models.py). Alembic (migrations/) creates them; app/orm.py gathers every domain's
for it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db.models import Base, utcnow


class ScorerLinkRow(Base):
    """A table's scorer link (``/score/{token}``): it may post, undo and correct that table's
    deals and read what the scoring page needs (app/scorer/service.py). Stored as API
    keys are: a SHA-256 of the token, and its first characters as an indexed prefix."""

    __tablename__ = "scorer_links"
    __table_args__ = {"sqlite_autoincrement": True}  # ids handed out never given twice (migration 0015)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    prefix: Mapped[str] = mapped_column(String(16), index=True)
    hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
