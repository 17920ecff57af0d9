"""The tables of the API keys (app/keys): their ORM classes on the one declarative base
(app/kit/db/models.py). Alembic (migrations/) creates them; app/orm.py gathers every domain's
for it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.expression import false

from app.kit.db.models import Base, utcnow


class ApiKey(Base):
    __tablename__ = "api_keys"
    __table_args__ = {"sqlite_autoincrement": True}  # ids handed out never given twice (migration 0015)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    prefix: Mapped[str] = mapped_column(String(16), index=True)
    hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Administration is a property of the key, never of an owner's name (migration 0004).
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
